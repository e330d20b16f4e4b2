/* SPDX-License-Identifier: MIT */
/*
 * The capacity estimate of `engpass watch`; the formula and why it only
 * uses intervals near saturation are in watch_est.h.
 */
#include "bench/watch/watch_est.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void watch_est_init(struct watch_est *e, double min_busy_pct)
{
	memset(e, 0, sizeof(*e));
	e->min_busy_pct = min_busy_pct;
	e->peak_busy_pct = NAN;
	e->cpu = -1;
	e->load_cores = 1;
}

void watch_est_corr_add(struct watch_est *e, double load_pct, double rate_bits_per_s)
{
	double dl, dr;

	if (isnan(load_pct) || isnan(rate_bits_per_s))
		return;
	e->corr_n++;
	dl = load_pct - e->mean_load;
	dr = rate_bits_per_s - e->mean_rate;
	e->mean_load += dl / e->corr_n;
	e->mean_rate += dr / e->corr_n;
	e->m2_load += dl * (load_pct - e->mean_load);
	e->m2_rate += dr * (rate_bits_per_s - e->mean_rate);
	e->c_load_rate += dl * (rate_bits_per_s - e->mean_rate);
}

int watch_est_users(const struct watch_est_result *r, double per_user_bits_per_s, double *fit, double *more)
{
	if (!r->available || !(per_user_bits_per_s > 0) || !(r->load_capacity_bits_per_s > 0))
		return -EINVAL;
	*fit = floor(r->load_capacity_bits_per_s / per_user_bits_per_s);
	*more = floor((r->load_capacity_bits_per_s - r->measured_bits_per_s) / per_user_bits_per_s);
	if (*more < 0)
		*more = 0;
	return 0;
}

/* r and the load's spread into OUT. */
static void corr_finish(const struct watch_est *e, struct watch_est_result *out)
{
	out->corr_n = e->corr_n;
	out->r = out->load_sd = NAN;
	if (e->corr_n < 2)
		return;
	out->load_sd = sqrt(e->m2_load / e->corr_n);
	if (e->m2_load > 0 && e->m2_rate > 0)
		out->r = e->c_load_rate / sqrt(e->m2_load * e->m2_rate);
	else if (e->m2_load > 0)
		out->r = 0;	/* the load moved, the traffic did not */
	out->r_judged = e->corr_n >= WATCH_EST_MIN_CORR_N && out->load_sd >= WATCH_EST_MIN_LOAD_SD &&
			!isnan(out->r);
}

void watch_est_add(struct watch_est *e, double dt_s, double rate_bits_per_s, int cpu, double busy_pct)
{
	e->intervals++;
	if (!(dt_s > 0) || isnan(busy_pct))
		return;
	if (!isnan(rate_bits_per_s) && rate_bits_per_s >= 0)
		watch_est_corr_add(e, busy_pct, rate_bits_per_s);
	e->time_s += dt_s;
	if (isnan(e->peak_busy_pct) || busy_pct > e->peak_busy_pct)
		e->peak_busy_pct = busy_pct;
	if (busy_pct < e->min_busy_pct)
		return;
	if (isnan(rate_bits_per_s) || rate_bits_per_s < 0) {
		e->busy_no_rate++;
		return;
	}
	e->used++;
	e->used_s += dt_s;
	e->bits += rate_bits_per_s * dt_s;
	e->busy_s += busy_pct * dt_s;
	if (e->cpu == -1)
		e->cpu = cpu;
	else if (e->cpu != cpu)
		e->cpu = -2;
}

int watch_est_finish(const struct watch_est *e, double freq_mhz, int cores, double link_bits_per_s,
		     struct watch_est_result *out)
{
	memset(out, 0, sizeof(*out));
	out->intervals = e->intervals;
	out->used = e->used;
	out->time_s = e->time_s;
	out->used_s = e->used_s;
	out->cpu = e->cpu;
	out->freq_mhz = freq_mhz;
	out->cores = cores;
	out->link_bits_per_s = link_bits_per_s > 0 ? link_bits_per_s : NAN;
	out->measured_bits_per_s = out->measured_busy_pct = out->per_core_bits_per_s = NAN;
	out->per_ghz_bits_per_s = out->uncapped_bits_per_s = out->total_bits_per_s = NAN;
	out->load_capacity_bits_per_s = NAN;
	corr_finish(e, out);

	if (!e->intervals || !(e->time_s > 0)) {
		snprintf(out->why, sizeof(out->why), "no complete interval with CPU data was observed");
		return -ENODATA;
	}
	if (!e->used && e->busy_no_rate) {
		snprintf(out->why, sizeof(out->why),
			 "the traffic rate was unknown in all %u intervals with the busiest core at %.0f %% or more",
			 e->busy_no_rate, e->min_busy_pct);
		return -ENODATA;
	}
	if (!e->used) {
		snprintf(out->why, sizeof(out->why),
			 "the busiest core reached %.0f %% at most (in %u intervals), below the %.0f %% at which "
			 "a linear extrapolation to 100 %% is taken",
			 e->peak_busy_pct, e->intervals, e->min_busy_pct);
		return -ENODATA;
	}
	out->measured_bits_per_s = e->bits / e->used_s;
	out->measured_busy_pct = e->busy_s / e->used_s;
	if (!(out->measured_bits_per_s > 0)) {
		snprintf(out->why, sizeof(out->why),
			 "no traffic in the %u intervals with the busiest core at %.0f %% or more: the busy core was "
			 "not moving this traffic",
			 e->used, e->min_busy_pct);
		return -ENODATA;
	}
	out->load_capacity_bits_per_s = out->measured_bits_per_s * 100.0 / out->measured_busy_pct;
	out->per_core_bits_per_s = out->load_capacity_bits_per_s / (e->load_cores > 1 ? e->load_cores : 1);
	if (freq_mhz > 0)
		out->per_ghz_bits_per_s = out->per_core_bits_per_s / (freq_mhz / 1000.0);
	if (cores >= 1) {
		out->uncapped_bits_per_s = out->per_core_bits_per_s * cores;
		out->total_bits_per_s = out->uncapped_bits_per_s;
		if (!isnan(out->link_bits_per_s) && out->link_bits_per_s < out->uncapped_bits_per_s) {
			out->total_bits_per_s = out->link_bits_per_s;
			out->capped = true;
		}
	}
	if (out->r_judged && out->r < WATCH_EST_MIN_R) {
		snprintf(out->why, sizeof(out->why),
			 "the load and the traffic did not move together: r = %.2f over %u intervals (below %.1f, "
			 "with the load varying by %.1f points), so something other than this traffic drives the load",
			 out->r, out->corr_n, WATCH_EST_MIN_R, out->load_sd);
		return -ENODATA;
	}
	out->available = true;
	return 0;
}
