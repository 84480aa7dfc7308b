#include "causal_edges.h"

#include <string.h>

#include "viewport.h"

void gt_causal_edges_init(struct gt_causal_edges *e)
{
	e->recorded_wait = true;
	e->stream_wait = true;
	e->handoff = true;
	e->stream_wait_slack_ns = GT_CAUSAL_DEFAULT_SLACK_NS;
}

/* "+stream-wait,-stream-wait,...": the last word for a kind wins. */
static int parse_edges(const struct gt_command *cmd, struct gt_causal_edges *e, const char *arg)
{
	for (const char *p = arg, *end;; p = end + 1) {
		end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool on = !(n && *p == '-');
		const char *w = p + (n && (*p == '+' || *p == '-'));
		n -= (size_t)(w - p);
		if (n == strlen("recorded-wait") && memcmp(w, "recorded-wait", n) == 0)
			e->recorded_wait = on;
		else if (n == strlen("stream-wait") && memcmp(w, "stream-wait", n) == 0)
			e->stream_wait = on;
		else if (n == strlen("handoff") && memcmp(w, "handoff", n) == 0)
			e->handoff = on;
		else
			return gt_usage_error(cmd, "--edges '%s': unknown edge kind '%.*s' (recorded-wait, stream-wait, handoff)", arg,
					      (int)n, w);
		if (!end)
			return 0;
	}
}

int gt_causal_edges_option(const struct gt_command *cmd, struct gt_causal_edges *e, int id, const char *arg)
{
	if (id == OPT_EDGES) {
		return parse_edges(cmd, e, arg) ? -1 : 1;
	}
	if (id == OPT_STREAM_WAIT_SLACK) {
		const char *why;
		if (gt_parse_duration(arg, &e->stream_wait_slack_ns, &why) < 0)
			return gt_usage_error(cmd, "--stream-wait-slack '%s': %s", arg, why), -1;
		return 1;
	}
	return 0;
}

bool gt_causal_edges_stream_waits(const struct gt_causal_edges *e)
{
	return e->stream_wait && e->stream_wait_slack_ns > 0;
}

void gt_causal_edges_apply(const struct gt_causal_edges *e, gt_causal_options *o)
{
	o->stream_wait_slack_ns = gt_causal_edges_stream_waits(e) ? e->stream_wait_slack_ns : 0;
	o->handoffs = e->handoff;
	o->recorded_waits = e->recorded_wait;
}
