/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/blkdev.c against a fabricated /sys and /proc in
 * a private mkdtemp() directory: a disk with a partition and a loop device
 * reached through sys/dev/block/MAJ:MIN links, mountinfo lines with octal
 * escapes, option sets and a later mount hiding an earlier one, a
 * diskstats line, and setting and restoring read_ahead_kb and the
 * scheduler (in the fake files, so no root and no real device is touched).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/blkdev.h"
#include "lib/compiler.h"

struct fx {
	char root[64];
	char sys[128], proc[128];
};

static void put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void mk(const char *root, const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s/%s/", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
}

static void lnk(const char *root, const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char text[2048];

	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "/tmp/engpass-blkdev.XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(f->sys, sizeof(f->sys), "%s/sys", f->root);
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->root);
	mk(f->root, "sys/dev/block");
	mk(f->root, "sys/devices/virtual/block/vda/queue");
	mk(f->root, "sys/devices/virtual/block/vda/vda1");
	mk(f->root, "sys/devices/virtual/block/loop3/queue");
	mk(f->root, "sys/devices/virtual/block/loop3/loop");
	mk(f->root, "proc/self");
	mk(f->root, "mnt/a/b");
	mk(f->root, "mnt/ab");
	mk(f->root, "mnt/with space/x");
	put(f->sys, "devices/virtual/block/vda/size", "528482304\n");
	put(f->sys, "devices/virtual/block/vda/dev", "254:0\n");
	put(f->sys, "devices/virtual/block/vda/queue/scheduler", "none [mq-deadline] kyber bfq\n");
	put(f->sys, "devices/virtual/block/vda/queue/read_ahead_kb", "8192\n");
	put(f->sys, "devices/virtual/block/vda/queue/nr_requests", "256\n");
	put(f->sys, "devices/virtual/block/vda/queue/max_sectors_kb", "4096\n");
	put(f->sys, "devices/virtual/block/vda/queue/logical_block_size", "512\n");
	put(f->sys, "devices/virtual/block/vda/queue/rotational", "1\n");
	put(f->sys, "devices/virtual/block/vda/queue/write_cache", "write back\n");
	put(f->sys, "devices/virtual/block/vda/vda1/partition", "1\n");
	put(f->sys, "devices/virtual/block/vda/vda1/size", "2048\n");
	put(f->sys, "devices/virtual/block/vda/vda1/dev", "254:1\n");
	put(f->sys, "devices/virtual/block/loop3/size", "262144\n");
	put(f->sys, "devices/virtual/block/loop3/queue/scheduler", "none\n");
	put(f->sys, "devices/virtual/block/loop3/queue/read_ahead_kb", "128\n");
	put(f->sys, "devices/virtual/block/loop3/loop/backing_file", "/tmp/img\n");
	lnk(f->sys, "../../devices/virtual/block/vda", "dev/block/254:0");
	lnk(f->sys, "../../devices/virtual/block/vda/vda1", "dev/block/254:1");
	lnk(f->sys, "../../devices/virtual/block/loop3", "dev/block/7:3");
	snprintf(text, sizeof(text),
		 "22 1 0:21 / /proc rw,relatime - proc proc rw\n"
		 "27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard\n"
		 "40 27 7:3 / %s/mnt/a rw,relatime - ext4 /dev/loop3 rw\n"
		 "41 40 0:50 / %s/mnt/a rw,nosuid master:2 - tmpfs none rw,size=4k\n"
		 "42 27 7:3 / %s/mnt/with\\040space rw,relatime - ext4 /dev/loop3 rw,sync\n"
		 "broken line\n",
		 f->root, f->root, f->root);
	put(f->proc, "self/mountinfo", text);
	put(f->proc, "diskstats",
	    " 254       0 vda 100 1 800 10 200 2 1600 20 0 30 30 0 0 0 0 5 1\n"
	    " 254       1 vda1 50 0 400 5 60 1 480 6 0 11 11 0 0 0 0 0 0\n"
	    "   7       3 loop3 1 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static void test_partition(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;

	assert_int_equal(blkdev_from_devnum(f->sys, 254, 1, &i), 0);
	assert_string_equal(i.name, "vda1");
	assert_string_equal(i.disk, "vda");
	assert_true(i.partition);
	assert_int_equal(i.size_bytes, 2048 * 512);
	assert_string_equal(i.scheduler, "mq-deadline");
	assert_string_equal(i.schedulers, "none mq-deadline kyber bfq");
	assert_int_equal(i.read_ahead_kb, 8192);
	assert_int_equal(i.nr_requests, 256);
	assert_int_equal(i.max_sectors_kb, 4096);
	assert_int_equal(i.logical_block_bytes, 512);
	assert_int_equal(i.rotational, 1);
	assert_string_equal(i.write_cache, "write back");
	assert_non_null(strstr(i.disk_dir, "/block/vda"));
	assert_string_equal(i.loop_backing, "");
}

static void test_whole_disk_and_loop(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;

	assert_int_equal(blkdev_from_devnum(f->sys, 254, 0, &i), 0);
	assert_string_equal(i.name, "vda");
	assert_string_equal(i.disk, "vda");
	assert_false(i.partition);
	assert_int_equal(blkdev_from_devnum(f->sys, 7, 3, &i), 0);
	assert_string_equal(i.name, "loop3");
	assert_string_equal(i.scheduler, "none");
	assert_string_equal(i.loop_backing, "/tmp/img");
	/* Unknown attributes stay unknown, never 0. */
	assert_int_equal(i.nr_requests, -1);
	assert_int_equal(i.rotational, -1);
	assert_string_equal(i.write_cache, "");
}

static void test_no_device(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;

	assert_int_equal(blkdev_from_devnum(f->sys, 0, 22, &i), -ENODEV);
	assert_int_equal(blkdev_from_devnum(f->sys, 9, 9, &i), -ENODEV);
}

static void test_parse_scheduler(void **state)
{
	char a[32], l[128];

	(void)state;
	assert_int_equal(blkdev_parse_scheduler("[none] mq-deadline\n", a, sizeof(a), l, sizeof(l)), 0);
	assert_string_equal(a, "none");
	assert_string_equal(l, "none mq-deadline");
	assert_int_equal(blkdev_parse_scheduler("noop deadline [cfq]", a, sizeof(a), l, sizeof(l)), 0);
	assert_string_equal(a, "cfq");
	assert_string_equal(l, "noop deadline cfq");
	assert_int_equal(blkdev_parse_scheduler("none", a, sizeof(a), l, sizeof(l)), 0);
	assert_string_equal(a, "none");
	assert_int_equal(blkdev_parse_scheduler("none kyber", a, sizeof(a), NULL, 0), 0);
	assert_string_equal(a, "");
	assert_int_equal(blkdev_parse_scheduler("  \n", a, sizeof(a), l, sizeof(l)), -EINVAL);
	assert_true(blkdev_offers("none mq-deadline kyber", "mq-deadline"));
	assert_true(blkdev_offers("none mq-deadline kyber", "kyber"));
	assert_true(blkdev_offers("none mq-deadline kyber", "none"));
	assert_false(blkdev_offers("none mq-deadline kyber", "deadline"));
	assert_false(blkdev_offers("none mq-deadline kyber", "kyb"));
	assert_false(blkdev_offers("none", ""));
}

static void test_mount_of(void **state)
{
	struct fx *f = *state;
	struct blkdev_mount m;
	char path[PATH_MAX];

	/* A later mount on the same point hides the earlier one. */
	snprintf(path, sizeof(path), "%s/mnt/a/b", f->root);
	assert_int_equal(blkdev_mount_of(f->proc, path, &m), 0);
	assert_string_equal(m.fs_type, "tmpfs");
	assert_int_equal(m.major, 0);
	assert_string_equal(m.options, "rw,nosuid; rw,size=4k");
	assert_false(m.sync);
	/* "/mnt/a" is not a prefix of "/mnt/ab". */
	snprintf(path, sizeof(path), "%s/mnt/ab", f->root);
	assert_int_equal(blkdev_mount_of(f->proc, path, &m), 0);
	assert_string_equal(m.mount_point, "/");
	assert_string_equal(m.source, "/dev/vda1");
	assert_int_equal(m.minor, 1);
	/* Octal escapes and the sync option among the super options. */
	snprintf(path, sizeof(path), "%s/mnt/with space/x", f->root);
	assert_int_equal(blkdev_mount_of(f->proc, path, &m), 0);
	assert_non_null(strstr(m.mount_point, "with space"));
	assert_true(m.sync);
	assert_int_equal(blkdev_mount_of(f->proc, "/no/such/path", &m), -ENOENT);
}

static void test_is_mounted(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;
	char where[PATH_MAX];

	/* The whole disk counts as mounted when a partition is. */
	assert_int_equal(blkdev_from_devnum(f->sys, 254, 0, &i), 0);
	assert_int_equal(blkdev_is_mounted(f->proc, &i, where, sizeof(where)), 1);
	assert_string_equal(where, "/");
	assert_int_equal(blkdev_from_devnum(f->sys, 7, 3, &i), 0);
	assert_int_equal(blkdev_is_mounted(f->proc, &i, where, sizeof(where)), 1);
	put(f->proc, "self/mountinfo", "27 1 254:1 / / rw - ext4 /dev/vda1 rw\n");
	assert_int_equal(blkdev_is_mounted(f->proc, &i, NULL, 0), 0);
}

static void test_diskstats(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;
	struct proc_disk d;

	assert_int_equal(blkdev_from_devnum(f->sys, 254, 1, &i), 0);
	assert_int_equal(blkdev_diskstats(f->proc, &i, &d), 0);
	assert_string_equal(d.name, "vda1");
	assert_int_equal(d.wr_ios, 60);
	assert_int_equal(d.wr_sectors, 480);
	i.minor = 9;
	assert_int_equal(blkdev_diskstats(f->proc, &i, &d), -ENOENT);
}

static void test_tune_restore(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;
	struct blkdev_tune t = BLKDEV_TUNE_INIT(&i);
	char buf[128];

	assert_int_equal(blkdev_from_devnum(f->sys, 254, 1, &i), 0);
	assert_int_equal(blkdev_tune_readahead(&t, 1234), 0);
	assert_string_equal(get(f->sys, "devices/virtual/block/vda/queue/read_ahead_kb", buf, sizeof(buf)), "1234\n");
	/* A second change still restores the original. */
	assert_int_equal(blkdev_tune_readahead(&t, 16), 0);
	assert_int_equal(blkdev_tune_scheduler(&t, "bfq"), 0);
	assert_string_equal(get(f->sys, "devices/virtual/block/vda/queue/scheduler", buf, sizeof(buf)), "bfq\n");
	assert_int_equal(blkdev_tune_restore(&t), 0);
	assert_string_equal(get(f->sys, "devices/virtual/block/vda/queue/read_ahead_kb", buf, sizeof(buf)), "8192\n");
	assert_string_equal(get(f->sys, "devices/virtual/block/vda/queue/scheduler", buf, sizeof(buf)),
			    "mq-deadline\n");
	assert_false(t.ra_set);
	assert_false(t.sched_set);
	/* Restoring twice does nothing more. */
	assert_int_equal(blkdev_tune_restore(&t), 0);
}

static void test_tune_refusals(void **state)
{
	struct fx *f = *state;
	struct blkdev_info i;
	struct blkdev_tune t = BLKDEV_TUNE_INIT(&i);
	char buf[128];

	assert_int_equal(blkdev_from_devnum(f->sys, 254, 0, &i), 0);
	assert_int_equal(blkdev_tune_scheduler(&t, "cfq"), -EINVAL);
	assert_false(t.sched_set);
	assert_int_equal(blkdev_tune_readahead(&t, -1), -EINVAL);
	assert_false(t.ra_set);
	assert_string_equal(get(f->sys, "devices/virtual/block/vda/queue/scheduler", buf, sizeof(buf)),
			    "none [mq-deadline] kyber bfq\n");
	/* A device without queue files: the error comes back, nothing is remembered. */
	memset(&i, 0, sizeof(i));
	assert_int_equal(blkdev_tune_readahead(&t, 64), -ENODEV);
	assert_int_equal(blkdev_tune_restore(&t), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_partition),
		T(test_whole_disk_and_loop),
		T(test_no_device),
		T(test_parse_scheduler),
		T(test_mount_of),
		T(test_is_mounted),
		T(test_diskstats),
		T(test_tune_restore),
		T(test_tune_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
