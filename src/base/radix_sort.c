/* The stable radix sorts (radix_sort.h): least significant digit first,
 * O(n) per digit, and a digit every key shares is skipped. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "radix_sort.h"

#define SMALL 48 /* below this, insertion sort is quicker than 8 histograms */

/* A few thousand keys nearly in order (a window's kernels by id, their
 * ends): an insertion sort moves each a little, where eight histograms
 * cost more; it gives up after two moves a key. */
#define NEARLY_MAX 4096

/* Insertion sort within a budget of moves: true where it finished. Where
 * it gave up, a prefix is sorted stably and the rest untouched: a stable
 * sort of that is the stable sort of the input. */
static bool insertion_sort_within(uint64_t *key, uint32_t *val, uint32_t n, uint64_t budget)
{
	uint64_t moves = 0;
	for (uint32_t i = 1; i < n; i++) {
		uint64_t k = key[i];
		uint32_t v = val[i], j = i;
		for (; j > 0 && key[j - 1] > k; j--) {
			key[j] = key[j - 1];
			val[j] = val[j - 1];
		}
		key[j] = k;
		val[j] = v;
		if ((moves += i - j) > budget)
			return false;
	}
	return true;
}

void gt_radix_sort_u64(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv)
{
	if (n < SMALL) {
		insertion_sort_within(key, val, n, UINT64_MAX);
		return;
	}
	if (n <= NEARLY_MAX && insertion_sort_within(key, val, n, 2 * (uint64_t)n))
		return;
	uint32_t count[8][256];
	memset(count, 0, sizeof count);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = key[i];
		for (int d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 255]++;
	}
	uint64_t *sk = key, *dk = tk;
	uint32_t *sv = val, *dv = tv;
	for (int d = 0; d < 8; d++) {
		uint32_t *c = count[d];
		if (c[(sk[0] >> (8 * d)) & 255] == n)
			continue; /* every key has this digit: the pass would copy */
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++) {
			uint32_t x = c[b];
			c[b] = sum;
			sum += x;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = c[(sk[i] >> (8 * d)) & 255]++;
			dk[at] = sk[i];
			dv[at] = sv[i];
		}
		uint64_t *xk = sk;
		sk = dk, dk = xk;
		uint32_t *xv = sv;
		sv = dv, dv = xv;
	}
	if (sk != key) {
		memcpy(key, sk, (size_t)n * sizeof *key);
		memcpy(val, sv, (size_t)n * sizeof *val);
	}
}

/* On threads: per digit, each thread counts its range, then places it
 * after the same digit's items of the ranges before, so each pass stays
 * stable and the result is the one gt_radix_sort_u64 gives. The threads
 * are started once for the whole sort and meet at a barrier between the
 * passes: starting them for each pass (13 times for a key of 6 varying
 * bytes) cost more than the pass on 16 cores. */
typedef struct radix_team {
	uint64_t *key, *tk;
	uint32_t *val, *tv;
	uint32_t n;
	unsigned k; /* the threads taking part, known once they are started */
	bool go;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_barrier_t bar;
	uint64_t or_[GT_MAX_JOBS], and_[GT_MAX_JOBS];
	uint32_t count[GT_MAX_JOBS][256];
} radix_team;

typedef struct radix_member {
	radix_team *t;
	unsigned j;
} radix_member;

static void radix_share(radix_team *t, unsigned j)
{
	unsigned k = t->k;
	uint32_t a = (uint32_t)((uint64_t)t->n * j / k), b = (uint32_t)((uint64_t)t->n * (j + 1) / k);
	uint64_t o = 0, and_ = UINT64_MAX;
	for (uint32_t i = a; i < b; i++)
		o |= t->key[i], and_ &= t->key[i];
	t->or_[j] = o, t->and_[j] = and_;
	pthread_barrier_wait(&t->bar);
	uint64_t varies = 0, all = UINT64_MAX;
	for (unsigned r = 0; r < k; r++)
		varies |= t->or_[r], all &= t->and_[r];
	varies ^= all; /* the bits not every key shares */
	uint64_t *sk = t->key, *dk = t->tk;
	uint32_t *sv = t->val, *dv = t->tv;
	for (int d = 0; d < 8; d++) {
		if (!((varies >> (8 * d)) & 255))
			continue; /* every key has this digit: the pass would copy */
		int shift = 8 * d;
		/* counted on the stack, then shared: the rows of t->count are not
		 * line-aligned, and neighbours' rows share a line at their ends */
		uint32_t c[256] = {0};
		for (uint32_t i = a; i < b; i++)
			c[(sk[i] >> shift) & 255]++;
		memcpy(t->count[j], c, sizeof c);
		pthread_barrier_wait(&t->bar);
		uint32_t at[256], sum = 0; /* before digit x: all items of smaller digits, this digit's of earlier ranges */
		for (int x = 0; x < 256; x++) {
			uint32_t before = 0, total = 0;
			for (unsigned r = 0; r < k; r++)
				total += t->count[r][x], before += r < j ? t->count[r][x] : 0;
			at[x] = sum + before;
			sum += total;
		}
		for (uint32_t i = a; i < b; i++) {
			uint32_t to = at[(sk[i] >> shift) & 255]++;
			dk[to] = sk[i];
			dv[to] = sv[i];
		}
		pthread_barrier_wait(&t->bar); /* every range placed (and every count read) */
		uint64_t *xk = sk;
		sk = dk, dk = xk;
		uint32_t *xv = sv;
		sv = dv, dv = xv;
	}
	if (sk != t->key) {
		memcpy(t->key + a, sk + a, (size_t)(b - a) * sizeof *sk);
		memcpy(t->val + a, sv + a, (size_t)(b - a) * sizeof *sv);
	}
}

static void *radix_member_run(void *arg)
{
	radix_member *m = arg;
	radix_team *t = m->t;
	pthread_mutex_lock(&t->mu);
	while (!t->go)
		pthread_cond_wait(&t->cv, &t->mu);
	bool in = m->j < t->k;
	pthread_mutex_unlock(&t->mu);
	if (in)
		radix_share(t, m->j);
	return NULL;
}

void gt_radix_sort_u64_jobs(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv, unsigned jobs)
{
	unsigned k = jobs < GT_MAX_JOBS ? jobs : GT_MAX_JOBS;
	if (k < 2 || n < k) {
		gt_radix_sort_u64(key, val, n, tk, tv);
		return;
	}
	radix_team *t = malloc(sizeof *t);
	if (!t) {
		gt_radix_sort_u64(key, val, n, tk, tv);
		return;
	}
	*t = (radix_team){.key = key, .tk = tk, .val = val, .tv = tv, .n = n};
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	pthread_t tids[GT_MAX_JOBS];
	radix_member m[GT_MAX_JOBS];
	unsigned started = 1; /* the caller is member 0; the others up to the first that does not start */
	for (; started < k; started++) {
		m[started] = (radix_member){t, started};
		if (pthread_create(&tids[started], NULL, radix_member_run, &m[started]) != 0)
			break;
	}
	pthread_mutex_lock(&t->mu);
	t->k = started;
	pthread_barrier_init(&t->bar, NULL, started);
	t->go = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	radix_share(t, 0);
	for (unsigned j = 1; j < started; j++)
		pthread_join(tids[j], NULL);
	pthread_barrier_destroy(&t->bar);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}
