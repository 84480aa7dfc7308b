/* The OpenCL helpers the Check test programs share (testutil.h). */
#include <stdlib.h>

#include "cl/cl.h"
#include "testutil.h"

int gt_test_device_count(void)
{
	gt_cl_device_info *infos;
	size_t n;
	gt_error err = {0};
	ck_assert_msg(gt_cl_list(&infos, &n, &err) == 0, "%s", err.msg);
	free(infos);
	return (int)n;
}
