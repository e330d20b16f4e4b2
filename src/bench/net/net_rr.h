/* SPDX-License-Identifier: MIT */
/*
 * engpass's request/response protocol ("rr"), spoken on the same port as
 * the iperf3 protocol: seed 002's experiment, where fetching a file in
 * 60 KiB blocks one request at a time ran at the round trip's pace, not
 * the wire's. The client asks for BLOCK bytes at an offset and keeps
 * DEPTH requests in flight; the server answers each request, optionally
 * DELAY after it arrived (a round trip, not a queue) and paced to RATE.
 * docs/net-rr.md is the specification; this header is its code.
 *
 * Every integer is big-endian. Every message has a fixed size except
 * a DATA frame's payload, whose length is in its header and bounded.
 *
 *   hello (client -> server, 64 bytes; its first 37 bytes take the place of
 *   an iperf3 cookie, which is 36 characters of [a-z2-7] and a NUL, so the
 *   upper-case magic can never be mistaken for one):
 *     0  magic "EPASSRR\0"   8  u32 version (1)   12 u32 flags (0)
 *     16 u32 block (largest GET)  20 u32 depth  24 char version[40]
 *   welcome (server -> client, 64 bytes):
 *     0  magic  8 u32 version  12 u32 status (0 ok, 1 refused)
 *     16 u64 delay_ns  24 u64 rate (bytes/s, 0 unpaced)  32 u32 max_block
 *     36 u32 reserved  40 char version[24]
 *   request (client -> server, 32 bytes):
 *     0  u32 type (1 GET, 2 END, 3 STREAM)  4 u32 flags (0)
 *     8  u64 id  16 u64 offset  24 u64 len
 *   frame (server -> client, 32-byte header + len bytes of payload):
 *     0  u32 type (0x81 DATA, 0x82 STATS)  4 u32 len
 *     8  u64 id  16 u64 offset  24 u64 reserved
 *   stats (the payload of a STATS frame, 64 bytes): u64 requests, bytes,
 *     session_ns, idle_ns, paced_ns, blocked_ns, cpu_ns, reserved
 *
 * Nothing here does I/O: encoders fill buffers, decoders check a buffer
 * and return -EPROTO with a reason for anything out of bounds, so the
 * protocol is tested and fuzzed without sockets.
 */
#ifndef ENGPASS_NET_RR_H
#define ENGPASS_NET_RR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "core/result/result.h"

#define RR_MAGIC "EPASSRR"		/* 7 characters and the NUL: 8 bytes */
#define RR_MAGIC_LEN 8
#define RR_VERSION 1
#define RR_HELLO_LEN 64
#define RR_WELCOME_LEN 64
#define RR_REQUEST_LEN 32
#define RR_FRAME_LEN 32
#define RR_STATS_LEN 64
/* The largest GET block a server accepts, and the client may ask for. */
#define RR_BLOCK_MAX (16u << 20)
/* The largest payload of one DATA frame; longer answers take several. */
#define RR_FRAME_MAX (64u << 10)
/* The most requests in flight a client may keep, and a server queues. */
#define RR_DEPTH_MAX 1024u
/* A STREAM request without a size: until the client sends END. */
#define RR_STREAM_UNBOUNDED (UINT64_C(1) << 62)

enum rr_request_type {
	RR_GET = 1,
	RR_END = 2,
	RR_STREAM = 3,
};

enum rr_frame_type {
	RR_DATA = 0x81,
	RR_STATS = 0x82,
};

enum rr_status {
	RR_OK = 0,
	RR_REFUSED = 1,
};

struct rr_hello {
	uint32_t version;
	uint32_t block;
	uint32_t depth;
	char peer_version[40];		/* NUL-terminated */
};

struct rr_welcome {
	uint32_t version;
	uint32_t status;
	uint64_t delay_ns;
	uint64_t rate;			/* bytes per second, 0 = unpaced */
	uint32_t max_block;
	char peer_version[24];		/* NUL-terminated */
};

struct rr_request {
	uint32_t type;
	uint64_t id, offset, len;
};

struct rr_frame {
	uint32_t type;
	uint32_t len;
	uint64_t id, offset;
};

/* What the server counted over one session, sent to the client at END. */
struct rr_stats {
	uint64_t requests;		/* GET and STREAM requests answered in full (empty ones not counted) */
	uint64_t bytes;			/* payload bytes sent */
	uint64_t session_ns;		/* first request to END */
	uint64_t idle_ns;		/* nothing ready to send: no request, or waiting out --delay */
	uint64_t paced_ns;		/* data ready, held back by --rate */
	uint64_t blocked_ns;		/* data ready, the socket's send buffer full */
	uint64_t cpu_ns;		/* server process user + system CPU over the session */
};

/* True when the first RR_MAGIC_LEN bytes of BUF are the rr magic. */
bool rr_is_hello(const void *buf, size_t len);

void rr_hello_encode(const struct rr_hello *h, uint8_t out[RR_HELLO_LEN]);
void rr_welcome_encode(const struct rr_welcome *w, uint8_t out[RR_WELCOME_LEN]);
void rr_request_encode(const struct rr_request *r, uint8_t out[RR_REQUEST_LEN]);
void rr_frame_encode(const struct rr_frame *f, uint8_t out[RR_FRAME_LEN]);
void rr_stats_encode(const struct rr_stats *s, uint8_t out[RR_STATS_LEN]);

/*
 * Decoders. Each checks what it can alone (magic, version, type, bounds)
 * and returns 0, or -EPROTO with a one-line reason in ERR. Strings are
 * cut at their first NUL and forced to end in one; non-printable bytes
 * are replaced by '?'.
 */
MUST_CHECK int rr_hello_decode(const uint8_t in[RR_HELLO_LEN], struct rr_hello *h, char *err, size_t errlen);
MUST_CHECK int rr_welcome_decode(const uint8_t in[RR_WELCOME_LEN], struct rr_welcome *w, char *err, size_t errlen);
/* MAX_BLOCK bounds a GET's length (STREAM has no bound). */
MUST_CHECK int rr_request_decode(const uint8_t in[RR_REQUEST_LEN], uint32_t max_block, struct rr_request *r,
				 char *err, size_t errlen);
MUST_CHECK int rr_frame_decode(const uint8_t in[RR_FRAME_LEN], struct rr_frame *f, char *err, size_t errlen);
MUST_CHECK int rr_stats_decode(const uint8_t in[RR_STATS_LEN], struct rr_stats *s, char *err, size_t errlen);

/* Thresholds of the verdict, documented in docs/net-rr.md. */

/* What a request/response test saw, for rr_judge(). NaN = unknown. */
struct rr_figures {
	double throughput;		/* bytes/s */
	double block;			/* bytes per request */
	double depth_kept;		/* time-weighted mean requests in flight */
	unsigned depth;			/* --depth asked */
	double rtt_s;			/* smallest round trip of an empty request */
	double mean_lat_s;		/* mean request latency (sent to last byte) */
	double req_rate;		/* requests completed per second */
	double ceiling;			/* stop-and-wait ceiling block / rtt, bytes/s */
	double idle_pct, paced_pct, blocked_pct;	/* the server's, of its session */
	double client_busy_pct;		/* the client thread's CPU over the test, of wall time */
	const char *client_busy_src;	/* where that came from, for the evidence */
	double server_rate;		/* the server's --rate, bytes/s; 0 = none */
	double busiest_pct;		/* the busiest core of this box during the test */
	int busiest_cpu;
	double link_bps;		/* bits/s; <= 0 unknown */
	bool stream;			/* one STREAM request, not GETs */
};

/*
 * Offers RES the candidate limiters of a request/response test (the
 * runner ranks them with the system's): "round trip" with share = the
 * time the client waited rather than worked (1 - its busy share), capped
 * by the server's idle share when its accounting came (both ends waited
 * for requests or answers on their way); "own pacing" when the server was
 * told a --rate (throughput / rate); "link" (throughput / link speed)
 * when the speed is known.
 */
void rr_judge(const struct rr_figures *f, struct result *res);

#endif
