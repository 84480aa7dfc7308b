/* Collective matching and stragglers (collective/collective.h) on summaries
 * built by hand: the lower median, ties, unmatched kernels never paired, a
 * rank without kernels, and against a brute-force reference on random sets. */
#include <stdint.h>
#include <string.h>

#include "collective/collective.h"
#include "testutil.h"

static void add(gt_coll_set *s, int64_t rank, const char *name, uint64_t seq, int64_t b, int64_t e)
{
	gt_error err = {0};
	gt_coll_kernel k = {.rank = rank, .seq = seq, .begin_ns = b, .end_ns = e, .step = -1, .span = GT_NONE};
	ck_assert_int_eq(gt_coll_add(s, &k, name, &err), 0);
}

START_TEST(lower_median_and_ties)
{
	gt_coll_set s;
	gt_coll_set_init(&s);
	/* four ranks: entries 10, 40, 20, 40 -> last is rank 1 (tie with 3: lowest),
	 * lower median 20, late 20, waited 30 + 0 + 20 + 0 */
	int64_t b[4] = {10, 40, 20, 40};
	for (int r = 0; r < 4; r++)
		add(&s, r, "ncclAllReduce", 0, b[r], 100 + r);
	gt_stragglers st;
	gt_error err = {0};
	ck_assert_int_eq(gt_stragglers_find(&s, &st, &err), 0);
	ck_assert_uint_eq(st.count, 1);
	ck_assert_int_eq(st.c[0].last_rank, 1);
	ck_assert_int_eq(st.c[0].median_entry_ns, 20);
	ck_assert_int_eq(st.c[0].late_ns, 20);
	ck_assert_int_eq(st.c[0].waited_ns, 50);
	ck_assert_int_eq(st.c[0].end_ns, 103);
	ck_assert_int_eq(st.ranks[1].caused_wait_ns, 50);
	ck_assert_uint_eq(st.ranks[1].last_count, 1);
	ck_assert_int_eq(st.ranks[3].caused_wait_ns, 0);
	ck_assert_uint_eq(st.unmatched_collectives, 0);
	gt_stragglers_free(&st);
	gt_coll_set_free(&s);
}
END_TEST

START_TEST(unmatched_never_paired)
{
	gt_coll_set s;
	gt_coll_set_init(&s);
	gt_error err = {0};
	/* rank 2 truncated: only the first two of three; rank 3 has none at all */
	for (int r = 0; r < 3; r++)
		for (uint64_t q = 0; q < (r == 2 ? 2u : 3u); q++)
			add(&s, r, "ncclKernel", q, (int64_t)(1000 * q + (uint64_t)r), (int64_t)(1000 * q + 500));
	ck_assert_int_eq(gt_coll_add_rank(&s, 3, &err), 0);
	gt_stragglers st;
	ck_assert_int_eq(gt_stragglers_find(&s, &st, &err), 0);
	ck_assert_uint_eq(st.count, 0); /* rank 3 has none: nothing is on every rank */
	ck_assert_uint_eq(st.unmatched_collectives, 8);
	gt_stragglers_free(&st);
	gt_coll_set_free(&s);

	gt_coll_set_init(&s);
	for (int r = 0; r < 3; r++)
		for (uint64_t q = 0; q < (r == 2 ? 2u : 3u); q++)
			add(&s, r, "ncclKernel", q, (int64_t)(1000 * q + (uint64_t)r), (int64_t)(1000 * q + 500));
	ck_assert_int_eq(gt_stragglers_find(&s, &st, &err), 0);
	ck_assert_uint_eq(st.count, 2);
	ck_assert_uint_eq(st.c[0].seq, 0);
	ck_assert_uint_eq(st.c[1].seq, 1);
	ck_assert_int_eq(st.c[1].last_rank, 2);
	ck_assert_uint_eq(st.unmatched_collectives, 2);
	gt_stragglers_free(&st);
	gt_coll_set_free(&s);
}
END_TEST

/* The brute-force reference: every (name, seq) present on all ranks exactly once. */
START_TEST(random_against_reference)
{
	uint64_t seed = 99;
	static const char *const names[3] = {"ncclA", "ncclB", "rcclC"};
	for (int round = 0; round < 200; round++) {
		gt_coll_set s;
		gt_coll_set_init(&s);
		int R = 1 + round % 7;
		int64_t begin[7][3][6];
		int count[7][3];
		for (int r = 0; r < R; r++)
			for (int nm = 0; nm < 3; nm++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				count[r][nm] = 3 + (int)((seed >> 60) % 4); /* 3..6 */
				for (int q = 0; q < count[r][nm]; q++) {
					seed = seed * 6364136223846793005ull + 1442695040888963407ull;
					begin[r][nm][q] = (int64_t)(seed >> 54); /* many ties */
					add(&s, r, names[nm], (uint64_t)q, begin[r][nm][q], begin[r][nm][q] + 5);
				}
			}
		gt_stragglers st;
		gt_error err = {0};
		ck_assert_int_eq(gt_stragglers_find(&s, &st, &err), 0);
		uint64_t matched = 0, unmatched = 0;
		int64_t caused[7] = {0};
		for (int nm = 0; nm < 3; nm++) {
			int lo = 6, hi = 0;
			for (int r = 0; r < R; r++) {
				lo = count[r][nm] < lo ? count[r][nm] : lo;
				hi = count[r][nm] > hi ? count[r][nm] : hi;
			}
			for (int r = 0; r < R; r++)
				unmatched += (uint64_t)(count[r][nm] - lo);
			for (int q = 0; q < lo; q++) {
				int last = 0;
				int64_t e[7];
				for (int r = 0; r < R; r++) {
					e[r] = begin[r][nm][q];
					if (e[r] > e[last])
						last = r;
				}
				for (int i = 1; i < R; i++) /* insertion sort */
					for (int j = i; j > 0 && e[j - 1] > e[j]; j--) {
						int64_t t = e[j];
						e[j] = e[j - 1];
						e[j - 1] = t;
					}
				int64_t waited = 0;
				for (int r = 0; r < R; r++)
					waited += begin[last][nm][q] - begin[r][nm][q];
				caused[last] += waited;
				const gt_collective *c = NULL;
				for (uint64_t k = 0; k < st.count; k++)
					if (strcmp(gt_strpool_get(&s.names, st.c[k].name), names[nm]) == 0 && st.c[k].seq == (uint64_t)q)
						c = &st.c[k];
				ck_assert_ptr_nonnull(c);
				ck_assert_int_eq(c->last_rank, last);
				ck_assert_int_eq(c->median_entry_ns, e[(R - 1) / 2]);
				ck_assert_int_eq(c->late_ns, begin[last][nm][q] - e[(R - 1) / 2]);
				ck_assert_int_eq(c->waited_ns, waited);
				matched++;
			}
		}
		ck_assert_uint_eq(st.count, matched);
		ck_assert_uint_eq(st.unmatched_collectives, unmatched);
		for (int r = 0; r < R; r++)
			ck_assert_int_eq(st.ranks[r].caused_wait_ns, caused[r]);
		gt_stragglers_free(&st);
		gt_coll_set_free(&s);
	}
}
END_TEST

int main(void)
{
	const gt_test match[] = {
		GT_TEST(lower_median_and_ties),
		GT_TEST(unmatched_never_paired),
		GT_TEST(random_against_reference),
		{0},
	};
	const gt_tcase cases[] = {{"match", 0, match}, {0}};
	return gt_run_cases("collective", cases);
}
