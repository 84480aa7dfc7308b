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
	uint32_t cursor;   /* the first span whose opening event is not yet copied */
	int64_t pid;       /* the critical-path process */
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

/* A point's time moved into its span, so that a flow event binds there. */
static int64_t inside(const gt_model *m, const gt_causal_point *p)
{
	const gt_span *s = &m->spans[p->span];
	int64_t t = p->ts_ns;
	if (s->dur_ns > 0 && t >= s->ts_ns + s->dur_ns)
		t = s->ts_ns + s->dur_ns - 1;
	if (t < s->ts_ns)
		t = s->ts_ns;
	return t;
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

static int put_hop(overlay *o, bool *comma, uint32_t w, const gt_causal_hop *h, gt_zsink *z, gt_error *err)
{
	const gt_model *m = o->m;
	char ts[40], dur[40], kind[24];
	us_text(ts, sizeof ts, h->from.ts_ns);
	us_text(dur, sizeof dur, h->duration_ns);
	snprintf(kind, sizeof kind, "%s%s", gt_causal_kind_names[h->kind], h->owner != GT_NONE ? " " : "");
	snprintf(o->buf, sizeof o->buf, "{\"ph\":\"X\",\"cat\":\"critical_path\",\"pid\":%" PRId64 ",\"tid\":%" PRIu32
		 ",\"ts\":%s,\"dur\":%s,\"name\":", o->pid, w + 1, ts, dur);
	if (put_sep(z, comma, err) < 0 || put(z, o->buf, err) < 0 ||
	    put_json_str2(z, kind, h->owner != GT_NONE ? gt_model_str(m, m->spans[h->owner].name) : "", err) < 0)
		return -1;
	if (h->owner != GT_NONE)
		snprintf(o->buf, sizeof o->buf, ",\"args\":{\"kind\":\"%s\",\"owner\":%" PRIu32 ",\"window\":%" PRIu32 "}}",
			 gt_causal_kind_names[h->kind], h->owner, w);
	else
		snprintf(o->buf, sizeof o->buf, ",\"args\":{\"kind\":\"%s\",\"window\":%" PRIu32 "}}",
			 gt_causal_kind_names[h->kind], w);
	o->st->hop_slices++;
	return put(z, o->buf, err);
}

/* The v1 flow pair along a hop whose ends lie on different tracks. */
static int put_flow(overlay *o, bool *comma, const gt_causal_hop *h, gt_zsink *z, gt_error *err)
{
	const gt_model *m = o->m;
	if (m->spans[h->from.span].track == m->spans[h->to.span].track)
		return 0;
	uint64_t id = ++o->st->flows;
	char ts[40];
	us_text(ts, sizeof ts, inside(m, &h->from));
	snprintf(o->buf, sizeof o->buf, "{\"ph\":\"s\",\"cat\":\"critical_path\",\"name\":\"critical path\",\"id\":%" PRIu64
		 ",\"ts\":%s,", id, ts);
	if (put_sep(z, comma, err) < 0 || put(z, o->buf, err) < 0 || put_where(z, m, h->from.span, err) < 0 ||
	    put(z, "}", err) < 0)
		return -1;
	us_text(ts, sizeof ts, inside(m, &h->to));
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
		for (uint32_t i = 0; i < win->hop_count; i++)
			if (put_hop(o, comma, w, &win->hops[i], z, err) < 0 || put_flow(o, comma, &win->hops[i], z, err) < 0)
				return -1;
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
	if (!o.float_ns || !o.on_path) {
		free(o.float_ns);
		free(o.on_path);
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
	return rc;
}
