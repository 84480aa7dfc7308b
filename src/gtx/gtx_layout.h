/* The .gtx layout constants shared by the reader and the writer (described
 * in src/gtx/GTX-FORMAT.md). Internal to gtx/. */
#ifndef GT_GTX_LAYOUT_H
#define GT_GTX_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "ingest/ingest.h"
#include "tindex/tindex.h"
#include "gtx.h"

#define GTX_MAGIC "GPUTRIDX"
#define GTX_VERSION 6u              /* the sync args section (recorded stream waits) */
#define GTX_VERSION_SYNCS GT_GTX_VERSION_SYNCS
#define GTX_VERSION_READING GT_GTX_VERSION_READING
#define GTX_VERSION_XXH3 GT_GTX_VERSION_XXH3
#define GTX_VERSION_SOME_WARNINGS 4u /* still read: ten warning counts, chunked XXH3-64 sums */
#define GTX_VERSION_CRC32 3u        /* still read: lanes by numeric tails, CRC-32 sections */
#define GTX_VERSION_TEXT_LANES 2u   /* still read: lanes as packed, string ids as text */
#define GTX_VERSION_NO_RESUME 1u    /* still read: no resume sections (lanes as v2) */
#define GTX_ENDIAN 0x01020304u
#define GTX_HEADER_SIZE 128u
#define GTX_ENTRY_SIZE 48u
#define GTX_ALIGN 64u
#define GTX_SUM_CHUNK ((uint64_t)1 << 20) /* bytes per XXH3 chunk of a section sum */

enum gtx_section_id {
	GTX_INFO = 1,
	GTX_STR_OFFSETS,
	GTX_STR_DATA,
	GTX_SPANS,
	GTX_TRACKS,
	GTX_PROCESSES,
	GTX_FLOWS,
	GTX_SERIES,
	GTX_SAMPLES,
	GTX_GROUPS,
	GTX_METADATA,
	GTX_SOURCE_NAME,
	GTX_STATS,
	GTX_BATCHES = 20,
	GTX_ORDER,
	GTX_LEVELS,
	GTX_NODES,
	GTX_DIRTY,
	GTX_RESUME,        /* version 2 on */
	GTX_RESUME_POINTS,
	GTX_RESUME_BINDS,
	GTX_RESUME_TRACKS,
	GTX_RESUME_POINT_KINDS,
	GTX_SYNCS,         /* version 6 on */
	GTX_SECTION_MAX
};

/* The INFO section: one little-endian u64 per field, in this order. */
enum gtx_info {
	GI_SPANS, GI_TRACKS, GI_PROCESSES, GI_FLOWS, GI_SERIES, GI_SAMPLES, GI_GROUPS, GI_LANES, GI_THREADS,
	GI_START_NS, GI_END_NS, GI_PARENT_MODE, GI_STRINGS, GI_HAS_METADATA,
	GI_BATCH_SPANS, GI_PARTITION_BATCHES, GI_FANOUT, GI_LANE_BAND, GI_EPOCH_SPANS,
	GI_BATCHES, GI_PARTITIONS, GI_LEVELS, GI_NODES,
	GI_SOURCE_LEN, GI_SOURCE_PREFIX_LEN, GI_SOURCE_PREFIX_CRC,
	GI_COUNT
};

/* The RESUME section: one little-endian u64 per field, in this order;
 * long_phase is 8 names of 24 bytes (NUL-padded) in 24 words. */
enum gtx_resume_info {
	RI_RESUMABLE, RI_OFFSET, RI_AFTER_EVENT, RI_METADATA_LEN, RI_MAX_END_NS, RI_ANY_TS, RI_TAIL_CRC,
	RI_POINTS, RI_BINDS, RI_TRACKS, RI_POINT_KINDS,
	RI_WARNINGS,
	RI_LONG_PHASE_COUNT = RI_WARNINGS + GT_WARN_STORED,
	RI_LONG_PHASE = RI_LONG_PHASE_COUNT + 8,
	RI_COUNT_V4 = RI_LONG_PHASE + 24, /* versions 2 to 4 end here */
	RI_WARNINGS_REST = RI_COUNT_V4,   /* version 5: the warnings from GT_WARN_STORED on */
	RI_COUNT = RI_WARNINGS_REST + GT_WARN_COUNT - GT_WARN_STORED
};

/* Fixed record sizes. Spans, flows, series, batches, nodes and levels are
 * written as the in-memory structs (checked below to have no padding);
 * the others are encoded field by field. */
#define GTX_TRACK_SIZE 64u
#define GTX_PROCESS_SIZE 32u
#define GTX_SAMPLE_SIZE 24u
#define GTX_GROUP_SIZE 16u
/* Ingest stats: format, compression, file_bytes, bytes, events, phases[128]
 * and the warnings: every kind from version 5, the first GT_WARN_STORED
 * before. A new warning kind changes the layout: a new version. */
#define GTX_STATS_COUNT (5u + 128u + (uint32_t)GT_WARN_COUNT)
#define GTX_STATS_COUNT_V4 (5u + 128u + (uint32_t)GT_WARN_STORED)
_Static_assert(GT_WARN_COUNT == 22, "a new warning kind needs a new index version");
/* How many warning counts a file of this version stores. */
static inline unsigned gtx_warnings_stored(uint32_t version)
{
	return version >= GTX_VERSION_READING ? GT_WARN_COUNT : GT_WARN_STORED;
}

_Static_assert(sizeof(gt_span) == 48 && offsetof(gt_span, flags) == 47, "gt_span layout");
_Static_assert(sizeof(gt_sync) == 32 && offsetof(gt_sync, record_correlation) == 24, "gt_sync layout");
_Static_assert(sizeof(gt_flow) == 40 && offsetof(gt_flow, dst_ts_ns) == 32, "gt_flow layout");
_Static_assert(sizeof(gt_counter_series) == 16, "gt_counter_series layout");
_Static_assert(sizeof(gt_tnode) == 40 && offsetof(gt_tnode, partition) == 36, "gt_tnode layout");
_Static_assert(sizeof(gt_resume_point) == 24 && offsetof(gt_resume_point, kind) == 20, "gt_resume_point layout");
_Static_assert(sizeof(gt_resume_point_kind) == 16 && offsetof(gt_resume_point_kind, zero) == 11,
	       "gt_resume_point_kind layout");
_Static_assert(sizeof(gt_resume_bind) == 16 && offsetof(gt_resume_bind, zero) == 14, "gt_resume_bind layout");
_Static_assert(sizeof(gt_resume_track) == 8 && offsetof(gt_resume_track, zero) == 5, "gt_resume_track layout");
_Static_assert(sizeof(gt_tlevel) == 24 && offsetof(gt_tlevel, mean_extent_ns) == 16, "gt_tlevel layout");
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error ".gtx files are read and written by mapping little-endian records; port gtx.c for this host"
#endif

const char *gtx_section_name(uint32_t id);
/* gtx_sum.c. CRC-32 (header, section table, sections up to version 3). */
uint32_t gtx_crc32(const void *p, uint64_t n);
/* The version 4 section sum: XXH3-64 over the XXH3-64 of each 1 MiB chunk
 * (little-endian). -1: out of memory. */
int gtx_xxh3_chunked(const void *p, uint64_t n, uint64_t *sum);
/* A section's checksum as `version` defines it. */
int gtx_section_sum(uint32_t version, const void *p, uint64_t n, uint64_t *sum);

/* Work on a section's bytes [a, b) while they are in the cache of the thread
 * that just hashed them; non-zero: the bytes failed it. */
typedef struct gtx_chunk_visit {
	int (*fn)(void *ctx, uint64_t a, uint64_t b);
	void *ctx;
	bool failed; /* out: not every chunk passed (always, before version 4) */
} gtx_chunk_visit;
/* gtx_section_sum that also runs visit over every chunk of a version 4
 * section as it is hashed; earlier versions' sums visit nothing. */
int gtx_section_sum_visit(uint32_t version, const void *p, uint64_t n, uint64_t *sum, gtx_chunk_visit *visit);

#endif
