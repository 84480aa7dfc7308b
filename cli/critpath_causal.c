/* Writing the causal critical path: a JSON document (aggregate first, then
 * one object per window) or one flat table over every window. Times are
 * exact integer ns; the _us fields are extras for reading. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_causal.h"
#include "critpath_lines.h"
#include "base/base.h"
#include "write/write.h"
#include "output.h"

static const char *const table_names[] = {"path", "breakdown", "windows", "rows", "classes"};

int gt_causal_table_parse(const char *s)
{
	for (int k = 0; k < (int)(sizeof table_names / sizeof table_names[0]); k++)
		if (strcmp(s, table_names[k]) == 0)
			return k;
	return -1;
}

/* "pid/tid" of a track, as the spans table spells ids. */
const char *gt_causal_track_label(const gt_model *m, uint32_t track, char *buf, size_t cap)
{
	if (track == GT_NONE || track >= m->track_count)
		return NULL;
	const gt_track *t = &m->tracks[track];
	const gt_id *pid = &m->processes[t->process].pid;
	char p[64], q[64];
	if (pid->is_str)
		snprintf(p, sizeof p, "%s", gt_model_str(m, pid->str));
	else
		snprintf(p, sizeof p, "%" PRId64, pid->num);
	if (t->tid.is_str)
		snprintf(q, sizeof q, "%s", gt_model_str(m, t->tid.str));
	else
		snprintf(q, sizeof q, "%" PRId64, t->tid.num);
	const gt_rank_part *r = gt_model_process_rank(m, t->process);
	if (r) /* a job's tracks say their rank: "rank 5:60676/60841" */
		snprintf(buf, cap, "rank %" PRId64 ":%s/%s", r->rank, p, q);
	else
		snprintf(buf, cap, "%s/%s", p, q);
	return buf;
}

/* A breakdown key as text: a string id for work and flow, a track for
 * queue, none for idle and wait. */
const char *gt_causal_share_key(const gt_model *m, const gt_causal_share *s, char *buf, size_t cap)
{
	switch (s->kind) {
	case GT_CAUSAL_WORK:
	case GT_CAUSAL_FLOW:
		return s->key == GT_NONE ? NULL : gt_model_str(m, s->key);
	case GT_CAUSAL_QUEUE:
		return gt_causal_track_label(m, s->key, buf, cap);
	case GT_CAUSAL_STREAM_WAIT:
		return s->key < 2 ? gt_causal_wait_source_names[s->key] : NULL;
	default:
		return NULL;
	}
}

/* num/den with 6 decimals, rounded half up, exact (no floating point). */
static void format_share(char *buf, size_t cap, int64_t num, int64_t den)
{
	uint64_t q;
	if (!gt_share_millionths(num, den, &q))
		snprintf(buf, cap, "null");
	else
		snprintf(buf, cap, "%" PRIu64 ".%06" PRIu64, q / 1000000u, q % 1000000u);
}

static void json_point(gt_jsonw *w, const char *key, const gt_causal_point *p, bool present)
{
	gt_jsonw_key(w, key);
	if (!present) {
		gt_jsonw_null(w);
		return;
	}
	gt_jsonw_begin_object(w);
	gt_jsonw_key(w, "point");
	gt_jsonw_u64(w, p->point);
	gt_jsonw_key(w, "span");
	gt_jsonw_u64(w, p->span);
	gt_jsonw_key(w, "which");
	char which[2] = {p->which, 0};
	gt_jsonw_str(w, which);
	gt_jsonw_key(w, "ts_ns");
	gt_jsonw_i64(w, p->ts_ns);
	gt_jsonw_end_object(w);
}

static void json_ns(gt_jsonw *w, const char *key, int64_t ns)
{
	char k[64];
	gt_jsonw_key(w, key);
	gt_jsonw_i64(w, ns);
	size_t n = strlen(key);
	if (n > 3 && n < sizeof k && strcmp(key + n - 3, "_ns") == 0) {
		memcpy(k, key, n - 3);
		memcpy(k + n - 3, "_us", 4);
		gt_jsonw_key(w, k);
		gt_jsonw_us(w, ns);
	}
}

static void json_flags(gt_jsonw *w, uint32_t flags)
{
	gt_jsonw_key(w, "flags");
	gt_jsonw_begin_array(w);
	for (int k = 0; k < GT_CAUSAL_FLAG_COUNT; k++)
		if (flags & (1u << k))
			gt_jsonw_str(w, gt_causal_flag_names[k]);
	gt_jsonw_end_array(w);
}

static void json_summary(gt_jsonw *w, const gt_model *m, const gt_causal_result *r, const gt_causal_window *win,
			 uint32_t index)
{
	gt_jsonw_key(w, "summary");
	gt_jsonw_begin_object(w);
	gt_jsonw_key(w, "window");
	gt_jsonw_u64(w, index);
	gt_jsonw_key(w, "step_span");
	if (win->step_span == GT_NONE)
		gt_jsonw_null(w);
	else
		gt_jsonw_u64(w, win->step_span);
	gt_jsonw_key(w, "step_name");
	if (win->step_span == GT_NONE)
		gt_jsonw_null(w);
	else
		gt_jsonw_str(w, gt_model_str(m, m->spans[win->step_span].name));
	json_ns(w, "begin_ns", win->begin_ns);
	json_ns(w, "end_ns", win->end_ns);
	json_ns(w, "wall_ns", win->wall_ns);
	json_ns(w, "path_duration_ns", win->path_duration_ns);
	json_ns(w, "before_root_ns", win->before_root_ns);
	json_ns(w, "after_endpoint_ns", win->after_endpoint_ns);
	if (win->ranks) { /* a job's step: the union of its ranks' steps */
		gt_jsonw_key(w, "ranks");
		gt_jsonw_u64(w, win->ranks);
		gt_jsonw_key(w, "ranks_missing");
		gt_jsonw_u64(w, win->ranks_missing);
		gt_jsonw_key(w, "rank_wall");
		gt_jsonw_begin_object(w);
		json_ns(w, "min_ns", win->rank_wall_min_ns);
		json_ns(w, "median_ns", win->rank_wall_median_ns);
		json_ns(w, "max_ns", win->rank_wall_max_ns);
		gt_jsonw_end_object(w);
	}
	bool any = win->hop_count > 0 || win->points > 0;
	json_point(w, "endpoint", &win->endpoint, any);
	json_point(w, "root", &win->root, any);
	gt_jsonw_key(w, "hops");
	gt_jsonw_u64(w, win->hop_count);
	gt_jsonw_key(w, "points");
	gt_jsonw_u64(w, win->points);
	gt_jsonw_key(w, "spans");
	gt_jsonw_u64(w, win->spans);
	gt_jsonw_key(w, "tracks");
	gt_jsonw_u64(w, win->tracks);
	gt_jsonw_key(w, "edges");
	gt_jsonw_begin_object(w);
	gt_jsonw_key(w, "chain");
	gt_jsonw_u64(w, win->chain_edges);
	gt_jsonw_key(w, "flow");
	gt_jsonw_u64(w, win->flow_edges);
	gt_jsonw_key(w, "wait");
	gt_jsonw_u64(w, win->wait_edges);
	if (m->rank_count) { /* a job's */
		gt_jsonw_key(w, "collective");
		gt_jsonw_u64(w, win->collective_edges);
	}
	if (r->recorded_waits && r->syncs.markers) { /* said where the trace has markers */
		gt_jsonw_key(w, "recorded_stream_wait");
		gt_jsonw_u64(w, win->recorded_stream_waits);
		gt_jsonw_key(w, "recorded_event_sync");
		gt_jsonw_u64(w, win->recorded_event_syncs);
	}
	if (r->stream_wait_slack_ns) {
		gt_jsonw_key(w, "inferred_stream_wait");
		gt_jsonw_u64(w, win->inferred_stream_waits);
	}
	if (r->handoffs) {
		gt_jsonw_key(w, "handoff");
		gt_jsonw_u64(w, win->handoff_edges);
	}
	gt_jsonw_end_object(w);
	gt_jsonw_key(w, "backward_edges");
	gt_jsonw_u64(w, win->backward_edges);
	gt_jsonw_key(w, "isolated_tracks");
	gt_jsonw_u64(w, win->isolated_tracks);
	gt_jsonw_key(w, "flows_left_out");
	gt_jsonw_begin_object(w);
	for (int k = 0; k < GT_CAUSAL_LEFT_OUT_COUNT; k++) {
		gt_jsonw_key(w, gt_causal_left_out_names[k]);
		gt_jsonw_u64(w, win->flows_left_out[k]);
	}
	gt_jsonw_end_object(w);
	json_flags(w, win->flags);
	gt_jsonw_end_object(w);
}

/* How the recorded-wait rule read the trace's cuda_sync markers. */
static void json_sync_markers(gt_jsonw *w, const gt_model *m, const gt_causal_sync_counts *c)
{
	gt_jsonw_key(w, "sync_markers");
	gt_jsonw_begin_object(w);
	gt_jsonw_key(w, "markers");
	gt_jsonw_u64(w, c->markers);
	gt_jsonw_key(w, "stream_waits");
	gt_jsonw_u64(w, c->stream_waits);
	gt_jsonw_key(w, "event_syncs");
	gt_jsonw_u64(w, c->event_syncs);
	gt_jsonw_key(w, "records_not_waited");
	gt_jsonw_u64(w, c->records_not_waited);
	gt_jsonw_key(w, "not_followed");
	gt_jsonw_begin_object(w);
	for (int k = 0; k < GT_CAUSAL_SYNC_PROBLEM_COUNT; k++) {
		gt_jsonw_key(w, gt_causal_sync_problem_names[k]);
		gt_jsonw_u64(w, c->problems[k]);
	}
	gt_jsonw_end_object(w);
	gt_jsonw_key(w, "examples");
	gt_jsonw_begin_array(w);
	for (int k = 0; k < GT_CAUSAL_SYNC_PROBLEM_COUNT; k++)
		for (unsigned i = 0; i < c->examples[k]; i++) {
			uint32_t span = c->example_span[k][i];
			gt_jsonw_begin_object(w);
			gt_jsonw_key(w, "why");
			gt_jsonw_str(w, gt_causal_sync_problem_names[k]);
			gt_jsonw_key(w, "span");
			gt_jsonw_u64(w, span);
			gt_jsonw_key(w, "event");
			gt_jsonw_u64(w, m->spans[span].event);
			const gt_rank_part *rp = gt_model_span_rank(m, span);
			if (rp) {
				gt_jsonw_key(w, "rank");
				gt_jsonw_i64(w, rp->rank);
			}
			gt_jsonw_end_object(w);
		}
	gt_jsonw_end_array(w);
	gt_jsonw_end_object(w);
}

/* The path in the words of GPU work: each class with time, in the classes'
 * order, with its shares of the path and of the wall. */
static void json_classes(gt_jsonw *w, const int64_t *class_ns, int64_t path, int64_t wall)
{
	gt_jsonw_key(w, "classes");
	gt_jsonw_begin_array(w);
	for (int k = 0; k < GT_CAUSAL_CLASS_COUNT; k++) {
		if (!class_ns[k])
			continue;
		char share[48];
		gt_jsonw_begin_object(w);
		gt_jsonw_key(w, "class");
		gt_jsonw_str(w, gt_causal_class_names[k]);
		json_ns(w, "critical_ns", class_ns[k]);
		gt_jsonw_key(w, "share");
		format_share(share, sizeof share, class_ns[k], path);
		gt_jsonw_raw(w, share);
		gt_jsonw_key(w, "wall_share");
		format_share(share, sizeof share, class_ns[k], wall);
		gt_jsonw_raw(w, share);
		gt_jsonw_end_object(w);
	}
	gt_jsonw_end_array(w);
}

/* The wall whole, beside the path's shares. */
struct wall_parts {
	int64_t wall, before_root, after_endpoint;
};

static void json_wall_part(gt_jsonw *w, const char *kind, int64_t ns, int64_t wall)
{
	char share[48];
	gt_jsonw_begin_object(w);
	gt_jsonw_key(w, "kind");
	gt_jsonw_str(w, kind);
	gt_jsonw_key(w, "key");
	gt_jsonw_null(w);
	json_ns(w, "critical_ns", ns);
	gt_jsonw_key(w, "share");
	gt_jsonw_null(w); /* not of the path */
	gt_jsonw_key(w, "wall_share");
	format_share(share, sizeof share, ns, wall);
	gt_jsonw_raw(w, share);
	gt_jsonw_end_object(w);
}

/* Whether share i is among the top largest (by time; ties: the earlier,
 * as the breakdown's order puts them): fewer than top shares are larger. */
static bool in_top(const gt_causal_share *s, uint32_t n, uint32_t i, uint32_t top)
{
	if (!top || n <= top)
		return true;
	uint32_t larger = 0;
	for (uint32_t j = 0; j < n && larger < top; j++)
		larger += s[j].critical_ns > s[i].critical_ns || (s[j].critical_ns == s[i].critical_ns && j < i);
	return larger < top;
}

/* The path's shares (of the path and of the wall): the top largest, in
 * the breakdown's order, and the rest as one "others" entry; then the
 * wall's time before the root and after the endpoint where there is any:
 * the entries' times sum to the wall. */
static void json_breakdown(gt_jsonw *w, const gt_model *m, const gt_causal_share *s, uint32_t n, int64_t total,
			   const struct wall_parts *wp, uint32_t top)
{
	gt_jsonw_key(w, "breakdown");
	gt_jsonw_begin_array(w);
	int64_t rest = 0;
	uint32_t rest_n = 0;
	for (uint32_t i = 0; i < n; i++) {
		char buf[160], share[48];
		if (!in_top(s, n, i, top)) {
			rest += s[i].critical_ns, rest_n++;
			continue;
		}
		gt_jsonw_begin_object(w);
		gt_jsonw_key(w, "kind");
		gt_jsonw_str(w, gt_causal_kind_names[s[i].kind]);
		gt_jsonw_key(w, "key");
		const char *key = gt_causal_share_key(m, &s[i], buf, sizeof buf);
		if (key)
			gt_jsonw_str(w, key);
		else
			gt_jsonw_null(w);
		json_ns(w, "critical_ns", s[i].critical_ns);
		gt_jsonw_key(w, "share");
		format_share(share, sizeof share, s[i].critical_ns, total);
		gt_jsonw_raw(w, share);
		gt_jsonw_key(w, "wall_share");
		format_share(share, sizeof share, s[i].critical_ns, wp->wall);
		gt_jsonw_raw(w, share);
		gt_jsonw_end_object(w);
	}
	if (rest_n) {
		char share[48];
		gt_jsonw_begin_object(w);
		gt_jsonw_key(w, "kind");
		gt_jsonw_str(w, "others");
		gt_jsonw_key(w, "key");
		gt_jsonw_null(w);
		json_ns(w, "critical_ns", rest);
		gt_jsonw_key(w, "share");
		format_share(share, sizeof share, rest, total);
		gt_jsonw_raw(w, share);
		gt_jsonw_key(w, "wall_share");
		format_share(share, sizeof share, rest, wp->wall);
		gt_jsonw_raw(w, share);
		gt_jsonw_key(w, "entries");
		gt_jsonw_u64(w, rest_n);
		gt_jsonw_end_object(w);
	}
	if (wp->before_root)
		json_wall_part(w, "before_root", wp->before_root, wp->wall);
	if (wp->after_endpoint)
		json_wall_part(w, "after_endpoint", wp->after_endpoint, wp->wall);
	gt_jsonw_end_array(w);
}

/* One line of the document per element of an array of lines. */
static int emit_json(void *w, const char *p, const size_t *end, uint32_t count)
{
	size_t s = 0;
	for (uint32_t k = 0; k < count; k++) {
		gt_jsonw_raw_n(w, p + s, end[k] - s);
		s = end[k];
	}
	return 0;
}

/* The window's path (or rows) as an array of one line per element: most
 * of a large document, formatted on threads (critpath_lines.h). */
static int json_lines(gt_jsonw *w, const gt_causal_result *r, uint32_t i, bool rows, gt_cp_lines *lw)
{
	gt_jsonw_key(w, rows ? "rows" : "path");
	gt_jsonw_begin_array_of_lines(w);
	int rc = gt_cp_lines_write(lw, &r->windows[i], i, rows, emit_json, w);
	gt_jsonw_end_array(w);
	return rc;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* min, lower median, max of one figure over the windows. */
static int json_spread(gt_jsonw *w, const char *key, const gt_causal_result *r, size_t offset)
{
	int64_t *v = malloc((r->window_count ? r->window_count : 1) * sizeof *v);
	if (!v)
		return -1;
	for (uint32_t i = 0; i < r->window_count; i++)
		memcpy(&v[i], (const char *)&r->windows[i] + offset, sizeof v[i]);
	qsort(v, r->window_count, sizeof *v, cmp_i64);
	gt_jsonw_key(w, key);
	gt_jsonw_begin_object(w);
	if (r->window_count) {
		json_ns(w, "min_ns", v[0]);
		json_ns(w, "median_ns", v[(r->window_count - 1) / 2]);
		json_ns(w, "max_ns", v[r->window_count - 1]);
	}
	gt_jsonw_end_object(w);
	free(v);
	return 0;
}

static int cmp_share_out(const void *a, const void *b)
{
	const gt_causal_share *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->critical_ns != y->critical_ns)
		return x->critical_ns > y->critical_ns ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Sums by (kind, key): a table of slots into the sums, open addressing
 * over a power of two kept at most half full (the distinct keys are few:
 * categories, names, streams; the entries millions at 100M spans). */
typedef struct share_sums {
	gt_causal_share *sum;
	uint32_t count, *slot, mask; /* slot: index + 1, 0 empty */
} share_sums;

static uint32_t share_hash(const gt_causal_share *s, uint32_t mask)
{
	uint64_t h = ((uint64_t)s->kind << 32 | s->key) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32) & mask;
}

static int sums_grow(share_sums *t)
{
	uint32_t mask = t->mask ? t->mask * 2 + 1 : 255;
	uint32_t *slot = calloc((size_t)mask + 1, sizeof *slot);
	if (!slot)
		return -1;
	for (uint32_t i = 0; i < t->count; i++) {
		uint32_t h = share_hash(&t->sum[i], mask);
		while (slot[h])
			h = (h + 1) & mask;
		slot[h] = i + 1;
	}
	free(t->slot);
	t->slot = slot, t->mask = mask;
	return 0;
}

/* Adds s to its key's sum (the sums hold room for every entry). */
static int sums_add(share_sums *t, const gt_causal_share *s, bool *overflow)
{
	if ((t->count + 1) * 2 > t->mask + 1 && sums_grow(t) < 0)
		return -1;
	uint32_t h = share_hash(s, t->mask);
	for (; t->slot[h]; h = (h + 1) & t->mask) {
		gt_causal_share *x = &t->sum[t->slot[h] - 1];
		if (x->kind == s->kind && x->key == s->key) {
			*overflow |= __builtin_add_overflow(x->critical_ns, s->critical_ns, &x->critical_ns);
			return 0;
		}
	}
	t->sum[t->count] = *s;
	t->slot[h] = ++t->count;
	return 0;
}

gt_causal_share *gt_cli_causal_sum_breakdowns(const gt_causal_result *r, uint32_t *count, int64_t *total, bool *overflow)
{
	size_t n = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		n += r->windows[i].breakdown_count;
	share_sums t = {malloc((n ? n : 1) * sizeof *t.sum), 0, NULL, 0};
	int rc = t.sum && sums_grow(&t) == 0 ? 0 : -1;
	*total = 0;
	*overflow = false;
	for (uint32_t i = 0; rc == 0 && i < r->window_count; i++) {
		const gt_causal_window *w = &r->windows[i];
		for (uint32_t j = 0; rc == 0 && j < w->breakdown_count; j++)
			rc = sums_add(&t, &w->breakdown[j], overflow);
		*overflow |= __builtin_add_overflow(*total, w->path_duration_ns, total);
	}
	free(t.slot);
	if (rc < 0) {
		free(t.sum);
		return NULL;
	}
	qsort(t.sum, t.count, sizeof *t.sum, cmp_share_out);
	*count = t.count;
	return t.sum;
}

/* A window's object up to its path and rows: summary, breakdown, classes
 * (left open). */
static void window_head(gt_jsonw *w, const gt_model *m, const gt_causal_result *r, uint32_t i,
			const struct gt_causal_doc *doc)
{
	const gt_causal_window *win = &r->windows[i];
	gt_jsonw_begin_object(w);
	json_summary(w, m, r, win, i);
	struct wall_parts wp = {win->wall_ns, win->before_root_ns, win->after_endpoint_ns};
	json_breakdown(w, m, win->breakdown, win->breakdown_count, win->path_duration_ns, &wp, doc->top);
	json_classes(w, win->class_ns, win->path_duration_ns, win->wall_ns);
}

/* Consecutive windows [from, to) written into a buffer by a fork of the
 * document's writer. */
struct summary_job {
	const gt_jsonw *parent;
	const gt_model *m;
	const gt_causal_result *r;
	const struct gt_causal_doc *doc;
	uint32_t from, to;
	char *bytes;
	size_t n;
	int rc;
};

static void *summary_job(void *arg)
{
	struct summary_job *j = arg;
	FILE *f = open_memstream(&j->bytes, &j->n);
	if (!f)
		return j->rc = -1, NULL;
	gt_jsonw *w = malloc(sizeof *w);
	if (!w) {
		fclose(f);
		return j->rc = -1, NULL;
	}
	gt_jsonw_fork(j->parent, w, f);
	for (uint32_t i = j->from; i < j->to; i++) {
		window_head(w, j->m, j->r, i, j->doc);
		gt_jsonw_end_object(w);
	}
	gt_jsonw_flush(w);
	free(w);
	j->rc = fclose(f) == 0 ? 0 : -1;
	return NULL;
}

/* A job's bytes, and the comma and indent before them, at their offset. */
struct stretch {
	gt_outfile *of;
	char sep[GT_JSONW_SEP_MAX];
	size_t sep_n, n;
	const char *bytes;
	int64_t at;
};

static void *write_stretch(void *arg)
{
	struct stretch *s = arg;
	gt_outfile_pwrite(s->of, s->sep, s->sep_n, s->at);
	gt_outfile_pwrite(s->of, s->bytes, s->n, s->at + (int64_t)s->sep_n);
	return NULL;
}

/* The jobs' bytes written in place on threads, where the output is a file
 * of ours: a document of hundreds of megabytes is copied into the file as
 * fast as the threads copy, not once into w and then by one write after
 * another. 0, or -1 where the output is not such a file (nothing done). */
static int write_in_place(gt_jsonw *w, gt_outfile *of, struct summary_job *jobs, unsigned k)
{
	gt_jsonw_flush(w);
	int64_t at = of ? gt_outfile_tell(of) : -1;
	if (at < 0)
		return -1;
	struct stretch s[GT_MAX_JOBS];
	for (unsigned i = 0; i < k; i++) {
		s[i] = (struct stretch){.of = of, .bytes = jobs[i].bytes, .n = jobs[i].n, .at = at};
		s[i].sep_n = gt_jsonw_splice_elsewhere(w, &s[i].bytes, &s[i].n, s[i].sep);
		at += (int64_t)(s[i].sep_n + s[i].n);
	}
	gt_run_jobs(write_stretch, s, sizeof s[0], k);
	gt_outfile_seek(of, at);
	return 0;
}

/* The windows' summaries in order, formatted on threads: a step document
 * of many windows is mostly its summaries. */
static int summaries_on_threads(gt_jsonw *w, gt_outfile *of, const gt_model *m, const gt_causal_result *r,
				const struct gt_causal_doc *doc, unsigned threads)
{
	unsigned k = r->window_count < 64 ? 1 : threads < GT_MAX_JOBS ? threads : GT_MAX_JOBS;
	struct summary_job jobs[GT_MAX_JOBS];
	for (unsigned i = 0; i < k; i++)
		jobs[i] = (struct summary_job){w, m, r, doc, (uint32_t)((uint64_t)r->window_count * i / k),
					       (uint32_t)((uint64_t)r->window_count * (i + 1) / k), NULL, 0, 0};
	gt_run_jobs(summary_job, jobs, sizeof jobs[0], k);
	int rc = 0;
	for (unsigned i = 0; i < k; i++)
		rc |= jobs[i].rc;
	if (rc == 0 && (k == 1 || write_in_place(w, of, jobs, k) < 0))
		for (unsigned i = 0; i < k; i++)
			gt_jsonw_splice(w, jobs[i].bytes, jobs[i].n);
	for (unsigned i = 0; i < k; i++)
		free(jobs[i].bytes);
	return rc;
}

static int write_document(gt_outfile *of, const gt_model *m, const gt_causal_result *r, const char *device,
			  const struct gt_causal_doc *doc, unsigned threads, gt_error *err)
{
	uint32_t nsum;
	int64_t total;
	bool overflow;
	gt_causal_share *sum = gt_cli_causal_sum_breakdowns(r, &nsum, &total, &overflow);
	if (!sum)
		return gt_fail(err, GT_EINPUT, "out of memory summing the breakdowns");
	gt_jsonw w;
	gt_jsonw_init(&w, of->fp, true);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "model");
	gt_jsonw_str(&w, "causal");
	gt_jsonw_key(&w, "device");
	gt_jsonw_str(&w, device);
	gt_jsonw_key(&w, "spans_taking_part");
	gt_jsonw_u64(&w, r->spans_taking_part);
	gt_jsonw_key(&w, "device_track_spans_left_out");
	gt_jsonw_u64(&w, r->device_track_spans_left_out);
	if (r->wrapper_spans_left_out) { /* the profiler's wrapper: said where there is one */
		gt_jsonw_key(&w, "wrapper_spans_left_out");
		gt_jsonw_u64(&w, r->wrapper_spans_left_out);
	}
	if (r->stream_wait_slack_ns)
		json_ns(&w, "stream_wait_slack_ns", r->stream_wait_slack_ns);
	if (r->recorded_waits && r->syncs.markers)
		json_sync_markers(&w, m, &r->syncs);
	gt_jsonw_key(&w, "aggregate");
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "windows");
	gt_jsonw_u64(&w, r->window_count);
	int rc = json_spread(&w, "path_duration", r, offsetof(gt_causal_window, path_duration_ns));
	if (rc == 0)
		rc = json_spread(&w, "wall", r, offsetof(gt_causal_window, wall_ns));
	struct wall_parts all = {0};
	for (uint32_t i = 0; i < r->window_count; i++) {
		const gt_causal_window *win = &r->windows[i];
		bool o = __builtin_add_overflow(all.wall, win->wall_ns, &all.wall) |
			 __builtin_add_overflow(all.before_root, win->before_root_ns, &all.before_root) |
			 __builtin_add_overflow(all.after_endpoint, win->after_endpoint_ns, &all.after_endpoint);
		overflow |= o;
	}
	uint32_t flags = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		flags |= r->windows[i].flags;
	json_flags(&w, flags | (overflow ? GT_CAUSAL_OVERFLOW : 0));
	json_breakdown(&w, m, sum, nsum, total, &all, doc->top);
	int64_t classes[GT_CAUSAL_CLASS_COUNT] = {0};
	for (uint32_t i = 0; i < r->window_count; i++)
		for (int k = 0; k < GT_CAUSAL_CLASS_COUNT; k++)
			overflow |= __builtin_add_overflow(classes[k], r->windows[i].class_ns[k], &classes[k]);
	json_classes(&w, classes, total, all.wall);
	gt_jsonw_end_object(&w);
	gt_jsonw_key(&w, "windows");
	gt_jsonw_begin_array(&w);
	int lines_rc = 0;
	if (!doc->path && !doc->rows) { /* summaries only: windows written on threads */
		lines_rc = summaries_on_threads(&w, of, m, r, doc, gt_thread_count(threads, GT_LINES_MAX_THREADS));
	} else {
		gt_cp_lines *lw = gt_cp_lines_new(m, w.pretty ? GT_CP_LINES_JSON_PRETTY : GT_CP_LINES_JSON, threads);
		lines_rc = lw ? 0 : -1;
		for (uint32_t i = 0; i < r->window_count && lines_rc == 0; i++) {
			window_head(&w, m, r, i, doc);
			if (doc->path)
				lines_rc = json_lines(&w, r, i, false, lw);
			if (doc->rows && lines_rc == 0)
				lines_rc = json_lines(&w, r, i, true, lw);
			gt_jsonw_end_object(&w);
		}
		gt_cp_lines_free(lw);
	}
	gt_jsonw_end_array(&w);
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
	free(sum);
	if (lines_rc < 0)
		return gt_fail(err, GT_EINPUT, "out of memory writing the path");
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory writing the aggregate") : 0;
}

/* ---- tables: one flat table over every window ---- */

/* (window, item) of each table row. */
struct flat {
	const gt_model *m;
	const gt_causal_result *r;
	uint32_t *window; /* per row */
	uint32_t *item;   /* per row: hop, share, row index (windows: unused); breakdown
	                   * rows past the shares: the wall's parts */
	double *share;    /* breakdown: each row's share, as the JSON rounds it */
	double *wall_share; /* and its share of the wall */
};

/* A text cell's room: each thread's own, as the table's rows may be
 * formatted on threads (gt_table.cells_on_threads). */
#define CELL_TEXT 160

static const gt_causal_window *fw(const struct flat *f, uint64_t row)
{
	return &f->r->windows[f->window[row]];
}
static const gt_causal_hop *fh(const struct flat *f, uint64_t row)
{
	return &fw(f, row)->hops[f->item[row]];
}
static const gt_causal_share *fs(const struct flat *f, uint64_t row)
{
	return &fw(f, row)->breakdown[f->item[row]];
}
static const gt_causal_row *fr(const struct flat *f, uint64_t row)
{
	return &fw(f, row)->rows[f->item[row]];
}

#define GET_I64(fn, expr)                                      \
	static int64_t fn(const void *ctx, uint64_t row)       \
	{                                                      \
		const struct flat *f = ctx;                    \
		(void)f;                                       \
		return (int64_t)(expr);                        \
	}

GET_I64(col_window, f->window[row])
GET_I64(hop_index, f->item[row])
GET_I64(hop_from_point, fh(f, row)->from.point)
GET_I64(hop_from_span, fh(f, row)->from.span)
GET_I64(hop_from_ts, fh(f, row)->from.ts_ns)
GET_I64(hop_to_point, fh(f, row)->to.point)
GET_I64(hop_to_span, fh(f, row)->to.span)
GET_I64(hop_to_ts, fh(f, row)->to.ts_ns)
GET_I64(hop_kind, fh(f, row)->kind)
GET_I64(hop_owner, fh(f, row)->owner)
GET_I64(hop_owner_name, fh(f, row)->owner == GT_NONE ? GT_NONE : f->m->spans[fh(f, row)->owner].name)
GET_I64(hop_owner_cat, fh(f, row)->owner == GT_NONE ? GT_NONE : f->m->spans[fh(f, row)->owner].cat)
GET_I64(hop_flow_cat, fh(f, row)->flow == GT_NONE ? GT_NONE : f->m->flows[fh(f, row)->flow].cat)
GET_I64(hop_duration, fh(f, row)->duration_ns)
GET_I64(hop_class, fh(f, row)->cls)
/* The breakdown's kinds: the hops', then the wall's parts. */
enum { KIND_BEFORE_ROOT = GT_CAUSAL_KIND_COUNT, KIND_AFTER_ENDPOINT, BREAKDOWN_KIND_COUNT };
static const char *const breakdown_kind_names[BREAKDOWN_KIND_COUNT] = {
	"work", "idle", "flow", "queue", "wait", "stream_wait", "handoff", "before_root", "after_endpoint",
};
_Static_assert(GT_CAUSAL_KIND_COUNT == 7, "a hop kind the breakdown table does not name");

/* A breakdown row past the shares: the wall part's kind and time. */
static int wall_part(const gt_causal_window *w, uint32_t item, int64_t *ns)
{
	uint32_t k = item - w->breakdown_count;
	if (k == 0 && w->before_root_ns)
		return *ns = w->before_root_ns, KIND_BEFORE_ROOT;
	return *ns = w->after_endpoint_ns, KIND_AFTER_ENDPOINT;
}

static int64_t share_kind(const void *ctx, uint64_t row)
{
	const struct flat *f = ctx;
	int64_t ns;
	return f->item[row] < fw(f, row)->breakdown_count ? fs(f, row)->kind : wall_part(fw(f, row), f->item[row], &ns);
}

static int64_t share_ns(const void *ctx, uint64_t row)
{
	const struct flat *f = ctx;
	int64_t ns;
	if (f->item[row] < fw(f, row)->breakdown_count)
		return fs(f, row)->critical_ns;
	wall_part(fw(f, row), f->item[row], &ns);
	return ns;
}
GET_I64(win_step, fw(f, row)->step_span)
GET_I64(win_begin, fw(f, row)->begin_ns)
GET_I64(win_end, fw(f, row)->end_ns)
GET_I64(win_wall, fw(f, row)->wall_ns)
GET_I64(win_path, fw(f, row)->path_duration_ns)
GET_I64(win_hops, fw(f, row)->hop_count)
GET_I64(win_points, fw(f, row)->points)
GET_I64(win_spans, fw(f, row)->spans)
GET_I64(win_tracks, fw(f, row)->tracks)
GET_I64(win_chain, fw(f, row)->chain_edges)
GET_I64(win_flow, fw(f, row)->flow_edges)
GET_I64(win_wait, fw(f, row)->wait_edges)
GET_I64(win_backward, fw(f, row)->backward_edges)
GET_I64(win_isolated, fw(f, row)->isolated_tracks)
GET_I64(win_left_self, fw(f, row)->flows_left_out[GT_CAUSAL_FLOW_SELF])
GET_I64(win_left_part, fw(f, row)->flows_left_out[GT_CAUSAL_FLOW_NOT_TAKING_PART])
GET_I64(win_left_window, fw(f, row)->flows_left_out[GT_CAUSAL_FLOW_OTHER_WINDOW])
GET_I64(win_flags, fw(f, row)->flags)
GET_I64(win_ranks, fw(f, row)->ranks)
GET_I64(win_ranks_missing, fw(f, row)->ranks_missing)
GET_I64(win_rank_wall_min, fw(f, row)->rank_wall_min_ns)
GET_I64(win_rank_wall_median, fw(f, row)->rank_wall_median_ns)
GET_I64(win_rank_wall_max, fw(f, row)->rank_wall_max_ns)
GET_I64(win_endpoint, fw(f, row)->endpoint.span)
GET_I64(win_root, fw(f, row)->root.span)
GET_I64(row_span, fr(f, row)->span)
GET_I64(row_name, f->m->spans[fr(f, row)->span].name)
GET_I64(row_cat, f->m->spans[fr(f, row)->span].cat)
GET_I64(row_float, fr(f, row)->float_ns)
GET_I64(row_on_path, fr(f, row)->on_path)
GET_I64(row_critical, fr(f, row)->critical_ns)
GET_I64(row_waited, fr(f, row)->waited_ns)
GET_I64(row_caused, fr(f, row)->caused_wait_ns)

static const char *which_text(char c)
{
	return c == 'B' ? "B" : c == 'E' ? "E" : "D";
}
static const char *hop_from_which(const void *ctx, uint64_t row)
{
	return which_text(fh(ctx, row)->from.which);
}
static const char *hop_to_which(const void *ctx, uint64_t row)
{
	return which_text(fh(ctx, row)->to.which);
}
static const char *hop_track(const void *ctx, uint64_t row)
{
	const struct flat *f = ctx;
	static _Thread_local char buf[CELL_TEXT];
	return gt_causal_track_label(f->m, fh(f, row)->track, buf, sizeof buf);
}
static const char *share_key_text(const void *ctx, uint64_t row)
{
	const struct flat *f = ctx;
	static _Thread_local char buf[CELL_TEXT];
	if (f->item[row] >= fw(f, row)->breakdown_count)
		return NULL; /* the wall's parts have no key */
	return gt_causal_share_key(f->m, fs(f, row), buf, sizeof buf);
}
static const char *win_flag_text(const void *ctx, uint64_t row)
{
	const struct flat *f = ctx;
	static _Thread_local char buf[CELL_TEXT];
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 0; k < GT_CAUSAL_FLAG_COUNT; k++)
		if (fw(f, row)->flags & (1u << k))
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", len ? "," : "", gt_causal_flag_names[k]);
	return buf;
}

#define COL_U32(n, g) {.name = n, .type = GT_COL_U32, .get_i64 = g, .get_ctx = f}
#define COL_U32N(n, g) {.name = n, .type = GT_COL_U32, .get_i64 = g, .get_ctx = f, .has_null = true, .null_u32 = GT_NONE}
#define COL_U64(n, g) {.name = n, .type = GT_COL_U64, .get_i64 = g, .get_ctx = f}
#define COL_I64(n, g) {.name = n, .type = GT_COL_I64, .get_i64 = g, .get_ctx = f}
#define COL_STR(n, g) {.name = n, .type = GT_COL_STR, .get_str = g, .get_ctx = f}
#define COL_NAME(n, g) {.name = n, .type = GT_COL_DICT, .get_i64 = g, .get_ctx = f, .dict_get = gt_cli_model_string, \
			.dict_ctx = f->m, .has_null = true, .null_u32 = GT_NONE}
#define COL_KIND(n, g) {.name = n, .type = GT_COL_DICT, .get_i64 = g, .get_ctx = f, \
			.dict = gt_causal_kind_names, .dict_len = GT_CAUSAL_KIND_COUNT}

static size_t path_columns(gt_column *c, struct flat *f)
{
	gt_column cols[] = {
		COL_U32("window", col_window), COL_U32("hop", hop_index), COL_KIND("kind", hop_kind),
		COL_U32("from_point", hop_from_point), COL_U32("from_span", hop_from_span),
		COL_STR("from_which", hop_from_which), COL_I64("from_ns", hop_from_ts),
		COL_U32("to_point", hop_to_point), COL_U32("to_span", hop_to_span), COL_STR("to_which", hop_to_which),
		COL_I64("to_ns", hop_to_ts), COL_U32N("owner", hop_owner), COL_NAME("owner_name", hop_owner_name),
		COL_NAME("owner_cat", hop_owner_cat), COL_STR("track", hop_track), COL_NAME("flow_cat", hop_flow_cat),
		{.name = "class", .type = GT_COL_DICT, .get_i64 = hop_class, .get_ctx = f, .dict = gt_causal_class_names,
		 .dict_len = GT_CAUSAL_CLASS_COUNT},
		COL_I64("duration_ns", hop_duration),
	};
	memcpy(c, cols, sizeof cols);
	return sizeof cols / sizeof cols[0];
}

static size_t breakdown_columns(gt_column *c, struct flat *f)
{
	gt_column cols[] = {
		COL_U32("window", col_window),
		{.name = "kind", .type = GT_COL_DICT, .get_i64 = share_kind, .get_ctx = f, .dict = breakdown_kind_names,
		 .dict_len = BREAKDOWN_KIND_COUNT},
		COL_STR("key", share_key_text), COL_I64("critical_ns", share_ns),
		{.name = "share", .type = GT_COL_F64, .data = f->share, .has_null = true},
		{.name = "wall_share", .type = GT_COL_F64, .data = f->wall_share, .has_null = true},
	};
	memcpy(c, cols, sizeof cols);
	return sizeof cols / sizeof cols[0];
}

/* classes rows: item is the class */
static int64_t class_kind(const void *ctx, uint64_t row)
{
	return ((const struct flat *)ctx)->item[row];
}
static int64_t class_ns(const void *ctx, uint64_t row)
{
	const struct flat *f = ctx;
	return fw(f, row)->class_ns[f->item[row]];
}

static size_t class_columns(gt_column *c, struct flat *f)
{
	gt_column cols[] = {
		COL_U32("window", col_window),
		{.name = "class", .type = GT_COL_DICT, .get_i64 = class_kind, .get_ctx = f, .dict = gt_causal_class_names,
		 .dict_len = GT_CAUSAL_CLASS_COUNT},
		COL_I64("critical_ns", class_ns),
		{.name = "share", .type = GT_COL_F64, .data = f->share, .has_null = true},
		{.name = "wall_share", .type = GT_COL_F64, .data = f->wall_share, .has_null = true},
	};
	memcpy(c, cols, sizeof cols);
	return sizeof cols / sizeof cols[0];
}

static size_t window_columns(gt_column *c, struct flat *f)
{
	gt_column cols[] = {
		COL_U32("window", col_window), COL_U32N("step_span", win_step), COL_I64("begin_ns", win_begin),
		COL_I64("end_ns", win_end), COL_I64("wall_ns", win_wall), COL_I64("path_duration_ns", win_path),
		COL_U32N("endpoint_span", win_endpoint), COL_U32N("root_span", win_root), COL_U32("hops", win_hops),
		COL_U32("points", win_points), COL_U32("spans", win_spans), COL_U32("tracks", win_tracks),
		COL_U64("chain_edges", win_chain), COL_U64("flow_edges", win_flow), COL_U64("wait_edges", win_wait),
		COL_U64("backward_edges", win_backward), COL_U64("isolated_tracks", win_isolated),
		COL_U64("flows_left_out_self", win_left_self),
		COL_U64("flows_left_out_not_taking_part", win_left_part),
		COL_U64("flows_left_out_other_window", win_left_window), COL_STR("flags", win_flag_text),
		COL_U32("flag_bits", win_flags),
	};
	/* a job's --step windows: their ranks and the ranks' own walls */
	gt_column job[] = {
		COL_U32("ranks", win_ranks), COL_U32("ranks_missing", win_ranks_missing),
		COL_I64("rank_wall_min_ns", win_rank_wall_min), COL_I64("rank_wall_median_ns", win_rank_wall_median),
		COL_I64("rank_wall_max_ns", win_rank_wall_max),
	};
	size_t n = sizeof cols / sizeof cols[0];
	memcpy(c, cols, sizeof cols);
	if (f->r->window_count && f->r->windows[0].ranks) {
		memcpy(c + n, job, sizeof job);
		n += sizeof job / sizeof job[0];
	}
	return n;
}

static size_t row_columns(gt_column *c, struct flat *f)
{
	gt_column cols[] = {
		COL_U32("window", col_window), COL_U32("span", row_span), COL_NAME("name", row_name),
		COL_NAME("cat", row_cat), COL_I64("float_ns", row_float),
		{.name = "on_path", .type = GT_COL_BOOL, .get_i64 = row_on_path, .get_ctx = f},
		COL_I64("critical_ns", row_critical), COL_I64("waited_ns", row_waited),
		COL_I64("caused_wait_ns", row_caused),
	};
	memcpy(c, cols, sizeof cols);
	return sizeof cols / sizeof cols[0];
}

/* Rows of the chosen table, window after window. */
static uint64_t items_of(const gt_causal_window *w, int table)
{
	switch (table) {
	case GT_CAUSAL_TABLE_PATH: return w->hop_count;
	case GT_CAUSAL_TABLE_BREAKDOWN: return w->breakdown_count + (w->before_root_ns != 0) + (w->after_endpoint_ns != 0);
	case GT_CAUSAL_TABLE_ROWS: return w->row_count;
	case GT_CAUSAL_TABLE_CLASSES: {
		uint64_t n = 0;
		for (int k = 0; k < GT_CAUSAL_CLASS_COUNT; k++)
			n += w->class_ns[k] != 0;
		return n;
	}
	default: return 1;
	}
}

static int write_table(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, int table)
{
	struct flat f = {.m = m, .r = r};
	uint64_t n = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		n += items_of(&r->windows[i], table);
	if (n > UINT32_MAX) {
		fprintf(stderr, "gputrace: the table has more than 2^32 rows\n");
		return GT_EINPUT;
	}
	if (table == GT_CAUSAL_TABLE_ROWS && c->report < 0 && (c->format == GT_OUT_NDJSON || c->format == GT_OUT_CSV)) {
		/* millions of rows: formatted on threads, the table writer's bytes */
		gt_column cols[16];
		gt_table t = {.name = "rows", .cols = cols, .ncols = row_columns(cols, &f), .nrows = n};
		return gt_cp_rows_table(c, m, r, &t);
	}
	f.window = malloc((n ? n : 1) * sizeof *f.window);
	f.item = malloc((n ? n : 1) * sizeof *f.item);
	if (!f.window || !f.item) {
		free(f.window);
		free(f.item);
		fprintf(stderr, "gputrace: out of memory for the table\n");
		return GT_EINPUT;
	}
	uint64_t k = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		if (table == GT_CAUSAL_TABLE_CLASSES) { /* the classes with time */
			for (int cl = 0; cl < GT_CAUSAL_CLASS_COUNT; cl++)
				if (r->windows[i].class_ns[cl])
					f.window[k] = i, f.item[k++] = (uint32_t)cl;
		} else {
			for (uint64_t j = 0; j < items_of(&r->windows[i], table); j++, k++)
				f.window[k] = i, f.item[k] = (uint32_t)j;
		}
	bool shares = table == GT_CAUSAL_TABLE_BREAKDOWN || table == GT_CAUSAL_TABLE_CLASSES;
	if (shares && (!(f.share = malloc((n ? n : 1) * sizeof *f.share)) ||
						   !(f.wall_share = malloc((n ? n : 1) * sizeof *f.wall_share)))) {
		free(f.window);
		free(f.item);
		free(f.share);
		fprintf(stderr, "gputrace: out of memory for the table\n");
		return GT_EINPUT;
	}
	for (uint64_t i = 0; f.share && i < n; i++) {
		char text[48];
		bool classes = table == GT_CAUSAL_TABLE_CLASSES;
		bool part = !classes && f.item[i] >= fw(&f, i)->breakdown_count; /* not of the path */
		int64_t ns = classes ? class_ns(&f, i) : share_ns(&f, i);
		format_share(text, sizeof text, ns, fw(&f, i)->path_duration_ns);
		f.share[i] = part || strcmp(text, "null") == 0 ? NAN : strtod(text, NULL);
		format_share(text, sizeof text, ns, fw(&f, i)->wall_ns);
		f.wall_share[i] = strcmp(text, "null") == 0 ? NAN : strtod(text, NULL);
	}
	gt_column cols[32];
	gt_table t = {0};
	t.cols = cols;
	t.nrows = n;
	t.cells_on_threads = true; /* the getters read the result, text into buffers of each thread's */
	switch (table) {
	case GT_CAUSAL_TABLE_PATH: t.name = "path", t.ncols = path_columns(cols, &f); break;
	case GT_CAUSAL_TABLE_BREAKDOWN: t.name = "breakdown", t.ncols = breakdown_columns(cols, &f); break;
	case GT_CAUSAL_TABLE_WINDOWS: t.name = "windows", t.ncols = window_columns(cols, &f); break;
	case GT_CAUSAL_TABLE_CLASSES: t.name = "classes", t.ncols = class_columns(cols, &f); break;
	default: t.name = "rows", t.ncols = row_columns(cols, &f); break;
	}
	const char *mk[3], *mv[3];
	gt_cli_table_meta(&t, m->source, mk, mv);
	mk[2] = "model";
	mv[2] = "causal";
	t.nmeta = 3;
	int rc = gt_cli_write_table(c, &t);
	free(f.window);
	free(f.item);
	free(f.share);
	free(f.wall_share);
	return rc;
}

/* How the float converged is the device's business, not the result's:
 * the rounds go to stderr so that every device writes the same bytes. */
static void notice_rounds(const struct gt_common *c, const gt_causal_result *r, const char *device)
{
	uint64_t rounds = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		rounds += r->windows[i].float_rounds;
	gt_verbose(c, "critical path: %" PRIu32 " window%s, float in %" PRIu64 " round%s on %s", r->window_count,
		  r->window_count == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s", device);
}

int gt_cli_causal_write(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const char *device,
			const struct gt_causal_doc *doc)
{
	notice_rounds(c, r, device);
	if (c->format != GT_OUT_JSON) {
		int rc = write_table(c, m, r, doc->rows ? GT_CAUSAL_TABLE_ROWS : doc->table);
		if (rc == 0 && r->window_count == 1)
			gt_verbose(c, "critical path: windows=1 path_duration_ns=%" PRId64 " wall_ns=%" PRId64
				  " hops=%" PRIu32 " device=%s", r->windows[0].path_duration_ns,
				  r->windows[0].wall_ns, r->windows[0].hop_count, device);
		else if (rc == 0)
			gt_verbose(c, "critical path: windows=%" PRIu32 " device=%s", r->window_count, device);
		return rc;
	}
	gt_error err = {0};
	gt_outfile of = {0};
	if (gt_outfile_open(&of, c->output, false, &err) < 0 || write_document(&of, m, r, device, doc, c->threads, &err) < 0 ||
	    gt_outfile_commit(&of, &err) < 0) {
		gt_outfile_abort(&of);
		return gt_report(&err);
	}
	return 0;
}
