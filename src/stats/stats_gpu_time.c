/* The gpu-time report (stats.h): per process, its device spans' begin and
 * end events sorted, one sweep with a count per class; each stretch
 * between two events goes to the highest class running, else idle. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats.h"

typedef struct edge {
	uint32_t process;
	int64_t t;
	int8_t delta; /* +1 begin, -1 end */
	uint8_t cls;
} edge;

static int cmp_edge(const void *x, const void *y)
{
	const edge *a = x, *b = y;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->delta < b->delta ? -1 : a->delta > b->delta; /* ends first: no stretch between them */
}

static int device_class(const char *cat)
{
	if (!strcasecmp(cat, "kernel"))
		return GT_GPU_COMPUTE;
	if (!strcasecmp(cat, "gpu_memcpy") || !strcasecmp(cat, "memcpy"))
		return GT_GPU_MEMCPY;
	if (!strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "memset"))
		return GT_GPU_MEMSET;
	return -1;
}

int gt_stats_gpu_time(const gt_model *m, const char *collective_regex, gt_gpu_times *out, gt_error *err)
{
	memset(out, 0, sizeof *out);
	regex_t re;
	bool extra = collective_regex && collective_regex[0];
	if (extra && regcomp(&re, collective_regex, REG_EXTENDED | REG_NOSUB) != 0)
		return gt_fail(err, GT_EUSAGE, "bad collective name pattern '%s' (POSIX extended)", collective_regex);
	/* per string: 0 unknown, 1 not a device category, 2 + class; names: 1 comm, 2 not */
	uint8_t *cat = calloc(m->strings.count ? m->strings.count : 1, 1);
	uint8_t *comm = calloc(m->strings.count ? m->strings.count : 1, 1);
	edge *e = NULL;
	uint64_t n = 0;
	int rc = cat && comm ? 0 : -1;
	for (int pass = 0; rc == 0 && pass < 2; pass++) {
		n = 0;
		for (uint32_t i = 0; i < m->span_count; i++) {
			const gt_span *s = &m->spans[i];
			if ((s->kind != GT_SPAN_COMPLETE && s->kind != GT_SPAN_DURATION) ||
			    m->tracks[s->track].kind != GT_TRACK_THREAD)
				continue;
			if (!cat[s->cat]) {
				int c = device_class(gt_model_str(m, s->cat));
				cat[s->cat] = (uint8_t)(c < 0 ? 1 : 2 + c);
			}
			if (cat[s->cat] == 1)
				continue;
			if (pass == 0) {
				n += 2;
				continue;
			}
			uint8_t c = (uint8_t)(cat[s->cat] - 2);
			if (c == GT_GPU_COMPUTE) {
				if (!comm[s->name]) {
					const char *nm = gt_model_str(m, s->name);
					bool is = strcasestr(nm, "nccl") || strcasestr(nm, "rccl") || strcasestr(nm, "hccl") ||
						  (extra && regexec(&re, nm, 0, NULL, 0) == 0);
					comm[s->name] = is ? 1 : 2;
				}
				if (comm[s->name] == 1)
					c = GT_GPU_COMMUNICATION;
			}
			uint32_t p = m->tracks[s->track].process;
			e[n++] = (edge){p, s->ts_ns, 1, c};
			e[n++] = (edge){p, s->ts_ns + s->dur_ns, -1, c};
		}
		if (pass == 0 && !(e = malloc((n ? n : 1) * sizeof *e)))
			rc = -1;
	}
	if (rc == 0)
		qsort(e, n, sizeof *e, cmp_edge);
	uint32_t procs = 0;
	for (uint64_t i = 0; rc == 0 && i < n; i++)
		procs += i == 0 || e[i].process != e[i - 1].process;
	if (rc == 0 && !(out->rows = calloc(procs ? procs : 1, sizeof *out->rows)))
		rc = -1;
	for (uint64_t i = 0; rc == 0 && i < n;) {
		gt_gpu_time *r = &out->rows[out->count++];
		uint64_t running[GT_GPU_CLASS_COUNT] = {0};
		r->process = e[i].process;
		r->begin_ns = e[i].t;
		int64_t at = e[i].t;
		for (; i < n && e[i].process == r->process; i++) {
			int64_t stretch = e[i].t - at;
			if (stretch > 0) {
				int top = -1;
				for (int c = 0; c < GT_GPU_CLASS_COUNT && top < 0; c++)
					if (running[c])
						top = c;
				if (top < 0)
					r->idle_ns += stretch;
				else
					r->class_ns[top] += stretch;
			}
			at = e[i].t;
			if (e[i].delta > 0)
				running[e[i].cls]++;
			else
				running[e[i].cls]--;
		}
		r->end_ns = at;
	}
	if (extra)
		regfree(&re);
	free(cat), free(comm), free(e);
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory for the GPU time") : 0;
}

void gt_gpu_times_free(gt_gpu_times *t)
{
	free(t->rows);
	memset(t, 0, sizeof *t);
}
