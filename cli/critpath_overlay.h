/* critical-path --overlay: the input trace with the causal path marked
 * (formats/overlay.h), written atomically, compressed by its suffix. */
#ifndef GT_CRITPATH_OVERLAY_H
#define GT_CRITPATH_OVERLAY_H

#include "analysis/analysis.h"
#include "cli.h"

/* Returns 0 or the exit status of an error (printed). */
int gt_cli_causal_overlay(const struct gt_common *c, const gt_model *m, const gt_causal_result *r,
			  const char *trace, const char *out);

#endif
