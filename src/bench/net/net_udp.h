/* SPDX-License-Identifier: MIT */
/*
 * iperf3's UDP datagram header and the receiver's accounting of it, as
 * pure functions (anchors 1.9). Each datagram starts with the sender's
 * clock at send time (u32 seconds, u32 microseconds, big-endian; iperf3
 * 3.12 uses CLOCK_MONOTONIC, verified on the wire) and a sequence number
 * counting from 1 (u32, or u64 when "udp_counters_64bit" was agreed).
 *
 * Loss: a jump forward of the sequence counts the skipped numbers as lost;
 * a datagram at or behind the highest number seen is out of order and
 * takes one back from the loss count (it was counted lost when skipped).
 * Jitter: RFC 1889's running estimate J += (|D| - J) / 16, where D is the
 * change in transit time (arrival - send stamp) between consecutive
 * datagrams, so the two clocks need not agree. Unlike iperf3 the first
 * datagram only sets the reference transit (iperf3 takes the first D
 * against 0, which inflates J when the clocks differ); transit times are
 * kept in integer nanoseconds so large clock offsets lose no precision.
 */
#ifndef ENGPASS_NET_UDP_H
#define ENGPASS_NET_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NET_UDP_HDR32 12	/* sec, usec, u32 seq */
#define NET_UDP_HDR64 16	/* sec, usec, u64 seq */

/* Header size for the agreed counter width. */
static inline size_t net_udp_hdr_len(bool seq64)
{
	return seq64 ? NET_UDP_HDR64 : NET_UDP_HDR32;
}

/*
 * Writes the header for sequence SEQ stamped with monotonic time NOW_NS
 * into BUF (at least net_udp_hdr_len(SEQ64) bytes). With 32-bit counters
 * SEQ wraps as on the wire.
 */
void net_udp_hdr_put(unsigned char *buf, uint64_t now_ns, uint64_t seq, bool seq64);

/*
 * Reads a header from BUF of LEN bytes: *SENT_NS is the stamp in
 * nanoseconds, *SEQ the sequence. Returns false when LEN is shorter than
 * the header (the datagram is then not accounted).
 */
bool net_udp_hdr_get(const unsigned char *buf, size_t len, bool seq64, uint64_t *sent_ns, uint64_t *seq);

struct net_udp_rx {
	uint64_t highest;		/* highest sequence seen; iperf3's "packets" */
	int64_t lost;			/* iperf3's "errors" */
	uint64_t out_of_order;
	uint64_t received;		/* datagrams accounted */
	double jitter_ns;		/* running estimate */
	int64_t prev_transit_ns;
	bool have_transit;
};

/* Zeroes RX. */
void net_udp_rx_init(struct net_udp_rx *rx);

/*
 * Accounts one datagram with sequence SEQ, send stamp SENT_NS and arrival
 * time ARRIVAL_NS (the receiver's monotonic clock).
 */
void net_udp_rx_account(struct net_udp_rx *rx, uint64_t seq, uint64_t sent_ns, uint64_t arrival_ns);

#endif
