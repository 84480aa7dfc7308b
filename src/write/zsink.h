/* A byte sink over an open FILE that writes plain, gzip or zstd, chosen by
 * the output path's suffix (.gz, .zst): for documents large enough that
 * people keep them compressed, such as the critical-path overlay. */
#ifndef GT_ZSINK_H
#define GT_ZSINK_H

#include <stddef.h>
#include <stdio.h>

#include "base/base.h"

typedef struct gt_zsink gt_zsink;

/* The compression a path's suffix asks for (enum gt_compression). */
int gt_zsink_compression_for(const char *path);
int gt_zsink_open(gt_zsink **out, FILE *fp, int compression, gt_error *err);
/* Buffers and compresses; -1 (err set) on a write or compression error,
 * which sticks: later calls fail at once. */
int gt_zsink_write(gt_zsink *z, const void *p, size_t n, gt_error *err);
static inline int gt_zsink_puts(gt_zsink *z, const char *s, gt_error *err);
/* Ends the stream (gzip trailer, zstd frame end) and flushes into fp. */
int gt_zsink_finish(gt_zsink *z, gt_error *err);
void gt_zsink_free(gt_zsink *z);

#include <string.h>
static inline int gt_zsink_puts(gt_zsink *z, const char *s, gt_error *err)
{
	return gt_zsink_write(z, s, strlen(s), err);
}

#endif
