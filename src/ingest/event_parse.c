/* Parses one trace event object, keeping only the fields the model uses and
 * skipping (while validating) everything else. */
#include <string.h>

#include "raw_event.h"
#include "model/model.h"

#define NEED(p) do { if ((p) >= lx->end) return lx->final ? jl_error(lx, (p), "unexpected end of input") : JL_NEED_MORE; } while (0)

static int key_is(const jl_slice *k, const char *s, size_t n)
{
	return k->len == n && memcmp(k->p, s, n) == 0;
}

static const uint64_t pow10_small[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* fast_us eight digits at a time; needs 32 readable bytes at p. */
static inline int fast_us_wide(const char *p, const char **after, int64_t *out)
{
	bool neg = *p == '-';
	const char *q = p + neg;
	unsigned n = jl_digits8(q), nint = n;
	if (n == 0)
		return 0;
	uint64_t v = jl_value8(q, n);
	if (n == 8) {
		unsigned n2 = jl_digits8(q + 8);
		if (n2 == 8 && q[16] >= '0' && q[16] <= '9')
			return 0; /* 17 or more integer digits: general path */
		if (n2)
			v = v * pow10_small[n2] + jl_value8(q + 8, n2);
		nint += n2;
	}
	if (q[0] == '0' && nint > 1)
		return 0; /* a leading zero is not JSON: the general path says so */
	q += nint;
	unsigned frac = 0;
	if (*q == '.') {
		frac = jl_digits8(q + 1);
		if (frac == 0 || frac > 3)
			return 0;
		v = v * pow10_small[frac] + jl_value8(q + 1, frac);
		q += 1 + frac;
	}
	if (*q == '.' || *q == 'e' || *q == 'E')
		return 0;
	v *= pow10_small[3 - frac]; /* at most 19 digits: fits uint64 */
	if (v > (uint64_t)INT64_MAX)
		return 0;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*after = q;
	return 1;
}

/* The common case, digits with at most three decimals and no exponent,
 * converted while scanning; anything else returns 0 for the general path. */
static int fast_us(const char *p, const char *end, const char **after, int64_t *out)
{
	if (end - p >= 32)
		return fast_us_wide(p, after, out);
	bool neg = p < end && *p == '-';
	const char *q = p + neg;
	uint64_t v = 0;
	const char *d = q;
	while (q < end && *q >= '0' && *q <= '9' && q - d < 16)
		v = v * 10 + (uint64_t)(*q++ - '0');
	if (q == d || (*d == '0' && q - d > 1))
		return 0;
	int frac = 0;
	if (q < end && *q == '.') {
		q++;
		while (q < end && *q >= '0' && *q <= '9' && frac < 3) {
			v = v * 10 + (uint64_t)(*q++ - '0');
			frac++;
		}
		if (frac == 0)
			return 0;
	}
	if (q >= end || (*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E')
		return 0; /* more digits, an exponent, or the buffer ends: general path */
	for (; frac < 3; frac++)
		v *= 10; /* at most 19 digits: fits uint64 */
	if (v > (uint64_t)INT64_MAX)
		return 0;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*after = q;
	return 1;
}

/* Notes the first unusable value of an event: the event is skipped later. */
static inline void mark_bad(raw_event *ev, int what, const char *at)
{
	if (!ev->bad)
		ev->bad_at = (uint32_t)(at - ev->text);
	ev->bad |= (uint8_t)what;
}

/* Skips a value of the wrong kind for its field (still JSON, or one of
 * NaN / Infinity) and marks the event. */
static int skip_bad(jl_lexer *lx, const char **pp, raw_event *ev, int what)
{
	const char *at = *pp;
	int rc = jl_skip_value(lx, pp, 1);
	if (rc == JL_OK)
		mark_bad(ev, what, at);
	return rc;
}

/* A number in µs (JSON number or numeric string) -> ns; anything else
 * (null, "invalid", "50a", out of range) marks the event with what. */
static int time_value(jl_lexer *lx, const char **pp, int64_t *out, raw_event *ev, int what)
{
	const char *p = *pp;
	if (*p != '"' && fast_us(p, lx->end, pp, out))
		return JL_OK;
	jl_slice s;
	int rc;
	if (*p == '"') {
		rc = jl_string(lx, &p, &s);
	} else if ((*p == '-' && (lx->end - p < 2 || p[1] != 'I')) || (*p >= '0' && *p <= '9')) {
		rc = jl_number(lx, &p, &s);
	} else {
		return skip_bad(lx, pp, ev, what);
	}
	if (rc)
		return rc;
	if (s.escaped || jl_us_to_ns(s.p, s.len, out) < 0) {
		*out = 0;
		mark_bad(ev, what, *pp);
	}
	*pp = p;
	return JL_OK;
}

static int id_value(jl_lexer *lx, const char **pp, raw_id *out, raw_event *ev)
{
	const char *p = *pp;
	int rc;
	if (*p == '"') {
		out->kind = RID_STR;
		rc = jl_string(lx, &p, &out->str);
	} else if ((*p == '-' && (lx->end - p < 2 || p[1] != 'I')) || (*p >= '0' && *p <= '9')) {
		jl_slice s;
		rc = jl_number(lx, &p, &s);
		if (rc == JL_OK) {
			const char *d = s.p + (s.p[0] == '-');
			unsigned nd = (unsigned)(s.p + s.len - d);
			if (nd >= 1 && nd <= 8 && lx->end - d >= 8 && jl_digits8(d) >= nd) {
				/* pids and tids: short integers, read eight digits at a time */
				int64_t v = (int64_t)jl_value8(d, nd);
				out->num = d == s.p ? v : -v;
			} else if (jl_parse_int(s.p, s.len, &out->num) < 0) {
				mark_bad(ev, REVB_ID, *pp); /* 1.5, 1e3, out of range */
				out->num = 0;
			}
			out->kind = RID_NUM;
		}
	} else if (*p == 'n') {
		rc = jl_skip_value(lx, &p, 1); /* null: absent */
		out->kind = RID_ABSENT;
		if (rc == JL_OK && p - *pp != 4)
			mark_bad(ev, REVB_ID, *pp); /* NaN */
	} else {
		out->kind = RID_ABSENT;
		return skip_bad(lx, pp, ev, REVB_ID);
	}
	if (rc == JL_OK)
		*pp = p;
	return rc;
}

static int string_value(jl_lexer *lx, const char **pp, jl_slice *out, raw_event *ev)
{
	const char *p = *pp;
	int rc;
	if (*p == '"') {
		rc = jl_string(lx, &p, out);
	} else {
		out->p = NULL;
		out->len = 0;
		if (*p != 'n')
			return skip_bad(lx, pp, ev, REVB_FIELD);
		rc = jl_skip_value(lx, &p, 1);
		if (rc == JL_OK && (p - *pp) != 4)
			mark_bad(ev, REVB_FIELD, *pp); /* NaN */
	}
	if (rc == JL_OK)
		*pp = p;
	return rc;
}

static int bool_value(jl_lexer *lx, const char **pp, bool *out, raw_event *ev)
{
	const char *p = *pp;
	if (*p != 't' && *p != 'f')
		return skip_bad(lx, pp, ev, REVB_FIELD);
	int rc = jl_skip_value(lx, &p, 1);
	if (rc == JL_OK) {
		*out = **pp == 't';
		*pp = p;
	}
	return rc;
}

/* Steps to the next member of an object whose '{' was consumed: on JL_OK
 * either *done is set (the object closed; *pp is past its '}') or *key is
 * the member's name and *pp points at its value. Trailing commas are
 * counted, as everywhere. */
/* always_inline: called once per member of every event, the hot path */
static inline __attribute__((always_inline)) int next_member(jl_lexer *lx, const char **pp, bool *first, bool *done, jl_slice *key)
{
	const char *p = jl_skip_ws(*pp, lx->end);
	NEED(p);
	*done = false;
	if (*p == '}') {
		*pp = p + 1;
		*done = true;
		return JL_OK;
	}
	if (!*first) {
		if (*p != ',')
			return jl_error(lx, p, "expected ',' or '}' in object");
		p = jl_skip_ws(p + 1, lx->end);
		NEED(p);
		if (*p == '}') {
			lx->trailing_commas++;
			*pp = p + 1;
			*done = true;
			return JL_OK;
		}
	}
	*first = false;
	int rc = jl_key(lx, &p, key);
	if (rc)
		return rc;
	NEED(p);
	*pp = p;
	return JL_OK;
}

/* id2: {"local": X} or {"global": X} */
static int id2_value(jl_lexer *lx, const char **pp, raw_event *ev)
{
	const char *p = *pp;
	if (*p != '{')
		return skip_bad(lx, pp, ev, REVB_FIELD);
	p++;
	bool first = true, done;
	for (;;) {
		jl_slice k;
		int rc = next_member(lx, &p, &first, &done, &k);
		if (rc)
			return rc;
		if (done)
			break;
		if (key_is(&k, "global", 6) || key_is(&k, "local", 5)) {
			rc = id_value(lx, &p, &ev->id, ev);
			ev->flags = (uint8_t)((ev->flags & ~(REV_ID2_GLOBAL | REV_ID2_LOCAL)) |
					      (k.len == 6 ? REV_ID2_GLOBAL : REV_ID2_LOCAL));
		} else {
			rc = jl_skip_value(lx, &p, 2);
		}
		if (rc)
			return rc;
	}
	*pp = p;
	return JL_OK;
}

int gt_parse_event(jl_lexer *lx, const char **pp, raw_event *ev)
{
	const char *p = *pp;
	memset(ev, 0, sizeof *ev);
	ev->name_local = ev->cat_local = UINT32_MAX; /* GT_NONE: set by the piece that parsed it */
	ev->text = p;
	uint64_t utf8_before = lx->invalid_utf8, nonstd_before = lx->nonstandard;
	p++; /* '{' */
	bool first = true, done;
	for (;;) {
		jl_slice k;
		int rc = next_member(lx, &p, &first, &done, &k);
		if (rc)
			return rc;
		if (done)
			break;
		const char *vstart = p;
		bool b = false;
		jl_slice s;
		switch (k.len) {
		case 1:
			if (k.p[0] == 's') {
				rc = string_value(lx, &p, &s, ev);
				ev->s = rc == JL_OK && s.len ? s.p[0] : 0;
				goto done;
			}
			break;
		case 2:
			if (key_is(&k, "ph", 2)) {
				rc = string_value(lx, &p, &s, ev);
				ev->ph = rc == JL_OK && s.len == 1 ? s.p[0] : (s.len ? '?' : 0);
				if (rc == JL_OK && s.len > 1)
					ev->ph_text = s;
				goto done;
			}
			if (key_is(&k, "ts", 2)) {
				rc = time_value(lx, &p, &ev->ts_ns, ev, REVB_TS);
				ev->flags |= REV_HAS_TS;
				goto done;
			}
			if (key_is(&k, "id", 2)) {
				rc = id_value(lx, &p, &ev->id, ev);
				goto done;
			}
			if (key_is(&k, "bp", 2)) {
				rc = string_value(lx, &p, &s, ev);
				ev->bp = rc == JL_OK && s.len ? s.p[0] : 0;
				goto done;
			}
			break;
		case 3:
			if (key_is(&k, "dur", 3)) {
				rc = time_value(lx, &p, &ev->dur_ns, ev, REVB_DUR);
				if (rc == JL_OK && ev->dur_ns < 0) {
					mark_bad(ev, REVB_NEG_DUR, vstart);
					ev->dur_ns = 0;
				}
				ev->flags |= REV_HAS_DUR;
				goto done;
			}
			if (key_is(&k, "pid", 3)) {
				rc = id_value(lx, &p, &ev->pid, ev);
				goto done;
			}
			if (key_is(&k, "tid", 3)) {
				rc = id_value(lx, &p, &ev->tid, ev);
				goto done;
			}
			if (key_is(&k, "cat", 3)) {
				rc = string_value(lx, &p, &ev->cat, ev);
				if (rc == JL_OK && ev->cat.len && !ev->cat.escaped) /* null: no text */
					ev->cat_hash = gt_strpool_hash(ev->cat.p, ev->cat.len);
				goto done;
			}
			if (key_is(&k, "id2", 3)) {
				rc = id2_value(lx, &p, ev);
				goto done;
			}
			break;
		case 4:
			if (key_is(&k, "name", 4)) {
				rc = string_value(lx, &p, &ev->name, ev);
				if (rc == JL_OK && ev->name.len && !ev->name.escaped) /* null: no text */
					ev->name_hash = gt_strpool_hash(ev->name.p, ev->name.len);
				goto done;
			}
			if (key_is(&k, "args", 4)) {
				rc = jl_skip_value(lx, &p, 1);
				ev->args.p = vstart;
				ev->args.len = (uint32_t)(p - vstart);
				goto done;
			}
			break;
		case 5:
			if (key_is(&k, "scope", 5)) {
				rc = string_value(lx, &p, &ev->scope, ev);
				goto done;
			}
			break;
		case 7:
			if (key_is(&k, "bind_id", 7)) {
				rc = id_value(lx, &p, &ev->bind_id, ev);
				goto done;
			}
			if (key_is(&k, "flow_in", 7)) {
				rc = bool_value(lx, &p, &b, ev);
				if (b)
					ev->flags |= REV_FLOW_IN;
				goto done;
			}
			break;
		case 8:
			if (key_is(&k, "flow_out", 8)) {
				rc = bool_value(lx, &p, &b, ev);
				if (b)
					ev->flags |= REV_FLOW_OUT;
				goto done;
			}
			break;
		}
		rc = jl_skip_value(lx, &p, 1);
	done:
		if (rc)
			return rc;
	}
	*pp = p;
	size_t len = (size_t)(p - ev->text);
	ev->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	if (lx->invalid_utf8 != utf8_before)
		ev->notes |= REVN_UTF8;
	if (lx->nonstandard != nonstd_before)
		ev->notes |= REVN_NONSTANDARD;
	if (ev->ph == 'X' || ev->ph == 'B')
		gt_sync_read_role(ev);
	return JL_OK;
}
