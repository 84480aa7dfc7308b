/* Progress bar on stderr (see progress.h). */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define BAR_WIDTH 24

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gt_progress_init(struct gt_progress *p, const struct gt_common *c, const char *label)
{
	memset(p, 0, sizeof *p);
	p->f = stderr;
	p->label = label;
	p->tty = isatty(STDERR_FILENO);
	p->enabled = !(c && c->quiet) && (p->tty || (c && c->progress));
	p->start_ns = now_ns();
}

static void format_time(char *buf, size_t cap, uint64_t s)
{
	if (s >= 3600)
		snprintf(buf, cap, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, cap, "%llu:%02llu", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
}

int gt_progress_format(char *buf, size_t cap, const char *label, uint64_t done, uint64_t total,
		       uint64_t elapsed_ns)
{
	double mb = (double)done / 1e6;
	double secs = (double)elapsed_ns / 1e9;
	double rate = secs > 0 ? mb / secs : 0;
	char left[32] = "";
	if (total && done > 0 && done < total && rate > 0) {
		char t[24];
		format_time(t, sizeof t, (uint64_t)((double)(total - done) / 1e6 / rate + 0.5));
		snprintf(left, sizeof left, ", %s left", t);
	}
	if (!total)
		return snprintf(buf, cap, "%s %.1f MB, %.1f MB/s", label, mb, rate);
	if (done > total)
		done = total;
	int filled = (int)(done * BAR_WIDTH / total);
	char bar[BAR_WIDTH + 1];
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, '.', (size_t)(BAR_WIDTH - filled));
	bar[BAR_WIDTH] = '\0';
	return snprintf(buf, cap, "%s [%s] %3d%% %.1f/%.1f MB, %.1f MB/s%s", label, bar,
			(int)(done * 100 / total), mb, (double)total / 1e6, rate, left);
}

void gt_progress_update(void *ctx, uint64_t done, uint64_t total)
{
	struct gt_progress *p = ctx;
	if (!p || !p->enabled)
		return;
	p->done = done;
	p->total = total;
	uint64_t t = now_ns();
	uint64_t every = p->tty ? 100000000u : 1000000000u; /* 10/s on a terminal, 1/s in a log */
	if (p->drawn && t - p->last_ns < every)
		return;
	p->last_ns = t;
	p->drawn = true;
	char line[160];
	gt_progress_format(line, sizeof line, p->label, done, total, t - p->start_ns);
	if (p->tty)
		fprintf(p->f, "\r%s\033[K", line);
	else
		fprintf(p->f, "%s\n", line);
	fflush(p->f);
}

void gt_progress_end(struct gt_progress *p)
{
	if (!p || !p->enabled)
		return;
	if (p->tty && p->drawn) {
		fputs("\r\033[K", p->f);
	} else if (!p->tty && p->done) {
		char line[160];
		gt_progress_format(line, sizeof line, p->label, p->done, p->total, now_ns() - p->start_ns);
		fprintf(p->f, "%s\n", line);
	}
	fflush(p->f);
	p->drawn = false;
}
