#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void gt_report_duration(int64_t ns, char *buf, size_t len)
{
	static const struct {
		int64_t unit;
		const char *name;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
	int64_t a = ns < 0 ? -ns : ns;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (a >= units[i].unit) {
			double v = (double)ns / (double)units[i].unit;
			int decimals = a >= 100 * units[i].unit ? 1 : a >= 10 * units[i].unit ? 2 : 3;
			snprintf(buf, len, "%.*f %s", decimals, v, units[i].name);
			return;
		}
	snprintf(buf, len, "%" PRId64 " ns", ns);
}

void gt_report_percent(int64_t num, int64_t den, char *buf, size_t len)
{
	if (den <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * (double)num / (double)den);
}

void gt_report_bar(int64_t num, int64_t den, int width, char *buf, size_t len)
{
	/* eighths of a cell: the block elements U+2588 down to U+258F */
	static const char *const part[8] = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"};
	size_t at = 0;
	buf[0] = '\0';
	if (den <= 0 || num <= 0)
		return;
	int64_t eighths = (int64_t)((double)num / (double)den * width * 8 + 0.5);
	if (eighths > (int64_t)width * 8)
		eighths = (int64_t)width * 8;
	if (eighths == 0)
		eighths = 1; /* something, however small, shows */
	for (int64_t i = 0; i < eighths / 8 && at + 4 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "\u2588");
	if (eighths % 8 && at + 4 < len)
		snprintf(buf + at, len - at, "%s", part[eighths % 8]);
}

size_t gt_report_columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* --- shortening by C++ structure ------------------------------------- */

#define ELLIPSIS "\u2026"

static bool ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       (unsigned char)c >= 0x80;
}

/* s with the contents of each outermost open..close pair folded to "…"
 * (a pair already "…" stays); returns false when nothing was folded. */
static bool fold(const char *s, char open, char close, char *out, size_t len)
{
	size_t o = 0;
	int depth = 0;
	bool folded = false;
	for (const char *p = s; *p && o + 4 < len; p++) {
		if (*p == open) {
			if (depth++ == 0) {
				out[o++] = *p;
				const char *q = p + 1;
				if (strncmp(q, ELLIPSIS, 3) == 0 && q[3] == close) { /* already folded */
					memcpy(out + o, ELLIPSIS, 3), o += 3;
				} else if (*q != close) {
					memcpy(out + o, ELLIPSIS, 3), o += 3;
					folded = true;
				}
			}
			continue;
		}
		if (*p == close && depth > 0) {
			if (--depth == 0)
				out[o++] = *p;
			continue;
		}
		if (depth == 0)
			out[o++] = *p;
	}
	out[o] = '\0';
	return folded && depth == 0;
}

/* "a::b::c(…)" -> "…::c(…)": the qualifiers before the last "::" outside
 * brackets; false when there are none. */
static bool drop_qualifiers(const char *s, char *out, size_t len)
{
	int depth = 0;
	const char *last = NULL;
	for (const char *p = s; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (depth == 0 && p[0] == ':' && p[1] == ':')
			last = p;
	}
	if (!last || last == s)
		return false;
	snprintf(out, len, ELLIPSIS "%s", last);
	return true;
}

/* Cut to width columns where no identifier is split, "…" marking the
 * cut: the longer of the prefix ending at an identifier's end and the
 * suffix starting at an identifier's start (or a separator). */
static void cut(const char *s, size_t width, char *out, size_t len)
{
	size_t n = strlen(s), cols = 0, prefix = 0;
	for (size_t i = 0; i < n; i++) {
		bool start = ((unsigned char)s[i] & 0xc0) != 0x80;
		if (start && cols + 1 > width - 1)
			break;
		cols += start;
		bool boundary = !ident(s[i]) || !ident(s[i + 1]);
		if (boundary && (i + 1 == n || ((unsigned char)s[i + 1] & 0xc0) != 0x80))
			prefix = i + 1;
	}
	size_t suffix = n; /* where the kept tail starts */
	for (size_t i = n; i-- > 0;) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (gt_report_columns(s + i) > width - 1)
			break;
		if (i == 0 || !ident(s[i - 1]) || !ident(s[i]))
			suffix = i;
	}
	size_t tail = n - suffix;
	if (prefix < width / 3 && gt_report_columns(s + suffix) < width / 3) {
		/* one identifier longer than the room: cut it where its words
		 * meet (an underscore, a lower-case letter before a capital) */
		size_t word = 0;
		cols = 0;
		for (size_t i = 0; i < n && cols + 1 <= width - 1; i++) {
			cols += ((unsigned char)s[i] & 0xc0) != 0x80;
			if (s[i + 1] == '_' || (s[i] >= 'a' && s[i] <= 'z' && s[i + 1] >= 'A' && s[i + 1] <= 'Z'))
				word = i + 1;
		}
		if (word > prefix)
			prefix = word;
	}
	if (tail > prefix && tail + 4 <= len)
		snprintf(out, len, ELLIPSIS "%s", s + suffix);
	else {
		if (prefix + 4 > len)
			prefix = len - 4;
		memcpy(out, s, prefix);
		memcpy(out + prefix, ELLIPSIS, 4);
	}
}

void gt_report_shorten(const char *name, size_t width, char *buf, size_t len)
{
	size_t n = strlen(name) * 3 + 16; /* each fold adds at most an ellipsis per pair */
	char *a = malloc(n), *b = malloc(n);
	if (!a || !b || width < 2) {
		snprintf(buf, len, "%s", name);
		free(a), free(b);
		return;
	}
	snprintf(a, n, "%s", name);
	if (gt_report_columns(a) > width && fold(a, '(', ')', b, n))
		snprintf(a, n, "%s", b);
	while (gt_report_columns(a) > width && fold(a, '<', '>', b, n))
		snprintf(a, n, "%s", b);
	if (gt_report_columns(a) > width && drop_qualifiers(a, b, n))
		snprintf(a, n, "%s", b);
	/* then the folded lists at the end: the name itself matters most */
	static const char *const tails[] = {"(" ELLIPSIS ")", "<" ELLIPSIS ">"};
	for (size_t t = 0; t < 2 && gt_report_columns(a) > width; t++) {
		size_t la = strlen(a), lt = strlen(tails[t]);
		if (la > lt && !strcmp(a + la - lt, tails[t]))
			a[la - lt] = '\0';
	}
	if (gt_report_columns(a) > width)
		cut(a, width, buf, len);
	else
		snprintf(buf, len, "%s", a);
	free(a), free(b);
}

/* Shortened names in order, to find those that print alike. */
struct shortened {
	char *const *out;
	const char *const *names;
};
static const struct shortened *sorting;

static int cmp_shown(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(sorting->out[a], sorting->out[b]);
	if (!c)
		c = strcmp(sorting->names[a], sorting->names[b]);
	return c ? c : a < b ? -1 : a > b;
}

int gt_report_shorten_all(const char *const *names, size_t n, size_t width, char **out)
{
	char buf[1024];
	for (size_t i = 0; i < n; i++) {
		gt_report_shorten(names[i], width, buf, sizeof buf);
		if (!(out[i] = strdup(buf))) {
			gt_report_free_names(out, i);
			return -1;
		}
	}
	/* names that print alike, found sorted (in order within a run of
	 * one text): after the first, each other name than the first's is
	 * numbered, shortened again to leave room for the number */
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order) {
		gt_report_free_names(out, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	struct shortened sh = {out, names};
	sorting = &sh;
	qsort(order, n, sizeof *order, cmp_shown);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0;) {
		size_t j = i + 1;
		while (j < n && !strcmp(out[order[j]], out[order[i]]))
			j++;
		/* by full name within the run: the first name keeps the short
		 * text, each other one its full name (or a number) */
		size_t k = 2;
		const char *alt_of = NULL;
		char *alt = NULL;
		for (size_t x = i + 1; x < j && rc == 0; x++) {
			size_t at = order[x];
			if (!strcmp(names[at], names[order[i]]))
				continue;
			if (!alt_of || strcmp(alt_of, names[at])) {
				alt_of = names[at];
				char num[24], cut[sizeof buf - sizeof num];
				int len = snprintf(num, sizeof num, " #%zu", k++);
				gt_report_shorten(names[at], width > (size_t)len + 8 ? width - (size_t)len : 8, cut, sizeof cut);
				snprintf(buf, sizeof buf, "%s%s", cut, num);
			}
			if (!(alt = strdup(buf)))
				rc = -1;
			else
				free(out[at]), out[at] = alt;
		}
		i = j;
	}
	free(order);
	if (rc < 0)
		gt_report_free_names(out, n);
	return rc;
}

void gt_report_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

/* --- tables ----------------------------------------------------------- */

static void pad(FILE *out, const char *s, size_t width, bool right)
{
	size_t cols = gt_report_columns(s);
	if (right)
		for (size_t i = cols; i < width; i++)
			fputc(' ', out);
	fputs(s, out);
	if (!right)
		for (size_t i = cols; i < width; i++)
			fputc(' ', out);
}

void gt_report_md_cell(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '`' || *s == '\\' || *s == '*' || *s == '_')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

void gt_report_table_write(FILE *out, const struct gt_report_table *t, int kind)
{
	if (kind == GT_REPORT_MARKDOWN) {
		for (size_t c = 0; c < t->ncols; c++) {
			fputs("| ", out);
			gt_report_md_cell(out, t->head[c]);
			fputc(' ', out);
		}
		fputs("|\n", out);
		for (size_t c = 0; c < t->ncols; c++)
			fputs(t->right[c] ? "|---:" : "|---", out);
		fputs("|\n", out);
		for (size_t r = 0; r < t->nrows; r++) {
			for (size_t c = 0; c < t->ncols; c++) {
				fputs("| ", out);
				gt_report_md_cell(out, t->cells[r * t->ncols + c]);
				fputc(' ', out);
			}
			fputs("|\n", out);
		}
		return;
	}
	size_t w[16] = {0};
	for (size_t c = 0; c < t->ncols && c < 16; c++) {
		w[c] = gt_report_columns(t->head[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t n = s ? gt_report_columns(s) : 0;
			w[c] = n > w[c] ? n : w[c];
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		/* a line at a time, so that it ends without blanks */
		char *text = NULL;
		size_t size = 0;
		FILE *l = open_memstream(&text, &size);
		if (!l)
			return;
		fputs("  ", l);
		for (size_t c = 0; c < t->ncols && c < 16; c++) {
			const char *s = r == 0 ? t->head[c] : t->cells[(r - 1) * t->ncols + c];
			if (c)
				fputs("  ", l);
			pad(l, s ? s : "", w[c], t->right[c]);
		}
		fclose(l);
		while (size && text[size - 1] == ' ')
			size--;
		fwrite(text, 1, size, out);
		fputc('\n', out);
		free(text);
	}
}
