/* The causal model's optional edge kinds, as --edges and
 * --stream-wait-slack choose them; critical-path, compare (both sides)
 * and render take the same options. */
#ifndef GT_CLI_CAUSAL_EDGES_H
#define GT_CLI_CAUSAL_EDGES_H

#include <stdbool.h>
#include <stdint.h>

#include "causal/causal.h"
#include "cli.h"

enum { OPT_EDGES = 90, OPT_STREAM_WAIT_SLACK };

#define GT_CAUSAL_DEFAULT_SLACK_NS 5000 /* 5 us: a cross-stream event wait's latency */

#define GT_OPT_EDGES                                                                                       \
	{"edges", 0, "LIST", OPT_EDGES,                                                                    \
	 "causal: turn optional edge kinds on (+KIND) or off (-KIND), comma-separated: recorded-wait, "    \
	 "stream-wait, handoff"},                                                                                       \
	{"stream-wait-slack", 0, "DUR", OPT_STREAM_WAIT_SLACK,                                             \
	 "causal: infer a stream wait when a held kernel starts at most DUR after another stream's span "  \
	 "ends (default 5us; 0: none)"}

struct gt_causal_edges {
	bool recorded_wait, stream_wait, handoff;
	int64_t stream_wait_slack_ns;
};

void gt_causal_edges_init(struct gt_causal_edges *e);
/* 1 when id is one of these options (applied), 0 when not, -1 after a
 * usage error (printed). */
int gt_causal_edges_option(const struct gt_command *cmd, struct gt_causal_edges *e, int id, const char *arg);
/* Sets the options' fields of the analysis. */
void gt_causal_edges_apply(const struct gt_causal_edges *e, gt_causal_options *o);
/* Whether inferred stream waits are on (the documents then count them). */
bool gt_causal_edges_stream_waits(const struct gt_causal_edges *e);

#endif
