/* Interned strings: each distinct string is stored once and named by a
 * dense uint32 id. Ids are assigned in first-seen order. */
#ifndef GT_STRPOOL_H
#define GT_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct gt_strpool {
	char *data;         /* NUL-terminated strings, back to back */
	size_t data_len, data_cap;
	uint64_t *offsets;  /* id -> offset into data */
	uint32_t count, offsets_cap;
	uint32_t *slots;    /* open-addressing table of id+1, 0 empty */
	uint32_t slot_mask;
} gt_strpool;

void gt_strpool_init(gt_strpool *p);
void gt_strpool_free(gt_strpool *p);
/* Returns the id of s[0..len), adding it if new; GT_NONE (0xffffffff) if
 * out of memory. */
uint32_t gt_strpool_intern(gt_strpool *p, const char *s, size_t len);
/* The same, with hash = gt_strpool_hash(s, len) computed beforehand (the
 * ingest hashes names while parsing, on several threads). */
uint32_t gt_strpool_intern_hashed(gt_strpool *p, const char *s, size_t len, uint64_t hash);
uint64_t gt_strpool_hash(const char *s, size_t len);
/* Fills an empty pool with a whole table at once, on threads: string i
 * (id i) is at src + at[i], len_hash[2i] bytes long with hash
 * len_hash[2i+1]. The pool is the one interning them in order would give,
 * its capacities too (only the probe order in its slots may differ).
 * Strings stored back to back take no more than the src_len bytes that src
 * holds; more are strings overlapping, whose suffixes would grow the pool
 * without bound. 0; 1 when a string comes twice; 2 when the strings need
 * more than src_len bytes; -1 out of memory. */
int gt_strpool_load(gt_strpool *p, const char *src, uint64_t src_len, const uint64_t *at, const uint64_t *len_hash,
		    uint64_t n);
/* Returns the id or GT_NONE if the string was never interned. */
uint32_t gt_strpool_find(const gt_strpool *p, const char *s, size_t len);
uint32_t gt_strpool_find_hashed(const gt_strpool *p, const char *s, size_t len, uint64_t hash);
static inline const char *gt_strpool_get(const gt_strpool *p, uint32_t id)
{
	return p->data + p->offsets[id];
}
size_t gt_strpool_bytes(const gt_strpool *p);

#endif
