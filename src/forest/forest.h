/* forest/: the exact duration-weighted critical path over a parent forest
 * (`critical-path --model forest`; the causal path walks its binding forest
 * with it too). Host reference: forest.c, and the fast host path
 * forest_fast.c; device half: forest_cl.c with kernels/critpath.cl.
 *
 *
 * Input: n rows, each a parent (a row index, or GT_CP_ROOT for a root) and a
 * duration in integer nanoseconds. A row is *locally valid* when its parent
 * is GT_CP_ROOT or below n, and its duration is >= 0. A row is *valid* when
 * every row of its chain (itself, its parent, ... up to a root) is locally
 * valid, the chain ends at a root (no cycle), and the chain's inclusive sum
 * of durations fits in int64 (no overflow).
 *
 * Outputs per row i:
 *   valid row                  invalid row
 *   path_duration  sum of the durations from i through its root   -1
 *   slack          max_path_duration - path_duration (>= 0)       -1
 *   critical_predecessor  parent[i] (GT_CP_ROOT for a root)       0xffffffff
 *   root           the root index of i's chain                     0xffffffff
 *   hop_count      parent edges from i to its root (root: 0)       0xffffffff
 *   critical_mask  1 on the marked winning path, else 0            0
 *
 * Summary:
 *   max_path_duration  the largest path_duration of a valid row (0 if none)
 *   endpoint           the lowest index attaining it (0xffffffff if none)
 *   max_hop_count      the largest hop_count of a valid row (0 if none)
 *   path_rows          rows on the winning path: hop_count[endpoint] + 1
 *   marked_rows        rows with critical_mask 1: min(path_rows, max_path_length)
 *   flags              GT_CP_* bits below
 * Flags are properties of the whole input, independent of evaluation order:
 *   INVALID_PARENT   some row's parent is neither GT_CP_ROOT nor below n
 *   INVALID_DURATION some row's duration is negative
 *   CYCLE            some cycle consists of locally valid rows (a
 *                    self-loop included; a cycle through a locally invalid
 *                    row is reported as that row's flag instead)
 *   OVERFLOW         some chain of locally valid rows ending at a root has a
 *                    sum above 2^63-1 (rows whose chains are invalid for
 *                    another reason do not raise it)
 *   PATH_TRUNCATED   path_rows > max_path_length: the mask then covers the
 *                    first max_path_length rows of the path from the root
 * Rows leading into a cycle, or to a locally invalid row, are invalid too
 * (they raise no flag of their own: the offending row does).
 *
 * The host reference (gt_critpath_host) is O(n) time, iterative, and is the
 * contract: the OpenCL implementation (forest_cl.c) is bit-identical
 * to it. */
#ifndef GT_CRITPATH_H
#define GT_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "cl/cl.h"

#define GT_CP_ROOT 0xffffffffu    /* parent of a root */
#define GT_CP_NONE 0xffffffffu    /* "no row" in outputs */
#define GT_CP_MAX_ROWS 0xfffffffeu /* host limit on n */

enum gt_cp_flag {
	GT_CP_INVALID_PARENT = 1,
	GT_CP_INVALID_DURATION = 2,
	GT_CP_CYCLE = 4,
	GT_CP_OVERFLOW = 8,
	GT_CP_PATH_TRUNCATED = 16,
};
#define GT_CP_FLAG_COUNT 5
/* "invalid_parent", ... for bit 1 << k. */
extern const char *const gt_cp_flag_names[GT_CP_FLAG_COUNT];

/* Caller-owned per-row outputs, n elements each. */
typedef struct gt_cp_rows {
	int64_t *path_duration;
	int64_t *slack;
	uint32_t *critical_predecessor;
	uint32_t *root;
	uint32_t *hop_count;
	uint8_t *critical_mask;
} gt_cp_rows;

typedef struct gt_cp_summary {
	int64_t max_path_duration;
	uint32_t endpoint;
	uint32_t max_hop_count;
	uint32_t path_rows;
	uint32_t marked_rows;
	uint32_t flags;
} gt_cp_summary;

typedef struct gt_cp_options {
	uint32_t max_path_length;   /* 0: unlimited */
	uint64_t max_rows_per_pass; /* device launches: rows per launch, 0: no limit */
	uint32_t items_per_unit;    /* pass launches: work-items per compute unit, 0: 2048 */
	unsigned threads;           /* fast host path: threads, 0: one per core */
	/* The caller reads only the summary and the path's rows of path_duration,
	 * critical_predecessor and critical_mask: a device then reads back only
	 * those three arrays (the others are left unset). */
	bool path_only;
} gt_cp_options;


/* Allocates all six output arrays for n rows (rows zeroed on failure). */
int gt_cp_rows_alloc(gt_cp_rows *rows, uint32_t n, gt_error *err);
void gt_cp_rows_free(gt_cp_rows *rows);

/* The plain C reference; opt may be NULL. */
int gt_critpath_host(const uint32_t *parent, const int64_t *duration, uint32_t n,
		     const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum, gt_error *err);

/* The fast host path (forest_fast.c): the same bytes as gt_critpath_host,
 * in O(n) passes over blocks of rows on opt->threads threads, a gather of
 * the parent's record per row instead of a walk. */
int gt_critpath_fast(const uint32_t *parent, const int64_t *duration, uint32_t n,
		     const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum, gt_error *err);
/* The threads gt_critpath_fast uses when asked for `asked` (0: one per core). */
unsigned gt_critpath_fast_threads(unsigned asked);

/* The device half: the contract above; the host reference is the oracle
 * these results equal. */

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
