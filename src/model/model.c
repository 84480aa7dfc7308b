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
	[GT_WARN_INVALID_TS] = "invalid_ts",
	[GT_WARN_INVALID_DUR] = "invalid_dur",
	[GT_WARN_NEGATIVE_DUR] = "negative_dur",
	[GT_WARN_INVALID_ID] = "invalid_id",
	[GT_WARN_INVALID_FIELD] = "invalid_field",
	[GT_WARN_INVALID_ARGS] = "invalid_args",
	[GT_WARN_LONG_PHASE] = "unknown_phase",
	[GT_WARN_NONSTANDARD_NUMBER] = "nonstandard_number",
	[GT_WARN_INVALID_UTF8] = "invalid_utf8",
	[GT_WARN_TRUNCATED_INPUT] = "truncated_input",
	[GT_WARN_UNFINISHED_COMPLETE] = "unfinished_complete",
	[GT_WARN_MISMATCHED_END_NAME] = "mismatched_end_name",
};

bool gt_warning_skips_event(int kind)
{
	switch (kind) {
	case GT_WARN_MISSING_TS:
	case GT_WARN_INVALID_TS:
	case GT_WARN_INVALID_DUR:
	case GT_WARN_NEGATIVE_DUR:
	case GT_WARN_INVALID_ID:
	case GT_WARN_INVALID_FIELD:
	case GT_WARN_INVALID_ARGS:
		return true;
	default:
		return false;
	}
}

uint64_t gt_model_skipped_events(const gt_model *m)
{
	uint64_t n = 0;
	for (int k = 0; k < GT_WARN_COUNT; k++)
		if (gt_warning_skips_event(k))
			n += m->stats.warnings[k];
	return n;
}

void gt_model_warn(gt_model *m, int kind, uint64_t offset, uint64_t event, const char *text, size_t len)
{
	m->stats.warnings[kind]++;
	gt_model_example(m, kind, offset, event, text, len);
}

void gt_model_example(gt_model *m, int kind, uint64_t offset, uint64_t event, const char *text, size_t len)
{
	unsigned n = m->warning_example_count[kind];
	if (n >= GT_WARN_EXAMPLES)
		return;
	m->warning_example_count[kind] = (uint8_t)(n + 1);
	gt_warning_example *ex = &m->warning_examples[kind][n];
	ex->offset = offset;
	ex->event = event;
	if (len > GT_WARN_EXCERPT)
		len = GT_WARN_EXCERPT;
	size_t i = 0;
	for (; text && i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		ex->excerpt[i] = c >= 0x20 && c < 0x7f ? (char)c : c == '\n' || c == '\t' ? ' ' : '?';
	}
	ex->excerpt[i] = '\0';
}

void gt_model_free(gt_model *m)
{
	if (!m)
		return;
	if (!gt_model_borrows(m, m->spans))
		gt_free_large(m->spans, (size_t)m->span_count * sizeof *m->spans);
	free(m->tracks);
	free(m->processes);
	if (!gt_model_borrows(m, m->flows))
		gt_free_large(m->flows, (size_t)m->flow_count * sizeof *m->flows);
	if (!gt_model_borrows(m, m->series))
		free(m->series);
	if (!gt_model_borrows(m, m->syncs))
		free(m->syncs);
	if (m->map)
		gt_unmap(m->map, m->map_len);
	free(m->samples);
	gt_strpool_free(&m->strings);
	free(m->metadata_json);
	free(m->source);
	for (uint32_t i = 0; i < m->rank_count; i++) {
		free(m->ranks[i].source);
		free(m->ranks[i].examples);
	}
	free(m->ranks);
	memset(m, 0, sizeof *m);
	m->rank = m->world_size = -1;
}

bool gt_model_borrows(const gt_model *m, const void *p)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)m->map;
	return m->map && a >= base && a - base < m->map_len;
}

/* An owned copy of a borrowed array of n bytes (p itself when owned). */
static void *own(const gt_model *m, void *p, size_t n)
{
	if (!gt_model_borrows(m, p))
		return p;
	void *q = gt_big_malloc(n ? n : 1, 1); /* may go to free() */
	if (q)
		memcpy(q, p, n);
	return q;
}

int gt_model_own(gt_model *m)
{
	if (!m->map)
		return 0;
	gt_span *spans = own(m, m->spans, (size_t)m->span_count * sizeof *m->spans);
	gt_flow *flows = own(m, m->flows, (size_t)m->flow_count * sizeof *m->flows);
	gt_counter_series *series = own(m, m->series, (size_t)m->series_count * sizeof *m->series);
	gt_sync *syncs = own(m, m->syncs, (size_t)m->sync_count * sizeof *m->syncs);
	if (!spans || !flows || !series || !syncs) {
		if (syncs != m->syncs)
			free(syncs);
		if (spans != m->spans)
			free(spans);
		if (flows != m->flows)
			free(flows);
		if (series != m->series)
			free(series);
		return -1;
	}
	m->spans = spans, m->flows = flows, m->series = series, m->syncs = syncs;
	gt_unmap(m->map, m->map_len);
	m->map = NULL, m->map_len = 0;
	return 0;
}

void gt_model_release_spans(const gt_model *m)
{
	if (gt_model_borrows(m, m->spans))
		gt_drop_pages(m->spans, (size_t)m->span_count * sizeof *m->spans);
}

void gt_model_release_flows(const gt_model *m)
{
	if (gt_model_borrows(m, m->flows))
		gt_drop_pages(m->flows, (size_t)m->flow_count * sizeof *m->flows);
}

size_t gt_model_bytes(const gt_model *m)
{
	return (size_t)m->span_count * sizeof *m->spans + (size_t)m->track_count * sizeof *m->tracks +
	       (size_t)m->process_count * sizeof *m->processes +
	       (size_t)m->flow_count * sizeof *m->flows +
	       (size_t)m->series_count * sizeof *m->series + (size_t)m->sync_count * sizeof *m->syncs +
	       (size_t)m->sample_count * sizeof *m->samples + gt_strpool_bytes(&m->strings) +
	       (size_t)m->rank_count * sizeof *m->ranks;
}
