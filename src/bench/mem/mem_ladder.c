/* SPDX-License-Identifier: MIT */
/*
 * One rung of the swaptest ladder; see mem_ladder.h.
 *
 * swaptest itself is lost; its method survives in the seed-003 blog and
 * the research notes: fill a growing area with random data, read every
 * page back, print MB/s. What is done here:
 *
 *  - The area is an anonymous private mapping with MADV_NOHUGEPAGE, so
 *    it is paged, and swapped, in 4 KiB pages as on swaptest's 2005 box.
 *  - Write pass: every 64-bit word of every page. A page is one of 16
 *    random pages (getrandom) XORed with its own 64-bit key (splitmix64
 *    of the page number and the seed): no page is zero, no two pages are
 *    alike and none compresses, so neither the zero page, KSM, zram nor
 *    zswap can shortcut the swap I/O. The sum of the words is kept.
 *  - Read pass(es): every 64-bit word of every page is summed, pages in
 *    address order or in a random permutation. The sum must equal the
 *    write pass's sum per pass: data that came back from swap is checked.
 *  - Counters at three points (before the write pass, between, after the
 *    read passes): the process's own major faults (getrusage), the
 *    system's pswpin/pswpout (/proc/vmstat) and memory stall
 *    (/proc/pressure/memory total); mincore() after each pass.
 *
 * The measuring runs in a child process: inside the sandbox cgroup when
 * there is one, and in any case so that the area is gone the moment the
 * row ends. The child may be forked from a process with threads (the
 * sampler), so it sticks to system calls and the pure /proc parsers (no
 * allocation, no stdio) and reports through a MAP_SHARED page. Outside a
 * sandbox it sets its oom_score_adj to 1000, so that if --force pushed
 * the box too far the OOM killer takes the test and nothing else.
 */
#include "mem_ladder.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/units.h"
#include "core/observe/window.h"
#include "core/base/clock.h"
#include "core/kernel/proc.h"
#include "core/base/progress.h"
#include "core/work/sandbox.h"
#include "core/kernel/sysinfo.h"

#define POOL_PAGES 16
#define MINCORE_CHUNK 65536	/* pages per mincore() call */

/* Counters at one point of the row. */
struct snap {
	bool vm_ok, psi_ok;
	struct proc_vmstat vm;
	struct proc_psi psi;
	uint64_t majflt, minflt;
	uint64_t vmswap;		/* own pages in swap, bytes (VmSwap); PROC_NONE unknown */
	mono_ns t;
};

/* The page shared between the parent and the measuring child. */
struct shared {
	/* in */
	uint64_t bytes, page;
	int order;
	unsigned passes;
	uint64_t seed;
	bool sandboxed;
	uint64_t time_ns;		/* 0: no time to keep */
	volatile sig_atomic_t *stop;
	/* parent -> child */
	volatile int go;		/* the window has begun: start measuring */
	volatile int halt;
	/* child -> parent */
	volatile uint64_t done_pages;	/* progress: pages written + pages read */
	int err;			/* positive errno of a failed step */
	const char *err_what;		/* static text naming that step */
	bool stopped;			/* halted early */
	bool write_cut, read_cut;	/* --time ended the write pass (at half) or the read passes */
	struct snap s[3];		/* before write, after write, after read */
	uint64_t write_pages, read_pages, passes_done;
	uint64_t resident_after_write, resident_after_read;
	bool mincore_ok;
	uint64_t sum_written, sum_read;
	mono_ns read_ns;
};

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* ---- the child (async-signal-safe) --------------------------------------- */

static bool halted(const struct shared *sh)
{
	return sh->halt || *sh->stop;
}

/* Reads PATH into BUF (size N) with plain system calls; returns bytes or -1. */
static ssize_t slurp_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (len < n - 1 && ((r = read(fd, buf + len, n - 1 - len)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* The kB value of "VmSwap:" in /proc/self/status text, in bytes; PROC_NONE if absent. */
static uint64_t parse_vmswap(const char *buf)
{
	for (const char *p = buf; *p;) {
		if (!strncmp(p, "VmSwap:", 7)) {
			uint64_t v = 0;
			bool digits = false;

			for (p += 7; *p == ' ' || *p == '\t'; p++)
				;
			for (; *p >= '0' && *p <= '9'; p++, digits = true)
				v = v * 10 + (uint64_t)(*p - '0');
			return digits ? v * 1024 : PROC_NONE;
		}
		while (*p && *p != '\n')
			p++;
		if (*p)
			p++;
	}
	return PROC_NONE;
}

static void take_snap(struct snap *s)
{
	char buf[16384];
	struct rusage ru;
	ssize_t n;

	n = slurp_small("/proc/self/status", buf, sizeof(buf));
	s->vmswap = n > 0 ? parse_vmswap(buf) : PROC_NONE;
	n = slurp_small("/proc/vmstat", buf, sizeof(buf));
	s->vm_ok = n > 0 && proc_vmstat_parse(&s->vm, buf, (size_t)n) == 0;
	n = slurp_small("/proc/pressure/memory", buf, sizeof(buf));
	s->psi_ok = n > 0 && proc_psi_parse(&s->psi, buf, (size_t)n) == 0;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		s->majflt = (uint64_t)ru.ru_majflt;
		s->minflt = (uint64_t)ru.ru_minflt;
	}
	s->t = clock_mono();
}

/* Pages of [AREA, AREA + PAGES * PAGE) in memory per mincore(); false on error. */
static bool count_resident(unsigned char *area, uint64_t pages, uint64_t page, unsigned char *vec,
			   uint64_t *resident)
{
	uint64_t n = 0;

	for (uint64_t p = 0; p < pages; p += MINCORE_CHUNK) {
		uint64_t k = pages - p < MINCORE_CHUNK ? pages - p : MINCORE_CHUNK;

		if (mincore(area + p * page, k * page, vec))
			return false;
		for (uint64_t i = 0; i < k; i++)
			n += vec[i] & 1;
	}
	*resident = n;
	return true;
}

static int row_child(void *arg)
{
	struct shared *sh = arg;
	const uint64_t page = sh->page, pages = sh->bytes / page, wpp = page / 8;
	unsigned char *area, *vec;
	uint64_t *pool;
	uint32_t *perm = NULL;
	uint64_t sum = 0, wpages;
	mono_ns t0, begin = clock_mono(), wdead = 0, rdead = 0;

	/*
	 * Nothing is measured before the parent's window has begun: its limits
	 * are discovered for this process, which must still be alive then.
	 */
	while (!sh->go && !halted(sh)) {
		struct timespec ts = { 0, 1000000L };

		nanosleep(&ts, NULL);
	}
	/* --time counts from the window's start: the order's shuffle and the mappings are inside. */
	begin = clock_mono();
	if (sh->time_ns) {
		wdead = begin + sh->time_ns / 2;
		rdead = begin + sh->time_ns;
	}
	if (!sh->sandboxed) {
		int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			(void)!write(fd, "1000", 4);
			close(fd);
		}
	}
	pool = mmap(NULL, POOL_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	vec = mmap(NULL, MINCORE_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED || vec == MAP_FAILED) {
		sh->err = errno;
		sh->err_what = "cannot map the random pool";
		return 2;
	}
	for (size_t got = 0; got < POOL_PAGES * page;) {
		ssize_t r = getrandom((char *)pool + got, POOL_PAGES * page - got, 0);

		if (r < 0 && errno != EINTR) {
			/* No getrandom: the page keys still make every page unique and random-looking. */
			for (uint64_t i = 0; i < POOL_PAGES * wpp; i++)
				pool[i] = splitmix64(sh->seed * 0x100000001b3ULL + i);
			break;
		}
		if (r > 0)
			got += (size_t)r;
	}
	if ((size_t)sh->bytes != sh->bytes) {	/* mmap takes a size_t: a 32-bit address space */
		sh->err = ENOMEM;
		sh->err_what = "the test area is larger than this process's address space";
		return 2;
	}
	if (sh->order == 1) {
		uint64_t x = sh->seed | 1;

		perm = mmap(NULL, pages * sizeof(*perm), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (perm == MAP_FAILED) {
			sh->err = errno;
			sh->err_what = "cannot map the page order";
			return 2;
		}
		for (uint64_t i = 0; i < pages; i++)
			perm[i] = (uint32_t)i;
		/* Fisher-Yates with xorshift64*. */
		for (uint64_t i = pages - 1; i > 0; i--) {
			uint64_t j, t;

			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			j = (x * 0x2545f4914f6cdd1dULL) % (i + 1);
			t = perm[i];
			perm[i] = perm[j];
			perm[j] = (uint32_t)t;
		}
	}
	area = mmap(NULL, sh->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		sh->err = errno;
		sh->err_what = "cannot map the test area";
		return 2;
	}
	(void)madvise(area, sh->bytes, MADV_NOHUGEPAGE);

	/* Write pass. */
	take_snap(&sh->s[0]);
	for (uint64_t p = 0; p < pages; p++) {
		uint64_t *dst = (uint64_t *)(void *)(area + p * page);
		const uint64_t *src = pool + (p % POOL_PAGES) * wpp;
		uint64_t key = splitmix64(sh->seed ^ (p * 0x9e3779b97f4a7c15ULL));

		if (!(p & 15) && halted(sh)) {
			sh->stopped = true;
			break;
		}
		if (!(p & 3) && wdead && p && clock_mono() >= wdead) {
			sh->write_cut = true;
			break;
		}
		for (uint64_t w = 0; w < wpp; w++) {
			uint64_t v = src[w] ^ key;

			dst[w] = v;
			sum += v;
		}
		sh->write_pages = p + 1;
		sh->done_pages = p + 1;
	}
	take_snap(&sh->s[1]);
	sh->sum_written = sum;
	/* What the read passes go over: the pages written (all of them unless the time cut the pass). */
	wpages = sh->write_pages;
	sh->mincore_ok = count_resident(area, wpages, page, vec, &sh->resident_after_write);

	/* Read passes. */
	sum = 0;
	t0 = clock_mono();
	for (unsigned pass = 0; pass < sh->passes && !sh->stopped && !sh->read_cut; pass++) {
		for (uint64_t i = 0; i < pages; i++) {
			uint64_t p = perm ? perm[i] : i;
			const uint64_t *src = (const uint64_t *)(const void *)(area + p * page);
			uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

			if (p >= wpages) {
				if (perm)
					continue;
				break;
			}
			if (!(i & 15) && halted(sh)) {
				sh->stopped = true;
				break;
			}
			if (!(i & 3) && rdead && clock_mono() >= rdead) {
				sh->read_cut = true;
				break;
			}
			for (uint64_t w = 0; w + 3 < wpp; w += 4) {
				a0 += src[w];
				a1 += src[w + 1];
				a2 += src[w + 2];
				a3 += src[w + 3];
			}
			sum += a0 + a1 + a2 + a3;
			sh->read_pages++;
			sh->done_pages = sh->write_pages + sh->read_pages;
		}
		if (!sh->stopped && !sh->read_cut)
			sh->passes_done++;
	}
	sh->read_ns = elapsed_ns(t0, clock_mono());
	take_snap(&sh->s[2]);
	sh->sum_read = sum;
	if (sh->mincore_ok)
		sh->mincore_ok = count_resident(area, wpages, page, vec, &sh->resident_after_read);
	return 0;
}

/* ---- the parent ------------------------------------------------------------ */

static uint64_t d64(uint64_t a, uint64_t b)
{
	return a != PROC_NONE && b != PROC_NONE && b >= a ? b - a : 0;
}

bool mem_read_meminfo(struct proc_meminfo *mi)
{
	struct proc_buf b = PROC_BUF_INIT;
	bool ok = !proc_buf_read_file(&b, "/proc/meminfo") && !proc_meminfo_parse(mi, b.data, b.len) &&
		  mi->mem_available != PROC_NONE && mi->swap_free != PROC_NONE;

	proc_buf_release(&b);
	return ok;
}

static const char *fmtb(char *buf, uint64_t v)
{
	return units_fmt_bytes(buf, UNITS_FMT_LEN, v);
}

/* Parameters naming the swap devices, their type and page-cluster. */
static void swap_params(struct result *res, const struct sysinfo *si)
{
	char list[1024] = "", b[UNITS_FMT_LEN];
	size_t len = 0;
	const struct sysinfo_swap *best = NULL;

	for (size_t i = 0; i < si->nr_swaps; i++) {
		const struct sysinfo_swap *s = &si->swaps[i];
		int n = snprintf(list + len, sizeof(list) - len, "%s%s (%s, %s, priority %d)", i ? "; " : "", s->name,
				 sysinfo_swap_type_name(s->type),
				 s->size_bytes >= 0 ? fmtb(b, (uint64_t)s->size_bytes) : "size unknown", s->priority);

		if (n > 0 && (size_t)n < sizeof(list) - len)
			len += (size_t)n;
		if (!best || (s->priority_known && s->priority > best->priority))
			best = s;
	}
	result_param(res, "swap_devices", "%s", si->nr_swaps ? list : "none");
	result_param(res, "swap_device_type", "%s", best ? sysinfo_swap_type_name(best->type) : "none");
	if (si->page_cluster >= 0)
		result_param(res, "page_cluster", "%d (a swap-in reads up to %d pages)", si->page_cluster,
			     1 << (si->page_cluster > 30 ? 30 : si->page_cluster));
	else
		result_param(res, "page_cluster", "unknown");
	if (si->swappiness >= 0)
		result_param(res, "swappiness", "%d", si->swappiness);
	if (si->zswap_enabled != SYSINFO_UNKNOWN)
		result_param(res, "zswap", "%s", si->zswap_enabled == SYSINFO_YES ? "enabled" : "disabled");
}

static void method(struct result *res, const struct mem_ladder_cfg *cfg)
{
	result_method(res, "area", "anonymous private mmap, MADV_NOHUGEPAGE (4 KiB pages), in a child process%s",
		      cfg->sandbox_limit ? " inside the sandbox cgroup" : "");
	result_method(res, "write_pass",
		      "every 64-bit word of every page in address order; each page is one of 16 random pages "
		      "(getrandom) XORed with its own splitmix64 key: no zero, duplicate or compressible pages; "
		      "the time includes the first-touch page faults (the kernel zeroes every new page)");
	result_method(res, "read_pass", "every 64-bit word of every page summed, pages in %s, %u pass%s; "
		      "the sum is checked against the write pass",
		      cfg->order == MEM_ORDER_RANDOM ? "a random permutation (Fisher-Yates, xorshift64*)"
						     : "address order",
		      cfg->passes, cfg->passes == 1 ? "" : "es");
	result_method(res, "rate", "area bytes per pass / pass time, CLOCK_MONOTONIC");
	result_method(res, "resident",
		      "resident = the measuring process took no major fault in either pass (getrusage) and "
		      "mincore() found every page in memory after the read pass; then the read rate is a memory "
		      "speed, not a swap speed");
	result_method(res, "swap_counters", "pswpin/pswpout of /proc/vmstat, system-wide, from before the write "
		      "pass to after the read pass; the process's own pages in swap from VmSwap of /proc/self/status");
	result_method(res, "stall", "/proc/pressure/memory 'total' (us), system-wide, over the two passes");
	if (cfg->time_ns)
		result_method(res, "time", "the measuring child keeps %.3f s from its start: the write pass stops at "
			      "half of it (a smaller area written is named), the read passes at its end; the sandbox's "
			      "set-up and teardown and the child's start and exit are outside it, within %.1f s",
			      (double)cfg->time_ns / 1e9, (double)MEM_LADDER_ALLOWANCE_NS / 1e9);
}

/* Waits for the child, forwarding a stop request and drawing progress. */
static int wait_child(const struct bench_env *env, struct shared *sh, pid_t pid, uint64_t total, int *status)
{
	mono_ns halt_at = 0;
	bool killed = false;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (*env->stop && !sh->halt) {
			sh->halt = 1;
			halt_at = clock_mono();
		}
		/* A child stuck in page faults for 30 s after a stop request is killed. */
		if (halt_at && !killed && elapsed_s(halt_at, clock_mono()) > 30) {
			kill(pid, SIGKILL);
			killed = true;
		}
		progress_update(env->progress, clock_mono(), sh->done_pages, total,
				sh->done_pages < sh->bytes / sh->page ? "write pass" : "read pass");
		{
			struct timespec ts = { 0, 20 * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * A resident rung's figure is a memory speed: no page of the area came
 * from or went to a disk, so a busy disk (another process's, or the swap
 * of an earlier rung draining) did not bound it. The benchmark's own
 * candidates of the disk's resources, at share 0 with the reason, stand
 * in for the system view's (a benchmark's candidate wins over the
 * system's of the same resource, core/result/verdict.h). A rung that paged
 * keeps the disk as a candidate.
 */
static void not_the_disk(struct result *res)
{
	static const char *const disk[] = { "device", "device latency" };

	for (size_t i = 0; i < sizeof(disk) / sizeof(disk[0]); i++)
		result_verdict_candidate(res, disk[i], 0, NULL,
					 "the rung stayed resident (no major fault, every page in memory): its read rate "
					 "is a memory speed, no page of it moved to or from a disk");
}

static void metrics(struct result *res, const struct mem_ladder_cfg *cfg, const struct shared *sh)
{
	/* The pages of the area written: all of them unless --time cut the write pass. */
	const uint64_t asked = sh->bytes / sh->page, pages = sh->write_cut ? sh->write_pages : asked;
	double wt = elapsed_s(sh->s[0].t, sh->s[1].t), rt = (double)sh->read_ns / 1e9;
	uint64_t wmaj = d64(sh->s[0].majflt, sh->s[1].majflt), rmaj = d64(sh->s[1].majflt, sh->s[2].majflt);
	bool complete = !sh->stopped && !sh->read_cut && sh->passes_done == cfg->passes;
	/* At least one whole read pass over what was written judges residency, as without --time. */
	bool resident = !sh->stopped && sh->passes_done >= 1 && sh->mincore_ok &&
			mem_row_resident(wmaj, rmaj, sh->resident_after_read, pages);
	char line[128], b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN], b3[UNITS_FMT_LEN];

	result_metric(res, "size", UNIT_BYTES, (double)sh->bytes, "area");
	if (sh->write_cut)
		result_metric(res, "size_written", UNIT_BYTES, (double)(pages * sh->page),
			      "area written: what half of --time held");
	if (sh->write_pages && wt > 0) {
		result_metric(res, "write", UNIT_BYTES_PER_S, (double)(sh->write_pages * sh->page) / wt,
			      "write pass (random data)");
		result_metric(res, "write_time", UNIT_SECONDS, wt, "write pass time")->higher_is_better = false;
	}
	if (sh->read_pages && rt > 0) {
		result_metric(res, "read", UNIT_BYTES_PER_S, (double)(sh->read_pages * sh->page) / rt,
			      resident ? "read pass: memory speed (resident)" : "read pass: through swap");
		result_metric(res, "read_time", UNIT_SECONDS, rt, "read pass time")->higher_is_better = false;
		result_headline(res, "read");
	}
	result_metric(res, "write_major_faults", UNIT_COUNT, (double)wmaj, "major faults, write pass")
		->higher_is_better = false;
	if (sh->read_pages)
		result_metric(res, "read_major_faults", UNIT_COUNT, (double)rmaj, "major faults, read pass")
			->higher_is_better = false;
	if (sh->s[0].vm_ok && sh->s[2].vm_ok) {
		result_metric(res, "swap_out_pages", UNIT_COUNT, (double)d64(sh->s[0].vm.pswpout, sh->s[2].vm.pswpout),
			      "pages swapped out (system)")->higher_is_better = false;
		result_metric(res, "swap_in_pages", UNIT_COUNT, (double)d64(sh->s[0].vm.pswpin, sh->s[2].vm.pswpin),
			      "pages swapped in (system)")->higher_is_better = false;
	}
	if (sh->s[0].psi_ok && sh->s[2].psi_ok) {
		double span = elapsed_s(sh->s[0].t, sh->s[2].t);
		double some = (double)d64(sh->s[0].psi.some.total_us, sh->s[2].psi.some.total_us) / 1e6;

		result_metric(res, "mem_stall_some", UNIT_SECONDS, some, "memory stall, some (system)")
			->higher_is_better = false;
		if (sh->s[0].psi.full.valid && sh->s[2].psi.full.valid)
			result_metric(res, "mem_stall_full", UNIT_SECONDS,
				      (double)d64(sh->s[0].psi.full.total_us, sh->s[2].psi.full.total_us) / 1e6,
				      "memory stall, full (system)")->higher_is_better = false;
		if (span > 0)
			result_metric(res, "mem_stall_some_share", UNIT_PERCENT, 100.0 * some / span,
				      "memory stall share (system)")->higher_is_better = false;
	}
	if (sh->s[1].vmswap != PROC_NONE)
		result_metric(res, "own_swap_after_write", UNIT_BYTES, (double)sh->s[1].vmswap,
			      "own pages in swap after write (VmSwap)")->higher_is_better = false;
	if (sh->read_pages && sh->s[2].vmswap != PROC_NONE)
		result_metric(res, "own_swap_after_read", UNIT_BYTES, (double)sh->s[2].vmswap,
			      "own pages in swap after read (VmSwap)")->higher_is_better = false;
	if (sh->mincore_ok && pages) {
		result_metric(res, "resident_after_write", UNIT_PERCENT, 100.0 * (double)sh->resident_after_write / (double)pages,
			      "resident after write (mincore)");
		if (sh->read_pages)
			result_metric(res, "resident_after_read", UNIT_PERCENT,
				      100.0 * (double)sh->resident_after_read / (double)pages, "resident after read (mincore)");
	}
	result_metric(res, "resident", UNIT_COUNT, resident ? 1 : 0, "resident row (1 yes, 0 no)");

	if (resident)
		not_the_disk(res);
	if (sh->write_cut)
		result_note(res, "--time held %s of the %s area: the write pass stopped at half of %.3f s, and %s did "
			    "not fit; the rung's figures are those of the area written", fmtb(b1, pages * sh->page),
			    fmtb(b2, sh->bytes), (double)sh->time_ns / 1e9, fmtb(b3, (asked - pages) * sh->page));
	if (sh->read_cut && !sh->stopped)
		result_note(res, "--time ended the read passes: %llu of %u whole passes, %llu pages read in all; the read "
			    "rate is over the pages read", (unsigned long long)sh->passes_done, cfg->passes,
			    (unsigned long long)sh->read_pages);
	if (sh->stopped)
		result_note(res, "stopped early: %llu of %llu pages written, %llu of %u read passes done",
			    (unsigned long long)sh->write_pages, (unsigned long long)asked,
			    (unsigned long long)sh->passes_done, cfg->passes);
	else if (!sh->passes_done)
		result_note(res, "no whole read pass in the time: residency is not judged");
	else if (resident)
		result_note(res, "resident: no major fault and every page in memory, so the read rate is a memory "
			    "speed, not a swap speed");
	else
		result_note(res, "not resident: %llu major faults in the read pass, %.1f %% of the pages in memory "
			    "afterwards; the read rate is a swap speed", (unsigned long long)rmaj,
			    sh->mincore_ok && pages ? 100.0 * (double)sh->resident_after_read / (double)pages : NAN);
	if (cfg->swaptest_format && sh->read_pages && rt > 0)
		result_note(res, "swaptest: %s",
			    mem_swaptest_line(line, sizeof(line), (unsigned)(sh->passes_done ? sh->passes_done : 1),
					      sh->passes_done ? sh->bytes : sh->read_pages * sh->page, rt));
	if (complete && sh->sum_read != sh->sum_written * sh->passes_done)
		result_set_status(res, RESULT_FAILED, "the data read back differs from what was written "
				  "(sum %llx, expected %llx per pass)", (unsigned long long)sh->sum_read,
				  (unsigned long long)sh->sum_written);
}

void mem_ladder_run(const struct bench_env *env, const struct mem_ladder_cfg *cfg, struct result *res)
{
	struct sysinfo_opts so = { "/proc", "/sys", false, false };
	struct sysinfo si;
	struct proc_meminfo mi;
	struct sandbox *sb = NULL;
	struct shared *sh;
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t page = psz > 0 ? (uint64_t)psz : 4096, base, bytes, budget, avail;
	char b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN], b3[UNITS_FMT_LEN], b4[UNITS_FMT_LEN], err[512];
	pid_t pid;
	int status = 0, r;

	result_set_step(res, "ladder %s", cfg->size.text);
	method(res, cfg);
	if (sysinfo_collect(&si, &so) < 0)
		sysinfo_init(&si);
	if (!mem_read_meminfo(&mi)) {
		result_set_status(res, RESULT_FAILED, "cannot read the memory figures (/proc/meminfo)");
		goto out;
	}
	if (cfg->sandbox_limit) {
		base = cfg->sandbox_limit;
		result_param(res, "base", "sandbox limit %s", fmtb(b1, base));
	} else {
		base = si.mem.effective_bytes > 0 ? (uint64_t)si.mem.effective_bytes : mi.mem_total;
		result_param(res, "base", "effective memory %s (%s)", fmtb(b1, base),
			     si.mem.cgroup_limit == SYSINFO_LIMIT_SET &&
				     si.mem.cgroup_limit_bytes == si.mem.effective_bytes ? "cgroup limit" : "MemTotal");
	}
	bytes = mem_size_resolve(&cfg->size, base, page);
	result_param(res, "size", "%s%s%s", cfg->size.text, cfg->size.relative ? " = " : "",
		     cfg->size.relative ? fmtb(b1, bytes) : "");
	result_param(res, "size_bytes", "%llu", (unsigned long long)bytes);
	result_param(res, "order", "%s", cfg->order == MEM_ORDER_RANDOM ? "random" : "seq");
	result_param(res, "passes", "%u", cfg->passes);
	result_param(res, "seed", "%llu", (unsigned long long)cfg->seed);
	if (cfg->time_ns)
		result_param(res, "time", "%.3f s", (double)cfg->time_ns / 1e9);

	/* Safety: the budget. */
	if (cfg->sandbox_limit) {
		uint64_t host = mem_budget(mi.mem_available, 0, cfg->margin_pct, mi.mem_total);

		if (cfg->sandbox_limit > host && !cfg->force) {
			result_set_status(res, RESULT_SKIPPED,
					  "the sandbox limit %s is more than MemAvailable %s minus the %u %% margin; "
					  "--force runs it anyway", fmtb(b1, cfg->sandbox_limit),
					  fmtb(b2, mi.mem_available), cfg->margin_pct);
			goto out;
		}
		/* The own swap file, or the given device when it is not active swap already. */
		uint64_t own = cfg->swap_dev ? cfg->swap_dev_new_bytes : cfg->swap_bytes;

		avail = cfg->sandbox_limit;
		budget = mem_budget(avail, mi.swap_free + (own ? own - page : 0), cfg->margin_pct, cfg->sandbox_limit);
		result_param(res, "budget", "sandbox limit %s + free swap %s%s - %u %% of the limit = %s",
			     fmtb(b1, avail), fmtb(b2, mi.swap_free + own),
			     !own ? "" : cfg->swap_dev ? " (with the swap device)" : " (with the own swap file)",
			     cfg->margin_pct, fmtb(b3, budget));
	} else {
		avail = mi.mem_available;
		if (si.mem.effective_bytes > 0 && (uint64_t)si.mem.effective_bytes < avail)
			avail = (uint64_t)si.mem.effective_bytes;
		budget = mem_budget(avail, mi.swap_free, cfg->margin_pct, mi.mem_total);
		result_param(res, "budget", "available %s + SwapFree %s - %u %% of MemTotal %s = %s", fmtb(b1, avail),
			     fmtb(b2, mi.swap_free), cfg->margin_pct, fmtb(b3, mi.mem_total), fmtb(b4, budget));
	}
	if (bytes > budget) {
		if (!cfg->force) {
			result_set_status(res, RESULT_SKIPPED, "%s is more than the budget %s (%s%s); --force runs it anyway",
					  fmtb(b1, bytes), fmtb(b2, budget),
					  cfg->sandbox_limit ? "sandbox limit + free swap - margin"
							     : "MemAvailable + SwapFree - margin",
					  mi.swap_free == 0 && !cfg->swap_bytes && !cfg->swap_dev ? "; there is no swap" : "");
			goto out;
		}
		result_note(res, "--force: %s is more than the budget %s; the OOM killer may end the row",
			    fmtb(b1, bytes), fmtb(b2, budget));
	}

	if (cfg->sandbox_limit) {
		struct sandbox_opts o = { cfg->sandbox_limit, cfg->swap_bytes, cfg->swap_dir, "/proc", cfg->swap_dev,
					  cfg->mkswap_ok };
		struct sandbox_swap sw;

		if ((r = sandbox_create(&sb, &o, err, sizeof(err)))) {
			/* No memory controller on this machine is a missing resource, not a failure. */
			result_set_status(res, r == -ENOENT || r == -ENOTSUP ? RESULT_SKIPPED : RESULT_FAILED,
					  "sandbox: %s", err);
			goto out;
		}
		sandbox_swap_info(sb, &sw);
		result_param(res, "sandbox", "memory cgroup v%d %s, limit %s%s", sandbox_cgroup_version(sb),
			     sandbox_cgroup_dir(sb), fmtb(b1, sandbox_limit_bytes(sb)),
			     sw.path ? "" : ", no own swap (system swap applies)");
		sandbox_swap_result(&sw, res);
		{
			struct sandbox_stat st;

			if (!sandbox_stat(sb, &st) && st.swappiness >= 0)
				sandbox_swappiness_param(sb, &st, res);
		}
		/* The box's swap as the row sees it, own file included. */
		sysinfo_release(&si);
		if (sysinfo_collect(&si, &so) < 0)
			sysinfo_init(&si);
	}
	swap_params(res, &si);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		result_set_status(res, RESULT_FAILED, "cannot map the shared page: %s", strerror(errno));
		goto teardown;
	}
	memset(sh, 0, sizeof(*sh));
	sh->bytes = bytes;
	sh->page = page;
	sh->order = cfg->order;
	sh->passes = cfg->passes;
	sh->seed = cfg->seed;
	sh->sandboxed = sb != NULL;
	sh->time_ns = cfg->time_ns;
	sh->stop = env->stop;
	/*
	 * The window is the measuring child's life, from just after it is
	 * started (so the time budget finds it at the window's first edge):
	 * the sandbox and swap set up before it are not the rung's. Its
	 * limits are the child's: the sandbox's memory limit, with the
	 * cgroup's high-water mark reset at the start (engpass's cgroup).
	 */
	if ((r = sandbox_spawn(sb, row_child, sh, &pid))) {
		result_set_status(res, RESULT_FAILED, "cannot start the measuring process%s: %s",
				  sb ? " in the sandbox" : "", strerror(-r));
	} else if ((void)window_work(env->window, pid, sb ? sandbox_cgroup_dir(sb) : NULL),
		   (void)window_begin(env->window), sh->go = 1,
		   (r = wait_child(env, sh, pid, bytes / page * (1 + cfg->passes), &status)),
		   (void)window_end(env->window), r) {
		result_set_status(res, RESULT_FAILED, "cannot wait for the measuring process: %s", strerror(-r));
	} else if (WIFSIGNALED(status)) {
		struct sandbox_stat st = { .oom_kills = -1 };

		if (sb && sandbox_stat(sb, &st))
			st.oom_kills = -1;
		if (WTERMSIG(status) == SIGKILL && st.oom_kills > 0)
			result_set_status(res, RESULT_FAILED, "the OOM killer ended the row inside the sandbox "
					  "(%lld OOM kills): the area did not fit in limit + swap",
					  (long long)st.oom_kills);
		else
			result_set_status(res, RESULT_FAILED, "the measuring process was killed by signal %d%s",
					  WTERMSIG(status),
					  WTERMSIG(status) == SIGKILL ? " (the OOM killer, or a stop that took too long)" : "");
		metrics(res, cfg, sh);
		result_set_incomplete(res);
	} else if (WEXITSTATUS(status)) {
		result_set_status(res, RESULT_FAILED, "%s: %s", sh->err_what ? sh->err_what : "measuring process failed",
				  sh->err ? strerror(sh->err) : "unknown error");
	} else {
		metrics(res, cfg, sh);
		if (sh->stopped)
			result_set_incomplete(res);
	}
	if (sb) {
		struct sandbox_stat st;

		if (!sandbox_stat(sb, &st)) {
			if (st.peak_bytes >= 0)
				result_metric(res, "sandbox_mem_peak", UNIT_BYTES, (double)st.peak_bytes,
					      "sandbox memory peak");
			if (st.memsw_peak_bytes >= 0)
				result_metric(res, "sandbox_memsw_peak", UNIT_BYTES, (double)st.memsw_peak_bytes,
					      "sandbox memory + swap peak");
			if (st.swap_peak_bytes >= 0)
				result_metric(res, "sandbox_swap_peak", UNIT_BYTES, (double)st.swap_peak_bytes,
					      "sandbox swap peak");
			if (st.limit_hits >= 0)
				result_metric(res, "sandbox_limit_hits", UNIT_COUNT, (double)st.limit_hits,
					      "times the sandbox hit its limit");
		}
	}
	munmap(sh, sizeof(*sh));
teardown:
	if (sb && (r = sandbox_destroy(sb, err, sizeof(err)))) {
		/* Figures stand, but a sandbox left behind is a failure to report loudly. */
		result_set_status(res, RESULT_FAILED, "sandbox teardown: %s", err);
	}
out:
	sysinfo_release(&si);
}
