/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/affinity.c: pinning the calling thread and
 * finding it on the CPU it was pinned to, restoring the old set, refusing
 * impossible sets, the CPU counts, and CPU list formatting, which must
 * round-trip through units_cpulist_parse().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "lib/units.h"
#include "core/kernel/affinity.h"

/* Longest possible list for a cpu_set_t, as promised in affinity.h. */
#define LIST_LEN (4 * CPU_SETSIZE + 1)

static void test_pin_self_each_allowed_cpu(void **state)
{
	cpu_set_t old, one, now;
	int pinned = 0;

	(void)state;
	assert_int_equal(affinity_get_self(&old), 0);
	assert_true(CPU_COUNT(&old) >= 1);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		assert_int_equal(affinity_pin_self(&one), 0);
		/* the scheduler moves us at the latest when we give up the CPU */
		sched_yield();
		assert_int_equal(affinity_current_cpu(), cpu);
		assert_int_equal(affinity_get_self(&now), 0);
		assert_true(CPU_EQUAL(&now, &one));
		pinned++;
	}
	assert_true(pinned >= 1);
	assert_int_equal(affinity_pin_self(&old), 0);
	assert_int_equal(affinity_get_self(&now), 0);
	assert_true(CPU_EQUAL(&now, &old));
}

static void test_pin_first_cpu_via_pid(void **state)
{
	cpu_set_t old, one, now;
	int first = -1;

	(void)state;
	assert_int_equal(affinity_get_pid(0, &old), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; cpu++)
		if (CPU_ISSET(cpu, &old))
			first = cpu;
	assert_true(first >= 0);
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(affinity_pin_pid(gettid(), &one), 0);
	sched_yield();
	assert_int_equal(affinity_current_cpu(), first);
	assert_int_equal(affinity_get_pid(gettid(), &now), 0);
	assert_true(CPU_EQUAL(&now, &one));
	assert_int_equal(affinity_pin_pid(0, &old), 0);
}

static void test_pin_invalid(void **state)
{
	cpu_set_t set, old, now;

	(void)state;
	assert_int_equal(affinity_get_self(&old), 0);
	CPU_ZERO(&set);
	assert_int_equal(affinity_pin_self(&set), -EINVAL);
	if (affinity_configured_cpus() < CPU_SETSIZE) {
		CPU_SET(CPU_SETSIZE - 1, &set);
		assert_int_equal(affinity_pin_self(&set), -EINVAL);
	}
	/* a thread that does not exist (above any possible pid_max) */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(affinity_pin_pid(INT_MAX, &set), -ESRCH);
	assert_int_equal(affinity_get_pid(INT_MAX, &set), -ESRCH);
	/* failures leave the affinity alone */
	assert_int_equal(affinity_get_self(&now), 0);
	assert_true(CPU_EQUAL(&now, &old));
}

static void test_counts(void **state)
{
	int online = affinity_online_cpus();
	int conf = affinity_configured_cpus();
	int cpu = affinity_current_cpu();
	cpu_set_t set;

	(void)state;
	assert_true(online >= 1);
	assert_true(conf >= online);
	assert_true(cpu >= 0 && cpu < conf);
	/* our own set names only configured CPUs */
	assert_int_equal(affinity_get_self(&set), 0);
	assert_true(CPU_COUNT(&set) <= conf);
}

static void set_from_list(cpu_set_t *set, const int *cpus, size_t n)
{
	CPU_ZERO(set);
	for (size_t i = 0; i < n; i++)
		CPU_SET(cpus[i], set);
}

static void test_format_table(void **state)
{
	static const struct {
		int cpus[8];
		size_t n;
		const char *want;
	} cases[] = {
		{ { 0 }, 0, "" },
		{ { 0 }, 1, "0" },
		{ { 0, 1, 3 }, 3, "0-1,3" },
		{ { 0, 2 }, 2, "0,2" },
		{ { 1, 2, 3 }, 3, "1-3" },
		{ { 3, 1, 2 }, 3, "1-3" },
		{ { 5, 7, 8, 9, 11 }, 5, "5,7-9,11" },
		{ { 1023 }, 1, "1023" },
		{ { 0, 1023 }, 2, "0,1023" },
		{ { 1022, 1023 }, 2, "1022-1023" },
	};
	char buf[LIST_LEN];
	cpu_set_t set;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		set_from_list(&set, cases[i].cpus, cases[i].n);
		assert_int_equal(affinity_format(buf, sizeof(buf), &set), 0);
		assert_string_equal(buf, cases[i].want);
	}
}

static void check_round_trip(const cpu_set_t *set)
{
	char buf[LIST_LEN];
	cpu_set_t back;

	assert_int_equal(affinity_format(buf, sizeof(buf), set), 0);
	assert_true(strlen(buf) < sizeof(buf));
	assert_int_equal(units_cpulist_parse(buf, &back, 0), 0);
	assert_true(CPU_EQUAL(&back, set));
}

static void test_format_round_trip(void **state)
{
	cpu_set_t set;

	(void)state;
	/* all CPUs */
	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	check_round_trip(&set);
	/* every other CPU: the most separate elements */
	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE; i += 2)
		CPU_SET(i, &set);
	check_round_trip(&set);
	/* pairs with gaps: the longest string for its CPU count */
	CPU_ZERO(&set);
	for (int i = 0; i + 1 < CPU_SETSIZE; i += 3) {
		CPU_SET(i, &set);
		CPU_SET(i + 1, &set);
	}
	check_round_trip(&set);
	/* a deterministic scatter */
	CPU_ZERO(&set);
	for (unsigned x = 7, i = 0; i < 300; i++) {
		x = x * 1103515245u + 12345u;
		CPU_SET((x >> 8) % CPU_SETSIZE, &set);
	}
	check_round_trip(&set);
	/* and the current affinity */
	assert_int_equal(affinity_get_self(&set), 0);
	check_round_trip(&set);
}

static void test_format_too_short(void **state)
{
	static const int cpus[] = { 0, 1, 3 };
	char buf[8];
	cpu_set_t set;

	(void)state;
	set_from_list(&set, cpus, ARRAY_SIZE(cpus));
	assert_int_equal(affinity_format(buf, 4, &set), -ENOSPC);
	assert_string_equal(buf, "0-1");	/* a terminated prefix */
	assert_int_equal(affinity_format(buf, 5, &set), -ENOSPC);
	assert_int_equal(affinity_format(buf, 6, &set), 0);
	assert_string_equal(buf, "0-1,3");
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(affinity_format(buf, 0, &set), -ENOSPC);
	assert_int_equal(buf[0], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_self_each_allowed_cpu),
		cmocka_unit_test(test_pin_first_cpu_via_pid),
		cmocka_unit_test(test_pin_invalid),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_format_table),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_format_too_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
