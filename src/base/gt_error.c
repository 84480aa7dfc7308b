#include "gt_error.h"

#include <stdio.h>

int gt_vfail(gt_error *err, int status, const char *fmt, va_list ap)
{
	if (err && err->status == 0) {
		err->status = status ? status : GT_EINPUT;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	}
	return -1;
}

int gt_fail(gt_error *err, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_vfail(err, status, fmt, ap);
	va_end(ap);
	return -1;
}
