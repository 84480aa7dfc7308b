/* compare/: comparing two traces (compare.c), per step with Mann-Whitney
 * U (compare_step.c, mwu.h), exact ratios (compare_rat.c) and --fail-if
 * conditions (compare_cond.c). Host only: it runs the critical paths
 * through causal/ and forest/.
 *
 * Comparing two traces: per-key statistics of each side, their differences,
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
 *    on the path; for the forest path (forest.h) the marked spans' whole
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

#include "causal/causal.h"
#include "forest/forest.h"
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
	gt_key_stats *steps[2]; /* per window of each side (gt_compare_steps) */
} gt_cmp_key;

/* One side's windows (steps): without --step one, the whole trace. */
typedef struct gt_cmp_windows {
	uint32_t count;
	int64_t *cp_ns;   /* the causal path's duration in each window */
	int64_t *wall_ns; /* last point minus first point */
	uint64_t *spans;  /* spans taking part in the window */
	gt_key_stats *store; /* key_count x count, key after key */
} gt_cmp_windows;

typedef struct gt_compare {
	int by;
	gt_cmp_side side[2];
	gt_cmp_key *keys; /* sorted by |dur_ns abs| descending, then key bytes */
	size_t key_count;
	char *key_text;   /* storage of the key strings */
	gt_cmp_windows win[2];
} gt_compare;

/* Critical-path results of one side: the causal path (causal.h) or the
 * forest path (forest.h). */
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
/* Report orders of the keys, largest first, ties by key bytes: the
 * absolute change of self_ns (self), of dur_ns (total), of cp_ns (cp), or
 * the absolute relative change of self_ns (change; a null one last); of
 * the whole-trace values or of a per-step statistic (stat). 0 or -1 (out of
 * memory: the order is unchanged). */
enum gt_cmp_sort { GT_SORT_SELF = 0, GT_SORT_TOTAL, GT_SORT_CP, GT_SORT_CHANGE, GT_SORT_COUNT };
extern const char *const gt_cmp_sort_names[GT_SORT_COUNT];
int gt_compare_sort(gt_compare *c, int order, int stat);
/* The key named `key`, or NULL. */
const gt_cmp_key *gt_compare_find(const gt_compare *c, const char *key);

/* One side's value of a field: a rational (den 1 for counts and times),
 * null when the key has no spans there (percentiles) or the share is
 * undefined. k is NULL for totals. */
gt_rat gt_cmp_value(const gt_compare *c, const gt_cmp_key *k, int field, int side);
/* A change of a field: base, new, abs or rel, per the rules above. */
gt_rat gt_cmp_change_value(const gt_compare *c, const gt_cmp_key *k, int field, int change);

/* Per-step statistics.
 *
 * A side's windows are the causal model's (causal.h: --step GLOB, each
 * matched span one window, spans placed by its rule); a key's per-step
 * value of a field is its statistic over the spans of the window that take
 * part in the causal model (count, dur_ns, self_ns, cp_count and cp_ns are
 * 0 in a window without the key; p50_ns, p95_ns and max_ns have no value
 * there). Totals per window: spans (taking part), dur_ns (the window's
 * wall time) and critical_path_ns (its causal path). cp_share has none.
 * Without windows (gt_compare_steps_whole) each side is one window whose
 * values are the whole-trace ones.
 *
 * Over a side's values v[1..n]: n, min, max, median (the mean of the two
 * middle values when n is even: exact, a half) and mad, the median of
 * |v[i] - median|. No value: all null but n = 0. The change of a statistic
 * follows the rules of a change. p: the two-sided Mann-Whitney U test
 * (mwu.h) between the base and new values, null when a side has none. */
enum gt_cmp_stat { GT_S_WHOLE = 0, GT_S_N, GT_S_MIN, GT_S_MEDIAN, GT_S_MAX, GT_S_MAD, GT_S_COUNT };
extern const char *const gt_cmp_stat_names[GT_S_COUNT]; /* "", "n", "min", ... */

/* Whether a field has per-step values (all but cp_share). */
bool gt_cmp_field_has_steps(int field);
/* Fills side's windows from a causal run with rows over m (the model the
 * comparison was run on). */
int gt_compare_steps(gt_compare *c, int side, const gt_model *m, const gt_causal_result *r, gt_error *err);
/* One window per side without one yet: the whole trace. */
int gt_compare_steps_whole(gt_compare *c, gt_error *err);
/* A side's per-step values of a field (k NULL: totals, or a key in neither
 * trace) into v (c->win[side].count entries); returns how many. */
size_t gt_cmp_step_values(const gt_compare *c, const gt_cmp_key *k, int field, int side, int64_t *v);
/* A statistic of a side (GT_S_WHOLE: gt_cmp_value). */
gt_rat gt_cmp_stat_value(const gt_compare *c, const gt_cmp_key *k, int field, int stat, int side);
gt_rat gt_cmp_stat_change(const gt_compare *c, const gt_cmp_key *k, int field, int stat, int change);
/* Every statistic of a field on both sides (v[stat][side]) and p, at once. */
typedef struct gt_cmp_stats {
	gt_rat v[GT_S_COUNT][2];
	gt_rat p;
} gt_cmp_stats;
void gt_cmp_field_stats(const gt_compare *c, const gt_cmp_key *k, int field, gt_cmp_stats *out);
/* The U test's p, exact as a rational (den 10^15 rounded for the normal
 * approximation); null when a side has no value. */
gt_rat gt_cmp_p(const gt_compare *c, const gt_cmp_key *k, int field);
/* The change of b to n (base, new, abs or rel) by the rules above. */
gt_rat gt_rat_change(gt_rat b, gt_rat n, int change);

/* Conditions: see gt_cond_parse for the grammar. */
enum gt_cond_op { GT_OP_GT = 0, GT_OP_GE, GT_OP_LT, GT_OP_LE, GT_OP_EQ, GT_OP_NE };
enum gt_cond_sel { GT_SEL_EXACT = 0, GT_SEL_GLOB, GT_SEL_RE };
typedef struct gt_cond {
	char *key;   /* key[...] selector (unescaped, without glob:/re:), NULL for totals */
	int sel;     /* enum gt_cond_sel */
	bool optional; /* key?[...]: matching no key is not an error */
	bool any_key;  /* key[any:...]: judged alone, not bound with the conjunction's
	                * other terms over the same selector */
	void *re;    /* GT_SEL_RE: the compiled regex_t */
	size_t key_at; /* byte offset of the selector */
	int field;   /* enum gt_cmp_field */
	int stat;    /* enum gt_cmp_stat (GT_S_WHOLE: the whole-trace value) */
	bool p;      /* the U test's p instead of a change */
	int change;  /* enum gt_cmp_change */
	int op;
	gt_rat value;
	char *text;  /* the term as given */
} gt_cond;

/* Parses one term (a condition without and/or). On a syntax or type error
 * returns -1 with *pos the byte offset of the problem and why a short
 * reason.
 *
 *   expr      := term { ("and" | "or") term }   ("and" binds tighter)
 *   term      := ws metric ws op ws value ws
 *   metric    := "total" "." total_field tail
 *              | "critical_path" tail   (= total.critical_path_ns)
 *              | "key" ["?"] "[" selector "]" "." key_field tail
 *   tail      := "." [stat "."] change | "." "p"
 *   stat      := "n" | "min" | "median" | "max" | "mad"
 *   total_field := "spans" | "dur_ns" | "critical_path_ns"
 *   key_field := "count" | "dur_ns" | "self_ns" | "p50_ns" | "p95_ns"
 *              | "max_ns" | "cp_count" | "cp_ns" | "cp_share"
 *   change    := "base" | "new" | "abs" | "rel"
 *   selector  := ["any:"] ["glob:" | "re:"] keyname   (exact, fnmatch glob, POSIX ERE)
 *   keyname   := { any byte but "]" and "\" | "\]" | "\\" }   (non-empty)
 *   op        := ">" | ">=" | "<" | "<=" | "==" | "!="
 *   value     := ["-"|"+"] digits ["." digits] [unit]
 *   unit      := "ns" | "us" | "ms" | "s" | "%" | "x"
 *
 * Units are required where a bare number would be ambiguous: a time
 * (base/new/abs of a *_ns field or a total duration, or their statistics)
 * needs ns, us, ms or s; a relative change (any rel) needs % (/100) or x (a
 * ratio new/base: Nx is rel N - 1); cp_share needs %. Counts (and n) are
 * bare integers; p is a bare fraction or a %. Statistics and p are not
 * defined for cp_share. */
int gt_cond_parse(const char *text, gt_cond *out, size_t *pos, const char **why);
void gt_cond_free(gt_cond *c);
/* Whether the term holds: for a selector over several keys, whether it
 * holds for any of them (*key: the first that holds, else the first
 * matched; NULL for totals or when none matches). A null value never holds
 * (not even !=). */
bool gt_cond_eval(const gt_compare *c, const gt_cond *cond, gt_rat *value, const char **key);
/* 0, or -1 when the selector matches no key on either side and is not
 * written key?[...]. */
int gt_cond_check(const gt_compare *c, const gt_cond *cond);

/* A parsed expression: terms joined by and/or. */
typedef struct gt_cond_expr {
	gt_cond *terms;
	bool *or_before; /* term i > 0 is joined to the one before by "or" */
	size_t count;
	char *text;
} gt_cond_expr;
/* As gt_cond_parse, over the whole expression (*pos into text). */
int gt_cond_expr_parse(const char *text, gt_cond_expr *out, size_t *pos, const char **why);
void gt_cond_expr_free(gt_cond_expr *e);
/* Whether it holds; held[i] and keys[i] (count entries each, may be NULL)
 * per term: whether it held and the key it was judged on (NULL: a total).
 * "and" binds the terms over one glob or regex selector (the same text,
 * without any:) to one key: they hold when some key the selector names holds them all,
 * the first in report order is theirs. Other terms hold for any key
 * (gt_cond_eval). */
bool gt_cond_expr_eval(const gt_compare *c, const gt_cond_expr *e, bool *held, const char **keys);
/* The term judged on the key of that name (NULL, or a name no key has:
 * as gt_cond_eval). */
bool gt_cond_eval_key(const gt_compare *c, const gt_cond *cond, const char *key, gt_rat *value);
/* Whether a p term (p < v or p <= v) can never hold with the comparison's
 * step counts: *pmin is the smallest p the exact test gives them (0 when
 * it does not apply). */
bool gt_cond_p_unreachable(const gt_compare *c, const gt_cond *cond, double *pmin);

#endif
