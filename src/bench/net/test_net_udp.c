/* SPDX-License-Identifier: MIT */
/*
 * Tests of iperf3's UDP header and the receiver's loss and jitter
 * accounting (src/bench/net/net_udp.c): the bytes on the wire (checked against
 * a datagram Debian's iperf3 3.12 sent), 32- and 64-bit sequences, short
 * datagrams, the loss probe of the research notes (1000 datagrams with
 * 500-502 missing gave errors 3, packets 1000 from the 3.12 server), late
 * and duplicate datagrams, and the jitter estimate, which must not depend
 * on the offset between the sender's and the receiver's clocks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "bench/net/net_udp.h"

#define MS 1000000ULL
#define US 1000ULL

static void test_header_wire(void **state)
{
	/* First datagram of a 3.12 client, seen with strace: 2030 s 43339 us, seq 1. */
	static const unsigned char seen[12] = { 0, 0, 0x07, 0xee, 0, 0, 0xa9, 0x4b, 0, 0, 0, 1 };
	unsigned char buf[16];
	uint64_t ns, seq;

	(void)state;
	net_udp_hdr_put(buf, 2030ULL * 1000000000ULL + 43339ULL * 1000ULL + 999ULL, 1, false);
	assert_memory_equal(buf, seen, sizeof(seen));
	assert_true(net_udp_hdr_get(seen, sizeof(seen), false, &ns, &seq));
	assert_int_equal(seq, 1);
	assert_int_equal(ns, 2030ULL * 1000000000ULL + 43339ULL * 1000ULL);
	assert_int_equal(net_udp_hdr_len(false), 12);
	assert_int_equal(net_udp_hdr_len(true), 16);
}

static void test_header_64(void **state)
{
	unsigned char buf[16];
	uint64_t ns, seq;

	(void)state;
	net_udp_hdr_put(buf, 5 * 1000000000ULL, 0x100000002ULL, true);
	assert_true(net_udp_hdr_get(buf, sizeof(buf), true, &ns, &seq));
	assert_int_equal(seq, 0x100000002ULL);
	/* With 32-bit counters the same sequence wraps as on the wire. */
	net_udp_hdr_put(buf, 5 * 1000000000ULL, 0x100000002ULL, false);
	assert_true(net_udp_hdr_get(buf, 12, false, &ns, &seq));
	assert_int_equal(seq, 2);
	/* Too short for the header: not accounted. */
	assert_false(net_udp_hdr_get(buf, 11, false, &ns, &seq));
	assert_false(net_udp_hdr_get(buf, 15, true, &ns, &seq));
}

static void test_loss_probe(void **state)
{
	struct net_udp_rx rx;
	uint64_t t = 1000 * MS;

	(void)state;
	net_udp_rx_init(&rx);
	for (uint64_t seq = 1; seq <= 1000; seq++) {
		if (seq >= 500 && seq <= 502)
			continue;
		net_udp_rx_account(&rx, seq, t, t + 50 * US);
		t += MS;
	}
	assert_int_equal(rx.lost, 3);
	assert_int_equal(rx.highest, 1000);
	assert_int_equal(rx.received, 997);
	assert_int_equal(rx.out_of_order, 0);
}

static void test_reorder(void **state)
{
	static const uint64_t order[] = { 1, 2, 4, 3, 5, 5, 8, 6 };
	struct net_udp_rx rx;

	(void)state;
	net_udp_rx_init(&rx);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		net_udp_rx_account(&rx, order[i], 0, 0);
	/*
	 * 3 and 6 came late and were taken back from the loss count; 7 is
	 * lost. The duplicate 5 counts as out of order; it would have taken
	 * one back too had anything been counted lost at that moment, which
	 * is how iperf3 counts.
	 */
	assert_int_equal(rx.highest, 8);
	assert_int_equal(rx.out_of_order, 3);
	assert_int_equal(rx.lost, 1);
}

static void test_jitter(void **state)
{
	struct net_udp_rx a, b;
	const uint64_t offset = 1700000000ULL * 1000000000ULL;	/* a wall clock against a monotonic one */

	(void)state;
	net_udp_rx_init(&a);
	net_udp_rx_init(&b);
	/* Constant transit: no jitter at all. */
	for (uint64_t i = 1; i <= 100; i++)
		net_udp_rx_account(&a, i, i * MS, i * MS + 200 * US);
	assert_true(a.jitter_ns == 0);

	/* Transit alternating 100 us / 300 us: |D| = 200 us, J converges to it. */
	net_udp_rx_init(&a);
	for (uint64_t i = 1; i <= 2000; i++) {
		uint64_t transit = i % 2 ? 100 * US : 300 * US;

		net_udp_rx_account(&a, i, i * MS, i * MS + transit);
		net_udp_rx_account(&b, i, i * MS, i * MS + transit + offset);
	}
	assert_true(fabs(a.jitter_ns - 200e3) < 1);
	/* The clock offset cancels exactly, even at 1.7e18 ns. */
	assert_true(a.jitter_ns == b.jitter_ns);
	/* The first datagram only sets the reference: one datagram, no jitter. */
	net_udp_rx_init(&a);
	net_udp_rx_account(&a, 1, 0, offset);
	assert_true(a.jitter_ns == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_wire),
		cmocka_unit_test(test_header_64),
		cmocka_unit_test(test_loss_probe),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_jitter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
