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
	case GT_COL_BOOL:
		return snprintf(buf, 40, "%s", gt_cell_bool(c, row) ? "true" : "false");
	case GT_COL_NS_US:
		return gt_format_ns_as_us(buf, gt_cell_i64(c, row));
	}
	return 0;
}

int gt_table_write(const gt_table *t, int fmt, FILE *out, gt_error *err)
{
	switch (fmt) {
	case GT_OUT_JSON:
		return gt_table_write_json(t, out, false, err);
	case GT_OUT_NDJSON:
		return gt_table_write_json(t, out, true, err);
	case GT_OUT_CSV:
		return gt_table_write_csv(t, out, err);
	case GT_OUT_ARROW:
		return gt_table_write_arrow(t, out, false, err);
	case GT_OUT_ARROW_STREAM:
		return gt_table_write_arrow(t, out, true, err);
	}
	return gt_fail(err, GT_EUSAGE, "unknown output format %d", fmt);
}
