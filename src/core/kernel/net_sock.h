/* SPDX-License-Identifier: MIT */
/*
 * Socket helpers for `engpass net`: listening and connecting with
 * deadlines, reads and writes that never wait longer than they are told
 * (the server treats every peer as hostile, and a vanished peer must never
 * hang either side), and the few facts about a connection the results need
 * (which interface it goes over, that interface's link speed, TCP
 * retransmits, MSS, congestion control).
 *
 * Every function returns 0 or a negative errno; nothing prints. Timeouts
 * are in nanoseconds. A read or write that is interrupted by a signal keeps
 * waiting unless the caller's stop flag (may be NULL) is set, in which case
 * it returns -EINTR, so soft stop (Ctrl-C) reaches the caller promptly.
 */
#ifndef ENGPASS_NET_SOCK_H
#define ENGPASS_NET_SOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/compiler.h"

/* Longest interface name (IFNAMSIZ, with its NUL). */
#define NET_IFNAME_LEN 16

/* Socket options applied before bind/connect; zero fields are left alone. */
struct net_sockopts {
	int bufsize;		/* SO_SNDBUF and SO_RCVBUF, bytes (iperf3 -w) */
	int mss;		/* TCP_MAXSEG (iperf3 -M) */
	bool nodelay;		/* TCP_NODELAY (iperf3 -N) */
	int family;		/* AF_INET or AF_INET6 only (iperf3 -4, -6); 0 = either */
};

/*
 * Creates a socket of TYPE (SOCK_STREAM or SOCK_DGRAM) bound to BIND (an
 * address or host name; NULL = every address, IPv6 dual-stack when the box
 * has IPv6, else IPv4; with OPTS->family, every address of that family) and PORT, with SO_REUSEADDR and OPTS (may be NULL),
 * listening (backlog 16) when it is a stream socket. The socket is
 * close-on-exec. Returns 0 with *FD set (caller closes), -errno from
 * getaddrinfo (as -EADDRNOTAVAIL), socket, bind or listen.
 */
MUST_CHECK int net_listen(const char *bind, uint16_t port, int type, const struct net_sockopts *opts,
			  int *fd);

/*
 * Connects a socket of TYPE to HOST:PORT, trying each address getaddrinfo
 * gives, each within TIMEOUT_NS (non-blocking connect and poll). OPTS (may
 * be NULL) is applied before connecting. A UDP "connect" sends nothing.
 * Returns 0 with *FD set (blocking, close-on-exec; caller closes), or
 * -ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH..., -EADDRNOTAVAIL when the name
 * does not resolve, -EINTR when STOP was set.
 */
MUST_CHECK int net_connect(const char *host, uint16_t port, int type, const struct net_sockopts *opts,
			   uint64_t timeout_ns, volatile sig_atomic_t *stop, int *fd);

/*
 * The reason to print after "cannot connect to ...: " for a negative R
 * from net_connect(): "name or address not found" for -EADDRNOTAVAIL (the
 * name did not resolve, which strerror() would call "Cannot assign
 * requested address"), strerror(-R) for any other error. Every client
 * (net, net rr, fetch) words its connect failure with it. The returned
 * string is static.
 */
const char *net_connect_strerror(int r);

/*
 * Reads exactly LEN bytes within TIMEOUT_NS overall. Returns 0; -ETIMEDOUT;
 * -ECONNRESET when the peer closed before LEN bytes (also for EOF); -EINTR
 * when STOP was set; another -errno.
 */
MUST_CHECK int net_read_full(int fd, void *buf, size_t len, uint64_t timeout_ns,
			     volatile sig_atomic_t *stop);

/*
 * Writes all LEN bytes within TIMEOUT_NS overall (never raises SIGPIPE).
 * Returns 0, -ETIMEDOUT, -EPIPE/-ECONNRESET, -EINTR when STOP was set, or
 * another -errno.
 */
MUST_CHECK int net_write_full(int fd, const void *buf, size_t len, uint64_t timeout_ns,
			      volatile sig_atomic_t *stop);

/*
 * Waits until FD is readable (or has an error or EOF pending) for at most
 * TIMEOUT_NS. Returns 1 when readable, 0 on timeout, -EINTR when a signal
 * interrupted the wait (whatever STOP says: the caller re-checks), or
 * -errno.
 */
MUST_CHECK int net_wait_readable(int fd, uint64_t timeout_ns);

/* Sets SO_RCVTIMEO and SO_SNDTIMEO of FD to NS. Returns 0 or -errno. */
MUST_CHECK int net_set_io_timeout(int fd, uint64_t ns);

/*
 * Name of the interface that holds the local address of connected or
 * bound socket FD (getsockname, then getifaddrs; an IPv4-mapped IPv6
 * address is matched as IPv4) into NAME (NET_IFNAME_LEN bytes). Returns 0,
 * -ENOENT when no interface has that address (e.g. a wildcard bind), or
 * -errno.
 */
MUST_CHECK int net_sock_iface(int fd, char *name, size_t len);

/*
 * Interface that traffic to HOST:PORT would leave by, found without
 * sending anything (a UDP socket is connected, which only consults the
 * routing table). HOST must be a numeric address. Returns 0 with NAME
 * set, or -errno.
 */
MUST_CHECK int net_route_iface(const char *host, uint16_t port, char *name, size_t len);

/*
 * Whether IFACE is a virtual interface (veth, tun, bridge, lo, dummy,
 * ifb): it exists in SYS_ROOT/class/net but has no "device" link there.
 * Such an interface has no link speed; what some report (veth: 10000) is
 * made up.
 */
bool net_link_virtual(const char *sys_root, const char *iface);

/*
 * Link speed of interface IFACE in bits per second from
 * SYS_ROOT/class/net/IFACE/speed (Mbit/s there). Returns the speed, or -1
 * when unknown: a virtual interface (net_link_virtual(), whatever its
 * speed file says), no such file, unreadable (down links give EINVAL), or
 * not a positive number.
 */
double net_link_speed_bps(const char *sys_root, const char *iface);

/* TCP_INFO total retransmits of FD into *OUT. Returns 0 or -errno. */
MUST_CHECK int net_tcp_retransmits(int fd, int64_t *out);

/*
 * What TCP_INFO says about a connection (linux/tcp.h struct tcp_info). A
 * field the running kernel did not fill (its struct is shorter) is
 * NET_TCP_UNKNOWN; the rest are as the kernel counts them since the
 * connection opened.
 */
#define NET_TCP_UNKNOWN (-1)

struct net_tcp_stats {
	int64_t rtt_us, rttvar_us;	/* smoothed round trip and its variation */
	int64_t snd_cwnd;		/* congestion window, segments */
	int64_t snd_mss;		/* sender MSS, bytes */
	int64_t total_retrans;		/* segments retransmitted */
	int64_t delivery_rate;		/* bytes/s of the last delivery-rate sample (kernel 4.9) */
	int64_t busy_us;		/* time busy sending data (kernel 4.10) */
	int64_t rwnd_limited_us;	/* of it, limited by the peer's receive window */
	int64_t sndbuf_limited_us;	/* of it, limited by the local send buffer */
};

/*
 * Decodes the first LEN bytes of a struct tcp_info the kernel returned
 * (BUF) into *OUT; the fields past LEN are NET_TCP_UNKNOWN. Pure, so a
 * short struct from an old kernel is testable.
 */
void net_tcp_stats_decode(const void *buf, size_t len, struct net_tcp_stats *out);

/*
 * TCP_INFO of FD into *OUT, using the length the kernel returns to tell
 * which fields it knows. Returns 0 or -errno (-ENOPROTOOPT for a socket
 * that is not TCP).
 */
MUST_CHECK int net_sock_tcp_info(int fd, struct net_tcp_stats *out);

/* TCP_MAXSEG of FD, or -errno. */
MUST_CHECK int net_tcp_mss(int fd);

/* TCP_CONGESTION of FD into BUF (NUL-terminated). Returns 0 or -errno. */
MUST_CHECK int net_tcp_congestion(int fd, char *buf, size_t len);

/*
 * The peer address of FD as text, "ADDR port N" with IPv4-mapped
 * addresses shown as IPv4, into BUF. Returns BUF ("?" when unknown).
 */
const char *net_peer_name(int fd, char *buf, size_t len);

#endif
