/* SPDX-License-Identifier: MIT */
/*
 * Tests of how a finished network test becomes a result
 * (src/bench/net/net_report.c): the candidate limiters it offers (link, a
 * whole side's CPU, one core, its own pacing, the TCP window from TCP_INFO,
 * UDP loss; a quiet test offers none at 80 %), the TCP_INFO decoding,
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

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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

static const struct verdict_candidate *cand(const struct result *r, const char *resource)
{
	for (size_t i = 0; i < r->verdict.ncand; i++)
		if (!strcmp(r->verdict.cand[i].resource, resource))
			return &r->verdict.cand[i];
	return NULL;
}

/* Judges a test and returns the result holding the candidates (caller frees). */
static struct result *judge(const struct net_side *c, const struct net_side *s, double thr, int dir, bool udp,
			    double paced_bps)
{
	struct result *r = result_new("net", "client");
	struct net_judge_in in = {
		.client = c, .server = s, .thr = thr, .dir = dir, .udp = udp, .parallel = 1,
		.paced_bps = paced_bps, .per_stream_bps = paced_bps, .udp_lost = -1, .udp_sent = -1,
	};

	net_judge(&in, r);
	return r;
}

static void test_candidate_cores(void **state)
{
	struct net_side c = view(0, 40, 5, 30), s = view(1, 98, 61, 60);
	const struct verdict_candidate *k;
	struct result *r;

	(void)state;
	/* One core of the receiver, with its softirq. */
	r = judge(&c, &s, 9e9, 0, false, 0);
	k = cand(r, "one core");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.98) < 1e-9);
	assert_non_null(strstr(k->evidence, "cpu1 98 % busy (61 % softirq) on the receiver (server)"));
	assert_non_null(strstr(k->next_step, "-P 2"));
	/* The whole side: the busier one, named. */
	k = cand(r, "cpu");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.60) < 1e-9);
	assert_non_null(strstr(k->evidence, "all 2 CPUs of the receiver (server) 60 % busy"));
	/* No link speed known: no link candidate. */
	assert_null(cand(r, "link"));
	result_free(r);

	/* -R: the server is the sender. */
	r = judge(&c, &s, 9e9, 1, false, 0);
	assert_non_null(strstr(cand(r, "one core")->evidence, "sender (server)"));
	result_free(r);
	/* Both ways: the sides by their roles. */
	s.cpu_busy_pct = 95;
	r = judge(&c, &s, 9e9, 2, false, 0);
	assert_non_null(strstr(cand(r, "cpu")->evidence, "of the server 95 % busy"));
	result_free(r);
}

static void test_candidate_link(void **state)
{
	struct net_side c = view(0, 40, 5, 30), s = view(1, 50, 10, 30);
	const struct verdict_candidate *k;
	struct result *r;

	(void)state;
	s.link_bps = 1e9;
	snprintf(s.iface, sizeof(s.iface), "eth0");
	r = judge(&c, &s, 0.95e9, 0, false, 0);
	k = cand(r, "link");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.95) < 1e-9);
	assert_non_null(strstr(k->evidence, "eth0"));
	assert_true(k->next_step[0]);
	result_free(r);
	r = judge(&c, &s, 0.5e9, 0, false, 0);
	assert_true(fabs(cand(r, "link")->share - 0.5) < 1e-9);
	result_free(r);
}

static void test_candidate_pacing(void **state)
{
	struct net_side c = view(0, 30, 5, 20), s;
	const struct verdict_candidate *k;
	struct result *r;

	(void)state;
	net_side_init(&s);
	s.present = true;
	/* UDP at the asked rate: its own pacing, measured / asked. */
	r = judge(&c, &s, 0.99e6, 0, true, 1e6);
	k = cand(r, "own pacing");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.99) < 1e-9);
	assert_non_null(strstr(k->next_step, "--bitrate it was told"));
	assert_null(cand(r, "asked rate"));
	result_free(r);
	/* TCP without --bitrate: no pacing candidate. */
	r = judge(&c, &s, 1e9, 0, false, 0);
	assert_null(cand(r, "own pacing"));
	result_free(r);
	/* TCP with --bitrate: the same rule. */
	r = judge(&c, &s, 50e6, 0, false, 100e6);
	assert_true(fabs(cand(r, "own pacing")->share - 0.5) < 1e-9);
	result_free(r);
}

static void test_candidate_tcp_window(void **state)
{
	struct net_side c = view(0, 30, 5, 20), s = view(1, 20, 5, 10);
	const struct verdict_candidate *k;
	struct result *r;

	(void)state;
	c.tcp_busy_us = 10e6;
	c.tcp_rwnd_limited_us = 9.3e6;
	c.tcp_sndbuf_limited_us = 0.2e6;
	c.tcp_rtt_us = 1020;
	c.tcp_cwnd = 40;
	r = judge(&c, &s, 1e9, 0, false, 0);
	k = cand(r, "tcp window");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.93) < 1e-9);
	assert_non_null(strstr(k->evidence, "receive window"));
	assert_non_null(strstr(k->evidence, "rtt 1.02 ms"));
	assert_non_null(strstr(k->evidence, "cwnd 40"));
	assert_non_null(strstr(k->evidence, "sender (client)"));
	assert_non_null(strstr(k->next_step, "receive window limited 93 % of the busy time"));
	assert_non_null(strstr(k->next_step, "-w 4M"));
	result_free(r);

	/* The send buffer, when it limited more. */
	c.tcp_rwnd_limited_us = 0;
	c.tcp_sndbuf_limited_us = 8e6;
	r = judge(&c, &s, 1e9, 0, false, 0);
	k = cand(r, "tcp window");
	assert_true(fabs(k->share - 0.8) < 1e-9);
	assert_non_null(strstr(k->evidence, "send buffer"));
	result_free(r);

	/* -R: the server sends, and it sent no TCP_INFO: unknown, not zero. */
	r = judge(&c, &s, 1e9, 1, false, 0);
	k = cand(r, "tcp window");
	assert_non_null(k);
	assert_true(isnan(k->share));
	assert_non_null(strstr(k->evidence, "unknown"));
	result_free(r);
	/* ... and when it did, its figures count. */
	s.tcp_busy_us = 4e6;
	s.tcp_rwnd_limited_us = 1e6;
	s.tcp_sndbuf_limited_us = 0;
	r = judge(&c, &s, 1e9, 1, false, 0);
	k = cand(r, "tcp window");
	assert_true(fabs(k->share - 0.25) < 1e-9);
	assert_non_null(strstr(k->evidence, "sender (server)"));
	result_free(r);
}

static void test_candidate_udp_loss(void **state)
{
	struct net_side c = view(0, 30, 5, 20), s = view(1, 50, 20, 30);
	const struct verdict_candidate *k;
	struct result *r = result_new("net", "client");
	struct net_judge_in in = {
		.client = &c, .server = &s, .thr = 90e6, .dir = 0, .udp = true, .parallel = 1,
		.paced_bps = 100e6, .per_stream_bps = 100e6, .udp_lost = 1000, .udp_sent = 10000,
	};

	(void)state;
	/* The receiver's buffer overflowed: named as such. */
	s.udp_rcvbuf_errors = 990;
	net_judge(&in, r);
	k = cand(r, "udp receive buffer");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.1) < 1e-9);
	assert_non_null(strstr(k->evidence, "socket receive buffer overflowed"));
	assert_non_null(strstr(k->evidence, "receiver (server)"));
	result_free(r);
	/* Overflow unknown: "loss", honestly. */
	s.udp_rcvbuf_errors = NAN;
	r = result_new("net", "client");
	net_judge(&in, r);
	k = cand(r, "udp receive buffer");
	assert_non_null(strstr(k->evidence, "loss"));
	assert_null(strstr(k->evidence, "overflowed"));
	result_free(r);
	/* Under 1 % loss: no candidate. */
	in.udp_lost = 50;
	r = result_new("net", "client");
	net_judge(&in, r);
	assert_null(cand(r, "udp receive buffer"));
	result_free(r);
}

static void test_candidate_quiet(void **state)
{
	struct net_side c = view(0, 30, 5, 20), s, none;
	struct result *r;

	(void)state;
	net_side_init(&s);
	s.present = true;	/* a stock iperf3 server: no view */
	s.link_bps = 10e9;
	c.tcp_busy_us = 10e6;
	c.tcp_rwnd_limited_us = 0.1e6;
	c.tcp_sndbuf_limited_us = 0;
	r = judge(&c, &s, 1e9, 0, false, 0);
	/* Something was offered, nothing at 80 % of its limit. */
	assert_true(r->verdict.ncand >= 3);
	for (size_t i = 0; i < r->verdict.ncand; i++)
		assert_false(r->verdict.cand[i].share >= 0.8);
	/* The benchmark names no verdict itself: the runner ranks. */
	assert_false(result_has_verdict(r));
	result_free(r);

	/* Nothing known at all: nothing judged but the unknown window. */
	net_side_init(&none);
	r = judge(&none, &none, 1e9, 0, false, 0);
	for (size_t i = 0; i < r->verdict.ncand; i++)
		assert_true(isnan(r->verdict.cand[i].share));
	result_free(r);

	/* Same box: no side is named, the box is. */
	c = view(1, 99, 50, 97);
	s = c;
	snprintf(c.box_tag, sizeof(c.box_tag), "abc");
	snprintf(s.box_tag, sizeof(s.box_tag), "abc");
	r = judge(&c, &s, 1e9, 0, false, 0);
	assert_non_null(strstr(cand(r, "one core")->evidence, "on the box client and server share"));
	assert_non_null(strstr(cand(r, "cpu")->evidence, "all 2 CPUs of this box 97 % busy"));
	result_free(r);
}

static void test_tcp_info_decode(void **state)
{
	/* The kernel's struct tcp_info: rtt at 68, cwnd at 80, delivery rate at 160, busy at 168. */
	unsigned char buf[256];
	struct net_tcp_stats st;
	uint32_t rtt = 1020, cwnd = 10;
	uint64_t rate = 125000000, busy = 5000000, rwnd = 4000000, sndbuf = 1000;

	(void)state;
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 68, &rtt, 4);
	memcpy(buf + 80, &cwnd, 4);
	memcpy(buf + 160, &rate, 8);
	memcpy(buf + 168, &busy, 8);
	memcpy(buf + 176, &rwnd, 8);
	memcpy(buf + 184, &sndbuf, 8);
	net_tcp_stats_decode(buf, 192, &st);
	assert_int_equal(st.rtt_us, 1020);
	assert_int_equal(st.snd_cwnd, 10);
	assert_int_equal(st.delivery_rate, 125000000);
	assert_int_equal(st.busy_us, 5000000);
	assert_int_equal(st.rwnd_limited_us, 4000000);
	assert_int_equal(st.sndbuf_limited_us, 1000);
	/* An old kernel's shorter struct (4.9: up to the delivery rate): the rest unknown. */
	net_tcp_stats_decode(buf, 168, &st);
	assert_int_equal(st.delivery_rate, 125000000);
	assert_int_equal(st.busy_us, NET_TCP_UNKNOWN);
	assert_int_equal(st.rwnd_limited_us, NET_TCP_UNKNOWN);
	/* Shorter still: the rtt is there, the total retransmits (at 100) are not. */
	net_tcp_stats_decode(buf, 100, &st);
	assert_int_equal(st.rtt_us, 1020);
	assert_int_equal(st.total_retrans, NET_TCP_UNKNOWN);
	assert_int_equal(st.delivery_rate, NET_TCP_UNKNOWN);
}

static void test_tcp_info_socket(void **state)
{
	/* A real connection over loopback: the kernel fills what it knows. */
	int l = -1, c = -1, a = -1;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct net_tcp_stats st;
	uint16_t port;
	char buf[4096];

	(void)state;
	assert_int_equal(net_listen("127.0.0.1", 0, SOCK_STREAM, NULL, &l), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&ss, &sl), 0);
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	assert_int_equal(net_connect("127.0.0.1", port, SOCK_STREAM, NULL, 2000000000ULL, NULL, &c), 0);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(net_write_full(c, buf, sizeof(buf), 2000000000ULL, NULL), 0);
	assert_int_equal(net_read_full(a, buf, sizeof(buf), 2000000000ULL, NULL), 0);
	if (getenv("ENGPASS_EMULATED")) {
		/*
		 * qemu-user does not translate TCP_INFO's struct for a foreign
		 * ABI: the call must answer (figures or an error), no more.
		 */
		int r = net_sock_tcp_info(c, &st);

		print_message("# TCP_INFO under user-mode emulation (%s): %d, rtt %lld us, mss %lld\n",
			      getenv("ENGPASS_EMULATED"), r, (long long)st.rtt_us, (long long)st.snd_mss);
		/* What it decodes is a figure or unknown, never a negative count. */
		assert_true(r < 0 || st.total_retrans >= 0 || st.total_retrans == NET_TCP_UNKNOWN);
		close(a);
		close(c);
		close(l);
		return;
	}
	assert_int_equal(net_sock_tcp_info(c, &st), 0);
	assert_true(st.rtt_us > 0);
	assert_true(st.snd_cwnd > 0);
	assert_true(st.snd_mss > 0);
	assert_true(st.total_retrans >= 0);
	/* Not TCP: an error, nothing made up. */
	{
		int u = socket(AF_INET, SOCK_DGRAM, 0);

		assert_true(net_sock_tcp_info(u, &st) < 0);
		close(u);
	}
	close(a);
	close(c);
	close(l);
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
	assert_false(cap.link_virtual);
	/* A veth side: its interface is virtual, said so, and nothing capped. */
	s.link_virtual = true;
	net_capacity(&c, &s, 225e6, &cap);
	assert_true(cap.link_virtual);
	assert_false(cap.capped);
	s.link_virtual = false;

	/*
	 * Issue 36: a 1 Gbit/s tbf on the client's egress (a veth: no link
	 * speed) caps the 1.75 Gbit/s the cores would move, and says so; a
	 * shaper above the estimate is not the cap.
	 */
	c.shaper_bps = 1e9;
	snprintf(c.shaper_kind, sizeof(c.shaper_kind), "tbf");
	net_capacity(&c, &s, 225e6, &cap);
	assert_true(cap.capped && cap.capped_by_shaper);
	assert_true(cap.total_bps == 1e9);
	assert_string_equal(cap.shaper_kind, "tbf");
	c.shaper_bps = 4e9;
	net_capacity(&c, &s, 225e6, &cap);
	assert_false(cap.capped_by_shaper);
	assert_true(fabs(cap.total_bps - 1750e6) < 1);
	c.shaper_bps = -1;

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

	/* This client's TCP_INFO of its sending streams, as net_test_collect() leaves it. */
	t.tcp_collected = true;
	t.tcp_busy_us = 1.9e6;
	t.tcp_rwnd_limited_us = 0.1e6;
	t.tcp_sndbuf_limited_us = 0;
	t.tcp_rtt_us = 250;
	t.tcp_cwnd = 30;
	t.tcp_delivery_rate = 1e9;

	r = result_new("net", "client");
	net_report_fill(r, &t, false);
	/* The TCP_INFO figures are in the result, by direction. */
	assert_true(metric(r, "up_tcp_rtt") == 250e3);
	assert_true(metric(r, "up_tcp_cwnd") == 30);
	assert_true(metric(r, "up_tcp_delivery_rate") == 8e9);
	assert_true(fabs(metric(r, "up_tcp_busy") - 1.9) < 1e-9);
	assert_true(fabs(metric(r, "up_tcp_rwnd_limited") - 0.1) < 1e-9);
	assert_true(metric(r, "up_tcp_sndbuf_limited") == 0);
	assert_true(isnan(metric(r, "down_tcp_rtt")));
	{
		const struct verdict_candidate *k = cand(r, "tcp window");

		assert_non_null(k);
		assert_true(fabs(k->share - 0.1 / 1.9) < 1e-9);
	}
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
	/* The stock server sent no TCP_INFO, but this client sent: its own figures judge the window. */
	assert_false(result_has_verdict(r));
	result_free(r);
	net_test_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidate_cores),
		cmocka_unit_test(test_candidate_link),
		cmocka_unit_test(test_candidate_pacing),
		cmocka_unit_test(test_candidate_tcp_window),
		cmocka_unit_test(test_candidate_udp_loss),
		cmocka_unit_test(test_candidate_quiet),
		cmocka_unit_test(test_tcp_info_decode),
		cmocka_unit_test(test_tcp_info_socket),
		cmocka_unit_test(test_capacity_seed004),
		cmocka_unit_test(test_report_both_sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
