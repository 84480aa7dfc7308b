/* The device's sort and scan (cl/cl.h) against the host's
 * gt_radix_sort_u64 and a running sum, on every OpenCL device: random
 * keys of every shape (ties, few digits, one high digit, every bit), the
 * sizes at the kernels' tile edges, and the span times and tracks of real
 * traces; the buckets against the causal analysis' causal_bucket. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/radix_sort.h"
#include "causal/causal_internal.h"
#include "cl/cl.h"
#include "loader/loader.h"
#include "model/model.h"
#include "testutil.h"

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	ck_assert(p);
	return p;
}

/* The devices; none is said on stderr (make check installs PoCL: a
 * machine without it compares nothing). */
static int device_count(void)
{
	int n = gt_test_device_count();
	if (!n)
		fprintf(stderr, "test_device_sort: no OpenCL device: nothing compared\n");
	return n;
}

/* Device d, or NULL (said on stderr) where it cannot run the sort. */
static gt_cl *open_device(int d)
{
	char spec[16];
	snprintf(spec, sizeof spec, "%d", d);
	gt_cl *cl;
	gt_error err = {0};
	ck_assert_msg(gt_cl_open(&cl, spec, NULL, 0, &err) == 0, "%s", err.msg);
	if (!gt_cl_sort_fits(cl)) {
		fprintf(stderr, "test_device_sort: '%s' runs no work-group of 256: skipped\n", gt_cl_device_name(cl));
		gt_cl_close(cl);
		return NULL;
	}
	return cl;
}

static cl_mem upload(gt_cl *cl, const void *src, size_t bytes)
{
	static const uint64_t none = 0; /* an empty array's stand-in */
	cl_int e;
	cl_mem b = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes ? bytes : sizeof none,
				  (void *)(bytes ? src : &none), &e);
	ck_assert_int_eq(e, CL_SUCCESS);
	return b;
}

static void download(gt_cl *cl, cl_mem b, void *dst, size_t bytes)
{
	if (bytes)
		ck_assert_int_eq(clEnqueueReadBuffer(gt_cl_queue(cl), b, CL_TRUE, 0, bytes, dst, 0, NULL, NULL),
				 CL_SUCCESS);
}

/* Sorts (key, val) on the device and on the host; one assertion. */
static void check_sort(gt_cl *cl, const uint64_t *key, const uint32_t *val, uint32_t n, const char *what)
{
	uint64_t *hk = xmalloc(8ull * n), *tk = xmalloc(8ull * n), *dk = xmalloc(8ull * n);
	uint32_t *hv = xmalloc(4ull * n), *tv = xmalloc(4ull * n), *dv = xmalloc(4ull * n);
	memcpy(hk, key, 8ull * n);
	memcpy(hv, val, 4ull * n);
	gt_radix_sort_u64(hk, hv, n, tk, tv);
	cl_mem bk = upload(cl, key, 8ull * n), bv = upload(cl, val, 4ull * n);
	gt_cl_events ev = {0};
	gt_error err = {0};
	ck_assert_msg(gt_cl_sort_u64(cl, bk, bv, n, &ev, &err) == 0, "%s: %s", what, err.msg);
	download(cl, bk, dk, 8ull * n);
	download(cl, bv, dv, 4ull * n);
	gt_cl_events_release(&ev);
	clReleaseMemObject(bk);
	clReleaseMemObject(bv);
	bool same = memcmp(dk, hk, 8ull * n) == 0 && memcmp(dv, hv, 4ull * n) == 0;
	uint32_t at = 0;
	while (!same && at < n && dk[at] == hk[at] && dv[at] == hv[at])
		at++;
	ck_assert_msg(same, "%s on %s, n %u: differs at %u: (%" PRIu64 ", %u) against the host's (%" PRIu64 ", %u)",
		      what, gt_cl_device_name(cl), n, at, dk[at], dv[at], hk[at], hv[at]);
	free(hk), free(tk), free(dk), free(hv), free(tv), free(dv);
}

enum { SHAPES = 7 };
static const char *const shape_names[SHAPES] = {"every bit", "ties (8 keys)", "times from a base", "one high digit",
						"all equal",  "descending",    "two digits apart"};

static uint64_t shaped_key(int shape, uint64_t *rng, uint32_t i, uint32_t n)
{
	uint64_t x = gt_splitmix64(rng);
	switch (shape) {
	case 0: return x;
	case 1: return x & 7;
	case 2: return 1700000000000000000ull + (x & ((1ull << 40) - 1));
	case 3: return (x & 15) << 60;
	case 4: return 42;
	case 5: return (uint64_t)(n - i) << 8;
	default: return (x & 0xf) | ((x >> 8) & 0xf) << 36;
	}
}

static const uint32_t sizes[] = {0, 1, 2, 3, 255, 1023, 1024, 1025, 4097, 70001, 300000};

START_TEST(sort_shapes)
{
	int ndev = device_count();
	uint64_t rng = 0x5eed + (uint64_t)_i;
	for (int d = 0; d < ndev; d++) {
		gt_cl *cl = open_device(d);
		if (!cl)
			continue;
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			uint32_t n = sizes[s];
			uint64_t *key = xmalloc(8ull * n);
			uint32_t *val = xmalloc(4ull * n);
			for (uint32_t i = 0; i < n; i++) {
				key[i] = shaped_key(_i, &rng, i, n);
				val[i] = (uint32_t)gt_splitmix64(&rng); /* not the index: the values move with their keys */
			}
			check_sort(cl, key, val, n, shape_names[_i]);
			free(key), free(val);
		}
		gt_cl_close(cl);
	}
}
END_TEST

/* Buckets on the device against causal_bucket (the host's, on threads):
 * the same first offsets and the same items; one assertion. */
static void check_bucket(gt_cl *cl, const uint32_t *key, uint32_t n, uint32_t buckets, const char *what)
{
	uint32_t *hfirst, *hitems;
	ck_assert(causal_bucket(n, key, buckets, 3, &hfirst, &hitems) == 0);
	uint32_t *dfirst = xmalloc(4ull * (buckets + 1)), *ditems = xmalloc(4ull * n);
	cl_int e;
	cl_mem bk = upload(cl, key, 4ull * n);
	cl_mem bf = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, 4ull * (buckets + 1), NULL, &e);
	cl_mem bi = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, n ? 4ull * n : 4, NULL, &e);
	gt_cl_events ev = {0};
	gt_error err = {0};
	ck_assert_msg(gt_cl_bucket(cl, bk, n, buckets, bf, bi, &ev, &err) == 0, "%s: %s", what, err.msg);
	download(cl, bf, dfirst, 4ull * (buckets + 1));
	download(cl, bi, ditems, 4ull * n);
	gt_cl_events_release(&ev);
	clReleaseMemObject(bk), clReleaseMemObject(bf), clReleaseMemObject(bi);
	uint32_t kept = hfirst[buckets];
	ck_assert_msg(memcmp(dfirst, hfirst, 4ull * (buckets + 1)) == 0 && memcmp(ditems, hitems, 4ull * kept) == 0,
		      "%s on %s: %u items in %u buckets differ from causal_bucket's", what, gt_cl_device_name(cl), n,
		      buckets);
	gt_big_free(hfirst), gt_big_free(hitems);
	free(dfirst), free(ditems);
}

/* Random keys: few buckets and many, empty ones, items left out. */
START_TEST(bucket_random)
{
	static const uint32_t bucket_counts[] = {1, 7, 1000, 100000};
	int ndev = device_count();
	uint64_t rng = 99 + (uint64_t)_i;
	for (int d = 0; d < ndev; d++) {
		gt_cl *cl = open_device(d);
		if (!cl)
			continue;
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			uint32_t n = sizes[s], buckets = bucket_counts[_i], *key = xmalloc(4ull * n);
			for (uint32_t i = 0; i < n; i++) {
				uint64_t x = gt_splitmix64(&rng);
				key[i] = x % 10 == 0 ? GT_NONE : (uint32_t)((x >> 8) % buckets);
			}
			check_bucket(cl, key, n, buckets, "random keys");
			free(key);
		}
		gt_cl_close(cl);
	}
}
END_TEST

/* The scan against a running sum, at sizes across its levels (1024 a
 * tile, 1024 tiles a level). */
START_TEST(scan_sizes)
{
	static const uint32_t ns[] = {1, 2, 1023, 1024, 1025, 1024 * 1024, 1024 * 1024 + 7, 3 * 1024 * 1024 + 1};
	int ndev = device_count();
	uint64_t rng = 77;
	for (int d = 0; d < ndev; d++) {
		gt_cl *cl = open_device(d);
		if (!cl)
			continue;
		for (size_t s = 0; s < sizeof ns / sizeof *ns; s++) {
			uint32_t n = ns[s];
			uint32_t *in = xmalloc(4ull * n), *want = xmalloc(4ull * n), *got = xmalloc(4ull * n);
			uint64_t sum = 0;
			for (uint32_t i = 0; i < n; i++) {
				in[i] = (uint32_t)(gt_splitmix64(&rng) % 1000);
				want[i] = (uint32_t)sum;
				sum += in[i];
			}
			cl_mem b = upload(cl, in, 4ull * n), out = upload(cl, in, 4ull * n);
			gt_cl_events ev = {0};
			gt_error err = {0};
			uint64_t total = 0;
			/* apart, then in place */
			ck_assert_msg(gt_cl_scan_u32(cl, b, out, n, &total, &ev, &err) == 0, "%s", err.msg);
			download(cl, out, got, 4ull * n);
			bool apart = memcmp(got, want, 4ull * n) == 0 && total == sum;
			ck_assert_msg(gt_cl_scan_u32(cl, b, b, n, NULL, &ev, &err) == 0, "%s", err.msg);
			download(cl, b, got, 4ull * n);
			ck_assert_msg(apart && memcmp(got, want, 4ull * n) == 0, "scan of %u on %s differs", n,
				      gt_cl_device_name(cl));
			gt_cl_events_release(&ev);
			clReleaseMemObject(b), clReleaseMemObject(out);
			free(in), free(want), free(got);
		}
		gt_cl_close(cl);
	}
}
END_TEST

/* Totals at the edge of 32 bits: up to 2^32 - 1 the offsets are exact;
 * from 2^32 on the call fails (GT_EINPUT), with or without *total. */
START_TEST(scan_totals_at_32_bits)
{
	static const uint64_t totals[] = {(1ull << 31) + 12345, UINT32_MAX, 1ull << 32, (1ull << 32) + (1ull << 31)};
	int ndev = device_count();
	for (int d = 0; d < ndev; d++) {
		gt_cl *cl = open_device(d);
		if (!cl)
			continue;
		for (size_t k = 0; k < sizeof totals / sizeof *totals; k++) {
			/* 3000 values (three tiles) summing to totals[k], the last carrying the rest */
			uint32_t n = 3000, *in = xmalloc(4ull * n), *want = xmalloc(4ull * n), *got = xmalloc(4ull * n);
			uint64_t sum = 0;
			for (uint32_t i = 0; i < n; i++) {
				in[i] = i + 1 < n ? (uint32_t)(totals[k] / 4096) : (uint32_t)(totals[k] - sum);
				want[i] = (uint32_t)sum;
				sum += in[i];
			}
			ck_assert_uint_eq(sum, totals[k]);
			bool fits = sum <= UINT32_MAX;
			for (int ask = 0; ask < 2; ask++) {
				cl_mem b = upload(cl, in, 4ull * n);
				gt_cl_events ev = {0};
				gt_error err = {0};
				uint64_t total = 0;
				int rc = gt_cl_scan_u32(cl, b, b, n, ask ? &total : NULL, &ev, &err);
				if (fits) {
					ck_assert_msg(rc == 0, "%s", err.msg);
					download(cl, b, got, 4ull * n);
					ck_assert_msg(memcmp(got, want, 4ull * n) == 0 && (!ask || total == sum),
						      "scan to %" PRIu64 " on %s differs", sum, gt_cl_device_name(cl));
				} else {
					ck_assert_msg(rc == -1 && err.status == GT_EINPUT && strstr(err.msg, "32 bits"),
						      "a scan to %" PRIu64 " on %s: rc %d, %s", sum, gt_cl_device_name(cl), rc,
						      err.msg);
				}
				gt_cl_events_release(&ev);
				clReleaseMemObject(b);
			}
			free(in), free(want), free(got);
		}
		gt_cl_close(cl);
	}
}
END_TEST

/* Real orders: the spans of the largest shared traces by start, and by
 * track then start, as the device-resident build orders them. */
START_TEST(sort_real_traces)
{
	static const char *const traces[] = {"kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz",
					     "hta__trace_diff-control.json.gz", "lighthouse__load.json"};
	int ndev = device_count();
	for (size_t t = 0; t < sizeof traces / sizeof *traces; t++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", GT_SHARED_TRACES, traces[t]);
		gt_model m;
		gt_error err = {0};
		if (access(path, R_OK) != 0) {
			fprintf(stderr, "test_device_sort: %s is not there: skipped\n", path);
			continue; /* the shared traces are optional */
		}
		ck_assert_msg(gt_model_load(&m, path, NULL, &err) == 0, "%s: %s", path, err.msg);
		uint32_t n = m.span_count;
		uint64_t *start = xmalloc(8ull * n), *by_track = xmalloc(8ull * n);
		uint32_t *id = xmalloc(4ull * n), *track = xmalloc(4ull * n);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t ts = (uint64_t)(m.spans[i].ts_ns - m.start_ns);
			start[i] = ts;
			by_track[i] = (uint64_t)m.spans[i].track << 44 | (ts & ((1ull << 44) - 1));
			id[i] = i;
			track[i] = m.spans[i].track;
		}
		for (int d = 0; d < ndev; d++) {
			gt_cl *cl = open_device(d);
			if (!cl)
				continue;
			check_sort(cl, start, id, n, traces[t]);
			check_sort(cl, by_track, id, n, traces[t]);
			check_bucket(cl, track, n, m.track_count, traces[t]);
			gt_cl_close(cl);
		}
		free(start), free(by_track), free(id), free(track);
		gt_model_free(&m);
	}
}
END_TEST

int main(void)
{
	const gt_test sorts[] = {GT_LOOP(sort_shapes, SHAPES), GT_LOOP(bucket_random, 4), GT_TEST(sort_real_traces), {0}};
	const gt_test scans[] = {GT_TEST(scan_sizes), GT_TEST(scan_totals_at_32_bits), {0}};
	const gt_tcase cases[] = {{"sort", 300, sorts}, {"scan", 120, scans}, {0}};
	return gt_run_cases("device_sort", cases);
}
