/* Atomic output: `-o FILE` writes a temporary file in the same directory and
 * renames it over FILE only when everything was written; "-" or NULL is
 * stdout. A failure never leaves a partial or truncated file. */
#ifndef GT_OUTFILE_H
#define GT_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"

typedef struct gt_outfile {
	FILE *fp;
	char *path;     /* final path, NULL for stdout */
	char *tmp_path; /* temporary path */
	bool is_stdout;
	int fd;         /* fp's descriptor (fileno fails on a fault-injection stream) */
	int error;      /* the first failed gt_outfile_pwrite's errno, for commit */
} gt_outfile;

/* Opens the output. binary: refuse a terminal on stdout (GT_EUSAGE). */
int gt_outfile_open(gt_outfile *o, const char *path, bool binary, gt_error *err);
/* Stretches of a large output written on threads, each at its offset:
 * where the output is our temporary regular file, the offset the next
 * byte goes to (fp flushed first), else -1 (stdout, a FIFO): write in
 * order then. gt_outfile_pwrite writes n bytes at `at` from any thread (a
 * failure is kept for commit); once every stretch is written,
 * gt_outfile_seek moves fp's next write to `at` (the stretches' end). */
int64_t gt_outfile_tell(gt_outfile *o);
void gt_outfile_pwrite(gt_outfile *o, const void *p, size_t n, int64_t at);
int gt_outfile_seek(gt_outfile *o, int64_t at);
/* Flushes, fsyncs and renames into place; -1 on any write error. */
int gt_outfile_commit(gt_outfile *o, gt_error *err);
/* Removes the temporary file; safe to call after commit or on a zeroed o. */
void gt_outfile_abort(gt_outfile *o);

#endif
