/* SPDX-License-Identifier: MIT */
/*
 * Bandwidth kernels per instruction set; see mem_simd.h.
 *
 * Every kernel works on 64-bit words with unaligned loads and stores (an
 * unaligned instruction on aligned data costs nothing on these cores, and
 * a thread's slice need not start on a line), unrolled to 256 bytes per
 * iteration with four independent accumulators in the read kernels, so
 * neither an add chain nor the loop bound the rate (the x86 read kernels
 * walk the array's four quarters at once, see quarter_words()); the ordinary-store copy
 * of the x86 paths does one 64-byte line per iteration (see avx2_copy()).
 * The read kernels sum the words into registers the caller checks, so no
 * load can be dropped.
 * The non-temporal variants first store up to the next 64-byte boundary
 * with ordinary stores (streaming stores need aligned addresses), then
 * stream, then fence (SFENCE), so the data is in memory when they return.
 */
#include "mem_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86_PATHS 1
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#define HAVE_NEON_PATH 1
#include <arm_neon.h>
#endif

const char *const mem_simd_names[] = { "auto", "scalar", "avx2", "avx512", "neon", NULL };

/* ---- the plain loop (every build) ------------------------------------------ */

static uint64_t scalar_read(const uint64_t *p, size_t n)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i;

	for (i = 0; i + 3 < n; i += 4) {
		s0 += p[i];
		s1 += p[i + 1];
		s2 += p[i + 2];
		s3 += p[i + 3];
	}
	for (; i < n; i++)
		s0 += p[i];
	return s0 + s1 + s2 + s3;
}

MEM_NO_LIBCALLS static void scalar_write(uint64_t *p, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = v;
}

MEM_NO_LIBCALLS static void scalar_copy(uint64_t *restrict dst, const uint64_t *restrict src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

static const struct mem_kernels k_scalar = {
	MEM_SIMD_SCALAR, "scalar",
#if defined(__x86_64__)
	"plain C loop over 8-byte words (the compiler may vectorise parts of it with the baseline SSE2, 16 "
	"bytes per instruction; its store loops stay 8 bytes per instruction here)",
#else
	"plain C loop over 8-byte words, 8 bytes per instruction (the compiler may vectorise parts of it "
	"with the baseline instruction set)",
#endif
	scalar_read, scalar_write, NULL, scalar_copy, NULL,
};

/* Words from P to the next 64-byte boundary, at most N. */
static inline size_t head_words(const uint64_t *p, size_t n)
{
	size_t h = (size_t)((64 - ((uintptr_t)p & 63)) & 63) / sizeof(uint64_t);

	return h < n ? h : n;
}

/* ---- x86-64: AVX2 and AVX-512 ---------------------------------------------- */

#ifdef HAVE_X86_PATHS
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))

/*
 * Words per stream of the x86 read kernels: a quarter of N rounded down to
 * whole 64-byte lines. The read kernels walk the four quarters of the
 * array at once, one line of each per iteration: four sequential streams
 * keep more lines in flight from memory than one (each is tracked by the
 * hardware prefetcher on its own). On the AMD EPYC (AVX-512) VM of
 * docs/mem.md, reading 64 MiB, four streams were 11-20 % faster than one
 * (two: 5-12 %; eight, or two lines of each of four: slower than one).
 * Every word is still read once; the rest past the four quarters (under
 * 36 words) is read by the plain loop.
 */
static inline size_t quarter_words(size_t n)
{
	return n / 4 / 8 * 8;
}

AVX2 static uint64_t avx2_read(const uint64_t *p, size_t n)
{
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	size_t q = quarter_words(n);
	const uint64_t *p1 = p + q, *p2 = p + 2 * q, *p3 = p + 3 * q;
	uint64_t lane[4], s;

	for (size_t i = 0; i < q; i += 8) {
		a0 = _mm256_add_epi64(a0, _mm256_loadu_si256((const __m256i *)(const void *)(p + i)));
		a1 = _mm256_add_epi64(a1, _mm256_loadu_si256((const __m256i *)(const void *)(p1 + i)));
		a2 = _mm256_add_epi64(a2, _mm256_loadu_si256((const __m256i *)(const void *)(p2 + i)));
		a3 = _mm256_add_epi64(a3, _mm256_loadu_si256((const __m256i *)(const void *)(p3 + i)));
		a0 = _mm256_add_epi64(a0, _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 4)));
		a1 = _mm256_add_epi64(a1, _mm256_loadu_si256((const __m256i *)(const void *)(p1 + i + 4)));
		a2 = _mm256_add_epi64(a2, _mm256_loadu_si256((const __m256i *)(const void *)(p2 + i + 4)));
		a3 = _mm256_add_epi64(a3, _mm256_loadu_si256((const __m256i *)(const void *)(p3 + i + 4)));
	}
	a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
	_mm256_storeu_si256((__m256i *)(void *)lane, a0);
	s = lane[0] + lane[1] + lane[2] + lane[3];
	return s + scalar_read(p + 4 * q, n - 4 * q);
}

AVX2 static void avx2_write(uint64_t *p, size_t n, uint64_t v)
{
	__m256i x = _mm256_set1_epi64x((long long)v);
	size_t i;

	for (i = 0; i + 32 <= n; i += 32) {
		__m256i *q = (__m256i *)(void *)(p + i);

		for (int j = 0; j < 8; j++)
			_mm256_storeu_si256(q + j, x);
	}
	scalar_write(p + i, n - i, v);
}

AVX2 static void avx2_write_nt(uint64_t *p, size_t n, uint64_t v)
{
	__m256i x = _mm256_set1_epi64x((long long)v);
	size_t h = head_words(p, n), i;

	scalar_write(p, h, v);
	for (i = h; i + 32 <= n; i += 32) {
		__m256i *q = (__m256i *)(void *)(p + i);

		for (int j = 0; j < 8; j++)
			_mm256_stream_si256(q + j, x);
	}
	_mm_sfence();
	scalar_write(p + i, n - i, v);
}

AVX2 static inline __attribute__((always_inline)) void avx2_stream(__m256i *d, __m256i x)
{
	_mm256_stream_si256(d, x);
}

/* Copies 32 words (256 bytes) with eight 32-byte loads, then eight streaming stores. */
AVX2 static inline __attribute__((always_inline)) void avx2_copy32(uint64_t *restrict dst,
								   const uint64_t *restrict src)
{
	const __m256i *s = (const __m256i *)(const void *)src;
	__m256i *d = (__m256i *)(void *)dst;
	__m256i x0 = _mm256_loadu_si256(s), x1 = _mm256_loadu_si256(s + 1);
	__m256i x2 = _mm256_loadu_si256(s + 2), x3 = _mm256_loadu_si256(s + 3);
	__m256i x4 = _mm256_loadu_si256(s + 4), x5 = _mm256_loadu_si256(s + 5);
	__m256i x6 = _mm256_loadu_si256(s + 6), x7 = _mm256_loadu_si256(s + 7);

	avx2_stream(d, x0);
	avx2_stream(d + 1, x1);
	avx2_stream(d + 2, x2);
	avx2_stream(d + 3, x3);
	avx2_stream(d + 4, x4);
	avx2_stream(d + 5, x5);
	avx2_stream(d + 6, x6);
	avx2_stream(d + 7, x7);
}

/*
 * The ordinary-store copy of both x86 paths: one 64-byte line per
 * iteration, two 32-byte loads then two stores. On the AMD EPYC (AVX-512)
 * VM of docs/mem.md, copying 64 MiB in interleaved passes, its median pass
 * was 7-14 % faster than four 64-byte loads then four stores per iteration
 * (the earlier AVX-512 loop), faster than eight 32-byte ones (the earlier
 * AVX2 loop), than 512-bit loops of one or two lines per iteration and
 * than a plain 8-byte loop; software prefetch 0.5-4 KiB ahead made the
 * copy slower. docs/mem.md has the figures.
 */
AVX2 static void avx2_copy(uint64_t *restrict dst, const uint64_t *restrict src, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		const __m256i *s = (const __m256i *)(const void *)(src + i);
		__m256i *d = (__m256i *)(void *)(dst + i);
		__m256i x0 = _mm256_loadu_si256(s), x1 = _mm256_loadu_si256(s + 1);

		_mm256_storeu_si256(d, x0);
		_mm256_storeu_si256(d + 1, x1);
	}
	scalar_copy(dst + i, src + i, n - i);
}

AVX2 static void avx2_copy_nt(uint64_t *restrict dst, const uint64_t *restrict src, size_t n)
{
	size_t h = head_words(dst, n), i;

	scalar_copy(dst, src, h);
	for (i = h; i + 32 <= n; i += 32)
		avx2_copy32(dst + i, src + i);
	_mm_sfence();
	scalar_copy(dst + i, src + i, n - i);
}

/* Four streams, one 64-byte line of each per iteration: see quarter_words(). */
AVX512 static uint64_t avx512_read(const uint64_t *p, size_t n)
{
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	size_t q = quarter_words(n);
	const uint64_t *p1 = p + q, *p2 = p + 2 * q, *p3 = p + 3 * q;
	uint64_t lane[8], s = 0;

	for (size_t i = 0; i < q; i += 8) {
		a0 = _mm512_add_epi64(a0, _mm512_loadu_si512(p + i));
		a1 = _mm512_add_epi64(a1, _mm512_loadu_si512(p1 + i));
		a2 = _mm512_add_epi64(a2, _mm512_loadu_si512(p2 + i));
		a3 = _mm512_add_epi64(a3, _mm512_loadu_si512(p3 + i));
	}
	a0 = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
	/* Not _mm512_reduce_add_epi64(): GCC's adds the lanes as signed long long, which overflows (UB). */
	_mm512_storeu_si512(lane, a0);
	for (size_t k = 0; k < 8; k++)
		s += lane[k];
	return s + scalar_read(p + 4 * q, n - 4 * q);
}

AVX512 static void avx512_write(uint64_t *p, size_t n, uint64_t v)
{
	__m512i x = _mm512_set1_epi64((long long)v);
	size_t i;

	for (i = 0; i + 32 <= n; i += 32) {
		_mm512_storeu_si512(p + i, x);
		_mm512_storeu_si512(p + i + 8, x);
		_mm512_storeu_si512(p + i + 16, x);
		_mm512_storeu_si512(p + i + 24, x);
	}
	scalar_write(p + i, n - i, v);
}

AVX512 static void avx512_write_nt(uint64_t *p, size_t n, uint64_t v)
{
	__m512i x = _mm512_set1_epi64((long long)v);
	size_t h = head_words(p, n), i;

	scalar_write(p, h, v);
	for (i = h; i + 32 <= n; i += 32) {
		_mm512_stream_si512((void *)(p + i), x);
		_mm512_stream_si512((void *)(p + i + 8), x);
		_mm512_stream_si512((void *)(p + i + 16), x);
		_mm512_stream_si512((void *)(p + i + 24), x);
	}
	_mm_sfence();
	scalar_write(p + i, n - i, v);
}

AVX512 static void avx512_copy_nt(uint64_t *restrict dst, const uint64_t *restrict src, size_t n)
{
	size_t h = head_words(dst, n), i;

	scalar_copy(dst, src, h);
	for (i = h; i + 32 <= n; i += 32) {
		__m512i x0 = _mm512_loadu_si512(src + i), x1 = _mm512_loadu_si512(src + i + 8);
		__m512i x2 = _mm512_loadu_si512(src + i + 16), x3 = _mm512_loadu_si512(src + i + 24);

		_mm512_stream_si512((void *)(dst + i), x0);
		_mm512_stream_si512((void *)(dst + i + 8), x1);
		_mm512_stream_si512((void *)(dst + i + 16), x2);
		_mm512_stream_si512((void *)(dst + i + 24), x3);
	}
	_mm_sfence();
	scalar_copy(dst + i, src + i, n - i);
}

static const struct mem_kernels k_avx2 = {
	MEM_SIMD_AVX2, "avx2", "AVX2 loads and stores, 32 bytes per instruction (read: the array's four quarters "
	"at once, one 64-byte line of each per iteration; copy: one 64-byte line per iteration, two loads then two "
	"stores)",
	avx2_read, avx2_write, avx2_write_nt, avx2_copy, avx2_copy_nt,
};

/* Its copy is AVX2's: wider vectors moved no more, see avx2_copy(). */
static const struct mem_kernels k_avx512 = {
	MEM_SIMD_AVX512, "avx512", "AVX-512 loads and stores, 64 bytes per instruction (read: the array's four "
	"quarters at once, one line of each per iteration; copy: AVX2's, one "
	"64-byte line per iteration as two 32-byte loads then two stores, which was faster than 64-byte "
	"ones)",
	avx512_read, avx512_write, avx512_write_nt, avx2_copy, avx512_copy_nt,
};
#endif

/* ---- aarch64: NEON ----------------------------------------------------------- */

#ifdef HAVE_NEON_PATH
static uint64_t neon_read(const uint64_t *p, size_t n)
{
	uint64x2_t a0 = vdupq_n_u64(0), a1 = a0, a2 = a0, a3 = a0;
	size_t i;

	for (i = 0; i + 32 <= n; i += 32) {
		for (size_t j = 0; j < 32; j += 8) {
			a0 = vaddq_u64(a0, vld1q_u64(p + i + j));
			a1 = vaddq_u64(a1, vld1q_u64(p + i + j + 2));
			a2 = vaddq_u64(a2, vld1q_u64(p + i + j + 4));
			a3 = vaddq_u64(a3, vld1q_u64(p + i + j + 6));
		}
	}
	a0 = vaddq_u64(vaddq_u64(a0, a1), vaddq_u64(a2, a3));
	return vgetq_lane_u64(a0, 0) + vgetq_lane_u64(a0, 1) + scalar_read(p + i, n - i);
}

MEM_NO_LIBCALLS static void neon_write(uint64_t *p, size_t n, uint64_t v)
{
	uint64x2_t x = vdupq_n_u64(v);
	size_t i;

	for (i = 0; i + 32 <= n; i += 32)
		for (size_t j = 0; j < 32; j += 2)
			vst1q_u64(p + i + j, x);
	scalar_write(p + i, n - i, v);
}

MEM_NO_LIBCALLS static void neon_copy(uint64_t *restrict dst, const uint64_t *restrict src, size_t n)
{
	size_t i;

	for (i = 0; i + 32 <= n; i += 32)
		for (size_t j = 0; j < 32; j += 8) {
			uint64x2_t x0 = vld1q_u64(src + i + j), x1 = vld1q_u64(src + i + j + 2);
			uint64x2_t x2 = vld1q_u64(src + i + j + 4), x3 = vld1q_u64(src + i + j + 6);

			vst1q_u64(dst + i + j, x0);
			vst1q_u64(dst + i + j + 2, x1);
			vst1q_u64(dst + i + j + 4, x2);
			vst1q_u64(dst + i + j + 6, x3);
		}
	scalar_copy(dst + i, src + i, n - i);
}

static const struct mem_kernels k_neon = {
	MEM_SIMD_NEON, "neon", "NEON (Advanced SIMD) loads and stores, 16 bytes per instruction",
	neon_read, neon_write, NULL, neon_copy, NULL,
};
#endif

bool mem_simd_supported(enum mem_simd s)
{
	switch (s) {
	case MEM_SIMD_AUTO:
	case MEM_SIMD_SCALAR:
		return true;
#ifdef HAVE_X86_PATHS
	case MEM_SIMD_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
	case MEM_SIMD_AVX512:	/* its copy is AVX2's */
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2");
#endif
#ifdef HAVE_NEON_PATH
	case MEM_SIMD_NEON:
		return true;
#endif
	default:
		return false;
	}
}

const struct mem_kernels *mem_simd_kernels(enum mem_simd s)
{
	if (!mem_simd_supported(s))
		return NULL;
	switch (s) {
#ifdef HAVE_X86_PATHS
	case MEM_SIMD_AVX2:
		return &k_avx2;
	case MEM_SIMD_AVX512:
		return &k_avx512;
#endif
#ifdef HAVE_NEON_PATH
	case MEM_SIMD_NEON:
		return &k_neon;
#endif
	case MEM_SIMD_AUTO:
		for (enum mem_simd t = MEM_SIMD_N - 1; t > MEM_SIMD_SCALAR; t--)
			if (mem_simd_supported(t))
				return mem_simd_kernels(t);
		return &k_scalar;
	default:
		return &k_scalar;
	}
}
