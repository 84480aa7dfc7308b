/* Apache Arrow IPC writer, file and streaming formats (Arrow columnar format,
 * metadata version V5). Layout per the IPC specification:
 *   stream: Schema message, one DictionaryBatch per dictionary column,
 *           RecordBatch messages, end-of-stream marker (0xFFFFFFFF, 0)
 *   file:   "ARROW1\0\0", the stream above, Footer flatbuffer, int32 footer
 *           length, "ARROW1"
 * Each message is 0xFFFFFFFF, int32 metadata length, the Message flatbuffer
 * padded to 8 bytes, then the body. Body buffers start at multiples of 64.
 *
 * Type mapping: I64/U64/I32/U32 -> Int, NS_US -> int64 ns (renamed, see
 * arrow_field_name), F64 -> Float64 (NaN stays NaN), BOOL -> bit-packed Bool,
 * STR -> Utf8, DICT -> Utf8 dictionary with int32 indices holding only the
 * entries the column uses, in id order (one dictionary, written before the
 * first batch, so the file format needs no replacement). Rows go out in
 * batches of at most GT_ARROW_BATCH_ROWS rows (or the table's arrow_batch_rows), fewer when a string column
 * would pass GT_ARROW_BATCH_STR_BYTES, so memory stays bounded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "flatbuf.h"
#include "table.h"
#include "table_cell.h"
#include "utf8.h"

#define GT_ARROW_BATCH_ROWS (1u << 20)
#define GT_ARROW_BATCH_STR_BYTES ((size_t)256 << 20)
#define BUF_ALIGN 64

enum { MD_V5 = 4 };
enum { HDR_SCHEMA = 1, HDR_DICTIONARY = 2, HDR_RECORD_BATCH = 3 };
enum { TYPE_INT = 2, TYPE_FLOAT = 3, TYPE_UTF8 = 5, TYPE_BOOL = 6 };

struct block {
	int64_t offset;
	int32_t meta_len;
	int32_t pad;
	int64_t body_len;
};

struct buf {
	const void *p;
	size_t len;
};

/* One column's buffers for the batch being written. */
struct colbuf {
	unsigned char *validity;
	int64_t null_count;
	unsigned char *values; /* fixed width values, bits, or int32 indices */
	int32_t *offsets;      /* utf8 */
	char *chars;
	size_t chars_len, chars_cap;
	/* DICT: old id -> index in the written dictionary, GT_NONE if unused */
	uint32_t *remap;
	uint32_t remap_len;
	uint32_t dict_size;
};

struct writer {
	const gt_table *t;
	FILE *out;
	gt_error *err;
	uint64_t pos;
	struct colbuf *cb;
	struct block *dict_blocks, *batch_blocks;
	size_t ndicts, dicts_cap, nbatches, batches_cap;
};

static void *xalloc(size_t n)
{
	return gt_fault_hit("alloc") ? NULL : calloc(1, n ? n : 1);
}

static int oom(struct writer *w)
{
	return gt_fail(w->err, GT_EINPUT, "out of memory writing arrow table '%s'",
		       w->t->name ? w->t->name : "");
}

static bool is_dict(const gt_column *c) { return c->type == GT_COL_DICT; }
static bool is_utf8(const gt_column *c) { return c->type == GT_COL_STR; }

static bool nullable(const gt_column *c)
{
	return c->type == GT_COL_STR || ((c->type == GT_COL_U32 || c->type == GT_COL_DICT || c->type == GT_COL_F64) && c->has_null);
}

static size_t value_width(const gt_column *c)
{
	switch (c->type) {
	case GT_COL_I64: case GT_COL_U64: case GT_COL_NS_US: case GT_COL_F64: return 8;
	case GT_COL_U32: case GT_COL_I32: case GT_COL_DICT: return 4;
	}
	return 0; /* BOOL: bits; STR: offsets */
}

/* The Arrow name: arrow_name, else for NS_US the name with a trailing "_us"
 * made "_ns" (or "_ns" appended), else the name. buf: the result's storage. */
static const char *arrow_field_name(const gt_column *c, char *buf, size_t cap)
{
	if (c->arrow_name)
		return c->arrow_name;
	if (c->type != GT_COL_NS_US)
		return c->name;
	size_t n = strlen(c->name);
	if (n >= 3 && strcmp(c->name + n - 3, "_us") == 0)
		snprintf(buf, cap, "%.*s_ns", (int)(n - 3), c->name);
	else
		snprintf(buf, cap, "%s_ns", c->name);
	return buf;
}

/* ---- output ---- */

static int put(struct writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->out) != n)
		return gt_check_write(w->out, w->err) < 0 ? -1 : gt_fail(w->err, GT_EINPUT, "write error");
	w->pos += n;
	return 0;
}

static int put_zeros(struct writer *w, size_t n)
{
	static const unsigned char zeros[BUF_ALIGN];
	while (n) {
		size_t k = n < sizeof zeros ? n : sizeof zeros;
		if (put(w, zeros, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Writes one encapsulated message; fills *blk when non-NULL. */
static int put_message(struct writer *w, gt_fb *fb, const struct buf *bufs, size_t nbufs,
		       int64_t body_len, struct block *blk)
{
	if (fb->oom)
		return oom(w);
	size_t meta = align_up(fb->len + 8, 8) - 8;
	uint32_t head[2] = {0xffffffffu, (uint32_t)meta};
	if (blk) {
		blk->offset = (int64_t)w->pos;
		blk->meta_len = (int32_t)(meta + 8);
		blk->pad = 0;
		blk->body_len = body_len;
	}
	if (put(w, head, 8) < 0 || put(w, fb->buf, fb->len) < 0 || put_zeros(w, meta - fb->len) < 0)
		return -1;
	size_t off = 0;
	for (size_t i = 0; i < nbufs; i++) {
		if (put(w, bufs[i].p, bufs[i].len) < 0)
			return -1;
		off += bufs[i].len;
		size_t next = align_up(off, BUF_ALIGN);
		if (put_zeros(w, next - off) < 0)
			return -1;
		off = next;
	}
	return 0;
}

/* Message table with its header table begun; returns the header table. */
static void begin_message(gt_fb *fb, gt_fb_table *msg, size_t *header_link, int header_type,
			  int64_t body_len)
{
	gt_fb_init(fb);
	gt_fb_table_begin(fb, msg, 4, 0);
	gt_fb_add_i16(fb, msg, 0, MD_V5);
	gt_fb_add_u8(fb, msg, 1, (uint8_t)header_type);
	*header_link = gt_fb_add_offset(fb, msg, 2);
	gt_fb_add_i64(fb, msg, 3, body_len);
	gt_fb_table_end(fb, msg);
}

/* ---- schema ---- */

static void int_type(gt_fb *fb, size_t link_at, int bits, bool is_signed)
{
	gt_fb_table t;
	gt_fb_table_begin(fb, &t, 2, link_at);
	gt_fb_add_i32(fb, &t, 0, bits);
	gt_fb_add_u8(fb, &t, 1, is_signed);
	gt_fb_table_end(fb, &t);
}

static void field(gt_fb *fb, size_t link_at, const gt_column *c, int64_t dict_id)
{
	char namebuf[256];
	uint8_t type_id;
	switch (c->type) {
	case GT_COL_F64: type_id = TYPE_FLOAT; break;
	case GT_COL_BOOL: type_id = TYPE_BOOL; break;
	case GT_COL_STR: case GT_COL_DICT: type_id = TYPE_UTF8; break;
	default: type_id = TYPE_INT;
	}
	gt_fb_table t;
	gt_fb_table_begin(fb, &t, 6, link_at);
	size_t name_at = gt_fb_add_offset(fb, &t, 0);
	gt_fb_add_u8(fb, &t, 1, nullable(c));
	gt_fb_add_u8(fb, &t, 2, type_id);
	size_t type_at = gt_fb_add_offset(fb, &t, 3);
	size_t dict_at = is_dict(c) ? gt_fb_add_offset(fb, &t, 4) : 0;
	size_t children_at = gt_fb_add_offset(fb, &t, 5);
	gt_fb_table_end(fb, &t);

	gt_fb_string(fb, name_at, arrow_field_name(c, namebuf, sizeof namebuf));
	gt_fb_table ty;
	switch (c->type) {
	case GT_COL_I64: case GT_COL_NS_US: int_type(fb, type_at, 64, true); break;
	case GT_COL_U64: int_type(fb, type_at, 64, false); break;
	case GT_COL_U32: int_type(fb, type_at, 32, false); break;
	case GT_COL_I32: int_type(fb, type_at, 32, true); break;
	case GT_COL_F64:
		gt_fb_table_begin(fb, &ty, 1, type_at);
		gt_fb_add_i16(fb, &ty, 0, 2); /* DOUBLE */
		gt_fb_table_end(fb, &ty);
		break;
	default: /* Utf8, Bool: empty tables */
		gt_fb_table_begin(fb, &ty, 0, type_at);
		gt_fb_table_end(fb, &ty);
	}
	if (is_dict(c)) {
		gt_fb_table d;
		gt_fb_table_begin(fb, &d, 4, dict_at);
		gt_fb_add_i64(fb, &d, 0, dict_id);
		size_t index_at = gt_fb_add_offset(fb, &d, 1);
		gt_fb_add_u8(fb, &d, 2, 0); /* isOrdered */
		gt_fb_table_end(fb, &d);
		int_type(fb, index_at, 32, true);
	}
	gt_fb_vector(fb, children_at, 0, 4, 4);
}

static void schema(gt_fb *fb, size_t link_at, const gt_table *t)
{
	gt_fb_table s;
	gt_fb_table_begin(fb, &s, 3, link_at);
	gt_fb_add_i16(fb, &s, 0, 0); /* little-endian */
	size_t fields_at = gt_fb_add_offset(fb, &s, 1);
	size_t meta_at = t->nmeta ? gt_fb_add_offset(fb, &s, 2) : 0;
	gt_fb_table_end(fb, &s);

	size_t elems = gt_fb_vector(fb, fields_at, t->ncols, 4, 4);
	int64_t dict_id = 0;
	for (size_t i = 0; i < t->ncols; i++)
		field(fb, elems + 4 * i, &t->cols[i], is_dict(&t->cols[i]) ? dict_id++ : -1);
	if (t->nmeta) {
		elems = gt_fb_vector(fb, meta_at, t->nmeta, 4, 4);
		for (size_t i = 0; i < t->nmeta; i++) {
			gt_fb_table kv;
			gt_fb_table_begin(fb, &kv, 2, elems + 4 * i);
			size_t k = gt_fb_add_offset(fb, &kv, 0);
			size_t v = gt_fb_add_offset(fb, &kv, 1);
			gt_fb_table_end(fb, &kv);
			gt_fb_string(fb, k, t->meta_keys[i] ? t->meta_keys[i] : "");
			gt_fb_string(fb, v, t->meta_values[i] ? t->meta_values[i] : "");
		}
	}
}

static int put_schema(struct writer *w)
{
	gt_fb fb;
	gt_fb_table msg;
	size_t header_at;
	begin_message(&fb, &msg, &header_at, HDR_SCHEMA, 0);
	schema(&fb, header_at, w->t);
	int rc = put_message(w, &fb, NULL, 0, 0, NULL);
	gt_fb_free(&fb);
	return rc;
}

/* ---- record batches ---- */

struct node {
	int64_t length, null_count;
};

/* RecordBatch table at link_at, with nodes and buffers (offsets within the
 * body, each buffer starting at a multiple of BUF_ALIGN). */
static void record_batch(gt_fb *fb, size_t link_at, int64_t length, const struct node *nodes,
			 size_t nnodes, const struct buf *bufs, size_t nbufs)
{
	gt_fb_table rb;
	gt_fb_table_begin(fb, &rb, 3, link_at);
	gt_fb_add_i64(fb, &rb, 0, length);
	size_t nodes_at = gt_fb_add_offset(fb, &rb, 1);
	size_t bufs_at = gt_fb_add_offset(fb, &rb, 2);
	gt_fb_table_end(fb, &rb);
	size_t e = gt_fb_vector(fb, nodes_at, nnodes, 16, 8);
	for (size_t i = 0; i < nnodes; i++)
		gt_fb_store(fb, e + 16 * i, &nodes[i], 16);
	e = gt_fb_vector(fb, bufs_at, nbufs, 16, 8);
	int64_t off = 0;
	for (size_t i = 0; i < nbufs; i++) {
		int64_t b[2] = {off, (int64_t)bufs[i].len};
		gt_fb_store(fb, e + 16 * i, b, 16);
		off += (int64_t)align_up(bufs[i].len, BUF_ALIGN);
	}
}

static int64_t body_length(const struct buf *bufs, size_t nbufs)
{
	int64_t n = 0;
	for (size_t i = 0; i < nbufs; i++)
		n += (int64_t)align_up(bufs[i].len, BUF_ALIGN);
	return n;
}

static int add_block(struct writer *w, struct block **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct block *b = gt_fault_hit("alloc") ? NULL : realloc(*v, c * sizeof *b);
		if (!b)
			return oom(w);
		*v = b;
		*cap = c;
	}
	(*n)++;
	return 0;
}

/* Appends s (cleaned of invalid UTF-8) to cb->chars. */
static int append_chars(struct writer *w, struct colbuf *cb, const char *s)
{
	size_t n = gt_utf8_clean_len(s);
	if (cb->chars_len + n > cb->chars_cap) {
		size_t cap = cb->chars_cap ? cb->chars_cap : 4096;
		while (cap < cb->chars_len + n)
			cap *= 2;
		char *c = gt_fault_hit("alloc") ? NULL : realloc(cb->chars, cap);
		if (!c)
			return oom(w);
		cb->chars = c;
		cb->chars_cap = cap;
	}
	gt_utf8_clean_copy(cb->chars + cb->chars_len, s);
	cb->chars_len += n;
	return 0;
}

/* DICT columns: find the entries in use (all rows) and number them. */
static int build_remap(struct writer *w, size_t ci)
{
	const gt_column *c = &w->t->cols[ci];
	struct colbuf *cb = &w->cb[ci];
	uint32_t max = 0;
	bool any = false;
	for (uint64_t r = 0; r < w->t->nrows; r++) {
		if (gt_cell_is_null(c, r))
			continue;
		uint32_t id = gt_cell_u32(c, r);
		if ((!c->dict_get && id >= c->dict_len) || id == UINT32_MAX)
			return gt_fail(w->err, GT_EINPUT, "dictionary index %u out of range in column '%s'",
				       id, c->name);
		if (id > max)
			max = id;
		any = true;
	}
	cb->remap_len = any ? max + 1 : 0;
	cb->remap = xalloc((size_t)cb->remap_len * sizeof *cb->remap);
	if (!cb->remap)
		return oom(w);
	memset(cb->remap, 0xff, (size_t)cb->remap_len * sizeof *cb->remap);
	for (uint64_t r = 0; r < w->t->nrows; r++)
		if (!gt_cell_is_null(c, r))
			cb->remap[gt_cell_u32(c, r)] = 0;
	uint32_t n = 0;
	for (uint32_t id = 0; id < cb->remap_len; id++)
		if (cb->remap[id] != 0xffffffffu)
			cb->remap[id] = n++;
	cb->dict_size = n;
	return 0;
}

static int put_dictionary(struct writer *w, size_t ci, int64_t dict_id)
{
	const gt_column *c = &w->t->cols[ci];
	struct colbuf *cb = &w->cb[ci];
	int32_t *offsets = xalloc(((size_t)cb->dict_size + 1) * sizeof *offsets);
	if (!offsets)
		return oom(w);
	size_t chars0 = cb->chars_len = 0;
	int rc = 0;
	uint32_t k = 0;
	for (uint32_t id = 0; id < cb->remap_len && rc == 0; id++) {
		if (cb->remap[id] == 0xffffffffu)
			continue;
		rc = append_chars(w, cb, gt_dict_entry(c, id));
		if (cb->chars_len - chars0 > INT32_MAX)
			rc = gt_fail(w->err, GT_EINPUT, "dictionary of column '%s' is over 2 GiB", c->name);
		offsets[++k] = (int32_t)cb->chars_len;
	}
	if (rc == 0) {
		struct node node = {cb->dict_size, 0};
		struct buf bufs[3] = {{NULL, 0},
				      {offsets, ((size_t)cb->dict_size + 1) * sizeof *offsets},
				      {cb->chars, cb->chars_len}};
		int64_t body = body_length(bufs, 3);
		gt_fb fb;
		gt_fb_table msg, db;
		size_t header_at;
		begin_message(&fb, &msg, &header_at, HDR_DICTIONARY, body);
		gt_fb_table_begin(&fb, &db, 3, header_at);
		gt_fb_add_i64(&fb, &db, 0, dict_id);
		size_t data_at = gt_fb_add_offset(&fb, &db, 1);
		gt_fb_add_u8(&fb, &db, 2, 0); /* isDelta */
		gt_fb_table_end(&fb, &db);
		record_batch(&fb, data_at, cb->dict_size, &node, 1, bufs, 3);
		rc = add_block(w, &w->dict_blocks, &w->ndicts, &w->dicts_cap);
		if (rc == 0)
			rc = put_message(w, &fb, bufs, 3, body, &w->dict_blocks[w->ndicts - 1]);
		gt_fb_free(&fb);
	}
	free(offsets);
	cb->chars_len = 0;
	return rc;
}

static void set_bit(unsigned char *bits, uint64_t i) { bits[i >> 3] |= (unsigned char)(1u << (i & 7)); }

/* Rows [start, end) for the next batch: at most GT_ARROW_BATCH_ROWS, and no
 * string column past GT_ARROW_BATCH_STR_BYTES (one row always fits, up to
 * the 2 GiB int32 offsets limit). */
static uint64_t batch_rows(const gt_table *t)
{
	return t->arrow_batch_rows ? t->arrow_batch_rows : GT_ARROW_BATCH_ROWS;
}

static uint64_t batch_end(const gt_table *t, uint64_t start)
{
	uint64_t end = t->nrows - start < batch_rows(t) ? t->nrows : start + batch_rows(t);
	bool has_str = false;
	for (size_t i = 0; i < t->ncols; i++)
		has_str |= is_utf8(&t->cols[i]);
	if (!has_str)
		return end;
	for (size_t i = 0; i < t->ncols; i++) {
		if (!is_utf8(&t->cols[i]))
			continue;
		size_t bytes = 0;
		for (uint64_t r = start; r < end; r++) {
			const char *s = gt_cell_strp(&t->cols[i], r);
			bytes += s ? gt_utf8_clean_len(s) : 0;
			if (bytes > GT_ARROW_BATCH_STR_BYTES && r > start) {
				end = r;
				break;
			}
		}
	}
	return end;
}

static int fill_column(struct writer *w, size_t ci, uint64_t start, uint64_t n)
{
	const gt_column *c = &w->t->cols[ci];
	struct colbuf *cb = &w->cb[ci];
	size_t vbytes = (size_t)(n + 7) / 8;
	memset(cb->validity, 0, vbytes);
	cb->null_count = 0;
	cb->chars_len = 0;
	size_t width = value_width(c);
	if (c->type == GT_COL_BOOL)
		memset(cb->values, 0, vbytes);
	if (is_utf8(c))
		cb->offsets[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = start + i;
		bool null = gt_cell_is_null(c, r);
		if (null)
			cb->null_count++;
		else
			set_bit(cb->validity, i);
		switch (c->type) {
		case GT_COL_BOOL:
			if (gt_cell_bool(c, r))
				set_bit(cb->values, i);
			break;
		case GT_COL_STR:
			if (!null && append_chars(w, cb, gt_cell_strp(c, r)) < 0)
				return -1;
			if (cb->chars_len > INT32_MAX)
				return gt_fail(w->err, GT_EINPUT, "a string in column '%s' is over 2 GiB", c->name);
			cb->offsets[i + 1] = (int32_t)cb->chars_len;
			break;
		case GT_COL_DICT: {
			int32_t idx = null ? 0 : (int32_t)cb->remap[gt_cell_u32(c, r)];
			memcpy(cb->values + 4 * i, &idx, 4);
			break;
		}
		case GT_COL_U32: {
			uint32_t v = null ? 0 : gt_cell_u32(c, r);
			memcpy(cb->values + 4 * i, &v, 4);
			break;
		}
		case GT_COL_I32: {
			int32_t v = gt_cell_i32(c, r);
			memcpy(cb->values + 4 * i, &v, 4);
			break;
		}
		case GT_COL_F64: {
			double v = null ? 0 : gt_cell_f64(c, r);
			memcpy(cb->values + 8 * i, &v, 8);
			break;
		}
		default: { /* I64, U64, NS_US: through the getter when computed */
			uint64_t v = gt_cell_u64(c, r);
			memcpy(cb->values + width * i, &v, width);
		}
		}
	}
	return 0;
}

static int put_batch(struct writer *w, uint64_t start, uint64_t n)
{
	const gt_table *t = w->t;
	size_t nbufs = 0;
	struct node *nodes = xalloc(t->ncols * sizeof *nodes);
	struct buf *bufs = xalloc(3 * t->ncols * sizeof *bufs);
	if (!nodes || !bufs) {
		free(nodes);
		free(bufs);
		return oom(w);
	}
	int rc = 0;
	for (size_t i = 0; i < t->ncols && rc == 0; i++) {
		const gt_column *c = &t->cols[i];
		struct colbuf *cb = &w->cb[i];
		rc = fill_column(w, i, start, n);
		nodes[i] = (struct node){(int64_t)n, cb->null_count};
		bufs[nbufs++] = (struct buf){cb->validity, cb->null_count ? (size_t)(n + 7) / 8 : 0};
		if (is_utf8(c)) {
			bufs[nbufs++] = (struct buf){cb->offsets, (size_t)(n + 1) * 4};
			bufs[nbufs++] = (struct buf){cb->chars, cb->chars_len};
		} else if (c->type == GT_COL_BOOL) {
			bufs[nbufs++] = (struct buf){cb->values, (size_t)(n + 7) / 8};
		} else {
			bufs[nbufs++] = (struct buf){cb->values, (size_t)n * value_width(c)};
		}
	}
	if (rc == 0) {
		int64_t body = body_length(bufs, nbufs);
		gt_fb fb;
		gt_fb_table msg;
		size_t header_at;
		begin_message(&fb, &msg, &header_at, HDR_RECORD_BATCH, body);
		record_batch(&fb, header_at, (int64_t)n, nodes, t->ncols, bufs, nbufs);
		rc = add_block(w, &w->batch_blocks, &w->nbatches, &w->batches_cap);
		if (rc == 0)
			rc = put_message(w, &fb, bufs, nbufs, body, &w->batch_blocks[w->nbatches - 1]);
		gt_fb_free(&fb);
	}
	free(nodes);
	free(bufs);
	return rc;
}

static int alloc_colbufs(struct writer *w)
{
	const gt_table *t = w->t;
	uint64_t rows = t->nrows < batch_rows(t) ? t->nrows : batch_rows(t);
	w->cb = xalloc(t->ncols * sizeof *w->cb);
	if (!w->cb)
		return oom(w);
	for (size_t i = 0; i < t->ncols; i++) {
		const gt_column *c = &t->cols[i];
		struct colbuf *cb = &w->cb[i];
		cb->validity = xalloc((size_t)(rows + 7) / 8);
		if (!cb->validity)
			return oom(w);
		if (is_utf8(c))
			cb->offsets = xalloc((size_t)(rows + 1) * 4);
		else
			cb->values = xalloc(c->type == GT_COL_BOOL ? (size_t)(rows + 7) / 8
								  : (size_t)rows * value_width(c));
		if (!cb->offsets && !cb->values)
			return oom(w);
	}
	return 0;
}

static void free_colbufs(struct writer *w)
{
	for (size_t i = 0; w->cb && i < w->t->ncols; i++) {
		free(w->cb[i].validity);
		free(w->cb[i].values);
		free(w->cb[i].offsets);
		free(w->cb[i].chars);
		free(w->cb[i].remap);
	}
	free(w->cb);
	free(w->dict_blocks);
	free(w->batch_blocks);
}

static int put_footer(struct writer *w)
{
	gt_fb fb;
	gt_fb_table ft;
	gt_fb_init(&fb);
	gt_fb_table_begin(&fb, &ft, 4, 0);
	gt_fb_add_i16(&fb, &ft, 0, MD_V5);
	size_t schema_at = gt_fb_add_offset(&fb, &ft, 1);
	size_t dicts_at = gt_fb_add_offset(&fb, &ft, 2);
	size_t batches_at = gt_fb_add_offset(&fb, &ft, 3);
	gt_fb_table_end(&fb, &ft);
	schema(&fb, schema_at, w->t);
	size_t e = gt_fb_vector(&fb, dicts_at, w->ndicts, sizeof(struct block), 8);
	for (size_t i = 0; i < w->ndicts; i++)
		gt_fb_store(&fb, e + i * sizeof(struct block), &w->dict_blocks[i], sizeof(struct block));
	e = gt_fb_vector(&fb, batches_at, w->nbatches, sizeof(struct block), 8);
	for (size_t i = 0; i < w->nbatches; i++)
		gt_fb_store(&fb, e + i * sizeof(struct block), &w->batch_blocks[i], sizeof(struct block));
	int rc = -1;
	if (fb.oom) {
		rc = oom(w);
	} else {
		int32_t len = (int32_t)fb.len;
		rc = put(w, fb.buf, fb.len);
		if (rc == 0)
			rc = put(w, &len, 4);
		if (rc == 0)
			rc = put(w, "ARROW1", 6);
	}
	gt_fb_free(&fb);
	return rc;
}

int gt_table_write_arrow(const gt_table *t, FILE *out, bool stream, gt_error *err)
{
	_Static_assert(sizeof(struct block) == 24, "Block struct is 24 bytes");
	struct writer w = {.t = t, .out = out, .err = err};
	int rc = alloc_colbufs(&w);
	if (rc == 0 && !stream)
		rc = put(&w, "ARROW1\0\0", 8);
	if (rc == 0)
		rc = put_schema(&w);
	int64_t dict_id = 0;
	for (size_t i = 0; i < t->ncols && rc == 0; i++) {
		if (!is_dict(&t->cols[i]))
			continue;
		rc = build_remap(&w, i);
		if (rc == 0)
			rc = put_dictionary(&w, i, dict_id++);
	}
	uint64_t start = 0;
	do { /* at least one batch, so an empty table still has one */
		if (rc < 0)
			break;
		uint64_t end = batch_end(t, start);
		rc = put_batch(&w, start, end - start);
		start = end;
	} while (start < t->nrows);
	if (rc == 0) {
		uint32_t eos[2] = {0xffffffffu, 0};
		rc = put(&w, eos, 8);
	}
	if (rc == 0 && !stream)
		rc = put_footer(&w);
	free_colbufs(&w);
	if (rc == 0 && fflush(out) != 0)
		rc = gt_check_write(out, err) < 0 ? -1 : gt_fail(err, GT_EINPUT, "write error: %s", strerror(errno));
	return rc;
}
