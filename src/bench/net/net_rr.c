/* SPDX-License-Identifier: MIT */
/*
 * The rr protocol's messages and verdict; see net_rr.h for the layout and
 * docs/net-rr.md for the conversation.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/net/net_rr.h"
#include "lib/units.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* Copies a fixed-size text field, cut at its NUL, unprintable bytes as '?'. */
static void get_text(char *dst, size_t dlen, const uint8_t *src, size_t slen)
{
	size_t i;

	for (i = 0; i < slen && i + 1 < dlen && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = 0;
}

static void put_text(uint8_t *dst, size_t dlen, const char *src)
{
	size_t n = strnlen(src, dlen - 1);

	memset(dst, 0, dlen);
	memcpy(dst, src, n);
}

bool rr_is_hello(const void *buf, size_t len)
{
	return len >= RR_MAGIC_LEN && !memcmp(buf, RR_MAGIC, RR_MAGIC_LEN);
}

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -EPROTO;
}

void rr_hello_encode(const struct rr_hello *h, uint8_t out[RR_HELLO_LEN])
{
	memset(out, 0, RR_HELLO_LEN);
	memcpy(out, RR_MAGIC, RR_MAGIC_LEN);
	put32(out + 8, h->version);
	put32(out + 16, h->block);
	put32(out + 20, h->depth);
	put_text(out + 24, 40, h->peer_version);
}

int rr_hello_decode(const uint8_t in[RR_HELLO_LEN], struct rr_hello *h, char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (!rr_is_hello(in, RR_HELLO_LEN))
		return bad(err, errlen, "not an rr hello (bad magic)");
	h->version = get32(in + 8);
	h->block = get32(in + 16);
	h->depth = get32(in + 20);
	get_text(h->peer_version, sizeof(h->peer_version), in + 24, 40);
	if (h->version != RR_VERSION) {
		snprintf(err, errlen, "rr version %u (this engpass speaks %u)", (unsigned)h->version, RR_VERSION);
		return -EPROTO;
	}
	if (h->block > RR_BLOCK_MAX || h->depth > RR_DEPTH_MAX)
		return bad(err, errlen, "rr hello: block or depth beyond the limits");
	return 0;
}

void rr_welcome_encode(const struct rr_welcome *w, uint8_t out[RR_WELCOME_LEN])
{
	memset(out, 0, RR_WELCOME_LEN);
	memcpy(out, RR_MAGIC, RR_MAGIC_LEN);
	put32(out + 8, w->version);
	put32(out + 12, w->status);
	put64(out + 16, w->delay_ns);
	put64(out + 24, w->rate);
	put32(out + 32, w->max_block);
	put_text(out + 40, 24, w->peer_version);
}

int rr_welcome_decode(const uint8_t in[RR_WELCOME_LEN], struct rr_welcome *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	if (!rr_is_hello(in, RR_WELCOME_LEN))
		return bad(err, errlen, "the server did not answer in the rr protocol (not an engpass server?)");
	w->version = get32(in + 8);
	w->status = get32(in + 12);
	w->delay_ns = get64(in + 16);
	w->rate = get64(in + 24);
	w->max_block = get32(in + 32);
	get_text(w->peer_version, sizeof(w->peer_version), in + 40, 24);
	if (w->version != RR_VERSION) {
		snprintf(err, errlen, "the server speaks rr version %u, this engpass %u", (unsigned)w->version,
			 RR_VERSION);
		return -EPROTO;
	}
	if (w->status != RR_OK && w->status != RR_REFUSED)
		return bad(err, errlen, "rr welcome: unknown status");
	if (w->max_block > RR_BLOCK_MAX)
		return bad(err, errlen, "rr welcome: block limit beyond the protocol's");
	return 0;
}

void rr_request_encode(const struct rr_request *r, uint8_t out[RR_REQUEST_LEN])
{
	memset(out, 0, RR_REQUEST_LEN);
	put32(out, r->type);
	put64(out + 8, r->id);
	put64(out + 16, r->offset);
	put64(out + 24, r->len);
}

int rr_request_decode(const uint8_t in[RR_REQUEST_LEN], uint32_t max_block, struct rr_request *r, char *err,
		      size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->type = get32(in);
	r->id = get64(in + 8);
	r->offset = get64(in + 16);
	r->len = get64(in + 24);
	switch (r->type) {
	case RR_GET:
		if (r->len > max_block) {
			snprintf(err, errlen, "GET of %llu bytes, beyond the limit of %u", (unsigned long long)r->len,
				 (unsigned)max_block);
			return -EPROTO;
		}
		break;
	case RR_STREAM:
		if (r->len > RR_STREAM_UNBOUNDED)
			return bad(err, errlen, "STREAM length beyond 2^62");
		break;
	case RR_END:
		break;
	default:
		snprintf(err, errlen, "unknown request type %u", (unsigned)r->type);
		return -EPROTO;
	}
	if (get32(in + 4))
		return bad(err, errlen, "request flags set (none are defined)");
	if (r->offset > RR_STREAM_UNBOUNDED)
		return bad(err, errlen, "request offset beyond 2^62");
	return 0;
}

void rr_frame_encode(const struct rr_frame *f, uint8_t out[RR_FRAME_LEN])
{
	memset(out, 0, RR_FRAME_LEN);
	put32(out, f->type);
	put32(out + 4, f->len);
	put64(out + 8, f->id);
	put64(out + 16, f->offset);
}

int rr_frame_decode(const uint8_t in[RR_FRAME_LEN], struct rr_frame *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->type = get32(in);
	f->len = get32(in + 4);
	f->id = get64(in + 8);
	f->offset = get64(in + 16);
	if (f->type == RR_DATA) {
		if (f->len > RR_FRAME_MAX)
			return bad(err, errlen, "DATA frame longer than 64 KiB");
	} else if (f->type == RR_STATS) {
		if (f->len != RR_STATS_LEN)
			return bad(err, errlen, "STATS frame of the wrong length");
	} else {
		snprintf(err, errlen, "unknown frame type 0x%x", (unsigned)f->type);
		return -EPROTO;
	}
	return 0;
}

void rr_stats_encode(const struct rr_stats *s, uint8_t out[RR_STATS_LEN])
{
	const uint64_t v[7] = { s->requests, s->bytes, s->session_ns, s->idle_ns, s->paced_ns, s->blocked_ns,
				s->cpu_ns };

	memset(out, 0, RR_STATS_LEN);
	for (size_t i = 0; i < 7; i++)
		put64(out + 8 * i, v[i]);
}

int rr_stats_decode(const uint8_t in[RR_STATS_LEN], struct rr_stats *s, char *err, size_t errlen)
{
	s->requests = get64(in);
	s->bytes = get64(in + 8);
	s->session_ns = get64(in + 16);
	s->idle_ns = get64(in + 24);
	s->paced_ns = get64(in + 32);
	s->blocked_ns = get64(in + 40);
	s->cpu_ns = get64(in + 48);
	/* The three shares are parts of the session; anything else is a broken peer. */
	if (s->idle_ns > s->session_ns || s->paced_ns > s->session_ns || s->blocked_ns > s->session_ns)
		return bad(err, errlen, "STATS: a share of the session longer than the session");
	return 0;
}

void rr_judge(const struct rr_figures *f, struct result *res)
{
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], next[192];

	if (isfinite(f->client_busy_pct)) {
		double busy = f->client_busy_pct > 100 ? 100 : f->client_busy_pct < 0 ? 0 : f->client_busy_pct;
		double share = 1 - busy / 100;
		char server[80] = "";

		if (isfinite(f->idle_pct)) {
			if (f->idle_pct / 100 < share)
				share = f->idle_pct / 100;
			snprintf(server, sizeof(server), ", the server idle %.0f %%", f->idle_pct);
		}
		if (f->stream) {
			snprintf(next, sizeof(next), "the stream waited on the path, not on requests: a larger socket "
				 "buffer or a shorter path would move it");
			result_verdict_candidate(res, "round trip", share, next,
						 "one stream at %s; the client was busy %.0f %% of the time (%s)%s",
						 units_fmt_rate(a, sizeof(a), f->throughput), busy, f->client_busy_src, server);
		} else {
			unsigned d = f->depth ? f->depth : 1;
			unsigned want = d;

			/* Enough in flight to cover the round trip at the client's pace, at least twice as many. */
			if (busy > 0 && busy < 100)
				want = (unsigned)ceil((double)d * 100 / busy);
			if (want < 2 * d)
				want = 2 * d;
			if (want > 1024)
				want = 1024;
			snprintf(next, sizeof(next), "%u requests in flight (--depth %u) would hide the %.3g ms round trip",
				 want, want, (isfinite(f->mean_lat_s) ? f->mean_lat_s : f->rtt_s) * 1e3);
			result_verdict_candidate(res, "round trip", share, next,
						 "depth %u at %.3g ms mean round trip = %.0f req/s (%s); the client was busy "
						 "%.0f %% of the time (%s)%s",
						 d, (isfinite(f->mean_lat_s) ? f->mean_lat_s : f->rtt_s) * 1e3, f->req_rate,
						 units_fmt_rate(a, sizeof(a), f->throughput), busy, f->client_busy_src, server);
		}
	} else {
		result_verdict_candidate(res, "round trip", NAN, NULL, "unknown: the client's CPU time over the test "
					 "is unknown");
	}
	if (f->server_rate > 0 && isfinite(f->throughput)) {
		snprintf(next, sizeof(next), "it ran at the --rate the server was told (%s): a higher --rate would move it",
			 units_fmt_rate(a, sizeof(a), f->server_rate));
		result_verdict_candidate(res, "own pacing", f->throughput / f->server_rate, next,
					 "%s of the server's --rate %s; the server held data back %.0f %% of the time",
					 units_fmt_rate(b, sizeof(b), f->throughput), a,
					 isfinite(f->paced_pct) ? f->paced_pct : 0);
	}
	if (f->link_bps > 0 && isfinite(f->throughput))
		result_verdict_candidate(res, "link", f->throughput * 8 / f->link_bps,
					 "the link is full: only a faster link (or another path) would move it",
					 "%s of a %s link; the server's socket was full %.0f %% of the time",
					 units_fmt_bits(a, sizeof(a), f->throughput * 8), units_fmt_bits(b, sizeof(b), f->link_bps),
					 isfinite(f->blocked_pct) ? f->blocked_pct : 0);
}
