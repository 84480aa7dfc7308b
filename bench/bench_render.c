/* Render benchmark: a synthetic Kineto-like model of N spans is indexed
 * once, then whole-trace and zoomed viewports are queried and rendered to
 * SVG several times; prints the median query and render times and the SVG
 * sizes as one JSON line.
 *
 * usage: bench_render SPANS [RUNS] [WIDTH] [OUT_DIR] [THREADS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tindex/tindex.h"
#include "svg/svg.h"
#include "model/model.h"
#include "bench_util.h"

static int fail(const gt_error *err)
{
	fprintf(stderr, "bench_render: %s\n", err->msg);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_render SPANS [RUNS] [WIDTH] [OUT_DIR] [THREADS]\n");
		return 2;
	}
	uint64_t spans = strtoull(argv[1], NULL, 10);
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	uint32_t width = argc > 3 ? (uint32_t)atoi(argv[3]) : 1200;
	const char *dir = argc > 4 ? argv[4] : "/tmp";
	uint32_t threads = argc > 5 ? (uint32_t)atoi(argv[5]) : 0; /* 0: one per core */
	if (runs < 1 || runs > 100 || width < 16)
		return 2;
	gt_error err = {0};
	gt_model m;
	double t0 = (now_s() * 1e3);
	if (gt_synth_model(&m, spans, 8, 8, 1, &err) < 0)
		return fail(&err);
	double t1 = (now_s() * 1e3);
	gt_tindex ix;
	gt_tindex_params p;
	gt_tindex_default_params(&p);
	if (gt_tindex_build(&ix, &m, &p, &err) < 0)
		return fail(&err);
	double t2 = (now_s() * 1e3);
	uint32_t *cand = malloc(((size_t)ix.batch_count + 1) * sizeof *cand);
	if (!cand)
		return 1;
	int64_t T = m.end_ns - m.start_ns;
	struct {
		const char *name;
		int64_t a, b;
	} views[] = {
		{"whole", 0, T},
		{"tenth", T / 2, T / 2 + T / 10},
		{"thousandth", T / 3, T / 3 + T / 1000},
	};
	printf("{\"threads\":%u,\"spans\":%u,\"lanes\":%u,\"width\":%u,\"runs\":%d,\"synth_ms\":%.0f,\"index_ms\":%.0f,\"views\":[", threads, m.span_count,
	       m.lane_count, width, runs, t1 - t0, t2 - t1);
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		gt_tquery q = {.t0 = m.start_ns + views[v].a, .t1 = m.start_ns + views[v].b, .lane0 = 0,
			       .lane1 = UINT32_MAX, .groups = 0xffffffffu};
		q.level = gt_tindex_auto_level(&ix, q.t1 - q.t0, T);
		double tq[100], tr[100];
		gt_render_stats st = {0};
		long size = 0;
		char path[4096];
		snprintf(path, sizeof path, "%s/bench_render_%s.svg", dir, views[v].name);
		for (int r = 0; r < runs; r++) {
			double a = (now_s() * 1e3);
			gt_tresult res = {.candidates = cand, .capacity = ix.batch_count};
			if (gt_tindex_query(&ix, &q, &res, &err) < 0)
				return fail(&err);
			double b = (now_s() * 1e3);
			FILE *f = fopen(path, "w");
			if (!f)
				return 1;
			gt_render_opts o = {.q = q, .width = width, .title = "bench", .threads = threads};
			if (gt_render_svg(f, &m, &ix, cand, res.count, &o, &st, &err) < 0)
				return fail(&err);
			if (fclose(f) != 0)
				return 1;
			double c = (now_s() * 1e3);
			tq[r] = b - a;
			tr[r] = c - b;
		}
		struct stat sb;
		if (stat(path, &sb) == 0)
			size = (long)sb.st_size;
		printf("%s{\"view\":\"%s\",\"level\":%u,\"spans_drawn\":%llu,\"boxes\":%llu,\"density_cells\":%llu,"
		       "\"query_ms\":%.2f,\"render_ms\":%.1f,\"svg_bytes\":%ld}",
		       v ? "," : "", views[v].name, q.level, (unsigned long long)st.spans, (unsigned long long)st.boxes,
		       (unsigned long long)st.density_cells, median(tq, runs), median(tr, runs), size);
	}
	printf("]}\n");
	free(cand);
	gt_tindex_free(&ix);
	gt_model_free(&m);
	return 0;
}
