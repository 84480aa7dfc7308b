/* Stable sorts of (key, value) pairs. The causal steps sort spans and points
 * by time many times per window, so an LSD radix sort (O(n) per digit, and
 * digits every key shares are skipped) replaces qsort's O(n log n) calls. */
#include <string.h>

#include "causal_internal.h"

#define SMALL 48 /* below this, insertion sort is quicker than 8 histograms */

static void insertion_sort(uint64_t *key, uint32_t *val, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint64_t k = key[i];
		uint32_t v = val[i], j = i;
		for (; j > 0 && key[j - 1] > k; j--) {
			key[j] = key[j - 1];
			val[j] = val[j - 1];
		}
		key[j] = k;
		val[j] = v;
	}
}

void causal_sort_u64(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv)
{
	if (n < SMALL) {
		insertion_sort(key, val, n);
		return;
	}
	uint32_t count[8][256];
	memset(count, 0, sizeof count);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = key[i];
		for (int d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 255]++;
	}
	uint64_t *sk = key, *dk = tk;
	uint32_t *sv = val, *dv = tv;
	for (int d = 0; d < 8; d++) {
		uint32_t *c = count[d];
		if (c[(sk[0] >> (8 * d)) & 255] == n)
			continue; /* every key has this digit: the pass would copy */
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++) {
			uint32_t x = c[b];
			c[b] = sum;
			sum += x;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = c[(sk[i] >> (8 * d)) & 255]++;
			dk[at] = sk[i];
			dv[at] = sv[i];
		}
		uint64_t *xk = sk;
		sk = dk, dk = xk;
		uint32_t *xv = sv;
		sv = dv, dv = xv;
	}
	if (sk != key) {
		memcpy(key, sk, (size_t)n * sizeof *key);
		memcpy(val, sv, (size_t)n * sizeof *val);
	}
}
