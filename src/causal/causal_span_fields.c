/* The span fields the results read, copied so that a whole trace's span
 * table can be given back (causal_internal.h). */
#include "causal_internal.h"

void causal_span_fields_init(causal_trace *t, const gt_causal_options *opt)
{
	const gt_model *m = t->m;
	if (t->window_count == 1 && !opt->rows && m->span_count && gt_model_borrows(m, m->spans))
		t->fields = gt_big_malloc(m->span_count, sizeof *t->fields);
}

static int copy_range(void *ctx, uint64_t a, uint64_t b)
{
	const causal_trace *t = ctx;
	const gt_span *s = t->m->spans;
	for (uint64_t i = a; i < b; i++)
		t->fields[i] = (causal_span_fields){s[i].name, s[i].cat, s[i].track};
	return 0;
}

void causal_release_spans(const causal_trace *t, unsigned threads)
{
	if (!t->fields)
		return;
	gt_parallel_ranges(t->m->span_count, causal_range_min(), threads, copy_range, (void *)t);
	gt_model_release_spans(t->m);
}
