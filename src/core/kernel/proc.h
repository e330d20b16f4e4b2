/* SPDX-License-Identifier: MIT */
/*
 * Parsers for the /proc files engpass watches, and the delta maths between
 * two snapshots of them. Every parser is a pure function over a buffer of
 * text: it does no I/O, keeps no state and can be fed recorded fixtures.
 * Reading the text is a separate helper (struct proc_buf), so the sampler
 * can keep its files open and pread() them at offset 0 on every sample.
 *
 * Rules shared by all parsers:
 *  - Only lines ending in '\n' are read. The kernel ends every line of
 *    these files with a newline, so a final fragment without one is a
 *    truncated read; it is ignored and counted in bad_lines.
 *  - A line we want whose numbers do not parse completely (a letter inside
 *    a number, a value beyond 64 bits, too few fields, an over-long name)
 *    is rejected whole and counted in bad_lines, never half-used.
 *  - Fields after the ones we know are ignored: newer kernels append
 *    columns to /proc/stat and /proc/diskstats.
 *  - Empty input is -ENODATA.
 *
 * Counters are monotonic in the kernel but can still appear to go
 * backwards (a CPU hotplugged out and back, a device re-created, 32-bit
 * counters wrapping on a small router). The delta functions never let an
 * unsigned subtraction wrap into a huge rate: a counter that went backwards
 * makes the interval "no data" (-ERANGE, NaN outputs).
 *
 * Units: CPU times are in USER_HZ ticks as the kernel prints them; memory
 * is converted to bytes; diskstats sectors are always 512 bytes, whatever
 * the device's own sector size; PSI totals are microseconds.
 */
#ifndef ENGPASS_PROC_H
#define ENGPASS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

/* A counter or gauge the file did not have (older kernel, kernel thread). */
#define PROC_NONE UINT64_MAX

/* diskstats counts sectors of 512 bytes regardless of the device. */
#define PROC_SECTOR_BYTES 512

/* Names longer than this (plus NUL) are rejected; the kernel uses 32 for disks, 16 for NICs. */
#define PROC_NAME_MAX 32

/* Paths in the mount table longer than this (plus NUL) are rejected (PATH_MAX). */
#define PROC_PATH_MAX 4096

/* ------------------------------------------------------------------ */
/* Reading */

/*
 * A growable, NUL-terminated text buffer for one /proc file. Initialise
 * with PROC_BUF_INIT, release with proc_buf_release(). The buffer keeps its
 * size between reads, so a sampler that reuses it stops allocating after
 * the first read of its largest file.
 */
struct proc_buf {
	char *data;
	size_t len;		/* bytes of text, data[len] == '\0' */
	size_t cap;
};

#define PROC_BUF_INIT { NULL, 0, 0 }

/* Largest file proc_buf will hold; beyond it reads fail with -EFBIG. */
#define PROC_BUF_MAX (64u << 20)

/*
 * Read the whole file behind fd, from offset 0, with pread() (the file
 * offset is not used or moved, so the fd can be reread forever). The buffer
 * grows (doubling) until the file fits. A short read is taken as end of
 * file, which holds for regular files and the seq_file-backed /proc files.
 * Returns 0, or -errno from pread (e.g. -ESRCH when a watched process has
 * exited), or -EFBIG beyond PROC_BUF_MAX. On error b->len is 0.
 */
MUST_CHECK int proc_buf_pread(struct proc_buf *b, int fd);

/*
 * Open path read-only, read it whole into b as proc_buf_pread() does, and
 * close it. Returns 0 or -errno (-ENOENT for a missing file).
 */
MUST_CHECK int proc_buf_read_file(struct proc_buf *b, const char *path);

/*
 * Reads the first line of a small file (sysfs attributes, /proc/sys
 * values) into BUF of LEN bytes, without its newline and with white space
 * trimmed at both ends; a longer line is cut at LEN - 1 bytes. Returns 0
 * or -errno (-EINVAL when LEN is 0).
 */
MUST_CHECK int proc_read_line(const char *path, char *buf, size_t len);

/*
 * snprintf of a /proc or /sys path into BUF of LEN bytes that reports
 * truncation: returns 0, or -ENAMETOOLONG when the path does not fit (BUF
 * is still terminated): check it, and a cut path is never opened.
 */
int proc_path(char *buf, size_t len, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* Free the buffer's memory and reset it to PROC_BUF_INIT. */
void proc_buf_release(struct proc_buf *b);

/* ------------------------------------------------------------------ */
/* /proc/stat */

enum proc_cpu_field {
	PROC_CPU_USER,		/* includes guest */
	PROC_CPU_NICE,		/* includes guest_nice */
	PROC_CPU_SYSTEM,
	PROC_CPU_IDLE,
	PROC_CPU_IOWAIT,
	PROC_CPU_IRQ,
	PROC_CPU_SOFTIRQ,
	PROC_CPU_STEAL,
	PROC_CPU_GUEST,
	PROC_CPU_GUEST_NICE,
	PROC_CPU_NFIELDS
};

/* Fewest fields a cpu line may have (user .. steal, Linux 2.6.11); absent later fields read 0. */
#define PROC_CPU_MIN_FIELDS 8

struct proc_cpu_times {
	int cpu;		/* CPU number; -1 for the aggregate "cpu" line */
	unsigned nfields;	/* fields the line had, capped at PROC_CPU_NFIELDS */
	uint64_t t[PROC_CPU_NFIELDS];	/* USER_HZ ticks */
};

/*
 * One /proc/stat snapshot. Per-CPU lines are kept sorted by CPU number;
 * the kernel prints only online CPUs, so a CPU can be absent from one
 * snapshot and present in the next: look CPUs up by number
 * (proc_stat_find_cpu()), never by position.
 */
struct proc_stat {
	struct proc_cpu_times all;	/* the aggregate line */
	struct proc_cpu_times *cpu;	/* ncpu entries, ascending cpu; owned */
	size_t ncpu;
	size_t cpu_cap;
	uint64_t ctxt;			/* PROC_NONE if absent */
	uint64_t procs_running;		/* PROC_NONE if absent */
	uint64_t procs_blocked;		/* PROC_NONE if absent */
	unsigned bad_lines;
};

#define PROC_STAT_INIT \
	{ .all = { .cpu = -1 }, .cpu = NULL, .ctxt = PROC_NONE, .procs_running = PROC_NONE, .procs_blocked = PROC_NONE }

/* Initialise st empty (same as PROC_STAT_INIT). */
void proc_stat_init(struct proc_stat *st);

/* Free st's per-CPU array; st can be reused after proc_stat_init(). */
void proc_stat_release(struct proc_stat *st);

/*
 * Parse /proc/stat text into st, reusing st's per-CPU array (grown with
 * xrealloc as needed, freed by proc_stat_release()). Lines other than cpu*,
 * ctxt and procs_* (intr, softirq, btime...) are skipped unread, however
 * long. CPU lines out of order are sorted; a duplicate CPU number keeps one
 * of its lines and counts the other as bad.
 * Returns 0; -ENODATA for empty input; -EINVAL when there is no valid
 * aggregate "cpu" line (not /proc/stat, or the line was cut).
 */
MUST_CHECK int proc_stat_parse(struct proc_stat *st, const char *buf, size_t len);

/* The line of CPU number cpu in st, or NULL if that CPU was not online. Binary search. */
const struct proc_cpu_times *proc_stat_find_cpu(const struct proc_stat *st, int cpu);

/*
 * Shares of CPU time between two snapshots of one CPU line, in percent of
 * the elapsed ticks. total = user + nice + system + idle + iowait + irq +
 * softirq + steal (guest and guest_nice are already counted inside user and
 * nice and are not added again). busy = total - idle - iowait, so steal
 * counts as busy (the CPU was not available to us). guest_pct is the part
 * of user + nice that ran a guest, for information.
 */
struct proc_cpu_pct {
	double busy, user, nice, system, idle, iowait, irq, softirq, steal, guest;
	uint64_t busy_ticks, total_ticks, iowait_ticks, softirq_ticks, steal_ticks;
};

/*
 * Percentages from snapshot a (earlier) to b (later) of the same CPU.
 * Returns 0; -EINVAL if a and b are different CPUs; -ERANGE if any field
 * went backwards (hotplug, reset: no data for this interval) or the
 * interval's ticks add up past 2^64 (no real CPU); -ENODATA if
 * no tick elapsed (interval shorter than 1/USER_HZ). On any error every
 * double in out is NaN and the tick counts are 0.
 */
MUST_CHECK int proc_cpu_delta(const struct proc_cpu_times *a, const struct proc_cpu_times *b,
			      struct proc_cpu_pct *out);

/* ------------------------------------------------------------------ */
/* /proc/diskstats */

/*
 * One diskstats line. Linux < 4.18 prints 11 counters, 4.18 adds four
 * discard counters, 5.5 two flush counters; later additions are ignored.
 * Counters the line did not have are PROC_NONE.
 */
struct proc_disk {
	unsigned major, minor;
	char name[PROC_NAME_MAX];
	unsigned nfields;	/* counters after the name as printed (may exceed 17) */
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ms;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ms;
	uint64_t in_flight;	/* a gauge, not a counter */
	uint64_t io_ticks_ms;	/* time with at least one request in flight */
	uint64_t weighted_ms;	/* sum of request time in flight */
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ms;	/* discard, 4.18+ */
	uint64_t fl_ios, fl_ms;				/* flush, 5.5+ */
};

struct proc_diskstats {
	struct proc_disk *disk;	/* n entries in file order; owned */
	size_t n, cap;
	unsigned bad_lines;
};

#define PROC_DISKSTATS_INIT { NULL, 0, 0, 0 }

/* Initialise ds empty (same as PROC_DISKSTATS_INIT). */
void proc_diskstats_init(struct proc_diskstats *ds);

/* Free ds's array; ds is empty and reusable afterwards. */
void proc_diskstats_release(struct proc_diskstats *ds);

/*
 * Parse /proc/diskstats text into ds, reusing its array. A line needs
 * major, minor, a name shorter than PROC_NAME_MAX and at least 11 counters.
 * Returns 0 (possibly with n == 0 if every line was bad; see bad_lines) or
 * -ENODATA for empty input.
 */
MUST_CHECK int proc_diskstats_parse(struct proc_diskstats *ds, const char *buf, size_t len);

/*
 * The entry for major:minor in ds, or NULL. hint is the position where the
 * caller expects it (the position in the previous snapshot): checked first,
 * so matching two snapshots of a stable device list costs O(n).
 */
const struct proc_disk *proc_diskstats_find(const struct proc_diskstats *ds, unsigned major,
					    unsigned minor, size_t hint);

/* Rates of one device between two snapshots, in the spirit of iostat -x. */
struct proc_disk_rates {
	double r_per_s, w_per_s;		/* completed requests per second */
	double rmerge_per_s, wmerge_per_s;
	double rbytes_per_s, wbytes_per_s;
	double avg_rq_bytes;			/* (read+write bytes) / requests; NaN if none */
	double avg_rd_rq_bytes, avg_wr_rq_bytes;	/* NaN if no such requests */
	double util_pct;			/* io_ticks / interval, clamped to 0..100 */
	double r_await_ms, w_await_ms, await_ms;	/* time per request incl. queueing; NaN if none */
	double aqu_sz;				/* weighted ms / interval ms: mean requests in flight */
	uint64_t d_rd_ios, d_wr_ios, d_rd_sectors, d_wr_sectors, d_rd_merges, d_wr_merges;
	uint64_t d_rd_ms, d_wr_ms, d_io_ticks_ms;
};

/*
 * Rates of one device from a (earlier) to b (later), interval_s apart.
 * Returns 0; -EINVAL if interval_s is not > 0 or a and b are different
 * devices; -ERANGE if a counter went backwards (no data for this interval).
 * On error every double in out is NaN and the deltas are 0.
 */
MUST_CHECK int proc_disk_delta(const struct proc_disk *a, const struct proc_disk *b, double interval_s,
			       struct proc_disk_rates *out);

/* ------------------------------------------------------------------ */
/* /proc/meminfo */

/* Selected /proc/meminfo values, in bytes; PROC_NONE when the kernel did not print them. */
struct proc_meminfo {
	uint64_t mem_total, mem_free, mem_available, buffers, cached, swap_cached;
	uint64_t active, inactive, swap_total, swap_free, dirty, writeback;
	uint64_t anon_pages, mapped, shmem, slab, sreclaimable, commit_limit, committed_as;
	unsigned bad_lines;
};

/*
 * Parse /proc/meminfo text. Values must be in kB (the kernel's only unit
 * for these fields) and are converted to bytes; a known field with another
 * unit or a bad number is a bad line. Unknown fields are ignored.
 * Returns 0; -ENODATA for empty input; -EINVAL if MemTotal is missing.
 */
MUST_CHECK int proc_meminfo_parse(struct proc_meminfo *mi, const char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* /proc/vmstat */

/* Selected /proc/vmstat counters; PROC_NONE when absent. */
struct proc_vmstat {
	uint64_t pgpgin, pgpgout;	/* KiB paged in/out from block devices */
	uint64_t pswpin, pswpout;	/* pages swapped in/out */
	uint64_t pgfault, pgmajfault;
	unsigned bad_lines;
};

/*
 * Parse /proc/vmstat text (name value per line). Returns 0; -ENODATA for
 * empty input; -EINVAL if none of the counters above was found.
 */
MUST_CHECK int proc_vmstat_parse(struct proc_vmstat *vm, const char *buf, size_t len);

/* Per-second rates of the counters above; NaN where absent or gone backwards. */
struct proc_vm_rates {
	double pgpgin, pgpgout, pswpin, pswpout, pgfault, pgmajfault;
};

/*
 * Rates from a to b, interval_s apart. Each counter is independent: one
 * that went backwards or is absent is NaN, the others are still computed.
 * Returns 0; -EINVAL if interval_s is not > 0 (all NaN); -ERANGE if at
 * least one counter went backwards.
 */
MUST_CHECK int proc_vmstat_delta(const struct proc_vmstat *a, const struct proc_vmstat *b, double interval_s,
				 struct proc_vm_rates *out);

/* ------------------------------------------------------------------ */
/* /proc/pressure/{cpu,memory,io} */

struct proc_psi_line {
	bool valid;
	double avg10, avg60, avg300;	/* percent, as printed */
	uint64_t total_us;		/* cumulative stall time */
};

/* One pressure file. "full" is not valid on kernels that print no full line for cpu. */
struct proc_psi {
	struct proc_psi_line some, full;
	unsigned bad_lines;
};

/*
 * Parse one /proc/pressure/ file ("some avg10=0.00 avg60=0.00 avg300=0.00
 * total=0", optionally a "full ..." line). Returns 0; -ENODATA for empty
 * input; -EINVAL if no valid some line. A missing file is the caller's
 * business: PSI is then unavailable, which is not an error.
 */
MUST_CHECK int proc_psi_parse(struct proc_psi *p, const char *buf, size_t len);

/*
 * Share of wall time with a stall between two readings of one line:
 * 100 * (b.total_us - a.total_us) / (interval_s * 1e6), clamped to 0..100.
 * Returns 0; -EINVAL if either line is not valid or interval_s is not > 0;
 * -ERANGE if total went backwards. *pct is NaN on error.
 */
MUST_CHECK int proc_psi_delta(const struct proc_psi_line *a, const struct proc_psi_line *b, double interval_s,
			      double *pct);

/* ------------------------------------------------------------------ */
/* /proc/net/dev */

struct proc_netif {
	char name[PROC_NAME_MAX];
	uint64_t rx_bytes, rx_packets, rx_errs, rx_drop;
	uint64_t tx_bytes, tx_packets, tx_errs, tx_drop;
};

struct proc_netdev {
	struct proc_netif *iface;	/* n entries in file order; owned */
	size_t n, cap;
	unsigned bad_lines;
};

#define PROC_NETDEV_INIT { NULL, 0, 0, 0 }

/* Initialise nd empty (same as PROC_NETDEV_INIT). */
void proc_netdev_init(struct proc_netdev *nd);

/* Free nd's array; nd is empty and reusable afterwards. */
void proc_netdev_release(struct proc_netdev *nd);

/*
 * Parse /proc/net/dev text into nd, reusing its array. The two header lines
 * (no ':') are skipped; an interface line is "name: 8 rx counters 8 tx
 * counters" (the space after ':' may be missing when the number is wide).
 * Returns 0 (n may be 0) or -ENODATA for empty input.
 */
MUST_CHECK int proc_netdev_parse(struct proc_netdev *nd, const char *buf, size_t len);

/* The interface called name in nd, or NULL; hint as for proc_diskstats_find(). */
const struct proc_netif *proc_netdev_find(const struct proc_netdev *nd, const char *name, size_t hint);

struct proc_net_rates {
	double rx_bytes_per_s, tx_bytes_per_s, rx_packets_per_s, tx_packets_per_s;
	double rx_errs_per_s, tx_errs_per_s, rx_drop_per_s, tx_drop_per_s;
	uint64_t d_rx_bytes, d_tx_bytes;
};

/*
 * Rates of one interface from a to b, interval_s apart. Returns 0; -EINVAL
 * if interval_s is not > 0 or the names differ; -ERANGE if a counter went
 * backwards (interface re-created). On error doubles are NaN, deltas 0.
 */
MUST_CHECK int proc_netif_delta(const struct proc_netif *a, const struct proc_netif *b, double interval_s,
				struct proc_net_rates *out);

/* ------------------------------------------------------------------ */
/* /proc/PID/stat and /proc/PID/status */

/* Selected fields of /proc/PID/stat; see proc(5) for their numbers. */
struct proc_pid_stat {
	int pid;
	char comm[64];		/* may contain spaces, parentheses, even newlines; truncated */
	char state;
	int ppid;
	uint64_t minflt, majflt;
	uint64_t utime, stime;	/* USER_HZ ticks */
	uint64_t cutime, cstime;	/* USER_HZ ticks of the children it has waited for */
	int64_t num_threads;
	uint64_t starttime;	/* ticks after boot; with pid, identifies the process */
	uint64_t vsize;		/* bytes */
	uint64_t rss_pages;
	int processor;		/* CPU last run on; -1 if the line is too old to say */
};

/*
 * Parse /proc/PID/stat. comm is everything between the first '(' and the
 * last ')' of the text, so a name such as "a) R 1 (b" cannot shift the
 * fields. Fields up to rss (24) are required, processor (39) is optional.
 * The text must end in '\n' (else it was cut). Returns 0; -ENODATA for
 * empty input; -EINVAL for anything malformed or short.
 */
MUST_CHECK int proc_pid_stat_parse(struct proc_pid_stat *ps, const char *buf, size_t len);

/*
 * CPU use of a process between two stat snapshots, in percent of one CPU:
 * 100 * ((utime + stime)_b - (utime + stime)_a) / clk_tck / interval_s.
 * clk_tck is sysconf(_SC_CLK_TCK), passed in so this stays pure.
 * Returns 0; -EINVAL if clk_tck or interval_s is not > 0; -ESRCH if a and
 * b are not the same process (pid or starttime differ: PID reused);
 * -ERANGE if a time went backwards. *pct is NaN on error.
 */
MUST_CHECK int proc_pid_cpu_pct(const struct proc_pid_stat *a, const struct proc_pid_stat *b, long clk_tck,
				double interval_s, double *pct);

/* Selected fields of /proc/PID/status; PROC_NONE / -1 when absent (kernel threads have no Vm*). */
struct proc_pid_status {
	uint64_t vm_rss, vm_hwm;		/* bytes */
	int64_t threads;
	uint64_t voluntary_ctxt, nonvoluntary_ctxt;
	int cpus_allowed_count;			/* CPUs in Cpus_allowed_list; -1 if absent or bad */
	char cpus_allowed_list[128];		/* as printed, truncated to fit */
	unsigned bad_lines;
};

/*
 * Parse /proc/PID/status text. Returns 0; -ENODATA for empty input;
 * -EINVAL if it has none of the fields above.
 */
MUST_CHECK int proc_pid_status_parse(struct proc_pid_status *st, const char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* /proc/PID/task/TID/schedstat and /proc/net/snmp */

/*
 * Parse a schedstat line, "run_ns wait_ns timeslices\n": the time the task
 * ran on a CPU and waited on a run queue, in ns (kernels with
 * CONFIG_SCHED_INFO; the file is absent otherwise). Returns 0 with both
 * set; -ENODATA for empty input; -EINVAL for anything else (both are then
 * PROC_NONE).
 */
MUST_CHECK int proc_schedstat_parse(const char *buf, size_t len, uint64_t *run_ns, uint64_t *wait_ns);

/*
 * The calling thread's schedstat (/proc/thread-self/schedstat), parsed
 * as above; no allocation. Returns 0, or -errno (-ENOENT without
 * CONFIG_SCHED_INFO, -EINVAL for a line that does not parse).
 */
MUST_CHECK int proc_thread_schedstat(uint64_t *run_ns, uint64_t *wait_ns);

/*
 * A sysfs "dev" file's line, "MAJ:MIN" (as proc_read_line() returns it):
 * digits, ':', digits and nothing else. Returns 0 or -EINVAL.
 */
MUST_CHECK int proc_devnum_parse(const char *s, unsigned *maj, unsigned *min);

/*
 * A "KEY: N kB" line of /proc/meminfo, /proc/PID/smaps or smaps_rollup
 * (LINE may end in '\n'): true with *KB set when LINE is KEY's.
 */
bool proc_kb_line(const char *line, const char *key, uint64_t *kb);

/* The UDP error counters of /proc/net/snmp; PROC_NONE when the file lacks the field. */
struct proc_snmp_udp {
	uint64_t in_errors;		/* Udp: InErrors */
	uint64_t rcvbuf_errors;		/* Udp: RcvbufErrors (Linux 2.6.25+) */
	unsigned bad_lines;
};

/*
 * Parse /proc/net/snmp: the first "Udp:" line names the fields, the next
 * "Udp:" line holds their values; fields are found by name, so columns
 * added by newer kernels do not matter ("UdpLite:" is another protocol).
 * Returns 0 if at least one of the fields was found; -ENODATA for empty
 * input; -EINVAL if there are no Udp lines, neither field, or a values
 * line shorter than its header or with a bad number (both PROC_NONE).
 */
MUST_CHECK int proc_snmp_udp_parse(struct proc_snmp_udp *u, const char *buf, size_t len);

/* /proc/PID/io: the storage bytes a process caused (read_bytes, write_bytes), PROC_NONE when absent. */
struct proc_pid_io {
	uint64_t read_bytes, write_bytes, cancelled_write_bytes;
};

/*
 * Parse /proc/PID/io text ("name: value" lines; unknown names are
 * skipped). Returns 0 with at least read_bytes and write_bytes; -ENODATA
 * for empty input; -EINVAL when either is missing or a value is not a
 * whole decimal number that fits.
 */
MUST_CHECK int proc_pid_io_parse(struct proc_pid_io *io, const char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* /proc/self/mountinfo and /proc/self/mounts */

/* The two layouts of the mount table. */
enum proc_mount_format {
	PROC_MOUNTINFO,	/* "36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw,errors=continue" */
	PROC_MOUNTS,	/* "/dev/root /mnt ext3 rw,noatime,errors=continue 0 0" (fstab layout) */
};

/* Longest option string kept (the kernel takes mount data up to a page). */
#define PROC_MOUNT_OPTS 4096

/*
 * One mount, with the \ooo escapes the kernel writes for space, tab,
 * newline and backslash decoded. Fields a layout does not have are empty
 * (0:0 and "" from PROC_MOUNTS). About 20 KiB: keep one, not an array.
 */
struct proc_mount {
	unsigned major, minor;			/* st_dev of the mounted file system */
	char root[PROC_PATH_MAX];		/* the directory of the file system mounted here */
	char mount_point[PROC_PATH_MAX];
	char mount_opts[PROC_MOUNT_OPTS];	/* per-mount options (PROC_MOUNTS: all of them) */
	char fs_type[64];
	char source[PROC_PATH_MAX];		/* the device, or "none", "tmpfs"... */
	char super_opts[PROC_MOUNT_OPTS];	/* super-block options */
};

/*
 * Copies the field [S, E) to DST of N bytes, NUL-terminated, decoding the
 * \ooo octal escapes the kernel writes for space, tab, newline and
 * backslash in the mount tables and /proc/swaps. DST may be S (decoding
 * in place never overtakes the text). Returns 0, -EINVAL for a NUL byte,
 * raw or written "\000" (the kernel writes neither; it would cut the
 * string), or -ENAMETOOLONG when the decoded text and its NUL do not fit.
 */
MUST_CHECK int proc_unescape(char *dst, size_t n, const char *s, const char *e);

/*
 * Parses the next mount of mount-table text in layout FMT at *POS (before
 * END) into M and moves *POS past it. Lines that are malformed, or have a
 * field longer than M holds, are skipped and counted in *BAD_LINES, as is
 * a final fragment without '\n' (see the rules above). Returns 1 with M
 * filled, 0 at the end of the text. Pure: the caller reads the file
 * (proc_buf_read_file()) and owns everything.
 */
MUST_CHECK int proc_mount_next(struct proc_mount *m, enum proc_mount_format fmt, const char **pos,
			       const char *end, unsigned *bad_lines);

/* Whether the comma-separated option list OPTS holds the option NAME exactly ("sync" is not "async"). */
bool proc_mount_has_opt(const char *opts, const char *name);

/* Whether M is mounted "sync" or "dirsync", in its per-mount or its super-block options. */
bool proc_mount_is_sync(const struct proc_mount *m);

/*
 * Number of CPUs in a kernel CPU list such as "0-3,8,10-11" (7), of len
 * bytes (need not be NUL-terminated). Returns the count (0 for an empty
 * list) or -EINVAL for anything else (a descending range, a stray char).
 */
MUST_CHECK int proc_cpulist_count(const char *s, size_t len);

#endif
