/* Benchmark of the causal critical path over a trace or index file (a packed
 * .gtx of the generated Kineto-like trace, say): the whole analysis on the
 * host (spans per second), then on each OpenCL device, whose binding, path
 * and float steps report their device time. Every device result is compared
 * with the host's, field by field, before it is timed. One JSON line per
 * measurement.
 *
 *   bench_causal [--runs R] [--step GLOB] [--threads N] [--no-host] [--no-rows]
 *                [--stream-wait-slack NS] [--recorded-waits] [--device INDEX|NAME] TRACE|INDEX.gtx
 * --stream-wait-slack: infer stream waits as the CLI does (its default is
 * 5000; here 0, the model without them, as the earlier figures);
 * --recorded-waits: follow the cuda_sync markers (the CLI's default; here
 * off, as the earlier figures). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "causal/causal.h"
#include "cl/cl.h"
#include "loader/loader.h"
#include "bench_devices.h"
#include "bench_util.h"

/* CPU time of every thread of the process: the machine may be shared,
 * so wall time alone says little. */
static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool same_point(const gt_causal_point *a, const gt_causal_point *b)
{
	return a->point == b->point && a->span == b->span && a->which == b->which && a->ts_ns == b->ts_ns;
}

/* Two results equal in every field the outputs print (field by field:
 * structs have padding). */
static bool same_window(const gt_causal_window *a, const gt_causal_window *b)
{
	if (a->path_duration_ns != b->path_duration_ns || a->wall_ns != b->wall_ns || a->flags != b->flags ||
	    a->hop_count != b->hop_count || a->breakdown_count != b->breakdown_count || a->row_count != b->row_count ||
	    a->points != b->points || !same_point(&a->endpoint, &b->endpoint) || !same_point(&a->root, &b->root))
		return false;
	for (uint32_t i = 0; i < a->hop_count; i++)
		if (!same_point(&a->hops[i].from, &b->hops[i].from) || !same_point(&a->hops[i].to, &b->hops[i].to) ||
		    a->hops[i].kind != b->hops[i].kind ||
		    a->hops[i].owner != b->hops[i].owner || a->hops[i].duration_ns != b->hops[i].duration_ns)
			return false;
	for (uint32_t i = 0; i < a->breakdown_count; i++)
		if (a->breakdown[i].kind != b->breakdown[i].kind || a->breakdown[i].key != b->breakdown[i].key ||
		    a->breakdown[i].critical_ns != b->breakdown[i].critical_ns)
			return false;
	for (uint32_t i = 0; i < a->row_count; i++)
		if (a->rows[i].span != b->rows[i].span || a->rows[i].float_ns != b->rows[i].float_ns ||
		    a->rows[i].on_path != b->rows[i].on_path || a->rows[i].critical_ns != b->rows[i].critical_ns ||
		    a->rows[i].waited_ns != b->rows[i].waited_ns || a->rows[i].caused_wait_ns != b->rows[i].caused_wait_ns)
			return false;
	return true;
}

static bool same_result(const gt_causal_result *a, const gt_causal_result *b)
{
	if (a->window_count != b->window_count)
		return false;
	for (uint32_t i = 0; i < a->window_count; i++)
		if (!same_window(&a->windows[i], &b->windows[i]))
			return false;
	return true;
}

static uint64_t total_points(const gt_causal_result *r)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < r->window_count; i++)
		n += r->windows[i].points;
	return n;
}

int main(int argc, char **argv)
{
	int runs = 5;
	const char *only = NULL, *path = NULL;
	bool host = true;
	gt_causal_options opt = {.rows = true};
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--step") == 0 && i + 1 < argc)
			opt.step_glob = argv[++i];
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			opt.threads = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--no-host") == 0)
			host = false;
		else if (strcmp(argv[i], "--stream-wait-slack") == 0 && i + 1 < argc)
			opt.stream_wait_slack_ns = strtoll(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--recorded-waits") == 0)
			opt.recorded_waits = true;
		else if (strcmp(argv[i], "--no-rows") == 0)
			opt.rows = false; /* the path alone: no float */
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else {
			fprintf(stderr, "usage: bench_causal [--runs R] [--step GLOB] [--threads N] [--no-host] [--no-rows] "
					"[--stream-wait-slack NS] [--recorded-waits] [--device SPEC] TRACE|INDEX.gtx\n");
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "bench_causal: give a trace or index file\n");
		return 2;
	}
	if (runs < 1 || runs > 100)
		runs = 5;
	gt_error err = {0};
	gt_model m;
	double t0 = now_s();
	if (gt_model_load(&m, path, NULL, &err) < 0) {
		fprintf(stderr, "bench_causal: %s\n", err.msg);
		return 1;
	}
	double load_s = now_s() - t0;
	fprintf(stderr, "bench_causal: %u spans loaded in %.3f s\n", m.span_count, load_s);

	/* the reference, kept for the device comparisons */
	gt_causal_result ref;
	double first_c = cpu_s();
	int first_rc = gt_causal_analyze(&m, &opt, NULL, &ref, &err);
	first_c = cpu_s() - first_c; /* fresh memory, as a one-shot command has it */
	if (first_rc < 0) {
		fprintf(stderr, "bench_causal: %s\n", err.msg);
		return 1;
	}
	double wall[100], cpu[100];
	if (host) {
		for (int r = 0; r < runs; r++) {
			gt_causal_result res;
			double t = now_s(), c = cpu_s();
			int rc = gt_causal_analyze(&m, &opt, NULL, &res, &err);
			wall[r] = now_s() - t;
			cpu[r] = cpu_s() - c;
			if (rc < 0) {
				fprintf(stderr, "bench_causal: %s\n", err.msg);
				return 1;
			}
			gt_causal_result_free(&res);
		}
		double w = median(wall, runs), c = median(cpu, runs);
		printf("{\"bench\":\"causal\",\"spans\":%u,\"points\":%" PRIu64 ",\"windows\":%u,\"device\":\"host\","
		       "\"threads\":%u,\"runs\":%d,\"load_s\":%.3f,\"wall_ms\":%.3f,\"spans_per_s\":%.0f,"
		       "\"cpu_ms\":%.3f,\"spans_per_cpu_s\":%.0f,\"first_cpu_ms\":%.3f,\"path_duration_ns\":%" PRId64 "}\n",
		       m.span_count, total_points(&ref), ref.window_count, opt.threads, runs, load_s, w * 1e3,
		       m.span_count / w, c * 1e3, m.span_count / c, first_c * 1e3,
		       ref.window_count ? ref.windows[0].path_duration_ns : 0);
		fflush(stdout);
	}

	gt_cl_device_info *infos;
	size_t ndev;
	if (gt_cl_list(&infos, &ndev, &err) < 0) {
		fprintf(stderr, "bench_causal: %s\n", err.msg);
		return 3;
	}
	if (bench_devices_check("bench_causal", infos, ndev, only) < 0) {
		free(infos);
		return 2;
	}
	int status = 0;
	for (size_t d = 0; d < ndev; d++) {
		char spec[32];
		snprintf(spec, sizeof spec, "%zu", d);
		if (!bench_device_wanted(infos, d, only))
			continue;
		gt_cl *cl;
		if (gt_cl_open(&cl, spec, NULL, 0, &err) < 0) {
			fprintf(stderr, "bench_causal: %s\n", err.msg);
			return 3;
		}
		gt_causal_cl_engine e;
		gt_causal_cl_engine_init(&e, cl);
		gt_causal_result res;
		/* one untimed run (program build), compared with the host's */
		int rc = gt_causal_analyze(&m, &opt, &e.engine, &res, &err);
		if (rc == 0 && !same_result(&ref, &res)) {
			fprintf(stderr, "bench_causal: %s differs from the host reference\n", gt_cl_device_name(cl));
			status = 1;
		}
		if (rc == 0)
			gt_causal_result_free(&res);
		double dev[100], bind[100], cp[100], flt[100];
		uint32_t rounds = 0, launches = 0;
		for (int r = 0; rc == 0 && r < runs; r++) {
			gt_causal_cl_engine_init(&e, cl);
			double t = now_s();
			rc = gt_causal_analyze(&m, &opt, &e.engine, &res, &err);
			wall[r] = now_s() - t;
			if (rc < 0)
				break;
			gt_causal_result_free(&res);
			bind[r] = (double)e.stats.bind_ns * 1e-6;
			cp[r] = (double)e.stats.path_ns * 1e-6;
			flt[r] = (double)e.stats.float_ns * 1e-6;
			dev[r] = bind[r] + cp[r] + flt[r];
			rounds = e.stats.float_rounds;
			launches = e.stats.launches + e.stats.float_launches;
		}
		if (rc < 0) {
			fprintf(stderr, "bench_causal: %s: %s\n", gt_cl_device_name(cl), err.msg);
			gt_cl_close(cl);
			status = 3;
			continue;
		}
		printf("{\"bench\":\"causal\",\"spans\":%u,\"points\":%" PRIu64 ",\"windows\":%u,\"device\":\"%s\","
		       "\"runs\":%d,\"wall_ms\":%.3f,\"device_ms\":%.3f,\"bind_ms\":%.3f,\"path_ms\":%.3f,"
		       "\"float_ms\":%.3f,\"float_rounds\":%u,\"launches\":%u,\"equal_to_host\":%s}\n",
		       m.span_count, total_points(&ref), ref.window_count, gt_cl_device_name(cl), runs,
		       median(wall, runs) * 1e3, median(dev, runs), median(bind, runs), median(cp, runs),
		       median(flt, runs), rounds, launches, status == 1 ? "false" : "true");
		fflush(stdout);
		gt_cl_close(cl);
	}
	gt_causal_result_free(&ref);
	free(infos);
	gt_model_free(&m);
	return status;
}
