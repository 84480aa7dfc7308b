/* An Arrow IPC reader for one schema: the collective summary. It walks the
 * encapsulated messages (0xFFFFFFFF, int32 metadata length, a FlatBuffers
 * Message, the body) after the file magic or from the stream's start,
 * reading the Schema and every RecordBatch; the footer is not needed.
 * Every offset is checked against the buffer it points into. */
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "write/write.h"

enum { HDR_SCHEMA = 1, HDR_DICTIONARY = 2, HDR_RECORD_BATCH = 3 };
enum { TYPE_INT = 2, TYPE_UTF8 = 5 };
enum { NCOLS = 6 };
static const char *const col_names[NCOLS] = {"rank", "name", "seq", "begin_ns", "end_ns", "step"};

struct reader {
	const char *path;
	gt_coll_set *s;
	bool have_schema;
	int64_t *file_ranks;
	uint32_t file_rank_count;
};

static int bad(gt_error *err, const char *path, size_t at, const char *what)
{
	return gt_fail(err, GT_EINPUT, "%s: byte %zu: %s", path, at, what);
}

static int read_ranks(struct reader *r, const char *v, uint32_t len, size_t at, gt_error *err)
{
	char *text = malloc((size_t)len + 1);
	if (!text)
		return gt_fail(err, GT_EINPUT, "out of memory");
	memcpy(text, v, len);
	text[len] = '\0';
	int rc = 0;
	for (char *p = text; rc == 0 && *p;) {
		char *end;
		long long x = strtoll(p, &end, 10);
		if (end == p || x < 0 || (*end && *end != ',')) {
			rc = bad(err, r->path, at, "the 'ranks' metadata is not a list of ranks");
			break;
		}
		for (uint32_t i = 0; i < r->s->rank_count; i++)
			if (r->s->ranks[i] == x)
				rc = gt_fail(err, GT_EINPUT, "%s: rank %lld is in another input too", r->path, x);
		if (rc == 0)
			rc = gt_coll_add_rank(r->s, x, err);
		p = *end ? end + 1 : end;
	}
	free(text);
	return rc;
}

static int read_schema(struct reader *r, gt_fb_reader *f, size_t schema, size_t base, gt_error *err)
{
	size_t fields = gt_fb_deref(f, schema, 1);
	if (gt_fb_vec_len(f, fields) != NCOLS)
		return bad(err, r->path, base, "not a gputrace collectives summary (its columns differ)");
	for (uint32_t i = 0; i < NCOLS; i++) {
		size_t fld = gt_fb_vec_ref(f, fields, i);
		size_t name = gt_fb_deref(f, fld, 0);
		size_t tt = gt_fb_field(f, fld, 2);
		uint8_t type = tt && tt < f->n ? f->p[tt] : 0;
		size_t ty = gt_fb_deref(f, fld, 3);
		bool ok = name && gt_fb_str_is(f, name, col_names[i]) && !gt_fb_deref(f, fld, 4);
		if (i == 1)
			ok = ok && type == TYPE_UTF8;
		else
			ok = ok && type == TYPE_INT && ty && gt_fb_field(f, ty, 0) && (uint32_t)gt_fb_get(f, gt_fb_field(f, ty, 0), 4) == 64;
		if (!ok || f->bad)
			return bad(err, r->path, base, "not a gputrace collectives summary (its columns differ)");
	}
	size_t meta = gt_fb_deref(f, schema, 2);
	bool ranks = false;
	for (uint32_t i = 0; i < gt_fb_vec_len(f, meta) && !f->bad; i++) {
		size_t kv = gt_fb_vec_ref(f, meta, i);
		size_t k = gt_fb_deref(f, kv, 0), v = gt_fb_deref(f, kv, 1);
		if (k && v && gt_fb_str_is(f, k, "ranks")) {
			uint32_t len;
			const char *p = gt_fb_str(f, v, &len);
			if (read_ranks(r, p, len, base, err) < 0)
				return -1;
			ranks = true;
		}
	}
	if (f->bad || !ranks)
		return bad(err, r->path, base, "not a gputrace collectives summary (no 'ranks' metadata)");
	r->have_schema = true;
	return 0;
}

static bool known_rank(const struct reader *r, int64_t rank)
{
	for (uint32_t i = 0; i < r->s->rank_count; i++)
		if (r->s->ranks[i] == rank)
			return true;
	return false;
}

static int read_batch(struct reader *r, gt_fb_reader *f, size_t rb, const unsigned char *body, size_t body_len,
		      size_t base, gt_error *err)
{
	int64_t rows = (int64_t)gt_fb_get(f, gt_fb_field(f, rb, 0), 8);
	size_t nodes = gt_fb_deref(f, rb, 1), bufs = gt_fb_deref(f, rb, 2);
	if (f->bad || rows < 0 || (uint64_t)rows > body_len || gt_fb_vec_len(f, nodes) != NCOLS || gt_fb_vec_len(f, bufs) != NCOLS * 2 + 1 ||
	    gt_fb_deref(f, rb, 3))
		return bad(err, r->path, base, "a record batch that is not the summary's (or is compressed)");
	/* buffers: per column validity + data, the name column validity + offsets + chars */
	const unsigned char *buf[NCOLS * 2 + 1];
	size_t blen[NCOLS * 2 + 1];
	for (uint32_t i = 0; i < NCOLS * 2 + 1; i++) {
		int64_t off = (int64_t)gt_fb_get(f, bufs + 4 + 16 * (size_t)i, 8), len = (int64_t)gt_fb_get(f, bufs + 4 + 16 * (size_t)i + 8, 8);
		if (f->bad || off < 0 || len < 0 || (uint64_t)off > body_len || (uint64_t)len > body_len - (uint64_t)off)
			return bad(err, r->path, base, "a buffer outside its record batch");
		buf[i] = body + off;
		blen[i] = (size_t)len;
	}
	for (uint32_t c = 0; c < NCOLS; c++) {
		int64_t nl = (int64_t)gt_fb_get(f, nodes + 4 + 16 * (size_t)c, 8), nn = (int64_t)gt_fb_get(f, nodes + 4 + 16 * (size_t)c + 8, 8);
		if (nl != rows || nn != 0)
			return bad(err, r->path, base, "a summary column with nulls or of another length");
	}
	/* data buffers: rank 1, name 3 (offsets) and 4 (chars), seq 6, begin 8, end 10, step 12 */
	static const int data_buf[NCOLS] = {1, 3, 6, 8, 10, 12};
	for (uint32_t c = 0; c < NCOLS; c++) {
		size_t need = c == 1 ? ((size_t)rows + 1) * 4 : (size_t)rows * 8;
		if (blen[data_buf[c]] < need)
			return bad(err, r->path, base, "a summary column shorter than its rows");
	}
	for (int64_t i = 0; i < rows; i++) {
		gt_coll_kernel k = {.span = GT_NONE};
		k.rank = (int64_t)gt_le_get64(buf[1] + 8 * i);
		int32_t o0 = (int32_t)gt_le_get32(buf[3] + 4 * i), o1 = (int32_t)gt_le_get32(buf[3] + 4 * (i + 1));
		k.seq = gt_le_get64(buf[6] + 8 * i);
		k.begin_ns = (int64_t)gt_le_get64(buf[8] + 8 * i);
		k.end_ns = (int64_t)gt_le_get64(buf[10] + 8 * i);
		k.step = (int64_t)gt_le_get64(buf[12] + 8 * i);
		if (o0 < 0 || o1 < o0 || (size_t)o1 > blen[4])
			return bad(err, r->path, base, "a name outside its buffer");
		if (!known_rank(r, k.rank))
			return bad(err, r->path, base, "a kernel of a rank the 'ranks' metadata does not list");
		char stack[256];
		char *name = (size_t)(o1 - o0) < sizeof stack ? stack : malloc((size_t)(o1 - o0) + 1);
		if (!name)
			return gt_fail(err, GT_EINPUT, "out of memory");
		memcpy(name, buf[4] + o0, (size_t)(o1 - o0));
		name[o1 - o0] = '\0';
		int rc = gt_coll_add(r->s, &k, name, err);
		if (name != stack)
			free(name);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int read_messages(struct reader *r, const unsigned char *p, size_t n, size_t pos, gt_error *err)
{
	while (pos + 8 <= n) {
		uint32_t cont = gt_le_get32(p + pos), mlen = gt_le_get32(p + pos + 4);
		if (cont != 0xffffffffu)
			return bad(err, r->path, pos, "not an Arrow IPC message");
		if (mlen == 0)
			return r->have_schema ? 0 : bad(err, r->path, pos, "an Arrow stream without a schema");
		if (mlen > n - pos - 8)
			return bad(err, r->path, pos, "an Arrow message past the end of the file");
		gt_fb_reader f = {p + pos + 8, mlen, false};
		size_t msg = (uint32_t)gt_fb_get(&f, 0, 4);
		size_t ht = gt_fb_field(&f, msg, 1);
		uint8_t htype = ht && ht < f.n ? f.p[ht] : 0;
		size_t header = gt_fb_deref(&f, msg, 2);
		int64_t body_len = (int64_t)gt_fb_get(&f, gt_fb_field(&f, msg, 3), 8);
		size_t body = pos + 8 + mlen;
		if (f.bad || !header || body_len < 0 || (uint64_t)body_len > n - body)
			return bad(err, r->path, pos, "a malformed Arrow message");
		int rc = 0;
		if (htype == HDR_SCHEMA)
			rc = r->have_schema ? bad(err, r->path, pos, "a second schema") : read_schema(r, &f, header, pos, err);
		else if (htype == HDR_RECORD_BATCH)
			rc = r->have_schema ? read_batch(r, &f, header, p + body, (size_t)body_len, pos, err)
					    : bad(err, r->path, pos, "a record batch before the schema");
		else
			rc = bad(err, r->path, pos, "an Arrow message the summary does not have (a dictionary?)");
		if (rc < 0)
			return -1;
		pos = body + (size_t)body_len;
	}
	return r->have_schema ? 0 : bad(err, r->path, pos, "an Arrow file without a schema");
}

int gt_coll_arrow_read(gt_coll_set *s, const char *path, gt_error *err)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return gt_fail(err, GT_EINPUT, "%s: cannot open", path);
	unsigned char *p = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			unsigned char *q = realloc(p, cap);
			if (!q) {
				free(p);
				fclose(fp);
				return gt_fail(err, GT_EINPUT, "out of memory reading %s", path);
			}
			p = q;
		}
		size_t got = fread(p + n, 1, cap - n, fp);
		n += got;
		if (got == 0)
			break;
	}
	bool ioerr = ferror(fp);
	fclose(fp);
	if (ioerr) {
		free(p);
		return gt_fail(err, GT_EINPUT, "%s: read error", path);
	}
	int rc = gt_coll_arrow_parse(s, path, p, n, err);
	free(p);
	return rc;
}

int gt_coll_arrow_parse(gt_coll_set *s, const char *path, const unsigned char *p, size_t n, gt_error *err)
{
	struct reader r = {.path = path, .s = s};
	size_t start = 0, end = n;
	if (n >= 8 && memcmp(p, "ARROW1\0\0", 8) == 0) {
		/* the file format: the messages end where the footer begins */
		uint32_t flen = 0;
		if (n >= 18 && memcmp(p + n - 6, "ARROW1", 6) == 0)
			flen = gt_le_get32(p + n - 10);
		if (n < 18 || memcmp(p + n - 6, "ARROW1", 6) != 0 || flen > n - 18)
			return gt_fail(err, GT_EINPUT, "%s: byte %zu: an Arrow file without its footer", path, n);
		start = 8;
		end = n - 10 - flen;
	}
	return read_messages(&r, p, end, start, err);
}
