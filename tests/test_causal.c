/* The causal critical path (causal.h): hand-built traces for each rule,
 * random traces run through the host steps and through brute-force steps
 * over the same graph, and every shared real trace. */
#include <dirent.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "causal/causal.h"
#include "causal/causal_internal.h"
#include "model/model.h"
#include "testutil.h"
#include "loader/loader.h"

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
 * f flow, q queue, W wait, S stream wait. */
static const char *hop_kinds(const gt_causal_window *w)
{
	static char s[256];
	static const char letter[] = "wifqWSH";
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


START_TEST(stream_waits_inferred)
{
	/* host thread (tid 1) launches k1 on stream 7 (nccl, [2, 10]) and k2
	 * on stream 20, which arrives at 2 but starts at 12: held, and k1
	 * ended 2 us before it, within the 5 us slack: E(k1) -> B(k2). k3 on
	 * stream 20 is ready at 20 (k2's end) and starts at 40; the only other
	 * stream's ends are 10 (before it was ready) and 52 (after it began):
	 * none. k4 arrives at 45 and starts then: not held. k5, with no launch,
	 * follows k3 on its stream after 3 us, with k4 ending 1 us before it on
	 * stream 7: E(k4) -> B(k5) too; k6 right after k5 on its own stream
	 * only: same-stream ends never count. */
	gt_model m = load_events(
		X("l1", "rt", 1, 1, 0, 1) "," X("l2", "rt", 1, 1, 1, 1) "," X("l3", "rt", 1, 1, 3, 1) ","
		X("l4", "rt", 1, 1, 44, 1) "," K("k1", 7, 2, 8) "," K("k2", 20, 12, 8) "," K("k3", 20, 40, 10) ","
		K("k4", 7, 45, 7) "," K("k5", 20, 53, 5) "," K("k6", 20, 60, 5) ","
		FLOW("s", 1, 1, 1, 0) "," FLOW("f", 1, 1, 7, 2) "," FLOW("s", 2, 1, 1, 1) "," FLOW("f", 2, 1, 20, 12) ","
		FLOW("s", 3, 1, 1, 3) "," FLOW("f", 3, 1, 20, 40) "," FLOW("s", 4, 1, 1, 45) "," FLOW("f", 4, 1, 7, 45));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r); /* off by default in the library */
	ck_assert_int_eq(r.windows[0].inferred_stream_waits, 0);
	ck_assert_ptr_null(strchr(hop_kinds(&r.windows[0]), 'S'));
	gt_causal_result_free(&r);
	o.stream_wait_slack_ns = 5000;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->inferred_stream_waits, 2);
	ck_assert_int_eq(r.stream_wait_slack_ns, 5000);
	/* the path ends at k6 (65): k5's E, k5 since B(k5) bound by E(k4) (52)
	 * from the stream wait, k4 launched by l4 */
	ck_assert_int_eq(w->endpoint.span, span_named(&m, "k6"));
	bool seen = false;
	for (uint32_t i = 0; i < w->hop_count; i++)
		if (w->hops[i].kind == GT_CAUSAL_STREAM_WAIT) {
			ck_assert_int_eq(w->hops[i].from.span, span_named(&m, "k4"));
			ck_assert_int_eq(w->hops[i].from.which, 'E');
			ck_assert_int_eq(w->hops[i].to.span, span_named(&m, "k5"));
			ck_assert_int_eq(w->hops[i].to.which, 'B');
			ck_assert_int_eq(w->hops[i].owner, span_named(&m, "k5"));
			ck_assert_int_eq(w->hops[i].duration_ns, 1000);
			seen = true;
		}
	ck_assert(seen);
	ck_assert_int_eq(row_of(w, span_named(&m, "k5"))->waited_ns, 52000 - 50000);
	gt_causal_result_free(&r);
	/* a slack under 1 us: k4 ended 1 us before k5 and k1 2 us before k2: none */
	o.stream_wait_slack_ns = 999;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].inferred_stream_waits, 0);
	gt_causal_result_free(&r);
	/* 2 us: both (k1 ended exactly 2 us before k2: at the edge, kept); just under: k4 -> k5 */
	o.stream_wait_slack_ns = 2000;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].inferred_stream_waits, 2);
	gt_causal_result_free(&r);
	o.stream_wait_slack_ns = 1999;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].inferred_stream_waits, 1);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

#define XA(name, cat, pid, tid, ts, dur, args) \
	"{\"ph\":\"X\",\"name\":\"" name "\",\"cat\":\"" cat "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts \
	",\"dur\":" #dur ",\"args\":{" args "}}"

START_TEST(recorded_waits)
{
	/* host thread 1 launches k0 (stream 20), k1 (stream 7, to 32), records
	 * event 100 on stream 7, makes stream 20 wait on it (marker, correlation
	 * 101) and launches k2 on stream 20, which starts at 40: 8 us after k1
	 * ended, past any small slack, but recorded: E(k1) -> B(k2). Then k3 on
	 * stream 7 (to 100), record 102, k4 on stream 20 (to 103), and a
	 * cudaEventSynchronize on 102 (to 105): recorded E(k3) -> E(sync), where
	 * the wait rule alone guesses k4, the latest end. Then markers that
	 * cannot be followed: a record of no call, no args, an Event Sync whose
	 * call is a cudaEventQuery; record 104 is never waited on. */
	gt_model m = load_events(
		X("l0", "cuda_runtime", 1, 1, 0, 1) "," X("l1", "cuda_runtime", 1, 1, 1, 1) ","
		XA("cudaEventRecord", "cuda_runtime", 1, 1, 3, 1, "\"correlation\":100") ","
		XA("cudaStreamWaitEvent", "cuda_runtime", 1, 1, 5, 1, "\"correlation\":101") ","
		XA("Stream Wait Event", "cuda_sync", 1, 20, 5, 0,
		   "\"correlation\":101,\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":100") ","
		X("l2", "cuda_runtime", 1, 1, 7, 1) "," X("l3", "cuda_runtime", 1, 1, 48, 1) ","
		XA("cudaEventRecord", "cuda_runtime", 1, 1, 49, 1, "\"correlation\":102") ","
		X("l4", "cuda_runtime", 1, 1, 50, 1) ","
		XA("cudaEventSynchronize", "cuda_runtime", 1, 1, 51, 54, "\"correlation\":103") ","
		XA("Event Sync", "cuda_sync", 1, -1, 51, 54,
		   "\"correlation\":103,\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":102") ","
		XA("cudaEventRecord", "cuda_runtime", 1, 1, 110, 1, "\"correlation\":104") ","
		XA("cudaEventQuery", "cuda_runtime", 1, 1, 112, 1, "\"correlation\":105") ","
		XA("Stream Wait Event", "cuda_sync", 1, 20, 111, 0,
		   "\"correlation\":106,\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":999") ","
		XA("Stream Wait Event", "cuda_sync", 1, 20, 111, 0, "\"correlation\":107") ","
		XA("Event Sync", "cuda_sync", 1, -1, 112, 1,
		   "\"correlation\":105,\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":102") ","
		K("k0", 20, 1, 1) "," K("k1", 7, 3, 29) "," K("k2", 20, 40, 5) "," K("k3", 7, 90, 10) ","
		K("k4", 20, 101, 2) ","
		FLOW("s", 1, 1, 1, 0) "," FLOW("f", 1, 1, 20, 1) "," FLOW("s", 2, 1, 1, 1) "," FLOW("f", 2, 1, 7, 3) ","
		FLOW("s", 3, 1, 1, 7) "," FLOW("f", 3, 1, 20, 40) "," FLOW("s", 4, 1, 1, 48) "," FLOW("f", 4, 1, 7, 90) ","
		FLOW("s", 5, 1, 1, 50) "," FLOW("f", 5, 1, 20, 101));
	ck_assert_int_eq(m.sync_count, 10);
	gt_causal_options o = options();
	o.stream_wait_slack_ns = 10000; /* wide enough to guess k1 -> k2 */
	gt_causal_result r;
	analyze_ok(&m, &o, &r); /* off by default in the library: the wait rule guesses k4 */
	ck_assert_int_eq(r.windows[0].recorded_stream_waits + r.windows[0].recorded_event_syncs, 0);
	uint64_t guessed = r.windows[0].inferred_stream_waits;
	ck_assert_int_eq(r.syncs.markers, 0);
	uint32_t sync = span_named(&m, "cudaEventSynchronize");
	for (uint32_t i = 0; i < r.windows[0].hop_count; i++)
		if (r.windows[0].hops[i].kind == GT_CAUSAL_WAIT && r.windows[0].hops[i].to.span == sync)
			ck_assert_int_eq(r.windows[0].hops[i].from.span, span_named(&m, "k4"));
	gt_causal_result_free(&r);
	o.recorded_waits = true;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->recorded_stream_waits, 1);
	ck_assert_int_eq(w->recorded_event_syncs, 1);
	ck_assert_int_eq(w->inferred_stream_waits, guessed - 1); /* k2 is not guessed again */
	ck_assert_int_eq(r.syncs.markers, 5);
	ck_assert_int_eq(r.syncs.stream_waits, 1);
	ck_assert_int_eq(r.syncs.event_syncs, 1);
	ck_assert_int_eq(r.syncs.records_not_waited, 1);
	ck_assert_int_eq(r.syncs.problems[GT_CAUSAL_SYNC_NO_RECORD], 1);
	ck_assert_int_eq(r.syncs.problems[GT_CAUSAL_SYNC_UNUSABLE_ARGS], 1);
	ck_assert_int_eq(r.syncs.problems[GT_CAUSAL_SYNC_NO_SYNC_CALL], 1);
	ck_assert_int_eq(r.syncs.problems[GT_CAUSAL_SYNC_NO_LAUNCH_BEFORE_RECORD], 0);
	ck_assert_int_eq(r.syncs.problems[GT_CAUSAL_SYNC_NO_LAUNCH_AFTER_WAIT], 0);
	ck_assert_int_eq(r.syncs.examples[GT_CAUSAL_SYNC_NO_RECORD], 1);
	ck_assert_str_eq(gt_model_str(&m, m.spans[r.syncs.example_span[GT_CAUSAL_SYNC_NO_RECORD][0]].name),
			 "Stream Wait Event");
	gt_causal_result_free(&r);
	o.stream_wait_slack_ns = 0; /* the recorded waits alone */
	/* up to 105 us the path ends at E(sync), bound by E(k3) (100), k3
	 * launched by l3; the k1 -> k2 wait is on the way to k2 only */
	o.has_window = true;
	o.window_begin_ns = 0, o.window_end_ns = 106000;
	analyze_ok(&m, &o, &r);
	w = &r.windows[0];
	ck_assert_int_eq(w->endpoint.span, sync);
	bool wait_seen = false;
	for (uint32_t i = 0; i < w->hop_count; i++)
		if (w->hops[i].kind == GT_CAUSAL_WAIT) {
			ck_assert_int_eq(w->hops[i].from.span, span_named(&m, "k3"));
			ck_assert_int_eq(w->hops[i].owner, sync);
			wait_seen = true;
		}
	ck_assert(wait_seen);
	gt_causal_result_free(&r);
	/* the stream wait on k2's way: a window ending at k2 */
	o.has_window = true;
	o.window_begin_ns = 0, o.window_end_ns = 45000;
	analyze_ok(&m, &o, &r);
	w = &r.windows[0];
	ck_assert_int_eq(w->endpoint.span, span_named(&m, "k2"));
	bool sw_seen = false;
	for (uint32_t i = 0; i < w->hop_count; i++)
		if (w->hops[i].kind == GT_CAUSAL_STREAM_WAIT) {
			ck_assert_int_eq(w->hops[i].from.span, span_named(&m, "k1"));
			ck_assert_int_eq(w->hops[i].from.which, 'E');
			ck_assert_int_eq(w->hops[i].to.span, span_named(&m, "k2"));
			ck_assert_int_eq(w->hops[i].owner, span_named(&m, "k2"));
			ck_assert_int_eq(w->hops[i].wait_source, GT_CAUSAL_SW_RECORDED);
			ck_assert_int_eq(w->hops[i].duration_ns, 8000);
			sw_seen = true;
		}
	ck_assert(sw_seen);
	bool keyed = false;
	for (uint32_t i = 0; i < w->breakdown_count; i++)
		keyed |= w->breakdown[i].kind == GT_CAUSAL_STREAM_WAIT && w->breakdown[i].key == GT_CAUSAL_SW_RECORDED &&
			 w->breakdown[i].critical_ns == 8000;
	ck_assert(keyed);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(profiler_wrapper)
{
	/* Kineto's wrapper: category Trace, alone on its track, over every other
	 * span: left out and counted. Without the wrapper rule it would be the
	 * longest track of a window without edges: the whole path. */
	gt_model m = load_events(X("PyTorch Profiler (0)", "Trace", 1, 99, 0, 1000) "," X("step", "user_annotation", 1, 1,
		10, 500) "," X("op", "cpu_op", 1, 2, 600, 100));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.wrapper_spans_left_out, 1);
	ck_assert_int_eq(r.spans_taking_part, 2);
	ck_assert_int_eq(r.windows[0].path_duration_ns, 500000);
	gt_causal_result_free(&r);
	gt_model_free(&m);
	/* not a wrapper: it misses a span (ends at 650), shares its track, or is
	 * of another category */
	static const char *const kept[] = {
		X("PyTorch Profiler (0)", "Trace", 1, 99, 0, 650) "," X("step", "user_annotation", 1, 1, 10, 500) ","
		X("op", "cpu_op", 1, 2, 600, 100),
		X("PyTorch Profiler (0)", "Trace", 1, 99, 0, 1000) "," X("more", "Trace", 1, 99, 10, 5) ","
		X("step", "user_annotation", 1, 1, 10, 500),
		X("outer", "user_annotation", 1, 99, 0, 1000) "," X("step", "user_annotation", 1, 1, 10, 500),
	};
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
		m = load_events(kept[i]);
		analyze_ok(&m, &o, &r);
		ck_assert_msg(r.wrapper_spans_left_out == 0, "case %zu", i);
		gt_causal_result_free(&r);
		gt_model_free(&m);
	}
}
END_TEST

/* The share of a kind (key GT_NONE) in a window's breakdown. */
static int64_t kind_share(const gt_causal_window *w, uint8_t kind)
{
	int64_t ns = 0;
	for (uint32_t i = 0; i < w->breakdown_count; i++)
		ns += w->breakdown[i].kind == kind ? w->breakdown[i].critical_ns : 0;
	return ns;
}

START_TEST(handoffs)
{
	/* the main thread (tid 1) runs loss [100, 150] inside `## backward ##`
	 * [100, 900] and then sits in it; the autograd thread (tid 2) runs the
	 * backward op [300, 700]: E(loss) -> B(op) and E(op) -> E(backward) */
#define BWD(op_name, extra)                                                                                     \
	X("ProfilerStep#1", "user_annotation", 1, 1, 0, 1000) "," X("## backward ##", "user_annotation", 1, 1, 100, \
	800) "," X("loss", "cpu_op", 1, 1, 100, 50) "," X(op_name, "cpu_op", 1, 2, 300, 400) "," X("aten::mul",   \
	"cpu_op", 1, 2, 310, 380) extra
	static const char *const cases[] = {
		BWD("autograd::engine::evaluate_function: MulBackward0", ""),
		/* the same op named otherwise, but the target of a fwdbwd flow from
		 * the forward op */
		BWD("MulBackward0", "," X("aten::mul fwd", "cpu_op", 1, 1, 20, 40) ","
		    "{\"ph\":\"s\",\"name\":\"fwdbwd\",\"cat\":\"fwdbwd\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":30},"
		    "{\"ph\":\"f\",\"name\":\"fwdbwd\",\"cat\":\"fwdbwd\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":300,"
		    "\"bp\":\"e\"}"),
	};
	for (size_t c = 0; c < 2; c++) {
		gt_model m = load_events(cases[c]);
		gt_causal_options o = options();
		gt_causal_result r;
		analyze_ok(&m, &o, &r); /* off by default in the library */
		ck_assert_int_eq(r.windows[0].handoff_edges, 0);
		gt_causal_result_free(&r);
		o.handoffs = true;
		analyze_ok(&m, &o, &r);
		check_result(&m, &r);
		const gt_causal_window *w = &r.windows[0];
		ck_assert_msg(w->handoff_edges == 2, "case %zu: %llu", c, (unsigned long long)w->handoff_edges);
		ck_assert_int_eq(w->path_duration_ns, 1000000);
		/* waiting for the hand-over (150 -> 300) and for the hand-back (700 -> 900) */
		ck_assert_int_eq(kind_share(w, GT_CAUSAL_HANDOFF), 150000 + 200000);
		uint32_t bwd = span_named(&m, "## backward ##"), seen = 0;
		for (uint32_t i = 0; i < w->hop_count; i++)
			if (w->hops[i].kind == GT_CAUSAL_HANDOFF) {
				ck_assert_int_eq(w->hops[i].owner, bwd);
				seen++;
			}
		ck_assert_int_eq(seen, 2);
		gt_causal_result_free(&r);
		gt_model_free(&m);
	}
	/* another thread's work that is not backward: no hand-off */
	gt_model m = load_events(BWD("worker_task", ""));
	gt_causal_options o = options();
	o.handoffs = true;
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].handoff_edges, 0);
	gt_causal_result_free(&r);
	gt_model_free(&m);
#undef BWD
}
END_TEST

START_TEST(binding_ties)
{
	/* chain before flow: K1's B has K0's E and L's departure, both at 4 */
	gt_model m = load_events(K("K0", 7, 1, 3) "," XB("L", "rt", 1, 1, 2, 2, "flow_out") ","
				 "{\"ph\":\"X\",\"name\":\"K1\",\"cat\":\"kernel\",\"pid\":1,\"tid\":7,\"ts\":4,\"dur\":1,"
				 "\"bind_id\":7,\"flow_in\":true}");
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].flow_edges, 1);
	ck_assert_int_eq(r.windows[0].path_duration_ns, 4000);
	ck_assert_str_eq(hop_kinds(&r.windows[0]), "wiw");
	gt_causal_result_free(&r);
	gt_model_free(&m);

	/* chain before wait: k ends when the sync begins */
	m = load_events(X("l", "rt", 1, 1, 0, 2) "," X("cudaStreamSynchronize", "rt", 1, 1, 10, 10) "," K("k", 7, 5, 5) ","
			FLOW("s", 1, 1, 1, 1) "," FLOW("f", 1, 1, 7, 5));
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].wait_edges, 1);
	ck_assert_int_eq(r.windows[0].endpoint.span, 1);
	ck_assert_int_eq(r.windows[0].hops[r.windows[0].hop_count - 1].kind, GT_CAUSAL_WORK);
	ck_assert_int_eq(row_of(&r.windows[0], 1)->waited_ns, 0);
	gt_causal_result_free(&r);
	gt_model_free(&m);

	/* two flows leaving at the same time: the lower source point binds */
	m = load_events(X("A", "op", 1, 1, 0, 5) "," X("B", "op", 1, 2, 1, 4) "," X("T", "op", 1, 3, 10, 2) ","
			FLOW("s", 1, 1, 1, 4) "," FLOW("f", 1, 1, 3, 10) "," FLOW("s", 2, 1, 2, 4) "," FLOW("f", 2, 1, 3, 10));
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].path_duration_ns, 12000);
	ck_assert_str_eq(hop_kinds(&r.windows[0]), "wfw");
	ck_assert_int_eq(r.windows[0].hops[1].owner, 0);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(zero_gap_cycle)
{
	/* A and B start at 0 and each sends the other a flow from its B: a
	 * zero-gap cycle, flagged; the path is elsewhere (C -> D) */
	gt_model m = load_events(X("A", "op", 1, 1, 0, 5) "," X("B", "op", 1, 2, 0, 5) "," X("C", "op", 1, 3, 1, 2) ","
				 X("D", "op", 1, 4, 4, 5) "," FLOW("s", 1, 1, 1, 0) "," FLOW("f", 1, 1, 2, 0) ","
				 FLOW("s", 2, 1, 2, 0) "," FLOW("f", 2, 1, 1, 0) "," FLOW("s", 3, 1, 3, 2) ","
				 FLOW("f", 3, 1, 4, 4));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	const gt_causal_window *w = &r.windows[0];
	ck_assert_int_eq(w->flags, GT_CAUSAL_CYCLE);
	ck_assert_int_eq(w->flow_edges, 3);
	ck_assert_int_eq(w->wall_ns, 9000);
	ck_assert_int_eq(w->path_duration_ns, 8000);
	ck_assert_int_eq(w->endpoint.span, 3);
	ck_assert_int_eq(w->root.span, 2);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

#define STEPS                                                                                                  \
	X("ProfilerStep#1", "user_annotation", 1, 1, 0, 10) "," X("ProfilerStep#2", "user_annotation", 1, 1, 10, 10) \
	"," X("L1", "rt", 1, 1, 8, 1) "," X("L2", "rt", 1, 1, 11, 1) "," K("K1", 7, 12, 3) "," K("K2", 7, 16, 7) ","  \
	FLOW("s", 1, 1, 1, 8.5) "," FLOW("f", 1, 1, 7, 12) "," FLOW("s", 2, 1, 1, 11) "," FLOW("f", 2, 1, 7, 16)

START_TEST(step_windows_and_queue)
{
	gt_model m = load_events(STEPS);
	gt_causal_options o = options();
	o.step_glob = "ProfilerStep#*";
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.window_count, 2);
	const gt_causal_window *w = &r.windows[0];
	/* K1 runs in step 2's time but was launched in step 1 */
	ck_assert_int_eq(w->step_span, 0);
	ck_assert_int_eq(w->spans, 3);
	ck_assert_int_eq(w->begin_ns, 0);
	ck_assert_int_eq(w->end_ns, 10000);
	ck_assert_int_eq(w->wall_ns, 15000);
	ck_assert_int_eq(w->path_duration_ns, 15000);
	ck_assert_str_eq(hop_kinds(w), "wwfw");
	ck_assert_int_eq(w->hops[1].to.which, 'D');
	ck_assert_ptr_nonnull(row_of(w, span_named(&m, "K1")));
	/* step 2: K2 launched at 11 queued behind K1 until 15 */
	w = &r.windows[1];
	ck_assert_int_eq(w->step_span, 1);
	ck_assert_int_eq(w->spans, 3);
	ck_assert_ptr_null(row_of(w, span_named(&m, "K1")));
	ck_assert_int_eq(w->wall_ns, 13000);
	ck_assert_int_eq(w->path_duration_ns, 13000);
	ck_assert_str_eq(hop_kinds(w), "wqfw");
	const gt_causal_hop *q = &w->hops[1];
	ck_assert_int_eq(q->duration_ns, 4000);
	ck_assert_int_eq(q->owner, span_named(&m, "K1"));
	ck_assert_int_eq(q->track, m.spans[span_named(&m, "K2")].track);
	ck_assert_int_eq(q->to.point, GT_NONE);
	ck_assert_int_eq(q->to.which, 'E');
	ck_assert_int_eq(w->hops[2].duration_ns, 1000);
	ck_assert_int_eq(w->hops[2].flow, 1);
	ck_assert_int_eq(w->breakdown_count, 4); /* work kernel, work user_annotation, flow, queue */
	ck_assert_int_eq(w->breakdown[2].kind, GT_CAUSAL_FLOW);
	ck_assert_int_eq(w->breakdown[3].kind, GT_CAUSAL_QUEUE);
	ck_assert_int_eq(w->breakdown[3].key, q->track);
	gt_causal_result_free(&r);

	/* --window 10:20 holds the same spans as step 2 */
	o.step_glob = NULL;
	o.has_window = true;
	o.window_begin_ns = 10000;
	o.window_end_ns = 20000;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.window_count, 1);
	ck_assert_int_eq(r.windows[0].step_span, GT_NONE);
	ck_assert_int_eq(r.windows[0].spans, 3);
	ck_assert_str_eq(hop_kinds(&r.windows[0]), "wqfw");
	gt_causal_result_free(&r);
	/* the whole trace: nothing to queue behind */
	o.has_window = false;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].spans, 6);
	for (uint32_t i = 0; i < r.windows[0].hop_count; i++)
		ck_assert_int_ne(r.windows[0].hops[i].kind, GT_CAUSAL_QUEUE);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(backward_isolated_device_track)
{
	/* the kernel starts (2.5) before its launch's departure (5) */
	gt_model m = load_events(X("L", "rt", 1, 1, 4, 2) "," K("k", 7, 2.5, 4.5) "," FLOW("s", 1, 1, 1, 5) ","
				 FLOW("f", 1, 1, 7, 6));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].backward_edges, 1);
	ck_assert_int_eq(r.windows[0].flow_edges, 0);
	ck_assert_int_eq(r.windows[0].flags, GT_CAUSAL_NO_DEPENDENCIES);
	ck_assert_int_eq(r.windows[0].tracks, 2);
	gt_causal_result_free(&r);
	gt_model_free(&m);

	/* a third thread without edges is left out when others have some */
	m = load_events(X("A", "op", 1, 1, 0, 5) "," X("B", "op", 1, 2, 2, 1) "," X("C", "op", 1, 3, 0, 100) ","
			FLOW("s", 1, 1, 1, 1) "," FLOW("f", 1, 1, 2, 2));
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].isolated_tracks, 1);
	ck_assert_int_eq(r.windows[0].tracks, 2);
	ck_assert_int_eq(r.windows[0].spans, 2);
	ck_assert_int_eq(r.windows[0].row_count, 2);
	ck_assert_int_eq(r.windows[0].wall_ns, 5000);
	ck_assert_int_eq(r.windows[0].path_duration_ns, 5000);
	ck_assert_int_eq(r.windows[0].flags, 0);
	gt_causal_result_free(&r);
	gt_model_free(&m);

	/* a device track's annotation does not take part; instants nowhere */
	m = load_events(K("k", 7, 0, 5) "," X("ann", "gpu_user_annotation", 1, 7, 0, 6) "," X("A", "op", 1, 1, 0, 1) ","
			"{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":3,\"s\":\"t\"}");
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.device_track_spans_left_out, 1);
	ck_assert_int_eq(r.spans_taking_part, 2);
	ck_assert_int_eq(r.windows[0].spans, 2);
	ck_assert_int_eq(r.windows[0].path_duration_ns, 5000);
	gt_causal_result_free(&r);
	gt_model_free(&m);

	/* the annotation left out is not in the time range the profiler's
	 * wrapper must hold: the wrapper is left out too (counted again once
	 * the device tracks are known) */
	m = load_events(X("PyTorch Profiler (0)", "Trace", 1, 9, 0, 10) "," K("k", 7, 1, 4) "," X("A", "op", 1, 1, 1, 2)
			"," X("ann", "gpu_user_annotation", 1, 7, 0, 12));
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.device_track_spans_left_out, 1);
	ck_assert_int_eq(r.wrapper_spans_left_out, 1);
	ck_assert_int_eq(r.spans_taking_part, 2);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(flows_left_out)
{
	/* to itself; to an instant; across windows (source in step 1, target
	 * placed by its earlier flow from step 2... ) */
	gt_model m = load_events(X("ProfilerStep#1", "a", 1, 1, 0, 10) "," X("ProfilerStep#2", "a", 1, 1, 10, 10) ","
				 X("P", "op", 1, 2, 0, 30) "," X("Q", "op", 1, 3, 25, 1) ","
				 "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":3,\"ts\":28,\"s\":\"t\"}," FLOW("s", 1, 1, 2, 1)
				 "," FLOW("f", 1, 1, 2, 2) "," FLOW("s", 2, 1, 2, 5) "," FLOW("f", 2, 1, 3, 28) ","
				 FLOW("s", 3, 1, 2, 12) "," FLOW("f", 3, 1, 3, 25));
	gt_causal_options o = options();
	o.step_glob = "ProfilerStep#*";
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	/* P (B at 0) is in step 1; Q is placed by flow 3, departing at 12 in
	 * step 2, where its source P is not: left out there */
	ck_assert_int_eq(r.windows[0].flows_left_out[GT_CAUSAL_FLOW_SELF], 1);
	ck_assert_int_eq(r.windows[0].flows_left_out[GT_CAUSAL_FLOW_NOT_TAKING_PART], 1);
	ck_assert_int_eq(r.windows[1].flows_left_out[GT_CAUSAL_FLOW_OTHER_WINDOW], 1);
	ck_assert_int_eq(r.windows[1].spans, 2);
	for (int k = 0; k < GT_CAUSAL_LEFT_OUT_COUNT; k++)
		ck_assert_str_ne(gt_causal_left_out_names[k], "");
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(extra_wait_names)
{
	gt_model m = load_events(X("l", "rt", 1, 1, 0, 2) "," X("myWait", "rt", 1, 1, 10, 10) "," K("k", 7, 5, 12) ","
				 FLOW("s", 1, 1, 1, 1) "," FLOW("f", 1, 1, 7, 5));
	gt_causal_options o = options();
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	ck_assert_int_eq(r.windows[0].wait_edges, 0);
	gt_causal_result_free(&r);
	const char *names[] = {"^my", "Wait$"};
	o.wait_names = names;
	o.wait_name_count = 2;
	analyze_ok(&m, &o, &r);
	check_result(&m, &r);
	ck_assert_int_eq(r.windows[0].wait_edges, 1);
	/* the sync's E (20) bound by k's E (17): a wait hop of 3 */
	ck_assert_int_eq(r.windows[0].endpoint.span, 1);
	ck_assert_int_eq(r.windows[0].hops[r.windows[0].hop_count - 1].kind, GT_CAUSAL_WAIT);
	ck_assert_int_eq(r.windows[0].hops[r.windows[0].hop_count - 1].duration_ns, 3000);
	ck_assert_int_eq(r.windows[0].hops[r.windows[0].hop_count - 1].owner, 1);
	ck_assert_int_eq(row_of(&r.windows[0], 1)->waited_ns, 7000);
	gt_causal_result_free(&r);
	gt_model_free(&m);
}
END_TEST

START_TEST(errors)
{
	char msg[1024];
	gt_causal_options o = options();
	gt_model m = load_events("{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":3,\"ts\":28,\"s\":\"t\"},"
				 "{\"ph\":\"b\",\"name\":\"as\",\"cat\":\"c\",\"id\":1,\"pid\":1,\"ts\":1},"
				 "{\"ph\":\"e\",\"name\":\"as\",\"cat\":\"c\",\"id\":1,\"pid\":1,\"ts\":2}");
	ck_assert_int_eq(analyze_fails(&m, &o, msg, sizeof msg), GT_EINPUT);
	ck_assert_ptr_nonnull(strstr(msg, "no thread-track span takes part"));
	gt_model_free(&m);

	m = load_events(STEPS);
	o.step_glob = "Nothing*";
	ck_assert_int_eq(analyze_fails(&m, &o, msg, sizeof msg), GT_EINPUT);
	ck_assert_ptr_nonnull(strstr(msg, "matches no span"));
	/* a model whose recorded start is after a span's (a damaged index):
	 * the windows' placing would misread that span's offset */
	int64_t start = m.start_ns;
	m.start_ns = m.spans[span_named(&m, "ProfilerStep#1")].ts_ns + 1;
	o.step_glob = "ProfilerStep#*";
	ck_assert_int_eq(analyze_fails(&m, &o, msg, sizeof msg), GT_EINPUT);
	ck_assert_ptr_nonnull(strstr(msg, "starts at 0 ns, outside the trace's time range"));
	m.start_ns = start;
	gt_causal_result r;
	analyze_ok(&m, &o, &r);
	gt_causal_result_free(&r);
	o.step_glob = NULL;
	o.has_window = true;
	o.window_begin_ns = 30000;
	o.window_end_ns = 40000;
	ck_assert_int_eq(analyze_fails(&m, &o, msg, sizeof msg), GT_EINPUT);
	ck_assert_ptr_nonnull(strstr(msg, "holds no span"));
	o.window_begin_ns = 5000;
	o.window_end_ns = 4000;
	ck_assert_int_eq(analyze_fails(&m, &o, msg, sizeof msg), GT_EUSAGE);
	o.has_window = false;
	const char *bad[] = {"fine", "(unclosed"};
	o.wait_names = bad;
	o.wait_name_count = 2;
	ck_assert_int_eq(analyze_fails(&m, &o, msg, sizeof msg), GT_EUSAGE);
	ck_assert_ptr_nonnull(strstr(msg, "(unclosed"));
	gt_model_free(&m);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(gt_causal_kind_names[GT_CAUSAL_QUEUE], "queue");
	ck_assert_str_eq(gt_causal_flag_names[0], "no_dependencies");
	ck_assert_str_eq(gt_causal_flag_names[2], "overflow");
}
END_TEST

/* --- random traces against brute-force graph steps -------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	return gt_splitmix64(&rng_state);
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

typedef struct text {
	char *s;
	size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[512];
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (t->n + (size_t)k + 2 > t->cap) {
		t->cap = (t->n + (size_t)k + 2) * 2;
		t->s = realloc(t->s, t->cap);
		ck_assert_ptr_nonnull(t->s);
	}
	if (t->n)
		t->s[t->n++] = ',';
	memcpy(t->s + t->n, buf, (size_t)k + 1);
	t->n += (size_t)k;
}

/* A thread nested 200 deep, twice in a row (the walk's stack grows past
 * its first room; on threads each nest is a piece of its own), the second
 * nest with a span that outlives the two innermost (the general walk):
 * span i of a nest is [10i, 4000 - 10i] us from the nest's start, so
 * every span owns 10 us at each end; in the second, x [2000, 2025] is the
 * latest started from 2000 to its end, and span 197 owns 2025-2030. */
START_TEST(deep_nesting)
{
	text t = {0};
	for (int nest = 0; nest < 2; nest++) {
		int base = nest * 5000;
		for (int i = 0; i < 200; i++)
			add(&t, "{\"ph\":\"X\",\"name\":\"s%d_%d\",\"cat\":\"op\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}",
			    nest, i, base + 10 * i, 4000 - 20 * i);
	}
	add(&t, "{\"ph\":\"X\",\"name\":\"x\",\"cat\":\"op\",\"pid\":1,\"tid\":1,\"ts\":7000,\"dur\":25}");
	gt_model m = load_events(t.s);
	free(t.s);
	for (uint32_t threads = 1; threads <= 3; threads += 2) {
		gt_causal_options o = options();
		o.threads = threads;
		gt_causal_result r;
		analyze_ok(&m, &o, &r);
		check_result(&m, &r);
		const gt_causal_window *w = &r.windows[0];
		ck_assert_int_eq(w->path_duration_ns, 9000000);
		for (uint32_t i = 0; i < 200; i++) {
			ck_assert_int_eq(row_of(w, i)->critical_ns, 20000);
			int64_t second = i == 197 ? 15000 : i >= 198 ? 10000 : 20000;
			ck_assert_int_eq(row_of(w, 200 + i)->critical_ns, second);
		}
		ck_assert_int_eq(row_of(w, 400)->critical_ns, 25000);
		gt_causal_result_free(&r);
	}
	gt_model_free(&m);
}
END_TEST

typedef struct rspan {
	int pid, tid;
	int ts, dur;
} rspan;

/* Nested spans in [lo, hi) on one thread, on a grid coarse enough for ties. */
static void random_nest(text *t, rspan *sp, uint32_t *n, int pid, int tid, int lo, int hi, int depth)
{
	static const char *const span_names[] = {"op", "cudaLaunchKernel", "cudaDeviceSynchronize", "cudaStreamSynchronize",
					    "step", "cudaMemcpy", "wait_here", "autograd::engine::evaluate_function: X"};
	int at = lo;
	while (at < hi && *n < 60 && below(3)) {
		int b = at + (int)below(4), e = b + (int)below(12);
		if (e > hi)
			e = hi;
		if (b > e)
			break;
		const char *name = span_names[below(8)];
		if (depth == 0 && below(2))
			name = "step";
		uint32_t bind = below(6);
		if (bind < 2 && *n < 60) /* v2: flow_out or flow_in of one of three ids */
			add(t, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":%d,"
			       "\"bind_id\":%u,\"%s\":true}",
			    name, below(2) ? "cpu_op" : "cuda_runtime", pid, tid, b, e - b, below(3),
			    bind ? "flow_in" : "flow_out");
		else if (below(8) == 0) /* a B/E pair */
			add(t, "{\"ph\":\"B\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%d},"
			       "{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":%d}",
			    name, pid, tid, b, pid, tid, e);
		else
			add(t, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":%d}", name,
			    below(2) ? "cpu_op" : "cuda_runtime", pid, tid, b, e - b);
		sp[(*n)++] = (rspan){pid, tid, b, e - b};
		if (depth < 3 && e > b)
			random_nest(t, sp, n, pid, tid, b, e, depth + 1);
		at = below(6) ? e : b + 1; /* sometimes improperly nested */
	}
}

static char *random_trace(void)
{
	text t = {0};
	rspan cpu[64], dev[64];
	uint32_t nc = 0, nd = 0;
	uint32_t threads = 1 + below(3);
	for (uint32_t k = 0; k < threads; k++)
		random_nest(&t, cpu, &nc, k == 2 ? 2 : 1, (int)k + 1, (int)below(5), 40 + (int)below(20), 0);
	static const char *const cats[] = {"kernel", "Kernel", "gpu_memcpy", "memset"};
	for (int stream = 7; stream < 7 + (int)below(3); stream++) {
		int at = (int)below(10);
		while (at < 70 && nd < 60 && below(5)) {
			int d = (int)below(8);
			add(&t, "{\"ph\":\"X\",\"name\":\"k%u\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":%d}", nd,
			    cats[below(4)], stream == 9 ? 2 : 1, stream, at, d);
			dev[nd++] = (rspan){stream == 9 ? 2 : 1, stream, at, d};
			at += below(4) ? d + (int)below(5) : (int)below(3); /* sometimes overlapping */
		}
		if (below(3) == 0)
			add(&t, "{\"ph\":\"X\",\"name\":\"ann\",\"cat\":\"gpu_user_annotation\",\"pid\":1,\"tid\":%d,\"ts\":0,"
				"\"dur\":30}",
			    stream);
	}
	if (below(4) == 0)
		add(&t, "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":%u,\"s\":\"t\"}", below(40));
	/* v1 flows from host spans to kernels or host spans */
	uint32_t flows = nc ? below(12) : 0;
	for (uint32_t f = 0; f < flows; f++) {
		const rspan *a = &cpu[below(nc)];
		bool to_dev = nd && below(4);
		const rspan *b = to_dev ? &dev[below(nd)] : &cpu[below(nc)];
		int s_ts = a->ts + (a->dur ? (int)below((uint32_t)a->dur + 1) : 0);
		int f_ts = b->ts + (b->dur && below(2) ? (int)below((uint32_t)b->dur) : 0);
		if (f_ts < s_ts && below(2))
			continue;
		add(&t, "{\"ph\":\"s\",\"name\":\"fl\",\"cat\":\"%s\",\"id\":%u,\"pid\":%d,\"tid\":%d,\"ts\":%d}",
		    below(2) ? "ac2g" : "fwd", f, a->pid, a->tid, s_ts);
		add(&t, "{\"ph\":\"f\",\"name\":\"fl\",\"cat\":\"%s\",\"id\":%u,\"pid\":%d,\"tid\":%d,\"ts\":%d%s}",
		    "ac2g", f, b->pid, b->tid, f_ts, below(4) ? ",\"bp\":\"e\"" : "");
	}
	/* recorded waits: on thread 4 a launch to stream s1, an event record,
	 * a wait (or sync) call, its marker naming the record (sometimes
	 * another, or none) and a launch to stream s2 */
	uint32_t syncs = below(2) ? 0 : 1 + below(4);
	for (uint32_t i = 0; i < syncs; i++) {
		int at = 4 * (int)i + (int)below(40), s1 = 7 + (int)below(2), s2 = 15 - s1;
		int ka = at + 1 + (int)below(10), kb = at + 4 + (int)below(20);
		bool stream_wait = below(3) != 0;
		add(&t, "{\"ph\":\"X\",\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda_runtime\",\"pid\":1,\"tid\":4,"
			"\"ts\":%d,\"dur\":1},{\"ph\":\"X\",\"name\":\"ka%u\",\"cat\":\"kernel\",\"pid\":1,\"tid\":%d,"
			"\"ts\":%d,\"dur\":%u}", at, i, s1, ka, 1 + below(8));
		add(&t, "{\"ph\":\"s\",\"name\":\"fl\",\"cat\":\"ac2g\",\"id\":%u,\"pid\":1,\"tid\":4,\"ts\":%d},"
			"{\"ph\":\"f\",\"name\":\"fl\",\"cat\":\"ac2g\",\"id\":%u,\"pid\":1,\"tid\":%d,\"ts\":%d,\"bp\":\"e\"}",
		    900 + 2 * i, at, 900 + 2 * i, s1, ka);
		add(&t, "{\"ph\":\"X\",\"name\":\"cudaEventRecord\",\"cat\":\"cuda_runtime\",\"pid\":1,\"tid\":4,"
			"\"ts\":%d,\"dur\":1,\"args\":{\"correlation\":%u}}", at + 1, 500 + i);
		add(&t, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"cuda_runtime\",\"pid\":1,\"tid\":4,\"ts\":%d,"
			"\"dur\":%u,\"args\":{\"correlation\":%u}}",
		    stream_wait ? "cudaStreamWaitEvent" : "cudaEventSynchronize", at + 2, 1 + below(20), 600 + i);
		add(&t, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"cuda_sync\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
			"\"dur\":0,\"args\":{\"correlation\":%u,\"wait_on_stream\":%d,"
			"\"wait_on_cuda_event_record_corr_id\":%u}}",
		    stream_wait ? "Stream Wait Event" : "Event Sync", stream_wait ? s2 : -1, at + 2, 600 + i, s1,
		    500 + (below(4) ? i : below(syncs + 1)));
		add(&t, "{\"ph\":\"X\",\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda_runtime\",\"pid\":1,\"tid\":4,"
			"\"ts\":%d,\"dur\":1},{\"ph\":\"X\",\"name\":\"kb%u\",\"cat\":\"kernel\",\"pid\":1,\"tid\":%d,"
			"\"ts\":%d,\"dur\":%u}", at + 3, i, s2, kb, 1 + below(8));
		add(&t, "{\"ph\":\"s\",\"name\":\"fl\",\"cat\":\"ac2g\",\"id\":%u,\"pid\":1,\"tid\":4,\"ts\":%d},"
			"{\"ph\":\"f\",\"name\":\"fl\",\"cat\":\"ac2g\",\"id\":%u,\"pid\":1,\"tid\":%d,\"ts\":%d,\"bp\":\"e\"}",
		    901 + 2 * i, at + 3, 901 + 2 * i, s2, kb);
	}
	if (!t.n)
		add(&t, "{\"ph\":\"X\",\"name\":\"only\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}");
	return t.s;
}

/* The graph steps by their definitions, slowly. */
static int bind_brute(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	(void)ctx;
	/* the driver checks only the ranges of its graphs: the shape is its own */
	ck_assert_msg(gt_cpm_check(g, err) == 0, "%s", err->msg);
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t best = GT_CP_ROOT, kind = GT_CPM_EDGE_NONE, edge = GT_CP_NONE;
		for (uint32_t k = 0; k < g->tracks; k++)
			for (uint32_t i = g->chain_start[k] + 1; i < g->chain_start[k + 1]; i++)
				if (g->chain[i] == v)
					best = g->chain[i - 1], kind = GT_CPM_EDGE_CHAIN;
		for (uint32_t e = 0; e < g->m; e++) {
			if (g->edge_dst[e] != v)
				continue;
			uint32_t u = g->edge_src[e];
			bool better = best == GT_CP_ROOT || g->time[u] > g->time[best] ||
				      (g->time[u] == g->time[best] &&
				       (g->edge_kind[e] < kind || (g->edge_kind[e] == kind && u < best)));
			if (better)
				best = u, kind = g->edge_kind[e], edge = e;
		}
		out->parent[v] = best;
		if (out->gap)
			out->gap[v] = best == GT_CP_ROOT ? 0 : g->time[v] - g->time[best];
		out->kind[v] = (uint8_t)kind;
		out->edge[v] = edge;
	}
	return 0;
}

static int path_brute(void *ctx, const uint32_t *parent, const int64_t *gap, uint32_t n, gt_cp_rows *out,
		      gt_cp_summary *sum, gt_error *err)
{
	(void)ctx, (void)err;
	memset(sum, 0, sizeof *sum);
	sum->endpoint = GT_CP_NONE;
	for (uint32_t i = 0; i < n; i++) {
		int64_t total = 0;
		uint32_t j = i, hops = 0;
		while (parent[j] != GT_CP_ROOT && hops <= n) {
			total += gap[j];
			j = parent[j];
			hops++;
		}
		bool cycle = hops > n;
		if (cycle)
			sum->flags |= GT_CP_CYCLE;
		out->path_duration[i] = cycle ? -1 : total;
		out->hop_count[i] = cycle ? GT_CP_NONE : hops;
		out->root[i] = cycle ? GT_CP_NONE : j;
		out->critical_predecessor[i] = cycle ? GT_CP_NONE : parent[i];
		out->critical_mask[i] = 0;
		if (!cycle && (sum->endpoint == GT_CP_NONE || total > sum->max_path_duration)) {
			sum->max_path_duration = total;
			sum->endpoint = i;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		out->slack[i] = out->path_duration[i] < 0 ? -1 : sum->max_path_duration - out->path_duration[i];
	if (sum->endpoint != GT_CP_NONE)
		sum->path_rows = out->hop_count[sum->endpoint] + 1;
	return 0;
}

/* The path's durations by walking each point up to its root. */
static int durations_brute(void *ctx, const uint32_t *parent, const int64_t *time, uint32_t n, int64_t *path_duration,
			   gt_error *err)
{
	(void)ctx, (void)err;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i, hops = 0;
		while (parent[j] != GT_CP_ROOT && hops <= n)
			j = parent[j], hops++;
		if (hops > n)
			return 1; /* a cycle: the path step gives the flags */
		path_duration[i] = time[i] - time[j];
	}
	return 0;
}

/* Both in one, as an engine that keeps the bound graph: the driver leaves
 * the gaps out and fills them itself where a cycle needs the full path. */
/* The binding (kept aside, as a device keeps it), then the graph's chains
 * and cross edges told read (the caller may drop them: they must not be
 * read again, and may make out's arrays and *path_duration only then),
 * then the results in the caller's arrays, and the durations. */
static int bind_durations_brute(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, int64_t **path_duration,
				const gt_cpm_read_hook *read, gt_error *err)
{
	ck_assert_ptr_null(out->gap);
	size_t n = g->n ? g->n : 1;
	gt_cpm_binding kept = {malloc(n * sizeof *kept.parent), NULL, malloc(n), malloc(n * sizeof *kept.edge)};
	ck_assert(kept.parent && kept.kind && kept.edge);
	int rc = bind_brute(ctx, g, &kept, err);
	if (rc >= 0 && read) {
		rc = read->read(read->arg);
		ck_assert(g->n == 0 || (!g->chain && !g->edge_src && !g->edge_dst && !g->work));
	}
	if (rc >= 0) {
		memcpy(out->parent, kept.parent, g->n * sizeof *kept.parent);
		memcpy(out->kind, kept.kind, g->n);
		memcpy(out->edge, kept.edge, g->n * sizeof *kept.edge);
	}
	free(kept.parent), free(kept.kind), free(kept.edge);
	return rc < 0 ? rc : durations_brute(ctx, out->parent, g->time, g->n, *path_duration, err);
}

static int floats_brute(void *ctx, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err)
{
	(void)ctx, (void)err;
	for (uint32_t k = 0; k < g->tracks; k++)
		for (uint32_t i = g->chain_start[k]; i < g->chain_start[k + 1]; i++)
			lt[g->chain[i]] = gt_cpm_horizon(g, k);
	bool changed = true;
	uint32_t rounds = 0;
	while (changed) {
		changed = false;
		rounds++;
		for (uint32_t k = 0; k < g->tracks; k++)
			for (uint32_t i = g->chain_start[k]; i + 1 < g->chain_start[k + 1]; i++) {
				uint32_t u = g->chain[i], w = g->chain[i + 1];
				int64_t lag = g->work[i] ? g->time[w] - g->time[u] : 0;
				if (lt[w] - lag < lt[u])
					lt[u] = lt[w] - lag, changed = true;
			}
		for (uint32_t e = 0; e < g->m; e++)
			if (lt[g->edge_dst[e]] < lt[g->edge_src[e]])
				lt[g->edge_src[e]] = lt[g->edge_dst[e]], changed = true;
	}
	if (stats)
		stats->rounds = rounds;
	return 0;
}

/* Every hop of work belongs to the latest-started span open across it,
 * an idle hop to none (checked where the gap is positive, so ties in the
 * chain order do not matter). */
static void check_owners(const gt_model *m, const gt_causal_window *w)
{
	for (uint32_t i = 0; i < w->hop_count; i++) {
		const gt_causal_hop *h = &w->hops[i];
		if ((h->kind != GT_CAUSAL_WORK && h->kind != GT_CAUSAL_IDLE) || h->duration_ns == 0)
			continue;
		int64_t best = INT64_MIN;
		for (uint32_t r = 0; r < w->row_count; r++) {
			const gt_span *s = &m->spans[w->rows[r].span];
			if (s->track == h->track && s->ts_ns <= h->from.ts_ns && s->ts_ns + s->dur_ns >= h->to.ts_ns &&
			    s->ts_ns > best)
				best = s->ts_ns;
		}
		if (h->kind == GT_CAUSAL_IDLE)
			ck_assert_msg(best == INT64_MIN, "an idle hop inside a span");
		else
			ck_assert_int_eq(m->spans[h->owner].ts_ns, best);
	}
}

static void same_window(const gt_causal_window *a, const gt_causal_window *b)
{
	ck_assert_int_eq(a->wall_ns, b->wall_ns);
	ck_assert_int_eq(a->path_duration_ns, b->path_duration_ns);
	ck_assert_int_eq(a->points, b->points);
	ck_assert_int_eq(a->flags, b->flags);
	ck_assert_int_eq(a->endpoint.point, b->endpoint.point);
	ck_assert_int_eq(a->root.point, b->root.point);
	ck_assert_int_eq(a->hop_count, b->hop_count);
	for (int c = 0; c < GT_CAUSAL_CLASS_COUNT; c++)
		ck_assert_int_eq(a->class_ns[c], b->class_ns[c]);
	for (uint32_t i = 0; a->hops && b->hops && i < a->hop_count; i++) {
		ck_assert_int_eq(a->hops[i].kind, b->hops[i].kind);
		ck_assert_int_eq(a->hops[i].from.point, b->hops[i].from.point);
		ck_assert_int_eq(a->hops[i].to.point, b->hops[i].to.point);
		ck_assert_int_eq(a->hops[i].owner, b->hops[i].owner);
		ck_assert_int_eq(a->hops[i].flow, b->hops[i].flow);
		ck_assert_int_eq(a->hops[i].duration_ns, b->hops[i].duration_ns);
	}
	ck_assert_int_eq(a->breakdown_count, b->breakdown_count);
	for (uint32_t i = 0; i < a->breakdown_count; i++) {
		ck_assert_int_eq(a->breakdown[i].kind, b->breakdown[i].kind);
		ck_assert_int_eq(a->breakdown[i].key, b->breakdown[i].key);
		ck_assert_int_eq(a->breakdown[i].critical_ns, b->breakdown[i].critical_ns);
	}
	ck_assert_int_eq(a->row_count, b->row_count);
	for (uint32_t i = 0; i < a->row_count; i++) {
		const gt_causal_row *x = &a->rows[i], *y = &b->rows[i];
		ck_assert_msg(x->span == y->span && x->float_ns == y->float_ns && x->on_path == y->on_path &&
				      x->critical_ns == y->critical_ns && x->waited_ns == y->waited_ns &&
				      x->caused_wait_ns == y->caused_wait_ns,
			      "row %u: float %" PRId64 " vs %" PRId64, i, x->float_ns, y->float_ns);
	}
}

START_TEST(random_vs_brute_force)
{
	rng_state = 0x5eed0000u + (uint64_t)_i;
	uint64_t recorded_seen = 0;
	for (int round = 0; round < 60; round++) {
		/* sometimes the host's binding under the engine's path: it must
		 * then give the gaps the path reads */
		gt_causal_engine brute = {NULL, below(3) ? bind_brute : NULL, path_brute, floats_brute,
					  below(2) ? durations_brute : NULL, below(3) ? NULL : bind_durations_brute};
		char *events = random_trace();
		if (getenv("GT_DUMP"))
			printf("[%s]\n", events);
		gt_model m = load_events(events);
		gt_causal_options o = options();
		o.by = (uint8_t)below(2);
		o.threads = 1 + below(3);
		o.handoffs = below(2); /* the optional edge kinds too */
		o.recorded_waits = below(3) != 0;
		o.stream_wait_slack_ns = below(2) ? (int64_t)(1 + below(8)) * 1000 : 0;
		const char *extra[] = {"^wait_here$"};
		if (below(2)) {
			o.wait_names = extra;
			o.wait_name_count = 1;
		}
		switch (below(3)) {
		case 0:
			o.step_glob = "step";
			break;
		case 1:
			o.has_window = true;
			o.window_begin_ns = (int64_t)below(30) * 1000;
			o.window_end_ns = o.window_begin_ns + (int64_t)below(40) * 1000;
			break;
		}
		gt_causal_result host, slow;
		gt_error e1 = {0}, e2 = {0};
		/* the host in batches of any size (down to a window each), brute
		 * force on all windows at once: the same results */
		gt_causal_options ob = o;
		ob.batch_points = below(3) ? 0 : 1 + below(60);
		int rc1 = gt_causal_analyze(&m, &ob, NULL, &host, &e1);
		/* and an engine's batches, built beside the steps of the one before */
		gt_causal_options od = o;
		od.batch_points = below(2) ? 0 : 1 + below(60);
		int rc2 = gt_causal_analyze(&m, &od, &brute, &slow, &e2);
		ck_assert_int_eq(rc1, rc2);
		/* one thread: the trace-wide passes and the batches the same */
		gt_causal_result alone;
		gt_error e4 = {0};
		gt_causal_options o1 = ob;
		o1.threads = 1;
		ck_assert_int_eq(gt_causal_analyze(&m, &o1, NULL, &alone, &e4), rc1);
		if (rc1 == 0) {
			ck_assert_uint_eq(alone.window_count, host.window_count);
			ck_assert_uint_eq(alone.spans_taking_part, host.spans_taking_part);
			ck_assert_uint_eq(alone.device_track_spans_left_out, host.device_track_spans_left_out);
			ck_assert_uint_eq(alone.wrapper_spans_left_out, host.wrapper_spans_left_out);
		}
		for (uint32_t w = 0; rc1 == 0 && w < alone.window_count; w++)
			same_window(&alone.windows[w], &host.windows[w]);
		if (rc1 == 0)
			gt_causal_result_free(&alone);
		else
			ck_assert_str_eq(e4.msg, e1.msg);
		/* the hops' count alone: the same result, without the hops */
		gt_causal_result counted;
		gt_error e3 = {0};
		ob.hop_count_only = true;
		ob.rows = below(2); /* the hops go after the path, or after the rows */
		ck_assert_int_eq(gt_causal_analyze(&m, &ob, NULL, &counted, &e3), rc1);
		for (uint32_t w = 0; rc1 == 0 && w < counted.window_count; w++) {
			gt_causal_window like = host.windows[w];
			if (!ob.rows)
				like.rows = NULL, like.row_count = 0;
			ck_assert_ptr_null(counted.windows[w].hops);
			same_window(&counted.windows[w], &like);
		}
		if (rc1 == 0)
			gt_causal_result_free(&counted);
		/* the engine without rows: where its batch is one window, the
		 * union's chains and cross edges go once its binding has read them */
		gt_causal_options on = od;
		on.rows = false;
		gt_causal_result lean;
		gt_error e5 = {0};
		ck_assert_int_eq(gt_causal_analyze(&m, &on, &brute, &lean, &e5), rc1);
		for (uint32_t w = 0; rc1 == 0 && w < lean.window_count; w++) {
			gt_causal_window like = host.windows[w];
			like.rows = NULL, like.row_count = 0;
			same_window(&lean.windows[w], &like);
		}
		if (rc1 == 0)
			gt_causal_result_free(&lean);
		if (rc1 == 0) {
			check_result(&m, &host);
			ck_assert_int_eq(host.window_count, slow.window_count);
			for (uint32_t w = 0; w < host.window_count; w++)
				recorded_seen += host.windows[w].recorded_stream_waits + host.windows[w].recorded_event_syncs;
			for (uint32_t w = 0; w < host.window_count; w++) {
				if (getenv("GT_CAUSAL_STATS")) {
					const gt_causal_window *x = &host.windows[w];
					printf("stat ok flows %" PRIu64 " waits %" PRIu64 " back %" PRIu64 " iso %" PRIu64 " flags %u hops %s dpts %u\n",
					       x->flow_edges, x->wait_edges, x->backward_edges, x->isolated_tracks, x->flags,
					       hop_kinds(x), x->points - 2 * x->spans);
				}
				same_window(&host.windows[w], &slow.windows[w]);
				check_owners(&m, &host.windows[w]);
			}
			gt_causal_result_free(&host);
			gt_causal_result_free(&slow);
		} else {
			if (getenv("GT_CAUSAL_STATS"))
				printf("stat fail %s\n", e1.msg);
			ck_assert_int_eq(e1.status, e2.status);
			ck_assert_str_eq(e1.msg, e2.msg);
		}
		gt_model_free(&m);
		free(events);
	}
	/* the recorded waits' edges are in the graphs compared */
	ck_assert_msg(recorded_seen > 0, "no recorded wait in 60 random traces");
}
END_TEST

/* An engine whose float fails on graphs above a size, as a device out of
 * memory would: the union of several windows fails after their paths are
 * filled, and the driver must drop those and run each window alone. */
static uint32_t float_limit;

static int floats_limited(void *ctx, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err)
{
	(void)ctx;
	if (g->n > float_limit)
		return gt_fail(err, GT_EDEVICE, "too big for the test engine");
	return gt_cpm_float_host(g, lt, stats, err);
}

START_TEST(union_failure_runs_windows_alone)
{
	rng_state = 0xfa110000u + (uint64_t)_i;
	gt_causal_engine limited = {NULL, NULL, NULL, floats_limited, NULL, NULL};
	uint32_t fell_back = 0;
	for (int round = 0; round < 80; round++) {
		char *events = random_trace();
		gt_model m = load_events(events);
		gt_causal_options o = options();
		o.step_glob = "step";
		o.threads = 1 + below(2);
		gt_causal_result host, dev;
		gt_error e1 = {0}, e2 = {0};
		int rc1 = gt_causal_analyze(&m, &o, NULL, &host, &e1);
		if (rc1 == 0) {
			uint32_t most = 0, total = 0;
			for (uint32_t w = 0; w < host.window_count; w++) {
				most = host.windows[w].points > most ? host.windows[w].points : most;
				total += host.windows[w].points;
			}
			float_limit = most; /* every window alone fits, the union of two does not */
			fell_back += total > most;
			ck_assert_msg(gt_causal_analyze(&m, &o, &limited, &dev, &e2) == 0, "%s", e2.msg);
			ck_assert_int_eq(host.window_count, dev.window_count);
			for (uint32_t w = 0; w < host.window_count; w++)
				same_window(&host.windows[w], &dev.windows[w]);
			gt_causal_result_free(&dev);
			gt_causal_result_free(&host);
			/* and where a window alone is too big, its error */
			float_limit = most - 1;
			ck_assert_int_eq(gt_causal_analyze(&m, &o, &limited, &dev, &e2), -1);
			ck_assert_str_eq(e2.msg, "too big for the test engine");
		}
		gt_model_free(&m);
		free(events);
	}
	ck_assert(fell_back > 10);
}
END_TEST

/* Wait targets by their definition: among the candidates from W's
 * process departing at or before B(W), the target with the latest end at
 * or before E(W), ties the lowest id. */
static uint32_t brute_wait_target(const causal_trace *t, const uint32_t *cand, uint32_t nc, uint32_t w)
{
	const gt_model *m = t->m;
	const gt_span *ws = &m->spans[w];
	uint32_t best = GT_NONE, proc = m->tracks[ws->track].process;
	for (uint32_t i = 0; i < nc; i++) {
		const gt_flow *f = &m->flows[cand[i]];
		int64_t end = m->spans[f->dst].ts_ns + m->spans[f->dst].dur_ns;
		if (m->tracks[m->spans[f->src].track].process != proc || t->departure[cand[i]] > ws->ts_ns ||
		    end > ws->ts_ns + ws->dur_ns)
			continue;
		int64_t bend = best == GT_NONE ? 0 : m->spans[best].ts_ns + m->spans[best].dur_ns;
		if (best == GT_NONE || end > bend || (end == bend && f->dst < best))
			best = f->dst;
	}
	return best;
}

/* Both ways of finding wait targets (waits of a process overlapping or
 * not) against the definition, on the whole trace's candidates. */
START_TEST(random_wait_targets)
{
	rng_state = 0x3a170000u + (uint64_t)_i;
	uint32_t ordered = 0, overlapping = 0;
	for (int round = 0; round < 200; round++) {
		char *events = random_trace();
		gt_model m = load_events(events);
		gt_causal_options o = options();
		causal_trace t;
		gt_error err = {0};
		if (causal_trace_init(&t, &m, &o, &err) == 0) {
			uint32_t cand[256], waits[256], target[256], got[256], nc = 0, nw = 0;
			for (uint32_t f = 0; f < m.flow_count && nc < 256; f++) {
				const gt_flow *fl = &m.flows[f];
				if (fl->src != fl->dst && causal_takes_part(&t, fl->src) && causal_takes_part(&t, fl->dst) &&
				    (t.span_class[fl->dst] & CAUSAL_DEVICE))
					cand[nc++] = f;
			}
			for (uint32_t i = 0; i < m.span_count && nw < 256; i++)
				if (t.span_class[i] & CAUSAL_WAIT)
					waits[nw++] = i;
			/* on threads too: candidates in ranges (GPUTRACE_CAUSAL_RANGE) */
			ck_assert_int_eq(causal_wait_targets(&t, cand, nc, waits, nw, 1 + below(3), target, &err), 0);
			for (uint32_t i = 0; i < nw; i++)
				ck_assert_uint_eq(target[i], brute_wait_target(&t, cand, nc, waits[i]));
			int rc = nc && nw ? causal_wait_targets_ordered(&t, cand, nc, waits, nw, 1 + below(3), got, &err) : 1;
			ck_assert_int_ge(rc, 0);
			for (uint32_t i = 0; rc == 0 && i < nw; i++)
				ck_assert_uint_eq(got[i], target[i]);
			ordered += rc == 0, overlapping += rc == 1;
		}
		causal_trace_free(&t);
		gt_model_free(&m);
		free(events);
	}
	ck_assert(ordered > 10 && overlapping > 10);
}
END_TEST

/* The device span before d on its track by track order (start, longer
 * first, id), slowly. */
static uint32_t brute_previous(const causal_trace *t, uint32_t d)
{
	const gt_model *m = t->m;
	const gt_span *s = &m->spans[d];
	uint32_t prev = GT_NONE;
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *p = &m->spans[i];
		if (i == d || p->track != s->track || !causal_takes_part(t, i) || !(t->span_class[i] & CAUSAL_DEVICE))
			continue;
		bool before = p->ts_ns < s->ts_ns || (p->ts_ns == s->ts_ns && (p->dur_ns > s->dur_ns ||
										 (p->dur_ns == s->dur_ns && i < d)));
		if (!before)
			continue;
		const gt_span *q = prev == GT_NONE ? NULL : &m->spans[prev];
		if (!q || p->ts_ns > q->ts_ns || (p->ts_ns == q->ts_ns && (p->dur_ns < q->dur_ns ||
									    (p->dur_ns == q->dur_ns && i > prev))))
			prev = i;
	}
	return prev;
}

/* The previous device span of every device span against brute_previous,
 * on 1 to 4 threads: a track of more than a thread's share is ordered in
 * ranges (GPUTRACE_CAUSAL_RANGE), on every thread, sorted or not. */
START_TEST(random_previous_device_spans)
{
	rng_state = 0x9e7a0000u + (uint64_t)_i;
	uint64_t checked = 0, unsorted = 0, host_targets = 0;
	for (int round = 0; round < 400; round++) {
		char *events = random_trace();
		gt_model m = load_events(events);
		gt_causal_options o = options();
		o.stream_wait_slack_ns = 1000;
		o.threads = 1 + (unsigned)(round % 4);
		causal_trace t;
		gt_error err = {0};
		if (causal_trace_init(&t, &m, &o, &err) == 0) {
			ck_assert_ptr_nonnull(t.prev_device);
			for (uint32_t d = 0; d < m.span_count; d++) {
				if (!(t.span_class[d] & CAUSAL_DEVICE) || !causal_takes_part(&t, d))
					continue; /* its entry is not set */
				uint32_t want = brute_previous(&t, d);
				ck_assert_msg(t.prev_device[d] == want, "round %d span %u: %u, want %u", round, d,
					      t.prev_device[d], want);
				checked++;
				unsorted += want != GT_NONE && want > d;
			}
			/* a flow whose target is not a device span taking part queues behind none */
			for (uint32_t f = 0; f < m.flow_count; f++) {
				uint32_t dst = m.flows[f].dst;
				if (dst == GT_NONE || !(t.span_class[dst] & CAUSAL_DEVICE)) {
					ck_assert_uint_eq(causal_queue_of(&t, f), GT_NONE);
					host_targets++;
				}
			}
		}
		causal_trace_free(&t);
		gt_model_free(&m);
		free(events);
	}
	ck_assert_msg(checked > 1000 && unsorted > 20 && host_targets > 100, "%llu checked, %llu out of id order, %llu host targets",
		      (unsigned long long)checked, (unsigned long long)unsorted, (unsigned long long)host_targets);
}
END_TEST

/* The span d waited for by the stream-wait rule, slowly: its arrival from
 * every kept flow of its window, its track's previous span by track
 * order (start, longer first, id), then every device span of the window. */
static uint32_t brute_stream_wait(const causal_trace *t, uint32_t w, uint32_t d)
{
	const gt_model *m = t->m;
	const gt_span *s = &m->spans[d];
	int64_t ready = INT64_MIN;
	for (uint32_t f = 0; f < m->flow_count; f++) {
		const gt_flow *fl = &m->flows[f];
		if (fl->dst == d && fl->src != d && causal_takes_part(t, fl->src) && t->window_of[fl->src] == w &&
		    t->departure[f] <= s->ts_ns && t->departure[f] > ready)
			ready = t->departure[f];
	}
	uint32_t prev = brute_previous(t, d);
	if (prev != GT_NONE && causal_end(&m->spans[prev]) > ready)
		ready = causal_end(&m->spans[prev]);
	if (ready == INT64_MIN || s->ts_ns <= ready)
		return GT_NONE;
	uint32_t best = GT_NONE, proc = m->tracks[s->track].process;
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *k = &m->spans[i];
		int64_t end = causal_end(k);
		if (!causal_takes_part(t, i) || !(t->span_class[i] & CAUSAL_DEVICE) || t->window_of[i] != w ||
		    k->track == s->track || m->tracks[k->track].process != proc || end <= ready || end > s->ts_ns ||
		    s->ts_ns - end > t->stream_wait_slack)
			continue;
		if (best == GT_NONE || end > causal_end(&m->spans[best]) || (end == causal_end(&m->spans[best]) && i < best))
			best = i;
	}
	return best;
}

/* The flows window w keeps as edges, by the rule (causal.h): both ends
 * take part in w, not a span to itself, not backward; in w's judging
 * order (*n of them, free()). */
static uint32_t *window_flow_edges(const causal_trace *t, uint32_t w, uint32_t *n)
{
	const gt_model *m = t->m;
	uint32_t *f = malloc(((size_t)m->flow_count + 1) * sizeof *f);
	ck_assert_ptr_nonnull(f);
	*n = 0;
	for (uint32_t a = t->flow_first[w]; a < t->flow_first[w + 1]; a++) {
		uint32_t i = t->flows_by_window[a];
		const gt_flow *fl = &m->flows[i];
		if (fl->src == fl->dst || !causal_takes_part(t, fl->src) || !causal_takes_part(t, fl->dst) ||
		    t->window_of[fl->src] != w || t->window_of[fl->dst] != w || t->departure[i] > m->spans[fl->dst].ts_ns)
			continue;
		f[(*n)++] = i;
	}
	return f;
}

/* The inferred stream waits of every window against the rule, on random
 * traces with several streams, whole and per step, at several slacks. */
START_TEST(random_stream_waits)
{
	rng_state = 0x57e40000u + (uint64_t)_i;
	uint64_t found = 0;
	for (int round = 0; round < 1000; round++) {
		char *events = random_trace();
		gt_model m = load_events(events);
		gt_causal_options o = options();
		o.stream_wait_slack_ns = (int64_t)(1 + below(8)) * 1000 * (round % 3 ? 10 : 1);
		if (round % 2)
			o.step_glob = "step";
		causal_trace t;
		gt_error err = {0};
		if (causal_trace_init(&t, &m, &o, &err) == 0) {
			for (uint32_t w = 0; w < t.window_count; w++) {
				uint32_t *k, *d, n, nf;
				uint32_t *fl = window_flow_edges(&t, w, &nf);
				ck_assert_int_eq(causal_stream_waits(&t, w, fl, nf, 1 + round % 3, &k, &d, &n, &err), 0);
				free(fl);
				uint32_t j = 0;
				for (uint32_t a = t.span_first[w]; a < t.span_first[w + 1]; a++) {
					uint32_t s = t.spans_by_window[a];
					if (!(t.span_class[s] & CAUSAL_DEVICE) || !causal_takes_part(&t, s))
						continue;
					uint32_t want = brute_stream_wait(&t, w, s);
					if (want == GT_NONE)
						continue;
					ck_assert_msg(j < n && d[j] == s && k[j] == want, "round %d window %u span %u: %u, want %u",
						      round, w, s, j < n && d[j] == s ? k[j] : GT_NONE, want);
					j++;
				}
				ck_assert_uint_eq(j, n);
				found += n;
				gt_big_free(k), gt_big_free(d);
			}
			/* and the analysis stays sound with them */
			gt_causal_result r;
			if (gt_causal_analyze(&m, &o, NULL, &r, &err) == 0) {
				check_result(&m, &r);
				gt_causal_result_free(&r);
			}
		}
		causal_trace_free(&t);
		gt_model_free(&m);
		free(events);
	}
	ck_assert_msg(found > 30, "%llu stream waits", (unsigned long long)found);
}
END_TEST

/* --- every shared real trace ------------------------------------------------ */

static bool trace_file(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 3 && strcmp(name + n - 3, ".gz") == 0);
}

/* Prints the figures of a window when GT_CAUSAL_REPORT is set. */
static void report(const gt_model *m, const char *name, const gt_causal_result *r, double secs)
{
	if (!getenv("GT_CAUSAL_REPORT"))
		return;
	const gt_causal_window *w = &r->windows[0];
	printf("%s: spans %u taking part %" PRIu64 " windows %u points %u flows %" PRIu64 " waits %" PRIu64
	       " backward %" PRIu64 " isolated %" PRIu64 " flags %u wall %" PRId64 " path %" PRId64 " (%.1f%%) %.3fs\n",
	       name, m->span_count, r->spans_taking_part, r->window_count, w->points, w->flow_edges, w->wait_edges,
	       w->backward_edges, w->isolated_tracks, w->flags, w->wall_ns, w->path_duration_ns,
	       w->wall_ns ? 100.0 * (double)w->path_duration_ns / (double)w->wall_ns : 0.0, secs);
	uint32_t shown = 0;
	for (uint32_t k = 0; k < GT_CAUSAL_KIND_COUNT; k++)
		for (uint32_t i = 0; i < w->breakdown_count; i++) {
			const gt_causal_share *s = &w->breakdown[i];
			if (s->kind != k || shown >= 3)
				continue;
			(void)s;
		}
	/* the three largest shares, whatever their kind */
	int64_t last = INT64_MAX;
	uint32_t last_i = GT_NONE;
	if (getenv("GT_CAUSAL_HOPS")) {
		for (uint32_t i = 0; i < w->hop_count; i++) {
			const gt_causal_hop *h = &w->hops[i];
			if (h->duration_ns * 50 < w->path_duration_ns)
				continue;
			printf("  hop %u %s %s %" PRId64 " %c(%s) -> %c(%s)\n", i, gt_causal_kind_names[h->kind],
			       h->owner == GT_NONE ? "-" : gt_model_str(m, m->spans[h->owner].name), h->duration_ns,
			       h->from.which, h->from.span == GT_NONE ? "" : gt_model_str(m, m->spans[h->from.span].name),
			       h->to.which, gt_model_str(m, m->spans[h->to.span].name));
		}
	}
	for (shown = 0; shown < 3 && shown < w->breakdown_count; shown++) {
		uint32_t best = GT_NONE;
		for (uint32_t i = 0; i < w->breakdown_count; i++) {
			const gt_causal_share *s = &w->breakdown[i];
			bool below = s->critical_ns < last || (s->critical_ns == last && i > last_i);
			if (below && (best == GT_NONE || s->critical_ns > w->breakdown[best].critical_ns))
				best = i;
		}
		if (best == GT_NONE)
			break;
		const gt_causal_share *s = &w->breakdown[best];
		const char *key = s->kind == GT_CAUSAL_WORK || s->kind == GT_CAUSAL_FLOW ? gt_model_str(m, s->key) : "";
		printf("    %-5s %-40.40s %12" PRId64 " ns %5.1f%%\n", gt_causal_kind_names[s->kind], key, s->critical_ns,
		       100.0 * (double)s->critical_ns / (double)w->path_duration_ns);
		last = s->critical_ns;
		last_i = best;
	}
}

static bool has_profiler_steps(const gt_model *m)
{
	for (uint32_t i = 0; i < m->span_count; i++)
		if (strncmp(gt_model_str(m, m->spans[i].name), "ProfilerStep#", 13) == 0 &&
		    m->spans[i].kind == GT_SPAN_COMPLETE)
			return true;
	return false;
}

/* Prints the windows' summed wall, path and top shares (GT_CAUSAL_REPORT). */
static void report_steps(const gt_model *m, const char *name, const gt_causal_result *r)
{
	if (!getenv("GT_CAUSAL_REPORT"))
		return;
	enum { MAX = 4096 };
	static gt_causal_share sum[MAX];
	uint32_t n = 0;
	int64_t wall = 0, path = 0;
	for (uint32_t w = 0; w < r->window_count; w++) {
		const gt_causal_window *win = &r->windows[w];
		wall += win->wall_ns;
		path += win->path_duration_ns;
		for (uint32_t i = 0; i < win->breakdown_count; i++) {
			const gt_causal_share *s = &win->breakdown[i];
			uint32_t k = 0;
			while (k < n && (sum[k].kind != s->kind || sum[k].key != s->key))
				k++;
			if (k == n && n < MAX)
				sum[n++] = (gt_causal_share){s->kind, s->key, 0};
			if (k < n)
				sum[k].critical_ns += s->critical_ns;
		}
	}
	printf("%s --step: %u windows, wall %" PRId64 " path %" PRId64 " (first: wall %" PRId64 " path %" PRId64
	       " flags %u)\n",
	       name, r->window_count, wall, path, r->windows[0].wall_ns, r->windows[0].path_duration_ns,
	       r->windows[0].flags);
	for (int top = 0; top < 3; top++) {
		uint32_t best = GT_NONE;
		for (uint32_t k = 0; k < n; k++)
			if (sum[k].critical_ns > 0 && (best == GT_NONE || sum[k].critical_ns > sum[best].critical_ns))
				best = k;
		if (best == GT_NONE)
			break;
		const gt_causal_share *s = &sum[best];
		const char *key = s->kind == GT_CAUSAL_WORK || s->kind == GT_CAUSAL_FLOW ? gt_model_str(m, s->key) : "";
		printf("    %-5s %-40.40s %12" PRId64 " ns %5.1f%%\n", gt_causal_kind_names[s->kind], key, s->critical_ns,
		       100.0 * (double)s->critical_ns / (double)path);
		sum[best].critical_ns = -sum[best].critical_ns - 1;
	}
}

START_TEST(real_traces)
{
	DIR *d = opendir(GT_SHARED_TRACES);
	if (!d)
		return; /* the shared traces are optional */
	struct dirent *e;
	unsigned ok = 0, clean = 0;
	while ((e = readdir(d))) {
		if (!trace_file(e->d_name))
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", GT_SHARED_TRACES, e->d_name);
		gt_model m;
		gt_error err = {0};
		if (gt_model_load(&m, path, NULL, &err) < 0)
			continue; /* not a trace this tool reads: test_ingest's business */
		gt_causal_options o = options();
		o.threads = 0;
		gt_causal_result r;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int rc = gt_causal_analyze(&m, &o, NULL, &r, &err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (rc < 0) {
			ck_assert_msg(err.status == GT_EINPUT && err.msg[0], "%s: %d %s", e->d_name, err.status, err.msg);
			clean++;
			if (getenv("GT_CAUSAL_REPORT"))
				printf("%s: %s\n", e->d_name, err.msg);
		} else {
			check_result(&m, &r);
			report(&m, e->d_name, &r, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
			gt_causal_result_free(&r);
			ok++;
			if (has_profiler_steps(&m)) {
				o.step_glob = "ProfilerStep#*";
				analyze_ok(&m, &o, &r);
				check_result(&m, &r);
				report_steps(&m, e->d_name, &r);
				gt_causal_result_free(&r);
			}
		}
		gt_model_free(&m);
	}
	closedir(d);
	ck_assert_uint_gt(ok, 0);
	(void)clean;
}
END_TEST

int main(void)
{
	/* the trace-wide passes in ranges of a few spans, so that the small
	 * traces here run them on several threads (o.threads) too */
	setenv("GPUTRACE_CAUSAL_RANGE", "3", 0);
	const gt_test rules[] = {
		GT_TEST(nesting_chain_owners),
		GT_TEST(idle_gaps_and_float),
		GT_TEST(improper_nesting),
		GT_TEST(deep_nesting),
		GT_TEST(departure_points),
		GT_TEST(v1_clamping),
		GT_TEST(v2_flows),
		GT_TEST(wait_edges),
		GT_TEST(stream_waits_inferred),
		GT_TEST(profiler_wrapper),
		GT_TEST(handoffs),
		GT_TEST(recorded_waits),
		GT_TEST(binding_ties),
		GT_TEST(zero_gap_cycle),
		GT_TEST(step_windows_and_queue),
		GT_TEST(backward_isolated_device_track),
		GT_TEST(flows_left_out),
		GT_TEST(extra_wait_names),
		GT_TEST(errors),
		GT_TEST(names),
		{0},
	};
	const gt_test property[] = {
		GT_LOOP(random_vs_brute_force, 10),
		GT_LOOP(random_wait_targets, 4),
		GT_LOOP(random_stream_waits, 4),
		GT_LOOP(random_previous_device_spans, 2),
		GT_LOOP(union_failure_runs_windows_alone, 2),
		{0},
	};
	const gt_test real[] = {GT_TEST(real_traces), {0}};
	const gt_tcase cases[] = {{"rules", 0, rules}, {"property", 300, property}, {"real", 600, real}, {0}};
	return gt_run_cases("causal", cases);
}
