/* SPDX-License-Identifier: MIT */
/*
 * swapdev: what a block device the user offers as swap holds, and whether
 * it is already active swap. The memory sandbox (sandbox.h) enables such a
 * device -- a partition, a loop device -- at top priority for a run and
 * restores it afterwards; before that it must know whether the device has
 * a swap signature (else it may write one only when the user allows it),
 * whether it holds a file system or a partition table (never written),
 * and its state in /proc/swaps (active? at which priority?).
 *
 * Signatures are read from the device's first 68 KiB, by superblock magic,
 * as blkid does for these types: Linux swap (SWAPSPACE2 / SWAP-SPACE at
 * the end of the first page, for 4, 8, 16 and 64 KiB pages), ext2/3/4,
 * XFS, Btrfs, F2FS, FAT (12/16/32), exFAT, NTFS, ISO 9660, SquashFS, LUKS,
 * LVM2, Linux MD RAID (1.1/1.2), a GPT or a DOS partition table (the 0x55AA
 * boot signature). A type not in this list reads as "no signature".
 */
#ifndef ENGPASS_SWAPDEV_H
#define ENGPASS_SWAPDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"

/* Bytes of the device's start that swapdev_signature() looks at. */
#define SWAPDEV_PROBE_BYTES (68u << 10)

enum swapdev_sig {
	SWAPDEV_SIG_NONE = 0,	/* none that swapdev knows */
	SWAPDEV_SIG_SWAP,	/* a Linux swap area */
	SWAPDEV_SIG_OTHER,	/* a file system, container or partition table: *WHAT names it */
};

/*
 * Looks for the signatures above in BUF, the first LEN bytes of a device
 * (shorter than SWAPDEV_PROBE_BYTES: the magics beyond LEN are not
 * checked). Swap wins over the others (mkswap keeps no other signature in
 * its first page). *WHAT (may be NULL) is a static name ("swap", "ext2/3/4",
 * "a DOS partition table") or NULL for SWAPDEV_SIG_NONE.
 */
enum swapdev_sig swapdev_signature(const void *buf, size_t len, const char **what);

/* A swap area as /proc/swaps lists it. */
struct swapdev_state {
	bool active;
	int priority;		/* when active */
	int64_t size_bytes;	/* when active; -1 unknown */
	int64_t used_bytes;	/* when active; -1 unknown */
	char type[16];		/* "partition", "file"; "" */
};

/*
 * Finds PATH in SWAPS_TEXT (the text of /proc/swaps): a line whose decoded
 * name equals PATH or, when both are block devices, names the same device
 * (st_rdev). Fills ST (active false when not listed). Returns 0, or
 * -EINVAL when the text has no header line.
 */
MUST_CHECK int swapdev_state(const char *swaps_text, const char *path, struct swapdev_state *st);

/*
 * Reads /proc/swaps (PROC_ROOT NULL = "/proc") and calls swapdev_state().
 * Returns 0 or -errno.
 */
MUST_CHECK int swapdev_state_read(const char *proc_root, const char *path, struct swapdev_state *st);

#endif
