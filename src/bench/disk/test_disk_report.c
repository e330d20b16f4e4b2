/* SPDX-License-Identifier: MIT */
/*
 * Tests of the candidate limiter disk offers itself (disk_report.c): with
 * --rate, "own pacing" at measured / asked, and nothing without --rate.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "bench/disk/disk_common.h"

static void test_pacing(void **state)
{
	struct result *r = result_new("disk", "seq-write");
	const struct verdict_candidate *k;

	(void)state;
	disk_report_pacing(r, 2.0 * 1048576 * 0.99, 2.0 * 1048576, "achieved");
	assert_int_equal(r->verdict.ncand, 1);
	k = &r->verdict.cand[0];
	assert_string_equal(k->resource, "own pacing");
	assert_true(fabs(k->share - 0.99) < 1e-9);
	assert_non_null(strstr(k->evidence, "--rate 2"));
	assert_non_null(strstr(k->evidence, "set the pace"));
	assert_non_null(strstr(k->next_step, "it ran at the --rate it was told"));
	/* An offer, not a final verdict: the runner ranks it. */
	assert_false(result_has_verdict(r));
	result_free(r);

	/* Well under the rate: offered with its share, not claimed as the pace. */
	r = result_new("disk", "seq-write");
	disk_report_pacing(r, 1048576, 4.0 * 1048576, "achieved");
	assert_true(fabs(r->verdict.cand[0].share - 0.25) < 1e-9);
	assert_non_null(strstr(r->verdict.cand[0].evidence, "was not reached"));
	result_free(r);

	/* No --rate: nothing. */
	r = result_new("disk", "seq-write");
	disk_report_pacing(r, 1048576, 0, "achieved");
	assert_int_equal(r->verdict.ncand, 0);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pacing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
