/* The float in pieces (cpm_cl_float.c): cuts in time across a graph with
 * one T, so that a window of thousands of dependent steps floats in a few
 * rounds instead of two per synchronize.
 *
 * Edges never go back in time, so a cut at time tau splits the points
 * into those before and after it, and a path crosses it at most once. The
 * cut's frontier F is the set of targets (chain positions) of the edges
 * that cross it: every path from before the cut to after it enters at a
 * point of F. Cuts are kept only where F is small: at most a cap of
 * edges cross them, the cap (a power of two up to max_width) that makes
 * the runs below cheapest, (width + 2) times the largest block's
 * positions. Blocks are the points between two kept cuts.
 *
 * LT is min-plus linear in the LT of a block's exits: for y in block b,
 *   LT(y) = min(T + A(y), min over z in F_b of LT(z) + W_z(y)),
 * A(y) <= 0 the float inside the block with 0 at the tracks' tails and
 * nothing beyond the block, W_z(y) <= 0 the same with 0 at exit z alone
 * (either "none", > 0, where no path leads there). The device computes A
 * and one W per frontier slot in every block at once, each in the rounds
 * of one block alone, then walks the cuts from the last one back
 * (cpm_frontier_walk, O(cuts * width^2)), giving the exact LT of every
 * frontier point; a last run of the plain float with those LT fixed at the
 * exits gives every point's.
 *
 * Of the cuts that qualify, only enough are kept that two neighbouring
 * blocks together hold more than width (width + 1) / 8 positions: the
 * runs' values at the frontiers then take at most 16 longs per point. */
#ifndef GT_CPM_FLOAT_PLAN_H
#define GT_CPM_FLOAT_PLAN_H

#include <stdint.h>

#include "cpm.h"

typedef struct cpm_float_plan {
	uint32_t cuts;      /* C: blocks 0..C, cut c between blocks c and c + 1 */
	uint32_t width;     /* the largest frontier */
	uint32_t *blk;      /* per position: its block */
	int64_t *exit_lag;  /* per position: the lag of its chain link where a cut breaks it, else -1 */
	uint32_t *fr_first; /* C + 1 offsets into fr_pos */
	uint32_t *fr_pos;   /* each cut's frontier, positions ascending */
} cpm_float_plan;

/* The plan for g, whose cross edges by source position are out_start and
 * out_dst (targets as positions), from about `candidates` cuts evenly
 * spaced in time: 0 with a plan, 1 where no cut qualifies or the plan
 * would not pay (nothing allocated), -1 out of memory (err). It pays where
 * its runs, (width + 2) times the largest block's positions, times gain,
 * are at most the points (as one piece's rounds would be about the
 * points' share of the largest block where the synchronizes are spread
 * evenly); gain 0 takes any plan. The rule is decided from the grid's
 * counts, before the blocks and frontiers are built. */
int cpm_float_plan_build(const gt_cpm_graph *g, const uint32_t *out_start, const uint32_t *out_dst,
			 uint32_t candidates, uint32_t max_width, uint32_t gain, cpm_float_plan *p, gt_error *err);
void cpm_float_plan_free(cpm_float_plan *p);

#endif
