/* SPDX-License-Identifier: MIT */
/*
 * O_EXCL temporary files, removed on exit and on fatal signals; the
 * contract is in tmpfile.h.
 *
 * Each registry entry is a small state machine on a lock-free atomic int:
 *
 *	FREE --claim (CAS)--> BUSY --file created--> LIVE
 *	LIVE --unlink() done--> FREE
 *	BUSY --create failed--> FREE
 *
 * The signal handler only reads LIVE entries, whose path and pid are
 * written before the state becomes LIVE (release/acquire ordering), so it
 * never sees a half-written path. Removal unlinks first and frees the
 * entry afterwards; a signal in between makes the handler unlink the same
 * path once more, which fails harmlessly with ENOENT.
 */
#include "tmpfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"

/* The handler relies on these being lock-free (so async-signal-safe). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic int must be lock-free");
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2,
	       "atomic pointers must be lock-free");

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGNALS (sizeof(handled_signals) / sizeof(handled_signals[0]))

struct tmpfile_slot {
	atomic_int state;
	pid_t pid;			/* creator; only it removes the file */
	char *path;			/* TMPFILE_PATH_MAX bytes of reg->paths */
};

/*
 * The slots' states apart from their path buffers: a claim or a signal
 * handler scans the states, which then share a page or two, and a path
 * buffer's pages are touched only when a file is named in it. (With the
 * path inside the slot, initialising the states touched all 64 pages: 256
 * KiB resident in every process that never makes a temporary file.)
 */
struct tmpfile_reg {
	struct tmpfile_slot slot[TMPFILE_MAX];
	char paths[TMPFILE_MAX][TMPFILE_PATH_MAX];
	uint64_t (*rand_fn)(void *);
	void *rand_arg;
	atomic_uint counter;	/* for the fallback name source (32 bits: lock-free on 32-bit CPUs too) */
	bool saved[NSIGNALS];		/* old action saved and replaced */
	struct sigaction old[NSIGNALS];
	struct sigaction ours;		/* the action we install, to re-arm it */
	volatile sig_atomic_t *stop;	/* soft stop: first signal only sets this */
};

/*
 * The registry the signal handlers clean up. This is the one piece of
 * static mutable state in the core, and it has to be: a signal handler is
 * called with nothing but the signal number, so a static is the only way
 * it can find the files to remove. It is set and cleared only by
 * tmpfile_install_handlers() / tmpfile_uninstall_handlers().
 */
static struct tmpfile_reg *_Atomic signal_reg;

struct tmpfile_reg *tmpfile_reg_new(void)
{
	struct tmpfile_reg *reg = xcalloc(1, sizeof(*reg));

	for (size_t i = 0; i < TMPFILE_MAX; i++) {
		atomic_init(&reg->slot[i].state, SLOT_FREE);
		reg->slot[i].path = reg->paths[i];
	}
	atomic_init(&reg->counter, 0);
	return reg;
}

void tmpfile_reg_set_random(struct tmpfile_reg *reg, uint64_t (*fn)(void *),
			    void *arg)
{
	reg->rand_fn = fn;
	reg->rand_arg = arg;
}

/* SplitMix64 finaliser: spreads a counter into well-mixed bits. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Random bits for a name. getrandom() can be missing on old router kernels
 * (ENOSYS before 3.17) or not yet seeded at boot (EAGAIN with
 * GRND_NONBLOCK); then time, pid and a counter, mixed, are good enough:
 * O_EXCL, not the name, is what makes creation safe.
 */
static uint64_t name_random(struct tmpfile_reg *reg)
{
	struct timespec ts;
	uint64_t x;

	if (reg->rand_fn)
		return reg->rand_fn(reg->rand_arg);
	if (getrandom(&x, sizeof(x), GRND_NONBLOCK) == (ssize_t)sizeof(x))
		return x;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	x ^= (uint64_t)getpid() << 40;
	return mix64(x + atomic_fetch_add(&reg->counter, 1));
}

static struct tmpfile_slot *slot_claim(struct tmpfile_reg *reg)
{
	for (size_t i = 0; i < TMPFILE_MAX; i++) {
		int expect = SLOT_FREE;

		if (atomic_compare_exchange_strong(&reg->slot[i].state, &expect,
						   SLOT_BUSY))
			return &reg->slot[i];
	}
	return NULL;
}

/* Block the handled signals in this thread; the old mask goes to *old. */
static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, handled_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/*
 * Try names in slot->path until one can be created; returns the fd or
 * -errno. Called with the handled signals blocked, and publishes the slot
 * (LIVE) before they are unblocked again.
 */
static int create_in_slot(struct tmpfile_reg *reg, struct tmpfile_slot *slot,
			  const char *dir, const char *prefix, int flags)
{
	size_t dlen = strlen(dir);
	const char *sep = dir[dlen - 1] == '/' ? "" : "/";
	pid_t pid = getpid();

	for (int tries = 0; tries < TMPFILE_TRIES; tries++) {
		unsigned long long rnd = name_random(reg) & 0xffffffffffffULL;
		int n, fd;

		n = snprintf(slot->path, TMPFILE_PATH_MAX,
			     "%s%s.engpass-%s-%ld-%012llx", dir, sep, prefix,
			     (long)pid, rnd);
		if (n < 0)
			return -EINVAL;
		if ((size_t)n >= TMPFILE_PATH_MAX)
			return -ENAMETOOLONG;
		fd = open(slot->path, flags, 0600);
		if (fd >= 0) {
			slot->pid = pid;
			atomic_store_explicit(&slot->state, SLOT_LIVE,
					      memory_order_release);
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int tmpfile_create(struct tmpfile_reg *reg, const char *dir,
		   const char *prefix, int extra_flags, int *fd_out,
		   char **path_out)
{
	int flags = O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | extra_flags;
	struct tmpfile_slot *slot;
	sigset_t old;
	int fd;

	if (!prefix)
		prefix = "tmp";
	if (!dir || !*dir || strchr(prefix, '/') || !fd_out ||
	    (extra_flags & (O_ACCMODE | O_DIRECTORY | O_PATH)))
		return -EINVAL;
	slot = slot_claim(reg);
	if (!slot)
		return -ENOSPC;
	block_signals(&old);
	fd = create_in_slot(reg, slot, dir, prefix, flags);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		atomic_store(&slot->state, SLOT_FREE);
		return fd;
	}
	*fd_out = fd;
	if (path_out)
		*path_out = xstrdup(slot->path);
	return 0;
}

/* True if slot holds a file this process created. */
static bool slot_is_ours(struct tmpfile_slot *slot, pid_t pid)
{
	return atomic_load_explicit(&slot->state, memory_order_acquire) ==
	       SLOT_LIVE && slot->pid == pid;
}

/* Unlink the slot's file and free the slot; 0 or -errno (slot kept). */
static int slot_remove(struct tmpfile_slot *slot)
{
	if (unlink(slot->path) < 0 && errno != ENOENT)
		return -errno;
	atomic_store(&slot->state, SLOT_FREE);
	return 0;
}

int tmpfile_remove(struct tmpfile_reg *reg, const char *path)
{
	pid_t pid = getpid();

	for (size_t i = 0; i < TMPFILE_MAX; i++) {
		struct tmpfile_slot *slot = &reg->slot[i];

		if (slot_is_ours(slot, pid) && strcmp(slot->path, path) == 0)
			return slot_remove(slot);
	}
	return -ENOENT;
}

/* tmpfile_remove_all() without the must-check, for tmpfile_reg_free(). */
static int remove_own(struct tmpfile_reg *reg)
{
	pid_t pid = getpid();
	int ret = 0;

	for (size_t i = 0; i < TMPFILE_MAX; i++) {
		struct tmpfile_slot *slot = &reg->slot[i];
		int r;

		if (!slot_is_ours(slot, pid))
			continue;
		r = slot_remove(slot);
		if (r < 0 && ret == 0)
			ret = r;
	}
	return ret;
}

int tmpfile_remove_all(struct tmpfile_reg *reg)
{
	return remove_own(reg);
}

/*
 * The handler: only async-signal-safe calls (getpid, unlink, raise) and
 * lock-free atomics. The action was reset to the default on entry
 * (SA_RESETHAND), and the signal is blocked while the handler runs, so
 * the raise() takes effect when it returns and kills the process.
 */
static void on_fatal_signal(int sig)
{
	struct tmpfile_reg *reg = atomic_load(&signal_reg);
	int saved_errno = errno;

	if (reg && reg->stop && !*reg->stop) {
		/*
		 * Soft stop: the first SIGINT/SIGTERM/SIGHUP asks the running
		 * benchmark to stop (it reports what it measured, then the
		 * caller cleans up and exits). Re-arm our action, which
		 * SA_RESETHAND reset, so a second signal still cleans up and
		 * kills. sigaction() is async-signal-safe.
		 */
		*reg->stop = sig;
		sigaction(sig, &reg->ours, NULL);
		errno = saved_errno;
		return;
	}
	if (reg) {
		pid_t pid = getpid();

		for (size_t i = 0; i < TMPFILE_MAX; i++)
			if (slot_is_ours(&reg->slot[i], pid))
				unlink(reg->slot[i].path);
	}
	raise(sig);
	errno = saved_errno;
}

/* Put back the actions saved by tmpfile_install_handlers(). */
static void restore_actions(struct tmpfile_reg *reg)
{
	for (size_t i = 0; i < NSIGNALS; i++) {
		if (!reg->saved[i])
			continue;
		/* restoring an action the kernel gave us cannot fail */
		sigaction(handled_signals[i], &reg->old[i], NULL);
		reg->saved[i] = false;
	}
}

int tmpfile_install_handlers(struct tmpfile_reg *reg)
{
	struct tmpfile_reg *expect = NULL;
	struct sigaction sa;
	int err;

	if (!atomic_compare_exchange_strong(&signal_reg, &expect, reg))
		return expect == reg ? 0 : -EBUSY;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&sa.sa_mask, handled_signals[i]);
	reg->ours = sa;
	for (size_t i = 0; i < NSIGNALS; i++) {
		int sig = handled_signals[i];

		reg->saved[i] = false;
		if (sigaction(sig, NULL, &reg->old[i]) < 0)
			goto fail;
		if (reg->old[i].sa_handler == SIG_IGN)
			continue;
		if (sigaction(sig, &sa, NULL) < 0)
			goto fail;
		reg->saved[i] = true;
	}
	return 0;
fail:
	err = -errno;
	restore_actions(reg);
	atomic_store(&signal_reg, NULL);
	return err;
}

void tmpfile_set_stop_flag(struct tmpfile_reg *reg, volatile sig_atomic_t *flag)
{
	reg->stop = flag;
}

int tmpfile_uninstall_handlers(struct tmpfile_reg *reg)
{
	if (!reg || atomic_load(&signal_reg) != reg)
		return -EINVAL;
	restore_actions(reg);
	atomic_store(&signal_reg, NULL);
	return 0;
}

void tmpfile_reg_free(struct tmpfile_reg *reg)
{
	if (!reg)
		return;
	/* files first: a signal arriving meanwhile still cleans up */
	remove_own(reg);
	if (atomic_load(&signal_reg) == reg) {
		restore_actions(reg);
		atomic_store(&signal_reg, NULL);
	}
	free(reg);
}
