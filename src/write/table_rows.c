/* A table's text rows, each made by its format's row function: a large
 * table whose getters may run on several threads (gt_table.cells_on_threads)
 * in chunks on threads (gt_lines), written in order; any other on this
 * thread. Either way the bytes are the same. */
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

/* Rows are appended to one buffer, written out whole past this many bytes:
 * stdio's per-call locking and copying cost more than the formatting. */
#define ROWS_FLUSH (1 << 16)

static int write_rows_here(const gt_table *t, FILE *out, gt_table_row_fn row, const void *ctx)
{
	gt_jline l = {0};
	for (uint64_t r = 0; r < t->nrows && !l.failed; r++) {
		row(t, ctx, &l, r);
		if (l.len >= ROWS_FLUSH && !l.failed) {
			fwrite_unlocked(l.buf, 1, l.len, out);
			l.len = 0;
			if (ferror_unlocked(out))
				break; /* a full disk or a closed pipe */
		}
	}
	bool failed = l.failed;
	if (!failed && l.len)
		fwrite_unlocked(l.buf, 1, l.len, out);
	gt_jline_free(&l);
	return failed ? -1 : 0;
}

int gt_table_write_rows(const gt_table *t, FILE *out, gt_table_row_fn row, const void *ctx)
{
	if (!gt_table_rows_on_threads(t))
		return write_rows_here(t, out, row, ctx);
	gt_lines lines;
	gt_lines_init(&lines, 0);
	rows_job jobs[GT_LINES_MAX_THREADS];
	for (unsigned k = 0; k < lines.threads; k++)
		jobs[k] = (rows_job){t, row, ctx};
	int rc = gt_lines_write(&lines, t->nrows, format_row, jobs, sizeof *jobs, emit_rows, out);
	gt_lines_free(&lines);
	return rc < 0 ? -1 : 0;
}
