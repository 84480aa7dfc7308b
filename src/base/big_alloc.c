/* Large arrays on huge pages where the system offers them (big_alloc.h). */
#include "big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* malloc's large blocks are fresh mappings: the advice reaches the pages
 * before they are first touched. Only whole huge pages inside the block
 * are advised (so none is backed beyond the block); a failure leaves
 * ordinary pages. */
static void *advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	if (p && bytes >= HUGE_PAGE) {
		uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		uintptr_t to = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
		if (to > from)
			madvise((void *)from, to - from, MADV_HUGEPAGE);
	}
#endif
	return p;
}

void *gt_big_malloc(size_t n, size_t size)
{
	if (gt_fault_hit("alloc"))
		return NULL;
	n = n ? n : 1;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return advise(malloc(n * size), n * size);
}

/* Zeroed after the advice: calloc may clear a reused block first, on
 * small pages. */
void *gt_big_calloc(size_t n, size_t size)
{
	void *p = gt_big_malloc(n, size);
	if (p)
		memset(p, 0, (n ? n : 1) * size);
	return p;
}
