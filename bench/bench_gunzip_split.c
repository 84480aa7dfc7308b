/* How fast one gzip member decodes in pieces on threads (#29), against
 * ISA-L's one-thread inflate, with src/ingest/deflate_split.c: pieces found
 * at block starts, each decoded twice with the stand-in windows, checked to
 * meet end to start, filled in from the window before, and their CRC-32
 * combined and checked against the member's trailer.
 *
 *   build/bench/bench_gunzip_split [-t THREADS] [-c PIECE_MIB] [-r RUNS] FILE.json.gz
 *
 * Prints, per run, the one-thread inflate's wall and the pieces' (and their
 * stages), both outputs' CRC-32 and length (they must agree), and MB/s of
 * output. Holds the whole output in memory twice: for files that fit. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include "ingest/deflate_split.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The byte after a gzip member's header, 0 if it is none. */
static size_t gzip_header_end(const uint8_t *d, size_t n)
{
	if (n < 18 || d[0] != 0x1f || d[1] != 0x8b || d[2] != 8)
		return 0;
	unsigned flg = d[3];
	size_t p = 10;
	if (flg & 4) {
		if (p + 2 > n)
			return 0;
		p += 2 + (size_t)(d[p] | d[p + 1] << 8);
	}
	for (unsigned f = 8; f <= 16; f <<= 1)
		if (flg & f) {
			while (p < n && d[p])
				p++;
			p++;
		}
	if (flg & 2)
		p += 2;
	return p < n ? p : 0;
}

/* One thread, ISA-L, into a reused buffer: wall, length and CRC-32. */
static int serial(const uint8_t *d, size_t n, uint64_t *len, uint32_t *crc)
{
	struct inflate_state *st = malloc(sizeof *st);
	size_t cap = 4u << 20;
	uint8_t *out = malloc(cap);
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	st->next_in = (uint8_t *)d;
	st->avail_in = (uint32_t)n;
	*len = 0;
	int rc = 0;
	while (st->block_state != ISAL_BLOCK_FINISH) {
		st->next_out = out;
		st->avail_out = (uint32_t)cap;
		rc = isal_inflate(st);
		*len += cap - st->avail_out;
		if (rc < 0 || (st->avail_in == 0 && st->avail_out == cap))
			break;
	}
	*crc = st->crc;
	free(out);
	free(st);
	return rc;
}

struct job {
	const uint8_t *data;
	size_t size;
	size_t npieces;
	uint64_t *start;      /* start bit of each piece; start[npieces] the end */
	gt_deflate_piece *a, *b;
	uint8_t (*window)[GT_DEFLATE_WINDOW];
	uint32_t *crc;
	uint8_t wa[GT_DEFLATE_WINDOW], wb[GT_DEFLATE_WINDOW];
	size_t piece_bytes;
	atomic_size_t next;
	int stage;
	atomic_int failed;
};

static void run_one(struct job *j, size_t k)
{
	if (j->stage == 0) { /* find the starts */
		uint64_t from = (uint64_t)k * j->piece_bytes * 8, to = from + (uint64_t)j->piece_bytes * 8;
		int64_t s = gt_deflate_find_block(j->data, j->size, from, to);
		j->start[k] = s < 0 ? UINT64_MAX : (uint64_t)s;
	} else if (j->stage == 1) { /* decode: the first piece knows its window */
		uint64_t end = j->start[k + 1];
		if (k == 0) {
			if (gt_deflate_decode_span(j->data, j->size, j->start[0], end, NULL, 0, &j->a[0]) < 0)
				j->failed = 1;
			return;
		}
		if (gt_deflate_decode_span(j->data, j->size, j->start[k], end, j->wa, 0, &j->a[k]) < 0 ||
		    gt_deflate_decode_span(j->data, j->size, j->start[k], end, j->wb, 0, &j->b[k]) < 0)
			j->failed = 1;
	} else { /* fill in and check */
		if (k > 0) {
			gt_deflate_resolve(j->a[k].out, j->b[k].out, j->a[k].len, j->window[k]);
			gt_deflate_piece_free(&j->b[k]);
		}
		j->crc[k] = crc32_gzip_refl(0, j->a[k].out, j->a[k].len);
	}
}

static void *worker(void *arg)
{
	struct job *j = arg;
	size_t k;
	size_t count = j->stage == 0 ? j->npieces : j->npieces;
	while ((k = atomic_fetch_add(&j->next, 1)) < count)
		if (!(j->stage == 0 && k == 0))
			run_one(j, k);
	return NULL;
}

static void stage(struct job *j, int which, unsigned threads)
{
	pthread_t t[256];
	j->stage = which;
	atomic_store(&j->next, 0);
	for (unsigned i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, j);
	for (unsigned i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}

/* The window of piece k+1: the last 32 KiB of the output up to its end. */
static void next_window(struct job *j, size_t k, uint8_t *dst)
{
	gt_deflate_piece *p = &j->a[k];
	size_t keep = p->len < GT_DEFLATE_WINDOW ? p->len : GT_DEFLATE_WINDOW;
	memmove(dst, j->window[k] + keep, GT_DEFLATE_WINDOW - keep);
	uint8_t *tail = dst + GT_DEFLATE_WINDOW - keep;
	memcpy(tail, p->out + p->len - keep, keep);
	if (k > 0)
		gt_deflate_resolve(tail, j->b[k].out + j->b[k].len - keep, keep, j->window[k]);
}

int main(int argc, char **argv)
{
	unsigned threads = 2, runs = 3;
	size_t piece_mib = 4;
	int opt;
	while ((opt = getopt(argc, argv, "t:c:r:")) != -1) {
		if (opt == 't')
			threads = (unsigned)atoi(optarg);
		else if (opt == 'c')
			piece_mib = (size_t)atoi(optarg);
		else if (opt == 'r')
			runs = (unsigned)atoi(optarg);
		else
			return 2;
	}
	if (optind + 1 != argc || threads < 1 || threads > 256 || piece_mib < 1) {
		fprintf(stderr, "usage: bench_gunzip_split [-t THREADS] [-c PIECE_MIB] [-r RUNS] FILE.gz\n");
		return 2;
	}
	int fd = open(argv[optind], O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		perror(argv[optind]);
		return 1;
	}
	size_t size = (size_t)sb.st_size;
	const uint8_t *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	size_t hdr = gzip_header_end(data, size);
	if (data == MAP_FAILED || !hdr) {
		fprintf(stderr, "%s: not a gzip file\n", argv[optind]);
		return 1;
	}
	const uint8_t *trailer = data + size - 8;
	uint32_t want_crc = (uint32_t)trailer[0] | trailer[1] << 8 | trailer[2] << 16 | (uint32_t)trailer[3] << 24;
	for (unsigned r = 0; r < runs; r++) {
		uint64_t slen;
		uint32_t scrc;
		double t0 = now();
		int src = serial(data, size, &slen, &scrc);
		double t_serial = now() - t0;

		struct job *j = calloc(1, sizeof *j);
		j->data = data;
		j->size = size - 8;
		j->piece_bytes = piece_mib << 20;
		j->npieces = (j->size + j->piece_bytes - 1) / j->piece_bytes;
		j->start = calloc(j->npieces + 1, sizeof *j->start);
		gt_deflate_window_pair(j->wa, j->wb);
		t0 = now();
		j->start[0] = (uint64_t)hdr * 8;
		stage(j, 0, threads);
		/* pieces without a start found join the one before */
		size_t n = 0;
		for (size_t k = 0; k < j->npieces; k++)
			if (j->start[k] != UINT64_MAX)
				j->start[n++] = j->start[k];
		j->npieces = n;
		j->start[n] = 0; /* the last piece: to the end */
		double t_find = now() - t0;
		j->a = calloc(n, sizeof *j->a);
		j->b = calloc(n, sizeof *j->b);
		j->window = calloc(n, sizeof *j->window);
		j->crc = calloc(n, sizeof *j->crc);
		stage(j, 1, threads);
		double t_decode = now() - t0;
		/* each piece must stop where the next starts; the last, at the end */
		int bad = j->failed;
		for (size_t k = 0; k < n && !bad; k++) {
			if (k + 1 < n ? j->a[k].stop_bit != j->start[k + 1] : !j->a[k].final)
				bad = 1;
			if (k > 0 && (j->b[k].len != j->a[k].len || j->b[k].stop_bit != j->a[k].stop_bit))
				bad = 1;
			if (k + 1 < n)
				next_window(j, k, j->window[k + 1]);
		}
		double t_chain = now() - t0;
		stage(j, 2, threads);
		uint64_t plen = 0;
		uint32_t pcrc = 0;
		for (size_t k = 0; k < n; k++) {
			pcrc = k ? (uint32_t)crc32_combine(pcrc, j->crc[k], (z_off_t)j->a[k].len) : j->crc[0];
			plen += j->a[k].len;
		}
		double t_pieces = now() - t0;
		printf("run %u: serial %.3f s (rc %d, %llu B, crc %08x, trailer %08x, %.0f MB/s); "
		       "pieces %zu x %zu MiB on %u threads %.3f s (find %.3f, decode %.3f, chain %.3f, fill+crc %.3f; "
		       "%s, %llu B, crc %08x, %.0f MB/s) ratio %.2f\n",
		       r, t_serial, src, (unsigned long long)slen, scrc, want_crc, slen / t_serial / 1e6, n, piece_mib,
		       threads, t_pieces, t_find, t_decode - t_find, t_chain - t_decode, t_pieces - t_chain,
		       bad ? "CHAIN BROKEN" : (pcrc == scrc && plen == slen ? "same" : "DIFFERENT"),
		       (unsigned long long)plen, pcrc, plen / t_pieces / 1e6, t_serial / t_pieces);
		fflush(stdout);
		for (size_t k = 0; k < n; k++) {
			gt_deflate_piece_free(&j->a[k]);
			gt_deflate_piece_free(&j->b[k]);
		}
		free(j->a);
		free(j->b);
		free(j->window);
		free(j->crc);
		free(j->start);
		free(j);
		if (bad || pcrc != scrc)
			return 1;
	}
	return 0;
}
