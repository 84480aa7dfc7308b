/* Searching sorted arrays: times from a hint, positions in buckets. */
#ifndef GT_SORTED_SEARCH_H
#define GT_SORTED_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

/* The first k in [0, n) where a[k] > t (past_equal) or a[k] >= t, else n.
 * a is sorted ascending. The search gallops out from hint, so a run of
 * searches for nearby times costs O(log distance) each, not O(log n). */
static inline uint32_t gt_search_from(const int64_t *a, uint32_t n, int64_t t, bool past_equal, uint32_t hint)
{
#define GT_BEFORE(k) (past_equal ? a[k] <= t : a[k] < t)
	/* invariant: every k < lo is before t, no k >= hi is */
	uint64_t lo = 0, hi = n, step = 1;
	if (hint > n)
		hint = n;
	if (hint < n && GT_BEFORE(hint)) {
		lo = (uint64_t)hint + 1;
		for (;;) {
			uint64_t p = lo + step - 1;
			if (p >= n)
				break;
			if (!GT_BEFORE(p)) {
				hi = p;
				break;
			}
			lo = p + 1;
			step *= 2;
		}
	} else {
		hi = hint;
		while (hi > 0) {
			uint64_t p = step < hi ? hi - step : 0;
			if (GT_BEFORE(p)) {
				lo = p + 1;
				break;
			}
			hi = p;
			step *= 2;
		}
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (GT_BEFORE(mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
#undef GT_BEFORE
}

/* The first k in [0, n) where a[k] >= x, else n; a is sorted ascending. */
static inline uint32_t gt_lower_bound_u32(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The bucket holding position pos, where bucket b holds [first[b],
 * first[b + 1]) of count buckets (first ascending): the first b whose
 * end is past pos, count where none is. Empty buckets are passed over. */
static inline uint32_t gt_bucket_of(const uint32_t *first, uint32_t count, uint64_t pos)
{
	uint32_t lo = 0, hi = count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (first[mid + 1] <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
