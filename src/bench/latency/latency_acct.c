/* SPDX-License-Identifier: MIT */
/*
 * Frame accounting and the statistics of one cell; the rules are written
 * out in latency_acct.h.
 */
#include "latency_acct.h"

#include <math.h>
#include <string.h>

void lat_acct_init(struct lat_acct *a)
{
	memset(a, 0, sizeof(*a));
	hist_init(&a->lat);
	hist_init(&a->wake);
}

bool lat_frame_wake(struct lat_acct *a, struct lat_frame *f, mono_ns target, mono_ns now)
{
	uint64_t k;
	mono_ns due;

	/*
	 * A frame that goes on to its work has its wake-up recorded when the
	 * work is done (lat_frame_done): one cut by the end of the run counts
	 * in neither histogram, so there is one wake-up sample per frame.
	 */
	f->wake_lat = elapsed_ns(target, now);
	if (!f->period)
		return true;
	due = f->deadline + f->period;
	if (now <= due)
		return true;
	hist_record(&a->wake, f->wake_lat);
	/* Lost before any work: every period that has begun since is lost too. */
	k = (now - due) / f->period + 1;
	a->missed += k;
	a->dropped += k;
	a->skipped += k;
	if (a->sample_missed)
		for (uint64_t i = 1; i <= k; i++)
			hist_record(&a->wake, elapsed_ns(f->deadline + i * f->period, now));
	f->deadline = due + k * f->period;
	hist_record(&a->lat, f->wake_lat + k * f->period);
	return false;
}

mono_ns lat_frame_done(struct lat_acct *a, struct lat_frame *f, mono_ns now)
{
	uint64_t penalty = 0, k;
	mono_ns due;

	a->done++;
	hist_record(&a->wake, f->wake_lat);
	if (!f->period) {
		if (f->deadline >= now) {
			a->met++;
		} else {
			a->unperiodic++;
			f->deadline = now;
		}
		hist_record(&a->lat, f->wake_lat);
		return now;
	}
	due = f->deadline + f->period;
	if (now <= due) {
		a->met++;
		f->deadline = due;
	} else {
		k = (now - due) / f->period + 1;
		a->missed += k;
		penalty = k * f->period;
		f->deadline = due + k * f->period;
		if (k > 1)
			a->dropped += k;
	}
	hist_record(&a->lat, f->wake_lat + penalty);
	return f->deadline;
}

void lat_game_chunk(struct lat_acct *a, uint64_t cpu_ns, uint64_t wall_ns)
{
	uint64_t over = wall_ns > cpu_ns ? wall_ns - cpu_ns : 0;

	a->done++;
	a->cpu_asked_ns += cpu_ns;
	a->overrun_ns += over;
	hist_record(&a->lat, over);
}

double lat_interbench_sd(uint64_t n, double mean, double sd)
{
	long double ln = (long double)n, m = mean, s = sd, sumsq, var;

	if (n < 2)
		return 0.0;
	sumsq = (ln - 1) * s * s + ln * m * m;
	var = (sumsq - m * m / ln) / (ln - 1);
	return var > 0 ? (double)sqrtl(var) : 0.0;
}

void lat_acct_summary(const struct lat_acct *a, bool gaming, struct lat_summary *s)
{
	const struct hist *h = &a->lat;

	memset(s, 0, sizeof(*s));
	s->samples = hist_count(h);
	s->mean_ns = hist_mean(h);
	s->sd_ns = hist_stddev(h);
	s->max_ns = (double)hist_max(h);
	s->p50_ns = (double)hist_percentile(h, 50);
	s->p90_ns = (double)hist_percentile(h, 90);
	s->p99_ns = (double)hist_percentile(h, 99);
	s->p999_ns = (double)hist_percentile(h, 99.9);
	s->interbench_sd_ns = lat_interbench_sd(s->samples, s->mean_ns, s->sd_ns);
	if (gaming) {
		uint64_t tot = a->cpu_asked_ns + a->overrun_ns;

		s->desired_cpu_pct = tot ? 100.0 * (double)a->cpu_asked_ns / (double)tot : NAN;
		s->deadlines_met_pct = NAN;
		return;
	}
	if (a->done + a->dropped)
		s->desired_cpu_pct = 100.0 * (double)a->done / (double)(a->done + a->dropped);
	else
		s->desired_cpu_pct = NAN;
	if (!a->met && !a->missed)
		s->deadlines_met_pct = NAN;
	else
		s->deadlines_met_pct = 100.0 * (double)a->met / (double)(a->met + a->missed);
}
