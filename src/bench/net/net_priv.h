/* SPDX-License-Identifier: MIT */
/*
 * Shared between the files of `engpass net` (net.c, net_server.c,
 * net_client.c, net_report.c) and nothing else: the options struct, the
 * record of one finished test that both roles fill, and the functions that
 * turn such a record into a result (metrics, verdict, capacity estimate).
 */
#ifndef ENGPASS_NET_PRIV_H
#define ENGPASS_NET_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/net/net_iperf3.h"
#include "core/kernel/net_sock.h"
#include "bench/net/net_stream.h"
#include "core/result/result.h"
#include "core/base/sysview.h"

enum net_role {
	NET_ROLE_NONE,
	NET_ROLE_SERVER,
	NET_ROLE_CLIENT,
};

/* The client's kinds of test: iperf3's, or engpass's request/response protocol. */
enum net_mode {
	NET_MODE_IPERF3,
	NET_MODE_RR,
	NET_MODE_STREAM,
};

/* `engpass net` options: a shared table and one per verb (net.c) fill it. */
struct net_opts {
	/* server */
	const char *bind;
	bool one_off;
	uint64_t idle_timeout_ns;	/* 0 = serve forever */
	uint64_t read_timeout_ns;	/* every control read */
	uint64_t delay_ns;		/* rr: answer each request this long after it arrived */
	double rate;			/* rr: pace the answers, bytes/s; < 0 = not given */
	int64_t queue;			/* clients held while a test runs; 0 = refuse them */
	/* both */
	int64_t port;
	bool ipv4, ipv6;		/* -4, -6 */
	/* client */
	int64_t parallel;		/* 0 = not given (1) */
	bool reverse;
	bool bidir;
	uint64_t len;			/* 0 = default */
	bool zerocopy;
	uint64_t window;		/* 0 = default */
	int64_t server_pin;		/* -1 = none */
	bool udp;
	double bitrate;			/* bits/s per stream; < 0 = not given */
	bool capacity;
	uint64_t connect_timeout_ns;
	uint64_t queue_timeout_ns;	/* longest wait in an engpass server's queue */
	const char *peer;		/* --peer: the server's host name; NULL = HOST */
	int mode;			/* enum net_mode */
	uint64_t block;			/* rr: bytes per request; 0 = not given */
	int64_t depth;			/* rr: requests in flight; 0 = not given */
	uint64_t size;			/* rr/stream: total bytes; 0 = run for --time */
	uint64_t omit_ns;		/* -O: leading time not counted; 0 = none */
	uint64_t interval_ns;		/* -i: per-interval lines; 0 = none */
	/* filled by check() */
	int role;			/* enum net_role */
	const char *host;
	char iface[NET_IFNAME_LEN];	/* the interface the traffic takes, "" unknown */
};

/* The address family -4 / -6 ask for: AF_INET, AF_INET6, or 0 for either. */
static inline int net_family(const struct net_opts *o)
{
	return o->ipv4 ? AF_INET : o->ipv6 ? AF_INET6 : 0;
}

/* Most clients an engpass server holds while a test runs (--queue). */
#define NET_QUEUE_MAX 64

/* Seconds of per-test slack before the server gives up waiting for TEST_END. */
#define NET_SERVER_GRACE_S 30
/* A byte- or block-count test (time 0) is given at most this long. */
#define NET_SERVER_MAX_UNTIMED_S 600
/*
 * A running test whose data streams move no byte for this many read
 * timeouts (30 s by default; longer when the test's own pace leaves more
 * between two blocks) is abandoned, so a client that stops sending or
 * reading keeps the next one out no longer than that.
 */
#define NET_SERVER_STALL_RTO 3

/* One finished (or abandoned) test as one side saw it. */
struct net_test {
	bool is_client;
	struct iperf3_params p;
	char peer[96];			/* the other side's address */
	char peer_version[40];		/* what the peer says it is; "" unknown */
	/* our streams, in id order; .sender and .out_of_order filled locally */
	struct iperf3_stream_result *local;
	size_t nlocal;
	/* the peer's results (only when the exchange happened) */
	bool have_remote;
	struct iperf3_results remote;
	double duration_s;		/* TEST_RUNNING to TEST_END, local clock */
	double cpu_user_pct, cpu_system_pct;	/* process, of wall time, as iperf3 */
	struct net_side me;		/* this side's view */
	char congestion[32];		/* local TCP congestion control; "" */
	char client_pins[64];		/* client: CPUs of its stream threads, "cpu0,cpu1"; "" */
	bool zerocopy;			/* sendfile() was used for sending here */
	/*
	 * TCP_INFO of the streams this side sent on, at the end of the
	 * transfer (net_test_collect()); copied into the side's figures for
	 * the exchange and the verdict. NaN unknown.
	 */
	bool tcp_collected;
	double tcp_busy_us, tcp_rwnd_limited_us, tcp_sndbuf_limited_us, tcp_rtt_us, tcp_cwnd, tcp_delivery_rate;
	bool incomplete;		/* stopped early */
	char why[160];			/* how it ended early; "" */
	double queue_wait_s;		/* server: in its queue; client: connect to PARAM_EXCHANGE; NaN */
	bool queued;			/* client: the server said it was queued */
	char notes[4][160];		/* caveats to copy into the result */
	int nnotes;
};

/* Adds a caveat to T (at most 4 are kept). */
void net_test_note(struct net_test *t, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Frees what T owns. */
void net_test_release(struct net_test *t);

/*
 * Fills S with this box's facts for the results exchange: version, a tag
 * of COOKIE and the boot id (same box?), online CPUs, interface of
 * connected socket FD and its link
 * speed, the sampled view V (NULL = none), process CPU and bytes moved
 * (NaN when unknown) and, with WANT_FREQ, the CPU frequency and its
 * source (calibrating the loop when cpufreq does not say; 0.1-0.2 s).
 */
void net_side_local(struct net_side *s, const char *cookie, int fd, const struct sysview *v,
		    double process_cpu_s, double data_cpu_s, double moved_bytes, bool want_freq);

/*
 * Turns T into RES: parameters, method, metrics per direction, CPU per
 * GB, both sides' views, link speed, the verdict and, with CAPACITY, the
 * seed-004 estimate. Does not set the status.
 */
void net_report_fill(struct result *res, const struct net_test *t, bool capacity);

/*
 * Adds the queue_wait metric (seconds, NaN: nothing added) and its method
 * to RES: as the server saw it (from its accept of the control connection
 * to the start of the handshake), or with CLIENT as the client saw it
 * (from the connection's set-up to the server's PARAM_EXCHANGE).
 */
void net_queue_wait_metric(struct result *res, double wait_s, bool client);

/* What net_judge() judges a finished test by. */
struct net_judge_in {
	const struct net_side *client, *server;	/* either may lack a view */
	double thr;			/* bits/s received, all directions; NaN unknown */
	int dir;			/* 0 client->server, 1 reverse, 2 both */
	bool udp;
	int parallel;			/* streams per direction */
	double paced_bps;		/* --bitrate x streams x directions; 0 = not paced */
	double per_stream_bps;		/* the --bitrate asked */
	uint64_t window;		/* -w asked, bytes; 0 = default */
	double udp_lost, udp_sent;	/* datagrams, the receivers' count; -1 unknown */
};

/* A throughput past this many times the link speed says the speed is nominal (veth): no "link" candidate. */
#define NET_LINK_NOMINAL 1.1

/*
 * Offers RES the candidate limiters a test knows of (the runner ranks
 * them with the system's): "link" (throughput / link speed), "cpu" (a
 * whole side's CPUs, or the box both share), "one core" (a side's busiest
 * core), "own pacing" (throughput / the --bitrate asked), "tcp window"
 * (TCP_INFO of the sending side: receive-window- or send-buffer-limited
 * time / busy time) and, for UDP with >= 1 % loss, "udp receive buffer".
 */
void net_judge(const struct net_judge_in *in, struct result *res);

/* The capacity estimate of seed 004; see net_capacity(). */
struct net_capacity {
	bool ok;
	const char *side;		/* "client" or "server" */
	int cpu;			/* the busiest core used */
	double busy_pct;
	double per_core_bps;		/* throughput / busiest-core share */
	double per_ghz_bps;		/* NaN when the frequency is unknown */
	double freq_mhz;
	const char *freq_source;	/* points into the side; "" unknown */
	int cores;
	double total_bps;		/* per core x cores, capped by the link */
	bool capped;			/* the link speed capped total_bps */
	double link_bps;
	bool link_virtual;		/* the side's interface is virtual: no link speed to cap by */
	double shaper_bps;		/* a shaper on the path (either side's egress); -1 none */
	const char *shaper_kind;	/* its kind, pointing into the side; "" none */
	bool capped_by_shaper;		/* total_bps is the shaper's rate (below the link's) */
	char why[128];			/* when !ok: why no estimate */
};

/*
 * Extrapolates as seed 004 did: throughput / busiest-core utilisation =
 * rate at one full core; / GHz for the per-GHz figure; x online cores,
 * capped by the link speed, for the box. The side with the busier core is
 * used. Fills OUT (OUT->ok false with a reason when the views are missing
 * or the busiest core was under 5 % busy).
 */
void net_capacity(const struct net_side *client, const struct net_side *server, double throughput_bps,
		  struct net_capacity *out);

/* User and system CPU seconds of the whole process so far (getrusage). */
void net_rusage(double *user_s, double *sys_s);

/*
 * Copies the figures of N joined streams S into T->local (allocated): ids,
 * directions, bytes (minus BASE[i] when BASE is non-NULL: the omitted
 * start), TCP retransmits of senders (read now, so before the sockets
 * close), UDP loss, jitter and sequence counts, and each one's end time
 * (T->duration_s). Returns the data threads' CPU seconds.
 */
double net_test_collect(struct net_test *t, struct net_stream *s, size_t n, const uint64_t *base);

/*
 * The results message this side sends for T: iperf3's keys from
 * T->local, the CPU shares, the congestion control, and T->me under
 * "engpass" when WITH_EXTRA. Returns an allocation (caller frees).
 */
char *net_results_message(const struct net_test *t, bool with_extra, size_t *len);

/* The two roles; each fills RES (and emits results, for the server). */
void net_server_run(const struct bench_env *env, const struct net_opts *o, struct result *res);
void net_client_run(const struct bench_env *env, const struct net_opts *o, struct result *res);

/*
 * The server side of an rr session whose first IPERF3_COOKIE_LEN bytes
 * (read in place of a cookie) are FIRST, on connection CFD from PEER.
 * The rest of the hello and the welcome must go within HELLO_NS (what is
 * left of the handshake's deadline). Returns the session's result to
 * emit, or NULL for a bad or silent handshake. net_rr_server.c.
 */
struct result *net_rr_serve(const struct bench_env *env, const struct net_opts *o, int cfd,
			    const uint8_t first[IPERF3_COOKIE_LEN], const char *peer, uint64_t hello_ns);

/* The client of --mode rr and --mode stream; net_rr_client.c. */
void net_rr_client_run(const struct bench_env *env, const struct net_opts *o, struct result *res);

#endif
