#include "causal_times.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static const char *const stage_names[CAUSAL_T_COUNT] = {
	"classify", "windows", "place", "previous", "collectives", "strings", "recorded", "backward", "graphs", "g_edges", "g_stream_waits", "g_spans", "g_points", "g_chains", "g_handoffs", "g_cross", "union", "bind", "path", "results", "float_wait", "rows", "d_buffers", "d_upload", "d_steps", "d_free"};

static _Atomic uint64_t stage_ns[CAUSAL_T_COUNT];
static atomic_int enabled = -1; /* -1: not read yet */
static _Atomic uint64_t first_mark; /* the clock at an analysis' first mark */

/* 0: off; 1: the stages' sums; 2: and the marks */
static int timing(void)
{
	int e = atomic_load_explicit(&enabled, memory_order_relaxed);
	if (e < 0) {
		const char *v = getenv("GPUTRACE_CAUSAL_TIMES");
		e = !v ? 0 : strcmp(v, "2") == 0 ? 2 : 1;
		atomic_store(&enabled, e);
	}
	return e;
}

uint64_t causal_times_now(void)
{
	return timing() ? gt_clock_ns() : 0;
}

void causal_times_add(enum causal_stage s, uint64_t since)
{
	if (since)
		atomic_fetch_add_explicit(&stage_ns[s], gt_clock_ns() - since, memory_order_relaxed);
}

void causal_times_report(void)
{
	if (!timing())
		return;
	fprintf(stderr, "gputrace: causal times:");
	for (int s = 0; s < CAUSAL_T_COUNT; s++)
		fprintf(stderr, " %s %.3f", stage_names[s], (double)atomic_exchange(&stage_ns[s], 0) / 1e9);
	fputc('\n', stderr);
	atomic_store(&first_mark, 0);
}

void causal_times_mark(const char *what)
{
	if (timing() < 2)
		return;
	uint64_t now = gt_clock_ns(), zero = 0;
	atomic_compare_exchange_strong(&first_mark, &zero, now);
	fprintf(stderr, "gputrace: causal at %.3f s: %s\n", (double)(now - atomic_load(&first_mark)) / 1e9, what);
}
