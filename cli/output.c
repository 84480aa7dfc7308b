#include "output.h"

#include "write/write.h"

int gt_cli_write_table(const struct gt_common *c, const gt_table *t)
{
	gt_outfile out;
	gt_error err = {0};
	bool report = c->report >= 0;
	if (gt_outfile_open(&out, c->output, !report && gt_out_format_is_binary(c->format), &err) < 0)
		return gt_report(&err);
	if (report && gt_table_report_write(out.fp, t, c->report) < 0) {
		gt_outfile_abort(&out);
		fprintf(stderr, "gputrace: out of memory writing the report\n");
		return GT_EINPUT;
	}
	if (!report && gt_table_write(t, c->format, out.fp, &err) < 0) {
		gt_outfile_abort(&out);
		return gt_report(&err);
	}
	if (gt_outfile_commit(&out, &err) < 0)
		return gt_report(&err);
	return 0;
}

void gt_cli_table_meta(gt_table *t, const char *source, const char *keys[2], const char *vals[2])
{
	keys[0] = "gputrace_version";
	vals[0] = gt_program_version;
	keys[1] = "source";
	vals[1] = source ? source : "";
	t->meta_keys = keys;
	t->meta_values = vals;
	t->nmeta = 2;
}

const char *gt_cli_model_string(const void *model, uint32_t id)
{
	return gt_model_str(model, id);
}
