/* SPDX-License-Identifier: MIT */
/*
 * Frame accounting for `engpass latency`: when a simulated task woke, how
 * late that was, whether its frame met its deadline, how many frames were
 * lost and what penalty that adds -- interbench's rules (periodic_schedule()
 * and emulate_game() in interbench 0.31), written as pure functions of the
 * times they are given, so unit tests can drive them with made-up clocks.
 * The task threads (latency_task.c) feed them real CLOCK_MONOTONIC times.
 *
 * A frame has a start D (its "deadline" in interbench's words: the time it
 * is due to start) and a period P; its work is due by D + P.
 *
 *  - On waking at time W for a frame, having asked to wake at T (for audio
 *    and video T = D; for x, T can be before D), the wake-up latency is
 *    W - T, clamped at 0. This is cyclictest's figure: timer and scheduling
 *    delay together. (interbench subtracts the timer's oversleep, measured
 *    by a SCHED_FIFO helper thread, and measures against D.)
 *  - If W > D + P the frame is lost before any work: with
 *    k = (W - (D + P)) / P + 1, k deadlines are missed, k frames are
 *    dropped, the penalty is k * P and the next frame starts at
 *    D + P + k * P.
 *  - Otherwise the work runs; when it ends at E the frame counts as done.
 *    If E <= D + P the deadline is met and the next frame starts at D + P.
 *    If not, with k = (E - (D + P)) / P + 1, k deadlines are missed, the
 *    penalty is k * P, the next frame starts at D + P + k * P, and the
 *    frames are counted as dropped only when k > 1. (That last rule is
 *    interbench's; it is kept so that "% Desired CPU" means the same in
 *    both tools. docs/latency.md discusses it.)
 *  - A frame without a period (x's step at 100 %) never sleeps: if E <= D
 *    its deadline is met, otherwise it is neither met nor missed, and the
 *    next frame starts at E.
 *  - The frame's sample is its wake-up latency plus its penalty.
 *
 * Missed periods (the policy of the wake-up histogram): a wake-up late by
 * more than its period skips the periods that have passed (the next sleep
 * is to the first period boundary after it), as cyclictest does: one stall
 * is one wake-up sample, and the k skipped periods are counted in
 * `missed` and `skipped`. With sample_missed set, each of the k skipped periods also
 * gives a wake-up sample, W - (D + i * P) for i = 1..k: how late the
 * wake-up was for every period, as a consumer of each period sees it
 * (HdrHistogram's correction for coordinated omission).
 *
 * Gaming has no periods: each chunk asks for C ns of CPU; if the chunk took
 * wall time G > C, its sample (its "latency") is G - C, else 0.
 *
 * "% Desired CPU" is done / (done + dropped) for periodic tasks, and
 * C_total / (C_total + overrun_total) for gaming; "% Deadlines Met" is
 * met / (met + missed) (0 when none was met, as interbench prints it).
 */
#ifndef ENGPASS_LATENCY_ACCT_H
#define ENGPASS_LATENCY_ACCT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/clock.h"
#include "core/base/hist.h"

struct lat_acct {
	struct hist lat;	/* per frame: wake-up latency + penalty, ns */
	struct hist wake;	/* per wake-up: wake-up latency alone, ns */
	uint64_t done;		/* frames whose work ran (interbench: achieved_burns) */
	uint64_t dropped;	/* frames lost (interbench: missed_burns) */
	uint64_t met, missed;	/* deadlines */
	uint64_t unperiodic;	/* frames without a period that were late: neither met nor missed */
	uint64_t cpu_asked_ns;	/* gaming: CPU time asked for over all chunks */
	uint64_t overrun_ns;	/* gaming: wall time beyond it */
	bool sample_missed;	/* also a wake-up sample per skipped period (see above) */
	uint64_t skipped;	/* periods skipped by wake-ups later than their period (in missed too) */
};

/* The frame a periodic task is in. */
struct lat_frame {
	mono_ns deadline;	/* D: when the frame is due to start */
	uint64_t period;	/* P in ns; 0 = no period */
	uint64_t wake_lat;	/* set by lat_frame_wake() */
};

/* Empties A (skipping missed periods, cyclictest's policy). */
void lat_acct_init(struct lat_acct *a);

/*
 * The task woke at NOW for frame F, having slept until TARGET: the wake-up
 * latency. Returns true when the frame's work should run (then call
 * lat_frame_done() when it has: the wake-up is recorded there, so a frame
 * the end of the run cuts short counts in neither histogram), or false
 * when the frame was already lost: its wake-up and its sample are recorded
 * and F->deadline is the start of the next frame, which is the next time
 * to sleep until.
 */
bool lat_frame_wake(struct lat_acct *a, struct lat_frame *f, mono_ns target, mono_ns now);

/*
 * The work of frame F ended at NOW. Counts the deadline as met or missed,
 * records the frame's wake-up and sample and moves F->deadline to the start of the next
 * frame. Returns the time to sleep until: F->deadline, or NOW for a frame
 * without a period (no sleep).
 */
mono_ns lat_frame_done(struct lat_acct *a, struct lat_frame *f, mono_ns now);

/* Accounts one gaming chunk that asked for CPU_NS and took WALL_NS. */
void lat_game_chunk(struct lat_acct *a, uint64_t cpu_ns, uint64_t wall_ns);

/* The figures of one cell, from an accounting. */
struct lat_summary {
	uint64_t samples;	/* frames (or chunks) with a sample */
	double mean_ns, sd_ns;	/* true sample SD, n - 1 */
	double max_ns;
	double p50_ns, p90_ns, p99_ns, p999_ns;
	double interbench_sd_ns;	/* what interbench prints as "+/- SD" for the same samples */
	double desired_cpu_pct;		/* NaN when nothing ran */
	double deadlines_met_pct;	/* NaN for gaming, or when no deadline was due */
};

/* Summarises A; GAMING selects the gaming definitions. */
void lat_acct_summary(const struct lat_acct *a, bool gaming, struct lat_summary *s);

/*
 * interbench's "+/- SD" for N values with mean MEAN and true sample
 * standard deviation SD: interbench computes
 *     variance = (sum of squares - mean^2 / n) / (n - 1)
 * where the correct subtrahend is n * mean^2, so its figure is close to the
 * root mean square, not the spread. With sum of squares
 * = (n - 1) SD^2 + n MEAN^2 this returns the square root of that variance
 * (0 for n < 2), so results can be set beside interbench's logs.
 */
double lat_interbench_sd(uint64_t n, double mean, double sd);

#endif
