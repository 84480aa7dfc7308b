/* --fail-if conditions: a recursive-descent parser for the grammar in
 * compare.h, and exact evaluation against a comparison. */
#include <ctype.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "mwu.h"

#define I128_MAX ((__int128)(((unsigned __int128)1 << 127) - 1))

struct parser {
	const char *s;
	size_t i;
	const char *why;
	size_t err_at;
};

static int fail_at(struct parser *p, size_t at, const char *why)
{
	p->why = why;
	p->err_at = at;
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\t')
		p->i++;
}

/* An identifier [a-z0-9_]+ at p->i; returns its length (0 if none). */
static size_t ident(struct parser *p)
{
	size_t n = 0;
	while (islower((unsigned char)p->s[p->i + n]) || isdigit((unsigned char)p->s[p->i + n]) ||
	       p->s[p->i + n] == '_')
		n++;
	return n;
}

static bool word_is(struct parser *p, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(p->s + p->i, w, n) == 0;
}

static int expect_char(struct parser *p, char c, const char *why)
{
	if (p->s[p->i] != c)
		return fail_at(p, p->i, why);
	p->i++;
	return 0;
}

static int parse_change(struct parser *p, gt_cond *out)
{
	size_t n = ident(p);
	for (int c = 0; c < GT_C_COUNT; c++)
		if (word_is(p, n, gt_cmp_change_names[c])) {
			out->change = c;
			p->i += n;
			return 0;
		}
	return fail_at(p, p->i, "expected a change: base, new, abs or rel");
}

/* keyname := { any byte but "]" and "\" | "\]" | "\\" } */
static int parse_key(struct parser *p, gt_cond *out)
{
	size_t start = p->i, len = 0;
	char *k = malloc(strlen(p->s + start) + 1);
	if (!k)
		return fail_at(p, start, "out of memory");
	for (;;) {
		char c = p->s[p->i];
		if (c == 0) {
			free(k);
			return fail_at(p, start - 1, "unterminated key name: '[' without ']'");
		}
		if (c == ']')
			break;
		if (c == '\\') {
			char d = p->s[p->i + 1];
			if (d != ']' && d != '\\') {
				free(k);
				return fail_at(p, p->i, "in a key name, '\\' escapes only ']' or '\\'");
			}
			c = d;
			p->i++;
		}
		k[len++] = c;
		p->i++;
	}
	if (len == 0) {
		free(k);
		return fail_at(p, start, "empty key name");
	}
	k[len] = 0;
	p->i++; /* ']' */
	out->key_at = start;
	out->sel = GT_SEL_EXACT;
	if (strncmp(k, "any:", 4) == 0) { /* each term on its own: any key that holds it */
		out->any_key = true;
		memmove(k, k + 4, len - 4 + 1);
		len -= 4;
		if (!k[0]) {
			free(k);
			return fail_at(p, start + 4, "empty key name");
		}
	}
	if (strncmp(k, "glob:", 5) == 0 || strncmp(k, "re:", 3) == 0) {
		size_t skip = k[0] == 'g' ? 5 : 3;
		out->sel = k[0] == 'g' ? GT_SEL_GLOB : GT_SEL_RE;
		memmove(k, k + skip, len - skip + 1);
		if (!k[0]) {
			free(k);
			return fail_at(p, start + skip, "empty pattern");
		}
	}
	out->key = k;
	if (out->sel == GT_SEL_RE) {
		regex_t *re = malloc(sizeof *re);
		if (!re)
			return fail_at(p, start, "out of memory");
		if (regcomp(re, k, REG_EXTENDED | REG_NOSUB) != 0) {
			free(re);
			return fail_at(p, start + 3, "bad regular expression (POSIX extended)");
		}
		out->re = re;
	}
	return 0;
}

/* "." then [stat "."] change, or "p". */
static int parse_tail(struct parser *p, gt_cond *out)
{
	if (expect_char(p, '.', "expected '.' and a change: base, new, abs or rel (or a statistic, or p)") < 0)
		return -1;
	size_t n = ident(p);
	if (word_is(p, n, "p")) {
		if (!gt_cmp_field_has_steps(out->field))
			return fail_at(p, p->i, "cp_share has no per-step values: no p");
		out->p = true;
		p->i += n;
		return 0;
	}
	for (int st = GT_S_N; st < GT_S_COUNT; st++)
		if (word_is(p, n, gt_cmp_stat_names[st])) {
			if (!gt_cmp_field_has_steps(out->field))
				return fail_at(p, p->i, "cp_share has no per-step statistics");
			out->stat = st;
			p->i += n;
			if (expect_char(p, '.', "expected '.' and a change after the statistic: base, new, abs or rel") < 0)
				return -1;
			return parse_change(p, out);
		}
	return parse_change(p, out);
}

static int parse_metric(struct parser *p, gt_cond *out)
{
	size_t at = p->i, n = ident(p);
	if (word_is(p, n, "critical_path")) {
		p->i += n;
		out->field = GT_F_CRITICAL_PATH;
		return parse_tail(p, out);
	}
	if (word_is(p, n, "total")) {
		p->i += n;
		if (expect_char(p, '.', "expected '.' and a field after 'total'") < 0)
			return -1;
		size_t m = ident(p);
		if (word_is(p, m, "spans"))
			out->field = GT_F_SPANS;
		else if (word_is(p, m, "dur_ns"))
			out->field = GT_F_TRACE_DUR;
		else if (word_is(p, m, "critical_path_ns"))
			out->field = GT_F_CRITICAL_PATH;
		else
			return fail_at(p, p->i, "expected a total field: spans, dur_ns or critical_path_ns");
		p->i += m;
	} else if (word_is(p, n, "key") && (p->s[p->i + n] == '[' || (p->s[p->i + n] == '?' && p->s[p->i + n + 1] == '['))) {
		out->optional = p->s[p->i + n] == '?';
		p->i += n + 1 + out->optional;
		if (parse_key(p, out) < 0)
			return -1;
		if (expect_char(p, '.', "expected '.' and a field after 'key[...]'") < 0)
			return -1;
		size_t m = ident(p);
		int f = 0;
		for (; f < GT_F_KEY_COUNT && !word_is(p, m, gt_cmp_field_names[f]); f++)
			;
		if (f == GT_F_KEY_COUNT)
			return fail_at(p, p->i,
				       "expected a key field: count, dur_ns, self_ns, p50_ns, p95_ns, max_ns, cp_count, "
				       "cp_ns or cp_share");
		out->field = f;
		p->i += m;
	} else {
		return fail_at(p, at, "expected a metric: total.FIELD.CHANGE, critical_path.CHANGE or "
				      "key[NAME].FIELD.CHANGE");
	}
	return parse_tail(p, out);
}

static int parse_op(struct parser *p, gt_cond *out)
{
	const char *s = p->s + p->i;
	static const struct {
		const char *text;
		int op;
	} ops[] = {{">=", GT_OP_GE}, {"<=", GT_OP_LE}, {"==", GT_OP_EQ}, {"!=", GT_OP_NE},
		   {">", GT_OP_GT}, {"<", GT_OP_LT}};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		size_t n = strlen(ops[k].text);
		if (strncmp(s, ops[k].text, n) == 0) {
			out->op = ops[k].op;
			p->i += n;
			return 0;
		}
	}
	return fail_at(p, p->i, "expected a comparison: >, >=, <, <=, == or !=");
}

static int parse_value(struct parser *p, gt_cond *out)
{
	size_t at = p->i;
	bool neg = false;
	if (p->s[p->i] == '-' || p->s[p->i] == '+')
		neg = p->s[p->i++] == '-';
	__int128 num = 0, den = 1;
	int digits = 0, fdigits = 0;
	for (; isdigit((unsigned char)p->s[p->i]); p->i++, digits++) {
		if (digits >= 18)
			return fail_at(p, at, "the number is too large (at most 18 integer digits)");
		num = num * 10 + (p->s[p->i] - '0');
	}
	if (p->s[p->i] == '.') {
		p->i++;
		for (; isdigit((unsigned char)p->s[p->i]); p->i++, fdigits++) {
			if (fdigits >= 18)
				return fail_at(p, at, "too many decimals (at most 18)");
			num = num * 10 + (p->s[p->i] - '0');
			den *= 10;
		}
	}
	if (digits + fdigits == 0)
		return fail_at(p, at, "expected a number, e.g. 5%, 2ms, 100 or 0.05");
	size_t uat = p->i;
	enum { K_COUNT = GT_KIND_COUNT, K_TIME = GT_KIND_TIME, K_RATIO = GT_KIND_RATIO, K_REL, K_P };
	int kind = gt_cmp_field_kind(out->field);
	if (out->p)
		kind = K_P;
	else if (out->stat == GT_S_N)
		kind = K_COUNT;
	else if (out->change == GT_C_REL)
		kind = K_REL;
	static const struct {
		const char *u;
		long long mul;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	bool time_unit = false;
	for (size_t k = 0; k < 4; k++) {
		size_t n = strlen(units[k].u);
		if (strncmp(p->s + p->i, units[k].u, n) == 0 && !isalnum((unsigned char)p->s[p->i + n])) {
			/* 36 digits fit in 128 bits; times a unit they may not */
			if (num > I128_MAX / units[k].mul)
				return fail_at(p, at, "the number is too large for its unit");
			num *= units[k].mul;
			p->i += n;
			time_unit = true;
			break;
		}
	}
	if (time_unit && kind != K_TIME)
		return fail_at(p, uat, kind == K_COUNT ? "a time unit on a count"
				       : kind == K_P ? "a time unit on p (use a fraction or %)"
						     : "a time unit on a ratio (use %)");
	bool pct = false, times = false;
	if (!time_unit && p->s[p->i] == '%') {
		if (kind != K_RATIO && kind != K_REL && kind != K_P)
			return fail_at(p, uat, "'%' applies only to ratios (rel, cp_share) and p");
		den *= 100;
		p->i++;
		pct = true;
	} else if (!time_unit && p->s[p->i] == 'x' && !isalnum((unsigned char)p->s[p->i + 1])) {
		if (kind != K_REL)
			return fail_at(p, uat, "'x' (a ratio new/base) applies only to rel");
		p->i++;
		times = true;
	} else if (!time_unit && isalpha((unsigned char)p->s[p->i])) {
		return fail_at(p, uat, "unknown unit (expected ns, us, ms, s, % or x)");
	}
	if (kind == K_TIME && !time_unit)
		return fail_at(p, at, "a time needs a unit: ns, us, ms or s (e.g. 2ms)");
	if (kind == K_REL && !pct && !times)
		return fail_at(p, at, "a relative change needs % or x (e.g. 5% or 1.05x)");
	if (kind == K_RATIO && !pct)
		return fail_at(p, at, "a share needs % (e.g. 25%)");
	if (kind == K_COUNT && fdigits)
		return fail_at(p, at, "a count must be an integer");
	if (neg)
		num = -num;
	if (times)
		num -= den; /* Nx: rel = N - 1 */
	out->value = (gt_rat){num, den};
	return 0;
}

/* One term from p->i; leaves p->i after it and its trailing blanks. */
static int parse_term(struct parser *p, gt_cond *out)
{
	memset(out, 0, sizeof *out);
	skip_ws(p);
	size_t start = p->i;
	int rc = parse_metric(p, out);
	if (rc == 0) {
		skip_ws(p);
		rc = parse_op(p, out);
	}
	if (rc == 0) {
		skip_ws(p);
		rc = parse_value(p, out);
	}
	if (rc == 0 && !(out->text = strndup(p->s + start, p->i - start)))
		rc = fail_at(p, start, "out of memory");
	if (rc == 0)
		skip_ws(p);
	if (rc < 0)
		gt_cond_free(out);
	return rc;
}

int gt_cond_parse(const char *text, gt_cond *out, size_t *pos, const char **why)
{
	struct parser p = {.s = text};
	int rc = parse_term(&p, out);
	if (rc == 0 && p.s[p.i]) {
		gt_cond_free(out);
		rc = fail_at(&p, p.i, "unexpected text after the value");
	}
	if (rc < 0) {
		*pos = p.err_at;
		*why = p.why;
	}
	return rc;
}

void gt_cond_free(gt_cond *c)
{
	free(c->key);
	free(c->text);
	if (c->re) {
		regfree(c->re);
		free(c->re);
	}
	c->key = c->text = NULL;
	c->re = NULL;
}

static bool selects(const gt_cond *cond, const char *key)
{
	switch (cond->sel) {
	case GT_SEL_GLOB: return fnmatch(cond->key, key, 0) == 0;
	case GT_SEL_RE: return regexec(cond->re, key, 0, NULL, 0) == 0;
	default: return strcmp(cond->key, key) == 0;
	}
}

static bool holds(const gt_compare *c, const gt_cond *cond, const gt_cmp_key *k, gt_rat *value)
{
	gt_rat v = cond->p ? gt_cmp_p(c, k, cond->field)
			   : gt_cmp_stat_change(c, k, cond->field, cond->stat, cond->change);
	if (value)
		*value = v;
	if (v.den <= 0)
		return false;
	int r = gt_rat_cmp(v, cond->value);
	switch (cond->op) {
	case GT_OP_GT: return r > 0;
	case GT_OP_GE: return r >= 0;
	case GT_OP_LT: return r < 0;
	case GT_OP_LE: return r <= 0;
	case GT_OP_EQ: return r == 0;
	case GT_OP_NE: return r != 0;
	}
	return false;
}

int gt_cond_check(const gt_compare *c, const gt_cond *cond)
{
	if (!cond->key || cond->optional)
		return 0;
	for (size_t i = 0; i < c->key_count; i++)
		if (selects(cond, c->keys[i].key))
			return 0;
	return -1;
}

bool gt_cond_eval(const gt_compare *c, const gt_cond *cond, gt_rat *value, const char **key)
{
	if (key)
		*key = NULL;
	if (!cond->key)
		return holds(c, cond, NULL, value);
	/* keys in report order: the first that holds, else the first matched */
	bool any = false;
	gt_rat first = {0, 0};
	for (size_t i = 0; i < c->key_count; i++) {
		const gt_cmp_key *k = &c->keys[i];
		if (!selects(cond, k->key))
			continue;
		gt_rat v;
		bool h = holds(c, cond, k, &v);
		if (h || !any) {
			first = v;
			if (key)
				*key = k->key;
		}
		any = true;
		if (h) {
			if (value)
				*value = v;
			return true;
		}
	}
	if (!any && cond->sel == GT_SEL_EXACT)
		return holds(c, cond, NULL, value); /* in neither trace: counts and sums are 0 */
	if (value)
		*value = first;
	return false;
}

static bool word_here(const struct parser *p, const char *w)
{
	size_t n = strlen(w);
	return strncmp(p->s + p->i, w, n) == 0 && (p->s[p->i + n] == ' ' || p->s[p->i + n] == '\t' || !p->s[p->i + n]);
}

int gt_cond_expr_parse(const char *text, gt_cond_expr *out, size_t *pos, const char **why)
{
	memset(out, 0, sizeof *out);
	struct parser p = {.s = text};
	size_t cap = 1;
	for (const char *q = text; *q; q++)
		cap += *q == ' ' || *q == '\t';
	out->terms = calloc(cap, sizeof *out->terms);
	out->or_before = calloc(cap, sizeof *out->or_before);
	int rc = out->terms && out->or_before ? 0 : fail_at(&p, 0, "out of memory");
	while (rc == 0) {
		rc = parse_term(&p, &out->terms[out->count]);
		if (rc < 0)
			break;
		out->count++;
		if (!p.s[p.i])
			break;
		bool is_or = word_here(&p, "or");
		if (!is_or && !word_here(&p, "and")) {
			rc = fail_at(&p, p.i, "unexpected text after the value (expected 'and', 'or' or the end)");
			break;
		}
		p.i += is_or ? 2 : 3;
		out->or_before[out->count] = is_or;
		if (out->count == cap)
			rc = fail_at(&p, p.i, "too many terms");
	}
	if (rc == 0 && !(out->text = strdup(text)))
		rc = fail_at(&p, 0, "out of memory");
	if (rc < 0) {
		gt_cond_expr_free(out);
		*pos = p.err_at;
		*why = p.why;
	}
	return rc;
}

void gt_cond_expr_free(gt_cond_expr *e)
{
	for (size_t i = 0; i < e->count; i++)
		gt_cond_free(&e->terms[i]);
	free(e->terms);
	free(e->or_before);
	free(e->text);
	memset(e, 0, sizeof *e);
}

/* Whether terms a and b of one conjunction name the same keys by a glob or
 * a regex: then they bind the same key (an exact name is one key anyway). */
static bool same_selector(const gt_cond *a, const gt_cond *b)
{
	return a->key && b->key && !a->any_key && !b->any_key && a->sel == b->sel && a->sel != GT_SEL_EXACT &&
	       !strcmp(a->key, b->key);
}

/* The terms [from, to) of a conjunction that share term first's selector
 * hold together for some key: the first such key in report order (NULL
 * when none). */
static const char *bound_key(const gt_compare *c, const gt_cond_expr *e, size_t first, size_t to)
{
	const gt_cond *lead = &e->terms[first];
	for (size_t i = 0; i < c->key_count; i++) {
		const gt_cmp_key *k = &c->keys[i];
		if (!selects(lead, k->key))
			continue;
		bool all = true;
		for (size_t t = first; t < to && all; t++)
			if (t == first || same_selector(lead, &e->terms[t]))
				all = holds(c, &e->terms[t], k, NULL);
		if (all)
			return k->key;
	}
	return NULL;
}

bool gt_cond_expr_eval(const gt_compare *c, const gt_cond_expr *e, bool *held, const char **keys)
{
	/* an or of ands; in an and, terms over one selector hold for one key */
	bool any = false;
	for (size_t from = 0; from < e->count;) {
		size_t to = from + 1;
		while (to < e->count && !e->or_before[to])
			to++;
		bool conj = true;
		for (size_t i = from; i < to; i++) {
			size_t lead = from;
			while (lead < i && !same_selector(&e->terms[lead], &e->terms[i]))
				lead++;
			bool shared = false;
			for (size_t j = from; j < to && !shared; j++)
				shared = j != i && same_selector(&e->terms[i], &e->terms[j]);
			bool h;
			const char *key = NULL;
			if (!shared) {
				h = gt_cond_eval(c, &e->terms[i], NULL, &key);
			} else if (lead < i) { /* judged with its group's lead */
				h = held ? held[lead] : bound_key(c, e, lead, to) != NULL;
				key = keys ? keys[lead] : NULL;
			} else {
				key = bound_key(c, e, i, to);
				h = key != NULL;
			}
			if (held)
				held[i] = h;
			if (keys)
				keys[i] = key;
			conj &= h;
		}
		any |= conj;
		from = to;
	}
	return e->count && any;
}

bool gt_cond_eval_key(const gt_compare *c, const gt_cond *cond, const char *key, gt_rat *value)
{
	for (size_t i = 0; key && i < c->key_count; i++)
		if (!strcmp(c->keys[i].key, key))
			return holds(c, cond, &c->keys[i], value);
	return gt_cond_eval(c, cond, value, NULL);
}

/* The smallest two-sided p of the exact test with n and m steps and no
 * ties, 2 / C(n + m, n) (at most 1); 0 above the exact sizes. */
static double smallest_p(uint32_t n, uint32_t m)
{
	if (!n || !m || n > GT_MWU_EXACT_MAX || m > GT_MWU_EXACT_MAX)
		return 0;
	double ways = 1;
	for (uint32_t i = 1; i <= n; i++)
		ways = ways * (double)(m + i) / (double)i;
	return 2 / ways > 1 ? 1 : 2 / ways;
}

bool gt_cond_p_unreachable(const gt_compare *c, const gt_cond *cond, double *pmin)
{
	*pmin = smallest_p(c->win[0].count, c->win[1].count);
	if (!cond->p || *pmin <= 0 || (cond->op != GT_OP_LT && cond->op != GT_OP_LE))
		return false;
	double v = (double)cond->value.num / (double)cond->value.den;
	return cond->op == GT_OP_LT ? v <= *pmin : v < *pmin;
}
