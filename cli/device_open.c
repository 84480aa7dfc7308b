/* Opening the OpenCL device on a thread while the trace loads (see
 * device_open.h). */
#include "device_open.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NEVER UINT64_MAX

/* The smallest trace, in spans, from which the GPU path measured faster end
 * to end than the host path, per work; NEVER where it was slower at every
 * size measured. The H200 machine (16 cores), scripts/device-auto-rule at
 * d6ad503, medians of 3, host against GPU:
 *   forest path   1M 0.027 / 0.479 s, 20M 0.263 / 0.570 s, 100M 0.854 / 0.898 s
 *   causal path   1M 0.364 / 1.00 s (per step 0.198 / 0.636), 20M 4.72 / 9.81 s;
 *                 at 8c3ab25 (scripts/device-causal-threads) 20M 3.64 / 4.52 s,
 *                 per step 1.01 / 2.17 s, 100M per step 5.15 / 8.16 s;
 *                 at 8fdd401 20M 2.28 / 3.14 s, per step 0.88 / 1.59 s,
 *                 100M 10.37 / 13.07 s, per step 5.40 / 6.94 s
 *   query         1M 0.042 / 0.412 s (1 viewport), 0.228 / 0.640 s (1,000);
 *                 20M 0.563 / 0.767 s, 6.43 / 6.96 s
 *   render        1M 0.092 / 0.500 s, 20M 0.628 / 0.854 s
 *   verify        1M 0.054 / 0.456 s, 20M 0.976 / 1.531 s
 * The GPU's set-up alone (driver start-up, context, programs; about 0.4 s)
 * is more than the host path's whole command at 1M. */
static const struct {
	const char *what;
	const char *program; /* built on the prefetch thread */
	uint64_t min_spans;
} auto_rule[] = {
	[GT_WORK_FOREST_PATH] = {"the forest critical path", "critpath", NEVER},
	[GT_WORK_CAUSAL_PATH] = {"the causal critical path", "cpm", NEVER},
	[GT_WORK_QUERY] = {"viewport queries", "tindex", NEVER},
	[GT_WORK_RENDER] = {"a picture's query", "tindex", NEVER},
	[GT_WORK_VERIFY] = {"the index check", "tindex", NEVER},
};

bool gt_cli_auto_takes_gpu(enum gt_gpu_work work, uint64_t spans)
{
	return spans >= auto_rule[work].min_spans;
}

/* --device, else $GPUTRACE_DEVICE, else auto */
static const char *device_spec(const struct gt_common *c)
{
	return gt_cl_device_spec(c->device);
}

static bool is_auto(const struct gt_common *c)
{
	return strcasecmp(device_spec(c), "auto") == 0;
}

bool gt_cli_device_named(const struct gt_common *c)
{
	const char *spec = device_spec(c);
	return strcasecmp(spec, "host") != 0 && strcasecmp(spec, "auto") != 0 && strcasecmp(spec, "gpu") != 0;
}

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

/* The calling thread's alternate signal stack, around a call into the
 * driver from a thread that may end: a driver's start-up or compiler may
 * give the thread a stack of its own (PoCL's does); the thread's own is
 * put back, so it ends with what it began with (ASan unmaps the stack it
 * set there, and aborted on PoCL's). */
typedef struct signal_stack {
	stack_t own;
	bool have;
} signal_stack;

static signal_stack signal_stack_save(void)
{
	signal_stack s;
	s.have = sigaltstack(NULL, &s.own) == 0;
	return s;
}

static void signal_stack_restore(const signal_stack *s)
{
	if (s->have)
		sigaltstack(&s->own, NULL);
}

static int open_keeping_signal_stack(gt_cl **cl, const char *spec, char *chosen, size_t chosen_len, gt_error *err)
{
	signal_stack s = signal_stack_save();
	int rc = gt_cl_open(cl, spec, chosen, chosen_len, err);
	signal_stack_restore(&s);
	return rc;
}

#ifndef GT_FAULT_INJECTION /* fault walks count call sites in order: no prefetch there */
static void *open_device(void *arg)
{
	(void)arg;
	signal_stack s = signal_stack_save();
	pending.rc = gt_cl_open(&pending.cl, pending.has_spec ? pending.spec : NULL, pending.chosen,
				sizeof pending.chosen, &pending.err);
	if (pending.rc == 0 && pending.cl && pending.program[0]) {
		/* a failure here is met again, and reported, by the analysis */
		cl_program prog;
		gt_error ignored = {0};
		gt_cl_program(pending.cl, pending.program, &prog, &ignored);
	}
	signal_stack_restore(&s);
	return NULL;
}
#endif

static bool same_spec(const char *spec)
{
	return spec ? pending.has_spec && strcmp(spec, pending.spec) == 0 : !pending.has_spec;
}

void gt_cli_device_prefetch(const struct gt_common *c, enum gt_gpu_work work)
{
#ifdef GT_FAULT_INJECTION
	(void)c, (void)work;
#else
	const char *program = auto_rule[work].program;
	if (pending.started || strcasecmp(device_spec(c), "host") == 0 ||
	    (is_auto(c) && auto_rule[work].min_spans == NEVER))
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

int gt_cli_device_open(const struct gt_common *c, enum gt_gpu_work work, uint64_t spans, gt_cl **cl,
		       char *chosen, size_t chosen_len, gt_error *err)
{
	if (is_auto(c) && !gt_cli_auto_takes_gpu(work, spans)) {
		gt_cli_device_settle();
		*cl = NULL;
		if (chosen && chosen_len)
			snprintf(chosen, chosen_len,
				 "device: host (plain C; auto: the host path is faster end to end for %s%s)",
				 auto_rule[work].what, auto_rule[work].min_spans == NEVER ? "" : " at this size");
		return 0;
	}
	if (!pending.started || !same_spec(c->device)) {
		gt_cli_device_settle();
		/* a deferred open may come from a thread that ends (the float's) */
		return open_keeping_signal_stack(cl, c->device, chosen, chosen_len, err);
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

int gt_cli_device_open_deferred(void *deferred, gt_cl **cl, gt_error *err)
{
	gt_cli_deferred_device *d = deferred;
	return gt_cli_device_open(d->c, d->work, d->spans, cl, d->chosen, sizeof d->chosen, err);
}

/* The close beside the output (one at a time: a second waits for the first). */
static struct {
	pthread_t thread;
	bool started;
} closing;

static void *close_device(void *arg)
{
	gt_cl_close(arg);
	return NULL;
}

static void closing_join(void)
{
	if (closing.started)
		pthread_join(closing.thread, NULL);
	closing.started = false;
}

#ifdef GT_FAULT_INJECTION
static const bool close_on_thread = false;
#else
static const bool close_on_thread = true;
#endif

void gt_cli_device_close_beside(gt_cl *cl)
{
	if (!cl)
		return;
	closing_join();
	closing.started = close_on_thread && pthread_create(&closing.thread, NULL, close_device, cl) == 0;
	if (!closing.started)
		gt_cl_close(cl);
}

void gt_cli_device_settle(void)
{
	closing_join();
	if (!pending.started)
		return;
	pthread_join(pending.thread, NULL);
	pending.started = false;
	gt_cl_close(pending.cl);
	pending.cl = NULL;
}
