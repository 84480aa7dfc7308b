/* Merging a few sorted runs (merge_runs.h). */
#include "merge_runs.h"

#include <string.h>

uint32_t gt_find_runs(const uint32_t *v, uint32_t n, gt_run_order before, const void *ctx, uint32_t *run)
{
	uint32_t runs = 1;
	run[0] = 0;
	for (uint32_t i = 1; i < n && runs <= GT_MERGE_RUNS_MAX; i++)
		if (!before(ctx, v[i - 1], v[i]))
			run[runs++] = i;
	return runs;
}

/* src[lo, mid) and src[mid, hi), each in order, into dst[lo, hi). */
static void merge_two(const uint32_t *src, uint32_t *dst, uint32_t lo, uint32_t mid, uint32_t hi, gt_run_order before,
		      const void *ctx)
{
	uint32_t i = lo, j = mid, o = lo;
	while (i < mid && j < hi)
		dst[o++] = before(ctx, src[j], src[i]) ? src[j++] : src[i++];
	memcpy(dst + o, src + i, (size_t)(mid - i) * sizeof *src);
	o += mid - i;
	memcpy(dst + o, src + j, (size_t)(hi - j) * sizeof *src);
}

void gt_merge_runs(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t *run, uint32_t runs, gt_run_order before,
		   const void *ctx)
{
	uint32_t *src = v, *dst = tmp;
	run[runs] = n;
	while (runs > 1) {
		uint32_t k = 0;
		for (uint32_t r = 0; r < runs; r += 2) {
			uint32_t lo = run[r], mid = run[r + 1], hi = r + 1 < runs ? run[r + 2] : mid;
			merge_two(src, dst, lo, mid, hi, before, ctx);
			run[k++] = lo;
		}
		run[k] = n;
		runs = k;
		uint32_t *t = src;
		src = dst, dst = t;
	}
	if (src != v)
		memcpy(v, src, (size_t)n * sizeof *v);
}
