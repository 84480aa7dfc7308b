/* The harnesses' input compression: a trace's bytes as one gzip member or
 * zstd frame (or several), malloc'ed (NULL on failure), so that the readers' gzip and
 * zstd paths see what the harness made. */
#ifndef GT_FUZZ_COMPRESS_H
#define GT_FUZZ_COMPRESS_H

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static inline unsigned char *gzip_bytes(const void *d, size_t n, size_t *out_n)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&zs, n) + 32;
	unsigned char *buf = malloc(cap);
	if (buf) {
		zs.next_in = (Bytef *)d;
		zs.avail_in = (uInt)n;
		zs.next_out = buf;
		zs.avail_out = (uInt)cap;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
			free(buf);
			buf = NULL;
		} else {
			*out_n = cap - zs.avail_out;
		}
	}
	deflateEnd(&zs);
	return buf;
}

static inline unsigned char *zstd_bytes(const void *d, size_t n, size_t *out_n)
{
	size_t cap = ZSTD_compressBound(n);
	unsigned char *buf = malloc(cap);
	if (!buf)
		return NULL;
	size_t r = ZSTD_compress(buf, cap, d, n, 1);
	if (ZSTD_isError(r)) {
		free(buf);
		return NULL;
	}
	*out_n = r;
	return buf;
}

/* The same bytes as frames of frame_len bytes each (the last shorter), one
 * after another: the readers' path for a file of several frames. */
static inline unsigned char *zstd_frames_bytes(const void *d, size_t n, size_t frame_len, size_t *out_n)
{
	size_t frames = n / frame_len + 1;
	size_t cap = ZSTD_compressBound(n) + frames * ZSTD_compressBound(0);
	unsigned char *buf = malloc(cap);
	if (!buf)
		return NULL;
	size_t at = 0;
	for (size_t off = 0; off < n || off == 0; off += frame_len) {
		size_t len = n - off < frame_len ? n - off : frame_len;
		size_t r = ZSTD_compress(buf + at, cap - at, (const char *)d + off, len, 1);
		if (ZSTD_isError(r)) {
			free(buf);
			return NULL;
		}
		at += r;
		if (len == 0)
			break;
	}
	*out_n = at;
	return buf;
}

#endif
