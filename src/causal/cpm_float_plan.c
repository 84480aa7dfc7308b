/* The cuts of the float in pieces (cpm_float_plan.h): where they go, and
 * each cut's frontier. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpm_float_plan.h"

#define VALS_PER_POINT 16

typedef struct plan_edges {
	const gt_cpm_graph *g;
	const uint32_t *out_start, *out_dst;
} plan_edges;

static int64_t pos_time(const gt_cpm_graph *g, uint32_t i)
{
	return g->time[g->chain[i]];
}

/* Calls fn(ctx, src, dst) for every edge by position: each chain link,
 * then each cross edge. */
static void each_edge(const plan_edges *e, void (*fn)(void *ctx, uint32_t src, uint32_t dst), void *ctx)
{
	const gt_cpm_graph *g = e->g;
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t i = g->chain_start[k]; i + 1 < g->chain_start[k + 1]; i++)
			fn(ctx, i, i + 1);
	for (uint32_t i = 0; i < g->n; i++)
		for (uint32_t s = e->out_start[i]; s < e->out_start[i + 1]; s++)
			fn(ctx, i, e->out_dst[s]);
}

/* Candidate k (1..nc) sits at t_min + (k << shift); a point at t lies
 * after candidates 1..cand_le(t). */
typedef struct grid {
	const gt_cpm_graph *g;
	int64_t t_min;
	unsigned shift;
	uint32_t nc;
	int64_t *diff; /* nc + 2: crossings, as differences */
} grid;

static uint32_t cand_le(const grid *d, int64_t t)
{
	return (uint32_t)((uint64_t)(t - d->t_min) >> d->shift);
}

static void count_crossing(void *ctx, uint32_t src, uint32_t dst)
{
	grid *d = ctx;
	uint32_t a = cand_le(d, pos_time(d->g, src)), b = cand_le(d, pos_time(d->g, dst));
	if (b > a) {
		d->diff[a + 1]++;
		d->diff[b + 1]--;
	}
}

typedef struct fill {
	const uint32_t *blk;
	uint32_t *count, *slot, *pos; /* pos NULL: counting */
} fill;

static void add_to_frontiers(void *ctx, uint32_t src, uint32_t dst)
{
	fill *f = ctx;
	for (uint32_t c = f->blk[src]; c < f->blk[dst]; c++) {
		if (f->pos)
			f->pos[f->slot[c]++] = dst;
		else
			f->count[c]++;
	}
}

/* Sorts each frontier and drops repeats, compacting fr_pos. */
static uint32_t sort_frontiers(cpm_float_plan *p, const uint32_t *count)
{
	uint32_t out = 0, at = 0, width = 0;
	for (uint32_t c = 0; c < p->cuts; c++) {
		uint32_t *a = p->fr_pos + at, k = count[c];
		for (uint32_t i = 1; i < k; i++)
			for (uint32_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
				uint32_t t = a[j];
				a[j] = a[j - 1];
				a[j - 1] = t;
			}
		p->fr_first[c] = out;
		for (uint32_t i = 0; i < k; i++)
			if (i == 0 || a[i] != a[i - 1])
				p->fr_pos[out++] = a[i];
		at += k;
		width = out - p->fr_first[c] > width ? out - p->fr_first[c] : width;
	}
	p->fr_first[p->cuts] = out;
	return width;
}

void cpm_float_plan_free(cpm_float_plan *p)
{
	free(p->blk);
	free(p->exit_lag);
	free(p->fr_first);
	free(p->fr_pos);
	memset(p, 0, sizeof *p);
}

/* Turns the differences into each candidate's crossings (diff[k]), and
 * counts the positions after candidate j and before j + 1 (hist[j]). */
static void tally(grid *d, uint32_t *hist)
{
	for (uint32_t k = 1; k <= d->nc; k++)
		d->diff[k] += d->diff[k - 1];
	for (uint32_t i = 0; i < d->g->n; i++)
		hist[cand_le(d, pos_time(d->g, i))]++;
}

/* For the cap w (a candidate is kept where at most w edges cross it):
 * the most positions a block holds, and the most crossings kept in *most. */
static uint32_t largest_block(const grid *d, const uint32_t *hist, int64_t w, int64_t *most)
{
	uint32_t largest = 0, acc = hist[0];
	*most = -1;
	for (uint32_t k = 1; k <= d->nc; k++) {
		if (d->diff[k] <= w) {
			largest = acc > largest ? acc : largest;
			acc = 0;
			*most = d->diff[k] > *most ? d->diff[k] : *most;
		}
		acc += hist[k];
	}
	return acc > largest ? acc : largest;
}

/* The cap up to max_width (powers of two) whose runs cost least: width + 2
 * runs, each as long as the largest block; 0 where none keeps a cut. */
static int64_t choose_cap(const grid *d, const uint32_t *hist, uint32_t max_width)
{
	int64_t best = 0;
	uint64_t best_cost = UINT64_MAX;
	for (int64_t w = 1; w <= max_width; w *= 2) {
		int64_t most;
		uint64_t cost = (uint64_t)largest_block(d, hist, w, &most);
		cost *= (uint64_t)(most + 2);
		if (most >= 0 && cost < best_cost) {
			best_cost = cost;
			best = w;
		}
	}
	return best;
}

/* Keeps, of the candidates that at most cap edges cross, only enough that
 * two neighbouring blocks together hold more than `target` positions:
 * rank[k], the kept ones among 1..k. Every cut costs the walk over the
 * cuts (its frontier's width slots times the next one's) and device
 * memory for its runs' values, while a block merged with its neighbour
 * costs rounds only where it becomes the hardest. The greedy choice (cut
 * at the last candidate before the block would overflow) keeps the
 * fewest. */
static uint32_t keep_cuts(const grid *d, const uint32_t *hist, int64_t cap, uint64_t target, uint32_t *rank,
			  uint64_t *largest)
{
	uint64_t open = 0, seg = hist[0];
	uint32_t pending = 0;
	memset(rank, 0, ((size_t)d->nc + 1) * sizeof *rank);
	*largest = 0;
	for (uint32_t k = 1; k <= d->nc + 1; k++) {
		if (k > d->nc || d->diff[k] <= cap) { /* past the last: the final block */
			if (pending && open + seg > target) {
				rank[pending] = 1;
				*largest = open > *largest ? open : *largest;
				open = 0;
			}
			open += seg;
			pending = k;
			seg = 0;
		}
		if (k <= d->nc)
			seg += hist[k];
	}
	*largest = open > *largest ? open : *largest;
	for (uint32_t k = 1; k <= d->nc; k++)
		rank[k] += rank[k - 1];
	return rank[d->nc];
}

static int plan_fail(cpm_float_plan *p, grid *d, uint32_t *rank, uint32_t *count, gt_error *err)
{
	cpm_float_plan_free(p);
	free(d->diff);
	free(rank);
	free(count);
	return gt_fail(err, GT_EDEVICE, "cpm: out of memory for the float's cuts");
}

int cpm_float_plan_build(const gt_cpm_graph *g, const uint32_t *out_start, const uint32_t *out_dst,
			 uint32_t candidates, uint32_t max_width, uint32_t gain, cpm_float_plan *p, gt_error *err)
{
	memset(p, 0, sizeof *p);
	int64_t t_min = INT64_MAX, t_max = INT64_MIN;
	for (uint32_t k = 0; k < g->tracks; k++)
		if (g->chain_start[k] < g->chain_start[k + 1]) {
			int64_t a = pos_time(g, g->chain_start[k]), b = pos_time(g, g->chain_start[k + 1] - 1);
			t_min = a < t_min ? a : t_min;
			t_max = b > t_max ? b : t_max;
		}
	if (candidates == 0 || t_min >= t_max)
		return 1;
	grid d = {.g = g, .t_min = t_min};
	uint64_t span = (uint64_t)(t_max - t_min); /* at most 2^62: gt_cpm_check */
	while ((span >> d.shift) > candidates)
		d.shift++;
	d.nc = (uint32_t)(span >> d.shift);
	plan_edges e = {g, out_start, out_dst};
	uint32_t *rank = NULL, *count = NULL;
	d.diff = calloc((size_t)d.nc + 2, sizeof *d.diff);
	rank = malloc(((size_t)d.nc + 1) * sizeof *rank);
	if (!d.diff || !rank)
		return plan_fail(p, &d, rank, count, err);
	each_edge(&e, count_crossing, &d);
	uint32_t *hist = calloc((size_t)d.nc + 1, sizeof *hist);
	if (!hist)
		return plan_fail(p, &d, rank, count, err);
	tally(&d, hist);
	int64_t cap = choose_cap(&d, hist, max_width), most = 0;
	if (cap)
		largest_block(&d, hist, cap, &most);
	/* Two neighbouring blocks hold more than target positions together,
	 * so there are at most 2n / target cuts, and the width + 1 runs'
	 * values at the frontiers (at most width a cut) take at most
	 * VALS_PER_POINT longs per point. */
	uint64_t target = (uint64_t)most * ((uint64_t)most + 1) * 2 / VALS_PER_POINT;
	uint64_t largest = 0;
	p->cuts = cap ? keep_cuts(&d, hist, cap, target ? target : 1, rank, &largest) : 0;
	free(hist);
	/* the cost rule, from the grid's counts before anything is built:
	 * most + 2 (at least the width + 2) runs as long as the largest block */
	if (gain && ((uint64_t)most + 2) * largest * gain > g->n)
		p->cuts = 0;
	if (p->cuts == 0) {
		free(d.diff);
		free(rank);
		return 1;
	}
	p->blk = malloc((size_t)g->n * sizeof *p->blk);
	p->exit_lag = malloc((size_t)g->n * sizeof *p->exit_lag);
	p->fr_first = malloc(((size_t)p->cuts + 1) * sizeof *p->fr_first);
	count = calloc((size_t)p->cuts + 1, sizeof *count);
	if (!p->blk || !p->exit_lag || !p->fr_first || !count)
		return plan_fail(p, &d, rank, count, err);
	for (uint32_t i = 0; i < g->n; i++)
		p->blk[i] = rank[cand_le(&d, pos_time(g, i))];
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t i = g->chain_start[k]; i < g->chain_start[k + 1]; i++) {
			bool cut = i + 1 < g->chain_start[k + 1] && p->blk[i] != p->blk[i + 1];
			p->exit_lag[i] = !cut ? -1 : g->work[i] ? pos_time(g, i + 1) - pos_time(g, i) : 0;
		}
	fill f = {.blk = p->blk, .count = count};
	each_edge(&e, add_to_frontiers, &f);
	uint32_t total = 0;
	for (uint32_t c = 0; c < p->cuts; c++) {
		p->fr_first[c] = total; /* the fill's slots, for now */
		total += count[c];
	}
	p->fr_pos = malloc((total ? total : 1) * sizeof *p->fr_pos);
	if (!p->fr_pos)
		return plan_fail(p, &d, rank, count, err);
	f.slot = p->fr_first;
	f.pos = p->fr_pos;
	each_edge(&e, add_to_frontiers, &f);
	p->width = sort_frontiers(p, count);
	free(d.diff);
	free(rank);
	free(count);
	return 0;
}
