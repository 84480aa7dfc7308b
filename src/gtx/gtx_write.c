/* Writes .gtx index files (layout: src/gtx/GTX-FORMAT.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gtx.h"
#include "gtx_layout.h"
#include "base/base.h"
#include "write/write.h"

struct wsec {
	uint32_t id, record_size;
	uint64_t count;
	const void *data;
	uint64_t size;
	void *owned;
};

static int add(struct wsec *s, uint32_t *n, uint32_t id, uint32_t rsize, uint64_t count, const void *data,
	       void *owned)
{
	s[*n] = (struct wsec){id, rsize, count, data, (uint64_t)rsize * count, owned};
	(*n)++;
	return 0;
}

static unsigned char *encode_tracks(const gt_model *m)
{
	unsigned char *b = gt_fault_hit("alloc") ? NULL : calloc(m->track_count ? m->track_count : 1, GTX_TRACK_SIZE);
	for (uint32_t i = 0; b && i < m->track_count; i++) {
		const gt_track *t = &m->tracks[i];
		unsigned char *p = b + (size_t)i * GTX_TRACK_SIZE;
		gt_le_put32(p, t->process);
		p[4] = t->kind, p[5] = t->async_scope, p[6] = t->has_sort_index, p[7] = t->tid.is_str;
		gt_le_put64(p + 8, (uint64_t)t->tid.num);
		gt_le_put32(p + 16, t->tid.str);
		gt_le_put32(p + 20, t->name);
		gt_le_put32(p + 24, t->cat);
		gt_le_put32(p + 28, t->lane_base);
		gt_le_put64(p + 32, t->async_id);
		gt_le_put64(p + 40, (uint64_t)t->sort_index);
		gt_le_put32(p + 48, t->lane_count);
		gt_le_put32(p + 52, t->span_count);
	}
	return b;
}

static unsigned char *encode_processes(const gt_model *m)
{
	unsigned char *b = gt_fault_hit("alloc") ? NULL : calloc(m->process_count ? m->process_count : 1, GTX_PROCESS_SIZE);
	for (uint32_t i = 0; b && i < m->process_count; i++) {
		const gt_process *pr = &m->processes[i];
		unsigned char *p = b + (size_t)i * GTX_PROCESS_SIZE;
		gt_le_put64(p, (uint64_t)pr->pid.num);
		gt_le_put32(p + 8, pr->pid.str);
		p[12] = pr->pid.is_str, p[13] = pr->has_sort_index;
		gt_le_put32(p + 16, pr->name);
		gt_le_put32(p + 20, pr->labels);
		gt_le_put64(p + 24, (uint64_t)pr->sort_index);
	}
	return b;
}

static unsigned char *encode_samples(const gt_model *m)
{
	unsigned char *b = gt_fault_hit("alloc") ? NULL : calloc(m->sample_count ? m->sample_count : 1, GTX_SAMPLE_SIZE);
	for (uint64_t i = 0; b && i < m->sample_count; i++) {
		unsigned char *p = b + i * GTX_SAMPLE_SIZE;
		uint64_t bits;
		memcpy(&bits, &m->samples[i].value, 8);
		gt_le_put32(p, m->samples[i].series);
		gt_le_put64(p + 8, (uint64_t)m->samples[i].ts_ns);
		gt_le_put64(p + 16, bits);
	}
	return b;
}

static unsigned char *encode_groups(const gt_model *m)
{
	unsigned char *b = gt_fault_hit("alloc") ? NULL : calloc(GT_MAX_GROUPS, GTX_GROUP_SIZE);
	for (uint32_t i = 0; b && i < m->group_count && i < GT_MAX_GROUPS; i++) {
		gt_le_put32(b + i * GTX_GROUP_SIZE, m->groups[i].name);
		gt_le_put64(b + i * GTX_GROUP_SIZE + 8, m->groups[i].spans);
	}
	return b;
}

static uint64_t *encode_stats(const gt_model *m)
{
	uint64_t *v = gt_fault_hit("alloc") ? NULL : calloc(GTX_STATS_COUNT, 8);
	if (!v)
		return NULL;
	const gt_ingest_stats *s = &m->stats;
	v[0] = s->format, v[1] = s->compression, v[2] = s->file_bytes, v[3] = s->bytes, v[4] = s->events;
	memcpy(v + 5, s->phases, sizeof s->phases);
	memcpy(v + 5 + 128, s->warnings, GT_WARN_COUNT * sizeof s->warnings[0]);
	return v;
}

static uint64_t *encode_info(const gt_model *m, const gt_tindex *ix, const gt_gtx_source *src)
{
	uint64_t *v = gt_fault_hit("alloc") ? NULL : calloc(GI_COUNT, 8);
	if (!v)
		return NULL;
	v[GI_SPANS] = m->span_count, v[GI_TRACKS] = m->track_count, v[GI_PROCESSES] = m->process_count;
	v[GI_FLOWS] = m->flow_count, v[GI_SERIES] = m->series_count, v[GI_SAMPLES] = m->sample_count;
	v[GI_GROUPS] = m->group_count, v[GI_LANES] = m->lane_count, v[GI_THREADS] = m->thread_count;
	v[GI_START_NS] = (uint64_t)m->start_ns, v[GI_END_NS] = (uint64_t)m->end_ns;
	v[GI_PARENT_MODE] = m->parent_mode, v[GI_STRINGS] = m->strings.count;
	v[GI_HAS_METADATA] = m->metadata_json != NULL;
	v[GI_BATCH_SPANS] = ix->p.batch_spans, v[GI_PARTITION_BATCHES] = ix->p.partition_batches;
	v[GI_FANOUT] = ix->p.fanout, v[GI_LANE_BAND] = ix->p.lane_band, v[GI_EPOCH_SPANS] = ix->p.epoch_spans;
	v[GI_BATCHES] = ix->batch_count, v[GI_PARTITIONS] = ix->partition_count;
	v[GI_LEVELS] = ix->level_count, v[GI_NODES] = ix->node_count;
	v[GI_SOURCE_LEN] = src->len, v[GI_SOURCE_PREFIX_LEN] = src->prefix_len;
	v[GI_SOURCE_PREFIX_CRC] = src->prefix_crc;
	return v;
}

static uint64_t *encode_resume(const gt_resume *rs)
{
	uint64_t *v = gt_fault_hit("alloc") ? NULL : calloc(RI_COUNT, 8);
	if (!v || !rs || !rs->resumable)
		return v;
	v[RI_RESUMABLE] = 1, v[RI_OFFSET] = rs->offset, v[RI_AFTER_EVENT] = rs->after_event;
	v[RI_METADATA_LEN] = rs->metadata_len, v[RI_MAX_END_NS] = (uint64_t)rs->max_end_ns;
	v[RI_ANY_TS] = rs->any_ts, v[RI_TAIL_CRC] = rs->tail_crc;
	v[RI_POINTS] = rs->point_count, v[RI_BINDS] = rs->bind_count, v[RI_TRACKS] = rs->track_count;
	v[RI_POINT_KINDS] = rs->kind_count;
	memcpy(v + RI_WARNINGS, rs->warnings, GT_WARN_STORED * sizeof rs->warnings[0]);
	memcpy(v + RI_WARNINGS_REST, rs->warnings + GT_WARN_STORED,
	       (GT_WARN_COUNT - GT_WARN_STORED) * sizeof rs->warnings[0]);
	memcpy(v + RI_LONG_PHASE_COUNT, rs->long_phase_count, sizeof rs->long_phase_count);
	_Static_assert(sizeof rs->long_phase == 24 * 8, "long phase names fill 24 words");
	memcpy(v + RI_LONG_PHASE, rs->long_phase, sizeof rs->long_phase);
	return v;
}

static int write_all(FILE *f, const void *p, uint64_t n)
{
	return n == 0 || fwrite(p, 1, n, f) == n ? 0 : -1;
}

/* Where everything goes: the header, the section table, and each
 * section's offset (GTX_ALIGN apart, zeros between). */
struct layout {
	unsigned char head[GTX_HEADER_SIZE];
	unsigned char *table;
	uint64_t at[GT_GTX_MAX_SECTIONS];
	uint64_t file_size;
};

static int lay_out(struct layout *l, struct wsec *s, uint32_t n)
{
	memset(l->head, 0, sizeof l->head);
	l->table = gt_fault_hit("alloc") ? NULL : calloc(n, GTX_ENTRY_SIZE);
	if (!l->table)
		return -1;
	uint64_t off = GTX_HEADER_SIZE + (uint64_t)n * GTX_ENTRY_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		off = (off + GTX_ALIGN - 1) / GTX_ALIGN * GTX_ALIGN;
		l->at[i] = off;
		unsigned char *e = l->table + (size_t)i * GTX_ENTRY_SIZE;
		gt_le_put32(e, s[i].id);
		gt_le_put32(e + 4, s[i].record_size);
		gt_le_put64(e + 8, off);
		gt_le_put64(e + 16, s[i].size);
		gt_le_put64(e + 24, s[i].count);
		uint64_t sum;
		if (gtx_section_sum(GTX_VERSION, s[i].data, s[i].size, &sum) < 0)
			return -1;
		gt_le_put64(e + 32, sum);
		off += s[i].size;
	}
	l->file_size = (off + GTX_ALIGN - 1) / GTX_ALIGN * GTX_ALIGN;
	memcpy(l->head, GTX_MAGIC, 8);
	gt_le_put32(l->head + 8, GTX_VERSION);
	gt_le_put32(l->head + 12, GTX_ENDIAN);
	gt_le_put32(l->head + 16, GTX_HEADER_SIZE);
	gt_le_put32(l->head + 20, n);
	gt_le_put64(l->head + 24, l->file_size);
	gt_le_put64(l->head + 32, GTX_HEADER_SIZE);
	gt_le_put32(l->head + 40, GTX_ENTRY_SIZE);
	gt_le_put32(l->head + 44, gtx_crc32(l->table, (uint64_t)n * GTX_ENTRY_SIZE));
	gt_le_put32(l->head + 124, gtx_crc32(l->head, 124));
	return 0;
}

static int write_stream(FILE *f, const struct layout *l, struct wsec *s, uint32_t n)
{
	static const unsigned char zeros[GTX_ALIGN];
	int rc = write_all(f, l->head, sizeof l->head) | write_all(f, l->table, (uint64_t)n * GTX_ENTRY_SIZE);
	uint64_t pos = GTX_HEADER_SIZE + (uint64_t)n * GTX_ENTRY_SIZE;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		rc |= write_all(f, zeros, l->at[i] - pos);
		rc |= write_all(f, s[i].data, s[i].size);
		pos = l->at[i] + s[i].size;
	}
	if (rc == 0)
		rc = write_all(f, zeros, l->file_size - pos);
	return rc;
}

/* The file's bytes [base + a, base + b), those of the header, the table
 * and the sections (the zeros between are there already), copied into
 * the mapping of the file from base. */
struct mapped_copy {
	unsigned char *map;
	uint64_t base;
	const struct layout *l;
	const struct wsec *s;
	uint32_t n;
};

static void copy_part(const struct mapped_copy *c, const void *data, uint64_t from, uint64_t size, uint64_t a,
		      uint64_t b)
{
	uint64_t to = from + size;
	if (size == 0 || to <= a || from >= b)
		return;
	uint64_t x = from > a ? from : a, y = to < b ? to : b;
	memcpy(c->map + (x - c->base), (const unsigned char *)data + (x - from), y - x);
}

static int copy_range(void *ctx, uint64_t a, uint64_t b)
{
	const struct mapped_copy *c = ctx;
	a += c->base, b += c->base;
	copy_part(c, c->l->head, 0, sizeof c->l->head, a, b);
	copy_part(c, c->l->table, GTX_HEADER_SIZE, (uint64_t)c->n * GTX_ENTRY_SIZE, a, b);
	for (uint32_t i = 0; i < c->n; i++)
		copy_part(c, c->s[i].data, c->l->at[i], c->s[i].size, a, b);
	return 0;
}

#define MAPPED_MIN ((uint64_t)8 << 20)    /* below this, one write is as fast */
#define MAP_WINDOW ((uint64_t)64 << 20)   /* mapped at a time: the pages it holds */
#define COPY_PIECE ((uint64_t)4 << 20)
#define MAPPED_CORES 4

/* A large index is copied into its file through a mapping, on threads:
 * write(2) copies on one thread, and writes from several threads take the
 * file's lock in turn (re-packing 10M spans on 16 cores into tmpfs: 0.98
 * against 1.40 s). The file's blocks are reserved first, so that a full
 * disk is an error here and never a fault in the copy. 1 when it cannot
 * be mapped (another file system, a FIFO): write it as a stream then. */
static int write_mapped(gt_outfile *o, const struct layout *l, struct wsec *s, uint32_t n, uint64_t *reserve_ns)
{
	if (l->file_size < MAPPED_MIN || gt_outfile_tell(o) != 0)
		return 1;
	if (gt_fault_hit("write"))
		return -1; /* as a full disk */
	uint64_t t0 = gt_clock_ns();
	int e = posix_fallocate(o->fd, 0, (off_t)l->file_size);
	*reserve_ns = gt_clock_ns() - t0;
	if (e)
		return e == ENOSPC || e == EFBIG || e == EIO ? -1 : 1;
	for (uint64_t base = 0; base < l->file_size; base += MAP_WINDOW) {
		uint64_t len = l->file_size - base < MAP_WINDOW ? l->file_size - base : MAP_WINDOW;
		unsigned char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, (off_t)base);
		if (map == MAP_FAILED)
			return base ? -1 : 1;
		struct mapped_copy c = {map, base, l, s, n};
		gt_parallel_ranges(len, COPY_PIECE, 0, copy_range, &c);
		gt_unmap(map, len);
	}
	return gt_outfile_seek(o, (int64_t)l->file_size) < 0 ? -1 : 0;
}

/* Mapped with 4 cores or more: on 2 the reserving and the page faults
 * cost more than the copy's threads save (10% of re-packing 10M spans).
 * GPUTRACE_GTX_WRITE=mapped or stream chooses (the tests check that both
 * give the same bytes). -1: another value. */
static int use_mapping(void)
{
	const char *how = getenv("GPUTRACE_GTX_WRITE");
	if (!how)
		return gt_thread_count(0, MAPPED_CORES) >= MAPPED_CORES;
	return !strcmp(how, "mapped") ? 1 : !strcmp(how, "stream") ? 0 : -1;
}

/* Through the atomic output file: a failure never leaves a partial index.
 * GPUTRACE_PACK_TIMES: one line on stderr of where the time went. */
static int write_atomic(const char *path, struct wsec *s, uint32_t n, gt_error *err)
{
	int mapped = use_mapping();
	if (mapped < 0)
		return gt_fail(err, GT_EUSAGE, "GPUTRACE_GTX_WRITE is mapped or stream, not '%s'",
			       getenv("GPUTRACE_GTX_WRITE"));
	uint64_t t0 = gt_clock_ns(), reserve = 0;
	struct layout l = {.table = NULL};
	if (lay_out(&l, s, n) < 0) {
		free(l.table);
		return gt_fail(err, GT_EINPUT, "out of memory writing '%s'", path);
	}
	gt_outfile o;
	if (gt_outfile_open(&o, path, true, err) < 0) {
		free(l.table);
		return -1;
	}
	uint64_t t1 = gt_clock_ns();
	int rc = mapped ? write_mapped(&o, &l, s, n, &reserve) : 1;
	if (rc > 0)
		rc = write_stream(o.fp, &l, s, n);
	free(l.table);
	if (rc < 0) {
		gt_outfile_abort(&o);
		return gt_fail(err, GT_EINPUT, "cannot write '%s'", path);
	}
	uint64_t t2 = gt_clock_ns();
	rc = gt_outfile_commit(&o, err);
	if (getenv("GPUTRACE_PACK_TIMES")) /* a diagnostic for profiling, not an interface */
		fprintf(stderr, "gputrace: index write: laying out and summing %.3f s, %s %.3f s (reserving the blocks %.3f), committing %.3f s\n",
			(t1 - t0) / 1e9, reserve ? "the mapped copy" : "writing", (t2 - t1) / 1e9,
			reserve / 1e9, (gt_clock_ns() - t2) / 1e9);
	return rc;
}

int gt_gtx_write(const char *path, const gt_model *m, const gt_tindex *ix, const gt_gtx_source *src,
		 gt_error *err)
{
	return gt_gtx_write_resume(path, m, ix, src, NULL, err);
}

int gt_gtx_write_resume(const char *path, const gt_model *m, const gt_tindex *ix, const gt_gtx_source *src,
			const gt_resume *rs, gt_error *err)
{
	struct wsec s[GT_GTX_MAX_SECTIONS];
	uint32_t n = 0;
	uint64_t *info = encode_info(m, ix, src), *stats = encode_stats(m), *resume = encode_resume(rs);
	bool keep = rs && rs->resumable;
	unsigned char *tracks = encode_tracks(m), *procs = encode_processes(m), *samples = encode_samples(m),
		      *groups = encode_groups(m);
	int rc = -1;
	if (!info || !stats || !resume || !tracks || !procs || !samples || !groups) {
		gt_fail(err, GT_EINPUT, "out of memory writing '%s'", path);
		goto done;
	}
	const gt_strpool *sp = &m->strings;
	add(s, &n, GTX_INFO, 8, GI_COUNT, info, NULL);
	add(s, &n, GTX_STR_OFFSETS, 8, sp->count, sp->offsets, NULL);
	add(s, &n, GTX_STR_DATA, 1, sp->data_len, sp->data, NULL);
	add(s, &n, GTX_SPANS, sizeof(gt_span), m->span_count, m->spans, NULL);
	add(s, &n, GTX_TRACKS, GTX_TRACK_SIZE, m->track_count, tracks, NULL);
	add(s, &n, GTX_PROCESSES, GTX_PROCESS_SIZE, m->process_count, procs, NULL);
	add(s, &n, GTX_FLOWS, sizeof(gt_flow), m->flow_count, m->flows, NULL);
	add(s, &n, GTX_SERIES, sizeof(gt_counter_series), m->series_count, m->series, NULL);
	add(s, &n, GTX_SYNCS, sizeof(gt_sync), m->sync_count, m->syncs, NULL);
	add(s, &n, GTX_SAMPLES, GTX_SAMPLE_SIZE, m->sample_count, samples, NULL);
	add(s, &n, GTX_GROUPS, GTX_GROUP_SIZE, GT_MAX_GROUPS, groups, NULL);
	add(s, &n, GTX_METADATA, 1, m->metadata_json ? strlen(m->metadata_json) : 0, m->metadata_json, NULL);
	add(s, &n, GTX_SOURCE_NAME, 1, m->source ? strlen(m->source) : 0, m->source, NULL);
	add(s, &n, GTX_STATS, 8, GTX_STATS_COUNT, stats, NULL);
	add(s, &n, GTX_BATCHES, sizeof(gt_tnode), ix->batch_count, ix->batches, NULL);
	add(s, &n, GTX_ORDER, 4, ix->span_count, ix->order, NULL);
	add(s, &n, GTX_LEVELS, sizeof(gt_tlevel), ix->level_count, ix->levels, NULL);
	add(s, &n, GTX_NODES, sizeof(gt_tnode), ix->node_count, ix->nodes, NULL);
	add(s, &n, GTX_DIRTY, 4, ix->partition_count, ix->dirty, NULL);
	add(s, &n, GTX_RESUME, 8, RI_COUNT, resume, NULL);
	add(s, &n, GTX_RESUME_POINTS, sizeof(gt_resume_point), keep ? rs->point_count : 0, keep ? rs->points : NULL,
	    NULL);
	add(s, &n, GTX_RESUME_BINDS, sizeof(gt_resume_bind), keep ? rs->bind_count : 0, keep ? rs->binds : NULL, NULL);
	add(s, &n, GTX_RESUME_TRACKS, sizeof(gt_resume_track), keep ? rs->track_count : 0, keep ? rs->tracks : NULL,
	    NULL);
	add(s, &n, GTX_RESUME_POINT_KINDS, sizeof(gt_resume_point_kind), keep ? rs->kind_count : 0,
	    keep ? rs->kinds : NULL, NULL);
	rc = write_atomic(path, s, n, err);
done:
	free(info), free(stats), free(resume), free(tracks), free(procs), free(samples), free(groups);
	return rc;
}
