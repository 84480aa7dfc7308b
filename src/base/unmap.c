/* Unmapping on threads (unmap.h). */
#include "unmap.h"

#include <sys/mman.h>
#include <unistd.h>

#include "jobs.h"

#define PIECE_MIN ((size_t)64 << 20) /* below this a thread's start costs more */
#define MAX_THREADS 16

struct piece {
	unsigned char *p;
	size_t n;
};

static void *give_back(void *arg)
{
	struct piece *pc = arg;
	madvise(pc->p, pc->n, MADV_DONTNEED);
	return NULL;
}

void gt_unmap(void *p, size_t len)
{
	if (!p)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pieces = len / PIECE_MIN;
	unsigned k = gt_thread_count(0, MAX_THREADS);
	if (pieces < k)
		k = (unsigned)pieces;
	if (k > 1) {
		struct piece pc[MAX_THREADS];
		for (unsigned i = 0; i < k; i++) {
			size_t a = len / k * i / page * page, b = i + 1 == k ? len : len / k * (i + 1) / page * page;
			pc[i] = (struct piece){(unsigned char *)p + a, b - a};
		}
		gt_run_jobs(give_back, pc, sizeof pc[0], k);
	}
	munmap(p, len);
}
