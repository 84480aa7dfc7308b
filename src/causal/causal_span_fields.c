/* The span fields the results read, copied so that a whole trace's span
 * table can be given back (causal_internal.h). */
#include "causal_internal.h"

void causal_span_fields_init(causal_trace *t, const gt_causal_options *opt)
{
	const gt_model *m = t->m;
	if (t->window_count == 1 && !opt->rows && m->span_count && gt_model_borrows(m, m->spans))
		t->fields = gt_big_malloc(m->span_count, sizeof *t->fields);
}

void causal_release_span_range(const causal_trace *t, uint32_t lo, uint32_t hi)
{
	const gt_span *s = t->m->spans;
	for (uint32_t i = lo; i < hi; i++)
		t->fields[i] = (causal_span_fields){s[i].name, s[i].cat, s[i].track};
	gt_drop_pages(s + lo, (size_t)(hi - lo) * sizeof *s);
}

void causal_release_spans(const causal_trace *t)
{
	if (t->fields)
		gt_model_release_spans(t->m);
}
