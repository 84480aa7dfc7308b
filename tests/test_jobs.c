/* gt_parallel_ranges: every index of [0, n) visited exactly once, in
 * consecutive ranges no shorter than asked (but for n below it), whatever
 * the thread count; the first failing range's result comes back.
 * gt_parallel_sort: the order qsort gives, for every thread count.
 * gt_radix_sort_u64: sorted and stable; in jobs, the serial sort's bytes.
 * gt_thread_count: -j's default where no count is asked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/jobs.h"
#include "base/par_sort.h"
#include "base/radix_sort.h"
#include "base/splitmix.h"
#include "testutil.h"

struct visits {
	uint8_t *seen;
	uint64_t min;
	uint64_t n;
	int short_ranges; /* ranges shorter than min while n >= min */
	int fail_from;    /* ranges starting at or past this index fail with their start + 1 */
};

static int visit(void *ctx, uint64_t a, uint64_t b)
{
	struct visits *v = ctx;
	if (b - a < v->min && v->n >= v->min)
		__atomic_add_fetch(&v->short_ranges, 1, __ATOMIC_RELAXED);
	for (uint64_t i = a; i < b; i++)
		__atomic_add_fetch(&v->seen[i], 1, __ATOMIC_RELAXED);
	return v->fail_from >= 0 && a >= (uint64_t)v->fail_from ? (int)a + 1 : 0;
}

START_TEST(every_index_once)
{
	/* few enough thread starts for a sanitizer build's timeout */
	static const uint64_t sizes[] = {0, 1, 7, 64, 65, 1000, 4099};
	static const uint64_t mins[] = {1, 64, 1000};
	static const unsigned threads[] = {1, 3, 0, 200}; /* 200: capped at GT_MAX_JOBS */
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (size_t m = 0; m < sizeof mins / sizeof *mins; m++)
			for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
				uint64_t n = sizes[s];
				struct visits v = {calloc(n ? n : 1, 1), mins[m], n, 0, -1};
				ck_assert_ptr_nonnull(v.seen);
				ck_assert_int_eq(gt_parallel_ranges(n, mins[m], threads[t], visit, &v), 0);
				for (uint64_t i = 0; i < n; i++)
					ck_assert_msg(v.seen[i] == 1, "n %llu, min %llu, threads %u: index %llu seen %u times",
						      (unsigned long long)n, (unsigned long long)mins[m], threads[t],
						      (unsigned long long)i, v.seen[i]);
				ck_assert_int_eq(v.short_ranges, 0);
				free(v.seen);
			}
}
END_TEST

START_TEST(first_failure_returned)
{
	/* 1000 items in ranges of at least 100 on 4 threads: starts 0, 250,
	 * 500, 750; those from 300 on fail, the first of them (500) wins */
	struct visits v = {calloc(1000, 1), 100, 1000, 0, 300};
	ck_assert_ptr_nonnull(v.seen);
	ck_assert_int_eq(gt_parallel_ranges(1000, 100, 4, visit, &v), 501);
	free(v.seen);
	ck_assert_uint_eq(gt_thread_count(3, 16), 3);
	ck_assert_uint_eq(gt_thread_count(40, 16), 16);
	ck_assert_uint_ge(gt_thread_count(0, 16), 1);
	ck_assert_uint_eq(gt_thread_count(5, 0), 1);
}
END_TEST

/* records with few distinct keys (many ties broken by seq), like the
 * ingest's flow points */
typedef struct rec {
	uint32_t key, seq;
	int64_t ts;
} rec;

static int cmp_rec(const void *x, const void *y)
{
	const rec *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

START_TEST(parallel_sort_is_qsort)
{
	static const size_t sizes[] = {0, 1, 1000, 65536 * 2 + 7, 65536 * 9 + 3};
	static const unsigned threads[] = {1, 2, 3, 8, 16};
	uint64_t state = 42;
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		size_t n = sizes[s];
		rec *v = malloc((n + 1) * sizeof *v), *want = malloc((n + 1) * sizeof *v), *got = malloc((n + 1) * sizeof *v);
		ck_assert(v && want && got);
		for (size_t i = 0; i < n; i++)
			v[i] = (rec){(uint32_t)(gt_splitmix64(&state) % 7), (uint32_t)i, (int64_t)(gt_splitmix64(&state) % 1000)};
		memcpy(want, v, n * sizeof *v);
		if (n)
			qsort(want, n, sizeof *want, cmp_rec);
		for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
			memcpy(got, v, n * sizeof *v);
			ck_assert_int_eq(gt_parallel_sort(got, n, sizeof *got, cmp_rec, threads[t]), 0);
			ck_assert(n == 0 || memcmp(got, want, n * sizeof *got) == 0);
		}
		free(v), free(want), free(got);
	}
}
END_TEST

/* Keys of few and of many distinct digits, with ties (stability), sorted
 * alone and in 1 to 8 jobs: the same bytes, in order, ties by value. */
START_TEST(radix_sort_jobs_are_serial)
{
	uint64_t state = 0x7ad1c000u + (uint64_t)_i;
	for (int round = 0; round < 100; round++) {
		uint32_t n = round % 25 == 0 ? 100000 + (uint32_t)(gt_splitmix64(&state) % 100000)
					     : (uint32_t)(gt_splitmix64(&state) % 3000);
		uint64_t *k1 = malloc((n + 1) * sizeof *k1), *k2 = malloc((n + 1) * sizeof *k2);
		uint64_t *tk = malloc((n + 1) * sizeof *tk);
		uint32_t *v1 = malloc((n + 1) * sizeof *v1), *v2 = malloc((n + 1) * sizeof *v2);
		uint32_t *tv = malloc((n + 1) * sizeof *tv);
		ck_assert(k1 && k2 && tk && v1 && v2 && tv);
		int shape = round % 6;
		uint64_t high = gt_splitmix64(&state);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t r = gt_splitmix64(&state);
			uint64_t x = shape == 0 ? r % 16                                  /* many ties */
				     : shape == 1 ? r                                     /* every digit */
				     : shape == 2 ? (high & ~0xffffffull) | (r % (1u << 20)) /* shared high digits */
				     : shape == 3 ? (r % 300) << 40 | (r >> 34)              /* two fields */
				     : shape == 4 ? (uint64_t)i * 8 + r % 40                 /* nearly in order */
						  : (i < n / 2 ? i : n - i) + r % 3;          /* in order, then back */
			k1[i] = k2[i] = x;
			v1[i] = v2[i] = i;
		}
		gt_radix_sort_u64(k1, v1, n, tk, tv);
		gt_radix_sort_u64_jobs(k2, v2, n, tk, tv, 1 + (unsigned)(gt_splitmix64(&state) % 8));
		ck_assert(n == 0 || (memcmp(k1, k2, n * sizeof *k1) == 0 && memcmp(v1, v2, n * sizeof *v1) == 0));
		for (uint32_t i = 1; i < n; i++)
			ck_assert(k1[i - 1] < k1[i] || (k1[i - 1] == k1[i] && v1[i - 1] < v1[i]));
		free(k1), free(k2), free(tk), free(v1), free(v2), free(tv);
	}
}
END_TEST

/* -j's count for the passes not handed one: asked counts win, 0 goes
 * back to the cores, max caps either. */
START_TEST(thread_default_followed)
{
	unsigned cores = gt_thread_count(0, 1024);
	gt_thread_default_set(3);
	ck_assert_uint_eq(gt_thread_count(0, 64), 3);
	ck_assert_uint_eq(gt_thread_count(0, 2), 2);
	ck_assert_uint_eq(gt_thread_count(5, 64), 5);
	gt_thread_default_set(1);
	ck_assert_uint_eq(gt_thread_count(0, 64), 1);
	gt_thread_default_set(0);
	ck_assert_uint_eq(gt_thread_count(0, 1024), cores);
}
END_TEST

int main(void)
{
	const gt_test ranges[] = {GT_TEST(every_index_once), GT_TEST(first_failure_returned),
				  GT_TEST(thread_default_followed), {0}};
	const gt_test sorts[] = {GT_TEST(parallel_sort_is_qsort), GT_LOOP(radix_sort_jobs_are_serial, 2), {0}};
	const gt_tcase cases[] = {{"ranges", 0, ranges}, {"sort", 0, sorts}, {0}};
	return gt_run_cases("jobs", cases);
}
