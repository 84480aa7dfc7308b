/* gtx/: the gputrace index file (.gtx): its reader (gtx.c), writer
 * (gtx_write.c) and section checksums (gtx_sum.c). The file holds the span
 * model, leaf batches and the temporal hierarchy, versioned, checksummed
 * and mmap-able. Layout: GTX-FORMAT.md beside this header. */
#ifndef GT_GTX_H
#define GT_GTX_H

#include <stdbool.h>
#include <stddef.h>

#include "tindex/tindex.h"
#include "ingest/ingest.h"
#include "model/model.h"

/* True when the first bytes of a file are a .gtx header. */
bool gt_gtx_is_index(const unsigned char *head, size_t n);

/* The source trace an index was packed from: its byte length, and a CRC-32
 * of its stable prefix (the bytes before any trailing run of whitespace,
 * ']' and '}', which appending events rewrites). */
typedef struct gt_gtx_source {
	uint64_t len;
	uint64_t prefix_len;
	uint32_t prefix_crc;
} gt_gtx_source;

/* Fingerprints a trace file. */
int gt_gtx_fingerprint(const char *path, gt_gtx_source *src, gt_error *err);
/* The same in two steps, so that the CRC can run beside the load: the
 * length and the prefix (the file's open errors come here), then the
 * prefix's CRC-32. */
int gt_gtx_fingerprint_begin(const char *path, gt_gtx_source *src, gt_error *err);
int gt_gtx_fingerprint_crc(const char *path, gt_gtx_source *src, gt_error *err);
/* The same, with the CRC-32 of the first n bytes from the same read (an
 * error when the file is shorter). */
int gt_gtx_fingerprint_at(const char *path, uint64_t n, uint32_t *crc_n, gt_gtx_source *src, gt_error *err);
/* CRC-32 of the first n bytes of a file (-1 with an error when shorter). */
int gt_gtx_prefix_crc(const char *path, uint64_t n, uint32_t *crc, gt_error *err);
/* CRC-32 of the bytes [from, to) of a file (-1 with an error when shorter). */
int gt_gtx_range_crc(const char *path, uint64_t from, uint64_t to, uint32_t *crc, gt_error *err);

/* One section's place in the file, for verify's report. */
typedef struct gt_gtx_section {
	uint32_t id;
	uint32_t record_size;
	uint64_t offset, size, count;
	uint64_t sum; /* CRC-32 up to version 3, chunked XXH3-64 from 4 */
	const char *name;
} gt_gtx_section;

#define GT_GTX_MAX_SECTIONS 32
#define GT_GTX_VERSION_XXH3 4 /* section sums: chunked XXH3-64 (earlier: CRC-32) */
#define GT_GTX_VERSION_READING 5 /* instant tracks, async ids across processes, every warning
				  * count: earlier files were read by other rules */
#define GT_GTX_VERSION_SYNCS 6   /* the args of synchronisation spans: earlier files have none */

/* An index file mapped read-only. Opening checks the header, every section's
 * bounds and CRC-32 and the index's structure; ix then views the mapping. */
typedef struct gt_gtx {
	void *map;
	size_t map_len;
	bool owns_map;       /* false: opened over a caller's mapping */
	uint32_t version;
	gt_gtx_section sections[GT_GTX_MAX_SECTIONS];
	uint32_t section_count;
	gt_gtx_source source;
	uint8_t parent_mode; /* the model's enum gt_parent_mode */
	gt_tindex ix;
	char *path;
	/* The span and flow tables' reference checks, made as the sections were
	 * hashed (version 4), with the counts below: the model's load skips
	 * them when its counts are the same. */
	struct {
		bool spans_ok, flows_ok;
		uint32_t strings, tracks, spans, lanes;
	} prechecked;
} gt_gtx;

int gt_gtx_open(gt_gtx *g, const char *path, gt_error *err);
/* The same over bytes the caller has mapped and keeps until gt_gtx_close
 * (the loader's, which has the file open already), for the span model
 * alone (gt_gtx_model*): the sections only the temporal index and pack
 * --update read (batches, order, levels, nodes, dirty; the resume state's
 * points, binds, tracks and kinds) are checked for their bounds and
 * counts but neither summed nor read, and g->ix stays empty. A loss there
 * cannot change the model; verify, query and pack check every section.
 * Path names the file in errors. */
int gt_gtx_open_model(gt_gtx *g, const char *path, const void *data, size_t len, gt_error *err);
/* Copies the span model out of an open index file. */
int gt_gtx_model(const gt_gtx *g, gt_model *m, gt_error *err);
/* The same without copying the span, flow and series tables: g must be open
 * over a read-only private mapping (gt_input_take_map), which on success
 * the model owns (m->map) and unmaps in gt_model_free; on failure the caller
 * keeps it. */
int gt_gtx_model_in_place(const gt_gtx *g, gt_model *m, gt_error *err);
void gt_gtx_close(gt_gtx *g);
/* Copies the resume state out of an open index file (checked against its
 * model); a version 1 file, or one packed from compressed input, gives
 * rs->resumable false. */
int gt_gtx_resume(const gt_gtx *g, gt_resume *rs, gt_error *err);

/* Writes model + index to path atomically (temporary file, then rename). */
int gt_gtx_write(const char *path, const gt_model *m, const gt_tindex *ix, const gt_gtx_source *src,
		 gt_error *err);
/* The same with the resume state of the parse that made m (NULL: none). */
int gt_gtx_write_resume(const char *path, const gt_model *m, const gt_tindex *ix, const gt_gtx_source *src,
			const gt_resume *rs, gt_error *err);

#endif
