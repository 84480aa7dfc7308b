/* The critical-path overlay (see overlay.h): the span annotations are
 * gathered from the result first (two values a span), then the trace is
 * streamed through trace_copy with a hook that adds them to each span's
 * opening event, and the path's flows and track are appended. */
#include "overlay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_copy.h"
#include "write/write.h"

#define NO_FLOAT INT64_MIN

typedef struct overlay {
	const gt_model *m;
	const gt_causal_result *r;
	int64_t *float_ns; /* per span, NO_FLOAT when none */
	uint8_t *on_path;  /* per span */
	uint32_t *by_track; /* span ids by (track, start, -dur, id) */
	uint32_t *first;    /* track t's: by_track[first[t] .. first[t + 1]) */
	uint32_t cursor;   /* the first span whose opening event is not yet copied */
	int64_t pid;       /* the critical-path process */
	uint64_t flow_id;  /* the last cross-track hop's flow id (drawn or not) */
	gt_overlay_stats *st;
	char buf[512];
} overlay;

static int put(gt_zsink *z, const char *s, gt_error *err)
{
	return gt_zsink_puts(z, s, err);
}

/* Exact microseconds of ns: "-12.345". */
static void us_text(char *out, size_t cap, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(out, cap, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

/* A flow point's time: us_text, without the fraction when it is 0, so
 * that readers that parse integers exactly (Perfetto: ns = µs * 1000) do
 * so. */
static void point_text(char *out, size_t cap, int64_t ns)
{
	if (ns % 1000 == 0)
		snprintf(out, cap, "%" PRId64, ns / 1000);
	else
		us_text(out, cap, ns);
}

/* The contents of s in a JSON string: escapes, invalid UTF-8 as U+FFFD. */
static int put_json_chars(gt_zsink *z, const char *s, gt_error *err)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		char esc[8];
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			if (gt_zsink_write(z, esc, 2, err) < 0)
				return -1;
			p++;
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			if (gt_zsink_write(z, esc, 6, err) < 0)
				return -1;
			p++;
		} else {
			int k = gt_utf8_next(p);
			if (k > 0 ? gt_zsink_write(z, p, (size_t)k, err) < 0 : put(z, "\xef\xbf\xbd", err) < 0)
				return -1;
			p += k > 0 ? k : -k;
		}
	}
	return 0;
}

/* "prefix" + s as one JSON string, whatever its length. */
static int put_json_str2(gt_zsink *z, const char *prefix, const char *s, gt_error *err)
{
	return put(z, "\"", err) < 0 || put_json_chars(z, prefix, err) < 0 || put_json_chars(z, s, err) < 0 ||
			       put(z, "\"", err) < 0
		       ? -1
		       : 0;
}

static int put_json_str(gt_zsink *z, const char *s, gt_error *err)
{
	return put_json_str2(z, "", s, err);
}

static int put_id(gt_zsink *z, const gt_model *m, const gt_id *id, gt_error *err)
{
	if (id->is_str)
		return put_json_str(z, gt_model_str(m, id->str), err);
	char t[32];
	snprintf(t, sizeof t, "%" PRId64, id->num);
	return put(z, t, err);
}

/* "pid":P,"tid":T of a span's track. */
static int put_where(gt_zsink *z, const gt_model *m, uint32_t span, gt_error *err)
{
	const gt_track *t = &m->tracks[m->spans[span].track];
	return put(z, "\"pid\":", err) < 0 || put_id(z, m, &m->processes[t->process].pid, err) < 0 ||
			       put(z, ",\"tid\":", err) < 0 || put_id(z, m, &t->tid, err) < 0
		       ? -1
		       : 0;
}

/* The annotation members of span s, without braces; "" when none. */
static void annotation(const overlay *o, uint32_t s, char *out, size_t cap)
{
	char us[40];
	out[0] = '\0';
	if (o->float_ns[s] == NO_FLOAT)
		return;
	us_text(us, sizeof us, o->float_ns[s]);
	snprintf(out, cap, "%s\"float_us\":%s", o->on_path[s] ? "\"critical_path\":1," : "", us);
}

static int on_event(void *ctx, uint64_t index, const char *ev, size_t len, long args_at, gt_zsink *z,
		    gt_error *err)
{
	overlay *o = ctx;
	const gt_model *m = o->m;
	o->st->events = index + 1;
	while (o->cursor < m->span_count && m->spans[o->cursor].event < index)
		o->cursor++;
	char add[128];
	add[0] = '\0';
	if (o->cursor < m->span_count && m->spans[o->cursor].event == index)
		annotation(o, o->cursor, add, sizeof add);
	if (!add[0])
		return gt_zsink_write(z, ev, len, err);
	if (args_at == GT_COPY_ARGS_NOT_OBJECT) {
		o->st->args_not_object++;
		return gt_zsink_write(z, ev, len, err);
	}
	o->st->floats++;
	o->st->marked += o->on_path[o->cursor];
	if (args_at == GT_COPY_NO_ARGS) /* ev ends with '}' and has members */
		return gt_zsink_write(z, ev, len - 1, err) < 0 || put(z, ",\"args\":{", err) < 0 ||
				       put(z, add, err) < 0 || put(z, "}}", err) < 0
			       ? -1
			       : 0;
	size_t at = (size_t)args_at;
	return gt_zsink_write(z, ev, at, err) < 0 || put(z, add, err) < 0 ||
			       (ev[at] != '}' && put(z, ",", err) < 0) || gt_zsink_write(z, ev + at, len - at, err) < 0
		       ? -1
		       : 0;
}

static uint64_t uabs(int64_t v)
{
	return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* The margin a flow point keeps from the ends of its part of a span (see
 * overlay.h): 2^(bits - 50) ns, at least 1 ns, bits the bit length of the
 * larger of |start| and |end| in ns. Doubles there, in ns, µs or ms alike,
 * lie less than 2^(bits - 52) ns apart, so the margin is over 4 of their
 * steps; a viewer's rounding (the µs parsed, times 0.001, end = start +
 * dur) moves a point or an end by under 3. */
static int64_t margin_ns(const gt_span *s)
{
	uint64_t a = uabs(s->ts_ns), e = uabs(s->ts_ns + s->dur_ns), big = a > e ? a : e;
	int bits = big ? 64 - __builtin_clzll(big) : 0;
	return bits > 50 ? INT64_C(1) << (bits - 50) : 1;
}

/* The order nesting uses (ingest/builder_finish.c): a parent before the
 * spans it holds. */
static int cmp_start(const void *x, const void *y, void *ctx)
{
	const gt_span *sp = ctx;
	const gt_span *a = &sp[*(const uint32_t *)x], *b = &sp[*(const uint32_t *)y];
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	if (a->dur_ns != b->dur_ns)
		return a->dur_ns > b->dur_ns ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Per-track span lists in nesting order, for the spans a flow point's span
 * shares its time with. */
static int index_tracks(overlay *o)
{
	const gt_model *m = o->m;
	o->by_track = gt_fault_hit("alloc") ? NULL : malloc(((size_t)m->span_count + 1) * sizeof *o->by_track);
	o->first = calloc((size_t)m->track_count + 2, sizeof *o->first);
	if (!o->by_track || !o->first)
		return -1;
	for (uint32_t i = 0; i < m->span_count; i++)
		o->first[m->spans[i].track + 2]++;
	for (uint32_t t = 0; t < m->track_count; t++)
		o->first[t + 2] += o->first[t + 1];
	for (uint32_t i = 0; i < m->span_count; i++) /* first[t + 1] is where track t fills */
		o->by_track[o->first[m->spans[i].track + 1]++] = i;
	for (uint32_t t = 0; t < m->track_count; t++)
		qsort_r(o->by_track + o->first[t], o->first[t + 1] - o->first[t], sizeof *o->by_track, cmp_start,
			(void *)m->spans);
	return 0;
}

static bool is_ancestor(const gt_model *m, uint32_t a, uint32_t s)
{
	for (uint32_t p = m->spans[s].parent; p != GT_NONE; p = m->spans[p].parent)
		if (p == a)
			return true;
	return false;
}

/* t moved into [a + k, b - k]; the middle of [a, b] when that is shorter
 * than 2k. */
static int64_t clamp_into(int64_t t, int64_t a, int64_t b, int64_t k)
{
	if (b - a < 2 * k)
		return a + (b - a) / 2;
	return t < a + k ? a + k : t > b - k ? b - k : t;
}

/* Whether x, on s's track and starting within s, takes a viewer's point
 * from s: all do but s's ancestors and the instants a viewer puts on a
 * process or global track. */
static bool takes_points(const gt_model *m, uint32_t x, uint32_t s)
{
	const gt_span *sx = &m->spans[x];
	if (x == s || (sx->kind == GT_SPAN_INSTANT && (sx->scope == 'g' || sx->scope == 'p')))
		return false;
	return sx->ts_ns != m->spans[s].ts_ns || !is_ancestor(m, x, s);
}

/* The start of the first span of s's track, after s in nesting order, that
 * starts within s and takes points from it; s's end when none does. */
static int64_t first_taker(const overlay *o, uint32_t s)
{
	const gt_model *m = o->m;
	const gt_span *sp = &m->spans[s];
	const uint32_t *ids = o->by_track + o->first[sp->track];
	uint32_t n = o->first[sp->track + 1] - o->first[sp->track], lo = 0, hi = n;
	while (lo < hi) { /* the first span starting at or after s */
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->spans[ids[mid]].ts_ns < sp->ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t end = sp->ts_ns + sp->dur_ns;
	for (uint32_t i = lo; i < n && m->spans[ids[i]].ts_ns <= end; i++)
		if (takes_points(m, ids[i], s))
			return m->spans[ids[i]].ts_ns;
	return end;
}

/* Where a flow point at t on span s goes, so that viewers bind it to s
 * (see overlay.h): into the part of s before anything else on its track
 * begins, a margin from its ends; into all of s when something begins
 * with s. */
static int64_t flow_time(const overlay *o, uint32_t s, int64_t t)
{
	const gt_span *sp = &o->m->spans[s];
	int64_t b = first_taker(o, s);
	return clamp_into(t, sp->ts_ns, b > sp->ts_ns ? b : sp->ts_ns + sp->dur_ns, margin_ns(sp));
}

static int put_sep(gt_zsink *z, bool *comma, gt_error *err)
{
	int rc = *comma ? put(z, ",", err) : 0;
	*comma = true;
	return rc;
}

/* A process_name or thread_name event naming it prefix + name. */
static int put_meta(overlay *o, bool *comma, const char *what, int64_t tid, const char *prefix, const char *name,
		    gt_zsink *z, gt_error *err)
{
	snprintf(o->buf, sizeof o->buf, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		 ",\"args\":{\"name\":", what, o->pid, tid);
	return put_sep(z, comma, err) < 0 || put(z, o->buf, err) < 0 || put_json_str2(z, prefix, name, err) < 0 ||
			       put(z, "}}", err) < 0
		       ? -1
		       : 0;
}

/* Hop slices are drawn at least this long: catapult nests a slice in the
 * one before it when its end rounds to the same microsecond, so shorter
 * hops share a slice with their neighbours (see overlay.h). */
#define MIN_SLICE_NS 1000

static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The end of the group of hops from i: hops until the group is
 * MIN_SLICE_NS long, and all the rest when the rest would be shorter. */
static uint32_t group_end(const gt_causal_window *win, uint32_t i, int64_t *dur)
{
	int64_t d = 0, rest = 0;
	uint32_t j = i;
	while (j < win->hop_count && d < MIN_SLICE_NS)
		d = add_sat(d, win->hops[j++].duration_ns);
	for (uint32_t k = j; k < win->hop_count && rest < MIN_SLICE_NS; k++)
		rest = add_sat(rest, win->hops[k].duration_ns);
	if (rest < MIN_SLICE_NS)
		for (; j < win->hop_count; j++)
			d = add_sat(d, win->hops[j].duration_ns);
	*dur = d;
	return j;
}

/* The X slice of hops [i, j) of window w, dur long: named by its longest
 * hop (the first of equal ones), with hops: N when there are several. */
static int put_hop(overlay *o, bool *comma, uint32_t w, uint32_t i, uint32_t j, int64_t d, gt_zsink *z,
		   gt_error *err)
{
	const gt_model *m = o->m;
	const gt_causal_hop *hops = o->r->windows[w].hops, *h = &hops[i];
	for (uint32_t k = i + 1; k < j; k++)
		if (hops[k].duration_ns > h->duration_ns)
			h = &hops[k];
	char ts[40], dur[40], kind[24], many[32] = "";
	us_text(ts, sizeof ts, hops[i].from.ts_ns);
	us_text(dur, sizeof dur, d);
	if (j - i > 1)
		snprintf(many, sizeof many, ",\"hops\":%" PRIu32, j - i);
	snprintf(kind, sizeof kind, "%s%s", gt_causal_kind_names[h->kind], h->owner != GT_NONE ? " " : "");
	snprintf(o->buf, sizeof o->buf, "{\"ph\":\"X\",\"cat\":\"critical_path\",\"pid\":%" PRId64 ",\"tid\":%" PRIu32
		 ",\"ts\":%s,\"dur\":%s,\"name\":", o->pid, w + 1, ts, dur);
	if (put_sep(z, comma, err) < 0 || put(z, o->buf, err) < 0 ||
	    put_json_str2(z, kind, h->owner != GT_NONE ? gt_model_str(m, m->spans[h->owner].name) : "", err) < 0)
		return -1;
	if (h->owner != GT_NONE)
		snprintf(o->buf, sizeof o->buf, ",\"args\":{\"kind\":\"%s\",\"owner\":%" PRIu32 ",\"window\":%" PRIu32 "%s}}",
			 gt_causal_kind_names[h->kind], h->owner, w, many);
	else
		snprintf(o->buf, sizeof o->buf, ",\"args\":{\"kind\":\"%s\",\"window\":%" PRIu32 "%s}}",
			 gt_causal_kind_names[h->kind], w, many);
	o->st->hop_slices++;
	return put(z, o->buf, err);
}

/* The v1 flow pair along a hop whose ends lie on different tracks. Where
 * its points would come out of time order (the to span's own part ends
 * before the from span's: a hand-back into a span whose children came
 * first), the earliest s and the latest f; where even those are out of
 * order no viewer could draw it, and it is counted instead (ids stay one
 * per cross-track hop). */
static int put_flow(overlay *o, bool *comma, const gt_causal_hop *h, gt_zsink *z, gt_error *err)
{
	const gt_model *m = o->m;
	if (m->spans[h->from.span].track == m->spans[h->to.span].track)
		return 0;
	uint64_t id = ++o->flow_id;
	int64_t t_s = flow_time(o, h->from.span, h->from.ts_ns), t_f = flow_time(o, h->to.span, h->to.ts_ns);
	if (t_f < t_s) {
		t_s = flow_time(o, h->from.span, INT64_MIN);
		t_f = flow_time(o, h->to.span, INT64_MAX);
	}
	if (t_f < t_s) {
		o->st->flows_not_drawn++;
		return 0;
	}
	o->st->flows++;
	char ts[40];
	point_text(ts, sizeof ts, t_s);
	snprintf(o->buf, sizeof o->buf, "{\"ph\":\"s\",\"cat\":\"critical_path\",\"name\":\"critical path\",\"id\":%" PRIu64
		 ",\"ts\":%s,", id, ts);
	if (put_sep(z, comma, err) < 0 || put(z, o->buf, err) < 0 || put_where(z, m, h->from.span, err) < 0 ||
	    put(z, "}", err) < 0)
		return -1;
	point_text(ts, sizeof ts, t_f);
	snprintf(o->buf, sizeof o->buf, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"critical_path\",\"name\":\"critical path\",\"id\":%"
		 PRIu64 ",\"ts\":%s,", id, ts);
	return put_sep(z, comma, err) < 0 || put(z, o->buf, err) < 0 || put_where(z, m, h->to.span, err) < 0 ||
			       put(z, "}", err) < 0
		       ? -1
		       : 0;
}

static int on_append(void *ctx, bool *comma, gt_zsink *z, gt_error *err)
{
	overlay *o = ctx;
	const gt_causal_result *r = o->r;
	if (put_meta(o, comma, "process_name", 0, "critical path", "", z, err) < 0)
		return -1;
	for (uint32_t w = 0; w < r->window_count; w++) {
		const gt_causal_window *win = &r->windows[w];
		bool step = win->step_span != GT_NONE;
		if (put_meta(o, comma, "thread_name", (int64_t)w + 1, step ? "critical path: " : "critical path",
			     step ? gt_model_str(o->m, o->m->spans[win->step_span].name) : "", z, err) < 0)
			return -1;
		for (uint32_t i = 0, j; i < win->hop_count; i = j) {
			int64_t d;
			j = group_end(win, i, &d);
			if (put_hop(o, comma, w, i, j, d, z, err) < 0)
				return -1;
			for (uint32_t k = i; k < j; k++)
				if (put_flow(o, comma, &win->hops[k], z, err) < 0)
					return -1;
		}
	}
	return 0;
}

/* The largest numeric pid + 1: a process of its own, after the others. */
static int64_t free_pid(const gt_model *m)
{
	int64_t pid = 0;
	for (uint32_t i = 0; i < m->process_count; i++) {
		const gt_id *id = &m->processes[i].pid;
		if (!id->is_str && id->num >= pid && id->num < INT64_MAX)
			pid = id->num + 1;
	}
	return pid;
}

int gt_overlay_write(const gt_model *m, const gt_causal_result *r, const char *path, uint64_t max_expansion,
		     gt_zsink *z, gt_overlay_stats *st, gt_error *err)
{
	memset(st, 0, sizeof *st);
	overlay o = {.m = m, .r = r, .st = st, .pid = free_pid(m)};
	size_t n = m->span_count ? m->span_count : 1;
	o.float_ns = gt_fault_hit("alloc") ? NULL : malloc(n * sizeof *o.float_ns);
	o.on_path = calloc(n, 1);
	if (!o.float_ns || !o.on_path || index_tracks(&o) < 0) {
		free(o.float_ns);
		free(o.on_path);
		free(o.by_track);
		free(o.first);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	for (uint32_t s = 0; s < m->span_count; s++)
		o.float_ns[s] = NO_FLOAT;
	for (uint32_t w = 0; w < r->window_count; w++) {
		const gt_causal_window *win = &r->windows[w];
		for (uint32_t i = 0; i < win->row_count; i++) {
			const gt_causal_row *row = &win->rows[i];
			if (o.float_ns[row->span] != NO_FLOAT)
				continue;
			o.float_ns[row->span] = row->float_ns;
			o.on_path[row->span] = row->on_path;
		}
	}
	gt_trace_copy_hooks h = {.ctx = &o, .event = on_event, .append = on_append};
	uint64_t events = 0;
	int rc = gt_trace_copy(path, max_expansion, z, &h, &events, err);
	if (rc == 0 && events != m->stats.events)
		rc = gt_fail(err, GT_EINPUT, "%s: the file changed since it was read (%" PRIu64 " events, %" PRIu64 " before)",
			     path, events, m->stats.events);
	st->events = events;
	free(o.float_ns);
	free(o.on_path);
	free(o.by_track);
	free(o.first);
	return rc;
}
