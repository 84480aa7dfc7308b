/* info -f text | markdown: what a trace holds, as a person reads it: the
 * file, the counts, the time, the largest groups, the warnings with where
 * the first of each was, and a job's ranks. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "info_report.h"
#include "report.h"

static const char *const compression_words[] = {"plain", "gzip", "zstd"};

static void bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= 1000000000)
		snprintf(buf, len, "%.2f GB", (double)n / 1e9);
	else if (n >= 1000000)
		snprintf(buf, len, "%.2f MB", (double)n / 1e6);
	else if (n >= 1000)
		snprintf(buf, len, "%.1f kB", (double)n / 1e3);
	else
		snprintf(buf, len, "%" PRIu64 " B", n);
}

static void para(FILE *out, int kind, const char *text)
{
	fprintf(out, "%s%s\n", kind == GT_REPORT_MARKDOWN ? "" : "  ", text);
}

static void heading(FILE *out, int kind, const char *text)
{
	if (kind == GT_REPORT_MARKDOWN)
		fprintf(out, "\n### %s\n\n", text);
	else
		fprintf(out, "\n%s\n", text);
}

/* A table of up to n rows of ncols cells from fill (row, col, buf). */
static int table(FILE *out, int kind, size_t ncols, size_t n, const char *const *head, const bool *right,
		 void (*fill)(const void *ctx, size_t row, size_t col, char *buf, size_t len), const void *ctx)
{
	char **cells = calloc(n * ncols + 1, sizeof *cells);
	int rc = cells ? 0 : -1;
	for (size_t r = 0; rc == 0 && r < n; r++)
		for (size_t c = 0; rc == 0 && c < ncols; c++) {
			char buf[256];
			fill(ctx, r, c, buf, sizeof buf);
			if (!(cells[r * ncols + c] = strdup(buf)))
				rc = -1;
		}
	if (rc == 0) {
		struct gt_report_table t = {ncols, n, head, right, cells};
		gt_report_table_write(out, &t, kind);
	}
	for (size_t i = 0; cells && i < n * ncols; i++)
		free(cells[i]);
	free(cells);
	return rc;
}

struct groups {
	const gt_model *m;
	uint32_t order[GT_MAX_GROUPS];
};

static void group_cell(const void *ctx, size_t row, size_t col, char *buf, size_t len)
{
	const struct groups *g = ctx;
	const gt_group *x = &g->m->groups[g->order[row]];
	if (col == 0)
		gt_report_shorten(gt_model_str(g->m, x->name), 48, buf, len);
	else if (col == 1)
		snprintf(buf, len, "%" PRIu64, x->spans);
	else
		gt_report_percent((int64_t)x->spans, g->m->span_count, buf, len);
}

struct warnings {
	const gt_model *m;
	int kind[GT_WARN_COUNT];
};

static void warning_cell(const void *ctx, size_t row, size_t col, char *buf, size_t len)
{
	const struct warnings *w = ctx;
	int k = w->kind[row];
	const gt_model *m = w->m;
	const gt_warning_example *ex = NULL;
	const char *file = NULL;
	if (m->rank_count) { /* a job: the first rank with an example */
		for (uint32_t r = 0; r < m->rank_count && !ex; r++)
			if (m->ranks[r].examples && m->ranks[r].example_count[k])
				ex = &m->ranks[r].examples[k][0], file = m->ranks[r].source;
	} else if (m->warning_example_count[k]) {
		ex = &m->warning_examples[k][0];
	}
	if (col == 0)
		snprintf(buf, len, "%s", gt_warning_names[k]);
	else if (col == 1)
		snprintf(buf, len, "%" PRIu64, m->stats.warnings[k]);
	else if (ex)
		snprintf(buf, len, "%s%sbyte %" PRIu64 ", event %" PRIu64, file ? file : "", file ? ": " : "", ex->offset,
			 ex->event);
	else
		snprintf(buf, len, "(no example kept)");
}

static void rank_cell(const void *ctx, size_t row, size_t col, char *buf, size_t len)
{
	const gt_model *m = ctx;
	const gt_rank_part *r = &m->ranks[row];
	uint64_t warnings = 0;
	for (int k = 0; k < GT_WARN_COUNT; k++)
		warnings += r->stats.warnings[k];
	switch (col) {
	case 0: snprintf(buf, len, "%" PRId64, r->rank); break;
	case 1: gt_report_shorten(r->source ? r->source : "", 56, buf, len); break;
	case 2: snprintf(buf, len, "%" PRIu32, r->span_count); break;
	default: snprintf(buf, len, "%" PRIu64, warnings);
	}
}

int gt_info_report_write(FILE *out, const gt_model *m, int kind)
{
	char buf[512], a[32], b[32], d[32];
	const gt_ingest_stats *st = &m->stats;
	if (kind == GT_REPORT_MARKDOWN)
		fprintf(out, "## `%s`\n\n", m->source ? m->source : "");
	else
		fprintf(out, "%s\n", m->source ? m->source : "");
	bytes(st->file_bytes, a, sizeof a);
	bytes(st->bytes, b, sizeof b);
	snprintf(buf, sizeof buf, "%s JSON (%s), %s read, %s of JSON, %" PRIu64 " events",
		 compression_words[st->compression % 3], st->format == GT_FMT_OBJECT ? "object" : "array", a, b, st->events);
	para(out, kind, buf);
	uint64_t bound = 0;
	for (uint32_t f = 0; f < m->flow_count; f++)
		bound += m->flows[f].src != GT_NONE && m->flows[f].dst != GT_NONE;
	snprintf(buf, sizeof buf, "%" PRIu32 " spans, %" PRIu32 " flows (%" PRIu64 " bound), %" PRIu32
		 " counter series (%" PRIu64 " samples)", m->span_count, m->flow_count, bound, m->series_count,
		 m->sample_count);
	para(out, kind, buf);
	snprintf(buf, sizeof buf, "%" PRIu32 " processes, %" PRIu32 " threads, %" PRIu32 " tracks, %" PRIu32 " lanes",
		 m->process_count, m->thread_count, m->track_count, m->lane_count);
	para(out, kind, buf);
	gt_report_duration(m->end_ns - m->start_ns, d, sizeof d);
	snprintf(buf, sizeof buf, "%s of trace, from ts %" PRId64 ".%03" PRId64 " us", d, m->start_ns / 1000,
		 (m->start_ns % 1000 + 1000) % 1000);
	para(out, kind, buf);
	bytes(gt_model_bytes(m), a, sizeof a);
	snprintf(buf, sizeof buf, "the model holds %s: %.1f bytes per span", a,
		 m->span_count ? (double)gt_model_bytes(m) / m->span_count : 0.0);
	para(out, kind, buf);
	if (m->rank >= 0) {
		snprintf(buf, sizeof buf, "rank %" PRId64 " of %" PRId64 " (distributedInfo)", m->rank, m->world_size);
		para(out, kind, buf);
	}
	/* the largest groups */
	struct groups g = {m, {0}};
	for (uint32_t i = 0; i < m->group_count; i++)
		g.order[i] = i;
	for (uint32_t i = 1; i < m->group_count; i++)
		for (uint32_t j = i; j > 0 && m->groups[g.order[j - 1]].spans < m->groups[g.order[j]].spans; j--) {
			uint32_t t = g.order[j];
			g.order[j] = g.order[j - 1], g.order[j - 1] = t;
		}
	size_t shown = m->group_count < 10 ? m->group_count : 10;
	snprintf(buf, sizeof buf, "categories (renderer groups), the %zu largest of %" PRIu32, shown, m->group_count);
	heading(out, kind, buf);
	static const char *const ghead[3] = {"category", "spans", "share"};
	static const bool gright[3] = {false, true, true};
	int rc = table(out, kind, 3, shown, ghead, gright, group_cell, &g);
	/* warnings with time */
	struct warnings w = {m, {0}};
	size_t nw = 0;
	for (int k = 0; k < GT_WARN_COUNT; k++)
		if (st->warnings[k])
			w.kind[nw++] = k;
	heading(out, kind, nw ? "warnings (each kind's first example)" : "no warnings");
	static const char *const whead[3] = {"warning", "count", "first"};
	static const bool wright[3] = {false, true, false};
	if (rc == 0 && nw)
		rc = table(out, kind, 3, nw, whead, wright, warning_cell, &w);
	if (rc == 0 && m->rank_count) {
		snprintf(buf, sizeof buf, "a job of %" PRIu32 " ranks", m->rank_count);
		heading(out, kind, buf);
		static const char *const rhead[4] = {"rank", "file", "spans", "warnings"};
		static const bool rright[4] = {true, false, true, true};
		rc = table(out, kind, 4, m->rank_count, rhead, rright, rank_cell, m);
	}
	return rc;
}
