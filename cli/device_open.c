/* Opening the OpenCL device on a thread while the trace loads (see
 * device_open.h). */
#include "device_open.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static struct {
	bool started;
	pthread_t thread;
	bool has_spec;
	char spec[256];
	char program[32];
	/* the thread's result */
	int rc;
	gt_cl *cl;
	char chosen[512];
	gt_error err;
} pending;

#ifndef GT_FAULT_INJECTION /* fault walks count call sites in order: no prefetch there */
static void *open_device(void *arg)
{
	(void)arg;
	/* A driver's start-up may give the calling thread an alternate signal
	 * stack of its own (PoCL's does); this thread's stack is restored, so
	 * the thread ends with what it began with (ASan unmaps the stack it
	 * set there, and aborted on PoCL's). */
	stack_t own;
	bool have_own = sigaltstack(NULL, &own) == 0;
	pending.rc = gt_cl_open(&pending.cl, pending.has_spec ? pending.spec : NULL, pending.chosen,
				sizeof pending.chosen, &pending.err);
	if (pending.rc == 0 && pending.cl && pending.program[0]) {
		/* a failure here is met again, and reported, by the analysis */
		cl_program prog;
		gt_error ignored = {0};
		gt_cl_program(pending.cl, pending.program, &prog, &ignored);
	}
	if (have_own)
		sigaltstack(&own, NULL);
	return NULL;
}
#endif

static bool same_spec(const char *spec)
{
	return spec ? pending.has_spec && strcmp(spec, pending.spec) == 0 : !pending.has_spec;
}

void gt_cli_device_prefetch(const struct gt_common *c, const char *program)
{
#ifdef GT_FAULT_INJECTION
	(void)c, (void)program;
#else
	if (pending.started || (c->device && strcmp(c->device, "host") == 0))
		return;
	if (c->device && strlen(c->device) >= sizeof pending.spec)
		return;
	pending.has_spec = c->device != NULL;
	if (c->device)
		snprintf(pending.spec, sizeof pending.spec, "%s", c->device);
	snprintf(pending.program, sizeof pending.program, "%s", program ? program : "");
	pending.started = pthread_create(&pending.thread, NULL, open_device, NULL) == 0;
#endif
}

int gt_cli_device_open(const struct gt_common *c, gt_cl **cl, char *chosen, size_t chosen_len, gt_error *err)
{
	if (!pending.started || !same_spec(c->device)) {
		gt_cli_device_settle();
		return gt_cl_open(cl, c->device, chosen, chosen_len, err);
	}
	pthread_join(pending.thread, NULL);
	pending.started = false;
	*cl = pending.cl;
	pending.cl = NULL;
	if (chosen && chosen_len)
		snprintf(chosen, chosen_len, "%s", pending.chosen);
	if (pending.rc < 0)
		*err = pending.err;
	return pending.rc;
}

void gt_cli_device_settle(void)
{
	if (!pending.started)
		return;
	pthread_join(pending.thread, NULL);
	pending.started = false;
	gt_cl_close(pending.cl);
	pending.cl = NULL;
}
