/* gputrace pack: writes the index file (.gtx) of a trace, or brings one up
 * to date after the trace grew (--update). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gtx.h"
#include "jsonw.h"
#include "load.h"
#include "tindex.h"

enum { OPT_UPDATE = OPT_COMMAND_BASE, OPT_BATCH_SPANS, OPT_PARTITION_BATCHES, OPT_FANOUT, OPT_LANE_BAND,
       OPT_EPOCH_SPANS };

static const struct gt_opt pack_opts[] = {
	{"output", 'o', "FILE", OPT_OUTPUT, "the index file to write (required unless --update)"},
	{"update", 'u', "FILE", OPT_UPDATE, "bring index FILE up to date with TRACE, which grew by appended events"},
	{"batch-spans", 0, "N", OPT_BATCH_SPANS, "at most N spans per leaf batch (default 64)"},
	{"partition-batches", 0, "N", OPT_PARTITION_BATCHES, "batches per partition (default 256)"},
	{"fanout", 0, "N", OPT_FANOUT, "hierarchy fan-out per level (default 8)"},
	{"lane-band", 0, "N", OPT_LANE_BAND, "lanes per batch band (default 4)"},
	{"epoch-spans", 0, "N", OPT_EPOCH_SPANS, "spans per source epoch (default 1048576)"},
	GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION, GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static void print_summary(const char *path, const gt_model *m, const gt_tindex *ix, long long rebuilt)
{
	gt_jsonw w;
	gt_jsonw_init(&w, stdout, false);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "index");
	gt_jsonw_str(&w, path);
	gt_jsonw_key(&w, "spans");
	gt_jsonw_u64(&w, m->span_count);
	gt_jsonw_key(&w, "batches");
	gt_jsonw_u64(&w, ix->batch_count);
	gt_jsonw_key(&w, "partitions");
	gt_jsonw_u64(&w, ix->partition_count);
	gt_jsonw_key(&w, "levels");
	gt_jsonw_begin_array(&w);
	for (uint32_t L = 0; L < ix->level_count; L++)
		gt_jsonw_u64(&w, ix->levels[L].node_count);
	gt_jsonw_end_array(&w);
	gt_jsonw_key(&w, "index_bytes");
	gt_jsonw_u64(&w, gt_tindex_bytes(ix));
	gt_jsonw_key(&w, "index_bytes_per_span");
	gt_jsonw_f64(&w, m->span_count ? (double)gt_tindex_bytes(ix) / m->span_count : 0.0);
	if (rebuilt >= 0) {
		gt_jsonw_key(&w, "rebuilt_partitions");
		gt_jsonw_u64(&w, (uint64_t)rebuilt);
	}
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
}

static int set_param(const struct gt_command *cmd, const char *name, const char *arg, uint32_t *out)
{
	unsigned long long v;
	if (gt_parse_u64(cmd, name, arg, &v) < 0)
		return -1;
	if (v > UINT32_MAX)
		return gt_usage_error(cmd, "option '--%s' is at most %u", name, UINT32_MAX), -1;
	*out = (uint32_t)v;
	return 0;
}

/* --update: the trace must only have grown since the index was packed. */
static int update(struct gt_common *c, bool parents_given, const char *index, const char *trace)
{
	gt_gtx old;
	gt_error err = {0};
	if (gt_gtx_open(&old, index, &err) < 0)
		return gt_report(&err);
	gt_gtx_source src;
	uint32_t crc;
	if (gt_gtx_fingerprint(trace, &src, &err) < 0 ||
	    gt_gtx_prefix_crc(trace, old.source.prefix_len, &crc, &err) < 0) {
		gt_gtx_close(&old);
		return gt_report(&err);
	}
	if (crc != old.source.prefix_crc) {
		gt_gtx_close(&old);
		fprintf(stderr, "gputrace: '%s' changed within its first %llu bytes since '%s' was packed; "
				"pack it again without --update\n",
			trace, (unsigned long long)old.source.prefix_len, index);
		return GT_EINPUT;
	}
	/* the parent forest the index was packed with, unless --parents says */
	if (!parents_given)
		c->parent_mode = old.parent_mode;
	gt_model m;
	int rc = gt_cli_load(c, trace, &m);
	if (rc) {
		gt_gtx_close(&old);
		return rc;
	}
	gt_tindex ix;
	uint32_t rebuilt = 0;
	if (gt_tindex_update(&ix, &old.ix, &m, &rebuilt, &err) < 0 || gt_gtx_write(index, &m, &ix, &src, &err) < 0) {
		gt_gtx_close(&old);
		gt_model_free(&m);
		return gt_report(&err);
	}
	gt_gtx_close(&old);
	print_summary(index, &m, &ix, rebuilt);
	gt_notice(c, "rebuilt %u of %u partitions", rebuilt, ix.partition_count);
	gt_tindex_free(&ix);
	gt_model_free(&m);
	return 0;
}

static int run_pack(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	const char *upd = NULL;
	bool params = false, parents = false;
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		int r = 0;
		switch (id) {
		case OPT_UPDATE: upd = arg; break;
		case OPT_BATCH_SPANS: r = set_param(cmd, "batch-spans", arg, &p.batch_spans), params = true; break;
		case OPT_PARTITION_BATCHES:
			r = set_param(cmd, "partition-batches", arg, &p.partition_batches), params = true;
			break;
		case OPT_FANOUT: r = set_param(cmd, "fanout", arg, &p.fanout), params = true; break;
		case OPT_LANE_BAND: r = set_param(cmd, "lane-band", arg, &p.lane_band), params = true; break;
		case OPT_EPOCH_SPANS: r = set_param(cmd, "epoch-spans", arg, &p.epoch_spans), params = true; break;
		default:
			parents |= id == OPT_PARENTS;
			r = gt_common_opt(&c, cmd, id, arg);
			if (r == 2)
				return 0;
			r = r < 0 ? -1 : 0;
		}
		if (r < 0)
			return GT_EUSAGE;
	}
	if (id < 0)
		return GT_EUSAGE;
	if (st.noperands != 1)
		return gt_usage_error(cmd, "'pack' takes one TRACE");
	if (upd) {
		if (c.output || params)
			return gt_usage_error(cmd, "--update keeps the index's own parameters and path; drop -o and "
						   "the packing options");
		return update(&c, parents, upd, st.operands[0]);
	}
	if (!c.output)
		return gt_usage_error(cmd, "'pack' needs -o FILE.gtx");
	gt_error err = {0};
	if (gt_tindex_check_params(&p, &err) < 0)
		return gt_usage_error(cmd, "%s", err.msg);
	gt_gtx_source src;
	if (gt_gtx_fingerprint(st.operands[0], &src, &err) < 0)
		return gt_report(&err);
	gt_model m;
	int rc = gt_cli_load(&c, st.operands[0], &m);
	if (rc)
		return rc;
	gt_tindex ix;
	if (gt_tindex_build(&ix, &m, &p, &err) < 0) {
		gt_model_free(&m);
		return gt_report(&err);
	}
	if (gt_gtx_write(c.output, &m, &ix, &src, &err) < 0) {
		gt_tindex_free(&ix);
		gt_model_free(&m);
		return gt_report(&err);
	}
	print_summary(c.output, &m, &ix, -1);
	gt_tindex_free(&ix);
	gt_model_free(&m);
	return 0;
}

const struct gt_command gt_cmd_pack = {
	.name = "pack",
	.args = "TRACE",
	.summary = "write a trace's index file (span model, batches, temporal hierarchy); --update after it grew",
	.opts = pack_opts,
	.run = run_pack,
};
