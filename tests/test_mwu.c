/* The Mann-Whitney U test against an independent enumeration, the per-step
 * statistics (median, mad) and the condition grammar's new parts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "compare/mwu.h"
#include "testutil.h"

/* The exact p by brute force: every way of labelling na of the N pooled
 * values "a", each value's rank its mid-rank computed by counting. */
static void brute_p(const int64_t *a, int na, const int64_t *b, int nb, uint64_t *far, uint64_t *all)
{
	int n = na + nb;
	int64_t v[16];
	double rank[16];
	for (int i = 0; i < na; i++)
		v[i] = a[i];
	for (int i = 0; i < nb; i++)
		v[na + i] = b[i];
	for (int i = 0; i < n; i++) {
		int less = 0, equal = 0;
		for (int j = 0; j < n; j++)
			less += v[j] < v[i], equal += v[j] == v[i];
		rank[i] = less + (equal + 1) / 2.0; /* mid-rank */
	}
	double obs = 0;
	for (int i = 0; i < na; i++)
		obs += rank[i];
	double mean = na * (n + 1) / 2.0;
	*far = *all = 0;
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		if (__builtin_popcount(mask) != na)
			continue;
		double s = 0;
		for (int i = 0; i < n; i++)
			if (mask & (1u << i))
				s += rank[i];
		(*all)++;
		/* ranks are halves: these sums are exact in a double */
		if (fabs(s - mean) >= fabs(obs - mean))
			(*far)++;
	}
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

START_TEST(exact_against_enumeration)
{
	uint64_t seed = 42;
	int cases = 0;
	for (int na = 1; na <= 8; na++)
		for (int nb = 1; nb <= 8; nb++)
			for (int rep = 0; rep < 4; rep++) {
				int64_t a[8], b[8];
				/* rep 0: distinct values; others: few values, many ties */
				int64_t range = rep == 0 ? 1000000 : rep == 1 ? 3 : 6;
				for (int i = 0; i < na; i++)
					a[i] = (int64_t)(lcg(&seed) % (uint64_t)range);
				for (int i = 0; i < nb; i++)
					b[i] = (int64_t)(lcg(&seed) % (uint64_t)range) + (rep == 3 ? 2 : 0);
				uint64_t far, all;
				brute_p(a, na, b, nb, &far, &all);
				gt_mwu t;
				gt_error err = {0};
				ck_assert_int_eq(gt_mwu_test(a, (size_t)na, b, (size_t)nb, &t, &err), 0);
				ck_assert(t.exact);
				ck_assert_msg((unsigned __int128)t.num * all == (unsigned __int128)far * t.den,
					      "na %d nb %d rep %d: %llu/%llu, expected %llu/%llu", na, nb, rep,
					      (unsigned long long)t.num, (unsigned long long)t.den, (unsigned long long)far,
					      (unsigned long long)all);
				cases++;
			}
	ck_assert_int_eq(cases, 256);
}
END_TEST

START_TEST(exact_known)
{
	/* fully separated samples of 5: p = 2 / C(10, 5) = 2/252 */
	int64_t a[5] = {1, 2, 3, 4, 5}, b[5] = {6, 7, 8, 9, 10};
	gt_mwu t;
	gt_error err = {0};
	ck_assert_int_eq(gt_mwu_test(a, 5, b, 5, &t, &err), 0);
	ck_assert(t.exact && t.num * 252 == 2 * t.den);
	/* the same values on both sides: p = 1 */
	ck_assert_int_eq(gt_mwu_test(a, 5, a, 5, &t, &err), 0);
	ck_assert(t.num == t.den);
	/* 20 per side, all tied within each side and separated: 2 / C(40, 20) */
	int64_t x[20], y[20];
	for (int i = 0; i < 20; i++)
		x[i] = 7, y[i] = 9;
	ck_assert_int_eq(gt_mwu_test(x, 20, y, 20, &t, &err), 0);
	ck_assert(t.exact && t.den == 137846528820ull && t.num == 2);
	/* a side without values: no p */
	ck_assert_int_eq(gt_mwu_test(a, 0, b, 5, &t, &err), -1);
}
END_TEST

START_TEST(normal_with_ties)
{
	/* 25 and 23 values with ties; p computed from the same formula in
	 * Python from counted mid-ranks (U = 189.5, 10 tie groups) */
	int64_t x[25], y[23];
	for (int i = 0; i < 25; i++)
		x[i] = (i * 7) % 10;
	for (int i = 0; i < 23; i++)
		y[i] = (i * 3) % 10 + 2;
	gt_mwu t;
	gt_error err = {0};
	ck_assert_int_eq(gt_mwu_test(x, 25, y, 23, &t, &err), 0);
	ck_assert(!t.exact);
	ck_assert_msg(fabs(t.p - 0.043312753075099186) < 1e-12, "p %.17g", t.p);
	/* 21 against 21, all equal: no spread, p = 1 */
	int64_t z[21];
	for (int i = 0; i < 21; i++)
		z[i] = 5;
	ck_assert_int_eq(gt_mwu_test(z, 21, z, 21, &t, &err), 0);
	ck_assert(!t.exact && t.p == 1);
}
END_TEST

START_TEST(step_statistics)
{
	/* critical path per window: base 10 30 20 40 (median 25, mad 10),
	 * new 10 12 100 (median 12, mad 2) */
	int64_t bcp[4] = {10, 30, 20, 40}, ncp[3] = {10, 12, 100};
	gt_compare c;
	memset(&c, 0, sizeof c);
	c.win[0].count = 4, c.win[0].cp_ns = bcp;
	c.win[1].count = 3, c.win[1].cp_ns = ncp;
	int f = GT_F_CRITICAL_PATH;
	gt_rat v = gt_cmp_stat_value(&c, NULL, f, GT_S_MEDIAN, 0);
	ck_assert(v.num == 25 && v.den == 1);
	v = gt_cmp_stat_value(&c, NULL, f, GT_S_MAD, 0);
	ck_assert(v.num == 10 && v.den == 1);
	v = gt_cmp_stat_value(&c, NULL, f, GT_S_MAD, 1);
	ck_assert(v.num == 2 && v.den == 1);
	v = gt_cmp_stat_value(&c, NULL, f, GT_S_N, 1);
	ck_assert(v.num == 3);
	v = gt_cmp_stat_change(&c, NULL, f, GT_S_MEDIAN, GT_C_REL); /* 12/25 - 1 */
	ck_assert(gt_rat_cmp(v, (gt_rat){-13, 25}) == 0);
	/* a half: base 1 2 (median 3/2, deviations 1/2 1/2: mad 1/2) */
	int64_t h[2] = {1, 2};
	c.win[0].count = 2, c.win[0].cp_ns = h;
	v = gt_cmp_stat_value(&c, NULL, f, GT_S_MEDIAN, 0);
	ck_assert(v.num == 3 && v.den == 2);
	v = gt_cmp_stat_value(&c, NULL, f, GT_S_MAD, 0);
	ck_assert(gt_rat_cmp(v, (gt_rat){1, 2}) == 0);
	v = gt_cmp_p(&c, NULL, f); /* {1,2} against {10,12,100}: 2 / C(5,2) */
	ck_assert(gt_rat_cmp(v, (gt_rat){2, 10}) == 0);
}
END_TEST

static void expr_ok(const char *text, size_t terms)
{
	gt_cond_expr e;
	size_t pos;
	const char *why = NULL;
	ck_assert_msg(gt_cond_expr_parse(text, &e, &pos, &why) == 0, "'%s': %s at %zu", text, why ? why : "", pos);
	ck_assert_uint_eq(e.count, terms);
	gt_cond_expr_free(&e);
}

static void expr_bad(const char *text, size_t at)
{
	gt_cond_expr e;
	size_t pos = 999;
	const char *why = NULL;
	ck_assert_msg(gt_cond_expr_parse(text, &e, &pos, &why) < 0, "'%s' accepted", text);
	ck_assert_msg(pos == at, "'%s': position %zu, expected %zu (%s)", text, pos, at, why);
}

START_TEST(grammar)
{
	gt_cond c;
	size_t pos;
	const char *why = NULL;
	ck_assert_int_eq(gt_cond_parse("critical_path.median.rel > 3%", &c, &pos, &why), 0);
	ck_assert_int_eq(c.stat, GT_S_MEDIAN);
	ck_assert_int_eq(c.change, GT_C_REL);
	gt_cond_free(&c);
	ck_assert_int_eq(gt_cond_parse("key[glob:*gemm*].self_ns.p < 0.01", &c, &pos, &why), 0);
	ck_assert(c.p && c.sel == GT_SEL_GLOB && strcmp(c.key, "*gemm*") == 0 && c.key_at == 4);
	ck_assert(gt_rat_cmp(c.value, (gt_rat){1, 100}) == 0);
	gt_cond_free(&c);
	ck_assert_int_eq(gt_cond_parse("key?[re:^void at::].dur_ns.mad.abs >= 1.5us", &c, &pos, &why), 0);
	ck_assert(c.optional && c.sel == GT_SEL_RE && c.re && c.stat == GT_S_MAD);
	ck_assert(gt_rat_cmp(c.value, (gt_rat){1500, 1}) == 0);
	gt_cond_free(&c);
	ck_assert_int_eq(gt_cond_parse("total.dur_ns.rel > 1.25x", &c, &pos, &why), 0);
	ck_assert(gt_rat_cmp(c.value, (gt_rat){1, 4}) == 0);
	gt_cond_free(&c);
	ck_assert_int_eq(gt_cond_parse("key[k].count.n.new == 3", &c, &pos, &why), 0);
	gt_cond_free(&c);
	expr_ok("critical_path.median.rel > 3% and critical_path.p < 0.01", 2);
	expr_ok("total.spans.abs > 1 or key[a].count.new > 2 and key[b].count.new > 3", 3);
	expr_bad("critical_path.rel > 5", 20);           /* a rel without % or x */
	expr_bad("total.dur_ns.abs > 2", 19);            /* a time without a unit */
	expr_bad("key[k].cp_share.new > 0.5", 22);       /* a share without % */
	expr_bad("key[k].cp_share.median.new > 5%", 16); /* no per-step share */
	expr_bad("key[k].cp_share.p < 0.01", 16);
	expr_bad("key[re:(].count.new > 1", 7);          /* a bad regex */
	expr_bad("key[glob:].count.new > 1", 9);
	expr_bad("critical_path.p < 1ms", 19);
	expr_bad("total.spans.abs > 1 nand total.spans.abs > 2", 20);
	expr_bad("total.spans.abs > 1 and", 23);
	expr_bad("critical_path.mean.rel > 1%", 14);
	expr_bad("key[k].count.abs > 2x", 20);
}
END_TEST

int main(void)
{
	const gt_test core[] = {
		GT_TEST(exact_against_enumeration),
		GT_TEST(exact_known),
		GT_TEST(normal_with_ties),
		GT_TEST(step_statistics),
		GT_TEST(grammar),
		{0},
	};
	const gt_tcase cases[] = {{"core", 60, core}, {0}};
	return gt_run_cases("mwu", cases);
}
