/* Sorting for the stats reports: records sorted in place by their keys,
 * key after key from the least significant (each pass stable), by LSD
 * radix passes of 11 bits over the range a key spans; a few linear passes
 * where a comparison sort of 20M records took seconds. Private to stats/. */
#ifndef GT_STATS_ORDER_H
#define GT_STATS_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct stats_records {
	void *v;       /* n records of size bytes (may move to the scratch: read it after) */
	void *scratch;
	uint64_t n;
	size_t size;
} stats_records;

/* Takes v (gt_big_malloc'd) over; -1 out of memory (v is still the caller's). */
int stats_records_init(stats_records *r, void *v, uint64_t n, size_t size);
/* Frees the scratch; returns the sorted records (the caller's to gt_big_free). */
void *stats_records_done(stats_records *r);

/* One stable sort by the uint32_t or int64_t key at offset in each record. */
void stats_records_by_u32(stats_records *r, size_t offset);
void stats_records_by_i64(stats_records *r, size_t offset);

/* A sort key: the uint32_t (wide: int64_t) at offset in each record. */
typedef struct stats_key {
	size_t offset;
	bool wide;
} stats_key;

/* Sorts the n records at *v by keys, the most significant first (ties keep
 * their order); *v may move to another block. -1 out of memory (*v
 * untouched). */
int stats_sort_records(void **v, uint64_t n, size_t size, const stats_key *keys, size_t nkeys);

/* Sorts n values in place, ascending. -1 out of memory. */
int stats_sort_i64(int64_t *v, uint64_t n);
int stats_sort_u32(uint32_t *v, uint64_t n);

#endif
