/* The device's sort and scan (cl.h): the launches of
 * kernels/sort.cl.
 *
 * The scan: tiles of SCAN_TILE scanned each alone, their totals scanned
 * the same way (a level per 1024x), and added back. The sort: per 4-bit
 * digit, each tile's digit counts, their scan in digit-major order (where
 * each tile's pairs of each digit begin), and the pairs moved there. A
 * digit every key shares moves nothing, so it is skipped: keys that are
 * times from a base, or small ids, take few passes. */
#include "cl.h"

#include <stdbool.h>
#include <stdlib.h>

#define SORT_WG 256 /* as in the kernels */
#define SORT_TILE 1024
#define RADIX 16
#define SCAN_WG 256
#define SCAN_TILE 1024
#define BITS_GROUPS 64 /* work-groups that fold the keys' bits */

enum { K_BITS, K_COUNT, K_SCATTER, K_SCAN_U32, K_SCAN_U64, K_ADD_U32, K_ADD_U64, K_BUCKET_COUNT, K_BUCKET_PAIRS, K_N };
static const char *const kernel_names[K_N] = {"sort_key_bits",  "sort_count",	"sort_scatter",
					      "scan_tiles_u32", "scan_tiles_u64", "scan_add_u32",
					      "scan_add_u64",	"bucket_count",	"bucket_pairs"};

typedef struct sort_run {
	gt_cl *cl;
	cl_kernel k[K_N];
	gt_cl_events *ev;
	gt_error *err;
} sort_run;

/* The kernels, each of which runs in work-groups of 256 (their local
 * arrays are sized for it): a device or a kernel that allows fewer fails
 * here, plainly, rather than at its first launch. */
static int kernels(sort_run *r)
{
	for (int i = 0; i < K_N; i++) {
		if (gt_cl_kernel(r->cl, "sort", kernel_names[i], &r->k[i], r->err) < 0)
			return -1;
		size_t most = 0;
		cl_int e = clGetKernelWorkGroupInfo(r->k[i], gt_cl_device(r->cl), CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
						    &most, NULL);
		if (gt_cl_check(r->cl, e, "clGetKernelWorkGroupInfo", r->err) < 0)
			return -1;
		if (most < SORT_WG || gt_cl_max_work_group(r->cl) < SORT_WG)
			return gt_fail(r->err, GT_EDEVICE, "the device sort needs work-groups of %d, and '%s' allows %zu",
				       SORT_WG, gt_cl_device_name(r->cl),
				       most < gt_cl_max_work_group(r->cl) ? most : gt_cl_max_work_group(r->cl));
	}
	return 0;
}

bool gt_cl_sort_fits(gt_cl *cl)
{
	return gt_cl_max_work_group(cl) >= SORT_WG;
}

static void run_free(sort_run *r)
{
	for (int i = 0; i < K_N; i++)
		if (r->k[i])
			clReleaseKernel(r->k[i]);
}

/* k's arguments: nargs GT_CL_ARG pairs. */
#define SET(r, which, nargs, ...) gt_cl_set_args((r)->cl, (r)->k[which], kernel_names[which], 0, (r)->err, nargs, __VA_ARGS__)

static int launch(sort_run *r, int which, uint64_t items, size_t local)
{
	size_t global = (size_t)((items + local - 1) / local * local);
	return gt_cl_launch(r->cl, r->k[which], kernel_names[which], global ? global : local, local, r->ev, r->err);
}

static int take(sort_run *r, uint64_t bytes, cl_mem *b)
{
	return gt_cl_buffer_take(r->cl, bytes, b, r->err);
}

static int download(sort_run *r, cl_mem b, void *dst, size_t bytes)
{
	cl_int e = clEnqueueReadBuffer(gt_cl_queue(r->cl), b, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
	return gt_cl_check(r->cl, e, "clEnqueueReadBuffer", r->err);
}

/* out = the exclusive scan of n items of in (ulong where wide, else uint);
 * *total (where not NULL) their sum, read back. */
static int scan(sort_run *r, cl_mem in, cl_mem out, bool wide, uint32_t n, uint64_t *total)
{
	uint32_t tiles = (uint32_t)(((uint64_t)n + SCAN_TILE - 1) / SCAN_TILE);
	tiles = tiles ? tiles : 1;
	cl_mem sums = NULL;
	int tile_k = wide ? K_SCAN_U64 : K_SCAN_U32, add_k = wide ? K_ADD_U64 : K_ADD_U32;
	int rc = take(r, 8ull * tiles, &sums);
	if (rc == 0)
		rc = SET(r, tile_k, 4, GT_CL_ARG(n), GT_CL_ARG(in), GT_CL_ARG(out), GT_CL_ARG(sums));
	if (rc == 0)
		rc = launch(r, tile_k, (uint64_t)tiles * SCAN_WG, SCAN_WG);
	if (rc == 0 && tiles > 1) {
		rc = scan(r, sums, sums, true, tiles, total);
		if (rc == 0)
			rc = SET(r, add_k, 3, GT_CL_ARG(n), GT_CL_ARG(out), GT_CL_ARG(sums));
		if (rc == 0)
			rc = launch(r, add_k, n, SCAN_WG);
	} else if (rc == 0 && total) {
		rc = download(r, sums, total, sizeof *total);
	}
	gt_cl_buffer_give(r->cl, sums);
	return rc;
}

int gt_cl_scan_u32(gt_cl *cl, cl_mem in, cl_mem out, uint32_t n, uint64_t *total, gt_cl_events *ev,
		   gt_error *err)
{
	sort_run r = {.cl = cl, .ev = ev, .err = err};
	uint64_t sum = 0;
	int rc = n ? kernels(&r) : 0;
	if (rc == 0 && n)
		rc = scan(&r, in, out, false, n, &sum);
	run_free(&r);
	if (rc == 0 && sum > UINT32_MAX)
		return gt_fail(err, GT_EINPUT, "a scan's total (%llu) does not fit 32 bits", (unsigned long long)sum);
	if (rc == 0 && total)
		*total = sum;
	return rc;
}

/* The bits in which the keys differ (OR ^ AND of all of them). */
static int varying_bits(sort_run *r, cl_mem key, uint32_t n, uint64_t *varying)
{
	uint32_t groups = (uint32_t)(((uint64_t)n + SORT_WG - 1) / SORT_WG);
	groups = groups < BITS_GROUPS ? groups : BITS_GROUPS;
	uint64_t ors[BITS_GROUPS], ands[BITS_GROUPS];
	cl_mem fold_or = NULL, fold_and = NULL;
	int rc = take(r, sizeof ors, &fold_or);
	if (rc == 0)
		rc = take(r, sizeof ands, &fold_and);
	if (rc == 0)
		rc = SET(r, K_BITS, 4, GT_CL_ARG(n), GT_CL_ARG(key), GT_CL_ARG(fold_or), GT_CL_ARG(fold_and));
	if (rc == 0)
		rc = launch(r, K_BITS, (uint64_t)groups * SORT_WG, SORT_WG);
	if (rc == 0)
		rc = download(r, fold_or, ors, groups * sizeof *ors);
	if (rc == 0)
		rc = download(r, fold_and, ands, groups * sizeof *ands);
	gt_cl_buffer_give(r->cl, fold_or);
	gt_cl_buffer_give(r->cl, fold_and);
	uint64_t o = 0, a = UINT64_MAX;
	for (uint32_t g = 0; rc == 0 && g < groups; g++)
		o |= ors[g], a &= ands[g];
	*varying = o ^ a;
	return rc;
}

/* One pass: the pairs in (key, val) by the digit at shift into (k2, v2). */
static int pass(sort_run *r, uint32_t n, cl_uint shift, cl_mem hist, const cl_mem *from, const cl_mem *to)
{
	cl_uint tiles = (cl_uint)(((uint64_t)n + SORT_TILE - 1) / SORT_TILE);
	int rc = SET(r, K_COUNT, 5, GT_CL_ARG(n), GT_CL_ARG(shift), GT_CL_ARG(tiles), GT_CL_ARG(from[0]), GT_CL_ARG(hist));
	if (rc == 0)
		rc = launch(r, K_COUNT, (uint64_t)tiles * SORT_WG, SORT_WG);
	if (rc == 0)
		rc = scan(r, hist, hist, false, RADIX * tiles, NULL);
	if (rc == 0)
		rc = SET(r, K_SCATTER, 8, GT_CL_ARG(n), GT_CL_ARG(shift), GT_CL_ARG(tiles), GT_CL_ARG(from[0]), GT_CL_ARG(from[1]), GT_CL_ARG(to[0]), GT_CL_ARG(to[1]), GT_CL_ARG(hist));
	if (rc == 0)
		rc = launch(r, K_SCATTER, (uint64_t)tiles * SORT_WG, SORT_WG);
	return rc;
}

/* The sort on r's kernels (gt_cl_sort_u64). */
static int sort_pairs(sort_run *r, cl_mem key, cl_mem val, uint32_t n)
{
	gt_cl *cl = r->cl;
	uint64_t tiles = ((uint64_t)n + SORT_TILE - 1) / SORT_TILE, varying = 0;
	cl_mem pairs[2][2] = {{key, val}, {NULL, NULL}}, hist = NULL;
	int rc = varying_bits(r, key, n, &varying);
	int cur = 0;
	for (cl_uint shift = 0; rc == 0 && shift < 64; shift += 4) {
		if (!((varying >> shift) & (RADIX - 1)))
			continue;
		if (!hist && ((rc = take(r, 4 * RADIX * tiles, &hist)) < 0 || (rc = take(r, 8ull * n, &pairs[1][0])) < 0 ||
			      (rc = take(r, 4ull * n, &pairs[1][1])) < 0))
			break;
		rc = pass(r, n, shift, hist, pairs[cur], pairs[!cur]);
		cur = !cur;
	}
	if (rc == 0 && cur) { /* an odd count of passes: back to the caller's buffers */
		for (int c = 0; c < 2 && rc == 0; c++) {
			cl_event done;
			cl_int e = clEnqueueCopyBuffer(gt_cl_queue(cl), pairs[1][c], c ? val : key, 0, 0,
						       (c ? 4ull : 8ull) * n, 0, NULL, &done);
			rc = gt_cl_check(cl, e, "clEnqueueCopyBuffer", r->err);
			if (rc == 0)
				rc = gt_cl_events_keep(r->ev, done, r->err);
		}
	}
	gt_cl_buffer_give(cl, hist);
	gt_cl_buffer_give(cl, pairs[1][0]);
	gt_cl_buffer_give(cl, pairs[1][1]);
	return rc;
}

int gt_cl_sort_u64(gt_cl *cl, cl_mem key, cl_mem val, uint32_t n, gt_cl_events *ev, gt_error *err)
{
	if (n < 2)
		return 0;
	sort_run r = {.cl = cl, .ev = ev, .err = err};
	int rc = kernels(&r);
	if (rc == 0)
		rc = sort_pairs(&r, key, val, n);
	run_free(&r);
	return rc;
}

/* The buckets' first items: their counts, scanned in place (the entry past
 * the last counts nothing, so it becomes the items kept). */
static int bucket_first(sort_run *r, cl_mem key, uint32_t n, uint32_t buckets, cl_mem first)
{
	cl_uint zero = 0;
	cl_event done;
	cl_int e = clEnqueueFillBuffer(gt_cl_queue(r->cl), first, &zero, sizeof zero, 0, 4ull * ((uint64_t)buckets + 1),
				       0, NULL, &done);
	int rc = gt_cl_check(r->cl, e, "clEnqueueFillBuffer", r->err);
	if (rc == 0)
		rc = gt_cl_events_keep(r->ev, done, r->err);
	if (rc == 0 && n)
		rc = SET(r, K_BUCKET_COUNT, 4, GT_CL_ARG(n), GT_CL_ARG(buckets), GT_CL_ARG(key), GT_CL_ARG(first));
	if (rc == 0 && n)
		rc = launch(r, K_BUCKET_COUNT, n, SORT_WG);
	if (rc == 0)
		rc = scan(r, first, first, false, buckets + 1, NULL);
	return rc;
}

int gt_cl_bucket(gt_cl *cl, cl_mem key, uint32_t n, uint32_t buckets, cl_mem first, cl_mem items, gt_cl_events *ev,
		 gt_error *err)
{
	if (buckets == UINT32_MAX)
		return gt_fail(err, GT_EINPUT, "%u buckets: one too many for their offsets", buckets);
	sort_run r = {.cl = cl, .ev = ev, .err = err};
	cl_mem pair_key = NULL;
	int rc = kernels(&r);
	if (rc == 0)
		rc = bucket_first(&r, key, n, buckets, first);
	if (rc == 0 && n) {
		rc = take(&r, 8ull * n, &pair_key);
		if (rc == 0)
			rc = SET(&r, K_BUCKET_PAIRS, 5, GT_CL_ARG(n), GT_CL_ARG(buckets), GT_CL_ARG(key), GT_CL_ARG(pair_key), GT_CL_ARG(items));
		if (rc == 0)
			rc = launch(&r, K_BUCKET_PAIRS, n, SORT_WG);
	}
	if (rc == 0 && n > 1)
		rc = sort_pairs(&r, pair_key, items, n);
	run_free(&r);
	gt_cl_buffer_give(cl, pair_key);
	return rc;
}
