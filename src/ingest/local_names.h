/* A piece's own string table (ingest.c): the parse workers find each
 * event's name and category among the strings their piece has seen, so that
 * the sequential builder interns a string once per piece instead of once
 * per event: the comparisons interning does per span run in parallel. */
#ifndef GT_LOCAL_NAMES_H
#define GT_LOCAL_NAMES_H

#include <stdint.h>

#include "json_lex.h"

typedef struct local_names {
	uint32_t *slots; /* local id + 1; 0: empty */
	uint32_t mask;
	uint32_t count, cap;
	uint64_t *hash;  /* per local id */
	jl_slice *text;  /* per local id */
	uint32_t *global; /* per local id: its string id once the builder has interned it, else GT_NONE */
} local_names;

/* Empties the table, keeping its memory. */
void local_names_reset(local_names *ln);
void local_names_free(local_names *ln);
/* The local id of s (hash: gt_strpool_hash of it), added when new; GT_NONE
 * when s is not interned by hash (empty, escaped) or memory ran out. */
uint32_t local_names_id(local_names *ln, const jl_slice *s, uint64_t hash);

#endif
