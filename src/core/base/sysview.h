/* SPDX-License-Identifier: MIT */
/*
 * The system view of one step: what the box was doing while a benchmark
 * ran, summarised from the sampler's intervals (sampler_summary()). The
 * result model stores it and the verdict reads it to say which resource
 * bounded the step. A plain value type, no functions beyond the
 * initialiser (defined once, in core/result/result.c), so that renderers and the
 * verdict need not link the sampler.
 *
 * Unknown values: NaN for doubles, -1 for ints, "" for names, 0 for the
 * counts. Percentages are 0..100; "of one CPU" values can exceed 100 for a
 * multi-threaded process.
 */
#ifndef ENGPASS_SYSVIEW_H
#define ENGPASS_SYSVIEW_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * The work's time budget (core/observe/tstate.h): the share of its threads' time
 * in each state, largest first. pct is of thread_s; the entries add up to
 * 100 (the last may be "other" for the rest). thread_s NaN = not taken.
 */
#define SYSVIEW_BUDGET 8
struct sysview_budget_entry {
	char state[12];		/* tstate_kind_name(): "on CPU", "run queue", "disk", "network", ... */
	char what[48];		/* the resource: "vda", "tcp 10.0.0.1:5201", "futex", "nanosleep"; "" none */
	char detail[48];	/* "write, O_DIRECT", "fsync", "recv", "1.0 in flight"; "" none */
	double pct;		/* of the work's thread time */
};
struct sysview_budget {
	double thread_s;	/* the work's thread time (idle threads left out); NaN not taken */
	int threads;		/* threads counted */
	int idle_threads;	/* threads left out as idle (waiting for the others) */
	double idle_s;		/* their time */
	unsigned samples;	/* thread samples taken */
	double rate_hz;		/* the sampling rate */
	double quota_s;		/* run-queue time spent throttled by the cgroup's quota (part of "run queue") */
	double major_faults;	/* of the work over the window; NaN unknown */
	double read_bytes, write_bytes;	/* storage bytes the work caused (/proc/PID/io); NaN unknown */
	int delayacct;		/* kernel.task_delayacct: 1 on, 0 off, -1 unknown */
	/*
	 * Delay accounting (taskstats) over the window, where the kernel keeps
	 * it: the threads' exact waits, seconds; NaN when off or unread.
	 */
	double delay_blkio_s, delay_swapin_s, delay_thrashing_s, delay_reclaim_s;
	unsigned delay_threads;	/* threads read at both edges */
	unsigned delay_suspect;	/* threads left out: a total longer than the thread's life */
	/* The TCP socket the work waited on longest, read over sock_diag at two times (core/kernel/sockdiag.h). */
	char net_what[48];	/* "tcp 10.0.0.1:5201"; "" none judged */
	char net_why[16];	/* sockdiag_why_name(): "receive window", "upstream", "idle", ... */
	char net_evidence[160];	/* the figures that decided */
	unsigned n;
	struct sysview_budget_entry e[SYSVIEW_BUDGET];
};

struct sysview {
	unsigned samples;		/* number of intervals summarised */
	unsigned dropped;		/* intervals summarised but not stored (max_samples reached) */
	unsigned gaps;			/* intervals with a counter that went backwards or a failed read */
	double duration_s;
	int ncpu;			/* online CPUs seen (most in any snapshot) */
	double cpu_busy_pct;		/* mean busy over all CPUs, 0..100 */
	double cpu_iowait_pct, cpu_softirq_pct, cpu_steal_pct;
	int busiest_cpu;		/* CPU with the highest mean busy % over the step; -1 unknown */
	double busiest_cpu_busy_pct, busiest_cpu_softirq_pct;
	double peak_cpu_busy_pct;	/* highest single-interval busy % of any one CPU */
	double run_queue_avg;		/* procs_running average (counts the sampler itself) */
	char busiest_disk[32];		/* device with highest %util; "" if none had any I/O */
	double disk_util_pct, disk_reads_per_s, disk_writes_per_s, disk_read_bytes_per_s, disk_write_bytes_per_s;
	uint64_t disk_read_requests, disk_write_requests;	/* completed requests during the step */
	double disk_avg_write_request_bytes;
	double disk_avg_wait_ms;	/* (read + write ms) / requests of the busiest disk */
	double swap_in_pages_per_s, swap_out_pages_per_s, major_faults_per_s;
	double mem_available_min_bytes;
	bool psi_available;
	double psi_cpu_some_pct, psi_mem_some_pct, psi_mem_full_pct, psi_io_some_pct, psi_io_full_pct;
					/* stall share over the step, from the 'total' µs counters */
	char busiest_iface[32];		/* interface with most rx+tx bytes, loopback included; "" if none moved any */
	double net_rx_bytes_per_s, net_tx_bytes_per_s;
	bool have_proc;			/* a PID was watched */
	double proc_cpu_pct;		/* of one CPU */
	uint64_t proc_rss_max_bytes;
	double disk_queue_avg;		/* aqu-sz of the busiest disk: mean requests in flight */

	/*
	 * The work: the threads of the process under test (engpass itself, or
	 * watch --pid's process), from /proc/PID/task/TID/{stat,schedstat},
	 * the sampler's own thread left out. Percentages are of the sampled
	 * time; "of one CPU" sums can exceed 100.
	 */
	int work_threads;		/* most threads seen in one interval; 0 unknown */
	double work_cpu_pct;		/* CPU of all its threads, of one CPU */
	double work_wait_pct;		/* run-queue wait of all its threads, of one CPU (schedstat) */
	double work_thread_cpu_pct;	/* the busiest thread's CPU share */
	double work_thread_wait_pct;	/* that thread's run-queue wait share */
	int work_thread_cpu;		/* the CPU that thread ran on most; -1 unknown */
	char work_thread_comm[16];	/* its name */

	/* Other processes, from /proc/[pid]/stat at the edges of each span. */
	double others_cpu_pct;		/* all processes but the work and engpass, of one CPU */
	double others_on_work_cpus_pct;	/* of it, on the CPUs the work's threads ran on (each process's last CPU at the edges) */
#define SYSVIEW_OTHERS 3
	struct sysview_other {
		int pid;		/* 0 = empty slot */
		char comm[16];
		double cpu_pct;		/* of one CPU */
	} others[SYSVIEW_OTHERS];	/* the busiest, busiest first */
	/* Other processes by the storage bytes they caused over the window (/proc/PID/io at the edges). */
	struct sysview_io_other {
		int pid;		/* 0 = empty slot */
		char comm[16];
		double read_bytes, write_bytes;
	} io_others[SYSVIEW_OTHERS];	/* the most bytes first */
	/*
	 * TCP traffic by process (core/observe/netwho.h: per-socket bytes acked and
	 * received over sock_diag at the edges, in the work's network
	 * namespace; steps with an interface only). NaN unknown.
	 */
	double tcp_bytes;		/* every TCP socket that moved data and was open at a stop edge */
	double tcp_work_bytes;		/* of it, the work's (its process and its children) */
	struct sysview_tcp_other {
		int pid;		/* 0 = empty slot */
		char comm[16];
		double bytes;
	} tcp_others[SYSVIEW_OTHERS];	/* the most bytes first */

	/* /proc/net/snmp over the window: counts, NaN unknown. */
	double udp_rcvbuf_errors, udp_in_errors;

	/*
	 * Counters of the configured limits (core/observe/limits.h) over the window,
	 * read at the edges of each span; NaN where the limit's counter could
	 * not be read or there is no such limit.
	 */
	double cg_cpu_usage_pct;	/* the limiting cgroup's CPU, of one CPU */
	double cg_cpu_throttled_pct;	/* throttled periods / periods */
	double cg_cpu_throttled_s;	/* time throttled */
	double cg_io_read_bytes_per_s, cg_io_write_bytes_per_s;	/* the device under test, in the cgroup */
	double cg_io_reads_per_s, cg_io_writes_per_s;
	double cg_mem_peak_bytes;	/* highest usage seen (memory.max_usage_in_bytes, memory.peak or at the edges) */
	double cg_mem_limit_hits;	/* memory.failcnt (v1) or memory.events max (v2) */
	double cg_mem_high_events;	/* memory.events high (v2) */
	double cg_mem_oom_events;	/* memory.events oom (v2) or memory.oom_control oom_kill (v1) */
	double qdisc_bytes_per_s;	/* the limiting qdisc or class on the egress interface */
	double qdisc_drops, qdisc_overlimits;
	double qdisc_backlog_max_bytes;	/* the most it held at an edge */
	/* The ingress shaper: the qdisc of the device the interface's ingress is redirected to (ifb). */
	double qdisc_in_bytes_per_s, qdisc_in_drops, qdisc_in_overlimits, qdisc_in_backlog_max_bytes;

	/*
	 * Heat (core/kernel/thermal.h) over the window: the hottest sensors, the
	 * sensor that reached its own limit, the CPU's throttle counters and
	 * its cooling devices. Temperatures in degrees Celsius.
	 */
	int temp_sensors;		/* sensors that gave a reading; -1 not looked for, 0 none on this box */
	int temp_unreadable;		/* sensors found that never gave a plausible reading */
#define SYSVIEW_TEMPS 4
	struct sysview_temp {
		char name[40];		/* "" = empty slot: "cpu-thermal", "coretemp Package id 0" */
		double start_c, end_c, max_c;	/* first, last and highest reading */
		double trip_c;		/* its own limit (crit, max or a passive trip); NaN none */
		char trip[10];		/* which limit: "max", "crit", "passive", "hot", "critical" */
	} temps[SYSVIEW_TEMPS];		/* hottest (by highest reading) first */
	struct sysview_temp temp_hit;	/* the hottest sensor that reached its limit; name "" none */
	int throttle_cpus;		/* CPUs with throttle counters; -1 not looked for, 0 none */
	int throttle_cpus_moved;	/* CPUs whose counters moved */
	double throttle_core_events;	/* most core_throttle_count moved on one CPU; NaN no counters */
	double throttle_package_events;	/* most package_throttle_count moved (one package's CPUs share it) */
	int cooling_devices;		/* CPU cooling devices; -1 not looked for */
	char cooling_name[24];		/* the one with the highest state */
	double cooling_state_max;	/* its highest cur_state seen; NaN no CPU cooling device */
	double cooling_state_limit;	/* its max_state */

	struct sysview_budget budget;	/* where the work's time went (core/observe/tstate.h) */
};

/* Set every field of v to "unknown" (see above). */
/*
 * The double-valued fields with their key in machine-readable output
 * (units in the name), so renderers and loaders walk one list:
 * X(field, "json_key").
 */
#define SYSVIEW_DOUBLE_FIELDS(X) \
	X(duration_s, "duration_seconds") \
	X(cpu_busy_pct, "cpu_busy_percent") \
	X(cpu_iowait_pct, "cpu_iowait_percent") \
	X(cpu_softirq_pct, "cpu_softirq_percent") \
	X(cpu_steal_pct, "cpu_steal_percent") \
	X(busiest_cpu_busy_pct, "busiest_cpu_busy_percent") \
	X(busiest_cpu_softirq_pct, "busiest_cpu_softirq_percent") \
	X(peak_cpu_busy_pct, "peak_cpu_busy_percent") \
	X(run_queue_avg, "run_queue_avg") \
	X(disk_util_pct, "disk_util_percent") \
	X(disk_reads_per_s, "disk_reads_per_second") \
	X(disk_writes_per_s, "disk_writes_per_second") \
	X(disk_read_bytes_per_s, "disk_read_bytes_per_second") \
	X(disk_write_bytes_per_s, "disk_write_bytes_per_second") \
	X(disk_avg_write_request_bytes, "disk_avg_write_request_bytes") \
	X(disk_avg_wait_ms, "disk_avg_wait_ms") \
	X(swap_in_pages_per_s, "swap_in_pages_per_second") \
	X(swap_out_pages_per_s, "swap_out_pages_per_second") \
	X(major_faults_per_s, "major_faults_per_second") \
	X(mem_available_min_bytes, "mem_available_min_bytes") \
	X(psi_cpu_some_pct, "psi_cpu_some_percent") \
	X(psi_mem_some_pct, "psi_memory_some_percent") \
	X(psi_mem_full_pct, "psi_memory_full_percent") \
	X(psi_io_some_pct, "psi_io_some_percent") \
	X(psi_io_full_pct, "psi_io_full_percent") \
	X(net_rx_bytes_per_s, "net_rx_bytes_per_second") \
	X(net_tx_bytes_per_s, "net_tx_bytes_per_second") \
	X(proc_cpu_pct, "proc_cpu_percent") \
	X(disk_queue_avg, "disk_queue_avg") \
	X(work_cpu_pct, "work_cpu_percent") \
	X(work_wait_pct, "work_wait_percent") \
	X(work_thread_cpu_pct, "work_thread_cpu_percent") \
	X(work_thread_wait_pct, "work_thread_wait_percent") \
	X(others_cpu_pct, "others_cpu_percent") \
	X(others_on_work_cpus_pct, "others_on_work_cpus_percent") \
	X(udp_rcvbuf_errors, "udp_rcvbuf_errors") \
	X(udp_in_errors, "udp_in_errors") \
	X(cg_cpu_usage_pct, "cgroup_cpu_usage_percent") \
	X(cg_cpu_throttled_pct, "cgroup_cpu_throttled_percent") \
	X(cg_cpu_throttled_s, "cgroup_cpu_throttled_seconds") \
	X(cg_io_read_bytes_per_s, "cgroup_io_read_bytes_per_second") \
	X(cg_io_write_bytes_per_s, "cgroup_io_write_bytes_per_second") \
	X(cg_io_reads_per_s, "cgroup_io_reads_per_second") \
	X(cg_io_writes_per_s, "cgroup_io_writes_per_second") \
	X(cg_mem_peak_bytes, "cgroup_memory_peak_bytes") \
	X(cg_mem_limit_hits, "cgroup_memory_limit_hits") \
	X(cg_mem_high_events, "cgroup_memory_high_events") \
	X(cg_mem_oom_events, "cgroup_memory_oom_events") \
	X(qdisc_bytes_per_s, "qdisc_bytes_per_second") \
	X(qdisc_drops, "qdisc_drops") \
	X(qdisc_overlimits, "qdisc_overlimits") \
	X(qdisc_backlog_max_bytes, "qdisc_backlog_max_bytes") \
	X(qdisc_in_bytes_per_s, "qdisc_ingress_bytes_per_second") \
	X(qdisc_in_drops, "qdisc_ingress_drops") \
	X(qdisc_in_overlimits, "qdisc_ingress_overlimits") \
	X(qdisc_in_backlog_max_bytes, "qdisc_ingress_backlog_max_bytes") \
	X(throttle_core_events, "thermal_throttle_core_events") \
	X(throttle_package_events, "thermal_throttle_package_events") \
	X(cooling_state_max, "cooling_state_max") \
	X(cooling_state_limit, "cooling_state_limit")

/* Sets every figure of V unknown (NaN, -1, "", 0): one copy of this, in core/base/sysview.c. */
void sysview_init(struct sysview *v);

#endif
