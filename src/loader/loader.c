/* The loader: one open of the path, then the index reader or ingest. */
#include "loader.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/base.h"
#include "gtx/gtx.h"

/* The model stored in an index file, over the input's mapping: the model
 * takes the mapping and uses its tables in place (a copy of them would cost
 * more than the rest of the load); parents relinked when the caller asked
 * for another mode than the one packed. */
static int load_index(gt_model *out, gt_input *in, const char *path, const gt_load_options *opt,
		      gt_error *err)
{
	void *map;
	size_t len;
	bool taken = gt_input_take_map(in, &map, &len);
	const char *data;
	uint64_t size;
	if (!taken && !gt_input_map(in, &data, &size))
		return gt_fail(err, GT_EINPUT, "'%s' is not a regular file", path);
	if (taken)
		data = map, size = len;
	gt_gtx g;
	int rc = gt_gtx_open_model(&g, path, data, (size_t)size, err);
	if (rc == 0)
		rc = taken ? gt_gtx_model_in_place(&g, out, err) : gt_gtx_model(&g, out, err);
	if (rc < 0 && taken)
		munmap(map, len);
	gt_gtx_close(&g);
	if (rc == 0)
		gt_model_read_distributed_info(out);
	if (rc == 0 && opt && opt->parent_mode != out->parent_mode) {
		gt_model_set_parent_mode(out, opt->parent_mode);
		if (out->parent_mode != opt->parent_mode) { /* out of memory */
			gt_model_free(out);
			rc = gt_fail(err, GT_EINPUT, "%s: out of memory linking flow parents", path);
		}
	}
	return rc;
}

static bool is_index(gt_input *in)
{
	size_t n;
	const unsigned char *head = gt_input_head(in, &n);
	return gt_gtx_is_index(head, n);
}

/* After a parse: the model remembers its file. */
static int set_source(gt_model *m, const char *path, gt_error *err)
{
	m->source = gt_fault_hit("alloc") ? NULL : strdup(path);
	return m->source ? 0 : gt_fail(err, GT_EINPUT, "out of memory");
}

/* Shared by both loads: rs NULL for a plain one. */
static int load(gt_model *out, const char *path, const gt_load_options *opt, gt_resume *rs, gt_error *err)
{
	memset(out, 0, sizeof *out);
	gt_input *in;
	if (gt_input_open(&in, path, opt ? opt->max_expansion : 0, err) < 0)
		return -1;
	int rc;
	if (is_index(in))
		rc = load_index(out, in, path, opt, err);
	else {
		rc = rs ? gt_ingest_capture(out, in, path, opt, rs, err) : gt_ingest(out, in, path, opt, err);
		if (rc == 0)
			rc = set_source(out, path, err);
		if (rc < 0) {
			gt_model_free(out);
			if (rs)
				gt_resume_free(rs);
		}
	}
	gt_input_close(in);
	return rc;
}

int gt_model_load(gt_model *out, const char *path, const gt_load_options *opt, gt_error *err)
{
	return load(out, path, opt, NULL, err);
}

int gt_model_load_resumable(gt_model *m, const char *path, const gt_load_options *opt, gt_resume *rs,
			    gt_error *err)
{
	memset(rs, 0, sizeof *rs);
	return load(m, path, opt, rs, err);
}

int gt_model_resume(gt_model *m, const char *path, const gt_load_options *opt, gt_resume *rs,
		    const char **why, gt_error *err)
{
	gt_input *in;
	const char *data;
	uint64_t size;
	if (!rs->resumable) {
		*why = "the index holds no resume state";
		return 1;
	}
	if (gt_input_open(&in, path, opt ? opt->max_expansion : 0, err) < 0) {
		gt_model_free(m);
		return -1;
	}
	if (gt_input_compression(in) != GT_COMP_NONE || !gt_input_map(in, &data, &size) || size < rs->offset) {
		*why = gt_input_compression(in) != GT_COMP_NONE ? "the trace is compressed"
			: size < rs->offset ? "the trace is shorter than the resume point"
					    : "the trace cannot be mapped";
		gt_input_close(in);
		return 1;
	}
	char *source = gt_fault_hit("alloc") ? NULL : strdup(path);
	if (!source) {
		gt_input_close(in);
		gt_model_free(m);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	int rc = gt_ingest_resume(m, in, path, opt, rs, err);
	gt_input_close(in);
	if (rc < 0) {
		free(source);
		gt_model_free(m);
		return -1;
	}
	free(m->source);
	m->source = source;
	return 0;
}
