/* SPDX-License-Identifier: MIT */
/*
 * Token-bucket rate limiter, for --rate on writers and senders (seed 000
 * ran a torrent client with a 500 KiB/s cap and watched what the disk
 * did). The bucket fills at 'rate' bytes per second up to 'burst' bytes.
 * A request for n bytes is always granted and takes n tokens; if that
 * leaves the bucket in debt, the caller is told how long to wait before
 * sending, which is exactly how long the refill takes to pay the debt.
 * So a request larger than the bucket never deadlocks, and over a long
 * run the achieved rate converges on the configured one: after T seconds
 * at most burst + rate * T bytes have been granted without a wait.
 *
 * The limiter is pure: it never reads a clock and never sleeps. The caller
 * passes the current time and does the sleeping (clock_sleep_until()), so
 * tests drive it with a fake clock.
 *
 * burst is the largest amount that can go out back to back after an idle
 * period. burst = 0 paces every request individually; credit a late caller
 * "should" have earned is then lost, so with a sleeping caller the achieved
 * rate falls short by the average oversleep. A few requests' worth (or
 * some tens of milliseconds of rate) is a good choice.
 *
 * Not thread-safe: one limiter per sender, or a lock around it.
 */
#ifndef ENGPASS_RATELIMIT_H
#define ENGPASS_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/clock.h"

struct ratelimit {
	double rate;		/* bytes per second; <= 0 or not finite: unlimited */
	double burst;		/* bucket depth, bytes */
	double tokens;		/* bytes available; negative while in debt */
	mono_ns last;		/* time tokens was last brought up to date */
	bool started;		/* false until the first call sets 'last' */
};

/*
 * Static initializer: a limiter at BYTES_PER_S with a bucket of BURST_BYTES
 * that starts full at the time of its first ratelimit_delay_ns() call.
 * RATELIMIT_INIT(0, 0) is an unlimited limiter.
 */
#define RATELIMIT_INIT(bytes_per_s, burst_bytes) {			\
	.rate = (bytes_per_s), .burst = (burst_bytes),			\
	.tokens = (burst_bytes), .last = 0, .started = false }

/*
 * Set up rl for bytes_per_s (0, negative, NaN or infinite: unlimited) with
 * a bucket of burst_bytes, full at time now. Negative or NaN burst_bytes is
 * taken as 0. Nothing is allocated; there is nothing to release.
 */
void ratelimit_init(struct ratelimit *rl, double bytes_per_s,
		    double burst_bytes, mono_ns now);

/*
 * Grant a request for 'bytes' at time 'now' and return how many
 * nanoseconds the caller must wait (from now) before sending them: 0 when
 * the bucket holds enough. The tokens are taken either way, so call this
 * once per request, and then really send after the wait. 'now' should not
 * go backwards; a time before the previous call counts as no time passed.
 * An unlimited limiter always returns 0. A wait that does not fit in 64
 * bits (absurdly low rates) is returned as UINT64_MAX.
 */
uint64_t ratelimit_delay_ns(struct ratelimit *rl, uint64_t bytes, mono_ns now);

/* True if rl limits nothing (its rate is not a positive finite number). */
bool ratelimit_unlimited(const struct ratelimit *rl);

#endif
