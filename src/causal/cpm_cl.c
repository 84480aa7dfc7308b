/* Binding and CPM float on an OpenCL device (kernels/cpm.cl).
 *
 * Binding. The host sorts the cross edges by target (a counting sort,
 * O(n + m), stable, so each target's edges keep their input order). One
 * work-item per chain position i takes point v = chain[i], starts from its
 * chain predecessor chain[i-1] (unless i heads its track) and keeps the
 * best of its cross in-edges by the contract's key (latest source, chain <
 * flow < wait, lowest source, lowest edge index). Launches: mark the track
 * heads and tails, bind.
 *
 * Float. LT lives by chain position, so each track is a contiguous segment.
 * The host builds a CSR of the cross edges by source position (counting
 * sort), with targets as positions: every position reduces its own
 * out-edges, and no 64-bit atomics are needed. LT starts at T of the
 * position's track (a per-track array; setup finds the track by a binary
 * search and leaves it in a tail's lag as -1 - track). A round:
 *   1. relax_reduce: c_i = min(T at a track's tail, min over i's cross
 *      out-edges of LT(dst)) (T reaches the other positions through the
 *      chain: lags are >= 0);
 *      then each work-group (L work-items of ITEMS positions each) composes
 *      its positions' links (below) into one;
 *   2. scan_groups: one work-group scans the groups' links from the right:
 *      the LT entering each group from its right neighbour;
 *   3. scan_apply: within each group the same suffix scan, from that
 *      entering LT: every position's new LT, written where it changed, and
 *      a flag set when any did.
 * Steps 2 and 3 are the per-track backward segmented suffix-min scan
 *   LT(p_i) = S_i + min over j >= i on the track of (c_j - S_j),
 * S the track's prefix sum of lags (work gap or 0), computed as a
 * composition of links: position i maps x = LT(p_{i+1}) to min(c_i, x -
 * lag_i), or to c_i at the track's tail. Links compose to min(a, x - b)
 * (or a constant), exactly and associatively, with no intermediate below
 * T - 2 * span (gt_cpm_check_float asks that to fit in int64).
 * Rounds repeat until one changes nothing; fs->rounds counts them all, the
 * last included. Values start at T and only decrease, each round applying
 * the monotone LT operator in full (Jacobi: relax reads the previous
 * round's LT), so they reach the greatest fixed point at most T, which is
 * what the host's single pass computes: byte-identical. Round r is exact
 * for every point whose best path crosses at most r - 1 cross edges; a best
 * path never needs an edge twice (cycles are zero-gap), so at most m + 2
 * rounds run. Per round: 3 launches, a 4-byte fill and a 4-byte read.
 *
 * Cost: rounds times one pass over the positions. A round carries LT
 * across one cross edge, so the rounds follow the cross edges on the best
 * paths, not the size: a few where the CPU side decides (bench_cpm: 15 at
 * 1M points), but a trace whose best paths alternate between threads and
 * streams at every synchronize needs about two rounds per synchronize
 * (bench_cpm --streams 32: 541 at 1M points). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cpm.h"
#include "base/base.h"

#define ITEMS 8                     /* positions per work-item, as in the kernel */
#define DEVICE_MAX_POINTS (1u << 31) /* positions times ITEMS fit a uint */
#define CHANGED_BYTES 4

struct run {
	gt_cl *cl;
	cl_command_queue q;
	size_t local;
	gt_cl_events events;
	uint32_t launches;
	uint64_t bytes;
	gt_error *err;
};

/* Launches k with global size items rounded up to local; bytes is what it
 * moves, for the statistics. */
static int launch(struct run *r, cl_kernel k, const char *name, uint64_t items, size_t local, uint64_t bytes)
{
	size_t global = (size_t)((items + local - 1) / local * local);
	if (global == 0)
		return 0;
	if (gt_cl_launch(r->cl, k, name, global, local, &r->events, r->err) < 0)
		return -1;
	r->launches++;
	r->bytes += bytes;
	return 0;
}

static int set_args(struct run *r, cl_kernel k, const char *name, int nargs, ...)
{
	va_list ap;
	va_start(ap, nargs);
	for (int i = 0; i < nargs; i++) {
		size_t size = va_arg(ap, size_t);
		const void *value = va_arg(ap, const void *);
		cl_int rc = clSetKernelArg(k, (cl_uint)i, size, value);
		if (rc == CL_SUCCESS && gt_fault_hit("cl"))
			rc = CL_INVALID_ARG_VALUE;
		if (rc != CL_SUCCESS) {
			va_end(ap);
			return gt_fail(r->err, GT_EDEVICE, "clSetKernelArg (%s, %d) failed: %s (%d) on '%s'", name, i,
				       gt_cl_error_name(rc), (int)rc, gt_cl_device_name(r->cl));
		}
	}
	va_end(ap);
	return 0;
}
#define ARG(x) sizeof(x), (const void *)&(x)
#define LOCAL_ARG(bytes) (size_t)(bytes), (const void *)NULL

static void run_free(struct run *r, cl_mem *b, int nb, cl_kernel *k, int nk)
{
	gt_cl_events_release(&r->events);
	for (int i = 0; i < nb; i++)
		if (b[i])
			clReleaseMemObject(b[i]);
	for (int i = 0; i < nk; i++)
		if (k[i])
			clReleaseKernel(k[i]);
}

static void fill_stats(const struct run *r, gt_cpm_cl_stats *stats)
{
	if (!stats)
		return;
	stats->kernel_ns += gt_cl_events_ns(&r->events);
	stats->launches = r->launches;
	stats->bytes_moved = r->bytes;
}

static int get_kernels(struct run *r, const char *const *names, cl_kernel *k, int nk)
{
	for (int i = 0; i < nk; i++)
		if (gt_cl_kernel(r->cl, "cpm", names[i], &k[i], r->err) < 0)
			return -1;
	return 0;
}

/* Creates buffers of the given sizes (0 becomes 8: OpenCL refuses empty
 * ones) once they fit the device. */
static int create_buffers(struct run *r, const uint64_t *sizes, cl_mem *b, int nb, const char *what, uint32_t n)
{
	uint64_t total = 0, biggest = 0;
	for (int i = 0; i < nb; i++) {
		total += sizes[i];
		biggest = sizes[i] > biggest ? sizes[i] : biggest;
	}
	if (biggest > gt_cl_max_alloc(r->cl) || total > gt_cl_global_mem(r->cl)) {
		gt_fail(r->err, GT_EDEVICE,
			"%s of %u points needs %llu bytes of device memory in buffers up to %llu bytes; "
			"'%s' has %llu bytes with allocations up to %llu bytes",
			what, n, (unsigned long long)total, (unsigned long long)biggest, gt_cl_device_name(r->cl),
			(unsigned long long)gt_cl_global_mem(r->cl), (unsigned long long)gt_cl_max_alloc(r->cl));
		r->err->cause = GT_CAUSE_DEVICE_MEMORY;
		return -1;
	}
	for (int i = 0; i < nb; i++) {
		cl_int e;
		b[i] = clCreateBuffer(gt_cl_context(r->cl), CL_MEM_READ_WRITE, (size_t)(sizes[i] ? sizes[i] : 8), NULL,
				      &e);
		if (gt_cl_check(r->cl, e, "clCreateBuffer", r->err) < 0)
			return -1;
	}
	return 0;
}

static int upload(struct run *r, cl_mem b, const void *src, uint64_t size)
{
	if (!size)
		return 0;
	cl_int e = clEnqueueWriteBuffer(r->q, b, CL_FALSE, 0, (size_t)size, src, 0, NULL, NULL);
	return gt_cl_check(r->cl, e, "clEnqueueWriteBuffer", r->err);
}

static int download(struct run *r, cl_mem b, void *dst, uint64_t size, bool blocking)
{
	if (!size)
		return 0;
	cl_int e = clEnqueueReadBuffer(r->q, b, blocking ? CL_TRUE : CL_FALSE, 0, (size_t)size, dst, 0, NULL, NULL);
	return gt_cl_check(r->cl, e, "clEnqueueReadBuffer", r->err);
}

static size_t pow2_floor(size_t v)
{
	size_t p = 1;
	while (p * 2 <= v)
		p *= 2;
	return p;
}

/* The work-group size: 256 or what the device, the kernels and local
 * memory (per_item bytes a work-item) allow; a power of two. */
static int choose_local(struct run *r, const cl_kernel *k, int nk, size_t per_item)
{
	size_t local = 256;
	if (gt_cl_max_work_group(r->cl) < local)
		local = gt_cl_max_work_group(r->cl);
	for (int i = 0; i < nk; i++) {
		size_t kwg = 0;
		cl_int rc = clGetKernelWorkGroupInfo(k[i], gt_cl_device(r->cl), CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg,
						     &kwg, NULL);
		if (gt_cl_check(r->cl, rc, "clGetKernelWorkGroupInfo", r->err) < 0)
			return -1;
		if (kwg && kwg < local)
			local = kwg;
	}
	cl_ulong local_mem = 0;
	cl_int rc = clGetDeviceInfo(gt_cl_device(r->cl), CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
	if (gt_cl_check(r->cl, rc, "clGetDeviceInfo", r->err) < 0)
		return -1;
	while (per_item && local > 1 && local * per_item + 64 > local_mem)
		local /= 2;
	r->local = pow2_floor(local ? local : 1);
	return 0;
}

/* --- host-side preparation: counting sorts --------------------------------------- */

/* Cross edges by target point, stable: slot s holds edge in_edge[s]. */
typedef struct {
	uint32_t *start; /* n + 1 */
	uint32_t *src, *edge;
	uint8_t *kind;
} by_target;

static void by_target_free(by_target *t)
{
	free(t->start);
	free(t->src);
	free(t->edge);
	free(t->kind);
}

static int by_target_build(const gt_cpm_graph *g, by_target *t, gt_error *err)
{
	size_t m = g->m ? g->m : 1;
	t->start = gt_fault_hit("alloc") ? NULL : calloc((size_t)g->n + 1, sizeof *t->start);
	t->src = gt_fault_hit("alloc") ? NULL : malloc(m * sizeof *t->src);
	t->edge = gt_fault_hit("alloc") ? NULL : malloc(m * sizeof *t->edge);
	t->kind = gt_fault_hit("alloc") ? NULL : malloc(m);
	if (!t->start || !t->src || !t->edge || !t->kind)
		return gt_fail(err, GT_EDEVICE, "out of memory sorting %u cross edges for the device", g->m);
	for (uint32_t e = 0; e < g->m; e++)
		t->start[g->edge_dst[e] + 1]++;
	for (uint32_t v = 0; v < g->n; v++)
		t->start[v + 1] += t->start[v];
	for (uint32_t e = 0; e < g->m; e++) {
		uint32_t s = t->start[g->edge_dst[e]]++;
		t->src[s] = g->edge_src[e];
		t->edge[s] = e;
		t->kind[s] = g->edge_kind[e];
	}
	/* The scatter advanced each start to the next one's: shift back. */
	memmove(t->start + 1, t->start, (size_t)g->n * sizeof *t->start);
	t->start[0] = 0;
	return 0;
}

/* Cross edges by source position, with targets as positions. */
typedef struct {
	uint32_t *start; /* n + 1 */
	uint32_t *dst;
} by_source;

static void by_source_free(by_source *s)
{
	free(s->start);
	free(s->dst);
}

static int by_source_build(const gt_cpm_graph *g, by_source *s, gt_error *err)
{
	uint32_t *pos = gt_fault_hit("alloc") ? NULL : malloc((size_t)g->n * sizeof *pos);
	s->start = gt_fault_hit("alloc") ? NULL : calloc((size_t)g->n + 1, sizeof *s->start);
	s->dst = gt_fault_hit("alloc") ? NULL : malloc((g->m ? g->m : 1) * sizeof *s->dst);
	if (!pos || !s->start || !s->dst) {
		free(pos);
		return gt_fail(err, GT_EDEVICE, "out of memory sorting %u cross edges for the device", g->m);
	}
	for (uint32_t i = 0; i < g->n; i++)
		pos[g->chain[i]] = i;
	for (uint32_t e = 0; e < g->m; e++)
		s->start[pos[g->edge_src[e]] + 1]++;
	for (uint32_t i = 0; i < g->n; i++)
		s->start[i + 1] += s->start[i];
	for (uint32_t e = 0; e < g->m; e++)
		s->dst[s->start[pos[g->edge_src[e]]]++] = pos[g->edge_dst[e]];
	memmove(s->start + 1, s->start, (size_t)g->n * sizeof *s->start);
	s->start[0] = 0;
	free(pos);
	return 0;
}

static int device_fits(gt_cl *cl, const gt_cpm_graph *g, const char *what, gt_error *err)
{
	if (g->n > DEVICE_MAX_POINTS)
		return gt_fail(err, GT_EDEVICE, "%s: %u points exceed the device limit of %u on '%s'", what, g->n,
			       DEVICE_MAX_POINTS, gt_cl_device_name(cl));
	return 0;
}

/* pos_flags from work: the kernel adds the heads and tails. */
static int mark_tracks(struct run *r, cl_kernel k, const gt_cpm_graph *g, cl_mem chain_start, cl_mem flags)
{
	cl_uint tracks = g->tracks;
	if (set_args(r, k, "cpm_mark_tracks", 3, ARG(tracks), ARG(chain_start), ARG(flags)) < 0)
		return -1;
	return launch(r, k, "cpm_mark_tracks", tracks, r->local, 8ull * tracks + 2ull * tracks);
}

/* --- binding ----------------------------------------------------------------------- */

enum { BK_MARK, BK_BIND, BK_COUNT };
static const char *const bind_kernel_names[BK_COUNT] = {"cpm_mark_tracks", "cpm_bind"};

enum { BB_CHAIN, BB_FLAGS, BB_TIME, BB_STARTS, BB_IN_START, BB_IN_SRC, BB_IN_EDGE, BB_IN_KIND, BB_PARENT,
       BB_GAP, BB_KIND, BB_EDGE, BB_COUNT };

static int bind_on_device(struct run *r, const gt_cpm_graph *g, const by_target *t, cl_kernel *k, cl_mem *b,
			  gt_cpm_binding *out)
{
	uint64_t n = g->n, m = g->m;
	const uint64_t sizes[BB_COUNT] = {
		[BB_CHAIN] = 4 * n, [BB_FLAGS] = n, [BB_TIME] = 8 * n, [BB_STARTS] = 4ull * (g->tracks + 1),
		[BB_IN_START] = 4 * (n + 1), [BB_IN_SRC] = 4 * m, [BB_IN_EDGE] = 4 * m, [BB_IN_KIND] = m,
		[BB_PARENT] = 4 * n, [BB_GAP] = 8 * n, [BB_KIND] = n, [BB_EDGE] = 4 * n,
	};
	if (create_buffers(r, sizes, b, BB_COUNT, "binding", g->n) < 0)
		return -1;
	const void *src[BB_COUNT] = {
		[BB_CHAIN] = g->chain, [BB_FLAGS] = g->work, [BB_TIME] = g->time, [BB_STARTS] = g->chain_start,
		[BB_IN_START] = t->start, [BB_IN_SRC] = t->src, [BB_IN_EDGE] = t->edge, [BB_IN_KIND] = t->kind,
	};
	for (int i = 0; i <= BB_IN_KIND; i++)
		if (upload(r, b[i], src[i], sizes[i]) < 0)
			return -1;
	if (mark_tracks(r, k[BK_MARK], g, b[BB_STARTS], b[BB_FLAGS]) < 0)
		return -1;
	cl_uint un = g->n;
	if (set_args(r, k[BK_BIND], "cpm_bind", 12, ARG(un), ARG(b[BB_CHAIN]), ARG(b[BB_FLAGS]), ARG(b[BB_TIME]),
		     ARG(b[BB_IN_START]), ARG(b[BB_IN_SRC]), ARG(b[BB_IN_EDGE]), ARG(b[BB_IN_KIND]),
		     ARG(b[BB_PARENT]), ARG(b[BB_GAP]), ARG(b[BB_KIND]), ARG(b[BB_EDGE])) < 0)
		return -1;
	/* chain, flags, predecessor and both times, the in-edge range, the
	 * outputs; per edge its slot and source time */
	uint64_t bytes = n * (4 + 1 + 4 + 8 + 8 + 8 + 17) + m * (4 + 4 + 1 + 8);
	if (launch(r, k[BK_BIND], "cpm_bind", n, r->local, bytes) < 0)
		return -1;
	if (download(r, b[BB_PARENT], out->parent, sizes[BB_PARENT], false) < 0 ||
	    download(r, b[BB_GAP], out->gap, sizes[BB_GAP], false) < 0 ||
	    download(r, b[BB_KIND], out->kind, sizes[BB_KIND], false) < 0 ||
	    download(r, b[BB_EDGE], out->edge, sizes[BB_EDGE], true) < 0)
		return -1;
	return gt_cl_check(r->cl, clFinish(r->q), "clFinish", r->err);
}

int gt_cpm_bind_cl(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_cpm_cl_stats *stats, gt_error *err)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (gt_cpm_check(g, err) < 0 || device_fits(cl, g, "binding", err) < 0)
		return -1;
	if (g->n == 0)
		return 0;
	struct run r = {.cl = cl, .q = gt_cl_queue(cl), .err = err};
	cl_kernel k[BK_COUNT] = {0};
	cl_mem b[BB_COUNT] = {0};
	by_target t = {0};
	int rc = -1;
	if (by_target_build(g, &t, err) < 0 || get_kernels(&r, bind_kernel_names, k, BK_COUNT) < 0 ||
	    choose_local(&r, k, BK_COUNT, 0) < 0)
		goto done;
	rc = bind_on_device(&r, g, &t, k, b, out);
	if (rc == 0)
		fill_stats(&r, stats);
done:
	if (rc < 0)
		clFinish(r.q); /* nothing may still use the caller's arrays */
	run_free(&r, b, BB_COUNT, k, BK_COUNT);
	by_target_free(&t);
	return rc;
}

/* --- float -------------------------------------------------------------------------- */

enum { FK_MARK, FK_SETUP, FK_RELAX, FK_GROUPS, FK_APPLY, FK_SCATTER, FK_COUNT };
static const char *const float_kernel_names[FK_COUNT] = {
	"cpm_mark_tracks", "cpm_float_setup", "cpm_relax_reduce", "cpm_scan_groups", "cpm_scan_apply", "cpm_scatter",
};

enum { FB_CHAIN, FB_FLAGS, FB_TIME, FB_STARTS, FB_OUT_START, FB_OUT_DST, FB_HORIZON, FB_LAG, FB_LT, FB_C,
       FB_AGG_A, FB_AGG_B, FB_AGG_F, FB_ENTER, FB_CHANGED, FB_COUNT };

/* Link scratch per work-item: a, b (long) and f (int). */
#define LINK_BYTES (8 + 8 + 4)

typedef struct {
	const gt_cpm_graph *g;
	cl_kernel *k;
	cl_mem *b;
	cl_uint n, groups, tracks;
	const int64_t *horizon; /* T per track */
} float_job;

static int float_setup(struct run *r, const float_job *j, const by_source *s)
{
	const gt_cpm_graph *g = j->g;
	uint64_t n = g->n, m = g->m, groups = j->groups;
	const uint64_t sizes[FB_COUNT] = {
		[FB_CHAIN] = 4 * n, [FB_FLAGS] = n, [FB_TIME] = 8 * n, [FB_STARTS] = 4ull * (g->tracks + 1),
		[FB_OUT_START] = 4 * (n + 1), [FB_OUT_DST] = 4 * m, [FB_HORIZON] = 8ull * g->tracks,
		[FB_LAG] = 8 * n, [FB_LT] = 8 * n,
		[FB_C] = 8 * n, [FB_AGG_A] = 8 * groups, [FB_AGG_B] = 8 * groups, [FB_AGG_F] = 4 * groups,
		[FB_ENTER] = 8 * groups, [FB_CHANGED] = CHANGED_BYTES,
	};
	cl_mem *b = j->b;
	if (create_buffers(r, sizes, b, FB_COUNT, "float", g->n) < 0)
		return -1;
	const void *src[FB_COUNT] = {
		[FB_CHAIN] = g->chain, [FB_FLAGS] = g->work, [FB_TIME] = g->time, [FB_STARTS] = g->chain_start,
		[FB_OUT_START] = s->start, [FB_OUT_DST] = s->dst, [FB_HORIZON] = j->horizon,
	};
	for (int i = 0; i <= FB_HORIZON; i++)
		if (upload(r, b[i], src[i], sizes[i]) < 0)
			return -1;
	if (mark_tracks(r, j->k[FK_MARK], g, b[FB_STARTS], b[FB_FLAGS]) < 0)
		return -1;
	if (set_args(r, j->k[FK_SETUP], "cpm_float_setup", 9, ARG(j->n), ARG(j->tracks), ARG(b[FB_STARTS]),
		     ARG(b[FB_HORIZON]), ARG(b[FB_CHAIN]), ARG(b[FB_FLAGS]), ARG(b[FB_TIME]), ARG(b[FB_LAG]),
		     ARG(b[FB_LT])) < 0)
		return -1;
	return launch(r, j->k[FK_SETUP], "cpm_float_setup", n, r->local, n * (1 + 4 + 4 + 8 + 8 + 8 + 8 + 8));
}

/* Arguments that stay the same every round. */
static int set_round_args(struct run *r, const float_job *j)
{
	cl_mem *b = j->b;
	size_t scratch = r->local * 8, flags = r->local * 4;
	return set_args(r, j->k[FK_RELAX], "cpm_relax_reduce", 13, ARG(j->n), ARG(b[FB_HORIZON]), ARG(b[FB_OUT_START]),
			ARG(b[FB_OUT_DST]), ARG(b[FB_LAG]), ARG(b[FB_LT]), ARG(b[FB_C]), ARG(b[FB_AGG_A]),
			ARG(b[FB_AGG_B]), ARG(b[FB_AGG_F]), LOCAL_ARG(scratch), LOCAL_ARG(scratch),
			LOCAL_ARG(flags)) < 0 ||
	       set_args(r, j->k[FK_GROUPS], "cpm_scan_groups", 8, ARG(j->groups), ARG(b[FB_AGG_A]), ARG(b[FB_AGG_B]),
			ARG(b[FB_AGG_F]), ARG(b[FB_ENTER]), LOCAL_ARG(scratch), LOCAL_ARG(scratch),
			LOCAL_ARG(flags)) < 0 ||
	       set_args(r, j->k[FK_APPLY], "cpm_scan_apply", 9, ARG(j->n), ARG(b[FB_C]), ARG(b[FB_LAG]),
			ARG(b[FB_ENTER]), ARG(b[FB_LT]), ARG(b[FB_CHANGED]), LOCAL_ARG(scratch), LOCAL_ARG(scratch),
			LOCAL_ARG(flags)) < 0
		       ? -1
		       : 0;
}

/* One round; *changed says whether any LT moved. */
static int float_round(struct run *r, const float_job *j, bool *changed)
{
	uint64_t n = j->n, m = j->g->m, groups = j->groups, items = groups * r->local;
	cl_int zero = 0, flag = 0;
	cl_int e = clEnqueueFillBuffer(r->q, j->b[FB_CHANGED], &zero, sizeof zero, 0, CHANGED_BYTES, 0, NULL, NULL);
	if (gt_cl_check(r->cl, e, "clEnqueueFillBuffer", r->err) < 0)
		return -1;
	/* relax: out-edge range, lag, c out; per edge its target and LT.
	 * apply: c, lag and LT read, LT written (counted as if all changed) */
	if (launch(r, j->k[FK_RELAX], "cpm_relax_reduce", items, r->local, n * 24 + m * 12 + groups * 20) < 0 ||
	    launch(r, j->k[FK_GROUPS], "cpm_scan_groups", r->local, r->local, groups * 48) < 0 ||
	    launch(r, j->k[FK_APPLY], "cpm_scan_apply", items, r->local, n * 32 + groups * 8) < 0)
		return -1;
	if (download(r, j->b[FB_CHANGED], &flag, sizeof flag, true) < 0)
		return -1;
	*changed = flag != 0;
	return 0;
}

static int float_on_device(struct run *r, const float_job *j, const by_source *s, int64_t *lt,
			   gt_cpm_float_stats *fs)
{
	if (float_setup(r, j, s) < 0 || set_round_args(r, j) < 0)
		return -1;
	uint64_t max_rounds = (uint64_t)j->g->m + 2;
	uint32_t rounds = 0;
	for (bool changed = true; changed;) {
		if (rounds == max_rounds)
			return gt_fail(r->err, GT_EDEVICE, "float did not converge in %u rounds on '%s'", rounds,
				       gt_cl_device_name(r->cl));
		if (float_round(r, j, &changed) < 0)
			return -1;
		rounds++;
	}
	/* c is free now: it receives LT by point. */
	cl_mem *b = j->b;
	if (set_args(r, j->k[FK_SCATTER], "cpm_scatter", 4, ARG(j->n), ARG(b[FB_CHAIN]), ARG(b[FB_LT]),
		     ARG(b[FB_C])) < 0 ||
	    launch(r, j->k[FK_SCATTER], "cpm_scatter", j->n, r->local, 20ull * j->n) < 0 ||
	    download(r, b[FB_C], lt, 8ull * j->n, true) < 0)
		return -1;
	if (fs)
		fs->rounds = rounds;
	return 0;
}

int gt_cpm_float_cl(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs,
		    gt_cpm_cl_stats *stats, gt_error *err)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (gt_cpm_check_float(g, err) < 0 || device_fits(cl, g, "float", err) < 0)
		return -1;
	if (g->n == 0) {
		if (fs)
			fs->rounds = 0;
		return 0;
	}
	struct run r = {.cl = cl, .q = gt_cl_queue(cl), .err = err};
	cl_kernel k[FK_COUNT] = {0};
	cl_mem b[FB_COUNT] = {0};
	by_source s = {0};
	int64_t *horizon = gt_fault_hit("alloc") ? NULL : malloc((size_t)g->tracks * sizeof *horizon);
	int rc = -1;
	if (!horizon) {
		gt_fail(err, GT_EDEVICE, "out of memory for %u tracks' horizons", g->tracks);
		goto done;
	}
	for (uint32_t t = 0; t < g->tracks; t++)
		horizon[t] = gt_cpm_horizon(g, t);
	if (by_source_build(g, &s, err) < 0 || get_kernels(&r, float_kernel_names, k, FK_COUNT) < 0 ||
	    choose_local(&r, k, FK_COUNT, LINK_BYTES) < 0)
		goto done;
	uint64_t tile = (uint64_t)r.local * ITEMS;
	float_job j = {.g = g, .k = k, .b = b, .n = g->n, .groups = (cl_uint)((g->n + tile - 1) / tile),
		       .tracks = g->tracks, .horizon = horizon};
	rc = float_on_device(&r, &j, &s, lt, fs);
	if (rc == 0)
		fill_stats(&r, stats);
done:
	if (rc < 0)
		clFinish(r.q);
	run_free(&r, b, FB_COUNT, k, FK_COUNT);
	by_source_free(&s);
	free(horizon);
	return rc;
}

int gt_cpm_bind_run(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	if (cl)
		return gt_cpm_bind_cl(cl, g, out, NULL, err);
	return gt_cpm_bind_host(g, out, err);
}

int gt_cpm_float_run(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs, gt_error *err)
{
	if (cl)
		return gt_cpm_float_cl(cl, g, lt, fs, NULL, err);
	return gt_cpm_float_host(g, lt, fs, err);
}
