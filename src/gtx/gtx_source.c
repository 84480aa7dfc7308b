/* A trace file's fingerprint (gtx.h: gt_gtx_source) and the CRC-32 of its
 * byte ranges, which `pack --update` compares. The bytes are read with
 * pread into a buffer (a mapping would end the process with SIGBUS where
 * the trace shrinks meanwhile) and summed with gt_crc32. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gtx.h"
#include "base/base.h"

#define READ_AT_ONCE (4u << 20)

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
	unsigned char *buf = gt_fault_hit("alloc") ? NULL : malloc(READ_AT_ONCE);
	if (!buf) {
		close(fd);
		return gt_fail(err, GT_EINPUT, "out of memory reading '%s'", path);
	}
	uint64_t pos = from;
	int rc = 0;
	while (pos < to) {
		size_t want = to - pos < READ_AT_ONCE ? (size_t)(to - pos) : READ_AT_ONCE;
		ssize_t n = gt_fault_hit("read") ? (errno = EIO, -1) : pread(fd, buf, want, (off_t)pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = gt_fail(err, GT_EINPUT, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
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
	free(buf);
	close(fd);
	*got = pos - from;
	return rc;
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
