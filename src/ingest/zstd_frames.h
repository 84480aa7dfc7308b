/* A zstd file of several frames, decoded on threads (input.c).
 *
 * One zstd frame decodes on one thread only, but frames are independent:
 * pzstd, the seekable format and concatenated files hold many. The mapped
 * file is cut at frame boundaries into units of at least a few MiB
 * compressed; workers decode units ahead while the reader takes their
 * bytes in file order. What comes out, errors and a cut last frame
 * included, is what the one-thread decoder gives, byte for byte; a corrupt
 * frame is located where it starts (decoded bytes before it), as there.
 * The cap on expansion is the whole file's, checked by the reader.
 *
 * Memory: decoded bytes waiting are capped (a budget, beyond a few blocks
 * of the unit being read), so a file far larger than memory streams. */
#ifndef GT_ZSTD_FRAMES_H
#define GT_ZSTD_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct gt_zframes gt_zframes;

/* Scans data (the whole compressed file) for frames. Returns 1 with *out
 * when it holds two units or more and the workers started, 0 when it does
 * not (the one-thread decoder reads it: one frame, or too small), -1 on
 * error. max_expansion as gt_input_open. */
int gt_zframes_open(gt_zframes **out, const unsigned char *data, size_t size, unsigned threads,
		    uint64_t max_expansion, const char *path, gt_error *err);
/* As gt_input_read: up to cap decoded bytes in file order, 0 at the end, -1
 * with err once the bytes before a failure were read. */
long gt_zframes_read(gt_zframes *z, char *buf, size_t cap, gt_error *err);
/* Compressed bytes of the units read to their end. */
uint64_t gt_zframes_consumed(gt_zframes *z);
/* After the last read: whether the last frame was cut short. */
bool gt_zframes_truncated(gt_zframes *z);
/* Stops the workers and frees everything (the data stays the caller's). */
void gt_zframes_close(gt_zframes *z);

#endif
