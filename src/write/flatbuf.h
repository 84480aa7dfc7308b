/* A minimal FlatBuffers codec for the Arrow IPC metadata: an encoder
 * (flatbuf.c) and bounds-checked reading (flatbuf_read.c).
 *
 * The encoder builds front to back: a parent is written first with placeholder offsets, and each
 * child, written later at a higher position, patches the placeholder (a
 * uoffset must point forward). Vtables sit just before their table. */
#ifndef GT_FLATBUF_H
#define GT_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gt_fb {
	unsigned char *buf;
	size_t len, cap;
	bool oom;
} gt_fb;

#define GT_FB_MAX_FIELDS 8

typedef struct gt_fb_table {
	size_t vtable, start;
	int nfields;
	uint16_t field_off[GT_FB_MAX_FIELDS];
} gt_fb_table;

/* Starts a buffer whose root table is begun next (position 0 is its offset). */
void gt_fb_init(gt_fb *f);
void gt_fb_free(gt_fb *f);
void gt_fb_pad(gt_fb *f, size_t align);

/* Begins a table of nfields field slots and points the uoffset at link_at
 * to it. */
void gt_fb_table_begin(gt_fb *f, gt_fb_table *t, int nfields, size_t link_at);
void gt_fb_add_u8(gt_fb *f, gt_fb_table *t, int id, uint8_t v);
void gt_fb_add_i16(gt_fb *f, gt_fb_table *t, int id, int16_t v);
void gt_fb_add_i32(gt_fb *f, gt_fb_table *t, int id, int32_t v);
void gt_fb_add_i64(gt_fb *f, gt_fb_table *t, int id, int64_t v);
/* A uoffset field to fill later; returns its position (the link_at). */
size_t gt_fb_add_offset(gt_fb *f, gt_fb_table *t, int id);
void gt_fb_table_end(gt_fb *f, gt_fb_table *t);

/* A string (invalid UTF-8 replaced by U+FFFD), linked from link_at. */
void gt_fb_string(gt_fb *f, size_t link_at, const char *s);
/* A vector of n elements of elem_size bytes aligned to align, linked from
 * link_at; returns the position of element 0 for the caller to fill
 * (elements are zeroed). For a vector of tables, elem_size is 4 and element
 * i's position is the link_at of table i. */
size_t gt_fb_vector(gt_fb *f, size_t link_at, size_t n, size_t elem_size, size_t align);
void gt_fb_store(gt_fb *f, size_t at, const void *v, size_t n);

/* Reading: positions are byte offsets into p[0..n). A read that would leave
 * the buffer sets bad and yields 0 (or ""), so a caller checks bad once
 * after a run of reads. */
typedef struct gt_fb_reader {
	const unsigned char *p;
	size_t n;
	bool bad;
} gt_fb_reader;

/* The little-endian integer of size (at most 8) bytes at `at`. */
uint64_t gt_fb_get(gt_fb_reader *f, size_t at, unsigned size);
/* The position of table field id's value, 0 when absent. */
size_t gt_fb_field(gt_fb_reader *f, size_t table, int id);
/* The table, vector or string a uoffset field points to; 0 when absent. */
size_t gt_fb_deref(gt_fb_reader *f, size_t table, int id);
/* A vector's length (0 for position 0, an absent vector). */
uint32_t gt_fb_vec_len(gt_fb_reader *f, size_t vec);
/* Element i of a vector of tables or strings. */
size_t gt_fb_vec_ref(gt_fb_reader *f, size_t vec, uint32_t i);
/* A string's bytes and length (not NUL-terminated). */
const char *gt_fb_str(gt_fb_reader *f, size_t s, uint32_t *len);
bool gt_fb_str_is(gt_fb_reader *f, size_t s, const char *want);

#endif
