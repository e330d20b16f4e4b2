/* SPDX-License-Identifier: MIT */
/*
 * The limits that were configured for the work: cgroup CPU quota, cpuset
 * and CPU affinity, memory limits, I/O throttles on the device under test,
 * a rate-limiting qdisc on the egress interface, the link's speed and MTU,
 * the RLIMITs that matter, and the rate the benchmark was told to keep.
 * Discovered once per measurement window (the sampler does it at its first
 * span), each with the file or message it came from; one that could not be
 * read is LIMIT_UNKNOWN with the reason, never taken as absent.
 *
 * Their counters (throttled periods, serviced I/O, memory limit hits, the
 * qdisc's bytes and drops) are read at the edges of each span
 * (limits_counters_read) and their differences summed into the system view
 * (limits_counters_view), so a verdict can say how close the step came to
 * each limit.
 *
 * Fixtures: every path is read under ROOT ("" on a real system), so the
 * tests can give a whole /proc + /sys tree of a foreign layout.
 */
#ifndef ENGPASS_LIMITS_H
#define ENGPASS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <limits.h>

#include "core/kernel/devlink.h"
#include "core/kernel/qdisc.h"
#include "core/base/sysview.h"

enum limit_state {
	LIMIT_NONE,		/* looked, and no limit is set (source says where) */
	LIMIT_SET,		/* value holds it */
	LIMIT_UNKNOWN,		/* could not be read: why says so */
};

struct limit {
	enum limit_state state;
	double value;		/* in the unit of the field (below) */
	char source[192];	/* the file or message it came from */
	char why[96];		/* LIMIT_UNKNOWN: the reason */
};

/* The limits of one window; every field's unit is in its comment. */
struct limits {
	bool discovered;
	struct limit cpu_quota;		/* CPUs: quota / period of the tightest cgroup on the path */
	char cpu_usage_source[192];	/* where that cgroup's usage is read, or "unknown: why" */
	struct limit cpu_weight;	/* the cgroup's CPU weight over the default (0.1 = a tenth), below 1 only */
	struct limit nice;		/* the process's nice value, SET when above 0 (a smaller claim on a busy CPU) */
	struct limit cpuset;		/* CPUs allowed: the cpuset and the affinity mask, intersected */
	char cpuset_list[64];		/* those CPUs as a list, "0" or "0-3" */
	int online_cpus;		/* -1 unknown */
	struct limit mem_max;		/* bytes: memory.limit_in_bytes or memory.max */
	struct limit mem_high;		/* bytes: memory.high (v2 only; v1: LIMIT_NONE) */
	struct limit swap_max;		/* bytes of swap: memory.swap.max, or memsw - limit (v1) */
	struct limit io_rbps, io_wbps;	/* bytes/s on the device under test */
	struct limit io_riops, io_wiops;/* requests/s on the device under test */
	char io_dev[32];		/* the device those are for ("vda", "loop3"); "" none */
	bool dev_link_read;		/* dev_link holds devlink_read()'s answer for io_dev */
	struct devlink dev_link;	/* the device under test's negotiated link (core/kernel/devlink.h) */
	struct limit shaper;		/* bits/s: the lowest rate of a shaping qdisc or class on iface */
	char shaper_kind[16];		/* "tbf", "htb", "cake", ... */
	struct limit shaper_in;		/* bits/s: incoming traffic of iface redirected to a shaped device (ifb) */
	char shaper_in_kind[16];
	char ifb[32];			/* that device ("ifb0"); "" none */
	struct limit link;		/* bits/s: the interface's speed */
	struct limit mtu;		/* bytes */
	char iface[32];			/* the egress interface those are for; "" none */
	struct limit memlock, nofile;	/* RLIMIT_MEMLOCK bytes, RLIMIT_NOFILE count (soft) */
	/*
	 * How the memory cgroup's peak over the window is taken (the line
	 * "limit memory peak" of the method): the kernel's high-water mark
	 * reset at the start of each span, or the usage sampled at every
	 * snapshot and at the edges. Never the kernel's lifetime mark
	 * (memory.max_usage_in_bytes, memory.peak as read): it includes
	 * whatever ran in the cgroup before the window.
	 */
	enum limits_peak { LIMITS_PEAK_NONE, LIMITS_PEAK_RESET, LIMITS_PEAK_SAMPLED } mem_peak_how;
	char mem_peak_method[320];

	/* Where the counters are read (limits_counters_read); not for display. */
	int cpu_ver, io_ver, mem_ver;
	char cpu_dir[PATH_MAX], cpuacct_dir[PATH_MAX], io_dir[PATH_MAX], mem_dir[PATH_MAX];
	unsigned dev_major, dev_minor;
	int ifindex, ifb_ifindex;
	struct qdisc_info shaper_key;	/* the shaping qdisc or class, found again by qdisc_find() */
	struct qdisc_info shaper_in_key;	/* the same on the ifb device */
	int mem_peak_fd;		/* v2 memory.peak reset for this span (limits_span_begin); -1 none */
};

struct limits_config {
	const char *root;		/* prefix of every /proc and /sys path; NULL or "" = the real ones */
	pid_t pid;			/* the process under test; 0 = this one */
	unsigned dev_major, dev_minor;	/* the device under test; dev_name NULL = none */
	const char *dev_name;
	const char *iface;		/* the egress interface; NULL = none */
	bool no_netlink;		/* skip the qdisc dump (fuzzing, fixtures): shaper LIMIT_UNKNOWN */
	/*
	 * A memory cgroup directory engpass made for the work (a sandbox;
	 * under ROOT, as the limits' directories are), NULL = none. When the
	 * tightest memory limit is set there, its v1 high-water mark
	 * (memory.max_usage_in_bytes) is reset at the start of each span:
	 * nobody else reads it. Elsewhere engpass writes nothing.
	 */
	const char *own_mem_dir;
};

/* Discovers every limit into OUT (always filled; unreadable ones are LIMIT_UNKNOWN). */
void limits_discover(const struct limits_config *cfg, struct limits *out);

/* The counters of one edge; opaque outside limits.c but a plain value. */
struct limits_counters {
	uint64_t t_ns;			/* CLOCK_MONOTONIC when read */
	bool cpu_ok;
	uint64_t cpu_usage_ns, cpu_periods, cpu_throttled, cpu_throttled_ns;
	bool io_ok;
	uint64_t io_rbytes, io_wbytes, io_rios, io_wios;
	bool mem_ok;
	uint64_t mem_usage, mem_peak, mem_hits, mem_high, mem_oom;
	bool mem_peak_reset;		/* mem_peak is the kernel's mark since this span's start (LIMITS_PEAK_RESET) */
	uint64_t mem_sampled;		/* the end edge: highest usage the snapshots saw in the span (0 none) */
	bool qdisc_ok;
	uint64_t q_bytes, q_drops, q_overlimits, q_backlog;
	bool qin_ok;			/* the ingress shaper (on the ifb device) */
	uint64_t qin_bytes, qin_drops, qin_overlimits, qin_backlog;
};

/* Reads the counters of the limits in LIM now, with CFG's root. */
void limits_counters_read(const struct limits_config *cfg, const struct limits *lim,
			  struct limits_counters *out);

/*
 * The start edge of a span: resets the memory cgroup's high-water mark
 * where LIM's mem_peak_how is LIMITS_PEAK_RESET (v1: writes 0 to
 * memory.max_usage_in_bytes of engpass's own cgroup; v2: opens
 * memory.peak and writes to it, which resets the mark for that
 * descriptor only, Linux 6.12 and later), then reads the counters as
 * limits_counters_read(). A reset that fails turns LIM to
 * LIMITS_PEAK_SAMPLED, its method saying why. limits_span_end() reads
 * the end edge; limits_release() closes what a span left open.
 */
void limits_span_begin(const struct limits_config *cfg, struct limits *lim, struct limits_counters *out);
void limits_span_end(const struct limits_config *cfg, struct limits *lim, struct limits_counters *out);
/* Closes the memory.peak descriptor of an open span (v2), if any. LIM from limits_discover(). */
void limits_release(struct limits *lim);

/*
 * The memory cgroup's usage now (memory.usage_in_bytes, memory.current)
 * into *SEEN when higher: the sampler calls it at every snapshot, for the
 * peak of a span whose kernel mark cannot be reset. Returns 0 or -errno.
 */
int limits_mem_sample(const struct limits *lim, uint64_t *seen);

/*
 * Sums of the differences over the spans of a window: limits_span_add()
 * adds one span (counters at its start A and end B); limits_span_view()
 * writes the cg_* and qdisc_* fields of V (NaN where never read).
 */
struct limits_span {
	double seconds;
	double cpu_s, cpu_usage_ns, cpu_periods, cpu_throttled, cpu_throttled_ns;
	double io_s, io_rbytes, io_wbytes, io_rios, io_wios;
	double mem_s, mem_peak, mem_hits, mem_high, mem_oom;
	double q_s, q_bytes, q_drops, q_overlimits, q_backlog_max;
	/*
	 * The ingress shaper's. NEEDSWORK: struct sysview has no fields for
	 * them yet, so limits_span_view() does not write them; the verdict's
	 * shaper candidate sees the egress one only.
	 */
	double qin_s, qin_bytes, qin_drops, qin_overlimits, qin_backlog_max;
};
void limits_span_add(struct limits_span *acc, const struct limits_counters *a, const struct limits_counters *b);
void limits_span_view(const struct limits_span *acc, struct sysview *v);

/*
 * One line for a limit for the result's method block: "30 % of one CPU
 * (/sys/fs/cgroup/cpu/x/cpu.cfs_quota_us 30000 / cpu.cfs_period_us
 * 100000)", "none (memory.max: max)", "unknown (permission denied)".
 */
void limit_describe(const struct limit *l, const char *unit, char *buf, size_t len);

#endif
