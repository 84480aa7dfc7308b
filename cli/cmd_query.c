/* gputrace query: viewport candidate queries on the temporal index, one
 * viewport from the options or many from --viewports FILE.jsonl (the index
 * stays on the device between them; a query equal to the previous one
 * reuses its candidates). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_open.h"
#include "cli.h"
#include "index_open.h"
#include "gtx/gtx.h"
#include "write/write.h"
#include "load.h"
#include "output.h"
#include "cl/cl.h"
#include "tindex/tindex.h"
#include "viewport.h"

enum { OPT_TIME = OPT_COMMAND_BASE, OPT_LANES, OPT_GROUPS, OPT_LEVEL, OPT_CAPACITY, OPT_EXPAND, OPT_VIEWPORTS };

static const struct gt_opt query_opts[] = {
	{"time", 't', "A:B", OPT_TIME, "time window from the first span's start; ns, us, ms or s (default us); @A:B, @A:+D absolute"},
	{"lanes", 0, "L0:L1", OPT_LANES, "lane window, half-open (default all)"},
	{"groups", 0, "NAMES|MASK", OPT_GROUPS, "comma-separated group names or a 32-bit mask (default all)"},
	{"level", 0, "N|auto", OPT_LEVEL, "hierarchy level to test (default auto: from the window's width)"},
	{"capacity", 0, "N", OPT_CAPACITY, "at most N candidates are written (default: all batches)"},
	{"expand", 0, NULL, OPT_EXPAND, "also list the spans meeting the viewport"},
	{"viewports", 0, "FILE", OPT_VIEWPORTS, "run one query per JSON line {id, time, lanes, groups, level}"},
	GT_OPT_FORMAT, GT_OPT_OUTPUT, GT_OPT_DEVICE, GT_OPT_STRICT, GT_OPT_PARENTS, GT_OPT_THREADS, GT_OPT_MAX_EXPANSION,
	GT_OPT_QUIET, GT_OPT_VERBOSE, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

struct run {
	const struct gt_command *cmd;
	struct gt_common c;
	struct gt_cli_index x;
	gt_cl *cl;
	gt_tindex_cl *dev;
	uint32_t vbits;
	uint32_t *cand;
	bool expand;
	uint64_t queries, cache_hits, overflows;
	/* the previous query and its result, for the cache */
	bool have_prev;
	gt_tquery prev_q;
	gt_tresult prev;
	uint64_t prev_fp;
	/* table formats: rows gathered over every query, written at the end */
	bool table, many;
	struct trow *rows;
	size_t nrows, rows_cap;
	char **vids; /* per query: the viewport's id as text (NULL: none) */
	size_t vids_cap;
};

/* One row of the table formats: a candidate batch, or with --expand a span,
 * of query number `query`. */
struct trow {
	uint64_t query;
	uint32_t level;
	uint32_t value; /* batch id, or span id */
};

/* A viewport as given: strings, before resolution against the model. */
struct vp {
	const char *time, *lanes, *groups, *level;
	uint64_t capacity;
	bool has_capacity;
};

static int resolve(struct run *r, const struct vp *v, gt_tquery *q, uint64_t *cap, const char **why)
{
	int64_t a, b;
	if (!v->time) {
		*why = "a viewport needs a time window";
		return -1;
	}
	if (gt_time_window_resolve(v->time, r->x.m.start_ns, &q->t0, &q->t1, why) < 0)
		return -1;
	a = q->t0, b = q->t1;
	q->lane0 = 0, q->lane1 = UINT32_MAX, q->groups = 0xffffffffu;
	if (v->lanes && gt_parse_lane_window(v->lanes, &q->lane0, &q->lane1, why) < 0)
		return -1;
	if (v->groups && gt_parse_groups(v->groups, &r->x.m, &q->groups, why) < 0)
		return -1;
	if (!v->level || strcmp(v->level, "auto") == 0) {
		q->level = gt_tindex_auto_level(r->x.ix, b - a, r->x.m.end_ns - r->x.m.start_ns);
	} else {
		char *end;
		unsigned long L = strtoul(v->level, &end, 10);
		if (*end || !*v->level || L >= r->x.ix->level_count) {
			*why = "the level must be auto or an existing level (see 'levels' in the pack summary)";
			return -1;
		}
		q->level = (uint32_t)L;
	}
	*cap = v->has_capacity ? v->capacity : r->x.ix->batch_count;
	return 0;
}

static int write_result(struct run *r, gt_jsonw *w, const char *id_json, const gt_tquery *q, const gt_tresult *res,
			 uint64_t fp, bool cached)
{
	gt_jsonw_begin_object(w);
	if (id_json) {
		gt_jsonw_key(w, "id");
		gt_jsonw_raw(w, id_json);
	}
	gt_jsonw_key(w, "level");
	gt_jsonw_u64(w, q->level);
	uint64_t n = res->count < res->capacity ? res->count : res->capacity;
	gt_jsonw_key(w, "candidates");
	gt_jsonw_begin_array(w);
	for (uint64_t i = 0; i < n; i++)
		gt_jsonw_u64(w, r->cand[i]);
	gt_jsonw_end_array(w);
	gt_jsonw_key(w, "candidate_count");
	gt_jsonw_u64(w, res->count);
	gt_jsonw_key(w, "capacity");
	gt_jsonw_u64(w, res->capacity);
	gt_jsonw_key(w, "overflow");
	gt_jsonw_bool(w, res->overflow);
	gt_jsonw_key(w, "nodes_tested");
	gt_jsonw_u64(w, res->nodes_tested);
	gt_jsonw_key(w, "leaves_tested");
	gt_jsonw_u64(w, res->leaves_tested);
	gt_jsonw_key(w, "false_positive_batches");
	gt_jsonw_u64(w, fp);
	gt_jsonw_key(w, "validation_bits");
	gt_jsonw_u64(w, r->vbits);
	gt_jsonw_key(w, "cached");
	gt_jsonw_bool(w, cached);
	if (r->expand) {
		uint32_t *ids = NULL;
		uint64_t nids = 0;
		gt_error err = {0};
		gt_jsonw_key(w, "spans");
		gt_jsonw_begin_array(w);
		/* a failed expansion must not read as "no spans" */
		if (gt_tindex_expand(r->x.ix, &r->x.m, q, r->cand, n, &ids, &nids, &err) < 0)
			return gt_report(&err);
		for (uint64_t i = 0; i < nids; i++) {
			const gt_span *s = &r->x.m.spans[ids[i]];
			gt_jsonw_begin_object(w);
			gt_jsonw_key(w, "id");
			gt_jsonw_u64(w, ids[i]);
			gt_jsonw_key(w, "lane");
			gt_jsonw_u64(w, s->lane);
			gt_jsonw_time(w, "ts_us", s->ts_ns);
			gt_jsonw_time(w, "dur_us", s->dur_ns);
			gt_jsonw_key(w, "name");
			gt_jsonw_str(w, gt_model_str(&r->x.m, s->name));
			gt_jsonw_key(w, "group");
			gt_jsonw_str(w, s->group < r->x.m.group_count ? gt_model_str(&r->x.m, r->x.m.groups[s->group].name)
								  : "");
			gt_jsonw_end_object(w);
		}
		free(ids);
		gt_jsonw_end_array(w);
	}
	gt_jsonw_end_object(w);
	return 0;
}

static int add_row(struct run *r, uint64_t query, uint32_t level, uint32_t value)
{
	if (r->nrows == r->rows_cap) {
		size_t cap = r->rows_cap ? r->rows_cap * 2 : 1024;
		struct trow *p = realloc(r->rows, cap * sizeof *p);
		if (!p)
			return -1;
		r->rows = p;
		r->rows_cap = cap;
	}
	r->rows[r->nrows++] = (struct trow){query, level, value};
	return 0;
}

/* A viewport id as text: a JSON string's contents, other JSON as written. */
static char *id_as_text(const char *id_json)
{
	if (!id_json)
		return NULL;
	cJSON *j = cJSON_Parse(id_json);
	char *s = j && cJSON_IsString(j) ? strdup(j->valuestring) : strdup(id_json);
	cJSON_Delete(j);
	return s;
}

/* Table formats: keeps the query's candidates (or, with --expand, its
 * spans) as rows, and its statistics on stderr (one notice line). */
static int gather_rows(struct run *r, const char *id_json, const gt_tquery *q)
{
	uint64_t qi = r->queries - 1;
	if (qi >= r->vids_cap) {
		size_t cap = r->vids_cap ? r->vids_cap * 2 : 64;
		char **p = realloc(r->vids, cap * sizeof *p);
		if (!p)
			goto oom;
		memset(p + r->vids_cap, 0, (cap - r->vids_cap) * sizeof *p);
		r->vids = p;
		r->vids_cap = cap;
	}
	if (id_json && !(r->vids[qi] = id_as_text(id_json)))
		goto oom;
	const gt_tresult *res = &r->prev;
	uint64_t n = res->count < res->capacity ? res->count : res->capacity;
	if (r->expand) {
		uint32_t *ids = NULL;
		uint64_t nids = 0;
		gt_error err = {0};
		if (gt_tindex_expand(r->x.ix, &r->x.m, q, r->cand, n, &ids, &nids, &err) < 0)
			return gt_report(&err);
		for (uint64_t i = 0; i < nids; i++)
			if (add_row(r, qi, q->level, ids[i]) < 0) {
				free(ids);
				goto oom;
			}
		free(ids);
	} else {
		for (uint64_t i = 0; i < n; i++)
			if (add_row(r, qi, q->level, r->cand[i]) < 0)
				goto oom;
	}
	if (!r->many) /* --viewports: one summary line at the end */
		gt_notice(&r->c, "query: level=%u candidate_count=%llu capacity=%llu overflow=%s nodes_tested=%llu "
			  "leaves_tested=%llu false_positive_batches=%llu validation_bits=%u",
			  q->level, (unsigned long long)res->count, (unsigned long long)res->capacity,
			  res->overflow ? "true" : "false", (unsigned long long)res->nodes_tested,
			  (unsigned long long)res->leaves_tested, (unsigned long long)r->prev_fp, r->vbits);
	return 0;
oom:
	fprintf(stderr, "gputrace: out of memory for the query's rows\n");
	return GT_EINPUT;
}

static const struct trow *trow_at(const void *ctx, uint64_t row)
{
	return &((const struct run *)ctx)->rows[row];
}
static const gt_span *trow_span(const void *ctx, uint64_t row)
{
	return &((const struct run *)ctx)->x.m.spans[trow_at(ctx, row)->value];
}
static int64_t col_query(const void *ctx, uint64_t row) { return (int64_t)trow_at(ctx, row)->query; }
static int64_t col_level(const void *ctx, uint64_t row) { return trow_at(ctx, row)->level; }
static int64_t col_value(const void *ctx, uint64_t row) { return trow_at(ctx, row)->value; }
static int64_t col_lane(const void *ctx, uint64_t row) { return trow_span(ctx, row)->lane; }
static int64_t col_ts(const void *ctx, uint64_t row) { return trow_span(ctx, row)->ts_ns; }
static int64_t col_dur(const void *ctx, uint64_t row) { return trow_span(ctx, row)->dur_ns; }
static int64_t col_name(const void *ctx, uint64_t row) { return trow_span(ctx, row)->name; }
static const char *col_viewport(const void *ctx, uint64_t row)
{
	return ((const struct run *)ctx)->vids[trow_at(ctx, row)->query];
}
static const char *col_group(const void *ctx, uint64_t row)
{
	const struct run *r = ctx;
	uint32_t g = trow_span(ctx, row)->group;
	return g < r->x.m.group_count ? gt_model_str(&r->x.m, r->x.m.groups[g].name) : "";
}

/* The gathered rows as one table: with --viewports, the query's number and
 * id first; then the candidate batch (and level), or with --expand the
 * span's id, lane, ts_us, dur_us, name and group, as the JSON "spans". */
static int write_rows(struct run *r, bool viewports, const char *source)
{
	gt_column cols[10];
	size_t k = 0;
	if (viewports) {
		cols[k++] = (gt_column){.name = "query", .type = GT_COL_U64, .get_i64 = col_query, .get_ctx = r};
		cols[k++] = (gt_column){.name = "viewport", .type = GT_COL_STR, .get_str = col_viewport, .get_ctx = r};
	}
	cols[k++] = (gt_column){.name = "level", .type = GT_COL_U32, .get_i64 = col_level, .get_ctx = r};
	if (!r->expand) {
		cols[k++] = (gt_column){.name = "batch", .type = GT_COL_U32, .get_i64 = col_value, .get_ctx = r};
	} else {
		cols[k++] = (gt_column){.name = "id", .type = GT_COL_U32, .get_i64 = col_value, .get_ctx = r};
		cols[k++] = (gt_column){.name = "lane", .type = GT_COL_U32, .get_i64 = col_lane, .get_ctx = r};
		cols[k++] = (gt_column){.name = "ts_us", .arrow_name = "ts_ns", .type = GT_COL_NS_US,
					.get_i64 = col_ts, .get_ctx = r};
		cols[k++] = (gt_column){.name = "dur_us", .arrow_name = "dur_ns", .type = GT_COL_NS_US,
					.get_i64 = col_dur, .get_ctx = r};
		cols[k++] = (gt_column){.name = "name", .type = GT_COL_DICT, .get_i64 = col_name, .get_ctx = r,
					.dict_get = gt_cli_model_string, .dict_ctx = &r->x.m};
		cols[k++] = (gt_column){.name = "group", .type = GT_COL_STR, .get_str = col_group, .get_ctx = r};
	}
	gt_table t = {.name = r->expand ? "spans" : "candidates", .cols = cols, .ncols = k, .nrows = r->nrows};
	char nq[24], hits[24], ovf[24], vb[24];
	snprintf(nq, sizeof nq, "%llu", (unsigned long long)r->queries);
	snprintf(hits, sizeof hits, "%llu", (unsigned long long)r->cache_hits);
	snprintf(ovf, sizeof ovf, "%llu", (unsigned long long)r->overflows);
	snprintf(vb, sizeof vb, "%u", r->vbits);
	const char *mk[6], *mv[6];
	gt_cli_table_meta(&t, source, mk, mv);
	mk[2] = "queries", mv[2] = nq;
	mk[3] = "cache_hits", mv[3] = hits;
	mk[4] = "overflows", mv[4] = ovf;
	mk[5] = "validation_bits", mv[5] = vb;
	t.nmeta = 6;
	return gt_cli_write_table(&r->c, &t);
}

/* Runs one resolved query (or reuses the previous result) and writes it. */
static int run_query(struct run *r, FILE *out, bool pretty, const char *id_json, const gt_tquery *q, uint64_t cap)
{
	gt_error err = {0};
	bool cached = r->have_prev && memcmp(&r->prev_q, q, sizeof *q) == 0 && r->prev.capacity == cap;
	if (!cached) {
		gt_tresult res = {.candidates = r->cand, .capacity = cap};
		int rc = r->dev ? gt_tindex_cl_query(r->dev, q, &res, NULL, &err) : gt_tindex_query(r->x.ix, q, &res, &err);
		if (rc < 0 && r->dev && err.cause == GT_CAUSE_DEVICE_MEMORY) {
			gt_notice(&r->c, "%s; querying on the host from here on", err.msg);
			memset(&err, 0, sizeof err);
			gt_tindex_cl_close(r->dev);
			r->dev = NULL;
			rc = gt_tindex_query(r->x.ix, q, &res, &err);
		}
		if (rc < 0)
			return gt_report(&err);
		r->prev = res;
		r->prev_q = *q;
		r->have_prev = true;
		uint64_t n = res.count < cap ? res.count : cap;
		r->prev_fp = gt_tindex_false_positives(r->x.ix, &r->x.m, q, r->cand, n);
	} else {
		r->cache_hits++;
	}
	r->queries++;
	r->overflows += r->prev.overflow;
	if (r->table)
		return gather_rows(r, id_json, q);
	gt_jsonw w;
	gt_jsonw_init(&w, out, pretty);
	int rc = write_result(r, &w, id_json, q, &r->prev, r->prev_fp, cached);
	if (rc == 0)
		gt_jsonw_finish(&w);
	return rc;
}

static const char *json_text(const cJSON *o, const char *key, char *buf, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return NULL;
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v)) {
		snprintf(buf, len, "%.0f", v->valuedouble);
		return buf;
	}
	if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
	    cJSON_IsNumber(cJSON_GetArrayItem(v, 1))) {
		snprintf(buf, len, "%.0f:%.0f", cJSON_GetArrayItem(v, 0)->valuedouble,
			 cJSON_GetArrayItem(v, 1)->valuedouble);
		return buf;
	}
	return "";
}

static int run_viewports(struct run *r, FILE *out, const char *path, const struct vp *defaults)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!f) {
		fprintf(stderr, "gputrace: cannot open '%s'\n", path);
		return GT_EINPUT;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t lineno = 0;
	int rc = 0;
	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		cJSON *o = cJSON_Parse(line);
		if (!o || !cJSON_IsObject(o)) {
			fprintf(stderr, "gputrace: '%s' line %llu: not a JSON object\n", path, (unsigned long long)lineno);
			cJSON_Delete(o);
			rc = GT_EINPUT;
			break;
		}
		char b1[64], b2[64], b3[64], b4[64];
		struct vp v = *defaults;
		const char *t;
		if ((t = json_text(o, "time", b1, sizeof b1)))
			v.time = t;
		if ((t = json_text(o, "lanes", b2, sizeof b2)))
			v.lanes = t;
		if ((t = json_text(o, "groups", b3, sizeof b3)))
			v.groups = t;
		if ((t = json_text(o, "level", b4, sizeof b4)))
			v.level = t;
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "capacity");
		if (cJSON_IsNumber(c) && c->valuedouble >= 0) {
			v.capacity = (uint64_t)c->valuedouble;
			v.has_capacity = true;
		}
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
		char *id_json = id ? cJSON_PrintUnformatted(id) : NULL;
		gt_tquery q;
		uint64_t qcap;
		const char *why;
		if (resolve(r, &v, &q, &qcap, &why) < 0) {
			fprintf(stderr, "gputrace: '%s' line %llu: %s\n", path, (unsigned long long)lineno, why);
			rc = GT_EINPUT;
		} else {
			rc = run_query(r, out, false, id_json, &q, qcap);
		}
		free(id_json);
		cJSON_Delete(o);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}


static int open_device(struct run *r)
{
	gt_error err = {0};
	char chosen[256] = "";
	if (gt_cli_device_open(&r->c, GT_WORK_QUERY, r->x.m.span_count, &r->cl, chosen, sizeof chosen, &err) < 0)
		return gt_report(&err);
	gt_device_notice(&r->c, chosen);
	uint64_t bad;
	if (r->cl && (gt_tindex_cl_open(&r->dev, r->cl, r->x.ix, &err) < 0 ||
		      gt_tindex_cl_validate(r->dev, NULL, NULL, &r->vbits, &bad, &err) < 0)) {
		if (err.cause != GT_CAUSE_DEVICE_MEMORY)
			return gt_report(&err);
		/* the index does not fit the device: the host gives the same answers */
		gt_notice(&r->c, "%s; querying on the host instead", err.msg);
		memset(&err, 0, sizeof err);
		gt_tindex_cl_close(r->dev);
		r->dev = NULL;
		gt_cl_close(r->cl);
		r->cl = NULL;
	}
	if (!r->cl) {
		gt_tindex_validate(r->x.ix, NULL, NULL, &r->vbits, &bad);
	}
	if (r->vbits) {
		char names[256];
		gt_tindex_bits_str(r->vbits, names, sizeof names);
		fprintf(stderr, "gputrace: warning: %llu hierarchy records fail validation: %s\n",
			(unsigned long long)bad, names);
	}
	return 0;
}

static void close_run(struct run *r)
{
	gt_tindex_cl_close(r->dev);
	gt_cl_close(r->cl);
	free(r->cand);
	free(r->rows);
	for (size_t i = 0; i < r->vids_cap; i++)
		free(r->vids[i]);
	free(r->vids);
	gt_cli_index_close(&r->x);
}

static int run_query_cmd(const struct gt_command *cmd, int argc, char **argv)
{
	struct run r;
	memset(&r, 0, sizeof r);
	r.cmd = cmd;
	gt_common_init(&r.c);
	struct vp v = {0};
	const char *viewports = NULL;
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id;
	while ((id = gt_opt_next(&st, &arg)) > 0) {
		switch (id) {
		case OPT_TIME: v.time = arg; break;
		case OPT_LANES: v.lanes = arg; break;
		case OPT_GROUPS: v.groups = arg; break;
		case OPT_LEVEL: v.level = arg; break;
		case OPT_EXPAND: r.expand = true; break;
		case OPT_VIEWPORTS: viewports = arg; break;
		case OPT_CAPACITY: {
			unsigned long long cap;
			if (gt_parse_u64(cmd, "capacity", arg, &cap) < 0)
				return GT_EUSAGE;
			v.capacity = cap;
			v.has_capacity = true;
			break;
		}
		default: {
			int status;
			if (!gt_common_or_exit(&r.c, cmd, id, arg, &status))
				return status;
		}
		}
	}
	if (id < 0)
		return GT_EUSAGE;
	gt_operand_stdin(&st);
	if (st.noperands < 1)
		return gt_usage_error(cmd, "'query' takes a TRACE or index file (several traces or a directory: one job)");
	r.table = r.c.format != GT_OUT_JSON;
	r.many = viewports != NULL;
	if (!viewports && !v.time)
		return gt_usage_error(cmd, "'query' needs --time A:B or --viewports FILE");
	const char *why;
	int64_t a, b;
	uint32_t l0, l1;
	bool absolute;
	if (v.time && gt_parse_time_window_ex(v.time, &a, &b, &absolute, &why) < 0)
		return gt_usage_error(cmd, "bad --time '%s': %s", v.time, why);
	if (v.lanes && gt_parse_lane_window(v.lanes, &l0, &l1, &why) < 0)
		return gt_usage_error(cmd, "bad --lanes '%s': %s", v.lanes, why);
	gt_cli_device_prefetch(&r.c, GT_WORK_QUERY);
	int rc = gt_cli_index_open_many(&r.x, &r.c, st.operands, st.noperands);
	if (rc == 0)
		rc = open_device(&r);
	if (rc == 0 && !(r.cand = malloc(((size_t)r.x.ix->batch_count + 1) * sizeof *r.cand))) {
		fprintf(stderr, "gputrace: out of memory\n");
		rc = GT_EINPUT;
	}
	gt_outfile out = {0};
	gt_error err = {0};
	/* table formats write through gt_cli_write_table at the end */
	if (rc == 0 && !r.table && gt_outfile_open(&out, r.c.output, false, &err) < 0)
		rc = gt_report(&err);
	if (rc == 0) {
		if (viewports) {
			rc = run_viewports(&r, out.fp, viewports, &v);
			if (rc == 0)
				gt_notice(&r.c, "%llu queries, %llu cache hits, %llu overflowed", (unsigned long long)r.queries,
					  (unsigned long long)r.cache_hits, (unsigned long long)r.overflows);
		} else {
			gt_tquery q;
			uint64_t cap;
			if (resolve(&r, &v, &q, &cap, &why) < 0)
				rc = gt_usage_error(cmd, "%s", why);
			else
				rc = run_query(&r, out.fp, r.c.format == GT_OUT_JSON, NULL, &q, cap);
		}
		if (r.table) {
			if (rc == 0)
				rc = write_rows(&r, viewports != NULL, st.operands[0]);
		} else if (rc == 0 && gt_outfile_commit(&out, &err) < 0) {
			rc = gt_report(&err);
		} else if (rc != 0) {
			gt_outfile_abort(&out);
		}
	}
	if (rc == 0 && r.c.strict && (r.overflows || r.vbits)) {
		fprintf(stderr, "gputrace: %s\n", r.vbits ? "the hierarchy failed validation (--strict)"
							   : "candidates overflowed the capacity (--strict)");
		rc = GT_EINCOMPLETE;
	}
	close_run(&r);
	return rc;
}

const struct gt_command gt_cmd_query = {
	.name = "query",
	.args = "TRACE...|FILE.gtx",
	.summary = "viewport candidate batches (time x lanes x groups) from the temporal index, in canonical order",
	.opts = query_opts,
	.run = run_query_cmd,
};
