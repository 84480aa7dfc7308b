/* What a span is on the GPU, read from its strings the same way by every
 * analysis (the causal path, collectives, stats): a device span is one whose
 * category is a device category; it is communication when its name names a
 * collective library, else its category says compute, memcpy or memset. */
#ifndef GT_DEVICE_CLASS_H
#define GT_DEVICE_CLASS_H

#include <stdbool.h>

enum gt_device_class {
	GT_DEVICE_NONE = 0, /* not a device category */
	GT_DEVICE_COMPUTE,
	GT_DEVICE_COMMUNICATION,
	GT_DEVICE_MEMCPY,
	GT_DEVICE_MEMSET,
};

/* kernel, gpu_memcpy, gpu_memset, memcpy or memset, in any case. */
bool gt_device_category(const char *cat);

/* By the category alone: compute (a kernel), memcpy, memset, or none. */
enum gt_device_class gt_device_category_class(const char *cat);

/* nccl, rccl or hccl anywhere in the name, in any case. */
bool gt_communication_name(const char *name);

#endif
