/* The progress bar's text: percentages, rate, time left, unknown totals. The
 * CLI is not in the library, so the file is compiled in here. */
#include "../cli/progress.c"
#include "testutil.h"

START_TEST(format)
{
	char buf[160];
	/* 50 of 100 MB in 10 s: 5 MB/s, 10 s left */
	gt_progress_format(buf, sizeof buf, "reading", 50000000, 100000000, 10000000000u);
	ck_assert_str_eq(buf, "reading [############............]  50% 50.0/100.0 MB, 5.0 MB/s, 0:10 left");
	gt_progress_format(buf, sizeof buf, "reading", 100000000, 100000000, 1000000000u);
	ck_assert_str_eq(buf, "reading [########################] 100% 100.0/100.0 MB, 100.0 MB/s");
	gt_progress_format(buf, sizeof buf, "reading", 0, 100000000, 0);
	ck_assert_str_eq(buf, "reading [........................]   0% 0.0/100.0 MB, 0.0 MB/s");
	gt_progress_format(buf, sizeof buf, "stdin", 2500000, 0, 1000000000u);
	ck_assert_str_eq(buf, "stdin 2.5 MB, 2.5 MB/s");
	/* 1 MB of 8 GB at 1 MB/s: over an hour left */
	gt_progress_format(buf, sizeof buf, "x", 1000000, 8000000000u, 1000000000u);
	ck_assert_ptr_nonnull(strstr(buf, "2:13:19 left"));
}
END_TEST

START_TEST(quiet_and_forced)
{
	struct gt_common c;
	memset(&c, 0, sizeof c);
	struct gt_progress p;
	c.progress = true;
	gt_progress_init(&p, &c, "x");
	ck_assert(p.enabled);
	c.quiet = true;
	gt_progress_init(&p, &c, "x");
	ck_assert(!p.enabled);
}
END_TEST

int main(void)
{
	const gt_test bar[] = {GT_TEST(format), GT_TEST(quiet_and_forced), {0}};
	const gt_tcase cases[] = {{"bar", 0, bar}, {0}};
	return gt_run_cases("progress", cases);
}
