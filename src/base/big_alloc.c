/* Large arrays on huge pages, and reused (big_alloc.h). */
#include "big_alloc.h"

#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"
#include "jobs.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define KEEP_MIN ((size_t)1 << 20) /* smaller blocks: malloc reuses them well */
#define KEPT 32                     /* blocks kept at most */

static struct {
	pthread_mutex_t lock;
	void *block[KEPT];
	uint64_t size[KEPT];
	unsigned count;
} kept = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, 0};

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

unsigned gt_best_fit(const uint64_t *sizes, unsigned count, uint64_t want)
{
	unsigned best = count;
	for (unsigned i = 0; i < count; i++)
		if (sizes[i] >= want && sizes[i] / 2 < want && (best == count || sizes[i] < sizes[best]))
			best = i;
	return best;
}

/* The smallest kept block of at least bytes, wasting less than half. */
static void *take(size_t bytes)
{
	if (bytes < KEEP_MIN)
		return NULL;
	pthread_mutex_lock(&kept.lock);
	unsigned best = gt_best_fit(kept.size, kept.count, bytes);
	void *p = NULL;
	if (best < kept.count) {
		p = kept.block[best];
		kept.count--;
		kept.block[best] = kept.block[kept.count];
		kept.size[best] = kept.size[kept.count];
	}
	pthread_mutex_unlock(&kept.lock);
	return p;
}

void *gt_big_malloc(size_t n, size_t size)
{
	if (gt_fault_hit("alloc"))
		return NULL;
	n = n ? n : 1;
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = take(n * size);
	return p ? p : advise(malloc(n * size), n * size);
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

#define CLEAR_RANGE_MIN ((uint64_t)4 << 20) /* a thread's start costs more below */

static int clear_range(void *ctx, uint64_t a, uint64_t b)
{
	memset((unsigned char *)ctx + a, 0, (size_t)(b - a));
	return 0;
}

void *gt_big_calloc_threads(size_t n, size_t size, unsigned threads)
{
	void *p = gt_big_malloc(n, size);
	if (p)
		gt_parallel_ranges((uint64_t)(n ? n : 1) * size, CLEAR_RANGE_MIN, threads, clear_range, p);
	return p;
}

void *gt_big_realloc(void *p, size_t n, size_t size)
{
	if (gt_fault_hit("alloc"))
		return NULL;
	n = n ? n : 1;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(p, n * size);
}

void gt_big_free(void *p)
{
	if (!p)
		return;
	size_t size = malloc_usable_size(p);
	bool keep = false;
	if (size >= KEEP_MIN) {
		pthread_mutex_lock(&kept.lock);
		if (kept.count < KEPT) {
			kept.block[kept.count] = p;
			kept.size[kept.count++] = size;
			keep = true;
		}
		pthread_mutex_unlock(&kept.lock);
	}
	if (!keep)
		free(p);
}

void gt_big_trim(void)
{
	pthread_mutex_lock(&kept.lock);
	while (kept.count)
		free(kept.block[--kept.count]);
	pthread_mutex_unlock(&kept.lock);
}

void gt_touch_pages(void *p, size_t bytes)
{
	volatile unsigned char *c = p;
	if (!bytes)
		return;
	for (size_t at = 0; at < bytes; at += 4096) /* the smallest page */
		c[at] = 0;
	c[bytes - 1] = 0;
}
