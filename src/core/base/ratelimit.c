/* SPDX-License-Identifier: MIT */
/*
 * Token-bucket rate limiter; the model and its guarantees are in
 * ratelimit.h.
 *
 * Tokens are kept as a double so that fractional rates (1bit/s is 0.125
 * bytes per second) and nanosecond refills add up without a systematic
 * truncation error; the only rounding that matters is the wait, which is
 * rounded up so that after waiting the debt is fully paid.
 */
#include "ratelimit.h"

#include <math.h>

bool ratelimit_unlimited(const struct ratelimit *rl)
{
	return !(rl->rate > 0.0) || isinf(rl->rate);
}

void ratelimit_init(struct ratelimit *rl, double bytes_per_s,
		    double burst_bytes, mono_ns now)
{
	if (!(burst_bytes > 0.0))
		burst_bytes = 0.0;
	rl->rate = bytes_per_s;
	rl->burst = burst_bytes;
	rl->tokens = burst_bytes;
	rl->last = now;
	rl->started = true;
}

/* Add the tokens earned since rl->last, up to the bucket depth. */
static void refill(struct ratelimit *rl, mono_ns now)
{
	if (now <= rl->last)
		return;
	rl->tokens += (double)(now - rl->last) * rl->rate / (double)NS_PER_SEC;
	if (rl->tokens > rl->burst)
		rl->tokens = rl->burst;
	rl->last = now;
}

uint64_t ratelimit_delay_ns(struct ratelimit *rl, uint64_t bytes, mono_ns now)
{
	double wait;

	if (ratelimit_unlimited(rl))
		return 0;
	if (!rl->started) {
		if (!(rl->burst > 0.0))
			rl->burst = 0.0;
		rl->tokens = rl->burst;
		rl->last = now;
		rl->started = true;
	}
	refill(rl, now);
	rl->tokens -= (double)bytes;
	if (rl->tokens >= 0.0)
		return 0;
	wait = ceil(-rl->tokens * (double)NS_PER_SEC / rl->rate);
	/* 2^64 as a double; anything at or above it does not fit */
	if (!(wait < 18446744073709551616.0))
		return UINT64_MAX;
	return (uint64_t)wait;
}
