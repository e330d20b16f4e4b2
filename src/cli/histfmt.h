/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of `history`, `show` and `compare`: fitting a string into
 * a capped column, which direction of a metric is better, and the ratio
 * of two figures as people should read it. No I/O, no state: each is unit
 * tested (tests/unit/test_histfmt.c).
 */
#ifndef ENGPASS_HISTFMT_H
#define ENGPASS_HISTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/result/result.h"

/*
 * Writes S into BUF (of LEN bytes) fitted to WIDTH columns: whole when it
 * fits, else cut at a character boundary with "…" as its last column;
 * padded with spaces to WIDTH when PAD. A newline or tab in S is shown as
 * a space. Columns are counted as UTF-8 characters. Returns BUF.
 */
char *hist_fit(char *buf, size_t len, const char *s, size_t width, bool pad);

/* "2026-12-04 14:41" (UTC) of T_NS (ns since the epoch) into BUF; SECONDS adds ":SS". */
void hist_fmt_time(char *buf, size_t len, int64_t t_ns, bool seconds);

/* Columns of UTF-8 string S (its characters); 0 for NULL. */
size_t hist_cols(const char *s);

enum better {
	BETTER_UNKNOWN = 0,
	BETTER_HIGHER = 1,
	BETTER_LOWER = -1,
};

/*
 * Which direction of metric NAME in UNIT is better. Neither the stored
 * document nor the database carries the model's higher_is_better, so it
 * is derived: times (latency, durations) and names of costs (errors,
 * drops, retransmits, CPU per unit of work...) are lower-is-better; rates
 * (bytes, bits or operations per second) are higher-is-better; anything
 * else (counts, sizes, percentages, frequencies) is BETTER_UNKNOWN rather
 * than a guess.
 */
enum better metric_better(const char *name, enum unit unit);

/* "higher", "lower" or "-": the word for B. */
const char *better_name(enum better b);

/*
 * Whether B against the baseline A (in UNIT) is better said as the
 * difference B - A than as a ratio: when a ratio would mislead (0.0 % ->
 * 1.1 % is "202x", 1.1 % -> 0.0 % is "0.00x"): A is zero or negative, B
 * is negative, B is less than a hundredth of A, or either shows as zero
 * in the table ("0.0 %", "0 ns": a base too small to see). Equal figures
 * and a missing one (NaN) are never a difference.
 */
bool compare_as_difference(double a, double b, enum unit unit);

/*
 * The change from the baseline A to B for people: the ratio "2.00x",
 * "123x"; "same" when both are 0; when compare_as_difference(), the
 * difference in the metric's unit with its sign ("+1.1 %", "-3.20 us");
 * "n/a" when either is missing (NaN).
 */
char *compare_ratio(char *buf, size_t len, double a, double b, enum unit unit);

enum noise {
	NOISE_UNKNOWN,		/* a side has no interval (fewer than 3 repetitions, or an older run) */
	NOISE_WITHIN,		/* the intervals overlap: not distinguishable */
	NOISE_BEYOND,		/* they do not */
};

/*
 * Whether two figures differ beyond the noise their repetitions measured:
 * the intervals of the medians [ALO, AHI] and [BLO, BHI] (struct metric's
 * ci_lo, ci_hi) must not overlap. NaN on either side: not judged.
 */
enum noise compare_noise(double alo, double ahi, double blo, double bhi);

/* "beyond noise", "not distinguishable" or "" for N. */
const char *noise_name(enum noise n);

/*
 * Whether B is better or worse than A, for a metric whose better direction
 * is DIR, given the noise judgement N: "better" or "worse" only for a
 * difference beyond the noise; "same" when the figures are equal; "" when
 * it cannot be said (direction unknown, a figure missing, the intervals
 * overlap or there are none: without them a difference is not evidence).
 */
const char *compare_change(double a, double b, enum better dir, enum noise n);

/* The fleet's spread of one figure (engpass fleet, report across hosts). */
struct fleet_band {
	size_t n;		/* finite values */
	double median;
	double mad;		/* median absolute deviation, scaled by 1.4826 (the normal's sigma) */
	double width;		/* K x max(mad, FLEET_MAD_FLOOR x |median|) */
	double lo, hi;		/* median -+ width */
	bool judged;		/* n >= FLEET_MIN_HOSTS */
};

#define FLEET_MIN_HOSTS 3	/* fewer values cannot tell a host from the rest */
#define FLEET_MAD_FLOOR 0.01	/* the spread is at least 1 % of the median */

/*
 * The band median -+ K x MAD of the finite values among V[0..N) (NaN is
 * skipped; V is not changed). The MAD is scaled by 1.4826 so that K reads
 * as standard deviations of normal noise, and taken as at least
 * FLEET_MAD_FLOOR of the median: hosts that agree to the digit do not
 * make every small difference an outlier. Not judged (and lo/hi NaN) with
 * fewer than FLEET_MIN_HOSTS values.
 */
void fleet_band(const double *v, size_t n, double k, struct fleet_band *b);

/* -1 below B's band, 1 above it, 0 within it or not judged (or X is NaN). */
int fleet_side(const struct fleet_band *b, double x);

#endif
