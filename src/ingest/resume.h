/* Resumable ingest: the parser and model-builder state at the end of a
 * trace's event array, so that a trace that grew by appended events can be
 * brought up to date by parsing only the new bytes (`pack --update`).
 *
 * The state is what the finished model cannot give back: where parsing
 * stopped, the warning counts before gt_builder_finish added its own, the
 * flow endpoints finish binds globally, and the parts of the async track
 * keys a track does not record. Everything else (open B/E stacks, key maps,
 * category groups, the string pool) is rebuilt from the model itself. The
 * resumed model equals a full parse of the grown trace. */
#ifndef GT_RESUME_H
#define GT_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* A flow v1 endpoint (ph s, t or f), in file order. 24 bytes, the .gtx
 * record; what many endpoints share is in its kind. */
typedef struct gt_resume_point {
	int64_t ts_ns;
	uint64_t id;    /* the id's value (a string id when its kind says so) */
	uint32_t track;
	uint32_t kind;  /* index into the point kinds */
} gt_resume_point;

/* The rest of a flow v1 endpoint. 16 bytes, the .gtx record. */
typedef struct gt_resume_point_kind {
	uint32_t cat;      /* string id */
	uint32_t name;     /* string id */
	uint8_t id_kind;   /* 0 absent, 1 number, 2 string */
	uint8_t ph;        /* 's', 't' or 'f' */
	uint8_t enclosing; /* binds to the enclosing slice (else the next one) */
	uint8_t zero[5];
} gt_resume_point_kind;

/* A flow v2 endpoint: a span with flow_in or flow_out, in file order.
 * 16 bytes, the .gtx record. */
typedef struct gt_resume_bind {
	uint64_t id;     /* bind_id (or id) value */
	uint32_t span;
	uint8_t id_kind; /* 1 number, 2 string */
	uint8_t out;     /* 1 flow_out, 0 flow_in */
	uint8_t zero[2];
} gt_resume_bind;

/* Per track, what its async key holds beyond the track record. 8 bytes,
 * the .gtx record; zero for thread tracks. */
typedef struct gt_resume_track {
	uint32_t scope;  /* the event's "scope" string id (0: none) */
	uint8_t id_kind; /* 0 absent, 1 number, 2 string */
	uint8_t zero[3];
} gt_resume_track;

typedef struct gt_resume {
	bool resumable;       /* false: compressed input, or no event array seen */
	uint64_t offset;      /* byte just after the last event (or after the array's '[') */
	bool after_event;     /* offset follows an event: ',' or ']' comes next */
	uint64_t metadata_len; /* strlen(metadata_json) at offset (0: none yet) */
	int64_t max_end_ns;   /* latest ts (+ dur) of any event so far */
	bool any_ts;
	uint32_t tail_crc;    /* CRC-32 of the source bytes [prefix_len, offset) (0 when empty) */
	uint64_t warnings[GT_WARN_COUNT]; /* at offset, before finish */
	char long_phase[8][24];
	uint64_t long_phase_count[8];
	gt_resume_point *points;
	uint32_t point_count;
	gt_resume_point_kind *kinds; /* distinct (cat, name, id kind, ph, enclosing) */
	uint32_t kind_count;
	gt_resume_bind *binds;
	uint32_t bind_count;
	gt_resume_track *tracks; /* track_count records (0 when not resumable) */
	uint32_t track_count;
} gt_resume;

void gt_resume_free(gt_resume *rs);

#endif
