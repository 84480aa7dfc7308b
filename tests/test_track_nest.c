/* gt_nest_tracks cut into chunks (several threads) against one sweep per
 * track (one thread), on long tracks of every shape: a deep tree, random
 * overlapping intervals with tied starts, a flat stream, one whose ids are
 * out of time order, one in two runs of time order (Kineto's), and short
 * tracks between them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/track_nest.h"
#include "testutil.h"

typedef struct gen {
	uint64_t seed;
	gt_span *spans;
	uint32_t n, cap;
} gen;

static uint64_t rnd(gen *g, uint64_t below)
{
	return gt_splitmix64(&g->seed) % below;
}

static void add(gen *g, uint32_t track, int64_t ts, int64_t dur)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->spans = realloc(g->spans, g->cap * sizeof *g->spans);
		ck_assert_ptr_nonnull(g->spans);
	}
	g->spans[g->n++] = (gt_span){.ts_ns = ts, .dur_ns = dur, .track = track, .parent = GT_NONE};
}

static int cmp_start_longer(const void *x, const void *y)
{
	const gt_span *a = x, *b = y;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->dur_ns > b->dur_ns ? -1 : a->dur_ns < b->dur_ns;
}

/* A proper tree: children inside their parent, down to depth 40. */
static int64_t tree(gen *g, uint32_t track, int64_t ts, int64_t room, int depth, uint32_t max_spans)
{
	int64_t t = ts;
	while (t < ts + room && g->n < max_spans) {
		int64_t dur = 1 + (int64_t)rnd(g, (uint64_t)(ts + room - t));
		add(g, track, t, dur);
		if (depth < 40 && dur > 4 && rnd(g, 4))
			tree(g, track, t + (int64_t)rnd(g, 2), dur - 2, depth + 1, max_spans);
		t += dur + (int64_t)rnd(g, 3); /* 0: siblings touching */
	}
	return t;
}

/* The spans in order dealt at random into two runs, the first run's
 * before the second's. */
static void deal_two_runs(gen *g)
{
	gt_span *two = malloc((g->n ? g->n : 1) * sizeof *two);
	ck_assert_ptr_nonnull(two);
	uint32_t b = 0;
	for (uint32_t i = 0; i < g->n; i++)
		b += rnd(g, 2) == 0;
	uint32_t second = g->n - b; /* where the second run starts */
	for (uint32_t i = 0, x = 0, y = 0; i < g->n; i++) {
		bool to_first = x < second && (y >= b || rnd(g, 2));
		two[to_first ? x++ : second + y++] = g->spans[i];
	}
	memcpy(g->spans, two, g->n * sizeof *two);
	free(two);
}

/* Builds the tracks, merges them into one id order (each track keeping its
 * own time order unless shuffled), then nests with `threads`. */
static gt_model *build(uint64_t seed, uint32_t per_track)
{
	enum { TRACKS = 9 };
	gen parts[TRACKS];
	for (uint32_t t = 0; t < TRACKS; t++) {
		gen *g = &parts[t];
		memset(g, 0, sizeof *g);
		g->seed = seed * 31 + t;
		uint32_t want = t % 2 ? 1 + (uint32_t)rnd(g, 50) : per_track; /* odd tracks are short */
		switch (t == TRACKS - 1 ? 8 : t % 8) {
		case 0: /* deep tree */
			for (int64_t ts = 0; g->n < want;)
				ts = tree(g, t, ts, 1 + (int64_t)rnd(g, 1000000), 0, want);
			break;
		case 2: /* random intervals: ties, containment, overlaps; ids in track order */
			for (int64_t ts = 0; g->n < want; ts += (int64_t)rnd(g, 3))
				add(g, t, ts, (int64_t)rnd(g, 8) ? (int64_t)rnd(g, 40) : (int64_t)rnd(g, 100000));
			qsort(g->spans, g->n, sizeof *g->spans, cmp_start_longer);
			break;
		case 4: /* flat */
			for (int64_t ts = 0; g->n < want; ts += 10)
				add(g, t, ts, (int64_t)rnd(g, 11));
			break;
		case 6: /* out of order: random intervals, shuffled */
			for (int64_t ts = 0; g->n < want; ts += (int64_t)rnd(g, 5))
				add(g, t, ts, (int64_t)rnd(g, 60));
			for (uint32_t i = g->n; i > 1; i--) {
				uint32_t j = (uint32_t)rnd(g, i);
				gt_span x = g->spans[i - 1];
				g->spans[i - 1] = g->spans[j], g->spans[j] = x;
			}
			break;
		case 8: /* Kineto's order: random intervals in time order, dealt into two
			 * runs (a thread's ops, its runtime calls), one after the other */
			for (int64_t ts = 0; g->n < want; ts += (int64_t)rnd(g, 4))
				add(g, t, ts, (int64_t)rnd(g, 50));
			qsort(g->spans, g->n, sizeof *g->spans, cmp_start_longer);
			deal_two_runs(g);
			break;
		default:
			for (uint32_t i = 0; i < want; i++)
				add(g, t, (int64_t)rnd(g, 1000), (int64_t)rnd(g, 1000));
		}
	}
	gt_model *m = calloc(1, sizeof *m);
	ck_assert_ptr_nonnull(m);
	uint32_t total = 0, at[TRACKS] = {0};
	for (uint32_t t = 0; t < TRACKS; t++)
		total += parts[t].n;
	m->spans = calloc(total, sizeof *m->spans);
	m->tracks = calloc(TRACKS, sizeof *m->tracks);
	ck_assert(m->spans && m->tracks);
	m->track_count = TRACKS;
	uint64_t mix = seed;
	while (m->span_count < total) {
		uint32_t t = (uint32_t)(gt_splitmix64(&mix) % TRACKS);
		if (at[t] < parts[t].n)
			m->spans[m->span_count++] = parts[t].spans[at[t]++];
	}
	for (uint32_t t = 0; t < TRACKS; t++)
		free(parts[t].spans);
	return m;
}

typedef struct nested {
	uint32_t *order, *first;
	int64_t *starts;
	uint64_t improper;
} nested;

/* Each track whose ids are in track order already, found the slow way. */
static uint8_t *tracks_in_order(const gt_model *m)
{
	uint8_t *in_order = malloc(m->track_count);
	uint32_t *last = malloc(m->track_count * sizeof *last);
	ck_assert(in_order && last);
	memset(in_order, 1, m->track_count);
	for (uint32_t t = 0; t < m->track_count; t++)
		last[t] = GT_NONE;
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t t = m->spans[i].track;
		if (last[t] != GT_NONE && !gt_track_before(m->spans, last[t], i))
			in_order[t] = 0;
		last[t] = i;
	}
	free(last);
	return in_order;
}

/* with_flags: the tracks in order are told so, and not searched for runs. */
static nested nest(gt_model *m, unsigned threads, bool with_flags)
{
	nested r = {0};
	r.first = calloc(m->track_count + 1, sizeof *r.first);
	r.order = malloc((m->span_count + 1) * sizeof *r.order);
	r.starts = malloc((m->span_count + 1) * sizeof *r.starts);
	ck_assert(r.first && r.order && r.starts);
	for (uint32_t i = 0; i < m->span_count; i++)
		r.first[m->spans[i].track + 1]++;
	for (uint32_t t = 0; t < m->track_count; t++)
		r.first[t + 1] += r.first[t];
	uint32_t *next = calloc(m->track_count, sizeof *next);
	for (uint32_t i = 0; i < m->span_count; i++) {
		uint32_t t = m->spans[i].track;
		r.order[r.first[t] + next[t]++] = i;
	}
	free(next);
	for (uint32_t i = 0; i < m->span_count; i++)
		m->spans[i].parent = m->spans[i].depth = 12345; /* to be overwritten */
	uint8_t *in_order = with_flags ? tracks_in_order(m) : NULL;
	if (in_order) { /* the shapes of build(): some tracks in order, some not */
		uint32_t ordered = 0;
		for (uint32_t t = 0; t < m->track_count; t++)
			ordered += in_order[t];
		ck_assert(ordered > 0 && ordered < m->track_count);
	}
	ck_assert_int_eq(gt_nest_tracks(m, r.order, r.first, r.starts, in_order, threads, &r.improper), 0);
	free(in_order);
	return r;
}

START_TEST(chunks_equal_one_sweep)
{
	gt_model *m = build((uint64_t)_i + 1, 300000);
	nested one = nest(m, 1, false);
	gt_span *want = malloc(m->span_count * sizeof *want);
	memcpy(want, m->spans, m->span_count * sizeof *want);
	uint32_t lanes[9];
	for (uint32_t t = 0; t < m->track_count; t++)
		lanes[t] = m->tracks[t].lane_count;
	ck_assert_uint_gt(one.improper, 0);
	/* each track's spans in track order (start, longer first, id), each once */
	uint8_t *seen = calloc(m->span_count, 1);
	for (uint32_t t = 0; t < m->track_count; t++)
		for (uint32_t k = one.first[t]; k < one.first[t + 1]; k++) {
			const gt_span *a = &m->spans[one.order[k]];
			ck_assert(a->track == t && !seen[one.order[k]]);
			seen[one.order[k]] = 1;
			if (k == one.first[t])
				continue;
			uint32_t p = one.order[k - 1];
			const gt_span *b = &m->spans[p];
			ck_assert_msg(b->ts_ns < a->ts_ns ||
					      (b->ts_ns == a->ts_ns && (b->dur_ns > a->dur_ns ||
									(b->dur_ns == a->dur_ns && p < one.order[k]))),
				      "track %u out of order at %u", t, k - one.first[t]);
		}
	free(seen);
	for (unsigned run = 0; run < 10; run++) {
		unsigned threads = 1u << (run / 2); /* 1 to 16, each without and with the flags */
		nested many = nest(m, threads, run % 2);
		ck_assert_uint_eq(many.improper, one.improper);
		ck_assert_mem_eq(many.order, one.order, m->span_count * sizeof *one.order);
		ck_assert_mem_eq(many.starts, one.starts, m->span_count * sizeof *one.starts);
		for (uint32_t i = 0; i < m->span_count; i++)
			if (m->spans[i].parent != want[i].parent || m->spans[i].depth != want[i].depth)
				ck_abort_msg("threads %u, span %u (track %u): parent %u depth %u, want %u %u", threads, i,
					     m->spans[i].track, m->spans[i].parent, m->spans[i].depth, want[i].parent,
					     want[i].depth);
		for (uint32_t t = 0; t < m->track_count; t++)
			ck_assert_uint_eq(m->tracks[t].lane_count, lanes[t]);
		free(many.order), free(many.first), free(many.starts);
	}
	uint32_t deepest = 0;
	for (uint32_t i = 0; i < m->span_count; i++)
		if (want[i].depth > deepest)
			deepest = want[i].depth;
	ck_assert_uint_ge(deepest, 10); /* the tree track is deep */
	free(one.order), free(one.first), free(one.starts), free(want);
	free(m->spans), free(m->tracks), free(m);
}
END_TEST

int main(void)
{
	const gt_test nesting[] = {GT_LOOP(chunks_equal_one_sweep, 3), {0}};
	const gt_tcase cases[] = {{"nesting", 120, nesting}, {0}};
	return gt_run_cases("track_nest", cases);
}
