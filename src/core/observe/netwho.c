/* SPDX-License-Identifier: MIT */
/* Whose TCP traffic it was: see netwho.h. */
#include "core/observe/netwho.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel/proc.h"
#include "core/kernel/sockdiag.h"
#include "lib/xalloc.h"

/* Processes whose traffic is kept over the window (the busiest by bytes). */
#define NETWHO_PROCS 16

/* A socket seen in the span: its bytes at the start (0 when born in it) and at its last reading. */
struct seen {
	uint64_t inode;
	uint64_t first, last;
	bool work;		/* found among the work's fds at a reading */
	bool owned;		/* charged at the end */
};

struct netwho {
	pid_t work;
	bool own;
	char *proc;
	struct sockdiag *sd;
	bool tried;
	char why[128];
	struct sockdiag_flow *f;	/* one reading */
	struct seen *sn;		/* NETWHO_FLOWS, sorted by inode */
	size_t nsn;
	bool open_span;			/* the start edge was read */
	uint64_t last_tick_ns;
	bool any;		/* a span was read at both edges */
	double total, work_bytes;
	struct {
		int pid;
		char comm[16];
		double bytes;
	} acc[NETWHO_PROCS];
	size_t nacc;
};

struct netwho *netwho_new(pid_t work_pid, const char *proc_root)
{
	struct netwho *w = xcalloc(1, sizeof(*w));

	w->own = work_pid <= 0 || work_pid == getpid();
	w->work = w->own ? getpid() : work_pid;
	w->proc = xstrdup(proc_root && proc_root[0] ? proc_root : "/proc");
	return w;
}

void netwho_free(struct netwho *w)
{
	if (!w)
		return;
	sockdiag_close(w->sd);
	free(w->proc);
	free(w->f);
	free(w->sn);
	free(w);
}

void netwho_release(struct netwho *w)
{
	if (!w)
		return;
	sockdiag_close(w->sd);
	w->sd = NULL;
	w->tried = true;	/* not opened again */
	free(w->f);
	free(w->sn);
	w->f = NULL;
	w->sn = NULL;
	w->nsn = 0;
	w->open_span = false;
}

const char *netwho_why(const struct netwho *w)
{
	return w->why;
}

static int dump(struct netwho *w, struct sockdiag_flow *out)
{
	if (!w->sd) {
		int r;

		if (w->tried)
			return -1;
		w->tried = true;
		r = w->own ? sockdiag_open(&w->sd, w->why, sizeof(w->why))
			   : sockdiag_open_ns(&w->sd, w->work, w->why, sizeof(w->why));
		if (r)
			return -1;
	}
	return sockdiag_tcp_flows(w->sd, out, NETWHO_FLOWS, NULL, w->why, sizeof(w->why));
}

static struct seen *find_seen(struct seen *m, size_t n, uint64_t inode);

static int seen_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct seen *)a)->inode, y = ((const struct seen *)b)->inode;

	return x < y ? -1 : x > y;
}

/* "socket:[12345]" -> 12345; 0 for anything else. */
static uint64_t socket_inode(const char *link);

/*
 * The sockets seen among PID's fds: each one found (socket:[INODE]) is
 * passed to FN with ARG. Unreadable (another user's process, gone): none.
 */
static void socket_fds(const struct netwho *w, int pid, void (*fn)(struct seen *m, void *arg), void *arg)
{
	char path[PATH_MAX], lp[PATH_MAX], link[64];
	struct dirent *fe;
	DIR *fds;

	if (proc_path(path, sizeof(path), "%s/%d/fd", w->proc, pid) || !(fds = opendir(path)))
		return;
	while ((fe = readdir(fds))) {
		struct seen *m;
		ssize_t k;

		if (fe->d_name[0] == '.' || proc_path(lp, sizeof(lp), "%s/%s", path, fe->d_name))
			continue;
		k = readlink(lp, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		if ((m = find_seen(w->sn, w->nsn, socket_inode(link))))
			fn(m, arg);
	}
	closedir(fds);
}

static void mark_one(struct seen *m, void *arg)
{
	(void)arg;
	m->work = true;
}

/* The work's sockets among those seen: its own fds (its children's are found at the end). */
static void mark_work(struct netwho *w)
{
	socket_fds(w, (int)w->work, mark_one, NULL);
}

/*
 * One reading merged into the sockets seen: START makes it the span's
 * baseline; later readings update each socket's last bytes and add the
 * sockets born since (from 0). A socket closed between readings keeps its
 * last reading: that is what it is charged.
 */
static void reading(struct netwho *w, bool start)
{
	size_t added = 0, base;
	int n;

	if (!w->f)
		w->f = xmalloc(NETWHO_FLOWS * sizeof(*w->f));
	if (!w->sn)
		w->sn = xmalloc(NETWHO_FLOWS * sizeof(*w->sn));
	n = dump(w, w->f);
	if (n < 0) {
		if (start)
			w->open_span = false;
		return;
	}
	if (start) {
		for (int i = 0; i < n; i++)
			w->sn[i] = (struct seen){ .inode = w->f[i].inode, .first = w->f[i].bytes, .last = w->f[i].bytes };
		w->nsn = (size_t)n;
		w->open_span = true;
		return;
	}
	base = w->nsn;
	for (int i = 0; i < n; i++) {
		struct seen *m = find_seen(w->sn, base, w->f[i].inode);

		if (m) {
			m->last = w->f[i].bytes;
		} else if (w->nsn < NETWHO_FLOWS) {
			w->sn[w->nsn++] = (struct seen){ .inode = w->f[i].inode, .last = w->f[i].bytes };
			added++;
		}
	}
	if (added)
		qsort(w->sn, w->nsn, sizeof(*w->sn), seen_cmp);
	mark_work(w);
}

void netwho_begin(struct netwho *w)
{
	reading(w, true);
}

void netwho_tick(struct netwho *w, uint64_t now_ns)
{
	if (!w || !w->open_span || now_ns - w->last_tick_ns < NETWHO_TICK_NS)
		return;
	w->last_tick_ns = now_ns;
	reading(w, false);
}

static struct seen *find_seen(struct seen *m, size_t n, uint64_t inode)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].inode == inode)
			return &m[mid];
		if (m[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static uint64_t socket_inode(const char *link)
{
	uint64_t v = 0;

	if (strncmp(link, "socket:[", 8))
		return 0;
	for (link += 8; *link >= '0' && *link <= '9'; link++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*link - '0');
	}
	return *link == ']' ? v : 0;
}

/* The comm and parent of PID from PROC/PID/stat; false when unreadable. */
static bool stat_of(const struct netwho *w, int pid, char *comm, size_t len, int *ppid)
{
	char path[PATH_MAX], buf[512];
	const char *l, *r;
	ssize_t n;
	int fd;

	if (proc_path(path, sizeof(path), "%s/%d/stat", w->proc, pid))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l || sscanf(r + 1, " %*c %d", ppid) != 1)
		return false;
	snprintf(comm, len, "%.*s", (int)(r - l - 1 < 15 ? r - l - 1 : 15), l + 1);
	return true;
}

/* Charges BYTES of process PID to the work or to its entry among the others. */
static void charge(struct netwho *w, int pid, double bytes)
{
	char comm[16] = "?";
	int ppid = 0;
	size_t i;

	(void)stat_of(w, pid, comm, sizeof(comm), &ppid);
	if (pid == w->work || ppid == w->work) {
		w->work_bytes += bytes;
		return;
	}
	for (i = 0; i < w->nacc && w->acc[i].pid != pid; i++)
		;
	if (i == w->nacc) {
		if (w->nacc < NETWHO_PROCS) {
			w->nacc++;
		} else {
			/* Full: the entry with the fewest bytes makes room when this one has more. */
			size_t least = 0;

			for (size_t k = 1; k < w->nacc; k++)
				if (w->acc[k].bytes < w->acc[least].bytes)
					least = k;
			if (w->acc[least].bytes >= bytes)
				return;
			i = least;
		}
		w->acc[i].pid = pid;
		w->acc[i].bytes = 0;
	}
	memcpy(w->acc[i].comm, comm, sizeof(comm));
	w->acc[i].bytes += bytes;
}

/* One process's share of the sockets that moved, charged to it once each. */
struct owned_acc {
	double bytes;
	size_t found;
};

static void own_one(struct seen *m, void *arg)
{
	struct owned_acc *a = arg;

	if (m->owned || m->last == m->first)
		return;
	m->owned = true;
	a->bytes += (double)(m->last > m->first ? m->last - m->first : m->last);
	a->found++;
}

/* Every process's fds against the sockets that moved: each socket's bytes to its first owner. */
static void owners(struct netwho *w, size_t left)
{
	struct dirent *de;
	DIR *d = opendir(w->proc);

	if (!d)
		return;
	while (left && (de = readdir(d))) {
		struct owned_acc a = { 0, 0 };
		int pid = 0;

		for (const char *c = de->d_name; *c; c++) {
			if (*c < '0' || *c > '9' || pid > INT_MAX / 10 - 1) {
				pid = 0;
				break;
			}
			pid = pid * 10 + (*c - '0');
		}
		if (pid <= 0)
			continue;
		socket_fds(w, pid, own_one, &a);
		left -= a.found < left ? a.found : left;
		if (a.bytes > 0)
			charge(w, pid, a.bytes);
	}
	closedir(d);
}

void netwho_end(struct netwho *w)
{
	size_t left = 0;

	if (!w->open_span)
		return;
	reading(w, false);
	/* The work's own sockets (found at a reading, open or closed since) first; the rest by owner. */
	for (size_t i = 0; i < w->nsn; i++) {
		struct seen *m = &w->sn[i];
		/* Counters that went back: a new socket on a reused inode, all of it. */
		uint64_t d = m->last >= m->first ? m->last - m->first : m->last;

		if (!d)
			continue;
		w->total += (double)d;
		if (m->work) {
			m->owned = true;
			w->work_bytes += (double)d;
		} else {
			left++;
		}
	}
	w->any = true;
	w->open_span = false;
	if (left)
		owners(w, left);
}

void netwho_view(const struct netwho *w, struct sysview *v)
{
	bool used[NETWHO_PROCS] = { false };

	if (!w || !w->any)
		return;
	v->tcp_bytes = w->total;
	v->tcp_work_bytes = w->work_bytes;
	for (int k = 0; k < SYSVIEW_OTHERS; k++) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < w->nacc; i++)
			if (!used[i] && (best == SIZE_MAX || w->acc[i].bytes > w->acc[best].bytes))
				best = i;
		if (best == SIZE_MAX)
			break;
		used[best] = true;
		v->tcp_others[k].pid = w->acc[best].pid;
		memcpy(v->tcp_others[k].comm, w->acc[best].comm, sizeof(v->tcp_others[k].comm));
		v->tcp_others[k].bytes = w->acc[best].bytes;
	}
}
