/* A small streaming JSON writer for documents (as opposed to tables):
 * commas and nesting are tracked, numbers are exact. Output collects in
 * the writer's own buffer and reaches the FILE in large writes (a path of
 * millions of hops is millions of small pieces): gt_jsonw_finish flushes. */
#ifndef GT_JSONW_H
#define GT_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct gt_jsonw {
	FILE *out;
	int depth;
	unsigned char need_comma[64]; /* 0 first, 1 after a value, 2 after a key */
	bool pretty;
	int inline_from; /* pretty: values nested deeper than this stay on one line */
	size_t len;
	char buf[1 << 15];
} gt_jsonw;

void gt_jsonw_init(gt_jsonw *w, FILE *out, bool pretty);
void gt_jsonw_key(gt_jsonw *w, const char *key);
void gt_jsonw_begin_object(gt_jsonw *w);
void gt_jsonw_end_object(gt_jsonw *w);
void gt_jsonw_begin_array(gt_jsonw *w);
/* An array whose elements each take one line when pretty (a path of a
 * million hops reads as a million lines, not twenty million). Closed by
 * gt_jsonw_end_array. */
void gt_jsonw_begin_array_of_lines(gt_jsonw *w);
void gt_jsonw_end_array(gt_jsonw *w);
void gt_jsonw_str(gt_jsonw *w, const char *s);
void gt_jsonw_i64(gt_jsonw *w, int64_t v);
void gt_jsonw_u64(gt_jsonw *w, uint64_t v);
void gt_jsonw_f64(gt_jsonw *w, double v);
void gt_jsonw_bool(gt_jsonw *w, bool v);
void gt_jsonw_null(gt_jsonw *w);
void gt_jsonw_us(gt_jsonw *w, int64_t ns); /* exact microseconds */
/* A time as two members: us_key ("start_us") in exact microseconds, then
 * the same key ending in _ns ("start_ns") as an integer: 19-digit
 * microsecond decimals lose digits in readers that use doubles (jq 1.6). */
void gt_jsonw_time(gt_jsonw *w, const char *us_key, int64_t ns);
void gt_jsonw_raw(gt_jsonw *w, const char *json); /* a preformatted value */
/* A value given as n bytes of JSON text (jline.h builds them). */
void gt_jsonw_raw_n(gt_jsonw *w, const char *json, size_t n);
/* Ends the document with a newline and writes what is buffered. */
void gt_jsonw_finish(gt_jsonw *w);
/* Writes what is buffered (no newline). */
void gt_jsonw_flush(gt_jsonw *w);
/* A writer into out for the next elements of w's open array, on another
 * thread: the same layout at w's depth, the first element without a
 * comma. Its bytes (flushed) go back with gt_jsonw_splice. */
void gt_jsonw_fork(const gt_jsonw *w, gt_jsonw *child, FILE *out);
/* Appends elements a fork wrote (bytes, n) as the next ones of w's array. */
void gt_jsonw_splice(gt_jsonw *w, const char *bytes, size_t n);
/* The same written elsewhere (at an offset of the output, on a thread):
 * *bytes and *n are moved past the fork's leading line break and indent,
 * and sep receives what w puts before them (its comma and indent, up to
 * GT_JSONW_SEP_MAX bytes), w moving on as if it had written them. Returns
 * sep's length; nothing (0) where no element is left. w's buffer must
 * hold nothing (gt_jsonw_flush). */
#define GT_JSONW_SEP_MAX 160
size_t gt_jsonw_splice_elsewhere(gt_jsonw *w, const char **bytes, size_t *n, char *sep);

#endif
