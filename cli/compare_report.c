/* compare -f text / -f markdown. Values are the whole trace's, or with
 * --step the per-step medians and the U test's p; times in ns, µs, ms or s,
 * changes as signed percentages, long keys cut in the middle. */
#include "compare_report.h"

#include <stdlib.h>
#include <string.h>

#define KEY_WIDTH 48

/* A rational as a double (for display only; conditions use exact values). */
static double rat_d(gt_rat r)
{
	return (double)r.num / (double)r.den;
}

static void fmt_time(gt_rat r, char *buf, size_t len)
{
	if (!r.den) {
		snprintf(buf, len, "-");
		return;
	}
	double v = rat_d(r), a = v < 0 ? -v : v;
	if (a >= 1e9)
		snprintf(buf, len, "%.3f s", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3f ms", v / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.3f \u00b5s", v / 1e3);
	else
		snprintf(buf, len, "%.0f ns", v);
}

static void fmt_count(gt_rat r, char *buf, size_t len)
{
	if (!r.den)
		snprintf(buf, len, "-");
	else if (r.den == 1)
		snprintf(buf, len, "%lld", (long long)r.num);
	else
		snprintf(buf, len, "%.1f", rat_d(r));
}

/* A change as a signed percentage; "new"/"gone" where a side is 0. */
static void fmt_change(gt_rat base, gt_rat now, char *buf, size_t len)
{
	gt_rat rel = gt_rat_change(base, now, GT_C_REL);
	if (rel.den)
		snprintf(buf, len, "%+.1f%%", rat_d(rel) * 100);
	else if (base.den && now.den && base.num == 0 && now.num != 0)
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "-");
	(void)now;
}

static void fmt_p(gt_rat p, char *buf, size_t len)
{
	if (!p.den)
		snprintf(buf, len, "-");
	else if (rat_d(p) < 0.0001)
		snprintf(buf, len, "%.1e", rat_d(p));
	else
		snprintf(buf, len, "%.4f", rat_d(p));
}

static void pad(FILE *out, const char *s, int width, bool right)
{
	int fill = width - (int)gt_report_columns(s);
	if (right)
		fprintf(out, "%*s%s", fill > 0 ? fill : 0, "", s);
	else
		fprintf(out, "%s%*s", s, fill > 0 ? fill : 0, "");
}

/* One row's cells: base, new, change, p of a field (k NULL: totals). */
struct cells {
	char base[48], now[48], change[48], p[48];
};

static void field_cells(const struct gt_compare_report *r, const gt_cmp_key *k, int field, struct cells *out)
{
	int stat = r->step ? GT_S_MEDIAN : GT_S_WHOLE;
	gt_rat b = gt_cmp_stat_value(r->c, k, field, stat, 0), n = gt_cmp_stat_value(r->c, k, field, stat, 1);
	bool time = gt_cmp_field_kind(field) == GT_KIND_TIME;
	(time ? fmt_time : fmt_count)(b, out->base, sizeof out->base);
	(time ? fmt_time : fmt_count)(n, out->now, sizeof out->now);
	fmt_change(b, n, out->change, sizeof out->change);
	if (r->step)
		fmt_p(gt_cmp_p(r->c, k, field), out->p, sizeof out->p);
	else
		snprintf(out->p, sizeof out->p, "-");
}

static const struct {
	const char *label;
	int field;
} totals[] = {{"critical path", GT_F_CRITICAL_PATH}, {"duration", GT_F_TRACE_DUR}, {"spans", GT_F_SPANS}};

static const char *order_text(int order)
{
	switch (order) {
	case GT_SORT_TOTAL: return "total time change";
	case GT_SORT_CP: return "critical-path time change";
	case GT_SORT_CHANGE: return "relative self time change";
	default: return "self time change";
	}
}

/* The terms' values (on the keys they were judged on), for the conditions
 * list, each key once, shortened; and why a p term cannot hold. */
static void cond_values(const struct gt_compare_report *r, size_t i, char *buf, size_t len)
{
	const gt_cond_expr *e = &r->conds[i];
	size_t at = 0;
	buf[0] = 0;
	for (size_t t = 0; t < e->count && at < len; t++) {
		gt_rat v;
		const char *key = r->term_keys[i][t];
		char num[96], name[96] = "";
		gt_cond_eval_key(r->c, &e->terms[t], key, &v);
		gt_rat_format(v, v.den == 1 ? 0 : 6, num, sizeof num);
		bool named = key && e->terms[t].sel != GT_SEL_EXACT;
		for (size_t u = 0; named && u < t; u++)
			named = !r->term_keys[i][u] || strcmp(r->term_keys[i][u], key);
		if (named)
			gt_report_shorten(key, 60, name, sizeof name);
		double pmin;
		char why[96] = "";
		if (gt_cond_p_unreachable(r->c, &e->terms[t], &pmin))
			snprintf(why, sizeof why, "; cannot hold: with %u and %u steps the smallest p is %.4f",
				 r->c->win[0].count, r->c->win[1].count, pmin);
		int w = snprintf(buf + at, len - at, "%s%s%s%s%s", t ? ", " : "", num, named ? " key " : "", name, why);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

static void write_text(FILE *out, const struct gt_compare_report *r, char *const *names)
{
	const gt_compare *c = r->c;
	fprintf(out, "gputrace compare: %s -> %s\n", r->base ? r->base : "", r->new_ ? r->new_ : "");
	if (r->step)
		fprintf(out, "per step '%s': %u base, %u new windows; medians per step, p: Mann-Whitney U\n", r->step,
			c->win[0].count, c->win[1].count);
	fprintf(out, "by %s, %s critical path\n\n", r->by, r->model);
	pad(out, "", 16, false);
	fprintf(out, " %14s %14s %9s %9s\n", "base", "new", "change", "p");
	for (size_t i = 0; i < sizeof totals / sizeof *totals; i++) {
		struct cells x;
		field_cells(r, NULL, totals[i].field, &x);
		pad(out, totals[i].label, 16, false);
		fputc(' ', out), pad(out, x.base, 14, true);
		fputc(' ', out), pad(out, x.now, 14, true);
		fputc(' ', out), pad(out, x.change, 9, true);
		fputc(' ', out), pad(out, x.p, 9, true);
		fputc('\n', out);
	}
	fprintf(out, "\n%zu of %zu keys by %s\n", r->top, c->key_count, order_text(r->order));
	pad(out, "key", KEY_WIDTH, false);
	fprintf(out, " %12s %12s %8s %9s %12s %8s %12s\n", "self base", "self new", "change", "p", "total new",
		"change", "cp new");
	for (size_t i = 0; i < r->top; i++) {
		const gt_cmp_key *k = &c->keys[i];
		const char *name = names[i];
		struct cells self, dur, cp;
		field_cells(r, k, GT_F_SELF, &self);
		field_cells(r, k, GT_F_DUR, &dur);
		field_cells(r, k, GT_F_CP_NS, &cp);
		pad(out, name[0] ? name : "\"\"", KEY_WIDTH, false);
		fputc(' ', out), pad(out, self.base, 12, true);
		fputc(' ', out), pad(out, self.now, 12, true);
		fputc(' ', out), pad(out, self.change, 8, true);
		fputc(' ', out), pad(out, self.p, 9, true);
		fputc(' ', out), pad(out, dur.now, 12, true);
		fputc(' ', out), pad(out, dur.change, 8, true);
		fputc(' ', out), pad(out, cp.now, 12, true);
		fputc('\n', out);
	}
	if (r->ncond) {
		fprintf(out, "\nconditions\n");
		for (size_t i = 0; i < r->ncond; i++) {
			char vals[1024];
			cond_values(r, i, vals, sizeof vals);
			fprintf(out, "  %s  %s  (%s)\n", r->held[i] ? "HELD" : "  - ", r->conds[i].text, vals);
		}
	}
}

/* Markdown cell text: '|' escaped, code span when it has no backtick. */
static void md_key(FILE *out, const char *name)
{
	bool code = !strchr(name, '`') && name[0];
	fputs(code ? "`" : "", out);
	for (const char *p = name; *p; p++) {
		if (*p == '|')
			fputs("\\|", out);
		else if (*p == '\n' || *p == '\r')
			fputc(' ', out);
		else
			fputc(*p, out);
	}
	fputs(code ? "`" : "", out);
}

static void write_markdown(FILE *out, const struct gt_compare_report *r, char *const *names)
{
	const gt_compare *c = r->c;
	bool any = false;
	for (size_t i = 0; i < r->ncond; i++)
		any |= r->held[i];
	fprintf(out, "### gputrace compare%s\n\n", any ? ": regression" : "");
	if (r->step)
		fprintf(out, "Per step `%s`: %u base, %u new windows; medians per step, p from a Mann-Whitney U "
			     "test. ",
			r->step, c->win[0].count, c->win[1].count);
	fprintf(out, "By %s, %s critical path.\n\n", r->by, r->model);
	fprintf(out, "| | base | new | change | p |\n|---|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof totals / sizeof *totals; i++) {
		struct cells x;
		field_cells(r, NULL, totals[i].field, &x);
		fprintf(out, "| %s | %s | %s | %s | %s |\n", totals[i].label, x.base, x.now, x.change, x.p);
	}
	fprintf(out, "\n%zu of %zu keys by %s:\n\n", r->top, c->key_count, order_text(r->order));
	fprintf(out, "| key | self base | self new | change | p | total new | change | cp new |\n"
		     "|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < r->top; i++) {
		const gt_cmp_key *k = &c->keys[i];
		struct cells self, dur, cp;
		field_cells(r, k, GT_F_SELF, &self);
		field_cells(r, k, GT_F_DUR, &dur);
		field_cells(r, k, GT_F_CP_NS, &cp);
		fputs("| ", out);
		md_key(out, names[i]);
		fprintf(out, " | %s | %s | %s | %s | %s | %s | %s |\n", self.base, self.now, self.change, self.p,
			dur.now, dur.change, cp.now);
	}
	if (r->ncond) {
		fprintf(out, "\nConditions:\n\n");
		for (size_t i = 0; i < r->ncond; i++) {
			char vals[1024];
			cond_values(r, i, vals, sizeof vals);
			fprintf(out, "- %s `%s` (%s)\n", r->held[i] ? "**held**" : "not held", r->conds[i].text, vals);
		}
	}
}

void gt_compare_report_write(FILE *out, const struct gt_compare_report *r, int kind)
{
	/* the keys shortened by their C++ structure, no two alike */
	const char **keys = malloc((r->top ? r->top : 1) * sizeof *keys);
	char **names = malloc((r->top ? r->top : 1) * sizeof *names);
	for (size_t i = 0; keys && i < r->top; i++)
		keys[i] = r->c->keys[i].key;
	if (!keys || !names || gt_report_shorten_all(keys, r->top, KEY_WIDTH, names) < 0) {
		free(keys), free(names);
		fprintf(stderr, "gputrace: out of memory writing the report\n");
		return;
	}
	if (kind == GT_REPORT_MARKDOWN)
		write_markdown(out, r, names);
	else
		write_text(out, r, names);
	gt_report_free_names(names, r->top);
	free(keys), free(names);
}
