/* gt_crc32 (ISA-L's CRC-32) against zlib's crc32, which it replaces where
 * the index's fingerprints and old sections are summed: the same values
 * on every length, offset and split into pieces. */
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "base/crc32.h"
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

int main(void)
{
	const gt_test tests[] = {GT_TEST(same_as_zlib), {0}};
	const gt_tcase cases[] = {{"crc32", 0, tests}, {0}};
	return gt_run_cases("crc32", cases);
}
