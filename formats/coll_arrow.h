/* Reading back the per-rank collective summaries that `gputrace collectives
 * -f arrow` writes: an Arrow IPC file (or stream) with the columns rank
 * (int64), name (utf8), seq (uint64), begin_ns, end_ns, step (int64) and the
 * schema metadata key "ranks" (the ranks it covers, comma-separated). Other
 * Arrow files are refused with a located message, never misread. */
#ifndef GT_COLL_ARROW_H
#define GT_COLL_ARROW_H

#include "analysis/analysis.h"

/* Adds the file's ranks and kernels to s. A rank s already holds is an
 * error (two summaries of one rank). 0, or -1 with err. */
int gt_coll_arrow_read(gt_coll_set *s, const char *path, gt_error *err);
/* The same over the file's bytes p[0..n) (path names it in errors). */
int gt_coll_arrow_parse(gt_coll_set *s, const char *path, const unsigned char *p, size_t n, gt_error *err);

#endif
