#include "index_open.h"

#include <stdio.h>

#include "load.h"

/* Maps path when it is an index file, whose own temporal index is used:
 * -1 when it is not one, else 0 (x holds it) or the exit status. */
static int map_index_file(struct gt_cli_index *x, const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char head[8] = {0};
	size_t n = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	if (!gt_gtx_is_index(head, n))
		return -1;
	gt_error err = {0};
	if (gt_gtx_open(&x->g, path, &err) < 0)
		return gt_report(&err);
	x->from_file = true; /* gt_cli_index_close closes it, even if the model fails */
	if (gt_gtx_model(&x->g, &x->m, &err) < 0)
		return gt_report(&err);
	x->ix = &x->g.ix;
	return 0;
}

int gt_cli_index_open_many(struct gt_cli_index *x, const struct gt_common *c, char *const *operands, int n)
{
	/* a directory reads as no index file: it is a job */
	int rc = n == 1 ? map_index_file(x, operands[0]) : -1;
	if (rc >= 0)
		return rc;
	rc = gt_cli_load_many(c, operands, n, &x->m);
	if (rc)
		return rc;
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	gt_error err = {0};
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
