/* libFuzzer harness for the critical-path overlay (overlay/overlay.h over
 * trace_copy.h's strict copy), written through the CLI's own code
 * (cli/critpath_overlay.c: a temporary beside the output, compressed by
 * its suffix, renamed into place).
 *
 * The first byte is a mode:
 *   bits 0-1  the input stored plain, gzip- or zstd-compressed (3: plain)
 *   bit 3     the rest is the trace itself (JSON, as fuzz/seeds and
 *             regressions give it); else the rest drives kineto_gen.h
 *   bits 2, 4 the overlay's suffix: .json, .json.gz (bit 2), .json.zst
 *             (bit 4), .json (both)
 *   bit 5     --step 'ProfilerStep*'
 *   bit 6     two threads for the analysis
 *   bit 7     --window over the middle half of the trace (not with --step)
 * The trace goes through a memfd. Whenever it loads and the analysis
 * succeeds (a generated trace must load), the overlay must be written, and
 * must be strict JSON (RFC 8259: checked here byte by byte, then read with
 * cJSON) holding the input's events followed by the process name, one
 * thread name per window, one slice per hop and an s/f pair per hop
 * between two tracks; for a generated trace, each taking-part span's
 * opening event must carry float_us (and critical_path = 1 when on the
 * path) as the result's rows say. abort() on any violation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zlib.h>
#include <zstd.h>

#include "causal/causal.h"
#include "cli.h"
#include "critpath_overlay.h"
#include "loader/loader.h"
#include "model/model.h"

#include "kineto_gen.h"
#include "fuzz_compress.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

static char dir[64];
static char out_path[3][96];

static void remove_dir(void)
{
	for (int i = 0; i < 3; i++)
		unlink(out_path[i]);
	if (dir[0])
		rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the overlay is fsynced and renamed into place: a real directory,
	 * in memory where there is one */
	snprintf(dir, sizeof dir, "%s", access("/dev/shm", W_OK) == 0 ? "/dev/shm/fuzz_overlay.XXXXXX"
								       : "/tmp/fuzz_overlay.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	static const char *const suffix[] = {".json", ".json.gz", ".json.zst"};
	for (int i = 0; i < 3; i++)
		snprintf(out_path[i], sizeof out_path[i], "%s/overlay%s", dir, suffix[i]);
	atexit(remove_dir);
	return 0;
}

/* --- compression of the input, decompression of the output ----------- */

/* Appends n bytes to a growing buffer. */
static void put(char **b, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = (*cap ? *cap * 2 : 1 << 16) + n;
		char *nb = realloc(*b, c);
		if (!nb)
			abort();
		*b = nb;
		*cap = c;
	}
	memcpy(*b + *len, p, n);
	*len += n;
	(*b)[*len] = 0;
}

static char *gunzip(const unsigned char *p, size_t n, size_t *len)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	CHECK(inflateInit2(&zs, 15 + 16) == Z_OK);
	char *b = NULL, tmp[1 << 15];
	size_t cap = 0;
	*len = 0;
	zs.next_in = (Bytef *)p;
	zs.avail_in = (uInt)n;
	int rc;
	do {
		zs.next_out = (Bytef *)tmp;
		zs.avail_out = sizeof tmp;
		rc = inflate(&zs, Z_NO_FLUSH);
		CHECK(rc == Z_OK || rc == Z_STREAM_END); /* the overlay is one whole gzip member */
		put(&b, len, &cap, tmp, sizeof tmp - zs.avail_out);
	} while (rc != Z_STREAM_END);
	CHECK(zs.avail_in == 0);
	inflateEnd(&zs);
	return b;
}

static char *unzstd(const unsigned char *p, size_t n, size_t *len)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	CHECK(ds && !ZSTD_isError(ZSTD_initDStream(ds)));
	char *b = NULL, tmp[1 << 15];
	size_t cap = 0, r = 1;
	*len = 0;
	ZSTD_inBuffer in = {p, n, 0};
	while (in.pos < in.size || r != 0) {
		ZSTD_outBuffer out = {tmp, sizeof tmp, 0};
		size_t before = in.pos;
		r = ZSTD_decompressStream(ds, &out, &in);
		CHECK(!ZSTD_isError(r));
		put(&b, len, &cap, tmp, out.pos);
		CHECK(r == 0 || out.pos > 0 || in.pos > before); /* a frame cut short */
	}
	ZSTD_freeDStream(ds);
	return b;
}

/* --- RFC 8259, strictly ------------------------------------------------ */

typedef struct strict {
	const unsigned char *p, *end;
	int depth;
} strict;

static void ws(strict *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool lit(strict *s, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return false;
	s->p += n;
	return true;
}

static bool digits(strict *s)
{
	const unsigned char *a = s->p;
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > a;
}

static bool number(strict *s)
{
	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (!(s->p < s->end && *s->p >= '1' && *s->p <= '9') || !digits(s))
		return false;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (!digits(s))
			return false;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!digits(s))
			return false;
	}
	return true;
}

/* One UTF-8 character (well-formed: no overlong form, surrogate or
 * value above U+10FFFF). */
static bool utf8(strict *s)
{
	const unsigned char *p = s->p;
	size_t avail = (size_t)(s->end - p);
	unsigned c = p[0], n, min;
	if (c < 0x80)
		n = 1, min = 0;
	else if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000;
	else
		return false;
	if (avail < n)
		return false;
	unsigned v = n == 1 ? c : c & (0x7f >> n);
	for (unsigned i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return false;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return false;
	s->p += n;
	return true;
}

static bool string(strict *s)
{
	if (!lit(s, "\""))
		return false;
	while (s->p < s->end) {
		unsigned char c = *s->p;
		if (c == '"') {
			s->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			s->p++;
			if (s->p >= s->end)
				return false;
			c = *s->p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, s->p++)
					if (s->p >= s->end || !strchr("0123456789abcdefABCDEF", *s->p) || !*s->p)
						return false;
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return false;
			}
			continue;
		}
		if (!utf8(s))
			return false;
	}
	return false;
}

static bool value(strict *s);

static bool container(strict *s, char open, char close)
{
	if (++s->depth > 2000)
		return false;
	s->p++; /* open */
	(void)open;
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		s->depth--;
		return true;
	}
	for (;;) {
		ws(s);
		if (close == '}') {
			if (!string(s))
				return false;
			ws(s);
			if (!lit(s, ":"))
				return false;
		}
		if (!value(s))
			return false;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			s->depth--;
			return true;
		}
		return false;
	}
}

static bool value(strict *s)
{
	ws(s);
	if (s->p >= s->end)
		return false;
	switch (*s->p) {
	case '{': return container(s, '{', '}');
	case '[': return container(s, '[', ']');
	case '"': return string(s);
	case 't': return lit(s, "true");
	case 'f': return lit(s, "false");
	case 'n': return lit(s, "null");
	default: return number(s);
	}
}

/* The offset of the first violation, or -1 when text is one strict JSON value. */
static long strict_json(const char *text, size_t len)
{
	strict s = {(const unsigned char *)text, (const unsigned char *)text + len, 0};
	bool ok = value(&s);
	if (ok) {
		ws(&s);
		ok = s.p == s.end;
	}
	return ok ? -1 : (long)(s.p - (const unsigned char *)text);
}

/* --- the checks --------------------------------------------------------- */

/* The last member named key (the one the overlay annotates), or NULL. */
static const cJSON *last_member(const cJSON *obj, const char *key)
{
	const cJSON *found = NULL;
	for (const cJSON *c = obj ? obj->child : NULL; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			found = c;
	return found;
}

static void check_overlay(const gt_model *m, const gt_causal_result *r, const char *text, size_t len, bool generated)
{
	long bad = strict_json(text, len);
	if (bad >= 0) {
		fprintf(stderr, "the overlay is not strict JSON at byte %ld of %zu: %.60s\n", bad, len, text + bad);
		abort();
	}
	cJSON *root = cJSON_ParseWithLength(text, len);
	CHECK(root != NULL);
	const cJSON *events = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
	CHECK(cJSON_IsArray(events));
	uint64_t hops = 0, flows = 0, windows_with_hops = 0;
	for (uint32_t w = 0; w < r->window_count; w++) {
		windows_with_hops += r->windows[w].hop_count > 0;
		for (uint32_t i = 0; i < r->windows[w].hop_count; i++) {
			const gt_causal_hop *h = &r->windows[w].hops[i];
			hops++;
			flows += m->spans[h->from.span].track != m->spans[h->to.span].track;
		}
	}
	/* added after the input's events: the metadata (the process and a
	 * thread per window), the hop slices (hops share one below 1 us: at
	 * least one per window with hops, at most one per hop) and a flow pair
	 * per cross-track hop, less those no order of points binds */
	uint64_t got = (uint64_t)cJSON_GetArraySize(events), k = 0, meta = 0, slices = 0, starts = 0, ends = 0;
	for (const cJSON *e = events->child; e; e = e->next, k++) {
		CHECK(cJSON_IsObject(e));
		if (k < m->stats.events)
			continue;
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
		CHECK(cJSON_IsString(ph) && strchr("MXsf", ph->valuestring[0]) && ph->valuestring[0]);
		char c = ph->valuestring[0];
		meta += c == 'M', slices += c == 'X', starts += c == 's', ends += c == 'f';
	}
	if (got < m->stats.events || meta != 1 + r->window_count || slices > hops || slices < windows_with_hops ||
	    starts != ends || starts > flows) {
		fprintf(stderr, "%" PRIu64 " events in the overlay for %" PRIu64 " read: %" PRIu64 " metadata, %" PRIu64
			" hop slices, %" PRIu64 "/%" PRIu64 " flow points, for %u windows, %" PRIu64 " hops, %" PRIu64
			" cross-track\n", got, m->stats.events, meta, slices, starts, ends, r->window_count, hops, flows);
		abort();
	}
	if (generated) { /* the annotations, where the generator writes plain args keys */
		uint8_t *seen = calloc(m->span_count ? m->span_count : 1, 1);
		const cJSON **ev = calloc(m->stats.events ? m->stats.events : 1, sizeof *ev);
		if (!seen || !ev)
			abort();
		k = 0;
		for (const cJSON *e = events->child; e && k < m->stats.events; e = e->next)
			ev[k++] = e;
		for (uint32_t w = 0; w < r->window_count; w++)
			for (uint32_t i = 0; i < r->windows[w].row_count; i++) {
				const gt_causal_row *row = &r->windows[w].rows[i];
				if (seen[row->span]++)
					continue; /* the first window's */
				CHECK(m->spans[row->span].event < m->stats.events);
				const cJSON *args = last_member(ev[m->spans[row->span].event], "args");
				if (args && !cJSON_IsObject(args))
					continue; /* left unannotated */
				const cJSON *f = last_member(args, "float_us"), *cp = last_member(args, "critical_path");
				CHECK(cJSON_IsNumber(f));
				double d = f->valuedouble * 1000 - (double)row->float_ns;
				CHECK(d < 1 + 1e-9 * (double)row->float_ns && d > -1 - 1e-9 * (double)row->float_ns);
				CHECK(row->on_path ? cJSON_IsNumber(cp) && cp->valuedouble == 1 : cp == NULL);
			}
		free(seen);
		free(ev);
	}
	cJSON_Delete(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++;
	size--;
	bool generated = !(mode & 8);
	char *text = NULL;
	const void *bytes = data;
	size_t len = size;
	if (generated) {
		text = kg_generate(data, size, &len);
		if (!text)
			return 0;
		kg_dump(text, len);
		bytes = text;
	}
	unsigned char *packed = NULL;
	size_t n = len;
	if ((mode & 3) == 1)
		packed = gzip_bytes(bytes, len, &n);
	else if ((mode & 3) == 2)
		packed = zstd_bytes(bytes, len, &n);
	if ((mode & 3) == 1 || (mode & 3) == 2) {
		if (!packed) {
			free(text);
			return 0;
		}
		bytes = packed;
	}
	int fd = memfd_create("trace", MFD_CLOEXEC);
	if (fd < 0 || (n && write(fd, bytes, n) != (ssize_t)n))
		abort();
	free(packed);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	struct gt_common c;
	gt_common_init(&c);
	c.quiet = true;
	c.threads = (mode & 64) ? 2 : 1;
	gt_model m;
	gt_error err = {0};
	/* one parsing thread: fuzz builds cut windows tiny (ingest.c), so more
	 * would start a thread per few bytes; fuzz_trace covers that split */
	gt_load_options lo = {.threads = 1, .max_expansion = c.max_expansion};
	int rc = gt_model_load(&m, path, &lo, &err);
	if (rc < 0 && generated) {
		fprintf(stderr, "a generated trace did not load: %s\n%s\n", err.msg, text);
		abort();
	}
	free(text);
	if (rc < 0) {
		close(fd);
		return 0;
	}
	gt_causal_options o = {.rows = true, .threads = c.threads};
	if (mode & 32)
		o.step_glob = "ProfilerStep*";
	else if (mode & 128) {
		int64_t span = m.end_ns - m.start_ns;
		o.has_window = true;
		o.window_begin_ns = span / 4;
		o.window_end_ns = span - span / 4;
	}
	gt_causal_result r;
	if (gt_causal_analyze(&m, &o, NULL, &r, &err) < 0) {
		gt_model_free(&m);
		close(fd);
		return 0;
	}
	int which = (mode & 4) && !(mode & 16) ? 1 : (mode & 16) && !(mode & 4) ? 2 : 0;
	gt_outfile of = {0};
	rc = gt_cli_causal_overlay(&c, &m, &r, path, out_path[which], &of);
	if (rc != 0) {
		fprintf(stderr, "the overlay of an accepted trace failed: exit %d\n", rc);
		abort();
	}
	CHECK(gt_cli_overlay_commit(&of) == 0);
	close(fd);

	FILE *f = fopen(out_path[which], "rb");
	CHECK(f != NULL);
	char *file = NULL, tmp[1 << 15];
	size_t flen = 0, fcap = 0, k;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		put(&file, &flen, &fcap, tmp, k);
	CHECK(!ferror(f));
	fclose(f);
	unlink(out_path[which]);
	char *json = file;
	size_t jlen = flen;
	if (which == 1)
		json = gunzip((const unsigned char *)file, flen, &jlen);
	else if (which == 2)
		json = unzstd((const unsigned char *)file, flen, &jlen);
	CHECK(json != NULL);
	check_overlay(&m, &r, json, jlen, generated);
	if (json != file)
		free(json);
	free(file);
	gt_causal_result_free(&r);
	gt_model_free(&m);
	return 0;
}
