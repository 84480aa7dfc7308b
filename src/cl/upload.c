/* Copying columns to the device piece by piece on a thread (see cl.h).
 * The copies are blocking writes from the caller's pageable memory: a
 * driver stages those through its own pinned buffers with the CPU, which
 * is why they go on a thread while the caller's threads fill the next
 * piece. */
#include "cl.h"

#include <pthread.h>
#include <stdlib.h>

struct gt_upload {
	gt_cl *cl;
	gt_upload_column cols[GT_UPLOAD_MAX_COLUMNS];
	int ncols;
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t ready, sent; /* rows filled by the caller; rows copied */
	bool finishing;
	/* the copying side's own */
	cl_int error;
	const char *failed_call;
	uint64_t transfer_ns;
};

static void copy_rows(gt_upload *u, uint64_t first, uint64_t end)
{
	for (int c = 0; c < u->ncols && u->error == CL_SUCCESS; c++) {
		size_t rb = u->cols[c].row_bytes;
		cl_event ev;
		cl_int e = clEnqueueWriteBuffer(gt_cl_queue(u->cl), u->cols[c].buf, CL_TRUE, (size_t)first * rb,
						(size_t)(end - first) * rb, (const char *)u->cols[c].host + first * rb,
						0, NULL, &ev);
		if (e != CL_SUCCESS) {
			u->error = e;
			u->failed_call = "clEnqueueWriteBuffer";
			break;
		}
		u->transfer_ns += gt_cl_event_ns(ev);
		clReleaseEvent(ev);
	}
}

/* Under fault injection the copies stay on the caller, so that the walk
 * meets the fault points in one order. */
#ifdef GT_FAULT_INJECTION
static const bool copies_on_thread = false;
#else
static const bool copies_on_thread = true;
#endif

static void *copy_thread(void *arg)
{
	gt_upload *u = arg;
	pthread_mutex_lock(&u->lock);
	for (;;) {
		while (u->ready == u->sent && !u->finishing)
			pthread_cond_wait(&u->wake, &u->lock);
		if (u->ready == u->sent)
			break;
		uint64_t first = u->sent, end = u->ready;
		pthread_mutex_unlock(&u->lock);
		copy_rows(u, first, end); /* after a failure, the rest is skipped */
		pthread_mutex_lock(&u->lock);
		u->sent = end;
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

int gt_upload_start(gt_upload **out, gt_cl *cl, const gt_upload_column *cols, int ncols, gt_error *err)
{
	*out = NULL;
	if (ncols < 0 || ncols > GT_UPLOAD_MAX_COLUMNS)
		return gt_fail(err, GT_EDEVICE, "upload of %d columns (at most %d)", ncols, GT_UPLOAD_MAX_COLUMNS);
	gt_upload *u = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *u);
	if (!u)
		return gt_fail(err, GT_EDEVICE, "out of memory starting an upload to '%s'", gt_cl_device_name(cl));
	u->cl = cl;
	u->ncols = ncols;
	for (int c = 0; c < ncols; c++)
		u->cols[c] = cols[c];
	u->error = CL_SUCCESS;
	if (copies_on_thread && pthread_mutex_init(&u->lock, NULL) == 0) {
		if (pthread_cond_init(&u->wake, NULL) == 0) {
			u->threaded = pthread_create(&u->thread, NULL, copy_thread, u) == 0;
			if (!u->threaded)
				pthread_cond_destroy(&u->wake);
		}
		if (!u->threaded)
			pthread_mutex_destroy(&u->lock);
	}
	*out = u;
	return 0;
}

void gt_upload_ready(gt_upload *u, uint64_t rows)
{
	if (!u->threaded) {
		if (rows > u->sent)
			copy_rows(u, u->sent, rows);
		u->sent = u->ready = rows > u->sent ? rows : u->sent;
		return;
	}
	pthread_mutex_lock(&u->lock);
	if (rows > u->ready) {
		u->ready = rows;
		pthread_cond_signal(&u->wake);
	}
	pthread_mutex_unlock(&u->lock);
}

int gt_upload_finish(gt_upload *u, uint64_t *transfer_ns, gt_error *err)
{
	if (!u)
		return 0;
	if (u->threaded) {
		pthread_mutex_lock(&u->lock);
		u->finishing = true;
		pthread_cond_signal(&u->wake);
		pthread_mutex_unlock(&u->lock);
		pthread_join(u->thread, NULL);
		pthread_cond_destroy(&u->wake);
		pthread_mutex_destroy(&u->lock);
	}
	if (transfer_ns)
		*transfer_ns += u->transfer_ns;
	int rc = 0;
	if (u->error != CL_SUCCESS)
		rc = gt_cl_check(u->cl, u->error, u->failed_call, err);
	free(u);
	return rc;
}
