/* Reads .gtx index files: maps them, checks every offset, size and CRC-32
 * before anything is used, and restores the span model. A corrupt or
 * truncated file is an error (GT_EINPUT), never a crash. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gtx.h"
#include "base/base.h"
#include "gtx_layout.h"

const char *gtx_section_name(uint32_t id)
{
	static const char *const names[GTX_SECTION_MAX] = {
		[GTX_INFO] = "info",         [GTX_STR_OFFSETS] = "string offsets", [GTX_STR_DATA] = "string data",
		[GTX_SPANS] = "spans",       [GTX_TRACKS] = "tracks",              [GTX_PROCESSES] = "processes",
		[GTX_FLOWS] = "flows",       [GTX_SERIES] = "counter series",      [GTX_SAMPLES] = "counter samples",
		[GTX_GROUPS] = "groups",     [GTX_METADATA] = "metadata",          [GTX_SOURCE_NAME] = "source name",
		[GTX_STATS] = "ingest stats", [GTX_BATCHES] = "batches",            [GTX_ORDER] = "span order",
		[GTX_LEVELS] = "levels",     [GTX_NODES] = "hierarchy nodes",      [GTX_DIRTY] = "dirty words",
		[GTX_RESUME] = "resume state", [GTX_RESUME_POINTS] = "resume flow points",
		[GTX_RESUME_BINDS] = "resume flow binds", [GTX_RESUME_TRACKS] = "resume async keys",
		[GTX_RESUME_POINT_KINDS] = "resume flow point kinds", [GTX_SYNCS] = "sync args",
	};
	return id < GTX_SECTION_MAX && names[id] ? names[id] : "unknown";
}

bool gt_gtx_is_index(const unsigned char *head, size_t n)
{
	return n >= 8 && memcmp(head, GTX_MAGIC, 8) == 0;
}

/* Required sections and their record sizes (0: any, checked elsewhere). */
static const uint32_t record_sizes[GTX_SECTION_MAX] = {
	[GTX_INFO] = 8,           [GTX_STR_OFFSETS] = 8,
	[GTX_STR_DATA] = 1,       [GTX_SPANS] = sizeof(gt_span),
	[GTX_TRACKS] = GTX_TRACK_SIZE, [GTX_PROCESSES] = GTX_PROCESS_SIZE,
	[GTX_FLOWS] = sizeof(gt_flow), [GTX_SERIES] = sizeof(gt_counter_series),
	[GTX_SAMPLES] = GTX_SAMPLE_SIZE, [GTX_GROUPS] = GTX_GROUP_SIZE,
	[GTX_METADATA] = 1,       [GTX_SOURCE_NAME] = 1,
	[GTX_STATS] = 8,          [GTX_BATCHES] = sizeof(gt_tnode),
	[GTX_ORDER] = 4,          [GTX_LEVELS] = sizeof(gt_tlevel),
	[GTX_NODES] = sizeof(gt_tnode), [GTX_DIRTY] = 4,
	[GTX_RESUME] = 8,         [GTX_RESUME_POINTS] = sizeof(gt_resume_point),
	[GTX_RESUME_BINDS] = sizeof(gt_resume_bind), [GTX_RESUME_TRACKS] = sizeof(gt_resume_track),
	[GTX_RESUME_POINT_KINDS] = sizeof(gt_resume_point_kind), [GTX_SYNCS] = sizeof(gt_sync),
};

/* Sections a version 1 file does not have. */
static bool since_v2(uint32_t id)
{
	return id >= GTX_RESUME && id <= GTX_RESUME_POINT_KINDS;
}

/* Whether a file of this version has section id. */
static bool has_section(uint32_t version, uint32_t id)
{
	return !(version == GTX_VERSION_NO_RESUME && since_v2(id)) && !(version < GTX_VERSION_SYNCS && id == GTX_SYNCS);
}

static const gt_gtx_section *sec(const gt_gtx *g, uint32_t id)
{
	for (uint32_t i = 0; i < g->section_count; i++)
		if (g->sections[i].id == id)
			return &g->sections[i];
	return NULL;
}

static const void *sec_data(const gt_gtx *g, uint32_t id)
{
	return (const unsigned char *)g->map + sec(g, id)->offset;
}

static uint64_t sec_count(const gt_gtx *g, uint32_t id)
{
	return sec(g, id)->count;
}

static int bad(const char *path, gt_error *err, const char *what)
{
	return gt_fail(err, GT_EINPUT, "'%s' is not a valid index file: %s", path, what);
}

/* What a span or flow may refer to. */
struct ref_limits {
	const void *records; /* the table */
	uint64_t count;
	uint32_t strings, tracks, spans, lanes;
};

/* 1 unless id is GT_NONE or below n (id + 1 wraps GT_NONE to 0). */
static inline uint32_t past(uint32_t id, uint32_t n)
{
	return (uint32_t)(id + 1u) > n;
}

static bool str_ok(uint32_t id, uint32_t n)
{
	return !past(id, n);
}

/* The spans [a, b) refer inside their tables (1: one does not). Without
 * branches: this runs over every span of every load. */
static int spans_ok(void *ctx, uint64_t a, uint64_t b)
{
	const struct ref_limits *l = ctx;
	const gt_span *spans = l->records;
	uint32_t wrong = 0;
	for (uint64_t i = a; i < b; i++) {
		const gt_span *s = &spans[i];
		/* lanes index per-lane arrays downstream (found by fuzz/fuzz_gtx.c) */
		wrong |= past(s->name, l->strings) | past(s->cat, l->strings) | (s->track >= l->tracks) |
			 past(s->parent, l->spans) | (s->group >= GT_MAX_GROUPS) | (s->lane >= l->lanes);
	}
	return wrong != 0;
}

static int flows_ok(void *ctx, uint64_t a, uint64_t b)
{
	const struct ref_limits *l = ctx;
	const gt_flow *flows = l->records;
	uint32_t wrong = 0;
	for (uint64_t i = a; i < b; i++) {
		const gt_flow *f = &flows[i];
		wrong |= past(f->src, l->spans) | past(f->dst, l->spans) | past(f->name, l->strings) |
			 past(f->cat, l->strings);
	}
	return wrong != 0;
}

/* A chunk visit over the records that start in bytes [a, b) of the table. */
struct record_visit {
	struct ref_limits limits;
	size_t record_size;
	int (*check)(void *ctx, uint64_t a, uint64_t b);
};

static int visit_records(void *ctx, uint64_t a, uint64_t b)
{
	struct record_visit *v = ctx;
	uint64_t first = (a + v->record_size - 1) / v->record_size, end = (b + v->record_size - 1) / v->record_size;
	if (end > v->limits.count)
		end = v->limits.count;
	return first < end ? v->check(&v->limits, first, end) : 0;
}

/* A section's entry in the (checked) section table, NULL if absent. */
static const unsigned char *table_entry(const unsigned char *table, uint32_t n, uint32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (gt_le_get32(table + (size_t)i * GTX_ENTRY_SIZE) == id)
			return table + (size_t)i * GTX_ENTRY_SIZE;
	return NULL;
}

static uint64_t table_count(const unsigned char *table, uint32_t n, uint32_t id)
{
	const unsigned char *e = table_entry(table, n, id);
	return e ? gt_le_get64(e + 24) : 0;
}

/* The limits the model's load will check the spans and flows against,
 * read ahead from the section table and the INFO section (whose sum is
 * not checked yet: a wrong value only fails the early check). */
static bool early_limits(const gt_gtx *g, const unsigned char *table, uint32_t n, struct ref_limits *l)
{
	uint64_t strings = table_count(table, n, GTX_STR_OFFSETS), tracks = table_count(table, n, GTX_TRACKS);
	uint64_t spans = table_count(table, n, GTX_SPANS);
	const unsigned char *e = table_entry(table, n, GTX_INFO);
	if (!e)
		return false;
	uint64_t off = gt_le_get64(e + 8), size = gt_le_get64(e + 16);
	if (off > g->map_len || size > g->map_len - off || size < (GI_LANES + 1) * 8 || off % 8)
		return false;
	uint64_t lanes = ((const uint64_t *)((const unsigned char *)g->map + off))[GI_LANES];
	if (strings > UINT32_MAX || tracks > UINT32_MAX || spans > UINT32_MAX || lanes > UINT32_MAX)
		return false;
	*l = (struct ref_limits){NULL, 0, (uint32_t)strings, (uint32_t)tracks, (uint32_t)spans, (uint32_t)lanes};
	return true;
}

/* Whether the span model reads section id: the temporal index's sections
 * and the resume state's tables are read only by the index's own readers
 * and by pack --update. */
static bool model_reads(uint32_t id)
{
	return !(id >= GTX_BATCHES && id <= GTX_DIRTY) && !(id >= GTX_RESUME_POINTS && id <= GTX_RESUME_POINT_KINDS);
}

static int check_header(gt_gtx *g, const char *path, bool model_only, gt_error *err)
{
	const unsigned char *h = g->map;
	char msg[160];
	if (g->map_len < GTX_HEADER_SIZE || !gt_gtx_is_index(h, g->map_len))
		return bad(path, err, g->map_len < GTX_HEADER_SIZE ? "shorter than its header" : "bad magic");
	if (gt_le_get32(h + 12) != GTX_ENDIAN)
		return bad(path, err, "unknown endianness marker");
	g->version = gt_le_get32(h + 8);
	if (g->version < GTX_VERSION_NO_RESUME || g->version > GTX_VERSION) {
		snprintf(msg, sizeof msg, "version %u, this gputrace reads versions %u to %u", g->version,
			 GTX_VERSION_NO_RESUME, GTX_VERSION);
		return bad(path, err, msg);
	}
	if (gtx_crc32(h, 124) != gt_le_get32(h + 124))
		return bad(path, err, "header checksum mismatch");
	uint64_t file_size = gt_le_get64(h + 24), table = gt_le_get64(h + 32);
	uint32_t n = gt_le_get32(h + 20);
	if (file_size != g->map_len) {
		snprintf(msg, sizeof msg, "truncated or extended: header says %llu bytes, file has %zu",
			 (unsigned long long)file_size, g->map_len);
		return bad(path, err, msg);
	}
	if (gt_le_get32(h + 16) != GTX_HEADER_SIZE || gt_le_get32(h + 40) != GTX_ENTRY_SIZE || n > GT_GTX_MAX_SECTIONS ||
	    table != GTX_HEADER_SIZE || (uint64_t)n * GTX_ENTRY_SIZE > g->map_len - table)
		return bad(path, err, "bad section table geometry");
	if (gtx_crc32(h + table, (uint64_t)n * GTX_ENTRY_SIZE) != gt_le_get32(h + 44))
		return bad(path, err, "section table checksum mismatch");
	g->section_count = n;
	struct record_visit spans_visit = {.record_size = sizeof(gt_span), .check = spans_ok};
	struct record_visit flows_visit = {.record_size = sizeof(gt_flow), .check = flows_ok};
	bool early = early_limits(g, h + table, n, &spans_visit.limits);
	flows_visit.limits = spans_visit.limits;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = h + table + (size_t)i * GTX_ENTRY_SIZE;
		gt_gtx_section *s = &g->sections[i];
		*s = (gt_gtx_section){gt_le_get32(e), gt_le_get32(e + 4), gt_le_get64(e + 8), gt_le_get64(e + 16),
				      gt_le_get64(e + 24),
				      g->version >= GTX_VERSION_XXH3 ? gt_le_get64(e + 32) : gt_le_get32(e + 32), NULL};
		s->name = gtx_section_name(s->id);
		uint64_t want;
		if (s->id >= GTX_SECTION_MAX || !record_sizes[s->id] || sec(g, s->id) != s ||
		    !has_section(g->version, s->id)) {
			snprintf(msg, sizeof msg, "unknown or repeated section %u", s->id);
			return bad(path, err, msg);
		}
		if (s->record_size != record_sizes[s->id] || __builtin_mul_overflow(s->count, s->record_size, &want) ||
		    want != s->size || s->offset % GTX_ALIGN || s->offset > g->map_len ||
		    s->size > g->map_len - s->offset) {
			snprintf(msg, sizeof msg, "section '%s' is out of bounds or malformed", s->name);
			return bad(path, err, msg);
		}
		/* the span and flow tables' references are checked in the same
		 * pass: the chunk just hashed is in the cache */
		struct record_visit *rv = !early ? NULL : s->id == GTX_SPANS ? &spans_visit
						: s->id == GTX_FLOWS ? &flows_visit : NULL;
		gtx_chunk_visit visit = {visit_records, rv, true};
		if (rv) {
			rv->limits.records = h + s->offset;
			rv->limits.count = s->count;
		}
		if (model_only && !model_reads(s->id))
			continue; /* never read: neither summed nor touched */
		uint64_t sum;
		if (gtx_section_sum_visit(g->version, h + s->offset, s->size, &sum, rv ? &visit : NULL) < 0)
			return gt_fail(err, GT_EINPUT, "out of memory checking '%s'", path);
		if (rv && s->id == GTX_SPANS)
			g->prechecked.spans_ok = !visit.failed;
		if (rv && s->id == GTX_FLOWS)
			g->prechecked.flows_ok = !visit.failed;
		if (sum != s->sum) {
			snprintf(msg, sizeof msg, "checksum mismatch in section '%s'", s->name);
			return bad(path, err, msg);
		}
	}
	if (early) {
		const struct ref_limits *l = &spans_visit.limits;
		g->prechecked.strings = l->strings, g->prechecked.tracks = l->tracks;
		g->prechecked.spans = l->spans, g->prechecked.lanes = l->lanes;
	}
	for (uint32_t id = 1; id < GTX_SECTION_MAX; id++)
		if (record_sizes[id] && !sec(g, id) && has_section(g->version, id)) {
			snprintf(msg, sizeof msg, "section '%s' is missing", gtx_section_name(id));
			return bad(path, err, msg);
		}
	return 0;
}

/* Cross-checks the INFO counts against the sections and views the index. */
static int check_info(gt_gtx *g, const char *path, bool model_only, gt_error *err)
{
	bool all_warnings = g->version >= GTX_VERSION_READING;
	if (sec_count(g, GTX_INFO) < GI_COUNT ||
	    sec_count(g, GTX_STATS) != (all_warnings ? GTX_STATS_COUNT : GTX_STATS_COUNT_V4) ||
	    sec_count(g, GTX_GROUPS) != GT_MAX_GROUPS)
		return bad(path, err, "info, stats or groups section has the wrong length");
	const uint64_t *v = sec_data(g, GTX_INFO);
	struct {
		uint32_t id;
		uint64_t want;
	} counts[] = {{GTX_SPANS, v[GI_SPANS]},     {GTX_TRACKS, v[GI_TRACKS]},    {GTX_PROCESSES, v[GI_PROCESSES]},
		      {GTX_FLOWS, v[GI_FLOWS]},     {GTX_SERIES, v[GI_SERIES]},    {GTX_SAMPLES, v[GI_SAMPLES]},
		      {GTX_STR_OFFSETS, v[GI_STRINGS]}, {GTX_BATCHES, v[GI_BATCHES]}, {GTX_ORDER, v[GI_SPANS]},
		      {GTX_LEVELS, v[GI_LEVELS]},   {GTX_NODES, v[GI_NODES]},      {GTX_DIRTY, v[GI_PARTITIONS]}};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		if (sec_count(g, counts[i].id) != counts[i].want) {
			char msg[128];
			snprintf(msg, sizeof msg, "section '%s' holds %llu records, the info says %llu",
				 gtx_section_name(counts[i].id), (unsigned long long)sec_count(g, counts[i].id),
				 (unsigned long long)counts[i].want);
			return bad(path, err, msg);
		}
	if (v[GI_SPANS] > UINT32_MAX || v[GI_TRACKS] > UINT32_MAX || v[GI_PROCESSES] > UINT32_MAX ||
	    v[GI_FLOWS] > UINT32_MAX || v[GI_SERIES] > UINT32_MAX || v[GI_STRINGS] > UINT32_MAX ||
	    v[GI_BATCHES] > UINT32_MAX || v[GI_PARTITIONS] > UINT32_MAX || v[GI_GROUPS] > GT_MAX_GROUPS ||
	    v[GI_LEVELS] < 1 || v[GI_LEVELS] > GT_TINDEX_MAX_LEVELS || v[GI_BATCH_SPANS] > UINT32_MAX ||
	    v[GI_PARTITION_BATCHES] > UINT32_MAX || v[GI_FANOUT] > UINT32_MAX || v[GI_LANE_BAND] > UINT32_MAX ||
	    v[GI_EPOCH_SPANS] > UINT32_MAX || v[GI_HAS_METADATA] > 1 || v[GI_SOURCE_PREFIX_CRC] > UINT32_MAX)
		return bad(path, err, "info values out of range");
	if (g->version != GTX_VERSION_NO_RESUME) {
		uint64_t want = all_warnings ? RI_COUNT : RI_COUNT_V4;
		const uint64_t *r = sec_count(g, GTX_RESUME) == want ? sec_data(g, GTX_RESUME) : NULL;
		if (!r || r[RI_RESUMABLE] > 1 || r[RI_POINTS] != sec_count(g, GTX_RESUME_POINTS) ||
		    r[RI_BINDS] != sec_count(g, GTX_RESUME_BINDS) || r[RI_TRACKS] != sec_count(g, GTX_RESUME_TRACKS) ||
		    r[RI_POINT_KINDS] != sec_count(g, GTX_RESUME_POINT_KINDS) ||
		    r[RI_POINTS] > UINT32_MAX || r[RI_BINDS] > UINT32_MAX || r[RI_POINT_KINDS] > UINT32_MAX ||
		    (r[RI_RESUMABLE] ? r[RI_TRACKS] != v[GI_TRACKS]
				     : r[RI_POINTS] || r[RI_BINDS] || r[RI_TRACKS] || r[RI_POINT_KINDS] || r[RI_OFFSET]))
			return bad(path, err, "the resume state does not match its sections or the model");
	}
	g->source = (gt_gtx_source){v[GI_SOURCE_LEN], v[GI_SOURCE_PREFIX_LEN], (uint32_t)v[GI_SOURCE_PREFIX_CRC]};
	g->parent_mode = (uint8_t)v[GI_PARENT_MODE];
	gt_tindex *ix = &g->ix;
	memset(ix, 0, sizeof *ix);
	if (model_only)
		return 0;
	ix->borrowed = true;
	ix->p = (gt_tindex_params){(uint32_t)v[GI_BATCH_SPANS], (uint32_t)v[GI_PARTITION_BATCHES],
				   (uint32_t)v[GI_FANOUT], (uint32_t)v[GI_LANE_BAND], (uint32_t)v[GI_EPOCH_SPANS]};
	ix->span_count = (uint32_t)v[GI_SPANS];
	ix->batch_count = (uint32_t)v[GI_BATCHES];
	ix->partition_count = (uint32_t)v[GI_PARTITIONS];
	ix->level_count = (uint32_t)v[GI_LEVELS];
	memcpy(ix->levels, sec_data(g, GTX_LEVELS), ix->level_count * sizeof(gt_tlevel));
	ix->batches = (gt_tnode *)sec_data(g, GTX_BATCHES);
	ix->order = (uint32_t *)sec_data(g, GTX_ORDER);
	ix->nodes = (gt_tnode *)sec_data(g, GTX_NODES);
	ix->node_count = v[GI_NODES];
	ix->dirty = (uint32_t *)sec_data(g, GTX_DIRTY);
	gt_error e2 = {0};
	if (gt_tindex_check_structure(ix, &e2) < 0)
		return bad(path, err, e2.msg);
	return 0;
}

/* The checks shared by both ways of opening: path is copied, map viewed. */
static int open_checked(gt_gtx *g, const char *path, bool model_only, gt_error *err)
{
	g->path = gt_fault_hit("alloc") ? NULL : strdup(path);
	if (!g->path || check_header(g, path, model_only, err) < 0 || check_info(g, path, model_only, err) < 0) {
		if (!g->path)
			gt_fail(err, GT_EINPUT, "out of memory");
		gt_gtx_close(g);
		return -1;
	}
	return 0;
}

int gt_gtx_open(gt_gtx *g, const char *path, gt_error *err)
{
	memset(g, 0, sizeof *g);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return gt_fail(err, GT_EINPUT, "'%s' is not a regular file", path);
	}
	g->map_len = (size_t)st.st_size;
	if (g->map_len) {
		g->map = mmap(NULL, g->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (g->map == MAP_FAILED) {
			g->map = NULL;
			close(fd);
			return gt_fail(err, GT_EINPUT, "cannot map '%s': %s", path, strerror(errno));
		}
	}
	close(fd);
	g->owns_map = true;
	return open_checked(g, path, false, err);
}

int gt_gtx_open_model(gt_gtx *g, const char *path, const void *data, size_t len, gt_error *err)
{
	memset(g, 0, sizeof *g);
	g->map = (void *)data;
	g->map_len = len;
	return open_checked(g, path, true, err);
}

void gt_gtx_close(gt_gtx *g)
{
	if (g->map && g->owns_map)
		gt_unmap(g->map, g->map_len);
	free(g->path);
	memset(g, 0, sizeof *g);
}

static void *dup_section(const gt_gtx *g, uint32_t id)
{
	const gt_gtx_section *s = sec(g, id);
	/* the span table is most of a load: huge pages fault 512 times less
	 * (the block may still go to free()) */
	void *p = gt_big_malloc(s->size ? s->size : 1, 1);
	if (p && s->size)
		memcpy(p, (const unsigned char *)g->map + s->offset, s->size);
	return p;
}

/* The section used in place when the caller hands the mapping to the model
 * (GTX_ALIGN keeps every section aligned; an empty one gets its own block,
 * as no pointer into the mapping stands for it). */
static void *view_section(const gt_gtx *g, uint32_t id, size_t align, bool in_place)
{
	const gt_gtx_section *s = sec(g, id);
	void *p = (unsigned char *)g->map + s->offset;
	if (!in_place || !s->size || (uintptr_t)p % align)
		return dup_section(g, id);
	return p;
}

static char *dup_text(const gt_gtx *g, uint32_t id)
{
	const gt_gtx_section *s = sec(g, id);
	char *p = gt_fault_hit("alloc") ? NULL : malloc(s->size + 1);
	if (p) {
		memcpy(p, (const unsigned char *)g->map + s->offset, s->size);
		p[s->size] = 0;
	}
	return p;
}

/* The span and flow tables are most of a load: checked on threads. */
#define CHECK_MIN_PER_THREAD (1u << 20)

/* Every cross-reference, so later commands can index without checks. */
static const char *check_refs(const gt_gtx *g, const gt_model *m)
{
	uint32_t ns = m->strings.count;
	if (m->group_count > GT_MAX_GROUPS)
		return "more groups than the model holds";
	struct ref_limits limits = {m->spans, m->span_count, ns, m->track_count, m->span_count, m->lane_count};
	bool same = g->prechecked.strings == ns && g->prechecked.tracks == m->track_count &&
		    g->prechecked.spans == m->span_count && g->prechecked.lanes == m->lane_count;
	if (!(same && g->prechecked.spans_ok) &&
	    gt_parallel_ranges(m->span_count, CHECK_MIN_PER_THREAD, 0, spans_ok, &limits))
		return "a span refers past its tables, or its lane is past the lane count";
	for (uint32_t i = 0; i < m->track_count; i++) {
		const gt_track *t = &m->tracks[i];
		if (t->process >= m->process_count || !str_ok(t->name, ns) || !str_ok(t->cat, ns) ||
		    (t->tid.is_str && t->tid.str >= ns))
			return "a track refers past its tables";
		if (t->lane_base > m->lane_count || t->lane_count > m->lane_count - t->lane_base)
			return "a track's lanes are past the lane count";
		if (t->kind > GT_TRACK_INSTANT)
			return "a track is of no known kind";
	}
	for (uint32_t i = 0; i < m->process_count; i++) {
		const gt_process *p = &m->processes[i];
		if (!str_ok(p->name, ns) || !str_ok(p->labels, ns) || (p->pid.is_str && p->pid.str >= ns))
			return "a process refers past its tables";
	}
	limits.records = m->flows, limits.count = m->flow_count;
	if (!(same && g->prechecked.flows_ok) &&
	    gt_parallel_ranges(m->flow_count, CHECK_MIN_PER_THREAD, 0, flows_ok, &limits))
		return "a flow refers past its tables";
	for (uint32_t i = 0; i < m->series_count; i++)
		if (m->series[i].process >= m->process_count || !str_ok(m->series[i].name, ns) ||
		    !str_ok(m->series[i].key, ns))
			return "a counter series refers past its tables";
	for (uint64_t i = 0; i < m->sample_count; i++)
		if (m->samples[i].series >= m->series_count)
			return "a counter sample refers past its tables";
	for (uint32_t i = 0; i < m->group_count; i++)
		if (!str_ok(m->groups[i].name, ns))
			return "a group refers past its tables";
	for (uint32_t i = 0; i < m->sync_count; i++) {
		const gt_sync *y = &m->syncs[i];
		if (y->span >= m->span_count || (i && y->span <= m->syncs[i - 1].span) || !y->role ||
		    y->role > GT_SYNC_ROLE_MAX || y->zero || y->flags > (GT_SYNCF_CORRELATION | GT_SYNCF_RECORD))
			return "a sync args record refers past the spans, is out of order or of no known role";
	}
	return NULL;
}

static bool in_map(const gt_gtx *g, const void *p)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)g->map;
	return a >= base && a - base < g->map_len;
}

static void release_model(const gt_gtx *g, gt_model *m)
{
	if (!in_map(g, m->spans))
		free(m->spans);
	if (!in_map(g, m->flows))
		free(m->flows);
	if (!in_map(g, m->series))
		free(m->series);
	if (!in_map(g, m->syncs))
		free(m->syncs);
	free(m->tracks), free(m->processes), free(m->samples);
	gt_strpool_free(&m->strings);
	free(m->metadata_json), free(m->source);
	memset(m, 0, sizeof *m);
}

/* Each string's length and pool hash, on threads: interning a large
 * table in order (which must give back the ids) then only inserts. */
struct string_hashes {
	const uint64_t *offsets;
	const char *data;
	uint64_t data_len;
	uint64_t *out; /* per string: length, hash */
};

#define STRINGS_PER_THREAD (1u << 16)

static int hash_strings(void *ctx, uint64_t a, uint64_t b)
{
	struct string_hashes *h = ctx;
	for (uint64_t i = a; i < b; i++) {
		if (h->offsets[i] >= h->data_len)
			return 1;
		size_t len = strlen(h->data + h->offsets[i]);
		h->out[2 * i] = len;
		h->out[2 * i + 1] = gt_strpool_hash(h->data + h->offsets[i], len);
	}
	return 0;
}

static int build_model(const gt_gtx *g, gt_model *m, bool in_place, gt_error *err)
{
	memset(m, 0, sizeof *m);
	m->rank = m->world_size = -1; /* not stored in the index */
	gt_strpool_init(&m->strings);
	const uint64_t *v = sec_data(g, GTX_INFO);
	const char *path = g->path;
	m->span_count = (uint32_t)v[GI_SPANS], m->track_count = (uint32_t)v[GI_TRACKS];
	m->process_count = (uint32_t)v[GI_PROCESSES], m->flow_count = (uint32_t)v[GI_FLOWS];
	m->series_count = (uint32_t)v[GI_SERIES], m->sample_count = v[GI_SAMPLES];
	m->group_count = (uint32_t)v[GI_GROUPS], m->lane_count = (uint32_t)v[GI_LANES];
	m->thread_count = (uint32_t)v[GI_THREADS];
	m->start_ns = (int64_t)v[GI_START_NS], m->end_ns = (int64_t)v[GI_END_NS];
	m->parent_mode = (uint8_t)v[GI_PARENT_MODE];
	if (v[GI_LANES] > UINT32_MAX || v[GI_THREADS] > UINT32_MAX || v[GI_PARENT_MODE] > 1) {
		bad(path, err, "info values out of range");
		goto fail;
	}
	m->spans = view_section(g, GTX_SPANS, _Alignof(gt_span), in_place);
	m->flows = view_section(g, GTX_FLOWS, _Alignof(gt_flow), in_place);
	m->series = view_section(g, GTX_SERIES, _Alignof(gt_counter_series), in_place);
	if (sec(g, GTX_SYNCS) && sec_count(g, GTX_SYNCS) > UINT32_MAX) {
		bad(path, err, "the sync args section holds more than 2^32 records");
		goto fail;
	}
	m->sync_count = sec(g, GTX_SYNCS) ? (uint32_t)sec_count(g, GTX_SYNCS) : 0;
	m->syncs = sec(g, GTX_SYNCS) ? view_section(g, GTX_SYNCS, _Alignof(gt_sync), in_place)
				     : (gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *m->syncs));
	m->tracks = gt_fault_hit("alloc") ? NULL : calloc(m->track_count ? m->track_count : 1, sizeof *m->tracks);
	m->processes = gt_fault_hit("alloc") ? NULL : calloc(m->process_count ? m->process_count : 1, sizeof *m->processes);
	m->samples = gt_fault_hit("alloc") ? NULL : calloc(m->sample_count ? m->sample_count : 1, sizeof *m->samples);
	m->source = dup_text(g, GTX_SOURCE_NAME);
	if (v[GI_HAS_METADATA])
		m->metadata_json = dup_text(g, GTX_METADATA);
	if (!m->spans || !m->flows || !m->series || !m->syncs || !m->tracks || !m->processes || !m->samples || !m->source ||
	    (v[GI_HAS_METADATA] && !m->metadata_json)) {
		gt_fail(err, GT_EINPUT, "out of memory loading '%s'", path);
		goto fail;
	}
	const unsigned char *tb = sec_data(g, GTX_TRACKS);
	for (uint32_t i = 0; i < m->track_count; i++) {
		const unsigned char *p = tb + (size_t)i * GTX_TRACK_SIZE;
		gt_track *t = &m->tracks[i];
		t->process = gt_le_get32(p);
		t->kind = p[4], t->async_scope = p[5], t->has_sort_index = p[6] != 0;
		t->tid = (gt_id){(int64_t)gt_le_get64(p + 8), gt_le_get32(p + 16), p[7] != 0};
		t->name = gt_le_get32(p + 20), t->cat = gt_le_get32(p + 24), t->lane_base = gt_le_get32(p + 28);
		t->async_id = gt_le_get64(p + 32), t->sort_index = (int64_t)gt_le_get64(p + 40);
		t->lane_count = gt_le_get32(p + 48), t->span_count = gt_le_get32(p + 52);
	}
	const unsigned char *pb = sec_data(g, GTX_PROCESSES);
	for (uint32_t i = 0; i < m->process_count; i++) {
		const unsigned char *p = pb + (size_t)i * GTX_PROCESS_SIZE;
		gt_process *pr = &m->processes[i];
		pr->pid = (gt_id){(int64_t)gt_le_get64(p), gt_le_get32(p + 8), p[12] != 0};
		pr->has_sort_index = p[13] != 0;
		pr->name = gt_le_get32(p + 16), pr->labels = gt_le_get32(p + 20);
		pr->sort_index = (int64_t)gt_le_get64(p + 24);
	}
	const unsigned char *sb = sec_data(g, GTX_SAMPLES);
	for (uint64_t i = 0; i < m->sample_count; i++) {
		const unsigned char *p = sb + i * GTX_SAMPLE_SIZE;
		uint64_t bits = gt_le_get64(p + 16);
		m->samples[i].series = gt_le_get32(p);
		m->samples[i].ts_ns = (int64_t)gt_le_get64(p + 8);
		memcpy(&m->samples[i].value, &bits, 8);
	}
	const unsigned char *gb = sec_data(g, GTX_GROUPS);
	for (uint32_t i = 0; i < GT_MAX_GROUPS; i++) {
		m->groups[i].name = gt_le_get32(gb + i * GTX_GROUP_SIZE);
		m->groups[i].spans = gt_le_get64(gb + i * GTX_GROUP_SIZE + 8);
	}
	const uint64_t *st = sec_data(g, GTX_STATS);
	m->stats.format = (uint8_t)st[0], m->stats.compression = (uint8_t)st[1];
	m->stats.file_bytes = st[2], m->stats.bytes = st[3], m->stats.events = st[4];
	memcpy(m->stats.phases, st + 5, sizeof m->stats.phases);
	memcpy(m->stats.warnings, st + 5 + 128, gtx_warnings_stored(g->version) * sizeof m->stats.warnings[0]);
	/* Strings: interning them in order must give back their ids. */
	const uint64_t *so = sec_data(g, GTX_STR_OFFSETS);
	const char *sd = sec_data(g, GTX_STR_DATA);
	uint64_t dlen = sec(g, GTX_STR_DATA)->size, nstr = sec_count(g, GTX_STR_OFFSETS);
	if (nstr && (dlen == 0 || sd[dlen - 1] != 0)) {
		bad(path, err, "string data is not terminated");
		goto fail;
	}
	struct string_hashes sh = {so, sd, dlen, gt_fault_hit("alloc") ? NULL : malloc((nstr ? nstr : 1) * 16)};
	if (!sh.out) {
		gt_fail(err, GT_EINPUT, "out of memory loading '%s'", path);
		goto fail;
	}
	if (gt_parallel_ranges(nstr, STRINGS_PER_THREAD, 0, hash_strings, &sh)) {
		free(sh.out);
		bad(path, err, "a string offset is out of bounds");
		goto fail;
	}
	int loaded = gt_strpool_load(&m->strings, sd, dlen, so, sh.out, nstr);
	free(sh.out);
	if (loaded) {
		if (loaded < 0)
			gt_fail(err, GT_EINPUT, "out of memory loading '%s'", path);
		else /* the writer puts the strings back to back */
			bad(path, err, loaded == 2 ? "the string table's strings overlap" : "the string table holds a duplicate");
		goto fail;
	}
	const char *why = check_refs(g, m);
	if (why) {
		bad(path, err, why);
		goto fail;
	}
	return 0;
fail:
	release_model(g, m);
	return -1;
}

int gt_gtx_model(const gt_gtx *g, gt_model *m, gt_error *err)
{
	return build_model(g, m, false, err);
}

/* Gives back the mapped pages wholly inside [lo, hi) (they stay in the page
 * cache): nothing reads them again. */
static void drop_pages(const gt_gtx *g, uint64_t lo, uint64_t hi)
{
	if (lo < hi)
		gt_drop_pages((const unsigned char *)g->map + lo, (size_t)(hi - lo));
}

int gt_gtx_model_in_place(const gt_gtx *g, gt_model *m, gt_error *err)
{
	if (build_model(g, m, true, err) < 0)
		return -1;
	m->map = g->map, m->map_len = g->map_len;
	/* the checksums read the whole file: keep resident only the tables in
	 * use (the mapping is read-only: dropping loses nothing) */
	const void *used[4] = {m->spans, m->flows, m->series, m->syncs};
	uint64_t from[4], to[4];
	int n = 0;
	for (int i = 0; i < 4; i++)
		if (gt_model_borrows(m, used[i])) {
			uint64_t at = (uint64_t)((const unsigned char *)used[i] - (const unsigned char *)g->map);
			int j = n++;
			for (; j > 0 && from[j - 1] > at; j--)
				from[j] = from[j - 1], to[j] = to[j - 1];
			from[j] = at;
			to[j] = at + (i == 0   ? (uint64_t)m->span_count * sizeof *m->spans
				      : i == 1 ? (uint64_t)m->flow_count * sizeof *m->flows
				      : i == 2 ? (uint64_t)m->series_count * sizeof *m->series
					       : (uint64_t)m->sync_count * sizeof *m->syncs);
		}
	uint64_t at = 0;
	for (int i = 0; i < n; i++) {
		drop_pages(g, at, from[i]);
		at = to[i];
	}
	drop_pages(g, at, g->map_len);
	return 0;
}

int gt_gtx_resume(const gt_gtx *g, gt_resume *rs, gt_error *err)
{
	memset(rs, 0, sizeof *rs);
	if (g->version == GTX_VERSION_NO_RESUME)
		return 0;
	const uint64_t *r = sec_data(g, GTX_RESUME), *v = sec_data(g, GTX_INFO);
	if (!r[RI_RESUMABLE])
		return 0;
	const char *why = NULL;
	uint64_t nstr = v[GI_STRINGS], meta = sec(g, GTX_METADATA)->size;
	if (r[RI_AFTER_EVENT] > 1 || r[RI_ANY_TS] > 1 || r[RI_TAIL_CRC] > UINT32_MAX ||
	    r[RI_METADATA_LEN] > (v[GI_HAS_METADATA] ? meta : 0) || (r[RI_METADATA_LEN] && r[RI_METADATA_LEN] < 2))
		why = "resume values out of range";
	const char *names = (const char *)(r + RI_LONG_PHASE);
	for (int i = 0; i < 8 && !why; i++)
		if (!memchr(names + 24 * i, 0, 24))
			why = "a resume phase name is not terminated";
	const gt_resume_point_kind *kinds = sec_data(g, GTX_RESUME_POINT_KINDS);
	for (uint64_t i = 0; i < r[RI_POINT_KINDS] && !why; i++)
		if (kinds[i].cat >= nstr || kinds[i].name >= nstr || kinds[i].id_kind > 2 ||
		    !memchr("stf", kinds[i].ph ? kinds[i].ph : 'x', 3) || kinds[i].enclosing > 1)
			why = "a resume flow point kind refers past its tables";
	const gt_resume_point *pts = sec_data(g, GTX_RESUME_POINTS);
	for (uint64_t i = 0; i < r[RI_POINTS] && !why; i++)
		if (pts[i].track >= v[GI_TRACKS] || pts[i].kind >= r[RI_POINT_KINDS])
			why = "a resume flow point refers past its tables";
	const gt_resume_bind *bs = sec_data(g, GTX_RESUME_BINDS);
	for (uint64_t i = 0; i < r[RI_BINDS] && !why; i++)
		if (bs[i].span >= v[GI_SPANS] || bs[i].id_kind < 1 || bs[i].id_kind > 2 || bs[i].out > 1)
			why = "a resume flow bind refers past its tables";
	const gt_resume_track *ts = sec_data(g, GTX_RESUME_TRACKS);
	for (uint64_t i = 0; i < r[RI_TRACKS] && !why; i++)
		if (ts[i].scope >= (nstr ? nstr : 1) || ts[i].id_kind > 2)
			why = "a resume async key refers past its tables";
	if (why)
		return bad(g->path, err, why);
	rs->points = dup_section(g, GTX_RESUME_POINTS);
	rs->kinds = dup_section(g, GTX_RESUME_POINT_KINDS);
	rs->binds = dup_section(g, GTX_RESUME_BINDS);
	rs->tracks = dup_section(g, GTX_RESUME_TRACKS);
	if (!rs->points || !rs->kinds || !rs->binds || !rs->tracks) {
		gt_resume_free(rs);
		return gt_fail(err, GT_EINPUT, "out of memory loading '%s'", g->path);
	}
	rs->resumable = true;
	rs->offset = r[RI_OFFSET], rs->after_event = r[RI_AFTER_EVENT] != 0;
	rs->metadata_len = r[RI_METADATA_LEN], rs->max_end_ns = (int64_t)r[RI_MAX_END_NS];
	rs->any_ts = r[RI_ANY_TS] != 0, rs->tail_crc = (uint32_t)r[RI_TAIL_CRC];
	rs->point_count = (uint32_t)r[RI_POINTS], rs->bind_count = (uint32_t)r[RI_BINDS];
	rs->track_count = (uint32_t)r[RI_TRACKS], rs->kind_count = (uint32_t)r[RI_POINT_KINDS];
	memcpy(rs->warnings, r + RI_WARNINGS, GT_WARN_STORED * sizeof rs->warnings[0]);
	if (g->version >= GTX_VERSION_READING)
		memcpy(rs->warnings + GT_WARN_STORED, r + RI_WARNINGS_REST,
		       (GT_WARN_COUNT - GT_WARN_STORED) * sizeof rs->warnings[0]);
	memcpy(rs->long_phase_count, r + RI_LONG_PHASE_COUNT, sizeof rs->long_phase_count);
	memcpy(rs->long_phase, names, sizeof rs->long_phase);
	return 0;
}

