/* Atomic output files: temp file in the target's directory, then rename. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gt_outfile_open(gt_outfile *o, const char *path, bool binary, gt_error *err)
{
	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		if (binary && isatty(STDOUT_FILENO))
			return gt_fail(err, GT_EUSAGE, "refusing to write binary output to a terminal; use -o FILE");
		o->fp = stdout;
		o->is_stdout = true;
		return 0;
	}
	size_t n = strlen(path);
	o->path = strdup(path);
	o->tmp_path = malloc(n + 16);
	if (!o->path || !o->tmp_path) {
		gt_outfile_abort(o);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	snprintf(o->tmp_path, n + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(o->tmp_path);
	if (fd < 0) {
		int e = errno;
		free(o->tmp_path);
		o->tmp_path = NULL;
		gt_outfile_abort(o);
		return gt_fail(err, GT_EINPUT, "cannot create '%s': %s", path, strerror(e));
	}
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		close(fd);
		gt_outfile_abort(o);
		return gt_fail(err, GT_EINPUT, "cannot open '%s'", path);
	}
	return 0;
}

int gt_outfile_commit(gt_outfile *o, gt_error *err)
{
	if (o->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			return gt_fail(err, GT_EINPUT, "write error on standard output: %s", strerror(errno));
		return 0;
	}
	int bad = fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0;
	int e = errno;
	if (fclose(o->fp) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->fp = NULL;
	if (bad || rename(o->tmp_path, o->path) != 0) {
		if (!bad)
			e = errno;
		char path[4096];
		snprintf(path, sizeof path, "%s", o->path);
		gt_outfile_abort(o);
		return gt_fail(err, GT_EINPUT, "cannot write '%s': %s", path, strerror(e));
	}
	free(o->tmp_path);
	free(o->path);
	o->tmp_path = o->path = NULL;
	return 0;
}

void gt_outfile_abort(gt_outfile *o)
{
	if (o->fp && !o->is_stdout)
		fclose(o->fp);
	if (o->tmp_path)
		unlink(o->tmp_path);
	free(o->tmp_path);
	free(o->path);
	memset(o, 0, sizeof *o);
}
