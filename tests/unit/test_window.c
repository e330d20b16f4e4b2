/* SPDX-License-Identifier: MIT */
/*
 * Tests of the measurement window (core/observe/window.h) on the real /proc with
 * the longest interval, so the only snapshots are those of the spans'
 * ends: who opens a span (the runner's implicit one, or the benchmark's
 * marks, which drop it), that marked spans add up without the pauses
 * between them, what take and discard hand over, and the refusals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <time.h>

#include "core/base/clock.h"
#include "core/observe/sampler.h"
#include "core/observe/window.h"

static const struct sampler_config cfg = { .interval_ns = SAMPLER_MAX_INTERVAL_NS };

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000 * 1000 };

	while (nanosleep(&ts, &ts))
		;
}

/* Unmarked, the window is the run: one span, handed over by take. */
static void test_implicit(void **state)
{
	struct window *w = window_new(&cfg, true);
	struct sampler *s;
	struct sysview v;

	(void)state;
	window_run_begin(w);
	assert_int_equal(window_view(w, &v), -EBUSY);
	window_run_end(w);
	assert_int_equal(window_view(w, &v), 0);
	assert_int_equal(v.samples, 1);
	s = window_take(w);
	assert_non_null(s);
	assert_int_equal(sampler_count(s), 1);
	sampler_free(s);
	assert_null(window_take(w));
	assert_int_equal(window_view(w, &v), -ENODATA);
	window_free(w);
}

/*
 * The benchmark's marks drop the implicit span; two marked spans add up,
 * the 300 ms between them is not in the window; once marked, the runner
 * opens no implicit span in the next repetition.
 */
static void test_marked(void **state)
{
	struct window *w = window_new(&cfg, true);
	struct sampler *s;
	struct sysview v;

	(void)state;
	window_run_begin(w);
	nap_ms(300);
	assert_int_equal(window_begin(w), 0);
	assert_int_equal(window_begin(w), -EALREADY);
	assert_int_equal(window_end(w), 0);
	assert_int_equal(window_end(w), -EINVAL);
	window_run_end(w);
	nap_ms(300);
	window_run_begin(w);
	assert_int_equal(window_begin(w), 0);
	assert_int_equal(window_end(w), 0);
	window_run_end(w);
	assert_int_equal(window_view(w, &v), 0);
	assert_int_equal(v.samples, 2);
	assert_true(v.duration_s < 0.2);
	s = window_take(w);
	assert_non_null(s);
	sampler_free(s);
	/* Marked: the next repetition's implicit span does not open. */
	window_run_begin(w);
	assert_int_equal(window_view(w, &v), -ENODATA);
	window_run_end(w);
	window_free(w);
}

/* An emit in an unmarked run takes the time so far and goes on sampling. */
static void test_take_while_implicit(void **state)
{
	struct window *w = window_new(&cfg, true);
	struct sysview v;

	(void)state;
	window_run_begin(w);
	sampler_free(window_take(w));
	assert_int_equal(window_view(w, &v), -EBUSY);
	window_run_end(w);
	assert_int_equal(window_view(w, &v), 0);
	window_discard(w);
	assert_int_equal(window_view(w, &v), -ENODATA);
	assert_null(window_take(w));
	window_free(w);
}

/* Without sampling the marks still work; there is just no view. */
static void test_no_sampling(void **state)
{
	struct window *w = window_new(&cfg, false);
	struct sysview v;

	(void)state;
	window_run_begin(w);
	assert_int_equal(window_begin(w), 0);
	assert_int_equal(window_end(w), 0);
	window_run_end(w);
	assert_int_equal(window_view(w, &v), -ENODATA);
	assert_null(window_take(w));
	window_free(w);
	window_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_implicit),
		cmocka_unit_test(test_marked),
		cmocka_unit_test(test_take_while_implicit),
		cmocka_unit_test(test_no_sampling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
