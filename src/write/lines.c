/* Lines formatted in chunks on threads (see lines.h). */
#include "lines.h"

#include <stdlib.h>

#include "base/base.h"

struct gt_lines_chunk {
	gt_jline l;
	gt_lines_format_fn format;
	void *state;
	uint64_t from, to;
	size_t end[GT_LINES_CHUNK]; /* where each line ends in l */
};

void gt_lines_init(gt_lines *w, unsigned threads)
{
	w->threads = gt_thread_count(threads, GT_LINES_MAX_THREADS);
	w->chunks = NULL;
}

void gt_lines_free(gt_lines *w)
{
	for (unsigned i = 0; w->chunks && i < w->threads; i++)
		gt_jline_free(&w->chunks[i].l);
	free(w->chunks);
	w->chunks = NULL;
}

static void *format_chunk(void *arg)
{
	gt_lines_chunk *c = arg;
	c->l.len = 0;
	for (uint64_t i = c->from; i < c->to && !c->l.failed; i++) {
		c->format(c->state, &c->l, i, i == c->from);
		c->end[i - c->from] = c->l.len;
	}
	return NULL;
}

int gt_lines_write(gt_lines *w, uint64_t n, gt_lines_format_fn format, void *states, size_t state_size,
		   gt_lines_emit_fn emit, void *ctx)
{
	if (!w->chunks && !(w->chunks = gt_fault_hit("alloc") ? NULL : calloc(w->threads, sizeof *w->chunks)))
		return -1;
	unsigned T = n > GT_LINES_CHUNK ? w->threads : 1;
	for (uint64_t at = 0; at < n;) {
		unsigned k = 0;
		for (; k < T && at < n; k++) {
			gt_lines_chunk *c = &w->chunks[k];
			c->format = format;
			c->state = (char *)states + k * state_size;
			c->from = at;
			c->to = at = n - at > GT_LINES_CHUNK ? at + GT_LINES_CHUNK : n;
		}
		gt_run_jobs(format_chunk, w->chunks, sizeof *w->chunks, k);
		for (unsigned j = 0; j < k; j++) {
			const gt_lines_chunk *c = &w->chunks[j];
			if (c->l.failed)
				return -1;
			if (emit(ctx, c->l.buf, c->end, (uint32_t)(c->to - c->from)))
				return 1;
		}
	}
	return 0;
}
