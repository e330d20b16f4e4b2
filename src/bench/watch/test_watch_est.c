/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capacity estimate of `engpass watch`
 * (src/bench/watch/watch_est.c): seed 004's own supernode figures must come out
 * of the formula, intervals are weighted by time, only intervals at or
 * above the threshold count, and every "unavailable" case says why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench/watch/watch_est.h"

#define M 1e6
#define G 1e9

static void assert_near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= fabs(want) * rel))
		fail_msg("got %.6g, want %.6g (within %.2g)", got, want, rel);
}

/* Seed 004, sn08: 225 Mbit/s at ~90 % of a 3.4 GHz core, 7 cores, 1 Gbit/s uplink. */
static void test_seed_sn08(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	for (int i = 0; i < 10; i++)
		watch_est_add(&e, 1.0, 225 * M, 0, 90);
	assert_int_equal(watch_est_finish(&e, 3400, 7, 1 * G, &r), 0);
	assert_true(r.available);
	assert_int_equal(r.used, 10);
	assert_int_equal(r.cpu, 0);
	assert_near(r.measured_bits_per_s, 225 * M, 1e-12);
	assert_near(r.measured_busy_pct, 90, 1e-12);
	assert_near(r.per_core_bits_per_s, 250 * M, 1e-12);
	assert_near(r.per_ghz_bits_per_s, 250 * M / 3.4, 1e-12);	/* 73.5, the seed's "73" */
	assert_near(r.uncapped_bits_per_s, 1750 * M, 1e-12);	/* the seed's "1.7 GBit/s" */
	assert_true(r.capped);
	assert_near(r.total_bits_per_s, 1 * G, 1e-12);		/* "Limitierung durch Anbindung: 1 GBit/s" */
}

/* Seed 004, sn01: 156 Mbit/s per core at 2.26 GHz, 12 cores, 10 Gbit/s: not capped. */
static void test_seed_sn01_uncapped_by_fast_link(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	watch_est_add(&e, 2.0, 156 * M, 1, 100);
	assert_int_equal(watch_est_finish(&e, 2260, 12, 10 * G, &r), 0);
	assert_near(r.per_ghz_bits_per_s, 156 * M / 2.26, 1e-12);	/* 69 Mbit/s per GHz */
	assert_near(r.total_bits_per_s, 12 * 156 * M, 1e-12);		/* 1.8 Gbit/s */
	assert_false(r.capped);
}

/* Weighted by time; the 50 % interval is left out. */
static void test_weighting_and_threshold(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	watch_est_add(&e, 1.0, 100 * M, 0, 80);
	watch_est_add(&e, 3.0, 200 * M, 0, 100);
	watch_est_add(&e, 1.0, 500 * M, 0, 50);
	watch_est_add(&e, 0.5, 300 * M, 0, 70);	/* exactly at the threshold: counts */
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), 0);
	assert_int_equal(r.intervals, 4);
	assert_int_equal(r.used, 3);
	assert_near(r.used_s, 4.5, 1e-12);
	assert_near(r.time_s, 5.5, 1e-12);
	assert_near(r.measured_bits_per_s, (100 + 600 + 150) * M / 4.5, 1e-12);
	assert_near(r.measured_busy_pct, (80 + 300 + 35) / 4.5, 1e-12);
	assert_near(r.per_core_bits_per_s, (850 * M / 4.5) * 100 / (415 / 4.5), 1e-12);
	/* Frequency unknown: no per-GHz figure; link unknown: uncapped. */
	assert_true(isnan(r.per_ghz_bits_per_s));
	assert_true(isnan(r.link_bits_per_s));
	assert_false(r.capped);
	assert_near(r.total_bits_per_s, 2 * r.per_core_bits_per_s, 1e-12);
}

static void test_busiest_core_moves(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	watch_est_add(&e, 1.0, 100 * M, 0, 90);
	watch_est_add(&e, 1.0, 100 * M, 1, 90);
	assert_int_equal(watch_est_finish(&e, 1000, 0, NAN, &r), 0);
	assert_int_equal(r.cpu, -2);
	/* Cores unknown: no total. */
	assert_true(isnan(r.total_bits_per_s));
	assert_near(r.per_ghz_bits_per_s, 100 * M / 0.9, 1e-12);
}

static void test_unavailable_no_interval(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	assert_int_equal(watch_est_finish(&e, 2000, 2, NAN, &r), -ENODATA);
	assert_false(r.available);
	assert_non_null(strstr(r.why, "no complete interval"));
	/* Intervals without CPU data or time count as offered but give nothing. */
	watch_est_add(&e, 0, 100 * M, 0, 90);
	watch_est_add(&e, 1.0, 100 * M, -1, NAN);
	assert_int_equal(watch_est_finish(&e, 2000, 2, NAN, &r), -ENODATA);
	assert_int_equal(r.intervals, 2);
	assert_non_null(strstr(r.why, "no complete interval"));
}

static void test_unavailable_not_busy(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	watch_est_add(&e, 1.0, 900 * M, 0, 45);
	watch_est_add(&e, 1.0, 900 * M, 0, 69.9);
	assert_int_equal(watch_est_finish(&e, 2000, 2, NAN, &r), -ENODATA);
	assert_true(isnan(r.per_core_bits_per_s));
	assert_non_null(strstr(r.why, "reached 70 % at most"));
	assert_non_null(strstr(r.why, "below the 70 %"));
	assert_non_null(strstr(r.why, "2 intervals"));
}

static void test_unavailable_no_traffic(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 70);
	watch_est_add(&e, 1.0, 0, 0, 99);
	assert_int_equal(watch_est_finish(&e, 2000, 2, NAN, &r), -ENODATA);
	assert_non_null(strstr(r.why, "no traffic"));
	/* A busy interval with an unknown rate is not a zero rate. */
	watch_est_init(&e, 70);
	watch_est_add(&e, 1.0, NAN, 0, 99);
	assert_int_equal(watch_est_finish(&e, 2000, 2, NAN, &r), -ENODATA);
	assert_non_null(strstr(r.why, "unknown"));
}

static void test_custom_threshold(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 95);
	watch_est_add(&e, 1.0, 100 * M, 0, 90);
	assert_int_equal(watch_est_finish(&e, 2000, 2, NAN, &r), -ENODATA);
	assert_non_null(strstr(r.why, "below the 95 %"));
	watch_est_add(&e, 1.0, 100 * M, 0, 96);
	assert_int_equal(watch_est_finish(&e, 2000, 2, 50 * M, &r), 0);
	assert_int_equal(r.used, 1);
	assert_true(r.capped);
	assert_near(r.total_bits_per_s, 50 * M, 1e-12);
}

/* r of a load that follows the traffic is 1; of one that goes against it, -1; a ramp with noise in between. */
static void test_correlation(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 30);
	for (int i = 0; i < 10; i++)
		watch_est_add(&e, 0.25, (20 + 8 * i) * M, 1, 20 + 8 * i);	/* 20..92 % with the traffic */
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), 0);
	assert_near(r.r, 1, 1e-9);
	assert_true(r.r_judged);
	assert_int_equal(r.corr_n, 10);
	assert_true(r.load_sd > WATCH_EST_MIN_LOAD_SD);

	/* Seed 004's sn09: the load moved, the traffic did not follow: refused, saying why. */
	watch_est_init(&e, 30);
	for (int i = 0; i < 10; i++)
		watch_est_add(&e, 0.25, (i % 2 ? 100 : 140) * M, 1, 40 + 5 * i);
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), -ENODATA);
	assert_false(r.available);
	assert_true(r.r_judged);
	assert_true(r.r < WATCH_EST_MIN_R);
	assert_non_null(strstr(r.why, "did not move together"));
	assert_non_null(strstr(r.why, "over 10 intervals"));
	/* The figures are still there for the report. */
	assert_true(r.measured_bits_per_s > 0);

	/* A constant traffic under a moving load: r 0, refused. */
	watch_est_init(&e, 30);
	for (int i = 0; i < 6; i++)
		watch_est_add(&e, 1, 100 * M, 1, 40 + 10 * i);
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), -ENODATA);
	assert_near(r.r, 0, 1e-12);

	/* A saturated core the whole time: r not judged, the estimate stands. */
	watch_est_init(&e, 70);
	for (int i = 0; i < 10; i++)
		watch_est_add(&e, 1, (200 + i) * M, 1, 99 + (i % 2));
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), 0);
	assert_false(r.r_judged);
	assert_true(r.load_sd < WATCH_EST_MIN_LOAD_SD);

	/* Too few intervals: not judged. */
	watch_est_init(&e, 30);
	watch_est_add(&e, 1, 100 * M, 1, 40);
	watch_est_add(&e, 1, 10 * M, 1, 90);
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), 0);
	assert_false(r.r_judged);
	assert_near(r.r, -1, 1e-9);
}

/* Large rates with a small spread: the co-moments keep r exact where sums of squares would cancel. */
static void test_correlation_precision(void **state)
{
	struct watch_est e;

	(void)state;
	watch_est_init(&e, 0);
	for (int i = 0; i < 1000; i++)
		watch_est_corr_add(&e, 50 + (i % 10), 40 * G + (i % 10) * 1e3);
	assert_near(e.c_load_rate / sqrt(e.m2_load * e.m2_rate), 1, 1e-9);
}

/* Seed 004, sn08 with 2 Mbit/s users: 250 Mbit/s per core holds 125; at 225 Mbit/s, 12 more fit. */
static void test_users(void **state)
{
	struct watch_est e;
	struct watch_est_result r;
	double fit, more;

	(void)state;
	watch_est_init(&e, 70);
	for (int i = 0; i < 10; i++)
		watch_est_add(&e, 1.0, 225 * M, 0, 90);
	assert_int_equal(watch_est_finish(&e, 3400, 7, 1 * G, &r), 0);
	assert_int_equal(watch_est_users(&r, 2 * M, &fit, &more), 0);
	assert_near(fit, 125, 1e-12);
	assert_near(more, 12, 1e-12);
	assert_int_equal(watch_est_users(&r, 0, &fit, &more), -EINVAL);
	/* Over capacity already (a load past 100 % cannot happen, but the floor is 0). */
	r.measured_bits_per_s = 300 * M;
	assert_int_equal(watch_est_users(&r, 2 * M, &fit, &more), 0);
	assert_near(more, 0, 0);
	r.available = false;
	assert_int_equal(watch_est_users(&r, 2 * M, &fit, &more), -EINVAL);
}

/* --cpu 0-1: the load is the mean of two cores; per core is half of the two cores' capacity. */
static void test_load_cores(void **state)
{
	struct watch_est e;
	struct watch_est_result r;

	(void)state;
	watch_est_init(&e, 30);
	e.load_cores = 2;
	watch_est_add(&e, 1.0, 100 * M, -3, 50);	/* both cores half busy carry 100 Mbit/s */
	assert_int_equal(watch_est_finish(&e, NAN, 2, NAN, &r), 0);
	assert_near(r.load_capacity_bits_per_s, 200 * M, 1e-12);
	assert_near(r.per_core_bits_per_s, 100 * M, 1e-12);
	assert_int_equal(r.cpu, -3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_sn08),
		cmocka_unit_test(test_seed_sn01_uncapped_by_fast_link),
		cmocka_unit_test(test_weighting_and_threshold),
		cmocka_unit_test(test_busiest_core_moves),
		cmocka_unit_test(test_unavailable_no_interval),
		cmocka_unit_test(test_unavailable_not_busy),
		cmocka_unit_test(test_unavailable_no_traffic),
		cmocka_unit_test(test_custom_threshold),
		cmocka_unit_test(test_correlation),
		cmocka_unit_test(test_correlation_precision),
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_load_cores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
