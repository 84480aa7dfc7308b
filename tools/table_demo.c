/* Writes a fixed table that exercises every column type and awkward value
 * (nulls, dictionary strings, unicode, invalid UTF-8, quotes, commas and
 * newlines, extreme integers, NaN, nanosecond times) in one output format,
 * through gt_table_write and the atomic gt_outfile, for the read-back tests
 * (tests/readback.py computes the same data independently).
 *
 * usage: table_demo FORMAT OUT [ROWS [BATCH_ROWS]]   (OUT "-" is stdout) */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/outfile.h"
#include "write/table.h"

struct row {
	uint32_t id, parent;
	int64_t ts_ns, dur_ns, big;
	uint64_t ubig;
	int32_t small;
	double ratio;
	uint8_t flag;
	const char *name;
	uint32_t cat, kind;
};

enum { FIXED = 8 };

static const char *const cats[] = {"gpu", "cpu_op", "kernel,\"x\"", "Memcpy 日本", "", "unused"};
static const char *const kinds[] = {"complete", "instant", "async"};

static const char *kind_get(const void *ctx, uint32_t id)
{
	(void)ctx;
	return id < 3 ? kinds[id] : NULL;
}

static void fill(struct row *r, uint64_t i, char *namebuf)
{
	static const struct row fixed[FIXED] = {
		{0, 0xffffffffu, 0, 1500, INT64_MIN, UINT64_MAX, INT32_MIN, 0.1, 1, "plain", 0, 2},
		{1, 0, -1, 1000, INT64_MAX, 0, INT32_MAX, -0.0, 0, "comma, \"quote\"\nnewline\r\ttab", 1, 0},
		{2, 0, INT64_MIN, INT64_MAX, -1, 1, -1, 1e300, 1, "", 0xffffffffu, 1},
		{3, 1, INT64_MAX, -999, 0, 42, 0, NAN, 0, NULL, 4, 0},
		{4, 0xffffffffu, 123456789, 1, 1, 18446744073709551000u, 7, INFINITY, 1, "µs — 日本語 🚀", 3, 1},
		{5, 4, 1000000, 10, -9007199254740993, 9007199254740993u, -7, -2.5e-308, 0,
		 "bad\xff\xc3(end\xe2\x82", 2, 2},
		{6, 5, -1500, 1001, 2, 3, 8, 3.141592653589793, 1, "\x01" "bell\x7f\\slash", 2, 0},
		{7, 6, 999, 1999999, 3, 4, 9, -NAN, 0, "  spaced  ", 0xffffffffu, 2},
	};
	if (i < FIXED) {
		*r = fixed[i];
		return;
	}
	r->id = (uint32_t)i;
	r->parent = i % 7 ? (uint32_t)(i - 1) : 0xffffffffu;
	r->ts_ns = (int64_t)i * 1234567 - 5000000000;
	r->dur_ns = (int64_t)((i * 7919) % 100003);
	r->big = (int64_t)i * -3037000499;
	r->ubig = (uint64_t)i * 11400714819323198485u;
	r->small = (int32_t)(i * 31) - 1000;
	r->ratio = (double)i / 7.0;
	r->flag = i % 3 == 0;
	if (i % 11) {
		snprintf(namebuf, 32, "span %" PRIu64, i);
		r->name = namebuf;
	} else {
		r->name = NULL;
	}
	r->cat = i % 13 ? (uint32_t)(i % 5) : 0xffffffffu;
	r->kind = (uint32_t)(i % 3);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: table_demo FORMAT OUT [ROWS [BATCH_ROWS]]\n");
		return 2;
	}
	int fmt = gt_out_format_parse(argv[1]);
	if (fmt < 0) {
		fprintf(stderr, "table_demo: unknown format '%s'\n", argv[1]);
		return 2;
	}
	uint64_t nrows = argc > 3 ? strtoull(argv[3], NULL, 10) : 100;
	uint32_t batch = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 0;
	struct row *rows = calloc(nrows ? nrows : 1, sizeof *rows);
	char (*names)[32] = calloc(nrows ? nrows : 1, 32);
	if (!rows || !names) {
		fprintf(stderr, "table_demo: out of memory\n");
		return 1;
	}
	for (uint64_t i = 0; i < nrows; i++)
		fill(&rows[i], i, names[i]);

#define COL(n, t, f) .name = n, .type = t, .data = &rows[0].f, .stride = sizeof(struct row)
	const gt_column cols[] = {
		{COL("id", GT_COL_U32, id)},
		{COL("parent", GT_COL_U32, parent), .has_null = true, .null_u32 = 0xffffffffu},
		{COL("ts_us", GT_COL_NS_US, ts_ns)},
		{COL("dur_us", GT_COL_NS_US, dur_ns), .arrow_name = "duration_ns"},
		{COL("big", GT_COL_I64, big)},
		{COL("ubig", GT_COL_U64, ubig)},
		{COL("small", GT_COL_I32, small)},
		{COL("ratio", GT_COL_F64, ratio)},
		{COL("flag", GT_COL_BOOL, flag)},
		{COL("name", GT_COL_STR, name)},
		{COL("cat", GT_COL_DICT, cat), .has_null = true, .null_u32 = 0xffffffffu, .dict = cats,
		 .dict_len = 6},
		{COL("kind", GT_COL_DICT, kind), .dict_get = kind_get},
	};
	static const char *const keys[] = {"gputrace.version", "gputrace.source"};
	static const char *const values[] = {"table_demo", "tools/table_demo.c"};
	gt_table t = {.name = "demo", .cols = cols, .ncols = sizeof cols / sizeof cols[0],
		      .nrows = nrows, .meta_keys = keys, .meta_values = values, .nmeta = 2,
		      .arrow_batch_rows = batch};

	gt_error err = {0};
	gt_outfile o;
	const char *out = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
	int rc = gt_outfile_open(&o, out, gt_out_format_is_binary(fmt), &err);
	if (rc == 0) {
		rc = gt_table_write(&t, fmt, o.fp, &err);
		if (rc == 0)
			rc = gt_outfile_commit(&o, &err);
		else
			gt_outfile_abort(&o);
	}
	free(rows);
	free(names);
	if (rc < 0) {
		fprintf(stderr, "table_demo: %s\n", err.msg);
		return err.status ? err.status : 1;
	}
	return 0;
}
