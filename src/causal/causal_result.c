/* From the graph steps' output to what a reader wants: the path as hops
 * (work, idle, flow, queue, wait), its breakdown by (kind, key), and per
 * span rows with float, path work and wait attribution. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

static gt_causal_point point_of(const causal_graph *g, uint32_t p)
{
	uint32_t l = g->point_span[p];
	char which = p == g->first_point[l] ? 'B' : p == causal_graph_e(g, l) ? 'E' : 'D';
	return (gt_causal_point){p, g->span[l], which, g->time[p]};
}

static uint32_t track_of_point(const causal_trace *t, const causal_graph *g, uint32_t p)
{
	return causal_span_track(t, g->span[g->point_span[p]]);
}

/* A flow hop whose target queued behind a span of another window on its
 * device track (the stream was busy past the launch) splits at that
 * span's end: the queue hop, then the flow hop. Returns the hops added. */
static uint32_t flow_hops(const causal_trace *t, const causal_graph *g, uint32_t u, uint32_t v, uint32_t flow,
			  gt_causal_hop *h)
{
	const gt_model *m = t->m;
	const gt_flow *f = &m->flows[flow];
	uint32_t track = causal_span_track(t, f->dst);
	h[0] = (gt_causal_hop){point_of(g, u), point_of(g, v), GT_CAUSAL_FLOW, f->src, track, flow,
			       g->time[v] - g->time[u], 0, 0};
	uint32_t prev = causal_queued_behind(t, flow);
	if (prev == GT_NONE)
		return 1;
	int64_t end = causal_end(&m->spans[prev]);
	if (end <= g->time[u])
		return 1;
	if (end > g->time[v])
		end = g->time[v];
	gt_causal_point split = {GT_NONE, prev, 'E', end};
	h[1] = h[0];
	h[0] = (gt_causal_hop){point_of(g, u), split, GT_CAUSAL_QUEUE, prev, track, GT_NONE, end - g->time[u], 0, 0};
	h[1].from = split;
	h[1].duration_ns = g->time[v] - end;
	return 2;
}

/* The path's points, root first (n + 1: n hops before any split), from
 * the endpoint up its parents (at most `points`, the window's); NULL out
 * of memory. One walk up, then the list turned round: a whole trace's
 * path is millions of points, each a read the cache missed. Room for
 * every point is asked for; the pages past the path are never touched. */
static uint32_t *path_points(const causal_steps *s, uint32_t points, uint32_t *n_out)
{
	uint32_t *path = alloc(points, sizeof *path);
	if (!path)
		return NULL;
	uint32_t n = 0; /* the endpoint's row is valid, its way up ends at a root */
	path[0] = s->sum.endpoint;
	for (uint32_t v = path[0]; s->bind.parent[v] != GT_CP_ROOT && n + 1 < points;) {
		v = s->bind.parent[v] - s->point_base;
		path[++n] = v;
	}
	for (uint32_t i = 0, j = n; i < j; i++, j--) {
		uint32_t x = path[i];
		path[i] = path[j];
		path[j] = x;
	}
	*n_out = n;
	return path;
}

/* The hops from path[from] to path[to] into h (a flow hop may split in
 * two: room for 2 (to - from)); returns how many. */
static uint32_t hops_between(const causal_trace *t, const causal_graph *g, const causal_steps *s,
			     const uint32_t *path, uint32_t from, uint32_t to, gt_causal_hop *hops)
{
	uint32_t k = 0;
	for (uint32_t i = from; i < to; i++) {
		uint32_t u = path[i], v = path[i + 1];
		gt_causal_hop *h = &hops[k];
		switch (s->bind.kind[v]) {
		case GT_CPM_EDGE_FLOW:
			k += flow_hops(t, g, u, v, g->edge_ref[s->bind.edge[v] - s->edge_base], h);
			continue;
		case GT_CPM_EDGE_WAIT: {
			uint32_t edge = s->bind.edge[v] - s->edge_base, w = g->edge_ref[edge];
			uint8_t kind = edge >= g->first_handoff       ? GT_CAUSAL_HANDOFF
				       : edge >= g->first_stream_wait ? GT_CAUSAL_STREAM_WAIT
								      : GT_CAUSAL_WAIT;
			*h = (gt_causal_hop){point_of(g, u), point_of(g, v), kind, w, causal_span_track(t, w), GT_NONE,
					     g->time[v] - g->time[u], 0, 0};
			if (kind == GT_CAUSAL_STREAM_WAIT)
				h->wait_source = edge >= g->first_inferred ? GT_CAUSAL_SW_INFERRED : GT_CAUSAL_SW_RECORDED;
			break;
		}
		default: {
			uint32_t owner = g->owner_in[v];
			*h = (gt_causal_hop){point_of(g, u), point_of(g, v),
					     owner == GT_NONE ? GT_CAUSAL_IDLE : GT_CAUSAL_WORK,
					     owner == GT_NONE ? GT_NONE : g->span[owner], track_of_point(t, g, v), GT_NONE,
					     g->time[v] - g->time[u], 0, 0};
		}
		}
		k++;
	}
	return k;
}

static uint32_t share_key(const causal_trace *tr, const gt_causal_options *opt, const gt_causal_hop *h)
{
	switch (h->kind) {
	case GT_CAUSAL_WORK:
		return opt->by == GT_CAUSAL_BY_NAME ? causal_span_name(tr, h->owner) : causal_span_cat(tr, h->owner);
	case GT_CAUSAL_FLOW:
		return tr->m->flows[h->flow].cat;
	case GT_CAUSAL_QUEUE:
		return h->track;
	case GT_CAUSAL_STREAM_WAIT:
		return h->wait_source;
	default:
		return GT_NONE;
	}
}

static int cmp_share(const void *x, const void *y)
{
	const gt_causal_share *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->critical_ns != b->critical_ns)
		return a->critical_ns > b->critical_ns ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Sums the hops by (kind, key); shares of no time are left out. Runs of
 * hops with one key (a span's nested work) are summed as they come, the
 * runs in an open-addressing table that grows with the distinct keys:
 * those are few (categories or names, tracks), the hops many, and sums do
 * not depend on the order. */
#define NO_KEY UINT64_MAX /* kinds are below 2^8: no (kind, key) is this */

typedef struct share_table {
	uint64_t *key;
	int64_t *sum;
	uint32_t bits, count;
} share_table;

static bool table_init(share_table *t, uint32_t bits)
{
	size_t cap = (size_t)1 << bits;
	t->key = alloc(cap, sizeof *t->key);
	t->sum = alloc(cap, sizeof *t->sum);
	t->bits = bits;
	t->count = 0;
	for (size_t i = 0; t->key && i < cap; i++)
		t->key[i] = NO_KEY;
	return t->key && t->sum;
}

static void table_free(share_table *t)
{
	gt_big_free(t->key);
	gt_big_free(t->sum);
}

static void table_add(share_table *t, uint64_t k, int64_t d)
{
	size_t mask = ((size_t)1 << t->bits) - 1, h = (size_t)((k * 0x9e3779b97f4a7c15ull) >> (64 - t->bits));
	while (t->key[h] != NO_KEY && t->key[h] != k)
		h = (h + 1) & mask;
	if (t->key[h] == NO_KEY) {
		t->key[h] = k;
		t->sum[h] = 0;
		t->count++;
	}
	t->sum[h] += d;
}

/* Half full: twice the slots. */
static bool table_grow(share_table *t)
{
	share_table bigger;
	if (!table_init(&bigger, t->bits + 1))
		return table_free(&bigger), false;
	for (size_t h = 0; h < (size_t)1 << t->bits; h++)
		if (t->key[h] != NO_KEY)
			table_add(&bigger, t->key[h], t->sum[h]);
	table_free(t);
	*t = bigger;
	return true;
}

/* Adds n hops to the sums by (kind, key); false out of memory. */
static bool sums_add(share_table *t, const causal_trace *tr, const gt_causal_options *opt, const gt_causal_hop *hops,
		     uint32_t n)
{
	uint64_t run = NO_KEY;
	int64_t run_sum = 0;
	for (uint32_t i = 0; i <= n; i++) {
		uint64_t k = i < n ? (uint64_t)hops[i].kind << 32 | share_key(tr, opt, &hops[i]) : NO_KEY;
		if (k == run && i < n) {
			run_sum += hops[i].duration_ns;
			continue;
		}
		if (run != NO_KEY) {
			table_add(t, run, run_sum);
			if (2 * t->count > (1u << t->bits) && !table_grow(t))
				return false;
		}
		run = k;
		run_sum = i < n ? hops[i].duration_ns : 0;
	}
	return true;
}

/* The window's breakdown from the sums (ok: none was lost); frees them. */
static int sums_finish(share_table *t, bool ok, gt_causal_window *win, gt_error *err)
{
	win->breakdown = ok ? alloc(t->count, sizeof *win->breakdown) : NULL;
	uint32_t k = 0;
	for (size_t h = 0; win->breakdown && h < (size_t)1 << t->bits; h++)
		if (t->key[h] != NO_KEY && t->sum[h] > 0)
			win->breakdown[k++] = (gt_causal_share){(uint8_t)(t->key[h] >> 32), (uint32_t)t->key[h], t->sum[h]};
	table_free(t);
	if (!win->breakdown)
		return gt_fail(err, GT_EINPUT, "out of memory for the breakdown of %u hops", win->hop_count);
	win->breakdown_count = k;
	if (k)
		qsort(win->breakdown, k, sizeof *win->breakdown, cmp_share);
	return 0;
}

/* Path positions at a time where the hops are not kept: a buffer's worth. */
#define HOPS_AT_ONCE 16384

/* A range of path positions [from, to): its hops (into out, room for two
 * a position, or a buffer of HOPS_AT_ONCE positions reused), their classes
 * and sums. */
typedef struct path_part {
	const causal_trace *t;
	const causal_graph *g;
	const causal_steps *s;
	const gt_causal_options *opt;
	const uint32_t *path;
	uint32_t from, to;
	gt_causal_hop *out; /* NULL: streamed through a buffer of its own */
	uint32_t hops;
	int64_t class_ns[GT_CAUSAL_CLASS_COUNT];
	share_table sums;
	bool ok, no_buffer;
} path_part;

static void *path_part_run(void *arg)
{
	path_part *p = arg;
	memset(p->class_ns, 0, sizeof p->class_ns);
	p->hops = 0;
	p->ok = table_init(&p->sums, 6);
	uint32_t at_once = p->out || p->to - p->from < HOPS_AT_ONCE ? p->to - p->from : HOPS_AT_ONCE;
	gt_causal_hop *buf = p->out ? p->out : alloc(2 * (size_t)at_once, sizeof *buf);
	if (!buf)
		p->ok = false, p->no_buffer = true;
	for (uint32_t from = p->from; from < p->to && p->ok; from += at_once) {
		uint32_t to = p->to - from > at_once ? from + at_once : p->to;
		gt_causal_hop *h = p->out ? p->out + p->hops : buf;
		uint32_t k = hops_between(p->t, p->g, p->s, p->path, from, to, h);
		causal_hop_classes(p->t, h, k, p->class_ns);
		p->ok = sums_add(&p->sums, p->t, p->opt, h, k);
		p->hops += k;
	}
	if (!p->out)
		gt_big_free(buf);
	return NULL;
}

/* The path's hops, their breakdown and their classes; a long path in
 * ranges on threads, the ranges' hops joined in order and their sums
 * added (sums do not depend on the order). Where the caller wants their
 * count alone and no rows read them, the hops go through buffers of
 * HOPS_AT_ONCE positions and are not kept: a whole trace's path has as
 * many hops as the trace has spans. */
static int make_path(const causal_trace *t, const causal_graph *g, const causal_steps *s,
		     const gt_causal_options *opt, unsigned threads, gt_causal_window *win, gt_error *err)
{
	memset(win->class_ns, 0, sizeof win->class_ns);
	if (s->sum.endpoint == GT_CP_NONE) { /* every point in or behind a zero-gap cycle */
		win->root = win->endpoint = (gt_causal_point){GT_NONE, GT_NONE, 0, 0};
		share_table t0;
		return sums_finish(&t0, table_init(&t0, 6), win, err);
	}
	uint32_t n = 0;
	uint32_t *path = path_points(s, g->n, &n);
	bool streamed = opt->hop_count_only && !opt->rows;
	gt_causal_hop *buf = path && !streamed ? alloc(2 * (size_t)n, sizeof *buf) : NULL;
	share_table sums;
	bool ok = table_init(&sums, 6);
	if (!path || (!streamed && !buf)) {
		gt_big_free(path), gt_big_free(buf), table_free(&sums);
		return gt_fail(err, GT_EINPUT, "out of memory for a path of %u hops", n);
	}
	win->root = point_of(g, path[0]);
	win->endpoint = point_of(g, path[n]);
	unsigned k = causal_range_jobs(n, threads);
	path_part parts[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++) {
		uint32_t from = (uint32_t)((uint64_t)n * j / k), to = (uint32_t)((uint64_t)n * (j + 1) / k);
		parts[j] = (path_part){.t = t, .g = g, .s = s, .opt = opt, .path = path, .from = from, .to = to,
				       .out = buf ? buf + 2 * (size_t)from : NULL};
	}
	gt_run_jobs(path_part_run, parts, sizeof *parts, k);
	win->hop_count = 0;
	for (unsigned j = 0; j < k; j++) {
		path_part *p = &parts[j];
		ok &= p->ok;
		if (buf && p->hops) /* in order, down into the room the ranges before left */
			memmove(buf + win->hop_count, p->out, (size_t)p->hops * sizeof *buf);
		win->hop_count += p->hops;
		for (int c = 0; c < GT_CAUSAL_CLASS_COUNT; c++)
			win->class_ns[c] += p->class_ns[c];
		for (size_t h = 0; ok && p->sums.key && h < (size_t)1 << p->sums.bits; h++)
			if (p->sums.key[h] != NO_KEY) {
				table_add(&sums, p->sums.key[h], p->sums.sum[h]);
				ok = 2 * sums.count <= (1u << sums.bits) || table_grow(&sums);
			}
		table_free(&p->sums);
	}
	gt_big_free(path);
	bool no_buffer = false;
	for (unsigned j = 0; j < k; j++)
		no_buffer |= parts[j].no_buffer;
	if (no_buffer) {
		table_free(&sums);
		return gt_fail(err, GT_EINPUT, "out of memory for a path of %u hops", n);
	}
	if (buf) { /* kept: room was made for every flow hop to split, few do */
		gt_causal_hop *fit = win->hop_count && win->hop_count < 2 * n ? realloc(buf, (size_t)win->hop_count * sizeof *fit) : NULL;
		win->hops = fit ? fit : buf;
	}
	return sums_finish(&sums, ok, win, err);
}

/* A point bound by a flow or wait edge waited from its chain predecessor's
 * time to its source's; its span waited, the source's span caused it. */
static void attribute_waits(const causal_graph *g, const causal_steps *s, gt_causal_row *rows)
{
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t pos = g->chain_start[k] + 1; pos < g->chain_start[k + 1]; pos++) {
			uint32_t v = g->chain[pos];
			uint8_t kind = s->bind.kind[v];
			if (kind != GT_CPM_EDGE_FLOW && kind != GT_CPM_EDGE_WAIT)
				continue;
			uint32_t u = s->bind.parent[v] - s->point_base;
			int64_t waited = g->time[u] - g->time[g->chain[pos - 1]];
			if (waited <= 0)
				continue;
			rows[g->point_span[v]].waited_ns += waited;
			rows[g->point_span[u]].caused_wait_ns += waited;
		}
}

static int make_rows(const causal_trace *t, const causal_graph *g, const causal_steps *s, gt_causal_window *win,
		     gt_error *err)
{
	win->rows = alloc(g->nspans, sizeof *win->rows);
	if (!win->rows)
		return gt_fail(err, GT_EINPUT, "out of memory for %u rows", g->nspans);
	win->row_count = g->nspans;
	for (uint32_t l = 0; l < g->nspans; l++) {
		uint32_t e = causal_graph_e(g, l);
		win->rows[l] = (gt_causal_row){.span = g->span[l], .float_ns = s->lt[e] - g->time[e]};
	}
	if (win->root.point != GT_NONE) /* a path (causal_result_path ran) */
		win->rows[g->point_span[win->root.point]].on_path = true;
	for (uint32_t i = 0; i < win->hop_count; i++) {
		const gt_causal_hop *h = &win->hops[i];
		if (h->to.point != GT_NONE)
			win->rows[g->point_span[h->to.point]].on_path = true;
		if (h->kind == GT_CAUSAL_WORK)
			win->rows[causal_local_of(t, g, h->owner)].critical_ns += h->duration_ns;
	}
	attribute_waits(g, s, win->rows);
	return 0;
}

int causal_result_path(const causal_trace *t, const causal_graph *g, const causal_steps *s,
		       const gt_causal_options *opt, unsigned threads, gt_causal_window *win, gt_error *err)
{
	if (s->sum.flags & GT_CP_CYCLE)
		win->flags |= GT_CAUSAL_CYCLE;
	if (s->sum.flags & GT_CP_OVERFLOW)
		win->flags |= GT_CAUSAL_OVERFLOW;
	win->path_duration_ns = s->sum.endpoint == GT_CP_NONE ? 0 : s->sum.max_path_duration;
	if (make_path(t, g, s, opt, threads, win, err) < 0)
		return -1;
	/* the wall explained whole: before the root, the path, after the endpoint */
	win->before_root_ns = win->after_endpoint_ns = 0;
	if (s->sum.endpoint != GT_CP_NONE) {
		win->before_root_ns = win->root.ts_ns - g->first_time;
		win->after_endpoint_ns = g->last_time - win->endpoint.ts_ns;
	}
	return 0;
}

int causal_result_rows(const causal_trace *t, const causal_graph *g, const causal_steps *s,
		       gt_causal_window *win, gt_error *err)
{
	return make_rows(t, g, s, win, err);
}

void causal_result_undo(gt_causal_window *win)
{
	gt_big_free(win->hops);
	gt_big_free(win->breakdown);
	gt_big_free(win->rows);
	win->hops = NULL, win->hop_count = 0;
	win->breakdown = NULL, win->breakdown_count = 0;
	win->rows = NULL, win->row_count = 0;
}
