/* SPDX-License-Identifier: MIT */
/*
 * Hostile HTTP clients for tests/cli/exporter_slowloris.sh: opens N
 * connections to 127.0.0.1:PORT, misbehaves on each in one way and
 * watches when the server closes them, so that a test can hold a server
 * under attack without python:
 *
 *   partial   sends "GET /metr" (half a request line) and waits
 *   drip      sends "GET /metrics HTTP/1.1\r\nX-Drip: " and then one more
 *             byte every 200 ms, forever (the head never ends)
 *   stall     sends a whole request with a 4 KiB receive buffer and never
 *             reads the answer
 *   slow      sends a whole request and reads the answer 128 KiB every
 *             10 ms
 *
 * Usage: tcp_hold MODE PORT N SECONDS. Prints "held N" once all N are
 * connected and have sent, then watches them for at most SECONDS and
 * prints, one per line, what it saw:
 *
 *   closed C        connections the server ended (FIN or reset)
 *   reset R         of them, by a reset
 *   early E         of them, within 500 ms of being opened (evicted)
 *   first S, last S seconds from opening to the server's end, of the
 *                   first and of the last one the server ended
 *   open O          connections still open when it stopped watching
 *   bytes B         (slow) answer bytes read over all connections
 *   complete K      (slow) answers whose body had its Content-Length
 *
 * It exits 0 when it could connect all N, 1 otherwise. Its connections
 * close when it exits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define RCVBUF 4096
#define SLOW_CHUNK 131072
#define SLOW_PAUSE_MS 10
#define DRIP_PAUSE_MS 200
#define EARLY_S 0.5

enum mode { PARTIAL, DRIP, STALL, SLOW };

/* One connection and what was seen of it. */
struct peer {
	int fd;
	double opened;		/* seconds, monotonic */
	double ended;		/* when the server ended it; 0 while open */
	bool reset;
	char *answer;		/* slow: the answer read so far */
	size_t len, cap;
};

/* Monotonic seconds. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes all of BUF to FD (blocking). Returns 0 or -1. */
static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Connects to 127.0.0.1:PORT, with a small receive buffer when SMALL. */
static int dial(int port, bool small)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), sz = RCVBUF;

	if (fd < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (small)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Marks P ended by the server at T. */
static void ended(struct peer *p, double t, bool reset)
{
	p->ended = t;
	p->reset = reset;
}

/*
 * Looks at P after poll() said REVENTS: reads (slow) or checks whether
 * the server ended it. Never reads in stall mode: a reset shows as
 * POLLHUP/POLLERR, the end of a complete answer as POLLRDHUP.
 */
static void look(struct peer *p, enum mode m, short revents, double t)
{
	char buf[4096];
	ssize_t n;

	if (m == STALL) {
		if (revents & (POLLHUP | POLLERR))
			ended(p, t, true);
		else if (revents & POLLRDHUP)
			ended(p, t, false);
		return;
	}
	if (m == SLOW) {
		if (p->cap - p->len < SLOW_CHUNK) {
			p->cap = p->cap * 2 + SLOW_CHUNK;
			p->answer = realloc(p->answer, p->cap + 1);
			if (!p->answer)
				exit(1);
		}
		n = recv(p->fd, p->answer + p->len, SLOW_CHUNK, MSG_DONTWAIT);
		if (n > 0) {
			p->len += (size_t)n;
			return;
		}
	} else {
		n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			return;	/* an answer to a head that never ends: ignore */
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	ended(p, t, n < 0);
}

/* True when ANSWER holds a head with a Content-Length and that many body bytes. */
static bool complete(const char *answer, size_t len)
{
	const char *end, *cl;
	unsigned long long want;

	if (!answer)
		return false;
	end = memmem(answer, len, "\r\n\r\n", 4);
	cl = memmem(answer, len, "Content-Length: ", 16);
	if (!end || !cl || cl > end || sscanf(cl + 16, "%llu", &want) != 1)
		return false;
	return (size_t)(end + 4 - answer) + want == len;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "partial", "drip", "stall", "slow" };
	const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct peer *peers;
	struct pollfd *pfd;
	enum mode m = PARTIAL;
	int port, n, open, closed = 0, resets = 0, early = 0, full = 0;
	double secs, start, first = 0, last = 0, next_drip;
	unsigned long long bytes = 0;
	bool found = false;

	if (argc != 5) {
		fprintf(stderr, "usage: tcp_hold partial|drip|stall|slow PORT N SECONDS\n");
		return 2;
	}
	for (int i = 0; i < 4; i++)
		if (!strcmp(argv[1], names[i])) {
			m = (enum mode)i;
			found = true;
		}
	port = atoi(argv[2]);
	n = atoi(argv[3]);
	secs = atof(argv[4]);
	if (!found || port <= 0 || n <= 0 || n > 10000 || secs <= 0) {
		fprintf(stderr, "tcp_hold: bad arguments\n");
		return 2;
	}
	peers = calloc((size_t)n, sizeof(*peers));
	pfd = calloc((size_t)n, sizeof(*pfd));
	if (!peers || !pfd)
		return 1;
	for (int i = 0; i < n; i++) {
		struct peer *p = &peers[i];
		int rc;

		p->fd = dial(port, m == STALL);
		if (p->fd < 0) {
			fprintf(stderr, "tcp_hold: connection %d: %s\n", i + 1, strerror(errno));
			return 1;
		}
		p->opened = now_s();
		if (m == PARTIAL)
			rc = send_all(p->fd, "GET /metr", 9);
		else if (m == DRIP)
			rc = send_all(p->fd, "GET /metrics HTTP/1.1\r\nX-Drip: ", 31);
		else
			rc = send_all(p->fd, req, strlen(req));
		if (rc < 0)
			ended(p, now_s(), true);	/* already gone: evicted at once */
	}
	printf("held %d\n", n);
	fflush(stdout);
	start = now_s();
	next_drip = start + DRIP_PAUSE_MS / 1000.0;
	for (;;) {
		double t = now_s();
		int wait_ms = m == SLOW ? SLOW_PAUSE_MS : 50;

		open = 0;
		for (int i = 0; i < n; i++) {
			pfd[i].fd = peers[i].ended ? -1 : peers[i].fd;
			pfd[i].events = m == STALL ? POLLRDHUP : POLLIN;
			pfd[i].revents = 0;
			open += !peers[i].ended;
		}
		if (!open || t - start >= secs)
			break;
		if (m == DRIP && t >= next_drip) {
			for (int i = 0; i < n; i++)
				if (!peers[i].ended && send(peers[i].fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
				    errno != EAGAIN)
					ended(&peers[i], t, true);
			next_drip += DRIP_PAUSE_MS / 1000.0;
		}
		if (poll(pfd, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
			return 1;
		t = now_s();
		for (int i = 0; i < n; i++)
			if (pfd[i].revents && !peers[i].ended)
				look(&peers[i], m, pfd[i].revents, t);
		if (m == SLOW)
			usleep(SLOW_PAUSE_MS * 1000);
	}
	for (int i = 0; i < n; i++) {
		struct peer *p = &peers[i];

		bytes += p->len;
		full += complete(p->answer, p->len);
		if (!p->ended)
			continue;
		closed++;
		resets += p->reset;
		early += p->ended - p->opened < EARLY_S;
		if (closed == 1 || p->ended - p->opened < first)
			first = p->ended - p->opened;
		if (p->ended - p->opened > last)
			last = p->ended - p->opened;
	}
	printf("closed %d\nreset %d\nearly %d\nfirst %.3f\nlast %.3f\nopen %d\n", closed, resets, early, first,
	       last, n - closed);
	if (m == SLOW)
		printf("bytes %llu\ncomplete %d\n", bytes, full);
	/*
	 * Flushed and freed before returning: under LeakSanitizer a leak
	 * ends the process with _exit(), which would drop the buffered report.
	 */
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (peers[i].fd >= 0)
			close(peers[i].fd);
		free(peers[i].answer);
	}
	free(peers);
	free(pfd);
	return 0;
}
