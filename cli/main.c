/* gputrace entry point: dispatches `gputrace COMMAND ...` to the command
 * table generated from cli/cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "device_open.h"
#include "cli.h"
#include "commands.h"

static void print_overview(FILE *f)
{
	fprintf(f, "usage: gputrace COMMAND [options] [FILE...]\n\n"
		   "Batch analysis of Chrome Trace Event Format traces (JSON, gzip, zstd).\n\ncommands:\n");
	for (const struct gt_command *const *c = gt_commands; *c; c++)
		fprintf(f, "  %-15s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n'gputrace help COMMAND' or 'gputrace COMMAND --help' describes one command.\n"
		   "'gputrace --version' prints the version. See gputrace(1).\n");
}

static const struct gt_command *find_command(const char *name)
{
	for (const struct gt_command *const *c = gt_commands; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

/* Suggests the command sharing the longest prefix with a mistyped name. */
static const char *closest_command(const char *name)
{
	const char *best = NULL;
	size_t best_len = 0;
	for (const struct gt_command *const *c = gt_commands; *c; c++) {
		size_t n = 0;
		while (name[n] && (*c)->name[n] == name[n])
			n++;
		if (n > best_len) {
			best_len = n;
			best = (*c)->name;
		}
	}
	return best_len >= 2 ? best : NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stderr);
		return GT_EUSAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		print_overview(stdout);
		return 0;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		printf("gputrace %s\n", gt_program_version);
		return 0;
	}
	if (strcmp(name, "help") == 0) {
		if (argc < 3) {
			print_overview(stdout);
			return 0;
		}
		const struct gt_command *c = find_command(argv[2]);
		if (!c)
			return gt_usage_error(NULL, "unknown command '%s'", argv[2]);
		gt_usage(c, stdout);
		return 0;
	}
	const struct gt_command *cmd = find_command(name);
	if (!cmd) {
		const char *hint = closest_command(name);
		if (hint) {
			fprintf(stderr, "gputrace: unknown command '%s'; did you mean '%s'? try 'gputrace --help'\n",
				name, hint);
			return GT_EUSAGE;
		}
		return gt_usage_error(NULL, "unknown command '%s'", name);
	}
	int rc = cmd->run(cmd, argc - 1, argv + 1);
	gt_cli_device_settle();
	return rc;
}
