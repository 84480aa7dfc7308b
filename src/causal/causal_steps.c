/* The --step windows on their own (causal.h: gt_causal_step_windows): the
 * classes, windows and placement of the analysis, none of its edges. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

int gt_causal_step_windows(const gt_model *m, const char *step_glob, unsigned threads, gt_step_windows *out,
			   gt_error *err)
{
	memset(out, 0, sizeof *out);
	gt_causal_options opt = {.step_glob = step_glob, .threads = threads};
	causal_trace t;
	if (causal_trace_windows(&t, m, &opt, err) < 0) {
		causal_trace_free(&t);
		return -1;
	}
	out->windows = calloc(t.window_count ? t.window_count : 1, sizeof *out->windows);
	if (!out->windows) {
		causal_trace_free(&t);
		return gt_fail(err, GT_EINPUT, "out of memory for %u windows", t.window_count);
	}
	for (uint32_t w = 0; w < t.window_count; w++)
		out->windows[w] = (gt_step_window){t.windows[w].step_span, t.windows[w].begin_ns, t.windows[w].end_ns,
						   t.windows[w].ranks};
	out->count = t.window_count;
	out->window_of = t.window_of; /* taken over: big_free */
	t.window_of = NULL;
	causal_trace_free(&t);
	return 0;
}

void gt_step_windows_free(gt_step_windows *w)
{
	free(w->windows);
	gt_big_free(w->window_of);
	memset(w, 0, sizeof *w);
}
