/* SPDX-License-Identifier: MIT */
/*
 * Tests of the candidate limiters a download offers (fetch_judge.c): the
 * round trip at depth 1 and in a pipeline, the window it cannot see, the
 * link when its speed is known.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "bench/fetch/fetch_judge.h"

static const struct verdict_candidate *cand(const struct result *r, const char *resource)
{
	for (size_t i = 0; i < r->verdict.ncand; i++)
		if (!strcmp(r->verdict.cand[i].resource, resource))
			return &r->verdict.cand[i];
	return NULL;
}

static void test_round_trip(void **state)
{
	/* Depth 1, 60 KiB blocks through a 20 ms delay: waiting 95 % of the time. */
	struct fetch_figures f = { .rate = 3e6, .idle_rt_pct = 95, .idle_srv_pct = 0, .mean_ttfb_s = 0.0201,
				   .mean_req_s = 0.0211, .requests = 100, .ranged = true, .block = 61440, .depth = 1,
				   .rtt_s = 0.0202, .link_bps = -1 };
	struct result *r = result_new("fetch", "fetch");
	const struct verdict_candidate *k;

	(void)state;
	fetch_judge(&f, r);
	k = cand(r, "round trip");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.95) < 1e-9);
	assert_non_null(strstr(k->evidence, "mean time to first byte 20.1 ms of 21.1 ms per request"));
	assert_non_null(strstr(k->evidence, "TCP rtt 20.2 ms"));
	assert_non_null(strstr(k->next_step, "20 requests in flight (--depth 20)"));
	/* The window is the server's: unknown, not zero. */
	k = cand(r, "tcp window");
	assert_non_null(k);
	assert_true(isnan(k->share));
	assert_null(cand(r, "link"));
	assert_false(result_has_verdict(r));
	result_free(r);

	/* A full pipeline: the round trip hidden, a low share. */
	f.idle_rt_pct = 2;
	f.depth = 8;
	f.link_bps = 1e9;
	snprintf(f.iface, sizeof(f.iface), "eth0");
	f.rate = 120e6;
	r = result_new("fetch", "fetch");
	fetch_judge(&f, r);
	assert_true(cand(r, "round trip")->share < 0.8);
	assert_non_null(strstr(cand(r, "round trip")->next_step, "--depth 16"));
	assert_true(fabs(cand(r, "link")->share - 0.96) < 1e-9);
	result_free(r);

	/* One GET: a larger object is the way. */
	f.ranged = false;
	f.idle_rt_pct = 90;
	r = result_new("fetch", "fetch");
	fetch_judge(&f, r);
	assert_non_null(strstr(cand(r, "round trip")->next_step, "a larger object"));
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
