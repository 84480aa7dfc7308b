/* The previous span of each device span on its track, in track order
 * (start, longer first, id): what a launched kernel queues behind, and
 * what a stream wait follows. The device spans, found by classify's pass
 * range by range with their tracks (causal_device_part), are bucketed by
 * track, then the tracks are ordered on threads, one track a
 * job; a track of more than a job's share (a trace has a few streams) is
 * ordered after, on every thread. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"
#include "causal_times.h"

typedef struct previous {
	causal_trace *t;
	const uint32_t *first;
	uint32_t *items; /* reordered in place, track by track */
	uint64_t *key, *tk; /* by item: each track's slice its own */
	uint32_t *tv;
	atomic_uint next_track;
	uint32_t wide_over; /* tracks of more items are ordered on every thread */
} previous;

void causal_device_parts_free(causal_trace *t)
{
	for (uint32_t k = 0; t->device_parts && k < t->device_part_count; k++)
		gt_big_free(t->device_parts[k].ids), gt_big_free(t->device_parts[k].tracks);
	free(t->device_parts);
	t->device_parts = NULL;
	t->device_part_count = 0;
}

static int by_from(const void *x, const void *y)
{
	const causal_device_part *a = x, *b = y;
	return a->from < b->from ? -1 : a->from > b->from;
}

/* Whether span b may follow span a in track order. */
static bool follows(const gt_model *m, uint32_t a, uint32_t b)
{
	const gt_span *x = &m->spans[a], *y = &m->spans[b];
	return x->ts_ns < y->ts_ns || (x->ts_ns == y->ts_ns && x->dur_ns >= y->dur_ns);
}

/* --- a track in order, in ranges -----------------------------------
 * By id already; often in track order too (traces list a stream's
 * kernels as they ran), else sorted by longer first, then (stably) by
 * start. Each step a pass over the track's items, in ranges. */
typedef struct track_pass {
	const gt_model *m;
	uint32_t *prev_device;
	uint32_t *v;      /* the track's items */
	uint64_t *k;
	int64_t base;     /* the least start */
	bool unsorted;    /* set by any range that finds a pair out of order */
} track_pass;

static int in_order_range(void *ctx, uint64_t a, uint64_t b)
{
	track_pass *w = ctx;
	for (uint64_t i = a ? a : 1; i < b; i++)
		if (!follows(w->m, w->v[i - 1], w->v[i])) {
			__atomic_store_n(&w->unsorted, true, __ATOMIC_RELAXED);
			break;
		}
	return 0;
}

static int longer_first_keys(void *ctx, uint64_t a, uint64_t b)
{
	track_pass *w = ctx;
	for (uint64_t i = a; i < b; i++)
		w->k[i] = UINT64_MAX - (uint64_t)w->m->spans[w->v[i]].dur_ns;
	return 0;
}

static int least_start(void *ctx, uint64_t a, uint64_t b)
{
	track_pass *w = ctx;
	int64_t least = INT64_MAX;
	for (uint64_t i = a; i < b; i++)
		least = w->m->spans[w->v[i]].ts_ns < least ? w->m->spans[w->v[i]].ts_ns : least;
	causal_atomic_min(&w->base, least);
	return 0;
}

static int start_keys(void *ctx, uint64_t a, uint64_t b)
{
	track_pass *w = ctx;
	for (uint64_t i = a; i < b; i++)
		w->k[i] = (uint64_t)(w->m->spans[w->v[i]].ts_ns - w->base);
	return 0;
}

static int link_range(void *ctx, uint64_t a, uint64_t b)
{
	track_pass *w = ctx;
	if (a == 0 && b > 0)
		w->prev_device[w->v[0]] = GT_NONE; /* the track's first */
	for (uint64_t i = a ? a : 1; i < b; i++)
		w->prev_device[w->v[i]] = w->v[i - 1];
	return 0;
}

/* Track tr in order and linked; its steps in ranges on threads (one: inline). */
static void order_track(previous *p, uint32_t tr, unsigned threads)
{
	uint32_t f = p->first[tr], n = p->first[tr + 1] - f, min = causal_range_min();
	track_pass w = {p->t->m, p->t->prev_device, p->items + f, p->key + f, INT64_MAX, false};
	gt_parallel_ranges(n, min, threads, in_order_range, &w);
	if (w.unsorted) {
		gt_parallel_ranges(n, min, threads, longer_first_keys, &w);
		gt_radix_sort_u64_jobs(w.k, w.v, n, p->tk + f, p->tv + f, causal_range_jobs(n, threads));
		gt_parallel_ranges(n, min, threads, least_start, &w);
		gt_parallel_ranges(n, min, threads, start_keys, &w);
		gt_radix_sort_u64_jobs(w.k, w.v, n, p->tk + f, p->tv + f, causal_range_jobs(n, threads));
	}
	gt_parallel_ranges(n, min, threads, link_range, &w);
}

/* Tracks taken in turn from the shared counter (arg: a previous **). */
static void *order_tracks(void *arg)
{
	previous *p = *(previous **)arg;
	for (uint32_t tr; (tr = atomic_fetch_add(&p->next_track, 1)) < p->t->m->track_count;)
		if (p->first[tr + 1] - p->first[tr] <= p->wide_over)
			order_track(p, tr, 1);
	return NULL;
}

int causal_previous_device_spans(causal_trace *t, unsigned threads, gt_error *err)
{
	const gt_model *m = t->m;
	previous p = {.t = t};
	uint32_t *first = NULL, *items = NULL;
	t->prev_device = gt_big_malloc(m->span_count, sizeof *t->prev_device);
	causal_times_mark("previous: begin");
	/* classify's parts in range order, bucketed by track: their span ids */
	if (t->device_parts)
		qsort(t->device_parts, t->device_part_count, sizeof *t->device_parts, by_from);
	int rc = -1;
	if (t->prev_device && t->device_parts)
		rc = causal_bucket_parts(t->device_parts, t->device_part_count, m->track_count, threads, &first, &items);
	causal_device_parts_free(t);
	causal_times_mark("previous: bucket");
	uint32_t total = rc == 0 ? first[m->track_count] : 0;
	if (rc == 0) {
		p.items = items;
		p.first = first;
		p.key = gt_big_malloc(total, sizeof *p.key);
		p.tk = gt_big_malloc(total, sizeof *p.tk);
		p.tv = gt_big_malloc(total, sizeof *p.tv);
		rc = p.key && p.tk && p.tv ? 0 : -1;
	}
	if (rc == 0) {
		unsigned k = threads < m->track_count ? threads : m->track_count;
		k = k < GT_MAX_JOBS ? k : GT_MAX_JOBS;
		previous *shared[GT_MAX_JOBS];
		for (unsigned j = 0; j < k; j++)
			shared[j] = &p;
		causal_times_mark("previous: items");
		/* more than a thread's share: on every thread (a pass over a few
		 * items still runs on one: ranges are causal_range_min() long) */
		p.wide_over = threads > 1 ? total / threads : UINT32_MAX;
		gt_run_jobs(order_tracks, shared, sizeof *shared, k ? k : 1);
		for (uint32_t tr = 0; tr < m->track_count; tr++)
			if (first[tr + 1] - first[tr] > p.wide_over)
				order_track(&p, tr, threads);
		causal_times_mark("previous: ordered");
	}
	gt_big_free(p.key), gt_big_free(p.tk), gt_big_free(p.tv);
	gt_big_free(first), gt_big_free(items);
	if (rc < 0)
		return gt_fail(err, GT_EINPUT, "out of memory ordering the device tracks");
	return 0;
}

/* --- what a flow's target queued behind ------------------------------ */

static int queue_range(void *ctx, uint64_t a, uint64_t b)
{
	causal_trace *t = ctx;
	for (uint64_t f = a; f < b; f++)
		t->queue_behind[f] = causal_queue_of(t, (uint32_t)f);
	return 0;
}

void causal_keep_queues(causal_trace *t, unsigned threads)
{
	if (!t->prev_device || !t->m->flow_count)
		return;
	t->queue_behind = gt_big_malloc(t->m->flow_count, sizeof *t->queue_behind);
	if (!t->queue_behind) /* the per-span arrays stay */
		return;
	gt_parallel_ranges(t->m->flow_count, causal_range_min(), threads, queue_range, t);
	gt_big_free(t->prev_device), gt_big_free(t->window_of);
	t->prev_device = t->window_of = NULL;
}
