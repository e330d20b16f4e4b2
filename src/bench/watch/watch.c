/* SPDX-License-Identifier: MIT */
/*
 * engpass watch: observes a running system without adding load, the way
 * seed 004's operators watched a fastd supernode in Grafana. Every
 * interval it reads /proc (core/procwatch) for per-CPU busy, softirq and
 * steal with the busiest core, one process's CPU over all its threads,
 * its RSS and the CPUs its threads ran on, one interface's bits/s and one
 * disk's requests. On a terminal the current interval is shown as one
 * progress line on stderr; the result holds the totals, the runner's
 * sampler attaches the time series, and at the end comes seed 004's
 * capacity estimate (bench/watch/watch_est.h): traffic (less a baseline)
 * divided by the load of the daemon's core (--cpu, else the --pid
 * process's core per interval, else the busiest), extrapolated to 100 %,
 * per GHz, times the cores, capped by the link (never a virtual
 * interface's), with the load-traffic correlation and the headroom in
 * users -- labelled as an estimate everywhere it appears.
 *
 * Without --time the watch runs until SIGINT/SIGTERM, which is then its
 * normal end, not a failure. A watched process that exits ends the watch
 * with a note; what was seen until then is reported.
 *
 * Cost: procwatch reads five small files (plus one per thread) per
 * interval, and the runner's sampler reads its own set; the result
 * reports engpass's own CPU time over the watch so the cost is never
 * hidden.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/watch/watch_cap.h"
#include "bench/watch/watch_est.h"
#include "bench/watch/watch_socks.h"
#include "lib/units.h"
#include "core/kernel/affinity.h"
#include "core/base/clock.h"
#include "core/base/hist.h"
#include "core/observe/limits.h"
#include "core/kernel/procwatch.h"
#include "core/base/progress.h"
#include "core/kernel/sysinfo.h"
#include "core/observe/window.h"
#include "lib/xalloc.h"

/* Per-CPU figures are listed for at most this many CPUs (the busiest). */
#define WATCH_CPU_METRICS_MAX 16
/* PIDs named in the error when --name matches several processes. */
#define WATCH_NAME_LIST_MAX 8

enum watch_dir { DIR_MAX, DIR_RX, DIR_TX, DIR_SUM };

static const char *const directions[] = { "max", "rx", "tx", "sum", NULL };

struct watch_opts {
	int64_t pid;
	const char *name;
	const char *iface;
	const char *disk;
	int direction;		/* enum watch_dir */
	int64_t min_busy;	/* percent */
	double uplink;		/* bytes/s; 0 = the interface's link speed */
	cpu_set_t cpus;		/* --cpu: the cores whose load the estimate divides by; empty = see load_of() */
	double baseline;	/* bytes/s of traffic that bypasses the daemon, subtracted; 0 none */
	uint64_t baseline_time_ns;	/* measure the baseline over this idle window first; 0 none */
	double per_user;	/* bytes/s per user, for the headroom in users; 0 none */
	/* Filled by watch_check(). */
	pid_t target;		/* the process to watch, 0 none */
	int ncpus;		/* CPUs in cpus */
};

static const struct opt watch_options[] = {
	OPT_INT("pid", 0, struct watch_opts, pid, 1, INT32_MAX, "PID",
		"watch this process: CPU of all threads, RSS, the CPUs its threads ran on"),
	OPT_STRING("name", 0, struct watch_opts, name, "NAME",
		   "watch the one process called NAME (its comm, or argv[0]'s last component)"),
	OPT_STRING("iface", 0, struct watch_opts, iface, "IF",
		   "report this interface's traffic (the capacity estimate needs it)"),
	OPT_STRING("disk", 0, struct watch_opts, disk, "DEV",
		   "report this disk's requests (name as in /proc/diskstats; /dev/ is accepted)"),
	OPT_CHOICE("direction", 0, struct watch_opts, direction, directions, "DIR",
		   "traffic counted per interval: max of rx and tx (default), rx, tx or sum"),
	OPT_INT("min-busy", 0, struct watch_opts, min_busy, 1, 100, "PCT",
		"load (of the core the estimate divides by) an interval needs to count for it (default 70)"),
	OPT_RATE("uplink", 0, struct watch_opts, uplink,
		 "cap the estimate at this rate instead of the link speed (none on a virtual one): bytes/s, or bits "
		 "written out (100Mbit/s)"),
	OPT_CPULIST("cpu", 0, struct watch_opts, cpus,
		    "divide the traffic by the load of these cores (default: the core the --pid process ran on "
		    "in each interval, else the busiest)"),
	OPT_RATE("baseline", 0, struct watch_opts, baseline,
		 "traffic that bypasses the daemon (e.g. 40Mbit/s), subtracted from each interval"),
	OPT_DURATION("baseline-time", 0, struct watch_opts, baseline_time_ns, 100 * NS_PER_MS, 3600 * NS_PER_SEC,
		     "measure that baseline first: the interface's traffic over an idle window of D"),
	OPT_RATE("per-user", 0, struct watch_opts, per_user,
		 "one user's rate (e.g. 2Mbit/s): the headroom in users before the core is full"),
	OPT_END,
};

static void watch_defaults(void *p)
{
	struct watch_opts *o = p;

	o->min_busy = 70;
}

static int watch_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct watch_opts *o = p;
	struct procwatch_config cfg = { .proc_root = "/proc" };
	struct procwatch *pw;
	int r;

	(void)env;	/* BENCH_NO_IO: the runner refused positional arguments */
	if (o->pid && o->name) {
		snprintf(err, errlen, "options '--pid' and '--name' exclude each other");
		return -EINVAL;
	}
	if (o->uplink < 0 || isnan(o->uplink)) {
		snprintf(err, errlen, "option '--uplink': the rate must be positive");
		return -EINVAL;
	}
	if (o->baseline < 0 || isnan(o->baseline) || o->per_user < 0 || isnan(o->per_user)) {
		snprintf(err, errlen, "option '--%s': the rate must be positive", o->per_user < 0 || isnan(o->per_user) ?
			 "per-user" : "baseline");
		return -EINVAL;
	}
	if (o->baseline > 0 && o->baseline_time_ns) {
		snprintf(err, errlen, "options '--baseline' and '--baseline-time' exclude each other");
		return -EINVAL;
	}
	if ((o->baseline > 0 || o->baseline_time_ns || o->per_user > 0) && !o->iface) {
		snprintf(err, errlen, "option '--%s' needs '--iface' (it is about the interface's traffic)",
			 o->per_user > 0 ? "per-user" : o->baseline > 0 ? "baseline" : "baseline-time");
		return -EINVAL;
	}
	o->ncpus = CPU_COUNT(&o->cpus);
	if (o->disk && !strncmp(o->disk, "/dev/", 5))
		o->disk += 5;
	o->target = (pid_t)o->pid;
	if (o->name) {
		pid_t pids[WATCH_NAME_LIST_MAX];
		size_t n = 0, len;

		r = procwatch_find_name("/proc", o->name, getpid(), pids, WATCH_NAME_LIST_MAX, &n);
		if (r) {
			snprintf(err, errlen, "option '--name': cannot list /proc: %s", strerror(-r));
			return -EINVAL;
		}
		if (n == 0) {
			snprintf(err, errlen, "option '--name': no process named '%s'", o->name);
			return -EINVAL;
		}
		if (n > 1) {
			len = (size_t)snprintf(err, errlen, "option '--name': %zu processes named '%s':", n, o->name);
			for (size_t i = 0; i < n && i < WATCH_NAME_LIST_MAX && len < errlen; i++)
				len += (size_t)snprintf(err + len, errlen - len, " %d", (int)pids[i]);
			if (len < errlen)
				snprintf(err + len, errlen - len, "%s; choose one with --pid",
					 n > WATCH_NAME_LIST_MAX ? " ..." : "");
			return -EINVAL;
		}
		o->target = pids[0];
	}
	cfg.pid = o->target;
	cfg.iface = o->iface;
	cfg.disk = o->disk;
	r = procwatch_new(&pw, &cfg);
	procwatch_free(pw);
	switch (r) {
	case 0:
		return 0;
	case -ESRCH:
		if (o->name)
			snprintf(err, errlen, "option '--name': process %d ('%s') has exited", (int)o->target, o->name);
		else
			snprintf(err, errlen, "option '--pid': no process %d", (int)o->target);
		break;
	case -ENODEV:
		snprintf(err, errlen, "option '--iface': no interface '%s' in /proc/net/dev", o->iface);
		break;
	case -ENXIO:
		snprintf(err, errlen, "option '--disk': no disk '%s' in /proc/diskstats", o->disk);
		break;
	case -EINVAL:
		snprintf(err, errlen, "option '--%s': '%s' is too long for a device name",
			 o->iface && strlen(o->iface) >= 32 ? "iface" : "disk",
			 o->iface && strlen(o->iface) >= 32 ? o->iface : o->disk);
		break;
	default:
		snprintf(err, errlen, "cannot read /proc/stat: %s", strerror(-r));
		break;
	}
	return -EINVAL;
}

static void watch_sample_config(const void *p, unsigned step, struct sampler_config *cfg)
{
	const struct watch_opts *o = p;

	(void)step;
	cfg->pid = o->target;
	cfg->iface = o->iface;
	cfg->disk = o->disk;
}

/* Traffic counted for an interval, bits/s; NaN unknown. */
static double counted_bits(int dir, const struct procwatch_interval *iv)
{
	double rx = iv->rx_bytes_per_s * 8, tx = iv->tx_bytes_per_s * 8;

	switch (dir) {
	case DIR_RX:
		return rx;
	case DIR_TX:
		return tx;
	case DIR_SUM:
		return rx + tx;
	default:
		return isnan(rx) || isnan(tx) ? NAN : fmax(rx, tx);
	}
}

/* Running figures of the watch that procwatch does not keep. */
struct watch_acc {
	struct hist *busiest;		/* busiest core per interval, in 1/100 % */
	double busiest_max;
	double proc_max;
	double net_bits_s;		/* sum of counted bits/s * dt */
	double net_time_s;
	double net_max;
	struct watch_est est;
	int proc_core;			/* the core the process last got most of its time on; -1 none yet */
	/* Over the intervals with traffic and process CPU: sums x dt of bits/s, its CPU share, the load. */
	double own_bits, own_cpu, own_load, own_s;
	double baseline_bits;		/* bits/s subtracted from each interval (--baseline[-time]); 0 none */
	struct watch_cap cap;		/* the capacity from the process's own CPU */
	const struct limits *limits;	/* discovered for the process at the start; NULL none */
	int irqtime;			/* procwatch_irqtime(): 1 softirq apart, 0 inline, < 0 unknown */
	char irqtime_why[192];
	unsigned cap_no_sched;		/* intervals with process data but no schedstat */
};

/* The load of one interval is the mean of several --cpu cores. */
#define WATCH_CPU_LIST (-3)

/*
 * The load the estimate divides the traffic by in one interval, and its
 * core in *CPU (WATCH_CPU_LIST for the mean of several): the mean busy of
 * the --cpu cores; else the core that got most of the watched process's
 * thread time in the interval (the last such core while it did not run),
 * as seed 004's pinned fastd; else the busiest core. Seed 004's pitfall
 * was the busiest core: where iperf's ends ran, not the daemon.
 */
static double load_of(const struct watch_opts *o, struct watch_acc *a, const struct procwatch_interval *iv, int *cpu)
{
	if (o->ncpus) {
		double sum = 0;
		int n = 0, one = -1;

		for (int c = 0; c < iv->ncpu_slots && c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &o->cpus) || isnan(iv->busy[c]))
				continue;
			sum += iv->busy[c];
			n++;
			one = c;
		}
		*cpu = o->ncpus == 1 ? one : WATCH_CPU_LIST;
		return n ? sum / n : NAN;
	}
	if (o->target) {
		if (iv->proc_top_cpu >= 0)
			a->proc_core = iv->proc_top_cpu;
		if (a->proc_core >= 0 && a->proc_core < iv->ncpu_slots) {
			*cpu = a->proc_core;
			return iv->busy[a->proc_core];
		}
	}
	*cpu = iv->busiest_cpu;
	return iv->busiest_pct;
}

/* What the load of load_of() is, for the method and the notes. */
static const char *load_source(const struct watch_opts *o)
{
	if (o->ncpus)
		return o->ncpus == 1 ? "the --cpu core's load" : "the mean load of the --cpu cores";
	if (o->target)
		return "the load of the core the process ran on (most of its thread time, per interval)";
	return "the busiest core's load";
}

/*
 * The process's CPU for the capacity (watch_cap.h): its run time, the
 * CPU its cores spent on its traffic outside it (each core's ksoftirqd,
 * and its softirq where the kernel accounts that apart, weighted by the
 * process's share of its run time on the core), and for the aliasing test
 * its main core's tick busy % and its own % there.
 */
static void cap_interval(struct watch_acc *a, const struct procwatch_interval *iv, double bits)
{
	double run = iv->proc_run_s, extra = 0, tick = NAN, own = NAN, dt = iv->interval_s;
	int top = iv->proc_run_top_cpu;

	if (iv->proc_gone || !iv->proc_run_on)
		return;
	if (isnan(run))
		a->cap_no_sched++;
	for (int c = 0; run > 0 && c < iv->ncpu_slots; c++) {
		double k = 0, w = iv->proc_run_on[c] / run;

		if (!(w > 0))
			continue;
		if (iv->ksoftirqd_s && !isnan(iv->ksoftirqd_s[c]))
			k += iv->ksoftirqd_s[c];
		if (a->irqtime == 1 && !isnan(iv->softirq[c]))
			k += iv->softirq[c] / 100 * dt;
		extra += w * k;
	}
	if (top >= 0 && run > 0 && dt > 0 && !isnan(iv->busy[top]) && iv->proc_run_on[top] >= 0.9 * run) {
		double k = iv->ksoftirqd_s && !isnan(iv->ksoftirqd_s[top]) ? iv->ksoftirqd_s[top] : 0;

		if (a->irqtime == 1 && !isnan(iv->softirq[top]))
			k += iv->softirq[top] / 100 * dt;
		tick = iv->busy[top];
		own = fmin(100, 100 * (iv->proc_run_on[top] + k) / dt);
	}
	watch_cap_add(&a->cap, dt, bits, run, extra, tick, own);
}

static void acc_interval(struct watch_acc *a, const struct watch_opts *o, const struct procwatch_interval *iv)
{
	double bits = o->iface ? counted_bits(o->direction, iv) : NAN;
	double own = bits - a->baseline_bits, load;
	int cpu;

	if (!isnan(iv->busiest_pct)) {
		hist_record(a->busiest, (uint64_t)llround(iv->busiest_pct * 100));
		if (isnan(a->busiest_max) || iv->busiest_pct > a->busiest_max)
			a->busiest_max = iv->busiest_pct;
	}
	if (!isnan(iv->proc_cpu_pct) && (isnan(a->proc_max) || iv->proc_cpu_pct > a->proc_max))
		a->proc_max = iv->proc_cpu_pct;
	if (!isnan(bits)) {
		a->net_bits_s += bits * iv->interval_s;
		a->net_time_s += iv->interval_s;
		if (isnan(a->net_max) || bits > a->net_max)
			a->net_max = bits;
	}
	load = load_of(o, a, iv, &cpu);
	own = isnan(own) ? NAN : own > 0 ? own : 0;
	watch_est_add(&a->est, iv->interval_s, own, cpu, load);
	if (o->target)
		cap_interval(a, iv, own);
	if (o->target && !isnan(own) && !isnan(load) && iv->proc_cpu_pct > 0) {
		a->own_bits += own * iv->interval_s;
		a->own_cpu += iv->proc_cpu_pct * iv->interval_s;
		a->own_load += load * iv->interval_s;
		a->own_s += iv->interval_s;
	}
}

/* "14.2G", "980k", "12": three significant figures at most, decimal steps. */
static const char *compact(char *buf, size_t len, double v, double step)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T" };
	int i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "?");
		return buf;
	}
	while (fabs(v) >= step && i < 4) {
		v /= step;
		i++;
	}
	snprintf(buf, len, fabs(v) < 10 && i ? "%.1f%s" : "%.0f%s", v, sfx[i]);
	return buf;
}

/*
 * The live line for one interval. It follows the progress prefix
 * ("watch  0:12 elapsed  ", 21 columns) on a 79-column line, so it is
 * terse: softirq and steal of the busiest core only when at least 1 %.
 */
static void live_line(char *buf, size_t len, const struct watch_opts *o, const struct procwatch_interval *iv)
{
	char b[16], c[16];
	size_t n = 0;

#define ADD(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
	if (iv->busiest_cpu >= 0) {
		ADD("cpu%d %.0f%%", iv->busiest_cpu, iv->busiest_pct);
		if (iv->busiest_softirq_pct >= 1)
			ADD(" si %.0f%%", iv->busiest_softirq_pct);
		if (iv->busiest_steal_pct >= 1)
			ADD(" st %.0f%%", iv->busiest_steal_pct);
	} else {
		ADD("cpu ?");
	}
	if (o->target) {
		if (iv->proc_gone) {
			ADD(" | pid gone");
		} else {
			ADD(" | pid %.0f%%", iv->proc_cpu_pct);
			if (iv->proc_top_cpu >= 0)
				ADD("@cpu%d", iv->proc_top_cpu);
			ADD(" %s", compact(b, sizeof(b), (double)iv->proc_rss_bytes, 1024));
		}
	}
	if (o->iface)
		ADD(" | %s %sb/s", o->iface, compact(b, sizeof(b), counted_bits(o->direction, iv), 1000));
	if (o->disk)
		ADD(" | %s %sr/%sw", o->disk, compact(b, sizeof(b), iv->disk_reads_per_s, 1000),
		    compact(c, sizeof(c), iv->disk_writes_per_s, 1000));
#undef ADD
}

static double ratio_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

static struct metric *metric_lh(struct result *res, const char *name, enum unit u, double v, bool higher,
				const char *fmt, ...) PRINTF_LIKE(6, 7);

/* Adds a metric with a formatted label; higher_is_better as given. */
static struct metric *metric_lh(struct result *res, const char *name, enum unit u, double v, bool higher,
				const char *fmt, ...)
{
	char label[160];
	va_list ap;
	struct metric *m;

	va_start(ap, fmt);
	vsnprintf(label, sizeof(label), fmt, ap);
	va_end(ap);
	m = result_metric(res, name, u, v, label);
	m->higher_is_better = higher;
	return m;
}

/* CPU numbers ordered by busy share over the watch, busiest first. */
struct cpu_rank {
	int cpu;
	double busy;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct cpu_rank *x = a, *y = b;

	if (x->busy != y->busy)
		return x->busy < y->busy ? 1 : -1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_rank_cpu(const void *a, const void *b)
{
	const struct cpu_rank *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static void cpu_metrics(struct result *res, const struct procwatch_summary *s, const struct watch_acc *a)
{
	struct cpu_rank *rank = xcalloc((size_t)s->ncpu_slots + 1, sizeof(*rank));
	int n = 0, shown;
	char name[48];

	for (int c = 0; c < s->ncpu_slots; c++) {
		if (!s->cpu[c].total)
			continue;
		rank[n].cpu = c;
		rank[n].busy = ratio_pct(s->cpu[c].busy, s->cpu[c].total);
		n++;
	}
	qsort(rank, (size_t)n, sizeof(*rank), cmp_rank);
	metric_lh(res, "cpu_busy", UNIT_PERCENT, ratio_pct(s->all.busy, s->all.total), false,
		  "all CPUs busy");
	metric_lh(res, "cpu_softirq", UNIT_PERCENT, ratio_pct(s->all.softirq, s->all.total), false,
		  "all CPUs softirq");
	metric_lh(res, "cpu_steal", UNIT_PERCENT, ratio_pct(s->all.steal, s->all.total), false,
		  "all CPUs steal");
	if (n) {
		const struct procwatch_cpu_ticks *t = &s->cpu[rank[0].cpu];

		metric_lh(res, "busiest_cpu", UNIT_COUNT, rank[0].cpu, false, "busiest core (CPU number)");
		metric_lh(res, "busiest_cpu_busy", UNIT_PERCENT, rank[0].busy, false, "busiest core busy");
		metric_lh(res, "busiest_cpu_softirq", UNIT_PERCENT, ratio_pct(t->softirq, t->total), false,
			  "busiest core softirq");
		metric_lh(res, "busiest_cpu_steal", UNIT_PERCENT, ratio_pct(t->steal, t->total), false,
			  "busiest core steal");
	}
	if (hist_count(a->busiest)) {
		metric_lh(res, "interval_busiest_p50", UNIT_PERCENT, (double)hist_percentile(a->busiest, 50) / 100,
			  false, "busiest core/interval: median");
		metric_lh(res, "interval_busiest_max", UNIT_PERCENT, a->busiest_max, false,
			  "busiest core/interval: highest");
	}
	shown = n < WATCH_CPU_METRICS_MAX ? n : WATCH_CPU_METRICS_MAX;
	/* The busiest are chosen; they are listed in CPU order. */
	qsort(rank, (size_t)shown, sizeof(*rank), cmp_rank_cpu);
	for (int i = 0; i < shown; i++) {
		int c = rank[i].cpu;

		snprintf(name, sizeof(name), "cpu%d_busy", c);
		metric_lh(res, name, UNIT_PERCENT, rank[i].busy, false, "cpu%d busy", c);
		snprintf(name, sizeof(name), "cpu%d_softirq", c);
		metric_lh(res, name, UNIT_PERCENT, ratio_pct(s->cpu[c].softirq, s->cpu[c].total), false,
			  "cpu%d softirq", c);
		snprintf(name, sizeof(name), "cpu%d_steal", c);
		metric_lh(res, name, UNIT_PERCENT, ratio_pct(s->cpu[c].steal, s->cpu[c].total), false,
			  "cpu%d steal", c);
	}
	if (n > shown)
		result_note(res, "per-CPU figures are listed for the %d busiest of %d CPUs", shown, n);
	free(rank);
}

static void proc_metrics(struct result *res, const struct procwatch_summary *s, const struct watch_acc *a)
{
	char name[48], list[256];
	size_t len = 0;

	metric_lh(res, "proc_cpu", UNIT_PERCENT,
		  s->proc_time_s > 0 ? 100.0 * (double)s->proc_ticks / (double)s->clk_tck / s->proc_time_s : NAN,
		  false, "process CPU, all threads");
	metric_lh(res, "proc_cpu_max", UNIT_PERCENT, a->proc_max, false, "process CPU, highest interval");
	metric_lh(res, "proc_rss", UNIT_BYTES, s->rss_last_bytes < 0 ? NAN : (double)s->rss_last_bytes, false,
		  "process RSS, last");
	metric_lh(res, "proc_rss_max", UNIT_BYTES, s->rss_last_bytes < 0 ? NAN : (double)s->rss_max_bytes, false,
		  "process RSS, highest");
	metric_lh(res, "proc_threads", UNIT_COUNT, s->threads_max, false, "process threads, most");
	if (s->top_tid && s->proc_time_s > 0)
		metric_lh(res, "proc_top_thread_cpu", UNIT_PERCENT,
			  100.0 * (double)s->top_ticks / (double)s->clk_tck / s->proc_time_s, false,
			  "busiest thread CPU");
	for (int c = 0; c < s->ncpu_slots; c++) {
		double share = ratio_pct(s->thread_ticks_by_cpu[c], s->thread_ticks);

		/* Stable keys for the first CPUs; beyond them only where the process ran. */
		if (!s->cpu[c].total || (c >= WATCH_CPU_METRICS_MAX && !s->thread_ticks_by_cpu[c]))
			continue;
		snprintf(name, sizeof(name), "proc_on_cpu%d", c);
		metric_lh(res, name, UNIT_PERCENT, share, false, "process time on cpu%d", c);
		if (s->thread_ticks_by_cpu[c] && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%scpu%d %.1f %%", len ? ", " : "", c,
						share);
	}
	if (s->top_tid)
		result_note(res, "busiest thread: TID %d '%s', last on cpu%d", (int)s->top_tid, s->top_comm,
			    s->top_cpu);
	if (len)
		result_note(res, "process thread time by CPU (each thread's time per interval charged to the CPU it "
			    "last ran on): %s", list);
	else if (s->intervals)
		result_note(res, "the process's threads used no measurable CPU time (less than one tick)");
	if (s->threads_untracked)
		result_note(res, "%u threads beyond the first %d were not followed", s->threads_untracked,
			    PROCWATCH_MAX_THREADS);
}

static void net_metrics(struct result *res, const struct watch_opts *o, const struct procwatch_summary *s,
			const struct watch_acc *a)
{
	metric_lh(res, "net_rx", UNIT_BITS_PER_S, s->net_time_s > 0 ? (double)s->rx_bytes * 8 / s->net_time_s : NAN,
		  true, "%s received", o->iface);
	metric_lh(res, "net_tx", UNIT_BITS_PER_S, s->net_time_s > 0 ? (double)s->tx_bytes * 8 / s->net_time_s : NAN,
		  true, "%s sent", o->iface);
	metric_lh(res, "net_traffic", UNIT_BITS_PER_S, a->net_time_s > 0 ? a->net_bits_s / a->net_time_s : NAN, true,
		  "%s counted (%s)", o->iface, o->direction == DIR_MAX ? "max rx/tx" : directions[o->direction]);
	metric_lh(res, "net_traffic_max", UNIT_BITS_PER_S, a->net_max, true, "%s counted, highest interval",
		  o->iface);
}

static void disk_metrics(struct result *res, const struct watch_opts *o, const struct procwatch_summary *s)
{
	double t = s->disk_time_s;

	metric_lh(res, "disk_reads", UNIT_PER_S, t > 0 ? (double)s->disk_reads / t : NAN, true, "%s reads", o->disk);
	metric_lh(res, "disk_writes", UNIT_PER_S, t > 0 ? (double)s->disk_writes / t : NAN, true, "%s writes",
		  o->disk);
	metric_lh(res, "disk_read", UNIT_BYTES_PER_S, t > 0 ? (double)s->disk_read_bytes / t : NAN, true,
		  "%s read", o->disk);
	metric_lh(res, "disk_write", UNIT_BYTES_PER_S, t > 0 ? (double)s->disk_write_bytes / t : NAN, true,
		  "%s written", o->disk);
	metric_lh(res, "disk_util", UNIT_PERCENT, t > 0 ? fmin(100, (double)s->disk_io_ticks_ms / (t * 10)) : NAN,
		  false, "%s busy", o->disk);
	metric_lh(res, "disk_read_requests", UNIT_COUNT, (double)s->disk_reads, false, "%s read requests", o->disk);
	metric_lh(res, "disk_write_requests", UNIT_COUNT, (double)s->disk_writes, false, "%s write requests",
		  o->disk);
}

/*
 * Link speed for the cap, bits/s, and where it came from; NaN unknown.
 * A virtual interface (veth, tun, bridge, lo: no device behind it) has
 * none, whatever its speed file says (veth: 10000), so it never caps.
 */
static double link_speed(const struct watch_opts *o, const struct sysinfo *si, const char **source,
			 bool *is_virtual)
{
	*is_virtual = false;
	if (o->uplink > 0) {
		*source = "--uplink";
		return o->uplink * 8;
	}
	for (size_t i = 0; i < si->nr_nets; i++) {
		if (strcmp(si->nets[i].name, o->iface))
			continue;
		if (si->nets[i].is_virtual) {
			*is_virtual = true;
			break;
		}
		if (si->nets[i].speed_mbit_per_s > 0) {
			*source = "/sys/class/net/IF/speed";
			return (double)si->nets[i].speed_mbit_per_s * 1e6;
		}
	}
	*source = NULL;
	return NAN;
}

/* "cpu1", "cpu0-1" (the --cpu list), or "a moving core". */
static const char *where_name(char *buf, size_t len, const struct watch_opts *o, int cpu)
{
	if (cpu >= 0)
		snprintf(buf, len, "cpu%d", cpu);
	else if (cpu == WATCH_CPU_LIST && len > 3 && affinity_format(buf + 3, len - 3, &o->cpus) == 0)
		memcpy(buf, "cpu", 3);
	else
		snprintf(buf, len, "a core that moved");
	return buf;
}

/*
 * Seed 004's pitfall: a load that is not the daemon's. With --cpu, say so
 * when the process ran mostly outside those cores; with --pid alone, when
 * its core moved between the intervals used (not pinned).
 */
static void check_core(struct result *res, const struct watch_opts *o, const struct procwatch_summary *s,
		       const struct watch_est_result *e)
{
	int main_cpu = -1;
	uint64_t most = 0, inside = 0;

	if (!s->have_proc || !s->thread_ticks) {
		if (!o->ncpus && e->cpu == -2)
			result_note(res, "warning: the busiest core changed between the intervals used, so the "
				    "estimate mixes loads; watch the daemon (--pid) or name its core (--cpu)");
		else if (!o->ncpus)
			result_note(res, "warning: the estimate divides by the busiest core's load, which describes the "
				    "daemon only if the daemon keeps that core busy; --pid PID or --cpu LIST names its core");
		return;
	}
	for (int c = 0; c < s->ncpu_slots; c++) {
		if (s->thread_ticks_by_cpu[c] > most) {
			most = s->thread_ticks_by_cpu[c];
			main_cpu = c;
		}
		if (o->ncpus && c < CPU_SETSIZE && CPU_ISSET(c, &o->cpus))
			inside += s->thread_ticks_by_cpu[c];
	}
	if (o->ncpus && inside * 2 < s->thread_ticks)
		result_note(res, "warning: the estimate divides by the load of the --cpu cores, but the process ran "
			    "mostly on cpu%d (%.0f %% of its thread time): the estimate does not describe this process",
			    main_cpu, ratio_pct(most, s->thread_ticks));
	else if (!o->ncpus && e->cpu == -2)
		result_note(res, "warning: the process's core changed between the intervals used (it ran mostly on "
			    "cpu%d, %.0f %% of its thread time), so the estimate mixes cores; pin it (taskset -a -p)",
			    main_cpu, ratio_pct(most, s->thread_ticks));
}

/* Load-traffic correlation figures; whether r was judged. */
static void corr_figures(struct result *res, const struct watch_est_result *e)
{
	char rtext[32];

	if (e->corr_n < 2)
		return;
	if (isnan(e->r))
		snprintf(rtext, sizeof(rtext), "undefined");
	else
		snprintf(rtext, sizeof(rtext), "= %.2f", e->r);
	if (!isnan(e->r))
		metric_lh(res, "est_r", UNIT_RATIO, e->r, true, "load-traffic correlation r");
	metric_lh(res, "est_load_sd", UNIT_PERCENT, e->load_sd, false, "load spread (standard deviation)");
	result_method(res, "correlation", "Pearson r of the estimate's load and the traffic over all %u intervals "
		      "with both; the estimate is refused when r < %.1f while the load varied by %.0f points (sd) or "
		      "more over %d or more intervals; a steadier load leaves r unjudged", e->corr_n, WATCH_EST_MIN_R,
		      WATCH_EST_MIN_LOAD_SD, WATCH_EST_MIN_CORR_N);
	if (e->r_judged && e->r >= WATCH_EST_MIN_R)
		result_note(res, "load and traffic move together: r = %.2f over %u intervals (load sd %.1f points)",
			    e->r, e->corr_n, e->load_sd);
	else if (!e->r_judged)
		result_note(res, "load-traffic correlation not judged: r %s over %u intervals, but the load %s (sd "
			    "%.1f points)", rtext, e->corr_n,
			    e->corr_n < WATCH_EST_MIN_CORR_N ? "was seen in too few intervals" :
			    "hardly varied: a core held at one load tells nothing about the slope", e->load_sd);
}

/* --per-user: the headroom in users of the estimate. */
static void users(struct result *res, const struct watch_opts *o, const struct watch_est_result *e,
		  const char *where)
{
	char u[32], c[32], m[32];
	double fit, more;

	if (!(o->per_user > 0) || watch_est_users(e, o->per_user * 8, &fit, &more))
		return;
	metric_lh(res, "est_users", UNIT_COUNT, fit, true, "ESTIMATE: users at --per-user that fill %s", where);
	metric_lh(res, "est_users_more", UNIT_COUNT, more, true, "ESTIMATE: users more that fit (headroom)");
	units_fmt_bits(u, sizeof(u), o->per_user * 8);
	units_fmt_bits(c, sizeof(c), e->load_capacity_bits_per_s);
	units_fmt_bits(m, sizeof(m), e->measured_bits_per_s);
	result_note(res, "HEADROOM (estimate): %s at 100 %% carries %s = %.0f users at %s each; beside the %s carried "
		    "at %.0f %% load, %.0f more users fit before it is full", where, c, fit, u, m, e->measured_busy_pct,
		    more);
}

/*
 * --pid: the cross-check by the process's own CPU. A core that other work
 * shares is busier than the daemon makes it, and the core-load estimate
 * then understates; the process's own time leaves out the kernel's
 * softirq work for its packets, so it overstates a little. Both are
 * given when they differ.
 */
static void own_cpu(struct result *res, const struct watch_acc *a, const char *where)
{
	double cpu, load, per_core;
	char p[32];

	if (!(a->own_s > 0) || !(a->own_cpu > 0))
		return;
	cpu = a->own_cpu / a->own_s;
	load = a->own_load / a->own_s;
	per_core = a->own_bits / a->own_s * 100 / cpu;
	metric_lh(res, "est_own_cpu", UNIT_PERCENT, cpu, false, "estimate cross-check: the process's own CPU");
	metric_lh(res, "est_own_per_core", UNIT_BITS_PER_S, per_core, true,
		  "ESTIMATE by the process's own CPU: per core at 100 %%");
	result_method(res, "own cpu", "cross-check: traffic / the process's own CPU (all threads) x 100 over the "
		      "%.1f s with both; leaves out softirq work the kernel did for it", a->own_s);
	if (load - cpu > 20)
		result_note(res, "other work shared %s: it was %.0f %% busy while the process used %.0f %% of a core; "
			    "by the process's own CPU the core would carry %s (ESTIMATE)", where, load, cpu,
			    units_fmt_bits(p, sizeof(p), per_core));
}


/*
 * The CPU available to the process (watch_cap.h): to its threads, the
 * least of the CPU quota, the CPUs its cpuset and affinity allow, the
 * threads that did its work and the online CPUs (*TASK); to its cores the
 * same without the quota (*CORE). What each came from goes to the method.
 */
static void cap_avail(struct result *res, const struct limits *lim, const struct procwatch_summary *s, int cores,
		      double *task, double *core)
{
	char q[256], line[512];
	size_t n = 0;
	double v = cores >= 1 ? cores : 1;

#define SAY(...) do { if (n < sizeof(line)) n += (size_t)snprintf(line + n, sizeof(line) - n, __VA_ARGS__); } while (0)
	SAY("%d online CPUs", cores);
	if (lim && lim->cpuset.state == LIMIT_SET && lim->cpuset.value < v) {
		v = lim->cpuset.value;
		SAY("; %g allowed (cpuset and affinity: %s)", v, lim->cpuset_list);
	}
	if (s->busy_threads >= 1 && s->busy_threads < v) {
		v = s->busy_threads;
		SAY("; %d thread%s did the work (5 %% or more of its run time)", s->busy_threads,
		    s->busy_threads == 1 ? "" : "s");
	}
	*core = v;
	*task = v;
	if (lim && lim->cpu_quota.state == LIMIT_SET) {
		limit_describe(&lim->cpu_quota, "cpus", q, sizeof(q));
		SAY("; CPU quota %s", q);
		if (lim->cpu_quota.value < v)
			*task = lim->cpu_quota.value;
	} else if (lim && lim->cpu_quota.state == LIMIT_UNKNOWN) {
		SAY("; CPU quota unknown (%s): none assumed", lim->cpu_quota.why);
	}
#undef SAY
	result_method(res, "capacity cpu", "%s: %g CPU for its threads, %g for its cores", line, *task, *core);
}

/*
 * The headline: the capacity from the process's own CPU (watch_cap.h),
 * with its interval, per core and for the box; tick aliasing; or why not.
 */
static void capacity(struct result *res, const struct procwatch_summary *s,
		     const struct watch_acc *a, int cores, double link, const char *link_src)
{
	struct watch_cap_result c;
	double task, core;
	char v[32], lo[32], hi[32], t[32], l[32];

	cap_avail(res, a->limits, s, cores, &task, &core);
	result_method(res, "capacity",
		      "per interval (--interval) with %.0f kbit/s or more of traffic and run time: traffic x interval / "
		      "the process's run time (schedstat of all its threads, ns), and / (run time + the CPU its "
		      "cores spent on its traffic outside it); the medians of both over those intervals with 95 %% "
		      "intervals from the order statistics (ranks n/2 -+ 0.98 sqrt(n)); capacity = the least of "
		      "(CPU for its threads x the first) and (CPU for its cores x the second); per core = the "
		      "second; box = per core x online cores, capped by the link", WATCH_CAP_MIN_BITS / 1e3);
	result_method(res, "softirq",
		      a->irqtime == 1 ?
		      "the kernel accounts interrupt time apart (%s): each core's softirq share of /proc/stat and its "
		      "ksoftirqd's run time count as the traffic's, weighted by the process's share of its run time "
		      "on that core" :
		      "softirq the process runs inline (its own sends and receives) is in its run time: the kernel "
		      "does not account interrupt time apart (%s); the softirq work its cores deferred to ksoftirqd "
		      "(that thread's schedstat) counts as the traffic's, weighted by the process's share of its run "
		      "time on that core; /proc/stat's softirq is not added (it would count the inline part twice)",
		      a->irqtime_why);
	if (watch_cap_finish(&a->cap, task, core, cores, link, &c)) {
		result_method(res, "capacity", "unavailable: %s", c.why);
		result_note(res, "capacity from the process's CPU unavailable: %s", c.why);
		if (a->cap_no_sched)
			result_note(res, "the process's threads' schedstat could not be read in %u intervals "
				    "(CONFIG_SCHED_INFO, or permissions)", a->cap_no_sched);
	} else {
		metric_lh(res, "cap", UNIT_BITS_PER_S, c.capacity, true, "CAPACITY ESTIMATE (process's own CPU): %s",
			  c.quota_bound ? "its CPU quota" : core > 1 ? "its cores" : "its core");
		metric_lh(res, "cap_lo", UNIT_BITS_PER_S, c.capacity_lo, true, "capacity: 95 %% interval, low");
		metric_lh(res, "cap_hi", UNIT_BITS_PER_S, c.capacity_hi, true, "capacity: 95 %% interval, high");
		metric_lh(res, "cap_per_core", UNIT_BITS_PER_S, c.per_core, true, "capacity per core at 100 %%");
		metric_lh(res, "cap_per_cpu_second", UNIT_BITS_PER_S, c.per_cpu, true,
			  "traffic per CPU-second of the process's threads");
		if (!isnan(c.total_bits_per_s))
			metric_lh(res, "cap_total", UNIT_BITS_PER_S, c.total_bits_per_s, true, "capacity: per core x %d "
				  "cores%s", c.cores, c.capped ? ", capped by the link" : isnan(c.link_bits_per_s) ?
				  ", uncapped" : "");
		metric_lh(res, "cap_load", UNIT_PERCENT, c.load_pct, false, "traffic measured, of the capacity");
		metric_lh(res, "cap_headroom", UNIT_BITS_PER_S, fmax(0, c.capacity - c.traffic_bits_per_s), true,
			  "capacity left beside the traffic measured");
		result_headline(res, "cap");
		units_fmt_bits(v, sizeof(v), c.capacity);
		units_fmt_bits(lo, sizeof(lo), c.capacity_lo);
		units_fmt_bits(hi, sizeof(hi), c.capacity_hi);
		units_fmt_bits(t, sizeof(t), c.traffic_bits_per_s);
		result_note(res, "CAPACITY (estimate from the process's own CPU): %s [%s, %s] at 100 %% of %s; it carried "
			    "%s (%.0f %%) using %.0f %% of a CPU%s over %u intervals", v, lo, hi,
			    c.quota_bound ? "its CPU quota" : core > 1 ? "its cores" : "its core", t, c.load_pct,
			    100 * c.run_cores, c.extra_cores >= 0.005 ? " plus softirq work on its core" : "", c.used);
		units_fmt_bits(v, sizeof(v), c.per_core);
		units_fmt_bits(t, sizeof(t), c.total_bits_per_s);
		units_fmt_bits(l, sizeof(l), c.link_bits_per_s);
		if (c.capped)
			result_note(res, "capacity per core %s; x %d cores, capped by the link at %s (%s)", v, c.cores, l,
				    link_src);
		else if (!isnan(c.total_bits_per_s))
			result_note(res, "capacity per core %s; x %d cores = %s%s", v, c.cores, t,
				    isnan(c.link_bits_per_s) ? " (no link speed to cap it: virtual or unknown)" : "");
	}
	metric_lh(res, "cap_intervals", UNIT_COUNT, c.used, false, "capacity input: intervals with traffic");
	if (!isnan(c.run_cores))
		metric_lh(res, "cap_cpu", UNIT_PERCENT, 100 * c.run_cores, false, "capacity input: the process's run time");
	if (!isnan(c.extra_cores))
		metric_lh(res, "cap_softirq", UNIT_PERCENT, 100 * c.extra_cores, false,
			  "capacity input: softirq work on its cores outside it");
	if (!isnan(c.r))
		metric_lh(res, "cap_r", UNIT_RATIO, c.r, true, "process CPU-traffic correlation r");
	if (c.alias_n) {
		metric_lh(res, "tick_alias_mean", UNIT_PERCENT, c.alias_mean, false,
			  "tick busy - own CPU of the process's core, mean");
		metric_lh(res, "tick_alias_sd", UNIT_PERCENT, c.alias_sd, false,
			  "tick busy - own CPU of the process's core, sd");
		result_method(res, "tick aliasing", "per interval, /proc/stat's busy %% of the core the process ran on "
			      "(90 %% or more of its run time) - its own run time there (+ that core's softirq work "
			      "outside it) over %u intervals; tick aliasing when the mean is below -%.0f points or the "
			      "standard deviation above %.0f points", c.alias_n, WATCH_CAP_ALIAS_MEAN, WATCH_CAP_ALIAS_SD);
	}
	if (c.alias_under)
		result_note(res, "TICK ALIASING: /proc/stat's tick-sampled busy time of the process's core read %.0f points "
			    "below what the process itself ran there (schedstat), mean over %u intervals: the ticks "
			    "sample a load that wakes in step with them; loads from /proc/stat (and the field report's method "
			    "below) are off by as much", -c.alias_mean, c.alias_n);
	if (c.alias_swing)
		result_note(res, "TICK ALIASING: per interval /proc/stat's busy time of the process's core swung %.0f "
			    "points (sd) around what the process ran there (schedstat), more than tick sampling of a "
			    "steady load does: per-interval core loads from /proc/stat are unreliable here", c.alias_sd);
	if (c.alias_over && !c.alias_swing)
		result_note(res, "the process's core was %.0f points busier by /proc/stat's ticks than the process (and "
			    "softirq work) made it: other work on that core, or tick aliasing", c.alias_mean);
}

static void estimate(struct result *res, const struct bench_env *env, const struct watch_opts *o,
		     const struct procwatch_summary *s, const struct watch_acc *a)
{
	struct sysinfo_opts so = { .proc_root = "/proc", .sys_root = "/sys", .calibrate = true };
	struct sysinfo si;
	struct watch_est_result e;
	const char *link_src = NULL, *freq_src;
	char m[32], p[32], g[32], t[32], l[32], where[160];
	double link;
	bool link_virtual;
	int cores;

	if (!o->iface) {
		result_method(res, "estimate", "unavailable: no --iface given (the estimate divides an "
			      "interface's traffic by a core's load)");
		result_note(res, "capacity estimate unavailable: no --iface given");
		return;
	}
	if (o->target) {
		struct sysinfo_opts so0 = { .proc_root = "/proc", .sys_root = "/sys" };

		if (sysinfo_collect(&si, &so0) < 0)
			sysinfo_init(&si);
		cores = si.cpu.online > 0 ? si.cpu.online : env->ncpu;
		link = link_speed(o, &si, &link_src, &link_virtual);
		capacity(res, s, a, cores, link, link_src);
		sysinfo_release(&si);
		link_src = NULL;
	} else {
		result_method(res, "capacity", "unavailable: no --pid or --name (the capacity divides the traffic by "
			      "the process's own CPU time)");
	}
	if (watch_est_finish(&a->est, NAN, 0, NAN, &e)) {
		corr_figures(res, &e);
		if (e.cpu >= 0)
			metric_lh(res, "est_cpu", UNIT_COUNT, e.cpu, false, "estimate input: the core divided by (number)");
		result_method(res, "estimate", "unavailable: %s", e.why);
		result_note(res, "capacity estimate unavailable: %s", e.why);
		return;
	}
	/*
	 * Only now, after the watch, is the frequency calibrated (0.1-0.2 s
	 * of one core), so the observation itself stays free of that load.
	 */
	if (sysinfo_collect(&si, &so) < 0)
		sysinfo_init(&si);
	cores = si.cpu.online > 0 ? si.cpu.online : env->ncpu;
	link = link_speed(o, &si, &link_src, &link_virtual);
	if (watch_est_finish(&a->est, si.cpu.freq_mhz, cores, link, &e)) {
		/* Cannot happen: the same sums were available a moment ago. */
		result_note(res, "capacity estimate unavailable: %s", e.why);
		sysinfo_release(&si);
		return;
	}
	freq_src = sysinfo_freq_source_name(si.cpu.freq_source);
	where_name(where, sizeof(where), o, e.cpu);
	result_method(res, "estimate",
		      "the field report's method, beside the capacity from the process's CPU: rule of three: "
		      "(traffic%s) / %s x 100 over the intervals with that load at %lld %% or more%s; "
		      "per GHz = that / clock; total = per core x online cores, capped by the link (never by a "
		      "virtual interface's); assumes a cost linear in traffic",
		      a->baseline_bits > 0 ? " - baseline" : "", load_source(o), (long long)o->min_busy,
		      o->ncpus > 1 ? ", / the number of --cpu cores = per core" : "");
	if (!isnan(si.cpu.freq_mhz))
		result_method(res, "frequency", "%.0f MHz from %s%s%s", si.cpu.freq_mhz, freq_src,
			      si.cpu.freq_source_detail ? ": " : "",
			      si.cpu.freq_source_detail ? si.cpu.freq_source_detail : "");
	if (e.cpu >= 0)
		metric_lh(res, "est_cpu", UNIT_COUNT, e.cpu, false, "estimate input: the core divided by (number)");
	metric_lh(res, "est_measured", UNIT_BITS_PER_S, e.measured_bits_per_s, true,
		  "estimate input: traffic%s", a->baseline_bits > 0 ? " less the baseline" : "");
	metric_lh(res, "est_measured_busy", UNIT_PERCENT, e.measured_busy_pct, false,
		  "estimate input: load of %s", where);
	metric_lh(res, "est_intervals", UNIT_COUNT, e.used, false, "estimate input: intervals used");
	corr_figures(res, &e);
	metric_lh(res, "est_per_core", UNIT_BITS_PER_S, e.per_core_bits_per_s, true,
		  "ESTIMATE: per core at 100 %%");
	if (!isnan(e.per_ghz_bits_per_s)) {
		metric_lh(res, "freq", UNIT_MHZ, e.freq_mhz, true, "clock (%s)", freq_src);
		metric_lh(res, "est_per_ghz", UNIT_BITS_PER_S, e.per_ghz_bits_per_s, true,
			  "ESTIMATE: per core per GHz");
	}
	metric_lh(res, "est_cores", UNIT_COUNT, e.cores, true, "estimate: online cores");
	if (!isnan(e.link_bits_per_s))
		metric_lh(res, "est_link", UNIT_BITS_PER_S, e.link_bits_per_s, true, "estimate: link speed");
	metric_lh(res, "est_total", UNIT_BITS_PER_S, e.total_bits_per_s, true, "ESTIMATE: x %d cores%s",
		  e.cores, e.capped ? ", capped" : isnan(e.link_bits_per_s) ? ", uncapped" : "");

	units_fmt_bits(m, sizeof(m), e.measured_bits_per_s);
	units_fmt_bits(p, sizeof(p), e.per_core_bits_per_s);
	units_fmt_bits(g, sizeof(g), e.per_ghz_bits_per_s);
	units_fmt_bits(t, sizeof(t), e.total_bits_per_s);
	units_fmt_bits(l, sizeof(l), e.link_bits_per_s);
	result_note(res, "ESTIMATE by the field report's method, not a measurement (rule of three, assumes a cost linear in "
		    "traffic): "
		    "%s carried %s%s while %s was %.0f %% busy (%u of %u intervals) -> %s per core at 100 %%",
		    o->iface, m, a->baseline_bits > 0 ? " beyond the baseline" : "", where, e.measured_busy_pct,
		    e.used, e.intervals, p);
	if (!isnan(e.per_ghz_bits_per_s))
		result_note(res, "ESTIMATE: %s per GHz at %.0f MHz (%s)", g, e.freq_mhz, freq_src);
	else
		result_note(res, "estimate per GHz unavailable: the CPU frequency is unknown");
	if (e.capped)
		result_note(res, "ESTIMATE: x %d cores = %s, capped by the link at %s (%s)", e.cores, t, l, link_src);
	else if (!isnan(e.link_bits_per_s))
		result_note(res, "ESTIMATE: x %d cores = %s, below the link speed %s (%s)", e.cores, t, l, link_src);
	else if (link_virtual)
		result_note(res, "ESTIMATE: x %d cores = %s, not capped: link speed unknown (virtual interface %s; "
			    "--uplink RATE sets the real uplink)", e.cores, t, o->iface);
	else
		result_note(res, "ESTIMATE: x %d cores = %s, uncapped: the link speed of %s is unknown (not "
			    "reported; --uplink RATE sets one)", e.cores, t, o->iface);
	users(res, o, &e, where);
	own_cpu(res, a, where);
	check_core(res, o, s, &e);
	sysinfo_release(&si);
}

/*
 * --baseline-time: the interface's traffic (and the estimate's load) over
 * an idle window before the watch, the traffic that bypasses the daemon.
 * Returns 0 with the figures in RES and *BITS, or -errno / -EINTR.
 */
static int measure_baseline(const struct bench_env *env, const struct watch_opts *o,
			    const struct procwatch_config *cfg, struct result *res, double *bits)
{
	struct procwatch *pw = NULL;
	struct procwatch_interval iv;
	struct watch_acc tmp = { .proc_core = -1 };
	mono_ns t0, end;
	double load = NAN;
	int r, cpu;

	if ((r = procwatch_new(&pw, cfg)) < 0)
		return r;
	t0 = clock_mono();
	r = procwatch_read(pw, t0, &iv);
	end = t0 + o->baseline_time_ns;
	while (r == -ENODATA && !*env->stop && clock_mono() < end) {
		int w = clock_sleep_until(end);	/* -EINTR: look at the stop flag again */

		(void)w;
	}
	if (r == -ENODATA && !*env->stop)
		r = procwatch_read(pw, clock_mono(), &iv);
	else if (r == -ENODATA)
		r = -EINTR;
	if (r == 0) {
		/* IV points into PW's buffers: read it before PW is freed. */
		*bits = counted_bits(o->direction, &iv);
		load = load_of(o, &tmp, &iv, &cpu);
	}
	procwatch_free(pw);
	if (r < 0)
		return r;
	if (isnan(*bits))
		return -ENODATA;
	metric_lh(res, "baseline_traffic", UNIT_BITS_PER_S, *bits, false, "baseline: %s traffic before the watch",
		  o->iface);
	metric_lh(res, "baseline_load", UNIT_PERCENT, load, false, "baseline: load of the estimate's core");
	result_method(res, "baseline", "the interface's traffic over %.3f s before the watch (the idle window of "
		      "--baseline-time), subtracted from every interval's traffic (not below 0)", iv.interval_s);
	return 0;
}

static void params(struct result *res, const struct bench_env *env, const struct watch_opts *o,
		   const struct procwatch_summary *s)
{
	char d[32];

	if (o->target) {
		result_param(res, "pid", "%d", (int)o->target);
		result_param(res, "process", "%s", s->comm);
		if (s->cpus_allowed[0])
			result_param(res, "process_cpus_allowed", "%s", s->cpus_allowed);
	}
	if (o->name)
		result_param(res, "name", "%s", o->name);
	if (o->iface) {
		result_param(res, "iface", "%s", o->iface);
		result_param(res, "direction", "%s", directions[o->direction]);
	}
	if (o->disk)
		result_param(res, "disk", "%s", o->disk);
	result_param(res, "interval", "%s", units_fmt_duration(d, sizeof(d), env->interval_ns));
	if (env->time_ns)
		result_param(res, "time", "%s", units_fmt_duration(d, sizeof(d), env->time_ns));
	else
		result_param(res, "time", "until a signal");
	result_param(res, "min_busy", "%lld %%", (long long)o->min_busy);
	if (o->uplink > 0)
		result_param(res, "uplink", "%s", units_fmt_bits(d, sizeof(d), o->uplink * 8));
	if (o->ncpus) {
		char list[128];

		if (affinity_format(list, sizeof(list), &o->cpus) == 0)
			result_param(res, "cpu", "%s", list);
	}
	if (o->baseline > 0)
		result_param(res, "baseline", "%s", units_fmt_bits(d, sizeof(d), o->baseline * 8));
	if (o->baseline_time_ns)
		result_param(res, "baseline_time", "%s", units_fmt_duration(d, sizeof(d), o->baseline_time_ns));
	if (o->per_user > 0)
		result_param(res, "per_user", "%s", units_fmt_bits(d, sizeof(d), o->per_user * 8));
}

static void methods(struct result *res, const struct watch_opts *o)
{
	result_method(res, "source", "/proc re-read every interval (core/procwatch); nothing is loaded or written");
	result_method(res, "cpu", "per-CPU tick deltas of /proc/stat: busy = total - idle - iowait (steal counts as "
		      "busy and is also shown alone); means over the watch are tick-weighted");
	result_method(res, "busiest core", "per interval the CPU with the highest busy %%; over the watch the CPU "
		      "with the most busy ticks per tick");
	if (o->target) {
		result_method(res, "process cpu", "utime + stime delta of /proc/PID/stat (all threads, living and "
			      "exited) / USER_HZ / interval, %% of one core");
		result_method(res, "thread cpus", "per thread: utime + stime delta of /proc/PID/task/TID/stat, "
			      "charged to the CPU it last ran on (field 39) at the end of each interval");
		result_method(res, "rss", "field 24 of /proc/PID/stat * page size");
	}
	if (o->iface)
		result_method(res, "traffic", "bytes delta of /proc/net/dev * 8 / interval (link-layer payload as the "
			      "kernel counts it)");
	if (o->disk)
		result_method(res, "disk", "completed requests and sectors of /proc/diskstats; busy = io_ticks / time");
	result_method(res, "self", "engpass's own CPU: CLOCK_PROCESS_CPUTIME_ID delta / wall time, all its threads "
		      "(this reader and the runner's sampler)");
}

static void watch_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct watch_opts *o = p;
	const uint64_t iv_ns = env->interval_ns;
	struct procwatch_config cfg = { .proc_root = "/proc", .pid = o->target, .iface = o->iface,
					.disk = o->disk, .ncpu = env->ncpu };
	struct procwatch *pw = NULL;
	struct procwatch_interval iv;
	struct procwatch_summary s;
	struct watch_socks *socks = NULL;	/* the daemon's sockets (watch_socks.h) */
	struct watch_socks_judged judged;
	mono_ns socks_t = 0;
	struct limits *lim = NULL;
	struct watch_acc a = { .busiest_max = NAN, .proc_max = NAN, .net_max = NAN, .proc_core = -1,
			       .baseline_bits = o->baseline * 8 };
	mono_ns t0, deadline, end, now, last;
	int64_t wall0;
	uint64_t cpu0;
	int sig = 0, r;
	char line[128];

	if (o->baseline_time_ns) {
		r = measure_baseline(env, o, &cfg, res, &a.baseline_bits);
		if (r == -EINTR) {
			result_set_status(res, RESULT_FAILED, "stopped by a signal while measuring the baseline");
			return;
		}
		if (r < 0) {
			result_set_status(res, RESULT_FAILED, "cannot measure the baseline: %s", strerror(-r));
			return;
		}
	}
	r = procwatch_new(&pw, &cfg);
	if (r == -ESRCH) {
		result_set_status(res, RESULT_FAILED, "process %d exited before the watch began", (int)o->target);
		return;
	}
	if (r) {
		result_set_status(res, RESULT_FAILED, "cannot read /proc: %s", strerror(-r));
		return;
	}
	a.busiest = xmalloc(sizeof(*a.busiest));
	hist_init(a.busiest);
	watch_est_init(&a.est, (double)o->min_busy);
	watch_cap_init(&a.cap);
	if (o->target) {
		struct limits_config lcfg = { .pid = o->target, .no_netlink = true };

		lim = xcalloc(1, sizeof(*lim));
		limits_discover(&lcfg, lim);
		a.limits = lim;
		a.irqtime = procwatch_irqtime("/proc", NULL, a.irqtime_why, sizeof(a.irqtime_why));
		if (a.irqtime < 0)
			snprintf(a.irqtime_why, sizeof(a.irqtime_why), "unknown: %s; inline assumed",
				 strerror(-a.irqtime));
	}
	if (o->ncpus > 1)
		a.est.load_cores = o->ncpus;
	/* The window is the watch itself (not the baseline before it). */
	(void)window_begin(env->window);
	if (o->target) {
		socks = watch_socks_new("/proc", o->target);
		(void)watch_socks_read(socks, socks_t = clock_mono());
	}
	cpu0 = clock_process_cpu_ns();
	t0 = last = clock_mono();
	wall0 = clock_wall_ns();
	r = procwatch_read(pw, t0, &iv);
	if (r != -ENODATA) {
		result_set_status(res, RESULT_FAILED, "cannot read /proc/stat: %s", strerror(-r));
		goto out;
	}
	end = env->time_ns ? t0 + env->time_ns : UINT64_MAX;
	deadline = t0 + iv_ns;
	progress_update(env->progress, t0, 0, 0, NULL);
	for (;;) {
		bool final = false;

		if (*env->stop) {
			sig = (int)*env->stop;
			now = clock_mono();
			/* The part interval up to the signal, if a tick can have elapsed. */
			if (elapsed_ns(last, now) < 10 * NS_PER_MS)
				break;
			final = true;
		} else {
			mono_ns target = deadline < end ? deadline : end;

			if (clock_sleep_until(target) == -EINTR)
				continue;
			now = clock_mono();
		}
		r = procwatch_read(pw, now, &iv);
		last = now;
		if (socks && (final || now >= end || now - socks_t >= WATCH_SOCKS_EVERY_NS))
			(void)watch_socks_read(socks, socks_t = now);	/* a process gone keeps what was read */
		if (!r) {
			acc_interval(&a, o, &iv);
			live_line(line, sizeof(line), o, &iv);
			/* The nominal deadline, so that every interval >= 250 ms is drawn. */
			progress_update(env->progress, final || deadline > now ? now : deadline, 0, 0, line);
		}
		if (final || (!r && iv.proc_gone) || now >= end)
			break;
		while (deadline <= now)
			deadline += iv_ns;
	}
	(void)window_end(env->window);
	procwatch_summary(pw, &s);

	params(res, env, o, &s);
	methods(res, o);
	result_method(res, "window", "first reading at unix %lld.%06lld s, last %.3f s later",
		      (long long)(wall0 / 1000000000), (long long)(wall0 % 1000000000 / 1000), elapsed_s(t0, last));
	metric_lh(res, "watched", UNIT_SECONDS, elapsed_s(t0, last), false, "time watched");
	metric_lh(res, "intervals", UNIT_COUNT, s.intervals, false, "intervals observed");
	cpu_metrics(res, &s, &a);
	if (o->target)
		proc_metrics(res, &s, &a);
	if (o->iface)
		net_metrics(res, o, &s, &a);
	if (o->disk)
		disk_metrics(res, o, &s);
	if (socks) {
		watch_socks_report(socks, res, &judged);
		watch_socks_verdict(&judged, env->window, res);
	}
	/* Before the estimate: its frequency calibration is not part of watching. */
	metric_lh(res, "self_cpu", UNIT_PERCENT,
		  100.0 * (double)(clock_process_cpu_ns() - cpu0) / (double)elapsed_ns(t0, last), false,
		  "engpass's own CPU (cost)");
	estimate(res, env, o, &s, &a);

	if (s.gaps)
		result_note(res, "%u intervals had a counter reset or a read error; their figures are left out", s.gaps);
	if (!isnan(s.gone_after_s))
		result_note(res, "process %d ('%s') exited after %.1f s; the watch ended then and reports what it saw",
			    (int)o->target, s.comm, s.gone_after_s);
	if (sig) {
		if (env->time_ns) {
			result_note(res, "stopped by signal %d after %.1f s of the %.1f s asked", sig,
				    elapsed_s(t0, last), (double)env->time_ns / 1e9);
		} else {
			result_note(res, "stopped by signal %d after %.1f s, the normal end of a watch without --time",
				    sig, elapsed_s(t0, last));
		}
	}
	/* Without --time a signal is how a watch ends: nothing is missing. */
	if (sig && env->time_ns)
		result_set_incomplete(res);
	if (!s.intervals)
		result_note(res, "no complete interval was observed: the watch ended before the first interval");
out:
	watch_socks_free(socks);
	free(a.busiest);
	watch_cap_release(&a.cap);
	free(lim);
	procwatch_free(pw);
}

const struct bench bench_watch = {
	.name = "watch",
	.summary = "observe a running process, interface and disk; busiest core; capacity estimate",
	.usage = "[--pid PID|--name NAME] [--iface IF] [--disk DEV] [--cpu LIST] [--baseline RATE|--baseline-time D] "
		 "[--per-user RATE] [options]",
	.description =
		"Observes the running system without adding load: per-CPU busy, softirq and steal with\n"
		"the busiest core; a process's CPU over all its threads, its RSS and the CPUs its\n"
		"threads ran on; an interface's bits/s; a disk's requests. On a terminal the current\n"
		"interval is shown on one line (stderr); the result holds the totals and the time series.\n"
		"Runs for --time, or until Ctrl-C (the normal end of a watch). A process that exits ends\n"
		"the watch with a note. At the end, with --pid and --iface, the daemon's CAPACITY from its\n"
		"own CPU: per interval its traffic over its threads' schedstat run time (and its core's\n"
		"ksoftirqd), the median with a 95 % interval, times the CPU it may use (a quota, its\n"
		"cpuset, its busy threads); tick aliasing of /proc/stat is named. Beside it, the rule of\n"
		"three's capacity ESTIMATE: the interface's traffic (less a\n"
		"--baseline) divided by the load of the daemon's core -- the --cpu cores, else the core the\n"
		"--pid process ran on, else the busiest -- over the intervals at least --min-busy busy,\n"
		"extrapolated to 100 %, per GHz (the frequency source is named), times the online cores,\n"
		"capped by the link speed (or --uplink; a virtual interface has none). The load-traffic\n"
		"correlation r is reported and the estimate refused when r < 0.5 with a varying load;\n"
		"--per-user gives the headroom in users. See docs/watch.md.",
	.flags = BENCH_NO_IO | BENCH_UNTIL_SIGNAL,
	.opts = watch_options,
	.opts_size = sizeof(struct watch_opts),
	.defaults = watch_defaults,
	.check = watch_check,
	.sample_config = watch_sample_config,
	.run = watch_run,
};
