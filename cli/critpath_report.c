/* critical-path -f text | markdown: the causal path as a person reads it.
 * The windows' walls and paths, where the path's time went (a small table
 * with shares of the path and of the wall, and bars), the longest hops,
 * the flags in words. Up to a few windows each get their own part; more
 * are one line each, with the aggregate's table. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_causal.h"
#include "output.h"
#include "report.h"
#include "write/write.h"

#define KEY_WIDTH 44 /* with the bar, the table fits 100 columns */
#define BAR_WIDTH 12
#define WINDOWS_IN_FULL 4
#define TOP_ENTRIES 10
#define TOP_HOPS 5

static const char *const flag_words[GT_CAUSAL_FLAG_COUNT] = {
	"no dependencies (no flow or wait edge): the path is the longest track",
	"a zero-gap cycle: some points have no path",
	"a path sum passed 2^63-1 ns",
};

struct ctx {
	FILE *out;
	const gt_model *m;
	int kind;
};

static void heading(const struct ctx *x, int level, const char *text)
{
	if (x->kind == GT_REPORT_MARKDOWN)
		fprintf(x->out, "\n%s %s\n\n", level == 1 ? "##" : "###", text);
	else
		fprintf(x->out, "\n%s\n", text);
}

static void line(const struct ctx *x, const char *text)
{
	fprintf(x->out, "%s%s\n", x->kind == GT_REPORT_MARKDOWN ? "" : "  ", text);
}

static int by_time(const void *x, const void *y, void *shares)
{
	const gt_causal_share *s = shares;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (s[a].critical_ns != s[b].critical_ns)
		return s[a].critical_ns > s[b].critical_ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Rows of the breakdown table: the top entries by time (then the rest as
 * one), the wall's parts; cells are the caller's to free. */
static int breakdown_table(const struct ctx *x, const gt_causal_share *s, uint32_t n, int64_t path, int64_t wall,
			   int64_t before, int64_t after)
{
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, by_time, (void *)s); /* by time, descending; ties in their order */
	uint32_t shown = n < TOP_ENTRIES ? n : TOP_ENTRIES, rows = shown + (n > shown) + (before > 0) + (after > 0);
	const char **keys = calloc(shown ? shown : 1, sizeof *keys);
	char **names = calloc(shown ? shown : 1, sizeof *names), **cells = calloc((size_t)rows * 6 + 1, sizeof *cells);
	char (*keybuf)[160] = calloc(shown ? shown : 1, sizeof *keybuf);
	int rc = keys && names && cells && keybuf ? 0 : -1;
	for (uint32_t i = 0; rc == 0 && i < shown; i++) {
		const char *k = gt_causal_share_key(x->m, &s[order[i]], keybuf[i], sizeof keybuf[i]);
		keys[i] = k ? k : "";
	}
	if (rc == 0 && gt_report_shorten_all(keys, shown, KEY_WIDTH, names) < 0) {
		rc = -1;
		free(names);
		names = NULL;
	}
	int64_t rest = 0;
	for (uint32_t i = shown; i < n; i++)
		rest += s[order[i]].critical_ns;
	for (uint32_t r = 0; rc == 0 && r < rows; r++) {
		const char *kind, *key = "";
		int64_t ns;
		char others[48];
		if (r < shown)
			kind = gt_causal_kind_names[s[order[r]].kind], key = names[r], ns = s[order[r]].critical_ns;
		else if (r == shown && n > shown) {
			snprintf(others, sizeof others, "(%u more)", n - shown);
			kind = "others", key = others, ns = rest;
		} else if (before > 0 && r == rows - 1 - (after > 0))
			kind = "before root", ns = before;
		else
			kind = "after endpoint", ns = after;
		bool part = r >= shown + (n > shown);
		char t[32], sp[16], sw[16], bar[BAR_WIDTH * 3 + 4];
		gt_report_duration(ns, t, sizeof t);
		gt_report_percent(ns, path, sp, sizeof sp);
		gt_report_percent(ns, wall, sw, sizeof sw);
		gt_report_bar(ns, wall, BAR_WIDTH, bar, sizeof bar);
		const char *v[6] = {kind, key, t, part ? "" : sp, sw, bar};
		for (int c = 0; c < 6 && rc == 0; c++)
			if (!(cells[r * 6 + c] = strdup(v[c])))
				rc = -1;
	}
	if (rc == 0) {
		static const char *const head[6] = {"kind", "key", "time", "of path", "of wall", ""};
		static const bool right[6] = {false, false, true, true, true, false};
		struct gt_report_table t = {6, rows, head, right, cells};
		gt_report_table_write(x->out, &t, x->kind);
	}
	for (size_t i = 0; cells && i < (size_t)rows * 6; i++)
		free(cells[i]);
	if (names)
		gt_report_free_names(names, shown);
	free(cells), free(names), free(keys), free(keybuf), free(order);
	return rc;
}

/* The path in the words of GPU work: each class with time, shares of the
 * path and of the wall, bars. */
static const char *const class_words[GT_CAUSAL_CLASS_COUNT] = {
	"GPU compute", "GPU communication", "GPU memcpy", "GPU memset", "CPU operators", "CPU runtime calls",
	"CPU step self time", "launch latency", "GPU queue", "sync and wait", "CPU waiting on the GPU",
	"GPU idle, waiting on the CPU", "idle",
};

static int class_table(const struct ctx *x, const int64_t *class_ns, int64_t path, int64_t wall)
{
	char *cells[GT_CAUSAL_CLASS_COUNT * 5] = {0};
	uint32_t rows = 0;
	int rc = 0;
	for (int k = 0; k < GT_CAUSAL_CLASS_COUNT && rc == 0; k++) {
		if (!class_ns[k])
			continue;
		char t[32], sp[16], sw[16], bar[BAR_WIDTH * 3 + 4];
		gt_report_duration(class_ns[k], t, sizeof t);
		gt_report_percent(class_ns[k], path, sp, sizeof sp);
		gt_report_percent(class_ns[k], wall, sw, sizeof sw);
		gt_report_bar(class_ns[k], wall, BAR_WIDTH, bar, sizeof bar);
		const char *v[5] = {class_words[k], t, sp, sw, bar};
		for (int c = 0; c < 5; c++)
			if (!(cells[rows * 5 + (uint32_t)c] = strdup(v[c])))
				rc = -1;
		rows++;
	}
	if (rc == 0 && rows) {
		static const char *const head[5] = {"in the words of GPU work", "time", "of path", "of wall", ""};
		static const bool right[5] = {false, true, true, true, false};
		struct gt_report_table t = {5, rows, head, right, cells};
		gt_report_table_write(x->out, &t, x->kind);
	}
	for (uint32_t i = 0; i < rows * 5; i++)
		free(cells[i]);
	return rc;
}

/* The longest hops of a window's path. */
static int longest_hops(const struct ctx *x, const gt_causal_window *w)
{
	uint32_t n = w->hop_count < TOP_HOPS ? w->hop_count : TOP_HOPS;
	uint32_t top[TOP_HOPS];
	uint32_t k = 0;
	for (uint32_t i = 0; i < w->hop_count; i++) { /* the n longest, earliest first on ties */
		uint32_t at = k < n ? k++ : n;
		if (at == n && w->hops[i].duration_ns <= w->hops[top[n - 1]].duration_ns)
			continue;
		if (at == n)
			at = n - 1;
		while (at > 0 && w->hops[top[at - 1]].duration_ns < w->hops[i].duration_ns)
			top[at] = top[at - 1], at--;
		top[at] = i;
	}
	const char *names[TOP_HOPS];
	char *shown[TOP_HOPS];
	for (uint32_t i = 0; i < n; i++) {
		const gt_causal_hop *h = &w->hops[top[i]];
		names[i] = h->owner == GT_NONE ? "(idle)" : gt_model_str(x->m, x->m->spans[h->owner].name);
	}
	if (gt_report_shorten_all(names, n, 52, shown) < 0)
		return -1;
	char **cells = calloc((size_t)n * 4 + 1, sizeof *cells);
	int rc = cells ? 0 : -1;
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		const gt_causal_hop *h = &w->hops[top[i]];
		char t[32], track[160];
		gt_report_duration(h->duration_ns, t, sizeof t);
		const char *tl = gt_causal_track_label(x->m, h->track, track, sizeof track);
		const char *v[4] = {gt_causal_kind_names[h->kind], t, shown[i], tl ? tl : ""};
		for (int c = 0; c < 4 && rc == 0; c++)
			if (!(cells[i * 4 + c] = strdup(v[c])))
				rc = -1;
	}
	if (rc == 0 && n) {
		static const char *const head[4] = {"hop", "time", "span (owner or source)", "track"};
		static const bool right[4] = {false, true, false, false};
		struct gt_report_table t = {4, n, head, right, cells};
		gt_report_table_write(x->out, &t, x->kind);
	}
	for (size_t i = 0; cells && i < (size_t)n * 4; i++)
		free(cells[i]);
	free(cells);
	gt_report_free_names(shown, n);
	return rc;
}

static void flags_line(const struct ctx *x, uint32_t flags)
{
	for (int k = 0; k < GT_CAUSAL_FLAG_COUNT; k++)
		if (flags & (1u << k)) {
			char buf[160];
			snprintf(buf, sizeof buf, "flag: %s", flag_words[k]);
			line(x, buf);
		}
}

static const char *window_name(const struct ctx *x, const gt_causal_window *w, uint32_t i, char *buf, size_t len)
{
	char name[64];
	if (w->step_span == GT_NONE) {
		snprintf(buf, len, "window %u", i);
		return buf;
	}
	gt_report_shorten(gt_model_str(x->m, x->m->spans[w->step_span].name), 48, name, sizeof name);
	snprintf(buf, len, "window %u, %s", i, name);
	return buf;
}

static int window_part(const struct ctx *x, const gt_causal_window *w, uint32_t i)
{
	char title[128], wall[32], path[32], pct[16], buf[256];
	heading(x, 2, window_name(x, w, i, title, sizeof title));
	gt_report_duration(w->wall_ns, wall, sizeof wall);
	gt_report_duration(w->path_duration_ns, path, sizeof path);
	gt_report_percent(w->path_duration_ns, w->wall_ns, pct, sizeof pct);
	snprintf(buf, sizeof buf, "wall %s, path %s (%s of the wall), %u hops over %u spans on %u tracks", wall, path, pct,
		 w->hop_count, w->spans, w->tracks);
	line(x, buf);
	if (w->ranks) {
		char lo[32], md[32], hi[32];
		gt_report_duration(w->rank_wall_min_ns, lo, sizeof lo);
		gt_report_duration(w->rank_wall_median_ns, md, sizeof md);
		gt_report_duration(w->rank_wall_max_ns, hi, sizeof hi);
		snprintf(buf, sizeof buf, "%u ranks (%u without the step); their own walls: min %s, median %s, max %s",
			 w->ranks, w->ranks_missing, lo, md, hi);
		line(x, buf);
	}
	flags_line(x, w->flags);
	fputc('\n', x->out);
	if (class_table(x, w->class_ns, w->path_duration_ns, w->wall_ns) < 0)
		return -1;
	fputc('\n', x->out);
	if (breakdown_table(x, w->breakdown, w->breakdown_count, w->path_duration_ns, w->wall_ns, w->before_root_ns,
			    w->after_endpoint_ns) < 0)
		return -1;
	if (w->hop_count) {
		fputc('\n', x->out);
		if (longest_hops(x, w) < 0)
			return -1;
	}
	return 0;
}

/* One line per window, for many. */
static int window_lines(const struct ctx *x, const gt_causal_result *r)
{
	char **cells = calloc((size_t)r->window_count * 5 + 1, sizeof *cells);
	int rc = cells ? 0 : -1;
	for (uint32_t i = 0; rc == 0 && i < r->window_count; i++) {
		const gt_causal_window *w = &r->windows[i];
		char name[128], wall[32], path[32], before[32], top[200] = "";
		if (w->step_span != GT_NONE)
			gt_report_shorten(gt_model_str(x->m, x->m->spans[w->step_span].name), 32, name, sizeof name);
		else
			snprintf(name, sizeof name, "%u", i);
		gt_report_duration(w->wall_ns, wall, sizeof wall);
		gt_report_duration(w->path_duration_ns, path, sizeof path);
		gt_report_duration(w->before_root_ns, before, sizeof before);
		const gt_causal_share *best = NULL;
		for (uint32_t k = 0; k < w->breakdown_count; k++)
			if (!best || w->breakdown[k].critical_ns > best->critical_ns)
				best = &w->breakdown[k];
		if (best) {
			char kb[160], key[48], pct[16];
			const char *k = gt_causal_share_key(x->m, best, kb, sizeof kb);
			gt_report_shorten(k ? k : "", 28, key, sizeof key);
			gt_report_percent(best->critical_ns, w->path_duration_ns, pct, sizeof pct);
			snprintf(top, sizeof top, "%s %s%s%s", pct, gt_causal_kind_names[best->kind], *key ? " " : "", key);
		}
		const char *v[5] = {name, wall, path, before, top};
		for (int c = 0; c < 5 && rc == 0; c++)
			if (!(cells[i * 5 + c] = strdup(v[c])))
				rc = -1;
	}
	if (rc == 0) {
		static const char *const head[5] = {"window", "wall", "path", "before root", "largest share of the path"};
		static const bool right[5] = {false, true, true, true, false};
		struct gt_report_table t = {5, r->window_count, head, right, cells};
		gt_report_table_write(x->out, &t, x->kind);
	}
	for (size_t i = 0; cells && i < (size_t)r->window_count * 5; i++)
		free(cells[i]);
	free(cells);
	return rc;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

int gt_cli_causal_report(const struct gt_common *c, const gt_model *m, const gt_causal_result *r, const char *device,
			 const char *input, const char *step, int kind)
{
	gt_error err = {0};
	gt_outfile of = {0};
	if (gt_outfile_open(&of, c->output, false, &err) < 0)
		return gt_report(&err);
	struct ctx x = {of.fp, m, kind};
	char buf[512], lo[32], md[32], hi[32];
	if (kind == GT_REPORT_MARKDOWN)
		fprintf(x.out, "## Critical path of `%s`\n\n", input);
	else
		fprintf(x.out, "critical path of %s\n", input);
	int64_t wall = 0, path = 0, before = 0, after = 0;
	uint32_t flags = 0;
	for (uint32_t i = 0; i < r->window_count; i++) {
		wall += r->windows[i].wall_ns, path += r->windows[i].path_duration_ns;
		before += r->windows[i].before_root_ns, after += r->windows[i].after_endpoint_ns;
		flags |= r->windows[i].flags;
	}
	snprintf(buf, sizeof buf, "causal model on %s; %u window%s%s%s%s", device, r->window_count,
		 r->window_count == 1 ? "" : "s", step ? " (--step '" : "", step ? step : "", step ? "')" : "");
	line(&x, buf);
	if (r->wrapper_spans_left_out || r->syncs.markers) {
		snprintf(buf, sizeof buf, "profiler wrapper spans left out: %" PRIu64 "; cuda_sync markers: %" PRIu64
			 " (%" PRIu64 " stream waits and %" PRIu64 " event syncs followed)",
			 r->wrapper_spans_left_out, r->syncs.markers, r->syncs.stream_waits, r->syncs.event_syncs);
		line(&x, buf);
	}
	int rc = 0;
	if (r->window_count <= WINDOWS_IN_FULL) {
		for (uint32_t i = 0; i < r->window_count && rc == 0; i++)
			rc = window_part(&x, &r->windows[i], i);
	} else {
		int64_t *walls = malloc(r->window_count * sizeof *walls);
		rc = walls ? 0 : -1;
		for (uint32_t i = 0; rc == 0 && i < r->window_count; i++)
			walls[i] = r->windows[i].wall_ns;
		if (rc == 0) /* the spread of the walls */
			qsort(walls, r->window_count, sizeof *walls, cmp_i64);
		if (rc == 0) {
			gt_report_duration(walls[0], lo, sizeof lo);
			gt_report_duration(walls[(r->window_count - 1) / 2], md, sizeof md);
			gt_report_duration(walls[r->window_count - 1], hi, sizeof hi);
			snprintf(buf, sizeof buf, "walls: min %s, median %s, max %s", lo, md, hi);
			line(&x, buf);
			flags_line(&x, flags);
			heading(&x, 2, "all windows: where the path's time went");
			int64_t classes[GT_CAUSAL_CLASS_COUNT] = {0};
			for (uint32_t i = 0; i < r->window_count; i++)
				for (int k = 0; k < GT_CAUSAL_CLASS_COUNT; k++)
					classes[k] += r->windows[i].class_ns[k];
			rc = class_table(&x, classes, path, wall);
			fputc('\n', x.out);
			uint32_t n;
			int64_t paths;
			bool overflow;
			gt_causal_share *all = rc == 0 ? gt_cli_causal_sum_breakdowns(r, &n, &paths, &overflow) : NULL;
			rc = all ? breakdown_table(&x, all, n, path, wall, before, after) : -1;
			free(all);
		}
		free(walls);
		if (rc == 0) {
			heading(&x, 2, "each window");
			rc = window_lines(&x, r);
		}
	}
	if (rc < 0) {
		gt_outfile_abort(&of);
		fprintf(stderr, "gputrace: out of memory writing the report\n");
		return GT_EINPUT;
	}
	if (gt_outfile_commit(&of, &err) < 0)
		return gt_report(&err);
	return 0;
}
