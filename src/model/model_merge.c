/* Several files of one distributed job as one model: the files' models
 * appended in rank order. The first model is the base: its arrays grow (a
 * large realloc moves pages, it does not copy them) and each later model is
 * freed as soon as it is appended, so the peak is the sum of the models. */
#include "model.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int grow(void **p, size_t count, size_t size)
{
	void *q = gt_fault_hit("alloc") ? NULL : realloc(*p, (count ? count : 1) * size);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* Old string id -> merged id, for one appended model. */
static uint32_t *map_strings(gt_strpool *into, const gt_strpool *from)
{
	uint32_t *map = gt_fault_hit("alloc") ? NULL : malloc(((size_t)from->count + 1) * sizeof *map);
	if (!map)
		return NULL;
	for (uint32_t i = 0; i < from->count; i++) {
		const char *s = gt_strpool_get(from, i);
		map[i] = gt_strpool_intern(into, s, strlen(s));
		if (map[i] == GT_NONE) {
			free(map);
			return NULL;
		}
	}
	return map;
}

static inline uint32_t remap(const uint32_t *map, uint32_t id)
{
	return id == GT_NONE ? GT_NONE : map[id];
}

static void add_stats(gt_ingest_stats *a, const gt_ingest_stats *b)
{
	a->file_bytes += b->file_bytes;
	a->bytes += b->bytes;
	a->events += b->events;
	for (int c = 0; c < 128; c++)
		a->phases[c] += b->phases[c];
	for (int i = 0; i < 8 && b->long_phase[i][0]; i++) {
		int j = 0;
		while (j < 8 && a->long_phase[j][0] && strcmp(a->long_phase[j], b->long_phase[i]))
			j++;
		if (j == 8)
			continue; /* as the ingest does: the first eight names are counted */
		if (!a->long_phase[j][0])
			memcpy(a->long_phase[j], b->long_phase[i], sizeof a->long_phase[j]);
		a->long_phase_count[j] += b->long_phase_count[i];
	}
	for (int w = 0; w < GT_WARN_COUNT; w++)
		a->warnings[w] += b->warnings[w];
}

/* Fills r from p; -1 when the copy of p's warning examples cannot be had. */
static int fill_part(gt_rank_part *r, const gt_model *p, uint32_t span_base, uint32_t process_base)
{
	r->rank = p->rank;
	r->world_size = p->world_size;
	r->span_base = span_base;
	r->span_count = p->span_count;
	r->process_base = process_base;
	r->process_count = p->process_count;
	r->flow_count = p->flow_count;
	r->sync_count = p->sync_count;
	r->thread_count = p->thread_count;
	r->track_count = p->track_count;
	r->stats = p->stats;
	bool any = false;
	for (int k = 0; k < GT_WARN_COUNT; k++)
		any |= p->warning_example_count[k] != 0;
	if (!any)
		return 0;
	r->examples = gt_fault_hit("alloc") ? NULL : malloc(sizeof p->warning_examples);
	if (!r->examples)
		return -1;
	memcpy(r->examples, p->warning_examples, sizeof p->warning_examples);
	memcpy(r->example_count, p->warning_example_count, sizeof r->example_count);
	return 0;
}

/* Appends p (then freed) to m. */
static int append(gt_model *m, gt_model *p)
{
	uint32_t *map = map_strings(&m->strings, &p->strings);
	if (!map)
		return -1;
	uint32_t sb = m->span_count, tb = m->track_count, pb = m->process_count, lb = m->lane_count;
	uint32_t cb = m->series_count;
	if (grow((void **)&m->spans, (size_t)sb + p->span_count, sizeof *m->spans) < 0 ||
	    grow((void **)&m->tracks, (size_t)tb + p->track_count, sizeof *m->tracks) < 0 ||
	    grow((void **)&m->processes, (size_t)pb + p->process_count, sizeof *m->processes) < 0 ||
	    grow((void **)&m->flows, (size_t)m->flow_count + p->flow_count, sizeof *m->flows) < 0 ||
	    grow((void **)&m->series, (size_t)cb + p->series_count, sizeof *m->series) < 0 ||
	    grow((void **)&m->syncs, (size_t)m->sync_count + p->sync_count, sizeof *m->syncs) < 0 ||
	    grow((void **)&m->samples, (size_t)(m->sample_count + p->sample_count), sizeof *m->samples) < 0) {
		free(map);
		return -1;
	}
	for (uint32_t i = 0; i < p->process_count; i++) {
		gt_process q = p->processes[i];
		if (q.pid.is_str)
			q.pid.str = map[q.pid.str];
		q.name = remap(map, q.name);
		q.labels = remap(map, q.labels);
		m->processes[pb + i] = q;
	}
	for (uint32_t i = 0; i < p->track_count; i++) {
		gt_track t = p->tracks[i];
		t.process += pb;
		if (t.tid.is_str)
			t.tid.str = map[t.tid.str];
		t.name = remap(map, t.name);
		t.cat = remap(map, t.cat);
		t.lane_base += lb;
		m->tracks[tb + i] = t;
	}
	for (uint32_t i = 0; i < p->span_count; i++) {
		gt_span s = p->spans[i];
		s.name = remap(map, s.name);
		s.cat = remap(map, s.cat);
		s.track += tb;
		if (s.parent != GT_NONE)
			s.parent += sb;
		s.lane += lb;
		m->spans[sb + i] = s;
	}
	for (uint32_t i = 0; i < p->flow_count; i++) {
		gt_flow f = p->flows[i];
		if (f.src != GT_NONE)
			f.src += sb;
		if (f.dst != GT_NONE)
			f.dst += sb;
		f.name = remap(map, f.name);
		f.cat = remap(map, f.cat);
		m->flows[m->flow_count + i] = f;
	}
	for (uint32_t i = 0; i < p->sync_count; i++) {
		gt_sync y = p->syncs[i];
		y.span += sb;
		m->syncs[m->sync_count + i] = y;
	}
	for (uint32_t i = 0; i < p->series_count; i++) {
		gt_counter_series c = p->series[i];
		c.process += pb;
		c.name = remap(map, c.name);
		c.key = remap(map, c.key);
		m->series[cb + i] = c;
	}
	for (uint64_t i = 0; i < p->sample_count; i++) {
		gt_counter_sample c = p->samples[i];
		c.series += cb;
		m->samples[m->sample_count + i] = c;
	}
	free(map);
	if (p->span_count && (!m->span_count || p->start_ns < m->start_ns))
		m->start_ns = p->start_ns;
	if (p->span_count && (!m->span_count || p->end_ns > m->end_ns))
		m->end_ns = p->end_ns;
	m->span_count += p->span_count;
	m->track_count += p->track_count;
	m->process_count += p->process_count;
	m->flow_count += p->flow_count;
	m->sync_count += p->sync_count;
	m->series_count += p->series_count;
	m->sample_count += p->sample_count;
	m->lane_count += p->lane_count;
	m->thread_count += p->thread_count;
	add_stats(&m->stats, &p->stats);
	return 0;
}

/* Renderer groups over the merged spans: one per category in order of first
 * appearance (span order is the files' event order, file after file). */
static int regroup(gt_model *m)
{
	uint8_t *cat_group = gt_fault_hit("alloc") ? NULL : calloc((size_t)m->strings.count + 1, 1);
	if (!cat_group)
		return -1;
	memset(m->groups, 0, sizeof m->groups);
	m->group_count = 0;
	uint32_t other = GT_NONE;
	for (uint32_t i = 0; i < m->span_count; i++) {
		gt_span *s = &m->spans[i];
		uint32_t cat = s->cat;
		if (cat >= m->strings.count) { /* no category: as an empty one */
			cat = gt_strpool_find(&m->strings, "", 0);
			if (cat == GT_NONE)
				cat = 0;
		}
		if (!cat_group[cat]) {
			uint32_t g = m->group_count;
			if (g >= GT_MAX_GROUPS - 1) {
				g = GT_MAX_GROUPS - 1;
				if (other == GT_NONE) {
					other = gt_strpool_intern(&m->strings, "other", 5);
					if (other == GT_NONE) {
						free(cat_group);
						return -1;
					}
					m->group_count = GT_MAX_GROUPS;
					m->groups[g].name = other;
				}
			} else {
				m->groups[g].name = cat;
				m->group_count++;
			}
			cat_group[cat] = (uint8_t)(g + 1);
		}
		s->group = (uint8_t)(cat_group[cat] - 1);
		m->groups[s->group].spans++;
	}
	free(cat_group);
	return 0;
}

int gt_model_merge(gt_model *out, gt_model *parts, uint32_t n, gt_error *err)
{
	memset(out, 0, sizeof *out);
	out->rank = out->world_size = -1;
	gt_rank_part *ranks = gt_fault_hit("alloc") ? NULL : calloc(n ? n : 1, sizeof *ranks);
	for (uint32_t i = 0; ranks && i < n; i++) {
		ranks[i].source = parts[i].source;
		parts[i].source = NULL;
	}
	if (!ranks || n == 0) {
		for (uint32_t i = 0; i < n; i++)
			gt_model_free(&parts[i]);
		free(ranks);
		return gt_fail(err, GT_EINPUT, "out of memory merging the ranks' models");
	}
	/* the first model is the base: its arrays are kept and grown */
	*out = parts[0];
	memset(&parts[0], 0, sizeof parts[0]);
	int part_rc = fill_part(&ranks[0], out, 0, 0);
	free(out->metadata_json);
	out->metadata_json = NULL; /* per file, not the job's */
	out->ranks = ranks;
	out->rank_count = 1;
	/* the base's tables grow: borrowed ones (an index file's) are copied */
	int rc = part_rc < 0 || gt_model_own(out) < 0 ? gt_fail(err, GT_EINPUT, "out of memory merging the ranks' models")
						      : 0;
	for (uint32_t i = 1; i < n; i++) {
		if (rc == 0) {
			if (fill_part(&ranks[i], &parts[i], out->span_count, out->process_count) < 0)
				rc = gt_fail(err, GT_EINPUT, "out of memory merging the ranks' models");
			else if (parts[i].span_count > UINT32_MAX - 1 - out->span_count ||
			    parts[i].track_count > UINT32_MAX - 1 - out->track_count ||
			    parts[i].flow_count > UINT32_MAX - 1 - out->flow_count)
				rc = gt_fail(err, GT_EINPUT, "%s: the job has more than 2^32 spans, tracks or flows",
					     ranks[i].source ? ranks[i].source : "");
			else if (append(out, &parts[i]) < 0)
				rc = gt_fail(err, GT_EINPUT, "out of memory merging the ranks' models");
			else
				out->rank_count = i + 1;
		}
		gt_model_free(&parts[i]);
		/* give the freed model's pages back now: the heap would keep them
		 * beside the grown arrays, and the peak would be more than the sum */
		malloc_trim(0);
	}
	if (rc == 0 && regroup(out) < 0)
		rc = gt_fail(err, GT_EINPUT, "out of memory merging the ranks' models");
	/* the base's own examples are rank 0's: a job's stay with their ranks */
	memset(out->warning_example_count, 0, sizeof out->warning_example_count);
	/* the job's rank and size: the same on every file, else absent */
	out->rank = -1;
	out->world_size = ranks[0].world_size;
	for (uint32_t i = 1; i < out->rank_count; i++)
		if (ranks[i].world_size != out->world_size)
			out->world_size = -1;
	if (rc < 0) {
		for (uint32_t i = out->rank_count; i < n; i++) {
			free(ranks[i].source);
			free(ranks[i].examples);
		}
		gt_model_free(out);
		return -1;
	}
	return 0;
}

const gt_rank_part *gt_model_span_rank(const gt_model *m, uint32_t s)
{
	uint32_t lo = 0, hi = m->rank_count;
	if (!hi)
		return NULL;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->ranks[mid].span_base <= s)
			lo = mid;
		else
			hi = mid;
	}
	return &m->ranks[lo];
}

const gt_rank_part *gt_model_process_rank(const gt_model *m, uint32_t p)
{
	uint32_t lo = 0, hi = m->rank_count;
	if (!hi)
		return NULL;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->ranks[mid].process_base <= p)
			lo = mid;
		else
			hi = mid;
	}
	return &m->ranks[lo];
}
