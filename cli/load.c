#include "load.h"

#include <string.h>
#include <unistd.h>

#include "table.h"

#include "progress.h"

/* Whether a warning of this kind makes --strict exit 4: the ones that
 * mean an event was left out or its text changed. */
static bool strict_kind(int k)
{
	return gt_warning_skips_event(k) || k == GT_WARN_LONG_PHASE || k == GT_WARN_NONSTANDARD_NUMBER ||
	       k == GT_WARN_INVALID_UTF8 || k == GT_WARN_TRUNCATED_INPUT;
}

/* After a load: one notice line for skipped events and a cut input (info
 * lists where), and exit 4 under --strict for any such warning. */
static int messy_input(const struct gt_common *c, const char *path, gt_model *m)
{
	uint64_t skipped = gt_model_skipped_events(m), cut = m->stats.warnings[GT_WARN_TRUNCATED_INPUT];
	if ((skipped || cut) && !c->quiet) {
		char kinds[512] = "";
		size_t n = 0;
		for (int k = 0; k < GT_WARN_COUNT && n < sizeof kinds; k++)
			if (gt_warning_skips_event(k) && m->stats.warnings[k])
				n += (size_t)snprintf(kinds + n, sizeof kinds - n, "%s%s %llu", n ? ", " : "",
						      gt_warning_names[k], (unsigned long long)m->stats.warnings[k]);
		char trunc[96] = "";
		if (cut)
			snprintf(trunc, sizeof trunc, "%sthe input is cut short at byte %llu", skipped ? "; " : "",
				 (unsigned long long)m->warning_examples[GT_WARN_TRUNCATED_INPUT][0].offset);
		fprintf(stderr, "gputrace: %s: ", path);
		if (skipped)
			fprintf(stderr, "%llu event%s skipped (%s)", (unsigned long long)skipped, skipped == 1 ? "" : "s",
				kinds);
		fprintf(stderr, "%s; 'gputrace info' lists where (warning_examples)\n", trunc);
	}
	if (c->strict) {
		for (int k = 0; k < GT_WARN_COUNT; k++) {
			if (strict_kind(k) && m->stats.warnings[k]) {
				fprintf(stderr, "gputrace: %s: the trace has %s warnings and --strict was given\n", path,
					gt_warning_names[k]);
				gt_model_free(m);
				return GT_EINCOMPLETE;
			}
		}
	}
	return 0;
}

/* One load with the shared options and a progress bar: a full parse (rs
 * NULL or not), or a resumed one (resume set). */
static int load(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs, bool resume,
		const char **why)
{
	/* refuse a binary format on a terminal before a long ingest, not after */
	if (gt_out_format_is_binary(c->format) && !c->output && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "gputrace: refusing to write a binary format to a terminal; use '-o FILE' or a pipe\n");
		return GT_EUSAGE;
	}
	gt_load_options opt;
	memset(&opt, 0, sizeof opt);
	opt.parent_mode = (uint8_t)c->parent_mode;
	opt.threads = c->threads;
	opt.max_expansion = c->max_expansion;
	struct gt_progress bar;
	gt_progress_init(&bar, c, strcmp(path, "-") == 0 ? "reading stdin" : "reading");
	opt.progress = gt_progress_update;
	opt.progress_ctx = &bar;
	gt_error err = {0};
	int rc = resume ? gt_model_resume(m, path, &opt, rs, why, &err)
		: rs ? gt_model_load_resumable(m, path, &opt, rs, &err)
		     : gt_model_load(m, path, &opt, &err);
	gt_progress_end(&bar);
	if (rc < 0)
		return gt_report(&err);
	if (rc == 1)
		return -1;
	return messy_input(c, path, m);
}

int gt_cli_load(const struct gt_common *c, const char *path, gt_model *m)
{
	return load(c, path, m, NULL, false, NULL);
}

int gt_cli_load_resumable(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs)
{
	return load(c, path, m, rs, false, NULL);
}

int gt_cli_resume(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs, const char **why)
{
	return load(c, path, m, rs, true, why);
}

int gt_cli_load_many(const struct gt_common *c, char *const *operands, int n, gt_model *m)
{
	gt_trace_list l;
	gt_error err = {0};
	if (gt_trace_list_expand(&l, operands, (size_t)n, &err) < 0)
		return gt_report(&err);
	if (!l.job) {
		int rc = gt_cli_load(c, l.paths[0], m);
		gt_trace_list_free(&l);
		return rc;
	}
	if (gt_out_format_is_binary(c->format) && !c->output && isatty(STDOUT_FILENO)) {
		gt_trace_list_free(&l);
		fprintf(stderr, "gputrace: refusing to write a binary format to a terminal; use '-o FILE' or a pipe\n");
		return GT_EUSAGE;
	}
	gt_load_options opt;
	memset(&opt, 0, sizeof opt);
	opt.parent_mode = (uint8_t)c->parent_mode;
	opt.threads = c->threads;
	opt.max_expansion = c->max_expansion;
	int rc = gt_model_load_many(m, &l, &opt, &err);
	gt_trace_list_free(&l);
	return rc < 0 ? gt_report(&err) : 0;
}
