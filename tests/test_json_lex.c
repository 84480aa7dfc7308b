/* The ingest lexer: exact µs -> ns conversion, numbers, strings, UTF-8. */
#include <string.h>

#include "json_lex.h"
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
	ck_assert_int_eq(lex_string("\"bad \xc3\x28\"", true, &sl, &lx), JL_ERROR);
	ck_assert_int_eq(lex_string("\"overlong \xc0\xaf\"", true, &sl, &lx), JL_ERROR);
	ck_assert_int_eq(lex_string("\"surrogate \xed\xa0\x80\"", true, &sl, &lx), JL_ERROR);
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

int main(void)
{
	Suite *s = suite_create("json_lex");
	TCase *tc = tcase_create("lexer");
	tcase_add_test(tc, us_exact);
	tcase_add_test(tc, strings);
	tcase_add_test(tc, skip_values);
	tcase_add_test(tc, integers);
	suite_add_tcase(s, tc);
	return gt_run_suite(s);
}
