/* critical-path, the causal model: a window's hops and per-span rows as
 * lines, the JSON document's and the rows table's in NDJSON and CSV, all
 * formatted a chunk at a time on threads (write/lines.h). */
#ifndef GT_CLI_CRITPATH_LINES_H
#define GT_CLI_CRITPATH_LINES_H

#include <stdbool.h>

#include "causal/causal.h"
#include "write/write.h"
#include "cli.h"

enum gt_cp_lines_format {
	GT_CP_LINES_JSON,        /* document elements: "key":value, no line end */
	GT_CP_LINES_JSON_PRETTY, /* the same with ", " and ": " */
	GT_CP_LINES_NDJSON,      /* the rows table: each row with its window, and a line end */
	GT_CP_LINES_CSV,         /* the rows table as CSV records */
};

typedef struct gt_cp_lines gt_cp_lines;

/* The writer of one output (its threads' escaped strings kept from window
 * to window); NULL out of memory. threads: 0 for one per core. */
gt_cp_lines *gt_cp_lines_new(const gt_model *m, int format, unsigned threads);
void gt_cp_lines_free(gt_cp_lines *w);

/* Window win's (index window) hops, or rows, chunk by chunk to emit;
 * NDJSON and CSV: rows only. Returns as gt_lines_write. */
int gt_cp_lines_write(gt_cp_lines *w, const gt_causal_window *win, uint32_t window, bool rows,
		      gt_lines_emit_fn emit, void *ctx);

/* The rows table t (its columns name the CSV header) of every window of r
 * in c's format, NDJSON or CSV, to c's output: the bytes of the table
 * writer's, faster. Returns the exit status after printing any error. */
int gt_cp_rows_table(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const gt_table *t);

#endif
