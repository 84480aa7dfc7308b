/* The parse workers' queue (piece_pool.h). */
#include "piece_pool.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define POPULATE_RANGE ((size_t)2 << 20) /* a page table's reach on x86-64 */

/* Piece pc's job; the pool's lock is not held. */
static void work_on(piece_pool *pp, piece *pc, bool fill)
{
	if (!fill) {
		piece_parse(pc);
	} else if (simple_events_fill(pp->builder, &pc->simple) < 0) {
		pthread_mutex_lock(&pp->mu);
		pp->fill_failed = true;
		pthread_mutex_unlock(&pp->mu);
	}
}

/* With the lock held: faults in the next queued range. */
static void populate_one(piece_pool *pp)
{
	unsigned at = pp->populate_next++ % PIECE_POOL_QUEUE;
	char *p = pp->populate[at].p;
	size_t len = pp->populate[at].len;
	pp->populating++;
	pthread_mutex_unlock(&pp->mu);
#ifdef MADV_POPULATE_WRITE
	bool failed = madvise(p, len, MADV_POPULATE_WRITE) != 0;
#else
	bool failed = true;
#endif
	pthread_mutex_lock(&pp->mu);
	if (failed)
		pp->populate_off = true; /* an older kernel: not asked again */
	pp->populating--;
	pthread_cond_broadcast(&pp->cv);
}

/* With the lock held: claims the next queued job, a fill before a range
 * to fault in before a parse, and works on it. false: nothing is queued. */
static bool work_next(piece_pool *pp)
{
	piece *pc;
	if (pp->fill_next == pp->fill_end && pp->populate_next != pp->populate_end) {
		populate_one(pp);
		return true;
	}
	bool fill = pp->fill_next != pp->fill_end;
	if (fill)
		pc = pp->fill[pp->fill_next++ % PIECE_POOL_QUEUE];
	else if (pp->parse_next != pp->parse_end)
		pc = pp->parse[pp->parse_next++ % PIECE_POOL_QUEUE];
	else
		return false;
	pp->busy++;
	pthread_mutex_unlock(&pp->mu);
	work_on(pp, pc, fill);
	pthread_mutex_lock(&pp->mu);
	pc->done = true;
	pp->busy--;
	pthread_cond_broadcast(&pp->cv);
	return true;
}

static void *pool_worker(void *arg)
{
	piece_pool *pp = arg;
	pthread_mutex_lock(&pp->mu);
	while (!pp->quit)
		if (!work_next(pp))
			pthread_cond_wait(&pp->work, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
	return NULL;
}

void piece_pool_start(piece_pool *pp, gt_builder *b, unsigned threads)
{
	if (pp->started)
		return;
	pp->builder = b;
	pthread_mutex_init(&pp->mu, NULL);
	pthread_cond_init(&pp->cv, NULL);
	pthread_cond_init(&pp->work, NULL);
	pp->started = true;
	if (threads > PIECE_POOL_THREADS)
		threads = PIECE_POOL_THREADS;
	while (pp->workers + 1 < threads && pthread_create(&pp->tids[pp->workers], NULL, pool_worker, pp) == 0)
		pp->workers++;
}

/* Queues n pieces on the ring q from *end on. The caller keeps the queued
 * and unclaimed ones within the ring. */
static void enqueue(piece_pool *pp, piece **q, unsigned *end, piece *pcs, unsigned n)
{
	pthread_mutex_lock(&pp->mu);
	for (unsigned t = 0; t < n; t++) {
		pcs[t].done = false;
		q[(*end)++ % PIECE_POOL_QUEUE] = &pcs[t];
	}
	pthread_cond_broadcast(&pp->work);
	pthread_mutex_unlock(&pp->mu);
}

void piece_pool_parse(piece_pool *pp, piece *pcs, unsigned n)
{
	enqueue(pp, pp->parse, &pp->parse_end, pcs, n);
}

void piece_pool_fill(piece_pool *pp, piece *pcs, unsigned n)
{
	enqueue(pp, pp->fill, &pp->fill_end, pcs, n);
}

void piece_pool_populate(piece_pool *pp, void *p, size_t len)
{
	/* whole pages: the first (part of the table) from its start, the last
	 * not at all when the table may end inside it */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)p & ~(page - 1), end = ((uintptr_t)p + len) & ~(page - 1);
	pthread_mutex_lock(&pp->mu);
	bool queued = false;
	while (!pp->populate_off && from < end && pp->populate_end - pp->populate_next < PIECE_POOL_QUEUE) {
		uintptr_t to = (from & ~(uintptr_t)(POPULATE_RANGE - 1)) + POPULATE_RANGE;
		if (to > end)
			to = end;
		unsigned at = pp->populate_end++ % PIECE_POOL_QUEUE;
		pp->populate[at].p = (char *)from;
		pp->populate[at].len = to - from;
		from = to;
		queued = true;
	}
	if (queued)
		pthread_cond_broadcast(&pp->work);
	pthread_mutex_unlock(&pp->mu);
}

void piece_pool_stop_populating(piece_pool *pp)
{
	if (!pp->started)
		return;
	pthread_mutex_lock(&pp->mu);
	pp->populate_next = pp->populate_end;
	while (pp->populating)
		pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
}

void piece_pool_await(piece_pool *pp, piece *pc)
{
	pthread_mutex_lock(&pp->mu);
	while (!pc->done)
		if (!work_next(pp))
			pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
}

void piece_pool_cancel(piece_pool *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->parse_next = pp->parse_end;
	while (pp->busy)
		pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
}

void piece_pool_end(piece_pool *pp)
{
	if (!pp->started)
		return;
	pthread_mutex_lock(&pp->mu);
	pp->quit = true;
	pthread_cond_broadcast(&pp->work);
	pthread_mutex_unlock(&pp->mu);
	for (unsigned w = 0; w < pp->workers; w++)
		pthread_join(pp->tids[w], NULL);
	pthread_cond_destroy(&pp->work);
	pthread_cond_destroy(&pp->cv);
	pthread_mutex_destroy(&pp->mu);
	pp->workers = 0, pp->started = false;
}
