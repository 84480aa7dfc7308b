/* What moving columns to and from a device costs, and a launch's floor:
 * the numbers that decide whether a device can beat the host end to end.
 *
 *   bench_transfer [--device SPEC] [--runs N] MB...
 *
 * For each size: host-to-device and device-to-host copies from ordinary
 * (pageable) memory, already touched and freshly allocated; the cost of
 * getting pinned host memory (a CL_MEM_ALLOC_HOST_PTR buffer, mapped);
 * copies from and to that memory; memory the caller has, lent to the
 * device (CL_MEM_USE_HOST_PTR) and copied from. Then an empty kernel: its profiled time
 * and the wall time of launch + finish. One JSON line per measurement,
 * medians of --runs runs; wall times from the host clock, device times
 * from profiling events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cl/cl.h"

#define MAX_RUNS 64

static gt_cl *cl;

static double event_s(cl_event ev)
{
	double s = (double)gt_cl_event_ns(ev) * 1e-9;
	clReleaseEvent(ev);
	return s;
}

static cl_mem buffer(size_t bytes, cl_mem_flags flags, void *host)
{
	cl_int e;
	cl_mem b = clCreateBuffer(gt_cl_context(cl), flags, bytes, host, &e);
	if (e != CL_SUCCESS) {
		fprintf(stderr, "bench_transfer: clCreateBuffer of %zu bytes: %d\n", bytes, e);
		exit(1);
	}
	return b;
}

static void check(cl_int e, const char *what)
{
	if (e != CL_SUCCESS) {
		fprintf(stderr, "bench_transfer: %s: %d\n", what, e);
		exit(1);
	}
}

static void report(const char *what, size_t bytes, double *wall, double *dev, int runs)
{
	double w = median(wall, runs), d = dev ? median(dev, runs) : 0;
	printf("{\"bench\":\"transfer\",\"device\":\"%s\",\"what\":\"%s\",\"mb\":%zu,\"runs\":%d,"
	       "\"wall_ms\":%.3f,\"wall_gb_s\":%.2f",
	       gt_cl_device_name(cl), what, bytes >> 20, runs, w * 1e3, bytes ? (double)bytes / w / 1e9 : 0);
	if (dev)
		printf(",\"device_ms\":%.3f,\"device_gb_s\":%.2f", d * 1e3, (double)bytes / d / 1e9);
	printf("}\n");
	fflush(stdout);
}

/* Memory the caller already has (an index's mapping, touched) lent to the
 * device as a buffer (CL_MEM_USE_HOST_PTR), then copied on the device:
 * whether a driver pins it, and at what cost, tells whether a table can
 * go up faster than a pageable write. */
static void host_pointer(cl_command_queue q, cl_mem dev, size_t bytes, int runs)
{
	double lend[MAX_RUNS], wall[MAX_RUNS], dt[MAX_RUNS];
	char *host = NULL;
	if (posix_memalign((void **)&host, 4096, bytes) != 0)
		exit(1);
	memset(host, 3, bytes);
	for (int r = 0; r < runs; r++) {
		cl_event ev;
		double t = now_s();
		cl_mem lent = buffer(bytes, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, host);
		lend[r] = now_s() - t;
		t = now_s();
		check(clEnqueueCopyBuffer(q, lent, dev, 0, 0, bytes, 0, NULL, &ev), "copy from a lent pointer");
		clFinish(q);
		wall[r] = now_s() - t, dt[r] = event_s(ev);
		clReleaseMemObject(lent);
	}
	report("host pointer: lend (CL_MEM_USE_HOST_PTR)", bytes, lend, NULL, runs);
	report("h2d from a lent host pointer (copy)", bytes, wall, dt, runs);
	free(host);
}

static void copies(size_t bytes, int runs)
{
	cl_command_queue q = gt_cl_queue(cl);
	cl_mem dev = buffer(bytes, CL_MEM_READ_WRITE, NULL);
	double wall[MAX_RUNS], dt[MAX_RUNS];
	cl_event ev;
	char *touched = malloc(bytes);
	if (!touched)
		exit(1);
	memset(touched, 1, bytes);
	for (int r = 0; r < runs; r++) {
		double t = now_s();
		check(clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, touched, 0, NULL, &ev), "write");
		wall[r] = now_s() - t, dt[r] = event_s(ev);
	}
	report("h2d pageable", bytes, wall, dt, runs);
	for (int r = 0; r < runs; r++) {
		double t = now_s();
		check(clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, touched, 0, NULL, &ev), "read");
		wall[r] = now_s() - t, dt[r] = event_s(ev);
	}
	report("d2h pageable, touched", bytes, wall, dt, runs);
	for (int r = 0; r < runs; r++) { /* as a command's fresh output arrays are */
		char *fresh = malloc(bytes);
		if (!fresh)
			exit(1);
		double t = now_s();
		check(clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, fresh, 0, NULL, &ev), "read");
		wall[r] = now_s() - t, dt[r] = event_s(ev);
		free(fresh);
	}
	report("d2h pageable, fresh", bytes, wall, dt, runs);
	free(touched);

	double get[MAX_RUNS], rwall[MAX_RUNS], rdev[MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		double t = now_s();
		cl_mem pin = buffer(bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, NULL);
		cl_int e;
		char *p = clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &e);
		check(e, "map");
		memset(p, 2, bytes); /* what filling it (a prepare stage) would touch */
		get[r] = now_s() - t;
		t = now_s();
		check(clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, p, 0, NULL, &ev), "write pinned");
		wall[r] = now_s() - t, dt[r] = event_s(ev);
		t = now_s();
		check(clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, p, 0, NULL, &ev), "read pinned");
		rwall[r] = now_s() - t, rdev[r] = event_s(ev);
		check(clEnqueueUnmapMemObject(q, pin, p, 0, NULL, NULL), "unmap");
		clFinish(q);
		clReleaseMemObject(pin);
	}
	report("pinned: allocate, map and fill", bytes, get, NULL, runs);
	report("h2d pinned", bytes, wall, dt, runs);
	report("d2h pinned", bytes, rwall, rdev, runs);
	host_pointer(q, dev, bytes, runs);
	clReleaseMemObject(dev);
}

static void empty_kernel(int runs)
{
	static const char *src = "__kernel void nothing(__global int *x) { if (x[0] == 12345) x[1] = 1; }";
	cl_int e;
	cl_program prog = clCreateProgramWithSource(gt_cl_context(cl), 1, &src, NULL, &e);
	check(e, "program");
	cl_device_id d = gt_cl_device(cl);
	check(clBuildProgram(prog, 1, &d, NULL, NULL, NULL), "build");
	cl_kernel k = clCreateKernel(prog, "nothing", &e);
	check(e, "kernel");
	cl_mem x = buffer(64, CL_MEM_READ_WRITE, NULL);
	check(clSetKernelArg(k, 0, sizeof x, &x), "arg");
	double wall[MAX_RUNS], dt[MAX_RUNS];
	size_t global = 256, local = 256;
	for (int r = -1; r < runs; r++) {
		cl_event ev;
		double t = now_s();
		check(clEnqueueNDRangeKernel(gt_cl_queue(cl), k, 1, NULL, &global, &local, 0, NULL, &ev), "launch");
		clFinish(gt_cl_queue(cl));
		double w = now_s() - t, s = event_s(ev);
		if (r >= 0)
			wall[r] = w, dt[r] = s;
	}
	double w = median(wall, runs), s = median(dt, runs);
	printf("{\"bench\":\"launch\",\"device\":\"%s\",\"what\":\"empty kernel, one group\",\"runs\":%d,"
	       "\"device_us\":%.2f,\"wall_us\":%.2f}\n",
	       gt_cl_device_name(cl), runs, s * 1e6, w * 1e6);
	clReleaseMemObject(x);
	clReleaseKernel(k);
	clReleaseProgram(prog);
}

int main(int argc, char **argv)
{
	const char *spec = NULL;
	int runs = 5, first = 1;
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strcmp(argv[first], "--device") == 0 && first + 1 < argc)
			spec = argv[++first];
		else if (strcmp(argv[first], "--runs") == 0 && first + 1 < argc)
			runs = atoi(argv[++first]);
		else
			break;
	}
	if (first >= argc || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: bench_transfer [--device SPEC] [--runs N (1-64)] MB...\n");
		return 2;
	}
	gt_error err = {0};
	if (gt_cl_open(&cl, spec ? spec : "0", NULL, 0, &err) < 0 || !cl) {
		fprintf(stderr, "bench_transfer: %s\n", cl ? err.msg : "no OpenCL device");
		return 1;
	}
	for (int i = first; i < argc; i++)
		copies((size_t)strtoull(argv[i], NULL, 10) << 20, runs);
	empty_kernel(MAX_RUNS);
	gt_cl_close(cl);
	return 0;
}
