/* The strict streaming copy of a trace (see trace_copy.h): a byte-level
 * state machine over the decompressed text. Output gathers in one buffer;
 * outside an event it goes to the sink whenever it grows, an event is held
 * whole so that the hook can change it. */
#include "trace_copy.h"

#include <stdlib.h>
#include <string.h>

#include "gtx/gtx.h"
#include "ingest/ingest.h"
#include "write/write.h"

#define MAX_DEPTH 1024
#define FLUSH_BYTES (256u << 10)
#define READ_BYTES (1u << 20)

enum role { R_PLAIN = 0, R_EVENTS, R_EVENT, R_ARGS_PENDING };
enum state { S_START, S_MAIN, S_STRING, S_ESCAPE, S_SCALAR, S_DONE };

typedef struct level {
	char type;        /* '{' or '[' */
	bool expect_key;  /* objects: the next string is a key */
	uint8_t role;     /* enum role */
	uint64_t count;   /* members or elements so far */
} level;

typedef struct copier {
	const gt_trace_copy_hooks *h;
	gt_zsink *z;
	gt_error *err;
	const char *path;
	int state;
	level stack[MAX_DEPTH];
	int depth;
	char *out;
	size_t len, cap;
	bool in_event;
	long args_at;
	bool key;              /* the string being copied is a key */
	char keytext[12];      /* its first bytes, to recognise traceEvents and args */
	size_t keylen;
	int next_role;         /* for the value after the key just read */
	size_t scalar_at;      /* where the scalar being copied starts in out */
	size_t member_at;      /* where the top-level object's last member starts in out */
	bool saw_events, events_done;
	uint64_t events;
	bool comma;            /* an event was written */
} copier;

static int grow(copier *c, size_t need)
{
	if (c->len + need <= c->cap)
		return 0;
	size_t cap = c->cap ? c->cap : 1 << 16;
	while (cap < c->len + need)
		cap *= 2;
	char *p = gt_fault_hit("alloc") ? NULL : realloc(c->out, cap);
	if (!p)
		return gt_fail(c->err, GT_EINPUT, "%s: out of memory copying an event", c->path);
	c->out = p;
	c->cap = cap;
	return 0;
}

static inline int emit(copier *c, const char *p, size_t n)
{
	if (c->len + n > c->cap && grow(c, n) < 0)
		return -1;
	memcpy(c->out + c->len, p, n);
	c->len += n;
	return 0;
}

static inline int emit1(copier *c, char ch)
{
	return emit(c, &ch, 1);
}

static int flush(copier *c)
{
	/* after the events, out holds the rest of the top-level object (small:
	 * a trace's trailing metadata), so that a member cut short can go */
	if (c->in_event || c->len < FLUSH_BYTES || (c->events_done && c->depth > 0))
		return 0;
	int rc = gt_zsink_write(c->z, c->out, c->len, c->err);
	c->len = 0;
	return rc;
}

static int fail(copier *c, const char *msg)
{
	return gt_fail(c->err, GT_EINPUT, "%s: %s (after event %llu)", c->path, msg, (unsigned long long)c->events);
}

/* Before any value: the separator its container needs, and its role. */
static int value_begins(copier *c, int *role)
{
	*role = R_PLAIN;
	if (c->depth == 0) {
		if (c->state == S_DONE)
			return fail(c, "more than one value at the top level");
		return 0;
	}
	level *l = &c->stack[c->depth - 1];
	if (l->type == '[') {
		/* an event's ',' is written when it is complete (see close_container) */
		if (l->count++ && l->role != R_EVENTS && emit1(c, ',') < 0)
			return -1;
		if (l->role == R_EVENTS)
			*role = R_EVENT;
	} else {
		if (l->expect_key)
			return fail(c, "expected a key");
		*role = c->next_role;
		c->next_role = R_PLAIN;
	}
	return 0;
}

/* After a value: its object expects a key again. */
static void value_ends(copier *c)
{
	if (c->depth == 0) {
		c->state = S_DONE;
		return;
	}
	level *l = &c->stack[c->depth - 1];
	if (l->type == '{')
		l->expect_key = true;
	c->state = S_MAIN;
}

static int open_container(copier *c, char ch)
{
	int role;
	if (value_begins(c, &role) < 0)
		return -1;
	if (c->depth == MAX_DEPTH)
		return fail(c, "nested too deeply");
	if (c->depth == 0 && ch == '[')
		role = R_EVENTS; /* the array format */
	if (role == R_EVENT) {
		if (ch != '{')
			return fail(c, "an event is not an object");
		c->in_event = true;
		c->args_at = GT_COPY_NO_ARGS;
		if (c->len && gt_zsink_write(c->z, c->out, c->len, c->err) < 0)
			return -1;
		c->len = 0;
	}
	if (role == R_EVENTS) {
		if (ch != '[')
			return fail(c, "traceEvents is not an array");
		c->saw_events = true;
	}
	if (emit1(c, ch) < 0)
		return -1;
	if (role == R_ARGS_PENDING) {
		role = R_PLAIN;
		if (ch == '{')
			c->args_at = (long)c->len;
		else
			c->args_at = GT_COPY_ARGS_NOT_OBJECT;
	}
	c->stack[c->depth++] = (level){.type = ch, .expect_key = ch == '{', .role = (uint8_t)role};
	c->state = S_MAIN;
	return 0;
}

static int close_container(copier *c, char ch)
{
	if (c->depth == 0)
		return fail(c, "unbalanced close");
	level *l = &c->stack[c->depth - 1];
	if ((l->type == '{') != (ch == '}'))
		return fail(c, "mismatched close");
	if (l->role == R_EVENTS) {
		c->comma = c->events > 0;
		if (c->h->append) {
			if (c->len && gt_zsink_write(c->z, c->out, c->len, c->err) < 0)
				return -1;
			c->len = 0;
			if (c->h->append(c->h->ctx, &c->comma, c->z, c->err) < 0)
				return -1;
		}
		c->events_done = true;
	}
	if (emit1(c, ch) < 0)
		return -1;
	c->depth--;
	if (l->role == R_EVENT) {
		c->in_event = false;
		if (c->events && gt_zsink_write(c->z, ",", 1, c->err) < 0)
			return -1;
		int rc = c->h->event(c->h->ctx, c->events, c->out, c->len, c->args_at, c->z, c->err);
		c->len = 0;
		c->events++;
		if (rc < 0)
			return -1;
	}
	value_ends(c);
	return flush(c);
}

/* A non-ASCII byte in a string: the valid sequence, or U+FFFD for an
 * invalid subpart. Returns the bytes consumed, 0 when more input is needed. */
static long utf8_char(copier *c, const char *p, const char *end, bool eof)
{
	unsigned char tmp[5] = {0};
	size_t avail = (size_t)(end - p);
	if (avail < 4 && !eof)
		return 0;
	memcpy(tmp, p, avail < 4 ? avail : 4);
	int k = gt_utf8_next(tmp);
	if (k > 0)
		return emit(c, p, (size_t)k) < 0 ? -1 : k;
	return emit(c, "\xef\xbf\xbd", 3) < 0 ? -1 : -k;
}

/* After a scalar: NaN, Infinity and -Infinity, which gputrace's reader
 * takes (nonstandard_number) and strict parsers refuse, become null. The
 * scalar is whole in out: out goes to the sink only at a container's
 * bounds. */
static int scalar_ends(copier *c)
{
	const char *s = c->out + c->scalar_at;
	size_t n = c->len - c->scalar_at;
	if ((n == 3 && memcmp(s, "NaN", 3) == 0) || (n == 8 && memcmp(s, "Infinity", 8) == 0) ||
	    (n == 9 && memcmp(s, "-Infinity", 9) == 0)) {
		c->len = c->scalar_at;
		if (emit(c, "null", 4) < 0)
			return -1;
	}
	value_ends(c);
	return 0;
}

static bool is_scalar_byte(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
	       ch == '+' || ch == '.';
}

static void key_ends(copier *c)
{
	level *l = &c->stack[c->depth - 1];
	l->expect_key = false;
	c->next_role = R_PLAIN;
	if (l->role == R_EVENT && c->keylen == 4 && memcmp(c->keytext, "args", 4) == 0)
		c->next_role = R_ARGS_PENDING;
	else if (c->depth == 1 && !c->saw_events && c->keylen == 11 && memcmp(c->keytext, "traceEvents", 11) == 0)
		c->next_role = R_EVENTS;
}

/* Copies p[0..end); returns the bytes consumed (less than all only when a
 * UTF-8 sequence continues past end and !eof), or -1. */
static long feed(copier *c, const char *p, const char *end, bool eof)
{
	const char *start = p;
	while (p < end) {
		char ch = *p;
		switch (c->state) {
		case S_STRING: {
			/* a run of plain bytes at once */
			const char *q = p;
			while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20 &&
			       (unsigned char)*q < 0x80)
				q++;
			if (q > p) {
				if (c->key && c->keylen < sizeof c->keytext) {
					size_t k = (size_t)(q - p);
					if (k > sizeof c->keytext - c->keylen)
						k = sizeof c->keytext - c->keylen;
					memcpy(c->keytext + c->keylen, p, k);
				}
				if (c->key)
					c->keylen += (size_t)(q - p);
				if (emit(c, p, (size_t)(q - p)) < 0)
					return -1;
				p = q;
				continue;
			}
			if (ch == '"') {
				if (emit1(c, '"') < 0)
					return -1;
				p++;
				if (c->key) {
					if (emit1(c, ':') < 0)
						return -1;
					key_ends(c);
					c->state = S_MAIN;
				} else {
					value_ends(c);
				}
				continue;
			}
			if (ch == '\\') {
				if (emit1(c, ch) < 0)
					return -1;
				c->keylen += 100; /* an escaped key is neither name we look for */
				c->state = S_ESCAPE;
				p++;
				continue;
			}
			if ((unsigned char)ch < 0x20) {
				char esc[8];
				static const char hex[] = "0123456789abcdef";
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[(unsigned char)ch >> 4];
				esc[5] = hex[ch & 15];
				if (emit(c, esc, 6) < 0)
					return -1;
				p++;
				continue;
			}
			long k = utf8_char(c, p, end, eof);
			if (k < 0)
				return -1;
			if (k == 0)
				return p - start;
			c->keylen += (size_t)k;
			p += k;
			continue;
		}
		case S_ESCAPE:
			if (emit1(c, ch) < 0)
				return -1;
			c->state = S_STRING;
			p++;
			continue;
		case S_SCALAR:
			if (is_scalar_byte(ch)) {
				if (emit1(c, ch) < 0)
					return -1;
				p++;
				continue;
			}
			if (scalar_ends(c) < 0)
				return -1;
			continue; /* the delimiter, again */
		case S_START:
			if ((unsigned char)ch == 0xef && end - p >= 3 && (unsigned char)p[1] == 0xbb &&
			    (unsigned char)p[2] == 0xbf) {
				p += 3;
				continue;
			}
			if ((unsigned char)ch == 0xef && end - p < 3 && !eof)
				return p - start;
			c->state = S_MAIN;
			continue;
		case S_DONE:
			if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
				p++;
				continue;
			}
			return fail(c, "text after the top-level value");
		default:
			break;
		}
		/* S_MAIN: between tokens */
		p++;
		switch (ch) {
		case ' ': case '\n': case '\r': case '\t': case ',': case ':':
			break;
		case '{': case '[':
			if (open_container(c, ch) < 0)
				return -1;
			break;
		case '}': case ']':
			if (close_container(c, ch) < 0)
				return -1;
			break;
		case '"': {
			level *l = c->depth ? &c->stack[c->depth - 1] : NULL;
			c->key = l && l->type == '{' && l->expect_key;
			if (c->key) {
				if (c->depth == 1)
					c->member_at = c->len;
				if (l->count++ && emit1(c, ',') < 0)
					return -1;
				c->keylen = 0;
			} else {
				int role;
				if (value_begins(c, &role) < 0)
					return -1;
				if (role == R_EVENT || role == R_EVENTS)
					return fail(c, role == R_EVENT ? "an event is not an object"
								       : "traceEvents is not an array");
				if (role == R_ARGS_PENDING)
					c->args_at = GT_COPY_ARGS_NOT_OBJECT;
			}
			if (emit1(c, '"') < 0)
				return -1;
			c->state = S_STRING;
			break;
		}
		default: {
			if (!is_scalar_byte(ch))
				return fail(c, "unexpected character");
			int role;
			if (value_begins(c, &role) < 0)
				return -1;
			if (role == R_EVENT || role == R_EVENTS)
				return fail(c, role == R_EVENT ? "an event is not an object" : "traceEvents is not an array");
			if (role == R_ARGS_PENDING)
				c->args_at = GT_COPY_ARGS_NOT_OBJECT;
			c->scalar_at = c->len;
			if (emit1(c, ch) < 0)
				return -1;
			c->state = S_SCALAR;
			break;
		}
		}
	}
	return p - start;
}

/* At the end of input: a scalar ends, a missing ']' of the array format is
 * supplied. Input cut short (truncated_input: a profiler killed while
 * writing) keeps what the reader keeps: the events complete before the cut
 * (an event in progress is all of out), then the event array and the
 * top-level object are closed; a member of the top-level object cut after
 * the events is dropped. */
static int finish(copier *c)
{
	if (c->state == S_SCALAR && scalar_ends(c) < 0)
		return -1;
	int e = -1; /* the event array's level, while it is open */
	for (int i = 0; i < c->depth; i++)
		if (c->stack[i].role == R_EVENTS)
			e = i;
	if (e >= 0) {
		if (c->in_event) {
			c->len = 0;
			c->in_event = false;
		}
		c->depth = e + 1;
		c->state = S_MAIN;
		if (close_container(c, ']') < 0)
			return -1;
	}
	if (c->events_done && c->depth >= 1 && c->stack[0].type == '{') {
		if (c->depth > 1 || c->state != S_MAIN || !c->stack[0].expect_key) { /* a member cut short */
			c->len = c->member_at;
			c->depth = 1;
			c->stack[0].expect_key = true;
			c->state = S_MAIN;
		}
		if (close_container(c, '}') < 0)
			return -1;
	}
	if (c->state == S_STRING || c->state == S_ESCAPE)
		return fail(c, "unterminated string");
	if (c->depth || c->state != S_DONE)
		return fail(c, "unexpected end of input");
	if (!c->saw_events)
		return fail(c, "no traceEvents array");
	return c->len ? gt_zsink_write(c->z, c->out, c->len, c->err) : 0;
}

static int copy_input(copier *c, gt_input *in)
{
	const char *data;
	uint64_t size;
	if (gt_input_map(in, &data, &size)) {
		uint64_t at = 0;
		while (at < size) {
			uint64_t n = size - at < READ_BYTES ? size - at : READ_BYTES;
			bool eof = at + n == size;
			long k = feed(c, data + at, data + at + n, eof);
			if (k < 0)
				return -1;
			if (k == 0 && !eof) /* a sequence straddles the slice: take more */
				k = feed(c, data + at, data + size < data + at + n + 4 ? data + size : data + at + n + 4,
					 at + n + 4 >= size);
			if (k <= 0)
				return k < 0 ? -1 : fail(c, "cannot make progress");
			at += (uint64_t)k;
			gt_input_release(in, at);
		}
		return finish(c);
	}
	char *buf = malloc(READ_BYTES + 8);
	if (!buf)
		return gt_fail(c->err, GT_EINPUT, "out of memory");
	size_t have = 0;
	bool eof = false;
	int rc = 0;
	while (!eof || have) {
		if (!eof) {
			long n = gt_input_read(in, buf + have, READ_BYTES - have, c->err);
			if (n < 0) {
				rc = -1;
				break;
			}
			eof = n == 0;
			have += (size_t)n;
		}
		long k = feed(c, buf, buf + have, eof);
		if (k < 0 || (k == 0 && eof && have)) {
			rc = k < 0 ? -1 : fail(c, "cannot make progress");
			break;
		}
		memmove(buf, buf + k, have - (size_t)k);
		have -= (size_t)k;
	}
	free(buf);
	return rc < 0 ? -1 : finish(c);
}

int gt_trace_copy(const char *path, uint64_t max_expansion, gt_zsink *z, const gt_trace_copy_hooks *h,
		  uint64_t *events, gt_error *err)
{
	gt_input *in;
	if (gt_input_open(&in, path, max_expansion, err) < 0)
		return -1;
	size_t head_len;
	const unsigned char *head = gt_input_head(in, &head_len);
	if (gt_gtx_is_index(head, head_len)) {
		gt_input_close(in);
		return gt_fail(err, GT_EINPUT, "%s: an index file: give the trace it was packed from", path);
	}
	copier *c = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *c);
	if (!c) {
		gt_input_close(in);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	c->h = h;
	c->z = z;
	c->err = err;
	c->path = path;
	c->state = S_START;
	int rc = copy_input(c, in);
	*events = c->events;
	free(c->out);
	free(c);
	gt_input_close(in);
	return rc;
}
