/* The device's sort and scan (kernels/sort.cl), on buffers already on the
 * device: what a device-resident analysis orders its spans, points and
 * tracks with, and places buckets by, without a trip through the host.
 * Both give exactly what the host's gt_radix_sort_u64 and a running sum
 * give. The launches' events go to ev (their device time). */
#ifndef GT_DEVICE_SORT_H
#define GT_DEVICE_SORT_H

#include <stdbool.h>
#include <stdint.h>

#include "cl.h"

/* Whether cl runs the kernels' work-groups of 256 (the calls below fail
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

#endif
