/* loader/: what a command's inputs are read by. The one place that decides
 * whether a path is a trace or an index file (loader.c): it opens the path
 * once, looks at its first bytes, and hands the open input to the index
 * reader (gtx/) or to ingest (ingest/); it sits above both so that neither
 * calls the other. A job's files (loader_many.c), and the per-rank
 * collective summaries (coll_arrow.c).
 * May use: gtx/, ingest/, collective/, write/ (the FlatBuffers codec),
 * model/, base/. */
#ifndef GT_LOADER_H
#define GT_LOADER_H

#include "collective/collective.h"
#include "ingest/ingest.h"
#include "model/model.h"

/* Reads a trace (plain, gzip or zstd; path "-" is stdin) or a .gtx index file
 * into *out. On failure, *out is empty and err says file, byte offset and
 * event index. */
int gt_model_load(gt_model *out, const char *path, const gt_load_options *opt, gt_error *err);

/* gt_model_load that also returns the resume state of a JSON trace
 * (rs->resumable is false for compressed input and index files). */
int gt_model_load_resumable(gt_model *m, const char *path, const gt_load_options *opt, gt_resume *rs,
			    gt_error *err);

/* Continues a parse: m holds the model stored with rs (as gt_gtx_model
 * gives it back) and path a trace whose first rs->offset bytes are those
 * the state was taken from (the caller checks that). Parses the rest,
 * finishes the model and replaces *rs with the new state. Returns 0, -1 on
 * error (m freed), or 1 when the input cannot be resumed (compressed or not
 * mappable; *why says so; m and rs untouched). */
int gt_model_resume(gt_model *m, const char *path, const gt_load_options *opt, gt_resume *rs,
		    const char **why, gt_error *err);

/* The files a command's TRACE operands name: a directory stands for its
 * *.json, *.json.gz, *.json.zst and *.gtx files in name order. job is set
 * when the list is a distributed job (several files, or a directory). */
typedef struct gt_trace_list {
	char **paths;
	size_t count, cap;
	bool job;
} gt_trace_list;
int gt_trace_list_expand(gt_trace_list *l, char *const *operands, size_t n, gt_error *err);
void gt_trace_list_free(gt_trace_list *l);

/* Loads the list as one model: a single trace as gt_model_load; a job's
 * files in parallel (opt->threads shared), each a rank (distributedInfo.rank,
 * else its position; two files of one rank fail), merged in rank order
 * (gt_model_merge). out->ranks then says which spans came from which file. */
int gt_model_load_many(gt_model *out, const gt_trace_list *l, const gt_load_options *opt, gt_error *err);

/* Reading back the per-rank collective summaries that `gputrace collectives
 * -f arrow` writes: an Arrow IPC file (or stream) with the columns rank
 * (int64), name (utf8), seq (uint64), begin_ns, end_ns, step (int64) and the
 * schema metadata key "ranks" (the ranks it covers, comma-separated). Other
 * Arrow files are refused with a located message, never misread. */

/* Adds the file's ranks and kernels to s. A rank s already holds is an
 * error (two summaries of one rank). 0, or -1 with err. */
int gt_coll_arrow_read(gt_coll_set *s, const char *path, gt_error *err);
/* The same over the file's bytes p[0..n) (path names it in errors). */
int gt_coll_arrow_parse(gt_coll_set *s, const char *path, const unsigned char *p, size_t n, gt_error *err);

#endif
