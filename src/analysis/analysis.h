/* analysis/: the host references of every analysis, in plain C. They read
 * the span model (or plain arrays) and fill caller-owned results; the
 * OpenCL versions in cl/ must equal them byte for byte.
 *   critpath.h  the exact duration-weighted path over a parent forest
 *   cpm.h       binding and CPM latest times over a dependency DAG of points
 *   causal.h    the causal critical path: what bounds a window's wall time
 *   tindex.h    batch summaries, the temporal hierarchy, viewport queries
 *   compare.h   per-key and critical-path differences, --fail-if conditions
 *   collective.h  collectives matched across ranks, stragglers
 * May use: model/, base/. Never ingest/, cl/ or formats/. */
#ifndef GT_ANALYSIS_H
#define GT_ANALYSIS_H

#include "critpath.h"
#include "cpm.h"
#include "causal.h"
#include "tindex.h"
#include "compare.h"
#include "collective.h"

#endif
