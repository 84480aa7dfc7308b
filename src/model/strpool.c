/* String interning with open addressing (FNV-1a hashes, linear probing). */
#include "strpool.h"
#include "base/base.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE 0xffffffffu

/* Eight bytes per step: names in traces are often long (kernel
 * signatures), and interning runs once per span. */
uint64_t gt_strpool_hash(const char *s, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = len * k;
	size_t i = 0;
	if (len > 96) {
		/* long names (kernel signatures) differ at their ends: hash the
		 * first and last 48 bytes; equal hashes are still compared in full */
		for (; i < 48; i += 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			h = (h ^ w) * k;
			h ^= h >> 29;
		}
		i = len - 48;
	}
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	if (i < len) /* s may be NULL when len is 0 */
		memcpy(&w, s + i, len - i);
	h = (h ^ w) * k;
	h ^= h >> 32;
	return h;
}

void gt_strpool_init(gt_strpool *p)
{
	memset(p, 0, sizeof *p);
}

void gt_strpool_free(gt_strpool *p)
{
	free(p->data);
	free(p->offsets);
	free(p->slots);
	memset(p, 0, sizeof *p);
}

static int same(const gt_strpool *p, uint32_t id, const char *s, size_t len)
{
	/* a stored string shorter than len is not compared: memcmp may read
	 * all len bytes, past the pool's end for the last string */
	uint64_t end = id + 1 < p->count ? p->offsets[id + 1] : p->data_len;
	if (end - p->offsets[id] < (uint64_t)len + 1)
		return 0;
	const char *t = p->data + p->offsets[id];
	return memcmp(t, s, len) == 0 && t[len] == '\0';
}

uint32_t gt_strpool_find_hashed(const gt_strpool *p, const char *s, size_t len, uint64_t hash)
{
	if (!p->slots)
		return NONE;
	for (uint64_t i = hash & p->slot_mask;; i = (i + 1) & p->slot_mask) {
		uint32_t v = p->slots[i];
		if (v == 0)
			return NONE;
		if (same(p, v - 1, s, len))
			return v - 1;
	}
}

uint32_t gt_strpool_find(const gt_strpool *p, const char *s, size_t len)
{
	return gt_strpool_find_hashed(p, s, len, gt_strpool_hash(s, len));
}

static int grow_slots(gt_strpool *p)
{
	if (p->slots && p->slot_mask >= UINT32_MAX / 2)
		return -1; /* the doubled size would not fit 32 bits */
	uint32_t n = p->slots ? (p->slot_mask + 1) * 2 : 1024;
	uint32_t *slots = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *slots);
	if (!slots)
		return -1;
	for (uint32_t id = 0; id < p->count; id++) {
		const char *t = p->data + p->offsets[id];
		uint64_t i = gt_strpool_hash(t, strlen(t)) & (n - 1);
		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = id + 1;
	}
	free(p->slots);
	p->slots = slots;
	p->slot_mask = n - 1;
	return 0;
}

uint32_t gt_strpool_intern(gt_strpool *p, const char *s, size_t len)
{
	return gt_strpool_intern_hashed(p, s, len, gt_strpool_hash(s, len));
}

uint32_t gt_strpool_intern_hashed(gt_strpool *p, const char *s, size_t len, uint64_t hash)
{
	/* keep the table at most half full */
	if (!p->slots || (uint64_t)p->count * 2 >= (uint64_t)p->slot_mask + 1)
		if (grow_slots(p) < 0)
			return NONE;
	uint64_t i = hash & p->slot_mask;
	for (;; i = (i + 1) & p->slot_mask) {
		uint32_t v = p->slots[i];
		if (v == 0)
			break;
		if (same(p, v - 1, s, len))
			return v - 1;
	}
	if (p->count == NONE - 1)
		return NONE;
	if (p->data_len + len + 1 > p->data_cap) {
		size_t cap = p->data_cap ? p->data_cap * 2 : 4096;
		while (cap < p->data_len + len + 1)
			cap *= 2;
		char *d = gt_fault_hit("alloc") ? NULL : realloc(p->data, cap);
		if (!d)
			return NONE;
		p->data = d;
		p->data_cap = cap;
	}
	if (p->count == p->offsets_cap) {
		uint64_t cap = p->offsets_cap ? (uint64_t)p->offsets_cap * 2 : 256;
		if (cap > UINT32_MAX)
			cap = UINT32_MAX; /* count stops below NONE - 1 */
		uint64_t *o = gt_fault_hit("alloc") ? NULL : realloc(p->offsets, (size_t)cap * sizeof *o);
		if (!o)
			return NONE;
		p->offsets = o;
		p->offsets_cap = (uint32_t)cap;
	}
	memcpy(p->data + p->data_len, s, len);
	p->data[p->data_len + len] = '\0';
	p->offsets[p->count] = p->data_len;
	p->data_len += len + 1;
	p->slots[i] = p->count + 1;
	return p->count++;
}

struct load {
	gt_strpool *p;
	const char *src;
	const uint64_t *at, *len_hash;
};

/* Compared with the source, which no thread writes: the pool's copy of
 * string id may not be made yet. */
static bool same_source(const struct load *l, uint32_t id, const char *s, uint64_t len)
{
	return l->len_hash[2 * id] == len && memcmp(l->src + l->at[id], s, len) == 0;
}

static int load_range(void *ctx, uint64_t a, uint64_t b)
{
	struct load *l = ctx;
	gt_strpool *p = l->p;
	for (uint64_t id = a; id < b; id++) {
		const char *s = l->src + l->at[id];
		uint64_t len = l->len_hash[2 * id];
		memcpy(p->data + p->offsets[id], s, len);
		p->data[p->offsets[id] + len] = '\0';
		/* two equal strings probe the same slots: the later to claim
		 * one passes the other's */
		for (uint64_t i = l->len_hash[2 * id + 1] & p->slot_mask;; i = (i + 1) & p->slot_mask) {
			uint32_t v = 0;
			if (__atomic_compare_exchange_n(&p->slots[i], &v, (uint32_t)id + 1, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				break;
			if (same_source(l, v - 1, s, len))
				return 1;
		}
	}
	return 0;
}

#define LOAD_PER_THREAD (1u << 14)

int gt_strpool_load(gt_strpool *p, const char *src, uint64_t src_len, const uint64_t *at, const uint64_t *len_hash,
		    uint64_t n)
{
	if (n == 0)
		return 0;
	if (n >= NONE)
		return 1; /* interning stops at NONE - 1 ids */
	/* the capacities interning one by one reaches */
	uint64_t offsets_cap = 256, slots = 1024, data_cap = 4096, data_len = 0;
	while (offsets_cap < n)
		offsets_cap *= 2;
	if (offsets_cap > UINT32_MAX)
		offsets_cap = UINT32_MAX;
	while ((n - 1) * 2 >= slots)
		slots *= 2;
	if (slots > (uint64_t)1 << 31)
		return -1;
	p->offsets = gt_fault_hit("alloc") ? NULL : malloc((size_t)offsets_cap * sizeof *p->offsets);
	if (!p->offsets)
		return -1;
	p->offsets_cap = (uint32_t)offsets_cap;
	for (uint64_t i = 0; i < n; i++) {
		p->offsets[i] = data_len, data_len += len_hash[2 * i] + 1;
		if (data_len > src_len) /* len_hash[] are bounded by src_len: no overflow */
			return 2;
	}
	while (data_cap < data_len)
		data_cap *= 2;
	p->data = gt_fault_hit("alloc") ? NULL : malloc(data_cap);
	p->slots = gt_fault_hit("alloc") ? NULL : calloc(slots, sizeof *p->slots);
	if (!p->data || !p->slots)
		return -1;
	p->data_cap = data_cap, p->slot_mask = (uint32_t)(slots - 1);
	p->data_len = data_len, p->count = (uint32_t)n;
	struct load l = {p, src, at, len_hash};
	return gt_parallel_ranges(n, LOAD_PER_THREAD, 0, load_range, &l) ? 1 : 0;
}

size_t gt_strpool_bytes(const gt_strpool *p)
{
	return p->data_cap + (size_t)p->offsets_cap * sizeof *p->offsets +
	       (p->slots ? ((size_t)p->slot_mask + 1) * sizeof *p->slots : 0);
}
