/* Allocations of large working arrays. Page faults on fresh 4 KiB pages
 * cost about a third of the causal analysis' time on a million spans; a
 * block of many megabytes is advised onto transparent huge pages (where the
 * system offers them on request), so that it faults 512 times less often.
 * Freed with free(). Both count as an "alloc" site for fault injection. */
#ifndef GT_BIG_ALLOC_H
#define GT_BIG_ALLOC_H

#include <stddef.h>

/* n elements of size bytes (at least one element): uninitialised, or zeroed. */
void *gt_big_malloc(size_t n, size_t size);
void *gt_big_calloc(size_t n, size_t size);

#endif
