/* SPDX-License-Identifier: MIT */
/*
 * splitmix64 and a bounded draw from it; see rng.h.
 */
#include "core/work/rng.h"

#include "lib/mul64.h"

uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

uint64_t rng_below(uint64_t *s, uint64_t n)
{
	uint64_t hi, lo;

	mul64(rng_next(s), n, &hi, &lo);
	return hi;
}
