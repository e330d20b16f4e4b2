/* SPDX-License-Identifier: MIT */
/*
 * Socket helpers for `engpass net`; see net_sock.h. Reads and writes are
 * poll()-driven with an overall deadline on CLOCK_MONOTONIC, so a peer
 * that trickles one byte per second cannot stretch a 10 s timeout.
 */
#include "core/kernel/net_sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/clock.h"

/* Milliseconds for poll() from a deadline: at least 1 while time is left. */
static int poll_ms(mono_ns deadline)
{
	mono_ns now = clock_mono();
	uint64_t left;

	if (now >= deadline)
		return 0;
	left = deadline - now;
	if (left > (uint64_t)INT32_MAX * NS_PER_MS)
		return INT32_MAX;
	return (int)((left + NS_PER_MS - 1) / NS_PER_MS);
}

static mono_ns deadline_after(uint64_t ns)
{
	mono_ns now = clock_mono();

	return ns > UINT64_MAX - now ? UINT64_MAX : now + ns;
}

static int apply_opts(int fd, int type, const struct net_sockopts *o)
{
	int one = 1;

	if (!o)
		return 0;
	if (o->bufsize > 0) {
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->bufsize, sizeof(o->bufsize)) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->bufsize, sizeof(o->bufsize)) < 0)
			return -errno;
	}
	if (type == SOCK_STREAM && o->mss > 0 &&
	    setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &o->mss, sizeof(o->mss)) < 0)
		return -errno;
	if (type == SOCK_STREAM && o->nodelay &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

static int resolve(const char *host, uint16_t port, int type, bool passive, const struct net_sockopts *o,
		   struct addrinfo **out)
{
	struct addrinfo hints;
	char service[8];
	int r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = o && o->family ? o->family : AF_UNSPEC;
	hints.ai_socktype = type;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : AI_ADDRCONFIG);
	snprintf(service, sizeof(service), "%u", (unsigned)port);
	r = getaddrinfo(host, service, &hints, out);
	if (r == EAI_SYSTEM)
		return errno ? -errno : -EADDRNOTAVAIL;
	return r ? -EADDRNOTAVAIL : 0;
}

int net_listen(const char *bind_addr, uint16_t port, int type, const struct net_sockopts *opts, int *fd)
{
	struct addrinfo *ai = NULL, *a;
	int r = -EADDRNOTAVAIL;

	*fd = -1;
	if (!bind_addr && !(opts && opts->family)) {
		/* Dual-stack wildcard first: one socket takes IPv4 and IPv6. */
		struct sockaddr_in6 s6;
		int s = socket(AF_INET6, type | SOCK_CLOEXEC, 0), one = 1, zero = 0;

		if (s >= 0) {
			memset(&s6, 0, sizeof(s6));
			s6.sin6_family = AF_INET6;
			s6.sin6_addr = in6addr_any;
			s6.sin6_port = htons(port);
			if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
			    setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) == 0 &&
			    apply_opts(s, type, opts) == 0 &&
			    bind(s, (struct sockaddr *)&s6, sizeof(s6)) == 0 &&
			    (type != SOCK_STREAM || listen(s, 16) == 0)) {
				*fd = s;
				return 0;
			}
			r = -errno;
			close(s);
			if (r == -EADDRINUSE)
				return r;
		}
	}
	if ((r = resolve(bind_addr, port, type, true, opts, &ai)) < 0)
		return r;
	r = -EADDRNOTAVAIL;
	for (a = ai; a; a = a->ai_next) {
		int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol), one = 1;

		if (s < 0) {
			r = -errno;
			continue;
		}
		if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    (r = apply_opts(s, type, opts)) < 0 || bind(s, a->ai_addr, a->ai_addrlen) < 0 ||
		    (type == SOCK_STREAM && listen(s, 16) < 0)) {
			r = r < 0 ? r : -errno;
			close(s);
			continue;
		}
		*fd = s;
		r = 0;
		break;
	}
	freeaddrinfo(ai);
	return r;
}

/* Connects S to A within DEADLINE. Returns 0 or -errno. */
static int connect_one(int s, const struct addrinfo *a, mono_ns deadline, volatile sig_atomic_t *stop)
{
	int fl = fcntl(s, F_GETFL), err = 0;
	socklen_t elen = sizeof(err);

	if (fl < 0 || fcntl(s, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	if (connect(s, a->ai_addr, a->ai_addrlen) < 0) {
		struct pollfd p = { .fd = s, .events = POLLOUT };

		if (errno != EINPROGRESS)
			return -errno;
		for (;;) {
			int n = poll(&p, 1, poll_ms(deadline));

			if (n > 0)
				break;
			if (n == 0)
				return -ETIMEDOUT;
			if (errno != EINTR)
				return -errno;
			if (stop && *stop)
				return -EINTR;
		}
		if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			return -errno;
		if (err)
			return -err;
	}
	if (fcntl(s, F_SETFL, fl) < 0)
		return -errno;
	return 0;
}

const char *net_connect_strerror(int r)
{
	if (r == -EADDRNOTAVAIL)
		return "name or address not found";
	return strerror(r < 0 ? -r : r);
}

int net_connect(const char *host, uint16_t port, int type, const struct net_sockopts *opts,
		uint64_t timeout_ns, volatile sig_atomic_t *stop, int *fd)
{
	struct addrinfo *ai = NULL, *a;
	int r;

	*fd = -1;
	if ((r = resolve(host, port, type, false, opts, &ai)) < 0)
		return r;
	r = -EADDRNOTAVAIL;
	for (a = ai; a; a = a->ai_next) {
		int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);

		if (s < 0) {
			r = -errno;
			continue;
		}
		if ((r = apply_opts(s, type, opts)) < 0 ||
		    (r = connect_one(s, a, deadline_after(timeout_ns), stop)) < 0) {
			close(s);
			if (r == -EINTR)
				break;
			continue;
		}
		*fd = s;
		break;
	}
	freeaddrinfo(ai);
	return r;
}

int net_read_full(int fd, void *buf, size_t len, uint64_t timeout_ns, volatile sig_atomic_t *stop)
{
	mono_ns deadline = deadline_after(timeout_ns);
	char *p = buf;

	while (len) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int n = poll(&pf, 1, poll_ms(deadline));
		ssize_t got;

		if (n < 0) {
			if (errno != EINTR)
				return -errno;
			if (stop && *stop)
				return -EINTR;
			continue;
		}
		if (n == 0)
			return -ETIMEDOUT;
		got = recv(fd, p, len, MSG_DONTWAIT);
		if (got == 0)
			return -ECONNRESET;
		if (got < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return -errno;
		}
		p += got;
		len -= (size_t)got;
	}
	return 0;
}

int net_write_full(int fd, const void *buf, size_t len, uint64_t timeout_ns, volatile sig_atomic_t *stop)
{
	mono_ns deadline = deadline_after(timeout_ns);
	const char *p = buf;

	while (len) {
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		int n = poll(&pf, 1, poll_ms(deadline));
		ssize_t put;

		if (n < 0) {
			if (errno != EINTR)
				return -errno;
			if (stop && *stop)
				return -EINTR;
			continue;
		}
		if (n == 0)
			return -ETIMEDOUT;
		put = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (put < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return -errno;
		}
		p += put;
		len -= (size_t)put;
	}
	return 0;
}

int net_wait_readable(int fd, uint64_t timeout_ns)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	int n = poll(&pf, 1, poll_ms(deadline_after(timeout_ns)));

	if (n < 0)
		return -errno;
	return n > 0;
}

int net_set_io_timeout(int fd, uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / NS_PER_SEC),
			      .tv_usec = (suseconds_t)(ns % NS_PER_SEC / 1000) };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

/* Normalises SA to a plain IPv4 address when it is IPv4-mapped IPv6. */
static void unmap(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		struct sockaddr_in s4;

		memset(&s4, 0, sizeof(s4));
		s4.sin_family = AF_INET;
		s4.sin_port = s6->sin6_port;
		memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
		memcpy(ss, &s4, sizeof(s4));
	}
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr *b)
{
	if (!b || a->ss_family != b->sa_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)(const void *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

int net_sock_iface(int fd, char *name, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct ifaddrs *ifa, *i;
	int r = -ENOENT;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	unmap(&ss);
	/* Anything in 127/8 is on the loopback device even if not listed. */
	if (ss.ss_family == AF_INET &&
	    (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127) {
		snprintf(name, len, "lo");
		return 0;
	}
	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (same_addr(&ss, i->ifa_addr)) {
			snprintf(name, len, "%s", i->ifa_name);
			r = 0;
			break;
		}
	}
	freeifaddrs(ifa);
	return r;
}

int net_route_iface(const char *host, uint16_t port, char *name, size_t len)
{
	struct addrinfo hints, *ai = NULL;
	char service[8];
	int s, r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(service, sizeof(service), "%u", (unsigned)port);
	if (getaddrinfo(host, service, &hints, &ai))
		return -EADDRNOTAVAIL;
	s = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		r = -errno;
	} else {
		r = connect(s, ai->ai_addr, ai->ai_addrlen) < 0 ? -errno : net_sock_iface(s, name, len);
		close(s);
	}
	freeaddrinfo(ai);
	return r;
}

bool net_link_virtual(const char *sys_root, const char *iface)
{
	char path[256];
	struct stat st;

	if (!iface || !*iface || strchr(iface, '/'))
		return false;
	snprintf(path, sizeof(path), "%s/class/net/%s", sys_root ? sys_root : "/sys", iface);
	if (stat(path, &st) < 0)
		return false;	/* no such interface: not known to be virtual */
	snprintf(path, sizeof(path), "%s/class/net/%s/device", sys_root ? sys_root : "/sys", iface);
	return lstat(path, &st) < 0;
}

double net_link_speed_bps(const char *sys_root, const char *iface)
{
	char path[256], buf[32], *end;
	FILE *f;
	long v;

	if (!iface || !*iface || strchr(iface, '/'))
		return -1;
	/* veth, tun, bridges report a made-up speed (veth: 10000): not a link's. */
	if (net_link_virtual(sys_root, iface))
		return -1;
	snprintf(path, sizeof(path), "%s/class/net/%s/speed", sys_root ? sys_root : "/sys", iface);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v <= 0)
		return -1;
	return (double)v * 1e6;
}

int net_tcp_retransmits(int fd, int64_t *out)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0)
		return -errno;
	*out = ti.tcpi_total_retrans;
	return 0;
}

/*
 * The kernel's struct tcp_info (linux/tcp.h) as far as net_tcp_stats
 * reads it. linux/tcp.h cannot be included next to netinet/tcp.h, whose
 * copy of the struct ends before the delivery rate; the layout is ABI and
 * only ever grows at the end.
 */
struct kernel_tcp_info {
	uint8_t state, ca_state, retransmits, probes, backoff, options, wscale, app_limited;
	uint32_t rto, ato, snd_mss, rcv_mss;
	uint32_t unacked, sacked, lost, retrans, fackets;
	uint32_t last_data_sent, last_ack_sent, last_data_recv, last_ack_recv;
	uint32_t pmtu, rcv_ssthresh, rtt, rttvar, snd_ssthresh, snd_cwnd, advmss, reordering;
	uint32_t rcv_rtt, rcv_space;
	uint32_t total_retrans;
	uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
	uint32_t segs_out, segs_in;
	uint32_t notsent_bytes, min_rtt, data_segs_in, data_segs_out;
	uint64_t delivery_rate;
	uint64_t busy_time, rwnd_limited, sndbuf_limited;
	uint32_t delivered, delivered_ce;
};

#define TI_HAS(len, f) ((len) >= offsetof(struct kernel_tcp_info, f) + sizeof(((struct kernel_tcp_info *)0)->f))

void net_tcp_stats_decode(const void *buf, size_t len, struct net_tcp_stats *out)
{
	struct kernel_tcp_info ti;

	memset(&ti, 0, sizeof(ti));
	memcpy(&ti, buf, len < sizeof(ti) ? len : sizeof(ti));
	out->rtt_us = TI_HAS(len, rtt) ? (int64_t)ti.rtt : NET_TCP_UNKNOWN;
	out->rttvar_us = TI_HAS(len, rttvar) ? (int64_t)ti.rttvar : NET_TCP_UNKNOWN;
	out->snd_cwnd = TI_HAS(len, snd_cwnd) ? (int64_t)ti.snd_cwnd : NET_TCP_UNKNOWN;
	out->snd_mss = TI_HAS(len, snd_mss) ? (int64_t)ti.snd_mss : NET_TCP_UNKNOWN;
	out->total_retrans = TI_HAS(len, total_retrans) ? (int64_t)ti.total_retrans : NET_TCP_UNKNOWN;
	out->delivery_rate = TI_HAS(len, delivery_rate) ? (int64_t)ti.delivery_rate : NET_TCP_UNKNOWN;
	out->busy_us = TI_HAS(len, busy_time) ? (int64_t)ti.busy_time : NET_TCP_UNKNOWN;
	out->rwnd_limited_us = TI_HAS(len, rwnd_limited) ? (int64_t)ti.rwnd_limited : NET_TCP_UNKNOWN;
	out->sndbuf_limited_us = TI_HAS(len, sndbuf_limited) ? (int64_t)ti.sndbuf_limited : NET_TCP_UNKNOWN;
}

int net_sock_tcp_info(int fd, struct net_tcp_stats *out)
{
	unsigned char buf[sizeof(struct kernel_tcp_info) + 64];
	socklen_t l = sizeof(buf);

	memset(buf, 0, sizeof(buf));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, buf, &l) < 0)
		return -errno;
	net_tcp_stats_decode(buf, l, out);
	return 0;
}

int net_tcp_mss(int fd)
{
	int mss = 0;
	socklen_t l = sizeof(mss);

	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) < 0)
		return -errno;
	return mss;
}

int net_tcp_congestion(int fd, char *buf, size_t len)
{
	char cc[32];
	socklen_t l = sizeof(cc) - 1;

	memset(cc, 0, sizeof(cc));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &l) < 0)
		return -errno;
	snprintf(buf, len, "%s", cc);
	return 0;
}

const char *net_peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN];
	const void *addr;
	unsigned port;

	snprintf(buf, len, "?");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0)
		return buf;
	unmap(&ss);
	if (ss.ss_family == AF_INET) {
		addr = &((struct sockaddr_in *)&ss)->sin_addr;
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		addr = &((struct sockaddr_in6 *)&ss)->sin6_addr;
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		return buf;
	}
	if (inet_ntop(ss.ss_family, addr, host, sizeof(host)))
		snprintf(buf, len, "%s port %u", host, port);
	return buf;
}
