/* SVG timeline of a viewport: boxes for spans at least a pixel wide,
 * per-lane per-pixel density for the rest (see svg.h). */
#include "svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define LABEL_W 230  /* lane label column */
#define PAD_R 16
#define ROW_H 16
#define BOX_H 14
#define CHAR_W 6.2   /* average glyph width at font-size 10, for fitting names */



/* Per lane: one box slot and one density cell per pixel. */
struct slots {
	uint32_t *box;    /* span id or GT_NONE */
	uint32_t *count;  /* density count */
	uint32_t *rep;    /* density representative or GT_NONE */
	int64_t y;        /* row top, once rows are laid out */
};

struct ctx {
	FILE *out;
	const gt_model *m;
	const gt_render_opts *o;
	uint32_t W;
	__int128 D; /* window length in ns points: t1 - t0 + 1 */
	bool narrow; /* D * W fits in 63 bits */
	uint32_t lane0, nlanes;
	struct slots **lanes;
	uint8_t *on_path; /* bitmap over span ids, or NULL */
};

static bool longer(const gt_model *m, uint32_t a, uint32_t b)
{
	int64_t da = m->spans[a].dur_ns, db = m->spans[b].dur_ns;
	return da > db || (da == db && a < b);
}

static void clip(const struct ctx *c, const gt_span *s, int64_t *s0, int64_t *e0)
{
	int64_t e = gt_span_end(s);
	*s0 = s->ts_ns > c->o->q.t0 ? s->ts_ns : c->o->q.t0;
	*e0 = e < c->o->q.t1 ? e : c->o->q.t1;
}

static uint32_t cell_of(const struct ctx *c, int64_t t)
{
	if (c->narrow) /* 64-bit arithmetic is exact here, and much faster */
		return (uint32_t)((uint64_t)(t - c->o->q.t0) * c->W / (uint64_t)c->D);
	__int128 v = ((__int128)t - c->o->q.t0) * c->W / c->D;
	return v < 0 ? 0 : v >= c->W ? c->W - 1 : (uint32_t)v;
}

static double x_of(const struct ctx *c, __int128 t)
{
	return LABEL_W + (double)((t - c->o->q.t0)) * c->W / (double)c->D;
}

static struct slots *lane_slots(const struct ctx *c, struct slots **lanes, uint32_t lane)
{
	struct slots **p = &lanes[lane - c->lane0];
	if (*p)
		return *p;
	struct slots *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->box = malloc((size_t)c->W * sizeof *s->box);
	s->count = calloc(c->W, sizeof *s->count);
	s->rep = malloc((size_t)c->W * sizeof *s->rep);
	if (!s->box || !s->count || !s->rep) {
		free(s->box);
		free(s->count);
		free(s->rep);
		free(s);
		return NULL;
	}
	memset(s->box, 0xff, (size_t)c->W * sizeof *s->box);
	memset(s->rep, 0xff, (size_t)c->W * sizeof *s->rep);
	*p = s;
	return s;
}

static void free_lanes(struct slots **lanes, uint32_t n)
{
	for (uint32_t l = 0; lanes && l < n; l++) {
		if (!lanes[l])
			continue;
		free(lanes[l]->box);
		free(lanes[l]->count);
		free(lanes[l]->rep);
		free(lanes[l]);
	}
	free(lanes);
}

static void add_density(const gt_model *m, struct slots *L, uint32_t cell, uint32_t id, uint32_t n)
{
	L->count[cell] += n;
	if (L->rep[cell] == GT_NONE || longer(m, id, L->rep[cell]))
		L->rep[cell] = id;
}

/* A wide span for the box of its cell: the longest keeps it, the other
 * counts as density. The outcome does not depend on the order of calls. */
static void add_box(const gt_model *m, struct slots *L, uint32_t cell, uint32_t id)
{
	if (L->box[cell] == GT_NONE) {
		L->box[cell] = id;
	} else if (longer(m, id, L->box[cell])) {
		add_density(m, L, cell, L->box[cell], 1);
		L->box[cell] = id;
	} else {
		add_density(m, L, cell, id, 1);
	}
}

/* One share of the collection: candidates [from, to) into private slots. */
struct worker {
	GT_JOB_ALIGNED const struct ctx *c; /* spans counts per span */
	const gt_tindex *ix;
	const uint32_t *cand;
	uint64_t from, to;
	struct slots **lanes;
	uint64_t spans;
	bool oom;
};

static void *collect(void *arg)
{
	struct worker *w = arg;
	const struct ctx *c = w->c;
	const gt_tindex *ix = w->ix;
	const gt_tquery *q = &c->o->q;
	if (!w->lanes) {
		w->oom = true;
		return NULL;
	}
	for (uint64_t k = w->from; k < w->to; k++) {
		const gt_tnode *b = &ix->batches[w->cand[k]];
		uint32_t end = b->first + b->count;
		for (uint32_t j = b->first; j < end; j++) {
			/* batch order is not id order: each span is a cache miss,
			 * so fetch a few ahead */
			if (j + 16 < ix->span_count)
				__builtin_prefetch(&c->m->spans[ix->order[j + 16]]);
			uint32_t id = ix->order[j];
			const gt_span *s = &c->m->spans[id];
			if (!gt_span_meets(s, q))
				continue;
			w->spans++;
			struct slots *L = lane_slots(c, w->lanes, s->lane);
			if (!L) {
				w->oom = true;
				return NULL;
			}
			int64_t s0, e0;
			clip(c, s, &s0, &e0);
			uint32_t cell = cell_of(c, s0);
			bool wide = c->narrow ? (uint64_t)(e0 - s0) * c->W >= (uint64_t)c->D
					      : ((__int128)e0 - s0) * c->W >= c->D;
			if (wide)
				add_box(c->m, L, cell, id);
			else
				add_density(c->m, L, cell, id, 1);
		}
	}
	return NULL;
}

/* Folds a worker's slots into the result's. */
static int merge(struct ctx *c, struct slots **from)
{
	for (uint32_t l = 0; l < c->nlanes; l++) {
		struct slots *F = from[l];
		if (!F)
			continue;
		struct slots *L = lane_slots(c, c->lanes, c->lane0 + l);
		if (!L)
			return -1;
		for (uint32_t x = 0; x < c->W; x++) {
			if (F->count[x])
				add_density(c->m, L, x, F->rep[x], F->count[x]);
			if (F->box[x] != GT_NONE)
				add_box(c->m, L, x, F->box[x]);
		}
	}
	return 0;
}

#define MAX_WORKERS 16
#define WORKER_SPANS (1u << 20)        /* at least this many spans a worker */
#define WORKER_BYTES ((size_t)256 << 20) /* private slots for all workers */

/* Classifies every span of the candidates that meets the viewport, in
 * parallel over contiguous candidate ranges when there are many spans. */
static int collect_all(struct ctx *c, const gt_tindex *ix, const uint32_t *cand, uint64_t ncand,
		       gt_render_stats *st, gt_error *err)
{
	uint64_t total = 0;
	for (uint64_t k = 0; k < ncand; k++)
		total += ix->batches[cand[k]].count;
	size_t per = (size_t)c->nlanes * c->W * 3 * sizeof(uint32_t) + 1;
	uint64_t n = gt_thread_count(c->o->threads, MAX_WORKERS);
	uint64_t min_spans = c->o->worker_spans ? c->o->worker_spans : WORKER_SPANS;
	if (n > total / min_spans)
		n = total / min_spans;
	if (n > WORKER_BYTES / per)
		n = WORKER_BYTES / per;
	if (n < 2) {
		struct worker w = {.c = c, .ix = ix, .cand = cand, .from = 0, .to = ncand, .lanes = c->lanes};
		collect(&w);
		st->spans = w.spans;
		return w.oom ? gt_fail(err, GT_EINPUT, "out of memory rendering") : 0;
	}
	struct worker w[MAX_WORKERS];
	uint64_t k = 0, acc = 0;
	int rc = 0;
	for (uint64_t i = 0; i < n; i++) {
		/* ranges of about total / n spans each */
		uint64_t from = k, goal = total * (i + 1) / n;
		while (k < ncand && (acc < goal || i + 1 == n))
			acc += ix->batches[cand[k++]].count;
		w[i] = (struct worker){.c = c, .ix = ix, .cand = cand, .from = from, .to = k};
		w[i].lanes = calloc(c->nlanes ? c->nlanes : 1, sizeof *w[i].lanes);
	}
	gt_run_jobs(collect, w, sizeof *w, (unsigned)n);
	for (uint64_t i = 0; i < n; i++) {
		st->spans += w[i].spans;
		if (w[i].oom || (rc == 0 && merge(c, w[i].lanes) < 0))
			rc = -1;
		free_lanes(w[i].lanes, c->nlanes);
	}
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory rendering") : 0;
}

/* XML text: escapes markup characters and drops characters XML 1.0 does
 * not allow; at most max code points (then an ellipsis). */
static void put_text(FILE *f, const char *s, size_t max)
{
	size_t cps = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) != 0x80 && cps++ == max) {
			fputs("\u2026", f);
			return;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (*p < 0x20 && *p != '\t')
				fputc(' ', f);
			else
				fputc(*p, f);
		}
	}
}

static size_t codepoints(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

/* Exact decimal of v / unit with trailing zeros trimmed, e.g. "1.25". */
static void put_scaled(FILE *f, __int128 v, int64_t unit)
{
	if (v < 0) {
		fputc('-', f);
		v = -v;
	}
	fprintf(f, "%" PRId64, (int64_t)(v / unit));
	int64_t r = (int64_t)(v % unit);
	if (!r)
		return;
	char digits[24];
	int n = 0;
	for (int64_t u = unit / 10; u >= 1 && r; u /= 10) {
		digits[n++] = (char)('0' + r / u);
		r %= u;
	}
	fprintf(f, ".%.*s", n, digits);
}

static const struct {
	int64_t ns;
	const char *name;
} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};

static void put_duration(FILE *f, int64_t ns)
{
	int k = 0;
	while (units[k].ns > 1 && (ns < 0 ? -ns : ns) < units[k].ns)
		k++;
	put_scaled(f, ns, units[k].ns);
	fputs(units[k].name, f);
}

/* A pid or tid as a label: "pid 12", or the string itself ("stream 7"). */
static void put_id(FILE *f, const gt_model *m, const char *what, const gt_id *id)
{
	const char *s = id->is_str ? gt_model_str(m, id->str) : NULL;
	if (s && *s)
		put_text(f, s, 18);
	else if (s)
		fprintf(f, "%s \"\"", what);
	else
		fprintf(f, "%s %" PRId64, what, id->num);
}

static bool has_text(const gt_model *m, uint32_t id)
{
	return id != GT_NONE && *gt_model_str(m, id);
}

/* "PROCESS / THREAD": the process's name and process_labels ("python GPU 0"),
 * else pid N; the thread's name, else tid N (async tracks: "async"). Neither
 * side is ever empty. */
static void put_lane_label(FILE *f, const gt_model *m, const gt_track *t)
{
	const gt_process *p = &m->processes[t->process];
	bool name = has_text(m, p->name), labels = has_text(m, p->labels);
	if (name)
		put_text(f, gt_model_str(m, p->name), 18);
	if (labels) {
		if (name)
			fputc(' ', f);
		put_text(f, gt_model_str(m, p->labels), 18);
	}
	if (!name && !labels)
		put_id(f, m, "pid", &p->pid);
	fputs(" / ", f);
	if (has_text(m, t->name))
		put_text(f, gt_model_str(m, t->name), 18);
	else if (t->kind == GT_TRACK_THREAD)
		put_id(f, m, "tid", &t->tid);
	else
		fputs(t->kind == GT_TRACK_ASYNC ? "async" : t->async_scope ? "global instants" : "instants", f);
}

static const char *group_name(const gt_model *m, uint32_t g)
{
	return g < m->group_count ? gt_model_str(m, m->groups[g].name) : "";
}

static const char *colour(const gt_model *m, uint32_t group)
{
	return gt_category_colour(group_name(m, group));
}

static void put_span_title(FILE *f, const gt_model *m, uint32_t id)
{
	const gt_span *s = &m->spans[id];
	fputs("<title>", f);
	put_text(f, gt_model_str(m, s->name), 200);
	fputs(" (", f);
	put_text(f, gt_model_str(m, s->cat), 60);
	fputs(") ", f);
	put_duration(f, s->dur_ns);
	fputs(" at +", f);
	put_duration(f, s->ts_ns - m->start_ns);
	fprintf(f, ", span %u</title>", id);
}

/* Legend items, wrapped to the picture's width; returns the lines used. */
static int legend(struct ctx *c, double width, bool draw, double y0)
{
	double x = 10;
	int line = 0;
	for (uint32_t g = 0; g < c->m->group_count; g++) {
		if (!((c->o->q.groups >> g) & 1u))
			continue;
		const char *name = group_name(c->m, g);
		size_t n = codepoints(name);
		if (n > 24)
			n = 25;
		double w = 18 + n * CHAR_W + 14;
		if (x + w > width && x > 10) {
			x = 10;
			line++;
		}
		if (draw) {
			double y = y0 + line * 14;
			fprintf(c->out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"10\" fill=\"%s\" stroke=\"#555\" stroke-width=\"0.5\"/>",
				x, y, colour(c->m, g));
			fprintf(c->out, "<text x=\"%.2f\" y=\"%.2f\">", x + 16, y + 9);
			put_text(c->out, *name ? name : "(none)", 24);
			fputs("</text>\n", c->out);
		}
		x += w;
	}
	return line + 1;
}

static void axis(struct ctx *c, double y, double bottom)
{
	const gt_tquery *q = &c->o->q;
	__int128 r0 = (__int128)q->t0 - c->m->start_ns, r1 = (__int128)q->t1 - c->m->start_ns;
	/* the smallest 1-2-5 step at least 80 px apart */
	__int128 step = 1;
	static const int mult[3] = {1, 2, 5};
	for (int64_t p10 = 1;; p10 *= 10) {
		int k = 0;
		for (; k < 3; k++)
			if ((__int128)p10 * mult[k] * c->W >= c->D * 80)
				break;
		if (k < 3) {
			step = (__int128)p10 * mult[k];
			break;
		}
		if (p10 > INT64_MAX / 100) {
			step = c->D;
			break;
		}
	}
	__int128 mag = r1 < 0 ? -r1 : r1;
	if ((r0 < 0 ? -r0 : r0) > mag)
		mag = r0 < 0 ? -r0 : r0;
	int u = 0;
	while (units[u].ns > 1 && ((__int128)units[u].ns > mag || (__int128)units[u].ns > step * 1000))
		u++;
	fprintf(c->out, "<g class=\"axis\" font-size=\"10\" fill=\"#333\">\n");
	fprintf(c->out, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%u\" y2=\"%.2f\" stroke=\"#333\"/>\n", LABEL_W, y,
		LABEL_W + c->W, y);
	__int128 first = r0 >= 0 ? (r0 + step - 1) / step * step : -((-r0) / step * step);
	for (__int128 r = first; r <= r1; r += step) {
		double x = x_of(c, r + c->m->start_ns);
		fprintf(c->out, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>", x,
			y - 4, x, y);
		fprintf(c->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000\" stroke-opacity=\"0.08\"/>",
			x, y, x, bottom);
		fprintf(c->out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", x, y - 6);
		put_scaled(c->out, r, units[u].ns);
		fprintf(c->out, "%s</text>\n", units[u].name);
	}
	fputs("</g>\n", c->out);
}

static void draw_boxes(struct ctx *c, const struct slots *L, uint32_t lane, gt_render_stats *st)
{
	FILE *f = c->out;
	for (uint32_t x = 0; x < c->W; x++) {
		uint32_t id = L->box[x];
		if (id == GT_NONE)
			continue;
		const gt_span *s = &c->m->spans[id];
		int64_t s0, e0;
		clip(c, s, &s0, &e0);
		double bx = x_of(c, s0), bw = x_of(c, e0) - bx;
		bool cp = c->on_path && (c->on_path[id >> 3] >> (id & 7) & 1);
		fprintf(f, "<rect class=\"span%s\" data-span-id=\"%u\" data-lane=\"%u\" x=\"%.2f\" y=\"%" PRId64
			   "\" width=\"%.2f\" height=\"%d\" fill=\"%s\">",
			cp ? " cp" : "", id, lane, bx, L->y + 1, bw, BOX_H, colour(c->m, s->group));
		put_span_title(f, c->m, id);
		fputs("</rect>\n", f);
		st->boxes++;
		st->path_spans += cp;
		const char *name = gt_model_str(c->m, s->name);
		size_t fit = bw > 8 ? (size_t)((bw - 4) / CHAR_W) : 0, n = codepoints(name);
		if (n == 0 || (n > fit && fit < 4))
			continue;
		fprintf(f, "<text x=\"%.2f\" y=\"%" PRId64 "\">", bx + 2, L->y + 12);
		put_text(f, name, n <= fit ? n : fit - 1);
		fputs("</text>\n", f);
		st->labels++;
	}
}

static void draw_density(struct ctx *c, const struct slots *L, uint32_t lane, uint32_t maxcount,
			 gt_render_stats *st)
{
	FILE *f = c->out;
	double lmax = log2(1.0 + maxcount);
	for (uint32_t x = 0; x < c->W; x++) {
		uint32_t n = L->count[x];
		if (!n)
			continue;
		uint32_t rep = L->rep[x];
		double op = 0.35 + 0.65 * (lmax > 1 ? log2(1.0 + n) / lmax : 1.0);
		fprintf(f, "<rect class=\"density\" data-lane=\"%u\" data-cell=\"%u\" data-density=\"%u\" data-span-id=\"%u\""
			   " x=\"%u\" y=\"%" PRId64 "\" width=\"1\" height=\"%d\" fill=\"%s\" fill-opacity=\"%.2f\">",
			lane, x, n, rep, LABEL_W + x, L->y + 1, BOX_H, colour(c->m, c->m->spans[rep].group), op);
		fprintf(f, "<title>%u span%s, longest: ", n, n == 1 ? "" : "s");
		put_text(f, gt_model_str(c->m, c->m->spans[rep].name), 200);
		fputs(" ", f);
		put_duration(f, c->m->spans[rep].dur_ns);
		fputs("</title></rect>\n", f);
		st->density_cells++;
	}
}

/* The drawn row of a span's lane, or NULL when its lane has no row. */
static const struct slots *row_of(const struct ctx *c, uint32_t span)
{
	if (span >= c->m->span_count)
		return NULL;
	uint32_t lane = c->m->spans[span].lane;
	if (lane < c->lane0 || lane - c->lane0 >= c->nlanes)
		return NULL;
	return c->lanes[lane - c->lane0];
}

/* A hop as the picture sees it: the pixel cells of its ends, clipped to
 * the window, and the lanes of its rows (a work hop: its owner's). */
struct hop_seg {
	uint8_t kind;
	uint32_t xa, xb, la, lb;
	uint32_t first, count; /* hops drawn by this element */
};

static bool hop_seg(const struct ctx *c, const gt_causal_hop *h, struct hop_seg *s)
{
	bool work = h->kind == GT_CAUSAL_WORK && h->owner != GT_NONE;
	uint32_t sa = work ? h->owner : h->from.span, sb = work ? h->owner : h->to.span;
	if (!row_of(c, sa) || !row_of(c, sb))
		return false;
	int64_t a = h->from.ts_ns > c->o->q.t0 ? h->from.ts_ns : c->o->q.t0;
	int64_t b = h->to.ts_ns < c->o->q.t1 ? h->to.ts_ns : c->o->q.t1;
	*s = (struct hop_seg){.kind = h->kind, .xa = cell_of(c, a), .xb = cell_of(c, b),
			      .la = c->m->spans[sa].lane, .lb = c->m->spans[sb].lane, .count = 1};
	return true;
}

/* Folds a hop into the elements drawn so far: it extends a run of work (or
 * idle) along one row, or repeats an element of its own pixel column, or is
 * a new element. So the path costs a few elements per pixel column, not one
 * per hop. Returns false when out of memory. */
enum { COLUMN_LOOKBACK = 64 };
static bool fold_hop(struct hop_seg **el, uint32_t *n, uint32_t *cap, const struct hop_seg *s)
{
	struct hop_seg *last = *n ? &(*el)[*n - 1] : NULL;
	if (last && s->la == s->lb && last->la == last->lb && last->la == s->la && last->kind == s->kind &&
	    last->xb == s->xa) {
		if (s->xb > last->xb)
			last->xb = s->xb;
		last->count++;
		return true;
	}
	for (uint32_t k = *n, seen = 0; k-- > 0 && (*el)[k].xa == s->xa && seen < COLUMN_LOOKBACK; seen++) {
		struct hop_seg *e = &(*el)[k];
		if (e->kind == s->kind && e->xb == s->xb && e->la == s->la && e->lb == s->lb) {
			e->count++;
			return true;
		}
	}
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 256;
		struct hop_seg *g = realloc(*el, (size_t)nc * sizeof *g);
		if (!g)
			return false;
		*el = g, *cap = nc;
	}
	(*el)[(*n)++] = *s;
	return true;
}

static int draw_path(struct ctx *c, gt_render_stats *st, gt_error *err)
{
	const gt_render_opts *o = c->o;
	struct hop_seg *el = NULL, s;
	uint32_t n = 0, cap = 0;
	for (uint32_t i = 0; i < o->hop_count; i++) {
		const gt_causal_hop *h = &o->hops[i];
		if (h->to.ts_ns < o->q.t0 || h->from.ts_ns > o->q.t1)
			continue;
		if (!hop_seg(c, h, &s)) {
			st->path_hops_hidden++;
			continue;
		}
		s.first = i;
		if (!fold_hop(&el, &n, &cap, &s)) {
			free(el);
			return gt_fail(err, GT_EINPUT, "out of memory drawing the critical path");
		}
		st->path_hops++;
	}
	fputs("<g class=\"critical-path\" stroke-width=\"2.5\" stroke-opacity=\"0.9\" stroke-linecap=\"round\">\n",
	      c->out);
	for (uint32_t k = 0; k < n; k++) {
		const struct hop_seg *e = &el[k];
		bool flat = e->la == e->lb;
		double ya = (double)c->lanes[e->la - c->lane0]->y + ROW_H / 2.0;
		double yb = (double)c->lanes[e->lb - c->lane0]->y + ROW_H / 2.0;
		/* a run along a row covers its cells; a hop across rows joins their middles */
		double xa = LABEL_W + e->xa + (flat ? 0 : 0.5), xb = LABEL_W + e->xb + (flat ? 1 : 0.5);
		fprintf(c->out,
			"<line class=\"cp-hop\" data-kind=\"%s\" data-hop=\"%u\" data-hops=\"%u\" "
			"data-cells=\"%u %u\" data-lanes=\"%u %u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>\n",
			gt_causal_kind_names[e->kind], e->first, e->count, e->xa, e->xb, e->la, e->lb, xa, ya, xb, yb,
			gt_path_kind_colour(e->kind), e->kind == GT_CAUSAL_IDLE ? " stroke-dasharray=\"3 2\"" : "");
	}
	fputs("</g>\n", c->out);
	st->path_elements = n;
	free(el);
	return 0;
}

/* The bottom-left corner: the path's length, and per kind a swatch of its
 * stroke with the kind's time and share of the path (the whole path's hops,
 * not only those in the window). */
static void path_legend(struct ctx *c, double y)
{
	int64_t by_kind[GT_CAUSAL_KIND_COUNT] = {0}, total = 0;
	for (uint32_t i = 0; i < c->o->hop_count; i++) {
		const gt_causal_hop *h = &c->o->hops[i];
		if (h->kind < GT_CAUSAL_KIND_COUNT && !__builtin_add_overflow(total, h->duration_ns, &total))
			by_kind[h->kind] += h->duration_ns;
	}
	fprintf(c->out, "<g class=\"cp-legend\"><text x=\"10\" y=\"%.0f\" font-weight=\"bold\">critical path ", y + 9);
	put_duration(c->out, total);
	fputs("</text>\n", c->out);
	double x = 190; /* past the bold title with the longest duration */
	for (int k = 0; k < GT_CAUSAL_KIND_COUNT; k++) {
		if (!by_kind[k] && k != GT_CAUSAL_WORK)
			continue;
		fprintf(c->out,
			"<line class=\"cp-key\" data-kind=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2.5\"%s/>",
			gt_causal_kind_names[k], x, y + 5, x + 18, y + 5, gt_path_kind_colour(k),
			k == GT_CAUSAL_IDLE ? " stroke-dasharray=\"3 2\"" : "");
		fprintf(c->out, "<text class=\"cp-share\" data-kind=\"%s\" data-ns=\"%" PRId64 "\" x=\"%.1f\" y=\"%.0f\">%s ",
			gt_causal_kind_names[k], by_kind[k], x + 22, y + 9, gt_causal_kind_names[k]);
		put_duration(c->out, by_kind[k]);
		fprintf(c->out, " (%.1f%%)</text>\n", total > 0 ? 100.0 * (double)by_kind[k] / (double)total : 0.0);
		x += 170;
	}
	fputs("</g>\n", c->out);
}

static void mark_on_path(uint8_t *bits, uint32_t span, uint32_t n)
{
	if (span < n)
		bits[span >> 3] |= (uint8_t)(1u << (span & 7));
}

int gt_render_svg(FILE *out, const gt_model *m, const gt_tindex *ix, const uint32_t *cand, uint64_t ncand,
		  const gt_render_opts *o, gt_render_stats *st, gt_error *err)
{
	memset(st, 0, sizeof *st);
	if (o->width < 1)
		return gt_fail(err, GT_EUSAGE, "the width must be at least 1 pixel");
	if (o->q.t1 < o->q.t0)
		return gt_fail(err, GT_EUSAGE, "the time window ends before it starts");
	struct ctx c = {.out = out, .m = m, .o = o, .W = o->width};
	c.D = (__int128)o->q.t1 - o->q.t0 + 1;
	c.narrow = c.D * c.W < ((__int128)1 << 63);
	c.lane0 = o->q.lane0 < m->lane_count ? o->q.lane0 : m->lane_count;
	uint32_t lane1 = o->q.lane1 < m->lane_count ? o->q.lane1 : m->lane_count;
	c.nlanes = lane1 > c.lane0 ? lane1 - c.lane0 : 0;
	c.lanes = calloc(c.nlanes ? c.nlanes : 1, sizeof *c.lanes);
	uint32_t *lane_track = malloc((m->lane_count ? m->lane_count : 1) * sizeof *lane_track);
	int rc = 0;
	if (!c.lanes || !lane_track)
		rc = gt_fail(err, GT_EINPUT, "out of memory rendering");
	if (rc == 0 && o->hops) {
		c.on_path = calloc((size_t)m->span_count / 8 + 1, 1);
		if (!c.on_path)
			rc = gt_fail(err, GT_EINPUT, "out of memory rendering");
		for (uint32_t i = 0; c.on_path && i < o->hop_count; i++) {
			mark_on_path(c.on_path, o->hops[i].from.span, m->span_count);
			mark_on_path(c.on_path, o->hops[i].to.span, m->span_count);
		}
	}
	if (rc == 0)
		rc = collect_all(&c, ix, cand, ncand, st, err);
	if (rc == 0) {
		for (uint32_t t = 0; t < m->track_count; t++)
			for (uint32_t l = 0; l < m->tracks[t].lane_count; l++)
				if (m->tracks[t].lane_base + l < m->lane_count)
					lane_track[m->tracks[t].lane_base + l] = t;
		double total_w = LABEL_W + c.W + PAD_R;
		int legend_lines = legend(&c, total_w, false, 0);
		double axis_y = 30 + legend_lines * 14 + 18;
		double y = axis_y + 6;
		uint32_t maxcount = 0;
		for (uint32_t l = 0; l < c.nlanes; l++) {
			struct slots *L = c.lanes[l];
			if (!L)
				continue;
			L->y = (int64_t)y;
			y += ROW_H;
			st->rows++;
			for (uint32_t x = 0; x < c.W; x++)
				if (L->count[x] > maxcount)
					maxcount = L->count[x];
		}
		double height = y + 24 + (o->hops ? 20 : 0);
		fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
			     "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"10\">\n",
			total_w, height, total_w, height);
		fputs("<title>", out);
		put_text(out, o->title ? o->title : "gputrace render", 400);
		fputs("</title>\n<style>.span{stroke:#000;stroke-opacity:.35;stroke-width:.5}"
		      ".span.cp{stroke:" GT_PATH_COLOUR ";stroke-opacity:1;stroke-width:2}text{fill:#111}</style>\n",
		      out);
		fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
		fprintf(out, "<text x=\"10\" y=\"18\" font-size=\"12\" font-weight=\"bold\">");
		put_text(out, o->title ? o->title : "gputrace render", 160);
		fputs("</text>\n<g class=\"legend\">\n", out);
		legend(&c, total_w, true, 28);
		fputs("</g>\n", out);
		axis(&c, axis_y, y);
		/* lane rows: labels, a band per track */
		fputs("<g class=\"lanes\">\n", out);
		uint32_t prev_track = GT_NONE, band = 0;
		for (uint32_t l = 0; l < c.nlanes; l++) {
			const struct slots *L = c.lanes[l];
			if (!L)
				continue;
			uint32_t t = lane_track[c.lane0 + l];
			if (t != prev_track)
				band++;
			fprintf(out, "<rect x=\"0\" y=\"%" PRId64 "\" width=\"%.0f\" height=\"%d\" fill=\"%s\"/>", L->y,
				total_w, ROW_H, band % 2 ? "#f4f4f4" : "#ffffff");
			if (t != prev_track) {
				fprintf(out, "<text class=\"lane-label\" data-lane=\"%u\" x=\"6\" y=\"%" PRId64 "\">",
					c.lane0 + l, L->y + 12);
				put_lane_label(out, m, &m->tracks[t]);
				fputs("</text>", out);
			}
			fputc('\n', out);
			prev_track = t;
		}
		fputs("</g>\n<g class=\"density-cells\">\n", out);
		for (uint32_t l = 0; l < c.nlanes; l++)
			if (c.lanes[l])
				draw_density(&c, c.lanes[l], c.lane0 + l, maxcount, st);
		fputs("</g>\n<g class=\"spans\">\n", out);
		for (uint32_t l = 0; l < c.nlanes; l++)
			if (c.lanes[l])
				draw_boxes(&c, c.lanes[l], c.lane0 + l, st);
		fputs("</g>\n", out);
		if (o->hops && (rc = draw_path(&c, st, err)) == 0)
			path_legend(&c, y + 24);
		fprintf(out, "<text x=\"10\" y=\"%.0f\" fill=\"#555\">%" PRIu64 " spans: %" PRIu64 " boxes, %" PRIu64
			     " density cells; %u lanes</text>\n",
			y + 16, st->spans, st->boxes, st->density_cells, st->rows);
		fputs("</svg>\n", out);
	}
	free_lanes(c.lanes, c.nlanes);
	free(lane_track);
	free(c.on_path);
	return rc;
}
