/* Each track's chain (causal.h's chain rule): the track's spans in
 * (start, longer first, id) order, walked depth-first through their
 * nesting forest, with the owner of every gap (the latest-started span
 * still open). Tracks are independent: ranges of them run on threads. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

/* One track's spans gathered into dense arrays (dense index i = the i-th
 * span of the track by id), so that ordering, walking and owners read
 * them in sequence instead of chasing point ids through the window. */
typedef struct track_scratch {
	int64_t *b, *e;     /* B and E times */
	uint32_t *span;     /* local span */
	uint32_t *ord;      /* dense indices in track order */
	uint32_t *out;      /* the walk: point ids */
	uint32_t *tag;      /* the walk: dense index << 2 | 0 B, 1 D, 2 E */
	int64_t *time;      /* the walk: times */
	uint64_t *key, *tk; /* sort scratch */
	uint32_t *tv, *tv2;
	uint32_t *stack;
	uint8_t *closed;
	uint32_t *next;     /* per dense span: its next departure point */
	/* the arrays by span are sized for the range's largest track's spans;
	 * the sort's and the general walk's, by point, on first use (most
	 * tracks come sorted and properly nested: they need neither) */
	uint32_t most_spans, most_points;
	bool failed;        /* out of memory for a lazy array */
} track_scratch;

enum { TAG_B = 0, TAG_D = 1, TAG_E = 2 };

typedef struct chain_job {
	causal_graph *g;
	const uint32_t *track_spans, *track_first; /* local spans by local track, by id */
	uint32_t begin, end;                        /* local tracks */
	int rc;
} chain_job;

/* The sort's arrays, by point (the general walk sorts points): false,
 * with x->failed, when out of memory. */
static bool sort_scratch(track_scratch *x)
{
	if (!x->key) {
		x->key = alloc(x->most_points, 8), x->tk = alloc(x->most_points, 8);
		x->tv = alloc(x->most_points, 4), x->tv2 = alloc(x->most_points, 4);
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
	return !x->failed && sort_scratch(x);
}

/* The track's spans in (start, longer first, id) order, the order the
 * nesting forest is read in. */
static void order_spans(track_scratch *x, uint32_t n, int64_t base)
{
	bool sorted = true;
	for (uint32_t i = 0; i < n; i++)
		x->ord[i] = i;
	for (uint32_t i = 1; i < n && sorted; i++)
		sorted = x->b[i - 1] < x->b[i] || (x->b[i - 1] == x->b[i] && x->e[i - 1] - x->b[i - 1] >= x->e[i] - x->b[i]);
	if (sorted || !sort_scratch(x))
		return;
	for (uint32_t i = 0; i < n; i++)
		x->key[i] = UINT64_MAX - (uint64_t)(x->e[i] - x->b[i]);
	causal_sort_u64(x->key, x->ord, n, x->tk, x->tv);
	for (uint32_t i = 0; i < n; i++)
		x->key[i] = (uint64_t)(x->b[x->ord[i]] - base);
	causal_sort_u64(x->key, x->ord, n, x->tk, x->tv);
}

static uint32_t emit(track_scratch *x, uint32_t k, uint32_t point, uint32_t tag, int64_t time)
{
	x->out[k] = point;
	x->tag[k] = tag;
	x->time[k] = time;
	return k + 1;
}

/* Emits a popped span's remaining departure points and its E. */
static uint32_t close_span(const causal_graph *g, track_scratch *x, uint32_t i, uint32_t k)
{
	uint32_t e = causal_graph_e(g, x->span[i]);
	for (uint32_t p = x->next[i]; p < e; p++)
		k = emit(x, k, p, i << 2 | TAG_D, g->time[p]);
	return emit(x, k, e, i << 2 | TAG_E, x->e[i]);
}

/* The depth-first walk of the nesting forest (spans in track order, a span
 * nests in the open one whose end is not before its own): B(p), p's
 * departures and children merged by time (a departure before a child
 * starting at its time), E(p). Returns the points written. */
static uint32_t walk_forest(const causal_graph *g, track_scratch *x, uint32_t n)
{
	uint32_t top = 0, k = 0;
	for (uint32_t o = 0; o < n; o++) {
		uint32_t i = x->ord[o];
		while (top && x->e[x->stack[top - 1]] < x->e[i])
			k = close_span(g, x, x->stack[--top], k);
		if (top) {
			uint32_t q = x->stack[top - 1], qe = causal_graph_e(g, x->span[q]);
			for (; x->next[q] < qe && g->time[x->next[q]] <= x->b[i]; x->next[q]++)
				k = emit(x, k, x->next[q], q << 2 | TAG_D, g->time[x->next[q]]);
		}
		k = emit(x, k, g->first_point[x->span[i]], i << 2 | TAG_B, x->b[i]);
		x->next[i] = g->first_point[x->span[i]] + 1;
		x->stack[top++] = i;
	}
	while (top)
		k = close_span(g, x, x->stack[--top], k);
	return k;
}

/* Owners: the latest-started span still open. Spans open in chain order,
 * so the latest started is the top of a stack from which closed spans are
 * dropped once they reach the top (a heap would hold the same order).
 * owner_in[v]: the owner of the gap from v's chain predecessor to v. */
static void find_owners(causal_graph *g, track_scratch *x, uint32_t start, uint32_t n)
{
	uint32_t top = 0, owner = GT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t p = x->out[k], i = x->tag[k] >> 2;
		g->chain[start + k] = p;
		g->owner_in[p] = owner;
		if ((x->tag[k] & 3) == TAG_B)
			x->stack[top++] = i;
		else if ((x->tag[k] & 3) == TAG_E)
			x->closed[i] = 1;
		while (top && x->closed[x->stack[top - 1]])
			top--;
		owner = top && k + 1 < n ? x->span[x->stack[top - 1]] : GT_NONE;
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
	uint32_t at, end; /* chain positions */
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

static inline void close_direct(direct *d, track_scratch *x, uint32_t i, uint32_t top)
{
	const causal_graph *g = d->g;
	uint32_t e = causal_graph_e(g, x->span[i]);
	for (uint32_t p = x->next[i]; p < e; p++)
		put(d, p, g->time[p], x->span[i]);
	put(d, e, x->e[i], top ? x->span[x->stack[top - 1]] : GT_NONE);
}

/* walk_forest's order, written as chain, owner_in and work from start;
 * false where it went back in time (the arrays then hold garbage). */
static bool walk_direct(causal_graph *g, track_scratch *x, uint32_t n, uint32_t start, uint32_t points)
{
	direct d = {g, start, start + points, GT_NONE, INT64_MIN, true};
	uint32_t top = 0;
	for (uint32_t o = 0; o < n && d.sorted; o++) {
		uint32_t i = x->ord[o];
		while (top && x->e[x->stack[top - 1]] < x->e[i]) {
			top--;
			close_direct(&d, x, x->stack[top], top);
		}
		if (top) {
			uint32_t q = x->stack[top - 1], qe = causal_graph_e(g, x->span[q]);
			for (; x->next[q] < qe && g->time[x->next[q]] <= x->b[i]; x->next[q]++)
				put(&d, x->next[q], g->time[x->next[q]], x->span[q]);
		}
		put(&d, g->first_point[x->span[i]], x->b[i], x->span[i]);
		x->next[i] = g->first_point[x->span[i]] + 1;
		x->stack[top++] = i;
	}
	while (top && d.sorted) {
		top--;
		close_direct(&d, x, x->stack[top], top);
	}
	return d.sorted;
}

static void build_chain(causal_graph *g, const uint32_t *spans, uint32_t ns, uint32_t k, track_scratch *x)
{
	uint32_t start = g->chain_start[k], n = g->chain_start[k + 1] - start;
	for (uint32_t i = 0; i < ns; i++) {
		x->span[i] = spans[i];
		x->b[i] = g->time[g->first_point[spans[i]]];
		x->e[i] = g->time[causal_graph_e(g, spans[i])];
	}
	order_spans(x, ns, g->first_time);
	if (x->failed || walk_direct(g, x, ns, start, n) || !walk_scratch(x))
		return;
	memset(x->closed, 0, ns);
	walk_forest(g, x, ns);
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
		causal_sort_u64(x->key, x->tv2, n, x->tk, x->tv);
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

static void scratch_free(track_scratch *x)
{
	gt_big_free(x->b), gt_big_free(x->e), gt_big_free(x->span), gt_big_free(x->ord), gt_big_free(x->out), gt_big_free(x->tag), gt_big_free(x->time);
	gt_big_free(x->key), gt_big_free(x->tk), gt_big_free(x->tv), gt_big_free(x->tv2), gt_big_free(x->stack), gt_big_free(x->closed), gt_big_free(x->next);
}

static void *chain_range(void *arg)
{
	chain_job *j = arg;
	causal_graph *g = j->g;
	track_scratch x = {0};
	for (uint32_t k = j->begin; k < j->end; k++) {
		uint32_t np = g->chain_start[k + 1] - g->chain_start[k], ns = j->track_first[k + 1] - j->track_first[k];
		x.most_points = np > x.most_points ? np : x.most_points;
		x.most_spans = ns > x.most_spans ? ns : x.most_spans;
	}
	uint32_t ms = x.most_spans;
	x.b = alloc(ms, 8), x.e = alloc(ms, 8), x.span = alloc(ms, 4), x.ord = alloc(ms, 4);
	x.stack = alloc(ms, 4), x.next = alloc(ms, 4);
	x.failed = !x.b || !x.e || !x.span || !x.ord || !x.stack || !x.next;
	for (uint32_t k = j->begin; k < j->end && !x.failed; k++)
		build_chain(g, j->track_spans + j->track_first[k], j->track_first[k + 1] - j->track_first[k], k, &x);
	j->rc = x.failed ? -1 : 0;
	scratch_free(&x);
	return NULL;
}

int causal_make_chains(causal_graph *g, const uint32_t *local_track, unsigned threads, gt_error *err)
{
	uint32_t *track_first = gt_big_calloc((size_t)g->tracks + 1, sizeof *track_first);
	uint32_t *track_spans = alloc(g->nspans, sizeof *track_spans);
	uint32_t *fill = alloc(g->tracks, sizeof *fill);
	g->chain = alloc(g->n, sizeof *g->chain);
	g->chain_start = gt_big_calloc((size_t)g->tracks + 1, sizeof *g->chain_start);
	g->work = alloc(g->n, sizeof *g->work);
	g->owner_in = alloc(g->n, sizeof *g->owner_in);
	int rc = -1;
	if (!track_first || !track_spans || !fill || !g->chain || !g->chain_start || !g->work || !g->owner_in)
		goto done;
	for (uint32_t l = 0; l < g->nspans; l++) {
		track_first[local_track[l] + 1]++;
		g->chain_start[local_track[l] + 1] += g->first_point[l + 1] - g->first_point[l];
	}
	for (uint32_t k = 0; k < g->tracks; k++) {
		track_first[k + 1] += track_first[k];
		g->chain_start[k + 1] += g->chain_start[k];
	}
	memcpy(fill, track_first, (size_t)g->tracks * sizeof *fill);
	for (uint32_t l = 0; l < g->nspans; l++)
		track_spans[fill[local_track[l]]++] = l;
	/* tracks are independent: ranges of them, of about equal points */
	unsigned k = threads > 1 && g->n >= 65536 ? threads : 1;
	k = k > GT_MAX_JOBS ? GT_MAX_JOBS : k;
	chain_job jobs[GT_MAX_JOBS];
	uint32_t tr = 0;
	for (unsigned j = 0; j < k; j++) {
		uint64_t share = (uint64_t)g->n * (j + 1) / k;
		uint32_t begin = tr;
		while (tr < g->tracks && (j + 1 == k || g->chain_start[tr] < share))
			tr++;
		jobs[j] = (chain_job){g, track_spans, track_first, begin, tr, -1};
	}
	gt_run_jobs(chain_range, jobs, sizeof *jobs, k);
	rc = 0;
	for (unsigned j = 0; j < k; j++)
		rc |= jobs[j].rc;
done:
	gt_big_free(track_first), gt_big_free(track_spans), gt_big_free(fill);
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory for a window's %u chains", g->tracks) : 0;
}
