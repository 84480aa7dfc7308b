/* Atomic output: `-o FILE` writes a temporary file in the same directory and
 * renames it over FILE only when everything was written; "-" or NULL is
 * stdout. A failure never leaves a partial or truncated file. */
#ifndef GT_OUTFILE_H
#define GT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/base.h"

typedef struct gt_outfile {
	FILE *fp;
	char *path;     /* final path, NULL for stdout */
	char *tmp_path; /* temporary path */
	bool is_stdout;
	int fd;         /* fp's descriptor (fileno fails on a fault-injection stream) */
} gt_outfile;

/* Opens the output. binary: refuse a terminal on stdout (GT_EUSAGE). */
int gt_outfile_open(gt_outfile *o, const char *path, bool binary, gt_error *err);
/* Flushes, fsyncs and renames into place; -1 on any write error. */
int gt_outfile_commit(gt_outfile *o, gt_error *err);
/* Removes the temporary file; safe to call after commit or on a zeroed o. */
void gt_outfile_abort(gt_outfile *o);

#endif
