/* critical-path -v: stage times (see stages.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "stages.h"

static const char *const names[GT_STAGE_COUNT] = {
	"load", "setup", "prepare", "transfers", "kernels", "compute", "output",
};

double gt_now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void gt_stages_begin(struct gt_stages *st)
{
	memset(st, 0, sizeof *st);
	st->start = st->mark = gt_now_s();
}

double gt_stages_mark(struct gt_stages *st, enum gt_stage k)
{
	double now = gt_now_s(), d = now - st->mark;
	st->s[k] += d;
	st->mark = now;
	return d;
}

void gt_stages_print(const struct gt_common *c, const struct gt_stages *st, const char *device)
{
	double wall = st->mark - st->start;
	char line[512], *p = line;
	size_t left = sizeof line;
	for (int k = 0; k < GT_STAGE_COUNT; k++) {
		int n = snprintf(p, left, "%s%s %.3f s (%.0f%%)", k ? ", " : "", names[k], st->s[k],
				 wall > 0 ? 100.0 * st->s[k] / wall : 0.0);
		if (n < 0 || (size_t)n >= left)
			break;
		p += n;
		left -= (size_t)n;
	}
	gt_verbose(c, "stages on %s: %s; wall %.3f s", device, line, wall);
}
