/* critical-path --overlay: the input trace with the causal path marked
 * (overlay/overlay.h), written atomically, compressed by its suffix. */
#ifndef GT_CRITPATH_OVERLAY_H
#define GT_CRITPATH_OVERLAY_H

#include "causal/causal.h"
#include "cli.h"
#include "write/write.h"

/* Writes the overlay into a temporary file beside out, left in *of for the
 * caller to commit (gt_cli_overlay_commit) once its other output is written,
 * or abort (gt_outfile_abort): so a failure of either leaves neither file.
 * Returns 0 or the exit status of an error (printed; *of aborted). */
int gt_cli_causal_overlay(const struct gt_common *c, const gt_model *m, const gt_causal_result *r,
			  const char *trace, const char *out, gt_outfile *of);
/* Renames it into place: 0 or the exit status of an error (printed). */
int gt_cli_overlay_commit(gt_outfile *of);

#endif
