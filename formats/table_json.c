/* JSON and NDJSON table writers: rows as objects, keys in column order,
 * integers exact, times as exact decimal microseconds, NaN/Inf as null. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "table.h"
#include "table_cell.h"
#include "utf8.h"

void gt_json_write_string(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	putc('"', out);
	while (*p) {
		unsigned char c = *p;
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			putc(c, out);
			p++;
			continue;
		}
		if (c >= 0x80) {
			int k = gt_utf8_next(p);
			if (k > 0) {
				fwrite(p, 1, (size_t)k, out);
				p += k;
			} else {
				fputs("\xef\xbf\xbd", out);
				p += -k;
			}
			continue;
		}
		p++;
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			fputs("\\u00", out);
			putc(hex[c >> 4], out);
			putc(hex[c & 15], out);
		}
	}
	putc('"', out);
}

int gt_check_write(FILE *out, gt_error *err)
{
	if (!ferror(out))
		return 0;
	return gt_fail(err, GT_EINPUT, "write error: %s", errno ? strerror(errno) : "i/o error");
}

static void write_cell(FILE *out, const gt_column *c, uint64_t row)
{
	char buf[40];
	if (c->type == GT_COL_STR || c->type == GT_COL_DICT) {
		const char *s = gt_cell_str(c, row);
		if (s)
			gt_json_write_string(out, s);
		else
			fputs("null", out);
		return;
	}
	int n = gt_cell_number(c, row, buf);
	if (n)
		fwrite(buf, 1, (size_t)n, out);
	else
		fputs("null", out);
}

int gt_table_write_json(const gt_table *t, FILE *out, bool ndjson, gt_error *err)
{
	if (!ndjson)
		fputs(t->nrows ? "[\n" : "[", out);
	for (uint64_t r = 0; r < t->nrows; r++) {
		putc('{', out);
		for (size_t i = 0; i < t->ncols; i++) {
			if (i)
				putc(',', out);
			gt_json_write_string(out, t->cols[i].name);
			putc(':', out);
			write_cell(out, &t->cols[i], r);
		}
		putc('}', out);
		if (!ndjson && r + 1 < t->nrows)
			putc(',', out);
		putc('\n', out);
		/* stop early on a full disk or a closed pipe */
		if ((r & 4095) == 4095 && ferror(out))
			break;
	}
	if (!ndjson)
		fputs("]\n", out);
	return gt_check_write(out, err);
}
