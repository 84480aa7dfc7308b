/* Binding and CPM float on an OpenCL device (kernels/cpm.cl).
 *
 * Binding. The device links each point's cross in-edges into a list (one
 * atomic exchange per edge, in no fixed order). One work-item per chain
 * position i takes point v = chain[i], starts from its chain predecessor
 * chain[i-1] (unless i heads its track) and keeps the best of its cross
 * in-edges by the contract's key (latest source, chain < flow < wait,
 * lowest source, lowest edge index): a total order, so the list's order
 * does not matter. Launches: link the in-edges, mark the track heads and
 * tails, bind.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "causal_times.h"
#include "cpm_cl_run.h"
#include "base/base.h"

#define DEVICE_MAX_POINTS (1u << 31) /* positions times ITEMS fit a uint */

/* Launches k with global size items rounded up to local; bytes is what it
 * moves, for the statistics. */
int cpm_launch(cpm_run *r, cl_kernel k, const char *name, uint64_t items, size_t local, uint64_t bytes)
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

int cpm_set_args(cpm_run *r, cl_kernel k, const char *name, int nargs, ...)
{
	va_list ap;
	va_start(ap, nargs);
	int rc = gt_cl_set_args_va(r->cl, k, name, 0, r->err, nargs, ap);
	va_end(ap);
	return rc;
}

void cpm_release(gt_cl *cl, cl_mem *b, int nb, cl_kernel *k, int nk)
{
	for (int i = 0; i < nb; i++)
		gt_cl_buffer_give(cl, b[i]); /* the next batch takes them */
	for (int i = 0; i < nk; i++)
		if (k[i])
			clReleaseKernel(k[i]);
}

void cpm_run_free(cpm_run *r, cl_mem *b, int nb, cl_kernel *k, int nk)
{
	gt_cl_events_release(&r->events);
	cpm_release(r->cl, b, nb, k, nk);
}

void cpm_fill_stats(const cpm_run *r, gt_cpm_cl_stats *stats)
{
	if (!stats)
		return;
	stats->kernel_ns += gt_cl_events_ns(&r->events);
	stats->launches = r->launches;
	stats->bytes_moved = r->bytes;
}

int cpm_get_kernels(cpm_run *r, const char *const *names, cl_kernel *k, int nk)
{
	for (int i = 0; i < nk; i++)
		if (gt_cl_kernel(r->cl, "cpm", names[i], &k[i], r->err) < 0)
			return -1;
	return 0;
}

/* Buffers of the given sizes (kept ones, or new: cl.h) once they fit the
 * device. */
int cpm_create_buffers(cpm_run *r, const uint64_t *sizes, cl_mem *b, int nb, const char *what, uint32_t n)
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
	for (int i = 0; i < nb; i++)
		if (gt_cl_buffer_take(r->cl, sizes[i], &b[i], r->err) < 0)
			return -1;
	return 0;
}

int cpm_upload(cpm_run *r, cl_mem b, const void *src, uint64_t size)
{
	if (!size)
		return 0;
	cl_int e = clEnqueueWriteBuffer(r->q, b, CL_FALSE, 0, (size_t)size, src, 0, NULL, NULL);
	return gt_cl_check(r->cl, e, "clEnqueueWriteBuffer", r->err);
}

int cpm_download(cpm_run *r, cl_mem b, void *dst, uint64_t size, bool blocking)
{
	if (!size)
		return 0;
	gt_touch_pages(dst, (size_t)size); /* the steps' arrays are often fresh */
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
int cpm_choose_local(cpm_run *r, const cl_kernel *k, int nk, size_t per_item)
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

/* --- host-side preparation: a counting sort --------------------------------------- */

void cpm_by_source_free(by_source *s)
{
	free(s->start);
	free(s->dst);
}

int cpm_by_source_build(const gt_cpm_graph *g, by_source *s, gt_error *err)
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

int cpm_device_fits(gt_cl *cl, const gt_cpm_graph *g, const char *what, gt_error *err)
{
	if (g->n > DEVICE_MAX_POINTS)
		return gt_fail(err, GT_EDEVICE, "%s: %u points exceed the device limit of %u on '%s'", what, g->n,
			       DEVICE_MAX_POINTS, gt_cl_device_name(cl));
	return 0;
}

/* pos_flags from work: the kernel adds the heads and tails. */
int cpm_mark_tracks(cpm_run *r, cl_kernel k, const gt_cpm_graph *g, cl_mem chain_start, cl_mem flags)
{
	cl_uint tracks = g->tracks;
	if (cpm_set_args(r, k, "cpm_mark_tracks", 3, ARG(tracks), ARG(chain_start), ARG(flags)) < 0)
		return -1;
	return cpm_launch(r, k, "cpm_mark_tracks", tracks, r->local, 8ull * tracks + 2ull * tracks);
}

/* --- binding ----------------------------------------------------------------------- */

enum { BK_LINK, BK_MARK, BK_BIND, BK_COUNT };
static const char *const bind_kernel_names[BK_COUNT] = {"cpm_link_in_edges", "cpm_mark_tracks", "cpm_bind"};

enum { BB_CHAIN, BB_FLAGS, BB_TIME, BB_STARTS, BB_EDGE_SRC, BB_EDGE_DST, BB_EDGE_KIND, BB_IN_HEAD, BB_IN_NEXT,
       BB_PARENT, BB_GAP, BB_KIND, BB_EDGE, BB_COUNT };

static int bind_on_device(cpm_run *r, const gt_cpm_graph *g, cl_kernel *k, cl_mem *b, gt_cpm_binding *out,
			  cpm_after_bind after, void *ctx, const gt_cpm_read_hook *read)
{
	uint64_t n = g->n, m = g->m;
	const uint64_t sizes[BB_COUNT] = {
		[BB_CHAIN] = 4 * n, [BB_FLAGS] = n, [BB_TIME] = 8 * n, [BB_STARTS] = 4ull * (g->tracks + 1),
		[BB_EDGE_SRC] = 4 * m, [BB_EDGE_DST] = 4 * m, [BB_EDGE_KIND] = m, [BB_IN_HEAD] = 4 * n,
		[BB_IN_NEXT] = 4 * m, [BB_PARENT] = 4 * n, [BB_GAP] = 8 * n, [BB_KIND] = n, [BB_EDGE] = 4 * n,
	};
	uint64_t t0 = causal_times_now();
	if (cpm_create_buffers(r, sizes, b, BB_COUNT, "binding", g->n) < 0)
		return -1;
	causal_times_add(CAUSAL_T_D_BUFFERS, t0);
	t0 = causal_times_now();
	const void *src[BB_COUNT] = {
		[BB_CHAIN] = g->chain,	      [BB_FLAGS] = g->work,	  [BB_TIME] = g->time,
		[BB_STARTS] = g->chain_start, [BB_EDGE_SRC] = g->edge_src, [BB_EDGE_DST] = g->edge_dst,
		[BB_EDGE_KIND] = g->edge_kind,
	};
	for (int i = 0; i <= BB_EDGE_KIND; i++)
		if (cpm_upload(r, b[i], src[i], sizes[i]) < 0)
			return -1;
	const cl_uint none = 0xffffffffu;
	if (gt_cl_check(r->cl, clEnqueueFillBuffer(r->q, b[BB_IN_HEAD], &none, sizeof none, 0, sizes[BB_IN_HEAD], 0,
						   NULL, NULL),
			"clEnqueueFillBuffer", r->err) < 0)
		return -1;
	causal_times_add(CAUSAL_T_D_UPLOAD, t0);
	t0 = causal_times_now();
	cl_uint um = g->m;
	if (cpm_set_args(r, k[BK_LINK], "cpm_link_in_edges", 4, ARG(um), ARG(b[BB_EDGE_DST]), ARG(b[BB_IN_HEAD]),
			 ARG(b[BB_IN_NEXT])) < 0 ||
	    cpm_launch(r, k[BK_LINK], "cpm_link_in_edges", m, r->local, m * (4 + 4 + 4)) < 0)
		return -1;
	if (cpm_mark_tracks(r, k[BK_MARK], g, b[BB_STARTS], b[BB_FLAGS]) < 0)
		return -1;
	cl_uint un = g->n;
	if (cpm_set_args(r, k[BK_BIND], "cpm_bind", 12, ARG(un), ARG(b[BB_CHAIN]), ARG(b[BB_FLAGS]), ARG(b[BB_TIME]),
			 ARG(b[BB_IN_HEAD]), ARG(b[BB_IN_NEXT]), ARG(b[BB_EDGE_SRC]), ARG(b[BB_EDGE_KIND]),
			 ARG(b[BB_PARENT]), ARG(b[BB_GAP]), ARG(b[BB_KIND]), ARG(b[BB_EDGE])) < 0)
		return -1;
	/* chain, flags, predecessor and both times, the list's head, the
	 * outputs; per edge its link, source, kind and source time */
	uint64_t bytes = n * (4 + 1 + 4 + 8 + 8 + 4 + 17) + m * (4 + 4 + 1 + 8);
	if (cpm_launch(r, k[BK_BIND], "cpm_bind", n, r->local, bytes) < 0)
		return -1;
	/* the caller's graph, copied and read: it may go before the results
	 * land in the caller's arrays (a whole trace peaks there); only n and
	 * the graph's times (on the device) are read after */
	if (read) {
		if (gt_cl_check(r->cl, clFinish(r->q), "clFinish", r->err) < 0 || read->read(read->arg) < 0)
			return -1;
	}
	/* the results go back while the step after runs (the queue is in
	 * order: its blocking reads wait for these too) */
	if (cpm_download(r, b[BB_PARENT], out->parent, sizes[BB_PARENT], false) < 0 ||
	    (out->gap && cpm_download(r, b[BB_GAP], out->gap, sizes[BB_GAP], false) < 0) ||
	    cpm_download(r, b[BB_KIND], out->kind, sizes[BB_KIND], false) < 0 ||
	    cpm_download(r, b[BB_EDGE], out->edge, sizes[BB_EDGE], false) < 0)
		return -1;
	int rc = after ? after(r, b[BB_PARENT], b[BB_TIME], g->n, ctx) : 0;
	if (rc < 0)
		return -1;
	rc = gt_cl_check(r->cl, clFinish(r->q), "clFinish", r->err) < 0 ? -1 : rc;
	causal_times_add(CAUSAL_T_D_STEPS, t0);
	return rc;
}

int cpm_bind_cl_then(gt_cl *cl, const gt_cpm_graph *g, bool shape_known, gt_cpm_binding *out, cpm_after_bind after,
		     void *ctx, const gt_cpm_read_hook *read, gt_cpm_cl_stats *stats, gt_error *err)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if ((shape_known ? gt_cpm_check_range(g, false, err) : gt_cpm_check(g, err)) < 0 ||
	    cpm_device_fits(cl, g, "binding", err) < 0)
		return -1;
	if (g->n == 0)
		return 0;
	cpm_run r = {.cl = cl, .q = gt_cl_queue(cl), .err = err};
	cl_kernel k[BK_COUNT] = {0};
	cl_mem b[BB_COUNT] = {0};
	int rc = -1;
	uint64_t t0 = causal_times_now();
	if (cpm_get_kernels(&r, bind_kernel_names, k, BK_COUNT) < 0 || cpm_choose_local(&r, k, BK_COUNT, 0) < 0)
		goto done;
	causal_times_add(CAUSAL_T_D_BUFFERS, t0);
	rc = bind_on_device(&r, g, k, b, out, after, ctx, read);
	if (rc >= 0)
		cpm_fill_stats(&r, stats);
done:
	if (rc < 0)
		clFinish(r.q); /* nothing may still use the caller's arrays */
	t0 = causal_times_now();
	cpm_run_free(&r, b, BB_COUNT, k, BK_COUNT);
	causal_times_add(CAUSAL_T_D_FREE, t0);
	return rc;
}

int gt_cpm_bind_cl(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_cpm_cl_stats *stats, gt_error *err)
{
	return cpm_bind_cl_then(cl, g, false, out, NULL, NULL, NULL, stats, err);
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
