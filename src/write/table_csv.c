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

/* Rows are formatted into a buffer of this many bytes, written out whole:
 * stdio's per-call locking and copying cost more than the formatting. */
#define CSV_BUF (1 << 16)
#define CELL_MAX 48 /* gt_cell_number's 40, and a separator */

typedef struct csv_out {
	FILE *out;
	size_t n;
	char b[CSV_BUF];
} csv_out;

static void flush_buf(csv_out *w)
{
	fwrite_unlocked(w->b, 1, w->n, w->out);
	w->n = 0;
}

/* Room for k more bytes (k <= CSV_BUF). */
static char *room(csv_out *w, size_t k)
{
	if (w->n + k > CSV_BUF)
		flush_buf(w);
	return w->b + w->n;
}

static void put(csv_out *w, const void *p, size_t k)
{
	if (k > CSV_BUF) {
		flush_buf(w);
		fwrite_unlocked(p, 1, k, w->out);
		return;
	}
	memcpy(room(w, k), p, k);
	w->n += k;
}

static void put_byte(csv_out *w, char c)
{
	*room(w, 1) = c;
	w->n++;
}

/* Plain ASCII that needs no quotes: the common case, copied at once. */
static size_t plain_length(const char *s)
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

static void put_sink(void *w, const char *p, size_t k)
{
	put(w, p, k);
}

static void write_field(csv_out *w, const char *s)
{
	size_t plain = plain_length(s);
	if (plain)
		put(w, s, plain);
	else
		gt_csv_put_field(put_sink, w, s);
}

/* Row r's line, as the loop below writes it, for rows on threads. */
static void csv_row(const gt_table *t, const void *ctx, gt_jline *l, uint64_t r)
{
	(void)ctx;
	for (size_t i = 0; i < t->ncols; i++) {
		const gt_column *c = &t->cols[i];
		if (i)
			GT_JL_LIT(l, ",");
		if (c->type == GT_COL_STR || c->type == GT_COL_DICT) {
			const char *s = gt_cell_str(c, r);
			size_t plain = s ? plain_length(s) : 0;
			if (plain)
				gt_jline_put(l, s, plain);
			else if (s)
				gt_jline_csv(l, s);
			continue;
		}
		gt_jline_cell_number(l, c, r, NULL);
	}
	GT_JL_LIT(l, "\n");
}

int gt_table_write_csv(const gt_table *t, FILE *out, gt_error *err)
{
	csv_out *w = malloc(sizeof *w);
	if (!w)
		return gt_fail(err, GT_EINPUT, "out of memory for the CSV writer");
	w->out = out;
	w->n = 0;
	flockfile(out);
	for (size_t i = 0; i < t->ncols; i++) {
		if (i)
			put_byte(w, ',');
		write_field(w, t->cols[i].name);
	}
	put_byte(w, '\n');
	bool threads = gt_table_rows_on_threads(t);
	if (threads) {
		flush_buf(w);
		if (gt_table_write_rows(t, out, csv_row, NULL) < 0) {
			funlockfile(out);
			free(w);
			return gt_fail(err, GT_EINPUT, "out of memory writing the table");
		}
	}
	for (uint64_t r = 0; !threads && r < t->nrows; r++) {
		for (size_t i = 0; i < t->ncols; i++) {
			const gt_column *c = &t->cols[i];
			if (i)
				put_byte(w, ',');
			if (c->type == GT_COL_STR || c->type == GT_COL_DICT) {
				const char *s = gt_cell_str(c, r);
				if (s)
					write_field(w, s);
				continue;
			}
			w->n += (size_t)gt_cell_number(c, r, room(w, CELL_MAX));
		}
		put_byte(w, '\n');
		if ((r & 4095) == 4095 && ferror_unlocked(out))
			break;
	}
	flush_buf(w);
	funlockfile(out);
	free(w);
	return gt_check_write(out, err);
}
