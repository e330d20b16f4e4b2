/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of src/core/observe/limits.c over the cgroup fixture trees
 * (tests/fixtures/cgroup/NAME): where the cpu quota's usage is read from,
 * the counters of two edges and the view they make. The "apart" tree has
 * cpu and cpuacct mounted apart (cgroup v1, as on the test VM): a process
 * in a quota group whose cpuacct group is the root must get an unknown
 * usage (NaN), not the whole box's; one whose cpuacct group is at the
 * quota's path gets that group's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/observe/limits.h"
#include "core/base/sysview.h"
#include "lib/xalloc.h"

/* ROOT of fixture tree NAME (caller frees). */
static char *fixture_root(const char *name)
{
	const char *root = getenv("ENGPASS_FIXTURES");

	return xasprintf("%s/cgroup/%s", root && *root ? root : "tests/fixtures", name);
}

/* Discovers the limits of PID under fixture NAME (caller frees both). */
static struct limits *discover(const char *name, pid_t pid, char **rootp)
{
	struct limits *l = xmalloc(sizeof(*l));
	char *root = fixture_root(name);
	struct limits_config cfg = { .root = root, .pid = pid, .no_netlink = true };

	limits_discover(&cfg, l);
	*rootp = root;
	return l;
}

/* The view of one span whose edges read the same counters (a fixture does not move). */
static void span_view(const char *root, const struct limits *l, struct sysview *v)
{
	struct limits_config cfg = { .root = root, .no_netlink = true };
	struct limits_counters a, b;
	struct limits_span acc = { 0 };

	limits_counters_read(&cfg, l, &a);
	b = a;
	b.t_ns = a.t_ns + 1000000000;
	limits_span_add(&acc, &a, &b);
	sysview_init(v);
	limits_span_view(&acc, v);
}

static void test_quota_usage_same_path(void **state)
{
	char *root;
	struct limits *l = discover("apart", 100, &root);
	struct limits_counters c;
	struct limits_config cfg = { .root = root, .no_netlink = true };
	struct sysview v;

	(void)state;
	assert_int_equal(l->cpu_quota.state, LIMIT_SET);
	assert_float_equal(l->cpu_quota.value, 0.5, 1e-9);
	assert_string_equal(l->cpu_usage_source, "cpuacct.usage in /sys/fs/cgroup/cpuacct/q/job");
	limits_counters_read(&cfg, l, &c);
	assert_true(c.cpu_ok);
	assert_int_equal(c.cpu_usage_ns, 7000);
	assert_int_equal(c.cpu_periods, 20);
	span_view(root, l, &v);
	assert_float_equal(v.cg_cpu_usage_pct, 0, 1e-9);
	assert_float_equal(v.cg_cpu_throttled_pct, 0, 1e-9);
	free(l), free(root);
}

static void test_quota_usage_unknown(void **state)
{
	static const struct {
		pid_t pid;
		const char *why;
	} k[] = {
		/* cpuacct:/ -- the root counts every process of the box */
		{ 0, "unknown: the process's cpuacct group is not at or below /q/job" },
		/* cpuacct:/other, though cpuacct:/q/job exists */
		{ 300, "unknown: the process's cpuacct group is not at or below /q/job" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		char *root;
		struct limits *l = discover("apart", k[i].pid, &root);
		struct limits_counters c;
		struct limits_config cfg = { .root = root, .no_netlink = true };
		struct sysview v;

		assert_int_equal(l->cpu_quota.state, LIMIT_SET);
		assert_string_equal(l->cpu_usage_source, k[i].why);
		assert_string_equal(l->cpuacct_dir, "");
		limits_counters_read(&cfg, l, &c);
		assert_true(c.cpu_ok);
		assert_true(c.cpu_usage_ns == UINT64_MAX);
		assert_int_equal(c.cpu_periods, 20);
		span_view(root, l, &v);
		assert_true(isnan(v.cg_cpu_usage_pct));	/* unknown, not the root's 987 s */
		assert_float_equal(v.cg_cpu_throttled_pct, 0, 1e-9);
		free(l), free(root);
	}
}

/* cpu,cpuacct in one hierarchy (the v1 fixture): the quota's level is bench, its usage there. */
static void test_quota_usage_comounted(void **state)
{
	char *root;
	struct limits *l = discover("v1", 0, &root);

	(void)state;
	assert_int_equal(l->cpu_quota.state, LIMIT_SET);
	assert_string_equal(l->cpu_usage_source, "cpuacct.usage in /sys/fs/cgroup/cpu,cpuacct/bench");
	free(l), free(root);
}

/*
 * Issue 36: the v1 fixture's cgroup "bench" holds 1000 bytes now, and its
 * memory.max_usage_in_bytes (2000) is the mark since the cgroup was made.
 * A window that is not engpass's cgroup must not take that mark as its
 * peak: the peak is the usage the snapshots and edges saw.
 */
static void test_mem_peak_not_lifetime(void **state)
{
	char *root;
	struct limits *l = discover("v1", 0, &root);
	struct limits_config cfg = { .root = root, .no_netlink = true };
	struct limits_counters a, b;
	struct limits_span acc = { 0 };
	struct sysview v;

	(void)state;
	assert_int_equal(l->mem_max.state, LIMIT_SET);
	assert_int_equal(l->mem_peak_how, LIMITS_PEAK_SAMPLED);
	assert_non_null(strstr(l->mem_peak_method, "memory.usage_in_bytes at every snapshot"));
	span_view(root, l, &v);
	assert_float_equal(v.cg_mem_peak_bytes, 1000, 1e-9);	/* not the lifetime 2000 */

	/* A snapshot between the edges saw more: that is the span's peak. */
	limits_counters_read(&cfg, l, &a);
	b = a;
	b.t_ns = a.t_ns + 1000000000;
	b.mem_sampled = 1500;
	limits_span_add(&acc, &a, &b);
	sysview_init(&v);
	limits_span_view(&acc, &v);
	assert_float_equal(v.cg_mem_peak_bytes, 1500, 1e-9);
	free(l), free(root);
}

/* engpass's own cgroup (a sandbox): its mark is reset at each span's start, so it is the span's peak. */
static void test_mem_peak_own_cgroup(void **state)
{
	char *root = fixture_root("v1");
	char *own = xasprintf("%s/sys/fs/cgroup/memory/bench", root);
	struct limits_config cfg = { .root = root, .no_netlink = true, .own_mem_dir = own };
	struct limits *l = xmalloc(sizeof(*l));
	struct limits_counters c;
	struct sysview v;

	(void)state;
	limits_discover(&cfg, l);
	assert_int_equal(l->mem_peak_how, LIMITS_PEAK_RESET);
	assert_non_null(strstr(l->mem_peak_method, "reset (0 written) at each span's start"));
	/* (Read only here: limits_span_begin() would write the fixture.) */
	limits_counters_read(&cfg, l, &c);
	assert_true(c.mem_ok && c.mem_peak_reset);
	span_view(root, l, &v);
	assert_float_equal(v.cg_mem_peak_bytes, 2000, 1e-9);
	limits_release(l);
	free(l), free(own), free(root);
}

/* The device under test's negotiated link is discovered with the limits, under the same root. */
static void test_device_link(void **state)
{
	const char *fx = getenv("ENGPASS_FIXTURES");
	char root[] = "/tmp/engpass-limits.XXXXXX", sys[PATH_MAX], links[PATH_MAX];
	struct limits_config cfg = { 0 };
	struct limits *l = xcalloc(1, sizeof(*l));

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(links, sizeof(links), "%s/sysfs/links", fx ? fx : "tests/fixtures");
	if (links[0] != '/') {
		char cwd[PATH_MAX / 2];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		snprintf(links, sizeof(links), "%s/%s/sysfs/links", cwd, fx ? fx : "tests/fixtures");
	}
	assert_int_equal(symlink(links, sys), 0);
	cfg.root = root;
	cfg.no_netlink = true;
	cfg.dev_name = "sdb1";
	cfg.dev_major = 8;
	cfg.dev_minor = 17;
	limits_discover(&cfg, l);
	assert_true(l->dev_link_read);
	assert_string_equal(l->dev_link.disk, "sdb");
	assert_int_equal(l->dev_link.cause, DEVLINK_BELOW_BOTH);
	limits_release(l);
	/* No device under test: no link. */
	cfg.dev_name = NULL;
	limits_discover(&cfg, l);
	assert_false(l->dev_link_read);
	limits_release(l);
	assert_int_equal(unlink(sys), 0);
	assert_int_equal(rmdir(root), 0);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quota_usage_same_path),
		cmocka_unit_test(test_device_link),
		cmocka_unit_test(test_quota_usage_unknown),
		cmocka_unit_test(test_quota_usage_comounted),
		cmocka_unit_test(test_mem_peak_not_lifetime),
		cmocka_unit_test(test_mem_peak_own_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
