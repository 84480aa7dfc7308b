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

unsigned gt_thread_count(unsigned asked, unsigned max)
{
	long cores = asked ? (long)asked : sysconf(_SC_NPROCESSORS_ONLN);
	if (max < 1)
		max = 1;
	return cores < 1 ? 1u : (unsigned long)cores > max ? max : (unsigned)cores;
}
