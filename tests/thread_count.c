/* Preloaded by tests/threads_flag.sh: counts the threads a process starts
 * and writes the count to $THREAD_COUNT_OUT when it exits, so that the
 * test can hold `-j1` to one thread without timing or /proc sampling. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long started;

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	int rc = real(t, attr, fn, arg);
	if (rc == 0)
		__atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
	return rc;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("THREAD_COUNT_OUT");
	FILE *f = path ? fopen(path, "w") : NULL;
	if (f) {
		fprintf(f, "%lu\n", __atomic_load_n(&started, __ATOMIC_RELAXED));
		fclose(f);
	}
}
