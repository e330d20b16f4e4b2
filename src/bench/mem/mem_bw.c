/* SPDX-License-Identifier: MIT */
/*
 * Memory bandwidth and load latency; see mem_bw.h.
 *
 * Bandwidth. Three arrays a, b, c of doubles, each 4 x the last-level
 * cache or more, so every pass streams from and to DRAM. One pass runs
 * six kernels in this order, each timed on its own:
 *	write  a[i] = 1.0			 8 bytes per element
 *	read   sum of a[i] as 64-bit integers	 8
 *	copy   c[i] = a[i]			16
 *	scale  b[i] = 3.0 * c[i]		16
 *	add    c[i] = a[i] + b[i]		24
 *	triad  a[i] = b[i] + 3.0 * c[i]		24
 * The byte counts are STREAM's: what the source names, not the extra
 * read a write-allocate cache does before a store. The compiler is told
 * not to turn the loops into memset/memcpy calls (libc's may switch to
 * non-temporal stores, which would change what is measured). With
 * --threads N each thread runs its slice of every kernel; the time is
 * the wall time from releasing the workers to the last one done. After
 * the passes, a == 15, b == 3 and c == 4 everywhere and every read
 * pass's sum is known: both are checked.
 *
 * Latency. For each working-set size, the 64-byte lines of the set are
 * linked into one cycle in random order (a shuffled list of line
 * indices), and a chain of dependent loads p = *p walks it: each load's
 * address comes from the previous one, so the time per load is the
 * latency of wherever the line is (L1, L2, LLC, DRAM). Random order
 * defeats the prefetchers; it also touches a new page on most hops of a
 * large set, so those figures include TLB misses (like lmbench's
 * lat_mem_rd -t).
 */
#include "mem_bw.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/mem/mem_ladder.h"
#include "lib/units.h"
#include "core/clock.h"
#include "core/progress.h"
#include "core/sysinfo.h"
#include "lib/xalloc.h"

#if defined(__clang__)
#define NO_LIBCALLS __attribute__((no_builtin("memcpy", "memset")))
#elif defined(__GNUC__)
#define NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define NO_LIBCALLS
#endif

#define AUTO_FLOOR (64ull << 20)
#define LLC_FALLBACK (32ull << 20)
#define SCALE_FLOOR (1ull << 20)	/* scaled-down sizes stop here */
#define MAX_THREADS 256
#define STAGGER (17 * 64)	/* bytes between the arrays: 17 cache lines */

/* ---- caches ---------------------------------------------------------------- */

static bool read_small(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

void mem_caches_read(const char *sys_root, struct mem_caches *c)
{
	size_t len = 0;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 16; i++) {
		char path[512], level[16], type[32], size[32];
		uint64_t bytes;
		int lv, n;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cache/index%d/level", sys_root, i);
		if (!read_small(path, level, sizeof(level)))
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cache/index%d/type", sys_root, i);
		if (!read_small(path, type, sizeof(type)))
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cache/index%d/size", sys_root, i);
		if (!read_small(path, size, sizeof(size)) || units_parse_size(size, &bytes))
			continue;
		lv = atoi(level);
		n = snprintf(c->text + len, sizeof(c->text) - len, "%sL%d%s %s", len ? ", " : "", lv,
			     !strcmp(type, "Data") ? "d" : !strcmp(type, "Instruction") ? "i" : "", size);
		if (n > 0 && (size_t)n < sizeof(c->text) - len)
			len += (size_t)n;
		if (strcmp(type, "Instruction") && (lv > c->llc_level || (lv == c->llc_level && bytes > c->llc_bytes))) {
			c->llc_level = lv;
			c->llc_bytes = bytes;
		}
	}
}

/* 4 x the LLC (or 4 x 32 MiB when unknown), at least 64 MiB, rounded up to a power of two. */
static uint64_t auto_size(const struct mem_caches *c)
{
	uint64_t want = 4 * (c->llc_bytes ? c->llc_bytes : LLC_FALLBACK), v = AUTO_FLOOR;

	while (v < want)
		v <<= 1;
	return v;
}

/*
 * What may be allocated without swapping: available memory minus the
 * margin, a share of the effective memory (the cgroup limit when that is
 * smaller than MemTotal: 5 % of a 24 GiB host would leave nothing of 64 MiB).
 */
static bool budget(unsigned margin_pct, uint64_t *out, char *why, size_t len)
{
	struct proc_meminfo mi;
	struct sysinfo si;
	struct sysinfo_opts so = { "/proc", "/sys", false, false };
	uint64_t avail, of;
	char b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN];

	if (!mem_read_meminfo(&mi))
		return false;
	avail = mi.mem_available;
	of = mi.mem_total;
	if (sysinfo_collect(&si, &so) == 0) {
		if (si.mem.effective_bytes > 0 && (uint64_t)si.mem.effective_bytes < avail)
			avail = (uint64_t)si.mem.effective_bytes;
		if (si.mem.effective_bytes > 0 && (uint64_t)si.mem.effective_bytes < of)
			of = (uint64_t)si.mem.effective_bytes;
		sysinfo_release(&si);
	}
	*out = mem_budget(avail, 0, margin_pct, of);
	snprintf(why, len, "available %s - %u %% of %s = %s", units_fmt_bytes(b1, sizeof(b1), avail), margin_pct,
		 of < mi.mem_total ? "the memory limit" : "MemTotal", units_fmt_bytes(b2, sizeof(b2), *out));
	return true;
}

/*
 * An automatic size halved until PARTS sixteenths of it fit in LIMIT (not
 * below SCALE_FLOOR); the note says so when it shrank.
 */
static uint64_t scale_down(uint64_t bytes, unsigned parts, uint64_t limit, const char *what, const char *why,
			   struct result *res)
{
	uint64_t want = bytes;
	char b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN];

	while (bytes > SCALE_FLOOR && bytes / 16 * parts > limit)
		bytes /= 2;
	if (bytes < want)
		result_note(res, "scaled down to fit the memory budget: %s %s instead of %s (%s)", what,
			    units_fmt_bytes(b1, sizeof(b1), bytes), units_fmt_bytes(b2, sizeof(b2), want), why);
	return bytes;
}

static void *map_big(uint64_t bytes)
{
	void *p;

	if ((size_t)bytes != bytes) {	/* mmap takes a size_t: a 32-bit address space */
		errno = ENOMEM;
		return NULL;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* AnonHugePages of this process in bytes; UINT64_MAX when unknown. */
static uint64_t anon_huge_bytes(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "re");
	char line[256];
	unsigned long long kb;
	uint64_t v = UINT64_MAX;

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			v = (uint64_t)kb * 1024;
	fclose(f);
	return v;
}

static void thp_param(struct result *res)
{
	char mode[128];

	if (read_small("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof(mode)))
		result_param(res, "transparent_hugepages", "%s", mode);
}

/* ---- bandwidth ------------------------------------------------------------- */

enum kernel { K_WRITE, K_READ, K_COPY, K_SCALE, K_ADD, K_TRIAD, K_N };

static const struct {
	const char *name;
	const char *label;
	unsigned words;
} kinfo[K_N] = {
	{ "write", "write: a = 1.0 (8 B/element)", 1 },
	{ "read", "read: sum of a (8 B/element)", 1 },
	{ "copy", "copy: c = a (16 B/element)", 2 },
	{ "scale", "scale: b = 3.0 * c (16 B/element)", 2 },
	{ "add", "add: c = a + b (24 B/element)", 3 },
	{ "triad", "triad: a = b + 3.0 * c (24 B/element)", 3 },
};

#define SCALAR 3.0

struct bw_ctx {
	double *a, *b, *c;
	size_t n;
	unsigned nthreads;	/* slices: the main thread plus the workers */
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned gen;		/* bumped by the main thread to start a kernel */
	unsigned ndone;		/* workers finished with this generation */
	int kernel;
	bool quit;
	uint64_t sums[MAX_THREADS];
};

NO_LIBCALLS static uint64_t run_kernel(struct bw_ctx *x, int k, size_t lo, size_t hi)
{
	double *restrict a = x->a, *restrict b = x->b, *restrict c = x->c;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i;

	switch (k) {
	case K_WRITE:
		for (i = lo; i < hi; i++)
			a[i] = 1.0;
		break;
	case K_READ: {
		const uint64_t *w = (const uint64_t *)(const void *)a;

		for (i = lo; i + 3 < hi; i += 4) {
			s0 += w[i];
			s1 += w[i + 1];
			s2 += w[i + 2];
			s3 += w[i + 3];
		}
		for (; i < hi; i++)
			s0 += w[i];
		break;
	}
	case K_COPY:
		for (i = lo; i < hi; i++)
			c[i] = a[i];
		break;
	case K_SCALE:
		for (i = lo; i < hi; i++)
			b[i] = SCALAR * c[i];
		break;
	case K_ADD:
		for (i = lo; i < hi; i++)
			c[i] = a[i] + b[i];
		break;
	case K_TRIAD:
		for (i = lo; i < hi; i++)
			a[i] = b[i] + SCALAR * c[i];
		break;
	}
	return s0 + s1 + s2 + s3;
}

static void slice(const struct bw_ctx *x, unsigned t, size_t *lo, size_t *hi)
{
	*lo = x->n * t / x->nthreads;
	*hi = x->n * (t + 1) / x->nthreads;
}

struct bw_worker {
	struct bw_ctx *x;
	unsigned t;
};

/* A worker: waits for a new generation, runs its slice of the kernel, reports done. */
static void *bw_thread(void *arg)
{
	struct bw_worker *w = arg;
	struct bw_ctx *x = w->x;
	unsigned seen = 0;
	size_t lo, hi;

	slice(x, w->t, &lo, &hi);
	for (;;) {
		int k;

		pthread_mutex_lock(&x->mu);
		while (x->gen == seen && !x->quit)
			pthread_cond_wait(&x->go, &x->mu);
		if (x->quit) {
			pthread_mutex_unlock(&x->mu);
			break;
		}
		seen = x->gen;
		k = x->kernel;
		pthread_mutex_unlock(&x->mu);
		x->sums[w->t] = run_kernel(x, k, lo, hi);
		pthread_mutex_lock(&x->mu);
		x->ndone++;
		pthread_cond_signal(&x->done);
		pthread_mutex_unlock(&x->mu);
	}
	return NULL;
}

/*
 * Runs kernel K on all slices; returns the wall time in ns from releasing
 * the workers to the last one finishing, and the read sum in *SUM.
 */
static uint64_t timed_kernel(struct bw_ctx *x, int k, uint64_t *sum)
{
	size_t lo, hi;
	mono_ns t0, t1;

	if (x->nthreads > 1) {
		pthread_mutex_lock(&x->mu);
		x->kernel = k;
		x->ndone = 0;
		x->gen++;
		pthread_cond_broadcast(&x->go);
		pthread_mutex_unlock(&x->mu);
	}
	t0 = clock_mono();
	slice(x, 0, &lo, &hi);
	x->sums[0] = run_kernel(x, k, lo, hi);
	if (x->nthreads > 1) {
		pthread_mutex_lock(&x->mu);
		while (x->ndone < x->nthreads - 1)
			pthread_cond_wait(&x->done, &x->mu);
		pthread_mutex_unlock(&x->mu);
	}
	t1 = clock_mono();
	*sum = 0;
	for (unsigned t = 0; t < x->nthreads; t++)
		*sum += x->sums[t];
	return elapsed_ns(t0, t1);
}

static void stop_workers(struct bw_ctx *x, pthread_t *tid, unsigned started)
{
	pthread_mutex_lock(&x->mu);
	x->quit = true;
	pthread_cond_broadcast(&x->go);
	pthread_mutex_unlock(&x->mu);
	for (unsigned t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
}

static bool bw_check(const struct bw_ctx *x, size_t *bad)
{
	for (size_t i = 0; i < x->n; i++) {
		if (x->a[i] != 15.0 || x->b[i] != 3.0 || x->c[i] != 4.0) {
			*bad = i;
			return false;
		}
	}
	return true;
}

void mem_bandwidth_run(const struct bench_env *env, const struct mem_bw_cfg *cfg, struct result *res)
{
	struct mem_caches caches;
	struct bw_ctx *x;
	pthread_t tid[MAX_THREADS];
	struct bw_worker w[MAX_THREADS];
	uint64_t bytes, limit, best[K_N], one_bits, sum;
	unsigned started = 1, passes_done = 0;
	char why[160], b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN];
	bool sum_ok = true;
	size_t bad;
	double one = 1.0;
	unsigned char *map = NULL;

	result_set_step(res, "bandwidth");
	mem_caches_read("/sys", &caches);
	if (!budget(cfg->margin_pct, &limit, why, sizeof(why))) {
		result_set_status(res, RESULT_FAILED, "cannot read /proc/meminfo");
		return;
	}
	bytes = cfg->array_bytes ? cfg->array_bytes : auto_size(&caches);
	if (!cfg->array_bytes && !cfg->force)
		bytes = scale_down(bytes, 3 * 16, limit, "each array", why, res);
	bytes = bytes / sizeof(double) * sizeof(double);
	if (bytes / sizeof(double) < cfg->threads)
		bytes = cfg->threads * sizeof(double);
	result_param(res, "array_bytes", "%llu", (unsigned long long)bytes);
	result_param(res, "arrays", "3 x %s of doubles = %s", units_fmt_bytes(b1, sizeof(b1), bytes),
		     units_fmt_bytes(b2, sizeof(b2), 3 * bytes));
	result_param(res, "threads", "%u", cfg->threads);
	result_param(res, "passes", "%u timed (best kept) after 1 warm-up", cfg->passes);
	result_param(res, "caches", "%s", caches.text[0] ? caches.text : "unknown (sysfs has no cache info)");
	thp_param(res);
	result_method(res, "kernels", "STREAM-like (not STREAM): write, read, copy, scale, add, triad over "
		      "double arrays, each timed alone with CLOCK_MONOTONIC");
	result_method(res, "bytes", "counted as the source names them (STREAM's convention: 8, 8, 16, 16, 24, "
		      "24 B per element); write-allocate traffic is not counted");
	result_method(res, "sizing", "%s", cfg->array_bytes ? "--size per array"
			      : caches.llc_bytes ? "each array 4 x the last-level cache (sysfs), at least 64 MiB, "
						   "a power of two"
					       : "each array 128 MiB (cache size unknown: 4 x 32 MiB assumed)");
	result_method(res, "loops", "plain loops (compiler may vectorise), no memset/memcpy, no non-temporal "
		      "stores; with threads each runs its slice, timed from release to the last one done");
	result_method(res, "rate", "best of the timed passes, bytes / time, 1 MB/s = 10^6 B/s in compare/mem");
	if (caches.llc_bytes && bytes < 4 * caches.llc_bytes)
		result_note(res, "arrays smaller than 4 x the last-level cache (%s): partly a cache bandwidth",
			    units_fmt_bytes(b1, sizeof(b1), caches.llc_bytes));

	if (3 * bytes > limit && !cfg->force) {
		result_set_status(res, RESULT_SKIPPED, "the arrays (%s) are more than the budget: %s; --force runs "
				  "them anyway", units_fmt_bytes(b1, sizeof(b1), 3 * bytes), why);
		return;
	}
	x = xcalloc(1, sizeof(*x));
	x->n = bytes / sizeof(double);
	x->nthreads = cfg->threads;
	/*
	 * One mapping, the arrays staggered by STAGGER bytes: three separate
	 * mappings start at the same offset within a page, and a load whose
	 * address matches a pending store's in the low 12 bits waits for it
	 * ("4K aliasing"), which halved copy's rate here.
	 */
	map = map_big(3 * bytes + 3 * STAGGER);
	if (map) {
		x->a = (double *)(void *)map;
		x->b = (double *)(void *)(map + bytes + STAGGER);
		x->c = (double *)(void *)(map + 2 * (bytes + STAGGER));
	}
	if (!map) {
		result_set_status(res, RESULT_FAILED, "cannot map 3 arrays of %s: %s",
				  units_fmt_bytes(b1, sizeof(b1), bytes), strerror(errno));
		goto out;
	}
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->go, NULL);
	pthread_cond_init(&x->done, NULL);
	for (unsigned t = 1; t < cfg->threads; t++) {
		w[t] = (struct bw_worker){ x, t };
		if (pthread_create(&tid[t], NULL, bw_thread, &w[t]))
			break;
		started++;
	}
	if (started < cfg->threads) {
		result_set_status(res, RESULT_FAILED, "cannot start thread %u of %u", started + 1, cfg->threads);
		goto join;
	}
	memcpy(&one_bits, &one, sizeof(one));
	for (int k = 0; k < K_N; k++)
		best[k] = UINT64_MAX;
	for (unsigned pass = 0; pass <= cfg->passes && !*env->stop; pass++) {
		for (int k = 0; k < K_N; k++) {
			uint64_t ns = timed_kernel(x, k, &sum);

			if (k == K_READ && sum != one_bits * (uint64_t)x->n)
				sum_ok = false;
			if (pass > 0 && ns && ns < best[k])
				best[k] = ns;
		}
		if (pass > 0)
			passes_done++;
		progress_update(env->progress, clock_mono(), pass + 1, cfg->passes + 1, "bandwidth");
	}
join:
	stop_workers(x, tid, started);
	pthread_cond_destroy(&x->go);
	pthread_cond_destroy(&x->done);
	pthread_mutex_destroy(&x->mu);
	if (res->status != RESULT_OK)
		goto out;
	if (passes_done < cfg->passes) {
		result_set_incomplete(res);
		result_note(res, "stopped early: %u of %u timed passes", passes_done, cfg->passes);
	}
	for (int k = 0; k < K_N && passes_done; k++)
		result_metric(res, kinfo[k].name, UNIT_BYTES_PER_S,
			      (double)(kinfo[k].words * sizeof(double) * x->n) / ((double)best[k] / 1e9), kinfo[k].label);
	if (passes_done) {
		result_headline(res, "triad");
		mem_bandwidth_offer(res, (double)(kinfo[K_TRIAD].words * sizeof(double) * x->n) /
					 ((double)best[K_TRIAD] / 1e9), cfg->threads, env->ncpu, bytes, caches.llc_bytes);
	}
	if (passes_done && !*env->stop && !bw_check(x, &bad))
		result_set_status(res, RESULT_FAILED, "array check failed at element %zu (a %g b %g c %g, expected 15 3 4)",
				  bad, x->a[bad], x->b[bad], x->c[bad]);
	else if (!sum_ok)
		result_set_status(res, RESULT_FAILED, "the read kernel's sum differs from the written data");
out:
	if (map)
		munmap(map, 3 * bytes + 3 * STAGGER);
	free(x);
}

void mem_bandwidth_offer(struct result *res, double triad, unsigned threads, int ncpu, uint64_t bytes,
			 uint64_t llc_bytes)
{
	char next[192];

	if (!isfinite(triad) || triad <= 0 || 3 * bytes <= (llc_bytes ? llc_bytes : MEM_LLC_ASSUMED))
		return;
	if (ncpu > 0 && threads >= (unsigned)ncpu) {
		result_verdict_candidate(res, "memory bandwidth", 1.0,
					 "every CPU streams already: only faster memory (more channels, a higher "
					 "transfer rate) would move it",
					 "DRAM bandwidth: %.1f GB/s (triad) with %u threads, one per CPU", triad / 1e9, threads);
		return;
	}
	if (threads == 1)
		snprintf(next, sizeof(next), "more threads (--threads %d) would show whether the one core's "
			 "outstanding misses or DRAM bound it", ncpu > 1 ? ncpu : 2);
	else
		snprintf(next, sizeof(next), "more threads (--threads %d) would show whether %u cores' outstanding "
			 "misses or DRAM bound it", ncpu > 0 ? ncpu : (int)(2 * threads), threads);
	result_verdict_candidate(res, "memory bandwidth", 1.0, next,
				 "%.1f GB/s (triad) with %u thread%s of %d CPUs: streaming loads and stores are the "
				 "method", triad / 1e9, threads, threads == 1 ? "" : "s", ncpu);
}

/* ---- latency --------------------------------------------------------------- */

#define LINE 64

/* Walks the chain N loads (a multiple of 16) from P; returns where it stopped. */
static void *chase(void *p, uint64_t n)
{
	void **q = p;

	for (uint64_t i = 0; i < n; i += 16) {
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
	}
	return q;
}

/* Links the NLINES lines of BUF into one random cycle; IDX is scratch of NLINES entries. */
static void link_cycle(unsigned char *buf, uint32_t *idx, uint64_t nlines, uint64_t *seed)
{
	for (uint64_t i = 0; i < nlines; i++)
		idx[i] = (uint32_t)i;
	for (uint64_t i = nlines - 1; i > 0; i--) {
		uint64_t j, x = *seed;
		uint32_t t;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		*seed = x;
		j = (x * 0x2545f4914f6cdd1dULL) % (i + 1);
		t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	for (uint64_t i = 0; i < nlines; i++)
		*(void **)(void *)(buf + (uint64_t)idx[i] * LINE) = buf + (uint64_t)idx[(i + 1) % nlines] * LINE;
}

void mem_latency_offer(struct result *res, double ns, double first_ns, uint64_t size, uint64_t llc_bytes)
{
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], where[128];
	bool dram;

	if (!isfinite(ns) || !size)
		return;
	if (llc_bytes) {
		dram = size > llc_bytes;
		if (dram)
			snprintf(where, sizeof(where), "%.0f x the %s last-level cache: DRAM",
				 (double)size / (double)llc_bytes, units_fmt_bytes(b, sizeof(b), llc_bytes));
		else
			snprintf(where, sizeof(where), "within the %s last-level cache",
				 units_fmt_bytes(b, sizeof(b), llc_bytes));
	} else {
		/* No cache sizes (many VMs): DRAM is an order of magnitude past L1. */
		dram = isfinite(first_ns) && first_ns > 0 && ns >= MEM_DRAM_LATENCY_RATIO * first_ns;
		snprintf(where, sizeof(where), "the last-level cache size is unknown; %.0f x the %.1f ns at 4 KiB: %s",
			 isfinite(first_ns) && first_ns > 0 ? ns / first_ns : NAN, first_ns, dram ? "DRAM" : "a cache");
	}
	result_verdict_candidate(res, dram ? "memory latency" : "cache latency", 1.0,
				 "the figure is the latency itself: independent loads (--bandwidth) show how many misses "
				 "the memory system overlaps",
				 "%.1f ns per load at a %s working set (%s); each load waits for the previous one "
				 "(pointer chase)", ns, units_fmt_bytes(a, sizeof(a), size), where);
}

void mem_latency_run(const struct bench_env *env, const struct mem_lat_cfg *cfg, struct result *res)
{
	struct mem_caches caches;
	uint64_t maxb, limit, seed = 0x9e3779b97f4a7c15ULL, sizes[80], largest = 0;
	size_t nsizes = 0;
	unsigned char *buf;
	uint32_t *idx;
	volatile uintptr_t sink = 0;
	char why[160], b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN], name[48], label[64];
	double last = NAN, first = NAN;
	uint64_t thp_before, thp_after;

	result_set_step(res, "latency");
	mem_caches_read("/sys", &caches);
	if (!budget(cfg->margin_pct, &limit, why, sizeof(why))) {
		result_set_status(res, RESULT_FAILED, "cannot read /proc/meminfo");
		return;
	}
	maxb = cfg->max_bytes ? cfg->max_bytes : auto_size(&caches);
	if (!cfg->max_bytes && !cfg->force)	/* the set and its index: 17/16 of it */
		maxb = scale_down(maxb, 17, limit, "largest working set", why, res);
	for (uint64_t s = 4096; s <= maxb && nsizes + 2 <= sizeof(sizes) / sizeof(sizes[0]); s <<= 1) {
		sizes[nsizes++] = s;
		if (s + s / 2 <= maxb)
			sizes[nsizes++] = s + s / 2;
	}
	result_param(res, "sizes", "4 KiB to %s, powers of two and 1.5 x each (%zu sizes)",
		     units_fmt_bytes(b1, sizeof(b1), sizes[nsizes - 1]), nsizes);
	result_param(res, "passes", "%u runs per size, best kept", cfg->passes);
	result_param(res, "caches", "%s", caches.text[0] ? caches.text : "unknown (sysfs has no cache info)");
	thp_param(res);
	result_method(res, "chase", "dependent loads p = *p over one random cycle through every 64-byte line of "
		      "the working set (lat_mem_rd-like; random order defeats the prefetchers), 16 loads per loop "
		      "iteration; the buffer asks for transparent huge pages (MADV_HUGEPAGE) so that TLB misses "
		      "do not hide the cache levels: where it gets none, large sets include TLB misses");
	result_method(res, "timing", "CLOCK_MONOTONIC over at least 2^18 loads (at most 2^22) after one warm-up "
		      "walk of the set; ns per load = time / loads, best of the runs");
	maxb = sizes[nsizes - 1];
	if (maxb + maxb / LINE * sizeof(uint32_t) > limit && !cfg->force) {
		result_set_status(res, RESULT_SKIPPED, "a %s working set is more than the budget: %s; --force runs "
				  "it anyway", units_fmt_bytes(b1, sizeof(b1), maxb), why);
		return;
	}
	buf = map_big(maxb);
	idx = map_big(maxb / LINE * sizeof(uint32_t));
	if (!buf || !idx) {
		result_set_status(res, RESULT_FAILED, "cannot map a %s working set: %s",
				  units_fmt_bytes(b1, sizeof(b1), maxb), strerror(errno));
		goto out;
	}
	thp_before = anon_huge_bytes();
	(void)madvise(buf, maxb, MADV_HUGEPAGE);
	for (size_t i = 0; i < nsizes && !*env->stop; i++) {
		uint64_t nlines = sizes[i] / LINE, loads = nlines, best = UINT64_MAX;
		void *p;

		link_cycle(buf, idx, nlines, &seed);
		if (loads < (1u << 18))
			loads = 1u << 18;
		if (loads > (1u << 22))
			loads = 1u << 22;
		loads = (loads + 15) / 16 * 16;
		p = chase(buf, (nlines + 15) / 16 * 16);
		for (unsigned r = 0; r < cfg->passes && !*env->stop; r++) {
			mono_ns t0 = clock_mono();
			uint64_t ns;

			p = chase(p, loads);
			ns = elapsed_ns(t0, clock_mono());
			if (ns < best)
				best = ns;
		}
		sink += (uintptr_t)p;
		if (best == UINT64_MAX)
			break;
		last = (double)best / (double)loads;
		largest = sizes[i];
		snprintf(name, sizeof(name), "lat_%lluk", (unsigned long long)(sizes[i] / 1024));
		snprintf(label, sizeof(label), "load latency, %s working set", units_fmt_bytes(b1, sizeof(b1), sizes[i]));
		result_metric(res, name, UNIT_NS, last, label)->higher_is_better = false;
		if (i == 0)
			first = last;
		progress_update(env->progress, clock_mono(), i + 1, nsizes, "latency");
	}
	thp_after = anon_huge_bytes();
	if (thp_before != UINT64_MAX && thp_after != UINT64_MAX)
		result_param(res, "huge_pages", "%s of the %s buffer in transparent huge pages (AnonHugePages of "
			     "/proc/self/smaps_rollup)", units_fmt_bytes(b1, sizeof(b1),
			     thp_after > thp_before ? thp_after - thp_before : 0), units_fmt_bytes(b2, sizeof(b2), maxb));
	if (largest) {
		snprintf(label, sizeof(label), "largest set (%s): DRAM", units_fmt_bytes(b1, sizeof(b1), largest));
		result_metric(res, "lat_largest", UNIT_NS, last, label)->higher_is_better = false;
		result_headline(res, "lat_largest");
		mem_latency_offer(res, last, first, largest, caches.llc_bytes);
	}
	if (largest != sizes[nsizes - 1]) {
		result_set_incomplete(res);
		result_note(res, "stopped early: sizes up to %s measured", units_fmt_bytes(b1, sizeof(b1), largest));
	}
	if (caches.llc_bytes && largest && largest < 4 * caches.llc_bytes)
		result_note(res, "the largest set is below 4 x the last-level cache: the curve may not reach DRAM");
out:
	if (buf)
		munmap(buf, maxb);
	if (idx)
		munmap(idx, maxb / LINE * sizeof(uint32_t));
}
