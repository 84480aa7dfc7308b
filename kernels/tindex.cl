/* Temporal-index viewport queries, hierarchy validation and the brute-force
 * span scan they are benchmarked against. OpenCL C 1.2.
 *
 * The brute-force passes work on a fixed number G of work-groups of W
 * work-items; group g owns the contiguous chunk g of the n items
 * (reduce-then-scan), so the output order is canonical whatever the
 * scheduling. A query is two launches over slots (see tq_slots_count):
 * no readback happens inside it. */

typedef struct {
	long min_start;
	long max_end;
	uint first;
	uint count;
	uint min_lane;
	uint max_lane;
	uint group;
	uint partition;
} tnode;

typedef struct {
	long t0, t1;
	uint lane0, lane1, groups, pad;
} tquery;

static int meets(__global const tnode *n, tquery q)
{
	return n->min_start <= q.t1 && n->max_end >= q.t0 && n->min_lane < q.lane1 && n->max_lane >= q.lane0 &&
	       n->group < 32 && ((q.groups >> n->group) & 1u);
}

static void chunk_of(ulong n, ulong *c0, ulong *c1)
{
	ulong G = get_num_groups(0), W = get_local_size(0), g = get_group_id(0);
	ulong per = (n + G - 1) / G;
	per = (per + W - 1) / W * W;
	*c0 = min(n, g * per);
	*c1 = min(n, *c0 + per);
}

/* The host caps work-groups at 256 items (a power of two), so the scan and
 * the sum below are unrolled for 256: steps past the group's size change
 * nothing. Unrolled, no barrier sits in a loop nested in a caller's loop,
 * which some OpenCL compilers (PoCL 5) fail to handle. */
#define SCAN_STEP(off)                                           \
	do {                                                     \
		uint add_ = l >= (off) ? tmp[l - (off)] : 0u;    \
		barrier(CLK_LOCAL_MEM_FENCE);                    \
		tmp[l] += add_;                                  \
		barrier(CLK_LOCAL_MEM_FENCE);                    \
	} while (0)

/* Exclusive scan of one flag per work-item in local memory (Hillis-Steele
 * in place); returns the item's prefix, *total the tile's sum. */
static uint tile_scan(uint flag, __local uint *tmp, uint *total)
{
	uint W = get_local_size(0), l = get_local_id(0);
	tmp[l] = flag;
	barrier(CLK_LOCAL_MEM_FENCE);
	SCAN_STEP(1);
	SCAN_STEP(2);
	SCAN_STEP(4);
	SCAN_STEP(8);
	SCAN_STEP(16);
	SCAN_STEP(32);
	SCAN_STEP(64);
	SCAN_STEP(128);
	uint incl = tmp[l];
	*total = tmp[W - 1];
	barrier(CLK_LOCAL_MEM_FENCE);
	return incl - flag;
}

#define SUM_STEP(s)                                              \
	do {                                                     \
		if (l < (s) && l + (s) < W)                      \
			tmp[l] += tmp[l + (s)];                  \
		barrier(CLK_LOCAL_MEM_FENCE);                    \
	} while (0)

static ulong group_sum(ulong v, __local ulong *tmp)
{
	uint W = get_local_size(0), l = get_local_id(0);
	tmp[l] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	SUM_STEP(128);
	SUM_STEP(64);
	SUM_STEP(32);
	SUM_STEP(16);
	SUM_STEP(8);
	SUM_STEP(4);
	SUM_STEP(2);
	SUM_STEP(1);
	ulong r = tmp[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

/* A query is two launches, whatever its level: tq_slots_count, then
 * tq_slots_compact, over the same slots. Slot i is leaf i % S of node i / S
 * of the level (S: the level's largest leaf count), so every leaf of every
 * node has its own work-item and the slots come in batch order: the
 * compacted hits are the candidates in the host's order with no list of
 * matched nodes and no second stage. A slot tests its node (a record the
 * S slots of the node share, so it comes from the cache) and, only when
 * the node meets the query, its leaf. The slots cover the query's reach
 * (tindex.h): node off + i / S of the level, or at level 0 (S = 0) batch
 * off + i. Group g owns slots [g W R, (g + 1) W R) and walks them in R
 * coalesced rounds of W. */
static int slot(ulong i, uint S, __global const tnode *nodes, ulong off, __global const tnode *batches,
		uint nbatches, tquery q, uint *id, uint *tested)
{
	*tested = 0;
	if (S == 0) {
		*id = (uint)(off + i);
		return meets(&batches[*id], q);
	}
	nodes += off;
	/* 32-bit division when the slots fit (always, but for an absurd
	 * index): 64-bit division is a long sequence on a GPU */
	ulong node;
	uint j;
	if (i <= 0xffffffffu) {
		node = (uint)i / S;
		j = (uint)i % S;
	} else {
		node = i / S;
		j = (uint)(i % S);
	}
	__global const tnode *n = &nodes[node];
	if (j >= n->count || (ulong)n->first + j >= nbatches || !meets(n, q))
		return 0;
	*id = n->first + j;
	*tested = 1;
	return meets(&batches[*id], q);
}

/* Launch 1: each group counts its slots' hits and leaf tests; the group
 * that finishes last (a ticket taken after its sums are written) scans
 * the G group sums into goff (K = ceil(G / W) per work-item), puts the
 * total in ctrl[2], the leaves tested in ctrl[1], and returns the ticket
 * to 0 for the next query. */
__kernel void tq_slots_count(ulong n, uint S, __global const tnode *nodes, ulong node_off,
			     __global const tnode *batches, uint nbatches, tquery q, uint R, uint K,
			     __global uint *gsum, __global ulong *gweight, __global uint *goff, __global ulong *ctrl,
			     __global volatile uint *ticket, __local uint *sums, __local uint *tmp, __local ulong *tmpw)
{
	uint W = get_local_size(0), l = get_local_id(0), G = get_num_groups(0);
	ulong c0 = (ulong)get_group_id(0) * W * R;
	uint cnt = 0, w = 0;
	for (uint j = 0; j < R; j++) {
		ulong i = c0 + (ulong)j * W + l;
		uint id, t;
		if (i < n) {
			cnt += (uint)slot(i, S, nodes, node_off, batches, nbatches, q, &id, &t);
			w += t;
		}
	}
	ulong tc = group_sum(cnt, tmpw);
	ulong tw = group_sum(w, tmpw);
	if (l == 0) {
		gsum[get_group_id(0)] = (uint)tc;
		gweight[get_group_id(0)] = tw;
		mem_fence(CLK_GLOBAL_MEM_FENCE);
		tmp[0] = atomic_inc(ticket) == G - 1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	uint last = tmp[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (!last)
		return;
	mem_fence(CLK_GLOBAL_MEM_FENCE);
	/* volatile: the other groups' sums, not a cached copy */
	__global volatile const uint *vs = gsum;
	__global volatile const ulong *vw = gweight;
	ulong all_w = 0;
	for (uint k = 0; k < K; k++) {
		uint g = k * W + l;
		sums[g] = g < G ? vs[g] : 0u;
		all_w += g < G ? vw[g] : 0ul;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	uint mine = 0;
	for (uint k = 0; k < K; k++)
		mine += sums[l * K + k];
	uint total;
	uint at = tile_scan(mine, tmp, &total);
	for (uint k = 0; k < K; k++) {
		uint g = l * K + k;
		if (g < G)
			goff[g] = at;
		at += sums[g];
	}
	all_w = group_sum(all_w, tmpw);
	if (l == 0) {
		ctrl[2] = total;
		ctrl[1] = all_w;
		*ticket = 0;
	}
}

/* The brute force's pass 2 (one group of G items): exclusive scan of the group sums into
 * goff; the total goes to ctrl[dst], the weights' total to ctrl[wdst]. */
__kernel void tq_scan(uint G, __global const uint *gsum, __global const ulong *gweight, __global uint *goff,
		      __global ulong *ctrl, uint dst, uint wdst, __local uint *tmp, __local ulong *tmpw)
{
	uint l = get_local_id(0);
	uint v = l < G ? gsum[l] : 0u;
	uint total;
	uint ex = tile_scan(v, tmp, &total);
	if (l < G)
		goff[l] = ex;
	ulong tw = group_sum(l < G ? gweight[l] : 0ul, tmpw);
	if (l == 0) {
		ctrl[dst] = total;
		ctrl[wdst] = tw;
	}
}

/* The slice of a group's chunk [c0, c1) that work-item l owns: contiguous
 * slices in item order, so writing each slice's hits in order at its
 * prefix keeps the canonical order. No barrier sits inside a loop: PoCL 5
 * cannot compile a barrier in a loop here. */
static void slice_of(ulong c0, ulong c1, ulong *a, ulong *b)
{
	ulong W = get_local_size(0), l = get_local_id(0), len = c1 - c0;
	ulong per = (len + W - 1) / W;
	*a = c0 + min(len, l * per);
	*b = c0 + min(len, (l + 1) * per);
}

/* Launch 2: each group marks its slots' hits in local memory in the same
 * coalesced rounds (a group that counted none leaves at once), then
 * work-item l writes the hits of local slots [l R, (l + 1) R) at the
 * group's offset plus its prefix: slot order, the first cap of them. */
__kernel void tq_slots_compact(ulong n, uint S, __global const tnode *nodes, ulong node_off,
			       __global const tnode *batches, uint nbatches, tquery q, uint R,
			       __global const uint *gsum, __global const uint *goff, __global uint *out, ulong cap,
			       __local uchar *hit, __local uint *tmp)
{
	/* most groups of a narrow window have no hit: the whole group leaves */
	if (gsum[get_group_id(0)] == 0)
		return;
	uint W = get_local_size(0), l = get_local_id(0);
	ulong c0 = (ulong)get_group_id(0) * W * R;
	for (uint j = 0; j < R; j++) {
		ulong i = c0 + (ulong)j * W + l;
		uint id, t;
		hit[j * W + l] = i < n ? (uchar)slot(i, S, nodes, node_off, batches, nbatches, q, &id, &t) : (uchar)0;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	uint cnt = 0;
	for (uint k = 0; k < R; k++)
		cnt += hit[l * R + k];
	uint total;
	ulong at = goff[get_group_id(0)] + tile_scan(cnt, tmp, &total);
	for (uint k = 0; k < R && at < cap; k++) {
		if (!hit[l * R + k])
			continue;
		ulong i = c0 + (ulong)l * R + k;
		out[at++] = S == 0 ? (uint)(node_off + i) : nodes[node_off + i / S].first + (uint)(i % S);
	}
}

#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

/* A published count: the tag in the high half, the value in the low; each
 * word is written and read whole (a 64-bit atomic), so no ordering between
 * separate words is assumed. */
static ulong look_read(__global volatile long *p)
{
	/* an aligned 64-bit load is whole on the devices we run (an atomic
	 * read-modify-write here serialised the groups that read one word) */
	return (ulong)*p;
}

/* Group j's counts under tag `want` (its own, or its inclusive prefix):
 * waits until both words carry the same tag of this query. Returns it. */
static uint look_pair(__global volatile long *look, uint j, uint agg_tag, uint *cnt, uint *w)
{
	for (;;) {
		ulong a = look_read(&look[2 * (ulong)j]), b = look_read(&look[2 * (ulong)j + 1]);
		uint ta = (uint)(a >> 32), tb = (uint)(b >> 32);
		if (ta == tb && (ta == agg_tag || ta == agg_tag + 1)) {
			*cnt = (uint)a;
			*w = (uint)b;
			return ta;
		}
	}
}

/* A query in one launch: a single-pass scan ("decoupled look-back"). A
 * group takes a ticket as it starts (so every group before it is running or
 * done), tests its slots as tq_slots_count does, publishes its hit and leaf
 * counts, adds those of the groups before it (going back until one has
 * published its inclusive prefix), publishes its own prefix, and writes its
 * hits at their place: slot order, the first cap of them. Tags carry the
 * query's epoch (2 epoch + 1: a group's own counts, + 2: its prefix), so
 * nothing is cleared between queries. The last ticket puts the totals in
 * ctrl[2] (hits) and ctrl[1] (leaves tested) and returns the ticket to 0. */
__kernel void tq_slots_onepass(ulong n, uint S, __global const tnode *nodes, ulong node_off,
			       __global const tnode *batches, uint nbatches, tquery q, uint R, uint epoch,
			       __global volatile uint *ticket, __global volatile long *look, __global uint *out,
			       ulong cap, __global ulong *ctrl, __local uchar *hit, __local uint *ids, __local uint *tmp,
			       __local ulong *tmpw)
{
	uint W = get_local_size(0), l = get_local_id(0), G = get_num_groups(0);
	if (l == 0)
		tmp[0] = atomic_inc(ticket);
	barrier(CLK_LOCAL_MEM_FENCE);
	uint g = tmp[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	ulong c0 = (ulong)g * W * R;
	uint w = 0;
	for (uint j = 0; j < R; j++) {
		ulong i = c0 + (ulong)j * W + l;
		uint id = 0, t = 0;
		hit[j * W + l] = i < n ? (uchar)slot(i, S, nodes, node_off, batches, nbatches, q, &id, &t) : (uchar)0;
		ids[j * W + l] = id;
		w += t;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	uint cnt = 0;
	for (uint k = 0; k < R; k++)
		cnt += hit[l * R + k];
	uint total;
	uint ex = tile_scan(cnt, tmp, &total);
	uint tw = (uint)group_sum(w, tmpw);
	uint agg_tag = 2 * epoch + 1;
	if (l == 0 && g > 0) {
		atom_xchg(&look[2 * (ulong)g], (long)(((ulong)agg_tag << 32) | total));
		atom_xchg(&look[2 * (ulong)g + 1], (long)(((ulong)agg_tag << 32) | tw));
	}
	/* The look-back, LB groups at a time, one per work-item (a serial walk
	 * cost a global read's latency per group: slower than two launches at
	 * 100M spans on the H200): the nearest group with its prefix out ends
	 * it. tmp (free after the scan) holds that group's distance and the
	 * sums. The loop is uniform: every item computes the same base. */
	uint before = 0, before_w = 0;
	const uint LB = min(W, 32u); /* groups read per step: enough, most end at the nearest */
	for (long base = (long)g - 1; base >= 0; base -= LB) {
		long j = l < LB ? base - (long)l : -1;
		uint c = 0, cw = 0, tag = 0;
		if (j >= 0)
			tag = look_pair(look, (uint)j, agg_tag, &c, &cw);
		if (l == 0) {
			tmp[0] = W;
			tmp[1] = 0;
			tmp[2] = 0;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		if (j >= 0 && tag == agg_tag + 1)
			atomic_min(&tmp[0], l);
		barrier(CLK_LOCAL_MEM_FENCE);
		uint stop = tmp[0];
		if (j >= 0 && l <= stop) {
			atomic_add(&tmp[1], c);
			atomic_add(&tmp[2], cw);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		before += tmp[1];
		before_w += tmp[2];
		barrier(CLK_LOCAL_MEM_FENCE);
		if (stop < LB)
			break;
	}
	if (l == 0) {
		/* the prefix: count first, weight second, read back as a pair */
		atom_xchg(&look[2 * (ulong)g], (long)(((ulong)(agg_tag + 1) << 32) | (before + total)));
		atom_xchg(&look[2 * (ulong)g + 1], (long)(((ulong)(agg_tag + 1) << 32) | (before_w + tw)));
		if (g == G - 1) {
			ctrl[2] = before + total;
			ctrl[1] = before_w + tw;
			*ticket = 0;
		}
	}
	ulong at = (ulong)before + ex;
	for (uint k = 0; k < R && at < cap; k++)
		if (hit[l * R + k])
			out[at++] = ids[l * R + k];
}
#endif

/* Validation bits of every hierarchy record (batches first, then nodes);
 * the same checks as gt_tindex_validate. Spans (in batch order: start,
 * end, lane, group) are checked when nspans > 0. */
__kernel void tq_validate(__global const tnode *batches, uint nbatches, __global const tnode *nodes,
			  ulong nnodes, uint P, uint B, uint span_count, __global const uint *order,
			  __global const long *sp_start, __global const long *sp_end, __global const uint *sp_lane,
			  __global const uchar *sp_group, uint check_spans, __global uchar *bits)
{
	ulong r = get_global_id(0);
	if (r >= nbatches + nnodes)
		return;
	uchar v = 0;
	if (r < nbatches) {
		tnode b = batches[r];
		if (b.count == 0 || b.count > B || b.first > span_count || b.count > span_count - b.first)
			v |= 1;
		if (b.partition != r / P)
			v |= 2;
		if (b.min_start > b.max_end || b.min_lane > b.max_lane)
			v |= 8;
		if (check_spans && !(v & 1)) {
			for (uint k = b.first; k < b.first + b.count; k++) {
				uint id = order[k];
				if (id >= span_count) {
					v |= 1;
					continue;
				}
				if (sp_group[id] != b.group)
					v |= 4;
				if (sp_start[id] < b.min_start || sp_end[id] > b.max_end || sp_lane[id] < b.min_lane ||
				    sp_lane[id] > b.max_lane)
					v |= 8;
			}
		}
	} else {
		tnode n = nodes[r - nbatches];
		if (n.count == 0 || n.count > P || n.first >= nbatches || n.count > nbatches - n.first) {
			v = 1 | (n.partition != n.first / P ? 2 : 0);
		} else {
			if (n.partition != n.first / P || (n.first + n.count - 1) / P != n.partition)
				v |= 2;
			for (uint b = n.first; b < n.first + n.count; b++) {
				tnode lb = batches[b];
				if (lb.group != n.group)
					v |= 4;
				if (lb.min_start < n.min_start || lb.max_end > n.max_end || lb.min_lane < n.min_lane ||
				    lb.max_lane > n.max_lane)
					v |= 8;
			}
		}
	}
	bits[r] = v;
}

/* The brute-force baseline: the same count / scan / compact passes over
 * the span table itself (columns start, end, lane, group), writing the ids
 * of the spans that meet the query. */
static int span_meets(ulong i, __global const long *s, __global const long *e, __global const uint *lane,
		      __global const uchar *grp, tquery q)
{
	return s[i] <= q.t1 && e[i] >= q.t0 && lane[i] >= q.lane0 && lane[i] < q.lane1 && grp[i] < 32 &&
	       ((q.groups >> grp[i]) & 1u);
}

__kernel void brute_count(ulong n, __global const long *s, __global const long *e, __global const uint *lane,
			  __global const uchar *grp, tquery q, __global uint *gsum, __global ulong *gweight,
			  __local ulong *tmp)
{
	ulong c0, c1;
	chunk_of(n, &c0, &c1);
	uint cnt = 0;
	for (ulong i = c0 + get_local_id(0); i < c1; i += get_local_size(0))
		cnt += span_meets(i, s, e, lane, grp, q);
	ulong tc = group_sum(cnt, tmp);
	if (get_local_id(0) == 0) {
		gsum[get_group_id(0)] = (uint)tc;
		gweight[get_group_id(0)] = c1 - c0;
	}
}

__kernel void brute_compact(ulong n, __global const long *s, __global const long *e, __global const uint *lane,
			    __global const uchar *grp, tquery q, __global const uint *goff, __global uint *out,
			    ulong cap, __local uint *tmp)
{
	ulong c0, c1, a, b;
	chunk_of(n, &c0, &c1);
	slice_of(c0, c1, &a, &b);
	uint cnt = 0;
	for (ulong i = a; i < b; i++)
		cnt += (uint)span_meets(i, s, e, lane, grp, q);
	uint total;
	ulong at = goff[get_group_id(0)] + tile_scan(cnt, tmp, &total);
	for (ulong i = a; i < b && at < cap; i++)
		if (span_meets(i, s, e, lane, grp, q))
			out[at++] = (uint)i;
}

/* The plain brute force: one work-item per span marks it and a
 * work-group sum adds the hits to a global count (zeroed first). */
__kernel void brute_mark(ulong n, __global const long *s, __global const long *e, __global const uint *lane,
			 __global const uchar *grp, tquery q, __global uchar *flags, __global uint *count,
			 __local ulong *tmp)
{
	ulong i = get_global_id(0);
	uint hit = i < n ? (uint)span_meets(i, s, e, lane, grp, q) : 0u;
	if (i < n)
		flags[i] = (uchar)hit;
	ulong t = group_sum(hit, tmp);
	if (get_local_id(0) == 0 && t)
		atomic_add(count, (uint)t);
}
