/* Helpers shared by the Check test programs. */
#ifndef GT_TESTUTIL_H
#define GT_TESTUTIL_H

#include <check.h>
#include <stdlib.h>

#include "base/splitmix.h"

/* A test program's set-up, as a table: each case's tests (a START_TEST
 * name, run once or, GT_LOOP, for _i in [0, n)), and its timeout in
 * seconds (0: Check's default). Both lists end with {0}. */
typedef struct gt_test {
	const TTest *test;
	int loops;
} gt_test;
#define GT_TEST(f) {f, 0}
#define GT_LOOP(f, n) {f, n}

typedef struct gt_tcase {
	const char *name;
	int timeout;
	const gt_test *tests;
} gt_tcase;

/* Runs the suite of those cases; returns the process exit status. */
static inline int gt_run_cases(const char *suite, const gt_tcase *cases)
{
	Suite *s = suite_create(suite);
	for (const gt_tcase *c = cases; c->name; c++) {
		TCase *tc = tcase_create(c->name);
		if (c->timeout)
			tcase_set_timeout(tc, c->timeout);
		for (const gt_test *t = c->tests; t->test; t++)
			if (t->loops)
				tcase_add_loop_test(tc, t->test, 0, t->loops);
			else
				tcase_add_test(tc, t->test);
		suite_add_tcase(s, tc);
	}
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The OpenCL devices gt_cl_list finds (util_cl.c); a listing that fails
 * fails the test. */
int gt_test_device_count(void);

/* Directory of the shared real traces, relative to the repository root. */
#define GT_SHARED_TRACES "../shared/traces"

#endif
