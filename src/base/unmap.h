/* Unmapping a large mapping with its pages given back on threads. munmap,
 * like a process's exit, gives back a mapping's pages one at a time on one
 * thread: a trace's index mapped at 100M spans holds a million pages and
 * more, a quarter of a second at the end of a command that ran on every
 * core. */
#ifndef GT_UNMAP_H
#define GT_UNMAP_H

#include <stddef.h>

/* munmap(p, len), the pages of a large mapping given back on threads
 * first (madvise(MADV_DONTNEED) takes the mapping's lock shared). */
void gt_unmap(void *p, size_t len);

#endif
