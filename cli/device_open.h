/* Opening the OpenCL device on a thread while the trace loads. Opening does
 * not depend on the trace, and a GPU driver's start-up is long (about a
 * quarter of a second for NVIDIA's on the H200; PoCL's platform about 0.05 s
 * on the development machine): started first, it is hidden behind the load
 * instead of added to it. */
#ifndef GT_CLI_DEVICE_OPEN_H
#define GT_CLI_DEVICE_OPEN_H

#include <stddef.h>

#include "cli.h"
#include "cl/cl.h"

/* Starts opening c->device (and building or loading `program`, NULL for
 * none) on a thread. Nothing happens when --device is host. */
void gt_cli_device_prefetch(const struct gt_common *c, const char *program);

/* gt_cl_open for c->device: the prefetched device when one was started for
 * the same --device, else opened now. */
int gt_cli_device_open(const struct gt_common *c, gt_cl **cl, char *chosen, size_t chosen_len, gt_error *err);

/* Waits for a prefetch nobody took and closes its device: before exit, so
 * no driver start-up is still running while the process ends. */
void gt_cli_device_settle(void);

#endif
