/* SPDX-License-Identifier: MIT */
/*
 * HTTP/1.1 pieces of `engpass fetch` and `engpass download` that need no
 * socket; see http.h. The response parser is nodejs http-parser 2.9 (Debian
 * libhttp-parser-dev): it decodes chunked bodies, knows when a body ends
 * (Content-Length, chunked, or the connection's end) and, fed a buffer
 * that holds several pipelined responses, goes from one message to the
 * next by itself, calling on_message_begin .. on_message_complete for
 * each (checked in tests/unit/test_http.c, also fed byte by byte).
 * So this wrapper needs neither to pause nor to re-initialise it between
 * responses. It pauses only when a done event says to stop (the server
 * announced it closes, a redirect, or the download is complete): 2.9.4
 * would otherwise go on parsing whatever follows a "Connection: close"
 * response as the next one.
 */
#include "core/work/http.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "core/base/clock.h"
#include "core/kernel/net_sock.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#if HAVE_HTTP_PARSER
#include <http_parser.h>
#endif

/* Space, control and non-ASCII bytes are refused anywhere in a URL. */
static bool url_char_ok(unsigned char c)
{
	return c > 0x20 && c < 0x7f;
}

static bool host_char_ok(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Parses the decimal port in [P, P + N); empty means 80. */
static int parse_port(const char *p, size_t n, uint16_t *port)
{
	unsigned long v = 0;

	if (n == 0) {
		*port = 80;
		return 0;
	}
	if (n > 5)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int fetch_url_parse(const char *url, struct fetch_url *u, char *err, size_t errlen)
{
	const char *sep = strstr(url, "://"), *auth, *end, *host, *colon = NULL, *frag;
	size_t hostlen, tlen;

	for (const char *q = url; *q; q++) {
		if (!url_char_ok((unsigned char)*q)) {
			snprintf(err, errlen, "URL '%s' contains a space, control or non-ASCII character "
				 "(percent-encode it)", url);
			return -EINVAL;
		}
	}
	if (!sep || sep == url) {
		snprintf(err, errlen, "'%s' is not an http:// URL", url);
		return -EINVAL;
	}
	if ((size_t)(sep - url) == 5 && !strncasecmp(url, "https", 5)) {
		snprintf(err, errlen, "'%s': https is not supported (no TLS support; use an http:// URL)", url);
		return -EINVAL;
	}
	if ((size_t)(sep - url) != 4 || strncasecmp(url, "http", 4)) {
		snprintf(err, errlen, "'%s': unsupported scheme '%.*s' (only http:// URLs)", url, (int)(sep - url),
			 url);
		return -EINVAL;
	}
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	if (memchr(auth, '@', (size_t)(end - auth))) {
		snprintf(err, errlen, "'%s': user names and passwords in URLs are not supported", url);
		return -EINVAL;
	}
	if (*auth == '[') {
		const char *close = memchr(auth, ']', (size_t)(end - auth));

		if (!close) {
			snprintf(err, errlen, "'%s': unterminated '[' in the host", url);
			return -EINVAL;
		}
		host = auth + 1;
		hostlen = (size_t)(close - host);
		for (size_t i = 0; i < hostlen; i++) {
			if (!isxdigit((unsigned char)host[i]) && host[i] != ':' && host[i] != '.') {
				snprintf(err, errlen, "'%s': bad IPv6 address in the host", url);
				return -EINVAL;
			}
		}
		if (close + 1 < end) {
			if (close[1] != ':') {
				snprintf(err, errlen, "'%s': unexpected text after ']'", url);
				return -EINVAL;
			}
			colon = close + 1;
		}
	} else {
		host = auth;
		colon = memchr(auth, ':', (size_t)(end - auth));
		hostlen = (size_t)((colon ? colon : end) - host);
		for (size_t i = 0; i < hostlen; i++) {
			if (!host_char_ok((unsigned char)host[i])) {
				snprintf(err, errlen, "'%s': bad character '%c' in the host name", url, host[i]);
				return -EINVAL;
			}
		}
	}
	if (hostlen == 0) {
		snprintf(err, errlen, "'%s': no host", url);
		return -EINVAL;
	}
	if (hostlen >= sizeof(u->host)) {
		snprintf(err, errlen, "'%s': host name longer than %zu characters", url, sizeof(u->host) - 1);
		return -EINVAL;
	}
	if (parse_port(colon ? colon + 1 : end, colon ? (size_t)(end - colon - 1) : 0, &u->port) < 0) {
		snprintf(err, errlen, "'%s': bad port '%.*s' (1..65535)", url, (int)(end - colon - 1), colon + 1);
		return -EINVAL;
	}
	memcpy(u->host, host, hostlen);
	u->host[hostlen] = 0;
	if (u->port == 80)
		snprintf(u->authority, sizeof(u->authority), *auth == '[' ? "[%s]" : "%s", u->host);
	else
		snprintf(u->authority, sizeof(u->authority), *auth == '[' ? "[%s]:%u" : "%s:%u", u->host,
			 (unsigned)u->port);

	frag = strchr(end, '#');
	tlen = frag ? (size_t)(frag - end) : strlen(end);
	if (tlen + 2 > sizeof(u->target)) {
		snprintf(err, errlen, "URL path longer than %zu characters", sizeof(u->target) - 2);
		return -EINVAL;
	}
	/* An empty path is "/"; a bare query gets one in front. */
	snprintf(u->target, sizeof(u->target), "%s%.*s", tlen && *end == '/' ? "" : "/", (int)tlen, end);
	return 0;
}

#if HAVE_HTTP_PARSER
int fetch_url_check(const char *url, char *iface, size_t ifacelen, char *err, size_t errlen)
{
	struct fetch_url *u = xmalloc(sizeof(*u));
	int r = fetch_url_parse(url, u, err, errlen);

	if (ifacelen)
		iface[0] = 0;
	if (r == 0 && net_route_iface(u->host, u->port, iface, ifacelen) < 0 && ifacelen)
		iface[0] = 0;
	free(u);
	return r;
}
#endif

/* True when S starts with a URI scheme and its colon (RFC 3986 3.1). */
static bool has_scheme(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return false;
	while (isalnum((unsigned char)*s) || *s == '+' || *s == '-' || *s == '.')
		s++;
	return *s == ':';
}

int fetch_url_resolve(const struct fetch_url *base, const char *loc, struct fetch_url *out, char *err,
		      size_t errlen)
{
	char *abs;
	int r;

	while (*loc == ' ' || *loc == '\t')
		loc++;
	if (has_scheme(loc)) {
		abs = xstrdup(loc);
	} else if (loc[0] == '/' && loc[1] == '/') {
		abs = xasprintf("http:%s", loc);
	} else if (loc[0] == '/') {
		abs = xasprintf("http://%s%s", base->authority, loc);
	} else {
		/* Relative: against the base path's directory (or the path itself for "?query"). */
		size_t plen = strcspn(base->target, "?"), dir = plen;

		if (loc[0] != '?')
			while (dir > 0 && base->target[dir - 1] != '/')
				dir--;
		abs = xasprintf("http://%s%.*s%s", base->authority, (int)dir, base->target, loc);
	}
	r = fetch_url_parse(abs, out, err, errlen);
	free(abs);
	return r;
}

/* Parses decimal digits at *P into *V (no overflow); advances *P. */
static bool parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (s == end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	*p = s;
	return true;
}

int fetch_range_parse(const char *v, size_t len, struct fetch_range *r)
{
	const char *p = v, *end = v + len;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - p < 6 || strncasecmp(p, "bytes", 5) || (p[5] != ' ' && p[5] != '\t'))
		return -EINVAL;
	p += 5;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!parse_u64(&p, end, &r->first) || p == end || *p++ != '-' || !parse_u64(&p, end, &r->last) ||
	    p == end || *p++ != '/')
		return -EINVAL;
	if (p < end && *p == '*' && p + 1 == end) {
		r->total_known = false;
		r->total = 0;
	} else {
		if (!parse_u64(&p, end, &r->total) || p != end || r->last >= r->total)
			return -EINVAL;
		r->total_known = true;
	}
	if (r->first > r->last)
		return -EINVAL;
	return 0;
}

int fetch_request_format(char *buf, size_t len, const struct fetch_url *u, bool ranged, uint64_t first,
			 uint64_t last)
{
	char range[64] = "";
	int n;

	if (ranged)
		snprintf(range, sizeof(range), "Range: bytes=%llu-%llu\r\n", (unsigned long long)first,
			 (unsigned long long)last);
	n = snprintf(buf, len,
		     "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: engpass/%s\r\nAccept: */*\r\n"
		     "Accept-Encoding: identity\r\n%s\r\n",
		     u->target, u->authority, ENGPASS_VERSION_STRING, range);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

static bool is_redirect(unsigned s)
{
	return s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
}

enum fetch_head_action fetch_head_check(const struct fetch_head *h, const struct fetch_expect *e, char *err,
					size_t errlen)
{
	const struct fetch_range *r = &h->range;
	uint64_t last;

	if (is_redirect(h->status)) {
		if (!h->have_location) {
			snprintf(err, errlen, "status %u without a Location header", h->status);
			return FETCH_HEAD_ERROR;
		}
		if (h->long_location) {
			snprintf(err, errlen, "status %u with a Location longer than %zu bytes", h->status,
				 sizeof(h->location) - 1);
			return FETCH_HEAD_ERROR;
		}
		if (!e->may_redirect) {
			snprintf(err, errlen, "status %u (a redirect) in the middle of the download", h->status);
			return FETCH_HEAD_ERROR;
		}
		return FETCH_HEAD_REDIRECT;
	}
	if (!e->ranged) {
		if (h->status != 200) {
			snprintf(err, errlen, "status %u (expected 200)", h->status);
			return FETCH_HEAD_ERROR;
		}
		return FETCH_HEAD_BODY;
	}
	if (h->status == 200 && e->may_fallback)
		return FETCH_HEAD_FALLBACK;
	if (h->status != 206) {
		snprintf(err, errlen, "status %u to 'Range: bytes=%llu-%llu' (expected 206)", h->status,
			 (unsigned long long)e->first, (unsigned long long)e->last);
		return FETCH_HEAD_ERROR;
	}
	if (h->bad_range || !h->have_range) {
		snprintf(err, errlen, "206 response with %s Content-Range",
			 h->bad_range ? "a malformed" : "no");
		return FETCH_HEAD_ERROR;
	}
	if (!r->total_known) {
		snprintf(err, errlen, "Content-Range without the total size ('/*') is not supported");
		return FETCH_HEAD_ERROR;
	}
	if (e->have_total && r->total != e->total) {
		snprintf(err, errlen, "the resource changed size during the download: Content-Range total %llu, "
			 "earlier %llu", (unsigned long long)r->total, (unsigned long long)e->total);
		return FETCH_HEAD_ERROR;
	}
	last = e->last < r->total ? e->last : r->total - 1;
	if (r->first != e->first || r->last != last) {
		snprintf(err, errlen, "wrong Content-Range 'bytes %llu-%llu/%llu' for 'Range: bytes=%llu-%llu'",
			 (unsigned long long)r->first, (unsigned long long)r->last, (unsigned long long)r->total,
			 (unsigned long long)e->first, (unsigned long long)e->last);
		return FETCH_HEAD_ERROR;
	}
	if (h->have_length && h->length != r->last - r->first + 1) {
		snprintf(err, errlen, "Content-Length %llu does not match Content-Range 'bytes %llu-%llu'",
			 (unsigned long long)h->length, (unsigned long long)r->first, (unsigned long long)r->last);
		return FETCH_HEAD_ERROR;
	}
	return FETCH_HEAD_BODY;
}

/* dl's durations: "N sec" under a minute, else "M:SS". */
static void fmt_secs(char *buf, size_t len, uint64_t s)
{
	if (s < 60)
		snprintf(buf, len, "%llu sec", (unsigned long long)s);
	else
		snprintf(buf, len, "%llu:%02u", (unsigned long long)(s / 60), (unsigned)(s % 60));
}

void fetch_progress_format(char *buf, size_t len, uint64_t done, uint64_t total, uint64_t elapsed_ns)
{
	uint64_t secs = elapsed_ns / NS_PER_SEC;
	char got[32], all[32], el[32], rate[32] = "", left[48] = "";
	double bps = secs ? (double)done / (double)secs : 0;

	units_fmt_size(got, sizeof(got), (double)done, FETCH_FMT);
	fmt_secs(el, sizeof(el), secs);
	if (secs >= 1) {
		char r[24];

		units_fmt_size(r, sizeof(r), bps, FETCH_FMT);
		snprintf(rate, sizeof(rate), " (%s/sec)", r);
	}
	if (!total) {
		snprintf(buf, len, "got %s in %s%s.", got, el, rate);
		return;
	}
	if (secs >= 3 && bps > 0) {
		char t[32];

		fmt_secs(t, sizeof(t), done >= total ? 0 : (uint64_t)((double)(total - done) / bps));
		snprintf(left, sizeof(left), ", %s to go", t);
	}
	units_fmt_size(all, sizeof(all), (double)total, FETCH_FMT);
	snprintf(buf, len, "%.2f%% done; got %s of %s in %s%s%s.",
		 done >= total ? 100.0 : 100.0 * (double)done / (double)total, got, all, el, rate, left);
}

void fetch_speed_init(struct fetch_speed *s, double limit, uint64_t window_ns, uint64_t now)
{
	memset(s, 0, sizeof(*s));
	if (limit <= 0 || window_ns == 0)
		return;
	s->limit = limit;
	s->window_ns = window_ns;
	/* Rounded up: the slots together span at least the window. */
	s->slot_ns = (window_ns + FETCH_SPEED_SLOTS - 1) / FETCH_SPEED_SLOTS;
	s->start = now;
}

/* Moves the current slot to NOW's, emptying the slots passed on the way. */
static void speed_advance(struct fetch_speed *s, uint64_t now)
{
	uint64_t idx = now > s->start ? (now - s->start) / s->slot_ns : 0;

	if (idx <= s->cur)
		return;
	if (idx - s->cur > FETCH_SPEED_SLOTS) {
		memset(s->slot, 0, sizeof(s->slot));
	} else {
		for (uint64_t i = s->cur + 1; i <= idx; i++)
			s->slot[i % (FETCH_SPEED_SLOTS + 1)] = 0;
	}
	s->cur = idx;
}

void fetch_speed_add(struct fetch_speed *s, uint64_t now, uint64_t n)
{
	if (!s->window_ns)
		return;
	speed_advance(s, now);
	s->slot[s->cur % (FETCH_SPEED_SLOTS + 1)] += n;
}

bool fetch_speed_stalled(struct fetch_speed *s, uint64_t now, uint64_t *bytes)
{
	uint64_t sum = 0;

	*bytes = 0;
	if (!s->window_ns)
		return false;
	speed_advance(s, now);
	for (unsigned i = 0; i <= FETCH_SPEED_SLOTS; i++)
		sum += s->slot[i];
	*bytes = sum;
	if (now < s->start || now - s->start < s->window_ns)
		return false;
	return (double)sum < s->limit * ((double)s->window_ns / 1e9);
}

#if HAVE_HTTP_PARSER

/* Bytes a header line costs beyond its name and value: ": " and CRLF. */
#define FIELD_OVERHEAD 4

struct fetch_parser {
	http_parser p;
	http_parser_settings s;
	const struct fetch_parser_ops *ops;
	void *ctx;
	struct fetch_head head;
	bool in_message;
	bool in_value;		/* the last header callback was a value */
	bool stopped;
	size_t excess;		/* bytes of the last feed after the response it stopped at */
	uint64_t body_bytes;
	char field[32];		/* the current header's name, cut (we need short ones only) */
	size_t field_len;
	bool field_long;
	char value[FETCH_TARGET_MAX];
	size_t value_len;
	bool value_long;
	char *err;		/* the caller's, during fetch_parser_feed() */
	size_t errlen;
	int rc;			/* what an event (or a limit) said */
};

static struct fetch_parser *fp_of(http_parser *p)
{
	return p->data;
}

/* Counts head bytes; false (and the error set) past FETCH_HEADER_MAX. */
static bool head_bytes(struct fetch_parser *fp, size_t n)
{
	fp->head.header_bytes += n;
	if (fp->head.header_bytes <= FETCH_HEADER_MAX)
		return true;
	snprintf(fp->err, fp->errlen, "response header over %d KiB", FETCH_HEADER_MAX / 1024);
	fp->rc = -EMSGSIZE;
	return false;
}

/* One complete header field: keep what the checks need. */
static void header_done(struct fetch_parser *fp)
{
	struct fetch_head *h = &fp->head;

	fp->value[fp->value_len] = 0;
	if (!fp->field_long && !strcasecmp(fp->field, "content-range")) {
		h->have_range = fetch_range_parse(fp->value, fp->value_len, &h->range) == 0 && !fp->value_long;
		h->bad_range = !h->have_range;
	} else if (!fp->field_long && !strcasecmp(fp->field, "location")) {
		const char *v = fp->value;
		size_t n = fp->value_len;

		while (n && (*v == ' ' || *v == '\t')) {
			v++;
			n--;
		}
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		h->have_location = true;
		h->long_location = fp->value_long;
		memcpy(h->location, v, n);
		h->location[n] = 0;
	}
	fp->field_len = 0;
	fp->field_long = false;
	fp->value_len = 0;
	fp->value_long = false;
	fp->in_value = false;
}

static int on_message_begin(http_parser *p)
{
	struct fetch_parser *fp = fp_of(p);

	memset(&fp->head, 0, sizeof(fp->head));
	fp->in_message = true;
	fp->in_value = false;
	fp->field_len = fp->value_len = 0;
	fp->field_long = fp->value_long = false;
	fp->body_bytes = 0;
	/* "HTTP/1.1 " before the status and CRLF after it */
	return head_bytes(fp, 11) ? 0 : -1;
}

static int on_status(http_parser *p, const char *at, size_t n)
{
	(void)at;
	return head_bytes(fp_of(p), n) ? 0 : -1;
}

static int on_header_field(http_parser *p, const char *at, size_t n)
{
	struct fetch_parser *fp = fp_of(p);

	if (fp->in_value)
		header_done(fp);
	if (!head_bytes(fp, n + (fp->field_len ? 0 : FIELD_OVERHEAD)))
		return -1;
	if (fp->field_len + n >= sizeof(fp->field)) {
		fp->field_long = true;
		return 0;
	}
	memcpy(fp->field + fp->field_len, at, n);
	fp->field_len += n;
	fp->field[fp->field_len] = 0;
	return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t n)
{
	struct fetch_parser *fp = fp_of(p);

	fp->in_value = true;
	if (!head_bytes(fp, n))
		return -1;
	if (fp->value_len + n >= sizeof(fp->value)) {
		size_t room = sizeof(fp->value) - 1 - fp->value_len;

		memcpy(fp->value + fp->value_len, at, room);
		fp->value_len += room;
		fp->value_long = true;
		return 0;
	}
	memcpy(fp->value + fp->value_len, at, n);
	fp->value_len += n;
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	struct fetch_parser *fp = fp_of(p);
	struct fetch_head *h = &fp->head;
	int r;

	if (fp->in_value)
		header_done(fp);
	h->status = p->status_code;
	h->chunked = (p->flags & F_CHUNKED) != 0;
	h->have_length = (p->flags & F_CONTENTLENGTH) != 0 && !h->chunked;
	h->length = h->have_length ? p->content_length : 0;
	if ((r = fp->ops->head(fp->ctx, h, fp->err, fp->errlen)) < 0) {
		fp->rc = r;
		return -1;
	}
	return 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	struct fetch_parser *fp = fp_of(p);
	int r;

	fp->body_bytes += n;
	if ((r = fp->ops->body(fp->ctx, at, n, fp->err, fp->errlen)) < 0) {
		fp->rc = r;
		return -1;
	}
	return 0;
}

static int on_message_complete(http_parser *p)
{
	struct fetch_parser *fp = fp_of(p);
	int r;

	fp->in_message = false;
	r = fp->ops->done(fp->ctx, &fp->head, http_should_keep_alive(p) != 0, fp->err, fp->errlen);
	if (r < 0) {
		fp->rc = r;
		return -1;
	}
	if (r == FETCH_STOP) {
		fp->stopped = true;
		http_parser_pause(p, 1);
	}
	return 0;
}

struct fetch_parser *fetch_parser_new(const struct fetch_parser_ops *ops, void *ctx)
{
	struct fetch_parser *fp = xcalloc(1, sizeof(*fp));

	http_parser_settings_init(&fp->s);
	fp->s.on_message_begin = on_message_begin;
	fp->s.on_status = on_status;
	fp->s.on_header_field = on_header_field;
	fp->s.on_header_value = on_header_value;
	fp->s.on_headers_complete = on_headers_complete;
	fp->s.on_body = on_body;
	fp->s.on_message_complete = on_message_complete;
	fp->ops = ops;
	fp->ctx = ctx;
	fetch_parser_reset(fp);
	return fp;
}

void fetch_parser_free(struct fetch_parser *fp)
{
	free(fp);
}

void fetch_parser_reset(struct fetch_parser *fp)
{
	http_parser_init(&fp->p, HTTP_RESPONSE);
	fp->p.data = fp;
	fp->in_message = false;
	fp->stopped = false;
	fp->excess = 0;
	fp->body_bytes = 0;
}

int fetch_parser_feed(struct fetch_parser *fp, const char *buf, size_t len, char *err, size_t errlen)
{
	enum http_errno e;
	size_t n;

	if (fp->stopped)
		return FETCH_STOP;
	fp->err = err;
	fp->errlen = errlen;
	fp->rc = 0;
	n = http_parser_execute(&fp->p, &fp->s, buf, len);
	e = HTTP_PARSER_ERRNO(&fp->p);
	if (fp->stopped) {
		fp->excess = n < len ? len - n : 0;
		return FETCH_STOP;
	}
	if (fp->rc)
		return fp->rc;
	if (e == HPE_HEADER_OVERFLOW) {
		snprintf(err, errlen, "response header over %d KiB", FETCH_HEADER_MAX / 1024);
		return -EMSGSIZE;
	}
	if (len == 0 && fp->in_message) {
		if (fp->head.status)
			snprintf(err, errlen, "connection closed mid-body: truncated after %llu body bytes",
				 (unsigned long long)fp->body_bytes);
		else
			snprintf(err, errlen, "connection closed inside a response header");
		return -ECONNRESET;
	}
	if (e != HPE_OK) {
		snprintf(err, errlen, "bad HTTP response: %s", http_errno_description(e));
		return -EPROTO;
	}
	if (n != len || fp->p.upgrade) {
		snprintf(err, errlen, "bad HTTP response: unexpected protocol upgrade");
		return -EPROTO;
	}
	return 0;
}

bool fetch_parser_in_message(const struct fetch_parser *fp)
{
	return fp->in_message;
}

uint64_t fetch_parser_body_bytes(const struct fetch_parser *fp)
{
	return fp->body_bytes;
}

size_t fetch_parser_excess(const struct fetch_parser *fp)
{
	return fp->excess;
}

#else /* !HAVE_HTTP_PARSER */

struct fetch_parser *fetch_parser_new(const struct fetch_parser_ops *ops, void *ctx)
{
	(void)ops;
	(void)ctx;
	return NULL;
}

void fetch_parser_free(struct fetch_parser *fp)
{
	(void)fp;
}

void fetch_parser_reset(struct fetch_parser *fp)
{
	(void)fp;
}

int fetch_parser_feed(struct fetch_parser *fp, const char *buf, size_t len, char *err, size_t errlen)
{
	(void)fp;
	(void)buf;
	(void)len;
	snprintf(err, errlen, "built without libhttp-parser");
	return -ENOTSUP;
}

bool fetch_parser_in_message(const struct fetch_parser *fp)
{
	(void)fp;
	return false;
}

uint64_t fetch_parser_body_bytes(const struct fetch_parser *fp)
{
	(void)fp;
	return 0;
}

size_t fetch_parser_excess(const struct fetch_parser *fp)
{
	(void)fp;
	return 0;
}

#endif
