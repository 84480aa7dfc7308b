/* The Mann-Whitney U test (mwu.h): exact counts of rank sums for small
 * samples, the normal approximation above. */
#include "mwu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tagged {
	int64_t v;
	int side; /* 0: a, 1: b */
};

static int cmp_tagged(const void *x, const void *y)
{
	const struct tagged *a = x, *b = y;
	return (a->v > b->v) - (a->v < b->v);
}

/* Doubled mid-ranks (integers: i + j for a tie group on ranks i..j). */
static void doubled_ranks(const struct tagged *t, size_t n, uint32_t *r2, double *tie_sum)
{
	*tie_sum = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			r2[k] = (uint32_t)(i + 1 + j + 1);
		double g = (double)(j - i + 1);
		*tie_sum += g * g * g - g;
		i = j + 1;
	}
}

/* Exact p: counts of na-subsets by doubled rank sum, a knapsack over the
 * N ranks (counts <= C(40, 20) < 2^38). */
static int exact_p(const uint32_t *r2, size_t n, size_t na, uint64_t s_obs, gt_mwu *out, gt_error *err)
{
	uint64_t smax = 0;
	for (size_t i = 0; i < n; i++)
		smax += r2[i];
	size_t w = (size_t)smax + 1;
	uint64_t *cnt = calloc((na + 1) * w, sizeof *cnt);
	if (!cnt)
		return gt_fail(err, GT_EINPUT, "out of memory for the U test");
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = (i + 1 < na ? i + 1 : na); k >= 1; k--)
			for (uint64_t s = smax; s >= r2[i]; s--)
				cnt[k * w + s] += cnt[(k - 1) * w + s - r2[i]];
	/* the mean of the doubled sum: na (N + 1) */
	int64_t mean = (int64_t)na * (int64_t)(n + 1);
	int64_t d_obs = (int64_t)s_obs - mean;
	if (d_obs < 0)
		d_obs = -d_obs;
	uint64_t far = 0, all = 0;
	for (uint64_t s = 0; s <= smax; s++) {
		int64_t d = (int64_t)s - mean;
		if (d < 0)
			d = -d;
		all += cnt[na * w + s];
		if (d >= d_obs)
			far += cnt[na * w + s];
	}
	free(cnt);
	out->exact = true;
	out->num = far;
	out->den = all;
	out->p = (double)far / (double)all;
	return 0;
}

int gt_mwu_test(const int64_t *a, size_t na, const int64_t *b, size_t nb, gt_mwu *out, gt_error *err)
{
	memset(out, 0, sizeof *out);
	if (!na || !nb)
		return gt_fail(err, GT_EINPUT, "the U test needs values on both sides");
	size_t n = na + nb;
	struct tagged *t = malloc(n * sizeof *t);
	uint32_t *r2 = malloc(n * sizeof *r2);
	if (!t || !r2) {
		free(t);
		free(r2);
		return gt_fail(err, GT_EINPUT, "out of memory for the U test");
	}
	for (size_t i = 0; i < na; i++)
		t[i] = (struct tagged){a[i], 0};
	for (size_t i = 0; i < nb; i++)
		t[na + i] = (struct tagged){b[i], 1};
	qsort(t, n, sizeof *t, cmp_tagged);
	double tie_sum;
	doubled_ranks(t, n, r2, &tie_sum);
	uint64_t s2 = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].side == 0)
			s2 += r2[i];
	int rc = 0;
	if (na <= GT_MWU_EXACT_MAX && nb <= GT_MWU_EXACT_MAX) {
		/* the subsets are over the ranks only: the order in which r2
		 * lists them does not matter */
		rc = exact_p(r2, n, na, s2, out, err);
	} else {
		double dn = (double)n, u = (double)s2 / 2 - (double)na * ((double)na + 1) / 2;
		double mu = (double)na * (double)nb / 2;
		double var = (double)na * (double)nb / 12 * ((dn + 1) - tie_sum / (dn * (dn - 1)));
		double p = 1;
		if (var > 0) {
			double z = (fabs(u - mu) - 0.5) / sqrt(var);
			p = z <= 0 ? 1 : erfc(z / sqrt(2.0));
			if (p > 1)
				p = 1;
		}
		out->exact = false;
		out->p = p;
	}
	free(t);
	free(r2);
	return rc;
}
