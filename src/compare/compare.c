/* compare: per-key statistics of two traces and their changes. */
#include "compare.h"

#include <stdlib.h>
#include <string.h>

const char *const gt_cmp_field_names[GT_F_ALL_COUNT] = {
	"count", "dur_ns", "self_ns", "p50_ns", "p95_ns", "max_ns", "cp_count", "cp_ns", "cp_share",
	"spans", "dur_ns", "critical_path_ns",
};
const char *const gt_cmp_change_names[GT_C_COUNT] = {"base", "new", "abs", "rel"};

int gt_cmp_field_kind(int f)
{
	switch (f) {
	case GT_F_COUNT: case GT_F_CP_COUNT: case GT_F_SPANS: return GT_KIND_COUNT;
	case GT_F_CP_SHARE: return GT_KIND_RATIO;
	default: return GT_KIND_TIME;
	}
}

/* A side's keys: a model string per key and its statistics. */
struct side_keys {
	const char **names;
	gt_key_stats *st;
	bool *on_cp;
	size_t n;
};

static const char *key_name(const gt_model *m, uint32_t key, int by)
{
	if (by != GT_BY_GROUP)
		return gt_model_str(m, key);
	return key < m->group_count ? gt_model_str(m, m->groups[key].name) : "";
}

static void swap64(int64_t *a, int64_t *b)
{
	int64_t t = *a;
	*a = *b;
	*b = t;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The k-th smallest (0-based) of d[0..n), reordering d: quickselect with a
 * median of three, falling back to a sort when it degrades. */
static int64_t select_kth(int64_t *d, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	int budget = 64;
	while (lo < hi) {
		if (budget-- == 0) {
			qsort(d + lo, hi - lo + 1, sizeof *d, cmp_i64);
			return d[k];
		}
		size_t mid = lo + (hi - lo) / 2;
		if (d[mid] < d[lo])
			swap64(&d[mid], &d[lo]);
		if (d[hi] < d[lo])
			swap64(&d[hi], &d[lo]);
		if (d[hi] < d[mid])
			swap64(&d[hi], &d[mid]);
		int64_t pivot = d[mid];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (d[i] < pivot)
				i++;
			while (d[j] > pivot)
				j--;
			if (i <= j) {
				swap64(&d[i], &d[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return d[k];
	}
	return d[k];
}

/* Nearest rank: the ceil(p * n / 100)-th smallest (1-based). */
static size_t rank_of(unsigned p, uint64_t n)
{
	uint64_t rank = (p * n + 99) / 100;
	return rank ? (size_t)rank - 1 : 0;
}

static int oom(const gt_model *m, gt_error *err)
{
	return gt_fail(err, GT_EINPUT, "out of memory comparing '%s'", m->source ? m->source : "");
}

/* Per-key statistics in O(n): spans are bucketed by key id, sums are
 * accumulated per bucket and percentiles selected inside each bucket. */
static int side_stats(const gt_model *m, const gt_cmp_cp *cp, int by, struct side_keys *out, gt_error *err)
{
	uint32_t n = m->span_count;
	memset(out, 0, sizeof *out);
	uint32_t nids = by == GT_BY_GROUP ? GT_MAX_GROUPS : m->strings.count;
	/* a span without a name or category has the key "" */
	uint32_t empty = by == GT_BY_GROUP ? GT_NONE : gt_strpool_find(&m->strings, "", 0);
	uint32_t none = empty != GT_NONE ? empty : nids; /* its bucket */
	size_t nb = (size_t)nids + 1;
	int64_t *children = calloc(n ? n : 1, sizeof *children);
	uint64_t *start = calloc(nb + 1, sizeof *start);
	gt_key_stats *acc = calloc(nb, sizeof *acc);
	int64_t *d = malloc((n ? n : 1) * sizeof *d);
	int rc = 0;
	if (!children || !start || !acc || !d)
		rc = oom(m, err);
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		const gt_span *s = &m->spans[i];
		if (s->parent != GT_NONE && s->parent < n && !(s->flags & GT_SPANF_FLOW_PARENT) &&
		    __builtin_add_overflow(children[s->parent], s->dur_ns, &children[s->parent]))
			rc = gt_fail(err, GT_EINPUT, "'%s': children's durations of span %u overflow int64",
				     m->source ? m->source : "", s->parent);
	}
	uint32_t *key = NULL;
	if (rc == 0 && !(key = malloc((n ? n : 1) * sizeof *key)))
		rc = oom(m, err);
	bool ovf = false;
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		const gt_span *s = &m->spans[i];
		uint32_t k = by == GT_BY_NAME ? s->name : by == GT_BY_CAT ? s->cat : s->group;
		if (k >= nids)
			k = none;
		key[i] = k;
		gt_key_stats *a = &acc[k];
		a->count++;
		ovf |= __builtin_add_overflow(a->dur_ns, s->dur_ns, &a->dur_ns);
		/* both >= 0: the difference cannot overflow */
		ovf |= __builtin_add_overflow(a->self_ns, s->dur_ns - children[i], &a->self_ns);
		if (cp->mask && cp->mask[i]) {
			a->cp_count++;
			ovf |= __builtin_add_overflow(a->cp_ns, cp->critical_ns ? cp->critical_ns[i] : s->dur_ns,
						      &a->cp_ns);
		}
	}
	if (rc == 0 && ovf)
		rc = gt_fail(err, GT_EINPUT, "'%s': a key's durations overflow int64", m->source ? m->source : "");
	size_t keys = 0;
	for (size_t k = 0; rc == 0 && k < nb; k++) {
		start[k + 1] = start[k] + acc[k].count;
		keys += acc[k].count > 0;
	}
	if (rc == 0) {
		/* scatter durations into their buckets (start[] is advanced and
		 * then restored by the shift below) */
		for (uint32_t i = 0; i < n; i++)
			d[start[key[i]]++] = m->spans[i].dur_ns;
		memmove(start + 1, start, nb * sizeof *start);
		start[0] = 0;
		out->names = malloc((keys ? keys : 1) * sizeof *out->names);
		out->st = calloc(keys ? keys : 1, sizeof *out->st);
		out->on_cp = calloc(keys ? keys : 1, sizeof *out->on_cp);
		if (!out->names || !out->st || !out->on_cp)
			rc = oom(m, err);
	}
	for (size_t k = 0; rc == 0 && k < nb; k++) {
		uint64_t c = acc[k].count;
		if (!c)
			continue;
		int64_t *b = d + start[k];
		gt_key_stats *st = &out->st[out->n];
		*st = acc[k];
		st->p95_ns = select_kth(b, c, rank_of(95, c));
		st->p50_ns = select_kth(b, c, rank_of(50, c));
		int64_t mx = b[0];
		for (uint64_t j = 1; j < c; j++)
			mx = b[j] > mx ? b[j] : mx;
		st->max_ns = mx;
		out->on_cp[out->n] = st->cp_count > 0;
		out->names[out->n++] = k == nids ? "" : key_name(m, (uint32_t)k, by);
	}
	free(children);
	free(start);
	free(acc);
	free(d);
	free(key);
	return rc;
}

static void side_free(struct side_keys *s)
{
	free(s->names);
	free(s->st);
	free(s->on_cp);
}

struct entry {
	const char *name;
	int side;
	size_t idx;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->side - y->side;
}

static __int128 abs_dur_change(const gt_cmp_key *k)
{
	__int128 d = (__int128)k->s[1].dur_ns - k->s[0].dur_ns;
	return d < 0 ? -d : d;
}

static int key_order(const void *a, const void *b)
{
	const gt_cmp_key *x = a, *y = b;
	__int128 dx = abs_dur_change(x), dy = abs_dur_change(y);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->key, y->key);
}

int gt_compare_run(gt_compare *out, const gt_model *base, const gt_cmp_cp *base_cp, const gt_model *new_,
		   const gt_cmp_cp *new_cp, int by, gt_error *err)
{
	memset(out, 0, sizeof *out);
	out->by = by;
	const gt_model *ms[2] = {base, new_};
	const gt_cmp_cp *cps[2] = {base_cp, new_cp};
	struct side_keys sk[2] = {{0}};
	for (int s = 0; s < 2; s++) {
		out->side[s].spans = ms[s]->span_count;
		out->side[s].trace_ns = ms[s]->span_count ? ms[s]->end_ns - ms[s]->start_ns : 0;
		out->side[s].cp_ns = cps[s]->mask ? cps[s]->duration : 0;
		out->side[s].cp_flags = cps[s]->flags;
		out->side[s].cp_rows = cps[s]->rows;
		if (side_stats(ms[s], cps[s], by, &sk[s], err) < 0) {
			side_free(&sk[0]);
			side_free(&sk[1]);
			return -1;
		}
	}
	size_t total = sk[0].n + sk[1].n;
	struct entry *e = malloc((total ? total : 1) * sizeof *e);
	size_t bytes = 1;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sk[s].n; i++)
			bytes += strlen(sk[s].names[i]) + 1;
	out->keys = calloc(total ? total : 1, sizeof *out->keys);
	out->key_text = malloc(bytes);
	if (!e || !out->keys || !out->key_text) {
		free(e);
		side_free(&sk[0]);
		side_free(&sk[1]);
		gt_compare_free(out);
		return gt_fail(err, GT_EINPUT, "out of memory comparing traces");
	}
	size_t ne = 0;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sk[s].n; i++)
			e[ne++] = (struct entry){sk[s].names[i], s, i};
	qsort(e, ne, sizeof *e, entry_cmp);
	char *text = out->key_text;
	for (size_t i = 0; i < ne;) {
		gt_cmp_key *k = &out->keys[out->key_count++];
		size_t len = strlen(e[i].name) + 1;
		memcpy(text, e[i].name, len);
		k->key = text;
		text += len;
		size_t j = i;
		for (; j < ne && strcmp(e[j].name, e[i].name) == 0; j++) {
			k->s[e[j].side] = sk[e[j].side].st[e[j].idx];
			k->on_cp[e[j].side] = sk[e[j].side].on_cp[e[j].idx];
		}
		i = j;
	}
	free(e);
	side_free(&sk[0]);
	side_free(&sk[1]);
	qsort(out->keys, out->key_count, sizeof *out->keys, key_order);
	return 0;
}

const char *const gt_cmp_sort_names[GT_SORT_COUNT] = {"self", "total", "cp", "change"};

/* A key and its sort value (|change|, null last). */
struct sort_item {
	gt_rat v;
	const char *key;
	size_t idx;
};

static int sort_cmp(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	int r = 0;
	if (!x->v.den || !y->v.den)
		r = !x->v.den - !y->v.den;
	else
		r = gt_rat_cmp(y->v, x->v);
	return r ? r : strcmp(x->key, y->key);
}

int gt_compare_sort(gt_compare *c, int order, int stat)
{
	struct sort_item *it = malloc((c->key_count ? c->key_count : 1) * sizeof *it);
	gt_cmp_key *keys = malloc((c->key_count ? c->key_count : 1) * sizeof *keys);
	if (!it || !keys) {
		free(it);
		free(keys);
		return -1;
	}
	int field = order == GT_SORT_TOTAL ? GT_F_DUR : order == GT_SORT_CP ? GT_F_CP_NS : GT_F_SELF;
	int change = order == GT_SORT_CHANGE ? GT_C_REL : GT_C_ABS;
	for (size_t i = 0; i < c->key_count; i++) {
		gt_rat v = gt_cmp_stat_change(c, &c->keys[i], field, stat, change);
		if (v.num < 0)
			v.num = -v.num;
		it[i] = (struct sort_item){v, c->keys[i].key, i};
	}
	qsort(it, c->key_count, sizeof *it, sort_cmp);
	for (size_t i = 0; i < c->key_count; i++)
		keys[i] = c->keys[it[i].idx];
	memcpy(c->keys, keys, c->key_count * sizeof *keys);
	free(it);
	free(keys);
	return 0;
}

void gt_compare_free(gt_compare *c)
{
	for (int s = 0; s < 2; s++) {
		free(c->win[s].cp_ns);
		free(c->win[s].wall_ns);
		free(c->win[s].spans);
		free(c->win[s].store);
	}
	free(c->keys);
	free(c->key_text);
	memset(c, 0, sizeof *c);
}

const gt_cmp_key *gt_compare_find(const gt_compare *c, const char *key)
{
	for (size_t i = 0; i < c->key_count; i++)
		if (strcmp(c->keys[i].key, key) == 0)
			return &c->keys[i];
	return NULL;
}

static gt_rat rat(__int128 n, __int128 d)
{
	return (gt_rat){n, d};
}

static const gt_rat NULL_RAT = {0, 0};

gt_rat gt_cmp_value(const gt_compare *c, const gt_cmp_key *k, int field, int side)
{
	const gt_cmp_side *sd = &c->side[side];
	switch (field) {
	case GT_F_SPANS: return rat(sd->spans, 1);
	case GT_F_TRACE_DUR: return rat(sd->trace_ns, 1);
	case GT_F_CRITICAL_PATH: return rat(sd->cp_ns, 1);
	}
	static const gt_cmp_key none;
	const gt_key_stats *s = &(k ? k : &none)->s[side];
	switch (field) {
	case GT_F_COUNT: return rat(s->count, 1);
	case GT_F_DUR: return rat(s->dur_ns, 1);
	case GT_F_SELF: return rat(s->self_ns, 1);
	case GT_F_P50: return s->count ? rat(s->p50_ns, 1) : NULL_RAT;
	case GT_F_P95: return s->count ? rat(s->p95_ns, 1) : NULL_RAT;
	case GT_F_MAX: return s->count ? rat(s->max_ns, 1) : NULL_RAT;
	case GT_F_CP_COUNT: return rat(s->cp_count, 1);
	case GT_F_CP_NS: return rat(s->cp_ns, 1);
	case GT_F_CP_SHARE: return sd->cp_ns > 0 ? rat(s->cp_ns, sd->cp_ns) : NULL_RAT;
	}
	return NULL_RAT;
}

gt_rat gt_rat_change(gt_rat b, gt_rat n, int change)
{
	if (change == GT_C_BASE)
		return b;
	if (change == GT_C_NEW)
		return n;
	if (!b.den || !n.den)
		return NULL_RAT;
	/* n.num/n.den - b.num/b.den; the operands are below 2^64 each, so the
	 * products fit in 128 bits */
	__int128 num = n.num * b.den - b.num * n.den;
	if (change == GT_C_ABS)
		return rat(num, n.den * b.den);
	/* rel = abs / base = num / (n.den * b.num) */
	if (b.num == 0)
		return NULL_RAT;
	__int128 den = n.den * b.num;
	return den < 0 ? rat(-num, -den) : rat(num, den);
}

gt_rat gt_cmp_change_value(const gt_compare *c, const gt_cmp_key *k, int field, int change)
{
	return gt_rat_change(gt_cmp_value(c, k, field, 0), gt_cmp_value(c, k, field, 1), change);
}
