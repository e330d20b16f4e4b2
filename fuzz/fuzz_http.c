/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for what an HTTP server sends `engpass fetch`
 * (src/core/work/http.c): the input is fed to the response parser in
 * pieces whose sizes the input's first byte chooses (so pipelined
 * responses split anywhere are covered), then EOF; every response head is
 * checked against a ranged and a plain request as fetch would. The
 * parser's promises are asserted: at the end of each response its body
 * count equals the body events' sum, no head is over FETCH_HEADER_MAX, and
 * the Content-Range values it accepts are ordered. The URL and Content-Range parsers get the input
 * as text too.
 */
#include <stdlib.h>
#include <string.h>

#include "core/work/http.h"
#include "config.h"
#include "fuzz/fuzz.h"

struct ctx {
	struct fetch_parser *fp;
	uint64_t body;			/* body bytes of the current response */
	unsigned heads;
};

static int on_head(void *p, const struct fetch_head *h, char *err, size_t errlen)
{
	struct ctx *c = p;
	struct fetch_expect ranged = { .ranged = true, .first = 0, .last = 61439, .may_redirect = true,
				       .may_fallback = true };
	struct fetch_expect plain = { .may_redirect = true };

	c->body = 0;
	c->heads++;
	if (h->header_bytes > FETCH_HEADER_MAX + 2)
		abort();
	if (h->have_range && (h->range.first > h->range.last || (h->range.total_known && h->range.last >= h->range.total)))
		abort();
	(void)fetch_head_check(h, &ranged, err, errlen);
	(void)fetch_head_check(h, &plain, err, errlen);
	return 0;
}

static int on_body(void *p, const char *b, size_t n, char *err, size_t errlen)
{
	struct ctx *c = p;

	(void)b;
	(void)err;
	(void)errlen;
	c->body += n;
	return 0;
}

static int on_done(void *p, const struct fetch_head *h, bool keep_alive, char *err, size_t errlen)
{
	struct ctx *c = p;

	/* The parser's count of this response's body is what the body events delivered. */
	if (fetch_parser_body_bytes(c->fp) != c->body)
		abort();
	(void)h;
	(void)err;
	(void)errlen;
	return keep_alive ? 0 : FETCH_STOP;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fetch_parser_ops ops = { on_head, on_body, on_done };
	struct ctx c = { 0 };
	struct fetch_parser *fp;
	struct fetch_range r;
	struct fetch_url u;
	char err[160], *text;
	size_t off = 0, step;

	if (size < 1)
		return 0;
	text = fuzz_cstr(data + 1, size - 1);
	if (fetch_url_parse(text, &u, err, sizeof(err)) == 0 && (!u.port || !u.target[0] || !u.host[0]))
		abort();
	if (fetch_range_parse(text, strlen(text), &r) == 0 && (r.first > r.last || (r.total_known && r.last >= r.total)))
		abort();
	free(text);
	if (!HAVE_HTTP_PARSER || !(fp = fetch_parser_new(&ops, &c)))
		return 0;
	c.fp = fp;
	step = (size_t)data[0] % 64 + 1;
	data++;
	size--;
	while (off < size) {
		size_t n = size - off < step ? size - off : step;
		int rr = fetch_parser_feed(fp, (const char *)data + off, n, err, sizeof(err));

		if (rr < 0 || rr == FETCH_STOP)
			break;
		off += n;
	}
	if (off >= size && fetch_parser_feed(fp, "", 0, err, sizeof(err)) > 1)
		abort();
	fetch_parser_free(fp);
	return 0;
}
