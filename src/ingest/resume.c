/* Resumable ingest: capturing the builder's state before finish, restoring
 * it over a stored model, and the load entry points (see resume.h). */
#include <stdlib.h>
#include <string.h>

#include "resume.h"
#include "ingest.h"
#include "input.h"
#include "builder.h"
#include "base/base.h"

void gt_resume_free(gt_resume *rs)
{
	if (!rs)
		return;
	free(rs->points);
	free(rs->kinds);
	free(rs->binds);
	free(rs->tracks);
	memset(rs, 0, sizeof *rs);
}

static void *alloc_n(size_t n, size_t size)
{
	return gt_fault_hit("alloc") ? NULL : calloc(n ? n : 1, size);
}

int gt_builder_capture(const gt_builder *b, gt_resume *rs)
{
	const gt_model *m = b->m;
	free(rs->points), free(rs->kinds), free(rs->binds), free(rs->tracks);
	rs->kinds = NULL, rs->kind_count = 0;
	rs->points = alloc_n(b->npoints, sizeof *rs->points);
	rs->binds = alloc_n(b->nbinds, sizeof *rs->binds);
	rs->tracks = alloc_n(m->track_count, sizeof *rs->tracks);
	if (!rs->points || !rs->binds || !rs->tracks)
		return -1;
	rs->point_count = b->npoints;
	rs->bind_count = b->nbinds;
	rs->track_count = m->track_count;
	/* points and binds are still in file order: finish has not sorted them */
	gt_keymap kinds = {0};
	uint32_t kinds_cap = 0;
	for (uint32_t i = 0; i < b->npoints; i++) {
		const flow_point *p = &b->points[i];
		gt_resume_point_kind k = {(uint32_t)p->key.w[1], p->name, (uint8_t)(p->key.w[0] >> 8), (uint8_t)p->ph,
					  p->enclosing, {0}};
		gt_key kk = {{k.cat, k.name, (uint64_t)k.id_kind | (uint64_t)k.ph << 8 | (uint64_t)k.enclosing << 16, 0}};
		bool found;
		uint32_t *slot = gt_keymap_slot(&kinds, &kk, &found);
		if (!slot)
			goto oom;
		if (!found) {
			if (rs->kind_count == kinds_cap) {
				uint32_t c = kinds_cap ? kinds_cap * 2 : 16;
				gt_resume_point_kind *nk = gt_fault_hit("alloc") ? NULL : realloc(rs->kinds, c * sizeof *nk);
				if (!nk)
					goto oom;
				rs->kinds = nk;
				kinds_cap = c;
			}
			rs->kinds[rs->kind_count] = k;
			*slot = ++rs->kind_count;
		}
		rs->points[i] = (gt_resume_point){p->ts_ns, p->key.w[2], p->track, *slot - 1};
	}
	gt_keymap_free(&kinds);
	for (uint32_t i = 0; i < b->nbinds; i++) {
		const flow_bind *fb = &b->binds[i];
		rs->binds[i] = (gt_resume_bind){fb->key.w[1], fb->span, (uint8_t)(fb->key.w[0] >> 8), fb->out, {0, 0}};
	}
	/* the async keys' id kind and scope string are nowhere else */
	const gt_keymap *a = &b->asyncs;
	for (uint64_t i = 0; a->keys && i <= a->mask; i++) {
		if (!a->vals[i] || a->vals[i] - 1 >= m->track_count)
			continue;
		rs->tracks[a->vals[i] - 1] = (gt_resume_track){(uint32_t)a->keys[i].w[1],
							       (uint8_t)(a->keys[i].w[0] >> 48), {0, 0, 0}};
	}
	rs->max_end_ns = b->max_end_ns;
	rs->any_ts = b->any_ts;
	memcpy(rs->long_phase, m->stats.long_phase, sizeof rs->long_phase);
	memcpy(rs->long_phase_count, m->stats.long_phase_count, sizeof rs->long_phase_count);
	return 0;
oom:
	gt_keymap_free(&kinds);
	return -1;
}

static int put(gt_keymap *km, gt_key k, uint32_t value)
{
	bool found;
	uint32_t *slot = gt_keymap_slot(km, &k, &found);
	if (!slot)
		return -1;
	*slot = value + 1;
	return 0;
}

static uint64_t id_value(const gt_id *id)
{
	return id->is_str ? id->str : (uint64_t)id->num;
}

static uint64_t id_kind(const gt_id *id)
{
	return id->is_str ? RID_STR : RID_NUM;
}

int gt_builder_restore(gt_builder *b, gt_model *m, const gt_resume *rs, const char *path, gt_error *err)
{
	memset(b, 0, sizeof *b);
	b->m = m;
	b->path = path;
	for (int i = 0; i < THREAD_MEMOS; i++)
		b->memo[i].track = GT_NONE;
	if (rs->track_count != m->track_count)
		return gt_fail(err, GT_EINPUT, "%s: the resume state does not match the stored model", path);
	b->spans_cap = m->span_count, b->tracks_cap = m->track_count, b->procs_cap = m->process_count;
	b->series_cap = m->series_count, b->samples_cap = m->sample_count, b->syncs_cap = m->sync_count;
	/* flows are bound again by finish, from every endpoint */
	free(m->flows);
	m->flows = NULL;
	m->flow_count = 0;
	b->open = alloc_n(m->track_count + 16, sizeof *b->open);
	b->cat_group = alloc_n(m->strings.count > 256 ? m->strings.count : 256, 1);
	b->points = alloc_n(rs->point_count, sizeof *b->points);
	b->binds = alloc_n(rs->bind_count, sizeof *b->binds);
	if (!b->open || !b->cat_group || !b->points || !b->binds)
		goto oom;
	/* capacities only once the arrays exist: gt_builder_free walks open[] */
	b->open_cap = m->track_count + 16;
	b->cat_group_cap = m->strings.count > 256 ? m->strings.count : 256;
	b->points_cap = rs->point_count, b->binds_cap = rs->bind_count;
	for (uint32_t i = 0; i < m->process_count; i++) {
		const gt_id *pid = &m->processes[i].pid;
		if (put(&b->processes, (gt_key){{1, id_kind(pid), id_value(pid), 0}}, i) < 0)
			goto oom;
	}
	for (uint32_t t = 0; t < m->track_count; t++) {
		const gt_track *tr = &m->tracks[t];
		gt_key k;
		if (tr->kind == GT_TRACK_THREAD) {
			k = (gt_key){{2 | (uint64_t)tr->process << 8 | id_kind(&tr->tid) << 40, id_value(&tr->tid), 0, 0}};
		} else if (tr->kind == GT_TRACK_INSTANT) { /* as builder.c's instant_track */
			k = (gt_key){{7 | (uint64_t)(tr->async_scope ? UINT32_MAX : tr->process) << 8, 0, 0, 0}};
		} else {
			uint64_t global = tr->async_scope != 0;
			uint64_t pw = global ? UINT32_MAX : tr->process;
			k = (gt_key){{3 | pw << 8 | (uint64_t)rs->tracks[t].id_kind << 48 | global << 56,
				      (uint64_t)tr->cat << 32 | rs->tracks[t].scope, tr->async_id, 0}};
		}
		if (put(tr->kind == GT_TRACK_THREAD ? &b->threads : &b->asyncs, k, t) < 0)
			goto oom;
	}
	for (uint32_t i = 0; i < m->series_count; i++) {
		const gt_counter_series *s = &m->series[i];
		if (put(&b->series, (gt_key){{6, s->process, s->name, s->key}}, i) < 0)
			goto oom;
	}
	/* Spans as gt_builder_add left them: finish sets parent, depth, lane
	 * and flags, and the duration of the spans it closed at the end. Those
	 * are open again; their stacks held them in id order. */
	for (uint32_t i = 0; i < m->span_count; i++) {
		gt_span *s = &m->spans[i];
		if (s->flags & GT_SPANF_UNCLOSED) {
			s->dur_ns = 0;
			/* an X without dur ends with the trace, off the B stacks */
			if (gt_u32vec_push(s->kind == GT_SPAN_COMPLETE ? &b->unfinished : &b->open[s->track], i) < 0)
				goto oom;
		}
		s->flags = 0;
		s->parent = GT_NONE;
		s->lane = 0;
		s->depth = 0;
		b->cat_group[s->cat] = (uint8_t)(s->group + 1);
	}
	for (uint32_t i = 0; i < rs->point_count; i++) {
		const gt_resume_point *p = &rs->points[i];
		const gt_resume_point_kind *k = &rs->kinds[p->kind];
		b->points[i] = (flow_point){{{4 | (uint64_t)k->id_kind << 8, k->cat, p->id, 0}}, p->track, i, k->name,
					    p->ts_ns, (char)k->ph, k->enclosing};
	}
	b->npoints = rs->point_count;
	for (uint32_t i = 0; i < rs->bind_count; i++) {
		const gt_resume_bind *fb = &rs->binds[i];
		b->binds[i] = (flow_bind){{{5 | (uint64_t)fb->id_kind << 8, fb->id, 0, 0}}, fb->span, fb->out};
	}
	b->nbinds = rs->bind_count;
	b->max_end_ns = rs->max_end_ns;
	b->any_ts = rs->any_ts;
	memcpy(m->stats.long_phase, rs->long_phase, sizeof rs->long_phase);
	memcpy(m->stats.long_phase_count, rs->long_phase_count, sizeof rs->long_phase_count);
	memcpy(m->stats.warnings, rs->warnings, sizeof rs->warnings);
	/* metadata captured after the event array is captured again */
	if (rs->metadata_len == 0) {
		free(m->metadata_json);
		m->metadata_json = NULL;
	} else if (m->metadata_json && rs->metadata_len < strlen(m->metadata_json)) {
		m->metadata_json[rs->metadata_len - 1] = '}';
		m->metadata_json[rs->metadata_len] = '\0';
	}
	return 0;
oom:
	gt_builder_free(b);
	return gt_fail(err, GT_EINPUT, "%s: out of memory restoring the model", path);
}
