#include "crc32.h"

#include <isa-l/crc.h>

uint32_t gt_crc32(uint32_t crc, const void *p, uint64_t n)
{
	return crc32_gzip_refl(crc, p, n);
}
