/* libFuzzer harness for the trace reader (gt_model_load).
 *
 * The first byte selects how the rest reaches the reader: plain, gzip- or
 * zstd-compressed here (so all three decompression paths parse the same
 * JSON), or passed through as-is (so corrupt compressed streams reach the
 * decompressors' error paths), the parser's thread count, the parent mode
 * and the cap on expansion, and whether a compressed stream is cut short
 * (the truncated_input path). The input goes through a memfd (a regular file:
 * mapped when plain) or a pipe (read by the reader thread). zstd may come as
 * many small frames (bit 7), which a regular file decodes on threads. A
 * compressed or raw file read on two threads (the frames decoded on
 * threads, a gzip member decoded in pieces, each window's successor read
 * ahead) must give the model one thread gives, or the same error.
 * A plain file must give, with one thread or two (pieces of a few bytes
 * in fuzz builds, so that every event's piece is its own), the model that
 * one thread gives when every event is built the plain way, without the
 * simple events' bulk path (src/ingest/simple_events.h), or the same error.
 * A successful load must give a consistent model; a failed one an error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "model/model.h"
#include "loader/loader.h"
#include "ingest/simple_events.h"
#include "fuzz_compress.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

static void check_model(const gt_model *m)
{
	for (uint32_t i = 0; i < m->span_count; i++) {
		const gt_span *s = &m->spans[i];
		CHECK(s->parent == GT_NONE || s->parent < m->span_count);
		CHECK(s->parent != i);
		CHECK(s->track < m->track_count);
		CHECK(s->lane < m->lane_count);
		CHECK(s->dur_ns >= 0);
		CHECK(s->group < GT_MAX_GROUPS);
		CHECK(s->event < m->stats.events);
		(void)gt_model_str(m, s->name);
		(void)gt_model_str(m, s->cat);
	}
	for (uint32_t i = 0; i < m->track_count; i++)
		CHECK(m->tracks[i].process < m->process_count);
	for (uint32_t i = 0; i < m->flow_count; i++) {
		CHECK(m->flows[i].src == GT_NONE || m->flows[i].src < m->span_count);
		CHECK(m->flows[i].dst == GT_NONE || m->flows[i].dst < m->span_count);
	}
	for (uint64_t i = 0; i < m->sample_count; i++)
		CHECK(m->samples[i].series < m->series_count);
	CHECK(m->group_count <= GT_MAX_GROUPS);
	/* warnings: skipped events are events; examples only of counted kinds */
	CHECK(gt_model_skipped_events(m) <= m->stats.events);
	CHECK(m->stats.warnings[GT_WARN_TRUNCATED_INPUT] <= 1);
	for (int k = 0; k < GT_WARN_COUNT; k++) {
		CHECK(m->warning_example_count[k] <= GT_WARN_EXAMPLES);
		CHECK(m->warning_example_count[k] <= m->stats.warnings[k]);
		for (unsigned i = 0; i < m->warning_example_count[k]; i++)
			CHECK(memchr(m->warning_examples[k][i].excerpt, 0, GT_WARN_EXCERPT + 1) != NULL);
	}
}

/* Two loads of one plain file: every id and count the same. */
static void check_same(const gt_model *a, const gt_model *b)
{
	CHECK(a->span_count == b->span_count && a->track_count == b->track_count);
	CHECK(a->flow_count == b->flow_count && a->process_count == b->process_count);
	CHECK(a->span_count == 0 || memcmp(a->spans, b->spans, a->span_count * sizeof *a->spans) == 0);
	CHECK(a->flow_count == 0 || memcmp(a->flows, b->flows, a->flow_count * sizeof *a->flows) == 0);
	for (uint32_t t = 0; t < a->track_count; t++) {
		const gt_track *x = &a->tracks[t], *y = &b->tracks[t];
		CHECK(x->process == y->process && x->kind == y->kind && x->name == y->name && x->cat == y->cat);
		CHECK(x->tid.num == y->tid.num && x->tid.str == y->tid.str && x->tid.is_str == y->tid.is_str);
		CHECK(x->lane_base == y->lane_base && x->lane_count == y->lane_count && x->span_count == y->span_count);
	}
	CHECK(a->strings.count == b->strings.count && a->strings.data_len == b->strings.data_len);
	CHECK(memcmp(a->strings.data, b->strings.data, a->strings.data_len) == 0);
	CHECK(a->stats.events == b->stats.events && a->start_ns == b->start_ns && a->end_ns == b->end_ns);
	CHECK(memcmp(a->stats.phases, b->stats.phases, sizeof a->stats.phases) == 0);
	CHECK(memcmp(a->stats.warnings, b->stats.warnings, sizeof a->stats.warnings) == 0);
	for (uint32_t g = 0; g < GT_MAX_GROUPS; g++)
		CHECK(a->groups[g].spans == b->groups[g].spans && a->groups[g].name == b->groups[g].name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++;
	size--;
	const unsigned char *bytes = data;
	size_t n = size;
	unsigned char *owned = NULL;
	switch (mode & 3) {
	case 1:
		owned = gzip_bytes(data, size, &n);
		break;
	case 2:
		owned = (mode & 128) ? zstd_frames_bytes(data, size, 8 + size / 8, &n) : zstd_bytes(data, size, &n);
		break;
	default: /* 0 plain, 3 raw: the same bytes; the reader sniffs magic */
		break;
	}
	if ((mode & 3) == 1 || (mode & 3) == 2) {
		if (!owned)
			return 0;
		bytes = owned;
		/* bit 6: a profiler killed while writing: the stream cut at a
		 * point the last input byte chooses */
		if ((mode & 64) && n > 1 && size > 0)
			n = 1 + (size_t)data[size - 1] * (n - 1) / 256;
	}
	/* bit 5: a pipe (no size, no mmap: the reader thread's plain path) */
	int fd, wfd;
	if (mode & 32) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			abort();
		if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < (int)n + 1) {
			close(p[0]);
			close(p[1]);
			free(owned);
			return 0;
		}
		fd = p[0];
		wfd = p[1];
	} else {
		fd = wfd = memfd_create("trace", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(wfd, bytes + off, n - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	if (wfd != fd)
		close(wfd);
	free(owned);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	gt_load_options opt;
	memset(&opt, 0, sizeof opt);
	opt.threads = (mode & 4) ? 2 : 1;
	opt.parent_mode = (mode & 8) ? GT_PARENTS_NESTING : GT_PARENTS_NESTING_FLOW;
	opt.max_expansion = (mode & 16) ? 0 : 1000;
	gt_model m;
	gt_error err = {0};
	int rc = gt_model_load(&m, path, &opt, &err);
	if (rc == 0) {
		check_model(&m);
		if (m.span_count)
			gt_model_set_parent_mode(&m, opt.parent_mode == GT_PARENTS_NESTING
							    ? GT_PARENTS_NESTING_FLOW : GT_PARENTS_NESTING);
		check_model(&m);
	} else {
		CHECK(err.status == GT_EINPUT);
		CHECK(err.msg[0] != '\0');
		CHECK(strchr(err.msg, '\n') == NULL);
	}
	if ((mode & 3) != 0 && !(mode & 32) && opt.threads > 1) {
		/* a stream on threads (its windows read ahead, zstd frames
		 * decoded on threads) against one thread */
		gt_model m1;
		gt_error err1 = {0};
		opt.threads = 1;
		int rc1 = gt_model_load(&m1, path, &opt, &err1);
		CHECK(rc1 == rc);
		if (rc1 == 0) {
			if (m1.span_count)
				gt_model_set_parent_mode(&m1, m.parent_mode);
			check_same(&m1, &m);
			gt_model_free(&m1);
		} else {
			CHECK(strcmp(err1.msg, err.msg) == 0);
		}
	}
	if ((mode & 3) == 0 && !(mode & 32)) {
		gt_model m1;
		gt_error err1 = {0};
		opt.threads = 1;
		gt_simple_events_off = true;
		int rc1 = gt_model_load(&m1, path, &opt, &err1);
		gt_simple_events_off = false;
		CHECK(rc1 == rc);
		if (rc1 == 0) {
			if (m1.span_count)
				gt_model_set_parent_mode(&m1, m.parent_mode);
			check_same(&m1, &m);
			gt_model_free(&m1);
		} else {
			CHECK(strcmp(err1.msg, err.msg) == 0);
		}
	}
	if (rc == 0)
		gt_model_free(&m);
	close(fd);
	return 0;
}
