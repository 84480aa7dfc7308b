/* Binding and CPM latest times over a dependency graph of points (contract
 * in src/causal/cpm.h, host reference in src/causal/cpm.c, the
 * algorithm in src/causal/cpm_cl.c).
 *
 * Positions i are indices into chain[] (track after track). pos_flags[i]:
 * WORK (the chain edge i -> i+1 is work), HEAD (first of its track), TAIL
 * (last of its track).
 *
 * Float works on "links": position i maps the LT x of position i+1 to
 * min(c_i, x - lag_i), or to c_i at a tail. A run of consecutive links
 * composes to min(a, x - b) (or to a, when the run holds a tail): the
 * triple (a, b, f). Composition is exact integer arithmetic and
 * associative, so any scan order gives the host's values. */

#define NONE 0xffffffffu
#define WORK 1
#define HEAD 2
#define TAIL 4
#define EDGE_CHAIN 1
#define ITEMS 8 /* positions per work-item in the scans */

__kernel void cpm_mark_tracks(uint tracks, __global const uint *chain_start, __global uchar *pos_flags)
{
	uint k = (uint)get_global_id(0);
	if (k >= tracks)
		return;
	uint begin = chain_start[k], end = chain_start[k + 1];
	if (begin == end)
		return;
	pos_flags[begin] |= HEAD;
	pos_flags[end - 1] |= TAIL;
}

/* --- binding --------------------------------------------------------------- */

/* Whether the candidate (source time t, kind k, source u, edge e) beats the
 * current best: latest source, chain < flow < wait, lowest source, lowest
 * edge index. */
static bool beats(long t, uchar k, uint u, uint e, long bt, uchar bk, uint bu, uint be)
{
	if (t != bt)
		return t > bt;
	if (k != bk)
		return k < bk;
	if (u != bu)
		return u < bu;
	return e < be;
}

/* Each target's cross in-edges as a list through next[], in whatever order
 * the atomics leave them: the binding's key is a total order (the edge
 * index breaks every tie), so the best edge does not depend on it. head[]
 * starts at NONE. */
__kernel void cpm_link_in_edges(uint m, __global const uint *edge_dst, __global uint *head, __global uint *next)
{
	uint e = (uint)get_global_id(0);
	if (e >= m)
		return;
	next[e] = atomic_xchg(&head[edge_dst[e]], e);
}

__kernel void cpm_bind(uint n, __global const uint *chain, __global const uchar *pos_flags,
		       __global const long *time, __global const uint *in_head, __global const uint *in_next,
		       __global const uint *edge_src, __global const uchar *edge_kind, __global uint *parent,
		       __global long *gap, __global uchar *kind, __global uint *edge)
{
	uint i = (uint)get_global_id(0);
	if (i >= n)
		return;
	uint v = chain[i];
	uint bu = NONE, be = NONE;
	uchar bk = 0;
	long bt = 0;
	if (!(pos_flags[i] & HEAD)) {
		bu = chain[i - 1];
		bk = EDGE_CHAIN;
		bt = time[bu];
	}
	for (uint e = in_head[v]; e != NONE; e = in_next[e]) {
		uint u = edge_src[e];
		uchar k = edge_kind[e];
		long t = time[u];
		if (bu == NONE || beats(t, k, u, e, bt, bk, bu, be)) {
			bu = u;
			bk = k;
			be = e;
			bt = t;
		}
	}
	parent[v] = bu;
	kind[v] = bk;
	edge[v] = be;
	gap[v] = bu == NONE ? 0 : time[v] - bt;
}

/* --- float: links and their composition ------------------------------------- */

typedef struct {
	long a, b;
	int f;
} link_fn;

/* lag < 0 marks a tail. */
static link_fn link_of(long c, long lag)
{
	link_fn r;
	r.a = c;
	r.b = lag < 0 ? 0 : lag;
	r.f = lag < 0;
	return r;
}

/* Beyond the last position: a tail that nothing reads. */
static link_fn nothing(void)
{
	link_fn r;
	r.a = LONG_MAX;
	r.b = 0;
	r.f = 1;
	return r;
}

/* l applied after r (l is to the left, earlier in the chain). */
static link_fn compose(link_fn l, link_fn r)
{
	if (l.f)
		return l;
	link_fn o;
	o.a = min(l.a, r.a - l.b);
	o.b = l.b + r.b;
	o.f = r.f;
	return o;
}

static long apply(link_fn g, long x)
{
	return g.f ? g.a : min(g.a, x - g.b);
}

static void put(__local long *A, __local long *B, __local int *F, uint j, link_fn g)
{
	A[j] = g.a;
	B[j] = g.b;
	F[j] = g.f;
}

static link_fn get(__local const long *A, __local const long *B, __local const int *F, uint j)
{
	link_fn g;
	g.a = A[j];
	g.b = B[j];
	g.f = F[j];
	return g;
}

/* Inclusive suffix scan of the work-items' link functions: on return,
 * slot j holds the composition of items j..L-1. */
static void suffix_scan(__local long *A, __local long *B, __local int *F, link_fn mine)
{
	uint lid = (uint)get_local_id(0), L = (uint)get_local_size(0);
	put(A, B, F, lid, mine);
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint d = 1; d < L; d <<= 1) {
		link_fn x = get(A, B, F, lid);
		if (lid + d < L)
			x = compose(x, get(A, B, F, lid + d));
		barrier(CLK_LOCAL_MEM_FENCE);
		put(A, B, F, lid, x);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

/* The LT entering work-item lid's last item from the right, given x, the
 * LT entering the whole work-group's range. */
static long entering(__local const long *A, __local const long *B, __local const int *F, long x)
{
	uint lid = (uint)get_local_id(0), L = (uint)get_local_size(0);
	return lid + 1 < L ? apply(get(A, B, F, lid + 1), x) : x;
}

/* --- float: kernels ------------------------------------------------------------ */

/* LT starts at the position's T (horizon[k], k its track: a binary search
 * of chain_start), and so does c0 at a tail (a lag of -1 marks it). */
__kernel void cpm_float_setup(uint n, uint tracks, __global const uint *chain_start, __global const long *horizon,
			      __global const uint *chain, __global const uchar *pos_flags,
			      __global const long *time, __global long *lag, __global long *c0, __global long *lt)
{
	uint i = (uint)get_global_id(0);
	if (i >= n)
		return;
	uint lo = 0, hi = tracks; /* chain_start[lo] <= i < chain_start[hi] */
	while (hi - lo > 1) {
		uint mid = lo + (hi - lo) / 2;
		if (chain_start[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	uchar fl = pos_flags[i];
	long l = -1;
	if (!(fl & TAIL))
		l = fl & WORK ? time[chain[i + 1]] - time[chain[i]] : 0;
	lag[i] = l;
	c0[i] = fl & TAIL ? horizon[lo] : LONG_MAX;
	lt[i] = horizon[lo];
}

/* --- float in pieces (src/causal/cpm_float_plan.h) ----------------------------- */

#define MODE_TAILS 0 /* relative: 0 at the tracks' tails, nothing past the block */
#define MODE_SLOT 1  /* relative: 0 at one exit slot of each block */
#define MODE_FINAL 2 /* T at the tails, the exits' exact LT */

/* The slot of position z in frontier c (fr_first[c] .. fr_first[c + 1]),
 * or NONE. */
static uint frontier_slot(__global const uint *fr_first, __global const uint *fr_pos, uint c, uint z)
{
	uint lo = fr_first[c], hi = fr_first[c + 1];
	while (lo < hi) {
		uint mid = lo + (hi - lo) / 2;
		if (fr_pos[mid] < z)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fr_first[c + 1] && fr_pos[lo] == z ? lo : NONE;
}

/* LT at exit z of block b in this run: LONG_MAX for none. */
static long exit_value(uint mode, uint slot, __global const uint *fr_first, __global const uint *fr_pos,
		       __global const long *fr_val, uint b, uint z)
{
	if (mode == MODE_TAILS)
		return LONG_MAX;
	uint s = frontier_slot(fr_first, fr_pos, b, z);
	if (s == NONE)
		return LONG_MAX; /* not reached: every exit is in the frontier */
	if (mode == MODE_SLOT)
		return s - fr_first[b] == slot ? 0 : LONG_MAX;
	return fr_val[s];
}

/* One run's constants: c0, each position's bound from its tail and its
 * exits (a chain link a cut breaks becomes a tail, its lag kept in
 * exit_lag), and LT's start. */
__kernel void cpm_block_bounds(uint n, uint mode, uint slot, uint cuts, long T, __global const uchar *pos_flags,
			       __global const uint *blk, __global const long *exit_lag,
			       __global const uint *out_start, __global const uint *out_dst,
			       __global const uint *fr_first, __global const uint *fr_pos,
			       __global const long *fr_val, __global long *lag, __global long *c0, __global long *lt)
{
	uint i = (uint)get_global_id(0);
	if (i >= n)
		return;
	uint b = blk[i];
	bool tail = pos_flags[i] & TAIL;
	long c = !tail ? LONG_MAX : mode == MODE_FINAL ? T : mode == MODE_TAILS ? 0 : LONG_MAX;
	long el = exit_lag[i];
	if (el >= 0 && b < cuts) {
		lag[i] = -1;
		long e = exit_value(mode, slot, fr_first, fr_pos, fr_val, b, i + 1);
		if (e != LONG_MAX)
			c = min(c, e - el);
	}
	uint end = out_start[i + 1];
	for (uint s = out_start[i]; s < end && b < cuts; s++) {
		uint d = out_dst[s];
		if (blk[d] != b)
			c = min(c, exit_value(mode, slot, fr_first, fr_pos, fr_val, b, d));
	}
	c0[i] = c;
	lt[i] = mode == MODE_FINAL ? T : LONG_MAX;
}

/* out[base + s] = lt[idx[s]]: a run's LT at the frontiers. */
__kernel void cpm_gather(uint k, ulong base, __global const uint *idx, __global const long *lt,
			 __global long *out)
{
	uint s = (uint)get_global_id(0);
	if (s < k)
		out[base + s] = lt[idx[s]];
}

/* One work-group: the exact LT of every frontier slot (fr_val), walking
 * the cuts from the last one back. vals[s] is A at slot s (the run with 0
 * at the tails), vals[(1 + j) * F + s] W of the next frontier's j-th slot;
 * a slot whose point lies beyond the next cut too takes that frontier's
 * value. Every point reaches its track's tail, so no LT stays "none".
 * The cuts go one after another, so each spreads over the whole group:
 * `lanes` work-items a slot, each taking every lanes-th j, their minima
 * met in part[]. */
__kernel void cpm_frontier_walk(uint cuts, uint F, long T, __global const uint *blk, __global const uint *fr_first,
				__global const uint *fr_pos, __global const long *vals, __global long *fr_val,
				__local long *part)
{
	uint lid = (uint)get_local_id(0), L = (uint)get_local_size(0);
	for (uint c = cuts; c-- > 0;) {
		uint first = fr_first[c], slots = fr_first[c + 1] - first;
		uint next = c + 1 < cuts ? fr_first[c + 1] : 0;
		uint width = c + 1 < cuts ? fr_first[c + 2] - next : 0;
		uint lanes = slots >= L ? 1 : L / slots, per_pass = L / lanes, lane = lid % lanes;
		for (uint base = 0; base < slots; base += per_pass) {
			uint si = base + lid / lanes, s = first + si;
			bool mine = lid / lanes < per_pass && si < slots;
			long best = LONG_MAX;
			if (mine) {
				uint y = fr_pos[s];
				if (blk[y] > c + 1) {
					if (lane == 0)
						best = fr_val[frontier_slot(fr_first, fr_pos, c + 1, y)];
				} else {
					long a = vals[s];
					if (lane == 0 && a <= 0)
						best = T + a;
					for (uint j = lane; j < width; j += lanes) {
						long w = vals[(ulong)(1 + j) * F + s];
						if (w <= 0)
							best = min(best, fr_val[next + j] + w);
					}
				}
			}
			part[lid] = best;
			barrier(CLK_LOCAL_MEM_FENCE);
			if (mine && lane == 0) {
				for (uint k = 1; k < lanes; k++)
					best = min(best, part[lid + k]);
				fr_val[s] = best;
			}
			/* part is reused, and frontier c is read by c - 1 */
			barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
		}
	}
}

/* Relaxation of the cross edges (c_i = min(c0_i: T at a tail, and in
 * pieces the exits' bounds; LT of each out-edge's target, within the
 * position's block where blk is not NULL); T elsewhere comes in through
 * the chain, the lags being >= 0) fused with the first step of the scan:
 * each work-group's composed link. lt is read only (this round's scan
 * writes it later). */
__kernel void cpm_relax_reduce(uint n, __global const long *c0, __global const uint *blk,
			       __global const uint *out_start, __global const uint *out_dst, __global const long *lag,
			       __global const long *lt, __global long *c, __global long *agg_a, __global long *agg_b,
			       __global int *agg_f, __local long *A, __local long *B, __local int *F)
{
	uint first = (uint)get_global_id(0) * ITEMS;
	link_fn acc = nothing();
	for (int j = ITEMS - 1; j >= 0; j--) {
		uint i = first + (uint)j;
		if (i >= n)
			continue;
		long li = lag[i];
		long ci = c0[i];
		uint end = out_start[i + 1], bi = blk ? blk[i] : 0;
		for (uint s = out_start[i]; s < end; s++) {
			uint d = out_dst[s];
			if (!blk || blk[d] == bi)
				ci = min(ci, lt[d]);
		}
		c[i] = ci;
		link_fn mine = link_of(ci, li);
		acc = i + 1 < n && j < ITEMS - 1 ? compose(mine, acc) : mine;
	}
	suffix_scan(A, B, F, acc);
	if (get_local_id(0) == 0) {
		uint g = (uint)get_group_id(0);
		agg_a[g] = A[0];
		agg_b[g] = B[0];
		agg_f[g] = F[0];
	}
}

/* One work-group: for each group g, the LT entering it from the right
 * (entering[g]), by a suffix scan over the groups' composed links in
 * chunks of L * ITEMS from the right. */
__kernel void cpm_scan_groups(uint groups, __global const long *agg_a, __global const long *agg_b,
			      __global const int *agg_f, __global long *enter,
			      __local long *A, __local long *B, __local int *F)
{
	uint lid = (uint)get_local_id(0), L = (uint)get_local_size(0), chunk = L * ITEMS;
	long carry = LONG_MAX; /* nothing lies right of the last group */
	uint chunks = (groups + chunk - 1) / chunk;
	for (uint ch = chunks; ch-- > 0;) {
		uint first = ch * chunk + lid * ITEMS;
		link_fn acc = nothing();
		for (int j = ITEMS - 1; j >= 0; j--) {
			uint g = first + (uint)j;
			if (g >= groups)
				continue;
			link_fn mine;
			mine.a = agg_a[g];
			mine.b = agg_b[g];
			mine.f = agg_f[g];
			acc = g + 1 < groups && j < ITEMS - 1 ? compose(mine, acc) : mine;
		}
		suffix_scan(A, B, F, acc);
		long x = entering(A, B, F, carry);
		for (int j = ITEMS - 1; j >= 0; j--) {
			uint g = first + (uint)j;
			if (g >= groups)
				continue;
			enter[g] = x;
			link_fn mine;
			mine.a = agg_a[g];
			mine.b = agg_b[g];
			mine.f = agg_f[g];
			x = apply(mine, x);
		}
		carry = apply(get(A, B, F, 0), carry);
		barrier(CLK_LOCAL_MEM_FENCE); /* slot 0 is read before the next chunk writes */
	}
}

/* The scan's last step: each position's LT from its work-group's entering
 * LT; writes the positions that changed and marks the round changed. */
__kernel void cpm_scan_apply(uint n, __global const long *c, __global const long *lag,
			     __global const long *enter, __global long *lt, __global int *changed,
			     __local long *A, __local long *B, __local int *F)
{
	__local int any;
	uint first = (uint)get_global_id(0) * ITEMS;
	if (get_local_id(0) == 0)
		any = 0;
	link_fn acc = nothing();
	for (int j = ITEMS - 1; j >= 0; j--) {
		uint i = first + (uint)j;
		if (i >= n)
			continue;
		link_fn mine = link_of(c[i], lag[i]);
		acc = i + 1 < n && j < ITEMS - 1 ? compose(mine, acc) : mine;
	}
	suffix_scan(A, B, F, acc);
	long x = entering(A, B, F, enter[get_group_id(0)]);
	int mine_changed = 0;
	for (int j = ITEMS - 1; j >= 0; j--) {
		uint i = first + (uint)j;
		if (i >= n)
			continue;
		x = apply(link_of(c[i], lag[i]), x);
		if (x != lt[i]) {
			lt[i] = x;
			mine_changed = 1;
		}
	}
	if (mine_changed)
		any = 1;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (get_local_id(0) == 0 && any)
		atomic_or(changed, 1);
}

__kernel void cpm_scatter(uint n, __global const uint *chain, __global const long *lt_pos, __global long *lt)
{
	uint i = (uint)get_global_id(0);
	if (i < n)
		lt[chain[i]] = lt_pos[i];
}

/* --- the causal path's durations (src/causal/causal_path.c) --------------------- */

#define ROOT 0xffffffffu /* a root's parent (forest.h's GT_CP_ROOT) */

/* up[v]: v's parent, or v at a root. */
__kernel void path_up_init(uint n, __global const uint *parent, __global uint *up)
{
	uint v = (uint)get_global_id(0);
	if (v < n)
		up[v] = parent[v] == ROOT ? v : parent[v];
}

/* One round of pointer jumping: up_out[v] = up_in[up_in[v]], the flag set
 * where any moved (every writer writes 1). */
__kernel void path_up_jump(uint n, __global const uint *up_in, __global uint *up_out, __global int *changed)
{
	uint v = (uint)get_global_id(0);
	if (v >= n)
		return;
	uint u = up_in[v], w = up_in[u];
	up_out[v] = w;
	if (w != u)
		*changed = 1;
}

/* path_duration[v] = time[v] - time[root(v)]: the gaps of a binding
 * telescope. A point whose jumps ended short of a root is in or behind a
 * zero-gap cycle: the flag. */
__kernel void path_durations(uint n, __global const uint *parent, __global const uint *up, __global const long *time,
			     __global long *path_duration, __global int *cycle)
{
	uint v = (uint)get_global_id(0);
	if (v >= n)
		return;
	uint r = up[v];
	if (parent[r] != ROOT)
		*cycle = 1;
	path_duration[v] = time[v] - time[r];
}
