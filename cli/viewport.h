/* Parsing viewport arguments of `gputrace query`: time windows with units,
 * lane windows and renderer-group selections. */
#ifndef GT_CLI_VIEWPORT_H
#define GT_CLI_VIEWPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* "A:B" with optional ns/us/ms/s suffixes (default us; a start without a
 * unit takes the end's), e.g. "100:250ms", "1.5ms:2ms". Exact: a value
 * finer than 1 ns is an error. Returns 0, or -1 with a reason in why. */
int gt_parse_time_window(const char *s, int64_t *a_ns, int64_t *b_ns, const char **why);
/* The same, also taking absolute windows: "@A:B" with A and B as `spans`
 * prints ts_us (times on the trace's clock; the same units rule), or
 * "@A:+D", D after A (A without a unit in us); *absolute says which. gt_parse_time_window refuses
 * absolute ones (for callers without a trace). */
int gt_parse_time_window_ex(const char *s, int64_t *a_ns, int64_t *b_ns, bool *absolute, const char **why);
/* A window (either kind) as absolute times t0, t1 of a trace whose first
 * span starts at start_ns. */
int gt_time_window_resolve(const char *s, int64_t start_ns, int64_t *t0, int64_t *t1, const char **why);
/* A duration >= 0 with the same units (default us): "5us", "2.5ms", "0". */
int gt_parse_duration(const char *s, int64_t *ns, const char **why);
/* "L0:L1" (half-open); an empty side means 0 or no limit. */
int gt_parse_lane_window(const char *s, uint32_t *l0, uint32_t *l1, const char **why);
/* A 32-bit mask (decimal or 0x hex) or comma-separated group names of m. */
int gt_parse_groups(const char *s, const gt_model *m, uint32_t *mask, const char **why);

#endif
