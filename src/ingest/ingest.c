/* Streaming ingest: reads the decompressed trace through a window buffer,
 * walks the top-level structure, and parses the event array in parallel.
 *
 * Parallel parsing is speculative: the window is cut at points that look
 * like event boundaries ("}, {"); each piece is parsed by its own thread,
 * and a piece counts only if the piece before it ended exactly at its cut.
 * A wrong guess (a "}, {" inside a string or a nested value) costs a
 * re-parse, never a wrong result. Events then go to the model builder in
 * file order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest.h"
#include "input.h"
#include "builder.h"
#include "piece.h"
#include "piece_pool.h"
#include "simple_events.h"
#include "resume.h"
#include "base/base.h"

#ifndef GT_FUZZING
#define WINDOW_MIN (8u << 20)
#define WINDOW_MAX ((size_t)1 << 30)
#define WINDOW_MAX_TEXT "1024 MiB"
#define SPLIT_MIN (256u << 10) /* below this a window is parsed by one thread */
#define PIECE_BYTES (512u << 10) /* a window is cut into pieces of about this size */
#else
/* fuzz builds: tiny windows so small inputs reach refills, window growth,
 * the size cap and the parallel split (fuzz/fuzz_trace.c) */
#define WINDOW_MIN 64u
#define WINDOW_MAX ((size_t)256 << 10)
#define WINDOW_MAX_TEXT "256 KiB"
#define SPLIT_MIN 64u
#define PIECE_BYTES 16u
#endif
#define MAX_THREADS PIECE_POOL_THREADS
#define MAX_PIECES 64 /* a window's; the pool holds two windows' pieces */
_Static_assert(2 * MAX_PIECES <= PIECE_POOL_QUEUE, "the pool queues two windows");
/* The window with several threads: PIECES_PER_THREAD pieces of PIECE_BYTES
 * a thread, at most MAX_PIECES. While one window's edge stalled every
 * thread, wide windows paid (256 MiB was 4% faster than 64 at 16 threads on
 * 10M spans, the H100 machine's host). With the next window parsed ahead, a
 * mapped file's edges cost nothing, and the window in flight is two windows
 * of the mapping and two of pieces: there 32 MiB (4 pieces a thread) was as
 * fast as 64 (0.64 s against 0.65, medians) and held 73 MB less, within 8 MB
 * of one 64 MiB window without the queue ahead. Fewer threads take a
 * narrower window: each piece's events (288 bytes each, about the size of
 * the event's text) are fresh pages until a window reuses them, and at 2
 * threads a 32 MiB window's two windows of pieces were 50-60 MB of them,
 * most of the peak on a 35 MB trace and a fifth of the wall. */
#define PIECES_PER_THREAD 4
/* where the search for a window's end cut starts, before its end: several
 * events' worth (Kineto's are 300-600 bytes) */
#define END_CUT_MARGIN(piece_bytes) ((piece_bytes) / 16 > 4096 ? (piece_bytes) / 16 : 4096)
#define META_MAX (16u << 20)
/* how far past a failed parse a compressed stream is read for its own error */
#define FAILURE_LOOKAHEAD ((uint64_t)64 << 20)
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

/* A window's pieces. On threads the window's last piece stops at a guessed
 * event start near its end, where the next window starts: that one is then
 * cut and queued at once (a streamed input's read ahead first), and the
 * workers parse it while this one is stitched and filled. */
typedef struct batch {
	piece pieces[MAX_PIECES];
	unsigned k;          /* pieces cut */
	uint64_t base;       /* its window: the stream offset of its first byte, */
	size_t len;          /* its length, */
	bool eof;            /* and whether the input ends with it */
	const char *end_cut; /* where its last piece stops; NULL: at the window's end */
} batch;

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
	uint64_t windows, windows_ahead; /* the windows parsed; those cut and queued ahead */
	batch batches[2];
	unsigned cur;         /* batches[cur]: the window being stitched */
	bool ahead;           /* batches[cur ^ 1] holds the next window, queued */
	const char *win_cut;  /* the current window's end cut: there it slides on */
	/* A streamed input's next window, read ahead from the current one's end
	 * cut (stream_ahead) so that it is parsed while this one is built. */
	char *next_win;
	size_t next_cap, next_len;
	uint64_t next_base;   /* stream offset of next_win[0] */
	bool next_eof;        /* the read ahead reached the input's end */
	bool next_read;       /* next_win holds this window's successor */
	bool ahead_failed;    /* the read ahead failed: ahead_err, due at the next refill */
	gt_error ahead_err;
	/* bytes of next_win that the next refills take before the input's:
	 * where the parse did not stop at the end cut */
	const char *pend;
	size_t pend_len;
	uint64_t read_total;  /* decompressed bytes taken from the input */
	piece_pool pool;
	/* the span and flow point tables' rows queued to be faulted in ahead of
	 * the fills, and the counts at the last window's start */
	uint64_t populated_spans, populated_points;
	uint32_t window_spans, window_points;
	size_t piece_bytes;   /* PIECE_BYTES, or GPUTRACE_INGEST_PIECE (tests) */
	size_t split_min;
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
	pthread_t releaser;    /* giving back the pieces' buffers beside the finishing */
	bool releasing;
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

/* The length of the mapped window at stream offset base, and whether the
 * input ends with it: where refill places it, and where the window queued
 * ahead is cut. */
static size_t mapped_window(const ingest *g, uint64_t base, bool *eof)
{
	uint64_t left = g->map_size - base;
	size_t len = left < g->win_cap ? (size_t)left : g->win_cap;
	*eof = len == left;
	return len;
}

/* Reads the input into buf from *len on until cap bytes or the input's end
 * (*eof set). refill and stream_ahead both read through here, so that
 * read_total is counted in one place. -1: a read failed (err set), *len
 * holding the bytes read before it. */
static int read_input(ingest *g, char *buf, size_t *len, size_t cap, bool *eof, gt_error *err)
{
	while (*len < cap) {
		long n = gt_input_read(g->in, buf + *len, cap - *len, err);
		if (n < 0)
			return -1;
		if (n == 0) {
			*eof = true;
			break;
		}
		g->read_total += (uint64_t)n;
		*len += (size_t)n;
	}
	return 0;
}

/* Fills a streamed window up to win_cap: first with what was read ahead
 * and not taken, then with the input's own (or the read ahead's failure or
 * end, where that read would have met it). */
static int stream_fill(ingest *g, gt_error *err)
{
	if (g->win_len == g->win_cap || g->eof)
		return 0;
	if (g->pend_len) {
		size_t room = g->win_cap - g->win_len, n = g->pend_len < room ? g->pend_len : room;
		memcpy(g->win + g->win_len, g->pend, n);
		g->pend += n, g->pend_len -= n;
		g->win_len += n;
		if (g->win_len == g->win_cap)
			return 0;
	}
	if (g->ahead_failed) {
		*err = g->ahead_err;
		return -1;
	}
	if (g->next_eof) {
		g->eof = true;
		return 0;
	}
	return read_input(g, g->win, &g->win_len, g->win_cap, &g->eof, err);
}

/* A streamed window is in place: its bytes counted, and the progress told
 * in the file's bytes (a compressed file's, not the window's). */
static void streamed_window_done(ingest *g)
{
	g->m->stats.bytes = g->win_base + g->win_len;
	if (g->opt && g->opt->progress)
		g->opt->progress(g->opt->progress_ctx, gt_input_file_bytes(g->in), g->total_bytes);
}

/* The refill of a streamed window whose successor was read ahead. Where
 * the parse stopped at the end cut, that successor becomes the window
 * (true). Elsewhere the bytes read ahead past this window are left for
 * stream_fill, after the kept ones (false). */
static bool take_ahead(ingest *g, size_t keep)
{
	size_t cut = (size_t)(g->next_base - g->win_base), tail = g->win_len - cut;
	g->next_read = false;
	if (keep != cut || g->ahead_failed) {
		g->pend = g->next_win + tail;
		g->pend_len = g->next_len - tail;
		return false;
	}
	char *w = g->win;
	g->win = g->next_win, g->next_win = w; /* both hold win_cap + 8 */
	g->win_base = g->next_base;
	g->win_len = g->next_len;
	g->eof = g->next_eof;
	streamed_window_done(g);
	return true;
}

/* The window's next capacity when one value fills it: twice, up to
 * WINDOW_MAX (a threaded window is no power of two); 0 past it (err set). */
static size_t wider_window(ingest *g, gt_error *err)
{
	if (g->win_cap >= WINDOW_MAX) {
		gt_fail(err, GT_EINPUT, "%s: byte %llu, event %llu: a single event or value is larger than " WINDOW_MAX_TEXT,
			g->path, (unsigned long long)g->win_base, (unsigned long long)g->events);
		return 0;
	}
	return g->win_cap < WINDOW_MAX / 2 ? g->win_cap * 2 : WINDOW_MAX;
}

/* Reads more bytes, keeping win[keep..win_len) (moved to the front). */
static int refill(ingest *g, size_t keep, gt_error *err)
{
	g->win_cut = NULL;
	if (g->map) {
		/* nothing to copy: the window slides over the mapping */
		if (keep == 0 && g->win_len == g->win_cap) {
			size_t cap = wider_window(g, err);
			if (!cap)
				return -1;
			g->win_cap = cap;
		}
		g->win_base += keep;
		if (g->state == S_EVENTS || g->state == S_EVENTS_AFTER)
			g->release_to = g->win_base; /* while the workers parse the events (parse_events) */
		else
			gt_input_release(g->in, g->win_base);
		g->win = (char *)g->map + g->win_base;
		g->win_len = mapped_window(g, g->win_base, &g->eof);
		g->m->stats.bytes = g->win_base + g->win_len;
		if (g->opt && g->opt->progress)
			g->opt->progress(g->opt->progress_ctx, g->win_base + g->win_len, g->map_size);
		return 0;
	}
	if (g->next_read && take_ahead(g, keep))
		return 0;
	size_t tail = g->win_len - keep;
	if (keep) {
		memmove(g->win, g->win + keep, tail);
		g->win_base += keep;
	}
	g->win_len = tail;
	if (g->win_len == g->win_cap) {
		size_t cap = wider_window(g, err);
		if (!cap)
			return -1;
		char *w = gt_fault_hit("alloc") ? NULL : realloc(g->win, cap + 8);
		if (!w)
			return gt_fail(err, GT_EINPUT, "%s: out of memory growing the read window", g->path);
		g->win = w;
		g->win_cap = cap;
	}
	if (stream_fill(g, err) < 0)
		return -1;
	streamed_window_done(g);
	return 0;
}

static void lexer_init(ingest *g, jl_lexer *lx)
{
	memset(lx, 0, sizeof *lx);
	lx->begin = g->win;
	lx->end = g->win + g->win_len;
	lx->final = g->eof;
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
static int stitch_piece(ingest *g, piece *pc, unsigned t, unsigned k, size_t *pos, bool *more, gt_error *err)
{
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

/* Cuts [begin, base + len) of the window at base (stream offset wbase)
 * into b's pieces at plausible event starts. */
static void cut_window(ingest *g, batch *b, uint64_t wbase, const char *base, size_t len, bool eof,
		       const char *begin)
{
	const char *cuts[MAX_PIECES + 1];
	const char *end = base + len;
	size_t span = (size_t)(end - begin);
	unsigned k = 1;
	cuts[0] = begin;
	if (g->threads > 1 && span >= g->split_min) {
		size_t want = span / g->piece_bytes + 1;
		if (want < g->threads)
			want = g->threads;
		if (want > MAX_PIECES)
			want = MAX_PIECES;
		size_t small = want >= 2 * (size_t)g->threads ? g->threads : 0;
		for (size_t t = 1; t < want; t++) {
			const char *c = piece_guess_boundary(begin + cut_at(span, t, want, small), end);
			if (!c)
				break;
			if (c > cuts[k - 1])
				cuts[k++] = c;
		}
	}
	/* the end cut: a mapped window's successor is there already, a
	 * streamed one's is read ahead from it (stream_ahead) */
	const char *end_cut = NULL;
	if (g->threads > 1 && !eof) {
		size_t margin = END_CUT_MARGIN(g->piece_bytes);
		const char *from = end - cuts[k - 1] > (ptrdiff_t)margin ? end - margin : cuts[k - 1] + 1;
		const char *c = piece_guess_boundary(from, end);
		if (c && c > cuts[k - 1])
			end_cut = c;
		else if (k > 1)
			end_cut = cuts[--k]; /* the last piece's start: close enough */
	}
	cuts[k] = end_cut;
	for (unsigned t = 0; t < k; t++)
		piece_start(&b->pieces[t], base, len, eof, cuts[t], cuts[t + 1]);
	b->k = k, b->base = wbase, b->len = len, b->eof = eof, b->end_cut = end_cut;
}

/* Fills in the simple events of b's first k pieces (simple_events.h): on
 * the workers with the builder, when there are workers. */
static int fill_pieces(ingest *g, batch *b, unsigned k, gt_error *err)
{
	uint64_t t0 = g->timed ? gt_clock_ns() : 0;
	bool failed = false;
	if (g->pool.started && k > 1) {
		piece_pool_fill(&g->pool, b->pieces, k);
		for (unsigned t = 0; t < k; t++)
			piece_pool_await(&g->pool, &b->pieces[t]);
		failed = g->pool.fill_failed;
	} else {
		for (unsigned t = 0; t < k && !failed; t++)
			failed = simple_events_fill(&g->builder, &b->pieces[t].simple) < 0;
	}
	if (failed)
		return gt_fail(err, GT_EINPUT, "%s: out of memory", g->path);
	for (unsigned t = 0; t < k; t++)
		gt_builder_merge_piece(&g->builder, &b->pieces[t].simple);
	if (g->timed)
		g->t_fill += gt_clock_ns() - t0;
	return 0;
}

/* Queues rows [from, n + want) of a table of cap rows of size bytes to be
 * faulted in, from where the last call left off (*done). */
static void populate_rows(ingest *g, void *table, size_t size, uint64_t n, uint64_t cap, uint64_t want,
			  uint64_t *done)
{
	uint64_t from = *done > n ? *done : n, to = n + want < cap ? n + want : cap;
	if (table && from < to)
		piece_pool_populate(&g->pool, (char *)table + from * size, (size_t)((to - from) * size));
	if (to > *done)
		*done = to;
}

/* At a window's start on threads: the rows this window and the next will
 * fill, guessed from what the last one made, faulted in on the workers
 * before the fills write them (piece_pool.h). */
static void populate_ahead(ingest *g)
{
	gt_builder *b = &g->builder;
	uint32_t spans = g->m->span_count, points = b->npoints;
	uint64_t made_spans = spans - g->window_spans, made_points = points - g->window_points;
	bool first = g->windows == 0; /* made nothing yet (a resumed parse starts with rows) */
	g->window_spans = spans, g->window_points = points;
	if (first)
		return;
	populate_rows(g, g->m->spans, sizeof *g->m->spans, spans, b->spans_cap, 2 * made_spans, &g->populated_spans);
	populate_rows(g, b->points, sizeof *b->points, points, b->points_cap, 2 * made_points, &g->populated_points);
}

/* The builder's before_tables_move: no range of them may be faulted in
 * while they move, and what was may not move with them. */
static void tables_moving(void *ctx)
{
	ingest *g = ctx;
	piece_pool_stop_populating(&g->pool);
	g->populated_spans = g->m->span_count;
	g->populated_points = g->builder.npoints;
}

/* A streamed window's successor, from its end cut: this window's bytes
 * after the cut, then the input's up to a window. Read once a window, on
 * this thread while the workers parse this one; false where it is not
 * read (bytes read ahead before are still to be taken, or no memory). */
static bool stream_ahead(ingest *g, const char *end_cut)
{
	if (g->next_read)
		return g->next_base == g->win_base + (uint64_t)(end_cut - g->win) && !g->ahead_failed;
	if (g->pend_len || g->ahead_failed || g->next_eof)
		return false;
	if (g->next_cap < g->win_cap) {
		char *w = gt_fault_hit("alloc") ? NULL : realloc(g->next_win, g->win_cap + 8);
		if (!w)
			return false; /* then the refill reads, as without threads */
		g->next_win = w, g->next_cap = g->win_cap;
	}
	uint64_t t0 = g->timed ? gt_clock_ns() : 0;
	size_t cut = (size_t)(end_cut - g->win), len = g->win_len - cut;
	memcpy(g->next_win, end_cut, len);
	gt_error e = {0}; /* kept for the refill that would have met it */
	if (read_input(g, g->next_win, &len, g->win_cap, &g->next_eof, &e) < 0)
		g->ahead_failed = true, g->ahead_err = e;
	g->next_base = g->win_base + cut, g->next_len = len, g->next_read = true;
	if (g->timed)
		g->t_refill += gt_clock_ns() - t0;
	return !g->ahead_failed;
}

/* The batch of the window's events from win[pos] on: the one queued ahead
 * when it starts there, else b cut now. Then the window after it, when it
 * has an end cut, is cut into the other batch and queued. */
static batch *window_batch(ingest *g, size_t pos)
{
	const char *begin = g->win + pos;
	batch *b = &g->batches[g->cur ^ 1];
	if (g->ahead && b->base == g->win_base && b->len == g->win_len && b->eof == g->eof &&
	    b->pieces[0].begin == begin) {
		g->cur ^= 1; /* parsed, or being parsed, ahead */
		g->windows_ahead++;
	} else {
		if (g->ahead)
			piece_pool_cancel(&g->pool);
		b = &g->batches[g->cur];
		cut_window(g, b, g->win_base, g->win, g->win_len, g->eof, begin);
		if (b->k > 1)
			piece_pool_start(&g->pool, &g->builder, g->threads);
		if (g->pool.started)
			piece_pool_parse(&g->pool, b->pieces, b->k);
	}
	if (g->pool.started)
		populate_ahead(g);
	g->ahead = false;
	g->windows++;
	g->win_cut = b->end_cut;
	if (b->end_cut && g->pool.started) {
		uint64_t base = g->win_base + (uint64_t)(b->end_cut - g->win);
		const char *text = NULL;
		bool eof;
		size_t len;
		if (g->map)
			text = g->map + base, len = mapped_window(g, base, &eof);
		else if (stream_ahead(g, b->end_cut))
			text = g->next_win, len = g->next_len, eof = g->next_eof;
		if (text) {
			batch *next = &g->batches[g->cur ^ 1];
			cut_window(g, next, base, text, len, eof, text);
			piece_pool_parse(&g->pool, next->pieces, next->k);
			g->ahead = true;
		}
	}
	return b;
}

/* Parses the events in win[pos..) and builds them in file order; *pos
 * becomes the next element start.
 *
 * The window is cut at guessed event starts into pieces that worker
 * threads parse in order while this thread builds the parsed ones (building
 * is sequential); when the next piece to build is not parsed yet, this
 * thread parses the next unclaimed one itself. A piece that does not end
 * exactly at the next cut (a wrong guess, an error, the array's end)
 * discards the pieces after it, and the window queued ahead: the state
 * machine goes on from where it really ended. */
static int parse_events(ingest *g, size_t *pos, gt_error *err)
{
	batch *b = window_batch(g, *pos);
	/* giving back the pages read took 0.09 s of 4.5 GB on 16 threads, with
	 * the workers idle when it ran between windows */
	gt_input_release(g->in, g->release_to);
	int rc = 0;
	bool more = true;
	unsigned stitched = 0;
	for (unsigned t = 0; t < b->k && rc == 0 && more; t++, stitched++) {
		uint64_t t0 = g->timed ? gt_clock_ns() : 0;
		if (g->pool.started)
			piece_pool_await(&g->pool, &b->pieces[t]);
		else
			piece_parse(&b->pieces[t]);
		uint64_t t1 = g->timed ? gt_clock_ns() : 0;
		rc = stitch_piece(g, &b->pieces[t], t, b->k, pos, &more, err);
		if (g->timed)
			g->t_await += t1 - t0, g->t_build += gt_clock_ns() - t1;
	}
	const piece *last = &b->pieces[b->k - 1];
	bool landed = rc == 0 && stitched == b->k && b->end_cut && last->rc == JL_OK && !last->hit_close &&
		      !last->overshot;
	if (!landed && g->pool.started) {
		piece_pool_cancel(&g->pool); /* no thread is left inside b's pieces, nor ahead */
		g->ahead = false;
		g->win_cut = NULL;
	}
	return rc ? rc : fill_pieces(g, b, stitched, err);
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
			if (p == g->win_cut)
				return 1; /* the next window starts here, maybe parsed already */
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
	g->total_bytes = gt_input_file_size(in);
	m->stats.compression = (uint8_t)gt_input_compression(in);
	g->piece_bytes = PIECE_BYTES, g->split_min = SPLIT_MIN;
	const char *env = getenv("GPUTRACE_INGEST_PIECE"); /* tests: many windows from a small trace */
	long bytes = env ? atol(env) : 0;
	if (bytes >= 16 && (size_t)bytes <= WINDOW_MAX / MAX_PIECES)
		g->piece_bytes = g->split_min = (size_t)bytes;
	unsigned pieces = g->threads * PIECES_PER_THREAD < MAX_PIECES ? g->threads * PIECES_PER_THREAD : MAX_PIECES;
	g->win_cap = g->threads > 1 ? g->piece_bytes * pieces : WINDOW_MIN;
	gt_input_set_decoding(in, g->threads, g->win_cap);
	if (gt_input_map(in, &g->map, &g->map_size))
		g->win = (char *)g->map;
	else
		g->win = gt_fault_hit("alloc") ? NULL : malloc(g->win_cap + 8);
	if (!g->win)
		return gt_fail(err, GT_EINPUT, "out of memory");
	return 0;
}

static void *release_pieces(void *arg)
{
	ingest *g = arg;
	for (int b = 0; b < 2; b++)
		for (int t = 0; t < MAX_PIECES; t++)
			piece_free(&g->batches[b].pieces[t]);
	return NULL;
}

/* Once the last window is built, its pieces' buffers (each a mapping of
 * its own, 256 of them) are given back on a thread beside the finishing:
 * at the command's end, on one thread, their munmaps took 26 ms (2M spans,
 * 2 threads). teardown joins it. */
static void release_pieces_beside(ingest *g)
{
	if (g->threads < 2)
		return; /* -j1 runs one thread */
	if (g->pool.started)
		piece_pool_cancel(&g->pool); /* none is left inside a piece */
	g->releasing = pthread_create(&g->releaser, NULL, release_pieces, g) == 0;
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
	piece_pool_stop_populating(&g->pool);
	release_pieces_beside(g);
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
	if (g->releasing)
		pthread_join(g->releaser, NULL);
	piece_pool_end(&g->pool);
	gt_builder_free(&g->builder);
	release_pieces(g); /* where no thread did: a failure, or -j1 */
	if (!g->map)
		free(g->win);
	free(g->next_win);
}

/* After a failed parse: the compressed stream's own failure within
 * FAILURE_LOOKAHEAD bytes past the window (gt_input_failure_ahead), the
 * bytes already read ahead counted. Plain text's parse error stands. */
static void failure_ahead(ingest *g, gt_error *err)
{
	if (gt_input_compression(g->in) == GT_COMP_NONE)
		return;
	uint64_t end = g->win_base + g->win_len;
	uint64_t beyond = g->read_total > end ? g->read_total - end : 0;
	if (g->ahead_failed) {
		if (beyond < FAILURE_LOOKAHEAD)
			*err = g->ahead_err;
		return;
	}
	if (beyond < FAILURE_LOOKAHEAD && !g->next_eof)
		gt_input_failure_ahead(g->in, FAILURE_LOOKAHEAD - beyond, err);
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
		g.builder.before_tables_move = tables_moving, g.builder.tables_ctx = &g;
		g.timed = getenv("GPUTRACE_INGEST_TIMES") != NULL;
		g.builder.timed = g.timed;
		uint64_t t0 = g.timed ? gt_clock_ns() : 0;
		rc = run(&g, err);
		if (rc < 0)
			failure_ahead(&g, err);
		if (g.timed) /* a diagnostic for whoever profiles ingest, not an interface */
			fprintf(stderr,
				"gputrace: ingest %s, %u threads: %.3f s; the builder thread: reading %.3f s, parsing or waiting "
				"for pieces %.3f s, building %.3f s, filling in %.3f s, finishing %.3f s (tracks %.3f: grouping "
				"%.3f, nesting %.3f, and beside them sorting the flow points %.3f; flows %.3f, lanes %.3f, flow "
				"parents %.3f); %llu windows, %llu of them queued ahead\n",
				path, g.threads, (gt_clock_ns() - t0) / 1e9, g.t_refill / 1e9, g.t_await / 1e9, g.t_build / 1e9,
				g.t_fill / 1e9, g.t_finish / 1e9, g.builder.t_tracks / 1e9, g.builder.t_group / 1e9,
				g.builder.t_nest / 1e9, g.builder.t_points / 1e9, g.builder.t_flows / 1e9,
				g.builder.t_lanes / 1e9, g.builder.t_parents / 1e9, (unsigned long long)g.windows,
				(unsigned long long)g.windows_ahead);
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
		g.builder.before_tables_move = tables_moving, g.builder.tables_ctx = &g;
		rc = run(&g, err);
	}
	teardown(&g);
	return rc;
}
