/* cl/: the OpenCL runtime, and nothing of any analysis: each analysis's
 * device half lives in the analysis's room, beside its host reference.
 * May use: base/.
 *
 * The runtime (cl_runtime.c) is the one owner of platform, device, context, queue and
 * programs. Every kernel in gputrace goes through it. Programs are built from
 * the .cl sources embedded at build time and cached as binaries per
 * (device, driver version, source hash) under $XDG_CACHE_HOME/gputrace.
 *
 * A NULL gt_cl means "the host path": analyses then run their plain C
 * reference implementation. Beside the runtime, the primitives every
 * device-resident analysis needs and none owns: a sort and a scan
 * (kernels/sort.cl, below). */
#ifndef GT_CL_H
#define GT_CL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "base/base.h"

typedef struct gt_cl gt_cl;

/* One OpenCL device as `gputrace devices` lists it; index is what --device N
 * takes (all platforms' devices, in the loader's order). */
typedef struct gt_cl_device_info {
	unsigned index;
	char platform[128];
	char name[128];
	char type[16];       /* "gpu", "cpu", "accelerator" or "other" */
	char version[128];   /* CL_DEVICE_VERSION */
	char driver[128];    /* CL_DRIVER_VERSION */
	bool is_gpu, is_cpu;
	unsigned compute_units;
	uint64_t global_mem;
	uint64_t max_alloc;
	size_t max_work_group;
} gt_cl_device_info;

/* Lists every device; *out is malloc'ed (free it). No platform is not an
 * error: *count is then 0. */
int gt_cl_list(gt_cl_device_info **out, size_t *count, gt_error *err);

/* The device asked for: spec when given, else $GPUTRACE_DEVICE, else
 * "auto" (gt_cl_open and the command line resolve it alike). */
const char *gt_cl_device_spec(const char *spec);

/* Chooses and opens a device. spec: "gpu" (or "auto"), "host", an index N as
 * listed by gt_cl_list, or a case-insensitive substring of the platform or
 * device name; NULL means $GPUTRACE_DEVICE, else "auto". gpu and auto take a
 * GPU, else the host path (never a CPU OpenCL device: PoCL is slower than the
 * host path; name it or its index to use it). The command line applies its
 * per-command rule for auto before it calls this (cli/device_open.h). On success *out is the runtime, or
 * NULL for the host path; chosen (if non-NULL) receives a one-line
 * description of the choice for the CLI's notice. */
int gt_cl_open(gt_cl **out, const char *spec, char *chosen, size_t chosen_len, gt_error *err);
void gt_cl_close(gt_cl *cl); /* accepts NULL */

/* Device buffers kept for reuse. A step that runs in batches would create
 * and release a dozen buffers for each (a GPU driver's allocation and
 * free, each synchronising); given back, a buffer of up to 64 MiB serves a
 * later request it fits (wasting less than half) until gt_cl_close. Only for commands
 * on gt_cl_queue (one in-order queue): a buffer given back while commands
 * still use it goes only to commands enqueued after them. Thread-safe.
 * take: a buffer of at least size bytes (its contents undefined), kept or
 * new (CL_MEM_READ_WRITE); give: NULL is ignored. */
int gt_cl_buffer_take(gt_cl *cl, uint64_t size, cl_mem *out, gt_error *err);
void gt_cl_buffer_give(gt_cl *cl, cl_mem b);

cl_context gt_cl_context(const gt_cl *cl);
cl_command_queue gt_cl_queue(const gt_cl *cl); /* in-order, profiling enabled */
cl_device_id gt_cl_device(const gt_cl *cl);
const char *gt_cl_device_name(const gt_cl *cl);
uint64_t gt_cl_max_alloc(const gt_cl *cl);   /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
uint64_t gt_cl_global_mem(const gt_cl *cl);  /* CL_DEVICE_GLOBAL_MEM_SIZE */
size_t gt_cl_max_work_group(const gt_cl *cl);
unsigned gt_cl_compute_units(const gt_cl *cl); /* CL_DEVICE_MAX_COMPUTE_UNITS */

/* Returns the built program for kernels/<name>.cl (cached in memory and on
 * disk); the runtime owns it. Both calls may come from several threads at
 * once, as may commands on the queue (OpenCL's calls are thread-safe but
 * for setting one kernel's arguments: each caller creates its own). */
int gt_cl_program(gt_cl *cl, const char *name, cl_program *out, gt_error *err);
/* Creates a kernel from that program; the caller releases it. */
int gt_cl_kernel(gt_cl *cl, const char *program, const char *kernel, cl_kernel *out, gt_error *err);

/* Path of the on-disk cache entry for kernels/<name>.cl on this device;
 * -1 when there is no cache directory. */
int gt_cl_cache_path(const gt_cl *cl, const char *name, char *buf, size_t len);
/* Whether the last program gt_cl_program built came from the disk cache. */
bool gt_cl_last_program_cached(const gt_cl *cl);

/* Symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *gt_cl_error_name(cl_int code);
/* If rc is not CL_SUCCESS: sets err (GT_EDEVICE) naming the call, the code's
 * symbolic name and the device, and returns -1; else 0. */
int gt_cl_check(const gt_cl *cl, cl_int rc, const char *call, gt_error *err);

/* True for the codes that mean "too little device memory or resources":
 * gt_cl_check then sets err->cause to GT_CAUSE_DEVICE_MEMORY. */
bool gt_cl_memory_error(cl_int code);

/* Device time of a finished event in nanoseconds (profiling). */
uint64_t gt_cl_event_ns(cl_event ev);

/* The events of a run's launches, kept for their device time (events.c).
 * Starts as {0}. */
typedef struct gt_cl_events {
	cl_event *ev;
	size_t n, cap;
} gt_cl_events;
/* Keeps ev; on out of memory releases it and fails with GT_EDEVICE. */
int gt_cl_events_keep(gt_cl_events *e, cl_event ev, gt_error *err);
/* Sets k's arguments first, first + 1, ...: nargs pairs of (size,
 * pointer), as GT_CL_ARG writes them; GT_EDEVICE naming the kernel and the
 * argument where one fails (each is a fault point "cl"). The _va form is
 * for wrappers of their own. */
int gt_cl_set_args(gt_cl *cl, cl_kernel k, const char *name, int first, gt_error *err, int nargs, ...);
int gt_cl_set_args_va(gt_cl *cl, cl_kernel k, const char *name, int first, gt_error *err, int nargs, va_list ap);
#define GT_CL_ARG(x) sizeof(x), (const void *)&(x)

/* Enqueues k (1-D, global a multiple of local) on cl's queue and keeps its
 * event; GT_EDEVICE naming the kernel when it fails (err->cause
 * GT_CAUSE_DEVICE_MEMORY for the memory errors, unless err already held
 * one). */
int gt_cl_launch(gt_cl *cl, cl_kernel k, const char *name, size_t global, size_t local, gt_cl_events *e,
		 gt_error *err);
/* The summed device time of every kept event (they must have finished). */
uint64_t gt_cl_events_ns(const gt_cl_events *e);
/* Releases every kept event and the list. */
void gt_cl_events_release(gt_cl_events *e);

/* Uploads (upload.c): copying columns to device buffers while the caller
 * is still producing them. The caller fills rows in order and says how far
 * it got; a thread of the upload's own copies each finished piece while
 * the next is filled.
 *
 * One column: row r's bytes are host[r * row_bytes ...], bound for the same
 * offset of buf. */
typedef struct gt_upload_column {
	cl_mem buf;
	const void *host;
	size_t row_bytes;
} gt_upload_column;

enum { GT_UPLOAD_MAX_COLUMNS = 4 };

typedef struct gt_upload gt_upload;

/* Starts an upload of up to GT_UPLOAD_MAX_COLUMNS columns on cl's queue.
 * Without a thread (none could start, or a fault-injection build, whose
 * call order must not depend on scheduling) each piece is copied in
 * gt_upload_ready instead. The queue is the upload's until it finishes. */
int gt_upload_start(gt_upload **out, gt_cl *cl, const gt_upload_column *cols, int ncols, gt_error *err);

/* Rows [0, rows) of every column are final and may be copied. */
void gt_upload_ready(gt_upload *u, uint64_t rows);

/* Waits until every ready row is on the device and ends the upload;
 * *transfer_ns gets the copies' device time (profiling events). Fails with
 * GT_EDEVICE when a copy failed. */
int gt_upload_finish(gt_upload *u, uint64_t *transfer_ns, gt_error *err);

/* The device's sort and scan (device_sort.c, kernels/sort.cl), on
 * buffers already on the device: what a device-resident analysis orders
 * its spans, points and tracks with, and places buckets by, without a trip
 * through the host. Both give exactly what the host's gt_radix_sort_u64
 * and a running sum give. The launches' events go to ev (their device
 * time).
 *
 * Whether cl runs the kernels' work-groups of 256 (the calls below fail
 * on a device that does not, GT_EDEVICE). */
bool gt_cl_sort_fits(gt_cl *cl);

/* Sorts the n pairs (key[i], val[i]) by key, stable, in place (key: n
 * ulong, val: n uint): gt_radix_sort_u64's order. A pass a 4-bit digit,
 * skipping the digits every key shares. -1 with err: key and val then
 * hold the pairs in some order, not necessarily sorted or as they were. */
int gt_cl_sort_u64(gt_cl *cl, cl_mem key, cl_mem val, uint32_t n, gt_cl_events *ev, gt_error *err);

/* The exclusive running sum of n uint: out[i] = in[0] + ... + in[i - 1]
 * (out may be in); *total (where not NULL) the sum of all n, read back. A
 * total past 32 bits fails (GT_EINPUT): the sums would have wrapped.
 * -1 with err: out's contents (and in's, where they are one buffer) are
 * then undefined. */
int gt_cl_scan_u32(gt_cl *cl, cl_mem in, cl_mem out, uint32_t n, uint64_t *total, gt_cl_events *ev,
		   gt_error *err);

/* Items 0..n-1 by their key (n uint; a key of buckets or more, GT_NONE
 * among them, leaves its item out), as the host's counting sorts give
 * them: items (n uint) holds bucket b's items, by index, at first[b] ..
 * first[b + 1] (first: buckets + 1 uint; first[buckets] the items kept,
 * and the left out follow them). -1 with err. */
int gt_cl_bucket(gt_cl *cl, cl_mem key, uint32_t n, uint32_t buckets, cl_mem first, cl_mem items, gt_cl_events *ev,
		 gt_error *err);

#endif
