/* The two graph steps of the causal critical path (causal.h) over a
 * dependency DAG of time points, in plain arrays so that the device versions
 * (below, cpm_cl.c with kernels/cpm.cl) can equal these host references byte for byte:
 *
 *   binding  each point takes as its critical predecessor the incoming edge
 *            whose source is latest in time; the result is a forest over the
 *            points, weighted by the gap, that forest/ then walks;
 *   float    CPM latest times: how late each point could happen without the
 *            window ending later.
 *
 * The graph. Points 0..n-1, each with a time in ns. Points are grouped in
 * chains (one per track): chain[] lists every point exactly once, track
 * after track, each track's points in chain order (time order, ties in the
 * causal model's order); chain_start[k]..chain_start[k+1] is track k. Times
 * never decrease along a chain. Consecutive points of a chain are joined by
 * a chain edge; its gap is *work* (work[i] = 1 for the edge from chain[i] to
 * chain[i+1]) or *idle* (0). Cross edges (flow or wait) join any two
 * points, src -> dst, with time[src] <= time[dst] (the caller drops backward
 * edges). Several cross edges may share a target; no cross edge joins a
 * point to itself.
 *
 * Binding, for each point v: among its incoming edges (the chain edge from
 * its chain predecessor, and the cross edges into it), the one whose source
 * time is latest; ties: chain before flow before wait, then the lowest
 * source point id. parent[v] = that source (GT_CP_ROOT when v has no
 * incoming edge), gap[v] = time[v] - time[parent] (0 for a root),
 * kind[v] = the edge's GT_CPM_EDGE_* (GT_CPM_EDGE_NONE for a root), and
 * edge[v] = the cross edge's index in the input (GT_CP_NONE for chain
 * edges and roots). A zero-gap cycle in the result is possible; forest/
 * flags it.
 *
 * Float. T(v) = horizon_of_chain[k] for v on chain k, or horizon for
 * every point when horizon_of_chain is NULL (several windows' graphs in
 * one disjoint union each keep their own T). lag(e) = the gap for work
 * chain edges, 0 for idle chain edges and for cross edges. LT(v) = the
 * min of T(v) and, over v's outgoing edges v -> w, LT(w) - lag(e). (With
 * one T that is the usual rule: T when v has no outgoing edge, else the
 * min over them.) Where zero-gap edges form a cycle LT is the greatest
 * fixed point (the largest LT satisfying every edge and LT(v) <= T(v)).
 * LT(v) >= time[v] whenever every T is >= every time. */
#ifndef GT_CPM_H
#define GT_CPM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "cl/cl.h"
#include "forest/forest.h"

enum gt_cpm_edge {
	GT_CPM_EDGE_NONE = 0,
	GT_CPM_EDGE_CHAIN = 1,
	GT_CPM_EDGE_FLOW = 2,
	GT_CPM_EDGE_WAIT = 3,
};

typedef struct gt_cpm_graph {
	uint32_t n;                  /* points */
	const int64_t *time;         /* n */
	uint32_t tracks;
	const uint32_t *chain;       /* n point ids, track after track */
	const uint32_t *chain_start; /* tracks + 1 offsets into chain */
	const uint8_t *work;         /* n, by chain position: 1 work, 0 idle */
	uint32_t m;                  /* cross edges */
	const uint32_t *edge_src;    /* m */
	const uint32_t *edge_dst;    /* m */
	const uint8_t *edge_kind;    /* m: GT_CPM_EDGE_FLOW or GT_CPM_EDGE_WAIT */
	int64_t horizon;             /* T, where horizon_of_chain is NULL */
	const int64_t *horizon_of_chain; /* NULL, or tracks entries: T per chain */
} gt_cpm_graph;

/* What a step that has read the graph's chains and cross edges (chain,
 * work, edge_src, edge_dst) for the last time tells its caller: read(arg)
 * may free them (and clear them from the graph) before the step's results
 * land in the caller's arrays, and may make those arrays only then (a
 * whole trace peaks there): -1, with its error set, where it cannot. */
typedef struct gt_cpm_read_hook {
	int (*read)(void *arg);
	void *arg;
} gt_cpm_read_hook;

/* T of chain k. */
static inline int64_t gt_cpm_horizon(const gt_cpm_graph *g, uint32_t k)
{
	return g->horizon_of_chain ? g->horizon_of_chain[k] : g->horizon;
}

/* Caller-owned binding output, n elements each. */
typedef struct gt_cpm_binding {
	uint32_t *parent;
	int64_t *gap;
	uint8_t *kind;
	uint32_t *edge;
} gt_cpm_binding;

/* Figures of a float computation (host: rounds is 1). */
typedef struct gt_cpm_float_stats {
	uint32_t rounds; /* device: scan + relaxation rounds until nothing changed, every run's */
	uint32_t cuts;   /* device, in pieces (cpm_float_plan.h): the cuts; 0: one piece */
	uint32_t width;  /* and the largest frontier */
} gt_cpm_float_stats;

/* Checks the graph's shape (chain a permutation, chain_start monotone,
 * times non-decreasing along chains, work flags 0 or 1, times spanning at
 * most 2^62 ns, cross edges in range, not to themselves, not backward, of
 * kind flow or wait): GT_EINPUT with the first problem. n = 0 with NULL
 * arrays is a valid empty graph. Both steps call it. */
int gt_cpm_check(const gt_cpm_graph *g, gt_error *err);
/* gt_cpm_check, plus the range float needs so that no intermediate value
 * of the host or device computation overflows: times span at most 2^62 ns
 * (gt_cpm_check asks that of both steps) and every T (horizon, or each
 * horizon_of_chain entry of a chain with points) >= INT64_MIN + 2 * span.
 * The float steps call it. */
int gt_cpm_check_float(const gt_cpm_graph *g, gt_error *err);

int gt_cpm_bind_host(const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err);
/* lt: n elements, caller-owned; stats may be NULL. */
int gt_cpm_float_host(const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err);
/* Of gt_cpm_check_float (or, floats false, gt_cpm_check) only what costs
 * O(tracks): arrays there, chain_start in shape, the span of the times and
 * (floats) every T in range. For a caller whose graphs are in shape by
 * construction (chains a time-ordered permutation, work flags 0 or 1,
 * cross edges forward in time): the causal driver, whose tests hold its
 * graphs to gt_cpm_check. Where the rest holds, it fails exactly where
 * the full check does, with the same message. */
int gt_cpm_check_range(const gt_cpm_graph *g, bool floats, gt_error *err);

/* The steps without their checks, for a caller that has checked g once
 * for both (the full check is a pass over every point, as long as binding
 * itself). The binding's gap may be NULL: not written (it is
 * time[v] - time[parent[v]]). */
int gt_cpm_bind_host_checked(const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err);
/* The same on threads threads: the chain pass in ranges of chain
 * positions (chain is a permutation of the points: causal_graph builds it
 * so), and the cross edges with each thread reading every edge and
 * binding those into its own range of points. The same binding, for a
 * graph of millions of edges. */
int gt_cpm_bind_host_threads(const gt_cpm_graph *g, gt_cpm_binding *out, unsigned threads, gt_error *err);
int gt_cpm_float_host_checked(const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *stats, gt_error *err);

/* Binding and CPM latest times on an OpenCL device (the contract above;
 * the host references are the oracle these results equal byte for byte). */

/* Device-side figures of the last OpenCL run (for benchmarks). */
typedef struct gt_cpm_cl_stats {
	uint64_t kernel_ns;   /* sum of the kernel events' device time */
	uint32_t launches;    /* kernel launches enqueued */
	uint64_t bytes_moved; /* bytes the kernels read and wrote, by their
	                       * access pattern */
} gt_cpm_cl_stats;

/* The OpenCL implementations on cl's device; stats and fs may be NULL.
 * Input errors as the host references (GT_EINPUT); GT_EDEVICE on any
 * OpenCL error or when the buffers exceed the device. */
int gt_cpm_bind_cl(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_cpm_cl_stats *stats,
		   gt_error *err);
int gt_cpm_float_cl(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs,
		    gt_cpm_cl_stats *stats, gt_error *err);

/* The device path when cl is non-NULL, else the host reference. */
int gt_cpm_bind_run(gt_cl *cl, const gt_cpm_graph *g, gt_cpm_binding *out, gt_error *err);
int gt_cpm_float_run(gt_cl *cl, const gt_cpm_graph *g, int64_t *lt, gt_cpm_float_stats *fs, gt_error *err);

#endif
