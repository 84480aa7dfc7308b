/* Which OpenCL devices a benchmark's --device SPEC names: an index from
 * gt_cl_list, or a substring of the device's or the platform's name
 * (any case). A SPEC that names none is an error, not an empty run. */
#ifndef GT_BENCH_DEVICES_H
#define GT_BENCH_DEVICES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cl/cl.h"

static inline bool bench_device_wanted(const gt_cl_device_info *infos, size_t d, const char *only)
{
	char spec[32];
	snprintf(spec, sizeof spec, "%zu", d);
	return !only || strcmp(only, spec) == 0 || strcasestr(infos[d].name, only) ||
	       strcasestr(infos[d].platform, only);
}

/* 0 where only is NULL or names a device; else a message on stderr
 * (prefixed with the benchmark's name) and -1. */
static inline int bench_devices_check(const char *bench, const gt_cl_device_info *infos, size_t ndev,
				      const char *only)
{
	for (size_t d = 0; d < ndev; d++)
		if (bench_device_wanted(infos, d, only))
			return 0;
	if (!only)
		return 0;
	fprintf(stderr, "%s: no OpenCL device matches '%s' (%zu listed)\n", bench, only, ndev);
	return -1;
}

#endif
