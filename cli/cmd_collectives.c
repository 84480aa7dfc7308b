/* gputrace collectives: every communication kernel of a job (rank, name,
 * seq, begin, end, step): the per-rank summary that `gputrace stragglers`
 * reads back, a few KB per step, so that thousands of ranks need not be
 * loaded together (docs/scale-out.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_input.h"
#include "output.h"

static const gt_coll_set *rows_set;

static const char *row_name(const void *ctx, uint64_t row)
{
	(void)ctx;
	return gt_strpool_get(&rows_set->names, rows_set->k[row].name);
}

static const struct gt_opt coll_opts[] = {
	GT_OPT_COLLECTIVE_NAME, GT_OPT_COLL_STEP, GT_OPT_FORMAT_REPORTS, GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS,
	GT_OPT_MAX_EXPANSION, GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static int run_collectives(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	c.reports_ok = true;
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	gt_coll_options o = {0};
	const char *arg;
	int id, status;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		if (id == OPT_COLLECTIVE_NAME)
			o.name_regex = arg;
		else if (id == OPT_COLL_STEP)
			o.step_glob = arg;
		else if (!gt_common_or_exit(&c, cmd, id, arg, &status))
			return status;
	}
	if (id < 0)
		return GT_EUSAGE;
	gt_common_report_default(&c);
	if (st.noperands < 1)
		return gt_usage_error(cmd, "'collectives' takes a TRACE (several files or a directory: one job)");
	gt_coll_set s;
	int rc = gt_cli_coll_load(&c, st.operands, st.noperands, &o, &s);
	if (rc)
		return rc;
	rows_set = &s;
	const gt_coll_kernel *k0 = s.k;
	size_t sz = sizeof *k0;
	gt_column cols[] = {
		{.name = "rank", .type = GT_COL_I64, .data = k0 ? &k0->rank : NULL, .stride = sz},
		{.name = "name", .type = GT_COL_STR, .get_str = row_name},
		{.name = "seq", .type = GT_COL_U64, .data = k0 ? &k0->seq : NULL, .stride = sz},
		{.name = "begin_us", .arrow_name = "begin_ns", .type = GT_COL_NS_US,
		 .data = k0 ? &k0->begin_ns : NULL, .stride = sz},
		{.name = "end_us", .arrow_name = "end_ns", .type = GT_COL_NS_US,
		 .data = k0 ? &k0->end_ns : NULL, .stride = sz},
		{.name = "step", .type = GT_COL_I64, .data = k0 ? &k0->step : NULL, .stride = sz},
	};
	static const int64_t zero;
	if (!k0)
		for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
			if (!cols[i].get_str)
				cols[i].data = &zero, cols[i].stride = 0;
	gt_table t = {.name = "collectives", .cols = cols, .ncols = sizeof cols / sizeof cols[0], .nrows = s.n};
	/* the ranks the summary covers, so that a rank without a collective
	 * still counts when the summaries are read back */
	size_t cap = (size_t)s.rank_count * 22 + 1, len = 0;
	char *ranks = malloc(cap);
	if (!ranks) {
		gt_coll_set_free(&s);
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	ranks[0] = '\0';
	for (uint32_t i = 0; i < s.rank_count; i++)
		len += (size_t)snprintf(ranks + len, cap - len, "%s%lld", i ? "," : "", (long long)s.ranks[i]);
	const char *mk[3], *mv[3];
	gt_cli_table_meta(&t, NULL, mk, mv);
	mk[2] = "ranks";
	mv[2] = ranks;
	t.nmeta = 3;
	rc = gt_cli_write_table(&c, &t);
	free(ranks);
	gt_coll_set_free(&s);
	return rc;
}

const struct gt_command gt_cmd_collectives = {
	.name = "collectives",
	.args = "TRACE...",
	.summary = "list the communication kernels (rank, name, seq, begin, end, step): the per-rank summary stragglers reads",
	.opts = coll_opts,
	.run = run_collectives,
};
