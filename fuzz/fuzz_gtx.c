/* libFuzzer harness for the index-file loader (src/gtx/gtx.c).
 *
 * Every section of a .gtx is checksummed, so random bytes would stop at the
 * first checksum. The first input byte chooses: bit 0 set recomputes the
 * file size field and every sum (the sections' as their version defines
 * them, CRC-32 or chunked XXH3; the table's and the header's CRC-32) over
 * the mutated bytes, so the structural checks behind them are
 * what gets fuzzed; clear passes the bytes as they are (the CRC checks
 * themselves). Bit 1 then runs a few queries on an index that opened. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "gtx/gtx.h"
#include "gtx/gtx_layout.h"
#include "loader/loader.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

/* Layout: src/gtx/GTX-FORMAT.md (header 128 bytes, 48-byte table entries). */
static void fix_checksums(unsigned char *b, size_t n)
{
	if (n < 128 || memcmp(b, "GPUTRIDX", 8) != 0)
		return;
	wr64(b + 24, n);
	uint32_t version = rd32(b + 8), count = rd32(b + 20);
	uint64_t table = rd64(b + 32);
	if (count <= 32 && table <= n && (n - table) / 48 >= count) {
		for (uint32_t i = 0; i < count; i++) {
			unsigned char *e = b + table + 48 * i;
			uint64_t off = rd64(e + 8), size = rd64(e + 16);
			uint64_t sum;
			if (off <= n && size <= n - off && gtx_section_sum(version, b + off, size, &sum) == 0) {
				if (version >= GTX_VERSION_XXH3)
					wr64(e + 32, sum);
				else
					wr32(e + 32, (uint32_t)sum);
			}
		}
		wr32(b + 44, (uint32_t)crc32(0, b + table, (uInt)(48 * count)));
	}
	wr32(b + 124, (uint32_t)crc32(0, b, 124));
}

static void check_model(const gt_model *m)
{
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *s = &m->spans[i];
		CHECK(s->parent == GT_NONE || s->parent < m->span_count);
		CHECK(s->track < m->track_count);
		CHECK(s->lane < m->lane_count || m->lane_count == 0);
		(void)gt_model_str(m, s->name);
		(void)gt_model_str(m, s->cat);
	}
	for (uint32_t i = 0; i < m->track_count; i++)
		CHECK(m->tracks[i].process < m->process_count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	unsigned char *b = malloc(size);
	if (!b)
		return 0;
	memcpy(b, data + 1, size - 1);
	size_t n = size - 1;
	if (mode & 1)
		fix_checksums(b, n);
	int fd = memfd_create("index", MFD_CLOEXEC);
	if (fd < 0 || write(fd, b, n) != (ssize_t)n)
		abort();
	free(b);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	gt_gtx g;
	gt_error err = {0};
	if (gt_gtx_open(&g, path, &err) == 0) {
		gt_model m;
		gt_error merr = {0};
		if (gt_gtx_model(&g, &m, &merr) == 0) {
			check_model(&m);
			if (mode & 2) {
				uint32_t cand[64];
				gt_tquery q = {m.start_ns, m.end_ns, 0, UINT32_MAX, UINT32_MAX, 0};
				for (uint32_t level = 0; level < 3; level++) {
					q.level = level;
					gt_tresult r = {cand, 64, 0, false, 0, 0};
					gt_error qerr = {0};
					if (gt_tindex_query(&g.ix, &q, &r, &qerr) == 0 && !r.overflow)
						for (uint64_t i = 0; i < r.count; i++)
							(void)cand[i];
				}
			}
			gt_model_free(&m);
		} else {
			CHECK(merr.msg[0] != '\0');
		}
		gt_gtx_close(&g);
	} else {
		CHECK(err.status != 0 && err.msg[0] != '\0');
		CHECK(strchr(err.msg, '\n') == NULL);
	}
	/* the same bytes through the generic loader (magic detection) */
	gt_model m2;
	gt_error err2 = {0};
	if (gt_model_load(&m2, path, NULL, &err2) == 0) {
		check_model(&m2);
		gt_model_free(&m2);
	}
	close(fd);
	return 0;
}
