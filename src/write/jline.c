/* One JSON value built as text (see jline.h). */
#include "jline.h"

#include <stdlib.h>

#include "table.h"

void gt_jline_grow(gt_jline *l, size_t more)
{
	if (l->failed)
		return;
	size_t cap = l->cap ? l->cap : 256;
	while (cap - l->len < more)
		cap *= 2;
	char *p = realloc(l->buf, cap);
	if (!p) {
		l->failed = true;
		return;
	}
	l->buf = p;
	l->cap = cap;
}

void gt_jline_free(gt_jline *l)
{
	free(l->buf);
	memset(l, 0, sizeof *l);
}

/* Two digits a step: timestamps have 19. */
void gt_jline_u64(gt_jline *l, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	char d[24];
	int i = (int)sizeof d;
	while (v >= 100) {
		unsigned k = (unsigned)(v % 100) * 2;
		v /= 100;
		d[--i] = pairs[k + 1];
		d[--i] = pairs[k];
	}
	if (v >= 10) {
		d[--i] = pairs[v * 2 + 1];
		d[--i] = pairs[v * 2];
	} else {
		d[--i] = (char)('0' + v);
	}
	gt_jline_put(l, d + i, sizeof d - (size_t)i);
}

void gt_jline_i64(gt_jline *l, int64_t v)
{
	if (v < 0)
		GT_JL_LIT(l, "-");
	gt_jline_u64(l, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void gt_jline_us(gt_jline *l, int64_t ns)
{
	char buf[32];
	gt_jline_put(l, buf, (size_t)gt_format_ns_as_us(buf, ns));
}

static void put_sink(void *ctx, const char *p, size_t n)
{
	gt_jline_put(ctx, p, n);
}

void gt_jline_str(gt_jline *l, const char *s)
{
	if (s)
		gt_json_put_string(put_sink, l, s);
	else
		GT_JL_LIT(l, "null");
}

void gt_jline_csv(gt_jline *l, const char *s)
{
	gt_csv_put_field(put_sink, l, s);
}

static void escape(gt_jline *l, const gt_jstrings *c, const char *s)
{
	if (c->csv)
		gt_jline_csv(l, s);
	else
		gt_jline_str(l, s);
}

int gt_jstrings_init(gt_jstrings *c, const gt_model *m)
{
	memset(c, 0, sizeof *c);
	c->m = m;
	size_t n = m->strings.count ? m->strings.count : 1;
	c->at = calloc(n, sizeof *c->at);
	c->len = malloc(n * sizeof *c->len);
	if (!c->at || !c->len) {
		gt_jstrings_free(c);
		return -1;
	}
	return 0;
}

void gt_jstrings_free(gt_jstrings *c)
{
	free(c->at);
	free(c->len);
	gt_jline_free(&c->text);
	memset(c, 0, sizeof *c);
}

void gt_jline_model_str(gt_jline *l, gt_jstrings *c, uint32_t id)
{
	if (id >= c->m->strings.count) { /* GT_NONE and the like: as gt_model_str reads them */
		escape(l, c, gt_model_str(c->m, id));
		return;
	}
	if (!c->at[id]) {
		size_t from = c->text.len;
		escape(&c->text, c, gt_model_str(c->m, id));
		if (c->text.failed) {
			escape(l, c, gt_model_str(c->m, id));
			return;
		}
		c->at[id] = from + 1;
		c->len[id] = (uint32_t)(c->text.len - from);
	}
	gt_jline_put(l, c->text.buf + c->at[id] - 1, c->len[id]);
}
