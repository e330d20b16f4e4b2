/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram: bucket arithmetic, recording, merging and
 * percentiles. The layout, error bound and memory cost are derived in
 * hist.h; this file keeps hist_record() short because it sits inside
 * measurement loops.
 */
#include "hist.h"

#include <math.h>

#include "lib/mul64.h"

/*
 * Bucket index of v: values are first clamped to HIST_RANGE_MAX, whose
 * index is HIST_OVERFLOW. s = msb(v | 64) - 6 is 0 for v < 128, so the
 * index is v there; above, v >> s lies in [64, 128) and selects the
 * sub-bucket of the power-of-two group s. The compiler turns the clamp
 * into a conditional move, so there is no branch on the value.
 */
static inline size_t bucket_of(uint64_t v)
{
	unsigned int s;

	if (v > HIST_RANGE_MAX)
		v = HIST_RANGE_MAX;
	s = (unsigned int)(63 - HIST_SUB_BITS) - (unsigned int)__builtin_clzll(v | HIST_SUB);
	return ((size_t)s << HIST_SUB_BITS) + (size_t)(v >> s);
}

/*
 * Multi-word unsigned arithmetic on little-endian arrays of 64-bit limbs,
 * for the exact sums behind the mean and the standard deviation. Only
 * mul64() (core/mul64.h) and the additions run in hist_record(); the
 * general product and the subtraction run when the SD is asked for.
 */

/*
 * acc[0..n) += add[0..m), m <= n; the carry out of limb n - 1 is dropped
 * (the callers size acc so the true sum fits, see hist.h).
 */
static inline void mp_add(uint64_t *acc, size_t n, const uint64_t *add, size_t m)
{
	uint64_t carry = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t a = i < m ? add[i] : 0;
		uint64_t t = acc[i] + a;
		uint64_t c = t < a;

		acc[i] = t + carry;
		carry = c | (acc[i] < carry);
		if (i >= m && !carry)
			break;
	}
}

/* out[0..na+nb) = a[0..na) * b[0..nb), schoolbook. */
static void mp_mul(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *out)
{
	size_t i, j;

	for (i = 0; i < na + nb; i++)
		out[i] = 0;
	for (i = 0; i < na; i++) {
		uint64_t carry = 0;

		for (j = 0; j < nb; j++) {
			uint64_t hi, lo;

			mul64(a[i], b[j], &hi, &lo);
			lo += carry;
			hi += lo < carry;
			out[i + j] += lo;
			hi += out[i + j] < lo;
			carry = hi;	/* a * b + 2 limbs never exceeds 2 limbs */
		}
		out[i + nb] = carry;
	}
}

/* a[0..n) -= b[0..n); the caller guarantees a >= b. */
static void mp_sub(uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t borrow = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t t = a[i] - b[i];
		uint64_t c = a[i] < b[i];

		a[i] = t - borrow;
		borrow = c | (t < borrow);
	}
}

/* The value of a[0..n) as a long double, rounded. */
static long double mp_to_ld(const uint64_t *a, size_t n)
{
	long double r = 0.0L;

	while (n--)
		r = r * 0x1p64L + (long double)a[n];
	return r;
}

void hist_init(struct hist *h)
{
	*h = (struct hist)HIST_INIT;
}

void hist_record(struct hist *h, uint64_t v)
{
	uint64_t hi, lo;

	h->buckets[bucket_of(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	/* sum += v (128 bits), sumsq += v^2 (192 bits), written out for speed. */
	h->sum[0] += v;
	h->sum[1] += h->sum[0] < v;
	mul64(v, v, &hi, &lo);
	h->sumsq[0] += lo;
	/* hi <= 2^64 - 2 for any square of a 64-bit value, so hi + 1 fits. */
	hi += h->sumsq[0] < lo;
	h->sumsq[1] += hi;
	h->sumsq[2] += h->sumsq[1] < hi;
}

void hist_record_n(struct hist *h, uint64_t v, uint64_t n)
{
	uint64_t vn[2], sq[2], sqn[3], t;

	if (!n)
		return;
	h->buckets[bucket_of(v)] += n;
	h->count += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	mul64(v, n, &vn[1], &vn[0]);
	mp_add(h->sum, 2, vn, 2);
	/* v^2 * n: a 128 x 64-bit product, 192 bits. */
	mul64(v, v, &sq[1], &sq[0]);
	mul64(sq[0], n, &sqn[1], &sqn[0]);
	mul64(sq[1], n, &sqn[2], &t);
	sqn[1] += t;
	sqn[2] += sqn[1] < t;
	mp_add(h->sumsq, 3, sqn, 3);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	if (!src->count)
		return;
	for (i = 0; i < HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	/* Read src's sums before writing: dst may be src. */
	{
		uint64_t sum[2] = { src->sum[0], src->sum[1] };
		uint64_t sumsq[3] = { src->sumsq[0], src->sumsq[1], src->sumsq[2] };

		dst->count += src->count;
		mp_add(dst->sum, 2, sum, 2);
		mp_add(dst->sumsq, 3, sumsq, 3);
	}
}

uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

uint64_t hist_min(const struct hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t hist_max(const struct hist *h)
{
	return h->max;
}

double hist_mean(const struct hist *h)
{
	if (!h->count)
		return 0.0;
	return (double)(mp_to_ld(h->sum, 2) / (long double)h->count);
}

double hist_stddev(const struct hist *h)
{
	uint64_t n = h->count, nsq[4], s1sq[4];
	long double var;

	if (n < 2)
		return 0.0;
	/*
	 * D = n * sumsq - sum^2 = sum over pairs i < j of (x_i - x_j)^2 >= 0,
	 * exactly, in 256 bits; the sample variance is D / (n (n - 1)).
	 * The only roundings are D's conversion and the division.
	 */
	mp_mul(&n, 1, h->sumsq, 3, nsq);
	mp_mul(h->sum, 2, h->sum, 2, s1sq);
	mp_sub(nsq, s1sq, 4);
	var = mp_to_ld(nsq, 4) / ((long double)n * (long double)(n - 1));
	return (double)sqrtl(var);
}

/*
 * Nearest rank of the p-th percentile among n > 0 values: ceil(p/100 * n),
 * at least 1, at most n. The product is rounded (and p itself, say 99.9,
 * may not be representable), so a result within 1e-12 relative above an
 * integer is taken as that integer rather than the next rank.
 */
static uint64_t pct_rank(double p, uint64_t n)
{
	double r, c;

	if (!(p > 0.0))
		return 1;
	if (p >= 100.0)
		return n;
	r = p * (double)n / 100.0;
	c = ceil(r - r * 1e-12);
	if (c < 1.0)
		return 1;
	if (c >= (double)n)
		return n;
	return (uint64_t)c;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, cum = 0, lo, hi, v;
	size_t i;

	if (!h->count)
		return 0;
	rank = pct_rank(p, h->count);
	if (rank <= 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	for (i = 0; i < HIST_OVERFLOW; i++) {
		cum += h->buckets[i];
		if (cum >= rank)
			break;
	}
	if (i == HIST_OVERFLOW)
		return h->max;
	hist_bucket_range(i, &lo, &hi);
	v = lo + (hi - lo) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

size_t hist_nbuckets(void)
{
	return HIST_NBUCKETS;
}

size_t hist_bucket_of(uint64_t v)
{
	return bucket_of(v);
}

uint64_t hist_bucket_count(const struct hist *h, size_t i)
{
	return i < HIST_NBUCKETS ? h->buckets[i] : 0;
}

void hist_bucket_range(size_t i, uint64_t *lo, uint64_t *hi)
{
	unsigned int s;

	if (i >= HIST_NBUCKETS) {
		*lo = *hi = 0;
		return;
	}
	if (i == HIST_OVERFLOW) {
		*lo = HIST_RANGE_MAX;
		*hi = UINT64_MAX;
		return;
	}
	if (i < 2 * HIST_SUB) {
		*lo = i;
		*hi = i + 1;
		return;
	}
	/* Inverse of bucket_of(): group s = i / 64 - 1, sub-bucket i % 64. */
	s = (unsigned int)(i >> HIST_SUB_BITS) - 1;
	*lo = (uint64_t)(HIST_SUB + (i & (HIST_SUB - 1))) << s;
	*hi = *lo + (1ULL << s);
}
