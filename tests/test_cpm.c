/* Binding and CPM latest times (cpm.h): hand-built graphs for each rule,
 * malformed graphs, property tests of the host reference against brute
 * force (candidate enumeration for binding, Bellman-Ford relaxation from T
 * for float) on random graphs with many equal times and zero-gap cycles,
 * and every OpenCL device against the host reference, byte for byte, on
 * all of those and on random graphs up to about 1M points. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "causal/causal_internal.h"
#include "causal/cpm.h"
#include "testutil.h"

#define R GT_CP_ROOT
#define NONE GT_CP_NONE
#define CHAIN GT_CPM_EDGE_CHAIN
#define FLOW GT_CPM_EDGE_FLOW
#define WAIT GT_CPM_EDGE_WAIT

/* --- graphs ------------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	return gt_splitmix64(&rng_state);
}

/* A graph owning its arrays; g points into them. */
typedef struct {
	gt_cpm_graph g;
	int64_t *time, *horizon; /* horizon: NULL, or per chain */
	uint32_t *chain, *chain_start, *edge_src, *edge_dst;
	uint8_t *work, *edge_kind;
} graph;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	ck_assert(p);
	return p;
}

static graph graph_new(uint32_t n, uint32_t tracks, uint32_t m)
{
	graph a = {0};
	a.time = xcalloc(n, sizeof *a.time);
	a.chain = xcalloc(n, sizeof *a.chain);
	a.work = xcalloc(n, 1);
	a.chain_start = xcalloc((size_t)tracks + 1, sizeof *a.chain_start);
	a.edge_src = xcalloc(m, sizeof *a.edge_src);
	a.edge_dst = xcalloc(m, sizeof *a.edge_dst);
	a.edge_kind = xcalloc(m, 1);
	a.g = (gt_cpm_graph){.n = n, .time = a.time, .tracks = tracks, .chain = a.chain,
			     .chain_start = a.chain_start, .work = a.work, .m = m, .edge_src = a.edge_src,
			     .edge_dst = a.edge_dst, .edge_kind = a.edge_kind};
	return a;
}

static void graph_free(graph *a)
{
	free(a->time);
	free(a->chain);
	free(a->work);
	free(a->chain_start);
	free(a->edge_src);
	free(a->edge_dst);
	free(a->edge_kind);
	free(a->horizon);
}

/* Hand-built graphs: tracks as strings of point ids separated by '|' in
 * chain order, with a '*' before a point whose chain edge from its
 * predecessor is work ("0 *1 2 | 3 4": 0->1 work, 1->2 idle, 3->4 idle). */
typedef struct {
	uint32_t src, dst;
	uint8_t kind;
} hand_edge;

static graph hand_graph(const int64_t *time, uint32_t n, const char *tracks, const hand_edge *edges,
			uint32_t m, int64_t horizon)
{
	uint32_t ntracks = 1;
	for (const char *c = tracks; *c; c++)
		ntracks += *c == '|';
	graph a = graph_new(n, ntracks, m);
	uint32_t pos = 0, k = 0;
	const char *c = tracks;
	while (*c) {
		if (*c == '|') {
			a.chain_start[++k] = pos;
			c++;
		} else if (*c == '*' || (*c >= '0' && *c <= '9')) {
			bool work = *c == '*';
			char *end;
			a.chain[pos] = (uint32_t)strtoul(c + work, &end, 10);
			if (work)
				a.work[pos - 1] = 1;
			pos++;
			c = end;
		} else {
			c++;
		}
	}
	a.chain_start[ntracks] = pos;
	ck_assert_uint_eq(pos, n);
	memcpy(a.time, time, n * sizeof *time);
	for (uint32_t e = 0; e < m; e++) {
		a.edge_src[e] = edges[e].src;
		a.edge_dst[e] = edges[e].dst;
		a.edge_kind[e] = edges[e].kind;
	}
	a.g.horizon = horizon;
	return a;
}

/* Random graphs: points spread over tracks, times from a small range so
 * that many are equal, point ids shuffled, random cross edges forward in
 * time (equal times in either direction: zero-gap cycles). */
static graph random_graph(uint32_t n, uint32_t tracks, uint32_t m, uint64_t time_range, unsigned work_pct)
{
	graph a = graph_new(n, tracks, m);
	uint32_t *perm = xcalloc(n, sizeof *perm);
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(rnd() % i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	/* Track sizes: random cut points. */
	for (uint32_t k = 1; k < tracks; k++)
		a.chain_start[k] = (uint32_t)(rnd() % ((uint64_t)n + 1));
	a.chain_start[tracks] = n;
	for (uint32_t k = 1; k < tracks; k++) /* insertion sort: tracks are few */
		for (uint32_t j = k; j > 1 && a.chain_start[j - 1] > a.chain_start[j]; j--) {
			uint32_t t = a.chain_start[j];
			a.chain_start[j] = a.chain_start[j - 1];
			a.chain_start[j - 1] = t;
		}
	for (uint32_t k = 0; k < tracks; k++) {
		int64_t t = (int64_t)(rnd() % (time_range + 1));
		for (uint32_t i = a.chain_start[k]; i < a.chain_start[k + 1]; i++) {
			uint32_t p = perm[i];
			a.chain[i] = p;
			t += rnd() % 3 ? 0 : (int64_t)(rnd() % (time_range / 8 + 2));
			a.time[p] = t;
			a.work[i] = rnd() % 100 < work_pct;
		}
	}
	for (uint32_t e = 0; e < m; e++) {
		uint32_t s = (uint32_t)(rnd() % n), d = (uint32_t)(rnd() % n);
		if (s == d)
			d = (d + 1) % n;
		if (a.time[s] > a.time[d]) {
			uint32_t t = s;
			s = d;
			d = t;
		}
		a.edge_src[e] = s;
		a.edge_dst[e] = d;
		a.edge_kind[e] = rnd() & 1 ? FLOW : WAIT;
	}
	int64_t latest = 0;
	for (uint32_t i = 0; i < n; i++)
		latest = a.time[i] > latest ? a.time[i] : latest;
	a.g.horizon = latest + (int64_t)(rnd() % 3);
	free(perm);
	return a;
}

/* --- oracles ------------------------------------------------------------------ */

typedef struct {
	uint32_t *parent, *edge;
	int64_t *gap;
	uint8_t *kind;
} binding_store;

static gt_cpm_binding binding_new(uint32_t n, binding_store *b)
{
	b->parent = xcalloc(n, sizeof *b->parent);
	b->edge = xcalloc(n, sizeof *b->edge);
	b->gap = xcalloc(n, sizeof *b->gap);
	b->kind = xcalloc(n, 1);
	memset(b->parent, 0x5a, (n ? n : 1) * sizeof *b->parent);
	return (gt_cpm_binding){b->parent, b->gap, b->kind, b->edge};
}

static void binding_free(binding_store *b)
{
	free(b->parent);
	free(b->edge);
	free(b->gap);
	free(b->kind);
}

/* A candidate incoming edge, ranked by the rule's key. */
typedef struct {
	int64_t src_time;
	uint8_t kind;
	uint32_t src, edge;
} candidate;

static bool ranks_before(candidate a, candidate b)
{
	if (a.src_time != b.src_time)
		return a.src_time > b.src_time;
	if (a.kind != b.kind)
		return a.kind < b.kind;
	if (a.src != b.src)
		return a.src < b.src;
	return a.edge < b.edge;
}

/* Binding by listing every candidate of every point (O(n m)). */
static void brute_bind(const gt_cpm_graph *g, uint32_t v, gt_cpm_binding *out)
{
	candidate best = {0}, c;
	bool any = false;
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t i = g->chain_start[k] + 1; i < g->chain_start[k + 1]; i++)
			if (g->chain[i] == v) {
				best = (candidate){g->time[g->chain[i - 1]], CHAIN, g->chain[i - 1], NONE};
				any = true;
			}
	for (uint32_t e = 0; e < g->m; e++) {
		if (g->edge_dst[e] != v)
			continue;
		c = (candidate){g->time[g->edge_src[e]], g->edge_kind[e], g->edge_src[e], e};
		if (!any || ranks_before(c, best))
			best = c;
		any = true;
	}
	out->parent[v] = any ? best.src : R;
	out->kind[v] = any ? best.kind : GT_CPM_EDGE_NONE;
	out->edge[v] = any ? best.edge : NONE;
	out->gap[v] = any ? g->time[v] - best.src_time : 0;
}

/* LT by relaxing every edge from LT = T until nothing changes: the
 * greatest fixed point at most T. (Chain edges go backward along each
 * track, so that a sweep carries a value down a whole track.) */
static void brute_float(const gt_cpm_graph *g, int64_t *lt)
{
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t i = g->chain_start[k]; i < g->chain_start[k + 1]; i++)
			lt[g->chain[i]] = gt_cpm_horizon(g, k);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t k = 0; k < g->tracks; k++)
			for (uint32_t i = g->chain_start[k + 1]; i-- > g->chain_start[k] + 1;) {
				uint32_t v = g->chain[i - 1], w = g->chain[i];
				int64_t bound = lt[w] - (g->work[i - 1] ? g->time[w] - g->time[v] : 0);
				if (bound < lt[v]) {
					lt[v] = bound;
					changed = true;
				}
			}
		for (uint32_t e = 0; e < g->m; e++)
			if (lt[g->edge_dst[e]] < lt[g->edge_src[e]]) {
				lt[g->edge_src[e]] = lt[g->edge_dst[e]];
				changed = true;
			}
	}
}

static void assert_binding_equal(const gt_cpm_binding *a, const gt_cpm_binding *b, uint32_t n, const char *what)
{
	for (uint32_t v = 0; v < n; v++)
		if (a->parent[v] != b->parent[v] || a->gap[v] != b->gap[v] || a->kind[v] != b->kind[v] ||
		    a->edge[v] != b->edge[v])
			ck_abort_msg("%s: point %u bound to %u/%u gap %" PRId64 "/%" PRId64 " kind %u/%u edge %u/%u",
				     what, v, a->parent[v], b->parent[v], a->gap[v], b->gap[v], a->kind[v], b->kind[v],
				     a->edge[v], b->edge[v]);
}

static void assert_lt_equal(const int64_t *a, const int64_t *b, uint32_t n, const char *what)
{
	for (uint32_t v = 0; v < n; v++)
		if (a[v] != b[v])
			ck_abort_msg("%s: LT of point %u is %" PRId64 ", expected %" PRId64, what, v, a[v], b[v]);
}


/* The float's plans: as the library picks (pieces from 64k points on), in
 * pieces of many small cuts with narrow frontiers, and in one piece. */
enum { PLANS = 3 };
static const char *const plan_names[PLANS] = {"auto", "pieces", "one piece"};

static void plan_env(int plan)
{
	unsetenv("GPUTRACE_FLOAT_CUTS");
	unsetenv("GPUTRACE_FLOAT_WIDTH");
	if (plan == 1) {
		setenv("GPUTRACE_FLOAT_CUTS", "200", 1);
		setenv("GPUTRACE_FLOAT_WIDTH", "4", 1);
	} else if (plan == 2) {
		setenv("GPUTRACE_FLOAT_CUTS", "0", 1);
	}
}

/* Every device's binding and LT equal the host's, byte for byte; the
 * outputs start as garbage so that a missed write shows. Returns the last
 * device's rounds. */
static uint32_t compare_devices_plans(const gt_cpm_graph *g, const char *what, uint32_t *plan_rounds)
{
	gt_error err = {0};
	binding_store hs, ds;
	gt_cpm_binding host = binding_new(g->n, &hs), dev = binding_new(g->n, &ds);
	int64_t *lt = xcalloc(g->n, sizeof *lt), *lt_dev = xcalloc(g->n, sizeof *lt);
	ck_assert_msg(gt_cpm_bind_host(g, &host, &err) == 0, "%s: %s", what, err.msg);
	ck_assert_msg(gt_cpm_float_host(g, lt, NULL, &err) == 0, "%s: %s", what, err.msg);
	/* the cross edges on threads: the same binding */
	for (unsigned threads = 2; threads <= 5; threads += 3) {
		binding_store ts;
		gt_cpm_binding t = binding_new(g->n, &ts);
		ck_assert_msg(gt_cpm_bind_host_threads(g, &t, threads, &err) == 0, "%s: %s", what, err.msg);
		size_t n = g->n ? g->n : 1;
		ck_assert_msg(memcmp(t.parent, host.parent, n * sizeof *t.parent) == 0 &&
				      memcmp(t.kind, host.kind, n) == 0 && memcmp(t.edge, host.edge, n * sizeof *t.edge) == 0 &&
				      memcmp(t.gap, host.gap, n * sizeof *t.gap) == 0,
			      "%s: the binding on %u threads differs", what, threads);
		binding_free(&ts);
	}
	uint32_t rounds = 0;
	int ndev = gt_test_device_count();
	for (int d = 0; d < ndev; d++) {
		char spec[16], label[256];
		snprintf(spec, sizeof spec, "%d", d);
		gt_cl *cl;
		ck_assert_msg(gt_cl_open(&cl, spec, NULL, 0, &err) == 0, "%s", err.msg);
		snprintf(label, sizeof label, "%s on %s", what, gt_cl_device_name(cl));
		memset(ds.gap, 0x5a, (g->n ? g->n : 1) * sizeof *ds.gap);
		memset(ds.edge, 0x5a, (g->n ? g->n : 1) * sizeof *ds.edge);
		memset(lt_dev, 0x5a, (g->n ? g->n : 1) * sizeof *lt_dev);
		gt_cpm_cl_stats st = {0};
		gt_cpm_float_stats fs = {0};
		ck_assert_msg(gt_cpm_bind_cl(cl, g, &dev, &st, &err) == 0, "%s: %s", label, err.msg);
		ck_assert(g->n == 0 || (st.launches == (g->m ? 3u : 2u) && st.bytes_moved > 0)); /* link, mark, bind */
		assert_binding_equal(&dev, &host, g->n, label);
		for (int plan = 0; plan < PLANS; plan++) {
			plan_env(plan);
			memset(lt_dev, 0x5a, (g->n ? g->n : 1) * sizeof *lt_dev);
			snprintf(label, sizeof label, "%s on %s, %s", what, gt_cl_device_name(cl), plan_names[plan]);
			ck_assert_msg(gt_cpm_float_cl(cl, g, lt_dev, &fs, &st, &err) == 0, "%s: %s", label, err.msg);
			assert_lt_equal(lt_dev, lt, g->n, label);
			/* setup, scatter, 3 a round; in pieces a bounds a run (tails,
			 * each slot, the last), a gather a run at the frontiers, and
			 * the walk over the cuts */
			uint32_t pieces = fs.cuts ? fs.width + 2 : 0, gathers = st.launches - 3 - 3 * fs.rounds - pieces;
			ck_assert_msg(g->n == 0 || (fs.rounds >= 1 && (gathers == 0 || (fs.cuts && gathers == fs.width + 2))),
				      "%s: %u rounds, %u launches, %u cuts", label, fs.rounds, st.launches, fs.cuts);
			ck_assert(fs.rounds <= (g->m + 2) * (pieces ? pieces : 1));
			if (plan == 0)
				rounds = fs.rounds;
			if (plan_rounds)
				plan_rounds[plan] = fs.rounds;
		}
		plan_env(0);
		gt_cl_close(cl);
	}
	free(lt);
	free(lt_dev);
	binding_free(&hs);
	binding_free(&ds);
	return rounds;
}

static uint32_t compare_devices(const gt_cpm_graph *g, const char *what)
{
	return compare_devices_plans(g, what, NULL);
}

/* The lowest T of a chain with points. */
static int64_t lowest_horizon(const gt_cpm_graph *g)
{
	int64_t t = INT64_MAX;
	for (uint32_t k = 0; k < g->tracks; k++)
		if (g->chain_start[k] < g->chain_start[k + 1] && gt_cpm_horizon(g, k) < t)
			t = gt_cpm_horizon(g, k);
	return t;
}

/* Host results, checked against the oracles (those are slow: small n). */
static void check_host(const graph *a, const char *what)
{
	const gt_cpm_graph *g = &a->g;
	gt_error err = {0};
	binding_store hs, bs;
	gt_cpm_binding host = binding_new(g->n, &hs), brute = binding_new(g->n, &bs);
	ck_assert_msg(gt_cpm_bind_host(g, &host, &err) == 0, "%s: %s", what, err.msg);
	for (uint32_t v = 0; v < g->n; v++)
		brute_bind(g, v, &brute);
	assert_binding_equal(&host, &brute, g->n, what);
	int64_t *lt = xcalloc(g->n, sizeof *lt), *lt_brute = xcalloc(g->n, sizeof *lt);
	gt_cpm_float_stats fs = {0};
	ck_assert_msg(gt_cpm_float_host(g, lt, &fs, &err) == 0, "%s: %s", what, err.msg);
	ck_assert_uint_eq(fs.rounds, 1);
	brute_float(g, lt_brute);
	assert_lt_equal(lt, lt_brute, g->n, what);
	int64_t lowest = lowest_horizon(g), latest = INT64_MIN;
	for (uint32_t v = 0; v < g->n; v++)
		latest = g->time[v] > latest ? g->time[v] : latest;
	for (uint32_t v = 0; v < g->n; v++)
		ck_assert(lowest < latest || lt[v] >= g->time[v]);
	compare_devices(g, what);
	free(lt);
	free(lt_brute);
	binding_free(&hs);
	binding_free(&bs);
}

/* --- hand-built graphs -------------------------------------------------------- */

/* Runs both steps on a hand graph and keeps the results for the caller. */
typedef struct {
	binding_store bs;
	gt_cpm_binding b;
	int64_t lt[32];
} hand_result;

static void run_hand(const graph *a, hand_result *r)
{
	gt_error err = {0};
	ck_assert(a->g.n <= 32);
	r->b = binding_new(a->g.n, &r->bs);
	ck_assert_msg(gt_cpm_bind_host(&a->g, &r->b, &err) == 0, "%s", err.msg);
	ck_assert_msg(gt_cpm_float_host(&a->g, r->lt, NULL, &err) == 0, "%s", err.msg);
	check_host(a, "hand");
}

static void expect_bound(const hand_result *r, uint32_t v, uint32_t parent, uint8_t kind, uint32_t edge, int64_t gap)
{
	ck_assert_msg(r->b.parent[v] == parent && r->b.kind[v] == kind && r->b.edge[v] == edge && r->b.gap[v] == gap,
		      "point %u: parent %u kind %u edge %u gap %" PRId64 ", expected %u %u %u %" PRId64, v,
		      r->b.parent[v], r->b.kind[v], r->b.edge[v], r->b.gap[v], parent, kind, edge, gap);
}

START_TEST(bind_latest_source_and_ties)
{
	/* Track 0: 0(0) 1(10) 2(20) 3(30); track 1: 4(5) 5(10) 6(20); track 2:
	 * 7(10) 8(40). Point 2's candidates: chain from 1 (10), flow from 5
	 * (10), wait from 7 (10), flow from 4 (5): the chain wins the tie.
	 * Point 6: chain from 5 (10), wait from 7 (10), flow from 1 (10): the
	 * chain, despite the lower source id of the flow. Point 8: chain from
	 * 7 (10), flows from 2 and 6 (20), wait from 3 (30): the latest
	 * source, the wait, wins. Point 3: flows from 5 and 1 at 10 lose to
	 * the chain from 2 at 20. */
	static const int64_t time[] = {0, 10, 20, 30, 5, 10, 20, 10, 40};
	static const hand_edge edges[] = {{5, 2, FLOW}, {7, 2, WAIT}, {4, 2, FLOW}, {7, 6, WAIT}, {1, 6, FLOW},
					  {2, 8, FLOW}, {6, 8, FLOW}, {3, 8, WAIT}, {5, 3, FLOW}, {1, 3, FLOW}};
	graph a = hand_graph(time, 9, "0 1 2 3 | 4 5 6 | 7 8", edges, 10, 40);
	hand_result r;
	run_hand(&a, &r);
	expect_bound(&r, 0, R, GT_CPM_EDGE_NONE, NONE, 0);
	expect_bound(&r, 4, R, GT_CPM_EDGE_NONE, NONE, 0);
	expect_bound(&r, 7, R, GT_CPM_EDGE_NONE, NONE, 0);
	expect_bound(&r, 2, 1, CHAIN, NONE, 10);
	expect_bound(&r, 6, 5, CHAIN, NONE, 10);
	expect_bound(&r, 8, 3, WAIT, 7, 10);
	expect_bound(&r, 3, 2, CHAIN, NONE, 10);
	binding_free(&r.bs);
	graph_free(&a);
}
END_TEST

START_TEST(bind_flow_before_wait_then_lowest_source)
{
	/* Point 0 (track 0, alone, time 10) receives: wait from 1 (10), flow
	 * from 3 (10), flow from 2 (10), and a wait from 4 (10). Flow before
	 * wait, then the lowest source: 2 (edge 2). Point 5 (time 10) receives
	 * waits only, from 4 and 3 (both 10): the lowest source, 3. Point 6
	 * gets two identical flows from 1: the lower edge index. */
	static const int64_t time[] = {10, 10, 10, 10, 10, 10, 12};
	static const hand_edge edges[] = {{1, 0, WAIT}, {3, 0, FLOW}, {2, 0, FLOW}, {4, 0, WAIT},
					  {4, 5, WAIT}, {3, 5, WAIT}, {1, 6, FLOW}, {1, 6, FLOW}};
	graph a = hand_graph(time, 7, "0 | 1 | 2 | 3 | 4 | 5 | 6", edges, 8, 12);
	hand_result r;
	run_hand(&a, &r);
	expect_bound(&r, 0, 2, FLOW, 2, 0);
	expect_bound(&r, 5, 3, WAIT, 5, 0);
	expect_bound(&r, 6, 1, FLOW, 6, 2);
	expect_bound(&r, 1, R, GT_CPM_EDGE_NONE, NONE, 0);
	binding_free(&r.bs);
	graph_free(&a);
}
END_TEST

START_TEST(float_work_and_idle_lags)
{
	/* Track 0: 0(0) -work- 1(10) -idle- 2(30) -work- 3(35); track 1: 4(12)
	 * -work- 5(50). Flow 1 -> 4. T = 60.
	 * LT(3) = 60, LT(2) = 55, LT(1) = min(55 idle, LT(4)) ; LT(5) = 60,
	 * LT(4) = 60 - 38 = 22, so LT(1) = 22 and LT(0) = 22 - 10 = 12. */
	static const int64_t time[] = {0, 10, 30, 35, 12, 50};
	static const hand_edge edges[] = {{1, 4, FLOW}};
	graph a = hand_graph(time, 6, "0 *1 2 *3 | 4 *5", edges, 1, 60);
	hand_result r;
	run_hand(&a, &r);
	static const int64_t want[] = {12, 22, 55, 60, 22, 60};
	for (int v = 0; v < 6; v++)
		ck_assert_msg(r.lt[v] == want[v], "LT(%d) = %" PRId64 ", expected %" PRId64, v, r.lt[v], want[v]);
	binding_free(&r.bs);
	graph_free(&a);
}
END_TEST

START_TEST(float_several_cross_edges_out)
{
	/* Point 0 (time 0) has flows to 1 (track 1, 5 -work- 2 at 25) and to
	 * 3 (track 2, 8 -work- 4 at 10), and its own chain: 0 -work- 5 (1).
	 * T = 30. LT(1) = 30 - 20 = 10, LT(3) = 28, LT(5) = 30, chain bound
	 * 29: LT(0) = 10. */
	static const int64_t time[] = {0, 5, 25, 8, 10, 1};
	static const hand_edge edges[] = {{0, 3, FLOW}, {0, 1, WAIT}};
	graph a = hand_graph(time, 6, "0 *5 | 1 *2 | 3 *4", edges, 2, 30);
	hand_result r;
	run_hand(&a, &r);
	ck_assert(r.lt[0] == 10 && r.lt[1] == 10 && r.lt[3] == 28 && r.lt[5] == 30);
	binding_free(&r.bs);
	graph_free(&a);
}
END_TEST

START_TEST(float_zero_gap_cycle)
{
	/* Points 0, 1 (track 0) and 2, 3 (track 1) all at time 10, 4 at 20 on
	 * track 1 after 3 (work), 5 at 12 on track 2. Flow 1 -> 2, wait 3 -> 0:
	 * a zero-gap cycle 0 -> 1 -> 2 -> 3 -> 0 with an exit 3 -work- 4 (LT
	 * 50 - 10 = 40) and a flow 0 -> 5 (LT 50). The greatest fixed point
	 * gives all four 40; 5 and 4 keep 50. The binding closes the cycle
	 * 3 -> 0 -> 1 -> 2 -> 3 with zero gaps. */
	static const int64_t time[] = {10, 10, 10, 10, 20, 12};
	static const hand_edge edges[] = {{1, 2, FLOW}, {3, 0, WAIT}, {0, 5, FLOW}};
	graph a = hand_graph(time, 6, "0 1 | 2 3 *4 | 5", edges, 3, 50);
	hand_result r;
	run_hand(&a, &r);
	for (int v = 0; v < 4; v++)
		ck_assert_msg(r.lt[v] == 40, "LT(%d) = %" PRId64, v, r.lt[v]);
	ck_assert(r.lt[4] == 50 && r.lt[5] == 50);
	expect_bound(&r, 0, 3, WAIT, 1, 0);
	expect_bound(&r, 1, 0, CHAIN, NONE, 0);
	expect_bound(&r, 2, 1, FLOW, 0, 0);
	expect_bound(&r, 3, 2, CHAIN, NONE, 0);
	expect_bound(&r, 4, 3, CHAIN, NONE, 10);
	expect_bound(&r, 5, 0, FLOW, 2, 2);
	binding_free(&r.bs);
	graph_free(&a);
	/* A closed cycle with no way out: bounded by T. */
	static const int64_t time2[] = {7, 7};
	static const hand_edge edges2[] = {{0, 1, FLOW}, {1, 0, WAIT}};
	a = hand_graph(time2, 2, "0 | 1", edges2, 2, 9);
	run_hand(&a, &r);
	ck_assert(r.lt[0] == 9 && r.lt[1] == 9);
	binding_free(&r.bs);
	graph_free(&a);
}
END_TEST

START_TEST(lonely_point_and_empty_graph)
{
	static const int64_t time[] = {3};
	graph a = hand_graph(time, 1, "0", NULL, 0, 8);
	hand_result r;
	run_hand(&a, &r);
	expect_bound(&r, 0, R, GT_CPM_EDGE_NONE, NONE, 0);
	ck_assert(r.lt[0] == 8);
	binding_free(&r.bs);
	graph_free(&a);
	/* Empty: no points, no tracks or an empty track, NULL arrays. */
	gt_error err = {0};
	gt_cpm_graph empty = {0};
	gt_cpm_binding none = {0};
	ck_assert(gt_cpm_check(&empty, &err) == 0);
	ck_assert(gt_cpm_bind_host(&empty, &none, &err) == 0);
	ck_assert(gt_cpm_float_host(&empty, NULL, NULL, &err) == 0);
	static const uint32_t starts[] = {0, 0, 0};
	gt_cpm_graph empty_tracks = {.tracks = 2, .chain_start = starts};
	ck_assert(gt_cpm_bind_host(&empty_tracks, &none, &err) == 0);
	ck_assert(gt_cpm_float_host(&empty_tracks, NULL, NULL, &err) == 0);
}
END_TEST

/* Each malformation of a valid graph must be rejected with GT_EINPUT by
 * the check and by both steps. */
static void expect_rejected(graph *a, const char *what, const char *needle)
{
	gt_error err = {0};
	ck_assert_msg(gt_cpm_check(&a->g, &err) < 0, "%s accepted", what);
	ck_assert_int_eq(err.status, GT_EINPUT);
	ck_assert_msg(strstr(err.msg, needle), "%s: message \"%s\"", what, err.msg);
	binding_store bs;
	gt_cpm_binding b = binding_new(a->g.n, &bs);
	int64_t lt[16];
	memset(&err, 0, sizeof err);
	ck_assert(gt_cpm_bind_host(&a->g, &b, &err) < 0 && err.status == GT_EINPUT);
	memset(&err, 0, sizeof err);
	ck_assert(gt_cpm_float_host(&a->g, lt, NULL, &err) < 0 && err.status == GT_EINPUT);
	binding_free(&bs);
}

static graph valid_graph(void)
{
	static const int64_t time[] = {0, 10, 20, 5, 15};
	static const hand_edge edges[] = {{0, 3, FLOW}, {4, 2, WAIT}};
	return hand_graph(time, 5, "0 *1 2 | 3 4", edges, 2, 20);
}

START_TEST(malformed_rejected)
{
	gt_error err = {0};
	graph a = valid_graph();
	ck_assert(gt_cpm_check(&a.g, &err) == 0);
	a.chain[1] = 0;
	expect_rejected(&a, "a repeated chain point", "twice");
	a.chain[1] = 7;
	expect_rejected(&a, "a chain point out of range", "not a point");
	graph_free(&a);

	a = valid_graph();
	a.chain_start[1] = 4;
	a.chain_start[2] = 3;
	expect_rejected(&a, "chain_start decreasing", "decreases");
	a.chain_start[1] = 3;
	a.chain_start[2] = 4;
	expect_rejected(&a, "chains short of n", "hold");
	a.chain_start[2] = 5;
	a.chain_start[0] = 1;
	expect_rejected(&a, "chain_start[0] not 0", "chain_start[0]");
	graph_free(&a);

	a = valid_graph();
	a.time[1] = 25;
	expect_rejected(&a, "time backward on a chain", "backward on track 0");
	graph_free(&a);

	a = valid_graph();
	a.work[0] = 2;
	expect_rejected(&a, "work not 0 or 1", "work");
	graph_free(&a);

	a = valid_graph();
	a.edge_src[1] = 2; /* 20 -> 20 is fine, 2 -> 3 (20 -> 5) is not */
	a.edge_dst[1] = 3;
	expect_rejected(&a, "a backward cross edge", "backward in time");
	a.edge_dst[1] = 2;
	expect_rejected(&a, "a self edge", "itself");
	a.edge_dst[1] = 5;
	expect_rejected(&a, "an edge target out of range", "outside");
	a.edge_dst[1] = 4;
	a.edge_src[1] = 99;
	expect_rejected(&a, "an edge source out of range", "outside");
	a.edge_src[1] = 3;
	a.edge_kind[1] = CHAIN;
	expect_rejected(&a, "a cross edge of kind chain", "kind");
	a.edge_kind[1] = 0;
	expect_rejected(&a, "a cross edge of kind none", "kind");
	graph_free(&a);

	a = valid_graph();
	a.time[0] = INT64_MIN;
	a.time[3] = INT64_MIN;
	expect_rejected(&a, "times spanning 2^63", "span");
	graph_free(&a);

	a = valid_graph();
	a.g.time = NULL;
	expect_rejected(&a, "no time array", "no time");
	graph_free(&a);

	/* The float's range: the horizon far below the times. Binding still
	 * works. */
	a = valid_graph();
	a.g.horizon = INT64_MIN + 30;
	binding_store bs;
	gt_cpm_binding b = binding_new(a.g.n, &bs);
	int64_t lt[5];
	ck_assert(gt_cpm_check(&a.g, &err) == 0 && gt_cpm_bind_host(&a.g, &b, &err) == 0);
	ck_assert(gt_cpm_float_host(&a.g, lt, NULL, &err) < 0 && err.status == GT_EINPUT);
	ck_assert_msg(strstr(err.msg, "horizon"), "%s", err.msg);
	memset(&err, 0, sizeof err);
	a.g.horizon = INT64_MIN + 40; /* exactly INT64_MIN + 2 * span: allowed */
	ck_assert_msg(gt_cpm_float_host(&a.g, lt, NULL, &err) == 0, "%s", err.msg);
	ck_assert(lt[0] == INT64_MIN + 30);
	binding_free(&bs);
	graph_free(&a);
}
END_TEST

START_TEST(float_horizon_per_chain)
{
	/* Track 0: 0(0) -work- 1(10); track 1: 2(10) -work- 3(20); flow 1 -> 2.
	 * T = (50, 30): LT(3) = 30, LT(2) = 20, LT(1) = min(50, 20), LT(0) = 10.
	 * T = (15, 30): LT(1) = min(15, 20) = 15, LT(0) = 5. */
	static const int64_t time[] = {0, 10, 10, 20};
	static const hand_edge edges[] = {{1, 2, FLOW}};
	static const int64_t t1[] = {50, 30}, t2[] = {15, 30}, want1[] = {10, 20, 20, 30}, want2[] = {5, 15, 20, 30};
	const int64_t *ts[] = {t1, t2}, *wants[] = {want1, want2};
	for (int c = 0; c < 2; c++) {
		graph a = hand_graph(time, 4, "0 *1 | 2 *3", edges, 1, 99);
		a.g.horizon_of_chain = ts[c];
		hand_result r;
		run_hand(&a, &r);
		for (int v = 0; v < 4; v++)
			ck_assert_msg(r.lt[v] == wants[c][v], "case %d: LT(%d) = %" PRId64, c, v, r.lt[v]);
		binding_free(&r.bs);
		graph_free(&a);
	}
	/* A chain's T too far below the times is rejected; an empty chain's
	 * T is not read. */
	static const uint32_t starts[] = {0, 0, 2};
	static const uint32_t chain[] = {0, 1};
	static const uint8_t work[] = {0, 0};
	static const int64_t two[] = {5, 9}, low[] = {INT64_MIN, 9}, bad[] = {9, INT64_MIN + 7};
	gt_cpm_graph g = {.n = 2, .time = two, .tracks = 2, .chain = chain, .chain_start = starts, .work = work,
			  .horizon_of_chain = low};
	int64_t lt[2];
	gt_error err = {0};
	ck_assert_msg(gt_cpm_float_host(&g, lt, NULL, &err) == 0 && lt[0] == 9 && lt[1] == 9, "%s", err.msg);
	g.horizon_of_chain = bad;
	ck_assert(gt_cpm_float_host(&g, lt, NULL, &err) < 0 && err.status == GT_EINPUT);
	ck_assert_msg(strstr(err.msg, "horizon"), "%s", err.msg);
}
END_TEST

/* The disjoint union of several graphs (ids, positions, tracks and edges
 * offset; each chain keeps its graph's T): each part's binding and LT are
 * the part's own, shifted. This is how the causal driver runs many
 * windows in one call. */
static graph graph_union(const graph *parts, uint32_t count)
{
	uint32_t n = 0, tracks = 0, m = 0;
	for (uint32_t i = 0; i < count; i++)
		n += parts[i].g.n, tracks += parts[i].g.tracks, m += parts[i].g.m;
	graph u = graph_new(n, tracks, m);
	u.horizon = xcalloc(tracks, sizeof *u.horizon);
	u.g.horizon_of_chain = u.horizon;
	u.g.horizon = INT64_MIN; /* not read */
	uint32_t pb = 0, tb = 0, eb = 0;
	for (uint32_t i = 0; i < count; i++) {
		const gt_cpm_graph *p = &parts[i].g;
		for (uint32_t v = 0; v < p->n; v++) {
			u.time[pb + v] = p->time[v];
			u.chain[pb + v] = p->chain[v] + pb;
			u.work[pb + v] = p->work[v];
		}
		for (uint32_t k = 0; k < p->tracks; k++) {
			u.chain_start[tb + k] = p->chain_start[k] + pb;
			u.horizon[tb + k] = gt_cpm_horizon(p, k);
		}
		for (uint32_t e = 0; e < p->m; e++) {
			u.edge_src[eb + e] = p->edge_src[e] + pb;
			u.edge_dst[eb + e] = p->edge_dst[e] + pb;
			u.edge_kind[eb + e] = p->edge_kind[e];
		}
		pb += p->n, tb += p->tracks, eb += p->m;
	}
	u.chain_start[tracks] = n;
	return u;
}

START_TEST(random_union_vs_parts)
{
	rng_state = 500 + (uint64_t)_i;
	enum { PARTS = 6 };
	graph parts[PARTS];
	for (uint32_t i = 0; i < PARTS; i++) {
		uint32_t n = 1 + (uint32_t)(rnd() % (_i ? 400 : 40)), tracks = 1 + (uint32_t)(rnd() % 6);
		parts[i] = random_graph(n, tracks, n > 1 ? (uint32_t)(rnd() % (n + 1)) : 0, rnd() % 2 ? 4 : 1000, 60);
		/* T far apart between parts: a leak across them would show */
		parts[i].g.horizon += (int64_t)(rnd() % 5) * 1000000;
	}
	graph u = graph_union(parts, PARTS);
	check_host(&u, "union");
	gt_error err = {0};
	binding_store us;
	gt_cpm_binding ub = binding_new(u.g.n, &us);
	int64_t *ult = xcalloc(u.g.n, sizeof *ult);
	ck_assert_msg(gt_cpm_bind_host(&u.g, &ub, &err) == 0 && gt_cpm_float_host(&u.g, ult, NULL, &err) == 0, "%s",
		      err.msg);
	uint32_t pb = 0, eb = 0;
	for (uint32_t i = 0; i < PARTS; i++) {
		const gt_cpm_graph *p = &parts[i].g;
		binding_store ps;
		gt_cpm_binding pbnd = binding_new(p->n, &ps);
		int64_t *plt = xcalloc(p->n, sizeof *plt);
		ck_assert(gt_cpm_bind_host(p, &pbnd, &err) == 0 && gt_cpm_float_host(p, plt, NULL, &err) == 0);
		for (uint32_t v = 0; v < p->n; v++) {
			uint32_t up = ub.parent[pb + v], ue = ub.edge[pb + v];
			ck_assert_uint_eq(up == R ? R : up - pb, pbnd.parent[v]);
			ck_assert_uint_eq(ue == NONE ? NONE : ue - eb, pbnd.edge[v]);
			ck_assert(ub.gap[pb + v] == pbnd.gap[v] && ub.kind[pb + v] == pbnd.kind[v]);
			ck_assert_msg(ult[pb + v] == plt[v], "part %u point %u: %" PRId64 " vs %" PRId64, i, v,
				      ult[pb + v], plt[v]);
		}
		free(plt);
		binding_free(&ps);
		pb += p->n, eb += p->m;
		graph_free(&parts[i]);
	}
	free(ult);
	binding_free(&us);
	graph_free(&u);
}
END_TEST

/* --- property tests ----------------------------------------------------------- */

START_TEST(random_small_vs_brute_force)
{
	rng_state = 100 + (uint64_t)_i;
	for (int rep = 0; rep < 40; rep++) {
		uint32_t n = 1 + (uint32_t)(rnd() % 60), tracks = 1 + (uint32_t)(rnd() % 8);
		uint32_t m = n > 1 ? (uint32_t)(rnd() % (2 * n + 1)) : 0;
		uint64_t range = rnd() % 2 ? 4 : 1000;
		graph a = random_graph(n, tracks, m, range, (unsigned)(rnd() % 101));
		char what[64];
		snprintf(what, sizeof what, "seed %d rep %d", _i, rep);
		check_host(&a, what);
		graph_free(&a);
	}
}
END_TEST

/* The float against relaxation on graphs large enough for the host's
 * sweeps to take several windows of point ids (ids shuffled across the
 * tracks, so cursors wait on windows and on each other). */
START_TEST(random_windows_vs_relaxation)
{
	rng_state = 400 + (uint64_t)_i;
	uint32_t n = 70000;
	graph a = random_graph(n, _i ? 40 : 3, _i == 2 ? n : n / 20, _i ? 30 : 100000, 70);
	gt_error err = {0};
	int64_t *lt = xcalloc(n, sizeof *lt), *want = xcalloc(n, sizeof *want);
	ck_assert_msg(gt_cpm_float_host(&a.g, lt, NULL, &err) == 0, "%s", err.msg);
	brute_float(&a.g, want);
	assert_lt_equal(lt, want, n, "windows");
	free(lt);
	free(want);
	graph_free(&a);
}
END_TEST

/* Larger graphs with a few equal times: still within brute force's reach. */
START_TEST(random_medium_vs_brute_force)
{
	rng_state = 200 + (uint64_t)_i;
	uint32_t n = 3000;
	graph a = random_graph(n, 1 + (uint32_t)_i * 7, n / 3, _i % 2 ? 50 : 1000000, 60);
	check_host(&a, "medium");
	graph_free(&a);
}
END_TEST

/* LT has to travel k cross edges: rounds = k + 2 (the last one changes
 * nothing). Track i holds p_i at time i alone, the last track p_k then
 * 100 ns of work; flows p_i -> p_{i+1}. */
START_TEST(device_rounds_follow_cross_hops)
{
	enum { K = 5 };
	graph a = graph_new(K + 2, K + 1, K);
	for (uint32_t i = 0; i <= K; i++) {
		a.chain_start[i] = i;
		a.chain[i] = i;
		a.time[i] = i;
	}
	a.chain[K + 1] = K + 1;
	a.time[K + 1] = K + 100;
	a.work[K] = 1;
	a.chain_start[K + 1] = K + 2;
	for (uint32_t e = 0; e < K; e++) {
		a.edge_src[e] = e;
		a.edge_dst[e] = e + 1;
		a.edge_kind[e] = FLOW;
	}
	a.g.horizon = 1000;
	check_host(&a, "rounds");
	uint32_t rounds = compare_devices(&a.g, "rounds");
	ck_assert(gt_test_device_count() == 0 || rounds == K + 2);
	graph_free(&a);
}
END_TEST

/* A training loop whose float alternates between the threads and the
 * stream at every step: the launch (CPU) -> kernel (GPU) flow, the kernel's
 * end -> the synchronize's end wait, the synchronize itself idle, so the
 * kernel bounds each launch. One piece needs two rounds a step; in pieces
 * the rounds follow the hardest block (cuts between steps cross the two
 * chains alone) and the results are the same. A third track idles across
 * every cut. */
START_TEST(device_pieces_cut_the_rounds)
{
	enum { STEPS = 1500 };
	uint32_t n = 6 * STEPS + 2, cpu = 4 * STEPS, gpu = 2 * STEPS;
	graph a = graph_new(n, 4, 2 * STEPS);
	for (uint32_t s = 0; s < STEPS; s++) {
		int64_t base = (int64_t)s * 1000;
		uint32_t p = 4 * s, k = cpu + 2 * s;
		const int64_t at[4] = {0, 10, 20, 600};
		for (int i = 0; i < 4; i++) {
			a.time[p + i] = base + at[i];
			a.chain[p + i] = p + (uint32_t)i;
		}
		a.work[p] = a.work[p + 1] = 1; /* then the idle synchronize */
		a.time[k] = base + 50;
		a.time[k + 1] = base + 500 + (int64_t)(s % 7);
		a.chain[k] = k;
		a.chain[k + 1] = k + 1;
		a.work[k] = 1;
		a.edge_src[2 * s] = p + 1;
		a.edge_dst[2 * s] = k;
		a.edge_kind[2 * s] = FLOW;
		a.edge_src[2 * s + 1] = k + 1;
		a.edge_dst[2 * s + 1] = p + 3;
		a.edge_kind[2 * s + 1] = WAIT;
	}
	a.time[n - 2] = 0;
	a.time[n - 1] = (int64_t)STEPS * 1000;
	a.chain[n - 2] = n - 2;
	a.chain[n - 1] = n - 1;
	/* track 0 is empty, its T unlike the others' one T */
	a.chain_start[1] = 0;
	a.chain_start[2] = cpu;
	a.chain_start[3] = cpu + gpu;
	a.chain_start[4] = n;
	const int64_t T = (int64_t)STEPS * 1000, horizons[4] = {5, T, T, T};
	a.g.horizon_of_chain = horizons;
	check_host(&a, "steps");
	uint32_t rounds[PLANS] = {0};
	compare_devices_plans(&a.g, "steps", rounds);
	ck_assert_msg(gt_test_device_count() == 0 || (rounds[2] >= STEPS && rounds[1] * 10 < rounds[2]),
		      "rounds: %u in pieces, %u in one piece", rounds[1], rounds[2]);
	graph_free(&a);
}
END_TEST

/* Host == device on larger random graphs: many tracks, many equal times
 * (zero-gap cycles), few or many cross edges. */
START_TEST(device_random_large)
{
	rng_state = 300 + (uint64_t)_i;
	static const struct {
		uint32_t n, tracks, m;
		uint64_t range;
	} cases[] = {
		{2, 1, 1, 0},          {3, 2, 2, 0},           {257, 3, 100, 10},      {2049, 17, 700, 3},
		{20000, 1, 5000, 1000}, {100000, 500, 40000, 100}, {1000000, 2000, 100000, 1000000},
		{1000000, 64, 20000, 5000},
	};
	graph a = random_graph(cases[_i].n, cases[_i].tracks, cases[_i].m, cases[_i].range, 50);
	char what[64];
	snprintf(what, sizeof what, "large case %d", _i);
	compare_devices(&a.g, what);
	graph_free(&a);
}
END_TEST

/* A few targets with thousands of cross in-edges each, most of them tied
 * on the source's time: the device links each target's edges in whatever
 * order its atomics leave them, so only the key's last parts (the lowest
 * source, then the lowest edge index) pick the edge. Sources sit on one
 * track at one time, 40 of them, as flows and waits, with repeats; each
 * hub heads a track of its own (no chain edge to beat them). */
START_TEST(bind_hub_targets_ties)
{
	rng_state = 77;
	const uint32_t sources = 40, hubs = 3, m = 12000, n = sources + hubs;
	graph a = graph_new(n, 1 + hubs, m);
	for (uint32_t v = 0; v < n; v++) {
		a.chain[v] = v;
		a.time[v] = v < sources ? 10 : 20;
	}
	for (uint32_t k = 1; k <= hubs; k++)
		a.chain_start[k] = sources + k - 1;
	a.chain_start[1 + hubs] = n;
	for (uint32_t e = 0; e < m; e++) {
		/* the lowest source, 0, is rare; the later the edge, the likelier */
		a.edge_src[e] = e > m / 2 && rnd() % 500 == 0 ? 0 : 1 + (uint32_t)(rnd() % (sources - 1));
		a.edge_dst[e] = sources + (uint32_t)(rnd() % hubs);
		a.edge_kind[e] = rnd() % 3 ? GT_CPM_EDGE_FLOW : GT_CPM_EDGE_WAIT;
	}
	check_host(&a, "hub targets");
	graph_free(&a);
}
END_TEST

/* The causal path's durations (causal_path_cl and the host's on threads
 * against causal_path_host on one):
 * random forests, deep chains, and cycles of lengths that settle under
 * pointer jumping (powers of two) and that never do, one across ranges. */
START_TEST(device_path_durations)
{
	rng_state = 900 + (uint64_t)_i;
	static const uint32_t sizes[] = {1, 2, 3, 100, 5000, 70000, 300000};
	uint32_t n = sizes[_i % 7];
	uint32_t *parent = malloc(n * sizeof *parent);
	int64_t *time = malloc(n * sizeof *time), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
	ck_assert(parent && time && want && got);
	for (int shape = 0; shape < 5; shape++) {
		for (uint32_t v = 0; v < n; v++) {
			time[v] = (int64_t)(rnd() % 1000000000u) - 5000;
			/* 0: random earlier parents; 1: one chain; 2: a few deep chains */
			uint32_t up = shape == 1 ? v - 1 : shape == 2 ? v - 1 - (uint32_t)(rnd() % 3) : (uint32_t)(rnd() % (v + 1));
			parent[v] = v == 0 || up >= v || rnd() % 50 == 0 ? GT_CP_ROOT : up;
		}
		if (shape == 3 && n >= 3) { /* a cycle, and points behind it */
			uint32_t len = 1 + (uint32_t)(rnd() % (n < 9 ? n - 1 : 8)), at = (uint32_t)(rnd() % (n - len));
			for (uint32_t k = 0; k < len; k++)
				parent[at + k] = at + (k + 1) % len;
		}
		if (shape == 4 && n >= 3) /* a cycle of the first and last points: across ranges */
			parent[1] = n - 1, parent[n - 1] = 1;
		int host = causal_path_host(parent, time, n, 1, want);
		/* on threads: ranges of points, their anchors jumping to roots */
		for (unsigned threads = 2; threads <= 5; threads += 3) {
			memset(got, 0x5a, n * sizeof *got);
			int rc = causal_path_host(parent, time, n, threads, got);
			ck_assert_msg(rc == host, "n %u shape %d on %u threads: %d, one thread %d", n, shape, threads, rc, host);
			for (uint32_t v = 0; rc == 0 && v < n; v++)
				ck_assert_msg(got[v] == want[v], "n %u shape %d point %u on %u threads: %" PRId64 ", one %" PRId64,
					      n, shape, v, threads, got[v], want[v]);
		}
		for (int d = 0; d < gt_test_device_count(); d++) {
			char spec[16];
			snprintf(spec, sizeof spec, "%d", d);
			gt_cl *cl;
			gt_error err = {0};
			ck_assert_msg(gt_cl_open(&cl, spec, NULL, 0, &err) == 0, "%s", err.msg);
			memset(got, 0x5a, n * sizeof *got);
			gt_cpm_cl_stats st = {0};
			int rc = causal_path_cl(cl, parent, time, n, got, &st, &err);
			ck_assert_msg(rc == host, "n %u shape %d on %s: %d, host %d (%s)", n, shape, gt_cl_device_name(cl), rc,
				      host, err.msg);
			for (uint32_t v = 0; rc == 0 && v < n; v++)
				ck_assert_msg(got[v] == want[v], "n %u shape %d point %u: %" PRId64 ", host %" PRId64, n, shape,
					      v, got[v], want[v]);
			ck_assert(rc != 0 || st.launches >= 2);
			gt_cl_close(cl);
		}
	}
	free(parent), free(time), free(want), free(got);
}
END_TEST

int main(void)
{
	const gt_test hand[] = {
		GT_TEST(bind_latest_source_and_ties),
		GT_TEST(bind_flow_before_wait_then_lowest_source),
		GT_TEST(bind_hub_targets_ties),
		GT_TEST(float_work_and_idle_lags),
		GT_TEST(float_several_cross_edges_out),
		GT_TEST(float_zero_gap_cycle),
		GT_TEST(lonely_point_and_empty_graph),
		GT_TEST(malformed_rejected),
		GT_TEST(float_horizon_per_chain),
		{0},
	};
	const gt_test property[] = {
		GT_LOOP(random_small_vs_brute_force, 12),
		GT_LOOP(random_medium_vs_brute_force, 4),
		GT_LOOP(random_windows_vs_relaxation, 3),
		GT_LOOP(random_union_vs_parts, 4),
		GT_TEST(device_rounds_follow_cross_hops),
		GT_TEST(device_pieces_cut_the_rounds),
		{0},
	};
	const gt_test device[] = {GT_LOOP(device_random_large, 8), GT_LOOP(device_path_durations, 7), {0}};
	/* timeouts: the first device test compiles the kernels (slow under PoCL) */
	const gt_tcase cases[] = {{"hand", 120, hand}, {"property", 120, property}, {"device", 300, device}, {0}};
	/* ranges of a few points: the host path's ranges on threads, and
	 * cycles across them, on these small cases */
	setenv("GPUTRACE_CAUSAL_RANGE", "7", 0);
	return gt_run_cases("cpm", cases);
}
