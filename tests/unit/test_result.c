/* SPDX-License-Identifier: MIT */
/*
 * Tests of the result model: ownership of what is added, unit suffixes,
 * and merging repetitions into median, min and max.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/result/result.h"

static void test_build(void **state)
{
	struct result *r = result_new("disk", "seq-read");
	char key[] = "bs";
	struct hist h;

	(void)state;
	result_param(r, key, "%d", 4096);
	key[0] = 'x';	/* the result holds a copy */
	result_method(r, "cache", "O_DIRECT");
	result_note(r, "a %s", "note");
	result_metric(r, "read", UNIT_BYTES_PER_S, 1e6, "sequential read");
	hist_init(&h);
	hist_record(&h, 100);
	result_hist(r, "lat", UNIT_NS, &h);
	hist_record(&h, 200);	/* nor does it share the histogram */
	assert_string_equal(r->params[0].key, "bs");
	assert_string_equal(r->params[0].value, "4096");
	assert_string_equal(r->method[0].value, "O_DIRECT");
	assert_string_equal(r->notes[0], "a note");
	assert_int_equal(hist_count(r->hists[0].h), 1);
	assert_non_null(result_find_metric(r, "read"));
	assert_null(result_find_metric(r, "write"));
	assert_int_equal(r->status, RESULT_OK);
	result_set_status(r, RESULT_SKIPPED, "no %s", "device");
	assert_string_equal(r->reason, "no device");
	result_set_step(r, "%s/%dB", "aes", 1400);
	assert_string_equal(r->step, "aes/1400B");
	assert_string_equal(result_status_name(r->status), "skipped");
	result_free(r);
}

static void test_units(void **state)
{
	(void)state;
	assert_string_equal(unit_suffix(UNIT_BYTES_PER_S), "_bytes_per_second");
	assert_string_equal(unit_suffix(UNIT_NS), "_ns");
	assert_string_equal(unit_suffix(UNIT_COUNT), "");
	assert_string_equal(unit_name(UNIT_PERCENT), "%");
	{
		size_t n;

		assert_int_equal(unit_from_key("read_bytes_per_second", &n), UNIT_BYTES_PER_S);
		assert_int_equal(n, 4);
		assert_int_equal(unit_from_key("bitrate_bits_per_second", &n), UNIT_BITS_PER_S);
		assert_int_equal(unit_from_key("ops_per_second", &n), UNIT_PER_S);
		assert_int_equal(n, 3);
		assert_int_equal(unit_from_key("lat_p99_ns", NULL), UNIT_NS);
		assert_int_equal(unit_from_key("values", &n), UNIT_COUNT);
		assert_int_equal(n, 6);
		assert_int_equal(unit_from_key("_ns", &n), UNIT_COUNT);	/* a suffix alone is a name */
	}
}

static void test_merge(void **state)
{
	static const double vals[] = { 5, 1, 4, 2 };
	struct result *reps[4], *m;

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct hist h;

		reps[i] = result_new("null", NULL);
		result_param(reps[i], "i", "%d", i);
		result_metric(reps[i], "x", UNIT_COUNT, vals[i], NULL);
		if (i != 2)
			result_metric(reps[i], "y", UNIT_NS, 10.0 * i, NULL);
		hist_init(&h);
		hist_record(&h, (uint64_t)(i + 1));
		result_hist(reps[i], "lat", UNIT_NS, &h);
		reps[i]->duration_s = 1;
	}
	m = result_merge_reps(reps, 4);
	assert_int_equal(m->reps, 4);
	assert_string_equal(m->params[0].value, "0");	/* parameters of the first */
	assert_true(m->metrics[0].value == 3.0);	/* median of 1 2 4 5 */
	assert_true(m->metrics[0].min == 1.0 && m->metrics[0].max == 5.0);
	assert_int_equal(m->metrics[0].reps, 4);
	assert_true(m->metrics[1].value == 10.0);	/* median of 0 10 30 */
	assert_int_equal(m->metrics[1].reps, 3);
	assert_int_equal(hist_count(m->hists[0].h), 4);
	assert_int_equal(hist_max(m->hists[0].h), 4);
	assert_true(fabs(m->duration_s - 4) < 1e-9);
	assert_int_equal(m->status, RESULT_OK);
	result_free(m);

	result_set_status(reps[3], RESULT_FAILED, "boom");
	m = result_merge_reps(reps, 4);
	assert_int_equal(m->status, RESULT_FAILED);
	assert_string_equal(m->reason, "boom");
	result_free(m);
	for (int i = 0; i < 4; i++)
		result_free(reps[i]);
}

/* Debian 12's cmocka has no assert_double_equal. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/*
 * The ranks of the median's order-statistic interval, from the binomial
 * tables: n = 6 -> 1 (P(B <= 0) = 1/64), n = 10 -> 2 (P(B <= 1) = 11/1024),
 * n = 20 -> 6 (P(B <= 5) = 21700/2^20), each with its exact coverage.
 */
static void test_interval_ranks(void **state)
{
	double cov;

	(void)state;
	assert_int_equal(median_interval_rank(6, &cov), 1);
	assert_near(cov, 1 - 2.0 / 64, 1e-12);
	assert_int_equal(median_interval_rank(10, &cov), 2);
	assert_near(cov, 1 - 22.0 / 1024, 1e-12);
	assert_int_equal(median_interval_rank(20, &cov), 6);
	assert_near(cov, 1 - 2 * 21700.0 / 1048576, 1e-12);
	assert_true(cov >= 0.95);
	/* Five or fewer: no rank reaches 95 %. */
	for (size_t n = 0; n < 6; n++) {
		assert_int_equal(median_interval_rank(n, &cov), 0);
		assert_true(isnan(cov));
	}
	/* Coverage never drops below 95 % once a rank exists. */
	for (size_t n = 6; n <= 200; n++) {
		size_t k = median_interval_rank(n, &cov);

		assert_true(k >= 1 && k <= (n + 1) / 2);
		assert_true(cov >= 0.95 && cov < 1);
	}
}

static void test_interval(void **state)
{
	const double v6[] = { 1, 2, 3, 4, 5, 6 }, v10[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	double v20[20], lo, hi, cov;

	(void)state;
	median_interval(v6, 6, &lo, &hi, &cov);
	assert_true(lo == 1 && hi == 6);
	median_interval(v10, 10, &lo, &hi, &cov);
	assert_true(lo == 2 && hi == 9);
	for (int i = 0; i < 20; i++)
		v20[i] = 100 + i;
	median_interval(v20, 20, &lo, &hi, &cov);
	assert_true(lo == 105 && hi == 114);	/* x(6), x(15) */
	/* 3 to 5: [min, max] with its true coverage 1 - 2/2^n. */
	median_interval(v6, 3, &lo, &hi, &cov);
	assert_true(lo == 1 && hi == 3);
	assert_near(cov, 0.75, 1e-12);
	median_interval(v6, 4, &lo, &hi, &cov);
	assert_near(cov, 0.875, 1e-12);
	median_interval(v6, 5, &lo, &hi, &cov);
	assert_true(lo == 1 && hi == 5);
	assert_near(cov, 0.9375, 1e-12);
	/* Fewer than 3: none. */
	median_interval(v6, 2, &lo, &hi, &cov);
	assert_true(isnan(lo) && isnan(hi) && isnan(cov));
}

/* Unstable: the interval reaches beyond 5 % of the median on either side. */
static void test_unstable(void **state)
{
	struct result *r = result_new("null", NULL);
	struct metric *m = result_metric(r, "x", UNIT_COUNT, 100, NULL);

	(void)state;
	assert_false(metric_unstable(m));	/* no interval */
	m->ci_lo = 96;
	m->ci_hi = 104;
	assert_false(metric_unstable(m));
	m->ci_lo = 95;
	m->ci_hi = 105;
	assert_false(metric_unstable(m));	/* exactly 5 %: not beyond */
	m->ci_hi = 106;
	assert_true(metric_unstable(m));
	m->ci_lo = 94;
	m->ci_hi = 100;
	assert_true(metric_unstable(m));	/* one side is enough */
	m->value = -100;
	m->ci_lo = -104;
	m->ci_hi = -97;
	assert_false(metric_unstable(m));	/* by the magnitude of a negative median */
	result_free(r);
}

/* --repeat 6 of 1..6 in any order: median 3.5, interval [1, 6] at 96.9 %; --repeat 2: none. */
static void test_merge_interval(void **state)
{
	const double vals[6] = { 4, 1, 6, 3, 5, 2 };
	struct result *reps[6], *m;

	(void)state;
	for (int i = 0; i < 6; i++) {
		reps[i] = result_new("null", NULL);
		result_metric(reps[i], "x", UNIT_COUNT, vals[i], NULL);
	}
	m = result_merge_reps(reps, 6);
	assert_true(m->metrics[0].value == 3.5);
	assert_true(m->metrics[0].ci_lo == 1 && m->metrics[0].ci_hi == 6);
	assert_near(m->metrics[0].ci_coverage, 1 - 2.0 / 64, 1e-12);
	assert_true(metric_unstable(&m->metrics[0]));
	result_free(m);
	m = result_merge_reps(reps, 2);
	assert_true(isnan(m->metrics[0].ci_lo) && isnan(m->metrics[0].ci_coverage));
	assert_false(metric_unstable(&m->metrics[0]));
	result_free(m);
	for (int i = 0; i < 6; i++)
		result_free(reps[i]);
}

static void test_run(void **state)
{
	char *argv[] = { "engpass", "null", "--json" };
	struct run *run = run_new("9.9", 3, argv);

	(void)state;
	assert_string_equal(run->command, "engpass null --json");
	assert_string_equal(run->tool_version, "9.9");
	assert_true(run->time_ns > 0);
	run_add(run, result_new("a", NULL));
	run_add(run, result_new("b", NULL));
	run_add(run, result_new("c", NULL));
	assert_int_equal(run->nresults, 3);
	assert_string_equal(run->results[2]->bench, "c");
	run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_interval_ranks),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_unstable),
		cmocka_unit_test(test_merge_interval),
		cmocka_unit_test(test_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
