/* Loading a trace or index file from the command line, with progress and
 * the options every trace-reading command shares. */
#ifndef GT_CLI_LOAD_H
#define GT_CLI_LOAD_H

#include "cli.h"
#include "model/model.h"
#include "loader/loader.h"

/* Loads path into m; on failure prints the error and returns the exit
 * status (nonzero). */
int gt_cli_load(const struct gt_common *c, const char *path, gt_model *m);
/* Loads the TRACE operands (several files or a directory: one job, see
 * gt_model_load_many) into m; on failure prints and returns the status. */
int gt_cli_load_many(const struct gt_common *c, char *const *operands, int n, gt_model *m);
/* The same, also keeping the resume state (src/ingest/resume.h) in rs. */
int gt_cli_load_resumable(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs);
/* Resumes the parse rs was taken from over m (the model stored with it):
 * 0 when done (m and rs are the grown trace's), -1 when the trace cannot
 * be resumed (*why says so; m and rs untouched), else the exit status of
 * an error (printed; m freed). */
int gt_cli_resume(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs, const char **why);

#endif
