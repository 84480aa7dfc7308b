/* gputrace spans: the span table, so anyone can check the model with jq. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "load.h"
#include "output.h"

static int64_t row_id(const void *ctx, uint64_t row)
{
	(void)ctx;
	return (int64_t)row;
}

static int64_t row_group(const void *ctx, uint64_t row)
{
	return ((const gt_model *)ctx)->spans[row].group;
}

static const gt_id *span_pid(const gt_model *m, uint64_t row)
{
	return &m->processes[m->tracks[m->spans[row].track].process].pid;
}

static const gt_id *span_tid(const gt_model *m, uint64_t row)
{
	const gt_track *t = &m->tracks[m->spans[row].track];
	/* async tracks have no thread: their tid column is the pid */
	return t->kind == GT_TRACK_THREAD ? &t->tid : &m->processes[t->process].pid;
}

static int64_t row_pid(const void *ctx, uint64_t row) { return span_pid(ctx, row)->num; }
static int64_t row_tid(const void *ctx, uint64_t row) { return span_tid(ctx, row)->num; }

/* Mixed pid/tid columns print as text: numbers in their decimal form. */
static _Thread_local char id_buf[2][32];
static const char *id_text(const gt_model *m, const gt_id *id, int slot)
{
	if (id->is_str)
		return gt_model_str(m, id->str);
	snprintf(id_buf[slot], sizeof id_buf[slot], "%lld", (long long)id->num);
	return id_buf[slot];
}
static const char *row_pid_str(const void *ctx, uint64_t row) { return id_text(ctx, span_pid(ctx, row), 0); }
static const char *row_tid_str(const void *ctx, uint64_t row) { return id_text(ctx, span_tid(ctx, row), 1); }

static int64_t row_rank(const void *ctx, uint64_t row)
{
	return gt_model_span_rank(ctx, (uint32_t)row)->rank;
}

static int64_t row_track(const void *ctx, uint64_t row)
{
	return ((const gt_model *)ctx)->spans[row].track;
}

static bool any_string_ids(const gt_model *m, bool tids)
{
	for (uint32_t t = 0; t < m->track_count; t++) {
		const gt_track *tr = &m->tracks[t];
		if (!tids && m->processes[tr->process].pid.is_str)
			return true;
		if (tids && tr->kind == GT_TRACK_THREAD && tr->tid.is_str)
			return true;
	}
	for (uint32_t p = 0; tids && p < m->process_count; p++)
		if (m->processes[p].pid.is_str)
			return true; /* async rows show the pid as tid */
	return false;
}

enum { OPT_FLOWS = OPT_COMMAND_BASE };

/* The flows as bound: a checker's way to the launches (src, dst: span ids). */
static int write_flows(const struct gt_common *c, const gt_model *m)
{
	const gt_flow *f0 = m->flows;
	static const gt_flow none;
	size_t stride = f0 ? sizeof *f0 : 0;
	if (!f0)
		f0 = &none;
	gt_column cols[] = {
		{.name = "id", .type = GT_COL_U32, .get_i64 = row_id},
		{.name = "src", .type = GT_COL_U32, .data = &f0->src, .stride = stride, .has_null = true, .null_u32 = GT_NONE},
		{.name = "dst", .type = GT_COL_U32, .data = &f0->dst, .stride = stride, .has_null = true, .null_u32 = GT_NONE},
		{.name = "name", .type = GT_COL_DICT, .data = &f0->name, .stride = stride, .dict_get = gt_cli_model_string,
		 .dict_ctx = m},
		{.name = "cat", .type = GT_COL_DICT, .data = &f0->cat, .stride = stride, .dict_get = gt_cli_model_string,
		 .dict_ctx = m},
		{.name = "flow_id", .type = GT_COL_U64, .data = &f0->id, .stride = stride},
		{.name = "src_ts_us", .arrow_name = "src_ts_ns", .type = GT_COL_NS_US, .data = &f0->src_ts_ns, .stride = stride},
		{.name = "dst_ts_us", .arrow_name = "dst_ts_ns", .type = GT_COL_NS_US, .data = &f0->dst_ts_ns, .stride = stride},
	};
	gt_table t = {.name = "flows", .cols = cols, .ncols = sizeof cols / sizeof cols[0], .nrows = m->flow_count};
	const char *mk[2], *mv[2];
	gt_cli_table_meta(&t, m->source, mk, mv);
	return gt_cli_write_table(c, &t);
}

static const struct gt_opt spans_opts[] = {
	{"flows", 0, NULL, OPT_FLOWS, "the flow table instead: id, src, dst (span ids), name, cat, flow_id, src_ts_us, dst_ts_us"},
	GT_OPT_FORMAT, GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION,
	GT_OPT_STRICT, GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static int run_spans(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	struct gt_opt_state st;
	int status, id;
	const char *arg;
	bool flows = false;
	gt_common_init(&c);
	gt_opt_begin(&st, cmd, argc, argv);
	while ((id = gt_opt_next(&st, &arg)) > 0)
		if (id == OPT_FLOWS)
			flows = true;
		else if (!gt_common_or_exit(&c, cmd, id, arg, &status))
			return status;
	if (id < 0)
		return GT_EUSAGE;
	gt_operand_stdin(&st);
	if (st.noperands < 1)
		return gt_usage_error(cmd, "'spans' takes a TRACE (several files or a directory: one job)");
	if (c.format == GT_OUT_JSON)
		c.format = GT_OUT_JSON; /* an array of span objects */
	gt_model m;
	int rc = gt_cli_load_many(&c, st.operands, st.noperands, &m);
	if (rc)
		return rc;
	if (flows) {
		rc = write_flows(&c, &m);
		gt_model_free(&m);
		return rc;
	}
	const gt_span *s0 = m.spans;
	size_t stride = sizeof(gt_span);
	bool pid_str = any_string_ids(&m, false), tid_str = any_string_ids(&m, true);
	gt_column cols[] = {
		{.name = "id", .type = GT_COL_U32, .get_i64 = row_id},
		{.name = "event", .type = GT_COL_U32, .data = s0 ? &s0->event : NULL, .stride = stride},
		{.name = "name", .type = GT_COL_DICT, .data = s0 ? &s0->name : NULL, .stride = stride,
		 .dict_get = gt_cli_model_string, .dict_ctx = &m},
		{.name = "cat", .type = GT_COL_DICT, .data = s0 ? &s0->cat : NULL, .stride = stride,
		 .dict_get = gt_cli_model_string, .dict_ctx = &m},
		{.name = "group", .type = GT_COL_U32, .get_i64 = row_group, .get_ctx = &m},
		{.name = "pid", .type = pid_str ? GT_COL_STR : GT_COL_I64,
		 .get_i64 = row_pid, .get_str = row_pid_str, .get_ctx = &m},
		{.name = "tid", .type = tid_str ? GT_COL_STR : GT_COL_I64,
		 .get_i64 = row_tid, .get_str = row_tid_str, .get_ctx = &m},
		{.name = "track", .type = GT_COL_U32, .get_i64 = row_track, .get_ctx = &m},
		{.name = "lane", .type = GT_COL_U32, .data = s0 ? &s0->lane : NULL, .stride = stride},
		{.name = "depth", .type = GT_COL_U32, .data = s0 ? &s0->depth : NULL, .stride = stride},
		{.name = "parent", .type = GT_COL_U32, .data = s0 ? &s0->parent : NULL, .stride = stride,
		 .has_null = true, .null_u32 = GT_NONE},
		{.name = "ts_us", .arrow_name = "ts_ns", .type = GT_COL_NS_US,
		 .data = s0 ? &s0->ts_ns : NULL, .stride = stride},
		{.name = "dur_us", .arrow_name = "dur_ns", .type = GT_COL_NS_US,
		 .data = s0 ? &s0->dur_ns : NULL, .stride = stride},
	};
	/* a job's spans say which rank's file they came from */
	gt_column cols_rank[sizeof cols / sizeof cols[0] + 1];
	size_t ncols = sizeof cols / sizeof cols[0];
	cols_rank[0] = (gt_column){.name = "rank", .type = GT_COL_I64, .get_i64 = row_rank, .get_ctx = &m};
	memcpy(cols_rank + 1, cols, sizeof cols);
	gt_column *use = m.rank_count ? cols_rank : cols;
	if (m.rank_count)
		ncols++;
	/* with no spans every column is empty; getters keep NULL data safe */
	if (!s0)
		for (size_t i = 0; i < ncols; i++)
			if (!use[i].get_i64 && !use[i].get_str)
				use[i].get_i64 = row_id;
	gt_table t = {.name = "spans", .cols = use, .ncols = ncols,
		      .nrows = m.span_count};
	const char *mk[2], *mv[2];
	gt_cli_table_meta(&t, m.source, mk, mv);
	rc = gt_cli_write_table(&c, &t);
	gt_model_free(&m);
	return rc;
}

const struct gt_command gt_cmd_spans = {
	.name = "spans",
	.args = "TRACE...",
	.summary = "print the span table: (rank,) id, event, name, cat, group, pid, tid, lane, depth, parent, ts_us, dur_us",
	.opts = spans_opts,
	.run = run_spans,
};
