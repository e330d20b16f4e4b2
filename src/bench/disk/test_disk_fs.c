/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the pure parts of disk --fs and -t's region
 * (src/bench/disk/disk_spec.c): --mount-options split into mount(2)
 * flags and file-system data, with ',' or '+' between options (the '+'
 * form is what `engpass sweep` passes through whole); the image size; and
 * the offset -t starts at for --offset and --region.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/mount.h>

#include "bench/disk/disk_spec.h"

#define MIB (1024ULL * 1024)

static void test_mount_defaults(void **state)
{
	struct disk_mount_opts m;

	(void)state;
	assert_int_equal(disk_mount_opts_parse(NULL, &m, NULL, 0), 0);
	assert_int_equal(m.flags, 0);
	assert_string_equal(m.data, "");
	assert_string_equal(m.text, "defaults");
	assert_int_equal(disk_mount_opts_parse("", &m, NULL, 0), 0);
	assert_string_equal(m.text, "defaults");
	assert_int_equal(disk_mount_opts_parse("defaults", &m, NULL, 0), 0);
	assert_int_equal(m.flags, 0);
	assert_string_equal(m.data, "");
}

static void test_mount_flags_and_data(void **state)
{
	struct disk_mount_opts m;

	(void)state;
	assert_int_equal(disk_mount_opts_parse("sync", &m, NULL, 0), 0);
	assert_int_equal(m.flags, MS_SYNCHRONOUS);
	assert_string_equal(m.data, "");
	/* ',' and '+' both separate; the text is normalised to ','. */
	assert_int_equal(disk_mount_opts_parse("sync+noatime,data=journal+commit=5", &m, NULL, 0), 0);
	assert_int_equal(m.flags, MS_SYNCHRONOUS | MS_NOATIME);
	assert_string_equal(m.data, "data=journal,commit=5");
	assert_string_equal(m.text, "sync,noatime,data=journal,commit=5");
	/* A later option overrides an earlier one. */
	assert_int_equal(disk_mount_opts_parse("sync,async", &m, NULL, 0), 0);
	assert_int_equal(m.flags, 0);
	assert_int_equal(disk_mount_opts_parse("noatime+relatime", &m, NULL, 0), 0);
	assert_int_equal(m.flags, MS_RELATIME);
	assert_int_equal(disk_mount_opts_parse("dirsync,nodev,nosuid,noexec,lazytime", &m, NULL, 0), 0);
	assert_int_equal(m.flags, MS_DIRSYNC | MS_NODEV | MS_NOSUID | MS_NOEXEC | MS_LAZYTIME);
	/* "async" is not "sync" (whole words only). */
	assert_int_equal(disk_mount_opts_parse("async", &m, NULL, 0), 0);
	assert_int_equal(m.flags, 0);
	assert_string_equal(m.data, "");
}

static void test_mount_refused(void **state)
{
	struct disk_mount_opts m;
	char bad[32];
	char big[400];

	(void)state;
	assert_int_equal(disk_mount_opts_parse("sync,ro", &m, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "ro");
	assert_int_equal(disk_mount_opts_parse("remount", &m, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "remount");
	assert_int_equal(disk_mount_opts_parse("sync,,noatime", &m, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "(empty)");
	assert_int_equal(disk_mount_opts_parse("sync+", &m, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(disk_mount_opts_parse(",sync", &m, bad, sizeof(bad)), -EINVAL);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(disk_mount_opts_parse(big, &m, bad, sizeof(bad)), -E2BIG);
	/* "rorw" is an unknown option for the file system, not "ro". */
	assert_int_equal(disk_mount_opts_parse("rorw", &m, bad, sizeof(bad)), 0);
	assert_string_equal(m.data, "rorw");
}

static void test_image_size(void **state)
{
	(void)state;
	assert_int_equal(disk_fs_image_size(0), 32 * MIB);
	assert_int_equal(disk_fs_image_size(4 * MIB), 37 * MIB);
	assert_int_equal(disk_fs_image_size(1024 * MIB), 1312 * MIB);
	/* Whole MiB, always above what is needed. */
	assert_int_equal(disk_fs_image_size(MIB + 1) % MIB, 0);
	assert_true(disk_fs_image_size(MIB + 1) > MIB + 1);
}

static void test_region(void **state)
{
	uint64_t off;
	const uint64_t two = 2 * MIB, gib = 1024 * MIB;

	(void)state;
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_NONE, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_START, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_MIDDLE, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 32 * MIB);
	/* End of small data: its last third, rounded down to the alignment. */
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_END, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 42 * MIB);
	/* End of a big device: the last GiB. */
	assert_int_equal(disk_region_offset(500 * gib, DISK_REGION_END, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 499 * gib);
	/* Tiny data: still MIN_LEN to read. */
	assert_int_equal(disk_region_offset(4 * MIB, DISK_REGION_END, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 2 * MIB);
	assert_int_equal(disk_region_offset(two, DISK_REGION_MIDDLE, UINT64_MAX, two, two, &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(disk_region_offset(MIB, DISK_REGION_START, UINT64_MAX, two, two, &off), -EINVAL);
}

static void test_offset(void **state)
{
	uint64_t off;
	const uint64_t two = 2 * MIB;

	(void)state;
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_NONE, 60 * MIB, 4096, two, &off), 0);
	assert_int_equal(off, 60 * MIB);
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_NONE, 62 * MIB, 4096, two, &off), 0);
	assert_int_equal(off, 62 * MIB);
	/* Less than MIN_LEN left, past the end, or unaligned. */
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_NONE, 63 * MIB, 4096, two, &off), -EINVAL);
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_NONE, 65 * MIB, 4096, two, &off), -EINVAL);
	assert_int_equal(disk_region_offset(64 * MIB, DISK_REGION_NONE, 1000, 4096, two, &off), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_defaults), cmocka_unit_test(test_mount_flags_and_data),
		cmocka_unit_test(test_mount_refused),  cmocka_unit_test(test_image_size),
		cmocka_unit_test(test_region),	       cmocka_unit_test(test_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
