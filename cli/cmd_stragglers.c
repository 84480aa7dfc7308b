/* gputrace stragglers: which rank held up each collective, by how much, and
 * what that cost the others (collective/collective.h). Reads traces (one job)
 * or the per-rank summaries of `gputrace collectives -f arrow`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_input.h"
#include "output.h"

enum { OPT_BY = OPT_COMMAND_BASE };

static const struct gt_opt strag_opts[] = {
	{"by", 0, "TABLE", OPT_BY, "collective (default: one row per matched collective), rank (the waiting each rank caused) or step (with --step: the rank that held up each step)"},
	GT_OPT_COLLECTIVE_NAME, GT_OPT_COLL_STEP, GT_OPT_FORMAT_REPORTS, GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS,
	GT_OPT_MAX_EXPANSION, GT_OPT_STRICT, GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static const gt_coll_set *the_set;

static const char *row_name(const void *ctx, uint64_t row)
{
	const gt_stragglers *st = ctx;
	return gt_strpool_get(&the_set->names, st->c[row].name);
}

static int write_by_collective(const struct gt_common *c, const gt_stragglers *st, const char *const *mk,
			       const char *const *mv, size_t nmeta)
{
	const gt_collective *c0 = st->c;
	size_t sz = sizeof *c0;
	static const int64_t zero;
	gt_column cols[] = {
		{.name = "step", .type = GT_COL_I64, .data = &c0->step, .stride = sz},
		{.name = "name", .type = GT_COL_STR, .get_str = row_name, .get_ctx = st},
		{.name = "seq", .type = GT_COL_U64, .data = &c0->seq, .stride = sz},
		{.name = "last_rank", .type = GT_COL_I64, .data = &c0->last_rank, .stride = sz},
		{.name = "last_entry_us", .arrow_name = "last_entry_ns", .type = GT_COL_NS_US,
		 .data = &c0->last_entry_ns, .stride = sz},
		{.name = "median_entry_us", .arrow_name = "median_entry_ns", .type = GT_COL_NS_US,
		 .data = &c0->median_entry_ns, .stride = sz},
		{.name = "late_us", .arrow_name = "late_ns", .type = GT_COL_NS_US, .data = &c0->late_ns, .stride = sz},
		{.name = "waited_us", .arrow_name = "waited_ns", .type = GT_COL_NS_US, .data = &c0->waited_ns, .stride = sz},
		{.name = "end_us", .arrow_name = "end_ns", .type = GT_COL_NS_US, .data = &c0->end_ns, .stride = sz},
	};
	if (!c0)
		for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
			if (!cols[i].get_str)
				cols[i].data = &zero, cols[i].stride = 0;
	gt_table t = {.name = "stragglers", .cols = cols, .ncols = sizeof cols / sizeof cols[0], .nrows = st->count,
		      .meta_keys = mk, .meta_values = mv, .nmeta = nmeta};
	return gt_cli_write_table(c, &t);
}

static int write_by_rank(const struct gt_common *c, const gt_stragglers *st, const char *const *mk,
			 const char *const *mv, size_t nmeta)
{
	const gt_rank_wait *r0 = st->ranks;
	size_t sz = sizeof *r0;
	gt_column cols[] = {
		{.name = "rank", .type = GT_COL_I64, .data = &r0->rank, .stride = sz},
		{.name = "collectives", .type = GT_COL_U64, .data = &r0->kernels, .stride = sz},
		{.name = "last", .type = GT_COL_U64, .data = &r0->last_count, .stride = sz},
		{.name = "late_us", .arrow_name = "late_ns", .type = GT_COL_NS_US, .data = &r0->late_ns, .stride = sz},
		{.name = "caused_wait_us", .arrow_name = "caused_wait_ns", .type = GT_COL_NS_US,
		 .data = &r0->caused_wait_ns, .stride = sz},
	};
	gt_table t = {.name = "ranks", .cols = cols, .ncols = sizeof cols / sizeof cols[0], .nrows = st->rank_count,
		      .meta_keys = mk, .meta_values = mv, .nmeta = nmeta};
	return gt_cli_write_table(c, &t);
}

static int write_by_step(const struct gt_common *c, const gt_stragglers *st, const char *const *mk,
			 const char *const *mv, size_t nmeta)
{
	gt_step_wait *w;
	uint64_t n;
	gt_error err = {0};
	if (gt_stragglers_by_step(st, &w, &n, &err) < 0)
		return gt_report(&err);
	size_t sz = sizeof *w;
	gt_column cols[] = {
		{.name = "step", .type = GT_COL_I64, .data = &w->step, .stride = sz},
		{.name = "collectives", .type = GT_COL_U64, .data = &w->collectives, .stride = sz},
		{.name = "rank", .type = GT_COL_I64, .data = &w->rank, .stride = sz},
		{.name = "late_us", .arrow_name = "late_ns", .type = GT_COL_NS_US, .data = &w->late_ns, .stride = sz},
		{.name = "caused_wait_us", .arrow_name = "caused_wait_ns", .type = GT_COL_NS_US,
		 .data = &w->caused_wait_ns, .stride = sz},
		{.name = "waited_us", .arrow_name = "waited_ns", .type = GT_COL_NS_US, .data = &w->waited_ns, .stride = sz},
	};
	gt_table t = {.name = "steps", .cols = cols, .ncols = sizeof cols / sizeof cols[0], .nrows = n,
		      .meta_keys = mk, .meta_values = mv, .nmeta = nmeta};
	int rc = gt_cli_write_table(c, &t);
	free(w);
	return rc;
}

static int run_stragglers(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	c.reports_ok = true;
	struct gt_opt_state opts;
	gt_opt_begin(&opts, cmd, argc, argv);
	gt_coll_options o = {0};
	int by = 0; /* collective, rank, step */
	const char *arg;
	int id, status;
	while ((id = gt_opt_next(&opts, &arg)) > 0) {
		if (id == OPT_COLLECTIVE_NAME)
			o.name_regex = arg;
		else if (id == OPT_COLL_STEP)
			o.step_glob = arg;
		else if (id == OPT_BY) {
			if (strcmp(arg, "collective") && strcmp(arg, "rank") && strcmp(arg, "step"))
				return gt_usage_error(cmd, "option '--by' is collective, rank or step, not '%s'", arg);
			by = arg[0] == 'r' ? 1 : arg[0] == 's' ? 2 : 0;
		} else if (!gt_common_or_exit(&c, cmd, id, arg, &status))
			return status;
	}
	if (id < 0)
		return GT_EUSAGE;
	gt_common_report_default(&c);
	if (opts.noperands < 1)
		return gt_usage_error(cmd, "'stragglers' takes TRACE files, a directory or collectives summaries (.arrow)");
	gt_coll_set s;
	int rc = gt_cli_coll_load(&c, opts.operands, opts.noperands, &o, &s);
	if (rc)
		return rc;
	gt_stragglers st;
	gt_error err = {0};
	if (gt_stragglers_find(&s, &st, &err) < 0) {
		gt_coll_set_free(&s);
		return gt_report(&err);
	}
	the_set = &s;
	char unmatched[24], ranks[24];
	snprintf(unmatched, sizeof unmatched, "%llu", (unsigned long long)st.unmatched_collectives);
	snprintf(ranks, sizeof ranks, "%u", st.rank_count);
	const char *mk[4] = {"gputrace_version", "ranks", "unmatched_collectives", NULL};
	const char *mv[4] = {gt_program_version, ranks, unmatched, NULL};
	if (st.rank_count < 2)
		gt_notice(&c, "only %u rank: nothing to match across", st.rank_count);
	if (st.unmatched_collectives)
		gt_notice(&c, "unmatched_collectives: %llu communication kernels are not on every rank the same number of times; they are left out",
			  (unsigned long long)st.unmatched_collectives);
	if (st.overflow)
		gt_notice(&c, "a waiting sum passed 2^63-1 ns and was saturated");
	rc = by == 1 ? write_by_rank(&c, &st, mk, mv, 3)
	   : by == 2 ? write_by_step(&c, &st, mk, mv, 3)
		     : write_by_collective(&c, &st, mk, mv, 3);
	if (rc == 0 && c.strict && (st.unmatched_collectives || st.overflow))
		rc = GT_EINCOMPLETE;
	gt_stragglers_free(&st);
	gt_coll_set_free(&s);
	return rc;
}

const struct gt_command gt_cmd_stragglers = {
	.name = "stragglers",
	.args = "TRACE...|SUMMARY.arrow...",
	.summary = "per collective across ranks: the last rank to enter, its lateness against the median entry, the others' waiting",
	.opts = strag_opts,
	.run = run_stragglers,
};
