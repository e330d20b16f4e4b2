/* SPDX-License-Identifier: MIT */
/*
 * Strict parsing and human formatting of the units engpass takes on its
 * command line: sizes, rates, durations, CPU lists and bounded integers.
 * A value the parser does not consume completely is an error, never a
 * guess: "1 M", " 1M", "1MM", "0x10", "+1", "1." and "nan" are all
 * rejected. The full rule set, with examples, is in docs/units.md; in
 * short:
 *
 *   number    DIGITS [ "." DIGITS ], decimal only, at most
 *             UNITS_MAX_FRAC_DIGITS digits after the point, no sign, no
 *             exponent, no surrounding white space.
 *   sizes     no suffix or "B" = bytes;
 *             "K" "M" "G" "T" (either case) and "KiB" "MiB" "GiB" "TiB"
 *             (either case on the letter, "iB" exactly) = 1024^n;
 *             "kB" "MB" "GB" "TB" (either case on the letter, capital B)
 *             = 1000^n. A lower-case "b" means bits and is not a size.
 *             Fractions round to the nearest byte, halves up.
 *   rates     a size as above, optionally followed by "/s" = bytes per
 *             second (so "200K" = "200K/s" = 204800 B/s); or a bit rate
 *             "bit/s" "kbit/s" "Mbit/s" "Gbit/s" "Tbit/s" ("/s"
 *             optional) or "bps" "kbps" "Mbps" "Gbps" "Tbps", where the
 *             prefixes are decimal (k = 1000, networking convention) in
 *             either case and the result is divided by 8.
 *   bit rates (an option named for bits, such as iperf3's -b): a
 *             number alone is bits per second; "k" "M" "G" "T" in either
 *             case are decimal (1000^n), as iperf3 reads them, so "100M"
 *             and "100m" are 100 Mbit/s; the prefix may be followed by
 *             "bit/s" "bit" "bps" "b/s" or "b" ("100Mbit/s", "100Mbps").
 *             A byte rate is taken when it says so with "/s": "B/s",
 *             "kB/s" "MB/s"... (1000^n bytes) and "KiB/s" "MiB/s"...
 *             (1024^n), times 8. Two spellings have two readings and are
 *             refused (-EDOM) with both named, never guessed: "100M/s"
 *             (100 Mbit/s as iperf3's M, or 100 MiB/s as engpass's byte
 *             rates read "M/s") and a byte unit without "/s" such as
 *             "100MB" (100 MB/s, or 100 Mbit/s as iperf3, which reads the
 *             letter and ignores the rest).
 *   durations "ns" "us" "ms" "s" "m" "h" (lower case only); no suffix
 *             means seconds, like fio's and iperf3's --time. Fractions
 *             round to the nearest nanosecond, halves up.
 *   CPU lists "N", "N-M", comma separated: "0", "0,2", "1-3", "0-1,3".
 *
 * Errors: every parser returns 0 and fills *out, or returns a negative
 * errno and leaves *out untouched:
 *   -EINVAL  syntax error or unknown unit (including an empty string);
 *   -ERANGE  the syntax is valid but the value is not representable or is
 *            out of the allowed range: overflow, a negative value (a
 *            leading '-' before an otherwise valid value), a CPU number
 *            not below the CPU count, an integer outside [min, max].
 * When a string has both a syntax error and a range problem, -EINVAL wins.
 *
 * Formatting helpers write into a caller buffer with snprintf (truncating
 * safely when it is too short) and return that buffer, so they can be used
 * directly as printf arguments. UNITS_FMT_LEN holds every output of
 * units_fmt_bytes() and units_fmt_duration(), and of the rate formatters
 * for rates below 1e30 (beyond the largest unit the number just grows).
 *
 * Nothing here prints, allocates or keeps state.
 */
#ifndef ENGPASS_UNITS_H
#define ENGPASS_UNITS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

/* Longest accepted fraction ("1.123456789012345678M"). */
#define UNITS_MAX_FRAC_DIGITS 18

/* A buffer of this size holds the output of a units_fmt_*(); see above. */
#define UNITS_FMT_LEN 32

/*
 * Parse a size such as "4K", "60KiB", "1M", "2G", "1.5M", "500kB" or
 * "4096" into bytes. Returns 0 with *out set, -EINVAL or -ERANGE (above
 * UINT64_MAX after rounding, or negative).
 */
MUST_CHECK int units_parse_size(const char *s, uint64_t *out);

/*
 * Parse a rate such as "200K/s", "500KB/s", "1.5MiB/s", "1Gbit/s",
 * "100Mbps" or "1000" into bytes per second (not rounded: "1bit/s" is
 * 0.125). Zero is accepted; whether it means "unlimited" is the caller's
 * business. Returns 0 with *out set, -EINVAL or -ERANGE (number above
 * UINT64_MAX before scaling, or negative).
 */
MUST_CHECK int units_parse_rate(const char *s, double *out);

/*
 * Parse a bit rate (the grammar above: "100M", "100m", "1.5Gbit/s",
 * "100Mbps", "250000", "12MB/s") into bits per second. Returns 0 with *out
 * set; -EINVAL (syntax, unknown unit); -ERANGE (number above UINT64_MAX
 * before scaling, or negative); -EDOM for a spelling with two readings,
 * with WHY (WHYLEN bytes; may be NULL) saying both and what to write.
 */
MUST_CHECK int units_parse_bitrate(const char *s, double *out, char *why, size_t whylen);

/*
 * Parse a duration such as "500ms", "5s", "2m", "1h", "250us", "10ns",
 * "1.5s" or "10" (seconds) into nanoseconds. Returns 0 with *out set,
 * -EINVAL or -ERANGE (above UINT64_MAX ns, about 584 years, or negative).
 */
MUST_CHECK int units_parse_duration(const char *s, uint64_t *out);

/*
 * Parse a CPU list such as "0", "0,2", "1-3" or "0-1,3" into *out, which
 * is written (all of it) only on success. Ranges are inclusive and must
 * run upwards. ncpus is the number of CPUs the box has configured (e.g.
 * affinity_configured_cpus()); every CPU named must be below it, and below
 * CPU_SETSIZE. ncpus <= 0 checks against CPU_SETSIZE only.
 * Returns 0, -EINVAL (empty, empty element as in "1,,2" or "0,", reversed
 * range "3-1", a sign as in "-1", anything not a decimal number) or -ERANGE
 * (a CPU >= ncpus or >= CPU_SETSIZE).
 */
MUST_CHECK int units_cpulist_parse(const char *s, cpu_set_t *out, int ncpus);

/*
 * The one CPU-list grammar, for callers that want the ranges rather than
 * a cpu_set_t (the kernel's lists can name CPUs beyond CPU_SETSIZE):
 * walks the LEN bytes at S (need not be NUL-terminated) and calls
 * FN(LO, HI, ARG) for each element in order, LO == HI for a single CPU.
 * Numbers saturate at 2^32. Returns 0; -EINVAL for a syntax error as
 * units_cpulist_parse() defines it (LEN 0 included), after FN has seen
 * the elements before it; or the first nonzero value FN returned, which
 * stops the walk.
 */
MUST_CHECK int units_cpulist_walk(const char *s, size_t len, int (*fn)(uint64_t lo, uint64_t hi, void *arg),
				  void *arg);

/*
 * Parse a decimal integer ("-12", "0", "42"; no '+', no white space, no
 * base prefix) and check min <= value <= max. Returns 0 with *out set,
 * -EINVAL, or -ERANGE (outside int64_t or outside [min, max]).
 */
MUST_CHECK int units_parse_int64(const char *s, int64_t min, int64_t max,
				 int64_t *out);

/*
 * Like units_parse_int64() for unsigned values; a leading '-' before
 * digits is -ERANGE (negative), as for sizes.
 */
MUST_CHECK int units_parse_uint64(const char *s, uint64_t min, uint64_t max,
				  uint64_t *out);

/* Styles of units_fmt_size(), or-ed together; 0 is the style of units_fmt_bytes(). */
enum units_fmt_flags {
	UNITS_FMT_EXACT = 1 << 0,	/* a whole number of the unit without decimals: "16 KiB", "1.50 MiB" */
	UNITS_FMT_DEC1 = 1 << 1,	/* one decimal instead of two: "23.4 GiB" */
	UNITS_FMT_TIGHT = 1 << 2,	/* no space before the unit: "1.5MiB" (fetch's dl-style progress) */
	UNITS_FMT_PER_S = 1 << 3,	/* a rate: "117.19 MiB/s" */
};

/*
 * The one byte formatter: BYTES with binary units, whole bytes below
 * 1 KiB ("512 B") and from KiB up two decimals, or as FLAGS says. A value
 * that would round up to 1024 of a unit prints as 1 of the next one
 * ("1.00 MiB", never "1024.00 KiB"). Negative values keep their sign;
 * non-finite ones print as "nan B" / "inf B". Returns buf.
 */
const char *units_fmt_size(char *buf, size_t len, double bytes, unsigned flags);

/* Bytes in the default style: "512 B", "1.50 MiB", "2.00 GiB". Returns buf. */
const char *units_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/*
 * The one rate formatter, bytes per second in the default style: "512 B/s",
 * "117.19 MiB/s" (what the table renderer prints for every rate). Returns
 * buf. Non-finite input is printed as "nan B/s" / "inf B/s".
 */
const char *units_fmt_rate(char *buf, size_t len, double bytes_per_s);

/*
 * Bits per second with decimal units, the networking convention:
 * "800.0 bit/s", "943.1 Mbit/s". Returns buf.
 */
const char *units_fmt_bits(char *buf, size_t len, double bits_per_s);

/*
 * A duration: "850 ns", "12.50 us", "1.25 ms", "2.000 s" (seconds from one
 * second up, with millisecond resolution). Returns buf.
 */
const char *units_fmt_duration(char *buf, size_t len, uint64_t ns);

struct tm;
/*
 * The one date formatter: TM as FMT, the part of strftime() engpass uses:
 * "%Y" (at least four digits), "%m" "%d" "%H" "%M" "%S" (two) and every
 * other character as it is ("%Y-%m-%dT%H:%M:%SZ"). No locale and no time
 * zone code: strftime() brings both, 5 KiB of the router's static binary
 * (docs/embedded.md, "Size"). Returns buf; "" when it does not fit.
 */
const char *units_fmt_tm(char *buf, size_t len, const char *fmt, const struct tm *tm);

#endif
