/* SPDX-License-Identifier: MIT */
/*
 * blkdev: from a path to the block device behind it, and that device's
 * queue settings. The disk benchmark needs to know which line of
 * /proc/diskstats counts its I/O (to report the device's own view and the
 * write amplification), which queue settings were in force (scheduler,
 * read_ahead_kb, write cache: the modern form of what `hdparm /dev/X`
 * prints), the mount the target lives on and its options (a `sync` mount
 * multiplies write requests, seed 000), whether a block device is mounted
 * (writes to it are refused), and it sets read_ahead_kb and the scheduler
 * for one run and restores them afterwards (the modern form of hdparm's
 * tuning flags, seed 001).
 *
 * Resolution: stat() gives st_rdev for a block device and st_dev for
 * anything else; SYS/dev/block/MAJ:MIN links to the device's sysfs
 * directory. A directory with a "partition" file is a partition: its
 * parent is the whole disk, which holds queue/. A file on tmpfs, overlay
 * or btrfs has an anonymous st_dev (major 0) and no block device: -ENODEV.
 *
 * Everything is read below two roots (normally "/proc" and "/sys") so the
 * unit tests can point them at a fabricated tree. Nothing here prints or
 * exits; functions return 0 or -errno. No state is kept: struct
 * blkdev_tune is the caller's record of what must be restored.
 */
#ifndef ENGPASS_BLKDEV_H
#define ENGPASS_BLKDEV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "core/kernel/proc.h"

#define BLKDEV_NAME_MAX 32

/* A block device and its whole disk's queue settings; unknown = -1 or "". */
struct blkdev_info {
	unsigned major, minor;
	char name[BLKDEV_NAME_MAX];	/* as in /proc/diskstats: "vda", "vda1", "loop3" */
	char disk[BLKDEV_NAME_MAX];	/* the whole disk holding queue/: "vda" */
	bool partition;			/* name is a partition of disk */
	char disk_dir[PATH_MAX];	/* sysfs directory of disk (resolved) */
	int64_t size_bytes;		/* of name, from its "size" file (512-byte sectors) */
	char scheduler[BLKDEV_NAME_MAX];	/* the active one */
	char schedulers[256];		/* all offered, brackets removed, space separated */
	int64_t read_ahead_kb;
	int64_t nr_requests;
	int64_t max_sectors_kb;
	int64_t logical_block_bytes;
	int rotational;			/* 0, 1 or -1 */
	char write_cache[32];		/* "write back", "write through" or "" */
	char loop_backing[PATH_MAX];	/* a loop device's backing file, else "" */
};

/* The mount a path lives on, from mountinfo. */
struct blkdev_mount {
	unsigned major, minor;		/* st_dev of the mounted file system */
	char mount_point[PATH_MAX];	/* octal escapes decoded */
	char fs_type[64];
	char source[PATH_MAX];
	char options[512];		/* "per-mount options; super options" as printed */
	bool sync;			/* "sync" or "dirsync" among either set of options */
};

/*
 * Fills OUT for the block device MAJOR:MINOR using SYS_ROOT (NULL =
 * "/sys"). Returns 0; -ENODEV when major is 0 (anonymous device: tmpfs,
 * overlay, btrfs subvolume) or sysfs has no such device; -errno of a
 * failed realpath. Queue attributes that cannot be read stay unknown.
 */
MUST_CHECK int blkdev_from_devnum(const char *sys_root, unsigned major, unsigned minor,
				  struct blkdev_info *out);

/*
 * Like blkdev_from_devnum() for the device holding PATH (st_rdev of a
 * block device, st_dev of anything else). Returns 0, -errno of stat(), or
 * -ENODEV as above.
 */
MUST_CHECK int blkdev_from_path(const char *sys_root, const char *path, struct blkdev_info *out);

/*
 * Reads queue attribute ATTR of INFO's whole disk (e.g. "read_ahead_kb")
 * into BUF, first line, trailing white space removed. Returns 0 or -errno.
 */
MUST_CHECK int blkdev_queue_get(const struct blkdev_info *info, const char *attr, char *buf, size_t len);

/*
 * Splits a queue/scheduler text such as "none [mq-deadline] kyber bfq"
 * into the active name (ACTIVE, may be NULL) and the list of offered names
 * without brackets (LIST, may be NULL). A single bare word is taken as the
 * active one. Returns 0, or -EINVAL when the text holds no name.
 */
MUST_CHECK int blkdev_parse_scheduler(const char *text, char *active, size_t alen, char *list, size_t llen);

/* True when NAME is one of the space-separated words of LIST. */
bool blkdev_offers(const char *list, const char *name);

/*
 * Finds the mount PATH lives on: among the lines of PROC_ROOT/self/mountinfo
 * (NULL root = "/proc") the one whose mount point is the longest prefix of
 * realpath(PATH), the last such line when several are equal (a later mount
 * hides an earlier one). Returns 0, -ENOENT when none matches, -errno of
 * realpath() or of reading the file.
 */
MUST_CHECK int blkdev_mount_of(const char *proc_root, const char *path, struct blkdev_mount *out);

/*
 * Whether INFO's device, or (for a whole disk) any of its partitions, is
 * mounted according to PROC_ROOT/self/mountinfo. Returns 1 and the first
 * mount point in WHERE (may be NULL), 0 when not mounted, or -errno.
 */
MUST_CHECK int blkdev_is_mounted(const char *proc_root, const struct blkdev_info *info, char *where,
				 size_t wlen);

/*
 * Reads INFO's line of PROC_ROOT/diskstats (NULL = "/proc") into OUT.
 * Returns 0, -ENOENT when the device has no line, or -errno.
 */
MUST_CHECK int blkdev_diskstats(const char *proc_root, const struct blkdev_info *info, struct proc_disk *out);

/*
 * Settings changed for a run, and their old values, so they can be put
 * back. Initialise with BLKDEV_TUNE_INIT; it refers to INFO's disk_dir,
 * which must stay valid until blkdev_tune_restore().
 */
struct blkdev_tune {
	const struct blkdev_info *info;
	bool ra_set;
	int64_t ra_old;
	bool sched_set;
	char sched_old[BLKDEV_NAME_MAX];
};

#define BLKDEV_TUNE_INIT(i) { .info = (i), .ra_set = false, .ra_old = -1, .sched_set = false, .sched_old = "" }

/*
 * Sets queue/read_ahead_kb of the disk to KB, remembering the old value
 * (only the first time, so a second call still restores the original).
 * Returns 0 or -errno (-EACCES/-EPERM without root, -EINVAL for a value
 * the kernel refuses); nothing is remembered on error.
 */
MUST_CHECK int blkdev_tune_readahead(struct blkdev_tune *t, int64_t kb);

/* Same for queue/scheduler; -EINVAL when the disk does not offer NAME. */
MUST_CHECK int blkdev_tune_scheduler(struct blkdev_tune *t, const char *name);

/*
 * Writes back every remembered old value and forgets them. Returns 0, or
 * the first -errno (the other values are still tried).
 */
MUST_CHECK int blkdev_tune_restore(struct blkdev_tune *t);

#endif
