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

/* The first call of (rank, role, correlation): its index, or -1. */
static int64_t find_call(const call_key *c, uint32_t n, uint32_t rank, uint32_t role, int64_t corr)
{
	call_key want = {rank, role, corr, 0, 0};
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cmp_call(&c[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && c[lo].rank == rank && c[lo].role == role && c[lo].correlation == corr ? (int64_t)lo : -1;
}

/* The first launch in l of a track at or after tr. */
static uint32_t track_from(const launch_key *l, uint32_t n, uint32_t tr)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l[mid].track < tr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The launches of track tr: [*lo, *hi) of l. */
static void track_range(const launch_key *l, uint32_t n, uint32_t tr, uint32_t *lo, uint32_t *hi)
{
	*lo = track_from(l, n, tr);
	*hi = tr == UINT32_MAX ? n : track_from(l, n, tr + 1);
}

/* Index of the first launch in [lo, hi) at or after t (hi when none);
 * strict: after t. */
static uint32_t launch_from(const launch_key *l, uint32_t lo, uint32_t hi, int64_t t, bool strict)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (strict ? l[mid].launch <= t : l[mid].launch < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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

/* One marker: its edge into f, or a problem counted. */
static void resolve(causal_trace *t, const gt_sync *y, const call_key *calls, uint32_t ncalls,
		    const launch_key *l, uint32_t nl, const track_key *tracks, uint32_t ntracks, uint8_t *waited,
		    found *f)
{
	const gt_model *m = t->m;
	if (!(y->flags & GT_SYNCF_RECORD))
		return problem(t, GT_CAUSAL_SYNC_UNUSABLE_ARGS, y->span);
	uint32_t rank = rank_index(m, y->span);
	int64_t rec = find_call(calls, ncalls, rank, GT_SYNC_RECORD_CALL, y->record_correlation);
	if (rec < 0)
		return problem(t, GT_CAUSAL_SYNC_NO_RECORD, y->span);
	waited[rec] = 1;
	const gt_span *marker = &m->spans[y->span];
	uint32_t process = m->tracks[marker->track].process;
	uint32_t from = find_track(tracks, ntracks, process, y->wait_on_stream), lo = 0, hi = 0;
	if (from != GT_NONE)
		track_range(l, nl, from, &lo, &hi);
	uint32_t at = launch_from(l, lo, hi, m->spans[calls[rec].span].ts_ns, false);
	if (at == lo)
		return problem(t, GT_CAUSAL_SYNC_NO_LAUNCH_BEFORE_RECORD, y->span);
	uint32_t k = l[at - 1].span;
	bool has_corr = y->flags & GT_SYNCF_CORRELATION;
	if (y->role == GT_SYNC_STREAM_WAIT) {
		int64_t call = has_corr ? find_call(calls, ncalls, rank, GT_SYNC_WAIT_CALL, y->correlation) : -1;
		int64_t when = call >= 0 ? m->spans[calls[call].span].ts_ns : marker->ts_ns;
		track_range(l, nl, marker->track, &lo, &hi);
		uint32_t next = launch_from(l, lo, hi, when, true);
		if (next == hi)
			return problem(t, GT_CAUSAL_SYNC_NO_LAUNCH_AFTER_WAIT, y->span);
		f->src[f->n] = k, f->dst[f->n] = l[next].span, f->kind[f->n++] = 0;
		t->syncs.stream_waits++;
		return;
	}
	int64_t call = has_corr ? find_call(calls, ncalls, rank, GT_SYNC_EVENT_SYNC_CALL, y->correlation) : -1;
	if (call < 0 || !causal_takes_part(t, calls[call].span))
		return problem(t, GT_CAUSAL_SYNC_NO_SYNC_CALL, y->span);
	f->src[f->n] = k, f->dst[f->n] = calls[call].span, f->kind[f->n++] = 1;
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

/* The launches of the device spans on needed tracks, by (track, launch,
 * span): a launch is the earliest start of a host span with a flow into
 * the span. Radix sorts: by span (for the earliest of several flows),
 * then stably by launch and by track. NULL out of memory. */
static launch_key *gather_launches(const causal_trace *t, const uint8_t *need, uint32_t *n_out)
{
	const gt_model *m = t->m;
	uint32_t n = 0, cap = m->flow_count;
	int64_t base = INT64_MAX;
	uint64_t *key = gt_big_malloc(cap, sizeof *key), *tk = gt_big_malloc(cap, sizeof *tk);
	uint32_t *val = gt_big_malloc(cap, sizeof *val), *tv = gt_big_malloc(cap, sizeof *tv);
	int64_t *at = gt_big_malloc(cap, sizeof *at);
	launch_key *l = malloc((cap ? cap : 1) * sizeof *l);
	if (!key || !tk || !val || !tv || !at || !l) {
		gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), gt_big_free(at), free(l);
		return NULL;
	}
	for (uint32_t i = 0; i < m->flow_count; i++) { /* one pass: the span table is read at random */
		const gt_flow *f = &m->flows[i];
		if (f->src == GT_NONE || f->dst == GT_NONE || (t->span_class[f->src] & CAUSAL_DEVICE) ||
		    (t->span_class[f->dst] & (CAUSAL_DEVICE | CAUSAL_TAKES_PART)) != (CAUSAL_DEVICE | CAUSAL_TAKES_PART) ||
		    !need[m->spans[f->dst].track])
			continue;
		at[n] = m->spans[f->src].ts_ns;
		base = at[n] < base ? at[n] : base;
		key[n] = f->dst;
		val[n] = n;
		n++;
	}
	causal_sort_u64(key, val, n, tk, tv);
	uint32_t kept = 0; /* one per span: its earliest launch */
	for (uint32_t i = 0; i < n; i++) {
		if (kept && l[kept - 1].span == (uint32_t)key[i]) {
			if (at[val[i]] < l[kept - 1].launch)
				l[kept - 1].launch = at[val[i]];
			continue;
		}
		l[kept++] = (launch_key){m->spans[key[i]].track, (uint32_t)key[i], at[val[i]]};
	}
	/* (track, launch, span): stably by launch, then by track */
	for (uint32_t i = 0; i < kept; i++)
		key[i] = (uint64_t)(l[i].launch - base), val[i] = i;
	causal_sort_u64(key, val, kept, tk, tv);
	for (uint32_t i = 0; i < kept; i++)
		key[i] = l[val[i]].track, tk[i] = val[i];
	for (uint32_t i = 0; i < kept; i++)
		val[i] = (uint32_t)tk[i];
	uint64_t *tk2 = gt_big_malloc(kept, sizeof *tk2);
	uint32_t *tv2 = gt_big_malloc(kept, sizeof *tv2);
	launch_key *sorted = malloc((kept ? kept : 1) * sizeof *sorted);
	if (tk2 && tv2 && sorted) {
		causal_sort_u64(key, val, kept, tk2, tv2);
		for (uint32_t i = 0; i < kept; i++)
			sorted[i] = l[val[i]];
	}
	gt_big_free(key), gt_big_free(tk), gt_big_free(val), gt_big_free(tv), gt_big_free(at), free(l);
	gt_big_free(tk2), gt_big_free(tv2);
	*n_out = kept;
	return sorted;
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
	int rc = -1;
	if (!calls || !tracks || !need || !waited || !f.src || !f.dst || !f.kind)
		goto done;
	for (uint32_t i = 0; i < m->track_count; i++)
		if (m->tracks[i].kind == GT_TRACK_THREAD && !m->tracks[i].tid.is_str)
			tracks[ntracks++] = (track_key){m->tracks[i].process, i, m->tracks[i].tid.num};
	qsort(tracks, ntracks, sizeof *tracks, cmp_track);
	tracks_needed(t, tracks, ntracks, need);
	if (!(l = gather_launches(t, need, &nl)))
		goto done;
	ncalls = 0;
	for (uint32_t i = 0; i < m->sync_count; i++) {
		const gt_sync *y = &m->syncs[i];
		if (y->role != GT_SYNC_STREAM_WAIT && y->role != GT_SYNC_EVENT_SYNC && (y->flags & GT_SYNCF_CORRELATION))
			calls[ncalls++] = (call_key){rank_index(m, y->span), y->role, y->correlation, y->span, i};
	}
	qsort(calls, ncalls, sizeof *calls, cmp_call);
	for (uint32_t i = 0; i < m->sync_count; i++) {
		const gt_sync *y = &m->syncs[i];
		if (y->role == GT_SYNC_STREAM_WAIT || y->role == GT_SYNC_EVENT_SYNC)
			resolve(t, y, calls, ncalls, l, nl, tracks, ntracks, waited, &f);
	}
	for (uint32_t i = 0; i < ncalls; i++)
		t->syncs.records_not_waited += calls[i].role == GT_SYNC_RECORD_CALL && !waited[i];
	/* a recorded wait replaces inference for its span, and the wait rule's
	 * guess for its call */
	for (uint32_t i = 0; i < f.n; i++)
		t->span_class[f.dst[i]] |= CAUSAL_RECORDED;
	rc = by_window(t, &f);
done:
	free(calls), free(tracks), free(need), free(waited), free(l);
	free(f.src), free(f.dst), free(f.kind);
	return rc < 0 ? gt_fail(err, GT_EINPUT, "out of memory for %u recorded stream waits", nmarkers) : 0;
}
