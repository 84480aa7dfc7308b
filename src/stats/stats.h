/* stats/: the summary tables of a trace (gputrace stats). Host only.
 *
 * kernels: per device-span name (a span of kind X or B/E on a thread track
 * whose category, any case, is kernel, gpu_memcpy, gpu_memset, memcpy or
 * memset), or per (stream, name) or (rank, name): count, total, mean
 * (total / count rounded half up), the lower median, p95 (the nearest
 * rank: the ceil(0.95 n)-th smallest), min, max, the population standard
 * deviation (rounded to the nanosecond), and the share of GPU busy time:
 * the union of every device span's interval per process (a GPU), summed
 * over processes. Integer nanoseconds; sums past 2^63 - 1 are flagged.
 *
 * gpu-time (HTA's temporal breakdown): per process holding device spans (a
 * GPU; in a job, per rank too), from its first device span's start to its
 * last one's end (wall), the time each class ran, counted once however many
 * streams overlap, with the precedence compute > communication > memcpy >
 * memset (an instant where compute runs is compute, communication only
 * where nothing computes: exposed communication), and idle: the rest.
 * Classes as the causal path's (causal.h): communication by name (nccl,
 * rccl, hccl, any case, or the collective regex), memcpy / memset by
 * category, else compute. */
#ifndef GT_STATS_H
#define GT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "model/model.h"

enum gt_stats_by { GT_STATS_BY_NAME = 0, GT_STATS_BY_STREAM, GT_STATS_BY_RANK };

typedef struct gt_kernel_stat {
	uint32_t name;  /* string id */
	uint32_t key;   /* by stream: the track; by rank: the rank part's index; else GT_NONE */
	uint64_t count;
	int64_t total_ns, mean_ns, median_ns, p95_ns, min_ns, max_ns, stddev_ns;
} gt_kernel_stat;

typedef struct gt_kernel_stats {
	gt_kernel_stat *rows; /* by total descending, then key, then name text */
	uint32_t count;
	uint64_t device_spans;
	int64_t busy_ns;      /* GPU busy time: the union per process, summed */
	bool overflow;        /* a sum passed 2^63 - 1 ns (saturated) */
} gt_kernel_stats;

/* 0, or -1 with err (out of memory). */
int gt_stats_kernels(const gt_model *m, int by, gt_kernel_stats *out, gt_error *err);
void gt_kernel_stats_free(gt_kernel_stats *s);

enum gt_gpu_class { GT_GPU_COMPUTE = 0, GT_GPU_COMMUNICATION, GT_GPU_MEMCPY, GT_GPU_MEMSET, GT_GPU_CLASS_COUNT };

typedef struct gt_gpu_time {
	uint32_t process;
	int64_t begin_ns, end_ns; /* wall: end - begin */
	int64_t class_ns[GT_GPU_CLASS_COUNT];
	int64_t idle_ns;
} gt_gpu_time;

typedef struct gt_gpu_times {
	gt_gpu_time *rows; /* by process */
	uint32_t count;
} gt_gpu_times;

/* collective_regex: extra communication names (POSIX ERE), NULL. 0, or -1
 * with err (GT_EUSAGE: a bad regex). */
int gt_stats_gpu_time(const gt_model *m, const char *collective_regex, gt_gpu_times *out, gt_error *err);
void gt_gpu_times_free(gt_gpu_times *t);

#endif
