/* Streaming ingest: reads the decompressed trace through a window buffer,
 * walks the top-level structure, and parses the event array in parallel.
 *
 * Parallel parsing is speculative: the window is cut at points that look
 * like event boundaries ("}, {"); each piece is parsed by its own thread,
 * and a piece counts only if the piece before it ended exactly at its cut.
 * A wrong guess (a "}, {" inside a string or a nested value) costs a
 * re-parse, never a wrong result. Events then go to the model builder in
 * file order. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest.h"
#include "input.h"
#include "builder.h"
#include "local_names.h"
#include "simple_events.h"
#include "raw_event.h"
#include "resume.h"
#include "base/base.h"

#ifndef GT_FUZZING
#define WINDOW_MIN (8u << 20)
#define WINDOW_MAX ((size_t)1 << 30)
#define SPLIT_MIN (256u << 10) /* below this a window is parsed by one thread */
#define PIECE_BYTES (1u << 20)  /* a window is cut into pieces of about this size */
#else
/* fuzz builds: tiny windows so small inputs reach refills, window growth,
 * the size cap and the parallel split (fuzz/fuzz_trace.c) */
#define WINDOW_MIN 64u
#define WINDOW_MAX ((size_t)256 << 10)
#define SPLIT_MIN 64u
#define PIECE_BYTES 16u
#endif
#define MAX_THREADS 16
#define MAX_PIECES 64
/* The window with several threads: a piece per 1 MiB, up to MAX_PIECES. At
 * a window's end the workers wait while the builder catches up, and at its
 * start the builder waits for the first piece: a wide window does both
 * seldom (8 MiB windows left the builder waiting 1.1-1.3 s of a 6.7 s
 * ingest of 9 GB on 16 threads, the H200 machine's host). With the workers
 * kept from window to window, 256 MiB windows were 4% faster at 16 threads
 * on 10M spans (the H100 machine's host) and held 430 MB more of the
 * mapped file: 64 MiB. */
#define WINDOW_PARALLEL ((size_t)PIECE_BYTES * MAX_PIECES)
#define META_MAX (16u << 20)
/* a top-level string longer than this is not kept (nor held in the window) */
#define KEEP_STRING_MAX (META_MAX < WINDOW_MAX / 2 ? META_MAX : WINDOW_MAX / 2)

enum state {
	S_START,
	S_OBJ_KEY,       /* expecting a key (or '}') in the top-level object */
	S_OBJ_AFTER,     /* expecting ',' or '}' after a top-level value */
	S_EVENTS,        /* expecting an event or ']' */
	S_EVENTS_AFTER,  /* expecting ',' or ']' after an event (a resumed parse starts here) */
	S_SKIP_STRING,   /* inside a long top-level string value being skipped */
	S_DONE,
};

typedef struct piece {
	GT_JOB_ALIGNED const char *begin, *stop; /* parse from begin until the element start == stop */
	raw_event *evs;
	size_t n, cap;
	const char *end_pos; /* where parsing stopped (an element start) */
	int rc;              /* JL_OK (reached stop or ']'), JL_NEED_MORE, JL_ERROR */
	bool hit_close;      /* stopped at the array's ']' */
	bool after_comma;    /* the last thing consumed was a ',' (for trailing commas) */
	bool overshot;       /* passed its stop without landing on it */
	bool eof;            /* no bytes follow the window */
	jl_lexer lx;         /* its counts cover complete events only */
	local_names names;   /* the names and categories its events use */
	simple_events simple; /* its simple events, for the builder to build in bulk */
} piece;

/* The workers, started at the first window cut into pieces and kept to the
 * end: starting them at every window cost each window's end and start a
 * few milliseconds with fewer threads, and their stacks' mappings stalled
 * the others' page faults. They parse one window's pieces, each claimed by
 * whichever thread comes first, in order; then, with the builder, fill in
 * the stitched pieces' simple events. */
enum pool_phase { PARSE, FILL };

typedef struct piece_pool {
	piece *pieces;
	gt_builder *builder;
	int phase;
	unsigned count;             /* the pieces this phase works on */
	unsigned next;              /* the first piece nobody has claimed */
	bool done[MAX_PIECES];
	bool stop;                  /* the builder discarded the rest: claim no more */
	bool quit;                  /* the ingest is over */
	bool fill_failed;
	unsigned busy;              /* workers inside a claimed piece */
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a piece done, or busy fell */
	pthread_cond_t work;        /* a new phase, or quit */
	pthread_t tids[MAX_THREADS];
	unsigned workers;
	bool started;               /* the lock and conditions made, workers started */
} piece_pool;

typedef struct ingest {
	gt_input *in;
	const char *path;
	char *win;
	size_t win_cap, win_len;
	const char *map; /* mapped plain file: win points into it */
	uint64_t release_to; /* the mapping's pages before this are read: give them back */
	uint64_t map_size;
	uint64_t win_base; /* stream offset of win[0] */
	bool eof;
	int state;
	bool object_format, saw_events, after_comma, first_in_obj;
	uint64_t events;
	gt_builder builder;
	gt_model *m;
	unsigned threads;
	/* GPUTRACE_INGEST_TIMES: where the builder thread's time went, ns */
	bool timed;
	uint64_t t_refill, t_build, t_await, t_fill, t_finish;
	piece pieces[MAX_PIECES];
	piece_pool pool;
	const gt_load_options *opt;
	uint64_t total_bytes;
	uint64_t skip_escape; /* S_SKIP_STRING: the previous byte was a backslash */
	int meta_key;         /* 1: capture this top-level value as metadata */
	/* resume state (resume.h), kept when rs is set */
	gt_resume *rs;
	uint64_t last_end;     /* stream offset after the last event, or after '[' */
	bool last_after_event; /* last_end follows an event (not the '[') */
	bool snapped;          /* rs holds the state at the end of an event array */
	bool truncated;        /* the input ended inside a value: truncated_input */
} ingest;

static int fail_pos(ingest *g, gt_error *err, const char *at, const char *msg)
{
	uint64_t off = g->win_base + (uint64_t)(at - g->win);
	return gt_fail(err, GT_EINPUT, "%s: byte %llu, event %llu: %s", g->path,
		       (unsigned long long)off, (unsigned long long)g->events, msg);
}

/* The input ends at `at`, inside a value: with complete events before it
 * the trace is read up to them (truncated_input, the partial event
 * dropped); with none the file fails with msg, located. */
static int end_early(ingest *g, gt_error *err, const char *at, const char *msg)
{
	if (g->events == 0) {
		if (gt_input_truncated(g->in))
			msg = "the compressed stream is cut short before a complete event";
		return fail_pos(g, err, at, msg);
	}
	const char *end = g->win + g->win_len;
	gt_model_warn(g->m, GT_WARN_TRUNCATED_INPUT, g->win_base + g->win_len, g->events, at,
		      (size_t)(end - at));
	g->truncated = true;
	g->state = S_DONE;
	return 0;
}

/* Reads more bytes, keeping win[keep..win_len) (moved to the front). */
static int refill(ingest *g, size_t keep, gt_error *err)
{
	if (g->map) {
		/* nothing to copy: the window slides over the mapping */
		if (keep == 0 && g->win_len == g->win_cap) {
			if (g->win_cap >= WINDOW_MAX)
				return gt_fail(err, GT_EINPUT,
					       "%s: byte %llu, event %llu: a single event or value is larger than %zu MiB",
					       g->path, (unsigned long long)g->win_base,
					       (unsigned long long)g->events, WINDOW_MAX >> 20);
			g->win_cap *= 2;
		}
		g->win_base += keep;
		if (g->state == S_EVENTS || g->state == S_EVENTS_AFTER)
			g->release_to = g->win_base; /* while the workers parse the events (parse_events) */
		else
			gt_input_release(g->in, g->win_base);
		uint64_t left = g->map_size - g->win_base;
		g->win = (char *)g->map + g->win_base;
		g->win_len = left < g->win_cap ? (size_t)left : g->win_cap;
		g->eof = g->win_len == left;
		g->m->stats.bytes = g->win_base + g->win_len;
		if (g->opt && g->opt->progress)
			g->opt->progress(g->opt->progress_ctx, g->win_base + g->win_len, g->map_size);
		return 0;
	}
	size_t tail = g->win_len - keep;
	if (keep) {
		memmove(g->win, g->win + keep, tail);
		g->win_base += keep;
	}
	g->win_len = tail;
	if (g->win_len == g->win_cap) {
		if (g->win_cap >= WINDOW_MAX)
			return gt_fail(err, GT_EINPUT,
				       "%s: byte %llu, event %llu: a single event or value is larger than %zu MiB",
				       g->path, (unsigned long long)g->win_base, (unsigned long long)g->events,
				       WINDOW_MAX >> 20);
		size_t cap = g->win_cap * 2;
		char *w = gt_fault_hit("alloc") ? NULL : realloc(g->win, cap + 8);
		if (!w)
			return gt_fail(err, GT_EINPUT, "%s: out of memory growing the read window", g->path);
		g->win = w;
		g->win_cap = cap;
	}
	while (g->win_len < g->win_cap && !g->eof) {
		long n = gt_input_read(g->in, g->win + g->win_len, g->win_cap - g->win_len, err);
		if (n < 0)
			return -1;
		if (n == 0)
			g->eof = true;
		g->win_len += (size_t)n;
	}
	g->m->stats.bytes = g->win_base + g->win_len;
	if (g->opt && g->opt->progress)
		g->opt->progress(g->opt->progress_ctx, gt_input_file_bytes(g->in), g->total_bytes);
	return 0;
}

static void lexer_init(ingest *g, jl_lexer *lx)
{
	memset(lx, 0, sizeof *lx);
	lx->begin = g->win;
	lx->end = g->win + g->win_len;
	lx->final = g->eof;
}

/* Parses events from pc->begin. Stops at the element start pc->stop (if
 * set), at ']', at the end of the window, or on an error. */
static void parse_piece(piece *pc)
{
	jl_lexer *lx = &pc->lx;
	const char *p = pc->begin;
	pc->n = 0;
	pc->hit_close = false;
	pc->overshot = false;
	local_names_reset(&pc->names);
	simple_events_reset(&pc->simple);
	for (;;) {
		const char *q = jl_skip_ws(p, lx->end);
		pc->end_pos = p;
		if (pc->stop && q >= pc->stop) {
			pc->overshot = q != pc->stop;
			pc->rc = JL_OK;
			return;
		}
		if (q >= lx->end) {
			pc->rc = JL_NEED_MORE;
			return;
		}
		if (*q == ']') {
			pc->hit_close = true;
			pc->end_pos = q;
			pc->rc = JL_OK;
			return;
		}
		if (*q != '{') {
			pc->rc = jl_error(lx, q, "event is not an object");
			pc->end_pos = q;
			return;
		}
		if (pc->n == pc->cap) {
			size_t cap = pc->cap ? pc->cap * 2 : 4096;
			raw_event *e = gt_fault_hit("alloc") ? NULL : realloc(pc->evs, cap * sizeof *e);
			if (!e) {
				pc->rc = jl_error(lx, q, "out of memory");
				return;
			}
			pc->evs = e;
			pc->cap = cap;
		}
		raw_event *ev = &pc->evs[pc->n];
		const char *r = q;
		jl_lexer counts = *lx;
		int rc = gt_parse_event(lx, &r, ev);
		if (rc) {
			if (rc == JL_NEED_MORE) {
				/* the event is parsed again with more bytes: count it then */
				lx->trailing_commas = counts.trailing_commas;
				lx->control_chars = counts.control_chars;
				lx->invalid_utf8 = counts.invalid_utf8;
				lx->nonstandard = counts.nonstandard;
			}
			pc->rc = rc;
			pc->end_pos = rc == JL_NEED_MORE ? p : lx->pos;
			return;
		}
		ev->offset = (uint64_t)(q - lx->begin); /* window-relative until merged */
		ev->name_local = local_names_id(&pc->names, &ev->name, ev->name_hash);
		ev->cat_local = local_names_id(&pc->names, &ev->cat, ev->cat_hash);
		r = jl_skip_ws(r, lx->end);
		bool keep = r < lx->end ? *r == ']' || *r == ',' : pc->eof;
		if (keep && simple_events_note(&pc->simple, ev, (uint32_t)pc->n) < 0) {
			pc->rc = jl_error(lx, q, "out of memory");
			return;
		}
		if (r >= lx->end) {
			pc->rc = JL_NEED_MORE;
			if (pc->eof) {
				/* the format allows a missing ']': keep the event */
				pc->n++;
				pc->end_pos = r;
				pc->rc = JL_OK;
				pc->hit_close = false;
			}
			return;
		}
		if (*r == ']') {
			pc->n++;
			pc->hit_close = true;
			pc->end_pos = r;
			pc->after_comma = false;
			pc->rc = JL_OK;
			return;
		}
		if (*r != ',') {
			pc->rc = jl_error(lx, r, "expected ',' or ']' after an event");
			pc->end_pos = r;
			return;
		}
		pc->n++;
		p = r + 1;
		pc->after_comma = true;
	}
}

/* Finds a plausible event start at or after p: '{' preceded by
 * '}' ws* ',' ws*. Returns NULL if none before end. */
static const char *guess_boundary(const char *p, const char *end)
{
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		if (!c)
			return NULL;
		const char *b = c;
		while (b > p && jl_is_ws(b[-1]))
			b--;
		const char *a = jl_skip_ws(c + 1, end);
		if (b > p && b[-1] == '}' && a < end && *a == '{') {
			const char *k = jl_skip_ws(a + 1, end); /* pretty-printed: "{\n    \"name\"" */
			if (k < end && *k == '"')
				return a;
		}
		p = c + 1;
	}
	return NULL;
}

static void add_lexer_counts(gt_model *m, const jl_lexer *lx)
{
	m->stats.warnings[GT_WARN_TRAILING_COMMA] += lx->trailing_commas;
	m->stats.warnings[GT_WARN_CONTROL_CHAR] += lx->control_chars;
	m->stats.warnings[GT_WARN_INVALID_UTF8] += lx->invalid_utf8;
	m->stats.warnings[GT_WARN_NONSTANDARD_NUMBER] += lx->nonstandard;
}

/* Hands piece t's events to the builder. *more is cleared when the pieces
 * after it must be discarded (it did not land on the next cut). */
static int stitch_piece(ingest *g, unsigned t, unsigned k, size_t *pos, bool *more, gt_error *err)
{
	piece *pc = &g->pieces[t];
	if (gt_builder_add_piece(&g->builder, pc->evs, pc->n, &pc->simple, &pc->names, g->events, g->win_base,
				 err) < 0)
		return -1;
	g->events += pc->n;
	add_lexer_counts(g->m, &pc->lx);
	if (pc->n && pc->rc != JL_ERROR) {
		/* only whitespace and one ',' lie between the last event and end_pos */
		const char *e = pc->end_pos;
		while (e > pc->begin && (jl_is_ws(e[-1]) || e[-1] == ','))
			e--;
		g->last_end = g->win_base + (uint64_t)(e - g->win);
		g->last_after_event = true;
	}
	if (pc->end_pos != pc->begin)
		g->after_comma = pc->after_comma;
	else if (t > 0)
		g->after_comma = true; /* cuts follow a ',' */
	if (pc->rc == JL_ERROR)
		return fail_pos(g, err, pc->lx.pos, pc->lx.msg);
	*pos = (size_t)(pc->end_pos - g->win);
	if (pc->hit_close)
		g->state = S_EVENTS;
	*more = !pc->hit_close && pc->rc != JL_NEED_MORE && !pc->overshot && t + 1 < k;
	return 0;
}

/* Piece t's work in the current phase; the pool's lock is not held. */
static void work_on(piece_pool *pp, int phase, unsigned t)
{
	if (phase == PARSE) {
		parse_piece(&pp->pieces[t]);
	} else if (simple_events_fill(pp->builder, &pp->pieces[t].simple) < 0) {
		pthread_mutex_lock(&pp->mu);
		pp->fill_failed = true;
		pthread_mutex_unlock(&pp->mu);
	}
}

/* With the lock held: claims the next piece and works on it. */
static void work_next(piece_pool *pp)
{
	unsigned t = pp->next++;
	int phase = pp->phase;
	pp->busy++;
	pthread_mutex_unlock(&pp->mu);
	work_on(pp, phase, t);
	pthread_mutex_lock(&pp->mu);
	pp->done[t] = true;
	pp->busy--;
	pthread_cond_broadcast(&pp->cv);
}

static void *pool_worker(void *arg)
{
	piece_pool *pp = arg;
	pthread_mutex_lock(&pp->mu);
	while (!pp->quit) {
		if (!pp->stop && pp->next < pp->count)
			work_next(pp);
		else
			pthread_cond_wait(&pp->work, &pp->mu);
	}
	pthread_mutex_unlock(&pp->mu);
	return NULL;
}

/* Gives the workers a phase's `count` pieces, starting them the first time. */
static void pool_begin(piece_pool *pp, unsigned threads, int phase, unsigned count)
{
	if (!pp->started) {
		pthread_mutex_init(&pp->mu, NULL);
		pthread_cond_init(&pp->cv, NULL);
		pthread_cond_init(&pp->work, NULL);
		pp->started = true;
		while (pp->workers + 1 < threads && pthread_create(&pp->tids[pp->workers], NULL, pool_worker, pp) == 0)
			pp->workers++;
	}
	pthread_mutex_lock(&pp->mu);
	pp->phase = phase, pp->count = count, pp->next = 0, pp->stop = false, pp->fill_failed = false;
	memset(pp->done, 0, count * sizeof pp->done[0]);
	pthread_cond_broadcast(&pp->work);
	pthread_mutex_unlock(&pp->mu);
}

/* Makes piece t done. While another thread still works on it, the caller
 * works on pieces further on instead of waiting. */
static void await_piece(piece_pool *pp, unsigned t)
{
	pthread_mutex_lock(&pp->mu);
	while (!pp->done[t]) {
		if (pp->next < pp->count)
			work_next(pp); /* t itself, when nobody has claimed it */
		else
			pthread_cond_wait(&pp->cv, &pp->mu);
	}
	pthread_mutex_unlock(&pp->mu);
}

/* Ends the phase: no more claims, and no worker inside a piece, whose
 * memory the next phase reuses. */
static void pool_stop(piece_pool *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->stop = true;
	while (pp->busy)
		pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
}

static void pool_end(piece_pool *pp)
{
	if (!pp->started)
		return;
	pthread_mutex_lock(&pp->mu);
	pp->quit = true;
	pthread_cond_broadcast(&pp->work);
	pthread_mutex_unlock(&pp->mu);
	for (unsigned w = 0; w < pp->workers; w++)
		pthread_join(pp->tids[w], NULL);
	pthread_cond_destroy(&pp->work);
	pthread_cond_destroy(&pp->cv);
	pthread_mutex_destroy(&pp->mu);
	pp->workers = 0, pp->started = false;
}

/* Where the t-th of `want` cuts goes, as a share of the window: the last
 * `small` pieces (one per thread) a quarter of the others' size. The
 * threads finish a window's last pieces at different times and wait for
 * the slowest; with 1 MiB pieces that wait was about 1.5 ms a window, 0.1 s
 * of a 10M-span ingest on 16 threads. */
static size_t cut_at(size_t len, size_t t, size_t want, size_t small)
{
	size_t large = want - small, weight = 4 * large + small;
	size_t w = t <= large ? 4 * t : 4 * large + (t - large);
	return (size_t)((uint64_t)len * w / weight); /* len <= WINDOW_MAX: no overflow */
}

/* Cuts win[pos..) into pieces at plausible event starts; returns how many. */
static unsigned cut_pieces(ingest *g, const char *begin, const char *end, const char **cuts)
{
	unsigned k = 1;
	cuts[0] = begin;
	size_t len = (size_t)(end - begin);
	if (g->threads > 1 && len >= SPLIT_MIN) {
		size_t want = len / PIECE_BYTES + 1;
		if (want < g->threads)
			want = g->threads;
		if (want > MAX_PIECES)
			want = MAX_PIECES;
		size_t small = want >= 2 * (size_t)g->threads ? g->threads : 0;
		for (size_t t = 1; t < want; t++) {
			const char *c = guess_boundary(begin + cut_at(len, t, want, small), end);
			if (!c)
				break;
			if (c > cuts[k - 1])
				cuts[k++] = c;
		}
	}
	cuts[k] = NULL;
	return k;
}

/* Parses the events in win[pos..) and builds them in file order; *pos
 * becomes the next element start.
 *
 * The window is cut at guessed event starts into pieces that worker
 * threads parse in order while this thread builds the parsed ones (building
 * is sequential); when the next piece to build is not parsed yet, this
 * thread parses the next unclaimed one itself. A piece that does not end
 * exactly at the next cut (a wrong guess, an error, the array's end)
 * discards the pieces after it: the state machine goes on from where it
 * really ended. */
/* Fills in the simple events of the first k pieces (simple_events.h): on
 * the workers with the builder, when there are workers. */
static int fill_pieces(ingest *g, unsigned k, gt_error *err)
{
	uint64_t t0 = g->timed ? gt_clock_ns() : 0;
	bool failed = false;
	if (g->pool.workers && k > 1) {
		pool_begin(&g->pool, g->threads, FILL, k);
		for (unsigned t = 0; t < k; t++)
			await_piece(&g->pool, t);
		pool_stop(&g->pool);
		failed = g->pool.fill_failed;
	} else {
		for (unsigned t = 0; t < k && !failed; t++)
			failed = simple_events_fill(&g->builder, &g->pieces[t].simple) < 0;
	}
	if (failed)
		return gt_fail(err, GT_EINPUT, "%s: out of memory", g->path);
	for (unsigned t = 0; t < k; t++)
		gt_builder_merge_piece(&g->builder, &g->pieces[t].simple);
	if (g->timed)
		g->t_fill += gt_clock_ns() - t0;
	return 0;
}

static int parse_events(ingest *g, size_t *pos, gt_error *err)
{
	const char *cuts[MAX_PIECES + 1];
	unsigned k = cut_pieces(g, g->win + *pos, g->win + g->win_len, cuts);
	for (unsigned t = 0; t < k; t++) {
		piece *pc = &g->pieces[t];
		lexer_init(g, &pc->lx);
		/* an event the window's end cuts is incomplete, even at the end
		 * of the input: truncated, not malformed */
		pc->lx.final = false;
		pc->eof = g->eof;
		pc->begin = cuts[t];
		pc->stop = cuts[t + 1];
		pc->after_comma = false;
	}
	if (k > 1)
		pool_begin(&g->pool, g->threads, PARSE, k);
	/* giving back the pages read took 0.09 s of 4.5 GB on 16 threads, with
	 * the workers idle when it ran between windows */
	gt_input_release(g->in, g->release_to);
	int rc = 0;
	bool more = true;
	unsigned stitched = 0;
	for (unsigned t = 0; t < k && rc == 0 && more; t++, stitched++) {
		uint64_t t0 = g->timed ? gt_clock_ns() : 0;
		if (k > 1)
			await_piece(&g->pool, t);
		else
			parse_piece(&g->pieces[0]);
		uint64_t t1 = g->timed ? gt_clock_ns() : 0;
		rc = stitch_piece(g, t, k, pos, &more, err);
		if (g->timed)
			g->t_await += t1 - t0, g->t_build += gt_clock_ns() - t1;
	}
	if (k > 1)
		pool_stop(&g->pool);
	return rc ? rc : fill_pieces(g, stitched, err);
}

/* What a top-level key holds: 1 the events, 3 systemTraceEvents (a huge
 * string of ftrace text, streamed past), 2 anything else, kept as
 * metadata (Kineto's schemaVersion, deviceProperties, distributedInfo,
 * traceName, baseTimeNanoseconds; Chrome's metadata, otherData). */
static int key_kind(const jl_slice *k)
{
	if (k->len == 11 && memcmp(k->p, "traceEvents", 11) == 0)
		return 1;
	if (k->len == 17 && memcmp(k->p, "systemTraceEvents", 17) == 0)
		return 3;
	return 2;
}

static int keep_metadata(ingest *g, const char *v, size_t len, const jl_slice *key)
{
	gt_model *m = g->m;
	if (len > META_MAX)
		return 0; /* too large to be worth keeping; info omits it */
	/* kept as {"metadata": ..., "otherData": ...} text */
	size_t old = m->metadata_json ? strlen(m->metadata_json) : 0;
	size_t need = old + len + key->len + 8;
	char *s = gt_fault_hit("alloc") ? NULL : realloc(m->metadata_json, need);
	if (!s)
		return -1;
	if (old == 0)
		s[old++] = '{';
	else
		s[old - 1] = ','; /* replace the closing brace */
	int n = snprintf(s + old, need - old, "\"%.*s\":", (int)key->len, key->p);
	memcpy(s + old + n, v, len);
	s[old + n + len] = '}';
	s[old + n + len + 1] = '\0';
	m->metadata_json = s;
	return 0;
}

/* The resume state at the end of an event array: where the last event
 * ended, and the counts that only bytes before it produced. */
static void snapshot(ingest *g)
{
	gt_resume *rs = g->rs;
	if (!rs)
		return;
	rs->offset = g->last_end;
	rs->after_event = g->last_after_event;
	memcpy(rs->warnings, g->m->stats.warnings, sizeof rs->warnings);
	rs->metadata_len = g->m->metadata_json ? strlen(g->m->metadata_json) : 0;
	g->snapped = true;
}

static void array_opened(ingest *g, const char *after)
{
	g->last_end = g->win_base + (uint64_t)(after - g->win);
	g->last_after_event = false;
}

/* Runs the state machine over the window; returns 1 when more input is
 * needed (with *keep = bytes already consumed), 0 when done, -1 on error. */
static int step(ingest *g, size_t *keep, gt_error *err)
{
	size_t pos = *keep;
	jl_lexer lx;
	lexer_init(g, &lx);
	lx.final = false; /* a value the input's end cuts is told apart from a malformed one */
	for (;;) {
		const char *p = jl_skip_ws(g->win + pos, lx.end);
		pos = (size_t)(p - g->win);
		*keep = pos;
		if (g->state == S_SKIP_STRING) {
			/* stream past a huge string (systemTraceEvents) without holding it */
			while (p < lx.end) {
				char c = *p++;
				if (g->skip_escape) {
					g->skip_escape = 0;
				} else if (c == '\\') {
					g->skip_escape = 1;
				} else if (c == '"') {
					g->state = S_OBJ_AFTER;
					break;
				}
			}
			pos = (size_t)(p - g->win);
			*keep = pos;
			if (g->state == S_SKIP_STRING) {
				if (g->eof)
					return end_early(g, err, p, "unterminated string");
				return 1;
			}
			continue;
		}
		if (p >= lx.end) {
			if (!g->eof)
				return 1;
			switch (g->state) {
			case S_START:
				return fail_pos(g, err, p, gt_input_truncated(g->in)
						? "the compressed stream is cut short before any JSON"
						: g->win_base + g->win_len == 0 ? "empty file" : "no JSON value");
			case S_DONE:
				return 0;
			case S_EVENTS:
			case S_EVENTS_AFTER:
				if (!g->object_format)
					return 0; /* the array format allows a missing ']' */
				return end_early(g, err, p, "unexpected end of input inside traceEvents");
			default:
				if (!g->saw_events)
					return fail_pos(g, err, p, "unexpected end of input in the top-level object");
				return end_early(g, err, p, "unexpected end of input in the top-level object");
			}
		}
		switch (g->state) {
		case S_START:
			if ((unsigned char)p[0] == 0xef && lx.end - p >= 3 && (unsigned char)p[1] == 0xbb &&
			    (unsigned char)p[2] == 0xbf) {
				pos += 3; /* UTF-8 byte order mark */
				continue;
			}
			if (*p == '[') {
				g->state = S_EVENTS;
				g->saw_events = true;
				g->after_comma = false;
				array_opened(g, p + 1);
			} else if (*p == '{') {
				g->object_format = true;
				g->m->stats.format = GT_FMT_OBJECT;
				g->state = S_OBJ_KEY;
				g->first_in_obj = true;
			} else {
				return fail_pos(g, err, p, "not a trace: expected '[' or '{' at the top level");
			}
			pos++;
			continue;
		case S_OBJ_KEY:
		case S_OBJ_AFTER:
			if (*p == '}') {
				if (g->state == S_OBJ_KEY && !g->first_in_obj)
					g->m->stats.warnings[GT_WARN_TRAILING_COMMA]++;
				g->state = S_DONE;
				pos++;
				continue;
			}
			if (g->state == S_OBJ_AFTER) {
				if (*p != ',')
					return fail_pos(g, err, p, "expected ',' or '}' in the top-level object");
				g->state = S_OBJ_KEY;
				g->first_in_obj = false;
				pos++;
				continue;
			}
			{
				if (*p != '"')
					return fail_pos(g, err, p, "expected a string key in the top-level object");
				const char *q = p;
				jl_slice key;
				int rc = jl_string(&lx, &q, &key);
				if (rc == JL_NEED_MORE)
					return g->eof ? end_early(g, err, p, "unterminated string") : 1;
				if (rc)
					return fail_pos(g, err, lx.pos, lx.msg);
				q = jl_skip_ws(q, lx.end);
				if (q >= lx.end)
					return g->eof ? end_early(g, err, p, "unexpected end of input") : 1;
				if (*q != ':')
					return fail_pos(g, err, q, "expected ':' after key");
				q = jl_skip_ws(q + 1, lx.end);
				if (q >= lx.end)
					return g->eof ? end_early(g, err, p, "unexpected end of input") : 1;
				int kind = key_kind(&key);
				if (kind == 1) {
					if (*q != '[')
						return fail_pos(g, err, q, "traceEvents is not an array");
					g->saw_events = true;
					g->state = S_EVENTS;
					g->after_comma = false;
					array_opened(g, q + 1);
					pos = (size_t)(q + 1 - g->win);
					continue;
				}
				if (kind == 3)
					g->saw_events = true;
				if (kind == 3 && *q != '"')
					kind = 0; /* not the usual string: skipped, not kept */
				const char *v = q;
				rc = kind == 3 ? JL_NEED_MORE : jl_skip_value(&lx, &q, 1);
				if (rc == JL_NEED_MORE && *v == '"' && (kind == 3 || (size_t)(lx.end - v) > KEEP_STRING_MAX)) {
					/* systemTraceEvents, or a string too large to keep:
					 * streamed past without holding it */
					g->state = S_SKIP_STRING;
					g->skip_escape = 0;
					pos = (size_t)(v + 1 - g->win);
					continue;
				}
				if (rc == JL_NEED_MORE)
					return g->eof ? end_early(g, err, p, "unexpected end of input") : 1;
				if (rc)
					return fail_pos(g, err, lx.pos, lx.msg);
				if (kind == 2 && keep_metadata(g, v, (size_t)(q - v), &key) < 0)
					return fail_pos(g, err, v, "out of memory");
				add_lexer_counts(g->m, &lx);
				lx.trailing_commas = lx.control_chars = lx.invalid_utf8 = lx.nonstandard = 0;
				g->state = S_OBJ_AFTER;
				pos = (size_t)(q - g->win);
				continue;
			}
		case S_EVENTS_AFTER:
			if (*p != ',' && *p != ']')
				return fail_pos(g, err, p, "expected ',' or ']' after an event");
			g->state = S_EVENTS;
			g->after_comma = *p == ',';
			pos += *p == ',';
			continue;
		case S_EVENTS:
			if (*p == ']') {
				snapshot(g);
				if (g->after_comma)
					g->m->stats.warnings[GT_WARN_TRAILING_COMMA]++;
				g->state = g->object_format ? S_OBJ_AFTER : S_DONE;
				pos++;
				continue;
			}
			{
				size_t before = pos;
				uint64_t ev_before = g->events;
				if (parse_events(g, &pos, err) < 0)
					return -1;
				*keep = pos;
				if (pos == before && g->events == ev_before) {
					/* no progress: the window ends inside an event */
					if (g->eof)
						return end_early(g, err, g->win + pos, "unexpected end of input");
					return 1;
				}
				continue;
			}
		case S_DONE:
			return fail_pos(g, err, p, "unexpected data after the end of the trace");
		}
	}
}

static unsigned default_threads(void)
{
	return gt_thread_count(0, MAX_THREADS);
}

static int setup(ingest *g, gt_model *m, gt_input *in, const char *path, const gt_load_options *opt,
		 gt_error *err)
{
	memset(g, 0, sizeof *g);
	g->in = in;
	g->path = path;
	g->m = m;
	g->opt = opt;
	g->threads = opt && opt->threads ? opt->threads : default_threads();
	if (g->threads > MAX_THREADS)
		g->threads = MAX_THREADS;
	gt_input_set_threads(in, g->threads);
	g->total_bytes = gt_input_file_size(in);
	m->stats.compression = (uint8_t)gt_input_compression(in);
	g->win_cap = g->threads > 1 ? WINDOW_PARALLEL : WINDOW_MIN;
	g->pool.pieces = g->pieces, g->pool.builder = &g->builder;
	if (gt_input_map(in, &g->map, &g->map_size))
		g->win = (char *)g->map;
	else
		g->win = gt_fault_hit("alloc") ? NULL : malloc(g->win_cap + 8);
	if (!g->win)
		return gt_fail(err, GT_EINPUT, "out of memory");
	return 0;
}

/* Reads to the end, then finishes the model (and keeps the resume state). */
static int run(ingest *g, gt_error *err)
{
	gt_model *m = g->m;
	size_t keep = 0;
	for (;;) {
		uint64_t t0 = g->timed ? gt_clock_ns() : 0;
		if (refill(g, keep, err) < 0)
			return -1;
		if (g->timed)
			g->t_refill += gt_clock_ns() - t0;
		keep = 0;
		int r = step(g, &keep, err);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	if (!g->saw_events)
		return gt_fail(err, GT_EINPUT, "%s: not a trace: the top-level object has no traceEvents", g->path);
	m->stats.file_bytes = gt_input_file_bytes(g->in);
	if (gt_input_truncated(g->in) && !g->truncated) {
		/* the stream was cut between events (or after the trace's end) */
		if (g->events == 0)
			return gt_fail(err, GT_EINPUT, "%s: byte %llu: the compressed stream is cut short before a complete event",
				       g->path, (unsigned long long)(g->win_base + g->win_len));
		gt_model_warn(m, GT_WARN_TRUNCATED_INPUT, g->win_base + g->win_len, g->events, NULL, 0);
		g->truncated = true;
	}
	if (g->rs) {
		gt_resume *rs = g->rs;
		if (g->state == S_EVENTS || g->state == S_EVENTS_AFTER)
			snapshot(g); /* the array was not closed */
		/* a cut file is not resumed: what follows would replace the cut */
		rs->resumable = g->snapped && m->stats.compression == GT_COMP_NONE && !g->truncated;
		if (!rs->resumable)
			gt_resume_free(rs);
		else if (gt_builder_capture(&g->builder, rs) < 0)
			return gt_fail(err, GT_EINPUT, "%s: out of memory keeping the resume state", g->path);
	}
	gt_model_read_distributed_info(m);
	uint64_t t0 = g->timed ? gt_clock_ns() : 0;
	int rc = gt_builder_finish(&g->builder, g->opt ? g->opt->parent_mode : 0, err);
	if (g->timed)
		g->t_finish = gt_clock_ns() - t0;
	return rc;
}

static void teardown(ingest *g)
{
	pool_end(&g->pool);
	gt_builder_free(&g->builder);
	for (int t = 0; t < MAX_PIECES; t++) {
		free(g->pieces[t].evs);
		local_names_free(&g->pieces[t].names);
		simple_events_free(&g->pieces[t].simple);
	}
	if (!g->map)
		free(g->win);
}

static int ingest_from_start(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt,
			     gt_resume *rs, gt_error *err)
{
	ingest g;
	int rc = setup(&g, m, in, path, opt, err);
	g.rs = rs;
	if (rc == 0)
		rc = gt_builder_init(&g.builder, m, path, err);
	if (rc == 0) {
		g.builder.finish_threads = g.threads;
		g.timed = getenv("GPUTRACE_INGEST_TIMES") != NULL;
		g.builder.timed = g.timed;
		uint64_t t0 = g.timed ? gt_clock_ns() : 0;
		rc = run(&g, err);
		if (g.timed) /* a diagnostic for whoever profiles ingest, not an interface */
			fprintf(stderr,
				"gputrace: ingest %s, %u threads: %.3f s; the builder thread: reading %.3f s, parsing or waiting "
				"for pieces %.3f s, building %.3f s, filling in %.3f s, finishing %.3f s (tracks %.3f: grouping "
				"%.3f, nesting %.3f, and beside them sorting the flow points %.3f; flows %.3f, lanes %.3f, flow "
				"parents %.3f)\n",
				path, g.threads, (gt_clock_ns() - t0) / 1e9, g.t_refill / 1e9, g.t_await / 1e9, g.t_build / 1e9,
				g.t_fill / 1e9, g.t_finish / 1e9, g.builder.t_tracks / 1e9, g.builder.t_group / 1e9,
				g.builder.t_nest / 1e9, g.builder.t_points / 1e9, g.builder.t_flows / 1e9,
				g.builder.t_lanes / 1e9, g.builder.t_parents / 1e9);
	}
	teardown(&g);
	return rc;
}

int gt_ingest(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt, gt_error *err)
{
	return ingest_from_start(m, in, path, opt, NULL, err);
}

int gt_ingest_capture(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt, gt_resume *rs,
		      gt_error *err)
{
	return ingest_from_start(m, in, path, opt, rs, err);
}

int gt_ingest_resume(gt_model *m, gt_input *in, const char *path, const gt_load_options *opt, gt_resume *rs,
		     gt_error *err)
{
	ingest g;
	int rc = setup(&g, m, in, path, opt, err);
	if (rc == 0 && !g.map)
		rc = gt_fail(err, GT_EINPUT, "%s: a resumed parse needs a mapped file", path);
	if (rc == 0)
		rc = gt_builder_restore(&g.builder, m, rs, path, err);
	if (rc == 0) {
		/* as the parse that took rs stood at rs->offset */
		g.rs = rs;
		g.win_base = rs->offset;
		g.state = rs->after_event ? S_EVENTS_AFTER : S_EVENTS;
		g.saw_events = true;
		g.object_format = m->stats.format == GT_FMT_OBJECT;
		g.events = m->stats.events;
		g.last_end = rs->offset;
		g.last_after_event = rs->after_event;
		g.builder.finish_threads = g.threads;
		rc = run(&g, err);
	}
	teardown(&g);
	return rc;
}
