/* stats/: the summary tables of a trace (gputrace stats). Host only; the
 * definitions are the man page's STATS section, in short:
 *
 * Scope (stats_scope.c), built once for every report: each span's device
 * class (model/device_class.h: a span of kind X or B/E on a thread track
 * with a device category; communication by name, or the collective regex),
 * the host span that launched each device span (the source of its earliest
 * departing flow from a host span), and with --step the windows of the
 * causal analysis (causal.h: a device span goes with the step whose flow
 * launched it, any other span with the step its B lies in; spans in no step
 * are in no report). Every row carries its window (GT_NONE: the whole
 * trace). Durations are integer ns; sums past 2^63 - 1 saturate and set
 * overflow.
 *
 * A distribution (gt_stats_dist) of n durations: total, mean (total / n
 * rounded half up), the lower median, p95 (the nearest rank: the
 * ceil(0.95 n)-th smallest), min, max, and the population standard deviation
 * rounded to the nanosecond.
 *
 * kernels: per device-span name (or per class with group_class), with by
 * stream or rank a key first; the share of GPU busy time: the union of
 * every device span's interval per process (a GPU) and window, summed over
 * the GPUs the row covers (by name: every GPU; by rank: the rank's; by
 * stream: the stream's).
 *
 * gpu-time (HTA's temporal breakdown) and overlap: per window and process
 * holding device spans, from its first device span's start to its last
 * one's end (wall); each instant counts once for the highest class running,
 * compute > communication > memcpy > memset, else idle. Overlap: the union
 * of communication spans, of compute spans, and the measure of their
 * intersection (HTA's comm_comp_overlap: overlap / communication).
 *
 * ops and runtime (stats_calls.c): host spans by name; ops those whose
 * category is cpu_op or operator, runtime those whose category holds
 * runtime or driver (any case). Inclusive: the span's duration; self: less
 * its nesting children's; gpu: the device spans launched by it or by a span
 * nested in it (a span nested in one of its own name counts for both).
 *
 * launches: per device span with a launcher, latency = its start minus the
 * launcher's start; the queue it joins: the device spans of its stream
 * launched at or before its launch and not started by then (itself
 * included; a span that starts before its launch leaves the queue at once).
 *
 * idle (HTA's idle time breakdown): per stream, device spans by start; a
 * gap is a start past the latest end before it. It is host wait when the
 * span's launcher started after that end, else kernel wait when shorter
 * than kernel_wait_ns, else other. */
#ifndef GT_STATS_H
#define GT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "causal/causal.h"
#include "model/model.h"

typedef struct gt_stats_options {
	const char *step_glob;        /* NULL: the whole trace */
	const char *collective_regex; /* extra communication names (POSIX ERE), NULL */
	unsigned threads;             /* 0: one per core */
} gt_stats_options;

typedef struct gt_stats_scope {
	const gt_model *m;
	uint8_t *device;     /* per span: enum gt_device_class */
	uint32_t *launcher;  /* per span: for device spans, the launching host span; else GT_NONE */
	gt_step_windows steps; /* count 0 without --step */
	uint64_t device_spans; /* in the scope (in a window, with --step) */
} gt_stats_scope;

/* 0, or -1 with err (GT_EUSAGE: a bad regex; GT_EINPUT: a step glob
 * matching nothing, out of memory). */
int gt_stats_scope_init(gt_stats_scope *s, const gt_model *m, const gt_stats_options *opt, gt_error *err);
void gt_stats_scope_free(gt_stats_scope *s);

/* The window a span is counted in: 0 without steps, GT_NONE outside them. */
static inline uint32_t gt_stats_window(const gt_stats_scope *s, uint32_t span)
{
	return s->steps.count ? s->steps.window_of[span] : 0;
}

/* Device spans are thread-track X or B/E spans of a device category. */
static inline bool gt_stats_is_device(const gt_stats_scope *s, uint32_t span)
{
	return s->device[span] != GT_DEVICE_NONE;
}

typedef struct gt_stats_dist {
	uint64_t count;
	int64_t total_ns, mean_ns, median_ns, p95_ns, min_ns, max_ns, stddev_ns;
} gt_stats_dist;

/* The distribution of n durations sorted ascending, each at stride bytes
 * from the last (n > 0). */
void gt_stats_dist_of(const int64_t *sorted, size_t stride, uint64_t n, gt_stats_dist *out, bool *overflow);

/* ---- kernels ----------------------------------------------------------- */

enum gt_stats_by { GT_STATS_BY_NAME = 0, GT_STATS_BY_STREAM, GT_STATS_BY_RANK };

typedef struct gt_kernel_stat {
	uint32_t window; /* GT_NONE without steps */
	uint32_t key;    /* by stream: the track; by rank: the rank part's index; else GT_NONE */
	uint32_t name;   /* string id; group_class: enum gt_device_class */
	gt_stats_dist d;
	int64_t busy_ns; /* the busy time of the GPUs it covers (the share's denominator) */
} gt_kernel_stat;

typedef struct gt_kernel_stats {
	gt_kernel_stat *rows; /* by window, then total descending, then key, then name */
	uint32_t count;
	int64_t busy_ns;      /* every window's, summed */
	bool overflow;
} gt_kernel_stats;

int gt_stats_kernels(const gt_stats_scope *s, int by, bool group_class, gt_kernel_stats *out, gt_error *err);
void gt_kernel_stats_free(gt_kernel_stats *k);

/* ---- gpu-time and overlap ---------------------------------------------- */

enum gt_gpu_class { GT_GPU_COMPUTE = 0, GT_GPU_COMMUNICATION, GT_GPU_MEMCPY, GT_GPU_MEMSET, GT_GPU_CLASS_COUNT };

typedef struct gt_gpu_time {
	uint32_t window, process;
	int64_t begin_ns, end_ns; /* wall: end - begin */
	int64_t class_ns[GT_GPU_CLASS_COUNT]; /* by precedence: they and idle sum to the wall */
	int64_t idle_ns;
	int64_t compute_ns, communication_ns, overlap_ns; /* unions, and their intersection */
} gt_gpu_time;

typedef struct gt_gpu_times {
	gt_gpu_time *rows; /* by window, then process */
	uint32_t count;
} gt_gpu_times;

int gt_stats_gpu_time(const gt_stats_scope *s, gt_gpu_times *out, gt_error *err);
void gt_gpu_times_free(gt_gpu_times *t);

/* ---- ops and runtime --------------------------------------------------- */

enum gt_stats_calls { GT_STATS_OPS = 0, GT_STATS_RUNTIME };
enum gt_runtime_kind { GT_RUNTIME_LAUNCH = 0, GT_RUNTIME_SYNC, GT_RUNTIME_MEMORY, GT_RUNTIME_ALLOC, GT_RUNTIME_OTHER,
		       GT_RUNTIME_KIND_COUNT };
extern const char *const gt_runtime_kind_names[GT_RUNTIME_KIND_COUNT];
/* A runtime call's kind by its name (the man page lists the words). */
enum gt_runtime_kind gt_runtime_kind_of(const char *name);

typedef struct gt_call_stat {
	uint32_t window, name;
	gt_stats_dist d;  /* of the inclusive durations */
	int64_t self_ns;  /* summed */
	int64_t gpu_ns;   /* summed */
	uint64_t launched; /* device spans launched by it or nested calls */
} gt_call_stat;

typedef struct gt_call_stats {
	gt_call_stat *rows; /* by window, then total descending, then name */
	uint32_t count;
	uint64_t calls;
	bool overflow;
} gt_call_stats;

int gt_stats_calls(const gt_stats_scope *s, int which, gt_call_stats *out, gt_error *err);
void gt_call_stats_free(gt_call_stats *c);

/* ---- launches ---------------------------------------------------------- */

typedef struct gt_launch {
	uint32_t window, track, span, launcher;
	int64_t launch_ns, start_ns; /* the launcher's start; the device span's */
	int64_t latency_ns;          /* start - launch */
	uint32_t queue;              /* the queue it joins, itself included */
} gt_launch;

typedef struct gt_launch_stat {
	uint32_t window, track;
	gt_stats_dist latency;
	uint32_t queue_median, queue_p95, queue_max;
} gt_launch_stat;

typedef struct gt_launch_stats {
	gt_launch *launches; /* by window, track, launch time, span */
	uint64_t launch_count;
	gt_launch_stat *rows; /* per (window, track), in that order */
	uint32_t count;
	bool overflow;
} gt_launch_stats;

int gt_stats_launches(const gt_stats_scope *s, gt_launch_stats *out, gt_error *err);
void gt_launch_stats_free(gt_launch_stats *l);

/* ---- idle -------------------------------------------------------------- */

enum gt_idle_kind { GT_IDLE_HOST_WAIT = 0, GT_IDLE_KERNEL_WAIT, GT_IDLE_OTHER, GT_IDLE_KIND_COUNT };

typedef struct gt_idle_stat {
	uint32_t window, track;
	uint64_t spans, gaps;
	int64_t idle_ns;                     /* the gaps, summed */
	int64_t kind_ns[GT_IDLE_KIND_COUNT]; /* they sum to idle_ns */
} gt_idle_stat;

typedef struct gt_idle_stats {
	gt_idle_stat *rows; /* by window, then track */
	uint32_t count;
	bool overflow;
} gt_idle_stats;

int gt_stats_idle(const gt_stats_scope *s, int64_t kernel_wait_ns, gt_idle_stats *out, gt_error *err);
void gt_idle_stats_free(gt_idle_stats *i);

#endif
