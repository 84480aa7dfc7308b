/* The top-level distributedInfo object of a Kineto trace: which rank of a
 * distributed job the file is. */
#ifndef GT_DISTRIBUTED_INFO_H
#define GT_DISTRIBUTED_INFO_H

#include <stddef.h>

#include "model/model.h"

/* Sets m->rank and m->world_size from the JSON value text v[0..len)
 * (`rank`, and `world_size` or `worldSize`, non-negative integers). A value
 * that is not such an object, or a field that is not such a number, leaves
 * them -1: the file is then a rank by its position. */
void gt_parse_distributed_info(gt_model *m, const char *v, size_t len);

#endif
