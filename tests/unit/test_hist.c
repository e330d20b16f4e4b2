/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the log-linear histogram (src/core/base/hist.c): bucket
 * arithmetic over the whole range, percentiles against the exact
 * nearest-rank percentiles of the same data (sorted), within the error
 * bound derived in hist.h, clamping, the true standard deviation against a
 * two-pass computation and known answers, merging and record_n (which must
 * match recording one by one exactly), the overflow bucket and the
 * empty histogram. Data come from fixed-seed generators, so every run
 * checks the same numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "lib/compiler.h"
#include "core/base/hist.h"
#include "lib/xalloc.h"

#define NVALUES 100000		/* a multiple of 10000, so p = 99.99 % has an exact rank */

/* Percentiles to check, in hundredths of a percent (10000 = 100 %). */
static const unsigned int pcts[] = {
	0, 1, 10, 100, 1000, 2500, 5000, 6999, 7000, 7001, 7500, 9000, 9500,
	9900, 9990, 9999, 10000,
};

static uint64_t lcg_state;

static void lcg_seed(uint64_t seed)
{
	lcg_state = seed;
}

/* Knuth's MMIX LCG; the high bits are good enough for test data. */
static uint64_t lcg_next(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lcg_state >> 11;		/* 53 bits */
}

/* Uniform double in [0, 1). */
static double lcg_unit(void)
{
	return (double)lcg_next() * 0x1p-53;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Exact nearest-rank percentile of sorted[0..n) for pp hundredths of a percent. */
static uint64_t exact_pct(const uint64_t *sorted, size_t n, unsigned int pp)
{
	uint64_t rank = ((uint64_t)pp * n + 9999) / 10000;

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

/*
 * The references sum differences from v[0]: where long double is a plain
 * double (MIPS, ARM) a sum of a million values near 1e12 would lose the
 * very digits the tests check.
 */
static double two_pass_sd(const uint64_t *v, size_t n)
{
	long double sum = 0, mean, ss = 0;
	size_t i;

	if (n < 2)
		return 0.0;
	for (i = 0; i < n; i++)
		sum += (long double)v[i] - (long double)v[0];
	mean = sum / (long double)n;
	for (i = 0; i < n; i++) {
		long double d = ((long double)v[i] - (long double)v[0]) - mean;
		ss += d * d;
	}
	return (double)sqrtl(ss / (long double)(n - 1));
}

static double two_pass_mean(const uint64_t *v, size_t n)
{
	long double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += (long double)v[i] - (long double)v[0];
	return n ? (double)((long double)v[0] + sum / (long double)n) : 0.0;
}

static void assert_rel(double got, double want, double tol)
{
	double err = fabs(got - want);

	if (want == 0.0) {
		assert_true(err <= tol);
		return;
	}
	if (err > tol * fabs(want))
		fail_msg("got %.17g, want %.17g (relative error %.3g > %.3g)",
			 got, want, err / fabs(want), tol);
}

/*
 * Record v[0..n) into a histogram and check every percentile of pcts[]
 * against the sorted data: within x/128 of the exact value x, inside
 * [min, max], exact at p = 0 and p = 100; then count, min, max, mean, SD.
 */
static void check_data(uint64_t *v, size_t n, const char *name)
{
	struct hist h = HIST_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		hist_record(&h, v[i]);
	assert_rel(hist_mean(&h), two_pass_mean(v, n), 1e-12);
	assert_rel(hist_stddev(&h), two_pass_sd(v, n), 1e-9);
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(hist_count(&h), n);
	assert_int_equal(hist_min(&h), v[0]);
	assert_int_equal(hist_max(&h), v[n - 1]);
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		uint64_t want = exact_pct(v, n, pcts[i]);
		uint64_t got = hist_percentile(&h, pcts[i] / 100.0);
		uint64_t err = got > want ? got - want : want - got;

		if (err > want / 128)
			fail_msg("%s: p%.2f = %llu, exact %llu, error %llu > x/128",
				 name, pcts[i] / 100.0, (unsigned long long)got,
				 (unsigned long long)want, (unsigned long long)err);
		assert_true(got >= hist_min(&h));
		assert_true(got <= hist_max(&h));
	}
	assert_int_equal(hist_percentile(&h, 0.0), v[0]);
	assert_int_equal(hist_percentile(&h, 100.0), v[n - 1]);
}

static void test_empty(void **state)
{
	struct hist h = HIST_INIT;
	struct hist g;
	size_t i;

	(void)state;
	hist_init(&g);
	assert_memory_equal(&h, &g, sizeof(h));
	assert_int_equal(hist_count(&h), 0);
	assert_int_equal(hist_min(&h), 0);
	assert_int_equal(hist_max(&h), 0);
	assert_true(hist_mean(&h) == 0.0);
	assert_true(hist_stddev(&h) == 0.0);
	assert_int_equal(hist_percentile(&h, 0.0), 0);
	assert_int_equal(hist_percentile(&h, 50.0), 0);
	assert_int_equal(hist_percentile(&h, 100.0), 0);
	for (i = 0; i < hist_nbuckets(); i++)
		assert_int_equal(hist_bucket_count(&h, i), 0);
	/* Merging an empty histogram changes nothing. */
	hist_merge(&g, &h);
	assert_memory_equal(&h, &g, sizeof(h));
	/* hist_init() resets a used histogram. */
	hist_record(&g, 42);
	hist_init(&g);
	assert_memory_equal(&h, &g, sizeof(h));
}

static void test_layout_constants(void **state)
{
	(void)state;
	assert_int_equal(HIST_SUB, 64);
	assert_int_equal(hist_nbuckets(), HIST_NBUCKETS);
	assert_int_equal(HIST_NBUCKETS, 2497);
	assert_int_equal(HIST_OVERFLOW, 2496);
	/* The range covers at least 1000 s in nanoseconds. */
	assert_true(HIST_RANGE_MAX > 1000ULL * 1000000000ULL);
	/* The memory cost stated in hist.h. */
	assert_int_equal(sizeof(struct hist), 20040);
}

static const struct {
	uint64_t v;
	size_t idx;
} index_table[] = {
	{ 0, 0 }, { 1, 1 }, { 63, 63 }, { 64, 64 }, { 100, 100 }, { 127, 127 },
	{ 128, 128 }, { 129, 128 }, { 130, 129 }, { 255, 191 }, { 256, 192 },
	{ 259, 192 }, { 260, 193 }, { 1000, 3 * 64 + (1000 >> 3) },
	{ (1ULL << 44) - 1, 2495 }, { 1ULL << 44, 2496 },
	{ (1ULL << 44) + 1, 2496 }, { UINT64_MAX, 2496 },
};

static void test_bucket_index_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(index_table); i++) {
		uint64_t lo, hi;

		if (hist_bucket_of(index_table[i].v) != index_table[i].idx)
			fail_msg("bucket_of(%llu) = %zu, want %zu",
				 (unsigned long long)index_table[i].v,
				 hist_bucket_of(index_table[i].v), index_table[i].idx);
		hist_bucket_range(index_table[i].idx, &lo, &hi);
		assert_true(lo <= index_table[i].v);
		if (index_table[i].idx != HIST_OVERFLOW)
			assert_true(index_table[i].v < hi);
	}
}

/* Every bucket maps back to itself, buckets tile the range, widths obey the bound. */
static void test_bucket_round_trip(void **state)
{
	uint64_t next = 0, lo, hi;
	size_t i;

	(void)state;
	for (i = 0; i < HIST_OVERFLOW; i++) {
		hist_bucket_range(i, &lo, &hi);
		assert_int_equal(lo, next);
		assert_true(hi > lo);
		assert_int_equal(hist_bucket_of(lo), i);
		assert_int_equal(hist_bucket_of(hi - 1), i);
		assert_int_equal(hist_bucket_of(lo + (hi - lo) / 2), i);
		if (lo < 128)
			assert_int_equal(hi - lo, 1);
		else
			assert_true((hi - lo) * 64 <= lo);
		next = hi;
	}
	assert_int_equal(next, HIST_RANGE_MAX);
	hist_bucket_range(HIST_OVERFLOW, &lo, &hi);
	assert_int_equal(lo, HIST_RANGE_MAX);
	assert_int_equal(hi, UINT64_MAX);
	hist_bucket_range(HIST_NBUCKETS, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 0);

	/* Random values of every magnitude land in a bucket that contains them. */
	lcg_seed(7);
	for (i = 0; i < 200000; i++) {
		uint64_t v = (lcg_next() << 11 | lcg_next()) >> (lcg_next() % 64);

		hist_bucket_range(hist_bucket_of(v), &lo, &hi);
		assert_true(lo <= v);
		if (v < HIST_RANGE_MAX)
			assert_true(v < hi);
		else
			assert_int_equal(hist_bucket_of(v), HIST_OVERFLOW);
	}
}

static void test_bucket_count(void **state)
{
	struct hist h = HIST_INIT;

	(void)state;
	hist_record(&h, 5);
	hist_record(&h, 5);
	hist_record(&h, 1000);
	assert_int_equal(hist_bucket_count(&h, 5), 2);
	assert_int_equal(hist_bucket_count(&h, hist_bucket_of(1000)), 1);
	assert_int_equal(hist_bucket_count(&h, hist_bucket_of(1007)), 1);
	assert_int_equal(hist_bucket_count(&h, hist_bucket_of(999)), 0);
	assert_int_equal(hist_bucket_count(&h, 6), 0);
	assert_int_equal(hist_bucket_count(&h, HIST_NBUCKETS), 0);
}

/* Values below 128 are counted exactly, so every percentile is exact. */
static void test_small_values_exact(void **state)
{
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	struct hist h = HIST_INIT;
	size_t i;

	(void)state;
	lcg_seed(1);
	for (i = 0; i < NVALUES; i++) {
		v[i] = lcg_next() % 128;
		hist_record(&h, v[i]);
	}
	qsort(v, NVALUES, sizeof(*v), cmp_u64);
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		assert_int_equal(hist_percentile(&h, pcts[i] / 100.0),
				 exact_pct(v, NVALUES, pcts[i]));
	free(v);
}

static void test_uniform(void **state)
{
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	size_t i;

	(void)state;
	lcg_seed(2);
	for (i = 0; i < NVALUES; i++)
		v[i] = 1 + lcg_next() % 1000000;
	check_data(v, NVALUES, "uniform 1..1e6");
	free(v);
}

static void test_two_point(void **state)
{
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	size_t i;

	(void)state;
	/* 70 % at 1000 ns, 30 % at 5 ms; p70 must be 1000 and p70.01 5 ms. */
	for (i = 0; i < NVALUES; i++)
		v[i] = i % 10 < 7 ? 1000 : 5000000;
	check_data(v, NVALUES, "two-point");
	free(v);
}

static void test_exponential(void **state)
{
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	size_t i;

	(void)state;
	lcg_seed(3);
	for (i = 0; i < NVALUES; i++)
		v[i] = 1 + (uint64_t)(-100000.0 * log(1.0 - lcg_unit()));
	check_data(v, NVALUES, "exponential mean 1e5");
	free(v);
}

static void test_log_uniform(void **state)
{
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	size_t i;

	(void)state;
	/* Magnitudes from 1 ns to 1000 s. */
	lcg_seed(4);
	for (i = 0; i < NVALUES; i++)
		v[i] = (uint64_t)exp(lcg_unit() * log(1e12));
	check_data(v, NVALUES, "log-uniform 1..1e12");
	free(v);
}

static void test_constant(void **state)
{
	static const uint64_t consts[] = { 0, 1, 127, 128, 1000, 123456789, 1000000000000ULL };
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	size_t c, i;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(consts); c++) {
		struct hist h = HIST_INIT;

		for (i = 0; i < NVALUES; i++) {
			v[i] = consts[c];
			hist_record(&h, v[i]);
		}
		check_data(v, NVALUES, "constant");
		/* Clamping makes every percentile of a constant exact. */
		for (i = 0; i < ARRAY_SIZE(pcts); i++)
			assert_int_equal(hist_percentile(&h, pcts[i] / 100.0), consts[c]);
		assert_true(hist_stddev(&h) == 0.0);
		assert_true(hist_mean(&h) == (double)consts[c]);
	}
	free(v);
}

/* Percentiles never leave [min, max], even when a bucket is much wider. */
static void test_clamp(void **state)
{
	struct hist h = HIST_INIT;
	double p;

	(void)state;
	/* Both values share one bucket of width 2^23 (values near 2^30). */
	hist_record(&h, 1000000000);
	hist_record(&h, 1000000003);
	assert_int_equal(hist_bucket_of(1000000000), hist_bucket_of(1000000003));
	for (p = 0.0; p <= 100.0; p += 0.5) {
		uint64_t got = hist_percentile(&h, p);

		assert_true(got >= 1000000000);
		assert_true(got <= 1000000003);
	}
	assert_int_equal(hist_percentile(&h, 0.0), 1000000000);
	assert_int_equal(hist_percentile(&h, 50.0), 1000000000);
	assert_int_equal(hist_percentile(&h, 50.1), 1000000003);
	assert_int_equal(hist_percentile(&h, 100.0), 1000000003);
}

static void test_p_out_of_range(void **state)
{
	struct hist h = HIST_INIT;
	uint64_t v;

	(void)state;
	for (v = 10; v <= 1000; v += 10)
		hist_record(&h, v);
	assert_int_equal(hist_percentile(&h, 0.0), 10);
	assert_int_equal(hist_percentile(&h, -5.0), 10);
	assert_int_equal(hist_percentile(&h, NAN), 10);
	assert_int_equal(hist_percentile(&h, 100.0), 1000);
	assert_int_equal(hist_percentile(&h, 150.0), 1000);
	assert_int_equal(hist_percentile(&h, INFINITY), 1000);
	assert_int_equal(hist_percentile(&h, 1.0), 10);
	assert_int_equal(hist_percentile(&h, 1.5), 20);
	assert_int_equal(hist_percentile(&h, 10.0), 100);
}

static void test_above_range(void **state)
{
	struct hist h = HIST_INIT;

	(void)state;
	hist_record(&h, 5);
	hist_record(&h, HIST_RANGE_MAX);
	hist_record(&h, UINT64_MAX);
	assert_int_equal(hist_count(&h), 3);
	assert_int_equal(hist_min(&h), 5);
	assert_int_equal(hist_max(&h), UINT64_MAX);
	assert_int_equal(hist_bucket_count(&h, HIST_OVERFLOW), 2);
	assert_int_equal(hist_bucket_count(&h, 5), 1);
	assert_int_equal(hist_percentile(&h, 0.0), 5);
	assert_int_equal(hist_percentile(&h, 33.0), 5);
	/* Rank 2 falls in the overflow bucket: reported as max. */
	assert_int_equal(hist_percentile(&h, 50.0), UINT64_MAX);
	assert_int_equal(hist_percentile(&h, 100.0), UINT64_MAX);
	assert_true(hist_mean(&h) > (double)UINT64_MAX / 3 * 0.99);
}

/* A textbook case and a large-mean, small-spread case. */
static void test_stddev_known(void **state)
{
	static const uint64_t book[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct hist h = HIST_INIT;
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(book); i++)
		hist_record(&h, book[i]);
	assert_rel(hist_mean(&h), 5.0, 1e-15);
	assert_rel(hist_stddev(&h), sqrt(32.0 / 7.0), 1e-12);

	/* One value: SD 0; two values: |a - b| / sqrt(2). */
	hist_init(&h);
	hist_record(&h, 7);
	assert_true(hist_stddev(&h) == 0.0);
	hist_record(&h, 11);
	assert_rel(hist_stddev(&h), 4.0 / sqrt(2.0), 1e-15);

	/* 1e12 + (0..9): naive sum-of-squares cancels completely here. */
	hist_init(&h);
	for (i = 0; i < NVALUES; i++) {
		v[i] = 1000000000000ULL + i % 10;
		hist_record(&h, v[i]);
	}
	assert_rel(hist_stddev(&h), two_pass_sd(v, NVALUES), 1e-9);
	assert_rel(hist_mean(&h), two_pass_mean(v, NVALUES), 1e-15);
	free(v);
}

/*
 * A shift does not change the SD: C + (i % 10) has the SD of i % 10 for
 * every offset C up to the top of uint64_t. Exact integer sums make this
 * hold to the last bits; a floating-point sum of squares would lose it all.
 */
static void test_stddev_shift_invariant(void **state)
{
	static const uint64_t offsets[] = {
		0, 1000, 1000000000000ULL, 1ULL << 63, UINT64_MAX - 9,
	};
	uint64_t *d = xmalloc(NVALUES * sizeof(*d));
	double want;
	size_t c, i;

	(void)state;
	for (i = 0; i < NVALUES; i++)
		d[i] = i % 10;
	want = two_pass_sd(d, NVALUES);
	for (c = 0; c < ARRAY_SIZE(offsets); c++) {
		struct hist h = HIST_INIT;

		for (i = 0; i < NVALUES; i++)
			hist_record(&h, offsets[c] + d[i]);
		assert_rel(hist_stddev(&h), want, 1e-12);
		assert_rel(hist_mean(&h), (double)offsets[c] + 4.5, 1e-15);
	}
	free(d);
}

/* Huge counts of huge values: the 128/192/256-bit sums carry correctly. */
static void test_stddev_huge(void **state)
{
	struct hist h = HIST_INIT;
	double n = 0x1p41;

	(void)state;
	hist_record_n(&h, UINT64_MAX, 1ULL << 40);
	assert_true(hist_stddev(&h) == 0.0);
	assert_rel(hist_mean(&h), (double)UINT64_MAX, 1e-15);
	hist_record_n(&h, UINT64_MAX - 2, 1ULL << 40);
	/* Population variance 1, sample variance n / (n - 1). */
	assert_rel(hist_stddev(&h), sqrt(n / (n - 1)), 1e-15);
	assert_int_equal(hist_count(&h), 1ULL << 41);
	assert_int_equal(hist_min(&h), UINT64_MAX - 2);
	assert_int_equal(hist_max(&h), UINT64_MAX);
	assert_int_equal(hist_bucket_count(&h, HIST_OVERFLOW), 1ULL << 41);
}

/* The SD is about the mean, not an RMS of the values (interbench's "SD"). */
static void test_stddev_not_rms(void **state)
{
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	struct hist h = HIST_INIT;
	long double sq = 0;
	double rms, sd;
	size_t i;

	(void)state;
	lcg_seed(5);
	for (i = 0; i < NVALUES; i++) {
		v[i] = 50000 + lcg_next() % 20000;
		hist_record(&h, v[i]);
		sq += (long double)v[i] * (long double)v[i];
	}
	rms = (double)sqrtl(sq / NVALUES);
	sd = hist_stddev(&h);
	assert_rel(sd, two_pass_sd(v, NVALUES), 1e-9);
	/* Uniform over 20000 values: SD ~ 20000 / sqrt(12) ~ 5774; RMS ~ 60000. */
	assert_true(sd < rms / 5);
	free(v);
}

/* Same values recorded: every count and sum is equal, so the structs are equal. */
static void assert_hist_same(const struct hist *a, const struct hist *b)
{
	size_t i;

	assert_int_equal(hist_count(a), hist_count(b));
	assert_int_equal(hist_min(a), hist_min(b));
	assert_int_equal(hist_max(a), hist_max(b));
	for (i = 0; i < hist_nbuckets(); i++)
		assert_int_equal(hist_bucket_count(a, i), hist_bucket_count(b, i));
	assert_true(hist_mean(a) == hist_mean(b));
	assert_true(hist_stddev(a) == hist_stddev(b));
	assert_memory_equal(a, b, sizeof(*a));
}

static void test_merge(void **state)
{
	/* Split points: all in b, all in a, and uneven splits. */
	static const size_t splits[] = { 0, 1, 10, NVALUES / 3, NVALUES - 1, NVALUES };
	uint64_t *v = xmalloc(NVALUES * sizeof(*v));
	struct hist all = HIST_INIT;
	size_t s, i;

	(void)state;
	lcg_seed(6);
	for (i = 0; i < NVALUES; i++) {
		/* Two populations with different means. */
		v[i] = i < NVALUES / 2 ? 1000 + lcg_next() % 100 : 900000 + lcg_next() % 50000;
		hist_record(&all, v[i]);
	}
	for (s = 0; s < ARRAY_SIZE(splits); s++) {
		struct hist a = HIST_INIT, b = HIST_INIT;

		for (i = 0; i < splits[s]; i++)
			hist_record(&a, v[i]);
		for (; i < NVALUES; i++)
			hist_record(&b, v[i]);
		hist_merge(&a, &b);
		assert_hist_same(&a, &all);
		assert_rel(hist_stddev(&a), two_pass_sd(v, NVALUES), 1e-9);
	}
	free(v);
}

/* Merging a histogram into itself counts everything twice. */
static void test_merge_self(void **state)
{
	struct hist h = HIST_INIT, twice = HIST_INIT;
	uint64_t v;

	(void)state;
	for (v = 1; v <= 1000; v++) {
		hist_record(&h, v * v);
		hist_record(&twice, v * v);
		hist_record(&twice, v * v);
	}
	hist_merge(&h, &h);
	assert_hist_same(&h, &twice);
}

static void test_record_n(void **state)
{
	static const struct {
		uint64_t v, n;
	} runs[] = {
		{ 100, 5 }, { 7, 0 }, { 1000000, 1 }, { 3, 1000 }, { 1ULL << 50, 2 }, { 250000, 77 },
	};
	struct hist a = HIST_INIT, b = HIST_INIT;
	size_t r;
	uint64_t k;

	(void)state;
	for (r = 0; r < ARRAY_SIZE(runs); r++) {
		hist_record_n(&a, runs[r].v, runs[r].n);
		for (k = 0; k < runs[r].n; k++)
			hist_record(&b, runs[r].v);
		assert_hist_same(&a, &b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_layout_constants),
		cmocka_unit_test(test_bucket_index_table),
		cmocka_unit_test(test_bucket_round_trip),
		cmocka_unit_test(test_bucket_count),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_two_point),
		cmocka_unit_test(test_exponential),
		cmocka_unit_test(test_log_uniform),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_p_out_of_range),
		cmocka_unit_test(test_above_range),
		cmocka_unit_test(test_stddev_known),
		cmocka_unit_test(test_stddev_shift_invariant),
		cmocka_unit_test(test_stddev_huge),
		cmocka_unit_test(test_stddev_not_rms),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_self),
		cmocka_unit_test(test_record_n),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
