/* The ops and runtime reports (stats.h): the host spans of the report's
 * categories, each with its self time (less its nesting children) and the
 * GPU time it launched (its own and its nested spans' launches), then per
 * (window, name) the distribution of the inclusive durations. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stats.h"
#include "stats_order.h"

const char *const gt_runtime_kind_names[GT_RUNTIME_KIND_COUNT] = {"launch", "sync", "memory", "alloc", "other"};

enum gt_runtime_kind gt_runtime_kind_of(const char *name)
{
	static const struct {
		const char *word;
		enum gt_runtime_kind kind;
	} words[] = {
		{"launch", GT_RUNTIME_LAUNCH},      {"synchronize", GT_RUNTIME_SYNC}, {"waitevent", GT_RUNTIME_SYNC},
		{"query", GT_RUNTIME_SYNC},         {"memcpy", GT_RUNTIME_MEMORY},    {"memset", GT_RUNTIME_MEMORY},
		{"prefetch", GT_RUNTIME_MEMORY},    {"malloc", GT_RUNTIME_ALLOC},     {"free", GT_RUNTIME_ALLOC},
		{"alloc", GT_RUNTIME_ALLOC},        {"mempool", GT_RUNTIME_ALLOC},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasestr(name, words[i].word))
			return words[i].kind;
	return GT_RUNTIME_OTHER;
}

static bool category_of(int which, const char *cat)
{
	if (which == GT_STATS_OPS)
		return !strcasecmp(cat, "cpu_op") || !strcasecmp(cat, "operator");
	return strcasestr(cat, "runtime") || strcasestr(cat, "driver");
}

typedef struct item {
	uint32_t window, name;
	int64_t dur, self, gpu;
	uint64_t launched;
} item;

static int cmp_row(const void *x, const void *y, void *model)
{
	const gt_model *m = model;
	const gt_call_stat *a = x, *b = y;
	if (a->window != b->window)
		return a->window < b->window ? -1 : 1;
	if (a->d.total_ns != b->d.total_ns)
		return a->d.total_ns > b->d.total_ns ? -1 : 1;
	return strcmp(gt_model_str(m, a->name), gt_model_str(m, b->name));
}

/* The report's spans: item index per span (GT_NONE: not one), and with v
 * the items, but for self and gpu; the count either way. cat: per
 * category string, 0 not yet known, 1 not the report's, 2 the report's. */
static uint64_t gather(const gt_stats_scope *s, int which, uint8_t *cat, uint32_t *of, item *v)
{
	const gt_model *m = s->m;
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *sp = &m->spans[i];
		uint32_t w = gt_stats_window(s, i);
		if (of)
			of[i] = GT_NONE;
		if ((sp->kind != GT_SPAN_COMPLETE && sp->kind != GT_SPAN_DURATION) ||
		    m->tracks[sp->track].kind != GT_TRACK_THREAD || gt_stats_is_device(s, i) || w == GT_NONE)
			continue;
		if (!cat[sp->cat])
			cat[sp->cat] = 1 + category_of(which, gt_model_str(m, sp->cat));
		if (cat[sp->cat] != 2)
			continue;
		if (v) {
			of[i] = (uint32_t)n;
			v[n] = (item){s->steps.count ? w : GT_NONE, sp->name, sp->dur_ns, sp->dur_ns, 0, 0};
		}
		n++;
	}
	return n;
}

int gt_stats_calls(const gt_stats_scope *s, int which, gt_call_stats *out, gt_error *err)
{
	const gt_model *m = s->m;
	memset(out, 0, sizeof *out);
	uint8_t *cat = calloc(m->strings.count ? m->strings.count : 1, 1);
	if (!cat)
		return gt_fail(err, GT_EINPUT, "out of memory for the calls of %u spans", m->span_count);
	uint64_t n = gather(s, which, cat, NULL, NULL);
	uint32_t *of = gt_big_malloc(m->span_count ? m->span_count : 1, sizeof *of);
	item *v = gt_big_malloc(n ? n : 1, sizeof *v);
	if (!of || !v) {
		free(cat), gt_big_free(of), gt_big_free(v);
		return gt_fail(err, GT_EINPUT, "out of memory for the calls of %u spans", m->span_count);
	}
	gather(s, which, cat, of, v);
	free(cat);
	/* self: less each nesting child's duration (a flow's child is not nested) */
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *sp = &m->spans[i];
		if (sp->parent != GT_NONE && !(sp->flags & GT_SPANF_FLOW_PARENT) && of[sp->parent] != GT_NONE &&
		    m->spans[sp->parent].track == sp->track)
			v[of[sp->parent]].self -= sp->dur_ns;
	}
	/* gpu: each launched device span to its launcher and the spans it nests in */
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t x = s->launcher[i];
		while (x != GT_NONE) {
			if (of[x] != GT_NONE) {
				item *it = &v[of[x]];
				out->overflow |= __builtin_add_overflow(it->gpu, m->spans[i].dur_ns, &it->gpu);
				it->launched++;
			}
			const gt_span *sx = &m->spans[x];
			x = sx->flags & GT_SPANF_FLOW_PARENT ? GT_NONE : sx->parent;
		}
	}
	gt_big_free(of);
	out->calls = n;
	static const stats_key by[] = {{offsetof(item, window), false}, {offsetof(item, name), false},
				       {offsetof(item, dur), true}};
	if (stats_sort_records((void **)&v, n, sizeof *v, by, 3) < 0) {
		gt_big_free(v);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu calls", (unsigned long long)n);
	}
	uint32_t groups = 0;
	for (uint64_t i = 0; i < n; i++)
		groups += i == 0 || v[i].window != v[i - 1].window || v[i].name != v[i - 1].name;
	out->rows = calloc(groups ? groups : 1, sizeof *out->rows);
	if (!out->rows) {
		gt_big_free(v);
		return gt_fail(err, GT_EINPUT, "out of memory for %u call names", groups);
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i + 1;
		while (j < n && v[j].window == v[i].window && v[j].name == v[i].name)
			j++;
		gt_call_stat *r = &out->rows[out->count++];
		r->window = v[i].window, r->name = v[i].name;
		gt_stats_dist_of(&v[i].dur, sizeof *v, j - i, &r->d, &out->overflow);
		for (uint64_t k = i; k < j; k++) {
			out->overflow |= __builtin_add_overflow(r->self_ns, v[k].self, &r->self_ns);
			out->overflow |= __builtin_add_overflow(r->gpu_ns, v[k].gpu, &r->gpu_ns);
			r->launched += v[k].launched;
		}
		i = j;
	}
	gt_big_free(v);
	qsort_r(out->rows, out->count, sizeof *out->rows, cmp_row, (void *)m);
	return 0;
}

void gt_call_stats_free(gt_call_stats *c)
{
	free(c->rows);
	memset(c, 0, sizeof *c);
}
