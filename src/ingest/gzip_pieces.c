/* A gzip member decoded in pieces on threads (see gzip_pieces.h). */
#include "gzip_pieces.h"
#include "decode_errors.h"
#include "deflate_split.h"
#include "base/base.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef GT_FUZZING
#define PIECE_IN (1u << 20) /* compressed bytes a piece spans, about */
#else
/* fuzz builds: tiny pieces, so that small inputs are cut into several */
#define PIECE_IN 256u
#endif
#define AHEAD 2 /* pieces decoded ahead of the reader, beyond one a thread */

enum state { WAITING, DECODING, DECODED, RESOLVING, RESOLVED, FAILED };

#define START_UNKNOWN (-2)
#define START_NONE (-1)

struct piece {
	enum state state;
	int64_t start;          /* first bit, START_NONE: no block found in its span (it is empty) */
	uint64_t in_begin;      /* compressed byte its span starts at */
	gt_deflate_piece a, b;  /* decoded with window a, and with window b */
	uint8_t *window;        /* the 32 KiB before it, once known (the chain) */
	uint64_t out_begin;     /* decoded bytes before it, once known (the chain) */
	uint32_t crc;
};

struct buffer {
	uint8_t *out;
	size_t cap;
};

struct gt_gzpieces {
	const unsigned char *data;
	size_t size;
	size_t piece_in; /* PIECE_IN, or GPUTRACE_GZIP_PIECE (tests: many pieces from a small file) */
	uint64_t max_expansion;
	struct piece *pieces;
	size_t npieces;
	pthread_t *threads;
	unsigned nthreads;
	size_t ahead;       /* pieces decoded at most, from the head on */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next_decode; /* the next piece a worker decodes */
	size_t known;       /* pieces [0, known] have their window (0: the stream's start) */
	bool chain_busy;    /* a worker is making the window after `known` */
	bool chain_broken;  /* no memory for that window: the reader hands back at `known` */
	size_t head;        /* the piece being read */
	size_t head_pos;
	uint64_t delivered; /* decoded bytes of the pieces before the head */
	uint32_t crc;       /* their CRC-32 */
	bool finished;      /* handed back: resume_* say where */
	uint64_t resume_at, resume_skip;
	struct buffer *pool; /* decode buffers given back, reused */
	size_t pooled, pool_cap;
	uint8_t wa[GT_DEFLATE_WINDOW], wb[GT_DEFLATE_WINDOW];
	bool stop;
};

/* ---- buffers: taken and given back under the lock ---- */

static void take_buffer(gt_gzpieces *g, gt_deflate_piece *p)
{
	if (g->pooled && !p->out) {
		struct buffer b = g->pool[--g->pooled];
		p->out = b.out;
		p->cap = b.cap;
	}
}

static void give_buffer(gt_gzpieces *g, gt_deflate_piece *p)
{
	if (p->out && g->pooled < g->pool_cap)
		g->pool[g->pooled++] = (struct buffer){p->out, p->cap};
	else
		free(p->out);
	p->out = NULL;
	p->cap = p->len = 0;
}

/* ---- where pieces start ---- */

static int64_t start_of(gt_gzpieces *g, size_t k)
{
	pthread_mutex_lock(&g->mu);
	int64_t s = g->pieces[k].start;
	pthread_mutex_unlock(&g->mu);
	if (s != START_UNKNOWN)
		return s;
	uint64_t from = g->pieces[k].in_begin * 8;
	uint64_t to = k + 1 < g->npieces ? g->pieces[k + 1].in_begin * 8 : (uint64_t)g->size * 8;
	s = gt_deflate_find_block(g->data, g->size, from, to);
	if (s < 0)
		s = START_NONE;
	pthread_mutex_lock(&g->mu);
	g->pieces[k].start = s; /* another worker may have found it too: the same */
	pthread_mutex_unlock(&g->mu);
	return s;
}

/* Decodes piece k, from its start to the next piece's that has one:
 * DECODED or FAILED, for the caller to set under the lock. */
static enum state decode(gt_gzpieces *g, size_t k)
{
	struct piece *p = &g->pieces[k];
	int64_t start = start_of(g, k);
	if (start == START_NONE) {
		p->a.len = p->b.len = 0;
		return DECODED;
	}
	size_t next = k + 1;
	int64_t end = 0;
	while (next < g->npieces && (end = start_of(g, next)) == START_NONE)
		next++;
	if (next == g->npieces)
		end = 0; /* to the end */
	size_t in_bytes = (size_t)((end ? (uint64_t)end : (uint64_t)g->size * 8) - (uint64_t)start) / 8 + 1;
	size_t max_out = g->max_expansion ? in_bytes * g->max_expansion + GT_BOMB_FLOOR : 0;
	bool ok;
	if (k == 0) {
		ok = gt_deflate_decode_span(g->data, g->size, (uint64_t)start, (uint64_t)end, NULL, max_out, &p->a) == 0;
	} else {
		ok = gt_deflate_decode_span(g->data, g->size, (uint64_t)start, (uint64_t)end, g->wa, max_out, &p->a) == 0 &&
		     gt_deflate_decode_span(g->data, g->size, (uint64_t)start, (uint64_t)end, g->wb, max_out, &p->b) == 0 &&
		     p->a.len == p->b.len && p->a.stop_bit == p->b.stop_bit && p->a.final == p->b.final;
	}
	/* it must end where the next one starts, or be the member's last */
	ok = ok && (p->a.final || (end && p->a.stop_bit == (uint64_t)end));
	return ok ? DECODED : FAILED;
}

/* The window after piece k (its last 32 KiB of true bytes), from its own
 * and its decoded bytes: the chain's one serial step, 32 KiB a piece. */
static bool make_next_window(gt_gzpieces *g, size_t k)
{
	struct piece *p = &g->pieces[k], *q = &g->pieces[k + 1];
	/* no fault point: how many pieces are decoded ahead, and so allocate,
	 * is the schedule's doing (a failure here hands back, read again) */
	uint8_t *w = calloc(1, GT_DEFLATE_WINDOW + GT_DEFLATE_WINDOW_PAD);
	if (!w)
		return false;
	size_t keep = p->a.len < GT_DEFLATE_WINDOW ? p->a.len : GT_DEFLATE_WINDOW;
	uint8_t *tail = w + GT_DEFLATE_WINDOW - keep;
	if (p->window)
		memcpy(w, p->window + keep, GT_DEFLATE_WINDOW - keep);
	else
		memset(w, 0, GT_DEFLATE_WINDOW - keep);
	if (keep) { /* an empty piece passes its window on */
		memcpy(tail, p->a.out + p->a.len - keep, keep);
		if (k > 0)
			gt_deflate_resolve(tail, p->b.out + p->b.len - keep, keep, p->window);
	}
	q->window = w;
	q->out_begin = p->out_begin + p->a.len;
	return true;
}

/* Fills piece k in from its window, and takes its CRC-32. False when it
 * reaches back before the stream's start (into the part of its window
 * that is no output), which one inflate refuses. */
static bool resolve(gt_gzpieces *g, size_t k)
{
	struct piece *p = &g->pieces[k];
	if (k > 0 && p->out_begin < GT_DEFLATE_WINDOW &&
	    gt_deflate_reach(p->a.out, p->b.out, p->a.len) > p->out_begin)
		return false;
	if (k > 0 && p->a.len)
		gt_deflate_resolve(p->a.out, p->b.out, p->a.len, p->window);
	p->crc = gt_crc32(0, p->a.out, p->a.len);
	return true;
}

/* A piece whose bytes are decoded and whose window is known, and whose
 * tail the chain has used (the fill works in place); SIZE_MAX if none. */
static size_t resolvable(const gt_gzpieces *g)
{
	for (size_t k = g->head; k < g->next_decode && k < g->npieces; k++)
		if (g->pieces[k].state == DECODED && (k < g->known || (k == g->known && g->pieces[k].a.final)))
			return k;
	return SIZE_MAX;
}

static void *worker_main(void *arg)
{
	gt_gzpieces *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!g->stop) {
		size_t k = g->known;
		if (!g->chain_busy && !g->chain_broken && k + 1 < g->npieces && g->pieces[k].state != WAITING &&
		    g->pieces[k].state != DECODING && g->pieces[k].state != FAILED && !g->pieces[k].a.final) {
			g->chain_busy = true;
			pthread_mutex_unlock(&g->mu);
			bool ok = make_next_window(g, k);
			pthread_mutex_lock(&g->mu);
			g->chain_busy = false;
			if (ok)
				g->known = k + 1;
			else
				g->chain_broken = true;
			pthread_cond_broadcast(&g->cv);
			continue;
		}
		if ((k = resolvable(g)) != SIZE_MAX) {
			g->pieces[k].state = RESOLVING;
			pthread_mutex_unlock(&g->mu);
			bool ok = resolve(g, k);
			pthread_mutex_lock(&g->mu);
			g->pieces[k].state = ok ? RESOLVED : FAILED;
			give_buffer(g, &g->pieces[k].b);
			pthread_cond_broadcast(&g->cv);
			continue;
		}
		k = g->next_decode;
		if (k < g->npieces && k < g->head + g->ahead) {
			g->next_decode++;
			struct piece *p = &g->pieces[k];
			p->state = DECODING;
			take_buffer(g, &p->a);
			if (k > 0)
				take_buffer(g, &p->b);
			pthread_mutex_unlock(&g->mu);
			enum state done = decode(g, k);
			pthread_mutex_lock(&g->mu);
			p->state = done;
			pthread_cond_broadcast(&g->cv);
			continue;
		}
		pthread_cond_wait(&g->cv, &g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* The byte after a gzip header, 0 unless it is one ISA-L reads without
 * further checks (no header CRC, no reserved flag). */
static size_t header_end(const unsigned char *d, size_t n)
{
	if (n < 18 || d[0] != 0x1f || d[1] != 0x8b || d[2] != 8 || (d[3] & ~(1 | 4 | 8 | 16)))
		return 0;
	size_t p = 10;
	if (d[3] & 4)
		p += 2 + (size_t)(d[10] | d[11] << 8);
	for (unsigned flag = 8; flag <= 16; flag <<= 1)
		if (d[3] & flag) {
			while (p < n && d[p])
				p++;
			p++;
		}
	return p < n ? p : 0;
}

int gt_gzpieces_open(gt_gzpieces **out, const unsigned char *data, size_t size, unsigned threads,
		     uint64_t max_expansion, const char *path, gt_error *err)
{
	*out = NULL;
	size_t hdr = header_end(data, size), piece_in = PIECE_IN;
	const char *env = getenv("GPUTRACE_GZIP_PIECE");
	if (env && atol(env) >= 64)
		piece_in = (size_t)atol(env);
	if (threads < 2 || !hdr || size - hdr < 2 * piece_in)
		return 0;
	gt_gzpieces *g = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *g);
	size_t n = (size - hdr) / piece_in;
	if (g) {
		g->pieces = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *g->pieces);
		g->pool_cap = 2 * ((size_t)threads + AHEAD) + 2;
		g->pool = gt_fault_hit("alloc") ? NULL : calloc(g->pool_cap, sizeof *g->pool);
		g->threads = gt_fault_hit("alloc") ? NULL : calloc(threads, sizeof *g->threads);
	}
	if (!g || !g->pieces || !g->pool || !g->threads) {
		if (g) {
			free(g->pieces);
			free(g->pool);
			free(g->threads);
		}
		free(g);
		return gt_fail(err, GT_EINPUT, "%s: out of memory", path);
	}
	g->data = data;
	g->size = size;
	g->piece_in = piece_in;
	g->ahead = (size_t)threads + AHEAD;
	g->max_expansion = max_expansion;
	g->npieces = n;
	for (size_t k = 0; k < n; k++) {
		g->pieces[k].in_begin = hdr + k * piece_in;
		g->pieces[k].start = START_UNKNOWN;
	}
	g->pieces[0].start = (int64_t)hdr * 8;
	gt_deflate_window_pair(g->wa, g->wb);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	for (unsigned i = 0; i < threads; i++) {
		if (pthread_create(&g->threads[i], NULL, worker_main, g) != 0)
			break;
		g->nthreads++;
	}
	if (g->nthreads == 0) {
		gt_gzpieces_close(g);
		return 0; /* the one-thread inflate reads it */
	}
	*out = g;
	return 1;
}

/* Hands back: the one-thread inflate starts at file_offset (0, or the
 * file's end when it is read), dropping skip decoded bytes. */
static void hand_back(gt_gzpieces *g, uint64_t file_offset, uint64_t skip)
{
	g->finished = true;
	g->resume_at = file_offset;
	g->resume_skip = skip;
}

/* After the member's last piece: its trailer. Where it is right and ends
 * the file, the file is read; otherwise (a wrong trailer, more members or
 * other bytes after it) the one-thread inflate reads the file again, so
 * that its checks of what follows count bytes and blocks as they count
 * them in one pass (the cap on expansion among them). */
static void check_trailer(gt_gzpieces *g, const struct piece *last)
{
	uint64_t end = (last->a.stop_bit + 7) / 8;
	const unsigned char *t = g->data + end;
	if (end + 8 == g->size) {
		uint32_t crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
		uint32_t isize = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
		if (crc == g->crc && isize == (uint32_t)g->delivered) {
			hand_back(g, end + 8, 0);
			return;
		}
	}
	hand_back(g, 0, g->delivered);
}

/* Whether the one-thread inflate's cap on expansion could stop it inside
 * piece p, read after `before` decoded bytes (its check: decoded bytes
 * over compressed bytes consumed, at least the piece's start): then it
 * reads from there, and stops where it would. */
static bool cap_within_reach(const gt_gzpieces *g, const struct piece *p, uint64_t before)
{
	uint64_t out = before + p->a.len, used = (uint64_t)p->start / 8;
	return g->max_expansion && out > GT_BOMB_FLOOR && (used == 0 || out / used > g->max_expansion);
}

/* The copies of one read, cut small so that threads share them: the
 * reader alone copying every decoded byte would be the serial bound of a
 * member decoded on 16 threads, as it was for zstd frames. */
#define PLAN_MAX 64
#define COPY_CUT (1u << 20)
#define COPY_SPLIT (8u << 20) /* below this, one thread copies */

struct copy {
	char *dst;
	const uint8_t *src;
	size_t n;
};

static int copy_range(void *ctx, uint64_t a, uint64_t b)
{
	const struct copy *c = ctx;
	for (uint64_t i = a; i < b; i++)
		memcpy(c[i].dst, c[i].src, c[i].n);
	return 0;
}

/* Plans, under the lock, copies into buf[got, cap) from the resolved
 * pieces from the head on: up to a piece not resolved, the member's last,
 * or one the cap on expansion could stop. Returns the copies; *total their
 * bytes. */
static unsigned plan_copies(const gt_gzpieces *g, char *buf, size_t got, size_t cap, struct copy *plan,
			    size_t *total)
{
	unsigned k = 0;
	size_t pos = g->head_pos;
	uint64_t before = g->delivered;
	*total = 0;
	for (size_t j = g->head; j < g->npieces && got + *total < cap && k < PLAN_MAX; j++, pos = 0) {
		const struct piece *p = &g->pieces[j];
		if (p->state != RESOLVED || (pos == 0 && p->a.len && cap_within_reach(g, p, before)))
			break;
		while (pos < p->a.len && got + *total < cap && k < PLAN_MAX) {
			size_t n = p->a.len - pos;
			n = n < COPY_CUT ? n : COPY_CUT;
			n = n < cap - got - *total ? n : cap - got - *total;
			plan[k++] = (struct copy){buf + got + *total, p->a.out + pos, n};
			*total += n;
			pos += n;
		}
		if (pos < p->a.len || p->a.final)
			break;
		before += p->a.len;
	}
	return k;
}

/* After a read's copies of `n` bytes: the pieces read to their end are
 * counted and given back, under the lock. */
static void advance(gt_gzpieces *g, size_t n)
{
	while (n || (g->head < g->npieces && g->pieces[g->head].state == RESOLVED && !g->pieces[g->head].a.len)) {
		struct piece *p = &g->pieces[g->head];
		size_t left = p->a.len - g->head_pos, take = n < left ? n : left;
		g->head_pos += take;
		n -= take;
		if (g->head_pos < p->a.len)
			break;
		g->crc = g->delivered ? (uint32_t)crc32_combine(g->crc, p->crc, (z_off_t)p->a.len) : p->crc;
		g->delivered += p->a.len;
		g->head_pos = 0;
		bool final = p->a.final;
		give_buffer(g, &p->a);
		free(p->window);
		p->window = NULL;
		g->head++;
		if (final) {
			check_trailer(g, p);
			break;
		}
	}
	pthread_cond_broadcast(&g->cv);
}

long gt_gzpieces_read(gt_gzpieces *g, char *buf, size_t cap)
{
	size_t got = 0;
	struct copy plan[PLAN_MAX];
	pthread_mutex_lock(&g->mu);
	while (got < cap && !g->finished) {
		if (g->head == g->npieces) { /* no piece held the final block */
			hand_back(g, 0, g->delivered);
			break;
		}
		struct piece *p = &g->pieces[g->head];
		if (p->state == FAILED || (g->chain_broken && g->head >= g->known)) {
			hand_back(g, 0, g->delivered);
			break;
		}
		if (p->state != RESOLVED) {
			if (got)
				break; /* the bytes so far first */
			pthread_cond_wait(&g->cv, &g->mu);
			continue;
		}
		if (g->head_pos == 0 && p->a.len && cap_within_reach(g, p, g->delivered)) {
			hand_back(g, 0, g->delivered);
			break;
		}
		size_t total;
		unsigned k = plan_copies(g, buf, got, cap, plan, &total);
		pthread_mutex_unlock(&g->mu); /* resolved pieces are not touched by the workers */
		if (total < COPY_SPLIT || g->nthreads < 2)
			copy_range(plan, 0, k);
		else
			gt_parallel_ranges(k, 1, g->nthreads, copy_range, plan);
		pthread_mutex_lock(&g->mu);
		got += total;
		advance(g, total);
	}
	pthread_mutex_unlock(&g->mu);
	return (long)got;
}

void gt_gzpieces_resume(const gt_gzpieces *g, uint64_t *file_offset, uint64_t *skip)
{
	*file_offset = g->resume_at;
	*skip = g->resume_skip;
}

uint64_t gt_gzpieces_consumed(gt_gzpieces *g)
{
	pthread_mutex_lock(&g->mu);
	uint64_t n = g->head < g->npieces ? g->pieces[g->head].in_begin : g->size;
	pthread_mutex_unlock(&g->mu);
	return n;
}

void gt_gzpieces_close(gt_gzpieces *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	for (unsigned i = 0; i < g->nthreads; i++)
		pthread_join(g->threads[i], NULL);
	for (size_t k = 0; k < g->npieces; k++) {
		gt_deflate_piece_free(&g->pieces[k].a);
		gt_deflate_piece_free(&g->pieces[k].b);
		free(g->pieces[k].window);
	}
	for (size_t i = 0; i < g->pooled; i++)
		free(g->pool[i].out);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g->pool);
	free(g->threads);
	free(g->pieces);
	free(g);
}
