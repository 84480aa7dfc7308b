/* What the human reports (-f text, -f markdown) share: durations and
 * shares as a person reads them, bars, names shortened by their C++
 * structure, and small tables that fit 100 columns (text) or render as
 * Markdown. */
#ifndef GT_CLI_REPORT_H
#define GT_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum gt_report_kind { GT_REPORT_NONE = -1, GT_REPORT_TEXT = 0, GT_REPORT_MARKDOWN };

#define GT_REPORT_WIDTH 100

/* "12.345 ms", "3.2 s", "850 ns": three to four significant digits. */
void gt_report_duration(int64_t ns, char *buf, size_t len);
/* "12.3%" of num / den ("-" when den <= 0). */
void gt_report_percent(int64_t num, int64_t den, char *buf, size_t len);
/* A bar of share num / den in at most width cells (UTF-8 blocks). */
void gt_report_bar(int64_t num, int64_t den, int width, char *buf, size_t len);
/* Display columns of UTF-8 text (one per code point). */
size_t gt_report_columns(const char *s);

/* A name shortened to at most width columns by its C++ structure:
 * parameter lists, then template arguments folded to "…" (outermost
 * first), then leading qualifiers dropped, and only then cut, at the end
 * of an identifier, with "…". */
void gt_report_shorten(const char *name, size_t width, char *buf, size_t len);
/* Shortens n names so that no two print alike: those that would collide
 * are given more room until they differ, or a " #k" after the k-th. out[i]
 * holds a malloc'd string (free with gt_report_free_names); -1 out of
 * memory. */
int gt_report_shorten_all(const char *const *names, size_t n, size_t width, char **out);
void gt_report_free_names(char **names, size_t n);

/* A small table: cells are text; right-aligned columns are numbers. */
struct gt_report_table {
	size_t ncols, nrows;
	const char *const *head;    /* ncols */
	const bool *right;          /* ncols */
	char **cells;               /* nrows * ncols, row-major, NULL: empty */
};
void gt_report_table_write(FILE *out, const struct gt_report_table *t, int kind);
/* A Markdown cell's text: | and backticks escaped. */
void gt_report_md_cell(FILE *out, const char *s);

#endif
