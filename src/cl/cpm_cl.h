/* Binding and CPM latest times on an OpenCL device (cpm.h has the
 * contract; the host references are the oracle these results equal byte
 * for byte). */
#ifndef GT_CPM_CL_H
#define GT_CPM_CL_H

#include "analysis/analysis.h"
#include "cl_runtime.h"

/* Device-side figures of the last OpenCL run (for benchmarks). */
typedef struct gt_cpm_cl_stats {
	uint64_t kernel_ns;   /* sum of the kernel events' device time */
	uint32_t launches;    /* kernel launches enqueued */
	uint64_t bytes_moved; /* bytes the kernels read and wrote, by their
	                       * access pattern */
} gt_cpm_cl_stats;

/* The OpenCL implementations on cl's device; stats and fs may be NULL.
 * Input errors as the host references (GT_EINPUT); GT_EDEVICE on any
 * OpenCL error or when the buffers exceed the device. */
int gt_cpm_bind_cl(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_cpm_cl_stats *stats,
		   gt_error *err);
int gt_cpm_float_cl(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs,
		    gt_cpm_cl_stats *stats, gt_error *err);

/* The device path when cl is non-NULL, else the host reference. */
int gt_cpm_bind_run(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err);
int gt_cpm_float_run(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs, gt_error *err);

#endif
