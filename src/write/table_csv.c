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
		putc_unlocked('"', out);
	while (*p) {
		/* copy runs of ASCII (but '"') and valid UTF-8 at once */
		const unsigned char *run = p;
		for (;;) {
			if (*p && *p < 0x80 && *p != '"') {
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
			fwrite_unlocked(run, 1, (size_t)(p - run), out);
		if (*p == '"') {
			fputs_unlocked("\"\"", out);
			p++;
		} else if (*p) {
			fputs_unlocked("\xef\xbf\xbd", out);
			p += -gt_utf8_next(p);
		}
	}
	if (quote)
		putc_unlocked('"', out);
}

int gt_table_write_csv(const gt_table *t, FILE *out, gt_error *err)
{
	char buf[40];
	flockfile(out);
	for (size_t i = 0; i < t->ncols; i++) {
		if (i)
			putc_unlocked(',', out);
		write_field(out, t->cols[i].name);
	}
	putc_unlocked('\n', out);
	for (uint64_t r = 0; r < t->nrows; r++) {
		for (size_t i = 0; i < t->ncols; i++) {
			const gt_column *c = &t->cols[i];
			if (i)
				putc_unlocked(',', out);
			if (c->type == GT_COL_STR || c->type == GT_COL_DICT) {
				const char *s = gt_cell_str(c, r);
				if (s)
					write_field(out, s);
				continue;
			}
			int n = gt_cell_number(c, r, buf);
			fwrite_unlocked(buf, 1, (size_t)n, out);
		}
		putc_unlocked('\n', out);
		if ((r & 4095) == 4095 && ferror_unlocked(out))
			break;
	}
	funlockfile(out);
	return gt_check_write(out, err);
}
