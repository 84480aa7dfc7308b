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
	GT_CAUSAL_TABLE_CLASSES,  /* one row per window and class of work with time */
};
/* "path", ... ; -1 when unknown. */
int gt_causal_table_parse(const char *s);

/* What the output holds beyond each window's summary and breakdown. */
struct gt_causal_doc {
	int table;    /* table formats: enum gt_causal_table */
	bool path;    /* JSON: each window's path (--path) */
	bool rows;    /* JSON: and its rows; table formats: the rows table (--rows) */
	uint32_t top; /* JSON: breakdown entries per window and in the aggregate, the
	               * rest summed as one "others" entry (--top; 0: all) */
};
#define GT_CAUSAL_DEFAULT_TOP 10

/* A breakdown key as text (NULL: none) and a track as "pid/tid" (with
 * its rank in a job), as the documents spell them; buf holds the text. */
const char *gt_causal_share_key(const gt_model *m, const gt_causal_share *s, char *buf, size_t cap);
const char *gt_causal_track_label(const gt_model *m, uint32_t track, char *buf, size_t cap);

/* The report of -f text or -f markdown (critpath_report.c). */
/* The windows' breakdowns summed by (kind, key), ordered as a window's
 * (malloc'd, *count entries; NULL out of memory); total: the paths summed. */
gt_causal_share *gt_cli_causal_sum_breakdowns(const gt_causal_result *r, uint32_t *count, int64_t *total, bool *overflow);
int gt_cli_causal_report(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const char *device,
			 const char *input, const char *step, int kind);

/* Writes r in c's format to c's output; device names where it ran. Returns
 * the exit status after printing any error. */
int gt_cli_causal_write(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const char *device,
			const struct gt_causal_doc *doc);

#endif
