/* Comparing two traces: per-key statistics of each side, their differences,
 * and --fail-if conditions evaluated exactly over them.
 *
 * Definitions (all exact; times are int64 nanoseconds):
 *  - key: the span's name, category or renderer group name (--by).
 *  - count, dur_ns: spans of the key and the sum of their durations.
 *  - self_ns: the sum over the key's spans of duration minus the durations
 *    of its nesting children (spans whose parent is it, not through a flow:
 *    a flow-parented child runs concurrently, e.g. a GPU kernel under the
 *    runtime call that launched it, so it does not take time from its
 *    parent). Negative only if children overlap their parent.
 *  - p50_ns, p95_ns, max_ns: nearest-rank percentiles of the key's
 *    durations: with n sorted durations d[1..n], pP = d[ceil(P*n/100)].
 *    A key without spans has none (null).
 *  - cp_count, cp_ns: spans of the key on the critical path and their time
 *    on it: for the causal path (causal.h, the default) a span's work hops
 *    on the path; for the forest path (critpath.h) the marked spans' whole
 *    durations. cp_share = cp_ns / the critical path's duration (null when
 *    that is 0).
 *  - Totals: spans (span count), dur_ns (trace duration: last span end -
 *    first span start) and critical_path_ns (the path's duration).
 *
 * A change is {base, new, abs = new - base, rel = abs / base}. abs is null
 * when either side is null; rel is null when abs is null or base is 0.
 * Ratios (rel, cp_share and its changes) are exact rationals; they are
 * printed rounded to 6 decimals, half away from zero, but conditions compare
 * the exact values. */
#ifndef GT_COMPARE_H
#define GT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "critpath.h"
#include "base/base.h"
#include "model/model.h"

enum gt_cmp_by { GT_BY_NAME = 0, GT_BY_CAT, GT_BY_GROUP };

/* A rational num/den with den > 0; den == 0 means null. */
typedef struct gt_rat {
	__int128 num;
	__int128 den;
} gt_rat;

/* Exact comparison of two non-null rationals: -1, 0 or 1. */
int gt_rat_cmp(gt_rat a, gt_rat b);
/* Rounded to `decimals` places (<= 18), half away from zero, into buf
 * (64 bytes); "null" for a null rational. */
void gt_rat_format(gt_rat r, int decimals, char *buf, size_t len);

/* Statistics of one key on one side. */
typedef struct gt_key_stats {
	uint64_t count;
	int64_t dur_ns, self_ns;
	int64_t p50_ns, p95_ns, max_ns; /* valid when count > 0 */
	uint64_t cp_count;
	int64_t cp_ns;
} gt_key_stats;

/* The per-key fields, in table order. */
enum gt_cmp_field {
	GT_F_COUNT = 0, GT_F_DUR, GT_F_SELF, GT_F_P50, GT_F_P95, GT_F_MAX, GT_F_CP_COUNT, GT_F_CP_NS,
	GT_F_CP_SHARE, GT_F_KEY_COUNT,
	/* totals */
	GT_F_SPANS = GT_F_KEY_COUNT, GT_F_TRACE_DUR, GT_F_CRITICAL_PATH, GT_F_ALL_COUNT
};
extern const char *const gt_cmp_field_names[GT_F_ALL_COUNT];
/* Whether a field is a time (ns), a count, or a ratio. */
enum gt_cmp_kind { GT_KIND_COUNT = 0, GT_KIND_TIME, GT_KIND_RATIO };
int gt_cmp_field_kind(int field);

enum gt_cmp_change { GT_C_BASE = 0, GT_C_NEW, GT_C_ABS, GT_C_REL, GT_C_COUNT };
extern const char *const gt_cmp_change_names[GT_C_COUNT];

/* One side's summary. */
typedef struct gt_cmp_side {
	uint64_t spans;
	int64_t trace_ns;
	int64_t cp_ns;
	uint32_t cp_flags; /* GT_CP_* of the critical-path run */
	uint32_t cp_rows;
} gt_cmp_side;

typedef struct gt_cmp_key {
	const char *key;   /* owned by the result */
	gt_key_stats s[2]; /* base, new; a side without the key has count 0 */
	bool on_cp[2];
} gt_cmp_key;

typedef struct gt_compare {
	int by;
	gt_cmp_side side[2];
	gt_cmp_key *keys; /* sorted by |dur_ns abs| descending, then key bytes */
	size_t key_count;
	char *key_text;   /* storage of the key strings */
} gt_compare;

/* Critical-path results of one side: the causal path (causal.h) or the
 * forest path (critpath.h). */
typedef struct gt_cmp_cp {
	const uint8_t *mask;        /* span_count entries: on the path; NULL: no path */
	const int64_t *critical_ns; /* span_count entries: the span's time on the
	                             * path (causal); NULL: a marked span counts
	                             * its whole duration (forest) */
	int64_t duration;
	uint32_t flags;
	uint32_t rows;
} gt_cmp_cp;

/* Computes the comparison of base and new (with their critical paths). */
int gt_compare_run(gt_compare *out, const gt_model *base, const gt_cmp_cp *base_cp, const gt_model *new_,
		   const gt_cmp_cp *new_cp, int by, gt_error *err);
void gt_compare_free(gt_compare *c);
/* The key named `key`, or NULL. */
const gt_cmp_key *gt_compare_find(const gt_compare *c, const char *key);

/* One side's value of a field: a rational (den 1 for counts and times),
 * null when the key has no spans there (percentiles) or the share is
 * undefined. k is NULL for totals. */
gt_rat gt_cmp_value(const gt_compare *c, const gt_cmp_key *k, int field, int side);
/* A change of a field: base, new, abs or rel, per the rules above. */
gt_rat gt_cmp_change_value(const gt_compare *c, const gt_cmp_key *k, int field, int change);

/* Conditions: see gt_cond_parse for the grammar. */
enum gt_cond_op { GT_OP_GT = 0, GT_OP_GE, GT_OP_LT, GT_OP_LE, GT_OP_EQ, GT_OP_NE };
typedef struct gt_cond {
	char *key;   /* key[...] scope (unescaped), NULL for totals */
	int field;   /* enum gt_cmp_field */
	int change;  /* enum gt_cmp_change */
	int op;
	gt_rat value;
	char *text;  /* the expression as given */
} gt_cond;

/* Parses one condition. On a syntax or type error returns -1 with *pos the
 * byte offset of the problem and why a short reason.
 *
 *   condition := ws metric ws op ws value ws
 *   metric    := "total" "." total_field "." change
 *              | "critical_path" "." change   (= total.critical_path_ns)
 *              | "key" "[" keyname "]" "." key_field "." change
 *   total_field := "spans" | "dur_ns" | "critical_path_ns"
 *   key_field := "count" | "dur_ns" | "self_ns" | "p50_ns" | "p95_ns"
 *              | "max_ns" | "cp_count" | "cp_ns" | "cp_share"
 *   change    := "base" | "new" | "abs" | "rel"
 *   keyname   := { any byte but "]" and "\" | "\]" | "\\" }   (non-empty)
 *   op        := ">" | ">=" | "<" | "<=" | "==" | "!="
 *   value     := ["-"|"+"] digits ["." digits] [unit]
 *   unit      := "ns" | "us" | "ms" | "s" | "%"
 *
 * Types: a time unit needs a time value (base/new/abs of a *_ns field or
 * trace duration); "%" needs a ratio (any rel, or cp_share's base/new/abs)
 * and means /100; a plain number is nanoseconds for times, a count for
 * counts (then it must be an integer) and a fraction for ratios. */
int gt_cond_parse(const char *text, gt_cond *out, size_t *pos, const char **why);
void gt_cond_free(gt_cond *c);
/* Whether the condition holds. A null value never holds (not even !=). */
bool gt_cond_eval(const gt_compare *c, const gt_cond *cond, gt_rat *value);

#endif
