/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/sockdiag.c.
 *
 * The parser: on dump replies recorded from a 6.18 kernel by
 * tests/fixtures/sockdiag/capture.py (a loopback connection over IPv4 and
 * IPv6, 200000 bytes sent, 150000 read), on the same messages with
 * tcp_info cut to a 4.9 kernel's 168 bytes and 2.6's 104, and on the
 * refusals (tcp_info under 104 bytes, a message cut short, an attribute
 * running past its message, an NLMSG_ERROR); on a message built here from
 * this build's struct tcp_info with every field distinct, so the parser's
 * offsets are checked against the header. The recorded bytes are
 * little-endian: on a big-endian machine those cases are left out.
 *
 * The judgement: synthetic readings for every rule, both ways.
 *
 * Live, over loopback between threads of this test (no privilege): the
 * sockets found by inode with their addresses and byte counts; a
 * receiver that does not read (the sender's window closes: "receive
 * window"); a connection that sends nothing ("idle" both ways); a
 * receiver with a 4 KiB SO_RCVBUF that reads all the time (the sender is
 * rwnd_limited most of its busy time). As root, sockdiag_open_ns() into a
 * child's new network namespace finds the child's sockets there, which a
 * socket of our own namespace does not. Each live case prints its
 * figures as TAP comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "core/kernel/sockdiag.h"
#include "lib/compiler.h"

#if HAVE_LIBMNL
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#endif

/* ------------------------------------------------------------------ */
/* The judgement (every build)                                          */

/* A reading with tcp_info and the 4.10 counters, everything else 0. */
static struct sockdiag_tcp reading(void)
{
	struct sockdiag_tcp t = { .found = true, .have_info = true, .have_bytes = true, .have_limits = true,
				  .have_sent = true, .have_snd_wnd = true, .have_skmem = true, .inode = 42,
				  .state = 1, .snd_mss = 1448, .rcv_mss = 1448, .snd_cwnd = 10,
				  .rcvbuf = 131072, .sndbuf = 87040, .rcv_ssthresh = 65536 };
	return t;
}

static void test_judge_sending(void **state)
{
	struct sockdiag_tcp a = reading(), b;
	char ev[256];

	(void)state;
	/* Idle: busy 10 % of a second. */
	b = a;
	b.busy_time_us = 100000;
	b.bytes_acked = 1000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_IDLE);
	assert_non_null(strstr(ev, "busy 100 ms of 1000 ms"));
	/* Busy, rwnd_limited 900 of 1000 ms. */
	b.busy_time_us = 1000000;
	b.rwnd_limited_us = 900000;
	b.snd_wnd = 0;
	b.rtt_us = 50;
	b.min_rtt_us = 40;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_RECV_WINDOW);
	assert_non_null(strstr(ev, "rwnd_limited 900 ms of 1000 ms busy (90 %)"));
	/* A queue after us wins over the window it absorbs. */
	b.rtt_us = 30000;
	b.min_rtt_us = 2000;
	b.snd_wnd = 65536;
	b.unacked = 10;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_BOTTLENECK);
	/* Not with nothing in flight, nor with a closed window (probes only). */
	b.unacked = 0;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_RECV_WINDOW);
	b.unacked = 10;
	b.snd_wnd = 0;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_RECV_WINDOW);
	/* Twice the minimum but under 1 ms above it: loopback jitter, not a queue. */
	b.rtt_us = 90;
	b.min_rtt_us = 40;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_RECV_WINDOW);
	/* sndbuf_limited. */
	b.rwnd_limited_us = 0;
	b.sndbuf_limited_us = 700000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_SNDBUF);
	assert_non_null(strstr(ev, "send buffer 85.00 KiB"));
	/* Loss: 2 % of the bytes sent again. */
	b.sndbuf_limited_us = 0;
	b.bytes_sent = 1000000;
	b.bytes_retrans = 20000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_LOSS);
	/* 0.5 %: not loss; rtt 40 ms: round trip. */
	b.bytes_retrans = 5000;
	b.rtt_us = 40000;
	b.min_rtt_us = 39000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_ROUND_TRIP);
	assert_non_null(strstr(ev, "per round trip of 40.00 ms"));
	/* Sub-millisecond round trip, no limit: elsewhere. */
	b.rtt_us = 60;
	b.min_rtt_us = 50;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_UNKNOWN);
	/* Without the 4.10 counters: idle only when nothing moved or waits. */
	a.have_limits = b.have_limits = false;
	b = a;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_IDLE);
	b.unacked = 3;
	assert_int_not_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_IDLE);
}

static void test_judge_receiving(void **state)
{
	struct sockdiag_tcp a = reading(), b;
	char ev[256];

	(void)state;
	/* Nothing came. */
	b = a;
	b.last_data_recv_ms = 5000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_IDLE);
	/* Some came, but the last 800 ms of the second were silent. */
	b.bytes_received = 500000;
	b.last_data_recv_ms = 800;
	b.rcv_rtt_us = 1000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_IDLE);
	/* Under a segment per round trip on average. */
	b.last_data_recv_ms = 10;
	b.bytes_received = 100000;	/* 100 KB/s, 100 B per 1 ms */
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_IDLE);
	/* Steady, queue empty, window open, rcv_rtt near the minimum: upstream. */
	b.bytes_received = 2500000;	/* 20 Mbit/s, 2.5 KB per ms */
	b.min_rtt_us = 900;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_UPSTREAM);
	assert_non_null(strstr(ev, "our window open"));
	/* The same with rcv_rtt 40 ms over 0.9 ms: a queue before us. */
	b.rcv_rtt_us = 40000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_UPSTREAM);
	assert_non_null(strstr(ev, "held in a queue before us"));
	/* Our window full every round trip: 40 KB per ms against a 64 KiB clamp. */
	b.rcv_rtt_us = 1000;
	b.bytes_received = 40000000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_RECV_WINDOW);
	/* Out-of-order packets: 300 x 1448 of 40 MB is 1.1 %. */
	b.rcv_ooopack = 300;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_LOSS);
	/* Part full at both readings, but the queue turned over: not the reader. */
	b.rcv_ooopack = 0;
	b.rqueue = 60000;
	a.rqueue = 50000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_RECV_WINDOW);
	assert_non_null(strstr(ev, "60000 B unread"));
	/* Less than a buffer came: our reader, even when nothing came at all. */
	b.bytes_received = 100000;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_UNKNOWN);
	assert_non_null(strstr(ev, "waited for our reader"));
	b.bytes_received = 0;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_UNKNOWN);
	/* Full at B only: something came and was not yet read. */
	a.rqueue = 0;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, true, ev, sizeof(ev)), SD_IDLE);
}

static void test_judge_refusals(void **state)
{
	struct sockdiag_tcp a = reading(), b = reading();
	char ev[128];

	(void)state;
	b.have_info = false;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_UNKNOWN);
	assert_string_equal(ev, "no tcp_info in the second reading");
	b = a;
	assert_int_equal(sockdiag_judge(&a, &b, 0.0, false, ev, sizeof(ev)), SD_UNKNOWN);
	b.inode = 43;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, ev, sizeof(ev)), SD_UNKNOWN);
	assert_string_equal(ev, "the readings are not of the same connection");
	b = a;
	a.bytes_acked = 10;
	assert_int_equal(sockdiag_judge(&a, &b, 1.0, false, NULL, 0), SD_UNKNOWN);
	assert_string_equal(sockdiag_why_name(SD_RECV_WINDOW), "receive window");
	assert_string_equal(sockdiag_why_name((enum sockdiag_why)99), "unknown");
}

#if HAVE_LIBMNL

/* ------------------------------------------------------------------ */
/* Fixtures                                                             */

static bool big_endian(void)
{
	uint16_t one = 1;
	unsigned char c;

	memcpy(&c, &one, 1);
	return c == 0;
}

/* The fixture NAME into BUF (aligned as a netlink message); returns its length. */
static size_t fixture(const char *name, void *buf, size_t size)
{
	const char *e = getenv("ENGPASS_FIXTURES");
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/sockdiag/%s", e ? e : "tests/fixtures", name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open '%s'", path);
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

union nlbuf {
	struct nlmsghdr align;
	char c[4096];
};

static void test_fixture_v4(void **state)
{
	union nlbuf s, r;
	struct sockdiag_tcp ts, tr;
	size_t ns, nr;

	(void)state;
	if (big_endian()) {
		printf("# skipped: the fixtures were recorded little-endian\n");
		return;
	}
	ns = fixture("v4-sender.bin", &s, sizeof(s));
	nr = fixture("v4-receiver.bin", &r, sizeof(r));
	assert_int_equal(sockdiag_parse_msg(&s, ns, &ts), 0);
	assert_int_equal(sockdiag_parse_msg(&r, nr, &tr), 0);
	assert_true(ts.found && ts.have_info && ts.have_limits && ts.have_sent && ts.have_snd_wnd && ts.have_skmem);
	assert_int_equal(ts.info_len, 280);
	assert_int_equal(ts.family, AF_INET);
	assert_int_equal(ts.state, 1);
	assert_string_equal(ts.local, tr.peer);
	assert_string_equal(ts.peer, tr.local);
	assert_true(!strncmp(ts.local, "127.0.0.1:", 10));
	assert_string_equal(ts.cong, "bbr");
	/* 200000 bytes and the SYN acknowledged; 150000 read of 200000 received. */
	assert_int_equal(ts.bytes_acked, 200001);
	assert_int_equal(ts.bytes_sent, 200000);
	assert_int_equal(tr.bytes_received, 200000);
	assert_int_equal(tr.rqueue, 50000);
	assert_int_equal(ts.wqueue, 0);
	assert_true(ts.rtt_us > 0 && ts.snd_cwnd > 0 && ts.snd_mss > 0 && ts.min_rtt_us > 0);
	assert_true(ts.rcvbuf > 0 && ts.sndbuf > 0);
	assert_true(ts.inode != 0 && ts.inode != tr.inode);
}

static void test_fixture_v6_and_dump(void **state)
{
	union nlbuf s, d;
	struct sockdiag_tcp t, out[3];
	uint64_t inodes[3];
	size_t n;

	(void)state;
	if (big_endian())
		return;
	n = fixture("v6-sender.bin", &s, sizeof(s));
	assert_int_equal(sockdiag_parse_msg(&s, n, &t), 0);
	assert_int_equal(t.family, AF_INET6);
	assert_true(!strncmp(t.local, "[::1]:", 6) && !strncmp(t.peer, "[::1]:", 6));
	assert_int_equal(t.bytes_acked, 200001);

	/* The dump: both messages and NLMSG_DONE; one inode asked twice, one absent. */
	n = fixture("v4-receiver.bin", &s, sizeof(s));
	assert_int_equal(sockdiag_parse_msg(&s, n, &t), 0);
	inodes[0] = t.inode;
	inodes[1] = 12345;
	inodes[2] = t.inode;
	memset(out, 0, sizeof(out));
	n = fixture("v4-dump.bin", &d, sizeof(d));
	assert_int_equal(sockdiag_parse_dump(&d, n, inodes, 3, out), 1);
	assert_true(out[0].found && !out[1].found && !out[1].have_info && out[2].found);
	assert_int_equal(out[0].bytes_received, 200000);
	assert_int_equal(out[2].inode, t.inode);
	/* Without the last message's bytes: more may follow. */
	memset(out, 0, sizeof(out));
	assert_int_equal(sockdiag_parse_dump(&d, n - 20, inodes, 3, out), 0);
	assert_true(out[0].found);
	/* Cut inside a message: bytes that make no whole message. */
	assert_int_equal(sockdiag_parse_dump(&d, n - 30, inodes, 3, out), -EINVAL);
	/* No inodes: a walk that keeps nothing. */
	assert_int_equal(sockdiag_parse_dump(&d, n, NULL, 0, NULL), 1);
}

static void test_fixture_old_kernels(void **state)
{
	union nlbuf s;
	struct sockdiag_tcp t;
	size_t n;

	(void)state;
	if (big_endian())
		return;
	n = fixture("info-4.9.bin", &s, sizeof(s));
	assert_int_equal(sockdiag_parse_msg(&s, n, &t), 0);
	assert_true(t.have_info && t.have_bytes && !t.have_limits && !t.have_sent && !t.have_snd_wnd);
	assert_int_equal(t.info_len, 168);
	assert_int_equal(t.bytes_acked, 200001);
	assert_true(t.busy_time_us == 0 && t.bytes_sent == 0 && t.snd_wnd == 0);
	assert_true(t.have_skmem && t.cong[0]);	/* the attributes after it still read */

	n = fixture("info-2.6.bin", &s, sizeof(s));
	assert_int_equal(sockdiag_parse_msg(&s, n, &t), 0);
	assert_true(t.have_info && !t.have_bytes && !t.have_limits);
	assert_int_equal(t.info_len, 104);
	assert_true(t.rtt_us > 0 && t.snd_cwnd > 0 && t.bytes_acked == 0 && t.min_rtt_us == 0);
}

static void test_fixture_refusals(void **state)
{
	static const char *const bad[] = { "info-short.bin", "truncated.bin", "attr-overrun.bin" };
	union nlbuf s;
	struct sockdiag_tcp t, out[1];
	uint64_t ino = 1;
	size_t n;

	(void)state;
	if (big_endian())
		return;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		n = fixture(bad[i], &s, sizeof(s));
		if (sockdiag_parse_msg(&s, n, &t) != -EINVAL)
			fail_msg("%s: not refused", bad[i]);
		assert_false(t.found || t.have_info);
		if (sockdiag_parse_dump(&s, n, &ino, 1, out) != -EINVAL)
			fail_msg("%s: not refused in a dump", bad[i]);
	}
	n = fixture("error.bin", &s, sizeof(s));
	assert_int_equal(sockdiag_parse_msg(&s, n, &t), -ENOMSG);
	assert_int_equal(sockdiag_parse_dump(&s, n, &ino, 1, out), -EPERM);
	/* Shorter than a header, and a length past the buffer. */
	n = fixture("v4-sender.bin", &s, sizeof(s));
	assert_int_equal(sockdiag_parse_msg(&s, 10, &t), -EINVAL);
	assert_int_equal(sockdiag_parse_msg(&s, n - 1, &t), -EINVAL);
}

/* A message built from this build's struct tcp_info, every field distinct. */
static void test_layout(void **state)
{
	union nlbuf b;
	struct nlmsghdr *nlh;
	struct inet_diag_msg *m;
	struct tcp_info ti;
	struct sockdiag_tcp t;
	unsigned char *p;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&ti, 0, sizeof(ti));
	p = (unsigned char *)&ti;
	for (size_t i = 8; i < sizeof(ti); i++)
		p[i] = (unsigned char)(i * 7 + 1);
	ti.tcpi_delivery_rate_app_limited = 1;
	nlh = mnl_nlmsg_put_header(b.c);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
	m->idiag_family = AF_INET;
	m->idiag_inode = 77;
	mnl_attr_put(nlh, INET_DIAG_INFO, sizeof(ti), &ti);
	assert_int_equal(sockdiag_parse_msg(&b, nlh->nlmsg_len, &t), 0);
	assert_int_equal(t.info_len, sizeof(ti));
	assert_true(t.app_limited);
	assert_int_equal(t.snd_mss, ti.tcpi_snd_mss);
	assert_int_equal(t.rcv_mss, ti.tcpi_rcv_mss);
	assert_int_equal(t.unacked, ti.tcpi_unacked);
	assert_int_equal(t.lost, ti.tcpi_lost);
	assert_int_equal(t.retrans, ti.tcpi_retrans);
	assert_int_equal(t.last_data_sent_ms, ti.tcpi_last_data_sent);
	assert_int_equal(t.last_data_recv_ms, ti.tcpi_last_data_recv);
	assert_int_equal(t.rcv_ssthresh, ti.tcpi_rcv_ssthresh);
	assert_true(t.rtt_us == ti.tcpi_rtt && t.rttvar_us == ti.tcpi_rttvar && t.rcv_rtt_us == ti.tcpi_rcv_rtt);
	assert_int_equal(t.snd_ssthresh, ti.tcpi_snd_ssthresh);
	assert_int_equal(t.snd_cwnd, ti.tcpi_snd_cwnd);
	assert_int_equal(t.rcv_space, ti.tcpi_rcv_space);
	assert_int_equal(t.total_retrans, ti.tcpi_total_retrans);
	assert_int_equal(t.pacing_rate, ti.tcpi_pacing_rate);
	assert_int_equal(t.bytes_acked, ti.tcpi_bytes_acked);
	assert_int_equal(t.bytes_received, ti.tcpi_bytes_received);
	assert_int_equal(t.notsent_bytes, ti.tcpi_notsent_bytes);
	assert_true(t.min_rtt_us == ti.tcpi_min_rtt);
	assert_int_equal(t.delivery_rate, ti.tcpi_delivery_rate);
	assert_int_equal(t.busy_time_us, ti.tcpi_busy_time);
	assert_int_equal(t.rwnd_limited_us, ti.tcpi_rwnd_limited);
	assert_int_equal(t.sndbuf_limited_us, ti.tcpi_sndbuf_limited);
	assert_int_equal(t.bytes_sent, ti.tcpi_bytes_sent);
	assert_int_equal(t.bytes_retrans, ti.tcpi_bytes_retrans);
	assert_int_equal(t.rcv_ooopack, ti.tcpi_rcv_ooopack);
	assert_int_equal(t.snd_wnd, ti.tcpi_snd_wnd);
	assert_int_equal(t.inode, 77);
	assert_string_equal(t.peer, "");	/* no peer address or port */
}

/* ------------------------------------------------------------------ */
/* Live, over loopback                                                  */

/* A connected pair over 127.0.0.1: *C connected, *S accepted; RCVBUF set on the listener when > 0. */
static void tcp_pair(int *c, int *s, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(l >= 0);
	if (rcvbuf > 0)
		assert_int_equal(setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)), 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
	*c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(*c >= 0);
	assert_int_equal(connect(*c, (struct sockaddr *)&a, sizeof(a)), 0);
	*s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	assert_true(*s >= 0);
	close(l);
}

static uint64_t inode_of(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (uint64_t)st.st_ino;
}

/* One socket's reading; it must be found with tcp_info. */
static void read_one(struct sockdiag *d, int fd, struct sockdiag_tcp *t)
{
	uint64_t ino = inode_of(fd);
	char why[128] = "";
	int rc = sockdiag_tcp_by_inode(d, &ino, 1, t, why, sizeof(why));

	if (rc != 1)
		fail_msg("sockdiag_tcp_by_inode: %d %s", rc, why);
	assert_true(t->found && t->have_info);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		assert_true(w > 0);
		p += w;
		n -= (size_t)w;
	}
}

static void test_live_found(void **state)
{
	static char data[300000];
	struct sockdiag *d;
	struct sockdiag_tcp t[3];
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	uint64_t inodes[3];
	char why[128], addr[64];
	size_t got = 0;
	int c, s, rc;

	(void)state;
	assert_int_equal(sockdiag_open(&d, why, sizeof(why)), 0);
	tcp_pair(&c, &s, 0);
	write_all(c, data, sizeof(data));
	while (got < sizeof(data)) {
		ssize_t r = read(s, data, sizeof(data) - got);

		assert_true(r > 0);
		got += (size_t)r;
	}
	sleep_ms(50);
	inodes[0] = inode_of(c);
	inodes[1] = inode_of(s);
	inodes[2] = inode_of(0) == inodes[0] ? 1 : inode_of(0);	/* stdin: not a TCP socket */
	rc = sockdiag_tcp_by_inode(d, inodes, 3, t, why, sizeof(why));
	assert_int_equal(rc, 2);
	assert_true(t[0].found && t[1].found && !t[2].found && !t[2].have_info);
	assert_int_equal(getsockname(c, (struct sockaddr *)&a, &alen), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(a.sin_port));
	assert_string_equal(t[0].local, addr);
	assert_string_equal(t[1].peer, addr);
	assert_string_equal(t[0].peer, t[1].local);
	assert_int_equal(t[0].state, 1);	/* TCP_ESTABLISHED */
	assert_true(t[0].bytes_acked >= sizeof(data) && t[0].bytes_acked <= sizeof(data) + 1);
	assert_int_equal(t[1].bytes_received, sizeof(data));
	assert_int_equal(t[1].rqueue, 0);
	printf("# found: %s -> %s, %llu acked, %llu received, rtt %.0f us, cwnd %u, cc %s, tcp_info %u bytes\n",
	       t[0].local, t[0].peer, (unsigned long long)t[0].bytes_acked,
	       (unsigned long long)t[1].bytes_received, t[0].rtt_us, t[0].snd_cwnd, t[0].cong, t[0].info_len);
	/* Gone after close. */
	close(c);
	close(s);
	assert_int_equal(sockdiag_tcp_by_inode(d, inodes, 2, t, why, sizeof(why)), 0);
	sockdiag_close(d);
	sockdiag_close(NULL);
	/* A zero-length ask, and a NULL array with a length. */
	assert_int_equal(sockdiag_open_ns(&d, getpid(), why, sizeof(why)), 0);
	assert_int_equal(sockdiag_tcp_by_inode(d, NULL, 0, NULL, why, sizeof(why)), 0);
	assert_int_equal(sockdiag_tcp_by_inode(d, NULL, 1, t, why, sizeof(why)), -EINVAL);
	sockdiag_close(d);
	assert_int_equal(sockdiag_open_ns(&d, -1, why, sizeof(why)), -EINVAL);
	assert_null(d);
}

static void test_live_window(void **state)
{
	static char data[65536];
	struct sockdiag *d;
	struct sockdiag_tcp a, b, ra, rb;
	char why[128], ev[256];
	enum sockdiag_why w;
	double t0;
	int c, s;

	(void)state;
	assert_int_equal(sockdiag_open(&d, why, sizeof(why)), 0);
	tcp_pair(&c, &s, 0);
	/* Fill everything: the receiver never reads, its window closes. */
	assert_int_equal(fcntl(c, F_SETFL, O_NONBLOCK), 0);
	while (write(c, data, sizeof(data)) > 0)
		;
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	sleep_ms(200);
	read_one(d, c, &a);
	read_one(d, s, &ra);
	t0 = now_s();
	sleep_ms(1000);
	read_one(d, c, &b);
	read_one(d, s, &rb);
	w = sockdiag_judge(&a, &b, now_s() - t0, false, ev, sizeof(ev));
	printf("# window: sender %s: %s\n", sockdiag_why_name(w), ev);
	assert_int_equal(w, SD_RECV_WINDOW);
	assert_int_equal(b.snd_wnd, 0);
	/* The receiver's side: the data sits unread, our reader is the holdup. */
	w = sockdiag_judge(&ra, &rb, now_s() - t0, true, ev, sizeof(ev));
	printf("# window: receiver %s: %s\n", sockdiag_why_name(w), ev);
	assert_int_equal(w, SD_UNKNOWN);
	assert_non_null(strstr(ev, "waited for our reader"));
	close(c);
	close(s);
	sockdiag_close(d);
}

static void test_live_idle(void **state)
{
	struct sockdiag *d;
	struct sockdiag_tcp a, b;
	char why[128], ev[256];
	enum sockdiag_why w;
	double t0;
	int c, s;

	(void)state;
	assert_int_equal(sockdiag_open(&d, why, sizeof(why)), 0);
	tcp_pair(&c, &s, 0);
	write_all(c, "hello", 5);
	sleep_ms(50);
	read_one(d, c, &a);
	t0 = now_s();
	sleep_ms(500);
	read_one(d, c, &b);
	w = sockdiag_judge(&a, &b, now_s() - t0, false, ev, sizeof(ev));
	printf("# idle: sender %s: %s\n", sockdiag_why_name(w), ev);
	assert_int_equal(w, SD_IDLE);
	read_one(d, s, &a);
	sleep_ms(300);
	read_one(d, s, &b);
	w = sockdiag_judge(&a, &b, 0.3, true, ev, sizeof(ev));
	printf("# idle: receiver %s: %s\n", sockdiag_why_name(w), ev);
	assert_int_equal(w, SD_IDLE);
	close(c);
	close(s);
	sockdiag_close(d);
}

/* A sender that writes until told to stop, then shuts its side; a reader that reads to the end. */
struct flow {
	int fd;
	volatile bool stop;
	uint64_t bytes;
};

static void *flow_send(void *arg)
{
	static char data[65536];
	struct flow *f = arg;

	while (!f->stop) {
		ssize_t w = write(f->fd, data, sizeof(data));

		if (w <= 0)
			break;
		f->bytes += (uint64_t)w;
	}
	shutdown(f->fd, SHUT_WR);
	return NULL;
}

static void *flow_read(void *arg)
{
	static char buf[65536];
	struct flow *f = arg;
	ssize_t r;

	while ((r = read(f->fd, buf, sizeof(buf))) > 0)
		f->bytes += (uint64_t)r;
	return NULL;
}

static void test_live_clamped_rcvbuf(void **state)
{
	struct sockdiag *d;
	struct sockdiag_tcp a, b;
	struct flow fs = { 0 }, fr = { 0 };
	pthread_t ts, tr;
	char why[128], ev[256];
	enum sockdiag_why w;
	double t0, dt;
	int c, s;

	(void)state;
	assert_int_equal(sockdiag_open(&d, why, sizeof(why)), 0);
	/* The receiver's buffer clamped to 4 KiB (the kernel doubles it), as a server's SO_RCVBUF would. */
	tcp_pair(&c, &s, 4096);
	fs.fd = c;
	fr.fd = s;
	assert_int_equal(pthread_create(&tr, NULL, flow_read, &fr), 0);
	assert_int_equal(pthread_create(&ts, NULL, flow_send, &fs), 0);
	sleep_ms(200);
	read_one(d, c, &a);
	t0 = now_s();
	sleep_ms(800);
	read_one(d, c, &b);
	dt = now_s() - t0;
	fs.stop = true;
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	w = sockdiag_judge(&a, &b, dt, false, ev, sizeof(ev));
	printf("# clamped rcvbuf: sender %s: %s (%.1f MB/s)\n", sockdiag_why_name(w), ev,
	       (double)(b.bytes_acked - a.bytes_acked) / dt / 1e6);
	/*
	 * The clamp shows in the kernel's accounting: the window limited the
	 * sender a tenth of its busy time or more (about 90 % on a quiet box,
	 * 30 % seen while two builds ran: the reader then competes for the
	 * CPU); judged "receive window" from half, something else below.
	 */
	assert_true((b.rwnd_limited_us - a.rwnd_limited_us) > 0.1 * (b.busy_time_us - a.busy_time_us));
	if ((b.rwnd_limited_us - a.rwnd_limited_us) > 0.5 * (b.busy_time_us - a.busy_time_us))
		assert_int_equal(w, SD_RECV_WINDOW);
	else
		assert_true(w != SD_IDLE && w != SD_RECV_WINDOW);
	assert_int_equal(fs.bytes, fr.bytes);
	close(c);
	close(s);
	sockdiag_close(d);
}

/* ------------------------------------------------------------------ */
/* Another namespace (root)                                             */

/* Sets lo up in the current network namespace. */
static int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

static void test_live_namespace(void **state)
{
	struct sockdiag *d, *own;
	struct sockdiag_tcp t[2];
	uint64_t inodes[2];
	char why[128], answer[64] = "";
	int p[2], go[2], status, rc;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		printf("# skipped namespace case: needs root\n");
		return;
	}
	fflush(NULL);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int c = -1, s = -1;
		char msg[64];

		close(p[0]);
		close(go[1]);
		if (unshare(CLONE_NEWNET) < 0 || lo_up() < 0) {
			snprintf(msg, sizeof(msg), "skip %s", strerror(errno));
		} else {
			tcp_pair(&c, &s, 0);
			if (write(c, "abc", 3) != 3)
				_exit(3);
			snprintf(msg, sizeof(msg), "%llu %llu", (unsigned long long)inode_of(c),
				 (unsigned long long)inode_of(s));
		}
		if (write(p[1], msg, strlen(msg)) < 0)
			_exit(2);
		close(p[1]);
		/* Keep the sockets until the parent has looked. */
		if (read(go[0], msg, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	close(go[0]);
	rc = (int)read(p[0], answer, sizeof(answer) - 1);
	answer[rc > 0 ? rc : 0] = '\0';
	close(p[0]);
	if (!strncmp(answer, "skip", 4)) {
		printf("# skipped namespace case: %s\n", answer + 5);
	} else {
		unsigned long long ic, is;

		assert_int_equal(sscanf(answer, "%llu %llu", &ic, &is), 2);
		inodes[0] = ic;
		inodes[1] = is;
		sleep_ms(50);
		rc = sockdiag_open_ns(&d, pid, why, sizeof(why));
		if (rc)
			fail_msg("sockdiag_open_ns: %d %s", rc, why);
		assert_int_equal(sockdiag_tcp_by_inode(d, inodes, 2, t, why, sizeof(why)), 2);
		assert_int_equal(t[1].bytes_received, 3);
		assert_string_equal(t[0].peer, t[1].local);
		printf("# namespace: pid %d's %s -> %s found from its namespace\n", (int)pid, t[0].local, t[0].peer);
		sockdiag_close(d);
		/* Our own namespace does not have them. */
		assert_int_equal(sockdiag_open(&own, why, sizeof(why)), 0);
		assert_int_equal(sockdiag_tcp_by_inode(own, inodes, 2, t, why, sizeof(why)), 0);
		sockdiag_close(own);
		/* This thread never left our namespace. */
		assert_int_equal(sockdiag_open(&own, why, sizeof(why)), 0);
		sockdiag_close(own);
	}
	if (write(go[1], "x", 1) < 0)
		fail_msg("cannot release the child");
	close(go[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge_sending),
		cmocka_unit_test(test_judge_receiving),
		cmocka_unit_test(test_judge_refusals),
		cmocka_unit_test(test_fixture_v4),
		cmocka_unit_test(test_fixture_v6_and_dump),
		cmocka_unit_test(test_fixture_old_kernels),
		cmocka_unit_test(test_fixture_refusals),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_live_found),
		cmocka_unit_test(test_live_window),
		cmocka_unit_test(test_live_idle),
		cmocka_unit_test(test_live_clamped_rcvbuf),
		cmocka_unit_test(test_live_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !HAVE_LIBMNL */

static void test_without_libmnl(void **state)
{
	struct sockdiag *d = (struct sockdiag *)1;
	struct sockdiag_tcp t;
	char why[64] = "";

	(void)state;
	assert_int_equal(sockdiag_open(&d, why, sizeof(why)), -ENOSYS);
	assert_null(d);
	assert_string_equal(why, "built without libmnl");
	assert_int_equal(sockdiag_parse_msg("", 0, &t), -ENOSYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge_sending),
		cmocka_unit_test(test_judge_receiving),
		cmocka_unit_test(test_judge_refusals),
		cmocka_unit_test(test_without_libmnl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
