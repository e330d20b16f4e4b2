/* SPDX-License-Identifier: MIT */
/*
 * latency's part of `engpass quick`: audio and video alone and beside a
 * CPU hog, and what the hog cost them.
 */
#include <math.h>

#include "bench/bench.h"

static const struct bench_quick_step steps[] = {
	{ .group = "latency", .order = 50, .why = "interactivity under a CPU hog",
	  .args = { "--task", "audio,video", "--load", "none,burn", "--time", "2s", "--warmup", "500ms" },
	  .extra_ms = 4 * 500 /* the warm-up of each of the four cells */ },
};

static void latency_findings(const struct bench_quick_result *r, size_t n, struct bench_findings *out)
{
	double x, y;

	x = bench_quick_metric(bench_quick_find(r, n, 0, "audio/none"), "deadlines_met");
	y = bench_quick_metric(bench_quick_find(r, n, 0, "audio/burn"), "deadlines_met");
	if (!isnan(x) && !isnan(y))
		bench_finding(out, "audio met %.1f %% of its deadlines alone and %.1f %% beside a CPU hog.", x, y);
	if (!isnan(x = bench_quick_metric(bench_quick_find(r, n, 0, "video/burn"), "desired_cpu")))
		bench_finding(out, "video got %.0f %% of the CPU it wanted beside a CPU hog.", x);
}

const struct bench_quick latency_quick = {
	.steps = steps,
	.nsteps = ARRAY_SIZE(steps),
	.findings = latency_findings,
};
