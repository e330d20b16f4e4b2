/* SPDX-License-Identifier: MIT */
/*
 * Background loads for `engpass latency`; see latency_load.h.
 */
#include "bench/latency/latency_load.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/latency/latency_spec.h"
#include "bench/latency/latency_task.h"
#include "core/base/clock.h"
#include "core/kernel/proc.h"
#include "core/kernel/sysinfo.h"
#include "core/work/tmpfile.h"
#include "lib/xalloc.h"

#define IO_BLOCK (1U << 20)		/* bytes per read or write */
#define SYNC_EVERY (8ULL << 20)		/* buffered fallback: fdatasync() interval */
#define MEM_CHUNK (1ULL << 20)		/* memload block */
#define MEM_CHECK_CHUNKS 64		/* memload: look at MemAvailable every 64 MiB */

struct burner {
	pthread_t th;
	bool started;
	const atomic_bool *halt;
	uint64_t cpu_ns;
};

struct file_load {
	pthread_t th;
	bool started;
	bool is_read;
	bool direct;			/* O_DIRECT, else buffered with syncs/fadvise */
	int fd;
	char *path;			/* registered in the temp-file registry */
	void *buf;
	uint64_t size;
	const atomic_bool *halt;
	uint64_t bytes;			/* moved since the load started */
	uint64_t passes;		/* whole passes over the file */
	int err;			/* -errno that stopped it early; 0 */
};

struct task_load {
	pthread_t th;
	bool started;
	struct lat_task task;
	struct lat_acct *acct;
};

/*
 * Shared with the memload child (MAP_SHARED), so lock-free atomics only:
 * 32-bit counters of MEM_CHUNK blocks, since a 32-bit CPU has no lock-free
 * 64-bit atomics (libatomic's locks would not reach the other process).
 */
struct mem_shared {
	atomic_uint touched;	/* blocks filled in the current round */
	atomic_uint peak;	/* most blocks held at once */
	atomic_uint rounds;	/* rounds completed */
	atomic_uint killed;	/* workers ended by SIGKILL (the OOM killer) and started again */
};

struct lat_loads {
	atomic_bool halt;
	unsigned parts;
	mono_ns start;
	struct tmpfile_reg *tmp;
	int nburn;
	struct burner *burn;
	struct file_load wr, rd;
	struct task_load tasks[LAT_NLOAD_TASKS];
	pid_t mem_pid;
	struct mem_shared *mem;
	struct lat_memload_size mem_size;
};

/* ------------------------------------------------------------------ */
/* burn */

static void *burn_main(void *arg)
{
	struct burner *b = arg;
	uint64_t c0 = clock_thread_cpu_ns(), x = c0;

	while (!atomic_load_explicit(b->halt, memory_order_relaxed)) {
		for (int i = 0; i < 4096; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
	}
	b->cpu_ns = clock_thread_cpu_ns() - c0;
	return NULL;
}

static int cpus_allowed(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

static int burn_start(struct lat_loads *l, int n, struct result *res)
{
	l->nburn = n > 0 ? n : cpus_allowed();
	l->burn = xcalloc((size_t)l->nburn, sizeof(*l->burn));
	for (int i = 0; i < l->nburn; i++) {
		int r;

		l->burn[i].halt = &l->halt;
		r = lat_spawn(&l->burn[i].th, burn_main, &l->burn[i]);
		if (r) {
			result_set_status(res, RESULT_FAILED, "cannot start a burn thread: %s", strerror(-r));
			return r;
		}
		l->burn[i].started = true;
	}
	result_method(res, "load burn", "%d thread%s spinning on multiply-adds, SCHED_OTHER nice 0%s", l->nburn,
		      l->nburn == 1 ? "" : "s", n > 0 ? " (--burners)" : ", one per CPU this process may run on");
	return 0;
}

/* ------------------------------------------------------------------ */
/* write and read */

static void *file_main(void *arg)
{
	struct file_load *f = arg;
	uint64_t off = 0, since_sync = 0;

	while (!atomic_load_explicit(f->halt, memory_order_relaxed)) {
		ssize_t n;

		if (off >= f->size) {
			off = 0;
			f->passes++;
			if (!f->is_read && ftruncate(f->fd, 0) < 0) {
				f->err = -errno;
				return NULL;
			}
			if (f->is_read && !f->direct)
				(void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
		}
		if (f->is_read) {
			n = pread(f->fd, f->buf, IO_BLOCK, (off_t)off);
		} else {
			/* Every block differs from the last (no deduplication), at the cost of one store. */
			((uint64_t *)f->buf)[0] = f->bytes;
			n = pwrite(f->fd, f->buf, IO_BLOCK, (off_t)off);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			f->err = -errno;
			return NULL;
		}
		if (n == 0) {
			off = f->size;
			continue;
		}
		off += (uint64_t)n;
		f->bytes += (uint64_t)n;
		since_sync += (uint64_t)n;
		if (!f->is_read && !f->direct && since_sync >= SYNC_EVERY) {
			since_sync = 0;
			if (fdatasync(f->fd) < 0) {
				f->err = -errno;
				return NULL;
			}
		}
	}
	return NULL;
}

/*
 * A pseudo-random block: devices and file systems that compress or
 * deduplicate cannot shortcut it, as they could a constant.
 */
static void fill_pattern(void *buf, uint64_t *x)
{
	uint64_t *w = buf;

	for (size_t i = 0; i < IO_BLOCK / sizeof(*w); i++) {
		*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
		w[i] = *x;
	}
}

/* Fills the read file with the pattern and pushes it to the device. */
static int file_fill(struct file_load *f)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (uint64_t off = 0; off < f->size; off += IO_BLOCK) {
		fill_pattern(f->buf, &x);
		for (size_t done = 0; done < IO_BLOCK;) {
			ssize_t n = pwrite(f->fd, (char *)f->buf + done, IO_BLOCK - done, (off_t)(off + done));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			done += (size_t)n;
		}
	}
	if (fdatasync(f->fd) < 0)
		return -errno;
	if (!f->direct)
		(void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

/*
 * Checks DIR for the file loads and chooses the size: refuses memory file
 * systems, sizes from free space. Returns 0 with *SIZE, or -errno with RES
 * marked.
 */
static int file_size_for(const char *dir, uint64_t asked, unsigned nfiles, uint64_t *size, struct result *res)
{
	struct statfs sf;
	struct statvfs sv;
	uint64_t avail;

	if (statfs(dir, &sf) < 0 || statvfs(dir, &sv) < 0) {
		int e = errno;

		result_set_status(res, RESULT_FAILED, "cannot look at '%s' for the file loads: %s", dir, strerror(e));
		return -e;
	}
	if ((uint32_t)sf.f_type == TMPFS_MAGIC || (uint32_t)sf.f_type == RAMFS_MAGIC) {
		result_set_status(res, RESULT_SKIPPED,
				  "'%s' is in memory (tmpfs or ramfs): the write and read loads would never reach a "
				  "device; give --dir on a disk", dir);
		return -EOPNOTSUPP;
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (asked) {
		*size = asked;
		if (asked * nfiles + LAT_FILE_SIZE_MIN > avail) {
			result_set_status(res, RESULT_SKIPPED, "--file-size %llu MiB x %u does not fit the %llu MiB free in '%s'",
					  (unsigned long long)(asked >> 20), nfiles, (unsigned long long)(avail >> 20), dir);
			return -ENOSPC;
		}
		return 0;
	}
	*size = avail / (8 * nfiles);
	if (*size > LAT_FILE_SIZE_MAX)
		*size = LAT_FILE_SIZE_MAX;
	*size &= ~((uint64_t)IO_BLOCK - 1);
	if (*size < LAT_FILE_SIZE_MIN) {
		result_set_status(res, RESULT_SKIPPED, "only %llu MiB free in '%s': too little for the file loads",
				  (unsigned long long)(avail >> 20), dir);
		return -ENOSPC;
	}
	return 0;
}

static int file_start(struct lat_loads *l, struct file_load *f, bool is_read, const struct lat_load_cfg *cfg,
		      uint64_t size, struct result *res)
{
	const char *what = is_read ? "read" : "write";
	char prefix[32];
	int r;

	f->is_read = is_read;
	f->size = size;
	f->halt = &l->halt;
	f->fd = -1;
	snprintf(prefix, sizeof(prefix), "latency-%s", what);
	r = tmpfile_create(l->tmp, cfg->dir, prefix, O_DIRECT, &f->fd, &f->path);
	f->direct = r == 0;
	if (r == -EINVAL)
		r = tmpfile_create(l->tmp, cfg->dir, prefix, 0, &f->fd, &f->path);
	if (r) {
		result_set_status(res, RESULT_FAILED, "cannot create the %s load's temp file in '%s': %s", what,
				  cfg->dir, strerror(-r));
		return r;
	}
	f->buf = xaligned_alloc(4096, IO_BLOCK);
	{
		uint64_t x = 0x6a09e667f3bcc908ULL;

		fill_pattern(f->buf, &x);
	}
	if (is_read && (r = file_fill(f)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot fill the read load's file in '%s': %s", cfg->dir,
				  strerror(-r));
		return r;
	}
	r = lat_spawn(&f->th, file_main, f);
	if (r) {
		result_set_status(res, RESULT_FAILED, "cannot start the %s load: %s", what, strerror(-r));
		return r;
	}
	f->started = true;
	if (f->direct)
		result_method(res, is_read ? "load read" : "load write",
			      is_read ? "re-reads a %llu MiB engpass temp file in '%s' sequentially, 1 MiB O_DIRECT "
					"reads, queue depth 1 (filled with a pattern before the cell)"
				      : "rewrites a %llu MiB engpass temp file in '%s' sequentially, 1 MiB O_DIRECT "
					"writes, queue depth 1, truncating at the end of each pass",
			      (unsigned long long)(size >> 20), cfg->dir);
	else
		result_method(res, is_read ? "load read" : "load write",
			      is_read ? "re-reads a %llu MiB engpass temp file in '%s', buffered (the file system "
					"refused O_DIRECT), POSIX_FADV_DONTNEED before every pass"
				      : "rewrites a %llu MiB engpass temp file in '%s', buffered (the file system "
					"refused O_DIRECT), fdatasync every 8 MiB",
			      (unsigned long long)(size >> 20), cfg->dir);
	return 0;
}

static void file_stop(struct lat_loads *l, struct file_load *f, double wall_s, struct result *res)
{
	const char *what = f->is_read ? "read" : "write";
	char name[48];
	int r;

	if (f->started) {
		pthread_join(f->th, NULL);
		snprintf(name, sizeof(name), "load_%s", what);
		result_metric(res, name, UNIT_BYTES_PER_S, wall_s > 0 ? (double)f->bytes / wall_s : 0,
			      f->is_read ? "read load achieved" : "write load achieved");
		if (f->err) {
			result_note(res, "the %s load stopped early: %s", what, strerror(-f->err));
			result_set_incomplete(res);
		}
	}
	if (f->fd >= 0)
		close(f->fd);
	if (f->path) {
		r = tmpfile_remove(l->tmp, f->path);
		if (r)
			result_note(res, "could not remove '%s': %s", f->path, strerror(-r));
		free(f->path);
	}
	free(f->buf);
}

/* ------------------------------------------------------------------ */
/* memload */

/* MemAvailable + SwapFree in bytes, read without allocating (the child may not malloc); 0 if unknown. */
static uint64_t mem_room(void)
{
	char buf[8192];
	struct proc_meminfo mi;
	ssize_t n, len = 0;
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (len < (ssize_t)sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	if (proc_meminfo_parse(&mi, buf, (size_t)len) < 0 || mi.mem_available == PROC_NONE)
		return 0;
	return mi.mem_available + (mi.swap_free == PROC_NONE ? 0 : mi.swap_free);
}

static _Noreturn void mem_work(struct mem_shared *sh, uint64_t size, uint64_t low_water);

/*
 * The memload child: a small supervisor of the worker that holds the
 * memory. The worker is the OOM killer's first choice (oom_score_adj
 * 1000); when it is killed, the supervisor counts it and starts another,
 * so the load lasts the whole cell. In a memory cgroup v1 sandbox the
 * kernel's reclaim can give up while swap is still free (a slow swap
 * device under a thrashing load: issue 36 saw memload killed in 2 of 3
 * cells) and the cell would otherwise run without its load. Forked from a
 * threaded process, so both use only system calls and plain memory
 * operations (no malloc, no stdio).
 */
static _Noreturn void mem_child(struct mem_shared *sh, uint64_t size, uint64_t low_water, pid_t parent)
{
	struct sigaction sa;
	sigset_t none;

	/*
	 * The stop signals are the parent's business (it kills this child
	 * with SIGKILL when the cell ends, or this child dies with it through
	 * PR_SET_PDEATHSIG); a Ctrl-C sent to the whole process group must not
	 * end the load before the parent has looked at it.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;) {
		pid_t self = getpid(), w = fork();
		int st;

		if (w < 0)
			_exit(4);
		if (w == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			mem_work(sh, size, low_water);
		}
		while (waitpid(w, &st, 0) < 0)
			if (errno != EINTR)
				_exit(4);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 5);
		atomic_fetch_add(&sh->killed, 1);
		atomic_store(&sh->touched, 0);
		{
			struct timespec ts = { 0, 10 * 1000000L };	/* 10 ms: no tight loop of kills */

			nanosleep(&ts, NULL);
		}
	}
}

/* The memload worker: fills and copies its area until killed. */
static _Noreturn void mem_work(struct mem_shared *sh, uint64_t size, uint64_t low_water)
{
	uint64_t x = 0x2545f4914f6cdd1dULL;
	int fd;

	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "1000", 4);
		close(fd);
	}
	if (size > SIZE_MAX / 2)	/* a 32-bit address space: mmap takes a size_t */
		size = SIZE_MAX / 2;
	for (;;) {
		char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		uint64_t n = 0;

		if (p == MAP_FAILED) {
			if (size < 4 * MEM_CHUNK)
				_exit(3);
			size /= 2;
			continue;
		}
		for (uint64_t off = 0; off + MEM_CHUNK <= size; off += MEM_CHUNK) {
			uint64_t *w = (uint64_t *)(void *)(p + off);

			if (n % MEM_CHECK_CHUNKS == 0 && mem_room() < low_water)
				break;
			/* A pattern, not memset: zram and zswap store same-filled pages for free. */
			for (size_t i = 0; i < MEM_CHUNK / sizeof(*w); i += 512 / sizeof(*w)) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				for (size_t j = 0; j < 512 / sizeof(*w); j++)
					w[i + j] = x + j;
			}
			n++;
			atomic_store(&sh->touched, (unsigned)n);
			if (n > atomic_load(&sh->peak))
				atomic_store(&sh->peak, (unsigned)n);
		}
		for (uint64_t i = 0; n > 1 && i < n; i++) {
			if (i % MEM_CHECK_CHUNKS == 0 && mem_room() < low_water / 2)
				break;
			memcpy(p + i * MEM_CHUNK, p + ((i + n / 2) % n) * MEM_CHUNK, MEM_CHUNK);
		}
		munmap(p, size);
		atomic_store(&sh->touched, 0);
		atomic_fetch_add(&sh->rounds, 1);
	}
}

static int mem_start(struct lat_loads *l, uint64_t asked, uint64_t sandbox_limit, struct result *res)
{
	struct sysinfo si;
	struct sysinfo_opts so = { .proc_root = "/proc", .sys_root = "/sys", .calibrate = false, .probe_uring = false };
	int64_t effective, available, swap_free = 0;
	struct lat_memload_size *sz = &l->mem_size;
	char a[32], b[32], c[32];
	pid_t parent = getpid();
	int r;

	if ((r = sysinfo_collect(&si, &so)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot read the memory sizes: %s", strerror(-r));
		return r;
	}
	effective = si.mem.effective_bytes;
	available = si.mem.available_bytes;
	if (sandbox_limit) {
		/* In the sandbox the limit is the memory; the swap is the box's (the sandbox's own included). */
		effective = (int64_t)sandbox_limit;
		available = (int64_t)sandbox_limit;
	}
	for (size_t i = 0; i < si.nr_swaps; i++)
		if (si.swaps[i].size_bytes > 0 && si.swaps[i].used_bytes >= 0)
			swap_free += si.swaps[i].size_bytes - si.swaps[i].used_bytes;
	sysinfo_release(&si);
	if (effective <= 0 || available < 0) {
		result_set_status(res, RESULT_FAILED, "cannot read the memory sizes from /proc/meminfo");
		return -EIO;
	}
	r = lat_memload_size((uint64_t)effective, (uint64_t)available, (uint64_t)swap_free, asked, sz);
	snprintf(a, sizeof(a), "%llu MiB", (unsigned long long)(sz->target >> 20));
	snprintf(b, sizeof(b), "%llu MiB", (unsigned long long)(sz->ceiling >> 20));
	snprintf(c, sizeof(c), "%llu MiB", (unsigned long long)(sz->margin >> 20));
	if (r == -ENOMEM) {
		result_set_status(res, RESULT_SKIPPED, "not enough memory to spare for memload: MemAvailable + SwapFree "
				  "minus a %s margin leaves %s", c, b);
		return r;
	}
	l->mem = mmap(NULL, sizeof(*l->mem), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->mem == MAP_FAILED) {
		r = -errno;
		l->mem = NULL;
		result_set_status(res, RESULT_FAILED, "cannot map memload's shared page: %s", strerror(-r));
		return r;
	}
	memset(l->mem, 0, sizeof(*l->mem));
	l->mem_pid = fork();
	if (l->mem_pid < 0) {
		r = -errno;
		l->mem_pid = 0;
		result_set_status(res, RESULT_FAILED, "cannot fork the memload process: %s", strerror(-r));
		return r;
	}
	if (l->mem_pid == 0)
		mem_child(l->mem, sz->size, sz->margin, parent);
	result_method(res, "load memload",
		      "child process maps %llu MiB of anonymous memory (%s: %s%s; %s + SwapFree - %s margin "
		      "= %s), fills it with a pattern, copies block i from block i+n/2, unmaps, repeats; grows only "
		      "while MemAvailable + SwapFree stays above the margin; oom_score_adj 1000; a worker the OOM killer "
		      "ends is started again by its supervisor and counted (load_memload_killed)",
		      (unsigned long long)(sz->size >> 20),
		      asked ? "--memload-size" : sandbox_limit ? "110 % of the sandbox limit" : "110 % of effective memory", a,
		      sz->limited ? ", limited by the ceiling" : "", sandbox_limit ? "the sandbox limit" : "MemAvailable", c, b);
	if (swap_free == 0)
		result_note(res, "no free swap: memload cannot push pages out to swap, it can only evict page cache");
	return 0;
}

static void mem_stop(struct lat_loads *l, struct result *res)
{
	int st = 0;
	pid_t w;

	if (l->mem_pid > 0) {
		w = waitpid(l->mem_pid, &st, WNOHANG);
		if (w == l->mem_pid) {
			if (WIFSIGNALED(st))
				result_note(res, "the memload process died early of signal %d%s", WTERMSIG(st),
					    WTERMSIG(st) == SIGKILL ? " (the OOM killer?)" : "");
			else
				result_note(res, "the memload process ended early with status %d", WEXITSTATUS(st));
			result_set_incomplete(res);
		} else {
			kill(l->mem_pid, SIGKILL);
			while (waitpid(l->mem_pid, &st, 0) < 0 && errno == EINTR)
				;
		}
		l->mem_pid = 0;
	}
	if (l->mem) {
		result_metric(res, "load_memload_target", UNIT_BYTES, (double)l->mem_size.size, "memload size asked");
		result_metric(res, "load_memload_peak", UNIT_BYTES, (double)atomic_load(&l->mem->peak) * MEM_CHUNK,
			      "memload held at most");
		result_metric(res, "load_memload_rounds", UNIT_COUNT, (double)atomic_load(&l->mem->rounds),
			      "memload rounds completed");
		result_metric(res, "load_memload_killed", UNIT_COUNT, (double)atomic_load(&l->mem->killed),
			      "memload workers OOM-killed and restarted")->higher_is_better = false;
		if (atomic_load(&l->mem->killed))
			result_note(res, "memload's worker was killed by SIGKILL (the OOM killer: the memory cgroup's "
				    "reclaim gave up, see the kernel log) %u time%s and started again each time, so the load "
				    "lasted the cell", atomic_load(&l->mem->killed), atomic_load(&l->mem->killed) == 1 ? "" : "s");
		if (!atomic_load(&l->mem->rounds) && atomic_load(&l->mem->peak) * MEM_CHUNK < l->mem_size.size)
			result_note(res, "memload filled %llu of its %llu MiB while the cell ran (it grows as fast as "
				    "the machine hands out fresh pages); a longer --warmup lets it reach its size",
				    (unsigned long long)atomic_load(&l->mem->peak),	/* MEM_CHUNK is 1 MiB */
				    (unsigned long long)(l->mem_size.size >> 20));
		munmap(l->mem, sizeof(*l->mem));
		l->mem = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* simulated tasks as loads */

static int tasks_start(struct lat_loads *l, struct result *res)
{
	for (unsigned k = 0; k < LAT_NLOAD_TASKS; k++) {
		struct task_load *t = &l->tasks[k];
		int r;

		if (!(l->parts & (1u << k)))
			continue;
		t->acct = xmalloc(sizeof(*t->acct));
		lat_acct_init(t->acct);
		t->task = (struct lat_task){ .kind = (enum lat_task_kind)k, .halt = &l->halt, .acct = t->acct,
					     .policy = SCHED_OTHER };
		r = lat_spawn(&t->th, lat_task_main, &t->task);
		if (r) {
			result_set_status(res, RESULT_FAILED, "cannot start the %s load: %s",
					  lat_task_info((enum lat_task_kind)k)->name, strerror(-r));
			return r;
		}
		t->started = true;
		result_method(res, k == LAT_TASK_AUDIO ? "load audio" : k == LAT_TASK_VIDEO ? "load video"
				   : k == LAT_TASK_X ? "load x" : "load gaming",
			      "the simulated %s task (%s) as a thread, SCHED_OTHER nice 0",
			      lat_task_info((enum lat_task_kind)k)->name, lat_task_info((enum lat_task_kind)k)->profile);
	}
	return 0;
}

static void tasks_stop(struct lat_loads *l, struct result *res)
{
	for (unsigned k = 0; k < LAT_NLOAD_TASKS; k++) {
		struct task_load *t = &l->tasks[k];
		struct lat_summary s;
		char name[48], label[64];
		const char *tn = lat_task_info((enum lat_task_kind)k)->name;

		if (t->started) {
			pthread_join(t->th, NULL);
			lat_acct_summary(t->acct, k == LAT_TASK_GAMING, &s);
			snprintf(name, sizeof(name), "load_%s_desired_cpu", tn);
			snprintf(label, sizeof(label), "%s load's %% desired CPU", tn);
			result_metric(res, name, UNIT_PERCENT, s.desired_cpu_pct, label);
		}
		free(t->acct);
		t->acct = NULL;
	}
}

/* ------------------------------------------------------------------ */

int lat_loads_start(struct lat_loads **out, const struct lat_load_cfg *cfg, struct result *res)
{
	struct lat_loads *l = xcalloc(1, sizeof(*l));
	unsigned nfiles = !!(cfg->parts & LAT_PART_WRITE) + !!(cfg->parts & LAT_PART_READ);
	uint64_t fsize = 0;
	int r = 0;

	*out = NULL;
	atomic_init(&l->halt, false);
	l->parts = cfg->parts;
	l->tmp = cfg->tmp;
	l->wr.fd = l->rd.fd = -1;
	/* The memload child is forked first, before this module adds threads of its own. */
	if (cfg->parts & LAT_PART_MEMLOAD)
		r = mem_start(l, cfg->memload_size, cfg->sandbox_limit, res);
	if (!r && nfiles)
		r = file_size_for(cfg->dir, cfg->file_size, nfiles, &fsize, res);
	if (!r && (cfg->parts & LAT_PART_READ))
		r = file_start(l, &l->rd, true, cfg, fsize, res);
	if (!r && (cfg->parts & LAT_PART_WRITE))
		r = file_start(l, &l->wr, false, cfg, fsize, res);
	if (!r && (cfg->parts & LAT_PART_BURN))
		r = burn_start(l, cfg->burners, res);
	if (!r)
		r = tasks_start(l, res);
	l->start = clock_mono();
	if (r) {
		/* Stop what started without reporting figures for a cell that will not run. */
		struct result *scratch = result_new("latency", NULL);

		lat_loads_stop(l, scratch);
		for (size_t i = 0; i < scratch->nnotes; i++)
			result_note(res, "%s", scratch->notes[i]);
		result_free(scratch);
		return r < 0 ? r : -EIO;
	}
	*out = l;
	return 0;
}

void lat_loads_stop(struct lat_loads *l, struct result *res)
{
	double wall_s, share = 0;
	uint64_t cpu = 0;

	if (!l)
		return;
	atomic_store(&l->halt, true);
	wall_s = elapsed_s(l->start, clock_mono());
	tasks_stop(l, res);
	if (l->nburn) {
		int joined = 0;

		for (int i = 0; i < l->nburn; i++) {
			if (!l->burn[i].started)
				continue;
			pthread_join(l->burn[i].th, NULL);
			cpu += l->burn[i].cpu_ns;
			joined++;
		}
		if (joined && wall_s > 0)
			share = 100.0 * (double)cpu / 1e9 / wall_s / joined;
		if (joined)
			result_metric(res, "load_burn_cpu_share", UNIT_PERCENT, share,
				      "burn load: CPU got per thread");
		free(l->burn);
	}
	file_stop(l, &l->wr, wall_s, res);
	file_stop(l, &l->rd, wall_s, res);
	mem_stop(l, res);
	free(l);
}
