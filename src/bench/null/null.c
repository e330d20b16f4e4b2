/* SPDX-License-Identifier: MIT */
/*
 * The null benchmark: measures nothing real, on purpose. Like fio's null
 * engine it exists to drive the whole pipeline deterministically -- option
 * parsing, dispatch, repetitions, the sampler, the histogram, the result
 * model, the verdict and every renderer -- so the pipeline has an
 * end-to-end test whose figures are known in advance.
 *
 * It records --values synthetic latencies from a fixed-seed generator (90 %
 * between 1 and 10 us, 10 % between 1 and 2 ms), spins one CPU for --time
 * (default: not at all) so the sampler has something to see, and can be
 * told to end skipped or failed to exercise those paths.
 */
#include <stdint.h>

#include "bench/bench.h"
#include "core/base/clock.h"
#include "core/base/hist.h"

struct null_opts {
	int64_t values;
	int64_t seed;
	int outcome;
};

static const char *const outcomes[] = { "ok", "skip", "fail", NULL };

static const struct opt null_options[] = {
	OPT_INT("values", 0, struct null_opts, values, 1, 100000000, "N",
		"synthetic latencies to record (default 100000)"),
	OPT_INT("seed", 0, struct null_opts, seed, 0, INT64_MAX, "N",
		"seed of the generator (default 1)"),
	OPT_CHOICE("outcome", 0, struct null_opts, outcome, outcomes, "WORD",
		   "end as ok, skipped or failed (default ok)"),
	OPT_END,
};

static void null_defaults(void *p)
{
	struct null_opts *o = p;

	o->values = 100000;
	o->seed = 1;
}

/* 64-bit LCG (Knuth's MMIX constants); the high bits are the good ones. */
static uint64_t next(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

static void null_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct null_opts *o = p;
	struct hist h;
	uint64_t x = (uint64_t)o->seed;
	uint64_t spins = 0;

	result_param(res, "values", "%lld", (long long)o->values);
	result_param(res, "seed", "%lld", (long long)o->seed);
	result_method(res, "source", "fixed-seed LCG: 90%% uniform 1-10 us, 10%% uniform 1-2 ms");
	result_method(res, "histogram", "log-linear, 64 sub-buckets per power of two");
	if (o->outcome == 1) {
		result_set_status(res, RESULT_SKIPPED, "asked to skip with --outcome skip");
		return;
	}
	if (o->outcome == 2) {
		result_set_status(res, RESULT_FAILED, "asked to fail with --outcome fail");
		return;
	}

	hist_init(&h);
	for (int64_t i = 0; i < o->values; i++) {
		uint64_t r = next(&x);
		uint64_t v = (r % 10) ? 1000 + r % 9000 : 1000000 + r % 1000000;
		hist_record(&h, v);
	}
	result_metric(res, "values", UNIT_COUNT, (double)hist_count(&h), "values recorded");
	result_metric(res, "lat_mean", UNIT_NS, hist_mean(&h), "mean")->higher_is_better = false;
	result_metric(res, "lat_sd", UNIT_NS, hist_stddev(&h), "standard deviation")->higher_is_better = false;
	result_metric(res, "lat_p50", UNIT_NS, (double)hist_percentile(&h, 50), "p50")->higher_is_better = false;
	result_metric(res, "lat_p99", UNIT_NS, (double)hist_percentile(&h, 99), "p99")->higher_is_better = false;
	result_metric(res, "lat_max", UNIT_NS, (double)hist_max(&h), "max")->higher_is_better = false;
	result_hist(res, "lat", UNIT_NS, &h);
	result_headline(res, "lat_p99");

	if (env->time_ns) {
		mono_ns start = clock_mono(), end = start + env->time_ns;
		uint64_t cpu0 = clock_thread_cpu_ns();
		volatile uint64_t sink = 0;

		while (clock_mono() < end && !*env->stop) {
			for (int i = 0; i < 1000; i++)
				sink += (uint64_t)i;
			spins++;
		}
		result_method(res, "spin", "busy loop in one thread, timed by CLOCK_THREAD_CPUTIME_ID and CLOCK_MONOTONIC");
		result_metric(res, "spin_cpu_share", UNIT_PERCENT,
			      100.0 * (double)(clock_thread_cpu_ns() - cpu0) / (double)elapsed_ns(start, clock_mono()),
			      "spin CPU share");
	}
}

const struct bench bench_null = {
	.name = "null",
	.summary = "deterministic self-test of the measurement pipeline",
	.usage = "[options]",
	.description =
		"Records synthetic latencies from a fixed-seed generator into the histogram and\n"
		"reports them through the result model, so every renderer and the sampler can be\n"
		"tested end to end. The figures are known in advance; nothing real is measured\n"
		"except, with --time D, the CPU share of a thread spinning for D.",
	.flags = BENCH_NO_IO,
	.opts = null_options,
	.opts_size = sizeof(struct null_opts),
	.defaults = null_defaults,
	.run = null_run,
};
