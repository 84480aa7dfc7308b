#include "index_open.h"

#include <stdio.h>

#include "load.h"

int gt_cli_index_open(struct gt_cli_index *x, const struct gt_common *c, const char *path)
{
	gt_error err = {0};
	FILE *f = fopen(path, "rb");
	unsigned char head[8] = {0};
	size_t n = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	if (gt_gtx_is_index(head, n)) {
		if (gt_gtx_open(&x->g, path, &err) < 0)
			return gt_report(&err);
		x->from_file = true; /* gt_cli_index_close closes it, even if the model fails */
		if (gt_gtx_model(&x->g, &x->m, &err) < 0)
			return gt_report(&err);
		x->ix = &x->g.ix;
		return 0;
	}
	int rc = gt_cli_load(c, path, &x->m);
	if (rc)
		return rc;
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	if (gt_tindex_build(&x->own, &x->m, &p, &err) < 0)
		return gt_report(&err);
	x->ix = &x->own;
	return 0;
}

int gt_cli_index_open_many(struct gt_cli_index *x, const struct gt_common *c, char *const *operands, int n)
{
	gt_trace_list l;
	gt_error err = {0};
	if (gt_trace_list_expand(&l, operands, (size_t)n, &err) < 0)
		return gt_report(&err);
	bool job = l.job;
	gt_trace_list_free(&l);
	if (!job)
		return gt_cli_index_open(x, c, operands[0]);
	int rc = gt_cli_load_many(c, operands, n, &x->m);
	if (rc)
		return rc;
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	if (gt_tindex_build(&x->own, &x->m, &p, &err) < 0)
		return gt_report(&err);
	x->ix = &x->own;
	return 0;
}

void gt_cli_index_close(struct gt_cli_index *x)
{
	if (x->from_file)
		gt_gtx_close(&x->g);
	else
		gt_tindex_free(&x->own);
	gt_model_free(&x->m);
}
