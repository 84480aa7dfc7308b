/* Streams a trace file (plain, gzip or zstd) back out as strict JSON, the
 * events one at a time through a hook that may change them, and more
 * events appended at the end of the event array: for writers that add to a
 * trace, such as the critical-path overlay, without holding it in memory.
 *
 * The copy keeps every value and member in order, and drops what strict
 * JSON parsers refuse and gputrace's reader accepts: whitespace is removed,
 * trailing commas dropped, raw control characters in strings escaped
 * (\u00XX), invalid UTF-8 replaced by U+FFFD (as the table writers do),
 * NaN, Infinity and -Infinity written as null, a missing ']' of the array
 * format supplied; input cut short (the reader's truncated_input) ends after
 * the events complete before the cut, a top-level member cut after the
 * events is dropped, and the open brackets are closed. The input is
 * expected to be one gputrace has read without error; anything else fails
 * (GT_EINPUT). */
#ifndef GT_TRACE_COPY_H
#define GT_TRACE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "write/write.h"

/* Where an event's args object is in its copied text. */
enum { GT_COPY_NO_ARGS = -1, GT_COPY_ARGS_NOT_OBJECT = -2 };

typedef struct gt_trace_copy_hooks {
	void *ctx;
	/* Event `index` of the array (an object), copied into ev[0..len):
	 * writes it, changed or not, to z. args_at: the offset just past the
	 * '{' of its top-level "args" member, or GT_COPY_NO_ARGS /
	 * GT_COPY_ARGS_NOT_OBJECT. */
	int (*event)(void *ctx, uint64_t index, const char *ev, size_t len, long args_at, gt_zsink *z,
		     gt_error *err);
	/* At the end of the event array: writes more events, each preceded by
	 * ',' while *comma (set when an event came before). */
	int (*append)(void *ctx, bool *comma, gt_zsink *z, gt_error *err);
} gt_trace_copy_hooks;

/* Copies path (max_expansion as gt_input_open) into z; *events is the
 * number of events copied. */
int gt_trace_copy(const char *path, uint64_t max_expansion, gt_zsink *z, const gt_trace_copy_hooks *h,
		  uint64_t *events, gt_error *err);

#endif
