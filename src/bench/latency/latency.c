/* SPDX-License-Identifier: MIT */
/*
 * `engpass latency`: interbench's interactivity benchmark, measured the
 * way cyclictest measures. Simulated interactive tasks (audio, video, x,
 * gaming, with interbench's CPU profiles) run while background loads (CPU
 * hogs, file I/O that reaches the device, memory pressure, other simulated
 * tasks, and named `+` combinations of them) run beside them. Each (task,
 * load) cell is one step with its own result, system view and verdict.
 *
 * Per cell the result carries interbench's columns -- Latency +/- SD, Max
 * Latency, % Desired CPU, % Deadlines Met -- with the SD being the true
 * standard deviation (interbench prints an RMS under that name; it is
 * reported apart, labelled as what it is), then p50 p90 p99 p99.9 from the
 * histogram, the wake-up latency without the missed-frame penalty (the
 * figure cyclictest gives), the task's CPU share and run-queue wait, the
 * PSI stall shares over the measured window, and what each load achieved.
 * docs/latency.md defines every column and where engpass differs from
 * interbench and why.
 *
 * The frame rules are in latency_acct.h, the tasks in latency_task.h, the
 * loads in latency_load.h, the lists and sizing in latency_spec.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/latency/latency_acct.h"
#include "bench/latency/latency_load.h"
#include "bench/latency/latency_spec.h"
#include "bench/latency/latency_task.h"
#include "core/base/clock.h"
#include "core/kernel/proc.h"
#include "core/base/progress.h"
#include "core/work/sandbox.h"
#include "core/observe/window.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#define NICE_UNSET 100		/* --nice not given (outside -20..19) */
#define PM_QOS_OFF (-1)		/* --pm-qos off (the default): /dev/cpu_dma_latency not touched */
#define PM_QOS_DEV "/dev/cpu_dma_latency"
#define SLACK_UNSET (-1)	/* --timerslack not given: the thread keeps what it inherited */
#define DEFAULT_TIME_NS (10 * NS_PER_SEC)
#define DEFAULT_WARMUP_NS NS_PER_SEC

struct latency_opts {
	struct opt_list tasks;	/* not given: LAT_DEFAULT_TASKS */
	struct opt_list loads;	/* not given: LAT_DEFAULT_LOADS */
	uint64_t time_ns;	/* measured time per cell: --time or 10 s; filled by check() */
	uint64_t warmup_ns;
	const char *dir;
	uint64_t file_size;
	uint64_t memload_size;
	int64_t burners;
	int64_t nice;
	int64_t fifo;		/* 0: not given */
	uint64_t custom_period_ns;	/* 0: not given (1 ms) */
	int64_t custom_cpu;	/* -1: not given (0 %) */
	uint64_t sandbox;	/* 0: no sandbox */
	const char *swap;	/* the sandbox's swap: file[:DIR] (default), dev:DEVICE, none */
	bool mkswap_ok;
	bool mlock;		/* --mlock: mlockall(MCL_CURRENT | MCL_FUTURE) for each cell, as cyclictest -m */
	const char *pm_qos_text;	/* --pm-qos as given */
	int64_t pm_qos_us;	/* PM_QOS_OFF or the value held in /dev/cpu_dma_latency; filled by check() */
	int64_t timerslack;	/* ns, SLACK_UNSET or >= 1 */
	int missed;		/* index into missed_policies */
	bool laptop;		/* cyclictest's --laptop: --pm-qos off */
	struct lat_plan plan;	/* filled by check() */
	struct sandbox_swap_spec swap_spec;	/* filled by check() */
};

#define DEFAULT_SWAPDIR "/var/tmp"

/* --missed-periods: what a wake-up later than its period does to the wake-up histogram (latency_acct.h). */
static const char *const missed_policies[] = { "skip", "sample", NULL };
enum { MISSED_SKIP, MISSED_SAMPLE };

static const struct opt latency_options[] = {
	OPT_LIST("task", 0, struct latency_opts, tasks, 0, "LIST",
		   "tasks: audio,video,x,gaming (default: these four), custom"),
	OPT_LIST("load", 0, struct latency_opts, loads, 0, "LIST",
		   "loads: none,video,x,burn,write,read,compile,memload (default), audio, gaming, A+B, NAME=A+B"),
	OPT_DURATION("warmup", 0, struct latency_opts, warmup_ns, 0, 60 * NS_PER_SEC,
		     "time the load runs before each cell is measured (default 1s, as interbench)"),
	OPT_STRING("dir", 0, struct latency_opts, dir, "DIR",
		   "directory of the write and read loads' temp files (default: the current one)"),
	OPT_SIZE("file-size", 0, struct latency_opts, file_size, 1 << 20, INT64_MAX,
		 "size of each file load's temp file (default: min(256M, free space / 8))"),
	OPT_SIZE("memload-size", 0, struct latency_opts, memload_size, LAT_MEMLOAD_MIN, INT64_MAX,
		 "memload's memory (default 110 % of effective memory), never beyond what is free"),
	OPT_INT("burners", 0, struct latency_opts, burners, 1, 4096, "N",
		"threads of the burn load (default: one per CPU engpass may run on)"),
	OPT_INT("nice", 0, struct latency_opts, nice, -20, 19, "N", "nice value of the measured task (default 0)"),
	OPT_INT("fifo", 'p', struct latency_opts, fifo, 1, 99, "PRIO",
		"run the measured task SCHED_FIFO at PRIO (needs root or RLIMIT_RTPRIO)"),
	OPT_DURATION("custom-period", 0, struct latency_opts, custom_period_ns, 100 * NS_PER_US, 10 * NS_PER_SEC,
		     "period of the custom task (default 1ms; interbench's -I)"),
	OPT_INT("custom-cpu", 0, struct latency_opts, custom_cpu, 0, 100, "PCT",
		"CPU share of the custom task, 0..100 (default 0, a timer probe; interbench's -C)"),
	OPT_SIZE("sandbox", 0, struct latency_opts, sandbox, 32 << 20, INT64_MAX,
		 "run the loads and the measured task in a memory cgroup of LIMIT (root): a small box, memload "
		 "sized from it"),
	OPT_STRING("swap", 0, struct latency_opts, swap, "file[:DIR]|dev:DEV|none",
		   "the sandbox's swap: its own file of twice the limit in DIR (default; DIR " DEFAULT_SWAPDIR
		   "), a block device swapped on at top priority for the run, or none of its own"),
	OPT_FLAG("mkswap-ok", 0, struct latency_opts, mkswap_ok,
		 "--swap dev: write a swap signature to a device that has none (never over a file system)"),
	OPT_FLAG("mlock", 'm', struct latency_opts, mlock,
		 "lock engpass's memory for each cell: mlockall(MCL_CURRENT|MCL_FUTURE), as cyclictest -m (root or an "
		 "unlimited RLIMIT_MEMLOCK; memload's child stays unlocked)"),
	OPT_STRING("pm-qos", 0, struct latency_opts, pm_qos_text, "US|on|off",
		   "hold " PM_QOS_DEV " at US microseconds for each cell (on = 0, as cyclictest without --laptop; "
		   "default off: the machine's own idle states; root)"),
	OPT_INT("timerslack", 0, struct latency_opts, timerslack, 0, 1000000000, "NS",
		"the measured thread's timer slack in ns, PR_SET_TIMERSLACK (default: inherited, 50000 on Linux; "
		"a SCHED_FIFO thread has none)"),
	OPT_CHOICE("missed-periods", 0, struct latency_opts, missed, missed_policies, "skip|sample",
		   "a wake-up later than its period: skip the periods passed, one sample (default, as cyclictest), "
		   "or also sample each skipped period's lateness"),
	/* cyclictest's spellings (its -p is --fifo's short letter, -m --mlock's). */
	OPT_SAME('D', "time", "cyclictest -D"),
	OPT_REFUSED("-i", 'i', "cyclictest's -i (microseconds between wake-ups): engpass's timer probe is "
		    "--task custom --custom-period 1000us"),
	OPT_REFUSED("-l", 'l', "cyclictest's -l (loops): each cell runs for --time (a number is seconds)"),
	OPT_FLAG("laptop", 0, struct latency_opts, laptop,
		 "cyclictest's --laptop: no PM QoS hold, which is engpass's default (--pm-qos off)"),
	OPT_REFUSED("-t", 't', "cyclictest's -t (a thread per CPU): engpass measures one task per cell; "
		    "--pin CPUS places the run"),
	OPT_END,
};

static void latency_defaults(void *p)
{
	struct latency_opts *o = p;

	o->warmup_ns = DEFAULT_WARMUP_NS;
	o->dir = ".";
	o->nice = NICE_UNSET;
	o->custom_cpu = -1;
	o->pm_qos_us = PM_QOS_OFF;
	o->timerslack = SLACK_UNSET;
}

/*
 * --pm-qos TEXT: "off" -> PM_QOS_OFF, "on" -> 0, "N" or "Nus" -> N
 * microseconds (0..2000000000, the kernel's s32). Returns 0 or -EINVAL.
 */
static int parse_pm_qos(const char *text, int64_t *us)
{
	char *end;
	long long v;

	if (!strcmp(text, "off")) {
		*us = PM_QOS_OFF;
		return 0;
	}
	if (!strcmp(text, "on")) {
		*us = 0;
		return 0;
	}
	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || (*end && strcmp(end, "us")) || v > 2000000000LL)
		return -EINVAL;
	*us = v;
	return 0;
}

/* --mlock, --pm-qos, --timerslack: their values and rights. */
static int check_knobs(struct latency_opts *o, char *err, size_t errlen)
{
	struct rlimit rl;

	if (o->timerslack == 0) {
		snprintf(err, errlen, "option '--timerslack': 0 means 'the default' to the kernel (PR_SET_TIMERSLACK); "
			 "the least slack is 1 ns");
		return -EINVAL;
	}
	if (o->laptop && o->pm_qos_text && strcmp(o->pm_qos_text, "off")) {
		snprintf(err, errlen, "options '--laptop' (no PM QoS hold) and '--pm-qos %s' exclude each other",
			 o->pm_qos_text);
		return -EINVAL;
	}
	if (o->pm_qos_text && parse_pm_qos(o->pm_qos_text, &o->pm_qos_us)) {
		snprintf(err, errlen, "option '--pm-qos': '%s' is not on, off or a number of microseconds "
			 "(0..2000000000)", o->pm_qos_text);
		return -EINVAL;
	}
	/* A missing file is said in each result; a file there but closed to us is an error now. */
	if (o->pm_qos_us != PM_QOS_OFF && access(PM_QOS_DEV, F_OK) == 0 && access(PM_QOS_DEV, W_OK) < 0) {
		snprintf(err, errlen, "option '--pm-qos': writing " PM_QOS_DEV " needs root: %s", strerror(errno));
		return -EINVAL;
	}
	if (o->mlock && geteuid() != 0 && (getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_cur != RLIM_INFINITY)) {
		snprintf(err, errlen, "option '--mlock': locking all of engpass's memory needs root (CAP_IPC_LOCK) "
			 "or an unlimited RLIMIT_MEMLOCK (ulimit -l)");
		return -EINVAL;
	}
	return 0;
}

/*
 * The profile of CELL's task: the static one, or for the custom task one
 * built in *BUF (with its text in TEXT of LEN bytes) from the options.
 */
static const struct lat_task_info *cell_info(const struct latency_opts *o, enum lat_task_kind k,
					     struct lat_task_info *buf, char *text, size_t len)
{
	const struct lat_task_info *ti = lat_task_info(k);
	uint64_t period = o->custom_period_ns ? o->custom_period_ns : NS_PER_MS;
	int64_t pct = o->custom_cpu >= 0 ? o->custom_cpu : 0;

	if (k != LAT_TASK_CUSTOM)
		return ti;
	*buf = *ti;
	buf->period_ns = period;
	buf->run_ns = period / 100 * (uint64_t)pct + period % 100 * (uint64_t)pct / 100;
	buf->cpu_pct = (double)pct;
	snprintf(text, len, "%lld %% CPU every %.3f ms", (long long)pct, (double)period / 1e6);
	buf->profile = text;
	return buf;
}

/* "50ms", "16.667ms", "2s": a duration for messages. */
static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns >= NS_PER_SEC && ns % NS_PER_SEC == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / NS_PER_SEC));
	else if (ns % NS_PER_MS == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / NS_PER_MS));
	else
		snprintf(buf, len, "%.3fms", (double)ns / 1e6);
}

/* --sandbox, --swap, --mkswap-ok: root, the swap directory or device. */
static int check_sandbox(struct latency_opts *o, char *err, size_t errlen)
{
	const char *fs = NULL;
	char why[512];
	struct sandbox_swapdev d;
	char b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN];
	long phys;
	int r;

	if ((o->swap || o->mkswap_ok) && !o->sandbox) {
		snprintf(err, errlen, "option '%s' needs --sandbox", o->swap ? "--swap" : "--mkswap-ok");
		return -EINVAL;
	}
	if (!o->sandbox)
		return 0;
	if (geteuid() != 0) {
		snprintf(err, errlen, "option '--sandbox' needs root (it makes a cgroup and enables swap)");
		return -EINVAL;
	}
	phys = sysconf(_SC_PHYS_PAGES);
	if (phys > 0 && sysconf(_SC_PAGESIZE) > 0 && o->sandbox > (uint64_t)phys * (uint64_t)sysconf(_SC_PAGESIZE)) {
		snprintf(err, errlen, "option '--sandbox': %s is more than the memory of this box (%s)",
			 units_fmt_bytes(b1, sizeof(b1), o->sandbox),
			 units_fmt_bytes(b2, sizeof(b2), (uint64_t)phys * (uint64_t)sysconf(_SC_PAGESIZE)));
		return -EINVAL;
	}
	if (sandbox_swap_parse(o->swap ? o->swap : "file", &o->swap_spec)) {
		snprintf(err, errlen, "option '--swap': '%s' is not file, file:DIR, dev:DEVICE or none", o->swap);
		return -EINVAL;
	}
	if (o->mkswap_ok && o->swap_spec.kind != SANDBOX_SWAP_DEV) {
		snprintf(err, errlen, "option '--mkswap-ok' applies to --swap dev:DEVICE");
		return -EINVAL;
	}
	if (o->swap_spec.kind == SANDBOX_SWAP_FILE) {
		if (!o->swap_spec.dir)
			o->swap_spec.dir = DEFAULT_SWAPDIR;
		if ((r = sandbox_check_swapdir(o->swap_spec.dir, o->sandbox * 2, &fs))) {
			snprintf(err, errlen, "option '--swap': cannot put a swap file of twice the limit in '%s': %s",
				 o->swap_spec.dir, r == -EINVAL && fs ? fs : r == -ENOSPC ? "no room" : strerror(-r));
			return -EINVAL;
		}
	}
	if (o->swap_spec.kind == SANDBOX_SWAP_DEV &&
	    sandbox_check_swapdev(o->swap_spec.dev, o->mkswap_ok, "/proc", &d, why, sizeof(why))) {
		snprintf(err, errlen, "option '--swap': %s", why);
		return -EINVAL;
	}
	return 0;
}

static int latency_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct latency_opts *o = p;
	uint64_t longest;
	unsigned parts = 0;
	struct rlimit rl;
	int r;

	if (env->npos) {
		snprintf(err, errlen, "unexpected argument '%s'", env->pos[0]);
		return -EINVAL;
	}
	r = lat_plan_parse(&o->plan, &o->tasks, &o->loads, err, errlen);
	if (r)
		return r;
	if ((o->custom_period_ns || o->custom_cpu >= 0) && !lat_plan_has_task(&o->plan, LAT_TASK_CUSTOM)) {
		snprintf(err, errlen, "options '--custom-period' and '--custom-cpu' need '--task custom'");
		return -EINVAL;
	}
	o->time_ns = env->time_ns ? env->time_ns : DEFAULT_TIME_NS;
	longest = lat_plan_longest_period(&o->plan, o->custom_period_ns ? o->custom_period_ns : NS_PER_MS);
	if (o->time_ns < longest) {
		char a[32], b[32];
		const char *name = "";

		for (unsigned i = 0; i < o->plan.ntasks; i++) {
			struct lat_task_info buf;
			char text[64];

			if (cell_info(o, o->plan.tasks[i], &buf, text, sizeof(text))->period_ns == longest)
				name = lat_task_info(o->plan.tasks[i])->name;
		}
		fmt_duration(a, sizeof(a), o->time_ns);
		fmt_duration(b, sizeof(b), longest);
		snprintf(err, errlen, "option '--time': %s is shorter than one period of task '%s' (%s)", a, name, b);
		return -EINVAL;
	}
	if (o->fifo && o->nice != NICE_UNSET) {
		snprintf(err, errlen, "options '--fifo' and '--nice' exclude each other");
		return -EINVAL;
	}
	if (o->fifo && geteuid() != 0 &&
	    (getrlimit(RLIMIT_RTPRIO, &rl) < 0 || (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)o->fifo))) {
		snprintf(err, errlen, "option '--fifo': SCHED_FIFO priority %lld needs root or an RLIMIT_RTPRIO of "
			 "at least %lld", (long long)o->fifo, (long long)o->fifo);
		return -EINVAL;
	}
	/* A nice value below 0 needs CAP_SYS_NICE or RLIMIT_NICE >= 20 - nice. */
	if (o->nice != NICE_UNSET && o->nice < 0 && geteuid() != 0 &&
	    (getrlimit(RLIMIT_NICE, &rl) < 0 || (rl.rlim_cur != RLIM_INFINITY && (int64_t)rl.rlim_cur < 20 - o->nice))) {
		snprintf(err, errlen, "option '--nice': %lld needs root or an RLIMIT_NICE of at least %lld",
			 (long long)o->nice, (long long)(20 - o->nice));
		return -EINVAL;
	}
	if ((r = check_knobs(o, err, errlen)))
		return r;
	if ((r = check_sandbox(o, err, errlen)))
		return r;
	for (unsigned i = 0; i < o->plan.nloads; i++)
		parts |= o->plan.loads[i].parts;
	if (parts & LAT_PART_FILES) {
		struct stat st;

		if (stat(o->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "option '--dir': '%s' is not a directory", o->dir);
			return -EINVAL;
		}
		if (access(o->dir, W_OK | X_OK) < 0) {
			snprintf(err, errlen, "option '--dir': cannot write in '%s'", o->dir);
			return -EINVAL;
		}
	}
	return 0;
}

static size_t latency_nsteps(const void *p)
{
	const struct latency_opts *o = p;

	return o->plan.ncells;
}

/* ------------------------------------------------------------------ */
/* PSI around the measured window */

struct psi_snap {
	struct proc_psi f[3];	/* cpu, memory, io */
	bool ok[3];
	mono_ns at;
};

static const char *const psi_files[3] = { "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io" };

static void psi_read(struct psi_snap *s)
{
	struct proc_buf b = PROC_BUF_INIT;

	for (int i = 0; i < 3; i++)
		s->ok[i] = proc_buf_read_file(&b, psi_files[i]) == 0 && proc_psi_parse(&s->f[i], b.data, b.len) == 0;
	s->at = clock_mono();
	proc_buf_release(&b);
}

static void psi_metric(struct result *res, const char *name, const char *label, const struct proc_psi_line *a,
		       const struct proc_psi_line *b, double wall_s)
{
	double pct;

	if (proc_psi_delta(a, b, wall_s, &pct) == 0)
		result_metric(res, name, UNIT_PERCENT, pct, label)->higher_is_better = false;
}

static void psi_metrics(struct result *res, const struct psi_snap *a, const struct psi_snap *b)
{
	double wall_s = elapsed_s(a->at, b->at);

	if (a->ok[0] && b->ok[0])
		psi_metric(res, "stall_cpu", "stall: cpu some (PSI)", &a->f[0].some, &b->f[0].some, wall_s);
	if (a->ok[1] && b->ok[1]) {
		psi_metric(res, "stall_memory", "stall: memory some (PSI)", &a->f[1].some, &b->f[1].some, wall_s);
		psi_metric(res, "stall_memory_full", "stall: memory full (PSI)", &a->f[1].full, &b->f[1].full, wall_s);
	}
	if (a->ok[2] && b->ok[2]) {
		psi_metric(res, "stall_io", "stall: io some (PSI)", &a->f[2].some, &b->f[2].some, wall_s);
		psi_metric(res, "stall_io_full", "stall: io full (PSI)", &a->f[2].full, &b->f[2].full, wall_s);
	}
	if (!a->ok[0])
		result_note(res, "no /proc/pressure (kernel without PSI): no stall figures");
}

/* ------------------------------------------------------------------ */

/* Sleeps until END in short steps, drawing progress; returns early on a stop signal. */
static void wait_until(const struct bench_env *env, mono_ns start, mono_ns end, const char *label)
{
	for (;;) {
		mono_ns now = clock_mono(), next;

		if (*env->stop || now >= end)
			return;
		progress_update(env->progress, now, elapsed_ns(start, now), elapsed_ns(start, end), label);
		next = now + PROGRESS_INTERVAL_NS < end ? now + PROGRESS_INTERVAL_NS : end;
		/* A stop signal ends the sleep with -EINTR; the top of the loop sees it. */
		if (clock_sleep_until(next) == -EINTR)
			continue;
	}
}

static void describe(const struct latency_opts *o, const struct lat_cell *cell, const struct lat_task_info *ti,
		     struct result *res)
{
	const struct lat_load_def *ld = &o->plan.loads[cell->load];
	char parts[128], t[32], w[32];

	result_set_step(res, "%s/%s", ti->name, ld->name);
	result_param(res, "task", "%s (%s)", ti->name, ti->profile);
	lat_parts_format(parts, sizeof(parts), ld->parts);
	if (strcmp(parts, ld->name))
		result_param(res, "load", "%s = %s", ld->name, parts);
	else
		result_param(res, "load", "%s", ld->name);
	fmt_duration(t, sizeof(t), o->time_ns);
	fmt_duration(w, sizeof(w), o->warmup_ns);
	result_param(res, "time", "%s per cell after %s of warm-up", t, w);
	if (o->fifo)
		result_param(res, "scheduling", "task SCHED_FIFO priority %lld, loads SCHED_OTHER nice 0",
			     (long long)o->fifo);
	else
		result_param(res, "scheduling", "task SCHED_OTHER nice %lld, loads SCHED_OTHER nice 0",
			     (long long)(o->nice == NICE_UNSET ? 0 : o->nice));

	result_param(res, "missed periods", "%s", o->missed == MISSED_SAMPLE ?
		     "sample: each period a late wake-up skipped also gives a wake-up sample" :
		     "skip: one late wake-up is one sample, as cyclictest");
	result_method(res, "latency", "per frame: wake-up time minus the absolute deadline slept to "
		      "(clock_nanosleep TIMER_ABSTIME, CLOCK_MONOTONIC, as cyclictest), plus interbench's penalty "
		      "of one period per missed deadline");
	if (cell->task == LAT_TASK_GAMING)
		result_method(res, "latency (gaming)", "per 100 ms chunk of CPU time: wall time taken beyond 100 ms");
	result_method(res, "work", "CPU time per frame read from CLOCK_THREAD_CPUTIME_ID (no calibrated loop)");
	result_method(res, "statistics", "mean and true sample SD (n-1) from exact sums; percentiles nearest-rank "
		      "from a log-linear histogram (within 0.8 %%); interbench's '+/- SD' (an RMS) apart");
	if (cell->task == LAT_TASK_GAMING)
		result_method(res, "% desired CPU", "CPU asked / (CPU asked + wall time beyond it), interbench's");
	else
		result_method(res, "% desired CPU", "frames done / (frames done + frames dropped), interbench's");
	if (ti->deadlines)
		result_method(res, "% deadlines met", "frames whose work ended within their period / deadlines due, "
			      "interbench's");
	result_method(res, "stall", "PSI some/full totals from /proc/pressure over the measured window");
	result_method(res, "run-queue wait", "the task thread's /proc/thread-self/schedstat");
	if (cell->task != LAT_TASK_GAMING)
		result_method(res, "missed periods", o->missed == MISSED_SAMPLE ?
			      "a wake-up W later than its period skips the periods passed (the next sleep is to the first "
			      "period start after W) and adds, for each skipped period starting at S, a wake-up sample "
			      "W - S (coordinated-omission correction); periods_skipped counts them" :
			      "a wake-up W later than its period skips the periods passed (the next sleep is to the first "
			      "period start after W), as cyclictest: one stall is one wake-up sample; periods_skipped "
			      "counts the skipped periods");
	result_method(res, "timer slack", "PR_GET_TIMERSLACK in the measured thread once its policy is set; a "
		      "SCHED_OTHER sleep may end up to this late by design, a SCHED_FIFO thread has none");
}

/* The measured thread's timer slack, in every result: parameter, metric and what set it. */
static void slack_report(const struct latency_opts *o, const struct lat_task *t, struct result *res)
{
	if (t->slack_err)
		result_note(res, "PR_SET_TIMERSLACK %lld ns failed: %s", (long long)o->timerslack, strerror(-t->slack_err));
	if (t->slack_now_ns < 0) {
		result_param(res, "timer slack", "unknown (PR_GET_TIMERSLACK failed)");
		return;
	}
	result_metric(res, "timerslack", UNIT_NS, (double)t->slack_now_ns,
		      "timer slack of the measured thread")->higher_is_better = false;
	if (o->fifo)
		result_param(res, "timer slack", "%ld ns (SCHED_FIFO%s)", t->slack_now_ns,
			     t->slack_now_ns ? "; its sleeps ignore the slack" : ": a real-time thread has none");
	else if (o->timerslack != SLACK_UNSET)
		result_param(res, "timer slack", "%ld ns, set by --timerslack %lld (PR_SET_TIMERSLACK)", t->slack_now_ns,
			     (long long)o->timerslack);
	else
		result_param(res, "timer slack", "%ld ns, inherited (--timerslack NS sets it)", t->slack_now_ns);
	if (o->timerslack != SLACK_UNSET && !o->fifo && t->slack_now_ns != o->timerslack)
		result_note(res, "--timerslack %lld asked, the thread has %ld ns", (long long)o->timerslack,
			    t->slack_now_ns);
	if (o->timerslack != SLACK_UNSET && o->fifo)
		result_note(res, "--timerslack has no effect on a SCHED_FIFO thread: its sleeps have no slack");
}

/* What --mlock and --pm-qos hold for one cell; released by knobs_release(). */
struct knobs_hold {
	bool locked;
	int qos_fd;
};

/* The cpuidle driver, for saying whether a PM QoS hold can matter; "" unknown. */
static void cpuidle_driver(char *buf, size_t len)
{
	struct proc_buf b = PROC_BUF_INIT;

	buf[0] = '\0';
	if (!proc_buf_read_file(&b, "/sys/devices/system/cpu/cpuidle/current_driver"))
		snprintf(buf, len, "%.*s", (int)strcspn(b.data, "\n"), b.data);
	proc_buf_release(&b);
}

/*
 * Locks memory (--mlock) and holds the PM QoS request (--pm-qos) for a
 * cell, saying so in RES. Returns 0, or -1 with RES skipped and nothing
 * held.
 */
static int knobs_apply(const struct latency_opts *o, struct knobs_hold *h, struct result *res)
{
	char drv[64];
	int32_t v, now;

	h->locked = false;
	h->qos_fd = -1;
	if (o->mlock) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
			result_set_status(res, RESULT_SKIPPED, "cannot lock memory (mlockall): %s", strerror(errno));
			return -1;
		}
		h->locked = true;
		result_param(res, "memory", "locked: mlockall(MCL_CURRENT|MCL_FUTURE) for the cell, as cyclictest -m "
			     "(memload's child process is not locked)");
	} else {
		result_param(res, "memory", "not locked (--mlock locks it, as cyclictest -m)");
	}
	if (o->pm_qos_us == PM_QOS_OFF) {
		result_param(res, "pm qos", "not held: the machine's own idle states (as cyclictest --laptop; "
			     "--pm-qos US holds " PM_QOS_DEV ")");
		return 0;
	}
	h->qos_fd = open(PM_QOS_DEV, O_RDWR | O_CLOEXEC);
	if (h->qos_fd < 0 && errno == ENOENT) {
		result_param(res, "pm qos", "not held: no " PM_QOS_DEV " on this system (%lld us asked)",
			     (long long)o->pm_qos_us);
		result_note(res, "--pm-qos: no " PM_QOS_DEV " (kernel without CPU latency QoS): nothing was held");
		return 0;
	}
	v = (int32_t)o->pm_qos_us;
	if (h->qos_fd < 0 || write(h->qos_fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		result_set_status(res, RESULT_SKIPPED, "cannot hold " PM_QOS_DEV " at %lld us: %s",
				  (long long)o->pm_qos_us, strerror(errno));
		if (h->qos_fd >= 0)
			close(h->qos_fd);
		h->qos_fd = -1;
		if (h->locked)
			munlockall();
		h->locked = false;
		return -1;
	}
	if (read(h->qos_fd, &now, sizeof(now)) == (ssize_t)sizeof(now))
		result_param(res, "pm qos", PM_QOS_DEV " held at %lld us for the cell (the system's target: %d us), "
			     "as cyclictest", (long long)o->pm_qos_us, (int)now);
	else
		result_param(res, "pm qos", PM_QOS_DEV " held at %lld us for the cell, as cyclictest",
			     (long long)o->pm_qos_us);
	cpuidle_driver(drv, sizeof(drv));
	if (!strcmp(drv, "none") || !drv[0])
		result_note(res, "--pm-qos: no cpuidle driver (%s): CPUs idle the architecture's default way whatever "
			    "the PM QoS target, so the hold cannot change idle states here", drv[0] ? drv : "unknown");
	return 0;
}

static void knobs_release(struct knobs_hold *h)
{
	if (h->qos_fd >= 0)
		close(h->qos_fd);
	if (h->locked)
		munlockall();
	h->qos_fd = -1;
	h->locked = false;
}

static void task_metrics(const struct lat_cell *cell, const struct lat_task_info *ti, const struct lat_task *t,
			 struct result *res)
{
	const struct lat_acct *a = t->acct;
	struct lat_summary s;
	double wall_s = elapsed_s(t->start, t->end);
	char label[80];

	lat_acct_summary(a, cell->task == LAT_TASK_GAMING, &s);
	/* interbench's columns first, in its order. */
	result_metric(res, "lat_mean", UNIT_NS, s.mean_ns, "Latency (mean)")->higher_is_better = false;
	result_metric(res, "lat_sd", UNIT_NS, s.sd_ns, "+/- SD (true SD)")->higher_is_better = false;
	result_metric(res, "lat_max", UNIT_NS, s.max_ns, "Max Latency")->higher_is_better = false;
	result_metric(res, "desired_cpu", UNIT_PERCENT, s.desired_cpu_pct, "% Desired CPU")->higher_is_better = true;
	if (ti->deadlines)
		result_metric(res, "deadlines_met", UNIT_PERCENT, s.deadlines_met_pct,
			      "% Deadlines Met")->higher_is_better = true;
	/* Then the percentiles. */
	result_metric(res, "lat_p50", UNIT_NS, s.p50_ns, "latency p50")->higher_is_better = false;
	result_metric(res, "lat_p90", UNIT_NS, s.p90_ns, "latency p90")->higher_is_better = false;
	result_metric(res, "lat_p99", UNIT_NS, s.p99_ns, "latency p99")->higher_is_better = false;
	result_headline(res, "lat_p99");
	result_metric(res, "lat_p999", UNIT_NS, s.p999_ns, "latency p99.9")->higher_is_better = false;
	/* Then the rest. */
	result_metric(res, "lat_interbench_sd", UNIT_NS, s.interbench_sd_ns,
		      "interbench's '+/- SD' (an RMS)")->higher_is_better = false;
	result_metric(res, "frames", UNIT_COUNT, (double)s.samples,
		      cell->task == LAT_TASK_GAMING ? "chunks" : "frames");
	if (cell->task != LAT_TASK_GAMING) {
		result_metric(res, "frames_dropped", UNIT_COUNT, (double)a->dropped, "frames dropped");
		result_metric(res, "deadlines_missed", UNIT_COUNT, (double)a->missed, "deadlines missed");
		result_metric(res, "periods_skipped", UNIT_COUNT, (double)a->skipped,
			      "periods skipped by late wake-ups")->higher_is_better = false;
		result_metric(res, "wake_p50", UNIT_NS, (double)hist_percentile(&a->wake, 50),
			      "wake-up latency p50 (no penalty)")->higher_is_better = false;
		result_metric(res, "wake_p99", UNIT_NS, (double)hist_percentile(&a->wake, 99),
			      "wake-up latency p99 (no penalty)")->higher_is_better = false;
		result_metric(res, "wake_max", UNIT_NS, (double)hist_max(&a->wake),
			      "wake-up latency max (no penalty)")->higher_is_better = false;
	}
	snprintf(label, sizeof(label), "task CPU share (asks %.0f %%)", ti->cpu_pct);
	result_metric(res, "task_cpu_share", UNIT_PERCENT, wall_s > 0 ? 100.0 * (double)t->cpu_ns / 1e9 / wall_s : NAN,
		      label);
	if (t->work_frames)
		result_metric(res, "work_overshoot", UNIT_NS,
			      (double)(t->work_done_ns - t->work_asked_ns) / (double)t->work_frames,
			      "CPU work beyond the asked, per frame")->higher_is_better = false;
	if (!isnan(t->runq_wait_ns) && wall_s > 0)
		result_metric(res, "runqueue_wait", UNIT_PERCENT, 100.0 * t->runq_wait_ns / 1e9 / wall_s,
			      "task runnable but waiting for a CPU")->higher_is_better = false;
	result_hist(res, "lat", UNIT_NS, &a->lat);
	if (cell->task != LAT_TASK_GAMING)
		result_hist(res, "wake", UNIT_NS, &a->wake);

	if (s.samples < 1000)
		result_note(res, "%llu %s: p99.9 needs 1000 or more to differ from the max; give a longer --time",
			    (unsigned long long)s.samples, cell->task == LAT_TASK_GAMING ? "chunks" : "frames");
	if (cell->task == LAT_TASK_X && t->x_steps < 101)
		result_note(res, "x ran steps 0..%u of its 0..100 %% ramp; a whole ramp takes about 10s", t->x_steps - 1);
}

static void measure_cell(const struct bench_env *env, const struct latency_opts *o, struct result *res)
{
	const struct lat_cell *cell = &o->plan.cells[env->step];
	const struct lat_load_def *ld = &o->plan.loads[cell->load];
	struct lat_task_info custom;
	char custom_text[64];
	const struct lat_task_info *ti = cell_info(o, cell->task, &custom, custom_text, sizeof(custom_text));
	struct lat_load_cfg cfg = {
		.parts = ld->parts, .tmp = env->tmp, .dir = o->dir, .file_size = o->file_size,
		.memload_size = o->memload_size, .burners = (int)o->burners, .sandbox_limit = o->sandbox,
	};
	struct lat_loads *loads = NULL;
	struct lat_task task;
	struct lat_acct *acct;
	struct psi_snap psi0, psi1;
	atomic_bool halt;
	pthread_t th;
	char label[80];
	mono_ns t0;
	int r;

	snprintf(label, sizeof(label), "%s/%s %u/%u", ti->name, ld->name, env->step + 1, o->plan.ncells);
	if (lat_loads_start(&loads, &cfg, res) < 0)
		return;
	if (o->warmup_ns) {
		char w[32];

		fmt_duration(w, sizeof(w), o->warmup_ns);
		progress_phase(env->progress, "%s, load %s: %s of warm-up before the timed cell", ti->name,
			       ld->name, w);
	}
	t0 = clock_mono();
	wait_until(env, t0, t0 + o->warmup_ns, label);
	if (*env->stop) {
		lat_loads_stop(loads, res);
		result_note(res, "stopped during the warm-up: nothing was measured");
		return;
	}

	acct = xmalloc(sizeof(*acct));
	lat_acct_init(acct);
	acct->sample_missed = o->missed == MISSED_SAMPLE;
	atomic_init(&halt, false);
	task = (struct lat_task){
		.kind = (enum lat_task_kind)cell->task, .halt = &halt, .acct = acct,
		.period_ns = cell->task == LAT_TASK_CUSTOM ? ti->period_ns : 0, .run_ns = ti->run_ns,
		.policy = o->fifo ? SCHED_FIFO : SCHED_OTHER, .fifo_prio = (int)o->fifo,
		.set_nice = o->nice != NICE_UNSET, .nice = (int)o->nice,
		.timerslack_ns = o->timerslack == SLACK_UNSET ? 0 : (uint64_t)o->timerslack,
	};
	psi_read(&psi0);
	r = lat_spawn(&th, lat_task_main, &task);
	if (r) {
		result_set_status(res, RESULT_FAILED, "cannot start the %s task: %s", ti->name, strerror(-r));
		lat_loads_stop(loads, res);
		free(acct);
		return;
	}
	t0 = clock_mono();
	wait_until(env, t0, t0 + o->time_ns, label);
	atomic_store(&halt, true);
	pthread_join(th, NULL);
	psi_read(&psi1);

	if (task.sched_err) {
		if (o->fifo)
			result_set_status(res, RESULT_SKIPPED, "cannot run the task SCHED_FIFO at priority %lld: %s",
					  (long long)o->fifo, strerror(-task.sched_err));
		else if (task.sched_err == -ENOTSUP)
			result_set_status(res, RESULT_SKIPPED, "no thread CPU-time clock: the work cannot be measured");
		else
			result_set_status(res, RESULT_SKIPPED, "cannot set the task's nice value to %lld: %s",
					  (long long)o->nice, strerror(-task.sched_err));
		lat_loads_stop(loads, res);
		free(acct);
		return;
	}
	task_metrics(cell, ti, &task, res);
	slack_report(o, &task, res);
	psi_metrics(res, &psi0, &psi1);
	lat_loads_stop(loads, res);
	if (*env->stop)
		result_note(res, "stopped by a signal after %.1f s of the %.1f s asked", elapsed_s(task.start, task.end),
			    (double)o->time_ns / 1e9);
	free(acct);
}

/* One cell: its description, the knobs held around its loads and its measurement. */
static void run_cell(const struct bench_env *env, const struct latency_opts *o, struct result *res)
{
	const struct lat_cell *cell = &o->plan.cells[env->step];
	struct lat_task_info custom;
	char custom_text[64];
	struct knobs_hold h;

	describe(o, cell, cell_info(o, cell->task, &custom, custom_text, sizeof(custom_text)), res);
	if (knobs_apply(o, &h, res))
		return;
	measure_cell(env, o, res);
	knobs_release(&h);
}

/* Figures of the sandbox after the cell: its peaks, how often it hit the limit. */
static void sandbox_metrics(const struct sandbox *sb, struct result *res)
{
	struct sandbox_stat st;

	if (sandbox_stat(sb, &st))
		return;
	if (st.peak_bytes >= 0)
		result_metric(res, "sandbox_mem_peak", UNIT_BYTES, (double)st.peak_bytes, "sandbox memory peak");
	if (st.memsw_peak_bytes >= 0)
		result_metric(res, "sandbox_memsw_peak", UNIT_BYTES, (double)st.memsw_peak_bytes,
			      "sandbox memory + swap peak");
	if (st.swap_peak_bytes >= 0)
		result_metric(res, "sandbox_swap_peak", UNIT_BYTES, (double)st.swap_peak_bytes, "sandbox swap peak");
	if (st.limit_hits >= 0)
		result_metric(res, "sandbox_limit_hits", UNIT_COUNT, (double)st.limit_hits,
			      "times the sandbox hit its limit");
}

/* Swap-outs of the whole box (pswpout of /proc/vmstat); -1 when unknown. */
static int64_t pswpout(void)
{
	struct proc_buf b = PROC_BUF_INIT;
	struct proc_vmstat vm;
	int64_t v = -1;

	if (!proc_buf_read_file(&b, "/proc/vmstat") && !proc_vmstat_parse(&vm, b.data, b.len) &&
	    vm.pswpout != PROC_NONE)
		v = (int64_t)vm.pswpout;
	proc_buf_release(&b);
	return v;
}

/*
 * One cell, inside a sandbox with --sandbox: engpass itself (the measured
 * task and every load thread) enters its cgroup, so memload and the file
 * loads' page cache are charged to it, and leaves before the teardown.
 */
static void latency_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct latency_opts *o = p;
	struct sandbox_opts so = { o->sandbox, o->swap_spec.kind == SANDBOX_SWAP_FILE ? o->sandbox * 2 : 0,
				   o->swap_spec.dir, "/proc", o->swap_spec.dev, o->mkswap_ok };
	struct sandbox *sb = NULL;
	struct sandbox_swap sw;
	char err[512], b1[UNITS_FMT_LEN];
	int64_t out0, out1;
	int r;

	if (!o->sandbox) {
		run_cell(env, o, res);
		return;
	}
	if ((r = sandbox_create(&sb, &so, err, sizeof(err)))) {
		result_set_step(res, "%s/%s", lat_task_info(o->plan.cells[env->step].task)->name,
				o->plan.loads[o->plan.cells[env->step].load].name);
		result_set_status(res, r == -ENOENT || r == -ENOTSUP ? RESULT_SKIPPED : RESULT_FAILED, "sandbox: %s", err);
		return;
	}
	sandbox_swap_info(sb, &sw);
	result_param(res, "sandbox", "memory cgroup v%d %s, limit %s: the measured task and every load run inside%s",
		     sandbox_cgroup_version(sb), sandbox_cgroup_dir(sb),
		     units_fmt_bytes(b1, sizeof(b1), sandbox_limit_bytes(sb)),
		     sw.path ? "" : ", no own swap (system swap applies)");
	sandbox_swap_result(&sw, res);
	{
		struct sandbox_stat st;

		if (!sandbox_stat(sb, &st) && st.swappiness >= 0)
			sandbox_swappiness_param(sb, &st, res);
	}
	if ((r = sandbox_enter(sb))) {
		result_set_status(res, RESULT_FAILED, "cannot enter the sandbox cgroup: %s", strerror(-r));
	} else {
		/*
		 * The cell's window begins inside the sandbox, so its limits are
		 * the sandbox's (memory limit and the peak against it, reset at
		 * the start); creating the cgroup and its swap is not the cell's.
		 */
		window_work(env->window, getpid(), sandbox_cgroup_dir(sb));
		(void)window_begin(env->window);
		out0 = pswpout();
		run_cell(env, o, res);
		out1 = pswpout();
		(void)window_end(env->window);
		if ((r = sandbox_leave(sb)))
			result_note(res, "cannot leave the sandbox cgroup: %s", strerror(-r));
		if (out0 >= 0 && out1 >= 0)
			result_metric(res, "swap_out_pages", UNIT_COUNT, (double)(out1 - out0),
				      "pages swapped out during the cell (system)")->higher_is_better = false;
		sandbox_metrics(sb, res);
		result_method(res, "sandbox", "the engpass process joins the sandbox cgroup before the loads start "
			      "(memory charged before stays outside) and leaves it after they stopped; swap_out_pages "
			      "is pswpout of /proc/vmstat over warm-up, cell and load stop");
	}
	if ((r = sandbox_destroy(sb, err, sizeof(err))))
		result_set_status(res, RESULT_FAILED, "sandbox teardown: %s", err);
}

extern const struct bench_quick latency_quick;	/* latency_quick.c */

const struct bench bench_latency = {
	.name = "latency",
	.summary = "interbench's interactivity benchmark: simulated tasks under loads, with percentiles",
	.usage = "[--task LIST] [--load LIST] [--time D] [--nice N | --fifo PRIO] [--mlock] [--pm-qos US] "
		 "[--timerslack NS] [options]",
	.description =
		"Runs simulated interactive tasks (interbench's audio: 5 % CPU every 50 ms; video: 40 %\n"
		"at 60 Hz; x: bursty, 0 to 100 % over about 10 s; gaming: all it can get in 100 ms\n"
		"chunks) while a load runs beside them, one cell (step) per task and load. Loads: none,\n"
		"video, x, burn (a CPU hog per CPU), write and read (O_DIRECT on an engpass temp file in\n"
		"--dir), compile (burn+write+read), memload (110 % of effective memory, never more than\n"
		"is free), audio, gaming, and any A+B combination, optionally named: desktop=memload+read+audio.\n"
		"Each cell reports interbench's columns (Latency +/- SD, Max Latency, % Desired CPU,\n"
		"% Deadlines Met) with the true SD, then p50 p90 p99 p99.9, the wake-up latency without\n"
		"the missed-frame penalty, the task's run-queue wait and the PSI stalls while measuring.\n"
		"Latency counts from the absolute deadline the task slept to (as cyclictest); the work\n"
		"of a frame is thread CPU time, not a calibrated loop. --time is the measured time of\n"
		"each cell (task x load), at least one task period (default 10s; x's ramp takes 10s).\n"
		"--sandbox LIMIT (root) runs each cell in a memory cgroup of LIMIT with its own swap file\n"
		"(--swap file[:DIR], default; dev:DEVICE; none): memload is sized from the limit and really\n"
		"swaps, as on a small box. cyclictest's knobs, each named in every result: --mlock (-m),\n"
		"--pm-qos (hold /dev/cpu_dma_latency), --timerslack (the measured thread's timer slack,\n"
		"reported in every result), --fifo (-p), --missed-periods skip|sample; the timer probe is\n"
		"--task custom (1 ms, no work). docs/latency.md defines it all.",
	.flags = BENCH_LOW_NOISE,
	.opts = latency_options,
	.opts_size = sizeof(struct latency_opts),
	.defaults = latency_defaults,
	.check = latency_check,
	.nsteps = latency_nsteps,
	.run = latency_run,
	.quick = &latency_quick,
};
