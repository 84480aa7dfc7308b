/* The host references of cpm.h: the shape check, binding, and the CPM
 * latest times.
 *
 * Float runs without a global time order. Every track is walked backward
 * from its last point by a cursor; a point is final once its chain
 * successor is (the cursor got there) and every target of its cross
 * out-edges is. Finishing a point pushes its LT into the sources of its
 * cross in-edges (a CSR by target, built by a counting sort) and resumes a
 * track whose cursor waited on the last of them. That is a topological
 * order of the reversed graph, O(n + m). It stalls only on a cycle, which
 * here is always a zero-gap cycle: then the stalled points of the latest
 * cursor time form a closed group (all their unfinished targets share that
 * time), and LT inside it is the least "base" (the bound from finished
 * targets, or T) among the points each reaches: the greatest fixed point.
 *
 * Sweeps over the chains run in windows of point ids: every track's cursor
 * moves through its points below the window's limit (above, walking
 * backward) before the next window starts. Arrays indexed by point id
 * (time, the outputs, LT) are then touched a window at a time, which stays
 * in cache, instead of once per track across the whole id range. The order
 * of each track's points is kept, so the results do not depend on it. */
#include <stdlib.h>
#include <string.h>

#include "cpm.h"

#define MAX_TIME_SPAN ((uint64_t)1 << 62)

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* --- check ------------------------------------------------------------------ */

static int check_arrays(const gt_cpm_graph *g, gt_error *err)
{
	if (!g)
		return gt_fail(err, GT_EINPUT, "cpm: no graph");
	if (g->n > GT_CP_MAX_ROWS)
		return gt_fail(err, GT_EINPUT, "cpm: %u points exceed the limit of %u", g->n, GT_CP_MAX_ROWS);
	if (g->n && (!g->time || !g->chain || !g->work))
		return gt_fail(err, GT_EINPUT, "cpm: %u points but no time, chain or work array", g->n);
	if (!g->chain_start && (g->n || g->tracks))
		return gt_fail(err, GT_EINPUT, "cpm: no chain_start for %u tracks", g->tracks);
	if (g->m && (!g->edge_src || !g->edge_dst || !g->edge_kind))
		return gt_fail(err, GT_EINPUT, "cpm: %u cross edges but no edge arrays", g->m);
	return 0;
}

static int check_chain_starts(const gt_cpm_graph *g, gt_error *err)
{
	if (!g->chain_start)
		return 0;
	if (g->chain_start[0] != 0)
		return gt_fail(err, GT_EINPUT, "cpm: chain_start[0] is %u, not 0", g->chain_start[0]);
	for (uint32_t k = 0; k < g->tracks; k++)
		if (g->chain_start[k + 1] < g->chain_start[k])
			return gt_fail(err, GT_EINPUT, "cpm: chain_start decreases at track %u", k);
	if (g->chain_start[g->tracks] != g->n)
		return gt_fail(err, GT_EINPUT, "cpm: chains hold %u points, not %u", g->chain_start[g->tracks], g->n);
	return 0;
}

/* Bit i of seen is set once point i appeared in the chains. */
static bool seen_before(uint64_t *seen, uint32_t p)
{
	uint64_t bit = (uint64_t)1 << (p & 63);
	bool was = seen[p >> 6] & bit;
	seen[p >> 6] |= bit;
	return was;
}

/* Ids per window of a windowed sweep: enough that going round every
 * track's cursor once a window costs little. */
static uint32_t sweep_window(const gt_cpm_graph *g)
{
	uint64_t w = (uint64_t)g->tracks * 8;
	if (w < (1u << 14))
		w = 1u << 14;
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

/* Pulls a window's slice of an array indexed by point id into cache in
 * one stream: the tracks' cursors then hit instead of missing at the
 * irregular strides the prefetchers do not follow. */
static void prefetch_ids(const void *array, size_t elem, uint32_t from, uint32_t to, bool for_write)
{
	const char *p = (const char *)array + (size_t)from * elem, *end = (const char *)array + (size_t)to * elem;
	for (; p < end; p += 64) {
		if (for_write)
			__builtin_prefetch(p, 1, 3);
		else
			__builtin_prefetch(p, 0, 3);
	}
}

/* The exclusive id limit of the window after the one ending at limit. */
static uint32_t next_limit(uint32_t limit, uint32_t window, uint32_t n)
{
	return n - limit <= window ? n : limit + window;
}

static uint32_t *cursors_at_starts(const gt_cpm_graph *g)
{
	uint32_t *cursor = gt_big_malloc(g->tracks, sizeof *cursor);
	if (cursor)
		for (uint32_t k = 0; k < g->tracks; k++)
			cursor[k] = g->chain_start[k];
	return cursor;
}

/* Checks track k's points from *cursor on while their ids are below limit
 * (a point out of range is checked at once: it fails). */
static int check_track_part(const gt_cpm_graph *g, uint32_t k, uint32_t *cursor, uint32_t limit,
			    uint64_t *seen, gt_error *err)
{
	uint32_t begin = g->chain_start[k], end = g->chain_start[k + 1], i = *cursor;
	int64_t prev = i > begin ? g->time[g->chain[i - 1]] : INT64_MIN;
	for (; i < end; i++) {
		uint32_t p = g->chain[i];
		if (p >= g->n)
			return gt_fail(err, GT_EINPUT, "cpm: chain[%u] = %u is not a point", i, p);
		if (p >= limit)
			break;
		if (seen_before(seen, p))
			return gt_fail(err, GT_EINPUT, "cpm: point %u appears twice in the chains", p);
		if (g->time[p] < prev)
			return gt_fail(err, GT_EINPUT, "cpm: time goes backward on track %u at point %u", k, p);
		prev = g->time[p];
	}
	*cursor = i;
	return 0;
}

/* One windowed pass over the chains: a permutation of the points, time
 * never decreasing along a track. */
static int check_chains(const gt_cpm_graph *g, gt_error *err)
{
	uint64_t *seen = gt_big_calloc(g->n / 64 + 1, sizeof *seen);
	uint32_t *cursor = cursors_at_starts(g);
	int rc = 0;
	if (!seen || !cursor)
		rc = gt_fail(err, GT_EINPUT, "cpm: out of memory checking %u points", g->n);
	uint32_t window = sweep_window(g);
	for (uint32_t limit = 0; rc == 0 && limit < g->n;) {
		uint32_t from = limit;
		limit = next_limit(limit, window, g->n);
		prefetch_ids(g->time, sizeof *g->time, from, limit, false);
		for (uint32_t k = 0; k < g->tracks && rc == 0; k++)
			rc = check_track_part(g, k, &cursor[k], limit, seen, err);
	}
	free(seen);
	free(cursor);
	return rc;
}

/* Eight work flags at a time: each byte must be 0 or 1. */
static int check_work(const gt_cpm_graph *g, gt_error *err)
{
	uint32_t i = 0;
	for (; i + 8 <= g->n; i += 8) {
		uint64_t w;
		memcpy(&w, g->work + i, sizeof w);
		if (w & 0xfefefefefefefefeull)
			break;
	}
	for (; i < g->n; i++)
		if (g->work[i] > 1)
			return gt_fail(err, GT_EINPUT, "cpm: work[%u] is %u, not 0 or 1", i, g->work[i]);
	return 0;
}

/* The earliest and latest times, from each track's ends (times never
 * decrease along a track, and every point is on one). */
static uint64_t time_span(const gt_cpm_graph *g)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t k = 0; k < g->tracks; k++) {
		uint32_t begin = g->chain_start[k], end = g->chain_start[k + 1];
		if (begin == end)
			continue;
		lo = min64(lo, g->time[g->chain[begin]]);
		hi = g->time[g->chain[end - 1]] > hi ? g->time[g->chain[end - 1]] : hi;
	}
	return g->n ? (uint64_t)hi - (uint64_t)lo : 0;
}

/* Gaps are differences of times: the span must fit with room to spare. */
static int check_time_span(const gt_cpm_graph *g, gt_error *err)
{
	if (time_span(g) > MAX_TIME_SPAN)
		return gt_fail(err, GT_EINPUT, "cpm: times span more than 2^62 ns");
	return 0;
}

static int check_edges(const gt_cpm_graph *g, gt_error *err)
{
	for (uint32_t e = 0; e < g->m; e++) {
		uint32_t s = g->edge_src[e], d = g->edge_dst[e];
		if (s >= g->n || d >= g->n)
			return gt_fail(err, GT_EINPUT, "cpm: cross edge %u joins %u -> %u, outside %u points", e, s, d,
				       g->n);
		if (s == d)
			return gt_fail(err, GT_EINPUT, "cpm: cross edge %u joins point %u to itself", e, s);
		if (g->time[s] > g->time[d])
			return gt_fail(err, GT_EINPUT, "cpm: cross edge %u (%u -> %u) goes backward in time", e, s, d);
		if (g->edge_kind[e] != GT_CPM_EDGE_FLOW && g->edge_kind[e] != GT_CPM_EDGE_WAIT)
			return gt_fail(err, GT_EINPUT, "cpm: cross edge %u has kind %u, not flow or wait", e,
				       g->edge_kind[e]);
	}
	return 0;
}

int gt_cpm_check(const gt_cpm_graph *g, gt_error *err)
{
	if (check_arrays(g, err) < 0 || check_chain_starts(g, err) < 0 || check_chains(g, err) < 0 ||
	    check_work(g, err) < 0 || check_time_span(g, err) < 0 || check_edges(g, err) < 0)
		return -1;
	return 0;
}

/* Every T of a chain with points far enough above INT64_MIN; the span is
 * <= 2^62 (checked), so INT64_MIN + 2 * span does not overflow. */
static int check_horizons(const gt_cpm_graph *g, gt_error *err)
{
	int64_t span = (int64_t)time_span(g);
	for (uint32_t k = 0; k < g->tracks; k++) {
		int64_t t = gt_cpm_horizon(g, k);
		if (g->chain_start[k] < g->chain_start[k + 1] && t < INT64_MIN + 2 * span)
			return gt_fail(err, GT_EINPUT, "cpm: horizon %lld is too far below the times", (long long)t);
	}
	return 0;
}

int gt_cpm_check_float(const gt_cpm_graph *g, gt_error *err)
{
	return gt_cpm_check(g, err) < 0 ? -1 : check_horizons(g, err);
}

int gt_cpm_check_range(const gt_cpm_graph *g, bool floats, gt_error *err)
{
	if (check_arrays(g, err) < 0 || check_chain_starts(g, err) < 0 || check_time_span(g, err) < 0)
		return -1;
	return floats ? check_horizons(g, err) : 0;
}

/* --- binding ---------------------------------------------------------------- */

/* Whether the cross edge from s of kind k beats the current choice for
 * point v: latest source, then chain < flow < wait, then lowest source id;
 * full ties keep the lower edge index (edges come in index order). */
static bool edge_beats(const gt_cpm_graph *g, const gt_cpm_binding *out, uint32_t v, uint32_t s, uint8_t k)
{
	uint32_t cur = out->parent[v];
	if (cur == GT_CP_ROOT)
		return true;
	int64_t ts = g->time[s], tc = g->time[cur];
	if (ts != tc)
		return ts > tc;
	if (k != out->kind[v])
		return k < out->kind[v];
	return s < cur;
}

/* Binds track k's points from chain position *cursor on, before position
 * stop and while their ids are below limit, to their chain predecessors
 * (the first to none: a root). */
static void bind_track_part(const gt_cpm_graph *g, gt_cpm_binding *out, uint32_t k, uint32_t *cursor,
			    uint32_t limit, uint32_t stop)
{
	uint32_t begin = g->chain_start[k], i = *cursor;
	uint32_t end = stop < g->chain_start[k + 1] ? stop : g->chain_start[k + 1];
	uint32_t prev = i > begin ? g->chain[i - 1] : GT_CP_ROOT;
	int64_t prev_time = i > begin ? g->time[prev] : 0;
	for (; i < end && g->chain[i] < limit; i++) {
		uint32_t v = g->chain[i];
		int64_t t = g->time[v];
		out->parent[v] = prev;
		out->kind[v] = prev == GT_CP_ROOT ? GT_CPM_EDGE_NONE : GT_CPM_EDGE_CHAIN;
		if (out->gap)
			out->gap[v] = prev == GT_CP_ROOT ? 0 : t - prev_time;
		out->edge[v] = GT_CP_NONE;
		prev = v;
		prev_time = t;
	}
	*cursor = i;
}

static int bind_chains(const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	uint32_t *cursor = cursors_at_starts(g);
	if (!cursor)
		return gt_fail(err, GT_EINPUT, "cpm: out of memory binding %u points", g->n);
	uint32_t window = sweep_window(g);
	for (uint32_t limit = 0; limit < g->n;) {
		uint32_t from = limit;
		limit = next_limit(limit, window, g->n);
		prefetch_ids(g->time, sizeof *g->time, from, limit, false);
		prefetch_ids(out->parent, sizeof *out->parent, from, limit, true);
		if (out->gap)
			prefetch_ids(out->gap, sizeof *out->gap, from, limit, true);
		prefetch_ids(out->kind, sizeof *out->kind, from, limit, true);
		prefetch_ids(out->edge, sizeof *out->edge, from, limit, true);
		for (uint32_t k = 0; k < g->tracks; k++)
			bind_track_part(g, out, k, &cursor[k], limit, UINT32_MAX);
	}
	free(cursor);
	return 0;
}

int gt_cpm_bind_host(const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	return gt_cpm_check(g, err) < 0 ? -1 : gt_cpm_bind_host_checked(g, out, err);
}

/* Binds the cross edge e into its target, where it beats the point's
 * binding so far; a point's edges must come in edge order. */
static void bind_edge(const gt_cpm_graph *g, gt_cpm_binding *out, uint32_t e)
{
	uint32_t s = g->edge_src[e], v = g->edge_dst[e];
	if (!edge_beats(g, out, v, s, g->edge_kind[e]))
		return;
	out->parent[v] = s;
	out->kind[v] = g->edge_kind[e];
	out->edge[v] = e;
	if (out->gap)
		out->gap[v] = g->time[v] - g->time[s];
}

/* The cross edges on threads, each thread the targets of one range of
 * points (range_of): the edges are first sorted by range, stably (each
 * thread counts, then places, its own slice of the edges, the slices in
 * order), so that each point meets its edges in edge order and the binding
 * is one thread's. (Each thread reading every edge had held the binding of
 * 40M points to two threads.) */
typedef struct bind_edges_part {
	const gt_cpm_graph *g;
	gt_cpm_binding *out;
	unsigned k;
	uint32_t a, b;                /* this thread's slice of the edges */
	uint32_t count[GT_MAX_JOBS];  /* per range: its edges in the slice, then where they go */
	uint32_t *by_range;           /* the edges, range after range */
	uint32_t from, to;            /* its range's edges in by_range */
} bind_edges_part;

static unsigned range_of(const bind_edges_part *p, uint32_t v)
{
	return (unsigned)((uint64_t)v * p->k / p->g->n);
}

static void *count_edges(void *arg)
{
	bind_edges_part *p = arg;
	memset(p->count, 0, sizeof p->count);
	for (uint32_t e = p->a; e < p->b; e++)
		p->count[range_of(p, p->g->edge_dst[e])]++;
	return NULL;
}

static void *place_edges(void *arg)
{
	bind_edges_part *p = arg;
	for (uint32_t e = p->a; e < p->b; e++)
		p->by_range[p->count[range_of(p, p->g->edge_dst[e])]++] = e;
	return NULL;
}

static void *bind_range_edges(void *arg)
{
	bind_edges_part *p = arg;
	for (uint32_t i = p->from; i < p->to; i++)
		bind_edge(p->g, p->out, p->by_range[i]);
	return NULL;
}

/* The cross edges on k threads, as above; out of memory for the sorted
 * edges (4 bytes an edge), on this thread in edge order. */
static void bind_edges_threads(const gt_cpm_graph *g, gt_cpm_binding *out, unsigned k)
{
	uint32_t *by_range = gt_big_malloc(g->m, sizeof *by_range);
	if (!by_range) {
		for (uint32_t e = 0; e < g->m; e++)
			bind_edge(g, out, e);
		return;
	}
	bind_edges_part parts[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		parts[j] = (bind_edges_part){.g = g, .out = out, .k = k, .a = (uint32_t)((uint64_t)g->m * j / k),
					     .b = (uint32_t)((uint64_t)g->m * (j + 1) / k), .by_range = by_range};
	gt_run_jobs(count_edges, parts, sizeof *parts, k);
	uint32_t at = 0;
	for (unsigned r = 0; r < k; r++) {
		parts[r].from = at;
		for (unsigned j = 0; j < k; j++) {
			uint32_t c = parts[j].count[r];
			parts[j].count[r] = at;
			at += c;
		}
		parts[r].to = at;
	}
	gt_run_jobs(place_edges, parts, sizeof *parts, k);
	gt_run_jobs(bind_range_edges, parts, sizeof *parts, k);
	gt_big_free(by_range);
}

/* The chain bindings of chain positions [a, b) (threads: ranges of them;
 * every point is one position's, so each is written once). */
typedef struct bind_chain_part {
	const gt_cpm_graph *g;
	gt_cpm_binding *out;
	uint32_t a, b;
} bind_chain_part;

static void *bind_chain_range(void *arg)
{
	bind_chain_part *p = arg;
	const gt_cpm_graph *g = p->g;
	if (p->a >= p->b)
		return NULL;
	for (uint32_t k = gt_bucket_of(g->chain_start, g->tracks, p->a), i = p->a; k < g->tracks && i < p->b; k++)
		bind_track_part(g, p->out, k, &i, UINT32_MAX, p->b); /* leaves i at the track's end or b */
	return NULL;
}

int gt_cpm_bind_host_threads(const gt_cpm_graph *g, gt_cpm_binding *out, unsigned threads, gt_error *err)
{
	unsigned k = threads < 1 ? 1 : threads < GT_MAX_JOBS ? threads : GT_MAX_JOBS;
	if (k == 1) {
		if (bind_chains(g, out, err) < 0)
			return -1;
	} else {
		bind_chain_part chains[GT_MAX_JOBS];
		for (unsigned j = 0; j < k; j++)
			chains[j] = (bind_chain_part){g, out, (uint32_t)((uint64_t)g->n * j / k),
						      (uint32_t)((uint64_t)g->n * (j + 1) / k)};
		gt_run_jobs(bind_chain_range, chains, sizeof *chains, k);
	}
	if (k == 1 || g->m == 0)
		for (uint32_t e = 0; e < g->m; e++)
			bind_edge(g, out, e);
	else
		bind_edges_threads(g, out, k);
	return 0;
}

int gt_cpm_bind_host_checked(const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	return gt_cpm_bind_host_threads(g, out, 1, err);
}

/* --- float ------------------------------------------------------------------ */

/* The points with cross in-edges (or out-edges): a bitmap and, per 64-bit
 * word, the count of set bits before it, so that each such point has a
 * dense rank. Per-point state of the few points with cross edges lives in
 * arrays by rank: the sweeps then touch little more than time and LT. */
typedef struct {
	uint64_t *bits;
	uint32_t *rank;
	uint32_t count;
} sparse_set;

/* Inline: without -mpopcnt __builtin_popcountll is a libgcc call. */
static uint32_t popcount64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static bool sparse_has(const sparse_set *s, uint32_t v)
{
	return s->bits[v >> 6] >> (v & 63) & 1;
}

static uint32_t sparse_rank(const sparse_set *s, uint32_t v)
{
	uint64_t below = s->bits[v >> 6] & (((uint64_t)1 << (v & 63)) - 1);
	return s->rank[v >> 6] + popcount64(below);
}

static int sparse_build(sparse_set *s, uint32_t n, const uint32_t *members, uint32_t m)
{
	size_t words = (size_t)n / 64 + 1;
	s->bits = gt_big_calloc(words, sizeof *s->bits);
	s->rank = gt_big_malloc(words, sizeof *s->rank);
	if (!s->bits || !s->rank)
		return -1;
	for (uint32_t e = 0; e < m; e++)
		s->bits[members[e] >> 6] |= (uint64_t)1 << (members[e] & 63);
	uint32_t count = 0;
	for (size_t w = 0; w < words; w++) {
		s->rank[w] = count;
		count += popcount64(s->bits[w]);
	}
	s->count = count;
	return 0;
}

static void sparse_free(sparse_set *s)
{
	free(s->bits);
	free(s->rank);
}

#define BLOCKED 0x80000000u /* in pending: a cursor waits on this point */

/* Per point with cross out-edges (by rank in the out set). */
typedef struct {
	int64_t bound;    /* min LT over its finished targets (INT64_MAX: none) */
	uint32_t pending; /* unfinished targets, | BLOCKED */
	uint32_t waiter;  /* the track blocked on it (with BLOCKED) */
} source_state;

typedef struct {
	int64_t base;
	uint32_t member; /* index into the group */
} seed;

/* A stalled group: the unfinished points at the latest cursor time. */
typedef struct {
	uint32_t *pt;      /* members, track by track, each run in chain order */
	uint8_t *has_pred; /* per member: its chain predecessor is a member */
	seed *seeds;
	uint32_t *stack;
	uint32_t *tracks;  /* the tracks whose runs were taken */
	uint32_t count, ntracks;
} stall_group;

typedef struct {
	const gt_cpm_graph *g;
	int64_t *lt;          /* written once a point is final */
	sparse_set out, in;   /* points with cross out-edges, in-edges */
	source_state *src;    /* by rank in out */
	uint32_t *in_start;   /* by rank in in: in_src[in_start[r]..in_start[r+1]] */
	uint32_t *in_src;     /* the sources of the edges into each point */
	uint32_t *cursor;     /* per track: chain positions below it are unfinished */
	uint32_t *ready;      /* stack of tracks that may advance */
	uint32_t nready;
	uint32_t unfinished_tracks;
	uint32_t low;         /* the window: cursors stop at ids below it */
	uint8_t *member;      /* n, on the first stall: 1 member, 2 assigned */
	uint32_t *gidx;       /* n, on the first stall: a member's index in sg */
	stall_group sg;
} float_run;

/* The bound on v from its track's T and its cross out-edges' finished
 * targets. */
static int64_t cross_bound(const float_run *r, uint32_t v, int64_t t)
{
	return sparse_has(&r->out, v) ? min64(t, r->src[sparse_rank(&r->out, v)].bound) : t;
}

/* The source state of u, which has an edge into a point that just became
 * final with LT x (skip: u is in the stalled group being finished). */
static void notify_source(float_run *r, uint32_t u, int64_t x)
{
	source_state *st = &r->src[sparse_rank(&r->out, u)];
	st->bound = min64(st->bound, x);
	if (--st->pending == BLOCKED) {
		st->pending = 0;
		r->ready[r->nready++] = st->waiter;
	}
}

/* Point v is final with LT x: pass x to the sources of its cross
 * in-edges and wake a track whose cursor waited on the last of them. */
static void finish_point(float_run *r, uint32_t v, int64_t x)
{
	if (!sparse_has(&r->in, v))
		return;
	uint32_t k = sparse_rank(&r->in, v);
	for (uint32_t i = r->in_start[k]; i < r->in_start[k + 1]; i++)
		notify_source(r, r->in_src[i], x);
}

/* Whether v waits on unfinished targets: then its track blocks on it. */
static bool blocks(float_run *r, uint32_t v, uint32_t track)
{
	if (!sparse_has(&r->out, v))
		return false;
	source_state *st = &r->src[sparse_rank(&r->out, v)];
	if (!st->pending)
		return false;
	st->pending |= BLOCKED;
	st->waiter = track;
	return true;
}

/* The bound on chain[pos] from its chain successor (already final). */
static int64_t chain_bound(const gt_cpm_graph *g, const int64_t *lt, uint32_t pos)
{
	uint32_t v = g->chain[pos], w = g->chain[pos + 1];
	return lt[w] - (g->work[pos] ? g->time[w] - g->time[v] : 0);
}

/* Moves track k's cursor back as far as its points can be finished and
 * their ids are in the window; the successor's LT and time ride along in
 * registers. */
static void advance_track(float_run *r, uint32_t k)
{
	const gt_cpm_graph *g = r->g;
	uint32_t begin = g->chain_start[k], end = g->chain_start[k + 1];
	uint32_t pos = r->cursor[k];
	if (pos == begin)
		return; /* finished already (woken twice) */
	bool has_next = pos < end;
	int64_t next_lt = has_next ? r->lt[g->chain[pos]] : 0, next_time = has_next ? g->time[g->chain[pos]] : 0;
	int64_t horizon = gt_cpm_horizon(g, k);
	while (pos > begin) {
		uint32_t v = g->chain[pos - 1];
		if (v < r->low || blocks(r, v, k))
			break;
		int64_t t = g->time[v], x = cross_bound(r, v, horizon);
		if (has_next)
			x = min64(x, next_lt - (g->work[pos - 1] ? next_time - t : 0));
		r->lt[v] = x;
		finish_point(r, v, x);
		next_lt = x;
		next_time = t;
		has_next = true;
		pos--;
	}
	r->cursor[k] = pos;
	if (pos == begin)
		r->unfinished_tracks--;
}

static void drain_ready(float_run *r)
{
	while (r->nready)
		advance_track(r, r->ready[--r->nready]);
}

static int64_t latest_cursor_time(const float_run *r)
{
	const gt_cpm_graph *g = r->g;
	int64_t t = INT64_MIN;
	for (uint32_t k = 0; k < g->tracks; k++)
		if (r->cursor[k] > g->chain_start[k] && g->time[g->chain[r->cursor[k] - 1]] > t)
			t = g->time[g->chain[r->cursor[k] - 1]];
	return t;
}

/* Takes the run at time t below each cursor that is at t into the group,
 * with each member's base: its bound from finished targets (and, for the
 * run's last point, from its finished chain successor). */
static void collect_group(float_run *r, int64_t t)
{
	const gt_cpm_graph *g = r->g;
	stall_group *sg = &r->sg;
	sg->count = sg->ntracks = 0;
	for (uint32_t k = 0; k < g->tracks; k++) {
		uint32_t begin = g->chain_start[k], end = g->chain_start[k + 1], pos = r->cursor[k];
		if (pos == begin || g->time[g->chain[pos - 1]] != t)
			continue;
		uint32_t first = pos;
		while (first > begin && g->time[g->chain[first - 1]] == t)
			first--;
		for (uint32_t i = first; i < pos; i++) {
			uint32_t v = g->chain[i];
			int64_t base = cross_bound(r, v, gt_cpm_horizon(g, k));
			if (i + 1 == pos && pos < end)
				base = min64(base, chain_bound(g, r->lt, i));
			r->member[v] = 1;
			r->gidx[v] = sg->count;
			sg->has_pred[sg->count] = i > first;
			sg->seeds[sg->count] = (seed){base, sg->count};
			sg->pt[sg->count++] = v;
		}
		r->cursor[k] = first;
		sg->tracks[sg->ntracks++] = k;
	}
}

static int by_base(const void *a, const void *b)
{
	const seed *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->member < y->member ? -1 : x->member > y->member;
}

static void assign(float_run *r, uint32_t *top, uint32_t xi, int64_t value)
{
	uint32_t x = r->sg.pt[xi];
	r->member[x] = 2;
	r->lt[x] = value;
	r->sg.stack[(*top)++] = xi;
}

/* Gives every member the least base among the members it reaches (its LT:
 * all edges inside the group have lag 0). Seeds in base order each flood
 * backward (chain predecessor, cross sources) over unassigned members: a
 * member reached by an earlier seed already has a smaller or equal base. */
static void flood_group(float_run *r)
{
	stall_group *sg = &r->sg;
	qsort(sg->seeds, sg->count, sizeof *sg->seeds, by_base);
	for (uint32_t s = 0; s < sg->count; s++) {
		if (r->member[sg->pt[sg->seeds[s].member]] == 2)
			continue;
		int64_t value = sg->seeds[s].base;
		uint32_t top = 0;
		assign(r, &top, sg->seeds[s].member, value);
		while (top) {
			uint32_t xi = sg->stack[--top], x = sg->pt[xi];
			if (sg->has_pred[xi] && r->member[sg->pt[xi - 1]] == 1)
				assign(r, &top, xi - 1, value);
			if (!sparse_has(&r->in, x))
				continue;
			uint32_t k = sparse_rank(&r->in, x);
			for (uint32_t i = r->in_start[k]; i < r->in_start[k + 1]; i++) {
				uint32_t u = r->in_src[i];
				if (r->member[u] == 1)
					assign(r, &top, r->gidx[u], value);
			}
		}
	}
}

/* The group is final: pass its LTs to sources outside it, and let its
 * tracks go on. */
static void finish_group(float_run *r)
{
	stall_group *sg = &r->sg;
	for (uint32_t j = 0; j < sg->count; j++) {
		uint32_t v = sg->pt[j];
		if (!sparse_has(&r->in, v))
			continue;
		uint32_t k = sparse_rank(&r->in, v);
		for (uint32_t i = r->in_start[k]; i < r->in_start[k + 1]; i++)
			if (!r->member[r->in_src[i]])
				notify_source(r, r->in_src[i], r->lt[v]);
	}
	for (uint32_t j = 0; j < sg->count; j++)
		r->member[sg->pt[j]] = 0;
	for (uint32_t j = 0; j < sg->ntracks; j++) {
		uint32_t k = sg->tracks[j];
		if (r->cursor[k] == r->g->chain_start[k])
			r->unfinished_tracks--;
		else
			r->ready[r->nready++] = k;
	}
}

static int stall_alloc(float_run *r, gt_error *err)
{
	uint32_t n = r->g->n;
	stall_group *sg = &r->sg;
	r->member = gt_big_calloc(n, 1);
	r->gidx = gt_big_malloc(n, sizeof *r->gidx);
	sg->pt = gt_big_malloc(n, sizeof *sg->pt);
	sg->has_pred = gt_big_malloc(n, 1);
	sg->seeds = gt_big_malloc(n, sizeof *sg->seeds);
	sg->stack = gt_big_malloc(n, sizeof *sg->stack);
	sg->tracks = gt_big_malloc(r->g->tracks, sizeof *sg->tracks);
	if (!r->member || !r->gidx || !sg->pt || !sg->has_pred || !sg->seeds || !sg->stack || !sg->tracks)
		return gt_fail(err, GT_EINPUT, "cpm: out of memory for a zero-gap cycle of %u points", n);
	return 0;
}

/* No track can advance: every cursor waits on a cycle. Resolves the group
 * at the latest cursor time, which holds every such cycle's points there. */
static int resolve_stall(float_run *r, gt_error *err)
{
	if (!r->member && stall_alloc(r, err) < 0)
		return -1;
	collect_group(r, latest_cursor_time(r));
	flood_group(r);
	finish_group(r);
	return 0;
}

static void float_run_free(float_run *r)
{
	sparse_free(&r->out);
	sparse_free(&r->in);
	free(r->src);
	free(r->in_start);
	free(r->in_src);
	free(r->cursor);
	free(r->ready);
	free(r->member);
	free(r->gidx);
	free(r->sg.pt);
	free(r->sg.has_pred);
	free(r->sg.seeds);
	free(r->sg.stack);
	free(r->sg.tracks);
}

/* The sources' states (no bound yet, pending = out-degree) and the
 * in-edges by target rank (a counting sort). */
static void cross_edges_build(float_run *r)
{
	const gt_cpm_graph *g = r->g;
	for (uint32_t i = 0; i < r->out.count; i++)
		r->src[i] = (source_state){INT64_MAX, 0, 0};
	for (uint32_t e = 0; e < g->m; e++) {
		r->src[sparse_rank(&r->out, g->edge_src[e])].pending++;
		r->in_start[sparse_rank(&r->in, g->edge_dst[e]) + 1]++;
	}
	for (uint32_t i = 0; i < r->in.count; i++)
		r->in_start[i + 1] += r->in_start[i];
	/* Scatter with in_start[k] as k's cursor, then shift the offsets back. */
	for (uint32_t e = 0; e < g->m; e++)
		r->in_src[r->in_start[sparse_rank(&r->in, g->edge_dst[e])]++] = g->edge_src[e];
	memmove(r->in_start + 1, r->in_start, (size_t)r->in.count * sizeof *r->in_start);
	r->in_start[0] = 0;
}

static int float_run_init(float_run *r, const gt_cpm_graph *g, int64_t *lt, gt_error *err)
{
	memset(r, 0, sizeof *r);
	r->g = g;
	r->lt = lt;
	size_t tracks = g->tracks ? g->tracks : 1, m = g->m ? g->m : 1;
	if (sparse_build(&r->out, g->n, g->edge_src, g->m) < 0 || sparse_build(&r->in, g->n, g->edge_dst, g->m) < 0)
		return gt_fail(err, GT_EINPUT, "cpm: out of memory for the float of %u points", g->n);
	r->src = gt_big_malloc(r->out.count, sizeof *r->src);
	r->in_start = gt_big_calloc((size_t)r->in.count + 1, sizeof *r->in_start);
	r->in_src = gt_big_malloc(m, sizeof *r->in_src);
	r->cursor = gt_big_malloc(tracks, sizeof *r->cursor);
	r->ready = gt_big_malloc(tracks, sizeof *r->ready);
	if (!r->src || !r->in_start || !r->in_src || !r->cursor || !r->ready)
		return gt_fail(err, GT_EINPUT, "cpm: out of memory for the float of %u points", g->n);
	cross_edges_build(r);
	for (uint32_t k = 0; k < g->tracks; k++) {
		r->cursor[k] = g->chain_start[k + 1];
		r->unfinished_tracks += g->chain_start[k] < g->chain_start[k + 1];
	}
	return 0;
}

/* Windows of ids from the top down; within each, every track advances,
 * and the tracks they wake. */
static void sweep_windows(float_run *r)
{
	const gt_cpm_graph *g = r->g;
	uint32_t window = sweep_window(g);
	for (uint32_t high = g->n; high > 0; high = r->low) {
		r->low = high > window ? high - window : 0;
		prefetch_ids(g->time, sizeof *g->time, r->low, high, false);
		prefetch_ids(r->lt, sizeof *r->lt, r->low, high, true);
		for (uint32_t k = 0; k < g->tracks; k++) {
			advance_track(r, k);
			drain_ready(r);
		}
	}
}

int gt_cpm_float_host(const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err)
{
	return gt_cpm_check_float(g, err) < 0 ? -1 : gt_cpm_float_host_checked(g, lt, stats, err);
}

int gt_cpm_float_host_checked(const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err)
{
	float_run r;
	int rc = float_run_init(&r, g, lt, err);
	if (rc == 0)
		sweep_windows(&r);
	while (rc == 0 && r.unfinished_tracks) {
		rc = resolve_stall(&r, err);
		drain_ready(&r);
	}
	float_run_free(&r);
	if (rc == 0 && stats)
		stats->rounds = 1;
	return rc;
}
