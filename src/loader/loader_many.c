/* Several traces of one distributed job as one model: each file is read on
 * its own (files in parallel, the threads shared out), then the models are
 * merged in rank order (model/model_merge.c). */
#include "loader.h"
#include "base/base.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool trace_name(const char *n)
{
	static const char *const ends[] = {".json", ".json.gz", ".json.zst", ".gtx"};
	size_t len = strlen(n);
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		size_t e = strlen(ends[i]);
		if (len > e && strcmp(n + len - e, ends[i]) == 0)
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(gt_trace_list *l, char *path)
{
	if (!path)
		return -1;
	if (l->count == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 16;
		char **p = gt_fault_hit("alloc") ? NULL : realloc(l->paths, c * sizeof *p);
		if (!p) {
			free(path);
			return -1;
		}
		l->paths = p;
		l->cap = c;
	}
	l->paths[l->count++] = path;
	return 0;
}

/* The trace files of a directory, in name order. */
static int add_dir(gt_trace_list *l, const char *dir, gt_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return gt_fail(err, GT_EINPUT, "%s: cannot open the directory", dir);
	size_t first = l->count;
	struct dirent *e;
	int rc = 0;
	size_t dl = strlen(dir);
	bool slash = dl && dir[dl - 1] == '/';
	while (rc == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !trace_name(e->d_name))
			continue;
		size_t n = dl + strlen(e->d_name) + 2;
		char *p = gt_fault_hit("alloc") ? NULL : malloc(n);
		if (p)
			snprintf(p, n, "%s%s%s", dir, slash ? "" : "/", e->d_name);
		if (push(l, p) < 0)
			rc = gt_fail(err, GT_EINPUT, "out of memory");
	}
	closedir(d);
	if (rc == 0 && l->count == first)
		rc = gt_fail(err, GT_EINPUT, "%s: no *.json, *.json.gz, *.json.zst or *.gtx file in the directory", dir);
	if (rc == 0)
		qsort(l->paths + first, l->count - first, sizeof *l->paths, cmp_str);
	return rc;
}

int gt_trace_list_expand(gt_trace_list *l, char *const *operands, size_t n, gt_error *err)
{
	memset(l, 0, sizeof *l);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int rc;
		if (strcmp(operands[i], "-") != 0 && stat(operands[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			l->job = true;
			rc = add_dir(l, operands[i], err);
		} else {
			char *p = gt_fault_hit("alloc") ? NULL : strdup(operands[i]);
			rc = push(l, p) < 0 ? gt_fail(err, GT_EINPUT, "out of memory") : 0;
		}
		if (rc < 0) {
			gt_trace_list_free(l);
			return -1;
		}
	}
	if (l->count > 1)
		l->job = true;
	return 0;
}

void gt_trace_list_free(gt_trace_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->paths[i]);
	free(l->paths);
	memset(l, 0, sizeof *l);
}

struct reader;
/* One file's bytes read, for the job's progress. */
struct file_bytes {
	struct reader *r;
	uint64_t done, total;
};

struct reader {
	const gt_trace_list *list;
	gt_model *models;
	gt_error *errs;
	int *rcs;
	gt_load_options opt;
	pthread_mutex_t mu;
	size_t next;
	/* the caller's progress: the bytes of all the files, summed under mu */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	struct file_bytes *bytes;
	uint64_t done, total;
};

static void file_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct file_bytes *f = ctx;
	struct reader *r = f->r;
	pthread_mutex_lock(&r->mu);
	r->done += done - f->done;
	r->total += total - f->total;
	f->done = done;
	f->total = total;
	r->progress(r->progress_ctx, r->done, r->total);
	pthread_mutex_unlock(&r->mu);
}

static void *read_files(void *arg)
{
	struct reader *r = arg;
	for (;;) {
		pthread_mutex_lock(&r->mu);
		size_t i = r->next++;
		pthread_mutex_unlock(&r->mu);
		if (i >= r->list->count)
			return NULL;
		gt_load_options opt = r->opt;
		if (r->bytes) {
			opt.progress = file_progress;
			opt.progress_ctx = &r->bytes[i];
		}
		r->rcs[i] = gt_model_load(&r->models[i], r->list->paths[i], &opt, &r->errs[i]);
		if (r->bytes) /* an index file reports nothing while it loads */
			file_progress(&r->bytes[i], r->bytes[i].total, r->bytes[i].total);
	}
}

/* Each file's size up front, so that the job's bar has its total from the
 * start (a file reports its own only once it is opened). */
static void size_files(struct reader *r)
{
	for (size_t i = 0; i < r->list->count; i++) {
		struct stat st;
		r->bytes[i].r = r;
		if (stat(r->list->paths[i], &st) == 0 && S_ISREG(st.st_mode))
			r->bytes[i].total = (uint64_t)st.st_size;
		r->total += r->bytes[i].total;
	}
}

static _Thread_local const gt_model *sort_models;
static int cmp_rank(const void *a, const void *b)
{
	const gt_model *x = &sort_models[*(const uint32_t *)a], *y = &sort_models[*(const uint32_t *)b];
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Each file's rank: distributedInfo.rank, else its position. */
static int order_ranks(gt_model *models, size_t n, gt_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (models[i].rank < 0)
			models[i].rank = (int64_t)i;
	uint32_t *ord = gt_fault_hit("alloc") ? NULL : malloc(n * sizeof *ord);
	gt_model *tmp = gt_fault_hit("alloc") ? NULL : malloc(n * sizeof *tmp);
	if (!ord || !tmp) {
		free(ord);
		free(tmp);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	sort_models = models;
	qsort(ord, n, sizeof *ord, cmp_rank); /* ties are reported below, whatever their order */
	int rc = 0;
	for (size_t i = 1; i < n && rc == 0; i++)
		if (models[ord[i]].rank == models[ord[i - 1]].rank) {
			uint32_t a = ord[i - 1] < ord[i] ? ord[i - 1] : ord[i], b = ord[i - 1] ^ ord[i] ^ a;
			rc = gt_fail(err, GT_EINPUT, "%s and %s: both are rank %lld", models[a].source,
				     models[b].source, (long long)models[a].rank);
		}
	if (rc == 0) {
		for (size_t i = 0; i < n; i++)
			tmp[i] = models[ord[i]];
		memcpy(models, tmp, n * sizeof *tmp);
	}
	free(ord);
	free(tmp);
	return rc;
}

int gt_model_load_many(gt_model *out, const gt_trace_list *l, const gt_load_options *opt, gt_error *err)
{
	memset(out, 0, sizeof *out);
	out->rank = out->world_size = -1;
	if (!l->job)
		return l->count == 1 ? gt_model_load(out, l->paths[0], opt, err)
				     : gt_fail(err, GT_EUSAGE, "no TRACE given");
	size_t n = l->count;
	if (n > UINT32_MAX / 2)
		return gt_fail(err, GT_EINPUT, "too many files (%zu)", n);
	struct reader r;
	memset(&r, 0, sizeof r);
	r.list = l;
	r.models = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *r.models);
	r.errs = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *r.errs);
	r.rcs = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *r.rcs);
	if (!r.models || !r.errs || !r.rcs) {
		free(r.models), free(r.errs), free(r.rcs);
		return gt_fail(err, GT_EINPUT, "out of memory");
	}
	/* the threads are shared: as many files at once as threads, the rest
	 * of the threads inside each file's parse */
	unsigned threads = gt_thread_count(opt ? opt->threads : 0, UINT32_MAX);
	unsigned workers = threads < n ? threads : (unsigned)n;
	if (opt)
		r.opt = *opt;
	r.opt.threads = threads / workers;
	r.opt.progress = NULL; /* one bar for the job, not one per file */
	r.opt.progress_ctx = NULL;
	if (opt && opt->progress) {
		r.progress = opt->progress;
		r.progress_ctx = opt->progress_ctx;
		r.bytes = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *r.bytes);
		if (r.bytes) /* without it, no bar */
			size_files(&r);
	}
	pthread_mutex_init(&r.mu, NULL);
	pthread_t *tids = workers > 1 ? calloc(workers, sizeof *tids) : NULL;
	unsigned started = 0;
	while (tids && started < workers - 1 && pthread_create(&tids[started], NULL, read_files, &r) == 0)
		started++;
	read_files(&r);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	pthread_mutex_destroy(&r.mu);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (r.rcs[i] < 0) {
			*err = r.errs[i]; /* the first file in order that failed */
			rc = -1;
		}
	if (rc == 0)
		rc = order_ranks(r.models, n, err);
	if (rc == 0) {
		rc = gt_model_merge(out, r.models, (uint32_t)n, err);
		if (rc == 0) {
			size_t len = strlen(l->paths[0]) + 48;
			out->source = gt_fault_hit("alloc") ? NULL : malloc(len);
			if (out->source)
				snprintf(out->source, len, "%s (+%zu files)", l->paths[0], n - 1);
			else {
				gt_model_free(out);
				rc = gt_fail(err, GT_EINPUT, "out of memory");
			}
		}
	} else {
		for (size_t i = 0; i < n; i++)
			gt_model_free(&r.models[i]);
	}
	free(r.models), free(r.errs), free(r.rcs), free(r.bytes);
	return rc;
}
