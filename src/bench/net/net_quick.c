/* SPDX-License-Identifier: MIT */
/*
 * net's part of `engpass quick`: one TCP stream over loopback, and 60 KiB
 * requests one at a time and two in flight over a 1 ms round trip (seed
 * 002), each against its own `net server --one-off` on loopback, which
 * quick starts as the step's peer.
 */
#include <math.h>

#include "bench/bench.h"

enum { Q_LOOPBACK, Q_RR_1, Q_RR_2 };

#define Q_SERVER "net", "server", "--bind", "127.0.0.1", "--port", "@PORT", "--one-off", "--idle-timeout", "30s"

static const struct bench_quick_step steps[] = {
	[Q_LOOPBACK] = { .group = "net", .order = 40, .why = "one TCP stream over loopback",
			 .args = { "client", "127.0.0.1", "--port", "@PORT", "--time", "3s", "--capacity" },
			 .label = "over loopback", .peer = { Q_SERVER } },
	[Q_RR_1] = { .group = "net", .order = 40, .why = "60 KiB requests one at a time over a 1 ms round trip",
		     .args = { "client", "127.0.0.1", "--port", "@PORT", "--mode", "rr", "--block", "60K", "--depth", "1",
			       "--time", "2s" },
		     .label = "rr depth 1", .peer = { Q_SERVER, "--delay", "1ms" } },
	[Q_RR_2] = { .group = "net", .order = 40, .why = "60 KiB requests two in flight over a 1 ms round trip",
		     .args = { "client", "127.0.0.1", "--port", "@PORT", "--mode", "rr", "--block", "60K", "--depth", "2",
			       "--time", "2s" },
		     .label = "rr depth 2", .peer = { Q_SERVER, "--delay", "1ms" } },
};

static void net_findings(const struct bench_quick_result *r, size_t n, struct bench_findings *out)
{
	const struct result *a = bench_quick_find(r, n, Q_LOOPBACK, NULL);
	double x, y;

	if (!isnan(x = bench_quick_metric(a, "throughput"))) {
		y = bench_quick_metric(a, "capacity_per_ghz");
		if (isnan(y))
			bench_finding(out, "one TCP stream over loopback moved %.1f Gbit/s.", x / 1e9);
		else
			bench_finding(out, "one TCP stream over loopback moved %.1f Gbit/s; divided by the busiest "
				      "core's share and its clock, that is an ESTIMATED %.2f Gbit/s per GHz of one core.",
				      x / 1e9, y / 1e9);
	}
	x = bench_quick_metric(bench_quick_find(r, n, Q_RR_1, NULL), "throughput");
	y = bench_quick_metric(bench_quick_find(r, n, Q_RR_2, NULL), "throughput");
	if (!isnan(x) && !isnan(y) && x > 0)
		bench_finding(out, "over a 1 ms round trip, 60 KiB requests one at a time moved %.0f Mbit/s and two in "
			      "flight %.0f Mbit/s (%.1fx): the round trip, not the wire, set the pace (an SMB "
			      "file fetch in 60 KiB blocks over gigabit Ethernet measured 59 vs 92 MB/s, "
			      "472 vs 736 Mbit/s).",
			      8 * x / 1e6, 8 * y / 1e6, y / x);
}

const struct bench_quick net_quick = {
	.steps = steps,
	.nsteps = ARRAY_SIZE(steps),
	.findings = net_findings,
};
