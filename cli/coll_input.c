#include "coll_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader.h"
#include "load.h"

/* An Arrow file or stream (by its first bytes; a trace starts with JSON,
 * gzip or zstd magic), or a *.arrow name. */
static bool is_summary(const char *path)
{
	size_t n = strlen(path);
	if (n > 6 && strcmp(path + n - 6, ".arrow") == 0)
		return true;
	if (strcmp(path, "-") == 0)
		return false;
	unsigned char b[8] = {0};
	FILE *f = fopen(path, "rb");
	size_t got = f ? fread(b, 1, sizeof b, f) : 0;
	if (f)
		fclose(f);
	static const unsigned char cont[4] = {0xff, 0xff, 0xff, 0xff};
	return (got >= 6 && memcmp(b, "ARROW1", 6) == 0) || (got >= 4 && memcmp(b, cont, 4) == 0);
}

int gt_cli_coll_load(const struct gt_common *c, char *const *operands, int n, const gt_coll_options *o,
		     gt_coll_set *s)
{
	gt_coll_set_init(s);
	char **traces = malloc(((size_t)n + 1) * sizeof *traces);
	if (!traces) {
		fprintf(stderr, "gputrace: out of memory\n");
		return GT_EINPUT;
	}
	int nt = 0, rc = 0;
	gt_error err = {0};
	for (int i = 0; i < n && rc == 0; i++) {
		if (!is_summary(operands[i]))
			traces[nt++] = operands[i];
		else if (gt_coll_arrow_read(s, operands[i], &err) < 0)
			rc = gt_report(&err);
	}
	if (rc == 0 && nt) {
		gt_model m;
		rc = gt_cli_load_many(c, traces, nt, &m);
		/* a rank both summarised and traced would be counted twice */
		for (uint32_t p = 0; rc == 0 && p < (m.rank_count ? m.rank_count : 1); p++) {
			int64_t r = m.rank_count ? m.ranks[p].rank : (m.rank >= 0 ? m.rank : 0);
			for (uint32_t i = 0; rc == 0 && i < s->rank_count; i++)
				if (s->ranks[i] == r) {
					fprintf(stderr, "gputrace: rank %lld is both in a summary and in a trace\n", (long long)r);
					rc = GT_EINPUT;
				}
			if (rc)
				gt_model_free(&m);
		}
		if (rc == 0) {
			if (gt_coll_extract(s, &m, o, &err) < 0)
				rc = gt_report(&err);
			gt_model_free(&m);
		}
	}
	free(traces);
	if (rc)
		gt_coll_set_free(s);
	return rc;
}
