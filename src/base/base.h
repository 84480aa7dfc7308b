/* base/: what every room of the library uses and nothing else: the error
 * struct the core fills instead of printing (gt_error.h), fault injection
 * for tests (fault.h), the galloping search over sorted runs
 * (sorted_search.h), a deterministic random stream (splitmix.h), large
 * arrays on huge pages (big_alloc.h), jobs on threads (jobs.h),
 * little-endian integers in byte buffers (le_bytes.h), shares rounded
 * to millionths (share.h), a comparison sort on threads (par_sort.h),
 * stable radix sorts of (key, value) pairs (radix_sort.h), a few
 * sorted runs merged (merge_runs.h),
 * the monotonic clock (clock.h), gzip's CRC-32 (crc32.h) and unmapping
 * on threads (unmap.h). It includes nothing of the project's. */
#ifndef GT_BASE_H
#define GT_BASE_H

#include "big_alloc.h"
#include "clock.h"
#include "crc32.h"
#include "gt_error.h"
#include "fault.h"
#include "sorted_search.h"
#include "splitmix.h"
#include "jobs.h"
#include "le_bytes.h"
#include "merge_runs.h"
#include "share.h"
#include "par_sort.h"
#include "radix_sort.h"
#include "unmap.h"

#endif
