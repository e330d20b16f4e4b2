/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram of uint64_t values (latencies in nanoseconds by
 * convention; the histogram itself is unitless), with exact count, min and
 * max, the mean and the true (sample) standard deviation, and percentiles
 * with a bounded relative error. The layout follows fio's latency
 * histogram (stat.h, FIO_IO_U_PLAT_BITS) and HdrHistogram: every power of
 * two is cut into the same number of equal-width sub-buckets, so the
 * bucket width grows with the value and the relative error stays constant.
 *
 * Layout. HIST_SUB_BITS = 6, so there are HIST_SUB = 64 sub-buckets per
 * power of two.
 *   - Values 0 .. 127 each have a bucket of their own (width 1): they are
 *     counted exactly. Index = value.
 *   - A value v in [2^m, 2^(m+1)) with 7 <= m < HIST_TOP_BITS falls into one
 *     of 64 buckets of width w = 2^(m-6). With s = m - 6, its index is
 *         index = s * 64 + (v >> s)            (v >> s is in [64, 128))
 *     which for m = 6 (s = 0) gives index = v again, so one formula covers
 *     every value from 64 up: s = msb(v | 64) - 6, computed with one
 *     __builtin_clzll, a shift, an add; no division, no table.
 *   - HIST_TOP_BITS = 44: values below 2^44 ns (about 17,592 s, 4.9 hours)
 *     are in range. Values >= 2^44 are counted in one last bucket, the
 *     overflow bucket, index HIST_OVERFLOW = 2496; min and max stay exact
 *     for them.
 *
 * Bucket count and memory. The exact range 0..127 takes 128 buckets; each
 * power 2^7 .. 2^43 takes 64, that is 37 * 64 = 2368; plus the overflow
 * bucket: HIST_NBUCKETS = 128 + 2368 + 1 = 2497 counters of 8 bytes =
 * 19,976 bytes, plus 64 bytes of count, min, max and the sums (below):
 * sizeof(struct hist) is 20,040 bytes (about 20 KiB; it fits a 32 KiB L1
 * data cache). Every bucket is a uint64_t, so no counter can overflow in
 * practice. Going to 2^64 would cost only 20 * 64 more buckets, but 4.9
 * hours is already far beyond any latency a benchmark step can
 * meaningfully produce.
 *
 * Relative error. A bucket at or above 128 covers [lo, lo + w) with
 * lo >= 2^m and w = 2^(m-6), so w <= lo / 64: a bucket is at most 1/64
 * (1.5625 %) of its lower bound wide. hist_percentile() finds the bucket
 * that holds the exact percentile x (see below) and reports its midpoint
 * lo + w/2 (lo itself for width-1 buckets), clamped to [min, max]. Since x
 * lies in [lo, lo + w - 1],
 *         |reported - x| <= w/2 <= lo/128 <= x/128,
 * i.e. the reported percentile is within 1/128 = 0.78125 % (HIST_REL_ERROR)
 * of the exact one, and exact for x < 128. Clamping to [min, max] can only
 * move the answer towards x, because min <= x <= max. The ends are exact:
 * rank 1 returns min, rank count returns max. The one exception is the
 * overflow bucket: a percentile that falls among values >= 2^44 is
 * reported as max, which is an upper bound with no relative-error
 * guarantee.
 *
 * Percentile definition (nearest rank). For p in [0, 100] and n values,
 * rank = max(1, ceil(p/100 * n)); the exact percentile x is the rank-th
 * smallest value: the smallest recorded value such that at least p % of
 * the values are <= it. p = 0 gives min, p = 100 gives max.
 *
 * Mean and standard deviation. The histogram keeps the exact sum of the
 * values (128 bits) and the exact sum of their squares (192 bits) as
 * integers; with fewer than 2^64 values neither can overflow, since
 * v < 2^64 and v^2 < 2^128. The mean is sum / n. The standard deviation
 * is the true sample SD, about the mean, with an n - 1 denominator (0 for
 * n < 2):
 *         D = n * sumsq - sum^2  = sum over pairs i < j of (x_i - x_j)^2,
 *         sd = sqrt(D / (n (n - 1))),
 * where D is computed exactly in 256-bit integer arithmetic, so the
 * catastrophic cancellation that makes sum-of-squares formulas unusable in
 * floating point (data such as 10^12 +- 1) cannot occur: the only
 * roundings are D's conversion to long double, the division and the square
 * root, a few units in the last place of a double. It is not the RMS of
 * the values (what interbench prints as "SD"). Merging adds the integers,
 * so hist_merge() gives, bit for bit, the histogram that recording
 * everything into one would have given, in any order.
 *
 * Why not Welford's online update: it is numerically sound too, but it
 * costs a floating-point subtract, divide and add per value in one chain
 * of dependent operations that carries over from value to value. Measured
 * with compare/hist_bench.c on the development VM (2-core AMD EPYC KVM
 * guest, gcc 12 -O2, runs alternated A B A B), hist_record() took 10.9 to
 * 11.1 ns per value with Welford and 2.9 to 3.6 ns with the integer sums
 * (docs/hist.md). On the soft-float MIPS routers engpass also targets, a
 * double division per value would cost far more. The integer sums need
 * one 64 x 64 -> 128-bit multiply and a few adds with carry (unsigned
 * __int128 where the compiler has it, four 32-bit products otherwise;
 * defining HIST_PORTABLE_MUL selects the latter on a 64-bit host, so the
 * unit tests can cover it); the 256-bit work happens only in
 * hist_stddev().
 *
 * A histogram is a plain value: allocate it on the stack or inside another
 * struct, initialise with HIST_INIT or hist_init(). It owns no memory, so
 * there is nothing to release. It is not thread-safe: give each thread its
 * own histogram and hist_merge() them afterwards. The fields are private;
 * use the accessors (an empty histogram stores min as UINT64_MAX).
 */
#ifndef ENGPASS_HIST_H
#define ENGPASS_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS	6
#define HIST_SUB	(1U << HIST_SUB_BITS)		/* 64 sub-buckets per power of two */
#define HIST_TOP_BITS	44
#define HIST_RANGE_MAX	(1ULL << HIST_TOP_BITS)	/* first value of the overflow bucket */
#define HIST_OVERFLOW	((size_t)(HIST_TOP_BITS - HIST_SUB_BITS + 1) << HIST_SUB_BITS)	/* 2496 */
#define HIST_NBUCKETS	(HIST_OVERFLOW + 1)		/* 2497 */
#define HIST_REL_ERROR	(1.0 / 128)			/* percentile bound, see above */

struct hist {
	uint64_t count;
	uint64_t min;		/* UINT64_MAX while empty */
	uint64_t max;
	uint64_t sum[2];	/* sum of values, 128 bits, least significant limb first */
	uint64_t sumsq[3];	/* sum of squared values, 192 bits, likewise */
	uint64_t buckets[HIST_NBUCKETS];
};

#define HIST_INIT { .count = 0, .min = UINT64_MAX, .max = 0, .sum = { 0 }, .sumsq = { 0 }, .buckets = { 0 } }

/* Make *h an empty histogram; may be called again to reset it. */
void hist_init(struct hist *h);

/* Count one value v. Any uint64_t is accepted (see the overflow bucket). */
void hist_record(struct hist *h, uint64_t v);

/*
 * Count n occurrences of the value v; n = 0 does nothing. As with
 * hist_record(), the total count must stay below 2^64.
 */
void hist_record_n(struct hist *h, uint64_t v, uint64_t n);

/*
 * Add every value counted in src to dst, as if each had been recorded into
 * dst. dst and src may be the same histogram (its counts then double).
 */
void hist_merge(struct hist *dst, const struct hist *src);

/* Number of values recorded. */
uint64_t hist_count(const struct hist *h);

/* Smallest value recorded, exact; 0 when empty. */
uint64_t hist_min(const struct hist *h);

/* Largest value recorded, exact; 0 when empty. */
uint64_t hist_max(const struct hist *h);

/* Arithmetic mean of the values recorded; 0.0 when empty. */
double hist_mean(const struct hist *h);

/* Sample standard deviation (n - 1 denominator); 0.0 when count < 2. */
double hist_stddev(const struct hist *h);

/*
 * The p-th percentile, p in [0, 100] (below 0 or NaN is taken as 0, above
 * 100 as 100): the midpoint of the bucket holding the nearest-rank
 * percentile, clamped to [min, max]; within HIST_REL_ERROR of the exact
 * percentile, exact below 128 and for p = 0 (min) and p = 100 (max).
 * Returns 0 when empty. Time is linear in the number of buckets.
 */
uint64_t hist_percentile(const struct hist *h, double p);

/* Number of buckets, HIST_NBUCKETS; iterate i in [0, hist_nbuckets()). */
size_t hist_nbuckets(void);

/* Index of the bucket that counts the value v. */
size_t hist_bucket_of(uint64_t v);

/* Number of values counted in bucket i; 0 if i is out of range. */
uint64_t hist_bucket_count(const struct hist *h, size_t i);

/*
 * Values counted by bucket i: *lo inclusive, *hi exclusive. The overflow
 * bucket (i == HIST_OVERFLOW) is the exception: it holds [2^44, UINT64_MAX]
 * and reports *hi = UINT64_MAX, inclusive. For i out of range *lo = *hi = 0.
 */
void hist_bucket_range(size_t i, uint64_t *lo, uint64_t *hi);

#endif
