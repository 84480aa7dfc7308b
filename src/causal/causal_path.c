/* The path step on the host, reduced to what the causal result reads. A
 * binding's gaps are time differences (gap[v] = time[v] - time[parent]),
 * so the sum of the gaps from v up to its root telescopes:
 * path_duration(v) = time[v] - time[root(v)]. One walk per point up to a
 * point already known, with the walked points written on the way back,
 * gives every path_duration in O(n), without forest.h's five other
 * outputs. A zero-gap cycle is left to gt_critpath_host.
 *
 * On threads, for one large binding: each range of points walks up only
 * inside itself, to the first ancestor outside it (or its root): its
 * anchor, kept in path_duration until the end. The anchors then jump to
 * their anchors' until each is a root (few rounds: a walk leaves a range
 * only at another's few exits), and every point's duration is its time
 * less its root's. */
#include <stdlib.h>

#include "causal_internal.h"

#define UNSET INT64_MIN
#define ON_WALK (INT64_MIN + 1)

/* Pushes u on a walk, grown as it fills; false out of memory. */
static bool walk_push(uint32_t **walk, uint32_t *cap, uint32_t *top, uint32_t u)
{
	if (*top == *cap) {
		uint32_t *grown = *cap > UINT32_MAX / 2 ? NULL : realloc(*walk, 2 * (size_t)*cap * sizeof **walk);
		if (!grown)
			return false;
		*walk = grown, *cap *= 2;
	}
	(*walk)[(*top)++] = u;
	return true;
}

/* Fills path_duration (n elements) on one thread; 1 where the binding
 * holds a cycle (path_duration is then garbage), -1 out of memory. */
static int path_one_thread(const uint32_t *parent, const int64_t *time, uint32_t n, int64_t *path_duration)
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
			if (!walk_push(&walk, &cap, &top, u)) {
				rc = -1;
				break;
			}
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
	free(walk);
	return rc;
}

typedef struct path_range {
	const uint32_t *parent;
	const int64_t *time;
	int64_t *state; /* path_duration: walk marks, then anchors (>= 0), then the answers */
	uint32_t a, b;
	int rc;         /* 1: a cycle inside the range; -1 out of memory */
	bool moved;     /* a jump changed an anchor this round */
} path_range;

static bool is_root(const uint32_t *parent, uint32_t v)
{
	return parent[v] == GT_CP_ROOT;
}

/* Each point's anchor: up its parents while they are in the range and not
 * yet anchored; the walk's points take the anchor found. */
static void *anchor_range(void *arg)
{
	path_range *r = arg;
	uint32_t cap = 1024, top = 0;
	uint32_t *walk = malloc(cap * sizeof *walk);
	r->rc = walk ? 0 : -1;
	for (uint32_t p = r->a; p < r->b; p++)
		r->state[p] = UNSET;
	for (uint32_t p = r->a; p < r->b && r->rc == 0; p++) {
		if (r->state[p] != UNSET)
			continue;
		uint32_t u = p;
		int64_t anchor = 0; /* set before each break that reaches the use below */
		for (;;) {
			if (!walk_push(&walk, &cap, &top, u)) {
				r->rc = -1;
				break;
			}
			r->state[u] = ON_WALK;
			uint32_t q = r->parent[u];
			if (q == GT_CP_ROOT) {
				anchor = u;
				break;
			}
			if (q < r->a || q >= r->b) {
				anchor = q;
				break;
			}
			if (r->state[q] == ON_WALK) {
				r->rc = 1;
				break;
			}
			if (r->state[q] != UNSET) {
				anchor = r->state[q];
				break;
			}
			u = q;
		}
		if (r->rc != 0)
			break;
		while (top)
			r->state[walk[--top]] = anchor;
	}
	free(walk);
	return NULL;
}

/* One round of jumps: an anchor that is not a root takes its own anchor.
 * Threads may read an anchor another is changing: every value read is an
 * ancestor, and the root, once reached, is the same. */
static void *jump_range(void *arg)
{
	path_range *r = arg;
	r->moved = false;
	for (uint32_t v = r->a; v < r->b; v++) {
		uint32_t x = (uint32_t)__atomic_load_n(&r->state[v], __ATOMIC_RELAXED);
		if (is_root(r->parent, x))
			continue;
		int64_t y = __atomic_load_n(&r->state[x], __ATOMIC_RELAXED);
		if (y != x) {
			__atomic_store_n(&r->state[v], y, __ATOMIC_RELAXED);
			r->moved = true;
		}
	}
	return NULL;
}

/* Durations from the roots (each range reads only its own anchors now);
 * 1 where an anchor settled short of a root (a cycle across ranges). */
static void *finish_range(void *arg)
{
	path_range *r = arg;
	for (uint32_t v = r->a; v < r->b && r->rc == 0; v++) {
		uint32_t x = (uint32_t)r->state[v];
		if (!is_root(r->parent, x))
			r->rc = 1;
		else
			r->state[v] = r->time[v] - r->time[x];
	}
	return NULL;
}

int causal_path_host(const uint32_t *parent, const int64_t *time, uint32_t n, unsigned threads,
		     int64_t *path_duration)
{
	unsigned k = causal_range_jobs(n, threads);
	if (k == 1)
		return path_one_thread(parent, time, n, path_duration);
	path_range r[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		r[j] = (path_range){parent, time, path_duration, (uint32_t)((uint64_t)n * j / k),
				    (uint32_t)((uint64_t)n * (j + 1) / k), 0, false};
	gt_run_jobs(anchor_range, r, sizeof *r, k);
	int rc = 0;
	for (unsigned j = 0; j < k; j++)
		rc = rc < 0 || r[j].rc < 0 ? -1 : rc | r[j].rc;
	/* a chain of anchors is at most n long: 33 rounds of in-place jumps
	 * (each at least halves it) settle one that ends at a root */
	bool moved = true;
	for (int round = 0; rc == 0 && moved && round < 34; round++) {
		gt_run_jobs(jump_range, r, sizeof *r, k);
		moved = false;
		for (unsigned j = 0; j < k; j++)
			moved |= r[j].moved;
	}
	if (rc == 0) {
		gt_run_jobs(finish_range, r, sizeof *r, k);
		for (unsigned j = 0; j < k; j++)
			rc |= r[j].rc;
	}
	return rc;
}
