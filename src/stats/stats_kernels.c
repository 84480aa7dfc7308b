/* The kernels report (stats.h): the device spans ordered by (window, key,
 * name, duration), then each group's distribution; the busy time from the
 * spans ordered by (window, process, start). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_order.h"

typedef struct item {
	uint32_t window, key, name, process;
	int64_t dur, ts;
} item;

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
		const item *x = &v[i];
		busy_of *b = &busy[k++];
		*b = (busy_of){x->window, x->process, 0};
		int64_t lo = x->ts, hi = x->ts + x->dur;
		for (i++;; i++) {
			x = i < n ? &v[i] : NULL;
			bool same = x && x->window == b->window && x->process == b->process;
			if (same && x->ts <= hi) {
				hi = x->ts + x->dur > hi ? x->ts + x->dur : hi;
				continue;
			}
			*overflow |= __builtin_add_overflow(b->ns, hi - lo, &b->ns);
			if (!same)
				break;
			lo = x->ts, hi = x->ts + x->dur;
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
	busy_of *busy = NULL;
	if (!v)
		return gt_fail(err, GT_EINPUT, "out of memory for %llu device spans", (unsigned long long)s->device_spans);
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
	stats_records rec;
	int64_t *durs = gt_big_malloc(n ? n : 1, sizeof *durs);
	if (!durs || stats_records_init(&rec, v, n, sizeof *v) < 0) {
		gt_big_free(v), free(busy), gt_big_free(durs);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu device spans", (unsigned long long)n);
	}
	stats_records_by_i64(&rec, offsetof(item, ts));
	stats_records_by_u32(&rec, offsetof(item, process));
	stats_records_by_u32(&rec, offsetof(item, window));
	uint32_t pairs = 0; /* (window, process) pairs */
	for (uint64_t i = 0; i < n; i++) {
		const item *a = (const item *)rec.v + i, *b = a - 1;
		pairs += i == 0 || a->window != b->window || a->process != b->process;
	}
	if (!(busy = malloc((pairs ? pairs : 1) * sizeof *busy))) {
		gt_big_free(stats_records_done(&rec)), gt_big_free(durs);
		return gt_fail(err, GT_EINPUT, "out of memory for the busy time");
	}
	uint32_t nbusy = union_busy(rec.v, n, busy, &out->overflow);
	for (uint32_t i = 0; i < nbusy; i++)
		out->overflow |= __builtin_add_overflow(out->busy_ns, busy[i].ns, &out->busy_ns);
	stats_records_by_i64(&rec, offsetof(item, dur));
	stats_records_by_u32(&rec, offsetof(item, name));
	stats_records_by_u32(&rec, offsetof(item, key));
	stats_records_by_u32(&rec, offsetof(item, window));
	v = stats_records_done(&rec);
	uint32_t groups = 0;
	for (uint64_t i = 0; i < n; i++) {
		groups += i == 0 || v[i].window != v[i - 1].window || v[i].key != v[i - 1].key || v[i].name != v[i - 1].name;
		durs[i] = v[i].dur;
	}
	out->rows = calloc(groups ? groups : 1, sizeof *out->rows);
	if (!out->rows) {
		gt_big_free(v), free(busy), gt_big_free(durs);
		return gt_fail(err, GT_EINPUT, "out of memory for %u kernel names", groups);
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i + 1;
		while (j < n && v[j].window == v[i].window && v[j].key == v[i].key && v[j].name == v[i].name)
			j++;
		gt_kernel_stat *r = &out->rows[out->count++];
		r->window = v[i].window, r->key = v[i].key, r->name = v[i].name;
		r->busy_ns = busy_for(s, busy, nbusy, by, v[i].window, v[i].key);
		gt_stats_dist_of(&durs[i], sizeof *durs, j - i, &r->d, &out->overflow);
		i = j;
	}
	gt_big_free(durs);
	gt_big_free(v), free(busy);
	struct row_order order = {m, group_class};
	qsort_r(out->rows, out->count, sizeof *out->rows, cmp_row, &order);
	return 0;
}

void gt_kernel_stats_free(gt_kernel_stats *k)
{
	free(k->rows);
	memset(k, 0, sizeof *k);
}
