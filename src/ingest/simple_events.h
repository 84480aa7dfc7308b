/* Simple events, built in bulk. Most events of a GPU trace are complete
 * events ('X') and flow points ('s', 't', 'f') with numeric pid, tid and
 * id, a name and a category, and nothing else the builder must look at: no
 * flow binding, no synchronisation args, no bad value. The parse workers
 * keep the few fields of such an event, with its piece's local name,
 * category and thread ids.
 *
 * The builder then visits, in file order, only the piece's other events
 * and the first simple event of each local name, category and thread: a
 * later one finds its ids resolved by that first one, so it only needs the
 * next span id or flow point, and the count of those between two visits
 * comes with the visit. The fill writes the slots afterwards, a window's
 * pieces on all threads at once. The builder thread thus never reads most
 * events, in raw form or not (on the H200 machine's host, reading them was
 * most of its time). Every id, count and order comes out as gt_builder_add
 * alone would give it. */
#ifndef GT_SIMPLE_EVENTS_H
#define GT_SIMPLE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "local_names.h"
#include "local_threads.h"
#include "raw_event.h"

typedef struct simple_event {
	int64_t ts_ns, dur_ns;
	int64_t id;                     /* flow points: the id, when has_id */
	uint32_t name_local, cat_local; /* the piece's local_names ids */
	uint32_t thread_local;          /* the piece's local_threads id */
	uint32_t at;                    /* its event's number in the piece */
	uint32_t slot;                  /* visited ones: the builder's span id or flow point, GT_NONE when gt_builder_add built it */
	char ph;                        /* 'X', 's', 't' or 'f' */
	uint8_t has_id, enclosing;      /* flow points: as flow_point's */
	uint8_t visited;                /* a first use: the builder visits it */
} simple_event;

/* An event the builder visits: one that is not simple, or a first use. */
typedef struct simple_visit {
	uint32_t at;                   /* its event's number in the piece */
	uint32_t record;               /* its simple_event, or GT_NONE */
	uint32_t spans_before, points_before; /* unvisited simple ones since the previous visit */
	uint32_t spans_made, points_made;     /* the builder's: what the visit added */
} simple_visit;

typedef struct simple_events {
	simple_event *v;
	size_t n, cap;
	simple_visit *visits;
	size_t nvisits, visits_cap;
	uint32_t spans_after, points_after; /* unvisited ones after the last visit */
	local_threads threads;
	uint8_t *seen; /* per local string id: SEEN_* */
	uint32_t seen_cap, seen_used;
	bool visit_all; /* the span-id fault is armed: every span is visited */
	/* the builder's pass, for the fill */
	bool filled_by_builder;       /* the pass built every event itself */
	const uint32_t *local_global; /* the piece's string ids */
	uint64_t index0;              /* the piece's first event index */
	uint32_t span0, point0;       /* the piece's first span id and flow point */
	/* the fill's counts, for the merge */
	uint32_t *thread_spans; /* per local thread */
	uint32_t thread_spans_cap;
	uint64_t group_spans[GT_MAX_GROUPS];
	uint64_t phases[4]; /* X, s, t, f */
	int64_t max_end_ns;
	bool any_end;
} simple_events;

#ifdef GT_FUZZING
/* Set: no event is simple (the fuzzer's reference model). */
extern bool gt_simple_events_off;
#endif

/* Parse side. */
void simple_events_reset(simple_events *se);
void simple_events_free(simple_events *se);
/* Notes every event the piece keeps, the piece's event number at, in
 * order: a simple one (its name_local and cat_local set) is kept, and a
 * visit made of what the builder must see. -1: out of memory. */
int simple_events_note(simple_events *se, const raw_event *ev, uint32_t at);

/* Builder side, in three steps. The pass builds the piece's n events in
 * order (their index from index0, their offsets moved by offset0), with
 * the piece's local names (local_names.h), and gives the simple ones it
 * can a slot. The fill writes those slots: the pieces
 * of a window on any threads at once, while nothing else changes the
 * model. The merge then adds up what the fill counted (in any order). */
int gt_builder_add_piece(gt_builder *b, raw_event *evs, size_t n, simple_events *se, const local_names *names,
			 uint64_t index0, uint64_t offset0, gt_error *err);
/* -1: out of memory (the fill did nothing). */
int simple_events_fill(const gt_builder *b, simple_events *se);
void gt_builder_merge_piece(gt_builder *b, const simple_events *se);

#endif
