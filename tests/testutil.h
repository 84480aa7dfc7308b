/* Helpers shared by the Check test programs. */
#ifndef GT_TESTUTIL_H
#define GT_TESTUTIL_H

#include <check.h>
#include <stdlib.h>

#include "base/splitmix.h"

/* Runs one suite and returns the process exit status. */
static inline int gt_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Directory of the shared real traces, relative to the repository root. */
#define GT_SHARED_TRACES "../shared/traces"

#endif
