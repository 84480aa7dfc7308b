/* A PyTorch trace's place in a distributed job: Kineto writes a top-level
 * "distributedInfo": {"backend": ..., "rank": R, "world_size": W} (older
 * versions "worldSize"). The loader keeps top-level keys as
 * model->metadata_json; this reads the two numbers from it. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "ingest.h"

/* An integer-valued number (or a string spelling one), else -1. */
static int64_t whole_number(const cJSON *v)
{
	if (cJSON_IsString(v) && v->valuestring) {
		char *end;
		long long n = strtoll(v->valuestring, &end, 10);
		return *v->valuestring && !*end && n >= 0 ? (int64_t)n : -1;
	}
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 9.2e18) ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	return (int64_t)v->valuedouble;
}

void gt_model_read_distributed_info(gt_model *m)
{
	m->rank = m->world_size = -1;
	if (!m->metadata_json)
		return;
	cJSON *j = cJSON_Parse(m->metadata_json);
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "distributedInfo");
	if (cJSON_IsObject(d)) {
		m->rank = whole_number(cJSON_GetObjectItemCaseSensitive(d, "rank"));
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(d, "world_size");
		if (!w)
			w = cJSON_GetObjectItemCaseSensitive(d, "worldSize");
		m->world_size = whole_number(w);
	}
	cJSON_Delete(j);
}
