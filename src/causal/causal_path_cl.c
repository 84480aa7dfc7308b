/* The causal path's durations on an OpenCL device (kernels/cpm.cl), the
 * host's causal_path_host by pointer jumping: every point's root in at
 * most 32 rounds of up[v] = up[up[v]] (a depth below 2^32 halves each
 * round), then path_duration = time[v] - time[root]. Alone, only the
 * parents and times go up and the durations come back, 20 bytes a point:
 * the forest's five other outputs stay for a binding with a zero-gap
 * cycle. After a binding on the device, the parents and times are there
 * already: only the durations come back, and the binding's gaps stay
 * (they telescope into the durations). */
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

/* The durations from the parents and times already on the device; b holds
 * the path's own buffers (PB_UP0 on). */
static int durations_from(cpm_run *r, cl_kernel *k, cl_mem *b, cl_mem parent, cl_mem time, cl_uint n,
			  int64_t *path_duration)
{
	const uint64_t sizes[PB_COUNT] = {[PB_UP0] = 4ull * n, [PB_UP1] = 4ull * n, [PB_FLAG] = 4,
					  [PB_DURATION] = 8ull * n};
	if (cpm_create_buffers(r, sizes + PB_UP0, b + PB_UP0, PB_COUNT - PB_UP0, "the path", n) < 0 ||
	    cpm_set_args(r, k[PK_INIT], "path_up_init", 3, ARG(n), ARG(parent), ARG(b[PB_UP0])) < 0 ||
	    cpm_launch(r, k[PK_INIT], "path_up_init", n, r->local, 8ull * n) < 0)
		return -1;
	int last, rc = jump(r, k[PK_JUMP], b, n, &last);
	if (rc != 0)
		return rc;
	cl_int zero = 0, cycle = 0;
	cl_int e = clEnqueueFillBuffer(r->q, b[PB_FLAG], &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL);
	if (gt_cl_check(r->cl, e, "clEnqueueFillBuffer", r->err) < 0 ||
	    cpm_set_args(r, k[PK_DURATIONS], "path_durations", 6, ARG(n), ARG(parent), ARG(b[last]), ARG(time),
			 ARG(b[PB_DURATION]), ARG(b[PB_FLAG])) < 0 ||
	    cpm_launch(r, k[PK_DURATIONS], "path_durations", n, r->local, 32ull * n) < 0 ||
	    cpm_download(r, b[PB_FLAG], &cycle, sizeof cycle, true) < 0)
		return -1;
	if (cycle)
		return 1;
	return cpm_download(r, b[PB_DURATION], path_duration, 8ull * n, true);
}

static int durations_on_device(cpm_run *r, cl_kernel *k, cl_mem *b, const uint32_t *parent, const int64_t *time,
			       cl_uint n, int64_t *path_duration)
{
	const uint64_t sizes[2] = {[PB_PARENT] = 4ull * n, [PB_TIME] = 8ull * n};
	if (cpm_create_buffers(r, sizes, b, 2, "the path", n) < 0 ||
	    cpm_upload(r, b[PB_PARENT], parent, sizes[PB_PARENT]) < 0 ||
	    cpm_upload(r, b[PB_TIME], time, sizes[PB_TIME]) < 0)
		return -1;
	return durations_from(r, k, b, b[PB_PARENT], b[PB_TIME], n, path_duration);
}

/* The path's kernels on r, as run alone or after a binding (whose
 * work-group size r holds: it is put back). */
static int with_path_kernels(cpm_run *r, cl_kernel *k)
{
	return cpm_get_kernels(r, path_kernel_names, k, PK_COUNT) == 0 && cpm_choose_local(r, k, PK_COUNT, 0) == 0
		       ? 0
		       : -1;
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
	if (with_path_kernels(&r, k) == 0)
		rc = durations_on_device(&r, k, b, parent, time, n, path_duration);
	if (rc >= 0)
		cpm_fill_stats(&r, stats);
	else
		clFinish(r.q); /* nothing may still use the caller's arrays */
	cpm_run_free(&r, b, PB_COUNT, k, PK_COUNT);
	return rc;
}

/* The durations as the binding's step after (cpm_after_bind): ctx is
 * where the caller's array is, made once the binding's graph was read. */
static int durations_after_bind(cpm_run *r, cl_mem parent, cl_mem time, uint32_t n, void *ctx)
{
	cl_kernel k[PK_COUNT] = {0};
	cl_mem b[PB_COUNT] = {0};
	size_t bind_local = r->local;
	int rc = with_path_kernels(r, k) < 0 ? -1 : durations_from(r, k, b, parent, time, n, *(int64_t **)ctx);
	r->local = bind_local;
	if (rc < 0)
		clFinish(r->q);
	cpm_release(r->cl, b, PB_COUNT, k, PK_COUNT); /* the events stay with r, for its figures */
	return rc;
}

int causal_bind_path_cl(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, int64_t **path_duration,
			const gt_cpm_read_hook *read, gt_cpm_cl_stats *stats, gt_error *err)
{
	return cpm_bind_cl_then(cl, g, true, out, durations_after_bind, path_duration, read, stats, err);
}
