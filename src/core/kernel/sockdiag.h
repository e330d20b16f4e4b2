/* SPDX-License-Identifier: MIT */
/*
 * sockdiag: the TCP state of any process's sockets, read over
 * NETLINK_SOCK_DIAG (inet_diag, as iproute2's `ss -tin` reads it), and
 * what two readings of one socket say about why its data moved as it did.
 * For engpass's own sockets TCP_INFO would do; a process watched from
 * outside (watch --pid) is reached only this way. core/fdres names the
 * socket inode a thread waits on; this module reads that socket's
 * struct tcp_info (round trip, congestion window, bytes acked and
 * received, the time it was busy and limited by the receiver's window or
 * its own send buffer, retransmissions), its queues and buffer sizes.
 *
 * The dump. sockdiag_tcp_by_inode() asks for every TCP socket of the
 * namespace (IPv4, then IPv6; listeners too, but no TIME_WAIT or
 * SYN_RECV entries, which have no inode) with INET_DIAG_INFO,
 * INET_DIAG_CONG and INET_DIAG_SKMEMINFO, and keeps those whose inode was
 * asked for. inet_diag's bytecode filter has no inode condition, so the
 * filtering is done here. Cost: linear in the TCP sockets of the
 * namespace, about 300 bytes of reply each (a few ms for thousands): it
 * is meant for the edges of a span or a reading a second, not for every
 * tick of the 100 Hz thread-state sampler.
 *
 * The namespace. sock_diag answers for the network namespace the netlink
 * socket was created in. sockdiag_open_ns() creates it inside the
 * namespace of a process: a short-lived thread enters /proc/PID/ns/net
 * with setns() (which moves only that thread), creates and binds the
 * socket there and exits; the socket stays in that namespace for its
 * whole life, and no other thread of engpass ever changes namespace (so
 * nothing can be left in the wrong one when something fails half-way).
 *
 * struct tcp_info grows with the kernel and the kernel sends the length
 * it has; each field is read only when the attribute covers it, and the
 * have_* flags say which groups were there (see the struct). Fields are
 * copied out with memcpy() at the offsets of the published layout (no
 * alignment assumed, a header older than the running kernel is fine).
 * tcpi_rcv_wnd is not read: the AccECN counters were inserted in front of
 * it in 6.18-rc (include/uapi/linux/tcp.h), so its offset is not stable.
 *
 * Errors: functions return -errno with WHY filled (lower case, the error
 * first); nothing prints or exits. Built without libmnl, sockdiag_open*()
 * say -ENOSYS ("built without libmnl") and the parsers -ENOSYS; the
 * judgement, being pure arithmetic, works in every build. One struct
 * sockdiag must not be used by two threads at once.
 *
 * ---------------------------------------------------------------------
 * The judgement (sockdiag_judge()): what two readings A then B of one
 * socket, DT seconds apart, say about why its data moved as it did. The
 * caller says which way the data it waited for flows (RECEIVING: the
 * process reads from this socket; otherwise it writes to it). The rules
 * are tried in this order; the first that holds is the answer, and
 * EVIDENCE gets the figures that made it, in one line:
 *
 * Sending (the kernel's own accounting of where the sender's time went:
 * busy_time, rwnd_limited and sndbuf_limited, Linux >= 4.10):
 *  SD_IDLE         the connection had data in flight or queued less than
 *                  SOCKDIAG_IDLE_BUSY of the interval (busy_time), or
 *                  nothing moved: the application did not give it data
 *                  (its own producer, or a request/response peer that
 *                  had not asked). Without the busy counters (a kernel
 *                  before 4.10): no byte acked and none unacknowledged.
 *  SD_BOTTLENECK   with data in flight and the peer's window not closed,
 *                  the smoothed round trip is at least SOCKDIAG_QUEUE_RATIO
 *                  times the connection's minimum and SOCKDIAG_QUEUE_MIN_US
 *                  above it: a standing queue in front of the narrowest
 *                  point of the path (a shaper, a slower link; on our own
 *                  egress too). Checked before the window because a queue
 *                  absorbs any window: behind a shaper with a deep buffer
 *                  the sender also ends up rwnd_limited. (A closed
 *                  window is not one: the receiver may delay its answers
 *                  to zero-window probes, which raised srtt from 0.03 to
 *                  5 ms in test_live_window.)
 *  SD_RECV_WINDOW  rwnd_limited is more than SOCKDIAG_LIMITED_SHARE of the
 *                  busy time: the peer's advertised window stopped us
 *                  (the receiver does not read, or its buffer is clamped:
 *                  its SO_RCVBUF, net.core.rmem_max, net.ipv4.tcp_rmem).
 *  SD_SNDBUF       sndbuf_limited is more than SOCKDIAG_LIMITED_SHARE of
 *                  the busy time: our send buffer (SO_SNDBUF, tcp_wmem)
 *                  ran dry while the window was open.
 *  SD_LOSS         retransmitted bytes are at least SOCKDIAG_LOSS_SHARE of
 *                  the bytes sent (bytes_retrans/bytes_sent, 4.19; before,
 *                  total_retrans segments times the MSS over bytes acked).
 *  SD_ROUND_TRIP   busy, none of the above, and the round trip at least
 *                  SOCKDIAG_RTT_FLOOR_US: the congestion window's worth per
 *                  round trip is what moved (little in flight per rtt).
 *  SD_UNKNOWN      busy, and TCP shows no limit: the bound is elsewhere
 *                  (a CPU, the link itself); also when a reading lacks
 *                  tcp_info, DT is not positive, or the readings are not
 *                  of the same connection (another inode, counters that
 *                  went back).
 * Receiving (what the receiver can see: bytes_received, the time since
 * the last data came, its receive queue, its window clamp and the round
 * trip, the larger of rcv_rtt and rtt):
 *  SD_UNKNOWN      our receive queue held more than SOCKDIAG_RX_UNREAD of
 *                  our receive buffer at A and at B, and less than one
 *                  buffer's worth came in between: the data was here and
 *                  our reader did not take it (not a network wait; the
 *                  peer's sender sees our window close). The turnover
 *                  keeps a small buffer that is read all the time, and
 *                  so is often part full at a snapshot, out of this.
 *  SD_IDLE         no byte came, the last data came SOCKDIAG_RX_IDLE_SHARE
 *                  of the interval or more before B, or less than one
 *                  segment came per round trip on average: the peer had
 *                  nothing to send (a slow server, an idle peer).
 *  SD_LOSS         out-of-order packets received (rcv_ooopack, 5.4) times
 *                  the MSS are at least SOCKDIAG_LOSS_SHARE of the bytes
 *                  received: holes upstream, filled by retransmissions.
 *  SD_UPSTREAM     (only while our receive queue at B holds at most
 *                  SOCKDIAG_RX_UNREAD of our buffer: else our reader was
 *                  behind, its window shrank and rcv_rtt swelled)
 *                  rcv_rtt is SOCKDIAG_QUEUE_RATIO times the minimum and
 *                  SOCKDIAG_QUEUE_MIN_US above it while our queue stayed
 *                  empty: the data is held in a queue before us (a shaper
 *                  on the path or on the sender's egress).
 *  SD_RECV_WINDOW  the bytes received per round trip reach
 *                  SOCKDIAG_RX_WINDOW_FULL of our window clamp
 *                  (rcv_ssthresh): our own receive buffer is the limit,
 *                  or a reader slow enough to keep it part full (the
 *                  evidence gives the unread bytes; NEEDSWORK: two
 *                  readings cannot tell these two apart).
 *  SD_UNKNOWN      our queue at B held more than SOCKDIAG_RX_UNREAD of our
 *                  buffer: our reader was behind at the end.
 *  SD_UPSTREAM     otherwise: data came steadily, our queue empty and our
 *                  window open: held before us (a shaper without a deep
 *                  queue, the sender's pacing or its application).
 *
 * The thresholds and where they come from:
 *  - SOCKDIAG_LIMITED_SHARE 0.5: the kernel's chrono counters are
 *    exclusive (tcp_chrono_start() in net/ipv4/tcp_output.c: at any time
 *    the socket is busy, rwnd-limited or sndbuf-limited, the last taking
 *    precedence), so more than half of the busy time makes a limit the
 *    largest of the three; `ss -ti` prints them as shares of busy time.
 *  - SOCKDIAG_LOSS_SHARE 0.01: Mathis et al., "The macroscopic behavior of
 *    the TCP congestion avoidance algorithm" (1997): a Reno flow reaches
 *    at most 1.22 MSS / (rtt sqrt(p)), 12 segments per round trip at
 *    p = 1 %, less than the window of any path over a few Mbit/s.
 *  - SOCKDIAG_QUEUE_RATIO 2 and SOCKDIAG_QUEUE_MIN_US 1000: a standing
 *    queue as long as the path itself (BBR, Cardwell et al. 2016, keeps
 *    its queue near zero; loss-based flows fill a shaper's buffer, which
 *    shows as rtt far above min_rtt). The 1 ms floor keeps the jitter of a
 *    loopback or LAN round trip (tens of microseconds, where doubling is
 *    noise) from reading as a queue; it is engpass's choice.
 *  - SOCKDIAG_RTT_FLOOR_US 1000: busy_time counts in jiffies (1-10 ms) and
 *    below 1 ms a round trip does not bound a bulk flow with an ordinary
 *    window (64 KiB per 1 ms is 500 Mbit/s); engpass's choice.
 *  - SOCKDIAG_IDLE_BUSY 0.25, SOCKDIAG_RX_IDLE_SHARE 0.5,
 *    SOCKDIAG_RX_UNREAD 0.25, SOCKDIAG_RX_WINDOW_FULL 0.5: engpass's own
 *    choices, set so the live cases of tests/unit/test_sockdiag.c and
 *    tests/verdict/sockdiag.sh fall clearly on one side (their figures
 *    are in the commit that set them), not taken from another tool.
 */
#ifndef ENGPASS_SOCKDIAG_H
#define ENGPASS_SOCKDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"

#define SOCKDIAG_LIMITED_SHARE	0.5
#define SOCKDIAG_LOSS_SHARE	0.01
#define SOCKDIAG_QUEUE_RATIO	2.0
#define SOCKDIAG_QUEUE_MIN_US	1000.0
#define SOCKDIAG_RTT_FLOOR_US	1000.0
#define SOCKDIAG_IDLE_BUSY	0.25
#define SOCKDIAG_RX_IDLE_SHARE	0.5
#define SOCKDIAG_RX_UNREAD	0.25
#define SOCKDIAG_RX_WINDOW_FULL	0.5

/* One TCP socket as sock_diag shows it; fields of a group absent from the kernel's answer are 0. */
struct sockdiag_tcp {
	bool found;		/* the socket was in the dump */
	bool have_info;		/* INET_DIAG_INFO came (struct tcp_info, at least Linux 2.6's 104 bytes) */
	bool have_bytes;	/* pacing_rate .. bytes_received, min_rtt, notsent_bytes, delivery_rate (4.9) */
	bool have_limits;	/* busy_time, rwnd_limited, sndbuf_limited (4.10) */
	bool have_sent;		/* bytes_sent, bytes_retrans (4.19) */
	bool have_snd_wnd;	/* snd_wnd, rcv_ooopack (5.4) */
	bool have_skmem;	/* INET_DIAG_SKMEMINFO: rcvbuf, sndbuf */
	uint32_t info_len;	/* bytes of struct tcp_info the kernel sent */
	uint64_t inode;
	int family;		/* AF_INET, AF_INET6 */
	int state;		/* TCP_ESTABLISHED (1) .. TCP_CLOSING (11), as /proc/net/tcp's st */
	char local[64], peer[64];	/* "10.0.0.1:5201", "[::1]:80" (fdres_format_addr()); peer "" if none */
	char cong[16];		/* congestion control ("cubic", "bbr"); "" when not sent */
	double rtt_us, rttvar_us, min_rtt_us, rcv_rtt_us;	/* min_rtt 0 = unknown */
	uint32_t snd_cwnd, snd_ssthresh;	/* segments */
	uint32_t snd_mss, rcv_mss;		/* bytes */
	uint32_t rcv_space, rcv_ssthresh;	/* bytes: receive autotuning's estimate, our window clamp */
	uint32_t snd_wnd;			/* bytes: the peer's advertised window (have_snd_wnd) */
	uint32_t last_data_sent_ms, last_data_recv_ms;	/* since the last data segment, at the reading */
	bool app_limited;	/* the last delivery-rate sample was application limited */
	uint64_t bytes_acked, bytes_received, bytes_sent, bytes_retrans;
	uint64_t delivery_rate, pacing_rate;	/* bytes/s */
	uint64_t busy_time_us, rwnd_limited_us, sndbuf_limited_us;
	uint32_t retrans, total_retrans, lost, unacked, notsent_bytes, rcv_ooopack;
	uint32_t rqueue, wqueue;	/* idiag_rqueue (bytes unread), idiag_wqueue (bytes unacked or unsent) */
	uint32_t rcvbuf, sndbuf;	/* SK_MEMINFO_RCVBUF, SK_MEMINFO_SNDBUF: the buffers' sizes (have_skmem) */
};

struct sockdiag;

/*
 * A NETLINK_SOCK_DIAG socket in our own network namespace, bound, with a
 * receive timeout of 2 s. Caller frees with sockdiag_close(). Returns 0,
 * or -errno with WHY (WHYLEN bytes) saying why: -ENOSYS built without
 * libmnl, another -errno of socket() or bind().
 */
MUST_CHECK int sockdiag_open(struct sockdiag **out, char *why, size_t whylen);

/*
 * The same, in the network namespace of process PID (see the top: a
 * helper thread enters it; the socket stays there). When PID's namespace
 * is ours, this is sockdiag_open() and needs no privilege; otherwise it
 * needs CAP_SYS_ADMIN. Returns 0, or -errno with WHY: -ENOENT (no such
 * process), -EACCES/-EPERM (not allowed to enter), -EINVAL (PID <= 0),
 * -ENOSYS built without libmnl, or the errno of pthread_create().
 */
MUST_CHECK int sockdiag_open_ns(struct sockdiag **out, pid_t pid, char *why, size_t whylen);

/* Closes D's socket and frees D; NULL is allowed. */
void sockdiag_close(struct sockdiag *d);

/*
 * The TCP sockets (IPv4 and IPv6) whose inode is one of INODES[0..N):
 * OUT[i] for INODES[i] (the same socket in each of repeated entries);
 * OUT[i].found false and everything 0 for one not in the namespace (a
 * socket of another family, closed, or in another namespace). Returns
 * how many of the N were found, or -errno with WHY: -ETIMEDOUT (no answer
 * within 2 s), -EPROTO (an answer to another request), -EINVAL (a
 * malformed answer, or N > 0 with a NULL array), another -errno of the
 * kernel's (an NLMSG_ERROR) or of send/recv. OUT is filled only on
 * success.
 */
MUST_CHECK int sockdiag_tcp_by_inode(struct sockdiag *d, const uint64_t *inodes, size_t n, struct sockdiag_tcp *out,
				     char *why, size_t whylen);

/* One TCP socket's traffic: what it carried both ways (bytes acked + bytes received, 4.1/4.2). */
struct sockdiag_flow {
	uint64_t inode;
	uint64_t bytes;
};

/*
 * Every TCP socket of the namespace that has an inode and byte counters
 * (IPv4, then IPv6), into OUT (MAX entries), sorted by inode; sockets past
 * MAX are counted in *DROPPED (may be NULL). For "whose traffic was it":
 * the differences of two such readings per inode. Returns how many were
 * written, or -errno with WHY as sockdiag_tcp_by_inode().
 */
MUST_CHECK int sockdiag_tcp_flows(struct sockdiag *d, struct sockdiag_flow *out, size_t max, size_t *dropped, char *why,
				  size_t whylen);

/* ------------------------------------------------------------------ */
/* The pure parsers, exported for the unit tests and the fuzz target.  */

/*
 * One netlink message of a sock_diag dump reply into OUT: BUF holds LEN
 * bytes, the message first (nlmsg_len <= LEN; bytes after it are not
 * read), aligned as a struct nlmsghdr. Returns 0 with OUT filled (found
 * set; have_info and the other flags as the attributes allow); -ENOMSG
 * for a message of another type (NLMSG_DONE, NLMSG_ERROR, NOOP); -EINVAL
 * for a malformed one: a header or struct inet_diag_msg cut short, an
 * attribute running past the message, a family other than AF_INET or
 * AF_INET6, a tcp_info shorter than 104 bytes, a congestion control name
 * without its NUL. OUT is zeroed first in every case. -ENOSYS without
 * libmnl.
 */
MUST_CHECK int sockdiag_parse_msg(const void *buf, size_t len, struct sockdiag_tcp *out);

/*
 * What one receive of a dump holds (BUF, LEN bytes, aligned as a struct
 * nlmsghdr): every SOCK_DIAG_BY_FAMILY message whose inode is one of
 * INODES[0..N) fills the OUT entries for it (OUT as for
 * sockdiag_tcp_by_inode(); the caller zeroes it before the first
 * receive). Returns 1 when NLMSG_DONE was seen, 0 when more may follow,
 * -errno of an NLMSG_ERROR, -EINVAL for a malformed message or bytes
 * after the last whole one (entries filled before it stay), -ENOSYS
 * without libmnl.
 */
MUST_CHECK int sockdiag_parse_dump(const void *buf, size_t len, const uint64_t *inodes, size_t n,
				   struct sockdiag_tcp *out);

/* ------------------------------------------------------------------ */
/* The judgement (the rules and thresholds are at the top).            */

enum sockdiag_why {
	SD_UNKNOWN,
	SD_ROUND_TRIP,		/* little in flight per round trip: the congestion window per rtt */
	SD_RECV_WINDOW,		/* the receiver's window: the peer's when sending (rwnd_limited), ours when receiving */
	SD_SNDBUF,		/* our send buffer ran dry (sndbuf_limited) */
	SD_LOSS,		/* retransmissions */
	SD_BOTTLENECK,		/* sending: a standing queue after us (rtt well above min_rtt): a shaper, a slower link */
	SD_UPSTREAM,		/* receiving: a plateau with our receive queue empty: held before us */
	SD_IDLE,		/* the application: the connection idle most of the time */
};

/* Its name in evidence and JSON: "round trip", "receive window", ...; the string is static. */
const char *sockdiag_why_name(enum sockdiag_why w);

/*
 * The judgement of readings A then B of the same socket, DT_S seconds
 * apart (see the top). RECEIVING: the process reads from the socket (the
 * data it waits for flows towards it). EVIDENCE (LEN bytes; may be NULL
 * when LEN is 0) gets one line of the figures behind the answer, e.g.
 * "rwnd_limited 980 ms of 1.00 s busy (98 %), peer's window 0 B, 0 B/s
 * acked, rtt 0.03 ms" (truncated, always terminated when LEN > 0). Pure.
 */
enum sockdiag_why sockdiag_judge(const struct sockdiag_tcp *a, const struct sockdiag_tcp *b, double dt_s,
				 bool receiving, char *evidence, size_t len);

#endif
