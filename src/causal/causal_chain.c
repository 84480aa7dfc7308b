/* Each track's chain (causal.h's chain rule): the track's spans in
 * (start, longer first, id) order, walked depth-first through their
 * nesting forest, with the owner of every gap (the latest-started span
 * still open). Tracks are independent: ranges of them run on threads, and
 * a track of most points runs alone, in pieces on every thread. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

/* The walk's open spans, innermost last: each with its next departure
 * point. As deep as the nesting (a few dozen), grown where it is deeper. */
typedef struct open_span {
	uint32_t i, next; /* dense index; the next departure point to write */
} open_span;

typedef struct span_stack {
	open_span *at;
	uint32_t cap;
} span_stack;

/* Writes v at position top, growing st where it is full: the entries'
 * address (it moves where st grows), NULL out of memory. The walks keep
 * top and that address in locals: the chain's writes could alias them. */
static open_span *stack_push(span_stack *st, uint32_t top, open_span v)
{
	if (top == st->cap) {
		uint32_t cap = st->cap ? 2 * st->cap : 64;
		open_span *at = gt_fault_hit("alloc") ? NULL : realloc(st->at, (size_t)cap * sizeof *at);
		if (!at)
			return NULL;
		st->at = at, st->cap = cap;
	}
	st->at[top] = v;
	return st->at;
}

/* One track's spans gathered into dense arrays (dense index i = the i-th
 * span of the track by id), so that ordering, walking and owners read
 * them in sequence instead of chasing point ids through the window. */
typedef struct track_scratch {
	int64_t *b, *e;     /* B and E times */
	const uint32_t *span; /* local span: the track's spans, by id (the caller's) */
	uint32_t *ord;      /* dense indices in track order */
	uint32_t *out;      /* the walk: point ids */
	uint32_t *tag;      /* the walk: dense index << 2 | 0 B, 1 D, 2 E */
	int64_t *time;      /* the walk: times */
	uint64_t *key, *tk; /* sort scratch */
	uint32_t *tv, *tv2;
	span_stack stack;   /* the walk's, then the owners' */
	uint8_t *closed;
	/* the arrays by span are sized for the range's largest track's spans;
	 * the sort's on first use, by span, grown by point for the general
	 * walk's, also on first use (most tracks come sorted and properly
	 * nested: they need neither) */
	uint32_t most_spans, most_points;
	uint32_t sort_room; /* entries the sort's arrays hold */
	bool failed;        /* out of memory for a lazy array */
} track_scratch;

enum { TAG_B = 0, TAG_D = 1, TAG_E = 2 };

/* The sort's arrays for n entries: by span to order the spans, by point
 * for the general walk (rarer, and twice as long): false, with
 * x->failed, when out of memory. */
static bool sort_scratch(track_scratch *x, uint32_t n)
{
	if (x->failed)
		return false;
	if (x->sort_room < n) {
		gt_big_free(x->key), gt_big_free(x->tk), gt_big_free(x->tv), gt_big_free(x->tv2);
		x->key = alloc(n, 8), x->tk = alloc(n, 8);
		x->tv = alloc(n, 4), x->tv2 = alloc(n, 4);
		x->sort_room = n;
	}
	x->failed |= !x->key || !x->tk || !x->tv || !x->tv2;
	return !x->failed;
}

/* The general walk's arrays, by point. */
static bool walk_scratch(track_scratch *x)
{
	if (!x->out) {
		x->out = alloc(x->most_points, 4), x->tag = alloc(x->most_points, 4);
		x->time = alloc(x->most_points, 8), x->closed = alloc(x->most_spans, 1);
	}
	x->failed |= !x->out || !x->tag || !x->time || !x->closed;
	return !x->failed && sort_scratch(x, x->most_points);
}

/* Whether span (b1, e1) may follow (b0, e0) in track order: start, then
 * longer first. */
static bool track_order(int64_t b0, int64_t e0, int64_t b1, int64_t e1)
{
	return b0 < b1 || (b0 == b1 && e0 - b0 >= e1 - b1);
}

/* Dense span i before j in track order: start, longer first, then the
 * lower index (the lower id). */
static bool in_track_order(const void *ctx, uint32_t i, uint32_t j)
{
	const track_scratch *x = ctx;
	if (x->b[i] != x->b[j])
		return x->b[i] < x->b[j];
	if (x->e[i] - x->b[i] != x->e[j] - x->b[j])
		return x->e[i] - x->b[i] > x->e[j] - x->b[j];
	return i < j;
}

/* The track's spans in (start, longer first, id) order, the order the
 * nesting forest is read in. */
static void order_spans(track_scratch *x, uint32_t n, int64_t base)
{
	for (uint32_t i = 0; i < n; i++)
		x->ord[i] = i;
	uint32_t run[GT_MERGE_RUNS_MAX + 2], runs = gt_find_runs(x->ord, n, in_track_order, x, run);
	if (runs == 1 || !sort_scratch(x, x->most_spans))
		return;
	if (runs <= GT_MERGE_RUNS_MAX) { /* Kineto's: a host thread's ops, then its runtime calls */
		gt_merge_runs(x->ord, x->tv, n, run, runs, in_track_order, x);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		x->key[i] = UINT64_MAX - (uint64_t)(x->e[i] - x->b[i]);
	gt_radix_sort_u64(x->key, x->ord, n, x->tk, x->tv);
	for (uint32_t i = 0; i < n; i++)
		x->key[i] = (uint64_t)(x->b[x->ord[i]] - base);
	gt_radix_sort_u64(x->key, x->ord, n, x->tk, x->tv);
}

static uint32_t emit(track_scratch *x, uint32_t k, uint32_t point, uint32_t tag, int64_t time)
{
	x->out[k] = point;
	x->tag[k] = tag;
	x->time[k] = time;
	return k + 1;
}

/* Emits a popped span's remaining departure points and its E. */
static uint32_t close_span(const causal_graph *g, track_scratch *x, open_span s, uint32_t k)
{
	uint32_t e = causal_graph_e(g, x->span[s.i]);
	for (uint32_t p = s.next; p < e; p++)
		k = emit(x, k, p, s.i << 2 | TAG_D, g->time[p]);
	return emit(x, k, e, s.i << 2 | TAG_E, x->e[s.i]);
}

/* The depth-first walk of the nesting forest (spans in track order, a span
 * nests in the open one whose end is not before its own): B(p), p's
 * departures and children merged by time (a departure before a child
 * starting at its time), E(p). Returns the points written. */
static uint32_t walk_forest(const causal_graph *g, track_scratch *x, uint32_t n)
{
	open_span *at = x->stack.at;
	uint32_t top = 0, k = 0;
	for (uint32_t o = 0; o < n; o++) {
		uint32_t i = x->ord[o];
		while (top && x->e[at[top - 1].i] < x->e[i])
			k = close_span(g, x, at[--top], k);
		if (top) {
			open_span *q = &at[top - 1];
			uint32_t qe = causal_graph_e(g, x->span[q->i]);
			for (; q->next < qe && g->time[q->next] <= x->b[i]; q->next++)
				k = emit(x, k, q->next, q->i << 2 | TAG_D, g->time[q->next]);
		}
		k = emit(x, k, g->first_point[x->span[i]], i << 2 | TAG_B, x->b[i]);
		if (!(at = stack_push(&x->stack, top++, (open_span){i, g->first_point[x->span[i]] + 1}))) {
			x->failed = true;
			return k;
		}
	}
	while (top)
		k = close_span(g, x, at[--top], k);
	return k;
}

/* Owners: the latest-started span still open. Spans open in chain order,
 * so the latest started is the top of a stack from which closed spans are
 * dropped once they reach the top (a heap would hold the same order).
 * owner_in[v]: the owner of the gap from v's chain predecessor to v. */
static void find_owners(causal_graph *g, track_scratch *x, uint32_t start, uint32_t n)
{
	open_span *at = x->stack.at;
	uint32_t top = 0, owner = GT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t p = x->out[k], i = x->tag[k] >> 2;
		g->chain[start + k] = p;
		g->owner_in[p] = owner;
		if ((x->tag[k] & 3) == TAG_B) {
			if (!(at = stack_push(&x->stack, top++, (open_span){i, 0}))) {
				x->failed = true;
				return;
			}
		} else if ((x->tag[k] & 3) == TAG_E) {
			x->closed[i] = 1;
		}
		while (top && x->closed[at[top - 1].i])
			top--;
		owner = top && k + 1 < n ? x->span[at[top - 1].i] : GT_NONE;
		g->work[start + k] = owner != GT_NONE;
	}
}

/* The walk straight into the chain, for a track whose walk comes out in
 * time order (proper nesting, the common case). Then the walk's stack
 * holds exactly the open spans in start order, so the owner after each
 * point is known as it is written: after B(i) or a departure of i, i;
 * after E(i), the stack's top. find_owners gives the same on the same
 * order; a walk that goes back in time is redone by the general way. */
typedef struct direct {
	causal_graph *g;
	uint32_t at, end; /* chain positions: the next to write, the track's end */
	uint32_t owner;   /* of the gap after the last point written */
	int64_t last;
	bool sorted;
} direct;

static inline void put(direct *d, uint32_t p, int64_t time, uint32_t owner_after)
{
	causal_graph *g = d->g;
	d->sorted &= time >= d->last;
	d->last = time;
	g->chain[d->at] = p;
	g->owner_in[p] = d->owner;
	d->owner = d->at + 1 < d->end ? owner_after : GT_NONE;
	g->work[d->at++] = d->owner != GT_NONE;
}

/* Writes popped span s's remaining departures and its E; the owner after
 * is the span open below it. */
static inline void close_direct(direct *d, const track_scratch *x, const open_span *at, uint32_t top, open_span s)
{
	const causal_graph *g = d->g;
	uint32_t e = causal_graph_e(g, x->span[s.i]);
	for (uint32_t p = s.next; p < e; p++)
		put(d, p, g->time[p], x->span[s.i]);
	put(d, e, x->e[s.i], top ? x->span[at[top - 1].i] : GT_NONE);
}

/* walk_forest's order over the spans ord[o0 .. o1) (a whole track, or a
 * piece of one that no earlier span overlaps), written as chain, owner_in
 * and work from d->at; false where it went back in time (the arrays then
 * hold garbage) or st could not grow (*no_memory then set). */
static bool walk_direct(direct *d, const track_scratch *x, uint32_t o0, uint32_t o1, span_stack *st,
			bool *no_memory)
{
	causal_graph *g = d->g;
	open_span *at = st->at;
	uint32_t top = 0;
	for (uint32_t o = o0; o < o1 && d->sorted; o++) {
		uint32_t i = x->ord[o];
		while (top && x->e[at[top - 1].i] < x->e[i]) {
			top--;
			close_direct(d, x, at, top, at[top]);
		}
		if (top) {
			open_span *q = &at[top - 1];
			uint32_t qe = causal_graph_e(g, x->span[q->i]);
			for (; q->next < qe && g->time[q->next] <= x->b[i]; q->next++)
				put(d, q->next, g->time[q->next], x->span[q->i]);
		}
		put(d, g->first_point[x->span[i]], x->b[i], x->span[i]);
		if (!(at = stack_push(st, top++, (open_span){i, g->first_point[x->span[i]] + 1}))) {
			*no_memory = true;
			return false;
		}
	}
	while (top && d->sorted) {
		top--;
		close_direct(d, x, at, top, at[top]);
	}
	return d->sorted;
}

/* The general way, for a walk that goes back in time: the walk, sorted by
 * time where it must be, then the owners. */
static void walk_general(causal_graph *g, track_scratch *x, uint32_t ns, uint32_t start, uint32_t n)
{
	if (!walk_scratch(x))
		return;
	memset(x->closed, 0, ns);
	walk_forest(g, x, ns);
	if (x->failed)
		return;
	/* improper nesting and departures of outer spans leave the walk out of
	 * time order: a stable sort by time keeps the walk's order for ties */
	bool sorted = true;
	for (uint32_t i = 1; i < n && sorted; i++)
		sorted = x->time[i - 1] <= x->time[i];
	if (!sorted) {
		for (uint32_t i = 0; i < n; i++) {
			x->key[i] = (uint64_t)(x->time[i] - g->first_time);
			x->tv2[i] = i;
		}
		gt_radix_sort_u64(x->key, x->tv2, n, x->tk, x->tv);
		for (uint32_t i = 0; i < n; i++) { /* permute out and tag through tv */
			x->tv[i] = x->out[x->tv2[i]];
			x->tk[i] = x->tag[x->tv2[i]];
		}
		for (uint32_t i = 0; i < n; i++) {
			x->out[i] = x->tv[i];
			x->tag[i] = (uint32_t)x->tk[i];
		}
	}
	find_owners(g, x, start, n);
}

/* The B and E times of the track's spans [a, b) (dense, x->span). */
static void gather_spans(const causal_graph *g, track_scratch *x, uint32_t a, uint32_t b)
{
	for (uint32_t i = a; i < b; i++) {
		x->b[i] = g->time[g->first_point[x->span[i]]];
		x->e[i] = g->time[causal_graph_e(g, x->span[i])];
	}
}

/* Track k's chain from its gathered spans, on this thread. */
static void walk_track(causal_graph *g, uint32_t ns, uint32_t k, track_scratch *x)
{
	uint32_t start = g->chain_start[k], n = g->chain_start[k + 1] - start;
	order_spans(x, ns, g->first_time);
	direct d = {g, start, start + n, GT_NONE, INT64_MIN, true};
	if (!x->failed && !walk_direct(&d, x, 0, ns, &x->stack, &x->failed))
		walk_general(g, x, ns, start, n);
}

static void scratch_free(track_scratch *x)
{
	gt_big_free(x->b), gt_big_free(x->e), gt_big_free(x->ord), gt_big_free(x->out), gt_big_free(x->tag), gt_big_free(x->time);
	gt_big_free(x->key), gt_big_free(x->tk), gt_big_free(x->tv), gt_big_free(x->tv2), gt_big_free(x->closed);
	free(x->stack.at);
}

/* The arrays by span, for tracks of at most `spans` spans and `points`
 * points; false, with x->failed, when out of memory. */
static bool scratch_init(track_scratch *x, uint32_t spans, uint32_t points)
{
	*x = (track_scratch){0};
	x->most_spans = spans, x->most_points = points;
	x->b = alloc(spans, 8), x->e = alloc(spans, 8), x->ord = alloc(spans, 4);
	x->failed = !x->b || !x->e || !x->ord;
	return !x->failed;
}

typedef struct chain_job {
	causal_graph *g;
	const uint32_t *track_spans, *track_first; /* local spans by local track, by id */
	uint32_t begin, end;                        /* local tracks */
	uint32_t wide_over;                         /* tracks of more points run alone (wide_chain) */
	int rc;
} chain_job;

static void *chain_range(void *arg)
{
	chain_job *j = arg;
	causal_graph *g = j->g;
	uint32_t most_points = 0, most_spans = 0;
	for (uint32_t k = j->begin; k < j->end; k++) {
		uint32_t np = g->chain_start[k + 1] - g->chain_start[k], ns = j->track_first[k + 1] - j->track_first[k];
		if (np > j->wide_over)
			continue;
		most_points = np > most_points ? np : most_points;
		most_spans = ns > most_spans ? ns : most_spans;
	}
	track_scratch x;
	scratch_init(&x, most_spans, most_points);
	for (uint32_t k = j->begin; k < j->end && !x.failed; k++) {
		uint32_t ns = j->track_first[k + 1] - j->track_first[k];
		if (g->chain_start[k + 1] - g->chain_start[k] > j->wide_over)
			continue;
		x.span = j->track_spans + j->track_first[k];
		gather_spans(g, &x, 0, ns);
		walk_track(g, ns, k, &x);
	}
	j->rc = x.failed ? -1 : 0;
	scratch_free(&x);
	return NULL;
}

/* --- one track on every thread -------------------------------------
 * A track of most of a window's points (a trace's main thread, whole)
 * would hold the chains on one thread. Its walk is cut into pieces at
 * spans that no earlier span overlaps: there the walk's stack is empty,
 * the owner none, so each piece is walked as a track of its own, from its
 * chain offset, and the pieces joined give the same walk. */

typedef struct wide_range {
	causal_graph *g;
	track_scratch *x;
	const uint32_t *spans;
	uint32_t a, b;     /* the track's spans, dense */
	/* the gather */
	int64_t most_e;    /* the largest E in the range */
	uint64_t points;   /* the range's points */
	bool in_order;     /* its spans in track order, after the one before */
	/* the cut, from the largest E and the points before the range */
	int64_t before_e;
	uint64_t before_points;
	uint32_t cut;      /* the first piece start in the range, GT_NONE */
	uint64_t cut_at;   /* its chain offset in the track */
	/* the piece from this range's cut to the next one's */
	uint32_t end;      /* dense, past the piece */
	uint32_t start, track_end; /* chain positions */
	bool sorted;       /* walk_direct's answer */
	bool no_memory;    /* its stack could not grow */
	int64_t last;      /* the time of the piece's last point */
} wide_range;

static void *wide_gather(void *arg)
{
	wide_range *r = arg;
	const causal_graph *g = r->g;
	track_scratch *x = r->x;
	int64_t most = INT64_MIN, pb = INT64_MIN, pe = INT64_MIN;
	uint64_t points = 0;
	bool in_order = true;
	gather_spans(g, x, r->a, r->b);
	if (r->a > 0) { /* the span before, another range's */
		pb = g->time[g->first_point[r->spans[r->a - 1]]];
		pe = g->time[causal_graph_e(g, r->spans[r->a - 1])];
	}
	for (uint32_t i = r->a; i < r->b; i++) {
		uint32_t l = x->span[i];
		x->ord[i] = i;
		if (i > 0)
			in_order &= track_order(pb, pe, x->b[i], x->e[i]);
		pb = x->b[i], pe = x->e[i];
		most = x->e[i] > most ? x->e[i] : most;
		points += g->first_point[l + 1] - g->first_point[l];
	}
	r->most_e = most, r->points = points, r->in_order = in_order;
	return NULL;
}

/* Over the track order's range [a, b) (ord), when the spans did not come
 * in it: the largest E and the points. */
static void *wide_sums(void *arg)
{
	wide_range *r = arg;
	const track_scratch *x = r->x;
	int64_t most = INT64_MIN;
	uint64_t points = 0;
	for (uint32_t o = r->a; o < r->b; o++) {
		uint32_t i = x->ord[o];
		most = x->e[i] > most ? x->e[i] : most;
		points += r->g->first_point[x->span[i] + 1] - r->g->first_point[x->span[i]];
	}
	r->most_e = most, r->points = points;
	return NULL;
}

/* The range's first span (in track order) that starts at or after every
 * earlier span's E and ends after it: nothing open nests it, the stack is
 * empty there. */
static void *wide_cut(void *arg)
{
	wide_range *r = arg;
	const track_scratch *x = r->x;
	int64_t before = r->before_e;
	uint64_t at = r->before_points;
	r->cut = GT_NONE;
	for (uint32_t o = r->a; o < r->b; o++) {
		uint32_t i = x->ord[o];
		if (o == 0 || (x->b[i] >= before && x->e[i] > before)) {
			r->cut = o, r->cut_at = at;
			return NULL;
		}
		before = x->e[i] > before ? x->e[i] : before;
		at += r->g->first_point[x->span[i] + 1] - r->g->first_point[x->span[i]];
	}
	return NULL;
}

/* The track order's sort records: (start, longer first, dense index), as
 * order_spans' two stable passes give. */
typedef struct order_record {
	int64_t b, neg_len;
	uint32_t i;
} order_record;

static int cmp_order(const void *pa, const void *pb)
{
	const order_record *a = pa, *b = pb;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	if (a->neg_len != b->neg_len)
		return a->neg_len < b->neg_len ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* x->ord (from the identity) in track order on threads, merged where the
 * spans come as a few runs in it (Kineto's); -1 out of memory. */
static int wide_order(track_scratch *x, uint32_t ns, unsigned threads)
{
	uint32_t run[GT_MERGE_RUNS_MAX + 2], runs = gt_find_runs_threads(x->ord, ns, in_track_order, x, run, threads);
	if (runs <= GT_MERGE_RUNS_MAX) {
		uint32_t *tmp = gt_big_malloc(ns, sizeof *tmp);
		if (!tmp)
			return -1;
		gt_merge_runs_threads(x->ord, tmp, ns, run, runs, in_track_order, x, threads);
		gt_big_free(tmp);
		return 0;
	}
	order_record *rec = gt_big_malloc(ns, sizeof *rec);
	if (!rec)
		return -1;
	for (uint32_t i = 0; i < ns; i++)
		rec[i] = (order_record){x->b[i], x->b[i] - x->e[i], i};
	int rc = gt_parallel_sort(rec, ns, sizeof *rec, cmp_order, threads);
	for (uint32_t o = 0; rc == 0 && o < ns; o++)
		x->ord[o] = rec[o].i;
	gt_big_free(rec);
	return rc;
}

static void *wide_walk(void *arg)
{
	wide_range *r = arg;
	direct d = {r->g, r->start, r->track_end, GT_NONE, INT64_MIN, true};
	span_stack st = {0};
	r->sorted = walk_direct(&d, r->x, r->cut, r->end, &st, &r->no_memory);
	free(st.at);
	r->last = d.last;
	return NULL;
}

/* Track k's chain (ns spans, by id) on threads: 0, or -1 out of memory. */
static int wide_chain(causal_graph *g, const uint32_t *spans, uint32_t ns, uint32_t k, unsigned threads)
{
	uint32_t start = g->chain_start[k], n = g->chain_start[k + 1] - start;
	track_scratch x;
	if (!scratch_init(&x, ns, n)) {
		scratch_free(&x);
		return -1;
	}
	x.span = spans;
	unsigned nr = causal_range_jobs(ns, threads);
	wide_range r[GT_MAX_JOBS];
	for (unsigned j = 0; j < nr; j++)
		r[j] = (wide_range){.g = g, .x = &x, .spans = spans, .a = (uint32_t)((uint64_t)ns * j / nr),
				    .b = (uint32_t)((uint64_t)ns * (j + 1) / nr)};
	gt_run_jobs(wide_gather, r, sizeof *r, nr);
	bool in_order = true;
	for (unsigned j = 0; j < nr; j++)
		in_order &= r[j].in_order;
	bool done = false;
	if (in_order || wide_order(&x, ns, threads) == 0) {
		if (!in_order)
			gt_run_jobs(wide_sums, r, sizeof *r, nr);
		int64_t most = INT64_MIN;
		uint64_t points = 0;
		for (unsigned j = 0; j < nr; j++) {
			r[j].before_e = most, r[j].before_points = points;
			most = r[j].most_e > most ? r[j].most_e : most;
			points += r[j].points;
		}
		gt_run_jobs(wide_cut, r, sizeof *r, nr);
		/* the pieces: each range's cut to the next cut */
		unsigned np = 0;
		for (unsigned j = 0; j < nr; j++)
			if (r[j].cut != GT_NONE)
				r[np++] = r[j];
		for (unsigned p = 0; p < np; p++) {
			r[p].end = p + 1 < np ? r[p + 1].cut : ns;
			r[p].start = start + (uint32_t)r[p].cut_at, r[p].track_end = start + n;
		}
		gt_run_jobs(wide_walk, r, sizeof *r, np);
		/* one walk goes back in time where a piece does, or where a piece
		 * starts before the one before it ends its last point */
		done = true;
		for (unsigned p = 0; p < np; p++) {
			done &= r[p].sorted && (p == 0 || r[p - 1].last <= x.b[x.ord[r[p].cut]]);
			x.failed |= r[p].no_memory;
		}
	}
	/* else the walk on one thread, the general way where it must */
	if (!done)
		walk_track(g, ns, k, &x); /* the spans are gathered */
	int rc = x.failed ? -1 : 0;
	scratch_free(&x);
	return rc;
}

/* Each track's points, counted over ranges of the spans in track order:
 * a range adds its sum for a track once, where the track's run in it
 * ends, so that one track of most spans is counted on every thread. */
typedef struct track_points {
	causal_graph *g;
	const uint32_t *track_spans, *track_first;
} track_points;

static int count_track_points(void *ctx, uint64_t a, uint64_t b)
{
	const track_points *c = ctx;
	const causal_graph *g = c->g;
	for (uint32_t k = gt_bucket_of(c->track_first, g->tracks, a), i = (uint32_t)a; i < b; k++) {
		uint32_t end = c->track_first[k + 1] < b ? c->track_first[k + 1] : (uint32_t)b, sum = 0;
		for (; i < end; i++) {
			uint32_t l = c->track_spans[i];
			sum += g->first_point[l + 1] - g->first_point[l];
		}
		if (sum)
			__atomic_fetch_add(&g->chain_start[k + 1], sum, __ATOMIC_RELAXED);
	}
	return 0;
}

int causal_make_chains(causal_graph *g, uint32_t **local_track, unsigned threads, gt_error *err)
{
	uint32_t *track_first = NULL, *track_spans = NULL;
	g->chain = alloc(g->n, sizeof *g->chain);
	g->chain_start = gt_big_calloc((size_t)g->tracks + 1, sizeof *g->chain_start);
	g->work = alloc(g->n, sizeof *g->work);
	g->owner_in = alloc(g->n, sizeof *g->owner_in);
	int rc = -1;
	unsigned count_threads = threads < CAUSAL_SPLIT_THREADS ? 1 : threads;
	if (!g->chain || !g->chain_start || !g->work || !g->owner_in ||
	    causal_bucket(g->nspans, *local_track, g->tracks, count_threads, &track_first, &track_spans) < 0)
		goto done;
	gt_big_free(*local_track);
	*local_track = NULL;
	track_points tp = {g, track_spans, track_first};
	gt_parallel_ranges(g->nspans, causal_range_min(), count_threads, count_track_points, &tp);
	for (uint32_t k = 0; k < g->tracks; k++)
		g->chain_start[k + 1] += g->chain_start[k];
	/* tracks are independent: ranges of them, of about equal points; a
	 * track of more than a range's share runs alone, on every thread */
	unsigned k = threads > 1 && g->n >= 2 * (uint64_t)causal_range_min() ? threads : 1;
	k = k > GT_MAX_JOBS ? GT_MAX_JOBS : k;
	uint32_t wide_over = k > 1 ? g->n / k : UINT32_MAX;
	uint64_t narrow = 0;
	for (uint32_t t = 0; t < g->tracks; t++) {
		uint32_t np = g->chain_start[t + 1] - g->chain_start[t];
		narrow += np <= wide_over ? np : 0;
	}
	chain_job jobs[GT_MAX_JOBS];
	uint32_t tr = 0;
	uint64_t before = 0; /* the narrow tracks' points before tr */
	for (unsigned j = 0; j < k; j++) {
		uint64_t share = narrow * (j + 1) / k;
		uint32_t begin = tr;
		for (; tr < g->tracks && (j + 1 == k || before < share); tr++) {
			uint32_t np = g->chain_start[tr + 1] - g->chain_start[tr];
			before += np <= wide_over ? np : 0;
		}
		jobs[j] = (chain_job){g, track_spans, track_first, begin, tr, wide_over, -1};
	}
	gt_run_jobs(chain_range, jobs, sizeof *jobs, k);
	rc = 0;
	for (unsigned j = 0; j < k; j++)
		rc |= jobs[j].rc;
	for (uint32_t t = 0; t < g->tracks && rc == 0; t++)
		if (g->chain_start[t + 1] - g->chain_start[t] > wide_over)
			rc = wide_chain(g, track_spans + track_first[t], track_first[t + 1] - track_first[t], t, threads);
done:
	gt_big_free(track_first), gt_big_free(track_spans);
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory for a window's %u chains", g->tracks) : 0;
}
