/* Section checksums of a .gtx file (GTX-FORMAT.md, "Checksums"): CRC-32
 * up to version 3; from version 4, XXH3-64 of 1 MiB chunks, hashed again
 * over the chunk hashes. Both run on threads over large sections; zlib's
 * CRC-32 (about 3 GB/s a core) was most of loading an index, XXH3 runs at
 * memory speed (the CRC-32 is now ISA-L's, base/crc32.h; zlib still joins
 * the pieces' CRCs). */
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <xxhash.h>
#include <string.h>
#include <zlib.h>

#include "base/base.h"
#include "gtx_layout.h"

#define PIECE_MIN (16u << 20) /* below this, one thread */
#define MAX_THREADS 16

static uint32_t crc32_serial(const void *p, uint64_t n)
{
	return gt_crc32(0, p, n);
}

/* One thread's share: bytes [a, b) of the section. */
struct piece {
	const unsigned char *base;
	uint64_t a, b;
	uint32_t crc;        /* CRC-32 of the share */
	uint64_t *hashes;    /* XXH3: one per chunk of the share, from chunk a / GTX_SUM_CHUNK */
	const gtx_chunk_visit *visit; /* NULL: none */
	bool visit_failed;
};

static unsigned pieces_for(uint64_t n)
{
	uint64_t k = n / PIECE_MIN;
	unsigned t = gt_thread_count(0, MAX_THREADS);
	return k < 2 ? 1u : k < t ? (unsigned)k : t;
}

static void *crc_piece(void *arg)
{
	struct piece *p = arg;
	p->crc = crc32_serial(p->base + p->a, p->b - p->a);
	return NULL;
}

/* Pieces end on chunk boundaries so the XXH3 chunks are the same whatever
 * the thread count. */
static void split(struct piece *pc, unsigned k, const void *p, uint64_t n, uint64_t align)
{
	for (unsigned i = 0; i < k; i++) {
		uint64_t a = n * i / k / align * align, b = i + 1 == k ? n : n * (i + 1) / k / align * align;
		pc[i] = (struct piece){p, a, b, 0, NULL, NULL, false};
	}
}

uint32_t gtx_crc32(const void *p, uint64_t n)
{
	unsigned k = pieces_for(n);
	if (k < 2)
		return crc32_serial(p, n);
	struct piece pc[MAX_THREADS];
	split(pc, k, p, n, 1);
	gt_run_jobs(crc_piece, pc, sizeof pc[0], k);
	uLong c = pc[0].crc;
	for (unsigned i = 1; i < k; i++)
		c = crc32_combine64(c, pc[i].crc, (z_off64_t)(pc[i].b - pc[i].a));
	return (uint32_t)c;
}

/* A visit sees a chunk in steps this long, each right after it is hashed,
 * while the bytes are still in the core's own cache. */
#define VISIT_STEP (64u << 10)

static uint64_t hash_visiting(struct piece *p, uint64_t at, uint64_t len, XXH3_state_t *state)
{
	XXH3_64bits_reset(state);
	for (uint64_t s = at; s < at + len; s += VISIT_STEP) {
		uint64_t e = at + len - s < VISIT_STEP ? at + len : s + VISIT_STEP;
		XXH3_64bits_update(state, p->base + s, (size_t)(e - s));
		if (!p->visit_failed && p->visit->fn(p->visit->ctx, s, e) != 0)
			p->visit_failed = true;
	}
	return XXH3_64bits_digest(state);
}

static void *xxh_piece(void *arg)
{
	struct piece *p = arg;
	uint64_t *h = p->hashes + p->a / GTX_SUM_CHUNK;
	XXH3_state_t *state = p->visit ? XXH3_createState() : NULL;
	if (p->visit && !state)
		p->visit_failed = true; /* unchecked here: the load checks it later */
	for (uint64_t at = p->a; at < p->b; at += GTX_SUM_CHUNK) {
		uint64_t len = p->b - at < GTX_SUM_CHUNK ? p->b - at : GTX_SUM_CHUNK;
		*h++ = state ? hash_visiting(p, at, len, state) : XXH3_64bits(p->base + at, (size_t)len);
	}
	XXH3_freeState(state);
	return NULL;
}

/* The chunk hashes as little-endian bytes, hashed: the section's sum. */
static uint64_t combine(uint64_t *h, uint64_t chunks)
{
	for (uint64_t i = 0; i < chunks; i++) {
		unsigned char le[8];
		gt_le_put64(le, h[i]);
		memcpy(&h[i], le, 8);
	}
	return XXH3_64bits(h, (size_t)(chunks * 8));
}

static int xxh3_chunked(const void *p, uint64_t n, uint64_t *sum, gtx_chunk_visit *visit)
{
	uint64_t chunks = (n + GTX_SUM_CHUNK - 1) / GTX_SUM_CHUNK;
	uint64_t one, *h = chunks <= 1 ? &one : malloc(chunks * sizeof *h);
	if (!h)
		return -1;
	unsigned k = pieces_for(n);
	struct piece pc[MAX_THREADS];
	split(pc, k, p, n, GTX_SUM_CHUNK);
	for (unsigned i = 0; i < k; i++)
		pc[i].hashes = h, pc[i].visit = visit;
	if (chunks)
		gt_run_jobs(xxh_piece, pc, sizeof pc[0], k);
	for (unsigned i = 0; visit && i < k; i++)
		visit->failed |= pc[i].visit_failed;
	*sum = combine(h, chunks);
	if (h != &one)
		free(h);
	return 0;
}

int gtx_xxh3_chunked(const void *p, uint64_t n, uint64_t *sum)
{
	return xxh3_chunked(p, n, sum, NULL);
}

int gtx_section_sum_visit(uint32_t version, const void *p, uint64_t n, uint64_t *sum, gtx_chunk_visit *visit)
{
	if (visit)
		visit->failed = version < GTX_VERSION_XXH3;
	if (version >= GTX_VERSION_XXH3)
		return xxh3_chunked(p, n, sum, visit);
	*sum = gtx_crc32(p, n);
	return 0;
}

int gtx_section_sum(uint32_t version, const void *p, uint64_t n, uint64_t *sum)
{
	return gtx_section_sum_visit(version, p, n, sum, NULL);
}
