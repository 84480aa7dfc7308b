/* Loading a trace or index file from the command line, with progress and
 * the options every trace-reading command shares. */
#ifndef GT_CLI_LOAD_H
#define GT_CLI_LOAD_H

#include "cli.h"
#include "model.h"

/* Loads path into m; on failure prints the error and returns the exit
 * status (nonzero). */
int gt_cli_load(const struct gt_common *c, const char *path, gt_model *m);

#endif
