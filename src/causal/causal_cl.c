/* The engine that runs the causal path's graph steps on a device. */
#include "causal_internal.h"
#include "cpm_cl_run.h"

#include <stddef.h>

static gt_causal_cl_engine *engine_of(void *ctx)
{
	return ctx;
}

int gt_causal_cl_engine_device(gt_causal_cl_engine *e, gt_cl **cl, gt_error *err)
{
	if (!e->open) {
		*cl = e->cl;
		return e->cl ? 0 : gt_fail(err, GT_EDEVICE, "the causal engine was given no OpenCL device");
	}
	pthread_mutex_lock(&e->open_lock);
	if (e->open_rc == 1) {
		e->open_rc = e->open(e->open_arg, &e->cl, &e->open_err) < 0 || !e->cl ? -1 : 0;
		if (e->open_rc < 0 && !e->open_err.msg[0])
			gt_fail(&e->open_err, GT_EDEVICE, "no OpenCL device was opened");
	}
	int rc = e->open_rc;
	*cl = e->cl;
	pthread_mutex_unlock(&e->open_lock);
	if (rc < 0)
		*err = e->open_err;
	return rc;
}

/* The step's device, opened now where the engine defers it. */
static gt_cl *device_of(gt_causal_cl_engine *e, gt_error *err)
{
	gt_cl *cl;
	return gt_causal_cl_engine_device(e, &cl, err) < 0 ? NULL : cl;
}

static int bind_step(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err)
{
	gt_causal_cl_engine *e = engine_of(ctx);
	gt_cl *cl = device_of(e, err);
	if (!cl)
		return -1;
	gt_cpm_cl_stats st = {0};
	uint64_t t0 = gt_clock_ns();
	int rc = gt_cpm_bind_cl(cl, g, out, &st, err);
	e->stats.bind_wall_ns += gt_clock_ns() - t0;
	e->stats.bind_ns += st.kernel_ns;
	e->stats.launches += st.launches;
	return rc;
}

static int path_step(void *ctx, const uint32_t *parent, const int64_t *gap, uint32_t n, gt_cp_rows *out,
		     gt_cp_summary *sum, gt_error *err)
{
	gt_causal_cl_engine *e = engine_of(ctx);
	gt_cl *cl = device_of(e, err);
	if (!cl)
		return -1;
	gt_cp_stats st = {0};
	uint64_t t0 = gt_clock_ns();
	int rc = gt_critpath_cl(cl, parent, gap, n, NULL, out, sum, &st, err);
	e->stats.path_wall_ns += gt_clock_ns() - t0;
	e->stats.path_ns += st.kernel_ns;
	e->stats.launches += st.launches;
	return rc;
}

static int path_durations_step(void *ctx, const uint32_t *parent, const int64_t *time, uint32_t n,
			       int64_t *path_duration, gt_error *err)
{
	gt_causal_cl_engine *e = engine_of(ctx);
	gt_cl *cl = device_of(e, err);
	if (!cl)
		return -1;
	gt_cpm_cl_stats st = {0};
	uint64_t t0 = gt_clock_ns();
	int rc = causal_path_cl(cl, parent, time, n, path_duration, &st, err);
	e->stats.path_wall_ns += gt_clock_ns() - t0;
	e->stats.path_ns += st.kernel_ns;
	e->stats.launches += st.launches;
	return rc;
}

static int bind_path_step(void *ctx, const gt_cpm_graph *g, gt_cpm_binding *out, int64_t **path_duration,
			  const gt_cpm_read_hook *read, gt_error *err)
{
	gt_causal_cl_engine *e = engine_of(ctx);
	gt_cl *cl = device_of(e, err);
	if (!cl)
		return -1;
	gt_cpm_cl_stats st = {0};
	uint64_t t0 = gt_clock_ns();
	int rc = causal_bind_path_cl(cl, g, out, path_duration, read, &st, err);
	e->stats.bind_wall_ns += gt_clock_ns() - t0;
	e->stats.bind_ns += st.kernel_ns;
	e->stats.launches += st.launches;
	return rc;
}

static int float_step(void *ctx, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs, gt_error *err)
{
	gt_causal_cl_engine *e = engine_of(ctx);
	gt_cl *cl = device_of(e, err);
	if (!cl)
		return -1;
	gt_cpm_cl_stats st = {0};
	uint64_t t0 = gt_clock_ns();
	int rc = cpm_float_cl(cl, g, true, lt, fs, &st, err); /* the driver's graphs are in shape */
	e->stats.float_wall_ns += gt_clock_ns() - t0;
	e->stats.float_ns += st.kernel_ns;
	e->stats.float_launches += st.launches;
	if (rc == 0 && fs)
		e->stats.float_rounds += fs->rounds;
	return rc;
}

void gt_causal_cl_engine_init(gt_causal_cl_engine *e, gt_cl *cl)
{
	*e = (gt_causal_cl_engine){
		.engine = {.bind = bind_step, .path = path_step, .path_durations = path_durations_step,
			   .floats = float_step, .bind_path_durations = bind_path_step},
		.cl = cl,
	};
	e->engine.ctx = e;
}

void gt_causal_cl_engine_defer(gt_causal_cl_engine *e, gt_causal_cl_opener open, void *arg)
{
	gt_causal_cl_engine_init(e, NULL);
	e->open = open;
	e->open_arg = arg;
	e->open_rc = 1;
	pthread_mutex_init(&e->open_lock, NULL);
}

void gt_causal_cl_engine_fini(gt_causal_cl_engine *e)
{
	if (e->open)
		pthread_mutex_destroy(&e->open_lock);
}
