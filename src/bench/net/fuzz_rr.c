/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the rr protocol (src/bench/net/net_rr.c): the input is taken
 * as the bytes a hostile peer sends -- a 64-byte hello or welcome, then
 * 32-byte requests or frame headers, then a 64-byte STATS payload -- and
 * every decoder runs over them. Whatever a decoder accepts must stay
 * within the bounds it promises (a GET no longer than the block limit, a
 * DATA frame no longer than 64 KiB, no accounting share longer than the
 * session, printable NUL-terminated version text) and must encode back to
 * the same message; anything else aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/net/net_rr.h"
#include "fuzz/fuzz.h"

static void check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		abort();
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t buf[RR_HELLO_LEN], back[RR_HELLO_LEN];
	char err[160];
	uint32_t max_block;
	size_t off;

	if (size < 4)
		return 0;
	/* The first 4 bytes choose the server's block limit for the requests. */
	max_block = ((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3]) %
		    (RR_BLOCK_MAX + 1);
	data += 4;
	size -= 4;
	if (size >= RR_HELLO_LEN) {
		struct rr_hello h;
		struct rr_welcome w;

		memcpy(buf, data, RR_HELLO_LEN);
		if (rr_hello_decode(buf, &h, err, sizeof(err)) == 0) {
			check_text(h.peer_version, sizeof(h.peer_version));
			if (h.block > RR_BLOCK_MAX || h.depth > RR_DEPTH_MAX || h.version != RR_VERSION)
				abort();
		}
		if (rr_welcome_decode(buf, &w, err, sizeof(err)) == 0) {
			struct rr_welcome w2;

			check_text(w.peer_version, sizeof(w.peer_version));
			rr_welcome_encode(&w, back);
			if (rr_welcome_decode(back, &w2, err, sizeof(err)) < 0 || memcmp(&w, &w2, sizeof(w)))
				abort();
		}
	}
	for (off = 0; off + RR_REQUEST_LEN <= size; off += RR_REQUEST_LEN) {
		struct rr_request r, r2;
		struct rr_frame f, f2;

		memcpy(buf, data + off, RR_REQUEST_LEN);
		if (rr_request_decode(buf, max_block, &r, err, sizeof(err)) == 0) {
			if (r.type == RR_GET && r.len > max_block)
				abort();
			rr_request_encode(&r, back);
			if (rr_request_decode(back, max_block, &r2, err, sizeof(err)) < 0 || memcmp(&r, &r2, sizeof(r)))
				abort();
		}
		if (rr_frame_decode(buf, &f, err, sizeof(err)) == 0) {
			if ((f.type == RR_DATA && f.len > RR_FRAME_MAX) || (f.type == RR_STATS && f.len != RR_STATS_LEN))
				abort();
			rr_frame_encode(&f, back);
			if (rr_frame_decode(back, &f2, err, sizeof(err)) < 0 || memcmp(&f, &f2, sizeof(f)))
				abort();
		}
	}
	if (size >= RR_STATS_LEN) {
		struct rr_stats s;

		memcpy(buf, data + size - RR_STATS_LEN, RR_STATS_LEN);
		if (rr_stats_decode(buf, &s, err, sizeof(err)) == 0 &&
		    (s.idle_ns > s.session_ns || s.paced_ns > s.session_ns || s.blocked_ns > s.session_ns))
			abort();
	}
	return 0;
}
