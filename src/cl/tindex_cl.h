/* The temporal index on an OpenCL device: the index is uploaded once and
 * stays resident; each query is two launches on the device (count with
 * the group sums scanned by the last group, then compact) and reads back
 * only its results. Results are identical to the
 * host reference (gt_tindex_query, gt_tindex_validate). */
#ifndef GT_TINDEX_CL_H
#define GT_TINDEX_CL_H

#include "cl_runtime.h"
#include "analysis/analysis.h"

typedef struct gt_tindex_cl gt_tindex_cl;

int gt_tindex_cl_open(gt_tindex_cl **out, gt_cl *cl, const gt_tindex *ix, gt_error *err);
void gt_tindex_cl_close(gt_tindex_cl *d); /* accepts NULL */

/* Runs q; r->candidates receives the ordered prefix of at most
 * r->capacity candidates. kernel_ns (may be NULL) receives the summed
 * device time of the query's kernels. */
int gt_tindex_cl_query(gt_tindex_cl *d, const gt_tquery *q, gt_tresult *r, uint64_t *kernel_ns, gt_error *err);

/* Validation bits per record, as gt_tindex_validate (m may be NULL). */
int gt_tindex_cl_validate(gt_tindex_cl *d, const gt_model *m, uint8_t *bits, uint32_t *all, uint64_t *bad,
			  gt_error *err);

/* The brute-force baseline: the span table on the device, scanned whole
 * per query; *count receives the number of spans meeting q. */
typedef struct gt_spanscan_cl gt_spanscan_cl;
int gt_spanscan_cl_open(gt_spanscan_cl **out, gt_cl *cl, const gt_model *m, gt_error *err);
void gt_spanscan_cl_close(gt_spanscan_cl *s);
int gt_spanscan_cl_query(gt_spanscan_cl *s, const gt_tquery *q, uint64_t *count, uint64_t *kernel_ns,
			 gt_error *err);
/* The plainest brute force: one work-item per span marks it, a global
 * count sums the hits. */
int gt_spanscan_cl_mark(gt_spanscan_cl *s, const gt_tquery *q, uint64_t *count, uint64_t *kernel_ns,
			gt_error *err);

#endif
