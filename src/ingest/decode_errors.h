/* The errors of decompression that both zstd paths report (input.c, one
 * decoder; zstd_frames.c, frames on threads), in one wording, so that a
 * script sees the same line whichever path read the file. */
#ifndef GT_DECODE_ERRORS_H
#define GT_DECODE_ERRORS_H

#include <stdint.h>

#include "base/base.h"

/* No expansion check below this much output: small files may compress
 * very well. */
#define GT_BOMB_FLOOR ((uint64_t)64 << 20)

/* Past --max-expansion: `at` bytes out at `ratio` times the input read. */
int gt_fail_expansion(gt_error *err, const char *path, uint64_t at, uint64_t ratio, uint64_t cap);
/* A zstd frame that does not decode, located where it starts. */
int gt_fail_corrupt_zstd(gt_error *err, const char *path, uint64_t frame_start, const char *why);

#endif
