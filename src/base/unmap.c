/* Unmapping on threads (unmap.h). */
#include "unmap.h"

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

void gt_unmap(void *p, size_t len)
{
	if (!p)
		return;
	struct mapping m = {p, (size_t)sysconf(_SC_PAGESIZE)};
	uint64_t pages = len / m.page; /* a partial last page goes with munmap */
	unsigned threads = gt_thread_count(0, MAX_THREADS);
	if (threads > 1 && len >= 2 * PIECE_MIN) /* on one thread munmap alone is as fast */
		gt_parallel_ranges(pages, PIECE_MIN / m.page, threads, give_back, &m);
	munmap(p, len);
}
