/* gputrace info: what a trace holds, as one JSON object. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "write/write.h"
#include "load.h"
#include "info_report.h"
#include "output.h"

static const char *const compression_names[] = {"none", "gzip", "zstd"};

/* text without the whitespace outside strings, when it is strict JSON
 * (cJSON reads it: no trailing comma, NaN) in valid UTF-8 without raw
 * control characters; else NULL. Kept as written, numbers stay exact
 * (Kineto's baseTimeNanoseconds has 19 digits, more than a double's). */
static char *strict_minified(const char *text, const cJSON *parsed)
{
	if (!parsed || gt_utf8_clean_len(text) != strlen(text))
		return NULL;
	char *out = malloc(strlen(text) + 1), *d = out;
	if (!out)
		return NULL;
	bool in_str = false;
	for (const char *p = text; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (in_str) {
			if (c < 0x20) {
				free(out);
				return NULL;
			}
			if (c == '\\' && p[1])
				*d++ = *p++;
			else if (c == '"')
				in_str = false;
			*d++ = *p;
		} else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
			in_str = c == '"';
			*d++ = *p;
		}
	}
	*d = '\0';
	return out;
}

static void write_metadata(gt_jsonw *w, const char *text)
{
	/* as written when it is strict JSON; else re-serialised through cJSON
	 * so lenient input still prints as JSON */
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	char *s = strict_minified(text ? text : "", j);
	if (!s && j)
		s = cJSON_PrintUnformatted(j);
	gt_jsonw_key(w, "metadata");
	if (s)
		gt_jsonw_raw(w, s);
	else
		gt_jsonw_null(w);
	free(s);
	cJSON_Delete(j);
}

static void write_example(gt_jsonw *w, const gt_warning_example *ex, const gt_rank_part *rank)
{
	gt_jsonw_begin_object(w);
	if (rank) {
		gt_jsonw_key(w, "rank");
		gt_jsonw_u64(w, (uint64_t)rank->rank);
	}
	gt_jsonw_key(w, "offset");
	gt_jsonw_u64(w, ex->offset);
	gt_jsonw_key(w, "event");
	gt_jsonw_u64(w, ex->event);
	gt_jsonw_key(w, "excerpt");
	gt_jsonw_str(w, ex->excerpt);
	gt_jsonw_end_object(w);
}

/* Where the first warnings of each kind happened, so a user can find them:
 * a file's own, or one rank's. */
static void write_warning_examples(gt_jsonw *w, const gt_warning_example (*ex)[GT_WARN_EXAMPLES],
				   const uint8_t *count)
{
	gt_jsonw_key(w, "warning_examples");
	gt_jsonw_begin_object(w);
	for (int k = 0; ex && k < GT_WARN_COUNT; k++) {
		if (!count[k])
			continue;
		gt_jsonw_key(w, gt_warning_names[k]);
		gt_jsonw_begin_array(w);
		for (unsigned i = 0; i < count[k]; i++)
			write_example(w, &ex[k][i], NULL);
		gt_jsonw_end_array(w);
	}
	gt_jsonw_end_object(w);
}

/* A job's: the first of each kind in rank order, each naming its rank (the
 * offset is in that rank's file). */
static void write_job_warning_examples(gt_jsonw *w, const gt_model *m)
{
	gt_jsonw_key(w, "warning_examples");
	gt_jsonw_begin_object(w);
	for (int k = 0; k < GT_WARN_COUNT; k++) {
		unsigned left = GT_WARN_EXAMPLES;
		for (uint32_t i = 0; i < m->rank_count && left; i++) {
			const gt_rank_part *r = &m->ranks[i];
			for (unsigned j = 0; r->examples && j < r->example_count[k] && left; j++, left--) {
				if (left == GT_WARN_EXAMPLES) {
					gt_jsonw_key(w, gt_warning_names[k]);
					gt_jsonw_begin_array(w);
				}
				write_example(w, &r->examples[k][j], r);
			}
		}
		if (left < GT_WARN_EXAMPLES)
			gt_jsonw_end_array(w);
	}
	gt_jsonw_end_object(w);
}

/* A job's files: per rank, what its own info would count. */
static void write_ranks(gt_jsonw *w, const gt_model *m)
{
	gt_jsonw_key(w, "ranks");
	gt_jsonw_begin_array(w);
	for (uint32_t i = 0; i < m->rank_count; i++) {
		const gt_rank_part *r = &m->ranks[i];
		gt_jsonw_begin_object(w);
		gt_jsonw_key(w, "rank");
		gt_jsonw_u64(w, (uint64_t)r->rank);
		gt_jsonw_key(w, "source");
		gt_jsonw_str(w, r->source ? r->source : "");
		gt_jsonw_key(w, "file_bytes");
		gt_jsonw_u64(w, r->stats.file_bytes);
		gt_jsonw_key(w, "bytes");
		gt_jsonw_u64(w, r->stats.bytes);
		gt_jsonw_key(w, "events");
		gt_jsonw_u64(w, r->stats.events);
		gt_jsonw_key(w, "spans");
		gt_jsonw_u64(w, r->span_count);
		gt_jsonw_key(w, "flows");
		gt_jsonw_u64(w, r->flow_count);
		gt_jsonw_key(w, "processes");
		gt_jsonw_u64(w, r->process_count);
		gt_jsonw_key(w, "threads");
		gt_jsonw_u64(w, r->thread_count);
		gt_jsonw_key(w, "tracks");
		gt_jsonw_u64(w, r->track_count);
		gt_jsonw_key(w, "warnings");
		gt_jsonw_begin_object(w);
		for (int k = 0; k < GT_WARN_COUNT; k++) {
			gt_jsonw_key(w, gt_warning_names[k]);
			gt_jsonw_u64(w, r->stats.warnings[k]);
		}
		gt_jsonw_end_object(w);
		write_warning_examples(w, (const gt_warning_example (*)[GT_WARN_EXAMPLES])r->examples, r->example_count);
		gt_jsonw_end_object(w);
	}
	gt_jsonw_end_array(w);
}

static void write_info(FILE *out, const gt_model *m)
{
	gt_jsonw w;
	gt_jsonw_init(&w, out, true);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "source");
	gt_jsonw_str(&w, m->source);
	gt_jsonw_key(&w, "format");
	gt_jsonw_str(&w, m->stats.format == GT_FMT_OBJECT ? "object" : "array");
	gt_jsonw_key(&w, "compression");
	gt_jsonw_str(&w, compression_names[m->stats.compression % 3]);
	gt_jsonw_key(&w, "file_bytes");
	gt_jsonw_u64(&w, m->stats.file_bytes);
	gt_jsonw_key(&w, "bytes");
	gt_jsonw_u64(&w, m->stats.bytes);
	gt_jsonw_key(&w, "events");
	gt_jsonw_u64(&w, m->stats.events);
	gt_jsonw_key(&w, "phases");
	gt_jsonw_begin_object(&w);
	for (int c = 0; c < 128; c++) {
		if (!m->stats.phases[c])
			continue;
		char k[2] = {(char)c, 0};
		gt_jsonw_key(&w, k);
		gt_jsonw_u64(&w, m->stats.phases[c]);
	}
	for (int i = 0; i < 8 && m->stats.long_phase[i][0]; i++) {
		gt_jsonw_key(&w, m->stats.long_phase[i]);
		gt_jsonw_u64(&w, m->stats.long_phase_count[i]);
	}
	gt_jsonw_end_object(&w);
	gt_jsonw_key(&w, "spans");
	gt_jsonw_u64(&w, m->span_count);
	gt_jsonw_key(&w, "flows");
	gt_jsonw_u64(&w, m->flow_count);
	uint64_t bound = 0; /* both ends on a span; the others are arrows with a loose end */
	for (uint32_t f = 0; f < m->flow_count; f++)
		bound += m->flows[f].src != GT_NONE && m->flows[f].dst != GT_NONE;
	gt_jsonw_key(&w, "flows_bound");
	gt_jsonw_u64(&w, bound);
	gt_jsonw_key(&w, "counters");
	gt_jsonw_u64(&w, m->series_count);
	gt_jsonw_key(&w, "counter_samples");
	gt_jsonw_u64(&w, m->sample_count);
	gt_jsonw_key(&w, "processes");
	gt_jsonw_u64(&w, m->process_count);
	gt_jsonw_key(&w, "threads");
	gt_jsonw_u64(&w, m->thread_count);
	gt_jsonw_key(&w, "tracks");
	gt_jsonw_u64(&w, m->track_count);
	gt_jsonw_key(&w, "lanes");
	gt_jsonw_u64(&w, m->lane_count);
	gt_jsonw_key(&w, "groups");
	gt_jsonw_begin_array(&w);
	for (uint32_t g = 0; g < m->group_count; g++) {
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "id");
		gt_jsonw_u64(&w, g);
		gt_jsonw_key(&w, "name");
		gt_jsonw_str(&w, gt_model_str(m, m->groups[g].name));
		gt_jsonw_key(&w, "spans");
		gt_jsonw_u64(&w, m->groups[g].spans);
		gt_jsonw_end_object(&w);
	}
	gt_jsonw_end_array(&w);
	gt_jsonw_key(&w, "time");
	gt_jsonw_begin_object(&w);
	gt_jsonw_time(&w, "start_us", m->start_ns);
	gt_jsonw_time(&w, "end_us", m->end_ns);
	gt_jsonw_time(&w, "duration_us", m->end_ns - m->start_ns);
	gt_jsonw_end_object(&w);
	gt_jsonw_key(&w, "warnings");
	gt_jsonw_begin_object(&w);
	for (int i = 0; i < GT_WARN_COUNT; i++) {
		gt_jsonw_key(&w, gt_warning_names[i]);
		gt_jsonw_u64(&w, m->stats.warnings[i]);
	}
	gt_jsonw_end_object(&w);
	if (m->rank_count)
		write_job_warning_examples(&w, m);
	else
		write_warning_examples(&w, m->warning_examples, m->warning_example_count);
	gt_jsonw_key(&w, "model_bytes");
	gt_jsonw_u64(&w, gt_model_bytes(m));
	gt_jsonw_key(&w, "bytes_per_span");
	gt_jsonw_f64(&w, m->span_count ? (double)gt_model_bytes(m) / m->span_count : 0.0);
	write_metadata(&w, m->metadata_json);
	/* distributedInfo's rank and world size: null when the trace has none */
	gt_jsonw_key(&w, "rank");
	if (m->rank >= 0)
		gt_jsonw_u64(&w, (uint64_t)m->rank);
	else
		gt_jsonw_null(&w);
	gt_jsonw_key(&w, "world_size");
	if (m->world_size >= 0)
		gt_jsonw_u64(&w, (uint64_t)m->world_size);
	else
		gt_jsonw_null(&w);
	if (m->rank_count)
		write_ranks(&w, m);
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
}

/* One row per lane: which track and depth it shows. */
struct lane_row {
	uint32_t lane, track, depth;
};

static const gt_model *lanes_model;
static const struct lane_row *lanes_rows;

static const char *id_str(const gt_id *id, char *buf, size_t n)
{
	if (id->is_str)
		return gt_model_str(lanes_model, id->str);
	snprintf(buf, n, "%lld", (long long)id->num);
	return buf;
}

static const char *row_kind(const void *ctx, uint64_t row)
{
	(void)ctx;
	static const char *const kinds[] = {[GT_TRACK_THREAD] = "thread", [GT_TRACK_ASYNC] = "async",
					    [GT_TRACK_INSTANT] = "instant"};
	return kinds[lanes_model->tracks[lanes_rows[row].track].kind];
}

static const char *row_pid(const void *ctx, uint64_t row)
{
	static char buf[32];
	(void)ctx;
	const gt_track *t = &lanes_model->tracks[lanes_rows[row].track];
	return id_str(&lanes_model->processes[t->process].pid, buf, sizeof buf);
}

static int64_t row_rank(const void *ctx, uint64_t row)
{
	(void)ctx;
	return gt_model_process_rank(lanes_model, lanes_model->tracks[lanes_rows[row].track].process)->rank;
}

static const char *row_process_name(const void *ctx, uint64_t row)
{
	(void)ctx;
	const gt_track *t = &lanes_model->tracks[lanes_rows[row].track];
	uint32_t n = lanes_model->processes[t->process].name;
	return n == GT_NONE ? NULL : gt_model_str(lanes_model, n);
}

static const char *row_tid(const void *ctx, uint64_t row)
{
	static char buf[32];
	(void)ctx;
	const gt_track *t = &lanes_model->tracks[lanes_rows[row].track];
	return t->kind == GT_TRACK_THREAD ? id_str(&t->tid, buf, sizeof buf) : NULL;
}

static const char *row_track_name(const void *ctx, uint64_t row)
{
	(void)ctx;
	uint32_t n = lanes_model->tracks[lanes_rows[row].track].name;
	return n == GT_NONE ? NULL : gt_model_str(lanes_model, n);
}

static int write_lanes(const struct gt_common *c, const gt_model *m)
{
	struct lane_row *rows = malloc(((size_t)m->lane_count + 1) * sizeof *rows);
	if (!rows) {
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	for (uint32_t t = 0; t < m->track_count; t++)
		for (uint32_t d = 0; d < m->tracks[t].lane_count; d++)
			rows[m->tracks[t].lane_base + d] = (struct lane_row){m->tracks[t].lane_base + d, t, d};
	lanes_model = m;
	lanes_rows = rows;
	size_t st = sizeof *rows;
	gt_column cols[] = {
		{.name = "lane", .type = GT_COL_U32, .data = &rows[0].lane, .stride = st},
		{.name = "track", .type = GT_COL_U32, .data = &rows[0].track, .stride = st},
		{.name = "kind", .type = GT_COL_STR, .get_str = row_kind},
		{.name = "pid", .type = GT_COL_STR, .get_str = row_pid},
		{.name = "process_name", .type = GT_COL_STR, .get_str = row_process_name},
		{.name = "tid", .type = GT_COL_STR, .get_str = row_tid},
		{.name = "track_name", .type = GT_COL_STR, .get_str = row_track_name},
		{.name = "depth", .type = GT_COL_U32, .data = &rows[0].depth, .stride = st},
	};
	/* a job's lanes say their rank, first */
	gt_column job_cols[sizeof cols / sizeof cols[0] + 1];
	job_cols[0] = (gt_column){.name = "rank", .type = GT_COL_I64, .get_i64 = row_rank};
	memcpy(job_cols + 1, cols, sizeof cols);
	gt_table t = {.name = "lanes", .cols = m->rank_count ? job_cols : cols,
		      .ncols = sizeof cols / sizeof cols[0] + (m->rank_count ? 1 : 0), .nrows = m->lane_count};
	const char *mk[2], *mv[2];
	gt_cli_table_meta(&t, m->source, mk, mv);
	int rc = gt_cli_write_table(c, &t);
	free(rows);
	return rc;
}

static int write_groups(const struct gt_common *c, const gt_model *m)
{
	uint32_t ids[GT_MAX_GROUPS];
	for (uint32_t g = 0; g < GT_MAX_GROUPS; g++)
		ids[g] = g;
	size_t st = sizeof m->groups[0];
	gt_column cols[] = {
		{.name = "id", .type = GT_COL_U32, .data = ids},
		{.name = "name", .type = GT_COL_DICT, .data = &m->groups[0].name, .stride = st,
		 .dict_get = gt_cli_model_string, .dict_ctx = m},
		{.name = "spans", .type = GT_COL_U64, .data = &m->groups[0].spans, .stride = st},
	};
	gt_table t = {.name = "groups", .cols = cols, .ncols = 3, .nrows = m->group_count};
	const char *mk[2], *mv[2];
	gt_cli_table_meta(&t, m->source, mk, mv);
	return gt_cli_write_table(c, &t);
}

enum { OPT_TABLE = OPT_COMMAND_BASE };

static const struct gt_opt info_opts[] = {
	{"table", 't', "NAME", OPT_TABLE, "print a table instead of the summary: groups or lanes"},
	GT_OPT_FORMAT_REPORTS, GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION, GT_OPT_STRICT,
	GT_OPT_QUIET, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static int run_info(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	c.reports_ok = true;
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id;
	const char *table = NULL;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		if (id == OPT_TABLE) {
			if (strcmp(arg, "groups") != 0 && strcmp(arg, "lanes") != 0)
				return gt_usage_error(cmd, "unknown table '%s' (groups or lanes)", arg);
			table = arg;
			continue;
		}
		int status;
		if (!gt_common_or_exit(&c, cmd, id, arg, &status))
			return status;
	}
	if (id < 0)
		return GT_EUSAGE;
	gt_common_report_default(&c);
	gt_operand_stdin(&st);
	if (st.noperands < 1)
		return gt_usage_error(cmd, "'info' takes a TRACE (several files or a directory: one job)");
	if (!table && c.format != GT_OUT_JSON && c.report < 0)
		return gt_usage_error(cmd, "the summary is JSON; for '--format %s' choose '--table groups' or '--table lanes'",
				      gt_out_format_name(c.format));
	gt_model m;
	int rc = gt_cli_load_many(&c, st.operands, st.noperands, &m);
	if (rc)
		return rc;
	if (table) {
		rc = table[0] == 'g' ? write_groups(&c, &m) : write_lanes(&c, &m);
		gt_model_free(&m);
		return rc;
	}
	gt_outfile out;
	gt_error err = {0};
	if (gt_outfile_open(&out, c.output, false, &err) < 0) {
		gt_model_free(&m);
		return gt_report(&err);
	}
	if (c.report >= 0 && gt_info_report_write(out.fp, &m, c.report) < 0) {
		gt_outfile_abort(&out);
		gt_model_free(&m);
		fprintf(stderr, "gputrace: out of memory writing the report\n");
		return GT_EINPUT;
	}
	if (c.report < 0)
		write_info(out.fp, &m);
	/* the summary out before the model's pages are given back */
	int committed = gt_outfile_commit(&out, &err);
	gt_model_free(&m);
	return committed < 0 ? gt_report(&err) : 0;
}

const struct gt_command gt_cmd_info = {
	.name = "info",
	.args = "TRACE...",
	.summary = "summarise a trace: events per phase, spans, tracks, lanes, groups, time range, warnings",
	.opts = info_opts,
	.run = run_info,
};
