/* Copying columns to device buffers while the caller is still producing
 * them: the caller fills rows in order and says how far it got; a thread of
 * the upload's own copies each finished piece while the next is filled. */
#ifndef GT_CL_UPLOAD_H
#define GT_CL_UPLOAD_H

#include "cl_runtime.h"

/* One column: row r's bytes are host[r * row_bytes ...], bound for the same
 * offset of buf. */
typedef struct gt_upload_column {
	cl_mem buf;
	const void *host;
	size_t row_bytes;
} gt_upload_column;

enum { GT_UPLOAD_MAX_COLUMNS = 4 };

typedef struct gt_upload gt_upload;

/* Starts an upload of up to GT_UPLOAD_MAX_COLUMNS columns on cl's queue.
 * Without a thread (none could start, or a fault-injection build, whose
 * call order must not depend on scheduling) each piece is copied in
 * gt_upload_ready instead. The queue is the upload's until it finishes. */
int gt_upload_start(gt_upload **out, gt_cl *cl, const gt_upload_column *cols, int ncols, gt_error *err);

/* Rows [0, rows) of every column are final and may be copied. */
void gt_upload_ready(gt_upload *u, uint64_t rows);

/* Waits until every ready row is on the device and ends the upload;
 * *transfer_ns gets the copies' device time (profiling events). Fails with
 * GT_EDEVICE when a copy failed. */
int gt_upload_finish(gt_upload *u, uint64_t *transfer_ns, gt_error *err);

#endif
