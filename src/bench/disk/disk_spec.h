/* SPDX-License-Identifier: MIT */
/*
 * Small pure helpers of the disk benchmark, kept apart so the unit tests
 * can exercise them without files or devices: the deterministic data
 * pattern written to files (so a written file can be checked by hash; its
 * bytes come from core/rng's splitmix64),
 * the --sync specification, the default size of engpass's own data file,
 * and the names of the workloads (enum disk_workload in disk_common.h).
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
 * The --workload names in enum disk_workload order, NULL terminated (the
 * option table's choices), and the name of one ("none" for WL_NONE or
 * anything out of range). Strings are static.
 */
extern const char *const disk_workload_names[];
const char *disk_workload_name(int wl);

#endif
