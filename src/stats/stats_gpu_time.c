/* The gpu-time and overlap reports (stats.h): per window and process, its
 * device spans' begin and end events sorted, one sweep with a count per
 * class; each stretch between two events goes to the highest class
 * running, else idle, and to the unions of compute and communication. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_order.h"

_Static_assert(GT_DEVICE_COMMUNICATION - GT_DEVICE_COMPUTE == GT_GPU_COMMUNICATION &&
		       GT_DEVICE_MEMCPY - GT_DEVICE_COMPUTE == GT_GPU_MEMCPY &&
		       GT_DEVICE_MEMSET - GT_DEVICE_COMPUTE == GT_GPU_MEMSET,
	       "the GPU classes follow the device classes");

typedef struct edge {
	uint32_t window, process;
	int64_t t;
	uint32_t begins; /* 1 a begin, 0 an end: ends sort first, no stretch between them */
	uint32_t cls;    /* enum gt_gpu_class */
} edge;

/* One (window, process)'s stretch of time to its row. */
static void account(gt_gpu_time *r, const uint64_t running[GT_GPU_CLASS_COUNT], int64_t stretch)
{
	int top = -1;
	for (int c = 0; c < GT_GPU_CLASS_COUNT && top < 0; c++)
		if (running[c])
			top = c;
	if (top < 0)
		r->idle_ns += stretch;
	else
		r->class_ns[top] += stretch;
	if (running[GT_GPU_COMPUTE])
		r->compute_ns += stretch;
	if (running[GT_GPU_COMMUNICATION])
		r->communication_ns += stretch;
	if (running[GT_GPU_COMPUTE] && running[GT_GPU_COMMUNICATION])
		r->overlap_ns += stretch;
}

int gt_stats_gpu_time(const gt_stats_scope *s, gt_gpu_times *out, gt_error *err)
{
	const gt_model *m = s->m;
	memset(out, 0, sizeof *out);
	uint64_t n = 0;
	edge *e = gt_big_malloc(s->device_spans ? 2 * s->device_spans : 1, sizeof *e);
	if (!e)
		return gt_fail(err, GT_EINPUT, "out of memory for the GPU time");
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t w = gt_stats_window(s, i);
		if (!gt_stats_is_device(s, i) || w == GT_NONE)
			continue;
		const gt_span *sp = &m->spans[i];
		uint8_t c = (uint8_t)(s->device[i] - GT_DEVICE_COMPUTE); /* the same order */
		uint32_t p = m->tracks[sp->track].process;
		w = s->steps.count ? w : GT_NONE;
		e[n++] = (edge){w, p, sp->ts_ns, 1, c};
		e[n++] = (edge){w, p, sp->ts_ns + sp->dur_ns, 0, c};
	}
	static const stats_key by[] = {{offsetof(edge, window), false}, {offsetof(edge, process), false},
				       {offsetof(edge, t), true}, {offsetof(edge, begins), false}};
	if (stats_sort_records((void **)&e, n, sizeof *e, by, 4) < 0) {
		gt_big_free(e);
		return gt_fail(err, GT_EINPUT, "out of memory for the GPU time");
	}
	uint32_t rows = 0;
	for (uint64_t i = 0; i < n; i++)
		rows += i == 0 || e[i].window != e[i - 1].window || e[i].process != e[i - 1].process;
	if (!(out->rows = calloc(rows ? rows : 1, sizeof *out->rows))) {
		gt_big_free(e);
		return gt_fail(err, GT_EINPUT, "out of memory for the GPU time");
	}
	for (uint64_t i = 0; i < n;) {
		gt_gpu_time *r = &out->rows[out->count++];
		uint64_t running[GT_GPU_CLASS_COUNT] = {0};
		r->window = e[i].window, r->process = e[i].process;
		r->begin_ns = e[i].t;
		int64_t at = e[i].t;
		for (; i < n && e[i].window == r->window && e[i].process == r->process; i++) {
			if (e[i].t > at)
				account(r, running, e[i].t - at);
			at = e[i].t;
			if (e[i].begins)
				running[e[i].cls]++;
			else
				running[e[i].cls]--;
		}
		r->end_ns = at;
	}
	gt_big_free(e);
	return 0;
}

void gt_gpu_times_free(gt_gpu_times *t)
{
	free(t->rows);
	memset(t, 0, sizeof *t);
}
