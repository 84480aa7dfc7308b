/* info's report (-f text, -f markdown): info_report.c. */
#ifndef GT_CLI_INFO_REPORT_H
#define GT_CLI_INFO_REPORT_H

#include <stdio.h>

#include "model/model.h"

/* -1 out of memory. */
int gt_info_report_write(FILE *out, const gt_model *m, int kind);

#endif
