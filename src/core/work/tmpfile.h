/* SPDX-License-Identifier: MIT */
/*
 * Temporary files that engpass creates for disk tests, and removes again
 * on every way out: normal exit, error paths, and SIGINT/SIGTERM/SIGHUP.
 * DESIGN.md: "engpass only writes files it created itself (O_EXCL temp
 * names), removes them on exit, on error and on SIGINT/SIGTERM".
 *
 * Files are named DIR/.engpass-PREFIX-PID-RANDOM and created with
 * O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC and mode 0600: an existing file
 * or symlink of that name is never opened, truncated or followed, another
 * name is tried instead. RANDOM is 12 hex digits from getrandom() (or,
 * where that is missing or unseeded, from the time, pid and a counter).
 *
 * A registry (struct tmpfile_reg) remembers every file created through
 * it, and only those can be removed through it: tmpfile_remove() of a
 * path it did not create is refused. Each entry also remembers the process
 * that created it; a child forked with a copy of the registry neither
 * removes nor unregisters its parent's files, only its own.
 *
 * Signals. A signal handler may not call malloc() or take a lock, and
 * needs some way to find the registry. So the registry is a fixed array of
 * TMPFILE_MAX entries with TMPFILE_PATH_MAX-byte path buffers, each entry
 * guarded by a lock-free atomic state, and tmpfile_install_handlers()
 * stores a pointer to it in the one piece of static mutable state in the
 * core: a handler cannot be given a context argument, so this pointer is
 * the only way it can reach the registry. Only one registry can be
 * installed at a time. The handler unlink()s (async-signal-safe) every
 * path the process registered, restores the default action and re-raises
 * the signal, so the process still dies of it and its exit status says so.
 *
 * Threads: creating and removing from several threads at once is safe.
 * tmpfile_create() blocks the three signals in the calling thread while
 * the file exists but is not yet registered; a signal delivered to another
 * thread in that window of a few instructions can leave that one file
 * behind, so threads other than the main one should block SIGINT, SIGTERM
 * and SIGHUP (the usual practice anyway).
 *
 * Typical use in the CLI:
 *	reg = tmpfile_reg_new();
 *	tmpfile_install_handlers(reg);     (check the result)
 *	... benchmarks call tmpfile_create(reg, ...) / tmpfile_remove() ...
 *	tmpfile_remove_all(reg);           (also on error paths)
 *	tmpfile_reg_free(reg);
 */
#ifndef ENGPASS_TMPFILE_H
#define ENGPASS_TMPFILE_H

#include <signal.h>
#include <stdint.h>

#include "lib/compiler.h"

/* Registry capacity: files at once, and bytes per path including the NUL. */
#define TMPFILE_MAX 64
#define TMPFILE_PATH_MAX 4096

/* Names tried before tmpfile_create() gives up with -EEXIST. */
#define TMPFILE_TRIES 100

struct tmpfile_reg;

/*
 * A new, empty registry (about 260 KiB of address space, allocated with
 * xcalloc, of which a path buffer's pages become resident only when a file
 * is named in it; never NULL). Caller frees with tmpfile_reg_free().
 */
struct tmpfile_reg *tmpfile_reg_new(void);

/*
 * Remove the files this process still has registered (errors ignored;
 * call tmpfile_remove_all() first to see them), uninstall the signal
 * handlers if this registry has them, and free reg. NULL is a no-op.
 */
void tmpfile_reg_free(struct tmpfile_reg *reg);

/*
 * Create DIR/.engpass-PREFIX-PID-RANDOM with O_CREAT | O_EXCL | O_RDWR |
 * O_CLOEXEC | extra_flags and mode 0600 (less if the umask says so), and
 * register it for removal. extra_flags is for flags such as O_DIRECT,
 * O_DSYNC, O_SYNC or O_NOATIME; access-mode bits, O_DIRECTORY and O_PATH
 * are refused. prefix (NULL: "tmp") names the user, e.g. "disk"; it may
 * not contain '/'.
 * On success returns 0, sets *fd_out to the open descriptor (the caller
 * closes it) and, if path_out is not NULL, *path_out to the path (caller
 * frees with free()).
 * Errors: -EINVAL (bad argument; also when the file system refuses an
 * extra flag, as tmpfs does O_DIRECT), -ENOSPC (registry full),
 * -ENAMETOOLONG, -EEXIST (TMPFILE_TRIES names all taken), or the -errno of
 * open(), e.g. -ENOENT, -EACCES, -EROFS. On error nothing is created or
 * registered and the outputs are untouched.
 */
MUST_CHECK int tmpfile_create(struct tmpfile_reg *reg, const char *dir,
			      const char *prefix, int extra_flags,
			      int *fd_out, char **path_out);

/*
 * Remove the file at path (as returned by tmpfile_create(), compared as a
 * string) and unregister it. Open descriptors stay the caller's to close.
 * Returns 0 when the file is gone (also if someone else removed it
 * first), -ENOENT when this process did not register path (nothing is
 * touched), or the -errno of unlink(), in which case the file stays
 * registered so that a later tmpfile_remove_all() tries again.
 */
MUST_CHECK int tmpfile_remove(struct tmpfile_reg *reg, const char *path);

/*
 * Remove and unregister every file this process registered in reg. Call
 * it on normal exit and on error paths. Returns 0, or the first -errno of
 * unlink() (files that failed stay registered; the others are removed).
 */
MUST_CHECK int tmpfile_remove_all(struct tmpfile_reg *reg);

/*
 * Make SIGINT, SIGTERM and SIGHUP remove reg's files and then kill the
 * process with the same signal. A signal that is ignored (SIG_IGN, e.g.
 * SIGHUP under nohup) stays ignored; other previous actions are saved and
 * replaced. Returns 0 (also when reg is installed already), -EBUSY when
 * another registry is installed, or the -errno of sigaction().
 */
MUST_CHECK int tmpfile_install_handlers(struct tmpfile_reg *reg);

/*
 * Soft stop. With FLAG set (not NULL, and *FLAG 0), the first SIGINT,
 * SIGTERM or SIGHUP only stores the signal number in *FLAG and returns, so
 * a running benchmark can notice (its blocking calls fail with EINTR, as
 * the handlers are installed without SA_RESTART), stop, and report what
 * it measured; the caller then removes the files and exits 128 + signal.
 * A second signal removes the files and kills the process as usual.
 * FLAG must outlive the installed handlers; NULL turns soft stop off.
 */
void tmpfile_set_stop_flag(struct tmpfile_reg *reg, volatile sig_atomic_t *flag);

/*
 * Restore the signal actions saved by tmpfile_install_handlers() and
 * forget reg. Returns 0, or -EINVAL when reg is not the installed
 * registry.
 */
MUST_CHECK int tmpfile_uninstall_handlers(struct tmpfile_reg *reg);

/*
 * For tests: take the RANDOM part of names from fn(arg) (low 48 bits)
 * instead of getrandom(), so that name collisions can be produced on
 * purpose. fn NULL restores getrandom().
 */
void tmpfile_reg_set_random(struct tmpfile_reg *reg, uint64_t (*fn)(void *),
			    void *arg);

#endif
