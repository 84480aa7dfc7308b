/* gputrace compare: a baseline trace against a new one (totals, per key,
 * critical path), with --fail-if conditions for CI jobs (exit 5 when one
 * holds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_open.h"
#include "cli.h"
#include "causal_edges.h"
#include "compare_report.h"
#include "causal/causal.h"
#include "cl/cl.h"
#include "compare/compare.h"
#include "forest/forest.h"
#include "write/write.h"
#include "load.h"
#include "output.h"

enum { OPT_FAIL_IF = OPT_COMMAND_BASE, OPT_BY, OPT_TOP, OPT_MODEL, OPT_STEP, OPT_SORT };

static const struct gt_opt compare_opts[] = {
	{"fail-if", 0, "EXPR", OPT_FAIL_IF,
	 "exit 5 when EXPR holds, e.g. 'critical_path.median.rel > 3% and critical_path.p < 0.01' (repeatable)"},
	{"step", 0, "GLOB", OPT_STEP, "per-step statistics: one window per span named GLOB, e.g. 'ProfilerStep#*'"},
	{"by", 0, "KEY", OPT_BY, "compare per name (default), cat or group"},
	{"model", 0, "MODEL", OPT_MODEL, "critical path: causal (default; what bounds the wall time) or forest"},
	{"top", 0, "K", OPT_TOP, "list the K keys first in the --sort order (default 20, 0: all)"},
	{"sort", 0, "ORDER", OPT_SORT, "key order: self (default: |self time change|), total, cp or change (|relative|)"},
	{"format", 'f', "FMT", OPT_FORMAT, "json (default), text, markdown, ndjson, csv, arrow or arrow-stream"},
	GT_OPT_EDGES,
	GT_OPT_OUTPUT, GT_OPT_PARENTS, GT_OPT_DEVICE, GT_OPT_STRICT, GT_OPT_THREADS,
	GT_OPT_MAX_EXPANSION, GT_OPT_QUIET, GT_OPT_VERBOSE, GT_OPT_PROGRESS, GT_OPT_HELP, GT_OPT_END,
};

static const char *const by_names[] = {"name", "cat", "group"};

/* One side: the model and its critical path. */
struct side {
	const char *input; /* the path given */
	gt_model m;
	gt_cp_rows rows;       /* forest */
	gt_cp_summary sum;     /* forest */
	uint8_t *on_path;      /* causal, per span */
	int64_t *critical_ns;  /* causal, per span */
	gt_cmp_cp cp;
};

/* The seed's forest path, on the chosen device (cl NULL: the host
 * reference); exact and the same on every device. */
static int forest_path(gt_cl *cl, struct side *s)
{
	gt_error err = {0};
	uint32_t n = s->m.span_count;
	uint32_t *parent = malloc((n ? n : 1) * sizeof *parent);
	int64_t *dur = malloc((n ? n : 1) * sizeof *dur);
	int rc = 0;
	if (!parent || !dur) {
		rc = gt_fail(&err, GT_EINPUT, "out of memory");
	} else {
		for (uint32_t i = 0; i < n; i++) {
			parent[i] = s->m.spans[i].parent; /* GT_NONE == GT_CP_ROOT */
			dur[i] = s->m.spans[i].dur_ns;
		}
		rc = gt_cp_rows_alloc(&s->rows, n, &err);
		if (rc == 0)
			rc = gt_critpath_run(cl, parent, dur, n, NULL, &s->rows, &s->sum, &err);
	}
	free(parent);
	free(dur);
	if (rc < 0)
		return gt_report(&err);
	s->cp.mask = s->rows.critical_mask;
	s->cp.duration = s->sum.max_path_duration;
	s->cp.flags = s->sum.flags;
	s->cp.rows = s->sum.path_rows;
	return 0;
}

/* A trace's error names the trace; a device's (one opened at the first
 * device step) does not. */
static int analysis_failed(const struct side *s, const gt_error *err)
{
	return err->status == GT_EINPUT ? gt_report_input(s->input, err) : gt_report(err);
}

/* The causal path over the whole trace (one window): each span's time on
 * it, for the per-key cp_ns. */
static int causal_path(gt_causal_cl_engine *dev, const struct gt_common *c, const struct gt_causal_edges *edges,
		       struct side *s)
{
	gt_error err = {0};
	gt_causal_options o = {.rows = true, .threads = c->threads, .hop_count_only = true};
	gt_causal_edges_apply(edges, &o);
	gt_causal_result r;
	if (gt_causal_analyze(&s->m, &o, dev ? &dev->engine : NULL, &r, &err) < 0)
		return analysis_failed(s, &err);
	uint32_t n = s->m.span_count;
	s->on_path = calloc(n ? n : 1, 1);
	s->critical_ns = calloc(n ? n : 1, sizeof *s->critical_ns);
	if (!s->on_path || !s->critical_ns) {
		gt_causal_result_free(&r);
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	const gt_causal_window *w = &r.windows[0];
	uint32_t on = 0;
	for (uint32_t i = 0; i < w->row_count; i++) {
		const gt_causal_row *row = &w->rows[i];
		s->on_path[row->span] = row->on_path;
		s->critical_ns[row->span] = row->critical_ns;
		on += row->on_path;
	}
	s->cp.mask = s->on_path;
	s->cp.critical_ns = s->critical_ns;
	s->cp.duration = w->path_duration_ns;
	s->cp.flags = w->flags;
	s->cp.rows = on;
	gt_causal_result_free(&r);
	return 0;
}

/* The per-step values of one side: the causal model's --step windows. */
static int step_windows(gt_causal_cl_engine *dev, const struct gt_common *c, const struct gt_causal_edges *edges,
			const char *glob, gt_compare *cmp, int side, const struct side *s)
{
	const gt_model *m = &s->m;
	gt_error err = {0};
	gt_causal_options o = {.rows = true, .threads = c->threads, .step_glob = glob, .hop_count_only = true};
	gt_causal_edges_apply(edges, &o);
	gt_causal_result r;
	if (gt_causal_analyze(m, &o, dev ? &dev->engine : NULL, &r, &err) < 0)
		return analysis_failed(s, &err);
	int rc = gt_compare_steps(cmp, side, m, &r, &err) < 0 ? gt_report(&err) : 0;
	gt_causal_result_free(&r);
	return rc;
}

/* A rational as a JSON number with 6 decimals, or null. */
static void json_rat(gt_jsonw *w, gt_rat r)
{
	char buf[96];
	gt_rat_format(r, 6, buf, sizeof buf);
	gt_jsonw_raw(w, buf);
}

/* An integer-valued rational (den 1; an abs may pass int64) or null. */
static void json_int(gt_jsonw *w, gt_rat r)
{
	char buf[96];
	if (r.den != 1) {
		gt_jsonw_null(w);
		return;
	}
	gt_rat_format(r, 0, buf, sizeof buf);
	gt_jsonw_raw(w, buf);
}

/* An integer when it is one, else 6 decimals (a median's half). */
static void json_num(gt_jsonw *w, gt_rat r)
{
	if (r.den == 1)
		json_int(w, r);
	else
		json_rat(w, r);
}

static bool with_steps; /* --step: the per-step statistics are reported */

/* p: 6 significant digits (a p of 1e-11 is not 0), or null. */
static void json_p(gt_jsonw *w, gt_rat p)
{
	char buf[64];
	if (!p.den) {
		gt_jsonw_null(w);
		return;
	}
	snprintf(buf, sizeof buf, "%.6g", (double)p.num / (double)p.den);
	gt_jsonw_raw(w, buf);
}

/* The per-step statistics of a field: n, min, median, max, mad as changes,
 * and the U test's p. */
static void json_steps(gt_jsonw *w, const gt_compare *c, const gt_cmp_key *k, int field)
{
	if (!with_steps || !gt_cmp_field_has_steps(field))
		return;
	gt_cmp_stats all;
	gt_cmp_field_stats(c, k, field, &all);
	for (int st = GT_S_N; st < GT_S_COUNT; st++) {
		gt_jsonw_key(w, gt_cmp_stat_names[st]);
		gt_jsonw_begin_object(w);
		gt_rat b = all.v[st][0], n = all.v[st][1];
		for (int ch = 0; ch < GT_C_COUNT; ch++) {
			if (st == GT_S_N && ch > GT_C_NEW)
				break;
			gt_jsonw_key(w, gt_cmp_change_names[ch]);
			gt_rat v = gt_rat_change(b, n, ch);
			if (ch == GT_C_REL)
				json_rat(w, v);
			else
				json_num(w, v);
		}
		gt_jsonw_end_object(w);
	}
	gt_jsonw_key(w, "p");
	json_p(w, all.p);
}

static void json_change(gt_jsonw *w, const gt_compare *c, const gt_cmp_key *k, int field)
{
	bool ratio = gt_cmp_field_kind(field) == GT_KIND_RATIO;
	gt_jsonw_begin_object(w);
	for (int ch = 0; ch < GT_C_COUNT; ch++) {
		gt_jsonw_key(w, gt_cmp_change_names[ch]);
		gt_rat v = gt_cmp_change_value(c, k, field, ch);
		if (ratio || ch == GT_C_REL)
			json_rat(w, v);
		else
			json_int(w, v);
	}
	json_steps(w, c, k, field);
	gt_jsonw_end_object(w);
}

static bool forest_model; /* --model forest: the flags are forest.h's */

static void json_flags(gt_jsonw *w, uint32_t flags)
{
	gt_jsonw_begin_array(w);
	int count = forest_model ? GT_CP_FLAG_COUNT : GT_CAUSAL_FLAG_COUNT;
	for (int b = 0; b < count; b++)
		if (flags & (1u << b))
			gt_jsonw_str(w, forest_model ? gt_cp_flag_names[b] : gt_causal_flag_names[b]);
	gt_jsonw_end_array(w);
}

/* Keys on either critical path, by |share change| descending, then key. */
static const gt_compare *share_cmp_ctx;
static int share_order(const void *a, const void *b)
{
	const gt_cmp_key *x = *(const gt_cmp_key *const *)a, *y = *(const gt_cmp_key *const *)b;
	gt_rat dx = gt_cmp_change_value(share_cmp_ctx, x, GT_F_CP_SHARE, GT_C_ABS);
	gt_rat dy = gt_cmp_change_value(share_cmp_ctx, y, GT_F_CP_SHARE, GT_C_ABS);
	/* a null share change (a path of duration 0) sorts last */
	if (!dx.den || !dy.den)
		return !dx.den != !dy.den ? (!dx.den ? 1 : -1) : strcmp(x->key, y->key);
	if (dx.num < 0)
		dx.num = -dx.num;
	if (dy.num < 0)
		dy.num = -dy.num;
	int r = gt_rat_cmp(dy, dx);
	return r ? r : strcmp(x->key, y->key);
}

/* How each condition's terms were judged: whether each held, and on
 * which key (conjunctions bind the terms over one selector to one key). */
struct judged {
	bool **term_held;
	const char ***term_keys;
};

static void write_json(FILE *out, const gt_compare *c, const struct side *s, size_t top,
		       const gt_cond_expr *conds, size_t ncond, const bool *held, const struct judged *jd,
		       const char *step)
{
	gt_jsonw w;
	gt_jsonw_init(&w, out, true);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "base");
	gt_jsonw_str(&w, s[0].m.source ? s[0].m.source : "");
	gt_jsonw_key(&w, "new");
	gt_jsonw_str(&w, s[1].m.source ? s[1].m.source : "");
	gt_jsonw_key(&w, "by");
	gt_jsonw_str(&w, by_names[c->by]);
	gt_jsonw_key(&w, "model");
	gt_jsonw_str(&w, forest_model ? "forest" : "causal");
	if (step) {
		gt_jsonw_key(&w, "step");
		gt_jsonw_str(&w, step);
		gt_jsonw_key(&w, "windows");
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "base");
		gt_jsonw_u64(&w, c->win[0].count);
		gt_jsonw_key(&w, "new");
		gt_jsonw_u64(&w, c->win[1].count);
		gt_jsonw_end_object(&w);
	}

	gt_jsonw_key(&w, "total");
	gt_jsonw_begin_object(&w);
	for (int f = GT_F_SPANS; f < GT_F_ALL_COUNT; f++) {
		gt_jsonw_key(&w, gt_cmp_field_names[f]);
		json_change(&w, c, NULL, f);
	}
	gt_jsonw_end_object(&w);

	gt_jsonw_key(&w, "critical_path");
	gt_jsonw_begin_object(&w);
	for (int ch = 0; ch < GT_C_COUNT; ch++) {
		gt_jsonw_key(&w, gt_cmp_change_names[ch]);
		gt_rat v = gt_cmp_change_value(c, NULL, GT_F_CRITICAL_PATH, ch);
		if (ch == GT_C_REL)
			json_rat(&w, v);
		else
			json_int(&w, v);
	}
	json_steps(&w, c, NULL, GT_F_CRITICAL_PATH);
	gt_jsonw_key(&w, "base_spans");
	gt_jsonw_u64(&w, c->side[0].cp_rows);
	gt_jsonw_key(&w, "new_spans");
	gt_jsonw_u64(&w, c->side[1].cp_rows);
	gt_jsonw_key(&w, "base_flags");
	json_flags(&w, c->side[0].cp_flags);
	gt_jsonw_key(&w, "new_flags");
	json_flags(&w, c->side[1].cp_flags);
	const char *const lists[2] = {"joined", "left"};
	for (int l = 0; l < 2; l++) {
		gt_jsonw_key(&w, lists[l]);
		gt_jsonw_begin_array(&w);
		for (size_t i = 0; i < c->key_count; i++) {
			const gt_cmp_key *k = &c->keys[i];
			bool in = l == 0 ? k->on_cp[1] && !k->on_cp[0] : k->on_cp[0] && !k->on_cp[1];
			if (in)
				gt_jsonw_str(&w, k->key);
		}
		gt_jsonw_end_array(&w);
	}
	size_t non = 0;
	const gt_cmp_key **on = malloc((c->key_count ? c->key_count : 1) * sizeof *on);
	for (size_t i = 0; on && i < c->key_count; i++)
		if (c->keys[i].on_cp[0] || c->keys[i].on_cp[1])
			on[non++] = &c->keys[i];
	share_cmp_ctx = c;
	if (on)
		qsort(on, non, sizeof *on, share_order);
	gt_jsonw_key(&w, "shares");
	gt_jsonw_begin_array(&w);
	for (size_t i = 0; i < non; i++) {
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "key");
		gt_jsonw_str(&w, on[i]->key);
		for (int ch = 0; ch < GT_C_REL; ch++) {
			gt_jsonw_key(&w, gt_cmp_change_names[ch]);
			json_rat(&w, gt_cmp_change_value(c, on[i], GT_F_CP_SHARE, ch));
		}
		gt_jsonw_end_object(&w);
	}
	gt_jsonw_end_array(&w);
	free(on);
	gt_jsonw_end_object(&w);

	gt_jsonw_key(&w, "key_count");
	gt_jsonw_u64(&w, c->key_count);
	gt_jsonw_key(&w, "keys");
	gt_jsonw_begin_array(&w);
	for (size_t i = 0; i < top; i++) {
		const gt_cmp_key *k = &c->keys[i];
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "key");
		gt_jsonw_str(&w, k->key);
		for (int f = 0; f < GT_F_KEY_COUNT; f++) {
			gt_jsonw_key(&w, gt_cmp_field_names[f]);
			json_change(&w, c, k, f);
		}
		gt_jsonw_end_object(&w);
	}
	gt_jsonw_end_array(&w);

	gt_jsonw_key(&w, "conditions");
	gt_jsonw_begin_array(&w);
	for (size_t i = 0; i < ncond; i++) {
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "expr");
		gt_jsonw_str(&w, conds[i].text);
		gt_rat v0;
		gt_cond_eval_key(c, &conds[i].terms[0], jd->term_keys[i][0], &v0);
		gt_jsonw_key(&w, "value"); /* the first term's */
		json_rat(&w, v0);
		gt_jsonw_key(&w, "held");
		gt_jsonw_bool(&w, held[i]);
		gt_jsonw_key(&w, "terms");
		gt_jsonw_begin_array(&w);
		for (size_t t = 0; t < conds[i].count; t++) {
			const gt_cond *term = &conds[i].terms[t];
			gt_rat v;
			const char *key = jd->term_keys[i][t];
			bool h = jd->term_held[i][t];
			gt_cond_eval_key(c, term, key, &v);
			gt_jsonw_begin_object(&w);
			gt_jsonw_key(&w, "expr");
			gt_jsonw_str(&w, term->text);
			if (t) {
				gt_jsonw_key(&w, "joined_by");
				gt_jsonw_str(&w, conds[i].or_before[t] ? "or" : "and");
			}
			gt_jsonw_key(&w, "value");
			json_rat(&w, v);
			gt_jsonw_key(&w, "key");
			if (key)
				gt_jsonw_str(&w, key);
			else
				gt_jsonw_null(&w);
			gt_jsonw_key(&w, "held");
			gt_jsonw_bool(&w, h);
			double pmin;
			if (gt_cond_p_unreachable(c, term, &pmin)) { /* said, never silent */
				char num[32];
				snprintf(num, sizeof num, "%.6f", pmin);
				gt_jsonw_key(&w, "unreachable");
				gt_jsonw_begin_object(&w);
				gt_jsonw_key(&w, "smallest_p");
				gt_jsonw_raw(&w, num);
				gt_jsonw_key(&w, "steps");
				gt_jsonw_begin_array(&w);
				gt_jsonw_u64(&w, c->win[0].count);
				gt_jsonw_u64(&w, c->win[1].count);
				gt_jsonw_end_array(&w);
				gt_jsonw_end_object(&w);
			}
			gt_jsonw_end_object(&w);
		}
		gt_jsonw_end_array(&w);
		gt_jsonw_end_object(&w);
	}
	gt_jsonw_end_array(&w);
	gt_jsonw_key(&w, "regression");
	bool any = false;
	for (size_t i = 0; i < ncond; i++)
		any |= held[i];
	gt_jsonw_bool(&w, any);
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
}

/* The per-key table of the table formats: FIELD.CHANGE columns as in the
 * condition grammar. Integers are int64 (a percentile of a side without
 * the key, and its abs, are 0 there: see count.base/new); ratios are
 * float64 rounded to 6 decimals, NaN (JSON null) when undefined. */
#define INT_FIELDS 8 /* count .. cp_ns */
struct row {
	const char *key;
	int64_t v[INT_FIELDS][3];
	double rel[INT_FIELDS];
	double share[4];
};

static double rat_f64(gt_rat r)
{
	char buf[96];
	if (!r.den)
		return __builtin_nan("");
	gt_rat_format(r, 6, buf, sizeof buf);
	return strtod(buf, NULL);
}

static int write_table(const struct gt_common *cc, const gt_compare *c, size_t top, const char *source)
{
	struct row *rows = calloc(top ? top : 1, sizeof *rows);
	enum { NCOLS = 1 + INT_FIELDS * 4 + 4 };
	gt_column cols[NCOLS];
	char names[NCOLS][32];
	if (!rows) {
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	for (size_t i = 0; i < top; i++) {
		const gt_cmp_key *k = &c->keys[i];
		rows[i].key = k->key;
		for (int f = 0; f < INT_FIELDS; f++) {
			for (int ch = 0; ch < 3; ch++) {
				gt_rat v = gt_cmp_change_value(c, k, f, ch);
				rows[i].v[f][ch] = v.den == 1 ? (int64_t)v.num : 0;
			}
			rows[i].rel[f] = rat_f64(gt_cmp_change_value(c, k, f, GT_C_REL));
		}
		for (int ch = 0; ch < 4; ch++)
			rows[i].share[ch] = rat_f64(gt_cmp_change_value(c, k, GT_F_CP_SHARE, ch));
	}
	memset(cols, 0, sizeof cols);
	size_t n = 0;
	cols[n++] = (gt_column){.name = "key", .type = GT_COL_STR, .data = &rows[0].key, .stride = sizeof *rows};
	for (int f = 0; f < INT_FIELDS; f++) {
		for (int ch = 0; ch < 4; ch++) {
			snprintf(names[n], sizeof names[n], "%s.%s", gt_cmp_field_names[f], gt_cmp_change_names[ch]);
			cols[n] = (gt_column){.name = names[n], .stride = sizeof *rows};
			if (ch < 3) {
				cols[n].type = GT_COL_I64;
				cols[n].data = &rows[0].v[f][ch];
			} else {
				cols[n].type = GT_COL_F64;
				cols[n].data = &rows[0].rel[f];
			}
			n++;
		}
	}
	for (int ch = 0; ch < 4; ch++) {
		snprintf(names[n], sizeof names[n], "cp_share.%s", gt_cmp_change_names[ch]);
		cols[n] = (gt_column){.name = names[n], .type = GT_COL_F64, .data = &rows[0].share[ch],
				      .stride = sizeof *rows};
		n++;
	}
	gt_table t = {.name = "keys", .cols = cols, .ncols = n, .nrows = top};
	const char *mk[2], *mv[2];
	gt_cli_table_meta(&t, source, mk, mv);
	int rc = gt_cli_write_table(cc, &t);
	free(rows);
	return rc;
}

/* The value of a term on its key, as the regression line prints it. */
static void term_value(const gt_compare *c, const gt_cond *t, const char *key, char *buf, size_t len)
{
	gt_rat v;
	gt_cond_eval_key(c, t, key, &v);
	bool frac = t->p || t->change == GT_C_REL || gt_cmp_field_kind(t->field) == GT_KIND_RATIO || v.den > 1;
	gt_rat_format(v, frac ? 6 : 0, buf, len);
}

static int run_compare(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	gt_common_init(&c);
	int by = GT_BY_NAME, order = GT_SORT_SELF, report = -1; /* -1: c.format */
	const char *step = NULL;
	unsigned long long top = 20;
	gt_cond_expr *conds = calloc((size_t)argc + 1, sizeof *conds);
	size_t ncond = 0;
	if (!conds) {
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	struct gt_opt_state st;
	gt_opt_begin(&st, cmd, argc, argv);
	const char *arg;
	int id, rc = 0;
	struct gt_causal_edges edges;
	gt_causal_edges_init(&edges);
	while (rc == 0 && (id = gt_opt_next(&st, &arg)) > 0) {
		int edge = gt_causal_edges_option(cmd, &edges, id, arg);
		if (edge) {
			rc = edge < 0 ? GT_EUSAGE : 0;
			continue;
		}
		switch (id) {
		case OPT_FAIL_IF: {
			size_t pos;
			const char *why;
			if (gt_cond_expr_parse(arg, &conds[ncond], &pos, &why) < 0)
				rc = gt_usage_error(cmd, "bad --fail-if '%s' at column %zu (at '%s'): %s", arg, pos + 1,
						    arg + pos, why);
			else
				ncond++;
			break;
		}
		case OPT_STEP:
			step = arg;
			break;
		case OPT_BY:
			if (strcmp(arg, "name") == 0)
				by = GT_BY_NAME;
			else if (strcmp(arg, "cat") == 0)
				by = GT_BY_CAT;
			else if (strcmp(arg, "group") == 0)
				by = GT_BY_GROUP;
			else
				rc = gt_usage_error(cmd, "bad --by '%s': expected name, cat or group", arg);
			break;
		case OPT_SORT:
			order = -1;
			for (int o = 0; o < GT_SORT_COUNT; o++)
				if (strcmp(arg, gt_cmp_sort_names[o]) == 0)
					order = o;
			if (order < 0)
				rc = gt_usage_error(cmd, "bad --sort '%s': expected self, total, cp or change", arg);
			break;
		case OPT_TOP:
			if (gt_parse_u64(cmd, "top", arg, &top) < 0)
				rc = GT_EUSAGE;
			break;
		case OPT_MODEL:
			if (strcmp(arg, "causal") && strcmp(arg, "forest"))
				rc = gt_usage_error(cmd, "bad --model '%s': expected causal or forest", arg);
			forest_model = strcmp(arg, "forest") == 0;
			break;
		case OPT_FORMAT:
			if (strcmp(arg, "text") == 0 || strcmp(arg, "markdown") == 0) {
				report = arg[0] == 't' ? GT_REPORT_TEXT : GT_REPORT_MARKDOWN;
				break;
			}
			report = -1;
			/* fall through */
		default: {
			int r = gt_common_opt(&c, cmd, id, arg);
			if (r < 0)
				rc = GT_EUSAGE;
			else if (r == 2)
				rc = -1; /* help printed: exit 0 */
		}
		}
	}
	if (rc == 0 && id < 0)
		rc = GT_EUSAGE;
	if (rc == 0 && st.noperands != 2)
		rc = gt_usage_error(cmd, "'compare' takes two traces or index files: BASE NEW");
	if (rc == 0 && step && forest_model)
		rc = gt_usage_error(cmd, "--step needs the causal model (--model causal)");
	with_steps = step != NULL;
	struct side s[2];
	memset(s, 0, sizeof s);
	gt_compare cmp = {0};
	bool *held = calloc(ncond + 1, sizeof *held);
	if (rc == 0 && !held)
		rc = GT_EINPUT;
	if (rc == 0)
		gt_cli_device_prefetch(&c, forest_model ? GT_WORK_FOREST_PATH : GT_WORK_CAUSAL_PATH);
	for (int k = 0; rc == 0 && k < 2; k++) {
		s[k].input = st.operands[k];
		rc = gt_cli_load(&c, st.operands[k], &s[k].m);
	}
	gt_cl *cl = NULL;
	gt_causal_cl_engine dev, *eng = NULL;
	uint64_t spans = (uint64_t)s[0].m.span_count > s[1].m.span_count ? s[0].m.span_count : s[1].m.span_count;
	/* a named --device for the causal model opens at the first device
	 * step: its driver starts while the host builds the first graphs */
	gt_cli_deferred_device later = {.c = &c, .work = GT_WORK_CAUSAL_PATH, .spans = spans};
	bool deferred = rc == 0 && !forest_model && gt_cli_device_named(&c);
	if (deferred) {
		gt_causal_cl_engine_defer(&dev, gt_cli_device_open_deferred, &later);
		eng = &dev;
	} else if (rc == 0) {
		gt_error err = {0};
		char chosen[512] = "";
		if (gt_cli_device_open(&c, forest_model ? GT_WORK_FOREST_PATH : GT_WORK_CAUSAL_PATH, spans, &cl, chosen,
				       sizeof chosen, &err) < 0)
			rc = gt_report(&err);
		else
			gt_device_notice(&c, chosen);
		if (cl && !forest_model)
			gt_causal_cl_engine_init(&dev, cl), eng = &dev;
	}
	for (int k = 0; rc == 0 && k < 2; k++)
		rc = forest_model ? forest_path(cl, &s[k]) : causal_path(eng, &c, &edges, &s[k]);
	if (rc == 0) {
		gt_error err = {0};
		if (gt_compare_run(&cmp, &s[0].m, &s[0].cp, &s[1].m, &s[1].cp, by, &err) < 0)
			rc = gt_report(&err);
	}
	for (int k = 0; rc == 0 && step && k < 2; k++)
		rc = step_windows(eng, &c, &edges, step, &cmp, k, &s[k]);
	if (deferred) { /* opened by now, unless no analysis had a device step */
		gt_error err = {0};
		if (rc == 0 && gt_causal_cl_engine_device(&dev, &cl, &err) < 0)
			rc = gt_report(&err);
		cl = dev.cl;
		if (cl)
			gt_device_notice(&c, later.chosen);
		gt_causal_cl_engine_fini(&dev);
	}
	if (rc == 0) {
		gt_error err = {0};
		if (gt_compare_steps_whole(&cmp, &err) < 0)
			rc = gt_report(&err);
		else if (gt_compare_sort(&cmp, order, step ? GT_S_MEDIAN : GT_S_WHOLE) < 0)
			rc = (gt_fail(&err, GT_EINPUT, "out of memory sorting the keys"), gt_report(&err));
	}
	/* a selector that matches no key: a usage error, before any output */
	for (size_t i = 0; rc == 0 && i < ncond; i++)
		for (size_t t = 0; rc == 0 && t < conds[i].count; t++)
			if (gt_cond_check(&cmp, &conds[i].terms[t]) < 0)
				rc = gt_usage_error(cmd,
						    "bad --fail-if '%s' at column %zu (at '%s'): the key selector matches "
						    "no key in either trace (write key?[...] to allow that)",
						    conds[i].text, conds[i].terms[t].key_at + 1,
						    conds[i].text + conds[i].terms[t].key_at);
	bool any = false;
	struct judged jd = {calloc(ncond + 1, sizeof *jd.term_held), calloc(ncond + 1, sizeof *jd.term_keys)};
	for (size_t i = 0; rc == 0 && i < ncond; i++) {
		jd.term_held[i] = jd.term_held ? calloc(conds[i].count, sizeof **jd.term_held) : NULL;
		jd.term_keys[i] = jd.term_keys ? calloc(conds[i].count, sizeof **jd.term_keys) : NULL;
		if (!jd.term_held[i] || !jd.term_keys[i])
			rc = (fprintf(stderr, "gputrace: out of memory judging the conditions\n"), GT_EINPUT);
	}
	if (rc == 0) {
		for (size_t i = 0; i < ncond; i++) {
			any |= held[i] = gt_cond_expr_eval(&cmp, &conds[i], jd.term_held[i], jd.term_keys[i]);
			/* a p threshold the step counts cannot reach: said once */
			for (size_t t = 0; t < conds[i].count; t++) {
				double pmin;
				if (gt_cond_p_unreachable(&cmp, &conds[i].terms[t], &pmin))
					fprintf(stderr, "gputrace: --fail-if '%s': with %u and %u steps the smallest p is "
							"%.4f: it cannot hold\n",
						conds[i].terms[t].text, cmp.win[0].count, cmp.win[1].count, pmin);
			}
		}
		size_t ntop = top == 0 || top > cmp.key_count ? cmp.key_count : (size_t)top;
		if (report >= 0 || c.format == GT_OUT_JSON) {
			gt_outfile out = {0};
			gt_error err = {0};
			if (gt_outfile_open(&out, c.output, false, &err) < 0) {
				rc = gt_report(&err);
			} else {
				if (report >= 0) {
					struct gt_compare_report r = {
						.c = &cmp, .base = s[0].m.source, .new_ = s[1].m.source,
						.by = by_names[by], .model = forest_model ? "forest" : "causal",
						.step = step, .top = ntop, .order = order, .conds = conds,
						.ncond = ncond, .held = held,
						.term_keys = (const char *const *const *)jd.term_keys};
					gt_compare_report_write(out.fp, &r, report);
				} else {
					write_json(out.fp, &cmp, s, ntop, conds, ncond, held, &jd, step);
				}
				if (gt_outfile_commit(&out, &err) < 0)
					rc = gt_report(&err);
			}
		} else {
			rc = write_table(&c, &cmp, ntop, s[1].m.source);
		}
	}
	if (rc == 0 && c.strict && ((s[0].cp.flags | s[1].cp.flags) & (forest_model ? ~0u : GT_CAUSAL_CYCLE | GT_CAUSAL_OVERFLOW))) {
		fprintf(stderr, "gputrace: a critical path is flagged incomplete (--strict)\n");
		rc = GT_EINCOMPLETE;
	}
	if (rc == 0 && any) {
		for (size_t i = 0; i < ncond; i++) {
			if (!held[i])
				continue;
			/* the values, and each key a term was judged on once, shortened */
			fprintf(stderr, "gputrace: regression: %s (value%s", conds[i].text, conds[i].count > 1 ? "s" : "");
			for (size_t t = 0; t < conds[i].count; t++) {
				char buf[96];
				term_value(&cmp, &conds[i].terms[t], jd.term_keys[i][t], buf, sizeof buf);
				fprintf(stderr, "%s %s", t ? "," : "", buf);
			}
			for (size_t t = 0, named = 0; t < conds[i].count; t++) {
				const char *key = jd.term_keys[i][t];
				bool first = key && conds[i].terms[t].key && conds[i].terms[t].sel != GT_SEL_EXACT;
				for (size_t u = 0; first && u < t; u++)
					first = !jd.term_keys[i][u] || strcmp(jd.term_keys[i][u], key);
				if (!first)
					continue;
				char name[96];
				gt_report_shorten(key, 80, name, sizeof name);
				fprintf(stderr, "%s %s", named++ ? "," : "; key", name);
			}
			fprintf(stderr, ")\n");
		}
		rc = GT_EREGRESSION;
	}
	gt_compare_free(&cmp);
	gt_cl_close(cl);
	for (int k = 0; k < 2; k++) {
		gt_cp_rows_free(&s[k].rows);
		free(s[k].on_path);
		free(s[k].critical_ns);
		gt_model_free(&s[k].m);
	}
	for (size_t i = 0; i < ncond; i++)
		gt_cond_expr_free(&conds[i]);
	free(conds);
	for (size_t i = 0; i < ncond; i++) {
		free(jd.term_held ? jd.term_held[i] : NULL);
		free(jd.term_keys ? (void *)jd.term_keys[i] : NULL);
	}
	free(jd.term_held), free(jd.term_keys);
	free(held);
	return rc < 0 ? 0 : rc;
}

const struct gt_command gt_cmd_compare = {
	.name = "compare",
	.args = "BASE NEW",
	.summary = "compare two traces: totals, per-key statistics, critical path; --fail-if for CI",
	.opts = compare_opts,
	.run = run_compare,
};
