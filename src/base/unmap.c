/* Unmapping on threads (unmap.h). */
#include "unmap.h"

#include <stdbool.h>
#include <stdint.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobs.h"

#define PIECE_MIN ((size_t)64 << 20) /* below this a thread's start costs more */
#define MAX_THREADS 16

struct mapping {
	unsigned char *p;
	size_t page;
};

static int give_back(void *ctx, uint64_t a, uint64_t b)
{
	const struct mapping *m = ctx;
	madvise(m->p + a * m->page, (b - a) * m->page, MADV_DONTNEED);
	return 0;
}

/* The pages [p, p + pages * page) given back on threads where they are
 * many; false where one thread would do as well. */
static bool give_back_on_threads(unsigned char *p, uint64_t pages, size_t page)
{
	struct mapping m = {p, page};
	unsigned threads = gt_thread_count(0, MAX_THREADS);
	if (threads < 2 || pages * page < 2 * PIECE_MIN)
		return false;
	gt_parallel_ranges(pages, PIECE_MIN / page, threads, give_back, &m);
	return true;
}

void gt_unmap(void *p, size_t len)
{
	if (!p)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* on one thread munmap alone is as fast; a partial last page goes with it */
	give_back_on_threads(p, len / page, page);
	munmap(p, len);
}

/* The whole pages inside [p, p + len): [*from, *to), false where none. */
static bool whole_pages(const void *p, size_t len, uintptr_t page, uintptr_t *from, uintptr_t *to)
{
	*from = ((uintptr_t)p + page - 1) / page * page, *to = ((uintptr_t)p + len) / page * page;
	return p && *from < *to;
}

void gt_drop_pages(const void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;
	if (whole_pages(p, len, page, &from, &to) &&
	    !give_back_on_threads((unsigned char *)from, (to - from) / page, page))
		madvise((void *)from, to - from, MADV_DONTNEED);
}

void gt_free_large(void *p, size_t len)
{
	/* never past the block, whatever a count says (a bad index's header) */
	size_t usable = p ? malloc_usable_size(p) : 0;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;
	if (whole_pages(p, len < usable ? len : usable, page, &from, &to)) /* its header, before p, stays */
		give_back_on_threads((unsigned char *)from, (to - from) / page, page);
	free(p);
}
