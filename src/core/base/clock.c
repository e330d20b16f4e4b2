/* SPDX-License-Identifier: MIT */
/*
 * Monotonic, CPU and wall clocks, and sleeping to monotonic deadlines;
 * see clock.h for why these are kept apart.
 */
#include "clock.h"

#include <errno.h>
#include <time.h>

static uint64_t ts_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NS_PER_SEC + (uint64_t)ts->tv_nsec;
}

/* Read a non-negative clock as nanoseconds; 0 if the clock cannot be read. */
static uint64_t read_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return ts_to_ns(&ts);
}

mono_ns clock_mono(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

uint64_t clock_mono_res_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts))
		return 0;
	return ts_to_ns(&ts);
}

uint64_t clock_thread_cpu_ns(void)
{
	return read_clock(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t clock_process_cpu_ns(void)
{
	return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}

int64_t clock_wall_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return 0;
	return (int64_t)ts.tv_sec * (int64_t)NS_PER_SEC + ts.tv_nsec;
}

int clock_sleep_until(mono_ns deadline)
{
	struct timespec ts;
	int err;

	if (clock_mono() >= deadline)
		return 0;
	ts.tv_sec = (time_t)(deadline / NS_PER_SEC);
	ts.tv_nsec = (long)(deadline % NS_PER_SEC);
	/* clock_nanosleep returns the error number itself, not -1 + errno. */
	err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return err ? -err : 0;
}
