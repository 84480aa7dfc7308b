#include "distributed_info.h"

#include <cjson/cJSON.h>
#include <math.h>

/* A non-negative integer below 2^53 (exact in a double), else -1. */
static int64_t whole(const cJSON *j)
{
	if (!cJSON_IsNumber(j))
		return -1;
	double d = j->valuedouble;
	if (!(d >= 0 && d < 9007199254740992.0) || floor(d) != d)
		return -1;
	return (int64_t)d;
}

void gt_parse_distributed_info(gt_model *m, const char *v, size_t len)
{
	/* a small object: parsed whole rather than by the streaming lexer */
	cJSON *j = cJSON_ParseWithLength(v, len);
	if (cJSON_IsObject(j)) {
		m->rank = whole(cJSON_GetObjectItemCaseSensitive(j, "rank"));
		const cJSON *ws = cJSON_GetObjectItemCaseSensitive(j, "world_size");
		if (!ws)
			ws = cJSON_GetObjectItemCaseSensitive(j, "worldSize");
		m->world_size = whole(ws);
	}
	cJSON_Delete(j);
}
