/* The trace-wide part of the causal analysis: the windows, which window
 * each span and flow belongs to (the rules are in causal.h), and the
 * trace-wide facts the windows' graphs read. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"
#include "causal_times.h"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

/* Room for c windows in all (-1 out of memory). */
static int reserve_windows(causal_trace *t, uint32_t *cap, uint32_t c)
{
	gt_causal_window *p = gt_fault_hit("alloc") ? NULL : realloc(t->windows, (size_t)c * sizeof *p);
	if (!p)
		return -1;
	t->windows = p;
	*cap = c;
	return 0;
}

static int add_window(causal_trace *t, uint32_t *cap, uint32_t step, int64_t begin, int64_t end)
{
	if (t->window_count == *cap && reserve_windows(t, cap, *cap ? *cap * 2 : 16) < 0)
		return -1;
	gt_causal_window *w = &t->windows[t->window_count++];
	memset(w, 0, sizeof *w);
	w->step_span = step;
	w->begin_ns = begin;
	w->end_ns = end;
	return 0;
}

/* Steps [a, b) of one trace: a window each. */
typedef struct step_windows {
	causal_trace *t;
	const uint32_t *opening;
} step_windows;

static int fill_step_windows(void *ctx, uint64_t a, uint64_t b)
{
	const step_windows *sw = ctx;
	for (uint64_t k = a; k < b; k++) {
		const gt_span *s = &sw->t->m->spans[sw->opening[k]];
		sw->t->windows[k] = (gt_causal_window){.step_span = sw->opening[k], .begin_ns = s->ts_ns, .end_ns = causal_end(s)};
	}
	return 0;
}

static int make_windows(causal_trace *t, const gt_causal_options *opt, gt_error *err)
{
	const gt_model *m = t->m;
	uint32_t cap = 0;
	if (opt->has_window && opt->step_glob)
		return gt_fail(err, GT_EUSAGE, "--window and --step exclude each other");
	if (opt->has_window) {
		int64_t b, e;
		if (opt->window_begin_ns > opt->window_end_ns)
			return gt_fail(err, GT_EUSAGE, "--window: the start (%lld ns) is after the end (%lld ns)",
				       (long long)opt->window_begin_ns, (long long)opt->window_end_ns);
		if (__builtin_add_overflow(m->start_ns, opt->window_begin_ns, &b) ||
		    __builtin_add_overflow(m->start_ns, opt->window_end_ns, &e))
			return gt_fail(err, GT_EUSAGE, "--window: the bounds are out of range");
		if (add_window(t, &cap, GT_NONE, b, e) < 0)
			return gt_fail(err, GT_EINPUT, "out of memory for the windows");
		return 0;
	}
	if (!opt->step_glob) {
		if (add_window(t, &cap, GT_NONE, m->start_ns, m->end_ns) < 0)
			return gt_fail(err, GT_EINPUT, "out of memory for the windows");
		return 0;
	}
	/* the spans that open a step: found with the classes */
	uint32_t *opening = t->opening, openings = t->openings;
	t->opening = NULL;
	bool job = m->rank_count > 1;
	uint32_t *by_name = job ? alloc(m->strings.count, sizeof *by_name) : NULL; /* a name's window */
	if (job && !by_name) {
		gt_big_free(opening);
		return gt_fail(err, GT_EINPUT, "out of memory for the windows");
	}
	for (uint32_t i = 0; job && i < m->strings.count; i++)
		by_name[i] = GT_NONE;
	uint32_t steps_cap = 0;
	/* one window a step (a job's steps share windows by name): a window is
	 * a few hundred bytes, and a hundred thousand grown by doubling were
	 * copied twice over; filled on threads, which fault its fresh pages in */
	int rc = !job && openings && reserve_windows(t, &cap, openings) < 0 ? -1 : 0;
	if (rc == 0 && !job && openings) {
		step_windows sw = {t, opening};
		gt_parallel_ranges(openings, causal_range_min_small(), gt_thread_count(opt->threads, GT_MAX_JOBS), fill_step_windows, &sw);
		t->window_count = openings;
	}
	for (uint32_t k = 0; k < openings && rc == 0 && job; k++) {
		uint32_t i = opening[k];
		const gt_span *s = &m->spans[i];
		/* a job: one window per step name, the union of every rank's span of it */
		uint32_t *w = &by_name[s->name];
		if (*w == GT_NONE) {
			rc = add_window(t, &cap, i, s->ts_ns, causal_end(s));
			*w = t->window_count - 1;
		} else {
			gt_causal_window *win = &t->windows[*w];
			win->begin_ns = s->ts_ns < win->begin_ns ? s->ts_ns : win->begin_ns;
			win->end_ns = causal_end(s) > win->end_ns ? causal_end(s) : win->end_ns;
		}
		if (rc == 0 && t->step_count == steps_cap) {
			uint32_t c = steps_cap ? steps_cap * 2 : 64;
			uint32_t *a = gt_fault_hit("alloc") ? NULL : realloc(t->steps, (size_t)c * sizeof *a);
			uint32_t *b = a ? realloc(t->step_window, (size_t)c * sizeof *b) : NULL;
			if (a)
				t->steps = a;
			if (b)
				t->step_window = b;
			rc = a && b ? 0 : -1;
			steps_cap = rc == 0 ? c : steps_cap;
		}
		if (rc == 0) {
			t->steps[t->step_count] = i;
			t->step_window[t->step_count++] = *w;
		}
	}
	gt_big_free(by_name), gt_big_free(opening);
	if (rc < 0)
		return gt_fail(err, GT_EINPUT, "out of memory for the windows");
	if (!t->window_count)
		return gt_fail(err, GT_EINPUT, "--step '%s' matches no span of a host track", opt->step_glob);
	if (!job)
		return 0;
	/* the ranks with each step (steps are by id, so rank after rank; a rank
	 * with two spans of one name counts once) */
	uint32_t *seen = alloc(t->window_count, sizeof *seen);
	if (!seen)
		return gt_fail(err, GT_EINPUT, "out of memory for the windows");
	memset(seen, 0xff, (size_t)t->window_count * sizeof *seen);
	for (uint32_t k = 0, r = 0; k < t->step_count; k++) {
		while (t->steps[k] >= m->ranks[r].span_base + m->ranks[r].span_count)
			r++;
		uint32_t w = t->step_window[k];
		t->windows[w].ranks += seen[w] != r;
		seen[w] = r;
	}
	gt_big_free(seen);
	for (uint32_t w = 0; w < t->window_count; w++)
		t->windows[w].ranks_missing = m->rank_count - t->windows[w].ranks;
	return 0;
}

/* Finding the window of a time: the windows by (begin, index descending),
 * their begins, and the running maximum of their ends so that a search
 * stops early. Spans come roughly in time order, so each search gallops
 * from where the last one ended. */
typedef struct window_finder {
	uint32_t n;             /* the intervals: windows, or a rank's steps */
	const uint32_t *window; /* interval -> window; NULL: the identity */
	uint32_t *order;
	int64_t *begin, *end; /* in order: a window is a few hundred bytes, a miss at every search */
	int64_t *max_end;
	uint32_t hint;
} window_finder;

static const gt_causal_window *sort_windows_of;

static int cmp_window(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const gt_causal_window *wa = &sort_windows_of[a], *wb = &sort_windows_of[b];
	if (wa->begin_ns != wb->begin_ns)
		return wa->begin_ns < wb->begin_ns ? -1 : 1;
	return a > b ? -1 : a < b;
}

static int finder_init(window_finder *f, const gt_causal_window *w, uint32_t n, const uint32_t *window)
{
	*f = (window_finder){.n = n, .window = window};
	f->order = alloc(n, sizeof *f->order);
	f->begin = alloc(n, sizeof *f->begin);
	f->end = alloc(n, sizeof *f->end);
	f->max_end = alloc(n, sizeof *f->max_end);
	if (!f->order || !f->begin || !f->end || !f->max_end)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		f->order[i] = i;
	sort_windows_of = w; /* windows are few: qsort's global is fine here */
	qsort(f->order, n, sizeof *f->order, cmp_window);
	for (uint32_t i = 0; i < n; i++) {
		const gt_causal_window *x = &w[f->order[i]];
		f->begin[i] = x->begin_ns;
		f->end[i] = x->end_ns;
		f->max_end[i] = i && f->max_end[i - 1] > x->end_ns ? f->max_end[i - 1] : x->end_ns;
	}
	return 0;
}

static void finder_free(window_finder *f)
{
	gt_big_free(f->order);
	gt_big_free(f->begin);
	gt_big_free(f->end);
	gt_big_free(f->max_end);
}

/* The window of the interval whose [begin, end] holds ts, the latest
 * begun (ties: the lowest index), or GT_NONE. */
static uint32_t window_at(window_finder *f, int64_t ts)
{
	uint32_t lo = gt_search_from(f->begin, f->n, ts, true, f->hint); /* first begin > ts */
	f->hint = lo;
	for (uint32_t k = lo; k > 0 && f->max_end[k - 1] >= ts; k--)
		if (f->end[k - 1] >= ts)
			return f->window ? f->window[f->order[k - 1]] : f->order[k - 1];
	return GT_NONE;
}

/* A job's --step: a finder per rank over that rank's step spans. */
typedef struct rank_finders {
	uint32_t count;
	window_finder *f;        /* count */
	gt_causal_window *steps; /* the step spans as intervals, rank after rank */
	uint32_t *window;        /* their windows, in the same order */
} rank_finders;

static void rank_finders_free(rank_finders *r)
{
	for (uint32_t i = 0; r->f && i < r->count; i++)
		finder_free(&r->f[i]);
	free(r->f), free(r->steps), free(r->window);
	memset(r, 0, sizeof *r);
}

static int rank_finders_init(rank_finders *r, const causal_trace *t)
{
	const gt_model *m = t->m;
	memset(r, 0, sizeof *r);
	r->count = m->rank_count;
	r->f = calloc(r->count, sizeof *r->f);
	r->steps = calloc(t->step_count ? t->step_count : 1, sizeof *r->steps);
	r->window = calloc(t->step_count ? t->step_count : 1, sizeof *r->window);
	if (gt_fault_hit("alloc") || !r->f || !r->steps || !r->window)
		return -1;
	uint32_t k = 0; /* steps are by id, so rank after rank */
	for (uint32_t i = 0; i < r->count; i++) {
		const gt_rank_part *p = &m->ranks[i];
		uint32_t first = k;
		for (; k < t->step_count && t->steps[k] < p->span_base + p->span_count; k++) {
			const gt_span *s = &m->spans[t->steps[k]];
			r->steps[k] = (gt_causal_window){.begin_ns = s->ts_ns, .end_ns = causal_end(s)};
			r->window[k] = t->step_window[k];
		}
		if (finder_init(&r->f[i], r->steps + first, k - first, r->window + first) < 0)
			return -1;
	}
	return 0;
}

uint32_t causal_rank_of_span(const gt_model *m, uint32_t i)
{
	const gt_rank_part *r = gt_model_span_rank(m, i);
	return r ? (uint32_t)(r - m->ranks) : 0;
}

static int64_t departure_of(const gt_model *m, const gt_flow *f)
{
	if (f->src == GT_NONE)
		return f->src_ts_ns;
	const gt_span *s = &m->spans[f->src];
	if (f->src_ts_ns >= causal_end(s))
		return causal_end(s);
	return f->src_ts_ns <= s->ts_ns ? s->ts_ns : f->src_ts_ns;
}

/* A flow that can place its target: both ends take part, not a self-loop. */
static bool placing_flow(const causal_trace *t, const gt_flow *f)
{
	return f->src != f->dst && causal_takes_part(t, f->src) && causal_takes_part(t, f->dst);
}

typedef struct span_window_job {
	GT_JOB_ALIGNED causal_trace *t;
	window_finder f; /* its own hint */
	const rank_finders *ranks; /* a job's --step: the finders by rank instead */
	bool whole;
	uint32_t begin, end;
} span_window_job;

static void *span_windows(void *arg)
{
	span_window_job *j = arg;
	causal_trace *t = j->t;
	uint32_t rank = GT_NONE, rank_end = 0;
	window_finder f = {0};
	for (uint32_t i = j->begin; i < j->end; i++) {
		if (!causal_takes_part(t, i)) {
			t->window_of[i] = GT_NONE;
			continue;
		}
		if (j->whole) {
			t->window_of[i] = 0;
			continue;
		}
		window_finder *use = &j->f;
		if (j->ranks) { /* its own rank's steps, each rank's finder with a hint of this job's */
			if (rank == GT_NONE || i >= rank_end) {
				rank = causal_rank_of_span(t->m, i);
				rank_end = t->m->ranks[rank].span_base + t->m->ranks[rank].span_count;
				f = j->ranks->f[rank];
			}
			use = &f;
		}
		t->window_of[i] = window_at(use, (int64_t)(t->place_at[i] & ~CAUSAL_PLACE_START) + t->m->start_ns);
	}
	return NULL;
}

typedef struct flow_job {
	causal_trace *t;
	const window_finder *f;
	const rank_finders *ranks; /* a job's --step: the finders by rank instead */
	uint32_t *flow_window;
	bool whole;
	uint32_t bad_departure;    /* the lowest placing flow causal_place_key refused, GT_NONE */
} flow_job;

/* Each flow's departure, and where it places its target: at the earliest
 * departure of its flows, so that a kernel goes with the step that
 * launched it (t->place_at, where windows are searched). Flows of one
 * target may be on several threads: the least key wins, whichever thread
 * writes last. */
static int flow_placings(void *ctx, uint64_t a, uint64_t b)
{
	flow_job *j = ctx;
	causal_trace *t = j->t;
	const gt_model *m = t->m;
	for (uint32_t i = (uint32_t)a; i < b; i++) {
		const gt_flow *fl = &m->flows[i];
		int64_t dep = t->departure[i] = departure_of(m, fl);
		if (!t->place_at || !placing_flow(t, fl))
			continue;
		uint64_t key;
		if (!causal_place_key(m, dep, &key)) {
			causal_atomic_min(&j->bad_departure, i);
			continue;
		}
		causal_atomic_min(&t->place_at[fl->dst], key);
	}
	return 0;
}

/* A flow is judged (kept or counted) in its target's window, else its
 * source's, else the one it departs in. */
static int flow_windows(void *ctx, uint64_t a, uint64_t b)
{
	flow_job *j = ctx;
	const causal_trace *t = j->t;
	const gt_model *m = t->m;
	window_finder f = *j->f; /* its own hint */
	for (uint32_t i = (uint32_t)a; i < b; i++) {
		const gt_flow *fl = &m->flows[i];
		uint32_t w = causal_takes_part(t, fl->dst) ? t->window_of[fl->dst] : GT_NONE;
		if (w == GT_NONE && causal_takes_part(t, fl->src))
			w = t->window_of[fl->src];
		uint32_t end = fl->src != GT_NONE ? fl->src : fl->dst; /* a job's flows stay in one file */
		if (w == GT_NONE && j->whole)
			w = 0;
		else if (w == GT_NONE && j->ranks && end != GT_NONE) {
			window_finder rf = j->ranks->f[causal_rank_of_span(m, end)];
			w = window_at(&rf, t->departure[i]);
		} else if (w == GT_NONE)
			w = window_at(&f, t->departure[i]);
		j->flow_window[i] = w;
	}
	return 0;
}

/* Windows of this many spans on average or more have the array of each
 * span's index in its graph (causal_local_of). */
#define LOCAL_ARRAY_SPANS 65536

/* Each span's window, and the window each flow is judged in. */
static int place(causal_trace *t, unsigned threads, gt_error *err)
{
	const gt_model *m = t->m;
	window_finder f = {0};
	uint32_t *flow_window = alloc(m->flow_count, sizeof *flow_window);
	t->departure = alloc(m->flow_count, sizeof *t->departure);
	t->window_of = alloc(m->span_count, sizeof *t->window_of);
	/* the spans' indices in their graphs, where windows are few and large:
	 * a search of a window's spans per lookup costs more than the array */
	bool local_array = t->window_count <= 1 || m->span_count / t->window_count >= LOCAL_ARRAY_SPANS;
	t->local_of = local_array ? alloc(m->span_count, sizeof *t->local_of) : NULL;
	rank_finders rf = {0};
	bool by_rank = t->step_count > 0;
	if (!flow_window || !t->departure || !t->window_of || (local_array && !t->local_of) ||
	    finder_init(&f, t->windows, t->window_count, NULL) < 0 || (by_rank && rank_finders_init(&rf, t) < 0)) {
		gt_big_free(flow_window), finder_free(&f), rank_finders_free(&rf);
		return gt_fail(err, GT_EINPUT, "out of memory placing %u spans in windows", m->span_count);
	}
	flow_job fj = {t, &f, by_rank ? &rf : NULL, flow_window, false, GT_NONE};
	causal_times_mark("place: begin");
	gt_parallel_ranges(m->flow_count, causal_range_min(), threads, flow_placings, &fj);
	causal_times_mark("place: departures, placings");
	bool whole = t->window_count == 1 && t->windows[0].step_span == GT_NONE &&
		     t->windows[0].begin_ns <= m->start_ns && t->windows[0].end_ns >= m->end_ns;
	if (fj.bad_departure != GT_NONE || (!whole && !t->place_at)) {
		gt_big_free(flow_window), finder_free(&f), rank_finders_free(&rf);
		if (fj.bad_departure == GT_NONE) /* causal_wants_place_at and the windows disagree */
			return gt_fail(err, GT_EINPUT, "internal error: %u windows to search, and no span's key", t->window_count);
		return gt_fail(err, GT_EINPUT, "flow %u departs at %lld ns, outside the trace's time range from %lld ns",
			       fj.bad_departure, (long long)t->departure[fj.bad_departure], (long long)m->start_ns);
	}
	/* spans in ranges, one a thread, each searching from its own hint */
	unsigned k = causal_range_jobs(m->span_count, threads);
	span_window_job jobs[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (span_window_job){t, f, by_rank ? &rf : NULL, whole,
					    (uint32_t)((uint64_t)m->span_count * j / k),
					    (uint32_t)((uint64_t)m->span_count * (j + 1) / k)};
	gt_run_jobs(span_windows, jobs, sizeof *jobs, k);
	causal_times_mark("place: span windows");
	/* back to the system, not kept: twice the size of what comes next,
	 * no later block would take it (gt_best_fit) */
	free(t->place_at);
	t->place_at = NULL;
	fj.whole = whole;
	gt_parallel_ranges(m->flow_count, causal_range_min(), threads, flow_windows, &fj);
	causal_times_mark("place: flow windows");
	finder_free(&f);
	rank_finders_free(&rf);
	int rc = causal_bucket(m->span_count, t->window_of, t->window_count, threads, &t->span_first, &t->spans_by_window);
	causal_times_mark("place: span buckets");
	if (rc == 0)
		rc = causal_bucket(m->flow_count, flow_window, t->window_count, threads, &t->flow_first, &t->flows_by_window);
	causal_times_mark("place: flow buckets");
	gt_big_free(flow_window);
	if (rc < 0)
		return gt_fail(err, GT_EINPUT, "out of memory placing %u spans in windows", m->span_count);
	for (uint32_t w = 0; w < t->window_count; w++)
		if (t->span_first[w] == t->span_first[w + 1])
			return gt_fail(err, GT_EINPUT, "the window [%lld, %lld] ns holds no span that takes part",
				       (long long)(t->windows[w].begin_ns - m->start_ns),
				       (long long)(t->windows[w].end_ns - m->start_ns));
	return 0;
}

/* What needs only the spans' classes, found beside the windows: the
 * previous device spans (where asked), then the strings' classes. */
typedef struct beside_job {
	causal_trace *t;
	const gt_causal_options *opt;
	unsigned threads;
	bool previous;
	gt_error err, strings_err;
	int rc, strings_rc;
} beside_job;

static void *previous_device_spans(void *arg)
{
	beside_job *j = arg;
	j->rc = j->previous ? causal_previous_device_spans(j->t, j->threads, &j->err) : 0;
	return NULL;
}

static void *beside_windows(void *arg)
{
	beside_job *j = arg;
	previous_device_spans(j);
	j->strings_rc = causal_classify_strings(j->t, j->opt, j->threads, &j->strings_err);
	return NULL;
}

int causal_trace_init(causal_trace *t, const gt_model *m, const gt_causal_options *opt, gt_error *err)
{
	memset(t, 0, sizeof *t);
	t->m = m;
	t->stream_wait_slack = opt->stream_wait_slack_ns > 0 ? opt->stream_wait_slack_ns : 0;
	t->handoffs = opt->handoffs;
	t->rows = opt->rows;
	t->collective_name = opt->collective_name;
	unsigned threads = gt_thread_count(opt->threads, GT_MAX_JOBS);
	uint64_t t0 = causal_times_now();
	if (causal_classify_spans(t, opt, threads, err) < 0)
		return -1;
	causal_times_add(CAUSAL_T_CLASSIFY, t0);
	t0 = causal_times_now();
	/* the previous device spans and the strings' classes need only the
	 * spans' classes: they are found beside the windows (queue hops need
	 * the previous spans where there are windows: the whole trace has
	 * nothing outside it to queue behind; stream waits always); the errors
	 * come in the order they would one after the other */
	beside_job pj = {.t = t, .opt = opt, .threads = threads, .previous = causal_wants_previous(t, opt)};
	pthread_t tid;
	bool beside = threads > 1 && pthread_create(&tid, NULL, beside_windows, &pj) == 0;
	int rc = make_windows(t, opt, err);
	causal_times_add(CAUSAL_T_WINDOWS, t0);
	causal_times_mark("windows");
	t0 = causal_times_now();
	if (rc == 0)
		rc = place(t, threads, err);
	causal_times_add(CAUSAL_T_PLACE, t0);
	t0 = causal_times_now();
	if (beside)
		pthread_join(tid, NULL);
	else if (rc == 0)
		previous_device_spans(&pj);
	if (rc == 0 && pj.rc < 0)
		rc = gt_fail(err, pj.err.status, "%s", pj.err.msg);
	causal_times_add(CAUSAL_T_PREVIOUS, t0);
	causal_times_mark("previous joined");
	t0 = causal_times_now();
	if (rc == 0 && m->rank_count > 1)
		rc = causal_collective_edges(t, err);
	causal_times_add(CAUSAL_T_COLLECTIVES, t0);
	t0 = causal_times_now();
	if (rc == 0 && !beside)
		pj.strings_rc = causal_classify_strings(t, opt, threads, &pj.strings_err);
	if (rc == 0 && pj.strings_rc < 0)
		rc = gt_fail(err, pj.strings_err.status, "%s", pj.strings_err.msg);
	causal_times_add(CAUSAL_T_STRINGS, t0);
	t0 = causal_times_now();
	if (rc == 0 && opt->recorded_waits)
		rc = causal_recorded_waits(t, err);
	causal_times_add(CAUSAL_T_RECORDED, t0);
	t0 = causal_times_now();
	causal_times_mark("strings, recorded");
	if (rc == 0 && t->handoffs && causal_mark_backward(t, threads) < 0)
		rc = gt_fail(err, GT_EINPUT, "out of memory marking %u spans", m->span_count);
	causal_times_add(CAUSAL_T_BACKWARD, t0);
	causal_times_mark("backward");
	return rc;
}

int causal_trace_windows(causal_trace *t, const gt_model *m, const gt_causal_options *opt, gt_error *err)
{
	memset(t, 0, sizeof *t);
	t->m = m;
	unsigned threads = gt_thread_count(opt->threads, GT_MAX_JOBS);
	if (causal_classify_spans(t, opt, threads, err) < 0 || make_windows(t, opt, err) < 0)
		return -1;
	return place(t, threads, err);
}

void causal_trace_drop_members(causal_trace *t)
{
	gt_big_free(t->spans_by_window);
	gt_big_free(t->flows_by_window);
	free(t->coll_src), free(t->coll_dst), free(t->coll_first);
	free(t->rec_src), free(t->rec_dst), free(t->rec_first), free(t->rec_kind);
	t->spans_by_window = t->flows_by_window = NULL;
	t->coll_src = t->coll_dst = t->coll_first = NULL;
	t->rec_src = t->rec_dst = t->rec_first = NULL;
	t->rec_kind = NULL;
}

static void drop_departures(causal_trace *t)
{
	gt_big_free(t->departure);
	t->departure = NULL;
}

void causal_trace_drop_edge_inputs(causal_trace *t)
{
	drop_departures(t);
	if (!t->rows) {
		gt_big_free(t->local_of);
		t->local_of = NULL;
	}
}

void causal_trace_drop_graph_inputs(causal_trace *t)
{
	causal_trace_drop_members(t);
	drop_departures(t);
}

void causal_trace_free(causal_trace *t)
{
	causal_trace_drop_graph_inputs(t);
	gt_big_free(t->span_class);
	gt_big_free(t->place_at);
	gt_big_free(t->track_device);
	gt_big_free(t->opening);
	gt_big_free(t->window_of);
	gt_big_free(t->local_of);
	gt_big_free(t->prev_device);
	causal_device_parts_free(t);
	gt_big_free(t->queue_behind);
	free(t->steps);
	free(t->step_window);
	gt_big_free(t->windows);
	gt_big_free(t->span_first);
	gt_big_free(t->flow_first);
	gt_big_free(t->str_class);
	gt_big_free(t->fields);
	memset(t, 0, sizeof *t);
}
