/* What the binding (cpm_cl.c) and the float (cpm_cl_float.c) share on an
 * OpenCL device: one run's queue, events and figures, and its launches,
 * arguments, buffers and copies, each failing with r->err. */
#ifndef GT_CPM_CL_RUN_H
#define GT_CPM_CL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpm.h"

#define ITEMS 8 /* positions per work-item, as in the kernel */

typedef struct cpm_run {
	gt_cl *cl;
	cl_command_queue q;
	size_t local;
	gt_cl_events events;
	uint32_t launches;
	uint64_t bytes;
	gt_error *err;
} cpm_run;

/* Launches k with global size items rounded up to local; bytes is what it
 * moves, for the statistics. */
int cpm_launch(cpm_run *r, cl_kernel k, const char *name, uint64_t items, size_t local, uint64_t bytes);
/* nargs pairs of (size, pointer): ARG and LOCAL_ARG. */
int cpm_set_args(cpm_run *r, cl_kernel k, const char *name, int nargs, ...);
#define ARG(x) GT_CL_ARG(x)
#define LOCAL_ARG(bytes) (size_t)(bytes), (const void *)NULL
/* Gives the buffers back (cl.h: kept for the next batch) and releases the
 * kernels (NULL ones skipped); cpm_run_free the run's events too. */
void cpm_release(gt_cl *cl, cl_mem *b, int nb, cl_kernel *k, int nk);
void cpm_run_free(cpm_run *r, cl_mem *b, int nb, cl_kernel *k, int nk);
void cpm_fill_stats(const cpm_run *r, gt_cpm_cl_stats *stats);
int cpm_get_kernels(cpm_run *r, const char *const *names, cl_kernel *k, int nk);
/* Buffers of the given sizes (0 becomes 8; kept ones where they fit:
 * gt_cl_buffer_take) once they fit the device. */
int cpm_create_buffers(cpm_run *r, const uint64_t *sizes, cl_mem *b, int nb, const char *what, uint32_t n);
int cpm_upload(cpm_run *r, cl_mem b, const void *src, uint64_t size);
int cpm_download(cpm_run *r, cl_mem b, void *dst, uint64_t size, bool blocking);
/* The work-group size: a power of two that the device, the kernels and
 * local memory (per_item bytes a work-item) allow, at most 256. */
int cpm_choose_local(cpm_run *r, const cl_kernel *k, int nk, size_t per_item);
int cpm_device_fits(gt_cl *cl, const gt_cpm_graph *g, const char *what, gt_error *err);
/* pos_flags from work: the kernel adds the heads and tails. */
int cpm_mark_tracks(cpm_run *r, cl_kernel k, const gt_cpm_graph *g, cl_mem chain_start, cl_mem flags);

/* A step run on the bound graph before the binding's results are read
 * back: the parents and the graph's times (by point) are where the binding
 * left them, on the device. Runs on r (its own kernels and buffers, freed
 * before it returns); 0, 1 (passed on to the caller) or -1 with r->err. */
typedef int (*cpm_after_bind)(cpm_run *r, cl_mem parent, cl_mem time, uint32_t n, void *ctx);
/* gt_cpm_bind_cl, then after (NULL: none) on the device; out->gap may be
 * NULL: not read back. Returns after's 1 with the binding filled.
 * shape_known: g is in shape by construction (the causal driver's), so
 * only gt_cpm_check_range runs, not the full check (a pass over every
 * point and edge: longer than the device's kernels). read (NULL: none):
 * told once the binding's kernel has run, before its results are read
 * back; g's chains and cross edges are not read after. */
int cpm_bind_cl_then(gt_cl *cl, const gt_cpm_graph *g, bool shape_known, gt_cpm_binding *out, cpm_after_bind after,
		     void *ctx, const gt_cpm_read_hook *read, gt_cpm_cl_stats *stats, gt_error *err);
/* gt_cpm_float_cl, with shape_known as above. */
int cpm_float_cl(gt_cl *cl, const gt_cpm_graph *g, bool shape_known, int64_t *lt, gt_cpm_float_stats *fs,
		 gt_cpm_cl_stats *stats, gt_error *err);

/* Cross edges by source position, with targets as positions (a counting
 * sort on the host). */
typedef struct by_source {
	uint32_t *start; /* n + 1 */
	uint32_t *dst;
} by_source;

int cpm_by_source_build(const gt_cpm_graph *g, by_source *s, gt_error *err);
void cpm_by_source_free(by_source *s);

#endif
