/* Option parsing shared by all commands: a small table-driven parser so that
 * --help, the man-page drift test and the parser read one source. */
#include <errno.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/base.h"
#include "model/model.h"
#include "write/write.h"

void gt_common_init(struct gt_common *c)
{
	memset(c, 0, sizeof *c);
	c->format = GT_OUT_JSON;
	c->parent_mode = GT_PARENTS_NESTING_FLOW;
	c->max_expansion = 200; /* deflate tops out near 1032:1, so a gzip bomb needs a cap well below; real traces compress far less */
	c->report = -1;
}

void gt_common_report_default(struct gt_common *c)
{
	if (c->reports_ok && !c->format_given && !c->output && isatty(STDOUT_FILENO))
		c->report = 0; /* GT_REPORT_TEXT */
}

void gt_opt_begin(struct gt_opt_state *st, const struct gt_command *cmd, int argc, char **argv)
{
	memset(st, 0, sizeof *st);
	st->argc = argc;
	st->argv = argv;
	st->i = 1;
	st->cmd = cmd;
	st->operands = argv; /* compacted in place: operands never outrun i */
}

static const struct gt_opt *find_long(const struct gt_opt *o, const char *name, size_t len)
{
	for (; o && o->name; o++)
		if (strlen(o->name) == len && memcmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

static const struct gt_opt *find_short(const struct gt_opt *o, char c)
{
	for (; o && o->name; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

void gt_operand_stdin(struct gt_opt_state *st)
{
	struct stat sb;
	if (st->noperands == 0 && fstat(STDIN_FILENO, &sb) == 0 &&
	    (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode) || S_ISSOCK(sb.st_mode))) {
		st->operands[0] = (char *)"-"; /* argv[0]'s slot: operands are compacted into argv */
		st->noperands = 1;
	}
}

int gt_opt_next(struct gt_opt_state *st, const char **optarg)
{
	*optarg = NULL;
	while (st->i < st->argc) {
		char *a = st->argv[st->i];
		if (strcmp(a, "--") == 0) {
			st->i++;
			while (st->i < st->argc)
				st->operands[st->noperands++] = st->argv[st->i++];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') { /* operand, "-" included */
			st->operands[st->noperands++] = a;
			st->i++;
			continue;
		}
		const struct gt_opt *o;
		const char *inline_arg = NULL;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			o = find_long(st->cmd->opts, a + 2, len);
			if (!o)
				return gt_usage_error(st->cmd, "unknown option '%.*s' for '%s'",
						      (int)(len + 2), a, st->cmd->name), -1;
			if (eq)
				inline_arg = eq + 1;
		} else {
			o = find_short(st->cmd->opts, a[1]);
			if (!o)
				return gt_usage_error(st->cmd, "unknown option '-%c' for '%s'", a[1],
						      st->cmd->name), -1;
			if (a[2])
				inline_arg = a + 2; /* -ofile, -j4 */
			if (inline_arg && !o->arg)
				return gt_usage_error(st->cmd, "option '-%c' takes no argument", a[1]), -1;
		}
		st->i++;
		if (o->arg) {
			if (inline_arg) {
				*optarg = inline_arg;
			} else if (st->i < st->argc) {
				*optarg = st->argv[st->i++];
			} else {
				return gt_usage_error(st->cmd, "option '--%s' needs an argument %s",
						      o->name, o->arg), -1;
			}
		} else if (inline_arg && a[1] == '-') {
			return gt_usage_error(st->cmd, "option '--%s' takes no argument", o->name), -1;
		}
		return o->id;
	}
	st->argc = st->noperands; /* operands are now argv[0..noperands) */
	return 0;
}

int gt_parse_u64(const struct gt_command *cmd, const char *opt, const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return gt_usage_error(cmd, "option '--%s' needs a non-negative integer, not '%s'", opt, s ? s : ""), -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return gt_usage_error(cmd, "option '--%s' needs a non-negative integer, not '%s'", opt, s), -1;
	*out = v;
	return 0;
}

int gt_common_opt(struct gt_common *c, const struct gt_command *cmd, int id, const char *arg)
{
	switch (id) {
	case OPT_HELP:
		gt_usage(cmd, stdout);
		return 2;
	case OPT_FORMAT: {
		c->format_given = true;
		if (!strcmp(arg, "text") || !strcmp(arg, "markdown")) {
			if (!c->reports_ok)
				return gt_usage_error(cmd, "'-f %s' is for critical-path, compare, info, stragglers and "
							   "collectives; here json, ndjson, csv, arrow or arrow-stream", arg), -1;
			c->report = arg[0] == 't' ? 0 : 1;
			c->format = GT_OUT_JSON;
			return 1;
		}
		c->report = -1;
		int f = gt_out_format_parse(arg);
		if (f < 0)
			return gt_usage_error(cmd, "unknown format '%s' (json, ndjson, csv, arrow, arrow-stream)", arg), -1;
		c->format = f;
		return 1;
	}
	case OPT_OUTPUT:
		c->output = strcmp(arg, "-") == 0 ? NULL : arg;
		return 1;
	case OPT_DEVICE:
		c->device = arg;
		return 1;
	case OPT_QUIET:
		c->quiet = true;
		return 1;
	case OPT_VERBOSE:
		c->verbose = true;
		return 1;
	case OPT_PROGRESS:
		c->progress = true;
		return 1;
	case OPT_STRICT:
		c->strict = true;
		return 1;
	case OPT_PARENTS:
		if (strcmp(arg, "nesting+flow") == 0)
			c->parent_mode = GT_PARENTS_NESTING_FLOW;
		else if (strcmp(arg, "nesting") == 0)
			c->parent_mode = GT_PARENTS_NESTING;
		else
			return gt_usage_error(cmd, "unknown parent mode '%s' (nesting+flow or nesting)", arg), -1;
		return 1;
	case OPT_MAX_EXPANSION:
		return gt_parse_u64(cmd, "max-expansion", arg, &c->max_expansion) < 0 ? -1 : 1;
	case OPT_THREADS: {
		unsigned long long v;
		if (gt_parse_u64(cmd, "threads", arg, &v) < 0)
			return -1;
		if (v > 256)
			return gt_usage_error(cmd, "option '--threads' is at most 256"), -1;
		c->threads = (unsigned)v;
		gt_thread_default_set(c->threads); /* the passes not handed a count keep to it too */
		return 1;
	}
	}
	return 0;
}

bool gt_common_or_exit(struct gt_common *c, const struct gt_command *cmd, int id, const char *arg, int *status)
{
	int r = gt_common_opt(c, cmd, id, arg);
	if (r == 1)
		return true;
	if (r == 0)
		gt_usage_error(cmd, "option not handled by '%s'", cmd->name);
	*status = r == 2 ? 0 : GT_EUSAGE;
	return false;
}

bool gt_parse_common(const struct gt_command *cmd, int argc, char **argv, struct gt_common *c,
		     struct gt_opt_state *st, int *status)
{
	gt_common_init(c);
	gt_opt_begin(st, cmd, argc, argv);
	const char *arg;
	int id;
	while ((id = gt_opt_next(st, &arg)) > 0)
		if (!gt_common_or_exit(c, cmd, id, arg, status))
			return false;
	*status = GT_EUSAGE;
	return id == 0;
}

void gt_usage(const struct gt_command *cmd, FILE *f)
{
	fprintf(f, "usage: gputrace %s [options] %s\n", cmd->name, cmd->args ? cmd->args : "");
	fprintf(f, "%s\n", cmd->summary);
	if (!cmd->opts || !cmd->opts->name)
		return;
	fprintf(f, "\noptions:\n");
	for (const struct gt_opt *o = cmd->opts; o->name; o++) {
		char lhs[64];
		int n = 0;
		if (o->short_name)
			n = snprintf(lhs, sizeof lhs, "-%c, ", o->short_name);
		else
			n = snprintf(lhs, sizeof lhs, "    ");
		snprintf(lhs + n, sizeof lhs - (size_t)n, "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s\n", lhs, o->help);
	}
}

int gt_usage_error(const struct gt_command *cmd, const char *fmt, ...)
{
	va_list ap;
	fputs("gputrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "; try 'gputrace %s --help'\n", cmd->name);
	else
		fprintf(stderr, "; try 'gputrace --help'\n");
	return GT_EUSAGE;
}

int gt_report(const gt_error *err)
{
	fprintf(stderr, "gputrace: %s\n", err->msg[0] ? err->msg : "unknown error");
	return err->status ? err->status : GT_EINPUT;
}

int gt_report_input(const char *input, const gt_error *err)
{
	fprintf(stderr, "gputrace: %s: %s\n", input, err->msg[0] ? err->msg : "unknown error");
	return err->status ? err->status : GT_EINPUT;
}

const char *gt_input_label(char *const *operands, int n, char *buf, size_t len)
{
	if (n <= 1)
		return n ? operands[0] : "-";
	snprintf(buf, len, "%s (+%d more)", operands[0], n - 1);
	return buf;
}

void gt_notice(const struct gt_common *c, const char *fmt, ...)
{
	if (c && c->quiet)
		return;
	va_list ap;
	fputs("gputrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void gt_verbose(const struct gt_common *c, const char *fmt, ...)
{
	if (!c || c->quiet || !c->verbose)
		return;
	va_list ap;
	fputs("gputrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void gt_device_notice(const struct gt_common *c, const char *chosen)
{
	if (chosen && chosen[0])
		gt_verbose(c, "%s", chosen);
}
