/* gt_search_from against a plain scan, from every hint, on arrays with runs
 * of equal values (many spans start at the same time). */
#include <stdint.h>

#include "base/sorted_search.h"
#include "testutil.h"

static uint32_t scan(const int64_t *a, uint32_t n, int64_t t, bool past_equal)
{
	uint32_t k = 0;
	while (k < n && (past_equal ? a[k] <= t : a[k] < t))
		k++;
	return k;
}

START_TEST(every_hint)
{
	uint64_t seed = 12345;
	int64_t a[70];
	for (int round = 0; round < 300; round++) {
		uint32_t n = (uint32_t)(round % 70);
		int64_t v = -5;
		for (uint32_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			v += (int64_t)(seed >> 62); /* steps of 0..3: runs of equal values */
			a[i] = v;
		}
		for (int64_t t = -7; t <= v + 2; t++)
			for (int pe = 0; pe < 2; pe++) {
				uint32_t want = scan(a, n, t, pe);
				for (uint32_t hint = 0; hint <= n + 2; hint++)
					if (gt_search_from(a, n, t, pe, hint) != want)
						ck_abort_msg("n %u, t %lld, past_equal %d, hint %u: %u, want %u", n,
							     (long long)t, pe, hint, gt_search_from(a, n, t, pe, hint), want);
			}
	}
}
END_TEST

START_TEST(extremes)
{
	const int64_t a[] = {INT64_MIN, INT64_MIN, 0, INT64_MAX, INT64_MAX};
	for (uint32_t hint = 0; hint < 6; hint++) {
		ck_assert_uint_eq(gt_search_from(a, 5, INT64_MIN, false, hint), 0);
		ck_assert_uint_eq(gt_search_from(a, 5, INT64_MIN, true, hint), 2);
		ck_assert_uint_eq(gt_search_from(a, 5, INT64_MAX, false, hint), 3);
		ck_assert_uint_eq(gt_search_from(a, 5, INT64_MAX, true, hint), 5);
		ck_assert_uint_eq(gt_search_from(a, 0, 0, true, hint), 0);
	}
}
END_TEST

int main(void)
{
	const gt_test search[] = {GT_TEST(every_hint), GT_TEST(extremes), {0}};
	const gt_tcase cases[] = {{"search", 0, search}, {0}};
	return gt_run_cases("sorted_search", cases);
}
