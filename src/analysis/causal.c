/* The causal critical path's driver: the trace-wide facts once, then each
 * window on its own (windows in parallel when there are several, a
 * window's tracks in parallel when there is one): its graph, the engine's
 * three graph steps, and the result. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "causal_internal.h"

const char *const gt_causal_kind_names[GT_CAUSAL_KIND_COUNT] = {"work", "idle", "flow", "queue", "wait"};
const char *const gt_causal_flag_names[GT_CAUSAL_FLAG_COUNT] = {"no_dependencies", "cycle", "overflow"};
const char *const gt_causal_left_out_names[GT_CAUSAL_LEFT_OUT_COUNT] = {"self", "not_taking_part",
									 "other_window"};

/* The engine's steps, or the host references where it has none; a device
 * engine is called by one window at a time. */
typedef struct steps_runner {
	const gt_causal_engine *eng;
	pthread_mutex_t lock;
} steps_runner;

typedef struct float_job {
	const gt_cpm_graph *g;
	int64_t *lt;
	gt_cpm_float_stats stats;
	gt_error err;
	int rc;
} float_job;

static void *host_floats(void *arg)
{
	float_job *j = arg;
	j->rc = gt_cpm_float_host(j->g, j->lt, &j->stats, &j->err);
	return NULL;
}

/* Binding then path; the floats need neither, so on the host they run
 * beside them when there is a thread to spare. */
static int run_steps(steps_runner *r, const causal_graph *g, causal_steps *s, unsigned threads,
		     gt_causal_window *win, gt_error *err)
{
	const gt_causal_engine *e = r->eng;
	gt_cpm_graph cg = causal_cpm_graph(g);
	float_job fj = {&cg, s->lt, {0}, {0}, 0};
	pthread_t tid;
	bool beside = threads > 1 && !(e && e->floats) && pthread_create(&tid, NULL, host_floats, &fj) == 0;
	bool device = e && (e->bind || e->path || e->floats);
	if (device)
		pthread_mutex_lock(&r->lock);
	int rc = e && e->bind ? e->bind(e->ctx, &cg, &s->bind, err) : gt_cpm_bind_host(&cg, &s->bind, err);
	if (rc == 0)
		rc = e && e->path ? e->path(e->ctx, s->bind.parent, s->bind.gap, g->n, &s->rows, &s->sum, err)
				  : gt_critpath_host(s->bind.parent, s->bind.gap, g->n, NULL, &s->rows, &s->sum, err);
	if (beside) {
		pthread_join(tid, NULL);
		if (rc == 0 && fj.rc < 0)
			rc = gt_fail(err, fj.err.status, "%s", fj.err.msg);
	} else if (rc == 0) {
		fj.rc = e && e->floats ? e->floats(e->ctx, &cg, s->lt, &fj.stats, err)
				       : gt_cpm_float_host(&cg, s->lt, &fj.stats, err);
		rc = fj.rc;
	}
	if (device)
		pthread_mutex_unlock(&r->lock);
	win->float_rounds = fj.stats.rounds;
	return rc;
}

static void steps_free(causal_steps *s)
{
	free(s->bind.parent);
	free(s->bind.gap);
	free(s->bind.kind);
	free(s->bind.edge);
	gt_cp_rows_free(&s->rows);
	free(s->lt);
}

static int analyze_window(const causal_trace *t, uint32_t w, const gt_causal_options *opt, steps_runner *r,
			  unsigned threads, gt_causal_window *win, gt_error *err)
{
	causal_graph g;
	if (causal_graph_build(t, w, threads, &g, win, err) < 0)
		return -1;
	size_t n = g.n ? g.n : 1;
	causal_steps s = {0};
	bool oom = gt_fault_hit("alloc");
	s.bind.parent = oom ? NULL : malloc(n * sizeof *s.bind.parent);
	s.bind.gap = oom ? NULL : malloc(n * sizeof *s.bind.gap);
	s.bind.kind = oom ? NULL : malloc(n * sizeof *s.bind.kind);
	s.bind.edge = oom ? NULL : malloc(n * sizeof *s.bind.edge);
	s.lt = oom ? NULL : malloc(n * sizeof *s.lt);
	int rc = 0;
	if (!s.bind.parent || !s.bind.gap || !s.bind.kind || !s.bind.edge || !s.lt)
		rc = gt_fail(err, GT_EINPUT, "out of memory for a window of %u points", g.n);
	if (rc == 0)
		rc = gt_cp_rows_alloc(&s.rows, g.n, err);
	if (rc == 0)
		rc = run_steps(r, &g, &s, threads, win, err);
	if (rc == 0)
		rc = causal_result_fill(t, &g, &s, opt, win, err);
	steps_free(&s);
	causal_graph_free(&g);
	return rc;
}

typedef struct window_job {
	const causal_trace *t;
	const gt_causal_options *opt;
	steps_runner *r;
	gt_causal_window *out;
	atomic_uint *next;
	gt_error *errs; /* per window */
	int rc;
} window_job;

/* Takes windows until none is left; the first failing window's error is
 * the one reported, whatever the threads' timing. */
static void *window_worker(void *arg)
{
	window_job *j = arg;
	j->rc = 0;
	for (;;) {
		uint32_t w = atomic_fetch_add(j->next, 1);
		if (w >= j->t->window_count)
			break;
		if (analyze_window(j->t, w, j->opt, j->r, 1, &j->out[w], &j->errs[w]) < 0)
			j->rc = -1;
	}
	return NULL;
}

static unsigned thread_count(unsigned asked)
{
	long cores = asked ? (long)asked : sysconf(_SC_NPROCESSORS_ONLN);
	return cores < 1 ? 1u : cores > CAUSAL_MAX_THREADS ? CAUSAL_MAX_THREADS : (unsigned)cores;
}

static int analyze_windows(const causal_trace *t, const gt_causal_options *opt, steps_runner *r,
			   gt_causal_result *out, gt_error *err)
{
	unsigned threads = thread_count(opt->threads);
	if (t->window_count == 1 || threads == 1) {
		for (uint32_t w = 0; w < t->window_count; w++)
			if (analyze_window(t, w, opt, r, threads, &out->windows[w], err) < 0)
				return -1;
		return 0;
	}
	gt_error *errs = gt_fault_hit("alloc") ? NULL : calloc(t->window_count, sizeof *errs);
	if (!errs)
		return gt_fail(err, GT_EINPUT, "out of memory for %u windows", t->window_count);
	atomic_uint next = 0;
	unsigned k = threads < t->window_count ? threads : t->window_count;
	window_job jobs[CAUSAL_MAX_THREADS];
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (window_job){t, opt, r, out->windows, &next, errs, 0};
	causal_run_jobs(window_worker, jobs, sizeof *jobs, k);
	int rc = 0;
	for (uint32_t w = 0; w < t->window_count && rc == 0; w++)
		if (errs[w].status)
			rc = gt_fail(err, errs[w].status, "%s", errs[w].msg);
	free(errs);
	return rc;
}

int gt_causal_analyze(const gt_model *m, const gt_causal_options *opt, const gt_causal_engine *eng,
		      gt_causal_result *out, gt_error *err)
{
	memset(out, 0, sizeof *out);
	causal_trace t;
	if (causal_trace_init(&t, m, opt, err) < 0) {
		causal_trace_free(&t);
		return -1;
	}
	out->device_track_spans_left_out = t.device_track_spans_left_out;
	out->spans_taking_part = t.spans_taking_part;
	out->windows = gt_fault_hit("alloc") ? NULL : calloc(t.window_count, sizeof *out->windows);
	if (!out->windows) {
		causal_trace_free(&t);
		return gt_fail(err, GT_EINPUT, "out of memory for %u windows", t.window_count);
	}
	out->window_count = t.window_count;
	memcpy(out->windows, t.windows, (size_t)t.window_count * sizeof *out->windows);
	steps_runner r = {eng, PTHREAD_MUTEX_INITIALIZER};
	int rc = analyze_windows(&t, opt, &r, out, err);
	pthread_mutex_destroy(&r.lock);
	causal_trace_free(&t);
	if (rc < 0)
		gt_causal_result_free(out);
	return rc;
}

void gt_causal_result_free(gt_causal_result *r)
{
	for (uint32_t w = 0; r->windows && w < r->window_count; w++) {
		free(r->windows[w].hops);
		free(r->windows[w].breakdown);
		free(r->windows[w].rows);
	}
	free(r->windows);
	memset(r, 0, sizeof *r);
}
