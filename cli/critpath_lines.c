/* A causal window's hops and rows as lines (see critpath_lines.h): each
 * built as text (write/jline.h), the bytes the document's gt_jsonw calls
 * or the table writer would write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_lines.h"
#include "critpath_causal.h"
#include "base/base.h"

/* One thread's state: its caches, and the window it formats. */
struct lines {
	gt_jline *l;       /* the chunk's */
	gt_jline track;    /* the escaped label of the hops' current track */
	uint32_t labelled; /* the track `track` names, once have_label */
	bool have_label;
	gt_jstrings names;
	int format;
	bool pretty;
	const gt_model *m;
	const gt_causal_window *win;
	uint32_t window;
	bool rows;
};

struct gt_cp_lines {
	gt_lines lines;
	struct lines *states; /* lines.threads of them */
};

/* A member's key, composed at compile time: `"key": ` (pretty) or `"key":`. */
#define LINE_KEY(o, first, key) line_key((o), (first), "\"" key "\": ", sizeof("\"" key "\": ") - 1)

static void line_key(struct lines *o, bool first, const char *quoted, size_t n)
{
	if (!first)
		gt_jline_put(o->l, o->pretty ? ", " : ",", o->pretty ? 2 : 1);
	gt_jline_put(o->l, quoted, o->pretty ? n : n - 1);
}

/* A string known to need no escaping (the program's own names). */
static void line_plain(struct lines *o, const char *s)
{
	GT_JL_LIT(o->l, "\"");
	gt_jline_put(o->l, s, strlen(s));
	GT_JL_LIT(o->l, "\"");
}

/* A span's name or category; the table's have none as null, as the table
 * writer's name columns do. */
static void line_name(struct lines *o, uint32_t id)
{
	if (id != GT_NONE || o->format == GT_CP_LINES_JSON || o->format == GT_CP_LINES_JSON_PRETTY)
		gt_jline_model_str(o->l, &o->names, id);
	else if (o->format == GT_CP_LINES_NDJSON)
		GT_JL_LIT(o->l, "null");
}

#define LINE_POINT(o, first, key, p) (LINE_KEY(o, first, key), line_point((o), (p)))

static void line_point(struct lines *o, const gt_causal_point *p)
{
	char which[2] = {p->which, 0};
	GT_JL_LIT(o->l, "{");
	LINE_KEY(o, true, "point");
	gt_jline_u64(o->l, p->point);
	LINE_KEY(o, false, "span");
	gt_jline_u64(o->l, p->span);
	LINE_KEY(o, false, "which");
	if ((which[0] >= 'A' && which[0] <= 'Z') || (which[0] >= 'a' && which[0] <= 'z'))
		line_plain(o, which);
	else
		gt_jline_str(o->l, which);
	LINE_KEY(o, false, "ts_ns");
	gt_jline_i64(o->l, p->ts_ns);
	GT_JL_LIT(o->l, "}");
}

static void hop_line(struct lines *o, const gt_causal_hop *h)
{
	const gt_model *m = o->m;
	GT_JL_LIT(o->l, "{");
	LINE_POINT(o, true, "from", &h->from);
	LINE_POINT(o, false, "to", &h->to);
	LINE_KEY(o, false, "kind");
	line_plain(o, gt_causal_kind_names[h->kind]);
	LINE_KEY(o, false, "owner");
	if (h->owner == GT_NONE) {
		GT_JL_LIT(o->l, "null");
	} else {
		gt_jline_u64(o->l, h->owner);
		LINE_KEY(o, false, "owner_name");
		gt_jline_model_str(o->l, &o->names, m->spans[h->owner].name);
		LINE_KEY(o, false, "owner_cat");
		gt_jline_model_str(o->l, &o->names, m->spans[h->owner].cat);
	}
	LINE_KEY(o, false, "track");
	if (!o->have_label || h->track != o->labelled) { /* escaped once per run of hops on a track */
		char buf[160];
		o->have_label = true;
		o->labelled = h->track;
		o->track.len = 0;
		gt_jline_str(&o->track, gt_causal_track_label(m, h->track, buf, sizeof buf));
		if (o->track.failed)
			o->l->failed = true;
	}
	gt_jline_put(o->l, o->track.buf, o->track.len);
	if (h->flow != GT_NONE) {
		LINE_KEY(o, false, "flow_cat");
		gt_jline_model_str(o->l, &o->names, m->flows[h->flow].cat);
	}
	if (h->kind == GT_CAUSAL_STREAM_WAIT) {
		LINE_KEY(o, false, "wait_source");
		gt_jline_str(o->l, gt_causal_wait_source_names[h->wait_source]);
	}
	LINE_KEY(o, false, "class");
	line_plain(o, gt_causal_class_names[h->cls]);
	LINE_KEY(o, false, "duration_ns");
	gt_jline_i64(o->l, h->duration_ns);
	LINE_KEY(o, false, "duration_us");
	gt_jline_us(o->l, h->duration_ns);
	GT_JL_LIT(o->l, "}");
}

/* A row object: the document's, or the NDJSON table's, which leads with
 * its window and ends the line. */
static void row_line(struct lines *o, const gt_causal_row *r)
{
	bool table = o->format == GT_CP_LINES_NDJSON;
	GT_JL_LIT(o->l, "{");
	if (table) {
		LINE_KEY(o, true, "window");
		gt_jline_u64(o->l, o->window);
	}
	LINE_KEY(o, !table, "span");
	gt_jline_u64(o->l, r->span);
	LINE_KEY(o, false, "name");
	line_name(o, o->m->spans[r->span].name);
	LINE_KEY(o, false, "cat");
	line_name(o, o->m->spans[r->span].cat);
	LINE_KEY(o, false, "float_ns");
	gt_jline_i64(o->l, r->float_ns);
	LINE_KEY(o, false, "on_path");
	if (r->on_path)
		GT_JL_LIT(o->l, "true");
	else
		GT_JL_LIT(o->l, "false");
	LINE_KEY(o, false, "critical_ns");
	gt_jline_i64(o->l, r->critical_ns);
	LINE_KEY(o, false, "waited_ns");
	gt_jline_i64(o->l, r->waited_ns);
	LINE_KEY(o, false, "caused_wait_ns");
	gt_jline_i64(o->l, r->caused_wait_ns);
	if (table)
		GT_JL_LIT(o->l, "}\n");
	else
		GT_JL_LIT(o->l, "}");
}

/* The same row as a CSV record, in the table's column order. */
static void row_csv(struct lines *o, const gt_causal_row *r)
{
	gt_jline *l = o->l;
	gt_jline_u64(l, o->window);
	GT_JL_LIT(l, ",");
	gt_jline_u64(l, r->span);
	GT_JL_LIT(l, ",");
	line_name(o, o->m->spans[r->span].name);
	GT_JL_LIT(l, ",");
	line_name(o, o->m->spans[r->span].cat);
	GT_JL_LIT(l, ",");
	gt_jline_i64(l, r->float_ns);
	if (r->on_path)
		GT_JL_LIT(l, ",true,");
	else
		GT_JL_LIT(l, ",false,");
	gt_jline_i64(l, r->critical_ns);
	GT_JL_LIT(l, ",");
	gt_jline_i64(l, r->waited_ns);
	GT_JL_LIT(l, ",");
	gt_jline_i64(l, r->caused_wait_ns);
	GT_JL_LIT(l, "\n");
}

static void format_line(void *state, gt_jline *l, uint64_t i, bool first)
{
	struct lines *o = state;
	o->l = l;
	if (first)
		o->have_label = false; /* a chunk names its first hop's track afresh */
	if (!o->rows)
		hop_line(o, &o->win->hops[i]);
	else if (o->format == GT_CP_LINES_CSV)
		row_csv(o, &o->win->rows[i]);
	else
		row_line(o, &o->win->rows[i]);
}

void gt_cp_lines_free(gt_cp_lines *w)
{
	if (!w)
		return;
	for (unsigned i = 0; w->states && i < w->lines.threads; i++) {
		gt_jline_free(&w->states[i].track);
		gt_jstrings_free(&w->states[i].names);
	}
	free(w->states);
	gt_lines_free(&w->lines);
	free(w);
}

gt_cp_lines *gt_cp_lines_new(const gt_model *m, int format, unsigned threads)
{
	gt_cp_lines *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	gt_lines_init(&w->lines, threads);
	if (!(w->states = calloc(w->lines.threads, sizeof *w->states))) {
		gt_cp_lines_free(w);
		return NULL;
	}
	for (unsigned i = 0; i < w->lines.threads; i++) {
		struct lines *o = &w->states[i];
		if (gt_jstrings_init(&o->names, m) < 0) {
			gt_cp_lines_free(w);
			return NULL;
		}
		o->names.csv = format == GT_CP_LINES_CSV;
		o->format = format;
		o->pretty = format == GT_CP_LINES_JSON_PRETTY;
		o->m = m;
	}
	return w;
}

int gt_cp_lines_write(gt_cp_lines *w, const gt_causal_window *win, uint32_t window, bool rows,
		      gt_lines_emit_fn emit, void *ctx)
{
	for (unsigned i = 0; i < w->lines.threads; i++) {
		w->states[i].win = win;
		w->states[i].window = window;
		w->states[i].rows = rows;
	}
	return gt_lines_write(&w->lines, rows ? win->row_count : win->hop_count, format_line, w->states,
			      sizeof *w->states, emit, ctx);
}

/* ---- the rows table ---- */

static void put_file(void *out, const char *p, size_t n)
{
	fwrite_unlocked(p, 1, n, out);
}

static int emit_file(void *out, const char *p, const size_t *end, uint32_t count)
{
	fwrite_unlocked(p, 1, end[count - 1], out);
	return ferror_unlocked(out); /* stop early on a full disk or a closed pipe */
}

int gt_cp_rows_table(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const gt_table *t)
{
	bool csv = c->format == GT_OUT_CSV;
	gt_error err = {0};
	gt_outfile of;
	if (gt_outfile_open(&of, c->output, false, &err) < 0)
		return gt_report(&err);
	gt_cp_lines *w = gt_cp_lines_new(m, csv ? GT_CP_LINES_CSV : GT_CP_LINES_NDJSON, c->threads);
	int rc = w ? 0 : -1;
	flockfile(of.fp);
	for (size_t i = 0; csv && rc == 0 && i < t->ncols; i++) {
		if (i)
			putc_unlocked(',', of.fp);
		gt_csv_put_field(put_file, of.fp, t->cols[i].name);
	}
	if (csv && rc == 0)
		putc_unlocked('\n', of.fp);
	for (uint32_t i = 0; i < r->window_count && rc == 0; i++)
		rc = gt_cp_lines_write(w, &r->windows[i], i, true, emit_file, of.fp);
	funlockfile(of.fp);
	gt_cp_lines_free(w);
	if (rc < 0)
		gt_fail(&err, GT_EINPUT, "out of memory writing the rows");
	if (rc < 0 || gt_check_write(of.fp, &err) < 0) {
		gt_outfile_abort(&of);
		return gt_report(&err);
	}
	return gt_outfile_commit(&of, &err) < 0 ? gt_report(&err) : 0;
}
