/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of engpass mem's swaptest ladder: the --sizes list
 * (multiples of a base such as "0.25x" or absolute sizes such as "85M"),
 * resolving a size against the base, the safety budget, the "resident"
 * rule and swaptest's result line. No I/O, so they are unit-tested
 * (tests/unit/test_mem_sizes.c).
 */
#ifndef ENGPASS_MEM_SIZES_H
#define ENGPASS_MEM_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "lib/opt.h"

/* Most rungs a ladder may have. */
#define MEM_MAX_SIZES 32

/* Largest multiple accepted ("64x"): beyond it a typo is likelier than intent. */
#define MEM_MAX_FACTOR 64.0

/* Smallest absolute size, one 4 KiB page. */
#define MEM_MIN_SIZE 4096

struct mem_size {
	bool relative;		/* FACTOR x base; else BYTES */
	double factor;
	uint64_t bytes;
	char text[24];		/* as given, e.g. "1.5x" or "85M" */
};

/*
 * Parses the items of a --sizes list such as "0.25x,0.5x,1x" or
 * "32M,85M,128M" (both kinds may be mixed; the option parser split it,
 * refusing empty items) into OUT (capacity MAX), the count into *N. A
 * multiple is DIGITS[.DIGITS] followed by "x", above 0 and at most
 * MEM_MAX_FACTOR; an absolute size is anything units_parse_size() takes,
 * at least MEM_MIN_SIZE. Spaces and anything not consumed completely are
 * errors, and so is an empty LIST. Returns 0, or -EINVAL / -ERANGE with
 * one line naming the offending item in ERR.
 */
MUST_CHECK int mem_sizes_parse(const struct opt_list *list, struct mem_size *out, size_t max, size_t *n,
			       char *err, size_t errlen);

/*
 * Bytes of S against BASE (relative sizes) rounded down to a whole number
 * of PAGE-byte pages, at least one page.
 */
uint64_t mem_size_resolve(const struct mem_size *s, uint64_t base, uint64_t page);

/*
 * The most a row may ask for: AVAIL (MemAvailable, or the sandbox limit)
 * plus SWAP_FREE, minus MARGIN_PCT percent of MARGIN_OF. Returns 0 when
 * the margin eats everything.
 */
uint64_t mem_budget(uint64_t avail, uint64_t swap_free, unsigned margin_pct, uint64_t margin_of);

/*
 * The "resident" rule of a row: the measuring process took no major fault
 * in the write or the read pass and mincore() found every page in memory
 * after the read pass. Such a row's read figure is a memory speed.
 */
bool mem_row_resident(uint64_t write_majflt, uint64_t read_majflt, uint64_t resident_pages, uint64_t pages);

/*
 * swaptest's line for PASSES read passes over an area of BYTES taking
 * SECONDS in all: "1 iterations: 128.00 MB in 6.385 seconds = 20.05
 * MB/sec". Like swaptest, MB means 2^20 bytes; MB is the data read (area
 * times passes), so the line divides out. Returns BUF.
 */
const char *mem_swaptest_line(char *buf, size_t len, unsigned passes, uint64_t bytes, double seconds);

#endif
