/* Independent jobs on threads: an array of records, one per job, each
 * handed to fn on a thread of its own (job 0 on the caller's). A thread
 * that does not start costs time, never the result: its job runs on the
 * caller's thread. */
#ifndef GT_JOBS_H
#define GT_JOBS_H

#include <stddef.h>
#include <stdint.h>

#define GT_MAX_JOBS 64

/* On a job record's first member: each record starts a cache line of its
 * own, so that a job counting into its record does not move the line
 * under its neighbours' feet (an array of 56-byte records shares a line
 * between two threads' counts: the selection of the device spans of 100M
 * on 16 cores took 0.18 s so). Such records live on the stack or in
 * static storage: malloc aligns to 16 bytes only, not 64. */
#define GT_JOB_ALIGNED _Alignas(64)

/* Runs fn over k (at most GT_MAX_JOBS) jobs of `size` bytes each. */
void gt_run_jobs(void *(*fn)(void *), void *jobs, size_t size, unsigned k);

/* Runs fn(ctx, a, b) over [0, n) cut into consecutive ranges, one per
 * thread (at most `threads`, 0: one per core), each at least `min` long.
 * Returns 0 when every call returned 0, else the first range's non-zero
 * result. */
int gt_parallel_ranges(uint64_t n, uint64_t min, unsigned threads, int (*fn)(void *ctx, uint64_t a, uint64_t b),
		       void *ctx);

/* How many threads to use: `asked` when non-zero, else the process's
 * default (gt_thread_default_set), else the online cores; at least 1, at
 * most max. */
unsigned gt_thread_count(unsigned asked, unsigned max);

/* The threads of work that is not given a count (checksums, unmapping,
 * sorting arrays): the command line's -j, so that -j1 runs on one thread
 * throughout. 0: the online cores. Set once, before the work starts. */
void gt_thread_default_set(unsigned n);

#endif
