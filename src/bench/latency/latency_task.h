/* SPDX-License-Identifier: MIT */
/*
 * The simulated interactive tasks of `engpass latency` as threads: audio,
 * video, x and gaming with interbench's profiles (latency_spec.h). Each
 * frame sleeps to an absolute CLOCK_MONOTONIC deadline, as cyclictest does,
 * then does its work, and the frame is accounted by latency_acct.h.
 *
 * The work is CPU time, not a loop count: a frame spins until the thread's
 * own CLOCK_THREAD_CPUTIME_ID has advanced by the frame's work. interbench
 * calibrates a busy loop once and then counts iterations, which on a
 * shared or virtual CPU (steal, frequency changes) no longer means the
 * time it was calibrated for; thread CPU time does not depend on that.
 * Time the vCPU was stolen is not thread CPU time, so it shows up as
 * lateness, which is what a user would feel.
 *
 * The same threads serve as background loads ("video", "x" ...), with an
 * accounting nobody looks at closely.
 */
#ifndef ENGPASS_LATENCY_TASK_H
#define ENGPASS_LATENCY_TASK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/latency/latency_acct.h"
#include "bench/latency/latency_spec.h"
#include "core/base/clock.h"
#include "lib/compiler.h"

struct lat_task {
	/* Set by the caller before lat_task_main() runs. */
	enum lat_task_kind kind;
	uint64_t period_ns, run_ns;	/* audio, video, custom: the frame; 0 = the profile's */
	const atomic_bool *halt;	/* set to end the task; checked between and within frames */
	struct lat_acct *acct;		/* where frames are accounted; caller-owned */
	int policy;			/* SCHED_OTHER or SCHED_FIFO */
	int fifo_prio;			/* for SCHED_FIFO */
	bool set_nice;
	int nice;			/* with set_nice: setpriority() of this thread */
	uint64_t timerslack_ns;		/* > 0: PR_SET_TIMERSLACK of this thread before the policy; 0: inherited */

	/* Filled by the thread; read after joining it. */
	int sched_err;			/* -errno when the policy or nice could not be set: nothing ran */
	int slack_err;			/* -errno when PR_SET_TIMERSLACK failed (the task ran with what it had) */
	long slack_now_ns;		/* PR_GET_TIMERSLACK in the thread once policy and slack were set; -1 unknown */
	mono_ns start, end;		/* the measured window */
	uint64_t cpu_ns;		/* thread CPU time over the window */
	uint64_t work_frames;		/* frames (chunks) whose work completed */
	uint64_t work_asked_ns;		/* CPU time they asked for */
	uint64_t work_done_ns;		/* CPU time they took (>= asked, by the check interval) */
	double runq_wait_ns;		/* time runnable but waiting for a CPU (schedstat); NaN unknown */
	unsigned x_steps;		/* x: ramp steps begun (101 make one ramp) */
};

/*
 * Thread body: ARG is a struct lat_task. Applies the scheduling policy and
 * nice value to the calling thread (on failure sets sched_err and returns
 * at once), then runs the task until *halt, accounting into acct. Returns
 * NULL.
 */
void *lat_task_main(void *arg);

/*
 * Spins until the calling thread has used NS of CPU time (thread CPU
 * clock), checking *HALT between short slices. Returns true with the CPU
 * time actually used in *USED, or false when halted first.
 */
bool lat_burn_cpu(uint64_t ns, const atomic_bool *halt, uint64_t *used);

/*
 * pthread_create() with SIGINT, SIGTERM and SIGHUP blocked in the new
 * thread, so those signals reach the main thread (the runner's soft stop).
 * Returns 0 or -errno.
 */
MUST_CHECK int lat_spawn(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
