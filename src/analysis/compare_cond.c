/* --fail-if conditions: a recursive-descent parser for the grammar in
 * compare.h, and exact evaluation against a comparison. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

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
	out->key = k;
	return 0;
}

static int parse_metric(struct parser *p, gt_cond *out)
{
	size_t at = p->i, n = ident(p);
	if (word_is(p, n, "critical_path")) {
		p->i += n;
		out->field = GT_F_CRITICAL_PATH;
		if (expect_char(p, '.', "expected '.' and a change after 'critical_path'") < 0)
			return -1;
		return parse_change(p, out);
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
	} else if (word_is(p, n, "key") && p->s[p->i + n] == '[') {
		p->i += n + 1;
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
	if (expect_char(p, '.', "expected '.' and a change: base, new, abs or rel") < 0)
		return -1;
	return parse_change(p, out);
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
	int kind = gt_cmp_field_kind(out->field);
	if (out->change == GT_C_REL)
		kind = GT_KIND_RATIO;
	static const struct {
		const char *u;
		long long mul;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	bool time_unit = false;
	for (size_t k = 0; k < 4; k++) {
		size_t n = strlen(units[k].u);
		if (strncmp(p->s + p->i, units[k].u, n) == 0 && !isalnum((unsigned char)p->s[p->i + n])) {
			num *= units[k].mul;
			p->i += n;
			time_unit = true;
			break;
		}
	}
	if (time_unit && kind != GT_KIND_TIME)
		return fail_at(p, uat, kind == GT_KIND_RATIO ? "a time unit on a ratio (use a fraction or %)"
							     : "a time unit on a count");
	if (!time_unit && p->s[p->i] == '%') {
		if (kind != GT_KIND_RATIO)
			return fail_at(p, uat, "'%' applies only to ratios (rel, or cp_share)");
		den *= 100;
		p->i++;
	} else if (!time_unit && isalpha((unsigned char)p->s[p->i])) {
		return fail_at(p, uat, "unknown unit (expected ns, us, ms, s or %)");
	}
	if (kind == GT_KIND_COUNT && fdigits)
		return fail_at(p, at, "a count must be an integer");
	out->value = (gt_rat){neg ? -num : num, den};
	return 0;
}

int gt_cond_parse(const char *text, gt_cond *out, size_t *pos, const char **why)
{
	memset(out, 0, sizeof *out);
	struct parser p = {.s = text};
	skip_ws(&p);
	int rc = parse_metric(&p, out);
	if (rc == 0) {
		skip_ws(&p);
		rc = parse_op(&p, out);
	}
	if (rc == 0) {
		skip_ws(&p);
		rc = parse_value(&p, out);
	}
	if (rc == 0) {
		skip_ws(&p);
		if (p.s[p.i])
			rc = fail_at(&p, p.i, "unexpected text after the value");
	}
	if (rc == 0 && !(out->text = strdup(text)))
		rc = fail_at(&p, 0, "out of memory");
	if (rc < 0) {
		gt_cond_free(out);
		*pos = p.err_at;
		*why = p.why;
		return -1;
	}
	return 0;
}

void gt_cond_free(gt_cond *c)
{
	free(c->key);
	free(c->text);
	c->key = c->text = NULL;
}

bool gt_cond_eval(const gt_compare *c, const gt_cond *cond, gt_rat *value)
{
	const gt_cmp_key *k = cond->key ? gt_compare_find(c, cond->key) : NULL;
	static const gt_cmp_key absent;
	if (cond->key && !k)
		k = &absent; /* in neither trace: counts and sums are 0 */
	gt_rat v = gt_cmp_change_value(c, k, cond->field, cond->change);
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
