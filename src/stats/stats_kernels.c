/* The kernels report (stats.h): the device spans by (window, key, name,
 * duration), one sort, then each group's distribution; the busy time from
 * the spans by (window, process, start). */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct item {
	uint32_t window, key, name, process;
	int64_t dur, ts;
} item;

static int cmp_group(const void *x, const void *y)
{
	const item *a = x, *b = y;
	if (a->window != b->window)
		return a->window < b->window ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->dur < b->dur ? -1 : a->dur > b->dur;
}

static int cmp_start(const void *x, const void *y)
{
	const item *a = x, *b = y;
	if (a->window != b->window)
		return a->window < b->window ? -1 : 1;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* Rows tie by the name's text, or by class. */
struct row_order {
	const gt_model *m;
	bool by_class;
};

static int cmp_row(const void *x, const void *y, void *ctx)
{
	const gt_kernel_stat *a = x, *b = y;
	const struct row_order *o = ctx;
	if (a->window != b->window)
		return a->window < b->window ? -1 : 1;
	if (a->d.total_ns != b->d.total_ns)
		return a->d.total_ns > b->d.total_ns ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (o->by_class)
		return a->name < b->name ? -1 : a->name > b->name;
	return strcmp(gt_model_str(o->m, a->name), gt_model_str(o->m, b->name));
}

/* The union of the intervals per (window, process); v by (window,
 * process, start). busy gets one entry per pair, in that order. */
typedef struct busy_of {
	uint32_t window, process;
	int64_t ns;
} busy_of;

static uint32_t union_busy(const item *v, uint64_t n, busy_of *busy, bool *overflow)
{
	uint32_t k = 0;
	for (uint64_t i = 0; i < n;) {
		busy_of *b = &busy[k++];
		*b = (busy_of){v[i].window, v[i].process, 0};
		int64_t lo = v[i].ts, hi = v[i].ts + v[i].dur;
		for (i++;; i++) {
			bool same = i < n && v[i].window == b->window && v[i].process == b->process;
			if (same && v[i].ts <= hi) {
				hi = v[i].ts + v[i].dur > hi ? v[i].ts + v[i].dur : hi;
				continue;
			}
			*overflow |= __builtin_add_overflow(b->ns, hi - lo, &b->ns);
			if (!same)
				break;
			lo = v[i].ts, hi = v[i].ts + v[i].dur;
		}
	}
	return k;
}

/* A row's share denominator: the busy time of the GPUs it covers in its
 * window (by name: all; by rank: the rank's; by stream: the stream's). */
static int64_t busy_for(const gt_stats_scope *s, const busy_of *busy, uint32_t nbusy, int by, uint32_t window,
			uint32_t key)
{
	const gt_model *m = s->m;
	int64_t sum = 0;
	uint32_t lo = 0, hi = nbusy;
	while (lo < hi) { /* the window's first entry */
		uint32_t mid = lo + (hi - lo) / 2;
		if (busy[mid].window < window)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i < nbusy && busy[i].window == window; i++) {
		uint32_t p = busy[i].process;
		bool covers = by == GT_STATS_BY_NAME ||
			      (by == GT_STATS_BY_STREAM && m->tracks[key].process == p) ||
			      (by == GT_STATS_BY_RANK &&
			       (m->rank_count ? (uint32_t)(gt_model_process_rank(m, p) - m->ranks) : 0) == key);
		if (covers)
			__builtin_add_overflow(sum, busy[i].ns, &sum);
	}
	return sum;
}

int gt_stats_kernels(const gt_stats_scope *s, int by, bool group_class, gt_kernel_stats *out, gt_error *err)
{
	const gt_model *m = s->m;
	memset(out, 0, sizeof *out);
	item *v = gt_big_malloc(s->device_spans ? s->device_spans : 1, sizeof *v);
	busy_of *busy = gt_big_malloc(s->device_spans ? s->device_spans : 1, sizeof *busy);
	if (!v || !busy) {
		gt_big_free(v), gt_big_free(busy);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu device spans", (unsigned long long)s->device_spans);
	}
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t w = gt_stats_window(s, i);
		if (!gt_stats_is_device(s, i) || w == GT_NONE)
			continue;
		const gt_span *sp = &m->spans[i];
		uint32_t key = GT_NONE;
		if (by == GT_STATS_BY_STREAM)
			key = sp->track;
		else if (by == GT_STATS_BY_RANK)
			key = m->rank_count ? (uint32_t)(gt_model_span_rank(m, i) - m->ranks) : 0;
		v[n++] = (item){s->steps.count ? w : GT_NONE, key, group_class ? s->device[i] : sp->name,
				m->tracks[sp->track].process, sp->dur_ns, sp->ts_ns};
	}
	qsort(v, n, sizeof *v, cmp_start);
	uint32_t nbusy = union_busy(v, n, busy, &out->overflow);
	for (uint32_t i = 0; i < nbusy; i++)
		out->overflow |= __builtin_add_overflow(out->busy_ns, busy[i].ns, &out->busy_ns);
	qsort(v, n, sizeof *v, cmp_group);
	uint32_t groups = 0;
	for (uint64_t i = 0; i < n; i++)
		groups += i == 0 || v[i].window != v[i - 1].window || v[i].key != v[i - 1].key || v[i].name != v[i - 1].name;
	out->rows = calloc(groups ? groups : 1, sizeof *out->rows);
	if (!out->rows) {
		gt_big_free(v), gt_big_free(busy);
		return gt_fail(err, GT_EINPUT, "out of memory for %u kernel names", groups);
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i + 1;
		while (j < n && v[j].window == v[i].window && v[j].key == v[i].key && v[j].name == v[i].name)
			j++;
		gt_kernel_stat *r = &out->rows[out->count++];
		r->window = v[i].window, r->key = v[i].key, r->name = v[i].name;
		r->busy_ns = busy_for(s, busy, nbusy, by, v[i].window, v[i].key);
		gt_stats_dist_of(&v[i].dur, sizeof *v, j - i, &r->d, &out->overflow);
		i = j;
	}
	gt_big_free(v), gt_big_free(busy);
	struct row_order order = {m, group_class};
	qsort_r(out->rows, out->count, sizeof *out->rows, cmp_row, &order);
	return 0;
}

void gt_kernel_stats_free(gt_kernel_stats *k)
{
	free(k->rows);
	memset(k, 0, sizeof *k);
}
