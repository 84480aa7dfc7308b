/* gt_parallel_ranges: every index of [0, n) visited exactly once, in
 * consecutive ranges no shorter than asked (but for n below it), whatever
 * the thread count; the first failing range's result comes back. */
#include <stdint.h>
#include <stdlib.h>

#include "base/jobs.h"
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

int main(void)
{
	const gt_test ranges[] = {GT_TEST(every_index_once), GT_TEST(first_failure_returned), {0}};
	const gt_tcase cases[] = {{"ranges", 0, ranges}, {0}};
	return gt_run_cases("jobs", cases);
}
