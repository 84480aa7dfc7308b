/* A large table's text rows formatted in chunks on threads (gt_lines),
 * written in order: the bytes the one-thread writers write, where the
 * table's getters may run on several threads (gt_table.cells_on_threads). */
#include <stdio.h>

#include "lines.h"
#include "table.h"
#include "table_cell.h"

typedef struct rows_job {
	const gt_table *t;
	gt_table_row_fn row;
	const void *ctx;
} rows_job;

static void format_row(void *state, gt_jline *l, uint64_t r, bool first)
{
	const rows_job *j = state;
	(void)first; /* no line depends on another */
	j->row(j->t, j->ctx, l, r);
}

static int emit_rows(void *out, const char *p, const size_t *end, uint32_t count)
{
	fwrite_unlocked(p, 1, end[count - 1], out);
	return ferror_unlocked(out); /* stop early on a full disk or a closed pipe */
}

bool gt_table_rows_on_threads(const gt_table *t)
{
	return t->cells_on_threads && t->nrows >= 2 * (uint64_t)GT_LINES_CHUNK;
}

int gt_table_write_rows(const gt_table *t, FILE *out, gt_table_row_fn row, const void *ctx)
{
	gt_lines lines;
	gt_lines_init(&lines, 0);
	rows_job jobs[GT_LINES_MAX_THREADS];
	for (unsigned k = 0; k < lines.threads; k++)
		jobs[k] = (rows_job){t, row, ctx};
	int rc = gt_lines_write(&lines, t->nrows, format_row, jobs, sizeof *jobs, emit_rows, out);
	gt_lines_free(&lines);
	return rc < 0 ? -1 : 0;
}

void gt_jline_cell_number(gt_jline *l, const gt_column *c, uint64_t row, const char *null_text)
{
	char buf[40];
	int n = gt_cell_number(c, row, buf);
	if (n)
		gt_jline_put(l, buf, (size_t)n);
	else if (null_text)
		gt_jline_put(l, null_text, strlen(null_text));
}
