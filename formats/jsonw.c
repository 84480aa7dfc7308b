#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "table.h"

void gt_jsonw_init(gt_jsonw *w, FILE *out, bool pretty)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->pretty = pretty;
}

static void indent(gt_jsonw *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Called before every value or key: the comma and indentation. */
static void pre(gt_jsonw *w)
{
	if (w->depth > 0 && w->need_comma[w->depth] == 2)
		return; /* right after a key */
	if (w->need_comma[w->depth])
		fputc(',', w->out);
	if (w->depth > 0)
		indent(w);
	w->need_comma[w->depth] = 1;
}

static void post_value(gt_jsonw *w)
{
	if (w->need_comma[w->depth] == 2)
		w->need_comma[w->depth] = 1;
}

void gt_jsonw_key(gt_jsonw *w, const char *key)
{
	pre(w);
	gt_json_write_string(w->out, key);
	fputs(w->pretty ? ": " : ":", w->out);
	w->need_comma[w->depth] = 2;
}

static void open_(gt_jsonw *w, char c)
{
	pre(w);
	post_value(w);
	fputc(c, w->out);
	if (w->depth < 63)
		w->depth++;
	w->need_comma[w->depth] = 0;
}

static void close_(gt_jsonw *w, char c)
{
	bool any = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (any)
		indent(w);
	fputc(c, w->out);
}

void gt_jsonw_begin_object(gt_jsonw *w) { open_(w, '{'); }
void gt_jsonw_end_object(gt_jsonw *w) { close_(w, '}'); }
void gt_jsonw_begin_array(gt_jsonw *w) { open_(w, '['); }
void gt_jsonw_end_array(gt_jsonw *w) { close_(w, ']'); }

void gt_jsonw_str(gt_jsonw *w, const char *s)
{
	pre(w);
	post_value(w);
	if (s)
		gt_json_write_string(w->out, s);
	else
		fputs("null", w->out);
}

void gt_jsonw_i64(gt_jsonw *w, int64_t v)
{
	pre(w);
	post_value(w);
	fprintf(w->out, "%" PRId64, v);
}

void gt_jsonw_u64(gt_jsonw *w, uint64_t v)
{
	pre(w);
	post_value(w);
	fprintf(w->out, "%" PRIu64, v);
}

void gt_jsonw_f64(gt_jsonw *w, double v)
{
	pre(w);
	post_value(w);
	if (isfinite(v))
		fprintf(w->out, "%.17g", v);
	else
		fputs("null", w->out);
}

void gt_jsonw_bool(gt_jsonw *w, bool v)
{
	pre(w);
	post_value(w);
	fputs(v ? "true" : "false", w->out);
}

void gt_jsonw_null(gt_jsonw *w)
{
	pre(w);
	post_value(w);
	fputs("null", w->out);
}

void gt_jsonw_us(gt_jsonw *w, int64_t ns)
{
	char buf[32];
	pre(w);
	post_value(w);
	gt_format_ns_as_us(buf, ns);
	fputs(buf, w->out);
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
	fputs(json, w->out);
}

void gt_jsonw_finish(gt_jsonw *w)
{
	fputc('\n', w->out);
}
