/* Benchmark of the critical path: random forests of N rows on the host
 * reference and on every OpenCL device. One JSON line per measurement:
 * wall time, device time (the sum of the kernel events), rows per second,
 * and the passes' effective bandwidth against the copy bandwidth
 * (clEnqueueCopyBuffer, read + write) measured in the same run.
 *
 *   bench_critpath [--runs R] [--shape random|deep|chain] [--no-host] [--no-devices]
 *                  [--verify] [--items-per-unit K] [--device INDEX|NAME] N...
 *
 * --items-per-unit sets how many work-items per compute unit the passes
 * launch (gt_cp_options.items_per_unit; default 2048).
 *
 * On the host: the reference (device "host"), the fast host path (device
 * "host-fast", one thread per core) and, as its floor, a pure gather with the
 * same access pattern on as many threads (each row reads its parent's
 * 16-byte record and writes its own), all in the same run: "vs_gather" is
 * fast / gather, "speedup" reference / fast.
 *
 * --verify compares every output of each device with the host reference
 * (bit for bit) before timing, and fails with status 1 on a difference.
 * random: each row's parent is a uniformly chosen earlier row (1% roots),
 * so depth grows like ln N; deep: chains of 1000 rows; chain: one chain. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl/cl.h"
#include "forest/forest.h"
#include "bench_devices.h"
#include "bench_util.h"

static uint64_t rng = 42;
static uint64_t rnd(void)
{
	return gt_splitmix64(&rng);
}

static void make_forest(uint32_t n, const char *shape, uint32_t *parent, int64_t *dur)
{
	for (uint32_t i = 0; i < n; i++) {
		if (strcmp(shape, "chain") == 0)
			parent[i] = i ? i - 1 : GT_CP_ROOT;
		else if (strcmp(shape, "deep") == 0)
			parent[i] = i % 1000 ? i - 1 : GT_CP_ROOT;
		else
			parent[i] = i == 0 || rnd() % 100 == 0 ? GT_CP_ROOT : (uint32_t)(rnd() % i);
		dur[i] = (int64_t)(rnd() % 1000000);
	}
}

/* Copy bandwidth in GB/s (bytes read + written), median of 3 copies. */
static double copy_bandwidth(gt_cl *cl, gt_error *err)
{
	uint64_t size = gt_cl_max_alloc(cl);
	if (size > gt_cl_global_mem(cl) / 8)
		size = gt_cl_global_mem(cl) / 8;
	if (size > (1ull << 30))
		size = 1ull << 30;
	size &= ~(uint64_t)4095;
	cl_int rc;
	cl_mem a = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, size, NULL, &rc);
	if (gt_cl_check(cl, rc, "clCreateBuffer", err) < 0)
		return -1;
	cl_mem b = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, size, NULL, &rc);
	if (gt_cl_check(cl, rc, "clCreateBuffer", err) < 0) {
		clReleaseMemObject(a);
		return -1;
	}
	double gbps[4];
	/* contents do not matter for a copy's speed, so the buffers are not
	 * filled (a one-byte fill pattern was very slow on one driver) */
	rc = CL_SUCCESS;
	for (int i = 0; i < 4 && rc == CL_SUCCESS; i++) {
		cl_event ev;
		rc = clEnqueueCopyBuffer(gt_cl_queue(cl), a, b, 0, 0, size, 0, NULL, &ev);
		if (rc == CL_SUCCESS)
			rc = clWaitForEvents(1, &ev);
		if (rc == CL_SUCCESS) {
			gbps[i] = 2.0 * (double)size / (double)gt_cl_event_ns(ev);
			clReleaseEvent(ev);
		}
	}
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	if (gt_cl_check(cl, rc, "clEnqueueCopyBuffer", err) < 0)
		return -1;
	return median(gbps + 1, 3); /* the first copy warms up */
}

/* The memory pattern of one pointer-jumping pass with nothing else: read
 * the own 16-byte record, gather the one its link names, write the sum.
 * What this reaches is the ceiling for a pass over the same links. */
static const char gather_source[] =
	"__kernel void gather(uint n, __global const uint4 *src, __global uint4 *dst)\n"
	"{\n"
	"	uint i = get_global_id(0);\n"
	"	if (i >= n)\n"
	"		return;\n"
	"	uint4 s = src[i];\n"
	"	uint4 a = src[s.z];\n"
	"	dst[i] = (uint4)(s.x + a.x, s.y + a.y, a.z, s.w + a.w);\n"
	"}\n";

/* GB/s of a gather kernel over links[] (48 bytes per row), median of 3. */
static double gather_bandwidth(gt_cl *cl, const uint32_t *links, uint32_t n, gt_error *err)
{
	cl_int rc;
	const char *src = gather_source;
	cl_program prog = clCreateProgramWithSource(gt_cl_context(cl), 1, &src, NULL, &rc);
	if (gt_cl_check(cl, rc, "clCreateProgramWithSource", err) < 0)
		return -1;
	cl_device_id dev = gt_cl_device(cl);
	cl_kernel k = NULL;
	cl_mem a = NULL, b = NULL;
	double gbps[4] = {-1, -1, -1, -1};
	uint32_t *rec = malloc((size_t)n * 16);
	rc = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
	if (gt_cl_check(cl, rc, "clBuildProgram", err) < 0 || !rec)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		rec[4 * i] = i;
		rec[4 * i + 1] = 0;
		rec[4 * i + 2] = links[i] < n ? links[i] : i;
		rec[4 * i + 3] = 1;
	}
	k = clCreateKernel(prog, "gather", &rc);
	if (gt_cl_check(cl, rc, "clCreateKernel", err) < 0)
		goto out;
	a = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)n * 16, rec, &rc);
	if (gt_cl_check(cl, rc, "clCreateBuffer", err) < 0)
		goto out;
	b = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, (size_t)n * 16, NULL, &rc);
	if (gt_cl_check(cl, rc, "clCreateBuffer", err) < 0)
		goto out;
	cl_uint un = n;
	rc = clSetKernelArg(k, 0, sizeof un, &un) | clSetKernelArg(k, 1, sizeof a, &a) | clSetKernelArg(k, 2, sizeof b, &b);
	if (gt_cl_check(cl, rc, "clSetKernelArg", err) < 0)
		goto out;
	size_t local = 256, global = ((size_t)n + local - 1) / local * local;
	for (int i = 0; i < 4; i++) {
		cl_event ev;
		rc = clEnqueueNDRangeKernel(gt_cl_queue(cl), k, 1, NULL, &global, &local, 0, NULL, &ev);
		if (gt_cl_check(cl, rc, "clEnqueueNDRangeKernel", err) < 0 ||
		    gt_cl_check(cl, clWaitForEvents(1, &ev), "clWaitForEvents", err) < 0)
			goto out;
		gbps[i] = 48.0 * n / (double)gt_cl_event_ns(ev);
		clReleaseEvent(ev);
	}
out:
	free(rec);
	if (a)
		clReleaseMemObject(a);
	if (b)
		clReleaseMemObject(b);
	if (k)
		clReleaseKernel(k);
	clReleaseProgram(prog);
	return gbps[3] < 0 ? -1 : median(gbps + 1, 3);
}

/* The pure gather: rows [b0, b1) read their parent's record (a root or bad
 * link reads its own), prefetched as far ahead as the fast path does. */
struct gather_job {
	const uint32_t *parent;
	const uint64_t *rec; /* 2 words a row */
	uint64_t *out;
	uint32_t n, b0, b1;
};

static void *gather_rows(void *arg)
{
	struct gather_job *g = arg;
	for (uint32_t i = g->b0; i < g->b1; i++) {
		if (i + 16 < g->b1) {
			uint32_t q = g->parent[i + 16];
			__builtin_prefetch(&g->rec[2 * (size_t)(q < g->n ? q : i + 16)], 0, 1);
		}
		uint32_t p = g->parent[i];
		const uint64_t *a = &g->rec[2 * (size_t)(p < g->n ? p : i)];
		g->out[2 * (size_t)i] = a[0] + 1;
		g->out[2 * (size_t)i + 1] = a[1];
	}
	return NULL;
}

static double host_gather(const uint32_t *parent, uint32_t n, unsigned threads, const uint64_t *rec, uint64_t *out)
{
	struct gather_job jobs[64];
	pthread_t tids[64];
	double t0 = now_s();
	for (unsigned t = 0; t < threads; t++) {
		jobs[t] = (struct gather_job){parent, rec, out, n, (uint32_t)((uint64_t)n * t / threads),
					      (uint32_t)((uint64_t)n * (t + 1) / threads)};
		if (t && pthread_create(&tids[t], NULL, gather_rows, &jobs[t]) != 0)
			return -1;
	}
	gather_rows(&jobs[0]);
	for (unsigned t = 1; t < threads; t++)
		pthread_join(tids[t], NULL);
	return now_s() - t0;
}

/* Whether the device's outputs equal the host reference's, bit for bit. */
static bool same_as_host(const uint32_t *parent, const int64_t *dur, uint32_t n, const gt_cp_rows *d,
			 const gt_cp_summary *ds)
{
	gt_error err = {0};
	gt_cp_rows h;
	gt_cp_summary hs;
	if (gt_cp_rows_alloc(&h, n, &err) < 0 || gt_critpath_host(parent, dur, n, NULL, &h, &hs, &err) < 0)
		return false;
	bool same = memcmp(&hs, ds, sizeof hs) == 0 &&
		    !memcmp(h.path_duration, d->path_duration, (size_t)n * 8) &&
		    !memcmp(h.slack, d->slack, (size_t)n * 8) &&
		    !memcmp(h.critical_predecessor, d->critical_predecessor, (size_t)n * 4) &&
		    !memcmp(h.root, d->root, (size_t)n * 4) && !memcmp(h.hop_count, d->hop_count, (size_t)n * 4) &&
		    !memcmp(h.critical_mask, d->critical_mask, n);
	gt_cp_rows_free(&h);
	return same;
}

int main(int argc, char **argv)
{
	int runs = 5;
	const char *shape = "random", *only = NULL;
	bool host = true, verify = false, devices = true;
	gt_cp_options opt = {0};
	uint32_t sizes[16];
	int nsizes = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
			shape = argv[++i];
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--no-host") == 0)
			host = false;
		else if (strcmp(argv[i], "--no-devices") == 0)
			devices = false;
		else if (strcmp(argv[i], "--verify") == 0)
			verify = true;
		else if (strcmp(argv[i], "--items-per-unit") == 0 && i + 1 < argc)
			opt.items_per_unit = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (argv[i][0] != '-' && nsizes < 16)
			sizes[nsizes++] = (uint32_t)strtoul(argv[i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_critpath [--runs R] [--shape random|deep|chain] [--no-host] [--no-devices] "
					"[--verify] [--items-per-unit K] [--device SPEC] N...\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 100)
		runs = 5;
	if (nsizes == 0)
		sizes[nsizes++] = 1000000;

	gt_error err = {0};
	gt_cl_device_info *infos;
	size_t ndev;
	if (gt_cl_list(&infos, &ndev, &err) < 0) {
		fprintf(stderr, "bench_critpath: %s\n", err.msg);
		return 3;
	}
	if (bench_devices_check("bench_critpath", infos, ndev, only) < 0) {
		free(infos);
		return 2;
	}
	for (int s = 0; s < nsizes; s++) {
		uint32_t n = sizes[s];
		uint32_t *parent = malloc((size_t)n * sizeof *parent);
		int64_t *dur = malloc((size_t)n * sizeof *dur);
		gt_cp_rows rows;
		if (!parent || !dur || gt_cp_rows_alloc(&rows, n, &err) < 0) {
			fprintf(stderr, "bench_critpath: out of memory for %u rows\n", n);
			return 1;
		}
		make_forest(n, shape, parent, dur);
		gt_cp_summary sum;
		double wall[100];
		if (host) {
			/* the reference, the fast host path and the pure gather, one
			 * after the other in every run: a load that comes and goes
			 * falls on all three alike */
			unsigned threads = gt_critpath_fast_threads(0);
			/* the gather's arrays on the same (huge) pages as the fast path's */
			uint64_t *rec = gt_big_malloc(n, 16), *gout = gt_big_malloc(n, 16);
			gt_cp_rows frows;
			gt_cp_summary fsum;
			if (!rec || !gout || gt_cp_rows_alloc(&frows, n, &err) < 0) {
				fprintf(stderr, "bench_critpath: out of memory for %u rows\n", n);
				return 1;
			}
			for (uint32_t i = 0; i < n; i++) {
				rec[2 * (size_t)i] = (uint64_t)dur[i];
				rec[2 * (size_t)i + 1] = i;
			}
			double fwall[100], gwall[100];
			for (int r = 0; r < runs; r++) {
				double t0 = now_s();
				gt_critpath_host(parent, dur, n, NULL, &rows, &sum, &err);
				wall[r] = now_s() - t0;
				t0 = now_s();
				gt_critpath_fast(parent, dur, n, NULL, &frows, &fsum, &err);
				fwall[r] = now_s() - t0;
				gwall[r] = host_gather(parent, n, threads, rec, gout);
			}
			double w = median(wall, runs);
			printf("{\"bench\":\"critpath\",\"shape\":\"%s\",\"rows\":%u,\"device\":\"host\",\"runs\":%d,"
			       "\"wall_ms\":%.3f,\"rows_per_s\":%.0f,\"max_hop_count\":%u}\n",
			       shape, n, runs, w * 1e3, n / w, sum.max_hop_count);
			fflush(stdout);
			bool same = memcmp(&fsum, &sum, sizeof sum) == 0 &&
				    !memcmp(frows.path_duration, rows.path_duration, (size_t)n * 8) &&
				    !memcmp(frows.slack, rows.slack, (size_t)n * 8) &&
				    !memcmp(frows.root, rows.root, (size_t)n * 4) &&
				    !memcmp(frows.hop_count, rows.hop_count, (size_t)n * 4) &&
				    !memcmp(frows.critical_predecessor, rows.critical_predecessor, (size_t)n * 4) &&
				    !memcmp(frows.critical_mask, rows.critical_mask, n);
			double fw = median(fwall, runs), gw = median(gwall, runs);
			printf("{\"bench\":\"critpath\",\"shape\":\"%s\",\"rows\":%u,\"device\":\"host-fast\",\"runs\":%d,"
			       "\"threads\":%u,\"wall_ms\":%.3f,\"rows_per_s\":%.0f,\"gather_ms\":%.3f,\"vs_gather\":%.2f,"
			       "\"reference_ms\":%.3f,\"speedup\":%.2f,\"same_as_reference\":%s}\n",
			       shape, n, runs, threads, fw * 1e3, n / fw, gw * 1e3, fw / gw, w * 1e3, w / fw,
			       same ? "true" : "false");
			fflush(stdout);
			gt_cp_rows_free(&frows);
			gt_big_free(rec);
			gt_big_free(gout);
			if (!same) {
				fprintf(stderr, "bench_critpath: the fast host path differs from the reference on %u rows\n", n);
				return 1;
			}
		}
		for (size_t d = 0; devices && d < ndev; d++) {
			char spec[32];
			snprintf(spec, sizeof spec, "%zu", d);
			if (!bench_device_wanted(infos, d, only))
				continue;
			gt_cl *cl;
			if (gt_cl_open(&cl, spec, NULL, 0, &err) < 0) {
				fprintf(stderr, "bench_critpath: %s\n", err.msg);
				return 3;
			}
			fprintf(stderr, "bench_critpath: %u rows on %s: copy bandwidth\n", n, infos[d].name);
			double copy = copy_bandwidth(cl, &err);
			fprintf(stderr, "bench_critpath: %u rows on %s: runs\n", n, infos[d].name);
			double dev[100], gb[100], pgb[100];
			gt_cp_stats st = {0};
			/* one untimed run: program build, first-use compilation */
			int rc = gt_critpath_cl(cl, parent, dur, n, &opt, &rows, &sum, &st, &err);
			if (rc == 0 && verify && !same_as_host(parent, dur, n, &rows, &sum)) {
				fprintf(stderr, "bench_critpath: %s differs from the host reference on %u rows\n",
					gt_cl_device_name(cl), n);
				return 1;
			}
			for (int r = 0; rc == 0 && r < runs; r++) {
				double t0 = now_s();
				rc = gt_critpath_cl(cl, parent, dur, n, &opt, &rows, &sum, &st, &err);
				wall[r] = now_s() - t0;
				dev[r] = (double)st.kernel_ns * 1e-9;
				gb[r] = (double)st.bytes_moved / (double)st.kernel_ns;
				pgb[r] = (double)st.pass_bytes / (double)st.pass_ns;
			}
			/* the same memory pattern without the pass's logic: over the
			 * forest's parent links, and over uniformly random links */
			uint32_t *uniform = malloc((size_t)n * sizeof *uniform);
			double g_parent = -1, g_uniform = -1;
			if (uniform && rc == 0) {
				for (uint32_t i = 0; i < n; i++)
					uniform[i] = (uint32_t)(rnd() % n);
				g_parent = gather_bandwidth(cl, parent, n, &err);
				g_uniform = g_parent < 0 ? -1 : gather_bandwidth(cl, uniform, n, &err);
			}
			free(uniform);
			char each[33 * 16] = "", *e = each;
			for (uint32_t p = 0; p < st.passes && p < 33; p++)
				e += sprintf(e, "%s%.3f", p ? "," : "", (double)st.pass_ns_each[p] * 1e-6);
			if (rc < 0 || copy < 0) {
				fprintf(stderr, "bench_critpath: %s\n", err.msg);
				gt_cl_close(cl);
				return 3;
			}
			double w = median(wall, runs), k = median(dev, runs), g = median(gb, runs), pg = median(pgb, runs);
			printf("{\"bench\":\"critpath\",\"shape\":\"%s\",\"rows\":%u,\"device\":\"%s\",\"runs\":%d,"
			       "\"items_per_unit\":%u,\"wall_ms\":%.3f,\"device_ms\":%.3f,\"rows_per_s\":%.0f,\"passes\":%u,"
			       "\"active_passes\":%u,\"launches\":%u,\"bytes_moved\":%" PRIu64 ",\"effective_gbps\":%.1f,"
			       "\"copy_gbps\":%.1f,\"fraction_of_copy\":%.3f,\"pass_ms\":%.3f,\"pass_gbps\":%.1f,"
			       "\"pass_fraction_of_copy\":%.3f,\"pass_ms_each\":[%s],\"gather_parent_gbps\":%.1f,"
			       "\"gather_uniform_gbps\":%.1f,\"max_hop_count\":%u}\n",
			       shape, n, gt_cl_device_name(cl), runs, opt.items_per_unit ? opt.items_per_unit : 2048,
			       w * 1e3, k * 1e3, n / k, st.passes, st.active_passes, st.launches, st.bytes_moved, g,
			       copy, g / copy, (double)st.pass_ns * 1e-6, pg, pg / copy, each, g_parent, g_uniform, sum.max_hop_count);
			fflush(stdout);
			gt_cl_close(cl);
		}
		gt_cp_rows_free(&rows);
		free(parent);
		free(dur);
	}
	free(infos);
	return 0;
}
