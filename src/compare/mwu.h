/* The two-sided Mann-Whitney U test between two samples of int64 values.
 *
 * Ranks: the N = na + nb values sorted together, tied values sharing the
 * mean of their ranks (mid-ranks). S = the sum of a's ranks; the test asks
 * how likely a rank sum at least as far from its mean na (N + 1) / 2 is when
 * every way of choosing na of the N ranks is equally likely.
 *  - exact (na <= 20 and nb <= 20): p = (the number of na-subsets of the N
 *    mid-ranks whose sum is at least as far from the mean as S) / C(N, na),
 *    counted exactly (ties included: the distribution is the one of the
 *    tied ranks as they are);
 *  - above: the normal approximation with the tie correction and the
 *    continuity correction: U = S - na (na + 1) / 2,
 *    sigma^2 = na nb / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) over the
 *    tie groups' sizes t, z = (|U - na nb / 2| - 1/2) / sigma,
 *    p = erfc(z / sqrt 2), at most 1; 1 when sigma is 0.
 * Either side empty: no p. */
#ifndef GT_MWU_H
#define GT_MWU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

#define GT_MWU_EXACT_MAX 20

typedef struct gt_mwu {
	bool exact;
	uint64_t num, den; /* exact: p = num / den */
	double p;          /* both: p as a double */
} gt_mwu;

/* 0, or -1 when a side is empty (no p) or memory runs out (err set). */
int gt_mwu_test(const int64_t *a, size_t na, const int64_t *b, size_t nb, gt_mwu *out, gt_error *err);

#endif
