/* Little-endian integers in byte buffers, a byte at a time so that neither
 * alignment nor the host's order matters: the .gtx index file's records
 * (gtx_layout.h) and the Arrow IPC framing and FlatBuffers metadata
 * (coll_arrow.c) store theirs so. */
#ifndef GT_LE_BYTES_H
#define GT_LE_BYTES_H

#include <stdint.h>

/* The n-byte (at most 8) little-endian integer at p. */
static inline uint64_t gt_le_get(const void *p, unsigned n)
{
	const unsigned char *b = p;
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}
static inline void gt_le_put(void *p, uint64_t v, unsigned n)
{
	unsigned char *b = p;
	for (unsigned i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}
static inline uint16_t gt_le_get16(const void *p)
{
	return (uint16_t)gt_le_get(p, 2);
}
static inline uint32_t gt_le_get32(const void *p)
{
	return (uint32_t)gt_le_get(p, 4);
}
static inline uint64_t gt_le_get64(const void *p)
{
	return gt_le_get(p, 8);
}
static inline void gt_le_put32(void *p, uint32_t v)
{
	gt_le_put(p, v, 4);
}
static inline void gt_le_put64(void *p, uint64_t v)
{
	gt_le_put(p, v, 8);
}

#endif
