/* Hand-offs between the host threads of a process (the rule is in
 * causal.h): PyTorch's main thread sits in `## backward ##` while its
 * autograd thread runs the backward ops. For each gap of a host track's
 * chain that is a span's own work, each other host track of its process
 * that begins a backward span inside the gap is joined to it: u -> the
 * first B inside, the last E inside -> v. Each point of the other track
 * falls in one gap of the first, so a pair of tracks costs O(points). */
#include <string.h>

#include "causal_internal.h"

#define BACKWARD_PREFIX "autograd::engine::"

static void *alloc(size_t n, size_t size)
{
	return gt_big_malloc(n, size);
}

typedef struct backward_marks {
	causal_trace *t;
	uint8_t *name_memo, *cat_memo; /* memos by string id (causal_memo_get) */
} backward_marks;

static bool memo_yes(uint8_t *memo, uint32_t id, bool (*ask)(const char *s), const gt_model *m)
{
	uint8_t v = causal_memo_get(memo, id);
	return (v ? v : causal_memo_set(memo, id, ask(gt_model_str(m, id)))) == 2;
}

static bool backward_name(const char *s)
{
	return strncmp(s, BACKWARD_PREFIX, strlen(BACKWARD_PREFIX)) == 0;
}

static bool fwdbwd_cat(const char *s)
{
	return strcmp(s, "fwdbwd") == 0;
}

static int mark_by_name(void *ctx, uint64_t a, uint64_t b)
{
	backward_marks *bm = ctx;
	causal_trace *t = bm->t;
	for (uint32_t i = (uint32_t)a; i < b; i++)
		if (causal_takes_part(t, i) && memo_yes(bm->name_memo, t->m->spans[i].name, backward_name, t->m))
			t->span_class[i] |= CAUSAL_BACKWARD;
	return 0;
}

/* Flows of one target may be on several threads: its bits or'd at once. */
static int mark_by_flow(void *ctx, uint64_t a, uint64_t b)
{
	backward_marks *bm = ctx;
	causal_trace *t = bm->t;
	for (uint32_t i = (uint32_t)a; i < b; i++) {
		const gt_flow *f = &t->m->flows[i];
		/* read at once: another thread may be or'ing the byte */
		bool takes_part = f->dst != GT_NONE &&
				  (__atomic_load_n(&t->span_class[f->dst], __ATOMIC_RELAXED) & CAUSAL_TAKES_PART);
		if (f->cat != GT_NONE && takes_part && memo_yes(bm->cat_memo, f->cat, fwdbwd_cat, t->m))
			__atomic_fetch_or(&t->span_class[f->dst], CAUSAL_BACKWARD, __ATOMIC_RELAXED);
	}
	return 0;
}

int causal_mark_backward(causal_trace *t, unsigned threads)
{
	const gt_model *m = t->m;
	size_t strings = m->strings.count ? m->strings.count : 1;
	backward_marks bm = {t, gt_big_calloc(strings, 1), gt_big_calloc(strings, 1)};
	if (!bm.name_memo || !bm.cat_memo) {
		gt_big_free(bm.name_memo), gt_big_free(bm.cat_memo);
		return -1;
	}
	gt_parallel_ranges(m->span_count, causal_range_min(), threads, mark_by_name, &bm);
	gt_parallel_ranges(m->flow_count, causal_range_min(), threads, mark_by_flow, &bm);
	gt_big_free(bm.name_memo), gt_big_free(bm.cat_memo);
	return 0;
}

/* Per local span: 1 when it is backward work (CAUSAL_BACKWARD). */
static uint8_t *backward_spans(const causal_trace *t, const causal_graph *g)
{
	uint8_t *bwd = alloc(g->nspans ? g->nspans : 1, 1);
	for (uint32_t l = 0; bwd && l < g->nspans; l++)
		bwd[l] = (t->span_class[g->span[l]] & CAUSAL_BACKWARD) != 0;
	return bwd;
}

void causal_handoffs_free(causal_handoff_edges *h)
{
	gt_big_free(h->src), gt_big_free(h->dst), gt_big_free(h->ref);
	memset(h, 0, sizeof *h);
}

static int push(causal_handoff_edges *h, uint32_t src, uint32_t dst, uint32_t ref)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 64;
		uint32_t *s = alloc(cap, sizeof *s), *d = alloc(cap, sizeof *d), *r = alloc(cap, sizeof *r);
		if (!s || !d || !r) {
			gt_big_free(s), gt_big_free(d), gt_big_free(r);
			return -1;
		}
		if (h->n) {
			memcpy(s, h->src, h->n * sizeof *s);
			memcpy(d, h->dst, h->n * sizeof *d);
			memcpy(r, h->ref, h->n * sizeof *r);
		}
		gt_big_free(h->src), gt_big_free(h->dst), gt_big_free(h->ref);
		h->src = s, h->dst = d, h->ref = r, h->cap = cap;
	}
	h->src[h->n] = src, h->dst[h->n] = dst, h->ref[h->n++] = ref;
	return 0;
}

/* Track a's hand-offs from track k's gaps (two host tracks of a process). */
static int join_tracks(const causal_graph *g, const uint8_t *bwd, uint32_t k, uint32_t a, causal_handoff_edges *h)
{
	const uint32_t *kc = g->chain + g->chain_start[k], *ac = g->chain + g->chain_start[a];
	uint32_t kn = g->chain_start[k + 1] - g->chain_start[k], an = g->chain_start[a + 1] - g->chain_start[a];
	const uint8_t *kw = g->work + g->chain_start[k];
	uint32_t j = 0; /* a's chain position, forward only */
	for (uint32_t i = 0; i + 1 < kn && j < an; i++) {
		uint32_t u = kc[i], v = kc[i + 1];
		int64_t tu = g->time[u], tv = g->time[v];
		if (!kw[i] || tv <= tu)
			continue; /* idle, or no time inside */
		while (j < an && g->time[ac[j]] <= tu)
			j++;
		/* a's points strictly inside (tu, tv): the first B, the last E
		 * of a span that began inside, and whether one is backward work */
		uint32_t first = GT_NONE, last = GT_NONE;
		bool handed = false;
		for (; j < an && g->time[ac[j]] < tv; j++) {
			uint32_t p = ac[j], l = g->point_span[p];
			bool b = p == g->first_point[l], began = g->time[g->first_point[l]] > tu;
			if (b && first == GT_NONE)
				first = p;
			if (b && bwd[l])
				handed = true;
			if (!b && began && p == causal_graph_e(g, l))
				last = p;
		}
		if (!handed || first == GT_NONE)
			continue;
		uint32_t owner = g->span[g->owner_in[v]];
		if (push(h, u, first, owner) < 0 || (last != GT_NONE && push(h, last, v, owner) < 0))
			return -1;
	}
	return 0;
}

int causal_handoffs(const causal_trace *t, const causal_graph *g, causal_handoff_edges *h, gt_error *err)
{
	const gt_model *m = t->m;
	memset(h, 0, sizeof *h);
	if (!t->handoffs || g->tracks < 2)
		return 0;
	uint8_t *bwd = backward_spans(t, g);
	if (!bwd)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's hand-offs");
	bool any = false;
	for (uint32_t l = 0; l < g->nspans && !any; l++)
		any = bwd[l];
	int rc = 0;
	/* local tracks follow the global ones, so a process's tracks are close:
	 * every ordered pair of host tracks of one process */
	for (uint32_t k = 0; any && k < g->tracks && rc == 0; k++) {
		const gt_track *tk = &m->tracks[g->track[k]];
		if (t->track_device[g->track[k]] || tk->kind != GT_TRACK_THREAD)
			continue;
		for (uint32_t a = 0; a < g->tracks && rc == 0; a++) {
			const gt_track *ta = &m->tracks[g->track[a]];
			if (a != k && !t->track_device[g->track[a]] && ta->kind == GT_TRACK_THREAD && ta->process == tk->process)
				rc = join_tracks(g, bwd, k, a, h);
		}
	}
	gt_big_free(bwd);
	if (rc < 0) {
		causal_handoffs_free(h);
		return gt_fail(err, GT_EINPUT, "out of memory for a window's hand-offs");
	}
	return 0;
}
