/* The inferred stream waits of a window (the rule is in causal.h): the
 * window's device spans by (process, end, id); each span d that started
 * after it was ready looks back from B(d) over the ends within the slack
 * for the latest one on another track of its process. O(n log n) for the
 * sort, then the few ends inside each slack. When a launch arrived is
 * found here, from the window's kept flows: a trace-wide array of it cost
 * two passes over every span and 8 bytes a span. */
#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

/* When d could have started: its launch's arrival and its track's
 * previous span's end, the later; INT64_MIN when neither is known. */
static int64_t ready_at(const causal_trace *t, uint32_t d, int64_t arrival)
{
	int64_t ready = arrival;
	uint32_t prev = t->prev_device ? t->prev_device[d] : GT_NONE;
	if (prev != GT_NONE && causal_end(&t->m->spans[prev]) > ready)
		ready = causal_end(&t->m->spans[prev]);
	return ready;
}

/* The window's device spans that take part: by id (dev), and by (process,
 * end, id) (span, with their ends); slot[k] is dev[k]'s position in span.
 * Lookups by span go through dev, which the window's spans (by id) walk in
 * step, not through a trace-wide array: a whole trace's would be touched
 * at every device span's page, at the window's peak. */
typedef struct by_end {
	uint32_t n;
	uint32_t *span; /* n, in (process, end, id) order */
	int64_t *end;   /* n */
	uint32_t *dev;  /* n, by id */
	uint32_t *slot; /* n: dev[k]'s position in span */
	uint32_t *dev_process; /* n, by id: each span's process */
} by_end;

static void by_end_free(by_end *b)
{
	gt_big_free(b->span), gt_big_free(b->end), gt_big_free(b->dev), gt_big_free(b->slot);
	gt_big_free(b->dev_process);
}

/* The first position in b->dev of span s or a later one. */
static uint32_t dev_from(const by_end *b, uint32_t s)
{
	return gt_lower_bound_u32(b->dev, b->n, s);
}

/* The position in b->dev of span s, b->n when it is not there. */
static uint32_t dev_index(const by_end *b, uint32_t s)
{
	uint32_t k = dev_from(b, s);
	return k < b->n && b->dev[k] == s ? k : b->n;
}

/* The window's device spans that take part by id, then a stable radix
 * sort on (process, end) where the two fit 64 bits (ends within 2^40 ns,
 * about 18 minutes), else by end and then, stably, by process. Values are
 * indices into dev. On threads for one large window; a small one (a step)
 * runs each pass on the caller's thread. */
typedef struct device_spans {
	const causal_trace *t;
	const uint32_t *dev;
	uint64_t *key;
	uint32_t *val;
	int64_t *ends;       /* n, by id, until the keys are made: in the sort's scratch */
	int64_t base;        /* the earliest end */
	bool one;            /* (process, end) in one key */
	int64_t lo, hi;      /* the ends' range, and the largest process */
	uint32_t top;
	by_end *b;
} device_spans;

typedef struct device_pick {
	const causal_trace *t;
	const uint32_t *sp;
} device_pick;

static bool is_device(void *ctx, uint32_t i)
{
	const device_pick *d = ctx;
	uint32_t s = d->sp[i];
	return (d->t->span_class[s] & CAUSAL_DEVICE) && causal_takes_part(d->t, s);
}

/* Each span's end and process, and their ranges. */
static int range_of_ends(void *ctx, uint64_t a, uint64_t b)
{
	device_spans *d = ctx;
	const gt_model *m = d->t->m;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint32_t top = 0;
	for (uint64_t i = a; i < b; i++) {
		uint32_t s = d->dev[i];
		int64_t e = d->ends[i] = causal_end(&m->spans[s]);
		uint32_t p = d->b->dev_process[i] = causal_process_of(m, s);
		lo = e < lo ? e : lo, hi = e > hi ? e : hi, top = p > top ? p : top;
	}
	causal_atomic_min(&d->lo, lo);
	causal_atomic_max(&d->hi, hi);
	causal_atomic_max(&d->top, top);
	return 0;
}

static int end_keys(void *ctx, uint64_t a, uint64_t b)
{
	device_spans *d = ctx;
	for (uint64_t i = a; i < b; i++) {
		d->key[i] = (uint64_t)(d->ends[i] - d->base);
		if (d->one)
			d->key[i] |= (uint64_t)d->b->dev_process[i] << 40;
		d->val[i] = (uint32_t)i;
	}
	return 0;
}

static int process_keys(void *ctx, uint64_t a, uint64_t b)
{
	device_spans *d = ctx;
	for (uint64_t i = a; i < b; i++)
		d->key[i] = d->b->dev_process[d->val[i]];
	return 0;
}

/* The order unpacked; the ends from the keys where (process, end) made
 * one (b->end is then the key array, made over in place), else from the
 * rows again. */
static int unpack_range(void *ctx, uint64_t a, uint64_t b)
{
	device_spans *d = ctx;
	const gt_model *m = d->t->m;
	for (uint64_t j = a; j < b; j++) {
		uint32_t k = d->val[j], s = d->dev[k];
		d->b->span[j] = s, d->b->slot[k] = (uint32_t)j;
		d->b->end[j] = d->one ? (int64_t)(d->key[j] & ((1ull << 40) - 1)) + d->base : causal_end(&m->spans[s]);
	}
	return 0;
}

static int sort_by_end(const causal_trace *t, const uint32_t *sp, uint32_t ns, unsigned threads, by_end *b)
{
	if (threads > 1 && ns < 2 * causal_range_min())
		threads = 1;
	device_pick pick = {t, sp};
	uint32_t n = 0;
	if (causal_select(ns, threads, is_device, &pick, &b->dev, &n) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		b->dev[i] = sp[b->dev[i]]; /* positions to spans */
	b->n = n;
	device_spans d = {.t = t, .dev = b->dev, .lo = INT64_MAX, .hi = INT64_MIN, .b = b};
	d.key = gt_big_malloc(n, sizeof *d.key), d.val = gt_big_malloc(n, sizeof *d.val);
	uint64_t *tk = gt_big_malloc(n, sizeof *tk);
	uint32_t *tv = gt_big_malloc(n, sizeof *tv);
	b->dev_process = gt_big_malloc(n, sizeof *b->dev_process);
	d.ends = (int64_t *)tk;
	int rc = d.key && d.val && tk && tv && b->dev_process ? 0 : -1;
	if (rc == 0 && n) {
		gt_parallel_ranges(n, causal_range_min(), threads, range_of_ends, &d);
		d.base = d.lo;
		d.one = (uint64_t)(d.hi - d.lo) < (1ull << 40) && d.top < (1u << 24);
		gt_parallel_ranges(n, causal_range_min(), threads, end_keys, &d);
		gt_radix_sort_u64_jobs(d.key, d.val, n, tk, tv, causal_range_jobs(n, threads));
		if (!d.one) {
			gt_parallel_ranges(n, causal_range_min(), threads, process_keys, &d);
			gt_radix_sort_u64_jobs(d.key, d.val, n, tk, tv, causal_range_jobs(n, threads));
		}
	}
	/* the sort's arrays go first: the unpacked ones take their blocks (the
	 * keys become the ends where they hold them) */
	gt_big_free(tk), gt_big_free(tv);
	if (rc == 0 && d.one)
		b->end = (int64_t *)d.key; /* freed with b */
	else
		gt_big_free(d.key);
	if (rc == 0) {
		b->span = gt_big_malloc(n, sizeof *b->span);
		b->end = b->end ? b->end : gt_big_malloc(n, sizeof *b->end);
		b->slot = gt_big_malloc(n, sizeof *b->slot);
		rc = b->span && b->end && b->slot ? 0 : -1;
	}
	if (rc == 0 && n)
		gt_parallel_ranges(n, causal_range_min(), threads, unpack_range, &d);
	gt_big_free(d.val);
	return rc;
}

/* The first position of process p in b (b->n when it has none). */
static uint32_t first_of(const gt_model *m, const by_end *b, uint32_t p)
{
	uint32_t lo = 0, hi = b->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (causal_process_of(m, b->span[mid]) < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The span d waited for, GT_NONE when none: in [lo, hi) (d's process),
 * the latest end in (ready, B(d)] and >= B(d) - slack on another track,
 * ties: the lowest id (the earliest of equal ends: ids ascend there).
 * *hint: where the search for the first end after B(d) starts, and then
 * where it ended (a track's spans by id start in time order). */
static uint32_t held_by(const causal_trace *t, const by_end *b, uint32_t lo, uint32_t hi, uint32_t d, int64_t ready,
			uint32_t *hint)
{
	const gt_span *s = &t->m->spans[d];
	int64_t from;
	if (__builtin_sub_overflow(s->ts_ns, t->stream_wait_slack, &from) || from <= ready)
		from = ready == INT64_MAX ? ready : ready + 1;
	uint32_t a = lo + gt_search_from(b->end + lo, hi - lo, s->ts_ns, true, *hint); /* the first end after B(d) */
	*hint = a - lo;
	uint32_t best = GT_NONE;
	for (uint32_t i = a; i-- > lo && b->end[i] >= from;) {
		if (best != GT_NONE && b->end[i] != b->end[best])
			break;
		if (t->m->spans[b->span[i]].track != s->track)
			best = i;
	}
	return best == GT_NONE ? GT_NONE : b->span[best];
}

/* The window's device spans' holders: held[j] for the span at position j
 * of b (GT_NONE: none), 4 bytes a device span rather than a window span. */
typedef struct holders {
	const causal_trace *t;
	const by_end *b;
	uint32_t *held;   /* b->n, by position in b */
	int64_t *arrival; /* b->n, by position in b: INT64_MIN none */
	const uint32_t *flows;
} holders;

/* No arrival and no holder yet. */
static int clear_slots(void *ctx, uint64_t a, uint64_t b)
{
	holders *h = ctx;
	for (uint64_t j = a; j < b; j++) {
		h->arrival[j] = INT64_MIN;
		h->held[j] = GT_NONE;
	}
	return 0;
}

/* The latest departure of a kept flow into each device span: when its
 * launch arrived. Flows into one span may be on several threads. */
static int flow_arrivals(void *ctx, uint64_t a, uint64_t b)
{
	holders *h = ctx;
	const causal_trace *t = h->t;
	for (uint64_t i = a; i < b; i++) {
		uint32_t f = h->flows[i], dst = t->m->flows[f].dst;
		uint32_t k = t->span_class[dst] & CAUSAL_DEVICE ? dev_index(h->b, dst) : h->b->n;
		if (k < h->b->n)
			causal_atomic_max(&h->arrival[h->b->slot[k]], t->departure[f]);
	}
	return 0;
}

/* The device spans dev[from, to) (by id). */
static int find_holders(void *ctx, uint64_t from, uint64_t to)
{
	holders *h = ctx;
	const causal_trace *t = h->t;
	const gt_model *m = t->m;
	const by_end *b = h->b;
	uint32_t seg = UINT32_MAX, lo = 0, hi = 0, hint = 0; /* the last process's positions */
	for (uint32_t k = (uint32_t)from; k < to; k++) {
		uint32_t s = b->dev[k], j = b->slot[k];
		if (t->span_class[s] & CAUSAL_RECORDED)
			continue; /* a recorded wait is not guessed */
		int64_t ready = ready_at(t, s, h->arrival[j]);
		if (ready == INT64_MIN || m->spans[s].ts_ns <= ready)
			continue; /* not judged, or not held */
		uint32_t p = b->dev_process[k];
		if (p != seg) {
			seg = p;
			lo = first_of(m, b, p), hi = p == UINT32_MAX ? b->n : first_of(m, b, p + 1);
			hint = 0;
		}
		h->held[j] = held_by(t, b, lo, hi, s, ready, &hint);
	}
	return 0;
}

/* Whether the device span dev[k] was found held. */
static bool was_held(void *ctx, uint32_t k)
{
	const holders *h = ctx;
	return h->held[h->b->slot[k]] != GT_NONE;
}

int causal_stream_waits(const causal_trace *t, uint32_t w, const uint32_t *flows, uint32_t nflows, unsigned threads,
			uint32_t **k_out, uint32_t **d_out, uint32_t *n_out, gt_error *err)
{
	*k_out = *d_out = NULL;
	*n_out = 0;
	if (t->stream_wait_slack <= 0)
		return 0;
	const uint32_t *sp = t->spans_by_window + t->span_first[w], ns = t->span_first[w + 1] - t->span_first[w];
	by_end b = {0};
	if (sort_by_end(t, sp, ns, threads, &b) < 0) {
		by_end_free(&b);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's stream waits");
	}
	uint32_t *held = alloc(b.n, sizeof *held);
	int64_t *arrival = alloc(b.n, sizeof *arrival);
	if (!held || !arrival) {
		by_end_free(&b), gt_big_free(held), gt_big_free(arrival);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's stream waits");
	}
	holders h = {t, &b, held, arrival, flows};
	bool any = b.n > 1;
	if (any) {
		gt_parallel_ranges(b.n, causal_range_min(), threads, clear_slots, &h);
		gt_parallel_ranges(nflows, causal_range_min(), threads, flow_arrivals, &h);
		gt_parallel_ranges(b.n, causal_range_min(), threads, find_holders, &h);
	}
	/* the order and the arrivals go before the edges come: exactly as
	 * many as were found, in the window's span order (dev's: by id) */
	gt_big_free(b.span), gt_big_free(b.end), gt_big_free(arrival), gt_big_free(b.dev_process);
	b.span = NULL, b.end = NULL, b.dev_process = NULL;
	uint32_t *d = NULL, *k = NULL, n = 0;
	int rc = any ? causal_select(b.n, threads, was_held, &h, &d, &n) : 0;
	k = rc == 0 && n ? alloc(n, sizeof *k) : NULL;
	if (rc < 0 || (n && !k)) {
		gt_big_free(d), gt_big_free(held), by_end_free(&b);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's stream waits");
	}
	for (uint32_t e = 0; e < n; e++) {
		k[e] = held[b.slot[d[e]]];
		d[e] = b.dev[d[e]]; /* positions to spans */
	}
	gt_big_free(held);
	by_end_free(&b);
	*k_out = k, *d_out = d, *n_out = n;
	return 0;
}
