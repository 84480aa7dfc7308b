/* compare: per-step (per-window) values of every key, their statistics
 * (n, min, median, max, mad) and the U test between the sides. The windows
 * and which spans they hold are the causal model's (causal.h); nothing here
 * decides membership again. */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "mwu.h"

const char *const gt_cmp_stat_names[GT_S_COUNT] = {"", "n", "min", "median", "max", "mad"};

bool gt_cmp_field_has_steps(int field)
{
	return field != GT_F_CP_SHARE;
}

static int oom(gt_error *err)
{
	return gt_fail(err, GT_EINPUT, "out of memory for the per-step statistics");
}

static int windows_alloc(gt_cmp_windows *w, uint32_t count, size_t keys)
{
	w->count = count;
	w->cp_ns = calloc(count ? count : 1, sizeof *w->cp_ns);
	w->wall_ns = calloc(count ? count : 1, sizeof *w->wall_ns);
	w->spans = calloc(count ? count : 1, sizeof *w->spans);
	w->store = calloc((keys ? keys : 1) * (count ? count : 1), sizeof *w->store);
	return w->cp_ns && w->wall_ns && w->spans && w->store ? 0 : -1;
}

static void attach(gt_compare *c, int side)
{
	for (size_t i = 0; i < c->key_count; i++)
		c->keys[i].steps[side] = c->win[side].store + i * c->win[side].count;
}

int gt_compare_steps_whole(gt_compare *c, gt_error *err)
{
	for (int s = 0; s < 2; s++) {
		if (c->win[s].store)
			continue;
		if (windows_alloc(&c->win[s], 1, c->key_count) < 0)
			return oom(err);
		c->win[s].cp_ns[0] = c->side[s].cp_ns;
		c->win[s].wall_ns[0] = c->side[s].trace_ns;
		c->win[s].spans[0] = c->side[s].spans;
		attach(c, s);
		for (size_t i = 0; i < c->key_count; i++)
			c->keys[i].steps[s][0] = c->keys[i].s[s];
	}
	return 0;
}

/* Key indices by key bytes, to find a span's key. */
static const gt_compare *by_name_of;
static int cmp_by_name(const void *a, const void *b)
{
	return strcmp(by_name_of->keys[*(const uint32_t *)a].key, by_name_of->keys[*(const uint32_t *)b].key);
}

static uint32_t find_key(const gt_compare *c, const uint32_t *by_name, const char *name)
{
	size_t lo = 0, hi = c->key_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(c->keys[by_name[mid]].key, name);
		if (r == 0)
			return by_name[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return GT_NONE;
}

struct kd {
	uint32_t key;
	int64_t dur;
};

static int cmp_kd(const void *a, const void *b)
{
	const struct kd *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->dur > y->dur) - (x->dur < y->dur);
}

static size_t rank_of(unsigned p, uint64_t n)
{
	uint64_t rank = (p * n + 99) / 100;
	return rank ? (size_t)rank - 1 : 0;
}

int gt_compare_steps(gt_compare *c, int side, const gt_model *m, const gt_causal_result *r, gt_error *err)
{
	gt_cmp_windows *w = &c->win[side];
	uint32_t n = m->span_count;
	uint32_t nids = c->by == GT_BY_GROUP ? GT_MAX_GROUPS : m->strings.count;
	int64_t *children = calloc(n ? n : 1, sizeof *children);
	uint32_t *memo = malloc(((size_t)nids + 1) * sizeof *memo);
	uint32_t *by_name = malloc((c->key_count ? c->key_count : 1) * sizeof *by_name);
	uint32_t most = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		most = r->windows[i].row_count > most ? r->windows[i].row_count : most;
	struct kd *kd = malloc((most ? most : 1) * sizeof *kd);
	int rc = 0;
	if (!children || !memo || !by_name || !kd || windows_alloc(w, r->window_count, c->key_count) < 0)
		rc = oom(err);
	if (rc == 0) {
		attach(c, side);
		for (size_t i = 0; i < c->key_count; i++)
			by_name[i] = (uint32_t)i;
		by_name_of = c;
		qsort(by_name, c->key_count, sizeof *by_name, cmp_by_name);
		memset(memo, 0xff, ((size_t)nids + 1) * sizeof *memo); /* GT_NONE: not looked up */
		/* self time subtracts nesting children, as in the whole-trace
		 * statistics (sums checked there) */
		for (uint32_t i = 0; i < n; i++) {
			const gt_span *s = &m->spans[i];
			if (s->parent != GT_NONE && s->parent < n && !(s->flags & GT_SPANF_FLOW_PARENT))
				children[s->parent] += s->dur_ns;
		}
	}
	bool ovf = false;
	for (uint32_t wi = 0; rc == 0 && wi < r->window_count; wi++) {
		const gt_causal_window *cw = &r->windows[wi];
		w->cp_ns[wi] = cw->path_duration_ns;
		w->wall_ns[wi] = cw->wall_ns;
		w->spans[wi] = cw->row_count;
		for (uint32_t j = 0; j < cw->row_count; j++) {
			const gt_causal_row *row = &cw->rows[j];
			const gt_span *s = &m->spans[row->span];
			uint32_t id = c->by == GT_BY_NAME ? s->name : c->by == GT_BY_CAT ? s->cat : s->group;
			if (id >= nids)
				id = nids;
			if (memo[id] == GT_NONE) {
				const char *name = id == nids ? ""
					: c->by != GT_BY_GROUP ? gt_model_str(m, id)
					: id < m->group_count ? gt_model_str(m, m->groups[id].name) : "";
				memo[id] = find_key(c, by_name, name);
			}
			uint32_t k = memo[id];
			if (k == GT_NONE) {
				rc = gt_fail(err, GT_EINPUT, "'%s': span %u has no key in the comparison",
					     m->source ? m->source : "", row->span);
				break;
			}
			gt_key_stats *a = &c->keys[k].steps[side][wi];
			a->count++;
			ovf |= __builtin_add_overflow(a->dur_ns, s->dur_ns, &a->dur_ns);
			ovf |= __builtin_add_overflow(a->self_ns, s->dur_ns - children[row->span], &a->self_ns);
			if (row->on_path) {
				a->cp_count++;
				ovf |= __builtin_add_overflow(a->cp_ns, row->critical_ns, &a->cp_ns);
			}
			kd[j] = (struct kd){k, s->dur_ns};
		}
		if (rc < 0)
			break;
		/* percentiles: the window's durations by key */
		qsort(kd, cw->row_count, sizeof *kd, cmp_kd);
		for (uint32_t j = 0; j < cw->row_count;) {
			uint32_t e = j;
			while (e < cw->row_count && kd[e].key == kd[j].key)
				e++;
			gt_key_stats *a = &c->keys[kd[j].key].steps[side][wi];
			uint64_t cnt = e - j;
			a->p50_ns = kd[j + rank_of(50, cnt)].dur;
			a->p95_ns = kd[j + rank_of(95, cnt)].dur;
			a->max_ns = kd[e - 1].dur;
			j = e;
		}
	}
	if (rc == 0 && ovf)
		rc = gt_fail(err, GT_EINPUT, "'%s': a key's durations in a step overflow int64",
			     m->source ? m->source : "");
	free(children);
	free(memo);
	free(by_name);
	free(kd);
	return rc;
}

size_t gt_cmp_step_values(const gt_compare *c, const gt_cmp_key *k, int field, int side, int64_t *v)
{
	const gt_cmp_windows *w = &c->win[side];
	size_t n = 0;
	for (uint32_t i = 0; i < w->count; i++) {
		switch (field) {
		case GT_F_SPANS: v[n++] = (int64_t)w->spans[i]; continue;
		case GT_F_TRACE_DUR: v[n++] = w->wall_ns[i]; continue;
		case GT_F_CRITICAL_PATH: v[n++] = w->cp_ns[i]; continue;
		}
		static const gt_key_stats none;
		const gt_key_stats *s = k && k->steps[side] ? &k->steps[side][i] : &none;
		switch (field) {
		case GT_F_COUNT: v[n++] = (int64_t)s->count; break;
		case GT_F_DUR: v[n++] = s->dur_ns; break;
		case GT_F_SELF: v[n++] = s->self_ns; break;
		case GT_F_CP_COUNT: v[n++] = (int64_t)s->cp_count; break;
		case GT_F_CP_NS: v[n++] = s->cp_ns; break;
		case GT_F_P50: if (s->count) v[n++] = s->p50_ns; break;
		case GT_F_P95: if (s->count) v[n++] = s->p95_ns; break;
		case GT_F_MAX: if (s->count) v[n++] = s->max_ns; break;
		}
	}
	return n;
}

static int cmp_i128(const void *a, const void *b)
{
	__int128 x = *(const __int128 *)a, y = *(const __int128 *)b;
	return (x > y) - (x < y);
}

/* The median of sorted x[0..n) (n > 0) as num / den (den 1 or 2). */
static gt_rat median_of(const __int128 *x, size_t n)
{
	if (n % 2)
		return (gt_rat){x[n / 2], 1};
	__int128 s = x[n / 2 - 1] + x[n / 2];
	return s % 2 == 0 ? (gt_rat){s / 2, 1} : (gt_rat){s, 2};
}

/* Every statistic of one side's values (out[GT_S_WHOLE] is left alone). */
static void side_statistics(const gt_compare *c, const gt_cmp_key *k, int field, int side, gt_rat *out)
{
	static const gt_rat null_rat = {0, 0};
	for (int st = GT_S_N; st < GT_S_COUNT; st++)
		out[st] = null_rat;
	if (!gt_cmp_field_has_steps(field))
		return;
	uint32_t cnt = c->win[side].count;
	int64_t *v = malloc((cnt ? cnt : 1) * sizeof *v);
	__int128 *x = malloc((cnt ? cnt : 1) * sizeof *x);
	if (v && x) {
		size_t n = gt_cmp_step_values(c, k, field, side, v);
		out[GT_S_N] = (gt_rat){(__int128)n, 1};
		if (n) {
			for (size_t i = 0; i < n; i++)
				x[i] = v[i];
			qsort(x, n, sizeof *x, cmp_i128);
			gt_rat med = median_of(x, n);
			out[GT_S_MIN] = (gt_rat){x[0], 1};
			out[GT_S_MAX] = (gt_rat){x[n - 1], 1};
			out[GT_S_MEDIAN] = med;
			/* |v - med| in units of 1/med.den */
			for (size_t i = 0; i < n; i++) {
				__int128 d = x[i] * med.den - med.num;
				x[i] = d < 0 ? -d : d;
			}
			qsort(x, n, sizeof *x, cmp_i128);
			gt_rat mad = median_of(x, n);
			mad.den *= med.den;
			if (mad.den == 4 && mad.num % 2 == 0)
				mad.num /= 2, mad.den = 2;
			if (mad.den == 2 && mad.num % 2 == 0)
				mad.num /= 2, mad.den = 1;
			out[GT_S_MAD] = mad;
		}
	}
	free(v);
	free(x);
}

gt_rat gt_cmp_stat_value(const gt_compare *c, const gt_cmp_key *k, int field, int stat, int side)
{
	if (stat == GT_S_WHOLE)
		return gt_cmp_value(c, k, field, side);
	gt_rat all[GT_S_COUNT];
	side_statistics(c, k, field, side, all);
	return all[stat];
}

void gt_cmp_field_stats(const gt_compare *c, const gt_cmp_key *k, int field, gt_cmp_stats *out)
{
	for (int side = 0; side < 2; side++) {
		gt_rat all[GT_S_COUNT];
		side_statistics(c, k, field, side, all);
		for (int st = 0; st < GT_S_COUNT; st++)
			out->v[st][side] = st == GT_S_WHOLE ? gt_cmp_value(c, k, field, side) : all[st];
	}
	out->p = gt_cmp_p(c, k, field);
}

gt_rat gt_cmp_stat_change(const gt_compare *c, const gt_cmp_key *k, int field, int stat, int change)
{
	return gt_rat_change(gt_cmp_stat_value(c, k, field, stat, 0), gt_cmp_stat_value(c, k, field, stat, 1),
			     change);
}

gt_rat gt_cmp_p(const gt_compare *c, const gt_cmp_key *k, int field)
{
	gt_rat out = {0, 0};
	if (!gt_cmp_field_has_steps(field))
		return out;
	uint32_t ca = c->win[0].count, cb = c->win[1].count;
	int64_t *a = malloc((ca ? ca : 1) * sizeof *a), *b = malloc((cb ? cb : 1) * sizeof *b);
	if (a && b) {
		size_t na = gt_cmp_step_values(c, k, field, 0, a), nb = gt_cmp_step_values(c, k, field, 1, b);
		gt_mwu t;
		gt_error err = {0};
		if (gt_mwu_test(a, na, b, nb, &t, &err) == 0) {
			if (t.exact)
				out = (gt_rat){t.num, t.den};
			else
				out = (gt_rat){(__int128)(t.p * 1e15 + 0.5), (__int128)1000000000000000};
		}
	}
	free(a);
	free(b);
	return out;
}
