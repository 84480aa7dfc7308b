/* libFuzzer harness for the causal critical path (gt_causal_analyze) over
 * a trace read by gt_model_load, with the invariants every result must keep.
 *
 * The first byte is a mode:
 *   bit 0  --step 'ProfilerStep*'
 *   bit 1  rows (the per-span table and the float)
 *   bit 2  also through an engine made of the host references (bind, path,
 *          float: cpm.h, forest.h), whose results must equal the built-in
 *          host steps', field by field
 *   bit 3  the rest is the trace itself (JSON, as fuzz/seeds and regressions
 *          give it); else the rest drives kineto_gen.h's generator
 *   bit 4  breakdown by name (else by cat)
 *   bit 5  an extra --wait-name
 *   bit 6  two threads and windows in batches of a few points
 *   bit 7  --window (not with --step): from the next two bytes, as fractions
 *          of the trace's length
 * The trace goes through a memfd. A generated trace must load; a failed
 * analysis must be an input error with a message (a usage error for an
 * inverted window). Checked of each window:
 * wall and path >= 0, path <= wall; the hops chain from the root to the
 * endpoint, each from == the previous to, each duration the difference of
 * its points' times, >= 0, summing to the path (as does the breakdown,
 * whose shares are > 0); the endpoint minus the root is the path; with
 * rows, one per span by id, every float, critical, waited and caused
 * time >= 0, on_path where a hop ends in the span (or the path's root is
 * in it), the rows' critical time the path's work. A window flagged overflow is exempt from
 * the sums. abort() on any violation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "causal/causal.h"
#include "causal/cpm.h"
#include "forest/forest.h"
#include "loader/loader.h"
#include "model/model.h"

#include "kineto_gen.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

/* The host references behind the engine interface (a device's shape). */
static int eng_bind(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	(void)ctx;
	return gt_cpm_bind_host(g, out, err);
}

static int eng_path(void *ctx, const uint32_t *parent, const int64_t *gap, uint32_t n, gt_cp_rows *out,
		    gt_cp_summary *sum, gt_error *err)
{
	(void)ctx;
	return gt_critpath_host(parent, gap, n, NULL, out, sum, err);
}

static int eng_floats(void *ctx, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err)
{
	(void)ctx;
	return gt_cpm_float_host(g, lt, stats, err);
}

static bool same_point(const gt_causal_point *a, const gt_causal_point *b)
{
	return a->point == b->point && a->span == b->span && a->which == b->which && a->ts_ns == b->ts_ns;
}

static void check_window(const gt_model *m, const gt_causal_options *o, const gt_causal_window *w)
{
	bool overflow = (w->flags & GT_CAUSAL_OVERFLOW) != 0;
	CHECK(w->wall_ns >= 0);
	CHECK(w->path_duration_ns >= 0);
	CHECK(overflow || w->path_duration_ns <= w->wall_ns);
	CHECK(w->flags < (1u << GT_CAUSAL_FLAG_COUNT));
	CHECK(w->step_span == GT_NONE || w->step_span < m->span_count);
	CHECK((w->step_span != GT_NONE) == (o->step_glob != NULL));
	CHECK(w->spans <= m->span_count);
	if (w->hop_count == 0) {
		CHECK(w->path_duration_ns == 0);
	} else {
		CHECK(same_point(&w->hops[0].from, &w->root));
		CHECK(same_point(&w->hops[w->hop_count - 1].to, &w->endpoint));
	}
	if (w->root.point != GT_NONE) {
		CHECK(w->root.point < w->points && w->endpoint.point < w->points);
		CHECK(overflow || w->endpoint.ts_ns - w->root.ts_ns == w->path_duration_ns);
	}
	__int128 sum = 0, work = 0;
	for (uint32_t i = 0; i < w->hop_count; i++) {
		const gt_causal_hop *h = &w->hops[i];
		CHECK(h->kind < GT_CAUSAL_KIND_COUNT);
		CHECK(h->duration_ns >= 0);
		CHECK(h->duration_ns == h->to.ts_ns - h->from.ts_ns);
		CHECK(i == 0 || same_point(&h->from, &w->hops[i - 1].to));
		CHECK(h->from.span < m->span_count && h->to.span < m->span_count);
		CHECK(h->from.which == 'B' || h->from.which == 'D' || h->from.which == 'E');
		CHECK(h->to.which == 'B' || h->to.which == 'D' || h->to.which == 'E');
		CHECK((h->owner == GT_NONE) == (h->kind == GT_CAUSAL_IDLE));
		CHECK(h->owner == GT_NONE || h->owner < m->span_count);
		CHECK(h->track < m->track_count);
		CHECK((h->flow != GT_NONE) == (h->kind == GT_CAUSAL_FLOW));
		CHECK(h->flow == GT_NONE || h->flow < m->flow_count);
		sum += h->duration_ns;
		if (h->kind == GT_CAUSAL_WORK)
			work += h->duration_ns;
	}
	CHECK(overflow || sum == w->path_duration_ns);
	__int128 shares = 0;
	for (uint32_t i = 0; i < w->breakdown_count; i++) {
		const gt_causal_share *s = &w->breakdown[i];
		CHECK(s->kind < GT_CAUSAL_KIND_COUNT);
		CHECK(s->critical_ns > 0);
		CHECK(i == 0 || s->kind > w->breakdown[i - 1].kind ||
		      (s->kind == w->breakdown[i - 1].kind && s->critical_ns <= w->breakdown[i - 1].critical_ns));
		shares += s->critical_ns;
	}
	CHECK(overflow || shares == w->path_duration_ns);
	if (!o->rows) {
		CHECK(w->row_count == 0 && w->rows == NULL);
		return;
	}
	CHECK(w->row_count == w->spans);
	/* on_path: a point of the span is on the path (a hop's end, or the root) */
	uint8_t *on = calloc(m->span_count ? m->span_count : 1, 1);
	if (!on)
		abort();
	if (w->root.point != GT_NONE)
		on[w->root.span] = 1;
	for (uint32_t i = 0; i < w->hop_count; i++)
		if (w->hops[i].to.point != GT_NONE)
			on[w->hops[i].to.span] = 1;
	__int128 rows_work = 0;
	for (uint32_t i = 0; i < w->row_count; i++) {
		const gt_causal_row *r = &w->rows[i];
		CHECK(r->span < m->span_count);
		CHECK(i == 0 || r->span > w->rows[i - 1].span);
		CHECK(r->float_ns >= 0);
		CHECK(r->critical_ns >= 0 && r->waited_ns >= 0 && r->caused_wait_ns >= 0);
		CHECK(r->on_path == (on[r->span] != 0));
		rows_work += r->critical_ns;
	}
	free(on);
	CHECK(overflow || rows_work == work);
}

static void same_window(const gt_causal_window *a, const gt_causal_window *b)
{
	CHECK(a->wall_ns == b->wall_ns && a->path_duration_ns == b->path_duration_ns);
	CHECK(a->points == b->points && a->spans == b->spans && a->flags == b->flags);
	CHECK(same_point(&a->root, &b->root) && same_point(&a->endpoint, &b->endpoint));
	CHECK(a->hop_count == b->hop_count && a->breakdown_count == b->breakdown_count && a->row_count == b->row_count);
	for (uint32_t i = 0; i < a->hop_count; i++) {
		const gt_causal_hop *x = &a->hops[i], *y = &b->hops[i];
		CHECK(same_point(&x->from, &y->from) && same_point(&x->to, &y->to));
		CHECK(x->kind == y->kind && x->owner == y->owner && x->track == y->track && x->flow == y->flow &&
		      x->duration_ns == y->duration_ns);
	}
	for (uint32_t i = 0; i < a->breakdown_count; i++)
		CHECK(a->breakdown[i].kind == b->breakdown[i].kind && a->breakdown[i].key == b->breakdown[i].key &&
		      a->breakdown[i].critical_ns == b->breakdown[i].critical_ns);
	for (uint32_t i = 0; i < a->row_count; i++) {
		const gt_causal_row *x = &a->rows[i], *y = &b->rows[i];
		CHECK(x->span == y->span && x->on_path == y->on_path && x->float_ns == y->float_ns &&
		      x->critical_ns == y->critical_ns && x->waited_ns == y->waited_ns &&
		      x->caused_wait_ns == y->caused_wait_ns);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++;
	size--;
	uint8_t w0 = 0, w1 = 0;
	if ((mode & 128) && !(mode & 8) && size >= 2) {
		w0 = data[0];
		w1 = data[1];
		data += 2;
		size -= 2;
	}
	char *text = NULL;
	size_t len = size;
	const void *bytes = data;
	if (!(mode & 8)) {
		text = kg_generate(data, size, &len);
		if (!text)
			return 0;
		kg_dump(text, len);
		bytes = text;
	}
	int fd = memfd_create("causal", MFD_CLOEXEC);
	if (fd < 0 || (len && write(fd, bytes, len) != (ssize_t)len))
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	gt_model m;
	gt_error err = {0};
	gt_load_options lo = {.threads = 1};
	int rc = gt_model_load(&m, path, &lo, &err);
	if (rc < 0 && text) {
		fprintf(stderr, "a generated trace did not load: %s\n%s\n", err.msg, text);
		abort();
	}
	close(fd);
	free(text);
	if (rc < 0)
		return 0;

	static const char *const waits[] = {"^aten::(copy_|to)$"};
	gt_causal_options o = {.by = (mode & 16) ? GT_CAUSAL_BY_NAME : GT_CAUSAL_BY_CAT,
			       .rows = (mode & 2) != 0, .threads = (mode & 64) ? 2 : 1,
			       .batch_points = (mode & 64) ? 1 + (w0 & 31) : 0};
	if (mode & 1)
		o.step_glob = "ProfilerStep*";
	/* inferred stream waits: off, at the CLI's 5 us or at 10 us, by the
	 * input's length (the mode byte's bits are all taken) */
	o.stream_wait_slack_ns = (int64_t)(size % 3) * 5000;
	if (mode & 32) {
		o.wait_names = waits;
		o.wait_name_count = 1;
	}
	if ((mode & 128) && !(mode & 1)) {
		int64_t span = m.end_ns - m.start_ns;
		if (span < 0 || span > ((int64_t)1 << 50))
			span = 0;
		o.has_window = true;
		/* w0's top bit: starting before the trace */
		o.window_begin_ns = (w0 & 128) ? -(span * (w0 & 127)) / 128 : span * (w0 & 127) / 128;
		o.window_end_ns = o.window_begin_ns + span * w1 / 128 - (w1 == 0);
	}
	gt_causal_result r;
	rc = gt_causal_analyze(&m, &o, NULL, &r, &err);
	if (rc < 0) {
		if (!(err.status == GT_EINPUT ||
		      (err.status == GT_EUSAGE && o.has_window && o.window_begin_ns > o.window_end_ns)) ||
		    !err.msg[0])
			fprintf(stderr, "status %d: %s\n", err.status, err.msg);
		/* an input error, or the usage error of an inverted window */
		CHECK(err.status == GT_EINPUT ||
		      (err.status == GT_EUSAGE && o.has_window && o.window_begin_ns > o.window_end_ns));
		CHECK(err.msg[0]);
	} else {
		CHECK(r.window_count > 0);
		CHECK(r.spans_taking_part <= m.span_count);
		for (uint32_t w = 0; w < r.window_count; w++)
			check_window(&m, &o, &r.windows[w]);
	}
	if (mode & 4) {
		gt_causal_engine eng = {NULL, eng_bind, eng_path, o.rows ? eng_floats : NULL};
		gt_causal_options o2 = o;
		o2.batch_points = 0;
		gt_causal_result r2;
		gt_error err2 = {0};
		int rc2 = gt_causal_analyze(&m, &o2, &eng, &r2, &err2);
		CHECK(rc2 == rc);
		if (rc == 0) {
			CHECK(r2.window_count == r.window_count);
			CHECK(r2.spans_taking_part == r.spans_taking_part &&
			      r2.device_track_spans_left_out == r.device_track_spans_left_out);
			for (uint32_t w = 0; w < r.window_count; w++)
				same_window(&r.windows[w], &r2.windows[w]);
			gt_causal_result_free(&r2);
		} else {
			CHECK(err2.status == err.status && strcmp(err2.msg, err.msg) == 0);
		}
	}
	if (rc == 0)
		gt_causal_result_free(&r);
	gt_model_free(&m);
	return 0;
}
