/* SPDX-License-Identifier: MIT */
/*
 * Data stream threads of `engpass net`; see net_stream.h.
 */
#include "bench/net/net_stream.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/kernel/affinity.h"
#include "core/base/ratelimit.h"
#include "lib/xalloc.h"
#include "core/kernel/net_sock.h"

#define STREAM_IO_TIMEOUT_NS (250 * NS_PER_MS)
#define UDP_RX_BUF 65536
#define TCP_RX_MIN (128 * 1024)

int net_payload_init(struct net_payload *p, size_t len, bool zerocopy)
{
	size_t got = 0;

	p->buf = xmalloc(len ? len : 1);
	p->len = len;
	p->zc_fd = -1;
	while (got < len) {
		ssize_t n = getrandom(p->buf + got, len - got, GRND_NONBLOCK);

		if (n <= 0) {
			/* No entropy to spare: xorshift is plenty for a payload. */
			uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)got;

			for (; got < len; got++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				p->buf[got] = (unsigned char)x;
			}
			break;
		}
		got += (size_t)n;
	}
	if (zerocopy) {
		int fd = memfd_create("engpass-net-payload", MFD_CLOEXEC);
		size_t put = 0;

		if (fd < 0)
			return -errno;
		while (put < len) {
			ssize_t n = write(fd, p->buf + put, len - put);

			if (n < 0) {
				int e = errno;

				close(fd);
				return -e;
			}
			put += (size_t)n;
		}
		p->zc_fd = fd;
	}
	return 0;
}

void net_payload_release(struct net_payload *p)
{
	if (p->zc_fd >= 0)
		close(p->zc_fd);
	free(p->buf);
	memset(p, 0, sizeof(*p));
	p->zc_fd = -1;
}

void net_stream_init(struct net_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->pin_cpu = -1;
	atomic_init(&s->quit, NET_RUN);
	atomic_init(&s->done, 0);
	pthread_mutex_init(&s->lock, NULL);
}

static void publish(struct net_stream *s, uint64_t bytes, uint64_t packets)
{
	pthread_mutex_lock(&s->lock);
	s->bytes = bytes;
	s->packets = packets;
	pthread_mutex_unlock(&s->lock);
}

static bool transient(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ENOBUFS;
}

/* Sleeps until DEADLINE in slices, returning early when asked to quit. */
static void pace_sleep(struct net_stream *s, mono_ns deadline)
{
	while (atomic_load(&s->quit) == NET_RUN) {
		mono_ns now = clock_mono(), slice = now + 50 * NS_PER_MS;

		if (now >= deadline)
			return;
		if (clock_sleep_until(deadline < slice ? deadline : slice) < 0)
			return;
	}
}

/*
 * The pacing bucket: four blocks, or 20 ms of the rate if that is more, so
 * a sender woken late (a busy box, a VM) catches up instead of falling
 * short of the rate asked.
 */
static double pace_burst(const struct net_stream *s)
{
	double blocks = (double)s->payload->len * 4, time = s->rate_bytes_per_s * 0.02;

	return time > blocks ? time : blocks;
}

/* A bucket that starts empty: the burst is for catching up, not for the start. */
static void pace_init(struct ratelimit *rl, const struct net_stream *s)
{
	mono_ns now = clock_mono();
	double burst = pace_burst(s);

	ratelimit_init(rl, s->rate_bytes_per_s, burst, now);
	/* Taking the bucket's own size from a full bucket never waits. */
	if (s->rate_bytes_per_s > 0)
		(void)ratelimit_delay_ns(rl, (uint64_t)burst, now);
}

static void tcp_send(struct net_stream *s)
{
	const struct net_payload *p = s->payload;
	struct ratelimit rl;
	uint64_t bytes = 0;

	pace_init(&rl, s);
	while (atomic_load(&s->quit) == NET_RUN) {
		ssize_t n;

		if (p->zc_fd >= 0) {
			off_t off = 0;

			n = sendfile(s->fd, p->zc_fd, &off, p->len);
		} else {
			n = send(s->fd, p->buf, p->len, MSG_NOSIGNAL);
		}
		if (n < 0) {
			if (transient(errno))
				continue;
			s->err = -errno;
			break;
		}
		bytes += (uint64_t)n;
		publish(s, bytes, 0);
		if (s->rate_bytes_per_s > 0) {
			uint64_t wait = ratelimit_delay_ns(&rl, (uint64_t)n, clock_mono());

			if (wait)
				pace_sleep(s, clock_mono() + wait);
		}
	}
}

static void tcp_recv(struct net_stream *s)
{
	size_t len = s->payload && s->payload->len > TCP_RX_MIN ? s->payload->len : TCP_RX_MIN;
	unsigned char *buf = xmalloc(len);
	uint64_t bytes = 0;

	for (;;) {
		int q = atomic_load(&s->quit);
		ssize_t n;

		if (q == NET_QUIT_NOW)
			break;
		n = recv(s->fd, buf, len, 0);
		if (n == 0) {
			s->eof = true;
			break;
		}
		if (n < 0) {
			if (transient(errno)) {
				/* In drain mode 250 ms of silence ends the stream. */
				if (q == NET_QUIT_DRAIN && errno != EINTR)
					break;
				continue;
			}
			s->err = -errno;
			break;
		}
		if (atomic_load(&s->quit) == NET_QUIT_NOW)
			break;
		bytes += (uint64_t)n;
		publish(s, bytes, 0);
	}
	free(buf);
}

static void udp_send(struct net_stream *s)
{
	const struct net_payload *p = s->payload;
	unsigned char *pkt = xmalloc(p->len);
	struct ratelimit rl;
	uint64_t bytes = 0, seq = 0;

	memcpy(pkt, p->buf, p->len);
	pace_init(&rl, s);
	while (atomic_load(&s->quit) == NET_RUN) {
		uint64_t wait;
		ssize_t n;

		net_udp_hdr_put(pkt, clock_mono(), seq + 1, s->seq64);
		n = send(s->fd, pkt, p->len, MSG_NOSIGNAL);
		if (n < 0) {
			if (transient(errno) || errno == ECONNREFUSED) {
				/* Not sent, so not a lost sequence number: retry after a breath. */
				if (errno != EINTR && errno != EAGAIN)
					pace_sleep(s, clock_mono() + NS_PER_MS);
				continue;
			}
			s->err = -errno;
			break;
		}
		seq++;
		bytes += (uint64_t)n;
		publish(s, bytes, seq);
		wait = ratelimit_delay_ns(&rl, (uint64_t)n, clock_mono());
		if (wait)
			pace_sleep(s, clock_mono() + wait);
	}
	free(pkt);
}

static void udp_recv(struct net_stream *s)
{
	unsigned char *buf = xmalloc(UDP_RX_BUF);
	uint64_t bytes = 0;

	for (;;) {
		int q = atomic_load(&s->quit);
		uint64_t sent_ns, seq;
		ssize_t n;

		if (q != NET_RUN)
			break;
		n = recv(s->fd, buf, UDP_RX_BUF, 0);
		if (n < 0) {
			if (transient(errno) || errno == ECONNREFUSED)
				continue;
			s->err = -errno;
			break;
		}
		if (atomic_load(&s->quit) != NET_RUN)
			break;
		if (net_udp_hdr_get(buf, (size_t)n, s->seq64, &sent_ns, &seq))
			net_udp_rx_account(&s->rx, seq, sent_ns, clock_mono());
		bytes += (uint64_t)n;
		publish(s, bytes, s->rx.highest);
	}
	free(buf);
}

static void *stream_main(void *arg)
{
	struct net_stream *s = arg;
	uint64_t cpu0 = clock_thread_cpu_ns();

	if (s->pin_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(s->pin_cpu, &set);
		s->pin_err = affinity_pin_self(&set);
	}
	if (s->proto == NET_UDP)
		s->sender ? udp_send(s) : udp_recv(s);
	else
		s->sender ? tcp_send(s) : tcp_recv(s);
	s->cpu_ns = clock_thread_cpu_ns() - cpu0;
	atomic_store(&s->done, 1);
	return NULL;
}

int net_stream_start(struct net_stream *s)
{
	sigset_t all, old;
	int r;

	net_udp_rx_init(&s->rx);
	if ((r = net_set_io_timeout(s->fd, STREAM_IO_TIMEOUT_NS)) < 0)
		return r;
	/* The thread inherits the mask: every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&s->thread, NULL, stream_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	s->started = true;
	return 0;
}

void net_stream_quit(struct net_stream *s, enum net_quit how)
{
	/* QUIT_NOW wins over DRAIN; nothing goes back to RUN. */
	if (how == NET_QUIT_NOW || atomic_load(&s->quit) == NET_RUN)
		atomic_store(&s->quit, (int)how);
}

uint64_t net_stream_bytes(struct net_stream *s)
{
	uint64_t b;

	pthread_mutex_lock(&s->lock);
	b = s->bytes;
	pthread_mutex_unlock(&s->lock);
	return b;
}

void net_stream_join(struct net_stream *s)
{
	if (s->started) {
		pthread_join(s->thread, NULL);
		s->started = false;
	}
}

void net_stream_release(struct net_stream *s)
{
	if (s->started) {
		net_stream_quit(s, NET_QUIT_NOW);
		if (s->fd >= 0)
			shutdown(s->fd, SHUT_RDWR);
	}
	net_stream_join(s);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	pthread_mutex_destroy(&s->lock);
}
