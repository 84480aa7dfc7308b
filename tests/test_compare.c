/* compare's exact rationals and its --fail-if parser. */
#include <stdio.h>
#include <string.h>

#include "compare/compare.h"
#include "testutil.h"

static gt_rat R(__int128 n, __int128 d)
{
	return (gt_rat){n, d};
}

static const char *fmt(gt_rat r, int dec)
{
	static char buf[96];
	gt_rat_format(r, dec, buf, sizeof buf);
	return buf;
}

START_TEST(rat_cmp_small)
{
	/* every pair of small fractions against cross-multiplication */
	for (int a = -12; a <= 12; a++)
		for (int b = 1; b <= 7; b++)
			for (int c = -12; c <= 12; c++)
				for (int d = 1; d <= 7; d++) {
					long x = (long)a * d, y = (long)c * b;
					int want = (x > y) - (x < y);
					ck_assert_int_eq(gt_rat_cmp(R(a, b), R(c, d)), want);
				}
}
END_TEST

START_TEST(rat_cmp_big)
{
	/* values whose cross products pass 128 bits */
	__int128 big = (__int128)1 << 125, den = ((__int128)1 << 120) + 1;
	ck_assert_int_eq(gt_rat_cmp(R(big, den), R(big + 1, den)), -1);
	ck_assert_int_eq(gt_rat_cmp(R(big + 1, den), R(big, den)), 1);
	ck_assert_int_eq(gt_rat_cmp(R(big, den), R(big, den + 1)), 1);
	ck_assert_int_eq(gt_rat_cmp(R(2 * (big / 4), 2 * (den / 2)), R(big / 4, den / 2)), 0);
	ck_assert_int_eq(gt_rat_cmp(R(-big, den), R(-big + 1, den)), -1);
	ck_assert_int_eq(gt_rat_cmp(R(-big, den), R(0, 1)), -1);
	/* 1/3 just below and above */
	__int128 t = (__int128)1 << 100;
	ck_assert_int_eq(gt_rat_cmp(R(t, 3 * t + 1), R(1, 3)), -1);
	ck_assert_int_eq(gt_rat_cmp(R(t, 3 * t - 1), R(1, 3)), 1);
	ck_assert_int_eq(gt_rat_cmp(R(5, 100), R(1, 20)), 0);
}
END_TEST

START_TEST(rat_format)
{
	ck_assert_str_eq(fmt(R(1, 3), 6), "0.333333");
	ck_assert_str_eq(fmt(R(2, 3), 6), "0.666667");
	ck_assert_str_eq(fmt(R(-1, 2), 6), "-0.500000");
	ck_assert_str_eq(fmt(R(5, 10000000), 6), "0.000001"); /* half away from zero */
	ck_assert_str_eq(fmt(R(-5, 10000000), 6), "-0.000001");
	ck_assert_str_eq(fmt(R(-4, 10000000), 6), "0.000000"); /* no negative zero */
	ck_assert_str_eq(fmt(R(9999995, 10000000), 6), "1.000000");
	ck_assert_str_eq(fmt(R(15, 190), 6), "0.078947");
	ck_assert_str_eq(fmt(R(7, 2), 0), "4");
	ck_assert_str_eq(fmt(R(-123, 1), 0), "-123");
	ck_assert_str_eq(fmt(R(0, 0), 6), "null");
	/* beyond int64, and a denominator near 2^127 */
	ck_assert_str_eq(fmt(R((__int128)1 << 100, 1), 0), "1267650600228229401496703205376");
	__int128 huge = ((__int128)1 << 126) - 1;
	ck_assert_str_eq(fmt(R(huge / 3, huge), 6), "0.333333");
	ck_assert_str_eq(fmt(R(huge - 1, huge), 6), "1.000000");
}
END_TEST

static void parses(const char *text, int field, int change, int op, long long num, long long den, const char *key)
{
	gt_cond c;
	size_t pos;
	const char *why = NULL;
	ck_assert_msg(gt_cond_parse(text, &c, &pos, &why) == 0, "'%s': %s", text, why ? why : "");
	ck_assert_int_eq(c.field, field);
	ck_assert_int_eq(c.change, change);
	ck_assert_int_eq(c.op, op);
	ck_assert_msg(gt_rat_cmp(c.value, R(num, den)) == 0, "'%s' value", text);
	if (key)
		ck_assert_str_eq(c.key, key);
	else
		ck_assert_ptr_null(c.key);
	gt_cond_free(&c);
}

static void rejects(const char *text, size_t at)
{
	gt_cond c;
	size_t pos = 999;
	const char *why = NULL;
	ck_assert_msg(gt_cond_parse(text, &c, &pos, &why) < 0, "'%s' accepted", text);
	ck_assert_msg(pos == at, "'%s': position %zu, expected %zu (%s)", text, pos, at, why);
	ck_assert_ptr_nonnull(why);
}

START_TEST(cond_parse)
{
	parses("critical_path.rel > 5%", GT_F_CRITICAL_PATH, GT_C_REL, GT_OP_GT, 5, 100, NULL);
	parses("total.dur_ns.abs > 2ms", GT_F_TRACE_DUR, GT_C_ABS, GT_OP_GT, 2000000, 1, NULL);
	parses("key[aten::matmul].self_ns.rel > 10%", GT_F_SELF, GT_C_REL, GT_OP_GT, 1, 10, "aten::matmul");
	parses("total.spans.abs >= 100", GT_F_SPANS, GT_C_ABS, GT_OP_GE, 100, 1, NULL);
	parses(" total.spans.new<=-3 ", GT_F_SPANS, GT_C_NEW, GT_OP_LE, -3, 1, NULL);
	parses("key[a\\]b\\\\c].p95_ns.base == 1.5us", GT_F_P95, GT_C_BASE, GT_OP_EQ, 1500, 1, "a]b\\c");
	parses("key[x y].cp_share.new != 25%", GT_F_CP_SHARE, GT_C_NEW, GT_OP_NE, 1, 4, "x y");
	parses("total.critical_path_ns.base < 1.5s", GT_F_CRITICAL_PATH, GT_C_BASE, GT_OP_LT, 1500000000, 1, NULL);
	parses("key[k].max_ns.abs > 0.5ns", GT_F_MAX, GT_C_ABS, GT_OP_GT, 1, 2, "k");
	parses("key[k].count.rel > 0.125%", GT_F_COUNT, GT_C_REL, GT_OP_GT, 1, 800, "k");
	rejects("", 0);
	rejects("total", 5);
	rejects("total.", 6);
	rejects("total.spans.abs", 15);
	rejects("total.spans.abs >", 17);
	rejects("total.spans.abs > 1 2", 20);
	rejects("key[k.count.new > 1", 3);
	rejects("key[].count.new > 1", 4);
	rejects("key[k].count.new > 1us", 20);
	rejects("key[k].dur_ns.new > 1%", 21);
	rejects("key[k].cp_share.abs > 1ms", 23);
	rejects("critical_path.rel > 1xs", 21);
	rejects("Total.spans.abs > 1", 0);
}
END_TEST

int main(void)
{
	const gt_test core[] = {
		GT_TEST(rat_cmp_small),
		GT_TEST(rat_cmp_big),
		GT_TEST(rat_format),
		GT_TEST(cond_parse),
		{0},
	};
	const gt_tcase cases[] = {{"core", 0, core}, {0}};
	return gt_run_cases("compare", cases);
}
