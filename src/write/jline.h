/* One JSON value built as text, for writers of millions of alike lines (a
 * causal path's hops, its rows): plain appends, no per-key state, and
 * model strings escaped once per string id, not once per line. The bytes
 * are those gt_jsonw's calls write for a value kept on one line: ", "
 * between members and ": " after keys. gt_jsonw_raw_n puts the finished
 * value in its place in the document. */
#ifndef GT_JLINE_H
#define GT_JLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/model.h"

typedef struct gt_jline {
	char *buf;
	size_t len, cap;
	bool failed; /* out of memory: the line is cut, the writer reports it */
} gt_jline;

/* Escaped strings (quotes included) by model string id, filled on first
 * use: JSON strings, or CSV fields where csv is set. */
typedef struct gt_jstrings {
	const gt_model *m;
	bool csv;
	uint64_t *at; /* per id: offset + 1 into text, 0 when not yet escaped */
	uint32_t *len;
	gt_jline text;
} gt_jstrings;

void gt_jline_grow(gt_jline *l, size_t more);
void gt_jline_free(gt_jline *l);

static inline void gt_jline_put(gt_jline *l, const char *p, size_t n)
{
	if (l->cap - l->len < n)
		gt_jline_grow(l, n);
	if (l->cap - l->len >= n) {
		memcpy(l->buf + l->len, p, n);
		l->len += n;
	}
}

/* A literal: JL_LIT(l, "\"span\": ") */
#define GT_JL_LIT(l, s) gt_jline_put((l), (s), sizeof(s) - 1)

void gt_jline_u64(gt_jline *l, uint64_t v);
void gt_jline_i64(gt_jline *l, int64_t v);
void gt_jline_us(gt_jline *l, int64_t ns); /* exact decimal microseconds */
void gt_jline_str(gt_jline *l, const char *s); /* escaped, quoted; NULL: null */
void gt_jline_csv(gt_jline *l, const char *s); /* a CSV field, quoted as the CSV writer quotes */

int gt_jstrings_init(gt_jstrings *c, const gt_model *m);
void gt_jstrings_free(gt_jstrings *c);
/* Appends model string id, escaped and quoted. */
void gt_jline_model_str(gt_jline *l, gt_jstrings *c, uint32_t id);

#endif
