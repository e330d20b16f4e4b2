/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/fdres.c: the pure parsers (link texts, lines of
 * /proc/net/{tcp,tcp6,udp,udp6,unix}, fdinfo's flags and tfd lines) with
 * lines built the way the kernel prints them on the machine running the
 * test; the fabricated tree tests/fixtures/fdres/proc (one fd of every
 * kind, malformed and truncated lines, unreadable files, an exited
 * process); the cache in a private tree it can change under the resolver;
 * and live fds of this process: a file, a pipe, a socketpair, TCP and UDP
 * over 127.0.0.1, an eventfd, an epoll watching two fds, a closed fd,
 * O_DIRECT, a named FIFO, a block device, and another user's process.
 *
 * Byte order: the fixture's addresses were printed by a little-endian
 * kernel, so what they mean on a big-endian machine is derived here the
 * way the parser must do it (memcpy of the word). Under qemu user
 * emulation of another architecture (ENGPASS_EMULATED) /proc is the host
 * kernel's, so the live addresses may read byte-swapped and the open
 * flags are the host's O_* values: those asserts are relaxed there.
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
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/kernel/blkdev.h"
#include "core/kernel/fdres.h"
#include "lib/compiler.h"

static const char *fixtures(void)
{
	static char path[PATH_MAX];
	const char *e = getenv("ENGPASS_FIXTURES");

	snprintf(path, sizeof(path), "%s/fdres/proc", e ? e : "tests/fixtures");
	return path;
}

/* What the 8 hex digits W printed by a kernel mean on this machine, as "a.b.c.d:port". */
static void v4_of_word(uint32_t w, unsigned port, char *buf, size_t len)
{
	unsigned char b[4];

	memcpy(b, &w, 4);
	snprintf(buf, len, "%u.%u.%u.%u:%u", b[0], b[1], b[2], b[3], port);
}

/* The 8 hex digits a kernel on this machine prints for the dotted address A. */
static void word_of_v4(const char *a, char *hex, size_t len)
{
	struct in_addr in;
	uint32_t w;

	assert_int_equal(inet_pton(AF_INET, a, &in), 1);
	memcpy(&w, &in, 4);
	snprintf(hex, len, "%08X", w);
}

static void words_of_v6(const char *a, char *hex, size_t len)
{
	struct in6_addr in;
	uint32_t w[4];

	assert_int_equal(inet_pton(AF_INET6, a, &in), 1);
	memcpy(w, &in, 16);
	snprintf(hex, len, "%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
}

static bool emulated(void)
{
	return getenv("ENGPASS_EMULATED") != NULL;
}

/* ------------------------------------------------------------------ */
/* Pure parsers */

static void test_parse_link(void **state)
{
	static const struct {
		const char *text;
		int rc;
		enum fd_kind kind;
		uint64_t inode;
	} cases[] = {
		{ "socket:[123]", 0, FD_SOCKET, 123 },
		{ "pipe:[7]", 0, FD_PIPE, 7 },
		{ "pipe:[18446744073709551615]", 0, FD_PIPE, UINT64_MAX },
		{ "anon_inode:[eventfd]", 0, FD_EVENTFD, 0 },
		{ "anon_inode:[eventpoll]", 0, FD_EPOLL, 0 },
		{ "anon_inode:[timerfd]", 0, FD_TIMERFD, 0 },
		{ "anon_inode:[signalfd]", 0, FD_SIGNALFD, 0 },
		{ "anon_inode:inotify", 0, FD_INOTIFY, 0 },
		{ "anon_inode:[io_uring]", 0, FD_IOURING, 0 },
		{ "anon_inode:[pidfd]", 0, FD_ANON, 0 },
		{ "anon_inode:bpf-map", 0, FD_ANON, 0 },
		{ "anon_inode:[eventfd]x", 0, FD_ANON, 0 },
		{ "/srv/x.bin", 0, FD_FILE, 0 },
		{ "/tmp/gone (deleted)", 0, FD_FILE, 0 },
		{ "/dev/vda1", 0, FD_FILE, 0 },
		{ "net:[4026531840]", 0, FD_OTHER, 0 },
		{ "relative", 0, FD_OTHER, 0 },
		{ "", -EINVAL, FD_UNKNOWN, 0 },
		{ "socket:[]", -EINVAL, FD_UNKNOWN, 0 },
		{ "socket:[12x]", -EINVAL, FD_UNKNOWN, 0 },
		{ "socket:[12", -EINVAL, FD_UNKNOWN, 0 },
		{ "socket:[12]]", -EINVAL, FD_UNKNOWN, 0 },
		{ "socket:12", -EINVAL, FD_UNKNOWN, 0 },
		{ "pipe:[-1]", -EINVAL, FD_UNKNOWN, 0 },
		{ "pipe:[18446744073709551616]", -EINVAL, FD_UNKNOWN, 0 },
	};
	enum fd_kind k;
	uint64_t ino;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		ino = 99;
		int rc = fdres_parse_link(cases[i].text, strlen(cases[i].text), &k, &ino);

		if (rc != cases[i].rc || k != cases[i].kind || ino != cases[i].inode)
			fail_msg("'%s': rc %d kind %s inode %llu", cases[i].text, rc, fd_kind_name(k),
				 (unsigned long long)ino);
	}
	/* The length bounds the text: a socket cut short is malformed, not a shorter inode. */
	assert_int_equal(fdres_parse_link("socket:[123]", 10, &k, &ino), -EINVAL);
	assert_int_equal(fdres_parse_link("/x", 1, &k, &ino), 0);
	assert_int_equal(k, FD_FILE);
}

static void test_parse_inet_v4(void **state)
{
	char l[16], r[16], line[512], a[64];
	struct fdres_inet in;

	(void)state;
	/* Built as the kernel on this machine prints it: right on either byte order. */
	word_of_v4("10.0.0.1", l, sizeof(l));
	word_of_v4("192.168.1.200", r, sizeof(r));
	snprintf(line, sizeof(line),
		 "   3: %s:1451 %s:9C40 01 0000002A:00000100 02:00000A3B 00000000  1000        0 4242 2 "
		 "000000009fe7a6ea 20 4 30 10 -1\n",
		 l, r);
	assert_int_equal(fdres_parse_inet_line(line, strlen(line), AF_INET, &in), 0);
	fdres_format_addr(AF_INET, in.local, in.lport, a, sizeof(a));
	assert_string_equal(a, "10.0.0.1:5201");
	fdres_format_addr(AF_INET, in.remote, in.rport, a, sizeof(a));
	assert_string_equal(a, "192.168.1.200:40000");
	assert_int_equal(in.state, 1);
	assert_int_equal(in.tx_queue, 42);
	assert_int_equal(in.rx_queue, 256);
	assert_int_equal(in.inode, 4242);
	assert_int_equal(in.family, AF_INET);

	/* Without the newline, and lower-case hex, parse the same. */
	assert_int_equal(fdres_parse_inet_line(line, strlen(line) - 1, AF_INET, &in), 0);
	assert_int_equal(in.inode, 4242);

	/* A fixed word: "0100007F" is 127.0.0.1 on little-endian, 1.0.0.127 on big-endian. */
	snprintf(line, sizeof(line),
		 "0: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 7 1\n");
	assert_int_equal(fdres_parse_inet_line(line, strlen(line), AF_INET, &in), 0);
	fdres_format_addr(AF_INET, in.local, in.lport, a, sizeof(a));
	v4_of_word(0x0100007F, 80, l, sizeof(l));
	assert_string_equal(a, l);
	assert_int_equal(in.state, 10);

	/* Every cut before the inode fails: a truncated line never gives a socket. */
	snprintf(line, sizeof(line),
		 "   3: 0100000A:1451 0200000A:9C40 01 00000000:00000000 00:00000000 00000000 1000 0 4242 2\n");
	for (size_t cut = 0; cut < (size_t)(strstr(line, "4242") - line); cut++)
		if (fdres_parse_inet_line(line, cut, AF_INET, &in) == 0)
			fail_msg("a line cut at %zu parsed", cut);
	/* An IPv6 line is not an IPv4 one, nor the reverse. */
	assert_int_equal(fdres_parse_inet_line(line, strlen(line), AF_INET6, &in), -EINVAL);
	assert_int_equal(fdres_parse_inet_line(line, strlen(line), AF_UNIX, &in), -EINVAL);
}

static void test_parse_inet_v6(void **state)
{
	char l[40], r[40], line[512], a[64];
	struct fdres_inet in;

	(void)state;
	words_of_v6("2001:db8::1", l, sizeof(l));
	words_of_v6("::ffff:10.1.2.3", r, sizeof(r));
	snprintf(line, sizeof(line),
		 "   0: %s:B0B0 %s:0035 01 00000000:00000000 00:00000000 00000000     0        0 1008 2 "
		 "0000000000000000 0\n",
		 l, r);
	assert_int_equal(fdres_parse_inet_line(line, strlen(line), AF_INET6, &in), 0);
	fdres_format_addr(AF_INET6, in.local, in.lport, a, sizeof(a));
	assert_string_equal(a, "[2001:db8::1]:45232");
	fdres_format_addr(AF_INET6, in.remote, in.rport, a, sizeof(a));
	assert_string_equal(a, "[::ffff:10.1.2.3]:53");
	assert_int_equal(in.inode, 1008);
	assert_int_equal(in.family, AF_INET6);
	/* An IPv4 parse of it fails on the address's length. */
	assert_int_equal(fdres_parse_inet_line(line, strlen(line), AF_INET, &in), -EINVAL);
}

static void test_parse_inet_bad(void **state)
{
	static const char *const bad[] = {
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
		"",
		"\n",
		"garbage",
		"0:",
		"   1: ZZZZZZZZ:1451 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0 1001 2",
		"   2: 100000A:1451 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0 1001 2",
		"   2: 0100000A0:1451 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0 1001 2",
		"   2: 0100000A:10000 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0 1001 2",
		"   2: 0100000A:1451 0200000A:9C40 100 00000010:00000020 02:00000A3B 00000000 1000 0 1001 2",
		"   2: 0100000A:1451 0200000A:9C40 01 00000010 02:00000A3B 00000000 1000 0 1001 2",
		"   2: 0100000A:1451 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0 -1001 2",
		"   2: 0100000A:1451 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0 99999999999999999999",
		"   2: 0100000A:1451 0200000A:9C40 01 00000010:00000020 02:00000A3B 00000000 1000 0",
		"   2: 0100000A:1451 0200000A:9C40 01 FFFFFFFFFFFFFFFFF:0 02:00000A3B 00000000 1000 0 1001 2",
	};
	struct fdres_inet in;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (fdres_parse_inet_line(bad[i], strlen(bad[i]), AF_INET, &in) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
}

static void test_format_addr(void **state)
{
	unsigned char a[16] = { 0 };
	char buf[64], small[6];

	(void)state;
	fdres_format_addr(AF_INET, a, 0, buf, sizeof(buf));
	assert_string_equal(buf, "0.0.0.0:0");
	a[15] = 1;
	fdres_format_addr(AF_INET6, a, 80, buf, sizeof(buf));
	assert_string_equal(buf, "[::1]:80");
	fdres_format_addr(AF_INET6, a, 80, small, sizeof(small));
	assert_string_equal(small, "[::1]");
	fdres_format_addr(AF_INET6, a, 80, small, 0);	/* nothing written, no crash */
}

static void test_parse_unix(void **state)
{
	struct fdres_unix u;
	char line[300];
	const char *l;

	(void)state;
	l = "0000000000000000: 00000002 00000000 00010000 0001 01  1004 /run/x.sock\n";
	assert_int_equal(fdres_parse_unix_line(l, strlen(l), &u), 0);
	assert_int_equal(u.inode, 1004);
	assert_int_equal(u.type, 1);	/* the number as printed: SOCK_STREAM on x86, SOCK_DGRAM on MIPS */
	assert_int_equal(u.state, 1);
	assert_string_equal(u.path, "/run/x.sock");

	l = "ffff8880b7d46e0a: 00000003 00000000 00000000 0002 03  1080";
	assert_int_equal(fdres_parse_unix_line(l, strlen(l), &u), 0);
	assert_int_equal(u.inode, 1080);
	assert_int_equal(u.type, 2);
	assert_int_equal(u.state, 3);
	assert_string_equal(u.path, "");

	l = "0000000000000000: 00000002 00000000 00010000 0002 01  1007 @engpass test\n";
	assert_int_equal(fdres_parse_unix_line(l, strlen(l), &u), 0);
	assert_string_equal(u.path, "@engpass test");

	/* A path longer than the field is cut, not overflowed. */
	memset(line, 0, sizeof(line));
	l = "0000000000000000: 00000002 00000000 00010000 0001 01  5 /";
	snprintf(line, sizeof(line), "%s", l);
	memset(line + strlen(l), 'a', 200);
	assert_int_equal(fdres_parse_unix_line(line, strlen(line), &u), 0);
	assert_int_equal(strlen(u.path), sizeof(u.path) - 1);

	static const char *const bad[] = {
		"Num       RefCount Protocol Flags    Type St Inode Path",
		"",
		"bogus: line",
		"0000000000000000: 00000002 00000000 00010000 0001 01",
		"0000000000000000: 00000002 00000000 00010000 0001 01  x /p",
		"0000000000000000 00000002 00000000 00010000 0001 01  5",
		"0000000000000000: 00000002 00000000 00010000 0001",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (fdres_parse_unix_line(bad[i], strlen(bad[i]), &u) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
}

static void test_parse_fdinfo(void **state)
{
	const char *t;
	unsigned f = 7;
	int fds[4];

	(void)state;
	t = "pos:\t0\nflags:\t0100002\nmnt_id:\t24\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), 0);
	assert_int_equal(f, 0100002);
	t = "pos:\t0\nflags:\t00\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), 0);
	assert_int_equal(f, 0);
	t = "flags:\t02000000";	/* first line, no newline */
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), 0);
	assert_int_equal(f, 02000000);
	t = "pos:\t0\nmnt_id:\t24\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), -ENOENT);
	t = "pos:\t0\n xflags:\t02\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), -ENOENT);
	t = "flags:\t0x89\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), -EINVAL);
	t = "flags:\t089\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), -EINVAL);
	t = "flags:\n";
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), -EINVAL);
	t = "flags:\t077777777777\n";	/* more than 32 bits */
	assert_int_equal(fdres_parse_fdinfo_flags(t, strlen(t), &f), -EINVAL);
	t = "flags:\t0100002";	/* cut by the length, not by a NUL */
	assert_int_equal(fdres_parse_fdinfo_flags(t, 9, &f), 0);
	assert_int_equal(f, 01);

	t = "pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1039\n"
	    "tfd:        5 events:       19 data:                5  pos:0 ino:3eb sdev:8\n"
	    "tfd:        3 events:       19 data:         deadbeef  pos:0 ino:3e9 sdev:8\n"
	    "tfd:       21 events:       19 data:               15  pos:0 ino:3f0 sdev:8";
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), fds, 4), 3);
	assert_int_equal(fds[0], 5);
	assert_int_equal(fds[1], 3);
	assert_int_equal(fds[2], 21);
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), fds, 2), 2);
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), NULL, 0), 0);
	t = "pos:\t0\nflags:\t02\n";
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), fds, 4), 0);
	t = "tfd:  -5 events: 19\n";
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), fds, 4), -EINVAL);
	t = "tfd: 99999999999 events: 19\n";
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), fds, 4), -EINVAL);
	t = "tfd:\n";
	assert_int_equal(fdres_parse_fdinfo_tfds(t, strlen(t), fds, 4), -EINVAL);
}

static void test_names(void **state)
{
	struct fd_target t = { .kind = FD_FILE, .tcp_state = -1 };
	char buf[128], small[8];

	(void)state;
	assert_string_equal(fd_kind_name(FD_TCP), "tcp");
	assert_string_equal(fd_kind_name(FD_IOURING), "io_uring");
	assert_string_equal(fd_kind_name(FD_OTHER), "other");
	assert_string_equal(fd_kind_name((enum fd_kind)99), "unknown");

	snprintf(t.path, sizeof(t.path), "/srv/x.bin");
	snprintf(t.dev, sizeof(t.dev), "vda");
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "vda (/srv/x.bin)");
	t.dev[0] = '\0';
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "/srv/x.bin");
	fdres_describe(&t, small, sizeof(small));
	assert_string_equal(small, "/srv/x.");

	memset(&t, 0, sizeof(t));
	t.kind = FD_TCP;
	t.tcp_state = 1;
	snprintf(t.local, sizeof(t.local), "10.0.0.2:40000");
	snprintf(t.peer, sizeof(t.peer), "10.0.0.1:5201");
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "tcp 10.0.0.1:5201");
	t.peer[0] = '\0';
	t.tcp_state = 10;
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "tcp listen 10.0.0.2:40000");
	t.kind = FD_UNIX;
	snprintf(t.local, sizeof(t.local), "/run/x.sock");
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "unix /run/x.sock");
	t.local[0] = '\0';
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "unix");
	t.kind = FD_PIPE;
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "pipe");
	t.kind = FD_EVENTFD;
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "eventfd");
	t.kind = FD_UNKNOWN;
	fdres_describe(&t, buf, sizeof(buf));
	assert_string_equal(buf, "unknown");
}

/* ------------------------------------------------------------------ */
/* The fabricated tree */

static const struct fd_target *look(struct fdres *r, pid_t pid, int fd)
{
	const struct fd_target *t = NULL;

	assert_int_equal(fdres_lookup(r, pid, fd, &t), 0);
	assert_non_null(t);
	return t;
}

static void test_fixture_kinds(void **state)
{
	struct fdres *r = fdres_new(fixtures(), "/nonexistent-sys");
	const struct fd_target *t;
	char want[64];

	(void)state;
	t = look(r, 100, 0);
	assert_int_equal(t->kind, FD_OTHER);
	assert_string_equal(t->path, "/dev/null");
	t = look(r, 100, 1);
	assert_int_equal(t->kind, FD_FILE);
	assert_string_equal(t->dev, "");	/* no such sysfs */
	assert_true(t->flags_known);
	assert_int_equal(t->flags, 02240000);

	/* TCP: past the malformed lines, the 7-digit address, the empty line. */
	t = look(r, 100, 3);
	assert_int_equal(t->kind, FD_TCP);
	assert_int_equal(t->inode, 1001);
	v4_of_word(0x0100000A, 5201, want, sizeof(want));
	assert_string_equal(t->local, want);
	v4_of_word(0x0200000A, 40000, want, sizeof(want));
	assert_string_equal(t->peer, want);
	assert_int_equal(t->tcp_state, 1);
	assert_int_equal(t->tx_queue, 16);
	assert_int_equal(t->rx_queue, 32);
	assert_true(t->flags_known);
	assert_int_equal(t->flags, 02004002);
	assert_int_equal(t->err, 0);

	t = look(r, 100, 4);
	assert_int_equal(t->kind, FD_TCP);
	assert_int_equal(t->tcp_state, 10);
	assert_int_equal(t->rx_queue, 3);
	assert_string_equal(t->peer, "");
	assert_false(t->flags_known);	/* "flags: 0x89" */
	if (*(const unsigned char *)&(uint32_t){ 1 })	/* little-endian: the words mean what they say */
		assert_string_equal(t->local, "[::1]:80");

	t = look(r, 100, 5);
	assert_int_equal(t->kind, FD_UDP);
	assert_string_equal(t->local, "0.0.0.0:53");
	assert_string_equal(t->peer, "");
	assert_int_equal(t->tcp_state, -1);
	assert_int_equal(t->rx_queue, 256);

	t = look(r, 100, 6);
	assert_int_equal(t->kind, FD_UNIX);
	assert_string_equal(t->local, "/run/x.sock");
	t = look(r, 100, 20);
	assert_int_equal(t->kind, FD_UNIX);
	assert_string_equal(t->local, "@engpass test");
	t = look(r, 100, 22);
	assert_int_equal(t->kind, FD_UNIX);
	assert_string_equal(t->local, "");
	t = look(r, 100, 21);
	assert_int_equal(t->kind, FD_UDP);
	assert_int_equal(t->inode, 1008);
	if (*(const unsigned char *)&(uint32_t){ 1 })
		assert_string_equal(t->peer, "[2001:db8::1]:53");
	assert_string_equal(t->local, "[::]:45232");

	/* Not in any file, or only in the truncated last line: a socket, nothing more. */
	t = look(r, 100, 7);
	assert_int_equal(t->kind, FD_SOCKET);
	assert_int_equal(t->inode, 1005);
	t = look(r, 100, 19);
	assert_int_equal(t->kind, FD_SOCKET);
	assert_int_equal(t->inode, 1006);
	assert_string_equal(t->local, "");

	t = look(r, 100, 8);
	assert_int_equal(t->kind, FD_PIPE);
	assert_int_equal(t->inode, 7);
	assert_true(t->flags_known);
	assert_int_equal(t->flags, 0);
	assert_int_equal(look(r, 100, 9)->kind, FD_EVENTFD);
	assert_int_equal(look(r, 100, 10)->kind, FD_EPOLL);
	assert_int_equal(look(r, 100, 11)->kind, FD_INOTIFY);
	assert_int_equal(look(r, 100, 12)->kind, FD_TIMERFD);
	assert_int_equal(look(r, 100, 13)->kind, FD_SIGNALFD);
	assert_int_equal(look(r, 100, 14)->kind, FD_IOURING);
	assert_int_equal(look(r, 100, 15)->kind, FD_ANON);
	t = look(r, 100, 16);
	assert_int_equal(t->kind, FD_OTHER);
	assert_string_equal(t->path, "net:[4026531840]");
	assert_false(t->flags_known);

	/* Malformed link, a path that stat() cannot follow, closed fds, an exited process. */
	t = look(r, 100, 17);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -EINVAL);
	assert_string_equal(t->path, "socket:[12x]");
	t = look(r, 100, 18);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -ENOENT);
	t = look(r, 100, 2);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -ENOENT);
	assert_string_equal(t->path, "");
	t = look(r, 300, 3);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -ENOENT);

	/* Bad arguments. */
	assert_int_equal(fdres_lookup(r, 0, 3, &t), -EINVAL);
	assert_int_equal(fdres_lookup(r, 100, -1, &t), -EINVAL);
	assert_int_equal(fdres_lookup(r, -5, 3, &t), -EINVAL);
	fdres_free(r);
	fdres_free(NULL);
}

static void test_fixture_unreadable(void **state)
{
	struct fdres *r = fdres_new(fixtures(), NULL);
	const struct fd_target *t;
	int fds[8];

	(void)state;
	/* The net files and fdinfo/3 are directories: the socket stays a socket, the flags unknown. */
	t = look(r, 200, 3);
	assert_int_equal(t->kind, FD_SOCKET);
	assert_int_equal(t->inode, 1001);
	assert_false(t->flags_known);
	assert_int_equal(t->err, 0);
	assert_int_equal(fdres_epoll_fds(r, 200, 4, fds, 8), -EISDIR);
	assert_int_equal(fdres_epoll_fds(r, 100, 10, fds, 8), 3);
	assert_int_equal(fds[0], 5);
	assert_int_equal(fds[1], 3);
	assert_int_equal(fds[2], 21);
	assert_int_equal(fdres_epoll_fds(r, 100, 10, fds, 1), 1);
	assert_int_equal(fdres_epoll_fds(r, 100, 9, fds, 8), 0);
	assert_int_equal(fdres_epoll_fds(r, 100, 77, fds, 8), -ENOENT);
	assert_int_equal(fdres_epoll_fds(r, 300, 10, fds, 8), -ENOENT);
	assert_int_equal(fdres_epoll_fds(r, 100, 10, NULL, 8), -EINVAL);
	assert_int_equal(fdres_epoll_fds(r, 0, 10, fds, 8), -EINVAL);
	fdres_free(r);
}

/* ------------------------------------------------------------------ */
/* The cache, in a tree this test changes under it */

struct tree {
	char root[PATH_MAX];
};

static void put(const char *root, const char *rel, const char *text)
{
	char path[2 * PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *root, const char *rel)
{
	char path[2 * PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s/%s/", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
}

static void relink(const char *root, const char *target, const char *rel)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	(void)unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	/* In the current directory (the build tree), which has a block device more often than /tmp. */
	char rel[] = "engpass-fdres.XXXXXX";

	if (!mkdtemp(rel) || !realpath(rel, t->root)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	if (system(cmd))
		return -1;
	free(t);
	return 0;
}

#define TCP_HEAD "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

static void tcp_line(char *buf, size_t len, int state, uint64_t inode)
{
	char l[16];

	word_of_v4("10.0.0.1", l, sizeof(l));
	snprintf(buf, len, TCP_HEAD "   0: %s:1451 %s:9C40 %02X 00000000:00000000 00:00000000 00000000 0 0 %llu 1\n", l, l,
		 state, (unsigned long long)inode);
}

static void test_cache(void **state)
{
	struct tree *tr = *state;
	char proc[PATH_MAX + 8], sys[PATH_MAX + 8], text[512], rel[64], file[PATH_MAX + 16], target[PATH_MAX + 256];
	const struct fd_target *t, *first;
	struct stat st;
	struct fdres *r;

	snprintf(proc, sizeof(proc), "%s/proc", tr->root);
	snprintf(sys, sizeof(sys), "%s/sys", tr->root);
	mkdirs(tr->root, "proc/42/fd");
	mkdirs(tr->root, "proc/42/fdinfo");
	mkdirs(tr->root, "proc/42/net");
	tcp_line(text, sizeof(text), 1, 555);
	put(proc, "42/net/tcp", text);
	relink(proc, "socket:[555]", "42/fd/3");
	r = fdres_new(proc, sys);

	first = look(r, 42, 3);
	assert_int_equal(first->kind, FD_TCP);
	assert_int_equal(first->tcp_state, 1);
	/* A hit reads nothing but the link: the changed state is not seen. */
	tcp_line(text, sizeof(text), 8, 555);
	put(proc, "42/net/tcp", text);
	t = look(r, 42, 3);
	assert_ptr_equal(t, first);
	assert_int_equal(t->tcp_state, 1);
	/* Another pid with the same fd is another entry. */
	mkdirs(tr->root, "proc/43/fd");
	mkdirs(tr->root, "proc/43/net");
	put(proc, "43/net/tcp", text);
	relink(proc, "socket:[555]", "43/fd/3");
	assert_int_equal(look(r, 43, 3)->tcp_state, 8);
	/* A new link text is a miss: the fd now names another socket. */
	tcp_line(text, sizeof(text), 10, 556);
	put(proc, "42/net/tcp", text);
	relink(proc, "socket:[556]", "42/fd/3");
	t = look(r, 42, 3);
	assert_int_equal(t->inode, 556);
	assert_int_equal(t->tcp_state, 10);
	/* Closed: unknown, and a failed lookup is not cached. */
	snprintf(file, sizeof(file), "%s/42/fd/3", proc);
	assert_int_equal(unlink(file), 0);
	t = look(r, 42, 3);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -ENOENT);
	relink(proc, "socket:[556]", "42/fd/3");
	assert_int_equal(look(r, 42, 3)->tcp_state, 10);

	/* Fill past FDRES_CACHE_MAX: everything is dropped once, and fd 3 is read afresh. */
	for (int fd = 10; fd < 10 + FDRES_CACHE_MAX + 5; fd++) {
		snprintf(rel, sizeof(rel), "42/fd/%d", fd);
		relink(proc, "anon_inode:[eventfd]", rel);
		assert_int_equal(look(r, 42, fd)->kind, FD_EVENTFD);
	}
	tcp_line(text, sizeof(text), 6, 556);
	put(proc, "42/net/tcp", text);
	assert_int_equal(look(r, 42, 3)->tcp_state, 6);
	for (int fd = 10; fd < 10 + FDRES_CACHE_MAX + 5; fd++)
		assert_int_equal(look(r, 42, fd)->kind, FD_EVENTFD);

	/* A file's device through a fabricated sysfs: partition vdz3 of disk vdz. */
	snprintf(file, sizeof(file), "%s/data.bin", tr->root);
	put(tr->root, "data.bin", "x");
	assert_int_equal(stat(file, &st), 0);
	relink(proc, file, "42/fd/5");
	put(proc, "42/fdinfo/5", "pos:\t0\nflags:\t0100001\n");
	if (major(st.st_dev) == 0) {
		print_message("# skip the disk name: %s is on an anonymous device (tmpfs, overlay)\n", tr->root);
	} else {
		mkdirs(tr->root, "sys/dev/block");
		mkdirs(tr->root, "sys/devices/virtual/block/vdz/vdz3");
		put(sys, "devices/virtual/block/vdz/vdz3/partition", "3\n");
		snprintf(text, sizeof(text), "dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
		relink(sys, "../../devices/virtual/block/vdz/vdz3", text);
	}
	t = look(r, 42, 5);
	assert_int_equal(t->kind, FD_FILE);
	assert_int_equal(t->major, major(st.st_dev));
	assert_int_equal(t->minor, minor(st.st_dev));
	assert_string_equal(t->dev, major(st.st_dev) ? "vdz" : "");
	assert_true(t->flags_known);
	assert_int_equal(t->flags, 0100001);
	/* A path longer than the target's field is compared in full, by length and hash. */
	snprintf(target, sizeof(target), "%s/%0200d", tr->root, 0);
	put(tr->root, strrchr(target, '/') + 1, "");
	relink(proc, target, "42/fd/6");
	t = look(r, 42, 6);
	assert_int_equal(t->kind, FD_FILE);
	assert_int_equal(strlen(t->path), sizeof(t->path) - 1);
	/* Differing past the 127 bytes kept: a miss, which stat()s a path that is not there. */
	target[strlen(target) - 1] = '1';
	relink(proc, target, "42/fd/6");
	t = look(r, 42, 6);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -ENOENT);
	put(tr->root, strrchr(target, '/') + 1, "");
	t = look(r, 42, 6);
	assert_int_equal(t->kind, FD_FILE);
	/* A hit stats nothing: the target deleted meanwhile still reads as the file it was. */
	assert_int_equal(unlink(target), 0);
	assert_ptr_equal(look(r, 42, 6), t);
	assert_int_equal(t->kind, FD_FILE);
	fdres_free(r);
}

/* ------------------------------------------------------------------ */
/* Live: this process's own fds */

static void test_live_file(void **state)
{
	struct tree *tr = *state;
	struct fdres *r = fdres_new(NULL, NULL);
	struct blkdev_info *bi = calloc(1, sizeof(*bi));
	char file[PATH_MAX + 16], real[PATH_MAX];
	const struct fd_target *t;
	int fd;

	assert_non_null(bi);
	snprintf(file, sizeof(file), "%s/live.bin", tr->root);
	fd = open(file, O_RDWR | O_CREAT | O_APPEND, 0600);
	assert_true(fd >= 0);
	t = look(r, getpid(), fd);
	assert_int_equal(t->kind, FD_FILE);
	assert_non_null(realpath(file, real));
	assert_string_equal(t->path, real);
	if (blkdev_from_path(NULL, tr->root, bi) == 0)
		assert_string_equal(t->dev, bi->disk);
	else
		assert_string_equal(t->dev, "");
	assert_true(t->flags_known);
	if (!emulated())
		assert_true(t->flags & O_APPEND);
	close(fd);

	/*
	 * O_DIRECT, where the file system takes it. The fd number and the
	 * path are the ones just closed: the same link text, which the cache
	 * would answer with the flags of the first open (fdres.h), so a fresh
	 * resolver looks.
	 */
	fdres_free(r);
	r = fdres_new(NULL, NULL);
	fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		print_message("# skip O_DIRECT: %s refuses it (%s)\n", tr->root, strerror(errno));
	} else {
		t = look(r, getpid(), fd);
		assert_true(t->flags_known);
		if (emulated())
			print_message("# skip O_DIRECT: fdinfo holds the host kernel's flag values under emulation\n");
		else
			assert_true(t->flags & O_DIRECT);
		close(fd);
		/* Closed now: unknown, -ENOENT. */
		t = look(r, getpid(), fd);
		assert_int_equal(t->kind, FD_UNKNOWN);
		assert_int_equal(t->err, -ENOENT);
	}

	/* A named FIFO is a pipe, with the FIFO's inode. */
	snprintf(file, sizeof(file), "%s/fifo", tr->root);
	assert_int_equal(mkfifo(file, 0600), 0);
	fd = open(file, O_RDWR);
	assert_true(fd >= 0);
	t = look(r, getpid(), fd);
	assert_int_equal(t->kind, FD_PIPE);
	assert_true(t->inode > 0);
	close(fd);

	/* A block device, where one can be opened (root): its whole disk is named. */
	static const char *const devs[] = { "/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/mmcblk0" };
	fd = -1;
	for (size_t i = 0; i < ARRAY_SIZE(devs) && fd < 0; i++)
		fd = open(devs[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		print_message("# skip the block device: none of /dev/loop0, vda, sda, nvme0n1, mmcblk0 opens\n");
	} else {
		struct stat st;

		t = look(r, getpid(), fd);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(t->kind, FD_BLOCKDEV);
		assert_int_equal(t->major, major(st.st_rdev));
		assert_int_equal(t->minor, minor(st.st_rdev));
		if (blkdev_from_devnum(NULL, t->major, t->minor, bi) == 0)
			assert_string_equal(t->dev, bi->disk);
		close(fd);
	}
	free(bi);
	fdres_free(r);
}

/* The loopback address as the test expects to read it back (see the file's comment). */
static void assert_loopback(const char *got, unsigned port)
{
	char want[64], swapped[64];

	snprintf(want, sizeof(want), "127.0.0.1:%u", port);
	snprintf(swapped, sizeof(swapped), "1.0.0.127:%u", port);
	if (strcmp(got, want) && !(emulated() && !strcmp(got, swapped)))
		fail_msg("'%s' is not '%s'", got, want);
}

static unsigned port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);

	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	return ntohs(a.sin_port);
}

static void test_live_sockets(void **state)
{
	struct fdres *r = fdres_new(NULL, NULL);
	struct sockaddr_in a = { .sin_family = AF_INET };
	const struct fd_target *t;
	int lfd, cfd, afd, ufd, sp[2], p[2];
	char desc[160], want[160];
	unsigned port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	port = port_of(lfd);
	a.sin_port = htons((uint16_t)port);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(cfd, (struct sockaddr *)&a, sizeof(a)), 0);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	assert_int_equal(write(cfd, "hello", 5), 5);

	t = look(r, getpid(), cfd);
	assert_int_equal(t->kind, FD_TCP);
	assert_int_equal(t->tcp_state, 1);
	assert_loopback(t->peer, port);
	assert_loopback(t->local, port_of(cfd));
	assert_true(t->inode > 0);
	fdres_describe(t, desc, sizeof(desc));
	snprintf(want, sizeof(want), "tcp %s", t->peer);
	assert_string_equal(desc, want);
	t = look(r, getpid(), afd);
	assert_int_equal(t->kind, FD_TCP);
	assert_int_equal(t->tcp_state, 1);
	assert_loopback(t->local, port);
	assert_int_equal(t->rx_queue, 5);	/* the unread hello */
	t = look(r, getpid(), lfd);
	assert_int_equal(t->kind, FD_TCP);
	assert_int_equal(t->tcp_state, 10);
	assert_string_equal(t->peer, "");

	ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(ufd, (struct sockaddr *)&a, sizeof(a)), 0);
	t = look(r, getpid(), ufd);
	assert_int_equal(t->kind, FD_UDP);
	assert_loopback(t->peer, port);
	assert_int_equal(t->tcp_state, -1);

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	t = look(r, getpid(), sp[0]);
	assert_int_equal(t->kind, FD_UNIX);
	assert_string_equal(t->local, "");
	assert_true(t->inode > 0);

	/* A client of a bound unix socket: no path of its own, the server's as peer. */
	{
		struct sockaddr_un un = { .sun_family = AF_UNIX };
		struct tree *tr = *state;
		int srv, cli, acc;

		snprintf(un.sun_path, sizeof(un.sun_path), "%.80s/s.sock", tr->root);
		srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		cli = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_int_equal(bind(srv, (struct sockaddr *)&un, sizeof(un)), 0);
		assert_int_equal(listen(srv, 1), 0);
		assert_int_equal(connect(cli, (struct sockaddr *)&un, sizeof(un)), 0);
		acc = accept(srv, NULL, NULL);
		assert_true(acc >= 0);
		t = look(r, getpid(), srv);
		assert_int_equal(t->kind, FD_UNIX);
		assert_string_equal(t->local, un.sun_path);
		t = look(r, getpid(), acc);
		assert_int_equal(t->kind, FD_UNIX);
		assert_string_equal(t->local, un.sun_path);	/* inherited from the listener */
		t = look(r, getpid(), cli);
		assert_int_equal(t->kind, FD_UNIX);
		assert_string_equal(t->local, "");
		if (emulated() && !t->peer[0])
			print_message("# skip the unix peer: no sock_diag under emulation\n");
		else
			assert_string_equal(t->peer, un.sun_path);
		fdres_describe(t, desc, sizeof(desc));
		snprintf(want, sizeof(want), "unix %s", un.sun_path);
		if (t->peer[0])
			assert_string_equal(desc, want);
		close(srv);
		close(cli);
		close(acc);
	}

	assert_int_equal(pipe(p), 0);
	t = look(r, getpid(), p[0]);
	assert_int_equal(t->kind, FD_PIPE);
	assert_true(t->inode > 0);
	assert_true(t->flags_known);
	t = look(r, getpid(), p[1]);
	assert_int_equal(t->kind, FD_PIPE);
	if (!emulated())
		assert_int_equal(t->flags & O_ACCMODE, O_WRONLY);

	close(lfd);
	close(cfd);
	close(afd);
	close(ufd);
	close(sp[0]);
	close(sp[1]);
	close(p[0]);
	close(p[1]);
	fdres_free(r);
}

static void test_live_anon(void **state)
{
	struct fdres *r = fdres_new(NULL, NULL);
	struct epoll_event ev = { .events = EPOLLIN };
	const struct fd_target *t;
	int efd, ep, p[2], fds[8], n;

	(void)state;
	efd = eventfd(0, EFD_CLOEXEC);
	assert_true(efd >= 0);
	t = look(r, getpid(), efd);
	assert_int_equal(t->kind, FD_EVENTFD);
	assert_string_equal(t->path, "anon_inode:[eventfd]");

	assert_int_equal(pipe(p), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	assert_true(ep >= 0);
	assert_int_equal(look(r, getpid(), ep)->kind, FD_EPOLL);
	assert_int_equal(fdres_epoll_fds(r, getpid(), ep, fds, 8), 0);
	ev.data.fd = efd;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev), 0);
	ev.data.fd = p[0];
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
	n = fdres_epoll_fds(r, getpid(), ep, fds, 8);
	assert_int_equal(n, 2);
	assert_true((fds[0] == efd && fds[1] == p[0]) || (fds[0] == p[0] && fds[1] == efd));
	/* Not an epoll: nothing watched. */
	assert_int_equal(fdres_epoll_fds(r, getpid(), efd, fds, 8), 0);

	close(ep);
	close(efd);
	close(p[0]);
	close(p[1]);
	/* Closed: unknown with -ENOENT, never the kind it had. */
	t = look(r, getpid(), efd);
	assert_int_equal(t->kind, FD_UNKNOWN);
	assert_int_equal(t->err, -ENOENT);
	fdres_free(r);
}

/* Another user's process: unknown with -EACCES, never a crash or a kind. */
static void test_live_other_user(void **state)
{
	struct fdres *r;
	const struct fd_target *t;
	pid_t child;
	int status;

	(void)state;
	if (getpid() == 1) {
		print_message("# skip another user's process: this test is pid 1\n");
		return;
	}
	if (getuid() != 0) {
		r = fdres_new(NULL, NULL);
		t = look(r, 1, 0);
		assert_int_equal(t->kind, FD_UNKNOWN);
		assert_int_equal(t->err, -EACCES);
		fdres_free(r);
		return;
	}
	/* As root, a child that became nobody looks at pid 1 (root's). */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		r = fdres_new(NULL, NULL);
		if (fdres_lookup(r, 1, 0, &t))
			_exit(3);
		_exit(t->kind == FD_UNKNOWN && t->err == -EACCES ? 0 : 4);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_link),
		cmocka_unit_test(test_parse_inet_v4),
		cmocka_unit_test(test_parse_inet_v6),
		cmocka_unit_test(test_parse_inet_bad),
		cmocka_unit_test(test_format_addr),
		cmocka_unit_test(test_parse_unix),
		cmocka_unit_test(test_parse_fdinfo),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fixture_kinds),
		cmocka_unit_test(test_fixture_unreadable),
		cmocka_unit_test_setup_teardown(test_cache, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_live_file, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_live_sockets, tree_setup, tree_teardown),
		cmocka_unit_test(test_live_anon),
		cmocka_unit_test(test_live_other_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
