/* Track order and nesting (track_nest.h).
 *
 * The sweep keeps a stack of the spans that contain the current one. A
 * chunk of a long track is swept with a stack of its own, starting empty.
 * Where that stack runs empty, the span is an orphan: the one sweep would
 * have gone on popping the stack the chunks before left, which the chunk
 * does not know yet. The stitch then takes each track's chunks in order
 * with that inherited stack: each orphan pops it and finds its parent
 * there, and the spans after it, up to the next orphan, sit that much
 * deeper; then the chunk's own final stack goes on top. Only orphans cost
 * the stitch anything, and a last pass adds the depths on threads. */
#include "track_nest.h"
#include "builder.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* Sort order on a track: start ascending, longer first, earlier id. Per
 * thread: several files of a job are finished at once (trace_load_many). */
static _Thread_local const gt_span *sort_spans;

static bool runs_before(const void *spans, uint32_t a, uint32_t b)
{
	return gt_track_before(spans, a, b);
}

static int cmp_track_order(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return gt_track_before(sort_spans, a, b) ? -1 : gt_track_before(sort_spans, b, a) ? 1 : 0;
}

/* Below this many spans, a track is swept whole. */
#define CHUNK_MIN 65536

typedef struct nest_ctx {
	gt_model *m;
	uint32_t *order;
	const uint32_t *first;
	int64_t *starts;
	const uint8_t *in_order; /* per track, or NULL */
} nest_ctx;

/* Pops the spans of the stack that end before s does: they cannot contain
 * it (they start no later, by the order). One that ends inside s overlaps
 * it without nesting: counted. */
static void pop_ended(const gt_span *spans, u32vec *stack, const gt_span *s, uint64_t *improper)
{
	int64_t end = s->ts_ns + s->dur_ns;
	while (stack->n) {
		const gt_span *p = &spans[stack->v[stack->n - 1]];
		int64_t pend = p->ts_ns + p->dur_ns;
		if (end <= pend)
			break; /* p contains s */
		if (pend > s->ts_ns)
			(*improper)++;
		stack->n--;
	}
}

/* A track's spans o[0, n) in track order: as they are, merged where they
 * come as a few runs in order (Kineto writes a thread's ops, then its
 * runtime calls), else sorted. The runs are found and merged on threads
 * (a long track's, before its chunks are cut). */
static void order_track(const gt_model *m, uint32_t *o, uint32_t n, unsigned threads)
{
	uint32_t run[GT_MERGE_RUNS_MAX + 2], runs = gt_find_runs_threads(o, n, runs_before, m->spans, run, threads);
	if (runs == 1)
		return;
	uint32_t *tmp = runs <= GT_MERGE_RUNS_MAX && !gt_fault_hit("alloc") ? malloc((size_t)n * sizeof *tmp) : NULL;
	if (tmp) {
		gt_merge_runs_threads(o, tmp, n, run, runs, runs_before, m->spans, threads);
		free(tmp);
		return;
	}
	sort_spans = m->spans;
	qsort(o, n, sizeof *o, cmp_track_order);
}

/* One track, swept whole: put in order first when it is not. */
static int nest_whole(const nest_ctx *c, uint32_t t, u32vec *stack, uint64_t *improper)
{
	gt_model *m = c->m;
	uint32_t *o = c->order + c->first[t];
	uint32_t n = c->first[t + 1] - c->first[t];
	if (!c->in_order || !c->in_order[t])
		order_track(m, o, n, 1);
	uint32_t max_depth = 0;
	stack->n = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t id = o[k];
		gt_span *s = &m->spans[id];
		c->starts[c->first[t] + k] = s->ts_ns;
		pop_ended(m->spans, stack, s, improper);
		s->parent = stack->n ? stack->v[stack->n - 1] : GT_NONE;
		s->depth = stack->n;
		if (stack->n > max_depth)
			max_depth = stack->n;
		if (gt_u32vec_push(stack, id) < 0)
			return -1;
	}
	m->tracks[t].lane_count = n ? max_depth + 1 : 0;
	return 0;
}

/* A piece of work: a run of short tracks swept whole, or one chunk of a
 * long track. */
typedef struct nest_item {
	uint32_t track, track_end; /* short tracks: [track, track_end); a chunk: its track */
	uint32_t begin, end;       /* a chunk: its positions in order[] */
	bool chunk;
	bool sorted;               /* a chunk: in order within itself */
	bool redone;               /* a chunk of a track out of order, swept whole instead */
	u32vec orphans;            /* positions in order[] */
	u32vec seg_max;            /* per orphan: the deepest local depth from it to the next */
	int64_t orphans_end;       /* the latest end of an orphan */
	u32vec final;              /* the chunk's own stack at its end */
	u32vec inherited;          /* the stack the chunks before leave it */
	uint32_t depth_max;        /* its deepest depth in the one sweep */
	uint64_t improper;
	int rc;
} nest_item;

static void free_item(nest_item *it)
{
	free(it->orphans.v), free(it->seg_max.v), free(it->final.v), free(it->inherited.v);
}

/* A chunk's sweep with a stack of its own. */
static int sweep(const nest_ctx *c, nest_item *it)
{
	gt_model *m = c->m;
	u32vec *st = &it->final;
	it->sorted = true;
	for (uint32_t k = it->begin; k < it->end; k++) {
		uint32_t id = c->order[k];
		gt_span *s = &m->spans[id];
		if (k > it->begin && it->sorted)
			it->sorted = gt_track_before(m->spans, c->order[k - 1], id);
		c->starts[k] = s->ts_ns;
		pop_ended(m->spans, st, s, &it->improper);
		if (st->n == 0) {
			if (gt_u32vec_push(&it->orphans, k) < 0 || gt_u32vec_push(&it->seg_max, 0) < 0)
				return -1;
			s->parent = GT_NONE; /* the stitch's to set */
			if (it->orphans.n == 1 || s->ts_ns + s->dur_ns > it->orphans_end)
				it->orphans_end = s->ts_ns + s->dur_ns;
		} else {
			s->parent = st->v[st->n - 1];
			uint32_t *mx = &it->seg_max.v[it->seg_max.n - 1];
			if (st->n > *mx)
				*mx = st->n;
		}
		s->depth = st->n;
		if (gt_u32vec_push(st, id) < 0)
			return -1;
	}
	return 0;
}

/* The sweep on a copy of the item: its stack's count and the rest change at
 * every span, and the items beside it, on other threads, share its lines. */
static int sweep_chunk(const nest_ctx *c, nest_item *it)
{
	nest_item own = *it;
	int rc = sweep(c, &own);
	*it = own;
	return rc;
}

/* The items go to the threads as they come free: a run of short tracks may
 * be near twice a chunk, and a track out of order is sorted first. */
typedef struct nest_run {
	nest_ctx c;
	nest_item *items;
	size_t count, next; /* next: the first item no thread has taken */
	int rc;
} nest_run;

static void *sweep_items(void *arg)
{
	nest_run *r = *(nest_run **)arg;
	u32vec stack = {0};
	int rc = 0;
	for (size_t i; rc == 0 && (i = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED)) < r->count;) {
		nest_item *it = &r->items[i];
		if (it->chunk)
			rc = sweep_chunk(&r->c, it);
		for (uint32_t t = it->track; !it->chunk && t < it->track_end && rc == 0; t++)
			rc = nest_whole(&r->c, t, &stack, &it->improper);
	}
	free(stack.v);
	if (rc)
		__atomic_store_n(&r->rc, rc, __ATOMIC_RELAXED);
	return NULL;
}

/* A long track's chunks items[a..b), swept: the stack each one inherits
 * from the chunks before. The one sweep pops that stack at each orphan,
 * while its top ends before the orphan does; the tops it stops at end no
 * earlier, so the chunk's orphans together pop what their latest end pops
 * alone. Then the chunk's own final stack goes on top. Each chunk then sets
 * its orphans against its own copy (inherit_chunk), on threads. A track out
 * of order is sorted and swept whole instead. */
static int stack_track(const nest_ctx *c, nest_item *items, size_t a, size_t b, u32vec *st, uint64_t *improper)
{
	gt_model *m = c->m;
	bool sorted = true;
	for (size_t i = a; i < b && sorted; i++)
		sorted = items[i].sorted &&
			 (i == a || gt_track_before(m->spans, c->order[items[i].begin - 1], c->order[items[i].begin]));
	if (!sorted) {
		for (size_t i = a; i < b; i++)
			items[i].redone = true;
		return nest_whole(c, items[a].track, st, improper);
	}
	st->n = 0;
	for (size_t i = a; i < b; i++) {
		nest_item *it = &items[i];
		for (uint32_t k = 0; k < st->n; k++)
			if (gt_u32vec_push(&it->inherited, st->v[k]) < 0)
				return -1;
		while (it->orphans.n && st->n) {
			const gt_span *p = &m->spans[st->v[st->n - 1]];
			if (p->ts_ns + p->dur_ns >= it->orphans_end)
				break;
			st->n--;
		}
		for (uint32_t k = 0; k < it->final.n; k++)
			if (gt_u32vec_push(st, it->final.v[k]) < 0)
				return -1;
	}
	return 0;
}

/* A chunk's orphans against the stack it inherits: each pops it as the one
 * sweep would and takes its top as parent, and the spans from it up to the
 * next orphan sit that much deeper. */
static void inherit_chunk(const nest_ctx *c, nest_item *it)
{
	gt_model *m = c->m;
	u32vec *st = &it->inherited;
	for (uint32_t o = 0; o < it->orphans.n; o++) {
		gt_span *s = &m->spans[c->order[it->orphans.v[o]]];
		pop_ended(m->spans, st, s, &it->improper);
		s->parent = st->n ? st->v[st->n - 1] : GT_NONE;
		uint32_t add = st->n, to = o + 1 < it->orphans.n ? it->orphans.v[o + 1] : it->end;
		if (add + it->seg_max.v[o] > it->depth_max)
			it->depth_max = add + it->seg_max.v[o];
		for (uint32_t k = add ? it->orphans.v[o] : to; k < to; k++)
			m->spans[c->order[k]].depth += add;
	}
}

static int inherit_range(void *ctx, uint64_t a, uint64_t b)
{
	nest_run *r = ctx;
	for (uint64_t i = a; i < b; i++)
		if (r->items[i].chunk && !r->items[i].redone)
			inherit_chunk(&r->c, &r->items[i]);
	return 0;
}

/* Cuts the tracks into items of about `chunk` spans: runs of short tracks,
 * and chunks of the tracks of twice that or more. */
static nest_item *cut_items(const gt_model *m, const uint32_t *first, uint64_t chunk, size_t *count)
{
	size_t cap = m->track_count + m->span_count / chunk + 2, n = 0;
	nest_item *items = gt_fault_hit("alloc") ? NULL : calloc(cap, sizeof *items);
	if (!items)
		return NULL;
	uint32_t run = 0; /* the first short track not in an item yet */
	for (uint32_t t = 0; t <= m->track_count; t++) {
		uint64_t len = t < m->track_count ? first[t + 1] - first[t] : 0;
		bool long_track = len >= 2 * chunk;
		if (run < t && (long_track || t == m->track_count || first[t] - first[run] >= chunk)) {
			items[n++] = (nest_item){.track = run, .track_end = t};
			run = t;
		}
		if (!long_track)
			continue;
		uint64_t pieces = len / chunk;
		for (uint64_t p = 0; p < pieces; p++)
			items[n++] = (nest_item){.track = t, .chunk = true, .begin = (uint32_t)(first[t] + len * p / pieces),
						 .end = (uint32_t)(first[t] + len * (p + 1) / pieces)};
		run = t + 1;
	}
	*count = n;
	return items;
}

int gt_nest_tracks(gt_model *m, uint32_t *order, const uint32_t *first, int64_t *starts, const uint8_t *in_order,
		   unsigned threads, uint64_t *improper)
{
	nest_run r = {{m, order, first, starts, in_order}, NULL, 0, 0, 0};
	if (threads < 1)
		threads = 1;
	uint64_t chunk = threads > 1 ? m->span_count / ((uint64_t)threads * 4) : UINT32_MAX;
	if (chunk < CHUNK_MIN)
		chunk = CHUNK_MIN;
	/* a long track out of order is put in order first, so that its chunks
	 * are swept on threads rather than the track again whole */
	for (uint32_t t = 0; t < m->track_count; t++)
		if (first[t + 1] - first[t] >= 2 * chunk && !(in_order && in_order[t]))
			order_track(m, order + first[t], first[t + 1] - first[t], threads);
	size_t n;
	r.items = cut_items(m, first, chunk, &n);
	if (!r.items)
		return -1;
	r.count = n;
	nest_run *jobs[GT_MAX_JOBS];
	unsigned k = threads < n ? threads : (unsigned)n;
	if (k > GT_MAX_JOBS)
		k = GT_MAX_JOBS;
	for (unsigned j = 0; j < k; j++)
		jobs[j] = &r;
	gt_run_jobs(sweep_items, jobs, sizeof *jobs, k);
	int rc = r.rc;
	u32vec stack = {0};
	for (size_t a = 0, b; a < n && rc == 0; a = b) {
		for (b = a + 1; r.items[a].chunk && b < n && r.items[b].chunk && r.items[b].track == r.items[a].track; b++)
			;
		if (r.items[a].chunk)
			rc = stack_track(&r.c, r.items, a, b, &stack, improper);
		else
			*improper += r.items[a].improper;
	}
	free(stack.v);
	if (rc == 0)
		gt_parallel_ranges(n, 1, threads, inherit_range, &r);
	/* a chunked track's lanes and improper count, from its chunks */
	for (size_t i = 0; i < n && rc == 0; i++) {
		const nest_item *it = &r.items[i];
		if (!it->chunk || it->redone)
			continue;
		gt_track *t = &m->tracks[it->track];
		if (i == 0 || r.items[i - 1].track != it->track || !r.items[i - 1].chunk)
			t->lane_count = 0;
		if (it->depth_max + 1 > t->lane_count)
			t->lane_count = it->depth_max + 1;
		*improper += it->improper;
	}
	for (size_t i = 0; i < n; i++)
		free_item(&r.items[i]);
	free(r.items);
	return rc;
}
