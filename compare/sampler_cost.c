/* SPDX-License-Identifier: MIT */
/*
 * sampler_cost: what watching the box costs. Runs the real background
 * sampler on /proc (all files, including /proc/PID/stat of this process)
 * for a while and prints the CPU time the sampling used, as a share of one
 * core. The goal is to stay under 0.5 % of one core at the default 250 ms,
 * so that the sampler never becomes the bottleneck it is looking for.
 *
 * The figure is the sampler thread's own CLOCK_THREAD_CPUTIME_ID, read by
 * the thread as it exits, plus the thread CPU time of the synchronous
 * first and last snapshots (sampler_cpu_ns()). As a cross-check the
 * process CPU time over the run is printed too: the main thread only
 * sleeps, so the two should agree to within the start-up cost.
 *
 * By default it watches what engpass watches during a step: this process
 * as the work (its threads, every interval) and the other processes (at
 * the start and stop edges only) and discovers the limits (core/observe/limits.h) as
 * the runner does, with lo as the interface; --bare does none of it, as the sampler
 * did before issue #18. The thread CPU time of sampler_start() and
 * sampler_stop() (a snapshot each, plus the edge scan of the other
 * processes) is printed apart, since it is paid per span, not per interval.
 *
 * --threads N starts N idle threads first (blocked in pause()), to see
 * what each thread of the work adds.
 *
 * --sys-root DIR reads the heat sensors under DIR instead of /sys (a fixture tree
 * of tests/fixtures/thermal, for a box like this VM that has none).
 *
 * The work's thread states (core/observe/tstate.h, the time budget) are sampled at
 * their default 100 Hz unless --no-states; their part of the cost is printed
 * apart (sampler_state_cpu_ns()). --busy N starts N spinning threads (on a
 * CPU: one stat read a tick each) besides the idle ones (blocked: a stat
 * and a syscall read a tick each, the dearer case).
 *
 * Usage: sampler_cost [--bare] [--no-states] [--threads N] [--busy N] [--sys-root DIR] [DURATION_S [INTERVAL_MS]]
 * (defaults 20 and 250)
 * Build: see docs/sampler.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/observe/sampler.h"

/* Parse a positive decimal argument completely; exits with 2 on anything else. */
static double arg_num(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0)) {
		fprintf(stderr, "sampler_cost: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static volatile int spin_stop;

static void *busy_thread(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	while (!spin_stop)
		x++;
	return NULL;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	double duration_s = 20, interval_ms = 250;
	struct sampler_config cfg = { 0 };
	struct sampler *s;
	struct timespec nap;
	struct sysview v;
	uint64_t pcpu0, pcpu1, cpu_ns, c0, start_ns, stop_ns;
	bool bare = false, no_states = false;
	long idle = 0, busy = 0;
	mono_ns t0, t1;
	double wall_s;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--bare")) {
		bare = true;
		argc--;
		argv++;
	}
	if (argc > 1 && !strcmp(argv[1], "--no-states")) {
		no_states = true;
		argc--;
		argv++;
	}
	if (argc > 2 && !strcmp(argv[1], "--threads")) {
		idle = (long)arg_num(argv[2], "thread count");
		argc -= 2;
		argv += 2;
	}
	if (argc > 2 && !strcmp(argv[1], "--busy")) {
		busy = (long)arg_num(argv[2], "thread count");
		argc -= 2;
		argv += 2;
	}
	if (argc > 2 && !strcmp(argv[1], "--sys-root")) {
		cfg.sys_root = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc > 3 || (argc > 1 && !strcmp(argv[1], "-h"))) {
		fprintf(stderr, "usage: sampler_cost [--bare] [--no-states] [--threads N] [--busy N] [--sys-root DIR] "
				"[DURATION_S [INTERVAL_MS]]\n");
		return 2;
	}
	if (argc > 1)
		duration_s = arg_num(argv[1], "duration");
	if (argc > 2)
		interval_ms = arg_num(argv[2], "interval");

	for (long i = 0; i < idle; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, idle_thread, NULL)) {
			fprintf(stderr, "sampler_cost: cannot start thread %ld\n", i);
			return 1;
		}
		pthread_detach(th);
	}
	for (long i = 0; i < busy; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, busy_thread, NULL)) {
			fprintf(stderr, "sampler_cost: cannot start thread %ld\n", i);
			return 1;
		}
		pthread_detach(th);
	}
	cfg.interval_ns = (uint64_t)(interval_ms * (double)NS_PER_MS);
	cfg.pid = getpid();
	if (!bare) {
		/* As the runner does: the limits of this process and of lo's qdiscs too. */
		static struct limits_config lc = { .iface = "lo" };

		cfg.work_pid = getpid();
		cfg.others = true;
		cfg.state_own = true;
		if (no_states)
			cfg.state_interval_ns = UINT64_MAX;
		lc.pid = getpid();
		cfg.limits = &lc;
	}
	ret = sampler_new(&s, &cfg);
	if (ret) {
		fprintf(stderr, "sampler_cost: cannot create sampler: %s\n", strerror(-ret));
		return 1;
	}
	pcpu0 = clock_process_cpu_ns();
	t0 = clock_mono();
	c0 = clock_thread_cpu_ns();
	ret = sampler_start(s);
	start_ns = clock_thread_cpu_ns() - c0;
	if (ret) {
		fprintf(stderr, "sampler_cost: cannot start sampler: %s\n", strerror(-ret));
		sampler_free(s);
		return 1;
	}
	nap.tv_sec = (time_t)duration_s;
	nap.tv_nsec = (long)((duration_s - (double)nap.tv_sec) * 1e9);
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
	c0 = clock_thread_cpu_ns();
	ret = sampler_stop(s);
	stop_ns = clock_thread_cpu_ns() - c0;
	t1 = clock_mono();
	pcpu1 = clock_process_cpu_ns();
	if (ret) {
		fprintf(stderr, "sampler_cost: final snapshot failed: %s\n", strerror(-ret));
		sampler_free(s);
		return 1;
	}

	sampler_summary(s, &v);
	cpu_ns = sampler_cpu_ns(s);
	wall_s = elapsed_s(t0, t1);
	printf("sampler: %u samples in %.1f s, cpu %.1f ms = %.3f %% of one core (interval %.0f ms, "
	       "method: CLOCK_THREAD_CPUTIME_ID of the sampler thread read at its exit, plus the synchronous "
	       "first and last snapshots)\n",
	       v.samples, wall_s, (double)cpu_ns / 1e6, 100.0 * (double)cpu_ns / 1e9 / wall_s, interval_ms);
	printf("sampler: %.1f us per sample; process cpu over the run %.1f ms (cross-check, includes start-up)\n",
	       v.samples ? (double)cpu_ns / 1e3 / v.samples : 0.0, (double)(pcpu1 - pcpu0) / 1e6);
	printf("sampler: %s, %ld idle threads; sampler_start %.0f us, sampler_stop %.0f us of thread cpu (once per span)\n",
	       bare ? "bare (no work threads, no other processes, no limits)" :
		      "work threads every interval, others and the limits' counters at the edges (limits discovered at the first)",
	       idle, (double)start_ns / 1e3, (double)stop_ns / 1e3);
	printf("sampler: thread states %s: %.1f ms = %.3f %% of one core (%u thread samples), of the figure above\n",
	       bare || no_states ? "off" : "at 100 Hz", (double)sampler_state_cpu_ns(s) / 1e6,
	       100.0 * (double)sampler_state_cpu_ns(s) / 1e9 / wall_s, v.budget.samples);
	spin_stop = 1;
	sampler_free(s);
	return 0;
}
