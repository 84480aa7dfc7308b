/* A distribution of durations (stats.h: gt_stats_dist), exact in integer
 * nanoseconds but for the standard deviation's root. */
#include <math.h>
#include <string.h>

#include "stats.h"

#define AT(v, stride, i) (*(const int64_t *)((const char *)(v) + (size_t)(i) * (stride)))

/* The rounded square root of v (an integer). */
static int64_t root(unsigned __int128 v)
{
	uint64_t r = (uint64_t)sqrtl((long double)v);
	while ((unsigned __int128)r * r > v)
		r--;
	while ((unsigned __int128)(r + 1) * (r + 1) <= v)
		r++;
	/* rounded: r + 1 when v - r^2 > r (v is nearer (r + 1)^2) */
	return (int64_t)(v - (unsigned __int128)r * r > r ? r + 1 : r);
}

static unsigned __int128 square(__int128 d)
{
	unsigned __int128 a = (unsigned __int128)(d < 0 ? -d : d);
	return a * a;
}

/* Population standard deviation, to the nanosecond. */
static int64_t stddev(const int64_t *v, size_t stride, uint64_t n, int64_t mean_floor, bool *overflow)
{
	/* deviations from the floor of the mean keep the squares small */
	unsigned __int128 sq = 0;
	__int128 lin = 0;
	for (uint64_t i = 0; i < n; i++) {
		__int128 d = (__int128)AT(v, stride, i) - mean_floor;
		unsigned __int128 d2 = square(d);
		if (sq + d2 < sq)
			*overflow = true;
		sq += d2;
		lin += d;
	}
	/* variance = (sq - lin^2 / n) / n */
	long double var = ((long double)sq - (long double)square(lin) / (long double)n) / (long double)n;
	if (var < 0)
		var = 0;
	if (var < 1.8e19L) /* to the nanosecond: the rounded root of the rounded variance */
		return root((unsigned __int128)(var + 0.5L));
	return (int64_t)(sqrtl(var) + 0.5L);
}

void gt_stats_dist_of(const int64_t *v, size_t stride, uint64_t n, gt_stats_dist *d, bool *overflow)
{
	memset(d, 0, sizeof *d);
	if (!n)
		return;
	int64_t total = 0;
	for (uint64_t i = 0; i < n; i++)
		*overflow |= __builtin_add_overflow(total, AT(v, stride, i), &total);
	d->count = n;
	d->total_ns = total;
	d->mean_ns = (int64_t)(((__int128)total * 2 + (__int128)n) / ((__int128)n * 2)); /* half up */
	d->median_ns = AT(v, stride, (n - 1) / 2);
	d->p95_ns = AT(v, stride, (95 * n + 99) / 100 - 1);
	d->min_ns = AT(v, stride, 0);
	d->max_ns = AT(v, stride, n - 1);
	d->stddev_ns = stddev(v, stride, n, (int64_t)((__int128)total / (__int128)n), overflow);
}
