/* Device buffers kept for reuse (kept_buffers.h). */
#include "kept_buffers.h"

#include "base/base.h"

void kept_buffers_init(kept_buffers *k)
{
	*k = (kept_buffers){.count = 0};
	pthread_mutex_init(&k->lock, NULL);
}

cl_mem kept_buffers_take(kept_buffers *k, uint64_t size)
{
	pthread_mutex_lock(&k->lock);
	unsigned best = gt_best_fit(k->size, k->count, size);
	cl_mem b = NULL;
	if (best < k->count) {
		b = k->mem[best];
		k->count--;
		k->mem[best] = k->mem[k->count];
		k->size[best] = k->size[k->count];
	}
	pthread_mutex_unlock(&k->lock);
	return b;
}

int kept_buffers_give(kept_buffers *k, cl_mem b, uint64_t size)
{
	pthread_mutex_lock(&k->lock);
	int kept = k->count < KEPT_BUFFERS && size <= KEPT_BUFFER_MAX;
	if (kept) {
		k->mem[k->count] = b;
		k->size[k->count++] = size;
	}
	pthread_mutex_unlock(&k->lock);
	return kept;
}

void kept_buffers_destroy(kept_buffers *k)
{
	while (k->count) /* the device is closing: no other thread holds k */
		clReleaseMemObject(k->mem[--k->count]);
	pthread_mutex_destroy(&k->lock);
}
