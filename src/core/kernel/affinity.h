/* SPDX-License-Identifier: MIT */
/*
 * CPU affinity: pinning a thread or process to a set of CPUs (--pin, and
 * the taskset experiments of seed 004), reading the current set, asking
 * which CPU a thread is on right now, counting CPUs, and writing a set as
 * a list string ("0-1,3", the form units_cpulist_parse() reads back).
 *
 * Sets are glibc/musl cpu_set_t, so at most CPU_SETSIZE (1024) CPUs.
 * NEEDSWORK: boxes with more CPUs need the CPU_ALLOC family.
 */
#ifndef ENGPASS_AFFINITY_H
#define ENGPASS_AFFINITY_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/compiler.h"

/*
 * Restrict the calling thread (only that thread, not the whole process)
 * to the CPUs in set. Returns 0, or -EINVAL when set holds no CPU that is
 * online and allowed to this process (cgroup cpuset), or another -errno
 * from sched_setaffinity().
 */
MUST_CHECK int affinity_pin_self(const cpu_set_t *set);

/*
 * Restrict thread 'tid' (a process id names its main thread; 0 is the
 * calling thread) to set. Returns 0, -EINVAL as above, -ESRCH when there
 * is no such thread, -EPERM when we may not change it.
 */
MUST_CHECK int affinity_pin_pid(pid_t tid, const cpu_set_t *set);

/* The calling thread's CPU set into *out. Returns 0 or -errno. */
MUST_CHECK int affinity_get_self(cpu_set_t *out);

/* Thread tid's CPU set into *out (0: calling thread). Returns 0 or -errno. */
MUST_CHECK int affinity_get_pid(pid_t tid, cpu_set_t *out);

/*
 * The CPU the calling thread is running on at the moment of the call
 * (sched_getcpu()); it may have moved by the time the caller looks,
 * unless it is pinned to one CPU. Returns the CPU number (>= 0) or -errno.
 */
MUST_CHECK int affinity_current_cpu(void);

/* CPUs online now (sysconf(_SC_NPROCESSORS_ONLN)): >= 1, or -errno. */
MUST_CHECK int affinity_online_cpus(void);

/*
 * CPUs configured (sysconf(_SC_NPROCESSORS_CONF)), online or not: the
 * bound for CPU numbers, as passed to units_cpulist_parse(). >= 1, or
 * -errno.
 */
MUST_CHECK int affinity_configured_cpus(void);

/*
 * Write set as a CPU list into buf: ascending, runs of two or more as
 * "a-b", comma separated, e.g. "0-1,3"; the empty set is "". Returns 0, or
 * -ENOSPC when buf is too short (buf then holds a NUL-terminated prefix if
 * len > 0). A buffer of 4 * CPU_SETSIZE + 1 bytes always suffices.
 */
MUST_CHECK int affinity_format(char *buf, size_t len, const cpu_set_t *set);

#endif
