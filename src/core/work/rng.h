/* SPDX-License-Identifier: MIT */
/*
 * The pseudo-random generator behind random offsets (disk), torrent piece
 * orders (core/torrent) and the disk benchmark's data pattern: splitmix64
 * (Steele, Lea, Flood 2014), one 64-bit state, an add and a mixing
 * function per output; statistically good enough for choosing offsets and
 * cheap (about 1 ns), and fully determined by its seed. The state is the
 * caller's value.
 */
#ifndef ENGPASS_CORE_RNG_H
#define ENGPASS_CORE_RNG_H

#include <stdint.h>

/* Next output of the splitmix64 generator with state *S. */
uint64_t rng_next(uint64_t *s);

/*
 * A value uniform in [0, N) from the generator (Lemire's multiply-shift;
 * the bias is below N / 2^64). N = 0 returns 0.
 */
uint64_t rng_below(uint64_t *s, uint64_t n);

#endif
