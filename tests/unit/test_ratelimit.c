/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/base/ratelimit.c. The limiter takes the time as an
 * argument, so every test runs on a simulated clock: the long-run rate,
 * burst behaviour, requests larger than the bucket and the unlimited case
 * are checked without sleeping and without depending on the machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "lib/compiler.h"
#include "core/base/ratelimit.h"

#define SEC NS_PER_SEC
#define MS NS_PER_MS

/* Deterministic pseudo-random jitter (a 64-bit LCG), in [0, max). */
static uint64_t jitter(uint64_t *seed, uint64_t max)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return max ? (*seed >> 33) % max : 0;
}

/*
 * Run a sender for 'duration' simulated ns: ask, wait the answer (plus a
 * pseudo-random oversleep of up to 'max_jitter'), send. Returns the bytes
 * sent; checks at every send that no more than burst + rate * t bytes have
 * gone out by time t.
 */
static uint64_t simulate(double rate, double burst, uint64_t req,
			 uint64_t duration, uint64_t max_jitter)
{
	struct ratelimit rl;
	uint64_t sent = 0, seed = 42;
	mono_ns now = 1000 * SEC;	/* the clock does not start at 0 */
	mono_ns start = now;

	ratelimit_init(&rl, rate, burst, now);
	for (;;) {
		uint64_t d = ratelimit_delay_ns(&rl, req, now);
		mono_ns t = now + d;

		if (t - start >= duration)
			break;
		sent += req;
		if ((double)sent > burst + rate * (double)(t - start) / 1e9 + 1.0)
			fail_msg("rate %.0f: %llu bytes by %.6f s", rate,
				 (unsigned long long)sent,
				 (double)(t - start) / 1e9);
		now = t + jitter(&seed, max_jitter);
	}
	return sent;
}

static void test_long_run_rate(void **state)
{
	static const struct {
		double rate;
		double burst;
		uint64_t req;
		uint64_t max_jitter;
	} cases[] = {
		{ 500 * 1024.0, 4 * 4096.0, 4096, 0 },
		{ 1024 * 1024.0, 4 * 4096.0, 4096, 0 },
		{ 12.5e6, 64 * 1024.0, 4096, 0 },	/* 100Mbit/s */
		{ 125e6, 256 * 1024.0, 4096, 0 },	/* 1Gbit/s */
		{ 1e9, 1024 * 1024.0, 4096, 0 },
		{ 100.0, 0.0, 1, 0 },			/* burst 0, no jitter */
		{ 1000.0, 30.0, 3, 0 },		/* odd sizes */
		{ 1024 * 1024.0, 64 * 1024.0, 4096, 1 * MS },	/* oversleep */
		{ 500 * 1024.0, 32 * 1024.0, 60 * 1024, 5 * MS },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t sent = simulate(cases[i].rate, cases[i].burst,
					 cases[i].req, 10 * SEC,
					 cases[i].max_jitter);
		double got = (double)sent / 10.0;

		if (fabs(got - cases[i].rate) > 0.01 * cases[i].rate)
			fail_msg("case %zu: %.1f B/s, want %.1f +-1%%", i, got,
				 cases[i].rate);
	}
}

/* With no bucket to absorb oversleeping, the rate can only fall short. */
static void test_no_burst_never_exceeds(void **state)
{
	uint64_t sent;

	(void)state;
	sent = simulate(1024 * 1024.0, 0.0, 4096, 10 * SEC, 2 * MS);
	assert_true((double)sent / 10.0 <= 1024 * 1024.0 * 1.0001);
	assert_true(sent > 0);
}

static void test_burst(void **state)
{
	struct ratelimit rl;
	mono_ns t = 5 * SEC;

	(void)state;
	ratelimit_init(&rl, 1000.0, 10000.0, t);
	/* a full bucket lets ten 1000-byte requests go out at once */
	for (int i = 0; i < 10; i++)
		assert_int_equal(ratelimit_delay_ns(&rl, 1000, t), 0);
	/* the eleventh has to wait for 1000 bytes of refill: one second */
	assert_int_equal(ratelimit_delay_ns(&rl, 1000, t), SEC);
	t += SEC;
	/* after a long idle time the bucket holds 'burst', not more */
	t += 100 * SEC;
	for (int i = 0; i < 10; i++)
		assert_int_equal(ratelimit_delay_ns(&rl, 1000, t), 0);
	assert_true(ratelimit_delay_ns(&rl, 1000, t) > 0);
}

static void test_partial_refill(void **state)
{
	struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 1000.0, 1000.0, 0);
	assert_int_equal(ratelimit_delay_ns(&rl, 1000, 0), 0);
	/* 250 ms later a quarter of the bucket is back */
	assert_int_equal(ratelimit_delay_ns(&rl, 250, 250 * MS), 0);
	assert_int_equal(ratelimit_delay_ns(&rl, 1, 250 * MS), 1 * MS);
}

static void test_larger_than_burst(void **state)
{
	struct ratelimit rl;
	mono_ns t = 0;
	uint64_t d;

	(void)state;
	ratelimit_init(&rl, 1000.0, 100.0, t);
	/* granted at once, the debt of 4900 bytes is the wait */
	d = ratelimit_delay_ns(&rl, 5000, t);
	assert_int_equal(d, 4900 * MS);
	t += d;
	/* at the end of the wait the debt is paid, the bucket empty */
	assert_int_equal(ratelimit_delay_ns(&rl, 0, t), 0);
	assert_int_equal(ratelimit_delay_ns(&rl, 1, t), 1 * MS);
}

static void test_unlimited(void **state)
{
	static const double rates[] = { 0.0, -5.0, NAN, INFINITY };
	struct ratelimit lazy = RATELIMIT_INIT(0, 0);

	(void)state;
	assert_true(ratelimit_unlimited(&lazy));
	assert_int_equal(ratelimit_delay_ns(&lazy, UINT64_MAX, 0), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++) {
		struct ratelimit rl;

		ratelimit_init(&rl, rates[i], 0.0, 123);
		assert_true(ratelimit_unlimited(&rl));
		for (int j = 0; j < 1000; j++)
			assert_int_equal(ratelimit_delay_ns(&rl, 1 << 30, 123), 0);
	}
}

/* RATELIMIT_INIT starts with a full bucket at the first call. */
static void test_static_init_lazy_start(void **state)
{
	struct ratelimit rl = RATELIMIT_INIT(1000.0, 1000.0);

	(void)state;
	assert_false(ratelimit_unlimited(&rl));
	assert_int_equal(ratelimit_delay_ns(&rl, 1000, 7777 * SEC), 0);
	assert_int_equal(ratelimit_delay_ns(&rl, 1000, 7777 * SEC), SEC);
}

static void test_time_going_backwards(void **state)
{
	struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 1000.0, 1000.0, 10 * SEC);
	assert_int_equal(ratelimit_delay_ns(&rl, 1000, 10 * SEC), 0);
	/* an earlier time earns nothing */
	assert_int_equal(ratelimit_delay_ns(&rl, 500, 3 * SEC), 500 * MS);
}

static void test_absurd_wait(void **state)
{
	struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 1e-12, 0.0, 0);
	assert_int_equal(ratelimit_delay_ns(&rl, UINT64_MAX, 0), UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_run_rate),
		cmocka_unit_test(test_no_burst_never_exceeds),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_partial_refill),
		cmocka_unit_test(test_larger_than_burst),
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_static_init_lazy_start),
		cmocka_unit_test(test_time_going_backwards),
		cmocka_unit_test(test_absurd_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
