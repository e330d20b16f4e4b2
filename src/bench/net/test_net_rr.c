/* SPDX-License-Identifier: MIT */
/*
 * Tests of the rr protocol's messages (src/bench/net/net_rr.c): the bytes on
 * the wire (big-endian, at the offsets docs/net-rr.md gives), round trips
 * through encode and decode, every bound a hostile peer could break (magic,
 * version, request type, flags, a GET over the block limit, a frame over
 * 64 KiB, accounting shares longer than the session), that an iperf3
 * cookie is never taken for an rr hello, and the verdict's order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/net/net_iperf3.h"
#include "bench/net/net_rr.h"

static void test_hello_wire(void **state)
{
	struct rr_hello h = { .version = RR_VERSION, .block = 61440, .depth = 2 }, back;
	uint8_t buf[RR_HELLO_LEN];
	char err[128];

	(void)state;
	snprintf(h.peer_version, sizeof(h.peer_version), "engpass 0.1.0");
	rr_hello_encode(&h, buf);
	assert_memory_equal(buf, "EPASSRR\0", 8);
	assert_memory_equal(buf + 8, "\0\0\0\1", 4);
	assert_memory_equal(buf + 16, "\0\0\xf0\0", 4);	/* 61440 */
	assert_memory_equal(buf + 20, "\0\0\0\2", 4);
	assert_string_equal((const char *)buf + 24, "engpass 0.1.0");
	assert_int_equal(rr_hello_decode(buf, &back, err, sizeof(err)), 0);
	assert_int_equal(back.block, 61440);
	assert_int_equal(back.depth, 2);
	assert_string_equal(back.peer_version, "engpass 0.1.0");
}

static void test_hello_bad(void **state)
{
	struct rr_hello h = { .version = RR_VERSION, .block = 1, .depth = 1 }, back;
	uint8_t buf[RR_HELLO_LEN];
	char err[128];

	(void)state;
	rr_hello_encode(&h, buf);
	buf[8 + 3] = 2;			/* version 2 */
	assert_int_equal(rr_hello_decode(buf, &back, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "version 2"));
	rr_hello_encode(&h, buf);
	buf[0] = 'e';
	assert_int_equal(rr_hello_decode(buf, &back, err, sizeof(err)), -EPROTO);
	h.block = RR_BLOCK_MAX + 1;
	rr_hello_encode(&h, buf);
	assert_int_equal(rr_hello_decode(buf, &back, err, sizeof(err)), -EPROTO);
	h.block = 1;
	h.depth = RR_DEPTH_MAX + 1;
	rr_hello_encode(&h, buf);
	assert_int_equal(rr_hello_decode(buf, &back, err, sizeof(err)), -EPROTO);
	/* A version string without its NUL and with control bytes is cut and cleaned. */
	h.depth = 1;
	rr_hello_encode(&h, buf);
	memset(buf + 24, 'x', 40);
	buf[30] = '\n';
	assert_int_equal(rr_hello_decode(buf, &back, err, sizeof(err)), 0);
	assert_int_equal(strlen(back.peer_version), 39);
	assert_int_equal(back.peer_version[6], '?');
}

static void test_cookie_is_not_hello(void **state)
{
	char cookie[IPERF3_COOKIE_LEN];

	(void)state;
	for (int i = 0; i < 100; i++) {
		assert_int_equal(iperf3_cookie_make(cookie), 0);
		assert_false(rr_is_hello(cookie, sizeof(cookie)));
	}
	assert_true(rr_is_hello("EPASSRR\0xxxxxxxx", 16));
	assert_false(rr_is_hello("EPASSRR", 7));
}

static void test_welcome(void **state)
{
	struct rr_welcome w = { .version = RR_VERSION, .status = RR_OK, .delay_ns = 1000000, .rate = 125000000,
				.max_block = RR_BLOCK_MAX }, back;
	uint8_t buf[RR_WELCOME_LEN];
	char err[128];

	(void)state;
	snprintf(w.peer_version, sizeof(w.peer_version), "engpass 0.1.0");
	rr_welcome_encode(&w, buf);
	assert_memory_equal(buf + 16, "\0\0\0\0\0\x0f\x42\x40", 8);	/* 1000000 */
	assert_int_equal(rr_welcome_decode(buf, &back, err, sizeof(err)), 0);
	assert_int_equal(back.delay_ns, 1000000);
	assert_int_equal(back.rate, 125000000);
	assert_int_equal(back.max_block, RR_BLOCK_MAX);
	assert_string_equal(back.peer_version, "engpass 0.1.0");
	buf[15] = 7;			/* unknown status */
	assert_int_equal(rr_welcome_decode(buf, &back, err, sizeof(err)), -EPROTO);
	/* An iperf3 server's first byte (PARAM_EXCHANGE) is no welcome. */
	memset(buf, 0, sizeof(buf));
	buf[0] = IPERF3_PARAM_EXCHANGE;
	assert_int_equal(rr_welcome_decode(buf, &back, err, sizeof(err)), -EPROTO);
}

static void test_request(void **state)
{
	struct rr_request r = { .type = RR_GET, .id = 7, .offset = UINT64_C(5) << 32, .len = 61440 }, back;
	uint8_t buf[RR_REQUEST_LEN];
	char err[128];

	(void)state;
	rr_request_encode(&r, buf);
	assert_memory_equal(buf, "\0\0\0\1\0\0\0\0\0\0\0\0\0\0\0\7\0\0\0\5\0\0\0\0", 24);
	assert_int_equal(rr_request_decode(buf, 61440, &back, err, sizeof(err)), 0);
	assert_int_equal(back.offset, UINT64_C(5) << 32);
	/* One byte over the block limit. */
	assert_int_equal(rr_request_decode(buf, 61439, &back, err, sizeof(err)), -EPROTO);
	/* A STREAM has no block limit, but a bound. */
	r.type = RR_STREAM;
	r.len = RR_STREAM_UNBOUNDED;
	rr_request_encode(&r, buf);
	assert_int_equal(rr_request_decode(buf, 1, &back, err, sizeof(err)), 0);
	r.len = RR_STREAM_UNBOUNDED + 1;
	rr_request_encode(&r, buf);
	assert_int_equal(rr_request_decode(buf, 1, &back, err, sizeof(err)), -EPROTO);
	/* Unknown type, flags set, offset out of range. */
	r = (struct rr_request){ .type = 9 };
	rr_request_encode(&r, buf);
	assert_int_equal(rr_request_decode(buf, 1, &back, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "type 9"));
	r = (struct rr_request){ .type = RR_END };
	rr_request_encode(&r, buf);
	assert_int_equal(rr_request_decode(buf, 1, &back, err, sizeof(err)), 0);
	buf[7] = 1;
	assert_int_equal(rr_request_decode(buf, 1, &back, err, sizeof(err)), -EPROTO);
	r = (struct rr_request){ .type = RR_GET, .offset = UINT64_MAX };
	rr_request_encode(&r, buf);
	assert_int_equal(rr_request_decode(buf, 1, &back, err, sizeof(err)), -EPROTO);
}

static void test_frame_and_stats(void **state)
{
	struct rr_frame f = { .type = RR_DATA, .len = RR_FRAME_MAX, .id = 3, .offset = 65536 }, fb;
	struct rr_stats s = { .requests = 10, .bytes = 614400, .session_ns = 1000, .idle_ns = 900, .paced_ns = 0,
			      .blocked_ns = 50, .cpu_ns = 77 }, sb;
	uint8_t buf[RR_STATS_LEN];
	char err[128];

	(void)state;
	rr_frame_encode(&f, buf);
	assert_int_equal(rr_frame_decode(buf, &fb, err, sizeof(err)), 0);
	assert_int_equal(fb.len, RR_FRAME_MAX);
	assert_int_equal(fb.offset, 65536);
	f.len = RR_FRAME_MAX + 1;
	rr_frame_encode(&f, buf);
	assert_int_equal(rr_frame_decode(buf, &fb, err, sizeof(err)), -EPROTO);
	f = (struct rr_frame){ .type = RR_STATS, .len = 63 };
	rr_frame_encode(&f, buf);
	assert_int_equal(rr_frame_decode(buf, &fb, err, sizeof(err)), -EPROTO);
	f = (struct rr_frame){ .type = 0x83 };
	rr_frame_encode(&f, buf);
	assert_int_equal(rr_frame_decode(buf, &fb, err, sizeof(err)), -EPROTO);

	rr_stats_encode(&s, buf);
	assert_int_equal(rr_stats_decode(buf, &sb, err, sizeof(err)), 0);
	assert_memory_equal(&s, &sb, sizeof(s));
	s.idle_ns = 1001;
	rr_stats_encode(&s, buf);
	assert_int_equal(rr_stats_decode(buf, &sb, err, sizeof(err)), -EPROTO);
}

static const struct verdict_candidate *cand(const struct result *r, const char *resource)
{
	for (size_t i = 0; i < r->verdict.ncand; i++)
		if (!strcmp(r->verdict.cand[i].resource, resource))
			return &r->verdict.cand[i];
	return NULL;
}

static void test_judge(void **state)
{
	struct rr_figures f = { .throughput = 40e6, .block = 61440, .depth_kept = 1, .depth = 1, .rtt_s = 0.00102,
				.mean_lat_s = 0.00102, .req_rate = 980, .ceiling = 61440 / 0.00102, .idle_pct = 97,
				.paced_pct = 0, .blocked_pct = 0, .client_busy_pct = 3, .client_busy_src = "its thread",
				.busiest_pct = 95, .busiest_cpu = 1, .link_bps = -1 };
	const struct verdict_candidate *k;
	struct result *r = result_new("net", "rr");

	(void)state;
	/* The client waited 97 % of the time: the round trip, with the depth that would hide it. */
	rr_judge(&f, r);
	k = cand(r, "round trip");
	assert_non_null(k);
	assert_true(fabs(k->share - 0.97) < 1e-9);
	assert_non_null(strstr(k->evidence, "depth 1 at 1.02 ms mean round trip = 980 req/s"));
	assert_non_null(strstr(k->evidence, "the client was busy 3 % of the time"));
	assert_non_null(strstr(k->next_step, "(--depth 34) would hide the 1.02 ms round trip"));
	/* No --rate, no link speed: no such candidates; nothing final. */
	assert_null(cand(r, "own pacing"));
	assert_null(cand(r, "link"));
	assert_false(result_has_verdict(r));
	result_free(r);

	/* A busy client does not wait for the round trip. */
	f.client_busy_pct = 95;
	r = result_new("net", "rr");
	rr_judge(&f, r);
	assert_true(fabs(cand(r, "round trip")->share - 0.05) < 1e-9);
	result_free(r);
	/* An idle client but a busy server (idle 10 %): the server's share caps it. */
	f.client_busy_pct = 3;
	f.idle_pct = 10;
	r = result_new("net", "rr");
	rr_judge(&f, r);
	assert_true(fabs(cand(r, "round trip")->share - 0.10) < 1e-9);
	result_free(r);

	/* The server's --rate: its own pacing, measured / asked; the link when known. */
	f.server_rate = 40e6;
	f.paced_pct = 80;
	f.link_bps = 1e9;
	r = result_new("net", "rr");
	rr_judge(&f, r);
	k = cand(r, "own pacing");
	assert_non_null(k);
	assert_true(fabs(k->share - 1.0) < 1e-9);
	assert_non_null(strstr(k->next_step, "--rate"));
	assert_true(fabs(cand(r, "link")->share - 0.32) < 1e-9);
	result_free(r);

	/* Unknown CPU time: the round trip cannot be judged, and says so. */
	f.client_busy_pct = NAN;
	r = result_new("net", "rr");
	rr_judge(&f, r);
	assert_true(isnan(cand(r, "round trip")->share));
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_wire),
		cmocka_unit_test(test_hello_bad),
		cmocka_unit_test(test_cookie_is_not_hello),
		cmocka_unit_test(test_welcome),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_frame_and_stats),
		cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
