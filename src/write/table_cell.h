/* Reading one cell of a gt_column, shared by the table writers. Cells are
 * read with memcpy: strided rows of a struct need not be aligned. */
#ifndef GT_TABLE_CELL_H
#define GT_TABLE_CELL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "jline.h"
#include "table.h"

size_t gt_col_stride(const gt_column *c);

static inline const unsigned char *gt_col_at(const gt_column *c, uint64_t row)
{
	return (const unsigned char *)c->data + row * gt_col_stride(c);
}

static inline int64_t gt_cell_i64(const gt_column *c, uint64_t row)
{
	if (!c->data)
		return (int64_t)c->get_i64(c->get_ctx, row);
	int64_t v;
	memcpy(&v, gt_col_at(c, row), sizeof v);
	return v;
}

static inline uint64_t gt_cell_u64(const gt_column *c, uint64_t row)
{
	if (!c->data)
		return (uint64_t)c->get_i64(c->get_ctx, row);
	uint64_t v;
	memcpy(&v, gt_col_at(c, row), sizeof v);
	return v;
}

static inline uint32_t gt_cell_u32(const gt_column *c, uint64_t row)
{
	if (!c->data)
		return (uint32_t)c->get_i64(c->get_ctx, row);
	uint32_t v;
	memcpy(&v, gt_col_at(c, row), sizeof v);
	return v;
}

static inline int32_t gt_cell_i32(const gt_column *c, uint64_t row)
{
	if (!c->data)
		return (int32_t)c->get_i64(c->get_ctx, row);
	int32_t v;
	memcpy(&v, gt_col_at(c, row), sizeof v);
	return v;
}

static inline double gt_cell_f64(const gt_column *c, uint64_t row)
{
	double v;
	memcpy(&v, gt_col_at(c, row), sizeof v);
	return v;
}

static inline bool gt_cell_bool(const gt_column *c, uint64_t row)
{
	if (!c->data)
		return c->get_i64(c->get_ctx, row) != 0;
	return *gt_col_at(c, row) != 0;
}

static inline const char *gt_cell_strp(const gt_column *c, uint64_t row)
{
	if (!c->data)
		return c->get_str(c->get_ctx, row);
	const char *s;
	memcpy(&s, gt_col_at(c, row), sizeof s);
	return s;
}

/* GT_COL_DICT: the entry's string, "" for an entry the dictionary lacks. */
const char *gt_dict_entry(const gt_column *c, uint32_t id);

/* True when the cell is null: U32/DICT equal to null_u32 under has_null,
 * a NULL string. */
bool gt_cell_is_null(const gt_column *c, uint64_t row);

/* STR and DICT cells: the string, or NULL when null. */
const char *gt_cell_str(const gt_column *c, uint64_t row);

/* Numbers and booleans as text: JSON-compatible ("true", "1.5", "-3").
 * Returns the length, or 0 when the value has no text form (null, or a
 * NaN/infinite double) so the caller writes its null. buf: 40 bytes. */
int gt_cell_number(const gt_column *c, uint64_t row, char *buf);

/* Integer formatting without printf. buf: 24 bytes. */
int gt_format_i64(char *buf, int64_t v);
int gt_format_u64(char *buf, uint64_t v);
/* Shortest "%.Ng" (N = 15..17) that reads back to the same double. */
int gt_format_f64(char *buf, double v);

/* table_rows.c: where the table's rows are formatted on threads (a large
 * table whose getters allow it), and the writing of them: row(t, ctx, l,
 * r) appends row r's line to l, on any of the threads. -1 out of memory
 * (rows may have been written). */
typedef void (*gt_table_row_fn)(const gt_table *t, const void *ctx, gt_jline *l, uint64_t r);
bool gt_table_rows_on_threads(const gt_table *t);
int gt_table_write_rows(const gt_table *t, FILE *out, gt_table_row_fn row, const void *ctx);
/* A number cell as gt_cell_number writes it, formatted in place; null_text
 * (NULL: nothing) for none. Inline: it is most of a row's calls. */
static inline void gt_jline_cell_number(gt_jline *l, const gt_column *c, uint64_t row, const char *null_text)
{
	enum { CELL_MAX = 40 }; /* gt_cell_number's buffer */
	if (l->cap - l->len < CELL_MAX)
		gt_jline_grow(l, CELL_MAX);
	if (l->cap - l->len < CELL_MAX)
		return; /* out of memory: the line is marked failed */
	int n = gt_cell_number(c, row, l->buf + l->len);
	if (n)
		l->len += (size_t)n;
	else if (null_text)
		gt_jline_put(l, null_text, strlen(null_text));
}

/* The writers behind gt_table_write. */
int gt_table_write_json(const gt_table *t, FILE *out, bool ndjson, gt_error *err);
int gt_table_write_csv(const gt_table *t, FILE *out, gt_error *err);
int gt_table_write_arrow(const gt_table *t, FILE *out, bool stream, gt_error *err);

/* -1 with err naming the failed write when out has its error flag set. */
int gt_check_write(FILE *out, gt_error *err);

#endif
