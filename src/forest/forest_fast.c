/* The fast host path of the forest critical path (contract in forest.h;
 * gt_critpath_host stays the oracle the tests compare it with).
 *
 * The reference walks each row up to the first resolved ancestor: on a
 * random forest that is a chain of dependent cache misses per row. Here the
 * rows are split into one contiguous block per thread and resolved in index
 * order, so a row whose parent comes before it only gathers its parent's
 * 16-byte record: independent loads the CPU keeps in flight (helped by a
 * prefetch a few rows ahead), the same access pattern as a pure gather.
 *
 *   1. Each thread, over its block: a root is final; a parent in an earlier
 *      block makes the row "anchored" to that parent (a partial sum and hop
 *      count); a parent earlier in the block passes on its result (final,
 *      anchored, invalid or pending). A parent at or after the row (a
 *      forward link, possibly a cycle) makes the row pending.
 *   2. Block after block (all threads on one block), an anchored row adds
 *      its anchor's final result: anchors lie in earlier blocks, already
 *      final.
 *   3. Pending rows (rare in traces: a parent listed after its child) are
 *      resolved one thread by the reference's walk over the records.
 *   4. Steps 1-3 keep each thread's best row; once every record is final,
 *      each thread writes its block's outputs, slack included, in one
 *      pass in row order (sequential streams; non-temporal stores were
 *      2.7x slower on 16 cores, 1.04x faster on 2).
 * Every row's result is the reference's (the contract defines it row by
 * row), and the flags are properties of the input, so the bytes are equal. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "forest.h"
#include "base/base.h"

#define FAST_MAX_THREADS 64
#define PREFETCH_AHEAD 16

/* One row's state. root NONE: invalid (hop NONE), pending or on the walk's
 * stack (hop below); else final, or anchored to row `root` when hop has
 * ANCHORED set (path and hop then partial, up to the anchor). */
typedef struct rec {
	int64_t path;
	uint32_t root;
	uint32_t hop;
} rec;

#define ANCHORED 0x80000000u
#define PENDING 0xfffffffeu
#define ON_WALK 0xfffffffdu

struct job;

struct shared {
	const uint32_t *parent;
	const int64_t *dur;
	uint32_t n;
	unsigned threads;
	rec *r;
	gt_cp_rows *o;
	pthread_barrier_t barrier;
	uint32_t walk_flags;
	int walk_failed;
	struct job *walk_job; /* the rows the walk resolves: their best and hop */
	int64_t best;
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	int gate; /* 0: wait, 1: go, -1: leave */
};

struct job {
	GT_JOB_ALIGNED struct shared *s;
	unsigned t;
	uint32_t b0, b1; /* this thread's block */
	uint32_t flags;  /* CYCLE/OVERFLOW found, then the input's flags */
	uint64_t pending;
	int64_t best;
	uint32_t endpoint, max_hop;
};

static uint32_t block_start(const struct shared *s, unsigned t)
{
	return (uint32_t)((uint64_t)s->n * t / s->threads);
}

static void set_invalid(rec *x)
{
	x->root = GT_CP_NONE;
	x->hop = GT_CP_NONE;
}

static void set_pending(rec *x)
{
	x->root = GT_CP_NONE;
	x->hop = PENDING;
}

/* Keeps the job's best row (the lowest index among equal sums) and deepest
 * hop once row i's record is final; the outputs are written later, in one
 * pass in row order (output_pass). */
static inline void keep_best(struct job *j, uint32_t i, const rec *x)
{
	if (x->root == GT_CP_NONE)
		return;
	if (x->path > j->best || (x->path == j->best && i < j->endpoint)) {
		j->best = x->path;
		j->endpoint = i;
	}
	if (x->hop > j->max_hop)
		j->max_hop = x->hop;
}

/* Step 1 over [b0, b1). */
static void local_pass(struct job *j)
{
	const struct shared *s = j->s;
	const uint32_t *parent = s->parent;
	const int64_t *dur = s->dur;
	rec *r = s->r;
	uint32_t n = s->n, b0 = j->b0, b1 = j->b1;
	for (uint32_t i = b0; i < b1; i++) {
		if (i + PREFETCH_AHEAD < b1) {
			uint32_t q = parent[i + PREFETCH_AHEAD];
			if (q >= b0 && q < i + PREFETCH_AHEAD)
				__builtin_prefetch(&r[q], 0, 1);
		}
		uint32_t p = parent[i];
		int64_t d = dur[i];
		rec *x = &r[i];
		if (d < 0 || (p != GT_CP_ROOT && p >= n)) {
			j->flags |= (d < 0 ? GT_CP_INVALID_DURATION : 0) |
				    (p != GT_CP_ROOT && p >= n ? GT_CP_INVALID_PARENT : 0);
			set_invalid(x);
			keep_best(j, i, x);
		} else if (p == GT_CP_ROOT) {
			x->path = d;
			x->root = i;
			x->hop = 0;
			keep_best(j, i, x);
		} else if (p >= i) {
			set_pending(x);
			j->pending++;
		} else if (p < b0) {
			x->path = d;
			x->root = p;
			x->hop = ANCHORED | 1;
		} else {
			rec y = r[p];
			int64_t sum;
			if (y.root == GT_CP_NONE) {
				*x = y; /* invalid or pending, like its parent */
				if (y.hop == PENDING)
					j->pending++;
				else
					keep_best(j, i, x);
			} else if (__builtin_add_overflow(d, y.path, &sum)) {
				if (y.hop & ANCHORED) {
					/* whether it counts depends on the anchor: the walk decides */
					set_pending(x);
					j->pending++;
				} else {
					j->flags |= GT_CP_OVERFLOW;
					set_invalid(x);
					keep_best(j, i, x);
				}
			} else {
				x->path = sum;
				x->root = y.root;
				x->hop = y.hop + 1;
				if (!(x->hop & ANCHORED))
					keep_best(j, i, x);
			}
		}
	}
}

/* Step 2 over [a, b) of a block whose anchors are final. */
static void anchor_pass(struct job *j, uint32_t a, uint32_t b)
{
	rec *r = j->s->r;
	for (uint32_t i = a; i < b; i++) {
		if (i + PREFETCH_AHEAD < b) {
			rec *z = &r[i + PREFETCH_AHEAD];
			if (z->root != GT_CP_NONE && (z->hop & ANCHORED))
				__builtin_prefetch(&r[z->root], 0, 1);
		}
		rec *x = &r[i];
		if (x->root == GT_CP_NONE || !(x->hop & ANCHORED))
			continue;
		rec y = r[x->root];
		int64_t sum;
		if (y.root == GT_CP_NONE) {
			*x = y;
			if (y.hop == PENDING) {
				j->pending++;
				continue;
			}
		} else if (__builtin_add_overflow(x->path, y.path, &sum)) {
			j->flags |= GT_CP_OVERFLOW;
			set_invalid(x);
		} else {
			x->path = sum;
			x->root = y.root;
			x->hop = y.hop + (x->hop & ~ANCHORED);
		}
		keep_best(j, i, x);
	}
}

/* Step 3: the reference's walk over the pending rows, every other row
 * being final or invalid. Returns the CYCLE/OVERFLOW flags found, or -1
 * when the stack cannot be allocated. */
static int walk_pending(const struct shared *s, struct job *wj)
{
	const uint32_t *parent = s->parent;
	const int64_t *dur = s->dur;
	rec *r = s->r;
	uint32_t n = s->n, flags = 0;
	uint32_t *stack = gt_big_malloc(n, sizeof *stack);
	if (!stack)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (r[i].root != GT_CP_NONE || r[i].hop != PENDING)
			continue;
		/* A pending row is locally valid with a parent below n. */
		uint32_t top = 0, k = i;
		bool cycle = false;
		while (r[k].root == GT_CP_NONE && r[k].hop != GT_CP_NONE) {
			if (r[k].hop == ON_WALK) {
				cycle = true;
				break;
			}
			r[k].hop = ON_WALK;
			stack[top++] = k;
			k = parent[k];
		}
		if (cycle)
			flags |= GT_CP_CYCLE;
		while (top > 0) {
			uint32_t m = stack[--top];
			rec *x = &r[m];
			const rec *y = &r[parent[m]];
			int64_t sum;
			if (cycle || y->root == GT_CP_NONE) {
				set_invalid(x);
			} else if (__builtin_add_overflow(dur[m], y->path, &sum)) {
				flags |= GT_CP_OVERFLOW;
				set_invalid(x);
			} else {
				x->path = sum;
				x->root = y->root;
				x->hop = y->hop + 1;
			}
			keep_best(wj, m, x);
		}
	}
	gt_big_free(stack);
	return (int)flags;
}

/* Step 4 over the block, once every record is final and the best sum is
 * known: each row's outputs, in row order; a valid row's path is >= 0 and
 * its slack best - path, an invalid row's -1. */
static void output_pass(struct job *j)
{
	const struct shared *s = j->s;
	gt_cp_rows *o = s->o;
	const rec *r = s->r;
	const uint32_t *parent = s->parent;
	int64_t best = s->best;
	for (uint32_t i = j->b0; i < j->b1; i++) {
		rec x = r[i];
		bool valid = x.root != GT_CP_NONE;
		o->path_duration[i] = valid ? x.path : -1;
		o->slack[i] = valid ? best - x.path : -1;
		o->root[i] = x.root;
		o->hop_count[i] = valid ? x.hop : GT_CP_NONE;
		o->critical_predecessor[i] = valid ? parent[i] : GT_CP_NONE;
	}
	memset(o->critical_mask + j->b0, 0, j->b1 - j->b0);
}

/* The better of two (sum, index) candidates: the larger sum, then the
 * lower index, as the reference's scan in index order finds it. */
static void better(int64_t *best, uint32_t *endpoint, const struct job *j)
{
	if (j->best > *best || (j->best == *best && j->best >= 0 && j->endpoint < *endpoint)) {
		*best = j->best;
		*endpoint = j->endpoint;
	}
}

static void *worker(void *arg)
{
	struct job *j = arg, *jobs = j - j->t;
	struct shared *s = j->s;
	unsigned T = s->threads;
	local_pass(j);
	pthread_barrier_wait(&s->barrier);
	for (unsigned k = 1; k < T; k++) {
		uint32_t b0 = block_start(s, k), len = block_start(s, k + 1) - b0;
		anchor_pass(j, b0 + (uint32_t)((uint64_t)len * j->t / T),
			    b0 + (uint32_t)((uint64_t)len * (j->t + 1) / T));
		pthread_barrier_wait(&s->barrier);
	}
	if (j->t == 0) {
		uint64_t pending = 0;
		for (unsigned t = 0; t < T; t++)
			pending += jobs[t].pending;
		if (pending) {
			int f = walk_pending(s, s->walk_job);
			if (f < 0)
				s->walk_failed = 1;
			else
				s->walk_flags = (uint32_t)f;
		}
		int64_t best = -1;
		uint32_t endpoint = GT_CP_NONE;
		for (unsigned t = 0; t < T; t++)
			better(&best, &endpoint, &jobs[t]);
		better(&best, &endpoint, s->walk_job);
		s->best = best;
	}
	pthread_barrier_wait(&s->barrier);
	if (s->walk_failed)
		return NULL;
	output_pass(j);
	return NULL;
}

static void *gated_worker(void *arg)
{
	struct job *j = arg;
	struct shared *s = j->s;
	pthread_mutex_lock(&s->gate_lock);
	while (s->gate == 0)
		pthread_cond_wait(&s->gate_cond, &s->gate_lock);
	int go = s->gate > 0;
	pthread_mutex_unlock(&s->gate_lock);
	return go ? worker(arg) : NULL;
}

unsigned gt_critpath_fast_threads(unsigned asked)
{
	return gt_thread_count(asked, FAST_MAX_THREADS);
}

int gt_critpath_fast(const uint32_t *parent, const int64_t *dur, uint32_t n, const gt_cp_options *opt,
		     gt_cp_rows *o, gt_cp_summary *sum, gt_error *err)
{
	/* hop counts share their word with the ANCHORED bit */
	if (n >= ANCHORED)
		return gt_critpath_host(parent, dur, n, opt, o, sum, err);
	uint32_t max_len = opt && opt->max_path_length ? opt->max_path_length : GT_CP_NONE;
	unsigned asked = opt ? opt->threads : 0, T = gt_critpath_fast_threads(asked);
	if (!asked && n < 65536u * T) /* too small to pay for the threads */
		T = n < 65536u ? 1 : n / 65536u;
	if (T > n)
		T = n ? n : 1;
	struct shared s = {.parent = parent, .dur = dur, .n = n, .threads = T, .o = o,
			   .gate_lock = PTHREAD_MUTEX_INITIALIZER, .gate_cond = PTHREAD_COND_INITIALIZER};
	struct job jobs[FAST_MAX_THREADS];
	pthread_t tids[FAST_MAX_THREADS];
	s.r = gt_big_malloc(n ? n : 1, sizeof *s.r);
	if (!s.r)
		return gt_fail(err, GT_EINPUT, "out of memory for the critical path of %u rows", n);
	if (pthread_barrier_init(&s.barrier, NULL, T) != 0) {
		gt_big_free(s.r);
		return gt_fail(err, GT_EINPUT, "cannot set up the critical path's threads");
	}
	struct job walk = {.s = &s, .best = -1, .endpoint = GT_CP_NONE};
	s.walk_job = &walk;
	for (unsigned t = 0; t < T; t++)
		jobs[t] = (struct job){.s = &s, .t = t, .b0 = block_start(&s, t), .b1 = block_start(&s, t + 1),
				       .best = -1, .endpoint = GT_CP_NONE};
	/* The barrier needs every thread: when one does not start, the
	 * started ones are told to leave at the gate and one thread runs. */
	unsigned started = 1;
	for (; started < T; started++)
		if (pthread_create(&tids[started], NULL, gated_worker, &jobs[started]) != 0)
			break;
	pthread_mutex_lock(&s.gate_lock);
	s.gate = started == T ? 1 : -1;
	pthread_cond_broadcast(&s.gate_cond);
	pthread_mutex_unlock(&s.gate_lock);
	if (started < T) {
		for (unsigned t = 1; t < started; t++)
			pthread_join(tids[t], NULL);
		pthread_barrier_destroy(&s.barrier);
		T = s.threads = 1;
		jobs[0] = (struct job){.s = &s, .t = 0, .b0 = 0, .b1 = n, .best = -1, .endpoint = GT_CP_NONE};
		pthread_barrier_init(&s.barrier, NULL, 1);
		started = 1;
	}
	worker(&jobs[0]);
	for (unsigned t = 1; t < started; t++)
		pthread_join(tids[t], NULL);
	pthread_barrier_destroy(&s.barrier);
	gt_big_free(s.r);
	if (s.walk_failed)
		return gt_fail(err, GT_EINPUT, "out of memory for the critical path of %u rows", n);

	uint32_t flags = s.walk_flags, endpoint = GT_CP_NONE, max_hop = 0;
	int64_t best = -1;
	for (unsigned t = 0; t <= T; t++) {
		const struct job *j = t < T ? &jobs[t] : &walk;
		flags |= j->flags;
		better(&best, &endpoint, j);
		if (j->max_hop > max_hop)
			max_hop = j->max_hop;
	}
	memset(sum, 0, sizeof *sum);
	sum->endpoint = endpoint;
	sum->max_hop_count = max_hop;
	if (endpoint != GT_CP_NONE) {
		sum->max_path_duration = best;
		uint32_t len = o->hop_count[endpoint] + 1;
		sum->path_rows = len;
		sum->marked_rows = len < max_len ? len : max_len;
		if (len > max_len)
			flags |= GT_CP_PATH_TRUNCATED;
		uint32_t skip = len - sum->marked_rows, r = endpoint;
		for (uint32_t k = 0; k < len; k++, r = parent[r])
			if (k >= skip)
				o->critical_mask[r] = 1;
	}
	sum->flags = flags;
	return 0;
}
