/* gputrace render: an SVG timeline of a viewport, drawn from the temporal
 * index's candidates (the same query as `gputrace query`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <time.h>

#include "device_open.h"
#include "causal_edges.h"
#include "cli.h"
#include "index_open.h"
#include "causal/causal.h"
#include "cl/cl.h"
#include "tindex/tindex.h"
#include "gtx/gtx.h"
#include "load.h"
#include "write/write.h"
#include "svg/svg.h"
#include "viewport.h"

enum { OPT_TIME = OPT_COMMAND_BASE, OPT_LANES, OPT_GROUPS, OPT_WIDTH, OPT_CRITICAL_PATH, OPT_TITLE };

static const struct gt_opt render_opts[] = {
	{"time", 't', "A:B", OPT_TIME, "time window from the first span's start (ns, us, ms, s; default: all), or @A:B, @A:+D absolute"},
	{"lanes", 0, "L0:L1", OPT_LANES, "lane window, half-open (default all)"},
	{"groups", 0, "NAMES|MASK", OPT_GROUPS, "comma-separated group names or a 32-bit mask (default all)"},
	{"width", 'w', "PX", OPT_WIDTH, "width of the time axis in pixels (default 1200)"},
	{"critical-path", 0, NULL, OPT_CRITICAL_PATH, "draw the causal critical path as time-ordered hops, its spans outlined"},
	{"title", 0, "TEXT", OPT_TITLE, "title shown at the top (default: the file name and window)"},
	{"threads", 'j', "N", OPT_THREADS, "ingest and drawing threads (default: one per core)"},
	GT_OPT_EDGES,
	GT_OPT_OUTPUT, GT_OPT_DEVICE, GT_OPT_PARENTS, GT_OPT_MAX_EXPANSION, GT_OPT_QUIET, GT_OPT_VERBOSE,
	GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

struct run {
	struct gt_common c;
	struct gt_cli_index x;
	gt_cl *cl;
	gt_tindex_cl *dev;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}


static int query(struct run *r, const gt_tquery *q, uint32_t *cand, uint64_t *n)
{
	gt_error err = {0};
	char chosen[256] = "";
	if (gt_cli_device_open(&r->c, GT_WORK_RENDER, r->x.m.span_count, &r->cl, chosen, sizeof chosen, &err) < 0)
		return gt_report(&err);
	gt_device_notice(&r->c, chosen);
	gt_tresult res = {.candidates = cand, .capacity = r->x.ix->batch_count};
	int rc = r->cl ? gt_tindex_cl_open(&r->dev, r->cl, r->x.ix, &err) : 0;
	if (rc == 0)
		rc = r->dev ? gt_tindex_cl_query(r->dev, q, &res, NULL, &err) : gt_tindex_query(r->x.ix, q, &res, &err);
	if (rc < 0)
		return gt_report(&err);
	*n = res.count;
	return 0;
}

/* The causal critical path of the whole trace, on the query's device. */
static int critical_path(gt_cl *cl, const struct gt_common *c, const struct gt_causal_edges *edges, const gt_model *m,
			 gt_causal_result *r, const char *input)
{
	gt_error err = {0};
	gt_causal_options o = {.threads = c->threads};
	gt_causal_edges_apply(edges, &o);
	gt_causal_cl_engine dev;
	if (cl)
		gt_causal_cl_engine_init(&dev, cl);
	if (gt_causal_analyze(m, &o, cl ? &dev.engine : NULL, r, &err) < 0)
		return gt_report_input(input, &err);
	return 0;
}

static const char *us_text(char *out, int64_t ns);

static int run_render(const struct gt_command *cmd, int argc, char **argv)
{
	struct run r;
	memset(&r, 0, sizeof r);
	gt_common_init(&r.c);
	const char *time_arg = NULL, *lanes_arg = NULL, *groups_arg = NULL, *title = NULL;
	unsigned long long width = 1200;
	bool want_path = false;
	struct gt_causal_edges edges;
	gt_causal_edges_init(&edges);
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		int edge = gt_causal_edges_option(cmd, &edges, id, arg);
		if (edge < 0)
			return GT_EUSAGE;
		if (edge)
			continue;
		switch (id) {
		case OPT_TIME: time_arg = arg; break;
		case OPT_LANES: lanes_arg = arg; break;
		case OPT_GROUPS: groups_arg = arg; break;
		case OPT_CRITICAL_PATH: want_path = true; break;
		case OPT_TITLE: title = arg; break;
		case OPT_WIDTH:
			if (gt_parse_u64(cmd, "width", arg, &width) < 0)
				return GT_EUSAGE;
			if (width < 16 || width > 100000)
				return gt_usage_error(cmd, "bad --width '%s': expected 16 to 100000 pixels", arg);
			break;
		default: {
			int status;
			if (!gt_common_or_exit(&r.c, cmd, id, arg, &status))
				return status;
		}
		}
	}
	if (id < 0)
		return GT_EUSAGE;
	gt_operand_stdin(&st);
	if (st.noperands < 1)
		return gt_usage_error(cmd, "'render' takes a TRACE or index file (several traces or a directory: one job)");
	const char *why;
	int64_t a = 0, b = 0;
	gt_tquery q = {.lane0 = 0, .lane1 = UINT32_MAX, .groups = 0xffffffffu};
	bool absolute = false;
	if (time_arg && gt_parse_time_window_ex(time_arg, &a, &b, &absolute, &why) < 0)
		return gt_usage_error(cmd, "bad --time '%s': %s", time_arg, why);
	if (lanes_arg && gt_parse_lane_window(lanes_arg, &q.lane0, &q.lane1, &why) < 0)
		return gt_usage_error(cmd, "bad --lanes '%s': %s", lanes_arg, why);
	double t_start = now_ms();
	gt_cli_device_prefetch(&r.c, GT_WORK_RENDER);
	char label[600];
	const char *input = gt_input_label(st.operands, st.noperands, label, sizeof label);
	int rc = gt_cli_index_open_many(&r.x, &r.c, st.operands, st.noperands);
	double t_loaded = now_ms();
	if (rc == 0 && groups_arg && gt_parse_groups(groups_arg, &r.x.m, &q.groups, &why) < 0)
		rc = gt_usage_error(cmd, "bad --groups '%s': %s", groups_arg, why);
	if (rc == 0) {
		if (time_arg) {
			if (gt_time_window_resolve(time_arg, r.x.m.start_ns, &q.t0, &q.t1, &why) < 0)
				rc = gt_usage_error(cmd, "bad --time '%s': %s", time_arg, why);
		} else {
			q.t0 = r.x.m.start_ns;
			q.t1 = r.x.m.end_ns > r.x.m.start_ns ? r.x.m.end_ns : r.x.m.start_ns;
		}
		if (rc == 0 && q.t1 < q.t0)
			rc = gt_usage_error(cmd, "bad --time '%s': it ends before it starts", time_arg);
	}
	uint32_t *cand = NULL;
	gt_causal_result cp = {0};
	uint64_t ncand = 0;
	if (rc == 0) {
		q.level = gt_tindex_auto_level(r.x.ix, q.t1 - q.t0, r.x.m.end_ns - r.x.m.start_ns);
		if (!(cand = malloc(((size_t)r.x.ix->batch_count + 1) * sizeof *cand))) {
			fprintf(stderr, "gputrace: out of memory\n");
			rc = GT_EINPUT;
		}
	}
	if (rc == 0)
		rc = query(&r, &q, cand, &ncand);
	double t_queried = now_ms();
	if (rc == 0 && want_path)
		rc = critical_path(r.cl, &r.c, &edges, &r.x.m, &cp, input);
	double t_path = now_ms();
	gt_render_stats rs = {0};
	if (rc == 0) {
		char auto_title[512];
		if (!title) {
			const char *src = st.operands[0], *slash = strrchr(src, '/');
			snprintf(auto_title, sizeof auto_title, "%s  [%s]", slash ? slash + 1 : src,
				 time_arg ? time_arg : "whole trace");
			title = auto_title;
		}
		gt_render_opts o = {.q = q, .width = (uint32_t)width, .title = title, .hops = want_path ? cp.windows[0].hops : NULL,
				    .hop_count = want_path ? cp.windows[0].hop_count : 0, .threads = r.c.threads};
		/* a test knob: split small inputs too, to test the merge */
		const char *ws = getenv("GPUTRACE_RENDER_WORKER_SPANS");
		if (ws)
			o.worker_spans = strtoull(ws, NULL, 10);
		gt_outfile out = {0};
		gt_error err = {0};
		if (gt_outfile_open(&out, r.c.output, false, &err) < 0 ||
		    gt_render_svg(out.fp, &r.x.m, r.x.ix, cand, ncand, &o, &rs, &err) < 0) {
			gt_outfile_abort(&out);
			rc = gt_report(&err);
		} else if (rs.spans == 0 && r.x.m.span_count == 0) {
			gt_outfile_abort(&out);
			fprintf(stderr, "gputrace: %s: the trace has no span to draw\n", input);
			rc = GT_EINPUT;
		} else if (rs.spans == 0) {
			/* an empty picture is a viewport that missed the trace: say where the trace is */
			gt_outfile_abort(&out);
			char t0[40], t1[40], s0[40], s1[40];
			fprintf(stderr,
				"gputrace: %s: the %s @%s:@%s holds no span; the trace's spans run from @%s to @%s "
				"(absolute microseconds, as spans prints ts_us; relative windows count from @%s)\n",
				input, time_arg ? "window" : "viewport (lanes and groups) over", us_text(t0, q.t0),
				us_text(t1, q.t1), us_text(s0, r.x.m.start_ns), us_text(s1, r.x.m.end_ns), s0);
			rc = GT_EINPUT;
		} else if (gt_outfile_commit(&out, &err) < 0) {
			rc = gt_report(&err);
		}
	}
	double t_done = now_ms();
	if (rc == 0)
		gt_notice(&r.c,
			  "rendered %llu spans as %llu boxes and %llu density cells on %u lanes from %llu candidate "
			  "batches (level %u); load %.0f ms, query %.1f ms, path %.0f ms, svg %.0f ms",
			  (unsigned long long)rs.spans, (unsigned long long)rs.boxes,
			  (unsigned long long)rs.density_cells, rs.rows, (unsigned long long)ncand, q.level,
			  t_loaded - t_start, t_queried - t_loaded, t_path - t_queried, t_done - t_path);
	free(cand);
	gt_causal_result_free(&cp);
	gt_tindex_cl_close(r.dev);
	gt_cl_close(r.cl);
	gt_cli_index_close(&r.x);
	return rc;
}

/* ns as exact microseconds, without trailing zeros: "1610366387140599.5". */
static const char *us_text(char *out, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	int n = snprintf(out, 40, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
	while (n > 0 && out[n - 1] == '0')
		out[--n] = '\0';
	if (n > 0 && out[n - 1] == '.')
		out[--n] = '\0';
	return out;
}

const struct gt_command gt_cmd_render = {
	.name = "render",
	.args = "TRACE...|FILE.gtx",
	.summary = "an SVG timeline of a viewport, optionally with the critical path",
	.opts = render_opts,
	.run = run_render,
};
