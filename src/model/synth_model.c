/* A synthetic Kineto-like span model for benchmarks and tests of the
 * temporal index: CPU threads with nested Python / ATen / runtime lanes and
 * GPU streams with kernels and copies. Spans are emitted in global start
 * order (as a profiler writes them), lane by lane from a heap of lane
 * cursors, so every lane covers the same stretch of time. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct lane_state {
	int64_t cursor;
	int64_t mean;  /* mean span duration */
	uint32_t lane;
	uint32_t track;
	uint8_t gpu;
	uint8_t depth;
};

static void heap_down(struct lane_state *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && h[l].cursor < h[m].cursor)
			m = l;
		if (r < n && h[r].cursor < h[m].cursor)
			m = r;
		if (m == i)
			return;
		struct lane_state t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

enum { G_PYTHON, G_CPU_OP, G_RUNTIME, G_KERNEL, G_MEMCPY, G_ANNOTATION, G_COUNT };
static const char *const group_names[G_COUNT] = {"python_function", "cpu_op", "cuda_runtime",
						 "kernel", "gpu_memcpy", "user_annotation"};

int gt_synth_model(gt_model *m, uint64_t spans, uint32_t cpu_threads, uint32_t gpu_streams, uint64_t seed,
		   gt_error *err)
{
	memset(m, 0, sizeof *m);
	gt_strpool_init(&m->strings);
	if (spans > 0xfffffff0u)
		return gt_fail(err, GT_EUSAGE, "at most 4294967280 spans");
	const uint32_t cpu_depth = 6;
	uint32_t ntracks = cpu_threads + gpu_streams;
	uint32_t nlanes = cpu_threads * cpu_depth + gpu_streams;
	m->spans = malloc((spans ? spans : 1) * sizeof *m->spans);
	m->tracks = calloc(ntracks ? ntracks : 1, sizeof *m->tracks);
	m->processes = calloc(2, sizeof *m->processes);
	struct lane_state *h = malloc((nlanes ? nlanes : 1) * sizeof *h);
	if (!m->spans || !m->tracks || !m->processes || !h) {
		free(h);
		return gt_fail(err, GT_EINPUT, "out of memory for %llu synthetic spans", (unsigned long long)spans);
	}
	uint32_t names[16];
	for (int i = 0; i < 16; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "op_%d", i);
		names[i] = gt_strpool_intern(&m->strings, buf, (size_t)n);
	}
	for (int g = 0; g < G_COUNT; g++) {
		m->groups[g].name = gt_strpool_intern(&m->strings, group_names[g], strlen(group_names[g]));
	}
	m->group_count = G_COUNT;
	m->process_count = 2;
	m->processes[0] = (gt_process){{1, 0, false}, gt_strpool_intern(&m->strings, "python", 6), GT_NONE, false, 0};
	m->processes[1] = (gt_process){{2, 0, false}, gt_strpool_intern(&m->strings, "gpu", 3), GT_NONE, false, 0};
	uint32_t lane = 0, k = 0;
	for (uint32_t t = 0; t < ntracks; t++) {
		bool gpu = t >= cpu_threads;
		gt_track *tr = &m->tracks[t];
		tr->process = gpu;
		tr->tid = (gt_id){t, 0, false};
		tr->name = GT_NONE;
		tr->lane_base = lane;
		tr->lane_count = gpu ? 1 : cpu_depth;
		for (uint32_t d = 0; d < tr->lane_count; d++) {
			/* Deeper lanes hold shorter, more numerous spans. */
			int64_t mean = gpu ? 20000 : 2000000 >> (2 * d);
			h[k++] = (struct lane_state){(int64_t)(rng_next(&seed) % 1000000), mean, lane + d, t, gpu,
						     (uint8_t)d};
		}
		lane += tr->lane_count;
	}
	m->track_count = ntracks;
	m->lane_count = nlanes;
	m->thread_count = ntracks;
	for (uint32_t i = nlanes / 2; i-- > 0;)
		heap_down(h, nlanes, i);
	const int64_t base = 1700000000000000000ll;
	for (uint64_t i = 0; i < spans && nlanes; i++) {
		struct lane_state *ls = &h[0];
		uint64_t r = rng_next(&seed);
		int64_t dur = ls->mean / 2 + (int64_t)(r % (uint64_t)ls->mean);
		int64_t gap = (int64_t)((r >> 32) % (uint64_t)(ls->mean / 4 + 1));
		uint8_t g;
		if (ls->gpu)
			g = (r >> 20) % 10 == 0 ? G_MEMCPY : G_KERNEL;
		else if (ls->depth == 0)
			g = (r >> 20) % 4 == 0 ? G_ANNOTATION : G_PYTHON;
		else
			g = ls->depth == 1 ? G_PYTHON : ls->depth == 5 ? G_RUNTIME : G_CPU_OP;
		gt_span *s = &m->spans[i];
		*s = (gt_span){base + ls->cursor + gap, dur, names[(r >> 40) % 16], m->groups[g].name, ls->track,
			       GT_NONE, ls->lane, (uint32_t)i, ls->depth, g, GT_SPAN_COMPLETE, 0, 0};
		m->groups[g].spans++;
		m->tracks[ls->track].span_count++;
		ls->cursor += gap + dur;
		heap_down(h, nlanes, 0);
	}
	free(h);
	m->span_count = (uint32_t)spans;
	m->start_ns = INT64_MAX;
	m->end_ns = INT64_MIN;
	for (uint64_t i = 0; i < spans; i++) {
		if (m->spans[i].ts_ns < m->start_ns)
			m->start_ns = m->spans[i].ts_ns;
		if (m->spans[i].ts_ns + m->spans[i].dur_ns > m->end_ns)
			m->end_ns = m->spans[i].ts_ns + m->spans[i].dur_ns;
	}
	if (!spans)
		m->start_ns = m->end_ns = 0;
	m->source = strdup("synthetic");
	m->stats.events = spans;
	m->stats.phases['X'] = spans;
	return 0;
}
