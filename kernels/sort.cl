/* The device's sort and scan (src/cl/device_sort.c): a stable LSD radix
 * sort of (key, value) pairs, four bits a pass, and the exclusive scan it
 * places each pass's digits with. What the device-resident analyses build
 * their orders (chains, buckets, tracks) from. */

#define SORT_WG 256
#define SORT_ITEMS 4 /* consecutive pairs a work-item takes */
#define SORT_TILE (SORT_WG * SORT_ITEMS)
#define RADIX 16
#define DIGIT(k, shift) ((uint)((k) >> (shift)) & (RADIX - 1))

#define SCAN_WG 256
#define SCAN_ITEMS 4
#define SCAN_TILE (SCAN_WG * SCAN_ITEMS)

/* In-place inclusive scan of part[0 .. SCAN_WG) by the work-group (every
 * work-item calls it). */
#define SCAN_LOCAL(part, T, l)                                  \
	for (uint d_ = 1; d_ < SCAN_WG; d_ <<= 1) {             \
		T add_ = (l) >= d_ ? part[(l) - d_] : 0;        \
		barrier(CLK_LOCAL_MEM_FENCE);                   \
		part[l] += add_;                                \
		barrier(CLK_LOCAL_MEM_FENCE);                   \
	}

/* OR and AND of every key, one pair per work-group: the host skips the
 * digits every key shares. */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1))) void
sort_key_bits(uint n, __global const ulong *key, __global ulong *group_or, __global ulong *group_and)
{
	__local ulong lo[SORT_WG], la[SORT_WG];
	uint l = get_local_id(0);
	ulong o = 0, a = ~(ulong)0;
	for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
		o |= key[i];
		a &= key[i];
	}
	lo[l] = o;
	la[l] = a;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint s = SORT_WG / 2; s > 0; s >>= 1) {
		if (l < s) {
			lo[l] |= lo[l + s];
			la[l] &= la[l + s];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0) {
		group_or[get_group_id(0)] = lo[0];
		group_and[get_group_id(0)] = la[0];
	}
}

/* hist[d * tiles + g]: the keys of tile g whose digit at shift is d. */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1))) void
sort_count(uint n, uint shift, uint tiles, __global const ulong *key, __global uint *hist)
{
	__local uint c[RADIX];
	uint l = get_local_id(0), g = get_group_id(0);
	if (l < RADIX)
		c[l] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	ulong first = (ulong)g * SORT_TILE;
	for (uint j = 0; j < SORT_ITEMS; j++) {
		ulong i = first + (ulong)j * SORT_WG + l;
		if (i < n)
			atomic_inc(&c[DIGIT(key[i], shift)]);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l < RADIX)
		hist[l * tiles + g] = c[l];
}

/* Each pair of tile g to its place: offset[d * tiles + g] (the scanned
 * histogram) is where the tile's pairs of digit d begin; among them a
 * pair goes after those of earlier work-items and then of its own earlier
 * pairs, so equal digits keep their order. */
__kernel __attribute__((reqd_work_group_size(SORT_WG, 1, 1))) void
sort_scatter(uint n, uint shift, uint tiles, __global const ulong *key_in, __global const uint *val_in,
	     __global ulong *key_out, __global uint *val_out, __global const uint *offset)
{
	__local uint cnt[RADIX * SORT_WG]; /* [d * SORT_WG + l] */
	__local uint part[SORT_WG];
	uint l = get_local_id(0), g = get_group_id(0);
	ulong first = (ulong)g * SORT_TILE + (ulong)l * SORT_ITEMS;
	ulong k[SORT_ITEMS];
	uint d[SORT_ITEMS];
	for (uint e = 0; e < RADIX; e++)
		cnt[e * SORT_WG + l] = 0;
	for (uint j = 0; j < SORT_ITEMS; j++) {
		d[j] = RADIX;
		if (first + j < n) {
			k[j] = key_in[first + j];
			d[j] = DIGIT(k[j], shift);
			cnt[d[j] * SORT_WG + l]++;
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	/* exclusive scan of cnt in its digit-major order: a work-item's run of
	 * RADIX entries, then the runs' totals across the group */
	uint row = l * RADIX, s = 0;
	for (uint e = 0; e < RADIX; e++) {
		uint c = cnt[row + e];
		cnt[row + e] = s;
		s += c;
	}
	part[l] = s;
	barrier(CLK_LOCAL_MEM_FENCE);
	SCAN_LOCAL(part, uint, l)
	uint before = part[l] - s;
	for (uint e = 0; e < RADIX; e++)
		cnt[row + e] += before;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint j = 0; j < SORT_ITEMS; j++) {
		if (d[j] == RADIX)
			continue;
		uint mine = 0;
		for (uint i = 0; i < j; i++)
			mine += d[i] == d[j];
		/* cnt[d * SORT_WG] counts the tile's pairs of smaller digits */
		uint pos = offset[d[j] * tiles + g] + cnt[d[j] * SORT_WG + l] - cnt[d[j] * SORT_WG] + mine;
		key_out[pos] = k[j];
		val_out[pos] = val_in[first + j];
	}
}

/* The scan's first level: out[i] = the sum of in[] before i within i's
 * tile of SCAN_TILE, sums[tile] the tile's total (out may be in: a
 * work-item reads its items before it writes them). */
#define SCAN_TILES(name, T)                                                                              \
	__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1))) void name(                         \
		uint n, __global const T *in, __global T *out, __global ulong *sums)                     \
	{                                                                                                \
		__local ulong part[SCAN_WG];                                                             \
		uint l = get_local_id(0);                                                                \
		ulong first = (ulong)get_group_id(0) * SCAN_TILE + (ulong)l * SCAN_ITEMS, s = 0;         \
		T v[SCAN_ITEMS];                                                                         \
		for (uint j = 0; j < SCAN_ITEMS; j++) {                                                  \
			v[j] = first + j < n ? in[first + j] : 0;                                        \
			s += v[j];                                                                       \
		}                                                                                        \
		part[l] = s;                                                                             \
		barrier(CLK_LOCAL_MEM_FENCE);                                                            \
		SCAN_LOCAL(part, ulong, l)                                                               \
		ulong run = part[l] - s;                                                                 \
		for (uint j = 0; j < SCAN_ITEMS; j++) {                                                  \
			if (first + j < n)                                                               \
				out[first + j] = (T)run;                                                 \
			run += v[j];                                                                     \
		}                                                                                        \
		if (l == SCAN_WG - 1)                                                                    \
			sums[get_group_id(0)] = part[l];                                                 \
	}

SCAN_TILES(scan_tiles_u32, uint)
SCAN_TILES(scan_tiles_u64, ulong)

/* data[i] += the scanned total of the tiles before i's. */
__kernel void scan_add_u32(uint n, __global uint *data, __global const ulong *tile_offset)
{
	uint i = get_global_id(0);
	if (i < n)
		data[i] += (uint)tile_offset[i / SCAN_TILE];
}

__kernel void scan_add_u64(uint n, __global ulong *data, __global const ulong *tile_offset)
{
	uint i = get_global_id(0);
	if (i < n)
		data[i] += tile_offset[i / SCAN_TILE];
}

/* --- buckets: a stable counting sort by a small key (gt_cl_bucket) --- */

/* counts[key[i]] += 1 for the keys below buckets (the others are left out). */
__kernel void bucket_count(uint n, uint buckets, __global const uint *key, __global uint *counts)
{
	uint i = get_global_id(0);
	if (i < n && key[i] < buckets)
		atomic_inc(&counts[key[i]]);
}

/* The pairs the sort orders: (the key, or buckets for an item left out; i). */
__kernel void bucket_pairs(uint n, uint buckets, __global const uint *key, __global ulong *pair_key,
			   __global uint *index)
{
	uint i = get_global_id(0);
	if (i < n) {
		uint k = key[i];
		pair_key[i] = k < buckets ? k : buckets;
		index[i] = i;
	}
}
