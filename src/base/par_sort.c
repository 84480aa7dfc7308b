/* The parallel sort (par_sort.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "big_alloc.h"
#include "jobs.h"
#include "par_sort.h"

enum { MIN_CHUNK = 1 << 16 }; /* below it a chunk is not worth a thread */

typedef struct sort_job {
	char *from, *to;     /* merge: from[a..m) and from[m..b) into to[a..b), outputs [lo, hi) of it */
	size_t a, m, b, size;
	int (*cmp)(const void *, const void *);
	size_t lo, hi;
} sort_job;

static void *sort_chunk(void *arg)
{
	sort_job *j = arg;
	qsort(j->from + j->a * j->size, j->b - j->a, j->size, j->cmp);
	return NULL;
}

/* How many of the first p outputs of merging x[0..nx) and y[0..ny) come
 * from x, ties going to x first (as merge takes them): the largest i whose
 * last x does not follow the y after the p - i it passes over. */
static size_t co_rank(const char *x, size_t nx, const char *y, size_t ny, size_t p, size_t s,
		      int (*cmp)(const void *, const void *))
{
	size_t lo = p > ny ? p - ny : 0, hi = p < nx ? p : nx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		if (p - mid < ny && cmp(y + (p - mid) * s, x + (mid - 1) * s) < 0)
			hi = mid - 1;
		else
			lo = mid;
	}
	return lo;
}

/* One slice [lo, hi) of the outputs of a merge, so that a round's last
 * merges (one of the whole array, at the end) still use every thread. */
static void *merge(void *arg)
{
	sort_job *j = arg;
	size_t s = j->size, na = j->m - j->a, nb = j->b - j->m;
	const char *x = j->from + j->a * s, *y = j->from + j->m * s;
	size_t i = co_rank(x, na, y, nb, j->lo - j->a, s, j->cmp), k = j->lo - j->a - i;
	size_t ie = co_rank(x, na, y, nb, j->hi - j->a, s, j->cmp), ke = j->hi - j->a - ie;
	char *o = j->to + j->lo * s;
	while (i < ie && k < ke) {
		const char *xi = x + i * s, *yk = y + k * s;
		if (j->cmp(yk, xi) < 0)
			memcpy(o, yk, s), k++;
		else
			memcpy(o, xi, s), i++;
		o += s;
	}
	memcpy(o, x + i * s, (ie - i) * s);
	o += (ie - i) * s;
	memcpy(o, y + k * s, (ke - k) * s);
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
		jobs[c] = (sort_job){base, NULL, bound[c], 0, bound[c + 1], size, cmp, 0, 0};
	gt_run_jobs(sort_chunk, jobs, sizeof *jobs, chunks);
	char *from = base, *to = scratch;
	for (unsigned width = 1; width < chunks; width *= 2) { /* runs of width chunks, merged in pairs */
		/* each merge's outputs in 2 * width slices: one per chunk in all */
		unsigned k = 0;
		for (unsigned c = 0; c < chunks; c += 2 * width) {
			size_t a = bound[c], m = bound[c + width], b = bound[c + 2 * width];
			for (unsigned q = 0; q < 2 * width; q++)
				jobs[k++] = (sort_job){from, to, a, m, b, size, cmp, a + (b - a) * q / (2 * width),
						       a + (b - a) * (q + 1) / (2 * width)};
		}
		gt_run_jobs(merge, jobs, sizeof *jobs, k);
		char *x = from;
		from = to, to = x;
	}
	if (from != base)
		memcpy(base, from, n * size);
	gt_big_free(scratch);
	return 0;
}
