/* The causal critical path's driver: the trace-wide facts once, then the
 * windows in batches of bounded size: their graphs (windows in parallel
 * when there are several, a window's tracks in parallel when there is
 * one), the engine's three graph steps once over the batch's union, and
 * each window's result. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"
#include "causal_times.h"

const char *const gt_causal_wait_source_names[2] = {"recorded", "inferred"};
const char *const gt_causal_kind_names[GT_CAUSAL_KIND_COUNT] = {"work", "idle", "flow", "queue", "wait",
								 "stream_wait", "handoff"};
const char *const gt_causal_flag_names[GT_CAUSAL_FLAG_COUNT] = {"no_dependencies", "cycle", "overflow"};
const char *const gt_causal_left_out_names[GT_CAUSAL_LEFT_OUT_COUNT] = {"self", "not_taking_part",
									 "other_window"};

/* Windows go to the engine in batches of at most this many points (an
 * upper bound per window: 2 per span and 1 per flow), so that the working
 * arrays (graphs, union, steps: about 150 bytes a point) stay bounded
 * however long the trace. The host's steps cost the same in any batch: a
 * quarter million points keep its arrays in tens of megabytes. A device
 * pays launches and transfers per batch (the float's rounds are the
 * batch's largest window's), so it takes larger ones: on the H200 a
 * million points were as fast as four and held 240 MB less at 20M spans;
 * with two batches in flight (device_batches), half a million were as
 * fast as a million (1.54-1.55 s against 1.57-1.59 s per step) and held
 * 50 MB less. */
#define BATCH_POINTS_HOST ((uint64_t)1 << 18)
#define BATCH_POINTS_DEVICE ((uint64_t)1 << 19)

typedef struct float_job {
	const gt_causal_engine *e; /* its float, else the host's */
	const gt_cpm_graph *g;
	int64_t *lt;
	gt_cpm_float_stats stats;
	gt_error err;
	int rc;
} float_job;

/* The float (gt_cpm_check_range done for the host's). */
static int run_float(float_job *j, gt_error *err)
{
	if (j->e && j->e->floats)
		return j->e->floats(j->e->ctx, j->g, j->lt, &j->stats, err);
	return gt_cpm_float_host_checked(j->g, j->lt, &j->stats, err);
}

static void *floats_beside(void *arg)
{
	float_job *j = arg;
	j->rc = run_float(j, &j->err);
	return NULL;
}

/* forest.h's rows in full, for an engine's path or a binding with a
 * cycle (steps_alloc gives path_duration only). */
static int full_rows(causal_steps *s, uint32_t n, gt_error *err)
{
	gt_cp_rows_free(&s->rows);
	return gt_cp_rows_alloc(&s->rows, n, err);
}

/* The gaps, where the binding left them out: time[v] - time[parent]. */
static int fill_gaps(const gt_cpm_graph *cg, causal_steps *s, gt_error *err)
{
	if (s->bind.gap)
		return 0;
	s->bind.gap = gt_big_malloc(cg->n, sizeof *s->bind.gap);
	if (!s->bind.gap)
		return gt_fail(err, GT_EINPUT, "out of memory for the path of %u points", cg->n);
	for (uint32_t v = 0; v < cg->n; v++)
		s->bind.gap[v] = s->bind.parent[v] == GT_CP_ROOT ? 0 : cg->time[v] - cg->time[s->bind.parent[v]];
	return 0;
}

/* forest.h's path in full, the engine's or the host's: for an engine
 * without durations, and for a binding with a cycle (its flags and
 * invalid rows). */
static int full_path(const gt_causal_engine *e, const gt_cpm_graph *cg, causal_steps *s, gt_error *err)
{
	if (fill_gaps(cg, s, err) < 0 || full_rows(s, cg->n, err) < 0)
		return -1;
	return e && e->path ? e->path(e->ctx, s->bind.parent, s->bind.gap, cg->n, &s->rows, &s->sum, err)
			    : gt_critpath_host(s->bind.parent, s->bind.gap, cg->n, NULL, &s->rows, &s->sum, err);
}

/* The path step: the engine's durations, else its full path, or on the
 * host the reduced one; the full path where the binding holds a cycle. */
static int run_path(const gt_causal_engine *e, const gt_cpm_graph *cg, unsigned threads, causal_steps *s,
		    gt_error *err)
{
	int rc;
	if (e && e->path_durations)
		rc = e->path_durations(e->ctx, s->bind.parent, cg->time, cg->n, s->rows.path_duration, err);
	else if (e && e->path)
		rc = 1;
	else if ((rc = causal_path_host(s->bind.parent, cg->time, cg->n, threads, s->rows.path_duration)) < 0)
		return gt_fail(err, GT_EINPUT, "out of memory for the path of %u points", cg->n);
	return rc <= 0 ? rc : full_path(e, cg, s, err);
}

static void steps_free(causal_steps *s)
{
	gt_big_free(s->bind.parent);
	gt_big_free(s->bind.gap);
	gt_big_free(s->bind.kind);
	gt_big_free(s->bind.edge);
	gt_big_free(s->rows.path_duration);
	s->rows.path_duration = NULL;
	gt_cp_rows_free(&s->rows);
	gt_big_free(s->lt);
}

/* durations false: the path's durations left for after the binding
 * (steps_durations). */
static int steps_alloc(causal_steps *s, uint32_t points, bool gaps, bool floats, bool durations, gt_error *err)
{
	*s = (causal_steps){0};
	s->bind.parent = gt_big_malloc(points, sizeof *s->bind.parent);
	/* only an engine's binding writes the gaps; fill_gaps makes them where
	 * a full path needs them */
	s->bind.gap = gaps ? gt_big_malloc(points, sizeof *s->bind.gap) : NULL;
	s->bind.kind = gt_big_malloc(points, sizeof *s->bind.kind);
	s->bind.edge = gt_big_malloc(points, sizeof *s->bind.edge);
	s->lt = floats ? gt_big_malloc(points, sizeof *s->lt) : NULL; /* only rows read it */
	s->rows.path_duration = durations ? gt_big_malloc(points, sizeof *s->rows.path_duration) : NULL;
	if (!s->bind.parent || (gaps && !s->bind.gap) || !s->bind.kind || !s->bind.edge || (floats && !s->lt) ||
	    (durations && !s->rows.path_duration))
		return gt_fail(err, GT_EINPUT, "out of memory for the graph steps of %u points", points);
	return 0;
}

/* The first window that failed, and its error: a window's error is kept
 * by its batch (a gt_error is a kilobyte: one per window of a trace of
 * steps came to 1.5 bytes a span), and the earliest window's goes here
 * once its batch is done. */
typedef struct first_failure {
	pthread_mutex_t lock;
	uint32_t window; /* UINT32_MAX: none */
	gt_error err;
} first_failure;

/* A batch of windows [first, first + count): their graphs, and where
 * each window's result and error go. */
typedef struct batch {
	const causal_trace *t;
	const gt_causal_options *opt;
	const gt_causal_engine *eng;
	unsigned threads;
	uint32_t first, count;
	causal_trace *last;       /* the last batch's trace (its graph inputs freed once built), else NULL */
	causal_graph *graphs;     /* count */
	gt_causal_window *out;    /* every window's */
	gt_error *errs;           /* the batch's windows' (count); NULL out of memory */
	first_failure *failed;    /* the analysis' */
	/* the union being filled in: its first graph, the union, its steps */
	uint32_t at;
	const causal_union *u;
	causal_steps *s;
	/* on a device, the union of the graphs built (those before the first
	 * that failed) is made beside the steps of the batch before too */
	bool union_beside, union_made;
	uint32_t union_count;
	int union_rc;
	gt_error union_err;
	causal_union made;
} batch;

typedef struct batch_job {
	batch *b;
	void (*fn)(batch *b, uint32_t i);
	atomic_uint *next;
	uint32_t end;
} batch_job;

static void *batch_worker(void *arg)
{
	batch_job *j = arg;
	for (uint32_t i; (i = atomic_fetch_add(j->next, 1)) < j->end;)
		j->fn(j->b, i);
	return NULL;
}

/* fn(b, i) for i in [0, end), on up to b->threads threads. */
static void for_each_window(batch *b, uint32_t end, void (*fn)(batch *b, uint32_t i))
{
	atomic_uint next = 0;
	unsigned k = b->threads < end ? b->threads : end;
	batch_job jobs[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (batch_job){b, fn, &next, end};
	gt_run_jobs(batch_worker, jobs, sizeof *jobs, k ? k : 1);
}

static void build_graph(batch *b, uint32_t i)
{
	uint32_t w = b->first + i;
	/* one window alone has the threads for its tracks */
	unsigned threads = b->count == 1 ? b->threads : 1;
	/* the trace's only window: the build drops its inputs as it goes */
	causal_trace *alone = b->last && b->last->window_count == 1 ? b->last : NULL;
	causal_graph_build(b->t, w, threads, alone, &b->graphs[i], &b->out[w], &b->errs[i]);
}

/* The hops, once the window's result no longer reads them, where the
 * caller wants their count alone: a step's hops outweigh its summary. */
static void done_with_hops(batch *b, gt_causal_window *win)
{
	if (!b->opt->hop_count_only)
		return;
	gt_big_free(win->hops);
	win->hops = NULL;
}

static void fill_path(batch *b, uint32_t i)
{
	uint32_t w = b->first + b->at + i;
	gt_error *err = &b->errs[b->at + i];
	unsigned threads = b->u->count == 1 ? b->threads : 1; /* one window alone has the threads */
	causal_steps view;
	if (causal_union_view(b->u, b->s, i, true, threads, &view, err) != 0)
		return;
	/* a whole trace without rows: only the summary read the durations;
	 * they go back to the system before the path's hops come, its peak */
	if (b->t->window_count == 1 && !b->opt->rows) {
		gt_big_free(b->s->rows.path_duration);
		b->s->rows.path_duration = view.rows.path_duration = NULL;
		gt_big_trim();
	}
	if (causal_point_spans(&b->graphs[b->at + i], threads, err) == 0 &&
	    causal_result_path(b->t, &b->graphs[b->at + i], &view, b->opt, threads, &b->out[w], err) == 0 &&
	    !b->opt->rows)
		done_with_hops(b, &b->out[w]);
}

static void fill_rows(batch *b, uint32_t i)
{
	uint32_t w = b->first + b->at + i;
	gt_error *err = &b->errs[b->at + i];
	causal_steps view;
	if (!err->status && causal_union_view(b->u, b->s, i, false, 1, &view, err) == 0 &&
	    causal_result_rows(b->t, &b->graphs[b->at + i], &view, &b->out[w], err) == 0)
		done_with_hops(b, &b->out[w]);
}

/* fn over the union's windows: on this thread alone (one window, or the
 * float has the other threads), else on all. */
static void each_window(batch *b, uint32_t count, bool alone, void (*fn)(batch *b, uint32_t i))
{
	if (count == 1 || alone)
		for (uint32_t i = 0; i < count; i++)
			fn(b, i);
	else
		for_each_window(b, count, fn);
}

/* Threads for the host binding: ranges of points, each with its own
 * cross edges (gt_cpm_bind_host_threads). On two threads one sweep is as
 * fast (10M spans on 2 cores: 0.08 s on one thread, 0.09 on two): its
 * writes stay in windows of point ids, the ranges' do not. */
static unsigned bind_threads(const batch *b, const gt_cpm_graph *g)
{
	return b->threads < CAUSAL_SPLIT_THREADS ? 1 : causal_range_jobs(g->n, b->threads);
}

/* Without the float nothing reads the union's chains and cross edges once
 * bound. On one window (a whole trace, where the analysis peaks) they go
 * back to the system, else they stay for the other batches' reuse. */
typedef struct bound_graphs {
	const batch *b;
	causal_union *u;
	uint32_t at, count;
	causal_steps *steps; /* made once they have gone, else NULL */
	gt_error *err;
} bound_graphs;

static int drop_bound(void *arg)
{
	bound_graphs *d = arg;
	causal_union_drop_bound(d->u, d->b->graphs + d->at, d->count);
	if (d->b->t->window_count == 1)
		gt_big_trim();
	/* an engine's binding and durations land in arrays that take the
	 * dropped ones' place: as run_union would have made them */
	return d->steps ? steps_alloc(d->steps, d->u->cpm.n, false, false, true, d->err) : 0;
}

/* The host's binding read them: they go before the path's durations come. */
static int steps_durations(const batch *b, causal_union *u, uint32_t at, uint32_t count, causal_steps *s,
			   gt_error *err)
{
	drop_bound(&(bound_graphs){b, u, at, count, NULL, err});
	s->rows.path_duration = gt_big_malloc(u->cpm.n, sizeof *s->rows.path_duration);
	return s->rows.path_duration ? 0 : gt_fail(err, GT_EINPUT, "out of memory for the path of %u points", u->cpm.n);
}

/* Whether an engine's binding of count windows (n points) drops their
 * chains and cross edges as soon as it has read them, and the steps'
 * arrays are made only then: one window (without rows, which the float
 * reads them for) with points (an engine reads nothing of none). */
static bool steps_later(const batch *b, uint32_t count, uint32_t n)
{
	return b->eng && b->eng->bind_path_durations && count == 1 && !b->opt->rows && n > 0;
}

/* The binding and the path: the engine's in one call where it keeps the
 * bound graph, else one after the other (the durations made between them
 * where steps_alloc left them out). */
static int bind_and_path(const batch *b, causal_union *u, uint32_t at, uint32_t count, causal_steps *s,
			 gt_error *err)
{
	const gt_causal_engine *e = b->eng;
	const gt_cpm_graph *cg = &u->cpm;
	int rc;
	uint64_t t0 = causal_times_now();
	if (e && e->bind_path_durations) {
		/* an engine's binding tells when it has read them: they go before
		 * its results land, in arrays made then (steps_later). A union of
		 * several windows keeps them, as each window runs again alone
		 * where the union fails. */
		bool drop = steps_later(b, count, cg->n);
		bound_graphs d = {b, u, at, count, drop ? s : NULL, err};
		gt_cpm_read_hook hook = {drop_bound, &d};
		rc = e->bind_path_durations(e->ctx, cg, &s->bind, &s->rows.path_duration, drop ? &hook : NULL, err);
		causal_times_add(CAUSAL_T_BIND, t0);
		t0 = causal_times_now();
		if (rc == 1)
			rc = full_path(e, cg, s, err);
		causal_times_add(CAUSAL_T_PATH, t0);
		return rc;
	}
	rc = e && e->bind ? e->bind(e->ctx, cg, &s->bind, err)
			  : gt_cpm_bind_host_threads(cg, &s->bind, bind_threads(b, cg), err);
	causal_times_add(CAUSAL_T_BIND, t0);
	t0 = causal_times_now();
	if (rc == 0 && !s->rows.path_duration)
		rc = steps_durations(b, u, at, count, s, err);
	if (rc == 0)
		rc = run_path(e, cg, b->threads, s, err);
	causal_times_add(CAUSAL_T_PATH, t0);
	return rc;
}

/* The graphs [at, at + count) as one union through the engine's steps,
 * and each window's result: the binding, the path, the windows' paths,
 * then their rows. The float only the rows read: it runs on a thread of
 * its own from the start, beside all but the rows (an engine's float
 * waits on its device most of the time, so the windows' paths keep the
 * other threads then). Fails (with
 * err, and no result left filled) only where the union's steps do; a
 * window's own failure goes to its error. */
static int run_union(batch *b, uint32_t at, uint32_t count, gt_error *err)
{
	const gt_causal_engine *e = b->eng;
	bool floats = b->opt->rows, host_floats_ = floats && !(e && e->floats);
	bool host_bind = !(e && (e->bind || e->bind_path_durations));
	causal_union u;
	causal_steps s = {0};
	uint64_t t0 = causal_times_now();
	int rc;
	if (b->union_made && at == 0 && count == b->union_count) { /* made when the graphs were */
		u = b->made, rc = b->union_rc, b->union_made = false;
		if (rc < 0)
			*err = b->union_err;
	} else {
		rc = causal_union_build(&u, b->graphs + at, count, err);
	}
	if (rc == 0 && !steps_later(b, count, u.cpm.n)) /* the gaps where the engine's binding writes them */
		rc = steps_alloc(&s, u.cpm.n, !host_bind && !e->bind_path_durations, floats,
				 floats || (e && e->bind_path_durations), err);
	/* the host steps share one check of the graph, of its ranges alone:
	 * causal_graph builds the shape */
	if (rc == 0 && (host_bind || host_floats_))
		rc = gt_cpm_check_range(&u.cpm, host_floats_, err);
	float_job fj = {e, &u.cpm, s.lt, {0}, {0}, 0};
	pthread_t tid;
	bool beside = rc == 0 && floats && b->threads > 1 && pthread_create(&tid, NULL, floats_beside, &fj) == 0;
	causal_times_add(CAUSAL_T_UNION, t0);
	if (rc == 0)
		rc = bind_and_path(b, &u, at, count, &s, err);
	if (rc == 0 && !floats) /* where steps_durations did not: an engine's binding with the path */
		causal_union_drop_bound(&u, b->graphs + at, count);
	b->at = at;
	b->u = &u;
	b->s = &s;
	t0 = causal_times_now();
	if (rc == 0)
		each_window(b, count, beside && host_floats_, fill_path);
	causal_times_add(CAUSAL_T_RESULTS, t0);
	t0 = causal_times_now();
	if (beside) {
		pthread_join(tid, NULL);
		if (rc == 0 && fj.rc < 0) { /* its cause too: out of device memory falls back to the host */
			*err = fj.err;
			rc = -1;
		}
	} else if (rc == 0 && floats) {
		rc = run_float(&fj, err);
	}
	causal_times_add(CAUSAL_T_FLOAT_WAIT, t0);
	t0 = causal_times_now();
	if (rc == 0 && floats)
		each_window(b, count, false, fill_rows);
	causal_times_add(CAUSAL_T_ROWS, t0);
	/* the rounds of the one float call, told once */
	b->out[b->first + at].float_rounds = rc == 0 ? fj.stats.rounds : 0;
	for (uint32_t i = 0; rc < 0 && i < count; i++)
		causal_result_undo(&b->out[b->first + at + i]);
	steps_free(&s);
	causal_union_free(&u);
	return rc;
}

static bool failed(const batch *b, uint32_t i)
{
	return b->errs[i].status != 0;
}

/* The graphs that built, up to the first that failed. */
static uint32_t graphs_built(const batch *b)
{
	uint32_t built = 0;
	while (built < b->count && !failed(b, built))
		built++;
	return built;
}

/* Builds the batch's graphs (their time is added up over the threads, and
 * on a device overlaps the steps of the batch before), and there their
 * union too. What building leaves for reuse (the chains' scratch, the
 * trace's sorting) fits none of the steps' arrays: the caller gives it
 * back (gt_big_trim) once no other batch's steps are running, whose freed
 * blocks a rerun would reuse. */
static void build_batch(batch *b)
{
	if (!b->errs) /* out of memory: batch_done tells */
		return;
	uint64_t t0 = causal_times_now();
	if (b->count == 1)
		build_graph(b, 0);
	else
		for_each_window(b, b->count, build_graph);
	causal_times_add(CAUSAL_T_GRAPHS, t0);
	if (b->last)
		causal_trace_drop_graph_inputs(b->last);
	b->union_count = b->union_beside ? graphs_built(b) : 0;
	if (b->union_count) {
		t0 = causal_times_now();
		b->union_rc = causal_union_build(&b->made, b->graphs, b->union_count, &b->union_err);
		b->union_made = true;
		causal_times_add(CAUSAL_T_UNION, t0);
	}
}

/* The graphs of a batch, and the union made of them if no step took it. */
static void free_graphs(batch *b)
{
	if (b->union_made)
		causal_union_free(&b->made);
	b->union_made = false;
	for (uint32_t i = 0; i < b->count; i++)
		causal_graph_free(&b->graphs[i]);
}

/* Runs the built graphs through the engine as one union and fills the
 * results. The graphs before the first that failed to build go on (an
 * earlier window's error is the one reported); where the union's steps
 * fail, each window runs alone, so that the error is the first failing
 * window's as it would be one window at a time. */
static void finish_batch(batch *b)
{
	if (!b->errs)
		return;
	uint32_t built = graphs_built(b);
	gt_error err = {0};
	if (built && run_union(b, 0, built, &err) < 0) {
		if (built == 1)
			b->errs[0] = err;
		for (uint32_t i = 0; built > 1 && i < built; i++) {
			b->errs[i] = (gt_error){0}; /* what the union's windows had said */
			run_union(b, i, 1, &b->errs[i]);
		}
	}
	free_graphs(b);
}

/* The batch's first failed window, if any, to the analysis' record where
 * it comes before the one there; the batch's errors go. True where one of
 * its windows failed. */
static bool batch_done(batch *b)
{
	uint32_t i = 0;
	while (b->errs && i < b->count && !b->errs[i].status)
		i++;
	bool failed = !b->errs || i < b->count;
	if (failed) {
		first_failure *f = b->failed;
		pthread_mutex_lock(&f->lock);
		if (b->first + i < f->window) {
			f->window = b->first + i;
			if (b->errs)
				f->err = b->errs[i];
			else
				gt_fail(&f->err, GT_EINPUT, "out of memory for the errors of %u windows", b->count);
		}
		pthread_mutex_unlock(&f->lock);
	}
	gt_big_free(b->errs);
	b->errs = NULL;
	return failed;
}

static bool analyze_batch(batch *b)
{
	build_batch(b);
	gt_big_trim();
	finish_batch(b);
	return batch_done(b);
}

/* Points a window can have at most: B and E of each span, a departure
 * point per flow. */
static uint64_t points_bound(const causal_trace *t, uint32_t w)
{
	return 2 * (uint64_t)(t->span_first[w + 1] - t->span_first[w]) + (t->flow_first[w + 1] - t->flow_first[w]);
}

/* The windows from w on that make one batch of at most budget points (a
 * window larger than that alone): its end. */
static uint32_t batch_end(const causal_trace *t, uint32_t w, uint64_t budget)
{
	uint64_t points = points_bound(t, w);
	uint32_t end = w + 1;
	for (; end < t->window_count && points + points_bound(t, end) <= budget; end++)
		points += points_bound(t, end);
	return end;
}

static void *build_alone(void *arg)
{
	build_batch(arg);
	return NULL;
}

/* The batch of windows from w on, of at most budget points. */
static batch batch_at(causal_trace *t, const batch *all, uint32_t w, uint64_t budget)
{
	uint32_t end = batch_end(t, w, budget);
	batch b = *all;
	b.first = w;
	b.count = end - w;
	b.graphs = all->graphs + w;
	b.errs = gt_big_calloc(b.count, sizeof *b.errs); /* NULL: batch_done tells */
	b.last = end == t->window_count ? t : NULL; /* nothing reads its graphs' inputs after them */
	return b;
}

/* The first error of the windows so far: -1 with it in err, else 0. */
static int first_error(first_failure *f, gt_error *err)
{
	if (f->window == UINT32_MAX)
		return 0;
	*err = f->err; /* the cause too: out of device memory falls back to the host */
	return -1;
}

/* On a device the batches go one at a time, each one engine call with the
 * threads within it, and each batch's graphs are built beside the steps of
 * the one before: the union, the transfers and the device's time leave the
 * cores idle. Two batches are in flight, each with the threads (-j) of its
 * own. */
static int device_batches(causal_trace *t, const batch *all, uint64_t budget, gt_error *err)
{
	batch cur = batch_at(t, all, 0, budget), next;
	build_batch(&cur);
	gt_big_trim();
	for (;;) {
		uint32_t end = cur.first + cur.count;
		bool more = end < t->window_count, beside = false;
		pthread_t tid;
		if (more) {
			next = batch_at(t, all, end, budget);
			next.union_beside = true;
			beside = all->threads > 1 && pthread_create(&tid, NULL, build_alone, &next) == 0;
		}
		finish_batch(&cur);
		if (beside)
			pthread_join(tid, NULL);
		if (batch_done(&cur)) {
			if (more) {
				free_graphs(&next);
				gt_big_free(next.errs);
			}
			return first_error(all->failed, err);
		}
		if (!more)
			return 0;
		if (!beside) {
			next.union_beside = false; /* nothing to overlap: as the first batch */
			build_batch(&next);
		}
		gt_big_trim();
		cur = next;
	}
}

/* The host's batches of one stretch of windows, each on one thread, taken
 * in window order by the threads as they come free: a thread that ends
 * early does not wait for the others' batches. */
typedef struct batch_pool {
	causal_trace *t;
	const batch *all;
	uint64_t share;
	uint32_t end; /* the stretch's */
	pthread_mutex_t lock;
	uint32_t next; /* the first window no thread has taken */
	bool stop;     /* a batch failed: take no more */
} batch_pool;

static void *pool_worker(void *arg)
{
	batch_pool *p = *(batch_pool **)arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		if (p->stop || p->next >= p->end) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		batch b = batch_at(p->t, p->all, p->next, p->share);
		p->next = b.first + b.count;
		pthread_mutex_unlock(&p->lock);
		b.threads = 1;
		if (p->all->threads > 1)
			b.last = NULL; /* the others may still be building */
		if (analyze_batch(&b)) {
			pthread_mutex_lock(&p->lock);
			p->stop = true;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

/* The first window from w on too large to share a thread's budget, or the
 * trace's end. */
static uint32_t next_alone(const causal_trace *t, uint32_t w, uint64_t share)
{
	while (w < t->window_count && points_bound(t, w) <= share)
		w++;
	return w;
}

/* On the host, where the steps are per batch and run on one thread,
 * several smaller batches run side by side, one a thread, so that the
 * union, binding and path of many windows are not serial; the points in
 * flight stay within the budget. A window too large for a batch of its
 * own share runs alone with every thread, and so does a stretch between
 * such windows that makes one batch. The batches are the same however the
 * threads take them. */
static int host_batches(causal_trace *t, const batch *all, uint64_t budget, gt_error *err)
{
	unsigned threads = all->threads;
	uint64_t share = threads == 1 ? budget : (budget + threads - 1) / threads;
	for (uint32_t w = 0; w < t->window_count;) {
		uint32_t end = next_alone(t, w, share);
		if (end == w || batch_end(t, w, share) == end) { /* alone, or one batch: with every thread */
			batch b = batch_at(t, all, w, share);
			analyze_batch(&b);
			w = b.first + b.count;
		} else {
			batch_pool pool = {.t = t, .all = all, .share = share, .end = end,
					   .lock = PTHREAD_MUTEX_INITIALIZER, .next = w};
			batch_pool *jobs[GT_MAX_JOBS];
			for (unsigned j = 0; j < threads; j++)
				jobs[j] = &pool;
			gt_run_jobs(pool_worker, jobs, sizeof *jobs, threads);
			w = pool.next;
		}
		if (first_error(all->failed, err) < 0)
			return -1;
	}
	return 0;
}

/* The windows in batches. The results do not depend on the batches; the
 * float's rounds that -v tells (one count per float call) do, and so on
 * the threads. */
static int analyze_windows(causal_trace *t, const gt_causal_options *opt, const gt_causal_engine *eng,
			   gt_causal_result *out, gt_error *err)
{
	bool device = eng && (eng->bind || eng->path || eng->floats || eng->path_durations || eng->bind_path_durations);
	uint64_t budget = opt->batch_points	    ? opt->batch_points
			  : causal_batch_points() ? causal_batch_points()
			  : device		    ? BATCH_POINTS_DEVICE
						    : BATCH_POINTS_HOST;
	/* cleared on threads: 30 MB at 150,000 steps */
	causal_graph *graphs = gt_big_calloc_threads(t->window_count, sizeof *graphs, gt_thread_count(opt->threads, GT_MAX_JOBS));
	if (!graphs)
		return gt_fail(err, GT_EINPUT, "out of memory for %u windows", t->window_count);
	first_failure failed = {PTHREAD_MUTEX_INITIALIZER, UINT32_MAX, {0}};
	batch all = {.t = t, .opt = opt, .eng = eng, .threads = gt_thread_count(opt->threads, GT_MAX_JOBS),
		     .first = 0, .count = t->window_count, .graphs = graphs, .out = out->windows, .failed = &failed};
	causal_span_fields_init(t, opt);
	int rc = device ? device_batches(t, &all, budget, err) : host_batches(t, &all, budget, err);
	gt_big_free(graphs);
	return rc;
}

static int analyze(const gt_model *m, const gt_causal_options *opt, const gt_causal_engine *eng,
		   gt_causal_result *out, gt_error *err)
{
	causal_trace t;
	if (causal_trace_init(&t, m, opt, err) < 0) {
		causal_trace_free(&t);
		return -1;
	}
	out->device_track_spans_left_out = t.device_track_spans_left_out;
	out->spans_taking_part = t.spans_taking_part;
	out->wrapper_spans_left_out = t.wrapper_spans_left_out;
	out->stream_wait_slack_ns = t.stream_wait_slack;
	out->handoffs = t.handoffs;
	out->recorded_waits = opt->recorded_waits;
	out->syncs = t.syncs;
	/* the windows as made become the result's: nothing reads them from
	 * the trace after the placing (a copy was 0.04 s on one thread at
	 * 150,000 windows) */
	gt_causal_window *exact = t.window_count ? realloc(t.windows, (size_t)t.window_count * sizeof *t.windows) : NULL;
	out->windows = exact ? exact : t.windows; /* a job's were grown by doubling */
	out->window_count = t.window_count;
	t.windows = NULL;
	causal_times_mark("batches: begin");
	int rc = analyze_windows(&t, opt, eng, out, err);
	causal_times_mark("batches: end");
	causal_trace_free(&t);
	causal_times_mark("trace freed");
	return rc;
}

int gt_causal_analyze(const gt_model *m, const gt_causal_options *opt, const gt_causal_engine *eng,
		      gt_causal_result *out, gt_error *err)
{
	memset(out, 0, sizeof *out);
	int rc = analyze(m, opt, eng, out, err);
	gt_big_trim(); /* the working arrays kept for reuse between the steps */
	causal_times_report();
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
