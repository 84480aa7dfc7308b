/* Sequences that come as a few sorted runs put in order by merging the
 * runs, O(n log runs) instead of a sort: a profiler's exporter often
 * writes a thread's spans kind after kind, each kind in time order. */
#ifndef GT_MERGE_RUNS_H
#define GT_MERGE_RUNS_H

#include <stdbool.h>
#include <stdint.h>

/* At most this many runs are merged; more: the caller sorts. */
#define GT_MERGE_RUNS_MAX 16

/* before(ctx, a, b): whether item a goes strictly before item b, a strict
 * total order (break ties by id). */
typedef bool (*gt_run_order)(const void *ctx, uint32_t a, uint32_t b);

/* The number of runs of v[0, n) in order (1: sorted), counted up to
 * GT_MERGE_RUNS_MAX + 1; run[] (GT_MERGE_RUNS_MAX + 2 entries) gets each
 * run's first position. */
uint32_t gt_find_runs(const uint32_t *v, uint32_t n, gt_run_order before, const void *ctx, uint32_t *run);

/* v in order, from the runs gt_find_runs found (at most
 * GT_MERGE_RUNS_MAX), merged pairwise; tmp holds n items. run[] is
 * overwritten. */
void gt_merge_runs(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t *run, uint32_t runs, gt_run_order before,
		   const void *ctx);

/* The same two on up to `threads` threads (gt_run_jobs), with the same
 * results. The merge cuts the output into parts at splitters sampled from
 * the items, finds each part's share of every run by binary search, and
 * merges the parts side by side. */
uint32_t gt_find_runs_threads(const uint32_t *v, uint32_t n, gt_run_order before, const void *ctx, uint32_t *run,
			      unsigned threads);
void gt_merge_runs_threads(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t *run, uint32_t runs, gt_run_order before,
			   const void *ctx, unsigned threads);

#endif
