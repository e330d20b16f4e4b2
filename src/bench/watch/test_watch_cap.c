/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capacity from the daemon's own CPU
 * (src/bench/watch/watch_cap.c): a constant cost per bit gives the same
 * capacity at every load; a quota binds the daemon's threads but not the
 * softirq work on its core; the interval brackets the median; each
 * refusal says why; tick aliasing is named by its two tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench/watch/watch_cap.h"

#define M 1e6

static void assert_near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= fabs(want) * rel))
		fail_msg("got %.6g, want %.6g (within %.2g)", got, want, rel);
}

/*
 * A daemon costing 1 s of CPU per 500 Mbit and its core 0.1 s of ksoftirqd
 * per 500 Mbit: 30 % load or 90 %, one core carries 500/1.1 Mbit/s.
 */
static void test_same_at_every_load(void **state)
{
	(void)state;
	for (double load = 0.3; load < 1; load += 0.3) {
		struct watch_cap c;
		struct watch_cap_result r;
		double rate = load * 500 * M / 1.1;

		watch_cap_init(&c);
		for (int i = 0; i < 20; i++)
			watch_cap_add(&c, 0.25, rate, 0.25 * rate / (500 * M), 0.025 * rate / (500 * M), NAN, NAN);
		assert_int_equal(watch_cap_finish(&c, 1, 1, 2, NAN, &r), 0);
		assert_true(r.available);
		assert_int_equal(r.used, 20);
		assert_near(r.per_cpu, 500 * M, 1.0 / 128);
		assert_near(r.per_core, 500 * M / 1.1, 1.0 / 128);
		assert_near(r.capacity, 500 * M / 1.1, 1.0 / 128);
		assert_false(r.quota_bound);
		assert_near(r.load_pct, 100 * load, 0.01);
		assert_near(r.total_bits_per_s, 2 * 500 * M / 1.1, 1.0 / 128);
		assert_false(r.r_judged);	/* a steady traffic says nothing about r */
		watch_cap_release(&c);
	}
}

/* Half a CPU of quota: the daemon's threads bind (0.5 x 500), not its core (500 / 1.1). */
static void test_quota_binds(void **state)
{
	struct watch_cap c;
	struct watch_cap_result r;

	(void)state;
	watch_cap_init(&c);
	for (int i = 0; i < 10; i++)
		watch_cap_add(&c, 1, 100 * M, 0.2, 0.02, NAN, NAN);
	assert_int_equal(watch_cap_finish(&c, 0.5, 1, 2, 600 * M, &r), 0);
	assert_true(r.quota_bound);
	assert_near(r.capacity, 250 * M, 1.0 / 128);
	assert_true(r.capacity_lo <= r.capacity && r.capacity <= r.capacity_hi);
	assert_true(r.capped);	/* 2 x 455 > 600 */
	assert_near(r.total_bits_per_s, 600 * M, 1e-12);
	watch_cap_release(&c);
}

/* Noisy intervals: the 95 % interval brackets the median and narrows with more intervals. */
static void test_interval(void **state)
{
	struct watch_cap c;
	struct watch_cap_result r16, r400;

	(void)state;
	watch_cap_init(&c);
	for (int i = 0; i < 400; i++) {
		double rate = 100 * M * (1 + 0.4 * sin(i * 1.7));

		watch_cap_add(&c, 0.25, rate, 0.25 * rate / (400 * M) * (1 + 0.1 * sin(i * 2.3)), 0, NAN, NAN);
		if (i == 15)
			assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r16), 0);
	}
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r400), 0);
	assert_true(r16.capacity_lo < r16.capacity && r16.capacity < r16.capacity_hi);
	assert_true(r400.capacity_lo <= r400.capacity && r400.capacity <= r400.capacity_hi);
	assert_true(r400.capacity_hi - r400.capacity_lo < r16.capacity_hi - r16.capacity_lo);
	assert_near(r400.capacity, 400 * M, 0.03);
	assert_true(r400.r_judged);
	assert_true(r400.r > 0.9);
	watch_cap_release(&c);
}

static void test_too_few(void **state)
{
	struct watch_cap c;
	struct watch_cap_result r;

	(void)state;
	watch_cap_init(&c);
	for (int i = 0; i < 20; i++)
		watch_cap_add(&c, 0.25, i < 5 ? 10 * M : 0, 0.01, 0, NAN, NAN);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), -ENODATA);
	assert_false(r.available);
	assert_non_null(strstr(r.why, "too few intervals with traffic: 5 of 20"));
	watch_cap_release(&c);

	/* Traffic, but the process never ran: it is not the one carrying it. */
	watch_cap_init(&c);
	for (int i = 0; i < 20; i++)
		watch_cap_add(&c, 0.25, 10 * M, 0, 0, NAN, NAN);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), -ENODATA);
	assert_non_null(strstr(r.why, "run time was unknown or zero in 20 of the 20"));
	watch_cap_release(&c);
}

/* Traffic ramps while the daemon's CPU stays flat: unrelated, refused with r. */
static void test_unrelated(void **state)
{
	struct watch_cap c;
	struct watch_cap_result r;

	(void)state;
	watch_cap_init(&c);
	for (int i = 0; i < 20; i++)
		watch_cap_add(&c, 0.25, (10 + 5 * (i % 5)) * M, 0.1 + 0.01 * ((i * 7) % 3), 0, NAN, NAN);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), -ENODATA);
	assert_true(r.r_judged);
	assert_non_null(strstr(r.why, "did not move together: r = "));
	watch_cap_release(&c);
}

/* A cost per bit that jumps by 4x between intervals is not steady: refused. */
static void test_unsteady(void **state)
{
	struct watch_cap c;
	struct watch_cap_result r;

	(void)state;
	watch_cap_init(&c);
	for (int i = 0; i < 20; i++)
		watch_cap_add(&c, 0.25, 50 * M, i % 2 ? 0.02 : 0.08, 0, NAN, NAN);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), -ENODATA);
	assert_non_null(strstr(r.why, "not steady"));
	watch_cap_release(&c);
}

/* The fastd: ticks read 42 % while fastd ran 64 %; and ticks that swing +-30 points. */
static void test_aliasing(void **state)
{
	struct watch_cap c;
	struct watch_cap_result r;

	(void)state;
	watch_cap_init(&c);
	for (int i = 0; i < 12; i++)
		watch_cap_add(&c, 0.25, 100 * M, 0.16, 0, 42, 64);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), 0);
	assert_true(r.alias_under);
	assert_false(r.alias_swing);
	assert_near(r.alias_mean, -22, 1e-9);
	watch_cap_release(&c);

	watch_cap_init(&c);
	for (int i = 0; i < 12; i++)
		watch_cap_add(&c, 0.25, 100 * M, 0.16, 0, i % 2 ? 94 : 34, 64);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), 0);
	assert_false(r.alias_under);
	assert_true(r.alias_swing);
	watch_cap_release(&c);

	/* Tick sampling noise of a few points is no aliasing. */
	watch_cap_init(&c);
	for (int i = 0; i < 12; i++)
		watch_cap_add(&c, 0.25, 100 * M, 0.16, 0, 64 + (i % 3 - 1) * 6, 64);
	assert_int_equal(watch_cap_finish(&c, 1, 1, 1, NAN, &r), 0);
	assert_false(r.alias_under || r.alias_swing || r.alias_over);
	watch_cap_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_at_every_load),
		cmocka_unit_test(test_quota_binds),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_unrelated),
		cmocka_unit_test(test_unsteady),
		cmocka_unit_test(test_aliasing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
