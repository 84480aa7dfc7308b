/* The path step on the host, reduced to what the causal result reads. A
 * binding's gaps are time differences (gap[v] = time[v] - time[parent]),
 * so the sum of the gaps from v up to its root telescopes:
 * path_duration(v) = time[v] - time[root(v)]. One walk per point up to a
 * point already known, with the walked points written on the way back,
 * gives every path_duration in O(n), without forest.h's five other
 * outputs. A zero-gap cycle is left to gt_critpath_host. */
#include <stdlib.h>

#include "causal_internal.h"

#define UNSET INT64_MIN
#define ON_WALK (INT64_MIN + 1)

/* Fills path_duration (n elements); returns 1 where the binding holds a
 * cycle (path_duration is then garbage), -1 out of memory. */
int causal_path_host(const uint32_t *parent, const int64_t *time, uint32_t n, int64_t *path_duration)
{
	uint32_t cap = 1024, top = 0;
	uint32_t *walk = malloc(cap * sizeof *walk);
	if (!walk)
		return -1;
	for (uint32_t p = 0; p < n; p++)
		path_duration[p] = UNSET;
	int rc = 0;
	for (uint32_t p = 0; p < n && rc == 0; p++) {
		if (path_duration[p] != UNSET)
			continue;
		/* up to a root or a known point, marking the way */
		uint32_t u = p;
		int64_t root_time = 0;
		for (;;) {
			if (top == cap) {
				uint32_t *grown = cap > UINT32_MAX / 2 ? NULL : realloc(walk, 2 * (size_t)cap * sizeof *walk);
				if (!grown) {
					rc = -1;
					break;
				}
				walk = grown;
				cap *= 2;
			}
			walk[top++] = u;
			path_duration[u] = ON_WALK;
			uint32_t q = parent[u];
			if (q == GT_CP_ROOT) {
				root_time = time[u];
				break;
			}
			if (path_duration[q] == ON_WALK) {
				rc = 1;
				break;
			}
			if (path_duration[q] != UNSET) {
				root_time = time[q] - path_duration[q];
				break;
			}
			u = q;
		}
		if (rc != 0)
			break;
		while (top)
			u = walk[--top], path_duration[u] = time[u] - root_time;
	}
	gt_big_free(walk);
	return rc;
}
