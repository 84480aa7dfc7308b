/* The canonical span model: what every analysis reads.
 *
 * Span ids are the 0-based order in which each span's opening event appears
 * in the trace file. Times are integer nanoseconds, absolute (as in the
 * file's ts, converted exactly). Strings are interned: a span stores ids into
 * model->strings. Lanes, groups and the parent forest are computed once the
 * whole trace is read (see ingest/builder_finish.c).
 *
 * model/: these types, freeing, the string pool and synthetic models for
 * tests. It uses base/ only: reading a trace is ingest/'s, the index file
 * gtx/'s, and choosing between them the loader's (loader/). */
#ifndef GT_MODEL_H
#define GT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "device_class.h"
#include "strpool.h"

#define GT_NONE 0xffffffffu
#define GT_MAX_GROUPS 32

enum gt_span_kind {
	GT_SPAN_COMPLETE = 0, /* ph X */
	GT_SPAN_DURATION,     /* ph B/E pair */
	GT_SPAN_INSTANT,      /* ph i/I/R, dur 0 */
	GT_SPAN_ASYNC,        /* ph b/e (n: instant inside an async track) */
	GT_SPAN_LEGACY_ASYNC, /* ph S/T/p/F */
};

typedef struct gt_span {
	int64_t ts_ns;
	int64_t dur_ns;
	uint32_t name;    /* string id */
	uint32_t cat;     /* string id */
	uint32_t track;   /* index into model->tracks */
	uint32_t parent;  /* span id, or GT_NONE for a root */
	uint32_t lane;    /* global lane: track's lane_base + depth */
	uint32_t event;   /* index of the opening event in the file */
	uint32_t depth;   /* nesting depth on its track */
	uint8_t group;    /* renderer group, 0..31 */
	uint8_t kind;     /* enum gt_span_kind */
	uint8_t scope;    /* instants: 'g', 'p' or 't' (0 when absent) */
	uint8_t flags;    /* GT_SPANF_* */
} gt_span;

enum {
	GT_SPANF_UNCLOSED = 1,  /* B never closed, or X without dur: ended at the trace's end */
	GT_SPANF_FLOW_PARENT = 2, /* parent came from an incoming flow */
};

/* A pid or tid: JSON allows numbers or strings. Numbers sort before strings. */
typedef struct gt_id {
	int64_t num;
	uint32_t str; /* string id when is_str */
	bool is_str;
} gt_id;

/* Instant tracks hold the instants of "s":"p" (one per process) and of
 * "s":"g" (one for the trace, with the first process that emits one: a
 * track has a process), as Perfetto and catapult keep them apart from the
 * emitting thread; thread-scoped instants stay on their thread. */
enum gt_track_kind { GT_TRACK_THREAD = 0, GT_TRACK_ASYNC = 1, GT_TRACK_INSTANT = 2 };

typedef struct gt_track {
	uint32_t process;    /* index into model->processes */
	uint8_t kind;        /* enum gt_track_kind */
	gt_id tid;           /* thread tracks */
	uint32_t name;       /* thread_name, or the async track's name; GT_NONE */
	uint32_t cat;        /* async tracks: category string id */
	uint64_t async_id;   /* async tracks: the id (hashed when a string) */
	uint8_t async_scope; /* async tracks: 0 local (id2.local), 1 global (id, id2.global);
	                      * instant tracks: 0 a process's, 1 the global one */
	bool has_sort_index;
	int64_t sort_index;
	uint32_t lane_base;
	uint32_t lane_count; /* max depth + 1 */
	uint32_t span_count;
} gt_track;

typedef struct gt_process {
	gt_id pid;
	uint32_t name;   /* process_name or GT_NONE */
	uint32_t labels; /* process_labels or GT_NONE */
	bool has_sort_index;
	int64_t sort_index;
} gt_process;

typedef struct gt_flow {
	uint32_t src; /* span id, GT_NONE when it did not bind */
	uint32_t dst;
	uint32_t name;
	uint32_t cat;
	uint64_t id;
	/* Where it leaves and arrives: v1, the ts of its start ('s' or 't') and
	 * end events; v2, the end of the flow_out span and the start of the
	 * flow_in span. So a departure is src_ts_ns for both versions. */
	int64_t src_ts_ns;
	int64_t dst_ts_ns;
} gt_flow;

/* What Kineto's args say about stream-event synchronisation, for the few
 * spans that carry it (the causal analysis' recorded stream waits): the
 * runtime calls that record, wait on and synchronise with a CUDA (or HIP)
 * event, by their correlation, and the device-side markers of category
 * cuda_sync, "Stream Wait Event" and "Event Sync", which name the
 * recording stream and the correlation of the cudaEventRecord call. One
 * entry per such span, by span id. */
enum gt_sync_role {
	GT_SYNC_RECORD_CALL = 1, /* cudaEventRecord, hipEventRecord */
	GT_SYNC_WAIT_CALL,       /* cudaStreamWaitEvent, hipStreamWaitEvent */
	GT_SYNC_EVENT_SYNC_CALL, /* cudaEventSynchronize, hipEventSynchronize */
	GT_SYNC_STREAM_WAIT,     /* marker: the marker's stream waits for the event */
	GT_SYNC_EVENT_SYNC,      /* marker: the host waits for the event */
	GT_SYNC_ROLE_MAX = GT_SYNC_EVENT_SYNC
};

enum {
	GT_SYNCF_CORRELATION = 1, /* correlation is an integer in args */
	GT_SYNCF_RECORD = 2,      /* markers: wait_on_stream and wait_on_cuda_event_record_corr_id are */
};

typedef struct gt_sync {
	uint32_t span;
	uint8_t role;  /* enum gt_sync_role */
	uint8_t flags; /* GT_SYNCF_*: which args were usable */
	uint16_t zero;
	int64_t correlation;        /* args.correlation */
	int64_t wait_on_stream;     /* markers: the recording stream's tid */
	int64_t record_correlation; /* markers: the cudaEventRecord call's correlation */
} gt_sync;

typedef struct gt_counter_series {
	uint32_t process;
	uint32_t name; /* event name; with an id, "NAME id: ID" */
	uint32_t key;  /* args key */
	uint32_t sample_count;
} gt_counter_series;

typedef struct gt_counter_sample {
	uint32_t series;
	int64_t ts_ns;
	double value;
} gt_counter_sample;

typedef struct gt_group {
	uint32_t name; /* category string id ("other" for group 31 overflow) */
	uint64_t spans;
} gt_group;

enum gt_parent_mode { GT_PARENTS_NESTING_FLOW = 0, GT_PARENTS_NESTING = 1 };

enum gt_warning {
	GT_WARN_UNMATCHED_END,
	GT_WARN_UNCLOSED_BEGIN,
	GT_WARN_IMPROPER_NESTING,
	GT_WARN_TRAILING_COMMA,
	GT_WARN_CONTROL_CHAR,
	GT_WARN_UNMATCHED_ASYNC_END,
	GT_WARN_UNCLOSED_ASYNC,
	GT_WARN_UNBOUND_FLOW,
	GT_WARN_MISSING_TS,
	GT_WARN_UNKNOWN_PHASE, /* named missing_phase: no ph, or an empty one */
	/* Index files before version 5 store the counts above only; those below
	 * are found while reading a trace. */
	GT_WARN_STORED,
	GT_WARN_INVALID_TS = GT_WARN_STORED, /* skipped: ts unusable */
	GT_WARN_INVALID_DUR,         /* skipped: an X's dur unusable, or ts + dur out of range */
	GT_WARN_NEGATIVE_DUR,        /* skipped: an X with dur < 0 */
	GT_WARN_INVALID_ID,          /* skipped: pid, tid, id or bind_id neither integer nor string,
	                              * or an async event (b e n S F) with no id and no usable id2 */
	GT_WARN_INVALID_FIELD,       /* skipped: ph, name, cat, s, bp, scope, id2 or a flow flag of the wrong type */
	GT_WARN_INVALID_ARGS,        /* skipped: an M or C event whose args cannot be used */
	GT_WARN_LONG_PHASE,          /* named unknown_phase: a phase of several characters */
	GT_WARN_NONSTANDARD_NUMBER,  /* NaN, Infinity or -Infinity where a value is skipped */
	GT_WARN_INVALID_UTF8,        /* invalid UTF-8 in a string, replaced by U+FFFD */
	GT_WARN_TRUNCATED_INPUT,     /* the input ends inside an event or the stream */
	GT_WARN_UNFINISHED_COMPLETE, /* an X without dur: runs to the trace's end */
	GT_WARN_MISMATCHED_END_NAME, /* an E closed a B of another name */
	GT_WARN_COUNT
};
extern const char *const gt_warning_names[GT_WARN_COUNT];
/* Whether a warning of this kind means an event was left out. */
bool gt_warning_skips_event(int kind);

#define GT_WARN_EXAMPLES 5
#define GT_WARN_EXCERPT 48

/* Where a warning happened: the first GT_WARN_EXAMPLES of each kind. */
typedef struct gt_warning_example {
	uint64_t offset; /* byte offset in the decompressed text */
	uint64_t event;  /* event index in traceEvents */
	char excerpt[GT_WARN_EXCERPT + 1]; /* printable ASCII, NUL-terminated */
} gt_warning_example;

enum gt_compression { GT_COMP_NONE = 0, GT_COMP_GZIP, GT_COMP_ZSTD };
enum gt_format { GT_FMT_ARRAY = 0, GT_FMT_OBJECT };

typedef struct gt_ingest_stats {
	uint8_t format;      /* enum gt_format */
	uint8_t compression; /* enum gt_compression */
	uint64_t file_bytes; /* bytes read from the file (compressed) */
	uint64_t bytes;      /* bytes of JSON text (uncompressed) */
	uint64_t events;
	uint64_t phases[128]; /* count per phase character */
	/* phases longer than one character (not in the format, but counted) */
	char long_phase[8][24];
	uint64_t long_phase_count[8];
	uint64_t warnings[GT_WARN_COUNT];
} gt_ingest_stats;

typedef struct gt_model {
	gt_span *spans;
	uint32_t span_count;
	gt_track *tracks;
	uint32_t track_count;
	gt_process *processes;
	uint32_t process_count;
	gt_flow *flows;
	uint32_t flow_count;
	gt_counter_series *series;
	uint32_t series_count;
	gt_sync *syncs; /* by span id */
	uint32_t sync_count;
	gt_counter_sample *samples;
	uint64_t sample_count;
	gt_group groups[GT_MAX_GROUPS];
	uint32_t group_count;
	uint32_t lane_count;
	uint32_t thread_count;
	int64_t start_ns; /* first span start (0 when there are no spans) */
	int64_t end_ns;   /* last span end */
	uint8_t parent_mode;
	gt_strpool strings;
	char *metadata_json; /* `metadata` / `otherData` as a JSON object text, or NULL */
	char *source;        /* the file name it was read from */
	gt_ingest_stats stats;
	/* the first examples of each warning found while reading (not stored
	 * in an index file) */
	gt_warning_example warning_examples[GT_WARN_COUNT][GT_WARN_EXAMPLES];
	uint8_t warning_example_count[GT_WARN_COUNT];
	/* distributedInfo's rank and world_size (or worldSize); -1 when absent */
	int64_t rank;
	int64_t world_size;
	/* A job read from several files (gt_model_merge): one entry per file in
	 * rank order, each owning a range of spans and processes. rank_count 0:
	 * a single file (no rank column). */
	struct gt_rank_part *ranks;
	uint32_t rank_count;
	/* A model loaded from an index file owns the file's private, read-only
	 * mapping and uses its span, flow and series tables in place: arrays
	 * inside it are never written (what would write them copies them
	 * first, gt_model_own), freed or grown, and gt_model_free unmaps it.
	 * NULL: every array is the model's own. */
	void *map;
	size_t map_len;
} gt_model;

/* One file of a multi-file model. */
typedef struct gt_rank_part {
	int64_t rank;          /* distributedInfo.rank, else the file's position */
	int64_t world_size;    /* -1 when absent */
	char *source;
	uint32_t span_base, span_count;
	uint32_t process_base, process_count;
	uint32_t flow_count, thread_count, track_count, sync_count;
	gt_ingest_stats stats;
	/* the file's own warning examples (offsets into that file; the first
	 * truncated_input one is where it is cut short); NULL when it has
	 * none. A job's model keeps its examples here only. */
	gt_warning_example (*examples)[GT_WARN_EXAMPLES];
	uint8_t example_count[GT_WARN_COUNT];
} gt_rank_part;

typedef struct gt_load_options {
	uint8_t parent_mode;      /* enum gt_parent_mode */
	unsigned threads;         /* 0: one per core */
	uint64_t max_expansion;   /* decompression bomb cap, 0: none */
	/* Progress callback, called from the reading thread; may be NULL. */
	void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
	void *progress_ctx;
} gt_load_options;

void gt_model_free(gt_model *m);
/* Whether array p lies in the model's mapping (borrowed, not its own). */
bool gt_model_borrows(const gt_model *m, const void *p);
/* Copies any borrowed arrays into the model's own memory and unmaps, so that
 * they can grow; -1 (the model unchanged) when out of memory. */
int gt_model_own(gt_model *m);
/* Where the span table is the index file's mapping, gives back its
 * resident pages (gt_drop_pages): a reader done with most spans for now.
 * The spans stay readable; the next read of one faults its page in again.
 * Nothing for a model in its own memory. */
void gt_model_release_spans(const gt_model *m);
/* The same for the flow table. */
void gt_model_release_flows(const gt_model *m);

/* Counts a warning and keeps it as an example while fewer than
 * GT_WARN_EXAMPLES of its kind are kept: text[0..len) is excerpted,
 * non-printable bytes shown as '?'. */
void gt_model_warn(gt_model *m, int kind, uint64_t offset, uint64_t event, const char *text, size_t len);
/* The same example without counting: for kinds the lexer counts. */
void gt_model_example(gt_model *m, int kind, uint64_t offset, uint64_t event, const char *text, size_t len);
/* Events skipped under the warnings that leave an event out. */
uint64_t gt_model_skipped_events(const gt_model *m);

static inline const char *gt_model_str(const gt_model *m, uint32_t id)
{
	return id == GT_NONE ? "" : gt_strpool_get(&m->strings, id);
}

/* Merges n finished single-file models, already in rank order, into *out
 * (model_merge.c): processes keyed (rank, pid) and ordered by rank first,
 * span ids file after file, groups by category in the merged span order.
 * Each input is consumed (freed) as it is appended, so the peak memory is
 * the sum of the models; on failure all inputs are freed and *out empty. */
int gt_model_merge(gt_model *out, gt_model *parts, uint32_t n, gt_error *err);
/* The rank part holding span id s / process index p (binary search). */
const gt_rank_part *gt_model_span_rank(const gt_model *m, uint32_t s);
const gt_rank_part *gt_model_process_rank(const gt_model *m, uint32_t p);

/* Bytes the model holds, for bytes-per-span reports. */
size_t gt_model_bytes(const gt_model *m);

/* Synthetic Kineto-like models for benchmarks and tests (synth_model.c). */
/* Fills m (free it with gt_model_free) with `spans` spans on cpu_threads
 * CPU threads (6 nested lanes each) and gpu_streams GPU streams, six
 * renderer groups, deterministic for a seed. */
int gt_synth_model(gt_model *m, uint64_t spans, uint32_t cpu_threads, uint32_t gpu_streams, uint64_t seed,
		   gt_error *err);


#endif
