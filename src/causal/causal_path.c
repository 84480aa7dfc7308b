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
 * anchor, kept in path_duration until the end. Every anchor that is not a
 * root is where some walk left its range: those exits alone jump to their
 * anchors' until each holds a root (few rounds, over few points), then
 * every point takes its anchor's root in one pass, and its duration is its
 * time less its root's. */
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
	uint32_t *exits; /* the points outside the range where its walks left it */
	uint32_t nexits, cap;
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
				if (!walk_push(&r->exits, &r->cap, &r->nexits, q))
					r->rc = -1;
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

/* Point v takes its anchor's anchor, where its anchor is not a root;
 * true where that changed it. Threads may read an anchor another is
 * changing: every value read is an ancestor, and the root, once reached,
 * is the same. */
static bool jump(int64_t *state, const uint32_t *parent, uint32_t v)
{
	uint32_t x = (uint32_t)__atomic_load_n(&state[v], __ATOMIC_RELAXED);
	if (is_root(parent, x))
		return false;
	int64_t y = __atomic_load_n(&state[x], __ATOMIC_RELAXED);
	if (y == x)
		return false;
	__atomic_store_n(&state[v], y, __ATOMIC_RELAXED);
	return true;
}

/* One round of jumps of the range's exits: every anchor that is not a
 * root is an exit, so the exits' anchors end at roots. */
static void *jump_exits(void *arg)
{
	path_range *r = arg;
	r->moved = false;
	for (uint32_t i = 0; i < r->nexits; i++)
		r->moved |= jump(r->state, r->parent, r->exits[i]);
	return NULL;
}

/* Each point of the range to its anchor's root: the exits hold roots now,
 * and only they are read. */
static void *jump_range(void *arg)
{
	path_range *r = arg;
	for (uint32_t v = r->a; v < r->b; v++)
		jump(r->state, r->parent, v);
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
	bool no_memory = false;
	for (unsigned j = 0; j < k; j++) {
		r[j] = (path_range){.parent = parent, .time = time, .state = path_duration,
				    .a = (uint32_t)((uint64_t)n * j / k), .b = (uint32_t)((uint64_t)n * (j + 1) / k),
				    .exits = malloc(1024 * sizeof *r[j].exits), .cap = 1024};
		no_memory |= !r[j].exits;
	}
	if (no_memory) {
		for (unsigned j = 0; j < k; j++)
			free(r[j].exits);
		return -1;
	}
	gt_run_jobs(anchor_range, r, sizeof *r, k);
	int rc = 0;
	for (unsigned j = 0; j < k; j++)
		rc = rc < 0 || r[j].rc < 0 ? -1 : rc | r[j].rc;
	/* a chain of anchors is at most n long: 33 rounds of in-place jumps
	 * (each at least halves it) settle one that ends at a root */
	bool moved = true;
	for (int round = 0; rc == 0 && moved && round < 34; round++) {
		gt_run_jobs(jump_exits, r, sizeof *r, k);
		moved = false;
		for (unsigned j = 0; j < k; j++)
			moved |= r[j].moved;
	}
	if (rc == 0) {
		gt_run_jobs(jump_range, r, sizeof *r, k);
		gt_run_jobs(finish_range, r, sizeof *r, k);
		for (unsigned j = 0; j < k; j++)
			rc |= r[j].rc;
	}
	for (unsigned j = 0; j < k; j++)
		free(r[j].exits);
	return rc;
}
