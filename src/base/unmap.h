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
/* Gives back the resident pages lying wholly inside [p, p + len) of a
 * read-only mapping of a file (where the file is mapped in huge pages,
 * those around them may go too), on threads when there are many: they
 * stay in the page cache, and a later read faults them in again. For a
 * table a reader is done with, so that it no longer counts in the
 * process's memory. */
void gt_drop_pages(const void *p, size_t len);
/* free(p) of a malloc block whose first len bytes were used (no more
 * than the block holds), those pages given back on threads first where
 * they are many: a model's or a builder's arrays, given back before the
 * command's result is out. */
void gt_free_large(void *p, size_t len);

#endif
