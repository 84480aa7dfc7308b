/* ingest/: the streaming JSON trace reader. The input (input.h: plain,
 * gzip, zstd; mapped or read), the lexer and event parser (json_lex.h,
 * raw_event.h), the model builder that turns raw events into the span model
 * in file order and finishes it (builder.h: tracks, nesting, lanes, flows),
 * and the resume state of a parse (resume.h, for pack --update).
 * The loader above (loader/) opens a path and hands the input here. */
#ifndef GT_INGEST_H
#define GT_INGEST_H

#include "input.h"
#include "model/model.h"
#include "resume.h"

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

/* Sets m->rank and m->world_size from the top-level "distributedInfo"
 * kept in m->metadata_json (rank, and world_size or worldSize); -1 each
 * when absent or not a whole number. */
void gt_model_read_distributed_info(gt_model *m);

/* Recomputes parents for another mode (spans' parent, depth are per mode;
 * lanes are not affected since they come from nesting); a span table in an
 * index's mapping is copied first (gt_model_own). Out of memory leaves
 * nesting-only parents and m->parent_mode GT_PARENTS_NESTING, or (no copy)
 * the model as it was: callers compare parent_mode with the mode asked. */
void gt_model_set_parent_mode(gt_model *m, int mode);

#endif
