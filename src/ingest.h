/* The streaming JSON trace reader behind gt_model_load. */
#ifndef GT_INGEST_H
#define GT_INGEST_H

#include "input.h"
#include "model.h"

int gt_ingest(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt, gt_error *err);

struct gt_resume;
/* gt_ingest that also keeps the resume state (resume.h) in rs. */
int gt_ingest_capture(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt,
		      struct gt_resume *rs, gt_error *err);
/* Continues the parse rs was taken from: m holds that parse's model (as
 * stored), in a plain mapped file whose first rs->offset bytes are the same.
 * Parses the rest, finishes m and replaces rs with the new state. */
int gt_ingest_resume(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt,
		     struct gt_resume *rs, gt_error *err);

#endif
