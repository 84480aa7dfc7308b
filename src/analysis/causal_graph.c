/* One window's dependency graph (the rules are in causal.h): which flows
 * and waits become edges, which tracks stay, the points with their dense
 * ids, and each track's chain with the owners of its gaps. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

void causal_graph_free(causal_graph *g)
{
	gt_big_free(g->span);
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
	uint32_t nflows;
	uint32_t *wait_k, *wait_w; /* wait edges E(k) -> E(W), global spans */
	uint32_t nwaits;
} window_edges;

static void window_edges_free(window_edges *e)
{
	gt_big_free(e->flows);
	gt_big_free(e->wait_k);
	gt_big_free(e->wait_w);
}

static int find_edges(const causal_trace *t, uint32_t w, gt_causal_window *win, window_edges *e, gt_error *err)
{
	const gt_model *m = t->m;
	const uint32_t *fl = t->flows_by_window + t->flow_first[w], nf = t->flow_first[w + 1] - t->flow_first[w];
	const uint32_t *sp = t->spans_by_window + t->span_first[w], ns = t->span_first[w + 1] - t->span_first[w];
	/* zeroed: the compiler cannot see that only filled entries are read */
	uint32_t *cand = gt_big_calloc(nf ? nf : 1, sizeof *cand), nc = 0, nw = 0;
	e->flows = alloc(nf, sizeof *e->flows);
	for (uint32_t i = 0; i < ns; i++)
		nw += (t->span_class[sp[i]] & CAUSAL_WAIT) != 0;
	uint32_t *waits = gt_big_calloc(nw ? nw : 1, sizeof *waits), *target = alloc(nw, sizeof *target);
	e->wait_k = alloc(nw, sizeof *e->wait_k);
	e->wait_w = alloc(nw, sizeof *e->wait_w);
	if (!cand || !e->flows || !waits || !target || !e->wait_k || !e->wait_w) {
		gt_big_free(cand), gt_big_free(waits), gt_big_free(target);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u flows", nf);
	}
	for (uint32_t i = 0; i < nf; i++) {
		const gt_flow *f = &m->flows[fl[i]];
		if (f->src != GT_NONE && f->src == f->dst)
			win->flows_left_out[GT_CAUSAL_FLOW_SELF]++;
		else if (!causal_takes_part(t, f->src) || !causal_takes_part(t, f->dst))
			win->flows_left_out[GT_CAUSAL_FLOW_NOT_TAKING_PART]++;
		else if (t->window_of[f->src] != w || t->window_of[f->dst] != w)
			win->flows_left_out[GT_CAUSAL_FLOW_OTHER_WINDOW]++;
		else {
			/* a launch still tells a wait what it waits for, even when
			 * clocks put the kernel before its launch */
			if (t->span_class[f->dst] & CAUSAL_DEVICE)
				cand[nc++] = fl[i];
			if (t->departure[fl[i]] > m->spans[f->dst].ts_ns)
				win->backward_edges++;
			else
				e->flows[e->nflows++] = fl[i];
		}
	}
	nw = 0;
	for (uint32_t i = 0; i < ns; i++)
		if (t->span_class[sp[i]] & CAUSAL_WAIT)
			waits[nw++] = sp[i];
	int rc = causal_wait_targets(t, cand, nc, waits, nw, target, err);
	for (uint32_t i = 0; rc == 0 && i < nw; i++)
		if (target[i] != GT_NONE && target[i] != waits[i]) {
			e->wait_k[e->nwaits] = target[i];
			e->wait_w[e->nwaits++] = waits[i];
		}
	gt_big_free(cand), gt_big_free(waits), gt_big_free(target);
	return rc;
}

/* Keeps the window's spans on tracks that have an edge (all of them when
 * the window has none) and numbers spans and tracks. */
static int choose_spans(const causal_trace *t, uint32_t w, const window_edges *e, causal_graph *g,
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
	enum { HAS_SPANS = 1, HAS_EDGE = 2 };
	for (uint32_t i = 0; i < ns; i++)
		mark[m->spans[sp[i]].track] |= HAS_SPANS;
	for (uint32_t i = 0; i < e->nflows; i++) {
		mark[m->spans[m->flows[e->flows[i]].src].track] |= HAS_EDGE;
		mark[m->spans[m->flows[e->flows[i]].dst].track] |= HAS_EDGE;
	}
	for (uint32_t i = 0; i < e->nwaits; i++) {
		mark[m->spans[e->wait_k[i]].track] |= HAS_EDGE;
		mark[m->spans[e->wait_w[i]].track] |= HAS_EDGE;
	}
	bool any = e->nflows + e->nwaits > 0;
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
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t lt = track_local[m->spans[sp[i]].track];
		if (lt == GT_NONE)
			continue;
		t->local_of[sp[i]] = g->nspans;
		(*local_track)[g->nspans] = lt;
		g->span[g->nspans++] = sp[i];
	}
	gt_big_free(mark), gt_big_free(track_local);
	return 0;
}

/* Departure points: per span, the distinct times strictly inside it where
 * its flows leave, ascending; and the points' ids and times. */
static int make_points(const causal_trace *t, const window_edges *e, causal_graph *g, int64_t **dep_time,
		       gt_error *err)
{
	const gt_model *m = t->m;
	uint32_t nd = 0;
	for (uint32_t i = 0; i < e->nflows; i++) {
		const gt_span *s = &m->spans[m->flows[e->flows[i]].src];
		int64_t d = t->departure[e->flows[i]];
		nd += d > s->ts_ns && d < causal_end(s);
	}
	uint64_t *key = alloc(nd, sizeof *key), *tk = alloc(nd, sizeof *tk);
	uint32_t *val = alloc(nd, sizeof *val), *tv = alloc(nd, sizeof *tv);
	uint32_t *ndep = gt_big_calloc((size_t)g->nspans + 1, sizeof *ndep);
	*dep_time = alloc(nd, sizeof **dep_time);
	g->first_point = alloc((size_t)g->nspans + 1, sizeof *g->first_point);
	if (!key || !tk || !val || !tv || !ndep || !*dep_time || !g->first_point) {
		gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), gt_big_free(ndep);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u departures", nd);
	}
	int64_t base = INT64_MAX;
	nd = 0;
	for (uint32_t i = 0; i < e->nflows; i++) {
		uint32_t src = m->flows[e->flows[i]].src;
		const gt_span *s = &m->spans[src];
		int64_t d = t->departure[e->flows[i]];
		if (d > s->ts_ns && d < causal_end(s)) {
			val[nd] = t->local_of[src];
			key[nd++] = (uint64_t)d;
			base = d < base ? d : base;
		}
	}
	/* by span, then time: two stable passes, the minor key first */
	for (uint32_t i = 0; i < nd; i++)
		key[i] -= (uint64_t)base;
	causal_sort_u64(key, val, nd, tk, tv);
	for (uint32_t i = 0; i < nd; i++) {
		(*dep_time)[i] = (int64_t)key[i] + base;
		key[i] = val[i];
		val[i] = i;
	}
	causal_sort_u64(key, val, nd, tk, tv);
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
	uint64_t n = 0;
	for (uint32_t l = 0; l < g->nspans; l++) {
		g->first_point[l] = (uint32_t)n;
		n += 2 + (uint64_t)ndep[l];
		if (n > GT_CP_MAX_ROWS) {
			gt_big_free(ndep);
			return gt_fail(err, GT_EINPUT, "a window holds more than %u points", GT_CP_MAX_ROWS);
		}
	}
	g->first_point[g->nspans] = (uint32_t)n;
	gt_big_free(ndep);
	g->n = (uint32_t)n;
	g->time = alloc(n, sizeof *g->time);
	g->point_span = alloc(n, sizeof *g->point_span);
	if (!g->time || !g->point_span)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u points", g->n);
	const int64_t *dt = times;
	g->first_time = INT64_MAX;
	g->last_time = INT64_MIN;
	for (uint32_t l = 0; l < g->nspans; l++) {
		const gt_span *s = &m->spans[g->span[l]];
		uint32_t p = g->first_point[l], e_id = g->first_point[l + 1] - 1;
		g->time[p] = s->ts_ns;
		g->point_span[p] = l;
		for (p++; p < e_id; p++) {
			g->time[p] = *dt++;
			g->point_span[p] = l;
		}
		g->time[e_id] = causal_end(s);
		g->point_span[e_id] = l;
		g->first_time = s->ts_ns < g->first_time ? s->ts_ns : g->first_time;
		g->last_time = causal_end(s) > g->last_time ? causal_end(s) : g->last_time;
	}
	return 0;
}

/* --- chains ----------------------------------------------------------- */

/* One track's spans gathered into dense arrays (dense index i = the i-th
 * span of the track by id), so that ordering, walking and owners read
 * them in sequence instead of chasing point ids through the window. */
typedef struct track_scratch {
	int64_t *b, *e;     /* B and E times */
	uint32_t *span;     /* local span */
	uint32_t *ord;      /* dense indices in track order */
	uint32_t *out;      /* the walk: point ids */
	uint32_t *tag;      /* the walk: dense index << 2 | 0 B, 1 D, 2 E */
	int64_t *time;      /* the walk: times */
	uint64_t *key, *tk; /* sort scratch */
	uint32_t *tv, *tv2;
	uint32_t *stack;
	uint8_t *closed;
	uint32_t *next;     /* per dense span: its next departure point */
} track_scratch;

enum { TAG_B = 0, TAG_D = 1, TAG_E = 2 };

typedef struct chain_job {
	causal_graph *g;
	const uint32_t *track_spans, *track_first; /* local spans by local track, by id */
	uint32_t begin, end;                        /* local tracks */
	int rc;
} chain_job;

/* The track's spans in (start, longer first, id) order, the order the
 * nesting forest is read in. */
static void order_spans(track_scratch *x, uint32_t n, int64_t base)
{
	bool sorted = true;
	for (uint32_t i = 0; i < n; i++)
		x->ord[i] = i;
	for (uint32_t i = 1; i < n && sorted; i++)
		sorted = x->b[i - 1] < x->b[i] || (x->b[i - 1] == x->b[i] && x->e[i - 1] - x->b[i - 1] >= x->e[i] - x->b[i]);
	if (sorted)
		return;
	for (uint32_t i = 0; i < n; i++)
		x->key[i] = UINT64_MAX - (uint64_t)(x->e[i] - x->b[i]);
	causal_sort_u64(x->key, x->ord, n, x->tk, x->tv);
	for (uint32_t i = 0; i < n; i++)
		x->key[i] = (uint64_t)(x->b[x->ord[i]] - base);
	causal_sort_u64(x->key, x->ord, n, x->tk, x->tv);
}

static uint32_t emit(track_scratch *x, uint32_t k, uint32_t point, uint32_t tag, int64_t time)
{
	x->out[k] = point;
	x->tag[k] = tag;
	x->time[k] = time;
	return k + 1;
}

/* Emits a popped span's remaining departure points and its E. */
static uint32_t close_span(const causal_graph *g, track_scratch *x, uint32_t i, uint32_t k)
{
	uint32_t e = causal_graph_e(g, x->span[i]);
	for (uint32_t p = x->next[i]; p < e; p++)
		k = emit(x, k, p, i << 2 | TAG_D, g->time[p]);
	return emit(x, k, e, i << 2 | TAG_E, x->e[i]);
}

/* The depth-first walk of the nesting forest (spans in track order, a span
 * nests in the open one whose end is not before its own): B(p), p's
 * departures and children merged by time (a departure before a child
 * starting at its time), E(p). Returns the points written. */
static uint32_t walk_forest(const causal_graph *g, track_scratch *x, uint32_t n)
{
	uint32_t top = 0, k = 0;
	for (uint32_t o = 0; o < n; o++) {
		uint32_t i = x->ord[o];
		while (top && x->e[x->stack[top - 1]] < x->e[i])
			k = close_span(g, x, x->stack[--top], k);
		if (top) {
			uint32_t q = x->stack[top - 1], qe = causal_graph_e(g, x->span[q]);
			for (; x->next[q] < qe && g->time[x->next[q]] <= x->b[i]; x->next[q]++)
				k = emit(x, k, x->next[q], q << 2 | TAG_D, g->time[x->next[q]]);
		}
		k = emit(x, k, g->first_point[x->span[i]], i << 2 | TAG_B, x->b[i]);
		x->next[i] = g->first_point[x->span[i]] + 1;
		x->stack[top++] = i;
	}
	while (top)
		k = close_span(g, x, x->stack[--top], k);
	return k;
}

/* Owners: the latest-started span still open. Spans open in chain order,
 * so the latest started is the top of a stack from which closed spans are
 * dropped once they reach the top (a heap would hold the same order).
 * owner_in[v]: the owner of the gap from v's chain predecessor to v. */
static void find_owners(causal_graph *g, track_scratch *x, uint32_t start, uint32_t n)
{
	uint32_t top = 0, owner = GT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t p = x->out[k], i = x->tag[k] >> 2;
		g->chain[start + k] = p;
		g->owner_in[p] = owner;
		if ((x->tag[k] & 3) == TAG_B)
			x->stack[top++] = i;
		else if ((x->tag[k] & 3) == TAG_E)
			x->closed[i] = 1;
		while (top && x->closed[x->stack[top - 1]])
			top--;
		owner = top && k + 1 < n ? x->span[x->stack[top - 1]] : GT_NONE;
		g->work[start + k] = owner != GT_NONE;
	}
}

static void build_chain(causal_graph *g, const uint32_t *spans, uint32_t ns, uint32_t k, track_scratch *x)
{
	uint32_t start = g->chain_start[k], n = g->chain_start[k + 1] - start;
	for (uint32_t i = 0; i < ns; i++) {
		x->span[i] = spans[i];
		x->b[i] = g->time[g->first_point[spans[i]]];
		x->e[i] = g->time[causal_graph_e(g, spans[i])];
		x->closed[i] = 0;
	}
	order_spans(x, ns, g->first_time);
	walk_forest(g, x, ns);
	/* improper nesting and departures of outer spans leave the walk out of
	 * time order: a stable sort by time keeps the walk's order for ties */
	bool sorted = true;
	for (uint32_t i = 1; i < n && sorted; i++)
		sorted = x->time[i - 1] <= x->time[i];
	if (!sorted) {
		for (uint32_t i = 0; i < n; i++) {
			x->key[i] = (uint64_t)(x->time[i] - g->first_time);
			x->tv2[i] = i;
		}
		causal_sort_u64(x->key, x->tv2, n, x->tk, x->tv);
		for (uint32_t i = 0; i < n; i++) { /* permute out and tag through tv */
			x->tv[i] = x->out[x->tv2[i]];
			x->tk[i] = x->tag[x->tv2[i]];
		}
		for (uint32_t i = 0; i < n; i++) {
			x->out[i] = x->tv[i];
			x->tag[i] = (uint32_t)x->tk[i];
		}
	}
	find_owners(g, x, start, n);
}

static void scratch_free(track_scratch *x)
{
	gt_big_free(x->b), gt_big_free(x->e), gt_big_free(x->span), gt_big_free(x->ord), gt_big_free(x->out), gt_big_free(x->tag), gt_big_free(x->time);
	gt_big_free(x->key), gt_big_free(x->tk), gt_big_free(x->tv), gt_big_free(x->tv2), gt_big_free(x->stack), gt_big_free(x->closed), gt_big_free(x->next);
}

static void *chain_range(void *arg)
{
	chain_job *j = arg;
	causal_graph *g = j->g;
	uint32_t most = 0; /* points of the largest track: spans are fewer */
	for (uint32_t k = j->begin; k < j->end; k++) {
		uint32_t n = g->chain_start[k + 1] - g->chain_start[k];
		most = n > most ? n : most;
	}
	track_scratch x = {alloc(most, 8), alloc(most, 8), alloc(most, 4), alloc(most, 4), alloc(most, 4),
			   alloc(most, 4), alloc(most, 8), alloc(most, 8), alloc(most, 8), alloc(most, 4),
			   alloc(most, 4), alloc(most, 4), alloc(most, 1), alloc(most, 4)};
	j->rc = x.b && x.e && x.span && x.ord && x.out && x.tag && x.time && x.key && x.tk && x.tv && x.tv2 &&
			x.stack && x.closed && x.next
		? 0
		: -1;
	for (uint32_t k = j->begin; k < j->end && j->rc == 0; k++)
		build_chain(g, j->track_spans + j->track_first[k], j->track_first[k + 1] - j->track_first[k], k, &x);
	scratch_free(&x);
	return NULL;
}

static int make_chains(causal_graph *g, const uint32_t *local_track, unsigned threads, gt_error *err)
{
	uint32_t *track_first = gt_big_calloc((size_t)g->tracks + 1, sizeof *track_first);
	uint32_t *track_spans = alloc(g->nspans, sizeof *track_spans);
	uint32_t *fill = alloc(g->tracks, sizeof *fill);
	g->chain = alloc(g->n, sizeof *g->chain);
	g->chain_start = gt_big_calloc((size_t)g->tracks + 1, sizeof *g->chain_start);
	g->work = alloc(g->n, sizeof *g->work);
	g->owner_in = alloc(g->n, sizeof *g->owner_in);
	int rc = -1;
	if (!track_first || !track_spans || !fill || !g->chain || !g->chain_start || !g->work || !g->owner_in)
		goto done;
	for (uint32_t l = 0; l < g->nspans; l++) {
		track_first[local_track[l] + 1]++;
		g->chain_start[local_track[l] + 1] += g->first_point[l + 1] - g->first_point[l];
	}
	for (uint32_t k = 0; k < g->tracks; k++) {
		track_first[k + 1] += track_first[k];
		g->chain_start[k + 1] += g->chain_start[k];
	}
	memcpy(fill, track_first, (size_t)g->tracks * sizeof *fill);
	for (uint32_t l = 0; l < g->nspans; l++)
		track_spans[fill[local_track[l]]++] = l;
	/* tracks are independent: ranges of them, of about equal points */
	unsigned k = threads > 1 && g->n >= 65536 ? threads : 1;
	k = k > CAUSAL_MAX_THREADS ? CAUSAL_MAX_THREADS : k;
	chain_job jobs[CAUSAL_MAX_THREADS];
	uint32_t tr = 0;
	for (unsigned j = 0; j < k; j++) {
		uint64_t share = (uint64_t)g->n * (j + 1) / k;
		uint32_t begin = tr;
		while (tr < g->tracks && (j + 1 == k || g->chain_start[tr] < share))
			tr++;
		jobs[j] = (chain_job){g, track_spans, track_first, begin, tr, -1};
	}
	causal_run_jobs(chain_range, jobs, sizeof *jobs, k);
	rc = 0;
	for (unsigned j = 0; j < k; j++)
		rc |= jobs[j].rc;
done:
	gt_big_free(track_first), gt_big_free(track_spans), gt_big_free(fill);
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory for a window's %u chains", g->tracks) : 0;
}

/* --- cross edges ------------------------------------------------------ */

/* The point a flow leaves from: B or E of its source when the departure is
 * at (or clamped to) an end, else the departure point of that time. */
static uint32_t departure_point(const causal_trace *t, const causal_graph *g, uint32_t flow)
{
	uint32_t l = t->local_of[t->m->flows[flow].src];
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

static int make_cross_edges(const causal_trace *t, const window_edges *e, causal_graph *g, gt_error *err)
{
	g->m = e->nflows + e->nwaits;
	g->edge_src = alloc(g->m, sizeof *g->edge_src);
	g->edge_dst = alloc(g->m, sizeof *g->edge_dst);
	g->edge_kind = alloc(g->m, sizeof *g->edge_kind);
	g->edge_ref = alloc(g->m, sizeof *g->edge_ref);
	if (!g->edge_src || !g->edge_dst || !g->edge_kind || !g->edge_ref)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's %u edges", g->m);
	uint32_t k = 0;
	for (uint32_t i = 0; i < e->nflows; i++, k++) {
		g->edge_src[k] = departure_point(t, g, e->flows[i]);
		g->edge_dst[k] = g->first_point[t->local_of[t->m->flows[e->flows[i]].dst]];
		g->edge_kind[k] = GT_CPM_EDGE_FLOW;
		g->edge_ref[k] = e->flows[i];
	}
	for (uint32_t i = 0; i < e->nwaits; i++, k++) {
		g->edge_src[k] = causal_graph_e(g, t->local_of[e->wait_k[i]]);
		g->edge_dst[k] = causal_graph_e(g, t->local_of[e->wait_w[i]]);
		g->edge_kind[k] = GT_CPM_EDGE_WAIT;
		g->edge_ref[k] = e->wait_w[i];
	}
	return 0;
}

int causal_graph_build(const causal_trace *t, uint32_t w, unsigned threads, causal_graph *g,
		       gt_causal_window *win, gt_error *err)
{
	memset(g, 0, sizeof *g);
	window_edges e = {0};
	uint32_t *local_track = NULL;
	int64_t *dep_time = NULL;
	int rc = find_edges(t, w, win, &e, err);
	if (rc == 0)
		rc = choose_spans(t, w, &e, g, &local_track, win, err);
	if (rc == 0)
		rc = make_points(t, &e, g, &dep_time, err);
	gt_big_free(dep_time);
	if (rc == 0)
		rc = make_chains(g, local_track, threads, err);
	if (rc == 0)
		rc = make_cross_edges(t, &e, g, err);
	gt_big_free(local_track);
	if (rc == 0) {
		win->points = g->n;
		win->spans = g->nspans;
		win->tracks = g->tracks;
		win->chain_edges = g->n - g->tracks;
		win->flow_edges = e.nflows;
		win->wait_edges = e.nwaits;
		win->wall_ns = g->last_time - g->first_time;
	}
	window_edges_free(&e);
	if (rc < 0)
		causal_graph_free(g);
	return rc;
}
