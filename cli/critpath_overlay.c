/* critical-path --overlay (see critpath_overlay.h). */
#include "critpath_overlay.h"

#include <inttypes.h>

#include "write/write.h"
#include "overlay/overlay.h"

int gt_cli_causal_overlay(const struct gt_common *c, const gt_model *m, const gt_causal_result *r,
			  const char *trace, const char *out, gt_outfile *of)
{
	gt_error err = {0};
	gt_zsink *z = NULL;
	gt_overlay_stats st;
	int comp = gt_zsink_compression_for(out);
	if (gt_outfile_open(of, out, comp != GT_COMP_NONE, &err) < 0 || gt_zsink_open(&z, of->fp, comp, &err) < 0 ||
	    gt_overlay_write(m, r, trace, c->max_expansion, z, &st, &err) < 0 || gt_zsink_finish(z, &err) < 0 ||
	    (fflush(of->fp) != 0 && gt_fail(&err, GT_EINPUT, "%s: write error", out) < 0)) {
		gt_zsink_free(z);
		gt_outfile_abort(of);
		return gt_report(&err);
	}
	gt_zsink_free(z);
	gt_notice(c, "overlay: %" PRIu64 " events copied, %" PRIu64 " spans on the path, %" PRIu64
		  " floats, %" PRIu64 " flows (%" PRIu64 " not drawable in time order), %" PRIu64 " hop slices%s", st.events,
		  st.marked, st.floats, st.flows, st.flows_not_drawn, st.hop_slices,
		  st.args_not_object ? " (some spans' args are not objects: left as they are)" : "");
	return 0;
}

int gt_cli_overlay_commit(gt_outfile *of)
{
	gt_error err = {0};
	return gt_outfile_commit(of, &err) < 0 ? gt_report(&err) : 0;
}
