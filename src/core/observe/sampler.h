/* SPDX-License-Identifier: MIT */
/*
 * The background sampler: while a benchmark runs, a thread reads /proc at
 * a fixed interval and turns each pair of snapshots into one struct sample
 * (per-CPU busy, iowait, softirq, steal, the busiest disk and interface,
 * swap and fault rates, available memory, PSI stall shares, UDP receive
 * errors, the CPU and RSS of one watched process, and the CPU and run-queue
 * wait of each thread of the work). After the step, sampler_summary()
 * condenses the whole series into a struct sysview for the verdict, so it
 * can judge the work rather than the box.
 *
 * Read at every snapshot: stat, diskstats, meminfo, vmstat, pressure/{cpu,memory,io},
 * net/dev, net/snmp, PID/stat, WORK_PID/stat and WORK_PID/task/TID/{stat,schedstat}.
 * Read at every snapshot from /sys: the temperature sensors and the CPU
 * cooling devices' states (core/kernel/thermal.h; none on most VMs).
 * Read only at the edges of each span (sampler_start's first snapshot and
 * sampler_stop's last), because they cost more: PID/stat of every other
 * process (cfg.others), the counters of the configured limits
 * (cfg.limits, core/observe/limits.h; discovered at the first start) and the
 * CPU's thermal throttle counters.
 *
 * Cost: the files are opened once and re-read with pread() at offset 0
 * (a work thread's two files are opened at each snapshot, under the open
 * task directory); parsing is allocation-free after the first sample.
 * docs/sampler.md has the measured cost (well under 0.5 % of one core at
 * 250 ms; the edge scan of other processes is paid once per span).
 *
 * Memory: samples are stored in fixed-size chunks allocated as the series
 * grows, never moved (so pointers returned by sampler_get() stay valid),
 * and never more than max_samples of them; past that the sampler keeps
 * summarising but stops storing and counts the drop. With the default of
 * 14400 samples (an hour at 250 ms) and 2 CPUs that is about 4.4 MB.
 *
 * Threading: one sampler is driven from one thread. sampler_start() and
 * sampler_stop() bracket the background thread; while it runs, only
 * sampler_stop() and sampler_free() may be called. Everything else
 * (sampler_count, sampler_get, sampler_summary, sampler_sample_now) is for
 * when the thread is not running.
 */
#ifndef ENGPASS_SAMPLER_H
#define ENGPASS_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"
#include "core/observe/limits.h"
#include "core/base/sysview.h"

struct sampler;
struct sample;

#define SAMPLER_DEFAULT_INTERVAL_NS	250000000ULL	/* 250 ms */
#define SAMPLER_MIN_INTERVAL_NS		10000000ULL	/* 10 ms */
#define SAMPLER_MAX_INTERVAL_NS		10000000000ULL	/* 10 s */
#define SAMPLER_DEFAULT_MAX_SAMPLES	14400
#define SAMPLER_MAX_CPUS		4096	/* per-CPU series width cap */
#define SAMPLER_MAX_DEVS		256	/* disks and interfaces tracked, each */
#define SAMPLER_MAX_THREADS		256	/* work threads read per snapshot, and tracked over a window */
#define SAMPLER_MAX_PROCS		4096	/* processes read by one edge scan (cfg.others) */
#define SAMPLER_OTHERS_TRACKED		64	/* other processes whose CPU is kept between spans */

struct sampler_config {
	const char *proc_root;	/* "/proc" normally (NULL = "/proc"); tests point it at a fixture tree */
	uint64_t interval_ns;	/* 0 = 250 ms; valid 10 ms .. 10 s, else -EINVAL */
	pid_t pid;		/* 0 = no process watched */
	size_t max_samples;	/* bound on stored samples; 0 = SAMPLER_DEFAULT_MAX_SAMPLES */
	const char *disk;	/* report this disk (diskstats name) instead of the busiest; NULL = busiest */
	const char *iface;	/* report this interface instead of the busiest; NULL = busiest */
	long clk_tck;		/* USER_HZ for /proc/PID/stat times; 0 = sysconf(_SC_CLK_TCK) */
	long page_size;		/* bytes per page for RSS; 0 = sysconf(_SC_PAGESIZE) */
	/*
	 * Timestamp source for snapshots, in monotonic nanoseconds; NULL =
	 * clock_mono(). Tests inject a fake clock to make rates exact. The
	 * thread's sleeping always uses the real CLOCK_MONOTONIC.
	 */
	uint64_t (*now)(void *arg);
	void *now_arg;
	/*
	 * The work: read PROC_ROOT/work_pid/task/TID/{stat,schedstat} at every
	 * snapshot, the sampler's own thread left out (the thread calling
	 * start and stop is kept). Threads are matched by TID and starttime.
	 * A thread born within an interval counts whole (else its first
	 * snapshot is its baseline); one that exited has its last part from
	 * WORK_PID/stat, which keeps exited threads' time. At most
	 * SAMPLER_MAX_THREADS are read per snapshot and tracked over the
	 * window (later ones are left out). CPU is schedstat's run time, or
	 * stat's utime + stime without schedstat (wait is then unknown).
	 * 0 = none.
	 */
	pid_t work_pid;
	/*
	 * Other processes: scan PROC_ROOT/PID/stat of every process at the
	 * edges of each span only (the start and the stop snapshots), all but
	 * work_pid and this process, at most SAMPLER_MAX_PROCS per scan. A
	 * process born in the span counts whole; one that ended in it is not
	 * seen. The busiest SAMPLER_OTHERS_TRACKED are kept between spans.
	 */
	bool others;
	/*
	 * Heat (core/kernel/thermal.h): the sensors and CPU cooling devices under
	 * SYS_ROOT are read at every snapshot, the CPU throttle counters at
	 * the edges of each span. NULL = "/sys"; tests point it at a fixture.
	 */
	const char *sys_root;
	/*
	 * Thread states of the work (core/observe/tstate.h), for its time budget:
	 * its threads are sampled every state_interval_ns by the sampling
	 * thread between its snapshots. 0 = TSTATE_DEFAULT_INTERVAL_NS
	 * (100 Hz); UINT64_MAX = off. Nothing without work_pid.
	 * state_children follows the work's child processes too (watch).
	 */
	uint64_t state_interval_ns;
	bool state_children;
	bool state_own;		/* work_pid is this process (core/observe/tstate.h's idle rule) */
	/* The limits to discover at the first start and whose counters to read at each edge; NULL = none. */
	const struct limits_config *limits;
	/*
	 * Called with each new sample (the interval that just ended), in the
	 * thread that took it: the sampling thread, or the caller of
	 * sampler_start(), sampler_stop() or sampler_sample_now(). X and
	 * what it points at are valid during the call only. The call delays
	 * the next snapshot: it must not block or do slow I/O (copy what it
	 * needs and return; the runner's --format jsonl queues a record for
	 * its writer thread). NULL = none.
	 */
	void (*on_sample)(void *arg, const struct sample *x);
	void *on_sample_arg;
};

/* Flags of a sample: why some of its values are NaN. */
#define SAMPLE_CPU_RESET	(1u << 0)	/* a /proc/stat counter went backwards (aggregate or a CPU) */
#define SAMPLE_DISK_RESET	(1u << 1)	/* a disk's counters went backwards; it was left out */
#define SAMPLE_NET_RESET	(1u << 2)	/* an interface's counters went backwards; it was left out */
#define SAMPLE_VM_RESET		(1u << 3)	/* a vmstat counter went backwards */
#define SAMPLE_PSI_RESET	(1u << 4)	/* a PSI total went backwards */
#define SAMPLE_PROC_GONE	(1u << 5)	/* the watched process exited or its PID was reused */
#define SAMPLE_READ_ERROR	(1u << 6)	/* a file that was readable before could not be read */
#define SAMPLE_CPU_CHANGED	(1u << 7)	/* a CPU went offline or came online in this interval */

/*
 * One interval between two snapshots. Percentages are 0..100 of the
 * interval; NaN (or -1 for ints) means no data. Pointers are owned by the
 * sampler and live until sampler_free().
 */
struct sample {
	double t_s;			/* end of the interval, seconds after the first snapshot */
	double interval_s;
	unsigned flags;			/* SAMPLE_* */
	double cpu_busy_pct;		/* all CPUs */
	double iowait_pct, softirq_pct, steal_pct;
	int busiest_cpu;		/* -1 if no CPU had data */
	double busiest_cpu_pct;
	int ncpu_slots;			/* entries in cpu_pct (same for every sample of a sampler) */
	const float *cpu_pct;		/* busy % by CPU number; NaN = offline or no data */
	int procs_running, procs_blocked;	/* at the end of the interval; -1 unknown */
	const char *disk;		/* the busiest disk of this interval (or the configured one); "" none */
	double disk_util_pct, disk_reads_per_s, disk_writes_per_s;
	double disk_read_bytes_per_s, disk_write_bytes_per_s;
	double swap_in_pages_per_s, swap_out_pages_per_s, major_faults_per_s;
	double mem_available_bytes;	/* at the end of the interval */
	double psi_cpu_some_pct, psi_mem_some_pct, psi_mem_full_pct, psi_io_some_pct, psi_io_full_pct;
	const char *iface;		/* the busiest interface of this interval (or the configured one); "" none */
	double net_rx_bytes_per_s, net_tx_bytes_per_s;
	double proc_cpu_pct;		/* of one CPU */
	int64_t proc_rss_bytes;		/* -1 unknown */
	int work_threads;		/* threads of the work at the end of the interval; 0 none watched */
	double work_cpu_pct;		/* CPU of the work's threads (sampler's left out), of one CPU */
	double work_wait_pct;		/* their run-queue wait, of one CPU; NaN without schedstat */
	double udp_rcvbuf_errors, udp_in_errors;	/* counts in the interval; NaN unknown */
};

/*
 * Create a sampler: validate cfg, open the files under proc_root (stat,
 * diskstats, meminfo, vmstat, pressure/{cpu,memory,io}, net/dev, net/snmp,
 * PID/stat, the directory WORK_PID/task) and keep them open. Only stat is required; a missing optional file
 * (pressure/ on a kernel without PSI, diskstats in a container) leaves its
 * fields NaN. cfg is copied; the strings in it need not outlive the call.
 * cfg.limits and its strings are copied too.
 * Returns 0 with *out set (caller frees with sampler_free()), or -EINVAL
 * for a bad interval or a negative PID, -ESRCH if pid or work_pid does not exist, -errno if stat cannot
 * be opened. *out is NULL on error.
 */
MUST_CHECK int sampler_new(struct sampler **out, const struct sampler_config *cfg);

/*
 * Take the first snapshot synchronously (so a step's first interval starts
 * now), then start the sampling thread, which sleeps to absolute deadlines
 * start + k * interval (a late wake-up skips missed deadlines instead of
 * drifting or bunching). The thread blocks all signals.
 *
 * Started again after sampler_stop(), the sampler resumes: that first
 * snapshot is a new baseline, so the time it was stopped adds no sample
 * and no time to the summary (its duration_s is the sampled time; a
 * sample's t_s still counts from the very first snapshot). This is how one
 * summary covers several spans, e.g. the measured part of each
 * repetition (core/observe/window.h).
 * After the snapshot, still in the calling thread: the limits are
 * discovered (first start only) and their counters read, and the other
 * processes are scanned (cfg.others); that time counts in sampler_cpu_ns().
 * Returns 0; -EALREADY if running; -errno from the snapshot or
 * pthread_create.
 */
MUST_CHECK int sampler_start(struct sampler *s);

/*
 * Wake the thread at once (no wait for the current interval), join it, and
 * take a final snapshot so the series ends now; then read the limits'
 * counters and scan the other processes again, adding this span's
 * differences. Returns 0, -EINVAL if not running, or -errno of the final
 * snapshot (the thread is stopped anyway).
 */
MUST_CHECK int sampler_stop(struct sampler *s);

/*
 * The sampler will not run again: stop the thread if running, close its
 * files, free what only sampling needs (the two snapshots' buffers, the
 * work threads' per-snapshot arrays and file descriptors, the other
 * processes' scans). The samples, the summary, the CPU time and the limits
 * stay; sampler_start() and sampler_sample_now() return -EINVAL from then
 * on. A result that keeps a step's sampler for its series calls it, so that
 * a run of many steps holds their series, not their working state.
 * Idempotent; NULL is ignored.
 */
void sampler_done(struct sampler *s);

/* sampler_done(), then free everything. NULL is ignored. */
void sampler_free(struct sampler *s);

/*
 * Take one snapshot now, in the calling thread, without the background
 * thread. The first snapshot of a sampler is the baseline; each later one
 * adds a sample for the interval since the previous. For tests and for
 * watch-like callers that pace themselves. Returns 0; -EBUSY while the
 * thread runs; -errno if /proc/stat cannot be read or parsed (the snapshot
 * is discarded and the next interval spans the gap).
 */
MUST_CHECK int sampler_sample_now(struct sampler *s);

/* Number of stored samples (at most max_samples). */
size_t sampler_count(const struct sampler *s);

/* Stored sample i (0 = oldest), or NULL if i >= sampler_count(). Owned by s. */
const struct sample *sampler_get(const struct sampler *s, size_t i);

/*
 * Summarise every interval so far (including those not stored after
 * max_samples) into out; see struct sysview. Means are weighted by time
 * (ticks for CPU, seconds for rates), not by sample. Intervals with a reset
 * counter are left out of that counter's means only.
 */
void sampler_summary(const struct sampler *s, struct sysview *out);

/*
 * CPU time used for sampling, in ns: the background threads' own
 * CLOCK_THREAD_CPUTIME_ID (read by each as it exits, summed over spans)
 * plus the thread CPU time of the synchronous snapshots (start, stop,
 * sample_now) and of the edge work (limits, other processes).
 */
uint64_t sampler_cpu_ns(const struct sampler *s);

/*
 * Of sampler_cpu_ns(), the CPU time of the thread-state sampling
 * (core/observe/tstate.h: its ticks and its edges), ns; 0 when it is off.
 */
uint64_t sampler_state_cpu_ns(const struct sampler *s);

/* The limits discovered at the first start (cfg.limits), or NULL when none were. Owned by s. */
const struct limits *sampler_limits(const struct sampler *s);
/*
 * The limits are those of PID's cgroups from the next sampler_start() on
 * (discovered again then), OWN_MEM_DIR (copied; NULL none) a memory cgroup
 * engpass made for the work (struct limits_config). For a work that moves
 * between spans: mem --ladder's measuring child in its sandbox. Nothing
 * without limits in the configuration; call it between spans.
 */
void sampler_limits_target(struct sampler *s, pid_t pid, const char *own_mem_dir);

#endif
