/* A table as a person reads it (-f text, -f markdown, for the commands
 * whose output is one table: stragglers, collectives, info --table):
 * durations with units, absolute times as offsets from the table's
 * earliest one, names shortened by their C++ structure (no two alike) so
 * that a text line fits 100 columns. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "report.h"
#include "write/write.h"

/* A microsecond column of absolute times (entries, begins, ends), not of
 * durations: they are shown from the table's earliest time. */
static bool absolute(const gt_column *c)
{
	return c->type == GT_COL_NS_US && (strstr(c->name, "entry") || strstr(c->name, "begin") ||
					   strstr(c->name, "end") || strstr(c->name, "start") || !strncmp(c->name, "ts", 2));
}

static bool numeric(const gt_column *c)
{
	return c->type != GT_COL_STR && c->type != GT_COL_DICT && c->type != GT_COL_BOOL;
}

/* A share (a fraction): shown as a percentage. */
static bool share(const gt_column *c)
{
	size_t n = strlen(c->name);
	return c->type == GT_COL_F64 && n >= 5 && !strcmp(c->name + n - 5, "share");
}

/* The header: the name without its _us (the cells carry units); a share's
 * as "NAME %". */
static void header(const gt_column *c, char *buf, size_t len)
{
	size_t n = strlen(c->name);
	if (share(c)) {
		if (n > 6) /* "compute_share": "compute %" */
			snprintf(buf, len, "%.*s %%", (int)(n - 6), c->name);
		else
			snprintf(buf, len, "share");
		return;
	}
	if (c->type == GT_COL_NS_US && n > 3 && !strcmp(c->name + n - 3, "_us"))
		n -= 3;
	snprintf(buf, len, "%.*s", (int)n, c->name);
}

static char *cell(const gt_column *c, uint64_t row, int64_t origin)
{
	char buf[64];
	if (gt_cell_is_null(c, row))
		return strdup("");
	switch (c->type) {
	case GT_COL_NS_US: {
		int64_t ns = gt_cell_i64(c, row);
		if (absolute(c)) {
			char d[48];
			gt_report_duration(ns - origin, d, sizeof d);
			snprintf(buf, sizeof buf, "+%s", d);
		} else {
			gt_report_duration(ns, buf, sizeof buf);
		}
		return strdup(buf);
	}
	case GT_COL_STR:
	case GT_COL_DICT: {
		const char *s = gt_cell_str(c, row);
		return strdup(s ? s : "");
	}
	default:
		if (share(c)) {
			snprintf(buf, sizeof buf, "%.1f%%", 100 * gt_cell_f64(c, row));
			return strdup(buf);
		}
		if (!gt_cell_number(c, row, buf))
			buf[0] = '\0';
		return strdup(buf);
	}
}

int gt_table_report_write(FILE *out, const gt_table *t, int kind)
{
	size_t nc = t->ncols;
	uint64_t nr = t->nrows;
	int64_t origin = INT64_MAX;
	for (size_t c = 0; c < nc; c++)
		for (uint64_t r = 0; absolute(&t->cols[c]) && r < nr; r++)
			if (!gt_cell_is_null(&t->cols[c], r) && gt_cell_i64(&t->cols[c], r) < origin)
				origin = gt_cell_i64(&t->cols[c], r);
	char **cells = calloc(nr * nc + 1, sizeof *cells);
	char (*head)[96] = calloc(nc + 1, sizeof *head);
	const char **heads = calloc(nc + 1, sizeof *heads);
	bool *right = calloc(nc + 1, sizeof *right);
	int rc = cells && head && heads && right ? 0 : -1;
	for (size_t c = 0; rc == 0 && c < nc; c++) {
		header(&t->cols[c], head[c], sizeof head[c]);
		heads[c] = head[c], right[c] = numeric(&t->cols[c]);
		for (uint64_t r = 0; rc == 0 && r < nr; r++)
			if (!(cells[r * nc + c] = cell(&t->cols[c], r, origin)))
				rc = -1;
	}
	/* the text columns share what the others leave of 100 */
	size_t used = 2, ntext = 0;
	for (size_t c = 0; rc == 0 && c < nc; c++) {
		if (t->cols[c].type == GT_COL_STR || t->cols[c].type == GT_COL_DICT) {
			ntext++;
			continue;
		}
		size_t w = gt_report_columns(heads[c]);
		for (uint64_t r = 0; r < nr; r++)
			if (gt_report_columns(cells[r * nc + c]) > w)
				w = gt_report_columns(cells[r * nc + c]);
		used += w + 2;
	}
	size_t width = ntext && used + 18 * ntext < GT_REPORT_WIDTH ? (GT_REPORT_WIDTH - used) / ntext - 2 : 16;
	for (size_t c = 0; rc == 0 && c < nc; c++) {
		if (t->cols[c].type != GT_COL_STR && t->cols[c].type != GT_COL_DICT)
			continue;
		const char **names = malloc((nr ? nr : 1) * sizeof *names);
		char **shown = malloc((nr ? nr : 1) * sizeof *shown);
		if (!names || !shown) {
			free(names), free(shown);
			rc = -1;
			break;
		}
		for (uint64_t r = 0; r < nr; r++)
			names[r] = cells[r * nc + c];
		if (gt_report_shorten_all(names, nr, width, shown) < 0)
			rc = -1;
		for (uint64_t r = 0; rc == 0 && r < nr; r++) {
			free(cells[r * nc + c]);
			cells[r * nc + c] = shown[r];
		}
		free(names), free(shown);
	}
	if (rc == 0) {
		if (kind == GT_REPORT_MARKDOWN)
			fprintf(out, "### %s\n\n", t->name);
		else
			fprintf(out, "%s: %" PRIu64 " row%s\n", t->name, nr, nr == 1 ? "" : "s");
		for (size_t i = 0; i < t->nmeta; i++)
			if (t->meta_keys[i] && strcmp(t->meta_keys[i], "gputrace_version") && t->meta_values[i][0])
				fprintf(out, "%s%s: %s\n", kind == GT_REPORT_MARKDOWN ? "" : "  ", t->meta_keys[i],
					t->meta_values[i]);
		if (origin != INT64_MAX) {
			char at[64];
			snprintf(at, sizeof at, "%" PRId64 ".%03" PRId64, origin / 1000, origin % 1000 < 0 ? -(origin % 1000) : origin % 1000);
			fprintf(out, "%sthe times (+) are from the first, at ts %s us\n", kind == GT_REPORT_MARKDOWN ? "" : "  ", at);
		}
		fputc('\n', out);
		struct gt_report_table rt = {nc, nr, heads, right, cells};
		gt_report_table_write(out, &rt, kind);
	}
	for (uint64_t i = 0; cells && i < nr * nc; i++)
		free(cells[i]);
	free(cells), free(head), free(heads), free(right);
	return rc;
}
