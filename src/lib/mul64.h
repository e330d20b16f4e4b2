/* SPDX-License-Identifier: MIT */
/*
 * The full 128-bit product of two 64-bit numbers: __int128 where the
 * compiler has it, four 32x32-bit products otherwise (32-bit targets such as
 * MIPS32 and ARMv7). Defining HIST_PORTABLE_MUL selects the portable path on
 * a 64-bit host too, so the unit tests cover it there.
 */
#ifndef ENGPASS_MUL64_H
#define ENGPASS_MUL64_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__) && !defined(HIST_PORTABLE_MUL)
__extension__ typedef unsigned __int128 mul64_u128;

/* *hi:*lo = a * b, the full 128-bit product. */
static inline void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	mul64_u128 p = (mul64_u128)a * b;

	*lo = (uint64_t)p;
	*hi = (uint64_t)(p >> 64);
}
#else
/* *hi:*lo = a * b from four 32x32-bit products, for 32-bit targets. */
static inline void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t al = a & 0xffffffffU, ah = a >> 32;
	uint64_t bl = b & 0xffffffffU, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffU) + (hl & 0xffffffffU);

	*lo = (mid << 32) | (ll & 0xffffffffU);
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
#endif

#endif
