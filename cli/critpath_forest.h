/* critical-path --model forest (and --forest FILE): the seed's path over
 * the parent forest, written in every format. */
#ifndef GT_CLI_CRITPATH_FOREST_H
#define GT_CLI_CRITPATH_FOREST_H

#include <stdbool.h>

#include "forest/forest.h"
#include "model/model.h"
#include "cli.h"

struct gt_stages;
/* model: the loaded trace, or NULL with forest a CSV path. Returns the exit
 * status, after printing any error; st collects the stage times (-v). */
int gt_cli_forest_run(const struct gt_common *c, gt_model *model, const char *forest, const gt_cp_options *opt,
		      bool with_rows, struct gt_stages *st);

#endif
