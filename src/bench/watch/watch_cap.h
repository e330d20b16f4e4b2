/* SPDX-License-Identifier: MIT */
/*
 * The capacity of a watched daemon from its own CPU time (issue 35): per
 * interval, the traffic it moved over the CPU it spent moving it gives
 * what one CPU-second of it carries; the CPU available to it over that
 * cost is its capacity. Unlike seed 004's rule of three (watch_est.h) it
 * needs no load near saturation and no tick-sampled core load: the
 * daemon's CPU is its threads' schedstat run time (nanoseconds).
 *
 * Per interval i of dt_i seconds with traffic R_i (bits/s):
 *
 *   D_i   the daemon's run time, seconds (all its threads)
 *   K_i   CPU its traffic cost outside its run time on the cores it ran
 *         on, seconds: those cores' ksoftirqd run time (and their
 *         softirq time where the kernel accounts it apart, see
 *         procwatch_irqtime()), weighted by the daemon's share of its
 *         run time on each core
 *   x_i = R_i dt_i / D_i           bits per CPU-second of the daemon
 *   y_i = R_i dt_i / (D_i + K_i)   bits per CPU-second of its cores
 *
 * Over the intervals with traffic (at least WATCH_CAP_MIN_BITS bits/s and
 * some run time), the medians X and Y of x_i and y_i, each with a 95 %
 * interval from the order statistics of the median (ranks n/2 -+ 0.98
 * sqrt(n), a distribution-free interval for the median), give:
 *
 *   capacity = min(A_task X, A_core Y)
 *
 * where A_task is the CPU the daemon's threads may use (a CPU quota, the
 * cpuset and affinity, the threads that did the work: the least) and
 * A_core the cores it runs on (the same without the quota: a quota does
 * not stop the softirq work on those cores). Per core is Y; the box is
 * Y x the online cores, capped by the link. Medians are robust to an
 * interval whose boundary cut a burst; the per-interval values are kept
 * in log-linear histograms (core/base/hist.h, within 1/128), so the memory does
 * not grow with a watch of days.
 *
 * Refused only when the data cannot carry an estimate: fewer than
 * WATCH_CAP_MIN_N intervals with traffic; the daemon's CPU and the traffic
 * unrelated (Pearson r of D_i / dt_i and R_i below WATCH_CAP_MIN_R while the
 * traffic varied by WATCH_CAP_MIN_CV or more: a steady traffic says
 * nothing about r, and is judged by the next test only); or the cost per
 * bit so unsteady that the 95 % interval spans more than a factor
 * WATCH_CAP_MAX_SPREAD.
 *
 * Tick aliasing: /proc/stat's busy time of the daemon's main core is
 * sampled by the timer tick (HZ times a second). A load that wakes at a
 * rate near the tick's (iperf3 paces every 1 ms; HZ 250) is seen at the
 * ticks in a fixed phase, and the core's busy share can read tens of
 * points off for a whole interval or watch. Per interval the tick busy
 * share of that core is set against the daemon's own run time there (plus
 * K): the mean of (tick - own) below -WATCH_CAP_ALIAS_MEAN points (the
 * ticks saw less than the daemon alone ran: only sampling can do that) or
 * its standard deviation above WATCH_CAP_ALIAS_SD points (the ticks swung
 * more than tick sampling of a steady load would) is named tick aliasing.
 * A mean above +WATCH_CAP_ALIAS_MEAN is reported as other work on the
 * core (or aliasing): it cannot be told apart.
 */
#ifndef ENGPASS_WATCH_CAP_H
#define ENGPASS_WATCH_CAP_H

#include <stdbool.h>

#include "lib/compiler.h"

struct hist;

#define WATCH_CAP_MIN_N 8		/* intervals with traffic */
#define WATCH_CAP_MIN_BITS 100e3	/* bits/s for an interval to count as one with traffic */
#define WATCH_CAP_MIN_R 0.5
#define WATCH_CAP_MIN_CV 0.2		/* traffic sd / mean for r to be judged */
#define WATCH_CAP_MAX_SPREAD 2.0	/* hi / lo of the 95 % interval */
#define WATCH_CAP_ALIAS_MEAN 5.0	/* points */
#define WATCH_CAP_ALIAS_SD 15.0		/* points */
#define WATCH_CAP_Z 1.96		/* the 95 % interval */

/* Running figures over the intervals offered. Init with watch_cap_init(), free with watch_cap_release(). */
struct watch_cap {
	struct hist *task, *core;	/* x_i and y_i, bits per CPU-second */
	unsigned intervals;		/* offered */
	unsigned used;			/* with traffic and run time */
	unsigned no_run;		/* with traffic but no run time (or unknown) */
	double time_s, used_s, bits, run_s, extra_s;	/* sums over the used intervals (bits: R dt) */
	/* Correlation of the daemon's CPU (cores) and the traffic (Welford). */
	double mean_d, mean_r, m2_d, m2_r, c_dr;
	/* Tick busy - own CPU of the daemon's main core, points (Welford). */
	unsigned alias_n;
	double alias_mean, alias_m2;
};

struct watch_cap_result {
	bool available;
	char why[256];			/* when not: one sentence, no trailing period */
	unsigned intervals, used;
	double used_s;
	double traffic_bits_per_s;	/* mean over the used intervals */
	double run_cores, extra_cores;	/* the daemon's CPU and K over them, in cores */
	double per_cpu, per_cpu_lo, per_cpu_hi;		/* X and its interval, bits per CPU-second */
	double per_core, per_core_lo, per_core_hi;	/* Y and its interval */
	double avail_task, avail_core;	/* as given */
	bool quota_bound;		/* the capacity is A_task X (else A_core Y) */
	double capacity, capacity_lo, capacity_hi;	/* bits/s */
	int cores;			/* online, as given; < 1 unknown */
	double link_bits_per_s;		/* as given; NaN unknown */
	double total_bits_per_s;	/* Y x cores, capped by the link; NaN without cores */
	bool capped;
	double load_pct;		/* the traffic measured, % of the capacity */
	double r, traffic_cv;		/* NaN under 2 intervals */
	bool r_judged;
	unsigned alias_n;
	double alias_mean, alias_sd;	/* points; NaN without intervals */
	bool alias_under, alias_swing;	/* tick aliasing named (the two tests) */
	bool alias_over;		/* the ticks saw more than the daemon: other work, or aliasing */
};

/* An empty estimate (allocates two histograms). */
void watch_cap_init(struct watch_cap *c);
void watch_cap_release(struct watch_cap *c);

/*
 * Offers one interval: DT_S seconds, traffic RATE bits/s (NaN unknown),
 * the daemon's run time RUN_S and the extra CPU EXTRA_S its cores spent on
 * its traffic (seconds; NaN unknown), and for the aliasing test the tick
 * busy % TICK_PCT of its main core and its own % there OWN_PCT (NaN: not
 * tested).
 */
void watch_cap_add(struct watch_cap *c, double dt_s, double rate, double run_s, double extra_s, double tick_pct,
		   double own_pct);

/*
 * The estimate with the CPU available to the daemon's threads AVAIL_TASK
 * and to its cores AVAIL_CORE (CPUs, > 0), CORES online (< 1 unknown) and
 * the link LINK (bits/s; NaN or <= 0 unknown). Returns 0 with OUT
 * available, or -ENODATA with OUT->why; the counts, r and the aliasing
 * figures are filled either way.
 */
MUST_CHECK int watch_cap_finish(const struct watch_cap *c, double avail_task, double avail_core, int cores,
				double link, struct watch_cap_result *out);

#endif
