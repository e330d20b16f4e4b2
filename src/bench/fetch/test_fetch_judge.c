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
#include <stdio.h>
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

/*
 * The --rtt model: seed 002's 60 KiB blocks with a 5 ms round trip and
 * 0.5 ms of service each. Stop-and-wait pays the round trip per block;
 * depth d overlaps d of them until the wire (block / service) is full.
 */
static void test_rtt_model(void **state)
{
	double block = 61440, rtt = 0.005, svc = 0.0005;

	(void)state;
	assert_true(fabs(fetch_rtt_model_rate(block, 1, rtt, svc) - block / 0.0055) < 1e-6);
	assert_true(fabs(fetch_rtt_model_rate(block, 8, rtt, svc) - 8 * block / 0.0055) < 1e-6);
	/* Deep enough: the wire, not the round trip. */
	assert_true(fabs(fetch_rtt_model_rate(block, 64, rtt, svc) - block / svc) < 1e-6);
	/* No service time known: the round trip alone. */
	assert_true(fabs(fetch_rtt_model_rate(block, 2, rtt, 0) - 2 * block / rtt) < 1e-6);
	assert_true(fetch_rtt_model_rate(block, 0, rtt, svc) == 0);
	assert_true(fetch_rtt_model_rate(block, 1, 0, 0) == 0);
	/* 103 requests: 103 round trips at depth 1, 13 at depth 8. */
	assert_true(fabs(fetch_rtt_floor_s(103, 1, rtt) - 0.515) < 1e-12);
	assert_true(fabs(fetch_rtt_floor_s(103, 8, rtt) - 0.065) < 1e-12);
	assert_true(fetch_rtt_floor_s(103, 8, 0) == 0);
}

/* An emulated round trip is named in the evidence and added to the path's. */
static void test_emulated_rtt_evidence(void **state)
{
	struct fetch_figures f = { .rate = 10e6, .idle_rt_pct = 95, .idle_srv_pct = 0, .mean_ttfb_s = 0.0052,
				   .mean_req_s = 0.0055, .requests = 100, .ranged = true, .block = 61440, .depth = 1,
				   .rtt_s = 0.0001, .link_bps = -1, .emulated_rtt_s = 0.005 };
	struct result *r = result_new("fetch", "fetch");
	const struct verdict_candidate *k;
	char ev[sizeof(k->evidence)];

	(void)state;
	fetch_judge(&f, r);
	k = cand(r, "round trip");
	assert_non_null(k);
	snprintf(ev, sizeof(ev), "%s", k->evidence);
	assert_non_null(strstr(ev, "5 ms EMULATED (--rtt)"));
	/* rate x (0.1 + 5 ms) / block = 0.83, below the idle share 0.95. */
	assert_true(fabs(k->share - 10e6 * 0.0051 / 61440) < 1e-9);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rtt_model),
		cmocka_unit_test(test_emulated_rtt_evidence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
