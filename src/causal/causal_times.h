/* GPUTRACE_CAUSAL_TIMES: where the causal analysis' wall time goes, stage
 * by stage, summed over the batches and printed to stderr at the end (for
 * the benchmarks, as GPUTRACE_INGEST_TIMES is for ingest). */
#ifndef GT_CAUSAL_TIMES_H
#define GT_CAUSAL_TIMES_H

#include <stdint.h>

enum causal_stage {
	CAUSAL_T_CLASSIFY,   /* spans' classes */
	CAUSAL_T_WINDOWS,    /* the windows */
	CAUSAL_T_PLACE,      /* each span's and flow's window */
	CAUSAL_T_PREVIOUS,   /* waiting for the previous device spans, found beside */
	CAUSAL_T_COLLECTIVES,
	CAUSAL_T_STRINGS,    /* the strings' classes */
	CAUSAL_T_RECORDED,   /* recorded stream waits and syncs */
	CAUSAL_T_BACKWARD,   /* the backward spans' marks */
	CAUSAL_T_GRAPHS,     /* the windows' graphs, and in them (summed over threads): */
	CAUSAL_T_G_EDGES,    /* flows, waits, recorded and stream waits */
	CAUSAL_T_G_STREAM_WAITS,
	CAUSAL_T_G_SPANS,
	CAUSAL_T_G_POINTS,
	CAUSAL_T_G_CHAINS,
	CAUSAL_T_G_HANDOFFS,
	CAUSAL_T_G_CROSS,
	CAUSAL_T_UNION,      /* the batch's union and its checks */
	CAUSAL_T_BIND,
	CAUSAL_T_PATH,
	CAUSAL_T_RESULTS,    /* each window's hops and breakdown */
	CAUSAL_T_FLOAT_WAIT, /* waiting on the float once the paths are done */
	CAUSAL_T_ROWS,
	CAUSAL_T_D_BUFFERS,  /* its buffers and kernels */
	CAUSAL_T_D_UPLOAD,   /* the graph's copies enqueued */
	CAUSAL_T_D_STEPS,    /* the kernels, the step after and the copies back, to the end */
	CAUSAL_T_D_FREE,     /* the buffers released */
	CAUSAL_T_COUNT
};

/* The clock when timing is on, else 0 (no clock read). */
uint64_t causal_times_now(void);
/* Adds the time since `since` (from causal_times_now) to a stage. */
void causal_times_add(enum causal_stage s, uint64_t since);
/* GPUTRACE_CAUSAL_TIMES=2: the time since the first mark, and what, to
 * stderr (where the steps before the windows' graphs begin and end). */
void causal_times_mark(const char *what);
/* Prints the stages once the analysis is done, when timing is on. */
void causal_times_report(void);

#endif
