/* critical-path (the causal model, the default): writing its result, per
 * window and aggregated, as a JSON document or as one of its tables. */
#ifndef GT_CLI_CRITPATH_CAUSAL_H
#define GT_CLI_CRITPATH_CAUSAL_H

#include <stdbool.h>

#include "causal/causal.h"
#include "cli.h"

/* The tables of the table formats (--table). */
enum gt_causal_table {
	GT_CAUSAL_TABLE_PATH = 0, /* one row per hop, every window */
	GT_CAUSAL_TABLE_BREAKDOWN,
	GT_CAUSAL_TABLE_WINDOWS,  /* one row per window: its summary */
	GT_CAUSAL_TABLE_ROWS,     /* one row per taking-part span (--rows) */
};
/* "path", ... ; -1 when unknown. */
int gt_causal_table_parse(const char *s);

/* Writes r in c's format to c's output; device names where it ran. Returns
 * the exit status after printing any error. */
int gt_cli_causal_write(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const char *device,
			int table, bool with_rows);

#endif
