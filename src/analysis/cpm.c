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
 * targets, or T) among the points each reaches: the greatest fixed point. */
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

static int check_permutation(const gt_cpm_graph *g, gt_error *err)
{
	uint8_t *seen = gt_fault_hit("alloc") ? NULL : calloc(g->n ? g->n : 1, 1);
	if (!seen)
		return gt_fail(err, GT_EINPUT, "cpm: out of memory checking %u points", g->n);
	int rc = 0;
	for (uint32_t i = 0; i < g->n && rc == 0; i++) {
		uint32_t p = g->chain[i];
		if (p >= g->n)
			rc = gt_fail(err, GT_EINPUT, "cpm: chain[%u] = %u is not a point", i, p);
		else if (seen[p])
			rc = gt_fail(err, GT_EINPUT, "cpm: point %u appears twice in the chains", p);
		else
			seen[p] = 1;
	}
	free(seen);
	return rc;
}

static int check_chain_times(const gt_cpm_graph *g, gt_error *err)
{
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t i = g->chain_start[k] + 1; i < g->chain_start[k + 1]; i++)
			if (g->time[g->chain[i]] < g->time[g->chain[i - 1]])
				return gt_fail(err, GT_EINPUT, "cpm: time goes backward on track %u at point %u", k,
					       g->chain[i]);
	for (uint32_t i = 0; i < g->n; i++)
		if (g->work[i] > 1)
			return gt_fail(err, GT_EINPUT, "cpm: work[%u] is %u, not 0 or 1", i, g->work[i]);
	return 0;
}

/* Gaps are differences of times: the span must fit with room to spare. */
static int check_time_span(const gt_cpm_graph *g, gt_error *err)
{
	if (!g->n)
		return 0;
	int64_t lo = g->time[0], hi = g->time[0];
	for (uint32_t i = 1; i < g->n; i++) {
		lo = min64(lo, g->time[i]);
		hi = g->time[i] > hi ? g->time[i] : hi;
	}
	if ((uint64_t)hi - (uint64_t)lo > MAX_TIME_SPAN)
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
	if (check_arrays(g, err) < 0 || check_chain_starts(g, err) < 0 || check_permutation(g, err) < 0 ||
	    check_chain_times(g, err) < 0 || check_time_span(g, err) < 0 || check_edges(g, err) < 0)
		return -1;
	return 0;
}

int gt_cpm_check_float(const gt_cpm_graph *g, gt_error *err)
{
	if (gt_cpm_check(g, err) < 0)
		return -1;
	if (!g->n)
		return 0;
	int64_t lo = g->time[0], hi = g->time[0];
	for (uint32_t i = 1; i < g->n; i++) {
		lo = min64(lo, g->time[i]);
		hi = g->time[i] > hi ? g->time[i] : hi;
	}
	/* span <= 2^62 (checked), so INT64_MIN + 2 * span does not overflow. */
	int64_t span = (int64_t)((uint64_t)hi - (uint64_t)lo);
	if (g->horizon < INT64_MIN + 2 * span)
		return gt_fail(err, GT_EINPUT, "cpm: horizon %lld is too far below the times", (long long)g->horizon);
	return 0;
}

/* --- binding ---------------------------------------------------------------- */

/* Whether the edge (source time ts, kind k, source s, index e) beats the
 * current choice of out for point v: latest source, then chain < flow <
 * wait, then lowest source id; full ties keep the lower edge index. */
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

static void bind_chains(const gt_cpm_graph *g, gt_cpm_binding *out)
{
	for (uint32_t k = 0; k < g->tracks; k++) {
		uint32_t begin = g->chain_start[k], end = g->chain_start[k + 1];
		for (uint32_t i = begin; i < end; i++) {
			uint32_t v = g->chain[i];
			if (i == begin) {
				out->parent[v] = GT_CP_ROOT;
				out->kind[v] = GT_CPM_EDGE_NONE;
			} else {
				out->parent[v] = g->chain[i - 1];
				out->kind[v] = GT_CPM_EDGE_CHAIN;
			}
			out->edge[v] = GT_CP_NONE;
		}
	}
}

int gt_cpm_bind_host(const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	if (gt_cpm_check(g, err) < 0)
		return -1;
	bind_chains(g, out);
	for (uint32_t e = 0; e < g->m; e++) {
		uint32_t s = g->edge_src[e], v = g->edge_dst[e];
		if (edge_beats(g, out, v, s, g->edge_kind[e])) {
			out->parent[v] = s;
			out->kind[v] = g->edge_kind[e];
			out->edge[v] = e;
		}
	}
	for (uint32_t v = 0; v < g->n; v++)
		out->gap[v] = out->parent[v] == GT_CP_ROOT ? 0 : g->time[v] - g->time[out->parent[v]];
	return 0;
}

/* --- float ------------------------------------------------------------------ */

/* Cross edges by target: in_src[in_start[w]..in_start[w+1]] are the
 * sources of the edges into w. */
typedef struct {
	uint32_t *in_start; /* n + 1 */
	uint32_t *in_src;   /* m */
} in_edges;

static int in_edges_build(const gt_cpm_graph *g, in_edges *ie, gt_error *err)
{
	ie->in_start = gt_fault_hit("alloc") ? NULL : calloc((size_t)g->n + 1, sizeof *ie->in_start);
	ie->in_src = gt_fault_hit("alloc") ? NULL : malloc((g->m ? g->m : 1) * sizeof *ie->in_src);
	if (!ie->in_start || !ie->in_src) {
		free(ie->in_start);
		free(ie->in_src);
		ie->in_start = ie->in_src = NULL;
		return gt_fail(err, GT_EINPUT, "cpm: out of memory for %u cross edges", g->m);
	}
	for (uint32_t e = 0; e < g->m; e++)
		ie->in_start[g->edge_dst[e] + 1]++;
	for (uint32_t v = 0; v < g->n; v++)
		ie->in_start[v + 1] += ie->in_start[v];
	/* Scatter with in_start[w] as w's cursor, then shift the offsets back. */
	for (uint32_t e = 0; e < g->m; e++)
		ie->in_src[ie->in_start[g->edge_dst[e]]++] = g->edge_src[e];
	memmove(ie->in_start + 1, ie->in_start, (size_t)g->n * sizeof *ie->in_start);
	ie->in_start[0] = 0;
	return 0;
}

#define BLOCKED 0x80000000u /* in pending: a cursor waits on this point */

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
	int64_t *lt;         /* final for finished points; else the bound so far */
	in_edges ie;
	uint32_t *pending;   /* unfinished cross targets, | BLOCKED */
	uint32_t *waiter;    /* the track blocked on a point (set with BLOCKED) */
	uint32_t *cursor;    /* per track: chain positions below it are unfinished */
	uint32_t *ready;     /* stack of tracks that may advance */
	uint32_t nready;
	uint32_t unfinished_tracks;
	uint8_t *member;     /* n, on the first stall: 1 member, 2 assigned */
	uint32_t *gidx;      /* n, on the first stall: a member's index in sg */
	stall_group sg;
} float_run;

/* Point v is final: pass its LT to the sources of its cross in-edges and
 * wake a track whose cursor waited on the last of them. */
static void finish_point(float_run *r, uint32_t v)
{
	int64_t t = r->lt[v];
	for (uint32_t i = r->ie.in_start[v]; i < r->ie.in_start[v + 1]; i++) {
		uint32_t u = r->ie.in_src[i];
		r->lt[u] = min64(r->lt[u], t);
		if (--r->pending[u] == BLOCKED) {
			r->pending[u] = 0;
			r->ready[r->nready++] = r->waiter[u];
		}
	}
}

/* The bound on chain[pos] from its chain successor (already final). */
static int64_t chain_bound(const gt_cpm_graph *g, const int64_t *lt, uint32_t pos)
{
	uint32_t v = g->chain[pos], w = g->chain[pos + 1];
	return lt[w] - (g->work[pos] ? g->time[w] - g->time[v] : 0);
}

/* Moves track k's cursor back as far as its points can be finished. */
static void advance_track(float_run *r, uint32_t k)
{
	const gt_cpm_graph *g = r->g;
	uint32_t begin = g->chain_start[k], end = g->chain_start[k + 1];
	uint32_t pos = r->cursor[k];
	if (pos == begin)
		return; /* finished already (woken twice) */
	while (pos > begin) {
		uint32_t v = g->chain[pos - 1];
		if (r->pending[v]) {
			r->pending[v] |= BLOCKED;
			r->waiter[v] = k;
			break;
		}
		if (pos < end)
			r->lt[v] = min64(r->lt[v], chain_bound(g, r->lt, pos - 1));
		finish_point(r, v);
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
			int64_t base = r->lt[v];
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
			for (uint32_t i = r->ie.in_start[x]; i < r->ie.in_start[x + 1]; i++) {
				uint32_t u = r->ie.in_src[i];
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
		for (uint32_t i = r->ie.in_start[v]; i < r->ie.in_start[v + 1]; i++) {
			uint32_t u = r->ie.in_src[i];
			if (r->member[u])
				continue;
			r->lt[u] = min64(r->lt[u], r->lt[v]);
			if (--r->pending[u] == BLOCKED) {
				r->pending[u] = 0;
				r->ready[r->nready++] = r->waiter[u];
			}
		}
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
	r->member = gt_fault_hit("alloc") ? NULL : calloc(n, 1);
	r->gidx = gt_fault_hit("alloc") ? NULL : malloc((size_t)n * sizeof *r->gidx);
	sg->pt = gt_fault_hit("alloc") ? NULL : malloc((size_t)n * sizeof *sg->pt);
	sg->has_pred = gt_fault_hit("alloc") ? NULL : malloc(n);
	sg->seeds = gt_fault_hit("alloc") ? NULL : malloc((size_t)n * sizeof *sg->seeds);
	sg->stack = gt_fault_hit("alloc") ? NULL : malloc((size_t)n * sizeof *sg->stack);
	sg->tracks = gt_fault_hit("alloc") ? NULL : malloc((size_t)r->g->tracks * sizeof *sg->tracks);
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
	free(r->ie.in_start);
	free(r->ie.in_src);
	free(r->pending);
	free(r->waiter);
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

static int float_run_init(float_run *r, const gt_cpm_graph *g, int64_t *lt, gt_error *err)
{
	memset(r, 0, sizeof *r);
	r->g = g;
	r->lt = lt;
	size_t n = g->n ? g->n : 1, tracks = g->tracks ? g->tracks : 1;
	r->pending = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *r->pending);
	r->waiter = gt_fault_hit("alloc") ? NULL : malloc(n * sizeof *r->waiter);
	r->cursor = gt_fault_hit("alloc") ? NULL : malloc(tracks * sizeof *r->cursor);
	r->ready = gt_fault_hit("alloc") ? NULL : malloc(tracks * sizeof *r->ready);
	if (!r->pending || !r->waiter || !r->cursor || !r->ready)
		return gt_fail(err, GT_EINPUT, "cpm: out of memory for the float of %u points", g->n);
	if (in_edges_build(g, &r->ie, err) < 0)
		return -1;
	for (uint32_t v = 0; v < g->n; v++)
		lt[v] = g->horizon;
	for (uint32_t e = 0; e < g->m; e++)
		r->pending[g->edge_src[e]]++;
	for (uint32_t k = 0; k < g->tracks; k++) {
		r->cursor[k] = g->chain_start[k + 1];
		if (g->chain_start[k] < g->chain_start[k + 1]) {
			r->unfinished_tracks++;
			r->ready[r->nready++] = k;
		}
	}
	return 0;
}

int gt_cpm_float_host(const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err)
{
	if (gt_cpm_check_float(g, err) < 0)
		return -1;
	float_run r;
	int rc = float_run_init(&r, g, lt, err);
	while (rc == 0) {
		drain_ready(&r);
		if (!r.unfinished_tracks)
			break;
		rc = resolve_stall(&r, err);
	}
	float_run_free(&r);
	if (rc == 0 && stats)
		stats->rounds = 1;
	return rc;
}
