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

enum { OPT_REPORT = OPT_COMMAND_BASE, OPT_BY };

static const struct gt_opt stats_opts[] = {
	{"report", 0, "NAME", OPT_REPORT, "kernels (default): per device-span name, count, total, mean, median, p95, min, max, stddev, share of GPU busy time"},
	{"by", 0, "KEY", OPT_BY, "kernels: also by stream or rank (a key column first)"},
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

static int run_stats(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	c.reports_ok = true;
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id, by = GT_STATS_BY_NAME, status;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		if (id == OPT_REPORT) {
			if (strcmp(arg, "kernels"))
				return gt_usage_error(cmd, "unknown report '%s' (kernels)", arg);
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
	gt_kernel_stats s;
	gt_error err = {0};
	char label[600];
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
