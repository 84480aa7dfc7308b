/* Front-to-back FlatBuffers encoding (see flatbuf.h). Little-endian hosts
 * only, as the scalars are stored with memcpy. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "flatbuf.h"
#include "utf8.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "flatbuffers are little-endian");

static size_t reserve(gt_fb *f, size_t n)
{
	if (f->oom)
		return 0;
	if (f->len + n > f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;
		while (cap < f->len + n)
			cap *= 2;
		unsigned char *b = gt_fault_hit("alloc") ? NULL : realloc(f->buf, cap);
		if (!b) {
			f->oom = true;
			return 0;
		}
		f->buf = b;
		f->cap = cap;
	}
	size_t at = f->len;
	memset(f->buf + at, 0, n);
	f->len += n;
	return at;
}

void gt_fb_store(gt_fb *f, size_t at, const void *v, size_t n)
{
	if (!f->oom)
		memcpy(f->buf + at, v, n);
}

void gt_fb_init(gt_fb *f)
{
	memset(f, 0, sizeof *f);
	reserve(f, 4); /* root offset */
}

void gt_fb_free(gt_fb *f)
{
	free(f->buf);
	memset(f, 0, sizeof *f);
}

void gt_fb_pad(gt_fb *f, size_t align)
{
	size_t r = f->len % align;
	if (r)
		reserve(f, align - r);
}

static void link(gt_fb *f, size_t at)
{
	uint32_t off = (uint32_t)(f->len - at);
	gt_fb_store(f, at, &off, 4);
}

void gt_fb_table_begin(gt_fb *f, gt_fb_table *t, int nfields, size_t link_at)
{
	memset(t, 0, sizeof *t);
	t->nfields = nfields;
	gt_fb_pad(f, 2);
	t->vtable = reserve(f, 4 + 2 * (size_t)nfields);
	gt_fb_pad(f, 8);
	link(f, link_at);
	t->start = reserve(f, 4);
	int32_t soff = (int32_t)(t->start - t->vtable);
	gt_fb_store(f, t->start, &soff, 4);
}

static size_t add_field(gt_fb *f, gt_fb_table *t, int id, const void *v, size_t n)
{
	gt_fb_pad(f, n);
	size_t at = reserve(f, n);
	gt_fb_store(f, at, v, n);
	t->field_off[id] = (uint16_t)(at - t->start);
	return at;
}

void gt_fb_add_u8(gt_fb *f, gt_fb_table *t, int id, uint8_t v) { add_field(f, t, id, &v, 1); }
void gt_fb_add_i16(gt_fb *f, gt_fb_table *t, int id, int16_t v) { add_field(f, t, id, &v, 2); }
void gt_fb_add_i32(gt_fb *f, gt_fb_table *t, int id, int32_t v) { add_field(f, t, id, &v, 4); }
void gt_fb_add_i64(gt_fb *f, gt_fb_table *t, int id, int64_t v) { add_field(f, t, id, &v, 8); }

size_t gt_fb_add_offset(gt_fb *f, gt_fb_table *t, int id)
{
	uint32_t zero = 0;
	return add_field(f, t, id, &zero, 4);
}

void gt_fb_table_end(gt_fb *f, gt_fb_table *t)
{
	uint16_t vt[2 + GT_FB_MAX_FIELDS];
	vt[0] = (uint16_t)(4 + 2 * t->nfields);
	vt[1] = (uint16_t)(f->len - t->start);
	memcpy(vt + 2, t->field_off, 2 * (size_t)t->nfields);
	gt_fb_store(f, t->vtable, vt, 2 * (2 + (size_t)t->nfields));
}

void gt_fb_string(gt_fb *f, size_t link_at, const char *s)
{
	size_t n = gt_utf8_clean_len(s);
	gt_fb_pad(f, 4);
	link(f, link_at);
	uint32_t len = (uint32_t)n;
	size_t at = reserve(f, 4 + n + 1);
	gt_fb_store(f, at, &len, 4);
	if (!f->oom)
		gt_utf8_clean_copy((char *)f->buf + at + 4, s);
}

size_t gt_fb_vector(gt_fb *f, size_t link_at, size_t n, size_t elem_size, size_t align)
{
	gt_fb_pad(f, 4);
	while (!f->oom && (f->len + 4) % align) /* reserve adds nothing once oom */
		reserve(f, 4);
	link(f, link_at);
	uint32_t count = (uint32_t)n;
	size_t at = reserve(f, 4 + n * elem_size);
	gt_fb_store(f, at, &count, 4);
	return at + 4;
}
