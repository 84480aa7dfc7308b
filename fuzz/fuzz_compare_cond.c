/* libFuzzer harness for compare's --fail-if conditions (compare_cond.c):
 * the parser on arbitrary text, and each condition it accepts evaluated
 * against comparisons made once at start-up from the golden traces of
 * testdata/compare/ (as `gputrace compare` makes them: the causal path per
 * side, per-step windows where a --step is given).
 *
 * The first byte is a mode: bits 0-1 the comparison (0 base/new by name,
 * 1 gpu_base/gpu_slow by name with --step 'ProfilerStep*', 2 gpu_base/
 * gpu_wrapper by cat, 3 base/base by group: no change at all), bit 2 one
 * term (gt_cond_parse) instead of an expression, bits 4-7 the decimals the
 * values are formatted with (0-15). The rest is the text (cut at a NUL).
 * A parse error must say why, at an offset inside the text, and leave
 * nothing allocated; an accepted condition must evaluate without UB,
 * the expression's value must be the or of ands of its terms', a
 * selector that fails gt_cond_check must be a required key[...], a null
 * value never holds. Regular expressions with many repetitions are left
 * out (see below). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal/causal.h"
#include "compare/compare.h"
#include "loader/loader.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

typedef struct side {
	gt_model m;
	uint8_t *on_path;
	int64_t *critical_ns;
	gt_cmp_cp cp;
} side;

static gt_compare cmps[4];
static side sides[4][2];

static void die(const char *what, const gt_error *err)
{
	fprintf(stderr, "fuzz_compare_cond: %s: %s (run from the repository root)\n", what, err->msg);
	exit(1);
}

/* As cmd_compare.c's causal_path: the whole trace's causal path. */
static void load_side(side *s, const char *path)
{
	gt_error err = {0};
	if (gt_model_load(&s->m, path, NULL, &err) < 0)
		die(path, &err);
	gt_causal_options o = {.rows = true, .threads = 1};
	gt_causal_result r;
	if (gt_causal_analyze(&s->m, &o, NULL, &r, &err) < 0)
		die(path, &err);
	uint32_t n = s->m.span_count ? s->m.span_count : 1;
	s->on_path = calloc(n, 1);
	s->critical_ns = calloc(n, sizeof *s->critical_ns);
	if (!s->on_path || !s->critical_ns)
		abort();
	const gt_causal_window *w = &r.windows[0];
	for (uint32_t i = 0; i < w->row_count; i++) {
		s->on_path[w->rows[i].span] = w->rows[i].on_path;
		s->critical_ns[w->rows[i].span] = w->rows[i].critical_ns;
		s->cp.rows += w->rows[i].on_path;
	}
	s->cp.mask = s->on_path;
	s->cp.critical_ns = s->critical_ns;
	s->cp.duration = w->path_duration_ns;
	s->cp.flags = w->flags;
	gt_causal_result_free(&r);
}

static void make_compare(int i, const char *base, const char *new_, int by, const char *step)
{
	gt_error err = {0};
	load_side(&sides[i][0], base);
	load_side(&sides[i][1], new_);
	if (gt_compare_run(&cmps[i], &sides[i][0].m, &sides[i][0].cp, &sides[i][1].m, &sides[i][1].cp, by, &err) < 0)
		die(base, &err);
	for (int k = 0; step && k < 2; k++) {
		gt_causal_options o = {.rows = true, .threads = 1, .step_glob = step};
		gt_causal_result r;
		if (gt_causal_analyze(&sides[i][k].m, &o, NULL, &r, &err) < 0 ||
		    gt_compare_steps(&cmps[i], k, &sides[i][k].m, &r, &err) < 0)
			die(k ? new_ : base, &err);
		gt_causal_result_free(&r);
	}
	if (gt_compare_steps_whole(&cmps[i], &err) < 0 ||
	    gt_compare_sort(&cmps[i], step ? GT_SORT_CHANGE : GT_SORT_SELF, step ? GT_S_MEDIAN : GT_S_WHOLE) < 0)
		die(base, &err);
}

static void free_all(void)
{
	for (int i = 0; i < 4; i++) {
		gt_compare_free(&cmps[i]);
		for (int k = 0; k < 2; k++) {
			gt_model_free(&sides[i][k].m);
			free(sides[i][k].on_path);
			free(sides[i][k].critical_ns);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	make_compare(0, "testdata/compare/base.json", "testdata/compare/new.json", GT_BY_NAME, NULL);
	make_compare(1, "testdata/compare/gpu_base.json", "testdata/compare/gpu_slow.json", GT_BY_NAME,
		     "ProfilerStep*");
	make_compare(2, "testdata/compare/gpu_base.json", "testdata/compare/gpu_wrapper.json", GT_BY_CAT, NULL);
	make_compare(3, "testdata/compare/base.json", "testdata/compare/base.json", GT_BY_GROUP, NULL);
	atexit(free_all);
	return 0;
}

/* One accepted term: checked, evaluated, its values formatted. */
static bool eval_term(const gt_compare *c, const gt_cond *t, int decimals)
{
	CHECK(t->text != NULL);
	CHECK(t->field >= 0 && t->field < GT_F_ALL_COUNT);
	CHECK(t->stat >= 0 && t->stat < GT_S_COUNT);
	CHECK(t->change >= 0 && t->change < GT_C_COUNT);
	CHECK(t->op >= GT_OP_GT && t->op <= GT_OP_NE);
	CHECK(t->value.den > 0);
	CHECK((t->key != NULL) == (t->field < GT_F_KEY_COUNT));
	CHECK((t->re != NULL) == (t->key && t->sel == GT_SEL_RE));
	if (gt_cond_check(c, t) < 0)
		CHECK(t->key && !t->optional);
	gt_rat v;
	const char *key;
	bool h = gt_cond_eval(c, t, &v, &key);
	CHECK(!h || v.den > 0);
	CHECK(!key || gt_compare_find(c, key) != NULL);
	CHECK(t->key || !key);
	char buf[64];
	gt_rat_format(v, decimals, buf, sizeof buf);
	CHECK(memchr(buf, 0, sizeof buf) != NULL);
	CHECK(v.den > 0 || strcmp(buf, "null") == 0);
	gt_rat_format(t->value, decimals, buf, sizeof buf);
	if (v.den > 0) {
		int r = gt_rat_cmp(v, t->value);
		CHECK(r >= -1 && r <= 1);
		CHECK(gt_rat_cmp(t->value, v) == -r);
	}
	/* the value as eval gives it again, without the outputs */
	CHECK(gt_cond_eval(c, t, NULL, NULL) == h);
	return h;
}

/* Whether term i shares its glob or regex selector with another term of
 * its conjunction (compare.h: they bind one key). */
static bool bound(const gt_cond_expr *e, size_t i)
{
	const gt_cond *a = &e->terms[i];
	if (!a->key || a->any_key || a->sel == GT_SEL_EXACT)
		return false;
	size_t from = i, to = i + 1;
	while (from > 0 && !e->or_before[from])
		from--;
	while (to < e->count && !e->or_before[to])
		to++;
	for (size_t j = from; j < to; j++) {
		const gt_cond *b = &e->terms[j];
		if (j != i && b->key && !b->any_key && b->sel == a->sel && !strcmp(a->key, b->key))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	const gt_compare *c = &cmps[mode & 3];
	int decimals = mode >> 4;
	char *text = strndup((const char *)data + 1, size - 1);
	if (!text)
		return 0;
	size_t len = strlen(text), pos = (size_t)-1;
	/* glibc's regcomp takes memory exponential in stacked repetitions
	 * (re:a++++..., ((a+)+)+, (a{999}){999}): a user's own pattern costs
	 * that user, not a bug here; such texts are left out */
	if (strstr(text, "re:")) {
		size_t reps = 0, bounds = 0;
		for (const char *q = text; *q; q++) {
			reps += *q == '+' || *q == '*' || *q == '{' || *q == '?';
			bounds += *q == '{';
		}
		if (reps > 6 || bounds > 1) {
			free(text);
			return 0;
		}
	}
	const char *why = NULL;
	if (mode & 4) {
		gt_cond t;
		if (gt_cond_parse(text, &t, &pos, &why) < 0) {
			CHECK(why && why[0] && pos <= len);
		} else {
			eval_term(c, &t, decimals);
			gt_cond_free(&t);
		}
	} else {
		gt_cond_expr e;
		if (gt_cond_expr_parse(text, &e, &pos, &why) < 0) {
			CHECK(why && why[0] && pos <= len);
			CHECK(e.count == 0 && e.terms == NULL && e.text == NULL);
		} else {
			CHECK(e.count >= 1 && e.text && strcmp(e.text, text) == 0);
			CHECK(!e.or_before[0]);
			bool *held = calloc(e.count, sizeof *held);
			if (!held)
				abort();
			bool h = gt_cond_expr_eval(c, &e, held, NULL);
			/* an or of ands; a term bound with another of its conjunction
			 * (one glob or regex selector) holds only where it holds alone */
			bool any = false, conj = true;
			for (size_t i = 0; i < e.count; i++) {
				if (i && e.or_before[i]) {
					any |= conj;
					conj = true;
				}
				bool alone = eval_term(c, &e.terms[i], decimals);
				if (bound(&e, i))
					CHECK(!held[i] || alone);
				else
					CHECK(alone == held[i]);
				conj &= held[i];
			}
			CHECK(h == (any || conj));
			free(held);
			gt_cond_expr_free(&e);
		}
	}
	free(text);
	return 0;
}
