/* Temporal-index queries on an OpenCL device (kernels/tindex.cl). */
#include <stdlib.h>
#include <string.h>

#include "tindex.h"
#include "base/base.h"

typedef struct {
	int64_t t0, t1;
	uint32_t lane0, lane1, groups, pad;
} cl_tquery; /* the kernels' tquery */

/* The launch shape shared by every pass: G groups of W items. */
struct shape {
	size_t W, G;
};

struct gt_tindex_cl {
	gt_cl *cl;
	const gt_tindex *ix;
	struct shape sh;
	cl_kernel k_count, k_compact, k_validate; /* tq_slots_count, tq_slots_compact */
	cl_kernel k_onepass; /* tq_slots_onepass, where the device has 64-bit atomics */
	cl_mem batches, nodes, order, ticket, out, gsum, gweight, goff, ctrl, look;
	cl_uint epoch;       /* tq_slots_onepass's tags: one epoch per query */
	gt_treach_dir dir;   /* finds a query's reach */
	uint64_t onepass_groups; /* the most groups a one-launch query runs: one wave */
	cl_uint onepass_rounds;  /* the fewest rounds a group of it takes */
	uint32_t out_len;
	uint32_t slots[GT_TINDEX_MAX_LEVELS]; /* S per level: its largest clamped leaf count */
	uint64_t local_mem;
	bool few_groups; /* a CPU device: G near the pool's groups, not n / (W R) */
};

/* A query's slots run R rounds of W per group, so G = n / (W R) groups;
 * the last group scans the G sums K = G / W at a time, K <= QUERY_KMAX. */
#define QUERY_R 4
/* One launch: at least 2 rounds a group (H200, 10M spans: 12.0 us, against
 * 12.4 with 1 and 14.4 with 4); more when the slots would need more than a
 * wave of groups. */
#define ONEPASS_R 2
#define QUERY_KMAX 16

struct gt_spanscan_cl {
	gt_cl *cl;
	struct shape sh;
	uint64_t n;
	cl_kernel k_count, k_scan, k_compact, k_mark;
	cl_mem start, end, lane, group, out, gsum, gweight, goff, ctrl, flags, count;
};

static void pick_shape(gt_cl *cl, struct shape *sh)
{
	size_t max = gt_cl_max_work_group(cl);
	size_t W = 256;
	while (W > max && W > 1)
		W >>= 1;
	cl_uint cu = 1;
	clGetDeviceInfo(gt_cl_device(cl), CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
	size_t G = (size_t)cu * 2;
	if (G > W)
		G = W; /* the scan pass runs the group sums in one work-group */
	if (G < 1)
		G = 1;
	sh->W = W;
	sh->G = G;
}

static cl_mem new_buffer(gt_cl *cl, cl_mem_flags flags, size_t bytes, const void *host, gt_error *err)
{
	cl_int rc;
	if (host && bytes)
		flags |= CL_MEM_COPY_HOST_PTR;
	cl_mem b = clCreateBuffer(gt_cl_context(cl), flags, bytes ? bytes : 8, bytes ? (void *)host : NULL, &rc);
	if (gt_cl_check(cl, rc, "clCreateBuffer", err) < 0)
		return NULL;
	return b;
}

static void release(cl_mem *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i])
			clReleaseMemObject(m[i]);
}

void gt_tindex_cl_close(gt_tindex_cl *d)
{
	if (!d)
		return;
	cl_mem m[] = {d->batches, d->nodes, d->order, d->ticket, d->out, d->gsum, d->gweight, d->goff, d->ctrl, d->look};
	release(m, sizeof m / sizeof m[0]);
	gt_treach_dir_free(&d->dir);
	cl_kernel k[] = {d->k_count, d->k_compact, d->k_validate, d->k_onepass};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (k[i])
			clReleaseKernel(k[i]);
	free(d);
}

static int scratch(gt_cl *cl, const struct shape *sh, cl_mem *gsum, cl_mem *gweight, cl_mem *goff, cl_mem *ctrl,
		   gt_error *err)
{
	if (!(*gsum = new_buffer(cl, CL_MEM_READ_WRITE, sh->G * 4, NULL, err)) ||
	    !(*gweight = new_buffer(cl, CL_MEM_READ_WRITE, sh->G * 8, NULL, err)) ||
	    !(*goff = new_buffer(cl, CL_MEM_READ_WRITE, sh->G * 4, NULL, err)) ||
	    !(*ctrl = new_buffer(cl, CL_MEM_READ_WRITE, 8 * 8, NULL, err)))
		return -1;
	return 0;
}

/* Tags from an earlier epoch never match a later query's: cleared once,
 * and again when the epochs wrap. */
static int clear_look(gt_tindex_cl *d, gt_error *err)
{
	const cl_ulong zero = 0;
	d->epoch = 1;
	return gt_cl_check(d->cl, clEnqueueFillBuffer(gt_cl_queue(d->cl), d->look, &zero, sizeof zero, 0,
						       (size_t)d->sh.W * QUERY_KMAX * 16, 0, NULL, NULL),
			   "clEnqueueFillBuffer", err);
}

int gt_tindex_cl_open(gt_tindex_cl **out, gt_cl *cl, const gt_tindex *ix, gt_error *err)
{
	*out = NULL;
	gt_tindex_cl *d = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *d);
	if (!d)
		return gt_fail(err, GT_EINPUT, "out of memory");
	d->cl = cl;
	d->ix = ix;
	if (gt_treach_dir_build(&d->dir, ix, err) < 0) {
		free(d);
		return -1;
	}
	pick_shape(cl, &d->sh);
	/* S per level: the largest leaf count as the host reference clamps
	 * it (to the batches), so that every leaf the host tests has a slot
	 * whatever the level table says. */
	for (uint32_t L = 1; L < ix->level_count; L++) {
		const gt_tnode *nd = ix->nodes + ix->levels[L].first_node;
		uint32_t S = 1;
		for (uint32_t i = 0; i < ix->levels[L].node_count; i++) {
			uint32_t c = nd[i].count;
			if (nd[i].first >= ix->batch_count)
				c = 0;
			else if (c > ix->batch_count - nd[i].first)
				c = ix->batch_count - nd[i].first;
			if (c > S)
				S = c;
		}
		d->slots[L] = S;
	}
	cl_ulong lmem = 0;
	clGetDeviceInfo(gt_cl_device(cl), CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
	d->local_mem = lmem;
	/* On a CPU each group costs its barriers' loops over the work-items,
	 * and a GPU's parallelism buys nothing: there, as many groups as the
	 * other passes (sh.G), each taking more rounds (PoCL, 1M spans: median
	 * 266-300 us against 373-527 us with 4 rounds). GPUTRACE_QUERY_GPU_SHAPE
	 * keeps the GPU shape (the tests use it to run that shape on PoCL). */
	cl_device_type type = 0;
	clGetDeviceInfo(gt_cl_device(cl), CL_DEVICE_TYPE, sizeof type, &type, NULL);
	d->few_groups = (type & CL_DEVICE_TYPE_CPU) && !getenv("GPUTRACE_QUERY_GPU_SHAPE");
	d->out_len = ix->batch_count ? ix->batch_count : 1;
	const cl_mem_flags ro = CL_MEM_READ_ONLY;
	const uint32_t zero = 0;
	size_t gmax = d->sh.W * QUERY_KMAX;
	if (gt_cl_kernel(cl, "tindex", "tq_slots_count", &d->k_count, err) < 0 ||
	    gt_cl_kernel(cl, "tindex", "tq_slots_compact", &d->k_compact, err) < 0 ||
	    gt_cl_kernel(cl, "tindex", "tq_validate", &d->k_validate, err) < 0 ||
	    !(d->batches = new_buffer(cl, ro, (size_t)ix->batch_count * sizeof(gt_tnode), ix->batches, err)) ||
	    !(d->nodes = new_buffer(cl, ro, (size_t)ix->node_count * sizeof(gt_tnode), ix->nodes, err)) ||
	    !(d->ticket = new_buffer(cl, CL_MEM_READ_WRITE, sizeof zero, &zero, err)) ||
	    !(d->out = new_buffer(cl, CL_MEM_READ_WRITE, (size_t)d->out_len * 4, NULL, err)) ||
	    !(d->gsum = new_buffer(cl, CL_MEM_READ_WRITE, gmax * 4, NULL, err)) ||
	    !(d->gweight = new_buffer(cl, CL_MEM_READ_WRITE, gmax * 8, NULL, err)) ||
	    !(d->goff = new_buffer(cl, CL_MEM_READ_WRITE, gmax * 4, NULL, err)) ||
	    !(d->ctrl = new_buffer(cl, CL_MEM_READ_WRITE, 8 * 8, NULL, err))) {
		gt_tindex_cl_close(d);
		return -1;
	}
	/* One launch per query where the device has 64-bit atomics (the
	 * kernel is compiled only then) and many groups run at once: on a CPU
	 * device the two launches stay (few groups, long rounds). */
	cl_int e;
	cl_program prog;
	if (!d->few_groups && !getenv("GPUTRACE_QUERY_TWO_LAUNCHES") && gt_cl_program(cl, "tindex", &prog, err) == 0) {
		d->k_onepass = clCreateKernel(prog, "tq_slots_onepass", &e);
		if (e != CL_SUCCESS)
			d->k_onepass = NULL;
	}
	/* groups per compute unit: 8 measured best on the H200 (BENCHMARKS.md);
	 * GPUTRACE_QUERY_GROUPS_PER_CU overrides it for such measurements */
	const char *per_cu = getenv("GPUTRACE_QUERY_GROUPS_PER_CU");
	d->onepass_groups = (uint64_t)gt_cl_compute_units(cl) * (per_cu && atoi(per_cu) > 0 ? (unsigned)atoi(per_cu) : 8);
	if (d->onepass_groups < 1)
		d->onepass_groups = 1;
	const char *rounds = getenv("GPUTRACE_QUERY_ROUNDS"); /* for measurements too */
	d->onepass_rounds = rounds && atoi(rounds) > 0 && atoi(rounds) <= 64 ? (cl_uint)atoi(rounds) : ONEPASS_R;
	if (d->k_onepass && !(d->look = new_buffer(cl, CL_MEM_READ_WRITE, gmax * 16, NULL, err))) {
		gt_tindex_cl_close(d);
		return -1;
	}
	if (d->k_onepass && clear_look(d, err) < 0) {
		gt_tindex_cl_close(d);
		return -1;
	}
	*out = d;
	return 0;
}

/* Sets kernel arguments from a list of (size, pointer) pairs. */
struct arg {
	size_t size;
	const void *ptr;
};

static int set_args(gt_cl *cl, cl_kernel k, const struct arg *a, int n, gt_error *err)
{
	for (int i = 0; i < n; i++)
		if (gt_cl_check(cl, clSetKernelArg(k, (cl_uint)i, a[i].size, a[i].ptr), "clSetKernelArg", err) < 0)
			return -1;
	return 0;
}

static int launch(gt_cl *cl, cl_kernel k, size_t groups, size_t W, cl_event *ev, gt_error *err)
{
	size_t global = groups * W;
	return gt_cl_check(cl, clEnqueueNDRangeKernel(gt_cl_queue(cl), k, 1, NULL, &global, &W, 0, NULL, ev),
			   "clEnqueueNDRangeKernel", err);
}

/* A query in two launches over n slots (kernels/tindex.cl, tq_slots_*):
 * S = 0 at level 0 (slot i is batch i), else the level's S. */
static int run_query(gt_tindex_cl *d, cl_ulong n, cl_uint S, cl_ulong node_off, const cl_tquery *q, cl_ulong cap,
		     cl_event *ev, int *nev, gt_error *err)
{
	gt_cl *cl = d->cl;
	size_t W = d->sh.W;
	cl_uint R = QUERY_R, nb = d->ix->batch_count;
	if (d->few_groups) {
		uint64_t r = (n + (uint64_t)W * d->sh.G - 1) / ((uint64_t)W * d->sh.G);
		if (r > R)
			R = r > UINT32_MAX / 2 ? UINT32_MAX / 2 : (cl_uint)r;
	}
	uint64_t G = (n + (uint64_t)W * R - 1) / ((uint64_t)W * R);
	while (G > W * QUERY_KMAX) {
		R *= 2;
		G = (n + (uint64_t)W * R - 1) / ((uint64_t)W * R);
	}
	if (G == 0)
		G = 1;
	cl_uint K = (cl_uint)((G + W - 1) / W);
	if ((uint64_t)W * R + W * 4 > d->local_mem || (uint64_t)W * K * 4 + W * 12 > d->local_mem)
		return gt_fail(err, GT_EDEVICE, "the query's %llu slots need more local memory than the device has",
			       (unsigned long long)n);
	struct arg cnt[] = {
		{sizeof n, &n},		      {sizeof S, &S},		    {sizeof(cl_mem), &d->nodes},
		{sizeof node_off, &node_off}, {sizeof(cl_mem), &d->batches}, {sizeof nb, &nb},
		{sizeof *q, q},		      {sizeof R, &R},		    {sizeof K, &K},
		{sizeof(cl_mem), &d->gsum},   {sizeof(cl_mem), &d->gweight}, {sizeof(cl_mem), &d->goff},
		{sizeof(cl_mem), &d->ctrl},   {sizeof(cl_mem), &d->ticket},  {W * K * 4, NULL},
		{W * 4, NULL},		      {W * 8, NULL},
	};
	/* One launch: few enough groups to run in one wave (each has a fixed
	 * serial part: its ticket, scan and look-back), each taking more rounds. */
	cl_uint R1 = d->onepass_rounds;
	uint64_t G1 = (n + (uint64_t)W * R1 - 1) / ((uint64_t)W * R1), wave = d->onepass_groups;
	if (G1 > wave) {
		uint64_t r = (n + (uint64_t)W * wave - 1) / ((uint64_t)W * wave);
		R1 = r > 4096 ? 4096 : (cl_uint)r;
		G1 = (n + (uint64_t)W * R1 - 1) / ((uint64_t)W * R1);
	}
	if (G1 == 0)
		G1 = 1;
	if (d->k_onepass && n <= UINT32_MAX && G1 <= W * QUERY_KMAX && (uint64_t)W * R1 * 5 + W * 12 <= d->local_mem) {
		if (d->epoch >= 0x7ffffffe && clear_look(d, err) < 0)
			return -1;
		R = R1, G = G1;
		cl_uint epoch = d->epoch++;
		struct arg one[] = {
			{sizeof n, &n},		      {sizeof S, &S},		   {sizeof(cl_mem), &d->nodes},
			{sizeof node_off, &node_off}, {sizeof(cl_mem), &d->batches}, {sizeof nb, &nb},
			{sizeof *q, q},		      {sizeof R, &R},		   {sizeof epoch, &epoch},
			{sizeof(cl_mem), &d->ticket}, {sizeof(cl_mem), &d->look},    {sizeof(cl_mem), &d->out},
			{sizeof cap, &cap},	      {sizeof(cl_mem), &d->ctrl},    {W * R, NULL},
			{W * R * 4, NULL},	      {W * 4, NULL},		   {W * 8, NULL},
		};
		if (set_args(cl, d->k_onepass, one, 18, err) < 0)
			return -1;
		return launch(cl, d->k_onepass, G, W, &ev[(*nev)++], err);
	}
	struct arg cmp[] = {
		{sizeof n, &n},		      {sizeof S, &S},		    {sizeof(cl_mem), &d->nodes},
		{sizeof node_off, &node_off}, {sizeof(cl_mem), &d->batches}, {sizeof nb, &nb},
		{sizeof *q, q},		      {sizeof R, &R},		    {sizeof(cl_mem), &d->gsum},
		{sizeof(cl_mem), &d->goff},   {sizeof(cl_mem), &d->out},    {sizeof cap, &cap},
		{W * R, NULL},		      {W * 4, NULL},
	};
	if (set_args(cl, d->k_count, cnt, 17, err) < 0 || launch(cl, d->k_count, G, W, &ev[(*nev)++], err) < 0)
		return -1;
	if (set_args(cl, d->k_compact, cmp, 14, err) < 0)
		return -1;
	return launch(cl, d->k_compact, G, W, &ev[(*nev)++], err);
}

static uint64_t events_ns(cl_event *ev, int n)
{
	uint64_t t = 0;
	for (int i = 0; i < n; i++) {
		if (!ev[i])
			continue;
		t += gt_cl_event_ns(ev[i]);
		clReleaseEvent(ev[i]);
	}
	return t;
}

int gt_tindex_cl_query(gt_tindex_cl *d, const gt_tquery *q, gt_tresult *r, uint64_t *kernel_ns, gt_error *err)
{
	const gt_tindex *ix = d->ix;
	if (q->level >= ix->level_count)
		return gt_fail(err, GT_EUSAGE, "level %u does not exist (the index has levels 0 to %u)", q->level,
			       ix->level_count - 1);
	cl_tquery cq = {q->t0, q->t1, q->lane0, q->lane1, q->groups, 0};
	cl_ulong cap = r->capacity < d->out_len ? r->capacity : d->out_len;
	const gt_tlevel *lv = &ix->levels[q->level];
	cl_event ev[2] = {0};
	int nev = 0, rc;
	uint64_t lo, hi;
	gt_tindex_reach(ix, &d->dir, q, &lo, &hi);
	cl_ulong ctrl[4] = {0};
	if (lo == hi)
		rc = 0; /* nothing in reach: no launch, ctrl stays 0 */
	else if (q->level == 0)
		rc = run_query(d, hi - lo, 0, lo, &cq, cap, ev, &nev, err);
	else
		rc = run_query(d, (cl_ulong)(hi - lo) * d->slots[q->level], d->slots[q->level], lv->first_node + lo,
			       &cq, cap, ev, &nev, err);
	if (rc == 0 && lo < hi)
		rc = gt_cl_check(d->cl, clEnqueueReadBuffer(gt_cl_queue(d->cl), d->ctrl, CL_TRUE, 0, sizeof ctrl, ctrl,
							    0, NULL, NULL), "clEnqueueReadBuffer", err);
	uint64_t ns = 0;
	if (rc == 0) {
		/* The ordered prefix: cap entries at most. */
		r->count = ctrl[2];
		uint64_t n = r->count < cap ? r->count : cap;
		if (n)
			rc = gt_cl_check(d->cl, clEnqueueReadBuffer(gt_cl_queue(d->cl), d->out, CL_TRUE, 0, n * 4,
								    r->candidates, 0, NULL, NULL),
					 "clEnqueueReadBuffer", err);
		r->overflow = r->count > r->capacity;
		r->nodes_tested = hi - lo;
		r->leaves_tested = q->level ? ctrl[1] : 0;
	} else {
		/* A launch that failed part-way may leave the ticket counted:
		 * the next query would then find no last group. */
		const cl_uint zero = 0;
		clEnqueueWriteBuffer(gt_cl_queue(d->cl), d->ticket, CL_TRUE, 0, sizeof zero, &zero, 0, NULL, NULL);
		clFinish(gt_cl_queue(d->cl));
	}
	ns = events_ns(ev, nev);
	if (kernel_ns)
		*kernel_ns = ns;
	return rc;
}

int gt_tindex_cl_validate(gt_tindex_cl *d, const gt_model *m, uint8_t *bits, uint32_t *all, uint64_t *bad,
			  gt_error *err)
{
	const gt_tindex *ix = d->ix;
	gt_cl *cl = d->cl;
	uint64_t nrec = gt_tindex_records(ix);
	uint32_t nspan = m ? m->span_count : 0;
	int64_t *st = NULL, *en = NULL;
	uint32_t *ln = NULL;
	uint8_t *gr = NULL, *outbits = bits ? bits : malloc(nrec ? nrec : 1);
	cl_mem mem[6] = {0};
	int rc = -1;
	if (!outbits)
		return gt_fail(err, GT_EINPUT, "out of memory");
	size_t ns = nspan ? nspan : 1;
	st = gt_fault_hit("alloc") ? NULL : malloc(ns * 8), en = gt_fault_hit("alloc") ? NULL : malloc(ns * 8), ln = gt_fault_hit("alloc") ? NULL : malloc(ns * 4), gr = gt_fault_hit("alloc") ? NULL : malloc(ns);
	if (!st || !en || !ln || !gr) {
		gt_fail(err, GT_EINPUT, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < nspan; i++) {
		st[i] = m->spans[i].ts_ns;
		en[i] = gt_span_end(&m->spans[i]);
		ln[i] = m->spans[i].lane;
		gr[i] = m->spans[i].group;
	}
	const cl_mem_flags ro = CL_MEM_READ_ONLY;
	if (!(mem[0] = new_buffer(cl, ro, (size_t)(nspan ? ix->span_count : 0) * 4, ix->order, err)) ||
	    !(mem[1] = new_buffer(cl, ro, (size_t)nspan * 8, st, err)) ||
	    !(mem[2] = new_buffer(cl, ro, (size_t)nspan * 8, en, err)) ||
	    !(mem[3] = new_buffer(cl, ro, (size_t)nspan * 4, ln, err)) ||
	    !(mem[4] = new_buffer(cl, ro, (size_t)nspan, gr, err)) ||
	    !(mem[5] = new_buffer(cl, CL_MEM_WRITE_ONLY, (size_t)nrec, NULL, err)))
		goto done;
	cl_uint nb = ix->batch_count, P = ix->p.partition_batches, B = ix->p.batch_spans, sc = ix->span_count;
	cl_ulong nn = ix->node_count;
	cl_uint check = nspan > 0 && nspan == ix->span_count;
	struct arg a[] = {{sizeof(cl_mem), &d->batches}, {sizeof nb, &nb},         {sizeof(cl_mem), &d->nodes},
			  {sizeof nn, &nn},                {sizeof P, &P},           {sizeof B, &B},
			  {sizeof sc, &sc},                {sizeof(cl_mem), &mem[0]}, {sizeof(cl_mem), &mem[1]},
			  {sizeof(cl_mem), &mem[2]},       {sizeof(cl_mem), &mem[3]}, {sizeof(cl_mem), &mem[4]},
			  {sizeof check, &check},          {sizeof(cl_mem), &mem[5]}};
	if (set_args(cl, d->k_validate, a, 14, err) < 0)
		goto done;
	if (nrec) {
		size_t W = d->sh.W, global = (nrec + W - 1) / W * W;
		if (gt_cl_check(cl, clEnqueueNDRangeKernel(gt_cl_queue(cl), d->k_validate, 1, NULL, &global, &W, 0,
							   NULL, NULL), "clEnqueueNDRangeKernel", err) < 0 ||
		    gt_cl_check(cl, clEnqueueReadBuffer(gt_cl_queue(cl), mem[5], CL_TRUE, 0, nrec, outbits, 0, NULL, NULL),
				"clEnqueueReadBuffer", err) < 0)
			goto done;
	}
	uint32_t acc = 0;
	uint64_t nbad = 0;
	for (uint64_t r = 0; r < nrec; r++) {
		acc |= outbits[r];
		nbad += outbits[r] != 0;
	}
	*all = acc;
	*bad = nbad;
	rc = 0;
done:
	release(mem, 6);
	free(st), free(en), free(ln), free(gr);
	if (outbits != bits)
		free(outbits);
	return rc;
}

void gt_spanscan_cl_close(gt_spanscan_cl *s)
{
	if (!s)
		return;
	cl_mem m[] = {s->start, s->end, s->lane, s->group, s->out, s->gsum, s->gweight, s->goff, s->ctrl,
		      s->flags, s->count};
	release(m, sizeof m / sizeof m[0]);
	cl_kernel k[] = {s->k_count, s->k_scan, s->k_compact, s->k_mark};
	for (size_t i = 0; i < 4; i++)
		if (k[i])
			clReleaseKernel(k[i]);
	free(s);
}

int gt_spanscan_cl_open(gt_spanscan_cl **out, gt_cl *cl, const gt_model *m, gt_error *err)
{
	*out = NULL;
	gt_spanscan_cl *s = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *s);
	uint64_t n = m->span_count;
	size_t ns = n ? n : 1;
	int64_t *st = gt_fault_hit("alloc") ? NULL : malloc(ns * 8), *en = gt_fault_hit("alloc") ? NULL : malloc(ns * 8);
	uint32_t *ln = gt_fault_hit("alloc") ? NULL : malloc(ns * 4);
	uint8_t *gr = gt_fault_hit("alloc") ? NULL : malloc(ns);
	int rc = -1;
	if (!s || !st || !en || !ln || !gr) {
		gt_fail(err, GT_EINPUT, "out of memory");
		goto done;
	}
	s->cl = cl;
	s->n = n;
	pick_shape(cl, &s->sh);
	for (uint64_t i = 0; i < n; i++) {
		st[i] = m->spans[i].ts_ns;
		en[i] = gt_span_end(&m->spans[i]);
		ln[i] = m->spans[i].lane;
		gr[i] = m->spans[i].group;
	}
	const cl_mem_flags ro = CL_MEM_READ_ONLY;
	if (gt_cl_kernel(cl, "tindex", "brute_count", &s->k_count, err) < 0 ||
	    gt_cl_kernel(cl, "tindex", "tq_scan", &s->k_scan, err) < 0 ||
	    gt_cl_kernel(cl, "tindex", "brute_compact", &s->k_compact, err) < 0 ||
	    gt_cl_kernel(cl, "tindex", "brute_mark", &s->k_mark, err) < 0 ||
	    !(s->flags = new_buffer(cl, CL_MEM_WRITE_ONLY, n, NULL, err)) ||
	    !(s->count = new_buffer(cl, CL_MEM_READ_WRITE, 4, NULL, err)) ||
	    !(s->start = new_buffer(cl, ro, n * 8, st, err)) || !(s->end = new_buffer(cl, ro, n * 8, en, err)) ||
	    !(s->lane = new_buffer(cl, ro, n * 4, ln, err)) || !(s->group = new_buffer(cl, ro, n, gr, err)) ||
	    !(s->out = new_buffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, err)) ||
	    scratch(cl, &s->sh, &s->gsum, &s->gweight, &s->goff, &s->ctrl, err) < 0)
		goto done;
	rc = 0;
done:
	free(st), free(en), free(ln), free(gr);
	if (rc < 0)
		gt_spanscan_cl_close(s);
	else
		*out = s;
	return rc;
}

int gt_spanscan_cl_query(gt_spanscan_cl *s, const gt_tquery *q, uint64_t *count, uint64_t *kernel_ns,
			 gt_error *err)
{
	gt_cl *cl = s->cl;
	cl_tquery cq = {q->t0, q->t1, q->lane0, q->lane1, q->groups, 0};
	cl_ulong n = s->n, cap = s->n;
	cl_uint G = (cl_uint)s->sh.G, dst = 0, wdst = 1;
	size_t W = s->sh.W;
	struct arg c[] = {{sizeof n, &n},
			  {sizeof(cl_mem), &s->start},
			  {sizeof(cl_mem), &s->end},
			  {sizeof(cl_mem), &s->lane},
			  {sizeof(cl_mem), &s->group},
			  {sizeof cq, &cq},
			  {sizeof(cl_mem), &s->gsum},
			  {sizeof(cl_mem), &s->gweight},
			  {W * 8, NULL}};
	struct arg sc[] = {{sizeof G, &G},         {sizeof(cl_mem), &s->gsum}, {sizeof(cl_mem), &s->gweight},
			   {sizeof(cl_mem), &s->goff}, {sizeof(cl_mem), &s->ctrl}, {sizeof dst, &dst},
			   {sizeof wdst, &wdst},       {W * 2 * 4, NULL},          {W * 8, NULL}};
	struct arg cp[] = {{sizeof n, &n},           {sizeof(cl_mem), &s->start}, {sizeof(cl_mem), &s->end},
			   {sizeof(cl_mem), &s->lane}, {sizeof(cl_mem), &s->group}, {sizeof cq, &cq},
			   {sizeof(cl_mem), &s->goff}, {sizeof(cl_mem), &s->out},   {sizeof cap, &cap},
			   {W * 2 * 4, NULL}};
	cl_event ev[3] = {0};
	int nev = 0;
	cl_ulong ctrl[2] = {0};
	int rc = -1;
	if (set_args(cl, s->k_count, c, 9, err) == 0 && launch(cl, s->k_count, s->sh.G, W, &ev[nev++], err) == 0 &&
	    set_args(cl, s->k_scan, sc, 9, err) == 0 && launch(cl, s->k_scan, 1, W, &ev[nev++], err) == 0 &&
	    set_args(cl, s->k_compact, cp, 10, err) == 0 &&
	    launch(cl, s->k_compact, s->sh.G, W, &ev[nev++], err) == 0 &&
	    gt_cl_check(cl, clEnqueueReadBuffer(gt_cl_queue(cl), s->ctrl, CL_TRUE, 0, sizeof ctrl, ctrl, 0, NULL, NULL),
			"clEnqueueReadBuffer", err) == 0)
		rc = 0;
	else
		clFinish(gt_cl_queue(cl));
	*count = ctrl[0];
	uint64_t ns = events_ns(ev, nev);
	if (kernel_ns)
		*kernel_ns = ns;
	return rc;
}

int gt_spanscan_cl_mark(gt_spanscan_cl *s, const gt_tquery *q, uint64_t *count, uint64_t *kernel_ns, gt_error *err)
{
	gt_cl *cl = s->cl;
	cl_tquery cq = {q->t0, q->t1, q->lane0, q->lane1, q->groups, 0};
	cl_ulong n = s->n;
	size_t W = s->sh.W, groups = (size_t)((n + W - 1) / W);
	struct arg a[] = {{sizeof n, &n},           {sizeof(cl_mem), &s->start}, {sizeof(cl_mem), &s->end},
			  {sizeof(cl_mem), &s->lane}, {sizeof(cl_mem), &s->group}, {sizeof cq, &cq},
			  {sizeof(cl_mem), &s->flags}, {sizeof(cl_mem), &s->count}, {W * 8, NULL}};
	cl_uint zero = 0, got = 0;
	cl_event ev[1] = {0};
	int rc = -1;
	if (gt_cl_check(cl, clEnqueueFillBuffer(gt_cl_queue(cl), s->count, &zero, 4, 0, 4, 0, NULL, NULL),
			"clEnqueueFillBuffer", err) == 0 &&
	    set_args(cl, s->k_mark, a, 9, err) == 0 && (groups == 0 || launch(cl, s->k_mark, groups, W, &ev[0], err) == 0) &&
	    gt_cl_check(cl, clEnqueueReadBuffer(gt_cl_queue(cl), s->count, CL_TRUE, 0, 4, &got, 0, NULL, NULL),
			"clEnqueueReadBuffer", err) == 0)
		rc = 0;
	else
		clFinish(gt_cl_queue(cl));
	*count = got;
	uint64_t ns = events_ns(ev, 1);
	if (kernel_ns)
		*kernel_ns = ns;
	return rc;
}
