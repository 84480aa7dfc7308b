/* JSON and NDJSON table writers: rows as objects, keys in column order,
 * integers exact, times as exact decimal microseconds, NaN/Inf as null. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "table_cell.h"
#include "utf8.h"

/* Bytes that JSON copies as they are: printable ASCII but '"' and '\\'. */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void gt_json_put_string(gt_put_fn put, void *ctx, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	put(ctx, "\"", 1);
	while (*p) {
		/* copy the longest run of plain bytes and valid UTF-8 at once */
		const unsigned char *run = p;
		for (;;) {
			if (plain(*p)) {
				p++;
			} else if (*p >= 0x80) {
				int k = gt_utf8_next(p);
				if (k <= 0)
					break;
				p += k;
			} else {
				break;
			}
		}
		if (p > run)
			put(ctx, (const char *)run, (size_t)(p - run));
		unsigned char c = *p;
		if (!c)
			break;
		if (c >= 0x80) {
			put(ctx, "\xef\xbf\xbd", 3);
			p += -gt_utf8_next(p);
			continue;
		}
		p++;
		char esc[6] = {'\\', 0};
		size_t n = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		put(ctx, esc, n);
	}
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n)
{
	fwrite_unlocked(p, 1, n, (FILE *)ctx);
}

void gt_json_write_string(FILE *out, const char *s)
{
	gt_json_put_string(put_file, out, s);
}

int gt_check_write(FILE *out, gt_error *err)
{
	if (!ferror(out))
		return 0;
	return gt_fail(err, GT_EINPUT, "write error: %s", errno ? strerror(errno) : "i/o error");
}

/* `"name":` for every column, escaped once rather than once per row. */
static char **key_prefixes(const gt_table *t)
{
	char **keys = calloc(t->ncols ? t->ncols : 1, sizeof *keys);
	for (size_t i = 0; keys && i < t->ncols; i++) {
		size_t len = 0;
		FILE *f = open_memstream(&keys[i], &len);
		if (!f)
			return keys; /* callers fall back to escaping per row */
		gt_json_write_string(f, t->cols[i].name);
		putc(':', f);
		fclose(f);
	}
	return keys;
}

typedef struct json_rows {
	char **keys;
	bool ndjson;
} json_rows;

/* Row r's line. */
static void json_row(const gt_table *t, const void *ctx, gt_jline *l, uint64_t r)
{
	const json_rows *j = ctx;
	GT_JL_LIT(l, "{");
	for (size_t i = 0; i < t->ncols; i++) {
		const gt_column *c = &t->cols[i];
		if (i)
			GT_JL_LIT(l, ",");
		if (j->keys && j->keys[i]) {
			gt_jline_put(l, j->keys[i], strlen(j->keys[i]));
		} else {
			gt_jline_str(l, c->name);
			GT_JL_LIT(l, ":");
		}
		if (c->type == GT_COL_STR || c->type == GT_COL_DICT)
			gt_jline_str(l, gt_cell_str(c, r));
		else
			gt_jline_cell_number(l, c, r, "null");
	}
	GT_JL_LIT(l, "}");
	if (!j->ndjson && r + 1 < t->nrows)
		GT_JL_LIT(l, ",");
	GT_JL_LIT(l, "\n");
}

int gt_table_write_json(const gt_table *t, FILE *out, bool ndjson, gt_error *err)
{
	char **keys = key_prefixes(t);
	flockfile(out);
	if (!ndjson)
		fputs_unlocked(t->nrows ? "[\n" : "[", out);
	bool oom = gt_table_write_rows(t, out, json_row, &(json_rows){keys, ndjson}) < 0;
	if (!ndjson && !oom) /* else no whole document: the caller drops it */
		fputs_unlocked("]\n", out);
	funlockfile(out);
	for (size_t i = 0; keys && i < t->ncols; i++)
		free(keys[i]);
	free(keys);
	if (oom)
		return gt_fail(err, GT_EINPUT, "out of memory writing the table");
	return gt_check_write(out, err);
}
