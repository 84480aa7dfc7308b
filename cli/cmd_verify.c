/* gputrace verify: checks an index file's checksums, structure, model
 * references and every hierarchy record (the validation kernel, or the host
 * reference with --device host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_open.h"
#include "cli.h"
#include "gtx/gtx.h"
#include "write/write.h"
#include "cl/cl.h"
#include "tindex/tindex.h"

static const struct gt_opt verify_opts[] = {
	GT_OPT_DEVICE, GT_OPT_OUTPUT, GT_OPT_QUIET, GT_OPT_HELP, GT_OPT_END,
};

static void write_error(FILE *out, const char *path, const char *msg)
{
	gt_jsonw w;
	gt_jsonw_init(&w, out, true);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "file");
	gt_jsonw_str(&w, path);
	gt_jsonw_key(&w, "ok");
	gt_jsonw_bool(&w, false);
	gt_jsonw_key(&w, "error");
	gt_jsonw_str(&w, msg);
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
}

/* The level and index within it of hierarchy record r. */
static void locate(const gt_tindex *ix, uint64_t r, uint32_t *level, uint64_t *index)
{
	if (r < ix->batch_count) {
		*level = 0, *index = r;
		return;
	}
	uint64_t k = r - ix->batch_count;
	for (uint32_t L = 1; L < ix->level_count; L++)
		if (k < ix->levels[L].first_node + ix->levels[L].node_count) {
			*level = L, *index = k - ix->levels[L].first_node;
			return;
		}
	*level = ix->level_count, *index = k;
}

static void write_report(FILE *out, const gt_gtx *g, const char *device, const uint8_t *bits, uint32_t all,
			 uint64_t nbad, uint64_t dirty)
{
	const gt_tindex *ix = &g->ix;
	gt_jsonw w;
	gt_jsonw_init(&w, out, true);
	gt_jsonw_begin_object(&w);
	gt_jsonw_key(&w, "file");
	gt_jsonw_str(&w, g->path);
	gt_jsonw_key(&w, "ok");
	gt_jsonw_bool(&w, all == 0 && dirty == 0);
	gt_jsonw_key(&w, "version");
	gt_jsonw_u64(&w, g->version);
	gt_jsonw_key(&w, "device");
	gt_jsonw_str(&w, device);
	gt_jsonw_key(&w, "checksums");
	gt_jsonw_begin_array(&w);
	for (uint32_t i = 0; i < g->section_count; i++) {
		const gt_gtx_section *s = &g->sections[i];
		char sum[24];
		bool xxh3 = g->version >= GT_GTX_VERSION_XXH3;
		snprintf(sum, sizeof sum, xxh3 ? "%016llx" : "%08llx", (unsigned long long)s->sum);
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "section");
		gt_jsonw_str(&w, s->name);
		gt_jsonw_key(&w, "offset");
		gt_jsonw_u64(&w, s->offset);
		gt_jsonw_key(&w, "bytes");
		gt_jsonw_u64(&w, s->size);
		gt_jsonw_key(&w, "records");
		gt_jsonw_u64(&w, s->count);
		gt_jsonw_key(&w, "checksum_kind");
		gt_jsonw_str(&w, xxh3 ? "xxh3-64 of 1 MiB chunks" : "crc32");
		gt_jsonw_key(&w, "checksum");
		gt_jsonw_str(&w, sum);
		gt_jsonw_key(&w, "ok");
		gt_jsonw_bool(&w, true);
		gt_jsonw_end_object(&w);
	}
	gt_jsonw_end_array(&w);
	gt_jsonw_key(&w, "records");
	gt_jsonw_u64(&w, gt_tindex_records(ix));
	gt_jsonw_key(&w, "levels");
	gt_jsonw_begin_array(&w);
	for (uint32_t L = 0; L < ix->level_count; L++)
		gt_jsonw_u64(&w, ix->levels[L].node_count);
	gt_jsonw_end_array(&w);
	gt_jsonw_key(&w, "dirty_partitions");
	gt_jsonw_u64(&w, dirty);
	gt_jsonw_key(&w, "validation_bits");
	gt_jsonw_u64(&w, all);
	gt_jsonw_key(&w, "bad_record_count");
	gt_jsonw_u64(&w, nbad);
	gt_jsonw_key(&w, "bad_records");
	gt_jsonw_begin_array(&w);
	uint64_t shown = 0;
	for (uint64_t r = 0; r < gt_tindex_records(ix) && shown < 20; r++) {
		if (!bits[r])
			continue;
		uint32_t L;
		uint64_t k;
		char names[256];
		locate(ix, r, &L, &k);
		gt_tindex_bits_str(bits[r], names, sizeof names);
		gt_jsonw_begin_object(&w);
		gt_jsonw_key(&w, "record");
		gt_jsonw_u64(&w, r);
		gt_jsonw_key(&w, "level");
		gt_jsonw_u64(&w, L);
		gt_jsonw_key(&w, "index");
		gt_jsonw_u64(&w, k);
		gt_jsonw_key(&w, "bits");
		gt_jsonw_u64(&w, bits[r]);
		gt_jsonw_key(&w, "problems");
		gt_jsonw_str(&w, names);
		gt_jsonw_end_object(&w);
		shown++;
	}
	gt_jsonw_end_array(&w);
	gt_jsonw_end_object(&w);
	gt_jsonw_finish(&w);
}

static int run_verify(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	struct gt_opt_state st;
	int status;
	if (!gt_parse_common(cmd, argc, argv, &c, &st, &status))
		return status;
	if (st.noperands != 1)
		return gt_usage_error(cmd, "'verify' takes one FILE.gtx");
	const char *path = st.operands[0];
	gt_outfile out;
	gt_error err = {0};
	if (gt_outfile_open(&out, c.output, false, &err) < 0)
		return gt_report(&err);
	gt_cli_device_prefetch(&c, GT_WORK_VERIFY);
	gt_gtx g;
	gt_model m;
	memset(&m, 0, sizeof m);
	if (gt_gtx_open(&g, path, &err) < 0 || gt_gtx_model(&g, &m, &err) < 0) {
		if (g.map)
			gt_gtx_close(&g);
		write_error(out.fp, path, err.msg);
		if (gt_outfile_commit(&out, NULL) < 0)
			gt_outfile_abort(&out);
		return gt_report(&err);
	}
	int rc = 0;
	gt_cl *cl = NULL;
	gt_tindex_cl *dev = NULL;
	char chosen[256] = "host";
	uint64_t nrec = gt_tindex_records(&g.ix), nbad = 0, dirty = 0;
	uint8_t *bits = calloc(nrec ? nrec : 1, 1);
	uint32_t all = 0;
	if (!bits) {
		rc = gt_fail(&err, GT_EINPUT, "out of memory");
	} else if (gt_cli_device_open(&c, GT_WORK_VERIFY, g.ix.span_count, &cl, chosen, sizeof chosen, &err) < 0) {
		rc = -1;
	} else if (cl) {
		if (gt_tindex_cl_open(&dev, cl, &g.ix, &err) < 0 ||
		    gt_tindex_cl_validate(dev, &m, bits, &all, &nbad, &err) < 0)
			rc = -1;
	} else {
		snprintf(chosen, sizeof chosen, "host");
		gt_tindex_validate(&g.ix, &m, bits, &all, &nbad);
	}
	for (uint32_t q = 0; rc == 0 && q < g.ix.partition_count; q++)
		dirty += g.ix.dirty[q] != 0;
	if (rc == 0)
		write_report(out.fp, &g, chosen, bits, all, nbad, dirty);
	if (rc == 0 && gt_outfile_commit(&out, &err) < 0)
		rc = -1;
	else if (rc != 0)
		gt_outfile_abort(&out);
	status = rc < 0 ? gt_report(&err) : 0;
	if (status == 0 && (all || dirty)) {
		char names[256];
		gt_tindex_bits_str(all, names, sizeof names);
		fprintf(stderr, "gputrace: '%s': %llu hierarchy records fail validation (bits %u: %s), %llu dirty partitions\n",
			path, (unsigned long long)nbad, all, names, (unsigned long long)dirty);
		status = GT_EINPUT;
	}
	free(bits);
	gt_tindex_cl_close(dev);
	gt_cl_close(cl);
	gt_model_free(&m);
	gt_gtx_close(&g);
	return status;
}

const struct gt_command gt_cmd_verify = {
	.name = "verify",
	.args = "FILE.gtx",
	.summary = "check an index file: section checksums, structure and every hierarchy record",
	.opts = verify_opts,
	.run = run_verify,
};
