/* SPDX-License-Identifier: MIT */
/*
 * A memory sandbox: a memory cgroup with a limit, optionally with a swap
 * file of its own, in which a child process runs; everything is torn down
 * afterwards. This is how a 24 GB machine plays a 128 MB one for the
 * swaptest ladder (engpass mem --ladder --sandbox 128M --swapfile 256M)
 * without pressing anything else on the box: only the sandbox is short of
 * memory, the host never is.
 *
 * The cgroup. Where the memory controller is bound to cgroup v1 (it is
 * when /proc/self/cgroup has a "memory" line), the sandbox is a child of
 * the caller's own v1 memory cgroup, so every limit that already applies
 * to the caller still applies inside; memory.limit_in_bytes is set and
 * the memsw limit left alone (swap allowed), memory.swappiness set to
 * the box's vm.swappiness where the cgroup inherited another value (a
 * parent at 0 would forbid swapping). Otherwise, with cgroup v2,
 * it is a child of the v2 root (the "no internal processes" rule forbids
 * a child with controllers below a cgroup that holds processes, so the
 * caller's own cgroup cannot be the parent), which must list "memory" in
 * cgroup.subtree_control; memory.max is set, memory.swap.max left at
 * "max". The directory is named engpass-mem-PID-RANDOM.
 *
 * The swap file. DIR/.engpass-swap-PID-RANDOM, created with O_EXCL and
 * mode 0600, allocated with fallocate() (or written with zeros where the
 * file system refuses that, or where swapon(2) refuses unwritten
 * extents), given a version-1 swap header written here (the kernel's
 * "SWAPSPACE2" layout, see sandbox_swap_header()), and enabled with
 * swapon(2) at priority SANDBOX_SWAP_PRIO, so it is used before any other
 * swap device while it exists. Note that swap is global: while the file
 * is enabled, any process on the box may swap to it.
 *
 * Or a swap device the user gives (opts.swap_dev: a partition, a loop
 * device): it must have a swap signature, or get one written here only
 * with opts.mkswap_ok, and is refused when it holds a file system, a
 * container or a partition table (core/kernel/swapdev.h names the signatures
 * checked) or is mounted. It is enabled with swapon(2) at
 * SANDBOX_SWAP_PRIO; when it already was active swap, it is disabled and
 * enabled again at that priority, and teardown disables it and enables it
 * at its old priority (a negative, kernel-given priority comes back as the
 * kernel's next one; discard flags are not known from /proc/swaps and not
 * restored). A device that was not swap is disabled again.
 *
 * Teardown, in this order: put the caller back in its own cgroup when it
 * entered the sandbox (sandbox_enter()), kill what still runs in the
 * cgroup, remove the cgroup, swapoff(2) the file (or restore the device),
 * remove the file. sandbox_destroy() does it on the normal and error
 * paths. For the ways out that skip it -- a second Ctrl-C, SIGKILL, a
 * crash -- sandbox_create() first starts a guardian (core/work/guardian.h) and
 * registers each object right after it is made: when engpass dies, the
 * guardian undoes what is still registered. The window between making an
 * object and telling the guardian is one send(2).
 *
 * Threads and fork: the caller may have threads (the sampler), so a child
 * forked by sandbox_spawn() and the guardian only use async-signal-safe
 * calls; the function a spawned child runs must do the same.
 *
 * Needs root (CAP_SYS_ADMIN for swapon and cgroup directories).
 */
#ifndef ENGPASS_SANDBOX_H
#define ENGPASS_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"

/* swapon(2) priority of the sandbox's own swap file: the highest there is. */
#define SANDBOX_SWAP_PRIO 32767

/* Smallest swap file: the header page plus 15 pages of slots. */
#define SANDBOX_SWAP_MIN_PAGES 16

/* Room left free on the swap file's file system beyond the file itself. */
#define SANDBOX_SWAPDIR_RESERVE (64ull << 20)

struct sandbox;

struct sandbox_opts {
	uint64_t limit_bytes;	/* memory limit of the cgroup, > 0 */
	uint64_t swap_bytes;	/* own swap file size; 0 = none (system swap, if any, applies) */
	const char *swap_dir;	/* where the swap file goes; required when swap_bytes > 0 */
	const char *proc_root;	/* "/proc"; NULL means "/proc" (mountinfo, self/cgroup, swaps) */
	const char *swap_dev;	/* a block device to swap on instead of a file; NULL = none */
	bool mkswap_ok;		/* swap_dev without a swap signature may get one */
};

/* The sandbox's swap as sandbox_swap_info() describes it; path NULL without one. */
struct sandbox_swap {
	const char *path;	/* the file or the device (owned by the sandbox) */
	const char *kind;	/* "file" or "device" (static) */
	uint64_t bytes;		/* its size */
	int priority;		/* swapon priority during the run: SANDBOX_SWAP_PRIO */
	bool was_active;	/* a device that was active swap before, at old_priority */
	int old_priority;
	bool mkswapped;		/* a swap signature was written to the device (opts.mkswap_ok) */
	const char *alloc;	/* a file's allocation (sandbox_swap_alloc()), else NULL */
};

/* Where the memory controller lives, as found by sandbox_find_memcg(). */
struct sandbox_memcg {
	int version;		/* 1 or 2 */
	char parent[4096];	/* directory the sandbox cgroup is created in */
};

/* Figures of the sandbox cgroup; -1 where the kernel does not give them. */
struct sandbox_stat {
	int64_t usage_bytes;		/* v1 memory.usage_in_bytes, v2 memory.current */
	int64_t peak_bytes;		/* v1 memory.max_usage_in_bytes, v2 memory.peak */
	int64_t memsw_peak_bytes;	/* v1 memory.memsw.max_usage_in_bytes (memory + swap) */
	int64_t swap_peak_bytes;	/* v2 memory.swap.peak */
	int64_t limit_hits;		/* v1 memory.failcnt, v2 memory.events "max" */
	int64_t oom_kills;		/* v1 memory.oom_control / v2 memory.events "oom_kill" */
	int64_t swappiness;		/* v1 memory.swappiness (v2 has none: the global vm.swappiness) */
};

/*
 * Finds where a sandbox cgroup can be made, from the text of
 * /proc/self/mountinfo and /proc/self/cgroup (pure; no I/O). A v1 memory
 * line in SELF_CGROUP with a v1 "memory" mount gives version 1 and the
 * caller's own cgroup directory (its path below the mount's root,
 * appended to the mount point); otherwise a cgroup2 mount gives version 2
 * and the mount point. Octal escapes in mount points (\040) are decoded.
 * Returns 0; -ENOENT when no memory controller is mounted; -ENAMETOOLONG.
 */
MUST_CHECK int sandbox_find_memcg(const char *mountinfo, const char *self_cgroup, struct sandbox_memcg *out);

/*
 * Fills PAGE (PAGE_SIZE bytes) with a version-1 Linux swap header for a
 * swap area of FILE_BYTES: zeros, then at byte 1024 the 32-bit native
 * words version = 1, last_page = FILE_BYTES / PAGE_SIZE - 1 and
 * nr_badpages = 0, the 16-byte UUID, an empty label, and the magic
 * "SWAPSPACE2" in the last 10 bytes of the page. Returns 0; -EINVAL when
 * PAGE_SIZE is not a power of two of at least 4096, or the area has fewer
 * than SANDBOX_SWAP_MIN_PAGES pages or more than 2^32.
 */
MUST_CHECK int sandbox_swap_header(void *page, size_t page_size, uint64_t file_bytes, const uint8_t uuid[16]);

/*
 * Checks that DIR can take a swap file of BYTES: it is a directory we can
 * write, on a file system that can hold swap (not tmpfs, ramfs, proc,
 * sysfs, overlayfs, squashfs or NFS -- the kernel has no swap support on
 * them, or it needs a setup engpass does not do), with BYTES +
 * SANDBOX_SWAPDIR_RESERVE available. Returns 0, -ENOTDIR / -EACCES /
 * -errno of statfs(2), -EINVAL for a file system without swap support
 * (its name in *FSNAME, static), -ENOSPC without room. FSNAME may be NULL.
 */
MUST_CHECK int sandbox_check_swapdir(const char *dir, uint64_t bytes, const char **fsname);

/* The text of a --swap option, as sandbox_swap_parse() reads it. */
enum sandbox_swap_kind {
	SANDBOX_SWAP_NONE = 0,	/* "none": no swap of its own */
	SANDBOX_SWAP_FILE,	/* "file" or "file:DIR": its own swap file */
	SANDBOX_SWAP_DEV,	/* "dev:DEVICE" */
};

struct sandbox_swap_spec {
	enum sandbox_swap_kind kind;
	const char *dir;	/* FILE: DIR, or NULL for "file" (the caller's default); points into the text */
	const char *dev;	/* DEV: the device; points into the text */
};

/*
 * Reads TEXT: "none", "file", "file:DIR" or "dev:DEVICE" (DIR and DEVICE
 * not empty). Returns 0 with OUT filled, or -EINVAL.
 */
MUST_CHECK int sandbox_swap_parse(const char *text, struct sandbox_swap_spec *out);

/* What sandbox_check_swapdev() found. */
struct sandbox_swapdev {
	bool active;		/* active swap already (then priority is its priority) */
	int priority;
	uint64_t bytes;		/* its size */
	int sig;		/* enum swapdev_sig (core/kernel/swapdev.h) */
	const char *what;	/* the signature's name, static; NULL for none */
};

/*
 * Checks that PATH can be the sandbox's swap device: a block device that
 * is active swap already, or holds a swap signature, or holds none and
 * MKSWAP_OK is set; never one with a file system, container or partition
 * table signature. Reads PROC_ROOT/swaps (NULL: "/proc") and the device's
 * start; writes nothing. Returns 0 with OUT filled, or -errno with one
 * line in ERR: -ENOTBLK, -EEXIST (a foreign signature: refused), -EINVAL
 * (no swap signature without MKSWAP_OK), -errno of stat/open/read.
 */
MUST_CHECK int sandbox_check_swapdev(const char *path, bool mkswap_ok, const char *proc_root,
				     struct sandbox_swapdev *out, char *err, size_t errlen);

/*
 * Creates the sandbox: the guardian, the cgroup with its limit, and the
 * swap file when OPTS->swap_bytes > 0 (see the top of this file). On
 * success returns 0 and sets *OUT (caller tears down and frees with
 * sandbox_destroy()). On error returns -errno, writes one line naming the
 * step and the subject into ERR (e.g. "cannot enable swap file
 * '/var/tmp/.engpass-swap-...': Invalid argument"), and has already torn
 * down whatever it made. -EPERM without root; -ENOENT when no memory
 * controller is mounted; -ENOTSUP when the v2 root does not delegate it.
 */
MUST_CHECK int sandbox_create(struct sandbox **out, const struct sandbox_opts *opts, char *err, size_t errlen);

/*
 * Forks a child that joins the sandbox (SB NULL: no cgroup, a plain
 * child) before it runs FN(ARG) and _exit()s with its return value
 * (0..255). The child first closes the guardian's socket, then waits
 * until the parent has written its PID into the cgroup's cgroup.procs, so
 * everything it allocates is charged to the sandbox. FN must be
 * async-signal-safe (see above). Returns 0 with *PID set (the caller
 * reaps it with waitpid()), or -errno (fork, or joining the cgroup, in
 * which case the child has been killed and reaped).
 */
MUST_CHECK int sandbox_spawn(struct sandbox *sb, int (*fn)(void *), void *arg, pid_t *pid);

/*
 * Moves the calling process (all its threads) into the sandbox's cgroup:
 * what it allocates from now on, and every child it forks, is charged to
 * the sandbox (memory charged before stays where it was). sandbox_leave()
 * moves it back into its own cgroup; sandbox_destroy() does that first
 * when it was not done. Returns 0 or -errno.
 */
MUST_CHECK int sandbox_enter(struct sandbox *sb);
MUST_CHECK int sandbox_leave(struct sandbox *sb);

/* Describes the sandbox's swap (file or device) into OUT. */
void sandbox_swap_info(const struct sandbox *sb, struct sandbox_swap *out);

/*
 * Names SW in RES: the parameter "swap" (kind, path, size, priority, what
 * happens to it afterwards), swap_kind, swap_size_bytes, swap_priority
 * (and swap_priority_before for a device that was active swap), and the
 * method "swap". Without a swap of its own: "swap" says so, nothing else.
 */
struct result;
void sandbox_swap_result(const struct sandbox_swap *sw, struct result *res);

/*
 * The parameter "sandbox_swappiness" of RES: ST's memory.swappiness, and
 * whether it was set from the box's vm.swappiness over what the cgroup
 * inherited (sandbox_swappiness_inherited()).
 */
struct sandbox_stat;
void sandbox_swappiness_param(const struct sandbox *sb, const struct sandbox_stat *st, struct result *res);

/* Reads the sandbox cgroup's figures into ST. Returns 0, or -errno when the cgroup cannot be read. */
MUST_CHECK int sandbox_stat(const struct sandbox *sb, struct sandbox_stat *st);

/* The cgroup version (1 or 2), its directory, the swap file path (NULL without one): owned by SB. */
int sandbox_cgroup_version(const struct sandbox *sb);
const char *sandbox_cgroup_dir(const struct sandbox *sb);
const char *sandbox_swap_path(const struct sandbox *sb);
/*
 * v1: the memory.swappiness the sandbox cgroup inherited from its parent
 * when sandbox_create() set it to the box's vm.swappiness instead (a
 * parent at 0 would keep the sandbox from swapping at all); -1 when it
 * was left alone (equal already, or v2, which has no such file).
 */
int sandbox_swappiness_inherited(const struct sandbox *sb);
/* The limit as the kernel took it (v1 rounds it to pages). */
uint64_t sandbox_limit_bytes(const struct sandbox *sb);
/* How the swap file's blocks were allocated: "fallocate" or "zero-filled"; NULL without one. Static. */
const char *sandbox_swap_alloc(const struct sandbox *sb);

/*
 * Tears the sandbox down (leave it, kill the tasks still in the cgroup,
 * remove it, swapoff and remove the swap file or restore the device), tells the guardian all is done,
 * reaps it and frees SB. Reap your own children first: the caller's
 * unreaped children are killed here but, as zombies, may keep the cgroup
 * busy for the 10 s the removal is retried. Returns 0, or the first
 * -errno with a line in ERR; in that case the guardian is not told "done"
 * and retries the whole teardown once more before this returns. NULL is a
 * no-op returning 0.
 */
MUST_CHECK int sandbox_destroy(struct sandbox *sb, char *err, size_t errlen);

#endif
