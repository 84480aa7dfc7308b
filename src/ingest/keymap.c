#include "keymap.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const gt_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 4; i++) {
		h ^= k->w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

void gt_keymap_free(gt_keymap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static int grow(gt_keymap *m)
{
	if (m->keys && m->mask >= UINT32_MAX / 2)
		return -1; /* the doubled size would not fit 32 bits */
	uint32_t n = m->keys ? (m->mask + 1) * 2 : 64;
	gt_key *keys = gt_fault_hit("alloc") ? NULL : malloc((size_t)n * sizeof *keys);
	uint32_t *vals = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (uint32_t i = 0; m->keys && i <= m->mask; i++) {
		if (!m->vals[i])
			continue;
		uint64_t j = hash_key(&m->keys[i]) & (n - 1);
		while (vals[j])
			j = (j + 1) & (n - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->mask = n - 1;
	return 0;
}

/* Four words compared inline: a memcmp call per probe was a tenth of the
 * builder's time. */
static inline bool same_key(const gt_key *a, const gt_key *b)
{
	return ((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) | (a->w[2] ^ b->w[2]) | (a->w[3] ^ b->w[3])) == 0;
}

uint32_t *gt_keymap_slot(gt_keymap *m, const gt_key *k, bool *found)
{
	if (!m->keys || (uint64_t)(m->count + 1) * 2 > (uint64_t)m->mask + 1)
		if (grow(m) < 0)
			return NULL;
	uint64_t j = hash_key(k) & m->mask;
	while (m->vals[j]) {
		if (same_key(&m->keys[j], k)) {
			*found = true;
			return &m->vals[j];
		}
		j = (j + 1) & m->mask;
	}
	*found = false;
	m->keys[j] = *k;
	m->count++;
	return &m->vals[j];
}

uint32_t gt_keymap_get(const gt_keymap *m, const gt_key *k)
{
	if (!m->keys)
		return UINT32_MAX;
	uint64_t j = hash_key(k) & m->mask;
	while (m->vals[j]) {
		if (same_key(&m->keys[j], k))
			return m->vals[j] - 1;
		j = (j + 1) & m->mask;
	}
	return UINT32_MAX;
}
