/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/lib/units.c: tables of accepted and rejected inputs
 * for every parser, with the value or the error code expected, and the
 * formatting helpers. Every example from units.h and docs/units.md is here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"

#define KI 1024ULL
#define MI (1024ULL * KI)
#define GI (1024ULL * MI)
#define TI (1024ULL * GI)

struct size_case {
	const char *in;
	int ret;
	uint64_t want;
};

static const struct size_case size_cases[] = {
	/* plain bytes */
	{ "0", 0, 0 },
	{ "1", 0, 1 },
	{ "4096", 0, 4096 },
	{ "007", 0, 7 },
	{ "10B", 0, 10 },
	{ "18446744073709551615", 0, UINT64_MAX },
	/* binary */
	{ "4K", 0, 4 * KI },
	{ "4k", 0, 4 * KI },
	{ "60KiB", 0, 60 * KI },
	{ "60kiB", 0, 60 * KI },
	{ "1M", 0, MI },
	{ "1m", 0, MI },
	{ "1MiB", 0, MI },
	{ "2G", 0, 2 * GI },
	{ "2g", 0, 2 * GI },
	{ "2GiB", 0, 2 * GI },
	{ "3T", 0, 3 * TI },
	{ "3TiB", 0, 3 * TI },
	{ "16777215T", 0, 16777215ULL * TI },
	/* decimal */
	{ "500kB", 0, 500000 },
	{ "500KB", 0, 500000 },
	{ "1MB", 0, 1000000 },
	{ "1mB", 0, 1000000 },
	{ "2GB", 0, 2000000000ULL },
	{ "1TB", 0, 1000000000000ULL },
	/* fractions round to the nearest byte, halves up */
	{ "1.5M", 0, 3 * MI / 2 },
	{ "1.5MiB", 0, 3 * MI / 2 },
	{ "0.5K", 0, 512 },
	{ "1.5", 0, 2 },
	{ "1.4", 0, 1 },
	{ "2.5B", 0, 3 },
	{ "0.0001K", 0, 0 },		/* 0.1024 bytes */
	{ "0.0005K", 0, 1 },		/* 0.512 bytes */
	{ "1.000000000000000001T", 0, TI },
	{ "0.999999999999999999T", 0, TI },
	{ "1.5kB", 0, 1500 },
	{ "0.1G", 0, 107374182 },	/* 107374182.4 */
	{ "0.3G", 0, 322122547 },	/* 322122547.2 */
	{ "0.7G", 0, 751619277 },	/* 751619276.8 */
	/* syntax errors */
	{ "", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ "5q", -EINVAL, 0 },
	{ "1MM", -EINVAL, 0 },
	{ "1 M", -EINVAL, 0 },
	{ " 1M", -EINVAL, 0 },
	{ "1M ", -EINVAL, 0 },
	{ "\t1", -EINVAL, 0 },
	{ "1\n", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "nan", -EINVAL, 0 },
	{ "NaN", -EINVAL, 0 },
	{ "inf", -EINVAL, 0 },
	{ "infinity", -EINVAL, 0 },
	{ "1.", -EINVAL, 0 },
	{ ".5", -EINVAL, 0 },
	{ ".5M", -EINVAL, 0 },
	{ "1..5", -EINVAL, 0 },
	{ "1,5M", -EINVAL, 0 },
	{ "K", -EINVAL, 0 },
	{ "B", -EINVAL, 0 },
	{ "1b", -EINVAL, 0 },		/* lower-case b is bits */
	{ "1kb", -EINVAL, 0 },
	{ "1Mb", -EINVAL, 0 },
	{ "1KIB", -EINVAL, 0 },
	{ "1Kib", -EINVAL, 0 },
	{ "1KiBB", -EINVAL, 0 },
	{ "1iB", -EINVAL, 0 },
	{ "1P", -EINVAL, 0 },
	{ "1E", -EINVAL, 0 },
	{ "1M/s", -EINVAL, 0 },
	{ "1.1234567890123456789M", -EINVAL, 0 },	/* 19 fraction digits */
	{ "--1", -EINVAL, 0 },
	{ "-", -EINVAL, 0 },
	{ "-q", -EINVAL, 0 },
	{ "-1q", -EINVAL, 0 },
	/* range errors */
	{ "-1", -ERANGE, 0 },
	{ "-0", -ERANGE, 0 },
	{ "-1M", -ERANGE, 0 },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "99999999999999999999999999", -ERANGE, 0 },
	{ "16777216T", -ERANGE, 0 },	/* exactly 2^64 */
	{ "16777215.999999T", 0, UINT64_MAX - 1099511ULL },
	{ "16777215.9999999999999T", -ERANGE, 0 },
	{ "18446744073709551615.5", -ERANGE, 0 },
	{ "18446744073709551615.4", 0, UINT64_MAX },
	/* syntax wins over range */
	{ "99999999999999999999999999q", -EINVAL, 0 },
};

static void test_size_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(size_cases); i++) {
		const struct size_case *c = &size_cases[i];
		uint64_t v = 0xdeadbeef;
		int r = units_parse_size(c->in, &v);

		if (r != c->ret || (r == 0 && v != c->want))
			fail_msg("size '%s': got %d/%llu, want %d/%llu", c->in,
				 r, (unsigned long long)v, c->ret,
				 (unsigned long long)c->want);
		if (r < 0 && v != 0xdeadbeef)
			fail_msg("size '%s': output written on error", c->in);
	}
}

struct rate_case {
	const char *in;
	int ret;
	double want;
};

static const struct rate_case rate_cases[] = {
	{ "1000", 0, 1000.0 },
	{ "0", 0, 0.0 },
	{ "1000/s", 0, 1000.0 },
	{ "1000B/s", 0, 1000.0 },
	{ "200K/s", 0, 204800.0 },
	{ "200K", 0, 204800.0 },
	{ "200k/s", 0, 204800.0 },
	{ "500KB/s", 0, 500000.0 },
	{ "500kB/s", 0, 500000.0 },
	{ "500KB", 0, 500000.0 },
	{ "1.5MiB/s", 0, 1572864.0 },
	{ "1.5M/s", 0, 1572864.0 },
	{ "2GiB/s", 0, 2147483648.0 },
	{ "1Gbit/s", 0, 125000000.0 },
	{ "1gbit/s", 0, 125000000.0 },
	{ "1Gbit", 0, 125000000.0 },
	{ "1Gbps", 0, 125000000.0 },
	{ "100Mbit/s", 0, 12500000.0 },
	{ "100Mbps", 0, 12500000.0 },
	{ "100mbps", 0, 12500000.0 },
	{ "800kbit/s", 0, 100000.0 },
	{ "800Kbit/s", 0, 100000.0 },
	{ "800kbps", 0, 100000.0 },
	{ "8bit/s", 0, 1.0 },
	{ "1bit/s", 0, 0.125 },
	{ "8bps", 0, 1.0 },
	{ "1Tbit/s", 0, 125000000000.0 },
	{ "0.5K/s", 0, 512.0 },
	{ "", -EINVAL, 0 },
	{ "/s", -EINVAL, 0 },
	{ "K/s", -EINVAL, 0 },
	{ "5q", -EINVAL, 0 },
	{ "5q/s", -EINVAL, 0 },
	{ "1 K/s", -EINVAL, 0 },
	{ "1K /s", -EINVAL, 0 },
	{ " 1K/s", -EINVAL, 0 },
	{ "1K/s ", -EINVAL, 0 },
	{ "1K/s/s", -EINVAL, 0 },
	{ "1K/sec", -EINVAL, 0 },
	{ "1Mbps/s", -EINVAL, 0 },
	{ "1Bps", -EINVAL, 0 },
	{ "1MBps", -EINVAL, 0 },
	{ "1Mibit/s", -EINVAL, 0 },
	{ "1Mbits/s", -EINVAL, 0 },
	{ "1MMbit/s", -EINVAL, 0 },
	{ "1Mb/s", -EINVAL, 0 },
	{ "+1K/s", -EINVAL, 0 },
	{ "nan", -EINVAL, 0 },
	{ "inf/s", -EINVAL, 0 },
	{ "1e9", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "-1K/s", -ERANGE, 0 },
	{ "-1", -ERANGE, 0 },
	{ "99999999999999999999999999/s", -ERANGE, 0 },
};

/* Each case of CASES through PARSE: the value or the error, and nothing written on error. */
static void check_rates(const struct rate_case *cases, size_t n, int (*parse)(const char *, double *),
			const char *what)
{
	for (size_t i = 0; i < n; i++) {
		const struct rate_case *c = &cases[i];
		double v = -42.0;
		int r = parse(c->in, &v);

		if (r != c->ret || (r == 0 && fabs(v - c->want) > 1e-9 * c->want))
			fail_msg("%s '%s': got %d/%.17g, want %d/%.17g", what, c->in, r, v, c->ret, c->want);
		if (r < 0 && v != -42.0)
			fail_msg("%s '%s': output written on error", what, c->in);
	}
}

static void test_rate_table(void **state)
{
	(void)state;
	check_rates(rate_cases, ARRAY_SIZE(rate_cases), units_parse_rate, "rate");
}

/* Bit rates (iperf3's -b): bits per second; -EDOM for two readings. */
static const struct rate_case bitrate_cases[] = {
	{ "100M", 0, 100e6 },
	{ "100m", 0, 100e6 },
	{ "100", 0, 100.0 },
	{ "0", 0, 0.0 },
	{ "1.5G", 0, 1.5e9 },
	{ "1.5g", 0, 1.5e9 },
	{ "800k", 0, 800e3 },
	{ "800K", 0, 800e3 },
	{ "2T", 0, 2e12 },
	{ "100Mbit/s", 0, 100e6 },
	{ "100Mbit", 0, 100e6 },
	{ "100Mbps", 0, 100e6 },
	{ "100Mb/s", 0, 100e6 },
	{ "100Mb", 0, 100e6 },
	{ "8bit/s", 0, 8.0 },
	{ "12MB/s", 0, 96e6 },
	{ "1MiB/s", 0, 8388608.0 },
	{ "1KiB/s", 0, 8192.0 },
	{ "10B/s", 0, 80.0 },
	{ "100M/s", -EDOM, 0 },
	{ "100k/s", -EDOM, 0 },
	{ "100MB", -EDOM, 0 },
	{ "100MiB", -EDOM, 0 },
	{ "100B", -EDOM, 0 },
	{ "-100M/s", -EDOM, 0 },
	{ "", -EINVAL, 0 },
	{ "M", -EINVAL, 0 },
	{ "100q", -EINVAL, 0 },
	{ "100M/5", -EINVAL, 0 },
	{ "100Mbits", -EINVAL, 0 },
	{ "100MBps", -EINVAL, 0 },
	{ "1 M", -EINVAL, 0 },
	{ "1e9", -EINVAL, 0 },
	{ "-1M", -ERANGE, 0 },
	{ "99999999999999999999999999M", -ERANGE, 0 },
};

static int parse_bitrate(const char *s, double *v)
{
	return units_parse_bitrate(s, v, NULL, 0);
}

static void test_bitrate_table(void **state)
{
	char why[160];

	(void)state;
	check_rates(bitrate_cases, ARRAY_SIZE(bitrate_cases), parse_bitrate, "bitrate");
	for (size_t i = 0; i < ARRAY_SIZE(bitrate_cases); i++) {
		why[0] = 0;
		if (bitrate_cases[i].ret == -EDOM &&
		    (units_parse_bitrate(bitrate_cases[i].in, &(double){ 0 }, why, sizeof(why)) != -EDOM ||
		     !strstr(why, "two readings")))
			fail_msg("bitrate '%s': '%s' does not name the two readings", bitrate_cases[i].in, why);
	}
	/* Both readings, each with what to write. */
	assert_int_equal(units_parse_bitrate("100M/s", &(double){ 0 }, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "100Mbit/s"));
	assert_non_null(strstr(why, "100MiB/s"));
	assert_int_equal(units_parse_bitrate("100MB", &(double){ 0 }, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "800 Mbit/s"));
	assert_non_null(strstr(why, "100Mbit/s"));
	assert_int_equal(units_parse_bitrate("100M/s", &(double){ 0 }, NULL, 0), -EDOM);
}

#define MS 1000000ULL
#define SEC 1000000000ULL

static const struct size_case duration_cases[] = {
	{ "500ms", 0, 500 * MS },
	{ "5s", 0, 5 * SEC },
	{ "2m", 0, 120 * SEC },
	{ "1h", 0, 3600 * SEC },
	{ "250us", 0, 250000 },
	{ "10ns", 0, 10 },
	{ "1.5s", 0, 1500 * MS },
	{ "10", 0, 10 * SEC },
	{ "0", 0, 0 },
	{ "0s", 0, 0 },
	{ "0.5", 0, 500 * MS },
	{ "1.5ns", 0, 2 },
	{ "1.4ns", 0, 1 },
	{ "0.0000000005", 0, 1 },	/* half a nanosecond rounds up */
	{ "0.0000000004", 0, 0 },
	{ "2.5m", 0, 150 * SEC },
	{ "0.001h", 0, 3600 * MS },
	{ "18446744073ns", 0, 18446744073ULL },
	{ "18446744073709551615ns", 0, UINT64_MAX },
	{ "18446744073", 0, 18446744073ULL * SEC },
	{ "", -EINVAL, 0 },
	{ "s", -EINVAL, 0 },
	{ "5q", -EINVAL, 0 },
	{ "5 s", -EINVAL, 0 },
	{ " 5s", -EINVAL, 0 },
	{ "5s ", -EINVAL, 0 },
	{ "5S", -EINVAL, 0 },
	{ "5MS", -EINVAL, 0 },
	{ "5M", -EINVAL, 0 },
	{ "5sec", -EINVAL, 0 },
	{ "5min", -EINVAL, 0 },
	{ "5d", -EINVAL, 0 },
	{ "1h30m", -EINVAL, 0 },
	{ "+5s", -EINVAL, 0 },
	{ "1.s", -EINVAL, 0 },
	{ ".5s", -EINVAL, 0 },
	{ "nan", -EINVAL, 0 },
	{ "inf", -EINVAL, 0 },
	{ "1e3ms", -EINVAL, 0 },
	{ "-1s", -ERANGE, 0 },
	{ "-1", -ERANGE, 0 },
	{ "18446744074", -ERANGE, 0 },
	{ "18446744073709551616ns", -ERANGE, 0 },
	{ "5124096h", -ERANGE, 0 },
	{ "99999999999999999999999h", -ERANGE, 0 },
};

static void test_duration_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(duration_cases); i++) {
		const struct size_case *c = &duration_cases[i];
		uint64_t v = 0xdeadbeef;
		int r = units_parse_duration(c->in, &v);

		if (r != c->ret || (r == 0 && v != c->want))
			fail_msg("duration '%s': got %d/%llu, want %d/%llu",
				 c->in, r, (unsigned long long)v, c->ret,
				 (unsigned long long)c->want);
		if (r < 0 && v != 0xdeadbeef)
			fail_msg("duration '%s': output written on error", c->in);
	}
}

struct cpulist_case {
	const char *in;
	int ncpus;
	int ret;
	const char *want;	/* '1' for each CPU that must be set */
};

static const struct cpulist_case cpulist_cases[] = {
	{ "0", 2, 0, "1" },
	{ "1", 2, 0, "01" },
	{ "0,2", 4, 0, "101" },
	{ "1-3", 4, 0, "0111" },
	{ "0-1,3", 4, 0, "1101" },
	{ "0-1", 2, 0, "11" },
	{ "2,0", 4, 0, "101" },
	{ "0,0", 2, 0, "1" },
	{ "0-2,1-3", 4, 0, "1111" },
	{ "3-3", 4, 0, "0001" },
	{ "00,01", 2, 0, "11" },
	{ "99", 0, 0, NULL },
	{ "1023", 0, 0, NULL },
	{ "3-1", 4, -EINVAL, NULL },
	{ "3-1", 2, -EINVAL, NULL },
	{ "a", 4, -EINVAL, NULL },
	{ "1,,2", 4, -EINVAL, NULL },
	{ "-1", 4, -EINVAL, NULL },
	{ "0,", 4, -EINVAL, NULL },
	{ ",0", 4, -EINVAL, NULL },
	{ "", 4, -EINVAL, NULL },
	{ "0-", 4, -EINVAL, NULL },
	{ "0--1", 4, -EINVAL, NULL },
	{ "0-1-2", 4, -EINVAL, NULL },
	{ " 0", 4, -EINVAL, NULL },
	{ "0 ", 4, -EINVAL, NULL },
	{ "0, 1", 4, -EINVAL, NULL },
	{ "+1", 4, -EINVAL, NULL },
	{ "0x1", 4, -EINVAL, NULL },
	{ "0-7:2", 8, -EINVAL, NULL },
	{ "1.0", 4, -EINVAL, NULL },
	{ "99,a", 2, -EINVAL, NULL },	/* syntax wins */
	{ "99", 2, -ERANGE, NULL },
	{ "2", 2, -ERANGE, NULL },
	{ "0-2", 2, -ERANGE, NULL },
	{ "0,5", 2, -ERANGE, NULL },
	{ "1024", 0, -ERANGE, NULL },
	{ "1024", 4096, -ERANGE, NULL },	/* CPU_SETSIZE bounds too */
	{ "99999999999999999999999", 2, -ERANGE, NULL },
	{ "0-99999999999999999999999", 2, -ERANGE, NULL },
};

static void test_cpulist_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cpulist_cases); i++) {
		const struct cpulist_case *c = &cpulist_cases[i];
		cpu_set_t set, before;
		int r;

		memset(&set, 0xa5, sizeof(set));
		before = set;
		r = units_cpulist_parse(c->in, &set, c->ncpus);
		if (r != c->ret)
			fail_msg("cpulist '%s' (%d cpus): got %d, want %d",
				 c->in, c->ncpus, r, c->ret);
		if (r < 0) {
			if (memcmp(&set, &before, sizeof(set)) != 0)
				fail_msg("cpulist '%s': output written on error",
					 c->in);
			continue;
		}
		if (!c->want)
			continue;
		for (size_t cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			int want = cpu < strlen(c->want) && c->want[cpu] == '1';

			if (!!CPU_ISSET(cpu, &set) != want)
				fail_msg("cpulist '%s': cpu %zu is %d, want %d",
					 c->in, cpu, !!CPU_ISSET(cpu, &set), want);
		}
	}
}

static void test_cpulist_last_cpu(void **state)
{
	cpu_set_t set;

	(void)state;
	assert_int_equal(units_cpulist_parse("1023", &set, 0), 0);
	assert_int_equal(CPU_COUNT(&set), 1);
	assert_true(CPU_ISSET(1023, &set));
	assert_int_equal(units_cpulist_parse("0-1023", &set, 0), 0);
	assert_int_equal(CPU_COUNT(&set), CPU_SETSIZE);
}

static int record_range(uint64_t lo, uint64_t hi, void *arg)
{
	char *buf = arg;
	size_t n = strlen(buf);

	snprintf(buf + n, 64 - n, "[%llu-%llu]", (unsigned long long)lo, (unsigned long long)hi);
	return lo == 666 ? -EPERM : 0;
}

/* The ranges as written, beyond CPU_SETSIZE, unterminated text, and FN stopping the walk. */
static void test_cpulist_walk(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		int ret;
		const char *seen;
	} cases[] = {
		{ "0-3,8", 5, 0, "[0-3][8-8]" },
		{ "4096-8191", 9, 0, "[4096-8191]" },
		{ "1,2junk", 3, 0, "[1-1][2-2]" },	/* only LEN bytes */
		{ "1,", 2, -EINVAL, "[1-1]" },
		{ "", 0, -EINVAL, "" },
		{ "3-1", 3, -EINVAL, "" },
		{ "1,666,7", 7, -EPERM, "[1-1][666-666]" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char seen[64] = "";
		int r = units_cpulist_walk(cases[i].in, cases[i].len, record_range, seen);

		if (r != cases[i].ret || strcmp(seen, cases[i].seen))
			fail_msg("walk '%.*s': got %d '%s', want %d '%s'", (int)cases[i].len, cases[i].in, r, seen,
				 cases[i].ret, cases[i].seen);
	}
}

struct i64_case {
	const char *in;
	int64_t min, max;
	int ret;
	int64_t want;
};

static const struct i64_case i64_cases[] = {
	{ "0", INT64_MIN, INT64_MAX, 0, 0 },
	{ "42", INT64_MIN, INT64_MAX, 0, 42 },
	{ "-12", INT64_MIN, INT64_MAX, 0, -12 },
	{ "-0", INT64_MIN, INT64_MAX, 0, 0 },
	{ "9223372036854775807", INT64_MIN, INT64_MAX, 0, INT64_MAX },
	{ "-9223372036854775808", INT64_MIN, INT64_MAX, 0, INT64_MIN },
	{ "9223372036854775808", INT64_MIN, INT64_MAX, -ERANGE, 0 },
	{ "-9223372036854775809", INT64_MIN, INT64_MAX, -ERANGE, 0 },
	{ "99999999999999999999999", INT64_MIN, INT64_MAX, -ERANGE, 0 },
	{ "5", 1, 10, 0, 5 },
	{ "1", 1, 10, 0, 1 },
	{ "10", 1, 10, 0, 10 },
	{ "0", 1, 10, -ERANGE, 0 },
	{ "11", 1, 10, -ERANGE, 0 },
	{ "-1", 0, 10, -ERANGE, 0 },
	{ "", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "-", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "+1", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "--1", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ " 1", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "1 ", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "1.0", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "1.", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "0x10", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "1K", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "1e3", INT64_MIN, INT64_MAX, -EINVAL, 0 },
	{ "99999999999999999999999x", INT64_MIN, INT64_MAX, -EINVAL, 0 },
};

static void test_int64_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(i64_cases); i++) {
		const struct i64_case *c = &i64_cases[i];
		int64_t v = 77;
		int r = units_parse_int64(c->in, c->min, c->max, &v);

		if (r != c->ret || (r == 0 && v != c->want))
			fail_msg("int64 '%s': got %d/%lld, want %d/%lld", c->in,
				 r, (long long)v, c->ret, (long long)c->want);
		if (r < 0 && v != 77)
			fail_msg("int64 '%s': output written on error", c->in);
	}
}

struct u64_case {
	const char *in;
	uint64_t min, max;
	int ret;
	uint64_t want;
};

static const struct u64_case u64_cases[] = {
	{ "0", 0, UINT64_MAX, 0, 0 },
	{ "42", 0, UINT64_MAX, 0, 42 },
	{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
	{ "18446744073709551616", 0, UINT64_MAX, -ERANGE, 0 },
	{ "3", 1, 64, 0, 3 },
	{ "0", 1, 64, -ERANGE, 0 },
	{ "65", 1, 64, -ERANGE, 0 },
	{ "-1", 0, UINT64_MAX, -ERANGE, 0 },
	{ "-0", 0, UINT64_MAX, -ERANGE, 0 },
	{ "-", 0, UINT64_MAX, -EINVAL, 0 },
	{ "-x", 0, UINT64_MAX, -EINVAL, 0 },
	{ "", 0, UINT64_MAX, -EINVAL, 0 },
	{ "+1", 0, UINT64_MAX, -EINVAL, 0 },
	{ "1 ", 0, UINT64_MAX, -EINVAL, 0 },
	{ "1.5", 0, UINT64_MAX, -EINVAL, 0 },
	{ "4K", 0, UINT64_MAX, -EINVAL, 0 },
	{ "0x10", 0, UINT64_MAX, -EINVAL, 0 },
};

static void test_uint64_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(u64_cases); i++) {
		const struct u64_case *c = &u64_cases[i];
		uint64_t v = 77;
		int r = units_parse_uint64(c->in, c->min, c->max, &v);

		if (r != c->ret || (r == 0 && v != c->want))
			fail_msg("uint64 '%s': got %d/%llu, want %d/%llu", c->in,
				 r, (unsigned long long)v, c->ret,
				 (unsigned long long)c->want);
		if (r < 0 && v != 77)
			fail_msg("uint64 '%s': output written on error", c->in);
	}
}

static void test_fmt_bytes(void **state)
{
	static const struct {
		uint64_t in;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 512, "512 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.00 KiB" },
		{ 1536, "1.50 KiB" },
		{ 3 * MI / 2, "1.50 MiB" },
		{ MI - 1, "1.00 MiB" },		/* not "1024.00 KiB" */
		{ MI - 6, "1023.99 KiB" },
		{ 2 * GI, "2.00 GiB" },
		{ 5 * TI, "5.00 TiB" },
		{ 1024 * TI, "1.00 PiB" },
		{ UINT64_MAX, "16.00 EiB" },
	};
	char buf[UNITS_FMT_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = units_fmt_bytes(buf, sizeof(buf), cases[i].in);

		assert_ptr_equal(got, buf);
		assert_string_equal(got, cases[i].want);
	}
}

static void test_fmt_rate_bits(void **state)
{
	static const struct {
		double in;
		const char *rate, *bits;
	} cases[] = {
		{ 0.0, "0 B/s", "0.0 bit/s" },
		{ 512.0, "512 B/s", "512.0 bit/s" },
		{ 1000.0, "1000 B/s", "1.0 kbit/s" },
		{ 1024.0, "1.00 KiB/s", "1.0 kbit/s" },
		{ 117.2 * MI, "117.20 MiB/s", "122.9 Mbit/s" },
		{ 943.1e6, "899.41 MiB/s", "943.1 Mbit/s" },
		{ 999.96e6, "953.64 MiB/s", "1.0 Gbit/s" },
		{ 1e12, "931.32 GiB/s", "1.0 Tbit/s" },
		{ 1e30, "867361737988.40 EiB/s", "1000000000000000.0 Pbit/s" },
		{ -2048.0, "-2.00 KiB/s", "-2.0 kbit/s" },
	};
	char buf[UNITS_FMT_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_string_equal(units_fmt_rate(buf, sizeof(buf), cases[i].in),
				    cases[i].rate);
		assert_string_equal(units_fmt_bits(buf, sizeof(buf), cases[i].in),
				    cases[i].bits);
	}
	assert_string_equal(units_fmt_rate(buf, sizeof(buf), NAN), "nan B/s");
	assert_string_equal(units_fmt_bits(buf, sizeof(buf), INFINITY),
			    "inf bit/s");
}

/* The styles of the one byte formatter, as disk, info, fetch and the renderer use them. */
static void test_fmt_size(void **state)
{
	static const struct {
		double in;
		unsigned flags;
		const char *want;
	} cases[] = {
		{ 1023, 0, "1023 B" },
		{ 1023.6, 0, "1.00 KiB" },	/* never "1024 B" */
		{ 1048575, 0, "1.00 MiB" },	/* never "1024.00 KiB" */
		{ 1536, 0, "1.50 KiB" },
		{ -1536, 0, "-1.50 KiB" },
		{ 16384, UNITS_FMT_EXACT, "16 KiB" },
		{ 256.0 * MI, UNITS_FMT_EXACT, "256 MiB" },
		{ 1.5 * MI, UNITS_FMT_EXACT, "1.50 MiB" },
		{ 1048575, UNITS_FMT_EXACT, "1.00 MiB" },
		{ 512, UNITS_FMT_EXACT, "512 B" },
		{ 23.44 * GI, UNITS_FMT_DEC1, "23.4 GiB" },
		{ 1048575, UNITS_FMT_DEC1, "1.0 MiB" },
		{ 512, UNITS_FMT_DEC1 | UNITS_FMT_TIGHT, "512B" },
		{ 61440, UNITS_FMT_DEC1 | UNITS_FMT_TIGHT, "60.0KiB" },
		{ 3.0 * GI, UNITS_FMT_PER_S, "3.00 GiB/s" },
		{ 2.0 * MI, UNITS_FMT_EXACT | UNITS_FMT_PER_S, "2 MiB/s" },
		{ NAN, 0, "nan B" },
	};
	char buf[UNITS_FMT_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (strcmp(units_fmt_size(buf, sizeof(buf), cases[i].in, cases[i].flags), cases[i].want))
			fail_msg("case %zu: '%s', want '%s'", i, buf, cases[i].want);
}

static void test_fmt_duration(void **state)
{
	static const struct {
		uint64_t in;
		const char *want;
	} cases[] = {
		{ 0, "0 ns" },
		{ 850, "850 ns" },
		{ 999, "999 ns" },
		{ 1000, "1.00 us" },
		{ 12500, "12.50 us" },
		{ 999994, "999.99 us" },
		{ 999995, "1.00 ms" },
		{ 1250000, "1.25 ms" },
		{ 999994999, "999.99 ms" },
		{ 999995000, "1.000 s" },
		{ 2 * SEC, "2.000 s" },
		{ 3600 * SEC, "3600.000 s" },
		{ UINT64_MAX, "18446744073.710 s" },
	};
	char buf[UNITS_FMT_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_string_equal(units_fmt_duration(buf, sizeof(buf),
						       cases[i].in),
				    cases[i].want);
}

static void test_fmt_truncates(void **state)
{
	char buf[6];

	(void)state;
	units_fmt_bytes(buf, sizeof(buf), 3 * MI / 2);
	assert_string_equal(buf, "1.50 ");
	units_fmt_duration(buf, 1, 5);
	assert_string_equal(buf, "");
}

/* units_fmt_tm() prints what strftime() printed for the formats engpass uses. */
static void test_fmt_tm(void **state)
{
	static const char *fmts[] = { "%Y-%m-%dT%H:%M:%SZ", "%Y%m%d-%H%M%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M" };
	static const struct {
		time_t t;
		const char *want[4];
	} cases[] = {
		{ 0, { "1970-01-01T00:00:00Z", "19700101-000000", "1970-01-01 00:00:00", "1970-01-01 00:00" } },
		{ 951782400, { "2000-02-29T00:00:00Z", "20000229-000000", "2000-02-29 00:00:00", "2000-02-29 00:00" } },
		{ 1796000000, { "2026-11-30T00:53:20Z", "20261130-005320", "2026-11-30 00:53:20", "2026-11-30 00:53" } },
		{ 2147483647, { "2038-01-19T03:14:07Z", "20380119-031407", "2038-01-19 03:14:07", "2038-01-19 03:14" } },
	};
	char buf[40], small[8];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tm tm;

		assert_non_null(gmtime_r(&cases[i].t, &tm));
		for (size_t f = 0; f < ARRAY_SIZE(fmts); f++)
			assert_string_equal(units_fmt_tm(buf, sizeof(buf), fmts[f], &tm), cases[i].want[f]);
		/* Too small: empty, never a cut date. */
		assert_string_equal(units_fmt_tm(small, sizeof(small), fmts[0], &tm), "");
	}
}

/* What the formatter prints, the parser reads back (within the rounding). */
static void test_fmt_parse_round_trip(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 1023, 4096, 3 * MI / 2, 2 * GI };
	char buf[UNITS_FMT_LEN], unit[8];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		double num;
		uint64_t back;
		char joined[UNITS_FMT_LEN];

		units_fmt_bytes(buf, sizeof(buf), sizes[i]);
		assert_int_equal(sscanf(buf, "%lf %7s", &num, unit), 2);
		/* the output has a space the parser rightly refuses */
		assert_int_equal(units_parse_size(buf, &back), -EINVAL);
		snprintf(joined, sizeof(joined), "%s", buf);
		*strchr(joined, ' ') = '\0';
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined),
			 "%s", unit);
		assert_int_equal(units_parse_size(joined, &back), 0);
		assert_true(back <= sizes[i] + sizes[i] / 200 + 1);
		assert_true(back + sizes[i] / 200 + 1 >= sizes[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_table),
		cmocka_unit_test(test_rate_table),
		cmocka_unit_test(test_bitrate_table),
		cmocka_unit_test(test_duration_table),
		cmocka_unit_test(test_cpulist_table),
		cmocka_unit_test(test_cpulist_last_cpu),
		cmocka_unit_test(test_int64_table),
		cmocka_unit_test(test_uint64_table),
		cmocka_unit_test(test_cpulist_walk),
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_fmt_rate_bits),
		cmocka_unit_test(test_fmt_size),
		cmocka_unit_test(test_fmt_duration),
		cmocka_unit_test(test_fmt_truncates),
		cmocka_unit_test(test_fmt_tm),
		cmocka_unit_test(test_fmt_parse_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
