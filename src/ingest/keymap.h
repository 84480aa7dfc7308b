/* A hash map from fixed 4-word keys to uint32 values (open addressing).
 * Used for tracks, async tracks and flow ids during ingest. */
#ifndef GT_KEYMAP_H
#define GT_KEYMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gt_key {
	uint64_t w[4];
} gt_key;

typedef struct gt_keymap {
	gt_key *keys;
	uint32_t *vals; /* value + 1; 0 = empty slot */
	uint32_t mask;
	uint32_t count;
} gt_keymap;

void gt_keymap_free(gt_keymap *m);
/* Returns a pointer to the value slot for key: *found tells whether it was
 * present; a new slot holds 0 until the caller writes it. NULL when out of
 * memory. Pointers are valid until the next insert. */
uint32_t *gt_keymap_slot(gt_keymap *m, const gt_key *k, bool *found);
/* Returns the value or UINT32_MAX. */
uint32_t gt_keymap_get(const gt_keymap *m, const gt_key *k);

#endif
