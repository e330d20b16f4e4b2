/* SPDX-License-Identifier: MIT */
/*
 * sysinfo: the description of the box behind `engpass info` and the "info"
 * block of every run. It gathers CPU, frequency (and where the number came
 * from), memory and the cgroup limit, swap, block devices with their queue
 * settings (the modern form of `hdparm /dev/X`), mounts, network interfaces,
 * kernel, virtualisation and io_uring availability.
 *
 * Everything is read from files below two roots (normally "/proc" and
 * "/sys"), so the whole collection can be tested against a recorded tree.
 * Only a few things come from the running process itself: uname() for the
 * machine name, sysconf() for the clock tick and configured CPU count
 * fallbacks, the optional calibrated frequency loop and the optional
 * io_uring_setup(2) probe.
 *
 * A field that cannot be read is marked unknown: NULL for strings, -1 for
 * counts and sizes, NaN for frequencies and seconds, SYSINFO_UNKNOWN for
 * yes/no facts. Nothing is guessed, and one missing file never fails the
 * whole collection.
 *
 * Note: glibc's <sys/sysinfo.h> also declares a `struct sysinfo`; a file
 * that includes this header must not include that one.
 */
#ifndef ENGPASS_SYSINFO_H
#define ENGPASS_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel/devlink.h"
#include "lib/compiler.h"

/* A yes/no fact that may not be known. */
enum sysinfo_tri {
	SYSINFO_UNKNOWN = -1,
	SYSINFO_NO = 0,
	SYSINFO_YES = 1,
};

/* Where sysinfo.cpu.freq_mhz came from, in order of preference. */
enum sysinfo_freq_source {
	SYSINFO_FREQ_UNKNOWN = 0,
	SYSINFO_FREQ_CPUFREQ,		/* cpufreq sysfs: scaling_cur_freq or cpuinfo_max_freq */
	SYSINFO_FREQ_CALIBRATED,	/* dependent add chain timed in thread CPU time */
	SYSINFO_FREQ_CPUINFO_BOOT,	/* /proc/cpuinfo "cpu MHz": boot/nominal value */
};

/* State of the memory limit of the process's cgroup. */
enum sysinfo_limit {
	SYSINFO_LIMIT_UNKNOWN = 0,	/* no cgroup information could be read */
	SYSINFO_LIMIT_NONE,		/* cgroup found, no limit ("max" or >= 2^62) */
	SYSINFO_LIMIT_SET,		/* a limit applies: cgroup_limit_bytes */
};

enum sysinfo_swap_type {
	SYSINFO_SWAP_OTHER = 0,		/* a type /proc/swaps names that we do not know */
	SYSINFO_SWAP_FILE,
	SYSINFO_SWAP_PARTITION,
	SYSINFO_SWAP_ZRAM,		/* /dev/zram*: compressed RAM, not a disk */
};

enum sysinfo_uring {
	SYSINFO_URING_NOT_PROBED = 0,
	SYSINFO_URING_AVAILABLE,
	SYSINFO_URING_UNAVAILABLE,	/* uring_errno and uring_text say why */
};

struct sysinfo_opts {
	const char *proc_root;	/* "/proc"; NULL means "/proc" */
	const char *sys_root;	/* "/sys"; NULL means "/sys" */
	bool calibrate;		/* run the calibrated frequency loop (0.1 to 0.2 s) */
	bool probe_uring;	/* call io_uring_setup(2) once */
};

#define SYSINFO_OPTS_INIT { "/proc", "/sys", true, true }

struct sysinfo_cpu {
	char *model;		/* "model name", "cpu model" or "Processor" */
	char *system_type;	/* "system type" (MIPS SoC), NULL elsewhere */
	char *arch;		/* uname machine */
	int configured;		/* cpuN directories in sysfs, else cpuinfo count; -1 */
	int online;		/* CPUs in devices/system/cpu/online; -1 */
	char *online_list;	/* that file's text, e.g. "0-3,6" */
	int sockets;		/* distinct physical_package_id of online CPUs; -1 */
	int cores;		/* distinct (package, core_id) of online CPUs; -1 */
	int threads_per_core;	/* most online CPUs sharing one core; -1 */

	/* Frequency: the chosen value and every candidate that was available. */
	double freq_mhz;			/* NaN if unknown */
	enum sysinfo_freq_source freq_source;
	const char *freq_source_detail;		/* static text: file or method; NULL */
	double cpufreq_cur_mhz;			/* cpu0 scaling_cur_freq; NaN */
	double cpufreq_max_mhz;			/* cpu0 cpuinfo_max_freq; NaN */
	double cpuinfo_mhz;			/* first "cpu MHz" in cpuinfo; NaN */
	double calibrated_mhz;			/* NaN unless calibrated */
	const char *calibration_method;		/* static text; NULL unless calibrated */
	int calibration_runs;			/* runs taken, best one kept; 0 */
	uint64_t calibration_adds;		/* adds per run; 0 */
};

struct sysinfo_mem {
	int64_t total_bytes;		/* MemTotal; -1 */
	int64_t available_bytes;	/* MemAvailable; -1 */
	int cgroup_version;		/* 1 or 2 for the memory controller; 0 unknown */
	char *cgroup_path;		/* path inside the hierarchy; NULL */
	enum sysinfo_limit cgroup_limit;
	int64_t cgroup_limit_bytes;	/* smallest limit on the path; -1 unless SET */
	int64_t effective_bytes;	/* min(MemTotal, limit); MemTotal if no/unknown limit; -1 */
};

struct sysinfo_swap {
	char *name;			/* decoded file or device name */
	enum sysinfo_swap_type type;
	int64_t size_bytes;		/* -1 */
	int64_t used_bytes;		/* -1 */
	int priority;
	bool priority_known;
};

struct sysinfo_blk {
	char *name;			/* e.g. "vda" */
	int64_t size_bytes;		/* size * 512; -1 */
	enum sysinfo_tri rotational;
	enum sysinfo_tri removable;
	enum sysinfo_tri readonly;
	char *scheduler;		/* the bracketed one; NULL */
	char *schedulers;		/* all offered, space-separated, brackets removed; NULL */
	int64_t read_ahead_kb;		/* -1 */
	int64_t nr_requests;		/* -1 */
	int64_t max_sectors_kb;		/* -1 */
	char *write_cache;		/* "write back" / "write through"; NULL */
	int64_t logical_block_bytes;	/* -1 */
	int64_t physical_block_bytes;	/* -1 */
	char *model;			/* device/model, trailing blanks removed; NULL */
	bool link_read;			/* link holds devlink_read()'s answer */
	struct devlink link;		/* the negotiated link and what device and port support */
};

struct sysinfo_mount {
	char *device;
	char *mount_point;		/* octal escapes (\040) decoded */
	char *fs_type;
	char *options;
	bool sync;			/* "sync" or "dirsync" among the options */
};

struct sysinfo_net {
	char *name;
	int64_t mtu_bytes;		/* -1 */
	char *operstate;		/* "up", "down", "unknown"...; NULL if unreadable */
	int64_t speed_mbit_per_s;	/* -1: unreadable, empty, <= 0 */
	char *driver;			/* basename of device/driver; NULL */
	bool is_virtual;		/* no "device" link */
};

struct sysinfo_kernel {
	char *release;
	char *version;
	char *machine;
	char *hostname;
};

struct sysinfo_virt {
	enum sysinfo_tri hypervisor_flag;	/* "hypervisor" in cpuinfo flags */
	char *hypervisor_type;			/* sys/hypervisor/type; NULL */
	char *dmi_vendor;			/* sys/class/dmi/id/sys_vendor; NULL */
	char *dmi_product;			/* sys/class/dmi/id/product_name; NULL */
	double steal_seconds;			/* /proc/stat cpu steal / CLK_TCK; NaN */
};

struct sysinfo_io_uring {
	enum sysinfo_uring state;
	int err;			/* positive errno when UNAVAILABLE; 0 */
	char *text;			/* "available" or the reason; NULL if not probed */
	int disabled_sysctl;		/* kernel/io_uring_disabled 0/1/2; -1 absent */
};

struct sysinfo {
	struct sysinfo_cpu cpu;
	struct sysinfo_mem mem;

	struct sysinfo_swap *swaps;
	size_t nr_swaps;
	int swappiness;			/* vm/swappiness; -1 */
	int page_cluster;		/* vm/page-cluster; -1 */
	enum sysinfo_tri zswap_enabled;

	struct sysinfo_blk *blks;	/* sorted by name */
	size_t nr_blks;
	struct sysinfo_mount *mounts;	/* in /proc order, pseudo file systems left out */
	size_t nr_mounts;
	struct sysinfo_net *nets;	/* sorted by name */
	size_t nr_nets;

	struct sysinfo_kernel kernel;
	struct sysinfo_virt virt;
	struct sysinfo_io_uring uring;
};

/*
 * Sets SI to the "nothing known" state (every field unknown, no arrays).
 * Owns nothing yet; sysinfo_release() on it is a no-op.
 */
void sysinfo_init(struct sysinfo *si);

/*
 * Fills SI from OPTS's roots (OPTS NULL means SYSINFO_OPTS_INIT). SI is
 * initialised first, so any previous content must have been released.
 * Fields that cannot be read stay unknown; that is not an error.
 * Returns 0, or -EINVAL if SI is NULL. On return SI owns its strings and
 * arrays; free them with sysinfo_release().
 */
MUST_CHECK int sysinfo_collect(struct sysinfo *si, const struct sysinfo_opts *opts);

/* Frees everything SI owns and re-initialises it. SI itself is not freed. */
void sysinfo_release(struct sysinfo *si);

/*
 * Measures the CPU frequency with a dependent chain of integer adds timed
 * in thread CPU time (best of several runs), assuming one add per cycle.
 * Fills *MHZ, and optionally *RUNS and *ADDS (adds per run) and *METHOD
 * (static text). Returns 0, or -errno if the thread CPU clock is not
 * available. Takes 0.1 to 0.2 s.
 */
MUST_CHECK int sysinfo_calibrate_mhz(double *mhz, int *runs, uint64_t *adds,
				     const char **method);

/* Static names for enums, as used in JSON: "cpufreq", "calibrated-loop", ... */
const char *sysinfo_freq_source_name(enum sysinfo_freq_source s);
/* "file", "partition", "zram" or "other". */
const char *sysinfo_swap_type_name(enum sysinfo_swap_type t);
/* "set", "none" or "unknown". */
const char *sysinfo_limit_name(enum sysinfo_limit l);

#endif
