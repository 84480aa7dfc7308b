/* Decoding the frames of a zstd file on threads (see zstd_frames.h). */
#include "zstd_frames.h"
#include "decode_errors.h"
#include "base/base.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#ifndef GT_FUZZING
#define UNIT_MIN (1u << 20)          /* compressed bytes a unit holds at least */
#define OUT_BLOCK (4u << 20)         /* decoded bytes per block handed over */
#define BUDGET_PER_THREAD (32u << 20) /* decoded bytes waiting ahead of the reader, per worker */
#define BUDGET_MIN (64u << 20)
#else
/* fuzz builds: tiny units and blocks, so that small inputs cross them */
#define UNIT_MIN 32u
#define OUT_BLOCK 64u
#define BUDGET_PER_THREAD 64u
#define BUDGET_MIN 128u
#endif
#define HEAD_BLOCKS 4          /* blocks the unit being read may queue past the budget */
/* The cap on expansion is checked by the reader, as input.c checks it: at
 * the end of each block, the decoded bytes read against the compressed
 * bytes consumed to make them. Workers ahead are held by the budget. */

enum fail { FAIL_NONE, FAIL_CORRUPT, FAIL_MEMORY };

struct zblock {
	struct zblock *next;
	size_t len;
	uint64_t in_end; /* compressed bytes of the file consumed once it was decoded */
	char data[];
};

struct unit {
	size_t begin, end;           /* compressed byte range */
	struct zblock *first, *last; /* decoded, not yet read */
	unsigned queued;
	uint64_t out;                /* decoded bytes so far */
	bool done, truncated;
	enum fail fail;
	const char *zstd_error;
	uint64_t fail_at;            /* the unit's decoded bytes before the failing frame */
};

struct gt_zframes {
	const unsigned char *data;
	const char *path;
	uint64_t max_expansion;
	struct unit *units;
	size_t nunits;
	pthread_t *threads;
	unsigned nthreads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next_unit;   /* the next a worker takes */
	size_t head;        /* the unit being read */
	size_t head_pos;    /* read position in the head's first block */
	uint64_t delivered; /* decoded bytes of the units before the head */
	uint64_t read;      /* decoded bytes read */
	uint64_t ratio;     /* past the cap on expansion: the ratio, reported at the next read (z->read) */
	uint64_t buffered;  /* decoded bytes waiting, all units */
	uint64_t budget;    /* the most that may wait, beyond the head's few blocks */
	bool stop, truncated;
};

/* Whether the worker of unit ui may hand over one more block now. */
static bool has_room(const gt_zframes *z, size_t ui)
{
	if (ui == z->head)
		return z->units[ui].queued < HEAD_BLOCKS || z->buffered < z->budget;
	return z->buffered < z->budget;
}

/* Hands b over (NULL: none); returns false when the reader stopped. */
static bool hand_over(gt_zframes *z, size_t ui, struct zblock *b, bool last)
{
	struct unit *u = &z->units[ui];
	pthread_mutex_lock(&z->mu);
	while (!z->stop && !has_room(z, ui))
		pthread_cond_wait(&z->cv, &z->mu);
	bool stopped = z->stop;
	if (!stopped && b && b->len) {
		b->next = NULL;
		if (u->last)
			u->last->next = b;
		else
			u->first = b;
		u->last = b;
		u->queued++;
		z->buffered += b->len;
		u->out += b->len;
		b = NULL;
	}
	if (last)
		u->done = true;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->mu);
	free(b);
	return !stopped;
}

static void decode(gt_zframes *z, ZSTD_DCtx *dc, size_t ui)
{
	struct unit *u = &z->units[ui];
	ZSTD_inBuffer ib = {z->data + u->begin, u->end - u->begin, 0};
	bool in_frame = true; /* as input.c: a unit ending before any output is cut */
	uint64_t out = 0, frame_start = 0;
	if (!dc || ZSTD_isError(ZSTD_DCtx_reset(dc, ZSTD_reset_session_only))) {
		u->fail = FAIL_MEMORY;
		hand_over(z, ui, NULL, true);
		return;
	}
	for (;;) {
		struct zblock *b = gt_fault_hit("alloc") ? NULL : malloc(sizeof *b + OUT_BLOCK);
		if (!b) {
			u->fail = FAIL_MEMORY;
			u->fail_at = out;
			hand_over(z, ui, NULL, true);
			return;
		}
		ZSTD_outBuffer ob = {b->data, OUT_BLOCK, 0};
		bool end = false;
		while (ob.pos < ob.size) {
			size_t before = ob.pos, consumed = ib.pos;
			size_t rc = ZSTD_decompressStream(dc, &ob, &ib);
			if (ZSTD_isError(rc)) {
				u->fail = FAIL_CORRUPT;
				u->zstd_error = ZSTD_getErrorName(rc);
				u->fail_at = frame_start; /* as input.c */
				end = true;
				break;
			}
			if (ob.pos == before && ib.pos == consumed) {
				end = true; /* the input is spent and nothing more comes out */
				break;
			}
			in_frame = rc != 0; /* 0: a frame just ended */
			if (rc == 0)
				frame_start = out + ob.pos;
		}
		b->len = ob.pos;
		b->in_end = u->begin + ib.pos;
		out += ob.pos;
		if (end && !u->fail)
			u->truncated = in_frame;
		if (!hand_over(z, ui, b, end) || end)
			return;
	}
}

static void *worker_main(void *arg)
{
	gt_zframes *z = arg;
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	pthread_mutex_lock(&z->mu);
	while (!z->stop && z->next_unit < z->nunits) {
		size_t ui = z->next_unit++;
		pthread_mutex_unlock(&z->mu);
		decode(z, dc, ui);
		pthread_mutex_lock(&z->mu);
	}
	pthread_mutex_unlock(&z->mu);
	ZSTD_freeDCtx(dc);
	return NULL;
}

/* Cuts data into units at frame boundaries; the tail from the first frame
 * that does not parse (cut or corrupt) goes to the last unit, whose decoder
 * meets it as the one-thread decoder would. Returns the unit count, 0 on
 * no memory. */
static size_t cut_units(const unsigned char *data, size_t size, size_t unit_min, struct unit **out)
{
	size_t cap = size / unit_min + 2, n = 0;
	struct unit *u = gt_fault_hit("alloc") ? NULL : calloc(cap, sizeof *u);
	if (!u)
		return 0;
	size_t begin = 0, off = 0;
	while (off < size) {
		size_t len = ZSTD_findFrameCompressedSize(data + off, size - off);
		if (ZSTD_isError(len) || len == 0)
			break;
		off += len;
		if (off - begin >= unit_min && off < size) {
			u[n].begin = begin;
			u[n++].end = off;
			begin = off;
		}
	}
	u[n].begin = begin;
	u[n++].end = size;
	*out = u;
	return n;
}

int gt_zframes_open(gt_zframes **out, const unsigned char *data, size_t size, unsigned threads,
		    uint64_t max_expansion, const char *path, gt_error *err)
{
	*out = NULL;
	if (threads < 2 || size < 2 * (size_t)UNIT_MIN)
		return 0;
	gt_zframes *z = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *z);
	if (!z)
		return gt_fail(err, GT_EINPUT, "%s: out of memory", path);
	/* small units: a worker ahead of the reader holds its unit's output */
	z->nunits = cut_units(data, size, UNIT_MIN, &z->units);
	if (z->nunits == 0) {
		free(z);
		return gt_fail(err, GT_EINPUT, "%s: out of memory", path);
	}
	if (z->nunits < 2) {
		free(z->units);
		free(z);
		return 0;
	}
	z->data = data;
	z->path = path;
	z->max_expansion = max_expansion;
	if (threads > z->nunits)
		threads = (unsigned)z->nunits;
	z->budget = (uint64_t)threads * BUDGET_PER_THREAD;
	if (z->budget < BUDGET_MIN)
		z->budget = BUDGET_MIN;
	z->threads = gt_fault_hit("alloc") ? NULL : calloc(threads, sizeof *z->threads);
	if (!z->threads) {
		free(z->units);
		free(z);
		return gt_fail(err, GT_EINPUT, "%s: out of memory", path);
	}
	pthread_mutex_init(&z->mu, NULL);
	pthread_cond_init(&z->cv, NULL);
	for (unsigned i = 0; i < threads; i++) {
		if (pthread_create(&z->threads[i], NULL, worker_main, z) != 0)
			break;
		z->nthreads++;
	}
	if (z->nthreads == 0) {
		gt_zframes_close(z);
		return gt_fail(err, GT_EINPUT, "%s: cannot start the zstd threads", path);
	}
	*out = z;
	return 1;
}

/* The failure of the unit just read, in input.c's words. */
static int report(const gt_zframes *z, const struct unit *u, gt_error *err)
{
	unsigned long long at = (unsigned long long)(z->delivered + u->fail_at);
	if (u->fail == FAIL_CORRUPT)
		return gt_fail_corrupt_zstd(err, z->path, at, u->zstd_error);
	return gt_fail(err, GT_EINPUT, "%s: byte %llu: out of memory decoding zstd", z->path, at);
}

/* The copies of one read: a run of the head unit's blocks, copied on
 * threads (one thread copying every decoded byte into the window was the
 * bound of a multi-frame file on 16 cores). */
#define PLAN_MAX 64
#define COPY_SPLIT (8u << 20) /* below this, one memcpy */

struct copy {
	char *dst;
	const char *src;
	size_t n;
};

static int copy_range(void *ctx, uint64_t a, uint64_t b)
{
	const struct copy *c = ctx;
	for (uint64_t i = a; i < b; i++)
		memcpy(c[i].dst, c[i].src, c[i].n);
	return 0;
}

/* Plans copies from the head unit's blocks into buf[got..cap), under the
 * lock: as far as they are decoded, and no further than the block after
 * which the cap on expansion stops the read. */
static unsigned plan_copies(const gt_zframes *z, const struct unit *u, char *buf, size_t got, size_t cap,
			    struct copy *plan, size_t *total)
{
	unsigned k = 0;
	size_t pos = z->head_pos;
	uint64_t read = z->read;
	*total = 0;
	for (const struct zblock *b = u->first; b && got + *total < cap && k < PLAN_MAX; b = b->next, pos = 0) {
		size_t n = b->len - pos;
		if (n > cap - got - *total)
			n = cap - got - *total;
		plan[k++] = (struct copy){buf + got + *total, b->data + pos, n};
		*total += n;
		read += n;
		if (pos + n < b->len)
			break;
		if (z->max_expansion && read > GT_BOMB_FLOOR && b->in_end && read / b->in_end > z->max_expansion)
			break; /* the read stops after this block */
	}
	return k;
}

long gt_zframes_read(gt_zframes *z, char *buf, size_t cap, gt_error *err)
{
	size_t got = 0;
	int rc = 0;
	if (z->ratio)
		return gt_fail_expansion(err, z->path, z->read, z->ratio, z->max_expansion);
	struct copy plan[PLAN_MAX];
	pthread_mutex_lock(&z->mu);
	while (got < cap && z->head < z->nunits && !z->ratio) {
		struct unit *u = &z->units[z->head];
		if (!u->first) {
			if (!u->done) {
				pthread_cond_wait(&z->cv, &z->mu);
				continue;
			}
			if (u->fail) {
				if (got == 0)
					rc = report(z, u, err);
				break; /* the bytes before the failure first */
			}
			z->truncated = u->truncated;
			z->delivered += u->out;
			z->head++;
			pthread_cond_broadcast(&z->cv);
			continue;
		}
		size_t total;
		unsigned k = plan_copies(z, u, buf, got, cap, plan, &total);
		pthread_mutex_unlock(&z->mu); /* workers only append behind the planned blocks */
		if (total < COPY_SPLIT || z->nthreads < 2)
			copy_range(plan, 0, k);
		else
			gt_parallel_ranges(k, 1, z->nthreads, copy_range, plan);
		pthread_mutex_lock(&z->mu);
		for (unsigned i = 0; i < k; i++) {
			struct zblock *b = u->first;
			got += plan[i].n;
			z->read += plan[i].n;
			z->head_pos += plan[i].n;
			if (z->head_pos < b->len)
				break;
			if (z->max_expansion && z->read > GT_BOMB_FLOOR && b->in_end && z->read / b->in_end > z->max_expansion)
				z->ratio = z->read / b->in_end; /* reported at the next read */
			u->first = b->next;
			if (!u->first)
				u->last = NULL;
			u->queued--;
			z->buffered -= b->len;
			z->head_pos = 0;
			free(b);
		}
		pthread_cond_broadcast(&z->cv);
	}
	pthread_mutex_unlock(&z->mu);
	return rc < 0 ? -1 : (long)got;
}

uint64_t gt_zframes_consumed(gt_zframes *z)
{
	pthread_mutex_lock(&z->mu);
	uint64_t n = z->head < z->nunits ? z->units[z->head].begin : z->units[z->nunits - 1].end;
	pthread_mutex_unlock(&z->mu);
	return n;
}

bool gt_zframes_truncated(gt_zframes *z)
{
	pthread_mutex_lock(&z->mu);
	bool t = z->truncated;
	pthread_mutex_unlock(&z->mu);
	return t;
}

void gt_zframes_close(gt_zframes *z)
{
	if (!z)
		return;
	pthread_mutex_lock(&z->mu);
	z->stop = true;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->mu);
	for (unsigned i = 0; i < z->nthreads; i++)
		pthread_join(z->threads[i], NULL);
	for (size_t i = 0; i < z->nunits; i++)
		for (struct zblock *b = z->units[i].first, *next; b; b = next) {
			next = b->next;
			free(b);
		}
	pthread_mutex_destroy(&z->mu);
	pthread_cond_destroy(&z->cv);
	free(z->threads);
	free(z->units);
	free(z);
}
