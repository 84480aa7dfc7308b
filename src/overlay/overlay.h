/* overlay/: the critical-path overlay (overlay.c) over a strict streaming
 * copy of the input trace (trace_copy.h).
 *
 * The critical-path overlay: the input trace again, its events unchanged
 * and in order (copied as trace_copy.h says), with the causal critical path
 * marked so that Perfetto UI and chrome://tracing show it:
 *  - args.critical_path = 1 on each span on a window's path, and
 *    args.float_us (exact microseconds) on each span with a float (those
 *    taking part in a window; the first window's, where windows overlap),
 *    added to the span's opening event (its B for a B/E pair);
 *  - per cross-track hop (from and to spans on different tracks), a v1
 *    flow: an 's' on the from span's thread, an 'f' with bp "e" on the to
 *    span's, cat "critical_path", name "critical path", ids 1, 2, ...;
 *    each at its point's time moved into its span (a point at a span's end
 *    1 ns before it), so that both viewers bind it to an enclosing slice;
 *  - one process "critical path" (pid: the largest numeric pid + 1) with
 *    one thread per window (tid window + 1), named "critical path" or
 *    "critical path: STEP", holding one X slice per hop, named by its kind
 *    and owner ("work aten::mm", "idle"), cat "critical_path", args kind,
 *    owner (span id) and window. */
#ifndef GT_OVERLAY_H
#define GT_OVERLAY_H

#include "causal/causal.h"
#include "model/model.h"
#include "write/write.h"

typedef struct gt_overlay_stats {
	uint64_t events;        /* events copied */
	uint64_t marked;        /* spans given critical_path */
	uint64_t floats;        /* spans given float_us */
	uint64_t args_not_object; /* spans left unannotated: their args is not an object */
	uint64_t flows;         /* flow pairs added */
	uint64_t hop_slices;    /* X slices added */
} gt_overlay_stats;

/* m and r (computed with rows) are the analysis of the trace at path;
 * writes the overlay into z. Fails (GT_EINPUT) when the file no longer
 * holds the events m was read from. */
int gt_overlay_write(const gt_model *m, const gt_causal_result *r, const char *path, uint64_t max_expansion,
		     gt_zsink *z, gt_overlay_stats *st, gt_error *err);

#endif
