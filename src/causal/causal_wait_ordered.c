/* Wait edges in the common case, without sorting the candidates: in every
 * process the waits taken by begin also end in that order (a thread's
 * blocking waits do not overlap, and few threads block). Waits are few,
 * flows many: each candidate is placed among its process's waits by two
 * galloping searches instead of three radix sorts and a sweep.
 *
 * With W_0..W_k-1 a process's waits by (begin, end), begins and ends both
 * ascending, candidate c (dep, end) is seen by W_i iff dep <= B(W_i) and
 * end(c) <= E(W_i): i >= q (the first with B >= dep) and i >= r (the first
 * with E >= end(c)). So c is seen by every wait from max(q, r) on, and the
 * answer of W_i is the best candidate (latest end, ties the lowest id)
 * placed at or before i: a running maximum. */
#include <stdlib.h>

#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

/* Whether target span a beats b: the later end, ties the lower id. */
static bool beats(const gt_model *m, uint32_t a, uint32_t b)
{
	if (b == GT_NONE)
		return true;
	int64_t ea = causal_end(&m->spans[a]), eb = causal_end(&m->spans[b]);
	return ea != eb ? ea > eb : a < b;
}

/* The waits by (process, begin, end): three stable passes, last key first. */
static void sort_waits(const gt_model *m, const uint32_t *waits, uint32_t nw, int64_t base, uint32_t *order,
		       uint64_t *key, uint64_t *tk, uint32_t *tv)
{
	for (uint32_t i = 0; i < nw; i++) {
		order[i] = i;
		key[i] = (uint64_t)(causal_end(&m->spans[waits[i]]) - base);
	}
	gt_radix_sort_u64(key, order, nw, tk, tv);
	for (uint32_t i = 0; i < nw; i++)
		key[i] = (uint64_t)(m->spans[waits[order[i]]].ts_ns - base);
	gt_radix_sort_u64(key, order, nw, tk, tv);
	for (uint32_t i = 0; i < nw; i++)
		key[i] = causal_process_of(m, waits[order[i]]);
	gt_radix_sort_u64(key, order, nw, tk, tv);
}

/* The candidates placed among the waits: best[j], the best target seen
 * first by wait j (by process, begin), GT_NONE. */
typedef struct placing {
	const causal_trace *t;
	const uint32_t *cand;
	uint32_t nc;
	const uint32_t *proc_first;
	const int64_t *begin, *end; /* the waits' */
	uint32_t *best;
} placing;

typedef struct place_job {
	const placing *pl;
	uint32_t a, b; /* candidates */
	uint32_t *best; /* this range's */
} place_job;

static void *place_range(void *arg)
{
	place_job *j = arg;
	const placing *pl = j->pl;
	const gt_model *m = pl->t->m;
	/* flows come roughly in time order: each search gallops from the last */
	uint32_t q = 0, r = 0;
	for (uint32_t i = j->a; i < j->b; i++) {
		const gt_flow *f = &m->flows[pl->cand[i]];
		uint32_t p = causal_process_of(m, f->src), lo = pl->proc_first[p], len = pl->proc_first[p + 1] - lo;
		if (!len)
			continue;
		q = gt_search_from(pl->begin + lo, len, pl->t->departure[pl->cand[i]], false, q);
		r = gt_search_from(pl->end + lo, len, causal_end(&m->spans[f->dst]), false, r);
		uint32_t at = lo + (q > r ? q : r);
		if (at < lo + len && beats(m, f->dst, j->best[at]))
			j->best[at] = f->dst;
	}
	return NULL;
}

/* Ranges of candidates on threads, each with its own best, then the best
 * of each (beats is a total order: any merge order gives the same). */
static int place_candidates(const placing *pl, uint32_t nw, unsigned threads)
{
	unsigned k = causal_range_jobs(pl->nc, threads);
	while (k > 1 && (uint64_t)k * nw > pl->nc) /* each range has a best for every wait */
		k--;
	place_job jobs[GT_MAX_JOBS];
	int rc = 0;
	for (unsigned j = 0; j < k; j++) {
		uint32_t *best = j == 0 ? pl->best : gt_big_malloc(nw, sizeof *best);
		rc |= best ? 0 : -1;
		for (uint32_t i = 0; best && j > 0 && i < nw; i++)
			best[i] = GT_NONE;
		jobs[j] = (place_job){pl, (uint32_t)((uint64_t)pl->nc * j / k), (uint32_t)((uint64_t)pl->nc * (j + 1) / k),
				      best};
	}
	if (rc == 0)
		gt_run_jobs(place_range, jobs, sizeof *jobs, k);
	const gt_model *m = pl->t->m;
	for (unsigned j = 1; j < k; j++) {
		for (uint32_t i = 0; rc == 0 && i < nw; i++)
			if (jobs[j].best[i] != GT_NONE && beats(m, jobs[j].best[i], pl->best[i]))
				pl->best[i] = jobs[j].best[i];
		gt_big_free(jobs[j].best);
	}
	return rc;
}

int causal_wait_targets_ordered(const causal_trace *t, const uint32_t *cand, uint32_t nc, const uint32_t *waits,
				uint32_t nw, unsigned threads, uint32_t *target, gt_error *err)
{
	const gt_model *m = t->m;
	uint32_t *order = alloc(nw, sizeof *order), *tv = alloc(nw, sizeof *tv), *best = alloc(nw, sizeof *best);
	uint64_t *key = alloc(nw, sizeof *key), *tk = alloc(nw, sizeof *tk);
	int64_t *begin = alloc(nw, sizeof *begin), *end = alloc(nw, sizeof *end);
	uint32_t *proc_first = gt_big_calloc((size_t)m->process_count + 1, sizeof *proc_first);
	int rc = 1;
	if (!order || !tv || !best || !key || !tk || !begin || !end || !proc_first) {
		rc = gt_fail(err, GT_EINPUT, "out of memory for %u wait spans", nw);
		goto done;
	}
	int64_t base = INT64_MAX;
	for (uint32_t i = 0; i < nw; i++)
		base = m->spans[waits[i]].ts_ns < base ? m->spans[waits[i]].ts_ns : base;
	sort_waits(m, waits, nw, base, order, key, tk, tv);
	for (uint32_t i = 0; i < nw; i++) {
		const gt_span *w = &m->spans[waits[order[i]]];
		begin[i] = w->ts_ns;
		end[i] = causal_end(w);
		best[i] = GT_NONE;
		proc_first[causal_process_of(m, waits[order[i]]) + 1]++;
		if (i && key[i] == key[i - 1] && end[i] < end[i - 1])
			goto done; /* overlapping waits in a process: not this case */
	}
	for (uint32_t p = 0; p < m->process_count; p++)
		proc_first[p + 1] += proc_first[p];
	placing pl = {t, cand, nc, proc_first, begin, end, best};
	rc = place_candidates(&pl, nw, threads);
	if (rc < 0) {
		rc = gt_fail(err, GT_EINPUT, "out of memory for %u wait spans", nw);
		goto done;
	}
	for (uint32_t p = 0; p < m->process_count; p++)
		for (uint32_t i = proc_first[p]; i < proc_first[p + 1]; i++) {
			uint32_t prev = i > proc_first[p] ? best[i - 1] : GT_NONE;
			if (prev != GT_NONE && beats(m, prev, best[i]))
				best[i] = prev;
			target[order[i]] = best[i];
		}
	rc = 0;
done:
	gt_big_free(order), gt_big_free(tv), gt_big_free(best), gt_big_free(key), gt_big_free(tk), gt_big_free(begin), gt_big_free(end), gt_big_free(proc_first);
	return rc;
}
