/* gt_find_runs and gt_merge_runs against qsort, on sequences of 1 to 20
 * runs (each in order, with equal keys inside and across runs), ties
 * broken by id as the callers' orders do; their threaded twins on
 * sequences long enough to be cut into parts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/merge_runs.h"
#include "base/splitmix.h"
#include "testutil.h"

static const int64_t *keys;

static bool by_key(const void *ctx, uint32_t a, uint32_t b)
{
	const int64_t *k = ctx;
	return k[a] != k[b] ? k[a] < k[b] : a < b;
}

static int cmp_key(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return by_key(keys, a, b) ? -1 : by_key(keys, b, a);
}

START_TEST(runs_against_qsort)
{
	uint64_t seed = 99;
	for (int round = 0; round < 400; round++) {
		uint32_t n = (uint32_t)(gt_splitmix64(&seed) % 3000), want_runs = 1 + (uint32_t)(round % 20);
		int64_t *k = malloc((n ? n : 1) * sizeof *k);
		uint32_t *v = malloc((n ? n : 1) * sizeof *v), *ref = malloc((n ? n : 1) * sizeof *ref),
			 *tmp = malloc((n ? n : 1) * sizeof *tmp);
		ck_assert(k && v && ref && tmp);
		/* want_runs stretches of ids, each with keys rising from a low start */
		for (uint32_t r = 0, i = 0; r < want_runs; r++) {
			uint32_t end = (uint32_t)((uint64_t)n * (r + 1) / want_runs);
			int64_t key = (int64_t)(gt_splitmix64(&seed) % 50);
			for (; i < end; i++) {
				key += (int64_t)(gt_splitmix64(&seed) % 3); /* steps of 0 to 2: equal keys */
				k[i] = key;
			}
		}
		for (uint32_t i = 0; i < n; i++)
			v[i] = ref[i] = i;
		keys = k;
		qsort(ref, n, sizeof *ref, cmp_key);
		uint32_t run[GT_MERGE_RUNS_MAX + 2], runs = gt_find_runs(v, n, by_key, k, run);
		ck_assert_uint_ge(runs, 1);
		ck_assert(runs <= want_runs || n == 0); /* a run may continue into the next stretch */
		if (runs <= GT_MERGE_RUNS_MAX) {
			gt_merge_runs(v, tmp, n, run, runs, by_key, k);
			for (uint32_t i = 0; i < n; i++)
				ck_assert_msg(v[i] == ref[i], "n %u, %u runs: position %u holds %u, want %u", n, runs, i, v[i],
					      ref[i]);
		} else {
			ck_assert_uint_eq(runs, GT_MERGE_RUNS_MAX + 1); /* counted no further */
		}
		free(k), free(v), free(ref), free(tmp);
	}
}
END_TEST

/* Runs of uneven lengths (one may hold most items, as a host thread's
 * ops against its few runtime calls), keys with long stretches of ties. */
static void fill_runs(int64_t *k, uint32_t n, uint32_t want_runs, uint64_t *seed)
{
	uint32_t cut[21] = {0};
	for (uint32_t r = 1; r < want_runs; r++)
		cut[r] = (uint32_t)(gt_splitmix64(seed) % (n + 1u));
	cut[want_runs] = n;
	for (uint32_t r = 1; r < want_runs; r++) /* insertion: a handful */
		for (uint32_t q = r; q > 1 && cut[q - 1] > cut[q]; q--) {
			uint32_t t = cut[q];
			cut[q] = cut[q - 1], cut[q - 1] = t;
		}
	for (uint32_t r = 0, i = 0; r < want_runs; r++) {
		int64_t key = (int64_t)(gt_splitmix64(seed) % 1000);
		uint32_t step = 1 + (uint32_t)(gt_splitmix64(seed) % 4);
		for (; i < cut[r + 1]; i++) {
			key += (int64_t)(gt_splitmix64(seed) % (step + 1));
			k[i] = key;
		}
	}
}

START_TEST(threads_against_qsort)
{
	uint64_t seed = 7;
	const unsigned threads[] = {2, 3, 5, 8, 16};
	for (int round = 0; round < 24; round++) {
		uint32_t n = 65536 + (uint32_t)(gt_splitmix64(&seed) % 300000), want_runs = 1 + (uint32_t)(round % 20);
		unsigned t = threads[round % 5];
		int64_t *k = malloc(n * sizeof *k);
		uint32_t *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w), *ref = malloc(n * sizeof *ref),
			 *tmp = malloc(n * sizeof *tmp);
		ck_assert(k && v && w && ref && tmp);
		fill_runs(k, n, want_runs, &seed);
		for (uint32_t i = 0; i < n; i++)
			v[i] = w[i] = ref[i] = i;
		keys = k;
		qsort(ref, n, sizeof *ref, cmp_key);
		uint32_t run[GT_MERGE_RUNS_MAX + 2], alone[GT_MERGE_RUNS_MAX + 2];
		uint32_t runs = gt_find_runs_threads(v, n, by_key, k, run, t), one = gt_find_runs(w, n, by_key, k, alone);
		ck_assert_uint_eq(runs, one);
		ck_assert(memcmp(run, alone, runs * sizeof *run) == 0);
		if (runs <= GT_MERGE_RUNS_MAX) {
			gt_merge_runs_threads(v, tmp, n, run, runs, by_key, k, t);
			uint32_t i = 0; /* one check a round: Check records each assertion */
			while (i < n && v[i] == ref[i])
				i++;
			ck_assert_msg(i == n, "n %u, %u runs, %u threads: position %u holds %u, want %u", n, runs, t, i,
				      i < n ? v[i] : 0, i < n ? ref[i] : 0);
		}
		free(k), free(v), free(w), free(ref), free(tmp);
	}
}
END_TEST

int main(void)
{
	const gt_test merge[] = {GT_TEST(runs_against_qsort), GT_TEST(threads_against_qsort), {0}};
	const gt_tcase cases[] = {{"merge", 0, merge}, {0}};
	return gt_run_cases("merge_runs", cases);
}
