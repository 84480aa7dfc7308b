/* Freeing the span model, its size, and the names of its warnings. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

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
	for (uint32_t i = 0; i < m->rank_count; i++)
		free(m->ranks[i].source);
	free(m->ranks);
	memset(m, 0, sizeof *m);
	m->rank = m->world_size = -1;
}

size_t gt_model_bytes(const gt_model *m)
{
	return (size_t)m->span_count * sizeof *m->spans + (size_t)m->track_count * sizeof *m->tracks +
	       (size_t)m->process_count * sizeof *m->processes +
	       (size_t)m->flow_count * sizeof *m->flows +
	       (size_t)m->series_count * sizeof *m->series +
	       (size_t)m->sample_count * sizeof *m->samples + gt_strpool_bytes(&m->strings) +
	       (size_t)m->rank_count * sizeof *m->ranks;
}
