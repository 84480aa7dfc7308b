/* Plain, gzip and zstd output (see zsink.h). Input is gathered into a
 * buffer and compressed a buffer at a time. */
#include "zsink.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "model/model.h"

#define BUF_BYTES (1u << 20)

struct gt_zsink {
	FILE *fp;
	int compression;
	z_stream zs;
	bool zs_live;
	ZSTD_CCtx *zc;
	char *buf, *out; /* gathered input; compressed output */
	size_t len;
	bool failed;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

int gt_zsink_compression_for(const char *path)
{
	if (path && ends_with(path, ".gz"))
		return GT_COMP_GZIP;
	if (path && ends_with(path, ".zst"))
		return GT_COMP_ZSTD;
	return GT_COMP_NONE;
}

int gt_zsink_open(gt_zsink **out, FILE *fp, int compression, gt_error *err)
{
	*out = NULL;
	gt_zsink *z = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *z);
	if (!z)
		return gt_fail(err, GT_EINPUT, "out of memory");
	z->fp = fp;
	z->compression = compression;
	z->buf = malloc(BUF_BYTES);
	z->out = compression != GT_COMP_NONE ? malloc(BUF_BYTES) : NULL;
	if (!z->buf || (compression != GT_COMP_NONE && !z->out))
		goto oom;
	if (compression == GT_COMP_GZIP) {
		/* windowBits 15 + 16: a gzip header and trailer */
		if (deflateInit2(&z->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			goto oom;
		z->zs_live = true;
	} else if (compression == GT_COMP_ZSTD) {
		if (!(z->zc = ZSTD_createCCtx()))
			goto oom;
		ZSTD_CCtx_setParameter(z->zc, ZSTD_c_compressionLevel, 3);
	}
	*out = z;
	return 0;
oom:
	gt_zsink_free(z);
	return gt_fail(err, GT_EINPUT, "out of memory");
}

static int put(gt_zsink *z, const void *p, size_t n, gt_error *err)
{
	if (n && fwrite(p, 1, n, z->fp) != n) {
		z->failed = true;
		return gt_fail(err, GT_EINPUT, "write error");
	}
	return 0;
}

/* Compresses the gathered buffer; last ends the stream. */
static int drain(gt_zsink *z, bool last, gt_error *err)
{
	if (z->failed)
		return gt_fail(err, GT_EINPUT, "write error");
	if (z->compression == GT_COMP_NONE) {
		int rc = put(z, z->buf, z->len, err);
		z->len = 0;
		return rc;
	}
	if (z->compression == GT_COMP_GZIP) {
		z->zs.next_in = (Bytef *)z->buf;
		z->zs.avail_in = (uInt)z->len;
		int zr;
		do {
			z->zs.next_out = (Bytef *)z->out;
			z->zs.avail_out = BUF_BYTES;
			zr = deflate(&z->zs, last ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR) {
				z->failed = true;
				return gt_fail(err, GT_EINPUT, "gzip compression failed");
			}
			if (put(z, z->out, BUF_BYTES - z->zs.avail_out, err) < 0)
				return -1;
		} while (last ? zr != Z_STREAM_END : z->zs.avail_in > 0);
		z->len = 0;
		return 0;
	}
	ZSTD_inBuffer in = {z->buf, z->len, 0};
	for (;;) {
		ZSTD_outBuffer ob = {z->out, BUF_BYTES, 0};
		size_t left = ZSTD_compressStream2(z->zc, &ob, &in, last ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left)) {
			z->failed = true;
			return gt_fail(err, GT_EINPUT, "zstd compression failed: %s", ZSTD_getErrorName(left));
		}
		if (put(z, z->out, ob.pos, err) < 0)
			return -1;
		if (last ? left == 0 : in.pos == in.size)
			break;
	}
	z->len = 0;
	return 0;
}

int gt_zsink_write(gt_zsink *z, const void *p, size_t n, gt_error *err)
{
	const char *s = p;
	while (n) {
		if (z->len == BUF_BYTES && drain(z, false, err) < 0)
			return -1;
		size_t k = BUF_BYTES - z->len < n ? BUF_BYTES - z->len : n;
		memcpy(z->buf + z->len, s, k);
		z->len += k;
		s += k;
		n -= k;
	}
	return z->failed ? gt_fail(err, GT_EINPUT, "write error") : 0;
}

int gt_zsink_finish(gt_zsink *z, gt_error *err)
{
	return drain(z, true, err);
}

void gt_zsink_free(gt_zsink *z)
{
	if (!z)
		return;
	if (z->zs_live)
		deflateEnd(&z->zs);
	ZSTD_freeCCtx(z->zc);
	free(z->buf);
	free(z->out);
	free(z);
}
