/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the clock module (src/core/base/clock.c). The machine running
 * them is shared and noisy, so they check behaviour and ordering only:
 * monotonic time never goes back, sleeping to a deadline never returns
 * before it, a passed deadline does not sleep, CPU time grows while the
 * thread spins and grows less than wall time while it sleeps. No test
 * asserts a speed or an absolute duration.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "core/base/clock.h"
#include "lib/compiler.h"

/* Upper bound on any busy loop here, so a broken clock fails instead of hanging. */
#define SPIN_LIMIT_NS (30 * NS_PER_SEC)

static void test_mono_never_goes_back(void **state)
{
	mono_ns prev = clock_mono(), now;
	int i;

	(void)state;
	assert_true(prev > 0);
	for (i = 0; i < 1000000; i++) {
		now = clock_mono();
		if (now < prev)
			fail_msg("clock_mono went back from %llu to %llu",
				 (unsigned long long)prev, (unsigned long long)now);
		prev = now;
	}
}

static void test_mono_res(void **state)
{
	(void)state;
	/* Linux reports 1 ns for hrtimers, but any positive value below 1 s is sane. */
	assert_true(clock_mono_res_ns() > 0);
	assert_true(clock_mono_res_ns() < NS_PER_SEC);
}

static void test_wall(void **state)
{
	(void)state;
	/* Later than 2001-09-09 (10^18 ns): a plausible epoch-based clock. */
	assert_true(clock_wall_ns() > 1000000000000000000LL);
}

static void test_sleep_past_deadline(void **state)
{
	mono_ns now = clock_mono();

	(void)state;
	/* A deadline in the past, now, and 0: return 0 without sleeping. */
	assert_int_equal(clock_sleep_until(now - NS_PER_MS), 0);
	assert_int_equal(clock_sleep_until(now), 0);
	assert_int_equal(clock_sleep_until(0), 0);
}

static void test_sleep_never_early(void **state)
{
	static const uint64_t delays[] = { 1, 1000, 100 * NS_PER_US, NS_PER_MS, 20 * NS_PER_MS };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(delays); i++) {
		mono_ns deadline = clock_mono() + delays[i];

		assert_int_equal(clock_sleep_until(deadline), 0);
		if (clock_mono() < deadline)
			fail_msg("woke %llu ns before the deadline",
				 (unsigned long long)(deadline - clock_mono()));
	}
}

/* Spin until the thread has used at least 'cpu' ns of CPU time (or a wall limit passes). */
static void spin_cpu(uint64_t cpu)
{
	uint64_t start = clock_thread_cpu_ns();
	mono_ns limit = clock_mono() + SPIN_LIMIT_NS;
	volatile uint64_t sink = 0;

	while (clock_thread_cpu_ns() - start < cpu && clock_mono() < limit)
		sink++;
}

static void test_thread_cpu_grows_when_spinning(void **state)
{
	uint64_t t0, p0, t1, p1;

	(void)state;
	t0 = clock_thread_cpu_ns();
	p0 = clock_process_cpu_ns();
	spin_cpu(20 * NS_PER_MS);
	t1 = clock_thread_cpu_ns();
	p1 = clock_process_cpu_ns();
	assert_true(t1 > t0);
	assert_true(p1 > p0);
	/* The process includes this thread, so it used as much (1 ms of slack). */
	assert_true(p1 - p0 + NS_PER_MS >= t1 - t0);
}

static void test_thread_cpu_small_while_sleeping(void **state)
{
	mono_ns w0, deadline;
	uint64_t c0, cpu, wall;

	(void)state;
	w0 = clock_mono();
	c0 = clock_thread_cpu_ns();
	deadline = w0 + 50 * NS_PER_MS;
	while (clock_mono() < deadline) {
		int err = clock_sleep_until(deadline);

		if (err && err != -EINTR)
			fail_msg("clock_sleep_until: %d", err);
	}
	cpu = clock_thread_cpu_ns() - c0;
	wall = elapsed_ns(w0, clock_mono());
	assert_true(wall >= 50 * NS_PER_MS);
	assert_true(cpu < wall);
}

/* got equals want to within 1e-15 relative (cmocka 1.1.5 compares only floats). */
static void assert_near(double got, double want)
{
	if (fabs(got - want) > fabs(want) * 1e-15)
		fail_msg("got %.17g, want %.17g", got, want);
}

static void test_elapsed(void **state)
{
	static const struct {
		mono_ns start, end;
		uint64_t ns;
		double ms, s;
	} cases[] = {
		{ 0, 0, 0, 0.0, 0.0 },
		{ 5, 5, 0, 0.0, 0.0 },
		{ 10, 5, 0, 0.0, 0.0 },			/* end before start */
		{ UINT64_MAX, 0, 0, 0.0, 0.0 },
		{ 0, 1, 1, 1e-6, 1e-9 },
		{ 0, 1500000, 1500000, 1.5, 0.0015 },
		{ 1000, 1000 + 3 * NS_PER_SEC, 3 * NS_PER_SEC, 3000.0, 3.0 },
		{ 0, UINT64_MAX, UINT64_MAX, (double)UINT64_MAX / 1e6, (double)UINT64_MAX / 1e9 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(elapsed_ns(cases[i].start, cases[i].end), cases[i].ns);
		assert_near(elapsed_ms(cases[i].start, cases[i].end), cases[i].ms);
		assert_near(elapsed_s(cases[i].start, cases[i].end), cases[i].s);
	}
	assert_int_equal(NS_PER_SEC, 1000 * NS_PER_MS);
	assert_int_equal(NS_PER_MS, 1000 * NS_PER_US);
	assert_int_equal(NS_PER_US, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mono_never_goes_back),
		cmocka_unit_test(test_mono_res),
		cmocka_unit_test(test_wall),
		cmocka_unit_test(test_sleep_past_deadline),
		cmocka_unit_test(test_sleep_never_early),
		cmocka_unit_test(test_thread_cpu_grows_when_spinning),
		cmocka_unit_test(test_thread_cpu_small_while_sleeping),
		cmocka_unit_test(test_elapsed),
	};

	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
