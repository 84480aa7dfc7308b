/* Millions of alike lines (a causal path's hops, its per-span rows) in
 * any text format: formatted a chunk of lines at a time, chunks on threads
 * into their own buffers, then handed out in order. The bytes are those
 * of one thread as long as no line depends on a line of another chunk:
 * `first` marks where a chunk starts, for what carries from line to line. */
#ifndef GT_LINES_H
#define GT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jline.h"

#define GT_LINES_CHUNK 16384 /* lines a chunk */
#define GT_LINES_MAX_THREADS 16

/* Appends line i to l. state: the thread's own, kept from call to call
 * (escaped strings, say). */
typedef void (*gt_lines_format_fn)(void *state, gt_jline *l, uint64_t i, bool first);
/* A chunk's count lines, in order: line k ends at end[k] in p, where line
 * k - 1 ended (the first at 0). Returns 0 to go on, non-zero to stop. */
typedef int (*gt_lines_emit_fn)(void *ctx, const char *p, const size_t *end, uint32_t count);

typedef struct gt_lines_chunk gt_lines_chunk;

typedef struct gt_lines {
	unsigned threads;        /* chunks formatted at once */
	gt_lines_chunk *chunks;  /* threads of them, made on first use */
} gt_lines;

/* threads: 0 for one per core; at most GT_LINES_MAX_THREADS. */
void gt_lines_init(gt_lines *w, unsigned threads);
void gt_lines_free(gt_lines *w);

/* Lines [0, n): thread k formats through the state at states + k *
 * state_size (w->threads states), each chunk then goes to emit. One
 * thread where there are not lines for two chunks. Returns 0, 1 when emit
 * stopped it, -1 out of memory (lines may have been emitted). */
int gt_lines_write(gt_lines *w, uint64_t n, gt_lines_format_fn format, void *states, size_t state_size,
		   gt_lines_emit_fn emit, void *ctx);

#endif
