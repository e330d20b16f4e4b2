/* SPDX-License-Identifier: MIT */
/*
 * The guardian process and its actions; see guardian.h. Everything below
 * the owner-side functions runs in the forked guardian or may run in a
 * forked child, so it uses async-signal-safe calls only.
 *
 * Wire format: one SOCK_SEQPACKET message per record, so records keep
 * their boundaries and a closed owner end reads as 0 bytes:
 *   'A' id flags kind PATH\0 VALUE\0   register
 *   'C' id                             cancel
 *   'X'                                all undone, exit
 */
#include "guardian.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/xalloc.h"

struct guardian {
	int fd;
	pid_t pid;
	int next_id;
	int live;
};

struct rec_head {
	char op;
	char kind;
	int32_t id;
	int32_t flags;
};

#define REC_MAX (sizeof(struct rec_head) + GUARDIAN_PATH_MAX + GUARDIAN_VALUE_MAX)

/* ---- the actions (async-signal-safe) -------------------------------------- */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* SIGKILLs every PID listed in DIR/cgroup.procs. */
static void kill_cgroup_tasks(const char *dir)
{
	static const char procs[] = "/cgroup.procs";
	char path[GUARDIAN_PATH_MAX + sizeof(procs)], buf[4096];
	size_t dl = strlen(dir);
	ssize_t n;
	int fd;
	long pid = 0;
	bool in = false;

	if (dl + sizeof(procs) > sizeof(path))
		return;
	memcpy(path, dir, dl);
	memcpy(path + dl, procs, sizeof(procs));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				in = true;
				continue;
			}
			/* Never ourselves: the owner may sit in the cgroup it undoes. */
			if (in && pid > 1 && pid != (long)getpid())
				kill((pid_t)pid, SIGKILL);
			pid = 0;
			in = false;
		}
	}
	if (in && pid > 1 && pid != (long)getpid())
		kill((pid_t)pid, SIGKILL);
	close(fd);
}

int guardian_undo_cgroup(const char *dir)
{
	for (int i = 0; i < 500; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		kill_cgroup_tasks(dir);
		sleep_ms(20);
	}
	return -EBUSY;
}

int guardian_undo_swap(const char *path, int flags)
{
	/* EINVAL: not an active swap area. */
	if (swapoff(path) && errno != EINVAL && errno != ENOENT)
		return -errno;
	if (flags >= 0 && swapon(path, flags))
		return -errno;
	return 0;
}

int guardian_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
	size_t len = strlen(value);
	ssize_t w;

	if (fd < 0)
		return -errno;
	do
		w = write(fd, value, len);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != len)
		r = -EIO;
	if (close(fd) && !r)
		r = -errno;
	return r;
}

int guardian_undo_unlink(const char *path)
{
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

/* ---- the guardian process ------------------------------------------------- */

struct action {
	int id;			/* 0: free slot */
	int kind;
	int flags;
	char path[GUARDIAN_PATH_MAX];
	char value[GUARDIAN_VALUE_MAX];
};

static int run_action(const struct action *a)
{
	switch (a->kind) {
	case GUARDIAN_CGROUP: return guardian_undo_cgroup(a->path);
	case GUARDIAN_SWAP: return guardian_undo_swap(a->path, a->flags);
	case GUARDIAN_WRITE: return guardian_write_file(a->path, a->value);
	case GUARDIAN_UNLINK: return guardian_undo_unlink(a->path);
	default: return -EINVAL;
	}
}

/* Copies the NUL-terminated string at S (within END) to DST of N; the byte after it, or NULL. */
static const char *take(char *dst, size_t n, const char *s, const char *end)
{
	const char *z = memchr(s, '\0', (size_t)(end - s));

	if (!z || (size_t)(z - s) >= n)
		return NULL;
	memcpy(dst, s, (size_t)(z - s) + 1);
	return z + 1;
}

static void guardian_main(int fd) __attribute__((noreturn));
static void guardian_main(int fd)
{
	static struct action acts[GUARDIAN_MAX];
	static char msg[REC_MAX + 1];
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct sigaction sa;
	sigset_t none;
	ssize_t n;
	int nullfd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Hold nothing the owner's readers wait on (a pipe on stdout...). */
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			_exit(1);
		fd = 3;
	}
	if (syscall(SYS_close_range, 4U, ~0U, 0U))	/* musl has no close_range() wrapper */
		for (int i = 4; i < 1024; i++)
			close(i);
	nullfd = open("/dev/null", O_RDWR);
	if (nullfd >= 0) {
		dup2(nullfd, 0);
		dup2(nullfd, 1);
		dup2(nullfd, 2);
		if (nullfd > 3)
			close(nullfd);
	}
	for (;;) {
		struct rec_head h;

		n = recv(fd, msg, REC_MAX, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* the owner is gone */
		if ((size_t)n < sizeof(h))
			continue;
		memcpy(&h, msg, sizeof(h));
		if (h.op == 'X')
			_exit(0);
		for (int i = 0; h.op == 'C' && i < GUARDIAN_MAX; i++)
			if (acts[i].id == h.id)
				acts[i].id = 0;
		if (h.op == 'A') {
			const char *p = msg + sizeof(h), *end = msg + n;

			for (int i = 0; i < GUARDIAN_MAX; i++) {
				if (acts[i].id)
					continue;
				p = take(acts[i].path, sizeof(acts[i].path), p, end);
				if (p)
					p = take(acts[i].value, sizeof(acts[i].value), p, end);
				if (p) {
					acts[i].kind = h.kind;
					acts[i].flags = h.flags;
					acts[i].id = h.id;
				}
				break;
			}
		}
	}
	/* Kind by kind, the latest (highest id) first. */
	for (int kind = GUARDIAN_CGROUP; kind <= GUARDIAN_UNLINK; kind++) {
		for (;;) {
			int best = -1;

			for (int i = 0; i < GUARDIAN_MAX; i++)
				if (acts[i].id && acts[i].kind == kind && (best < 0 || acts[i].id > acts[best].id))
					best = i;
			if (best < 0)
				break;
			int r = run_action(&acts[best]);

			(void)r;	/* nobody is left to hear of a failure: the other actions still run */
			acts[best].id = 0;
		}
	}
	_exit(0);
}

/* ---- the owner's side ----------------------------------------------------- */

int guardian_start(struct guardian **out)
{
	struct guardian *g;
	int sv[2];
	pid_t pid;

	*out = NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		close(sv[0]);
		guardian_main(sv[1]);
	}
	close(sv[1]);
	g = xcalloc(1, sizeof(*g));
	g->fd = sv[0];
	g->pid = pid;
	*out = g;
	return 0;
}

static int send_rec(struct guardian *g, const void *buf, size_t len)
{
	while (send(g->fd, buf, len, MSG_NOSIGNAL) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int guardian_add(struct guardian *g, enum guardian_kind kind, const char *path, const char *value, int flags)
{
	static char buf[REC_MAX];	/* not reentrant: one owner thread registers */
	struct rec_head h = { 'A', (char)kind, 0, flags };
	size_t pl, vl;
	int r;

	if (!g)
		return 0;
	if (!value)
		value = "";
	pl = strlen(path);
	vl = strlen(value);
	if (kind < GUARDIAN_CGROUP || kind > GUARDIAN_UNLINK || pl >= GUARDIAN_PATH_MAX || vl >= GUARDIAN_VALUE_MAX)
		return -EINVAL;
	if (g->live >= GUARDIAN_MAX)
		return -ENOSPC;
	h.id = ++g->next_id;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), path, pl + 1);
	memcpy(buf + sizeof(h) + pl + 1, value, vl + 1);
	if ((r = send_rec(g, buf, sizeof(h) + pl + vl + 2)))
		return r;
	g->live++;
	return h.id;
}

void guardian_cancel(struct guardian *g, int id)
{
	struct rec_head h = { 'C', 0, id, 0 };

	if (!g || id <= 0)
		return;
	if (!send_rec(g, &h, sizeof(h)) && g->live > 0)
		g->live--;
}

void guardian_stop(struct guardian *g, bool done)
{
	struct rec_head h = { 'X', 0, 0, 0 };
	int st;

	if (!g)
		return;
	if (done)
		(void)send_rec(g, &h, sizeof(h));
	close(g->fd);
	while (waitpid(g->pid, &st, 0) < 0 && errno == EINTR)
		;
	free(g);
}

int guardian_fd(const struct guardian *g)
{
	return g ? g->fd : -1;
}
