/* PLACEHOLDER from branch compare, so that programs using the host critical
 * path link before branch opencl lands its OpenCL implementation under this
 * same path. When merging, take opencl's version of this file. Until then
 * the device path fails clearly instead of computing anything. */
#include "critpath.h"

int gt_critpath_cl(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
		   const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum, gt_cp_stats *stats, gt_error *err)
{
	(void)cl, (void)parent, (void)duration, (void)n, (void)opt, (void)out, (void)sum, (void)stats;
	return gt_fail(err, GT_EDEVICE, "the OpenCL critical path is not built in yet (use --device host)");
}
