/* gt_crc32 (ISA-L's CRC-32) against zlib's crc32, which it replaces where
 * the index's fingerprints and old sections are summed: the same values
 * on every length, offset and split into pieces. And a trace file's CRCs
 * (gtx_source.c), read in parts side by side where the range is large. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "base/crc32.h"
#include "gtx/gtx.h"
#include "base/splitmix.h"
#include "testutil.h"

START_TEST(same_as_zlib)
{
	uint64_t seed = 0xc4c32;
	enum { N = 1 << 16 };
	unsigned char *b = malloc(N);
	ck_assert_ptr_nonnull(b);
	for (int i = 0; i < N; i++)
		b[i] = (unsigned char)gt_splitmix64(&seed);
	for (uint32_t n = 0; n < 600; n++) /* every short length, at odd offsets too */
		for (uint32_t off = 0; off < 3; off++)
			ck_assert_uint_eq(gt_crc32(0, b + off, n), (uint32_t)crc32(0, b + off, n));
	for (int round = 0; round < 2000; round++) { /* random lengths, in random pieces */
		uint32_t n = (uint32_t)(gt_splitmix64(&seed) % N);
		uint32_t cut = n ? (uint32_t)(gt_splitmix64(&seed) % n) : 0;
		uint32_t want = (uint32_t)crc32(0, b, n);
		ck_assert_uint_eq(gt_crc32(0, b, n), want);
		ck_assert_uint_eq(gt_crc32(gt_crc32(0, b, cut), b + cut, n - cut), want);
		ck_assert_uint_eq(gt_crc32((uint32_t)crc32(0, b, cut), b + cut, n - cut), want);
	}
	free(b);
}
END_TEST

/* Ranges of a 70 MB file, small and large (read in parts), at odd
 * offsets, against zlib over the same bytes; a file shorter than asked
 * fails. */
START_TEST(file_ranges_as_zlib)
{
	uint64_t seed = 0xf11e;
	const size_t n = (70u << 20) + 12345;
	unsigned char *b = malloc(n);
	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)gt_splitmix64(&seed);
	char path[] = "/tmp/gt_crc_file_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, b, n) == (ssize_t)n);
	close(fd);
	const uint64_t ranges[][2] = {{0, n}, {0, 1000}, {3, (64u << 20) + 7}, {12345, n - 1}, {n - 5, n}, {7, 7}};
	for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
		uint64_t a = ranges[r][0], z = ranges[r][1];
		uint32_t want = (uint32_t)crc32(0, b + a, (uInt)(z - a)), got = 0;
		gt_error err = {0};
		ck_assert_msg(gt_gtx_range_crc(path, a, z, &got, &err) == 0, "%s", err.msg);
		ck_assert_uint_eq(got, want);
		if (a == 0) {
			ck_assert_msg(gt_gtx_prefix_crc(path, z, &got, &err) == 0, "%s", err.msg);
			ck_assert_uint_eq(got, want);
		}
	}
	uint32_t got;
	gt_error err = {0};
	ck_assert_int_lt(gt_gtx_range_crc(path, 5, n + 100, &got, &err), 0);
	ck_assert_int_lt(gt_gtx_prefix_crc(path, n + (80u << 20), &got, &err), 0);
	unlink(path);
	free(b);
}
END_TEST

int main(void)
{
	const gt_test tests[] = {GT_TEST(same_as_zlib), GT_TEST(file_ranges_as_zlib), {0}};
	const gt_tcase cases[] = {{"crc32", 0, tests}, {0}};
	return gt_run_cases("crc32", cases);
}
