/* collective/: collective matching and stragglers (collective.c). Host
 * only; the causal path's collective edges are built from it.
 *
 * Collectives across the ranks of a distributed job, and the stragglers
 * that held them up.
 *
 * A communication kernel is a span of category "kernel" (any case) whose
 * name contains nccl, rccl or hccl (any case), or matches the extra POSIX
 * ERE given. On each rank they are numbered per name in begin order (ties:
 * span id): seq. Matching: the seq-th kernel of a name on one rank is the
 * seq-th of that name on every other rank. A (name, seq) that not every rank
 * of the job has is left unmatched and counted (unmatched_collectives), never
 * paired with another.
 *
 * A matched collective cannot end before its last rank entered it: its
 * entry on rank r is B(k_r); the last rank is the one entering latest (ties:
 * the lowest rank); its lateness is that entry minus the median entry (the
 * lower median: sorted entries' element (n-1)/2), and the others waited the
 * sum over r of (last entry - B(k_r)). */
#ifndef GT_COLLECTIVE_H
#define GT_COLLECTIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "model/model.h"

typedef struct gt_coll_kernel {
	int64_t rank;
	uint32_t name;     /* string id in the set's pool */
	uint64_t seq;      /* its number among its name's kernels on its rank */
	int64_t begin_ns, end_ns;
	int64_t step;      /* the step window it lies in (--step), -1 none */
	uint32_t span;     /* span id in the model; GT_NONE when read from a summary */
} gt_coll_kernel;

/* Every rank's communication kernels: the per-rank summary a straggler
 * analysis needs, from models or from summary files. */
typedef struct gt_coll_set {
	gt_strpool names;
	gt_coll_kernel *k;
	uint64_t n, cap;
	int64_t *ranks;    /* the job's ranks, sorted, distinct */
	uint32_t rank_count, rank_cap;
} gt_coll_set;

typedef struct gt_coll_options {
	const char *name_regex; /* extra ERE (unanchored); NULL: none */
	const char *step_glob;  /* step windows: spans off device tracks whose name matches */
} gt_coll_options;

void gt_coll_set_init(gt_coll_set *s);
void gt_coll_set_free(gt_coll_set *s);
/* Adds a rank (even one without kernels); 0 or -1 with err. */
int gt_coll_add_rank(gt_coll_set *s, int64_t rank, gt_error *err);
/* Adds one kernel read from a summary (span GT_NONE); its rank is added. */
int gt_coll_add(gt_coll_set *s, const gt_coll_kernel *k, const char *name, gt_error *err);
/* Adds the communication kernels of a model: each rank part of a job, or a
 * single file as rank m->rank (0 when absent). Kernels come in model span
 * order with their seq. The step of a kernel: the ordinal on its rank of the
 * --step span holding the departure of the kernel's launch flow (its begin
 * when it has none). */
int gt_coll_extract(gt_coll_set *s, const gt_model *m, const gt_coll_options *opt, gt_error *err);

typedef struct gt_collective {
	uint32_t name;
	uint64_t seq;
	int64_t step;          /* the last rank's kernel's step */
	int64_t last_rank;
	int64_t last_entry_ns; /* absolute */
	int64_t median_entry_ns;
	int64_t late_ns;       /* last_entry_ns - median_entry_ns */
	int64_t waited_ns;     /* what the other ranks waited for the last */
	int64_t end_ns;        /* the latest end of its kernels */
	uint64_t first;        /* its kernels: s->k[order[first .. first + ranks)] */
} gt_collective;

typedef struct gt_rank_wait {
	int64_t rank;
	uint64_t last_count;   /* collectives it entered last with lateness > 0 */
	int64_t late_ns;       /* sum of its lateness there */
	int64_t caused_wait_ns; /* sum of the waiting it caused */
	uint64_t kernels;
} gt_rank_wait;

typedef struct gt_stragglers {
	gt_collective *c;      /* by (first entry, name, seq) */
	uint64_t count;
	uint64_t *order;       /* kernel indices of matched collectives, rank order inside each */
	gt_rank_wait *ranks;   /* one per rank of the set, by rank */
	uint32_t rank_count;
	uint64_t unmatched_collectives; /* kernels left unmatched */
	bool overflow;         /* a sum passed 2^63-1 (saturated) */
} gt_stragglers;

/* One step window (--step) of a job: which rank held it up. */
typedef struct gt_step_wait {
	int64_t step;           /* the last ranks' kernels' step; -1: outside any */
	uint64_t collectives;
	int64_t rank;           /* the rank that caused the most waiting in it (ties: lowest) */
	int64_t late_ns;        /* that rank's lateness summed over the step */
	int64_t caused_wait_ns; /* the waiting it caused there */
	int64_t waited_ns;      /* all the waiting of the step */
} gt_step_wait;

/* Per step, by step: *out (free it) and *n. 0, or -1 with err. */
int gt_stragglers_by_step(const gt_stragglers *st, gt_step_wait **out, uint64_t *n, gt_error *err);

/* Matches s's kernels across its ranks and finds the stragglers. */
int gt_stragglers_find(const gt_coll_set *s, gt_stragglers *out, gt_error *err);
void gt_stragglers_free(gt_stragglers *st);

#endif
