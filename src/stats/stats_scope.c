/* What every stats report reads (stats.h): the spans' device classes, the
 * launcher of each device span, and the --step windows. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static bool thread_span(const gt_model *m, const gt_span *s)
{
	return (s->kind == GT_SPAN_COMPLETE || s->kind == GT_SPAN_DURATION) &&
	       m->tracks[s->track].kind == GT_TRACK_THREAD;
}

/* Per span: its device class, by memos per category and per name. */
static int classify(gt_stats_scope *s, const char *regex, gt_error *err)
{
	const gt_model *m = s->m;
	regex_t re;
	bool extra = regex && regex[0];
	if (extra && regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0)
		return gt_fail(err, GT_EUSAGE, "bad collective name pattern '%s' (POSIX extended)", regex);
	size_t strings = m->strings.count ? m->strings.count : 1;
	uint8_t *cat = calloc(strings, 1), *comm = calloc(strings, 1); /* 0: not yet known; else 1 + the answer */
	s->device = gt_big_calloc(m->span_count ? m->span_count : 1, 1);
	int rc = cat && comm && s->device ? 0 : gt_fail(err, GT_EINPUT, "out of memory classifying %u spans", m->span_count);
	for (uint32_t i = 0; rc == 0 && i < m->span_count; i++) {
		const gt_span *sp = &m->spans[i];
		if (!thread_span(m, sp))
			continue;
		if (!cat[sp->cat])
			cat[sp->cat] = (uint8_t)(1 + gt_device_category_class(gt_model_str(m, sp->cat)));
		if (cat[sp->cat] == 1 + GT_DEVICE_NONE)
			continue;
		if (!comm[sp->name]) {
			const char *nm = gt_model_str(m, sp->name);
			comm[sp->name] = 1 + (gt_communication_name(nm) || (extra && regexec(&re, nm, 0, NULL, 0) == 0));
		}
		s->device[i] = comm[sp->name] == 2 ? GT_DEVICE_COMMUNICATION : (uint8_t)(cat[sp->cat] - 1);
	}
	if (extra)
		regfree(&re);
	free(cat), free(comm);
	return rc;
}

/* A flow's departure, clamped into its source span (as causal.h's). */
static int64_t departure(const gt_model *m, const gt_flow *f)
{
	const gt_span *s = &m->spans[f->src];
	int64_t end = s->ts_ns + s->dur_ns;
	return f->src_ts_ns >= end ? end : f->src_ts_ns <= s->ts_ns ? s->ts_ns : f->src_ts_ns;
}

/* Each device span's launcher: the host span its earliest departing flow
 * leaves (ties: the lowest flow). The array holds the flow first, then its
 * source. */
static int find_launchers(gt_stats_scope *s, gt_error *err)
{
	const gt_model *m = s->m;
	uint32_t *l = s->launcher = gt_big_malloc(m->span_count ? m->span_count : 1, sizeof *s->launcher);
	if (!l)
		return gt_fail(err, GT_EINPUT, "out of memory for the launches of %u spans", m->span_count);
	memset(l, 0xff, (size_t)m->span_count * sizeof *l);
	for (uint32_t i = 0; i < m->flow_count; i++) {
		const gt_flow *f = &m->flows[i];
		if (f->src == GT_NONE || f->dst == GT_NONE || f->src == f->dst || !gt_stats_is_device(s, f->dst) ||
		    gt_stats_is_device(s, f->src) || !thread_span(m, &m->spans[f->src]))
			continue;
		if (l[f->dst] == GT_NONE || departure(m, f) < departure(m, &m->flows[l[f->dst]]))
			l[f->dst] = i;
	}
	for (uint32_t i = 0; i < m->span_count; i++)
		if (l[i] != GT_NONE)
			l[i] = m->flows[l[i]].src;
	return 0;
}

int gt_stats_scope_init(gt_stats_scope *s, const gt_model *m, const gt_stats_options *opt, gt_error *err)
{
	memset(s, 0, sizeof *s);
	s->m = m;
	if (classify(s, opt->collective_regex, err) < 0 || find_launchers(s, err) < 0)
		return -1;
	if (opt->step_glob && gt_causal_step_windows(m, opt->step_glob, opt->threads, &s->steps, err) < 0)
		return -1;
	for (uint32_t i = 0; i < m->span_count; i++)
		s->device_spans += gt_stats_is_device(s, i) && gt_stats_window(s, i) != GT_NONE;
	return 0;
}

void gt_stats_scope_free(gt_stats_scope *s)
{
	gt_big_free(s->device);
	gt_big_free(s->launcher);
	gt_step_windows_free(&s->steps);
	memset(s, 0, sizeof *s);
}
