/* SPDX-License-Identifier: MIT */
/*
 * The iperf3 wire protocol, written from the facts in
 * research/network-anchors.md (section 1), which were verified against
 * Debian's iperf3 3.12: one TCP control connection carrying one-byte
 * states, a 37-byte cookie on the control and on every TCP data
 * connection, and JSON messages framed by a 4-byte big-endian length. The
 * client sends its parameters, the server answers with states, the client
 * alone ends the test, and both exchange their results (client first).
 *
 * engpass talks to engpass through the same messages with one extra key,
 * "engpass", in the parameters and in the results; iperf3 looks keys up by
 * name and ignores it. In the results it carries that side's system view
 * during the test (busiest core, softirq share), its CPU time, interface,
 * link speed and CPU frequency (struct net_side).
 *
 * Parsing (jansson) treats the input as hostile: lengths are bounded
 * before anything is allocated, every number is checked for range and
 * finiteness, strings are cut to their buffers, and an error leaves a
 * one-line reason. Without jansson the parsers return -ENOTSUP. Writing
 * uses the jw streaming writer and needs no library.
 */
#ifndef ENGPASS_NET_IPERF3_H
#define ENGPASS_NET_IPERF3_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "core/kernel/net_sock.h"

/* States: one signed byte on the control connection. */
enum iperf3_state {
	IPERF3_TEST_START = 1,
	IPERF3_TEST_RUNNING = 2,
	IPERF3_TEST_END = 4,
	IPERF3_PARAM_EXCHANGE = 9,
	IPERF3_CREATE_STREAMS = 10,
	IPERF3_SERVER_TERMINATE = 11,
	IPERF3_CLIENT_TERMINATE = 12,
	IPERF3_EXCHANGE_RESULTS = 13,
	IPERF3_DISPLAY_RESULTS = 14,
	IPERF3_IPERF_DONE = 16,
	IPERF3_ACCESS_DENIED = -1,
	IPERF3_SERVER_ERROR = -2,
};

#define IPERF3_COOKIE_LEN 37		/* 36 characters and a NUL, all on the wire */
/*
 * engpass's one extension of the control protocol: an engpass client's
 * cookie ends with IPERF3_COOKIE_MARK (still 36 characters of iperf3's
 * alphabet, so any server takes it), and an engpass server that holds such
 * a client in its queue while another test runs sends it the one state
 * byte IPERF3_ENGPASS_QUEUED (no iperf3 state has that value). A stock
 * iperf3 client, whose cookie has no mark, never sees it.
 */
#define IPERF3_COOKIE_MARK "engpq"
#define IPERF3_ENGPASS_QUEUED 64
#define IPERF3_PARAMS_MAX 8192		/* as iperf3 3.18+ (MAX_PARAMS_JSON_STRING) */
#define IPERF3_RESULTS_MAX (256 * 1024)	/* 128 streams need about 25 KiB */
#define IPERF3_MAX_STREAMS 128
#define IPERF3_TCP_LEN_MAX (1024 * 1024)
#define IPERF3_TCP_LEN_DEFAULT (128 * 1024)
#define IPERF3_UDP_LEN_MIN 16
#define IPERF3_UDP_LEN_MAX 65507
#define IPERF3_UDP_LEN_FALLBACK 1460	/* when the control connection's MSS is unknown */
#define IPERF3_UDP_RATE_DEFAULT 1048576.0	/* bits/s per stream, iperf3's default */
#define IPERF3_WINDOW_MAX (512 * 1024 * 1024)
#define IPERF3_TIME_MAX 86400
#define IPERF3_OMIT_MAX 600
/* Bytes of the UDP "connect" message and of the server's reply. */
#define IPERF3_UDP_CONNECT_MSG "9876"
#define IPERF3_UDP_CONNECT_REPLY "6789"
/* The reply of older servers, 987654321 as a big-endian int. */
#define IPERF3_UDP_CONNECT_REPLY_LEGACY "\xb1\x68\xde\x3a"
/* Stream ids: 1, 3, 4, 5, ... (2 is skipped, as iperf3 does). */
#define IPERF3_STREAM_ID(i) ((i) == 0 ? 1 : (i) + 2)

enum net_proto {
	NET_TCP,
	NET_UDP,
};

/* The parameters message (client to server); see anchors 1.5. */
struct iperf3_params {
	enum net_proto proto;
	double time_s;			/* test length asked; 0 with -n/-k */
	double omit_s;			/* leading seconds not counted */
	uint64_t num;			/* -n bytes, 0 = unused */
	uint64_t blockcount;		/* -k blocks, 0 = unused */
	int parallel;			/* streams per direction, 1..128 */
	uint64_t len;			/* block or datagram size */
	bool reverse;			/* server sends */
	bool bidir;			/* both send */
	int64_t window;			/* SO_SNDBUF/SO_RCVBUF, 0 = default */
	int64_t mss;			/* TCP_MAXSEG, 0 = default */
	bool nodelay;
	double bandwidth_bps;		/* per stream, 0 = unlimited (TCP) */
	bool udp_counters_64bit;
	bool zerocopy;			/* a sending server uses sendfile() */
	int server_affinity;		/* -1 = none */
	char client_version[32];	/* "" when absent */
	/* engpass extras, under "engpass" */
	bool engpass;			/* the client is engpass */
	char engpass_version[32];
	bool want_capacity;		/* send the CPU frequency with the results */
};

/* Sets P to what a client sends when nothing is asked (TCP, 10 s, 1 stream). */
void iperf3_params_init(struct iperf3_params *p);

/*
 * One side's view of the test, sent by engpass under "engpass" in its
 * results. Unknown: NaN for doubles, -1 for ints, "" for strings.
 */
struct net_side {
	bool present;			/* filled (locally or from an engpass peer) */
	char version[32];
	/*
	 * Same box? A hash of the test's cookie and the kernel's boot id:
	 * equal on both ends of one box, and useless for telling boxes apart
	 * across tests, so the boot id itself never leaves the box.
	 */
	char box_tag[24];
	char iface[NET_IFNAME_LEN];
	double link_bps;		/* -1 unknown */
	bool link_virtual;		/* iface is virtual (veth, tun, bridge, lo): no link speed */
	/*
	 * The shaping qdisc on this side's egress interface, from the limits
	 * of its window (bits/s, kind "tbf", "htb"...); -1 none or unknown.
	 * This side's own reading only: not exchanged with the peer.
	 */
	double shaper_bps;
	char shaper_kind[16];
	int ncpu;			/* online CPUs */
	bool have_view;			/* the sampler ran during the test */
	unsigned samples;
	int busiest_cpu;
	double busiest_busy_pct, busiest_softirq_pct, cpu_busy_pct, softirq_pct, steal_pct;
	double process_cpu_s;		/* user + system of the whole process over the test */
	double data_cpu_s;		/* data threads only */
	double moved_bytes;		/* sent + received by this side */
	double freq_mhz;
	char freq_source[32];
	int pinned_cpu;			/* data threads pinned here; -1 none */
	/*
	 * TCP_INFO of the streams this side sent on, read as the transfer
	 * ended (NaN unknown: not a sender, not TCP, or an old kernel):
	 * microseconds busy sending and, of those, limited by the peer's
	 * receive window or by the local send buffer, summed over the
	 * streams; the mean smoothed RTT (µs) and congestion window
	 * (segments); the summed delivery rate (bytes/s).
	 */
	double tcp_busy_us, tcp_rwnd_limited_us, tcp_sndbuf_limited_us;
	double tcp_rtt_us, tcp_cwnd, tcp_delivery_rate;
	/* UDP datagrams this box dropped for a full socket receive buffer over the test (NaN unknown). */
	double udp_rcvbuf_errors;
};

/* Sets S to "nothing known". */
void net_side_init(struct net_side *s);

struct iperf3_stream_result {
	int id;
	double bytes;			/* sent by a sender, received by a receiver */
	int64_t retransmits;		/* -1 unknown or receiver */
	double jitter_s;		/* UDP receiver */
	int64_t errors;			/* UDP lost */
	int64_t packets;		/* UDP: highest sequence (receiver) or sent (sender) */
	int64_t out_of_order;		/* not on the wire; filled locally */
	double start_time, end_time;	/* seconds; end_time is the stream's duration */
	bool sender;			/* not on the wire; filled locally */
};

/* The results message each side sends; see anchors 1.8. */
struct iperf3_results {
	double cpu_total, cpu_user, cpu_system;	/* percent of wall time, process */
	int sender_has_retransmits;		/* 1, 0, or -1 when this side only received */
	char congestion[32];			/* "" when absent */
	struct iperf3_stream_result *streams;	/* owned */
	size_t nstreams;
	struct net_side extra;			/* present only from engpass */
};

/* Frees what R owns and zeroes it. */
void iperf3_results_release(struct iperf3_results *r);

/*
 * Writes P as the parameters JSON text iperf3 expects (booleans as true,
 * numbers as numbers, "len" and "client_version" always, "time" rounded up
 * to whole seconds since 3.12 reads it as an int). Returns a NUL-terminated
 * allocation (caller frees) and its length in *LEN.
 */
char *iperf3_params_format(const struct iperf3_params *p, size_t *len);

/*
 * Parses and validates a parameters message of LEN bytes. Exactly one of
 * tcp/udp must be true ("sctp" is refused); time 0..86400, omit 0..600,
 * parallel 1..128, len within the protocol's limits (absent: the default),
 * window 0..512 MiB. Unknown keys are ignored. Returns 0 with *P filled, or
 * -EINVAL (-ENOTSUP without jansson) with a reason in ERR.
 */
MUST_CHECK int iperf3_params_parse(const char *json, size_t len, struct iperf3_params *p,
				   char *err, size_t errlen);

/*
 * Writes R as a results message (with R->extra under "engpass" when
 * present). Returns a NUL-terminated allocation (caller frees) and its
 * length in *LEN.
 */
char *iperf3_results_format(const struct iperf3_results *r, size_t *len);

/*
 * Parses a results message of LEN bytes into *R (caller releases with
 * iperf3_results_release(), also on error). Numbers of 2^63 or more (3.12
 * prints -1 as 18446744073709551615) read as -1; at most 2 * 128 streams;
 * start_time/end_time and the engpass extras may be absent. Returns 0, or
 * -EINVAL (-ENOTSUP without jansson) with a reason in ERR.
 */
MUST_CHECK int iperf3_results_parse(const char *json, size_t len, struct iperf3_results *r,
				    char *err, size_t errlen);

/*
 * Fills COOKIE with 36 random characters from iperf3's alphabet
 * (a-z, 2-7) and a NUL. Returns 0 or -errno from getrandom().
 */
MUST_CHECK int iperf3_cookie_make(char cookie[IPERF3_COOKIE_LEN]);

/* Ends COOKIE with IPERF3_COOKIE_MARK: this client understands IPERF3_ENGPASS_QUEUED. */
void iperf3_cookie_mark(char cookie[IPERF3_COOKIE_LEN]);

/* Whether the IPERF3_COOKIE_LEN bytes at COOKIE are a marked cookie. */
bool iperf3_cookie_marked(const char *cookie);

/* Sends state S (one byte) within TIMEOUT_NS. Returns 0 or -errno. */
MUST_CHECK int iperf3_send_state(int fd, int s, uint64_t timeout_ns, volatile sig_atomic_t *stop);

/* Reads one state byte within TIMEOUT_NS into *S (-1/-2 sign-extended). */
MUST_CHECK int iperf3_recv_state(int fd, int *s, uint64_t timeout_ns, volatile sig_atomic_t *stop);

/* Sends LEN bytes of JSON with its 4-byte big-endian length. */
MUST_CHECK int iperf3_send_json(int fd, const char *json, size_t len, uint64_t timeout_ns,
				volatile sig_atomic_t *stop);

/*
 * Reads one length-framed JSON message of at most MAX bytes within
 * TIMEOUT_NS (overall). Returns 0 with *OUT a NUL-terminated allocation
 * (caller frees) and *LEN its length; -EMSGSIZE when the length is 0 or
 * above MAX (nothing more is read); or an error of net_read_full().
 */
MUST_CHECK int iperf3_recv_json(int fd, size_t max, uint64_t timeout_ns, volatile sig_atomic_t *stop,
				char **out, size_t *len);

/* Static name of a state for messages: "TEST_END", "ACCESS_DENIED", "state 77". */
const char *iperf3_state_name(int s, char *buf, size_t len);

#endif
