/* A gzip file's first member decoded in pieces on threads (input.c).
 *
 * One member is one deflate stream, which one inflate decodes on one
 * thread: on 16 cores that thread bounds a `.json.gz` (#29). Here the
 * mapped file is cut into pieces of about a MiB compressed, each started
 * at a block found by search and decoded twice with stand-in windows
 * (deflate_split.h), the pieces' windows filled in along the chain, on
 * the workers, while the reader takes the bytes in file order.
 *
 * Every byte handed out is the one-thread inflate's: a piece is read only
 * once the piece before ended exactly where it starts. Anything else (a
 * corrupt or cut stream, a check that fails, the cap on expansion within
 * reach, no memory) is handed back: gt_gzpieces_read returns 0 and
 * gt_gzpieces_resume says where the one-thread inflate goes on, so that
 * the errors, the counts and the bytes are its own. A file that holds
 * more than the one member is read again by the one-thread inflate too. */
#ifndef GT_GZIP_PIECES_H
#define GT_GZIP_PIECES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct gt_gzpieces gt_gzpieces;

/* Starts the workers over data (the whole gzip file, mapped). Returns 1
 * with *out, 0 when it does not take the file (too small, a header that
 * ISA-L would check further), -1 on error. max_expansion: input.c's cap. */
int gt_gzpieces_open(gt_gzpieces **out, const unsigned char *data, size_t size, unsigned threads,
		     uint64_t max_expansion, const char *path, gt_error *err);
/* Up to cap decoded bytes in file order; 0 once the pieces hand back. */
long gt_gzpieces_read(gt_gzpieces *g, char *buf, size_t cap);
/* After read returned 0: the compressed offset where the one-thread
 * inflate starts (the file's size: the file is read), and how many decoded
 * bytes it must drop (those already read) before it hands out more. */
void gt_gzpieces_resume(const gt_gzpieces *g, uint64_t *file_offset, uint64_t *skip);
/* Compressed bytes of the pieces read to their end. */
uint64_t gt_gzpieces_consumed(gt_gzpieces *g);
/* Stops the workers and frees everything (the data stays the caller's). */
void gt_gzpieces_close(gt_gzpieces *g);

#endif
