/* The critical path over a parent forest by pointer jumping (contract in
 * src/forest/forest.h, host reference in src/forest/forest.c).
 *
 * State record per row, 16 bytes (uint4): xy = sum (int64), z = link,
 * w = meta (hops in bits 0..29, TERMINAL, DONE). While not TERMINAL, the
 * record covers the segment [i, link): sum of its durations and hops = its
 * parent edges. Once TERMINAL, link is the root (sum and hops then cover
 * i..root inclusive), or NONE for an invalid row, whose sum then holds its
 * own invalid_parent/invalid_duration bits (0 when inherited). A sum of -1
 * on a TERMINAL row with a root marks an overflow: valid sums are >= 0.
 * DONE means both buffers hold the final record, so the row is skipped.
 *
 * Every kernel takes `base`, the first row of its piece, so the host can
 * split a launch into pieces of at most --max-rows-per-pass rows. */

#define NONE 0xffffffffu
#define HOPS 0x3fffffffu
#define TERMINAL 0x40000000u
#define DONE 0x80000000u

#define F_INVALID_PARENT 1u
#define F_INVALID_DURATION 2u
#define F_CYCLE 4u
#define F_OVERFLOW 8u

static uint4 pack(long sum, uint link, uint meta)
{
	uint2 s = as_uint2(sum);
	return (uint4)(s.x, s.y, link, meta);
}

static long sum_of(uint4 r)
{
	return as_long(r.xy);
}

__kernel void cp_init(uint base, uint n, __global const uint *parent, __global const long *dur,
		      __global uint4 *st)
{
	uint i = base + (uint)get_global_id(0);
	if (i >= n)
		return;
	uint p = parent[i];
	long d = dur[i];
	uint bad = (d < 0 ? F_INVALID_DURATION : 0u) | (p != NONE && p >= n ? F_INVALID_PARENT : 0u);
	if (bad)
		st[i] = pack((long)bad, NONE, TERMINAL);
	else if (p == NONE)
		st[i] = pack(d, i, TERMINAL);
	else
		st[i] = pack(d, p, 1u);
}

/* Rows per busy word: busy[pass * blocks + i / BLOCK] is set when a row of
 * that block did any work in that pass; any[pass] when any row did. Between
 * the two, a word per 1024 blocks, so that few stores reach any[pass]: one
 * word that every busy block stored into would serialise them. */
#define BLOCK_SHIFT 10
#define GROUP_SHIFT 20

/* Row i's record after a pass, from its record s and, when s jumps, the
 * record a it gathered. */
static uint4 next_record(uint4 s, uint4 a)
{
	if (s.w & (DONE | TERMINAL))
		return s.w & TERMINAL ? (uint4)(s.xyz, s.w | DONE) : s;
	long as = sum_of(a), ss = sum_of(s);
	ulong t = (ulong)ss + (ulong)as;
	long sum = (ss < 0 || as < 0 || t > (ulong)LONG_MAX) ? -1 : (long)t;
	uint hops = ((s.w & HOPS) + (a.w & HOPS)) & HOPS;
	if (!(a.w & TERMINAL))
		return pack(sum, a.z, hops);
	if (a.z == NONE)
		return pack(0, NONE, TERMINAL); /* inherits an invalid row */
	return pack(sum, a.z, TERMINAL | hops);
}

static void note_busy(uint i, uint pass, __global uint *busy, uint blocks, __global uint *any,
		      __global uint *group_busy, uint groups)
{
	__global uint *mine = &busy[pass * blocks + (i >> BLOCK_SHIFT)];
	if (*mine == 0) {
		*mine = 1;
		__global uint *group = &group_busy[pass * groups + (i >> GROUP_SHIFT)];
		if (*group == 0) {
			*group = 1;
			any[pass] = 1;
		}
	}
}

/* One pass over rows [base, end): every unresolved row jumps over its
 * link's segment, doubling the resolved distance.
 * - Rows go in pairs (2k, 2k+1): the two records fill one 32-byte memory
 *   sector, and the pair is written whole when either row changes, so no
 *   write leaves half a sector for the memory to merge.
 * - A block whose rows all did nothing in the previous pass is skipped
 *   without reading them: they were DONE in both buffers, so nothing can
 *   change for them any more; after a pass in which no row did anything,
 *   the whole launch returns at once.
 * - Each work-item loops over pairs with the launch's stride: the host
 *   launches about as many work-items as the device runs at once, so an
 *   idle pass costs one read per work-item, not one per row.
 * - The busy words need no barrier: rows that work store the same 1, and a
 *   level's word is stored only by rows that find the word below still
 *   clear. */
__kernel void cp_jump(uint base, uint end, uint pass, __global uint4 *src, __global uint4 *dst,
		      __global uint *busy, uint blocks, __global uint *any, __global uint *group_busy, uint groups)
{
	if (pass > 0 && any[pass - 1] == 0)
		return;
	uint stride = (uint)get_global_size(0);
	const uint4 absent = (uint4)(0, 0, 0, DONE);
	for (uint k = (base >> 1) + (uint)get_global_id(0); 2 * k < end; k += stride) {
		uint i = 2 * k, j = i + 1; /* one block holds both */
		if (pass > 0 && busy[(pass - 1) * blocks + (i >> BLOCK_SHIFT)] == 0)
			continue;
		bool has_i = i >= base, has_j = j < end; /* a piece may start or end mid-pair */
		uint4 si = has_i ? src[i] : absent;
		uint4 sj = has_j ? src[j] : absent;
		if ((si.w & sj.w & DONE) != 0)
			continue;
		note_busy(i, pass, busy, blocks, any, group_busy, groups);
		uint4 ai = (si.w & (DONE | TERMINAL)) ? si : src[si.z];
		uint4 aj = (sj.w & (DONE | TERMINAL)) ? sj : src[sj.z];
		uint4 ni = next_record(si, ai), nj = next_record(sj, aj);
		if (has_i)
			dst[i] = ni;
		if (has_j)
			dst[j] = nj;
		/* A newly resolved row marks its source record DONE too. The pair
		 * is stored whole, a jumping row's record unchanged: concurrent
		 * readers see the same bytes, or a TERMINAL record with or without
		 * DONE, which read the same. */
		if ((si.w ^ ni.w) & DONE || (sj.w ^ nj.w) & DONE) {
			if (has_i)
				src[i] = (si.w & TERMINAL) ? ni : si;
			if (has_j)
				src[j] = (sj.w & TERMINAL) ? nj : sj;
		}
	}
}

/* Endpoint selection: (best sum, lowest index, max hops, flags) per group.
 * The combination is associative and commutative with a total order on
 * (sum, index), so the result does not depend on the order of work. */
typedef struct {
	long sum;
	uint idx;
	uint hop;
	uint flags;
	uint pad;
} cp_best;

static cp_best best_of(cp_best a, cp_best b)
{
	cp_best r = (a.sum > b.sum || (a.sum == b.sum && a.idx < b.idx)) ? a : b;
	r.hop = max(a.hop, b.hop);
	r.flags = a.flags | b.flags;
	return r;
}

static void reduce_group(cp_best v, __local cp_best *scratch, __global cp_best *out, uint out_index)
{
	uint l = (uint)get_local_id(0), size = (uint)get_local_size(0);
	scratch[l] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint h = size / 2; h > 0; h /= 2) {
		if (l < h)
			scratch[l] = best_of(scratch[l], scratch[l + h]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[out_index] = scratch[0];
}

/* Per-row outputs from the final state, and the first reduction level. */
__kernel void cp_finalize(uint base, uint n, __global const uint4 *st, __global const uint *parent,
			  __global long *path_duration, __global uint *root, __global uint *hop_count,
			  __global uint *pred, __global cp_best *partial, __local cp_best *scratch)
{
	uint i = base + (uint)get_global_id(0);
	cp_best v = {-1, NONE, 0, 0, 0};
	if (i < n) {
		uint4 s = st[i];
		long sum = sum_of(s);
		bool terminal = (s.w & TERMINAL) != 0;
		bool valid = terminal && s.z != NONE && sum >= 0;
		if (!terminal)
			v.flags = F_CYCLE;
		else if (s.z == NONE)
			v.flags = (uint)sum;
		else if (sum < 0)
			v.flags = F_OVERFLOW;
		path_duration[i] = valid ? sum : -1;
		root[i] = valid ? s.z : NONE;
		hop_count[i] = valid ? (s.w & HOPS) : NONE;
		pred[i] = valid ? parent[i] : NONE;
		if (valid) {
			v.sum = sum;
			v.idx = i;
			v.hop = s.w & HOPS;
		}
	}
	reduce_group(v, scratch, partial, base / (uint)get_local_size(0) + (uint)get_group_id(0));
}

/* Further reduction levels: count partials in, one per group out. Each
 * work-item combines `fan` inputs (2 when groups are of one work-item). */
__kernel void cp_reduce(uint base, uint count, uint fan, __global const cp_best *in, __global cp_best *out,
			__local cp_best *scratch)
{
	uint i = base + (uint)get_global_id(0);
	cp_best v = {-1, NONE, 0, 0, 0};
	for (uint k = 0; k < fan; k++)
		if ((ulong)i * fan + k < count)
			v = best_of(v, in[i * fan + k]);
	reduce_group(v, scratch, out, base / (uint)get_local_size(0) + (uint)get_group_id(0));
}

/* Slack against the winner, and a cleared mask. */
__kernel void cp_slack(uint base, uint n, __global const cp_best *winner, __global const long *path_duration,
		       __global long *slack, __global uchar *mask)
{
	uint i = base + (uint)get_global_id(0);
	if (i >= n)
		return;
	long w = winner[0].sum;
	long d = path_duration[i];
	slack[i] = d >= 0 ? w - d : -1;
	mask[i] = 0;
}

/* The bounded walk from the endpoint to the root through the predecessors,
 * at most `budget` steps per launch; cursor (zeroed by the host) carries it
 * across launches: {state 0 new / 1 walking / 2 done, row, step, length}.
 * Marks the first max_len rows from the root: steps below len - max_len
 * (from the endpoint) are skipped. Step k also goes to walk[2k] (its row)
 * and walk[2k + 1] (its path duration), so a caller that needs only the
 * path reads len records instead of whole arrays. */
__kernel void cp_walk(uint budget, uint max_len, __global const cp_best *winner, __global const uint *pred,
		      __global const uint *hop_count, __global uchar *mask, __global uint *cursor,
		      __global const long *pd, __global ulong *walk)
{
	if (get_global_id(0) != 0 || cursor[0] == 2)
		return;
	if (cursor[0] == 0) {
		uint e = winner[0].idx;
		if (e == NONE) {
			cursor[0] = 2;
			return;
		}
		cursor[0] = 1;
		cursor[1] = e;
		cursor[2] = 0;
		cursor[3] = hop_count[e] + 1;
	}
	uint r = cursor[1], k = cursor[2], len = cursor[3];
	uint skip = len > max_len ? len - max_len : 0;
	for (uint steps = 0; steps < budget && k < len; steps++, k++) {
		if (k >= skip)
			mask[r] = 1;
		walk[2 * (ulong)k] = r;
		walk[2 * (ulong)k + 1] = (ulong)pd[r];
		r = pred[r];
	}
	cursor[1] = r;
	cursor[2] = k;
	if (k == len)
		cursor[0] = 2;
}
