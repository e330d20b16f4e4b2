/* SPDX-License-Identifier: MIT */
/*
 * Tests of the bandwidth kernels (mem_simd.c) on every path this CPU
 * runs: write stores the pattern and nothing past the end, the
 * non-temporal write and copy the same, copy copies, and read's sum
 * equals a plain sum, for lengths around the unrolled block (32 words)
 * and starts off the 64-byte line; and the dispatch: auto is a supported
 * path, a path the CPU lacks gives no kernels.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "bench/mem/mem_simd.h"

#define WORDS 1024
#define GUARD 0x5a5a5a5a5a5a5a5aULL

static const size_t lens[] = { 0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 777 };
static const size_t offs[] = { 0, 1, 3, 7, 8 };	/* words from a 64-byte boundary */

static uint64_t buf_a[WORDS + 64] __attribute__((aligned(64)));
static uint64_t buf_b[WORDS + 64] __attribute__((aligned(64)));

static void fill(uint64_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		p[i] = seed;
	}
}

static void check_write(void (*wr)(uint64_t *, size_t, uint64_t), const char *path)
{
	for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			uint64_t *p = buf_a + offs[o];
			size_t n = lens[l];

			for (size_t i = 0; i < WORDS + 64; i++)
				buf_a[i] = GUARD;
			wr(p, n, 0x3ff0000000000000ULL);
			for (size_t i = 0; i < n; i++)
				if (p[i] != 0x3ff0000000000000ULL)
					fail_msg("%s: word %zu of %zu (offset %zu) not written", path, i, n, offs[o]);
			for (uint64_t *q = buf_a; q < p; q++)
				assert_true(*q == GUARD);
			for (size_t i = n; i < 64; i++)
				if (p[i] != GUARD)
					fail_msg("%s: wrote past the end (%zu of %zu)", path, i, n);
		}
}

static void check_copy(void (*cp)(uint64_t *restrict, const uint64_t *restrict, size_t), const char *path)
{
	for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			uint64_t *d = buf_b + offs[o], *s = buf_a + offs[(o + 1) % 5];
			size_t n = lens[l];

			fill(buf_a, WORDS + 64, n + 1);
			for (size_t i = 0; i < WORDS + 64; i++)
				buf_b[i] = GUARD;
			cp(d, s, n);
			if (n && memcmp(d, s, n * sizeof(*d)))
				fail_msg("%s: copy of %zu words (offset %zu) differs", path, n, offs[o]);
			for (size_t i = n; i < 64; i++)
				if (d[i] != GUARD)
					fail_msg("%s: copied past the end (%zu of %zu)", path, i, n);
		}
}

static void check_read(uint64_t (*rd)(const uint64_t *, size_t), const char *path)
{
	for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			const uint64_t *p = buf_a + offs[o];
			size_t n = lens[l];
			uint64_t want = 0;

			fill(buf_a, WORDS + 64, 7 * n + o);
			for (size_t i = 0; i < n; i++)
				want += p[i];
			if (rd(p, n) != want)
				fail_msg("%s: sum of %zu words (offset %zu) differs from the plain sum", path, n, offs[o]);
		}
}

static void test_paths(void **state)
{
	unsigned tested = 0;

	(void)state;
	for (int s = MEM_SIMD_SCALAR; s < MEM_SIMD_N; s++) {
		const struct mem_kernels *k = mem_simd_kernels((enum mem_simd)s);

		if (!mem_simd_supported((enum mem_simd)s)) {
			assert_null(k);
			printf("# %s: not on this CPU, not tested\n", mem_simd_names[s]);
			continue;
		}
		assert_non_null(k);
		assert_int_equal(k->id, s);
		assert_string_equal(k->name, mem_simd_names[s]);
		check_write(k->write, k->name);
		if (k->write_nt)
			check_write(k->write_nt, k->name);
		check_copy(k->copy, k->name);
		if (k->copy_nt)
			check_copy(k->copy_nt, k->name);
		check_read(k->read, k->name);
		printf("# %s: write%s, copy%s, read checked\n", k->name, k->write_nt ? " (and non-temporal)" : "",
		       k->copy_nt ? " (and non-temporal)" : "");
		tested++;
	}
	assert_true(tested >= 1);
}

static void test_dispatch(void **state)
{
	const struct mem_kernels *a = mem_simd_kernels(MEM_SIMD_AUTO);

	(void)state;
	assert_true(mem_simd_supported(MEM_SIMD_SCALAR));
	assert_non_null(a);
	assert_true(mem_simd_supported(a->id));
#if defined(__x86_64__)
	/* auto is the widest supported path. */
	assert_int_equal(a->id, mem_simd_supported(MEM_SIMD_AVX512) ? MEM_SIMD_AVX512
				: mem_simd_supported(MEM_SIMD_AVX2) ? MEM_SIMD_AVX2 : MEM_SIMD_SCALAR);
	assert_false(mem_simd_supported(MEM_SIMD_NEON));
	assert_null(mem_simd_kernels(MEM_SIMD_NEON));
#elif defined(__aarch64__)
	assert_int_equal(a->id, MEM_SIMD_NEON);
	assert_false(mem_simd_supported(MEM_SIMD_AVX2));
#else
	assert_int_equal(a->id, MEM_SIMD_SCALAR);
	assert_null(mem_simd_kernels(MEM_SIMD_AVX512));
#endif
	assert_null(mem_simd_names[MEM_SIMD_N]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_dispatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
