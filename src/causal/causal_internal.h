/* Shared between the causal analysis' files (not a public header):
 *   causal_ranges.c  passes over all spans or flows on threads
 *   causal_span_class.c  taking part, device spans and tracks, waits
 *   causal_window.c  windows and membership
 *   causal_previous.c  the previous device span on each device track
 *   causal_wait.c    the wait edges of a window
 *   causal_wait_ordered.c  the same where no two waits of a process overlap
 *   causal_stream_wait.c   the inferred stream waits of a window
 *   causal_recorded.c the recorded stream waits and event syncs
 *   causal_class.c   the hops' classes (the path in the words of GPU work)
 *   causal_handoff.c  hand-offs between a process's host threads
 *   causal_graph.c   one window's points and cross edges
 *   causal_chain.c   ... and its chains
 *   causal_union.c   several windows' graphs as one for the graph steps
 *   causal_path.c    the path step on the host, as the result needs it
 *   causal_result.c  hops, breakdown and rows from the graph steps' output
 *   causal.c         the driver */
#ifndef GT_CAUSAL_INTERNAL_H
#define GT_CAUSAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "causal.h"
#include "base/base.h"

static inline int64_t causal_end(const gt_span *s)
{
	return s->ts_ns + s->dur_ns;
}

/* The process a span's track belongs to. */
static inline uint32_t causal_process_of(const gt_model *m, uint32_t span)
{
	return m->tracks[m->spans[span].track].process;
}

/* A per string id answer kept for threads that ask it: 0 not asked yet,
 * 1 no, 2 yes. Two threads may ask at once: both give the same answer. */
static inline uint8_t causal_memo_get(const uint8_t *memo, uint32_t id)
{
	return __atomic_load_n(&memo[id], __ATOMIC_RELAXED);
}

static inline uint8_t causal_memo_set(uint8_t *memo, uint32_t id, bool yes)
{
	__atomic_store_n(&memo[id], yes ? 2 : 1, __ATOMIC_RELAXED);
	return yes ? 2 : 1;
}

/* *p = min(*p, v), or max, for an integer of any width: threads may meet
 * at one p. A statement. */
#define causal_atomic_min(p, v) CAUSAL_ATOMIC_TOWARD(p, v, <)
#define causal_atomic_max(p, v) CAUSAL_ATOMIC_TOWARD(p, v, >)
#define CAUSAL_ATOMIC_TOWARD(p, v, better)                                                                    \
	do {                                                                                                  \
		__typeof__(*(p)) *at_ = (p), v_ = (v), cur_ = __atomic_load_n(at_, __ATOMIC_RELAXED);         \
		while (v_ better cur_ &&                                                                      \
		       !__atomic_compare_exchange_n(at_, &cur_, v_, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
			;                                                                                     \
	} while (0)

/* --- causal_ranges.c ------------------------------------------------- */

/* Items a thread takes at least in the passes below. */
uint32_t causal_range_min(void);
/* The same for items that each cost many spans' work (a string's match, a
 * bucket's sums over jobs, a step's window): a sixteenth, at least one. */
uint32_t causal_range_min_small(void);
/* Threads from which a memory-bound pass that one thread does in one go
 * (the binding's sweep, the chains' counting) is split: on two cores the
 * split's extra pass costs what the second thread gains. */
#define CAUSAL_SPLIT_THREADS 3
/* GPUTRACE_CAUSAL_BATCH: points a batch of windows holds at most, for
 * tests (many small batches from a small trace); 0 where it is not set. */
uint64_t causal_batch_points(void);
/* Threads for a pass over n items: at most threads, each range at least
 * causal_range_min() long, at least one. */
unsigned causal_range_jobs(uint64_t n, unsigned threads);
/* The i in [0, n) with keep(ctx, i), in order (*out: gt_big_malloc'd),
 * asked once each on threads; -1 out of memory. */
int causal_select(uint32_t n, unsigned threads, bool (*keep)(void *ctx, uint32_t i), void *ctx, uint32_t **out,
		  uint32_t *count);
/* One range of classify's pass: its device spans taking part, by id, and
 * their tracks (the previous spans' input: causal_previous.c buckets them by track). */
typedef struct causal_device_part {
	uint64_t from; /* the range's first span */
	uint32_t *ids, *tracks;
	uint32_t n;
} causal_device_part;

/* Counting sort of 0..n-1 by key[i] (GT_NONE: left out) into buckets:
 * bucket b's items, in order, are items[first[b] .. first[b + 1]); both
 * gt_big_malloc'd; -1 out of memory. */
int causal_bucket(uint32_t n, const uint32_t *key, uint32_t buckets, unsigned threads, uint32_t **first,
		  uint32_t **items);
/* The same over k parts in order (at most GT_MAX_JOBS): each part's ids by
 * its tracks. */
int causal_bucket_parts(const causal_device_part *parts, unsigned k, uint32_t buckets, unsigned threads,
			uint32_t **first, uint32_t **items);

/* --- causal_window.c ------------------------------------------------- */

enum {
	CAUSAL_TAKES_PART = 1,
	CAUSAL_DEVICE = 2, /* a device span (taking part or not) */
	CAUSAL_WAIT = 4,   /* its name matches the blocking-wait pattern */
	CAUSAL_BACKWARD = 8, /* opt->handoffs: backward work (causal_handoff.c) */
	CAUSAL_RECORDED = 16, /* held by a recorded wait (causal_recorded.c) */
};

/* What every window reads: facts about the whole trace. */
typedef struct causal_trace {
	const gt_model *m;
	uint8_t *span_class;    /* per span: CAUSAL_* bits */
	uint8_t *track_device;  /* per track: 1 when it holds a device span */
	int64_t *departure;     /* per flow: its departure, clamped into a bound source */
	uint64_t *place_at;     /* per span taking part, from the classes to the placing
	                         * where windows are searched (else NULL): where its
	                         * window is found, causal_place_key's */
	uint32_t *window_of;    /* per span: its window, GT_NONE (NULL once a trace's only
	                         * window has kept its queues: causal_keep_queues) */
	uint32_t *local_of;     /* per span: its index in its window's graph, on a trace
	                         * of one window (else NULL: causal_local_of; scratch,
	                         * NULL after the cross edges, unless the rows read it) */
	uint32_t *prev_device;  /* per device span taking part (the others' unset): the previous of its track, or NULL */
	uint32_t *queue_behind; /* per flow: causal_keep_queues', or NULL */
	uint32_t window_count;
	gt_causal_window *windows; /* bounds and step_span set */
	uint32_t *opening;      /* --step: the spans that open a step, by id (classify's;
	                         * the windows free it) */
	uint32_t openings;
	causal_device_part *device_parts; /* where the previous spans are asked: the ranges',
	                                   * in any order (causal_previous.c frees them) */
	uint32_t device_part_count;
	uint32_t *span_first;   /* window_count + 1 offsets into spans_by_window */
	uint32_t *spans_by_window; /* member spans, window after window, by id */
	uint32_t *flow_first;   /* window_count + 1 offsets into flows_by_window */
	uint32_t *flows_by_window; /* the flows each window judges, by index */
	uint64_t device_track_spans_left_out;
	uint64_t wrapper_spans_left_out;
	uint64_t spans_taking_part;
	/* jobs: collective edges B(coll_src[i]) -> E(coll_dst[i]), global spans,
	 * by the dst's window (coll_first: window_count + 1 offsets) */
	uint32_t *coll_src, *coll_dst, *coll_first;
	uint64_t coll_count;
	/* a job's --step: windows by step name; each rank's step spans, by id,
	 * and the window of each (spans of a rank go to its own steps only) */
	uint32_t *steps, *step_window;
	uint32_t step_count;
	int64_t stream_wait_slack; /* opt->stream_wait_slack_ns; 0: none inferred */
	bool handoffs;             /* opt->handoffs */
	bool rows;                 /* opt->rows: the results read local_of */
	/* recorded waits: E(rec_src[i]) -> B(rec_dst[i]) (rec_kind 0) or
	 * E(rec_dst[i]) (1, an event sync), global spans, by the dst's window
	 * (rec_first: window_count + 1 offsets; NULL without markers) */
	uint32_t *rec_src, *rec_dst, *rec_first;
	uint8_t *rec_kind;
	gt_causal_sync_counts syncs;
	uint8_t *str_class;     /* per string id: CAUSAL_STR_* bits, for the hops' classes */
	const char *collective_name; /* opt->collective_name */
	struct causal_span_fields *fields; /* NULL, or the copy below */
} causal_trace;

enum {
	CAUSAL_STR_COMM = 1,       /* a name of communication */
	CAUSAL_STR_MEMCPY = 2,     /* categories */
	CAUSAL_STR_MEMSET = 4,
	CAUSAL_STR_RUNTIME = 8,
	CAUSAL_STR_ANNOTATION = 16,
};

static inline bool causal_takes_part(const causal_trace *t, uint32_t span)
{
	return span != GT_NONE && (t->span_class[span] & CAUSAL_TAKES_PART);
}

/* --- causal_span_fields.c -------------------------------------------
 * A whole trace's span table, where it is an index's mapping, is read
 * through by the graph's points and then, by the results, only where the
 * path goes: a million hops over two million spans fault most of its
 * pages back in. So the fields the results read are copied (12 bytes a
 * span instead of the table's 48), and the table's pages are given back
 * once the points are made. */
typedef struct causal_span_fields {
	uint32_t name, cat, track;
} causal_span_fields;

/* Room for t->fields (filled as the points are made), where the analysis
 * has one window, no rows (they read every span) and a span table the
 * model borrows from its index; else, or out of memory (the table then
 * stays resident), t->fields stays NULL. */
void causal_span_fields_init(causal_trace *t, const gt_causal_options *opt);
/* Where t->fields has room: the fields of spans [lo, hi) copied into it
 * and the pages wholly inside their table given back, as the graph's
 * points are made (ranges on threads, together every span once); then,
 * the points made, the pages left at the ranges' edges. */
void causal_release_span_range(const causal_trace *t, uint32_t lo, uint32_t hi);
void causal_release_spans(const causal_trace *t);

static inline uint32_t causal_span_name(const causal_trace *t, uint32_t span)
{
	return t->fields ? t->fields[span].name : t->m->spans[span].name;
}

static inline uint32_t causal_span_cat(const causal_trace *t, uint32_t span)
{
	return t->fields ? t->fields[span].cat : t->m->spans[span].cat;
}

static inline uint32_t causal_span_track(const causal_trace *t, uint32_t span)
{
	return t->fields ? t->fields[span].track : t->m->spans[span].track;
}

/* causal_span_class.c: span_class, track_device, the counts of what
 * takes part and what is left out, and (opt->step_glob without a window)
 * the spans that open a step. */
int causal_classify_spans(causal_trace *t, const gt_causal_options *opt, unsigned threads, gt_error *err);
int causal_trace_init(causal_trace *t, const gt_model *m, const gt_causal_options *opt, gt_error *err);
/* Only the spans' classes, the windows and each span's window: what the
 * summaries per step need (gt_causal_step_windows). */
int causal_trace_windows(causal_trace *t, const gt_model *m, const gt_causal_options *opt, gt_error *err);
/* Frees what only the windows' graphs read (the flows' departures, the
 * windows' members, the collective and recorded edges):
 * once the last graph is built, before the graph steps' arrays. */
void causal_trace_drop_graph_inputs(causal_trace *t);
/* Where a window is the trace's only one, its graph frees these as it
 * reads them last: the windows' members and the collective and recorded
 * edges once its spans are chosen; then, its cross edges made, the flows'
 * departures and local_of (kept for the rows). (The flow table's resident
 * pages go earlier, once its edges are found: causal_graph_build.) */
void causal_trace_drop_members(causal_trace *t);
void causal_trace_drop_edge_inputs(causal_trace *t);
void causal_trace_free(causal_trace *t);
/* The rank of span i in a job (ranks own consecutive ranges of spans). */
uint32_t causal_rank_of_span(const gt_model *m, uint32_t i);

/* --- causal_previous.c ---------------------------------------------- */

/* Whether the previous device spans are asked: where there are windows
 * (the whole trace has nothing outside it to queue behind) or stream
 * waits (always). */
static inline bool causal_wants_previous(const causal_trace *t, const gt_causal_options *opt)
{
	return opt->has_window || opt->step_glob || t->stream_wait_slack;
}

/* Where windows are searched for each span's (else the trace is one). */
static inline bool causal_wants_place_at(const gt_causal_options *opt)
{
	return opt->has_window || opt->step_glob;
}

/* A span's window is found at the earliest departure of a flow that
 * places it, else at its start: both as offsets from the trace's start,
 * a start's with the top bit, so that an atomic minimum over its flows'
 * keys leaves the departure wherever one placed it. false where the time
 * lies outside [start, start + 2^63). */
#define CAUSAL_PLACE_START (1ull << 63)
static inline bool causal_place_key(const gt_model *m, int64_t ns, uint64_t *key)
{
	*key = (uint64_t)ns - (uint64_t)m->start_ns;
	return ns >= m->start_ns && *key < CAUSAL_PLACE_START;
}

/* Frees the device parts (classify's) left. */
void causal_device_parts_free(causal_trace *t);

/* t->prev_device: the previous device span of each device span on its
 * track, in track order (start, longer first, id); -1 with err. */
int causal_previous_device_spans(causal_trace *t, unsigned threads, gt_error *err);
/* Where a window is the trace's only one, once its edges are found (their
 * stream waits, recorded and collective edges and flows read prev_device
 * and window_of last): what each flow's target queued behind
 * (t->queue_behind), the only use of them left, for the results; they go.
 * Out of memory, they stay. */
void causal_keep_queues(causal_trace *t, unsigned threads);

/* The span of another window that flow's target queued behind on its
 * device track (the stream busy past the launch), or GT_NONE: from
 * prev_device and window_of while they are there. */
static inline uint32_t causal_queue_of(const causal_trace *t, uint32_t flow)
{
	uint32_t dst = t->m->flows[flow].dst;
	bool device = t->prev_device && dst != GT_NONE && (t->span_class[dst] & CAUSAL_DEVICE);
	uint32_t prev = device ? t->prev_device[dst] : GT_NONE; /* only a device span's is set */
	return prev != GT_NONE && t->window_of[prev] != t->window_of[dst] ? prev : GT_NONE;
}

/* The same, kept per flow where they have gone. */
static inline uint32_t causal_queued_behind(const causal_trace *t, uint32_t flow)
{
	return t->queue_behind ? t->queue_behind[flow] : causal_queue_of(t, flow);
}

/* --- causal_collective.c --------------------------------------------- */

/* A job's collective edges (coll_*), windows placed. */
int causal_collective_edges(causal_trace *t, gt_error *err);

/* --- causal_class.c -------------------------------------------------- */

/* The strings' class bits (t->str_class); -1 with err. */
int causal_classify_strings(causal_trace *t, const gt_causal_options *opt, unsigned threads, gt_error *err);
/* Each of n hops: its class (hop.cls), its time added to class_ns. */
void causal_hop_classes(const causal_trace *t, gt_causal_hop *hops, uint32_t n, int64_t *class_ns);

/* --- causal_recorded.c ----------------------------------------------- */

/* The recorded waits of the trace (rec_*, syncs), windows placed. */
int causal_recorded_waits(causal_trace *t, gt_error *err);

/* --- causal_wait.c --------------------------------------------------- */

/* For each wait span waits[i] (global ids), the device span it waits for
 * (GT_NONE when none) among the targets of the flows cand[0..nc) (global
 * flow indices, each with a device target and a source taking part); the
 * common case's candidates in ranges on up to `threads` threads. */
int causal_wait_targets(const causal_trace *t, const uint32_t *cand, uint32_t nc, const uint32_t *waits,
			uint32_t nw, unsigned threads, uint32_t *target, gt_error *err);

/* --- causal_wait_ordered.c ------------------------------------------- */

/* The same where in every process the waits by begin end in order too
 * (the common case, without sorting the candidates): 0, -1 with err, or 1
 * where that does not hold (nothing written). */
int causal_wait_targets_ordered(const causal_trace *t, const uint32_t *cand, uint32_t nc, const uint32_t *waits,
				uint32_t nw, unsigned threads, uint32_t *target, gt_error *err);

/* --- causal_stream_wait.c ------------------------------------------- */

/* The inferred stream waits of window w (causal.h): E(k[i]) -> B(d[i]),
 * global spans, *n of them, by d's id; both arrays are the caller's to
 * free (gt_big_free). flows: the window's kept flows that are not
 * backward (its flow edges), which tell when each launch arrived. */
int causal_stream_waits(const causal_trace *t, uint32_t w, const uint32_t *flows, uint32_t nflows, unsigned threads,
			uint32_t **k, uint32_t **d, uint32_t *n, gt_error *err);

/* --- causal_graph.c -------------------------------------------------- */

/* One window's dependency graph. Local spans are the window's graph spans
 * by id; span l's points are first_point[l] (B), its departure points, and
 * first_point[l + 1] - 1 (E). */
typedef struct causal_graph {
	uint32_t nspans;
	uint32_t *span;         /* local -> global span id */
	uint32_t *local_slot;   /* global span id -> local: (id, local) pairs, open
	                         * addressing (causal_local_of); NULL where the
	                         * trace has local_of */
	unsigned local_shift;   /* the slots are 2^(32 - local_shift) */
	uint32_t *first_point;  /* nspans + 1 */
	uint32_t n;             /* points */
	int64_t *time;          /* n, absolute */
	uint32_t *point_span;   /* n: local span (causal_point_spans; NULL from the
	                         * points until the chains, and on a trace's only
	                         * window from the hand-offs until the results) */
	uint32_t tracks;
	uint32_t *track;        /* local -> global track */
	uint32_t *chain;        /* n point ids, track after track */
	uint32_t *chain_start;  /* tracks + 1 */
	uint8_t *work;          /* n, by chain position */
	uint32_t *owner_in;     /* n, by point: the owner (local span) of the gap from its chain
	                         * predecessor, GT_NONE when idle or first */
	uint32_t m;             /* cross edges */
	uint32_t *edge_src, *edge_dst;
	uint8_t *edge_kind;
	uint32_t *edge_ref;     /* flow edges: the flow; wait edges: W (global span); stream
	                         * waits: d */
	uint32_t first_stream_wait; /* edges from here on are stream waits (recorded, */
	uint32_t first_inferred;    /* then inferred from here), */
	uint32_t first_handoff;     /* and from here on hand-offs (ref: the handing span) */
	int64_t first_time, last_time;
} causal_graph;

static inline uint32_t causal_graph_e(const causal_graph *g, uint32_t local)
{
	return g->first_point[local + 1] - 1;
}

/* The first slot of span s in a graph's table of 2^(32 - shift) slots. */
static inline uint32_t causal_local_hash(uint32_t s, unsigned shift)
{
	return (uint32_t)(s * 0x9E3779B1u) >> shift;
}

/* Span s's index in its window's graph g (a span g keeps; GT_NONE for
 * another): the trace's array where it has one (few large windows), else
 * the graph's own table. Per step an array by span (4 bytes a span) was
 * held through every window's build for a few lookups each. */
static inline uint32_t causal_local_of(const causal_trace *t, const causal_graph *g, uint32_t s)
{
	if (t->local_of)
		return t->local_of[s];
	uint32_t mask = UINT32_MAX >> g->local_shift;
	for (uint32_t h = causal_local_hash(s, g->local_shift);; h = (h + 1) & mask) {
		const uint32_t *slot = &g->local_slot[2 * (size_t)h];
		if (slot[0] == s || slot[0] == GT_NONE)
			return slot[0] == s ? slot[1] : GT_NONE;
	}
}

/* causal_chain.c: the chains (chain, chain_start, work, owner_in) of a
 * graph whose points are made, (*local_track)[l] the local track of span
 * l: freed, and NULL, once read (before the chains' scratch comes). */
int causal_make_chains(causal_graph *g, uint32_t **local_track, unsigned threads, gt_error *err);

/* Builds window w's graph and fills its counters (w->points ... flags).
 * alone: the trace, where w is its only window (what only the graph
 * reads is dropped from it as the build goes), else NULL. */
int causal_graph_build(const causal_trace *t, uint32_t w, unsigned threads, causal_trace *alone,
		       causal_graph *g, gt_causal_window *win, gt_error *err);
void causal_graph_free(causal_graph *g);
/* g->point_span from first_point, where it is NULL; -1 (err) out of memory. */
int causal_point_spans(causal_graph *g, unsigned threads, gt_error *err);

/* --- causal_handoff.c ----------------------------------------------- */

/* Backward work (CAUSAL_BACKWARD) is a span taking part named
 * autograd::engine::... (marked as the spans are classified, where
 * opt->handoffs), or a fwdbwd flow's target: causal_mark_backward marks
 * those, once, before the windows' graphs; -1 out of memory. */
bool causal_backward_name(const char *s);
int causal_mark_backward(causal_trace *t, unsigned threads);
/* The hand-off edges of a window: points src[i] -> dst[i], ref[i] the
 * handing span (global); free with causal_handoffs_free. */
typedef struct causal_handoff_edges {
	uint32_t *src, *dst, *ref;
	uint32_t n, cap;
} causal_handoff_edges;
void causal_handoffs_free(causal_handoff_edges *h);
/* Finds the hand-off edges (causal.h) of the window of g, whose points
 * and chains are made, into h (empty when t->handoffs is off); pairs of
 * tracks, in pieces, on up to `threads` threads. Makes g->point_span
 * where a track holds backward work (only then are they read). */
int causal_handoffs(const causal_trace *t, causal_graph *g, unsigned threads, causal_handoff_edges *h,
		    gt_error *err);

/* --- causal_union.c -------------------------------------------------- */

/* Windows' graphs as one disjoint union, so that each graph step is one
 * engine call however many windows there are: point ids (and so chain
 * positions), tracks and cross edges offset by the windows before, each
 * chain's T its window's last time. One graph is used as it is. */
typedef struct causal_union {
	gt_cpm_graph cpm;
	uint32_t count;
	uint32_t *point_base; /* count + 1: window i's points start here */
	uint32_t *edge_base;  /* count + 1: and its cross edges here */
	int64_t *time, *horizon; /* owned (count > 1) */
	uint32_t *chain, *chain_start, *edge_src, *edge_dst;
	uint8_t *work, *edge_kind;
} causal_union;

int causal_union_build(causal_union *u, const causal_graph *g, uint32_t count, gt_error *err);
void causal_union_free(causal_union *u);
/* Frees what only the binding and the float read, the union's and its
 * graphs': the chains, their work flags and the cross edges' ends. For a
 * bound union that no float follows: the path's results read the times,
 * the points' spans and owners, and the edges' kinds and references
 * (a whole trace's chains and edges are 14 bytes a span). */
void causal_union_drop_bound(causal_union *u, causal_graph *g, uint32_t count);

/* --- causal_path.c --------------------------------------------------- */

/* path_duration of every point of a binding (forest.h's, where every gap
 * is time[v] - time[parent]), on up to `threads` threads; 1 where it holds
 * a cycle, -1 out of memory. */
int causal_path_host(const uint32_t *parent, const int64_t *time, uint32_t n, unsigned threads,
		     int64_t *path_duration);
/* The same on an OpenCL device (causal_path_cl.c), byte for byte: 1 where
 * the binding holds a cycle (path_duration untouched), -1 with err. */
int causal_path_cl(gt_cl *cl, const uint32_t *parent, const int64_t *time, uint32_t n, int64_t *path_duration,
		   gt_cpm_cl_stats *stats, gt_error *err);
/* gt_cpm_bind_cl and then causal_path_cl in one device run: the parents
 * and times stay on the device between them, and the gaps are not read
 * back (out->gap may be NULL). 1 where the binding holds a cycle (out
 * filled, path_duration untouched). For the driver's graphs: only their
 * ranges are checked (gt_cpm_check_range), as on the host. */
int causal_bind_path_cl(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, int64_t **path_duration,
			const gt_cpm_read_hook *read, gt_cpm_cl_stats *stats, gt_error *err);

/* What the graph steps gave: for the union, and as a window's view of it.
 * Of the rows only path_duration is read (the others may be NULL). */
typedef struct causal_steps {
	gt_cpm_binding bind;
	gt_cp_rows rows;
	gt_cp_summary sum;
	int64_t *lt;
	uint32_t point_base, edge_base; /* a view: the ids bind.parent and bind.edge
	                                 * hold are the window's plus these */
} causal_steps;

/* Window i's view of the union's steps (s: the union's); with_summary:
 * and the summary forest.h gives for the window alone (its rows read on
 * up to threads threads). */
int causal_union_view(const causal_union *u, const causal_steps *s, uint32_t i, bool with_summary,
		      unsigned threads, causal_steps *view, gt_error *err);

/* --- causal_result.c ------------------------------------------------- */

/* Fills the window's path, hops and breakdown (from the binding and the
 * path: s->lt is not read), then (opt->rows) its rows (after the float). */
int causal_result_path(const causal_trace *t, const causal_graph *g, const causal_steps *s,
		       const gt_causal_options *opt, unsigned threads, gt_causal_window *win, gt_error *err);
int causal_result_rows(const causal_trace *t, const causal_graph *g, const causal_steps *s,
		       gt_causal_window *win, gt_error *err);
/* Drops what the two filled in, so that the window can be filled again. */
void causal_result_undo(gt_causal_window *win);

#endif
