/* A piece's own thread table (local_threads.h): open addressing on a hash
 * of the pair, the last hit tried first. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "local_threads.h"
#include "model/model.h"

void local_threads_reset(local_threads *lt)
{
	if (lt->slots && lt->count)
		memset(lt->slots, 0, ((size_t)lt->mask + 1) * sizeof *lt->slots);
	lt->count = 0;
	lt->last = GT_NONE;
}

void local_threads_free(local_threads *lt)
{
	free(lt->slots), free(lt->pid), free(lt->tid), free(lt->global);
	memset(lt, 0, sizeof *lt);
}

static uint32_t pair_hash(int64_t pid, int64_t tid)
{
	uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15u) ^ ((uint64_t)tid * 0xc2b2ae3d27d4eb4fu);
	return (uint32_t)(h >> 32);
}

static int grow_slots(local_threads *lt)
{
	uint32_t n = lt->slots ? (lt->mask + 1) * 2 : 64;
	uint32_t *slots = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *slots);
	if (!slots)
		return -1;
	for (uint32_t id = 0; id < lt->count; id++) {
		uint32_t i = pair_hash(lt->pid[id], lt->tid[id]) & (n - 1);
		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = id + 1;
	}
	free(lt->slots);
	lt->slots = slots;
	lt->mask = n - 1;
	return 0;
}

static int grow_ids(local_threads *lt)
{
	uint32_t cap = lt->cap ? lt->cap * 2 : 32;
	int64_t *p = gt_fault_hit("alloc") ? NULL : realloc(lt->pid, cap * sizeof *p);
	if (p)
		lt->pid = p;
	int64_t *t = p ? realloc(lt->tid, cap * sizeof *t) : NULL;
	if (t)
		lt->tid = t;
	uint32_t *g = t ? realloc(lt->global, cap * sizeof *g) : NULL;
	if (g)
		lt->global = g;
	if (!g)
		return -1;
	lt->cap = cap;
	return 0;
}

uint32_t local_threads_id(local_threads *lt, int64_t pid, int64_t tid)
{
	if (lt->last != GT_NONE && lt->last < lt->count && lt->pid[lt->last] == pid && lt->tid[lt->last] == tid)
		return lt->last;
	if ((!lt->slots || (uint64_t)lt->count * 2 >= (uint64_t)lt->mask + 1) && grow_slots(lt) < 0)
		return GT_NONE;
	uint32_t i = pair_hash(pid, tid) & lt->mask;
	for (uint32_t v; (v = lt->slots[i]) != 0; i = (i + 1) & lt->mask)
		if (lt->pid[v - 1] == pid && lt->tid[v - 1] == tid)
			return lt->last = v - 1;
	if (lt->count == lt->cap && grow_ids(lt) < 0)
		return GT_NONE;
	uint32_t id = lt->count++;
	lt->pid[id] = pid, lt->tid[id] = tid, lt->global[id] = GT_NONE;
	lt->slots[i] = id + 1;
	return lt->last = id;
}
