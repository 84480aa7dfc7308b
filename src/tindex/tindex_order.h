/* An epoch's spans in the temporal index's order: by (group, band, start,
 * id), band = lane / lane_band. Private to tindex/. */
#ifndef GT_TINDEX_ORDER_H
#define GT_TINDEX_ORDER_H

#include <stdint.h>

#include "tindex.h"

/* What the batches read of a span, in the order: the cut then runs over
 * these in sequence, not back to the spans in scattered order. */
typedef struct gt_tindex_key {
	int64_t ts, end;
	uint32_t lane, band;
	uint8_t group;
} gt_tindex_key;

/* The packed keys, the radix sort's scratch and the keys in order, kept
 * from epoch to epoch. */
typedef struct gt_tindex_sorter {
	uint64_t *key, *tk;
	uint32_t *tv;
	gt_tindex_key *sorted;
	uint32_t cap;
} gt_tindex_sorter;

/* order[k] = the id of the k-th span of [e0, e0 + n) in the order, and
 * ws->sorted[k] its key, on threads (one per core); -1 out of memory. */
int gt_tindex_epoch_order(const gt_model *m, uint32_t e0, uint32_t n, uint32_t lane_band, gt_tindex_sorter *ws,
			  uint32_t *order);
void gt_tindex_sorter_free(gt_tindex_sorter *ws);

#endif
