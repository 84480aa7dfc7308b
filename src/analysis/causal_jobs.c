/* Running independent pieces of a causal step on several threads. */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "causal_internal.h"

void causal_run_jobs(void *(*fn)(void *), void *jobs, size_t size, unsigned k)
{
	pthread_t tids[CAUSAL_MAX_THREADS];
	bool started[CAUSAL_MAX_THREADS] = {0};
	if (k > CAUSAL_MAX_THREADS)
		k = CAUSAL_MAX_THREADS;
	for (unsigned j = 1; j < k; j++)
		started[j] = pthread_create(&tids[j], NULL, fn, (char *)jobs + j * size) == 0;
	for (unsigned j = 0; j < k; j++) {
		if (started[j])
			pthread_join(tids[j], NULL);
		else
			fn((char *)jobs + j * size); /* job 0, and any whose thread did not start */
	}
}

unsigned causal_thread_count(unsigned asked)
{
	long cores = asked ? (long)asked : sysconf(_SC_NPROCESSORS_ONLN);
	return cores < 1 ? 1u : cores > CAUSAL_MAX_THREADS ? CAUSAL_MAX_THREADS : (unsigned)cores;
}
