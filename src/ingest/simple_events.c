/* Simple events, built in bulk (simple_events.h). */
#include "simple_events.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

enum {
	SEEN_ANY = 1,     /* a simple event's name or category */
	SEEN_SPAN_CAT = 2 /* a simple span's category (so its group is known after) */
};

void simple_events_reset(simple_events *se)
{
	se->n = se->nvisits = 0;
	se->spans_after = se->points_after = 0;
	if (se->seen_used)
		memset(se->seen, 0, se->seen_used);
	se->seen_used = 0;
	se->visit_all = gt_fault_armed("span-id");
	local_threads_reset(&se->threads);
}

void simple_events_free(simple_events *se)
{
	free(se->v);
	free(se->visits);
	free(se->seen);
	free(se->thread_spans);
	local_threads_free(&se->threads);
	memset(se, 0, sizeof *se);
}

/* Whether what gt_builder_add does with ev is new_span on its thread track
 * ('X') or add_flow_point, and nothing else (see its checks). */
static bool simple(const raw_event *ev)
{
	bool span = ev->ph == 'X', flow = ev->ph == 's' || ev->ph == 't' || ev->ph == 'f';
	if (!(span || flow) || ev->ph_text.len || ev->notes || ev->bad || ev->sync_role)
		return false;
	if (!(ev->flags & REV_HAS_TS) || (span && !(ev->flags & REV_HAS_DUR)) ||
	    (ev->flags & (REV_FLOW_IN | REV_FLOW_OUT)))
		return false;
	if (ev->pid.kind != RID_NUM || ev->tid.kind != RID_NUM || (flow && ev->id.kind == RID_STR))
		return false;
	if (ev->name_local == GT_NONE || ev->cat_local == GT_NONE)
		return false;
	return ev->ts_ns <= INT64_MAX - ev->dur_ns;
}

static int grow(void **p, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 4096;
	void *q = gt_fault_hit("alloc") ? NULL : realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* Marks string id s seen with what; true when it was not yet. */
static int mark_seen(simple_events *se, uint32_t s, uint8_t what, bool *first)
{
	if (s >= se->seen_cap) {
		uint32_t c = se->seen_cap ? se->seen_cap : 256;
		while (c <= s)
			c *= 2;
		uint8_t *p = gt_fault_hit("alloc") ? NULL : realloc(se->seen, c);
		if (!p)
			return -1;
		memset(p + se->seen_cap, 0, c - se->seen_cap);
		se->seen = p;
		se->seen_cap = c;
	}
	if (s >= se->seen_used)
		se->seen_used = s + 1;
	if ((se->seen[s] & what) != what)
		*first = true;
	se->seen[s] |= what;
	return 0;
}

static int add_visit(simple_events *se, uint32_t at, uint32_t record)
{
	if (se->nvisits == se->visits_cap && grow((void **)&se->visits, &se->visits_cap, sizeof *se->visits) < 0)
		return -1;
	se->visits[se->nvisits++] = (simple_visit){at, record, se->spans_after, se->points_after, 0, 0};
	se->spans_after = se->points_after = 0;
	return 0;
}

#ifdef GT_FUZZING
bool gt_simple_events_off; /* fuzz/fuzz_trace.c's reference: every event built by gt_builder_add */
#endif

int simple_events_note(simple_events *se, const raw_event *ev, uint32_t at)
{
#ifdef GT_FUZZING
	if (gt_simple_events_off)
		return add_visit(se, at, GT_NONE);
#endif
	if (!simple(ev))
		return add_visit(se, at, GT_NONE);
	if (se->n == se->cap && grow((void **)&se->v, &se->cap, sizeof *se->v) < 0)
		return -1;
	uint32_t threads = se->threads.count;
	uint32_t thread = local_threads_id(&se->threads, ev->pid.num, ev->tid.num);
	if (thread == GT_NONE)
		return -1;
	bool span = ev->ph == 'X', first = se->visit_all || se->threads.count != threads;
	if (mark_seen(se, ev->name_local, SEEN_ANY, &first) < 0 ||
	    mark_seen(se, ev->cat_local, span ? SEEN_ANY | SEEN_SPAN_CAT : SEEN_ANY, &first) < 0)
		return -1;
	uint32_t record = (uint32_t)se->n;
	se->v[se->n++] = (simple_event){
		.ts_ns = ev->ts_ns,
		.dur_ns = ev->dur_ns,
		.id = ev->id.kind == RID_NUM ? ev->id.num : 0,
		.name_local = ev->name_local,
		.cat_local = ev->cat_local,
		.thread_local = thread,
		.at = at,
		.slot = GT_NONE,
		.ph = ev->ph,
		.has_id = ev->id.kind == RID_NUM,
		.enclosing = ev->ph != 'f' || ev->bp == 'e',
		.visited = first,
	};
	if (first)
		return add_visit(se, at, record);
	if (span)
		se->spans_after++;
	else
		se->points_after++;
	return 0;
}

/* Whether what e needs is known: its name, category and thread track, and
 * a span's group. Then it is what gt_builder_add would make of it, whenever
 * it is filled in. */
static bool resolved(const gt_builder *b, const simple_events *se, const simple_event *e)
{
	const uint32_t *lg = b->local_global;
	uint32_t cat = lg[e->cat_local];
	return lg[e->name_local] != GT_NONE && cat != GT_NONE && se->threads.global[e->thread_local] != GT_NONE &&
	       (e->ph != 'X' || (cat < b->cat_group_cap && b->cat_group[cat]));
}

/* Resolves what e needs from what the trace has so far (a name, category
 * or thread an earlier piece brought): those ids do not depend on order. */
static void look_up(const gt_builder *b, simple_events *se, const local_names *names, const simple_event *e)
{
	uint32_t *lg = names->global;
	const uint32_t ids[2] = {e->name_local, e->cat_local};
	for (int k = 0; k < 2; k++)
		if (lg[ids[k]] == GT_NONE) {
			const jl_slice *t = &names->text[ids[k]];
			lg[ids[k]] = gt_strpool_find_hashed(&b->m->strings, t->p, t->len, names->hash[ids[k]]);
		}
	uint32_t *tg = &se->threads.global[e->thread_local];
	if (*tg == GT_NONE)
		*tg = gt_builder_find_thread(b, se->threads.pid[e->thread_local], se->threads.tid[e->thread_local]);
}

/* Gives ev its index and offset in the trace, for the builder or an error
 * message: the raw form of most events is never read. */
static raw_event *locate(raw_event *ev, uint64_t index, uint64_t offset0)
{
	ev->index = index;
	ev->offset += offset0;
	return ev;
}

/* Interns e's new name and category from the piece's table, in the order
 * gt_builder_add would (a span's name first, a flow point's category), and
 * makes a new category's group for a span, as new_span does. ev, the raw
 * event, is located only for an error or a new group. */
static int intern_new(gt_builder *b, const local_names *names, const simple_event *e, raw_event *ev,
		      uint64_t index, uint64_t offset0, gt_error *err)
{
	bool span = e->ph == 'X';
	const uint32_t ids[2] = {span ? e->name_local : e->cat_local, span ? e->cat_local : e->name_local};
	for (int k = 0; k < 2; k++) {
		uint32_t *g = &names->global[ids[k]];
		if (*g != GT_NONE)
			continue;
		const jl_slice *t = &names->text[ids[k]];
		*g = gt_strpool_intern_hashed(&b->m->strings, t->p, t->len, names->hash[ids[k]]);
		if (*g == GT_NONE)
			return gt_builder_fail(b, err, locate(ev, index, offset0), "out of memory interning a string");
	}
	uint32_t cat = names->global[e->cat_local];
	if (span && !(cat < b->cat_group_cap && b->cat_group[cat]) &&
	    gt_builder_group_of(b, cat, err, locate(ev, index, offset0)) == 0xff)
		return -1;
	return 0;
}

/* A visit: a slot for a simple event on a known thread track (its new
 * strings interned here), else the event built from its raw form. */
static int visit(gt_builder *b, raw_event *ev, simple_events *se, const local_names *names, const simple_visit *v,
		 uint64_t index0, uint64_t offset0, gt_error *err)
{
	gt_model *m = b->m;
	simple_event *e = v->record == GT_NONE ? NULL : &se->v[v->record];
	uint64_t index = index0 + v->at;
	if (e) {
		look_up(b, se, names, e);
		if (se->threads.global[e->thread_local] != GT_NONE) {
			bool span = e->ph == 'X';
			/* tests/limits.sh's stand-in for the span id limit, as in new_span */
			if (span && gt_fault_hit("span-id"))
				return gt_builder_fail(b, err, locate(ev, index, offset0),
						       "more spans than a 32-bit span id holds");
			if (!resolved(b, se, e) && intern_new(b, names, e, ev, index, offset0, err) < 0)
				return -1;
			e->slot = span ? m->span_count++ : b->npoints++;
			return 0;
		}
	}
	if (gt_builder_add(b, locate(ev, index, offset0), err) < 0)
		return -1;
	if (e) /* it made a span or flow point on its thread track */
		se->threads.global[e->thread_local] = e->ph == 'X' ? m->spans[m->span_count - 1].track
								  : b->points[b->npoints - 1].track;
	return 0;
}

int gt_builder_add_piece(gt_builder *b, raw_event *evs, size_t n, simple_events *se, const local_names *names,
			 uint64_t index0, uint64_t offset0, gt_error *err)
{
	gt_model *m = b->m;
	b->local_global = names->global;
	se->local_global = names->global;
	se->index0 = index0;
	se->span0 = m->span_count;
	se->point0 = b->npoints;
	/* ids past 32 bits are gt_builder_add's to refuse, at the right event */
	se->filled_by_builder = !(n && index0 + n - 1 <= UINT32_MAX && (uint64_t)m->span_count + n < GT_NONE - 1 &&
				  (uint64_t)b->npoints + n <= UINT32_MAX &&
				  gt_builder_reserve(b, m->span_count + n, b->npoints + n) == 0);
	int rc = 0;
	if (se->filled_by_builder) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			evs[i].index = index0 + i;
			evs[i].offset += offset0;
			rc = gt_builder_add(b, &evs[i], err);
		}
		b->local_global = NULL;
		return rc;
	}
	for (size_t k = 0; k < se->nvisits && rc == 0; k++) {
		simple_visit *v = &se->visits[k];
		m->span_count += v->spans_before;
		b->npoints += v->points_before;
		uint32_t spans = m->span_count, points = b->npoints;
		rc = visit(b, &evs[v->at], se, names, v, index0, offset0, err);
		v->spans_made = m->span_count - spans;
		v->points_made = b->npoints - points;
	}
	m->span_count += se->spans_after;
	b->npoints += se->points_after;
	b->local_global = NULL;
	return rc;
}

static void fill_span(const gt_builder *b, simple_events *se, const simple_event *e, uint32_t slot, uint32_t cat,
		      uint32_t track)
{
	uint8_t group = (uint8_t)(b->cat_group[cat] - 1);
	b->m->spans[slot] = (gt_span){
		.ts_ns = e->ts_ns,
		.dur_ns = e->dur_ns,
		.name = se->local_global[e->name_local],
		.cat = cat,
		.track = track,
		.parent = GT_NONE,
		.event = (uint32_t)(se->index0 + e->at),
		.group = group,
		.kind = GT_SPAN_COMPLETE,
	};
	se->group_spans[group]++;
	se->thread_spans[e->thread_local]++;
}

static void fill_point(const gt_builder *b, const simple_events *se, const simple_event *e, uint32_t slot,
		       uint32_t cat, uint32_t track)
{
	b->points[slot] = (flow_point){
		.key = {{4 | (uint64_t)e->has_id << 8, cat, (uint64_t)e->id, 0}},
		.track = track,
		.seq = slot,
		.name = se->local_global[e->name_local],
		.ts_ns = e->ts_ns,
		.ph = e->ph,
		.enclosing = e->enclosing,
	};
}

static int phase_slot(char ph)
{
	return ph == 'X' ? 0 : ph == 's' ? 1 : ph == 't' ? 2 : 3;
}

static int clear_counts(simple_events *se)
{
	uint32_t threads = se->threads.count;
	if (threads && se->thread_spans_cap < threads) {
		/* counted into at every span: lines of its own, apart from other
		 * pieces' counts that other threads fill (a few bytes each) */
		size_t bytes = ((size_t)threads * sizeof *se->thread_spans + 63) & ~(size_t)63;
		uint32_t *p = gt_fault_hit("alloc") ? NULL : aligned_alloc(64, bytes);
		if (!p)
			return -1;
		free(se->thread_spans);
		se->thread_spans = p;
		se->thread_spans_cap = (uint32_t)(bytes / sizeof *p);
	}
	if (threads)
		memset(se->thread_spans, 0, threads * sizeof *se->thread_spans);
	memset(se->group_spans, 0, sizeof se->group_spans);
	memset(se->phases, 0, sizeof se->phases);
	se->any_end = false;
	return 0;
}

int simple_events_fill(const gt_builder *b, simple_events *se)
{
	if (clear_counts(se) < 0)
		return -1;
	if (se->filled_by_builder)
		return 0;
	/* the slots go in event order: the visits' own between the others' */
	uint32_t span = se->span0, point = se->point0;
	size_t k = 0;
	for (size_t j = 0; j < se->n; j++) {
		const simple_event *e = &se->v[j];
		for (; k < se->nvisits && se->visits[k].at < e->at; k++)
			span += se->visits[k].spans_made, point += se->visits[k].points_made;
		uint32_t slot;
		if (e->visited) { /* the visit at e->at */
			span += se->visits[k].spans_made, point += se->visits[k].points_made;
			k++;
			if (e->slot == GT_NONE)
				continue; /* built by gt_builder_add */
			slot = e->slot;
		} else {
			slot = e->ph == 'X' ? span++ : point++;
		}
		uint32_t cat = se->local_global[e->cat_local], track = se->threads.global[e->thread_local];
		if (e->ph == 'X')
			fill_span(b, se, e, slot, cat, track);
		else
			fill_point(b, se, e, slot, cat, track);
		se->phases[phase_slot(e->ph)]++;
		int64_t end = e->ts_ns + e->dur_ns;
		if (!se->any_end || end > se->max_end_ns)
			se->max_end_ns = end;
		se->any_end = true;
	}
	return 0;
}

void gt_builder_merge_piece(gt_builder *b, const simple_events *se)
{
	gt_model *m = b->m;
	for (uint32_t t = 0; t < se->threads.count; t++)
		if (se->thread_spans[t])
			m->tracks[se->threads.global[t]].span_count += se->thread_spans[t];
	for (int g = 0; g < GT_MAX_GROUPS; g++)
		m->groups[g].spans += se->group_spans[g];
	static const char phases[4] = {'X', 's', 't', 'f'};
	for (int k = 0; k < 4; k++) {
		m->stats.events += se->phases[k];
		m->stats.phases[(unsigned char)phases[k]] += se->phases[k];
	}
	if (se->any_end)
		gt_builder_note_end(b, se->max_end_ns);
}
