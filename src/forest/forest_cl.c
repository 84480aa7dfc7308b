/* The critical path on an OpenCL device (kernels/critpath.cl): init, then
 * ceil(log2 n) + 1 pointer-jumping passes over double-buffered 16-byte
 * state records, per-row outputs with a work-group reduction that selects
 * the endpoint, further reduction levels, slack, and one bounded walk that
 * marks the path. Everything is enqueued on the in-order queue; the results
 * are read once at the end. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "forest.h"
#include "cl/cl.h"
#include "base/base.h"

#define DEVICE_MAX_ROWS (1u << 30) /* hops live in 30 bits of the state */
#define BLOCK_SHIFT 10              /* rows per busy word, as in the kernel */
#define GROUP_SHIFT 20              /* rows per group busy word */

/* Mirrors cp_best in the kernel. */
typedef struct {
	int64_t sum;
	uint32_t idx, hop, flags, pad;
} cp_best;

struct run {
	gt_cl *cl;
	cl_command_queue q;
	size_t local;       /* work-group size, a power of two */
	size_t piece;       /* rows per launch, a multiple of local */
	size_t resident;    /* work-items the device runs at once, about */
	gt_cl_events events;
	uint32_t launches;
	gt_error *err;
};

/* Launches k over count rows in pieces; argument 0 is the piece's base.
 * strided: the kernel loops over its piece with the launch's stride, so it
 * gets at most r->resident work-items, and argument 1 is the piece's end. */
static int launch_rows(struct run *r, cl_kernel k, const char *name, uint64_t count, bool strided)
{
	for (uint64_t base = 0; base < count; base += r->piece) {
		uint64_t rows = count - base < r->piece ? count - base : r->piece;
		uint64_t items = strided && rows > r->resident ? r->resident : rows;
		size_t global = (size_t)((items + r->local - 1) / r->local * r->local);
		cl_uint b = (cl_uint)base, e = (cl_uint)(base + rows);
		if (gt_cl_check(r->cl, clSetKernelArg(k, 0, sizeof b, &b), "clSetKernelArg", r->err) < 0)
			return -1;
		if (strided && gt_cl_check(r->cl, clSetKernelArg(k, 1, sizeof e, &e), "clSetKernelArg", r->err) < 0)
			return -1;
		if (gt_cl_launch(r->cl, k, name, global, r->local, &r->events, r->err) < 0)
			return -1;
		r->launches++;
	}
	return 0;
}

static int launch(struct run *r, cl_kernel k, const char *name, uint64_t count)
{
	return launch_rows(r, k, name, count, false);
}

static int set_args(struct run *r, cl_kernel k, const char *name, int first, int nargs, ...)
{
	va_list ap;
	va_start(ap, nargs);
	int rc = gt_cl_set_args_va(r->cl, k, name, first, r->err, nargs, ap);
	va_end(ap);
	return rc;
}
#define ARG(x) GT_CL_ARG(x)

enum { K_INIT, K_JUMP, K_FINALIZE, K_REDUCE, K_SLACK, K_WALK, K_COUNT };
static const char *const kernel_names[K_COUNT] = {
	"cp_init", "cp_jump", "cp_finalize", "cp_reduce", "cp_slack", "cp_walk",
};

enum { B_PARENT, B_DUR, B_ST0, B_ST1, B_PD, B_SLACK, B_ROOT, B_HOP, B_PRED, B_MASK, B_PART0, B_PART1,
       B_BUSY, B_ANY, B_GROUP_BUSY, B_CURSOR, B_COUNT };

static uint32_t pass_count(uint32_t n)
{
	uint32_t p = 0;
	while (p < 32 && ((uint64_t)1 << p) < n)
		p++;
	return p + 1; /* ceil(log2 n) + 1 */
}

static size_t pow2_floor(size_t v)
{
	size_t p = 1;
	while (p * 2 <= v)
		p *= 2;
	return p;
}

static int choose_sizes(struct run *r, cl_kernel *k, const gt_cp_options *opt)
{
	size_t local = 256;
	if (gt_cl_max_work_group(r->cl) < local)
		local = gt_cl_max_work_group(r->cl);
	for (int i = 0; i < K_COUNT; i++) {
		size_t kwg = 0;
		cl_int rc = clGetKernelWorkGroupInfo(k[i], gt_cl_device(r->cl), CL_KERNEL_WORK_GROUP_SIZE,
						     sizeof kwg, &kwg, NULL);
		if (gt_cl_check(r->cl, rc, "clGetKernelWorkGroupInfo", r->err) < 0)
			return -1;
		if (kwg && kwg < local)
			local = kwg;
	}
	uint64_t mr = opt ? opt->max_rows_per_pass : 0;
	if (mr && mr < local)
		local = (size_t)mr;
	r->local = pow2_floor(local ? local : 1);
	unsigned units = gt_cl_compute_units(r->cl);
	/* 2048 work-items per compute unit fill a current GPU; a CPU device
	 * just loops longer */
	uint32_t per_unit = opt && opt->items_per_unit ? opt->items_per_unit : 2048;
	r->resident = (size_t)(units ? units : 1) * per_unit;
	if (mr) {
		uint64_t piece = mr / r->local * r->local;
		r->piece = (size_t)(piece < ((uint64_t)1 << 31) ? piece : ((uint64_t)1 << 31));
	} else {
		r->piece = (size_t)1 << 31;
	}
	return 0;
}

/* What row i does in pass k: 2 jumps (a gather), 1 marks itself DONE, 0
 * nothing. A row h hops below its root jumps in passes 0..floor(log2 h) and
 * marks itself in the next; a row that did not resolve (a cycle, an invalid
 * parent) counts as jumping in every pass: an upper bound. */
static int row_work(const uint32_t *hop_count, uint64_t i, uint32_t n, uint32_t k)
{
	if (i >= n)
		return 0;
	uint32_t h = hop_count[i];
	if (h == GT_CP_NONE)
		return 2;
	uint32_t jumps = h ? 32 - (uint32_t)__builtin_clz(h) : 0; /* floor(log2 h) + 1 */
	return k < jumps ? 2 : k == jumps ? 1 : 0;
}

/* path_only: the rows of the walk from the endpoint to the root, as cp_walk
 * left them ({row, path duration} per step), written into out's arrays at
 * those rows: what the summary and the path read, and nothing else. */
static cl_int read_walk(cl_command_queue q, cl_mem hop, cl_mem pred, cl_mem walk, uint32_t endpoint, uint32_t max_len,
			gt_cp_rows *out, gt_error *err)
{
	cl_int e = clEnqueueReadBuffer(q, hop, CL_TRUE, 4ull * endpoint, 4, &out->hop_count[endpoint], 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return e;
	uint32_t len = out->hop_count[endpoint] + 1, skip = len > max_len ? len - max_len : 0;
	uint64_t *w = gt_fault_hit("alloc") ? NULL : malloc((size_t)len * 16);
	if (!w) {
		gt_fail(err, GT_EDEVICE, "out of memory reading a critical path of %u rows", len);
		return CL_OUT_OF_HOST_MEMORY;
	}
	e = clEnqueueReadBuffer(q, walk, CL_TRUE, 0, (size_t)len * 16, w, 0, NULL, NULL);
	uint32_t root = (uint32_t)w[2 * ((uint64_t)len - 1)];
	if (e == CL_SUCCESS) /* the root's own predecessor, as the passes left it */
		e = clEnqueueReadBuffer(q, pred, CL_TRUE, 4ull * root, 4, &out->critical_predecessor[root], 0, NULL,
					NULL);
	for (uint32_t k = 0; e == CL_SUCCESS && k < len; k++) {
		uint32_t row = (uint32_t)w[2 * (uint64_t)k];
		out->path_duration[row] = (int64_t)w[2 * (uint64_t)k + 1];
		if (k + 1 < len)
			out->critical_predecessor[row] = (uint32_t)w[2 * ((uint64_t)k + 1)];
		out->critical_mask[row] = k >= skip;
	}
	free(w);
	return e;
}

/* The bytes the passes moved, from the final hop counts and the busy words.
 * In each pass its block is live in, a pair of rows reads its two records
 * (32 bytes); unless both are DONE it writes them back (32 bytes), gathers
 * a record per jumping row (16 bytes) and, when a row becomes DONE, stores
 * the pair's source records too (32 bytes). *live_passes gets the number of
 * passes any block was live in. */
static uint64_t pass_bytes(const uint32_t *hop_count, uint32_t n, const uint32_t *busy, uint32_t blocks,
			   uint32_t passes, uint32_t *live_passes)
{
	uint64_t bytes = 0;
	*live_passes = 0;
	for (uint32_t blk = 0; blk < blocks; blk++) {
		uint32_t live = 1; /* pass 0 reads every block */
		while (live < passes && busy[(uint64_t)(live - 1) * blocks + blk])
			live++;
		if (live > *live_passes)
			*live_passes = live;
		uint64_t end = ((uint64_t)blk + 1) << BLOCK_SHIFT;
		for (uint64_t i = (uint64_t)blk << BLOCK_SHIFT; i < end && i < n; i += 2) {
			for (uint32_t k = 0; k < live; k++) {
				int a = row_work(hop_count, i, n, k), b = row_work(hop_count, i + 1, n, k);
				bytes += 32;
				if (a || b)
					bytes += 32 + 16 * ((a == 2) + (b == 2)) + 32 * (a == 1 || b == 1);
			}
		}
	}
	return bytes;
}

/* The other kernels' bytes, by their access pattern. */
static uint64_t other_bytes(uint64_t n, uint64_t partials)
{
	return n * 28                   /* init: parent, duration in; state out */
	       + n * 40 + partials * 24 /* finalize: state, parent in; 4 outputs; partials */
	       + n * 17;                /* slack: path_duration in; slack, mask out */
}

/* The input to the device: copied whole, or piece by piece as fill
 * produces it (the copy of one piece overlapping the filling of the next). */
static int upload_input(struct run *r, cl_mem parent_buf, cl_mem dur_buf, const uint32_t *parent,
			const int64_t *duration, uint32_t n, const gt_cp_fill *fill, gt_cp_stats *stats)
{
	uint64_t transfer_ns = 0, fill_ns = 0;
	gt_upload_column cols[] = {{parent_buf, parent, sizeof *parent}, {dur_buf, duration, sizeof *duration}};
	gt_upload *u;
	if (gt_upload_start(&u, r->cl, cols, 2, r->err) < 0)
		return -1;
	uint64_t piece = fill ? (fill->piece_rows ? fill->piece_rows : (uint64_t)1 << 22) : n;
	int rc = 0;
	for (uint64_t first = 0; first < n && rc == 0; first += piece) {
		uint64_t end = n - first < piece ? n : first + piece;
		if (fill) {
			uint64_t t0 = gt_clock_ns();
			if (fill->fill(fill->ctx, first, end) != 0)
				rc = gt_fail(r->err, GT_EDEVICE, "critical path: producing rows %llu..%llu of the input failed",
					     (unsigned long long)first, (unsigned long long)end);
			fill_ns += gt_clock_ns() - t0;
		}
		if (rc == 0)
			gt_upload_ready(u, end);
	}
	if (gt_upload_finish(u, &transfer_ns, rc == 0 ? r->err : &(gt_error){0}) < 0)
		rc = -1;
	if (stats) {
		stats->transfer_ns += transfer_ns;
		stats->fill_ns += fill_ns;
	}
	return rc;
}

int gt_critpath_cl(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
		   const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum,
		   gt_cp_stats *stats, gt_error *err)
{
	return gt_critpath_cl_fill(cl, parent, duration, n, NULL, opt, out, sum, stats, err);
}

int gt_critpath_cl_fill(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
			const gt_cp_fill *fill, const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum,
			gt_cp_stats *stats, gt_error *err)
{
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (n == 0)
		return gt_critpath_host(parent, duration, n, opt, out, sum, err);
	if (n > DEVICE_MAX_ROWS)
		return gt_fail(err, GT_EDEVICE, "critical path: %u rows exceed the device limit of %u rows on '%s'",
			       n, DEVICE_MAX_ROWS, gt_cl_device_name(cl));

	struct run r = {.cl = cl, .q = gt_cl_queue(cl), .err = err};
	cl_kernel k[K_COUNT] = {0};
	cl_mem b[B_COUNT] = {0};
	cl_event xfer[16]; /* the writes and reads, for stats->transfer_ns */
	int nxfer = 0;
	int rc = -1;
	uint32_t passes = pass_count(n);
	uint32_t max_len = opt && opt->max_path_length ? opt->max_path_length : GT_CP_NONE;

	for (int i = 0; i < K_COUNT; i++)
		if (gt_cl_kernel(cl, "critpath", kernel_names[i], &k[i], err) < 0)
			goto done;
	if (choose_sizes(&r, k, opt) < 0)
		goto done;

	uint64_t groups = ((uint64_t)n + r.local - 1) / r.local;
	uint32_t blocks = (uint32_t)(((uint64_t)n + (1u << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT);
	uint32_t busy_groups = (uint32_t)(((uint64_t)n + (1u << GROUP_SHIFT) - 1) >> GROUP_SHIFT);
	uint64_t sizes[B_COUNT] = {
		[B_PARENT] = 4ull * n, [B_DUR] = 8ull * n, [B_ST0] = 16ull * n, [B_ST1] = 16ull * n,
		[B_PD] = 8ull * n, [B_SLACK] = 8ull * n, [B_ROOT] = 4ull * n, [B_HOP] = 4ull * n,
		[B_PRED] = 4ull * n, [B_MASK] = n, [B_PART0] = groups * sizeof(cp_best),
		[B_PART1] = ((groups + 1) / 2) * sizeof(cp_best),
		[B_BUSY] = 4ull * passes * blocks, [B_ANY] = 4ull * passes,
		[B_GROUP_BUSY] = 4ull * passes * busy_groups, [B_CURSOR] = 16,
	};
	uint64_t total = 0, biggest = 0;
	for (int i = 0; i < B_COUNT; i++) {
		total += sizes[i];
		if (sizes[i] > biggest)
			biggest = sizes[i];
	}
	if (biggest > gt_cl_max_alloc(cl) || total > gt_cl_global_mem(cl)) {
		gt_fail(err, GT_EDEVICE,
			"critical path of %u rows needs %llu bytes of device memory in buffers up to %llu bytes; "
			"'%s' has %llu bytes with allocations up to %llu bytes",
			n, (unsigned long long)total, (unsigned long long)biggest, gt_cl_device_name(cl),
			(unsigned long long)gt_cl_global_mem(cl), (unsigned long long)gt_cl_max_alloc(cl));
		err->cause = GT_CAUSE_DEVICE_MEMORY;
		goto done;
	}
	for (int i = 0; i < B_COUNT; i++) {
		cl_int e;
		b[i] = clCreateBuffer(gt_cl_context(cl), CL_MEM_READ_WRITE, (size_t)sizes[i], NULL, &e);
		if (gt_cl_check(cl, e, "clCreateBuffer", err) < 0)
			goto done;
	}

	if (upload_input(&r, b[B_PARENT], b[B_DUR], parent, duration, n, fill, stats) < 0)
		goto done;
	cl_int e;
	cl_uint zero = 0;
	const int zeroed[] = {B_BUSY, B_ANY, B_GROUP_BUSY, B_CURSOR};
	for (size_t i = 0; i < sizeof zeroed / sizeof *zeroed; i++) {
		e = clEnqueueFillBuffer(r.q, b[zeroed[i]], &zero, sizeof zero, 0, sizes[zeroed[i]], 0, NULL, NULL);
		if (gt_cl_check(cl, e, "clEnqueueFillBuffer", err) < 0)
			goto done;
	}

	cl_uint un = n;
	if (set_args(&r, k[K_INIT], "cp_init", 1, 4, ARG(un), ARG(b[B_PARENT]), ARG(b[B_DUR]), ARG(b[B_ST0])) < 0 ||
	    launch(&r, k[K_INIT], "cp_init", n) < 0)
		goto done;
	int cur = B_ST0;
	size_t first_pass_event = r.events.n;
	for (cl_uint p = 0; p < passes; p++) {
		int next = cur == B_ST0 ? B_ST1 : B_ST0;
		cl_uint ublocks = blocks, ugroups = busy_groups;
		if (set_args(&r, k[K_JUMP], "cp_jump", 2, 8, ARG(p), ARG(b[cur]), ARG(b[next]), ARG(b[B_BUSY]),
			     ARG(ublocks), ARG(b[B_ANY]), ARG(b[B_GROUP_BUSY]), ARG(ugroups)) < 0 ||
		    launch_rows(&r, k[K_JUMP], "cp_jump", n, true) < 0)
			goto done;
		cur = next;
	}
	size_t pass_events_end = r.events.n;
	size_t scratch = r.local * sizeof(cp_best);
	if (set_args(&r, k[K_FINALIZE], "cp_finalize", 1, 8, ARG(un), ARG(b[cur]), ARG(b[B_PARENT]),
		     ARG(b[B_PD]), ARG(b[B_ROOT]), ARG(b[B_HOP]), ARG(b[B_PRED]), ARG(b[B_PART0])) < 0 ||
	    gt_cl_check(cl, clSetKernelArg(k[K_FINALIZE], 9, scratch, NULL), "clSetKernelArg", err) < 0 ||
	    launch(&r, k[K_FINALIZE], "cp_finalize", n) < 0)
		goto done;
	int part = B_PART0;
	cl_uint fan = r.local == 1 ? 2 : 1;
	for (uint64_t count = groups; count > 1; count = (count + fan * r.local - 1) / (fan * r.local)) {
		int other = part == B_PART0 ? B_PART1 : B_PART0;
		cl_uint c = (cl_uint)count;
		if (set_args(&r, k[K_REDUCE], "cp_reduce", 1, 4, ARG(c), ARG(fan), ARG(b[part]), ARG(b[other])) < 0 ||
		    gt_cl_check(cl, clSetKernelArg(k[K_REDUCE], 5, scratch, NULL), "clSetKernelArg", err) < 0 ||
		    launch(&r, k[K_REDUCE], "cp_reduce", (count + fan - 1) / fan) < 0)
			goto done;
		part = other;
	}
	if (set_args(&r, k[K_SLACK], "cp_slack", 1, 5, ARG(un), ARG(b[part]), ARG(b[B_PD]), ARG(b[B_SLACK]),
		     ARG(b[B_MASK])) < 0 ||
	    launch(&r, k[K_SLACK], "cp_slack", n) < 0)
		goto done;
	/* The walk takes at most n steps, split like any launch over n rows. */
	cl_uint budget = (cl_uint)(r.piece < n ? r.piece : n);
	/* the walk's records go to the state buffer the passes no longer need (16 bytes a row) */
	int walk = cur == B_ST0 ? B_ST1 : B_ST0;
	if (set_args(&r, k[K_WALK], "cp_walk", 0, 9, ARG(budget), ARG(max_len), ARG(b[part]), ARG(b[B_PRED]),
		     ARG(b[B_HOP]), ARG(b[B_MASK]), ARG(b[B_CURSOR]), ARG(b[B_PD]), ARG(b[walk])) < 0)
		goto done;
	for (uint64_t steps = 0; steps < n; steps += budget) {
		size_t one = 1;
		cl_event ev;
		e = clEnqueueNDRangeKernel(r.q, k[K_WALK], 1, NULL, &one, &one, 0, NULL, &ev);
		if (gt_cl_check(cl, e, "clEnqueueNDRangeKernel (cp_walk)", err) < 0) {
			if (e == CL_SUCCESS) /* an injected fault: the launch itself went */
				clReleaseEvent(ev);
			goto done;
		}
		if (gt_cl_events_keep(&r.events, ev, r.err) < 0)
			goto done;
		r.launches++;
	}

	cp_best best;
	/* the busy words only feed the statistics */
	bool path_only = opt && opt->path_only;
	uint32_t *busy = NULL;
	if (stats && !path_only && !(busy = gt_fault_hit("alloc") ? NULL : malloc(sizes[B_BUSY]))) {
		gt_fail(err, GT_EDEVICE, "out of memory reading critical-path statistics");
		goto done;
	}
	struct {
		int buf;
		void *dst;
	} reads[] = {
		{B_PD, out->path_duration}, {B_SLACK, out->slack}, {B_PRED, out->critical_predecessor},
		{B_ROOT, out->root}, {B_HOP, out->hop_count}, {B_MASK, out->critical_mask}, {B_BUSY, busy},
	};
	for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
		if (!reads[i].dst)
			continue;
		if (path_only && reads[i].buf != B_BUSY)
			continue;
		gt_touch_pages(reads[i].dst, sizes[reads[i].buf]); /* the rows are freshly allocated */
		e = clEnqueueReadBuffer(r.q, b[reads[i].buf], CL_FALSE, 0, sizes[reads[i].buf], reads[i].dst, 0,
					NULL, &xfer[nxfer]);
		nxfer += e == CL_SUCCESS;
		if (gt_cl_check(cl, e, "clEnqueueReadBuffer", err) < 0) {
			clFinish(r.q);
			free(busy);
			goto done;
		}
	}
	e = clEnqueueReadBuffer(r.q, b[part], CL_TRUE, 0, sizeof best, &best, 0, NULL, NULL);
	if (e == CL_SUCCESS && path_only && best.idx != GT_CP_NONE)
		e = read_walk(r.q, b[B_HOP], b[B_PRED], b[walk], best.idx, max_len, out, err);
	if (gt_cl_check(cl, e, "clEnqueueReadBuffer", err) < 0 ||
	    gt_cl_check(cl, clFinish(r.q), "clFinish", err) < 0) {
		free(busy);
		goto done;
	}

	memset(sum, 0, sizeof *sum);
	sum->endpoint = best.idx;
	sum->max_hop_count = best.hop;
	sum->flags = best.flags;
	if (best.idx != GT_CP_NONE) {
		sum->max_path_duration = best.sum;
		uint32_t len = out->hop_count[best.idx] + 1;
		sum->path_rows = len;
		sum->marked_rows = len < max_len ? len : max_len;
		if (len > max_len)
			sum->flags |= GT_CP_PATH_TRUNCATED;
	}
	if (stats) {
		uint32_t executed = 0; /* path_only: the hop counts stayed on the device */
		stats->pass_bytes = path_only ? 0 : pass_bytes(out->hop_count, n, busy, blocks, passes, &executed);
		size_t per_pass = (pass_events_end - first_pass_event) / passes; /* pieces per pass */
		for (int i = 0; i < nxfer; i++)
			stats->transfer_ns += gt_cl_event_ns(xfer[i]);
		for (size_t i = 0; i < r.events.n; i++) {
			uint64_t ns = gt_cl_event_ns(r.events.ev[i]);
			stats->kernel_ns += ns;
			if (i >= first_pass_event && i < pass_events_end) {
				stats->pass_ns += ns;
				size_t p = (i - first_pass_event) / per_pass;
				if (p < sizeof stats->pass_ns_each / sizeof *stats->pass_ns_each)
					stats->pass_ns_each[p] += ns;
			}
		}
		stats->launches = r.launches;
		stats->passes = passes;
		stats->active_passes = executed;
		stats->bytes_moved = stats->pass_bytes + other_bytes(n, groups);
	}
	free(busy);
	rc = 0;
done:
	if (rc < 0)
		clFinish(r.q); /* nothing may still use the caller's arrays */
	gt_cl_events_release(&r.events);
	for (int i = 0; i < nxfer; i++)
		clReleaseEvent(xfer[i]);
	for (int i = 0; i < B_COUNT; i++)
		if (b[i])
			clReleaseMemObject(b[i]);
	for (int i = 0; i < K_COUNT; i++)
		if (k[i])
			clReleaseKernel(k[i]);
	return rc;
}

int gt_critpath_run(gt_cl *cl, const uint32_t *parent, const int64_t *duration, uint32_t n,
		    const gt_cp_options *opt, gt_cp_rows *out, gt_cp_summary *sum, gt_error *err)
{
	if (cl)
		return gt_critpath_cl(cl, parent, duration, n, opt, out, sum, NULL, err);
	return gt_critpath_fast(parent, duration, n, opt, out, sum, err);
}
