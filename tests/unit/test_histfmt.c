/* SPDX-License-Identifier: MIT */
/*
 * Tests of the history commands' pure rules (cli/histfmt.h): a column
 * never overflows its cap and says it was cut; the better direction of a
 * metric; a ratio from 0 is not a number; better/worse follow the
 * direction.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "cli/histfmt.h"

static void test_fit(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(hist_fit(b, sizeof(b), "quick", 8, false), "quick");
	assert_string_equal(hist_fit(b, sizeof(b), "quick", 8, true), "quick   ");
	assert_string_equal(hist_fit(b, sizeof(b), "disk --time 1s", 8, false), "disk --\xe2\x80\xa6");
	assert_string_equal(hist_fit(b, sizeof(b), "a\nb", 8, false), "a b");
	assert_string_equal(hist_fit(b, sizeof(b), NULL, 2, true), "  ");
	/* A multibyte character is kept whole or dropped whole. */
	assert_string_equal(hist_fit(b, sizeof(b), "\xc3\xa9t\xc3\xa9 long", 3, false), "\xc3\xa9t\xe2\x80\xa6");
	/* A small buffer: whole characters only, still terminated. */
	assert_string_equal(hist_fit(b, 4, "abcdef", 10, false), "abc");
	assert_int_equal(hist_cols("\xc2\xb5s"), 2);
	assert_int_equal(hist_cols(NULL), 0);
	/* A 2,000-character string fits its cap. */
	{
		char big[2001];

		memset(big, 'x', 2000);
		big[2000] = 0;
		hist_fit(b, sizeof(b), big, 20, true);
		assert_int_equal(strlen(b), 19 + 3);
	}
}

static void test_better(void **state)
{
	(void)state;
	assert_int_equal(metric_better("lat_p99", UNIT_NS), BETTER_LOWER);
	assert_int_equal(metric_better("duration", UNIT_SECONDS), BETTER_LOWER);
	assert_int_equal(metric_better("read", UNIT_BYTES_PER_S), BETTER_HIGHER);
	assert_int_equal(metric_better("throughput", UNIT_BITS_PER_S), BETTER_HIGHER);
	assert_int_equal(metric_better("iops", UNIT_PER_S), BETTER_HIGHER);
	assert_int_equal(metric_better("retransmits", UNIT_COUNT), BETTER_LOWER);
	assert_int_equal(metric_better("errors", UNIT_PER_S), BETTER_LOWER);
	assert_int_equal(metric_better("cpu_usr_per_io", UNIT_NS), BETTER_LOWER);
	assert_int_equal(metric_better("values", UNIT_COUNT), BETTER_UNKNOWN);
	/* a rate of a cost is a cost; a share or a frequency is not guessed */
	assert_int_equal(metric_better("drops", UNIT_PER_S), BETTER_LOWER);
	assert_int_equal(metric_better("rx_lost", UNIT_COUNT), BETTER_LOWER);
	assert_int_equal(metric_better("cpu_busy", UNIT_PERCENT), BETTER_LOWER);
	assert_int_equal(metric_better("hit_ratio", UNIT_PERCENT), BETTER_UNKNOWN);
	assert_int_equal(metric_better("freq", UNIT_MHZ), BETTER_UNKNOWN);
	assert_string_equal(better_name(metric_better("read", UNIT_BYTES_PER_S)), "higher");
	assert_int_equal(metric_better("size", UNIT_BYTES), BETTER_UNKNOWN);
	assert_string_equal(better_name(BETTER_HIGHER), "higher");
	assert_string_equal(better_name(BETTER_LOWER), "lower");
	assert_string_equal(better_name(BETTER_UNKNOWN), "-");
}

static void test_ratio(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(compare_ratio(b, sizeof(b), 1000, 2000, UNIT_COUNT), "2.00x");
	assert_string_equal(compare_ratio(b, sizeof(b), 2, 1, UNIT_COUNT), "0.50x");
	assert_string_equal(compare_ratio(b, sizeof(b), 0, 0, UNIT_PERCENT), "same");
	assert_string_equal(compare_ratio(b, sizeof(b), 1, 250, UNIT_BYTES_PER_S), "250x");
	assert_string_equal(compare_ratio(b, sizeof(b), 1e9, 1.005e9, UNIT_BYTES_PER_S), "1.00x");
	assert_string_equal(compare_ratio(b, sizeof(b), NAN, 1, UNIT_COUNT), "n/a");
	assert_string_equal(compare_ratio(b, sizeof(b), 1, NAN, UNIT_COUNT), "n/a");
}

/*
 * A zero or near-zero base is a difference in the metric's unit, never
 * "202x" (0.0 % -> 1.1 %) or "0.00x" (1.1 % -> 0.0 %).
 */
static void test_ratio_near_zero(void **state)
{
	char b[32];

	(void)state;
	/* 0.0054 % shows as 0.0 %: 1.1 / 0.0054 would be 202x */
	assert_true(compare_as_difference(0.0054, 1.1, UNIT_PERCENT));
	compare_ratio(b, sizeof(b), 0.0054, 1.1, UNIT_PERCENT);
	assert_true(b[0] == '+' && strstr(b, "1.1") && strchr(b, '%') && !strchr(b, 'x'));
	/* and back: not 0.00x */
	assert_true(compare_as_difference(1.1, 0.0054, UNIT_PERCENT));
	compare_ratio(b, sizeof(b), 1.1, 0.0054, UNIT_PERCENT);
	assert_true(b[0] == '-' && strstr(b, "1.1") && !strchr(b, 'x'));
	/* exactly 0 on either side */
	compare_ratio(b, sizeof(b), 0, 1.1, UNIT_PERCENT);
	assert_true(b[0] == '+' && !strchr(b, 'x'));
	compare_ratio(b, sizeof(b), 5, 0, UNIT_COUNT);
	assert_true(b[0] == '-' && strchr(b, '5') && !strchr(b, 'x'));
	/* less than a hundredth of the base: a ratio would be <0.01x */
	assert_true(compare_as_difference(1000, 1, UNIT_COUNT));
	/* negative figures have no ratio */
	assert_true(compare_as_difference(-1, 1, UNIT_COUNT));
	/* ordinary figures, equal ones and missing ones are not differences */
	assert_false(compare_as_difference(1000, 2000, UNIT_COUNT));
	assert_false(compare_as_difference(1, 250, UNIT_BYTES_PER_S));
	assert_false(compare_as_difference(1.1, 1.1, UNIT_PERCENT));
	assert_false(compare_as_difference(0, 0, UNIT_PERCENT));
	assert_false(compare_as_difference(NAN, 1, UNIT_PERCENT));
	assert_false(compare_as_difference(50.0, 49.5, UNIT_PERCENT));
}

static void test_noise(void **state)
{
	(void)state;
	/* Intervals of the medians that do not overlap: beyond the noise, either way round. */
	assert_int_equal(compare_noise(1, 2, 3, 4), NOISE_BEYOND);
	assert_int_equal(compare_noise(3, 4, 1, 2), NOISE_BEYOND);
	/* Overlapping, one inside the other, or touching: not distinguishable. */
	assert_int_equal(compare_noise(1, 3, 2, 4), NOISE_WITHIN);
	assert_int_equal(compare_noise(1, 10, 4, 5), NOISE_WITHIN);
	assert_int_equal(compare_noise(1, 2, 2, 3), NOISE_WITHIN);
	/* Equal points (a deterministic figure repeated) overlap. */
	assert_int_equal(compare_noise(2, 2, 2, 2), NOISE_WITHIN);
	/* No interval on a side (single run, two repetitions, an older run): not judged. */
	assert_int_equal(compare_noise(NAN, NAN, 3, 4), NOISE_UNKNOWN);
	assert_int_equal(compare_noise(1, 2, NAN, NAN), NOISE_UNKNOWN);
	assert_string_equal(noise_name(NOISE_BEYOND), "beyond noise");
	assert_string_equal(noise_name(NOISE_WITHIN), "not distinguishable");
	assert_string_equal(noise_name(NOISE_UNKNOWN), "");
}

static void test_change(void **state)
{
	(void)state;
	assert_string_equal(compare_change(1, 2, BETTER_HIGHER, NOISE_BEYOND), "better");
	assert_string_equal(compare_change(1, 2, BETTER_LOWER, NOISE_BEYOND), "worse");
	assert_string_equal(compare_change(2, 1, BETTER_LOWER, NOISE_BEYOND), "better");
	assert_string_equal(compare_change(2, 1, BETTER_HIGHER, NOISE_BEYOND), "worse");
	/* Equal figures are the same, judged or not. */
	assert_string_equal(compare_change(2, 2, BETTER_LOWER, NOISE_UNKNOWN), "same");
	assert_string_equal(compare_change(2, 2, BETTER_LOWER, NOISE_WITHIN), "same");
	/* Overlapping intervals, or none: a difference is not called better, worse or same. */
	assert_string_equal(compare_change(1, 2, BETTER_HIGHER, NOISE_WITHIN), "");
	assert_string_equal(compare_change(1, 2, BETTER_HIGHER, NOISE_UNKNOWN), "");
	assert_string_equal(compare_change(1, 2, BETTER_UNKNOWN, NOISE_BEYOND), "");
	assert_string_equal(compare_change(1, NAN, BETTER_HIGHER, NOISE_BEYOND), "");
}

/* Debian 12's cmocka has no assert_double_equal. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* The fleet's band: median -+ k x scaled MAD, with its floor; NaN skipped; fewer than 3 not judged. */
static void test_fleet_band(void **state)
{
	const double v[] = { 10, 11, 12, NAN, 13, 40 };
	const double same[] = { 100, 100, 100, 101, 98 };
	struct fleet_band b;

	(void)state;
	fleet_band(v, 6, 3, &b);
	assert_int_equal(b.n, 5);
	assert_true(b.judged);
	assert_near(b.median, 12, 1e-12);
	/* |dev| = 2 1 0 1 28: MAD 1, scaled 1.4826. */
	assert_near(b.mad, 1.4826, 1e-12);
	assert_near(b.lo, 12 - 3 * 1.4826, 1e-12);
	assert_int_equal(fleet_side(&b, 40), 1);
	assert_int_equal(fleet_side(&b, 10), 0);
	assert_int_equal(fleet_side(&b, 7), -1);
	assert_int_equal(fleet_side(&b, NAN), 0);
	/* MAD 0: the floor (1 % of the median) keeps 101 and 98 within 3 x 1. */
	fleet_band(same, 5, 3, &b);
	assert_near(b.mad, 0, 0);
	assert_near(b.width, 3, 1e-12);
	assert_int_equal(fleet_side(&b, 101), 0);
	assert_int_equal(fleet_side(&b, 98), 0);
	assert_int_equal(fleet_side(&b, 96.9), -1);
	/* Two values: a median, no band. */
	fleet_band(v, 2, 3, &b);
	assert_false(b.judged);
	assert_near(b.median, 10.5, 1e-12);
	assert_int_equal(fleet_side(&b, 1000), 0);
	fleet_band(NULL, 0, 3, &b);
	assert_int_equal(b.n, 0);
	assert_true(isnan(b.median));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_fleet_band),
		cmocka_unit_test(test_better),
		cmocka_unit_test(test_ratio),
		cmocka_unit_test(test_ratio_near_zero),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
