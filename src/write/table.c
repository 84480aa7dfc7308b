/* Cell access shared by the writers, number formatting, and the format
 * dispatch of gt_table_write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "table_cell.h"

size_t gt_col_stride(const gt_column *c)
{
	if (c->stride)
		return c->stride;
	switch (c->type) {
	case GT_COL_I64: case GT_COL_U64: case GT_COL_NS_US: return 8;
	case GT_COL_U32: case GT_COL_I32: case GT_COL_DICT: return 4;
	case GT_COL_F64: return sizeof(double);
	case GT_COL_BOOL: return 1;
	case GT_COL_STR: return sizeof(const char *);
	}
	return 1;
}

const char *gt_dict_entry(const gt_column *c, uint32_t id)
{
	const char *s = NULL;
	if (c->dict_get)
		s = c->dict_get(c->dict_ctx, id);
	else if (c->dict && id < c->dict_len)
		s = c->dict[id];
	return s ? s : "";
}

bool gt_cell_is_null(const gt_column *c, uint64_t row)
{
	switch (c->type) {
	case GT_COL_U32:
		return c->has_null && gt_cell_u32(c, row) == c->null_u32;
	case GT_COL_DICT:
		return c->has_null && gt_cell_u32(c, row) == c->null_u32;
	case GT_COL_STR:
		return gt_cell_strp(c, row) == NULL;
	case GT_COL_F64:
		return c->has_null && !isfinite(gt_cell_f64(c, row));
	}
	return false;
}

const char *gt_cell_str(const gt_column *c, uint64_t row)
{
	if (c->type == GT_COL_STR)
		return gt_cell_strp(c, row);
	if (gt_cell_is_null(c, row))
		return NULL;
	return gt_dict_entry(c, gt_cell_u32(c, row));
}

int gt_format_u64(char *buf, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

int gt_format_i64(char *buf, int64_t v)
{
	if (v >= 0)
		return gt_format_u64(buf, (uint64_t)v);
	buf[0] = '-';
	/* the magnitude in unsigned arithmetic: INT64_MIN has no positive twin */
	return 1 + gt_format_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
}

int gt_format_f64(char *buf, double v)
{
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, 40, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return n;
}

int gt_format_ns_as_us(char *buf, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	int n = 0;
	if (ns < 0)
		buf[n++] = '-';
	n += gt_format_u64(buf + n, mag / 1000);
	unsigned frac = (unsigned)(mag % 1000);
	if (frac) {
		buf[n++] = '.';
		buf[n++] = (char)('0' + frac / 100);
		frac %= 100;
		if (frac) {
			buf[n++] = (char)('0' + frac / 10);
			frac %= 10;
			if (frac)
				buf[n++] = (char)('0' + frac);
		}
		buf[n] = '\0';
	}
	return n;
}

int gt_cell_number(const gt_column *c, uint64_t row, char *buf)
{
	switch (c->type) {
	case GT_COL_I64:
		return gt_format_i64(buf, gt_cell_i64(c, row));
	case GT_COL_U64:
		return gt_format_u64(buf, gt_cell_u64(c, row));
	case GT_COL_U32:
		if (gt_cell_is_null(c, row))
			return 0;
		return gt_format_u64(buf, gt_cell_u32(c, row));
	case GT_COL_I32:
		return gt_format_i64(buf, gt_cell_i32(c, row));
	case GT_COL_F64: {
		double v = gt_cell_f64(c, row);
		return isfinite(v) ? gt_format_f64(buf, v) : 0;
	}
	case GT_COL_BOOL: {
		bool v = gt_cell_bool(c, row);
		memcpy(buf, v ? "true" : "false", v ? 5 : 6);
		return v ? 4 : 5;
	}
	case GT_COL_NS_US:
		return gt_format_ns_as_us(buf, gt_cell_i64(c, row));
	}
	return 0;
}

/* The integer-nanosecond name of a microsecond column: its arrow_name when
 * that ends in _ns, else its name with _us (if any) replaced by _ns. */
static void ns_name(const gt_column *c, char *buf, size_t n)
{
	size_t an = c->arrow_name ? strlen(c->arrow_name) : 0;
	if (an > 3 && strcmp(c->arrow_name + an - 3, "_ns") == 0) {
		snprintf(buf, n, "%s", c->arrow_name);
		return;
	}
	size_t len = strlen(c->name);
	if (len > 3 && strcmp(c->name + len - 3, "_us") == 0)
		len -= 3;
	snprintf(buf, n, "%.*s_ns", (int)len, c->name);
}

static bool has_column(const gt_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return true;
	return false;
}

/* Text formats: every microsecond column is followed by its integer
 * nanoseconds (ts_us, ts_ns), exact in readers that use doubles. */
static int write_text(const gt_table *t, int fmt, FILE *out, gt_error *err)
{
	size_t extra = 0;
	for (size_t i = 0; i < t->ncols; i++)
		extra += t->cols[i].type == GT_COL_NS_US;
	gt_column *cols = malloc((t->ncols + extra) * sizeof *cols + extra * 64 + 1);
	if (!cols)
		return gt_fail(err, GT_EINPUT, "out of memory");
	char *names = (char *)(cols + t->ncols + extra);
	size_t n = 0;
	for (size_t i = 0; i < t->ncols; i++) {
		cols[n++] = t->cols[i];
		if (t->cols[i].type != GT_COL_NS_US)
			continue;
		char *name = names;
		ns_name(&t->cols[i], name, 64);
		names += 64;
		if (has_column(t, name))
			continue; /* the table gives it already */
		cols[n] = t->cols[i];
		cols[n].type = GT_COL_I64;
		cols[n].name = name;
		n++;
	}
	gt_table tt = *t;
	tt.cols = cols;
	tt.ncols = n;
	int rc = fmt == GT_OUT_CSV ? gt_table_write_csv(&tt, out, err)
				   : gt_table_write_json(&tt, out, fmt == GT_OUT_NDJSON, err);
	free(cols);
	return rc;
}

int gt_table_write(const gt_table *t, int fmt, FILE *out, gt_error *err)
{
	switch (fmt) {
	case GT_OUT_JSON:
	case GT_OUT_NDJSON:
	case GT_OUT_CSV:
		return write_text(t, fmt, out, err);
	case GT_OUT_ARROW:
		return gt_table_write_arrow(t, out, false, err);
	case GT_OUT_ARROW_STREAM:
		return gt_table_write_arrow(t, out, true, err);
	}
	return gt_fail(err, GT_EUSAGE, "unknown output format %d", fmt);
}
