/* A lenient, validating JSON lexer for the ingest hot path. It works on a
 * contiguous buffer and never builds a tree: strings are returned as slices
 * of the buffer, values the caller does not need are skipped (and still
 * validated). Leniencies, each counted by the caller: trailing commas in
 * objects and arrays, raw control characters inside strings. */
#ifndef GT_JSON_LEX_H
#define GT_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	bool escaped; /* contains backslash escapes: unescape before use */
} jl_slice;

typedef struct jl_lexer {
	const char *begin, *end; /* the buffer */
	bool final;              /* no more bytes will follow `end` */
	const char *pos;         /* error position */
	const char *msg;         /* error message (static string) */
	uint64_t trailing_commas;
	uint64_t control_chars;
} jl_lexer;

static inline bool jl_is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const char *jl_skip_ws(const char *p, const char *end)
{
	while (p < end && jl_is_ws(*p))
		p++;
	return p;
}

int jl_error(jl_lexer *lx, const char *at, const char *msg);

/* *pp points at the opening quote. On JL_OK, *pp is past the closing quote
 * and out (if non-NULL) holds the contents. */
int jl_string(jl_lexer *lx, const char **pp, jl_slice *out);
/* Skips one value of any type at *pp (after whitespace), validating it. */
int jl_skip_value(jl_lexer *lx, const char **pp, int depth);
/* Scans a JSON number at *pp; on JL_OK out is its text. */
int jl_number(jl_lexer *lx, const char **pp, jl_slice *out);

/* Unescapes a string slice into dst (capacity >= s.len + 1, since escapes
 * only shrink); returns the length or -1 on a bad escape / lone surrogate. */
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
