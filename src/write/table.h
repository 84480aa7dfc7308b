/* A read-only, column-oriented view of a result table, and the writers that
 * print it as JSON, NDJSON, CSV or Arrow IPC. Columns point into the caller's
 * arrays (with a stride, so an array of structs needs no copy). */
#ifndef GT_TABLE_H
#define GT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"

enum gt_col_type {
	GT_COL_I64,     /* int64 */
	GT_COL_U64,     /* uint64 */
	GT_COL_U32,     /* uint32; null_u32 marks nulls when has_null */
	GT_COL_I32,     /* int32 */
	GT_COL_F64,     /* double; a NaN is null when has_null (text formats: always) */
	GT_COL_BOOL,    /* uint8 0/1 */
	GT_COL_NS_US,   /* int64 ns; text formats print exact microseconds
	                 * ("1.5", "-0.001"), Arrow writes int64 ns under
	                 * `arrow_name` (e.g. ts_us -> ts_ns) */
	GT_COL_STR,     /* const char * per row (NULL = null) */
	GT_COL_DICT,    /* uint32 index into dict[] (dict_null = null);
	                 * Arrow: dictionary-encoded utf8 */
};

typedef struct gt_column {
	const char *name;
	const char *arrow_name; /* optional; name used in Arrow output */
	int type;               /* enum gt_col_type */
	const void *data;       /* first row's value */
	size_t stride;          /* bytes between rows; 0 = sizeof the type */
	bool has_null;
	uint32_t null_u32;      /* GT_COL_U32/GT_COL_DICT: this value is null */
	const char *const *dict; /* GT_COL_DICT: the strings */
	uint32_t dict_len;
	/* GT_COL_DICT alternative: a lookup callback instead of dict[] */
	const char *(*dict_get)(const void *ctx, uint32_t id);
	const void *dict_ctx;
	/* Computed columns: when data is NULL, values come from these getters
	 * (I64/U64/U32/I32/NS_US use get_i64; STR uses get_str). */
	int64_t (*get_i64)(const void *ctx, uint64_t row);
	const char *(*get_str)(const void *ctx, uint64_t row);
	const void *get_ctx;
} gt_column;

typedef struct gt_table {
	const char *name;       /* e.g. "spans"; JSON writes {"<name>": [...]} when wrapped */
	const gt_column *cols;
	size_t ncols;
	uint64_t nrows;
	/* schema metadata for Arrow (key/value pairs, may be NULL) */
	const char *const *meta_keys;
	const char *const *meta_values;
	size_t nmeta;
	/* Arrow: rows per record batch; 0 = the default (1M, fewer when a
	 * batch's strings would pass 256 MiB) */
	uint32_t arrow_batch_rows;
	/* Every getter may run on several threads at once (it reads what does
	 * not change, its text into a buffer of the thread's): the text
	 * formats then format a large table's rows in chunks on threads (the
	 * same bytes). */
	bool cells_on_threads;
} gt_table;

enum gt_out_format {
	GT_OUT_JSON = 0,
	GT_OUT_NDJSON,
	GT_OUT_CSV,
	GT_OUT_ARROW,        /* IPC file format */
	GT_OUT_ARROW_STREAM, /* IPC streaming format */
};
/* Parses "json", "ndjson", ...; returns -1 when unknown. */
int gt_out_format_parse(const char *s);
const char *gt_out_format_name(int fmt);
bool gt_out_format_is_binary(int fmt);

/* Writes the table in the format. JSON writes one array of row objects
 * (keys in column order). Returns 0, or -1 with err set (write errors
 * included). */
int gt_table_write(const gt_table *t, int fmt, FILE *out, gt_error *err);

/* Exact decimal microseconds from nanoseconds: "12.345", "-0.5", "3".
 * buf needs 32 bytes; returns the length. */
int gt_format_ns_as_us(char *buf, int64_t ns);

/* JSON string escaping (quotes included). */
void gt_json_write_string(FILE *out, const char *s);
/* The same escaping into any sink: put(ctx, bytes, n) for each piece. */
typedef void (*gt_put_fn)(void *ctx, const char *p, size_t n);
void gt_json_put_string(gt_put_fn put, void *ctx, const char *s);
/* A CSV field as the CSV writer quotes it (table_csv.c), into any sink. */
void gt_csv_put_field(gt_put_fn put, void *ctx, const char *s);

#endif
