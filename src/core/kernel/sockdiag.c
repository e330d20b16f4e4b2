/* SPDX-License-Identifier: MIT */
/*
 * The TCP state of any process's sockets over NETLINK_SOCK_DIAG, and the
 * judgement of two readings; see sockdiag.h. libmnl walks the messages
 * and holds the socket, as in core/kernel/qdisc.c; what an attribute means
 * (struct inet_diag_msg, struct tcp_info, the SK_MEMINFO array) is read
 * here, each length checked before a byte of it is read, and structures
 * are copied with memcpy() at fixed offsets (payloads need not be
 * aligned for their 64-bit fields, which matters on MIPS). A message cut
 * short or an attribute running past it is refused whole (-EINVAL).
 */
#include "sockdiag.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "config.h"
#include "core/kernel/fdres.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#if HAVE_LIBMNL
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "core/kernel/nlattr.h"
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#endif

const char *sockdiag_why_name(enum sockdiag_why w)
{
	switch (w) {
	case SD_ROUND_TRIP: return "round trip";
	case SD_RECV_WINDOW: return "receive window";
	case SD_SNDBUF: return "send buffer";
	case SD_LOSS: return "loss";
	case SD_BOTTLENECK: return "bottleneck queue";
	case SD_UPSTREAM: return "upstream";
	case SD_IDLE: return "idle";
	case SD_UNKNOWN: break;
	}
	return "unknown";
}

/* ------------------------------------------------------------------ */
/* The judgement                                                        */

/* B - A of a counter, 0 when it went back (checked separately). */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

static double share(double part, double whole)
{
	return whole > 0 ? part / whole : 0;
}

/* A standing queue: RTT at least SOCKDIAG_QUEUE_RATIO times MIN and SOCKDIAG_QUEUE_MIN_US above it. */
static bool queued(double rtt, double min)
{
	return min > 0 && rtt >= SOCKDIAG_QUEUE_RATIO * min && rtt - min >= SOCKDIAG_QUEUE_MIN_US;
}

/* "12.50 ms", "0.03 ms": round trips in milliseconds. */
static const char *fmt_ms(char *buf, size_t len, double us)
{
	snprintf(buf, len, "%.2f ms", us / 1000.0);
	return buf;
}

/* A non-negative double as a uint64_t, saturated (a reading's arithmetic can exceed 2^64 on garbage). */
static uint64_t u64_of(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)v;
}

enum sockdiag_why sockdiag_judge(const struct sockdiag_tcp *a, const struct sockdiag_tcp *b, double dt_s,
				 bool receiving, char *evidence, size_t len)
{
	char r[UNITS_FMT_LEN], x[UNITS_FMT_LEN], y[UNITS_FMT_LEN], t1[32], t2[32];
	double dt_us = dt_s * 1e6;

	if (!len)
		evidence = NULL;
#define SAY(...) do { if (evidence) snprintf(evidence, len, __VA_ARGS__); } while (0)
	if (!a->have_info || !b->have_info) {
		SAY("no tcp_info in %s reading", !a->have_info ? "the first" : "the second");
		return SD_UNKNOWN;
	}
	if (!(dt_s > 0) || !isfinite(dt_s)) {
		SAY("no interval between the readings");
		return SD_UNKNOWN;
	}
	if (a->inode != b->inode || b->bytes_acked < a->bytes_acked || b->bytes_received < a->bytes_received ||
	    b->busy_time_us < a->busy_time_us || b->bytes_sent < a->bytes_sent) {
		SAY("the readings are not of the same connection");
		return SD_UNKNOWN;
	}

	if (receiving) {
		uint64_t got = delta(a->bytes_received, b->bytes_received);
		double rate = (double)got / dt_s;
		/*
		 * The larger of the receiver's two estimates: rcv_rtt is taken
		 * about once per window and undershoots at microsecond round
		 * trips (9 us against the sender's 24 in verdict/sockdiag.sh);
		 * rtt comes from our own sends, since the handshake if we send
		 * nothing, and misses a queue that grew later.
		 */
		double rtt = b->rcv_rtt_us > b->rtt_us ? b->rcv_rtt_us : b->rtt_us;
		double per_rtt = rate * rtt / 1e6;
		double silent_us = (double)b->last_data_recv_ms * 1000.0;
		uint32_t mss = b->rcv_mss ? b->rcv_mss : 536;
		/*
		 * Held before us means our queue empty (the top): data unread
		 * at the end is our reader behind, which also swells rcv_rtt
		 * (the window it advertises shrinks).
		 */
		bool behind = b->have_skmem && b->rcvbuf && b->rqueue > SOCKDIAG_RX_UNREAD * b->rcvbuf;

		units_fmt_rate(r, sizeof(r), rate);
		/*
		 * Data sitting unread at both readings, and less than a buffer's
		 * worth came in between (the queue never turned over): the
		 * reader is the holdup, whatever the flow did. A snapshot of a
		 * small buffer read all the time is often part full too: the
		 * turnover tells the two apart.
		 */
		if (b->have_skmem && b->rcvbuf && a->rqueue > SOCKDIAG_RX_UNREAD * b->rcvbuf &&
		    b->rqueue > SOCKDIAG_RX_UNREAD * b->rcvbuf && got < b->rcvbuf) {
			SAY("%s unread in our receive queue (buffer %s), %s received: the data waited for our reader",
			    units_fmt_bytes(x, sizeof(x), b->rqueue), units_fmt_bytes(y, sizeof(y), b->rcvbuf),
			    units_fmt_bytes(t2, sizeof(t2), got));
			return SD_UNKNOWN;
		}
		if (!got || silent_us >= SOCKDIAG_RX_IDLE_SHARE * dt_us || (rtt > 0 && per_rtt < mss)) {
			SAY("%s received, the last data %u ms before the reading, %.1f segments per round trip of %s",
			    units_fmt_bytes(x, sizeof(x), got), b->last_data_recv_ms, rtt > 0 ? per_rtt / mss : 0.0,
			    fmt_ms(t1, sizeof(t1), rtt));
			return SD_IDLE;
		}
		if (b->have_snd_wnd) {
			uint64_t ooo = delta(a->rcv_ooopack, b->rcv_ooopack);

			if ((double)ooo * mss >= SOCKDIAG_LOSS_SHARE * (double)got) {
				SAY("%llu packets out of order for %s received (%.1f %%): holes upstream, %s",
				    (unsigned long long)ooo, units_fmt_bytes(x, sizeof(x), got),
				    100.0 * share((double)ooo * mss, (double)got), r);
				return SD_LOSS;
			}
		}
		if (!behind && queued(b->rcv_rtt_us, b->min_rtt_us)) {
			SAY("%s with our receive queue at %s and the round trip at %s over a minimum of %s: "
			    "held in a queue before us", r, units_fmt_bytes(x, sizeof(x), b->rqueue),
			    fmt_ms(t1, sizeof(t1), b->rcv_rtt_us), fmt_ms(t2, sizeof(t2), b->min_rtt_us));
			return SD_UPSTREAM;
		}
		if (b->rcv_ssthresh && per_rtt >= SOCKDIAG_RX_WINDOW_FULL * b->rcv_ssthresh) {
			SAY("%s, %s per round trip of %s against our window clamp of %s (buffer %s, %u B unread): our "
			    "receive buffer or our reader", r, units_fmt_bytes(x, sizeof(x), u64_of(per_rtt)),
			    fmt_ms(t1, sizeof(t1), rtt), units_fmt_bytes(y, sizeof(y), b->rcv_ssthresh),
			    b->have_skmem ? units_fmt_bytes(t2, sizeof(t2), b->rcvbuf) : "unknown", b->rqueue);
			return SD_RECV_WINDOW;
		}
		if (behind) {
			SAY("%s with %s unread in our receive queue at the end (buffer %s): our reader was behind, the "
			    "data was not held before us", r, units_fmt_bytes(x, sizeof(x), b->rqueue),
			    units_fmt_bytes(y, sizeof(y), b->rcvbuf));
			return SD_UNKNOWN;
		}
		SAY("%s with our receive queue at %s and our window open (%s per round trip of %s, clamp %s): held "
		    "before us", r, units_fmt_bytes(x, sizeof(x), b->rqueue),
		    units_fmt_bytes(y, sizeof(y), u64_of(per_rtt)), fmt_ms(t1, sizeof(t1), rtt),
		    units_fmt_bytes(t2, sizeof(t2), b->rcv_ssthresh));
		return SD_UPSTREAM;
	}

	/* Sending. */
	{
		uint64_t acked = delta(a->bytes_acked, b->bytes_acked);
		double rate = (double)acked / dt_s;
		double busy = (double)delta(a->busy_time_us, b->busy_time_us);
		double rwnd = (double)delta(a->rwnd_limited_us, b->rwnd_limited_us);
		double sndbuf = (double)delta(a->sndbuf_limited_us, b->sndbuf_limited_us);
		double sent, resent;

		units_fmt_rate(r, sizeof(r), rate);
		if (b->have_limits ? busy < SOCKDIAG_IDLE_BUSY * dt_us : !acked && !b->unacked) {
			if (b->have_limits)
				SAY("busy %.0f ms of %.0f ms (%.0f %%), %s acked, the last data sent %u ms before the "
				    "reading", busy / 1000, dt_us / 1000, 100 * share(busy, dt_us), r,
				    b->last_data_sent_ms);
			else
				SAY("nothing acked or in flight, the last data sent %u ms before the reading",
				    b->last_data_sent_ms);
			return SD_IDLE;
		}
		/*
		 * A queue holds data in flight: with nothing unacknowledged (a
		 * closed window: only zero-window probes, whose answers the
		 * receiver may delay) the round trip says nothing about one.
		 */
		if (queued(b->rtt_us, b->min_rtt_us) && b->unacked > 0 && !(b->have_snd_wnd && b->snd_wnd == 0)) {
			SAY("round trip %s over a minimum of %s with %u segments in flight, %s acked: a queue after us",
			    fmt_ms(t1, sizeof(t1), b->rtt_us), fmt_ms(t2, sizeof(t2), b->min_rtt_us), b->unacked, r);
			return SD_BOTTLENECK;
		}
		if (b->have_limits && rwnd > SOCKDIAG_LIMITED_SHARE * busy) {
			SAY("rwnd_limited %.0f ms of %.0f ms busy (%.0f %%), peer's window %s, %s acked, rtt %s",
			    rwnd / 1000, busy / 1000, 100 * share(rwnd, busy),
			    b->have_snd_wnd ? units_fmt_bytes(x, sizeof(x), b->snd_wnd) : "unknown", r,
			    fmt_ms(t1, sizeof(t1), b->rtt_us));
			return SD_RECV_WINDOW;
		}
		if (b->have_limits && sndbuf > SOCKDIAG_LIMITED_SHARE * busy) {
			SAY("sndbuf_limited %.0f ms of %.0f ms busy (%.0f %%), send buffer %s, %s acked",
			    sndbuf / 1000, busy / 1000, 100 * share(sndbuf, busy),
			    b->have_skmem ? units_fmt_bytes(x, sizeof(x), b->sndbuf) : "unknown", r);
			return SD_SNDBUF;
		}
		if (b->have_sent) {
			sent = (double)delta(a->bytes_sent, b->bytes_sent);
			resent = (double)delta(a->bytes_retrans, b->bytes_retrans);
		} else {
			sent = (double)acked;
			resent = (double)delta(a->total_retrans, b->total_retrans) * b->snd_mss;
		}
		if (resent > 0 && resent >= SOCKDIAG_LOSS_SHARE * sent) {
			SAY("%s sent again of %s (%.1f %%), %s acked, rtt %s", units_fmt_bytes(x, sizeof(x), u64_of(resent)),
			    units_fmt_bytes(y, sizeof(y), u64_of(sent)), 100 * share(resent, sent), r,
			    fmt_ms(t1, sizeof(t1), b->rtt_us));
			return SD_LOSS;
		}
		if (b->rtt_us >= SOCKDIAG_RTT_FLOOR_US) {
			SAY("%s per round trip of %s (cwnd %u segments of %u B), %s acked",
			    units_fmt_bytes(x, sizeof(x), u64_of(rate * b->rtt_us / 1e6)),
			    fmt_ms(t1, sizeof(t1), b->rtt_us), b->snd_cwnd, b->snd_mss, r);
			return SD_ROUND_TRIP;
		}
		SAY("busy %.0f %% of the time, %s acked, rtt %s, no limit in TCP: the bound is elsewhere",
		    100 * share(busy, dt_us), r, fmt_ms(t1, sizeof(t1), b->rtt_us));
		return SD_UNKNOWN;
	}
#undef SAY
}

#if HAVE_LIBMNL

/* ------------------------------------------------------------------ */
/* Parsing                                                              */

/*
 * Offsets in struct tcp_info (include/uapi/linux/tcp.h), which only ever
 * grows at its end; the kernel that added each group is in sockdiag.h.
 * Our own, so a build against older headers reads a newer kernel's
 * fields; test_sockdiag checks them against this build's header.
 */
enum {
	TI_STATE = 0, TI_OPTIONS_FLAGS = 7, TI_SND_MSS = 16, TI_RCV_MSS = 20, TI_UNACKED = 24, TI_LOST = 32,
	TI_RETRANS = 36, TI_LAST_DATA_SENT = 44, TI_LAST_DATA_RECV = 52, TI_RCV_SSTHRESH = 64, TI_RTT = 68,
	TI_RTTVAR = 72, TI_SND_SSTHRESH = 76, TI_SND_CWND = 80, TI_RCV_RTT = 92, TI_RCV_SPACE = 96,
	TI_TOTAL_RETRANS = 100, TI_LEN_BASE = 104,
	TI_PACING_RATE = 104, TI_BYTES_ACKED = 120, TI_BYTES_RECEIVED = 128, TI_NOTSENT = 144, TI_MIN_RTT = 148,
	TI_DELIVERY_RATE = 160, TI_LEN_BYTES = 168,
	TI_BUSY = 168, TI_RWND_LIMITED = 176, TI_SNDBUF_LIMITED = 184, TI_LEN_LIMITS = 192,
	TI_BYTES_SENT = 200, TI_BYTES_RETRANS = 208, TI_LEN_SENT = 216,
	TI_RCV_OOOPACK = 224, TI_SND_WND = 228, TI_LEN_SND_WND = 232,
};

/* The u32 at OFF of P (LEN bytes), 0 when the kernel's struct ends before it. */
static uint32_t ti_u32(const unsigned char *p, size_t len, size_t off)
{
	uint32_t v = 0;

	if (off + sizeof(v) <= len)
		memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t ti_u64(const unsigned char *p, size_t len, size_t off)
{
	uint64_t v = 0;

	if (off + sizeof(v) <= len)
		memcpy(&v, p + off, sizeof(v));
	return v;
}

static void parse_info(const unsigned char *p, size_t len, struct sockdiag_tcp *o)
{
	uint32_t min_rtt;

	o->have_info = true;
	o->info_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	o->have_bytes = len >= TI_LEN_BYTES;
	o->have_limits = len >= TI_LEN_LIMITS;
	o->have_sent = len >= TI_LEN_SENT;
	o->have_snd_wnd = len >= TI_LEN_SND_WND;
	/*
	 * tcpi_delivery_rate_app_limited is the first bit-field of byte 7:
	 * the low bit where bit-fields fill from the low end (little-endian
	 * ABIs), the high bit on big-endian ones (MIPS big-endian, PowerPC).
	 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	o->app_limited = (p[TI_OPTIONS_FLAGS] & 0x80) != 0;
#else
	o->app_limited = (p[TI_OPTIONS_FLAGS] & 0x01) != 0;
#endif
	o->snd_mss = ti_u32(p, len, TI_SND_MSS);
	o->rcv_mss = ti_u32(p, len, TI_RCV_MSS);
	o->unacked = ti_u32(p, len, TI_UNACKED);
	o->lost = ti_u32(p, len, TI_LOST);
	o->retrans = ti_u32(p, len, TI_RETRANS);
	o->last_data_sent_ms = ti_u32(p, len, TI_LAST_DATA_SENT);
	o->last_data_recv_ms = ti_u32(p, len, TI_LAST_DATA_RECV);
	o->rcv_ssthresh = ti_u32(p, len, TI_RCV_SSTHRESH);
	o->rtt_us = ti_u32(p, len, TI_RTT);
	o->rttvar_us = ti_u32(p, len, TI_RTTVAR);
	o->snd_ssthresh = ti_u32(p, len, TI_SND_SSTHRESH);
	o->snd_cwnd = ti_u32(p, len, TI_SND_CWND);
	o->rcv_rtt_us = ti_u32(p, len, TI_RCV_RTT);
	o->rcv_space = ti_u32(p, len, TI_RCV_SPACE);
	o->total_retrans = ti_u32(p, len, TI_TOTAL_RETRANS);
	o->pacing_rate = ti_u64(p, len, TI_PACING_RATE);
	o->bytes_acked = ti_u64(p, len, TI_BYTES_ACKED);
	o->bytes_received = ti_u64(p, len, TI_BYTES_RECEIVED);
	o->notsent_bytes = ti_u32(p, len, TI_NOTSENT);
	/* tcp_min_rtt() is ~0U before the first sample. */
	min_rtt = ti_u32(p, len, TI_MIN_RTT);
	o->min_rtt_us = min_rtt == UINT32_MAX ? 0 : min_rtt;
	o->delivery_rate = ti_u64(p, len, TI_DELIVERY_RATE);
	o->busy_time_us = ti_u64(p, len, TI_BUSY);
	o->rwnd_limited_us = ti_u64(p, len, TI_RWND_LIMITED);
	o->sndbuf_limited_us = ti_u64(p, len, TI_SNDBUF_LIMITED);
	o->bytes_sent = ti_u64(p, len, TI_BYTES_SENT);
	o->bytes_retrans = ti_u64(p, len, TI_BYTES_RETRANS);
	o->rcv_ooopack = ti_u32(p, len, TI_RCV_OOOPACK);
	o->snd_wnd = ti_u32(p, len, TI_SND_WND);
	/* A pacing rate of ~0 is "unlimited". */
	if (o->pacing_rate == UINT64_MAX)
		o->pacing_rate = 0;
}

#define ATTR_MAX 31

/* The attributes in [p, p + len) by type into TB[0..ATTR_MAX]: nlattr_table(). */
static int attr_table(const void *p, size_t len, const struct nlattr **tb)
{
	return nlattr_table(p, len, tb, ATTR_MAX);
}

int sockdiag_parse_msg(const void *buf, size_t len, struct sockdiag_tcp *out)
{
	const struct nlmsghdr *nlh = buf;
	const struct nlattr *tb[ATTR_MAX + 1];
	struct inet_diag_msg m;
	size_t plen;
	const char *payload;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return -EINVAL;
	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return -ENOMSG;
	plen = mnl_nlmsg_get_payload_len(nlh);
	if (plen < sizeof(m))
		return -EINVAL;
	payload = mnl_nlmsg_get_payload(nlh);
	memcpy(&m, payload, sizeof(m));
	if (m.idiag_family != AF_INET && m.idiag_family != AF_INET6)
		return -EINVAL;
	if (plen < MNL_ALIGN(sizeof(m)))
		return -EINVAL;
	if (attr_table(payload + MNL_ALIGN(sizeof(m)), plen - MNL_ALIGN(sizeof(m)), tb))
		return -EINVAL;

	out->found = true;
	out->family = m.idiag_family;
	out->state = m.idiag_state;
	out->inode = m.idiag_inode;
	out->rqueue = m.idiag_rqueue;
	out->wqueue = m.idiag_wqueue;
	{
		unsigned char zero[16] = { 0 };
		size_t alen = m.idiag_family == AF_INET6 ? 16 : 4;

		fdres_format_addr(m.idiag_family, (const unsigned char *)m.id.idiag_src, ntohs(m.id.idiag_sport),
				  out->local, sizeof(out->local));
		if (m.id.idiag_dport || memcmp(m.id.idiag_dst, zero, alen))
			fdres_format_addr(m.idiag_family, (const unsigned char *)m.id.idiag_dst,
					  ntohs(m.id.idiag_dport), out->peer, sizeof(out->peer));
	}
	if (tb[INET_DIAG_INFO]) {
		size_t ilen = mnl_attr_get_payload_len(tb[INET_DIAG_INFO]);

		if (ilen < TI_LEN_BASE) {
			memset(out, 0, sizeof(*out));
			return -EINVAL;
		}
		parse_info(mnl_attr_get_payload(tb[INET_DIAG_INFO]), ilen, out);
	}
	if (tb[INET_DIAG_SKMEMINFO]) {
		uint32_t v[SK_MEMINFO_SNDBUF + 1];

		if (mnl_attr_get_payload_len(tb[INET_DIAG_SKMEMINFO]) < sizeof(v)) {
			memset(out, 0, sizeof(*out));
			return -EINVAL;
		}
		memcpy(v, mnl_attr_get_payload(tb[INET_DIAG_SKMEMINFO]), sizeof(v));
		out->rcvbuf = v[SK_MEMINFO_RCVBUF];
		out->sndbuf = v[SK_MEMINFO_SNDBUF];
		out->have_skmem = true;
	}
	if (tb[INET_DIAG_CONG]) {
		const char *s = mnl_attr_get_payload(tb[INET_DIAG_CONG]);
		size_t n = mnl_attr_get_payload_len(tb[INET_DIAG_CONG]);
		const char *nul = memchr(s, '\0', n);

		if (!nul) {
			memset(out, 0, sizeof(*out));
			return -EINVAL;
		}
		n = (size_t)(nul - s);
		if (n >= sizeof(out->cong))
			n = sizeof(out->cong) - 1;
		memcpy(out->cong, s, n);
		out->cong[n] = '\0';
	}
	return 0;
}

/* What a dump keeps of each socket: by inode (the sockets asked for), or every one's bytes. */
struct dump_sink {
	const uint64_t *inodes;
	size_t n;
	struct sockdiag_tcp *out;
	struct sockdiag_flow *flows;	/* non-NULL: every socket with an inode and its byte counters */
	size_t nflows, maxflows, dropped;
};

static void sink_put(struct dump_sink *k, const struct sockdiag_tcp *t)
{
	/* A socket not yet attached to a file (inode 0) matches nothing. */
	if (!t->inode)
		return;
	if (k->flows) {
		if (!t->have_bytes)
			return;
		if (k->nflows == k->maxflows) {
			k->dropped++;
			return;
		}
		k->flows[k->nflows].inode = t->inode;
		k->flows[k->nflows++].bytes = t->bytes_acked + t->bytes_received;
		return;
	}
	for (size_t i = 0; i < k->n; i++)
		if (k->inodes[i] == t->inode)
			k->out[i] = *t;
}

static int parse_dump(const void *buf, size_t len, struct dump_sink *k)
{
	const struct nlmsghdr *nlh = buf;
	int left;

	if (len > INT_MAX)
		return -EINVAL;
	left = (int)len;
	while (nlattr_msg_ok(nlh, left)) {
		struct sockdiag_tcp t;
		int rc;

		switch (nlh->nlmsg_type) {
		case NLMSG_DONE:
			return 1;
		case NLMSG_ERROR:
			rc = nlattr_msg_error(nlh);
			if (rc)
				return rc;
			break;
		case SOCK_DIAG_BY_FAMILY:
			rc = sockdiag_parse_msg(nlh, (size_t)left, &t);
			if (rc < 0)
				return rc;
			sink_put(k, &t);
			break;
		default:
			break;
		}
		nlh = mnl_nlmsg_next(nlh, &left);
	}
	return left > 0 ? -EINVAL : 0;
}

int sockdiag_parse_dump(const void *buf, size_t len, const uint64_t *inodes, size_t n, struct sockdiag_tcp *out)
{
	struct dump_sink k = { .inodes = inodes, .n = n, .out = out };

	if (n && (!inodes || !out))
		return -EINVAL;
	return parse_dump(buf, len, &k);
}

/* ------------------------------------------------------------------ */
/* The socket                                                           */

/* Seconds a receive may wait before the dump gives up. */
#define SOCKDIAG_RECV_TIMEOUT_S 2
/* One receive: the kernel fills dump replies up to 32 KiB (as ss reads them). */
#define SOCKDIAG_BUFSIZE 32768

struct sockdiag {
	struct mnl_socket *nl;
	unsigned seq;
	char *buf;
};

/* A bound NETLINK_SOCK_DIAG socket with the receive timeout, or NULL with WHY and errno. */
static struct mnl_socket *nl_open(char *why, size_t whylen)
{
	struct timeval tv = { SOCKDIAG_RECV_TIMEOUT_S, 0 };
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_SOCK_DIAG, SOCK_CLOEXEC);
	int e;

	if (!nl) {
		e = errno;
		snprintf(why, whylen, "sock_diag socket: %s", strerror(e));
		errno = e;
		return NULL;
	}
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		snprintf(why, whylen, "sock_diag socket: %s", strerror(e));
		mnl_socket_close(nl);
		errno = e;
		return NULL;
	}
	return nl;
}

static struct sockdiag *sockdiag_wrap(struct mnl_socket *nl)
{
	struct sockdiag *d = xmalloc(sizeof(*d));

	d->nl = nl;
	d->seq = (unsigned)time(NULL);
	d->buf = xmalloc(SOCKDIAG_BUFSIZE);
	return d;
}

int sockdiag_open(struct sockdiag **out, char *why, size_t whylen)
{
	struct mnl_socket *nl = nl_open(why, whylen);

	*out = NULL;
	if (!nl)
		return -errno;
	*out = sockdiag_wrap(nl);
	return 0;
}

/* What the namespace thread is given and gives back. */
struct ns_job {
	int nsfd;
	struct mnl_socket *nl;
	int err;
	char why[128];
};

/*
 * The thread that enters the namespace: setns() moves only this thread,
 * the socket is created in it, and the thread (with its namespace) ends.
 */
static void *ns_thread(void *arg)
{
	struct ns_job *job = arg;

	if (setns(job->nsfd, CLONE_NEWNET) < 0) {
		job->err = errno;
		snprintf(job->why, sizeof(job->why), "cannot enter the network namespace: %s", strerror(job->err));
		return NULL;
	}
	job->nl = nl_open(job->why, sizeof(job->why));
	if (!job->nl)
		job->err = errno;
	return NULL;
}

int sockdiag_open_ns(struct sockdiag **out, pid_t pid, char *why, size_t whylen)
{
	char path[64];
	struct stat theirs, ours;
	struct ns_job job = { .nsfd = -1 };
	sigset_t all, old;
	pthread_t th;
	int rc;

	*out = NULL;
	if (pid <= 0) {
		snprintf(why, whylen, "no process (pid %d)", (int)pid);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	job.nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (job.nsfd < 0 || fstat(job.nsfd, &theirs) < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot open '%s': %s", path, strerror(-rc));
		if (job.nsfd >= 0)
			close(job.nsfd);
		return rc;
	}
	/* Our own namespace: no thread, no privilege. */
	if (stat("/proc/self/ns/net", &ours) == 0 && ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino) {
		close(job.nsfd);
		return sockdiag_open(out, why, whylen);
	}
	/* The thread takes no signal: a handler must not run in the other namespace. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&th, NULL, ns_thread, &job);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(job.nsfd);
		snprintf(why, whylen, "cannot start a thread: %s", strerror(rc));
		return -rc;
	}
	pthread_join(th, NULL);
	close(job.nsfd);
	if (!job.nl) {
		snprintf(why, whylen, "pid %d: %s", (int)pid, job.why);
		return -(job.err ? job.err : EIO);
	}
	*out = sockdiag_wrap(job.nl);
	return 0;
}

void sockdiag_close(struct sockdiag *d)
{
	if (!d)
		return;
	mnl_socket_close(d->nl);
	free(d->buf);
	free(d);
}

/* Every TCP state that has a socket file (and so an inode): no SYN_RECV, TIME_WAIT or NEW_SYN_RECV. */
#define SOCKDIAG_STATES (0xffeu & ~((1u << 3) | (1u << 6)))

/* One family's dump into OUT. */
static int dump_family(struct sockdiag *d, int family, struct dump_sink *k, char *why, size_t whylen)
{
	const char *fam = family == AF_INET6 ? "tcp6" : "tcp";
	unsigned portid = mnl_socket_get_portid(d->nl);
	unsigned seq = ++d->seq;
	struct inet_diag_req_v2 *req;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(d->buf);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = (uint8_t)family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_states = SOCKDIAG_STATES;
	req->idiag_ext = (1u << (INET_DIAG_INFO - 1)) | (1u << (INET_DIAG_CONG - 1)) |
			 (1u << (INET_DIAG_SKMEMINFO - 1));
	req->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (mnl_socket_sendto(d->nl, nlh, nlh->nlmsg_len) < 0) {
		int e = errno;

		snprintf(why, whylen, "sock_diag %s dump request: %s", fam, strerror(e));
		return -e;
	}
	for (;;) {
		ssize_t got = mnl_socket_recvfrom(d->nl, d->buf, SOCKDIAG_BUFSIZE);
		const struct nlmsghdr *h;
		int left, rc;

		if (got < 0) {
			int e = errno == EAGAIN || errno == EWOULDBLOCK ? ETIMEDOUT : errno;

			if (errno == EINTR)
				continue;
			snprintf(why, whylen, "sock_diag %s dump: %s", fam,
				 e == ETIMEDOUT ? "no answer within 2 s" : strerror(e));
			return -e;
		}
		left = (int)got;
		for (h = (const struct nlmsghdr *)d->buf; nlattr_msg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
			if (!mnl_nlmsg_seq_ok(h, seq) || !mnl_nlmsg_portid_ok(h, portid)) {
				snprintf(why, whylen, "sock_diag %s dump: a message that answers another request", fam);
				return -EPROTO;
			}
		}
		rc = parse_dump(d->buf, (size_t)got, k);
		if (rc == 1)
			return 0;
		if (rc < 0) {
			/* A kernel built without IPv6 has no tcp6 to dump: nothing there. */
			if (family == AF_INET6 && (rc == -ENOENT || rc == -EAFNOSUPPORT))
				return 0;
			if (rc == -EINVAL)
				snprintf(why, whylen, "sock_diag %s dump: a malformed message", fam);
			else
				snprintf(why, whylen, "sock_diag %s dump: %s", fam, strerror(-rc));
			return rc;
		}
	}
}

int sockdiag_tcp_by_inode(struct sockdiag *d, const uint64_t *inodes, size_t n, struct sockdiag_tcp *out,
			  char *why, size_t whylen)
{
	struct sockdiag_tcp *tmp;
	int rc, found = 0;

	if (n && (!inodes || !out)) {
		snprintf(why, whylen, "no inodes to look for");
		return -EINVAL;
	}
	if (!n)
		return 0;
	tmp = xcalloc(n, sizeof(*tmp));
	struct dump_sink k = { .inodes = inodes, .n = n, .out = tmp };

	rc = dump_family(d, AF_INET, &k, why, whylen);
	if (!rc)
		rc = dump_family(d, AF_INET6, &k, why, whylen);
	if (!rc) {
		memcpy(out, tmp, n * sizeof(*out));
		for (size_t i = 0; i < n; i++)
			found += out[i].found;
	}
	free(tmp);
	return rc ? rc : found;
}

static int flow_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct sockdiag_flow *)a)->inode, y = ((const struct sockdiag_flow *)b)->inode;

	return x < y ? -1 : x > y;
}

int sockdiag_tcp_flows(struct sockdiag *d, struct sockdiag_flow *out, size_t max, size_t *dropped, char *why,
		       size_t whylen)
{
	struct dump_sink k = { .flows = out, .maxflows = max };
	int rc;

	if (!out && max) {
		snprintf(why, whylen, "no room for the flows");
		return -EINVAL;
	}
	rc = dump_family(d, AF_INET, &k, why, whylen);
	if (!rc)
		rc = dump_family(d, AF_INET6, &k, why, whylen);
	if (rc)
		return rc;
	qsort(out, k.nflows, sizeof(*out), flow_cmp);
	if (dropped)
		*dropped = k.dropped;
	return (int)k.nflows;
}

#else /* !HAVE_LIBMNL */

int sockdiag_parse_msg(const void *buf, size_t len, struct sockdiag_tcp *out)
{
	(void)buf;
	(void)len;
	memset(out, 0, sizeof(*out));
	return -ENOSYS;
}

int sockdiag_parse_dump(const void *buf, size_t len, const uint64_t *inodes, size_t n, struct sockdiag_tcp *out)
{
	(void)buf;
	(void)len;
	(void)inodes;
	(void)n;
	(void)out;
	return -ENOSYS;
}

int sockdiag_open(struct sockdiag **out, char *why, size_t whylen)
{
	*out = NULL;
	snprintf(why, whylen, "built without libmnl");
	return -ENOSYS;
}

int sockdiag_open_ns(struct sockdiag **out, pid_t pid, char *why, size_t whylen)
{
	(void)pid;
	return sockdiag_open(out, why, whylen);
}

void sockdiag_close(struct sockdiag *d)
{
	(void)d;
}

int sockdiag_tcp_by_inode(struct sockdiag *d, const uint64_t *inodes, size_t n, struct sockdiag_tcp *out,
			  char *why, size_t whylen)
{
	(void)d;
	(void)inodes;
	(void)n;
	(void)out;
	snprintf(why, whylen, "built without libmnl");
	return -ENOSYS;
}

int sockdiag_tcp_flows(struct sockdiag *d, struct sockdiag_flow *out, size_t max, size_t *dropped, char *why,
		       size_t whylen)
{
	(void)d;
	(void)out;
	(void)max;
	(void)dropped;
	snprintf(why, whylen, "built without libmnl");
	return -ENOSYS;
}

#endif
