/* A query's reach (tindex.h): the run of a level's records between the
 * first and the last coarsest-level node that meets the query. The host
 * reference and the OpenCL path both take it from here, so they test the
 * same records. */
#include <stdlib.h>

#include "tindex.h"
#include "base/base.h"

/* Records per directory block: 64 summaries of 40 bytes, a few cache
 * lines to scan once the block is known to meet the query. */
#define REACH_BLOCK 64

static const gt_tnode *top_level(const gt_tindex *ix, uint64_t *n)
{
	uint32_t L = ix->level_count - 1;
	if (L == 0) {
		*n = ix->batch_count;
		return ix->batches;
	}
	*n = ix->levels[L].node_count;
	return ix->nodes + ix->levels[L].first_node;
}

int gt_treach_dir_build(gt_treach_dir *d, const gt_tindex *ix, gt_error *err)
{
	uint64_t n;
	const gt_tnode *top = top_level(ix, &n);
	d->nodes = n;
	d->block_nodes = REACH_BLOCK;
	d->block_count = (n + REACH_BLOCK - 1) / REACH_BLOCK;
	d->blocks = gt_fault_hit("alloc") ? NULL : malloc((d->block_count ? d->block_count : 1) * sizeof *d->blocks);
	if (!d->blocks)
		return gt_fail(err, GT_EINPUT, "out of memory for the query directory");
	for (uint64_t b = 0; b < d->block_count; b++) {
		gt_treach_block s = {INT64_MAX, INT64_MIN, UINT32_MAX, 0, 0, 0};
		uint64_t i1 = (b + 1) * REACH_BLOCK < n ? (b + 1) * REACH_BLOCK : n;
		for (uint64_t i = b * REACH_BLOCK; i < i1; i++) {
			const gt_tnode *t = &top[i];
			if (t->group >= 32)
				continue; /* meets no query */
			s.min_start = t->min_start < s.min_start ? t->min_start : s.min_start;
			s.max_end = t->max_end > s.max_end ? t->max_end : s.max_end;
			s.min_lane = t->min_lane < s.min_lane ? t->min_lane : s.min_lane;
			s.max_lane = t->max_lane > s.max_lane ? t->max_lane : s.max_lane;
			s.groups |= 1u << t->group;
		}
		d->blocks[b] = s;
	}
	return 0;
}

void gt_treach_dir_free(gt_treach_dir *d)
{
	free(d->blocks);
	d->blocks = NULL;
	d->block_count = 0;
}

/* True when some record of the block may meet q: the block's bounds hold
 * every member's, so a member meeting q means the block does. */
static bool block_meets(const gt_treach_block *b, const gt_tquery *q)
{
	return (b->groups & q->groups) && b->min_start <= q->t1 && b->max_end >= q->t0 && b->min_lane < q->lane1 &&
	       b->max_lane >= q->lane0;
}

static uint64_t first_meeting(const gt_tnode *top, uint64_t n, const gt_treach_dir *dir, const gt_tquery *q)
{
	uint64_t B = dir ? dir->block_nodes : n;
	for (uint64_t i0 = 0; i0 < n; i0 += B) {
		if (dir && !block_meets(&dir->blocks[i0 / B], q))
			continue;
		uint64_t i1 = n - i0 > B ? i0 + B : n;
		for (uint64_t i = i0; i < i1; i++)
			if (gt_tnode_meets(&top[i], q))
				return i;
	}
	return n;
}

/* The last record meeting q; there is one at or after `from`. */
static uint64_t last_meeting(const gt_tnode *top, uint64_t n, const gt_treach_dir *dir, const gt_tquery *q,
			     uint64_t from)
{
	uint64_t B = dir ? dir->block_nodes : n;
	for (uint64_t b = (n - 1) / B + 1; b-- > from / B;) {
		if (dir && !block_meets(&dir->blocks[b], q))
			continue;
		uint64_t i0 = b * B, i1 = n - i0 > B ? i0 + B : n;
		for (uint64_t i = i1; i-- > i0;)
			if (gt_tnode_meets(&top[i], q))
				return i;
	}
	return from;
}

/* Nodes [0, n) sorted by first (as a valid index stores them): the count of
 * those with first < key, or with first <= key when `or_equal`. Any array
 * gives an index in [0, n], so a corrupt one only widens or narrows the
 * reach, the same way on every device. */
static uint64_t count_before(const gt_tnode *nodes, uint64_t n, uint64_t key, bool or_equal)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (nodes[mid].first < key || (or_equal && nodes[mid].first == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void gt_tindex_reach(const gt_tindex *ix, const gt_treach_dir *dir, const gt_tquery *q, uint64_t *lo,
		     uint64_t *hi)
{
	uint64_t n;
	const gt_tnode *top = top_level(ix, &n);
	if (dir && dir->nodes != n)
		dir = NULL; /* built for another index */
	uint64_t f = first_meeting(top, n, dir, q);
	*lo = *hi = 0;
	if (f == n)
		return;
	uint64_t l = last_meeting(top, n, dir, q, f);
	uint32_t top_level_no = ix->level_count - 1;
	if (q->level == top_level_no) {
		*lo = f;
		*hi = l + 1;
		return;
	}
	/* the batches under nodes f..l, clamped to the batch array */
	uint64_t b0 = top[f].first, b1 = (uint64_t)top[l].first + top[l].count;
	b0 = b0 < ix->batch_count ? b0 : ix->batch_count;
	b1 = b1 < ix->batch_count ? b1 : ix->batch_count;
	if (b1 < b0)
		b1 = b0;
	if (q->level == 0) {
		*lo = b0;
		*hi = b1;
		return;
	}
	const gt_tlevel *lv = &ix->levels[q->level];
	const gt_tnode *nodes = ix->nodes + lv->first_node;
	/* from the node holding batch b0 to the last node starting before b1 */
	uint64_t a = count_before(nodes, lv->node_count, b0, true);
	*lo = a ? a - 1 : 0;
	*hi = count_before(nodes, lv->node_count, b1, false);
	if (*hi < *lo)
		*hi = *lo;
}
