/* Allocations of large working arrays. Fresh memory is costly: every new
 * page faults and the kernel clears it, which on a million spans was a
 * third of the causal analysis' time. So
 *  - a block of megabytes is advised onto transparent huge pages (where the
 *    system offers them on request): 512 times fewer faults;
 *  - a block given back by gt_big_free is kept for the next request it
 *    fits, so that a later step reuses memory an earlier one had touched,
 *    until gt_big_trim. Kept blocks are plain malloc blocks: whatever
 *    gt_big_malloc returns may go to free() too.
 * Thread-safe. Allocations count as an "alloc" site for fault injection. */
#ifndef GT_BIG_ALLOC_H
#define GT_BIG_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* n elements of size bytes (at least one element): uninitialised, or zeroed. */
void *gt_big_malloc(size_t n, size_t size);
void *gt_big_calloc(size_t n, size_t size);
/* The same, cleared in ranges on threads where it is large: a thread
 * faults fresh pages in at about a tenth of the rate of sixteen (the H100
 * machine: 2.1 against 21.7 GB/s). */
void *gt_big_calloc_threads(size_t n, size_t size, unsigned threads);
/* p (NULL, or from these) grown or shrunk to n elements, its contents kept
 * up to the smaller size; NULL out of memory, p then unchanged. */
void *gt_big_realloc(void *p, size_t n, size_t size);
/* free(p), or keeps p for reuse when it is large (NULL: nothing). */
void gt_big_free(void *p);
/* Frees the kept blocks: at the end of a piece of work. */
void gt_big_trim(void);
/* Of count kept blocks of the given sizes, the smallest of at least want
 * bytes that wastes less than half of it: its index, or count where none
 * fits (also the device's kept buffers' rule). */
unsigned gt_best_fit(const uint64_t *sizes, unsigned count, uint64_t want);

/* Faults in the pages of [p, p + bytes) (each written once), for memory a
 * device is about to copy into: a driver copying into pages never touched
 * fills them at 1.7 GB/s on the H200 machine, against 11-16 GB/s touched.
 * Whatever the range held may change. */
void gt_touch_pages(void *p, size_t bytes);

#endif
