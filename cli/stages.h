/* critical-path -v: where the wall time went, stage by stage. */
#ifndef GT_CLI_STAGES_H
#define GT_CLI_STAGES_H

#include "cli.h"

enum gt_stage {
	GT_STAGE_LOAD,      /* reading the trace or .gtx into the model */
	GT_STAGE_SETUP,     /* device choice, context, program build or cache */
	GT_STAGE_PREPARE,   /* the analysis's input arrays from the model */
	GT_STAGE_TRANSFERS, /* host <-> device copies (profiling events) */
	GT_STAGE_KERNELS,   /* kernel device time (profiling events) */
	GT_STAGE_COMPUTE,   /* the rest of the analysis: host work, buffers, waits */
	GT_STAGE_OUTPUT,    /* writing the result */
	GT_STAGE_COUNT
};

struct gt_stages {
	double start, mark;
	double s[GT_STAGE_COUNT];
};

double gt_now_s(void);
void gt_stages_begin(struct gt_stages *st);
/* Adds the time since the last mark (or begin) to stage k; returns it. */
double gt_stages_mark(struct gt_stages *st, enum gt_stage k);
/* With -v: one line, each stage's seconds and share of the wall time. */
void gt_stages_print(const struct gt_common *c, const struct gt_stages *st, const char *device);

#endif
