/* A lenient, validating JSON lexer for the ingest hot path. It works on a
 * contiguous buffer and never builds a tree: strings are returned as slices
 * of the buffer, values the caller does not need are skipped (and still
 * validated). Leniencies, each counted by the caller: trailing commas in
 * objects and arrays, raw control characters inside strings, invalid UTF-8
 * in strings (each maximal invalid subpart later becomes U+FFFD), and the
 * non-standard NaN, Infinity and -Infinity as values. */
#ifndef GT_JSON_LEX_H
#define GT_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Results of lexing functions. */
enum {
	JL_OK = 0,
	JL_NEED_MORE = 1, /* the buffer ended inside the value: read more */
	JL_ERROR = 2,     /* not JSON: lexer->msg says why, lexer->pos where */
};

#define JL_MAX_DEPTH 512

typedef struct jl_slice {
	const char *p;
	uint32_t len;
	bool escaped; /* contains backslash escapes or invalid UTF-8: unescape before use */
} jl_slice;

typedef struct jl_lexer {
	const char *begin, *end; /* the buffer */
	bool final;              /* no more bytes will follow `end` */
	const char *pos;         /* error position */
	const char *msg;         /* error message (static string) */
	uint64_t trailing_commas;
	uint64_t control_chars;
	uint64_t invalid_utf8;  /* maximal invalid subparts in strings */
	uint64_t nonstandard;   /* NaN, Infinity, -Infinity values */
} jl_lexer;

static inline bool jl_is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Skips a run of whitespace longer than one byte (the indentation of
 * pretty-printed traces), sixteen bytes a step. */
const char *jl_skip_ws_run(const char *p, const char *end);

static inline const char *jl_skip_ws(const char *p, const char *end)
{
	/* one compare rejects every byte above the space: most tokens follow
	 * none, or the one space after a ',' or ':' */
	if (p >= end || (unsigned char)*p > ' ' || !jl_is_ws(*p))
		return p;
	if (end - p >= 2 && (unsigned char)p[1] > ' ')
		return p + 1;
	return jl_skip_ws_run(p + 1, end);
}

/* How many of the eight bytes at p (all readable) are leading ASCII digits.
 * A byte is a digit when byte - '0' is below 10: the subtraction's borrows
 * and the addition's carries only run into bytes after the first
 * non-digit, which the count never looks at. */
static inline unsigned jl_digits8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	uint64_t t = w - 0x3030303030303030ull;
	uint64_t non_digit = (t | (t + 0x7676767676767676ull)) & 0x8080808080808080ull;
	return non_digit ? (unsigned)__builtin_ctzll(non_digit) >> 3 : 8;
}

/* The value of the n (1..8) leading digits of the eight bytes at p, in
 * three multiply steps: pairs, quads, then all eight. Shifting the unused
 * bytes out leaves zeros in front, which read as leading zeros. */
static inline uint64_t jl_value8(const char *p, unsigned n)
{
	uint64_t w;
	memcpy(&w, p, 8);
	w = (w - 0x3030303030303030ull) << (8 * (8 - n));
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull;
	return (w * 10000 + (w >> 32)) & 0xffffffffull;
}

int jl_error(jl_lexer *lx, const char *at, const char *msg);

/* *pp points at the opening quote. On JL_OK, *pp is past the closing quote
 * and out (if non-NULL) holds the contents. */
int jl_string_scan(jl_lexer *lx, const char **pp, jl_slice *out);

/* jl_string_scan with its common case inline: the closing quote within 16
 * bytes and nothing before it that needs a closer look. */
static inline int jl_string(jl_lexer *lx, const char **pp, jl_slice *out)
{
#ifdef __SSE2__
	const char *start = *pp + 1;
	if (lx->end - start >= 16) {
		/* special: '"', '\\', below 0x20, or 0x80 and up (negative as signed) */
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)start);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
						      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
					 _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits) {
			unsigned k = (unsigned)__builtin_ctz(bits);
			if (start[k] == '"') {
				if (out) {
					out->p = start;
					out->len = k;
					out->escaped = false;
				}
				*pp = start + k + 1;
				return JL_OK;
			}
		}
	}
#endif
	return jl_string_scan(lx, pp, out);
}
/* NaN, Infinity or -Infinity at *pp: not JSON, but written by Python's
 * json module; accepted where a value is skipped, and counted. */
int jl_nonstandard(jl_lexer *lx, const char **pp);
/* Skips one value of any type at *pp (after whitespace), validating it. */
int jl_skip_value(jl_lexer *lx, const char **pp, int depth);
/* Reads an object member's key at *pp (its opening quote) and the ':' after
 * it; on JL_OK *pp is at the value, past any whitespace. */
static inline int jl_key(jl_lexer *lx, const char **pp, jl_slice *key)
{
	const char *p = *pp;
	if (*p != '"')
		return jl_error(lx, p, "expected a string key in object");
	int rc = jl_string(lx, &p, key);
	if (rc)
		return rc;
	p = jl_skip_ws(p, lx->end);
	if (p >= lx->end)
		return lx->final ? jl_error(lx, p, "unexpected end of input") : JL_NEED_MORE;
	if (*p != ':')
		return jl_error(lx, p, "expected ':' after key");
	*pp = jl_skip_ws(p + 1, lx->end);
	return JL_OK;
}

/* Scans a JSON number at *pp; on JL_OK out is its text. */
int jl_number_scan(jl_lexer *lx, const char **pp, jl_slice *out);

/* jl_number_scan with its common case inline: an integer of one to seven
 * digits, complete within the buffer. */
static inline int jl_number(jl_lexer *lx, const char **pp, jl_slice *out)
{
	const char *p = *pp;
	if (lx->end - p >= 9) {
		const char *q = p + (*p == '-');
		unsigned n = jl_digits8(q);
		if (n >= 1 && n < 8 && !(q[0] == '0' && n > 1) && q[n] != '.' && q[n] != 'e' && q[n] != 'E') {
			if (out) {
				out->p = p;
				out->len = (uint32_t)(q + n - p);
				out->escaped = false;
			}
			*pp = q + n;
			return JL_OK;
		}
	}
	return jl_number_scan(lx, pp, out);
}

/* Unescapes a string slice into dst (capacity >= 3 * s.len + 1: escapes
 * only shrink, but an invalid byte becomes the three of U+FFFD); returns
 * the length. Lone surrogates and invalid UTF-8 become U+FFFD. */
long jl_unescape(const jl_slice *s, char *dst);

/* Converts a decimal number text (JSON number, or the contents of a numeric
 * string) in microseconds to integer nanoseconds exactly; beyond 3 decimals
 * rounds half away from zero. Returns 0, or -1 (not a number / out of
 * range). */
int jl_us_to_ns(const char *p, size_t len, int64_t *out);
/* Parses an integer-valued number text (e.g. pid "12", "1e3" is refused). */
int jl_parse_int(const char *p, size_t len, int64_t *out);
/* Parses a number text as double. */
int jl_parse_double(const char *p, size_t len, double *out);

#endif
