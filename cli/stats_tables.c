/* The stats reports' columns (stats_tables.h). Durations are GT_COL_NS_US
 * columns (X_us, and X_ns in Arrow and JSON); shares six-decimal doubles. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stats_tables.h"

static const void *row_at(const stats_table *st, uint64_t row)
{
	return (const char *)st->rows + row * st->row_size;
}

static uint32_t window_at(const stats_table *st, uint64_t row)
{
	return *(const uint32_t *)row_at(st, row); /* every row starts with its window */
}

static const char *id_text(const gt_model *m, const gt_id *id, char *buf, size_t len)
{
	if (id->is_str)
		return gt_model_str(m, id->str);
	snprintf(buf, len, "%" PRId64, id->num);
	return buf;
}

static const char *step_name(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	uint32_t w = window_at(st, row);
	return gt_model_str(st->s->m, st->s->m->spans[st->s->steps.windows[w].step_span].name);
}

/* A stream: "pid/tid", in a job "rank R:pid/tid". */
static const char *stream_text(stats_table *st, uint32_t track)
{
	const gt_model *m = st->s->m;
	const gt_track *t = &m->tracks[track];
	char p[64], q[64];
	const char *pid = id_text(m, &m->processes[t->process].pid, p, sizeof p);
	const char *tid = id_text(m, &t->tid, q, sizeof q);
	const gt_rank_part *rp = m->rank_count > 1 ? gt_model_process_rank(m, t->process) : NULL;
	if (rp)
		snprintf(st->buf, sizeof st->buf, "rank %" PRId64 ":%.80s/%.80s", rp->rank, pid, tid);
	else
		snprintf(st->buf, sizeof st->buf, "%.100s/%.100s", pid, tid);
	return st->buf;
}

static void add(stats_table *st, gt_column c)
{
	if (st->t.ncols < STATS_MAX_COLS)
		st->cols[st->t.ncols++] = c;
}

/* label_us in text, label_ns in Arrow; the field at offset of each row */
static void add_ns(stats_table *st, const char *us, const char *ns, size_t offset)
{
	add(st, (gt_column){.name = us, .arrow_name = ns, .type = GT_COL_NS_US,
			    .data = (const char *)st->rows + offset, .stride = st->row_size});
}

static void add_u64(stats_table *st, const char *name, size_t offset)
{
	add(st, (gt_column){.name = name, .type = GT_COL_U64, .data = (const char *)st->rows + offset,
			    .stride = st->row_size});
}

static void add_u32(stats_table *st, const char *name, size_t offset)
{
	add(st, (gt_column){.name = name, .type = GT_COL_U32, .data = (const char *)st->rows + offset,
			    .stride = st->row_size});
}

/* shares: k per row, the j-th of each */
static void add_share(stats_table *st, const char *name, size_t j, size_t k)
{
	add(st, (gt_column){.name = name, .type = GT_COL_F64, .data = st->share + j, .stride = k * sizeof(double)});
}

static void begin(stats_table *st, const gt_stats_scope *s, const char *name, const char *report, const void *rows,
		  size_t row_size, uint64_t nrows)
{
	memset(st, 0, sizeof *st);
	static const char none;
	st->s = s;
	st->rows = rows ? rows : (const void *)&none;
	st->row_size = rows ? row_size : 0; /* no rows: the columns point at something */
	st->t = (gt_table){.name = name, .cols = st->cols, .nrows = nrows, .meta_keys = st->mk, .meta_values = st->mv};
	st->mk[0] = "gputrace_version", st->mv[0] = gt_program_version;
	st->mk[1] = "source", st->mv[1] = s->m->source ? s->m->source : "";
	st->mk[2] = "report", st->mv[2] = report;
	st->t.nmeta = 3;
	if (s->steps.count)
		add(st, (gt_column){.name = "step", .type = GT_COL_STR, .get_str = step_name, .get_ctx = st});
}

static void meta(stats_table *st, const char *key, int64_t v)
{
	size_t k = st->t.nmeta;
	if (k >= STATS_MAX_META)
		return;
	snprintf(st->meta[k], sizeof st->meta[k], "%" PRId64, v);
	st->mk[k] = key, st->mv[k] = st->meta[k];
	st->t.nmeta++;
}

void stats_table_note_top(stats_table *st, uint32_t shown, uint32_t total)
{
	size_t k = st->t.nmeta;
	if (shown == total || k >= STATS_MAX_META)
		return;
	snprintf(st->meta[k], sizeof st->meta[k], "the largest %u of %u (--top 0: every row)", shown, total);
	st->mk[k] = "rows", st->mv[k] = st->meta[k];
	st->t.nmeta++;
}

static int shares(stats_table *st, size_t k)
{
	st->share = calloc(st->t.nrows * k + 1, sizeof *st->share);
	return st->share ? 0 : -1;
}

void stats_table_free(stats_table *st)
{
	free(st->share);
	st->share = NULL;
}

/* ---- kernels ----------------------------------------------------------- */

static const char *const class_names[] = {
	[GT_DEVICE_COMPUTE] = "compute", [GT_DEVICE_COMMUNICATION] = "communication",
	[GT_DEVICE_MEMCPY] = "memcpy",   [GT_DEVICE_MEMSET] = "memset"};

static const char *kernel_name(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	const gt_kernel_stat *k = row_at(st, row);
	return st->group_class ? class_names[k->name] : gt_model_str(st->s->m, k->name);
}

static const char *kernel_stream(const void *ctx, uint64_t row)
{
	stats_table *st = (stats_table *)ctx;
	return stream_text(st, ((const gt_kernel_stat *)row_at(st, row))->key);
}

static int64_t kernel_rank(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	const gt_model *m = st->s->m;
	return m->rank_count ? m->ranks[((const gt_kernel_stat *)row_at(st, row))->key].rank : 0;
}

static void add_dist(stats_table *st, size_t at, const char *prefix, bool brief)
{
	static const char *const names[][2] = {{"total_us", "total_ns"},   {"mean_us", "mean_ns"},
					       {"median_us", "median_ns"}, {"p95_us", "p95_ns"},
					       {"min_us", "min_ns"},       {"max_us", "max_ns"},
					       {"stddev_us", "stddev_ns"}};
	static const char *const latency[][2] = {{"latency_total_us", "latency_total_ns"},   {"latency_mean_us", "latency_mean_ns"},
						 {"latency_median_us", "latency_median_ns"}, {"latency_p95_us", "latency_p95_ns"},
						 {"latency_min_us", "latency_min_ns"},       {"latency_max_us", "latency_max_ns"},
						 {"latency_stddev_us", "latency_stddev_ns"}};
	const size_t off[] = {offsetof(gt_stats_dist, total_ns),  offsetof(gt_stats_dist, mean_ns),
			      offsetof(gt_stats_dist, median_ns), offsetof(gt_stats_dist, p95_ns),
			      offsetof(gt_stats_dist, min_ns),    offsetof(gt_stats_dist, max_ns),
			      offsetof(gt_stats_dist, stddev_ns)};
	for (size_t i = prefix ? 1 : 0; i < 7; i++) {
		if (brief && (i == 4 || i == 6 || (prefix ? i == 1 || i == 5 : i == 2)))
			continue; /* a person reads the total, mean, p95 and max (latencies: median and p95) */
		const char *const *n = prefix ? latency[i] : names[i];
		add_ns(st, n[0], n[1], at + off[i]);
	}
}

int stats_table_kernels(stats_table *st, const gt_stats_scope *s, const gt_kernel_stats *k, int by, bool group_class,
			bool brief)
{
	begin(st, s, "kernels", "kernels", k->rows, sizeof *k->rows, k->count);
	st->by = by, st->group_class = group_class;
	if (by == GT_STATS_BY_STREAM)
		add(st, (gt_column){.name = "stream", .type = GT_COL_STR, .get_str = kernel_stream, .get_ctx = st});
	else if (by == GT_STATS_BY_RANK)
		add(st, (gt_column){.name = "rank", .type = GT_COL_I64, .get_i64 = kernel_rank, .get_ctx = st});
	add(st, (gt_column){.name = group_class ? "class" : "name", .type = GT_COL_STR, .get_str = kernel_name,
			    .get_ctx = st});
	add_u64(st, "count", offsetof(gt_kernel_stat, d.count));
	add_dist(st, offsetof(gt_kernel_stat, d), NULL, brief);
	if (shares(st, 1) < 0)
		return -1;
	for (uint32_t i = 0; i < k->count; i++) /* of its window's busy time */
		st->share[i] = gt_share6(k->rows[i].d.total_ns, k->rows[i].busy_ns);
	add_share(st, "share", 0, 1);
	meta(st, "gpu_busy_ns", k->busy_ns);
	meta(st, "device_spans", (int64_t)s->device_spans);
	return 0;
}

/* ---- gpu-time and overlap ---------------------------------------------- */

static const char *gpu_device(const void *ctx, uint64_t row)
{
	stats_table *st = (stats_table *)ctx;
	const gt_model *m = st->s->m;
	return id_text(m, &m->processes[((const gt_gpu_time *)row_at(st, row))->process].pid, st->buf, sizeof st->buf);
}

static int64_t gpu_rank(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	return gt_model_process_rank(st->s->m, ((const gt_gpu_time *)row_at(st, row))->process)->rank;
}

static int64_t gpu_wall(const void *ctx, uint64_t row)
{
	const gt_gpu_time *g = row_at(ctx, row);
	return g->end_ns - g->begin_ns;
}

static void gpu_keys(stats_table *st)
{
	if (st->s->m->rank_count)
		add(st, (gt_column){.name = "rank", .type = GT_COL_I64, .get_i64 = gpu_rank, .get_ctx = st});
	add(st, (gt_column){.name = "device", .type = GT_COL_STR, .get_str = gpu_device, .get_ctx = st});
}

int stats_table_gpu_time(stats_table *st, const gt_stats_scope *s, const gt_gpu_times *g, bool brief)
{
	enum { PARTS = GT_GPU_CLASS_COUNT + 1 };
	begin(st, s, "gpu_time", "gpu-time", g->rows, sizeof *g->rows, g->count);
	gpu_keys(st);
	add(st, (gt_column){.name = "wall_us", .arrow_name = "wall_ns", .type = GT_COL_NS_US, .get_i64 = gpu_wall,
			    .get_ctx = st});
	static const char *const us[PARTS] = {"compute_us", "communication_us", "memcpy_us", "memset_us", "idle_us"};
	static const char *const ns[PARTS] = {"compute_ns", "communication_ns", "memcpy_ns", "memset_ns", "idle_ns"};
	static const char *const sh[PARTS] = {"compute_share", "communication_share", "memcpy_share", "memset_share",
					     "idle_share"};
	for (int k = 0; k < PARTS; k++)
		add_ns(st, us[k], ns[k],
		       k < GT_GPU_CLASS_COUNT ? offsetof(gt_gpu_time, class_ns) + (size_t)k * sizeof(int64_t)
					      : offsetof(gt_gpu_time, idle_ns));
	if (shares(st, PARTS) < 0)
		return -1;
	for (uint32_t i = 0; i < g->count; i++)
		for (int k = 0; k < PARTS; k++)
			st->share[(size_t)i * PARTS + (size_t)k] =
				gt_share6(k < GT_GPU_CLASS_COUNT ? g->rows[i].class_ns[k] : g->rows[i].idle_ns,
					  g->rows[i].end_ns - g->rows[i].begin_ns);
	for (int k = 0; k < PARTS; k++)
		if (!brief || k == GT_GPU_CLASS_COUNT)
			add_share(st, sh[k], (size_t)k, PARTS);
	return 0;
}

int stats_table_overlap(stats_table *st, const gt_stats_scope *s, const gt_gpu_times *g)
{
	begin(st, s, "overlap", "overlap", g->rows, sizeof *g->rows, g->count);
	gpu_keys(st);
	add_ns(st, "communication_us", "communication_ns", offsetof(gt_gpu_time, communication_ns));
	add_ns(st, "compute_us", "compute_ns", offsetof(gt_gpu_time, compute_ns));
	add_ns(st, "overlap_us", "overlap_ns", offsetof(gt_gpu_time, overlap_ns));
	if (shares(st, 1) < 0)
		return -1;
	for (uint32_t i = 0; i < g->count; i++) /* of the communication */
		st->share[i] = gt_share6(g->rows[i].overlap_ns, g->rows[i].communication_ns);
	add_share(st, "overlap_share", 0, 1);
	return 0;
}

/* ---- ops and runtime --------------------------------------------------- */

static const char *call_name(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	return gt_model_str(st->s->m, ((const gt_call_stat *)row_at(st, row))->name);
}

static const char *call_kind(const void *ctx, uint64_t row)
{
	return gt_runtime_kind_names[gt_runtime_kind_of(call_name(ctx, row))];
}

int stats_table_calls(stats_table *st, const gt_stats_scope *s, const gt_call_stats *c, int which, bool brief)
{
	bool ops = which == GT_STATS_OPS;
	begin(st, s, ops ? "ops" : "runtime", ops ? "ops" : "runtime", c->rows, sizeof *c->rows, c->count);
	add(st, (gt_column){.name = "name", .type = GT_COL_STR, .get_str = call_name, .get_ctx = st});
	if (!ops)
		add(st, (gt_column){.name = "kind", .type = GT_COL_STR, .get_str = call_kind, .get_ctx = st});
	add_u64(st, "count", offsetof(gt_call_stat, d.count));
	add_ns(st, "total_us", "total_ns", offsetof(gt_call_stat, d.total_ns));
	if (!brief || ops) /* a runtime call's self time is nearly all of it */
		add_ns(st, "self_us", "self_ns", offsetof(gt_call_stat, self_ns));
	add_ns(st, "gpu_us", "gpu_ns", offsetof(gt_call_stat, gpu_ns));
	if (!brief)
		add_u64(st, "launched", offsetof(gt_call_stat, launched));
	static const char *const names[][2] = {{"mean_us", "mean_ns"}, {"median_us", "median_ns"}, {"p95_us", "p95_ns"},
					       {"min_us", "min_ns"},   {"max_us", "max_ns"},       {"stddev_us", "stddev_ns"}};
	const size_t off[] = {offsetof(gt_call_stat, d.mean_ns), offsetof(gt_call_stat, d.median_ns),
			      offsetof(gt_call_stat, d.p95_ns),  offsetof(gt_call_stat, d.min_ns),
			      offsetof(gt_call_stat, d.max_ns),  offsetof(gt_call_stat, d.stddev_ns)};
	for (size_t i = 0; i < 6; i++)
		if (!brief || i == 0 || i == 2)
			add_ns(st, names[i][0], names[i][1], off[i]);
	meta(st, "calls", (int64_t)c->calls);
	return 0;
}

/* ---- launches ---------------------------------------------------------- */

static const char *launch_stream(const void *ctx, uint64_t row)
{
	stats_table *st = (stats_table *)ctx;
	return stream_text(st, ((const gt_launch_stat *)row_at(st, row))->track);
}

int stats_table_launches(stats_table *st, const gt_stats_scope *s, const gt_launch_stats *l, bool brief)
{
	begin(st, s, "launches", "launches", l->rows, sizeof *l->rows, l->count);
	add(st, (gt_column){.name = "stream", .type = GT_COL_STR, .get_str = launch_stream, .get_ctx = st});
	add_u64(st, "launches", offsetof(gt_launch_stat, latency.count));
	add_dist(st, offsetof(gt_launch_stat, latency), "latency", brief);
	if (!brief)
		add_u32(st, "queue_median", offsetof(gt_launch_stat, queue_median));
	add_u32(st, "queue_p95", offsetof(gt_launch_stat, queue_p95));
	add_u32(st, "queue_max", offsetof(gt_launch_stat, queue_max));
	meta(st, "launches", (int64_t)l->launch_count);
	return 0;
}

static const char *sample_stream(const void *ctx, uint64_t row)
{
	stats_table *st = (stats_table *)ctx;
	return stream_text(st, ((const gt_launch *)row_at(st, row))->track);
}

static const char *sample_name(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	return gt_model_str(st->s->m, st->s->m->spans[((const gt_launch *)row_at(st, row))->span].name);
}

static const char *sample_launcher(const void *ctx, uint64_t row)
{
	const stats_table *st = ctx;
	return gt_model_str(st->s->m, st->s->m->spans[((const gt_launch *)row_at(st, row))->launcher].name);
}

int stats_table_launch_rows(stats_table *st, const gt_stats_scope *s, const gt_launch_stats *l)
{
	begin(st, s, "launches", "launches", l->launches, sizeof *l->launches, l->launch_count);
	add(st, (gt_column){.name = "stream", .type = GT_COL_STR, .get_str = sample_stream, .get_ctx = st});
	add(st, (gt_column){.name = "name", .type = GT_COL_STR, .get_str = sample_name, .get_ctx = st});
	add(st, (gt_column){.name = "launcher", .type = GT_COL_STR, .get_str = sample_launcher, .get_ctx = st});
	add_u32(st, "span", offsetof(gt_launch, span));
	add_ns(st, "launch_us", "launch_ns", offsetof(gt_launch, launch_ns));
	add_ns(st, "start_us", "start_ns", offsetof(gt_launch, start_ns));
	add_ns(st, "latency_us", "latency_ns", offsetof(gt_launch, latency_ns));
	add_u32(st, "queue", offsetof(gt_launch, queue));
	return 0;
}

/* ---- idle -------------------------------------------------------------- */

static const char *idle_stream(const void *ctx, uint64_t row)
{
	stats_table *st = (stats_table *)ctx;
	return stream_text(st, ((const gt_idle_stat *)row_at(st, row))->track);
}

int stats_table_idle(stats_table *st, const gt_stats_scope *s, const gt_idle_stats *i, int64_t kernel_wait_ns,
		     bool brief)
{
	begin(st, s, "idle", "idle", i->rows, sizeof *i->rows, i->count);
	add(st, (gt_column){.name = "stream", .type = GT_COL_STR, .get_str = idle_stream, .get_ctx = st});
	if (!brief) {
		add_u64(st, "spans", offsetof(gt_idle_stat, spans));
		add_u64(st, "gaps", offsetof(gt_idle_stat, gaps));
	}
	add_ns(st, "idle_us", "idle_ns", offsetof(gt_idle_stat, idle_ns));
	static const char *const us[] = {"host_wait_us", "kernel_wait_us", "other_us"};
	static const char *const ns[] = {"host_wait_ns", "kernel_wait_ns", "other_ns"};
	static const char *const sh[] = {"host_wait_share", "kernel_wait_share", "other_share"};
	for (int k = 0; k < GT_IDLE_KIND_COUNT; k++)
		add_ns(st, us[k], ns[k], offsetof(gt_idle_stat, kind_ns) + (size_t)k * sizeof(int64_t));
	if (shares(st, GT_IDLE_KIND_COUNT) < 0)
		return -1;
	for (uint32_t r = 0; r < i->count; r++)
		for (int k = 0; k < GT_IDLE_KIND_COUNT; k++)
			st->share[(size_t)r * GT_IDLE_KIND_COUNT + (size_t)k] = gt_share6(i->rows[r].kind_ns[k], i->rows[r].idle_ns);
	for (int k = 0; k < GT_IDLE_KIND_COUNT; k++)
		if (!brief || k == GT_IDLE_HOST_WAIT)
			add_share(st, sh[k], (size_t)k, GT_IDLE_KIND_COUNT);
	meta(st, "kernel_wait_below_ns", kernel_wait_ns);
	return 0;
}
