/* CSV table writer: RFC 4180 quoting with a header row, but LF line ends
 * (Unix tools and Python's csv module both read them). A field is quoted when
 * it holds a comma, a quote, CR or LF, or is an empty string; null is an
 * empty unquoted field, so `""` (empty string) and `` (null) stay apart.
 * NaN and infinite doubles are null, as in JSON. Invalid UTF-8 becomes
 * U+FFFD. */
#include <stdio.h>
#include <string.h>

#include "table.h"
#include "table_cell.h"
#include "utf8.h"

static void write_field(FILE *out, const char *s)
{
	bool quote = *s == '\0' || strpbrk(s, ",\"\r\n") != NULL;
	const unsigned char *p = (const unsigned char *)s;
	if (quote)
		putc('"', out);
	while (*p) {
		if (*p < 0x80) {
			if (*p == '"')
				putc('"', out);
			putc(*p++, out);
			continue;
		}
		int k = gt_utf8_next(p);
		if (k > 0) {
			fwrite(p, 1, (size_t)k, out);
			p += k;
		} else {
			fputs("\xef\xbf\xbd", out);
			p += -k;
		}
	}
	if (quote)
		putc('"', out);
}

int gt_table_write_csv(const gt_table *t, FILE *out, gt_error *err)
{
	char buf[40];
	for (size_t i = 0; i < t->ncols; i++) {
		if (i)
			putc(',', out);
		write_field(out, t->cols[i].name);
	}
	putc('\n', out);
	for (uint64_t r = 0; r < t->nrows; r++) {
		for (size_t i = 0; i < t->ncols; i++) {
			const gt_column *c = &t->cols[i];
			if (i)
				putc(',', out);
			if (c->type == GT_COL_STR || c->type == GT_COL_DICT) {
				const char *s = gt_cell_str(c, r);
				if (s)
					write_field(out, s);
				continue;
			}
			int n = gt_cell_number(c, r, buf);
			fwrite(buf, 1, (size_t)n, out);
		}
		putc('\n', out);
		if ((r & 4095) == 4095 && ferror(out))
			break;
	}
	return gt_check_write(out, err);
}
