/* The launches report (stats.h): every device span with a launcher, its
 * latency, and the queue of its stream it joins (found per stream over
 * the whole trace, so that a step's first launches see the queue the last
 * step left); then per (window, stream) the distributions. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_order.h"

/* q for the launches of one stream [v, v + n), by launch time: those
 * launched at or before each one's launch, less those left by then (a
 * span leaves its queue when it starts, or at its launch if it started
 * before it). */
static int queue_lengths(gt_launch *v, uint64_t n, int64_t *leave)
{
	for (uint64_t i = 0; i < n; i++)
		leave[i] = v[i].start_ns > v[i].launch_ns ? v[i].start_ns : v[i].launch_ns;
	if (stats_sort_i64(leave, n) < 0)
		return -1;
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
	stats_records rec; /* by (track, launch), ties in span order; then by window */
	int rc = stats_records_init(&rec, v, n, sizeof *v);
	if (rc == 0) {
		stats_records_by_i64(&rec, offsetof(gt_launch, launch_ns));
		stats_records_by_u32(&rec, offsetof(gt_launch, track));
		v = rec.v;
		for (uint64_t i = 0; rc == 0 && i < n;) {
			uint64_t j = i + 1;
			while (j < n && v[j].track == v[i].track)
				j++;
			rc = queue_lengths(v + i, j - i, tmp);
			i = j;
		}
		stats_records_by_u32(&rec, offsetof(gt_launch, window)); /* the scope: GT_NONE sorts last */
		v = stats_records_done(&rec);
	}
	if (rc < 0) {
		gt_big_free(v), gt_big_free(tmp), gt_big_free(q);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu launches", (unsigned long long)n);
	}
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
		if (stats_sort_i64(tmp, j - i) < 0 || stats_sort_u32(q, j - i) < 0) {
			gt_big_free(tmp), gt_big_free(q);
			out->launches = v, out->launch_count = kept;
			return gt_fail(err, GT_EINPUT, "out of memory for %llu launches", (unsigned long long)n);
		}
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
