/* The launches report (stats.h): every device span with a launcher, its
 * latency, and the queue of its stream it joins (found per stream over
 * the whole trace, so that a step's first launches see the queue the last
 * step left); then per (window, stream) the distributions. */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_stream(const void *x, const void *y)
{
	const gt_launch *a = x, *b = y;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->launch_ns != b->launch_ns)
		return a->launch_ns < b->launch_ns ? -1 : 1;
	return a->span < b->span ? -1 : a->span > b->span;
}

static int cmp_window(const void *x, const void *y)
{
	const gt_launch *a = x, *b = y;
	if (a->window != b->window)
		return a->window < b->window ? -1 : 1;
	return cmp_stream(x, y);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* q for the launches of one stream [v, v + n), by launch time: those
 * launched at or before each one's launch, less those left by then (a
 * span leaves its queue when it starts, or at its launch if it started
 * before it). */
static int queue_lengths(gt_launch *v, uint64_t n, int64_t *leave)
{
	for (uint64_t i = 0; i < n; i++)
		leave[i] = v[i].start_ns > v[i].launch_ns ? v[i].start_ns : v[i].launch_ns;
	qsort(leave, n, sizeof *leave, cmp_i64);
	uint64_t left = 0;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i + 1; /* launches at the same time join the same queue */
		while (j < n && v[j].launch_ns == v[i].launch_ns)
			j++;
		while (left < n && leave[left] <= v[i].launch_ns)
			left++;
		for (uint64_t k = i; k < j; k++)
			v[k].queue = (uint32_t)(j - left);
		i = j;
	}
	return 0;
}

int gt_stats_launches(const gt_stats_scope *s, gt_launch_stats *out, gt_error *err)
{
	const gt_model *m = s->m;
	memset(out, 0, sizeof *out);
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->span_count; i++)
		n += s->launcher[i] != GT_NONE;
	gt_launch *v = gt_big_malloc(n ? n : 1, sizeof *v);
	int64_t *tmp = gt_big_malloc(n ? n : 1, sizeof *tmp);
	uint32_t *q = gt_big_malloc(n ? n : 1, sizeof *q);
	if (!v || !tmp || !q) {
		gt_big_free(v), gt_big_free(tmp), gt_big_free(q);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu launches", (unsigned long long)n);
	}
	n = 0;
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t l = s->launcher[i];
		if (l == GT_NONE)
			continue;
		const gt_span *d = &m->spans[i];
		uint32_t w = gt_stats_window(s, i);
		v[n++] = (gt_launch){s->steps.count ? w : 0, d->track, i, l, m->spans[l].ts_ns, d->ts_ns,
				     d->ts_ns - m->spans[l].ts_ns, 0};
	}
	qsort(v, n, sizeof *v, cmp_stream);
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i + 1;
		while (j < n && v[j].track == v[i].track)
			j++;
		queue_lengths(v + i, j - i, tmp);
		i = j;
	}
	/* the scope: spans in a window (GT_NONE sorts last) */
	qsort(v, n, sizeof *v, cmp_window);
	uint64_t kept = 0;
	while (kept < n && (!s->steps.count || v[kept].window != GT_NONE))
		kept++;
	if (!s->steps.count)
		for (uint64_t i = 0; i < kept; i++)
			v[i].window = GT_NONE;
	uint32_t groups = 0;
	for (uint64_t i = 0; i < kept; i++)
		groups += i == 0 || v[i].window != v[i - 1].window || v[i].track != v[i - 1].track;
	out->rows = calloc(groups ? groups : 1, sizeof *out->rows);
	if (!out->rows) {
		gt_big_free(v), gt_big_free(tmp), gt_big_free(q);
		return gt_fail(err, GT_EINPUT, "out of memory for %u streams", groups);
	}
	for (uint64_t i = 0; i < kept;) {
		uint64_t j = i + 1;
		while (j < kept && v[j].window == v[i].window && v[j].track == v[i].track)
			j++;
		for (uint64_t k = i; k < j; k++)
			tmp[k - i] = v[k].latency_ns, q[k - i] = v[k].queue;
		qsort(tmp, j - i, sizeof *tmp, cmp_i64);
		qsort(q, j - i, sizeof *q, cmp_u32);
		gt_launch_stat *r = &out->rows[out->count++];
		r->window = v[i].window, r->track = v[i].track;
		gt_stats_dist_of(tmp, sizeof *tmp, j - i, &r->latency, &out->overflow);
		uint64_t c = j - i;
		r->queue_median = q[(c - 1) / 2], r->queue_p95 = q[(95 * c + 99) / 100 - 1], r->queue_max = q[c - 1];
		i = j;
	}
	gt_big_free(tmp), gt_big_free(q);
	out->launches = v;
	out->launch_count = kept;
	return 0;
}

void gt_launch_stats_free(gt_launch_stats *l)
{
	gt_big_free(l->launches);
	free(l->rows);
	memset(l, 0, sizeof *l);
}
