/* The streaming JSON trace reader behind gt_model_load. */
#ifndef GT_INGEST_H
#define GT_INGEST_H

#include "input.h"
#include "model.h"

int gt_ingest(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt, gt_error *err);

#endif
