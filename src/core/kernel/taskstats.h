/* SPDX-License-Identifier: MIT */
/*
 * Per-thread delay accounting, read from the kernel's TASKSTATS generic
 * netlink family (Documentation/accounting/delay-accounting.rst): how long
 * a thread (or a whole process, its exited threads included) waited for a
 * CPU, for synchronous block I/O (read, write, fsync waits), for swap-in,
 * in direct reclaim, on thrashing pages, in compaction, for write-protect
 * copies and for IRQ/softirq work, with counts. The time budget
 * (core/observe/tstate.h) samples where a thread waited; these are the kernel's
 * exact totals for the disk and paging waits, its cross-check.
 *
 * Where the figures come from, and when they are zero:
 *
 *   cpu_*          the scheduler's run-queue figures (schedstat), given
 *                  whether delay accounting is on or not.
 *   everything     recorded only while kernel.task_delayacct is 1 (off by
 *   else           default since 5.14), and only for a thread created
 *                  while it was 1: the kernel gives a task its delay
 *                  record at fork, so a thread that existed before the
 *                  sysctl was turned on stays at 0 for good (measured on
 *                  6.18). A zero is therefore "none, or not accounted";
 *                  taskstats_delayacct_enabled() tells which half applies
 *                  now, not when the thread was made.
 *
 * The reply is struct taskstats (linux/taskstats.h), which grew field by
 * field over its versions: taskstats_parse() reads only the fields the
 * reply's version has, each checked against the attribute's length, so
 * an older kernel's shorter struct parses and a cut one is refused.
 * Version 15 (6.15 release candidates) put the new max/min fields in the
 * middle of the struct; its fields are read at their shifted places.
 * Version 16 moved them to the end, where they are not read.
 *
 * Cost: one query is a send and a receive on a socket kept open
 * (taskstats_open()): 7.5 to 8.3 us of the caller's CPU per thread per
 * query (CLOCK_THREAD_CPUTIME_ID over 2000 queries, 6.18, a shared
 * 2-core VM; 8.5 to 40 us of wall time), printed by test_taskstats. At
 * the edges of a span that is nothing; at 100 Hz for 16 threads it would
 * be 1.3 % of a core, so it is meant for the edges, not every tick.
 *
 * Permission: TASKSTATS_CMD_GET needs CAP_NET_ADMIN; taskstats_open()
 * tries one query of the calling thread so that a missing permission is
 * said at open, not at the first sample. Built without libmnl, every
 * function that talks to the kernel or parses returns -ENOTSUP.
 */
#ifndef ENGPASS_TASKSTATS_H
#define ENGPASS_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"

/* Bits of taskstats_delays.suspect: a total larger than the thread has lived. */
enum {
	TSD_SUSPECT_CPU = 1u << 0,
	TSD_SUSPECT_BLKIO = 1u << 1,
	TSD_SUSPECT_SWAPIN = 1u << 2,
	TSD_SUSPECT_FREEPAGES = 1u << 3,
	TSD_SUSPECT_THRASHING = 1u << 4,
	TSD_SUSPECT_COMPACT = 1u << 5,
	TSD_SUSPECT_WPCOPY = 1u << 6,
	TSD_SUSPECT_IRQ = 1u << 7,
};

/*
 * One reply. Totals are nanoseconds since the task began (the kernel's
 * counters; a total wraps to 0 on overflow). A have_ flag is false when
 * the reply's version predates the field, which is then 0.
 */
struct taskstats_delays {
	uint32_t id;			/* the thread or process the reply is for */
	bool is_tgid;			/* a process (TASKSTATS_TYPE_AGGR_TGID), not one thread */
	uint16_t version;		/* struct taskstats version the kernel sent */
	uint64_t cpu_ns, cpu_count;	/* runnable, waiting for a CPU */
	uint64_t cpu_run_ns;		/* on a CPU (cpu_run_real_total) */
	uint64_t blkio_ns, blkio_count;	/* synchronous block I/O */
	uint64_t swapin_ns, swapin_count;
	uint64_t freepages_ns, freepages_count;	/* direct reclaim (version 7) */
	uint64_t thrashing_ns, thrashing_count;	/* version 9 */
	uint64_t compact_ns, compact_count;	/* version 11 */
	uint64_t wpcopy_ns, wpcopy_count;	/* version 13 */
	uint64_t irq_ns, irq_count;		/* version 14 */
	bool have_freepages, have_thrashing, have_compact, have_wpcopy, have_irq;
	uint64_t ac_etime_us;		/* elapsed time since the task (the process, for a tgid) began */
	/*
	 * TSD_SUSPECT_* bits: for one thread (not a tgid), a delay total
	 * longer than its elapsed time, which cannot be. Seen on 6.18, in
	 * about one run in six with two processes doing I/O at once: a
	 * thread's blkio total holds the whole uptime (a wait ended whose
	 * start the kernel never recorded), once three times it. Such a
	 * figure is not to be used; the others of the reply still are. A
	 * smaller error of the same kind cannot be told from a true figure.
	 */
	uint32_t suspect;
};

/* A NETLINK_GENERIC socket with the TASKSTATS family resolved; one thread at a time. */
struct taskstats_conn;

/*
 * Opens a generic netlink socket, resolves the TASKSTATS family and
 * queries the calling thread once. Returns 0 with *OUT set (the caller
 * closes it with taskstats_close()), or -errno with *OUT NULL and WHY
 * (WHYLEN bytes) saying why: -ENOTSUP built without libmnl, -ENOENT the
 * kernel has no TASKSTATS family (CONFIG_TASKSTATS off), -EPERM queries
 * need CAP_NET_ADMIN, -ETIMEDOUT no answer within 2 s, else the socket's
 * error.
 */
MUST_CHECK int taskstats_open(struct taskstats_conn **out, char *why, size_t whylen);

/* Closes C and frees it; NULL is allowed. */
void taskstats_close(struct taskstats_conn *c);

/*
 * The delays of thread TID (TASKSTATS_CMD_ATTR_PID) into OUT. Returns 0,
 * or -errno: -ESRCH no such thread (it exited), -EPERM, -ETIMEDOUT,
 * -EPROTO an answer that is not for this request (another id, another
 * family), -EINVAL a malformed answer, -ENOTSUP without libmnl. OUT is
 * zeroed on error.
 */
MUST_CHECK int taskstats_tid(struct taskstats_conn *c, pid_t tid, struct taskstats_delays *out);

/*
 * The delays of process TGID (TASKSTATS_CMD_ATTR_TGID): the sum over its
 * live threads and those that exited; errors as taskstats_tid().
 */
MUST_CHECK int taskstats_tgid(struct taskstats_conn *c, pid_t tgid, struct taskstats_delays *out);

/*
 * Parses one reply message (the LEN bytes of a receive, BUF aligned as a
 * struct nlmsghdr) from generic netlink family FAMILY into OUT (zeroed
 * first). Pure: for the tests and the fuzz target. Returns 0; -errno of
 * an NLMSG_ERROR; -ENOMSG for a message of another type or command;
 * -EINVAL when malformed: cut short, bytes after the message, no
 * TASKSTATS_TYPE_AGGR_PID/AGGR_TGID holding both an id and
 * TASKSTATS_TYPE_STATS, a version below 2 (version 1, of 2.6.18's
 * release candidates, had another layout) or a struct shorter than its
 * version's fields; -ENOTSUP without libmnl.
 */
MUST_CHECK int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_delays *out);

/*
 * kernel.task_delayacct, read from PROC_ROOT/sys/kernel/task_delayacct
 * (PROC_ROOT NULL = "/proc"): 1 on, 0 off, -errno when unreadable
 * (-ENOENT on a kernel without the sysctl: before 5.14, or without
 * CONFIG_TASK_DELAY_ACCT), -EINVAL when it holds something else.
 */
int taskstats_delayacct_enabled(const char *proc_root);

/* Returned string is static: how to turn delay accounting on, for a note. */
const char *taskstats_off_hint(void);

#endif
