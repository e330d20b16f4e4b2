/* SPDX-License-Identifier: MIT */
/*
 * mem's part of `engpass quick`: bandwidth and the latency curve, and, as
 * root, a small swap ladder in a sandbox (a part of its own, "ladder", at
 * the end of the profile); the findings read the largest latency and the
 * ladder's resident and swapped read rates.
 */
#include <math.h>
#include <string.h>

#include "bench/bench.h"

enum { Q_BW_LAT, Q_LADDER };

static const struct bench_quick_step steps[] = {
	[Q_BW_LAT] = { .group = "mem", .order = 20, .why = "memory bandwidth and the latency curve",
		       .args = { "--bandwidth", "--latency", "--time", "3s" } },
	[Q_LADDER] = { .group = "ladder", .order = 60, .why = "a small swap ladder in a sandbox",
		       .args = { "--ladder", "--sandbox", "64M", "--swapfile", "128M", "--sizes", "0.5x,1.5x",
				 "--time", "500ms" },
		       /*
			* Each rung keeps --time (the 1.5x one's write pass stops at half
			* of it, its read pass at its end); beyond it the sandbox's set-up
			* and teardown, 0.1-0.15 s per rung here. The resident rung ends
			* well before its time: the ladder took 0.73-0.81 s here for the
			* 1.5 s its ETA says (before --time: 1.3-2.4 s for 2.2 s).
			*/
		       .needs_root = "a memory cgroup and a swap file", .extra_ms = 300 },
};

static void mem_findings(const struct bench_quick_result *r, size_t n, struct bench_findings *out)
{
	const struct result *lat = bench_quick_find(r, n, Q_BW_LAT, "latency");
	const struct metric *lm = lat ? result_find_metric(lat, "lat_largest") : NULL;
	double x, res_read = NAN, swap_read = NAN;

	/* The largest set that fit the time may still be inside the cache: its label says which. */
	if (!isnan(x = bench_quick_metric(lat, "lat_largest")) && lm && lm->label && strstr(lm->label, "DRAM"))
		bench_finding(out, "a dependent load from memory too big for the caches takes %.0f ns.", x);
	/* Each rung says in its read figure's label whether it stayed resident or went through swap. */
	for (size_t i = 0; i < n; i++) {
		const struct metric *m = r[i].step == Q_LADDER ? result_find_metric(r[i].res, "read") : NULL;

		if (!m || !m->label || isnan(m->value))
			continue;
		if (strstr(m->label, "resident"))
			res_read = m->value;
		else if (strstr(m->label, "swap"))
			swap_read = m->value;
	}
	if (!isnan(res_read) && !isnan(swap_read) && swap_read > 0)
		bench_finding(out, "reading memory back through swap is %.0fx slower than from RAM.", res_read / swap_read);
}

const struct bench_quick mem_quick = {
	.steps = steps,
	.nsteps = ARRAY_SIZE(steps),
	.findings = mem_findings,
};
