/* Opening the OpenCL device on a thread while the trace loads. Opening does
 * not depend on the trace, and a GPU driver's start-up is long (about a
 * quarter of a second for NVIDIA's on the H200; PoCL's platform about 0.05 s
 * on the development machine): started first, it is hidden behind the load
 * instead of added to it. */
#ifndef GT_CLI_DEVICE_OPEN_H
#define GT_CLI_DEVICE_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "cl/cl.h"

/* The work a command can run on an OpenCL device. */
enum gt_gpu_work {
	GT_WORK_FOREST_PATH, /* critical-path --model forest, compare's */
	GT_WORK_CAUSAL_PATH, /* critical-path, compare's */
	GT_WORK_QUERY,       /* query */
	GT_WORK_RENDER,      /* render's viewport query */
	GT_WORK_VERIFY,      /* verify's hierarchy check */
};

/* --device auto's rule: whether auto takes a GPU for `work` on `spans`
 * spans. It does only where the GPU path measured faster end to end than
 * the host path on the same machine (BENCHMARKS.md, "--device auto"); the
 * table in device_open.c holds the measured sizes. */
bool gt_cli_auto_takes_gpu(enum gt_gpu_work work, uint64_t spans);

/* Starts opening c->device (and building or loading the work's program) on
 * a thread. Nothing happens when --device is host, or when it is auto and
 * the rule takes the GPU at no size for this work. */
void gt_cli_device_prefetch(const struct gt_common *c, enum gt_gpu_work work);

/* Opens c->device for `work` on `spans` spans: the host path when it is
 * auto and the rule says so (*cl NULL, chosen says why), else the
 * prefetched device when one was started for the same --device, else
 * gt_cl_open now. */
int gt_cli_device_open(const struct gt_common *c, enum gt_gpu_work work, uint64_t spans, gt_cl **cl,
		       char *chosen, size_t chosen_len, gt_error *err);

/* Whether c->device names a device, which opens or fails: not host, auto or
 * gpu, which may come out as the host path. Work that can start on the
 * host may then open it at its first use (gt_cli_device_open), behind that
 * work. */
bool gt_cli_device_named(const struct gt_common *c);

/* A named device to open at the first step that needs it: pass
 * gt_cli_device_open_deferred and a pointer to this as an engine's opener
 * (gt_causal_cl_engine_defer); chosen then holds what gt_cli_device_open
 * tells. */
typedef struct gt_cli_deferred_device {
	const struct gt_common *c;
	enum gt_gpu_work work;
	uint64_t spans;
	char chosen[512];
} gt_cli_deferred_device;

int gt_cli_device_open_deferred(void *deferred, gt_cl **cl, gt_error *err);

/* Closes cl (NULL: nothing) on a thread of its own while the caller goes
 * on to write its output: a GPU driver's teardown is long (0.065-0.075 s
 * for NVIDIA's on the H200), and nothing written needs the device. On the
 * calling thread where no thread starts, and in a fault-injection build
 * (whose walk meets the fault points in one order). */
void gt_cli_device_close_beside(gt_cl *cl);

/* Waits for a prefetch nobody took and closes its device, and for a close
 * beside: before exit, so no driver start-up or teardown is still running
 * while the process ends. */
void gt_cli_device_settle(void);

#endif
