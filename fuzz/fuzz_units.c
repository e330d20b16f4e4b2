/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the strict unit parsers of src/lib/units.c, which read
 * every size, rate, duration, CPU list and number given on the command
 * line (and in sweep lists). The first byte picks the parser, the rest is
 * the text. A value that parses is formatted back, so the formatters see
 * every extreme the parsers let through.
 */
#include <sched.h>
#include <stdlib.h>

#include "lib/units.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char fmt[UNITS_FMT_LEN], *s;
	uint64_t u;
	int64_t i;
	double d;
	cpu_set_t set;

	if (size < 1)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 7) {
	case 0:
		if (units_parse_size(s, &u) == 0)
			units_fmt_bytes(fmt, sizeof(fmt), u);
		break;
	case 1:
		if (units_parse_rate(s, &d) == 0) {
			units_fmt_rate(fmt, sizeof(fmt), d);
			units_fmt_bits(fmt, sizeof(fmt), d * 8);
		}
		/* The bit-rate grammar on the same text, its two-readings message too. */
		if (units_parse_bitrate(s, &d, fmt, sizeof(fmt)) == 0)
			units_fmt_bits(fmt, sizeof(fmt), d);
		break;
	case 2:
		if (units_parse_duration(s, &u) == 0)
			units_fmt_duration(fmt, sizeof(fmt), u);
		break;
	case 3:
		if (units_cpulist_parse(s, &set, 0)) {
			/* rejected: nothing to check */
		}
		break;
	case 4:
		if (units_cpulist_parse(s, &set, 4)) {
			/* rejected: nothing to check */
		}
		break;
	case 5:
		if (units_parse_int64(s, INT64_MIN, INT64_MAX, &i)) {
			/* rejected: nothing to check */
		}
		break;
	default:
		if (units_parse_uint64(s, 1, UINT64_MAX, &u)) {
			/* rejected: nothing to check */
		}
		break;
	}
	free(s);
	return 0;
}
