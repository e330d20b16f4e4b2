/* SPDX-License-Identifier: MIT */
/*
 * Tests of the socket-free HTTP pieces of `engpass fetch`
 * (src/core/work/http.c): the URL parser and redirect resolution, the
 * Content-Range parser, the request text, the check of a response head
 * against its request, dl's progress line, and the response parser on
 * canned bytes -- pipelined responses in one buffer and fed byte by
 * byte, chunked bodies, "Connection: close", a body that ends with the
 * connection, a truncated body, an oversized head and garbage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/work/http.h"
#include "config.h"
#include "core/base/clock.h"

static void test_url_ok(void **state)
{
	static const struct {
		const char *url, *host, *authority;
		unsigned port;
		const char *target;
	} cases[] = {
		{ "http://example.org/a/b.iso", "example.org", "example.org", 80, "/a/b.iso" },
		{ "HTTP://Box:8080", "Box", "Box:8080", 8080, "/" },
		{ "http://h?q=1", "h", "h", 80, "/?q=1" },
		{ "http://h:/x#frag", "h", "h", 80, "/x" },
		{ "http://127.0.0.1:65535/x?y=%20z", "127.0.0.1", "127.0.0.1:65535", 65535, "/x?y=%20z" },
		{ "http://[::1]:81/f", "::1", "[::1]:81", 81, "/f" },
		{ "http://[fe80::1]/", "fe80::1", "[fe80::1]", 80, "/" },
	};
	struct fetch_url u;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fetch_url_parse(cases[i].url, &u, err, sizeof(err)), 0);
		assert_string_equal(u.host, cases[i].host);
		assert_string_equal(u.authority, cases[i].authority);
		assert_int_equal(u.port, cases[i].port);
		assert_string_equal(u.target, cases[i].target);
	}
}

static void test_url_bad(void **state)
{
	static const struct {
		const char *url, *says;
	} cases[] = {
		{ "https://example.org/x", "no TLS support" },
		{ "HTTPS://example.org/x", "no TLS support" },
		{ "ftp://example.org/x", "unsupported scheme 'ftp'" },
		{ "example.org/x", "not an http:// URL" },
		{ "://x", "not an http:// URL" },
		{ "http:///x", "no host" },
		{ "http://:80/x", "no host" },
		{ "http://h:0/", "bad port '0'" },
		{ "http://h:65536/", "bad port '65536'" },
		{ "http://h:99999/", "bad port '99999'" },
		{ "http://h:8o/", "bad port '8o'" },
		{ "http://h:-1/", "bad port '-1'" },
		{ "http://user:pw@h/", "passwords" },
		{ "http://h/a b", "space" },
		{ "http://h/a\tb", "control" },
		{ "http://h\xc3\xa4/", "non-ASCII" },
		{ "http://h*st/", "bad character '*'" },
		{ "http://[::1/", "unterminated" },
		{ "http://[::1]x/", "after ']'" },
		{ "http://[zz::1]/", "IPv6" },
	};
	struct fetch_url u;
	char err[256], longurl[FETCH_TARGET_MAX + 64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		assert_int_equal(fetch_url_parse(cases[i].url, &u, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].says))
			fail_msg("'%s': message '%s' lacks '%s'", cases[i].url, err, cases[i].says);
		assert_null(strchr(err, '\n'));
	}
	/* a path longer than the limit */
	snprintf(longurl, sizeof(longurl), "http://h/");
	memset(longurl + 9, 'a', FETCH_TARGET_MAX);
	longurl[9 + FETCH_TARGET_MAX] = 0;
	assert_int_equal(fetch_url_parse(longurl, &u, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "longer than"));
}

static void test_url_resolve(void **state)
{
	static const struct {
		const char *loc, *authority, *target;
	} cases[] = {
		{ "http://other:81/x", "other:81", "/x" },
		{ "//third/y?z", "third", "/y?z" },
		{ "/abs", "h:8080", "/abs" },
		{ "rel.iso", "h:8080", "/dir/sub/rel.iso" },
		{ "../up", "h:8080", "/dir/sub/../up" },
		{ "?page=2", "h:8080", "/dir/sub/file?page=2" },
		{ "  /trimmed", "h:8080", "/trimmed" },
	};
	struct fetch_url base, out;
	char err[256];

	(void)state;
	assert_int_equal(fetch_url_parse("http://h:8080/dir/sub/file?q=1", &base, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fetch_url_resolve(&base, cases[i].loc, &out, err, sizeof(err)), 0);
		assert_string_equal(out.authority, cases[i].authority);
		assert_string_equal(out.target, cases[i].target);
	}
	assert_int_equal(fetch_url_resolve(&base, "https://h/x", &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no TLS support"));
	/* OUT may be BASE */
	assert_int_equal(fetch_url_resolve(&base, "next", &base, err, sizeof(err)), 0);
	assert_string_equal(base.target, "/dir/sub/next");
}

static void test_range_parse(void **state)
{
	static const struct {
		const char *v;
		int rc;
		uint64_t first, last, total;
		bool known;
	} cases[] = {
		{ "bytes 0-61439/20971520", 0, 0, 61439, 20971520, true },
		{ "  Bytes 5-5/6 ", 0, 5, 5, 6, true },
		{ "bytes 0-9/*", 0, 0, 9, 0, false },
		{ "bytes 18446744073709551614-18446744073709551614/18446744073709551615", 0,
		  18446744073709551614ULL, 18446744073709551614ULL, 18446744073709551615ULL, true },
		{ "bytes 0-9/18446744073709551616", -EINVAL, 0, 0, 0, false },
		{ "bytes 10-9/100", -EINVAL, 0, 0, 0, false },
		{ "bytes 0-100/100", -EINVAL, 0, 0, 0, false },
		{ "bytes */100", -EINVAL, 0, 0, 0, false },
		{ "items 0-9/100", -EINVAL, 0, 0, 0, false },
		{ "bytes0-9/100", -EINVAL, 0, 0, 0, false },
		{ "bytes 0-9/100x", -EINVAL, 0, 0, 0, false },
		{ "bytes 0-9", -EINVAL, 0, 0, 0, false },
		{ "bytes -9/100", -EINVAL, 0, 0, 0, false },
		{ "", -EINVAL, 0, 0, 0, false },
	};
	struct fetch_range r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		if (fetch_range_parse(cases[i].v, strlen(cases[i].v), &r) != cases[i].rc)
			fail_msg("'%s': expected %d", cases[i].v, cases[i].rc);
		if (cases[i].rc)
			continue;
		assert_int_equal(r.first, cases[i].first);
		assert_int_equal(r.last, cases[i].last);
		assert_int_equal(r.total, cases[i].total);
		assert_int_equal(r.total_known, cases[i].known);
	}
}

static void test_request_format(void **state)
{
	struct fetch_url u;
	char err[256], buf[FETCH_REQ_MAX], small[64];
	int n;

	(void)state;
	assert_int_equal(fetch_url_parse("http://h:8080/f?x=1", &u, err, sizeof(err)), 0);
	n = fetch_request_format(buf, sizeof(buf), &u, true, 61440, 122879);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	assert_true(!strncmp(buf, "GET /f?x=1 HTTP/1.1\r\nHost: h:8080\r\n", 35));
	assert_non_null(strstr(buf, "\r\nRange: bytes=61440-122879\r\n"));
	assert_non_null(strstr(buf, "\r\nUser-Agent: engpass/" ENGPASS_VERSION_STRING "\r\n"));
	assert_non_null(strstr(buf, "\r\nAccept-Encoding: identity\r\n"));
	assert_string_equal(buf + n - 4, "\r\n\r\n");
	assert_ptr_equal(strstr(buf, "\r\n\r\n"), buf + n - 4);
	n = fetch_request_format(buf, sizeof(buf), &u, false, 0, 0);
	assert_null(strstr(buf, "Range"));
	assert_int_equal(fetch_request_format(small, sizeof(small), &u, true, 0, 1), -ENAMETOOLONG);
}

static struct fetch_head head206(uint64_t first, uint64_t last, uint64_t total)
{
	struct fetch_head h;

	memset(&h, 0, sizeof(h));
	h.status = 206;
	h.have_range = true;
	h.range = (struct fetch_range){ .first = first, .last = last, .total = total, .total_known = true };
	h.have_length = true;
	h.length = last - first + 1;
	return h;
}

static void test_head_check(void **state)
{
	struct fetch_expect first = { .ranged = true, .first = 0, .last = 61439, .may_redirect = true,
				      .may_fallback = true };
	struct fetch_expect later = { .ranged = true, .first = 61440, .last = 122879, .have_total = true,
				      .total = 200000 };
	struct fetch_expect get = { .ranged = false, .may_redirect = true };
	struct fetch_head h;
	char err[256];

	(void)state;
	h = head206(0, 61439, 200000);
	assert_int_equal(fetch_head_check(&h, &first, err, sizeof(err)), FETCH_HEAD_BODY);
	/* the resource is shorter than the block: the range is cut to it */
	h = head206(0, 999, 1000);
	assert_int_equal(fetch_head_check(&h, &first, err, sizeof(err)), FETCH_HEAD_BODY);
	h = head206(61440, 122879, 200000);
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_BODY);
	/* one byte off */
	h = head206(61441, 122880, 200000);
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "wrong Content-Range 'bytes 61441-122880/200000'"));
	/* the total changed */
	h = head206(61440, 122879, 300000);
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "changed size"));
	/* the length disagrees with the range */
	h = head206(61440, 122879, 200000);
	h.length = 10;
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "Content-Length 10"));
	/* no, a malformed, or an unknown-total Content-Range */
	h = head206(61440, 122879, 200000);
	h.have_range = false;
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "no Content-Range"));
	h.bad_range = true;
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "malformed"));
	h = head206(0, 61439, 0);
	h.range.total_known = false;
	assert_int_equal(fetch_head_check(&h, &first, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "not supported"));
	/* 200 to a Range request: the fallback on the first, an error later */
	memset(&h, 0, sizeof(h));
	h.status = 200;
	assert_int_equal(fetch_head_check(&h, &first, err, sizeof(err)), FETCH_HEAD_FALLBACK);
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "status 200 to 'Range: bytes=61440-122879'"));
	assert_int_equal(fetch_head_check(&h, &get, err, sizeof(err)), FETCH_HEAD_BODY);
	h.status = 404;
	assert_int_equal(fetch_head_check(&h, &get, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_string_equal(err, "status 404 (expected 200)");
	/* redirects */
	h.status = 302;
	assert_int_equal(fetch_head_check(&h, &get, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "without a Location"));
	h.have_location = true;
	snprintf(h.location, sizeof(h.location), "/next");
	assert_int_equal(fetch_head_check(&h, &get, err, sizeof(err)), FETCH_HEAD_REDIRECT);
	assert_int_equal(fetch_head_check(&h, &first, err, sizeof(err)), FETCH_HEAD_REDIRECT);
	assert_int_equal(fetch_head_check(&h, &later, err, sizeof(err)), FETCH_HEAD_ERROR);
	assert_non_null(strstr(err, "middle of the download"));
	h.status = 304;
	assert_int_equal(fetch_head_check(&h, &get, err, sizeof(err)), FETCH_HEAD_ERROR);
}

static void test_progress_line(void **state)
{
	uint64_t total = 728445338, done = 401460000;
	char buf[128];

	(void)state;
	/* the seed's line */
	fetch_progress_format(buf, sizeof(buf), done, total, 7 * NS_PER_SEC + 400 * NS_PER_MS);
	assert_string_equal(buf, "55.11% done; got 382.9MiB of 694.7MiB in 7 sec (54.7MiB/sec), 5 sec to go.");
	/* no rate in the first second, no time to go before the third */
	fetch_progress_format(buf, sizeof(buf), 512, total, 500 * NS_PER_MS);
	assert_string_equal(buf, "0.00% done; got 512B of 694.7MiB in 0 sec.");
	fetch_progress_format(buf, sizeof(buf), 61440, total, 2 * NS_PER_SEC);
	assert_string_equal(buf, "0.01% done; got 60.0KiB of 694.7MiB in 2 sec (30.0KiB/sec).");
	/* over a minute; unknown total */
	fetch_progress_format(buf, sizeof(buf), total, total, 75 * NS_PER_SEC);
	assert_string_equal(buf, "100.00% done; got 694.7MiB of 694.7MiB in 1:15 (9.3MiB/sec), 0 sec to go.");
	fetch_progress_format(buf, sizeof(buf), 3ULL << 30, 0, 10 * NS_PER_SEC);
	assert_string_equal(buf, "got 3.0GiB in 10 sec (307.2MiB/sec).");
}

#if HAVE_HTTP_PARSER

/* What the parser reported, event by event. */
struct events {
	char log[4096];
	size_t len;
	uint64_t body;
	unsigned heads, dones;
	int stop_at_done;	/* return FETCH_STOP from this done (1-based), 0: never */
};

static void logf_(struct events *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct events *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ev->len += (size_t)vsnprintf(ev->log + ev->len, sizeof(ev->log) - ev->len, fmt, ap);
	va_end(ap);
}

static int ev_head(void *ctx, const struct fetch_head *h, char *err, size_t errlen)
{
	struct events *ev = ctx;

	(void)err;
	(void)errlen;
	ev->heads++;
	logf_(ev, "head %u", h->status);
	if (h->have_range)
		logf_(ev, " range %llu-%llu/%llu", (unsigned long long)h->range.first,
		      (unsigned long long)h->range.last, (unsigned long long)h->range.total);
	if (h->have_length)
		logf_(ev, " len %llu", (unsigned long long)h->length);
	if (h->chunked)
		logf_(ev, " chunked");
	if (h->have_location)
		logf_(ev, " loc %s", h->location);
	logf_(ev, ";");
	return 0;
}

static int ev_body(void *ctx, const char *p, size_t n, char *err, size_t errlen)
{
	struct events *ev = ctx;

	(void)p;
	(void)err;
	(void)errlen;
	ev->body += n;
	return 0;
}

static int ev_done(void *ctx, const struct fetch_head *h, bool keep_alive, char *err, size_t errlen)
{
	struct events *ev = ctx;

	(void)h;
	(void)err;
	(void)errlen;
	ev->dones++;
	logf_(ev, "done %llu%s;", (unsigned long long)ev->body, keep_alive ? "" : " close");
	return ev->stop_at_done && (int)ev->dones == ev->stop_at_done ? FETCH_STOP : 0;
}

static const struct fetch_parser_ops ev_ops = { .head = ev_head, .body = ev_body, .done = ev_done };

static const char two_ranges[] =
	"HTTP/1.1 206 Partial Content\r\nServer: t\r\nContent-Range: bytes 0-4/12\r\nContent-Length: 5\r\n\r\n"
	"hello"
	"HTTP/1.1 206 Partial Content\r\ncontent-range:bytes 5-11/12\r\nContent-Length: 7\r\n\r\n"
	", world";

static void test_parser_pipelined(void **state)
{
	struct events ev;
	struct fetch_parser *fp;
	char err[256];

	(void)state;
	/* both responses in one buffer */
	memset(&ev, 0, sizeof(ev));
	fp = fetch_parser_new(&ev_ops, &ev);
	assert_int_equal(fetch_parser_feed(fp, two_ranges, strlen(two_ranges), err, sizeof(err)), 0);
	assert_string_equal(ev.log, "head 206 range 0-4/12 len 5;done 5;head 206 range 5-11/12 len 7;done 12;");
	assert_false(fetch_parser_in_message(fp));
	/* the same, one byte at a time, on a reset parser */
	memset(&ev, 0, sizeof(ev));
	fetch_parser_reset(fp);
	for (size_t i = 0; i < strlen(two_ranges); i++) {
		assert_int_equal(fetch_parser_feed(fp, two_ranges + i, 1, err, sizeof(err)), 0);
		if (i == 90)
			assert_true(fetch_parser_in_message(fp));
	}
	assert_string_equal(ev.log, "head 206 range 0-4/12 len 5;done 5;head 206 range 5-11/12 len 7;done 12;");
	/* a done that stops: the rest of the buffer is not looked at */
	memset(&ev, 0, sizeof(ev));
	ev.stop_at_done = 1;
	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, two_ranges, strlen(two_ranges), err, sizeof(err)), FETCH_STOP);
	assert_string_equal(ev.log, "head 206 range 0-4/12 len 5;done 5;");
	assert_int_equal(fetch_parser_feed(fp, "x", 1, err, sizeof(err)), FETCH_STOP);
	fetch_parser_free(fp);
}

static void test_parser_chunked_and_close(void **state)
{
	static const char chunked[] =
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"3\r\nabc\r\n10;ext=1\r\n0123456789abcdef\r\n0\r\nX-Trailer: 1\r\n\r\n"
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
	static const char until_eof[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nsome bytes";
	static const char redirect[] = "HTTP/1.1 301 Moved\r\nLocation:  /x y \r\nContent-Length: 0\r\n\r\n";
	struct events ev;
	struct fetch_parser *fp;
	char err[256];

	(void)state;
	memset(&ev, 0, sizeof(ev));
	fp = fetch_parser_new(&ev_ops, &ev);
	assert_int_equal(fetch_parser_feed(fp, chunked, strlen(chunked), err, sizeof(err)), 0);
	assert_string_equal(ev.log, "head 200 chunked;done 19;head 200 len 2;done 21 close;");
	/*
	 * http-parser 2.9.4 goes on parsing after a "Connection: close"
	 * response as if the connection stayed open: stopping there is the
	 * done event's job (FETCH_STOP), not the library's.
	 */
	assert_int_equal(fetch_parser_feed(fp, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 38, err,
					   sizeof(err)), 0);
	assert_int_equal(ev.dones, 3);

	/* a body that ends with the connection completes at EOF */
	memset(&ev, 0, sizeof(ev));
	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, until_eof, strlen(until_eof), err, sizeof(err)), 0);
	assert_string_equal(ev.log, "head 200;");
	assert_true(fetch_parser_in_message(fp));
	assert_int_equal(fetch_parser_feed(fp, NULL, 0, err, sizeof(err)), 0);
	assert_string_equal(ev.log, "head 200;done 10 close;");

	/* EOF between responses is no error */
	memset(&ev, 0, sizeof(ev));
	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, redirect, strlen(redirect), err, sizeof(err)), 0);
	assert_string_equal(ev.log, "head 301 len 0 loc /x y;done 0;");
	assert_int_equal(fetch_parser_feed(fp, NULL, 0, err, sizeof(err)), 0);
	fetch_parser_free(fp);
}

static void test_parser_bad(void **state)
{
	static const char truncated[] = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this";
	static const char mid_head[] = "HTTP/1.1 200 OK\r\nContent-Le";
	static const char chunk_short[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc";
	struct events ev;
	struct fetch_parser *fp;
	char err[256], *big;
	size_t n;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	fp = fetch_parser_new(&ev_ops, &ev);
	assert_int_equal(fetch_parser_feed(fp, truncated, strlen(truncated), err, sizeof(err)), 0);
	assert_int_equal(fetch_parser_body_bytes(fp), 9);
	assert_int_equal(fetch_parser_feed(fp, NULL, 0, err, sizeof(err)), -ECONNRESET);
	assert_non_null(strstr(err, "truncated after 9 body bytes"));

	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, chunk_short, strlen(chunk_short), err, sizeof(err)), 0);
	assert_int_equal(fetch_parser_feed(fp, NULL, 0, err, sizeof(err)), -ECONNRESET);

	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, mid_head, strlen(mid_head), err, sizeof(err)), 0);
	assert_int_equal(fetch_parser_feed(fp, NULL, 0, err, sizeof(err)), -ECONNRESET);
	assert_non_null(strstr(err, "inside a response header"));

	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, "SSH-2.0-OpenSSH\r\n", 17, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "bad HTTP response"));

	/* a head over 64 KiB, fed in pieces, fails before the library's own 80 KiB limit */
	big = malloc(70 * 1024 + 64);
	assert_non_null(big);
	n = (size_t)snprintf(big, 64, "HTTP/1.1 200 OK\r\nX-Pad: ");
	memset(big + n, 'a', 70 * 1024);
	n += 70 * 1024;
	memcpy(big + n, "\r\n\r\n", 4);
	n += 4;
	fetch_parser_reset(fp);
	memset(&ev, 0, sizeof(ev));
	{
		int r = 0;

		for (size_t off = 0; off < n && r == 0; off += 4096)
			r = fetch_parser_feed(fp, big + off, n - off < 4096 ? n - off : 4096, err, sizeof(err));
		assert_int_equal(r, -EMSGSIZE);
	}
	assert_string_equal(err, "response header over 64 KiB");
	assert_int_equal(ev.heads, 0);
	/* many small fields add up the same way */
	n = (size_t)snprintf(big, 64, "HTTP/1.1 200 OK\r\n");
	while (n < 66 * 1024) {
		memcpy(big + n, "X-A: b\r\n", 8);
		n += 8;
	}
	fetch_parser_reset(fp);
	assert_int_equal(fetch_parser_feed(fp, big, n, err, sizeof(err)), -EMSGSIZE);
	free(big);
	fetch_parser_free(fp);
}
#endif

/* The low-speed window: never early, at most one slot late, off when 0. */
static void test_speed_window(void **state)
{
	struct fetch_speed s;
	uint64_t b, t;

	(void)state;
	/* 1 KiB/s over 3 s: a 1-byte-per-second drip fires at 3 s, not before. */
	fetch_speed_init(&s, 1024, 3 * NS_PER_SEC, 1000);
	for (t = 0; t < 3; t++) {
		fetch_speed_add(&s, 1000 + t * NS_PER_SEC, 1);
		assert_false(fetch_speed_stalled(&s, 1000 + t * NS_PER_SEC + NS_PER_SEC / 2, &b));
	}
	assert_true(fetch_speed_stalled(&s, 1000 + 3 * NS_PER_SEC, &b));
	assert_int_equal(b, 3);
	/* Enough bytes in the last window: no stall, however long it ran. */
	fetch_speed_init(&s, 1024, 3 * NS_PER_SEC, 0);
	for (t = 0; t < 100; t++) {
		fetch_speed_add(&s, t * NS_PER_SEC / 10, 200);
		assert_false(fetch_speed_stalled(&s, t * NS_PER_SEC / 10, &b));
	}
	/* ... then silence: fires, at the latest one slot after a whole window of it. */
	assert_false(fetch_speed_stalled(&s, 10 * NS_PER_SEC, &b));
	assert_true(b >= 3072);
	assert_true(fetch_speed_stalled(&s, 9900 * NS_PER_MS + 3 * NS_PER_SEC + 3 * NS_PER_SEC / FETCH_SPEED_SLOTS, &b));
	assert_int_equal(b, 0);
	/* A long gap empties every slot. */
	fetch_speed_add(&s, 1000 * NS_PER_SEC, 5);
	assert_true(fetch_speed_stalled(&s, 1000 * NS_PER_SEC, &b));
	assert_int_equal(b, 5);
	/* Off: speed-time 0 or limit 0. */
	fetch_speed_init(&s, 1024, 0, 0);
	assert_false(fetch_speed_stalled(&s, 1000 * NS_PER_SEC, &b));
	fetch_speed_init(&s, 0, NS_PER_SEC, 0);
	assert_false(fetch_speed_stalled(&s, 1000 * NS_PER_SEC, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_ok),
		cmocka_unit_test(test_url_bad),
		cmocka_unit_test(test_url_resolve),
		cmocka_unit_test(test_range_parse),
		cmocka_unit_test(test_request_format),
		cmocka_unit_test(test_head_check),
		cmocka_unit_test(test_progress_line),
		cmocka_unit_test(test_speed_window),
#if HAVE_HTTP_PARSER
		cmocka_unit_test(test_parser_pipelined),
		cmocka_unit_test(test_parser_chunked_and_close),
		cmocka_unit_test(test_parser_bad),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
