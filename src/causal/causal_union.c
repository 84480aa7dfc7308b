/* Several windows' graphs as one disjoint union (causal_internal.h): one
 * engine call per step for all of them instead of one per window, which
 * on a device is thousands of launches fewer, and whose float rounds
 * follow the longest window's cross hops only once. Windows share no
 * point, so the steps' results on the union are each window's own,
 * shifted: the per-window summary comes from the window's rows. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

void causal_union_free(causal_union *u)
{
	gt_big_free(u->point_base);
	gt_big_free(u->edge_base);
	gt_big_free(u->time);
	gt_big_free(u->horizon);
	gt_big_free(u->chain);
	gt_big_free(u->chain_start);
	gt_big_free(u->edge_src);
	gt_big_free(u->edge_dst);
	gt_big_free(u->work);
	gt_big_free(u->edge_kind);
	memset(u, 0, sizeof *u);
}

void causal_union_drop_bound(causal_union *u, causal_graph *g, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		gt_big_free(g[i].chain), gt_big_free(g[i].work);
		gt_big_free(g[i].edge_src), gt_big_free(g[i].edge_dst);
		g[i].chain = g[i].edge_src = g[i].edge_dst = NULL;
		g[i].work = NULL;
	}
	gt_big_free(u->chain), gt_big_free(u->work);
	gt_big_free(u->edge_src), gt_big_free(u->edge_dst);
	u->chain = u->edge_src = u->edge_dst = NULL;
	u->work = NULL;
	u->cpm.chain = u->cpm.edge_src = u->cpm.edge_dst = NULL;
	u->cpm.work = NULL;
}

/* Window i's arrays into the union's, ids offset. */
static void copy_window(causal_union *u, const causal_graph *g, uint32_t i, uint32_t track_base)
{
	uint32_t pb = u->point_base[i], eb = u->edge_base[i];
	memcpy(u->time + pb, g->time, (size_t)g->n * sizeof *g->time);
	memcpy(u->work + pb, g->work, g->n);
	for (uint32_t p = 0; p < g->n; p++)
		u->chain[pb + p] = g->chain[p] + pb;
	for (uint32_t k = 0; k < g->tracks; k++) {
		u->chain_start[track_base + k] = g->chain_start[k] + pb;
		u->horizon[track_base + k] = g->last_time;
	}
	for (uint32_t e = 0; e < g->m; e++) {
		u->edge_src[eb + e] = g->edge_src[e] + pb;
		u->edge_dst[eb + e] = g->edge_dst[e] + pb;
	}
	memcpy(u->edge_kind + eb, g->edge_kind, g->m);
}

int causal_union_build(causal_union *u, const causal_graph *g, uint32_t count, gt_error *err)
{
	memset(u, 0, sizeof *u);
	u->count = count;
	u->point_base = alloc((size_t)count + 1, sizeof *u->point_base);
	u->edge_base = alloc((size_t)count + 1, sizeof *u->edge_base);
	if (!u->point_base || !u->edge_base)
		return gt_fail(err, GT_EINPUT, "out of memory joining %u windows", count);
	uint64_t n = 0, m = 0, tracks = 0;
	for (uint32_t i = 0; i < count; i++) {
		u->point_base[i] = (uint32_t)n;
		u->edge_base[i] = (uint32_t)m;
		n += g[i].n, m += g[i].m, tracks += g[i].tracks;
		if (n > GT_CP_MAX_ROWS || m > UINT32_MAX || tracks > UINT32_MAX - 1)
			return gt_fail(err, GT_EINPUT, "%u windows hold more than %u points", count, GT_CP_MAX_ROWS);
	}
	u->point_base[count] = (uint32_t)n;
	u->edge_base[count] = (uint32_t)m;
	if (count == 1) {
		u->cpm = (gt_cpm_graph){.n = g->n, .time = g->time, .tracks = g->tracks, .chain = g->chain,
					.chain_start = g->chain_start, .work = g->work, .m = g->m, .edge_src = g->edge_src,
					.edge_dst = g->edge_dst, .edge_kind = g->edge_kind, .horizon = g->last_time};
		return 0;
	}
	u->time = alloc(n, sizeof *u->time);
	u->work = alloc(n, sizeof *u->work);
	u->chain = alloc(n, sizeof *u->chain);
	u->chain_start = alloc(tracks + 1, sizeof *u->chain_start);
	u->horizon = alloc(tracks, sizeof *u->horizon);
	u->edge_src = alloc(m, sizeof *u->edge_src);
	u->edge_dst = alloc(m, sizeof *u->edge_dst);
	u->edge_kind = alloc(m, sizeof *u->edge_kind);
	if (!u->time || !u->work || !u->chain || !u->chain_start || !u->horizon || !u->edge_src || !u->edge_dst ||
	    !u->edge_kind)
		return gt_fail(err, GT_EINPUT, "out of memory joining %u windows of %llu points", count,
			       (unsigned long long)n);
	uint32_t track_base = 0;
	for (uint32_t i = 0; i < count; i++) {
		copy_window(u, &g[i], i, track_base);
		track_base += g[i].tracks;
	}
	u->chain_start[tracks] = (uint32_t)n;
	u->cpm = (gt_cpm_graph){.n = (uint32_t)n, .time = u->time, .tracks = (uint32_t)tracks, .chain = u->chain,
				.chain_start = u->chain_start, .work = u->work, .m = (uint32_t)m, .edge_src = u->edge_src,
				.edge_dst = u->edge_dst, .edge_kind = u->edge_kind, .horizon_of_chain = u->horizon};
	return 0;
}

/* The longest path_duration of each range of rows (ties: the lowest
 * row), and whether a row there is invalid; range j is rows
 * [n j / k, n (j + 1) / k). */
typedef struct longest_ranges {
	const causal_steps *v;
	uint32_t n;
	unsigned k;
	int64_t best[GT_MAX_JOBS];
	uint32_t at[GT_MAX_JOBS];
	bool invalid[GT_MAX_JOBS];
} longest_ranges;

typedef struct range_index {
	longest_ranges *lr;
	unsigned j;
} range_index;

static void *longest_range(void *arg)
{
	range_index *ri = arg;
	longest_ranges *lr = ri->lr;
	unsigned j = ri->j;
	uint32_t a = (uint32_t)((uint64_t)lr->n * j / lr->k), b = (uint32_t)((uint64_t)lr->n * (j + 1) / lr->k);
	int64_t best = 0;
	uint32_t at = GT_CP_NONE;
	bool invalid = false;
	for (uint32_t p = a; p < b; p++) {
		int64_t d = lr->v->rows.path_duration[p];
		if (d < 0)
			invalid = true;
		else if (at == GT_CP_NONE || d > best)
			best = d, at = p;
	}
	lr->best[j] = best, lr->at[j] = at, lr->invalid[j] = invalid;
	return NULL;
}

/* forest.h's summary of rows [0, n) taken alone: a row's outputs depend
 * on its own chain only, so the union's rows are the window's. A row left
 * invalid (a zero-gap cycle, or an overflow) does not tell which: then
 * the window alone is run again for its flags (the gaps are there: the
 * steps fill them where a row is invalid). One large window's rows are
 * read in ranges on threads, the ranges' longest taken in order. */
static int window_summary(const causal_steps *v, uint32_t n, unsigned threads, gt_cp_summary *sum, gt_error *err)
{
	*sum = (gt_cp_summary){0, GT_CP_NONE, 0, 0, 0, 0};
	bool invalid = false;
	longest_ranges lr = {v, n, causal_range_jobs(n, threads), {0}, {0}, {0}};
	range_index ri[GT_MAX_JOBS];
	for (unsigned j = 0; j < lr.k; j++)
		ri[j] = (range_index){&lr, j};
	gt_run_jobs(longest_range, ri, sizeof *ri, lr.k);
	for (unsigned j = 0; j < lr.k; j++) {
		invalid |= lr.invalid[j];
		if (lr.at[j] != GT_CP_NONE && (sum->endpoint == GT_CP_NONE || lr.best[j] > sum->max_path_duration))
			sum->max_path_duration = lr.best[j], sum->endpoint = lr.at[j];
	}
	if (!invalid)
		return 0;
	uint32_t *parent = alloc(n, sizeof *parent);
	gt_cp_rows rows = {0};
	int rc = parent ? gt_cp_rows_alloc(&rows, n, err) : gt_fail(err, GT_EINPUT, "out of memory for %u rows", n);
	for (uint32_t p = 0; rc == 0 && p < n; p++)
		parent[p] = v->bind.parent[p] == GT_CP_ROOT ? GT_CP_ROOT : v->bind.parent[p] - v->point_base;
	if (rc == 0)
		rc = gt_critpath_host(parent, v->bind.gap, n, NULL, &rows, sum, err);
	gt_big_free(parent);
	gt_cp_rows_free(&rows);
	return rc;
}

int causal_union_view(const causal_union *u, const causal_steps *s, uint32_t i, bool with_summary,
		      unsigned threads, causal_steps *view, gt_error *err)
{
	uint32_t pb = u->point_base[i], n = u->point_base[i + 1] - pb;
	*view = (causal_steps){
		.bind = {s->bind.parent + pb, s->bind.gap ? s->bind.gap + pb : NULL, s->bind.kind + pb,
			 s->bind.edge + pb},
		.rows = {.path_duration = s->rows.path_duration + pb},
		.lt = s->lt ? s->lt + pb : NULL,
		.point_base = pb,
		.edge_base = u->edge_base[i],
	};
	return with_summary ? window_summary(view, n, threads, &view->sum, err) : 0;
}
