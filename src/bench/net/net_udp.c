/* SPDX-License-Identifier: MIT */
/*
 * iperf3's UDP header and loss/jitter accounting; see net_udp.h.
 */
#include "bench/net/net_udp.h"

#include <string.h>

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void net_udp_hdr_put(unsigned char *buf, uint64_t now_ns, uint64_t seq, bool seq64)
{
	put32(buf, (uint32_t)(now_ns / 1000000000ULL));
	put32(buf + 4, (uint32_t)(now_ns % 1000000000ULL / 1000));
	if (seq64) {
		put32(buf + 8, (uint32_t)(seq >> 32));
		put32(buf + 12, (uint32_t)seq);
	} else {
		put32(buf + 8, (uint32_t)seq);
	}
}

bool net_udp_hdr_get(const unsigned char *buf, size_t len, bool seq64, uint64_t *sent_ns, uint64_t *seq)
{
	if (len < net_udp_hdr_len(seq64))
		return false;
	*sent_ns = (uint64_t)get32(buf) * 1000000000ULL + (uint64_t)get32(buf + 4) * 1000ULL;
	*seq = seq64 ? (uint64_t)get32(buf + 8) << 32 | get32(buf + 12) : get32(buf + 8);
	return true;
}

void net_udp_rx_init(struct net_udp_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void net_udp_rx_account(struct net_udp_rx *rx, uint64_t seq, uint64_t sent_ns, uint64_t arrival_ns)
{
	int64_t transit = (int64_t)(arrival_ns - sent_ns);

	rx->received++;
	if (seq > rx->highest) {
		/* Everything skipped over is lost until it turns up late. */
		rx->lost += (int64_t)(seq - rx->highest - 1);
		rx->highest = seq;
	} else {
		rx->out_of_order++;
		if (rx->lost > 0)
			rx->lost--;
	}
	if (rx->have_transit) {
		int64_t d = transit - rx->prev_transit_ns;

		if (d < 0)
			d = -d;
		rx->jitter_ns += ((double)d - rx->jitter_ns) / 16.0;
	}
	rx->prev_transit_ns = transit;
	rx->have_transit = true;
}
