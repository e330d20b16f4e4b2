/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/swapdev.c: the signatures found in fabricated
 * device heads (swap for several page sizes, the file systems and tables
 * that must never be written over, nothing), and a device's state from
 * recorded /proc/swaps text (escaped names, priorities, not listed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/swapdev.h"

static unsigned char head[SWAPDEV_PROBE_BYTES];

static enum swapdev_sig sig_with(size_t off, const void *magic, size_t len, const char **what)
{
	memset(head, 0, sizeof(head));
	memcpy(head + off, magic, len);
	return swapdev_signature(head, sizeof(head), what);
}

static void test_signatures(void **state)
{
	const char *what;

	(void)state;
	memset(head, 0, sizeof(head));
	assert_int_equal(swapdev_signature(head, sizeof(head), &what), SWAPDEV_SIG_NONE);
	assert_null(what);
	assert_int_equal(sig_with(4096 - 10, "SWAPSPACE2", 10, &what), SWAPDEV_SIG_SWAP);
	assert_string_equal(what, "swap");
	assert_int_equal(sig_with(65536 - 10, "SWAPSPACE2", 10, &what), SWAPDEV_SIG_SWAP);
	assert_int_equal(sig_with(4096 - 10, "SWAP-SPACE", 10, &what), SWAPDEV_SIG_SWAP);
	assert_int_equal(sig_with(1080, "\x53\xef", 2, &what), SWAPDEV_SIG_OTHER);
	assert_string_equal(what, "ext2/3/4");
	assert_int_equal(sig_with(0, "XFSB", 4, &what), SWAPDEV_SIG_OTHER);
	assert_string_equal(what, "XFS");
	assert_int_equal(sig_with(65600, "_BHRfS_M", 8, &what), SWAPDEV_SIG_OTHER);
	assert_string_equal(what, "Btrfs");
	assert_int_equal(sig_with(82, "FAT32   ", 8, &what), SWAPDEV_SIG_OTHER);
	assert_string_equal(what, "FAT32");
	assert_int_equal(sig_with(512, "EFI PART", 8, &what), SWAPDEV_SIG_OTHER);
	assert_int_equal(sig_with(510, "\x55\xaa", 2, &what), SWAPDEV_SIG_OTHER);
	assert_int_equal(sig_with(512, "LABELONE", 8, &what), SWAPDEV_SIG_OTHER);
	assert_string_equal(what, "LVM2");
	/* A short head: the magics beyond it are not looked at. */
	sig_with(65600, "_BHRfS_M", 8, &what);
	assert_int_equal(swapdev_signature(head, 4096, &what), SWAPDEV_SIG_NONE);
	/* mkswap's page wins over stale bytes in it. */
	memset(head, 0, sizeof(head));
	memcpy(head + 1080, "\x53\xef", 2);
	memcpy(head + 4096 - 10, "SWAPSPACE2", 10);
	assert_int_equal(swapdev_signature(head, sizeof(head), NULL), SWAPDEV_SIG_SWAP);
}

static const char swaps[] =
	"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	"/dev/vdb2                               partition\t1048572\t\t0\t\t-2\n"
	"/var/tmp/my\\040swap                      file\t\t262140\t\t1024\t\t32767\n";

static void test_state(void **state)
{
	struct swapdev_state st;

	(void)state;
	assert_int_equal(swapdev_state(swaps, "/dev/vdb2", &st), 0);
	assert_true(st.active);
	assert_int_equal(st.priority, -2);
	assert_int_equal(st.size_bytes, 1048572LL * 1024);
	assert_string_equal(st.type, "partition");
	assert_int_equal(swapdev_state(swaps, "/var/tmp/my swap", &st), 0);
	assert_true(st.active);
	assert_int_equal(st.priority, 32767);
	assert_int_equal(st.used_bytes, 1024LL * 1024);
	assert_string_equal(st.type, "file");
	assert_int_equal(swapdev_state(swaps, "/dev/vdb3", &st), 0);
	assert_false(st.active);
	assert_int_equal(swapdev_state("Filename Type Size Used Priority\n", "/dev/vdb2", &st), 0);
	assert_false(st.active);
	assert_int_equal(swapdev_state("", "/dev/vdb2", &st), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signatures),
		cmocka_unit_test(test_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
