/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the pure helpers of the disk benchmark
 * (src/bench/disk/disk_spec.c: data pattern, --sync, default size). The
 * test links the bench library like the binary does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/disk/disk_spec.h"

static void test_sync_parse(void **state)
{
	static const struct {
		const char *s;
		int ok;
		enum disk_sync mode;
		uint64_t every;
	} cases[] = {
		{ "none", 1, DISK_SYNC_NONE, 0 },
		{ "end", 1, DISK_SYNC_END, 0 },
		{ "osync", 1, DISK_SYNC_OSYNC, 0 },
		{ "odsync", 1, DISK_SYNC_ODSYNC, 0 },
		{ "fdatasync=1", 1, DISK_SYNC_FDATASYNC, 1 },
		{ "fsync=64", 1, DISK_SYNC_FSYNC, 64 },
		{ "fsync=0", 0, 0, 0 },
		{ "fsync", 0, 0, 0 },
		{ "fsync=", 0, 0, 0 },
		{ "fsync=-1", 0, 0, 0 },
		{ "fsync=8x", 0, 0, 0 },
		{ "fdatasync=+4", 0, 0, 0 },
		{ "fsyncx=4", 0, 0, 0 },
		{ "End", 0, 0, 0 },
		{ "", 0, 0, 0 },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum disk_sync m = DISK_SYNC_NONE;
		uint64_t e = 99;
		int r = disk_sync_parse(cases[i].s, &m, &e);

		if (!cases[i].ok) {
			if (r != -EINVAL)
				fail_msg("'%s' should be refused", cases[i].s);
			continue;
		}
		if (r != 0 || m != cases[i].mode || e != cases[i].every)
			fail_msg("'%s' parsed wrong", cases[i].s);
		/* The name reads back as the same text. */
		assert_string_equal(disk_sync_name(m, e, buf, sizeof(buf)), cases[i].s);
	}
}

static void test_default_size(void **state)
{
	(void)state;
	assert_int_equal(disk_default_size(100 * DISK_GIB), DISK_GIB);
	assert_int_equal(disk_default_size(2 * DISK_GIB), DISK_GIB / 2);
	assert_int_equal(disk_default_size(400 * DISK_MIB + 12345), 100 * DISK_MIB);
	assert_int_equal(disk_default_size(128 * DISK_MIB), 32 * DISK_MIB);
	assert_int_equal(disk_default_size(127 * DISK_MIB), 0);
	assert_int_equal(disk_default_size(0), 0);
}

static void test_pattern(void **state)
{
	unsigned char a[100], b[100], c[100];

	(void)state;
	disk_pattern(a, sizeof(a), 1, 7);
	disk_pattern(b, sizeof(b), 1, 7);
	disk_pattern(c, sizeof(c), 1, 8);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	disk_pattern(c, sizeof(c), 2, 7);
	assert_memory_not_equal(a, c, sizeof(a));
}

/* The fill's plan: the probe's rate over the allowance left, within [min, asked], aligned. */
static void test_fill_plan(void **state)
{
	static const struct {
		uint64_t asked, min, done, done_ns, left_ns, want;
	} cases[] = {
		/* 1 MiB in 0.5 s, 1.5 s left: 3 MiB more. */
		{ 256 * DISK_MIB, 2 * DISK_MIB, DISK_MIB, 500000000, 1500000000, 4 * DISK_MIB },
		/* A fast device: all that was asked fits. */
		{ 256 * DISK_MIB, 2 * DISK_MIB, DISK_MIB, 1000000, 1999000000, 256 * DISK_MIB },
		/* A very slow one: the steps' minimum, over the allowance. */
		{ 256 * DISK_MIB, 2 * DISK_MIB, DISK_MIB, 1900000000, 100000000, 2 * DISK_MIB },
		/* Rounded down to the alignment (1 MiB + 1.5 MiB = 2.5 MiB -> 2 MiB). */
		{ 256 * DISK_MIB, DISK_MIB, DISK_MIB, 1000000000, 1500000000, 2 * DISK_MIB },
		/* No time left: what was written, or the minimum. */
		{ 256 * DISK_MIB, 2 * DISK_MIB, 4 * DISK_MIB, 2000000000, 0, 4 * DISK_MIB },
		/* The minimum never passes what was asked. */
		{ 3 * DISK_MIB, 8 * DISK_MIB, DISK_MIB, 2000000000, 0, 3 * DISK_MIB },
		/* No time measured (a clock step of 0): all of it. */
		{ 64 * DISK_MIB, 2 * DISK_MIB, DISK_MIB, 0, 1000000000, 64 * DISK_MIB },
		/* Rate x allowance past 2^64 does not wrap. */
		{ UINT64_MAX / 2, DISK_MIB, DISK_MIB, 1, UINT64_MAX / 2, UINT64_MAX / 2 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t got = disk_fill_plan(cases[i].asked, cases[i].min, cases[i].done, cases[i].done_ns,
					      cases[i].left_ns, DISK_MIB);

		if (got != cases[i].want)
			fail_msg("case %zu: %llu, want %llu", i, (unsigned long long)got,
				 (unsigned long long)cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_parse),
		cmocka_unit_test(test_default_size),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_fill_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
