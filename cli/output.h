/* Writing a result table per --format and -o, atomically. */
#ifndef GT_CLI_OUTPUT_H
#define GT_CLI_OUTPUT_H

#include "cli.h"
#include "model/model.h"
#include "write/write.h"

/* Writes t to -o (or stdout) in the chosen format; returns the exit status
 * (0, or nonzero after printing the error). */
int gt_cli_write_table(const struct gt_common *c, const gt_table *t);

/* t as a report a person reads (table_report.c), kind enum gt_report_kind;
 * -1 out of memory. */
int gt_table_report_write(FILE *out, const gt_table *t, int kind);

/* Schema metadata for Arrow: gputrace's version and the source trace. */
void gt_cli_table_meta(gt_table *t, const char *source, const char *keys[2], const char *vals[2]);

/* Column helpers over the span model. */
const char *gt_cli_model_string(const void *model, uint32_t id);

#endif
