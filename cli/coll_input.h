/* The input of the collectives and stragglers commands: traces (one job,
 * as every command reads them) and per-rank summaries written by
 * `gputrace collectives -f arrow`, in any mix. */
#ifndef GT_CLI_COLL_INPUT_H
#define GT_CLI_COLL_INPUT_H

#include "collective/collective.h"
#include "cli.h"

enum { OPT_COLLECTIVE_NAME = 90, OPT_COLL_STEP = 91 };

#define GT_OPT_COLLECTIVE_NAME { "collective-name", 0, "REGEX", OPT_COLLECTIVE_NAME, "also count kernels whose name matches REGEX as collectives" }
#define GT_OPT_COLL_STEP { "step", 0, "GLOB", OPT_COLL_STEP, "number each kernel's step window: spans off the GPU matching GLOB, e.g. 'ProfilerStep#*'" }

/* Fills s from the operands; on failure prints and returns the exit status. */
int gt_cli_coll_load(const struct gt_common *c, char *const *operands, int n, const gt_coll_options *o,
		     gt_coll_set *s);

#endif
