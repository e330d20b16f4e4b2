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

#include "core/result.h"

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
		cmocka_unit_test(test_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
