/* SPDX-License-Identifier: MIT */
/*
 * Memory bandwidth and load latency; see mem_bw.h.
 *
 * Bandwidth. Three arrays a, b, c of doubles, each 4 x the last-level
 * cache or more, so every pass streams from and to DRAM. Eight kernels
 * run in this order, each its warm-up pass and its timed passes back to
 * back (as sysbench, mbw and lmbench's bw_mem repeat one operation), so
 * that a kernel's figure does not depend on the cache state the kernel
 * before it left (non-temporal stores over lines another kernel left
 * dirty in the cache ran at 60 % of their steady rate when every pass ran
 * all eight kernels in turn, STREAM's order); each pass is timed on its own:
 *	write_nt  a[i] = 1.0, non-temporal stores	 8 bytes per element
 *	write     a[i] = 1.0				 8
 *	read      sum of a[i] as 64-bit integers	 8
 *	copy_nt   c[i] = a[i], non-temporal stores	16
 *	copy      c[i] = a[i]				16
 *	scale     b[i] = 3.0 * c[i]			16
 *	add       c[i] = a[i] + b[i]			24
 *	triad     a[i] = b[i] + 3.0 * c[i]		24
 * write, read and copy are mem_simd.c's kernels for the chosen
 * instruction set (the _nt ones only where it has streaming stores); the
 * last three are plain loops. The byte counts are STREAM's: what the
 * source names, not the extra read a write-allocate cache does before a
 * store. With --threads N > 1 each kernel runs its passes on one thread
 * over the whole arrays, then its passes on N threads pinned one per CPU,
 * each on its slice: they leave a barrier together and each times itself; the total
 * is all bytes over the window from the first start to the last end.
 * After the passes, a == 15, b == 3 and c == 4 everywhere and every read
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
#include "bench/mem/mem_simd.h"
#include "core/kernel/affinity.h"
#include "lib/units.h"
#include "core/base/clock.h"
#include "core/kernel/proc.h"
#include "core/base/progress.h"
#include "core/kernel/sysinfo.h"
#include "lib/xalloc.h"


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
	uint64_t kb, v = UINT64_MAX;

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (proc_kb_line(line, "AnonHugePages", &kb))
			v = kb * 1024;
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

enum kernel { K_WRITE_NT, K_WRITE, K_READ, K_COPY_NT, K_COPY, K_SCALE, K_ADD, K_TRIAD, K_N };

static const struct {
	const char *name;
	const char *label;
	unsigned words;
} kinfo[K_N] = {
	{ "write_nt", "write, non-temporal stores: a = 1.0 (8 B/element)", 1 },
	{ "write", "write: a = 1.0 (8 B/element)", 1 },
	{ "read", "read: sum of a (8 B/element)", 1 },
	{ "copy_nt", "copy, non-temporal stores: c = a (16 B/element)", 2 },
	{ "copy", "copy: c = a (16 B/element)", 2 },
	{ "scale", "scale: b = 3.0 * c (16 B/element)", 2 },
	{ "add", "add: c = a + b (24 B/element)", 3 },
	{ "triad", "triad: a = b + 3.0 * c (24 B/element)", 3 },
};

#define SCALAR 3.0

/* The kernels with a figure per thread and a single- vs multi-thread judgement: the three. */
static bool per_thread_kernel(int k)
{
	return k == K_READ || k == K_WRITE || k == K_COPY;
}

struct bw_thread_times {
	mono_ns t0, t1;
	uint64_t sum;
};

struct bw_ctx {
	double *a, *b, *c;
	size_t n;
	const struct mem_kernels *kern;
	uint64_t one_bits;	/* 1.0 as a 64-bit word: what the write kernels store */
	unsigned nthreads;	/* of the multi-thread phase: the main thread plus the workers */
	pthread_barrier_t start, stop;
	int kernel;
	bool quit;
	int cpu[MAX_THREADS];	/* thread t's CPU; -1 unpinned */
	struct bw_thread_times tt[MAX_THREADS];
};

MEM_NO_LIBCALLS static uint64_t run_kernel(const struct bw_ctx *x, int k, size_t lo, size_t hi)
{
	double *restrict a = x->a, *restrict b = x->b, *restrict c = x->c;
	uint64_t one = x->one_bits;
	size_t i;

	switch (k) {
	case K_WRITE_NT:
		x->kern->write_nt((uint64_t *)(void *)(a + lo), hi - lo, one);
		break;
	case K_WRITE:
		x->kern->write((uint64_t *)(void *)(a + lo), hi - lo, one);
		break;
	case K_READ:
		return x->kern->read((const uint64_t *)(const void *)(a + lo), hi - lo);
	case K_COPY_NT:
		x->kern->copy_nt((uint64_t *)(void *)(c + lo), (const uint64_t *)(const void *)(a + lo), hi - lo);
		break;
	case K_COPY:
		x->kern->copy((uint64_t *)(void *)(c + lo), (const uint64_t *)(const void *)(a + lo), hi - lo);
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
	return 0;
}

static bool kernel_present(const struct bw_ctx *x, int k)
{
	return (k != K_WRITE_NT || x->kern->write_nt) && (k != K_COPY_NT || x->kern->copy_nt);
}

static void slice(const struct bw_ctx *x, unsigned t, size_t *lo, size_t *hi)
{
	*lo = x->n * t / x->nthreads;
	*hi = x->n * (t + 1) / x->nthreads;
}

/* Thread T's part of one multi-thread kernel: start barrier, own clock around its slice, stop barrier. */
static void bw_slice_run(struct bw_ctx *x, unsigned t)
{
	size_t lo, hi;

	slice(x, t, &lo, &hi);
	x->tt[t].t0 = clock_mono();
	x->tt[t].sum = run_kernel(x, x->kernel, lo, hi);
	x->tt[t].t1 = clock_mono();
}

struct bw_worker {
	struct bw_ctx *x;
	unsigned t;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)!affinity_pin_self(&set);	/* unpinned still measures; the param names the CPUs asked for */
}

/* A worker: pinned to its CPU, runs its slice of every kernel the main thread releases. */
static void *bw_thread(void *arg)
{
	struct bw_worker *w = arg;
	struct bw_ctx *x = w->x;

	pin_to(x->cpu[w->t]);
	for (;;) {
		pthread_barrier_wait(&x->start);
		if (x->quit)
			break;
		bw_slice_run(x, w->t);
		pthread_barrier_wait(&x->stop);
	}
	return NULL;
}

/*
 * Runs kernel K over the whole arrays on the main thread alone; returns the
 * time in ns and the read sum in *SUM.
 */
static uint64_t timed_single(struct bw_ctx *x, int k, uint64_t *sum)
{
	mono_ns t0 = clock_mono();

	*sum = run_kernel(x, k, 0, x->n);
	return elapsed_ns(t0, clock_mono());
}

/*
 * Runs kernel K on all x->nthreads slices at once (the main thread is
 * slice 0): all threads leave a barrier together and each times its own
 * slice. Returns the window from the first start to the last end in ns,
 * and the read sum in *SUM; x->tt holds each thread's times.
 */
static uint64_t timed_multi(struct bw_ctx *x, int k, uint64_t *sum)
{
	mono_ns first, last;

	x->kernel = k;
	pthread_barrier_wait(&x->start);
	bw_slice_run(x, 0);
	pthread_barrier_wait(&x->stop);
	first = x->tt[0].t0;
	last = x->tt[0].t1;
	*sum = 0;
	for (unsigned t = 0; t < x->nthreads; t++) {
		if (x->tt[t].t0 < first)
			first = x->tt[t].t0;
		if (x->tt[t].t1 > last)
			last = x->tt[t].t1;
		*sum += x->tt[t].sum;
	}
	return elapsed_ns(first, last);
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

/* The CPUs of this thread's affinity set in order into CPU (up to MAX); returns how many (0 unknown). */
static unsigned allowed_cpus(int *cpu, unsigned max)
{
	cpu_set_t set;
	unsigned n = 0;

	if (affinity_get_self(&set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

unsigned mem_bandwidth_all_threads(void)
{
	int cpu[MAX_THREADS];
	unsigned n = allowed_cpus(cpu, MAX_THREADS);

	return n ? n : 1;
}

static int cmp_u64(const void *p, const void *q)
{
	uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;

	return a < b ? -1 : a > b;
}

/* The relative spread of the passes' times NS[0..N): (median - best) / median; 0 for fewer than 2. */
static double pass_spread(uint64_t *ns, unsigned n)
{
	uint64_t med;

	if (n < 2)
		return 0;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	med = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
	return med ? (double)(med - ns[0]) / (double)med : 0;
}

#define NOISE_FLOOR 0.02	/* below this a difference is never called beyond noise */

struct bw_phase {
	uint64_t best[K_N];
	uint64_t *ns[K_N];	/* every timed pass's time */
	unsigned done[K_N];	/* timed passes run */
	struct bw_thread_times best_tt[K_N][MAX_THREADS];	/* the threads' times in the best pass */
};

/* Records pass NS of kernel K in phase P (pass index I); keeps the threads' times of the best. */
static void phase_record(struct bw_phase *p, const struct bw_ctx *x, int k, unsigned i, uint64_t ns, bool multi)
{
	p->ns[k][i] = ns;
	p->done[k] = i + 1;
	if (ns && ns < p->best[k]) {
		p->best[k] = ns;
		if (multi)
			memcpy(p->best_tt[k], x->tt, sizeof(x->tt[0]) * x->nthreads);
	}
}

/*
 * Kernel K's warm-up and up to PASSES timed passes back to back, on the
 * main thread alone or (MULTI) on all threads, recorded in P: the first
 * timed pass always, each further one only when a pass as long as the
 * last still ends before DEADLINE. Stops early when STOP is set. Returns
 * false when a read sum differs from the data written.
 */
static bool run_passes(struct bw_ctx *x, struct bw_phase *p, int k, unsigned passes, bool multi, mono_ns deadline,
		       const volatile sig_atomic_t *stop)
{
	bool ok = true;
	uint64_t ns = 0;

	for (unsigned pass = 0; pass <= passes && !*stop; pass++) {
		uint64_t sum;

		if (pass > 1 && clock_mono() + ns > deadline)
			break;
		ns = multi ? timed_multi(x, k, &sum) : timed_single(x, k, &sum);
		if (k == K_READ && sum != x->one_bits * (uint64_t)x->n)
			ok = false;
		if (pass > 0)
			phase_record(p, x, k, pass - 1, ns, multi);
	}
	return ok;
}

static double rate(const struct bw_ctx *x, int k, uint64_t ns, size_t elems)
{
	(void)x;
	return (double)(kinfo[k].words * sizeof(double) * elems) / ((double)ns / 1e9);
}

/*
 * A note when the threads of the best read pass ran together for less
 * than 90 % of its window (other work held a CPU): the total then
 * understates what the threads move together.
 */
static void overlap_note(struct result *res, const struct bw_ctx *x, const struct bw_thread_times *tt)
{
	mono_ns first = tt[0].t0, last = tt[0].t1, late = tt[0].t0, early = tt[0].t1;
	double share;

	for (unsigned t = 1; t < x->nthreads; t++) {
		first = tt[t].t0 < first ? tt[t].t0 : first;
		late = tt[t].t0 > late ? tt[t].t0 : late;
		last = tt[t].t1 > last ? tt[t].t1 : last;
		early = tt[t].t1 < early ? tt[t].t1 : early;
	}
	if (last <= first)
		return;
	share = early > late ? (double)elapsed_ns(late, early) / (double)elapsed_ns(first, last) : 0;
	result_param(res, "threads_overlap", "%.0f %% of the best read pass's window had all threads running",
		     100 * share);
	if (share < 0.9)
		result_note(res, "the threads ran together for only %.0f %% of the read window (other work held a "
			    "CPU): the %u-thread totals understate; the per-thread figures are each thread's own",
			    100 * share, x->nthreads);
}

/*
 * The metrics of the multi-thread phase, and which phase is the memory's
 * figure per kernel; returns true when the multi-thread triad is.
 */
static bool report_multi(struct result *res, const struct bw_ctx *x, struct bw_phase *one, struct bw_phase *all)
{
	char name[48], label[96], judged[512];
	size_t len = 0;
	bool triad_multi = false;

	for (int k = 0; k < K_N; k++) {
		double r1, rn, noise;
		bool multi;
		int n;

		if (!kernel_present(x, k) || !all->done[k] || !one->done[k])
			continue;
		snprintf(name, sizeof(name), "%s_threads", kinfo[k].name);
		snprintf(label, sizeof(label), "%s, %u threads together", kinfo[k].label, x->nthreads);
		rn = rate(x, k, all->best[k], x->n);
		r1 = rate(x, k, one->best[k], x->n);
		result_metric(res, name, UNIT_BYTES_PER_S, rn, label);
		for (unsigned t = 0; per_thread_kernel(k) && t < x->nthreads; t++) {
			size_t lo, hi;
			const struct bw_thread_times *tt = &all->best_tt[k][t];

			slice(x, t, &lo, &hi);
			snprintf(name, sizeof(name), "%s_thread%u", kinfo[k].name, t);
			snprintf(label, sizeof(label), "%s, thread %u (CPU %d) of %u", kinfo[k].name, t, x->cpu[t],
				 x->nthreads);
			if (tt->t1 > tt->t0)
				result_metric(res, name, UNIT_BYTES_PER_S, rate(x, k, elapsed_ns(tt->t0, tt->t1), hi - lo),
					      label);
		}
		noise = fmax(pass_spread(one->ns[k], one->done[k]), pass_spread(all->ns[k], all->done[k]));
		if (noise < NOISE_FLOOR)
			noise = NOISE_FLOOR;
		multi = rn > r1 * (1 + noise);
		if (k == K_TRIAD)
			triad_multi = multi;
		if (!per_thread_kernel(k) && k != K_TRIAD)
			continue;
		n = snprintf(judged + len, sizeof(judged) - len, "%s%s %.2fx (noise %.1f %%): %s", len ? "; " : "",
			     kinfo[k].name, rn / r1, 100 * noise, multi ? "the threads'" : "one thread's");
		if (n > 0 && (size_t)n < sizeof(judged) - len)
			len += (size_t)n;
	}
	if (len)
		result_param(res, "memory_figure", "%u threads vs one, per kernel: %s", x->nthreads, judged);
	if (all->done[K_READ])
		overlap_note(res, x, all->best_tt[K_READ]);
	result_method(res, "memory_figure", "the memory's figure is the %u-thread one when it beats one thread's "
		      "by more than the noise (the larger of the two phases' (median - best) / median over the "
		      "passes, at least %.0f %%): one core cannot keep enough misses in flight to fill a server's "
		      "memory channels; otherwise one thread's (the extra threads add nothing the noise cannot "
		      "explain)", x->nthreads, 100 * NOISE_FLOOR);
	return triad_multi;
}

/* ---- fitting the time ------------------------------------------------------ */

#define BW_PROBE (16ull << 20)	/* per array: the first size the fit touches, runs and prices */
#define BW_MIN_PASSES 3		/* timed passes the fit leaves room for, after the warm-up */
#define FILL_PASSES 1000	/* with --time and no --passes: as many as fit, at most the option's limit */
#define PAGE 4096

/* Writes one byte of every page of P[FROM, TO): the first touch, paid in page faults and zeroing. */
static void touch(unsigned char *p, uint64_t from, uint64_t to)
{
	volatile unsigned char *v = p;

	for (uint64_t o = from; o < to; o += PAGE)
		v[o] = 0;
}

/* "512 MiB, 1 GiB" for the powers of two from FROM to TO (FROM > TO: ""), into BUF. */
static const char *pow2_list(char *buf, size_t len, uint64_t from, uint64_t to)
{
	size_t used = 0;
	char b[UNITS_FMT_LEN];

	buf[0] = '\0';
	for (uint64_t s = from; s && s <= to && used < len; s *= 2) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", units_fmt_bytes(b, sizeof(b), s));

		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

/* What the bandwidth fit saw and chose. */
struct bw_fit {
	uint64_t probe;			/* bytes per array of the first probe; 0 = no fit (--size) */
	double touch_ns_per_byte;	/* the first touch, over all it touched */
	double round_ns_per_byte;	/* one pass of every kernel at the size chosen, per byte of one array */
};

/* One pass of every kernel in order over X's arrays; returns the time in ns. */
static uint64_t bw_round(struct bw_ctx *x)
{
	uint64_t ns = 0, sum;

	for (int k = 0; k < K_N; k++)
		if (kernel_present(x, k))
			ns += timed_single(x, k, &sum);
	return ns;
}

/*
 * The arrays' size, for X mapped with room for WANT bytes per array: the
 * largest power of two from BW_PROBE (or WANT, if smaller) up to WANT
 * whose first touch and a warm-up plus BW_MIN_PASSES timed passes of
 * every kernel (PHASES times: one thread, then all) fit in 4/5 of the time
 * left before DEADLINE. It grows by doubling, each size priced from the
 * one before as measured: the arrays touched (page faults and zeroing,
 * timed) and every kernel run once over them. A doubling that takes the
 * three arrays out of the last-level cache (LLC; 0 unknown: 32 MiB
 * assumed) is priced at 3 x the bytes' cost, DRAM being that much slower
 * than a cache, any other at 1.25 x. Leaves the arrays touched, each
 * kernel run over them once, and x->n at the size; fills FIT.
 */
static uint64_t bw_fit(struct bw_ctx *x, uint64_t want, unsigned phases, uint64_t llc, mono_ns deadline,
		       struct bw_fit *fit)
{
	unsigned char *arr[3] = { (unsigned char *)x->a, (unsigned char *)x->b, (unsigned char *)x->c };
	uint64_t size = want < BW_PROBE ? want / sizeof(double) * sizeof(double) : BW_PROBE, touch_ns;
	double round;
	mono_ns t0 = clock_mono();

	if (!llc)
		llc = MEM_LLC_ASSUMED;
	for (int i = 0; i < 3; i++)
		touch(arr[i], 0, size);
	touch_ns = elapsed_ns(t0, clock_mono());
	fit->probe = size;
	for (;;) {
		uint64_t next = size * 2;
		double g, cost, per_touch = (double)touch_ns / (3.0 * (double)size);
		mono_ns now;

		x->n = size / sizeof(double);
		round = (double)bw_round(x);
		fit->round_ns_per_byte = round / (double)size;
		fit->touch_ns_per_byte = per_touch;
		now = clock_mono();
		if (next > want || now >= deadline)
			break;
		g = 3 * next > llc && 3 * size <= llc ? 3.0 : 1.25;
		cost = 3.0 * (double)size * per_touch + 2 * g * round * (1 + (1 + BW_MIN_PASSES) * (double)phases);
		if (cost > 0.8 * (double)(deadline - now))
			break;
		t0 = clock_mono();
		for (int i = 0; i < 3; i++)
			touch(arr[i], size, next);
		touch_ns += elapsed_ns(t0, clock_mono());
		size = next;
	}
	return size;
}

/* The method's "sizing": how the arrays came to their size, and the sizes that did not fit. */
static void bw_sizing_method(struct result *res, const struct mem_bw_cfg *cfg, const struct mem_caches *c,
			     const struct bw_fit *fit, uint64_t want, uint64_t bytes, uint64_t time_ns)
{
	char b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN], d[UNITS_FMT_LEN], list[256];

	pow2_list(list, sizeof(list), bytes * 2, want);
	if (cfg->array_bytes) {
		result_method(res, "sizing", "--size per array");
		return;
	}
	result_method(res, "sizing", "each array the largest power of two up to %s (%s, at least 64 MiB) whose "
		      "first touch and a warm-up and %d timed passes of every kernel fit in 4/5 of %s, grown by "
		      "doubling from %s, each size priced from the one before as measured (first touch %.2f ns/B; "
		      "every kernel once, %.2f ns per byte of one array at the size chosen; 3 x that per byte for the "
		      "doubling that leaves the last-level cache, 1.25 x for any other)%s%s",
		      units_fmt_bytes(b1, sizeof(b1), want),
		      c->llc_bytes ? "4 x the last-level cache from sysfs" : "4 x 32 MiB: the cache size is unknown",
		      BW_MIN_PASSES, units_fmt_duration(d, sizeof(d), time_ns),
		      units_fmt_bytes(b2, sizeof(b2), fit->probe), fit->touch_ns_per_byte, fit->round_ns_per_byte,
		      bytes < want ? "; did not fit: " : "", bytes < want ? list : "");
	if (bytes < want)
		result_note(res, "scaled down to fit the time: each array %s instead of %s (did not fit in %s: %s)",
			    units_fmt_bytes(b1, sizeof(b1), bytes), units_fmt_bytes(b2, sizeof(b2), want), d, list);
}

void mem_bandwidth_run(const struct bench_env *env, const struct mem_bw_cfg *cfg, struct result *res)
{
	mono_ns t0 = clock_mono(), deadline;
	struct mem_caches caches;
	struct bw_ctx *x;
	struct bw_phase *one = NULL, *all = NULL;
	struct bw_fit fit = { 0 };
	pthread_t tid[MAX_THREADS];
	struct bw_worker w[MAX_THREADS];
	uint64_t want, bytes, limit, one_bits, time_ns = cfg->time_ns ? cfg->time_ns : MEM_DEFAULT_TIME_NS;
	unsigned started = 1, nthreads, ncpus, nk = 0, kdone = 0, words_left = 0, fewest = UINT32_MAX, most = 0;
	unsigned passes = cfg->passes ? cfg->passes : cfg->time_ns ? FILL_PASSES : 10;
	char why[160], b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN], d1[UNITS_FMT_LEN];
	bool sum_ok = true, barriers = false, headline_multi = false;
	size_t bad;
	double v1 = 1.0;
	unsigned char *map = NULL;
	cpu_set_t saved;
	bool restore = false;

	deadline = t0 + time_ns;
	result_set_step(res, "bandwidth");
	x = xcalloc(1, sizeof(*x));
	x->kern = mem_simd_kernels(cfg->simd);
	if (!x->kern) {	/* mem.c refuses a path the CPU lacks; this is the library's own guard */
		result_set_status(res, RESULT_FAILED, "this CPU cannot run the %s kernels", mem_simd_names[cfg->simd]);
		free(x);
		return;
	}
	ncpus = allowed_cpus(x->cpu, MAX_THREADS);
	nthreads = cfg->threads ? cfg->threads : (ncpus ? ncpus : 1);
	for (unsigned t = 0; t < nthreads; t++)
		x->cpu[t] = ncpus ? x->cpu[t % ncpus] : -1;
	mem_caches_read(cfg->sys_root ? cfg->sys_root : "/sys", &caches);
	if (!budget(cfg->margin_pct, &limit, why, sizeof(why))) {
		result_set_status(res, RESULT_FAILED, "cannot read /proc/meminfo");
		free(x);
		return;
	}
	want = cfg->array_bytes ? cfg->array_bytes : auto_size(&caches);
	if (!cfg->array_bytes && !cfg->force)
		want = scale_down(want, 3 * 16, limit, "each array", why, res);
	want = want / sizeof(double) * sizeof(double);
	if (want / sizeof(double) < nthreads)
		want = nthreads * sizeof(double);
	if (cfg->threads)
		result_param(res, "threads", "%u", nthreads);
	else
		result_param(res, "threads", "%u (all: one per CPU of the affinity set)", nthreads);
	result_param(res, "simd", "%s", x->kern->name);
	result_param(res, "caches", "%s", caches.text[0] ? caches.text : "unknown (sysfs has no cache info)");
	result_param(res, "time", "%s%s", units_fmt_duration(d1, sizeof(d1), time_ns),
		     cfg->time_ns ? "" : " at most (no --time)");
	thp_param(res);
	result_method(res, "kernels", "STREAM-like (not STREAM): write (non-temporal and ordinary stores), read, "
		      "copy (non-temporal and ordinary stores), scale, add, triad over double arrays, each pass "
		      "timed alone with CLOCK_MONOTONIC");
	result_method(res, "order", "each kernel's warm-up and timed passes back to back, then the next kernel "
		      "(as sysbench and mbw repeat one operation): its own steady state, not the cache state the "
		      "kernel before left");
	result_method(res, "simd", "read, write and copy: %s (--simd %s; the widest path this CPU runs unless "
		      "--simd names one); scale, add, triad: plain loops the compiler may vectorise", x->kern->method,
		      cfg->simd == MEM_SIMD_AUTO ? "auto" : x->kern->name);
	result_method(res, "reads", "the read kernel adds every 64-bit word into four accumulators whose sum is "
		      "checked against the data written, so no load can be dropped");
	result_method(res, "stores", "write and copy use ordinary stores (a line is read into the cache before it "
		      "is written, as sysbench's plain stores do); write_nt and copy_nt use non-temporal streaming "
		      "stores (no read for ownership, past the caches), %s",
		      x->kern->write_nt ? "reported beside them" : "which this path has not: not measured");
	result_method(res, "bytes", "counted as the source names them (STREAM's convention: 8, 8, 16, 16, 24, "
		      "24 B per element); write-allocate traffic is not counted");
	if (nthreads > 1)
		result_method(res, "threads", "each kernel runs its passes on one thread over the whole arrays, then "
			      "its passes on %u threads together, each pinned to its own CPU and its own slice of the arrays; the "
			      "threads leave a barrier together, each times its slice, the total is all bytes over the "
			      "window from the first start to the last end (a thread finishing early counts as idle)",
			      nthreads);
	result_method(res, "rate", "best of the timed passes, bytes / time, 1 MB/s = 10^6 B/s in compare/mem");
	result_method(res, "time", "the step keeps %s (within %.1f s for mapping and unmapping): the time left "
		      "after sizing is shared among the kernels by the bytes they move, and a kernel runs another "
		      "timed pass while one as long as its last still fits its share (at least one; at most %u)",
		      units_fmt_duration(d1, sizeof(d1), time_ns), (double)MEM_ALLOWANCE_NS / 1e9, passes);

	if (3 * want > limit && !cfg->force) {
		result_set_status(res, RESULT_SKIPPED, "the arrays (%s) are more than the budget: %s; --force runs "
				  "them anyway", units_fmt_bytes(b1, sizeof(b1), 3 * want), why);
		free(x);
		return;
	}
	x->nthreads = nthreads;
	memcpy(&one_bits, &v1, sizeof(v1));
	x->one_bits = one_bits;
	/*
	 * One mapping, the arrays staggered by STAGGER bytes: three separate
	 * mappings start at the same offset within a page, and a load whose
	 * address matches a pending store's in the low 12 bits waits for it
	 * ("4K aliasing"), which halved copy's rate here. Each array has room
	 * for WANT bytes; the fit may use fewer (only what is touched is memory).
	 */
	map = map_big(3 * want + 3 * STAGGER);
	one = xcalloc(1, sizeof(*one));
	all = xcalloc(1, sizeof(*all));
	for (int k = 0; k < K_N; k++) {
		one->best[k] = all->best[k] = UINT64_MAX;
		one->ns[k] = xcalloc(passes, sizeof(uint64_t));
		all->ns[k] = xcalloc(passes, sizeof(uint64_t));
	}
	bytes = want;
	if (!map) {
		result_set_status(res, RESULT_FAILED, "cannot map 3 arrays of %s: %s",
				  units_fmt_bytes(b1, sizeof(b1), want), strerror(errno));
		goto out;
	}
	x->a = (double *)(void *)map;
	x->b = (double *)(void *)(map + want + STAGGER);
	x->c = (double *)(void *)(map + 2 * (want + STAGGER));
	x->n = want / sizeof(double);
	if (!cfg->array_bytes)
		bytes = bw_fit(x, want, nthreads > 1 ? 2 : 1, caches.llc_bytes, deadline, &fit);
	result_param(res, "array_bytes", "%llu", (unsigned long long)bytes);
	result_param(res, "arrays", "3 x %s of doubles = %s", units_fmt_bytes(b1, sizeof(b1), bytes),
		     units_fmt_bytes(b2, sizeof(b2), 3 * bytes));
	bw_sizing_method(res, cfg, &caches, &fit, want, bytes, time_ns);
	if (caches.llc_bytes && bytes < 4 * caches.llc_bytes)
		result_note(res, "arrays smaller than 4 x the last-level cache (%s): partly a cache bandwidth",
			    units_fmt_bytes(b1, sizeof(b1), caches.llc_bytes));
	if (nthreads > 1) {
		if (pthread_barrier_init(&x->start, NULL, nthreads) || pthread_barrier_init(&x->stop, NULL, nthreads)) {
			result_set_status(res, RESULT_FAILED, "cannot make the threads' barriers");
			goto out;
		}
		barriers = true;
		for (unsigned t = 1; t < nthreads; t++) {
			w[t] = (struct bw_worker){ x, t };
			if (pthread_create(&tid[t], NULL, bw_thread, &w[t]))
				break;
			started++;
		}
		if (started < nthreads) {
			result_set_status(res, RESULT_FAILED, "cannot start thread %u of %u", started + 1, nthreads);
			goto join;
		}
	}
	for (int k = 0; k < K_N; k++) {
		nk += kernel_present(x, k);
		words_left += kernel_present(x, k) ? kinfo[k].words : 0;
	}
	for (int k = 0; k < K_N && !*env->stop; k++) {
		mono_ns now = clock_mono(), mine;

		if (!kernel_present(x, k))
			continue;
		/* This kernel's share of the time left, by the bytes it moves (each phase half of it). */
		mine = now + (now < deadline ? (deadline - now) / words_left * kinfo[k].words : 0);
		words_left -= kinfo[k].words;
		sum_ok &= run_passes(x, one, k, passes, false, nthreads > 1 ? now + (mine - now) / 2 : mine, env->stop);
		if (nthreads > 1) {
			if (!restore)
				restore = affinity_get_self(&saved) == 0;
			pin_to(x->cpu[0]);
			sum_ok &= run_passes(x, all, k, passes, true, mine, env->stop);
			if (restore)
				(void)!affinity_pin_self(&saved);
		}
		progress_update(env->progress, clock_mono(), ++kdone, nk, "bandwidth");
	}
	for (int k = 0; k < K_N; k++) {
		if (!kernel_present(x, k))
			continue;
		fewest = one->done[k] < fewest ? one->done[k] : fewest;
		most = one->done[k] > most ? one->done[k] : most;
	}
	if (fewest == UINT32_MAX)
		fewest = 0;
join:
	if (nthreads > 1 && barriers) {
		if (started == nthreads) {
			x->quit = true;
			pthread_barrier_wait(&x->start);
		}
		for (unsigned t = 1; t < started; t++)
			pthread_join(tid[t], NULL);
	}
	if (barriers) {
		pthread_barrier_destroy(&x->start);
		pthread_barrier_destroy(&x->stop);
	}
	if (res->status != RESULT_OK)
		goto out;
	if (fewest == most)
		result_param(res, "passes", "%u timed (best kept) after 1 warm-up, per kernel", most);
	else
		result_param(res, "passes", "%u-%u timed (best kept) after 1 warm-up, per kernel: as many as the "
			     "time held", fewest, most);
	if (*env->stop || !fewest) {
		result_set_incomplete(res);
		result_note(res, "stopped early: %u of %u kernels measured, each over its %u timed passes or fewer",
			    kdone, nk, passes);
	} else if (clock_mono() > deadline + MEM_ALLOWANCE_NS) {
		result_note(res, "the warm-up and one timed pass of every kernel over %s arrays took %.1f s, more "
			    "than the %s asked (a smaller --size keeps it)", units_fmt_bytes(b1, sizeof(b1), bytes),
			    elapsed_s(t0, clock_mono()), units_fmt_duration(d1, sizeof(d1), time_ns));
	}
	for (int k = 0; k < K_N; k++)
		if (kernel_present(x, k) && one->done[k])
			result_metric(res, kinfo[k].name, UNIT_BYTES_PER_S, rate(x, k, one->best[k], x->n),
				      kinfo[k].label);
	if (nthreads > 1)
		headline_multi = report_multi(res, x, one, all);
	if (one->done[K_TRIAD]) {
		result_headline(res, headline_multi ? "triad_threads" : "triad");
		mem_bandwidth_offer(res, rate(x, K_TRIAD, (headline_multi ? all : one)->best[K_TRIAD], x->n),
				    headline_multi ? nthreads : 1, nthreads, env->ncpu, bytes, caches.llc_bytes);
	}
	if (fewest && !*env->stop && !bw_check(x, &bad))
		result_set_status(res, RESULT_FAILED, "array check failed at element %zu (a %g b %g c %g, expected 15 3 4)",
				  bad, x->a[bad], x->b[bad], x->c[bad]);
	else if (!sum_ok)
		result_set_status(res, RESULT_FAILED, "the read kernel's sum differs from the written data");
out:
	if (map)
		munmap(map, 3 * want + 3 * STAGGER);
	for (int k = 0; k < K_N && one; k++) {
		free(one->ns[k]);
		free(all->ns[k]);
	}
	free(one);
	free(all);
	free(x);
}

void mem_bandwidth_offer(struct result *res, double triad, unsigned threads, unsigned ran, int ncpu,
			 uint64_t bytes, uint64_t llc_bytes)
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
	if (ran > threads && ncpu > 0 && ran >= (unsigned)ncpu) {
		result_verdict_candidate(res, "memory bandwidth", 1.0,
					 "only faster memory (more channels, a higher transfer rate) would move it",
					 "%.1f GB/s (triad) with %u thread%s: %u threads, one per CPU, added nothing "
					 "beyond the noise, so this is the memory's figure", triad / 1e9, threads,
					 threads == 1 ? "" : "s", ran);
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

#define CHECK_EVERY (1u << 16)	/* loop iterations between looks at the clock */

/*
 * Links the NLINES lines of BUF into one random cycle; IDX is scratch of
 * NLINES entries. Returns false, with the cycle unfinished, when the clock
 * passes DEADLINE first (it looks every CHECK_EVERY lines): on a large set
 * this is a random walk through memory that costs as much as the chase.
 */
static bool link_cycle(unsigned char *buf, uint32_t *idx, uint64_t nlines, uint64_t *seed, mono_ns deadline)
{
	for (uint64_t i = 0; i < nlines; i++)
		idx[i] = (uint32_t)i;
	for (uint64_t i = nlines - 1; i > 0; i--) {
		uint64_t j, x = *seed;
		uint32_t t;

		if (i % CHECK_EVERY == 0 && clock_mono() > deadline)
			return false;
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		*seed = x;
		j = (x * 0x2545f4914f6cdd1dULL) % (i + 1);
		t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	for (uint64_t i = 0; i < nlines; i++) {
		if (i % CHECK_EVERY == 0 && clock_mono() > deadline)
			return false;
		*(void **)(void *)(buf + (uint64_t)idx[i] * LINE) = buf + (uint64_t)idx[(i + 1) % nlines] * LINE;
	}
	return true;
}

/* The warm-up walk: N loads from *P in pieces of CHECK_EVERY; false when the clock passes DEADLINE first. */
static bool warm_walk(void **p, uint64_t n, mono_ns deadline)
{
	for (uint64_t done = 0; done < n; done += CHECK_EVERY) {
		if (clock_mono() > deadline)
			return false;
		*p = chase(*p, CHECK_EVERY);
	}
	return true;
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

/*
 * How the latency step fits its time. The curve goes up in size; before
 * each size the cost of its cycle, warm-up walk and runs is priced from
 * the size before as measured (per line: the cycle's construction and the
 * latency; LAT_GROWTH x both, for the rise past a cache level), and the
 * curve stops at the first size that would not end before the deadline.
 * The construction and the walk also look at the clock and give the size
 * up at the deadline. One run is LAT_MIN_LOADS to LAT_MAX_LOADS loads,
 * fewer than the set's lines when a run would take more than LAT_RUN_SHARE
 * of the time. With --time and no --passes, the time left when the curve
 * ends goes to more runs at the largest set, whose figure is the DRAM
 * plateau.
 */
#define LAT_GROWTH 2.0
#define LAT_MIN_LOADS (1u << 16)
#define LAT_SMALL_LOADS (1u << 18)	/* the least when time allows */
#define LAT_MAX_LOADS (1u << 22)
#define LAT_RUN_SHARE 100		/* one run takes at most 1/100 of the time */

void mem_latency_run(const struct bench_env *env, const struct mem_lat_cfg *cfg, struct result *res)
{
	mono_ns t0 = clock_mono(), deadline;
	struct mem_caches caches;
	uint64_t maxb, limit, seed = 0x9e3779b97f4a7c15ULL, sizes[80], largest = 0, best = UINT64_MAX, loads = 0;
	uint64_t time_ns = cfg->time_ns ? cfg->time_ns : MEM_DEFAULT_TIME_NS, extra = 0, last_loads = 0;
	size_t nsizes = 0, measured = 0;
	unsigned char *buf;
	uint32_t *idx;
	volatile uintptr_t sink = 0;
	char why[160], b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN], d1[UNITS_FMT_LEN], name[48], label[64], list[320];
	double last = NAN, first = NAN, link_pl = 0, lat = 0;
	unsigned runs = cfg->passes ? cfg->passes : 3;
	bool intact = false, cut = false, fill = cfg->time_ns && !cfg->passes;
	uint64_t thp_before, thp_after;
	struct metric *m_last = NULL;
	void *p = NULL;

	deadline = t0 + time_ns;
	result_set_step(res, "latency");
	mem_caches_read(cfg->sys_root ? cfg->sys_root : "/sys", &caches);
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
	result_param(res, "caches", "%s", caches.text[0] ? caches.text : "unknown (sysfs has no cache info)");
	result_param(res, "time", "%s%s", units_fmt_duration(d1, sizeof(d1), time_ns),
		     cfg->time_ns ? "" : " at most (no --time)");
	thp_param(res);
	result_method(res, "chase", "dependent loads p = *p over one random cycle through every 64-byte line of "
		      "the working set (lat_mem_rd-like; random order defeats the prefetchers), 16 loads per loop "
		      "iteration; the buffer asks for transparent huge pages (MADV_HUGEPAGE) so that TLB misses "
		      "do not hide the cache levels: where it gets none, large sets include TLB misses");
	result_method(res, "timing", "CLOCK_MONOTONIC over %u to %u loads per run (fewer than the set's lines when "
		      "a run would take more than 1/%d of the time; at least %u) after one warm-up walk of the set; "
		      "ns per load = time / loads, best of the runs", LAT_SMALL_LOADS, LAT_MAX_LOADS, LAT_RUN_SHARE,
		      LAT_MIN_LOADS);
	result_method(res, "time", "the step keeps %s (within %.1f s for mapping and unmapping): sizes go up "
		      "while the next one's cycle, warm-up walk and %u run%s, priced from the size before as measured "
		      "(%.0f x its cost per line, for the rise past a cache level), end before the deadline; building "
		      "the cycle (a random shuffle) and the walk are counted and stop at the deadline%s",
		      units_fmt_duration(d1, sizeof(d1), time_ns), (double)MEM_ALLOWANCE_NS / 1e9, runs,
		      runs == 1 ? "" : "s", LAT_GROWTH, fill ? "; the time left then goes to more runs at the largest "
		      "set" : "");
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
		uint64_t nlines = sizes[i] / LINE, cap;
		mono_ns now = clock_mono(), t;
		double price;

		loads = nlines < LAT_SMALL_LOADS ? LAT_SMALL_LOADS : nlines > LAT_MAX_LOADS ? LAT_MAX_LOADS : nlines;
		cap = lat > 0 ? (uint64_t)((double)time_ns / LAT_RUN_SHARE / (LAT_GROWTH * lat)) : loads;
		if (cap < loads)
			loads = cap < LAT_MIN_LOADS ? LAT_MIN_LOADS : cap;
		loads = (loads + 15) / 16 * 16;
		price = LAT_GROWTH * ((double)nlines * (link_pl + lat) + (double)runs * (double)loads * lat);
		if (i > 0 && (double)now + price > (double)deadline) {
			cut = true;
			break;
		}
		intact = false;
		if (!link_cycle(buf, idx, nlines, &seed, deadline)) {
			cut = true;
			break;
		}
		t = clock_mono();
		link_pl = (double)elapsed_ns(now, t) / (double)nlines;
		p = buf;
		if (!warm_walk(&p, (nlines + 15) / 16 * 16, deadline)) {
			cut = true;
			break;
		}
		lat = (double)elapsed_ns(t, clock_mono()) / (double)((nlines + 15) / 16 * 16);
		intact = true;
		best = UINT64_MAX;
		for (unsigned r = 0; r < runs && !*env->stop; r++) {
			mono_ns r0 = clock_mono();
			uint64_t ns;

			if (r > 0 && r0 + (uint64_t)((double)loads * lat) > deadline)
				break;
			p = chase(p, loads);
			ns = elapsed_ns(r0, clock_mono());
			if (ns < best)
				best = ns;
		}
		if (best == UINT64_MAX)
			break;
		last = (double)best / (double)loads;
		lat = last;
		largest = sizes[i];
		last_loads = loads;
		measured++;
		snprintf(name, sizeof(name), "lat_%lluk", (unsigned long long)(sizes[i] / 1024));
		snprintf(label, sizeof(label), "load latency, %s working set", units_fmt_bytes(b1, sizeof(b1), sizes[i]));
		m_last = result_metric(res, name, UNIT_NS, last, label);
		m_last->higher_is_better = false;
		if (i == 0)
			first = last;
		progress_update(env->progress, clock_mono(), i + 1, nsizes, "latency");
	}
	/* More runs at the largest set while one more ends before the deadline. */
	while (fill && intact && m_last && !*env->stop && clock_mono() + (uint64_t)(1.1 * (double)best) < deadline) {
		mono_ns r0 = clock_mono();
		uint64_t ns;

		p = chase(p, last_loads);
		ns = elapsed_ns(r0, clock_mono());
		extra++;
		if (ns < best) {
			best = ns;
			last = (double)best / (double)last_loads;
			m_last->value = last;
		}
	}
	sink += (uintptr_t)p;
	thp_after = anon_huge_bytes();
	result_param(res, "sizes", "4 KiB to %s, powers of two and 1.5 x each (%zu sizes%s)",
		     units_fmt_bytes(b1, sizeof(b1), largest ? largest : sizes[0]), measured,
		     cut ? ", as many as the time held" : "");
	result_param(res, "passes", "%u runs per size, best kept", runs);
	if (extra)
		result_param(res, "extra_runs", "%llu more runs at the largest set in the time left",
			     (unsigned long long)extra);
	if (thp_before != UINT64_MAX && thp_after != UINT64_MAX)
		result_param(res, "huge_pages", "%s of the %s buffer in transparent huge pages (AnonHugePages of "
			     "/proc/self/smaps_rollup)", units_fmt_bytes(b1, sizeof(b1),
			     thp_after > thp_before ? thp_after - thp_before : 0), units_fmt_bytes(b2, sizeof(b2), maxb));
	if (largest) {
		bool dram = caches.llc_bytes ? largest > caches.llc_bytes : true;

		snprintf(label, sizeof(label), "largest set (%s): %s", units_fmt_bytes(b1, sizeof(b1), largest),
			 dram ? "DRAM" : "within the last-level cache");
		result_metric(res, "lat_largest", UNIT_NS, last, label)->higher_is_better = false;
		result_headline(res, "lat_largest");
		mem_latency_offer(res, last, first, largest, caches.llc_bytes);
	}
	if (*env->stop && largest != maxb) {
		result_set_incomplete(res);
		result_note(res, "stopped early: sizes up to %s measured", units_fmt_bytes(b1, sizeof(b1), largest));
	} else if (largest < maxb) {
		size_t used = 0;

		list[0] = '\0';
		for (size_t k = 0; k < nsizes && used < sizeof(list); k++) {
			int n;

			if (sizes[k] <= largest)
				continue;
			n = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
				     units_fmt_bytes(b2, sizeof(b2), sizes[k]));
			if (n < 0 || (size_t)n >= sizeof(list) - used)
				break;
			used += (size_t)n;
		}
		result_method(res, "sizes", "did not fit in %s: %s", units_fmt_duration(d1, sizeof(d1), time_ns), list);
		result_note(res, "scaled down to fit the time: working sets up to %s instead of %s (did not fit in %s: %s)",
			    units_fmt_bytes(b1, sizeof(b1), largest), units_fmt_bytes(b2, sizeof(b2), maxb), d1, list);
	}
	if (caches.llc_bytes && largest && largest < 4 * caches.llc_bytes)
		result_note(res, "the largest set is below 4 x the last-level cache: the curve may not reach DRAM");
out:
	if (buf)
		munmap(buf, maxb);
	if (idx)
		munmap(idx, maxb / LINE * sizeof(uint32_t));
}
