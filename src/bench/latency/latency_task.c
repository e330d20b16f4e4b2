/* SPDX-License-Identifier: MIT */
/*
 * The simulated tasks as threads; see latency_task.h. The frame loops are
 * interbench's emulate_audio/video/x/game, re-expressed on absolute
 * deadlines and thread CPU time.
 */
#include "bench/latency/latency_task.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/kernel/proc.h"

bool lat_burn_cpu(uint64_t ns, const atomic_bool *halt, uint64_t *used)
{
	uint64_t c0 = clock_thread_cpu_ns(), x = c0, u;

	for (;;) {
		u = clock_thread_cpu_ns() - c0;
		if (u >= ns) {
			*used = u;
			return true;
		}
		if (atomic_load_explicit(halt, memory_order_relaxed))
			return false;
		/*
		 * A slice of dependent multiply-adds, a fraction of a
		 * microsecond, between two reads of the clock; the asm keeps
		 * the compiler from deleting work whose result is unused.
		 */
		for (int i = 0; i < 256; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
	}
}

int lat_spawn(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t block, old;
	int r;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	r = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -r;
}

/* Run-queue wait of the calling thread so far, ns, from /proc/thread-self/schedstat; NaN if unknown. */
static double runq_wait_now(void)
{
	uint64_t run, wait;

	return proc_thread_schedstat(&run, &wait) ? NAN : (double)wait;
}

static bool halted(const struct lat_task *t)
{
	return atomic_load_explicit(t->halt, memory_order_relaxed);
}

/* Sleeps until TARGET; false when halted (checked on every wake) or the sleep failed. */
static bool sleep_to(const struct lat_task *t, mono_ns target)
{
	while (!halted(t)) {
		int r = clock_sleep_until(target);

		if (!r)
			return !halted(t);
		if (r != -EINTR)
			return false;
	}
	return false;
}

/*
 * One frame of a periodic task: sleep to *TARGET, account the wake-up, do
 * RUN_NS of work unless the frame is already lost, account its end, and
 * set *TARGET to the next time to sleep until. False when halted.
 */
static bool frame(struct lat_task *t, struct lat_frame *f, mono_ns *target, uint64_t run_ns)
{
	uint64_t used;

	if (!sleep_to(t, *target))
		return false;
	if (!lat_frame_wake(t->acct, f, *target, clock_mono())) {
		*target = f->deadline;
		return true;
	}
	if (!lat_burn_cpu(run_ns, t->halt, &used))
		return false;
	t->work_frames++;
	t->work_asked_ns += run_ns;
	t->work_done_ns += used;
	*target = lat_frame_done(t->acct, f, clock_mono());
	return true;
}

static void run_periodic(struct lat_task *t, const struct lat_task_info *info)
{
	uint64_t period = t->period_ns ? t->period_ns : info->period_ns;
	uint64_t run = t->period_ns ? t->run_ns : info->run_ns;
	struct lat_frame f = { .deadline = clock_mono(), .period = period };
	mono_ns target = f.deadline;

	while (frame(t, &f, &target, run))
		;
}

/*
 * x: step i (0..100) works i ms in a (100 - i) ms period; after each step
 * the next frame's start moves i ms further, so the work of a step may
 * begin before its frame starts (interbench's emulate_x).
 */
static void run_x(struct lat_task *t)
{
	struct lat_frame f = { .deadline = clock_mono() };
	mono_ns target = f.deadline;

	for (;;) {
		for (uint64_t i = 0; i <= 100; i++) {
			f.period = (100 - i) * NS_PER_MS;
			t->x_steps++;
			if (!frame(t, &f, &target, i * NS_PER_MS))
				return;
			f.deadline += i * NS_PER_MS;
		}
	}
}

/* gaming: 100 ms of CPU at a time, never sleeping; lateness is the wall time beyond it. */
static void run_gaming(struct lat_task *t, const struct lat_task_info *info)
{
	while (!halted(t)) {
		mono_ns w0 = clock_mono();
		uint64_t used;

		if (!lat_burn_cpu(info->run_ns, t->halt, &used))
			return;
		lat_game_chunk(t->acct, info->run_ns, elapsed_ns(w0, clock_mono()));
		t->work_frames++;
		t->work_asked_ns += info->run_ns;
		t->work_done_ns += used;
	}
}

void *lat_task_main(void *arg)
{
	struct lat_task *t = arg;
	const struct lat_task_info *info = lat_task_info(t->kind);
	uint64_t cpu0;
	double rq0, rq1;

	t->sched_err = 0;
	t->slack_err = 0;
	t->slack_now_ns = -1;
	/*
	 * Timer slack is per thread (inherited at creation: 50 us unless the
	 * parent changed it). Set before the policy: on recent kernels a
	 * real-time thread's slack is 0 and PR_SET_TIMERSLACK leaves it so (older
	 * ones ignored it in real-time sleeps). 0 would mean "the default" to
	 * the kernel.
	 */
	if (t->timerslack_ns && prctl(PR_SET_TIMERSLACK, (unsigned long)t->timerslack_ns, 0, 0, 0) < 0)
		t->slack_err = -errno;
	if (t->policy == SCHED_FIFO) {
		struct sched_param sp = { .sched_priority = t->fifo_prio };
		int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (r) {
			t->sched_err = -r;
			return NULL;
		}
	}
	if (t->set_nice && setpriority(PRIO_PROCESS, (id_t)gettid(), t->nice) < 0) {
		t->sched_err = -errno;
		return NULL;
	}
	t->slack_now_ns = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	cpu0 = clock_thread_cpu_ns();
	if (!cpu0) {
		/* Without a thread CPU clock the work could not be measured. */
		t->sched_err = -ENOTSUP;
		return NULL;
	}
	rq0 = runq_wait_now();
	t->start = clock_mono();
	switch (t->kind) {
	case LAT_TASK_X:
		run_x(t);
		break;
	case LAT_TASK_GAMING:
		run_gaming(t, info);
		break;
	default:
		run_periodic(t, info);
		break;
	}
	t->end = clock_mono();
	t->cpu_ns = clock_thread_cpu_ns() - cpu0;
	rq1 = runq_wait_now();
	t->runq_wait_ns = rq1 - rq0;
	return NULL;
}
