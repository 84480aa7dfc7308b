/* An epoch's keys, in the index's order, cut into batches (tindex_order.h):
 * a batch per batch_spans keys of one (group, band), a run's last shorter.
 * On threads, in pieces that each start at a batch boundary, so that every
 * batch is one piece's; the pieces' batches are then laid end to end. The
 * cut had been one serial pass per epoch, a fifth of the index's time on
 * 16 cores. */
#include <stdlib.h>
#include <string.h>

#include "tindex_order.h"
#include "base/base.h"

static uint64_t run_key(const gt_tindex_key *k)
{
	return (uint64_t)k->group << 32 | k->band;
}

/* The first batch boundary at or after s (0 < s < n): the next multiple
 * of batch keys from the start of s's run, or the next run's start. Runs
 * are contiguous: the order is by (group, band) first. */
static uint32_t boundary_from(const gt_tindex_key *keys, uint32_t n, uint32_t s, uint32_t batch)
{
	uint64_t run = run_key(&keys[s]);
	uint32_t lo = 0, hi = s; /* the run's first key */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (run_key(&keys[mid]) < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t start = lo;
	lo = s, hi = n; /* the next run's first key */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (run_key(&keys[mid]) <= run)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t b = start + ((uint64_t)(s - start) + batch - 1) / batch * batch;
	return b < lo ? (uint32_t)b : lo;
}

typedef struct cut_piece {
	GT_JOB_ALIGNED const gt_tindex_key *keys; /* count grows per batch */
	uint32_t a, b;   /* keys [a, b), a on a batch boundary */
	uint32_t e0;     /* the epoch's first span position */
	uint32_t batch;
	gt_tnode *nodes; /* its batches (partition left 0) */
	uint32_t count, cap;
	bool failed;
} cut_piece;

static void *cut_range(void *arg)
{
	cut_piece *p = arg;
	gt_tnode *cur = NULL;
	for (uint32_t k = p->a; k < p->b; k++) {
		const gt_tindex_key *s = &p->keys[k];
		if (k == p->a || s->group != s[-1].group || s->band != s[-1].band || cur->count == p->batch) {
			if (p->count == p->cap) {
				uint32_t cap = p->cap ? 2 * p->cap : (p->b - p->a) / p->batch + 16;
				gt_tnode *grown = gt_fault_hit("alloc") ? NULL : realloc(p->nodes, cap * sizeof *grown);
				if (!grown) {
					p->failed = true;
					return NULL;
				}
				p->nodes = grown, p->cap = cap;
			}
			cur = &p->nodes[p->count++];
			*cur = (gt_tnode){s->ts, s->end, p->e0 + k, 0, s->lane, s->lane, s->group, 0};
		}
		gt_tnode_add(cur, &(gt_tnode){s->ts, s->end, 0, 0, s->lane, s->lane, 0, 0});
		cur->count++;
	}
	return NULL;
}

/* Pieces for n keys: one under fault injection, whose walks count the
 * allocations in order. */
static unsigned piece_count(uint32_t n)
{
#ifdef GT_FAULT_INJECTION
	(void)n;
	return 1;
#else
	return gt_tindex_threads(n);
#endif
}

int gt_tindex_cut_epoch(const gt_tindex_key *keys, uint32_t n, uint32_t e0, const gt_tindex_params *p,
			gt_tnode **batches, uint32_t *count, size_t *cap)
{
	cut_piece pieces[GT_MAX_JOBS];
	unsigned k = piece_count(n);
	uint32_t from = 0;
	for (unsigned j = 0; j < k; j++) {
		uint32_t to = j + 1 == k ? n : boundary_from(keys, n, (uint32_t)((uint64_t)n * (j + 1) / k), p->batch_spans);
		to = to < from ? from : to;
		pieces[j] = (cut_piece){keys, from, to, e0, p->batch_spans, NULL, 0, 0, false};
		from = to;
	}
	gt_run_jobs(cut_range, pieces, sizeof *pieces, k);
	uint64_t total = *count;
	bool failed = false;
	for (unsigned j = 0; j < k; j++)
		total += pieces[j].count, failed |= pieces[j].failed;
	if (!failed && total > *cap) {
		size_t grown_cap = *cap;
		while (grown_cap < total)
			grown_cap = grown_cap ? 2 * grown_cap : 16;
		gt_tnode *grown = gt_fault_hit("alloc") ? NULL : realloc(*batches, grown_cap * sizeof *grown);
		failed = !grown;
		if (grown)
			*batches = grown, *cap = grown_cap;
	}
	for (unsigned j = 0; j < k; j++) {
		for (uint32_t i = 0; !failed && i < pieces[j].count; i++) {
			pieces[j].nodes[i].partition = *count / p->partition_batches;
			(*batches)[(*count)++] = pieces[j].nodes[i];
		}
		free(pieces[j].nodes);
	}
	return failed ? -1 : 0;
}
