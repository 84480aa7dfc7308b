/* Trace input with a decompression thread.
 *
 * The reader thread fills a small ring of blocks; gt_input_read copies out of
 * it. For plain files the thread only read()s, which still overlaps I/O with
 * parsing. gzip goes through ISA-L's inflate (2.7x zlib's on the traces
 * here), or zlib's when GPUTRACE_INFLATE=zlib: the same bytes out. */
#include "input.h"
#include "decode_errors.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>
#include <zstd.h>

#include "model/model.h"
#include "base/base.h"
#include "zstd_frames.h"
#include "gzip_pieces.h"

#ifndef GT_FUZZING
#define BLOCK_SIZE (4u << 20)
#define RAW_SIZE (1u << 20)
#else
/* fuzz builds: small blocks so small inputs cross block and read edges */
#define BLOCK_SIZE 256u
#define RAW_SIZE 64u
#endif
/* From this many threads a single gzip member is decoded in pieces
 * (gzip_pieces.h): it costs about twice the CPU of one inflate, which
 * fewer threads do not have to spare. GPUTRACE_INFLATE=pieces: from 2. */
#ifndef GT_FUZZING
#define PIECES_THREADS 8
#else
#define PIECES_THREADS 2 /* fuzz builds: the pieces (of 256 bytes) on the harness's two threads */
#endif
/* The ring holds the parse's window (gt_input_set_decoding), so that the
 * reader fills the next one while this one is parsed: with half of a 32 MiB
 * window, the parse's refills waited for the reader, a core idle, and gzip
 * was 5-10% slower. MIN_BLOCKS serve the narrower windows. */
#define NBLOCKS 8
#define MIN_BLOCKS 4

struct block {
	char *data;
	size_t len;
};

struct gt_input {
	int fd;
	const char *path;
	const char *map; /* whole plain regular files are mapped, not copied */
	uint64_t released; /* bytes of the map already given back */
	int compression;
	uint64_t max_expansion;
	uint64_t file_size;
	unsigned char head[16];
	size_t head_len;

	/* producer state (reader thread) */
	unsigned char *raw;
	size_t raw_len, raw_pos;
	bool raw_eof;
	bool truncated; /* the compressed stream ended inside a member or frame */
	z_stream zs;
	struct inflate_state *isal; /* gzip through ISA-L; NULL: zlib */
	bool zs_live;
	ZSTD_DCtx *zd;
	uint64_t raw_total; /* compressed bytes read; the consumer reads it for progress, atomically */
	uint64_t out_total; /* decompressed bytes in filled blocks (the bomb check) */
	uint64_t out_pos;   /* decompressed bytes produced (an error's offset) */
	uint64_t frame_start; /* zstd: decompressed bytes before the frame being decoded */

	/* a zstd file of several frames: decoded on threads (zstd_frames.h) */
	unsigned threads;
	void *zmap; /* the compressed file, mapped */
	gt_zframes *zf;
	/* a gzip member in pieces on threads (gzip_pieces.h), and after it
	 * hands back to the one-thread inflate, the bytes it must drop */
	gt_gzpieces *gp;
	unsigned pieces_from; /* threads from which a gzip member is decoded in pieces */
	uint64_t discard;

	/* ring, filled once the first read starts the thread */
	pthread_t thread;
	bool ring, thread_started, started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block blocks[NBLOCKS];
	unsigned nblocks;       /* the ring's blocks in use */
	unsigned head_i, count; /* consumer reads blocks[head_i], count filled */
	bool done, stop;
	gt_error perr; /* producer's error, reported by the consumer */
	bool failed;   /* a read failed: its error was reported */
	size_t cur_pos;  /* position inside blocks[head_i] */
};

/* read(2), failing with EIO where a test injects a "read" fault */
static ssize_t fault_read(int fd, void *buf, size_t n)
{
	if (gt_fault_hit("read")) {
		errno = EIO;
		return -1;
	}
	return read(fd, buf, n);
}

static int read_raw(gt_input *in, gt_error *err)
{
	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	ssize_t n;
	do
		n = fault_read(in->fd, in->raw, RAW_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return gt_fail(err, GT_EINPUT, "%s: read error: %s", in->path, strerror(errno));
	in->raw_len = (size_t)n;
	in->raw_pos = 0;
	__atomic_fetch_add(&in->raw_total, (uint64_t)n, __ATOMIC_RELAXED);
	if (n == 0)
		in->raw_eof = true;
	return 0;
}

/* One inflate call over the raw bytes left (avail > 0): bytes out, 0 for
 * none yet, -1 with err. A finished member lets the next one start
 * (concatenated gzip). */
static long inflate_zlib(gt_input *in, size_t avail, char *dst, size_t cap, gt_error *err)
{
	if (!in->zs_live) {
		if (inflateReset(&in->zs) != Z_OK)
			return gt_fail(err, GT_EINPUT, "%s: gzip reset failed", in->path);
		in->zs_live = true;
	}
	in->zs.next_in = in->raw + in->raw_pos;
	in->zs.avail_in = (uInt)avail;
	in->zs.next_out = (Bytef *)dst;
	in->zs.avail_out = (uInt)cap;
	int rc = inflate(&in->zs, Z_NO_FLUSH);
	in->raw_pos = (size_t)(in->zs.next_in - in->raw);
	size_t got = cap - in->zs.avail_out;
	if (rc == Z_STREAM_END)
		in->zs_live = false;
	else if (rc != Z_OK && rc != Z_BUF_ERROR)
		return gt_fail(err, GT_EINPUT, "%s: byte %llu: corrupt gzip data (%s)", in->path,
			       (unsigned long long)(in->out_pos + got), in->zs.msg ? in->zs.msg : "inflate failed");
	return (long)got;
}

/* ISA-L's errors in zlib's words. */
static const char *isal_error(int rc)
{
	switch (rc) {
	case ISAL_INVALID_BLOCK:
		return "invalid block type";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		return "incorrect data check";
	default:
		return "inflate failed";
	}
}

static long inflate_isal(gt_input *in, size_t avail, char *dst, size_t cap, gt_error *err)
{
	struct inflate_state *st = in->isal;
	if (!in->zs_live) {
		isal_inflate_reset(st);
		st->crc_flag = ISAL_GZIP;
		in->zs_live = true;
	}
	st->next_in = in->raw + in->raw_pos;
	st->avail_in = (uint32_t)avail;
	st->next_out = (uint8_t *)dst;
	st->avail_out = (uint32_t)cap;
	int rc = isal_inflate(st);
	in->raw_pos = (size_t)(st->next_in - in->raw);
	size_t got = cap - st->avail_out;
	if (rc < 0)
		return gt_fail(err, GT_EINPUT, "%s: byte %llu: corrupt gzip data (%s)", in->path,
			       (unsigned long long)(in->out_pos + got), isal_error(rc));
	if (st->block_state == ISAL_BLOCK_FINISH)
		in->zs_live = false;
	return (long)got;
}

/* Fills dst with up to cap decompressed bytes; returns count, 0 at the end. */
static long produce(gt_input *in, char *dst, size_t cap, gt_error *err)
{
	for (;;) {
		if (read_raw(in, err) < 0)
			return -1;
		size_t avail = in->raw_len - in->raw_pos;
		if (in->compression == GT_COMP_NONE) {
			if (avail == 0)
				return 0;
			size_t n = avail < cap ? avail : cap;
			memcpy(dst, in->raw + in->raw_pos, n);
			in->raw_pos += n;
			return (long)n;
		}
		if (in->compression == GT_COMP_GZIP) {
			if (avail == 0) {
				in->truncated = in->zs_live; /* cut short: what came through is kept */
				return 0;
			}
			long got = in->isal ? inflate_isal(in, avail, dst, cap, err) : inflate_zlib(in, avail, dst, cap, err);
			if (got != 0)
				return got;
			continue;
		}
		/* zstd */
		if (avail == 0) {
			in->truncated = in->zs_live;
			return 0;
		}
		ZSTD_inBuffer ib = {in->raw, in->raw_len, in->raw_pos};
		ZSTD_outBuffer ob = {dst, cap, 0};
		size_t rc = ZSTD_decompressStream(in->zd, &ob, &ib);
		in->raw_pos = ib.pos;
		/* located at the frame's start: what a failing call wrote is not
		 * counted, so a finer place would depend on the buffers' sizes */
		if (ZSTD_isError(rc))
			return gt_fail_corrupt_zstd(err, in->path, in->frame_start, ZSTD_getErrorName(rc));
		in->zs_live = rc != 0; /* 0: a frame just ended */
		if (rc == 0)
			in->frame_start = in->out_pos + ob.pos;
		if (ob.pos)
			return (long)ob.pos;
	}
}

static void *reader_main(void *arg)
{
	gt_input *in = arg;
	for (;;) {
		pthread_mutex_lock(&in->mu);
		while (in->count == in->nblocks && !in->stop)
			pthread_cond_wait(&in->cv, &in->mu);
		if (in->stop) {
			pthread_mutex_unlock(&in->mu);
			return NULL;
		}
		unsigned slot = (in->head_i + in->count) % in->nblocks;
		pthread_mutex_unlock(&in->mu);

		struct block *b = &in->blocks[slot];
		size_t len = 0;
		gt_error e = {0};
		long n = 0;
		while (len < BLOCK_SIZE && (n = produce(in, b->data + len, BLOCK_SIZE - len, &e)) > 0) {
			len += (size_t)n;
			in->out_pos += (uint64_t)n;
		}
		in->out_total += len;
		/* compressed bytes consumed so far, not read ahead */
		uint64_t used = in->raw_total - (in->raw_len - in->raw_pos);
		if (n >= 0 && in->max_expansion && used > 0 &&
		    in->out_total / used > in->max_expansion && in->out_total > GT_BOMB_FLOOR) {
			gt_fail_expansion(&e, in->path, in->out_total, in->out_total / used, in->max_expansion);
			n = -1;
		}
		b->len = len;
		pthread_mutex_lock(&in->mu);
		in->count++;
		if (n <= 0) {
			in->done = true;
			if (n < 0)
				in->perr = e;
		}
		pthread_cond_broadcast(&in->cv);
		pthread_mutex_unlock(&in->mu);
		if (n <= 0)
			return NULL;
	}
}

static int detect(gt_input *in, gt_error *err)
{
	/* Read the first block synchronously to see the magic bytes. */
	if (read_raw(in, err) < 0)
		return -1;
	while (in->raw_len < sizeof in->head && !in->raw_eof) {
		ssize_t n = fault_read(in->fd, in->raw + in->raw_len, RAW_SIZE - in->raw_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gt_fail(err, GT_EINPUT, "%s: read error: %s", in->path, strerror(errno));
		if (n == 0)
			in->raw_eof = in->raw_len == 0;
		if (n == 0)
			break;
		in->raw_len += (size_t)n;
		in->raw_total += (uint64_t)n;
	}
	in->raw_eof = false; /* re-detected by the next read */
	in->head_len = in->raw_len < sizeof in->head ? in->raw_len : sizeof in->head;
	memcpy(in->head, in->raw, in->head_len);
	const unsigned char *h = in->raw;
	if (in->raw_len >= 2 && h[0] == 0x1f && h[1] == 0x8b) {
		in->compression = GT_COMP_GZIP;
		const char *which = getenv("GPUTRACE_INFLATE");
		if (which && strcmp(which, "zlib") && strcmp(which, "isal") && strcmp(which, "pieces") &&
		    strcmp(which, "serial"))
			return gt_fail(err, GT_EUSAGE, "GPUTRACE_INFLATE is isal, pieces, serial or zlib, not '%s'", which);
		in->pieces_from = !which || !strcmp(which, "isal") ? PIECES_THREADS
				: !strcmp(which, "pieces")		  ? 2
									  : UINT_MAX;
		if (which && !strcmp(which, "zlib")) {
			if (inflateInit2(&in->zs, 15 + 16) != Z_OK)
				return gt_fail(err, GT_EINPUT, "%s: cannot initialise gzip", in->path);
		} else {
			if (!(in->isal = malloc(sizeof *in->isal)))
				return gt_fail(err, GT_EINPUT, "%s: out of memory for gzip", in->path);
			isal_inflate_init(in->isal);
			in->isal->crc_flag = ISAL_GZIP;
		}
		in->zs_live = true;
	} else if (in->raw_len >= 4 && ((h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd) ||
					 /* a skippable frame first, as pzstd writes */
					 ((h[0] & 0xf0) == 0x50 && h[1] == 0x2a && h[2] == 0x4d && h[3] == 0x18))) {
		in->compression = GT_COMP_ZSTD;
		in->zd = ZSTD_createDCtx();
		if (!in->zd)
			return gt_fail(err, GT_EINPUT, "%s: cannot initialise zstd", in->path);
		in->zs_live = true;
	}
	return 0;
}

int gt_input_open(gt_input **out, const char *path, uint64_t max_expansion, gt_error *err)
{
	*out = NULL;
	gt_input *in = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *in);
	if (!in)
		return gt_fail(err, GT_EINPUT, "out of memory");
	in->path = strcmp(path, "-") == 0 ? "<stdin>" : path;
	in->max_expansion = max_expansion;
	in->fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(errno));
		free(in);
		return -1;
	}
	struct stat st;
	if (fstat(in->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			gt_fail(err, GT_EINPUT, "cannot read '%s': is a directory", path);
			goto fail;
		}
		/* a file is mapped whole only when reading starts at its
		 * beginning (not a standard input already partly read) */
		if (S_ISREG(st.st_mode) && lseek(in->fd, 0, SEEK_CUR) == 0)
			in->file_size = (uint64_t)st.st_size;
	}
	in->raw = gt_fault_hit("alloc") ? NULL : malloc(RAW_SIZE);
	if (!in->raw) {
		gt_fail(err, GT_EINPUT, "out of memory");
		goto fail;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if (detect(in, err) < 0)
		goto fail;
	if (in->compression == GT_COMP_NONE && in->file_size > 0 && in->file_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)in->file_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, (size_t)in->file_size, MADV_SEQUENTIAL);
			in->map = m;
			in->raw_total = in->file_size;
			*out = in;
			return 0;
		}
	}
	pthread_mutex_init(&in->mu, NULL);
	pthread_cond_init(&in->cv, NULL);
	in->ring = true;
	in->nblocks = MIN_BLOCKS; /* allocated at the first read, when their number is known */
	*out = in;
	return 0;
fail:
	if ((in->zs_live || in->compression == GT_COMP_GZIP) && !in->isal)
		inflateEnd(&in->zs);
	free(in->isal);
	ZSTD_freeDCtx(in->zd);
	free(in->raw);
	if (in->fd > 0)
		close(in->fd);
	free(in);
	return -1;
}

void gt_input_set_decoding(gt_input *in, unsigned threads, size_t window)
{
	in->threads = threads;
	size_t blocks = (window + BLOCK_SIZE - 1) / BLOCK_SIZE; /* before the reader starts, at the first read */
	in->nblocks = blocks < MIN_BLOCKS ? MIN_BLOCKS : blocks > NBLOCKS ? NBLOCKS : (unsigned)blocks;
}

static int start_ring(gt_input *in, gt_error *err)
{
	for (unsigned i = 0; i < in->nblocks; i++) { /* pages untouched until the reader fills a block */
		if (!in->blocks[i].data)
			in->blocks[i].data = gt_fault_hit("alloc") ? NULL : malloc(BLOCK_SIZE);
		if (!in->blocks[i].data)
			return gt_fail(err, GT_EINPUT, "%s: out of memory", in->path);
	}
	if (pthread_create(&in->thread, NULL, reader_main, in) != 0)
		return gt_fail(err, GT_EINPUT, "%s: cannot start the reader thread", in->path);
	in->thread_started = in->started = true;
	return 0;
}

/* At the first read: the frames' workers for a zstd file of several frames,
 * or the pieces' for a gzip file (given threads), else the reader thread. */
static int start(gt_input *in, gt_error *err)
{
	bool zstd = in->compression == GT_COMP_ZSTD && in->threads > 1;
	bool gzip = in->compression == GT_COMP_GZIP && in->isal && in->threads >= in->pieces_from;
	if ((zstd || gzip) && in->file_size > 0 && in->file_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)in->file_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, (size_t)in->file_size, MADV_SEQUENTIAL);
			int rc = zstd ? gt_zframes_open(&in->zf, m, (size_t)in->file_size, in->threads,
							in->max_expansion, in->path, err)
				      : gt_gzpieces_open(&in->gp, m, (size_t)in->file_size, in->threads,
							 in->max_expansion, in->path, err);
			if (rc < 0) {
				munmap(m, (size_t)in->file_size);
				return -1;
			}
			if (rc == 1) {
				in->zmap = m;
				in->started = true;
				return 0;
			}
			munmap(m, (size_t)in->file_size);
		}
	}
	return start_ring(in, err);
}

/* The pieces handed back: at the file's end, nothing is left to read;
 * otherwise the one-thread inflate reads the file again from its start
 * and drops the bytes already read, so that what follows, an error
 * included, is its own, counted as it counts. */
static int resume_one_thread(gt_input *in, gt_error *err)
{
	uint64_t at, skip;
	gt_gzpieces_resume(in->gp, &at, &skip);
	if (getenv("GPUTRACE_INGEST_TIMES")) /* as ingest's line: a diagnostic, not an interface */
		fprintf(stderr, "gputrace: %s: %llu bytes decoded in pieces on %u threads, then %s\n", in->path,
			(unsigned long long)in->out_pos, in->threads,
			at == in->file_size && skip == 0 ? "the file's end" : "read again by one thread");
	gt_gzpieces_close(in->gp);
	in->gp = NULL;
	munmap(in->zmap, (size_t)in->file_size);
	in->zmap = NULL;
	if (at == in->file_size && skip == 0) {
		in->raw_eof = true;
		__atomic_store_n(&in->raw_total, in->file_size, __ATOMIC_RELAXED);
		return 0;
	}
	if (lseek(in->fd, 0, SEEK_SET) != 0)
		return gt_fail(err, GT_EINPUT, "%s: cannot seek to read it again: %s", in->path, strerror(errno));
	in->raw_len = in->raw_pos = 0;
	in->raw_eof = false;
	__atomic_store_n(&in->raw_total, 0, __ATOMIC_RELAXED);
	in->out_pos = in->out_total = 0;
	in->zs_live = false; /* the first inflate call starts a member */
	in->discard = skip;
	return start_ring(in, err);
}

/* Drops the compressed pages of the frames or pieces already read from
 * this process (they stay in the page cache), as gt_input_release does for
 * plain files. */
static void release_frames(gt_input *in)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t done = in->zf ? gt_zframes_consumed(in->zf) : gt_gzpieces_consumed(in->gp);
	uint64_t end = done / (uint64_t)page * (uint64_t)page;
	if (end >= in->released + (16u << 20)) {
		madvise((char *)in->zmap + in->released, (size_t)(end - in->released), MADV_DONTNEED);
		in->released = end;
	}
}

/* Up to cap bytes from the reader thread's ring. */
static long ring_read(gt_input *in, char *buf, size_t cap, gt_error *err)
{
	size_t got = 0;
	pthread_mutex_lock(&in->mu);
	while (got < cap) {
		while (in->count == 0 && !in->done)
			pthread_cond_wait(&in->cv, &in->mu);
		if (in->count == 0)
			break;
		struct block *b = &in->blocks[in->head_i];
		size_t n = b->len - in->cur_pos;
		if (n > cap - got)
			n = cap - got;
		pthread_mutex_unlock(&in->mu);
		memcpy(buf + got, b->data + in->cur_pos, n);
		pthread_mutex_lock(&in->mu);
		got += n;
		in->cur_pos += n;
		if (in->cur_pos == b->len) {
			in->cur_pos = 0;
			in->head_i = (in->head_i + 1) % in->nblocks;
			in->count--;
			pthread_cond_broadcast(&in->cv);
		}
	}
	bool failed = in->count == 0 && in->done && in->perr.status;
	pthread_mutex_unlock(&in->mu);
	if (got == 0 && failed) {
		*err = in->perr;
		return -1;
	}
	return (long)got;
}

static long read_some(gt_input *in, char *buf, size_t cap, gt_error *err)
{
	if (!in->started && start(in, err) < 0)
		return -1;
	if (in->zf) {
		long n = gt_zframes_read(in->zf, buf, cap, err);
		release_frames(in);
		return n;
	}
	if (in->gp) {
		long n = gt_gzpieces_read(in->gp, buf, cap);
		if (n > 0) {
			in->out_pos += (uint64_t)n;
			release_frames(in);
			return n;
		}
		if (resume_one_thread(in, err) < 0)
			return -1;
		while (in->discard) { /* the pieces' bytes, read again by one thread */
			n = ring_read(in, buf, in->discard < cap ? (size_t)in->discard : cap, err);
			if (n <= 0)
				return n;
			in->discard -= (uint64_t)n;
		}
	}
	if (!in->thread_started)
		return 0; /* the pieces read the file to its end */
	return ring_read(in, buf, cap, err);
}

long gt_input_read(gt_input *in, char *buf, size_t cap, gt_error *err)
{
	long n = read_some(in, buf, cap, err);
	in->failed |= n < 0;
	return n;
}

void gt_input_failure_ahead(gt_input *in, uint64_t limit, gt_error *err)
{
	if (in->compression == GT_COMP_NONE || in->failed)
		return;
	size_t cap = (size_t)1 << 20;
	char *buf = gt_fault_hit("alloc") ? NULL : malloc(cap);
	for (uint64_t got = 0; buf && got < limit;) {
		gt_error e = {0};
		long n = gt_input_read(in, buf, cap, &e);
		if (n < 0)
			*err = e;
		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	free(buf);
}

bool gt_input_map(gt_input *in, const char **data, uint64_t *size)
{
	if (!in->map)
		return false;
	*data = in->map;
	*size = in->file_size;
	return true;
}

bool gt_input_take_map(gt_input *in, void **data, size_t *size)
{
	if (!in->map || in->released)
		return false;
	/* used for the rest of the run in any order, not read once through */
	madvise((void *)in->map, (size_t)in->file_size, MADV_NORMAL);
	*data = (void *)in->map;
	*size = (size_t)in->file_size;
	in->map = NULL;
	return true;
}

void gt_input_release(gt_input *in, uint64_t upto)
{
	/* drop consumed pages from this process (they stay in the page cache)
	 * so that resident memory does not grow with the file */
	if (!in->map)
		return;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = upto / (uint64_t)page * (uint64_t)page;
	if (end > in->released) {
		madvise((char *)in->map + in->released, (size_t)(end - in->released), MADV_DONTNEED);
		in->released = end;
	}
}

int gt_input_compression(const gt_input *in)
{
	return in->compression;
}

uint64_t gt_input_file_bytes(const gt_input *in)
{
	if (in->zf)
		return gt_zframes_consumed(in->zf);
	if (in->gp)
		return gt_gzpieces_consumed(in->gp);
	return __atomic_load_n(&in->raw_total, __ATOMIC_RELAXED);
}

bool gt_input_truncated(const gt_input *in)
{
	if (in->zf)
		return gt_zframes_truncated(in->zf);
	return in->truncated; /* written by the reader thread before it set done */
}

uint64_t gt_input_file_size(const gt_input *in)
{
	return in->file_size;
}

const unsigned char *gt_input_head(const gt_input *in, size_t *n)
{
	*n = in->head_len;
	return in->head;
}

void gt_input_close(gt_input *in)
{
	if (!in)
		return;
	gt_zframes_close(in->zf);
	gt_gzpieces_close(in->gp);
	if (in->zmap)
		munmap(in->zmap, (size_t)in->file_size);
	if (in->thread_started) {
		pthread_mutex_lock(&in->mu);
		in->stop = true;
		pthread_cond_broadcast(&in->cv);
		pthread_mutex_unlock(&in->mu);
		pthread_join(in->thread, NULL);
	}
	if (in->ring) {
		pthread_mutex_destroy(&in->mu);
		pthread_cond_destroy(&in->cv);
	}
	for (int i = 0; i < NBLOCKS; i++)
		free(in->blocks[i].data);
	if (in->compression == GT_COMP_GZIP && !in->isal)
		inflateEnd(&in->zs);
	free(in->isal);
	ZSTD_freeDCtx(in->zd);
	free(in->raw);
	if (in->map)
		munmap((void *)in->map, (size_t)in->file_size);
	if (in->fd > 0)
		close(in->fd);
	free(in);
}
