/* Recorded stream waits (the rule is in causal.h): Kineto's cuda_sync
 * markers name the cudaEventRecord call (by correlation) and the stream
 * it recorded on; the device span that event stands for is the last one
 * launched to that stream before the call. A "Stream Wait Event" holds
 * the first device span launched to its own stream after the
 * cudaStreamWaitEvent call; an "Event Sync" holds the end of its
 * cudaEventSynchronize call. Found once for the trace, grouped by the
 * window of the held span. O(n log n) in the device spans and calls. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

const char *const gt_causal_sync_problem_names[GT_CAUSAL_SYNC_PROBLEM_COUNT] = {
	[GT_CAUSAL_SYNC_UNUSABLE_ARGS] = "unusable_args",
	[GT_CAUSAL_SYNC_NO_RECORD] = "no_record",
	[GT_CAUSAL_SYNC_NO_LAUNCH_BEFORE_RECORD] = "no_launch_before_record",
	[GT_CAUSAL_SYNC_NO_LAUNCH_AFTER_WAIT] = "no_launch_after_wait",
	[GT_CAUSAL_SYNC_NO_SYNC_CALL] = "no_sync_call",
};

/* A call by (rank, role, correlation); a device span by (track, launch). */
typedef struct call_key {
	uint32_t rank, role;
	int64_t correlation;
	uint32_t span, sync; /* sync: index into m->syncs */
} call_key;

typedef struct launch_key {
	uint32_t track, span;
	int64_t launch; /* the launching call's start */
} launch_key;

static int cmp_call(const void *x, const void *y)
{
	const call_key *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	if (a->correlation != b->correlation)
		return a->correlation < b->correlation ? -1 : 1;
	return a->span < b->span ? -1 : a->span > b->span;
}

/* The first i in [lo, hi) where below(ctx, i) fails (hi when none), for
 * a predicate that holds on a prefix, searched outwards from hint: the
 * markers come in trace order, so each search lands near the last. */
static uint32_t gallop(uint32_t lo, uint32_t hi, uint32_t hint, bool (*below)(const void *, uint32_t), const void *ctx)
{
	if (hint < lo || hint >= hi)
		hint = lo;
	if (lo < hi && below(ctx, hint)) { /* the answer is right of hint */
		uint32_t a = hint, step = 1;
		while (step < hi - a && below(ctx, a + step))
			a += step, step *= 2;
		lo = a + 1, hi = step < hi - a ? a + step : hi;
	} else { /* at hint or left of it */
		uint32_t b = hint, step = 1;
		while (step <= b - lo && !below(ctx, b - step))
			b -= step, step *= 2;
		lo = step <= b - lo ? b - step + 1 : lo, hi = b;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (below(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef struct call_search {
	const call_key *c;
	call_key want;
} call_search;

static bool call_below(const void *ctx, uint32_t i)
{
	const call_search *q = ctx;
	return cmp_call(&q->c[i], &q->want) < 0;
}

/* The first call of (rank, role, correlation): its index, or -1; *hint
 * is where the last search of the role landed. */
static int64_t find_call(const call_key *c, uint32_t n, uint32_t rank, uint32_t role, int64_t corr, uint32_t *hint)
{
	call_search q = {c, {rank, role, corr, 0, 0}};
	uint32_t lo = gallop(0, n, *hint, call_below, &q);
	*hint = lo;
	return lo < n && c[lo].rank == rank && c[lo].role == role && c[lo].correlation == corr ? (int64_t)lo : -1;
}

typedef struct launch_search {
	const launch_key *l;
	int64_t t;
	bool strict;
} launch_search;

static bool launch_below(const void *ctx, uint32_t i)
{
	const launch_search *q = ctx;
	return q->strict ? q->l[i].launch <= q->t : q->l[i].launch < q->t;
}

/* The launches by track: l[first[tr] .. first[tr + 1]), and where each
 * track's last search landed. */
typedef struct launches {
	const launch_key *l;
	uint32_t *first, *hint;
} launches;

/* Index of track tr's first launch at or after t (strict: after t); the
 * track's end when none. */
static uint32_t launch_from(const launches *ls, uint32_t tr, int64_t t, bool strict)
{
	launch_search q = {ls->l, t, strict};
	uint32_t at = gallop(ls->first[tr], ls->first[tr + 1], ls->hint[tr], launch_below, &q);
	ls->hint[tr] = at;
	return at;
}

/* The thread track of (process, numeric tid), GT_NONE. */
typedef struct track_key {
	uint32_t process, track;
	int64_t tid;
} track_key;

static int cmp_track(const void *x, const void *y)
{
	const track_key *a = x, *b = y;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static uint32_t find_track(const track_key *k, uint32_t n, uint32_t process, int64_t tid)
{
	track_key want = {process, 0, tid};
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cmp_track(&k[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && k[lo].process == process && k[lo].tid == tid ? k[lo].track : GT_NONE;
}

static uint32_t rank_index(const gt_model *m, uint32_t span)
{
	const gt_rank_part *r = gt_model_span_rank(m, span);
	return r ? (uint32_t)(r - m->ranks) : 0;
}

static void problem(causal_trace *t, int kind, uint32_t span)
{
	gt_causal_sync_counts *c = &t->syncs;
	if (c->examples[kind] < GT_CAUSAL_SYNC_EXAMPLES)
		c->example_span[kind][c->examples[kind]++] = span;
	c->problems[kind]++;
}

typedef struct found {
	uint32_t *src, *dst;
	uint8_t *kind;
	uint32_t n;
} found;

/* What every marker's search reads. */
typedef struct lookup {
	const call_key *calls;
	uint32_t ncalls;
	uint32_t call_hint[GT_SYNC_ROLE_MAX + 1];
	launches ls;
	const track_key *tracks;
	uint32_t ntracks;
	uint8_t *waited; /* per call: a marker names it */
} lookup;

/* One marker: its edge into f, or a problem counted. */
static void resolve(causal_trace *t, const gt_sync *y, lookup *q, found *f)
{
	const gt_model *m = t->m;
	if (!(y->flags & GT_SYNCF_RECORD))
		return problem(t, GT_CAUSAL_SYNC_UNUSABLE_ARGS, y->span);
	uint32_t rank = rank_index(m, y->span);
	int64_t rec = find_call(q->calls, q->ncalls, rank, GT_SYNC_RECORD_CALL, y->record_correlation,
				&q->call_hint[GT_SYNC_RECORD_CALL]);
	if (rec < 0)
		return problem(t, GT_CAUSAL_SYNC_NO_RECORD, y->span);
	q->waited[rec] = 1;
	const gt_span *marker = &m->spans[y->span];
	uint32_t from = find_track(q->tracks, q->ntracks, m->tracks[marker->track].process, y->wait_on_stream);
	uint32_t at = from == GT_NONE ? 0 : launch_from(&q->ls, from, m->spans[q->calls[rec].span].ts_ns, false);
	if (from == GT_NONE || at == q->ls.first[from])
		return problem(t, GT_CAUSAL_SYNC_NO_LAUNCH_BEFORE_RECORD, y->span);
	uint32_t k = q->ls.l[at - 1].span;
	bool has_corr = y->flags & GT_SYNCF_CORRELATION;
	if (y->role == GT_SYNC_STREAM_WAIT) {
		int64_t call = has_corr ? find_call(q->calls, q->ncalls, rank, GT_SYNC_WAIT_CALL, y->correlation,
						    &q->call_hint[GT_SYNC_WAIT_CALL])
					: -1;
		int64_t when = call >= 0 ? m->spans[q->calls[call].span].ts_ns : marker->ts_ns;
		uint32_t next = launch_from(&q->ls, marker->track, when, true);
		if (next == q->ls.first[marker->track + 1])
			return problem(t, GT_CAUSAL_SYNC_NO_LAUNCH_AFTER_WAIT, y->span);
		f->src[f->n] = k, f->dst[f->n] = q->ls.l[next].span, f->kind[f->n++] = 0;
		t->syncs.stream_waits++;
		return;
	}
	int64_t call = has_corr ? find_call(q->calls, q->ncalls, rank, GT_SYNC_EVENT_SYNC_CALL, y->correlation,
					    &q->call_hint[GT_SYNC_EVENT_SYNC_CALL])
				: -1;
	if (call < 0 || !causal_takes_part(t, q->calls[call].span))
		return problem(t, GT_CAUSAL_SYNC_NO_SYNC_CALL, y->span);
	f->src[f->n] = k, f->dst[f->n] = q->calls[call].span, f->kind[f->n++] = 1;
	t->syncs.event_syncs++;
}

/* Groups f's edges by the window of their held span into t->rec_*. */
static int by_window(causal_trace *t, const found *f)
{
	t->rec_first = calloc((size_t)t->window_count + 2, sizeof *t->rec_first);
	t->rec_src = malloc((f->n ? f->n : 1) * sizeof *t->rec_src);
	t->rec_dst = malloc((f->n ? f->n : 1) * sizeof *t->rec_dst);
	t->rec_kind = malloc(f->n ? f->n : 1);
	uint32_t *fill = calloc((size_t)t->window_count + 1, sizeof *fill);
	if (!t->rec_first || !t->rec_src || !t->rec_dst || !t->rec_kind || !fill) {
		free(fill);
		return -1;
	}
	for (uint32_t i = 0; i < f->n; i++)
		if (t->window_of[f->dst[i]] != GT_NONE)
			t->rec_first[t->window_of[f->dst[i]] + 1]++;
	for (uint32_t w = 0; w < t->window_count; w++)
		t->rec_first[w + 1] += t->rec_first[w];
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t w = t->window_of[f->dst[i]];
		if (w == GT_NONE)
			continue;
		uint32_t at = t->rec_first[w] + fill[w]++;
		t->rec_src[at] = f->src[i], t->rec_dst[at] = f->dst[i], t->rec_kind[at] = f->kind[i];
	}
	free(fill);
	return 0;
}

/* The tracks markers can name: their own, and each thread track of their
 * process whose numeric tid is a wait_on_stream (marked in need). */
static void tracks_needed(const causal_trace *t, const track_key *tracks, uint32_t ntracks, uint8_t *need)
{
	const gt_model *m = t->m;
	for (uint32_t i = 0; i < m->sync_count; i++) {
		const gt_sync *y = &m->syncs[i];
		if (y->role != GT_SYNC_STREAM_WAIT && y->role != GT_SYNC_EVENT_SYNC)
			continue;
		uint32_t own = m->spans[y->span].track;
		need[own] = 1;
		if (y->flags & GT_SYNCF_RECORD) {
			uint32_t tr = find_track(tracks, ntracks, m->tracks[own].process, y->wait_on_stream);
			if (tr != GT_NONE)
				need[tr] = 1;
		}
	}
}

/* Whether flow f launches a device span of a needed track. */
static bool launches_needed(const causal_trace *t, const uint8_t *need, const gt_flow *f)
{
	return f->src != GT_NONE && f->dst != GT_NONE && !(t->span_class[f->src] & CAUSAL_DEVICE) &&
	       (t->span_class[f->dst] & (CAUSAL_DEVICE | CAUSAL_TAKES_PART)) == (CAUSAL_DEVICE | CAUSAL_TAKES_PART) &&
	       need[t->m->spans[f->dst].track];
}

/* The launches of the device spans on needed tracks, by (track, launch,
 * span): a span's launch is the earliest start of a host span with a
 * flow into it. One radix sort by (track, launch) (two stable ones where
 * that does not fit 64 bits), equal keys then put in span order, and a
 * span's later launches dropped. NULL out of memory. */
static launch_key *gather_launches(const causal_trace *t, const uint8_t *need, uint32_t *n_out)
{
	const gt_model *m = t->m;
	uint32_t n = 0, cap = m->flow_count;
	int64_t base = INT64_MAX, last = INT64_MIN;
	uint64_t *key = gt_big_malloc(cap, sizeof *key), *tk = gt_big_malloc(cap, sizeof *tk);
	uint32_t *val = gt_big_malloc(cap, sizeof *val), *tv = gt_big_malloc(cap, sizeof *tv);
	uint8_t *seen = calloc(m->span_count / 8 + 1, 1);
	launch_key *l = malloc((cap ? cap : 1) * sizeof *l);
	if (!key || !tk || !val || !tv || !seen || !l) {
		gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), free(seen), free(l);
		return NULL;
	}
	for (uint32_t i = 0; i < m->flow_count; i++) { /* one pass: the spans are read at random */
		const gt_flow *f = &m->flows[i];
		if (!launches_needed(t, need, f))
			continue;
		int64_t at = m->spans[f->src].ts_ns;
		base = at < base ? at : base, last = at > last ? at : last;
		key[n] = (uint64_t)at; /* made relative below */
		tk[n] = m->spans[f->dst].track;
		val[n++] = f->dst;
	}
	bool one = n && (uint64_t)(last - base) < (1ull << 40) && m->track_count < (1u << 24);
	for (uint32_t i = 0; i < n; i++)
		key[i] = (one ? tk[i] << 40 : 0) | (uint64_t)((int64_t)key[i] - base);
	gt_radix_sort_u64(key, val, n, tk, tv);
	if (!one) { /* then stably by track */
		for (uint32_t i = 0; i < n; i++)
			tk[i] = key[i];
		for (uint32_t i = 0; i < n; i++)
			key[i] = m->spans[val[i]].track;
		int64_t *launch = (int64_t *)tk; /* each entry's launch, kept beside */
		uint32_t *order = gt_big_malloc(n, sizeof *order), *to = gt_big_malloc(n, sizeof *to);
		uint64_t *tk2 = gt_big_malloc(n, sizeof *tk2);
		if (!order || !to || !tk2) {
			gt_big_free(order), gt_big_free(to), gt_big_free(tk2);
			gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), free(seen), free(l);
			return NULL;
		}
		for (uint32_t i = 0; i < n; i++)
			order[i] = i;
		gt_radix_sort_u64(key, order, n, tk2, to);
		for (uint32_t i = 0; i < n; i++)
			tv[i] = val[order[i]], tk2[i] = (uint64_t)launch[order[i]];
		for (uint32_t i = 0; i < n; i++)
			val[i] = tv[i], key[i] = m->spans[val[i]].track, tk[i] = tk2[i];
		gt_big_free(order), gt_big_free(to), gt_big_free(tk2);
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1; /* a run of one (track, launch): by span */
		while (j < n && key[j] == key[i] && (one || tk[j] == tk[i]))
			j++;
		for (uint32_t x = i + 1; x < j; x++)
			for (uint32_t y = x; y > i && val[y - 1] > val[y]; y--) {
				uint32_t v = val[y];
				val[y] = val[y - 1], val[y - 1] = v;
			}
		for (uint32_t x = i; x < j; x++) {
			uint32_t sp = val[x];
			if (seen[sp / 8] & (1u << (sp % 8)))
				continue; /* a later launch of a span already kept */
			seen[sp / 8] |= (uint8_t)(1u << (sp % 8));
			int64_t at = (int64_t)(one ? key[x] & ((1ull << 40) - 1) : tk[x]) + base;
			l[kept++] = (launch_key){one ? (uint32_t)(key[x] >> 40) : (uint32_t)key[x], sp, at};
		}
		i = j;
	}
	gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), free(seen);
	*n_out = kept;
	return l;
}

int causal_recorded_waits(causal_trace *t, gt_error *err)
{
	const gt_model *m = t->m;
	uint32_t ncalls = 0, nmarkers = 0, nl = 0, ntracks = 0;
	for (uint32_t i = 0; i < m->sync_count; i++) {
		uint8_t r = m->syncs[i].role;
		if (r == GT_SYNC_STREAM_WAIT || r == GT_SYNC_EVENT_SYNC)
			nmarkers++;
		else if (m->syncs[i].flags & GT_SYNCF_CORRELATION)
			ncalls++;
	}
	t->syncs.markers = nmarkers;
	if (!nmarkers)
		return 0;
	call_key *calls = malloc((ncalls ? ncalls : 1) * sizeof *calls);
	track_key *tracks = malloc((m->track_count ? m->track_count : 1) * sizeof *tracks);
	uint8_t *need = calloc(m->track_count ? m->track_count : 1, 1);
	uint8_t *waited = calloc(ncalls ? ncalls : 1, 1);
	found f = {malloc(nmarkers * sizeof *f.src), malloc(nmarkers * sizeof *f.dst), malloc(nmarkers), 0};
	launch_key *l = NULL;
	uint32_t *first = calloc((size_t)m->track_count + 1, sizeof *first), *hint = calloc(m->track_count + 1u, sizeof *hint);
	int rc = -1;
	if (!calls || !tracks || !need || !waited || !f.src || !f.dst || !f.kind || !first || !hint)
		goto done;
	for (uint32_t i = 0; i < m->track_count; i++)
		if (m->tracks[i].kind == GT_TRACK_THREAD && !m->tracks[i].tid.is_str)
			tracks[ntracks++] = (track_key){m->tracks[i].process, i, m->tracks[i].tid.num};
	qsort(tracks, ntracks, sizeof *tracks, cmp_track);
	tracks_needed(t, tracks, ntracks, need);
	if (!(l = gather_launches(t, need, &nl)))
		goto done;
	for (uint32_t i = 0; i < nl; i++) /* by track: counts, then offsets */
		first[l[i].track + 1]++;
	for (uint32_t tr = 0; tr < m->track_count; tr++)
		first[tr + 1] += first[tr], hint[tr] = first[tr];
	ncalls = 0;
	for (uint32_t i = 0; i < m->sync_count; i++) {
		const gt_sync *y = &m->syncs[i];
		if (y->role != GT_SYNC_STREAM_WAIT && y->role != GT_SYNC_EVENT_SYNC && (y->flags & GT_SYNCF_CORRELATION))
			calls[ncalls++] = (call_key){rank_index(m, y->span), y->role, y->correlation, y->span, i};
	}
	qsort(calls, ncalls, sizeof *calls, cmp_call);
	lookup q = {calls, ncalls, {0}, {l, first, hint}, tracks, ntracks, waited};
	for (uint32_t i = 0; i < m->sync_count; i++) {
		const gt_sync *y = &m->syncs[i];
		if (y->role == GT_SYNC_STREAM_WAIT || y->role == GT_SYNC_EVENT_SYNC)
			resolve(t, y, &q, &f);
	}
	for (uint32_t i = 0; i < ncalls; i++)
		t->syncs.records_not_waited += calls[i].role == GT_SYNC_RECORD_CALL && !waited[i];
	/* a recorded wait replaces inference for its span, and the wait rule's
	 * guess for its call */
	for (uint32_t i = 0; i < f.n; i++)
		t->span_class[f.dst[i]] |= CAUSAL_RECORDED;
	rc = by_window(t, &f);
done:
	free(calls), free(tracks), free(need), free(waited), free(l), free(first), free(hint);
	free(f.src), free(f.dst), free(f.kind);
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory for %u recorded stream waits", nmarkers) : 0;
}
