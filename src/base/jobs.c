/* Independent jobs on threads (see jobs.h). */
#include "jobs.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

void gt_run_jobs(void *(*fn)(void *), void *jobs, size_t size, unsigned k)
{
	pthread_t tids[GT_MAX_JOBS];
	bool started[GT_MAX_JOBS] = {0};
	if (k > GT_MAX_JOBS)
		k = GT_MAX_JOBS;
	for (unsigned j = 1; j < k; j++)
		started[j] = pthread_create(&tids[j], NULL, fn, (char *)jobs + j * size) == 0;
	for (unsigned j = 0; j < k; j++) {
		if (started[j])
			pthread_join(tids[j], NULL);
		else
			fn((char *)jobs + j * size);
	}
}

struct range_job {
	int (*fn)(void *ctx, uint64_t a, uint64_t b);
	void *ctx;
	uint64_t a, b;
	int rc;
};

static void *range_run(void *arg)
{
	struct range_job *j = arg;
	j->rc = j->fn(j->ctx, j->a, j->b);
	return NULL;
}

int gt_parallel_ranges(uint64_t n, uint64_t min, unsigned threads, int (*fn)(void *ctx, uint64_t a, uint64_t b),
		       void *ctx)
{
	unsigned k = gt_thread_count(threads, GT_MAX_JOBS);
	if (min < 1)
		min = 1;
	if (n / min < k)
		k = n / min ? (unsigned)(n / min) : 1;
	struct range_job jobs[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (struct range_job){fn, ctx, n * j / k, n * (j + 1) / k, 0};
	gt_run_jobs(range_run, jobs, sizeof jobs[0], k);
	for (unsigned j = 0; j < k; j++)
		if (jobs[j].rc)
			return jobs[j].rc;
	return 0;
}

static _Atomic unsigned thread_default;

void gt_thread_default_set(unsigned n)
{
	thread_default = n;
}

unsigned gt_thread_count(unsigned asked, unsigned max)
{
	unsigned d = thread_default;
	long cores = asked ? (long)asked : d ? (long)d : sysconf(_SC_NPROCESSORS_ONLN);
	if (max < 1)
		max = 1;
	return cores < 1 ? 1u : (unsigned long)cores > max ? max : (unsigned)cores;
}
