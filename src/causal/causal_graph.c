/* One window's dependency graph (the rules are in causal.h): which flows
 * and waits become edges, which tracks stay, the points with their dense
 * ids; causal_chain.c adds each track's chain with the owners of its gaps. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"
#include "causal_times.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

void causal_graph_free(causal_graph *g)
{
	gt_big_free(g->span);
	gt_big_free(g->local_slot);
	gt_big_free(g->first_point);
	gt_big_free(g->time);
	gt_big_free(g->point_span);
	gt_big_free(g->track);
	gt_big_free(g->chain);
	gt_big_free(g->chain_start);
	gt_big_free(g->work);
	gt_big_free(g->owner_in);
	gt_big_free(g->edge_src);
	gt_big_free(g->edge_dst);
	gt_big_free(g->edge_kind);
	gt_big_free(g->edge_ref);
	memset(g, 0, sizeof *g);
}

/* The flows and waits of a window that become edges. */
typedef struct window_edges {
	uint32_t *flows; /* flows kept and not backward: flow edges */
	uint32_t *flow_src, *flow_dst; /* their spans (global): the flow table is not read after */
	uint32_t nflows;
	uint32_t *wait_k, *wait_w; /* wait edges E(k) -> E(W), global spans */
	uint32_t nwaits;
	uint32_t *coll_j, *coll_r; /* collective edges B(j) -> E(r), global spans */
	uint32_t ncoll;
	uint32_t *sw_k, *sw_d; /* inferred stream waits E(k) -> B(d), global spans */
	uint32_t nsw;
	uint32_t *rsw_k, *rsw_d; /* recorded stream waits E(k) -> B(d), global spans */
	uint32_t nrsw;
	uint32_t nsyncs; /* of the wait edges, those from Event Sync markers */
} window_edges;

/* The edges' arrays (their counts stay, for the window's counters). */
static void window_edges_free(window_edges *e)
{
	gt_big_free(e->flows);
	gt_big_free(e->flow_src);
	gt_big_free(e->flow_dst);
	gt_big_free(e->wait_k);
	gt_big_free(e->wait_w);
	gt_big_free(e->coll_j);
	gt_big_free(e->coll_r);
	gt_big_free(e->sw_k);
	gt_big_free(e->sw_d);
	gt_big_free(e->rsw_k);
	gt_big_free(e->rsw_d);
	e->flows = e->flow_src = e->flow_dst = e->wait_k = e->wait_w = NULL;
	e->coll_j = e->coll_r = e->sw_k = e->sw_d = e->rsw_k = e->rsw_d = NULL;
}

/* The window's recorded waits whose spans both take part in it: stream
 * waits to rsw_*, event syncs appended to the wait edges. */
static int find_recorded(const causal_trace *t, uint32_t w, gt_causal_window *win, window_edges *e, gt_error *err)
{
	if (!t->rec_first)
		return 0;
	uint32_t lo = t->rec_first[w], hi = t->rec_first[w + 1];
	e->rsw_k = alloc(hi - lo, sizeof *e->rsw_k);
	e->rsw_d = alloc(hi - lo, sizeof *e->rsw_d);
	if (!e->rsw_k || !e->rsw_d)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u recorded waits", hi - lo);
	const gt_model *m = t->m;
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t k = t->rec_src[i], d = t->rec_dst[i];
		if (!causal_takes_part(t, k) || !causal_takes_part(t, d) || t->window_of[k] != w)
			continue;
		int64_t at = t->rec_kind[i] ? causal_end(&m->spans[d]) : m->spans[d].ts_ns;
		if (causal_end(&m->spans[k]) > at) {
			win->backward_edges++;
			continue;
		}
		if (t->rec_kind[i]) {
			e->wait_k[e->nwaits] = k;
			e->wait_w[e->nwaits++] = d;
			e->nsyncs++;
		} else {
			e->rsw_k[e->nrsw] = k;
			e->rsw_d[e->nrsw++] = d;
		}
	}
	return 0;
}

/* The window's collective edges whose kernels both take part in it. */
static int find_collective_edges(const causal_trace *t, uint32_t w, gt_causal_window *win, window_edges *e,
				 gt_error *err)
{
	if (!t->coll_first)
		return 0;
	uint64_t lo = t->coll_first[w], hi = t->coll_first[w + 1];
	if (hi - lo > UINT32_MAX / 2)
		return gt_fail(err, GT_EINPUT, "a window holds more than 2^31 collective edges");
	e->coll_j = alloc(hi - lo, sizeof *e->coll_j);
	e->coll_r = alloc(hi - lo, sizeof *e->coll_r);
	if (!e->coll_j || !e->coll_r)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %llu collective edges",
			       (unsigned long long)(hi - lo));
	const gt_model *m = t->m;
	for (uint64_t i = lo; i < hi; i++) {
		uint32_t j = t->coll_src[i], r = t->coll_dst[i];
		if (!causal_takes_part(t, j) || !causal_takes_part(t, r) || t->window_of[j] != w)
			continue;
		if (m->spans[j].ts_ns > causal_end(&m->spans[r])) {
			win->backward_edges++;
			continue;
		}
		e->coll_j[e->ncoll] = j;
		e->coll_r[e->ncoll++] = r;
	}
	return 0;
}

/* The window's flows judged in ranges (one large window on threads):
 * each range keeps its flow edges and wait candidates at the start of its
 * own slice of flows[] and cand[], moved together after, in order. */
typedef struct flow_range {
	GT_JOB_ALIGNED const causal_trace *t;
	uint32_t w;
	const uint32_t *fl;
	uint32_t *flows, *src, *dst, *cand;
	uint32_t a, b;
	uint32_t nflows, ncand, backward;
	uint32_t left_out[GT_CAUSAL_LEFT_OUT_COUNT];
} flow_range;

static void *judge_flows(void *arg)
{
	flow_range *r = arg;
	const causal_trace *t = r->t;
	const gt_model *m = t->m;
	uint32_t *flows = r->flows + r->a, *src = r->src + r->a, *dst = r->dst + r->a, *cand = r->cand + r->a;
	for (uint32_t i = r->a; i < r->b; i++) {
		uint32_t id = r->fl[i];
		const gt_flow *f = &m->flows[id];
		if (f->src != GT_NONE && f->src == f->dst)
			r->left_out[GT_CAUSAL_FLOW_SELF]++;
		else if (!causal_takes_part(t, f->src) || !causal_takes_part(t, f->dst))
			r->left_out[GT_CAUSAL_FLOW_NOT_TAKING_PART]++;
		else if (t->window_of[f->src] != r->w || t->window_of[f->dst] != r->w)
			r->left_out[GT_CAUSAL_FLOW_OTHER_WINDOW]++;
		else {
			/* a launch still tells a wait what it waits for, even when
			 * clocks put the kernel before its launch */
			if (t->span_class[f->dst] & CAUSAL_DEVICE)
				cand[r->ncand++] = id;
			if (t->departure[id] > m->spans[f->dst].ts_ns) {
				r->backward++;
			} else {
				src[r->nflows] = f->src, dst[r->nflows] = f->dst;
				flows[r->nflows++] = id;
			}
		}
	}
	return NULL;
}

/* The flow edges into e->flows and the wait candidates into cand (both of
 * nf entries), in flow order. */
static void judge_window_flows(const causal_trace *t, uint32_t w, unsigned threads, gt_causal_window *win,
			       window_edges *e, uint32_t *cand, uint32_t *nc)
{
	const uint32_t *fl = t->flows_by_window + t->flow_first[w], nf = t->flow_first[w + 1] - t->flow_first[w];
	unsigned k = causal_range_jobs(nf, threads);
	flow_range r[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		r[j] = (flow_range){.t = t, .w = w, .fl = fl, .flows = e->flows, .src = e->flow_src, .dst = e->flow_dst, .cand = cand,
				    .a = (uint32_t)((uint64_t)nf * j / k), .b = (uint32_t)((uint64_t)nf * (j + 1) / k)};
	gt_run_jobs(judge_flows, r, sizeof *r, k);
	*nc = 0;
	for (unsigned j = 0; j < k; j++) { /* each slice's kept ones move down, never past the next slice */
		memmove(e->flows + e->nflows, e->flows + r[j].a, (size_t)r[j].nflows * sizeof *e->flows);
		memmove(e->flow_src + e->nflows, e->flow_src + r[j].a, (size_t)r[j].nflows * sizeof *e->flow_src);
		memmove(e->flow_dst + e->nflows, e->flow_dst + r[j].a, (size_t)r[j].nflows * sizeof *e->flow_dst);
		memmove(cand + *nc, cand + r[j].a, (size_t)r[j].ncand * sizeof *cand);
		e->nflows += r[j].nflows, *nc += r[j].ncand;
		win->backward_edges += r[j].backward;
		for (int c = 0; c < GT_CAUSAL_LEFT_OUT_COUNT; c++)
			win->flows_left_out[c] += r[j].left_out[c];
	}
}

typedef struct wait_spans {
	const causal_trace *t;
	const uint32_t *sp;
} wait_spans;

/* A wait with a recorded event sync is not guessed. */
static bool guessed_wait(void *ctx, uint32_t i)
{
	const wait_spans *ws = ctx;
	return (ws->t->span_class[ws->sp[i]] & (CAUSAL_WAIT | CAUSAL_RECORDED)) == CAUSAL_WAIT;
}

static int find_edges(const causal_trace *t, uint32_t w, unsigned threads, gt_causal_window *win, window_edges *e,
		      gt_error *err)
{
	const uint32_t nf = t->flow_first[w + 1] - t->flow_first[w];
	const uint32_t *sp = t->spans_by_window + t->span_first[w], ns = t->span_first[w + 1] - t->span_first[w];
	/* zeroed: the compiler cannot see that only filled entries are read */
	uint32_t *cand = gt_big_calloc_threads(nf ? nf : 1, sizeof *cand, threads), nc = 0, nw = 0, *waits = NULL;
	e->flows = alloc(nf, sizeof *e->flows);
	e->flow_src = alloc(nf, sizeof *e->flow_src);
	e->flow_dst = alloc(nf, sizeof *e->flow_dst);
	wait_spans ws = {t, sp};
	int rc = causal_select(ns, threads, guessed_wait, &ws, &waits, &nw);
	uint32_t nrec = t->rec_first ? t->rec_first[w + 1] - t->rec_first[w] : 0;
	uint32_t *target = alloc(nw, sizeof *target);
	e->wait_k = alloc((size_t)nw + nrec, sizeof *e->wait_k);
	e->wait_w = alloc((size_t)nw + nrec, sizeof *e->wait_w);
	if (rc < 0 || !cand || !e->flows || !e->flow_src || !e->flow_dst || !target || !e->wait_k || !e->wait_w) {
		gt_big_free(cand), gt_big_free(waits), gt_big_free(target);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u flows", nf);
	}
	judge_window_flows(t, w, threads, win, e, cand, &nc);
	for (uint32_t i = 0; i < nw; i++)
		waits[i] = sp[waits[i]]; /* positions to spans */
	rc = causal_wait_targets(t, cand, nc, waits, nw, threads, target, err);
	for (uint32_t i = 0; rc == 0 && i < nw; i++)
		if (target[i] != GT_NONE && target[i] != waits[i]) {
			e->wait_k[e->nwaits] = target[i];
			e->wait_w[e->nwaits++] = waits[i];
		}
	gt_big_free(cand), gt_big_free(waits), gt_big_free(target);
	if (rc == 0)
		rc = find_recorded(t, w, win, e, err);
	if (rc == 0)
		rc = find_collective_edges(t, w, win, e, err);
	uint64_t t0 = causal_times_now();
	rc = rc == 0 ? causal_stream_waits(t, w, e->flows, e->nflows, threads, &e->sw_k, &e->sw_d, &e->nsw, err) : rc;
	causal_times_add(CAUSAL_T_G_STREAM_WAITS, t0);
	return rc;
}

/* A window's spans on threads (one large window alone): which tracks hold
 * them, and the kept ones' local numbers. */
typedef struct span_marks {
	const causal_trace *t;
	const uint32_t *sp;
	uint8_t *mark;               /* by track */
	const uint32_t *track_local; /* by track: its local number, GT_NONE */
	const uint32_t *pos;         /* the kept spans' positions in sp */
	causal_graph *g;
	uint32_t *local_track;
} span_marks;

static int mark_tracks(void *ctx, uint64_t a, uint64_t b)
{
	span_marks *sm = ctx;
	for (uint64_t i = a; i < b; i++) {
		uint8_t *k = &sm->mark[sm->t->m->spans[sm->sp[i]].track];
		if (!__atomic_load_n(k, __ATOMIC_RELAXED)) /* set once: the byte's line stays shared */
			__atomic_fetch_or(k, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

enum { HAS_SPANS = 1, HAS_EDGE = 2 }; /* a track's marks */

/* The tracks an edge list touches, pairs of spans, on threads (a whole
 * trace's flows are millions). */
typedef struct edge_marks {
	const causal_trace *t;
	uint8_t *mark;
	const uint32_t *a, *b;
} edge_marks;

static void mark_edge(uint8_t *k)
{
	if (!(__atomic_load_n(k, __ATOMIC_RELAXED) & HAS_EDGE)) /* set once, as mark_tracks */
		__atomic_fetch_or(k, HAS_EDGE, __ATOMIC_RELAXED);
}

static int mark_edges(void *ctx, uint64_t lo, uint64_t hi)
{
	const edge_marks *em = ctx;
	const gt_model *m = em->t->m;
	for (uint64_t i = lo; i < hi; i++) {
		mark_edge(&em->mark[m->spans[em->a[i]].track]);
		mark_edge(&em->mark[m->spans[em->b[i]].track]);
	}
	return 0;
}

static void mark_edge_tracks(const causal_trace *t, uint8_t *mark, const uint32_t *a, const uint32_t *b, uint32_t n,
			     unsigned threads)
{
	edge_marks em = {t, mark, a, b};
	gt_parallel_ranges(n, causal_range_min(), threads, mark_edges, &em);
}

static bool on_kept_track(void *ctx, uint32_t i)
{
	span_marks *sm = ctx;
	return sm->track_local[sm->t->m->spans[sm->sp[i]].track] != GT_NONE;
}

static int number_spans(void *ctx, uint64_t a, uint64_t b)
{
	span_marks *sm = ctx;
	const causal_trace *t = sm->t;
	for (uint32_t l = (uint32_t)a; l < b; l++) {
		uint32_t s = sm->sp[sm->pos[l]];
		if (t->local_of)
			t->local_of[s] = l;
		sm->local_track[l] = sm->track_local[t->m->spans[s].track];
		sm->g->span[l] = s;
	}
	return 0;
}

/* The graph's table of its spans' local indices (causal_local_of), where
 * the trace has no array of them: at most half full. */
static int local_table(const causal_trace *t, causal_graph *g)
{
	if (t->local_of)
		return 0;
	unsigned bits = 1;
	while (bits < 31 && ((uint64_t)1 << bits) < 2 * (uint64_t)g->nspans)
		bits++;
	g->local_shift = 32 - bits;
	g->local_slot = alloc((size_t)2 << bits, sizeof *g->local_slot);
	if (!g->local_slot)
		return -1;
	memset(g->local_slot, 0xff, ((size_t)2 << bits) * sizeof *g->local_slot);
	uint32_t mask = UINT32_MAX >> g->local_shift;
	for (uint32_t l = 0; l < g->nspans; l++) {
		uint32_t h = causal_local_hash(g->span[l], g->local_shift);
		while (g->local_slot[2 * (size_t)h] != GT_NONE)
			h = (h + 1) & mask;
		g->local_slot[2 * (size_t)h] = g->span[l];
		g->local_slot[2 * (size_t)h + 1] = l;
	}
	return 0;
}

/* Keeps the window's spans on tracks that have an edge (all of them when
 * the window has none) and numbers spans and tracks. */
static int choose_spans(const causal_trace *t, uint32_t w, unsigned threads, const window_edges *e, causal_graph *g,
			uint32_t **local_track, gt_causal_window *win, gt_error *err)
{
	const gt_model *m = t->m;
	const uint32_t *sp = t->spans_by_window + t->span_first[w], ns = t->span_first[w + 1] - t->span_first[w];
	uint8_t *mark = gt_big_calloc(m->track_count ? m->track_count : 1, 1);
	uint32_t *track_local = alloc(m->track_count, sizeof *track_local);
	g->span = alloc(ns, sizeof *g->span);
	*local_track = alloc(ns, sizeof **local_track);
	if (!mark || !track_local || !g->span || !*local_track) {
		gt_big_free(mark), gt_big_free(track_local);
		return gt_fail(err, GT_EINPUT, "out of memory for a window of %u spans", ns);
	}
	if (threads > 1) {
		span_marks sm = {t, sp, mark, NULL, NULL, NULL, NULL};
		gt_parallel_ranges(ns, causal_range_min(), threads, mark_tracks, &sm);
	} else {
		for (uint32_t i = 0; i < ns; i++)
			mark[m->spans[sp[i]].track] |= HAS_SPANS;
	}
	mark_edge_tracks(t, mark, e->flow_src, e->flow_dst, e->nflows, threads);
	mark_edge_tracks(t, mark, e->wait_k, e->wait_w, e->nwaits, threads);
	mark_edge_tracks(t, mark, e->coll_j, e->coll_r, e->ncoll, threads);
	mark_edge_tracks(t, mark, e->sw_k, e->sw_d, e->nsw, threads);
	mark_edge_tracks(t, mark, e->rsw_k, e->rsw_d, e->nrsw, threads);
	bool any = e->nflows + e->nwaits + e->ncoll + e->nsw + e->nrsw > 0;
	if (!any)
		win->flags |= GT_CAUSAL_NO_DEPENDENCIES;
	g->tracks = 0;
	for (uint32_t tr = 0; tr < m->track_count; tr++) {
		track_local[tr] = GT_NONE;
		if (!(mark[tr] & HAS_SPANS))
			continue;
		if (any && !(mark[tr] & HAS_EDGE))
			win->isolated_tracks++;
		else
			track_local[tr] = g->tracks++;
	}
	g->track = alloc(g->tracks, sizeof *g->track);
	if (!g->track) {
		gt_big_free(mark), gt_big_free(track_local);
		return gt_fail(err, GT_EINPUT, "out of memory for a window of %u spans", ns);
	}
	for (uint32_t tr = 0; tr < m->track_count; tr++)
		if (track_local[tr] != GT_NONE)
			g->track[track_local[tr]] = tr;
	g->nspans = 0;
	if (threads > 1) { /* the kept spans' positions, then each one's numbers, on threads */
		span_marks sm = {t, sp, mark, track_local, NULL, g, *local_track};
		uint32_t *pos = NULL;
		if (causal_select(ns, threads, on_kept_track, &sm, &pos, &g->nspans) < 0) {
			gt_big_free(mark), gt_big_free(track_local);
			return gt_fail(err, GT_EINPUT, "out of memory for a window of %u spans", ns);
		}
		sm.pos = pos;
		gt_parallel_ranges(g->nspans, causal_range_min(), threads, number_spans, &sm);
		gt_big_free(pos);
	} else {
		/* counted in a local: the stores below may alias g->nspans */
		uint32_t kept = 0, *lts = *local_track;
		for (uint32_t i = 0; i < ns; i++) {
			uint32_t lt = track_local[m->spans[sp[i]].track];
			if (lt == GT_NONE)
				continue;
			if (t->local_of)
				t->local_of[sp[i]] = kept;
			lts[kept] = lt;
			g->span[kept++] = sp[i];
		}
		g->nspans = kept;
	}
	gt_big_free(mark), gt_big_free(track_local);
	if (local_table(t, g) < 0)
		return gt_fail(err, GT_EINPUT, "out of memory for a window of %u spans", ns);
	return 0;
}

/* The points' times, spans [a, b): span l's departure times follow those
 * of the spans before it, 2 points (B and E) a span aside. */
typedef struct point_fill {
	const causal_trace *t;
	causal_graph *g;
	const int64_t *dep_time; /* in (span, time) order */
	int64_t first_time, last_time; /* min'd and max'd at each range's end */
} point_fill;

static void fill_span_points(point_fill *pf, uint32_t a, uint32_t b, int64_t *first_out, int64_t *last_out)
{
	causal_graph *g = pf->g;
	const gt_model *m = pf->t->m;
	int64_t first = *first_out, last = *last_out;
	for (uint32_t l = a; l < b; l++) {
		const gt_span *s = &m->spans[g->span[l]];
		uint32_t p = g->first_point[l], e_id = g->first_point[l + 1] - 1;
		const int64_t *dt = pf->dep_time + (p - 2 * (uint64_t)l);
		g->time[p] = s->ts_ns;
		for (p++; p < e_id; p++)
			g->time[p] = *dt++;
		g->time[e_id] = causal_end(s);
		first = s->ts_ns < first ? s->ts_ns : first;
		last = causal_end(s) > last ? causal_end(s) : last;
	}
	*first_out = first, *last_out = last;
}

/* Spans filled at a time where the span table goes as it is read. */
#define RELEASE_SPANS 65536

static int fill_points(void *ctx, uint64_t a, uint64_t b)
{
	point_fill *pf = ctx;
	const causal_graph *g = pf->g;
	int64_t first = INT64_MAX, last = INT64_MIN;
	/* where the table goes once the points are made (causal_span_fields.c),
	 * each piece's spans go as soon as read: they and those between them,
	 * by id, up to the next piece's first */
	uint32_t piece = pf->t->fields ? RELEASE_SPANS : UINT32_MAX;
	for (uint32_t c = (uint32_t)a; c < b;) {
		uint32_t d = b - c > piece ? c + piece : (uint32_t)b;
		fill_span_points(pf, c, d, &first, &last);
		if (pf->t->fields)
			causal_release_span_range(pf->t, c ? g->span[c] : 0,
						  d < g->nspans ? g->span[d] : pf->t->m->span_count);
		c = d;
	}
	causal_atomic_min(&pf->first_time, first);
	causal_atomic_max(&pf->last_time, last);
	return 0;
}

/* The flow edges that leave strictly inside their source, in ranges on
 * threads (a whole trace's millions): counted, then each range's written
 * at its offset as (departure, local source), with the earliest. */
typedef struct inner_departures {
	const causal_trace *t;
	const causal_graph *g;
	const window_edges *e;
	uint32_t a, b;
	uint32_t count, at;
	uint64_t *key;
	uint32_t *val;
	int64_t base;
} inner_departures;

/* Whether flow edge i leaves from strictly inside its source. */
static bool leaves_inside(const causal_trace *t, const window_edges *e, uint32_t i)
{
	const gt_span *s = &t->m->spans[e->flow_src[i]];
	int64_t d = t->departure[e->flows[i]];
	return d > s->ts_ns && d < causal_end(s);
}

static void *count_inner(void *arg)
{
	inner_departures *r = arg;
	uint32_t n = 0;
	for (uint32_t i = r->a; i < r->b; i++)
		n += leaves_inside(r->t, r->e, i);
	r->count = n;
	return NULL;
}

static void *write_inner(void *arg)
{
	inner_departures *r = arg;
	const causal_trace *t = r->t;
	int64_t base = INT64_MAX;
	for (uint32_t i = r->a, k = r->at; i < r->b; i++) {
		if (!leaves_inside(t, r->e, i))
			continue;
		int64_t d = t->departure[r->e->flows[i]];
		r->val[k] = causal_local_of(t, r->g, r->e->flow_src[i]);
		r->key[k++] = (uint64_t)d;
		base = d < base ? d : base;
	}
	r->base = base;
	return NULL;
}

/* Each span's first point, 2 points a span and its departures (ndep)
 * before it, as a scan in ranges on threads: the ranges' sums, then each
 * range from its offset. */
typedef struct point_scan {
	causal_graph *g;
	const uint32_t *ndep;
	uint32_t a, b;
	uint64_t sum, at;
} point_scan;

static void *scan_sum(void *arg)
{
	point_scan *r = arg;
	uint64_t sum = 0;
	for (uint32_t l = r->a; l < r->b; l++)
		sum += 2 + (uint64_t)r->ndep[l];
	r->sum = sum;
	return NULL;
}

static void *scan_write(void *arg)
{
	point_scan *r = arg;
	uint64_t at = r->at;
	for (uint32_t l = r->a; l < r->b; l++) {
		r->g->first_point[l] = (uint32_t)at;
		at += 2 + (uint64_t)r->ndep[l];
	}
	return NULL;
}

/* g->first_point from ndep; the window's points (nothing written where
 * they are more than GT_CP_MAX_ROWS). */
static uint64_t first_points(causal_graph *g, const uint32_t *ndep, unsigned threads)
{
	unsigned k = causal_range_jobs(g->nspans, threads);
	point_scan r[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		r[j] = (point_scan){g, ndep, (uint32_t)((uint64_t)g->nspans * j / k),
				    (uint32_t)((uint64_t)g->nspans * (j + 1) / k), 0, 0};
	gt_run_jobs(scan_sum, r, sizeof *r, k);
	uint64_t n = 0;
	for (unsigned j = 0; j < k; j++)
		r[j].at = n, n += r[j].sum;
	if (n > GT_CP_MAX_ROWS)
		return n;
	gt_run_jobs(scan_write, r, sizeof *r, k);
	g->first_point[g->nspans] = (uint32_t)n;
	return n;
}

static int span_of_points(void *ctx, uint64_t a, uint64_t b)
{
	causal_graph *g = ctx;
	for (uint32_t l = (uint32_t)a; l < b; l++)
		for (uint32_t p = g->first_point[l]; p < g->first_point[l + 1]; p++)
			g->point_span[p] = l;
	return 0;
}

int causal_point_spans(causal_graph *g, unsigned threads, gt_error *err)
{
	if (g->point_span)
		return 0;
	g->point_span = alloc(g->n, sizeof *g->point_span);
	if (!g->point_span)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u points", g->n);
	gt_parallel_ranges(g->nspans, causal_range_min(), threads, span_of_points, g);
	return 0;
}

/* Departure points: per span, the distinct times strictly inside it where
 * its flows leave, ascending; and the points' ids and times. */
static int make_points(const causal_trace *t, unsigned threads, const window_edges *e, causal_graph *g,
		       int64_t **dep_time, gt_error *err)
{
	unsigned k = causal_range_jobs(e->nflows, threads);
	inner_departures r[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		r[j] = (inner_departures){.t = t, .g = g, .e = e, .a = (uint32_t)((uint64_t)e->nflows * j / k),
					  .b = (uint32_t)((uint64_t)e->nflows * (j + 1) / k)};
	gt_run_jobs(count_inner, r, sizeof *r, k);
	uint32_t nd = 0;
	for (unsigned j = 0; j < k; j++)
		r[j].at = nd, nd += r[j].count;
	uint64_t *key = alloc(nd, sizeof *key), *tk = alloc(nd, sizeof *tk);
	uint32_t *val = alloc(nd, sizeof *val), *tv = alloc(nd, sizeof *tv);
	uint32_t *ndep = gt_big_calloc_threads((size_t)g->nspans + 1, sizeof *ndep, threads);
	*dep_time = alloc(nd, sizeof **dep_time);
	g->first_point = alloc((size_t)g->nspans + 1, sizeof *g->first_point);
	if (!key || !tk || !val || !tv || !ndep || !*dep_time || !g->first_point) {
		gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), gt_big_free(ndep);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u departures", nd);
	}
	for (unsigned j = 0; j < k; j++)
		r[j].key = key, r[j].val = val;
	gt_run_jobs(write_inner, r, sizeof *r, k);
	int64_t base = INT64_MAX;
	for (unsigned j = 0; j < k; j++)
		base = r[j].base < base ? r[j].base : base;
	/* by span, then time: two stable passes, the minor key first */
	for (uint32_t i = 0; i < nd; i++)
		key[i] -= (uint64_t)base;
	gt_radix_sort_u64(key, val, nd, tk, tv);
	for (uint32_t i = 0; i < nd; i++) {
		(*dep_time)[i] = (int64_t)key[i] + base;
		key[i] = val[i];
		val[i] = i;
	}
	gt_radix_sort_u64(key, val, nd, tk, tv);
	/* one point per distinct time per span */
	int64_t *times = *dep_time;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < nd; i++) {
		int64_t d = times[val[i]];
		if (kept && key[i] == key[i - 1] && (int64_t)tk[kept - 1] == d)
			continue;
		tk[kept++] = (uint64_t)d; /* reuse tk: times in (span, time) order */
		ndep[key[i]]++;
	}
	for (uint32_t i = 0; i < kept; i++)
		times[i] = (int64_t)tk[i];
	gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv);
	uint64_t n = first_points(g, ndep, threads);
	gt_big_free(ndep);
	if (t->fields) /* the peak is next: nothing kept for reuse (causal_graph_build) */
		gt_big_trim();
	if (n > GT_CP_MAX_ROWS)
		return gt_fail(err, GT_EINPUT, "a window holds more than %u points", GT_CP_MAX_ROWS);
	g->n = (uint32_t)n;
	g->time = alloc(n, sizeof *g->time);
	if (!g->time)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u points", g->n);
	point_fill pf = {t, g, times, INT64_MAX, INT64_MIN};
	if (threads > 1)
		gt_parallel_ranges(g->nspans, causal_range_min(), threads, fill_points, &pf);
	else
		fill_points(&pf, 0, g->nspans);
	g->first_time = pf.first_time;
	g->last_time = pf.last_time;
	return 0;
}

/* --- cross edges ------------------------------------------------------ */

/* The point a flow leaves from: B or E of its source when the departure is
 * at (or clamped to) an end, else the departure point of that time. */
static uint32_t departure_point(const causal_trace *t, const causal_graph *g, uint32_t flow, uint32_t src)
{
	uint32_t l = causal_local_of(t, g, src);
	uint32_t b = g->first_point[l], e = causal_graph_e(g, l);
	int64_t d = t->departure[flow];
	if (d >= g->time[e])
		return e;
	if (d <= g->time[b])
		return b;
	uint32_t lo = b + 1, hi = e - 1; /* departure points are ascending in time */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->time[mid] < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The flow edges, first among the cross edges: in ranges (one large
 * window on threads), each edge its flow's. */
typedef struct flow_edges {
	const causal_trace *t;
	const window_edges *e;
	causal_graph *g;
} flow_edges;

static int flow_edge_range(void *ctx, uint64_t a, uint64_t b)
{
	flow_edges *fe = ctx;
	const causal_trace *t = fe->t;
	causal_graph *g = fe->g;
	for (uint32_t k = (uint32_t)a; k < b; k++) {
		uint32_t f = fe->e->flows[k];
		g->edge_src[k] = departure_point(t, g, f, fe->e->flow_src[k]);
		g->edge_dst[k] = g->first_point[causal_local_of(t, g, fe->e->flow_dst[k])];
		g->edge_kind[k] = GT_CPM_EDGE_FLOW;
		g->edge_ref[k] = f;
	}
	return 0;
}

/* The cross edges but the hand-offs (which come from the chains). */
static int make_cross_edges(const causal_trace *t, const window_edges *e, unsigned threads, causal_graph *g,
			    gt_error *err)
{
	uint64_t m = (uint64_t)e->nflows + e->nwaits + e->ncoll + e->nrsw + e->nsw;
	if (m > UINT32_MAX - 1)
		return gt_fail(err, GT_EINPUT, "a window holds %llu edges, more than 2^32 - 2", (unsigned long long)m);
	g->m = (uint32_t)m;
	g->edge_src = alloc(g->m, sizeof *g->edge_src);
	g->edge_dst = alloc(g->m, sizeof *g->edge_dst);
	g->edge_kind = alloc(g->m, sizeof *g->edge_kind);
	g->edge_ref = alloc(g->m, sizeof *g->edge_ref);
	if (!g->edge_src || !g->edge_dst || !g->edge_kind || !g->edge_ref)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u edges", g->m);
	flow_edges fe = {t, e, g};
	gt_parallel_ranges(e->nflows, causal_range_min(), threads, flow_edge_range, &fe);
	uint32_t k = e->nflows;
	for (uint32_t i = 0; i < e->nwaits; i++, k++) {
		g->edge_src[k] = causal_graph_e(g, causal_local_of(t, g, e->wait_k[i]));
		g->edge_dst[k] = causal_graph_e(g, causal_local_of(t, g, e->wait_w[i]));
		g->edge_kind[k] = GT_CPM_EDGE_WAIT;
		g->edge_ref[k] = e->wait_w[i];
	}
	for (uint32_t i = 0; i < e->ncoll; i++, k++) {
		g->edge_src[k] = g->first_point[causal_local_of(t, g, e->coll_j[i])];
		g->edge_dst[k] = causal_graph_e(g, causal_local_of(t, g, e->coll_r[i]));
		g->edge_kind[k] = GT_CPM_EDGE_WAIT;
		g->edge_ref[k] = e->coll_r[i];
	}
	g->first_stream_wait = k;
	for (uint32_t i = 0; i < e->nrsw; i++, k++) {
		g->edge_src[k] = causal_graph_e(g, causal_local_of(t, g, e->rsw_k[i]));
		g->edge_dst[k] = g->first_point[causal_local_of(t, g, e->rsw_d[i])];
		g->edge_kind[k] = GT_CPM_EDGE_WAIT;
		g->edge_ref[k] = e->rsw_d[i];
	}
	g->first_inferred = k;
	for (uint32_t i = 0; i < e->nsw; i++, k++) {
		g->edge_src[k] = causal_graph_e(g, causal_local_of(t, g, e->sw_k[i]));
		g->edge_dst[k] = g->first_point[causal_local_of(t, g, e->sw_d[i])];
		g->edge_kind[k] = GT_CPM_EDGE_WAIT;
		g->edge_ref[k] = e->sw_d[i];
	}
	g->first_handoff = k;
	return 0;
}

/* The hand-off edges appended to the cross edges. */
static int add_handoffs(const causal_handoff_edges *ho, causal_graph *g, gt_error *err)
{
	if (!ho->n)
		return 0;
	uint64_t m = (uint64_t)g->m + ho->n;
	if (m > UINT32_MAX - 1)
		return gt_fail(err, GT_EINPUT, "a window holds %llu edges, more than 2^32 - 2", (unsigned long long)m);
	uint32_t *src = gt_big_realloc(g->edge_src, m, sizeof *src);
	g->edge_src = src ? src : g->edge_src;
	uint32_t *dst = gt_big_realloc(g->edge_dst, m, sizeof *dst);
	g->edge_dst = dst ? dst : g->edge_dst;
	uint8_t *kind = gt_big_realloc(g->edge_kind, m, sizeof *kind);
	g->edge_kind = kind ? kind : g->edge_kind;
	uint32_t *ref = gt_big_realloc(g->edge_ref, m, sizeof *ref);
	g->edge_ref = ref ? ref : g->edge_ref;
	if (!src || !dst || !kind || !ref)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %llu edges", (unsigned long long)m);
	for (uint32_t i = 0, k = g->m; i < ho->n; i++, k++) {
		g->edge_src[k] = ho->src[i];
		g->edge_dst[k] = ho->dst[i];
		g->edge_kind[k] = GT_CPM_EDGE_WAIT;
		g->edge_ref[k] = ho->ref[i];
	}
	g->m = (uint32_t)m;
	return 0;
}

/* A job's step window: each rank's own wall (its graph spans' last end
 * minus their first start), and their min, lower median and max. */
static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int rank_walls(const causal_trace *t, const causal_graph *g, gt_causal_window *win, gt_error *err)
{
	const gt_model *m = t->m;
	int64_t *wall = alloc(m->rank_count, sizeof *wall);
	if (!wall)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's rank walls");
	uint32_t n = 0, r = 0;
	int64_t first = INT64_MAX, last = INT64_MIN;
	for (uint32_t l = 0; l <= g->nspans; l++) { /* graph spans are by id: rank after rank */
		bool next = l == g->nspans || g->span[l] >= m->ranks[r].span_base + m->ranks[r].span_count;
		if (next && first <= last)
			wall[n++] = last - first;
		if (l == g->nspans)
			break;
		if (next) {
			while (g->span[l] >= m->ranks[r].span_base + m->ranks[r].span_count)
				r++;
			first = INT64_MAX, last = INT64_MIN;
		}
		const gt_span *s = &m->spans[g->span[l]];
		first = s->ts_ns < first ? s->ts_ns : first;
		last = causal_end(s) > last ? causal_end(s) : last;
	}
	qsort(wall, n, sizeof *wall, cmp_i64);
	if (n) {
		win->rank_wall_min_ns = wall[0];
		win->rank_wall_median_ns = wall[(n - 1) / 2];
		win->rank_wall_max_ns = wall[n - 1];
	}
	gt_big_free(wall);
	return 0;
}

int causal_graph_build(const causal_trace *t, uint32_t w, unsigned threads, causal_trace *alone,
		       causal_graph *g, gt_causal_window *win, gt_error *err)
{
	memset(g, 0, sizeof *g);
	window_edges e = {0};
	uint32_t *local_track = NULL;
	int64_t *dep_time = NULL;
	uint64_t t0 = causal_times_now();
	int rc = find_edges(t, w, threads, win, &e, err);
	/* a whole trace's span table is resident until its points are made:
	 * its analysis peaks there, without the blocks the edges leave */
	if (t->fields)
		gt_big_trim();
	/* the edges hold their flows' ends: the flow table is read again only
	 * by the results, on the path's flow hops (their pages fault back in) */
	if (alone) {
		causal_keep_queues(alone, threads);
		gt_model_release_flows(t->m);
	}
	causal_times_add(CAUSAL_T_G_EDGES, t0);
	t0 = causal_times_now();
	if (rc == 0)
		rc = choose_spans(t, w, threads, &e, g, &local_track, win, err);
	if (rc == 0 && win->ranks) /* before the points: the span table may go with them */
		rc = rank_walls(t, g, win, err);
	if (alone)
		causal_trace_drop_members(alone);
	causal_times_add(CAUSAL_T_G_SPANS, t0);
	t0 = causal_times_now();
	/* a whole trace whose span table goes once the points are made peaks
	 * with the points: the blocks kept for reuse go back to the system first */
	if (rc == 0 && t->fields)
		gt_big_trim();
	if (rc == 0)
		rc = make_points(t, threads, &e, g, &dep_time, err);
	gt_big_free(dep_time);
	if (rc == 0) /* what reads the spans after the points reads t->fields */
		causal_release_spans(t);
	causal_times_add(CAUSAL_T_G_POINTS, t0);
	/* the cross edges before the chains: where the window is the trace's
	 * only one, what they read last goes before the chains' scratch comes */
	t0 = causal_times_now();
	if (rc == 0)
		rc = make_cross_edges(t, &e, threads, g, err);
	window_edges_free(&e); /* read last by the cross edges */
	if (alone)
		causal_trace_drop_edge_inputs(alone);
	causal_times_add(CAUSAL_T_G_CROSS, t0);
	t0 = causal_times_now();
	if (rc == 0)
		rc = causal_make_chains(g, &local_track, threads, err);
	if (t->fields) /* the chains' scratch: what follows peaks again */
		gt_big_trim();
	causal_times_add(CAUSAL_T_G_CHAINS, t0);
	t0 = causal_times_now();
	causal_handoff_edges ho = {0};
	if (rc == 0)
		rc = causal_handoffs(t, g, threads, &ho, err);
	if (rc == 0)
		rc = add_handoffs(&ho, g, err);
	if (alone) { /* the binding and the path peak without the points' spans (where the
		      * hand-offs made them); the results make them again */
		gt_big_free(g->point_span);
		g->point_span = NULL;
	}
	causal_times_add(CAUSAL_T_G_HANDOFFS, t0);
	uint32_t handoffs = ho.n;
	causal_handoffs_free(&ho);
	gt_big_free(local_track);
	if (rc == 0) {
		win->points = g->n;
		win->spans = g->nspans;
		win->tracks = g->tracks;
		win->chain_edges = g->n - g->tracks;
		win->flow_edges = e.nflows;
		win->wait_edges = e.nwaits;
		win->collective_edges = e.ncoll;
		win->inferred_stream_waits = e.nsw;
		win->recorded_stream_waits = e.nrsw;
		win->recorded_event_syncs = e.nsyncs;
		win->handoff_edges = handoffs;
		if (handoffs) /* the window has dependencies after all */
			win->flags &= ~(uint32_t)GT_CAUSAL_NO_DEPENDENCIES;
		win->wall_ns = g->last_time - g->first_time;
	}
	window_edges_free(&e);
	if (rc < 0)
		causal_graph_free(g);
	return rc;
}
