/* causal/: the causal critical path: what bounds a window's wall time.
 * Host reference: causal*.c, with the graph steps of cpm.h (cpm.c); device
 * half: causal_cl.c and cpm_cl.c with kernels/cpm.cl, and forest/'s walk.
 *
 * The model (the contract; man/gputrace.1 says the same):
 *
 * Taking part: spans of kind X and B/E on thread tracks (not instants, async
 * spans or counters). Device spans: category, case-insensitive, one of
 * kernel, gpu_memcpy, gpu_memset, memcpy, memset. On a device track (a
 * thread track holding a device span) only device spans take part; the
 * others are counted (device_track_spans_left_out). The profiler's own
 * wrapper does not take part either and is counted
 * (wrapper_spans_left_out): a span of category Trace (any case), the only
 * span of its thread track, holding every other span taking part of its
 * rank (Kineto's "PyTorch Profiler (N)"): it marks when tracing ran.
 *
 * Points: B(s) at ts, E(s) at ts + dur, and departure points (flows). Point
 * ids are dense per window: by span id; within a span B, then its
 * departure points by time, then E.
 *
 * Edges u -> v with gap t(v) - t(u):
 *  chain  on each track its points in time order, equal times in the order
 *         of a depth-first walk of the track's nesting forest (B(p), the
 *         children's points, E(p)); consecutive points joined. The gap is
 *         work of the latest-started span open across it (its owner), or
 *         idle when none is open.
 *  flow   each bound flow from its departure to B(target). A v1 flow departs
 *         at its start event's ts clamped into [B(src), E(src)], a v2
 *         flow_out at E(src). A departure strictly inside the source span
 *         becomes a departure point (one per distinct time per span). Flows
 *         from a span to itself, or whose source or target does not take
 *         part in the window, are left out and counted.
 *  wait   a span W whose name matches the blocking-wait pattern (or a
 *         --wait-name) gets E(k) -> E(W), k the device span, among the
 *         targets of flows whose source span is in W's process and departs
 *         at or before B(W), with the latest end <= E(W) (ties: lowest id).
 *  collective  in a job read from several files (m->rank_count > 1), each
 *         collective matched across the ranks (collective.h) gives
 *         B(k_j) -> E(k_r) for every two of its kernels on ranks j != r:
 *         it cannot end before its last rank entered. Both kernels must be
 *         in the window. They are wait edges (binding, float and waits as
 *         for them; the hop is a wait of k_r), counted as collective_edges.
 *  stream wait (inferred; opt->stream_wait_slack_ns > 0, the CLI's
 *         --stream-wait-slack) a device span d is ready at the later of the
 *         latest departure of its launch flows (edges of the window) and the
 *         end of the previous device span of its track (in track order);
 *         with neither it is not judged, nor is a span with a recorded
 *         wait. Started after it was ready, it was
 *         held: when a device span k of the window, on another device track
 *         of d's process (a GPU: one process per device), ended after d was
 *         ready, at or before B(d) and at most the slack before it, the one
 *         with the latest end (ties: lowest id) gives E(k) -> B(d): the
 *         stream waited for k (cudaStreamWaitEvent, a collective on another
 *         stream). A wait edge for binding and float; its hop is of kind
 *         stream_wait, owned by d; counted as inferred_stream_waits.
 *  recorded stream wait (opt->recorded_waits, the CLI's default) from
 *         Kineto's cuda_sync markers (model.h's gt_sync, by rank): a marker
 *         names its cudaEventRecord call R (wait_on_cuda_event_record_corr_id)
 *         and R's stream S (wait_on_stream, a thread of the marker's
 *         process). The event stands for k, the device span on S whose
 *         launch (the earliest start of a host span with a flow into it) is
 *         the latest strictly before B(R). A "Stream Wait Event" marker on
 *         stream T gives E(k) -> B(d), d the device span on T with the
 *         earliest launch strictly after the start of its cudaStreamWaitEvent
 *         call (by the marker's correlation; the marker's own start without
 *         one): a wait edge of kind stream_wait keyed recorded, owned by d,
 *         counted as recorded_stream_waits, and d is not judged by the
 *         inferred rule. An "Event Sync" marker gives E(k) -> E(W), W its
 *         cudaEventSynchronize call (by correlation): a wait edge (kind
 *         wait, owned by W) that replaces the blocking-wait rule's guess for
 *         W, counted as recorded_event_syncs. Both spans must take part in
 *         the window. A marker that cannot be followed is counted by why
 *         (gt_causal_sync_counts), with its first spans as examples.
 *  handoff (opt->handoffs, the CLI's default) a gap of a host track's chain
 *         u -> v that is work of a span H (its self time), during which
 *         another host track of H's process begins backward work (a span
 *         named autograd::engine::..., or a target of a fwdbwd flow of the
 *         window: PyTorch's main thread in `## backward ##` while its
 *         autograd thread runs the backward ops): u -> the first B of that
 *         track strictly inside the gap, and the last E inside it of a span
 *         that began inside it -> v. Wait edges for binding and float; their
 *         hops are of kind handoff, owned by H; counted as handoff_edges.
 *         Both tracks must be in the window's graph.
 * An edge with a negative gap is dropped and counted (backward_edges).
 *
 * Isolated tracks: where a window has any flow or wait edge, tracks with
 * none are left out (isolated_tracks); else every track is kept and the
 * window is flagged no_dependencies.
 *
 * Binding, path and float: cpm.h binds every point to its critical
 * predecessor; forest.h walks that forest (path_duration = the sum of the
 * gaps to the root; endpoint: the largest, ties the lowest point id); cpm.h
 * gives the latest times, float(v) = LT(v) - t(v), a span's float its E's.
 *
 * Queue: a flow hop on the path whose target's previous span on its device
 * track lies outside the window and ends after the departure is split at
 * that end: the part before is kind queue (keyed by the track).
 *
 * Waits: a point bound by a flow or wait edge waited t(source) - t(its
 * chain predecessor) when positive; its span waited that long, the source
 * point's span caused it.
 *
 * Windows: --window A:B (relative to the trace's first span) or --step GLOB
 * (each span, on a track that is not a device track, whose name matches:
 * one window [B, E], in span order; in a job of several ranks, one window
 * per matching name, in order of first appearance, over the union of every
 * rank's spans of that name: from the first rank's B to the last one's E,
 * each rank's spans placed by its own steps only, so that collective edges
 * stay inside the window and the path can cross into the rank that held
 * the step back; a rank without the step is counted, ranks_missing). A flow target belongs to the window its
 * flow departs in, and to no other; every other span to the window its B
 * lies in. Without either, the window is the whole trace. */
#ifndef GT_CAUSAL_H
#define GT_CAUSAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "cl/cl.h"
#include "cpm.h"
#include "forest/forest.h"
#include "model/model.h"

/* Hop and breakdown kinds. */
enum gt_causal_kind {
	GT_CAUSAL_WORK = 0,
	GT_CAUSAL_IDLE,
	GT_CAUSAL_FLOW,
	GT_CAUSAL_QUEUE,
	GT_CAUSAL_WAIT,
	GT_CAUSAL_STREAM_WAIT, /* a recorded or inferred stream wait: E(k) -> B(d) */
	GT_CAUSAL_HANDOFF,     /* between a process's host threads (backward) */
	GT_CAUSAL_KIND_COUNT
};
extern const char *const gt_causal_kind_names[GT_CAUSAL_KIND_COUNT]; /* "work", ... */

/* The path in the words of GPU work: every hop has one class, and the
 * classes of a window sum to its path_duration_ns.
 *   work of a device span: gpu_communication (its name contains nccl, rccl
 *     or hccl, any case, or matches opt->collective_name), else gpu_memcpy
 *     or gpu_memset (category containing memcpy / memset), else gpu_compute;
 *   work of a host span: cpu_runtime (category containing runtime or
 *     driver: launches, syncs, allocation), cpu_annotation (step self time:
 *     a category containing annotation, or starting with python), else
 *     cpu_operator;
 *   flow to a device span: launch (the launch latency); queue: queue;
 *   wait whose source is a device span and whose W is a host span:
 *     cpu_waits_gpu (a blocking sync); other waits, flows between host
 *     spans, stream waits and hand-offs: sync_wait;
 *   idle on a device track: gpu_idle (the GPU waited for the CPU); idle on
 *     a host track: idle (no side). */
enum gt_causal_class {
	GT_CLASS_GPU_COMPUTE = 0,
	GT_CLASS_GPU_COMMUNICATION,
	GT_CLASS_GPU_MEMCPY,
	GT_CLASS_GPU_MEMSET,
	GT_CLASS_CPU_OPERATOR,
	GT_CLASS_CPU_RUNTIME,
	GT_CLASS_CPU_ANNOTATION,
	GT_CLASS_LAUNCH,
	GT_CLASS_QUEUE,
	GT_CLASS_SYNC_WAIT,
	GT_CLASS_CPU_WAITS_GPU,
	GT_CLASS_GPU_IDLE,
	GT_CLASS_IDLE,
	GT_CAUSAL_CLASS_COUNT
};
extern const char *const gt_causal_class_names[GT_CAUSAL_CLASS_COUNT];

/* Window flags. */
enum gt_causal_flag {
	GT_CAUSAL_NO_DEPENDENCIES = 1, /* no flow or wait edge: the longest track */
	GT_CAUSAL_CYCLE = 2,           /* zero-gap bindings closed a cycle */
	GT_CAUSAL_OVERFLOW = 4,        /* a path sum passed 2^63-1 */
};
#define GT_CAUSAL_FLAG_COUNT 3
extern const char *const gt_causal_flag_names[GT_CAUSAL_FLAG_COUNT];

enum gt_causal_by { GT_CAUSAL_BY_CAT = 0, GT_CAUSAL_BY_NAME = 1 };

/* The breakdown key of a stream_wait share, and its hop's wait_source. */
enum gt_causal_wait_source { GT_CAUSAL_SW_RECORDED = 0, GT_CAUSAL_SW_INFERRED = 1 };
extern const char *const gt_causal_wait_source_names[2]; /* "recorded", "inferred" */

/* Why a cuda_sync marker gave no edge. */
enum gt_causal_sync_problem {
	GT_CAUSAL_SYNC_UNUSABLE_ARGS = 0,        /* wait_on_stream or the record's correlation absent */
	GT_CAUSAL_SYNC_NO_RECORD,                /* no cudaEventRecord call of that correlation */
	GT_CAUSAL_SYNC_NO_LAUNCH_BEFORE_RECORD,  /* nothing launched to the stream before it */
	GT_CAUSAL_SYNC_NO_LAUNCH_AFTER_WAIT,     /* nothing launched to the waiting stream after */
	GT_CAUSAL_SYNC_NO_SYNC_CALL,             /* Event Sync: no cudaEventSynchronize taking part */
	GT_CAUSAL_SYNC_PROBLEM_COUNT
};
extern const char *const gt_causal_sync_problem_names[GT_CAUSAL_SYNC_PROBLEM_COUNT];
#define GT_CAUSAL_SYNC_EXAMPLES 5

/* The trace's cuda_sync markers as the recorded-wait rule read them. */
typedef struct gt_causal_sync_counts {
	uint64_t markers;            /* Stream Wait Event and Event Sync spans */
	uint64_t stream_waits;       /* followed: E(k) -> B(d) found (in any window) */
	uint64_t event_syncs;        /* followed: E(k) -> E(W) found */
	uint64_t records_not_waited; /* cudaEventRecord calls no marker names */
	uint64_t problems[GT_CAUSAL_SYNC_PROBLEM_COUNT];
	uint32_t example_span[GT_CAUSAL_SYNC_PROBLEM_COUNT][GT_CAUSAL_SYNC_EXAMPLES]; /* markers, by id */
	uint8_t examples[GT_CAUSAL_SYNC_PROBLEM_COUNT];
} gt_causal_sync_counts;

/* The pluggable steps, so that cl/ can run them on a device while this
 * module stays plain C. NULL members (or a NULL engine) use the host
 * references. Each returns 0 or -1 with err set. */
typedef struct gt_causal_engine {
	void *ctx;
	int (*bind)(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err);
	int (*path)(void *ctx, const uint32_t *parent, const int64_t *gap, uint32_t n, gt_cp_rows *out,
		    gt_cp_summary *sum, gt_error *err);
	int (*floats)(void *ctx, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err);
	/* what the result reads of the path, path_duration alone (the gaps
	 * telescope: time[v] - time[root]); 1 where the binding holds a
	 * cycle: then path (or the host's) gives the flags */
	int (*path_durations)(void *ctx, const uint32_t *parent, const int64_t *time, uint32_t n,
			      int64_t *path_duration, gt_error *err);
	/* bind, then path_durations, in one: where the engine keeps the bound
	 * graph for the path (out->gap is NULL: the steps fill the gaps where
	 * a cycle needs them). Taken over bind and path_durations when set.
	 * read (NULL: none) is called once, as soon as the engine no longer
	 * reads the chains and cross edges; out's arrays and *path_duration
	 * are read after it (it may make them). */
	int (*bind_path_durations)(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, int64_t **path_duration,
				   const gt_cpm_read_hook *read, gt_error *err);
} gt_causal_engine;

typedef struct gt_causal_options {
	bool has_window;
	int64_t window_begin_ns, window_end_ns; /* relative to m->start_ns */
	const char *step_glob;                  /* NULL: no --step */
	const char *const *wait_names;          /* extra POSIX EREs, unanchored */
	uint32_t wait_name_count;
	uint8_t by;                             /* enum gt_causal_by */
	bool rows;                              /* fill per-span rows (only they need the float) */
	unsigned threads;                       /* 0: one per core */
	uint32_t batch_points;                  /* windows per engine call: at most about this
	                                         * many points (0: 256K on the host, 1M with a
	                                         * device's steps); results do not depend on it */
	bool hop_count_only;                    /* the caller reads each window's hop_count, not its
	                                         * hops: they are freed once the window's result is
	                                         * made (hops NULL) */
	int64_t stream_wait_slack_ns;           /* inferred stream waits: how long before B(d) the
	                                         * span held on may end (0: none inferred) */
	bool handoffs;                          /* hand-offs between host threads */
	bool recorded_waits;                    /* stream waits and event syncs from cuda_sync markers */
	const char *collective_name;            /* also communication: names matching this ERE (NULL) */
} gt_causal_options;

/* A point, named for output. */
typedef struct gt_causal_point {
	uint32_t point; /* dense id in its window */
	uint32_t span;
	char which;     /* 'B', 'D' (departure) or 'E' */
	int64_t ts_ns;  /* absolute */
} gt_causal_point;

typedef struct gt_causal_hop {
	gt_causal_point from, to;
	uint8_t kind;        /* enum gt_causal_kind */
	uint32_t owner;      /* span: the owner for work, the source for flow, W for
	                      * wait, the previous span for queue; GT_NONE for idle */
	uint32_t track;      /* work, idle: the chain's track; flow, queue: the
	                      * target's track; wait: W's */
	uint32_t flow;       /* flow hops: index into m->flows; else GT_NONE */
	int64_t duration_ns;
	uint8_t wait_source; /* stream_wait hops: enum gt_causal_wait_source; else 0 */
	uint8_t cls;         /* enum gt_causal_class */
} gt_causal_hop;

typedef struct gt_causal_share {
	uint8_t kind;       /* enum gt_causal_kind */
	uint32_t key;       /* work: cat or name string id; flow: the flow's cat;
	                     * queue: track index; stream_wait: enum
	                     * gt_causal_wait_source; idle, wait: GT_NONE */
	int64_t critical_ns; /* share of path_duration: critical_ns / path_duration_ns */
} gt_causal_share;

typedef struct gt_causal_row { /* 40 bytes: a million spans, a million rows */
	uint32_t span;
	bool on_path;
	int64_t float_ns;
	int64_t critical_ns;    /* its work on the path */
	int64_t waited_ns;
	int64_t caused_wait_ns;
} gt_causal_row;

enum gt_causal_left_out {
	GT_CAUSAL_FLOW_SELF = 0,         /* source and target the same span */
	GT_CAUSAL_FLOW_NOT_TAKING_PART,  /* source or target not taking part */
	GT_CAUSAL_FLOW_OTHER_WINDOW,     /* source span not in the target's window */
	GT_CAUSAL_LEFT_OUT_COUNT
};
extern const char *const gt_causal_left_out_names[GT_CAUSAL_LEFT_OUT_COUNT];

typedef struct gt_causal_window {
	uint32_t step_span;     /* --step: the matched span; else GT_NONE */
	int64_t begin_ns, end_ns; /* the window's bounds, absolute */
	int64_t wall_ns;        /* last point minus first point */
	int64_t path_duration_ns;
	/* the wall whole: before_root_ns + path_duration_ns + after_endpoint_ns
	 * (B of the root minus the first point; the last point minus the
	 * endpoint; 0 without a path) */
	int64_t before_root_ns, after_endpoint_ns;
	gt_causal_point endpoint, root;
	uint32_t points, spans, tracks;
	uint64_t chain_edges, flow_edges, wait_edges;
	uint64_t collective_edges; /* jobs: B(k_j) -> E(k_r), kept as wait edges */
	uint64_t inferred_stream_waits; /* E(k) -> B(d), kept as wait edges */
	uint64_t recorded_stream_waits; /* the same from cuda_sync markers */
	uint64_t recorded_event_syncs;  /* E(k) -> E(W) from markers, among wait_edges */
	uint64_t handoff_edges;         /* u -> f and l -> v, kept as wait edges */
	/* a job's --step window: the ranks with a step of its name, the job's
	 * ranks without one, and the walls of the ranks' own parts (each rank's
	 * last point minus its first; the lower median); else 0 */
	uint32_t ranks, ranks_missing;
	int64_t rank_wall_min_ns, rank_wall_median_ns, rank_wall_max_ns;
	uint64_t backward_edges, isolated_tracks;
	uint64_t flows_left_out[GT_CAUSAL_LEFT_OUT_COUNT];
	uint32_t flags;         /* GT_CAUSAL_* */
	uint32_t float_rounds;  /* the rounds of the float call that took this window
	                         * (several windows go in one call: on its first, 0 on
	                         * the others; no call, 0, without opt->rows) */
	gt_causal_hop *hops;    /* root first */
	uint32_t hop_count;
	gt_causal_share *breakdown; /* by kind, then critical_ns descending, then key */
	uint32_t breakdown_count;
	int64_t class_ns[GT_CAUSAL_CLASS_COUNT]; /* the hops' time by class: sums to the path */
	gt_causal_row *rows;    /* opt->rows: one per taking-part span, by id */
	uint32_t row_count;
} gt_causal_window;

typedef struct gt_causal_result {
	gt_causal_window *windows;
	uint32_t window_count;
	uint64_t device_track_spans_left_out;
	uint64_t wrapper_spans_left_out; /* the profiler's own capture span (below) */
	uint64_t spans_taking_part;
	int64_t stream_wait_slack_ns; /* as asked: 0 when no stream wait was inferred */
	bool handoffs;                /* as asked */
	bool recorded_waits;          /* as asked */
	gt_causal_sync_counts syncs;  /* recorded_waits: the markers as read */
} gt_causal_result;

/* Runs the analysis; eng may be NULL (host). Errors (GT_EINPUT): no
 * thread-track span takes part, an empty window, a --step glob matching
 * nothing; GT_EUSAGE: a bad --wait-name regex, a window with a step glob,
 * a window whose start is after its end or whose bounds overflow. */
int gt_causal_analyze(const gt_model *m, const gt_causal_options *opt, const gt_causal_engine *eng,
		      gt_causal_result *out, gt_error *err);
void gt_causal_result_free(gt_causal_result *r);

/* The --step windows alone, by the rule above (ranks included), for the
 * analyses that summarise per step (stats/): each window's step span and
 * bounds, and each span's window (GT_NONE: none, or not taking part). */
typedef struct gt_step_window {
	uint32_t step_span;
	int64_t begin_ns, end_ns;
	uint32_t ranks; /* a job: the ranks with the step; else 0 */
} gt_step_window;

typedef struct gt_step_windows {
	gt_step_window *windows;
	uint32_t count;
	uint32_t *window_of; /* per span */
} gt_step_windows;

/* Errors as gt_causal_analyze's. */
int gt_causal_step_windows(const gt_model *m, const char *step_glob, unsigned threads, gt_step_windows *out,
			   gt_error *err);
void gt_step_windows_free(gt_step_windows *w);

/* The graph steps on an OpenCL device: binding and float (cpm.h) and the
 * forest walk (forest/), plugged into the engine above. Results equal the
 * host's byte for byte. */

/* Device time and launches of every step run through one engine. The
 * float runs beside the binding and the path (on a thread of its own), so
 * it counts apart. The path's durations run in the binding's call: bind_*
 * holds both; path_* counts a path run alone (after a cycle). */
typedef struct gt_causal_cl_stats {
	uint64_t bind_ns, path_ns, float_ns;                /* kernel time, from profiling events */
	uint64_t bind_wall_ns, path_wall_ns, float_wall_ns; /* each step's calls, end to end */
	uint32_t launches;                                  /* binding and path */
	uint32_t float_launches, float_rounds;
} gt_causal_cl_stats;

/* Opens the engine's device: 0 with *cl set (never NULL), or -1 with err
 * set. */
typedef int (*gt_causal_cl_opener)(void *arg, gt_cl **cl, gt_error *err);

typedef struct gt_causal_cl_engine {
	gt_causal_engine engine; /* pass &engine to gt_causal_analyze */
	gt_cl *cl;
	gt_causal_cl_stats stats;
	/* a device opened at the first step (gt_causal_cl_engine_defer) */
	gt_causal_cl_opener open;
	void *open_arg;
	pthread_mutex_t open_lock;
	int open_rc; /* 1: not tried yet */
	gt_error open_err;
} gt_causal_cl_engine;

void gt_causal_cl_engine_init(gt_causal_cl_engine *e, gt_cl *cl);

/* An engine whose device opens at the first step that needs it, once,
 * from whichever thread comes first: a driver's start-up (a quarter of a
 * second or more) then runs while the host builds the first graphs. A
 * failed open fails that step and every later one with the same error.
 * gt_causal_cl_engine_device() opens it when no step did; _fini releases
 * the lock (the device stays the caller's). */
void gt_causal_cl_engine_defer(gt_causal_cl_engine *e, gt_causal_cl_opener open, void *arg);
int gt_causal_cl_engine_device(gt_causal_cl_engine *e, gt_cl **cl, gt_error *err);
void gt_causal_cl_engine_fini(gt_causal_cl_engine *e);

#endif
