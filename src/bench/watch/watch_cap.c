/* SPDX-License-Identifier: MIT */
/*
 * The capacity of a watched daemon from its own CPU time; the method and
 * its thresholds are in watch_cap.h.
 */
#include "bench/watch/watch_cap.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/hist.h"
#include "lib/xalloc.h"

void watch_cap_init(struct watch_cap *c)
{
	memset(c, 0, sizeof(*c));
	c->task = xmalloc(sizeof(*c->task));
	c->core = xmalloc(sizeof(*c->core));
	hist_init(c->task);
	hist_init(c->core);
}

void watch_cap_release(struct watch_cap *c)
{
	free(c->task);
	free(c->core);
	c->task = c->core = NULL;
}

static void record(struct hist *h, double v)
{
	hist_record(h, v >= 18e18 ? UINT64_MAX : (uint64_t)llround(v));
}

void watch_cap_add(struct watch_cap *c, double dt_s, double rate, double run_s, double extra_s, double tick_pct,
		   double own_pct)
{
	double d, dd, dr;

	c->intervals++;
	if (!(dt_s > 0))
		return;
	c->time_s += dt_s;
	if (!(rate >= WATCH_CAP_MIN_BITS))
		return;
	if (!(run_s > 0)) {
		c->no_run++;
		return;
	}
	if (!(extra_s >= 0))
		extra_s = 0;
	c->used++;
	c->used_s += dt_s;
	c->bits += rate * dt_s;
	c->run_s += run_s;
	c->extra_s += extra_s;
	record(c->task, rate * dt_s / run_s);
	record(c->core, rate * dt_s / (run_s + extra_s));
	d = run_s / dt_s;
	dd = d - c->mean_d;
	dr = rate - c->mean_r;
	c->mean_d += dd / c->used;
	c->mean_r += dr / c->used;
	c->m2_d += dd * (d - c->mean_d);
	c->m2_r += dr * (rate - c->mean_r);
	c->c_dr += dd * (rate - c->mean_r);
	if (!isnan(tick_pct) && !isnan(own_pct)) {
		double x = tick_pct - own_pct, dx;

		c->alias_n++;
		dx = x - c->alias_mean;
		c->alias_mean += dx / c->alias_n;
		c->alias_m2 += dx * (x - c->alias_mean);
	}
}

/* The median of H and its 95 % interval from the order statistics. */
static void median_ci(const struct hist *h, double *med, double *lo, double *hi)
{
	double n = (double)hist_count(h), half = 100.0 * WATCH_CAP_Z / 2 / sqrt(n);

	*med = (double)hist_percentile(h, 50);
	*lo = (double)hist_percentile(h, 50 - half);
	*hi = (double)hist_percentile(h, 50 + half);
}

int watch_cap_finish(const struct watch_cap *c, double avail_task, double avail_core, int cores, double link,
		     struct watch_cap_result *out)
{
	double bound_task, bound_core, spread;

	memset(out, 0, sizeof(*out));
	out->intervals = c->intervals;
	out->used = c->used;
	out->used_s = c->used_s;
	out->avail_task = avail_task;
	out->avail_core = avail_core;
	out->cores = cores;
	out->link_bits_per_s = link > 0 ? link : NAN;
	out->traffic_bits_per_s = out->run_cores = out->extra_cores = NAN;
	out->per_cpu = out->per_cpu_lo = out->per_cpu_hi = NAN;
	out->per_core = out->per_core_lo = out->per_core_hi = NAN;
	out->capacity = out->capacity_lo = out->capacity_hi = out->total_bits_per_s = out->load_pct = NAN;
	out->r = out->traffic_cv = out->alias_mean = out->alias_sd = NAN;
	out->alias_n = c->alias_n;
	if (c->alias_n) {
		out->alias_mean = c->alias_mean;
		out->alias_sd = c->alias_n > 1 ? sqrt(c->alias_m2 / (c->alias_n - 1)) : 0;
		if (c->alias_n >= WATCH_CAP_MIN_N) {
			out->alias_under = out->alias_mean < -WATCH_CAP_ALIAS_MEAN;
			out->alias_swing = out->alias_sd > WATCH_CAP_ALIAS_SD;
			out->alias_over = out->alias_mean > WATCH_CAP_ALIAS_MEAN;
		}
	}
	if (c->used >= 2) {
		out->traffic_cv = c->mean_r > 0 ? sqrt(c->m2_r / c->used) / c->mean_r : NAN;
		if (c->m2_d > 0 && c->m2_r > 0)
			out->r = c->c_dr / sqrt(c->m2_d * c->m2_r);
		out->r_judged = c->used >= WATCH_CAP_MIN_N && out->traffic_cv >= WATCH_CAP_MIN_CV && !isnan(out->r);
	}
	if (c->used) {
		out->traffic_bits_per_s = c->bits / c->used_s;
		out->run_cores = c->run_s / c->used_s;
		out->extra_cores = c->extra_s / c->used_s;
	}
	if (c->used < WATCH_CAP_MIN_N) {
		if (c->no_run && c->no_run >= c->used)
			snprintf(out->why, sizeof(out->why),
				 "the process's run time was unknown or zero in %u of the %u intervals with traffic: it "
				 "does not carry this traffic, or its schedstat cannot be read",
				 c->no_run, c->no_run + c->used);
		else
			snprintf(out->why, sizeof(out->why),
				 "too few intervals with traffic: %u of %u had %.0f kbit/s or more and the process's run "
				 "time (%d needed)", c->used, c->intervals, WATCH_CAP_MIN_BITS / 1e3, WATCH_CAP_MIN_N);
		return -ENODATA;
	}
	if (out->r_judged && out->r < WATCH_CAP_MIN_R) {
		snprintf(out->why, sizeof(out->why),
			 "the process's CPU and the traffic did not move together: r = %.2f over %u intervals (below "
			 "%.1f, with the traffic varying by %.0f %%), so its CPU is not spent on this traffic",
			 out->r, c->used, WATCH_CAP_MIN_R, 100 * out->traffic_cv);
		return -ENODATA;
	}
	median_ci(c->task, &out->per_cpu, &out->per_cpu_lo, &out->per_cpu_hi);
	median_ci(c->core, &out->per_core, &out->per_core_lo, &out->per_core_hi);
	spread = out->per_core_lo > 0 ? out->per_core_hi / out->per_core_lo : INFINITY;
	if (spread > WATCH_CAP_MAX_SPREAD) {
		snprintf(out->why, sizeof(out->why),
			 "the traffic per CPU-second of the process was not steady: its 95 %% interval over %u intervals "
			 "spans a factor %.1f (more than %.0f), so the CPU is not proportional to this traffic",
			 c->used, spread, WATCH_CAP_MAX_SPREAD);
		return -ENODATA;
	}
	bound_task = avail_task * out->per_cpu;
	bound_core = avail_core * out->per_core;
	out->quota_bound = bound_task < bound_core;
	if (out->quota_bound) {
		out->capacity = bound_task;
		out->capacity_lo = avail_task * out->per_cpu_lo;
		out->capacity_hi = avail_task * out->per_cpu_hi;
	} else {
		out->capacity = bound_core;
		out->capacity_lo = avail_core * out->per_core_lo;
		out->capacity_hi = avail_core * out->per_core_hi;
	}
	if (cores >= 1) {
		out->total_bits_per_s = out->per_core * cores;
		if (!isnan(out->link_bits_per_s) && out->link_bits_per_s < out->total_bits_per_s) {
			out->total_bits_per_s = out->link_bits_per_s;
			out->capped = true;
		}
	}
	if (out->capacity > 0)
		out->load_pct = 100 * out->traffic_bits_per_s / out->capacity;
	out->available = true;
	return 0;
}
