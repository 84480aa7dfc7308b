#include "load.h"

#include <string.h>
#include <unistd.h>

#include "write/write.h"

#include "progress.h"

/* One file's notice: its skipped events and where it is cut short, on one
 * line; whence says how to list where they are. */
static void notice_file(const char *path, const gt_ingest_stats *st, uint64_t cut_at, const char *whence)
{
	uint64_t skipped = 0;
	char kinds[512] = "";
	size_t n = 0;
	for (int k = 0; k < GT_WARN_COUNT; k++) {
		if (!gt_warning_skips_event(k) || !st->warnings[k])
			continue;
		skipped += st->warnings[k];
		if (n < sizeof kinds)
			n += (size_t)snprintf(kinds + n, sizeof kinds - n, "%s%s %llu", n ? ", " : "",
					      gt_warning_names[k], (unsigned long long)st->warnings[k]);
	}
	bool cut = st->warnings[GT_WARN_TRUNCATED_INPUT] != 0;
	if (!skipped && !cut)
		return;
	char trunc[96] = "";
	if (cut)
		snprintf(trunc, sizeof trunc, "%sthe input is cut short at byte %llu", skipped ? "; " : "",
			 (unsigned long long)cut_at);
	fprintf(stderr, "gputrace: %s: ", path);
	if (skipped)
		fprintf(stderr, "%llu event%s skipped (%s)", (unsigned long long)skipped, skipped == 1 ? "" : "s", kinds);
	fprintf(stderr, "%s; %s lists where (warning_examples)\n", trunc, whence);
}

/* The warning kind that makes --strict fail a file, or -1: any kind, the
 * repairs of the span model (an E closing a B of another name, an X
 * without dur run to the end, an unbound flow) as much as a skipped event:
 * each means the model is not what the file says. */
static int strict_warning(const gt_ingest_stats *st)
{
	for (int k = 0; k < GT_WARN_COUNT; k++)
		if (st->warnings[k])
			return k;
	return -1;
}

/* After a load: a notice line per file with skipped events or a cut input
 * (a job's name their file; info lists where), and exit 4 under --strict
 * for any such warning, naming the first file in rank order that has one. */
static int messy_input(const struct gt_common *c, const char *path, gt_model *m)
{
	uint32_t files = m->rank_count ? m->rank_count : 1;
	for (uint32_t i = 0; i < files && !c->quiet; i++) {
		if (m->rank_count)
			notice_file(m->ranks[i].source ? m->ranks[i].source : path, &m->ranks[i].stats,
				    m->ranks[i].examples ? m->ranks[i].examples[GT_WARN_TRUNCATED_INPUT][0].offset : 0,
				    "'gputrace info' on the file");
		else
			notice_file(path, &m->stats, m->warning_examples[GT_WARN_TRUNCATED_INPUT][0].offset,
				    "'gputrace info'");
	}
	for (uint32_t i = 0; i < files && c->strict; i++) {
		const gt_ingest_stats *st = m->rank_count ? &m->ranks[i].stats : &m->stats;
		int k = strict_warning(st);
		if (k >= 0) {
			fprintf(stderr, "gputrace: %s: the trace has %s warnings and --strict was given\n",
				m->rank_count && m->ranks[i].source ? m->ranks[i].source : path, gt_warning_names[k]);
			gt_model_free(m);
			return GT_EINCOMPLETE;
		}
	}
	return 0;
}

/* One load with the shared options and a progress bar: a full parse (rs
 * NULL or not), a resumed one (resume set), or a job's files (job set;
 * path is its first). */
static int load(const struct gt_common *c, const char *path, const gt_trace_list *job, gt_model *m, gt_resume *rs,
		bool resume, const char **why)
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
	gt_progress_init(&bar, c, !job && strcmp(path, "-") == 0 ? "reading stdin" : "reading");
	opt.progress = gt_progress_update;
	opt.progress_ctx = &bar;
	gt_error err = {0};
	int rc = job ? gt_model_load_many(m, job, &opt, &err)
		: resume ? gt_model_resume(m, path, &opt, rs, why, &err)
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
	return load(c, path, NULL, m, NULL, false, NULL);
}

int gt_cli_load_resumable(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs)
{
	return load(c, path, NULL, m, rs, false, NULL);
}

int gt_cli_resume(const struct gt_common *c, const char *path, gt_model *m, gt_resume *rs, const char **why)
{
	return load(c, path, NULL, m, rs, true, why);
}

int gt_cli_load_many(const struct gt_common *c, char *const *operands, int n, gt_model *m)
{
	gt_trace_list l;
	gt_error err = {0};
	if (gt_trace_list_expand(&l, operands, (size_t)n, &err) < 0)
		return gt_report(&err);
	int rc = load(c, l.paths[0], l.job ? &l : NULL, m, NULL, false, NULL);
	gt_trace_list_free(&l);
	return rc;
}
