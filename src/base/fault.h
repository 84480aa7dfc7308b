/* Fault injection for tests: `make FAULTS=1` builds with -DGT_FAULT_INJECTION
 * (into build-faults), and then GPUTRACE_FAULT="site:N[,site:N...]" makes
 * gt_fault_hit(site) return true on the Nth call at that site (1-based).
 * Sites in use: "write" (output bytes reaching the file), "alloc" (the
 * allocations of ingest, the model and the writers), "read" (read(2) of the
 * trace input, failing with EIO), "cl" (a checked OpenCL call that worked
 * is made to fail: CL_MEM_OBJECT_ALLOCATION_FAILURE for clCreateBuffer,
 * else CL_OUT_OF_RESOURCES), "span-id" (the span that would not fit a
 * 32-bit id: a stand-in for 2^32 spans in tests/limits.sh).
 * tests/fault_walk.sh walks all but span-id. In
 * ordinary builds the check compiles to false. */
#ifndef GT_FAULT_H
#define GT_FAULT_H

#include <stdbool.h>

#ifdef GT_FAULT_INJECTION
bool gt_fault_hit(const char *site);
/* Whether GPUTRACE_FAULT names site: code that skips a site's calls in
 * bulk makes them one by one then. */
bool gt_fault_armed(const char *site);
#else
static inline bool gt_fault_hit(const char *site)
{
	(void)site;
	return false;
}
static inline bool gt_fault_armed(const char *site)
{
	(void)site;
	return false;
}
#endif

#endif
