/* Stable sorts of (key, value) pairs by a 64-bit key: an LSD radix sort
 * (O(n) per byte of the key, and a byte every key shares is skipped), for
 * the arrays of spans, points and flows sorted by time or id that a
 * comparison sort would take O(n log n) calls for. */
#ifndef GT_RADIX_SORT_H
#define GT_RADIX_SORT_H

#include <stdint.h>

/* Sorts (key[i], val[i]) by key, stable; tk and tv are n-element scratch. */
void gt_radix_sort_u64(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv);
/* The same in up to `jobs` ranges on threads (one: the call above), the
 * same bytes. */
void gt_radix_sort_u64_jobs(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv, unsigned jobs);

#endif
