/* Bounds-checked FlatBuffers reading (see flatbuf.h): every offset is
 * checked against the buffer before it is followed. */
#include "flatbuf.h"

#include <string.h>

#include "base/base.h"

uint64_t gt_fb_get(gt_fb_reader *f, size_t at, unsigned size)
{
	if (at > f->n || f->n - at < size) {
		f->bad = true;
		return 0;
	}
	return gt_le_get(f->p + at, size);
}

size_t gt_fb_field(gt_fb_reader *f, size_t table, int id)
{
	int32_t soff = (int32_t)gt_fb_get(f, table, 4);
	int64_t vt = (int64_t)table - soff;
	if (f->bad || vt < 0 || (size_t)vt >= f->n) {
		f->bad = true;
		return 0;
	}
	uint16_t vlen = (uint16_t)gt_fb_get(f, (size_t)vt, 2);
	if ((size_t)(4 + 2 * id) + 2 > vlen)
		return 0;
	uint16_t o = (uint16_t)gt_fb_get(f, (size_t)vt + 4 + 2 * (size_t)id, 2);
	return o ? table + o : 0;
}

/* The position a uoffset at `at` points to; 0, and f->bad, when outside. */
static size_t follow(gt_fb_reader *f, size_t at)
{
	size_t to = at + (uint32_t)gt_fb_get(f, at, 4);
	if (f->bad || to >= f->n) {
		f->bad = true;
		return 0;
	}
	return to;
}

size_t gt_fb_deref(gt_fb_reader *f, size_t table, int id)
{
	size_t at = gt_fb_field(f, table, id);
	return at ? follow(f, at) : 0;
}

uint32_t gt_fb_vec_len(gt_fb_reader *f, size_t vec)
{
	return vec ? (uint32_t)gt_fb_get(f, vec, 4) : 0;
}

size_t gt_fb_vec_ref(gt_fb_reader *f, size_t vec, uint32_t i)
{
	return follow(f, vec + 4 + 4 * (size_t)i);
}

const char *gt_fb_str(gt_fb_reader *f, size_t s, uint32_t *len)
{
	*len = (uint32_t)gt_fb_get(f, s, 4);
	if (f->bad || *len > f->n - s - 4) {
		f->bad = true;
		*len = 0;
		return "";
	}
	return (const char *)f->p + s + 4;
}

bool gt_fb_str_is(gt_fb_reader *f, size_t s, const char *want)
{
	uint32_t len;
	const char *p = gt_fb_str(f, s, &len);
	return len == strlen(want) && memcmp(p, want, len) == 0;
}
