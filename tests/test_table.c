/* Unit tests of the table writers: exact ns -> us text, JSON escaping and
 * UTF-8 repair, CSV quoting, the Arrow IPC framing (magic, 8-byte
 * message alignment, end-of-stream marker, footer), and lines formatted in
 * chunks on threads (a table's rows among them). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/lines.h"
#include "write/table.h"
#include "write/table_cell.h"
#include "testutil.h"
#include "write/utf8.h"

static char *us(int64_t ns)
{
	static char buf[32];
	int n = gt_format_ns_as_us(buf, ns);
	ck_assert_int_eq(n, (int)strlen(buf));
	return buf;
}

START_TEST(ns_as_us)
{
	ck_assert_str_eq(us(0), "0");
	ck_assert_str_eq(us(1500), "1.5");
	ck_assert_str_eq(us(1000), "1");
	ck_assert_str_eq(us(-1), "-0.001");
	ck_assert_str_eq(us(-1000), "-1");
	ck_assert_str_eq(us(1), "0.001");
	ck_assert_str_eq(us(10), "0.01");
	ck_assert_str_eq(us(100), "0.1");
	ck_assert_str_eq(us(123456789), "123456.789");
	ck_assert_str_eq(us(1010), "1.01");
	ck_assert_str_eq(us(INT64_MAX), "9223372036854775.807");
	ck_assert_str_eq(us(INT64_MIN), "-9223372036854775.808");
	ck_assert_str_eq(us(-999), "-0.999");
}
END_TEST

/* Runs f on a memory stream and returns what it wrote (caller frees). */
static char *capture_json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gt_json_write_string(f, s);
	fclose(f);
	return buf;
}

START_TEST(json_escaping)
{
	const struct { const char *in, *out; } cases[] = {
		{"", "\"\""},
		{"plain", "\"plain\""},
		{"q\"b\\s/", "\"q\\\"b\\\\s/\""},
		{"\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\""},
		{"\x01\x1f", "\"\\u0001\\u001f\""},
		{"µ日🚀", "\"µ日🚀\""},
		{"a\xff" "b", "\"a\xef\xbf\xbd" "b\""},
		{"\xc3", "\"\xef\xbf\xbd\""},
		{"\xe2\x82x", "\"\xef\xbf\xbdx\""},            /* truncated: one U+FFFD */
		{"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* surrogate */
		{"\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\""},  /* overlong */
		{"\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = capture_json(cases[i].in);
		ck_assert_msg(strcmp(got, cases[i].out) == 0, "case %zu: got %s want %s", i, got, cases[i].out);
		free(got);
	}
	ck_assert_uint_eq(gt_utf8_clean_len("a\xff"), 4);
}
END_TEST

struct row {
	int64_t ts;
	const char *s;
	double d;
	uint32_t u;
};

static char *write_table(const struct row *rows, uint64_t n, int fmt, size_t *len_out)
{
	const gt_column cols[] = {
		{.name = "ts_us", .type = GT_COL_NS_US, .data = &rows[0].ts, .stride = sizeof *rows},
		{.name = "s", .type = GT_COL_STR, .data = &rows[0].s, .stride = sizeof *rows},
		{.name = "d", .type = GT_COL_F64, .data = &rows[0].d, .stride = sizeof *rows},
		{.name = "u", .type = GT_COL_U32, .data = &rows[0].u, .stride = sizeof *rows,
		 .has_null = true, .null_u32 = 0xffffffffu},
	};
	gt_table t = {.name = "t", .cols = cols, .ncols = 4, .nrows = n};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gt_error err = {0};
	ck_assert_int_eq(gt_table_write(&t, fmt, f, &err), 0);
	fclose(f);
	if (len_out)
		*len_out = len;
	return buf;
}

static const struct row rows[] = {
	{1500, "a,b", 0.1, 7},
	{-1, "say \"hi\"\nbye", NAN, 0xffffffffu},
	{0, "", INFINITY, 0},
	{2, NULL, -0.0, 1},
	{3, " x ", 1e300, 2},
};

START_TEST(csv_quoting)
{
	char *got = write_table(rows, 5, GT_OUT_CSV, NULL);
	/* each microsecond column is followed by its integer nanoseconds */
	ck_assert_str_eq(got, "ts_us,ts_ns,s,d,u\n"
			      "1.5,1500,\"a,b\",0.1,7\n"
			      "-0.001,-1,\"say \"\"hi\"\"\nbye\",,\n"
			      "0,0,\"\",,0\n"
			      "0.002,2,,-0,1\n"
			      "0.003,3, x ,1e+300,2\n");
	free(got);
}
END_TEST

/* The CSV writer's buffer: a field longer than it, plain and special
 * strings side by side, and many rows across its boundaries give the
 * same bytes as each row written alone. */
START_TEST(csv_buffer_boundaries)
{
	enum { BIG = 200000, N = 20000 };
	char *big = malloc(BIG + 1);
	ck_assert_ptr_nonnull(big);
	for (int i = 0; i < BIG; i++)
		big[i] = (char)('a' + i % 26);
	big[BIG] = '\0';
	static const char *const texts[] = {"tab\there", "caf\xc3\xa9", "bad\xff", "plain", "q\"", "", NULL};
	struct row *many = calloc(N, sizeof *many);
	ck_assert_ptr_nonnull(many);
	for (int i = 0; i < N; i++)
		many[i] = (struct row){i * 7 - 3, i == 5 ? big : texts[i % 7], i * 0.5, (uint32_t)i};
	char *got = write_table(many, N, GT_OUT_CSV, NULL);
	size_t want_len = 0, cap = strlen(got) + 1;
	char *want = malloc(cap);
	ck_assert_ptr_nonnull(want);
	for (int i = 0; i < N; i++) {
		char *one = write_table(many + i, 1, GT_OUT_CSV, NULL);
		const char *body = i ? strchr(one, '\n') + 1 : one; /* the header once */
		size_t k = strlen(body);
		ck_assert_uint_le(want_len + k, cap - 1);
		memcpy(want + want_len, body, k);
		want_len += k;
		free(one);
	}
	want[want_len] = '\0';
	ck_assert_uint_eq(strlen(got), want_len);
	ck_assert(memcmp(got, want, want_len) == 0);
	ck_assert(strstr(got, "\"tab\there\"") == NULL && strstr(got, ",tab\there,") != NULL);
	ck_assert(strstr(got, ",bad\xef\xbf\xbd,") != NULL && strstr(got, big) != NULL);
	free(got), free(want), free(many), free(big);
}
END_TEST

START_TEST(json_rows)
{
	char *got = write_table(rows, 2, GT_OUT_JSON, NULL);
	ck_assert_str_eq(got, "[\n{\"ts_us\":1.5,\"ts_ns\":1500,\"s\":\"a,b\",\"d\":0.1,\"u\":7},\n"
			      "{\"ts_us\":-0.001,\"ts_ns\":-1,\"s\":\"say \\\"hi\\\"\\nbye\",\"d\":null,\"u\":null}\n]\n");
	free(got);
	got = write_table(rows, 0, GT_OUT_JSON, NULL);
	ck_assert_str_eq(got, "[]\n");
	free(got);
	got = write_table(rows + 3, 1, GT_OUT_NDJSON, NULL);
	ck_assert_str_eq(got, "{\"ts_us\":0.002,\"ts_ns\":2,\"s\":null,\"d\":-0,\"u\":1}\n");
	free(got);
}
END_TEST

static uint32_t rd32(const char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int64_t rd64(const char *p)
{
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Field `id` of the flatbuffer table at t, or NULL when absent. */
static const char *fb_field(const char *t, int id)
{
	const char *vt = t - (int32_t)rd32(t);
	uint16_t vt_len, off;
	memcpy(&vt_len, vt, 2);
	if (4 + 2 * id >= vt_len)
		return NULL;
	memcpy(&off, vt + 4 + 2 * id, 2);
	return off ? t + off : NULL;
}

/* Walks the messages from pos; returns the position after the EOS marker. */
static size_t walk_messages(const char *buf, size_t len, size_t pos, int *nbatches)
{
	*nbatches = 0;
	for (;;) {
		ck_assert_uint_eq(pos % 8, 0);
		ck_assert_uint_le(pos + 8, len);
		ck_assert_uint_eq(rd32(buf + pos), 0xffffffffu);
		uint32_t meta = rd32(buf + pos + 4);
		if (meta == 0)
			return pos + 8;
		ck_assert_uint_eq((8 + meta) % 8, 0);
		const char *fb = buf + pos + 8;
		const char *msg = fb + rd32(fb);
		const char *version = fb_field(msg, 0);
		ck_assert_ptr_nonnull(version);
		ck_assert_int_eq(version[0], 4); /* V5 */
		const char *htype = fb_field(msg, 1);
		const char *body = fb_field(msg, 3);
		int64_t body_len = body ? rd64(body) : 0;
		ck_assert_int_eq(body_len % 8, 0);
		if (htype[0] == 3)
			(*nbatches)++;
		pos += 8 + meta + (size_t)body_len;
	}
}

START_TEST(arrow_layout)
{
	size_t len;
	int nb;
	char *f = write_table(rows, 5, GT_OUT_ARROW, &len);
	ck_assert_mem_eq(f, "ARROW1\0\0", 8);
	ck_assert_mem_eq(f + len - 6, "ARROW1", 6);
	size_t after = walk_messages(f, len, 8, &nb);
	ck_assert_int_eq(nb, 1);
	uint32_t footer_len = rd32(f + len - 10);
	ck_assert_uint_eq(after + footer_len + 10, len); /* footer follows the EOS */
	const char *footer = f + after + rd32(f + after);
	const char *batches = fb_field(footer, 3);
	const char *vec = batches + rd32(batches);
	ck_assert_uint_eq(rd32(vec), 1);
	ck_assert_uint_eq((size_t)(vec + 4 - f) % 8, 0);
	/* the block names a record batch message: offset, metadata length */
	int64_t off = rd64(vec + 4);
	ck_assert_int_gt(off, 8);
	ck_assert_int_eq(off % 8, 0);
	ck_assert_uint_eq(rd32(f + off), 0xffffffffu);
	ck_assert_uint_eq(rd32(vec + 4 + 8), 8 + rd32(f + off + 4));
	const char *fbm = f + off + 8;
	ck_assert_int_eq(fb_field(fbm + rd32(fbm), 1)[0], 3);
	free(f);

	char *s = write_table(rows, 5, GT_OUT_ARROW_STREAM, &len);
	ck_assert_uint_eq(walk_messages(s, len, 0, &nb), len);
	ck_assert_int_eq(nb, 1);
	ck_assert_mem_eq(s + len - 8, "\xff\xff\xff\xff\0\0\0\0", 8);
	free(s);
}
END_TEST

static const char *any_entry(const void *ctx, uint32_t id)
{
	(void)ctx;
	(void)id;
	return "x";
}

START_TEST(arrow_bad_dictionary_index)
{
	static const char *const dict[] = {"a", "b"};
	const uint32_t ids[] = {0, 2};
	const uint32_t none[] = {0, UINT32_MAX};
	gt_column col = {.name = "d", .type = GT_COL_DICT, .data = ids, .dict = dict, .dict_len = 2};
	gt_table t = {.name = "t", .cols = &col, .ncols = 1, .nrows = 2};
	for (int fmt = GT_OUT_ARROW; fmt <= GT_OUT_ARROW_STREAM; fmt++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		gt_error err = {0};
		col.data = ids;
		ck_assert_int_eq(gt_table_write(&t, fmt, f, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "out of range in column 'd'"));
		/* through a callback any id is allowed, but not 0xffffffff: the
		 * null marker without has_null cannot size a dictionary */
		col.data = none;
		col.dict = NULL;
		col.dict_get = any_entry;
		memset(&err, 0, sizeof err);
		ck_assert_int_eq(gt_table_write(&t, fmt, f, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "out of range"));
		col.dict = dict;
		col.dict_get = NULL;
		fclose(f);
		free(buf);
	}
}
END_TEST

/* A CSV field into a line: quoted as the CSV writer quotes (csv_quoting). */
START_TEST(csv_field_into_line)
{
	static const char *const in[][2] = {
		{"plain", "plain"}, {"a,b", "\"a,b\""}, {"", "\"\""}, {"q\"", "\"q\"\"\""},
		{"x\ny", "\"x\ny\""}, {"tab\there", "tab\there"}, {"bad\xff", "bad\xef\xbf\xbd"},
		{"caf\xc3\xa9", "caf\xc3\xa9"},
	};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		gt_jline l = {0};
		gt_jline_csv(&l, in[i][0]);
		ck_assert_uint_eq(l.len, strlen(in[i][1]));
		ck_assert(memcmp(l.buf, in[i][1], l.len) == 0);
		gt_jline_free(&l);
	}
}
END_TEST

/* Line i: its number, a text whose escaped form is kept from line to line
 * (as the causal hops keep their track's label), a line far longer than a
 * buffer's first size. The state checks that `first` marks each chunk's
 * first line. */
enum { BIG_LINE = 3 * GT_LINES_CHUNK + 5 };

struct line_state {
	uint64_t group;
	bool have;
	char label[32];
	unsigned firsts, wrong_first;
};

static void test_line(void *state, gt_jline *l, uint64_t i, bool first)
{
	struct line_state *s = state;
	s->firsts += first;
	s->wrong_first += first != (i % GT_LINES_CHUNK == 0);
	if (first)
		s->have = false;
	if (!s->have || s->group != i / 1000) {
		s->have = true;
		s->group = i / 1000;
		snprintf(s->label, sizeof s->label, "g%llu", (unsigned long long)s->group);
	}
	gt_jline_u64(l, i);
	gt_jline_put(l, s->label, strlen(s->label));
	for (uint64_t k = 0; k < i % 5; k++)
		GT_JL_LIT(l, ",ab");
	for (int k = 0; i == BIG_LINE && k < (1 << 20); k++)
		GT_JL_LIT(l, "x");
	GT_JL_LIT(l, "\n");
}

struct line_sink {
	gt_jline got;
	unsigned chunks, stop_after;
	bool bad_ends;
};

static int sink_lines(void *ctx, const char *p, const size_t *end, uint32_t count)
{
	struct line_sink *k = ctx;
	for (uint32_t j = 0; j < count; j++)
		k->bad_ends |= end[j] == 0 || p[end[j] - 1] != '\n' || (j && end[j] <= end[j - 1]);
	gt_jline_put(&k->got, p, end[count - 1]);
	return ++k->chunks == k->stop_after;
}

/* Many chunks on three threads, the last partial, then a second call on the
 * same writer with fewer lines than a chunk: the bytes of one line at a
 * time, in order; an emit that stops ends the writing. */
START_TEST(lines_in_chunks)
{
	const uint64_t n = 4 * GT_LINES_CHUNK + 123;
	gt_jline want = {0};
	struct line_state one = {0};
	for (uint64_t i = 0; i < n; i++)
		test_line(&one, &want, i, i == 0);
	gt_lines w;
	gt_lines_init(&w, 3);
	ck_assert_uint_eq(w.threads, 3);
	struct line_state states[3] = {{0}};
	struct line_sink k = {0};
	ck_assert_int_eq(gt_lines_write(&w, n, test_line, states, sizeof states[0], sink_lines, &k), 0);
	ck_assert_uint_eq(k.chunks, 5);
	ck_assert(!k.bad_ends);
	ck_assert_uint_eq(states[0].firsts + states[1].firsts + states[2].firsts, 5);
	ck_assert_uint_eq(states[0].wrong_first + states[1].wrong_first + states[2].wrong_first, 0);
	ck_assert_uint_eq(k.got.len, want.len);
	ck_assert(memcmp(k.got.buf, want.buf, want.len) == 0);

	k.got.len = 0, k.chunks = 0;
	ck_assert_int_eq(gt_lines_write(&w, 100, test_line, states, sizeof states[0], sink_lines, &k), 0);
	ck_assert_uint_eq(k.chunks, 1);
	size_t first100 = 0;
	for (int nl = 0; nl < 100; first100++)
		nl += want.buf[first100] == '\n';
	ck_assert_uint_eq(k.got.len, first100);
	ck_assert(memcmp(k.got.buf, want.buf, first100) == 0);

	k.got.len = 0, k.chunks = 0, k.stop_after = 2;
	ck_assert_int_eq(gt_lines_write(&w, n, test_line, states, sizeof states[0], sink_lines, &k), 1);
	ck_assert_uint_eq(k.chunks, 2);
	gt_lines_free(&w);
	gt_jline_free(&k.got);
	gt_jline_free(&want);
}
END_TEST

/* Computed cells, as a command's tables have them: text into a buffer
 * of the thread's own. */
static int64_t row_number(const void *ctx, uint64_t row)
{
	const struct row *r = ctx;
	return r[row].ts * 3 + (int64_t)row;
}
static const char *row_text(const void *ctx, uint64_t row)
{
	static _Thread_local char buf[32];
	(void)ctx;
	if (row % 11 == 4)
		return NULL;
	snprintf(buf, sizeof buf, row % 5 ? "r%llu" : "r,%llu", (unsigned long long)row);
	return buf;
}
static const char *const dict[] = {"zero", "one \"q\"", "two,three"};

static char *write_rows(const struct row *r, uint64_t n, int fmt, bool on_threads, size_t *len)
{
	const gt_column cols[] = {
		{.name = "ts_us", .type = GT_COL_NS_US, .data = &r[0].ts, .stride = sizeof *r},
		{.name = "s", .type = GT_COL_STR, .data = &r[0].s, .stride = sizeof *r},
		{.name = "d", .type = GT_COL_F64, .data = &r[0].d, .stride = sizeof *r},
		{.name = "u", .type = GT_COL_U32, .data = &r[0].u, .stride = sizeof *r, .has_null = true,
		 .null_u32 = 0xffffffffu},
		{.name = "n", .type = GT_COL_I64, .get_i64 = row_number, .get_ctx = r},
		{.name = "t", .type = GT_COL_STR, .get_str = row_text, .get_ctx = r},
		{.name = "k", .type = GT_COL_DICT, .data = &r[0].u, .stride = sizeof *r, .dict = dict, .dict_len = 3,
		 .has_null = true, .null_u32 = 0xffffffffu},
	};
	gt_table t = {.name = "t", .cols = cols, .ncols = 7, .nrows = n, .cells_on_threads = on_threads};
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	gt_error err = {0};
	ck_assert_int_eq(gt_table_write(&t, fmt, f, &err), 0);
	fclose(f);
	return buf;
}

/* A large table whose getters allow threads: its rows formatted in
 * chunks on threads give the bytes of one thread, in every text format
 * (rows of every kind of cell, nulls among them, across the chunks). */
START_TEST(rows_on_threads)
{
	const uint64_t sizes[] = {2 * GT_LINES_CHUNK, 2 * GT_LINES_CHUNK + 1, 3 * GT_LINES_CHUNK + 777};
	const uint64_t n = sizes[_i];
	static const char *const texts[] = {"tab\there", "caf\xc3\xa9", "bad\xff", "plain", "q\"", "", NULL, "a,b"};
	struct row *many = calloc(n, sizeof *many);
	ck_assert_ptr_nonnull(many);
	for (uint64_t i = 0; i < n; i++)
		many[i] = (struct row){(int64_t)i * 7 - 3, texts[i % 8], i % 13 == 2 ? NAN : (double)i * 0.25,
				       i % 9 == 1 ? 0xffffffffu : (uint32_t)(i % 3)};
	gt_thread_default_set(3);
	const gt_table probe = {.nrows = n, .cells_on_threads = true};
	ck_assert(gt_table_rows_on_threads(&probe));
	const int fmts[] = {GT_OUT_CSV, GT_OUT_NDJSON, GT_OUT_JSON};
	for (int k = 0; k < 3; k++) {
		size_t one_len = 0, many_len = 0;
		char *one = write_rows(many, n, fmts[k], false, &one_len);
		char *threads = write_rows(many, n, fmts[k], true, &many_len);
		ck_assert_uint_gt(one_len, n * 20);
		ck_assert_uint_eq(many_len, one_len);
		ck_assert(memcmp(one, threads, one_len) == 0);
		free(one), free(threads);
	}
	gt_thread_default_set(0);
	free(many);
}
END_TEST

int main(void)
{
	const gt_test writers[] = {
		GT_TEST(ns_as_us),
		GT_TEST(json_escaping),
		GT_TEST(csv_quoting),
		GT_TEST(csv_buffer_boundaries),
		GT_TEST(json_rows),
		GT_TEST(arrow_layout),
		GT_TEST(arrow_bad_dictionary_index),
		GT_TEST(csv_field_into_line),
		GT_TEST(lines_in_chunks),
		GT_LOOP(rows_on_threads, 3),
		{0},
	};
	const gt_tcase cases[] = {{"writers", 0, writers}, {0}};
	return gt_run_cases("table", cases);
}
