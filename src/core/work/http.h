/* SPDX-License-Identifier: MIT */
/*
 * The HTTP/1.1 pieces of `engpass fetch` and `engpass download` that need
 * no socket, so they can be tested on canned bytes: the URL parser (http:// only) and redirect
 * resolution, the Content-Range parser, the request text, the check of a
 * response head against the request it answers, dl's progress line, and a
 * response parser on top of nodejs http-parser 2.9 (Debian
 * libhttp-parser-dev) that turns a byte stream of pipelined responses
 * into head / body / done events.
 *
 * The names keep the fetch_ prefix of the benchmark they came from (the
 * fetch benchmark uses them throughout).
 *
 * Nothing here prints or allocates behind the caller's back; errors come
 * back as -errno with a one-line message in the caller's buffer.
 */
#ifndef ENGPASS_CORE_HTTP_H
#define ENGPASS_CORE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "lib/compiler.h"
#include "lib/units.h"

/* Longest response head (status line and header fields) accepted. */
#define FETCH_HEADER_MAX (64 * 1024)
/* Redirects followed before giving up. */
#define FETCH_REDIRECT_MAX 5
/* Longest host name, and longest request target (path and query). */
#define FETCH_HOST_MAX 256
#define FETCH_TARGET_MAX 8192
/* Room for one request's text: request line, Host, Range and the rest. */
#define FETCH_REQ_MAX (FETCH_TARGET_MAX + FETCH_HOST_MAX + 256)

/* A parsed http:// URL. */
struct fetch_url {
	char host[FETCH_HOST_MAX];	/* for getaddrinfo: no brackets around IPv6 */
	char authority[FETCH_HOST_MAX + 8];	/* Host header: host[:port] as in the URL */
	uint16_t port;
	char target[FETCH_TARGET_MAX];	/* path and query, never empty; no fragment */
};

/*
 * Parses URL (http://[host][:port][/path][?query][#fragment]) into U.
 * The scheme is case-insensitive; the fragment is dropped; an empty path
 * becomes "/"; an empty port means 80. Refused, with a one-line message in
 * ERR: https:// (no TLS support), other schemes, user:password@, no host,
 * a port that is not 1..65535, spaces or control characters, names or
 * targets longer than the limits above. Returns 0 or -EINVAL.
 */
MUST_CHECK int fetch_url_parse(const char *url, struct fetch_url *u, char *err, size_t errlen);

/*
 * check() of a benchmark given URL: fetch_url_parse(), then the interface
 * a connection to it would leave by into IFACE (best effort, sends
 * nothing; "" when unknown), for the system view. Returns 0 or -EINVAL.
 */
#if HAVE_HTTP_PARSER
MUST_CHECK int fetch_url_check(const char *url, char *iface, size_t ifacelen, char *err, size_t errlen);
#else
/*
 * Without http-parser fetch and download never run (they say "skipped:
 * built without support"), and their URL is not checked either: that
 * keeps the URL parser out of the router's minimal build (docs/embedded.md,
 * "Size").
 */
static inline MUST_CHECK int fetch_url_check(const char *url, char *iface, size_t ifacelen, char *err,
					     size_t errlen)
{
	(void)url, (void)err, (void)errlen;
	if (ifacelen)
		iface[0] = 0;
	return 0;
}
#endif

/*
 * Resolves a Location header value LOC against BASE into OUT (OUT may be
 * BASE): an absolute http:// URL, a scheme-relative "//host/path", an
 * absolute path "/path", or a path relative to BASE's directory.
 * Returns 0 or -EINVAL with a message (https, a bad URL, too long).
 */
MUST_CHECK int fetch_url_resolve(const struct fetch_url *base, const char *loc, struct fetch_url *out,
				 char *err, size_t errlen);

/* A Content-Range value: "bytes FIRST-LAST/TOTAL"; TOTAL may be "*". */
struct fetch_range {
	uint64_t first, last;	/* inclusive */
	uint64_t total;
	bool total_known;	/* false when the total is "*" */
};

/*
 * Parses the Content-Range value V (LEN bytes, surrounding blanks allowed)
 * of a 206 response. The unit must be "bytes"; FIRST <= LAST < TOTAL.
 * "bytes * /TOTAL" (of a 416) is refused. Returns 0 or -EINVAL.
 */
MUST_CHECK int fetch_range_parse(const char *v, size_t len, struct fetch_range *r);

/*
 * Writes the text of a GET for U into BUF (LEN bytes; FETCH_REQ_MAX is
 * always enough), with "Range: bytes=FIRST-LAST" when RANGED. Returns the
 * text's length, or -ENAMETOOLONG when it does not fit.
 */
MUST_CHECK int fetch_request_format(char *buf, size_t len, const struct fetch_url *u, bool ranged,
				    uint64_t first, uint64_t last);

/* What the head of one response said. */
struct fetch_head {
	unsigned status;
	bool have_range;		/* Content-Range present and well-formed */
	bool bad_range;			/* Content-Range present but malformed */
	struct fetch_range range;
	bool have_length;		/* Content-Length present */
	uint64_t length;
	bool chunked;			/* Transfer-Encoding: chunked */
	bool have_location;
	char location[FETCH_TARGET_MAX];	/* cut to fit; long_location says so */
	bool long_location;
	size_t header_bytes;		/* status line and fields, about as on the wire */
};

/* The request a response answers, as the check needs it. */
struct fetch_expect {
	bool ranged;			/* asked with Range: FIRST-LAST */
	uint64_t first, last;
	bool have_total;		/* a previous response told the size */
	uint64_t total;
	bool may_redirect;		/* the first request of the download */
	bool may_fallback;		/* a 200 may stand for the whole resource */
};

enum fetch_head_action {
	FETCH_HEAD_BODY,		/* status as asked: take the body */
	FETCH_HEAD_FALLBACK,		/* 200 to a Range request: the body is the whole resource */
	FETCH_HEAD_REDIRECT,		/* 301/302/303/307/308 with Location: follow it */
	FETCH_HEAD_ERROR,		/* message in ERR */
};

/*
 * Checks response head H against what was asked, E. A ranged request
 * needs 206 with a Content-Range of exactly FIRST-LAST (LAST cut to the
 * total when the resource is shorter), the total of earlier responses and
 * a Content-Length (when given) equal to the range's length; a plain GET
 * needs 200. Returns the action; for FETCH_HEAD_ERROR a one-line message
 * is in ERR.
 */
enum fetch_head_action fetch_head_check(const struct fetch_head *h, const struct fetch_expect *e, char *err,
					size_t errlen);

/*
 * dl's progress line (gatling's dl.c, printstats()) into BUF: "55.11% done;
 * got 382.9MiB of 694.7MiB in 7 sec (54.7MiB/sec), 5 sec to go." The rate
 * (bytes over whole seconds since the start) is shown from one second on,
 * the time to go from three; TOTAL 0 means unknown ("got X in T").
 */
void fetch_progress_format(char *buf, size_t len, uint64_t done, uint64_t total, uint64_t elapsed_ns);

/* units_fmt_size() style of dl's 1024-based byte counts: "512B", "60.0KiB", "694.7MiB". */
#define FETCH_FMT (UNITS_FMT_DEC1 | UNITS_FMT_TIGHT)

/* Slots of the low-speed window: the rule fires at most WINDOW / SLOTS late. */
#define FETCH_SPEED_SLOTS 16

/*
 * The low-speed rule (curl's --speed-limit / --speed-time): bytes received
 * over the last WINDOW_NS, kept in FETCH_SPEED_SLOTS + 1 slots of
 * WINDOW_NS / FETCH_SPEED_SLOTS each. The sum of the slots covers at least
 * the last WINDOW_NS (at most one slot more), so a sum below LIMIT x WINDOW
 * means the bytes of the last WINDOW_NS were below it too: the rule never
 * fires early, and at most one slot late when the caller looks at least
 * once a slot.
 */
struct fetch_speed {
	double limit;			/* bytes per second; 0: off */
	uint64_t window_ns;		/* 0: off */
	uint64_t slot_ns;
	uint64_t start;			/* when the window began (a mono_ns) */
	uint64_t cur;			/* the slot number now being filled, from START */
	uint64_t slot[FETCH_SPEED_SLOTS + 1];
};

/* Starts the rule at NOW: LIMIT bytes/s over WINDOW_NS (either 0: off). */
void fetch_speed_init(struct fetch_speed *s, double limit, uint64_t window_ns, uint64_t now);

/* Counts N bytes received at NOW (NOW never goes back). */
void fetch_speed_add(struct fetch_speed *s, uint64_t now, uint64_t n);

/*
 * True when the rule fires at NOW: a whole window has passed since the
 * start and fewer than LIMIT x WINDOW bytes arrived in it. *BYTES gets the
 * bytes counted over (at least) the last window.
 */
bool fetch_speed_stalled(struct fetch_speed *s, uint64_t now, uint64_t *bytes);

/*
 * Events of the response parser. Each returns 0 to go on, a negative
 * errno with a message in ERR to fail, or (done only) FETCH_STOP to stop
 * parsing this connection after this response (the rest of the buffer is
 * not looked at).
 */
#define FETCH_STOP 1
struct fetch_parser_ops {
	/* A response head is complete. */
	int (*head)(void *ctx, const struct fetch_head *h, char *err, size_t errlen);
	/* Body bytes (chunked bodies decoded), in order. */
	int (*body)(void *ctx, const char *p, size_t n, char *err, size_t errlen);
	/* The response is complete; KEEP_ALIVE false when the server closes next. */
	int (*done)(void *ctx, const struct fetch_head *h, bool keep_alive, char *err, size_t errlen);
};

struct fetch_parser;

/*
 * A parser for the responses of one connection, calling OPS with CTX.
 * Never NULL; caller frees with fetch_parser_free(). Only with
 * HAVE_HTTP_PARSER; without it fetch_parser_new() returns NULL.
 */
struct fetch_parser *fetch_parser_new(const struct fetch_parser_ops *ops, void *ctx);
void fetch_parser_free(struct fetch_parser *fp);

/* Forgets everything: the next byte fed starts a response on a new connection. */
void fetch_parser_reset(struct fetch_parser *fp);

/*
 * Feeds LEN bytes read from the connection; LEN 0 says the server closed
 * it (EOF). Returns 0 when all was taken, FETCH_STOP when a done event
 * asked to stop, or a negative errno with a one-line message in ERR:
 * -EPROTO for bytes that are not HTTP, -EMSGSIZE for a head over
 * FETCH_HEADER_MAX, -ECONNRESET for an EOF inside a response (a truncated
 * body), or whatever an event returned.
 */
MUST_CHECK int fetch_parser_feed(struct fetch_parser *fp, const char *buf, size_t len, char *err, size_t errlen);

/* True while a response has begun but is not complete. */
bool fetch_parser_in_message(const struct fetch_parser *fp);

/*
 * Bytes of the last fetch_parser_feed() buffer left after the response at
 * which a done event stopped the parser: on a connection with nothing more
 * asked for, bytes beyond the announced body.
 */
size_t fetch_parser_excess(const struct fetch_parser *fp);

/* Body bytes of the current (or last) response so far. */
uint64_t fetch_parser_body_bytes(const struct fetch_parser *fp);

#endif
