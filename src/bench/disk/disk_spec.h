/* SPDX-License-Identifier: MIT */
/*
 * Small pure helpers of the disk benchmark, kept apart so the unit tests
 * can exercise them without files or devices: the deterministic data
 * pattern written to files (so a written file can be checked by hash; its
 * bytes come from core/rng's splitmix64),
 * the --sync specification, the default size of engpass's own data file,
 * the names of the workloads (enum disk_workload in disk_common.h), the
 * --mount-options of a scratch file system, its image size, and the
 * offset -t starts reading at (--offset, --region).
 */
#ifndef ENGPASS_DISK_SPEC_H
#define ENGPASS_DISK_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

#define DISK_MIB (1024ULL * 1024)
#define DISK_GIB (1024ULL * DISK_MIB)

/* Smallest and largest default size of engpass's own data file. */
#define DISK_DEFAULT_MIN (32 * DISK_MIB)
#define DISK_DEFAULT_MAX DISK_GIB

/*
 * engpass's own data file (read by -T, -t and the reading workloads) is
 * filled before the first step that reads it: set-up, not measurement.
 * The fill gets at most DISK_FILL_ALLOW_NS, whatever the device's speed
 * (an SD card writing 10 MB/s needs 25 s for the 256 MiB quick asks),
 * unless the user gave --size without --time. Its first DISK_FILL_PROBE
 * bytes measure the device's write rate; the file is then filled only as
 * far as that rate fills the rest of the allowance (disk_fill_plan()).
 */
#define DISK_FILL_ALLOW_NS (2 * 1000000000ULL)
#define DISK_FILL_PROBE DISK_MIB

/* --sync modes. */
enum disk_sync {
	DISK_SYNC_NONE,		/* no sync at all */
	DISK_SYNC_END,		/* one fdatasync() after the last write, inside the timed run */
	DISK_SYNC_FDATASYNC,	/* fdatasync() after every N writes */
	DISK_SYNC_FSYNC,	/* fsync() after every N writes */
	DISK_SYNC_OSYNC,	/* file opened O_SYNC */
	DISK_SYNC_ODSYNC,	/* file opened O_DSYNC */
};

/*
 * Fills BUF[0..LEN) with the content engpass writes at block INDEX of a
 * file written with SEED: a splitmix64 stream seeded from both, so every
 * block differs and none compresses or deduplicates. Deterministic: the
 * same arguments always give the same bytes.
 */
void disk_pattern(void *buf, size_t len, uint64_t seed, uint64_t index);

/*
 * Parses a --sync value: "none", "end", "fdatasync=N", "fsync=N" (N >= 1
 * writes between syncs), "osync" or "odsync". Returns 0 with *MODE and
 * *EVERY (N, or 0) set, or -EINVAL.
 */
MUST_CHECK int disk_sync_parse(const char *s, enum disk_sync *mode, uint64_t *every);

/* "fdatasync=8", "end", ... into BUF; returns BUF. */
const char *disk_sync_name(enum disk_sync mode, uint64_t every, char *buf, size_t len);

/*
 * Default size of engpass's own data file in a directory with FREE bytes
 * available: a quarter of the free space, at most DISK_DEFAULT_MAX,
 * rounded down to a MiB. Returns 0 when that is below DISK_DEFAULT_MIN
 * (too little room to measure anything but the file system's cache).
 */
uint64_t disk_default_size(uint64_t free_bytes);

/*
 * How many bytes of a data file of ASKED bytes to fill in all, once DONE
 * bytes (the probe) were written in DONE_NS and LEFT_NS of the allowance
 * remain: DONE plus what the probe's rate writes in LEFT_NS, rounded down
 * to ALIGN (a power of two), at least MIN_BYTES (what the steps need to
 * run at all) and at most ASKED. DONE_NS 0 (no time measured) fills ASKED.
 */
uint64_t disk_fill_plan(uint64_t asked, uint64_t min_bytes, uint64_t done, uint64_t done_ns, uint64_t left_ns,
			uint64_t align);

/*
 * The --workload names in enum disk_workload order, NULL terminated (the
 * option table's choices), and the name of one ("none" for WL_NONE or
 * anything out of range). Strings are static.
 */
extern const char *const disk_workload_names[];
const char *disk_workload_name(int wl);

/*
 * --mount-options of a scratch file system (--fs), split for mount(2):
 * the generic options become FLAGS (sync, async, dirsync, noatime, atime,
 * nodiratime, diratime, relatime, norelatime, strictatime, lazytime,
 * nolazytime, nosuid, nodev, noexec; "defaults" and "rw" add nothing;
 * a later option overrides an earlier one), the rest goes to the file
 * system as DATA ("data=journal,commit=5"). TEXT is the list as given,
 * normalised to ',' ("defaults" when empty).
 */
struct disk_mount_opts {
	unsigned long flags;
	char data[256];
	char text[256];
};

/*
 * Parses S (NULL or "" = defaults): options separated by ',' or '+' (the
 * '+' form lets `engpass sweep` keep several options in one value, since
 * sweep splits its values at ','). Returns 0, or -EINVAL for an empty
 * option, "ro" (the workloads write) or an operation rather than an
 * option (remount, bind, move), -E2BIG when the text does not fit; on
 * -EINVAL, BAD (BADLEN bytes, may be NULL) gets the offending option.
 */
MUST_CHECK int disk_mount_opts_parse(const char *s, struct disk_mount_opts *out, char *bad, size_t badlen);

/*
 * Size of the loop image of a scratch file system whose workload needs
 * NEED bytes of files: NEED plus a quarter for the file system's own
 * metadata (inode tables, a journal, FAT copies) and reserved blocks,
 * plus 32 MiB, rounded up to a MiB.
 */
uint64_t disk_fs_image_size(uint64_t need);

/* -t's --region; the order is the option's choice list. */
enum disk_region { DISK_REGION_NONE = -1, DISK_REGION_START, DISK_REGION_MIDDLE, DISK_REGION_END };

/* The size of --region end: the last GiB, or the last third of smaller data. */
#define DISK_REGION_END_MAX DISK_GIB

/*
 * Where -t starts reading data of SIZE bytes: OFFSET when it is not
 * UINT64_MAX (--offset), else for REGION start 0, middle SIZE / 2, end
 * SIZE minus the last GiB (or minus a third of SIZE when that is smaller);
 * rounded down to ALIGN bytes (a power of two). Returns 0 with *OFF set,
 * or -EINVAL when OFFSET leaves less than MIN_LEN bytes to read, or is not
 * a multiple of ALIGN.
 */
MUST_CHECK int disk_region_offset(uint64_t size, int region, uint64_t offset, uint64_t align, uint64_t min_len,
				  uint64_t *off);

#endif
