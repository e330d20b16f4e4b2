/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the pure parsers of src/core/kernel/fdres.c: the first byte
 * picks one, the rest is the text, in a buffer of exactly its length (no
 * NUL after it), so a parser that reads past LEN is caught by
 * AddressSanitizer. 0 a link text of /proc/PID/fd/N; 1 and 2 a whole
 * /proc/net/tcp or udp (IPv4) and tcp6 or udp6 file, walked line by line
 * as the resolver does; 3 /proc/net/unix, likewise; 4 an fdinfo text
 * (flags, then tfd lines into arrays of several sizes). What parses is
 * formatted and described, and must be something the kernel could have
 * written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "core/kernel/fdres.h"
#include "fuzz.h"

static void link_text(const char *buf, size_t len)
{
	struct fd_target t = { .tcp_state = -1 };
	char desc[48];
	int rc = fdres_parse_link(buf, len, &t.kind, &t.inode);

	if (rc ? rc != -EINVAL || t.kind != FD_UNKNOWN || t.inode : t.kind == FD_UNKNOWN)
		abort();	/* an error is exactly an unknown kind */
	if (t.inode && t.kind != FD_SOCKET && t.kind != FD_PIPE)
		abort();	/* only sockets and pipes carry an inode */
	if ((t.kind == FD_SOCKET || t.kind == FD_PIPE) && buf[len - 1] != ']')
		abort();
	if (t.kind == FD_FILE && buf[0] != '/')
		abort();
	memcpy(t.path, buf, len < sizeof(t.path) ? len : sizeof(t.path) - 1);
	fdres_describe(&t, desc, sizeof(desc));
	if (strlen(desc) >= sizeof(desc))
		abort();
}

/* Each line of BUF, with its newline, as scan_net() in fdres.c hands them over. */
static void each_line(const char *buf, size_t len, void (*fn)(const char *, size_t, int), int arg)
{
	const char *p = buf, *e = buf + len;

	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl + 1 : e;

		fn(p, (size_t)(le - p), arg);
		p = le;
	}
}

static void inet_line(const char *line, size_t len, int family)
{
	struct fd_target t = { .kind = FD_TCP };
	struct fdres_inet in;
	char desc[96];

	if (fdres_parse_inet_line(line, len, family, &in))
		return;
	if (in.family != family || in.state < 0 || in.state > 0xff)
		abort();
	fdres_format_addr(family, in.local, in.lport, t.local, sizeof(t.local));
	fdres_format_addr(family, in.remote, in.rport, t.peer, sizeof(t.peer));
	if (!t.local[0] || !t.peer[0] || !strchr(t.local, ':'))
		abort();	/* an address always formats */
	t.tcp_state = in.state;
	fdres_describe(&t, desc, sizeof(desc));
	t.kind = FD_UDP;
	fdres_describe(&t, desc, 8);
}

static void unix_line(const char *line, size_t len, int unused)
{
	struct fd_target t = { .kind = FD_UNIX };
	struct fdres_unix u;
	char desc[80];

	(void)unused;
	if (fdres_parse_unix_line(line, len, &u))
		return;
	if (strlen(u.path) >= sizeof(u.path) || memchr(u.path, '\n', strlen(u.path)))
		abort();
	snprintf(t.local, sizeof(t.local), "%.63s", u.path);
	fdres_describe(&t, desc, sizeof(desc));
}

static void fdinfo_text(const char *buf, size_t len)
{
	unsigned flags;
	int fds[4], rc;
	int r0, r1, r4;

	rc = fdres_parse_fdinfo_flags(buf, len, &flags);
	if (rc && rc != -ENOENT && rc != -EINVAL)
		abort();
	r0 = fdres_parse_fdinfo_tfds(buf, len, NULL, 0);
	r1 = fdres_parse_fdinfo_tfds(buf, len, fds, 1);
	r4 = fdres_parse_fdinfo_tfds(buf, len, fds, 4);
	if (r0 > 0 || r1 > 1 || r4 > 4 || (r0 < 0) != (r4 < 0) || (r4 >= 0 && r1 != (r4 > 0)))
		abort();	/* MAX bounds the count; an error does not depend on it */
	for (int i = 0; i < r4; i++)
		if (fds[i] < 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	size_t len;

	if (size < 1)
		return 0;
	/* Exactly LEN bytes on the heap: no NUL after them to hide an over-read. */
	len = size - 1;
	buf = xmalloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	switch (data[0] % 5) {
	case 0:
		if (len)
			link_text(buf, len);
		else if (fdres_parse_link(buf, 0, &(enum fd_kind){ FD_FILE }, &(uint64_t){ 0 }) != -EINVAL)
			abort();
		break;
	case 1:
		each_line(buf, len, inet_line, AF_INET);
		break;
	case 2:
		each_line(buf, len, inet_line, AF_INET6);
		break;
	case 3:
		each_line(buf, len, unix_line, 0);
		break;
	default:
		fdinfo_text(buf, len);
		break;
	}
	free(buf);
	return 0;
}
