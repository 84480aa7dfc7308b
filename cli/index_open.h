/* The temporal index a command works on: an index file is mapped, a trace
 * is loaded and indexed with the default parameters. */
#ifndef GT_CLI_INDEX_OPEN_H
#define GT_CLI_INDEX_OPEN_H

#include <stdbool.h>

#include "cli.h"
#include "gtx/gtx.h"
#include "model/model.h"
#include "tindex/tindex.h"

struct gt_cli_index {
	gt_model m;
	gt_gtx g;        /* when from_file */
	bool from_file;
	gt_tindex own;   /* when built from a trace */
	const gt_tindex *ix;
};

/* Opens a command's TRACE operands: one index file is mapped; a trace, or
 * several files or a directory as one job (gt_cli_load_many), is loaded and
 * indexed. Returns 0, or the exit status after printing the error. */
int gt_cli_index_open_many(struct gt_cli_index *x, const struct gt_common *c, char *const *operands, int n);
void gt_cli_index_close(struct gt_cli_index *x);

#endif
