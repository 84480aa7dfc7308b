/* The flow v1 points' order by (key, ts, seq) (flow_point_sort.h).
 *
 * The comparison sort of 56-byte records was the longest stage of the
 * ingest's finishing on 16 cores. Here the key's three words are packed
 * into one 64-bit integer that orders as they do, wherever their ranges
 * fit in 64 bits together (every producer seen: a small id kind, a
 * category string id, an id). That integer is radix sorted with each
 * point's index, then each run of one key (a flow's few points) is put in
 * time order. seq is each point's index, so a stable sort by (key, ts) is
 * the order by (key, ts, seq). The records stay where they are: moving
 * them took as long as the sort, mostly in the faults of a fresh array. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "flow_point_sort.h"

enum { RANGE_MIN = 1 << 15, SMALL_RUN = 32 };

typedef struct scan_job {
	const flow_point *p;
	uint32_t a, b;
	uint64_t lo[4], hi[4];
	bool seq_is_index;
} scan_job;

static void *scan_range(void *arg)
{
	scan_job *j = arg;
	/* in locals: the jobs' records share cache lines, and since a point's
	 * key words have their type, the compiler would store them at every point */
	uint64_t lo[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}, hi[4] = {0};
	bool seq_is_index = true;
	for (uint32_t i = j->a; i < j->b; i++) {
		const flow_point *pt = &j->p[i];
		for (int w = 0; w < 4; w++) {
			uint64_t x = pt->key.w[w];
			lo[w] = x < lo[w] ? x : lo[w];
			hi[w] = x > hi[w] ? x : hi[w];
		}
		seq_is_index &= pt->seq == i;
	}
	memcpy(j->lo, lo, sizeof lo);
	memcpy(j->hi, hi, sizeof hi);
	j->seq_is_index = seq_is_index;
	return NULL;
}

static unsigned bits(uint64_t x)
{
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

/* The packing: word w's offset from lo[w] at bit shift[w]. */
typedef struct packing {
	uint64_t lo[3];
	unsigned shift[3];
	bool used[3];
} packing;

typedef struct pack_job {
	const flow_point *p;
	const packing *pk;
	uint64_t *key;
	uint32_t *val;
	uint32_t a, b;
} pack_job;

static void *pack_range(void *arg)
{
	pack_job *j = arg;
	for (uint32_t i = j->a; i < j->b; i++) {
		uint64_t k = 0;
		for (int w = 0; w < 3; w++)
			if (j->pk->used[w])
				k |= (j->p[i].key.w[w] - j->pk->lo[w]) << j->pk->shift[w];
		j->key[i] = k;
		j->val[i] = i;
	}
	return NULL;
}

/* A range's runs: those that start in [a, b), found (start) before any
 * run is reordered, since a run may reach into the next range. */
typedef struct run_job {
	const flow_point *p;
	uint64_t *key, *tk;
	uint32_t *val, *tv;
	uint32_t n, a, b, start;
} run_job;

static void *find_start(void *arg)
{
	run_job *j = arg;
	uint32_t i = j->a;
	while (i > 0 && i < j->b && j->key[i] == j->key[i - 1])
		i++;
	j->start = i;
	return NULL;
}

/* Stable by time: an insertion sort for a flow's few points, else the
 * radix sort of the times (from the run's first) over the run's slots. */
static void order_run(run_job *j, uint32_t a, uint32_t len)
{
	uint32_t *v = j->val + a;
	if (len < SMALL_RUN) {
		for (uint32_t i = 1; i < len; i++) {
			uint32_t x = v[i], k = i;
			int64_t ts = j->p[x].ts_ns;
			for (; k > 0 && j->p[v[k - 1]].ts_ns > ts; k--)
				v[k] = v[k - 1];
			v[k] = x;
		}
		return;
	}
	int64_t lo = INT64_MAX;
	for (uint32_t i = 0; i < len; i++)
		lo = j->p[v[i]].ts_ns < lo ? j->p[v[i]].ts_ns : lo;
	uint64_t *k = j->key + a;
	for (uint32_t i = 0; i < len; i++)
		k[i] = (uint64_t)j->p[v[i]].ts_ns - (uint64_t)lo;
	gt_radix_sort_u64(k, v, len, j->tk + a, j->tv + a);
}

static void *order_runs(void *arg)
{
	run_job *j = arg;
	uint32_t i = j->start;
	while (i < j->b) {
		uint32_t e = i + 1;
		while (e < j->n && j->key[e] == j->key[i])
			e++;
		if (e - i > 1)
			order_run(j, i, e - i);
		i = e;
	}
	return NULL;
}

static unsigned jobs_for(uint32_t n, unsigned threads)
{
	unsigned t = gt_thread_count(threads, GT_MAX_JOBS), k = (unsigned)(n / RANGE_MIN);
	return k < 1 ? 1 : k < t ? k : t;
}

int gt_flow_points_order(const flow_point *p, uint32_t n, unsigned threads, uint32_t **order)
{
	*order = NULL;
	if (n == 0)
		return (*order = gt_big_malloc(1, sizeof **order)) ? 0 : -1;
	unsigned k = jobs_for(n, threads);
	scan_job s[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		s[j] = (scan_job){.p = p, .a = (uint32_t)((uint64_t)n * j / k), .b = (uint32_t)((uint64_t)n * (j + 1) / k)};
	gt_run_jobs(scan_range, s, sizeof *s, k);
	uint64_t lo[4], hi[4];
	bool seq_is_index = true;
	for (int w = 0; w < 4; w++)
		lo[w] = UINT64_MAX, hi[w] = 0;
	for (unsigned j = 0; j < k; j++) {
		for (int w = 0; w < 4; w++) {
			lo[w] = s[j].lo[w] < lo[w] ? s[j].lo[w] : lo[w];
			hi[w] = s[j].hi[w] > hi[w] ? s[j].hi[w] : hi[w];
		}
		seq_is_index &= s[j].seq_is_index;
	}
	packing pk = {{lo[0], lo[1], lo[2]}, {0}, {false}};
	unsigned width = 0;
	for (int w = 2; w >= 0; w--) { /* the last word lowest */
		unsigned b = bits(hi[w] - lo[w]);
		pk.used[w] = b > 0;
		pk.shift[w] = width;
		width += b;
	}
	if (!seq_is_index || hi[3] != lo[3] || width > 64)
		return 1;
	uint64_t *key = gt_big_malloc(n, sizeof *key), *tk = gt_big_malloc(n, sizeof *tk);
	uint32_t *val = gt_big_malloc(n, sizeof *val), *tv = gt_big_malloc(n, sizeof *tv);
	if (!key || !tk || !val || !tv) {
		gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv);
		return -1;
	}
	pack_job pj[GT_MAX_JOBS];
	run_job rj[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++) {
		uint32_t a = s[j].a, b = s[j].b;
		pj[j] = (pack_job){p, &pk, key, val, a, b};
		rj[j] = (run_job){p, key, tk, val, tv, n, a, b, a};
	}
	gt_run_jobs(pack_range, pj, sizeof *pj, k);
	gt_radix_sort_u64_jobs(key, val, n, tk, tv, k);
	gt_run_jobs(find_start, rj, sizeof *rj, k);
	gt_run_jobs(order_runs, rj, sizeof *rj, k);
	gt_big_free(key), gt_big_free(tk), gt_big_free(tv);
	*order = val;
	return 0;
}
