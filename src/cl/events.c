/* A run's kernel launches and their events, kept for their device time,
 * and the kernels' arguments set (see cl.h). */
#include "cl.h"

#include <stdarg.h>
#include <stdlib.h>

int gt_cl_events_keep(gt_cl_events *e, cl_event ev, gt_error *err)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		cl_event *grown = gt_fault_hit("alloc") ? NULL : realloc(e->ev, cap * sizeof *grown);
		if (!grown) {
			clReleaseEvent(ev);
			return gt_fail(err, GT_EDEVICE, "out of memory for OpenCL events");
		}
		e->ev = grown;
		e->cap = cap;
	}
	e->ev[e->n++] = ev;
	return 0;
}

int gt_cl_launch(gt_cl *cl, cl_kernel k, const char *name, size_t global, size_t local, gt_cl_events *e,
		 gt_error *err)
{
	cl_event ev;
	cl_int rc = clEnqueueNDRangeKernel(gt_cl_queue(cl), k, 1, NULL, &global, &local, 0, NULL, &ev);
	if (rc == CL_SUCCESS && gt_fault_hit("cl")) {
		clReleaseEvent(ev);
		rc = CL_OUT_OF_RESOURCES;
	}
	if (rc != CL_SUCCESS && gt_cl_memory_error(rc) && err->status == 0)
		err->cause = GT_CAUSE_DEVICE_MEMORY;
	if (rc != CL_SUCCESS)
		return gt_fail(err, GT_EDEVICE, "clEnqueueNDRangeKernel (%s) failed: %s (%d) on '%s'", name,
			       gt_cl_error_name(rc), (int)rc, gt_cl_device_name(cl));
	return gt_cl_events_keep(e, ev, err);
}

uint64_t gt_cl_events_ns(const gt_cl_events *e)
{
	uint64_t ns = 0;
	for (size_t i = 0; i < e->n; i++)
		ns += gt_cl_event_ns(e->ev[i]);
	return ns;
}

void gt_cl_events_release(gt_cl_events *e)
{
	for (size_t i = 0; i < e->n; i++)
		clReleaseEvent(e->ev[i]);
	free(e->ev);
	*e = (gt_cl_events){0};
}

int gt_cl_set_args_va(gt_cl *cl, cl_kernel k, const char *name, int first, gt_error *err, int nargs, va_list ap)
{
	for (int i = 0; i < nargs; i++) {
		size_t size = va_arg(ap, size_t);
		const void *value = va_arg(ap, const void *);
		cl_int rc = clSetKernelArg(k, (cl_uint)(first + i), size, value);
		if (rc == CL_SUCCESS && gt_fault_hit("cl"))
			rc = CL_INVALID_ARG_VALUE;
		if (rc != CL_SUCCESS)
			return gt_fail(err, GT_EDEVICE, "clSetKernelArg (%s, %d) failed: %s (%d) on '%s'", name, first + i,
				       gt_cl_error_name(rc), (int)rc, gt_cl_device_name(cl));
	}
	return 0;
}

int gt_cl_set_args(gt_cl *cl, cl_kernel k, const char *name, int first, gt_error *err, int nargs, ...)
{
	va_list ap;
	va_start(ap, nargs);
	int rc = gt_cl_set_args_va(cl, k, name, first, err, nargs, ap);
	va_end(ap);
	return rc;
}
