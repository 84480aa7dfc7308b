/* Each track's spans in (start, -dur, id) order, and the nesting forest
 * (parents and depths, by a stack sweep) over them: builder_finish.c. */
#ifndef GT_TRACK_NEST_H
#define GT_TRACK_NEST_H

#include <stdint.h>

#include "model/model.h"

/* order[first[t]..first[t+1]) holds track t's span ids, in id order; they
 * are put in (start, -dur, id) order, starts[k] becoming the start of span
 * order[k]. Sets every span's parent and depth, every track's lane_count,
 * and counts improper nesting into *improper. A track of many spans is cut
 * into chunks swept at once, then stitched: the result is the one sweep's.
 * in_order (NULL: not known) marks the tracks whose ids are in that order
 * already: they are not searched for runs. -1: out of memory. */
int gt_nest_tracks(gt_model *m, uint32_t *order, const uint32_t *first, int64_t *starts, const uint8_t *in_order,
		   unsigned threads, uint64_t *improper);

/* Whether span a comes before span b on their track: start ascending,
 * longer first, earlier id. */
static inline int gt_track_before(const gt_span *s, uint32_t a, uint32_t b)
{
	if (s[a].ts_ns != s[b].ts_ns)
		return s[a].ts_ns < s[b].ts_ns;
	if (s[a].dur_ns != s[b].dur_ns)
		return s[a].dur_ns > s[b].dur_ns;
	return a < b;
}

#endif
