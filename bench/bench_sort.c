/* The device's radix sort (cl/cl.h) against the host's, on keys
 * shaped as a device-resident causal build sorts them: what it would cost
 * to order a trace's spans or points on the device instead of the host.
 *
 *   bench_sort [--device SPEC] [--runs N] [--threads T] MILLIONS...
 *
 * For each size and key shape: the host's gt_radix_sort_u64_jobs on T
 * threads (default: one per core), and on the device the sort's kernels
 * (device time, profiling events), the sort's wall (enqueue to finish),
 * and the wall with the pairs uploaded and read back (from pageable
 * memory). One JSON line each, medians of --runs runs; every device
 * result is compared with the host's (a difference exits 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/radix_sort.h"
#include "bench_util.h"
#include "cl/cl.h"

#define MAX_RUNS 64

enum { SHAPES = 3 };
static const char *const shape_names[SHAPES] = {"times (40 bits)", "track << 44 | time", "every bit"};

static uint64_t key_of(int shape, uint64_t *rng, uint32_t i)
{
	uint64_t x = gt_splitmix64(rng), t = x & ((1ull << 40) - 1);
	if (shape == 0)
		return t;
	if (shape == 1)
		return (uint64_t)(i % 97) << 44 | t;
	return x;
}

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "bench_sort: out of memory\n");
		exit(1);
	}
	return p;
}

static void fail_cl(gt_cl *cl, cl_int e, const char *what)
{
	if (e != CL_SUCCESS) {
		fprintf(stderr, "bench_sort: %s on %s: %s\n", what, gt_cl_device_name(cl), gt_cl_error_name(e));
		exit(1);
	}
}

static void bench(gt_cl *cl, uint32_t n, int shape, int runs, unsigned threads)
{
	uint64_t *key = must(malloc(8ull * n)), *k = must(malloc(8ull * n)), *tk = must(malloc(8ull * n));
	uint32_t *val = must(malloc(4ull * n)), *v = must(malloc(4ull * n)), *tv = must(malloc(4ull * n));
	uint64_t rng = 1 + (uint64_t)shape;
	for (uint32_t i = 0; i < n; i++)
		key[i] = key_of(shape, &rng, i), val[i] = i;
	double host[MAX_RUNS], kern[MAX_RUNS], sort_wall[MAX_RUNS], e2e[MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		memcpy(k, key, 8ull * n), memcpy(v, val, 4ull * n);
		double t = now_s();
		gt_radix_sort_u64_jobs(k, v, n, tk, tv, threads);
		host[r] = now_s() - t;
	}
	cl_command_queue q = gt_cl_queue(cl);
	cl_int e;
	cl_mem bk = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, 8ull * n, NULL, &e);
	fail_cl(cl, e, "clCreateBuffer");
	cl_mem bv = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, 4ull * n, NULL, &e);
	fail_cl(cl, e, "clCreateBuffer");
	for (int r = -1; r < runs; r++) { /* run -1: the program's first build */
		double t0 = now_s();
		fail_cl(cl, clEnqueueWriteBuffer(q, bk, CL_TRUE, 0, 8ull * n, key, 0, NULL, NULL), "write");
		fail_cl(cl, clEnqueueWriteBuffer(q, bv, CL_TRUE, 0, 4ull * n, val, 0, NULL, NULL), "write");
		double t1 = now_s();
		gt_cl_events ev = {0};
		gt_error err = {0};
		if (gt_cl_sort_u64(cl, bk, bv, n, &ev, &err) < 0) {
			fprintf(stderr, "bench_sort: %s\n", err.msg);
			exit(1);
		}
		clFinish(q);
		double t2 = now_s();
		fail_cl(cl, clEnqueueReadBuffer(q, bk, CL_TRUE, 0, 8ull * n, tk, 0, NULL, NULL), "read");
		fail_cl(cl, clEnqueueReadBuffer(q, bv, CL_TRUE, 0, 4ull * n, tv, 0, NULL, NULL), "read");
		double t3 = now_s();
		if (r >= 0)
			kern[r] = (double)gt_cl_events_ns(&ev) * 1e-9, sort_wall[r] = t2 - t1, e2e[r] = t3 - t0;
		gt_cl_events_release(&ev);
		if (memcmp(tk, k, 8ull * n) || memcmp(tv, v, 4ull * n)) {
			fprintf(stderr, "bench_sort: %s differs from the host's at %u pairs (%s)\n",
				gt_cl_device_name(cl), n, shape_names[shape]);
			exit(1);
		}
	}
	printf("{\"bench\":\"sort\",\"device\":\"%s\",\"keys\":\"%s\",\"n\":%u,\"runs\":%d,\"host_threads\":%u,"
	       "\"host_ms\":%.3f,\"device_kernels_ms\":%.3f,\"device_sort_wall_ms\":%.3f,"
	       "\"device_with_copies_ms\":%.3f}\n",
	       gt_cl_device_name(cl), shape_names[shape], n, runs, threads, median(host, runs) * 1e3,
	       median(kern, runs) * 1e3, median(sort_wall, runs) * 1e3, median(e2e, runs) * 1e3);
	fflush(stdout);
	clReleaseMemObject(bk), clReleaseMemObject(bv);
	free(key), free(k), free(tk), free(val), free(v), free(tv);
}

int main(int argc, char **argv)
{
	const char *spec = NULL;
	int runs = 5, first = 1;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads = cores > 0 ? (unsigned)cores : 1;
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strcmp(argv[first], "--device") == 0 && first + 1 < argc)
			spec = argv[++first];
		else if (strcmp(argv[first], "--runs") == 0 && first + 1 < argc)
			runs = atoi(argv[++first]);
		else if (strcmp(argv[first], "--threads") == 0 && first + 1 < argc)
			threads = (unsigned)atoi(argv[++first]);
		else
			break;
	}
	if (first >= argc || runs < 1 || runs > MAX_RUNS || threads < 1) {
		fprintf(stderr, "usage: bench_sort [--device SPEC] [--runs N (1-64)] [--threads T] MILLIONS...\n");
		return 2;
	}
	gt_cl *cl = NULL;
	gt_error err = {0};
	if (gt_cl_open(&cl, spec ? spec : "0", NULL, 0, &err) < 0 || !cl) {
		fprintf(stderr, "bench_sort: %s\n", cl ? err.msg : err.msg[0] ? err.msg : "no OpenCL device");
		return 1;
	}
	for (int i = first; i < argc; i++) {
		double millions = strtod(argv[i], NULL);
		if (!(millions >= 1e-6 && millions <= 4294.0)) {
			fprintf(stderr, "bench_sort: '%s' millions: from 0.000001 to 4294\n", argv[i]);
			return 2;
		}
		uint32_t n = (uint32_t)(millions * 1e6);
		for (int shape = 0; shape < SHAPES; shape++)
			bench(cl, n, shape, runs, threads);
	}
	gt_cl_close(cl);
	return 0;
}
