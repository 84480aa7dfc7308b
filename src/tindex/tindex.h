/* tindex/: the temporal index. Host reference: tindex.c (build, validate),
 * tindex_query.c and tindex_reach.c (queries); device half: tindex_cl.c
 * with kernels/tindex.cl, at the end of this header.
 *
 * Spans packed into leaf batches, a persistent hierarchy
 * of coarser nodes over them, and viewport candidate queries (time window x
 * lane window x renderer-group mask x level -> candidate batch ids in
 * canonical batch order).
 *
 * Batching. Spans are cut by source position into epochs of epoch_spans
 * spans; inside an epoch they are sorted by (group, lane band, start, id)
 * and cut into batches of at most batch_spans spans, a new batch starting
 * whenever the (group, lane band) key changes. Canonical batch order is
 * (epoch, group, band, start). Why:
 *  - one group and one narrow lane band per batch keep the lane and group
 *    tests sharp, and start order inside a band keeps a batch's time range
 *    tight (its spans are neighbours on the same lanes), which is what keeps
 *    false positives low (measured by bench/bench_tindex.c);
 *  - consecutive batches of one (group, band) have adjacent time ranges, so
 *    the coarse nodes built over them stay narrow too;
 *  - epochs follow source order, so events appended to a trace only change
 *    the last epoch's batches: `pack --update` then rebuilds only the tail
 *    partitions, and the ids of earlier batches never move.
 * Measured (bench/bench_tindex, 1M synthetic Kineto-like spans, 304 lanes,
 * 41 pan/zoom queries, batch_spans 64): false-positive batches over all
 * queries / true batches = 903 / 93337 with 1-lane bands, 505 / 90139 with
 * 4-lane bands, 142 / 87137 with 16-lane bands; the worst single query is
 * about 0.26 false per true batch in all three. Wider bands pack spans of
 * neighbouring lanes, so a batch covers a shorter time and all-lane windows
 * meet fewer batches, but a narrow lane window that straddles bands pays
 * for whole bands (an 8-lane window: 31 candidates with 1- or 4-lane bands,
 * 71 with 16). The default band of 4 lanes takes most of the gain and keeps
 * narrow lane windows sharp.
 *
 * Hierarchy. Level 0 is the batches. A node of level L >= 1 owns up to
 * fanout^L consecutive batches of one group run inside one partition
 * (partition = partition_batches consecutive batches), so nodes never cross
 * a renderer-group or partition boundary, and a node's leaf range is at
 * most partition_batches long. The coarsest level has one node per group
 * run per partition. Nodes of a level are stored in batch order.
 *
 * Queries test the chosen level's nodes inside the query's reach (below),
 * expand matching nodes into their
 * batches and test those again, so the candidate set is the same at every
 * level (a coarse level costs more leaf tests, never more candidates); the
 * level only changes the work done. */
#ifndef GT_TINDEX_H
#define GT_TINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "cl/cl.h"
#include "model/model.h"

#define GT_TINDEX_MAX_LEVELS 12

/* One summary record, 40 bytes, the same layout on host, device and disk.
 * Batches: first/count index the span order array. Nodes: first/count
 * index batches. */
typedef struct gt_tnode {
	int64_t min_start;  /* exact ns */
	int64_t max_end;    /* exact ns, saturated ts + dur */
	uint32_t first;
	uint32_t count;
	uint32_t min_lane;
	uint32_t max_lane;  /* inclusive */
	uint32_t group;
	uint32_t partition; /* the partition the range belongs to */
} gt_tnode;

typedef struct gt_tlevel {
	uint64_t first_node;    /* into nodes[] (levels >= 1) */
	uint32_t node_count;
	uint32_t max_leaves;    /* most batches a node of this level owns */
	int64_t mean_extent_ns; /* mean max_end - min_start, for --level auto */
} gt_tlevel;

typedef struct gt_tindex_params {
	uint32_t batch_spans;       /* at most this many spans per batch */
	uint32_t partition_batches; /* batches per partition */
	uint32_t fanout;            /* hierarchy fan-out */
	uint32_t lane_band;         /* lanes per band (default 4) */
	uint32_t epoch_spans;       /* spans per source epoch */
} gt_tindex_params;

typedef struct gt_tindex {
	gt_tindex_params p;
	uint32_t span_count;
	uint32_t batch_count;
	uint32_t partition_count;
	uint32_t level_count; /* level 0 included */
	gt_tlevel levels[GT_TINDEX_MAX_LEVELS];
	gt_tnode *batches;  /* batch_count */
	uint32_t *order;    /* span_count span ids, batch after batch */
	gt_tnode *nodes;    /* node_count, level 1 first */
	uint64_t node_count;
	uint32_t *dirty;    /* partition_count dirty words (0 when clean) */
	bool borrowed;      /* arrays are views into a mapped file */
} gt_tindex;

void gt_tindex_default_params(gt_tindex_params *p);
/* Checks the parameters (GT_EUSAGE on a bad value). */
int gt_tindex_check_params(const gt_tindex_params *p, gt_error *err);

int gt_tindex_build(gt_tindex *ix, const gt_model *m, const gt_tindex_params *p, gt_error *err);
/* Rebuilds ix for m, keeping old's hierarchy nodes for every partition
 * whose batches did not change: only dirty partitions are rebuilt, at every
 * level. *rebuilt receives how many were. The result equals
 * gt_tindex_build's. */
int gt_tindex_update(gt_tindex *ix, const gt_tindex *old, const gt_model *m, uint32_t *rebuilt,
		     gt_error *err);
void gt_tindex_free(gt_tindex *ix);

/* Bytes of the index proper (batches, order, nodes, dirty words). */
uint64_t gt_tindex_bytes(const gt_tindex *ix);

static inline int64_t gt_span_end(const gt_span *s)
{
	int64_t e;
	if (__builtin_add_overflow(s->ts_ns, s->dur_ns, &e))
		e = s->dur_ns > 0 ? INT64_MAX : INT64_MIN;
	return e < s->ts_ns ? s->ts_ns : e;
}

/* A viewport. Times are absolute ns, closed; lanes half-open. */
typedef struct gt_tquery {
	int64_t t0, t1;
	uint32_t lane0, lane1;
	uint32_t groups; /* bit g enables group g */
	uint32_t level;
} gt_tquery;

typedef struct gt_tresult {
	uint32_t *candidates;   /* caller-owned, capacity entries */
	uint64_t capacity;
	uint64_t count;         /* true candidate count */
	bool overflow;          /* count > capacity: candidates holds the ordered prefix */
	uint64_t nodes_tested;  /* nodes of the chosen level in the query's reach */
	uint64_t leaves_tested; /* batches of matching nodes tested again (level >= 1) */
} gt_tresult;

static inline bool gt_tnode_meets(const gt_tnode *n, const gt_tquery *q)
{
	return n->min_start <= q->t1 && n->max_end >= q->t0 && n->min_lane < q->lane1 &&
	       n->max_lane >= q->lane0 && n->group < 32 && ((q->groups >> n->group) & 1u);
}

static inline bool gt_span_meets(const gt_span *s, const gt_tquery *q)
{
	return s->ts_ns <= q->t1 && gt_span_end(s) >= q->t0 && s->lane >= q->lane0 && s->lane < q->lane1 &&
	       s->group < 32 && ((q->groups >> s->group) & 1u);
}

/* The host reference query. It tests the nodes of the chosen level inside
 * the query's reach (gt_tindex_reach); nodes_tested counts those. */
int gt_tindex_query(const gt_tindex *ix, const gt_tquery *q, gt_tresult *r, gt_error *err);

/* A query's reach: the run of the chosen level's records that can hold a
 * candidate. Batch order follows source epochs, and a trace is written
 * roughly in time order, so a narrow window meets the coarsest level's
 * nodes of a few epochs only. The reach is the batches from the first to
 * the last coarsest-level node meeting q (every batch meeting q lies under
 * a node meeting q), widened to whole records of the chosen level. The
 * candidates are unchanged; a narrow window tests a small slice of the
 * level instead of all of it.
 *
 * The directory summarises runs of coarsest-level nodes so that finding
 * the first and last meeting node skips the runs that cannot meet q; a
 * reach found with it equals the reach found by scanning the nodes. */
typedef struct gt_treach_block {
	int64_t min_start, max_end;
	uint32_t min_lane, max_lane; /* max inclusive */
	uint32_t groups;             /* bit g: a node of group g < 32 is in the run */
	uint32_t pad;
} gt_treach_block;

typedef struct gt_treach_dir {
	uint64_t nodes;         /* coarsest-level records summarised */
	uint32_t block_nodes;   /* records per block */
	uint64_t block_count;
	gt_treach_block *blocks;
} gt_treach_dir;

int gt_treach_dir_build(gt_treach_dir *d, const gt_tindex *ix, gt_error *err);
void gt_treach_dir_free(gt_treach_dir *d);
/* The reach of q at level q->level (which must exist) as records [*lo, *hi)
 * of that level: batches at level 0, else the level's nodes. dir may be
 * NULL (a scan of the coarsest level then). */
void gt_tindex_reach(const gt_tindex *ix, const gt_treach_dir *dir, const gt_tquery *q, uint64_t *lo,
		     uint64_t *hi);

/* --level auto: the level with the least estimated work for a window of
 * this width. The width is first rounded up to a power of two nanoseconds,
 * so the choice only changes at fixed trace-time boundaries (panning never
 * changes it). */
uint32_t gt_tindex_auto_level(const gt_tindex *ix, int64_t width_ns, int64_t trace_ns);

/* Candidate batches holding no span that meets q. */
uint64_t gt_tindex_false_positives(const gt_tindex *ix, const gt_model *m, const gt_tquery *q,
				   const uint32_t *cand, uint64_t n);
/* Ids of the spans of the candidates meeting q, ascending, into a malloc'd
 * array (*out, *n). */
int gt_tindex_expand(const gt_tindex *ix, const gt_model *m, const gt_tquery *q, const uint32_t *cand,
		     uint64_t ncand, uint32_t **out, uint64_t *n, gt_error *err);

/* Validation bits per hierarchy record (level 0 records are the batches). */
enum {
	GT_TV_LEAF_RANGE = 1,  /* invalid leaf (or span) range */
	GT_TV_PARTITION = 2,   /* range crossing its partition */
	GT_TV_GROUP = 4,       /* node crossing a renderer-group boundary */
	GT_TV_BOUNDS = 8,      /* summary narrower than what it owns */
};
/* Total records: batches + nodes. Record r < batch_count is batch r, else
 * node r - batch_count. */
static inline uint64_t gt_tindex_records(const gt_tindex *ix)
{
	return (uint64_t)ix->batch_count + ix->node_count;
}
/* Writes bits per record into bits[] (may be NULL) and returns the OR of
 * all of them in *all, the number of records with bits in *bad. m may be
 * NULL (then the span checks of batches are skipped). */
void gt_tindex_validate(const gt_tindex *ix, const gt_model *m, uint8_t *bits, uint32_t *all, uint64_t *bad);
/* Also checks the level table and the array sizes (structure the record
 * checks rely on); -1 with a message when they are inconsistent. */
int gt_tindex_check_structure(const gt_tindex *ix, gt_error *err);

/* Names the set bits: "invalid leaf range, node crossing a renderer-group
 * boundary". */
void gt_tindex_bits_str(uint32_t bits, char *buf, size_t len);

/* The temporal index on an OpenCL device: the index is uploaded once and
 * stays resident; each query is two launches on the device (count with
 * the group sums scanned by the last group, then compact) and reads back
 * only its results. Results are identical to the
 * host reference (gt_tindex_query, gt_tindex_validate). */

typedef struct gt_tindex_cl gt_tindex_cl;

int gt_tindex_cl_open(gt_tindex_cl **out, gt_cl *cl, const gt_tindex *ix, gt_error *err);
void gt_tindex_cl_close(gt_tindex_cl *d); /* accepts NULL */

/* Runs q; r->candidates receives the ordered prefix of at most
 * r->capacity candidates. kernel_ns (may be NULL) receives the summed
 * device time of the query's kernels. */
int gt_tindex_cl_query(gt_tindex_cl *d, const gt_tquery *q, gt_tresult *r, uint64_t *kernel_ns, gt_error *err);

/* Validation bits per record, as gt_tindex_validate (m may be NULL). */
int gt_tindex_cl_validate(gt_tindex_cl *d, const gt_model *m, uint8_t *bits, uint32_t *all, uint64_t *bad,
			  gt_error *err);

/* The brute-force baseline: the span table on the device, scanned whole
 * per query; *count receives the number of spans meeting q. */
typedef struct gt_spanscan_cl gt_spanscan_cl;
int gt_spanscan_cl_open(gt_spanscan_cl **out, gt_cl *cl, const gt_model *m, gt_error *err);
void gt_spanscan_cl_close(gt_spanscan_cl *s);
int gt_spanscan_cl_query(gt_spanscan_cl *s, const gt_tquery *q, uint64_t *count, uint64_t *kernel_ns,
			 gt_error *err);
/* The plainest brute force: one work-item per span marks it, a global
 * count sums the hits. */
int gt_spanscan_cl_mark(gt_spanscan_cl *s, const gt_tquery *q, uint64_t *count, uint64_t *kernel_ns,
			gt_error *err);

#endif
