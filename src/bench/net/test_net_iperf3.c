/* SPDX-License-Identifier: MIT */
/*
 * Tests of the iperf3 wire protocol layer (src/bench/net/net_iperf3.c): the
 * parameters and results messages as Debian's iperf3 3.12 sends them, the
 * round trip of what engpass sends, hostile messages (bad JSON, wrong
 * types, out-of-range values, oversized frames, too many streams, control
 * characters), 3.12's -1 printed as 2^64 - 1, cookies, and the length
 * framing over a socket pair, including truncation and timeouts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/net/net_iperf3.h"
#include "config.h"
#include "core/base/clock.h"

#define MS NS_PER_MS

/* Exactly what a Debian 12 iperf3 client sent (research notes, 1.5). */
static const char debian_params[] =
	"{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,\"parallel\":1,\"len\":131072,"
	"\"pacing_timer\":1000,\"client_version\":\"3.12\"}";

/* A 3.12 server's results: -1 printed as unsigned 64-bit. */
static const char results_312[] =
	"{\"cpu_util_total\":44.3,\"cpu_util_user\":1.2,\"cpu_util_system\":43.1,"
	"\"sender_has_retransmits\":18446744073709551615,"
	"\"streams\":[{\"id\":1,\"bytes\":1335623680,\"retransmits\":18446744073709551615,"
	"\"jitter\":0,\"errors\":0,\"packets\":0,\"start_time\":0,\"end_time\":1.000161}]}";

#if HAVE_JANSSON
static void test_params_debian(void **state)
{
	struct iperf3_params p;
	char err[128];

	(void)state;
	assert_int_equal(iperf3_params_parse(debian_params, strlen(debian_params), &p, err, sizeof(err)), 0);
	assert_int_equal(p.proto, NET_TCP);
	assert_true(p.time_s == 1);
	assert_int_equal(p.parallel, 1);
	assert_int_equal(p.len, 131072);
	assert_false(p.reverse);
	assert_false(p.bidir);
	assert_int_equal(p.server_affinity, -1);
	assert_string_equal(p.client_version, "3.12");
	assert_false(p.engpass);
}

static void test_params_roundtrip(void **state)
{
	struct iperf3_params a, b;
	char err[128], *msg;
	size_t len;

	(void)state;
	iperf3_params_init(&a);
	a.proto = NET_UDP;
	a.time_s = 2.5;
	a.parallel = 4;
	a.len = 1400;
	a.bidir = true;
	a.window = 262144;
	a.bandwidth_bps = 5e6;
	a.zerocopy = true;
	a.server_affinity = 1;
	a.engpass = true;
	a.want_capacity = true;
	snprintf(a.engpass_version, sizeof(a.engpass_version), "engpass 0.1.0");
	snprintf(a.client_version, sizeof(a.client_version), "engpass 0.1.0");
	msg = iperf3_params_format(&a, &len);
	assert_int_equal(len, strlen(msg));
	/* 3.12 reads "time" as an int: 2.5 s goes out as 3. */
	assert_non_null(strstr(msg, "\"time\":3"));
	assert_non_null(strstr(msg, "\"udp\":true"));
	assert_non_null(strstr(msg, "\"bidirectional\":true"));
	assert_int_equal(iperf3_params_parse(msg, len, &b, err, sizeof(err)), 0);
	free(msg);
	assert_int_equal(b.proto, NET_UDP);
	assert_true(b.time_s == 3);
	assert_int_equal(b.parallel, 4);
	assert_int_equal(b.len, 1400);
	assert_true(b.bidir);
	assert_int_equal(b.window, 262144);
	assert_true(b.bandwidth_bps == 5e6);
	assert_true(b.zerocopy);
	assert_int_equal(b.server_affinity, 1);
	assert_true(b.engpass);
	assert_true(b.want_capacity);
	assert_string_equal(b.engpass_version, "engpass 0.1.0");
}

static void test_params_udp_defaults(void **state)
{
	static const char m[] = "{\"udp\":true,\"time\":1,\"parallel\":1}";
	struct iperf3_params p;
	char err[128];

	(void)state;
	assert_int_equal(iperf3_params_parse(m, strlen(m), &p, err, sizeof(err)), 0);
	assert_int_equal(p.proto, NET_UDP);
	assert_int_equal(p.len, IPERF3_UDP_LEN_FALLBACK);
	assert_true(p.bandwidth_bps == IPERF3_UDP_RATE_DEFAULT);
}

static void test_params_hostile(void **state)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[1,2,3]",
		"\"tcp\"",
		"{}",					/* no protocol */
		"{\"tcp\":true,\"udp\":true}",		/* two protocols */
		"{\"sctp\":true}",
		"{\"tcp\":true,\"parallel\":0}",
		"{\"tcp\":true,\"parallel\":129}",
		"{\"tcp\":true,\"parallel\":\"4\"}",	/* wrong type */
		"{\"tcp\":true,\"len\":2097152}",	/* above 1 MiB */
		"{\"tcp\":true,\"len\":0}",
		"{\"udp\":true,\"len\":8}",		/* below the UDP header */
		"{\"udp\":true,\"len\":70000}",
		"{\"tcp\":true,\"time\":-1}",
		"{\"tcp\":true,\"time\":86401}",
		"{\"tcp\":true,\"time\":1e400}",
		"{\"tcp\":true,\"omit\":601}",
		"{\"tcp\":true,\"window\":1073741824}",
		"{\"tcp\":true,\"reverse\":true,\"bidirectional\":true}",
		"{\"tcp\":true,\"tcp\":true}",		/* duplicate key */
		"{\"tcp\":true,\"server_affinity\":5000}",
		"{\"tcp\":true,\"bandwidth\":-5}",
		"{\"tcp\":true",			/* truncated */
	};
	struct iperf3_params p;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (iperf3_params_parse(bad[i], strlen(bad[i]), &p, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted hostile parameters: %s", bad[i]);
		if (!err[0])
			fail_msg("no reason for: %s", bad[i]);
	}
}

static void test_params_too_long(void **state)
{
	size_t n = IPERF3_PARAMS_MAX + 100;
	char *m = malloc(n + 1), err[128];
	struct iperf3_params p;

	(void)state;
	/* A valid document that is simply too long: padding in a string. */
	memset(m, 'a', n);
	memcpy(m, "{\"tcp\":true,\"title\":\"", 21);
	memcpy(m + n - 2, "\"}", 2);
	m[n] = 0;
	assert_int_equal(iperf3_params_parse(m, n, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too long"));
	free(m);
}

static void test_results_312(void **state)
{
	struct iperf3_results r;
	char err[128];

	(void)state;
	assert_int_equal(iperf3_results_parse(results_312, strlen(results_312), &r, err, sizeof(err)), 0);
	assert_int_equal(r.sender_has_retransmits, -1);
	assert_int_equal(r.nstreams, 1);
	assert_int_equal(r.streams[0].id, 1);
	assert_true(r.streams[0].bytes == 1335623680.0);
	assert_int_equal(r.streams[0].retransmits, -1);
	assert_true(fabs(r.streams[0].end_time - 1.000161) < 1e-9);
	assert_true(fabs(r.cpu_total - 44.3) < 1e-9);
	assert_false(r.extra.present);
	iperf3_results_release(&r);
}

static void test_results_roundtrip(void **state)
{
	struct iperf3_stream_result s[2] = {
		{ .id = 1, .bytes = 5e9, .retransmits = 7, .jitter_s = 0, .errors = 0, .packets = 0,
		  .start_time = 0, .end_time = 2.0 },
		{ .id = 3, .bytes = 1234, .retransmits = -1, .jitter_s = 0.000125, .errors = 3, .packets = 1000,
		  .start_time = 0, .end_time = 2.0 },
	};
	struct iperf3_results a, b;
	char err[128], *msg;
	size_t len;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.cpu_total = 50;
	a.cpu_user = 10;
	a.cpu_system = 40;
	a.sender_has_retransmits = 1;
	snprintf(a.congestion, sizeof(a.congestion), "bbr");
	a.streams = s;
	a.nstreams = 2;
	net_side_init(&a.extra);
	a.extra.present = true;
	a.extra.have_view = true;
	a.extra.busiest_cpu = 1;
	a.extra.busiest_busy_pct = 98;
	a.extra.busiest_softirq_pct = 61;
	a.extra.ncpu = 2;
	a.extra.freq_mhz = 2400;
	snprintf(a.extra.freq_source, sizeof(a.extra.freq_source), "cpufreq");
	snprintf(a.extra.iface, sizeof(a.extra.iface), "eth0");
	a.extra.link_bps = 1e9;
	msg = iperf3_results_format(&a, &len);
	assert_int_equal(iperf3_results_parse(msg, len, &b, err, sizeof(err)), 0);
	free(msg);
	assert_int_equal(b.nstreams, 2);
	assert_true(b.streams[0].bytes == 5e9);
	assert_int_equal(b.streams[0].retransmits, 7);
	assert_int_equal(b.streams[1].id, 3);
	assert_int_equal(b.streams[1].errors, 3);
	assert_int_equal(b.streams[1].packets, 1000);
	assert_true(fabs(b.streams[1].jitter_s - 0.000125) < 1e-12);
	assert_string_equal(b.congestion, "bbr");
	assert_true(b.extra.present);
	assert_true(b.extra.have_view);
	assert_int_equal(b.extra.busiest_cpu, 1);
	assert_true(b.extra.busiest_busy_pct == 98);
	assert_true(b.extra.busiest_softirq_pct == 61);
	assert_true(b.extra.link_bps == 1e9);
	assert_true(b.extra.freq_mhz == 2400);
	assert_string_equal(b.extra.freq_source, "cpufreq");
	assert_string_equal(b.extra.iface, "eth0");
	/* Unknowns travel as null and come back unknown. */
	assert_true(isnan(b.extra.process_cpu_s));
	assert_int_equal(b.extra.pinned_cpu, -1);
	iperf3_results_release(&b);
}

static void test_results_hostile(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"streams\":{}}",
		"{\"streams\":[1]}",
		"{\"streams\":[{\"bytes\":1}]}",			/* no id */
		"{\"streams\":[{\"id\":1}]}",				/* no bytes */
		"{\"streams\":[{\"id\":1,\"bytes\":-1}]}",
		"{\"streams\":[{\"id\":0,\"bytes\":1}]}",
		"{\"streams\":[{\"id\":1,\"bytes\":\"1\"}]}",
		"{\"cpu_util_total\":\"x\",\"streams\":[]}",
		"{\"streams\":[{\"id\":1,\"bytes\":1,\"jitter\":-1}]}",
	};
	struct iperf3_results r;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (iperf3_results_parse(bad[i], strlen(bad[i]), &r, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted hostile results: %s", bad[i]);
		iperf3_results_release(&r);
	}
}

static void test_results_too_many_streams(void **state)
{
	size_t cap = 300 * 32 + 64, n = 0;
	char *m = malloc(cap), err[128];
	struct iperf3_results r;

	(void)state;
	n += (size_t)snprintf(m + n, cap - n, "{\"streams\":[");
	for (int i = 0; i < 2 * IPERF3_MAX_STREAMS + 1; i++)
		n += (size_t)snprintf(m + n, cap - n, "%s{\"id\":%d,\"bytes\":1}", i ? "," : "", i + 1);
	n += (size_t)snprintf(m + n, cap - n, "]}");
	assert_int_equal(iperf3_results_parse(m, n, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "streams"));
	iperf3_results_release(&r);
	free(m);
}

static void test_extra_hostile(void **state)
{
	static const char m[] =
		"{\"streams\":[],\"engpass\":{\"version\":\"evil\\u001b[2Jhost\",\"busiest_cpu\":-7,"
		"\"busiest_cpu_busy_percent\":1e9,\"ncpu\":\"lots\",\"freq_mhz\":-5,"
		"\"iface\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"have_view\":true}}";
	struct iperf3_results r;
	char err[128];

	(void)state;
	assert_int_equal(iperf3_results_parse(m, strlen(m), &r, err, sizeof(err)), 0);
	assert_true(r.extra.present);
	/* Control characters never reach a terminal; long strings are cut. */
	assert_null(strchr(r.extra.version, 0x1b));
	assert_int_equal(strlen(r.extra.iface), NET_IFNAME_LEN - 1);
	/* Nonsense values stay unknown, and a view without a core is no view. */
	assert_int_equal(r.extra.busiest_cpu, -1);
	assert_true(isnan(r.extra.busiest_busy_pct));
	assert_int_equal(r.extra.ncpu, -1);
	assert_true(isnan(r.extra.freq_mhz));
	assert_false(r.extra.have_view);
	iperf3_results_release(&r);
}

#else

/* Built without jansson: the parsers say so instead of guessing. */
static void test_no_jansson(void **state)
{
	struct iperf3_params p;
	struct iperf3_results r;
	char err[128];

	(void)state;
	assert_int_equal(iperf3_params_parse(debian_params, strlen(debian_params), &p, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "jansson"));
	assert_int_equal(iperf3_results_parse(results_312, strlen(results_312), &r, err, sizeof(err)), -ENOTSUP);
	iperf3_results_release(&r);
}
#endif

static void test_cookie(void **state)
{
	char a[IPERF3_COOKIE_LEN], b[IPERF3_COOKIE_LEN];

	(void)state;
	assert_int_equal(iperf3_cookie_make(a), 0);
	assert_int_equal(iperf3_cookie_make(b), 0);
	assert_int_equal(a[IPERF3_COOKIE_LEN - 1], 0);
	assert_int_equal(strlen(a), 36);
	assert_int_equal(strspn(a, "abcdefghijklmnopqrstuvwxyz234567"), 36);
	assert_true(memcmp(a, b, sizeof(a)) != 0);
	/* The engpass mark: still 36 characters of iperf3's alphabet, and recognised. */
	assert_false(iperf3_cookie_marked(a) && iperf3_cookie_marked(b));
	iperf3_cookie_mark(a);
	assert_true(iperf3_cookie_marked(a));
	assert_int_equal(strlen(a), 36);
	assert_int_equal(strspn(a, "abcdefghijklmnopqrstuvwxyz234567"), 36);
	assert_memory_equal(a + 31, IPERF3_COOKIE_MARK, 5);
	a[IPERF3_COOKIE_LEN - 1] = 'x';
	assert_false(iperf3_cookie_marked(a));
}

static void test_framing(void **state)
{
	int sv[2];
	char *out;
	size_t len;
	int s;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(iperf3_send_json(sv[0], "{\"a\":1}", 7, 100 * MS, NULL), 0);
	assert_int_equal(iperf3_recv_json(sv[1], 100, 100 * MS, NULL, &out, &len), 0);
	assert_int_equal(len, 7);
	assert_string_equal(out, "{\"a\":1}");
	free(out);

	/* States are signed bytes: ACCESS_DENIED reads back as -1. */
	assert_int_equal(iperf3_send_state(sv[0], IPERF3_ACCESS_DENIED, 100 * MS, NULL), 0);
	assert_int_equal(iperf3_recv_state(sv[1], &s, 100 * MS, NULL), 0);
	assert_int_equal(s, -1);

	/* A length of 0 or above the cap is refused before any allocation. */
	{
		uint32_t be = htonl(0);

		assert_int_equal(write(sv[0], &be, 4), 4);
		assert_int_equal(iperf3_recv_json(sv[1], 100, 100 * MS, NULL, &out, &len), -EMSGSIZE);
		be = htonl(0x7fffffff);
		assert_int_equal(write(sv[0], &be, 4), 4);
		assert_int_equal(iperf3_recv_json(sv[1], IPERF3_PARAMS_MAX, 100 * MS, NULL, &out, &len), -EMSGSIZE);
		assert_null(out);
	}

	/* Nothing arrives: a timeout, not a hang. */
	assert_int_equal(iperf3_recv_state(sv[1], &s, 50 * MS, NULL), -ETIMEDOUT);

	/* A promised body that never comes: timeout; then the peer closes. */
	{
		uint32_t be = htonl(50);

		assert_int_equal(write(sv[0], &be, 4), 4);
		assert_int_equal(write(sv[0], "{\"x\"", 4), 4);
		assert_int_equal(iperf3_recv_json(sv[1], 100, 50 * MS, NULL, &out, &len), -ETIMEDOUT);
		close(sv[0]);
		assert_int_equal(iperf3_recv_state(sv[1], &s, 50 * MS, NULL), -ECONNRESET);
	}
	close(sv[1]);
}

static void test_state_names(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(iperf3_state_name(IPERF3_TEST_END, buf, sizeof(buf)), "TEST_END");
	assert_string_equal(iperf3_state_name(-1, buf, sizeof(buf)), "ACCESS_DENIED");
	assert_string_equal(iperf3_state_name(77, buf, sizeof(buf)), "state 77");
	assert_int_equal(IPERF3_STREAM_ID(0), 1);
	assert_int_equal(IPERF3_STREAM_ID(1), 3);
	assert_int_equal(IPERF3_STREAM_ID(2), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#if HAVE_JANSSON
		cmocka_unit_test(test_params_debian),
		cmocka_unit_test(test_params_roundtrip),
		cmocka_unit_test(test_params_udp_defaults),
		cmocka_unit_test(test_params_hostile),
		cmocka_unit_test(test_params_too_long),
		cmocka_unit_test(test_results_312),
		cmocka_unit_test(test_results_roundtrip),
		cmocka_unit_test(test_results_hostile),
		cmocka_unit_test(test_results_too_many_streams),
		cmocka_unit_test(test_extra_hostile),
#else
		cmocka_unit_test(test_no_jansson),
#endif
		cmocka_unit_test(test_cookie),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_state_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
