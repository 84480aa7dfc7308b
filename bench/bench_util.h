/* What every benchmark driver uses: a monotonic clock, the median of a
 * set of runs, and the splitmix64 stream for reproducible inputs. */
#ifndef GT_BENCH_UTIL_H
#define GT_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

#include "base/splitmix.h"

static inline double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v in place. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
