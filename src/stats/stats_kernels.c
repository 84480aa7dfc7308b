/* The kernels report (stats.h): the device spans by (key, name, duration),
 * one sort, then each group's statistics; the busy time from the spans by
 * (process, start). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats.h"

static bool device_category(const char *cat)
{
	static const char *const cats[] = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"};
	for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
		if (!strcasecmp(cat, cats[i]))
			return true;
	return false;
}

typedef struct item {
	uint32_t key, name;
	int64_t dur;
	uint32_t process;
	int64_t ts;
} item;

static int cmp_group(const void *x, const void *y)
{
	const item *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->dur < b->dur ? -1 : a->dur > b->dur;
}

static int cmp_start(const void *x, const void *y)
{
	const item *a = x, *b = y;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static const gt_model *order_model;

static int cmp_row(const void *x, const void *y)
{
	const gt_kernel_stat *a = x, *b = y;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return strcmp(gt_model_str(order_model, a->name), gt_model_str(order_model, b->name));
}

/* The rounded square root of v (an integer). */
static int64_t root(unsigned __int128 v)
{
	uint64_t r = (uint64_t)sqrtl((long double)v);
	while ((unsigned __int128)r * r > v)
		r--;
	while ((unsigned __int128)(r + 1) * (r + 1) <= v)
		r++;
	/* rounded: r + 1 when v - r^2 > r (v is nearer (r + 1)^2) */
	return (int64_t)(v - (unsigned __int128)r * r > r ? r + 1 : r);
}

/* Population standard deviation of n sorted values, to the nanosecond. */
static int64_t stddev(const item *v, uint64_t n, int64_t mean_floor, bool *overflow)
{
	/* deviations from the floor of the mean keep the squares small */
	unsigned __int128 sq = 0;
	__int128 lin = 0;
	for (uint64_t i = 0; i < n; i++) {
		__int128 d = (__int128)v[i].dur - mean_floor;
		unsigned __int128 d2 = (unsigned __int128)(d < 0 ? -d : d) * (unsigned __int128)(d < 0 ? -d : d);
		if (sq + d2 < sq)
			*overflow = true;
		sq += d2;
		lin += d;
	}
	/* variance = (sq - lin^2 / n) / n = (n sq - lin^2) / n^2 */
	unsigned __int128 l2 = (unsigned __int128)(lin < 0 ? -lin : lin) * (unsigned __int128)(lin < 0 ? -lin : lin);
	long double var = ((long double)sq - (long double)l2 / (long double)n) / (long double)n;
	if (var < 0)
		var = 0;
	if (var < 1.8e19L) /* to the nanosecond: the rounded root of the rounded variance */
		return root((unsigned __int128)(var + 0.5L));
	return (int64_t)(sqrtl(var) + 0.5L);
}

int gt_stats_kernels(const gt_model *m, int by, gt_kernel_stats *out, gt_error *err)
{
	memset(out, 0, sizeof *out);
	uint8_t *dev_cat = calloc(m->strings.count ? m->strings.count : 1, 1);
	if (!dev_cat)
		return gt_fail(err, GT_EINPUT, "out of memory for the kernel statistics");
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *s = &m->spans[i];
		if ((s->kind != GT_SPAN_COMPLETE && s->kind != GT_SPAN_DURATION) ||
		    m->tracks[s->track].kind != GT_TRACK_THREAD)
			continue;
		uint8_t *d = &dev_cat[s->cat];
		if (!*d)
			*d = device_category(gt_model_str(m, s->cat)) ? 2 : 1;
		n += *d == 2;
	}
	item *v = malloc((n ? n : 1) * sizeof *v);
	if (!v) {
		free(dev_cat);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu device spans", (unsigned long long)n);
	}
	n = 0;
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *s = &m->spans[i];
		if ((s->kind != GT_SPAN_COMPLETE && s->kind != GT_SPAN_DURATION) ||
		    m->tracks[s->track].kind != GT_TRACK_THREAD || dev_cat[s->cat] != 2)
			continue;
		uint32_t key = GT_NONE;
		if (by == GT_STATS_BY_STREAM)
			key = s->track;
		else if (by == GT_STATS_BY_RANK)
			key = m->rank_count ? (uint32_t)(gt_model_span_rank(m, i) - m->ranks) : 0;
		v[n++] = (item){key, s->name, s->dur_ns, m->tracks[s->track].process, s->ts_ns};
	}
	free(dev_cat);
	out->device_spans = n;
	/* busy: the union of the intervals per process */
	qsort(v, n, sizeof *v, cmp_start);
	for (uint64_t i = 0; i < n;) {
		uint32_t p = v[i].process;
		int64_t lo = v[i].ts, hi = v[i].ts + v[i].dur;
		for (i++; i <= n; i++) {
			if (i < n && v[i].process == p && v[i].ts <= hi) {
				if (v[i].ts + v[i].dur > hi)
					hi = v[i].ts + v[i].dur;
				continue;
			}
			out->overflow |= __builtin_add_overflow(out->busy_ns, hi - lo, &out->busy_ns);
			if (i == n || v[i].process != p)
				break;
			lo = v[i].ts, hi = v[i].ts + v[i].dur;
		}
	}
	qsort(v, n, sizeof *v, cmp_group);
	uint32_t groups = 0;
	for (uint64_t i = 0; i < n; i++)
		groups += i == 0 || v[i].key != v[i - 1].key || v[i].name != v[i - 1].name;
	out->rows = calloc(groups ? groups : 1, sizeof *out->rows);
	if (!out->rows) {
		free(v);
		return gt_fail(err, GT_EINPUT, "out of memory for %u kernel names", groups);
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		int64_t total = 0;
		while (j < n && v[j].key == v[i].key && v[j].name == v[i].name) {
			out->overflow |= __builtin_add_overflow(total, v[j].dur, &total);
			j++;
		}
		uint64_t c = j - i;
		gt_kernel_stat *r = &out->rows[out->count++];
		r->name = v[i].name, r->key = v[i].key, r->count = c, r->total_ns = total;
		r->mean_ns = (int64_t)(((__int128)total * 2 + (__int128)c) / ((__int128)c * 2)); /* half up */
		r->median_ns = v[i + (c - 1) / 2].dur;
		r->p95_ns = v[i + (95 * c + 99) / 100 - 1].dur;
		r->min_ns = v[i].dur, r->max_ns = v[j - 1].dur;
		r->stddev_ns = stddev(v + i, c, (int64_t)((__int128)total / (__int128)c), &out->overflow);
		i = j;
	}
	free(v);
	order_model = m;
	qsort(out->rows, out->count, sizeof *out->rows, cmp_row);
	return 0;
}

void gt_kernel_stats_free(gt_kernel_stats *s)
{
	free(s->rows);
	memset(s, 0, sizeof *s);
}
