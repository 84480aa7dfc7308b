/* A job's collective edges for the causal path: every matched collective
 * (collective.h) gives B(k_j) -> E(k_r) for its kernels on ranks j != r,
 * grouped by the window of E(k_r) so each window finds its own. */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"
#include "collective/collective.h"

int causal_collective_edges(causal_trace *t, gt_error *err)
{
	gt_coll_set s;
	gt_stragglers st;
	gt_coll_set_init(&s);
	gt_coll_options o = {t->collective_name, NULL};
	int rc = gt_coll_extract(&s, t->m, &o, err);
	if (rc == 0)
		rc = gt_stragglers_find(&s, &st, err);
	if (rc < 0) {
		gt_coll_set_free(&s);
		return -1;
	}
	uint64_t R = s.rank_count, n = st.count * R * (R ? R - 1 : 0);
	t->coll_first = calloc((size_t)t->window_count + 2, sizeof *t->coll_first);
	t->coll_src = malloc((n ? n : 1) * sizeof *t->coll_src);
	t->coll_dst = malloc((n ? n : 1) * sizeof *t->coll_dst);
	uint32_t *src = malloc((n ? n : 1) * sizeof *src), *dst = malloc((n ? n : 1) * sizeof *dst);
	if (!t->coll_first || !t->coll_src || !t->coll_dst || !src || !dst || n > UINT32_MAX) {
		free(src), free(dst);
		gt_stragglers_free(&st);
		gt_coll_set_free(&s);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu collective edges", (unsigned long long)n);
	}
	/* counting sort by the window of the ending kernel, in collective order */
	uint64_t k = 0;
	for (uint64_t c = 0; c < st.count; c++) {
		const uint64_t *ks = st.order + st.c[c].first;
		for (uint64_t r = 0; r < R; r++)
			for (uint64_t j = 0; j < R; j++) {
				if (j == r)
					continue;
				src[k] = s.k[ks[j]].span;
				dst[k] = s.k[ks[r]].span;
				uint32_t w = t->window_of[dst[k]];
				if (w != GT_NONE)
					t->coll_first[w + 1]++;
				k++;
			}
	}
	for (uint32_t w = 0; w < t->window_count; w++)
		t->coll_first[w + 1] += t->coll_first[w];
	uint32_t *fill = calloc((size_t)t->window_count + 1, sizeof *fill);
	if (!fill) {
		free(src), free(dst);
		gt_stragglers_free(&st);
		gt_coll_set_free(&s);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu collective edges", (unsigned long long)n);
	}
	for (uint64_t i = 0; i < k; i++) {
		uint32_t w = t->window_of[dst[i]];
		if (w == GT_NONE)
			continue;
		uint64_t at = t->coll_first[w] + fill[w]++;
		t->coll_src[at] = src[i];
		t->coll_dst[at] = dst[i];
	}
	t->coll_count = t->coll_first[t->window_count];
	free(fill), free(src), free(dst);
	gt_stragglers_free(&st);
	gt_coll_set_free(&s);
	return 0;
}
