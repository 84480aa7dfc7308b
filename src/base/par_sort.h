/* A comparison sort on threads: chunks sorted side by side, then merged
 * pairwise, each round's merges side by side and cut into slices. For large arrays of records
 * a single qsort would hold up a whole stage (the ingest's flow points). */
#ifndef GT_PAR_SORT_H
#define GT_PAR_SORT_H

#include <stddef.h>

/* Sorts like qsort(base, n, size, cmp), on up to `threads` threads (0: one
 * per core); cmp must order totally (ties: equal records), as the result
 * is then the one qsort gives. -1 out of memory (base is then untouched). */
int gt_parallel_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), unsigned threads);

#endif
