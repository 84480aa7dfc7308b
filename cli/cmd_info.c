/* gputrace info: what a trace holds, as one JSON object. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "load.h"
#include "outfile.h"

static const char *const compression_names[] = {"none", "gzip", "zstd"};

static void write_metadata(gt_jsonw *w, const char *text)
{
	/* re-serialised through cJSON so lenient input still prints as JSON */
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;
	gt_jsonw_key(w, "metadata");
	if (s)
		gt_jsonw_raw(w, s);
	else
		gt_jsonw_null(w);
	free(s);
	cJSON_Delete(j);
}

/* end - start, exact: spans near both ends of the int64 range make a
 * duration that only fits 64 unsigned bits */
static void put_duration(gt_jsonw *w, int64_t start, int64_t end)
{
	uint64_t d = (uint64_t)end - (uint64_t)start;
	if (d <= INT64_MAX) {
		gt_jsonw_us(w, (int64_t)d);
		return;
	}
	char buf[32];
	snprintf(buf, sizeof buf, "%llu.%03llu", (unsigned long long)(d / 1000), (unsigned long long)(d % 1000));
	size_t n = strlen(buf);
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[--n] = '\0';
	gt_jsonw_raw(w, buf);
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
	gt_jsonw_key(&w, "start_us");
	gt_jsonw_us(&w, m->start_ns);
	gt_jsonw_key(&w, "end_us");
	gt_jsonw_us(&w, m->end_ns);
	gt_jsonw_key(&w, "duration_us");
	put_duration(&w, m->start_ns, m->end_ns);
	gt_jsonw_end_object(&w);
	gt_jsonw_key(&w, "warnings");
	gt_jsonw_begin_object(&w);
	for (int i = 0; i < GT_WARN_COUNT; i++) {
		gt_jsonw_key(&w, gt_warning_names[i]);
		gt_jsonw_u64(&w, m->stats.warnings[i]);
	}
	gt_jsonw_end_object(&w);
	gt_jsonw_key(&w, "model_bytes");
	gt_jsonw_u64(&w, gt_model_bytes(m));
	gt_jsonw_key(&w, "bytes_per_span");
	gt_jsonw_f64(&w, m->span_count ? (double)gt_model_bytes(m) / m->span_count : 0.0);
	write_metadata(&w, m->metadata_json);
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
}

static const struct gt_opt info_opts[] = {
	GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION, GT_OPT_QUIET,
	GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static int run_info(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		int r = gt_common_opt(&c, cmd, id, arg);
		if (r < 0)
			return GT_EUSAGE;
		if (r == 2)
			return 0;
	}
	if (id < 0)
		return GT_EUSAGE;
	if (st.noperands != 1)
		return gt_usage_error(cmd, "'info' takes one TRACE");
	gt_model m;
	int rc = gt_cli_load(&c, st.operands[0], &m);
	if (rc)
		return rc;
	gt_outfile out;
	gt_error err = {0};
	if (gt_outfile_open(&out, c.output, false, &err) < 0) {
		gt_model_free(&m);
		return gt_report(&err);
	}
	write_info(out.fp, &m);
	gt_model_free(&m);
	if (gt_outfile_commit(&out, &err) < 0)
		return gt_report(&err);
	return 0;
}

const struct gt_command gt_cmd_info = {
	.name = "info",
	.args = "TRACE",
	.summary = "summarise a trace: events per phase, spans, tracks, lanes, groups, time range, warnings",
	.opts = info_opts,
	.run = run_info,
};
