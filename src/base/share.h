/* A share num/den in millionths, rounded half up, exact in integers: what
 * every document and table prints with six decimals. */
#ifndef GT_SHARE_H
#define GT_SHARE_H

#include <stdbool.h>
#include <stdint.h>

/* false (no share) when den <= 0 or num < 0. */
static inline bool gt_share_millionths(int64_t num, int64_t den, uint64_t *out)
{
	if (den <= 0 || num < 0)
		return false;
	*out = (uint64_t)(((unsigned __int128)num * 2000000u / (uint64_t)den + 1) / 2);
	return true;
}

/* The same as a double (0 when there is no share). */
static inline double gt_share6(int64_t num, int64_t den)
{
	uint64_t q;
	return gt_share_millionths(num, den, &q) ? (double)q / 1e6 : 0;
}

#endif
