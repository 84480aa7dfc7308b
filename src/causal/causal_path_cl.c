/* The causal path's durations on an OpenCL device (kernels/cpm.cl), the
 * host's causal_path_host by pointer jumping: every point's root in at
 * most 32 rounds of up[v] = up[up[v]] (a depth below 2^32 halves each
 * round), then path_duration = time[v] - time[root]. Only the parents and
 * times go up and the durations come back, 20 bytes a point: the forest's
 * five other outputs stay for a binding with a zero-gap cycle. */
#include <string.h>

#include "causal_internal.h"
#include "cpm_cl_run.h"
#include "base/base.h"

#define MAX_JUMPS 33 /* 32 for any depth, and one to see nothing moved */

enum { PK_INIT, PK_JUMP, PK_DURATIONS, PK_COUNT };
static const char *const path_kernel_names[PK_COUNT] = {"path_up_init", "path_up_jump", "path_durations"};

enum { PB_PARENT, PB_TIME, PB_UP0, PB_UP1, PB_FLAG, PB_DURATION, PB_COUNT };

/* Rounds of jumping until nothing moves; *last: the buffer holding the
 * roots. 1 where they still move after MAX_JUMPS (a cycle). */
static int jump(cpm_run *r, cl_kernel k, cl_mem *b, cl_uint n, int *last)
{
	int from = PB_UP0;
	for (int round = 0; round < MAX_JUMPS; round++) {
		cl_int zero = 0, moved = 0;
		int to = from == PB_UP0 ? PB_UP1 : PB_UP0;
		cl_int e = clEnqueueFillBuffer(r->q, b[PB_FLAG], &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL);
		if (gt_cl_check(r->cl, e, "clEnqueueFillBuffer", r->err) < 0 ||
		    cpm_set_args(r, k, "path_up_jump", 4, ARG(n), ARG(b[from]), ARG(b[to]), ARG(b[PB_FLAG])) < 0 ||
		    cpm_launch(r, k, "path_up_jump", n, r->local, 12ull * n) < 0 ||
		    cpm_download(r, b[PB_FLAG], &moved, sizeof moved, true) < 0)
			return -1;
		from = to;
		if (!moved) {
			*last = from;
			return 0;
		}
	}
	return 1;
}

static int durations_on_device(cpm_run *r, cl_kernel *k, cl_mem *b, const uint32_t *parent, const int64_t *time,
			       cl_uint n, int64_t *path_duration)
{
	const uint64_t sizes[PB_COUNT] = {[PB_PARENT] = 4ull * n, [PB_TIME] = 8ull * n, [PB_UP0] = 4ull * n,
					  [PB_UP1] = 4ull * n,   [PB_FLAG] = 4,         [PB_DURATION] = 8ull * n};
	if (cpm_create_buffers(r, sizes, b, PB_COUNT, "the path", n) < 0 ||
	    cpm_upload(r, b[PB_PARENT], parent, sizes[PB_PARENT]) < 0 ||
	    cpm_upload(r, b[PB_TIME], time, sizes[PB_TIME]) < 0 ||
	    cpm_set_args(r, k[PK_INIT], "path_up_init", 3, ARG(n), ARG(b[PB_PARENT]), ARG(b[PB_UP0])) < 0 ||
	    cpm_launch(r, k[PK_INIT], "path_up_init", n, r->local, 8ull * n) < 0)
		return -1;
	int last, rc = jump(r, k[PK_JUMP], b, n, &last);
	if (rc != 0)
		return rc;
	cl_int zero = 0, cycle = 0;
	cl_int e = clEnqueueFillBuffer(r->q, b[PB_FLAG], &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL);
	if (gt_cl_check(r->cl, e, "clEnqueueFillBuffer", r->err) < 0 ||
	    cpm_set_args(r, k[PK_DURATIONS], "path_durations", 6, ARG(n), ARG(b[PB_PARENT]), ARG(b[last]),
			 ARG(b[PB_TIME]), ARG(b[PB_DURATION]), ARG(b[PB_FLAG])) < 0 ||
	    cpm_launch(r, k[PK_DURATIONS], "path_durations", n, r->local, 32ull * n) < 0 ||
	    cpm_download(r, b[PB_FLAG], &cycle, sizeof cycle, true) < 0)
		return -1;
	if (cycle)
		return 1;
	return cpm_download(r, b[PB_DURATION], path_duration, 8ull * n, true);
}

int causal_path_cl(gt_cl *cl, const uint32_t *parent, const int64_t *time, uint32_t n, int64_t *path_duration,
		   gt_cpm_cl_stats *stats, gt_error *err)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (n == 0)
		return 0;
	cpm_run r = {.cl = cl, .q = gt_cl_queue(cl), .err = err};
	cl_kernel k[PK_COUNT] = {0};
	cl_mem b[PB_COUNT] = {0};
	int rc = -1;
	if (cpm_get_kernels(&r, path_kernel_names, k, PK_COUNT) == 0 && cpm_choose_local(&r, k, PK_COUNT, 0) == 0)
		rc = durations_on_device(&r, k, b, parent, time, n, path_duration);
	if (rc >= 0)
		cpm_fill_stats(&r, stats);
	else
		clFinish(r.q); /* nothing may still use the caller's arrays */
	cpm_run_free(&r, b, PB_COUNT, k, PK_COUNT);
	return rc;
}
