/* gputrace stats: the summary tables users reach for first (stats/stats.h).
 * One report per run, one table in every format. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "load.h"
#include "output.h"
#include "stats/stats.h"

enum { OPT_REPORT = OPT_COMMAND_BASE, OPT_BY, OPT_STATS_COLLECTIVE };

static const struct gt_opt stats_opts[] = {
	{"report", 0, "NAME", OPT_REPORT, "kernels (default: per device-span name, count, total, mean, median, p95, min, max, stddev, share of GPU busy time) or gpu-time (per GPU, its wall as compute, communication, memcpy, memset and idle, overlapping streams counted once)"},
	{"by", 0, "KEY", OPT_BY, "kernels: also by stream or rank (a key column first)"},
	{"collective-name", 0, "REGEX", OPT_STATS_COLLECTIVE, "gpu-time: kernels whose name matches REGEX are communication too"},
	GT_OPT_FORMAT_REPORTS, GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION, GT_OPT_STRICT,
	GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

struct rows {
	const gt_model *m;
	const gt_kernel_stats *s;
	double *share;
	char buf[160];
};

static const char *row_name(const void *ctx, uint64_t row)
{
	const struct rows *r = ctx;
	return gt_model_str(r->m, r->s->rows[row].name);
}

static const char *row_stream(const void *ctx, uint64_t row)
{
	struct rows *r = (struct rows *)ctx;
	const gt_track *t = &r->m->tracks[r->s->rows[row].key];
	const gt_id *pid = &r->m->processes[t->process].pid;
	char p[64], q[64];
	if (pid->is_str)
		snprintf(p, sizeof p, "%s", gt_model_str(r->m, pid->str));
	else
		snprintf(p, sizeof p, "%" PRId64, pid->num);
	if (t->tid.is_str)
		snprintf(q, sizeof q, "%s", gt_model_str(r->m, t->tid.str));
	else
		snprintf(q, sizeof q, "%" PRId64, t->tid.num);
	const gt_rank_part *rp = gt_model_process_rank(r->m, t->process);
	if (rp)
		snprintf(r->buf, sizeof r->buf, "rank %" PRId64 ":%s/%s", rp->rank, p, q);
	else
		snprintf(r->buf, sizeof r->buf, "%s/%s", p, q);
	return r->buf;
}

static int64_t row_rank(const void *ctx, uint64_t row)
{
	const struct rows *r = ctx;
	return r->m->rank_count ? r->m->ranks[r->s->rows[row].key].rank : 0;
}

static int write_kernels(const struct gt_common *c, const gt_model *m, const gt_kernel_stats *s, int by)
{
	struct rows r = {m, s, malloc((s->count ? s->count : 1) * sizeof(double)), {0}};
	if (!r.share) {
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	for (uint32_t i = 0; i < s->count; i++) /* six decimals, as the documents round */
		r.share[i] = s->busy_ns > 0 ? (double)(((unsigned __int128)s->rows[i].total_ns * 2000000u /
							(uint64_t)s->busy_ns + 1) / 2) / 1e6
					    : 0;
	const gt_kernel_stat *k0 = s->rows;
	size_t sz = sizeof *k0;
	static const gt_kernel_stat none;
	if (!k0)
		k0 = &none, sz = 0;
	gt_column cols[16];
	size_t n = 0;
	if (by == GT_STATS_BY_STREAM)
		cols[n++] = (gt_column){.name = "stream", .type = GT_COL_STR, .get_str = row_stream, .get_ctx = &r};
	else if (by == GT_STATS_BY_RANK)
		cols[n++] = (gt_column){.name = "rank", .type = GT_COL_I64, .get_i64 = row_rank, .get_ctx = &r};
	cols[n++] = (gt_column){.name = "name", .type = GT_COL_STR, .get_str = row_name, .get_ctx = &r};
	cols[n++] = (gt_column){.name = "count", .type = GT_COL_U64, .data = &k0->count, .stride = sz};
#define NS(label, field) \
	cols[n++] = (gt_column){.name = label "_us", .arrow_name = label "_ns", .type = GT_COL_NS_US, .data = &k0->field, .stride = sz}
	NS("total", total_ns);
	NS("mean", mean_ns);
	NS("median", median_ns);
	NS("p95", p95_ns);
	NS("min", min_ns);
	NS("max", max_ns);
	NS("stddev", stddev_ns);
#undef NS
	cols[n++] = (gt_column){.name = "share", .type = GT_COL_F64, .data = r.share};
	char busy[32], spans[32];
	snprintf(busy, sizeof busy, "%" PRId64, s->busy_ns);
	snprintf(spans, sizeof spans, "%" PRIu64, s->device_spans);
	const char *mk[5] = {"gputrace_version", "source", "report", "gpu_busy_ns", "device_spans"};
	const char *mv[5] = {gt_program_version, m->source ? m->source : "", "kernels", busy, spans};
	gt_table t = {.name = "kernels", .cols = cols, .ncols = n, .nrows = s->count, .meta_keys = mk,
		      .meta_values = mv, .nmeta = 5};
	int rc = gt_cli_write_table(c, &t);
	free(r.share);
	return rc;
}

struct gpu_rows {
	const gt_model *m;
	const gt_gpu_times *t;
	double *share; /* per row, per class and idle: of the wall */
	char buf[64];
};

static const char *gpu_device(const void *ctx, uint64_t row)
{
	struct gpu_rows *g = (struct gpu_rows *)ctx;
	const gt_id *pid = &g->m->processes[g->t->rows[row].process].pid;
	if (pid->is_str)
		return gt_model_str(g->m, pid->str);
	snprintf(g->buf, sizeof g->buf, "%" PRId64, pid->num);
	return g->buf;
}

static int64_t gpu_rank(const void *ctx, uint64_t row)
{
	const struct gpu_rows *g = ctx;
	return gt_model_process_rank(g->m, g->t->rows[row].process)->rank;
}

static int64_t gpu_wall(const void *ctx, uint64_t row)
{
	const struct gpu_rows *g = ctx;
	return g->t->rows[row].end_ns - g->t->rows[row].begin_ns;
}

static int write_gpu_time(const struct gt_common *c, const gt_model *m, const gt_gpu_times *t)
{
	enum { PARTS = GT_GPU_CLASS_COUNT + 1 };
	struct gpu_rows g = {m, t, malloc(((size_t)t->count * PARTS + 1) * sizeof(double)), {0}};
	if (!g.share) {
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	for (uint32_t i = 0; i < t->count; i++) {
		int64_t wall = t->rows[i].end_ns - t->rows[i].begin_ns;
		for (int k = 0; k < PARTS; k++) {
			int64_t v = k < GT_GPU_CLASS_COUNT ? t->rows[i].class_ns[k] : t->rows[i].idle_ns;
			g.share[(size_t)i * PARTS + (size_t)k] =
				wall > 0 ? (double)(((unsigned __int128)v * 2000000u / (uint64_t)wall + 1) / 2) / 1e6 : 0;
		}
	}
	const gt_gpu_time *r0 = t->rows;
	size_t sz = sizeof *r0;
	static const char *const part[PARTS] = {"compute", "communication", "memcpy", "memset", "idle"};
	static const char *const us[PARTS] = {"compute_us", "communication_us", "memcpy_us", "memset_us", "idle_us"};
	static const char *const ns[PARTS] = {"compute_ns", "communication_ns", "memcpy_ns", "memset_ns", "idle_ns"};
	static const char *const sh[PARTS] = {"compute_share", "communication_share", "memcpy_share", "memset_share",
					     "idle_share"};
	(void)part;
	gt_column cols[24];
	size_t n = 0;
	if (m->rank_count)
		cols[n++] = (gt_column){.name = "rank", .type = GT_COL_I64, .get_i64 = gpu_rank, .get_ctx = &g};
	cols[n++] = (gt_column){.name = "device", .type = GT_COL_STR, .get_str = gpu_device, .get_ctx = &g};
	cols[n++] = (gt_column){.name = "wall_us", .arrow_name = "wall_ns", .type = GT_COL_NS_US, .get_i64 = gpu_wall,
				.get_ctx = &g};
	for (int k = 0; k < PARTS; k++)
		cols[n++] = (gt_column){.name = us[k], .arrow_name = ns[k], .type = GT_COL_NS_US,
					.data = k < GT_GPU_CLASS_COUNT ? (const void *)&r0->class_ns[k] : (const void *)&r0->idle_ns,
					.stride = sz};
	for (int k = 0; k < PARTS; k++)
		cols[n++] = (gt_column){.name = sh[k], .type = GT_COL_F64, .data = g.share + k, .stride = PARTS * sizeof(double)};
	const char *mk[3] = {"gputrace_version", "source", "report"};
	const char *mv[3] = {gt_program_version, m->source ? m->source : "", "gpu-time"};
	gt_table tb = {.name = "gpu_time", .cols = cols, .ncols = n, .nrows = t->count, .meta_keys = mk,
		       .meta_values = mv, .nmeta = 3};
	int rc = gt_cli_write_table(c, &tb);
	free(g.share);
	return rc;
}

static int run_stats(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	c.reports_ok = true;
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id, by = GT_STATS_BY_NAME, status;
	bool gpu_time = false;
	const char *collective = NULL;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		if (id == OPT_REPORT) {
			if (strcmp(arg, "kernels") && strcmp(arg, "gpu-time"))
				return gt_usage_error(cmd, "unknown report '%s' (kernels, gpu-time)", arg);
			gpu_time = arg[0] == 'g';
		} else if (id == OPT_STATS_COLLECTIVE) {
			collective = arg;
		} else if (id == OPT_BY) {
			if (strcmp(arg, "name") && strcmp(arg, "stream") && strcmp(arg, "rank"))
				return gt_usage_error(cmd, "option '--by' is name, stream or rank, not '%s'", arg);
			by = arg[0] == 's' ? GT_STATS_BY_STREAM : arg[0] == 'r' ? GT_STATS_BY_RANK : GT_STATS_BY_NAME;
		} else if (!gt_common_or_exit(&c, cmd, id, arg, &status)) {
			return status;
		}
	}
	if (id < 0)
		return GT_EUSAGE;
	gt_common_report_default(&c);
	gt_operand_stdin(&st);
	if (st.noperands < 1)
		return gt_usage_error(cmd, "'stats' takes a TRACE (several files or a directory: one job)");
	gt_model m;
	int rc = gt_cli_load_many(&c, st.operands, st.noperands, &m);
	if (rc)
		return rc;
	gt_error err = {0};
	char label[600];
	if (gpu_time) {
		if (by != GT_STATS_BY_NAME) {
			gt_model_free(&m);
			return gt_usage_error(cmd, "--by belongs to the kernels report");
		}
		gt_gpu_times t;
		if (gt_stats_gpu_time(&m, collective, &t, &err) < 0)
			rc = err.status == GT_EUSAGE ? gt_usage_error(cmd, "%s", err.msg) : gt_report(&err);
		else if (!t.count)
			rc = (fprintf(stderr, "gputrace: %s: no device spans (kernel, gpu_memcpy, gpu_memset, memcpy, memset): "
					      "the gpu-time report needs them\n",
				      gt_input_label(st.operands, st.noperands, label, sizeof label)),
			      GT_EINPUT);
		else
			rc = write_gpu_time(&c, &m, &t);
		gt_gpu_times_free(&t);
		gt_model_free(&m);
		return rc;
	}
	gt_kernel_stats s;
	if (gt_stats_kernels(&m, by, &s, &err) < 0) {
		rc = gt_report(&err);
	} else if (!s.device_spans) {
		fprintf(stderr, "gputrace: %s: no device spans (kernel, gpu_memcpy, gpu_memset, memcpy, memset): the kernels report needs them\n",
			gt_input_label(st.operands, st.noperands, label, sizeof label));
		rc = GT_EINPUT;
	} else {
		if (s.overflow)
			gt_notice(&c, "a sum passed 2^63-1 ns and was saturated");
		rc = write_kernels(&c, &m, &s, by);
		if (rc == 0 && c.strict && s.overflow)
			rc = GT_EINCOMPLETE;
	}
	gt_kernel_stats_free(&s);
	gt_model_free(&m);
	return rc;
}

const struct gt_command gt_cmd_stats = {
	.name = "stats",
	.args = "TRACE...",
	.summary = "summary tables: kernels (per device-span name: count, total, mean, median, p95, min, max, stddev, share of GPU busy time)",
	.opts = stats_opts,
	.run = run_stats,
};
