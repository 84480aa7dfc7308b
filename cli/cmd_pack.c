/* gputrace pack: writes the index file (.gtx) of a trace, or brings one up
 * to date after the trace grew (--update). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/base.h"
#include "gtx/gtx.h"
#include "write/write.h"
#include "load.h"
#include "tindex/tindex.h"

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

/* The trace's CRC, summed beside the load (both read the file: the second
 * read finds it in the page cache); with -j1 after it. Not under fault
 * injection, whose walks count the call sites in order. */
struct fingerprint {
	const char *path;
	gt_gtx_source src;
	gt_error err;
	int rc;
};

static void *fingerprint_crc(void *arg)
{
	struct fingerprint *fp = arg;
	fp->rc = gt_gtx_fingerprint_crc(fp->path, &fp->src, &fp->err);
	return NULL;
}

static bool fingerprint_beside(void)
{
#ifdef GT_FAULT_INJECTION
	return false;
#else
	return gt_thread_count(0, 2) > 1; /* -j1: after the load, on this thread */
#endif
}

/* What --update did: rebuilt partitions, and whether it resumed the parse. */
struct update_report {
	uint32_t rebuilt;
	bool resumed;
	uint64_t parsed_bytes;
};

static void print_summary(const char *path, const gt_model *m, const gt_tindex *ix, const struct update_report *u)
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
	if (u) {
		gt_jsonw_key(&w, "rebuilt_partitions");
		gt_jsonw_u64(&w, u->rebuilt);
		gt_jsonw_key(&w, "resumed");
		gt_jsonw_bool(&w, u->resumed);
		gt_jsonw_key(&w, "parsed_bytes");
		gt_jsonw_u64(&w, u->parsed_bytes);
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

/* The resume state's tail check: the bytes between the stable prefix and
 * the resume point (the last event's closing braces) are the packed ones. */
static int seal_resume(const char *trace, const gt_gtx_source *src, gt_resume *rs, gt_error *err)
{
	rs->tail_crc = 0;
	if (!rs->resumable || rs->offset <= src->prefix_len)
		return 0;
	return gt_gtx_range_crc(trace, src->prefix_len, rs->offset, &rs->tail_crc, err);
}

/* Why the stored parse cannot continue over trace (NULL: it can). */
static const char *cannot_resume(const gt_gtx *old, const gt_resume *rs, const char *trace,
				 const gt_gtx_source *src, gt_error *err, bool *failed)
{
	*failed = false;
	if (old->version < GT_GTX_VERSION_READING && rs->resumable)
		return "the index was packed by earlier reading rules (instants, async ids, counters)";
	if (old->version < GT_GTX_VERSION_SYNCS && rs->resumable)
		return "the index predates the sync args (recorded stream waits)";
	if (!rs->resumable)
		return old->version < 2 ? "the index file predates resumable updates"
					: "the index holds no resume state (compressed trace)";
	if (rs->offset > src->len)
		return "the trace is shorter than the index's last event";
	if (rs->offset > old->source.prefix_len) {
		uint32_t crc;
		if (gt_gtx_range_crc(trace, old->source.prefix_len, rs->offset, &crc, err) < 0) {
			*failed = true;
			return NULL;
		}
		if (crc != rs->tail_crc)
			return "the trace's last packed event changed";
	}
	return NULL;
}

/* --update: the trace must only have grown since the index was packed.
 * The parse resumes after the last packed event where it can (a plain
 * trace grown inside its event array); otherwise the whole trace is read
 * again. Either way the file equals a full pack. */
static int update(struct gt_common *c, bool parents_given, const char *index, const char *trace)
{
	gt_gtx old;
	gt_error err = {0};
	if (gt_gtx_open(&old, index, &err) < 0)
		return gt_report(&err);
	gt_gtx_source src;
	uint32_t crc;
	if (gt_gtx_fingerprint_at(trace, old.source.prefix_len, &crc, &src, &err) < 0) {
		gt_gtx_close(&old);
		return gt_report(&err);
	}
	if (crc != old.source.prefix_crc) {
		fprintf(stderr, "gputrace: '%s' changed within its first %llu bytes since '%s' was packed; "
				"pack it again without --update\n",
			trace, (unsigned long long)old.source.prefix_len, index);
		gt_gtx_close(&old);
		return GT_EINPUT;
	}
	/* the parent forest the index was packed with, unless --parents says */
	if (!parents_given)
		c->parent_mode = old.parent_mode;
	gt_resume rs;
	gt_model m;
	struct update_report u = {0};
	bool failed;
	if (gt_gtx_resume(&old, &rs, &err) < 0) {
		gt_gtx_close(&old);
		return gt_report(&err);
	}
	const char *why = cannot_resume(&old, &rs, trace, &src, &err, &failed);
	int rc = failed ? gt_report(&err) : 0;
	if (!rc && !why) {
		uint64_t from = rs.offset;
		rc = gt_gtx_model(&old, &m, &err) < 0 ? gt_report(&err) : gt_cli_resume(c, trace, &m, &rs, &why);
		if (rc == -1) {
			gt_model_free(&m);
			rc = 0;
		} else if (rc == 0) {
			u.resumed = true;
			u.parsed_bytes = m.stats.bytes - from;
		}
	}
	if (!rc && !u.resumed) {
		gt_notice(c, "reading all of '%s' again: %s", trace, why);
		gt_resume_free(&rs);
		rc = gt_cli_load_resumable(c, trace, &m, &rs);
		u.parsed_bytes = m.stats.bytes;
	}
	if (rc) {
		gt_resume_free(&rs);
		gt_gtx_close(&old);
		return rc;
	}
	gt_tindex ix = {0};
	if (seal_resume(trace, &src, &rs, &err) < 0 || gt_tindex_update(&ix, &old.ix, &m, &u.rebuilt, &err) < 0 ||
	    gt_gtx_write_resume(index, &m, &ix, &src, &rs, &err) < 0) {
		gt_tindex_free(&ix);
		gt_gtx_close(&old);
		gt_model_free(&m);
		gt_resume_free(&rs);
		return gt_report(&err);
	}
	gt_gtx_close(&old);
	print_summary(index, &m, &ix, &u);
	gt_notice(c, "rebuilt %u of %u partitions; parsed %llu bytes%s", u.rebuilt, ix.partition_count,
		  (unsigned long long)u.parsed_bytes, u.resumed ? " (resumed after the last packed event)" : "");
	gt_tindex_free(&ix);
	gt_model_free(&m);
	gt_resume_free(&rs);
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
	gt_operand_stdin(&st);
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
	struct fingerprint fp = {st.operands[0], {0}, {0}, 0};
	if (gt_gtx_fingerprint_begin(fp.path, &fp.src, &err) < 0)
		return gt_report(&err);
	pthread_t tid;
	bool beside = fingerprint_beside() && pthread_create(&tid, NULL, fingerprint_crc, &fp) == 0;
	if (!beside) {
		fingerprint_crc(&fp);
		if (fp.rc < 0)
			return gt_report(&fp.err);
	}
	gt_model m;
	gt_resume rs;
	uint64_t t0 = gt_clock_ns();
	int rc = gt_cli_load_resumable(&c, st.operands[0], &m, &rs);
	uint64_t t1 = gt_clock_ns();
	if (beside)
		pthread_join(tid, NULL);
	uint64_t t2 = gt_clock_ns();
	if (fp.rc < 0) { /* its error first, as when it ran before the load */
		if (!rc)
			gt_model_free(&m), gt_resume_free(&rs);
		return gt_report(&fp.err);
	}
	if (rc)
		return rc;
	gt_gtx_source src = fp.src;
	gt_tindex ix;
	if (seal_resume(st.operands[0], &src, &rs, &err) < 0 || gt_tindex_build(&ix, &m, &p, &err) < 0) {
		gt_model_free(&m);
		gt_resume_free(&rs);
		return gt_report(&err);
	}
	uint64_t t3 = gt_clock_ns();
	if (gt_gtx_write_resume(c.output, &m, &ix, &src, &rs, &err) < 0) {
		gt_tindex_free(&ix);
		gt_model_free(&m);
		gt_resume_free(&rs);
		return gt_report(&err);
	}
	uint64_t t4 = gt_clock_ns();
	print_summary(c.output, &m, &ix, NULL);
	gt_tindex_free(&ix);
	gt_model_free(&m);
	gt_resume_free(&rs);
	if (getenv("GPUTRACE_PACK_TIMES")) /* a diagnostic for profiling, not an interface */
		fprintf(stderr,
			"gputrace: pack: loading %.3f s, then waiting for the trace's CRC %.3f s, the temporal index %.3f s, "
			"the write %.3f s, the summary and freeing %.3f s\n",
			(t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9, (t4 - t3) / 1e9, (gt_clock_ns() - t4) / 1e9);
	return 0;
}

const struct gt_command gt_cmd_pack = {
	.name = "pack",
	.args = "TRACE",
	.summary = "write a trace's index file (span model, batches, temporal hierarchy); --update after it grew",
	.opts = pack_opts,
	.run = run_pack,
};
