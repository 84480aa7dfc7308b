/* The runtime's device buffers kept for reuse (gt_cl_buffer_take in cl.h),
 * inside struct gt_cl. */
#ifndef GT_CL_KEPT_BUFFERS_H
#define GT_CL_KEPT_BUFFERS_H

#include <pthread.h>
#include <stdint.h>

#include "cl.h"

#define KEPT_BUFFERS 64 /* buffers kept at most */
/* Larger buffers are released: a batch's buffers are a few megabytes,
 * and one window's buffers of gigabytes kept would hold device memory
 * that the float beside it may need. */
#define KEPT_BUFFER_MAX ((uint64_t)64 << 20)

typedef struct kept_buffers {
	pthread_mutex_t lock;
	cl_mem mem[KEPT_BUFFERS];
	uint64_t size[KEPT_BUFFERS];
	unsigned count;
} kept_buffers;

void kept_buffers_init(kept_buffers *k);
/* The smallest kept buffer of at least size bytes wasting less than half,
 * taken out; NULL where none fits. */
cl_mem kept_buffers_take(kept_buffers *k, uint64_t size);
/* Keeps b (size bytes); 0 where full or b is too large (the caller
 * releases it). */
int kept_buffers_give(kept_buffers *k, cl_mem b, uint64_t size);
/* Releases every kept buffer, and the lock. */
void kept_buffers_destroy(kept_buffers *k);

#endif
