/* Simple events, built in bulk. Most events of a GPU trace are complete
 * events ('X') and flow points ('s', 't', 'f') with numeric pid, tid and
 * id, a name and a category, and nothing else the builder must look at: no
 * flow binding, no synchronisation args, no bad value. The parse workers
 * keep the few fields of such an event, with its piece's local name,
 * category and thread ids. The builder then takes the piece's events in
 * file order as before, except that a simple event whose ids the events
 * before it have resolved only takes the next span id or flow point; all
 * of those are filled in afterwards, in one tight loop. The builder thread
 * thus never reads such an event's raw form, which another core wrote (on
 * that thread, that read was most of the cost). Every id, count and order
 * comes out as gt_builder_add alone would give it. */
#ifndef GT_SIMPLE_EVENTS_H
#define GT_SIMPLE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "local_threads.h"
#include "raw_event.h"

typedef struct simple_event {
	int64_t ts_ns, dur_ns;
	int64_t id;                     /* flow points: the id, when has_id */
	uint32_t name_local, cat_local; /* the piece's local_names ids */
	uint32_t thread_local;          /* the piece's local_threads id */
	uint32_t at;                    /* its event's number in the piece */
	uint32_t slot;                  /* the builder's: its span id or flow point, GT_NONE when gt_builder_add built it */
	char ph;                        /* 'X', 's', 't' or 'f' */
	uint8_t has_id, enclosing;      /* flow points: as flow_point's */
} simple_event;

typedef struct simple_events {
	simple_event *v;
	size_t n, cap;
	local_threads threads;
	/* what the builder's pass left for the fill, and the fill's counts */
	size_t passed;                /* records the pass reached */
	const uint32_t *local_global; /* the piece's string ids */
	uint64_t index0;              /* the piece's first event index */
	uint32_t *thread_spans;       /* per local thread: spans filled */
	uint32_t thread_spans_cap;
	uint64_t group_spans[GT_MAX_GROUPS];
	uint64_t phases[4]; /* X, s, t, f */
	int64_t max_end_ns;
	bool any_end;
} simple_events;

/* Parse side. */
void simple_events_reset(simple_events *se);
void simple_events_free(simple_events *se);
/* Keeps ev, the piece's event number at, when it is simple (its name_local
 * and cat_local set). Out of memory, it is left to the builder. */
void simple_events_note(simple_events *se, const raw_event *ev, uint32_t at);

/* Builder side, in three steps. The pass builds the piece's n events in
 * order (their index from index0, their offsets moved by offset0),
 * local_global being the piece's string ids (local_names.h); the simple
 * ones it can, it only gives a slot. The fill writes those slots: the
 * pieces of a window on any threads at once, while nothing else changes
 * the model. The merge then adds up what the fill counted (in any order). */
int gt_builder_add_piece(gt_builder *b, raw_event *evs, size_t n, simple_events *se, uint32_t *local_global,
			 uint64_t index0, uint64_t offset0, gt_error *err);
/* -1: out of memory (the fill did nothing). */
int simple_events_fill(const gt_builder *b, simple_events *se);
void gt_builder_merge_piece(gt_builder *b, const simple_events *se);

#endif
