#include "load.h"

#include <string.h>

int gt_cli_load(const struct gt_common *c, const char *path, gt_model *m)
{
	gt_load_options opt;
	memset(&opt, 0, sizeof opt);
	opt.parent_mode = (uint8_t)c->parent_mode;
	opt.threads = c->threads;
	opt.max_expansion = c->max_expansion;
	gt_error err = {0};
	if (gt_model_load(m, path, &opt, &err) < 0)
		return gt_report(&err);
	return 0;
}
