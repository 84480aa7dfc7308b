/* The causal critical path's graph steps on an OpenCL device: binding and
 * float (cpm_cl.h) and the forest walk (critpath_cl.h), plugged into
 * analysis/causal.h's engine. Results equal the host's byte for byte. */
#ifndef GT_CAUSAL_CL_H
#define GT_CAUSAL_CL_H

#include "analysis/analysis.h"
#include "cl_runtime.h"
#include "cpm_cl.h"
#include "critpath_cl.h"

/* Device time and launches of every step run through one engine. */
typedef struct gt_causal_cl_stats {
	uint64_t bind_ns, path_ns, float_ns; /* kernel time, from profiling events */
	uint32_t launches;
	uint32_t float_rounds;
} gt_causal_cl_stats;

typedef struct gt_causal_cl_engine {
	gt_causal_engine engine; /* pass &engine to gt_causal_analyze */
	gt_cl *cl;
	gt_causal_cl_stats stats;
} gt_causal_cl_engine;

void gt_causal_cl_engine_init(gt_causal_cl_engine *e, gt_cl *cl);

#endif
