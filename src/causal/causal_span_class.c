/* Which spans take part in the causal analysis, which are device spans
 * and blocking waits (and, for the hand-offs, backward work by name),
 * and the profiler's wrapper left out (the rules are in causal.h): two
 * passes over the spans in ranges on threads. Each string's answer is
 * asked once and kept; two threads may ask the same string at once, and
 * both give the same answer. */
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "causal_internal.h"
#include "causal_times.h"

/* The blocking waits every trace knows; --wait-name adds to them. */
static const char default_wait_pattern[] =
	"^(cuda|hip)(Device|Stream|Event|Ctx)Synchronize$|^(cuda|hip)Memcpy(2D|3D|WithStream|DtoH|Peer)?$"
	"|^cu(Ctx|Stream|Event)Synchronize$";

typedef struct wait_patterns {
	regex_t *re;
	uint32_t count;
} wait_patterns;

static void wait_patterns_free(wait_patterns *w)
{
	for (uint32_t i = 0; i < w->count; i++)
		regfree(&w->re[i]);
	gt_big_free(w->re);
}

static int wait_patterns_init(wait_patterns *w, const gt_causal_options *opt, gt_error *err)
{
	w->count = 0;
	w->re = gt_big_malloc((size_t)opt->wait_name_count + 1, sizeof *w->re);
	if (!w->re)
		return gt_fail(err, GT_EINPUT, "out of memory for the wait patterns");
	for (uint32_t i = 0; i <= opt->wait_name_count; i++) {
		const char *p = i == 0 ? default_wait_pattern : opt->wait_names[i - 1];
		int rc = regcomp(&w->re[i], p, REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			char why[256];
			regerror(rc, &w->re[i], why, sizeof why);
			wait_patterns_free(w);
			return gt_fail(err, GT_EUSAGE, "--wait-name '%s': %s", p, why);
		}
		w->count++;
	}
	return 0;
}

static bool wait_name(const wait_patterns *w, const char *name)
{
	for (uint32_t i = 0; i < w->count; i++)
		if (regexec(&w->re[i], name, 0, NULL, 0) == 0)
			return true;
	return false;
}

/* One range's spans that open a step (--step), in id order: found in the
 * pass that finds what takes part, so that the windows need no pass of
 * their own over every span. */
typedef struct opening_part {
	uint64_t from; /* the range's first span */
	uint32_t *ids;
	uint32_t n, cap;
	bool oom;
} opening_part;

typedef struct classify {
	causal_trace *t;
	const gt_causal_options *opt;
	wait_patterns wp;
	uint8_t *device, *waits; /* memos by string id */
	const char *step_glob;   /* NULL: no openings asked */
	uint8_t *opens;          /* memo by name: matches step_glob */
	uint8_t *backward;       /* memo by name: backward work (opt->handoffs), else NULL */
	uint8_t *host_track;     /* by track: it holds a host-side span */
	bool devices;            /* the device parts asked (t->device_parts) */
	bool devices_oom;
	opening_part parts[GT_MAX_JOBS];
	uint32_t part_count;
	uint64_t taking_part, device_track_left_out; /* added to at each range's end */
	/* the wrapper rule: each rank's time range of the spans taking part,
	 * and the spans alone on their thread track (at most one a track) */
	int64_t *lo, *hi;
	uint32_t *alone;
	uint32_t alone_count;
	uint32_t bad_start; /* the lowest span whose start causal_place_key refused, GT_NONE */
} classify;

/* Written once: a store by every thread to the few device tracks' bytes
 * would keep their cache line moving between the cores. */
static void mark_track(uint8_t *tracks, uint32_t track)
{
	if (!__atomic_load_n(&tracks[track], __ATOMIC_RELAXED))
		__atomic_store_n(&tracks[track], 1, __ATOMIC_RELAXED);
}

/* A range's time range of what takes part, rank by rank: a rank's spans
 * are consecutive ids. */
typedef struct rank_times {
	uint32_t r, r_end;
	int64_t lo, hi;
} rank_times;

static void rank_times_out(classify *c, const rank_times *rt)
{
	if (rt->lo <= rt->hi) {
		causal_atomic_min(&c->lo[rt->r], rt->lo);
		causal_atomic_max(&c->hi[rt->r], rt->hi);
	}
}

/* Span i's rank, the last one's range out where it starts another. */
static void rank_times_next(classify *c, rank_times *rt, uint32_t i)
{
	const gt_model *m = c->t->m;
	while (i >= rt->r_end) {
		rank_times_out(c, rt);
		rt->lo = INT64_MAX, rt->hi = INT64_MIN;
		rt->r = causal_rank_of_span(m, i);
		rt->r_end = m->ranks[rt->r].span_base + m->ranks[rt->r].span_count;
		if (rt->r_end <= i) /* past every rank's spans (never so in a model): the last's */
			rt->r_end = UINT32_MAX;
	}
}

static inline void rank_times_at(classify *c, rank_times *rt, uint32_t i)
{
	if (i >= rt->r_end) /* at every span: the rest out of line */
		rank_times_next(c, rt, i);
}

static void rank_times_add(rank_times *rt, const gt_span *s)
{
	rt->lo = s->ts_ns < rt->lo ? s->ts_ns : rt->lo;
	rt->hi = causal_end(s) > rt->hi ? causal_end(s) : rt->hi;
}

static rank_times rank_times_start(const gt_model *m)
{
	return (rank_times){0, m->rank_count ? 0 : UINT32_MAX, INT64_MAX, INT64_MIN};
}

static bool add_opening(classify *c, opening_part **part, uint64_t range_from, uint32_t i)
{
	opening_part *p = *part;
	if (!p) {
		p = *part = &c->parts[__atomic_fetch_add(&c->part_count, 1, __ATOMIC_RELAXED)];
		p->from = range_from;
	}
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 1024;
		uint32_t *grown = cap < p->cap || gt_fault_hit("alloc") ? NULL : realloc(p->ids, (size_t)cap * sizeof *grown);
		if (!grown)
			return false;
		p->ids = grown, p->cap = cap;
	}
	p->ids[p->n++] = i;
	return true;
}

/* One pass over the spans, each row read once: the spans of the thread
 * tracks take part, device ones by category (a track with a device span is
 * a device track); the waits by name; each rank's time range of what takes
 * part; the spans of host tracks that may open a step (the wrapper rule may
 * still leave one out). A device track's host-side spans leave (its
 * timeline is the device's), which only the whole pass tells: this one
 * counts them in, marking the tracks they are on, and leave_out_range
 * takes them out where a device track has any. */
static int classify_range(void *ctx, uint64_t a, uint64_t b)
{
	classify *c = ctx;
	causal_trace *t = c->t;
	const gt_model *m = t->m;
	uint64_t taking = 0;
	rank_times rt = rank_times_start(m);
	opening_part *part = NULL;
	bool oom = false;
	/* a range's own patterns: glibc's regexec holds a lock of the
	 * pattern's, so threads sharing one take turns */
	wait_patterns own = {0};
	const wait_patterns *wp = NULL;
	/* the range's device spans: room for every span of it, of which only
	 * the pages written are backed */
	causal_device_part *dp = NULL;
	uint32_t ndev = 0;
	if (c->devices) {
		dp = &t->device_parts[__atomic_fetch_add(&t->device_part_count, 1, __ATOMIC_RELAXED)];
		dp->from = a;
		dp->ids = gt_big_malloc(b - a, sizeof *dp->ids);
		dp->tracks = gt_big_malloc(b - a, sizeof *dp->tracks);
		if (!dp->ids || !dp->tracks)
			__atomic_store_n(&c->devices_oom, true, __ATOMIC_RELAXED);
	}
	bool keep_devices = dp && dp->ids && dp->tracks;
	for (uint32_t i = (uint32_t)a; i < b; i++) {
		rank_times_at(c, &rt, i);
		const gt_span *s = &m->spans[i];
		if ((s->kind != GT_SPAN_COMPLETE && s->kind != GT_SPAN_DURATION) ||
		    m->tracks[s->track].kind != GT_TRACK_THREAD) {
			t->span_class[i] = 0; /* every class is written here: the array is not cleared first */
			continue;
		}
		uint8_t d = causal_memo_get(c->device, s->cat);
		if (!d)
			d = causal_memo_set(c->device, s->cat, gt_device_category(gt_model_str(m, s->cat)));
		uint8_t cls = CAUSAL_TAKES_PART | (d == 2 ? CAUSAL_DEVICE : 0);
		mark_track(d == 2 ? t->track_device : c->host_track, s->track);
		if (d == 2 && keep_devices) /* one never left out: only host spans and wrappers are */
			dp->ids[ndev] = i, dp->tracks[ndev++] = s->track;
		taking++;
		rank_times_add(&rt, s);
		if (t->place_at) { /* the placing reads this, not the row */
			uint64_t key;
			if (!causal_place_key(m, s->ts_ns, &key))
				causal_atomic_min(&c->bad_start, i);
			t->place_at[i] = key | CAUSAL_PLACE_START;
		}
		if (!wp) { /* at the range's first span taking part, not at its first
			      * name unknown: that depends on the other threads, and
			      * the fault walk counts allocations */
			gt_error ignored = {0};
			wp = wait_patterns_init(&own, c->opt, &ignored) == 0 ? &own : &c->wp;
		}
		uint8_t w = causal_memo_get(c->waits, s->name);
		if (!w) {
			w = causal_memo_set(c->waits, s->name, wait_name(wp, gt_model_str(m, s->name)));
		}
		if (w == 2)
			cls |= CAUSAL_WAIT;
		if (c->backward) { /* read here, where the name is, not in a pass of its own */
			uint8_t k = causal_memo_get(c->backward, s->name);
			if (!k)
				k = causal_memo_set(c->backward, s->name, causal_backward_name(gt_model_str(m, s->name)));
			if (k == 2)
				cls |= CAUSAL_BACKWARD;
		}
		t->span_class[i] = cls;
		if (d != 2 && m->tracks[s->track].span_count == 1)
			c->alone[__atomic_fetch_add(&c->alone_count, 1, __ATOMIC_RELAXED)] = i;
		if (c->step_glob && d != 2 && !oom) { /* a host track's span (or a device track's, left out later) */
			uint8_t k = causal_memo_get(c->opens, s->name);
			if (!k)
				k = causal_memo_set(c->opens, s->name, fnmatch(c->step_glob, gt_model_str(m, s->name), 0) == 0);
			if (k == 2 && !add_opening(c, &part, a, i))
				oom = part->oom = true;
		}
	}
	rank_times_out(c, &rt);
	if (dp)
		dp->n = ndev;
	if (wp == &own)
		wait_patterns_free(&own);
	__atomic_fetch_add(&c->taking_part, taking, __ATOMIC_RELAXED);
	return 0;
}

/* Where a device track holds host-side spans: they leave, and what takes
 * part is counted again (a span alone on its track is never one of them:
 * its track has no device span; an opening is checked when joined). */
static int leave_out_range(void *ctx, uint64_t a, uint64_t b)
{
	classify *c = ctx;
	causal_trace *t = c->t;
	const gt_model *m = t->m;
	uint64_t taking = 0, left = 0;
	rank_times rt = rank_times_start(m);
	for (uint32_t i = (uint32_t)a; i < b; i++) {
		rank_times_at(c, &rt, i);
		uint8_t *cls = &t->span_class[i];
		if (!*cls)
			continue;
		const gt_span *s = &m->spans[i];
		if (!(*cls & CAUSAL_DEVICE) && t->track_device[s->track]) {
			*cls = 0;
			left++;
			continue;
		}
		taking++;
		rank_times_add(&rt, s);
	}
	rank_times_out(c, &rt);
	__atomic_fetch_add(&c->taking_part, taking, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->device_track_left_out, left, __ATOMIC_RELAXED);
	return 0;
}

/* Whether a device track holds host-side spans. */
static bool device_tracks_hold_host_spans(const classify *c)
{
	for (uint32_t k = 0; k < c->t->m->track_count; k++)
		if (c->t->track_device[k] && c->host_track[k])
			return true;
	return false;
}

/* The profiler's own wrapper (Kineto's "PyTorch Profiler (N)", category
 * Trace, alone on its track, over the whole capture) marks when tracing
 * ran, not work: a span of category Trace (any case), the only span of its
 * thread track, that holds every other span taking part of its rank (the
 * trace, in a job its file) does not take part; counted. */
static void leave_out_wrappers(classify *c)
{
	causal_trace *t = c->t;
	const gt_model *m = t->m;
	for (uint32_t k = 0; k < c->alone_count; k++) {
		uint32_t i = c->alone[k];
		const gt_span *s = &m->spans[i];
		uint32_t r = m->rank_count ? causal_rank_of_span(m, i) : 0;
		if (s->ts_ns > c->lo[r] || causal_end(s) < c->hi[r] || strcasecmp(gt_model_str(m, s->cat), "trace") != 0)
			continue;
		t->span_class[i] = 0;
		t->spans_taking_part--;
		t->wrapper_spans_left_out++;
	}
}

static int by_range(const void *x, const void *y)
{
	const opening_part *a = x, *b = y;
	return a->from < b->from ? -1 : a->from > b->from;
}

/* The ranges' openings, in id order, less those the wrapper rule left
 * out: t->opening. */
static int join_openings(classify *c)
{
	causal_trace *t = c->t;
	uint64_t total = 0;
	bool oom = false;
	for (uint32_t k = 0; k < c->part_count; k++)
		total += c->parts[k].n, oom |= c->parts[k].oom;
	qsort(c->parts, c->part_count, sizeof *c->parts, by_range);
	t->opening = oom ? NULL : gt_big_malloc(total, sizeof *t->opening);
	if (!t->opening)
		return -1;
	t->openings = 0;
	for (uint32_t k = 0; k < c->part_count; k++)
		for (uint32_t j = 0; j < c->parts[k].n; j++)
			if (causal_takes_part(t, c->parts[k].ids[j]))
				t->opening[t->openings++] = c->parts[k].ids[j];
	return 0;
}

static void classify_free(classify *c)
{
	for (uint32_t k = 0; k < c->part_count; k++)
		free(c->parts[k].ids);
	gt_big_free(c->opens), gt_big_free(c->backward), gt_big_free(c->host_track);
	gt_big_free(c->device), gt_big_free(c->waits);
	gt_big_free(c->lo), gt_big_free(c->hi), gt_big_free(c->alone);
	wait_patterns_free(&c->wp);
}

int causal_classify_spans(causal_trace *t, const gt_causal_options *opt, unsigned threads, gt_error *err)
{
	const gt_model *m = t->m;
	classify c = {.t = t, .opt = opt, .step_glob = opt->has_window ? NULL : opt->step_glob};
	if (wait_patterns_init(&c.wp, opt, err) < 0)
		return -1;
	c.opens = c.step_glob ? gt_big_calloc(m->strings.count, 1) : NULL;
	c.backward = opt->handoffs ? gt_big_calloc(m->strings.count, 1) : NULL;
	c.host_track = gt_big_calloc(m->track_count, 1);
	c.devices = causal_wants_previous(t, opt);
	t->device_parts = c.devices && !gt_fault_hit("alloc") ? calloc(GT_MAX_JOBS, sizeof *t->device_parts) : NULL;
	uint32_t ranks = m->rank_count ? m->rank_count : 1;
	c.device = gt_big_calloc(m->strings.count, 1);
	c.waits = gt_big_calloc(m->strings.count, 1);
	c.lo = gt_big_malloc(ranks, sizeof *c.lo);
	c.hi = gt_big_malloc(ranks, sizeof *c.hi);
	c.alone = gt_big_malloc(m->track_count, sizeof *c.alone);
	t->span_class = gt_big_malloc(m->span_count, 1); /* each written by classify_range, on threads */
	t->place_at = causal_wants_place_at(opt) ? gt_big_malloc(m->span_count, sizeof *t->place_at) : NULL;
	c.bad_start = GT_NONE;
	t->track_device = gt_big_calloc(m->track_count, 1);
	if (!c.device || !c.waits || !c.lo || !c.hi || !c.alone || !c.host_track || !t->span_class || !t->track_device ||
	    (c.devices && !t->device_parts) || (causal_wants_place_at(opt) && !t->place_at) ||
	    (c.step_glob && !c.opens) || (opt->handoffs && !c.backward)) {
		classify_free(&c);
		return gt_fail(err, GT_EINPUT, "out of memory classifying %u spans", m->span_count);
	}
	for (uint32_t r = 0; r < ranks; r++)
		c.lo[r] = INT64_MAX, c.hi[r] = INT64_MIN;
	causal_times_mark("classify: begin");
	gt_parallel_ranges(m->span_count, causal_range_min(), threads, classify_range, &c);
	causal_times_mark("classify: spans");
	if (c.devices_oom) {
		classify_free(&c);
		return gt_fail(err, GT_EINPUT, "out of memory classifying %u spans", m->span_count);
	}
	if (c.bad_start != GT_NONE) {
		classify_free(&c);
		return gt_fail(err, GT_EINPUT, "span %u starts at %lld ns, outside the trace's time range from %lld ns",
			       c.bad_start, (long long)m->spans[c.bad_start].ts_ns, (long long)m->start_ns);
	}
	if (device_tracks_hold_host_spans(&c)) {
		for (uint32_t r = 0; r < ranks; r++)
			c.lo[r] = INT64_MAX, c.hi[r] = INT64_MIN;
		c.taking_part = 0;
		gt_parallel_ranges(m->span_count, causal_range_min(), threads, leave_out_range, &c);
		causal_times_mark("classify: device tracks' host spans left out");
	}
	t->spans_taking_part = c.taking_part;
	t->device_track_spans_left_out = c.device_track_left_out;
	leave_out_wrappers(&c);
	int rc = c.step_glob ? join_openings(&c) : 0;
	classify_free(&c);
	causal_times_mark("classify: wrappers, openings");
	if (rc < 0)
		return gt_fail(err, GT_EINPUT, "out of memory for the spans that open steps");
	if (!t->spans_taking_part)
		return gt_fail(err, GT_EINPUT, "no thread-track span takes part (only instants, async spans or counters)");
	return 0;
}
