/* The ingest lexer. Strings are scanned eight bytes at a time: most bytes of
 * a trace are inside strings, and only quotes, backslashes, control bytes
 * and non-ASCII bytes need a closer look. */
#include "json_lex.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

const char *jl_skip_ws_run(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
	const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
					  _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
		unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xffffu;
		if (other)
			return p + __builtin_ctz(other);
		p += 16;
	}
#endif
	while (p < end && jl_is_ws(*p))
		p++;
	return p;
}

int jl_error(jl_lexer *lx, const char *at, const char *msg)
{
	lx->pos = at;
	lx->msg = msg;
	return JL_ERROR;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Nonzero where a byte of w is '"', '\\', < 0x20 or >= 0x80. */
static inline uint64_t special_bytes(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"');
	uint64_t b = w ^ (ONES * '\\');
	uint64_t has_q = (q - ONES) & ~q;
	uint64_t has_b = (b - ONES) & ~b;
	uint64_t ctl = (w - ONES * 0x20) & ~w;
	return (has_q | has_b | ctl | w) & HIGHS;
}

/* One UTF-8 sequence at p (p[0] >= 0x80): its length when valid; minus the
 * length of its maximal invalid subpart (Unicode's "substitution of maximal
 * subparts": the longest prefix of a valid sequence, at least one byte);
 * 0 when the buffer ends inside a valid prefix. */
static int utf8_seq(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	int n;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return -1;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (int i = 1; i < n; i++) {
		if (p + i >= end)
			return 0;
		unsigned b = p[i];
		if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80)
			return -i;
	}
	return n;
}

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int jl_string_scan(jl_lexer *lx, const char **pp, jl_slice *out)
{
	const char *start = *pp + 1, *p = start, *end = lx->end;
	bool escaped = false;
	for (;;) {
#ifdef __SSE2__
		/* sixteen bytes a step: a byte is special when it is '"', '\\',
		 * below 0x20 or at least 0x80 (signed compare: 0x80.. are negative) */
		const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
		const __m128i space = _mm_set1_epi8(0x20);
		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
						 _mm_cmplt_epi8(v, space));
			unsigned bits = (unsigned)_mm_movemask_epi8(m);
			if (bits) {
				p += __builtin_ctz(bits);
				goto special;
			}
			p += 16;
		}
#endif
		while (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, 8);
			uint64_t s = special_bytes(w);
			if (s) {
				p += __builtin_ctzll(s) >> 3;
				goto special;
			}
			p += 8;
		}
		while (p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\' &&
		       (unsigned char)*p < 0x80)
			p++;
		if (p >= end)
			return lx->final ? jl_error(lx, *pp, "unterminated string") : JL_NEED_MORE;
	special:;
		unsigned char c = (unsigned char)*p;
		if (c == '"')
			break;
		if (c == '\\') {
			escaped = true;
			if (end - p < 2)
				return lx->final ? jl_error(lx, p, "unterminated string") : JL_NEED_MORE;
			char e = p[1];
			if (e == 'u') {
				if (end - p < 6)
					return lx->final ? jl_error(lx, p, "unterminated string") : JL_NEED_MORE;
				for (int i = 2; i < 6; i++)
					if (hexval(p[i]) < 0)
						return jl_error(lx, p, "bad \\u escape in string");
				p += 6;
			} else if (strchr("\"\\/bfnrt", e) && e) {
				p += 2;
			} else {
				return jl_error(lx, p, "bad escape in string");
			}
		} else if (c < 0x20) {
			lx->control_chars++; /* lenient: raw control characters */
			p++;
		} else {
			int n = utf8_seq((const unsigned char *)p, (const unsigned char *)end);
			if (n == 0) {
				if (!lx->final)
					return JL_NEED_MORE;
				n = -(int)(end - p);
			}
			if (n < 0) {
				lx->invalid_utf8++; /* lenient: replaced on unescaping */
				escaped = true;
				n = -n;
			}
			p += n;
		}
	}
	if ((size_t)(p - start) > UINT32_MAX)
		return jl_error(lx, *pp, "string longer than 4 GiB");
	if (out) {
		out->p = start;
		out->len = (uint32_t)(p - start);
		out->escaped = escaped;
	}
	*pp = p + 1;
	return JL_OK;
}

int jl_number_scan(jl_lexer *lx, const char **pp, jl_slice *out)
{
	const char *p = *pp, *end = lx->end, *start = p;
	if (p < end && *p == '-')
		p++;
	if (p >= end)
		goto more;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return jl_error(lx, p, "invalid number");
	}
	if (p < end && *p == '.') {
		p++;
		const char *d = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return p >= end ? (lx->final ? jl_error(lx, p, "invalid number") : JL_NEED_MORE)
					: jl_error(lx, p, "invalid number");
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *d = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return p >= end ? (lx->final ? jl_error(lx, p, "invalid number") : JL_NEED_MORE)
					: jl_error(lx, p, "invalid number");
	}
	if (p >= end && !lx->final)
		goto more; /* the number may continue in the next bytes */
	if (out) {
		out->p = start;
		out->len = (uint32_t)(p - start);
		out->escaped = false;
	}
	*pp = p;
	return JL_OK;
more:
	return lx->final ? jl_error(lx, start, "invalid number") : JL_NEED_MORE;
}

static int literal(jl_lexer *lx, const char **pp, const char *word, size_t n)
{
	const char *p = *pp;
	size_t avail = (size_t)(lx->end - p);
	if (avail < n) {
		if (memcmp(p, word, avail) == 0 && !lx->final)
			return JL_NEED_MORE;
		return jl_error(lx, p, "invalid literal");
	}
	if (memcmp(p, word, n) != 0)
		return jl_error(lx, p, "invalid literal");
	*pp = p + n;
	return JL_OK;
}

int jl_nonstandard(jl_lexer *lx, const char **pp)
{
	const char *p = *pp;
	int rc = *p == 'N' ? literal(lx, &p, "NaN", 3)
		 : *p == 'I' ? literal(lx, &p, "Infinity", 8)
			     : literal(lx, &p, "-Infinity", 9);
	if (rc == JL_OK) {
		lx->nonstandard++;
		*pp = p;
	}
	return rc;
}

#define NEED(p) do { if ((p) >= lx->end) return lx->final ? jl_error(lx, (p), "unexpected end of input") : JL_NEED_MORE; } while (0)

/* Skips one value without recursion: a bit per open container says object
 * (1) or array (0). Containers are where the time goes in a trace's args,
 * so each element costs a loop step, not a call. */
int jl_skip_value(jl_lexer *lx, const char **pp, int depth)
{
	uint64_t kinds[JL_MAX_DEPTH / 64 + 1];
	int open = 0; /* containers open inside this value */
	const char *p = jl_skip_ws(*pp, lx->end);
	int rc;
value:
	NEED(p);
	switch (*p) {
	case '"':
		rc = jl_string(lx, &p, NULL);
		break;
	case '{':
	case '[': {
		bool obj = *p == '{';
		if (depth + open >= JL_MAX_DEPTH)
			return jl_error(lx, p, "nesting deeper than 512 levels");
		if (obj)
			kinds[open / 64] |= 1ull << (open % 64);
		else
			kinds[open / 64] &= ~(1ull << (open % 64));
		open++;
		p = jl_skip_ws(p + 1, lx->end);
		NEED(p);
		if (*p == (obj ? '}' : ']')) {
			p++;
			open--;
			rc = JL_OK;
			break;
		}
		if (obj)
			goto key;
		goto value;
	}
	case 't':
		rc = literal(lx, &p, "true", 4);
		break;
	case 'f':
		rc = literal(lx, &p, "false", 5);
		break;
	case 'n':
		rc = literal(lx, &p, "null", 4);
		break;
	case 'N':
	case 'I':
		rc = jl_nonstandard(lx, &p);
		break;
	default:
		if (*p == '-' && lx->end - p >= 2 && p[1] == 'I')
			rc = jl_nonstandard(lx, &p);
		else
			rc = jl_number(lx, &p, NULL);
		break;
	}
	if (rc)
		return rc;
	/* after a value: the end, or ',' / the closer of the innermost container */
	while (open > 0) {
		bool obj = (kinds[(open - 1) / 64] >> ((open - 1) % 64)) & 1;
		char close = obj ? '}' : ']';
		p = jl_skip_ws(p, lx->end);
		NEED(p);
		if (*p == close) {
			p++;
			open--;
			continue;
		}
		if (*p != ',')
			return jl_error(lx, p, obj ? "expected ',' or '}' in object" : "expected ',' or ']' in array");
		p = jl_skip_ws(p + 1, lx->end);
		NEED(p);
		if (*p == close) { /* lenient: trailing comma */
			lx->trailing_commas++;
			p++;
			open--;
			continue;
		}
		if (!obj)
			goto value;
		goto key;
	}
	*pp = p;
	return JL_OK;
key:
	rc = jl_key(lx, &p, NULL);
	if (rc)
		return rc;
	goto value;
}

static void put_utf8(char **d, unsigned cp)
{
	unsigned char *o = (unsigned char *)*d;
	if (cp < 0x80) {
		*o++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*o++ = (unsigned char)(0xc0 | (cp >> 6));
		*o++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (unsigned char)(0xe0 | (cp >> 12));
		*o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (unsigned char)(0xf0 | (cp >> 18));
		*o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	*d = (char *)o;
}

static unsigned hex4(const char *p)
{
	return (unsigned)(hexval(p[0]) << 12 | hexval(p[1]) << 8 | hexval(p[2]) << 4 | hexval(p[3]));
}

long jl_unescape(const jl_slice *s, char *dst)
{
	const char *p = s->p, *end = s->p + s->len;
	char *d = dst;
	while (p < end) {
		if ((unsigned char)*p >= 0x80) {
			int n = utf8_seq((const unsigned char *)p, (const unsigned char *)end);
			if (n == 0)
				n = -(int)(end - p); /* the string ends inside a sequence */
			if (n > 0) {
				memcpy(d, p, (size_t)n);
				d += n;
				p += n;
			} else {
				put_utf8(&d, 0xfffd);
				p += -n;
			}
			continue;
		}
		if (*p != '\\') {
			*d++ = *p++;
			continue;
		}
		char e = p[1];
		p += 2;
		switch (e) {
		case 'b': *d++ = '\b'; break;
		case 'f': *d++ = '\f'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		case 't': *d++ = '\t'; break;
		case 'u': {
			unsigned cp = hex4(p);
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
					unsigned lo = hex4(p + 2);
					if (lo >= 0xdc00 && lo <= 0xdfff) {
						cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
						p += 6;
					} else {
						cp = 0xfffd; /* lone surrogate */
					}
				} else {
					cp = 0xfffd;
				}
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				cp = 0xfffd;
			}
			if (cp == 0)
				cp = 0xfffd; /* keep strings NUL-free */
			put_utf8(&d, cp);
			break;
		}
		default: *d++ = e; break; /* " \ / */
		}
	}
	*d = '\0';
	return d - dst;
}

/* Exact decimal -> scaled integer: value * 10^scale, rounded half away from
 * zero. Digits beyond 38 significant ones only matter for rounding. */
static int decimal_scaled(const char *p, size_t len, int scale, int64_t *out)
{
	const char *end = p + len;
	bool neg = false;
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	unsigned __int128 mant = 0;
	int ndig = 0, exp10 = 0;
	bool any = false, sticky = false;
	int first_dropped = -1;
	bool in_frac = false;
	for (; p < end; p++) {
		char c = *p;
		if (c == '.') {
			if (in_frac)
				return -1;
			in_frac = true;
			continue;
		}
		if (c < '0' || c > '9')
			break;
		any = true;
		if (mant == 0 && c == '0') {
			if (in_frac)
				exp10--;
			continue;
		}
		if (ndig < 36) {
			mant = mant * 10 + (unsigned)(c - '0');
			ndig++;
			if (in_frac)
				exp10--;
		} else {
			if (first_dropped < 0)
				first_dropped = c - '0';
			else if (c != '0')
				sticky = true;
			if (!in_frac)
				exp10++;
		}
	}
	if (!any)
		return -1;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end)
			return -1;
		long e = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		exp10 += eneg ? -(int)e : (int)e;
	}
	if (p != end)
		return -1;
	if (first_dropped >= 0) {
		/* fold the dropped digits back as a rounding decision below */
	}
	long shift = (long)exp10 + scale;
	unsigned __int128 v;
	if (mant == 0) {
		v = 0;
	} else if (shift >= 0) {
		if (shift > 38 || first_dropped >= 0) {
			if (shift > 38)
				return -1;
		}
		v = mant;
		for (long i = 0; i < shift; i++) {
			if (v > ((unsigned __int128)1 << 100))
				return -1;
			v *= 10;
		}
		/* dropped digits (beyond 36) sit below the integer part only if the
		 * shift does not reach them; with shift >= 0 they are integer digits
		 * already accounted as exp10++, so they are zeros or lost precision */
		if (first_dropped >= 0 && (first_dropped || sticky))
			return -1; /* more than 36 significant integer digits */
	} else {
		long drop = -shift;
		if (drop > 40) {
			v = 0;
			sticky = sticky || first_dropped > 0 || mant != 0;
			first_dropped = 0;
			/* rounds to 0 since the first dropped digit is 0 */
		} else {
			unsigned __int128 pow = 1;
			for (long i = 0; i < drop; i++)
				pow *= 10;
			v = mant / pow;
			unsigned __int128 rem = mant % pow;
			/* half away from zero: round up when rem >= pow/2 */
			if (rem * 2 >= pow)
				v++;
			else if (rem * 2 + 2 > pow && rem * 2 + 1 == pow - 1 && first_dropped >= 5)
				v++;
			/* when no digits were dropped beyond the mantissa, the above is
			 * exact; digits past 36 only matter when rem*2 == pow - 1 */
		}
	}
	if (v > (unsigned __int128)INT64_MAX + (neg ? 1 : 0))
		return -1;
	*out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)v;
	return 0;
}

int jl_us_to_ns(const char *p, size_t len, int64_t *out)
{
	return decimal_scaled(p, len, 3, out);
}

int jl_parse_int(const char *p, size_t len, int64_t *out)
{
	const char *end = p + len, *q = p;
	if (q < end && *q == '-')
		q++;
	if (q == end)
		return -1;
	uint64_t v = 0;
	const char *d = q;
	for (; q < end; q++) {
		if (*q < '0' || *q > '9')
			return -1; /* ids are integers: no fraction or exponent */
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q - d <= 18) { /* cannot overflow */
		*out = *p == '-' ? -(int64_t)v : (int64_t)v;
		return 0;
	}
	return decimal_scaled(p, len, 0, out);
}

int jl_parse_double(const char *p, size_t len, double *out)
{
	char buf[64];
	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	char *e;
	errno = 0;
	double d = strtod(buf, &e);
	if (*e || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}
