/* SPDX-License-Identifier: MIT */
/*
 * procwatch: the reader behind `engpass watch`. At each call it re-reads
 * /proc/stat, one interface's line of /proc/net/dev, one disk's line of
 * /proc/diskstats, and one process's /proc/PID/stat with every
 * /proc/PID/task/TID/stat, and turns the pair of readings into one
 * interval: per-CPU busy, softirq and steal with the busiest core, the
 * interface's rx/tx rate, the disk's requests, the process's CPU (all
 * threads), RSS and the CPUs its threads ran on.
 *
 * Why not the sampler: the sampler stores its series for the result and
 * stops storing after max_samples, while a watch may run for days and
 * needs every interval live (for the terminal line and the capacity
 * estimate) with constant memory; and the sampler does not look at
 * threads or give softirq and steal per CPU. procwatch keeps only the two
 * latest readings and running totals, so its memory does not grow with
 * time (it grows with the number of CPUs and of the process's threads).
 *
 * The parsing and delta maths are the pure functions of core/kernel/proc.h. Files
 * that are read every interval are opened once and re-read with pread();
 * /proc/PID/stat stays open, so when the process exits the read fails with
 * ESRCH even if its PID is reused. The task directory is listed afresh at
 * every reading (threads come and go); each thread's stat file is opened,
 * read and closed.
 *
 * Run time: each thread's task/TID/schedstat is read too (its first field,
 * the nanoseconds it ran on a CPU), so the process's CPU per interval is
 * also known exactly, not only in USER_HZ ticks; and with a process, the
 * schedstat of each CPU's ksoftirqd thread, the softirq work that CPU
 * deferred to a thread of its own (found once, by name, at the first
 * reading). A thread that exits loses its run time since the previous
 * reading (the process's stat keeps exited threads' ticks; schedstat has
 * no such total).
 *
 * Thread CPUs: a thread's CPU time in an interval (utime + stime delta of
 * its task stat) is attributed to the CPU it last ran on (field 39,
 * "processor") at the end of the interval. A thread that migrated within
 * the interval is attributed to one CPU only; with short intervals and a
 * pinned daemon this is exact enough to confirm the pinning.
 *
 * Everything is read below proc_root, so tests run against a fake tree.
 * The caller passes the time of each reading (monotonic ns), which keeps
 * the rates exact in tests. Nothing here prints or exits.
 */
#ifndef ENGPASS_PROCWATCH_H
#define ENGPASS_PROCWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"

struct procwatch;

/* Threads followed per process; beyond that they are counted, not read. */
#define PROCWATCH_MAX_THREADS 4096
/* Per-CPU arrays are at most this wide. */
#define PROCWATCH_MAX_CPUS 4096

struct procwatch_config {
	const char *proc_root;	/* NULL = "/proc" */
	pid_t pid;		/* 0 = no process */
	const char *iface;	/* interface name as in /proc/net/dev; NULL = none */
	const char *disk;	/* device name as in /proc/diskstats; NULL = none */
	long clk_tck;		/* USER_HZ; 0 = sysconf(_SC_CLK_TCK) */
	long page_size;		/* bytes per page for RSS; 0 = sysconf(_SC_PAGESIZE) */
	int ncpu;		/* CPUs configured (per-CPU arrays are at least this wide); 0 = from /proc/stat only */
};

/* Why some values of an interval are NaN. */
#define PROCWATCH_CPU_RESET	(1u << 0)	/* a /proc/stat counter went backwards */
#define PROCWATCH_NET_RESET	(1u << 1)	/* the interface's counters went backwards or it vanished */
#define PROCWATCH_DISK_RESET	(1u << 2)	/* the disk's counters went backwards or it vanished */
#define PROCWATCH_READ_ERROR	(1u << 3)	/* net/dev or diskstats could not be read */
#define PROCWATCH_PROC_GONE	(1u << 4)	/* the process exited (or is a zombie) */

/*
 * One interval between two readings. Percentages are 0..100 of the
 * interval (process and thread CPU: of one CPU, so a process can exceed
 * 100). NaN, or -1 for ints, means no data. The per-CPU arrays are owned
 * by the procwatch and valid until its next reading.
 */
struct procwatch_interval {
	double t_s;			/* end of the interval, seconds after the first reading */
	double interval_s;
	unsigned flags;			/* PROCWATCH_* */
	int ncpu_slots;			/* entries in the per-CPU arrays */
	const float *busy, *softirq, *steal;	/* by CPU number */
	double cpu_busy_pct, softirq_pct, steal_pct;	/* all CPUs */
	int busiest_cpu;
	double busiest_pct, busiest_softirq_pct, busiest_steal_pct;
	double rx_bytes_per_s, tx_bytes_per_s;
	double disk_reads_per_s, disk_writes_per_s;
	double disk_read_bytes_per_s, disk_write_bytes_per_s, disk_util_pct;
	bool proc_gone;			/* the process has exited by the end of this interval */
	double proc_cpu_pct;		/* all threads, from /proc/PID/stat */
	int64_t proc_rss_bytes;
	int proc_threads;		/* threads at the end of the interval */
	int proc_top_cpu;		/* CPU that got most of the threads' time in this interval */
	pid_t top_tid;			/* busiest thread of this interval; 0 none */
	double top_tid_cpu_pct;
	/*
	 * schedstat: the seconds the process's threads ran in the interval
	 * (NaN without schedstat), and by the CPU each thread last ran on
	 * (per-CPU array, seconds); the seconds each CPU's ksoftirqd ran
	 * (per-CPU array, NaN where none was found). Arrays are NULL without
	 * a process.
	 */
	double proc_run_s;
	const double *proc_run_on;
	const double *ksoftirqd_s;
	int proc_run_top_cpu;		/* CPU that got most of that run time; -1 none */
};

/* Ticks of one CPU summed over the intervals without a reset. */
struct procwatch_cpu_ticks {
	uint64_t busy, softirq, steal, total;
};

/* Totals over every interval so far. Pointers are owned by the procwatch. */
struct procwatch_summary {
	unsigned intervals;		/* complete intervals */
	unsigned gaps;			/* intervals with a flag other than PROC_GONE */
	double duration_s;		/* first reading to last */
	int ncpu_slots;
	const struct procwatch_cpu_ticks *cpu;	/* by CPU number */
	struct procwatch_cpu_ticks all;
	long clk_tck;

	double net_time_s;		/* time covered by intervals with interface data */
	uint64_t rx_bytes, tx_bytes;
	double disk_time_s;
	uint64_t disk_reads, disk_writes, disk_read_bytes, disk_write_bytes, disk_io_ticks_ms;

	bool have_proc;			/* a process was given */
	char comm[64];			/* its name at the first reading */
	char cpus_allowed[128];		/* Cpus_allowed_list at the first reading; "" unknown */
	double proc_time_s;		/* time covered by intervals with process data */
	uint64_t proc_ticks;		/* utime + stime of the whole process in that time */
	uint64_t rss_max_bytes;
	int64_t rss_last_bytes;		/* -1 unknown */
	int threads_last, threads_max;
	const uint64_t *thread_ticks_by_cpu;	/* thread time by the CPU it last ran on */
	uint64_t thread_ticks;		/* sum of the above */
	unsigned threads_untracked;	/* most threads beyond PROCWATCH_MAX_THREADS in one reading */
	pid_t top_tid;			/* thread with the most CPU time during the watch; 0 none */
	char top_comm[64];
	uint64_t top_ticks;
	int top_cpu;			/* the CPU it last ran on */
	double gone_after_s;		/* time of the reading that found it gone; NaN while alive */
	uint64_t run_ns;		/* schedstat run time of its threads over the watch */
	bool have_schedstat;		/* its threads' schedstat could be read */
	int busy_threads;		/* living threads with at least 5 % of that run time; 0 unknown */
	int ksoftirqd_found;		/* CPUs whose ksoftirqd thread was found */
};

/*
 * Opens the files for CFG (copied; its strings need not outlive the
 * call) and checks that what it names exists. Takes no reading yet.
 * Returns 0 with *OUT set (free with procwatch_free()); -ESRCH when the
 * process does not exist or is a zombie; -ENODEV when the interface is
 * not in net/dev; -ENXIO when the disk is not in diskstats; -errno when
 * stat cannot be read. *OUT is NULL on error.
 */
MUST_CHECK int procwatch_new(struct procwatch **out, const struct procwatch_config *cfg);

/* Closes the files and frees everything. NULL is ignored. */
void procwatch_free(struct procwatch *pw);

/*
 * Takes a reading at time NOW (monotonic ns, not before the previous
 * one). The first reading is the baseline and returns -ENODATA; each
 * later one fills *OUT with the interval since the previous reading and
 * returns 0. Returns -errno, with the reading discarded, when /proc/stat
 * cannot be read or parsed (the next interval then spans the gap). A
 * process that has exited is not an error: out->proc_gone says so, and
 * later readings no longer look at it.
 */
MUST_CHECK int procwatch_read(struct procwatch *pw, uint64_t now, struct procwatch_interval *out);

/* Fills *OUT with the totals so far; its pointers live as long as PW. */
void procwatch_summary(const struct procwatch *pw, struct procwatch_summary *out);

/*
 * Does the kernel under PROC_ROOT account interrupt time apart from the
 * tasks it interrupts (CONFIG_IRQ_TIME_ACCOUNTING)? Then a task's
 * schedstat leaves out the softirq work done while it ran, and
 * /proc/stat's softirq is that work's exact time; without it the softirq
 * a task runs inline (on its own sends and receives) is in its run time
 * and /proc/stat's softirq is sampled by the tick. Read from
 * BOOT_DIR/config-RELEASE (NULL = "/boot"); where that is missing, from
 * /proc/stat's hardirq column: the tick never lands in a hardirq it did
 * not raise, so only exact accounting makes it grow. Returns 1 (apart),
 * 0 (inline) or -errno when neither could be read; WHY (LEN bytes) says
 * where the answer came from.
 */
MUST_CHECK int procwatch_irqtime(const char *proc_root, const char *boot_dir, char *why, size_t len);

/*
 * Finds processes called NAME below PROC_ROOT (NULL = "/proc"): those
 * whose comm equals NAME, or whose argv[0] (from cmdline) has NAME as
 * its last path component. comm is cut to 15 characters by the kernel,
 * so a longer NAME also matches a comm equal to its first 15 characters.
 * EXCLUDE (e.g. getpid()) is never matched; zombies are not matched.
 * Stores up to MAX PIDs, in ascending order, in PIDS and the number
 * found (which may exceed MAX) in *N. Returns 0 or -errno if PROC_ROOT
 * cannot be listed.
 */
MUST_CHECK int procwatch_find_name(const char *proc_root, const char *name, pid_t exclude, pid_t *pids,
				   size_t max, size_t *n);

#endif
