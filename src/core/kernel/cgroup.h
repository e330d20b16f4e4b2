/* SPDX-License-Identifier: MIT */
/*
 * Cgroups of a process, v1, v2 and hybrid: where its cgroup directory is
 * for each controller that limits a benchmark, the limits set there or on
 * any ancestor (the tightest wins), and the counters that show how close
 * it came. Pure parsers (cgroup_parse_*) take text, so the fuzz target
 * and the fixture tests reach them without a cgroup tree.
 *
 * Every path is read under ROOT ("" = the real system): /proc/PID/cgroup,
 * /proc/PID/mountinfo and the mount points found there. A hierarchy that
 * PID's mount namespace does not mount (`ip netns exec` mounts a fresh
 * /sys) is looked for in an ancestor's, then init's, namespace and
 * reached through /proc/N/root (root only); the directories then start
 * with that prefix, and so do the sources. A controller that is mounted
 * nowhere to be seen, a cgroup directory outside this mount namespace's
 * view, an unreadable or malformed file: CG_UNKNOWN with the reason.
 *
 * NEEDSWORK: a hierarchy reached through /proc/N/root is read by path at
 * every edge; when process N exits during the step, the counters read
 * after that fail (the span's cgroup figures are then left out, not
 * wrong). Holding a directory descriptor would keep it.
 */
#ifndef ENGPASS_CGROUP_H
#define ENGPASS_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum cg_ctrl { CG_CPU, CG_CPUACCT, CG_CPUSET, CG_MEMORY, CG_IO, CG_NCTRL };

/* Where the process's cgroup is, per controller. */
struct cgroup_loc {
	int version[CG_NCTRL];		/* 1 or 2; 0 = not found (why[] says why) */
	char dir[CG_NCTRL][PATH_MAX];	/* the process's cgroup directory, ROOT included */
	char top[CG_NCTRL][PATH_MAX];	/* the mount point: ancestors are walked up to it */
	char why[CG_NCTRL][96];
	size_t rootlen;			/* bytes of ROOT at the start of dir[] and top[] (not shown in sources) */
};

/* Returned string is static: "cpu", "cpuacct", "cpuset", "memory", "io" (v2) / "blkio" (v1). */
const char *cgroup_ctrl_name(enum cg_ctrl c, int version);

/*
 * Locates PID's cgroups (0 = self) under ROOT. A v2 line ("0::/path") is
 * used for every controller that the v2 mount offers in
 * cgroup.controllers and that no v1 hierarchy holds; CG_CPUACCT on v2 is
 * the cgroup's cpu.stat, which every v2 cgroup has, so it needs only the
 * mount. Nested containers: the mount's root field (mountinfo field 4) is
 * stripped from the cgroup path; a path outside it is "not visible".
 * Hierarchies the process is in but its mount namespace does not mount
 * are looked for in the mount namespaces of its ancestors, then of init
 * (ROOT/proc/N/mountinfo, reached through ROOT/proc/N/root); where none
 * helps, why[] says "not mounted here; /proc/N/root: permission denied".
 * Returns 0, or -errno when /proc/PID/cgroup cannot be read or is
 * malformed (-EINVAL) (every version[] 0 with the reason). An unreadable
 * mountinfo is 0 with every controller's reason.
 */
int cgroup_locate(const char *root, pid_t pid, struct cgroup_loc *out);

/*
 * The directory of controller TO at the same cgroup path as DIR, a
 * directory of controller FROM (loc->dir[FROM] or one of its ancestors,
 * such as the level a limit was found at): with cpu and cpuacct mounted
 * apart (v1), the cpuacct group that counts the CPU of the cpu group
 * holding a quota. Writes it into OUT (LEN bytes; "" on error). Returns
 * 0; -ENODEV when TO was not located or is of another version than FROM;
 * -EINVAL when DIR is not under FROM's mount; -EXDEV when the path is the
 * root cgroup (it counts every process) or the process's own TO cgroup is
 * not at or below that path (the group there would not count it);
 * -ENOENT (or another -errno of stat()) when no such cgroup exists. When
 * one hierarchy holds both controllers, OUT is DIR itself.
 */
int cgroup_same_path(const struct cgroup_loc *loc, enum cg_ctrl from, const char *dir, enum cg_ctrl to, char *out,
		     size_t len);

enum cg_state { CG_NONE, CG_SET, CG_UNKNOWN };

struct cg_value {
	enum cg_state state;
	double value;
	char dir[PATH_MAX];		/* the directory it was found in (counters are read there) */
	char source[192];		/* "FILE: raw text" of the tightest value, or where none was found */
	char why[96];			/* CG_UNKNOWN */
};

/* CPU quota in CPUs (quota / period: 0.3 = 30 % of one CPU), the tightest on the path. */
void cgroup_cpu_quota(const struct cgroup_loc *loc, struct cg_value *out);
/*
 * The CPU weight on the path, relative to the default (v1 cpu.shares over
 * 1024, v2 cpu.weight over 100): the lowest below 1 on the way up (0.1 =
 * a tenth of a default group's claim when groups compete for a CPU);
 * CG_NONE when no level is below the default.
 */
void cgroup_cpu_weight(const struct cgroup_loc *loc, struct cg_value *out);
/*
 * CPUs the cpuset allows: value = count, LIST gets the list as written
 * ("0-1") at the level with the fewest. CG_NONE (LIST still filled) when
 * that is no fewer than the mount point's own, which holds every CPU.
 */
void cgroup_cpuset(const struct cgroup_loc *loc, struct cg_value *out, char *list, size_t listlen);
/*
 * Memory limits in bytes, the tightest on the path: MAX (memory.max /
 * memory.limit_in_bytes; v1's "unlimited", any value from 2^62 up, is
 * CG_NONE), HIGH (memory.high; v1 CG_NONE), SWAP (memory.swap.max; v1
 * memory.memsw.limit_in_bytes - limit_in_bytes of the same level when both
 * are set; no memsw file is CG_UNKNOWN "no memsw accounting").
 */
void cgroup_memory(const struct cgroup_loc *loc, struct cg_value *max, struct cg_value *high,
		   struct cg_value *swap);
/*
 * I/O throttles of device MAJ:MIN, the tightest on the path: bytes/s and
 * requests/s. A level without a line for the device does not limit it.
 */
void cgroup_io(const struct cgroup_loc *loc, unsigned maj, unsigned min, struct cg_value *rbps,
	       struct cg_value *wbps, struct cg_value *riops, struct cg_value *wiops);

/*
 * Counters in DIR (a cg_value's dir, or a loc dir) of VERSION. Each
 * returns 0 or -errno/-EINVAL (-EINVAL also for a VERSION not 1 or 2).
 */
struct cg_cpu_stat {
	uint64_t usage_ns;		/* cpuacct.usage (v1, CPUACCT dir) or cpu.stat usage_usec (v2); UINT64_MAX unknown */
	uint64_t periods, throttled, throttled_ns;	/* v2 without the cpu controller prints none: 0 */
};
/*
 * v1: cpu.stat in DIR, cpuacct.usage in CPUACCT_DIR (NULL, unreadable or
 * malformed: usage unknown, UINT64_MAX, and the call still returns 0 with
 * the throttling); v2: cpu.stat, usage_usec included. CPUACCT_DIR must be
 * the cpuacct group of DIR's own path (cgroup_same_path()): another
 * level's usage counts other processes.
 */
int cgroup_cpu_stat(const char *dir, int version, const char *cpuacct_dir, struct cg_cpu_stat *out);
struct cg_io_stat {
	uint64_t rbytes, wbytes, rios, wios;
};
/* v1: blkio.throttle.io_service_bytes and io_serviced; v2: io.stat. A device not listed is all 0. */
int cgroup_io_stat(const char *dir, int version, unsigned maj, unsigned min, struct cg_io_stat *out);
struct cg_mem_stat {
	uint64_t usage, peak;		/* bytes; peak UINT64_MAX when the kernel keeps none */
	uint64_t hits;			/* v1 memory.failcnt; v2 memory.events max */
	uint64_t high, oom;		/* v2 memory.events high, oom; v1 high 0, oom from memory.oom_control oom_kill */
};					/* oom UINT64_MAX when the kernel does not count them (v1 before 4.13) */
/* v1: memory.usage_in_bytes, max_usage_in_bytes, failcnt, oom_control; v2: memory.current, peak, events. */
int cgroup_mem_stat(const char *dir, int version, struct cg_mem_stat *out);

/*
 * Pure parsers of NUL-terminated TEXT as the kernel writes it. Each
 * returns 0, or -EINVAL for malformed text (outputs then undefined): a
 * stray character, a number beyond 64 bits, a sign where none belongs. A
 * final newline may be missing. Multi-line files are rejected whole when
 * any line is malformed, not only the line asked for.
 */
/*
 * One /proc/PID/cgroup text: calls FN for each line with its hierarchy
 * id, controller list ("cpu,cpuacct"; "" for v2) and path. Stops at the
 * first non-zero return of FN and returns it.
 */
int cgroup_parse_proc(const char *text, int (*fn)(void *arg, int id, const char *ctrls, const char *path),
		      void *arg);
/* cpu.max "QUOTA PERIOD" or "max PERIOD": *quota_us = -1 for max. */
int cgroup_parse_cpu_max(const char *text, int64_t *quota_us, int64_t *period_us);
/* A v1 throttle file ("MAJ:MIN VALUE" lines): *value of MAJ:MIN, -ENOENT when absent. */
int cgroup_parse_dev_value(const char *text, unsigned maj, unsigned min, uint64_t *value);
/* io.max: the line of MAJ:MIN, each of rbps wbps riops wiops UINT64_MAX for "max"; -ENOENT when absent. */
int cgroup_parse_io_max(const char *text, unsigned maj, unsigned min, uint64_t out[4]);
/* "KEY VALUE" lines (cpu.stat, memory.events, memory.oom_control): the value of KEY, -ENOENT absent. */
int cgroup_parse_keyed(const char *text, const char *key, uint64_t *value);
/* blkio.throttle.io_service_bytes / io_serviced: the "MAJ:MIN Read|Write N" values (0 when absent). */
int cgroup_parse_blkio_stat(const char *text, unsigned maj, unsigned min, uint64_t *rd, uint64_t *wr);
/* io.stat: rbytes wbytes rios wios of MAJ:MIN (0 when absent). */
int cgroup_parse_io_stat(const char *text, unsigned maj, unsigned min, struct cg_io_stat *out);
/* A memory value: a decimal count or "max"; *v UINT64_MAX for max. */
int cgroup_parse_u64_or_max(const char *text, uint64_t *v);

#endif
