/* Wait edges: a blocking wait W waits for the device span k, among the
 * targets of flows from W's process that departed at or before B(W), with
 * the latest end at or before E(W) (ties: the lowest id).
 *
 * One sweep in time: flows enter as they depart, waits ask as they begin.
 * Per process a Fenwick tree of prefix maxima over the flows' targets in
 * (end, id descending) order answers "the last entered target ending by
 * E(W)" in O(log n), so many waits over many kernels stay near-linear. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

typedef struct sort_buf {
	uint64_t *key, *tk;
	uint32_t *tv;
} sort_buf;

static uint32_t process_of(const gt_model *m, uint32_t span)
{
	return m->tracks[m->spans[span].track].process;
}

int causal_wait_targets(const causal_trace *t, const uint32_t *cand, uint32_t nc, const uint32_t *waits,
			uint32_t nw, uint32_t *target, gt_error *err)
{
	const gt_model *m = t->m;
	for (uint32_t i = 0; i < nw; i++)
		target[i] = GT_NONE;
	if (!nc || !nw)
		return 0;
	size_t big = nc > nw ? nc : nw;
	sort_buf b = {malloc(big * sizeof *b.key), malloc(big * sizeof *b.tk), malloc(big * sizeof *b.tv)};
	uint32_t *by_end = malloc((size_t)nc * sizeof *by_end); /* candidate indices, by (process, end, -id) */
	uint32_t *rank = malloc((size_t)nc * sizeof *rank);     /* candidate -> position in by_end */
	int64_t *ends = malloc((size_t)nc * sizeof *ends);      /* E(target) by position */
	uint32_t *proc_first = calloc((size_t)m->process_count + 1, sizeof *proc_first);
	uint32_t *tree = calloc((size_t)nc + 1, sizeof *tree);  /* per process, 1-based in its range */
	uint32_t *by_dep = malloc((size_t)nc * sizeof *by_dep);
	uint32_t *by_begin = malloc((size_t)nw * sizeof *by_begin);
	if (!b.key || !b.tk || !b.tv || !by_end || !rank || !ends || !proc_first || !tree || !by_dep || !by_begin) {
		free(b.key), free(b.tk), free(b.tv), free(by_end), free(rank), free(ends);
		free(proc_first), free(tree), free(by_dep), free(by_begin);
		return gt_fail(err, GT_EINPUT, "out of memory for %u wait spans", nw);
	}
	/* every time is compared as an offset from the earliest involved */
	int64_t base = INT64_MAX;
	for (uint32_t i = 0; i < nc; i++) {
		const gt_span *k = &m->spans[m->flows[cand[i]].dst];
		base = t->departure[cand[i]] < base ? t->departure[cand[i]] : base;
		base = k->ts_ns < base ? k->ts_ns : base;
	}
	for (uint32_t i = 0; i < nw; i++)
		base = m->spans[waits[i]].ts_ns < base ? m->spans[waits[i]].ts_ns : base;

	/* (process, end, id descending): three stable passes, last key first */
	for (uint32_t i = 0; i < nc; i++) {
		by_end[i] = i;
		b.key[i] = UINT32_MAX - m->flows[cand[i]].dst;
	}
	causal_sort_u64(b.key, by_end, nc, b.tk, b.tv);
	for (uint32_t i = 0; i < nc; i++)
		b.key[i] = (uint64_t)(causal_end(&m->spans[m->flows[cand[by_end[i]]].dst]) - base);
	causal_sort_u64(b.key, by_end, nc, b.tk, b.tv);
	for (uint32_t i = 0; i < nc; i++)
		b.key[i] = process_of(m, m->flows[cand[by_end[i]]].src);
	causal_sort_u64(b.key, by_end, nc, b.tk, b.tv);
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t c = by_end[i];
		rank[c] = i;
		ends[i] = causal_end(&m->spans[m->flows[cand[c]].dst]);
		proc_first[process_of(m, m->flows[cand[c]].src) + 1]++;
	}
	for (uint32_t p = 0; p < m->process_count; p++)
		proc_first[p + 1] += proc_first[p];

	for (uint32_t i = 0; i < nc; i++) {
		by_dep[i] = i;
		b.key[i] = (uint64_t)(t->departure[cand[i]] - base);
	}
	causal_sort_u64(b.key, by_dep, nc, b.tk, b.tv);
	for (uint32_t i = 0; i < nw; i++) {
		by_begin[i] = i;
		b.key[i] = (uint64_t)(m->spans[waits[i]].ts_ns - base);
	}
	causal_sort_u64(b.key, by_begin, nw, b.tk, b.tv);

	uint32_t next = 0;
	for (uint32_t q = 0; q < nw; q++) {
		uint32_t wi = by_begin[q];
		const gt_span *w = &m->spans[waits[wi]];
		for (; next < nc && t->departure[cand[by_dep[next]]] <= w->ts_ns; next++) {
			uint32_t c = by_dep[next], p = process_of(m, m->flows[cand[c]].src);
			uint32_t lo = proc_first[p], len = proc_first[p + 1] - lo, val = rank[c] - lo + 1;
			for (uint32_t i = val; i <= len; i += i & -i)
				if (tree[lo + i] < val)
					tree[lo + i] = val;
		}
		uint32_t p = process_of(m, waits[wi]);
		uint32_t lo = proc_first[p], len = proc_first[p + 1] - lo;
		/* targets of this process ending by E(W): a prefix of its range */
		int64_t e = causal_end(w);
		uint32_t a = 0, z = len;
		while (a < z) {
			uint32_t mid = a + (z - a) / 2;
			if (ends[lo + mid] <= e)
				a = mid + 1;
			else
				z = mid;
		}
		uint32_t best = 0;
		for (uint32_t i = a; i > 0; i -= i & -i)
			best = tree[lo + i] > best ? tree[lo + i] : best;
		if (best)
			target[wi] = m->flows[cand[by_end[lo + best - 1]]].dst;
	}
	free(b.key), free(b.tk), free(b.tv), free(by_end), free(rank), free(ends);
	free(proc_first), free(tree), free(by_dep), free(by_begin);
	return 0;
}
