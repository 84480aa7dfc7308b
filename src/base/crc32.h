/* CRC-32 as gzip and zlib define it: zlib's crc32(crc, p, n), the same
 * values, through ISA-L's crc32_gzip_refl (26 GB/s a core here, against
 * zlib's 4). */
#ifndef GT_CRC32_H
#define GT_CRC32_H

#include <stdint.h>

/* The CRC-32 of p[0, n) continued from crc (0 to start). */
uint32_t gt_crc32(uint32_t crc, const void *p, uint64_t n);

#endif
