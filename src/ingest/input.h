/* Trace input: a file or stdin, plain, gzip (concatenated members too) or
 * zstd (several frames too), recognised by magic bytes. Decompression runs
 * on a thread of its own so it overlaps parsing, or, for a zstd file of
 * several frames, on several. */
#ifndef GT_INPUT_H
#define GT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct gt_input gt_input;

/* max_expansion: fail when decompressed/compressed bytes exceeds it
 * (a decompression bomb); 0 means no cap. */
int gt_input_open(gt_input **out, const char *path, uint64_t max_expansion, gt_error *err);
/* Before the first read. threads: a zstd regular file of several frames
 * decodes them on up to this many (zstd_frames.h); 0 or 1, the default,
 * decodes on the one reader thread. window: the bytes the parse takes at a
 * time, which the reader's ring holds ahead (within its bounds). */
void gt_input_set_decoding(gt_input *in, unsigned threads, size_t window);
/* Reads up to cap bytes of decompressed text; returns the count, 0 at the
 * end, -1 on error (err set, naming the file and the offset). */
long gt_input_read(gt_input *in, char *buf, size_t cap, gt_error *err);
/* After the parse failed on a compressed stream: reads on, up to limit
 * more decompressed bytes, and where the decoding fails within them sets
 * err to that failure (corrupt data decodes to garbage for a while before
 * the decoder sees a bad code, and the garbage fails the parse first: the
 * stream's own error is the cause). Else err stays, as where a read
 * already failed. */
void gt_input_failure_ahead(gt_input *in, uint64_t limit, gt_error *err);
int gt_input_compression(const gt_input *in); /* enum gt_compression */
uint64_t gt_input_file_bytes(const gt_input *in);  /* compressed bytes consumed */
uint64_t gt_input_file_size(const gt_input *in);   /* 0 when unknown (a pipe) */
/* After the last read: whether a gzip member or zstd frame was cut short
 * (the bytes before the cut were delivered). */
bool gt_input_truncated(const gt_input *in);
/* First bytes of the file, as read (for index-file detection). */
const unsigned char *gt_input_head(const gt_input *in, size_t *n);
/* Plain regular files are memory-mapped: then this gives the whole text
 * and gt_input_read is not used. */
bool gt_input_map(gt_input *in, const char **data, uint64_t *size);
/* Hands that mapping to the caller, read-only as made (so that its pages
 * can be given back and read again from the file: a write there faults at
 * once instead of changing a page a release would revert); the caller
 * munmaps it, gt_input_close no longer does. False, keeping it, when there
 * is none. */
bool gt_input_take_map(gt_input *in, void **data, size_t *size);
/* Tells the input that bytes before upto will not be read again. */
void gt_input_release(gt_input *in, uint64_t upto);
void gt_input_close(gt_input *in);

#endif
