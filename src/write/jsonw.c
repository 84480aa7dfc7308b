#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "table.h"

void gt_jsonw_init(gt_jsonw *w, FILE *out, bool pretty)
{
	w->out = out;
	w->depth = 0;
	memset(w->need_comma, 0, sizeof w->need_comma);
	w->pretty = pretty;
	w->inline_from = 64;
	w->len = 0;
}

/* Once the stream has failed (a full disk) the rest is dropped: the
 * caller sees ferror() at the end, and a failed stream is not written to
 * again (a cookie stream's buffer is not safe to fill after its error). */
static void flush(gt_jsonw *w)
{
	if (w->len && !ferror(w->out))
		fwrite_unlocked(w->buf, 1, w->len, w->out);
	w->len = 0;
}

static void put(gt_jsonw *w, const char *p, size_t n)
{
	if (w->len + n > sizeof w->buf) {
		flush(w);
		if (n > sizeof w->buf) {
			if (!ferror(w->out))
				fwrite_unlocked(p, 1, n, w->out);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_sink(void *ctx, const char *p, size_t n)
{
	put(ctx, p, n);
}

static void putc_(gt_jsonw *w, char c)
{
	if (w->len == sizeof w->buf)
		flush(w);
	w->buf[w->len++] = c;
}

static void puts_(gt_jsonw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_u64(gt_jsonw *w, uint64_t v, bool minus)
{
	char d[24];
	int i = (int)sizeof d;
	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (minus)
		d[--i] = '-';
	put(w, d + i, sizeof d - (size_t)i);
}

static void indent(gt_jsonw *w)
{
	static const char spaces[] = "                                ";
	if (!w->pretty || w->depth > w->inline_from)
		return;
	putc_(w, '\n');
	for (int left = 2 * w->depth; left > 0; left -= 32)
		put(w, spaces, left < 32 ? (size_t)left : 32);
}

/* Called before every value or key: the comma and indentation. */
static void pre(gt_jsonw *w)
{
	if (w->depth > 0 && w->need_comma[w->depth] == 2)
		return; /* right after a key */
	if (w->need_comma[w->depth])
		puts_(w, w->pretty && w->depth > w->inline_from ? ", " : ",");
	if (w->depth > 0)
		indent(w);
	w->need_comma[w->depth] = 1;
}

static void post_value(gt_jsonw *w)
{
	if (w->need_comma[w->depth] == 2)
		w->need_comma[w->depth] = 1;
}

/* Keys are nearly always the program's own ASCII names: copied as they are
 * when nothing in them needs escaping. */
static bool plain_ascii(const char *s, size_t *len)
{
	size_t n = 0;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x80 || s[n] == '"' || s[n] == '\\')
			return false;
	*len = n;
	return true;
}

void gt_jsonw_key(gt_jsonw *w, const char *key)
{
	size_t n;
	pre(w);
	if (plain_ascii(key, &n)) {
		putc_(w, '"');
		put(w, key, n);
		putc_(w, '"');
	} else {
		gt_json_put_string(put_sink, w, key);
	}
	puts_(w, w->pretty ? ": " : ":");
	w->need_comma[w->depth] = 2;
}

static void open_(gt_jsonw *w, char c)
{
	pre(w);
	post_value(w);
	putc_(w, c);
	if (w->depth < 63)
		w->depth++;
	w->need_comma[w->depth] = 0;
}

static void close_(gt_jsonw *w, char c)
{
	bool any = w->need_comma[w->depth] && w->depth <= w->inline_from;
	bool ends_lines = w->depth == w->inline_from; /* an array of lines */
	if (w->depth > 0)
		w->depth--;
	if (any)
		indent(w);
	putc_(w, c);
	if (ends_lines)
		w->inline_from = 64;
}

void gt_jsonw_begin_object(gt_jsonw *w) { open_(w, '{'); }
void gt_jsonw_end_object(gt_jsonw *w) { close_(w, '}'); }
void gt_jsonw_begin_array(gt_jsonw *w) { open_(w, '['); }
void gt_jsonw_begin_array_of_lines(gt_jsonw *w)
{
	open_(w, '[');
	if (w->inline_from == 64)
		w->inline_from = w->depth;
}
void gt_jsonw_end_array(gt_jsonw *w) { close_(w, ']'); }

void gt_jsonw_str(gt_jsonw *w, const char *s)
{
	pre(w);
	post_value(w);
	if (s)
		gt_json_put_string(put_sink, w, s);
	else
		puts_(w, "null");
}

void gt_jsonw_i64(gt_jsonw *w, int64_t v)
{
	pre(w);
	post_value(w);
	put_u64(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void gt_jsonw_u64(gt_jsonw *w, uint64_t v)
{
	pre(w);
	post_value(w);
	put_u64(w, v, false);
}

void gt_jsonw_f64(gt_jsonw *w, double v)
{
	pre(w);
	post_value(w);
	char buf[32];
	if (isfinite(v)) {
		snprintf(buf, sizeof buf, "%.17g", v);
		puts_(w, buf);
	} else {
		puts_(w, "null");
	}
}

void gt_jsonw_bool(gt_jsonw *w, bool v)
{
	pre(w);
	post_value(w);
	puts_(w, v ? "true" : "false");
}

void gt_jsonw_null(gt_jsonw *w)
{
	pre(w);
	post_value(w);
	puts_(w, "null");
}

void gt_jsonw_us(gt_jsonw *w, int64_t ns)
{
	char buf[32];
	pre(w);
	post_value(w);
	put(w, buf, (size_t)gt_format_ns_as_us(buf, ns));
}

void gt_jsonw_time(gt_jsonw *w, const char *us_key, int64_t ns)
{
	char k[96];
	size_t n = strlen(us_key);
	if (n > 3 && strcmp(us_key + n - 3, "_us") == 0)
		n -= 3;
	snprintf(k, sizeof k, "%.*s_ns", (int)n, us_key);
	gt_jsonw_key(w, us_key);
	gt_jsonw_us(w, ns);
	gt_jsonw_key(w, k);
	gt_jsonw_i64(w, ns);
}

void gt_jsonw_raw(gt_jsonw *w, const char *json)
{
	pre(w);
	post_value(w);
	puts_(w, json);
}

void gt_jsonw_raw_n(gt_jsonw *w, const char *json, size_t n)
{
	pre(w);
	post_value(w);
	put(w, json, n);
}

void gt_jsonw_finish(gt_jsonw *w)
{
	putc_(w, '\n');
	flush(w);
}

void gt_jsonw_flush(gt_jsonw *w)
{
	flush(w);
}

void gt_jsonw_fork(const gt_jsonw *w, gt_jsonw *child, FILE *out)
{
	gt_jsonw_init(child, out, w->pretty);
	child->depth = w->depth;
	child->inline_from = w->inline_from;
}

/* The fork's first element began with its own line break and indent:
 * the writer's comma and indent stand for them. */
static void skip_fork_indent(const char **bytes, size_t *n)
{
	while (*n && (**bytes == '\n' || **bytes == ' '))
		++*bytes, --*n;
}

void gt_jsonw_splice(gt_jsonw *w, const char *bytes, size_t n)
{
	skip_fork_indent(&bytes, &n);
	if (n)
		gt_jsonw_raw_n(w, bytes, n);
}

size_t gt_jsonw_splice_elsewhere(gt_jsonw *w, const char **bytes, size_t *n, char *sep)
{
	skip_fork_indent(bytes, n);
	if (!*n)
		return 0;
	size_t held = w->len; /* 0: the caller flushed */
	pre(w);
	post_value(w);
	size_t k = w->len - held;
	k = k < GT_JSONW_SEP_MAX ? k : GT_JSONW_SEP_MAX; /* depth is at most 63: 2 + 126 bytes */
	memcpy(sep, w->buf + held, k);
	w->len = held;
	return k;
}
