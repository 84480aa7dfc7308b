/* Merging a few sorted runs (merge_runs.h). */
#include "merge_runs.h"

#include <string.h>

#include "jobs.h"

/* Below this many items a part, more threads cost more than they save. */
enum { PART_MIN = 1 << 15, SAMPLES_PER_PART = 16 };

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

/* The runs of a merged pairwise, b the scratch: the one of the two that
 * holds the result. */
static uint32_t *merge_passes(uint32_t *a, uint32_t *b, uint32_t n, uint32_t *run, uint32_t runs, gt_run_order before,
			      const void *ctx)
{
	uint32_t *src = a, *dst = b;
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
	return src;
}

void gt_merge_runs(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t *run, uint32_t runs, gt_run_order before,
		   const void *ctx)
{
	uint32_t *in = merge_passes(v, tmp, n, run, runs, before, ctx);
	if (in != v)
		memcpy(v, in, (size_t)n * sizeof *v);
}

/* A range's run starts, up to the most gt_find_runs counts. */
typedef struct runs_job {
	GT_JOB_ALIGNED const uint32_t *v;
	gt_run_order before;
	const void *ctx;
	uint32_t a, b; /* positions i in [a, b) where a run may start */
	uint32_t count, at[GT_MERGE_RUNS_MAX + 1];
} runs_job;

static void *find_range(void *arg)
{
	runs_job *j = arg;
	for (uint32_t i = j->a; i < j->b && j->count <= GT_MERGE_RUNS_MAX; i++)
		if (!j->before(j->ctx, j->v[i - 1], j->v[i]))
			j->at[j->count++] = i;
	return NULL;
}

static unsigned parts_for(uint32_t n, unsigned threads)
{
	unsigned k = threads < GT_MAX_JOBS ? threads : GT_MAX_JOBS;
	uint32_t by_size = n / PART_MIN;
	return by_size < 1 ? 1 : by_size < k ? by_size : k ? k : 1;
}

uint32_t gt_find_runs_threads(const uint32_t *v, uint32_t n, gt_run_order before, const void *ctx, uint32_t *run,
			      unsigned threads)
{
	unsigned k = parts_for(n, threads);
	if (k < 2)
		return gt_find_runs(v, n, before, ctx, run);
	runs_job jobs[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++) {
		uint32_t a = (uint32_t)((uint64_t)n * j / k), b = (uint32_t)((uint64_t)n * (j + 1) / k);
		jobs[j] = (runs_job){v, before, ctx, a ? a : 1, b, 0, {0}};
	}
	gt_run_jobs(find_range, jobs, sizeof *jobs, k);
	uint32_t runs = 1;
	run[0] = 0;
	for (unsigned j = 0; j < k && runs <= GT_MERGE_RUNS_MAX; j++)
		for (uint32_t i = 0; i < jobs[j].count && runs <= GT_MERGE_RUNS_MAX; i++)
			run[runs++] = jobs[j].at[i];
	return runs;
}

/* One part of the output: [lo[r], hi[r]) of each run r of v, all the
 * items of the runs before the part's splitter and none before the
 * previous one's, so that they go to v[off, off + the sum). */
typedef struct merge_part {
	uint32_t *v, *tmp;
	uint32_t runs, off;
	uint32_t lo[GT_MERGE_RUNS_MAX], hi[GT_MERGE_RUNS_MAX];
	gt_run_order before;
	const void *ctx;
} merge_part;

/* The part's share of each run copied to tmp, one after the other. */
static void *gather_part(void *arg)
{
	merge_part *p = arg;
	uint32_t o = p->off;
	for (uint32_t r = 0; r < p->runs; r++) {
		memcpy(p->tmp + o, p->v + p->lo[r], (size_t)(p->hi[r] - p->lo[r]) * sizeof *p->v);
		o += p->hi[r] - p->lo[r];
	}
	return NULL;
}

/* The gathered shares merged, with the part's own stretch of v as the
 * scratch (every part has read v by now), the result left in v. */
static void *merge_part_items(void *arg)
{
	merge_part *p = arg;
	uint32_t run[GT_MERGE_RUNS_MAX + 1], runs = 0, len = 0;
	for (uint32_t r = 0; r < p->runs; r++) {
		if (p->hi[r] > p->lo[r])
			run[runs++] = len;
		len += p->hi[r] - p->lo[r];
	}
	if (!runs)
		return NULL;
	uint32_t *in = merge_passes(p->tmp + p->off, p->v + p->off, len, run, runs, p->before, p->ctx);
	if (in != p->v + p->off)
		memcpy(p->v + p->off, in, (size_t)len * sizeof *p->v);
	return NULL;
}

/* The position in v[lo, hi) (in order) of the first item not before s. */
static uint32_t first_not_before(const uint32_t *v, uint32_t lo, uint32_t hi, uint32_t s, gt_run_order before,
				 const void *ctx)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (before(ctx, v[mid], s))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void gt_merge_runs_threads(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t *run, uint32_t runs, gt_run_order before,
			   const void *ctx, unsigned threads)
{
	unsigned k = parts_for(n, threads);
	if (k < 2 || runs < 2) {
		gt_merge_runs(v, tmp, n, run, runs, before, ctx);
		return;
	}
	run[runs] = n;
	/* the splitters: the k-quantiles of samples spread over v, so that
	 * the parts are near n / k each whatever the runs' lengths */
	uint32_t sample[GT_MAX_JOBS * SAMPLES_PER_PART], ns = k * SAMPLES_PER_PART;
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t x = v[(uint64_t)n * i / ns + n / (2 * ns)], at = i;
		for (; at > 0 && before(ctx, x, sample[at - 1]); at--) /* a few hundred: insertion */
			sample[at] = sample[at - 1];
		sample[at] = x;
	}
	merge_part parts[GT_MAX_JOBS];
	uint32_t off = 0;
	for (unsigned p = 0; p < k; p++) {
		merge_part *mp = &parts[p];
		*mp = (merge_part){.v = v, .tmp = tmp, .runs = runs, .off = off, .before = before, .ctx = ctx};
		for (uint32_t r = 0; r < runs; r++) {
			mp->lo[r] = p ? parts[p - 1].hi[r] : run[r];
			mp->hi[r] = p + 1 < k ? first_not_before(v, mp->lo[r], run[r + 1], sample[(p + 1) * SAMPLES_PER_PART],
								 before, ctx)
					      : run[r + 1];
			off += mp->hi[r] - mp->lo[r];
		}
	}
	gt_run_jobs(gather_part, parts, sizeof *parts, k);
	gt_run_jobs(merge_part_items, parts, sizeof *parts, k);
}
