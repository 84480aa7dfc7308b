/* svg/: the SVG picture of a viewport (svg.c) and its colours (palette.c).
 *
 * Rendering a viewport of a trace as a standalone SVG timeline.
 *
 * The spans drawn are exactly those of the viewport's candidate batches
 * (from the temporal index query) that meet the viewport: the same set as
 * `gputrace query --expand`. Each of them is drawn once, in one of two ways:
 *  - a box (<rect class="span" data-span-id=ID data-lane=L>) when its part
 *    inside the window is at least one pixel wide ((e'-s') * width >= D,
 *    where [s', e'] is the span clipped to the window [t0, t1] and
 *    D = t1 - t0 + 1). One box per lane and pixel cell of its start: if
 *    two wide spans start in the same cell of a lane (overlapping spans),
 *    the longest keeps the box (ties: lowest id) and the other is counted
 *    as density there;
 *  - otherwise it is counted in the density cell of its lane and of the
 *    pixel of its clipped start, cell(t) = floor((t - t0) * width / D).
 *    Each non-empty cell is one <rect class="density" data-lane=L
 *    data-cell=C data-density=COUNT data-span-id=REP>, whose opacity grows
 *    with the count and whose representative REP (the longest of its spans,
 *    ties: lowest id) is named in its <title> tooltip.
 * So the output has at most lanes x width span and density elements (plus
 * labels, axis ticks and the critical path), whatever the span count.
 *
 * Rows are the lanes of the lane window that hold a drawn span, in lane
 * order, labelled with process and thread names. Boxes are coloured by
 * category (gt_category_colour) and named where the name fits.
 * With a critical path (the causal one, causal.h), the spans of its points
 * that meet the viewport are outlined, and its hops that meet the time window
 * are drawn, in path order, as <line class="cp-hop"> elements over pixel
 * cells: a hop spans the cells of its ends clipped to the window (cell(t) as
 * above), on its owner's row for work, else from the row of the span it
 * leaves to the row of the span it reaches. A hop whose rows are not drawn
 * is left out (path_hops_hidden). A hop extends the previous element when
 * both run along the same row with the same kind and it starts in the cell
 * where that one ends; it is counted in an element of its own start cell
 * (up to 64 elements back) that has its kind, cells and rows; else it is a
 * new element. Each element says data-kind, data-hop (its first hop),
 * data-hops (how many it stands for), data-cells and data-lanes, so the
 * path costs a few elements per pixel column, not one per hop. Each is
 * stroked in its kind's colour (gt_path_kind_colour); a legend of the kinds
 * and the path's breakdown by kind (from the hops) sit in the bottom-left
 * corner (<g class="cp-legend">). */
#ifndef GT_SVG_H
#define GT_SVG_H

#include <stdint.h>
#include <stdio.h>

#include "base/base.h"
#include "model/model.h"
#include "causal/causal.h"
#include "tindex/tindex.h"

typedef struct gt_render_opts {
	gt_tquery q;        /* the viewport, absolute ns; lane1 may exceed lane_count */
	uint32_t width;     /* plot width in pixels */
	const char *title;  /* shown at the top; may be NULL */
	/* the causal critical path's hops, root first; NULL for none */
	const gt_causal_hop *hops;
	uint32_t hop_count;
	/* Spans are classified by up to `threads` threads (0: one per core,
	 * at most 16), each taking at least worker_spans spans (0: 1M); the
	 * picture is the same whatever the split. */
	uint32_t threads;
	uint64_t worker_spans;
} gt_render_opts;

typedef struct gt_render_stats {
	uint64_t spans;         /* spans meeting the viewport */
	uint64_t boxes;
	uint64_t density_cells;
	uint64_t labels;        /* names drawn inside boxes */
	uint32_t rows;
	uint32_t path_spans;    /* critical-path spans outlined (drawn as boxes) */
	uint32_t path_hops;     /* hops drawn */
	uint32_t path_hops_hidden; /* hops in the window whose rows are not drawn */
	uint32_t path_elements; /* <line> elements they were drawn as */
} gt_render_stats;

/* Stable colours (palette.c): a category's fill, the same in every
 * picture (Paul Tol's colour-blind-safe "light" scheme: fixed places for the
 * common Kineto and Chrome categories, a hash of the name for others), and
 * the critical path's stroke per hop kind (dark colours no category uses). */
const char *gt_category_colour(const char *cat);
const char *gt_path_kind_colour(int kind); /* enum gt_causal_kind */
#define GT_PATH_COLOUR "#882255"           /* work hops, outlines of path spans */

/* Writes the SVG for the candidate batches cand[0..ncand) of ix (in
 * canonical order, as a query returned them). Write errors are the
 * caller's to detect (ferror / commit). */
int gt_render_svg(FILE *out, const gt_model *m, const gt_tindex *ix, const uint32_t *cand, uint64_t ncand,
		  const gt_render_opts *o, gt_render_stats *st, gt_error *err);

#endif
