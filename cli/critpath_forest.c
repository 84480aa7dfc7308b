/* critical-path --model forest: the seed's exact duration-weighted path
 * over a trace's parent forest (or a --forest CSV), on the chosen device. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "device_open.h"
#include "cl/cl.h"
#include "forest/forest.h"
#include "base/base.h"
#include "critpath_forest.h"
#include "write/write.h"
#include "stages.h"
#include "output.h"

/* The forest being analysed, from a trace or a CSV. */
struct input {
	uint32_t n;
	uint32_t *parent;
	int64_t *dur;
	gt_model *model; /* NULL for --forest */
};

static int parse_i64(const char *s, const char *end, int64_t *out)
{
	char buf[32];
	size_t len = (size_t)(end - s);
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *e;
	errno = 0;
	long long v = strtoll(buf, &e, 10);
	if (errno || *e)
		return -1;
	*out = v;
	return 0;
}

/* Reads `parent,duration` lines; parent -1 is a root, others out of range
 * are kept as invalid parents (the analysis flags them). */
static int read_forest(const char *path, struct input *in, gt_error *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!f)
		return gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	ssize_t len;
	uint64_t lineno = 0, n = 0;
	int64_t *parents = NULL;
	int rc = -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1) {
			if (strcmp(line, "parent,duration") != 0) {
				gt_fail(err, GT_EINPUT, "'%s': line 1: expected the header 'parent,duration'", path);
				goto out;
			}
			continue;
		}
		if (len == 0) {
			gt_fail(err, GT_EINPUT, "'%s': line %" PRIu64 ": empty line", path, lineno);
			goto out;
		}
		char *comma = strchr(line, ',');
		int64_t p, d;
		if (!comma || parse_i64(line, comma, &p) < 0 || parse_i64(comma + 1, line + len, &d) < 0) {
			gt_fail(err, GT_EINPUT, "'%s': line %" PRIu64 ": expected 'parent,duration' as two integers",
				path, lineno);
			goto out;
		}
		if (n == GT_CP_MAX_ROWS) {
			gt_fail(err, GT_EINPUT, "'%s': line %" PRIu64 ": more than %u rows", path, lineno, GT_CP_MAX_ROWS);
			goto out;
		}
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 4096;
			int64_t *np = realloc(parents, alloc * sizeof *np);
			int64_t *nd = realloc(in->dur, alloc * sizeof *nd);
			if (np)
				parents = np;
			if (nd)
				in->dur = nd;
			if (!np || !nd) {
				gt_fail(err, GT_EINPUT, "'%s': out of memory at line %" PRIu64, path, lineno);
				goto out;
			}
		}
		parents[n] = p;
		in->dur[n] = d;
		n++;
	}
	if (ferror(f)) {
		gt_fail(err, GT_EINPUT, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (lineno == 0) {
		gt_fail(err, GT_EINPUT, "'%s': empty file, expected the header 'parent,duration'", path);
		goto out;
	}
	in->n = (uint32_t)n;
	in->parent = malloc((n ? n : 1) * sizeof *in->parent);
	if (!in->parent) {
		gt_fail(err, GT_EINPUT, "'%s': out of memory", path);
		goto out;
	}
	for (uint64_t i = 0; i < n; i++)
		in->parent[i] = parents[i] == -1 ? GT_CP_ROOT
				: parents[i] >= 0 && (uint64_t)parents[i] < n ? (uint32_t)parents[i]
				: GT_CP_MAX_ROWS; /* out of range: >= n */
	rc = 0;
out:
	free(line);
	free(parents);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* The forest's two columns from the span table: a gather of 48-byte
 * records, most of the preparing on a large index. Rows [0, filled) are
 * done; the device path fills the rest piece by piece while it uploads. */
struct forest_fill {
	struct input *in;
	unsigned threads;
	uint64_t first;  /* of the piece being filled */
	uint64_t filled;
};

static int copy_range(void *ctx, uint64_t a, uint64_t b)
{
	const struct forest_fill *f = ctx;
	const gt_span *spans = f->in->model->spans;
	for (uint64_t i = f->first + a; i < f->first + b; i++) {
		f->in->parent[i] = spans[i].parent; /* GT_NONE == GT_CP_ROOT */
		f->in->dur[i] = spans[i].dur_ns;
	}
	return 0;
}

/* Fills rows [first, end) on threads. */
static int fill_rows(void *ctx, uint64_t first, uint64_t end)
{
	struct forest_fill *f = ctx;
	f->first = first;
	gt_parallel_ranges(end - first, 1u << 16, f->threads, copy_range, f);
	f->filled = end;
	return 0;
}

static int forest_alloc(gt_model *m, struct input *in)
{
	in->model = m;
	in->n = m->span_count;
	in->parent = gt_big_malloc((size_t)in->n + 1, sizeof *in->parent);
	in->dur = gt_big_malloc((size_t)in->n + 1, sizeof *in->dur);
	return in->parent && in->dur ? 0 : -1;
}

static void write_id(gt_jsonw *w, const gt_model *m, const gt_id *id)
{
	if (id->is_str)
		gt_jsonw_str(w, gt_model_str(m, id->str));
	else
		gt_jsonw_i64(w, id->num);
}

static void write_path(gt_jsonw *w, const struct input *in, const gt_cp_rows *o, const gt_cp_summary *s)
{
	gt_jsonw_key(w, "path");
	gt_jsonw_begin_array(w);
	if (s->endpoint != GT_CP_NONE) {
		/* Collect the marked rows endpoint -> root, print them root first. */
		uint32_t *ids = malloc(((size_t)s->marked_rows + 1) * sizeof *ids), k = 0;
		for (uint32_t r = s->endpoint; ids && r != GT_CP_NONE; r = o->critical_predecessor[r])
			if (o->critical_mask[r])
				ids[k++] = r;
		while (ids && k > 0) {
			uint32_t r = ids[--k];
			gt_jsonw_begin_object(w);
			gt_jsonw_key(w, "id");
			gt_jsonw_u64(w, r);
			const gt_model *m = in->model;
			if (m) {
				const gt_span *sp = &m->spans[r];
				const gt_track *t = &m->tracks[sp->track];
				gt_jsonw_key(w, "name");
				gt_jsonw_str(w, gt_model_str(m, sp->name));
				gt_jsonw_key(w, "cat");
				gt_jsonw_str(w, gt_model_str(m, sp->cat));
				gt_jsonw_key(w, "pid");
				write_id(w, m, &m->processes[t->process].pid);
				gt_jsonw_key(w, "tid");
				if (t->kind == GT_TRACK_THREAD)
					write_id(w, m, &t->tid);
				else
					gt_jsonw_null(w);
				gt_jsonw_time(w, "ts_us", sp->ts_ns);
			}
			gt_jsonw_time(w, "dur_us", in->dur[r]);
			gt_jsonw_time(w, "path_duration_us", o->path_duration[r]);
			gt_jsonw_end_object(w);
		}
		free(ids);
	}
	gt_jsonw_end_array(w);
}

/* The JSON document's "rows": one object per row, in row order. */
static void rows_table(gt_table *t, gt_column *cols, const gt_cp_rows *o, uint32_t n)
{
	gt_column c[] = {
		{.name = "path_duration_us", .arrow_name = "path_duration_ns", .type = GT_COL_NS_US,
		 .data = o->path_duration},
		{.name = "slack_us", .arrow_name = "slack_ns", .type = GT_COL_NS_US, .data = o->slack},
		{.name = "critical_predecessor", .type = GT_COL_U32, .data = o->critical_predecessor,
		 .has_null = true, .null_u32 = GT_CP_NONE},
		{.name = "root", .type = GT_COL_U32, .data = o->root, .has_null = true, .null_u32 = GT_CP_NONE},
		{.name = "hop_count", .type = GT_COL_U32, .data = o->hop_count, .has_null = true,
		 .null_u32 = GT_CP_NONE},
		{.name = "critical_mask", .type = GT_COL_BOOL, .data = o->critical_mask},
	};
	memcpy(cols, c, sizeof c);
	memset(t, 0, sizeof *t);
	t->name = "rows";
	t->cols = cols;
	t->ncols = sizeof c / sizeof c[0];
	t->nrows = n;
}

/* What the table formats' getters read: the input, the result and the path
 * (row ids, root first). */
struct cp_view {
	const struct input *in;
	const gt_cp_rows *o;
	const uint32_t *path;
	uint32_t path_len;
};

static int64_t row_index(const void *ctx, uint64_t row)
{
	(void)ctx;
	return (int64_t)row;
}
static int64_t row_parent(const void *ctx, uint64_t row)
{
	return ((const struct cp_view *)ctx)->in->parent[row];
}
static int64_t row_dur(const void *ctx, uint64_t row)
{
	return ((const struct cp_view *)ctx)->in->dur[row];
}
static int64_t row_name(const void *ctx, uint64_t row)
{
	return ((const struct cp_view *)ctx)->in->model->spans[row].name;
}
static int64_t row_cat(const void *ctx, uint64_t row)
{
	return ((const struct cp_view *)ctx)->in->model->spans[row].cat;
}

/* The per-row table of the table formats: the JSON rows' columns after the
 * row id, its parent, (name and category from a trace) and its duration. */
static void full_rows_table(gt_table *t, gt_column *cols, const struct cp_view *v)
{
	const gt_model *m = v->in->model;
	size_t k = 0;
	cols[k++] = (gt_column){.name = "id", .type = GT_COL_U32, .get_i64 = row_index};
	cols[k++] = (gt_column){.name = "parent", .type = GT_COL_U32, .get_i64 = row_parent, .get_ctx = v,
				.has_null = true, .null_u32 = GT_CP_ROOT};
	if (m) {
		cols[k++] = (gt_column){.name = "name", .type = GT_COL_DICT, .get_i64 = row_name, .get_ctx = v,
					.dict_get = gt_cli_model_string, .dict_ctx = m};
		cols[k++] = (gt_column){.name = "cat", .type = GT_COL_DICT, .get_i64 = row_cat, .get_ctx = v,
					.dict_get = gt_cli_model_string, .dict_ctx = m};
	}
	cols[k++] = (gt_column){.name = "dur_us", .arrow_name = "dur_ns", .type = GT_COL_NS_US,
				.get_i64 = row_dur, .get_ctx = v};
	gt_table rt;
	rows_table(&rt, cols + k, v->o, v->in->n);
	memset(t, 0, sizeof *t);
	t->name = "rows";
	t->cols = cols;
	t->ncols = k + rt.ncols;
	t->nrows = v->in->n;
}

static const gt_span *path_span(const struct cp_view *v, uint64_t row)
{
	return &v->in->model->spans[v->path[row]];
}
static const gt_track *path_track(const struct cp_view *v, uint64_t row)
{
	return &v->in->model->tracks[path_span(v, row)->track];
}
static const gt_id *path_pid(const struct cp_view *v, uint64_t row)
{
	return &v->in->model->processes[path_track(v, row)->process].pid;
}
static const gt_id *path_tid(const struct cp_view *v, uint64_t row)
{
	const gt_track *t = path_track(v, row);
	return t->kind == GT_TRACK_THREAD ? &t->tid : NULL; /* async: null, as in the JSON path */
}

static int64_t path_id(const void *ctx, uint64_t row)
{
	return ((const struct cp_view *)ctx)->path[row];
}
static const char *path_name(const void *ctx, uint64_t row)
{
	const struct cp_view *v = ctx;
	return gt_model_str(v->in->model, path_span(v, row)->name);
}
static const char *path_cat(const void *ctx, uint64_t row)
{
	const struct cp_view *v = ctx;
	return gt_model_str(v->in->model, path_span(v, row)->cat);
}
static int64_t path_pid_num(const void *ctx, uint64_t row)
{
	return path_pid(ctx, row)->num;
}
static int64_t path_tid_num(const void *ctx, uint64_t row)
{
	return path_tid(ctx, row)->num;
}

/* Text ids: strings as they are, numbers in decimal. */
static _Thread_local char id_buf[2][32];
static const char *id_text(const gt_model *m, const gt_id *id, int slot)
{
	if (!id)
		return NULL;
	if (id->is_str)
		return gt_model_str(m, id->str);
	snprintf(id_buf[slot], sizeof id_buf[slot], "%lld", (long long)id->num);
	return id_buf[slot];
}
static const char *path_pid_text(const void *ctx, uint64_t row)
{
	const struct cp_view *v = ctx;
	return id_text(v->in->model, path_pid(v, row), 0);
}
static const char *path_tid_text(const void *ctx, uint64_t row)
{
	const struct cp_view *v = ctx;
	return id_text(v->in->model, path_tid(v, row), 1);
}
static int64_t path_ts(const void *ctx, uint64_t row)
{
	return path_span(ctx, row)->ts_ns;
}
static int64_t path_dur(const void *ctx, uint64_t row)
{
	const struct cp_view *v = ctx;
	return v->in->dur[v->path[row]];
}
static int64_t path_total(const void *ctx, uint64_t row)
{
	const struct cp_view *v = ctx;
	return v->o->path_duration[v->path[row]];
}

/* The path table, root first: the JSON "path" objects as rows. pid and tid
 * are int64 unless a string id (or, for tid, an async span without a
 * thread) is on the path; then they are text in every row. */
static void path_table(gt_table *t, gt_column *cols, const struct cp_view *v)
{
	const gt_model *m = v->in->model;
	size_t k = 0;
	cols[k++] = (gt_column){.name = "id", .type = GT_COL_U32, .get_i64 = path_id, .get_ctx = v};
	if (m) {
		bool pid_text = false, tid_text = false;
		for (uint32_t i = 0; i < v->path_len; i++) {
			const gt_id *tid = path_tid(v, i);
			pid_text |= path_pid(v, i)->is_str;
			tid_text |= !tid || tid->is_str;
		}
		cols[k++] = (gt_column){.name = "name", .type = GT_COL_STR, .get_str = path_name, .get_ctx = v};
		cols[k++] = (gt_column){.name = "cat", .type = GT_COL_STR, .get_str = path_cat, .get_ctx = v};
		cols[k++] = (gt_column){.name = "pid", .type = pid_text ? GT_COL_STR : GT_COL_I64,
					.get_i64 = path_pid_num, .get_str = path_pid_text, .get_ctx = v};
		cols[k++] = (gt_column){.name = "tid", .type = tid_text ? GT_COL_STR : GT_COL_I64,
					.get_i64 = path_tid_num, .get_str = path_tid_text, .get_ctx = v};
		cols[k++] = (gt_column){.name = "ts_us", .arrow_name = "ts_ns", .type = GT_COL_NS_US,
					.get_i64 = path_ts, .get_ctx = v};
	}
	cols[k++] = (gt_column){.name = "dur_us", .arrow_name = "dur_ns", .type = GT_COL_NS_US,
				.get_i64 = path_dur, .get_ctx = v};
	cols[k++] = (gt_column){.name = "path_duration_us", .arrow_name = "path_duration_ns",
				.type = GT_COL_NS_US, .get_i64 = path_total, .get_ctx = v};
	memset(t, 0, sizeof *t);
	t->name = "path";
	t->cols = cols;
	t->ncols = k;
	t->nrows = v->path_len;
}

/* The marked rows from the endpoint back to the root, as ids root first;
 * NULL only when out of memory. */
static uint32_t *collect_path(const gt_cp_rows *o, const gt_cp_summary *s, uint32_t *len)
{
	uint32_t *ids = malloc(((size_t)s->marked_rows + 1) * sizeof *ids), k = 0;
	if (!ids)
		return NULL;
	if (s->endpoint != GT_CP_NONE)
		for (uint32_t r = s->endpoint; r != GT_CP_NONE && k < s->marked_rows; r = o->critical_predecessor[r])
			if (o->critical_mask[r])
				ids[k++] = r;
	for (uint32_t i = 0; i < k / 2; i++) {
		uint32_t x = ids[i];
		ids[i] = ids[k - 1 - i];
		ids[k - 1 - i] = x;
	}
	*len = k;
	return ids;
}

/* The summary as key/value text: the Arrow schema metadata of the table
 * formats, and their notice line on stderr. */
enum { SUMMARY_KEYS = 9 };
struct summary_text {
	const char *keys[SUMMARY_KEYS];
	char vals[SUMMARY_KEYS][320];
};

static void summary_text(struct summary_text *st, uint32_t n, const gt_cp_summary *s, const char *device)
{
	static const char *const keys[SUMMARY_KEYS] = {
		"spans", "max_path_duration_ns", "endpoint", "max_hop_count", "path_rows",
		"marked_rows", "flags", "flag_bits", "device",
	};
	memcpy(st->keys, keys, sizeof keys);
	snprintf(st->vals[0], sizeof st->vals[0], "%" PRIu32, n);
	snprintf(st->vals[1], sizeof st->vals[1], "%" PRId64, s->max_path_duration);
	if (s->endpoint == GT_CP_NONE)
		snprintf(st->vals[2], sizeof st->vals[2], "none");
	else
		snprintf(st->vals[2], sizeof st->vals[2], "%" PRIu32, s->endpoint);
	snprintf(st->vals[3], sizeof st->vals[3], "%" PRIu32, (uint32_t)s->max_hop_count);
	snprintf(st->vals[4], sizeof st->vals[4], "%" PRIu64, (uint64_t)s->path_rows);
	snprintf(st->vals[5], sizeof st->vals[5], "%" PRIu64, (uint64_t)s->marked_rows);
	size_t len = 0;
	st->vals[6][0] = '\0';
	for (int k = 0; k < GT_CP_FLAG_COUNT; k++)
		if (s->flags & (1u << k))
			len += (size_t)snprintf(st->vals[6] + len, sizeof st->vals[6] - len, "%s%s", len ? "," : "",
						gt_cp_flag_names[k]);
	snprintf(st->vals[7], sizeof st->vals[7], "%u", (unsigned)s->flags);
	snprintf(st->vals[8], sizeof st->vals[8], "%s", device);
}

static int write_table(const struct gt_common *c, const char *source, const struct input *in, const gt_cp_rows *o,
		       const gt_cp_summary *s, const char *device, bool with_rows)
{
	struct cp_view v = {.in = in, .o = o};
	uint32_t *path = NULL;
	if (!with_rows && !(path = collect_path(o, s, &v.path_len))) {
		fprintf(stderr, "gputrace: out of memory for the path\n");
		return GT_EINPUT;
	}
	v.path = path;
	gt_column cols[16];
	gt_table t;
	if (with_rows)
		full_rows_table(&t, cols, &v);
	else
		path_table(&t, cols, &v);
	struct summary_text st;
	summary_text(&st, in->n, s, device);
	const char *mk[2 + SUMMARY_KEYS], *mv[2 + SUMMARY_KEYS];
	gt_cli_table_meta(&t, source, mk, mv);
	char line[4096];
	size_t len = (size_t)snprintf(line, sizeof line, "critical path:");
	for (int k = 0; k < SUMMARY_KEYS; k++) {
		mk[2 + k] = st.keys[k];
		mv[2 + k] = st.vals[k];
		if (len < sizeof line)
			len += (size_t)snprintf(line + len, sizeof line - len, " %s=%s", st.keys[k],
						st.vals[k][0] ? st.vals[k] : "none");
	}
	t.nmeta = 2 + SUMMARY_KEYS;
	int rc = gt_cli_write_table(c, &t);
	if (rc == 0)
		gt_notice(c, "%s", line);
	free(path);
	return rc;
}

static int write_document(FILE *out, const struct input *in, const gt_cp_rows *o, const gt_cp_summary *s,
			  const char *device, bool with_rows, gt_error *err)
{
	gt_jsonw w;
	gt_jsonw_init(&w, out, true);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "summary");
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "spans");
	gt_jsonw_u64(&w, in->n);
	gt_jsonw_key(&w, "max_path_duration_ns");
	gt_jsonw_i64(&w, s->max_path_duration);
	gt_jsonw_key(&w, "max_path_duration_us"); /* gt_jsonw_time would repeat the _ns key */
	gt_jsonw_us(&w, s->max_path_duration);
	gt_jsonw_key(&w, "endpoint");
	if (s->endpoint == GT_CP_NONE)
		gt_jsonw_null(&w);
	else
		gt_jsonw_u64(&w, s->endpoint);
	gt_jsonw_key(&w, "max_hop_count");
	gt_jsonw_u64(&w, s->max_hop_count);
	gt_jsonw_key(&w, "path_rows");
	gt_jsonw_u64(&w, s->path_rows);
	gt_jsonw_key(&w, "marked_rows");
	gt_jsonw_u64(&w, s->marked_rows);
	gt_jsonw_key(&w, "flags");
	gt_jsonw_begin_array(&w);
	for (int k = 0; k < GT_CP_FLAG_COUNT; k++)
		if (s->flags & (1u << k))
			gt_jsonw_str(&w, gt_cp_flag_names[k]);
	gt_jsonw_end_array(&w);
	gt_jsonw_key(&w, "flag_bits");
	gt_jsonw_u64(&w, s->flags);
	gt_jsonw_key(&w, "device");
	gt_jsonw_str(&w, device);
	gt_jsonw_end_object(&w);
	write_path(&w, in, o, s);
	if (with_rows) {
		/* The table writer's JSON array, embedded as the value of "rows". */
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		gt_table t;
		gt_column cols[6];
		rows_table(&t, cols, o, in->n);
		if (!mem || gt_table_write(&t, GT_OUT_JSON, mem, err) < 0 || fclose(mem) != 0) {
			free(buf);
			return gt_fail(err, GT_EINPUT, "out of memory writing the rows");
		}
		while (len > 0 && (buf[len - 1] == '\n'))
			buf[--len] = '\0';
		gt_jsonw_key(&w, "rows");
		gt_jsonw_raw(&w, buf);
		free(buf);
	}
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
	return 0;
}

int gt_cli_forest_run(const struct gt_common *c, gt_model *model, const char *forest, const gt_cp_options *popt,
		      bool with_rows, struct gt_stages *st)
{
	gt_error err = {0};
	struct input in = {0};
	gt_cp_options opt = *popt;
	opt.threads = c->threads; /* the fast host path's threads */
	opt.path_only = c->format == GT_OUT_JSON && !with_rows; /* the document needs no more */
	int rc;
	if (forest) {
		if (read_forest(forest, &in, &err) < 0) {
			free(in.parent);
			free(in.dur);
			return gt_report(&err);
		}
	} else if (forest_alloc(model, &in) < 0) {
		gt_fail(&err, GT_EINPUT, "out of memory for the forest of %u spans", model->span_count);
		goto fail;
	}
	if (forest)
		gt_stages_mark(st, GT_STAGE_LOAD);

	char chosen[512];
	gt_cl *cl = NULL;
	if (gt_cli_device_open(c, GT_WORK_FOREST_PATH, in.n, &cl, chosen, sizeof chosen, &err) < 0)
		goto fail;
	gt_device_notice(c, chosen);
	char device[300];
	snprintf(device, sizeof device, "%s", cl ? gt_cl_device_name(cl) : "host");
	cl_program prog;
	if (cl && gt_cl_program(cl, "critpath", &prog, &err) < 0) {
		gt_cl_close(cl);
		goto fail;
	}
	if (cl)
		gt_verbose(c, "program critpath: %s", gt_cl_last_program_cached(cl) ? "from the cache" : "built");
	gt_stages_mark(st, GT_STAGE_SETUP);
	/* A device gets the columns piece by piece as they are gathered; the
	 * host path gathers them first. */
	struct forest_fill fill = {.in = &in, .threads = c->threads, .filled = forest ? in.n : 0};
	if (!cl && !forest) {
		fill_rows(&fill, 0, in.n);
		gt_stages_mark(st, GT_STAGE_PREPARE);
	}
	gt_cp_rows rows;
	gt_cp_summary sum;
	gt_cp_stats stats = {0};
	if (gt_cp_rows_alloc(&rows, in.n, &err) < 0) {
		gt_cl_close(cl);
		goto fail;
	}
	/* tests/critpath_traces.sh: the reference, the oracle of the fast host path */
	const char *ref = getenv("GPUTRACE_CRITPATH_REFERENCE");
	if (!cl && ref && strcmp(ref, "1") == 0) {
		rc = gt_critpath_host(in.parent, in.dur, in.n, &opt, &rows, &sum, &err);
	} else if (cl) {
		gt_cp_fill produce = {.fill = fill_rows, .ctx = &fill};
		const char *piece = getenv("GPUTRACE_UPLOAD_PIECE_ROWS"); /* tests: many pieces */
		if (piece)
			produce.piece_rows = strtoull(piece, NULL, 10);
		rc = gt_critpath_cl_fill(cl, in.parent, in.dur, in.n, forest ? NULL : &produce, &opt, &rows, &sum,
					 &stats, &err);
	} else {
		rc = gt_critpath_run(NULL, in.parent, in.dur, in.n, &opt, &rows, &sum, &err);
	}
	double took = gt_stages_mark(st, GT_STAGE_COMPUTE);
	if (rc == 0 && cl) {
		/* From the compute stage: the gather (the caller's threads), then the
		 * device's copies and kernels (profiling events). The copies overlap
		 * the gather, so they are moved only as far as the stage holds them. */
		struct {
			enum gt_stage stage;
			uint64_t ns;
		} parts[] = {
			{GT_STAGE_PREPARE, stats.fill_ns},
			{GT_STAGE_TRANSFERS, stats.transfer_ns},
			{GT_STAGE_KERNELS, stats.kernel_ns},
		};
		for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
			double moved = (double)parts[k].ns * 1e-9;
			if (moved > took)
				moved = took;
			st->s[parts[k].stage] += moved;
			st->s[GT_STAGE_COMPUTE] -= moved;
			took -= moved;
		}
	}
	if (rc < 0 && cl && err.cause == GT_CAUSE_DEVICE_MEMORY) {
		/* the same exact result, computed on the host */
		gt_notice(c, "%s; computing on the host instead", err.msg);
		memset(&err, 0, sizeof err);
		snprintf(device, sizeof device, "host");
		if (fill.filled < in.n)
			fill_rows(&fill, fill.filled, in.n);
		rc = gt_critpath_run(NULL, in.parent, in.dur, in.n, &opt, &rows, &sum, &err);
		gt_stages_mark(st, GT_STAGE_COMPUTE);
	}
	gt_cli_device_close_beside(cl);
	if (rc < 0) {
		gt_cp_rows_free(&rows);
		goto fail;
	}

	if (c->format != GT_OUT_JSON) {
		rc = write_table(c, forest ? forest : model->source, &in, &rows, &sum, device, with_rows);
	} else {
		gt_outfile of = {0};
		rc = 0;
		if (gt_outfile_open(&of, c->output, false, &err) < 0 ||
		    write_document(of.fp, &in, &rows, &sum, device, with_rows, &err) < 0 ||
		    gt_outfile_commit(&of, &err) < 0) {
			gt_outfile_abort(&of);
			rc = gt_report(&err);
		}
	}
	gt_cp_rows_free(&rows);
	gt_stages_mark(st, GT_STAGE_OUTPUT);
	if (rc == 0)
		gt_stages_print(c, st, device);
	if (rc == 0 && sum.flags && c->strict) {
		fprintf(stderr, "gputrace: the critical path is flagged (flag_bits %u) and --strict was given\n",
			sum.flags);
		rc = GT_EINCOMPLETE;
	}
	free(in.parent);
	free(in.dur);
	return rc;
fail:
	free(in.parent);
	free(in.dur);
	return gt_report(&err);
}

