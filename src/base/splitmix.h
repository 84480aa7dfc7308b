/* splitmix64: a deterministic 64-bit stream from one word of state, for
 * generators, tests and benchmarks (a seed reproduces a failing case). */
#ifndef GT_SPLITMIX_H
#define GT_SPLITMIX_H

#include <stdint.h>

static inline uint64_t gt_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
