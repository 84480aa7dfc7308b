/* The device classes of spans (device_class.h). */
#include <string.h>
#include <strings.h>

#include "device_class.h"

enum gt_device_class gt_device_category_class(const char *cat)
{
	if (!strcasecmp(cat, "kernel"))
		return GT_DEVICE_COMPUTE;
	if (!strcasecmp(cat, "gpu_memcpy") || !strcasecmp(cat, "memcpy"))
		return GT_DEVICE_MEMCPY;
	if (!strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "memset"))
		return GT_DEVICE_MEMSET;
	return GT_DEVICE_NONE;
}

bool gt_device_category(const char *cat)
{
	return gt_device_category_class(cat) != GT_DEVICE_NONE;
}

bool gt_communication_name(const char *name)
{
	return strcasestr(name, "nccl") || strcasestr(name, "rccl") || strcasestr(name, "hccl");
}
