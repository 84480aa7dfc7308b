/* An epoch's spans in the temporal index's order: by (group, band, start,
 * id), band = lane / lane_band, and their cut into batches. Private to
 * tindex/. */
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

/* Threads for a pass over an epoch's n spans: one per core (-j), each
 * with 65536 spans at least, below which a thread costs more than it
 * gives. */
#define GT_TINDEX_SPANS_PER_THREAD 65536
static inline unsigned gt_tindex_threads(uint32_t n)
{
	unsigned k = gt_thread_count(0, GT_MAX_JOBS);
	uint32_t by_size = n / GT_TINDEX_SPANS_PER_THREAD;
	return by_size < 1 ? 1 : by_size < k ? by_size : k;
}

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

/* n grown to cover b's times and lanes. */
static inline void gt_tnode_add(gt_tnode *n, const gt_tnode *b)
{
	if (b->min_start < n->min_start)
		n->min_start = b->min_start;
	if (b->max_end > n->max_end)
		n->max_end = b->max_end;
	if (b->min_lane < n->min_lane)
		n->min_lane = b->min_lane;
	if (b->max_lane > n->max_lane)
		n->max_lane = b->max_lane;
}

/* tindex_cut.c: appends the batches of one epoch, keys[0..n) in the order
 * (span positions from e0), to *batches (*count of them, room for *cap,
 * grown): a batch per batch_spans keys of one (group, band), a run's last
 * shorter, each with its partition. On threads (one per core); -1 out of
 * memory. */
int gt_tindex_cut_epoch(const gt_tindex_key *keys, uint32_t n, uint32_t e0, const gt_tindex_params *p,
			gt_tnode **batches, uint32_t *count, size_t *cap);

#endif
