/* SPDX-License-Identifier: MIT */
/*
 * Tests of the frame accounting of `engpass latency` (latency_acct.h), with
 * made-up clocks: deadlines met and missed, frames lost before and after
 * their work, interbench's penalty, the frame without a period, x's ramp on
 * an idle machine, gaming's overrun, and the statistics -- the SD is the
 * true standard deviation, and interbench's "+/- SD" differs from it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "bench/latency/latency_acct.h"

#define MS NS_PER_MS
#define US NS_PER_US

static struct lat_acct *new_acct(void)
{
	struct lat_acct *a = malloc(sizeof(*a));

	assert_non_null(a);
	lat_acct_init(a);
	return a;
}

/* One frame of a periodic task: wakes at WAKE, works until END (if not lost). */
static mono_ns step(struct lat_acct *a, struct lat_frame *f, mono_ns target, mono_ns wake, uint64_t work,
		    bool *ran)
{
	*ran = lat_frame_wake(a, f, target, wake);
	if (!*ran)
		return f->deadline;
	return lat_frame_done(a, f, wake + work);
}

static void test_audio_frames(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_frame f = { .deadline = 0, .period = 50 * MS };
	struct lat_summary s;
	mono_ns t;
	bool ran;

	(void)state;
	/* On time: 100 us late, work 2.5 ms: met, next frame at 50 ms. */
	t = step(a, &f, 0, 100 * US, 2500 * US, &ran);
	assert_true(ran);
	assert_int_equal(t, 50 * MS);
	/* Work ending exactly at the end of its period still meets it. */
	t = step(a, &f, t, t + 20 * US, 50 * MS - 20 * US, &ran);
	assert_int_equal(t, 100 * MS);
	assert_int_equal(a->met, 2);
	/*
	 * Wakes 30 ms late (130 ms), works 40 ms: ends at 170 ms, after the
	 * period's end (150 ms), k = 1: one deadline missed, penalty 50 ms,
	 * next frame at 200 ms, no frame counted as dropped (interbench
	 * counts drops only for k > 1).
	 */
	t = step(a, &f, t, t + 30 * MS, 40 * MS, &ran);
	assert_true(ran);
	assert_int_equal(t, 200 * MS);
	assert_int_equal(a->missed, 1);
	assert_int_equal(a->dropped, 0);
	/* Wakes 120 ms late (320 ms): past the period's end (250), lost before work, k = 2. */
	t = step(a, &f, t, t + 120 * MS, 2500 * US, &ran);
	assert_false(ran);
	assert_int_equal(t, 350 * MS);
	assert_int_equal(a->missed, 3);
	assert_int_equal(a->dropped, 2);
	/* On time, but the work ends 60 ms after the period: k = 2, both counted as dropped. */
	t = step(a, &f, t, t, 110 * MS, &ran);
	assert_true(ran);
	assert_int_equal(t, 500 * MS);
	assert_int_equal(a->missed, 5);
	assert_int_equal(a->dropped, 4);
	assert_int_equal(a->done, 4);
	assert_int_equal(a->met, 2);

	/* Samples: wake latency + penalty per frame. */
	assert_int_equal(hist_count(&a->lat), 5);
	assert_int_equal(hist_count(&a->wake), 5);
	assert_int_equal(hist_max(&a->lat), 120 * MS + 100 * MS);
	assert_int_equal(hist_min(&a->lat), 20 * US);
	assert_int_equal(hist_max(&a->wake), 120 * MS);

	lat_acct_summary(a, false, &s);
	assert_int_equal(s.samples, 5);
	assert_true(fabs(s.desired_cpu_pct - 100.0 * 4 / 8) < 1e-9);
	assert_true(fabs(s.deadlines_met_pct - 100.0 * 2 / 7) < 1e-9);
	assert_true(fabs(s.mean_ns - (100.0 * US + 20 * US + 80 * MS + 220 * MS + 100 * MS) / 5) < 1e-3);
	free(a);
}

static void test_no_period(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_frame f = { .deadline = 10 * MS, .period = 0 };
	bool ran;
	mono_ns t;

	(void)state;
	/* Work that ends after the frame's start: neither met nor missed, no sleep. */
	t = step(a, &f, 5 * MS, 5 * MS, 100 * MS, &ran);
	assert_true(ran);
	assert_int_equal(t, 105 * MS);
	assert_int_equal(a->met + a->missed, 0);
	assert_int_equal(a->unperiodic, 1);
	/* Work that ends before it: met. */
	f.deadline = 500 * MS;
	t = step(a, &f, 200 * MS, 200 * MS, 0, &ran);
	assert_int_equal(a->met, 1);
	assert_int_equal(t, 200 * MS);
	free(a);
}

/* x on an idle machine: every step but the 100 % one meets its deadline, the ramp takes 10.001 s. */
static void test_x_ramp_idle(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_frame f = { .deadline = 0 };
	mono_ns target = 0, now = 0;
	struct lat_summary s;

	(void)state;
	for (uint64_t i = 0; i <= 100; i++) {
		f.period = (100 - i) * MS;
		if (target > now)
			now = target;	/* the sleep */
		assert_true(lat_frame_wake(a, &f, target, now));
		now += i * MS;		/* the work */
		target = lat_frame_done(a, &f, now);
		f.deadline += i * MS;
	}
	assert_int_equal(a->met, 100);
	assert_int_equal(a->missed, 0);
	assert_int_equal(a->unperiodic, 1);
	assert_int_equal(now, 10001 * MS);
	lat_acct_summary(a, false, &s);
	assert_true(s.desired_cpu_pct == 100.0);
	assert_true(s.deadlines_met_pct == 100.0);
	assert_true(s.max_ns == 0);
	free(a);
}

static void test_gaming(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_summary s;

	(void)state;
	lat_game_chunk(a, 100 * MS, 100 * MS);
	lat_game_chunk(a, 100 * MS, 99 * MS);	/* cannot be early: counts 0 */
	lat_game_chunk(a, 100 * MS, 200 * MS);
	lat_acct_summary(a, true, &s);
	assert_int_equal(s.samples, 3);
	assert_true(fabs(s.desired_cpu_pct - 100.0 * 300 / 400) < 1e-9);
	assert_true(isnan(s.deadlines_met_pct));
	assert_true(s.max_ns == 100.0 * MS);
	assert_true(s.p50_ns == 0);
	free(a);
}

static void test_true_sd(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_summary s;
	static const uint64_t v[] = { 0, 0, 0, 10 * MS };

	(void)state;
	for (size_t i = 0; i < 4; i++)
		hist_record(&a->lat, v[i]);
	lat_acct_summary(a, false, &s);
	/* mean 2.5 ms; deviations -2.5 x 3 and 7.5: sum of squares 75, / (n - 1) = 25, SD 5 ms. */
	assert_true(fabs(s.mean_ns - 2.5 * MS) < 1e-6);
	assert_true(fabs(s.sd_ns - 5.0 * MS) < 1e-3);
	/*
	 * interbench: (sum of squares of the values 100 ms^2 - mean^2 / n)
	 * / (n - 1) = (100 - 6.25 / 4) / 3 = 32.8125 ms^2: 5.728 ms, an
	 * RMS-like figure that is not the spread.
	 */
	assert_true(fabs(s.interbench_sd_ns - sqrt(32.8125) * MS) < 1.0);
	assert_true(fabs(s.interbench_sd_ns - s.sd_ns) > 0.7 * MS);
	free(a);
}

static void test_constant_samples(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_summary s;

	(void)state;
	/* Identical samples have no spread; interbench's formula still shows about the value itself. */
	hist_record_n(&a->lat, 1000, 4);
	lat_acct_summary(a, false, &s);
	assert_true(s.sd_ns == 0.0);
	assert_true(fabs(s.interbench_sd_ns - sqrt((4e6 - 1e6 / 4) / 3)) < 1e-6);
	assert_true(s.p50_ns == 1000 && s.max_ns == 1000);
	assert_true(lat_interbench_sd(1, 5, 0) == 0.0);
	free(a);
}

static void test_percentile_order(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_summary s;
	uint64_t x = 42;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		hist_record(&a->lat, (x >> 33) % (i % 100 ? 100 * US : 50 * MS));
	}
	lat_acct_summary(a, false, &s);
	assert_true(s.p50_ns <= s.p90_ns);
	assert_true(s.p90_ns <= s.p99_ns);
	assert_true(s.p99_ns <= s.p999_ns);
	assert_true(s.p999_ns <= s.max_ns);
	free(a);
}

/*
 * The timer probe (1 ms, no work) woken 3.5 ms late: the periods starting
 * at 1, 2 and 3 ms are skipped and the next sleep is to 4 ms, as cyclictest
 * does. Skipping: one wake-up sample (3.5 ms). Sampling: also 2.5, 1.5 and
 * 0.5 ms for the skipped periods.
 */
static void missed_run(bool sample, uint64_t *count, uint64_t *min, uint64_t *max, uint64_t *skipped,
		       uint64_t pct[3])
{
	struct lat_acct *a = new_acct();
	struct lat_frame f = { .deadline = 0, .period = 1 * MS };
	mono_ns t;
	bool ran;

	a->sample_missed = sample;
	t = step(a, &f, 0, 3500 * US, 0, &ran);
	assert_false(ran);
	assert_int_equal(t, 4 * MS);
	t = step(a, &f, t, t + 50 * US, 0, &ran);
	assert_true(ran);
	assert_int_equal(t, 5 * MS);
	assert_int_equal(a->missed, 3);
	*count = hist_count(&a->wake);
	*min = hist_min(&a->wake);
	*max = hist_max(&a->wake);
	*skipped = a->skipped;
	pct[0] = hist_percentile(&a->wake, 40);
	pct[1] = hist_percentile(&a->wake, 60);
	pct[2] = hist_percentile(&a->wake, 80);
	free(a);
}

static void test_missed_periods(void **state)
{
	uint64_t n, lo, hi, sk, p[3];

	(void)state;
	missed_run(false, &n, &lo, &hi, &sk, p);
	assert_int_equal(n, 2);
	assert_int_equal(lo, 50 * US);
	assert_int_equal(hi, 3500 * US);
	assert_int_equal(sk, 3);
	missed_run(true, &n, &lo, &hi, &sk, p);
	assert_int_equal(n, 5);
	assert_int_equal(lo, 50 * US);
	assert_int_equal(hi, 3500 * US);
	assert_int_equal(sk, 3);
	/* The skipped periods' samples are 0.5, 1.5 and 2.5 ms, within the histogram's 0.8 %. */
	for (int i = 0; i < 3; i++)
		assert_true(fabs((double)p[i] - (500.0 + 1000.0 * i) * US) <= 0.008 * (500.0 + 1000.0 * i) * US);
}

static void test_empty(void **state)
{
	struct lat_acct *a = new_acct();
	struct lat_summary s;

	(void)state;
	lat_acct_summary(a, false, &s);
	assert_int_equal(s.samples, 0);
	assert_true(isnan(s.desired_cpu_pct));
	assert_true(isnan(s.deadlines_met_pct));
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audio_frames),
		cmocka_unit_test(test_no_period),
		cmocka_unit_test(test_x_ramp_idle),
		cmocka_unit_test(test_gaming),
		cmocka_unit_test(test_true_sd),
		cmocka_unit_test(test_constant_samples),
		cmocka_unit_test(test_percentile_order),
		cmocka_unit_test(test_missed_periods),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
