/* SPDX-License-Identifier: MIT */
/*
 * guardian: a small process that undoes what its owner changed on the box
 * when the owner dies without undoing it itself -- SIGKILL, a crash, a
 * second Ctrl-C. The owner registers each change right after making it
 * (one send(2) on a socket pair); when the owner's end closes without the
 * "all undone" message, the guardian undoes every change still
 * registered, then exits. Used by the memory sandbox (its cgroup, its swap
 * file or device) and by the disk benchmark's queue settings.
 *
 * The actions, run in this order (within one kind, the latest first):
 *   1. GUARDIAN_CGROUP  kill the tasks of cgroup directory PATH and remove it
 *                       (retried for 10 s while it is busy)
 *   2. GUARDIAN_SWAP    swapoff(2) PATH (not being active swap is fine); when
 *                       registered with swapon flags >= 0, swapon(2) it
 *                       again with those flags: a device's previous state
 *   3. GUARDIAN_WRITE   write the saved VALUE back to the existing file PATH
 *                       (a sysfs attribute such as queue/nr_requests)
 *   4. GUARDIAN_UNLINK  remove the file PATH
 * so a cgroup's tasks are gone before their swap is disabled, and a swap
 * file is disabled before it is removed.
 *
 * The guardian ignores SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE, holds
 * no descriptor but its socket (stdin/out/err are /dev/null), and keeps at
 * most GUARDIAN_MAX actions. The owner may have threads (the sampler), so
 * the guardian, forked from it, uses only async-signal-safe calls: plain
 * system calls on paths it was sent, static buffers, no stdio, no
 * allocation. The same holds for guardian_undo_*(), which the owner calls
 * on its normal path and which may run in a forked child.
 *
 * A child forked by the owner inherits the socket (fork does not honour
 * O_CLOEXEC): while such a child lives, the guardian does not see its
 * owner die. Close guardian_fd() in children that may outlive the owner.
 *
 * Needs whatever the actions need (root for cgroups, swap and sysfs).
 */
#ifndef ENGPASS_GUARDIAN_H
#define ENGPASS_GUARDIAN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

/* Most actions registered at once. */
#define GUARDIAN_MAX 32
/* Longest path and saved value. */
#define GUARDIAN_PATH_MAX 4096
#define GUARDIAN_VALUE_MAX 256

enum guardian_kind {
	GUARDIAN_CGROUP = 1,
	GUARDIAN_SWAP,
	GUARDIAN_WRITE,
	GUARDIAN_UNLINK,
};

struct guardian;

/* Forks the guardian. Returns 0 with *OUT set (end it with guardian_stop()), or -errno. */
MUST_CHECK int guardian_start(struct guardian **out);

/*
 * Registers an action: KIND on PATH; VALUE is the saved text for
 * GUARDIAN_WRITE (NULL otherwise); FLAGS the swapon(2) flags to re-enable
 * a GUARDIAN_SWAP path with, or -1 to leave it off. Returns an id > 0 for
 * guardian_cancel(), or -EINVAL (a path or value too long, a bad kind),
 * -ENOSPC (GUARDIAN_MAX actions registered), -errno of send(2). G NULL:
 * returns 0 and does nothing (no guardian, nothing to cancel).
 */
MUST_CHECK int guardian_add(struct guardian *g, enum guardian_kind kind, const char *path, const char *value,
			    int flags);

/* Forgets action ID (the owner undid it itself). A bad or 0 ID is a no-op. */
void guardian_cancel(struct guardian *g, int id);

/*
 * Ends the guardian and frees G. DONE: it is told nothing is left and
 * exits at once. Otherwise it undoes every action still registered before
 * it exits; either way this waits for it. NULL is a no-op.
 */
void guardian_stop(struct guardian *g, bool done);

/* The owner's end of the socket (to close in a forked child), -1 for NULL. */
int guardian_fd(const struct guardian *g);

/*
 * The actions themselves, for the owner's normal path (async-signal-safe).
 * Each returns 0 (also when there was nothing to undo: no such cgroup,
 * PATH not active swap, no such file) or -errno.
 */
MUST_CHECK int guardian_undo_cgroup(const char *dir);
MUST_CHECK int guardian_undo_swap(const char *path, int flags);
MUST_CHECK int guardian_write_file(const char *path, const char *value);
MUST_CHECK int guardian_undo_unlink(const char *path);

#endif
