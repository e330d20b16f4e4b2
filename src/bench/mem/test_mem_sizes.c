/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/bench/mem/mem_sizes.c: the --sizes list of the swaptest
 * ladder (multiples and absolute sizes, strictly parsed), resolving a
 * rung against its base, the safety budget, the resident rule and
 * swaptest's line (checked against seed 003's own figures).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench/mem/mem_sizes.h"

#define MiB (UINT64_C(1) << 20)

/* Splits TEXT as the option parser does, then parses the items. */
static int parse(const char *text, struct mem_size *s, size_t *n, char *err, size_t errlen)
{
	struct opt_list l;

	*n = 0;
	if (opt_list_split(&l, text, MEM_MAX_SIZES))
		return -E2BIG;	/* the parser's to refuse (test_opt.c) */
	return mem_sizes_parse(&l, s, MEM_MAX_SIZES, n, err, errlen);
}

static void test_parse_default_ladder(void **state)
{
	struct mem_size s[MEM_MAX_SIZES];
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(parse("0.25x,0.5x,0.75x,1x,1.5x,2x", s, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 6);
	assert_true(s[0].relative);
	assert_true(s[0].factor == 0.25);
	assert_true(s[4].factor == 1.5);
	assert_string_equal(s[4].text, "1.5x");
	assert_true(s[5].factor == 2.0);
}

/* Seed 003's ladder in absolute sizes, mixed with a multiple. */
static void test_parse_absolute_and_mixed(void **state)
{
	struct mem_size s[MEM_MAX_SIZES];
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(parse("32M,85M,128MiB,192M,256M,1.5x,4096", s, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 7);
	assert_false(s[0].relative);
	assert_true(s[0].bytes == 32 * MiB);
	assert_true(s[2].bytes == 128 * MiB);
	assert_true(s[5].relative);
	assert_true(s[6].bytes == 4096);
	assert_string_equal(s[1].text, "85M");
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *in;
		int err;
		const char *needle;
	} bad[] = {
		{ "x", -EINVAL, "'x'" },
		{ ".5x", -EINVAL, "'.5x'" },
		{ "1.x", -EINVAL, "'1.x'" },
		{ "1 x", -EINVAL, "'1 x'" },
		{ " 1x", -EINVAL, "' 1x'" },
		{ "-1x", -EINVAL, "'-1x'" },
		{ "1.5X", -EINVAL, "'1.5X'" },
		{ "1xx", -EINVAL, "'1xx'" },
		{ "0x", -ERANGE, "outside" },
		{ "0.0x", -ERANGE, "outside" },
		{ "65x", -ERANGE, "outside" },
		{ "foo", -EINVAL, "'foo'" },
		{ "12q", -EINVAL, "'12q'" },
		{ "4095", -ERANGE, "at least 4K" },
		{ "0", -ERANGE, "at least 4K" },
		{ "1b", -EINVAL, "'1b'" },
		{ "0.1234567891x", -EINVAL, "multiple" },
		{ "123456789012345678901234x", -EINVAL, "too long" },
	};
	struct mem_size s[MEM_MAX_SIZES];
	char err[256];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		n = 99;
		if (parse(bad[i].in, s, &n, err, sizeof(err)) != bad[i].err)
			fail_msg("'%s' did not give %d (message: %s)", bad[i].in, bad[i].err, err);
		if (!strstr(err, bad[i].needle))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].in, err, bad[i].needle);
		if (strncmp(err, "option '--sizes': ", 18))
			fail_msg("'%s': message '%s' does not name the option", bad[i].in, err);
		assert_int_equal(n, 0);
	}
}

static void test_parse_capacity(void **state)
{
	struct mem_size s[4];
	struct opt_list l;
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(opt_list_split(&l, "1x,2x,3x,4x", 0), 0);
	assert_int_equal(mem_sizes_parse(&l, s, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(opt_list_split(&l, "1x,2x,3x,4x,5x", 0), 0);
	assert_int_equal(mem_sizes_parse(&l, s, 4, &n, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "more than 4"));
}

static void test_resolve(void **state)
{
	struct mem_size half = { .relative = true, .factor = 0.5 }, tiny = { .relative = true, .factor = 1e-9 };
	struct mem_size odd = { .bytes = 10000 }, third = { .relative = true, .factor = 0.66 };

	(void)state;
	assert_true(mem_size_resolve(&half, 128 * MiB, 4096) == 64 * MiB);
	assert_true(mem_size_resolve(&tiny, 128 * MiB, 4096) == 4096);	/* at least a page */
	assert_true(mem_size_resolve(&odd, 128 * MiB, 4096) == 8192);		/* whole pages, down */
	assert_true(mem_size_resolve(&odd, 0, 0) == 8192);			/* page 0 = 4 KiB */
	/* swaptest's 85.34 MB rung on a 128 MB box: 2/3 of the memory, in pages. */
	assert_true(mem_size_resolve(&third, 128 * MiB, 4096) == (uint64_t)(0.66 * 128 * MiB) / 4096 * 4096);
}

static void test_budget(void **state)
{
	(void)state;
	/* 20 GiB available + 0 swap - 5 % of 24 GiB. */
	assert_true(mem_budget(20480 * MiB, 0, 5, 24576 * MiB) == 20480 * MiB - UINT64_C(1288490188));
	/* Sandbox: 128 MiB limit + 256 MiB swap - 5 % of the limit. */
	assert_true(mem_budget(128 * MiB, 256 * MiB, 5, 128 * MiB) == 384 * MiB - (uint64_t)(6.4 * MiB));
	assert_true(mem_budget(10 * MiB, 0, 50, 100 * MiB) == 0);	/* margin eats all */
	assert_true(mem_budget(10 * MiB, 5 * MiB, 0, 100 * MiB) == 15 * MiB);
}

static void test_resident_rule(void **state)
{
	(void)state;
	assert_true(mem_row_resident(0, 0, 1000, 1000));
	assert_false(mem_row_resident(1, 0, 1000, 1000));	/* a fault while writing */
	assert_false(mem_row_resident(0, 3, 1000, 1000));	/* a fault while reading */
	assert_false(mem_row_resident(0, 0, 999, 1000));	/* a page out after the read */
	assert_false(mem_row_resident(0, 0, 0, 0));		/* nothing measured */
}

/* Seed 003's lines, from the blog: 128.00 MB in 6.385 s = 20.05 MB/sec. */
static void test_swaptest_line(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(mem_swaptest_line(buf, sizeof(buf), 1, 128 * MiB, 6.385),
			    "1 iterations: 128.00 MB in 6.385 seconds = 20.05 MB/sec");
	assert_string_equal(mem_swaptest_line(buf, sizeof(buf), 1, 256 * MiB + 10 * 1024, 28.164),
			    "1 iterations: 256.01 MB in 28.164 seconds = 9.09 MB/sec");
	/* Two passes: MB is what was read, so the line still divides out. */
	assert_string_equal(mem_swaptest_line(buf, sizeof(buf), 2, 32 * MiB, 0.02),
			    "2 iterations: 64.00 MB in 0.020 seconds = 3200.00 MB/sec");
	assert_string_equal(mem_swaptest_line(buf, sizeof(buf), 1, 32 * MiB, 0),
			    "1 iterations: 32.00 MB in 0.000 seconds = 0.00 MB/sec");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_default_ladder),
		cmocka_unit_test(test_parse_absolute_and_mixed),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_capacity),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_resident_rule),
		cmocka_unit_test(test_swaptest_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
