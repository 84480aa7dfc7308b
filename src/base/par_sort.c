/* The parallel sort (par_sort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "big_alloc.h"
#include "jobs.h"
#include "par_sort.h"

enum { MIN_CHUNK = 1 << 16 }; /* below it a chunk is not worth a thread */

typedef struct sort_job {
	char *from, *to;     /* merge: from[a..m) and from[m..b) into to[a..b) */
	size_t a, m, b, size;
	int (*cmp)(const void *, const void *);
} sort_job;

static void *sort_chunk(void *arg)
{
	sort_job *j = arg;
	qsort(j->from + j->a * j->size, j->b - j->a, j->size, j->cmp);
	return NULL;
}

static void *merge(void *arg)
{
	sort_job *j = arg;
	size_t s = j->size, i = j->a, k = j->m, o = j->a;
	while (i < j->m && k < j->b) {
		const char *x = j->from + i * s, *y = j->from + k * s;
		if (j->cmp(y, x) < 0)
			memcpy(j->to + o++ * s, y, s), k++;
		else
			memcpy(j->to + o++ * s, x, s), i++;
	}
	memcpy(j->to + o * s, j->from + i * s, (j->m - i) * s);
	o += j->m - i;
	memcpy(j->to + o * s, j->from + k * s, (j->b - k) * s);
	return NULL;
}

int gt_parallel_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), unsigned threads)
{
	unsigned t = gt_thread_count(threads, GT_MAX_JOBS), chunks = 1;
	while (chunks * 2 <= t && n / (chunks * 2) >= MIN_CHUNK)
		chunks *= 2;
	if (chunks == 1) {
		if (n)
			qsort(base, n, size, cmp);
		return 0;
	}
	char *scratch = gt_big_malloc(n, size);
	if (!scratch)
		return -1;
	sort_job jobs[GT_MAX_JOBS];
	size_t bound[GT_MAX_JOBS + 1];
	for (unsigned c = 0; c <= chunks; c++)
		bound[c] = n * c / chunks;
	for (unsigned c = 0; c < chunks; c++)
		jobs[c] = (sort_job){base, NULL, bound[c], 0, bound[c + 1], size, cmp};
	gt_run_jobs(sort_chunk, jobs, sizeof *jobs, chunks);
	char *from = base, *to = scratch;
	for (unsigned width = 1; width < chunks; width *= 2) { /* runs of width chunks, merged in pairs */
		unsigned k = 0;
		for (unsigned c = 0; c < chunks; c += 2 * width)
			jobs[k++] = (sort_job){from, to, bound[c], bound[c + width], bound[c + 2 * width], size, cmp};
		gt_run_jobs(merge, jobs, sizeof *jobs, k);
		char *x = from;
		from = to, to = x;
	}
	if (from != base)
		memcpy(base, from, n * size);
	gt_big_free(scratch);
	return 0;
}
