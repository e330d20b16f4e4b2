/* SPDX-License-Identifier: MIT */
/*
 * Shared between the files of the disk benchmark (disk.c and its
 * disk_*.c helpers): the options struct with what check() resolved about
 * the target, and the functions one step calls in another file. Not a
 * public interface; nothing outside src/bench/disk/ includes it.
 *
 * Files:
 *   disk.c              descriptor, options, check(), steps, run() dispatch
 *   disk_target.c       what the target is, free space, engpass's own data
 *                       file, opening with the right flags, defeating caches,
 *                       preallocation
 *   disk_report.c       CPU per I/O, the device's own view, latency figures,
 *                       device settings and mount options
 *   disk_hdparm.c       -T and -t
 *   disk_io.c           seq-read, seq-write, rand-read, rand-write, mixed
 *                       through psync or io_uring
 *   disk_torrent_step.c the torrent workload (its order and write cache
 *                       are core/work/torrent.c, shared with download)
 *   disk_spec.c         data pattern, --sync, default size, mount options,
 *                       image size, -t's region (pure)
 *   disk_fs.c           --fs: the scratch file system on a loop image
 *   disk_queue.c        --nr-requests, --max-sectors, --write-cache
 */
#ifndef ENGPASS_DISK_COMMON_H
#define ENGPASS_DISK_COMMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "bench/bench.h"
#include "bench/disk/disk_spec.h"
#include "core/kernel/blkdev.h"
#include "core/base/clock.h"
#include "core/base/hist.h"
#include "core/kernel/proc.h"
#include "core/work/tmpfile.h"
#include "lib/units.h"

enum disk_kind { DISK_DIR, DISK_FILE, DISK_BLKDEV };

/* --workload; the order is the option's choice list. */
enum disk_workload {
	WL_NONE = -1,
	WL_SEQ_READ,
	WL_SEQ_WRITE,
	WL_RAND_READ,
	WL_RAND_WRITE,
	WL_MIXED,
	WL_TORRENT,
};

enum disk_engine { ENGINE_AUTO = -1, ENGINE_URING, ENGINE_PSYNC };
enum disk_prealloc { PREALLOC_DEFAULT = -1, PREALLOC_NONE, PREALLOC_FAST, PREALLOC_FULL };
enum disk_step { STEP_CACHED, STEP_DEVICE, STEP_WORKLOAD };

/* hdparm's buffer: one 2 MiB read at a time. */
#define DISK_HDPARM_BUF (2 * DISK_MIB)
/* Alignment of every I/O buffer (enough for O_DIRECT on 4Kn devices). */
#define DISK_ALIGN 4096

/* What check() found out about TARGET. */
struct disk_target {
	enum disk_kind kind;
	const char *path;		/* as given; points into argv */
	uint64_t size;			/* existing file or device, bytes */
	uint64_t free_bytes;		/* directory: available to us */
	bool have_dev;			/* a block device is behind the target */
	int dev_err;			/* -errno of the lookup when !have_dev */
	struct blkdev_info dev;
	bool have_mount;
	struct blkdev_mount mnt;
};

/*
 * engpass's own data file in a directory target, filled once and shared
 * by the steps (and repetitions) of one invocation; removed at exit by
 * the temp-file registry.
 */
struct disk_data {
	bool made;
	int err;			/* -errno when making it failed */
	char path[TMPFILE_PATH_MAX];
	uint64_t size;			/* bytes filled: what the steps read */
	uint64_t asked;			/* bytes the steps asked for (o->data_size) */
	bool cut;			/* size < asked: the rest did not fit the fill's allowance */
	char how[512];			/* the method text: how it was filled */
};

/* --fs: the scratch file system, while it exists (disk_fs.c). */
struct disk_fs {
	bool active;			/* made, mounted, the steps run in it */
	bool img_made, mnt_made, loop_attached, mounted;
	char img[PATH_MAX];		/* DIR/.engpass-fs-PID.img */
	char mnt[PATH_MAX];		/* DIR/.engpass-fs-PID.mnt */
	int loop_num;
	char loop_dev[32];		/* "/dev/loop3" */
	uint64_t image_size;
	char attach_how[96];		/* the ioctls that bound the loop device */
	char mkfs_cmd[320];		/* the mkfs command line, tool by name */
	char reaped[256];		/* stale runs reaped before this one ("" none) */
};

struct disk_opts {
	/* From the option table. */
	bool cached, device;
	uint64_t settle_ns;		/* -T/-t: sync, then idle this long before timing (hdparm: 3 s) */
	int workload;			/* enum disk_workload */
	uint64_t bs;			/* 0: the workload's default */
	int64_t qd;
	int engine;			/* enum disk_engine */
	bool direct, buffered;
	uint64_t size;			/* 0: default */
	bool size_given;		/* --size was given (set by check() before --fs may set size) */
	double rate;			/* bytes/s; 0 unlimited */
	const char *sync;		/* NULL: the workload's default */
	int prealloc;			/* enum disk_prealloc */
	int64_t readahead_kb;		/* -1: leave alone */
	const char *scheduler;		/* NULL: leave alone */
	int64_t nr_requests;		/* -1: leave alone (disk_queue.h) */
	int64_t max_sectors_kb;		/* -1: leave alone */
	int write_cache;		/* enum disk_wcache: leave alone, on, off */
	uint64_t piece;			/* 0: 1 MiB */
	int64_t interleave;		/* 0: 4 */
	uint64_t cache;			/* UINT64_MAX: 0 */
	bool verify;
	int64_t seed;
	int64_t read_pct;		/* -1: 50 */
	bool write_ok, destructive;
	const char *fs;			/* --fs TYPE; NULL: none */
	const char *mount_options;	/* --mount-options; NULL: defaults */
	uint64_t offset;		/* -t --offset; UINT64_MAX: none */
	int t_region;			/* -t --region: enum disk_region */

	/* Resolved by check(). */
	struct disk_target tgt;
	enum disk_step steps[3];
	size_t nsteps;
	bool writes;			/* the workload writes */
	uint64_t region;		/* bytes the workload or -t addresses */
	uint64_t data_size;		/* directory: size of the shared data file (0: none) */
	enum disk_sync sync_mode;
	uint64_t sync_every;
	int prealloc_mode;		/* resolved enum disk_prealloc */
	bool use_direct;		/* -t and the workload: O_DIRECT */
	struct disk_mount_opts mopts;	/* --mount-options parsed */
	const char *fs_dir;		/* --fs: the directory TARGET as given */
	uint64_t fs_need;		/* --fs: bytes the steps' files need in it */
	struct disk_fs fsst;		/* --fs: the scratch file system (setup to teardown) */
	/*
	 * run() receives the options read-only; the shared data file is the
	 * one thing the steps change, reached through this pointer to
	 * data_store (set by check()).
	 */
	struct disk_data *data;
	struct disk_data data_store;
};

/* A measured interval: CPU and the device's counters at both ends. */
struct disk_meas {
	mono_ns t0, t1;
	struct rusage thr0, thr1, self0, self1;
	bool have_ds;
	struct proc_disk ds0, ds1;
};

/* ---- disk_target.c ---- */

/*
 * Classifies PATH into O->tgt and checks it against the options (writes
 * allowed, mounted device, free space); fills region, data_size. Returns
 * 0 or -EINVAL with one line in ERR.
 */
int disk_target_check(struct disk_opts *o, const char *path, char *err, size_t errlen);

/*
 * Opens the data to read for a step: the target itself, or for a
 * directory the shared data file (made and filled on first use, at least
 * NEED bytes). DIRECT asks for O_DIRECT: when the file system refuses it
 * and DIRECT was not asked for explicitly, the file is opened buffered
 * and *DIRECT_OUT says so. Returns the descriptor (caller closes) and
 * *SIZE, or -errno with the result set failed.
 */
int disk_open_data(const struct bench_env *env, const struct disk_opts *o, struct result *res, bool direct,
		   bool *direct_out, uint64_t *size);

/*
 * Creates engpass's own temp file in the directory target for a write
 * step, opened with EXTRA flags (O_DIRECT falls back like above). Returns
 * the descriptor and *PATH (caller frees, and removes the file with
 * tmpfile_remove()), or -errno with the result set failed.
 */
int disk_create_temp(const struct bench_env *env, const struct disk_opts *o, struct result *res, int extra,
		     bool *direct_out, char **path);

/*
 * Removes the temp file PATH made by disk_create_temp() and frees PATH
 * (NULL is a no-op); a failure becomes a note on RES (the registry tries
 * again at exit).
 */
void disk_remove_temp(const struct bench_env *env, struct result *res, char *path);

/*
 * Opens the target itself (file or block device) for writing with EXTRA
 * flags; a block device is claimed exclusively (O_EXCL), so nobody can
 * mount it meanwhile. Returns the descriptor or -errno (result failed).
 */
int disk_open_target_rw(const struct disk_opts *o, struct result *res, int extra, bool *direct_out);

/*
 * Drops cached data of FD before a buffered read, the way hdparm does
 * (block device: sync, fsync, fdatasync, sync, BLKFLSBUF, sync) or fio
 * and ioping do for files (fdatasync, then POSIX_FADV_DONTNEED). Adds a
 * "cache" method entry saying what was done and whether it worked.
 */
void disk_drop_cache(const struct disk_opts *o, int fd, struct result *res);

/*
 * Preallocates o->region bytes of FD with o->prealloc_mode, Transmission's
 * modes: fast = fallocate() mode 0, or where the file system cannot, one
 * byte written at the end plus ftruncate(); full = zeros written over the
 * whole file (1 MiB writes, then fdatasync), so every block is really
 * allocated and written. A measured phase of its own, before the step's
 * timing: its time and the device's write requests and bytes become the
 * prealloc_* metrics (modes fast and full), *SECS its seconds (0 for
 * none). Adds a "prealloc" method entry. Returns 0 or -errno (-ENOSPC).
 */
int disk_prealloc(const struct disk_opts *o, int fd, volatile sig_atomic_t *stop, struct result *res, double *secs);

/* Open flags for a --sync mode (O_SYNC, O_DSYNC or 0). */
int disk_sync_flags(enum disk_sync mode);

/* ---- disk_report.c ---- */

/* Starts a measured interval (rusage, diskstats, clock). */
void disk_meas_begin(const struct disk_opts *o, struct disk_meas *m);
/* Ends it. */
void disk_meas_end(const struct disk_opts *o, struct disk_meas *m);

/*
 * CPU per I/O over M: the measuring thread's user and system time
 * (getrusage RUSAGE_THREAD, as fio reports) and the whole process's, per
 * one of IOS operations.
 */
void disk_report_cpu(struct result *res, const struct disk_meas *m, uint64_t ios);
/*
 * With --rate RATE (bytes/s; 0 = none): offers the "own pacing" candidate
 * limiter, share = ACHIEVED (bytes/s) / RATE, WHAT naming the bytes
 * ("achieved", "of blocks").
 */
void disk_report_pacing(struct result *res, double achieved, double rate, const char *what);

/*
 * The device's own view over M from /proc/diskstats: requests, merges,
 * bytes, average request sizes, %util, queue size, and write
 * amplification against WL_WRITTEN workload bytes (when > 0).
 */
void disk_report_device(struct result *res, const struct disk_opts *o, const struct disk_meas *m,
			uint64_t wl_written);

/*
 * Percentile metrics PREFIX_p50/p90/p99/p99_9/max/mean (ns) of H and the
 * histogram itself under PREFIX; WHAT names the latency in labels.
 */
void disk_report_lat(struct result *res, const char *prefix, const struct hist *h, const char *what);

/* Method entries: the device's queue settings and the mount's options. */
void disk_report_settings(struct result *res, const struct disk_opts *o);

/*
 * After step STEP measured into RES: a setting on the device's path that
 * bounds what the step could reach, found from the settings and the
 * step's own device figures (a sync mount under writes; max_sectors_kb
 * or, for buffered reads, read_ahead_kb splitting each I/O into smaller
 * device requests; nr_requests below the queue depth asked; a write
 * cache in write-through under writes), as a note and as the verdict
 * candidate "device setting" (share unknown: the setting does not say
 * how much of the device's time it cost). The verdict names it in its
 * next step where it names the device (core/result/verdict.c). The first found,
 * in that order; nothing when none is.
 */
void disk_report_setting(struct result *res, const struct disk_opts *o, enum disk_step step);

/*
 * Redraws the progress line at most PROGRESS_HZ times a second: DONE of
 * TOTAL (any unit), and the rate of BYTES since START. *LAST is the
 * caller's time of the previous redraw (0 at first).
 */
void disk_progress(const struct bench_env *env, mono_ns now, mono_ns start, uint64_t done, uint64_t total,
		   uint64_t bytes, mono_ns *last);

/*
 * Bytes in disk's parameters and messages: units_fmt_size() with exact
 * whole units ("256 MiB", "16 KiB", "1.50 MiB"), as the user wrote them.
 * Returns BUF.
 */
static inline const char *disk_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	return units_fmt_size(buf, len, (double)bytes, UNITS_FMT_EXACT);
}

/*
 * After a step that preallocated for PREALLOC_S seconds (> 0) and then
 * wrote BYTES in MEASURED_S: the total time including preallocation, and
 * the rate over it (what a user waiting for the download sees).
 */
void disk_report_total(struct result *res, double prealloc_s, double measured_s, uint64_t bytes);

/* Fails RES for ERR (-errno) met during WHAT, naming ENOSPC and EIO plainly. */
void disk_fail_errno(struct result *res, int err, const char *what);

/* ---- disk_hdparm.c ---- */

/* -T: re-read one 2 MiB block from the page cache (hdparm -T). */
void disk_step_cached(const struct bench_env *env, const struct disk_opts *o, struct result *res);
/* -t: sequential 2 MiB reads with caches defeated (hdparm -t). */
void disk_step_device(const struct bench_env *env, const struct disk_opts *o, struct result *res);

/* ---- disk_io.c ---- */

/* seq-read, seq-write, rand-read, rand-write, mixed. */
void disk_step_io(const struct bench_env *env, const struct disk_opts *o, struct result *res);

/* ---- disk_torrent_step.c ---- */

/* The torrent workload. */
void disk_step_torrent(const struct bench_env *env, const struct disk_opts *o, struct result *res);

/* ---- disk_fs.c ---- */

/*
 * Whether a scratch file system of type FS can be made: the kernel has it
 * (/proc/filesystems, or a module `modprobe -n` finds) and mkfs.FS exists.
 * Returns 0, or -EINVAL with one line in ERR naming what is missing.
 */
int disk_fs_check(const char *fs, char *err, size_t errlen);

/*
 * Reaps scratch file systems in DIR left by engpass processes that are
 * gone (killed with SIGKILL): unmounts, detaches, removes. NOTE gets the
 * process ids ("" none). Returns how many were found, or -errno.
 */
int disk_fs_reap(const char *dir, char *note, size_t len);

/*
 * Makes the scratch file system into F: an IMAGE_SIZE image in DIR, a
 * loop device, mkfs.FS, mounted with MO. Returns 0, or -errno with one
 * line in ERR; what was made is in F for disk_fs_teardown() either way.
 */
int disk_fs_setup(struct disk_fs *f, const char *dir, const char *fs, const struct disk_mount_opts *mo,
		  uint64_t image_size, volatile sig_atomic_t *stop, char *err, size_t errlen);

/*
 * Unmounts, detaches and removes what F holds (a no-op for an empty F).
 * Returns 0, or -errno with one line in ERR (what is left stays in F).
 */
int disk_fs_teardown(struct disk_fs *f, char *err, size_t errlen);

#endif
