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

/* Values the event cannot be used with (it is skipped, see builder.c). */
enum {
	REVB_TS = 1,      /* ts present but not a usable number */
	REVB_DUR = 2,     /* dur present but not a usable number */
	REVB_NEG_DUR = 4, /* dur < 0 */
	REVB_ID = 8,      /* pid, tid, id or bind_id neither integer nor string */
	REVB_FIELD = 16,  /* another field the model reads has the wrong type */
};

/* Leniencies the lexer met inside the event (for warning examples). */
enum {
	REVN_UTF8 = 1,
	REVN_NONSTANDARD = 2,
};

typedef struct raw_event {
	uint64_t index;  /* event index in traceEvents */
	uint64_t offset; /* byte offset of its '{' in the decompressed stream */
	int64_t ts_ns;
	int64_t dur_ns;
	jl_slice name, cat, scope, args;
	jl_slice ph_text; /* the phase when it is not one character */
	uint64_t name_hash, cat_hash; /* gt_strpool_hash of name and cat, unless escaped */
	uint32_t name_local, cat_local; /* ids in the piece's own table (local_names.h), or GT_NONE */
	raw_id pid, tid, id, bind_id;
	char ph;
	char s;  /* instant scope */
	char bp; /* flow binding point */
	uint8_t flags;
	uint8_t bad;    /* REVB_*: the first bad value is at text + bad_at */
	uint8_t notes;  /* REVN_* */
	uint8_t sync_role; /* X and B: enum gt_sync_role from the name (0: none), sync_args.c */
	const char *text; /* the event's '{' */
	uint32_t len;     /* the event's bytes (to excerpt from) */
	uint32_t bad_at;
} raw_event;

/* Parses the event object at *pp (which points at '{'). On JL_ERROR,
 * lx->pos/msg say where and why. */
int gt_parse_event(jl_lexer *lx, const char **pp, raw_event *ev);
/* Sets ev->sync_role (sync_args.c): the parse threads compare every span's
 * name with the few that synchronise streams, so that the builder does not. */
void gt_sync_read_role(raw_event *ev);

#endif
