/* Turns raw events, in file order, into spans, tracks, flows and counters.
 * B/E pairs match per (pid, tid) as a stack; async b/e and legacy S/F per
 * (pid, cat, id, scope). Everything that needs all spans (flow binding,
 * parents, lanes) waits for model_finish.c. */
#include "builder.h"
#include "base/base.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW(ptr, n, cap, need, type)                                                     \
	do {                                                                                 \
		if ((uint64_t)(need) > (cap)) {                                              \
			uint64_t c_ = (cap) ? (uint64_t)(cap) * 2 : 64;                      \
			while (c_ < (uint64_t)(need))                                        \
				c_ *= 2;                                                     \
			if (c_ > UINT32_MAX)                                                 \
				c_ = UINT32_MAX;                                             \
			if (c_ < (uint64_t)(need))                                           \
				goto oom;                                                    \
			type *p_ = gt_fault_hit("alloc") ? NULL : realloc((ptr), (size_t)c_ * sizeof(type));                \
			if (!p_)                                                             \
				goto oom;                                                    \
			(ptr) = p_;                                                          \
			(cap) = (__typeof__(cap))c_;                                         \
		}                                                                            \
	} while (0)

/* Counts a warning for ev, excerpting from its first bad value (bad) or
 * from its start. */
static void warn_event(gt_builder *b, int kind, const raw_event *ev, bool bad)
{
	uint32_t at = bad && ev->bad_at < ev->len ? ev->bad_at : 0;
	gt_model_warn(b->m, kind, ev->offset + at, ev->index, ev->text ? ev->text + at : NULL,
		      ev->text ? ev->len - at : 0);
}

int gt_builder_fail(gt_builder *b, gt_error *err, const raw_event *ev, const char *msg)
{
	return gt_fail(err, GT_EINPUT, "%s: byte %llu, event %llu: %s", b->path,
		       (unsigned long long)ev->offset, (unsigned long long)ev->index, msg);
}

int gt_u32vec_push(u32vec *v, uint32_t x)
{
	if (v->n == v->cap) {
		if (v->cap >= UINT32_MAX / 2)
			return -1; /* the doubled size would not fit 32 bits */
		uint32_t c = v->cap ? v->cap * 2 : 8;
		uint32_t *p = gt_fault_hit("alloc") ? NULL : realloc(v->v, (size_t)c * sizeof *p);
		if (!p)
			return -1;
		v->v = p;
		v->cap = c;
	}
	v->v[v->n++] = x;
	return 0;
}

int gt_builder_init(gt_builder *b, gt_model *m, const char *path, gt_error *err)
{
	memset(b, 0, sizeof *b);
	b->m = m;
	b->path = path;
	m->rank = m->world_size = -1;
	for (int i = 0; i < THREAD_MEMOS; i++)
		b->memo[i].track = GT_NONE;
	gt_strpool_init(&m->strings);
	/* string id 0 is always "" so that absent names have a real id */
	if (gt_strpool_intern(&m->strings, "", 0) != 0)
		return gt_fail(err, GT_EINPUT, "out of memory");
	return 0;
}

void gt_builder_free(gt_builder *b)
{
	gt_keymap_free(&b->processes);
	gt_keymap_free(&b->threads);
	gt_keymap_free(&b->asyncs);
	gt_keymap_free(&b->series);
	for (uint32_t i = 0; i < b->open_cap; i++)
		free(b->open[i].v);
	free(b->open);
	free(b->unfinished.v);
	free(b->cat_group);
	gt_free_large(b->points, (size_t)b->npoints * sizeof *b->points);
	gt_big_free(b->point_order);
	gt_free_large(b->binds, (size_t)b->nbinds * sizeof *b->binds);
	free(b->scratch);
	memset(b, 0, sizeof *b);
}

uint32_t gt_builder_intern(gt_builder *b, const jl_slice *s, gt_error *err, const raw_event *ev)
{
	uint32_t id;
	if (!s->p || s->len == 0)
		return 0;
	if (!s->escaped) {
		id = gt_strpool_intern(&b->m->strings, s->p, s->len);
	} else {
		size_t need = 3 * (size_t)s->len + 1; /* an invalid byte becomes U+FFFD's three */
		if (b->scratch_cap < need) {
			char *p = gt_fault_hit("alloc") ? NULL : realloc(b->scratch, need);
			if (!p)
				goto oom;
			b->scratch = p;
			b->scratch_cap = need;
		}
		long n = jl_unescape(s, b->scratch);
		id = gt_strpool_intern(&b->m->strings, b->scratch, (size_t)n);
	}
	if (id != GT_NONE)
		return id;
oom:
	gt_builder_fail(b, err, ev, "out of memory interning a string");
	return GT_NONE;
}

/* Interns an event's name or cat, whose hash the parser computed (on its
 * own thread) unless the string needs unescaping. */
static uint32_t intern_hashed(gt_builder *b, const jl_slice *s, uint64_t hash, gt_error *err, const raw_event *ev)
{
	if (!s->p || s->len == 0 || s->escaped)
		return gt_builder_intern(b, s, err, ev);
	uint32_t id = gt_strpool_intern_hashed(&b->m->strings, s->p, s->len, hash);
	if (id == GT_NONE)
		gt_builder_fail(b, err, ev, "out of memory interning a string");
	return id;
}

/* An event's name or category through its piece's table: interned at its
 * first use in the piece, then found by local id. */
static uint32_t intern_local(gt_builder *b, const jl_slice *s, uint64_t hash, uint32_t local, gt_error *err,
			     const raw_event *ev)
{
	if (local == GT_NONE || !b->local_global)
		return intern_hashed(b, s, hash, err, ev);
	uint32_t *g = &b->local_global[local];
	if (*g == GT_NONE)
		*g = intern_hashed(b, s, hash, err, ev);
	return *g;
}

static uint32_t intern_name(gt_builder *b, const raw_event *ev, gt_error *err)
{
	return intern_local(b, &ev->name, ev->name_hash, ev->name_local, err, ev);
}

static uint32_t intern_cat(gt_builder *b, const raw_event *ev, gt_error *err)
{
	return intern_local(b, &ev->cat, ev->cat_hash, ev->cat_local, err, ev);
}

/* Key words for a pid/tid/id value: kind in the high bits of w[0]. */
static int id_words(gt_builder *b, const raw_id *r, uint64_t *kind, uint64_t *val, gt_error *err,
		    const raw_event *ev)
{
	*kind = r->kind;
	if (r->kind == RID_STR) {
		uint32_t s = gt_builder_intern(b, &r->str, err, ev);
		if (s == GT_NONE)
			return -1;
		*val = s;
	} else {
		*val = (uint64_t)r->num;
	}
	return 0;
}

/* pid/tid strings that spell a decimal integer name the same thread as the
 * number: producers mix "tid": 12 and "tid": "12" for one thread. */
static raw_id canonical_pidtid(const raw_id *r)
{
	raw_id c = *r;
	if (r->kind != RID_STR || r->str.escaped || r->str.len == 0 || r->str.len > 19)
		return c;
	const char *p = r->str.p;
	size_t n = r->str.len, i = p[0] == '-';
	if (i == n || (p[i] == '0' && n > i + 1))
		return c;
	for (size_t k = i; k < n; k++)
		if (p[k] < '0' || p[k] > '9')
			return c;
	int64_t v;
	if (jl_parse_int(p, n, &v) == 0) {
		c.kind = RID_NUM;
		c.num = v;
	}
	return c;
}

static gt_id to_gt_id(const raw_id *r, uint64_t val)
{
	gt_id g = {0};
	if (r->kind == RID_STR) {
		g.is_str = true;
		g.str = (uint32_t)val;
	} else {
		g.num = (int64_t)val;
	}
	return g;
}

static int ensure_open(gt_builder *b, uint32_t track)
{
	if (track < b->open_cap)
		return 0;
	uint32_t c = b->open_cap ? b->open_cap : 16;
	while (c <= track)
		c *= 2;
	u32vec *p = gt_fault_hit("alloc") ? NULL : realloc(b->open, (size_t)c * sizeof *p);
	if (!p)
		return -1;
	memset(p + b->open_cap, 0, (size_t)(c - b->open_cap) * sizeof *p);
	b->open = p;
	b->open_cap = c;
	return 0;
}

static uint32_t process_of(gt_builder *b, const raw_event *ev, gt_error *err)
{
	uint64_t kind = RID_NUM, val = 0;
	raw_id pid = canonical_pidtid(&ev->pid);
	if (pid.kind != RID_ABSENT && id_words(b, &pid, &kind, &val, err, ev) < 0)
		return GT_NONE;
	gt_key k = {{1, kind, val, 0}};
	bool found;
	uint32_t *slot = gt_keymap_slot(&b->processes, &k, &found);
	if (!slot)
		goto oom;
	if (found)
		return *slot - 1;
	gt_model *m = b->m;
	GROW(m->processes, m->process_count, b->procs_cap, m->process_count + 1, gt_process);
	gt_process *p = &m->processes[m->process_count];
	memset(p, 0, sizeof *p);
	raw_id r = pid;
	if (r.kind == RID_ABSENT)
		r.kind = RID_NUM;
	p->pid = to_gt_id(&r, val);
	p->name = GT_NONE;
	p->labels = GT_NONE;
	*slot = m->process_count + 1;
	return m->process_count++;
oom:
	gt_builder_fail(b, err, ev, "out of memory");
	return GT_NONE;
}

static uint32_t new_track(gt_builder *b, const raw_event *ev, uint32_t process, gt_error *err)
{
	gt_model *m = b->m;
	GROW(m->tracks, m->track_count, b->tracks_cap, m->track_count + 1, gt_track);
	if (ensure_open(b, m->track_count) < 0)
		goto oom;
	gt_track *t = &m->tracks[m->track_count];
	memset(t, 0, sizeof *t);
	t->process = process;
	t->name = GT_NONE;
	return m->track_count++;
oom:
	gt_builder_fail(b, err, ev, "out of memory");
	return GT_NONE;
}

/* The track key k names in map: the one it names already, or a new one of
 * process proc (*created; the caller sets its kind and fields); GT_NONE
 * out of memory. */
static uint32_t keyed_track(gt_builder *b, gt_keymap *map, const gt_key *k, uint32_t proc, bool *created,
			    const raw_event *ev, gt_error *err)
{
	bool found;
	uint32_t *slot = gt_keymap_slot(map, k, &found);
	*created = false;
	if (!slot) {
		gt_builder_fail(b, err, ev, "out of memory");
		return GT_NONE;
	}
	if (found)
		return *slot - 1;
	uint32_t t = new_track(b, ev, proc, err);
	if (t != GT_NONE) {
		*slot = t + 1;
		*created = true;
	}
	return t;
}

static uint32_t thread_track_lookup(gt_builder *b, const raw_event *ev, gt_error *err);

/* The thread track of (pid, tid); a missing tid means the pid. */
static uint32_t thread_track(gt_builder *b, const raw_event *ev, gt_error *err)
{
	if (ev->pid.kind != RID_NUM || ev->tid.kind != RID_NUM)
		return thread_track_lookup(b, ev, err);
	for (int i = 0; i < THREAD_MEMOS; i++)
		if (b->memo[i].track != GT_NONE && b->memo[i].pid == ev->pid.num && b->memo[i].tid == ev->tid.num)
			return b->memo[i].track;
	uint32_t t = thread_track_lookup(b, ev, err);
	if (t != GT_NONE) {
		b->memo[b->memo_next] = (thread_memo){ev->pid.num, ev->tid.num, t};
		b->memo_next = (b->memo_next + 1) % THREAD_MEMOS;
	}
	return t;
}

static uint32_t thread_track_lookup(gt_builder *b, const raw_event *ev, gt_error *err)
{
	uint32_t proc = process_of(b, ev, err);
	if (proc == GT_NONE)
		return GT_NONE;
	const gt_process *p = &b->m->processes[proc];
	raw_id tid_c = canonical_pidtid(&ev->tid);
	const raw_id *tid = tid_c.kind != RID_ABSENT ? &tid_c : NULL;
	uint64_t tkind, tval;
	if (tid) {
		if (id_words(b, tid, &tkind, &tval, err, ev) < 0)
			return GT_NONE;
	} else {
		tkind = p->pid.is_str ? RID_STR : RID_NUM;
		tval = p->pid.is_str ? p->pid.str : (uint64_t)p->pid.num;
	}
	gt_key k = {{2 | (uint64_t)proc << 8 | tkind << 40, tval, 0, 0}};
	bool created;
	uint32_t t = keyed_track(b, &b->threads, &k, proc, &created, ev, err);
	if (t == GT_NONE || !created)
		return t;
	gt_track *tr = &b->m->tracks[t];
	tr->kind = GT_TRACK_THREAD;
	if (tid) {
		raw_id r = *tid;
		tr->tid = to_gt_id(&r, tval);
	} else {
		tr->tid = p->pid;
	}
	b->m->thread_count++;
	return t;
}

uint32_t gt_builder_find_thread(const gt_builder *b, int64_t pid, int64_t tid)
{
	gt_key pk = {{1, RID_NUM, (uint64_t)pid, 0}};
	uint32_t proc = gt_keymap_get(&b->processes, &pk);
	if (proc == UINT32_MAX)
		return GT_NONE;
	gt_key tk = {{2 | (uint64_t)proc << 8 | (uint64_t)RID_NUM << 40, (uint64_t)tid, 0, 0}};
	uint32_t t = gt_keymap_get(&b->threads, &tk);
	return t == UINT32_MAX ? GT_NONE : t;
}

/* The async track of (pid, cat, id, scope). Legacy S/F share the space. */
static uint32_t async_track(gt_builder *b, const raw_event *ev, uint32_t cat, gt_error *err)
{
	uint32_t proc = process_of(b, ev, err);
	if (proc == GT_NONE)
		return GT_NONE;
	uint64_t ikind = 0, ival = 0;
	if (ev->id.kind != RID_ABSENT && id_words(b, &ev->id, &ikind, &ival, err, ev) < 0)
		return GT_NONE;
	uint32_t scope = gt_builder_intern(b, &ev->scope, err, ev);
	if (scope == GT_NONE)
		return GT_NONE;
	/* a plain id and id2.global are process-independent (Chrome's
	 * InputLatency slices begin and end in different processes, as both
	 * Perfetto and catapult read them); only id2.local is per process */
	bool global = !(ev->flags & REV_ID2_LOCAL);
	uint64_t pw = global ? UINT32_MAX : proc;
	gt_key k = {{3 | pw << 8 | ikind << 48 | (uint64_t)global << 56, (uint64_t)cat << 32 | scope, ival, 0}};
	bool created;
	uint32_t t = keyed_track(b, &b->asyncs, &k, proc, &created, ev, err);
	if (t == GT_NONE || !created)
		return t;
	gt_track *tr = &b->m->tracks[t];
	tr->kind = GT_TRACK_ASYNC;
	tr->cat = cat;
	tr->async_id = ival;
	tr->async_scope = global;
	return t;
}

/* The instant track of ev's process ("s":"p"), or the trace's global one
 * ("s":"g"); both live in the asyncs map under their own key kind. */
static uint32_t instant_track(gt_builder *b, const raw_event *ev, bool global, gt_error *err)
{
	uint32_t proc = process_of(b, ev, err);
	if (proc == GT_NONE)
		return GT_NONE;
	gt_key k = {{7 | (uint64_t)(global ? UINT32_MAX : proc) << 8, 0, 0, 0}};
	bool created;
	uint32_t t = keyed_track(b, &b->asyncs, &k, proc, &created, ev, err);
	if (t == GT_NONE || !created)
		return t;
	b->m->tracks[t].kind = GT_TRACK_INSTANT;
	b->m->tracks[t].async_scope = global;
	return t;
}

uint8_t gt_builder_group_of(gt_builder *b, uint32_t cat, gt_error *err, const raw_event *ev)
{
	gt_model *m = b->m;
	if (cat >= b->cat_group_cap) {
		uint32_t c = b->cat_group_cap ? b->cat_group_cap : 256;
		while (c <= cat)
			c *= 2;
		uint8_t *p = gt_fault_hit("alloc") ? NULL : realloc(b->cat_group, c);
		if (!p) {
			gt_builder_fail(b, err, ev, "out of memory");
			return 0xff;
		}
		memset(p + b->cat_group_cap, 0, c - b->cat_group_cap);
		b->cat_group = p;
		b->cat_group_cap = c;
	}
	if (b->cat_group[cat])
		return (uint8_t)(b->cat_group[cat] - 1);
	uint32_t g = m->group_count;
	if (g >= GT_MAX_GROUPS - 1) {
		/* the 32nd and later categories share group 31, "other" */
		g = GT_MAX_GROUPS - 1;
		if (m->group_count < GT_MAX_GROUPS) {
			m->group_count = GT_MAX_GROUPS;
			m->groups[g].name = gt_strpool_intern(&m->strings, "other", 5);
		}
	} else {
		m->groups[g].name = cat;
		m->group_count++;
	}
	b->cat_group[cat] = (uint8_t)(g + 1);
	return (uint8_t)g;
}

/* GROW for the span and flow point tables: the builder's before_tables_move
 * hears of a move first. */
#define GROW_TABLE(b, ptr, n, cap, need, type)                                          \
	do {                                                                             \
		if ((uint64_t)(need) > (cap) && (b)->before_tables_move)                 \
			(b)->before_tables_move((b)->tables_ctx);                        \
		GROW(ptr, n, cap, need, type);                                           \
	} while (0)

int gt_builder_reserve(gt_builder *b, uint64_t spans, uint64_t points)
{
	gt_model *m = b->m;
	GROW_TABLE(b, m->spans, m->span_count, b->spans_cap, spans, gt_span);
	GROW_TABLE(b, b->points, b->npoints, b->points_cap, points, flow_point);
	return 0;
oom:
	return -1;
}

static uint32_t new_span(gt_builder *b, const raw_event *ev, uint32_t track, int kind, gt_error *err)
{
	gt_model *m = b->m;
	/* the "span-id" fault stands in for this limit in tests/limits.sh:
	 * GPUTRACE_FAULT=span-id:N makes the Nth span the one that does not fit */
	if (m->span_count == GT_NONE - 1 || gt_fault_hit("span-id"))
		return gt_builder_fail(b, err, ev, "more spans than a 32-bit span id holds"), GT_NONE;
	if (ev->index > UINT32_MAX)
		return gt_builder_fail(b, err, ev, "more events than a 32-bit event index holds"), GT_NONE;
	uint32_t name = intern_name(b, ev, err);
	uint32_t cat = intern_cat(b, ev, err);
	if (name == GT_NONE || cat == GT_NONE)
		return GT_NONE;
	uint8_t group = gt_builder_group_of(b, cat, err, ev);
	if (group == 0xff)
		return GT_NONE;
	GROW_TABLE(b, m->spans, m->span_count, b->spans_cap, (uint64_t)m->span_count + 1, gt_span);
	gt_span *s = &m->spans[m->span_count];
	s->ts_ns = ev->ts_ns;
	s->dur_ns = 0;
	s->name = name;
	s->cat = cat;
	s->track = track;
	s->parent = GT_NONE;
	s->lane = 0;
	s->event = (uint32_t)ev->index;
	s->depth = 0;
	s->group = group;
	s->kind = (uint8_t)kind;
	s->scope = 0;
	s->flags = 0;
	m->groups[group].spans++;
	m->tracks[track].span_count++;
	if (m->tracks[track].name == GT_NONE && m->tracks[track].kind == GT_TRACK_ASYNC)
		m->tracks[track].name = name;
	return m->span_count++;
oom:
	gt_builder_fail(b, err, ev, "out of memory");
	return GT_NONE;
}

/* Closes the top of a thread's B stack, whatever the E's name (as Perfetto
 * and catapult do); a name that differs is counted. */
static int close_top(gt_builder *b, uint32_t track, const raw_event *ev, gt_error *err)
{
	gt_model *m = b->m;
	u32vec *st = &b->open[track];
	if (st->n == 0) {
		warn_event(b, GT_WARN_UNMATCHED_END, ev, false);
		return 0;
	}
	gt_span *s = &m->spans[st->v[st->n - 1]];
	int64_t dur = 0;
	if (ev->ts_ns >= s->ts_ns && __builtin_sub_overflow(ev->ts_ns, s->ts_ns, &dur)) {
		warn_event(b, GT_WARN_INVALID_TS, ev, false); /* E minus B out of range */
		return 0;
	}
	if (ev->name.p && ev->name.len) {
		uint32_t name = intern_name(b, ev, err);
		if (name == GT_NONE)
			return -1;
		if (name != s->name)
			warn_event(b, GT_WARN_MISMATCHED_END_NAME, ev, false);
	}
	s->dur_ns = dur;
	st->n--;
	return 0;
}

/* Closes the innermost open span of an async track (of that name, if given). */
static int close_span(gt_builder *b, uint32_t track, const raw_event *ev, gt_error *err, int warn)
{
	gt_model *m = b->m;
	u32vec *st = &b->open[track];
	uint32_t name = GT_NONE;
	if (ev->name.p && ev->name.len) {
		name = intern_name(b, ev, err);
		if (name == GT_NONE)
			return -1;
	}
	for (uint32_t i = st->n; i-- > 0;) {
		gt_span *s = &m->spans[st->v[i]];
		if (name != GT_NONE && s->name != name)
			continue;
		int64_t dur = 0;
		if (ev->ts_ns >= s->ts_ns && __builtin_sub_overflow(ev->ts_ns, s->ts_ns, &dur)) {
			warn_event(b, GT_WARN_INVALID_TS, ev, false); /* E minus B out of range */
			return 0;
		}
		s->dur_ns = dur;
		memmove(&st->v[i], &st->v[i + 1], (size_t)(st->n - i - 1) * sizeof *st->v);
		st->n--;
		return 0;
	}
	m->stats.warnings[warn]++;
	return 0;
}

/* Flow v1 points are linked into flows at the end, in timestamp order per
 * (cat, id): producers do not always write the 's' before its 'f'. */
static int add_flow_point(gt_builder *b, const raw_event *ev, gt_error *err)
{
	uint32_t track = thread_track(b, ev, err);
	if (track == GT_NONE)
		return -1;
	uint32_t cat = intern_cat(b, ev, err);
	uint32_t name = intern_name(b, ev, err);
	uint64_t ikind = 0, ival = 0;
	if (cat == GT_NONE || name == GT_NONE ||
	    (ev->id.kind && id_words(b, &ev->id, &ikind, &ival, err, ev) < 0))
		return -1;
	GROW_TABLE(b, b->points, b->npoints, b->points_cap, (uint64_t)b->npoints + 1, flow_point);
	flow_point *pt = &b->points[b->npoints];
	pt->key = (gt_key){{4 | ikind << 8, cat, ival, 0}};
	pt->track = track;
	pt->seq = b->npoints++;
	pt->name = name;
	pt->ts_ns = ev->ts_ns;
	pt->ph = ev->ph;
	pt->enclosing = ev->ph != 'f' || ev->bp == 'e';
	return 0;
oom:
	return gt_builder_fail(b, err, ev, "out of memory");
}

static int add_flow_bind(gt_builder *b, const raw_event *ev, uint32_t span, gt_error *err)
{
	const raw_id *id = ev->bind_id.kind ? &ev->bind_id : &ev->id;
	uint64_t kind = 0, val = 0;
	if (!id->kind || id_words(b, id, &kind, &val, err, ev) < 0)
		return id->kind ? -1 : 0;
	for (int dir = 0; dir < 2; dir++) {
		if (!(ev->flags & (dir ? REV_FLOW_OUT : REV_FLOW_IN)))
			continue;
		GROW(b->binds, b->nbinds, b->binds_cap, b->nbinds + 1, flow_bind);
		flow_bind *fb = &b->binds[b->nbinds++];
		fb->key = (gt_key){{5 | kind << 8, val, 0, 0}};
		fb->span = span;
		fb->out = (uint8_t)dir;
	}
	return 0;
oom:
	return gt_builder_fail(b, err, ev, "out of memory");
}

/* args with NaN, Infinity and -Infinity (outside strings) as null, for
 * cJSON, which refuses them; NULL when out of memory. */
static char *args_without_nonstandard(const raw_event *ev)
{
	const char *p = ev->args.p, *end = p + ev->args.len;
	char *out = gt_fault_hit("alloc") ? NULL : malloc((size_t)ev->args.len * 2 + 1);
	if (!out)
		return NULL;
	char *d = out;
	bool in_str = false;
	while (p < end) {
		char c = *p;
		if (in_str) {
			if (c == '\\' && p + 1 < end)
				*d++ = *p++;
			else if (c == '"')
				in_str = false;
			*d++ = *p++;
			continue;
		}
		size_t n = (size_t)(end - p);
		size_t w = c == '"' ? 0 : n >= 3 && !memcmp(p, "NaN", 3) ? 3
			   : n >= 8 && !memcmp(p, "Infinity", 8) ? 8 : n >= 9 && !memcmp(p, "-Infinity", 9) ? 9 : 0;
		in_str = c == '"';
		if (w) {
			memcpy(d, "null", 4);
			d += 4;
			p += w;
		} else {
			*d++ = *p++;
		}
	}
	*d = '\0';
	return out;
}

/* The event's args as a tree; NULL with *skip set when they cannot be used
 * (the event is skipped and counted), NULL with err set when out of memory. */
static cJSON *parse_args(gt_builder *b, const raw_event *ev, bool *skip, gt_error *err)
{
	*skip = false;
	if (!ev->args.p)
		return NULL;
	cJSON *j = cJSON_ParseWithLength(ev->args.p, ev->args.len);
	if (!j && (ev->notes & REVN_NONSTANDARD)) {
		char *clean = args_without_nonstandard(ev);
		if (!clean) {
			gt_builder_fail(b, err, ev, "out of memory");
			return NULL;
		}
		j = cJSON_Parse(clean);
		free(clean);
	}
	if (!j) {
		/* valid to the lexer, but not to cJSON (deeper than its nesting limit) */
		warn_event(b, GT_WARN_INVALID_ARGS, ev, false);
		*skip = true;
	}
	return j;
}

/* A counter's series name: the event's name, and with an id "NAME id: ID"
 * (Perfetto's naming), so that two instances of one counter stay apart. */
static uint32_t counter_name(gt_builder *b, const raw_event *ev, gt_error *err)
{
	uint32_t name = gt_builder_intern(b, &ev->name, err, ev);
	if (name == GT_NONE || !ev->id.kind)
		return name;
	char num[24];
	const char *id = num;
	if (ev->id.kind == RID_NUM) {
		snprintf(num, sizeof num, "%lld", (long long)ev->id.num);
	} else {
		uint32_t s = gt_builder_intern(b, &ev->id.str, err, ev);
		if (s == GT_NONE)
			return GT_NONE;
		id = gt_strpool_get(&b->m->strings, s);
	}
	const char *n = gt_strpool_get(&b->m->strings, name);
	size_t len = strlen(n) + strlen(" id: ") + strlen(id);
	char *full = gt_fault_hit("alloc") ? NULL : malloc(len + 1);
	if (!full) {
		gt_builder_fail(b, err, ev, "out of memory");
		return GT_NONE;
	}
	snprintf(full, len + 1, "%s id: %s", n, id);
	uint32_t s = gt_strpool_intern(&b->m->strings, full, len);
	free(full);
	if (s == GT_NONE)
		gt_builder_fail(b, err, ev, "out of memory");
	return s;
}

/* A counter value: a number, or a string that is one whole (as Perfetto
 * reads "25.7"; ts takes them too). */
static bool counter_value(const cJSON *a, double *v)
{
	if (cJSON_IsNumber(a)) {
		*v = a->valuedouble;
		return true;
	}
	if (!cJSON_IsString(a) || !a->valuestring[0])
		return false;
	char *end;
	*v = strtod(a->valuestring, &end);
	return *end == '\0' && isfinite(*v);
}

static int add_counter(gt_builder *b, const raw_event *ev, gt_error *err)
{
	gt_model *m = b->m;
	if (!ev->args.p)
		return 0;
	bool skip;
	cJSON *args = parse_args(b, ev, &skip, err);
	if (!args)
		return skip ? 0 : -1;
	uint32_t proc = process_of(b, ev, err);
	uint32_t name = counter_name(b, ev, err);
	if (proc == GT_NONE || name == GT_NONE)
		goto fail;
	for (cJSON *a = args->child; a; a = a->next) {
		double value;
		if (!a->string || !counter_value(a, &value))
			continue;
		uint32_t key = gt_strpool_intern(&m->strings, a->string, strlen(a->string));
		if (key == GT_NONE)
			goto oom;
		gt_key k = {{6, proc, name, key}};
		bool found;
		uint32_t *slot = gt_keymap_slot(&b->series, &k, &found);
		if (!slot)
			goto oom;
		if (!found) {
			GROW(m->series, m->series_count, b->series_cap, m->series_count + 1, gt_counter_series);
			m->series[m->series_count] = (gt_counter_series){proc, name, key, 0};
			*slot = ++m->series_count;
		}
		uint32_t sid = *slot - 1;
		if (m->sample_count == b->samples_cap) {
			uint64_t c = b->samples_cap ? b->samples_cap * 2 : 256;
			gt_counter_sample *p = gt_fault_hit("alloc") ? NULL : realloc(m->samples, (size_t)c * sizeof *p);
			if (!p)
				goto oom;
			m->samples = p;
			b->samples_cap = c;
		}
		m->samples[m->sample_count++] = (gt_counter_sample){sid, ev->ts_ns, value};
		m->series[sid].sample_count++;
	}
	cJSON_Delete(args);
	return 0;
oom:
	gt_builder_fail(b, err, ev, "out of memory");
fail:
	cJSON_Delete(args);
	return -1;
}

/* A sort index must convert to int64 exactly enough: finite and in range
 * (a plain cast of 1e300 or NaN is undefined behaviour). */
static bool sort_index_ok(double d)
{
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

static int add_metadata(gt_builder *b, const raw_event *ev, gt_error *err)
{
	gt_model *m = b->m;
	static const struct { const char *name; int what; } kinds[] = {
		{"process_name", 1}, {"thread_name", 2}, {"process_sort_index", 3},
		{"thread_sort_index", 4}, {"process_labels", 5},
	};
	int what = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (ev->name.len == strlen(kinds[i].name) && !ev->name.escaped &&
		    memcmp(ev->name.p, kinds[i].name, ev->name.len) == 0)
			what = kinds[i].what;
	if (!what || !ev->args.p)
		return 0;
	bool skip;
	cJSON *args = parse_args(b, ev, &skip, err);
	if (!args)
		return skip ? 0 : -1;
	if (what >= 3 && what <= 4) {
		const cJSON *si = cJSON_GetObjectItemCaseSensitive(args, "sort_index");
		if (cJSON_IsNumber(si) && !sort_index_ok(si->valuedouble)) {
			warn_event(b, GT_WARN_INVALID_ARGS, ev, false);
			cJSON_Delete(args);
			return 0;
		}
	}
	const char *key = what == 3 || what == 4 ? "sort_index" : what == 5 ? "labels" : "name";
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
	int rc = 0;
	if (what == 1 || what == 5) {
		uint32_t proc = process_of(b, ev, err);
		if (proc == GT_NONE) {
			rc = -1;
		} else if (cJSON_IsString(v)) {
			uint32_t s = gt_strpool_intern(&m->strings, v->valuestring, strlen(v->valuestring));
			if (s == GT_NONE)
				rc = gt_builder_fail(b, err, ev, "out of memory");
			else if (what == 1)
				m->processes[proc].name = s;
			else
				m->processes[proc].labels = s;
		}
	} else if (what == 3) {
		uint32_t proc = process_of(b, ev, err);
		if (proc == GT_NONE)
			rc = -1;
		else if (cJSON_IsNumber(v)) {
			m->processes[proc].has_sort_index = true;
			m->processes[proc].sort_index = (int64_t)v->valuedouble;
		}
	} else {
		uint32_t t = thread_track(b, ev, err);
		if (t == GT_NONE) {
			rc = -1;
		} else if (what == 2 && cJSON_IsString(v)) {
			uint32_t s = gt_strpool_intern(&m->strings, v->valuestring, strlen(v->valuestring));
			if (s == GT_NONE)
				rc = gt_builder_fail(b, err, ev, "out of memory");
			else
				m->tracks[t].name = s;
		} else if (what == 4 && cJSON_IsNumber(v)) {
			m->tracks[t].has_sort_index = true;
			m->tracks[t].sort_index = (int64_t)v->valuedouble;
		}
	}
	cJSON_Delete(args);
	return rc;
}

void gt_builder_note_end(gt_builder *b, int64_t t)
{
	if (!b->any_ts || t > b->max_end_ns)
		b->max_end_ns = t;
	b->any_ts = true;
}

static void count_long_phase(gt_ingest_stats *st, const jl_slice *ph)
{
	char name[24];
	size_t n = ph->len < sizeof name - 1 ? ph->len : sizeof name - 1;
	memcpy(name, ph->p, n);
	name[n] = '\0';
	for (int i = 0; i < 8; i++) {
		if (!st->long_phase[i][0])
			memcpy(st->long_phase[i], name, n + 1);
		if (strcmp(st->long_phase[i], name) == 0) {
			st->long_phase_count[i]++;
			return;
		}
	}
	st->phases['?']++; /* more distinct long phases than kept */
}

/* The event's first unusable value, as the warning that skips it; 0 when
 * the phase can use the event. */
static int skip_reason(char ph, const raw_event *ev)
{
	if (ev->bad & REVB_ID)
		return GT_WARN_INVALID_ID;
	if (ev->bad & REVB_FIELD)
		return GT_WARN_INVALID_FIELD;
	if (ph == 'M')
		return 0; /* metadata needs no time */
	if (ev->bad & REVB_TS)
		return GT_WARN_INVALID_TS;
	if (ph == 'X' && (ev->bad & REVB_DUR))
		return GT_WARN_INVALID_DUR;
	if (ph == 'X' && (ev->bad & REVB_NEG_DUR))
		return GT_WARN_NEGATIVE_DUR;
	return 0;
}

int gt_builder_add(gt_builder *b, const raw_event *ev, gt_error *err)
{
	gt_model *m = b->m;
	char ph = ev->ph ? ev->ph : '?';
	if ((unsigned char)ph >= 128)
		ph = '?';
	m->stats.events++;
	if (ev->ph_text.len)
		count_long_phase(&m->stats, &ev->ph_text);
	else
		m->stats.phases[(unsigned char)ph]++;
	if (ev->notes & REVN_UTF8)
		gt_model_example(m, GT_WARN_INVALID_UTF8, ev->offset, ev->index, ev->text, ev->len);
	if (ev->notes & REVN_NONSTANDARD)
		gt_model_example(m, GT_WARN_NONSTANDARD_NUMBER, ev->offset, ev->index, ev->text, ev->len);
	int skip = skip_reason(ph, ev);
	if (skip) {
		warn_event(b, skip, ev, true);
		return 0;
	}
	if (ph == 'M')
		return add_metadata(b, ev, err);
	bool has_ts = ev->flags & REV_HAS_TS;
	if (!strchr("XBEiIRbenSFTpstfC", ph)) {
		if (ev->ph_text.len)
			gt_model_warn(m, GT_WARN_LONG_PHASE, ev->offset, ev->index, ev->ph_text.p, ev->ph_text.len);
		else if (ph == '?')
			warn_event(b, GT_WARN_UNKNOWN_PHASE, ev, false);
		return 0;
	}
	if (!has_ts) {
		warn_event(b, GT_WARN_MISSING_TS, ev, false);
		return 0;
	}
	/* dur is read for X only; elsewhere a usable one still extends the trace */
	int64_t dur = ev->bad & (REVB_DUR | REVB_NEG_DUR) ? 0 : ev->dur_ns;
	if (ev->ts_ns > INT64_MAX - dur) {
		if (ph == 'X') {
			warn_event(b, GT_WARN_INVALID_DUR, ev, false);
			return 0;
		}
		dur = 0;
	}
	gt_builder_note_end(b, ev->ts_ns + dur);
	uint32_t track, span = GT_NONE;
	switch (ph) {
	case 'X':
	case 'B':
	case 'i':
	case 'I':
	case 'R': /* marks: navigationStart, user timing */
		track = ph != 'X' && ph != 'B' && (ev->s == 'p' || ev->s == 'g') ? instant_track(b, ev, ev->s == 'g', err)
										  : thread_track(b, ev, err);
		if (track == GT_NONE)
			return -1;
		span = new_span(b, ev, track,
				ph == 'X' ? GT_SPAN_COMPLETE : ph == 'B' ? GT_SPAN_DURATION : GT_SPAN_INSTANT, err);
		if (span == GT_NONE)
			return -1;
		if (ph == 'X' && !(ev->flags & REV_HAS_DUR)) {
			/* still running when tracing stopped: ends with the trace */
			if (gt_u32vec_push(&b->unfinished, span) < 0)
				return gt_builder_fail(b, err, ev, "out of memory");
			warn_event(b, GT_WARN_UNFINISHED_COMPLETE, ev, false);
		} else if (ph == 'X')
			m->spans[span].dur_ns = dur;
		else if (ph == 'B' && gt_u32vec_push(&b->open[track], span) < 0)
			return gt_builder_fail(b, err, ev, "out of memory");
		else if (ph != 'B')
			m->spans[span].scope = (uint8_t)(ev->s ? ev->s : 't');
		if ((ev->flags & (REV_FLOW_IN | REV_FLOW_OUT)) && add_flow_bind(b, ev, span, err) < 0)
			return -1;
		return ph == 'X' || ph == 'B' ? gt_builder_note_sync(b, ev, span, err) : 0;
	case 'E':
		track = thread_track(b, ev, err);
		if (track == GT_NONE)
			return -1;
		return close_top(b, track, ev, err);
	case 'b':
	case 'e':
	case 'n':
	case 'S':
	case 'F': {
		if (!ev->id.kind) { /* no id and no usable id2: nothing to match it by */
			warn_event(b, GT_WARN_INVALID_ID, ev, false);
			return 0;
		}
		uint32_t cat = intern_cat(b, ev, err);
		if (cat == GT_NONE)
			return -1;
		track = async_track(b, ev, cat, err);
		if (track == GT_NONE)
			return -1;
		if (ph == 'e' || ph == 'F')
			return close_span(b, track, ev, err, GT_WARN_UNMATCHED_ASYNC_END);
		span = new_span(b, ev, track, ph == 'n' ? GT_SPAN_INSTANT
				: ph == 'S' ? GT_SPAN_LEGACY_ASYNC : GT_SPAN_ASYNC, err);
		if (span == GT_NONE)
			return -1;
		if (ph != 'n' && gt_u32vec_push(&b->open[track], span) < 0)
			return gt_builder_fail(b, err, ev, "out of memory");
		return 0;
	}
	case 'T':
	case 'p':
		return 0; /* legacy async steps: counted only */
	case 's':
	case 't':
	case 'f':
		return add_flow_point(b, ev, err);
	case 'C':
		return add_counter(b, ev, err);
	}
	return 0;
}
