/* The command-line layer: command descriptors, option parsing, diagnostics.
 * Only cli/ prints to stdout/stderr or chooses exit statuses. */
#ifndef GT_CLI_H
#define GT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "base/base.h"

/* One option of a command. id > 0 is returned by gt_opt_next. */
struct gt_opt {
	const char *name;     /* long name without "--" */
	char short_name;      /* 0 for none */
	const char *arg;      /* argument placeholder, NULL for a flag */
	int id;
	const char *help;
};

/* Ids of the options that many commands share (below 100). */
enum {
	OPT_HELP = 1, OPT_FORMAT, OPT_OUTPUT, OPT_DEVICE, OPT_QUIET, OPT_PROGRESS,
	OPT_STRICT, OPT_PARENTS, OPT_THREADS, OPT_MAX_EXPANSION, OPT_VERBOSE,
	OPT_COMMAND_BASE = 100
};

/* Shared option table entries, to put in a command's gt_opt array. */
#define GT_OPT_HELP     { "help", 'h', NULL, OPT_HELP, "print this help to stdout" }
#define GT_OPT_FORMAT   { "format", 'f', "FMT", OPT_FORMAT, "json (default), ndjson, csv, arrow or arrow-stream" }
#define GT_OPT_FORMAT_REPORTS                                                                              \
	{ "format", 'f', "FMT", OPT_FORMAT,                                                                \
	  "json (default; on a terminal text), text, markdown, ndjson, csv, arrow or arrow-stream" }
#define GT_OPT_OUTPUT   { "output", 'o', "FILE", OPT_OUTPUT, "write to FILE atomically instead of stdout" }
#define GT_OPT_DEVICE   { "device", 'd', "DEV", OPT_DEVICE, "auto, host, gpu, an index from 'gputrace devices', or a name substring" }
#define GT_OPT_QUIET    { "quiet", 'q', NULL, OPT_QUIET, "no notices on stderr" }
#define GT_OPT_PROGRESS { "progress", 0, NULL, OPT_PROGRESS, "show progress on stderr even when it is not a terminal" }
#define GT_OPT_STRICT   { "strict", 0, NULL, OPT_STRICT, "exit 4 when a result is flagged incomplete or the trace had events skipped, cut or repaired" }
#define GT_OPT_PARENTS  { "parents", 0, "MODE", OPT_PARENTS, "parent forest: nesting+flow (default) or nesting" }
#define GT_OPT_THREADS  { "threads", 'j', "N", OPT_THREADS, "threads (default: one per core)" }
#define GT_OPT_MAX_EXPANSION { "max-expansion", 0, "RATIO", OPT_MAX_EXPANSION, "fail when decompressed size exceeds RATIO times the compressed size (default 200, 0: no cap)" }
#define GT_OPT_VERBOSE  { "verbose", 'v', NULL, OPT_VERBOSE, "notices of the device chosen and where the time went" }
#define GT_OPT_END      { NULL, 0, NULL, 0, NULL }

struct gt_command {
	const char *name;
	const char *args;    /* synopsis after the options, e.g. "TRACE" */
	const char *summary; /* one line */
	const struct gt_opt *opts;
	int (*run)(const struct gt_command *cmd, int argc, char **argv);
};

/* Options common to data-printing commands, filled by gt_cli_common_opt. */
struct gt_common {
	int format;          /* enum gt_out_format */
	const char *output;  /* NULL: stdout */
	const char *device;  /* NULL: GPUTRACE_DEVICE or auto */
	bool quiet, progress, strict;
	bool verbose;        /* -v: the host-path choice, stage times */
	int parent_mode;     /* enum gt_parent_mode */
	unsigned threads;
	unsigned long long max_expansion; /* decompression cap; 0 none */
	int report;          /* -f text or markdown: enum gt_report_kind (report.h), -1: none */
	bool reports_ok;     /* the command writes reports (set before parsing) */
	bool format_given;   /* -f was given */
};
void gt_common_init(struct gt_common *c);
/* After parsing: a command with reports writes text to a terminal when no
 * -f or -o was given (pipes and files keep the default format). */
void gt_common_report_default(struct gt_common *c);

/* Option iteration. Returns an option id, 0 at the end (then *argi indexes
 * the first operand and operands are argv[*argi..argc)), or -1 after
 * printing a usage error. Operands and options may be mixed; "--" ends
 * options. */
struct gt_opt_state {
	int argc;
	char **argv;
	int i;
	const struct gt_command *cmd;
	char **operands;
	int noperands;
	char shortbuf[3];
};
void gt_opt_begin(struct gt_opt_state *st, const struct gt_command *cmd, int argc, char **argv);
int gt_opt_next(struct gt_opt_state *st, const char **optarg);
/* After the options: no TRACE given while standard input is a pipe or a
 * file (not a terminal, not /dev/null) reads it as "-". */
void gt_operand_stdin(struct gt_opt_state *st);
/* Handles a shared option; returns 1 when handled, 0 when not shared,
 * -1 after a usage error was printed. OPT_HELP prints usage and returns 2
 * (the caller then exits 0). */
int gt_common_opt(struct gt_common *c, const struct gt_command *cmd, int id, const char *arg);

/* The default branch of a command's own option loop: handles a shared
 * option. Returns true to go on; otherwise the command returns *status
 * (0 after --help, 2 after a usage error). */
bool gt_common_or_exit(struct gt_common *c, const struct gt_command *cmd, int id, const char *arg, int *status);

/* For commands whose options are all shared ones: parses argv into c and
 * st's operands. Returns true when the command should go on; otherwise
 * *status is the exit status (0 after --help, 2 after a usage error). */
bool gt_parse_common(const struct gt_command *cmd, int argc, char **argv, struct gt_common *c,
		     struct gt_opt_state *st, int *status);

/* Prints the command's usage to f. */
void gt_usage(const struct gt_command *cmd, FILE *f);
/* "gputrace: <msg>" on stderr, with a hint line for usage errors. Returns
 * the status to exit with. */
int gt_usage_error(const struct gt_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int gt_report(const gt_error *err);
/* gt_report naming the command's input as given, "gputrace: INPUT: msg":
 * for the errors of an analysis, which knows the model, not the path. */
int gt_report_input(const char *input, const gt_error *err);
/* How messages name a command's TRACE operands: the one file or folder
 * given, or "FIRST (+N more)" (buf holds it). */
const char *gt_input_label(char *const *operands, int n, char *buf, size_t len);
void gt_notice(const struct gt_common *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A notice printed only with -v (and never with -q). */
void gt_verbose(const struct gt_common *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The device choice from gt_cl_open (a GPU or the host path), named only
 * with -v: a report on stdout stays the only output by default. */
void gt_device_notice(const struct gt_common *c, const char *chosen);
/* Parses an unsigned integer option value; -1 with a usage error. */
int gt_parse_u64(const struct gt_command *cmd, const char *opt, const char *s, unsigned long long *out);

extern const char *gt_program_version;

#endif
