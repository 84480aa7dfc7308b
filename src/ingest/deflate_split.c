/* Finding deflate blocks and decoding pieces of a stream (deflate_split.h). */
#include "deflate_split.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <isa-l/igzip_lib.h>


/* 64 bits of data from bit offset bit on, least significant first (zeros
 * past the end). */
static inline uint64_t peek64(const uint8_t *data, size_t size, uint64_t bit)
{
	size_t byte = (size_t)(bit >> 3);
	uint64_t lo, hi;
	if (byte + 16 <= size) {
		memcpy(&lo, data + byte, 8);
		memcpy(&hi, data + byte + 8, 8);
	} else {
		uint8_t tail[16] = {0};
		if (byte < size)
			memcpy(tail, data + byte, size - byte);
		memcpy(&lo, tail, 8);
		memcpy(&hi, tail + 8, 8);
	}
	unsigned shift = (unsigned)(bit & 7);
	return shift ? lo >> shift | hi << (64 - shift) : lo;
}

/* Kraft's sum of n code lengths (at most max_len), in units of 2^-max_len:
 * 1 << max_len is a complete code; -1 if some length is longer. */
static long kraft(const uint8_t *len, unsigned n, unsigned max_len, unsigned *codes, unsigned *longest)
{
	long sum = 0;
	*codes = 0;
	*longest = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!len[i])
			continue;
		if (len[i] > max_len)
			return -1;
		sum += 1L << (max_len - len[i]);
		++*codes;
		if (len[i] > *longest)
			*longest = len[i];
	}
	return sum;
}

/* zlib's rule for a literal/length or distance code: complete, or a single
 * code of one bit (or, for distances, none). */
static bool usable_code(const uint8_t *len, unsigned n, bool may_be_empty)
{
	unsigned codes, longest;
	long sum = kraft(len, n, 15, &codes, &longest);
	if (sum < 0 || sum > 1L << 15)
		return false;
	if (codes == 0)
		return may_be_empty;
	return sum == 1L << 15 || (codes == 1 && longest == 1);
}

/* Whether the first bits of a dynamic block's header at bit p can be
 * one: not final, type 2, counts in range, a complete code-length code.
 * The search's filter, run at every bit: most offsets fail the first
 * test, nearly all the rest the last. */
static inline bool header_start_at(const uint8_t *data, size_t size, uint64_t p)
{
	uint64_t v = peek64(data, size, p);
	if ((v & 7) != 4 || (v >> 3 & 31) > 29 || (v >> 8 & 31) > 29)
		return false;
	unsigned hclen = (v >> 13 & 15) + 4, sum = 0;
	uint64_t w = peek64(data, size, p + 17);
	for (unsigned i = 0; i < hclen; i++, w >>= 3) {
		unsigned len = w & 7;
		sum += len ? 128u >> len : 0;
	}
	return sum == 128;
}

/* Whether a dynamic block's header at bit p is valid: its three codes
 * usable, its code lengths within their count, an end-of-block code. */
static bool dynamic_header_at(const uint8_t *data, size_t size, uint64_t p)
{
	static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
	uint64_t v = peek64(data, size, p);
	unsigned hlit = (v >> 3 & 31) + 257, hdist = (v >> 8 & 31) + 1, hclen = (v >> 13 & 15) + 4;
	uint8_t cl[19] = {0};
	uint64_t w = peek64(data, size, p + 17);
	for (unsigned i = 0; i < hclen; i++)
		cl[order[i]] = (uint8_t)(w >> (3 * i) & 7);
	/* the code lengths' code, as a table of 7 reversed bits */
	uint16_t table[128];
	unsigned count[8] = {0}, next[8] = {0};
	for (unsigned s = 0; s < 19; s++)
		count[cl[s]]++;
	count[0] = 0;
	for (unsigned l = 1, code = 0; l < 8; l++) {
		code = (code + count[l - 1]) << 1;
		next[l] = code;
	}
	for (unsigned s = 0; s < 19; s++) {
		unsigned l = cl[s];
		if (!l)
			continue;
		unsigned code = next[l]++, rev = 0;
		for (unsigned b = 0; b < l; b++)
			rev |= (code >> b & 1) << (l - 1 - b);
		for (unsigned fill = rev; fill < 128; fill += 1u << l)
			table[fill] = (uint16_t)(s | l << 8);
	}
	uint8_t lens[286 + 30];
	unsigned total = hlit + hdist, n = 0;
	uint64_t q = p + 17 + 3 * (uint64_t)hclen;
	while (n < total) {
		if (q >= (uint64_t)size * 8)
			return false;
		uint64_t bits = peek64(data, size, q);
		unsigned e = table[bits & 127], sym = e & 255, l = e >> 8;
		q += l;
		bits >>= l;
		unsigned rep;
		uint8_t val = 0;
		if (sym < 16) {
			lens[n++] = (uint8_t)sym;
			continue;
		} else if (sym == 16) {
			if (n == 0)
				return false;
			val = lens[n - 1];
			rep = 3 + (unsigned)(bits & 3);
			q += 2;
		} else if (sym == 17) {
			rep = 3 + (unsigned)(bits & 7);
			q += 3;
		} else {
			rep = 11 + (unsigned)(bits & 127);
			q += 7;
		}
		if (n + rep > total)
			return false;
		memset(lens + n, val, rep);
		n += rep;
	}
	return lens[256] != 0 && usable_code(lens, hlit, false) && usable_code(lens + hlit, hdist, true);
}

/* Whether ISA-L decodes TRIAL_IN compressed bytes from bit p without an
 * error (a false start meets an invalid header or code within a few
 * pseudo-blocks). */
#define TRIAL_IN (32u << 10)
#define TRIAL_OUT (1u << 20)

static bool decodes_from(const uint8_t *data, size_t size, uint64_t p, struct inflate_state *st, uint8_t *out,
			 size_t out_cap)
{
	static const uint8_t zeros[GT_DEFLATE_WINDOW];
	isal_inflate_init(st);
	st->crc_flag = IGZIP_DEFLATE;
	isal_inflate_set_dict(st, (uint8_t *)zeros, GT_DEFLATE_WINDOW);
	size_t byte = (size_t)(p >> 3), end = byte + TRIAL_IN < size ? byte + TRIAL_IN : size;
	unsigned shift = (unsigned)(p & 7);
	if (shift) {
		st->read_in = data[byte] >> shift;
		st->read_in_length = (int32_t)(8 - shift);
		byte++;
	}
	st->next_in = (uint8_t *)data + byte;
	st->avail_in = (uint32_t)(end - byte);
	size_t total = 0;
	for (;;) {
		st->next_out = out;
		st->avail_out = (uint32_t)out_cap;
		if (isal_inflate(st) < 0)
			return false;
		size_t got = out_cap - st->avail_out;
		total += got;
		if (st->block_state == ISAL_BLOCK_FINISH || total >= TRIAL_OUT || got < out_cap)
			return true;
	}
}

int64_t gt_deflate_find_block(const uint8_t *data, size_t size, uint64_t from_bit, uint64_t to_bit)
{
	if (to_bit > (uint64_t)size * 8)
		to_bit = (uint64_t)size * 8;
	struct inflate_state *st = NULL;
	uint8_t *out = NULL;
	int64_t found = -1;
	for (uint64_t p = from_bit; p < to_bit && found < 0; p++) {
		if (!header_start_at(data, size, p) || !dynamic_header_at(data, size, p))
			continue;
		if (!st && (!(st = malloc(sizeof *st)) || !(out = malloc(1u << 16))))
			break;
		if (decodes_from(data, size, p, st, out, 1u << 16))
			found = (int64_t)p;
	}
	free(st);
	free(out);
	return found;
}

void gt_deflate_piece_free(gt_deflate_piece *p)
{
	free(p->out);
	p->out = NULL;
	p->len = p->cap = 0;
}

static bool grow(gt_deflate_piece *p, size_t want)
{
	if (p->cap - p->len >= want)
		return true;
	size_t cap = p->cap ? p->cap : want;
	while (cap - p->len < want)
		cap *= 2;
	uint8_t *out = realloc(p->out, cap); /* a failure is the caller's to hand back; no fault point (threads) */
	if (!out)
		return false;
	p->out = out;
	p->cap = cap;
	return true;
}

int gt_deflate_decode_span(const uint8_t *data, size_t size, uint64_t start_bit, uint64_t end_bit,
			   const uint8_t *window, size_t max_out, gt_deflate_piece *p)
{
	*p = (gt_deflate_piece){.out = p->out, .cap = p->cap, .stop_bit = start_bit};
	size_t end = end_bit ? (size_t)((end_bit + 7) >> 3) : size;
	if (end > size)
		end = size;
	size_t byte = (size_t)(start_bit >> 3);
	if (byte >= end)
		return 0;
	struct inflate_state *st = malloc(sizeof *st);
	/* a first guess at the output: zlib's JSON shrinks about 8x */
	if (!st || !grow(p, (end - byte) * 10 + 65536)) {
		free(st);
		p->no_memory = true;
		return -1;
	}
	isal_inflate_init(st);
	st->crc_flag = IGZIP_DEFLATE;
	if (window)
		isal_inflate_set_dict(st, (uint8_t *)window, GT_DEFLATE_WINDOW);
	unsigned shift = (unsigned)(start_bit & 7);
	if (shift) {
		st->read_in = data[byte] >> shift;
		st->read_in_length = (int32_t)(8 - shift);
		byte++;
	}
	st->next_in = (uint8_t *)data + byte;
	int rc = 0;
	for (;;) {
		size_t left = end - (size_t)(st->next_in - data);
		if (st->avail_in == 0 && left)
			st->avail_in = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
		if (!grow(p, 1u << 20)) {
			p->no_memory = true;
			rc = -1;
			break;
		}
		size_t room = p->cap - p->len;
		st->next_out = p->out + p->len;
		st->avail_out = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
		uint32_t before_in = st->avail_in, before_out = st->avail_out;
		int r = isal_inflate(st);
		p->len += before_out - st->avail_out;
		if (r < 0) {
			p->isal_rc = r;
			rc = -1;
			break;
		}
		if (st->block_state == ISAL_BLOCK_FINISH) {
			p->final = true;
			break;
		}
		if (max_out && p->len > max_out) {
			rc = -1;
			break;
		}
		bool stalled = st->avail_in == before_in && st->avail_out == before_out;
		if (stalled || (st->avail_in == 0 && (size_t)(st->next_in - data) == end && st->avail_out > 0))
			break;
	}
	p->stop_bit = (uint64_t)(st->next_in - data) * 8 - (uint64_t)st->read_in_length - (uint64_t)st->tmp_in_size * 8;
	if (!p->final && st->block_state != ISAL_BLOCK_HDR && st->block_state != ISAL_BLOCK_NEW_HDR)
		p->stop_bit = 0; /* stopped inside a block: no whole block ends here */
	free(st);
	return rc;
}

void gt_deflate_window_pair(uint8_t a[GT_DEFLATE_WINDOW], uint8_t b[GT_DEFLATE_WINDOW])
{
	for (unsigned i = 0; i < GT_DEFLATE_WINDOW; i++) {
		unsigned lo = i & 255, hi = i >> 8;
		a[i] = (uint8_t)lo;
		b[i] = (uint8_t)(hi != lo ? hi : hi | 128);
	}
}

/* A select without a branch per byte: nearly half of JSON's bytes come
 * from the window, scattered, and a branch on each mispredicts. With AVX2,
 * the window's bytes are gathered eight at a time. */
static void resolve_bytes(uint8_t *out, const uint8_t *other, size_t n, const uint8_t window[GT_DEFLATE_WINDOW])
{
	for (size_t i = 0; i < n; i++) {
		unsigned x = out[i], y = other[i], w = window[x | (y & 127) << 8];
		unsigned same = -(unsigned)(x == y);
		out[i] = (uint8_t)((x & same) | (w & ~same));
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void resolve_avx2(uint8_t *out, const uint8_t *other, size_t n,
							  const uint8_t window[GT_DEFLATE_WINDOW])
{
	size_t i = 0;
	const __m256i low = _mm256_set1_epi32(255), seven = _mm256_set1_epi32(127 << 8);
	for (; i + 8 <= n; i += 8) {
		__m128i x8 = _mm_loadl_epi64((const __m128i *)(out + i));
		__m128i y8 = _mm_loadl_epi64((const __m128i *)(other + i));
		__m128i diff = _mm_cmpeq_epi8(x8, y8);
		if (_mm_movemask_epi8(diff) == 0xffff)
			continue; /* the whole word the piece's own */
		__m256i x = _mm256_cvtepu8_epi32(x8), y = _mm256_cvtepu8_epi32(y8);
		__m256i idx = _mm256_or_si256(x, _mm256_and_si256(_mm256_slli_epi32(y, 8), seven));
		/* 4-byte loads at idx: the bytes past the window's end come from
		 * its padding (the caller's window is GT_DEFLATE_WINDOW + 3 long) */
		__m256i w = _mm256_and_si256(_mm256_i32gather_epi32((const int *)window, idx, 1), low);
		__m256i same = _mm256_cmpeq_epi32(x, y);
		__m256i r = _mm256_blendv_epi8(w, x, same);
		/* 8 lanes of 32 bits to 8 bytes */
		__m256i packed16 = _mm256_packus_epi32(r, r);
		__m256i packed8 = _mm256_packus_epi16(packed16, packed16);
		uint32_t lo = (uint32_t)_mm256_extract_epi32(packed8, 0), hi = (uint32_t)_mm256_extract_epi32(packed8, 4);
		memcpy(out + i, &lo, 4);
		memcpy(out + i + 4, &hi, 4);
	}
	resolve_bytes(out + i, other + i, n - i, window);
}
#endif

void gt_deflate_resolve(uint8_t *out, const uint8_t *other, size_t n, const uint8_t window[GT_DEFLATE_WINDOW])
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		resolve_avx2(out, other, n, window);
		return;
	}
#endif
	resolve_bytes(out, other, n, window);
}

size_t gt_deflate_reach(const uint8_t *out, const uint8_t *other, size_t n)
{
	size_t lowest = GT_DEFLATE_WINDOW;
	for (size_t i = 0; i < n; i++)
		if (out[i] != other[i]) {
			size_t pos = out[i] | (size_t)(other[i] & 127) << 8;
			if (pos < lowest)
				lowest = pos;
		}
	return GT_DEFLATE_WINDOW - lowest;
}
