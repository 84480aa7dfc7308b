/* CSV table writer: RFC 4180 quoting with a header row, but LF line ends
 * (Unix tools and Python's csv module both read them). A field is quoted when
 * it holds a comma, a quote, CR or LF, or is an empty string; null is an
 * empty unquoted field, so `""` (empty string) and `` (null) stay apart.
 * NaN and infinite doubles are null, as in JSON. Invalid UTF-8 becomes
 * U+FFFD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "table_cell.h"
#include "utf8.h"

/* Plain ASCII that needs no quotes: the common case, copied at once. */
static inline size_t plain_length(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p >= 0x20 && *p < 0x80 && *p != ',' && *p != '"')
		p++;
	return *p ? 0 : (size_t)(p - (const unsigned char *)s);
}

void gt_csv_put_field(gt_put_fn sink, void *ctx, const char *s)
{
	bool quote = *s == '\0' || strpbrk(s, ",\"\r\n") != NULL;
	const unsigned char *p = (const unsigned char *)s;
	if (quote)
		sink(ctx, "\"", 1);
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
			sink(ctx, (const char *)run, (size_t)(p - run));
		if (*p == '"') {
			sink(ctx, "\"\"", 2);
			p++;
		} else if (*p) {
			sink(ctx, "\xef\xbf\xbd", 3);
			p += -gt_utf8_next(p);
		}
	}
	if (quote)
		sink(ctx, "\"", 1);
}

/* A field as RFC 4180 quotes it: plain ASCII copied at once. */
static inline void csv_field(gt_jline *l, const char *s)
{
	size_t plain = plain_length(s);
	if (plain)
		gt_jline_put(l, s, plain);
	else
		gt_jline_csv(l, s);
}

/* Row r's line. */
static void csv_row(const gt_table *t, const void *ctx, gt_jline *l, uint64_t r)
{
	(void)ctx;
	for (size_t i = 0; i < t->ncols; i++) {
		const gt_column *c = &t->cols[i];
		if (i)
			GT_JL_LIT(l, ",");
		if (c->type == GT_COL_STR || c->type == GT_COL_DICT) {
			const char *s = gt_cell_str(c, r);
			if (s)
				csv_field(l, s);
			continue;
		}
		gt_jline_cell_number(l, c, r, NULL);
	}
	GT_JL_LIT(l, "\n");
}

int gt_table_write_csv(const gt_table *t, FILE *out, gt_error *err)
{
	gt_jline head = {0};
	for (size_t i = 0; i < t->ncols; i++) {
		if (i)
			GT_JL_LIT(&head, ",");
		csv_field(&head, t->cols[i].name);
	}
	GT_JL_LIT(&head, "\n");
	bool oom = head.failed;
	flockfile(out);
	if (!oom) {
		fwrite_unlocked(head.buf, 1, head.len, out);
		oom = gt_table_write_rows(t, out, csv_row, NULL) < 0;
	}
	funlockfile(out);
	gt_jline_free(&head);
	if (oom)
		return gt_fail(err, GT_EINPUT, "out of memory writing the table");
	return gt_check_write(out, err);
}
