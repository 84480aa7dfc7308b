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

/* What the sweep reads of each candidate flow, gathered once so that the
 * sorts and the sweep never chase flow and span records again. */
typedef struct candidates {
	uint32_t *target;  /* the device span */
	uint32_t *process; /* the source's process */
	int64_t *end;      /* E(target) */
	int64_t *dep;      /* the departure */
} candidates;

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

int causal_wait_targets(const causal_trace *t, const uint32_t *cand, uint32_t nc, const uint32_t *waits,
			uint32_t nw, unsigned threads, uint32_t *target, gt_error *err)
{
	const gt_model *m = t->m;
	for (uint32_t i = 0; i < nw; i++)
		target[i] = GT_NONE;
	if (!nc || !nw)
		return 0;
	int ordered = causal_wait_targets_ordered(t, cand, nc, waits, nw, threads, target, err);
	if (ordered <= 0)
		return ordered;
	size_t big = nc > nw ? nc : nw;
	candidates c = {alloc(nc, sizeof *c.target), alloc(nc, sizeof *c.process), alloc(nc, sizeof *c.end),
			alloc(nc, sizeof *c.dep)};
	uint64_t *key = alloc(big, sizeof *key), *tk = alloc(big, sizeof *tk);
	uint32_t *tv = alloc(big, sizeof *tv);
	uint32_t *by_end = alloc(nc, sizeof *by_end); /* candidates by (process, end, -id) */
	uint32_t *rank = alloc(nc, sizeof *rank);     /* candidate -> position in by_end */
	int64_t *ends = alloc(nc, sizeof *ends);      /* E(target) by position */
	uint32_t *proc_first = gt_big_calloc((size_t)m->process_count + 1, sizeof *proc_first);
	uint32_t *tree = gt_big_calloc((size_t)nc + 1, sizeof *tree);
	uint32_t *by_dep = alloc(nc, sizeof *by_dep);
	uint32_t *by_begin = alloc(nw, sizeof *by_begin);
	int rc = 0;
	if (!c.target || !c.process || !c.end || !c.dep || !key || !tk || !tv || !by_end || !rank || !ends ||
	    !proc_first || !tree || !by_dep || !by_begin) {
		rc = gt_fail(err, GT_EINPUT, "out of memory for %u wait spans", nw);
		goto done;
	}
	/* every time is compared as an offset from the earliest involved */
	int64_t base = INT64_MAX;
	for (uint32_t i = 0; i < nc; i++) {
		const gt_flow *f = &m->flows[cand[i]];
		const gt_span *k = &m->spans[f->dst];
		c.target[i] = f->dst;
		c.process[i] = causal_process_of(m, f->src);
		c.end[i] = causal_end(k);
		c.dep[i] = t->departure[cand[i]];
		base = c.dep[i] < base ? c.dep[i] : base;
		base = k->ts_ns < base ? k->ts_ns : base;
	}
	for (uint32_t i = 0; i < nw; i++)
		base = m->spans[waits[i]].ts_ns < base ? m->spans[waits[i]].ts_ns : base;

	/* (process, end, id descending): three stable passes, last key first */
	for (uint32_t i = 0; i < nc; i++) {
		by_end[i] = i;
		key[i] = UINT32_MAX - c.target[i];
	}
	gt_radix_sort_u64(key, by_end, nc, tk, tv);
	for (uint32_t i = 0; i < nc; i++)
		key[i] = (uint64_t)(c.end[by_end[i]] - base);
	gt_radix_sort_u64(key, by_end, nc, tk, tv);
	for (uint32_t i = 0; i < nc; i++)
		key[i] = c.process[by_end[i]];
	gt_radix_sort_u64(key, by_end, nc, tk, tv);
	for (uint32_t i = 0; i < nc; i++) {
		rank[by_end[i]] = i;
		ends[i] = c.end[by_end[i]];
		proc_first[c.process[by_end[i]] + 1]++;
	}
	for (uint32_t p = 0; p < m->process_count; p++)
		proc_first[p + 1] += proc_first[p];

	for (uint32_t i = 0; i < nc; i++) {
		by_dep[i] = i;
		key[i] = (uint64_t)(c.dep[i] - base);
	}
	gt_radix_sort_u64(key, by_dep, nc, tk, tv);
	for (uint32_t i = 0; i < nw; i++) {
		by_begin[i] = i;
		key[i] = (uint64_t)(m->spans[waits[i]].ts_ns - base);
	}
	gt_radix_sort_u64(key, by_begin, nw, tk, tv);

	uint32_t next = 0;
	for (uint32_t q = 0; q < nw; q++) {
		uint32_t wi = by_begin[q];
		const gt_span *w = &m->spans[waits[wi]];
		for (; next < nc && c.dep[by_dep[next]] <= w->ts_ns; next++) {
			uint32_t ci = by_dep[next], p = c.process[ci];
			uint32_t lo = proc_first[p], len = proc_first[p + 1] - lo, val = rank[ci] - lo + 1;
			for (uint32_t i = val; i <= len; i += i & -i)
				if (tree[lo + i] < val)
					tree[lo + i] = val;
		}
		uint32_t p = causal_process_of(m, waits[wi]);
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
			target[wi] = c.target[by_end[lo + best - 1]];
	}
done:
	gt_big_free(c.target), gt_big_free(c.process), gt_big_free(c.end), gt_big_free(c.dep);
	gt_big_free(key), gt_big_free(tk), gt_big_free(tv), gt_big_free(by_end), gt_big_free(rank), gt_big_free(ends);
	gt_big_free(proc_first), gt_big_free(tree), gt_big_free(by_dep), gt_big_free(by_begin);
	return rc;
}
