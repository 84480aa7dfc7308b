/* libFuzzer harness for `gputrace query --viewports FILE.jsonl`: the JSON
 * lines reader and the time/lane/group parsers behind it (private to
 * cli/cmd_query.c and cli/viewport.c), driven through the command over a
 * small index packed once at start-up from a golden trace.
 * fuzz-args: -close_fd_mask=3
 *
 * The first byte chooses --expand, --strict, ndjson and a --capacity; the
 * rest is the JSONL. Exit status: 0, 1, 2 (a bad viewport is a usage error)
 * or 4 (with --strict). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "gtx/gtx.h"
#include "loader/loader.h"

extern const struct gt_command gt_cmd_query;
static char index_path[64];

static char index_dir[64];

static void remove_index(void)
{
	unlink(index_path);
	if (index_dir[0])
		rmdir(index_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *trace = "testdata/ingest/lanes.json";
	gt_model m;
	gt_error err = {0};
	gt_tindex ix;
	gt_tindex_params p;
	gt_gtx_source src;
	gt_tindex_default_params(&p);
	p.batch_spans = 2; /* several batches and levels from a small trace */
	/* the writer renames a temporary into place: a real directory */
	static char dir[] = "/tmp/fuzz_viewports.XXXXXX";
	if (!mkdtemp(dir))
		abort();
	snprintf(index_dir, sizeof index_dir, "%s", dir);
	snprintf(index_path, sizeof index_path, "%s/index.gtx", dir);
	atexit(remove_index);
	if (gt_model_load(&m, trace, NULL, &err) < 0 || gt_gtx_fingerprint(trace, &src, &err) < 0 ||
	    gt_tindex_build(&ix, &m, &p, &err) < 0 || gt_gtx_write(index_path, &m, &ix, &src, &err) < 0) {
		fprintf(stderr, "fuzz_viewports: cannot pack %s (run from the repository root): %s\n", trace,
			err.msg);
		exit(1);
	}
	gt_tindex_free(&ix);
	gt_model_free(&m);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	int fd = memfd_create("viewports", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	const char *argv[16];
	int argc = 0;
	argv[argc++] = "query";
	argv[argc++] = "--device";
	argv[argc++] = "host";
	argv[argc++] = "-q";
	argv[argc++] = "--viewports";
	argv[argc++] = path;
	argv[argc++] = "-o";
	argv[argc++] = "/dev/null";
	if (mode & 1)
		argv[argc++] = "--expand";
	if (mode & 2)
		argv[argc++] = "--strict";
	if (mode & 4) {
		argv[argc++] = "-f";
		argv[argc++] = "ndjson";
	}
	if (mode & 8) {
		argv[argc++] = "--capacity";
		argv[argc++] = (mode & 16) ? "0" : "2";
	}
	argv[argc++] = index_path;
	argv[argc] = NULL;
	int rc = gt_cmd_query.run(&gt_cmd_query, argc, (char **)argv);
	if (!(rc == 0 || rc == 1 || rc == 2 || (rc == 4 && (mode & 2)))) {
		fprintf(stderr, "undocumented exit status %d\n", rc);
		abort();
	}
	close(fd);
	return 0;
}
