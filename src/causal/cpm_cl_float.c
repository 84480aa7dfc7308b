/* CPM float on an OpenCL device (kernels/cpm.cl).
 *
 * LT lives by chain position, so each track is a contiguous segment.
 * The host builds a CSR of the cross edges by source position (counting
 * sort), with targets as positions: every position reduces its own
 * out-edges, and no 64-bit atomics are needed. LT starts at T of the
 * position's track (a per-track array; setup finds the track by a binary
 * search), and so does c0, each position's constant bound, at a tail (a
 * lag of -1). A round:
 *   1. relax_reduce: c_i = min(c0_i, min over i's cross out-edges of
 *      LT(dst)) (T reaches the other positions through the chain: lags are
 *      >= 0);
 *      then each work-group (L work-items of ITEMS positions each) composes
 *      its positions' links (below) into one;
 *   2. scan_groups: one work-group scans the groups' links from the right:
 *      the LT entering each group from its right neighbour;
 *   3. scan_apply: within each group the same suffix scan, from that
 *      entering LT: every position's new LT, written where it changed, and
 *      a flag set when any did.
 * Steps 2 and 3 are the per-track backward segmented suffix-min scan
 *   LT(p_i) = S_i + min over j >= i on the track of (c_j - S_j),
 * S the track's prefix sum of lags (work gap or 0), computed as a
 * composition of links: position i maps x = LT(p_{i+1}) to min(c_i, x -
 * lag_i), or to c_i at the track's tail. Links compose to min(a, x - b)
 * (or a constant), exactly and associatively, with no intermediate below
 * T - 2 * span (gt_cpm_check_float asks that to fit in int64).
 * Rounds repeat until one changes nothing; fs->rounds counts them all, the
 * last included. Values start at T and only decrease, each round applying
 * the monotone LT operator in full (Jacobi: relax reads the previous
 * round's LT), so they reach the greatest fixed point at most T, which is
 * what the host's single pass computes: byte-identical. Round r is exact
 * for every point whose best path crosses at most r - 1 cross edges; a best
 * path never needs an edge twice (cycles are zero-gap), so at most m + 2
 * rounds run. Per round: 3 launches, a 4-byte fill and a 4-byte read.
 *
 * Cost: rounds times one pass over the positions. A round carries LT
 * across one cross edge, so the rounds follow the cross edges on the best
 * paths, not the size: a few where the CPU side decides (bench_cpm: 15 at
 * 1M points), but a trace whose best paths alternate between threads and
 * streams at every synchronize needs about two rounds per synchronize
 * (bench_cpm --streams 32: 541 at 1M points).
 *
 * In pieces (cpm_float_plan.h), where the graph has one T and its float
 * is large enough to pay for it: cuts in time where few edges cross,
 * then the same rounds run in every block at once, a cut breaking each
 * chain link and cross edge that crosses it (relax skips the targets in
 * other blocks; bounds folds them into c0): once with 0 at the tails, and
 * once per frontier slot with 0 at that exit, each from LT = +inf (LONG_MAX;
 * these runs' values are <= 0 where a path leads, so anything above 0 is
 * "none", and no value goes below -span). Their LT at the frontiers is
 * gathered on the device, where one work-group walks the cuts back to the
 * exact LT of every frontier point (only each round's flag comes back);
 * a last run from T with those LT bound at the exits gives every
 * point's, the greatest fixed point as in one piece: a block's LT given
 * its exits is the greatest fixed point of the block alone (paths never go
 * back across a cut), and zero-gap cycles never cross one (equal times lie
 * in one block). Rounds: (width + 2) times the rounds of the hardest
 * block, not the rounds of the whole window.
 */
#include <stdlib.h>
#include <string.h>

#include "cpm_cl_run.h"
#include "cpm_float_plan.h"
#include "base/base.h"

#define CHANGED_BYTES 4
/* Pieces: cuts tried (about one per 16 points, at most this many), and
 * the largest frontier kept. GPUTRACE_FLOAT_CUTS and GPUTRACE_FLOAT_WIDTH
 * set them (0 cuts: one piece), for tests and measurements. */
#define PIECES_FROM_POINTS (1u << 16)
#define PIECES_CUTS (1u << 16)
#define PIECES_WIDTH 64
#define PIECES_GAIN 4 /* the rounds pieces must save, at least, by the estimate below */

enum { FK_MARK, FK_SETUP, FK_RELAX, FK_GROUPS, FK_APPLY, FK_SCATTER, FK_BOUNDS, FK_GATHER, FK_WALK, FK_COUNT };
static const char *const float_kernel_names[FK_COUNT] = {
	"cpm_mark_tracks", "cpm_float_setup", "cpm_relax_reduce", "cpm_scan_groups", "cpm_scan_apply",
	"cpm_scatter",     "cpm_block_bounds", "cpm_gather",      "cpm_frontier_walk",
};

/* Uploaded: FB_CHAIN .. FB_FR_POS (the plan's four empty in one piece). */
enum { FB_CHAIN, FB_FLAGS, FB_TIME, FB_STARTS, FB_OUT_START, FB_OUT_DST, FB_HORIZON, FB_BLK, FB_EXIT_LAG,
       FB_FR_FIRST, FB_FR_POS, FB_LAG, FB_LT, FB_C, FB_C0, FB_AGG_A, FB_AGG_B, FB_AGG_F, FB_ENTER, FB_CHANGED,
       FB_FR_VAL, FB_VALS, FB_COUNT };

enum { MODE_TAILS, MODE_SLOT, MODE_FINAL }; /* as in the kernel */

/* Link scratch per work-item: a, b (long) and f (int). */
#define LINK_BYTES (8 + 8 + 4)

typedef struct {
	const gt_cpm_graph *g;
	cl_kernel *k;
	cl_mem *b;
	cl_uint n, groups, tracks;
	const int64_t *horizon; /* T per track */
	const cpm_float_plan *plan; /* NULL: one piece */
	int64_t T;                  /* in pieces: the one horizon */
	uint32_t rounds;            /* so far, every run's */
} float_job;

static int float_setup(cpm_run *r, const float_job *j, const by_source *s)
{
	const gt_cpm_graph *g = j->g;
	uint64_t n = g->n, m = g->m, groups = j->groups;
	uint64_t sizes[FB_COUNT] = {
		[FB_CHAIN] = 4 * n, [FB_FLAGS] = n, [FB_TIME] = 8 * n, [FB_STARTS] = 4ull * (g->tracks + 1),
		[FB_OUT_START] = 4 * (n + 1), [FB_OUT_DST] = 4 * m, [FB_HORIZON] = 8ull * g->tracks,
		[FB_LAG] = 8 * n, [FB_LT] = 8 * n,
		[FB_C] = 8 * n, [FB_AGG_A] = 8 * groups, [FB_AGG_B] = 8 * groups, [FB_AGG_F] = 4 * groups,
		[FB_ENTER] = 8 * groups, [FB_CHANGED] = CHANGED_BYTES, [FB_C0] = 8 * n,
	};
	const cpm_float_plan *p = j->plan;
	uint64_t cuts = p ? p->cuts : 0, frontier = p ? p->fr_first[p->cuts] : 0;
	sizes[FB_BLK] = p ? 4 * n : 0;
	sizes[FB_EXIT_LAG] = p ? 8 * n : 0;
	sizes[FB_FR_FIRST] = p ? 4 * (cuts + 1) : 0;
	sizes[FB_FR_POS] = 4 * frontier;
	sizes[FB_FR_VAL] = 8 * frontier;
	sizes[FB_VALS] = 8 * frontier * (p ? p->width + 1ull : 0);
	cl_mem *b = j->b;
	if (cpm_create_buffers(r, sizes, b, FB_COUNT, "float", g->n) < 0)
		return -1;
	const void *src[FB_COUNT] = {
		[FB_CHAIN] = g->chain, [FB_FLAGS] = g->work, [FB_TIME] = g->time, [FB_STARTS] = g->chain_start,
		[FB_OUT_START] = s->start, [FB_OUT_DST] = s->dst, [FB_HORIZON] = j->horizon,
		[FB_BLK] = p ? p->blk : NULL, [FB_EXIT_LAG] = p ? p->exit_lag : NULL,
		[FB_FR_FIRST] = p ? p->fr_first : NULL, [FB_FR_POS] = p ? p->fr_pos : NULL,
	};
	for (int i = 0; i <= FB_FR_POS; i++)
		if (cpm_upload(r, b[i], src[i], sizes[i]) < 0)
			return -1;
	if (cpm_mark_tracks(r, j->k[FK_MARK], g, b[FB_STARTS], b[FB_FLAGS]) < 0)
		return -1;
	if (cpm_set_args(r, j->k[FK_SETUP], "cpm_float_setup", 10, ARG(j->n), ARG(j->tracks), ARG(b[FB_STARTS]),
			 ARG(b[FB_HORIZON]), ARG(b[FB_CHAIN]), ARG(b[FB_FLAGS]), ARG(b[FB_TIME]), ARG(b[FB_LAG]),
			 ARG(b[FB_C0]), ARG(b[FB_LT])) < 0)
		return -1;
	return cpm_launch(r, j->k[FK_SETUP], "cpm_float_setup", n, r->local,
			  n * (1 + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 8));
}

/* Arguments that stay the same every round. */
static int set_round_args(cpm_run *r, const float_job *j)
{
	cl_mem *b = j->b;
	size_t scratch = r->local * 8, flags = r->local * 4;
	cl_mem blk = j->plan ? b[FB_BLK] : NULL; /* one piece: relax takes every edge */
	return cpm_set_args(r, j->k[FK_RELAX], "cpm_relax_reduce", 14, ARG(j->n), ARG(b[FB_C0]), ARG(blk),
			    ARG(b[FB_OUT_START]), ARG(b[FB_OUT_DST]), ARG(b[FB_LAG]), ARG(b[FB_LT]), ARG(b[FB_C]),
			    ARG(b[FB_AGG_A]), ARG(b[FB_AGG_B]), ARG(b[FB_AGG_F]), LOCAL_ARG(scratch),
			    LOCAL_ARG(scratch), LOCAL_ARG(flags)) < 0 ||
	       cpm_set_args(r, j->k[FK_GROUPS], "cpm_scan_groups", 8, ARG(j->groups), ARG(b[FB_AGG_A]), ARG(b[FB_AGG_B]),
			ARG(b[FB_AGG_F]), ARG(b[FB_ENTER]), LOCAL_ARG(scratch), LOCAL_ARG(scratch),
			LOCAL_ARG(flags)) < 0 ||
	       cpm_set_args(r, j->k[FK_APPLY], "cpm_scan_apply", 9, ARG(j->n), ARG(b[FB_C]), ARG(b[FB_LAG]),
			ARG(b[FB_ENTER]), ARG(b[FB_LT]), ARG(b[FB_CHANGED]), LOCAL_ARG(scratch), LOCAL_ARG(scratch),
			LOCAL_ARG(flags)) < 0
		       ? -1
		       : 0;
}

/* One round; *changed says whether any LT moved. */
static int float_round(cpm_run *r, const float_job *j, bool *changed)
{
	uint64_t n = j->n, m = j->g->m, groups = j->groups, items = groups * r->local;
	cl_int zero = 0, flag = 0;
	cl_int e = clEnqueueFillBuffer(r->q, j->b[FB_CHANGED], &zero, sizeof zero, 0, CHANGED_BYTES, 0, NULL, NULL);
	if (gt_cl_check(r->cl, e, "clEnqueueFillBuffer", r->err) < 0)
		return -1;
	/* relax: out-edge range, lag, c out; per edge its target and LT.
	 * apply: c, lag and LT read, LT written (counted as if all changed) */
	if (cpm_launch(r, j->k[FK_RELAX], "cpm_relax_reduce", items, r->local, n * 24 + m * 12 + groups * 20) < 0 ||
	    cpm_launch(r, j->k[FK_GROUPS], "cpm_scan_groups", r->local, r->local, groups * 48) < 0 ||
	    cpm_launch(r, j->k[FK_APPLY], "cpm_scan_apply", items, r->local, n * 32 + groups * 8) < 0)
		return -1;
	if (cpm_download(r, j->b[FB_CHANGED], &flag, sizeof flag, true) < 0)
		return -1;
	*changed = flag != 0;
	return 0;
}

/* Rounds until one changes nothing. */
static int run_rounds(cpm_run *r, float_job *j)
{
	uint64_t max_rounds = (uint64_t)j->g->m + 2;
	uint32_t rounds = 0;
	for (bool changed = true; changed;) {
		if (rounds == max_rounds)
			return gt_fail(r->err, GT_EDEVICE, "float did not converge in %u rounds on '%s'", rounds,
				       gt_cl_device_name(r->cl));
		if (float_round(r, j, &changed) < 0)
			return -1;
		rounds++;
	}
	j->rounds += rounds;
	return 0;
}

/* One run of the pieces: its constants, its rounds. */
static int pieces_run(cpm_run *r, float_job *j, cl_uint mode, cl_uint slot)
{
	cl_mem *b = j->b;
	cl_uint cuts = j->plan->cuts;
	cl_long T = j->T;
	if (cpm_set_args(r, j->k[FK_BOUNDS], "cpm_block_bounds", 16, ARG(j->n), ARG(mode), ARG(slot), ARG(cuts),
			 ARG(T), ARG(b[FB_FLAGS]), ARG(b[FB_BLK]), ARG(b[FB_EXIT_LAG]), ARG(b[FB_OUT_START]),
			 ARG(b[FB_OUT_DST]), ARG(b[FB_FR_FIRST]), ARG(b[FB_FR_POS]), ARG(b[FB_FR_VAL]),
			 ARG(b[FB_LAG]), ARG(b[FB_C0]), ARG(b[FB_LT])) < 0 ||
	    cpm_launch(r, j->k[FK_BOUNDS], "cpm_block_bounds", j->n, r->local,
		       (uint64_t)j->n * (1 + 4 + 8 + 4 + 8 + 8 + 8) + (uint64_t)j->g->m * 8) < 0)
		return -1;
	return run_rounds(r, j);
}

/* The runs at the frontiers (MODE_TAILS, then MODE_SLOT for each slot),
 * their LT there gathered, the walk over the cuts, and the last run with
 * the exits' LT. Nothing comes back but each round's flag. */
static int float_in_pieces(cpm_run *r, float_job *j)
{
	const cpm_float_plan *p = j->plan;
	cl_mem *b = j->b;
	cl_uint F = p->fr_first[p->cuts], cuts = p->cuts;
	cl_long T = j->T;
	for (uint32_t run = 0; run <= p->width; run++) {
		cl_ulong base = (cl_ulong)run * F;
		if (pieces_run(r, j, run ? MODE_SLOT : MODE_TAILS, run ? run - 1 : 0) < 0)
			return -1;
		if (F && (cpm_set_args(r, j->k[FK_GATHER], "cpm_gather", 5, ARG(F), ARG(base), ARG(b[FB_FR_POS]),
				       ARG(b[FB_LT]), ARG(b[FB_VALS])) < 0 ||
			  cpm_launch(r, j->k[FK_GATHER], "cpm_gather", F, r->local, 20ull * F) < 0))
			return -1;
	}
	/* the walk reads each slot's A and its W of the next frontier's slots */
	if (F && (cpm_set_args(r, j->k[FK_WALK], "cpm_frontier_walk", 9, ARG(cuts), ARG(F), ARG(T), ARG(b[FB_BLK]),
			       ARG(b[FB_FR_FIRST]), ARG(b[FB_FR_POS]), ARG(b[FB_VALS]), ARG(b[FB_FR_VAL]),
			       LOCAL_ARG(r->local * 8)) < 0 ||
		  cpm_launch(r, j->k[FK_WALK], "cpm_frontier_walk", r->local, r->local,
			     (uint64_t)F * (8ull * (p->width + 1) + 24)) < 0))
		return -1;
	return pieces_run(r, j, MODE_FINAL, 0);
}

static int float_on_device(cpm_run *r, float_job *j, const by_source *s, int64_t *lt, gt_cpm_float_stats *fs)
{
	if (float_setup(r, j, s) < 0 || set_round_args(r, j) < 0)
		return -1;
	if ((j->plan ? float_in_pieces(r, j) : run_rounds(r, j)) < 0)
		return -1;
	/* c is free now: it receives LT by point. */
	cl_mem *b = j->b;
	if (cpm_set_args(r, j->k[FK_SCATTER], "cpm_scatter", 4, ARG(j->n), ARG(b[FB_CHAIN]), ARG(b[FB_LT]),
			 ARG(b[FB_C])) < 0 ||
	    cpm_launch(r, j->k[FK_SCATTER], "cpm_scatter", j->n, r->local, 20ull * j->n) < 0 ||
	    cpm_download(r, b[FB_C], lt, 8ull * j->n, true) < 0)
		return -1;
	if (fs) {
		fs->rounds = j->rounds;
		fs->cuts = j->plan ? j->plan->cuts : 0;
		fs->width = j->plan ? j->plan->width : 0;
	}
	return 0;
}

static uint32_t env_or(const char *name, uint32_t fallback)
{
	const char *v = getenv(name);
	return v && *v ? (uint32_t)strtoul(v, NULL, 10) : fallback;
}

/* The pieces' plan where g has one T (*T) and is large enough (0), else
 * one piece (1), or -1 out of memory. */
static int plan_pieces(const gt_cpm_graph *g, const int64_t *horizon, const by_source *s, cpm_float_plan *p,
		       int64_t *T, gt_error *err)
{
	bool first = true;
	for (uint32_t t = 0; t < g->tracks; t++)
		if (g->chain_start[t] < g->chain_start[t + 1]) {
			if (!first && horizon[t] != *T)
				return 1;
			*T = horizon[t];
			first = false;
		}
	uint32_t fallback = g->n >= PIECES_FROM_POINTS ? (g->n / 16 < PIECES_CUTS ? g->n / 16 : PIECES_CUTS) : 0;
	const char *forced = getenv("GPUTRACE_FLOAT_CUTS");
	uint32_t cuts = env_or("GPUTRACE_FLOAT_CUTS", fallback), width = env_or("GPUTRACE_FLOAT_WIDTH", PIECES_WIDTH);
	/* Each of the width + 2 runs takes the rounds of the largest block,
	 * about its share of one piece's where the synchronizes are spread
	 * evenly: pieces pay where that share is small. */
	uint32_t gain = forced && *forced ? 0 : PIECES_GAIN;
	return width ? cpm_float_plan_build(g, s->start, s->dst, cuts, width, gain, p, err) : 1;
}

int gt_cpm_float_cl(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs,
		    gt_cpm_cl_stats *stats, gt_error *err)
{
	return cpm_float_cl(cl, g, false, lt, fs, stats, err);
}

int cpm_float_cl(gt_cl *cl, const gt_cpm_graph *g, bool shape_known, int64_t *lt, gt_cpm_float_stats *fs,
		 gt_cpm_cl_stats *stats, gt_error *err)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if ((shape_known ? gt_cpm_check_range(g, true, err) : gt_cpm_check_float(g, err)) < 0 ||
	    cpm_device_fits(cl, g, "float", err) < 0)
		return -1;
	if (g->n == 0) {
		if (fs)
			fs->rounds = 0;
		return 0;
	}
	cpm_run r = {.cl = cl, .q = gt_cl_queue(cl), .err = err};
	cl_kernel k[FK_COUNT] = {0};
	cl_mem b[FB_COUNT] = {0};
	by_source s = {0};
	int64_t *horizon = gt_fault_hit("alloc") ? NULL : malloc((size_t)g->tracks * sizeof *horizon);
	int rc = -1;
	if (!horizon) {
		gt_fail(err, GT_EDEVICE, "out of memory for %u tracks' horizons", g->tracks);
		goto done;
	}
	for (uint32_t t = 0; t < g->tracks; t++)
		horizon[t] = gt_cpm_horizon(g, t);
	if (cpm_by_source_build(g, &s, err) < 0 || cpm_get_kernels(&r, float_kernel_names, k, FK_COUNT) < 0 ||
	    cpm_choose_local(&r, k, FK_COUNT, LINK_BYTES) < 0)
		goto done;
	uint64_t tile = (uint64_t)r.local * ITEMS;
	cpm_float_plan plan = {0};
	int64_t T = 0;
	int pieces = plan_pieces(g, horizon, &s, &plan, &T, err);
	if (pieces < 0)
		goto done;
	float_job j = {.g = g, .k = k, .b = b, .n = g->n, .groups = (cl_uint)((g->n + tile - 1) / tile),
		       .tracks = g->tracks, .horizon = horizon, .plan = pieces == 0 ? &plan : NULL, .T = T};
	rc = float_on_device(&r, &j, &s, lt, fs);
	cpm_float_plan_free(&plan);
	if (rc == 0)
		cpm_fill_stats(&r, stats);
done:
	if (rc < 0)
		clFinish(r.q);
	cpm_run_free(&r, b, FB_COUNT, k, FK_COUNT);
	cpm_by_source_free(&s);
	free(horizon);
	return rc;
}

