/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the cgroup locator, limits and counters (src/core/kernel/cgroup.c)
 * over the fixture trees of tests/fixtures/cgroup/NAME (each a ROOT with
 * proc/{self,PID}/{cgroup,mountinfo} and the cgroup mounts): v1, v2, hybrid
 * (v1 controllers beside an empty cgroup2), apart (cpu and cpuacct mounted
 * apart: processes in a quota group of one and in the same path, the root
 * or another group of the other), netns (inside `ip netns exec`: the
 * hierarchies found through an ancestor's /proc/N/root), nested (a container's view of
 * /docker/abc), malformed and missing; the pure parsers on hand-made text;
 * and one look at this machine's own cgroups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/cgroup.h"
#include "lib/xalloc.h"

/* ROOT of fixture tree NAME (caller frees). */
static char *fixture_root(const char *name)
{
	const char *root = getenv("ENGPASS_FIXTURES");

	return xasprintf("%s/cgroup/%s", root && *root ? root : "tests/fixtures", name);
}

/* Locates the fixture NAME into a heap loc (caller frees). */
static struct cgroup_loc *locate(const char *name, char **rootp)
{
	struct cgroup_loc *loc = xmalloc(sizeof(*loc));
	char *root = fixture_root(name);

	assert_int_equal(cgroup_locate(root, 0, loc), 0);
	*rootp = root;
	return loc;
}

/* PATH is ROOT followed by REL. */
static void assert_under(const char *path, const char *root, const char *rel)
{
	size_t n = strlen(root);

	if (strncmp(path, root, n) || strcmp(path + n, rel))
		fail_msg("want %s%s, got %s", root, rel, path);
}

static struct cg_value *val(void)
{
	return xmalloc(sizeof(struct cg_value));
}

static void assert_set(const struct cg_value *v, double want)
{
	if (v->state != CG_SET)
		fail_msg("want CG_SET %g, got state %d (why '%s', source '%s')", want, v->state, v->why, v->source);
	assert_float_equal(v->value, want, want * 1e-9);
}

static void assert_state(const struct cg_value *v, enum cg_state want)
{
	if (v->state != want)
		fail_msg("want state %d, got %d %g (why '%s', source '%s')", want, v->state, v->value, v->why,
			 v->source);
}

static void test_v1(void **state)
{
	char *root, list[64];
	struct cgroup_loc *loc = locate("v1", &root);
	struct cg_value *a = val(), *b = val(), *c = val(), *d = val();
	struct cg_cpu_stat cs;
	struct cg_io_stat is;
	struct cg_mem_stat ms;

	(void)state;
	for (int i = 0; i < CG_NCTRL; i++)
		assert_int_equal(loc->version[i], 1);
	assert_under(loc->dir[CG_CPU], root, "/sys/fs/cgroup/cpu,cpuacct/bench/job");
	assert_under(loc->top[CG_CPU], root, "/sys/fs/cgroup/cpu,cpuacct");
	assert_under(loc->dir[CG_CPUACCT], root, "/sys/fs/cgroup/cpu,cpuacct/bench/job");
	assert_under(loc->dir[CG_MEMORY], root, "/sys/fs/cgroup/memory/bench");
	assert_under(loc->dir[CG_IO], root, "/sys/fs/cgroup/blkio/bench");
	assert_string_equal(cgroup_ctrl_name(CG_IO, 1), "blkio");
	assert_string_equal(cgroup_ctrl_name(CG_IO, 2), "io");

	cgroup_cpu_quota(loc, a);
	assert_set(a, 0.3);
	assert_under(a->dir, root, "/sys/fs/cgroup/cpu,cpuacct/bench");
	assert_string_equal(a->source,
			    "cpu.cfs_quota_us 30000 / cpu.cfs_period_us 100000 in /sys/fs/cgroup/cpu,cpuacct/bench");

	cgroup_cpuset(loc, a, list, sizeof(list));
	assert_set(a, 1);
	assert_string_equal(list, "0");
	assert_string_equal(a->source, "cpuset.effective_cpus 0 in /sys/fs/cgroup/cpuset/bench");

	cgroup_memory(loc, a, b, c);
	assert_set(a, 268435456);
	assert_state(b, CG_NONE);
	assert_set(c, 268435456);
	assert_string_equal(c->source, "memory.memsw.limit_in_bytes 536870912 - memory.limit_in_bytes 268435456"
				       " in /sys/fs/cgroup/memory/bench");

	cgroup_io(loc, 7, 0, a, b, c, d);
	assert_set(a, 20971520);
	assert_string_equal(a->source, "blkio.throttle.read_bps_device 7:0 20971520 in /sys/fs/cgroup/blkio/bench");
	assert_state(b, CG_NONE);
	assert_state(c, CG_NONE);
	assert_state(d, CG_NONE);
	assert_string_equal(b->source, "blkio.throttle.write_bps_device: no 7:0 up to /sys/fs/cgroup/blkio");

	assert_int_equal(cgroup_cpu_stat(loc->dir[CG_CPU], 1, loc->dir[CG_CPUACCT], &cs), 0);
	assert_int_equal(cs.usage_ns, 123456789);
	assert_int_equal(cs.periods, 10);
	assert_int_equal(cs.throttled, 3);
	assert_int_equal(cs.throttled_ns, 5000000);
	assert_int_equal(cgroup_cpu_stat(loc->dir[CG_CPU], 1, NULL, &cs), 0);
	assert_true(cs.usage_ns == UINT64_MAX);
	/* cpu,cpuacct in one hierarchy: the quota's group is its own cpuacct group. */
	{
		char dir[PATH_MAX];

		assert_int_equal(cgroup_same_path(loc, CG_CPU, loc->dir[CG_CPU], CG_CPUACCT, dir, sizeof(dir)), 0);
		assert_string_equal(dir, loc->dir[CG_CPU]);
	}

	assert_int_equal(cgroup_io_stat(loc->dir[CG_IO], 1, 7, 0, &is), 0);
	assert_int_equal(is.rbytes, 4096);
	assert_int_equal(is.wbytes, 8192);
	assert_int_equal(is.rios, 1);
	assert_int_equal(is.wios, 2);
	assert_int_equal(cgroup_io_stat(loc->dir[CG_IO], 1, 8, 0, &is), 0);
	assert_int_equal(is.rbytes + is.wbytes + is.rios + is.wios, 0);

	assert_int_equal(cgroup_mem_stat(loc->dir[CG_MEMORY], 1, &ms), 0);
	assert_int_equal(ms.usage, 1000);
	assert_int_equal(ms.peak, 2000);
	assert_int_equal(ms.hits, 4);
	assert_int_equal(ms.high, 0);
	assert_int_equal(ms.oom, 1);
	free(a), free(b), free(c), free(d), free(loc), free(root);
}

static void test_v2(void **state)
{
	char *root, list[64];
	struct cgroup_loc *loc = locate("v2", &root);
	struct cg_value *a = val(), *b = val(), *c = val(), *d = val();
	struct cg_cpu_stat cs;
	struct cg_io_stat is;
	struct cg_mem_stat ms;

	(void)state;
	for (int i = 0; i < CG_NCTRL; i++) {
		assert_int_equal(loc->version[i], 2);
		assert_under(loc->dir[i], root, "/sys/fs/cgroup/a/b");
		assert_under(loc->top[i], root, "/sys/fs/cgroup");
	}
	cgroup_cpu_quota(loc, a);
	assert_set(a, 0.3);
	assert_under(a->dir, root, "/sys/fs/cgroup/a");
	assert_string_equal(a->source, "cpu.max 30000 100000 in /sys/fs/cgroup/a");

	cgroup_cpuset(loc, a, list, sizeof(list));
	assert_set(a, 2);
	assert_string_equal(list, "2-3");

	cgroup_memory(loc, a, b, c);
	assert_set(a, 536870912);
	assert_set(b, 402653184);
	assert_set(c, 0);
	assert_string_equal(c->source, "memory.swap.max 0 in /sys/fs/cgroup/a/b");

	cgroup_io(loc, 8, 0, a, b, c, d);
	assert_set(a, 1048576);
	assert_state(b, CG_NONE);
	assert_state(c, CG_NONE);
	assert_set(d, 500);
	assert_string_equal(d->source, "io.max 8:0 wiops=500 in /sys/fs/cgroup/a/b");
	cgroup_io(loc, 8, 16, a, b, c, d);
	assert_state(a, CG_NONE);
	assert_string_equal(a->source, "io.max: no 8:16 limit up to /sys/fs/cgroup");

	assert_int_equal(cgroup_cpu_stat(loc->dir[CG_CPU], 2, NULL, &cs), 0);
	assert_int_equal(cs.usage_ns, 1500000);
	assert_int_equal(cs.periods, 7);
	assert_int_equal(cs.throttled, 2);
	assert_int_equal(cs.throttled_ns, 300000);
	/* The root cgroup prints no throttling: 0. */
	assert_int_equal(cgroup_cpu_stat(loc->top[CG_CPU], 2, NULL, &cs), 0);
	assert_int_equal(cs.usage_ns, 99000);
	assert_int_equal(cs.periods, 0);

	assert_int_equal(cgroup_io_stat(loc->dir[CG_IO], 2, 8, 0, &is), 0);
	assert_int_equal(is.rbytes, 4096);
	assert_int_equal(is.rios, 1);
	assert_int_equal(is.wbytes, 0);

	assert_int_equal(cgroup_mem_stat(loc->dir[CG_MEMORY], 2, &ms), 0);
	assert_int_equal(ms.usage, 8192);
	assert_true(ms.peak == UINT64_MAX);
	assert_int_equal(ms.hits, 6);
	assert_int_equal(ms.high, 5);
	assert_int_equal(ms.oom, 1);
	assert_int_equal(cgroup_mem_stat(loc->dir[CG_MEMORY], 3, &ms), -EINVAL);
	free(a), free(b), free(c), free(d), free(loc), free(root);
}

/*
 * PID 77 of the v2 tree is in a/b/c, where b enabled no controller: the
 * limit files are missing there by design, and the ancestors' hold.
 */
static void test_v2_not_enabled(void **state)
{
	struct cgroup_loc *loc = xmalloc(sizeof(*loc));
	char *root = fixture_root("v2");
	struct cg_value *a = val(), *b = val(), *c = val();
	struct cg_cpu_stat cs;

	(void)state;
	assert_int_equal(cgroup_locate(root, 77, loc), 0);
	assert_under(loc->dir[CG_CPU], root, "/sys/fs/cgroup/a/b/c");
	cgroup_cpu_quota(loc, a);
	assert_set(a, 0.3);
	assert_under(a->dir, root, "/sys/fs/cgroup/a");
	cgroup_memory(loc, a, b, c);
	assert_set(a, 536870912);
	assert_set(b, 402653184);
	assert_set(c, 0);
	assert_int_equal(cgroup_cpu_stat(loc->dir[CG_CPUACCT], 2, NULL, &cs), 0);
	assert_int_equal(cs.usage_ns, 10000);
	assert_int_equal(cs.throttled, 0);
	free(a), free(b), free(c), free(loc), free(root);
}

static void test_hybrid(void **state)
{
	char *root;
	struct cgroup_loc *loc = locate("hybrid", &root);
	struct cg_value *a = val(), *b = val(), *c = val(), *d = val();
	struct cg_cpu_stat cs;

	(void)state;
	assert_int_equal(loc->version[CG_CPU], 1);
	assert_int_equal(loc->version[CG_CPUACCT], 1);
	assert_int_equal(loc->version[CG_MEMORY], 1);
	assert_under(loc->dir[CG_CPU], root, "/sys/fs/cgroup/cpu");
	assert_under(loc->dir[CG_CPUACCT], root, "/sys/fs/cgroup/cpuacct");
	assert_under(loc->dir[CG_MEMORY], root, "/sys/fs/cgroup/memory/process_api/abc");
	assert_int_equal(loc->version[CG_CPUSET], 0);
	assert_string_equal(loc->why[CG_CPUSET], "cpuset controller not mounted");
	assert_int_equal(loc->version[CG_IO], 0);
	assert_string_equal(loc->why[CG_IO], "io controller not mounted");

	cgroup_cpu_quota(loc, a);
	assert_state(a, CG_NONE);
	assert_string_equal(a->source, "cpu.cfs_quota_us -1 up to /sys/fs/cgroup/cpu");

	cgroup_memory(loc, a, b, c);
	assert_state(a, CG_NONE);
	assert_state(b, CG_NONE);
	assert_state(c, CG_UNKNOWN);
	assert_string_equal(c->why, "no memsw accounting");

	cgroup_cpuset(loc, a, NULL, 0);
	assert_state(a, CG_UNKNOWN);
	assert_string_equal(a->why, "cpuset controller not mounted");
	cgroup_io(loc, 8, 0, a, b, c, d);
	assert_state(d, CG_UNKNOWN);
	assert_string_equal(d->why, "io controller not mounted");

	assert_int_equal(cgroup_cpu_stat(loc->dir[CG_CPU], 1, loc->dir[CG_CPUACCT], &cs), 0);
	assert_int_equal(cs.usage_ns, 42);
	free(a), free(b), free(c), free(d), free(loc), free(root);
}

/*
 * cpu and cpuacct mounted apart (this VM's layout): the quota's usage is
 * the cpuacct group at the quota's own path, never the process's cpuacct
 * group at another level (here the root, which counts the whole box).
 */
static void test_apart(void **state)
{
	char *root = fixture_root("apart"), dir[PATH_MAX];
	struct cgroup_loc *loc = xmalloc(sizeof(*loc));
	struct cg_value *a = val();
	struct cg_cpu_stat cs;

	(void)state;
	/* 100: cpu:/q/job and cpuacct:/q/job. */
	assert_int_equal(cgroup_locate(root, 100, loc), 0);
	cgroup_cpu_quota(loc, a);
	assert_set(a, 0.5);
	assert_under(a->dir, root, "/sys/fs/cgroup/cpu/q/job");
	assert_int_equal(cgroup_same_path(loc, CG_CPU, a->dir, CG_CPUACCT, dir, sizeof(dir)), 0);
	assert_under(dir, root, "/sys/fs/cgroup/cpuacct/q/job");
	assert_int_equal(cgroup_cpu_stat(a->dir, 1, dir, &cs), 0);
	assert_int_equal(cs.usage_ns, 7000);
	assert_int_equal(cs.periods, 20);
	/* The root cgroup of another hierarchy counts the whole box: refused. */
	assert_int_equal(cgroup_same_path(loc, CG_CPU, loc->top[CG_CPU], CG_CPUACCT, dir, sizeof(dir)), -EXDEV);
	assert_string_equal(dir, "");

	/* self: cpu:/q/job but cpuacct:/ (moved into the cpu group only). */
	assert_int_equal(cgroup_locate(root, 0, loc), 0);
	cgroup_cpu_quota(loc, a);
	assert_set(a, 0.5);
	assert_under(loc->dir[CG_CPUACCT], root, "/sys/fs/cgroup/cpuacct");
	assert_int_equal(cgroup_same_path(loc, CG_CPU, a->dir, CG_CPUACCT, dir, sizeof(dir)), -EXDEV);
	/* Without a cpuacct group the usage is unknown; the throttling is still read. */
	assert_int_equal(cgroup_cpu_stat(a->dir, 1, NULL, &cs), 0);
	assert_true(cs.usage_ns == UINT64_MAX);
	assert_int_equal(cs.periods, 20);

	/* 300: cpuacct:/other, though /q/job exists in cpuacct: not the process's group. */
	assert_int_equal(cgroup_locate(root, 300, loc), 0);
	cgroup_cpu_quota(loc, a);
	assert_int_equal(cgroup_same_path(loc, CG_CPU, a->dir, CG_CPUACCT, dir, sizeof(dir)), -EXDEV);
	/* An unreadable cpuacct.usage: usage unknown, the call still gives the throttling. */
	assert_int_equal(cgroup_cpu_stat(a->dir, 1, a->dir, &cs), 0);
	assert_true(cs.usage_ns == UINT64_MAX);
	assert_int_equal(cs.periods, 20);
	/* Another controller, or a directory outside the mount. */
	assert_int_equal(cgroup_same_path(loc, CG_CPU, a->dir, CG_MEMORY, dir, sizeof(dir)), -ENODEV);
	assert_int_equal(cgroup_same_path(loc, CG_CPU, "/elsewhere", CG_CPUACCT, dir, sizeof(dir)), -EINVAL);
	free(a), free(loc), free(root);
}

/*
 * Inside `ip netns exec` (the netns fixture): the process's mount
 * namespace has a fresh /sys and no cgroup mounts; its parent (timeout)
 * shares that namespace, its grandparent 77 (the shell that ran ip) does
 * not. The hierarchies are found in 77's mountinfo and reached through
 * /proc/77/root, and the sources say so.
 */
static void test_netns(void **state)
{
	char *root, dir[PATH_MAX];
	struct cgroup_loc *loc = locate("netns", &root);
	struct cg_value *a = val(), *b = val(), *c = val();
	struct cg_cpu_stat cs;

	(void)state;
	assert_int_equal(loc->version[CG_CPU], 1);
	assert_under(loc->dir[CG_CPU], root, "/proc/77/root/sys/fs/cgroup/cpu/q");
	assert_under(loc->top[CG_CPU], root, "/proc/77/root/sys/fs/cgroup/cpu");
	assert_under(loc->dir[CG_CPUACCT], root, "/proc/77/root/sys/fs/cgroup/cpuacct/q");
	cgroup_cpu_quota(loc, a);
	assert_set(a, 0.3);
	assert_string_equal(a->source,
			    "cpu.cfs_quota_us 30000 / cpu.cfs_period_us 100000 in /proc/77/root/sys/fs/cgroup/cpu/q");
	assert_int_equal(cgroup_same_path(loc, CG_CPU, a->dir, CG_CPUACCT, dir, sizeof(dir)), 0);
	assert_int_equal(cgroup_cpu_stat(a->dir, 1, dir, &cs), 0);
	assert_int_equal(cs.usage_ns, 600000000);
	assert_int_equal(cs.throttled, 9);
	/* Read, and absent: none, not unknown. */
	cgroup_memory(loc, a, b, c);
	assert_state(a, CG_NONE);
	/* A controller no namespace mounts: unknown, saying where it looked. */
	assert_int_equal(loc->version[CG_CPUSET], 0);
	free(a), free(b), free(c), free(loc), free(root);
}

static void test_nested(void **state)
{
	char *root;
	struct cgroup_loc *loc = locate("nested", &root);
	struct cg_value *a = val(), *b = val(), *c = val(), *d = val();

	(void)state;
	assert_int_equal(loc->version[CG_MEMORY], 1);
	assert_under(loc->dir[CG_MEMORY], root, "/sys/fs/cgroup/memory/sub");
	assert_under(loc->top[CG_MEMORY], root, "/sys/fs/cgroup/memory");
	assert_int_equal(loc->version[CG_CPU], 0);
	assert_string_equal(loc->why[CG_CPU], "outside this mount namespace's view");
	assert_int_equal(loc->version[CG_CPUSET], 0);
	assert_string_equal(loc->why[CG_CPUSET], "outside this mount namespace's view");
	assert_int_equal(loc->version[CG_IO], 2);
	assert_under(loc->dir[CG_IO], root, "/sys/fs/cgroup/unified/sub");

	cgroup_cpu_quota(loc, a);
	assert_state(a, CG_UNKNOWN);
	assert_string_equal(a->why, "outside this mount namespace's view");

	cgroup_memory(loc, a, b, c);
	assert_set(a, 1073741824);
	assert_under(a->dir, root, "/sys/fs/cgroup/memory");
	assert_string_equal(a->source, "memory.limit_in_bytes 1073741824 in /sys/fs/cgroup/memory");
	assert_set(c, 1073741824);

	cgroup_io(loc, 254, 0, a, b, c, d);
	assert_state(a, CG_NONE);
	assert_set(b, 2097152);
	free(a), free(b), free(c), free(d), free(loc), free(root);
}

static void test_malformed(void **state)
{
	char *root, list[16];
	struct cgroup_loc *loc = locate("malformed", &root);
	struct cg_value *a = val(), *b = val(), *c = val(), *d = val();

	(void)state;
	assert_int_equal(loc->version[CG_CPU], 2);
	cgroup_cpu_quota(loc, a);
	assert_state(a, CG_UNKNOWN);
	assert_string_equal(a->why, "malformed cpu.max");
	assert_string_equal(a->source, "cpu.max in /sys/fs/cgroup/m");

	cgroup_io(loc, 8, 0, a, b, c, d);
	assert_state(a, CG_UNKNOWN);
	assert_state(d, CG_UNKNOWN);
	assert_string_equal(a->why, "malformed io.max");

	cgroup_memory(loc, a, b, c);
	assert_state(a, CG_UNKNOWN);
	assert_string_equal(a->why, "malformed memory.max");
	assert_state(b, CG_NONE);
	assert_state(c, CG_UNKNOWN);
	assert_string_equal(c->why, "memory.swap.max: is a directory");

	cgroup_cpuset(loc, a, list, sizeof(list));
	assert_state(a, CG_UNKNOWN);
	assert_string_equal(a->why, "malformed cpuset.cpus.effective");
	free(a), free(b), free(c), free(d), free(loc), free(root);
}

static void test_missing(void **state)
{
	char *root;
	struct cgroup_loc *loc = locate("missing", &root);
	struct cg_value *a = val();

	(void)state;
	for (int i = 0; i < CG_NCTRL; i++)
		assert_int_equal(loc->version[i], 0);
	/* Nor in another mount namespace: the fixture has no /proc/1/root. */
	assert_string_equal(loc->why[CG_CPU], "cpu controller not mounted here; /proc/1/root: missing");
	assert_string_equal(loc->why[CG_MEMORY], "memory controller not mounted here; /proc/1/root: missing");
	assert_string_equal(loc->why[CG_IO], "io controller not mounted here; /proc/1/root: missing");
	cgroup_cpu_quota(loc, a);
	assert_state(a, CG_UNKNOWN);
	assert_string_equal(a->why, "cpu controller not mounted here; /proc/1/root: missing");
	free(loc);
	free(root);

	/* No /proc/PID/cgroup at all. */
	loc = xmalloc(sizeof(*loc));
	root = fixture_root("missing");
	assert_int_equal(cgroup_locate(root, 4242, loc), -ENOENT);
	for (int i = 0; i < CG_NCTRL; i++)
		assert_int_equal(loc->version[i], 0);
	assert_string_equal(loc->why[CG_MEMORY], "/proc/4242/cgroup: missing");
	free(a), free(loc), free(root);
}

/* This machine: cpu and memory located, their directories exist. */
static void test_real(void **state)
{
	struct cgroup_loc *loc = xmalloc(sizeof(*loc));
	struct cg_value *a = val(), *b = val(), *c = val();
	struct stat st;
	int r;

	(void)state;
	if (access("/proc/self/cgroup", R_OK)) {
		printf("# skip: /proc/self/cgroup unreadable here\n");
		free(loc), free(a), free(b), free(c);
		skip();
	}
	r = cgroup_locate("", 0, loc);
	assert_int_equal(r, 0);
	for (int i = 0; i < CG_NCTRL; i++)
		printf("# %s: v%d %s %s\n", cgroup_ctrl_name(i, loc->version[i]), loc->version[i], loc->dir[i],
		       loc->why[i]);
	assert_true(loc->version[CG_CPU] == 1 || loc->version[CG_CPU] == 2);
	assert_true(loc->version[CG_MEMORY] == 1 || loc->version[CG_MEMORY] == 2);
	assert_int_equal(stat(loc->dir[CG_CPU], &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(stat(loc->dir[CG_MEMORY], &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	cgroup_cpu_quota(loc, a);
	printf("# cpu quota: state %d %g %s%s\n", a->state, a->value, a->source, a->why);
	assert_true(a->state != CG_UNKNOWN);
	cgroup_memory(loc, a, b, c);
	printf("# memory max: state %d %g %s%s\n", a->state, a->value, a->source, a->why);
	assert_true(a->state != CG_UNKNOWN);
	free(loc), free(a), free(b), free(c);
}

/* ------------------------------------------------------------------ */
/* Pure parsers */

static int count_line(void *arg, int id, const char *ctrls, const char *path)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "[%d|%s|%s]", id, ctrls, path);
	return 0;
}

static int stop_at_two(void *arg, int id, const char *ctrls, const char *path)
{
	(void)arg, (void)ctrls, (void)path;
	return id == 2 ? 7 : 0;
}

static void test_parse_proc(void **state)
{
	char out[256] = "";

	(void)state;
	assert_int_equal(cgroup_parse_proc("2:cpu,cpuacct:/a:b\n1:name=systemd:/\n0::/x y", count_line, out), 0);
	assert_string_equal(out, "[2|cpu,cpuacct|/a:b][1|name=systemd|/][0||/x y]");
	assert_int_equal(cgroup_parse_proc("3:cpu:/\n2:memory:/\n", stop_at_two, NULL), 7);
	out[0] = '\0';
	assert_int_equal(cgroup_parse_proc("", count_line, out), -EINVAL);
	assert_int_equal(cgroup_parse_proc("0::/\n\n", count_line, out), -EINVAL);
	assert_int_equal(cgroup_parse_proc("x::/\n", count_line, out), -EINVAL);
	assert_int_equal(cgroup_parse_proc("-1::/\n", count_line, out), -EINVAL);
	assert_int_equal(cgroup_parse_proc("0:cpu\n", count_line, out), -EINVAL);
	assert_int_equal(cgroup_parse_proc("0::relative\n", count_line, out), -EINVAL);
	assert_int_equal(cgroup_parse_proc("99999999999::/\n", count_line, out), -EINVAL);
}

static void test_parse_cpu_max(void **state)
{
	int64_t q, p;

	(void)state;
	assert_int_equal(cgroup_parse_cpu_max("30000 100000\n", &q, &p), 0);
	assert_int_equal(q, 30000);
	assert_int_equal(p, 100000);
	assert_int_equal(cgroup_parse_cpu_max("max 100000", &q, &p), 0);
	assert_int_equal(q, -1);
	const char *bad[] = { "banana\n", "", "\n", "max\n", "30000\n", "30000 100000 5\n", "-1 100000\n",
			      "30000 0\n", "0 100000\n", "30000  100000\n", " 30000 100000\n", "30000 100000\n\n",
			      "30000 18446744073709551616\n", "30000x 100000\n", "30000 100000 \n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cgroup_parse_cpu_max(bad[i], &q, &p) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
}

static void test_parse_values(void **state)
{
	uint64_t v, rd, wr, io[4];
	struct cg_io_stat is;

	(void)state;
	assert_int_equal(cgroup_parse_u64_or_max("max\n", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(cgroup_parse_u64_or_max("18446744073709551614", &v), 0);
	assert_true(v == UINT64_MAX - 1);
	assert_int_equal(cgroup_parse_u64_or_max("18446744073709551616\n", &v), -EINVAL);
	assert_int_equal(cgroup_parse_u64_or_max("18446744073709551615\n", &v), -EINVAL);
	assert_int_equal(cgroup_parse_u64_or_max("-5\n", &v), -EINVAL);
	assert_int_equal(cgroup_parse_u64_or_max("", &v), -EINVAL);
	assert_int_equal(cgroup_parse_u64_or_max("5 \n", &v), -EINVAL);
	assert_int_equal(cgroup_parse_u64_or_max("maxi\n", &v), -EINVAL);

	assert_int_equal(cgroup_parse_dev_value("8:0 100\n7:0 20971520", 7, 0, &v), 0);
	assert_int_equal(v, 20971520);
	assert_int_equal(cgroup_parse_dev_value("8:0 100\n", 7, 0, &v), -ENOENT);
	assert_int_equal(cgroup_parse_dev_value("", 7, 0, &v), -ENOENT);
	assert_int_equal(cgroup_parse_dev_value("8:0 100\ngarbage\n", 8, 0, &v), -EINVAL);
	assert_int_equal(cgroup_parse_dev_value("8:0 -1\n", 8, 0, &v), -EINVAL);
	assert_int_equal(cgroup_parse_dev_value("8 100\n", 8, 0, &v), -EINVAL);

	assert_int_equal(cgroup_parse_io_max("8:0 rbps=1 wbps=max riops=3 wiops=max\n", 8, 0, io), 0);
	assert_true(io[0] == 1 && io[1] == UINT64_MAX && io[2] == 3 && io[3] == UINT64_MAX);
	assert_int_equal(cgroup_parse_io_max("8:0 rbps=1 wbps=max riops=3 wiops=max\n", 8, 1, io), -ENOENT);
	assert_int_equal(cgroup_parse_io_max("8:0 rbps=10\n", 8, 0, io), -EINVAL);
	assert_int_equal(cgroup_parse_io_max("8:0 rbps=1 wbps=max riops=3 wiops=\n", 8, 0, io), -EINVAL);
	assert_int_equal(cgroup_parse_io_max("8:0 rbps=1 rbps=1 wbps=max riops=3 wiops=max\n", 8, 0, io), -EINVAL);

	assert_int_equal(cgroup_parse_keyed("nr_periods 3\nnr_throttled 2", "nr_throttled", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(cgroup_parse_keyed("nr_periods 3\n", "nr_throttled", &v), -ENOENT);
	assert_int_equal(cgroup_parse_keyed("nr_periods x\nnr_throttled 2\n", "nr_throttled", &v), -EINVAL);
	assert_int_equal(cgroup_parse_keyed("nr_periods\n", "nr_periods", &v), -EINVAL);

	assert_int_equal(cgroup_parse_blkio_stat("8:0 Read 5\n8:0 Write 6\n8:0 Total 11\nTotal 11\n", 8, 0, &rd, &wr), 0);
	assert_true(rd == 5 && wr == 6);
	assert_int_equal(cgroup_parse_blkio_stat("Total 0\n", 8, 0, &rd, &wr), 0);
	assert_true(rd == 0 && wr == 0);
	assert_int_equal(cgroup_parse_blkio_stat("8:0 Read\n", 8, 0, &rd, &wr), -EINVAL);
	assert_int_equal(cgroup_parse_blkio_stat("8:0 R3ad 1\n", 8, 0, &rd, &wr), -EINVAL);

	assert_int_equal(cgroup_parse_io_stat("8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n", 8, 0, &is), 0);
	assert_true(is.rbytes == 1 && is.wbytes == 2 && is.rios == 3 && is.wios == 4);
	assert_int_equal(cgroup_parse_io_stat("", 8, 0, &is), 0);
	assert_int_equal(cgroup_parse_io_stat("8:0 rbytes=x\n", 8, 0, &is), -EINVAL);
	assert_int_equal(cgroup_parse_io_stat("8:0 rbytes\n", 8, 0, &is), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v2_not_enabled),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_apart),
		cmocka_unit_test(test_netns),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_parse_proc),
		cmocka_unit_test(test_parse_cpu_max),
		cmocka_unit_test(test_parse_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
