/* The host reference of the critical path (contract in forest.h): each row
 * is resolved once by walking up to the first already-resolved row with an
 * explicit stack, so the work is O(n) and chains of any length are fine. */
#include <stdlib.h>
#include <string.h>

#include "forest.h"
#include "base/base.h"

const char *const gt_cp_flag_names[GT_CP_FLAG_COUNT] = {
	"invalid_parent", "invalid_duration", "cycle", "overflow", "path_truncated",
};

int gt_cp_rows_alloc(gt_cp_rows *r, uint32_t n, gt_error *err)
{
	size_t m = n ? n : 1;
	r->path_duration = gt_big_malloc(m, sizeof *r->path_duration);
	r->slack = gt_big_malloc(m, sizeof *r->slack);
	r->critical_predecessor = gt_big_malloc(m, sizeof *r->critical_predecessor);
	r->root = gt_big_malloc(m, sizeof *r->root);
	r->hop_count = gt_big_malloc(m, sizeof *r->hop_count);
	r->critical_mask = gt_big_malloc(m, 1);
	if (!r->path_duration || !r->slack || !r->critical_predecessor || !r->root ||
	    !r->hop_count || !r->critical_mask) {
		gt_cp_rows_free(r);
		return gt_fail(err, GT_EINPUT, "out of memory for %u critical-path rows", n);
	}
	return 0;
}

void gt_cp_rows_free(gt_cp_rows *r)
{
	free(r->path_duration);
	free(r->slack);
	free(r->critical_predecessor);
	free(r->root);
	free(r->hop_count);
	free(r->critical_mask);
	memset(r, 0, sizeof *r);
}

enum { UNSEEN = 0, ON_STACK = 1, DONE = 2 };

static void set_invalid(gt_cp_rows *o, uint32_t i)
{
	o->path_duration[i] = -1;
	o->root[i] = GT_CP_NONE;
	o->hop_count[i] = GT_CP_NONE;
}

/* Resolves path_duration, root and hop_count of every row; returns the
 * CYCLE and OVERFLOW flags found. */
static uint32_t resolve(const uint32_t *parent, const int64_t *dur, uint32_t n,
			uint8_t *state, uint32_t *stack, gt_cp_rows *o)
{
	uint32_t flags = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (state[i] == DONE)
			continue;
		/* Walk up until a resolved row, a row of this walk (a cycle),
		 * a locally invalid row or a root. */
		uint32_t top = 0, j = i;
		int end; /* 0: next is resolved, 1: cycle, 2: top is invalid, 3: top is a root */
		for (;;) {
			if (state[j] == DONE) {
				end = 0;
				break;
			}
			if (state[j] == ON_STACK) {
				end = 1;
				break;
			}
			state[j] = ON_STACK;
			stack[top++] = j;
			uint32_t p = parent[j];
			if (dur[j] < 0 || (p != GT_CP_ROOT && p >= n)) {
				end = 2;
				break;
			}
			if (p == GT_CP_ROOT) {
				end = 3;
				break;
			}
			j = p;
		}
		if (end == 1)
			flags |= GT_CP_CYCLE;
		while (top > 0) {
			uint32_t k = stack[--top];
			state[k] = DONE;
			uint32_t p = parent[k];
			if (end == 1 || end == 2) {
				set_invalid(o, k); /* everything below inherits it */
			} else if (p == GT_CP_ROOT) {
				o->path_duration[k] = dur[k];
				o->root[k] = k;
				o->hop_count[k] = 0;
			} else if (o->root[p] == GT_CP_NONE) {
				set_invalid(o, k);
			} else {
				int64_t s;
				if (__builtin_add_overflow(dur[k], o->path_duration[p], &s)) {
					flags |= GT_CP_OVERFLOW;
					set_invalid(o, k);
				} else {
					o->path_duration[k] = s;
					o->root[k] = o->root[p];
					o->hop_count[k] = o->hop_count[p] + 1;
				}
			}
		}
	}
	return flags;
}

int gt_critpath_host(const uint32_t *parent, const int64_t *dur, uint32_t n,
		     const gt_cp_options *opt, gt_cp_rows *o, gt_cp_summary *sum, gt_error *err)
{
	if (n > GT_CP_MAX_ROWS)
		return gt_fail(err, GT_EINPUT, "critical path: %u rows exceed the limit of %u", n,
			       GT_CP_MAX_ROWS);
	uint32_t max_len = opt && opt->max_path_length ? opt->max_path_length : GT_CP_NONE;
	uint8_t *state = gt_big_calloc(n, 1);
	uint32_t *stack = gt_big_malloc(n, sizeof *stack);
	if (!state || !stack) {
		free(state);
		free(stack);
		return gt_fail(err, GT_EINPUT, "out of memory for the critical path of %u rows", n);
	}
	uint32_t flags = resolve(parent, dur, n, state, stack, o);
	free(state);
	free(stack);

	int64_t best = -1;
	uint32_t endpoint = GT_CP_NONE, max_hop = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (dur[i] < 0)
			flags |= GT_CP_INVALID_DURATION;
		if (parent[i] != GT_CP_ROOT && parent[i] >= n)
			flags |= GT_CP_INVALID_PARENT;
		if (o->root[i] == GT_CP_NONE)
			continue;
		if (o->path_duration[i] > best) {
			best = o->path_duration[i];
			endpoint = i;
		}
		if (o->hop_count[i] > max_hop)
			max_hop = o->hop_count[i];
	}
	for (uint32_t i = 0; i < n; i++) {
		bool valid = o->root[i] != GT_CP_NONE;
		o->slack[i] = valid ? best - o->path_duration[i] : -1;
		o->critical_predecessor[i] = valid ? parent[i] : GT_CP_NONE;
		o->critical_mask[i] = 0;
	}

	memset(sum, 0, sizeof *sum);
	sum->endpoint = endpoint;
	sum->max_hop_count = max_hop;
	if (endpoint != GT_CP_NONE) {
		sum->max_path_duration = best;
		uint32_t len = o->hop_count[endpoint] + 1;
		sum->path_rows = len;
		sum->marked_rows = len < max_len ? len : max_len;
		if (len > max_len)
			flags |= GT_CP_PATH_TRUNCATED;
		/* Skip the rows beyond the first max_len from the root. */
		uint32_t skip = len - sum->marked_rows, r = endpoint;
		for (uint32_t k = 0; k < len; k++, r = parent[r])
			if (k >= skip)
				o->critical_mask[r] = 1;
	}
	sum->flags = flags;
	return 0;
}
