/* gputrace stats: the summary tables users reach for first (stats/stats.h,
 * the man page's STATS section). One load and one scope for every report
 * asked for; one report is one table in every format, several are one
 * JSON object or one text report. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "load.h"
#include "output.h"
#include "report.h"
#include "stats_tables.h"

enum { OPT_REPORT = OPT_COMMAND_BASE, OPT_BY, OPT_GROUP, OPT_STEP, OPT_ROWS, OPT_TOP, OPT_KERNEL_WAIT, OPT_STATS_COLLECTIVE };

enum report { R_KERNELS = 0, R_OPS, R_RUNTIME, R_GPU_TIME, R_OVERLAP, R_LAUNCHES, R_IDLE, R_COUNT };
static const char *const report_names[R_COUNT] = {"kernels", "ops", "runtime", "gpu-time", "overlap", "launches", "idle"};
static const char report_list[] = "kernels, ops, runtime, gpu-time, overlap, launches, idle, all";
/* the reports that read device spans */
static bool needs_gpu(int r)
{
	return r != R_OPS && r != R_RUNTIME;
}

static const struct gt_opt stats_opts[] = {
	{"report", 0, "LIST", OPT_REPORT, "kernels (default), ops, runtime, gpu-time, overlap, launches, idle, or all; a comma-separated list: one JSON object or one text report"},
	{"step", 0, "GLOB", OPT_STEP, "per step: the windows of critical-path --step (a kernel goes with the step that launched it)"},
	{"by", 0, "KEY", OPT_BY, "kernels: also by stream, rank or step (step alone: --step 'ProfilerStep#*')"},
	{"group", 0, "class", OPT_GROUP, "kernels: per device class (compute, communication, memcpy, memset) instead of per name"},
	{"rows", 0, NULL, OPT_ROWS, "launches: one row per launch (latency, the queue it joins) instead of the summary"},
	{"top", 0, "N", OPT_TOP, "kernels, ops, runtime: the N largest rows of each step (default: all; a text or Markdown report on stdout: 20)"},
	{"kernel-wait", 0, "NS", OPT_KERNEL_WAIT, "idle: a gap shorter than NS ns that the host did not cause is kernel wait (default 30, as HTA)"},
	{"collective-name", 0, "REGEX", OPT_STATS_COLLECTIVE, "kernels whose name matches REGEX are communication too"},
	GT_OPT_FORMAT_REPORTS, GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION, GT_OPT_STRICT,
	GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

struct stats_run {
	struct gt_common c;
	bool want[R_COUNT];
	int nwant;
	int by;
	bool group_class, rows;
	unsigned long long top;
	bool top_given;
	int64_t kernel_wait_ns;
	gt_stats_options opt;
};

static int parse_reports(const struct gt_command *cmd, struct stats_run *r, const char *arg)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k = -1;
		for (int i = 0; i < R_COUNT; i++)
			if (!strcmp(tok, report_names[i]))
				k = i;
		if (!strcmp(tok, "all")) {
			for (int i = 0; i < R_COUNT; i++)
				r->want[i] = true;
			continue;
		}
		if (k < 0)
			return gt_usage_error(cmd, "unknown report '%s' (%s)", tok, report_list);
		r->want[k] = true;
	}
	return 0;
}

/* Keeps the first top rows of each window (rows are by window, largest first). */
static uint32_t keep_top(void *rows, uint32_t count, size_t size, unsigned long long top)
{
	if (!top)
		return count;
	uint32_t kept = 0, in_window = 0;
	for (uint32_t i = 0; i < count; i++) {
		const char *row = (const char *)rows + (size_t)i * size;
		uint32_t w = *(const uint32_t *)row;
		in_window = i && w == *(const uint32_t *)((const char *)rows + (size_t)(i - 1) * size) ? in_window + 1 : 0;
		if (in_window < top)
			memmove((char *)rows + (size_t)kept++ * size, row, size);
	}
	return kept;
}

/* Every report asked for, computed and written; the tables live until the
 * last is written. */
struct results {
	gt_kernel_stats kernels;
	gt_call_stats calls[2];
	gt_gpu_times gpu;
	gt_launch_stats launches;
	gt_idle_stats idle;
	stats_table tables[R_COUNT];
	int order[R_COUNT], ntables;
};

static void results_free(struct results *res)
{
	gt_kernel_stats_free(&res->kernels);
	gt_call_stats_free(&res->calls[0]);
	gt_call_stats_free(&res->calls[1]);
	gt_gpu_times_free(&res->gpu);
	gt_launch_stats_free(&res->launches);
	gt_idle_stats_free(&res->idle);
	for (int i = 0; i < res->ntables; i++)
		stats_table_free(&res->tables[i]);
}

/* One report's computation, on a thread of its own. */
struct job {
	const struct stats_run *r;
	const gt_stats_scope *s;
	struct results *res;
	int report;
	int rc;
	gt_error err;
};

static void *compute(void *arg)
{
	struct job *j = arg;
	struct results *res = j->res;
	const gt_stats_scope *s = j->s;
	switch (j->report) {
	case R_KERNELS:
		j->rc = gt_stats_kernels(s, j->r->by, j->r->group_class, &res->kernels, &j->err);
		break;
	case R_OPS:
	case R_RUNTIME:
		j->rc = gt_stats_calls(s, j->report == R_RUNTIME ? GT_STATS_RUNTIME : GT_STATS_OPS,
				       &res->calls[j->report == R_RUNTIME], &j->err);
		break;
	case R_GPU_TIME: /* overlap reads the same rows */
		j->rc = gt_stats_gpu_time(s, &res->gpu, &j->err);
		break;
	case R_LAUNCHES:
		j->rc = gt_stats_launches(s, &res->launches, &j->err);
		break;
	case R_IDLE:
		j->rc = gt_stats_idle(s, j->r->kernel_wait_ns, &res->idle, &j->err);
		break;
	}
	return NULL;
}

/* A computed report as a table (its rows cut to --top); 1 when a sum
 * overflowed, -1 out of memory. */
static int tabulate(const struct stats_run *r, const gt_stats_scope *s, int report, struct results *res)
{
	bool brief = r->c.report >= 0;
	stats_table *st = &res->tables[res->ntables];
	int rc = 0;
	uint32_t total;
	bool overflow = false;
	switch (report) {
	case R_KERNELS:
		total = res->kernels.count;
		res->kernels.count = keep_top(res->kernels.rows, res->kernels.count, sizeof *res->kernels.rows, r->top);
		rc = stats_table_kernels(st, s, &res->kernels, r->by, r->group_class, brief);
		if (rc == 0)
			stats_table_note_top(st, res->kernels.count, total);
		overflow = res->kernels.overflow;
		break;
	case R_OPS:
	case R_RUNTIME: {
		gt_call_stats *c = &res->calls[report == R_RUNTIME];
		total = c->count;
		c->count = keep_top(c->rows, c->count, sizeof *c->rows, r->top);
		rc = stats_table_calls(st, s, c, report == R_RUNTIME ? GT_STATS_RUNTIME : GT_STATS_OPS, brief);
		if (rc == 0)
			stats_table_note_top(st, c->count, total);
		overflow = c->overflow;
		break;
	}
	case R_GPU_TIME:
		rc = stats_table_gpu_time(st, s, &res->gpu, brief);
		break;
	case R_OVERLAP:
		rc = stats_table_overlap(st, s, &res->gpu);
		break;
	case R_LAUNCHES:
		rc = r->rows ? stats_table_launch_rows(st, s, &res->launches) : stats_table_launches(st, s, &res->launches, brief);
		overflow = res->launches.overflow;
		break;
	case R_IDLE:
		rc = stats_table_idle(st, s, &res->idle, r->kernel_wait_ns, brief);
		overflow = res->idle.overflow;
		break;
	}
	if (rc < 0)
		return -1;
	if (overflow)
		gt_notice(&r->c, "%s: a sum passed 2^63-1 ns and was saturated", report_names[report]);
	res->order[res->ntables++] = report;
	return overflow ? 1 : 0;
}

/* Every report asked for: computed side by side (they only read the
 * model and the scope), then tabulated in order. */
static int run_reports(const struct stats_run *r, const gt_stats_scope *s, struct results *res, const char *input,
		       bool *overflow)
{
	struct job jobs[R_COUNT];
	unsigned k = 0;
	for (int i = 0; i < R_COUNT; i++) {
		bool want = r->want[i] || (i == R_GPU_TIME && r->want[R_OVERLAP]);
		if (want && !(needs_gpu(i) && !s->device_spans) && i != R_OVERLAP)
			jobs[k++] = (struct job){r, s, res, i, 0, {0}};
	}
	unsigned threads = gt_thread_count(r->c.threads, k ? k : 1);
	for (unsigned done = 0; done < k; done += threads)
		gt_run_jobs(compute, jobs + done, sizeof *jobs, k - done < threads ? k - done : threads);
	for (unsigned i = 0; i < k; i++)
		if (jobs[i].rc < 0)
			return gt_report_input(input, &jobs[i].err);
	for (int i = 0; i < R_COUNT; i++) {
		if (!r->want[i] || (needs_gpu(i) && !s->device_spans))
			continue;
		int t = tabulate(r, s, i, res);
		if (t < 0) {
			fprintf(stderr, "gputrace: out of memory for the %s report\n", report_names[i]);
			return GT_EINPUT;
		}
		*overflow |= t > 0;
	}
	return 0;
}

/* One table as itself; several as one JSON object of tables, or one
 * report with a table after another. */
static int write_all(const struct gt_common *c, struct results *res)
{
	if (res->ntables == 1)
		return gt_cli_write_table(c, &res->tables[0].t);
	gt_outfile out;
	gt_error err = {0};
	if (gt_outfile_open(&out, c->output, false, &err) < 0)
		return gt_report(&err);
	int rc = 0;
	if (c->report < 0)
		fputc('{', out.fp);
	for (int i = 0; rc == 0 && i < res->ntables; i++) {
		const gt_table *t = &res->tables[i].t;
		if (c->report >= 0) {
			if (i)
				fputc('\n', out.fp);
			rc = gt_table_report_write(out.fp, t, c->report) < 0
				     ? gt_fail(&err, GT_EINPUT, "out of memory writing the report")
				     : 0;
		} else {
			fprintf(out.fp, "%s\"%s\":", i ? "," : "", t->name);
			rc = gt_table_write(t, GT_OUT_JSON, out.fp, &err);
		}
	}
	if (rc == 0 && c->report < 0)
		fputs("}\n", out.fp);
	if (rc < 0) {
		gt_outfile_abort(&out);
		return gt_report(&err);
	}
	return gt_outfile_commit(&out, &err) < 0 ? gt_report(&err) : 0;
}

/* -1 to go on, else the status to exit with. */
static int parse(const struct gt_command *cmd, int argc, char **argv, struct stats_run *r, struct gt_opt_state *st)
{
	const char *arg;
	int id, status;
	gt_opt_begin(st, cmd, argc, argv);
	while ((id = gt_opt_next(st, &arg)) > 0) {
		if (id == OPT_REPORT) {
			if ((status = parse_reports(cmd, r, arg)) != 0)
				return status;
		} else if (id == OPT_STEP) {
			r->opt.step_glob = arg;
		} else if (id == OPT_STATS_COLLECTIVE) {
			r->opt.collective_regex = arg;
		} else if (id == OPT_BY) {
			if (strcmp(arg, "name") && strcmp(arg, "stream") && strcmp(arg, "rank") && strcmp(arg, "step"))
				return gt_usage_error(cmd, "option '--by' is name, stream, rank or step, not '%s'", arg);
			r->by = !strcmp(arg, "stream") ? GT_STATS_BY_STREAM : !strcmp(arg, "rank") ? GT_STATS_BY_RANK : GT_STATS_BY_NAME;
			if (!strcmp(arg, "step") && !r->opt.step_glob)
				r->opt.step_glob = "ProfilerStep#*";
		} else if (id == OPT_GROUP) {
			if (strcmp(arg, "class"))
				return gt_usage_error(cmd, "option '--group' is class, not '%s'", arg);
			r->group_class = true;
		} else if (id == OPT_ROWS) {
			r->rows = true;
		} else if (id == OPT_TOP) {
			if (gt_parse_u64(cmd, "top", arg, &r->top) < 0)
				return GT_EUSAGE;
			r->top_given = true;
		} else if (id == OPT_KERNEL_WAIT) {
			unsigned long long v;
			if (gt_parse_u64(cmd, "kernel-wait", arg, &v) < 0 || v > INT64_MAX)
				return GT_EUSAGE;
			r->kernel_wait_ns = (int64_t)v;
		} else if (!gt_common_or_exit(&r->c, cmd, id, arg, &status)) {
			return status;
		}
	}
	if (id < 0)
		return GT_EUSAGE;
	for (int i = 0; i < R_COUNT; i++)
		r->nwant += r->want[i];
	if (!r->nwant)
		r->want[R_KERNELS] = true, r->nwant = 1;
	gt_common_report_default(&r->c);
	if (!r->top_given && r->c.report >= 0 && !r->c.output)
		r->top = 20;
	if ((r->by != GT_STATS_BY_NAME || r->group_class) && !r->want[R_KERNELS])
		return gt_usage_error(cmd, "--by and --group belong to the kernels report");
	if (r->rows && !r->want[R_LAUNCHES])
		return gt_usage_error(cmd, "--rows belongs to the launches report");
	if (r->nwant > 1 && r->c.report < 0 && r->c.format != GT_OUT_JSON)
		return gt_usage_error(cmd, "several reports are one JSON object or one text report: a table format (-f csv, ndjson, arrow) takes one");
	gt_operand_stdin(st);
	if (st->noperands < 1)
		return gt_usage_error(cmd, "'stats' takes a TRACE (several files or a directory: one job)");
	return -1;
}

static int run_stats(const struct gt_command *cmd, int argc, char **argv)
{
	struct stats_run r = {.kernel_wait_ns = 30};
	gt_common_init(&r.c);
	r.c.reports_ok = true;
	struct gt_opt_state st;
	int rc = parse(cmd, argc, argv, &r, &st);
	if (rc >= 0)
		return rc;
	r.opt.threads = r.c.threads;
	gt_model m;
	if ((rc = gt_cli_load_many(&r.c, st.operands, st.noperands, &m)) != 0)
		return rc;
	gt_error err = {0};
	gt_stats_scope s;
	char label[600];
	const char *input = gt_input_label(st.operands, st.noperands, label, sizeof label);
	if (gt_stats_scope_init(&s, &m, &r.opt, &err) < 0) {
		rc = err.status == GT_EUSAGE ? gt_usage_error(cmd, "%s", err.msg) : gt_report_input(input, &err);
		gt_stats_scope_free(&s);
		gt_model_free(&m);
		return rc;
	}
	if (!s.device_spans) {
		int gpu = -1, named = 0;
		for (int i = R_COUNT - 1; i >= 0; i--)
			if (r.want[i] && needs_gpu(i))
				gpu = i, named++;
		bool cpu = r.want[R_OPS] || r.want[R_RUNTIME];
		const char *where = s.steps.count ? " in the steps" : "";
		if (gpu >= 0 && !cpu) {
			char need[64];
			snprintf(need, sizeof need, named == 1 ? "the %s report needs them" : "the GPU reports need them",
				 report_names[gpu]);
			fprintf(stderr, "gputrace: %s: no device spans%s (kernel, gpu_memcpy, gpu_memset, memcpy, memset): %s\n",
				input, where, need);
			gt_stats_scope_free(&s);
			gt_model_free(&m);
			return GT_EINPUT;
		}
		if (gpu >= 0)
			gt_notice(&r.c, "%s: no device spans%s: only the CPU reports (ops, runtime)", input, where);
	}
	struct results res;
	memset(&res, 0, sizeof res);
	bool overflow = false;
	rc = run_reports(&r, &s, &res, input, &overflow);
	if (rc == 0)
		rc = write_all(&r.c, &res);
	if (rc == 0 && r.c.strict && overflow)
		rc = GT_EINCOMPLETE;
	results_free(&res);
	gt_stats_scope_free(&s);
	gt_model_free(&m);
	return rc;
}

const struct gt_command gt_cmd_stats = {
	.name = "stats",
	.args = "TRACE...",
	.summary = "summary tables: kernels, ops, runtime calls, GPU time, communication overlap, launches, idle; per step with --step",
	.opts = stats_opts,
	.run = run_stats,
};
