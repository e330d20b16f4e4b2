/* SPDX-License-Identifier: MIT */
/*
 * Tests of the candidate limiters a download offers (fetch_judge.c): the
 * round trip at depth 1 and in a pipeline, the window it cannot see, the
 * link when its speed is known, the server with and without --server-pid's
 * figures; and the server tree's CPU ticks between two edges
 * (fetch_server.c).
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
#include "bench/fetch/fetch_server.h"
#include "core/observe/limits.h"

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

/* An nginx under a 1 % quota, 8 in flight: waiting for it 97 % of the time. */
static void test_server(void **state)
{
	struct fetch_server_view v = { .ok = true, .pid = 42, .comm = "nginx", .nproc = 2, .seconds = 2, .cpu_s = 0.02,
				       .clk_tck = 100, .ticks = 2, .quota_state = LIMIT_SET, .quota_cpus = 0.01,
				       .quota_source = "cpu.cfs_quota_us 1000 / cpu.cfs_period_us 100000 in /sys/fs/cgroup/cpu/x",
				       .cg_usage_pct = NAN, .periods = 20, .throttled = 19.6, .throttled_s = 1.9 };
	struct fetch_figures f = { .rate = 8e6, .idle_rt_pct = 0.1, .idle_srv_pct = 96, .mean_ttfb_s = 0.041,
				   .mean_req_s = 0.045, .requests = 342, .ranged = true, .block = 61440, .depth = 8,
				   .rtt_s = 0.0009, .link_bps = -1, .server_wait_pct = 97, .server_sw_pct = 0,
				   .path_rtt_s = 0.00001, .server = &v };
	struct result *r = result_new("fetch", "fetch");
	const struct verdict_candidate *k;

	(void)state;
	fetch_judge(&f, r);
	k = cand(r, "server");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.97) < 1e-9);
	assert_non_null(strstr(k->evidence, "waited 97 % for answers beyond the TCP rtt (0.9 ms; first byte 41 ms mean)"));
	assert_non_null(strstr(k->evidence, "nginx (pid 42 + children) 1.0 % of one CPU"));
	assert_non_null(strstr(k->evidence, "its cgroup allows 0.01 CPU, throttled in 98 % of periods"));
	/* Room for the verdict to add the time budget's figure. */
	assert_true(strlen(k->evidence) < sizeof(k->evidence) - 56);
	assert_non_null(strstr(k->next_step, "raise its quota"));
	assert_true(cand(r, "round trip")->share < 0.01);
	result_free(r);

	/* Busy on a CPU, no quota: more workers. */
	v.quota_state = LIMIT_NONE;
	v.cpu_s = 1.9;
	r = result_new("fetch", "fetch");
	fetch_judge(&f, r);
	assert_non_null(strstr(cand(r, "server")->evidence, "cpu quota none"));
	assert_non_null(strstr(cand(r, "server")->next_step, "more worker processes"));
	result_free(r);

	/* Idle and unthrottled: it waited on something else. */
	v.cpu_s = 0.1;
	r = result_new("fetch", "fetch");
	fetch_judge(&f, r);
	assert_non_null(strstr(cand(r, "server")->next_step, "engpass watch --pid 42"));
	result_free(r);

	/* No --server-pid: the share alone, and how to learn more. */
	f.server = NULL;
	r = result_new("fetch", "fetch");
	fetch_judge(&f, r);
	assert_true(fabs(cand(r, "server")->share - 0.97) < 1e-9);
	assert_null(strstr(cand(r, "server")->evidence, "CPU"));
	assert_non_null(strstr(cand(r, "server")->next_step, "--server-pid"));
	result_free(r);
}

/*
 * Stop-and-wait against a slow server: the connection waited 95 % of the
 * time, 80 of it beyond the TCP rtt. The round trip keeps what is left.
 */
static void test_round_trip_less_server(void **state)
{
	struct fetch_figures f = { .rate = 1e6, .idle_rt_pct = 95, .idle_srv_pct = 0, .mean_ttfb_s = 0.05,
				   .mean_req_s = 0.052, .requests = 100, .ranged = true, .block = 61440, .depth = 1,
				   .rtt_s = 0.04, .link_bps = -1, .server_wait_pct = 80, .server_sw_pct = 80 };
	struct result *r = result_new("fetch", "fetch");

	(void)state;
	fetch_judge(&f, r);
	assert_true(fabs(cand(r, "round trip")->share - 0.15) < 1e-9);
	assert_true(fabs(cand(r, "server")->share - 0.80) < 1e-9);
	result_free(r);
}

/* The tree's ticks: kept, born, exited and a reused pid. */
static void test_server_ticks(void **state)
{
	const struct fetch_server_proc a[] = { { 10, 1000, 50 }, { 11, 1001, 20 }, { 12, 1002, 7 }, { 13, 1003, 9 } };
	const struct fetch_server_proc b[] = {
		{ 10, 1000, 60 },	/* +10 */
		{ 11, 1001, 20 },	/* +0 */
		{ 13, 2000, 4 },	/* pid 13 again, another process: all 4 */
		{ 14, 2001, 3 },	/* born: all 3 */
	};
	unsigned gone = 0;

	(void)state;
	assert_int_equal(fetch_server_ticks(a, 4, b, 4, &gone), 17);
	assert_int_equal(gone, 2);	/* 12 and the first 13 */
	assert_int_equal(fetch_server_ticks(a, 4, a, 4, &gone), 0);
	assert_int_equal(gone, 0);
	assert_int_equal(fetch_server_ticks(NULL, 0, b, 4, NULL), 87);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_rtt_model),
		cmocka_unit_test(test_emulated_rtt_evidence),
		cmocka_unit_test(test_server),
		cmocka_unit_test(test_round_trip_less_server),
		cmocka_unit_test(test_server_ticks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
