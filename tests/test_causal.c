/* The causal critical path (causal.h): hand-built traces for each rule,
 * random traces run through the host steps and through brute-force steps
 * over the same graph, and every shared real trace. */
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/causal.h"
#include "model/model.h"
#include "testutil.h"
#include "trace_load.h"

/* --- loading traces ------------------------------------------------------ */

/* Loads a JSON trace text (a list of events, without the brackets). */
static gt_model load_events(const char *events)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/gt_causal_%d_XXXXXX", (int)getpid());
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[%s]\n", events);
	fclose(f);
	gt_model m;
	gt_error err = {0};
	int rc = gt_model_load(&m, path, NULL, &err);
	unlink(path);
	ck_assert_msg(rc == 0, "load: %s", err.msg);
	return m;
}

static gt_causal_options options(void)
{
	gt_causal_options o;
	memset(&o, 0, sizeof o);
	o.rows = true;
	o.threads = 1;
	return o;
}

static void analyze_ok(const gt_model *m, const gt_causal_options *o, gt_causal_result *r)
{
	gt_error err = {0};
	int rc = gt_causal_analyze(m, o, NULL, r, &err);
	ck_assert_msg(rc == 0, "analyze: %s", err.msg);
}

static int analyze_fails(const gt_model *m, const gt_causal_options *o, char *msg, size_t len)
{
	gt_causal_result r;
	gt_error err = {0};
	int rc = gt_causal_analyze(m, o, NULL, &r, &err);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(r.window_count, 0);
	ck_assert_ptr_null(r.windows);
	snprintf(msg, len, "%s", err.msg);
	return err.status;
}

static uint32_t span_named(const gt_model *m, const char *name)
{
	for (uint32_t i = 0; i < m->span_count; i++)
		if (strcmp(gt_model_str(m, m->spans[i].name), name) == 0)
			return i;
	ck_abort_msg("no span named %s", name);
	return GT_NONE;
}

static const gt_causal_row *row_of(const gt_causal_window *w, uint32_t span)
{
	for (uint32_t i = 0; i < w->row_count; i++)
		if (w->rows[i].span == span)
			return &w->rows[i];
	return NULL;
}

/* --- invariants every result holds ---------------------------------------- */

static void check_window(const gt_model *m, const gt_causal_window *w)
{
	ck_assert_int_ge(w->path_duration_ns, 0);
	ck_assert_msg(w->path_duration_ns <= w->wall_ns, "path %" PRId64 " > wall %" PRId64, w->path_duration_ns,
		      w->wall_ns);
	int64_t sum = 0;
	for (uint32_t i = 0; i < w->hop_count; i++) {
		const gt_causal_hop *h = &w->hops[i];
		ck_assert_int_ge(h->duration_ns, 0);
		ck_assert_int_eq(h->duration_ns, h->to.ts_ns - h->from.ts_ns);
		if (i) {
			ck_assert_int_eq(h->from.ts_ns, w->hops[i - 1].to.ts_ns);
			ck_assert_int_eq(h->from.point, w->hops[i - 1].to.point);
			ck_assert_int_eq(h->from.span, w->hops[i - 1].to.span);
		}
		ck_assert_int_lt(h->kind, GT_CAUSAL_KIND_COUNT);
		if (h->kind == GT_CAUSAL_IDLE)
			ck_assert_int_eq(h->owner, GT_NONE);
		else
			ck_assert_int_lt(h->owner, m->span_count);
		ck_assert_int_eq(h->flow != GT_NONE, h->kind == GT_CAUSAL_FLOW);
		sum += h->duration_ns;
	}
	ck_assert_int_eq(sum, w->path_duration_ns);
	if (w->hop_count) {
		ck_assert_int_eq(w->hops[0].from.point, w->root.point);
		ck_assert_int_eq(w->hops[w->hop_count - 1].to.point, w->endpoint.point);
	}
	int64_t shares = 0;
	for (uint32_t i = 0; i < w->breakdown_count; i++) {
		const gt_causal_share *s = &w->breakdown[i];
		ck_assert_int_gt(s->critical_ns, 0);
		shares += s->critical_ns;
		if (i) {
			const gt_causal_share *p = &w->breakdown[i - 1];
			ck_assert(p->kind < s->kind || (p->kind == s->kind && (p->critical_ns > s->critical_ns ||
									       (p->critical_ns == s->critical_ns && p->key < s->key))));
		}
	}
	ck_assert_int_eq(shares, w->path_duration_ns);
	int64_t critical = 0;
	for (uint32_t i = 0; i < w->row_count; i++) {
		ck_assert_msg(w->rows[i].float_ns >= 0, "span %u float %" PRId64, w->rows[i].span, w->rows[i].float_ns);
		ck_assert_int_ge(w->rows[i].critical_ns, 0);
		ck_assert_int_ge(w->rows[i].waited_ns, 0);
		if (i)
			ck_assert_int_lt(w->rows[i - 1].span, w->rows[i].span);
		critical += w->rows[i].critical_ns;
	}
	if (w->row_count) {
		int64_t work = 0;
		for (uint32_t i = 0; i < w->hop_count; i++)
			work += w->hops[i].kind == GT_CAUSAL_WORK ? w->hops[i].duration_ns : 0;
		ck_assert_int_eq(critical, work);
	}
}

static void check_result(const gt_model *m, const gt_causal_result *r)
{
	for (uint32_t w = 0; w < r->window_count; w++)
		check_window(m, &r->windows[w]);
}

/* The hop kinds of the path, as a string ("wiFqW"...): w work, i idle,
 * f flow, q queue, W wait. */
static const char *hop_kinds(const gt_causal_window *w)
{
	static char s[256];
	static const char letter[] = "wifqW";
	uint32_t n = w->hop_count < sizeof s - 1 ? w->hop_count : sizeof s - 1;
	for (uint32_t i = 0; i < n; i++)
		s[i] = letter[w->hops[i].kind];
	s[n] = 0;
	return s;
}

/* --- hand-built traces ----------------------------------------------------- */

#define X(name, cat, pid, tid, ts, dur) \
	"{\"ph\":\"X\",\"name\":\"" name "\",\"cat\":\"" cat "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts \
	",\"dur\":" #dur "}"

START_TEST(nesting_chain_owners)
{
	gt_model m = load_events(X("A", "op", 1, 1, 0, 10) "," X("B", "op", 1, 1, 2, 3) "," X("C", "inner", 1, 1, 5, 3));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.window_count, 1);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->flags, GT_CAUSAL_NO_DEPENDENCIES);
	ck_assert_int_eq(w->points, 6);
	ck_assert_int_eq(w->chain_edges, 5);
	ck_assert_int_eq(w->wall_ns, 10000);
	ck_assert_int_eq(w->path_duration_ns, 10000);
	/* points by span id: A 0,1; B 2,3; C 4,5 */
	ck_assert_int_eq(w->root.point, 0);
	ck_assert_int_eq(w->endpoint.point, 1);
	ck_assert_int_eq(w->endpoint.which, 'E');
	ck_assert_str_eq(hop_kinds(w), "wwwww");
	static const uint32_t owner[] = {0, 1, 0, 2, 0};
	static const uint32_t to[] = {2, 3, 4, 5, 1};
	static const int64_t dur[] = {2000, 3000, 0, 3000, 2000};
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(w->hops[i].owner, owner[i]);
		ck_assert_int_eq(w->hops[i].to.point, to[i]);
		ck_assert_int_eq(w->hops[i].duration_ns, dur[i]);
	}
	/* by cat: op 7000, inner 3000 */
	ck_assert_int_eq(w->breakdown_count, 2);
	ck_assert_str_eq(gt_model_str(&m, w->breakdown[0].key), "op");
	ck_assert_int_eq(w->breakdown[0].critical_ns, 7000);
	ck_assert_int_eq(w->breakdown[1].critical_ns, 3000);
	ck_assert_int_eq(row_of(w, 0)->critical_ns, 4000);
	ck_assert(row_of(w, 2)->on_path);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_int_eq(row_of(w, i)->float_ns, 0);
	gt_causal_result_free(&r);
	o.by = GT_CAUSAL_BY_NAME;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].breakdown_count, 3);
	ck_assert_str_eq(gt_model_str(&m, r.windows[0].breakdown[0].key), "A");
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(idle_gaps_and_float)
{
	/* the longer thread bounds the window; the other has float */
	gt_model m = load_events(X("x", "op", 1, 1, 0, 2) "," X("y", "op", 1, 1, 5, 1) "," X("z", "op", 1, 2, 1, 2));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->flags, GT_CAUSAL_NO_DEPENDENCIES);
	ck_assert_int_eq(w->tracks, 2);
	ck_assert_int_eq(w->path_duration_ns, 6000);
	ck_assert_str_eq(hop_kinds(w), "wiw");
	ck_assert_int_eq(w->hops[1].duration_ns, 3000);
	ck_assert_int_eq(w->hops[1].owner, GT_NONE);
	ck_assert_int_eq(w->breakdown[1].kind, GT_CAUSAL_IDLE);
	ck_assert_int_eq(w->breakdown[1].key, GT_NONE);
	ck_assert_int_eq(row_of(w, 2)->float_ns, 3000); /* z ends at 3, T is 6 */
	ck_assert(!row_of(w, 2)->on_path);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(improper_nesting)
{
	/* a [0,10], b [2,6] nested, c [4,12] starts in both and outlives them:
	 * the gaps after 4 belong to c, the latest started */
	gt_model m = load_events(X("a", "op", 1, 1, 0, 10) "," X("b", "op", 1, 1, 2, 4) "," X("c", "op", 1, 1, 4, 8));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->path_duration_ns, 12000);
	ck_assert_str_eq(hop_kinds(w), "wwwww");
	static const uint32_t owner[] = {0, 1, 2, 2, 2};
	static const int64_t at[] = {2000, 4000, 6000, 10000, 12000};
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(w->hops[i].owner, owner[i]);
		ck_assert_int_eq(w->hops[i].to.ts_ns, at[i]);
	}
	ck_assert_int_eq(row_of(w, 2)->critical_ns, 8000);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

#define FLOW(ph, id, pid, tid, ts) \
	"{\"ph\":\"" ph "\",\"name\":\"fl\",\"cat\":\"ac2g\",\"id\":" #id ",\"pid\":" #pid ",\"tid\":" #tid \
	",\"ts\":" #ts ",\"bp\":\"e\"}"

START_TEST(departure_points)
{
	/* P departs at 3 (twice: one point) and at 6; flows reach Q and R */
	gt_model m = load_events(X("P", "op", 1, 1, 0, 10) "," X("Q", "op", 1, 2, 4, 1) "," X("R", "op", 1, 2, 7, 5) ","
				 X("S", "op", 1, 2, 3, 1) "," FLOW("s", 1, 1, 1, 3) "," FLOW("f", 1, 1, 2, 4) ","
				 FLOW("s", 2, 1, 1, 3) "," FLOW("f", 2, 1, 2, 3) "," FLOW("s", 3, 1, 1, 6) ","
				 FLOW("f", 3, 1, 2, 7));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->flow_edges, 3);
	ck_assert_int_eq(w->points, 4 + 2 + 2 + 2); /* P: B, D@3, D@6, E */
	/* R ends at 12: P.B(0) -> P.D@6 (1+1=2) -> R.B -> R.E */
	ck_assert_int_eq(w->path_duration_ns, 12000);
	ck_assert_str_eq(hop_kinds(w), "wwfw");
	ck_assert_int_eq(w->hops[0].to.point, 1);
	ck_assert_int_eq(w->hops[0].to.which, 'D');
	ck_assert_int_eq(w->hops[0].to.ts_ns, 3000);
	ck_assert_int_eq(w->hops[1].to.point, 2);
	ck_assert_int_eq(w->hops[1].to.ts_ns, 6000);
	ck_assert_int_eq(w->hops[2].flow, 2);
	ck_assert_int_eq(w->hops[2].owner, 0);
	ck_assert_int_eq(w->hops[2].to.span, 2);
	ck_assert_str_eq(gt_model_str(&m, w->breakdown[1].key), "ac2g");
	/* R waited from the end of Q (5) to the departure (6); P caused it */
	ck_assert_int_eq(row_of(w, 2)->waited_ns, 1000);
	ck_assert_int_eq(row_of(w, 0)->caused_wait_ns, 1000);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(v1_clamping)
{
	/* the model never binds a start outside its span; move it there to see
	 * the clamp: before B departs at B, after E at E */
	gt_model m = load_events(X("P", "op", 1, 1, 10, 10) "," X("Q", "op", 1, 2, 30, 5) "," FLOW("s", 1, 1, 1, 15) ","
				 FLOW("f", 1, 1, 2, 30));
	ck_assert_int_eq(m.flow_count, 1);
	gt_causal_options o = options();
	gt_causal_result r;
	m.flows[0].src_ts_ns = 1000;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].points, 4);
	ck_assert_str_eq(hop_kinds(&r.windows[0]), "fw");
	ck_assert_int_eq(r.windows[0].hops[0].from.which, 'B');
	ck_assert_int_eq(r.windows[0].path_duration_ns, 25000);
	gt_causal_result_free(&r);
	m.flows[0].src_ts_ns = 99000;
	analyze_ok(&m, &o, &r);
	ck_assert_str_eq(hop_kinds(&r.windows[0]), "wfw");
	ck_assert_int_eq(r.windows[0].hops[1].from.which, 'E');
	ck_assert_int_eq(r.windows[0].hops[1].duration_ns, 10000);
	gt_causal_result_free(&r);
	m.flows[0].src_ts_ns = 15000;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].points, 5);
	ck_assert_int_eq(r.windows[0].hops[1].from.which, 'D');
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

#define XB(name, cat, pid, tid, ts, dur, inout) \
	"{\"ph\":\"X\",\"name\":\"" name "\",\"cat\":\"" cat "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts \
	",\"dur\":" #dur ",\"bind_id\":7,\"" inout "\":true}"

START_TEST(v2_flows)
{
	/* a flow_out leaves at its span's end, to every flow_in after it */
	gt_model m = load_events(XB("out", "op", 1, 1, 0, 4, "flow_out") "," XB("in1", "op", 1, 2, 5, 2, "flow_in") ","
				 XB("in2", "op", 1, 3, 6, 10, "flow_in"));
	ck_assert_int_eq(m.flow_count, 2);
	ck_assert_int_eq(m.flows[0].src_ts_ns, 4000);
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->flow_edges, 2);
	ck_assert_int_eq(w->points, 6);
	ck_assert_int_eq(w->path_duration_ns, 16000);
	ck_assert_str_eq(hop_kinds(w), "wfw");
	ck_assert_int_eq(w->hops[1].from.which, 'E');
	ck_assert_int_eq(w->hops[1].from.span, 0);
	ck_assert_int_eq(w->hops[1].to.span, 2);
	ck_assert_int_eq(w->hops[1].duration_ns, 2000);
	ck_assert_int_eq(w->hops[1].track, m.spans[2].track);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

#define K(name, tid, ts, dur) X(name, "kernel", 1, tid, ts, dur)

START_TEST(wait_edges)
{
	/* launches l1..l4 on the host thread; the sync [30,100] waits for the
	 * kernel ending latest by 100 among those launched by 30 from its
	 * process: k2 (ends 90), not k3 (ends 120), not k4 (launched later),
	 * not k5 (another process) */
	gt_model m = load_events(
		X("l1", "rt", 1, 1, 0, 5) "," X("l2", "rt", 1, 1, 10, 5) "," X("l3", "rt", 1, 1, 20, 5) ","
		X("cudaDeviceSynchronize", "rt", 1, 1, 30, 70) "," X("l4", "rt", 1, 2, 40, 5) ","
		K("k1", 7, 6, 40) "," K("k2", 7, 50, 40) "," K("k3", 8, 30, 90) "," K("k4", 9, 50, 45) ","
		X("l5", "rt", 2, 1, 0, 5) "," X("k5", "kernel", 2, 7, 10, 85) ","
		FLOW("s", 1, 1, 1, 1) "," FLOW("f", 1, 1, 7, 6) "," FLOW("s", 2, 1, 1, 11) "," FLOW("f", 2, 1, 7, 50) ","
		FLOW("s", 3, 1, 1, 21) "," FLOW("f", 3, 1, 8, 30) "," FLOW("s", 4, 1, 2, 41) "," FLOW("f", 4, 1, 9, 50) ","
		FLOW("s", 5, 2, 1, 1) "," FLOW("f", 5, 2, 7, 10));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->wait_edges, 1);
	ck_assert_int_eq(w->flow_edges, 5);
	uint32_t k2 = span_named(&m, "k2"), sync = span_named(&m, "cudaDeviceSynchronize");
	/* the path ends at k3 (120) via l3's flow; the sync's E is bound by k2 */
	ck_assert_int_eq(w->endpoint.span, span_named(&m, "k3"));
	ck_assert_int_eq(row_of(w, sync)->waited_ns, 90000 - 30000); /* its chain predecessor is its B */
	ck_assert_int_eq(row_of(w, k2)->caused_wait_ns, 60000);
	gt_causal_result_free(&r);
	/* a window that ends at the sync: the wait is on the path */
	o.has_window = true;
	o.window_begin_ns = 0;
	o.window_end_ns = 35000;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	w = &r.windows[0];
	ck_assert_int_eq(w->wait_edges, 1);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("causal");
	TCase *h = tcase_create("rules");
	tcase_add_test(h, nesting_chain_owners);
	tcase_add_test(h, idle_gaps_and_float);
	tcase_add_test(h, improper_nesting);
	tcase_add_test(h, departure_points);
	tcase_add_test(h, v1_clamping);
	tcase_add_test(h, v2_flows);
	tcase_add_test(h, wait_edges);
	suite_add_tcase(s, h);
	return s;
}

int main(void)
{
	return gt_run_suite(suite());
}
