/* The forest critical path on an OpenCL device (critpath.h has the
 * contract; the host reference is the oracle these results equal). */
#ifndef GT_CRITPATH_CL_H
#define GT_CRITPATH_CL_H

#include "analysis/analysis.h"
#include "cl_runtime.h"

/* Device-side figures of the last OpenCL run (for benchmarks). */
typedef struct gt_cp_stats {
	uint64_t kernel_ns;     /* sum of the kernel events' device time */
	uint32_t launches;      /* kernel launches enqueued */
	uint32_t passes;        /* pointer-jumping passes enqueued */
	uint32_t active_passes; /* of those, passes that did any work */
	uint64_t bytes_moved;   /* bytes the kernels read and wrote, by their
	                         * access pattern (gathers count a whole record) */
	uint64_t pass_ns;       /* of kernel_ns, the pointer-jumping passes' */
	uint64_t pass_bytes;    /* of bytes_moved, the passes' */
	uint64_t pass_ns_each[33]; /* device time of each pass */
	uint64_t transfer_ns;   /* the writes and reads of the arrays (profiling events) */
	uint64_t fill_ns;       /* gt_critpath_cl_fill: the caller's time filling the input */
} gt_cp_stats;

/* The input produced while it goes to the device: fill(ctx, first, end)
 * writes rows [first, end) of the parent and duration arrays passed with
 * it, and returns 0 (else the run fails). Pieces come in row order; each
 * is copied on a thread while the next is filled. */
typedef struct gt_cp_fill {
	int (*fill)(void *ctx, uint64_t first, uint64_t end);
	void *ctx;
	uint64_t piece_rows; /* 0: 1 << 22 */
} gt_cp_fill;

/* The OpenCL implementation on cl's device; stats may be NULL. Fails with
 * GT_EDEVICE on any OpenCL error or when the buffers exceed the device. */
int gt_critpath_cl(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
		   const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum,
		   gt_cp_stats *stats, gt_error *err);

/* gt_critpath_cl over arrays that fill produces (every row filled when it
 * returns 0; after a failure, how far it got is the caller's to track). */
int gt_critpath_cl_fill(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
			const gt_cp_fill *fill, const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum,
			gt_cp_stats *stats, gt_error *err);

/* The device path when cl is non-NULL, else the fast host path. */
int gt_critpath_run(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
		    const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum, gt_error *err);

#endif
