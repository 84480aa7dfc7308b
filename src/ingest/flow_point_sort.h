/* The flow v1 points' order by (cat, id, ts, file order), the order in
 * which the finishing links them into flows, found on threads. */
#ifndef GT_FLOW_POINT_SORT_H
#define GT_FLOW_POINT_SORT_H

#include "builder.h"

/* *order (gt_big_malloc'd, n entries): the indices of p[0..n) by (key,
 * ts_ns, seq), on up to `threads` threads (0: one per core). 0 done; 1
 * where the keys' words span more than 64 bits together or seq is not
 * each point's index (a comparison sort must do it); -1 out of memory.
 * *order is NULL unless 0. */
int gt_flow_points_order(const flow_point *p, uint32_t n, unsigned threads, uint32_t **order);

#endif
