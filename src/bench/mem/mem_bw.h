/* SPDX-License-Identifier: MIT */
/*
 * engpass mem --bandwidth and --latency: STREAM-like kernels (write,
 * read, copy, scale, add, triad) over arrays well past the last-level
 * cache, and a dependent pointer chase over a random cyclic permutation
 * for a curve of working-set sizes. Neither is STREAM or lmbench; both
 * say their method next to the figures.
 */
#ifndef ENGPASS_MEM_BW_H
#define ENGPASS_MEM_BW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/mem/mem_simd.h"

/*
 * The time a bandwidth or latency step keeps without --time, and what it
 * may take beyond its time: the mapping and unmapping of its arrays, the
 * cache and memory figures read before the clock starts. Both steps keep
 * --time (or this default) within MEM_ALLOWANCE_NS: they choose their
 * sizes and passes to fit (mem_bw.c says how).
 */
#define MEM_DEFAULT_TIME_NS (10 * 1000000000ULL)
#define MEM_ALLOWANCE_NS (500 * 1000000ULL)

struct mem_bw_cfg {
	uint64_t array_bytes;	/* per array; 0 = the largest power of two up to max(4 x LLC, 64 MiB) that fits the time */
	unsigned threads;	/* >= 1; 0 = all: one per CPU of the affinity set */
	enum mem_simd simd;	/* the kernels' path; mem_simd_supported() by this CPU */
	unsigned passes;	/* timed passes per kernel, best kept; 0 = 10, or as many as TIME_NS holds when given */
	uint64_t time_ns;	/* --time; 0 = MEM_DEFAULT_TIME_NS as a limit (then the passes are 10 at most) */
	const char *sys_root;	/* where the cache sizes are read: "/sys" or a fixture; NULL = "/sys" */
	unsigned margin_pct;
	bool force;		/* run even if the arrays exceed the budget */
};

struct mem_lat_cfg {
	uint64_t max_bytes;	/* largest working set; 0 = max(4 x LLC, 64 MiB), a power of two */
	unsigned passes;	/* timed runs per size, best kept; 0 = 3 (and, with TIME_NS, the time left to the largest) */
	uint64_t time_ns;	/* --time; 0 = MEM_DEFAULT_TIME_NS as a limit */
	const char *sys_root;	/* as in struct mem_bw_cfg */
	unsigned margin_pct;
	bool force;
};

/* The CPU caches as sysfs describes cpu0's, e.g. "L1d 32K, L1i 32K, L2 1M, L3 32M". */
struct mem_caches {
	uint64_t llc_bytes;	/* largest data or unified cache; 0 unknown */
	int llc_level;		/* its level; 0 unknown */
	char text[160];		/* "" when unknown */
};

/* Reads cpu0's caches from SYS_ROOT/devices/system/cpu/cpu0/cache/. Never fails: unknown is 0 and "". */
void mem_caches_read(const char *sys_root, struct mem_caches *c);

/*
 * Runs the bandwidth step into RES: per kernel the best rate over its
 * timed passes (after one untimed warm-up pass), counting the bytes each
 * kernel's source names (STREAM's convention: write-allocate traffic is
 * not counted), and a check of the arrays' final values. The arrays (unless
 * CFG->array_bytes) and the passes are the most that fit CFG->time_ns; the
 * step ends within it plus MEM_ALLOWANCE_NS (with --size, the warm-up and
 * one timed pass of each kernel run whatever they cost, and a note says
 * when they took longer). Skipped when the arrays exceed MemAvailable +
 * SwapFree - margin unless CFG->force. Never prints.
 */
void mem_bandwidth_run(const struct bench_env *env, const struct mem_bw_cfg *cfg, struct result *res);

/* What --threads all means here: the CPUs of the calling thread's affinity set (>= 1). */
unsigned mem_bandwidth_all_threads(void);

/*
 * Runs the latency step into RES: for working sets of 4 KiB, 6 KiB, 8 KiB,
 * 12 KiB ... up to CFG->max_bytes, the best nanoseconds per dependent load
 * over CFG->passes runs of a pointer chase over one random cycle through
 * every 64-byte line of the set. The sizes stop at the largest whose
 * cycle, warm-up walk and runs fit CFG->time_ns (the cycle's construction
 * is timed and cut off at the deadline); the result names the sizes that
 * did not fit. Ends within the time plus MEM_ALLOWANCE_NS. Never prints.
 */
void mem_latency_run(const struct bench_env *env, const struct mem_lat_cfg *cfg, struct result *res);

/*
 * The candidate limiter a latency step offers, share 1 (a pointer chase
 * waits for each load before the next: that is the method), with NS per
 * load at the largest set SIZE: "memory latency" when SIZE is past the
 * last-level cache (LLC_BYTES; 0 unknown: then when NS is at least
 * MEM_DRAM_LATENCY_RATIO x FIRST_NS, the latency at the smallest set,
 * which sits in L1), else "cache latency".
 */
#define MEM_DRAM_LATENCY_RATIO 40.0
void mem_latency_offer(struct result *res, double ns, double first_ns, uint64_t size, uint64_t llc_bytes);

/*
 * The candidate limiter a bandwidth step offers: "memory bandwidth", share
 * 1, with TRIAD (bytes/s) over THREADS threads of NCPU online; the next
 * step asks for more threads while there are CPUs left, unless RAN (the
 * most threads the step ran together, >= THREADS) already used them and
 * added nothing beyond the noise: then one core's figure is the memory's
 * and only faster memory moves it. Nothing when the
 * three arrays of BYTES each fit in the last-level cache (LLC_BYTES; 0
 * unknown: MEM_LLC_ASSUMED): a cache bandwidth is the core's, judged as
 * such by the runner.
 */
#define MEM_LLC_ASSUMED (32ULL << 20)
void mem_bandwidth_offer(struct result *res, double triad, unsigned threads, unsigned ran, int ncpu,
			 uint64_t bytes, uint64_t llc_bytes);

#endif
