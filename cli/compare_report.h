/* compare's human reports: -f text (aligned, for a CI log) and -f markdown
 * (tables for a pull-request comment). */
#ifndef GT_COMPARE_REPORT_H
#define GT_COMPARE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare/compare.h"
#include "report.h"

struct gt_compare_report {
	const gt_compare *c;
	const char *base, *new_; /* sources */
	const char *by, *model;
	const char *step;        /* --step GLOB or NULL */
	size_t top;              /* keys listed, in c's order */
	int order;               /* enum gt_cmp_sort, to name it */
	const gt_cond_expr *conds;
	size_t ncond;
	const bool *held;
	const char *const *const *term_keys; /* per condition, per term: the key it was judged on */
};

void gt_compare_report_write(FILE *out, const struct gt_compare_report *r, int kind);

#endif
