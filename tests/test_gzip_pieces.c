/* A gzip member decoded in pieces on threads (gzip_pieces.c, on
 * deflate_split.c) gives zlib's bytes: on text like a trace's and on
 * random bytes, from zlib's levels and strategies, with flushes that leave
 * stored and empty blocks, in pieces of many sizes. A stream it cannot
 * read whole (corrupt, cut, more after its member) is handed back, and
 * what it gave before is what one inflate gives. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <isa-l/igzip_lib.h>

#include "ingest/deflate_split.h"
#include "ingest/gzip_pieces.h"
#include "testutil.h"

/* Text like a trace's: events repeating their keys, numbers that vary. */
static unsigned char *trace_text(size_t n, uint64_t seed)
{
	unsigned char *b = malloc(n + 256);
	ck_assert_ptr_nonnull(b);
	size_t len = 0;
	while (len < n) {
		uint64_t r = gt_splitmix64(&seed);
		len += (size_t)snprintf((char *)b + len, 256,
					"{\"ph\":\"X\",\"name\":\"kernel_%u\",\"pid\":%u,\"tid\":%u,\"ts\":%llu,\"dur\":%u},\n",
					(unsigned)(r % 97), (unsigned)(r >> 8 & 3), (unsigned)(r >> 12 & 15),
					(unsigned long long)(r >> 20 & 0xffffffff), (unsigned)(r >> 52));
	}
	return b;
}

/* gzip of b[0, n) at a level and strategy, flushing with `flush` every
 * `every` input bytes (0: never). */
static unsigned char *gzip_of(const unsigned char *b, size_t n, int level, int strategy, int flush, size_t every,
			      size_t *out_len)
{
	z_stream z = {0};
	ck_assert_int_eq(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, strategy), Z_OK);
	size_t cap = deflateBound(&z, n) + n / 8 + 1024;
	unsigned char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	size_t pos = 0;
	while (pos < n) {
		size_t take = every && every < n - pos ? every : n - pos;
		z.next_in = (unsigned char *)b + pos;
		z.avail_in = (uInt)take;
		pos += take;
		ck_assert_int_ne(deflate(&z, pos == n ? Z_FINISH : every ? flush : Z_NO_FLUSH), Z_STREAM_ERROR);
	}
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

/* One ISA-L inflate of a gzip file's first member, as far as it goes
 * (input.c's one-thread path): the bytes. */
static unsigned char *gunzip_of(const unsigned char *gz, size_t n, size_t *out_len)
{
	struct inflate_state *st = malloc(sizeof *st);
	ck_assert_ptr_nonnull(st);
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	size_t cap = n * 16 + 4096;
	unsigned char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	st->next_in = (uint8_t *)gz;
	st->avail_in = (uint32_t)n;
	st->next_out = out;
	st->avail_out = (uint32_t)cap;
	isal_inflate(st);
	*out_len = cap - st->avail_out;
	free(st);
	return out;
}

/* Reads gz through the pieces with pieces of piece_in bytes: all its
 * bytes, and where it hands back. Returns -1 when it does not take it. */
static long read_pieces(const unsigned char *gz, size_t n, size_t piece_in, unsigned threads, unsigned char *out,
			size_t cap, uint64_t *resume_at, uint64_t *skip)
{
	char env[32];
	snprintf(env, sizeof env, "%zu", piece_in);
	setenv("GPUTRACE_GZIP_PIECE", env, 1);
	gt_gzpieces *g;
	gt_error err = {0};
	int rc = gt_gzpieces_open(&g, gz, n, threads, 200, "test", &err);
	ck_assert_int_ge(rc, 0);
	if (rc == 0)
		return -1;
	size_t got = 0;
	long k;
	while ((k = gt_gzpieces_read(g, (char *)out + got, cap - got < 100000 ? cap - got : 100000)) > 0)
		got += (size_t)k;
	gt_gzpieces_resume(g, resume_at, skip);
	gt_gzpieces_close(g);
	return (long)got;
}

static const struct {
	int level, strategy, flush;
	size_t every;
} configs[] = {
	{6, Z_DEFAULT_STRATEGY, 0, 0},    {1, Z_DEFAULT_STRATEGY, 0, 0},      {9, Z_DEFAULT_STRATEGY, 0, 0},
	{6, Z_FIXED, 0, 0},               {6, Z_HUFFMAN_ONLY, 0, 0},          {6, Z_RLE, 0, 0},
	{6, Z_DEFAULT_STRATEGY, Z_SYNC_FLUSH, 3000}, {6, Z_DEFAULT_STRATEGY, Z_FULL_FLUSH, 20000},
	{0, Z_DEFAULT_STRATEGY, 0, 0},    {6, Z_DEFAULT_STRATEGY, Z_BLOCK, 777},
};

/* Every configuration, text and random bytes, pieces of several sizes and
 * thread counts: zlib's bytes, read to the file's end. */
START_TEST(same_bytes_as_zlib)
{
	int c = _i / 2;
	bool random_bytes = _i % 2;
	size_t n = (3u << 20) + (size_t)_i * 1237;
	uint64_t seed = 0x9e3779b9u + (uint64_t)_i;
	unsigned char *text = trace_text(n, seed);
	if (random_bytes) /* a stretch of noise among the text: stored blocks, long codes */
		for (size_t i = n / 3; i < n / 3 + (256u << 10); i++)
			text[i] = (unsigned char)gt_splitmix64(&seed);
	size_t gz_len, want_len;
	unsigned char *gz = gzip_of(text, n, configs[c].level, configs[c].strategy, configs[c].flush, configs[c].every,
				    &gz_len);
	unsigned char *out = malloc(n + 1);
	const size_t pieces[] = {64, 1000, 8192, 65536, 300000};
	for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
		uint64_t at, skip;
		memset(out, 0, n + 1);
		long got = read_pieces(gz, gz_len, pieces[p], 2 + (unsigned)p % 3, out, n + 1, &at, &skip);
		if (got < 0) {
			ck_assert_uint_lt(gz_len, 2 * pieces[p] + 32); /* too small to cut */
			continue;
		}
		ck_assert_msg((size_t)got == n && at == gz_len && skip == 0,
			      "config %d, pieces of %zu: %ld of %zu bytes, resume %llu (of %zu), skip %llu", c,
			      pieces[p], got, n, (unsigned long long)at, gz_len, (unsigned long long)skip);
		ck_assert_msg(memcmp(out, text, n) == 0, "config %d, pieces of %zu: other bytes", c, pieces[p]);
	}
	free(gunzip_of(gz, gz_len, &want_len));
	ck_assert_uint_eq(want_len, n);
	free(out);
	free(gz);
	free(text);
}
END_TEST

/* A stream damaged, cut, or followed by more: handed back, and the bytes
 * given before are a prefix of what one inflate gives. */
START_TEST(hands_back_what_it_cannot_read)
{
	uint64_t seed = 0xbad5eed + (uint64_t)_i;
	size_t n = 2u << 20, gz_len, want_len;
	unsigned char *text = trace_text(n, seed);
	unsigned char *gz = gzip_of(text, n, 6, Z_DEFAULT_STRATEGY, 0, 0, &gz_len);
	unsigned char *bad = malloc(gz_len + 64);
	memcpy(bad, gz, gz_len);
	size_t bad_len = gz_len;
	switch (_i % 4) {
	case 0: /* bytes overwritten somewhere past the header */
		for (int k = 0; k < 4; k++)
			bad[20 + gt_splitmix64(&seed) % (gz_len - 28)] ^= (unsigned char)(1 + gt_splitmix64(&seed) % 255);
		break;
	case 1: /* cut */
		bad_len = 20 + gt_splitmix64(&seed) % (gz_len - 20);
		break;
	case 2: /* a second member, or bytes, after it */
		memcpy(bad + gz_len, _i % 8 == 2 ? gz : (const unsigned char *)"junk after the member", 21);
		bad_len = gz_len + 21;
		break;
	default: /* a wrong trailer */
		bad[gz_len - 5] ^= 1;
		break;
	}
	unsigned char *want = gunzip_of(bad, bad_len, &want_len);
	unsigned char *out = malloc(n * 2);
	uint64_t at, skip;
	long got = read_pieces(bad, bad_len, 4096 + (size_t)_i * 100, 3, out, n * 2, &at, &skip);
	ck_assert_int_ge(got, 0);
	ck_assert_msg(at == 0 && skip == (uint64_t)got, "case %d: resume %llu skip %llu after %ld bytes", _i,
		      (unsigned long long)at, (unsigned long long)skip, got);
	ck_assert_msg((size_t)got <= want_len, "case %d: %ld bytes given, one inflate gives %zu", _i, got, want_len);
	ck_assert_msg(memcmp(out, want, (size_t)got) == 0, "case %d: bytes given differ from one inflate's", _i);
	free(out);
	free(want);
	free(bad);
	free(gz);
	free(text);
}
END_TEST

/* A member whose later block reaches back before the stream's start
 * (deflated against a preset dictionary, which gzip has not): one inflate
 * refuses it there, and the pieces hand back before that byte, though their
 * stand-in window would have given that block bytes. */
START_TEST(reach_before_the_start_handed_back)
{
	uint64_t seed = 0x100c + (uint64_t)_i;
	size_t dict_len = 32768, n = 60000, fresh = 4000 + (size_t)_i * 997;
	unsigned char *dict = trace_text(dict_len, seed + 1000);
	unsigned char *text = trace_text(n, seed);
	for (size_t i = 0; i < fresh; i++) /* bytes the dictionary has not: its own block */
		text[i] = (unsigned char)(128 + gt_splitmix64(&seed) % 128);
	memcpy(text + fresh, dict + 100, 20000); /* to be found in the dictionary only */
	z_stream z = {0};
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	ck_assert_int_eq(deflateSetDictionary(&z, dict, (uInt)dict_len), Z_OK);
	size_t cap = n * 2 + 1024;
	unsigned char *gz = malloc(cap);
	memcpy(gz, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
	z.next_out = gz + 10;
	z.avail_out = (uInt)(cap - 18);
	z.next_in = text;
	z.avail_in = (uInt)fresh; /* its own block first, then the one that reaches back */
	ck_assert_int_eq(deflate(&z, Z_BLOCK), Z_OK);
	z.avail_in = 20000; /* a block not the last (the search takes no last block) */
	ck_assert_int_eq(deflate(&z, Z_BLOCK), Z_OK);
	z.avail_in = (uInt)(n - fresh - 20000);
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = 10 + z.total_out;
	deflateEnd(&z);
	uint32_t crc = (uint32_t)crc32(0, text, (uInt)n);
	for (int k = 0; k < 4; k++) {
		gz[len + (size_t)k] = (unsigned char)(crc >> (8 * k));
		gz[len + 4 + (size_t)k] = (unsigned char)(n >> (8 * k));
	}
	len += 8;
	size_t want_len;
	unsigned char *want = gunzip_of(gz, len, &want_len);
	ck_assert_uint_lt(want_len, n); /* one inflate stops */
	unsigned char *out = malloc(n);
	uint64_t at, skip;
	long got = read_pieces(gz, len, 64, 2, out, n, &at, &skip);
	ck_assert_int_ge(got, 0);
	ck_assert_msg(at == 0 && skip == (uint64_t)got && (size_t)got <= want_len,
		      "resume %llu skip %llu after %ld bytes; one inflate gives %zu", (unsigned long long)at,
		      (unsigned long long)skip, got, want_len);
	ck_assert(memcmp(out, want, (size_t)got) == 0);
	free(out);
	free(want);
	free(gz);
	free(text);
	free(dict);
}
END_TEST

/* The stand-in windows name every position; the fill gives it back. */
START_TEST(window_pair_names_positions)
{
	static uint8_t a[GT_DEFLATE_WINDOW], b[GT_DEFLATE_WINDOW], w[GT_DEFLATE_WINDOW + GT_DEFLATE_WINDOW_PAD];
	gt_deflate_window_pair(a, b);
	uint64_t seed = 7;
	for (unsigned i = 0; i < GT_DEFLATE_WINDOW; i++) {
		ck_assert_uint_ne(a[i], b[i]);
		w[i] = (uint8_t)gt_splitmix64(&seed);
	}
	enum { N = 100003 };
	uint8_t *x = malloc(N), *y = malloc(N), *want = malloc(N);
	for (unsigned i = 0; i < N; i++) {
		uint64_t r = gt_splitmix64(&seed);
		if (r & 1) { /* a byte of its own */
			x[i] = y[i] = want[i] = (uint8_t)(r >> 8);
		} else { /* from the window */
			unsigned pos = (unsigned)(r >> 16) % GT_DEFLATE_WINDOW;
			x[i] = a[pos];
			y[i] = b[pos];
			want[i] = w[pos];
		}
	}
	gt_deflate_resolve(x, y, N, w);
	ck_assert(memcmp(x, want, N) == 0);
	free(x);
	free(y);
	free(want);
}
END_TEST

int main(void)
{
	const gt_test tests[] = {GT_LOOP(same_bytes_as_zlib, 20), GT_LOOP(hands_back_what_it_cannot_read, 16),
				 GT_LOOP(reach_before_the_start_handed_back, 4),
				 GT_TEST(window_pair_names_positions), {0}};
	const gt_tcase cases[] = {{"gzip_pieces", 300, tests}, {0}};
	return gt_run_cases("gzip_pieces", cases);
}
