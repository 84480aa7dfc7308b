/* The workers of a parallel ingest (ingest.c), started at the first window
 * cut into pieces and kept to the end: starting them at every window cost
 * each window's end and start a few milliseconds with fewer threads, and
 * their stacks' mappings stalled the others' page faults.
 *
 * They take two kinds of job, each piece claimed by whichever thread comes
 * first: parsing pieces, in file order, up to two windows' worth queued;
 * and filling in the simple events of a window the builder has stitched,
 * which come first, since the builder waits for them. So the next window is
 * parsed while this one is stitched and filled, and no thread waits at a
 * window's edge.
 *
 * A third kind, between the two: faulting in the pages of the span and flow
 * point tables that the next window's fills will write, a 2 MiB range per
 * job. Fills faulting in their own pieces' rows side by side contended for
 * the page tables: on 16 threads they took 1.5 to 2.6 times their
 * one-thread CPU time. */
#ifndef GT_PIECE_POOL_H
#define GT_PIECE_POOL_H

#include <pthread.h>
#include <stdbool.h>

#include "builder.h"
#include "piece.h"

#define PIECE_POOL_THREADS 16
#define PIECE_POOL_QUEUE 128 /* pieces queued at once, of either kind */

typedef struct piece_pool {
	gt_builder *builder;
	piece *parse[PIECE_POOL_QUEUE]; /* a ring, in file order */
	unsigned parse_next, parse_end; /* the first unclaimed, one past the last queued */
	piece *fill[PIECE_POOL_QUEUE];
	unsigned fill_next, fill_end;
	struct {
		char *p;
		size_t len;
	} populate[PIECE_POOL_QUEUE];
	unsigned populate_next, populate_end;
	unsigned populating; /* populate jobs claimed and not over */
	bool populate_off;   /* the system cannot: none is queued */
	bool quit;        /* the ingest is over */
	bool fill_failed; /* out of memory in a fill */
	unsigned busy;    /* threads inside a claimed piece */
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* a piece done, or busy fell */
	pthread_cond_t work; /* a piece queued, or quit */
	pthread_t tids[PIECE_POOL_THREADS];
	unsigned workers;
	bool started; /* the lock and conditions made, workers started */
} piece_pool;

/* Starts threads - 1 workers the first time; later calls do nothing. */
void piece_pool_start(piece_pool *pp, gt_builder *b, unsigned threads);
/* Queues n pieces to parse after those queued before (done cleared). */
void piece_pool_parse(piece_pool *pp, piece *pcs, unsigned n);
/* Queues n stitched pieces for their fill, ahead of any parse. */
void piece_pool_fill(piece_pool *pp, piece *pcs, unsigned n);
/* Queues [p, p + len) to be faulted in writable, in jobs of the 2 MiB
 * ranges it covers (as many as the queue holds), where the system can
 * (MADV_POPULATE_WRITE); the contents stay as they are. */
void piece_pool_populate(piece_pool *pp, void *p, size_t len);
/* Drops the populate jobs not yet claimed and waits for the claimed ones:
 * then the memory may move. */
void piece_pool_stop_populating(piece_pool *pp);
/* Waits until pc's job is done, working on queued pieces meanwhile. */
void piece_pool_await(piece_pool *pp, piece *pc);
/* Drops the parses not yet claimed and waits for the claimed ones: then
 * no thread is inside a piece, whose memory may be cut again. */
void piece_pool_cancel(piece_pool *pp);
/* Stops and joins the workers. */
void piece_pool_end(piece_pool *pp);

#endif
