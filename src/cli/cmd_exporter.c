/* SPDX-License-Identifier: MIT */
/*
 * `engpass exporter [--listen 127.0.0.1:9808] [--db PATH]`: serves the
 * newest stored result of each benchmark at /metrics in Prometheus text
 * format, for fleets (seed 004's supernodes) whose Prometheus scrapes
 * every node.
 *
 * The HTTP side is deliberately tiny and treats the network as hostile.
 * One poll() loop serves the listening socket and up to --max-connections
 * non-blocking connections at once, so no peer can hold the others up:
 *
 *  - the request head must arrive within --header-timeout (5 s) and fit in
 *    8 KiB (else 431); a peer that is late is dropped without an answer;
 *  - the whole exchange, head and response, ends within --request-timeout
 *    (10 s): a peer that stops reading its response is reset;
 *  - when every slot is taken, a new connection takes the slot of the
 *    oldest one still sending its head (slow and idle peers go first, a
 *    scrape gets in); when none is, new ones wait in the backlog;
 *  - the response is written as the peer drains it, in pieces.
 *
 * Only GET (or HEAD) of /metrics and / are answered, and every response
 * closes the connection. The history is read afresh for a scrape (one
 * read of the newest runs; the body rendered then also answers the
 * requests of the next second), so new runs show up without a restart.
 * SIGINT or SIGTERM ends it with status 0, after one line of counts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "lib/units.h"
#include "core/base/clock.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

#define HEAD_MAX 8192
#define BACKLOG 128
/* Descriptors beyond the connections: stdio, the listener, the history. */
#define FD_RESERVE 16
/* At most this many accepts per turn of the loop, so reads keep their turn. */
#define ACCEPT_BURST 64
/*
 * A rendered /metrics body serves the requests of the next second too, so
 * a burst of requests reads and renders the history once.
 */
#define BODY_REUSE_NS (1 * NS_PER_SEC)
/* How long the listener rests after accept() ran out of descriptors. */
#define ACCEPT_REST_NS (100 * NS_PER_MS)

#define DEFAULT_MAX_CONNECTIONS 64
#define DEFAULT_HEADER_TIMEOUT_NS (5 * NS_PER_SEC)
#define DEFAULT_REQUEST_TIMEOUT_NS (10 * NS_PER_SEC)

struct exporter_opts {
	const char *listen;
	const char *db;
	int64_t max_connections;
	uint64_t header_timeout_ns;
	uint64_t request_timeout_ns;
	bool help;
};

const struct opt exporter_options[] = {
	OPT_STRING("listen", 0, struct exporter_opts, listen, "ADDR:PORT",
		   "address to serve on (default 127.0.0.1:9808; [::1]:9808 for IPv6)"),
	OPT_STRING("db", 0, struct exporter_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_INT("max-connections", 0, struct exporter_opts, max_connections, 1, 4096, "N",
		"open at once; when full, the oldest still sending its head makes room (default 64)"),
	OPT_DURATION("header-timeout", 0, struct exporter_opts, header_timeout_ns, 10 * NS_PER_MS,
		     3600 * NS_PER_SEC, "drop a peer whose request head is not in by then (default 5s)"),
	OPT_DURATION("request-timeout", 0, struct exporter_opts, request_timeout_ns, 10 * NS_PER_MS,
		     3600 * NS_PER_SEC, "reset a peer whose whole exchange takes longer (default 10s)"),
	OPT_FLAG("help", 'h', struct exporter_opts, help, "show this help"),
	OPT_END,
};

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	stopping = sig;
}

/* Parses "ADDR:PORT" or "[ADDR6]:PORT" into SS. Returns 0 or -EINVAL. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *colon;
	int64_t port;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':' || (size_t)(end - s - 1) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(end - s - 1), s + 1);
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	}
	if (units_parse_int64(colon + 1, 1, 65535, &port))
		return -EINVAL;
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
	}
	return 0;
}

/*
 * The metrics body: the newest run of each benchmark, rebuilt from its
 * stored document, rendered together. Caller frees. On failure returns
 * NULL with ERR filled.
 */
static char *metrics_body(const char *db, char *err, size_t errlen)
{
	struct history *h;
	struct run *all;
	int64_t *ids;
	size_t n, len = 0;
	char *body = NULL;
	FILE *f;

	if (history_open(&h, db, false, err, errlen) < 0)
		return NULL;
	if (history_latest(h, &ids, &n, err, errlen) < 0) {
		history_close(h);
		return NULL;
	}
	all = xcalloc(1, sizeof(*all));
	all->tool_version = xstrdup(ENGPASS_VERSION);
	all->host = xstrdup("?");
	all->command = xstrdup("exporter");
	all->time_ns = 0;	/* the newest run's start, below: not the scrape's time */
	for (size_t i = 0; i < n; i++) {
		char *doc;
		struct run *run;

		if (history_document(h, ids[i], &doc, err, errlen) < 0)
			continue;
		if (run_from_json(doc, &run, err, errlen) == 0) {
			free(all->host);
			all->host = xstrdup(run->host);
			if (run->time_ns > all->time_ns)
				all->time_ns = run->time_ns;
			for (size_t r = 0; r < run->nresults; r++)
				run_add(all, run->results[r]);
			run->nresults = 0;
			run_free(run);
		}
		free(doc);
	}
	free(ids);
	history_close(h);
	f = open_memstream(&body, &len);
	render_prom(f, all);
	fclose(f);
	run_free(all);
	return body;
}

enum conn_state {
	CONN_FREE,	/* the slot is free */
	CONN_HEAD,	/* reading the request head */
	CONN_REPLY,	/* writing the response */
};

/* One connection: its socket, its deadlines and its head or its response. */
struct conn {
	int fd;
	enum conn_state state;
	mono_ns since;		/* when it was accepted: the oldest is evicted first */
	mono_ns head_deadline;	/* the head must have arrived by then */
	mono_ns deadline;	/* the response must have gone by then */
	char *head;		/* HEAD_MAX + 1 bytes while reading the head */
	size_t len;		/* bytes of the head read so far */
	char *out;		/* the whole response while writing it */
	size_t out_len, out_off;
};

/* What happened to the connections, printed when the exporter stops. */
struct exporter_counts {
	uint64_t accepted, answered, head_late, reply_late, evicted, lost;
};

/* The server: its listener, its limits and its connection slots. */
struct exporter {
	int lfd;
	const char *db;
	uint64_t header_timeout_ns, request_timeout_ns;
	size_t max;			/* slots in conns */
	size_t nopen;			/* slots taken */
	struct conn *conns;
	struct pollfd *pfd;		/* [0] the listener, [1 + i] conns[i] */
	mono_ns listen_rest_until;	/* accept() ran out of descriptors */
	char *body;			/* the newest /metrics body, or NULL */
	mono_ns body_at;		/* when it was rendered */
	struct exporter_counts n;
};

/*
 * Closes C and frees its slot. RESET aborts the connection (SO_LINGER 0):
 * whatever of the response the peer has not taken is dropped at once
 * instead of lingering in the kernel for a peer that does not read.
 */
static void conn_close(struct exporter *ex, struct conn *c, bool reset)
{
	if (reset) {
		struct linger l = { 1, 0 };

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	close(c->fd);
	free(c->head);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->state = CONN_FREE;
	ex->nopen--;
}

/*
 * Writes what the socket of C takes of the response; closes C when all of
 * it went or the peer is gone. Returns without waiting when the socket
 * buffer is full: the loop calls again when the peer has drained it.
 */
static void conn_flush(struct exporter *ex, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			ex->n.lost++;
			conn_close(ex, c, true);	/* the peer went away */
			return;
		}
		c->out_off += (size_t)n;
	}
	ex->n.answered++;
	conn_close(ex, c, false);
}

/* Turns C into a reply: the status line, the headers and (unless HEAD) BODY. */
static void conn_reply(struct exporter *ex, struct conn *c, int code, const char *reason, const char *type,
		       const char *body, bool head_only)
{
	c->out = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			   "Connection: close\r\n\r\n%s", code, reason, type, strlen(body),
			   head_only ? "" : body);
	c->out_len = strlen(c->out);
	c->out_off = 0;
	free(c->head);
	c->head = NULL;
	c->state = CONN_REPLY;
	conn_flush(ex, c);
}

/*
 * The /metrics body: the one rendered less than BODY_REUSE_NS ago, else a
 * new one. It belongs to EX. On failure returns NULL with ERR filled.
 */
static const char *exporter_body(struct exporter *ex, char *err, size_t errlen)
{
	mono_ns now = clock_mono();
	char *body;

	if (ex->body && now - ex->body_at < BODY_REUSE_NS)
		return ex->body;
	body = metrics_body(ex->db, err, errlen);
	if (!body)
		return NULL;
	free(ex->body);
	ex->body = body;
	ex->body_at = now;
	return body;
}

/*
 * The next token of *P, blanks before it skipped, into BUF (cut to LEN - 1
 * bytes, as sscanf's "%15s" would). Returns false when there is none.
 */
static bool head_token(const char **p, char *buf, size_t len)
{
	static const char blank[] = " \t\r\n\v\f";
	size_t n;

	*p += strspn(*p, blank);
	n = strcspn(*p, blank);
	if (!n)
		return false;
	snprintf(buf, len, "%.*s", (int)n, *p);
	*p += n;
	return true;
}

/* Answers the complete request head of C. */
static void conn_answer(struct exporter *ex, struct conn *c)
{
	char method[16], path[256], err[256] = "";
	const char *p = c->head;
	bool head_only;

	c->head[c->len] = 0;
	if (!head_token(&p, method, sizeof(method)) || !head_token(&p, path, sizeof(path))) {
		conn_reply(ex, c, 400, "Bad Request", "text/plain", "bad request\n", false);
		return;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		conn_reply(ex, c, 405, "Method Not Allowed", "text/plain", "only GET\n", false);
		return;
	}
	head_only = !strcmp(method, "HEAD");
	if (!strcmp(path, "/metrics")) {
		const char *body = exporter_body(ex, err, sizeof(err));

		if (body) {
			conn_reply(ex, c, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", body, head_only);
		} else {
			char *msg = xasprintf("history unavailable: %s\n", err);

			conn_reply(ex, c, 503, "Service Unavailable", "text/plain", msg, head_only);
			free(msg);
		}
	} else if (!strcmp(path, "/")) {
		conn_reply(ex, c, 200, "OK", "text/html",
			   "<html><body><a href=\"/metrics\">engpass metrics</a></body></html>\n", head_only);
	} else {
		conn_reply(ex, c, 404, "Not Found", "text/plain", "not found\n", false);
	}
}

/* True when the head read so far ends with its blank line. */
static bool head_complete(const struct conn *c)
{
	return memmem(c->head, c->len, "\r\n\r\n", 4) || memmem(c->head, c->len, "\n\n", 2);
}

/*
 * Reads what has arrived of the head of C, without waiting; answers it
 * once it is complete, or 431 once it fills HEAD_MAX without ending. A
 * peer that closes or fails before that is dropped.
 */
static void conn_read(struct exporter *ex, struct conn *c)
{
	while (!head_complete(c)) {
		ssize_t n;

		if (c->len == HEAD_MAX) {
			conn_reply(ex, c, 431, "Request Header Fields Too Large", "text/plain",
				   "request head too large\n", false);
			return;
		}
		n = recv(c->fd, c->head + c->len, HEAD_MAX - c->len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			ex->n.lost++;
			conn_close(ex, c, false);
			return;
		}
		c->len += (size_t)n;
	}
	conn_answer(ex, c);
}

/*
 * Closes the connections past their deadline at NOW: a head that has not
 * arrived is dropped, a response the peer has not taken is reset. Returns
 * the earliest deadline still ahead (NOW + 1 s when there is none).
 */
static mono_ns expire(struct exporter *ex, mono_ns now)
{
	mono_ns next = now + NS_PER_SEC;

	for (size_t i = 0; i < ex->max; i++) {
		struct conn *c = &ex->conns[i];
		mono_ns d;

		if (c->state == CONN_FREE)
			continue;
		d = c->state == CONN_HEAD ? c->head_deadline : c->deadline;
		if (now >= d) {
			if (c->state == CONN_HEAD)
				ex->n.head_late++;
			else
				ex->n.reply_late++;
			conn_close(ex, c, c->state == CONN_REPLY);
		} else if (d < next) {
			next = d;
		}
	}
	return next;
}

/* The connection still sending its head that came first, or NULL. */
static struct conn *oldest_head(struct exporter *ex)
{
	struct conn *old = NULL;

	for (size_t i = 0; i < ex->max; i++) {
		struct conn *c = &ex->conns[i];

		if (c->state == CONN_HEAD && (!old || c->since < old->since))
			old = c;
	}
	return old;
}

/* A free slot, or NULL when all are taken. */
static struct conn *free_slot(struct exporter *ex)
{
	for (size_t i = 0; i < ex->max; i++)
		if (ex->conns[i].state == CONN_FREE)
			return &ex->conns[i];
	return NULL;
}

/*
 * Accepts the connections waiting on the listener (at most ACCEPT_BURST),
 * each into a free slot or, when all are taken, into the slot of the
 * oldest connection still sending its head. Stops when none waits or no
 * slot can be had.
 */
static void accept_some(struct exporter *ex, mono_ns now)
{
	uint64_t head_ns = ex->header_timeout_ns < ex->request_timeout_ns ?
			   ex->header_timeout_ns : ex->request_timeout_ns;

	for (int k = 0; k < ACCEPT_BURST; k++) {
		struct conn *c;
		int fd;

		if (ex->nopen == ex->max && !oldest_head(ex))
			return;	/* every slot is answering: the backlog waits */
		fd = accept4(ex->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				ex->listen_rest_until = now + ACCEPT_REST_NS;
			return;	/* EAGAIN, or a connection that went away first */
		}
		c = free_slot(ex);
		if (!c) {
			c = oldest_head(ex);
			ex->n.evicted++;
			conn_close(ex, c, false);
		}
		c->fd = fd;
		c->state = CONN_HEAD;
		c->since = now;
		c->head_deadline = now + head_ns;
		c->deadline = now + ex->request_timeout_ns;
		c->head = xmalloc(HEAD_MAX + 1);
		c->len = 0;
		ex->nopen++;
		ex->n.accepted++;
	}
}

/*
 * The loop: expire what is late, poll the listener (while a slot can be
 * had) and every connection (for its head or for room for its response),
 * serve what is ready. Ends when a signal sets `stopping`.
 */
static void serve_loop(struct exporter *ex)
{
	while (!stopping) {
		mono_ns now = clock_mono();
		mono_ns next = expire(ex, now);
		bool listening = now >= ex->listen_rest_until && (ex->nopen < ex->max || oldest_head(ex));
		int timeout_ms, n;

		if (!listening && ex->listen_rest_until > now && ex->listen_rest_until < next)
			next = ex->listen_rest_until;
		timeout_ms = (int)((next - now + NS_PER_MS - 1) / NS_PER_MS);
		ex->pfd[0].fd = listening ? ex->lfd : -1;
		ex->pfd[0].events = POLLIN;
		for (size_t i = 0; i < ex->max; i++) {
			struct conn *c = &ex->conns[i];

			ex->pfd[1 + i].fd = c->fd;
			ex->pfd[1 + i].events = c->state == CONN_REPLY ? POLLOUT : POLLIN;
			ex->pfd[1 + i].revents = 0;
		}
		n = poll(ex->pfd, ex->max + 1, timeout_ms);
		if (n <= 0)
			continue;	/* a deadline, or EINTR from a signal */
		now = clock_mono();
		for (size_t i = 0; i < ex->max; i++) {
			struct conn *c = &ex->conns[i];

			if (!ex->pfd[1 + i].revents || c->state == CONN_FREE)
				continue;
			if (c->state == CONN_HEAD)
				conn_read(ex, c);
			else
				conn_flush(ex, c);
		}
		if (ex->pfd[0].revents & POLLIN)
			accept_some(ex, now);
	}
}

/*
 * Makes room for MAX connections under RLIMIT_NOFILE, raising the soft
 * limit up to the hard one if needed. Returns 0, or -EMFILE with *LIMIT
 * set to the hard limit when it is too low.
 */
static int reserve_fds(size_t max, rlim_t *limit)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)max + FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return 0;
	*limit = rl.rlim_max;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return -EMFILE;
	rl.rlim_cur = need;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -EMFILE : 0;
}

int cmd_exporter(int argc, char **argv)
{
	struct exporter_opts o = {
		.listen = "127.0.0.1:9808",
		.max_connections = DEFAULT_MAX_CONNECTIONS,
		.header_timeout_ns = DEFAULT_HEADER_TIMEOUT_NS,
		.request_timeout_ns = DEFAULT_REQUEST_TIMEOUT_NS,
	};
	struct opt_group g = { exporter_options, &o };
	struct opt_seen seen;
	struct sockaddr_storage ss;
	struct exporter ex;
	socklen_t sslen;
	struct sigaction sa;
	char err[256], *pos[1], *db;
	char hbuf[UNITS_FMT_LEN], rbuf[UNITS_FMT_LEN];
	size_t npos;
	rlim_t limit = 0;
	int fd, one = 1;

	if (opt_parse(argc, argv, &g, 1, 1, pos, 0, &npos, &seen, err, sizeof(err)))
		return usage_error("exporter", "%s", err);
	if (o.help) {
		printf("usage: engpass exporter [--listen ADDR:PORT] [--db PATH] [--max-connections N]\n"
		       "                        [--header-timeout DURATION] [--request-timeout DURATION]\n\n"
		       "Serves the newest stored result of each benchmark at /metrics in Prometheus text\n"
		       "format (see docs/prometheus.md). Runs until SIGINT or SIGTERM.\n"
		       "Connections are served concurrently within the limits below (docs/security.md).\n\n"
		       "options:\n");
		opt_help(stdout, exporter_options);
		return EXIT_OK;
	}
	if (parse_listen(o.listen, &ss, &sslen))
		return usage_error("exporter", "option '--listen': '%s' is not ADDR:PORT", o.listen);
	if (reserve_fds((size_t)o.max_connections, &limit))
		return usage_error("exporter", "option '--max-connections': %lld connections need %llu open files, "
				   "the limit is %llu (ulimit -n)", (long long)o.max_connections,
				   (unsigned long long)o.max_connections + FD_RESERVE, (unsigned long long)limit);
	db = o.db ? xstrdup(o.db) : history_default_path();
	if (!db)
		return usage_error("exporter", "neither XDG_DATA_HOME nor HOME is set; use --db PATH");
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, sslen) < 0 || listen(fd, BACKLOG) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(db);
		return usage_error("exporter", "cannot listen on '%s': %s", o.listen, strerror(e));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	memset(&ex, 0, sizeof(ex));
	ex.lfd = fd;
	ex.db = db;
	ex.header_timeout_ns = o.header_timeout_ns;
	ex.request_timeout_ns = o.request_timeout_ns;
	ex.max = (size_t)o.max_connections;
	ex.conns = xcalloc(ex.max, sizeof(*ex.conns));
	ex.pfd = xcalloc(ex.max + 1, sizeof(*ex.pfd));
	for (size_t i = 0; i < ex.max; i++)
		ex.conns[i].fd = -1;

	fprintf(stderr, "engpass exporter: serving http://%s/metrics from '%s' (at most %zu connections, "
		"head within %s, exchange within %s)\n", o.listen, db, ex.max,
		units_fmt_duration(hbuf, sizeof(hbuf), o.header_timeout_ns),
		units_fmt_duration(rbuf, sizeof(rbuf), o.request_timeout_ns));
	serve_loop(&ex);
	fprintf(stderr, "engpass exporter: stopped: %llu connections, %llu answered, %llu dropped at the head "
		"deadline, %llu reset at the exchange deadline, %llu evicted for a new one, %llu lost\n",
		(unsigned long long)ex.n.accepted, (unsigned long long)ex.n.answered,
		(unsigned long long)ex.n.head_late, (unsigned long long)ex.n.reply_late,
		(unsigned long long)ex.n.evicted, (unsigned long long)ex.n.lost);
	for (size_t i = 0; i < ex.max; i++)
		if (ex.conns[i].state != CONN_FREE)
			conn_close(&ex, &ex.conns[i], false);
	free(ex.conns);
	free(ex.pfd);
	free(ex.body);
	close(fd);
	free(db);
	return EXIT_OK;
}
