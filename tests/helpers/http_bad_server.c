/* SPDX-License-Identifier: MIT */
/*
 * A scripted HTTP/1.1 server for tests/cli/fetch.sh: each path answers in
 * one particular way, good or bad, so that `engpass fetch` can be tested
 * against every case without python or a real server:
 *
 *   /data       the content, honouring "Range: bytes=A-B" (206), keep-alive
 *   /close3     like /data, but closes after every 3rd response without
 *               saying so (no "Connection: close"): requests in flight are lost
 *   /norange    ignores Range: 200 with the whole content
 *   /chunked    ignores Range: 200, Transfer-Encoding: chunked, odd chunk sizes
 *   /eof        ignores Range: 200 without a length, the body ends with the connection
 *   /badrange   206 with a Content-Range one byte off from what was asked
 *   /truncated  the head of the whole content, half the body, then a close
 *   /reset      the head, 1000 body bytes, then a reset (SO_LINGER 0)
 *   /bigheader  a 70 KiB header field, then the content
 *   /redirect   302 to /r2, which 301s to http://127.0.0.1:PORT/r3, which
 *               307s to the relative "data"
 *   /loop       302 to itself
 *   /tls        302 to https://127.0.0.1/x
 *   /slow       never answers
 *   /drip       a valid head with Content-Length: 100, then one body byte
 *               a second (it stops by itself after DRIP_MAX_S seconds,
 *               and closes, the body then truncated)
 *   /long       Content-Length: 1000, then 2000 body bytes
 *   anything else: 404
 *
 * Usage: http_bad_server PORTFILE CONTENTFILE. Listens on 127.0.0.1 on a
 * port of the kernel's choosing, writes the port number to PORTFILE and
 * the content (CONTENT_SIZE bytes of a fixed pattern) to CONTENTFILE,
 * then serves each connection in a child process. It exits by itself after
 * LIFETIME_S seconds, so a test that forgets it cannot leave it behind.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define CONTENT_SIZE 300007
#define LIFETIME_S 120
#define IO_TIMEOUT_S 20
/* /drip: the announced body, and how long it drips at most. */
#define DRIP_LENGTH 100
#define DRIP_MAX_S 30

static char content[CONTENT_SIZE];
static unsigned port;

static void die(const char *what)
{
	fprintf(stderr, "http_bad_server: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Writes all of P, or exits the connection's child. */
static void put(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(0);
		c += w;
		n -= (size_t)w;
	}
}

static void putf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(int fd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(fd, buf, (size_t)n);
}

/* Parses "Range: bytes=A-B" or "bytes=A-" out of request head REQ. */
static bool get_range(const char *req, unsigned long *a, unsigned long *b)
{
	const char *r = strcasestr(req, "\r\nrange: bytes=");
	char *end;

	if (!r)
		return false;
	r += strlen("\r\nrange: bytes=");
	*a = strtoul(r, &end, 10);
	if (*end != '-')
		return false;
	*b = end[1] >= '0' && end[1] <= '9' ? strtoul(end + 1, NULL, 10) : CONTENT_SIZE - 1;
	if (*b >= CONTENT_SIZE)
		*b = CONTENT_SIZE - 1;
	return true;
}

static void whole(int fd, const char *extra)
{
	putf(fd, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n", CONTENT_SIZE);
	put(fd, extra, strlen(extra));
	put(fd, "\r\n", 2);
	put(fd, content, CONTENT_SIZE);
}

static void redirect(int fd, unsigned code, const char *loc)
{
	putf(fd, "HTTP/1.1 %u Moved\r\nLocation: %s\r\nContent-Length: 5\r\n\r\nmoved", code, loc);
}

/* Answers one request head; returns false when the connection is to end. */
static bool answer(int fd, const char *req, unsigned *served)
{
	char path[256] = "";
	unsigned long a = 0, b = 0;
	bool ranged;

	if (sscanf(req, "GET %255s HTTP/1.1", path) != 1)
		return false;
	ranged = get_range(req, &a, &b);
	(*served)++;
	if (!strcmp(path, "/data") || !strcmp(path, "/close3")) {
		if (!ranged) {
			whole(fd, "");
		} else if (a > b) {
			putf(fd, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */%d\r\n"
				 "Content-Length: 0\r\n\r\n", CONTENT_SIZE);
		} else {
			putf(fd, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %lu-%lu/%d\r\n"
				 "Content-Length: %lu\r\n\r\n", a, b, CONTENT_SIZE, b - a + 1);
			put(fd, content + a, b - a + 1);
		}
		return strcmp(path, "/close3") || *served % 3;
	}
	if (!strcmp(path, "/norange")) {
		whole(fd, "");
		return true;
	}
	if (!strcmp(path, "/chunked")) {
		static const size_t sizes[] = { 1, 4095, 8192, 77777, 3, 60000 };
		size_t off = 0;

		putf(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
		for (unsigned i = 0; off < CONTENT_SIZE; i++) {
			size_t n = sizes[i % 6];

			if (n > CONTENT_SIZE - off)
				n = CONTENT_SIZE - off;
			putf(fd, "%zx%s\r\n", n, i == 2 ? ";ext=1" : "");
			put(fd, content + off, n);
			put(fd, "\r\n", 2);
			off += n;
		}
		putf(fd, "0\r\nX-Trailer: yes\r\n\r\n");
		return true;
	}
	if (!strcmp(path, "/eof")) {
		putf(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
		put(fd, content, CONTENT_SIZE);
		return false;
	}
	if (!strcmp(path, "/badrange")) {
		if (!ranged)
			b = 999;
		if (b + 1 >= CONTENT_SIZE)
			b = CONTENT_SIZE - 2;
		putf(fd, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %lu-%lu/%d\r\n"
			 "Content-Length: %lu\r\n\r\n", a + 1, b + 1, CONTENT_SIZE, b - a + 1);
		put(fd, content + a + 1, b - a + 1);
		return true;
	}
	if (!strcmp(path, "/truncated")) {
		putf(fd, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", CONTENT_SIZE);
		put(fd, content, CONTENT_SIZE / 2);
		return false;
	}
	if (!strcmp(path, "/reset")) {
		struct linger l = { .l_onoff = 1, .l_linger = 0 };

		putf(fd, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", CONTENT_SIZE);
		put(fd, content, 1000);
		usleep(100000);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		return false;
	}
	if (!strcmp(path, "/bigheader")) {
		static char pad[70 * 1024 + 16];

		memcpy(pad, "X-Pad: ", 7);
		memset(pad + 7, 'a', 70 * 1024);
		memcpy(pad + 7 + 70 * 1024, "\r\n", 3);
		whole(fd, pad);
		return true;
	}
	if (!strcmp(path, "/redirect")) {
		redirect(fd, 302, "/r2");
		return true;
	}
	if (!strcmp(path, "/r2")) {
		char loc[64];

		snprintf(loc, sizeof(loc), "http://127.0.0.1:%u/r3", port);
		redirect(fd, 301, loc);
		return true;
	}
	if (!strcmp(path, "/r3")) {
		redirect(fd, 307, "data");
		return true;
	}
	if (!strcmp(path, "/loop")) {
		redirect(fd, 302, "/loop");
		return true;
	}
	if (!strcmp(path, "/tls")) {
		redirect(fd, 302, "https://127.0.0.1/x");
		return true;
	}
	if (!strcmp(path, "/slow")) {
		char sink[4096];

		while (read(fd, sink, sizeof(sink)) > 0)
			;
		return false;
	}
	if (!strcmp(path, "/drip")) {
		putf(fd, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", DRIP_LENGTH);
		for (unsigned i = 0; i < DRIP_MAX_S && i < DRIP_LENGTH; i++) {
			put(fd, content + i, 1);
			sleep(1);
		}
		return false;
	}
	if (!strcmp(path, "/long")) {
		static char buf[2100];
		int h = snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");

		/* One write: the excess arrives with the body. */
		memcpy(buf + h, content, 2000);
		put(fd, buf, (size_t)h + 2000);
		return true;
	}
	putf(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
	return true;
}

/* Serves one connection: request heads in order, pipelined or not. */
static void serve(int fd)
{
	static char buf[64 * 1024];
	size_t have = 0;
	unsigned served = 0;
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (;;) {
		char *end;
		ssize_t n;

		buf[have] = 0;
		while ((end = strstr(buf, "\r\n\r\n"))) {
			size_t len = (size_t)(end + 4 - buf);

			end[2] = 0;
			if (!answer(fd, buf, &served))
				return;
			memmove(buf, buf + len, have - len);
			have -= len;
			buf[have] = 0;
		}
		if (have == sizeof(buf) - 1)
			return;
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			return;
		have += (size_t)n;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char tmp[4096];
	FILE *f;
	int s, one = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: http_bad_server PORTFILE CONTENTFILE\n");
		return 2;
	}
	for (size_t i = 0; i < CONTENT_SIZE; i++)
		content[i] = (char)((i * 7 + i / 251) & 0xff);
	f = fopen(argv[2], "w");
	if (!f || fwrite(content, 1, CONTENT_SIZE, f) != CONTENT_SIZE || fclose(f))
		die(argv[2]);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &sl) < 0)
		die("listen");
	port = ntohs(sa.sin_port);
	/* The port file appears whole: written beside, then renamed. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) || rename(tmp, argv[1]))
		die(argv[1]);
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	alarm(LIFETIME_S);
	for (;;) {
		int c = accept(s, NULL, NULL);
		pid_t pid;

		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		pid = fork();
		if (pid == 0) {
			close(s);
			alarm(LIFETIME_S);
			serve(c);
			close(c);
			_exit(0);
		}
		close(c);
	}
}
