/* Temporal index: packing, hierarchy levels, incremental rebuild. The
 * batching choice is explained in tindex.h. */
#include <stdlib.h>
#include <string.h>

#include "tindex.h"
#include "tindex_order.h"
#include "base/base.h"

void gt_tindex_default_params(gt_tindex_params *p)
{
	p->batch_spans = 64;
	p->partition_batches = 256;
	p->fanout = 8;
	p->lane_band = 4;
	p->epoch_spans = 1u << 20;
}

int gt_tindex_check_params(const gt_tindex_params *p, gt_error *err)
{
	if (p->batch_spans < 1 || p->batch_spans > (1u << 20))
		return gt_fail(err, GT_EUSAGE, "batch spans must be 1 to 1048576, not %u", p->batch_spans);
	if (p->partition_batches < 1 || p->partition_batches > (1u << 16))
		return gt_fail(err, GT_EUSAGE, "partition batches must be 1 to 65536, not %u",
			       p->partition_batches);
	if (p->fanout < 2 || p->fanout > 1024)
		return gt_fail(err, GT_EUSAGE, "fanout must be 2 to 1024, not %u", p->fanout);
	if (p->lane_band < 1)
		return gt_fail(err, GT_EUSAGE, "lane band must be at least 1");
	if (p->epoch_spans < p->batch_spans)
		return gt_fail(err, GT_EUSAGE, "epoch spans (%u) must be at least batch spans (%u)",
			       p->epoch_spans, p->batch_spans);
	return 0;
}

/* Cuts the spans into batches and fills order[] and batches[]. */
static int build_batches(gt_tindex *ix, const gt_model *m, gt_error *err)
{
	const gt_tindex_params *p = &ix->p;
	uint32_t n = m->span_count;
	ix->span_count = n;
	ix->order = gt_fault_hit("alloc") ? NULL : malloc((n ? n : 1) * sizeof *ix->order);
	size_t cap = n / p->batch_spans + 16;
	ix->batches = gt_fault_hit("alloc") ? NULL : malloc(cap * sizeof *ix->batches);
	if (!ix->order || !ix->batches)
		return gt_fail(err, GT_EINPUT, "out of memory packing %u spans", n);
	gt_tindex_sorter ws = {0};
	uint32_t nb = 0;
	for (uint32_t e0 = 0; e0 < n; e0 += p->epoch_spans) {
		uint32_t e1 = n - e0 > p->epoch_spans ? e0 + p->epoch_spans : n;
		if (gt_tindex_epoch_order(m, e0, e1 - e0, p->lane_band, &ws, ix->order + e0) < 0) {
			gt_tindex_sorter_free(&ws);
			return gt_fail(err, GT_EINPUT, "out of memory packing %u spans", n);
		}
		if (gt_tindex_cut_epoch(ws.sorted, e1 - e0, e0, p, &ix->batches, &nb, &cap) < 0) {
			gt_tindex_sorter_free(&ws);
			return gt_fail(err, GT_EINPUT, "out of memory packing %u spans", n);
		}
	}
	gt_tindex_sorter_free(&ws);
	ix->batch_count = nb;
	ix->partition_count = (nb + p->partition_batches - 1) / p->partition_batches;
	ix->dirty = gt_fault_hit("alloc") ? NULL : calloc(ix->partition_count ? ix->partition_count : 1, sizeof *ix->dirty);
	if (!ix->dirty)
		return gt_fail(err, GT_EINPUT, "out of memory packing %u spans", n);
	return 0;
}

/* Batches per node at each level: fanout^L, capped at the partition. */
static void plan_levels(gt_tindex *ix, uint32_t *chunk)
{
	uint32_t P = ix->p.partition_batches;
	ix->level_count = 1;
	chunk[0] = 1;
	while (chunk[ix->level_count - 1] < P && ix->level_count < GT_TINDEX_MAX_LEVELS) {
		uint64_t c = (uint64_t)chunk[ix->level_count - 1] * ix->p.fanout;
		chunk[ix->level_count++] = c > P ? P : (uint32_t)c;
	}
}

/* Appends the nodes of one partition at one level (chunk batches each). */
static size_t partition_nodes(const gt_tindex *ix, uint32_t part, uint32_t chunk, gt_tnode *out)
{
	uint32_t P = ix->p.partition_batches;
	uint32_t b0 = part * P, b1 = ix->batch_count - b0 > P ? b0 + P : ix->batch_count;
	size_t k = 0;
	uint32_t run = b0;
	for (uint32_t b = b0; b < b1; b++) {
		const gt_tnode *lb = &ix->batches[b];
		if (b > b0 && lb->group != ix->batches[b - 1].group)
			run = b;
		if (b == b0 || b == run || (b - run) % chunk == 0) {
			out[k++] = (gt_tnode){lb->min_start, lb->max_end, b, 0, lb->min_lane, lb->max_lane,
					     lb->group, part};
		}
		gt_tnode_add(&out[k - 1], lb);
		out[k - 1].count++;
	}
	return k;
}

/* Builds levels >= 1. With old, clean partitions copy old's nodes. */
static int build_levels(gt_tindex *ix, const gt_tindex *old, uint32_t *rebuilt, gt_error *err)
{
	uint32_t chunk[GT_TINDEX_MAX_LEVELS];
	plan_levels(ix, chunk);
	uint64_t cap = 0;
	for (uint32_t L = 1; L < ix->level_count; L++)
		cap += ix->batch_count; /* a node per batch at most */
	ix->nodes = gt_fault_hit("alloc") ? NULL : malloc((cap ? cap : 1) * sizeof *ix->nodes);
	if (!ix->nodes)
		return gt_fail(err, GT_EINPUT, "out of memory building the hierarchy");
	uint32_t P = ix->p.partition_batches;
	uint64_t total = 0;
	ix->levels[0] = (gt_tlevel){0, ix->batch_count, 1, 0};
	if (old && rebuilt) {
		*rebuilt = 0;
		for (uint32_t q = 0; q < ix->partition_count; q++)
			*rebuilt += ix->dirty[q] != 0;
	}
	for (uint32_t L = 0; L < ix->level_count; L++) {
		gt_tlevel *lv = &ix->levels[L];
		if (L > 0) {
			lv->first_node = total;
			lv->node_count = 0;
			lv->max_leaves = chunk[L];
			const gt_tnode *on = NULL, *oend = NULL;
			if (old) {
				on = old->nodes + old->levels[L].first_node;
				oend = on + old->levels[L].node_count;
			}
			for (uint32_t q = 0; q < ix->partition_count; q++) {
				gt_tnode *dst = ix->nodes + total;
				while (on && on < oend && on->partition < q)
					on++;
				size_t k = 0;
				if (old && !ix->dirty[q]) {
					while (on < oend && on->partition == q)
						dst[k++] = *on++;
				} else {
					k = partition_nodes(ix, q, chunk[L], dst);
				}
				total += k;
				lv->node_count += (uint32_t)k;
			}
		}
		const gt_tnode *nodes = L ? ix->nodes + lv->first_node : ix->batches;
		__int128 sum = 0;
		for (uint32_t i = 0; i < lv->node_count; i++)
			sum += (__int128)nodes[i].max_end - nodes[i].min_start;
		lv->mean_extent_ns = lv->node_count ? (int64_t)(sum / lv->node_count) : 0;
	}
	(void)P;
	ix->node_count = total;
	memset(ix->dirty, 0, (ix->partition_count ? ix->partition_count : 1) * sizeof *ix->dirty);
	return 0;
}

int gt_tindex_build(gt_tindex *ix, const gt_model *m, const gt_tindex_params *p, gt_error *err)
{
	memset(ix, 0, sizeof *ix);
	if (gt_tindex_check_params(p, err) < 0)
		return -1;
	ix->p = *p;
	if (build_batches(ix, m, err) < 0 || build_levels(ix, NULL, NULL, err) < 0) {
		gt_tindex_free(ix);
		return -1;
	}
	return 0;
}

int gt_tindex_update(gt_tindex *ix, const gt_tindex *old, const gt_model *m, uint32_t *rebuilt,
		     gt_error *err)
{
	memset(ix, 0, sizeof *ix);
	ix->p = old->p;
	if (gt_tindex_check_params(&old->p, err) < 0)
		return -1;
	uint32_t chunk[GT_TINDEX_MAX_LEVELS];
	gt_tindex probe = {.p = old->p};
	plan_levels(&probe, chunk);
	if (probe.level_count != old->level_count)
		return gt_fail(err, GT_EINPUT, "the old index has %u levels, its parameters give %u",
			       old->level_count, probe.level_count);
	if (build_batches(ix, m, err) < 0) {
		gt_tindex_free(ix);
		return -1;
	}
	/* A partition is dirty when any of its batch records changed (a
	 * record holds its span range, so moved spans count too). */
	uint32_t P = ix->p.partition_batches;
	for (uint32_t q = 0; q < ix->partition_count; q++) {
		uint32_t b0 = q * P;
		uint32_t n = ix->batch_count - b0 > P ? P : ix->batch_count - b0;
		uint32_t on = q < old->partition_count ? (old->batch_count - b0 > P ? P : old->batch_count - b0) : 0;
		ix->dirty[q] = q >= old->partition_count || n != on ||
			       memcmp(ix->batches + b0, old->batches + b0, n * sizeof *ix->batches) != 0;
	}
	if (build_levels(ix, old, rebuilt, err) < 0) {
		gt_tindex_free(ix);
		return -1;
	}
	return 0;
}

void gt_tindex_free(gt_tindex *ix)
{
	if (!ix)
		return;
	if (!ix->borrowed) {
		free(ix->batches);
		free(ix->order);
		free(ix->nodes);
		free(ix->dirty);
	}
	memset(ix, 0, sizeof *ix);
}

uint64_t gt_tindex_bytes(const gt_tindex *ix)
{
	return (uint64_t)ix->batch_count * sizeof(gt_tnode) + (uint64_t)ix->span_count * 4 +
	       ix->node_count * sizeof(gt_tnode) + (uint64_t)ix->partition_count * 4 +
	       ix->level_count * sizeof(gt_tlevel);
}
