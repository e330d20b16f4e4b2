/* SPDX-License-Identifier: MIT */
/*
 * Tests of the heat readers (src/core/kernel/thermal.c): discovery over the
 * fixture trees of tests/fixtures/thermal (an ARM router, an x86 box, a
 * broken tree), the value parsers with absurd and malformed text, and the
 * window's figures over a temp tree whose files change between
 * snapshots: first, last and highest temperature, a sensor reaching its
 * limit, throttle counters that move (or go backwards), a cooling device
 * engaged. The sampler's use of it is in test_sampler.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/thermal.h"
#include "lib/xalloc.h"

static char *fixture(const char *name)
{
	const char *root = getenv("ENGPASS_FIXTURES");

	return xasprintf("%s/thermal/%s", root && *root ? root : "tests/fixtures", name);
}

static void view_of(const char *name, struct sysview *v)
{
	char *root = fixture(name);
	struct thermal *t = thermal_open(root);

	sysview_init(v);
	thermal_sample(t);
	thermal_edge(t, true);
	thermal_sample(t);
	thermal_edge(t, false);
	thermal_view(t, v);
	thermal_free(t);
	free(root);
}

static const struct sysview_temp *find(const struct sysview *v, const char *name)
{
	for (int i = 0; i < SYSVIEW_TEMPS; i++)
		if (!strcmp(v->temps[i].name, name))
			return &v->temps[i];
	return NULL;
}

static void test_parse(void **state)
{
	double c;
	uint64_t n;

	(void)state;
	assert_int_equal(thermal_parse_millideg("45000\n", 6, &c), 0);
	assert_true(c == 45.0);
	assert_int_equal(thermal_parse_millideg(" -5500 ", 7, &c), 0);
	assert_true(c == -5.5);
	assert_int_equal(thermal_parse_millideg("-273000", 7, &c), -ERANGE);
	assert_int_equal(thermal_parse_millideg("255000", 6, &c), -ERANGE);
	assert_int_equal(thermal_parse_millideg("150001", 6, &c), -ERANGE);
	assert_int_equal(thermal_parse_millideg("2147483647", 10, &c), -ERANGE);
	assert_int_equal(thermal_parse_millideg("999999999999999999999", 21, &c), -EINVAL);
	assert_int_equal(thermal_parse_millideg("45 degrees", 10, &c), -EINVAL);
	assert_int_equal(thermal_parse_millideg("", 0, &c), -EINVAL);
	assert_int_equal(thermal_parse_millideg("\n", 1, &c), -EINVAL);
	/* LEN is the end: the digits after it are not read. */
	assert_int_equal(thermal_parse_millideg("4500099", 5, &c), 0);
	assert_true(c == 45.0);
	assert_int_equal(thermal_parse_count("12\n", 3, &n), 0);
	assert_int_equal(n, 12);
	assert_int_equal(thermal_parse_count("-3", 2, &n), -EINVAL);
	assert_int_equal(thermal_parse_count("x", 1, &n), -EINVAL);
	assert_true(thermal_cooling_is_cpu("cpufreq-cpu0"));
	assert_true(thermal_cooling_is_cpu("thermal-cpufreq-0"));
	assert_true(thermal_cooling_is_cpu("Processor"));
	assert_true(thermal_cooling_is_cpu("intel_powerclamp"));
	assert_false(thermal_cooling_is_cpu("Fan"));
	assert_false(thermal_cooling_is_cpu("pwm-fan"));
}

static void test_router(void **state)
{
	struct sysview v;
	const struct sysview_temp *t;

	(void)state;
	view_of("router", &v);
	/* The zone and the wifi chip; the zone's hwmon mirror (cpu_thermal) is left out. */
	assert_int_equal(v.temp_sensors, 2);
	assert_int_equal(v.temp_unreadable, 0);
	assert_string_equal(v.temps[0].name, "cpu-thermal");
	assert_non_null(t = find(&v, "cpu-thermal"));
	assert_true(fabs(t->max_c - 61.234) < 1e-9);
	assert_true(t->start_c == t->max_c && t->end_c == t->max_c);
	assert_true(t->trip_c == 85.0);
	assert_string_equal(t->trip, "passive");
	assert_non_null(find(&v, "mt7915_phy0 temp1"));
	assert_null(find(&v, "cpu_thermal temp1"));
	assert_string_equal(v.temp_hit.name, "");
	/* No x86 counters; the cpufreq cooling device was read and idle. */
	assert_int_equal(v.throttle_cpus, 0);
	assert_true(isnan(v.throttle_core_events));
	assert_int_equal(v.cooling_devices, 1);
	assert_string_equal(v.cooling_name, "cpufreq-cpu0");
	assert_true(v.cooling_state_max == 0 && v.cooling_state_limit == 4);
}

static void test_x86(void **state)
{
	struct sysview v;
	const struct sysview_temp *t;

	(void)state;
	view_of("x86", &v);
	/* x86_pkg_temp, acpitz, coretemp x2, nvme; the acpitz hwmon mirror is left out. */
	assert_int_equal(v.temp_sensors, 5);
	assert_string_equal(v.temps[0].name, "coretemp Package id 0");
	assert_true(v.temps[0].max_c == 56.0);
	/* max is below crit: max is the limit. */
	assert_true(v.temps[0].trip_c == 84.0);
	assert_string_equal(v.temps[0].trip, "max");
	assert_string_equal(v.temps[1].name, "x86_pkg_temp");
	/* Its passive trip at 0 is a placeholder, not a limit. */
	assert_true(isnan(v.temps[1].trip_c));
	assert_string_equal(v.temps[1].trip, "");
	assert_string_equal(v.temps[2].name, "coretemp Core 0");
	assert_string_equal(v.temps[3].name, "nvme Composite");
	/* The coolest (acpitz, 27.8) is counted but not listed. */
	assert_null(find(&v, "acpitz"));
	/* Two CPUs' counters read at both edges, none moved. */
	assert_int_equal(v.throttle_cpus, 2);
	assert_int_equal(v.throttle_cpus_moved, 0);
	assert_true(v.throttle_core_events == 0 && v.throttle_package_events == 0);
	/* Processor is a CPU cooling device, Fan is not. */
	assert_int_equal(v.cooling_devices, 1);
	assert_string_equal(v.cooling_name, "Processor");
	assert_non_null(t = find(&v, "nvme Composite"));
	assert_true(t->trip_c == 81.85);
}

static void test_broken(void **state)
{
	struct sysview v;
	const struct sysview_temp *t;

	(void)state;
	view_of("broken", &v);
	/*
	 * Readable and plausible: "sane" (45 C, its absurd trip dropped) and
	 * hwmon0's -5 C (no name file: the directory's name). Opened but never
	 * plausible: -273 C, temp as a directory, text, overflow, 255 C, the
	 * empty input. Not opened: the zone without temp, the label alone.
	 */
	assert_int_equal(v.temp_sensors, 2);
	assert_int_equal(v.temp_unreadable, 6);
	assert_non_null(t = find(&v, "sane"));
	assert_true(isnan(t->trip_c));
	assert_non_null(t = find(&v, "hwmon0 temp1"));
	assert_true(t->max_c == -5.0);
	assert_true(isnan(t->trip_c));
	assert_string_equal(v.temp_hit.name, "");
	/* Counters that are not numbers: the CPU is found, nothing is known. */
	assert_int_equal(v.throttle_cpus, 1);
	assert_true(isnan(v.throttle_core_events));
	assert_int_equal(v.cooling_devices, 1);
	assert_true(isnan(v.cooling_state_max));
}

static void test_missing(void **state)
{
	struct sysview v;

	(void)state;
	view_of("no-such-tree", &v);
	assert_int_equal(v.temp_sensors, 0);
	assert_int_equal(v.temp_unreadable, 0);
	assert_int_equal(v.throttle_cpus, 0);
	assert_int_equal(v.cooling_devices, 0);
	assert_string_equal(v.temps[0].name, "");
	assert_true(isnan(v.throttle_core_events) && isnan(v.cooling_state_max));
}

/* ------------------------------------------------------------------ */
/* A tree whose values change between snapshots */

struct tree {
	char root[64];
};

/* Writes TEXT to ROOT/REL in place (same inode, as sysfs values change), making directories. */
static void put(const struct tree *tr, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", tr->root, rel);
	int fd;

	for (char *p = path + strlen(tr->root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		(void)mkdir(path, 0755);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	free(path);
}

static int tree_setup(void **state)
{
	struct tree *tr = xcalloc(1, sizeof(*tr));

	snprintf(tr->root, sizeof(tr->root), "/tmp/engpass-thermal-XXXXXX");
	if (!mkdtemp(tr->root))
		return -1;
	put(tr, "class/thermal/thermal_zone0/type", "cpu-thermal\n");
	put(tr, "class/thermal/thermal_zone0/temp", "50000\n");
	put(tr, "class/thermal/cooling_device0/type", "thermal-cpufreq-0\n");
	put(tr, "class/thermal/cooling_device0/cur_state", "0\n");
	put(tr, "class/thermal/cooling_device0/max_state", "4\n");
	put(tr, "class/hwmon/hwmon0/name", "soc\n");
	put(tr, "class/hwmon/hwmon0/temp1_input", "60000\n");
	put(tr, "class/hwmon/hwmon0/temp1_max", "65000\n");
	put(tr, "devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "3\n");
	put(tr, "devices/system/cpu/cpu0/thermal_throttle/package_throttle_count", "10\n");
	put(tr, "devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "0\n");
	*state = tr;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *tr = *state;
	char *cmd = xasprintf("rm -rf '%s'", tr->root);

	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", tr->root);
	free(cmd);
	free(tr);
	return 0;
}

static void test_window(void **state)
{
	struct tree *tr = *state;
	struct thermal *t = thermal_open(tr->root);
	const struct sysview_temp *z;
	struct sysview v;

	/* Span 1: the zone warms 50 -> 70 -> 60, the counters move, the cooling device engages. */
	thermal_sample(t);
	thermal_edge(t, true);
	put(tr, "class/thermal/thermal_zone0/temp", "70000\n");
	put(tr, "class/thermal/cooling_device0/cur_state", "2\n");
	thermal_sample(t);
	put(tr, "class/thermal/thermal_zone0/temp", "60000\n");
	put(tr, "class/thermal/cooling_device0/cur_state", "0\n");
	put(tr, "devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "5\n");
	put(tr, "devices/system/cpu/cpu0/thermal_throttle/package_throttle_count", "11\n");
	thermal_sample(t);
	thermal_edge(t, false);
	/* Between spans the counter moves: not in the window. Span 2 it goes backwards: adds nothing. */
	put(tr, "devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "9\n");
	thermal_edge(t, true);
	put(tr, "devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "1\n");
	/* A reading that fails is skipped, never a zero. */
	put(tr, "class/hwmon/hwmon0/temp1_input", "garbage\n");
	thermal_sample(t);
	thermal_edge(t, false);

	sysview_init(&v);
	thermal_view(t, &v);
	thermal_free(t);
	assert_int_equal(v.temp_sensors, 2);
	assert_non_null(z = find(&v, "cpu-thermal"));
	assert_true(z->start_c == 50 && z->max_c == 70 && z->end_c == 60);
	assert_string_equal(v.temps[0].name, "cpu-thermal");
	assert_non_null(z = find(&v, "soc temp1"));
	assert_true(z->start_c == 60 && z->end_c == 60 && z->max_c == 60);
	assert_string_equal(v.temp_hit.name, "");
	assert_int_equal(v.throttle_cpus, 2);
	assert_int_equal(v.throttle_cpus_moved, 1);
	assert_true(v.throttle_core_events == 2);
	assert_true(v.throttle_package_events == 1);
	assert_string_equal(v.cooling_name, "thermal-cpufreq-0");
	assert_true(v.cooling_state_max == 2 && v.cooling_state_limit == 4);
}

static void test_trip_reached(void **state)
{
	struct tree *tr = *state;
	struct thermal *t = thermal_open(tr->root);
	struct sysview v;

	thermal_sample(t);
	put(tr, "class/hwmon/hwmon0/temp1_input", "66000\n");
	thermal_sample(t);
	sysview_init(&v);
	thermal_view(t, &v);
	thermal_free(t);
	assert_string_equal(v.temp_hit.name, "soc temp1");
	assert_true(v.temp_hit.max_c == 66 && v.temp_hit.trip_c == 65);
	assert_string_equal(v.temp_hit.trip, "max");
	/* No edges were read: the counters are unknown, not zero. */
	assert_true(isnan(v.throttle_core_events));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_router),
		cmocka_unit_test(test_x86),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_missing),
		cmocka_unit_test_setup_teardown(test_window, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_trip_reached, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
