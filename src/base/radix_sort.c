/* The stable radix sorts (radix_sort.h): least significant digit first,
 * O(n) per digit, and a digit every key shares is skipped. */
#include <string.h>

#include "jobs.h"
#include "radix_sort.h"

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

void gt_radix_sort_u64(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv)
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

/* On threads: per digit, each job counts its range, then places it after
 * the same digit's items of the ranges before, so each pass stays stable
 * and the result is the one gt_radix_sort_u64 gives. */
typedef struct radix_range {
	const uint64_t *sk;
	const uint32_t *sv;
	uint64_t *dk;
	uint32_t *dv;
	uint32_t a, b;
	int shift;
	uint64_t or_, and_;
	uint32_t at[256]; /* counts, then where this range's next item of each digit goes */
} radix_range;

static void *radix_bits(void *arg)
{
	radix_range *r = arg;
	uint64_t o = 0, a = UINT64_MAX;
	for (uint32_t i = r->a; i < r->b; i++)
		o |= r->sk[i], a &= r->sk[i];
	r->or_ = o, r->and_ = a;
	return NULL;
}

static void *radix_count(void *arg)
{
	radix_range *r = arg;
	memset(r->at, 0, sizeof r->at);
	for (uint32_t i = r->a; i < r->b; i++)
		r->at[(r->sk[i] >> r->shift) & 255]++;
	return NULL;
}

static void *radix_place(void *arg)
{
	radix_range *r = arg;
	for (uint32_t i = r->a; i < r->b; i++) {
		uint32_t at = r->at[(r->sk[i] >> r->shift) & 255]++;
		r->dk[at] = r->sk[i];
		r->dv[at] = r->sv[i];
	}
	return NULL;
}

static void *radix_copy(void *arg)
{
	radix_range *r = arg;
	memcpy(r->dk + r->a, r->sk + r->a, (size_t)(r->b - r->a) * sizeof *r->dk);
	memcpy(r->dv + r->a, r->sv + r->a, (size_t)(r->b - r->a) * sizeof *r->dv);
	return NULL;
}

void gt_radix_sort_u64_jobs(uint64_t *key, uint32_t *val, uint32_t n, uint64_t *tk, uint32_t *tv, unsigned jobs)
{
	unsigned k = jobs < GT_MAX_JOBS ? jobs : GT_MAX_JOBS;
	if (k < 2 || n < k) {
		gt_radix_sort_u64(key, val, n, tk, tv);
		return;
	}
	radix_range r[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		r[j] = (radix_range){.sk = key, .a = (uint32_t)((uint64_t)n * j / k),
				     .b = (uint32_t)((uint64_t)n * (j + 1) / k)};
	gt_run_jobs(radix_bits, r, sizeof *r, k);
	uint64_t or_ = 0, and_ = UINT64_MAX;
	for (unsigned j = 0; j < k; j++)
		or_ |= r[j].or_, and_ &= r[j].and_;
	uint64_t varies = or_ ^ and_; /* the bits not every key shares */
	uint64_t *sk = key, *dk = tk;
	uint32_t *sv = val, *dv = tv;
	for (int d = 0; d < 8; d++) {
		if (!((varies >> (8 * d)) & 255))
			continue; /* every key has this digit: the pass would copy */
		for (unsigned j = 0; j < k; j++)
			r[j].sk = sk, r[j].sv = sv, r[j].dk = dk, r[j].dv = dv, r[j].shift = 8 * d;
		gt_run_jobs(radix_count, r, sizeof *r, k);
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++)
			for (unsigned j = 0; j < k; j++) {
				uint32_t c = r[j].at[b];
				r[j].at[b] = sum;
				sum += c;
			}
		gt_run_jobs(radix_place, r, sizeof *r, k);
		uint64_t *xk = sk;
		sk = dk, dk = xk;
		uint32_t *xv = sv;
		sv = dv, dv = xv;
	}
	if (sk != key) {
		for (unsigned j = 0; j < k; j++)
			r[j].sk = sk, r[j].sv = sv, r[j].dk = key, r[j].dv = val;
		gt_run_jobs(radix_copy, r, sizeof *r, k);
	}
}
