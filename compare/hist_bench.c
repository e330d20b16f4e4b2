/* SPDX-License-Identifier: MIT */
/*
 * Micro-benchmark of hist_record(), the call that sits inside every
 * latency-measuring loop of engpass. It measures the cost per value of
 * recording into one histogram, back to back, so that a benchmark author
 * can tell how much of a measured latency the measurement itself adds.
 *
 * Method: a buffer of 2^20 pseudo-random values of mixed magnitudes (a
 * xorshift64* stream, each value shifted right by a random 0..43 bits, so
 * magnitudes spread from 1 ns to 2^44 ns and every part of the bucket
 * table is hit) is generated before timing. The timed loop records N
 * values by walking the buffer cyclically. Each round is timed with
 * CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID; the report is the median
 * over the rounds of CPU time per value (wall time is shown too: on a
 * shared VM it also holds steal). The cost of the bare loop that reads the
 * same values and sums them is measured the same way and printed, not
 * subtracted: a real caller also has the value in a register or in memory.
 *
 * Build and run (from the top of the tree):
 *   gcc -O2 -std=c17 -D_GNU_SOURCE -include src/banned.h -Isrc \
 *       -o /tmp/hist_bench compare/hist_bench.c src/core/base/hist.c \
 *       src/core/base/clock.c -lm
 *   /tmp/hist_bench [NVALUES [ROUNDS]]      (defaults 100000000 and 5)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/base/clock.h"
#include "core/base/hist.h"

#define BUF_BITS	20
#define BUF_LEN		(1UL << BUF_BITS)
#define MAX_ROUNDS	101

struct round {
	double cpu_ns;		/* thread CPU ns per value */
	double wall_ns;		/* monotonic ns per value */
};

static uint64_t xorshift64s(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void fill(uint64_t *buf, size_t n)
{
	uint64_t s = 0x9E3779B97F4A7C15ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = xorshift64s(&s);

		/* 44 random bits, shifted right by 0..43: log-uniform-ish magnitudes. */
		buf[i] = (r >> 20) >> (xorshift64s(&s) % 44);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct round time_record(struct hist *h, const uint64_t *buf, uint64_t n)
{
	struct round r;
	mono_ns w0, w1;
	uint64_t c0, c1, i;

	hist_init(h);
	w0 = clock_mono();
	c0 = clock_thread_cpu_ns();
	for (i = 0; i < n; i++)
		hist_record(h, buf[i & (BUF_LEN - 1)]);
	c1 = clock_thread_cpu_ns();
	w1 = clock_mono();
	r.cpu_ns = (double)(c1 - c0) / (double)n;
	r.wall_ns = (double)elapsed_ns(w0, w1) / (double)n;
	return r;
}

static struct round time_loop(const uint64_t *buf, uint64_t n, uint64_t *sink)
{
	struct round r;
	mono_ns w0, w1;
	uint64_t c0, c1, i, sum = 0;

	w0 = clock_mono();
	c0 = clock_thread_cpu_ns();
	for (i = 0; i < n; i++) {
		sum += buf[i & (BUF_LEN - 1)];
		/* Keep the compiler from vectorising the loop away from the one above. */
		__asm__ volatile("" : "+r"(sum));
	}
	c1 = clock_thread_cpu_ns();
	w1 = clock_mono();
	*sink += sum;
	r.cpu_ns = (double)(c1 - c0) / (double)n;
	r.wall_ns = (double)elapsed_ns(w0, w1) / (double)n;
	return r;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' || !*out ? -1 : 0;
}

int main(int argc, char **argv)
{
	static double cpu[MAX_ROUNDS], wall[MAX_ROUNDS], lcpu[MAX_ROUNDS];
	uint64_t n = 100000000, rounds = 5, sink = 0, k;
	struct hist *h;
	uint64_t *buf;

	if (argc > 3 || (argc > 1 && parse_u64(argv[1], &n)) ||
	    (argc > 2 && (parse_u64(argv[2], &rounds) || rounds > MAX_ROUNDS))) {
		fprintf(stderr, "usage: hist_bench [NVALUES [ROUNDS<=%d]]\n", MAX_ROUNDS);
		return 2;
	}
	buf = malloc(BUF_LEN * sizeof(*buf));
	h = malloc(sizeof(*h));
	if (!buf || !h) {
		fprintf(stderr, "hist_bench: out of memory\n");
		return 1;
	}
	fill(buf, BUF_LEN);

	/* Warm-up: fault in the buffer and the histogram, settle the frequency. */
	(void)time_record(h, buf, BUF_LEN);
	for (k = 0; k < rounds; k++) {
		struct round r = time_record(h, buf, n);
		struct round l = time_loop(buf, n, &sink);

		cpu[k] = r.cpu_ns;
		wall[k] = r.wall_ns;
		lcpu[k] = l.cpu_ns;
	}

	printf("hist_record: %.1f ns/value (%llu values, method: median of %llu rounds of "
	       "thread CPU time, %lu pre-generated xorshift64* values of mixed magnitude "
	       "1..2^44 recorded cyclically, back to back)\n",
	       median(cpu, rounds), (unsigned long long)n, (unsigned long long)rounds,
	       BUF_LEN);
	printf("  cpu ns/value:  min %.2f  max %.2f\n", cpu[0], cpu[rounds - 1]);
	printf("  wall ns/value: median %.2f\n", median(wall, rounds));
	printf("  bare loop (read + add, not subtracted): %.2f ns/value\n", median(lcpu, rounds));
	printf("  check: count %llu  p50 %llu  p99 %llu  max %llu  mean %.0f  sd %.0f  (sink %llu)\n",
	       (unsigned long long)hist_count(h),
	       (unsigned long long)hist_percentile(h, 50),
	       (unsigned long long)hist_percentile(h, 99),
	       (unsigned long long)hist_max(h), hist_mean(h), hist_stddev(h),
	       (unsigned long long)(sink & 0xff));
	free(buf);
	free(h);
	return 0;
}
