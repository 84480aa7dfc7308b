/* The idle report (stats.h): per (window, stream) the device spans by
 * start, each gap attributed by the span after it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_order.h"

typedef struct item {
	uint32_t window, track, span;
	int64_t ts, end, launch; /* launch: the launcher's start, INT64_MIN: none */
} item;

int gt_stats_idle(const gt_stats_scope *s, int64_t kernel_wait_ns, gt_idle_stats *out, gt_error *err)
{
	const gt_model *m = s->m;
	memset(out, 0, sizeof *out);
	item *v = gt_big_malloc(s->device_spans ? s->device_spans : 1, sizeof *v);
	if (!v)
		return gt_fail(err, GT_EINPUT, "out of memory for %llu device spans", (unsigned long long)s->device_spans);
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t w = gt_stats_window(s, i);
		if (!gt_stats_is_device(s, i) || w == GT_NONE)
			continue;
		const gt_span *sp = &m->spans[i];
		uint32_t l = s->launcher[i];
		v[n++] = (item){s->steps.count ? w : GT_NONE, sp->track, i, sp->ts_ns, sp->ts_ns + sp->dur_ns,
				l == GT_NONE ? INT64_MIN : m->spans[l].ts_ns};
	}
	static const stats_key by[] = {{offsetof(item, window), false}, {offsetof(item, track), false},
				       {offsetof(item, ts), true}}; /* ties in span order */
	if (stats_sort_records((void **)&v, n, sizeof *v, by, 3) < 0) {
		gt_big_free(v);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu device spans", (unsigned long long)n);
	}
	uint32_t groups = 0;
	for (uint64_t i = 0; i < n; i++)
		groups += i == 0 || v[i].window != v[i - 1].window || v[i].track != v[i - 1].track;
	out->rows = calloc(groups ? groups : 1, sizeof *out->rows);
	if (!out->rows) {
		gt_big_free(v);
		return gt_fail(err, GT_EINPUT, "out of memory for %u streams", groups);
	}
	for (uint64_t i = 0; i < n;) {
		gt_idle_stat *r = &out->rows[out->count++];
		r->window = v[i].window, r->track = v[i].track;
		int64_t end = v[i].end;
		uint64_t j = i;
		for (; j < n && v[j].window == r->window && v[j].track == r->track; j++) {
			r->spans++;
			if (j > i && v[j].ts > end) {
				int64_t gap = v[j].ts - end;
				int kind = v[j].launch > end ? GT_IDLE_HOST_WAIT
					   : gap < kernel_wait_ns ? GT_IDLE_KERNEL_WAIT
								 : GT_IDLE_OTHER;
				r->gaps++;
				out->overflow |= __builtin_add_overflow(r->idle_ns, gap, &r->idle_ns);
				out->overflow |= __builtin_add_overflow(r->kind_ns[kind], gap, &r->kind_ns[kind]);
			}
			end = v[j].end > end ? v[j].end : end;
		}
		i = j;
	}
	gt_big_free(v);
	return 0;
}

void gt_idle_stats_free(gt_idle_stats *i)
{
	free(i->rows);
	memset(i, 0, sizeof *i);
}
