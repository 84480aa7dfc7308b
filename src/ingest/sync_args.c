/* The args of the spans that tell how streams synchronise through CUDA (or
 * HIP) events (model.h's gt_sync): a few names, matched before any args
 * are parsed, so that the other spans cost one length compare. The parse
 * threads match the names (gt_sync_read_role); the builder parses the args
 * of the few that match (cJSON's parse writes a global: one thread). */
#include "builder.h"
#include "base/base.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static bool is(const jl_slice *s, const char *lit)
{
	size_t n = strlen(lit);
	return s->len == n && memcmp(s->p, lit, n) == 0;
}

static int role_of(const raw_event *ev)
{
	const jl_slice *n = &ev->name;
	if (n->len < 10)
		return 0;
	if (is(&ev->cat, "cuda_sync"))
		return is(n, "Stream Wait Event") ? GT_SYNC_STREAM_WAIT : is(n, "Event Sync") ? GT_SYNC_EVENT_SYNC : 0;
	if (is(n, "cudaEventRecord") || is(n, "cudaEventRecordWithFlags") || is(n, "hipEventRecord"))
		return GT_SYNC_RECORD_CALL;
	if (is(n, "cudaStreamWaitEvent") || is(n, "hipStreamWaitEvent"))
		return GT_SYNC_WAIT_CALL;
	if (is(n, "cudaEventSynchronize") || is(n, "hipEventSynchronize"))
		return GT_SYNC_EVENT_SYNC_CALL;
	return 0;
}

/* args[key] as an exact integer (a JSON number without a fraction, within
 * 2^53 so that the double holds it exactly). */
static bool int_arg(const cJSON *args, const char *key, int64_t *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, key);
	if (!cJSON_IsNumber(j))
		return false;
	double d = j->valuedouble;
	if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != (double)(int64_t)d)
		return false;
	*v = (int64_t)d;
	return true;
}

void gt_sync_read_role(raw_event *ev)
{
	ev->sync_role = (uint8_t)role_of(ev);
}

int gt_builder_note_sync(gt_builder *b, const raw_event *ev, uint32_t span, gt_error *err)
{
	int role = ev->sync_role;
	if (!role)
		return 0;
	gt_model *m = b->m;
	gt_sync y = {span, (uint8_t)role, 0, 0, 0, 0, 0};
	/* args lexed but beyond cJSON (nesting, NaN): kept with no usable args,
	 * which the causal analysis counts */
	cJSON *args = ev->args.p ? cJSON_ParseWithLength(ev->args.p, ev->args.len) : NULL;
	if (args) {
		if (int_arg(args, "correlation", &y.correlation))
			y.flags |= GT_SYNCF_CORRELATION;
		if ((role == GT_SYNC_STREAM_WAIT || role == GT_SYNC_EVENT_SYNC) &&
		    int_arg(args, "wait_on_stream", &y.wait_on_stream) &&
		    int_arg(args, "wait_on_cuda_event_record_corr_id", &y.record_correlation))
			y.flags |= GT_SYNCF_RECORD;
		cJSON_Delete(args);
	}
	if (m->sync_count == b->syncs_cap) {
		uint32_t c = b->syncs_cap ? b->syncs_cap * 2 : 64;
		if (b->syncs_cap >= UINT32_MAX / 2)
			return gt_fail(err, GT_EINPUT, "%s: more synchronisation spans than 2^31", b->path);
		gt_sync *p = gt_fault_hit("alloc") ? NULL : realloc(m->syncs, (size_t)c * sizeof *p);
		if (!p)
			return gt_fail(err, GT_EINPUT, "%s: byte %llu, event %llu: out of memory", b->path,
				       (unsigned long long)ev->offset, (unsigned long long)ev->index);
		m->syncs = p;
		b->syncs_cap = c;
	}
	m->syncs[m->sync_count++] = y;
	return 0;
}
