/* The path in the words of GPU work (causal.h: enum gt_causal_class):
 * each string's class bits once for the trace, then each hop's class from
 * its kind, its owner's span and its track. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "causal_internal.h"

const char *const gt_causal_class_names[GT_CAUSAL_CLASS_COUNT] = {
	[GT_CLASS_GPU_COMPUTE] = "gpu_compute",       [GT_CLASS_GPU_COMMUNICATION] = "gpu_communication",
	[GT_CLASS_GPU_MEMCPY] = "gpu_memcpy",         [GT_CLASS_GPU_MEMSET] = "gpu_memset",
	[GT_CLASS_CPU_OPERATOR] = "cpu_operator",     [GT_CLASS_CPU_RUNTIME] = "cpu_runtime",
	[GT_CLASS_CPU_ANNOTATION] = "cpu_annotation", [GT_CLASS_LAUNCH] = "launch",
	[GT_CLASS_QUEUE] = "queue",                   [GT_CLASS_SYNC_WAIT] = "sync_wait",
	[GT_CLASS_CPU_WAITS_GPU] = "cpu_waits_gpu",   [GT_CLASS_GPU_IDLE] = "gpu_idle",
	[GT_CLASS_IDLE] = "idle",
};

/* Whether s contains word, in any case. */
static bool has(const char *s, const char *word)
{
	return strcasestr(s, word) != NULL;
}

typedef struct string_classes {
	causal_trace *t;
	const char *pattern;  /* --collective-name, NULL */
	const regex_t *extra; /* it compiled, NULL */
} string_classes;

static int classify_range(void *ctx, uint64_t a, uint64_t b)
{
	string_classes *sc = ctx;
	causal_trace *t = sc->t;
	/* a range's own pattern: glibc's regexec holds a lock of the
	 * pattern's, so threads sharing one take turns (the shared one where
	 * this one cannot be compiled) */
	regex_t own;
	const regex_t *extra = sc->extra;
	if (extra && regcomp(&own, sc->pattern, REG_EXTENDED | REG_NOSUB) == 0)
		extra = &own;
	for (uint32_t i = (uint32_t)a; i < b; i++) {
		const char *s = gt_model_str(t->m, i);
		uint8_t c = 0;
		if (gt_communication_name(s) || (extra && regexec(extra, s, 0, NULL, 0) == 0))
			c |= CAUSAL_STR_COMM;
		if (has(s, "memcpy"))
			c |= CAUSAL_STR_MEMCPY;
		if (has(s, "memset"))
			c |= CAUSAL_STR_MEMSET;
		if (has(s, "runtime") || has(s, "driver"))
			c |= CAUSAL_STR_RUNTIME;
		if (has(s, "annotation") || strncasecmp(s, "python", 6) == 0)
			c |= CAUSAL_STR_ANNOTATION;
		t->str_class[i] = c;
	}
	if (extra == &own)
		regfree(&own);
	return 0;
}

int causal_classify_strings(causal_trace *t, const gt_causal_options *opt, unsigned threads, gt_error *err)
{
	const gt_model *m = t->m;
	regex_t re;
	bool extra = opt->collective_name && opt->collective_name[0];
	if (extra && regcomp(&re, opt->collective_name, REG_EXTENDED | REG_NOSUB) != 0)
		return gt_fail(err, GT_EUSAGE, "bad collective name pattern '%s' (POSIX extended)", opt->collective_name);
	t->str_class = gt_big_calloc(m->strings.count ? m->strings.count : 1, 1);
	if (!t->str_class) {
		if (extra)
			regfree(&re);
		return gt_fail(err, GT_EINPUT, "out of memory classifying %u strings", m->strings.count);
	}
	/* strings are shorter than spans: a range of them takes longer */
	string_classes sc = {t, opt->collective_name, extra ? &re : NULL};
	gt_parallel_ranges(m->strings.count, causal_range_min_small(), threads, classify_range, &sc);
	if (extra)
		regfree(&re);
	return 0;
}

static uint8_t work_class(const causal_trace *t, uint32_t span)
{
	uint8_t cat = t->str_class[causal_span_cat(t, span)];
	if (t->span_class[span] & CAUSAL_DEVICE)
		return t->str_class[causal_span_name(t, span)] & CAUSAL_STR_COMM ? GT_CLASS_GPU_COMMUNICATION
		       : cat & CAUSAL_STR_MEMCPY                ? GT_CLASS_GPU_MEMCPY
		       : cat & CAUSAL_STR_MEMSET                ? GT_CLASS_GPU_MEMSET
								: GT_CLASS_GPU_COMPUTE;
	return cat & CAUSAL_STR_RUNTIME      ? GT_CLASS_CPU_RUNTIME
	       : cat & CAUSAL_STR_ANNOTATION ? GT_CLASS_CPU_ANNOTATION
					     : GT_CLASS_CPU_OPERATOR;
}

static uint8_t hop_class(const causal_trace *t, const gt_causal_hop *h)
{
	const gt_model *m = t->m;
	switch (h->kind) {
	case GT_CAUSAL_WORK:
		return work_class(t, h->owner);
	case GT_CAUSAL_IDLE:
		return t->track_device[h->track] ? GT_CLASS_GPU_IDLE : GT_CLASS_IDLE;
	case GT_CAUSAL_FLOW:
		return t->span_class[m->flows[h->flow].dst] & CAUSAL_DEVICE ? GT_CLASS_LAUNCH : GT_CLASS_SYNC_WAIT;
	case GT_CAUSAL_QUEUE:
		return GT_CLASS_QUEUE;
	case GT_CAUSAL_WAIT:
		return (t->span_class[h->from.span] & CAUSAL_DEVICE) && !(t->span_class[h->owner] & CAUSAL_DEVICE)
			       ? GT_CLASS_CPU_WAITS_GPU
			       : GT_CLASS_SYNC_WAIT;
	default: /* stream waits, hand-offs */
		return GT_CLASS_SYNC_WAIT;
	}
}

void causal_hop_classes(const causal_trace *t, gt_causal_hop *hops, uint32_t n, int64_t *class_ns)
{
	for (uint32_t i = 0; i < n; i++) {
		hops[i].cls = hop_class(t, &hops[i]);
		class_ns[hops[i].cls] += hops[i].duration_ns;
	}
}
