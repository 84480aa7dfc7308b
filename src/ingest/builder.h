/* Builds the span model from raw events, in file order. */
#ifndef GT_MODEL_BUILD_H
#define GT_MODEL_BUILD_H

#include "keymap.h"
#include "model/model.h"
#include "raw_event.h"

typedef struct u32vec {
	uint32_t *v;
	uint32_t n, cap;
} u32vec;

/* A flow v1 endpoint (s, t or f), bound to a span once all spans exist. */
typedef struct flow_point {
	gt_key key;         /* (cat, id) */
	uint32_t track;
	uint32_t seq;       /* order in the file, for stable sorting */
	uint32_t name;
	int64_t ts_ns;
	char ph;            /* 's', 't' or 'f' */
	uint8_t enclosing;  /* bind to the enclosing slice (else the next one) */
} flow_point;

/* A flow v2 endpoint: a span with bind_id and flow_in/flow_out. */
typedef struct flow_bind {
	gt_key key;
	uint32_t span;
	uint8_t out;
} flow_bind;

/* A recently used thread track with numeric pid and tid: events come in
 * runs from a few threads, and this spares two key-map lookups. */
typedef struct thread_memo {
	int64_t pid, tid;
	uint32_t track; /* GT_NONE: empty */
} thread_memo;
#define THREAD_MEMOS 4

typedef struct gt_builder {
	gt_model *m;
	uint32_t *local_global; /* the events' piece: local id -> string id (GT_NONE: not yet); NULL: none */
	gt_keymap processes, threads, asyncs, series;
	u32vec *open;  /* per track: stack of open span ids (B, b, S) */
	u32vec unfinished; /* X spans without dur, in id order: they end with the trace */
	uint32_t open_cap;
	uint32_t spans_cap, tracks_cap, procs_cap, flows_cap, series_cap, syncs_cap;
	uint64_t samples_cap;
	uint8_t *cat_group; /* string id -> group + 1 (0: none yet) */
	uint32_t cat_group_cap;
	flow_point *points;
	uint32_t npoints, points_cap;
	uint32_t *point_order; /* finish's: the points in link order (NULL: as they lie) */
	flow_bind *binds;
	uint32_t nbinds, binds_cap;
	char *scratch;
	size_t scratch_cap;
	int64_t max_end_ns;
	bool any_ts;
	const char *path;
	thread_memo memo[THREAD_MEMOS];
	unsigned memo_next; /* the entry to replace next */
	unsigned finish_threads; /* finish may use this many threads (0: one) */
	/* called before the span or flow point table moves (ingest.c: nothing
	 * may be faulting their pages in meanwhile) */
	void (*before_tables_move)(void *ctx);
	void *tables_ctx;
	/* GPUTRACE_INGEST_TIMES: finish's stages, ns (when timed) */
	bool timed;
	uint64_t t_tracks, t_flows, t_lanes, t_parents;
	uint64_t t_group, t_nest, t_points; /* within t_tracks: the points sorted beside */
} gt_builder;

int gt_builder_init(gt_builder *b, gt_model *m, const char *path, gt_error *err);
/* Adds one event; on error err names the file, offset and event index. */
int gt_builder_add(gt_builder *b, const raw_event *ev, gt_error *err);
/* Closes what is open, binds flows, computes parents, lanes and groups. */
int gt_builder_finish(gt_builder *b, int parent_mode, gt_error *err);
void gt_builder_free(gt_builder *b);

struct gt_resume;
/* Copies what gt_builder_finish consumes or cannot give back (flow
 * endpoints in file order, async key parts, scalars) into rs. */
int gt_builder_capture(const gt_builder *b, struct gt_resume *rs);
/* Sets b up over m, a finished model restored from an index file, as it was
 * before gt_builder_finish: reopens its unclosed spans, rebuilds key maps
 * and category groups, restores flow endpoints from rs. */
int gt_builder_restore(gt_builder *b, gt_model *m, const struct gt_resume *rs, const char *path, gt_error *err);

/* sync_args.c: keeps what span's args say about stream-event
 * synchronisation when it is one of the spans gt_sync names (model.h). */
int gt_builder_note_sync(gt_builder *b, const raw_event *ev, uint32_t span, gt_error *err);

/* Exposed for simple_events.c: the error of ev's event; the trace's end is
 * at least t; room for so many spans and flow points in all (-1: out of
 * memory). */
int gt_builder_fail(gt_builder *b, gt_error *err, const raw_event *ev, const char *msg);
void gt_builder_note_end(gt_builder *b, int64_t t);
int gt_builder_reserve(gt_builder *b, uint64_t spans, uint64_t points);
/* The render group of category string cat, made when new; 0xff out of
 * memory (with the error at ev). */
uint8_t gt_builder_group_of(gt_builder *b, uint32_t cat, gt_error *err, const raw_event *ev);
/* The thread track of numeric (pid, tid), or GT_NONE when there is none yet. */
uint32_t gt_builder_find_thread(const gt_builder *b, int64_t pid, int64_t tid);

/* Exposed for model_finish.c */
uint32_t gt_builder_intern(gt_builder *b, const jl_slice *s, gt_error *err, const raw_event *ev);
int gt_u32vec_push(u32vec *v, uint32_t x);

#endif
