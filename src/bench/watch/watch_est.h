/* SPDX-License-Identifier: MIT */
/*
 * The capacity estimate of `engpass watch`, seed 004's method as a pure
 * function: the fastd operators read a daemon's traffic against the load
 * of the busiest core, extrapolated by rule of three to 100 %, divided by
 * the clock in GHz, multiplied by the number of cores and capped by the
 * uplink.
 *
 *   measured rate   R = sum(rate_i * dt_i) / sum(dt_i)
 *   measured busy   B = sum(busy_i * dt_i) / sum(dt_i)
 *                       over the intervals i whose busiest core was at
 *                       least min_busy % busy and whose rate is known
 *   per core        P = R * 100 / B        (rule of three to 100 %)
 *   per GHz         G = P / (freq_mhz / 1000)
 *   total           T = min(P * cores, link)   (uncapped if link unknown)
 *
 * Only intervals near saturation are used because the extrapolation
 * assumes the cost per bit is constant; at low load fixed costs (timers,
 * other processes, the sampler) dominate and the ratio overstates the
 * capacity. The accumulator is O(1) in memory so a watch can run for days.
 * Nothing here reads the system; the caller passes every figure.
 */
#ifndef ENGPASS_WATCH_EST_H
#define ENGPASS_WATCH_EST_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

/*
 * The load-traffic correlation: Pearson's r over every interval with a
 * known load and rate (not only the busy ones). Seed 004 found "no
 * correlation between CPU load and traffic" on one supernode and could not
 * trust its figure; the estimate is refused when r is below
 * WATCH_EST_MIN_R while the load varied by at least WATCH_EST_MIN_LOAD_SD
 * percentage points (standard deviation) over at least
 * WATCH_EST_MIN_CORR_N intervals. A load that hardly varied (a core held
 * at saturation the whole time) says nothing either way: r is then
 * reported as not judged and the estimate stands.
 */
#define WATCH_EST_MIN_R 0.5
#define WATCH_EST_MIN_LOAD_SD 5.0
#define WATCH_EST_MIN_CORR_N 5

/* Running sums over the intervals offered so far. Use as a value. */
struct watch_est {
	double min_busy_pct;	/* threshold for an interval to count */
	unsigned intervals;	/* intervals offered */
	unsigned used;		/* intervals at or above the threshold with a known rate */
	unsigned busy_no_rate;	/* at or above the threshold, but the rate was unknown */
	double time_s, used_s;
	double bits;		/* sum of rate * dt over used intervals */
	double busy_s;		/* sum of busy % * dt over used intervals */
	double peak_busy_pct;	/* highest busiest-core busy % of any interval; NaN none */
	int cpu;		/* busiest core of the used intervals if always the same; -1 none, -2 mixed */
	int load_cores;		/* the load offered is the mean of this many cores (1 after init) */
	/* Correlation (Welford's co-moments): intervals, means, sums of squares and products. */
	unsigned corr_n;
	double mean_load, mean_rate, m2_load, m2_rate, c_load_rate;
};

struct watch_est_result {
	bool available;
	char why[256];			/* when not available: one sentence, no trailing period */
	unsigned intervals, used;
	double time_s, used_s;
	int cpu;			/* as in struct watch_est */
	double measured_bits_per_s;	/* R */
	double measured_busy_pct;	/* B */
	double per_core_bits_per_s;	/* P */
	double freq_mhz;		/* as given; NaN unknown */
	double per_ghz_bits_per_s;	/* G; NaN when the frequency is unknown */
	int cores;			/* as given; < 1 unknown */
	double uncapped_bits_per_s;	/* P * cores; NaN when cores unknown */
	double link_bits_per_s;		/* as given; NaN unknown */
	bool capped;			/* the link was lower than P * cores */
	double total_bits_per_s;	/* T; NaN when cores unknown */
	double load_capacity_bits_per_s;	/* the load's cores at 100 %: R * 100 / B (P x load_cores) */
	unsigned corr_n;		/* intervals in the correlation */
	double r;			/* Pearson r of load and traffic; NaN when fewer than 2 intervals */
	double load_sd;			/* standard deviation of the load, percentage points */
	bool r_judged;			/* enough intervals and a varying load to judge r */
};

/* Starts an empty estimate counting intervals at least MIN_BUSY_PCT busy. */
void watch_est_init(struct watch_est *e, double min_busy_pct);

/*
 * Offers one interval of DT_S seconds: the traffic RATE in bits/s (NaN
 * unknown) and the busiest core CPU with its busy % BUSY_PCT (NaN
 * unknown). Intervals with dt_s <= 0 or unknown busy are counted in
 * intervals but otherwise ignored.
 */
void watch_est_add(struct watch_est *e, double dt_s, double rate_bits_per_s, int cpu, double busy_pct);

/*
 * Offers one interval's load and rate for the correlation only. Called by
 * watch_est_add() for intervals with a known rate; exposed for tests.
 */
void watch_est_corr_add(struct watch_est *e, double load_pct, double rate_bits_per_s);

/*
 * Headroom in users: how many users of PER_USER bits/s the load's cores
 * hold at 100 % (*FIT) and how many more fit beside the traffic measured
 * (*MORE, at least 0), from an available R. Both floor()ed. Returns 0, or
 * -EINVAL for a rate <= 0 or an unavailable estimate.
 */
MUST_CHECK int watch_est_users(const struct watch_est_result *r, double per_user_bits_per_s, double *fit,
			       double *more);

/*
 * Computes the estimate from E with the clock FREQ_MHZ (NaN unknown),
 * CORES (< 1 unknown) and the link speed LINK_BITS_PER_S (NaN or <= 0
 * unknown: uncapped). Returns 0 with OUT->available set, or -ENODATA with
 * OUT->why saying why there is no estimate (no interval, none busy
 * enough, no traffic in the busy ones); the counts in OUT are filled
 * either way; also -ENODATA when r is judged and below WATCH_EST_MIN_R
 * (the why gives r, the intervals and the load's spread). With a load
 * that is the mean of several cores (load_cores), per core is
 * R * 100 / (B x load_cores).
 */
MUST_CHECK int watch_est_finish(const struct watch_est *e, double freq_mhz, int cores, double link_bits_per_s,
				struct watch_est_result *out);

#endif
