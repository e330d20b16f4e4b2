/* SPDX-License-Identifier: MIT */
/*
 * `engpass exporter [--listen 127.0.0.1:9808] [--db PATH]`: serves the
 * newest stored result of each benchmark at /metrics in Prometheus text
 * format, for fleets (seed 004's supernodes) whose Prometheus scrapes
 * every node.
 *
 * The HTTP side is deliberately tiny and treats the network as hostile:
 * one connection at a time, a 5 s deadline to send the request head, the
 * head bounded to 8 KiB, only GET (or HEAD) of /metrics and / answered,
 * every response closes the connection. The history is read afresh for
 * every scrape, so new runs show up without a restart. SIGINT or SIGTERM
 * ends it with status 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "lib/units.h"
#include "core/clock.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

#define HEAD_MAX 8192
#define HEAD_TIMEOUT_MS 5000

struct exporter_opts {
	const char *listen;
	const char *db;
	bool help;
};

static const struct opt exporter_options[] = {
	OPT_STRING("listen", 0, struct exporter_opts, listen, "ADDR:PORT",
		   "address to serve on (default 127.0.0.1:9808; [::1]:9808 for IPv6)"),
	OPT_STRING("db", 0, struct exporter_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
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

/* Writes all of BUF, giving up on error (the client went away). */
static void send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void respond(int fd, int code, const char *reason, const char *type, const char *body, bool head_only)
{
	char *hdr = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			      "Connection: close\r\n\r\n", code, reason, type, strlen(body));

	send_all(fd, hdr, strlen(hdr));
	if (!head_only)
		send_all(fd, body, strlen(body));
	free(hdr);
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
	all->time_ns = clock_wall_ns();
	for (size_t i = 0; i < n; i++) {
		char *doc;
		struct run *run;

		if (history_document(h, ids[i], &doc, err, errlen) < 0)
			continue;
		if (run_from_json(doc, &run, err, errlen) == 0) {
			free(all->host);
			all->host = xstrdup(run->host);
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

/* Serves one connection: reads the head (bounded, with a deadline) and answers. */
static void serve(int fd, const char *db)
{
	char head[HEAD_MAX + 1], method[16], path[256], err[256] = "";
	size_t len = 0;
	mono_ns deadline = clock_mono() + (mono_ns)HEAD_TIMEOUT_MS * NS_PER_MS;

	while (!memmem(head, len, "\r\n\r\n", 4) && !memmem(head, len, "\n\n", 2)) {
		struct pollfd p = { fd, POLLIN, 0 };
		mono_ns now = clock_mono();
		ssize_t n;

		if (len == HEAD_MAX) {
			respond(fd, 431, "Request Header Fields Too Large", "text/plain", "request head too large\n",
				false);
			return;
		}
		if (now >= deadline || poll(&p, 1, (int)((deadline - now) / NS_PER_MS) + 1) <= 0) {
			if (stopping || now >= deadline || errno != EINTR)
				return;	/* slow or half-open client: drop it */
			continue;
		}
		n = recv(fd, head + len, HEAD_MAX - len, 0);
		if (n <= 0)
			return;
		len += (size_t)n;
	}
	head[len] = 0;
	if (sscanf(head, "%15s %255s HTTP/1.%*c", method, path) != 2) {
		respond(fd, 400, "Bad Request", "text/plain", "bad request\n", false);
		return;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		respond(fd, 405, "Method Not Allowed", "text/plain", "only GET\n", false);
		return;
	}
	if (!strcmp(path, "/metrics")) {
		char *body = metrics_body(db, err, sizeof(err));

		if (body) {
			respond(fd, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", body, !strcmp(method, "HEAD"));
			free(body);
		} else {
			char *msg = xasprintf("history unavailable: %s\n", err);

			respond(fd, 503, "Service Unavailable", "text/plain", msg, !strcmp(method, "HEAD"));
			free(msg);
		}
	} else if (!strcmp(path, "/")) {
		respond(fd, 200, "OK", "text/html",
			"<html><body><a href=\"/metrics\">engpass metrics</a></body></html>\n",
			!strcmp(method, "HEAD"));
	} else {
		respond(fd, 404, "Not Found", "text/plain", "not found\n", false);
	}
}

int cmd_exporter(int argc, char **argv)
{
	struct exporter_opts o = { "127.0.0.1:9808", NULL, false };
	struct opt_group g = { exporter_options, &o };
	struct opt_seen seen;
	struct sockaddr_storage ss;
	socklen_t sslen;
	struct sigaction sa;
	char err[256], *pos[1], *db;
	size_t npos;
	int fd, one = 1;

	if (opt_parse(argc, argv, &g, 1, 1, pos, 0, &npos, &seen, err, sizeof(err)))
		return usage_error("exporter", "%s", err);
	if (o.help) {
		printf("usage: engpass exporter [--listen ADDR:PORT] [--db PATH]\n\n"
		       "Serves the newest stored result of each benchmark at /metrics in Prometheus text\n"
		       "format (see docs/prometheus.md). Runs until SIGINT or SIGTERM.\n\noptions:\n");
		opt_help(stdout, exporter_options);
		return EXIT_OK;
	}
	if (parse_listen(o.listen, &ss, &sslen))
		return usage_error("exporter", "option '--listen': '%s' is not ADDR:PORT", o.listen);
	db = o.db ? xstrdup(o.db) : history_default_path();
	if (!db)
		return usage_error("exporter", "neither XDG_DATA_HOME nor HOME is set; use --db PATH");
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, sslen) < 0 || listen(fd, 16) < 0) {
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
	fprintf(stderr, "engpass exporter: serving http://%s/metrics from '%s'\n", o.listen, db);
	while (!stopping) {
		struct pollfd p = { fd, POLLIN, 0 };
		int c;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		serve(c, db);
		close(c);
	}
	close(fd);
	free(db);
	return EXIT_OK;
}
