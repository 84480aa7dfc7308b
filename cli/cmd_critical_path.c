/* gputrace critical-path: by default the causal critical path (what bounds
 * each window's wall time; causal/causal.h), or with --model forest the
 * seed's duration-weighted path over the parent forest. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_open.h"
#include "causal/causal.h"
#include "cl/cl.h"
#include "forest/forest.h"
#include "cli.h"
#include "causal_edges.h"
#include "critpath_causal.h"
#include "critpath_forest.h"
#include "critpath_overlay.h"
#include "load.h"
#include "report.h"
#include "write/write.h"
#include "stages.h"
#include "viewport.h"

enum {
	OPT_FOREST = OPT_COMMAND_BASE, OPT_MAX_PATH, OPT_MAX_ROWS, OPT_ROWS, OPT_MODEL, OPT_WINDOW, OPT_STEP,
	OPT_WAIT_NAME, OPT_BY, OPT_TABLE, OPT_OVERLAY, OPT_PATH, OPT_TOP, OPT_COLLECTIVE_NAME,
};

static const struct gt_opt cp_opts[] = {
	{"model", 0, "MODEL", OPT_MODEL, "causal (default: what bounds the wall time) or forest (the parent-forest path)"},
	{"window", 0, "A:B", OPT_WINDOW, "causal: analyse the window A:B, relative to the first span, or @A:B absolute (as query --time)"},
	{"step", 0, "GLOB", OPT_STEP, "causal: one window per span matching GLOB, e.g. 'ProfilerStep#*'"},
	{"wait-name", 0, "REGEX", OPT_WAIT_NAME, "causal: also treat spans whose name matches REGEX as blocking waits (repeatable)"},
	{"by", 0, "KEY", OPT_BY, "causal: breakdown of work by cat (default) or name"},
	{"collective-name", 0, "REGEX", OPT_COLLECTIVE_NAME,
	 "causal: kernels whose name matches REGEX are communication too (beside nccl, rccl, hccl)"},
	{"table", 0, "TABLE", OPT_TABLE, "causal, table formats: path (default), breakdown, classes, windows or rows"},
	{"path", 0, NULL, OPT_PATH, "causal, JSON: also each window's path, hop by hop"},
	{"top", 0, "N", OPT_TOP, "causal, JSON: breakdown entries per window, the rest summed as one (default 10; 0: all)"},
	{"overlay", 0, "FILE", OPT_OVERLAY, "causal: also write the trace with the path marked, for Perfetto UI (.json, .gz, .zst)"},
	GT_OPT_EDGES,
	{"rows", 0, NULL, OPT_ROWS, "also the per-span (causal) or per-row (forest) table; in table formats instead of the path"},
	{"forest", 0, "FILE", OPT_FOREST, "forest: read the forest from a CSV with header 'parent,duration' instead of a trace"},
	{"max-path-length", 0, "N", OPT_MAX_PATH, "forest: mark at most the first N rows of the path from its root"},
	{"max-rows-per-pass", 0, "N", OPT_MAX_ROWS, "forest: split every device launch into pieces of at most N rows"},
	GT_OPT_DEVICE,
	{"format", 'f', "FMT", OPT_FORMAT,
	 "json (default; on a terminal text), text, markdown (causal: a report), ndjson, csv, arrow or arrow-stream"},
	GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION,
	GT_OPT_STRICT, GT_OPT_QUIET, GT_OPT_VERBOSE, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

enum { MAX_WAIT_NAMES = 64 };

struct cp_args {
	bool forest_model, with_rows, forest_only_option, table_given, with_path, top_given, format_given;
	int report; /* enum gt_report_kind */
	uint32_t top;
	const char *forest, *window, *step, *overlay, *overlay_trace, *collective_name;
	const char *wait_names[MAX_WAIT_NAMES];
	uint32_t wait_name_count;
	int by, table;
	gt_cp_options forest_opt;
	struct gt_causal_edges edges;
};

/* The command's own options; 1 handled, 0 not ours, -1 usage error. */
static int own_option(const struct gt_command *cmd, struct cp_args *a, int id, const char *arg)
{
	unsigned long long v;
	int edge = gt_causal_edges_option(cmd, &a->edges, id, arg);
	if (edge)
		return edge;
	switch (id) {
	case OPT_FORMAT: /* the reports are this command's; the rest the shared option's */
		a->format_given = true;
		a->report = !strcmp(arg, "text") ? GT_REPORT_TEXT : !strcmp(arg, "markdown") ? GT_REPORT_MARKDOWN
											 : GT_REPORT_NONE;
		return a->report != GT_REPORT_NONE;
	case OPT_MODEL:
		if (strcmp(arg, "causal") && strcmp(arg, "forest"))
			return gt_usage_error(cmd, "option '--model' is causal or forest, not '%s'", arg), -1;
		a->forest_model = strcmp(arg, "forest") == 0;
		return 1;
	case OPT_FOREST:
		a->forest = arg;
		a->forest_model = true;
		return 1;
	case OPT_ROWS:
		a->with_rows = true;
		return 1;
	case OPT_WINDOW:
		a->window = arg;
		return 1;
	case OPT_STEP:
		a->step = arg;
		return 1;
	case OPT_OVERLAY:
		a->overlay = arg;
		return 1;
	case OPT_WAIT_NAME:
		if (a->wait_name_count == MAX_WAIT_NAMES)
			return gt_usage_error(cmd, "at most %d --wait-name options", MAX_WAIT_NAMES), -1;
		a->wait_names[a->wait_name_count++] = arg;
		return 1;
	case OPT_BY:
		if (strcmp(arg, "cat") && strcmp(arg, "name"))
			return gt_usage_error(cmd, "option '--by' is cat or name, not '%s'", arg), -1;
		a->by = strcmp(arg, "name") == 0 ? GT_CAUSAL_BY_NAME : GT_CAUSAL_BY_CAT;
		return 1;
	case OPT_TABLE:
		if ((a->table = gt_causal_table_parse(arg)) < 0)
			return gt_usage_error(cmd, "option '--table' is path, breakdown, classes, windows or rows, not '%s'", arg), -1;
		a->table_given = true;
		return 1;
	case OPT_PATH:
		a->with_path = true;
		return 1;
	case OPT_COLLECTIVE_NAME:
		a->collective_name = arg;
		return 1;
	case OPT_TOP:
		if (gt_parse_u64(cmd, "top", arg, &v) < 0)
			return -1;
		if (v > 0xffffffffull)
			return gt_usage_error(cmd, "option '--top' is at most 4294967295"), -1;
		a->top = (uint32_t)v;
		a->top_given = true;
		return 1;
	case OPT_MAX_PATH:
		if (gt_parse_u64(cmd, "max-path-length", arg, &v) < 0)
			return -1;
		if (v == 0 || v > 0xffffffffull)
			return gt_usage_error(cmd, "option '--max-path-length' is between 1 and 4294967295"), -1;
		a->forest_opt.max_path_length = (uint32_t)v;
		a->forest_only_option = true;
		return 1;
	case OPT_MAX_ROWS:
		if (gt_parse_u64(cmd, "max-rows-per-pass", arg, &v) < 0)
			return -1;
		if (v == 0)
			return gt_usage_error(cmd, "option '--max-rows-per-pass' is at least 1"), -1;
		a->forest_opt.max_rows_per_pass = v;
		a->forest_only_option = true;
		return 1;
	}
	return 0;
}

/* Options that belong to one model only, given with the other. */
static int check_model_options(const struct gt_command *cmd, const struct gt_common *c, const struct cp_args *a,
			       int noperands)
{
	if (a->report != GT_REPORT_NONE && (a->forest_model || a->table_given || a->with_rows || a->with_path ||
					     a->top_given))
		return gt_usage_error(cmd, "-f text and -f markdown report the causal model, without --table, --rows, "
					   "--path or --top");
	if (!a->forest_model && a->table_given && c->format == GT_OUT_JSON && a->report == GT_REPORT_NONE)
		return gt_usage_error(cmd, "--table chooses a table of a table format: give -f csv|ndjson|arrow");
	if (!a->forest_model && (a->with_path || a->top_given) && c->format != GT_OUT_JSON)
		return gt_usage_error(cmd, "--path and --top shape the JSON document; in table formats --table chooses");
	if (a->forest ? noperands != 0 : noperands < 1)
		return gt_usage_error(cmd, "'critical-path' takes a TRACE (several files or a directory: one job), or --forest FILE");
	if (a->forest_model && (a->window || a->step || a->wait_name_count || a->by || a->table_given || a->overlay ||
				a->with_path || a->top_given))
		return gt_usage_error(cmd, "--window, --step, --wait-name, --by, --table, --path, --top and --overlay belong to "
					   "the causal model");
	if (a->overlay && (!strcmp(a->overlay, "-") || !strcmp(a->overlay, "") || !strcmp(a->overlay_trace, "-")))
		return gt_usage_error(cmd, "--overlay needs a file to write and a trace file to read again (not stdin)");
	if (a->overlay && noperands > 1)
		return gt_usage_error(cmd, "--overlay marks one trace file, not a job of several");
	if (!a->forest_model && a->forest_only_option)
		return gt_usage_error(cmd, "--max-path-length and --max-rows-per-pass belong to --model forest");
	if (a->window && a->step)
		return gt_usage_error(cmd, "--window and --step cannot be combined");
	return 0;
}

/* Runs the causal analysis through dev (the host when NULL); -v tells each
 * device step's time end to end (the float's beside the others). */
static int causal_analyze(const struct gt_common *c, gt_causal_cl_engine *dev, const gt_model *m,
			  const gt_causal_options *o, gt_causal_result *r, uint64_t *kernel_ns, gt_error *err)
{
	*kernel_ns = 0;
	if (!dev)
		return gt_causal_analyze(m, o, NULL, r, err);
	int rc = gt_causal_analyze(m, o, &dev->engine, r, err);
	const gt_causal_cl_stats *s = &dev->stats;
	*kernel_ns = s->bind_ns + s->path_ns + s->float_ns;
	if (rc == 0)
		gt_verbose(c, "device steps: bind %.3f s (kernels %.3f), path %.3f s (kernels %.3f), float %.3f s "
			   "(kernels %.3f, beside the others)",
			   s->bind_wall_ns * 1e-9, s->bind_ns * 1e-9, s->path_wall_ns * 1e-9, s->path_ns * 1e-9,
			   s->float_wall_ns * 1e-9, s->float_ns * 1e-9);
	return rc;
}

/* The analysis on the device --device chooses, or on the host; *cl is the
 * device it ran on (NULL: the host), the caller's to close. */
static int analyze_on_device(const struct gt_common *c, const gt_model *m, const gt_causal_options *o,
			     struct gt_stages *st, gt_causal_result *r, gt_cl **cl, uint64_t *kernel_ns, gt_error *err)
{
	/* a named --device opens at the first device step: its driver starts
	 * while the host builds the first graphs */
	gt_cli_deferred_device later = {.c = c, .work = GT_WORK_CAUSAL_PATH, .spans = m->span_count};
	gt_causal_cl_engine dev;
	bool deferred = gt_cli_device_named(c);
	*cl = NULL;
	if (deferred) {
		gt_causal_cl_engine_defer(&dev, gt_cli_device_open_deferred, &later);
	} else {
		char chosen[512];
		if (gt_cli_device_open(c, GT_WORK_CAUSAL_PATH, m->span_count, cl, chosen, sizeof chosen, err) < 0)
			return -1;
		gt_device_notice(c, chosen);
		if (*cl)
			gt_causal_cl_engine_init(&dev, *cl);
	}
	gt_stages_mark(st, GT_STAGE_SETUP);
	int rc = causal_analyze(c, deferred || *cl ? &dev : NULL, m, o, r, kernel_ns, err);
	if (deferred) {
		/* an analysis with no device step (no window) still names its
		 * device, or fails as it would have at the start */
		if (rc == 0 && gt_causal_cl_engine_device(&dev, cl, err) < 0) {
			gt_causal_result_free(r);
			rc = -1;
		}
		*cl = dev.cl;
		if (*cl)
			gt_device_notice(c, later.chosen);
		gt_causal_cl_engine_fini(&dev);
	}
	return rc;
}

static int run_causal(const struct gt_command *cmd, const struct gt_common *c, const struct cp_args *a, struct gt_stages *st,
		      gt_model *m, const char *input)
{
	gt_causal_options o = {.step_glob = a->step, .wait_names = a->wait_names,
			       .wait_name_count = a->wait_name_count, .by = (uint8_t)a->by,
			       .rows = a->with_rows || a->table == GT_CAUSAL_TABLE_ROWS || a->overlay,
			       .threads = c->threads, .collective_name = a->collective_name};
	/* the hops are read by the path (--path, the path table), the reports
	 * and the overlay; the rest tells their count */
	o.hop_count_only = a->report == GT_REPORT_NONE && !a->overlay &&
			   (c->format == GT_OUT_JSON ? !a->with_path : a->table != GT_CAUSAL_TABLE_PATH);
	gt_causal_edges_apply(&a->edges, &o);
	if (a->window) {
		const char *why;
		if (gt_time_window_resolve(a->window, m->start_ns, &o.window_begin_ns, &o.window_end_ns, &why) < 0 ||
		    __builtin_sub_overflow(o.window_begin_ns, m->start_ns, &o.window_begin_ns) ||
		    __builtin_sub_overflow(o.window_end_ns, m->start_ns, &o.window_end_ns))
			return gt_usage_error(cmd, "--window '%s': %s", a->window, why);
		o.has_window = true;
	}
	gt_error err = {0};
	gt_cl *cl = NULL;
	gt_causal_result r;
	uint64_t kernel_ns;
	int rc = analyze_on_device(c, m, &o, st, &r, &cl, &kernel_ns, &err);
	char device[300];
	snprintf(device, sizeof device, "%s", cl ? gt_cl_device_name(cl) : "host");
	double took = gt_stages_mark(st, GT_STAGE_COMPUTE);
	if (rc == 0 && (double)kernel_ns * 1e-9 <= took) {
		st->s[GT_STAGE_KERNELS] += (double)kernel_ns * 1e-9; /* transfers stay in compute */
		st->s[GT_STAGE_COMPUTE] -= (double)kernel_ns * 1e-9;
	}
	if (rc < 0 && cl && err.cause == GT_CAUSE_DEVICE_MEMORY) {
		/* the same exact result, computed on the host */
		gt_notice(c, "%s; computing on the host instead", err.msg);
		memset(&err, 0, sizeof err);
		snprintf(device, sizeof device, "host");
		rc = causal_analyze(c, NULL, m, &o, &r, &kernel_ns, &err);
		gt_stages_mark(st, GT_STAGE_COMPUTE);
	}
	gt_cli_device_close_beside(cl);
	if (rc < 0)
		return err.status == GT_EINPUT ? gt_report_input(input, &err) : gt_report(&err);
	/* the overlay is written first and renamed into place last: a failure
	 * of either output leaves neither */
	gt_outfile ov = {0};
	rc = a->overlay ? gt_cli_causal_overlay(c, m, &r, a->overlay_trace, a->overlay, &ov) : 0;
	struct gt_causal_doc doc = {a->table, a->with_path, a->with_rows, a->top_given ? a->top : GT_CAUSAL_DEFAULT_TOP};
	if (rc == 0 && a->report != GT_REPORT_NONE)
		rc = gt_cli_causal_report(c, m, &r, device, input, a->step, a->report);
	else if (rc == 0)
		rc = gt_cli_causal_write(c, m, &r, device, &doc);
	if (a->overlay && rc == 0)
		rc = gt_cli_overlay_commit(&ov);
	else if (a->overlay)
		gt_outfile_abort(&ov);
	gt_stages_mark(st, GT_STAGE_OUTPUT);
	if (rc == 0)
		gt_stages_print(c, st, device);
	uint32_t flags = 0;
	for (uint32_t i = 0; i < r.window_count; i++)
		flags |= r.windows[i].flags & (GT_CAUSAL_CYCLE | GT_CAUSAL_OVERFLOW);
	gt_causal_result_free(&r);
	if (rc == 0 && flags && c->strict) {
		fprintf(stderr, "gputrace: the critical path is flagged (cycle or overflow) and --strict was given\n");
		rc = GT_EINCOMPLETE;
	}
	return rc;
}

static int run_critical_path(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	struct cp_args a = {0};
	a.report = GT_REPORT_NONE;
	gt_causal_edges_init(&a.edges);
	const char *arg;
	int id;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		int own = own_option(cmd, &a, id, arg);
		if (own < 0)
			return GT_EUSAGE;
		if (own)
			continue;
		int status;
		if (!gt_common_or_exit(&c, cmd, id, arg, &status))
			return status;
	}
	if (id == 0 && !a.forest)
		gt_operand_stdin(&st);
	a.overlay_trace = st.noperands ? st.operands[0] : "";
	/* a person at a terminal gets the report; pipes and files the JSON */
	if (!a.format_given && !c.output && !a.forest_model && !a.forest && !a.table_given && !a.with_rows &&
	    !a.with_path && !a.top_given && isatty(STDOUT_FILENO))
		a.report = GT_REPORT_TEXT;
	if (id < 0 || check_model_options(cmd, &c, &a, st.noperands) != 0)
		return GT_EUSAGE;
	struct gt_stages stages;
	gt_stages_begin(&stages);
	gt_cli_device_prefetch(&c, a.forest || a.forest_model ? GT_WORK_FOREST_PATH : GT_WORK_CAUSAL_PATH);
	if (a.forest)
		return gt_cli_forest_run(&c, NULL, a.forest, &a.forest_opt, a.with_rows, &stages);
	gt_model m;
	int rc = gt_cli_load_many(&c, st.operands, st.noperands, &m);
	if (rc)
		return rc;
	gt_stages_mark(&stages, GT_STAGE_LOAD);
	char label[600];
	rc = a.forest_model ? gt_cli_forest_run(&c, &m, NULL, &a.forest_opt, a.with_rows, &stages)
			    : run_causal(cmd, &c, &a, &stages, &m, gt_input_label(st.operands, st.noperands, label, sizeof label));
	gt_model_free(&m);
	return rc;
}

const struct gt_command gt_cmd_critical_path = {
	.name = "critical-path",
	.args = "TRACE... | --forest FILE",
	.summary = "what bounds the wall time (causal critical path), or the parent-forest path",
	.opts = cp_opts,
	.run = run_critical_path,
};
