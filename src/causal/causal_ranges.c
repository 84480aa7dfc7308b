/* Passes over every span or flow, in ranges on threads, whose results are
 * the same bytes on any number of threads (causal_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "causal_internal.h"

/* Items per thread at least: below it a thread costs more than it gives.
 * GPUTRACE_CAUSAL_RANGE sets it (tests: small traces on threads). */
uint32_t causal_range_min(void)
{
	static uint32_t min;
	uint32_t v = __atomic_load_n(&min, __ATOMIC_RELAXED);
	if (!v) {
		const char *s = getenv("GPUTRACE_CAUSAL_RANGE");
		long n = s ? strtol(s, NULL, 10) : 0;
		v = n > 0 && n <= (1L << 30) ? (uint32_t)n : 65536;
		__atomic_store_n(&min, v, __ATOMIC_RELAXED);
	}
	return v;
}

uint32_t causal_range_min_small(void)
{
	uint32_t per = causal_range_min() / 16;
	return per ? per : 1;
}

uint64_t causal_batch_points(void)
{
	static uint64_t points;
	uint64_t v = __atomic_load_n(&points, __ATOMIC_RELAXED);
	if (!v) {
		const char *s = getenv("GPUTRACE_CAUSAL_BATCH");
		long long n = s ? strtoll(s, NULL, 10) : 0;
		v = n > 0 ? (uint64_t)n : UINT64_MAX;
		__atomic_store_n(&points, v, __ATOMIC_RELAXED);
	}
	return v == UINT64_MAX ? 0 : v;
}

unsigned causal_range_jobs(uint64_t n, unsigned threads)
{
	uint64_t by_size = n / causal_range_min();
	unsigned k = threads < GT_MAX_JOBS ? threads : GT_MAX_JOBS;
	return by_size < 1 ? 1 : by_size < k ? (unsigned)by_size : k ? k : 1;
}

typedef struct select_job {
	GT_JOB_ALIGNED bool (*keep)(void *ctx, uint32_t i);
	void *ctx;
	uint32_t begin, end;
	uint32_t count, cap;
	uint32_t *ids; /* this range's kept ids, in order; NULL out of memory */
	bool oom;
	uint32_t *out; /* where they go in the joined list */
} select_job;

/* One pass: the kept ids into an array of the range's own (the kept are
 * usually few: the steps of a trace, a window's device spans). */
static void *select_range(void *arg)
{
	select_job *j = arg;
	uint32_t count = 0, cap = 0, *ids = NULL; /* in registers, not the record */
	for (uint32_t i = j->begin; i < j->end; i++) {
		if (!j->keep(j->ctx, i))
			continue;
		if (count == cap) {
			size_t c = cap ? 2 * (size_t)cap : 1024;
			c = c > UINT32_MAX ? UINT32_MAX : c;
			uint32_t *grown = c == cap || gt_fault_hit("alloc") ? NULL : realloc(ids, c * sizeof *grown);
			if (!grown) {
				j->oom = true;
				break;
			}
			ids = grown, cap = (uint32_t)c;
		}
		ids[count++] = i;
	}
	j->ids = ids, j->count = count, j->cap = cap;
	return NULL;
}

/* A range's kept ids into their place in the joined list (a window's
 * spans are tens of megabytes: the copy, and its fresh pages, on threads). */
static void *join_range(void *arg)
{
	select_job *j = arg;
	if (j->out && j->count)
		memcpy(j->out, j->ids, (size_t)j->count * sizeof *j->ids);
	free(j->ids);
	return NULL;
}

int causal_select(uint32_t n, unsigned threads, bool (*keep)(void *ctx, uint32_t i), void *ctx, uint32_t **out,
		  uint32_t *count)
{
	unsigned k = causal_range_jobs(n, threads);
	select_job jobs[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (select_job){keep, ctx, (uint32_t)((uint64_t)n * j / k), (uint32_t)((uint64_t)n * (j + 1) / k),
				       0, 0, NULL, false, NULL};
	gt_run_jobs(select_range, jobs, sizeof *jobs, k);
	uint32_t total = 0;
	bool oom = false;
	for (unsigned j = 0; j < k; j++)
		total += jobs[j].count, oom |= jobs[j].oom;
	*count = total;
	*out = oom ? NULL : gt_big_malloc(total, sizeof **out);
	for (unsigned j = 0, at = 0; j < k; j++) {
		jobs[j].out = *out ? *out + at : NULL;
		at += jobs[j].count;
	}
	gt_run_jobs(join_range, jobs, sizeof *jobs, k);
	return *out ? 0 : -1;
}

typedef struct bucket_job {
	GT_JOB_ALIGNED const uint32_t *key; /* this job's keys, key[0 .. end - begin) */
	const uint32_t *val; /* the items' values; NULL: their indices, begin + i */
	uint32_t buckets;
	uint32_t begin, end;
	uint32_t *fill; /* buckets: counts, then where this job's next item goes */
	uint32_t *items; /* NULL: count only */
} bucket_job;

static void *bucket_range(void *arg)
{
	bucket_job *j = arg;
	uint32_t n = j->end - j->begin;
	if (!j->items) {
		memset(j->fill, 0, (size_t)j->buckets * sizeof *j->fill); /* its own lines, on its thread */
		for (uint32_t i = 0; i < n; i++)
			if (j->key[i] != GT_NONE)
				j->fill[j->key[i]]++;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		if (j->key[i] != GT_NONE)
			j->items[j->fill[j->key[i]]++] = j->val ? j->val[i] : j->begin + i;
	return NULL;
}

/* The jobs' counts to where each job's items of a bucket go, buckets
 * [a, b): first the buckets' totals (first[b]), then, once those are
 * summed, the places. Many buckets (a step each) on threads. */
typedef struct bucket_sums {
	bucket_job *jobs;
	unsigned k;
	uint32_t *first;
	bool place;
} bucket_sums;

static int sum_buckets(void *ctx, uint64_t a, uint64_t b)
{
	const bucket_sums *s = ctx;
	for (uint64_t x = a; x < b; x++) {
		uint32_t at = s->first[x];
		for (unsigned j = 0; j < s->k; j++) {
			uint32_t c = s->jobs[j].fill[x];
			if (s->place)
				s->jobs[j].fill[x] = at;
			at += c;
		}
		if (!s->place)
			s->first[x] = at; /* the bucket's total, summed below */
	}
	return 0;
}

/* The counting sort of k jobs' items (key, begin, end, val set), the jobs
 * in the items' order. */
static int bucket_jobs(bucket_job *jobs, unsigned k, uint32_t buckets, unsigned threads, uint32_t **first,
		       uint32_t **items)
{
	*items = NULL;
	*first = gt_big_malloc((size_t)buckets + 1, sizeof **first);
	/* each job's counts in lines of their own: a few buckets (tracks)
	 * counted by every thread would share their lines */
	size_t stride = ((size_t)buckets + 15) & ~(size_t)15;
	uint32_t *fill = gt_big_malloc((size_t)k * stride + 16, sizeof *fill);
	if (!*first || !fill) {
		gt_big_free(fill);
		return -1;
	}
	uint32_t *lines = (uint32_t *)(((uintptr_t)fill + 63) & ~(uintptr_t)63);
	for (unsigned j = 0; j < k; j++)
		jobs[j].buckets = buckets, jobs[j].fill = lines + (size_t)j * stride, jobs[j].items = NULL;
	gt_run_jobs(bucket_range, jobs, sizeof *jobs, k);
	/* bucket by bucket, job after job: each job's items follow the
	 * earlier jobs', so every bucket holds its items in order */
	bucket_sums sums = {jobs, k, *first, false};
	memset(*first, 0, ((size_t)buckets + 1) * sizeof **first);
	gt_parallel_ranges(buckets, causal_range_min_small(), threads, sum_buckets, &sums);
	uint32_t total = 0;
	for (uint32_t b = 0; b < buckets; b++) {
		uint32_t c = (*first)[b];
		(*first)[b] = total;
		total += c;
	}
	(*first)[buckets] = total;
	sums.place = true;
	gt_parallel_ranges(buckets, causal_range_min_small(), threads, sum_buckets, &sums);
	*items = gt_big_malloc(total, sizeof **items);
	if (!*items) {
		gt_big_free(fill);
		return -1;
	}
	for (unsigned j = 0; j < k; j++)
		jobs[j].items = *items;
	gt_run_jobs(bucket_range, jobs, sizeof *jobs, k);
	gt_big_free(fill);
	return 0;
}

int causal_bucket(uint32_t n, const uint32_t *key, uint32_t buckets, unsigned threads, uint32_t **first,
		  uint32_t **items)
{
	unsigned k = causal_range_jobs(n, threads);
	while (k > 1 && (uint64_t)k * buckets > n) /* each range has counts for every bucket */
		k--;
	bucket_job jobs[GT_MAX_JOBS];
	for (unsigned j = 0; j < k; j++) {
		uint32_t begin = (uint32_t)((uint64_t)n * j / k), end = (uint32_t)((uint64_t)n * (j + 1) / k);
		jobs[j] = (bucket_job){.key = key + begin, .begin = begin, .end = end};
	}
	return bucket_jobs(jobs, k, buckets, threads, first, items);
}

int causal_bucket_parts(const causal_device_part *parts, unsigned k, uint32_t buckets, unsigned threads,
			uint32_t **first, uint32_t **items)
{
	bucket_job jobs[GT_MAX_JOBS] = {{0}}; /* no part: one job of no items */
	for (unsigned j = 0; j < k; j++)
		jobs[j] = (bucket_job){.key = parts[j].tracks, .val = parts[j].ids, .begin = 0, .end = parts[j].n};
	return bucket_jobs(jobs, k ? k : 1, buckets, threads, first, items);
}
