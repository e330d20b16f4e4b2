/* SPDX-License-Identifier: MIT */
/*
 * Strict unit parsing and human formatting; the rules are in units.h and
 * docs/units.md.
 *
 * Numbers are parsed by hand rather than with strtod()/strtoull(), which
 * skip white space, accept signs, hex, exponents, "nan" and "inf", and
 * depend on the locale's decimal point. A number is kept as an exact
 * decimal (integer part, fraction digits and their count) and scaled by
 * the unit with integer arithmetic, so "1.5M" is exactly 1572864 bytes and
 * rounding is to the nearest unit, halves up. Only 64-bit integer
 * operations are used, so the same results come out on 32-bit routers
 * (no __int128).
 */
#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* An exact non-negative decimal: ip + frac / 10^nfrac. */
struct dec {
	uint64_t ip;
	uint64_t frac;
	unsigned nfrac;
	bool overflow;		/* the integer part did not fit in 64 bits */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t pow10_u64(unsigned n)
{
	uint64_t p = 1;

	while (n--)
		p *= 10;
	return p;
}

/*
 * Parse DIGITS [ "." DIGITS ] at *sp and advance *sp past it. Syntax errors
 * are -EINVAL; an integer part beyond 64 bits only sets d->overflow, so the
 * caller can still report a syntax error in the unit first.
 */
static int dec_parse(const char **sp, struct dec *d)
{
	const char *s = *sp;

	memset(d, 0, sizeof(*d));
	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		unsigned digit = (unsigned)(*s - '0');

		if (__builtin_mul_overflow(d->ip, 10, &d->ip) ||
		    __builtin_add_overflow(d->ip, digit, &d->ip))
			d->overflow = true;
	}
	if (*s == '.') {
		s++;
		if (!is_digit(*s))
			return -EINVAL;
		for (; is_digit(*s); s++) {
			if (d->nfrac == UNITS_MAX_FRAC_DIGITS)
				return -EINVAL;
			d->frac = d->frac * 10 + (uint64_t)(*s - '0');
			d->nfrac++;
		}
	}
	*sp = s;
	return 0;
}

/*
 * floor(a * b / den) and the remainder, for a < den < 2^62, without a
 * 128-bit type: binary long multiplication with the running remainder kept
 * below den. The quotient is at most b, so it cannot overflow.
 */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t den, uint64_t *rem)
{
	uint64_t q = 0, r = 0;

	for (int bit = 63; bit >= 0; bit--) {
		q <<= 1;
		r <<= 1;
		if (r >= den) {
			r -= den;
			q++;
		}
		if ((b >> bit) & 1) {
			r += a;
			if (r >= den) {
				r -= den;
				q++;
			}
		}
	}
	*rem = r;
	return q;
}

/* d * mult, rounded to the nearest integer (halves up), or -ERANGE. */
static int dec_scale(const struct dec *d, uint64_t mult, uint64_t *out)
{
	uint64_t whole, part = 0, rem;

	if (d->overflow || __builtin_mul_overflow(d->ip, mult, &whole))
		return -ERANGE;
	if (d->nfrac) {
		uint64_t den = pow10_u64(d->nfrac);

		part = muldiv(d->frac, mult, den, &rem);
		if (rem >= den - rem)
			part++;
	}
	if (__builtin_add_overflow(whole, part, out))
		return -ERANGE;
	return 0;
}

static double dec_to_double(const struct dec *d)
{
	double v = (double)d->ip;

	if (d->nfrac)
		v += (double)d->frac / (double)pow10_u64(d->nfrac);
	return v;
}

/* Binary or decimal power n of the size prefix letter c, or -1. */
static int prefix_power(char c)
{
	switch (c) {
	case 'k': case 'K': return 1;
	case 'm': case 'M': return 2;
	case 'g': case 'G': return 3;
	case 't': case 'T': return 4;
	default: return -1;
	}
}

static uint64_t ipow(uint64_t base, int n)
{
	uint64_t p = 1;

	while (n-- > 0)
		p *= base;
	return p;
}

static bool unit_is(const char *u, size_t len, const char *want)
{
	return strlen(want) == len && memcmp(u, want, len) == 0;
}

/* Multiplier of the size unit u[0..len), or -EINVAL. */
static int size_unit(const char *u, size_t len, uint64_t *mult)
{
	int p;

	if (len == 0 || unit_is(u, len, "B")) {
		*mult = 1;
		return 0;
	}
	p = prefix_power(u[0]);
	if (p < 0)
		return -EINVAL;
	if (len == 1 || unit_is(u + 1, len - 1, "iB")) {
		*mult = ipow(1024, p);
		return 0;
	}
	if (unit_is(u + 1, len - 1, "B")) {
		*mult = ipow(1000, p);
		return 0;
	}
	return -EINVAL;
}

/*
 * Decimal multiplier of a bit-rate prefix u[0..len) (empty or one of
 * k M G T in either case), or -EINVAL.
 */
static int bit_prefix(const char *u, size_t len, uint64_t *mult)
{
	int p;

	if (len == 0) {
		*mult = 1;
		return 0;
	}
	p = len == 1 ? prefix_power(u[0]) : -1;
	if (p < 0)
		return -EINVAL;
	*mult = ipow(1000, p);
	return 0;
}

static bool ends_with(const char *u, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len >= n && memcmp(u + len - n, tail, n) == 0;
}

/*
 * Each public parser is a sign-free parser plus this rule: a leading '-'
 * before an otherwise valid value is -ERANGE (negative), before anything
 * else it is the syntax error of the rest. r is the result of parsing what
 * follows the '-'.
 */
static int negative_error(int r)
{
	return r == -EINVAL ? -EINVAL : -ERANGE;
}

static int size_nosign(const char *s, uint64_t *out)
{
	struct dec d;
	uint64_t mult;
	int r;

	r = dec_parse(&s, &d);
	if (r < 0)
		return r;
	r = size_unit(s, strlen(s), &mult);
	if (r < 0)
		return r;
	return dec_scale(&d, mult, out);
}

int units_parse_size(const char *s, uint64_t *out)
{
	uint64_t v;
	int r;

	if (s[0] == '-')
		return negative_error(size_nosign(s + 1, &v));
	r = size_nosign(s, &v);
	if (r < 0)
		return r;
	*out = v;
	return 0;
}

static int rate_nosign(const char *s, double *out)
{
	struct dec d;
	uint64_t mult;
	size_t len;
	double div = 1.0;
	int r;

	r = dec_parse(&s, &d);
	if (r < 0)
		return r;
	len = strlen(s);
	if (ends_with(s, len, "bps")) {
		r = bit_prefix(s, len - 3, &mult);
		div = 8.0;
	} else {
		if (ends_with(s, len, "/s"))
			len -= 2;
		if (ends_with(s, len, "bit")) {
			r = bit_prefix(s, len - 3, &mult);
			div = 8.0;
		} else {
			r = size_unit(s, len, &mult);
		}
	}
	if (r < 0)
		return r;
	if (d.overflow)
		return -ERANGE;
	*out = dec_to_double(&d) * (double)mult / div;
	return 0;
}

int units_parse_rate(const char *s, double *out)
{
	double v;
	int r;

	if (s[0] == '-')
		return negative_error(rate_nosign(s + 1, &v));
	r = rate_nosign(s, &v);
	if (r < 0)
		return r;
	*out = v;
	return 0;
}

/*
 * The bit-rate grammar of units.h on the unsigned text S: bits/s into
 * *OUT, or -EINVAL/-ERANGE, or -EDOM with WHY.
 */
static int bitrate_nosign(const char *s, double *out, char *why, size_t whylen)
{
	static const char *const bit_tails[] = { "", "bit/s", "bit", "bps", "b/s", "b" };
	const char *num = s;
	char n[48], bits[52];
	struct dec d;
	uint64_t mult = 1;
	size_t len, plen = 0;
	double v;
	int r;

	r = dec_parse(&s, &d);
	if (r < 0)
		return r;
	len = strlen(s);
	if (len && prefix_power(s[0]) > 0) {
		mult = ipow(1000, prefix_power(s[0]));
		plen = 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(bit_tails); i++) {
		if (unit_is(s + plen, len - plen, bit_tails[i])) {
			if (d.overflow)
				return -ERANGE;
			*out = dec_to_double(&d) * (double)mult;
			return 0;
		}
	}
	v = dec_to_double(&d);
	/* The number as written, and iperf3's reading of the letter after it. */
	snprintf(n, sizeof(n), "%.*s", (int)(s - num), num);
	snprintf(bits, sizeof(bits), "%s%.*s", n, prefix_power(s[0]) > 0 ? 1 : 0, s);
	/* "100M/s": iperf3's M is bits, engpass's byte rates read "M/s" as MiB/s. */
	if (plen && unit_is(s + plen, len - plen, "/s")) {
		if (why)
			snprintf(why, whylen, "'%s' has two readings: %sbit/s (iperf3's %c) or %s%ciB/s (a byte rate's "
				 "%c/s); write %s or %s%ciB/s", num, bits, s[0], n, s[0] == 'k' ? 'K' : s[0], s[0], bits,
				 n, s[0] == 'k' ? 'K' : s[0]);
		return -EDOM;
	}
	if (ends_with(s, len, "/s")) {
		r = size_unit(s, len - 2, &mult);
		if (r < 0)
			return r;
		if (d.overflow)
			return -ERANGE;
		*out = v * (double)mult * 8.0;
		return 0;
	}
	/* "100MB": a byte unit without "/s"; iperf3 reads the letter only. */
	if (size_unit(s, len, &mult) == 0) {
		if (why)
			snprintf(why, whylen, "'%s' has two readings: %s/s (bytes: %.6g Mbit/s) or %sbit/s (iperf3 "
				 "reads the letter only); write %s/s or %s", num, num, v * (double)mult * 8.0 / 1e6, bits,
				 num, bits);
		return -EDOM;
	}
	return -EINVAL;
}

int units_parse_bitrate(const char *s, double *out, char *why, size_t whylen)
{
	double v;
	int r;

	if (s[0] == '-') {
		r = bitrate_nosign(s + 1, &v, why, whylen);
		return r == -EDOM ? r : negative_error(r);
	}
	r = bitrate_nosign(s, &v, why, whylen);
	if (r < 0)
		return r;
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	uint64_t ns;
} duration_units[] = {
	{ "", 1000000000ULL },
	{ "ns", 1ULL },
	{ "us", 1000ULL },
	{ "ms", 1000000ULL },
	{ "s", 1000000000ULL },
	{ "m", 60ULL * 1000000000ULL },
	{ "h", 3600ULL * 1000000000ULL },
};

static int duration_nosign(const char *s, uint64_t *out)
{
	struct dec d;
	int r;

	r = dec_parse(&s, &d);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(duration_units); i++)
		if (strcmp(s, duration_units[i].name) == 0)
			return dec_scale(&d, duration_units[i].ns, out);
	return -EINVAL;
}

int units_parse_duration(const char *s, uint64_t *out)
{
	uint64_t v;
	int r;

	if (s[0] == '-')
		return negative_error(duration_nosign(s + 1, &v));
	r = duration_nosign(s, &v);
	if (r < 0)
		return r;
	*out = v;
	return 0;
}

/*
 * CPU numbers saturate here while parsing, so that "99999999999999999999"
 * is a range error rather than a wrapped value.
 */
#define CPU_NUM_CAP (1ULL << 32)

/* Plain decimal digits at *sp (before END) into *v (saturating); -EINVAL if none. */
static int cpu_num(const char **sp, const char *end, uint64_t *v)
{
	const char *s = *sp;
	uint64_t x = 0;

	if (s == end || !is_digit(*s))
		return -EINVAL;
	for (; s < end && is_digit(*s); s++) {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > CPU_NUM_CAP)
			x = CPU_NUM_CAP;
	}
	*v = x;
	*sp = s;
	return 0;
}

int units_cpulist_walk(const char *s, size_t len, int (*fn)(uint64_t lo, uint64_t hi, void *arg), void *arg)
{
	const char *end = s + len;

	for (;;) {
		uint64_t a, b;
		int r;

		if (cpu_num(&s, end, &a) < 0)
			return -EINVAL;
		b = a;
		if (s < end && *s == '-') {
			s++;
			if (cpu_num(&s, end, &b) < 0)
				return -EINVAL;
			if (b < a)
				return -EINVAL;
		}
		if ((r = fn(a, b, arg)))
			return r;
		if (s == end)
			return 0;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
}

struct cpuset_fill {
	cpu_set_t set;
	uint64_t limit;
	bool out_of_range;
};

static int cpuset_add(uint64_t a, uint64_t b, void *arg)
{
	struct cpuset_fill *f = arg;

	if (b >= f->limit) {
		f->out_of_range = true;
		return 0;
	}
	for (uint64_t c = a; c <= b; c++)
		CPU_SET((size_t)c, &f->set);
	return 0;
}

int units_cpulist_parse(const char *s, cpu_set_t *out, int ncpus)
{
	struct cpuset_fill f = { .limit = CPU_SETSIZE };
	int r;

	if (ncpus > 0 && (uint64_t)ncpus < f.limit)
		f.limit = (uint64_t)ncpus;
	CPU_ZERO(&f.set);
	r = units_cpulist_walk(s, strlen(s), cpuset_add, &f);
	if (r < 0)
		return r;
	if (f.out_of_range)
		return -ERANGE;
	*out = f.set;
	return 0;
}

/* Magnitude of a string of digits only, or -EINVAL / -ERANGE (> 64 bits). */
static int u64_digits(const char *s, uint64_t *out)
{
	struct dec d;
	int r;

	/* dec_parse takes a fraction ("1.0"); an integer must not have one */
	r = dec_parse(&s, &d);
	if (r < 0)
		return r;
	if (d.nfrac || *s != '\0')
		return -EINVAL;
	if (d.overflow)
		return -ERANGE;
	*out = d.ip;
	return 0;
}

int units_parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	bool neg = s[0] == '-';
	uint64_t mag;
	int64_t v;
	int r;

	r = u64_digits(s + neg, &mag);
	if (r < 0)
		return r;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return -ERANGE;
		v = (int64_t)mag;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int units_parse_uint64(const char *s, uint64_t min, uint64_t max,
		       uint64_t *out)
{
	uint64_t v;
	int r;

	if (s[0] == '-')
		return negative_error(u64_digits(s + 1, &v));
	r = u64_digits(s, &v);
	if (r < 0)
		return r;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * Scale v by 'step' until it prints with 'decimals' decimals below 'step'
 * (so 1023.999 KiB becomes "1.00 MiB", not "1024.00 KiB"). Returns the index
 * into units[], at most n - 1.
 */
static size_t scale_for_print(double *v, double step, int decimals, size_t n)
{
	double half_ulp = 0.5;
	double a = fabs(*v);
	size_t i = 0;

	while (decimals-- > 0)
		half_ulp /= 10.0;

	while (i + 1 < n && a >= step - half_ulp) {
		a /= step;
		*v /= step;
		i++;
	}
	return i;
}

const char *units_fmt_size(char *buf, size_t len, double bytes, unsigned flags)
{
	static const char *const names[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	int decimals = flags & UNITS_FMT_DEC1 ? 1 : 2, prec = 0;
	double v = bytes;
	size_t i = 0;

	/* Whole bytes below 1 KiB: 1023.5 would print as "1024 B", so it is "1.00 KiB". */
	if (isfinite(v) && fabs(v) >= 1023.5) {
		v /= 1024.0;
		i = 1 + scale_for_print(&v, 1024.0, decimals, ARRAY_SIZE(names) - 1);
		prec = (flags & UNITS_FMT_EXACT) && v == floor(v) ? 0 : decimals;
	}
	snprintf(buf, len, "%.*f%s%s%s", prec, v, flags & UNITS_FMT_TIGHT ? "" : " ", names[i],
		 flags & UNITS_FMT_PER_S ? "/s" : "");
	return buf;
}

const char *units_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	return units_fmt_size(buf, len, (double)bytes, 0);
}

const char *units_fmt_rate(char *buf, size_t len, double bytes_per_s)
{
	return units_fmt_size(buf, len, bytes_per_s, UNITS_FMT_PER_S);
}

const char *units_fmt_bits(char *buf, size_t len, double bits_per_s)
{
	static const char *const names[] = {
		"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", "Pbit/s"
	};
	double v = bits_per_s;
	size_t i = 0;

	if (isfinite(v))
		i = scale_for_print(&v, 1000.0, 1, ARRAY_SIZE(names));
	snprintf(buf, len, "%.1f %s", v, names[i]);
	return buf;
}

const char *units_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 999995ULL)
		snprintf(buf, len, "%.2f us", (double)ns / 1e3);
	else if (ns < 999995000ULL)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	return buf;
}

const char *units_fmt_tm(char *buf, size_t len, const char *fmt, const struct tm *tm)
{
	size_t n = 0;

	if (!len)
		return buf;
	for (const char *p = fmt; *p; p++) {
		int v, r;

		switch (p[0] == '%' ? p[1] : 0) {
		case 'Y': v = tm->tm_year + 1900; break;
		case 'm': v = tm->tm_mon + 1; break;
		case 'd': v = tm->tm_mday; break;
		case 'H': v = tm->tm_hour; break;
		case 'M': v = tm->tm_min; break;
		case 'S': v = tm->tm_sec; break;
		default:
			if (n + 1 >= len)
				goto full;
			buf[n++] = *p;
			continue;
		}
		r = snprintf(buf + n, len - n, "%0*d", p[1] == 'Y' ? 4 : 2, v);
		if (r < 0 || (size_t)r >= len - n)
			goto full;
		n += (size_t)r;
		p++;
	}
	buf[n] = 0;
	return buf;
full:
	buf[0] = 0;
	return buf;
}
