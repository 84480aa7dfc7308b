/* The errors of decompression (decode_errors.h). */
#include "decode_errors.h"

int gt_fail_expansion(gt_error *err, const char *path, uint64_t at, uint64_t ratio, uint64_t cap)
{
	return gt_fail(err, GT_EINPUT,
		       "%s: byte %llu: decompressed data is %llu times the compressed size, over the cap of %llu (a "
		       "decompression bomb?); raise --max-expansion to read it",
		       path, (unsigned long long)at, (unsigned long long)ratio, (unsigned long long)cap);
}

int gt_fail_corrupt_zstd(gt_error *err, const char *path, uint64_t frame_start, const char *why)
{
	return gt_fail(err, GT_EINPUT, "%s: byte %llu: corrupt zstd data in the frame that starts there (%s)", path,
		       (unsigned long long)frame_start, why);
}
