/* The parts of the model that need every span: unclosed spans, the parent
 * forest (nesting, then flows), flow binding, lanes and the time range. */
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "flow_point_sort.h"
#include "ingest.h"
#include "track_nest.h"
#include "base/base.h"

/* Below this many spans (or flow points), finishing them on other threads
 * costs more than it saves. */
#define PARALLEL_MIN 65536
#define MAX_FINISH_THREADS 16

/* Per-track span lists in (start, -dur, id) order: order[first[t]..first[t+1]).
 * starts[k] is the start of span order[k], so that searches by time read one
 * array instead of chasing span ids. */
typedef struct track_index {
	uint32_t *order;
	uint32_t *first;
	int64_t *starts;
	uint8_t *in_order; /* per track: its ids in id order are in track order too */
} track_index;

static void track_index_free(track_index *ti, uint32_t spans)
{
	gt_free_large(ti->order, (size_t)spans * sizeof *ti->order);
	free(ti->first);
	free(ti->in_order);
	gt_free_large(ti->starts, (size_t)spans * sizeof *ti->starts);
}

/* A run's spans of one track, as they are placed: its first and last, and
 * whether each came after the one before in track order. */
typedef struct run_track {
	uint32_t head, last; /* GT_NONE: none */
	bool out_of_order;
} run_track;

/* A run of span ids, counted per track, then placed: a counting sort on
 * threads. at[t] is first the run's count on track t, then where its next
 * span of track t goes. */
typedef struct group_job {
	const gt_model *m;
	uint32_t *order;
	uint32_t begin, end; /* span ids */
	uint32_t *at;        /* track_count entries */
	run_track *seen;     /* track_count entries: the placing's */
	bool place;
} group_job;

static void *group_range(void *arg)
{
	group_job *j = arg;
	const gt_span *s = j->m->spans;
	if (!j->place) {
		for (uint32_t i = j->begin; i < j->end; i++)
			j->at[s[i].track]++;
		return NULL;
	}
	/* the nesting searches a track for runs in order, a pass over it: most
	 * tracks are in order already, and here that costs a comparison */
	for (uint32_t i = j->begin; i < j->end; i++) {
		run_track *r = &j->seen[s[i].track];
		j->order[j->at[s[i].track]++] = i;
		if (r->last == GT_NONE)
			r->head = i;
		else if (!gt_track_before(s, r->last, i))
			r->out_of_order = true;
		r->last = i;
	}
	return NULL;
}

/* A track is in order where every run's spans of it are, and each run's
 * first follows the last of the run before. */
static void note_in_order(const gt_model *m, const group_job *jobs, unsigned k, uint8_t *in_order)
{
	for (uint32_t t = 0; t < m->track_count; t++) {
		uint32_t prev = GT_NONE;
		bool ok = true;
		for (unsigned j = 0; j < k && ok; j++) {
			const run_track *r = &jobs[j].seen[t];
			if (r->last == GT_NONE)
				continue;
			ok = !r->out_of_order && (prev == GT_NONE || gt_track_before(m->spans, prev, r->head));
			prev = r->last;
		}
		in_order[t] = ok;
	}
}

/* Groups span ids by track, in id order: order[first[t]..first[t+1]). The
 * runs are consecutive and placed in run order, so each track's ids stay in
 * id order. */
static int group_by_track(const gt_model *m, track_index *ti, unsigned threads)
{
	uint32_t nt = m->track_count;
	ti->order = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->span_count + 1) * sizeof *ti->order);
	ti->first = gt_fault_hit("alloc") ? NULL : calloc((size_t)nt + 1, sizeof *ti->first);
	ti->starts = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->span_count + 1) * sizeof *ti->starts);
	ti->in_order = gt_fault_hit("alloc") ? NULL : malloc((size_t)nt + 1);
	if (!ti->order || !ti->first || !ti->starts || !ti->in_order)
		return -1;
	/* a table per run: runs no more than the spans per track pay for */
	unsigned k = threads > 1 && m->span_count >= PARALLEL_MIN ? threads : 1;
	if (k > MAX_FINISH_THREADS)
		k = MAX_FINISH_THREADS;
	while (k > 1 && (uint64_t)k * nt > m->span_count / 4)
		k--;
	/* each run's table in cache lines of its own: a trace has few tracks,
	 * and runs counting into one line took 0.05 s at 10M on 16 cores */
	size_t stride = ((size_t)nt + 16) & ~(size_t)15;
	uint32_t *at = gt_fault_hit("alloc") ? NULL : aligned_alloc(64, (size_t)k * stride * sizeof *at);
	run_track *seen = gt_fault_hit("alloc") ? NULL : aligned_alloc(64, (size_t)k * stride * sizeof *seen);
	if (!at || !seen) {
		free(at), free(seen);
		return -1;
	}
	memset(at, 0, (size_t)k * stride * sizeof *at);
	for (size_t e = 0; e < (size_t)k * stride; e++)
		seen[e] = (run_track){GT_NONE, GT_NONE, false};
	group_job jobs[MAX_FINISH_THREADS];
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (group_job){m, ti->order, (uint32_t)((uint64_t)m->span_count * j / k),
				      (uint32_t)((uint64_t)m->span_count * (j + 1) / k), at + (size_t)j * stride,
				      seen + (size_t)j * stride, false};
	gt_run_jobs(group_range, jobs, sizeof *jobs, k);
	uint32_t next = 0;
	for (uint32_t t = 0; t < nt; t++) {
		ti->first[t] = next;
		for (unsigned j = 0; j < k; j++) {
			uint32_t c = jobs[j].at[t];
			jobs[j].at[t] = next;
			next += c;
		}
	}
	ti->first[nt] = next;
	for (unsigned j = 0; j < k; j++)
		jobs[j].place = true;
	gt_run_jobs(group_range, jobs, sizeof *jobs, k);
	note_in_order(m, jobs, k, ti->in_order);
	free(at);
	free(seen);
	return 0;
}

/* The track index and the nesting forest, on up to `threads` threads. */
static uint64_t stage_ns(const gt_builder *b);

static int build_track_index(gt_builder *b, track_index *ti, unsigned threads)
{
	gt_model *m = b->m;
	uint64_t t0 = stage_ns(b);
	if (group_by_track(m, ti, threads) < 0)
		return -1;
	b->t_group = stage_ns(b) - t0;
	uint64_t improper = 0;
	int rc = gt_nest_tracks(m, ti->order, ti->first, ti->starts, ti->in_order, threads, &improper);
	m->stats.warnings[GT_WARN_IMPROPER_NESTING] += improper;
	b->t_nest = stage_ns(b) - t0 - b->t_group;
	return rc;
}

/* The span a flow point binds to: the innermost span of the track enclosing
 * ts, or the first span starting at or after ts. hint holds, per track, where
 * the previous search on it ended. */
static uint32_t bind_point(const gt_model *m, const track_index *ti, const flow_point *pt, uint32_t *hint)
{
	uint32_t first = ti->first[pt->track];
	uint32_t n = ti->first[pt->track + 1] - first;
	const uint32_t *o = ti->order + first;
	uint32_t k = gt_search_from(ti->starts + first, n, pt->ts_ns, pt->enclosing, hint[pt->track]);
	hint[pt->track] = k;
	if (!pt->enclosing)
		return k < n ? o[k] : GT_NONE; /* the next slice */
	if (k == 0)
		return GT_NONE;
	/* the last span starting at or before ts, or the innermost of its
	 * ancestors that is still open at ts */
	uint32_t id = o[k - 1];
	while (id != GT_NONE) {
		const gt_span *s = &m->spans[id];
		if (s->ts_ns + s->dur_ns >= pt->ts_ns)
			return id;
		id = s->parent;
	}
	return GT_NONE;
}

typedef struct bind_job {
	const gt_model *m;
	const track_index *ti;
	const flow_point *points;
	uint32_t *span_of; /* per point: the span it binds to */
	uint32_t begin, end;
	int rc;
} bind_job;

static void *bind_range(void *arg)
{
	bind_job *j = arg;
	uint32_t *hint = gt_fault_hit("alloc") ? NULL : calloc((size_t)j->m->track_count + 1, sizeof *hint);
	j->rc = hint ? 0 : -1;
	for (uint32_t i = j->begin; hint && i < j->end; i++)
		j->span_of[i] = bind_point(j->m, j->ti, &j->points[i], hint);
	free(hint);
	return NULL;
}

/* Binds every flow point to its span, on up to `threads` threads: each
 * point's search is independent of the others. */
static int bind_points(const gt_builder *b, const track_index *ti, uint32_t *span_of)
{
	unsigned k = b->finish_threads > 1 && b->npoints >= PARALLEL_MIN ? b->finish_threads : 1;
	if (k > MAX_FINISH_THREADS)
		k = MAX_FINISH_THREADS;
	bind_job jobs[MAX_FINISH_THREADS];
	for (unsigned t = 0; t < k; t++)
		jobs[t] = (bind_job){b->m, ti, b->points, span_of, (uint32_t)((uint64_t)b->npoints * t / k),
				     (uint32_t)((uint64_t)b->npoints * (t + 1) / k), -1};
	gt_run_jobs(bind_range, jobs, sizeof *jobs, k);
	int rc = 0;
	for (unsigned t = 0; t < k; t++)
		rc |= jobs[t].rc;
	return rc;
}

/* By key, then span; a step event's flow_in before its flow_out (it takes
 * the flow, then passes it on). */
static int cmp_bind(const void *x, const void *y)
{
	const flow_bind *a = x, *b = y;
	int c = memcmp(&a->key, &b->key, sizeof a->key);
	if (c)
		return c;
	if (a->span != b->span)
		return a->span < b->span ? -1 : 1;
	return a->out < b->out ? -1 : a->out > b->out;
}

static int cmp_point(const void *x, const void *y)
{
	const flow_point *a = x, *b = y;
	for (int i = 0; i < 4; i++)
		if (a->key.w[i] != b->key.w[i])
			return a->key.w[i] < b->key.w[i] ? -1 : 1;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int push_flow(gt_builder *b, uint32_t src, uint32_t dst, uint64_t id, uint32_t name, uint32_t cat,
		     int64_t src_ts, int64_t dst_ts)
{
	gt_model *m = b->m;
	if (m->flow_count == b->flows_cap) {
		if (b->flows_cap >= UINT32_MAX / 2)
			return -1; /* the doubled size would not fit 32 bits */
		uint32_t c = b->flows_cap ? b->flows_cap * 2 : 64;
		gt_flow *p = gt_fault_hit("alloc") ? NULL : realloc(m->flows, (size_t)c * sizeof *p);
		if (!p)
			return -1;
		m->flows = p;
		b->flows_cap = c;
	}
	gt_flow *f = &m->flows[m->flow_count++];
	f->src = src;
	f->dst = dst;
	f->id = id;
	f->name = name;
	f->cat = cat;
	f->src_ts_ns = src_ts;
	f->dst_ts_ns = dst_ts;
	return 0;
}

/* Flow v1 points in (cat, id, ts, file order) order: b->point_order on
 * threads, or the records sorted in place (point_order NULL) on one, where
 * the order's 24 bytes a point raised the peak (125 MB at 10M spans), or
 * where the order cannot be. It needs no spans, so it runs beside the
 * track index. */
static void *sort_points(void *arg)
{
	gt_builder *b = arg;
	uint64_t t0 = stage_ns(b);
	/* beside the track work, on the threads it leaves (qsort's base must not be NULL) */
	unsigned threads = b->finish_threads > 2 ? b->finish_threads / 2 : 1;
	if ((threads < 2 || gt_flow_points_order(b->points, b->npoints, threads, &b->point_order) != 0) &&
	    b->npoints && gt_parallel_sort(b->points, b->npoints, sizeof *b->points, cmp_point, threads) < 0)
		qsort(b->points, b->npoints, sizeof *b->points, cmp_point); /* no memory for the scratch: in place */
	b->t_points = stage_ns(b) - t0;
	return NULL;
}

/* The index of the i-th point in link order. */
static inline uint32_t point_at(const gt_builder *b, uint32_t i)
{
	return b->point_order ? b->point_order[i] : i;
}

/* v1 flows from the sorted points [begin, end), which start at a key: first
 * counted (to is NULL), then written at `to`, in the model's flows. */
typedef struct link_job {
	GT_JOB_ALIGNED const gt_builder *b;
	const uint32_t *span_of;
	uint32_t begin, end;
	uint32_t n;
	uint64_t unbound;
	gt_flow *to;
} link_job;

/* Per (cat, id) in time order, 's' starts a chain and 't' continues it;
 * an 'f' or 't' binds to the chain's latest 's' or 't' until a new 's'
 * starts another: Kineto writes one 's' on a cudaGraphLaunch and an 'f'
 * on every kernel of the graph. */
static void *link_range(void *arg)
{
	link_job *j = arg;
	const flow_point *points = j->b->points, *prev = NULL;
	uint32_t prev_span = GT_NONE;
	j->n = 0, j->unbound = 0;
	for (uint32_t i = j->begin; i < j->end; i++) {
		uint32_t at = point_at(j->b, i);
		const flow_point *pt = &points[at];
		if (prev && memcmp(&prev->key, &pt->key, sizeof pt->key) != 0)
			prev = NULL;
		uint32_t span = j->span_of[at];
		if (pt->ph == 's') {
			prev = pt; /* a repeated 's' restarts the chain */
			prev_span = span;
			continue;
		}
		if (!prev) {
			j->unbound++;
			continue;
		}
		if (prev_span == GT_NONE || span == GT_NONE)
			j->unbound++;
		if (j->to)
			j->to[j->n] = (gt_flow){prev_span, span, pt->name, (uint32_t)pt->key.w[1], pt->key.w[2], prev->ts_ns, pt->ts_ns};
		j->n++;
		if (pt->ph == 't') {
			prev = pt;
			prev_span = span;
		}
	}
	return NULL;
}

/* The v1 flows, keys cut into ranges on threads, appended in point order:
 * counted, then written in place (writing each range's own array and
 * copying it after took as long again, in page faults and the copy). */
static int link_points(gt_builder *b, const uint32_t *span_of)
{
	gt_model *m = b->m;
	unsigned k = b->finish_threads > 1 && b->npoints >= PARALLEL_MIN ? b->finish_threads : 1;
	if (k > MAX_FINISH_THREADS)
		k = MAX_FINISH_THREADS;
	link_job jobs[MAX_FINISH_THREADS];
	uint32_t at = 0;
	for (unsigned t = 0; t < k; t++) {
		uint32_t end = t + 1 == k ? b->npoints : (uint32_t)((uint64_t)b->npoints * (t + 1) / k);
		if (end < at)
			end = at;
		while (end > at && end < b->npoints &&
		       memcmp(&b->points[point_at(b, end)].key, &b->points[point_at(b, end - 1)].key, sizeof(gt_key)) == 0)
			end++; /* a key's points stay in one range */
		jobs[t] = (link_job){.b = b, .span_of = span_of, .begin = at, .end = end};
		at = end;
	}
	gt_run_jobs(link_range, jobs, sizeof *jobs, k);
	uint64_t total = m->flow_count;
	for (unsigned t = 0; t < k; t++) {
		total += jobs[t].n;
		m->stats.warnings[GT_WARN_UNBOUND_FLOW] += jobs[t].unbound;
	}
	if (total == m->flow_count)
		return 0; /* no v1 flows (m->flows may be NULL) */
	if (total > b->flows_cap) {
		gt_flow *p = total > UINT32_MAX / 2 || gt_fault_hit("alloc") ? NULL : realloc(m->flows, (size_t)total * sizeof *p);
		if (!p)
			return -1;
		m->flows = p;
		b->flows_cap = (uint32_t)total;
	}
	gt_flow *to = m->flows + m->flow_count;
	for (unsigned t = 0; t < k; t++)
		jobs[t].to = to, to += jobs[t].n;
	gt_run_jobs(link_range, jobs, sizeof *jobs, k); /* the same links, written */
	m->flow_count = (uint32_t)total;
	return 0;
}

static int bind_flows(gt_builder *b, const track_index *ti)
{
	gt_model *m = b->m;
	uint32_t *span_of = gt_fault_hit("alloc") ? NULL : malloc(((size_t)b->npoints + 1) * sizeof *span_of);
	if (!span_of || bind_points(b, ti, span_of) < 0) {
		free(span_of);
		return -1;
	}
	int rc = link_points(b, span_of);
	free(span_of);
	gt_big_free(b->point_order);
	b->point_order = NULL;
	if (rc < 0)
		return -1;
	/* v2: every flow_out span links to the flow_in spans of the same id that
	 * follow it; group by key, in span order. A chain starts only at a
	 * flow_out-only event: a step (flow_in and flow_out) with nothing
	 * before it to take is unbound and starts nothing (Perfetto drops it so). */
	if (b->nbinds)
		qsort(b->binds, b->nbinds, sizeof *b->binds, cmp_bind);
	for (uint32_t i = 0; i < b->nbinds;) {
		uint32_t j = i;
		while (j < b->nbinds && memcmp(&b->binds[j].key, &b->binds[i].key, sizeof(gt_key)) == 0)
			j++;
		uint32_t src = GT_NONE, unbound = GT_NONE;
		for (uint32_t k = i; k < j; k++) {
			const flow_bind *fb = &b->binds[k];
			if (!fb->out) {
				if (src == GT_NONE) {
					m->stats.warnings[GT_WARN_UNBOUND_FLOW]++;
					unbound = fb->span;
					continue;
				}
				/* a flow_out leaves at its slice's end (as Perfetto draws it) */
				if (push_flow(b, src, fb->span, fb->key.w[1], 0, 0,
					      m->spans[src].ts_ns + m->spans[src].dur_ns, m->spans[fb->span].ts_ns) < 0)
					return -1;
			} else if (fb->span != unbound) {
				src = fb->span;
			}
		}
		i = j;
	}
	return 0;
}

struct parent_pass {
	gt_model *m;
	const uint32_t *incoming, *source; /* NULL: the pass that clears */
};

/* Span i's flow parent from the counts: a root with exactly one incoming
 * flow takes the flow's source as parent (a GPU kernel hangs under the
 * runtime call that launched it). */
static inline void set_flow_parent(const struct parent_pass *p, gt_span *s, uint64_t i)
{
	if (s->parent == GT_NONE && p->incoming[i] == 1) {
		s->parent = p->source[i];
		s->flags |= GT_SPANF_FLOW_PARENT;
	}
}

/* Spans [a, b): clears the flow parents, or sets them from the counts. */
static int parent_range(void *ctx, uint64_t a, uint64_t b)
{
	const struct parent_pass *p = ctx;
	gt_span *s = p->m->spans;
	for (uint64_t i = a; i < b; i++) {
		if (p->incoming)
			set_flow_parent(p, &s[i], i);
		else if (s[i].flags & GT_SPANF_FLOW_PARENT) {
			s[i].parent = GT_NONE;
			s[i].flags &= (uint8_t)~GT_SPANF_FLOW_PARENT;
		}
	}
	return 0;
}

/* Flows [a, b): each span's incoming flows, and the source of one. Flows
 * into the same span may be on other threads: the count is atomic, and a
 * source is read only where the count is 1, so which store lands does not
 * matter. */
static int count_incoming(void *ctx, uint64_t a, uint64_t b)
{
	const struct parent_pass *p = ctx;
	uint32_t *incoming = (uint32_t *)p->incoming, *source = (uint32_t *)p->source;
	for (uint64_t i = a; i < b; i++) {
		const gt_flow *f = &p->m->flows[i];
		if (f->src == GT_NONE || f->dst == GT_NONE || f->src == f->dst)
			continue;
		__atomic_fetch_add(&incoming[f->dst], 1, __ATOMIC_RELAXED);
		__atomic_store_n(&source[f->dst], f->src, __ATOMIC_RELAXED);
	}
	return 0;
}

/* The counts of incoming flows (set->incoming, set->source: free() both)
 * where mode asks for flow parents; -1 out of memory. */
static int count_flow_parents(gt_model *m, int mode, unsigned threads, struct parent_pass *set)
{
	*set = (struct parent_pass){m, NULL, NULL};
	if (mode != GT_PARENTS_NESTING_FLOW || m->flow_count == 0)
		return 0;
	uint32_t *incoming = gt_fault_hit("alloc") ? NULL : calloc(m->span_count ? m->span_count : 1, sizeof *incoming);
	uint32_t *source = gt_fault_hit("alloc") ? NULL : malloc((m->span_count ? m->span_count : 1) * sizeof *source);
	if (!incoming || !source) {
		free(incoming);
		free(source);
		return -1;
	}
	set->incoming = incoming, set->source = source;
	gt_parallel_ranges(m->flow_count, PARALLEL_MIN, threads ? threads : 1, count_incoming, set);
	return 0;
}

void gt_model_set_parent_mode(gt_model *m, int mode)
{
	/* the parents are written in the span table: an index's mapping is
	 * copied first, as nothing may write there (gt_model_release_spans
	 * gives its pages back to the file); out of memory, the mode stays */
	if (gt_model_own(m) < 0)
		return;
	struct parent_pass clear = {m, NULL, NULL}, set;
	gt_parallel_ranges(m->span_count, PARALLEL_MIN, 1, parent_range, &clear);
	/* out of memory, nesting-only parents remain: callers check parent_mode */
	m->parent_mode = (uint8_t)(count_flow_parents(m, mode, 1, &set) < 0 ? GT_PARENTS_NESTING : mode);
	if (set.incoming)
		gt_parallel_ranges(m->span_count, PARALLEL_MIN, 1, parent_range, &set);
	free((void *)set.incoming);
	free((void *)set.source);
}

/* Strings that end in digits and agree before them order by the digits'
 * value: "stream 7" before "stream 15". Else (and on equal values, "07"
 * and "7") as bytes. */
static int cmp_numeric_tail(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), ta = la, tb = lb;
	while (ta > 0 && a[ta - 1] >= '0' && a[ta - 1] <= '9')
		ta--;
	while (tb > 0 && b[tb - 1] >= '0' && b[tb - 1] <= '9')
		tb--;
	if (ta < la && tb < lb && ta == tb && memcmp(a, b, ta) == 0) {
		while (ta < la - 1 && a[ta] == '0') /* leading zeros: the value's digits */
			ta++;
		while (tb < lb - 1 && b[tb] == '0')
			tb++;
		if (la - ta != lb - tb)
			return la - ta < lb - tb ? -1 : 1;
		int c = memcmp(a + ta, b + tb, la - ta);
		if (c)
			return c;
	}
	return strcmp(a, b);
}

static int cmp_id(const gt_model *m, const gt_id *a, const gt_id *b)
{
	if (a->is_str != b->is_str)
		return a->is_str ? 1 : -1; /* numbers before strings */
	if (!a->is_str)
		return a->num < b->num ? -1 : a->num > b->num;
	return cmp_numeric_tail(gt_model_str(m, a->str), gt_model_str(m, b->str));
}

static _Thread_local const gt_model *lane_model;

static int cmp_process(const void *x, const void *y)
{
	const gt_process *a = &lane_model->processes[*(const uint32_t *)x];
	const gt_process *b = &lane_model->processes[*(const uint32_t *)y];
	/* processes with a sort index come in its order; the rest by pid */
	int64_t sa = a->has_sort_index ? a->sort_index : 0, sb = b->has_sort_index ? b->sort_index : 0;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return cmp_id(lane_model, &a->pid, &b->pid);
}

static int cmp_track(const void *x, const void *y)
{
	uint32_t ia = *(const uint32_t *)x, ib = *(const uint32_t *)y;
	const gt_track *a = &lane_model->tracks[ia], *b = &lane_model->tracks[ib];
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1; /* caller sorts within a process */
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1; /* threads, then async tracks, then instants */
	if (a->kind != GT_TRACK_THREAD)
		return ia < ib ? -1 : ia > ib; /* async, instants: first appearance */
	int64_t sa = a->has_sort_index ? a->sort_index : 0, sb = b->has_sort_index ? b->sort_index : 0;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	int c = cmp_id(lane_model, &a->tid, &b->tid);
	return c ? c : (ia < ib ? -1 : ia > ib);
}

/* Each span's lane, and the model's time range, over ranges of spans; in
 * the same pass over the span table, the flow parents where counted. */
typedef struct lanes_and_range {
	gt_model *m;
	const struct parent_pass *parents; /* NULL, or the counts to set them from */
	int64_t start_ns, end_ns;
	bool any;
	pthread_mutex_t mu;
} lanes_and_range;

static int lanes_range(void *ctx, uint64_t a, uint64_t b)
{
	lanes_and_range *r = ctx;
	gt_model *m = r->m;
	int64_t start = 0, end = 0;
	for (uint64_t i = a; i < b; i++) {
		gt_span *s = &m->spans[i];
		s->lane = m->tracks[s->track].lane_base + s->depth;
		if (r->parents)
			set_flow_parent(r->parents, s, i);
		if (i == a || s->ts_ns < start)
			start = s->ts_ns;
		if (i == a || s->ts_ns + s->dur_ns > end)
			end = s->ts_ns + s->dur_ns;
	}
	if (a < b) {
		pthread_mutex_lock(&r->mu);
		if (!r->any || start < r->start_ns)
			r->start_ns = start;
		if (!r->any || end > r->end_ns)
			r->end_ns = end;
		r->any = true;
		pthread_mutex_unlock(&r->mu);
	}
	return 0;
}

/* Lanes in track order (processes by sort index, then name and pid), and
 * the time range (0 to 0 without spans); the flow parents from their
 * counts where given. */
static int assign_lanes(gt_model *m, unsigned threads, const struct parent_pass *parents)
{
	uint32_t *procs = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->process_count + 1) * sizeof *procs);
	uint32_t *rank = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->process_count + 1) * sizeof *rank);
	uint32_t *tracks = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->track_count + 1) * sizeof *tracks);
	if (!procs || !rank || !tracks) {
		free(procs);
		free(rank);
		free(tracks);
		return -1;
	}
	lane_model = m;
	for (uint32_t i = 0; i < m->process_count; i++)
		procs[i] = i;
	if (m->process_count)
		qsort(procs, m->process_count, sizeof *procs, cmp_process);
	for (uint32_t i = 0; i < m->process_count; i++)
		rank[procs[i]] = i;
	/* sort tracks by (process rank, kind, thread order) via process rank */
	for (uint32_t i = 0; i < m->track_count; i++)
		tracks[i] = i;
	/* temporarily map process index to rank so cmp_track orders by rank */
	uint32_t *saved = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->track_count + 1) * sizeof *saved);
	if (!saved) {
		free(procs);
		free(rank);
		free(tracks);
		return -1;
	}
	for (uint32_t i = 0; i < m->track_count; i++) {
		saved[i] = m->tracks[i].process;
		m->tracks[i].process = rank[saved[i]];
	}
	if (m->track_count)
		qsort(tracks, m->track_count, sizeof *tracks, cmp_track);
	for (uint32_t i = 0; i < m->track_count; i++)
		m->tracks[i].process = saved[i];
	uint32_t lane = 0;
	for (uint32_t i = 0; i < m->track_count; i++) {
		gt_track *t = &m->tracks[tracks[i]];
		t->lane_base = lane;
		lane += t->lane_count;
	}
	m->lane_count = lane;
	lanes_and_range r = {m, parents, 0, 0, false, PTHREAD_MUTEX_INITIALIZER};
	gt_parallel_ranges(m->span_count, PARALLEL_MIN, threads, lanes_range, &r);
	pthread_mutex_destroy(&r.mu);
	m->start_ns = r.start_ns, m->end_ns = r.end_ns;
	free(saved);
	free(procs);
	free(rank);
	free(tracks);
	return 0;
}

static uint64_t stage_ns(const gt_builder *b)
{
	return b->timed ? gt_clock_ns() : 0;
}

int gt_builder_finish(gt_builder *b, int parent_mode, gt_error *err)
{
	gt_model *m = b->m;
	/* spans still open end at the trace's last timestamp */
	for (uint32_t t = 0; t < m->track_count && t < b->open_cap; t++) {
		for (uint32_t i = 0; i < b->open[t].n; i++) {
			gt_span *s = &m->spans[b->open[t].v[i]];
			int64_t dur = 0;
			if (b->max_end_ns > s->ts_ns && __builtin_sub_overflow(b->max_end_ns, s->ts_ns, &dur))
				return gt_fail(err, GT_EINPUT,
					       "%s: event %llu: an unclosed span's duration (to the trace's end) is out of range",
					       b->path, (unsigned long long)s->event);
			s->dur_ns = dur;
			s->flags |= GT_SPANF_UNCLOSED;
			m->stats.warnings[m->tracks[t].kind == GT_TRACK_THREAD ? GT_WARN_UNCLOSED_BEGIN
									       : GT_WARN_UNCLOSED_ASYNC]++;
		}
		b->open[t].n = 0;
	}
	for (uint32_t i = 0; i < b->unfinished.n; i++) {
		gt_span *s = &m->spans[b->unfinished.v[i]];
		int64_t dur = 0;
		if (b->max_end_ns > s->ts_ns && __builtin_sub_overflow(b->max_end_ns, s->ts_ns, &dur))
			return gt_fail(err, GT_EINPUT,
				       "%s: event %llu: an unfinished span's duration (to the trace's end) is out of range",
				       b->path, (unsigned long long)s->event);
		s->dur_ns = dur;
		s->flags |= GT_SPANF_UNCLOSED;
	}
	b->unfinished.n = 0;
	uint64_t t0 = stage_ns(b);
	track_index ti = {0};
	pthread_t sorter;
	bool sorting = b->finish_threads > 1 && b->npoints >= PARALLEL_MIN &&
		       pthread_create(&sorter, NULL, sort_points, b) == 0;
	if (!sorting)
		sort_points(b);
	int rc = build_track_index(b, &ti, b->finish_threads);
	if (sorting)
		pthread_join(sorter, NULL);
	uint64_t t1 = stage_ns(b);
	if (rc == 0)
		rc = bind_flows(b, &ti);
	uint64_t t2 = stage_ns(b);
	track_index_free(&ti, m->span_count);
	/* the flow parents are set in the lanes' pass over the span table (a
	 * model just built has none to clear) */
	struct parent_pass parents = {m, NULL, NULL};
	int counted = rc == 0 ? count_flow_parents(m, parent_mode, b->finish_threads, &parents) : 0;
	uint64_t t3 = stage_ns(b);
	if (rc == 0 && counted == 0)
		rc = assign_lanes(m, b->finish_threads, parents.incoming ? &parents : NULL);
	free((void *)parents.incoming);
	free((void *)parents.source);
	if (rc < 0)
		return gt_fail(err, GT_EINPUT, "%s: out of memory building the model", b->path);
	if (counted < 0)
		return gt_fail(err, GT_EINPUT, "%s: out of memory linking flow parents", b->path);
	m->parent_mode = (uint8_t)parent_mode;
	uint64_t t4 = stage_ns(b);
	b->t_tracks = t1 - t0, b->t_flows = t2 - t1, b->t_parents = t3 - t2, b->t_lanes = t4 - t3;
	/* every later computation takes differences of times: keep them exact */
	if (m->span_count && (m->start_ns < 0 ? m->end_ns > INT64_MAX + m->start_ns : false))
		return gt_fail(err, GT_EINPUT,
			       "%s: the trace spans more than 2^63 ns (from %lld ns to %lld ns)", b->path,
			       (long long)m->start_ns, (long long)m->end_ns);
	return 0;
}
