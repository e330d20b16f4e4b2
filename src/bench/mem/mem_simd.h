/* SPDX-License-Identifier: MIT */
/*
 * The bandwidth step's read, write and copy kernels, one set per
 * instruction set, chosen at run time: AVX-512 and AVX2 on x86-64 (built
 * with target attributes, used only when the CPU and the kernel's saved
 * state support them), NEON on aarch64 (always there), and the plain C
 * loop everywhere (MIPS, armhf, anything else; the compiler may vectorise
 * it with the baseline instruction set, e.g. SSE2 on x86-64).
 */
#ifndef ENGPASS_MEM_SIMD_H
#define ENGPASS_MEM_SIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

/*
 * Keeps the compiler from turning a store or copy loop into a memset or
 * memcpy call (libc's may switch to non-temporal stores, which would
 * change what is measured).
 */
#if defined(__clang__)
#define MEM_NO_LIBCALLS __attribute__((no_builtin("memcpy", "memset")))
#elif defined(__GNUC__)
#define MEM_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define MEM_NO_LIBCALLS
#endif

enum mem_simd { MEM_SIMD_AUTO, MEM_SIMD_SCALAR, MEM_SIMD_AVX2, MEM_SIMD_AVX512, MEM_SIMD_NEON, MEM_SIMD_N };

/* The --simd choices in enum order, NULL-terminated: "auto", "scalar", "avx2", "avx512", "neon". */
extern const char *const mem_simd_names[];

struct mem_kernels {
	enum mem_simd id;
	const char *name;	/* "avx512" */
	const char *method;	/* "AVX-512 loads and stores, 64 bytes per instruction" */
	/* The 64-bit wrapping sum of the N words at P (every word is loaded). */
	uint64_t (*read)(const uint64_t *p, size_t n);
	/* Stores V into the N words at P with ordinary (cached) stores. */
	void (*write)(uint64_t *p, size_t n, uint64_t v);
	/* The same with non-temporal (streaming) stores and a store fence; NULL on paths without them. */
	void (*write_nt)(uint64_t *p, size_t n, uint64_t v);
	/* Copies N words from SRC to DST (not overlapping), ordinary stores. */
	void (*copy)(uint64_t *restrict dst, const uint64_t *restrict src, size_t n);
	/* The same with non-temporal stores; NULL on paths without them. */
	void (*copy_nt)(uint64_t *restrict dst, const uint64_t *restrict src, size_t n);
};

/* Whether this CPU (and build) can run path S; MEM_SIMD_AUTO and MEM_SIMD_SCALAR always can. */
bool mem_simd_supported(enum mem_simd s);

/*
 * The kernels of path S; MEM_SIMD_AUTO is the widest supported path
 * (AVX-512, then AVX2, NEON, the plain loop). NULL when S is not supported
 * here (see mem_simd_supported()).
 */
const struct mem_kernels *mem_simd_kernels(enum mem_simd s);

#endif
