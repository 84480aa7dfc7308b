/* Loading and freeing the span model. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "gtx.h"
#include "ingest.h"
#include "input.h"
#include "fault.h"

const char *const gt_warning_names[GT_WARN_COUNT] = {
	[GT_WARN_UNMATCHED_END] = "unmatched_end",
	[GT_WARN_UNCLOSED_BEGIN] = "unclosed_begin",
	[GT_WARN_IMPROPER_NESTING] = "improper_nesting",
	[GT_WARN_TRAILING_COMMA] = "trailing_comma",
	[GT_WARN_CONTROL_CHAR] = "control_character",
	[GT_WARN_UNMATCHED_ASYNC_END] = "unmatched_async_end",
	[GT_WARN_UNCLOSED_ASYNC] = "unclosed_async",
	[GT_WARN_UNBOUND_FLOW] = "unbound_flow",
	[GT_WARN_MISSING_TS] = "missing_ts",
	[GT_WARN_UNKNOWN_PHASE] = "missing_phase",
};

int gt_model_load(gt_model *out, const char *path, const gt_load_options *opt, gt_error *err)
{
	memset(out, 0, sizeof *out);
	gt_input *in;
	if (gt_input_open(&in, path, opt ? opt->max_expansion : 0, err) < 0)
		return -1;
	size_t n;
	const unsigned char *head = gt_input_head(in, &n);
	if (gt_gtx_is_index(head, n)) {
		gt_input_close(in);
		int rc = gt_gtx_load_model(out, path, err);
		if (rc == 0 && opt && opt->parent_mode != out->parent_mode) {
			gt_model_set_parent_mode(out, opt->parent_mode);
			if (out->parent_mode != opt->parent_mode) { /* out of memory */
				gt_model_free(out);
				rc = gt_fail(err, GT_EINPUT, "%s: out of memory linking flow parents", path);
			}
		}
		return rc;
	}
	int rc = gt_ingest(out, in, path, opt, err);
	gt_input_close(in);
	if (rc == 0) {
		out->source = gt_fault_hit("alloc") ? NULL : strdup(path);
		if (!out->source)
			rc = gt_fail(err, GT_EINPUT, "out of memory");
	}
	if (rc < 0)
		gt_model_free(out);
	return rc;
}

void gt_model_free(gt_model *m)
{
	if (!m)
		return;
	free(m->spans);
	free(m->tracks);
	free(m->processes);
	free(m->flows);
	free(m->series);
	free(m->samples);
	gt_strpool_free(&m->strings);
	free(m->metadata_json);
	free(m->source);
	memset(m, 0, sizeof *m);
}

size_t gt_model_bytes(const gt_model *m)
{
	return (size_t)m->span_count * sizeof *m->spans + (size_t)m->track_count * sizeof *m->tracks +
	       (size_t)m->process_count * sizeof *m->processes +
	       (size_t)m->flow_count * sizeof *m->flows +
	       (size_t)m->series_count * sizeof *m->series +
	       (size_t)m->sample_count * sizeof *m->samples + gt_strpool_bytes(&m->strings);
}
