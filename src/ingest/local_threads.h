/* A piece's own thread table (ingest.c): the parse workers number the
 * numeric (pid, tid) pairs their piece's simple spans use, so that the
 * builder resolves a thread track once per piece instead of once per span
 * (see fast_spans.h). */
#ifndef GT_LOCAL_THREADS_H
#define GT_LOCAL_THREADS_H

#include <stdint.h>

typedef struct local_threads {
	uint32_t *slots; /* local id + 1; 0: empty */
	uint32_t mask;
	uint32_t count, cap;
	int64_t *pid, *tid; /* per local id */
	uint32_t *global;   /* per local id: its track once the builder knows it, else GT_NONE */
	uint32_t last;      /* the local id found last (spans come in runs of one thread) */
} local_threads;

/* Empties the table, keeping its memory. */
void local_threads_reset(local_threads *lt);
void local_threads_free(local_threads *lt);
/* The local id of (pid, tid), added when new; GT_NONE when memory ran out. */
uint32_t local_threads_id(local_threads *lt, int64_t pid, int64_t tid);

#endif
