/* SPDX-License-Identifier: MIT */
/*
 * The disk queue knobs beyond --readahead and --scheduler (seed 001's
 * hdparm tuning in today's sysfs form): --nr-requests N (queue/nr_requests),
 * --max-sectors KB (queue/max_sectors_kb) and --write-cache on|off, set on
 * the whole disk under test for one step and restored afterwards.
 *
 * The write cache is set where it reaches the drive when sysfs offers
 * that: the SCSI disk's cache_type (device/scsi_disk/H:C:T:L/cache_type:
 * the kernel sends the drive a MODE SELECT), a virtio disk's cache_type
 * (the device's write-cache setting), else queue/write_cache, which
 * changes only the kernel's view (it stops or starts sending cache
 * flushes) and not the drive's own cache; the method says which.
 *
 * Every value is saved before it is changed and registered with a
 * guardian process (core/work/guardian.h), together with --readahead's and
 * --scheduler's, so a SIGKILLed run still gets the old settings back.
 */
#ifndef ENGPASS_DISK_QUEUE_H
#define ENGPASS_DISK_QUEUE_H

#include <stdbool.h>

#include "bench/disk/disk_common.h"

enum disk_wcache {
	DISK_WCACHE_KEEP = 0,
	DISK_WCACHE_ON,
	DISK_WCACHE_OFF,
};

/* The names of --write-cache, in enum order after KEEP: "keep", "on", "off". */
extern const char *const disk_wcache_names[];

#define DISK_QUEUE_KNOBS 5	/* nr_requests, max_sectors_kb, write cache, read_ahead_kb, scheduler */

/* What one step changed, for disk_queue_restore(). */
struct disk_queue {
	struct guardian *g;
	int n;
	int nr, maxs, wc;	/* indexes of the knobs in k, -1 */
	const char *wc_where;	/* what the write cache file reaches (static) */
	struct {
		char path[4096];
		char old[256];
		int id;		/* guardian action */
		bool set;	/* this step wrote it (else only guarded) */
	} k[DISK_QUEUE_KNOBS];
};

/* True when any queue setting is asked for (these and --readahead/--scheduler). */
bool disk_queue_wanted(const struct disk_opts *o);

/*
 * check(): root, a target on a block device, the sysfs files there and
 * writable, max_sectors_kb within the drive's max_hw_sectors_kb. 0 or
 * -EINVAL with the reason in ERR.
 */
int disk_queue_check(const struct disk_opts *o, char *err, size_t errlen);

/*
 * Before anything is set: starts the guardian and saves and registers the
 * current value of every setting the options will change (these knobs,
 * and read_ahead_kb and the scheduler, which blkdev_tune_*() sets).
 * Returns 0, or -errno with RES failed.
 */
int disk_queue_guard(const struct disk_opts *o, struct disk_queue *q, struct result *res);

/*
 * After them (a scheduler change resets nr_requests): sets --nr-requests,
 * --max-sectors and --write-cache (each saved and guarded first), naming
 * each in RES (parameter and method: the value before and during).
 * Returns 0, or -errno with RES failed (the kernel's error for a value it
 * refuses).
 */
int disk_queue_set(const struct disk_opts *o, struct disk_queue *q, struct result *res);

/*
 * After the step: writes the saved values back, ends the guardian (told
 * all is undone when that worked and OTHERS_OK: --readahead/--scheduler
 * were restored by blkdev_tune_restore(); else it retries them). A
 * failure is a note and fails an otherwise good RES.
 */
void disk_queue_restore(const struct disk_opts *o, struct disk_queue *q, bool others_ok, struct result *res);

#endif
