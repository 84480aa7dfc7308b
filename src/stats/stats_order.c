/* LSD radix sorts of records (stats_order.h). */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "stats_order.h"

enum { DIGIT_BITS = 11, BUCKETS = 1 << DIGIT_BITS, SMALL = 4096 };

int stats_records_init(stats_records *r, void *v, uint64_t n, size_t size)
{
	memset(r, 0, sizeof *r);
	r->v = v, r->n = n, r->size = size;
	if (n < 2)
		return 0;
	r->scratch = gt_big_malloc(n, size);
	if (!r->scratch) {
		memset(r, 0, sizeof *r);
		return -1;
	}
	return 0;
}

void *stats_records_done(stats_records *r)
{
	void *v = r->v;
	gt_big_free(r->scratch);
	memset(r, 0, sizeof *r);
	return v;
}

static inline uint32_t digit_of(const char *rec, size_t offset, int wide, int64_t lo, int shift)
{
	const char *p = rec + offset;
	uint64_t k = wide ? (uint64_t)*(const int64_t *)p - (uint64_t)lo : (uint64_t)(*(const uint32_t *)p - (uint32_t)lo);
	return (uint32_t)((k >> shift) & (BUCKETS - 1));
}

/* Moves a record; the sizes the reports use are copied as constants. */
static inline void move(char *to, const char *from, size_t size)
{
	switch (size) {
	case 24:
		memcpy(to, from, 24);
		break;
	case 32:
		memcpy(to, from, 32);
		break;
	case 40:
		memcpy(to, from, 40);
		break;
	case 48:
		memcpy(to, from, 48);
		break;
	default:
		memcpy(to, from, size);
	}
}

/* The passes over the digits of the key at offset (wide: int64_t, else
 * uint32_t) less lo, whose range is [0, range], moving whole records; a
 * digit is read again when its record moves rather than kept (less memory
 * to fault in). */
static void radix(stats_records *r, uint64_t range, size_t offset, int wide, int64_t lo)
{
	uint64_t count[BUCKETS];
	for (int shift = 0; shift < 64 && (range >> shift); shift += DIGIT_BITS) {
		const char *in = r->v;
		char *out = r->scratch;
		memset(count, 0, sizeof count);
		for (uint64_t i = 0; i < r->n; i++)
			count[digit_of(in + i * r->size, offset, wide, lo, shift)]++;
		if (count[digit_of(in, offset, wide, lo, shift)] == r->n)
			continue; /* one digit throughout: nothing moves */
		uint64_t at = 0;
		for (int b = 0; b < BUCKETS; b++) {
			uint64_t c = count[b];
			count[b] = at;
			at += c;
		}
		for (uint64_t i = 0; i < r->n; i++) {
			const char *rec = in + i * r->size;
			move(out + count[digit_of(rec, offset, wide, lo, shift)]++ * r->size, rec, r->size);
		}
		void *t = r->v;
		r->v = r->scratch, r->scratch = t;
	}
}

void stats_records_by_u32(stats_records *r, size_t offset)
{
	if (r->n < 2)
		return;
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint64_t i = 0; i < r->n; i++) {
		uint32_t k = *(const uint32_t *)((const char *)r->v + i * r->size + offset);
		lo = k < lo ? k : lo, hi = k > hi ? k : hi;
	}
	radix(r, hi - lo, offset, 0, lo);
}

void stats_records_by_i64(stats_records *r, size_t offset)
{
	if (r->n < 2)
		return;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint64_t i = 0; i < r->n; i++) {
		int64_t k = *(const int64_t *)((const char *)r->v + i * r->size + offset);
		lo = k < lo ? k : lo, hi = k > hi ? k : hi;
	}
	radix(r, (uint64_t)hi - (uint64_t)lo, offset, 1, lo); /* offsets from the smallest: no overflow */
}

int stats_sort_records(void **v, uint64_t n, size_t size, const stats_key *keys, size_t nkeys)
{
	stats_records r;
	if (stats_records_init(&r, *v, n, size) < 0)
		return -1;
	for (size_t k = nkeys; k-- > 0;) /* least significant first */
		if (keys[k].wide)
			stats_records_by_i64(&r, keys[k].offset);
		else
			stats_records_by_u32(&r, keys[k].offset);
	*v = stats_records_done(&r);
	return 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* Values: a comparison sort below SMALL (no scratch to set up). */
static int sort_values(void *v, uint64_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n < SMALL) {
		qsort(v, n, size, cmp);
		return 0;
	}
	stats_records r;
	void *copy = gt_big_malloc(n, size);
	if (!copy || stats_records_init(&r, copy, n, size) < 0) {
		gt_big_free(copy);
		return -1;
	}
	memcpy(copy, v, n * size);
	if (size == sizeof(int64_t))
		stats_records_by_i64(&r, 0);
	else
		stats_records_by_u32(&r, 0);
	void *sorted = stats_records_done(&r);
	memcpy(v, sorted, n * size);
	gt_big_free(sorted);
	return 0;
}

int stats_sort_i64(int64_t *v, uint64_t n)
{
	return sort_values(v, n, sizeof *v, cmp_i64);
}

int stats_sort_u32(uint32_t *v, uint64_t n)
{
	return sort_values(v, n, sizeof *v, cmp_u32);
}
