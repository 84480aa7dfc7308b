/* Benchmark of binding and CPM float (cpm.h) on a Kineto-like point graph
 * of about N points, on the host reference and on every OpenCL device. One
 * JSON line per measurement: the median wall time of each step on the
 * host; on a device the median device time (the sum of the kernel events)
 * of each step, the float's rounds, and whether the results equal the
 * host's byte for byte (checked on every device; a difference fails with
 * status 1).
 *
 *   bench_cpm [--runs R] [--threads C] [--streams S] [--sync-every P]
 *             [--no-host] [--device INDEX|NAME] N...
 *
 * The graph: C CPU threads run ops; each op holds a launch span whose
 * departure point flows to a kernel on one of S GPU streams (the kernel
 * starts once the flow arrives and the stream is free). Every P launches a
 * thread calls a synchronize span that ends after the latest kernel it
 * launched: a wait edge. Gaps inside spans are work, between them idle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "causal/causal.h"
#include "cl/cl.h"
#include "bench_devices.h"
#include "bench_util.h"

static uint64_t rng = 42;
static uint64_t rnd(void)
{
	return gt_splitmix64(&rng);
}

/* --- the graph ------------------------------------------------------------------ */

typedef struct {
	uint32_t cpu_threads, streams, sync_every;
} shape;

typedef struct {
	gt_cpm_graph g;
	int64_t *time;
	uint32_t *track; /* per point, while building */
	uint8_t *open;   /* per point: a span is open after it on its track */
	uint32_t *chain, *chain_start, *src, *dst;
	uint8_t *work, *kind;
	uint32_t n, m, cap_n, cap_m;
} builder;

static uint32_t add_point(builder *b, uint32_t track, int64_t t, int *depth, int delta)
{
	uint32_t p = b->n++;
	*depth += delta;
	b->time[p] = t;
	b->track[p] = track;
	b->open[p] = *depth > 0;
	return p;
}

static void add_edge(builder *b, uint32_t s, uint32_t d, uint8_t kind)
{
	b->src[b->m] = s;
	b->dst[b->m] = d;
	b->kind[b->m++] = kind;
}

typedef struct {
	int64_t now;
	int depth;
	uint32_t launches;
	uint32_t latest_kernel_end; /* point id, UINT32_MAX: none since the last sync */
} cpu_state;

typedef struct {
	int64_t free_at;
	int depth;
} stream_state;

/* One op of thread c: B(op), B(launch), departure, E(launch), E(op), and
 * the kernel's B and E on a stream; every sync_every launches a sync. */
static void emit_op(builder *b, const shape *sh, uint32_t c, cpu_state *cs, stream_state *ss)
{
	uint32_t track = c;
	cs->now += 200 + (int64_t)(rnd() % 2000); /* idle before the op */
	add_point(b, track, cs->now, &cs->depth, 1);
	cs->now += 1000 + (int64_t)(rnd() % 5000);
	add_point(b, track, cs->now, &cs->depth, 1);
	cs->now += 2000;
	uint32_t dep = add_point(b, track, cs->now, &cs->depth, 0);
	uint32_t s = (uint32_t)(rnd() % sh->streams);
	stream_state *st = &ss[s];
	int64_t begin = cs->now + 3000 > st->free_at ? cs->now + 3000 : st->free_at;
	int64_t end = begin + 5000 + (int64_t)(rnd() % 40000);
	uint32_t kb = add_point(b, sh->cpu_threads + s, begin, &st->depth, 1);
	uint32_t ke = add_point(b, sh->cpu_threads + s, end, &st->depth, -1);
	st->free_at = end + 500;
	add_edge(b, dep, kb, GT_CPM_EDGE_FLOW);
	if (cs->latest_kernel_end == UINT32_MAX || b->time[ke] >= b->time[cs->latest_kernel_end])
		cs->latest_kernel_end = ke;
	cs->now += 2000;
	add_point(b, track, cs->now, &cs->depth, -1);
	cs->now += 500 + (int64_t)(rnd() % 3000);
	add_point(b, track, cs->now, &cs->depth, -1);
	if (++cs->launches % sh->sync_every == 0) {
		cs->now += 300;
		add_point(b, track, cs->now, &cs->depth, 1);
		int64_t kend = b->time[cs->latest_kernel_end];
		cs->now = (kend > cs->now ? kend : cs->now) + 1000;
		uint32_t we = add_point(b, track, cs->now, &cs->depth, -1);
		add_edge(b, cs->latest_kernel_end, we, GT_CPM_EDGE_WAIT);
		cs->latest_kernel_end = UINT32_MAX;
	}
}

/* Chains: points grouped by track in the order they were made (time order
 * on each track), by a counting sort. */
static void build_chains(builder *b, uint32_t tracks)
{
	uint32_t *start = b->chain_start;
	memset(start, 0, (tracks + 1) * sizeof *start);
	for (uint32_t p = 0; p < b->n; p++)
		start[b->track[p] + 1]++;
	for (uint32_t k = 0; k < tracks; k++)
		start[k + 1] += start[k];
	uint32_t *fill = malloc(tracks * sizeof *fill);
	memcpy(fill, start, tracks * sizeof *fill);
	for (uint32_t p = 0; p < b->n; p++) {
		uint32_t i = fill[b->track[p]]++;
		b->chain[i] = p;
		b->work[i] = b->open[p];
	}
	free(fill);
}

static int make_graph(builder *b, uint32_t target, const shape *sh)
{
	uint32_t tracks = sh->cpu_threads + sh->streams;
	b->cap_n = target + 16;
	b->cap_m = target / 4 + 16;
	b->time = malloc(b->cap_n * sizeof *b->time);
	b->track = malloc(b->cap_n * sizeof *b->track);
	b->open = malloc(b->cap_n);
	b->chain = malloc(b->cap_n * sizeof *b->chain);
	b->work = malloc(b->cap_n);
	b->chain_start = malloc((tracks + 1) * sizeof *b->chain_start);
	b->src = malloc(b->cap_m * sizeof *b->src);
	b->dst = malloc(b->cap_m * sizeof *b->dst);
	b->kind = malloc(b->cap_m);
	cpu_state *cs = calloc(sh->cpu_threads, sizeof *cs);
	stream_state *ss = calloc(sh->streams, sizeof *ss);
	if (!b->time || !b->track || !b->open || !b->chain || !b->work || !b->chain_start || !b->src || !b->dst ||
	    !b->kind || !cs || !ss)
		return -1;
	for (uint32_t c = 0; c < sh->cpu_threads; c++)
		cs[c].latest_kernel_end = UINT32_MAX;
	/* the thread furthest behind goes next, so streams fill in time order */
	while (b->n + 11 <= target) {
		uint32_t c = 0;
		for (uint32_t k = 1; k < sh->cpu_threads; k++)
			if (cs[k].now < cs[c].now)
				c = k;
		emit_op(b, sh, c, &cs[c], ss);
	}
	build_chains(b, tracks);
	int64_t latest = 0;
	for (uint32_t p = 0; p < b->n; p++)
		latest = b->time[p] > latest ? b->time[p] : latest;
	b->g = (gt_cpm_graph){.n = b->n, .time = b->time, .tracks = tracks, .chain = b->chain,
			      .chain_start = b->chain_start, .work = b->work, .m = b->m, .edge_src = b->src,
			      .edge_dst = b->dst, .edge_kind = b->kind, .horizon = latest};
	free(cs);
	free(ss);
	return 0;
}

static void builder_free(builder *b)
{
	free(b->time);
	free(b->track);
	free(b->open);
	free(b->chain);
	free(b->work);
	free(b->chain_start);
	free(b->src);
	free(b->dst);
	free(b->kind);
}

/* --- results --------------------------------------------------------------------- */

typedef struct {
	gt_cpm_binding b;
	int64_t *lt;
} results;

static int results_alloc(results *r, uint32_t n)
{
	r->b.parent = malloc((size_t)n * sizeof *r->b.parent);
	r->b.gap = malloc((size_t)n * sizeof *r->b.gap);
	r->b.kind = malloc(n);
	r->b.edge = malloc((size_t)n * sizeof *r->b.edge);
	r->lt = malloc((size_t)n * sizeof *r->lt);
	return r->b.parent && r->b.gap && r->b.kind && r->b.edge && r->lt ? 0 : -1;
}

static void results_free(results *r)
{
	free(r->b.parent);
	free(r->b.gap);
	free(r->b.kind);
	free(r->b.edge);
	free(r->lt);
}

static bool same(const results *a, const results *b, uint32_t n)
{
	return memcmp(a->b.parent, b->b.parent, (size_t)n * sizeof *a->b.parent) == 0 &&
	       memcmp(a->b.gap, b->b.gap, (size_t)n * sizeof *a->b.gap) == 0 &&
	       memcmp(a->b.kind, b->b.kind, n) == 0 &&
	       memcmp(a->b.edge, b->b.edge, (size_t)n * sizeof *a->b.edge) == 0 &&
	       memcmp(a->lt, b->lt, (size_t)n * sizeof *a->lt) == 0;
}

static int bench_host(const gt_cpm_graph *g, int runs, bool print, results *ref, gt_error *err)
{
	double bind[100], flt[100];
	for (int r = 0; r < runs; r++) {
		double t0 = now_s();
		if (gt_cpm_bind_host(g, &ref->b, err) < 0)
			return -1;
		double t1 = now_s();
		if (gt_cpm_float_host(g, ref->lt, NULL, err) < 0)
			return -1;
		bind[r] = t1 - t0;
		flt[r] = now_s() - t1;
	}
	double b = median(bind, runs), f = median(flt, runs);
	if (!print)
		return 0;
	printf("{\"bench\":\"cpm\",\"points\":%u,\"cross_edges\":%u,\"tracks\":%u,\"device\":\"host\",\"runs\":%d,"
	       "\"bind_ms\":%.3f,\"float_ms\":%.3f,\"total_ms\":%.3f,\"points_per_s\":%.0f}\n",
	       g->n, g->m, g->tracks, runs, b * 1e3, f * 1e3, (b + f) * 1e3, g->n / (b + f));
	fflush(stdout);
	return 0;
}

static int bench_device(gt_cl *cl, const gt_cpm_graph *g, int runs, const results *ref, results *out,
			gt_error *err)
{
	double bind_dev[100], flt_dev[100], bind_wall[100], flt_wall[100];
	gt_cpm_cl_stats bs = {0}, fst = {0};
	gt_cpm_float_stats fs = {0};
	/* one untimed run: program build, first-use compilation; and the check */
	if (gt_cpm_bind_cl(cl, g, &out->b, &bs, err) < 0 || gt_cpm_float_cl(cl, g, out->lt, &fs, &fst, err) < 0)
		return -1;
	bool equal = same(ref, out, g->n);
	for (int r = 0; r < runs; r++) {
		double t0 = now_s();
		if (gt_cpm_bind_cl(cl, g, &out->b, &bs, err) < 0)
			return -1;
		double t1 = now_s();
		if (gt_cpm_float_cl(cl, g, out->lt, &fs, &fst, err) < 0)
			return -1;
		bind_wall[r] = t1 - t0;
		flt_wall[r] = now_s() - t1;
		bind_dev[r] = (double)bs.kernel_ns * 1e-9;
		flt_dev[r] = (double)fst.kernel_ns * 1e-9;
	}
	double bd = median(bind_dev, runs), fd = median(flt_dev, runs);
	printf("{\"bench\":\"cpm\",\"points\":%u,\"cross_edges\":%u,\"tracks\":%u,\"device\":\"%s\",\"runs\":%d,"
	       "\"bind_device_ms\":%.3f,\"float_device_ms\":%.3f,\"total_device_ms\":%.3f,\"rounds\":%u,"
	       "\"float_cuts\":%u,\"float_width\":%u,\"float_launches\":%u,\"float_bytes_moved\":%" PRIu64 ",\"bind_wall_ms\":%.3f,\"float_wall_ms\":%.3f,"
	       "\"same_as_host\":%s}\n",
	       g->n, g->m, g->tracks, gt_cl_device_name(cl), runs, bd * 1e3, fd * 1e3, (bd + fd) * 1e3, fs.rounds,
	       fs.cuts, fs.width, fst.launches, fst.bytes_moved, median(bind_wall, runs) * 1e3, median(flt_wall, runs) * 1e3,
	       equal ? "true" : "false");
	fflush(stdout);
	return equal ? 0 : 1;
}

int main(int argc, char **argv)
{
	int runs = 5;
	const char *only = NULL;
	bool host = true;
	shape sh = {.cpu_threads = 8, .streams = 4, .sync_every = 64};
	uint32_t sizes[16];
	int nsizes = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			sh.cpu_threads = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--streams") == 0 && i + 1 < argc)
			sh.streams = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--sync-every") == 0 && i + 1 < argc)
			sh.sync_every = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--no-host") == 0)
			host = false;
		else if (argv[i][0] != '-' && nsizes < 16)
			sizes[nsizes++] = (uint32_t)strtoul(argv[i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_cpm [--runs R] [--threads C] [--streams S] [--sync-every P] "
					"[--no-host] [--device SPEC] N...\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 100)
		runs = 5;
	if (!sh.cpu_threads || !sh.streams || !sh.sync_every) {
		fprintf(stderr, "bench_cpm: --threads, --streams and --sync-every must be positive\n");
		return 2;
	}
	if (nsizes == 0)
		sizes[nsizes++] = 1000000;

	gt_error err = {0};
	gt_cl_device_info *infos;
	size_t ndev;
	if (gt_cl_list(&infos, &ndev, &err) < 0) {
		fprintf(stderr, "bench_cpm: %s\n", err.msg);
		return 3;
	}
	if (bench_devices_check("bench_cpm", infos, ndev, only) < 0) {
		free(infos);
		return 2;
	}
	int status = 0;
	for (int s = 0; s < nsizes && status == 0; s++) {
		builder b = {0};
		results ref, out;
		if (make_graph(&b, sizes[s], &sh) < 0 || results_alloc(&ref, b.n) < 0 || results_alloc(&out, b.n) < 0) {
			fprintf(stderr, "bench_cpm: out of memory for %u points\n", sizes[s]);
			return 1;
		}
		/* the reference, timed or not */
		if (bench_host(&b.g, host ? runs : 1, host, &ref, &err) < 0) {
			fprintf(stderr, "bench_cpm: %s\n", err.msg);
			return 1;
		}
		for (size_t d = 0; d < ndev && status == 0; d++) {
			char spec[32];
			snprintf(spec, sizeof spec, "%zu", d);
			if (!bench_device_wanted(infos, d, only))
				continue;
			gt_cl *cl;
			if (gt_cl_open(&cl, spec, NULL, 0, &err) < 0) {
				fprintf(stderr, "bench_cpm: %s\n", err.msg);
				return 3;
			}
			int rc = bench_device(cl, &b.g, runs, &ref, &out, &err);
			if (rc < 0) {
				fprintf(stderr, "bench_cpm: %s\n", err.msg);
				status = 3;
			} else if (rc > 0) {
				fprintf(stderr, "bench_cpm: %s differs from the host reference on %u points\n",
					gt_cl_device_name(cl), b.n);
				status = 1;
			}
			gt_cl_close(cl);
		}
		results_free(&ref);
		results_free(&out);
		builder_free(&b);
	}
	free(infos);
	return status;
}
