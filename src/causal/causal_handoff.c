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
	uint8_t *cat_memo; /* memo by string id (causal_memo_get) */
} backward_marks;

static bool memo_yes(uint8_t *memo, uint32_t id, bool (*ask)(const char *s), const gt_model *m)
{
	uint8_t v = causal_memo_get(memo, id);
	return (v ? v : causal_memo_set(memo, id, ask(gt_model_str(m, id)))) == 2;
}

bool causal_backward_name(const char *s)
{
	return strncmp(s, BACKWARD_PREFIX, strlen(BACKWARD_PREFIX)) == 0;
}

static bool fwdbwd_cat(const char *s)
{
	return strcmp(s, "fwdbwd") == 0;
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
	backward_marks bm = {t, gt_big_calloc(strings, 1)};
	if (!bm.cat_memo)
		return -1;
	gt_parallel_ranges(m->flow_count, causal_range_min(), threads, mark_by_flow, &bm);
	gt_big_free(bm.cat_memo);
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
		if (h->cap > UINT32_MAX / 2)
			return -1;
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

/* The first position of a chain (n points) whose time is after t. */
static uint32_t first_after(const causal_graph *g, const uint32_t *chain, uint32_t n, int64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->time[chain[mid]] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Track a's hand-offs from track k's gaps i0 .. i1 - 1 (two host tracks of
 * a process). Chains are in time order, so a's points inside a gap follow
 * the first after the gap's start. */
static int join_tracks(const causal_graph *g, const uint8_t *bwd, uint32_t k, uint32_t a, uint32_t i0, uint32_t i1,
		       causal_handoff_edges *h)
{
	const uint32_t *kc = g->chain + g->chain_start[k], *ac = g->chain + g->chain_start[a];
	uint32_t kn = g->chain_start[k + 1] - g->chain_start[k], an = g->chain_start[a + 1] - g->chain_start[a];
	const uint8_t *kw = g->work + g->chain_start[k];
	uint32_t j = i0 < kn ? first_after(g, ac, an, g->time[kc[i0]]) : an; /* a's chain position, forward only */
	for (uint32_t i = i0; i < i1 && i + 1 < kn && j < an; i++) {
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

/* A pair's share: track k's gaps [i0, i1) against track a, its edges in
 * an array of its own, joined in order after. */
typedef struct join_piece {
	uint32_t k, a, i0, i1;
	causal_handoff_edges h;
	int rc;
} join_piece;

typedef struct join_pieces {
	const causal_graph *g;
	const uint8_t *bwd;
	join_piece *piece;
} join_pieces;

static int join_range(void *ctx, uint64_t from, uint64_t to)
{
	join_pieces *jp = ctx;
	for (uint64_t p = from; p < to; p++) {
		join_piece *x = &jp->piece[p];
		x->rc = join_tracks(jp->g, jp->bwd, x->k, x->a, x->i0, x->i1, &x->h);
	}
	return 0;
}

static bool host_thread(const causal_trace *t, const causal_graph *g, uint32_t k)
{
	return !t->track_device[g->track[k]] && t->m->tracks[g->track[k]].kind == GT_TRACK_THREAD;
}

/* fn(ctx, k, a) for every ordered pair of host tracks of one process, in
 * order (local tracks follow the global ones, so a process's tracks are
 * close); stops at fn's first non-zero answer and returns it. */
static int each_pair(const causal_trace *t, const causal_graph *g, int (*fn)(void *ctx, uint32_t k, uint32_t a),
		     void *ctx)
{
	for (uint32_t k = 0; k < g->tracks; k++) {
		if (!host_thread(t, g, k))
			continue;
		uint32_t process = t->m->tracks[g->track[k]].process;
		for (uint32_t a = 0; a < g->tracks; a++)
			if (a != k && host_thread(t, g, a) && t->m->tracks[g->track[a]].process == process) {
				int rc = fn(ctx, k, a);
				if (rc)
					return rc;
			}
	}
	return 0;
}

/* One thread: each pair's hand-offs straight into h. */
typedef struct join_all {
	const causal_graph *g;
	const uint8_t *bwd;
	causal_handoff_edges *h;
} join_all;

static int join_pair(void *ctx, uint32_t k, uint32_t a)
{
	join_all *j = ctx;
	return join_tracks(j->g, j->bwd, k, a, 0, j->g->chain_start[k + 1] - j->g->chain_start[k], j->h);
}

/* Threads: each pair cut into pieces of about `per` points (counted when
 * piece is NULL). */
typedef struct cutting {
	const causal_graph *g;
	uint64_t per;
	join_piece *piece;
	uint64_t n;
} cutting;

static int cut_pair(void *ctx, uint32_t k, uint32_t a)
{
	cutting *c = ctx;
	const causal_graph *g = c->g;
	uint32_t kn = g->chain_start[k + 1] - g->chain_start[k];
	uint64_t size = (uint64_t)kn + g->chain_start[a + 1] - g->chain_start[a];
	uint64_t cuts = size / c->per + 1;
	cuts = cuts > kn ? (kn ? kn : 1) : cuts;
	for (uint64_t i = 0; i < cuts; i++, c->n++)
		if (c->piece)
			c->piece[c->n] = (join_piece){k, a, (uint32_t)(kn * i / cuts), (uint32_t)(kn * (i + 1) / cuts), {0}, 0};
	return 0;
}

/* The pieces on threads, their edges joined in order into h: 0, or -1 out
 * of memory or past 2^32 edges. */
static int join_in_pieces(const causal_trace *t, const causal_graph *g, const uint8_t *bwd, unsigned threads,
			  causal_handoff_edges *h)
{
	/* pieces of a thread's share of the points, at least a range */
	uint64_t per = (uint64_t)g->n / threads + 1;
	cutting c = {g, per < causal_range_min() ? causal_range_min() : per, NULL, 0};
	each_pair(t, g, cut_pair, &c);
	uint64_t n = c.n;
	if (!n)
		return 0;
	join_piece *piece = gt_big_malloc(n, sizeof *piece);
	if (!piece)
		return -1;
	c.piece = piece, c.n = 0;
	each_pair(t, g, cut_pair, &c);
	join_pieces jp = {g, bwd, piece};
	gt_parallel_ranges(n, 1, threads, join_range, &jp);
	int rc = 0;
	uint64_t total = 0;
	for (uint64_t p = 0; p < n; p++)
		rc |= piece[p].rc, total += piece[p].h.n;
	if (rc == 0 && total > UINT32_MAX / 2)
		rc = -1;
	if (rc == 0 && total) {
		h->src = alloc(total, sizeof *h->src), h->dst = alloc(total, sizeof *h->dst);
		h->ref = alloc(total, sizeof *h->ref);
		rc = h->src && h->dst && h->ref ? 0 : -1;
		for (uint64_t p = 0; rc == 0 && p < n; p++) {
			const causal_handoff_edges *x = &piece[p].h;
			if (!x->n)
				continue;
			memcpy(h->src + h->n, x->src, x->n * sizeof *x->src);
			memcpy(h->dst + h->n, x->dst, x->n * sizeof *x->dst);
			memcpy(h->ref + h->n, x->ref, x->n * sizeof *x->ref);
			h->n += x->n;
		}
		h->cap = h->n;
	}
	for (uint64_t p = 0; p < n; p++)
		causal_handoffs_free(&piece[p].h);
	gt_big_free(piece);
	return rc;
}

int causal_handoffs(const causal_trace *t, causal_graph *g, unsigned threads, causal_handoff_edges *h,
		    gt_error *err)
{
	memset(h, 0, sizeof *h);
	if (!t->handoffs || g->tracks < 2)
		return 0;
	uint8_t *bwd = backward_spans(t, g);
	if (!bwd)
		return gt_fail(err, GT_EINPUT, "out of memory for a window's hand-offs");
	bool any = false;
	for (uint32_t l = 0; l < g->nspans && !any; l++)
		any = bwd[l];
	if (any && causal_point_spans(g, threads, err) < 0) {
		gt_big_free(bwd);
		return -1;
	}
	int rc = 0;
	if (any && threads > 1) {
		rc = join_in_pieces(t, g, bwd, threads, h);
	} else if (any) {
		join_all j = {g, bwd, h};
		rc = each_pair(t, g, join_pair, &j);
	}
	gt_big_free(bwd);
	if (rc < 0) {
		causal_handoffs_free(h);
		return gt_fail(err, GT_EINPUT, "a window's hand-offs: out of memory, or more than 2^31 of them");
	}
	return 0;
}
