/* SPDX-License-Identifier: MIT */
/*
 * Thread states: where the work's time went (Brendan Gregg's Thread State
 * Analysis). At a rate of its own (TSTATE_DEFAULT_INTERVAL_NS, 100 Hz),
 * tstate_tick() reads each thread of the work (and, for a process watched
 * from outside, of its child processes) from /proc:
 *
 *   task/TID/stat       the state letter (R running or runnable, S, D, ...)
 *   task/TID/syscall    for a thread off the CPU: the syscall it is blocked
 *                       in and its arguments ("-1" = blocked outside one: a
 *                       page fault), read only when the state is not R
 *   task/TID/wchan      the kernel function it waits in (dirty-page
 *                       throttling, journal commit), read only when needed
 *   fd/N (core/fdres)   the file descriptor of the syscall: a file and its
 *                       disk, a socket and its peer, a pipe, an eventfd
 *
 * and files the sample under a state (enum tstate_kind) and a resource
 * ("vda", "tcp 10.0.0.1:5201", "futex"). At the edges of each span, and
 * every TSTATE_SCHED_EVERY ticks, it reads task/TID/schedstat: the time on
 * a CPU and on a run queue come from those counters, exactly; the rest of
 * a thread's time (off the CPU) is divided among its off-CPU samples in
 * proportion. So the budget of a thread adds up to its time by
 * construction, and the samples only decide where its waiting went.
 *
 * Threads that did nothing but wait for the others (a coordinator joining
 * workers, a timer thread, a writer waiting on a condition: under
 * TSTATE_IDLE_CPU_OWN of CPU, every off-CPU sample a futex, a pipe of the
 * work's own, a sleep, a wait for a child or a signal) are "idle" (TSA's
 * idle state: waiting for work) and left out of the shares, unless every
 * thread is (a thread with a stray busy wait is idle when TSTATE_IDLE_WAITS
 * of its waiting time was of those kinds). The 5 % admits a daemon's housekeeping loop (Transmission's
 * main thread wakes every second on an empty epoll set and works a little
 * each time: 0.5-1 % of a CPU); NEEDSWORK: a watched process's own pacing
 * thread under 5 % beside a thread with busy waits is left out too. When
 * the work is engpass itself (cfg.own), any thread under TSTATE_IDLE_CPU
 * (the net client's control connection, the guardian process, the stream
 * writer) is idle whatever it waits on.
 *
 * Cost: every tick a pread of each thread's schedstat (the cheapest
 * file); only a thread that ran since the last tick has its stat read,
 * and only one found off the CPU its syscall and fd (one readlink when
 * the fd is known). A thread that has not run is counted again in the
 * wait it was found in, and read less often (every 2, 4, then
 * TSTATE_STILL_MAX ticks). docs/verdict.md has the measured figure.
 *
 * One tstate is driven from one thread (the sampler's). Unreadable files
 * (another user's process without privilege, a thread that exited between
 * reads) give "unknown", never a wrong state.
 */
#ifndef ENGPASS_TSTATE_H
#define ENGPASS_TSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"
#include "core/base/sysview.h"

#define TSTATE_DEFAULT_INTERVAL_NS	10000000ULL	/* 100 Hz */
#define TSTATE_MIN_INTERVAL_NS		1000000ULL	/* 1 kHz */
#define TSTATE_MAX_THREADS		256	/* threads read per tick (work and children together) */
#define TSTATE_MAX_CHILDREN		32	/* child processes followed (cfg.children) */
#define TSTATE_SCHED_EVERY		10	/* segments end every this many ticks, and at the edges */
#define TSTATE_STILL_MAX		8	/* a thread that has not run is read at least every this many ticks */
#define TSTATE_IDLE_CPU			0.005	/* a thread under this share of CPU may be idle */
#define TSTATE_IDLE_CPU_OWN		0.05	/* coordinators and housekeeping timers: they wake to keep time */
#define TSTATE_IDLE_WAITS		0.9	/* of such a thread's waiting time in idle kinds, it is idle */

/* The states a thread's time is filed under. */
enum tstate_kind {
	TS_CPU,		/* on a CPU (schedstat) */
	TS_RUNQ,	/* runnable, waiting for a CPU (schedstat) */
	TS_DISK,	/* blocked on a file or a block device (read, write, fsync, io_uring, D state) */
	TS_NET,		/* waiting on a TCP/UDP socket or polling sockets */
	TS_IPC,		/* waiting on a pipe, a unix socket or an eventfd: another local process */
	TS_SLEEP,	/* its own timed sleep (nanosleep, clock_nanosleep): pacing */
	TS_LOCK,	/* futex: a lock or a condition variable */
	TS_PAGING,	/* blocked outside a syscall in D: a page fault (swap-in, page-in) */
	TS_CHILD,	/* waiting for a child process (wait4, waitid) */
	TS_SIGNAL,	/* waiting for a signal (pause, sigsuspend, sigtimedwait) */
	TS_OTHER,	/* another syscall */
	TS_UNKNOWN,	/* unreadable, or off the CPU between samples */
	TS_KINDS
};

/* Its name in budgets and JSON: "on CPU", "run queue", "disk", ... */
const char *tstate_kind_name(enum tstate_kind k);

/* /proc/PID/task/TID/syscall, parsed. */
struct tstate_syscall {
	enum { TSC_RUNNING, TSC_IN, TSC_OUTSIDE } where;	/* on a CPU; in syscall nr; blocked outside one (-1) */
	long nr;
	uint64_t arg[6];
};

/*
 * Parses the text of a syscall file: "running", "-1 SP PC", or "NR A0 .. A5
 * SP PC" (arguments in hex with 0x). Returns 0; -ENODATA for empty input;
 * -EINVAL for anything else.
 */
MUST_CHECK int tstate_syscall_parse(const char *buf, size_t len, struct tstate_syscall *out);

/* How a syscall number is filed: its name ("read") and what its first argument is. */
enum tstate_sc_class {
	TSC_FDIO,	/* arg0 is the fd the thread waits on */
	TSC_SYNC,	/* fsync, fdatasync, sync_file_range: arg0 the fd, always storage */
	TSC_SENDFILE,	/* sendfile, splice: arg0 out, arg1 in */
	TSC_EPOLL,	/* arg0 an epoll fd */
	TSC_POLL,	/* poll, ppoll: arg0 a pollfd array, arg1 its length */
	TSC_SELECT,	/* select, pselect6: fd sets */
	TSC_URING,	/* io_uring_enter, io_getevents: the ring's I/O */
	TSC_SLEEP,	/* nanosleep, clock_nanosleep */
	TSC_FUTEX,
	TSC_WAIT,	/* wait4, waitid */
	TSC_SIGWAIT,	/* pause, rt_sigsuspend, rt_sigtimedwait */
	TSC_OTHER
};
/* The class and name of syscall NR on this architecture ("syscall 123" in NAME if unknown). */
enum tstate_sc_class tstate_sc_classify(long nr, char *name, size_t len);

/*
 * The family of a wait channel, for a thread whose syscall does not tell:
 * TS_DISK for the block layer and page-cache I/O waits (io_schedule,
 * folio_wait_bit*, bit_wait_io, blk_mq_*, jbd2_*, balance_dirty_pages,
 * wait_on_page_bit*), TS_NET for socket waits (sk_wait_data, inet_csk_*,
 * tcp_*), TS_LOCK for futex_*, TS_SLEEP for hrtimer_nanosleep and
 * do_nanosleep, TS_UNKNOWN otherwise. *DIRTY is set for dirty-page
 * throttling (balance_dirty_pages), *JOURNAL for a journal commit wait.
 */
enum tstate_kind tstate_wchan_family(const char *wchan, bool *dirty, bool *journal);

struct tstate_config {
	const char *proc_root;	/* NULL = "/proc" */
	const char *sys_root;	/* NULL = "/sys" (devices of files) */
	pid_t pid;		/* the work */
	uint64_t interval_ns;	/* 0 = TSTATE_DEFAULT_INTERVAL_NS; at least TSTATE_MIN_INTERVAL_NS */
	bool children;		/* also the threads of the work's child processes (refreshed each second) */
	bool own;		/* the work is this process (engpass's own threads): see the idle rule above */
};

struct tstate;

/*
 * A new thread-state sampler for cfg.pid (copied; nothing is read yet).
 * Caller frees with tstate_free(). Returns NULL for a bad interval or pid.
 */
struct tstate *tstate_new(const struct tstate_config *cfg);
void tstate_free(struct tstate *t);
uint64_t tstate_interval_ns(const struct tstate *t);

/*
 * Span edges: begin reads every thread's schedstat as its baseline (and
 * the work's io and faults); end reads them again and adds the span's
 * time to the totals. EXCLUDE_TID (0 = none) is a thread left out (the
 * sampler's own). NOW_NS is monotonic.
 */
void tstate_span_begin(struct tstate *t, uint64_t now_ns, pid_t exclude_tid);
void tstate_span_end(struct tstate *t, uint64_t now_ns, pid_t exclude_tid);

/* One sample of every thread (between a begin and an end). */
void tstate_tick(struct tstate *t, uint64_t now_ns, pid_t exclude_tid);

/*
 * The budget of all spans so far into OUT (sysview.h): each state's share
 * of the work's thread time, largest first, idle threads left out and
 * counted apart. OUT->thread_s is NaN when nothing was measured.
 */
void tstate_budget(const struct tstate *t, struct sysview_budget *out);

/* CPU time spent in tstate_tick() and the edges, ns (the sampler adds it to its own). */
uint64_t tstate_cpu_ns(const struct tstate *t);

#endif
