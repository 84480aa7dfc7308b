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

/* Display columns of UTF-8 text: the bytes that start a character. */
static size_t columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The key cut in the middle with an ellipsis to at most `width` columns,
 * at character boundaries. */
static void cut_middle(const char *key, size_t width, char *buf, size_t len)
{
	size_t n = strlen(key);
	if (columns(key) <= width || len < 8) {
		snprintf(buf, len, "%s", key);
		return;
	}
	size_t head = (width - 1) / 2, tail = width - 1 - head;
	/* head characters from the front, tail from the back */
	size_t h = 0, cnt = 0;
	while (h < n && cnt < head) {
		h++;
		while (h < n && ((unsigned char)key[h] & 0xc0) == 0x80)
			h++;
		cnt++;
	}
	size_t t = n;
	cnt = 0;
	while (t > h && cnt < tail) {
		t--;
		while (t > h && ((unsigned char)key[t] & 0xc0) == 0x80)
			t--;
		cnt++;
	}
	snprintf(buf, len, "%.*s\u2026%s", (int)h, key, key + t);
}

static void pad(FILE *out, const char *s, int width, bool right)
{
	int fill = width - (int)columns(s);
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

/* The terms' values, for the conditions list. */
static void cond_values(const struct gt_compare_report *r, const gt_cond_expr *e, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t t = 0; t < e->count && at < len; t++) {
		gt_rat v;
		const char *key;
		char num[96];
		gt_cond_eval(r->c, &e->terms[t], &v, &key);
		gt_rat_format(v, v.den == 1 ? 0 : 6, num, sizeof num);
		int w = snprintf(buf + at, len - at, "%s%s%s%s", t ? ", " : "", num,
				 key && e->terms[t].sel != GT_SEL_EXACT ? " key " : "",
				 key && e->terms[t].sel != GT_SEL_EXACT ? key : "");
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

static void write_text(FILE *out, const struct gt_compare_report *r)
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
		char name[256];
		struct cells self, dur, cp;
		cut_middle(k->key, KEY_WIDTH, name, sizeof name);
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
			cond_values(r, &r->conds[i], vals, sizeof vals);
			fprintf(out, "  %s  %s  (%s)\n", r->held[i] ? "HELD" : "  - ", r->conds[i].text, vals);
		}
	}
}

/* Markdown cell text: '|' escaped, code span when it has no backtick. */
static void md_key(FILE *out, const char *key)
{
	char name[256];
	cut_middle(key, KEY_WIDTH, name, sizeof name);
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

static void write_markdown(FILE *out, const struct gt_compare_report *r)
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
		md_key(out, k->key);
		fprintf(out, " | %s | %s | %s | %s | %s | %s | %s |\n", self.base, self.now, self.change, self.p,
			dur.now, dur.change, cp.now);
	}
	if (r->ncond) {
		fprintf(out, "\nConditions:\n\n");
		for (size_t i = 0; i < r->ncond; i++) {
			char vals[1024];
			cond_values(r, &r->conds[i], vals, sizeof vals);
			fprintf(out, "- %s `%s` (%s)\n", r->held[i] ? "**held**" : "not held", r->conds[i].text, vals);
		}
	}
}

void gt_compare_report_write(FILE *out, const struct gt_compare_report *r, int kind)
{
	if (kind == GT_REPORT_MARKDOWN)
		write_markdown(out, r);
	else
		write_text(out, r);
}
