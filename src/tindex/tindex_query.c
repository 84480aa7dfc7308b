/* The host reference for temporal-index queries and hierarchy validation:
 * what the OpenCL path (tindex_cl.c) must reproduce bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tindex.h"
#include "base/base.h"

static void emit(gt_tresult *r, uint32_t b)
{
	if (r->count < r->capacity)
		r->candidates[r->count] = b;
	r->count++;
}

int gt_tindex_query(const gt_tindex *ix, const gt_tquery *q, gt_tresult *r, gt_error *err)
{
	if (q->level >= ix->level_count)
		return gt_fail(err, GT_EUSAGE, "level %u does not exist (the index has levels 0 to %u)", q->level,
			       ix->level_count - 1);
	r->count = r->nodes_tested = r->leaves_tested = 0;
	const gt_tlevel *lv = &ix->levels[q->level];
	uint64_t lo, hi;
	gt_tindex_reach(ix, NULL, q, &lo, &hi);
	r->nodes_tested = hi - lo;
	if (q->level == 0) {
		for (uint64_t b = lo; b < hi; b++)
			if (gt_tnode_meets(&ix->batches[b], q))
				emit(r, (uint32_t)b);
	} else {
		const gt_tnode *nodes = ix->nodes + lv->first_node;
		for (uint64_t i = lo; i < hi; i++) {
			if (!gt_tnode_meets(&nodes[i], q))
				continue;
			/* Clamped so that a corrupt record cannot reach outside the
			 * batches (validation reports it). */
			uint64_t b1 = (uint64_t)nodes[i].first + nodes[i].count;
			if (b1 > ix->batch_count)
				b1 = ix->batch_count;
			for (uint64_t b = nodes[i].first; b < b1; b++, r->leaves_tested++)
				if (gt_tnode_meets(&ix->batches[b], q))
					emit(r, (uint32_t)b);
		}
	}
	r->overflow = r->count > r->capacity;
	return 0;
}

uint32_t gt_tindex_auto_level(const gt_tindex *ix, int64_t width_ns, int64_t trace_ns)
{
	uint64_t w = 1;
	while (w < (uint64_t)(width_ns > 0 ? width_ns : 1) && w < (1ull << 62))
		w <<= 1;
	uint64_t T = trace_ns > 0 ? (uint64_t)trace_ns : 1;
	uint32_t best = 0;
	unsigned __int128 best_cost = ix->batch_count;
	/* Work at level L: its nodes, plus the leaves of the nodes that meet
	 * the window, estimated as the share (width + node extent) / trace. */
	for (uint32_t L = 1; L < ix->level_count; L++) {
		uint64_t reach = w + (uint64_t)(ix->levels[L].mean_extent_ns > 0 ? ix->levels[L].mean_extent_ns : 0);
		if (reach > T)
			reach = T;
		unsigned __int128 cost = ix->levels[L].node_count +
					 (unsigned __int128)reach * ix->batch_count / T;
		if (cost <= best_cost) {
			best_cost = cost;
			best = L;
		}
	}
	return best;
}

/* The span range of batch b, clamped to the order array. */
static uint64_t span_range(const gt_tindex *ix, uint32_t b, uint64_t *k0)
{
	const gt_tnode *bt = &ix->batches[b];
	uint64_t k1 = (uint64_t)bt->first + bt->count;
	*k0 = bt->first;
	return k1 > ix->span_count ? ix->span_count : k1;
}

static bool batch_has_hit(const gt_tindex *ix, const gt_model *m, const gt_tquery *q, uint32_t b)
{
	uint64_t k, k1 = span_range(ix, b, &k);
	for (; k < k1; k++)
		if (ix->order[k] < m->span_count && gt_span_meets(&m->spans[ix->order[k]], q))
			return true;
	return false;
}

uint64_t gt_tindex_false_positives(const gt_tindex *ix, const gt_model *m, const gt_tquery *q,
				   const uint32_t *cand, uint64_t n)
{
	uint64_t fp = 0;
	for (uint64_t i = 0; i < n; i++)
		fp += !batch_has_hit(ix, m, q, cand[i]);
	return fp;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int gt_tindex_expand(const gt_tindex *ix, const gt_model *m, const gt_tquery *q, const uint32_t *cand,
		     uint64_t ncand, uint32_t **out, uint64_t *n, gt_error *err)
{
	uint64_t total = 0;
	for (uint64_t i = 0; i < ncand; i++)
		total += ix->batches[cand[i]].count;
	uint32_t *ids = gt_fault_hit("alloc") ? NULL : malloc((total ? total : 1) * sizeof *ids);
	if (!ids)
		return gt_fail(err, GT_EINPUT, "out of memory expanding %llu spans", (unsigned long long)total);
	uint64_t k = 0;
	for (uint64_t i = 0; i < ncand; i++) {
		uint64_t j, j1 = span_range(ix, cand[i], &j);
		for (; j < j1; j++)
			if (ix->order[j] < m->span_count && gt_span_meets(&m->spans[ix->order[j]], q))
				ids[k++] = ix->order[j];
	}
	qsort(ids, k, sizeof *ids, cmp_u32);
	*out = ids;
	*n = k;
	return 0;
}

static bool bounds_cover(const gt_tnode *outer, int64_t s, int64_t e, uint32_t l0, uint32_t l1)
{
	return s >= outer->min_start && e <= outer->max_end && l0 >= outer->min_lane && l1 <= outer->max_lane;
}

static uint8_t check_batch(const gt_tindex *ix, const gt_model *m, uint32_t r)
{
	const gt_tnode *b = &ix->batches[r];
	uint8_t bits = 0;
	if (b->count == 0 || b->count > ix->p.batch_spans || b->first > ix->span_count ||
	    b->count > ix->span_count - b->first)
		bits |= GT_TV_LEAF_RANGE;
	if (b->partition != r / ix->p.partition_batches)
		bits |= GT_TV_PARTITION;
	if (b->min_start > b->max_end || b->min_lane > b->max_lane)
		bits |= GT_TV_BOUNDS;
	if (!m || (bits & GT_TV_LEAF_RANGE))
		return bits;
	for (uint32_t k = b->first; k < b->first + b->count; k++) {
		uint32_t id = ix->order[k];
		if (id >= m->span_count) {
			bits |= GT_TV_LEAF_RANGE;
			continue;
		}
		const gt_span *s = &m->spans[id];
		if (s->group != b->group)
			bits |= GT_TV_GROUP;
		if (!bounds_cover(b, s->ts_ns, gt_span_end(s), s->lane, s->lane))
			bits |= GT_TV_BOUNDS;
	}
	return bits;
}

static uint8_t check_node(const gt_tindex *ix, const gt_tnode *n)
{
	uint32_t P = ix->p.partition_batches;
	uint8_t bits = 0;
	if (n->count == 0 || n->count > P || n->first >= ix->batch_count || n->count > ix->batch_count - n->first)
		return GT_TV_LEAF_RANGE | (n->partition != n->first / P ? GT_TV_PARTITION : 0);
	if (n->partition != n->first / P || (n->first + n->count - 1) / P != n->partition)
		bits |= GT_TV_PARTITION;
	for (uint32_t b = n->first; b < n->first + n->count; b++) {
		const gt_tnode *lb = &ix->batches[b];
		if (lb->group != n->group)
			bits |= GT_TV_GROUP;
		if (!bounds_cover(n, lb->min_start, lb->max_end, lb->min_lane, lb->max_lane))
			bits |= GT_TV_BOUNDS;
	}
	return bits;
}

void gt_tindex_validate(const gt_tindex *ix, const gt_model *m, uint8_t *bits, uint32_t *all, uint64_t *bad)
{
	uint32_t acc = 0;
	uint64_t nbad = 0;
	for (uint64_t r = 0; r < gt_tindex_records(ix); r++) {
		uint8_t v = r < ix->batch_count ? check_batch(ix, m, (uint32_t)r)
						: check_node(ix, &ix->nodes[r - ix->batch_count]);
		if (bits)
			bits[r] = v;
		acc |= v;
		nbad += v != 0;
	}
	*all = acc;
	*bad = nbad;
}

int gt_tindex_check_structure(const gt_tindex *ix, gt_error *err)
{
	if (ix->level_count < 1 || ix->level_count > GT_TINDEX_MAX_LEVELS)
		return gt_fail(err, GT_EINPUT, "index has %u levels (1 to %d allowed)", ix->level_count,
			       GT_TINDEX_MAX_LEVELS);
	if (gt_tindex_check_params(&ix->p, err) < 0)
		return -1;
	uint32_t P = ix->p.partition_batches;
	if (ix->partition_count != (ix->batch_count + (uint64_t)P - 1) / P)
		return gt_fail(err, GT_EINPUT, "index has %u partitions for %u batches of %u", ix->partition_count,
			       ix->batch_count, P);
	if (ix->levels[0].node_count != ix->batch_count)
		return gt_fail(err, GT_EINPUT, "index level 0 has %u nodes, not the %u batches",
			       ix->levels[0].node_count, ix->batch_count);
	uint64_t next = 0;
	for (uint32_t L = 1; L < ix->level_count; L++) {
		const gt_tlevel *lv = &ix->levels[L];
		if (lv->first_node != next || lv->node_count > ix->node_count - next || lv->max_leaves < 1 ||
		    lv->max_leaves > P)
			return gt_fail(err, GT_EINPUT, "index level %u table entry is inconsistent", L);
		next += lv->node_count;
	}
	if (next != ix->node_count)
		return gt_fail(err, GT_EINPUT, "index levels hold %llu nodes, the node array %llu",
			       (unsigned long long)next, (unsigned long long)ix->node_count);
	return 0;
}

void gt_tindex_bits_str(uint32_t bits, char *buf, size_t len)
{
	static const char *const names[] = {"invalid leaf range", "range crossing its partition",
					    "node crossing a renderer-group boundary",
					    "summary narrower than its contents"};
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < 4; i++) {
		if (!(bits & (1u << i)))
			continue;
		int w = snprintf(buf + k, len - k, "%s%s (bit %u)", k ? ", " : "", names[i], 1u << i);
		if (w < 0 || (size_t)w >= len - k)
			return;
		k += (size_t)w;
	}
	if (!k)
		snprintf(buf, len, "none");
}
