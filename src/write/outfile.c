/* Atomic output files (see outfile.h). The temporary file lives in the
 * target's directory so rename(2) replaces the target in one step; it gets
 * the target's mode (or 0666 less the umask) before it is renamed. A target
 * that exists and is not a regular file (/dev/null, a FIFO) is written in
 * place: there is nothing to replace atomically. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "outfile.h"

#ifdef GT_FAULT_INJECTION
/* Under fault injection the FILE goes through a cookie whose "write" site
 * writes half of the buffer and then fails, like a disk filling up. The
 * failure is a short count: glibc marks the stream's error either way, and
 * a -1 from a large direct fwrite is counted as -1 bytes written (the
 * stream then copies past the caller's buffer). */
static ssize_t fault_write(void *cookie, const char *buf, size_t n)
{
	int fd = (int)(intptr_t)cookie;
	if (gt_fault_hit("write")) {
		ssize_t half = write(fd, buf, n / 2);
		errno = ENOSPC;
		return half > 0 ? half : 0;
	}
	return write(fd, buf, n);
}

static int fault_close(void *cookie)
{
	return close((int)(intptr_t)cookie);
}

static FILE *open_stream(int fd)
{
	cookie_io_functions_t io = {.write = fault_write, .close = fault_close};
	return fopencookie((void *)(intptr_t)fd, "w", io);
}
#else
static FILE *open_stream(int fd)
{
	return fdopen(fd, "w");
}
#endif

static void reset(gt_outfile *o)
{
	free(o->path);
	free(o->tmp_path);
	memset(o, 0, sizeof *o);
}

static mode_t default_mode(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

int gt_outfile_open(gt_outfile *o, const char *path, bool binary, gt_error *err)
{
	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		if (binary && isatty(STDOUT_FILENO))
			return gt_fail(err, GT_EUSAGE,
				       "refusing to write a binary format to a terminal; use '-o FILE' or a pipe");
		o->fp = stdout;
		o->is_stdout = true;
		return 0;
	}
	/* A symbolic link is followed, so the file it names is replaced. */
	char *real = realpath(path, NULL);
	struct stat st;
	/* a link realpath cannot follow (/dev/stdout to a pipe's "pipe:[N]")
	 * still opens: written in place, never replaced */
	bool exists = stat(real ? real : path, &st) == 0;
	o->path = real ? real : strdup(path);
	if (!o->path)
		return reset(o), gt_fail(err, GT_EINPUT, "out of memory opening '%s'", path);

	if (exists && !S_ISREG(st.st_mode)) {
		int fd = open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		o->fd = fd;
		if (fd < 0 || !(o->fp = open_stream(fd))) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			reset(o);
			return gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(e));
		}
		return 0;
	}

	char *copy = strdup(o->path);
	char *base_copy = strdup(o->path);
	if (!copy || !base_copy) {
		free(copy);
		free(base_copy);
		reset(o);
		return gt_fail(err, GT_EINPUT, "out of memory opening '%s'", path);
	}
	const char *dir = dirname(copy);
	const char *base = basename(base_copy);
	size_t n = strlen(dir) + strlen(base) + 16;
	o->tmp_path = malloc(n);
	if (o->tmp_path)
		snprintf(o->tmp_path, n, "%s/.%s.XXXXXX", dir, base);
	free(copy);
	free(base_copy);
	if (!o->tmp_path) {
		reset(o);
		return gt_fail(err, GT_EINPUT, "out of memory opening '%s'", path);
	}
	int fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(o->tmp_path);
		o->tmp_path = NULL;
		reset(o);
		return gt_fail(err, GT_EINPUT, "cannot create a temporary file next to '%s': %s", path,
			       strerror(e));
	}
	o->fd = fd;
	fchmod(fd, exists ? (st.st_mode & 07777) : default_mode());
	o->fp = open_stream(fd);
	if (!o->fp) {
		int e = errno;
		close(fd);
		gt_outfile_abort(o);
		return gt_fail(err, GT_EINPUT, "cannot open '%s': %s", path, strerror(e));
	}
	return 0;
}

int64_t gt_outfile_tell(gt_outfile *o)
{
	if (o->is_stdout || !o->tmp_path || !o->fp || fflush(o->fp) != 0 || ferror(o->fp))
		return -1;
	off_t at = lseek(o->fd, 0, SEEK_CUR);
	return at < 0 ? -1 : (int64_t)at;
}

/* The first failure is the one told. */
static void keep_error(gt_outfile *o, int e)
{
	int none = 0;
	__atomic_compare_exchange_n(&o->error, &none, e ? e : EIO, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void gt_outfile_pwrite(gt_outfile *o, const void *p, size_t n, int64_t at)
{
	const char *c = p;
	while (n) {
		size_t part = n;
#ifdef GT_FAULT_INJECTION
		if (gt_fault_hit("write")) { /* as the stream's fault: half, then a full disk */
			ssize_t half = pwrite(o->fd, c, n / 2, (off_t)at);
			(void)half;
			keep_error(o, ENOSPC);
			return;
		}
#endif
		ssize_t k = pwrite(o->fd, c, part, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			keep_error(o, k < 0 ? errno : EIO);
			return;
		}
		c += k, n -= (size_t)k, at += k;
	}
}

int gt_outfile_seek(gt_outfile *o, int64_t at)
{
	if (lseek(o->fd, (off_t)at, SEEK_SET) >= 0)
		return 0;
	keep_error(o, errno);
	return -1;
}

int gt_outfile_commit(gt_outfile *o, gt_error *err)
{
	if (o->is_stdout) {
		bool bad = fflush(stdout) != 0 || ferror(stdout);
		int e = errno;
		o->fp = NULL;
		reset(o);
		if (bad)
			return gt_fail(err, GT_EINPUT, "write error on standard output: %s", strerror(e));
		return 0;
	}
	if (!o->fp)
		return gt_fail(err, GT_EINPUT, "output file is not open");
	int e = __atomic_load_n(&o->error, __ATOMIC_RELAXED);
	if (!e && (fflush(o->fp) != 0 || ferror(o->fp)))
		e = errno ? errno : EIO;
	if (!e && o->tmp_path && fsync(o->fd) != 0)
		e = errno;
	if (fclose(o->fp) != 0 && !e)
		e = errno ? errno : EIO;
	o->fp = NULL;
	if (!e && o->tmp_path && rename(o->tmp_path, o->path) != 0)
		e = errno;
	if (e) {
		int rc = gt_fail(err, GT_EINPUT, "cannot write '%s': %s", o->path, strerror(e));
		gt_outfile_abort(o);
		return rc;
	}
	if (o->tmp_path) {
		/* make the rename itself durable; a failure here loses nothing */
		char *copy = strdup(o->path);
		int dfd = copy ? open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(copy);
	}
	reset(o);
	return 0;
}

void gt_outfile_abort(gt_outfile *o)
{
	if (!o)
		return;
	if (o->fp && !o->is_stdout)
		fclose(o->fp);
	if (o->tmp_path)
		unlink(o->tmp_path);
	reset(o);
}
