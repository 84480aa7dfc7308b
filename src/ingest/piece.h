/* A piece of a window of the event array (ingest.c): the bytes between two
 * guessed event starts, parsed on its own by whichever thread claims it.
 * A piece counts only if the piece before it ended exactly at its start: a
 * wrong guess costs a parse, never a wrong result. */
#ifndef GT_PIECE_H
#define GT_PIECE_H

#include <stdbool.h>
#include <stddef.h>

#include "json_lex.h"
#include "local_names.h"
#include "raw_event.h"
#include "simple_events.h"
#include "base/base.h"

typedef struct piece {
	GT_JOB_ALIGNED const char *begin, *stop; /* parse from begin until the element start == stop */
	raw_event *evs;
	size_t n, cap;
	const char *end_pos; /* where parsing stopped (an element start) */
	int rc;              /* JL_OK (reached stop or ']'), JL_NEED_MORE, JL_ERROR */
	bool hit_close;      /* stopped at the array's ']' */
	bool after_comma;    /* the last thing consumed was a ',' (for trailing commas) */
	bool overshot;       /* passed its stop without landing on it */
	bool eof;            /* no bytes follow the window */
	bool done;           /* its pool job is over (piece_pool.h; under the pool's lock) */
	jl_lexer lx;         /* its counts cover complete events only */
	local_names names;   /* the names and categories its events use */
	simple_events simple; /* its simple events, for the builder to build in bulk */
} piece;

/* Readies pc to parse [begin, stop) of the window [base, base + len); eof:
 * no bytes follow the window. stop NULL: to the window's end. */
void piece_start(piece *pc, const char *base, size_t len, bool eof, const char *begin, const char *stop);
/* Parses events from pc->begin. Stops at the element start pc->stop (if
 * set), at ']', at the end of the window, or on an error. */
void piece_parse(piece *pc);
void piece_free(piece *pc);
/* A plausible event start at or after p: '{' preceded by '}' ws* ',' ws*
 * and followed by ws* '"'. NULL if none before end. */
const char *piece_guess_boundary(const char *p, const char *end);

#endif
