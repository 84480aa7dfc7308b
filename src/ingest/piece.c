/* A piece's parse (piece.h). */
#include <stdlib.h>
#include <string.h>

#include "piece.h"
#include "base/base.h"

void piece_start(piece *pc, const char *base, size_t len, bool eof, const char *begin, const char *stop)
{
	memset(&pc->lx, 0, sizeof pc->lx);
	pc->lx.begin = base;
	pc->lx.end = base + len;
	/* an event the window's end cuts is incomplete, even at the end of the
	 * input: truncated, not malformed */
	pc->lx.final = false;
	pc->eof = eof;
	pc->begin = begin;
	pc->stop = stop;
	pc->after_comma = false;
}

void piece_free(piece *pc)
{
	free(pc->evs);
	pc->evs = NULL, pc->n = pc->cap = 0;
	local_names_free(&pc->names);
	simple_events_free(&pc->simple);
}

/* Sets lx's counts back to those before an event that is left for the next
 * window, as the piece's counts cover complete events only. */
static void uncount(jl_lexer *lx, const jl_lexer *before)
{
	lx->trailing_commas = before->trailing_commas;
	lx->control_chars = before->control_chars;
	lx->invalid_utf8 = before->invalid_utf8;
	lx->nonstandard = before->nonstandard;
}

void piece_parse(piece *pc)
{
	jl_lexer *lx = &pc->lx;
	const char *p = pc->begin;
	pc->n = 0;
	pc->hit_close = false;
	pc->overshot = false;
	local_names_reset(&pc->names);
	simple_events_reset(&pc->simple);
	for (;;) {
		const char *q = jl_skip_ws(p, lx->end);
		pc->end_pos = p;
		if (pc->stop && q >= pc->stop) {
			pc->overshot = q != pc->stop;
			pc->rc = JL_OK;
			return;
		}
		if (q >= lx->end) {
			pc->rc = JL_NEED_MORE;
			return;
		}
		if (*q == ']') {
			pc->hit_close = true;
			pc->end_pos = q;
			pc->rc = JL_OK;
			return;
		}
		if (*q != '{') {
			pc->rc = jl_error(lx, q, "event is not an object");
			pc->end_pos = q;
			return;
		}
		if (pc->n == pc->cap) {
			size_t cap = pc->cap ? pc->cap * 2 : 4096;
			raw_event *e = gt_fault_hit("alloc") ? NULL : realloc(pc->evs, cap * sizeof *e);
			if (!e) {
				pc->rc = jl_error(lx, q, "out of memory");
				return;
			}
			pc->evs = e;
			pc->cap = cap;
		}
		raw_event *ev = &pc->evs[pc->n];
		const char *r = q;
		jl_lexer counts = *lx;
		int rc = gt_parse_event(lx, &r, ev);
		if (rc) {
			if (rc == JL_NEED_MORE)
				uncount(lx, &counts); /* the event is parsed again with more bytes: counted then */
			pc->rc = rc;
			pc->end_pos = rc == JL_NEED_MORE ? p : lx->pos;
			return;
		}
		ev->offset = (uint64_t)(q - lx->begin); /* window-relative until merged */
		ev->name_local = local_names_id(&pc->names, &ev->name, ev->name_hash);
		ev->cat_local = local_names_id(&pc->names, &ev->cat, ev->cat_hash);
		r = jl_skip_ws(r, lx->end);
		bool keep = r < lx->end ? *r == ']' || *r == ',' : pc->eof;
		if (keep && simple_events_note(&pc->simple, ev, (uint32_t)pc->n) < 0) {
			pc->rc = jl_error(lx, q, "out of memory");
			return;
		}
		if (r >= lx->end) {
			pc->rc = JL_NEED_MORE;
			if (!pc->eof) {
				uncount(lx, &counts); /* parsed again with the bytes after it: counted then */
			} else {
				/* the format allows a missing ']': keep the event.
				 * A stop before the end was a wrong guess inside it:
				 * the pieces after it must not be stitched too */
				pc->n++;
				pc->end_pos = r;
				pc->rc = JL_OK;
				pc->hit_close = false;
				pc->overshot = pc->stop != NULL;
			}
			return;
		}
		if (*r == ']') {
			pc->n++;
			pc->hit_close = true;
			pc->end_pos = r;
			pc->after_comma = false;
			pc->rc = JL_OK;
			return;
		}
		if (*r != ',') {
			pc->rc = jl_error(lx, r, "expected ',' or ']' after an event");
			pc->end_pos = r;
			return;
		}
		pc->n++;
		p = r + 1;
		pc->after_comma = true;
	}
}

const char *piece_guess_boundary(const char *p, const char *end)
{
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		if (!c)
			return NULL;
		const char *b = c;
		while (b > p && jl_is_ws(b[-1]))
			b--;
		const char *a = jl_skip_ws(c + 1, end);
		if (b > p && b[-1] == '}' && a < end && *a == '{') {
			const char *k = jl_skip_ws(a + 1, end); /* pretty-printed: "{\n    \"name\"" */
			if (k < end && *k == '"')
				return a;
		}
		p = c + 1;
	}
	return NULL;
}
