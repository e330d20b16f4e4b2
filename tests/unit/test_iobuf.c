/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/work/iobuf.c: alignment and usable length of both
 * kinds of buffer, when huge pages are asked for, what /proc/self/smaps
 * says back (within [0, len]; all of it where THP is on and the kernel
 * gives a huge page, which it may refuse under fragmentation, so that is
 * printed, not asserted), and that freeing unmaps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/work/iobuf.h"

static void test_one_page_pieces(void **state)
{
	struct iobuf b;

	(void)state;
	/* 32 buffers of 4 KiB: plain pages, no huge page asked. */
	assert_int_equal(iobuf_alloc(&b, 32 * 4096, 4096), 0);
	assert_non_null(b.buf);
	assert_int_equal((uintptr_t)b.buf % 4096, 0);
	assert_int_equal(b.len, 32 * 4096);
	assert_false(b.huge_asked);
	memset(b.buf, 0xa5, b.len);
	assert_int_equal(((unsigned char *)b.buf)[b.len - 1], 0xa5);
	assert_int_equal(iobuf_huge_bytes(&b), 0);
	iobuf_free(&b);
	assert_null(b.buf);
}

static void test_multi_page_pieces(void **state)
{
	struct iobuf b;
	unsigned char vec;
	void *buf;
	long long huge;
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");

	(void)state;
	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = 0;
		fclose(f);
	}
	assert_int_equal(iobuf_alloc(&b, 3 << 20, 1 << 20), 0);
	assert_int_equal((uintptr_t)b.buf % IOBUF_HUGE_SIZE, 0);
	assert_int_equal(b.len, 3 << 20);
	assert_true((char *)b.buf >= (char *)b.map);
	assert_true((char *)b.buf + b.len <= (char *)b.map + b.map_len);
	/* The kernel accepts MADV_HUGEPAGE whenever THP is built in. */
	if (strstr(mode, "[always]") || strstr(mode, "[madvise]"))
		assert_true(b.huge_asked);
	memset(b.buf, 0x5a, b.len);
	huge = iobuf_huge_bytes(&b);
	assert_true(huge >= 0);
	assert_true(huge <= (long long)b.len);
	printf("# THP mode: %s# %lld of %zu bytes in huge pages\n", mode[0] ? mode : "(none)\n", huge, b.len);
	buf = b.buf;
	iobuf_free(&b);
	assert_null(b.buf);
	/* Unmapped: mincore() on the old address fails with ENOMEM. */
	assert_int_equal(mincore(buf, 4096, &vec), -1);
	assert_int_equal(errno, ENOMEM);
}

static void test_refusals(void **state)
{
	struct iobuf b;

	(void)state;
	assert_int_equal(iobuf_alloc(&b, 0, 4096), -EINVAL);
	assert_int_equal(iobuf_huge_bytes(&b), -1);
	iobuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_page_pieces),
		cmocka_unit_test(test_multi_page_pieces),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
