/* Communication kernels from a model or a summary, their matching across
 * ranks and the stragglers (the rules are in collective.h). */
#include "collective.h"

#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gt_coll_set_init(gt_coll_set *s)
{
	memset(s, 0, sizeof *s);
	gt_strpool_init(&s->names);
}

void gt_coll_set_free(gt_coll_set *s)
{
	gt_strpool_free(&s->names);
	free(s->k);
	free(s->ranks);
	memset(s, 0, sizeof *s);
}

int gt_coll_add_rank(gt_coll_set *s, int64_t rank, gt_error *err)
{
	uint32_t lo = 0, hi = s->rank_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->ranks[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->rank_count && s->ranks[lo] == rank)
		return 0;
	if (s->rank_count == s->rank_cap) {
		uint32_t c = s->rank_cap ? s->rank_cap * 2 : 64;
		int64_t *p = gt_fault_hit("alloc") ? NULL : realloc(s->ranks, c * sizeof *p);
		if (!p)
			return gt_fail(err, GT_EINPUT, "out of memory");
		s->ranks = p;
		s->rank_cap = c;
	}
	memmove(s->ranks + lo + 1, s->ranks + lo, (s->rank_count - lo) * sizeof *s->ranks);
	s->ranks[lo] = rank;
	s->rank_count++;
	return 0;
}

int gt_coll_add(gt_coll_set *s, const gt_coll_kernel *k, const char *name, gt_error *err)
{
	if (gt_coll_add_rank(s, k->rank, err) < 0)
		return -1;
	if (s->n == s->cap) {
		uint64_t c = s->cap ? s->cap * 2 : 1024;
		gt_coll_kernel *p = gt_fault_hit("alloc") ? NULL : realloc(s->k, c * sizeof *p);
		if (!p)
			return gt_fail(err, GT_EINPUT, "out of memory");
		s->k = p;
		s->cap = c;
	}
	gt_coll_kernel *d = &s->k[s->n];
	*d = *k;
	d->name = gt_strpool_intern(&s->names, name, strlen(name));
	if (d->name == GT_NONE)
		return gt_fail(err, GT_EINPUT, "out of memory");
	s->n++;
	return 0;
}

/* Whether each name (string id) names a communication kernel. */
static uint8_t *comm_names(const gt_model *m, const char *regex, gt_error *err)
{
	regex_t extra;
	if (regex && regcomp(&extra, regex, REG_EXTENDED | REG_NOSUB) != 0) {
		gt_fail(err, GT_EUSAGE, "--collective-name '%s' is not a POSIX extended regular expression", regex);
		return NULL;
	}
	uint8_t *is = gt_fault_hit("alloc") ? NULL : calloc((size_t)m->strings.count + 1, 1);
	if (!is)
		gt_fail(err, GT_EINPUT, "out of memory");
	/* only the names of kernels are tried: a regex per span would be slow */
	for (uint32_t i = 0; is && i < m->span_count; i++) {
		const gt_span *sp = &m->spans[i];
		if (is[sp->name] || strcasecmp(gt_model_str(m, sp->cat), "kernel") != 0)
			continue;
		const char *n = gt_model_str(m, sp->name);
		bool hit = gt_communication_name(n) || (regex && regexec(&extra, n, 0, NULL, 0) == 0);
		is[sp->name] = hit ? 2 : 1;
	}
	if (regex)
		regfree(&extra);
	return is;
}

/* A rank's step windows, by begin. */
typedef struct steps {
	int64_t *b, *e;
	uint32_t n, cap;
} steps;

static int64_t step_of(const steps *st, int64_t t)
{
	uint32_t lo = 0, hi = st->n; /* the last window beginning at or before t */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (st->b[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int64_t)(lo - 1) : -1;
}

static _Thread_local const int64_t *sort_keys;
static int cmp_by_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_keys[x] != sort_keys[y])
		return sort_keys[x] < sort_keys[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The step windows of spans [lo, hi): spans off device tracks whose name
 * matches the glob, by begin (ties: id). */
static int find_steps(const gt_model *m, const uint8_t *track_device, uint32_t lo, uint32_t hi, const char *glob,
		      steps *st, gt_error *err)
{
	st->n = 0;
	uint32_t *ids = NULL;
	uint32_t n = 0, cap = 0;
	for (uint32_t i = lo; i < hi; i++) {
		const gt_span *s = &m->spans[i];
		if (track_device[s->track] || fnmatch(glob, gt_model_str(m, s->name), 0) != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			uint32_t *p = realloc(ids, cap * sizeof *p);
			if (!p) {
				free(ids);
				return gt_fail(err, GT_EINPUT, "out of memory");
			}
			ids = p;
		}
		ids[n++] = i;
	}
	if (n > st->cap) {
		int64_t *b = realloc(st->b, n * sizeof *b);
		if (b)
			st->b = b;
		int64_t *e = b ? realloc(st->e, n * sizeof *e) : NULL;
		if (e)
			st->e = e;
		if (!b || !e) {
			free(ids);
			return gt_fail(err, GT_EINPUT, "out of memory");
		}
		st->cap = n;
	}
	/* spans are nearly in begin order already; a stable sort by begin */
	int64_t *key = malloc(((size_t)n + 1) * sizeof *key);
	uint32_t *ord = malloc(((size_t)n + 1) * sizeof *ord);
	if (!key || !ord) {
		free(ids), free(key), free(ord);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++)
		key[i] = m->spans[ids[i]].ts_ns, ord[i] = i;
	sort_keys = key;
	qsort(ord, n, sizeof *ord, cmp_by_key);
	for (uint32_t i = 0; i < n; i++) {
		const gt_span *s = &m->spans[ids[ord[i]]];
		st->b[i] = s->ts_ns;
		st->e[i] = s->ts_ns + s->dur_ns;
	}
	st->n = n;
	free(ids), free(key), free(ord);
	return 0;
}

/* Per name, the kernels of one rank numbered in begin order (ties: id). */
static int number_rank(gt_coll_set *s, uint64_t first, gt_error *err)
{
	uint64_t n = s->n - first;
	if (n == 0)
		return 0;
	if (n > UINT32_MAX)
		return gt_fail(err, GT_EINPUT, "more than 2^32 communication kernels on one rank");
	int64_t *key = malloc(n * sizeof *key);
	uint32_t *ord = malloc(n * sizeof *ord);
	uint64_t *next = calloc((size_t)s->names.count + 1, sizeof *next);
	if (!key || !ord || !next) {
		free(key), free(ord), free(next);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	for (uint64_t i = 0; i < n; i++)
		key[i] = s->k[first + i].begin_ns, ord[i] = (uint32_t)i;
	sort_keys = key;
	qsort(ord, n, sizeof *ord, cmp_by_key); /* kernels were added by span id */
	for (uint64_t i = 0; i < n; i++) {
		gt_coll_kernel *k = &s->k[first + ord[i]];
		k->seq = next[k->name]++;
	}
	free(key), free(ord), free(next);
	return 0;
}

int gt_coll_extract(gt_coll_set *s, const gt_model *m, const gt_coll_options *opt, gt_error *err)
{
	uint8_t *is = comm_names(m, opt ? opt->name_regex : NULL, err);
	if (!is)
		return -1;
	uint8_t *track_device = calloc((size_t)m->track_count + 1, 1);
	/* a kernel's launch: the departure of the flow into it */
	int64_t *launch = NULL;
	int rc = track_device ? 0 : gt_fail(err, GT_EINPUT, "out of memory");
	for (uint32_t i = 0; rc == 0 && i < m->span_count; i++)
		if (gt_device_category(gt_model_str(m, m->spans[i].cat)))
			track_device[m->spans[i].track] = 1;
	const char *glob = opt ? opt->step_glob : NULL;
	if (rc == 0 && glob) {
		launch = malloc(((size_t)m->span_count + 1) * sizeof *launch);
		if (!launch)
			rc = gt_fail(err, GT_EINPUT, "out of memory");
		for (uint32_t i = 0; launch && i < m->span_count; i++)
			launch[i] = m->spans[i].ts_ns;
		for (uint32_t f = 0; launch && f < m->flow_count; f++) {
			const gt_flow *fl = &m->flows[f];
			if (fl->src != GT_NONE && fl->dst != GT_NONE && is[m->spans[fl->dst].name] == 2)
				launch[fl->dst] = fl->src_ts_ns;
		}
	}
	steps st = {0};
	uint32_t parts = m->rank_count ? m->rank_count : 1;
	for (uint32_t p = 0; rc == 0 && p < parts; p++) {
		int64_t rank = m->rank_count ? m->ranks[p].rank : (m->rank >= 0 ? m->rank : 0);
		uint32_t lo = m->rank_count ? m->ranks[p].span_base : 0;
		uint32_t hi = m->rank_count ? lo + m->ranks[p].span_count : m->span_count;
		rc = gt_coll_add_rank(s, rank, err);
		if (rc == 0 && glob)
			rc = find_steps(m, track_device, lo, hi, glob, &st, err);
		uint64_t first = s->n;
		for (uint32_t i = lo; rc == 0 && i < hi; i++) {
			const gt_span *sp = &m->spans[i];
			if (is[sp->name] != 2 || strcasecmp(gt_model_str(m, sp->cat), "kernel") != 0)
				continue;
			gt_coll_kernel k = {.rank = rank, .begin_ns = sp->ts_ns, .end_ns = sp->ts_ns + sp->dur_ns,
					    .step = glob ? step_of(&st, launch[i]) : -1, .span = i};
			rc = gt_coll_add(s, &k, gt_model_str(m, sp->name), err);
		}
		if (rc == 0)
			rc = number_rank(s, first, err);
	}
	free(st.b), free(st.e), free(launch), free(track_device), free(is);
	return rc;
}

static _Thread_local const gt_coll_kernel *match_k;
/* (name, seq, rank): a collective's kernels side by side, ranks in order */
static int cmp_match(const void *a, const void *b)
{
	const gt_coll_kernel *x = &match_k[*(const uint64_t *)a], *y = &match_k[*(const uint64_t *)b];
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return *(const uint64_t *)a < *(const uint64_t *)b ? -1 : 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static _Thread_local const gt_collective *coll_c;
static _Thread_local const gt_coll_set *coll_s;
static _Thread_local const uint64_t *coll_order;
static int cmp_collective(const void *a, const void *b)
{
	const gt_collective *x = a, *y = b;
	int64_t fx = coll_s->k[coll_order[x->first]].begin_ns, fy = coll_s->k[coll_order[y->first]].begin_ns;
	/* by the first rank's entry, then name and seq: stable across inputs */
	if (fx != fy)
		return fx < fy ? -1 : 1;
	if (x->name != y->name)
		return strcmp(gt_strpool_get(&coll_s->names, x->name), gt_strpool_get(&coll_s->names, y->name));
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int64_t sat_sub(int64_t a, int64_t b, bool *overflow)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r)) {
		*overflow = true;
		return INT64_MAX;
	}
	return r;
}

static int64_t sat_add(int64_t a, int64_t b, bool *overflow)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		*overflow = true;
		return INT64_MAX;
	}
	return r;
}

int gt_stragglers_find(const gt_coll_set *s, gt_stragglers *out, gt_error *err)
{
	memset(out, 0, sizeof *out);
	uint32_t R = s->rank_count;
	uint64_t *idx = malloc((s->n + 1) * sizeof *idx);
	int64_t *entries = malloc(((size_t)R + 1) * sizeof *entries);
	out->ranks = calloc((size_t)R + 1, sizeof *out->ranks);
	out->c = malloc((s->n / (R ? R : 1) + 1) * sizeof *out->c);
	if (!idx || !entries || !out->ranks || !out->c) {
		free(idx), free(entries), gt_stragglers_free(out);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	out->rank_count = R;
	for (uint32_t r = 0; r < R; r++)
		out->ranks[r].rank = s->ranks[r];
	for (uint64_t i = 0; i < s->n; i++)
		idx[i] = i;
	match_k = s->k;
	qsort(idx, s->n, sizeof *idx, cmp_match);
	uint64_t kept = 0;
	for (uint64_t i = 0; i < s->n;) {
		uint64_t j = i;
		while (j < s->n && s->k[idx[j]].name == s->k[idx[i]].name && s->k[idx[j]].seq == s->k[idx[i]].seq)
			j++;
		/* matched: exactly one kernel on every rank of the job */
		bool full = j - i == R;
		for (uint64_t a = i; full && a + 1 < j; a++)
			if (s->k[idx[a]].rank == s->k[idx[a + 1]].rank)
				full = false;
		if (!full) {
			out->unmatched_collectives += j - i;
			i = j;
			continue;
		}
		gt_collective *c = &out->c[out->count++];
		memset(c, 0, sizeof *c);
		c->name = s->k[idx[i]].name;
		c->seq = s->k[idx[i]].seq;
		c->first = kept;
		uint32_t last = 0;
		for (uint32_t r = 0; r < R; r++) {
			const gt_coll_kernel *k = &s->k[idx[i + r]];
			entries[r] = k->begin_ns;
			if (k->begin_ns > entries[last])
				last = r; /* ties keep the lowest rank */
			if (r == 0 || k->end_ns > c->end_ns)
				c->end_ns = k->end_ns;
			out->ranks[r].kernels++;
			idx[kept + r] = idx[i + r];
		}
		const gt_coll_kernel *lk = &s->k[idx[kept + last]];
		c->last_rank = lk->rank;
		c->step = lk->step;
		c->last_entry_ns = lk->begin_ns;
		qsort(entries, R, sizeof *entries, cmp_i64);
		c->median_entry_ns = entries[(R - 1) / 2];
		c->late_ns = sat_sub(c->last_entry_ns, c->median_entry_ns, &out->overflow);
		for (uint32_t r = 0; r < R; r++)
			c->waited_ns = sat_add(c->waited_ns, sat_sub(c->last_entry_ns, entries[r], &out->overflow),
					       &out->overflow);
		if (c->late_ns > 0 || c->waited_ns > 0) {
			gt_rank_wait *w = &out->ranks[last];
			w->last_count++;
			w->late_ns = sat_add(w->late_ns, c->late_ns, &out->overflow);
			w->caused_wait_ns = sat_add(w->caused_wait_ns, c->waited_ns, &out->overflow);
		}
		kept += R;
		i = j;
	}
	out->order = idx;
	free(entries);
	coll_s = s;
	coll_order = idx;
	coll_c = out->c;
	qsort(out->c, out->count, sizeof *out->c, cmp_collective);
	return 0;
}

void gt_stragglers_free(gt_stragglers *st)
{
	free(st->c);
	free(st->order);
	free(st->ranks);
	memset(st, 0, sizeof *st);
}

static _Thread_local const gt_collective *step_c;
static int cmp_step(const void *a, const void *b)
{
	const gt_collective *x = &step_c[*(const uint64_t *)a], *y = &step_c[*(const uint64_t *)b];
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->last_rank != y->last_rank)
		return x->last_rank < y->last_rank ? -1 : 1;
	return *(const uint64_t *)a < *(const uint64_t *)b ? -1 : 1;
}

int gt_stragglers_by_step(const gt_stragglers *st, gt_step_wait **out, uint64_t *n, gt_error *err)
{
	*out = NULL;
	*n = 0;
	uint64_t *ord = malloc((st->count + 1) * sizeof *ord);
	gt_step_wait *w = calloc(st->count + 1, sizeof *w);
	if (!ord || !w) {
		free(ord), free(w);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	for (uint64_t i = 0; i < st->count; i++)
		ord[i] = i;
	step_c = st->c;
	qsort(ord, st->count, sizeof *ord, cmp_step);
	bool overflow = false;
	for (uint64_t i = 0; i < st->count;) {
		int64_t step = st->c[ord[i]].step;
		gt_step_wait *s = &w[(*n)++];
		s->step = step;
		s->rank = -1;
		int64_t best = -1;
		while (i < st->count && st->c[ord[i]].step == step) {
			/* one run per last rank: what it caused in this step */
			int64_t rank = st->c[ord[i]].last_rank, late = 0, caused = 0;
			for (; i < st->count && st->c[ord[i]].step == step && st->c[ord[i]].last_rank == rank; i++) {
				const gt_collective *c = &st->c[ord[i]];
				s->collectives++;
				late = sat_add(late, c->late_ns, &overflow);
				caused = sat_add(caused, c->waited_ns, &overflow);
				s->waited_ns = sat_add(s->waited_ns, c->waited_ns, &overflow);
			}
			if (caused > best) { /* ranks come in order: ties keep the lowest */
				best = caused;
				s->rank = rank;
				s->late_ns = late;
				s->caused_wait_ns = caused;
			}
		}
	}
	free(ord);
	*out = w;
	return 0;
}
