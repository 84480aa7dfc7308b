/* libFuzzer harness for `gputrace critical-path --forest FILE`: the CSV
 * forest reader and the host critical path behind it, driven through the
 * command itself (its reader is private to cli/cmd_critical_path.c).
 * fuzz-args: -close_fd_mask=3
 *
 * The first byte chooses the output format, --strict, --rows and a
 * --max-path-length; the rest is the CSV. The exit status must be a
 * documented one: 0, 1 (bad input) or 4 (flagged, with --strict). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

extern const struct gt_command gt_cmd_critical_path;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	int fd = memfd_create("forest", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	static const char *const formats[] = {"json", "ndjson", "csv", "arrow"};
	const char *argv[16];
	int argc = 0;
	argv[argc++] = "critical-path";
	argv[argc++] = "--forest";
	argv[argc++] = path;
	argv[argc++] = "--device";
	argv[argc++] = "host";
	argv[argc++] = "-q";
	argv[argc++] = "-f";
	argv[argc++] = formats[mode & 3];
	argv[argc++] = "-o";
	argv[argc++] = "/dev/null";
	if (mode & 4)
		argv[argc++] = "--strict";
	if ((mode & 8) || (mode & 3) != 0) /* only json has a summary without rows */
		argv[argc++] = "--rows";
	if (mode & 16) {
		argv[argc++] = "--max-path-length";
		argv[argc++] = (mode & 32) ? "1" : "3";
	}
	argv[argc] = NULL;
	int rc = gt_cmd_critical_path.run(&gt_cmd_critical_path, argc, (char **)argv);
	if (!(rc == 0 || rc == 1 || (rc == 4 && (mode & 4)))) {
		fprintf(stderr, "undocumented exit status %d\n", rc);
		abort();
	}
	close(fd);
	return 0;
}
