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
 *    span's, cat "critical_path", name "critical path", ids 1, 2, ... (one
 *    per cross-track hop); where the points below would come out of time
 *    order, the earliest 's' and the latest 'f' bindable; where even those
 *    are (a hand-back into a span whose own part came before: both viewers
 *    drop a flow that ends before it starts), its id is left out and it is
 *    counted (flows_not_drawn);
 *  - one process "critical path" (pid: the largest numeric pid + 1) with
 *    one thread per window (tid window + 1), named "critical path" or
 *    "critical path: STEP", holding the window's hops as X slices, cat
 *    "critical_path", named by kind and owner ("work aten::mm", "idle"),
 *    args kind, owner (span id) and window.
 *
 * Flow points. Both viewers bind a flow event to the innermost slice of its
 * thread at its time: catapult (chrome://tracing) after turning µs into ms
 * as doubles (ts * 0.001; a slice's end is start + dur, rounded again),
 * Perfetto to the top of the thread's slice stack when the event comes (in
 * ns: integers exactly, other numbers as llround(µs * 1000.0)), so a child
 * that has begun holds the point until another slice event pops it. A
 * point at t on span s is therefore written
 *  - into s's own part: from its start to the first span of its track that
 *    starts within it and is not its ancestor (a child, an overlapping
 *    span; instants of process or global scope do not count), or all of s
 *    when one starts with s (then the viewers bind the point to whatever
 *    holds that time);
 *  - a margin inside that part's ends, t clamped to [start + k, end - k]:
 *    k = 2^(bits - 50) ns, at least 1 ns, bits the bit length of the larger
 *    of |start| and |end| of s in ns. That is over 4 steps of the doubles
 *    there (in ns, µs or ms; under 3 are lost to the viewers' rounding):
 *    1 ns below 2^50 ns (13 days), 2048 ns at Kineto's epoch times (2^60
 *    to 2^61 ns);
 *  - when the part is shorter than 2k, at its middle (to the ns below):
 *    binding is sure while the part is wider than about 6 steps (1.5 µs at
 *    2^60 ns); on a narrower one the viewers' rounding may move the point
 *    onto a neighbour. A span of 0 or 1 ns gets its start, its only time,
 *    which catapult's closed intervals and Perfetto's stack bind to it
 *    unless another slice begins or ends exactly there;
 *  - as exact µs with up to 3 decimals, integers without a fraction (which
 *    Perfetto reads exactly).
 *
 * Hop slices. A slice is drawn at least 1 µs long: catapult nests a slice
 * in the one before it when its end rounds (to the µs) to the same time,
 * and Perfetto nests zero-length slices that touch, each costing the path
 * track a row. So a hop shorter than 1 µs shares a slice with the hops
 * after it, until the slice is 1 µs long; a shorter rest at the window's
 * end joins the slice before it (a window shorter than 1 µs: one slice).
 * A slice of several hops spans them all, is named by its longest (the
 * first of equal ones), with that hop's args and hops: N. */
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
	uint64_t flows_not_drawn; /* cross-track hops whose points no viewer could bind in time order */
	uint64_t hop_slices;    /* X slices added */
} gt_overlay_stats;

/* m and r (computed with rows) are the analysis of the trace at path;
 * writes the overlay into z. Fails (GT_EINPUT) when the file no longer
 * holds the events m was read from. */
int gt_overlay_write(const gt_model *m, const gt_causal_result *r, const char *path, uint64_t max_expansion,
		     gt_zsink *z, gt_overlay_stats *st, gt_error *err);

#endif
