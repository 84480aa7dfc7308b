/* Synthetic Kineto-like span models for benchmarks and tests. */
#ifndef GT_SYNTH_MODEL_H
#define GT_SYNTH_MODEL_H

#include <stdint.h>

#include "model.h"

/* Fills m (free it with gt_model_free) with `spans` spans on cpu_threads
 * CPU threads (6 nested lanes each) and gpu_streams GPU streams, six
 * renderer groups, deterministic for a seed. */
int gt_synth_model(gt_model *m, uint64_t spans, uint32_t cpu_threads, uint32_t gpu_streams, uint64_t seed,
		   gt_error *err);

#endif
