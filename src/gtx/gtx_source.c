/* A trace file's fingerprint (gtx.h: gt_gtx_source) and the CRC-32 of its
 * byte ranges, which `pack --update` compares. The bytes are read with
 * pread into a buffer (a mapping would end the process with SIGBUS where
 * the trace shrinks meanwhile) and summed with gt_crc32. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gtx.h"
#include "base/base.h"

#define READ_AT_ONCE (4u << 20)

/* Reads [a, b) of fd into buf and sums it: *crc of the bytes read (*got of
 * them; fewer where the file ends), and of [a, at) into *crc_at where a <
 * at <= b. The errno of a failed read, else 0. */
static int read_crc(int fd, unsigned char *buf, uint64_t a, uint64_t b, uint64_t at, uint32_t *crc, uint32_t *crc_at,
		    uint64_t *got)
{
	uint64_t pos = a;
	*crc = 0;
	while (pos < b) {
		size_t want = b - pos < READ_AT_ONCE ? (size_t)(b - pos) : READ_AT_ONCE;
		ssize_t n = gt_fault_hit("read") ? (errno = EIO, -1) : pread(fd, buf, want, (off_t)pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return *got = pos - a, errno;
		if (n == 0)
			break;
		uint64_t end = pos + (uint64_t)n;
		if (pos < at && at <= end) {
			*crc_at = gt_crc32(*crc, buf, at - pos);
			*crc = gt_crc32(*crc_at, buf + (at - pos), end - at);
		} else {
			*crc = gt_crc32(*crc, buf, (uint64_t)n);
		}
		pos = end;
	}
	*got = pos - a;
	return 0;
}

/* A large range is read and summed in CRC_JOBS parts side by side, joined
 * with crc32_combine: one thread's reads and sums of a 4.5 GB trace
 * outlasted `pack`'s load on 16 cores by 0.15 s. Not under fault
 * injection, whose walks count the reads in order. */
#define CRC_JOBS 4
#define CRC_JOBS_MIN ((uint64_t)64 << 20)

struct crc_job {
	int fd;
	uint64_t a, b;
	uint32_t crc;
	uint64_t got;
	int error; /* errno; ENOMEM: no buffer */
};

static void *crc_part(void *arg)
{
	struct crc_job *j = arg;
	unsigned char *buf = malloc(READ_AT_ONCE);
	uint32_t unused;
	j->got = 0, j->crc = 0;
	j->error = buf ? read_crc(j->fd, buf, j->a, j->b, UINT64_MAX, &j->crc, &unused, &j->got) : ENOMEM;
	free(buf);
	return NULL;
}

static bool in_parts(uint64_t from, uint64_t to, uint64_t at)
{
#ifdef GT_FAULT_INJECTION
	(void)from, (void)to, (void)at;
	return false;
#else
	return to - from >= CRC_JOBS_MIN && (at <= from || at > to) && gt_thread_count(0, CRC_JOBS) > 1;
#endif
}

/* The parts in order, up to the first that the file's end cut short. */
static int crc_in_parts(int fd, uint64_t from, uint64_t to, uint32_t *crc, uint64_t *got)
{
	struct crc_job jobs[CRC_JOBS];
	unsigned k = gt_thread_count(0, CRC_JOBS);
	for (unsigned i = 0; i < k; i++)
		jobs[i] = (struct crc_job){fd, from + (to - from) * i / k, from + (to - from) * (i + 1) / k, 0, 0, 0};
	gt_run_jobs(crc_part, jobs, sizeof *jobs, k);
	uLong c = 0;
	*got = 0;
	for (unsigned i = 0; i < k; i++) {
		if (jobs[i].error)
			return jobs[i].error;
		c = crc32_combine64(c, jobs[i].crc, (z_off64_t)jobs[i].got);
		*got += jobs[i].got;
		if (jobs[i].got < jobs[i].b - jobs[i].a)
			break;
	}
	*crc = (uint32_t)c;
	return 0;
}

/* The CRC-32 of the bytes [from, to) of the file, or of those there are
 * (*got: how many), and on the way of [from, at) where from <= at <= to
 * and the file holds them. */
static int crc_of(const char *path, uint64_t from, uint64_t to, uint64_t at, uint32_t *crc, uint32_t *crc_at,
		  uint64_t *got, gt_error *err)
{
	*crc = 0, *got = 0;
	if (at == from)
		*crc_at = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(errno));
	int e;
	if (in_parts(from, to, at)) {
		e = crc_in_parts(fd, from, to, crc, got);
	} else {
		unsigned char *buf = gt_fault_hit("alloc") ? NULL : malloc(READ_AT_ONCE);
		e = buf ? read_crc(fd, buf, from, to, at, crc, crc_at, got) : ENOMEM;
		free(buf);
	}
	close(fd);
	if (e == ENOMEM)
		return gt_fail(err, GT_EINPUT, "out of memory reading '%s'", path);
	if (e)
		return gt_fail(err, GT_EINPUT, "cannot read '%s': %s", path, strerror(e));
	return 0;
}

int gt_gtx_range_crc(const char *path, uint64_t from, uint64_t to, uint32_t *crc, gt_error *err)
{
	uint32_t unused;
	uint64_t got;
	if (crc_of(path, from, to, UINT64_MAX, crc, &unused, &got, err) < 0)
		return -1;
	if (from + got < to)
		return gt_fail(err, GT_EINPUT, "'%s' is shorter (%llu bytes) than expected", path,
			       (unsigned long long)(from + got));
	return 0;
}

int gt_gtx_prefix_crc(const char *path, uint64_t n, uint32_t *crc, gt_error *err)
{
	uint32_t unused;
	uint64_t got = 0;
	if (crc_of(path, 0, n, UINT64_MAX, crc, &unused, &got, err) < 0)
		return -1;
	if (got < n)
		return gt_fail(err, GT_EINPUT, "'%s' is shorter (%llu bytes) than the trace the index was packed from",
			       path, (unsigned long long)got);
	return 0;
}

/* The file's length and where its stable prefix ends: before the
 * trailing closers and whitespace. */
static int prefix_of(const char *path, gt_gtx_source *src, gt_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(errno));
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < 0) {
		close(fd);
		return gt_fail(err, GT_EINPUT, "cannot seek in '%s'", path);
	}
	uint64_t end = (uint64_t)size;
	unsigned char c;
	while (end > 0 && pread(fd, &c, 1, (off_t)(end - 1)) == 1 &&
	       (c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
		end--;
	close(fd);
	src->len = (uint64_t)size;
	src->prefix_len = end;
	return 0;
}

int gt_gtx_fingerprint_begin(const char *path, gt_gtx_source *src, gt_error *err)
{
	return prefix_of(path, src, err);
}

int gt_gtx_fingerprint_crc(const char *path, gt_gtx_source *src, gt_error *err)
{
	return gt_gtx_prefix_crc(path, src->prefix_len, &src->prefix_crc, err);
}

int gt_gtx_fingerprint(const char *path, gt_gtx_source *src, gt_error *err)
{
	if (gt_gtx_fingerprint_begin(path, src, err) < 0)
		return -1;
	return gt_gtx_fingerprint_crc(path, src, err);
}

int gt_gtx_fingerprint_at(const char *path, uint64_t n, uint32_t *crc_n, gt_gtx_source *src, gt_error *err)
{
	if (prefix_of(path, src, err) < 0)
		return -1;
	uint64_t got = 0, end = src->prefix_len, limit = end > n ? end : n;
	if (crc_of(path, 0, limit, n, &src->prefix_crc, crc_n, &got, err) < 0)
		return -1;
	if (got < limit)
		return gt_fail(err, GT_EINPUT, "'%s' is shorter (%llu bytes) than the trace the index was packed from",
			       path, (unsigned long long)got);
	if (n > end) /* the CRC ran past the prefix: take the prefix's again */
		return gt_gtx_prefix_crc(path, end, &src->prefix_crc, err);
	return 0;
}
