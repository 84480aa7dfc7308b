/* One trace event as the parser saw it: fields the model needs, strings as
 * slices of the input window. Parsing (parallel) produces these; the model
 * builder (sequential, in file order) consumes them. */
#ifndef GT_RAW_EVENT_H
#define GT_RAW_EVENT_H

#include <stdint.h>

#include "json_lex.h"

enum raw_id_kind { RID_ABSENT = 0, RID_NUM, RID_STR };

typedef struct raw_id {
	uint8_t kind; /* enum raw_id_kind */
	int64_t num;
	jl_slice str;
} raw_id;

enum {
	REV_HAS_TS = 1,
	REV_HAS_DUR = 2,
	REV_FLOW_IN = 4,
	REV_FLOW_OUT = 8,
	REV_ID2_GLOBAL = 16, /* id came from id2.global */
	REV_ID2_LOCAL = 32,  /* id came from id2.local */
};

typedef struct raw_event {
	uint64_t index;  /* event index in traceEvents */
	uint64_t offset; /* byte offset of its '{' in the decompressed stream */
	int64_t ts_ns;
	int64_t dur_ns;
	jl_slice name, cat, scope, args;
	jl_slice ph_text; /* the phase when it is not one character */
	uint64_t name_hash, cat_hash; /* gt_strpool_hash of name and cat, unless escaped */
	raw_id pid, tid, id, bind_id;
	char ph;
	char s;  /* instant scope */
	char bp; /* flow binding point */
	uint8_t flags;
} raw_event;

/* Parses the event object at *pp (which points at '{'). On JL_ERROR,
 * lx->pos/msg say where and why. */
int gt_parse_event(jl_lexer *lx, const char **pp, raw_event *ev);

#endif
