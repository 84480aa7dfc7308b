/* The previous span of each device span on its track, in track order
 * (start, longer first, id): what a launched kernel queues behind, and
 * what a stream wait follows. The device spans, selected on threads, are
 * bucketed by track, then the tracks are ordered on threads, one track a
 * job. */
#include <stdatomic.h>
#include <string.h>

#include "causal_internal.h"

typedef struct previous {
	causal_trace *t;
	const uint32_t *dev;   /* the device spans taking part, by id */
	uint32_t *track_of;    /* by position in dev */
	const uint32_t *first;
	uint32_t *items; /* reordered in place, track by track */
	uint64_t *key, *tk; /* by item: each track's slice its own */
	uint32_t *tv;
	atomic_uint next_track;
} previous;

static bool device_taking_part(void *ctx, uint32_t i)
{
	const causal_trace *t = ctx;
	return t->span_class[i] & CAUSAL_DEVICE && causal_takes_part(t, i);
}

static int none_before(void *ctx, uint64_t a, uint64_t b)
{
	causal_trace *t = ctx;
	for (uint64_t i = a; i < b; i++)
		t->prev_device[i] = GT_NONE;
	return 0;
}

static int track_of_range(void *ctx, uint64_t a, uint64_t b)
{
	previous *p = ctx;
	for (uint64_t i = a; i < b; i++)
		p->track_of[i] = p->t->m->spans[p->dev[i]].track;
	return 0;
}

/* Bucket positions in dev to span ids. */
static int items_to_spans(void *ctx, uint64_t a, uint64_t b)
{
	previous *p = ctx;
	for (uint64_t i = a; i < b; i++)
		p->items[i] = p->dev[p->items[i]];
	return 0;
}

static void order_track(previous *p, uint32_t tr)
{
	causal_trace *t = p->t;
	const gt_model *m = t->m;
	uint32_t f = p->first[tr], n = p->first[tr + 1] - f;
	if (!n)
		return;
	uint32_t *v = p->items + f;
	uint64_t *k = p->key + f;
	/* by id already; often in track order too (traces list a stream's
	 * kernels as they ran), else sort by longer first, then (stably) by
	 * start */
	bool sorted = true;
	for (uint32_t i = 1; i < n && sorted; i++) {
		const gt_span *a = &m->spans[v[i - 1]], *b = &m->spans[v[i]];
		sorted = a->ts_ns < b->ts_ns || (a->ts_ns == b->ts_ns && a->dur_ns >= b->dur_ns);
	}
	if (!sorted) {
		for (uint32_t i = 0; i < n; i++)
			k[i] = UINT64_MAX - (uint64_t)m->spans[v[i]].dur_ns;
		gt_radix_sort_u64(k, v, n, p->tk + f, p->tv + f);
		int64_t base = m->spans[v[0]].ts_ns;
		for (uint32_t i = 0; i < n; i++)
			base = m->spans[v[i]].ts_ns < base ? m->spans[v[i]].ts_ns : base;
		for (uint32_t i = 0; i < n; i++)
			k[i] = (uint64_t)(m->spans[v[i]].ts_ns - base);
		gt_radix_sort_u64(k, v, n, p->tk + f, p->tv + f);
	}
	for (uint32_t i = 1; i < n; i++)
		t->prev_device[v[i]] = v[i - 1];
}

/* Tracks taken in turn from the shared counter (arg: a previous **). */
static void *order_tracks(void *arg)
{
	previous *p = *(previous **)arg;
	for (uint32_t tr; (tr = atomic_fetch_add(&p->next_track, 1)) < p->t->m->track_count;)
		order_track(p, tr);
	return NULL;
}

int causal_previous_device_spans(causal_trace *t, unsigned threads, gt_error *err)
{
	const gt_model *m = t->m;
	previous p = {.t = t};
	uint32_t *first = NULL, *items = NULL, *dev = NULL, ndev = 0;
	t->prev_device = gt_big_malloc(m->span_count, sizeof *t->prev_device);
	int rc = t->prev_device ? causal_select(m->span_count, threads, device_taking_part, t, &dev, &ndev) : -1;
	p.dev = dev;
	p.track_of = rc == 0 ? gt_big_malloc(ndev, sizeof *p.track_of) : NULL;
	if (rc == 0 && p.track_of) {
		gt_parallel_ranges(m->span_count, causal_range_min(), threads, none_before, t);
		gt_parallel_ranges(ndev, causal_range_min(), threads, track_of_range, &p);
		rc = causal_bucket(ndev, p.track_of, m->track_count, threads, &first, &items);
	} else {
		rc = -1;
	}
	gt_big_free(p.track_of);
	uint32_t total = rc == 0 ? first[m->track_count] : 0;
	if (rc == 0) {
		p.items = items;
		gt_parallel_ranges(total, causal_range_min(), threads, items_to_spans, &p);
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
		gt_run_jobs(order_tracks, shared, sizeof *shared, k ? k : 1);
	}
	gt_big_free(p.key), gt_big_free(p.tk), gt_big_free(p.tv);
	gt_big_free(first), gt_big_free(items), gt_big_free(dev);
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
