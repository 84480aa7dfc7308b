/* Temporal-index benchmark: packs a synthetic Kineto-like model of N spans,
 * then replays a pan/zoom sequence of viewport queries on the host and on
 * every OpenCL device, against a brute-force scan of the span table on the
 * same device. One JSON line per measurement (medians of --runs runs).
 *
 * usage: bench_tindex [--spans N] [--runs R] [--device SPEC|all|host]
 *                     [--batch-spans N] [--lane-band N] [--cpu-threads T]
 *                     [--gpu-streams S] [--seed S] */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl/cl.h"
#include "tindex/tindex.h"
#include "model/model.h"
#include "bench_util.h"

/* The pan/zoom sequence: widths T/2^k, four pans each, all lanes, then a
 * few with 32- and 8-lane windows and one group. */
static int make_queries(const gt_model *m, gt_tquery *q, int max)
{
	int n = 0;
	int64_t T = m->end_ns - m->start_ns;
	for (int k = 0; k <= 14 && n < max; k += 2)
		for (int p = 0; p < 4 && n < max; p++) {
			int64_t w = T >> k;
			int64_t a = m->start_ns + (T - w) / 4 * p;
			q[n++] = (gt_tquery){a, a + w, 0, UINT32_MAX, 0xffffffffu, 0};
		}
	for (int k = 4; k <= 12 && n < max; k += 4) {
		int64_t w = T >> k, a = m->start_ns + T / 3;
		q[n++] = (gt_tquery){a, a + w, 32, 64, 0xffffffffu, 0};
		q[n++] = (gt_tquery){a, a + w, 37, 45, 0xffffffffu, 0}; /* not aligned to bands */
		q[n++] = (gt_tquery){a, a + w, 0, UINT32_MAX, 1u << 3, 0};
	}
	return n;
}

struct opts {
	uint64_t spans;
	int runs;
	const char *device;
	gt_tindex_params p;
	uint32_t cpu_threads, gpu_streams;
	uint64_t seed;
};

static void bench_device(const char *name, gt_cl *cl, const gt_tindex *ix, const gt_model *m, const gt_tquery *qs,
			 int nq, const struct opts *o)
{
	gt_error err = {0};
	gt_tindex_cl *dev = NULL;
	gt_spanscan_cl *scan = NULL;
	if (cl && (gt_tindex_cl_open(&dev, cl, ix, &err) < 0 || gt_spanscan_cl_open(&scan, cl, m, &err) < 0)) {
		fprintf(stderr, "bench_tindex: %s: %s\n", name, err.msg);
		gt_tindex_cl_close(dev);
		return;
	}
	uint32_t *cand = malloc(((size_t)ix->batch_count + 1) * 4);
	double *t = malloc(sizeof(double) * (size_t)o->runs), *bt = malloc(sizeof(double) * (size_t)o->runs);
	double *mt = malloc(sizeof(double) * (size_t)o->runs), *wt = malloc(sizeof(double) * (size_t)o->runs);
	double *all_q = malloc(sizeof(double) * (size_t)nq), *all_b = malloc(sizeof(double) * (size_t)nq);
	double *all_w = malloc(sizeof(double) * (size_t)nq);
	double worst_fp_ratio = 0;
	for (int i = 0; i < nq; i++) {
		gt_tquery q = qs[i];
		q.level = gt_tindex_auto_level(ix, q.t1 - q.t0, m->end_ns - m->start_ns);
		gt_tresult r = {.candidates = cand, .capacity = ix->batch_count};
		uint64_t brute_count = 0;
		for (int k = 0; k < o->runs; k++) {
			uint64_t kns = 0, bns = 0;
			double t0 = (now_s() * 1e6);
			if (dev)
				gt_tindex_cl_query(dev, &q, &r, &kns, &err);
			else
				gt_tindex_query(ix, &q, &r, &err);
			double t1 = (now_s() * 1e6);
			t[k] = dev ? kns / 1e3 : t1 - t0;
			wt[k] = t1 - t0; /* the caller's wait: reach, launch, read-back */
			mt[k] = 0;
			if (scan) {
				uint64_t mns = 0, mcount = 0;
				gt_spanscan_cl_query(scan, &q, &brute_count, &bns, &err);
				gt_spanscan_cl_mark(scan, &q, &mcount, &mns, &err);
				if (mcount != brute_count)
					fprintf(stderr, "bench_tindex: brute-force counts disagree: %llu and %llu\n",
						(unsigned long long)brute_count, (unsigned long long)mcount);
				bt[k] = bns / 1e3;
				mt[k] = mns / 1e3;
			} else {
				double b0 = (now_s() * 1e6);
				uint64_t c = 0;
				for (uint32_t s = 0; s < m->span_count; s++)
					c += gt_span_meets(&m->spans[s], &q);
				brute_count = c;
				bt[k] = (now_s() * 1e6) - b0;
			}
		}
		if (err.status) {
			fprintf(stderr, "bench_tindex: %s: %s\n", name, err.msg);
			break;
		}
		/* the device must agree with the host reference */
		bool same = true;
		if (dev) {
			uint32_t *hc = malloc(((size_t)ix->batch_count + 1) * 4);
			gt_tresult h = {.candidates = hc, .capacity = ix->batch_count};
			same = hc && gt_tindex_query(ix, &q, &h, &err) == 0 && h.count == r.count &&
			       h.leaves_tested == r.leaves_tested && memcmp(hc, cand, r.count * 4) == 0;
			free(hc);
		}
		uint64_t fp = gt_tindex_false_positives(ix, m, &q, cand, r.count);
		/* the faster of the two brute-force kernels is the baseline */
		double qm = median(t, o->runs), bm = median(bt, o->runs), mm = scan ? median(mt, o->runs) : 0;
		double bc = bm;
		if (scan && mm < bm)
			bm = mm;
		all_q[i] = qm, all_b[i] = bm, all_w[i] = median(wt, o->runs);
		uint64_t truth = r.count - fp;
		if (truth && (double)fp / truth > worst_fp_ratio)
			worst_fp_ratio = (double)fp / truth;
		printf("{\"measure\":\"query\",\"device\":\"%s\",\"spans\":%u,\"query\":%d,\"width_ns\":%lld,"
		       "\"lanes\":\"%u:%u\",\"groups\":%u,\"level\":%u,\"nodes_tested\":%llu,\"leaves_tested\":%llu,"
		       "\"candidates\":%llu,\"true_batches\":%llu,\"false_positive_batches\":%llu,\"spans_meeting\":%llu,"
		       "\"%s\":%.1f,\"brute_us\":%.1f,\"brute_compact_us\":%.1f,\"brute_mark_us\":%.1f,"
		       "\"wall_us\":%.1f,\"speedup\":%.1f,\"matches_host\":%s}\n",
		       name, m->span_count, i, (long long)(q.t1 - q.t0), q.lane0, q.lane1, q.groups, q.level,
		       (unsigned long long)r.nodes_tested, (unsigned long long)r.leaves_tested,
		       (unsigned long long)r.count, (unsigned long long)truth, (unsigned long long)fp,
		       (unsigned long long)brute_count, dev ? "kernel_us" : "host_us", qm, bm, bc, mm, all_w[i],
		       qm > 0 ? bm / qm : 0,
		       same ? "true" : "false");
		fflush(stdout);
	}
	/* Work per level for one narrow and one wide window. */
	for (int w = 0; w < 2 && nq > 1; w++) {
		gt_tquery q = qs[w ? 0 : nq / 2];
		for (uint32_t L = 0; L < ix->level_count; L++) {
			q.level = L;
			gt_tresult r = {.candidates = cand, .capacity = ix->batch_count};
			for (int k = 0; k < o->runs; k++) {
				uint64_t kns = 0;
				double t0 = (now_s() * 1e6);
				if (dev)
					gt_tindex_cl_query(dev, &q, &r, &kns, &err);
				else
					gt_tindex_query(ix, &q, &r, &err);
				t[k] = dev ? kns / 1e3 : (now_s() * 1e6) - t0;
			}
			printf("{\"measure\":\"level\",\"device\":\"%s\",\"spans\":%u,\"width_ns\":%lld,\"level\":%u,"
			       "\"level_nodes\":%u,\"nodes_tested\":%llu,\"leaves_tested\":%llu,\"candidates\":%llu,"
			       "\"auto\":%s,\"%s\":%.1f}\n",
			       name, m->span_count, (long long)(q.t1 - q.t0), L, ix->levels[L].node_count,
			       (unsigned long long)r.nodes_tested, (unsigned long long)r.leaves_tested,
			       (unsigned long long)r.count,
			       L == gt_tindex_auto_level(ix, q.t1 - q.t0, m->end_ns - m->start_ns) ? "true" : "false",
			       dev ? "kernel_us" : "host_us", median(t, o->runs));
		}
	}
	double sq = median(all_q, nq), sb = median(all_b, nq);
	printf("{\"measure\":\"summary\",\"device\":\"%s\",\"spans\":%u,\"queries\":%d,\"median_%s\":%.1f,"
	       "\"median_wall_us\":%.1f,\"median_brute_us\":%.1f,\"median_speedup\":%.1f,\"worst_fp_per_true\":%.3f}\n",
	       name, m->span_count, nq, dev ? "kernel_us" : "host_us", sq, median(all_w, nq), sb, sq > 0 ? sb / sq : 0,
	       worst_fp_ratio);
	fflush(stdout);
	free(cand), free(t), free(bt), free(mt), free(wt), free(all_q), free(all_b), free(all_w);
	gt_tindex_cl_close(dev);
	gt_spanscan_cl_close(scan);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	o->spans = 1000000, o->runs = 5, o->device = "all", o->cpu_threads = 48, o->gpu_streams = 16, o->seed = 1;
	gt_tindex_default_params(&o->p);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return -1;
		i++;
		if (!strcmp(a, "--spans"))
			o->spans = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--runs"))
			o->runs = atoi(v) > 0 ? atoi(v) : 1;
		else if (!strcmp(a, "--device"))
			o->device = v;
		else if (!strcmp(a, "--batch-spans"))
			o->p.batch_spans = (uint32_t)atoi(v);
		else if (!strcmp(a, "--lane-band"))
			o->p.lane_band = (uint32_t)atoi(v);
		else if (!strcmp(a, "--partition-batches"))
			o->p.partition_batches = (uint32_t)atoi(v);
		else if (!strcmp(a, "--fanout"))
			o->p.fanout = (uint32_t)atoi(v);
		else if (!strcmp(a, "--cpu-threads"))
			o->cpu_threads = (uint32_t)atoi(v);
		else if (!strcmp(a, "--gpu-streams"))
			o->gpu_streams = (uint32_t)atoi(v);
		else if (!strcmp(a, "--seed"))
			o->seed = strtoull(v, NULL, 10);
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (parse_args(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: bench_tindex [--spans N] [--runs R] [--device SPEC|all|host] [--batch-spans N] "
				"[--lane-band N] [--partition-batches N] [--fanout N] [--cpu-threads T] [--gpu-streams S] "
				"[--seed S]\n");
		return 2;
	}
	gt_error err = {0};
	gt_model m;
	double t0 = (now_s() * 1e6);
	if (gt_synth_model(&m, o.spans, o.cpu_threads, o.gpu_streams, o.seed, &err) < 0) {
		fprintf(stderr, "bench_tindex: %s\n", err.msg);
		return 1;
	}
	double t1 = (now_s() * 1e6);
	gt_tindex ix;
	if (gt_tindex_build(&ix, &m, &o.p, &err) < 0) {
		fprintf(stderr, "bench_tindex: %s\n", err.msg);
		return 1;
	}
	double t2 = (now_s() * 1e6);
	printf("{\"measure\":\"pack\",\"spans\":%u,\"lanes\":%u,\"groups\":%u,\"batch_spans\":%u,\"lane_band\":%u,"
	       "\"batches\":%u,\"partitions\":%u,\"levels\":[",
	       m.span_count, m.lane_count, m.group_count, o.p.batch_spans, o.p.lane_band, ix.batch_count,
	       ix.partition_count);
	for (uint32_t L = 0; L < ix.level_count; L++)
		printf("%s%u", L ? "," : "", ix.levels[L].node_count);
	printf("],\"generate_ms\":%.1f,\"pack_ms\":%.1f,\"index_bytes\":%llu,\"index_bytes_per_span\":%.3f,"
	       "\"model_bytes_per_span\":%.1f,\"mean_spans_per_batch\":%.1f}\n",
	       (t1 - t0) / 1e3, (t2 - t1) / 1e3, (unsigned long long)gt_tindex_bytes(&ix),
	       m.span_count ? (double)gt_tindex_bytes(&ix) / m.span_count : 0.0,
	       m.span_count ? (double)gt_model_bytes(&m) / m.span_count : 0.0,
	       ix.batch_count ? (double)m.span_count / ix.batch_count : 0.0);
	fflush(stdout);
	gt_tquery qs[64];
	int nq = make_queries(&m, qs, 64);
	if (!strcmp(o.device, "all") || !strcmp(o.device, "host"))
		bench_device("host", NULL, &ix, &m, qs, nq, &o);
	for (int i = 0; i < 8 && strcmp(o.device, "host"); i++) {
		char spec[16], chosen[256] = "";
		snprintf(spec, sizeof spec, "%d", i);
		gt_cl *cl = NULL;
		gt_error e2 = {0};
		if (gt_cl_open(&cl, strcmp(o.device, "all") ? o.device : spec, chosen, sizeof chosen, &e2) < 0 || !cl)
			break;
		bench_device(gt_cl_device_name(cl), cl, &ix, &m, qs, nq, &o);
		gt_cl_close(cl);
		if (strcmp(o.device, "all"))
			break;
	}
	gt_tindex_free(&ix);
	gt_model_free(&m);
	return 0;
}
