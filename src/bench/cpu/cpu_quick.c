/* SPDX-License-Identifier: MIT */
/*
 * cpu's part of `engpass quick`: the cipher cost per core and per GHz of
 * the VPN ciphers of seed 004, and the finding that compares it with
 * fastd's figure.
 */
#include <math.h>

#include "bench/bench.h"

static const struct bench_quick_step steps[] = {
	{ .group = "cpu", .order = 10, .why = "cipher cost per core and per GHz",
	  .args = { "--cipher", "chacha20-poly1305,salsa2012", "--size", "1400", "--lib", "auto", "--time", "1s" } },
};

static void cpu_findings(const struct bench_quick_result *r, size_t n, struct bench_findings *out)
{
	const struct result *a = bench_quick_find(r, n, 0, "chacha20-poly1305/1400B/openssl/1 thread");
	double x;

	if (!a)
		a = bench_quick_find(r, n, 0, "chacha20-poly1305/1400B/sodium/1 thread");
	if (!isnan(x = bench_quick_metric(a, "bitrate_per_ghz")))
		bench_finding(out, "chacha20-poly1305 on 1400-byte packets: %.0f Mbit/s per GHz of one core (a fastd "
			      "VPN supernode on KVM measured ~70 Mbit/s per GHz for its whole path).", x / 1e6);
}

const struct bench_quick cpu_quick = {
	.steps = steps,
	.nsteps = ARRAY_SIZE(steps),
	.findings = cpu_findings,
};
