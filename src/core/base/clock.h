/* SPDX-License-Identifier: MIT */
/*
 * Clocks for measuring. engpass times everything with CLOCK_MONOTONIC,
 * carried in its own type, mono_ns, so that an interval can never be
 * computed from wall-clock time (which NTP and the administrator may step
 * backwards or forwards). Wall-clock time exists only as clock_wall_ns(),
 * a plain int64_t meant for the timestamps written into results; nothing in
 * engpass subtracts two of them to get a duration.
 *
 * CPU time is read per thread (CLOCK_THREAD_CPUTIME_ID) and per process
 * (CLOCK_PROCESS_CPUTIME_ID), so a CPU-bound step can report both the CPU
 * time it used and the wall time it took; the difference is time the
 * thread was runnable but not running (steal, run-queue wait) or blocked.
 *
 * Periodic work sleeps to absolute deadlines (clock_sleep_until()) rather
 * than for relative intervals, so late wake-ups do not accumulate as drift.
 *
 * clock_gettime() on these clock ids cannot fail on Linux for a valid
 * calling thread; should it ever fail, the readers return 0 rather than
 * garbage (the core never prints or exits).
 */
#ifndef ENGPASS_CLOCK_H
#define ENGPASS_CLOCK_H

#include <stdint.h>

#include "lib/compiler.h"

#define NS_PER_SEC	1000000000ULL
#define NS_PER_MS	1000000ULL
#define NS_PER_US	1000ULL

/* CLOCK_MONOTONIC time in nanoseconds; meaningful only as a difference. */
typedef uint64_t mono_ns;

/*
 * Current CLOCK_MONOTONIC time in nanoseconds. Never decreases between
 * two calls, in any thread of the process.
 */
mono_ns clock_mono(void);

/*
 * Resolution of CLOCK_MONOTONIC in nanoseconds as the kernel reports it
 * (clock_getres), for the "clock" entry of a result's method block.
 * Returns 0 if the kernel does not say.
 */
uint64_t clock_mono_res_ns(void);

/*
 * CPU time consumed so far by the calling thread (user + system), in
 * nanoseconds, from CLOCK_THREAD_CPUTIME_ID. Only differences taken in the
 * same thread are meaningful.
 */
uint64_t clock_thread_cpu_ns(void);

/*
 * CPU time consumed so far by all threads of the process (user + system),
 * in nanoseconds, from CLOCK_PROCESS_CPUTIME_ID.
 */
uint64_t clock_process_cpu_ns(void);

/*
 * CLOCK_REALTIME in nanoseconds since the Unix epoch. Only for timestamps
 * stored in results; never subtract two of these to time something.
 */
int64_t clock_wall_ns(void);

/*
 * Sleep until the absolute monotonic time 'deadline' (clock_nanosleep with
 * TIMER_ABSTIME on CLOCK_MONOTONIC). Returns at once, without a system call,
 * when the deadline has already passed.
 * Returns 0 when the deadline has been reached (clock_mono() >= deadline
 * after the return), -EINTR when a signal handler interrupted the sleep
 * before the deadline (the caller decides whether to sleep again with the
 * same deadline), or another -errno from clock_nanosleep (not expected).
 */
MUST_CHECK int clock_sleep_until(mono_ns deadline);

/* Nanoseconds from start to end; 0 if end is before start. */
static inline uint64_t elapsed_ns(mono_ns start, mono_ns end)
{
	return end > start ? end - start : 0;
}

/* Seconds from start to end as a double; 0.0 if end is before start. */
static inline double elapsed_s(mono_ns start, mono_ns end)
{
	return (double)elapsed_ns(start, end) / (double)NS_PER_SEC;
}

/* Milliseconds from start to end as a double; 0.0 if end is before start. */
static inline double elapsed_ms(mono_ns start, mono_ns end)
{
	return (double)elapsed_ns(start, end) / (double)NS_PER_MS;
}

#endif
