/* SPDX-License-Identifier: MIT */
/*
 * Tests of what `engpass latency` is asked to measure (latency_spec.h):
 * the task and load lists, combinations and their names, the errors that
 * make a usage error, the grid of cells, and the memload size -- from
 * effective memory, bounded by what is free, with no fixed cap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "bench/latency/latency_spec.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static struct lat_plan plan;	/* about 1 KiB; static to keep the stack small */

/*
 * lat_plan_parse() over the texts as the option parser splits them (NULL:
 * not given). Empty items never get here: the parser refuses them.
 */
static int parse(const char *tasks, const char *loads, char *err, size_t errlen)
{
	static struct opt_list t, l;

	if ((tasks && opt_list_split(&t, tasks, 0)) || (loads && opt_list_split(&l, loads, 0)))
		return -E2BIG;
	return lat_plan_parse(&plan, tasks ? &t : NULL, loads ? &l : NULL, err, errlen);
}

static void test_defaults(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(parse(NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(plan.ntasks, 4);
	assert_int_equal(plan.nloads, 8);
	/* 4 x 8, without video under video and x under x (interbench's rule). */
	assert_int_equal(plan.ncells, 30);
	for (unsigned i = 0; i < plan.ncells; i++)
		assert_false(plan.loads[plan.cells[i].load].parts == (1u << plan.cells[i].task));
	assert_int_equal(plan.cells[0].task, LAT_TASK_AUDIO);
	assert_string_equal(plan.loads[plan.cells[0].load].name, "none");
	assert_int_equal(plan.loads[6].parts, LAT_PART_BURN | LAT_PART_WRITE | LAT_PART_READ);
}

static void test_explicit(void **state)
{
	char err[256] = "";

	(void)state;
	/* Asked explicitly, video under video is measured. */
	assert_int_equal(parse("Video", "VIDEO,none", err, sizeof(err)), 0);
	assert_int_equal(plan.ncells, 2);
	assert_string_equal(plan.loads[0].name, "video");
	/* Order: task by task, each over the loads. */
	assert_int_equal(parse("audio,video", "none,burn", err, sizeof(err)), 0);
	assert_int_equal(plan.ncells, 4);
	assert_int_equal(plan.cells[1].task, LAT_TASK_AUDIO);
	assert_string_equal(plan.loads[plan.cells[1].load].name, "burn");
	assert_int_equal(plan.cells[2].task, LAT_TASK_VIDEO);
}

static void test_combinations(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(parse("audio", "none,desktop=memload+read+audio,burn+read,"
					 "d2=desktop+burn", err, sizeof(err)), 0);
	assert_int_equal(plan.nloads, 4);
	assert_string_equal(plan.loads[1].name, "desktop");
	assert_int_equal(plan.loads[1].parts, LAT_PART_MEMLOAD | LAT_PART_READ | LAT_PART_AUDIO);
	assert_true(plan.loads[1].custom);
	assert_string_equal(plan.loads[2].name, "burn+read");
	assert_int_equal(plan.loads[2].parts, LAT_PART_BURN | LAT_PART_READ);
	/* A name defined earlier can be a component. */
	assert_int_equal(plan.loads[3].parts, LAT_PART_MEMLOAD | LAT_PART_READ | LAT_PART_AUDIO | LAT_PART_BURN);
	/* The custom task is never in the default list, and runs under every default load (burn too). */
	assert_int_equal(parse("custom", NULL, err, sizeof(err)), 0);
	assert_int_equal(plan.ncells, 8);
	assert_int_equal(plan.cells[0].task, LAT_TASK_CUSTOM);
	/* Custom loads are measured even when they equal the task. */
	assert_int_equal(parse("audio", "mine=audio", err, sizeof(err)), 0);
	assert_int_equal(plan.ncells, 1);
}

struct bad {
	const char *tasks, *loads, *needle;
};

static void test_errors(void **state)
{
	static const struct bad bad[] = {
		{ "foo", NULL, "unknown task 'foo'" },
		{ "audio,audio", NULL, "given twice" },
		{ NULL, "burn,fire", "unknown load 'fire'" },
		{ NULL, "custom", "unknown load 'custom'" },
		{ NULL, "desktop=desktop+read", "names itself" },
		{ NULL, "desktop=read+desktop", "names itself" },
		{ NULL, "burn=read+write", "redefine the built-in" },
		{ NULL, "none+burn", "'none' cannot be combined" },
		{ NULL, "burn,burn", "given twice" },
		{ NULL, "d=burn,d=read", "given twice" },
		{ NULL, "=burn", "no name" },
		{ NULL, "d=", "is empty" },
		{ NULL, "d=burn+", "empty name" },
		{ NULL, "d=later+burn,later=read", "unknown load 'later'" },
		{ NULL, "my load=burn", "only letters" },
		{ NULL, "abcdefghijabcdefghijabcdefghijabc=burn", "longer than" },
		{ NULL, "burn,read,write,none,video,x,audio,gaming,memload,compile,a=burn,b=burn,c=burn,d=burn,e=burn,"
			"f=burn,g=burn", "more than 16" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(bad[i].tasks, bad[i].loads, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].needle))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].needle);
		assert_null(strchr(err, '\n'));
	}
}

static void test_format_and_periods(void **state)
{
	char buf[64], err[256];

	(void)state;
	lat_parts_format(buf, sizeof(buf), LAT_PART_READ | LAT_PART_BURN | LAT_PART_WRITE);
	assert_string_equal(buf, "burn+write+read");
	lat_parts_format(buf, sizeof(buf), 0);
	assert_string_equal(buf, "none");
	lat_parts_format(buf, 6, LAT_PART_MEMLOAD | LAT_PART_AUDIO);
	assert_string_equal(buf, "audio");	/* truncated at a whole name */
	assert_int_equal(parse("video,audio", "none", err, sizeof(err)), 0);
	assert_int_equal(lat_plan_longest_period(&plan, 1), 50 * 1000000ULL);
	assert_int_equal(parse("video", "none", err, sizeof(err)), 0);
	assert_int_equal(lat_plan_longest_period(&plan, 1), 16666667);
	assert_false(lat_plan_has_task(&plan, LAT_TASK_CUSTOM));
	assert_int_equal(parse("video,custom", "none", err, sizeof(err)), 0);
	assert_int_equal(lat_plan_longest_period(&plan, 2000000000ULL), 2000000000ULL);
	assert_true(lat_plan_has_task(&plan, LAT_TASK_CUSTOM));
	assert_int_equal(lat_task_info(LAT_TASK_VIDEO)->run_ns, 6666666);
	assert_int_equal(lat_task_info(LAT_TASK_AUDIO)->run_ns * 20, lat_task_info(LAT_TASK_AUDIO)->period_ns);
	assert_false(lat_task_info(LAT_TASK_GAMING)->deadlines);
}

static void test_memload_size(void **state)
{
	struct lat_memload_size m;

	(void)state;
	/* This development VM: 24 GiB, 23 GiB available, no swap: the ceiling decides. */
	assert_int_equal(lat_memload_size(24 * GiB, 23 * GiB, 0, 0, &m), 0);
	assert_true(m.target > 26 * GiB && m.target < 27 * GiB);
	assert_int_equal(m.margin, 24 * GiB / 16);
	assert_int_equal(m.size, 23 * GiB - 24 * GiB / 16);
	assert_true(m.limited);
	/* seed 003's box: 128 MiB RAM and swap: 110 % of RAM, pushing into swap. */
	assert_int_equal(lat_memload_size(128 * MiB, 100 * MiB, 512 * MiB, 0, &m), 0);
	assert_int_equal(m.margin, 16 * MiB);
	assert_int_equal(m.size, 140 * MiB);	/* 140.8 MiB, whole MiB */
	assert_false(m.limited);
	/* No fixed cap: interbench stops at 2930 MB, engpass follows the memory. */
	assert_int_equal(lat_memload_size(1024 * GiB, 1000 * GiB, 512 * GiB, 0, &m), 0);
	assert_true(m.size > 2930 * MiB);
	assert_int_equal(m.size, (1024 * GiB / 10 * 11) & ~(MiB - 1));
	assert_false(m.limited);
	/* Too little to spare: refused, never more than what is free. */
	assert_int_equal(lat_memload_size(64 * MiB, 20 * MiB, 0, 0, &m), -ENOMEM);
	assert_true(m.size < 20 * MiB);
	/* A size asked for replaces the target but not the ceiling. */
	assert_int_equal(lat_memload_size(24 * GiB, 23 * GiB, 0, 64 * MiB, &m), 0);
	assert_int_equal(m.size, 64 * MiB);
	assert_int_equal(lat_memload_size(4 * GiB, 1 * GiB, 0, 3 * GiB, &m), 0);
	assert_int_equal(m.size, 1 * GiB - 256 * MiB);
	assert_int_equal(lat_memload_size(0, 1, 1, 0, &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_explicit),
		cmocka_unit_test(test_combinations),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_format_and_periods),
		cmocka_unit_test(test_memload_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
