/* SPDX-License-Identifier: MIT */
/*
 * Tests of how a finished network test becomes a result
 * (src/bench/net/net_report.c): the verdict rules (link speed reached, a whole
 * side's CPU, one core, the asked UDP rate, nothing saturated, no view),
 * seed 004's capacity arithmetic on the seed's own sn08 figures, and the
 * per-direction metrics built from both sides' reports of the same test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/net/net_priv.h"

static struct net_side view(int cpu, double busy, double softirq, double all)
{
	struct net_side s;

	net_side_init(&s);
	s.present = true;
	s.have_view = true;
	s.samples = 8;
	s.ncpu = 2;
	s.busiest_cpu = cpu;
	s.busiest_busy_pct = busy;
	s.busiest_softirq_pct = softirq;
	s.cpu_busy_pct = all;
	s.softirq_pct = softirq / 2;
	return s;
}

static void test_verdict_rules(void **state)
{
	struct net_side c = view(0, 40, 5, 30), s = view(1, 98, 61, 60);
	struct verdict v;

	(void)state;
	/* The seed's sentence: one core of the receiver. */
	net_judge(&c, &s, 9e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "one core");
	assert_non_null(strstr(v.evidence, "bound by one core (cpu1 98 %, 61 % softirq) on the receiver (server)"));

	/* -R: the server is the sender. */
	net_judge(&c, &s, 9e9, 1, false, 0, &v);
	assert_non_null(strstr(v.evidence, "sender (server)"));

	/* A whole side saturated comes before one core. */
	s.cpu_busy_pct = 95;
	net_judge(&c, &s, 9e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "receiver CPU");
	net_judge(&c, &s, 9e9, 2, false, 0, &v);
	assert_string_equal(v.resource, "server CPU");

	/* The link comes first of all. */
	s.link_bps = 1e9;
	snprintf(s.iface, sizeof(s.iface), "eth0");
	net_judge(&c, &s, 0.95e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "link");
	assert_non_null(strstr(v.evidence, "link speed reached"));
	assert_non_null(strstr(v.evidence, "eth0"));
	/* Below 90 % of it the link is not the limit. */
	net_judge(&c, &s, 0.5e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "receiver CPU");
}

static void test_verdict_quiet(void **state)
{
	struct net_side c = view(0, 30, 5, 20), s, none;
	struct verdict v;

	(void)state;
	net_side_init(&s);
	s.present = true;	/* a stock iperf3 server: no view */
	net_judge(&c, &s, 1e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "none observed");
	assert_non_null(strstr(v.evidence, "cpu0 30 %"));
	assert_non_null(strstr(v.evidence, "no view from the receiver (server)"));

	net_side_init(&none);
	net_judge(&none, &none, 1e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "unknown");

	/* UDP at the asked rate is bound by the asking. */
	net_judge(&c, &s, 0.99e6, 0, true, 1e6, &v);
	assert_string_equal(v.resource, "asked rate");

	/* Same box: no side is named, the box is. */
	c = view(1, 99, 50, 70);
	s = c;
	snprintf(c.box_tag, sizeof(c.box_tag), "abc");
	snprintf(s.box_tag, sizeof(s.box_tag), "abc");
	net_judge(&c, &s, 1e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "one core");
	assert_non_null(strstr(v.evidence, "on the box client and server share"));
	c.cpu_busy_pct = s.cpu_busy_pct = 97;
	net_judge(&c, &s, 1e9, 0, false, 0, &v);
	assert_string_equal(v.resource, "CPU");
	assert_non_null(strstr(v.evidence, "all 2 CPUs of this box 97 % busy"));
}

static void test_capacity_seed004(void **state)
{
	/* sn08: 225 Mbit/s at ~90 % of one core, 3.4 GHz, 7 cores, 1 Gbit/s uplink. */
	struct net_side c, s = view(3, 90, 30, 20);
	struct net_capacity cap;

	(void)state;
	net_side_init(&c);
	s.ncpu = 7;
	s.freq_mhz = 3400;
	snprintf(s.freq_source, sizeof(s.freq_source), "cpufreq");
	s.link_bps = 1e9;
	net_capacity(&c, &s, 225e6, &cap);
	assert_true(cap.ok);
	assert_string_equal(cap.side, "server");
	assert_int_equal(cap.cpu, 3);
	assert_true(fabs(cap.per_core_bps - 250e6) < 1);
	/* The seed's table: 73 Mbit/s per GHz. */
	assert_true(fabs(cap.per_ghz_bps - 250e6 / 3.4) < 1);
	assert_int_equal((int)(cap.per_ghz_bps / 1e6), 73);
	/* 7 x 250 = 1.75 Gbit/s, capped by the 1 Gbit/s uplink. */
	assert_true(cap.capped);
	assert_true(cap.total_bps == 1e9);
	assert_string_equal(cap.freq_source, "cpufreq");

	/* Unknown link: not capped; unknown frequency: no per-GHz figure. */
	s.link_bps = -1;
	s.freq_mhz = NAN;
	net_capacity(&c, &s, 225e6, &cap);
	assert_false(cap.capped);
	assert_true(fabs(cap.total_bps - 1750e6) < 1);
	assert_true(isnan(cap.per_ghz_bps));

	/* Too idle to extrapolate, or no view at all: no estimate, a reason. */
	s.busiest_busy_pct = 2;
	net_capacity(&c, &s, 225e6, &cap);
	assert_false(cap.ok);
	assert_non_null(strstr(cap.why, "too idle"));
	net_side_init(&s);
	net_capacity(&c, &s, 225e6, &cap);
	assert_false(cap.ok);
}

static double metric(const struct result *r, const char *name)
{
	const struct metric *m = result_find_metric(r, name);

	return m ? m->value : NAN;
}

static void test_report_both_sides(void **state)
{
	struct net_test t;
	struct result *r;
	struct iperf3_stream_result *remote;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.is_client = true;
	iperf3_params_init(&t.p);
	t.p.time_s = 2;
	t.p.parallel = 2;
	t.duration_s = 2.0;
	t.cpu_user_pct = 5;
	t.cpu_system_pct = 45;
	t.me = view(0, 60, 10, 50);
	t.me.process_cpu_s = 1.0;
	t.me.moved_bytes = 2e9;
	t.nlocal = 2;
	t.local = calloc(2, sizeof(*t.local));
	t.local[0] = (struct iperf3_stream_result){ .id = 1, .bytes = 1e9, .retransmits = 3, .sender = true,
						     .end_time = 2 };
	t.local[1] = (struct iperf3_stream_result){ .id = 3, .bytes = 1e9, .retransmits = 4, .sender = true,
						     .end_time = 2 };
	t.have_remote = true;
	remote = calloc(2, sizeof(*remote));
	/* The receiver counted a little less, over a slightly longer time. */
	remote[0] = (struct iperf3_stream_result){ .id = 3, .bytes = 0.99e9, .retransmits = -1, .end_time = 2.02 };
	remote[1] = (struct iperf3_stream_result){ .id = 1, .bytes = 0.99e9, .retransmits = -1, .end_time = 2.02 };
	t.remote.streams = remote;
	t.remote.nstreams = 2;
	t.remote.cpu_total = 40;
	net_side_init(&t.remote.extra);	/* a stock iperf3 server */

	r = result_new("net", "client");
	net_report_fill(r, &t, false);
	assert_true(metric(r, "up_sent") == 2e9);
	assert_true(metric(r, "up_received") == 1.98e9);
	assert_true(fabs(metric(r, "up_sender") - 8e9) < 1);
	assert_true(fabs(metric(r, "up_receiver") - 1.98e9 * 8 / 2.02) < 1);
	assert_true(metric(r, "throughput") == metric(r, "up_receiver"));
	assert_true(metric(r, "up_retransmits") == 7);
	assert_true(isnan(metric(r, "down_sent")));
	assert_true(metric(r, "client_cpu") == 50);
	assert_true(metric(r, "server_cpu") == 40);
	/* 1 CPU second per 2 GB moved. */
	assert_true(fabs(metric(r, "client_cpu_per_gigabyte") - 0.5) < 1e-9);
	/* The stock server's CPU per GB from its cpu_util_total: 40 % of 2.02 s per 1.98 GB. */
	assert_true(fabs(metric(r, "server_cpu_per_gigabyte") - 0.4 * 2.02 / 1.98) < 1e-9);
	assert_true(metric(r, "client_busiest_cpu_busy") == 60);
	assert_true(isnan(metric(r, "server_busiest_cpu_busy")));
	assert_string_equal(r->verdict.resource, "none observed");
	result_free(r);
	net_test_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_rules),
		cmocka_unit_test(test_verdict_quiet),
		cmocka_unit_test(test_capacity_seed004),
		cmocka_unit_test(test_report_both_sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
