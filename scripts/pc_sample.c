/* Preloaded by scripts/flat-profile: samples the program counter of every
 * thread, each on a timer of its own thread's CPU time (a thread started
 * later is armed as it starts), and writes "MODULE OFFSET" a sample to
 * $PC_SAMPLE_OUT at exit. For machines without perf (the device machine):
 * which functions the CPU time goes to, on one thread and on many. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SAMPLES (1ul << 24)

static uintptr_t *pcs;
static unsigned long taken;
static long interval_ns = 1000000;

static void on_sample(int sig, siginfo_t *si, void *context)
{
	(void)sig, (void)si;
	const ucontext_t *uc = context;
	unsigned long i = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
	if (i < MAX_SAMPLES)
		pcs[i] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

static void arm_this_thread(void)
{
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t t;
	struct itimerspec every = {{0, interval_ns}, {0, interval_ns}};
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t) == 0)
		timer_settime(t, 0, &every, NULL);
}

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *armed_start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	arm_this_thread();
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	struct start *s = pcs ? malloc(sizeof *s) : NULL;
	if (!s)
		return real(t, attr, fn, arg);
	*s = (struct start){fn, arg};
	int rc = real(t, attr, armed_start, s);
	if (rc != 0)
		free(s);
	return rc;
}

__attribute__((constructor)) static void start_sampling(void)
{
	if (!getenv("PC_SAMPLE_OUT"))
		return;
	const char *us = getenv("PC_SAMPLE_US");
	if (us && atol(us) > 0)
		interval_ns = atol(us) * 1000;
	pcs = calloc(MAX_SAMPLES, sizeof *pcs);
	if (!pcs)
		return;
	struct sigaction sa = {0};
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	arm_this_thread();
}

__attribute__((destructor)) static void write_samples(void)
{
	if (!pcs)
		return;
	signal(SIGPROF, SIG_IGN);
	FILE *f = fopen(getenv("PC_SAMPLE_OUT"), "w");
	if (!f)
		return;
	unsigned long n = __atomic_load_n(&taken, __ATOMIC_RELAXED);
	fprintf(f, "# interval_ns %ld samples %lu\n", interval_ns, n);
	for (unsigned long i = 0; i < n && i < MAX_SAMPLES; i++) {
		Dl_info di;
		if (pcs[i] && dladdr((void *)pcs[i], &di) && di.dli_fname)
			fprintf(f, "%s %lx\n", di.dli_fname, (unsigned long)(pcs[i] - (uintptr_t)di.dli_fbase));
		else
			fprintf(f, "? %lx\n", (unsigned long)pcs[i]);
	}
	fclose(f);
}
