/* SPDX-License-Identifier: MIT */
/*
 * disk's part of `engpass quick`, in the current directory and at most
 * 256 MiB of temp files: hdparm -T and -t, 4 KiB random reads at QD32,
 * 1 MiB sequential writes, and the torrent pattern with and without a
 * write cache; the findings compare -T with -t and the two torrent runs.
 */
#include <math.h>

#include "bench/bench.h"

enum { Q_HDPARM, Q_RAND_READ, Q_SEQ_WRITE, Q_TORRENT_0, Q_TORRENT_8M };

static const struct bench_quick_step steps[] = {
	[Q_HDPARM] = { .group = "disk", .order = 30, .why = "hdparm -T and -t in the current directory",
		       .args = { "-T", "-t", "--size", "256M", "--time", "2s" }, .extra_ms = 1500 /* the fill: 1.4 s here */ },
	[Q_RAND_READ] = { .group = "disk", .order = 30, .why = "4 KiB random reads at queue depth 32",
			  .args = { "--workload", "rand-read", "--bs", "4K", "--qd", "32", "--size", "256M", "--time",
				    "2s" }, .extra_ms = 2000 /* its own O_DIRECT data file's fill: 1.9 s here */ },
	[Q_SEQ_WRITE] = { .group = "disk", .order = 30, .why = "1 MiB sequential writes",
			  .args = { "--workload", "seq-write", "--bs", "1M", "--size", "256M", "--time", "2s" } },
	[Q_TORRENT_0] = { .group = "disk", .order = 30, .why = "the torrent pattern without a write cache",
			  .args = { "--workload", "torrent", "--size", "64M", "--cache", "0", "--time", "1s" },
			  .label = "cache 0" },
	[Q_TORRENT_8M] = { .group = "disk", .order = 30, .why = "the torrent pattern with an 8 MiB write cache",
			   .args = { "--workload", "torrent", "--size", "64M", "--cache", "8M", "--time", "1s" },
			   .label = "cache 8M" },
};

static void disk_findings(const struct bench_quick_result *r, size_t n, struct bench_findings *out)
{
	const struct result *a, *b;
	double x, y;

	a = bench_quick_find(r, n, Q_HDPARM, "cached");
	b = bench_quick_find(r, n, Q_HDPARM, "device");
	if (!isnan(x = bench_quick_metric(a, "read")) && !isnan(y = bench_quick_metric(b, "read")) && y > 0)
		bench_finding(out, "re-reading the page cache (a memory copy, hdparm -T) is %.0fx faster than reading "
			      "the device (hdparm -t).", x / y);
	a = bench_quick_find(r, n, Q_TORRENT_0, NULL);
	b = bench_quick_find(r, n, Q_TORRENT_8M, NULL);
	if (!isnan(x = bench_quick_metric(a, "device_write_requests")) &&
	    !isnan(y = bench_quick_metric(b, "device_write_requests")))
		bench_finding(out, "the torrent write pattern cost the device %.0f write requests without a write cache "
			      "and %.0f with 8 MiB (%.0f vs %.0f write calls).", x, y, bench_quick_metric(a, "write_calls"),
			      bench_quick_metric(b, "write_calls"));
}

const struct bench_quick disk_quick = {
	.steps = steps,
	.nsteps = ARRAY_SIZE(steps),
	.findings = disk_findings,
};
