/* The ingest lexer: exact µs -> ns conversion, numbers, strings, UTF-8. */
#include <stdio.h>
#include <string.h>

#include "ingest/json_lex.h"
#include "ingest/raw_event.h"
#include "testutil.h"

static int64_t us(const char *s)
{
	int64_t v = 0x7777;
	ck_assert_msg(jl_us_to_ns(s, strlen(s), &v) == 0, "'%s' rejected", s);
	return v;
}

static bool us_fails(const char *s)
{
	int64_t v;
	return jl_us_to_ns(s, strlen(s), &v) < 0;
}

START_TEST(us_exact)
{
	ck_assert_int_eq(us("0"), 0);
	ck_assert_int_eq(us("1"), 1000);
	ck_assert_int_eq(us("1.5"), 1500);
	ck_assert_int_eq(us("1694128201545123.456"), 1694128201545123456);
	ck_assert_int_eq(us("-0.001"), -1);
	ck_assert_int_eq(us("1.0005"), 1001);   /* half away from zero */
	ck_assert_int_eq(us("-1.0005"), -1001);
	ck_assert_int_eq(us("1.00049999"), 1000);
	ck_assert_int_eq(us("0.0004999"), 0);
	ck_assert_int_eq(us("1e-3"), 1);
	ck_assert_int_eq(us("2.5E1"), 25000);
	ck_assert_int_eq(us("1.23456789012345678901234567890123456789"), 1235);
	ck_assert_int_eq(us("000.5"), 500);
	ck_assert_int_eq(us("9223372036854775.807"), INT64_MAX);
	ck_assert_int_eq(us("-9223372036854775.808"), INT64_MIN);
	ck_assert(us_fails("9223372036854775.808"));
	ck_assert(us_fails("1e400"));
	ck_assert(us_fails("abc"));
	ck_assert(us_fails(""));
	ck_assert(us_fails("1.2.3"));
	ck_assert_int_eq(us("1e-400"), 0);
}
END_TEST

static int lex_string(const char *s, bool final, jl_slice *out, jl_lexer *lx)
{
	memset(lx, 0, sizeof *lx);
	lx->begin = s;
	lx->end = s + strlen(s);
	lx->final = final;
	const char *p = s;
	return jl_string(lx, &p, out);
}

START_TEST(strings)
{
	jl_lexer lx;
	jl_slice sl;
	ck_assert_int_eq(lex_string("\"plain text that is long enough\"", true, &sl, &lx), JL_OK);
	ck_assert_uint_eq(sl.len, 30);
	ck_assert(!sl.escaped);
	ck_assert_int_eq(lex_string("\"a\\\"b\\u00e9\\ud83d\\ude00\"", true, &sl, &lx), JL_OK);
	ck_assert(sl.escaped);
	char buf[64];
	long n = jl_unescape(&sl, buf);
	ck_assert_str_eq(buf, "a\"b\xc3\xa9\xf0\x9f\x98\x80");
	ck_assert_int_eq(n, 9);
	ck_assert_int_eq(lex_string("\"caf\xc3\xa9\"", true, &sl, &lx), JL_OK);
	/* invalid UTF-8: accepted, counted, one U+FFFD per maximal invalid subpart */
	ck_assert_int_eq(lex_string("\"bad \xc3\x28\"", true, &sl, &lx), JL_OK);
	ck_assert_uint_eq(lx.invalid_utf8, 1);
	ck_assert(sl.escaped);
	n = jl_unescape(&sl, buf);
	ck_assert_str_eq(buf, "bad \xef\xbf\xbd(");
	ck_assert_int_eq(lex_string("\"overlong \xc0\xaf\"", true, &sl, &lx), JL_OK);
	ck_assert_uint_eq(lx.invalid_utf8, 2);
	jl_unescape(&sl, buf);
	ck_assert_str_eq(buf, "overlong \xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_int_eq(lex_string("\"surrogate \xed\xa0\x80\"", true, &sl, &lx), JL_OK);
	jl_unescape(&sl, buf);
	ck_assert_str_eq(buf, "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* a truncated four-byte sequence is one subpart */
	ck_assert_int_eq(lex_string("\"cut \xf0\x9f\x98x\"", true, &sl, &lx), JL_OK);
	ck_assert_uint_eq(lx.invalid_utf8, 1);
	jl_unescape(&sl, buf);
	ck_assert_str_eq(buf, "cut \xef\xbf\xbdx");
	ck_assert_int_eq(lex_string("\"unterminated", false, &sl, &lx), JL_NEED_MORE);
	ck_assert_int_eq(lex_string("\"unterminated", true, &sl, &lx), JL_ERROR);
	ck_assert_int_eq(lex_string("\"split \xc3", false, &sl, &lx), JL_NEED_MORE);
	ck_assert_int_eq(lex_string("\"tab\there\"", true, &sl, &lx), JL_OK);
	ck_assert_uint_eq(lx.control_chars, 1);
	ck_assert_int_eq(lex_string("\"bad \\x escape\"", true, &sl, &lx), JL_ERROR);
}
END_TEST

static int skip(const char *s, jl_lexer *lx)
{
	memset(lx, 0, sizeof *lx);
	lx->begin = s;
	lx->end = s + strlen(s);
	lx->final = true;
	const char *p = s;
	int rc = jl_skip_value(lx, &p, 0);
	return rc;
}

START_TEST(skip_values)
{
	jl_lexer lx;
	ck_assert_int_eq(skip("{\"a\":[1,2,{\"b\":null}],\"c\":true}", &lx), JL_OK);
	ck_assert_int_eq(skip("[1,2,]", &lx), JL_OK);
	ck_assert_uint_eq(lx.trailing_commas, 1);
	ck_assert_int_eq(skip("{\"a\":1,}", &lx), JL_OK);
	ck_assert_uint_eq(lx.trailing_commas, 1);
	ck_assert_int_eq(skip("[1 2]", &lx), JL_ERROR);
	ck_assert_int_eq(skip("{\"a\" 1}", &lx), JL_ERROR);
	ck_assert_int_eq(skip("[01]", &lx), JL_ERROR);
	ck_assert_int_eq(skip("[-]", &lx), JL_ERROR);
	ck_assert_int_eq(skip("tru", &lx), JL_ERROR);
	ck_assert_int_eq(skip("[,]", &lx), JL_ERROR);
	/* Python's json writes these: accepted where a value is skipped, counted */
	ck_assert_int_eq(skip("{\"a\":NaN,\"b\":[Infinity,-Infinity],\"c\":-1}", &lx), JL_OK);
	ck_assert_uint_eq(lx.nonstandard, 3);
	ck_assert_int_eq(skip("[Nan]", &lx), JL_ERROR);
	ck_assert_int_eq(skip("[-Inf]", &lx), JL_ERROR);
	char deep[2048];
	memset(deep, '[', 1000);
	memset(deep + 1000, ']', 1000);
	deep[2000] = '\0';
	ck_assert_int_eq(skip(deep, &lx), JL_ERROR);
	ck_assert_str_eq(lx.msg, "nesting deeper than 512 levels");
}
END_TEST

START_TEST(integers)
{
	int64_t v;
	ck_assert_int_eq(jl_parse_int("123", 3, &v), 0);
	ck_assert_int_eq(v, 123);
	ck_assert_int_eq(jl_parse_int("-9223372036854775808", 20, &v), 0);
	ck_assert_int_eq(v, INT64_MIN);
	ck_assert_int_eq(jl_parse_int("9223372036854775808", 19, &v), -1);
	ck_assert_int_eq(jl_parse_int("1.5", 3, &v), -1);
	ck_assert_int_eq(jl_parse_int("1e3", 3, &v), -1);
}
END_TEST

START_TEST(digit_words)
{
	/* every count of leading digits, followed by every kind of byte */
	const char *after = " .eE-+/:,}\"a\x80\xff";
	for (unsigned n = 0; n <= 8; n++) {
		for (const char *a = after; *a; a++) {
			char buf[16];
			uint64_t want = 0;
			for (unsigned i = 0; i < n; i++) {
				buf[i] = (char)('0' + (i * 7 + n) % 10);
				want = want * 10 + (uint64_t)(buf[i] - '0');
			}
			for (unsigned i = n; i < 16; i++)
				buf[i] = *a;
			if (n < 8)
				ck_assert_uint_eq(jl_digits8(buf), n);
			if (n)
				ck_assert_uint_eq(jl_value8(buf, n), want);
		}
	}
	ck_assert_uint_eq(jl_value8("99999999", 8), 99999999);
	ck_assert_uint_eq(jl_value8("00000001", 8), 1);
}
END_TEST

/* Parses {"ph":"X","ts":NUM} twice: with room after it (the eight-digits-
 * at-a-time paths) and ending right after it (the byte-at-a-time paths).
 * Both must agree, and with jl_us_to_ns where the number is JSON. */
static void ts_both_ways(const char *num)
{
	char tight[128], roomy[192];
	int n = snprintf(tight, sizeof tight, "{\"ph\":\"X\",\"ts\":%s}", num);
	snprintf(roomy, sizeof roomy, "%s%64s", tight, "");
	int rc[2];
	int64_t ts[2];
	int bad[2];
	for (int k = 0; k < 2; k++) {
		const char *buf = k ? roomy : tight;
		jl_lexer lx = {.begin = buf, .end = buf + (k ? strlen(roomy) : (size_t)n), .final = true};
		const char *p = buf;
		raw_event ev;
		rc[k] = gt_parse_event(&lx, &p, &ev);
		ts[k] = ev.ts_ns;
		bad[k] = ev.bad;
	}
	ck_assert_msg(rc[0] == rc[1], "'%s': %d (tight) vs %d (roomy)", num, rc[0], rc[1]);
	ck_assert_msg(bad[0] == bad[1], "'%s': bad %d (tight) vs %d (roomy)", num, bad[0], bad[1]);
	if (rc[0] == JL_OK && bad[0]) {
		/* out of range: the event is marked, the number refused by the general path too */
		int64_t want;
		ck_assert_msg(bad[0] == REVB_TS && jl_us_to_ns(num, strlen(num), &want) < 0, "'%s': marked bad", num);
	} else if (rc[0] == JL_OK) {
		ck_assert_msg(ts[0] == ts[1], "'%s': %lld vs %lld", num, (long long)ts[0], (long long)ts[1]);
		int64_t want;
		ck_assert_msg(jl_us_to_ns(num, strlen(num), &want) == 0 && want == ts[0], "'%s': %lld", num,
			      (long long)ts[0]);
	}
}

START_TEST(time_paths)
{
	const char *fixed[] = {"0", "-0", "1", "12345678", "123456789", "1234567812345678", "12345678123456789",
			       "1694128201585852.357", "1694128201585852.3575", "9223372036854775.807",
			       "9223372036854775.808", "-9223372036854775.808", "1.", "1.5", "1.50", "1.500",
			       "1.5000", "01", "00.5", "-", "1e3", "1.5e3", "1.2.3", "12345678.1234",
			       "0.001", "-1694128201585852.357", "99999999999999999"};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		ts_both_ways(fixed[i]);
	uint64_t seed = 99;
	for (int i = 0; i < 20000; i++) {
		char num[64];
		int k = 0;
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (seed >> 63)
			num[k++] = '-';
		unsigned digits = 1 + (unsigned)(seed >> 40) % 20, frac = (unsigned)(seed >> 20) % 6;
		for (unsigned d = 0; d < digits; d++)
			num[k++] = (char)('0' + (seed >> (d * 3 % 60)) % 10);
		if (frac) {
			num[k++] = '.';
			for (unsigned d = 1; d < frac; d++)
				num[k++] = (char)('0' + (seed >> (d * 5)) % 10);
		}
		if ((seed & 31) == 0)
			k += sprintf(num + k, "e%d", (int)(seed >> 8) % 7 - 3);
		num[k] = '\0';
		ts_both_ways(num);
	}
}
END_TEST

int main(void)
{
	const gt_test lexer[] = {
		GT_TEST(us_exact),
		GT_TEST(strings),
		GT_TEST(skip_values),
		GT_TEST(integers),
		GT_TEST(digit_words),
		GT_TEST(time_paths),
		{0},
	};
	const gt_tcase cases[] = {{"lexer", 0, lexer}, {0}};
	return gt_run_cases("json_lex", cases);
}
