/* The flow v1 points in (cat, id, ts, file order) order, the order in
 * which the finishing links them into flows, on threads. */
#ifndef GT_FLOW_POINT_SORT_H
#define GT_FLOW_POINT_SORT_H

#include "builder.h"

/* Sorts the n points of *points (malloc'd; seq[i] == i when it applies)
 * by (key, ts_ns, seq), on up to `threads` threads (0: one per core); the
 * array may be replaced by a new one (the old freed). 0 sorted; 1 where
 * the keys' words span more than 64 bits together or seq is not each
 * point's index (nothing done: a comparison sort must); -1 out of memory
 * (nothing done). */
int gt_flow_points_sort(flow_point **points, uint32_t n, unsigned threads);

#endif
