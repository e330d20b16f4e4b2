/* SPDX-License-Identifier: MIT */
/*
 * A local server's CPU and CPU quota over a download; see fetch_server.h.
 *
 * The tree: every numeric directory of PROC_ROOT is read once per edge
 * (its stat line: ppid, times, starttime) and the descendants of the
 * server's PID are kept, breadth first. Two edges per download, so a box
 * with a few hundred processes costs a few milliseconds outside the
 * measured time (the first edge is read before the clock starts, the
 * second after the last byte).
 */
#include "bench/fetch/fetch_server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/observe/limits.h"
#include "core/kernel/proc.h"
#include "lib/xalloc.h"

struct fetch_server {
	char proc_root[256];
	pid_t pid;
	long clk_tck;
	char comm[64];
	struct limits_config lcfg;
	struct limits lim;
	struct limits_counters cg[2];
	mono_ns t[2];
	struct fetch_server_proc *procs[2];
	size_t nprocs[2];
	bool read[2], root_ok[2];
};

uint64_t fetch_server_ticks(const struct fetch_server_proc *a, size_t na, const struct fetch_server_proc *b, size_t nb,
			    unsigned *gone)
{
	uint64_t sum = 0;
	unsigned lost = 0;

	for (size_t j = 0; j < nb; j++) {
		uint64_t base = 0;

		for (size_t i = 0; i < na; i++)
			if (a[i].pid == b[j].pid && a[i].starttime == b[j].starttime) {
				base = a[i].ticks;
				break;
			}
		if (b[j].ticks > base)
			sum += b[j].ticks - base;
	}
	for (size_t i = 0; i < na; i++) {
		bool found = false;

		for (size_t j = 0; j < nb && !found; j++)
			found = a[i].pid == b[j].pid && a[i].starttime == b[j].starttime;
		lost += !found;
	}
	if (gone)
		*gone = lost;
	return sum;
}

/* /proc/PID/stat of one process; 0 or -errno. */
static int read_stat(const char *root, const char *pid, struct proc_pid_stat *ps)
{
	char path[320], buf[1024];
	ssize_t n;
	int fd, r;

	if ((r = proc_path(path, sizeof(path), "%s/%s/stat", root, pid)) < 0)
		return r;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = 0;
	return proc_pid_stat_parse(ps, buf, (size_t)n);
}

/*
 * The server process and its descendants now, into a fresh array (*OUT,
 * caller frees). Returns the count; -ESRCH when the server itself is gone.
 */
static ssize_t read_tree(struct fetch_server *s, struct fetch_server_proc **out)
{
	struct {
		pid_t pid, ppid;
		uint64_t starttime, ticks;
	} *all = NULL;
	size_t nall = 0, cap = 0, n = 0;
	struct fetch_server_proc *t = xcalloc(FETCH_SERVER_MAX_PROCS, sizeof(*t));
	struct proc_pid_stat ps;
	struct dirent *de;
	char self[24];
	DIR *d;

	*out = t;
	snprintf(self, sizeof(self), "%d", (int)s->pid);
	if (read_stat(s->proc_root, self, &ps) < 0)
		return -ESRCH;
	t[n++] = (struct fetch_server_proc){ s->pid, ps.starttime, ps.utime + ps.stime + ps.cutime + ps.cstime };
	if (!(d = opendir(s->proc_root)))
		return (ssize_t)n;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || read_stat(s->proc_root, de->d_name, &ps) < 0)
			continue;
		if (nall == cap) {
			cap = cap ? 2 * cap : 256;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[nall].pid = ps.pid;
		all[nall].ppid = ps.ppid;
		all[nall].starttime = ps.starttime;
		all[nall].ticks = ps.utime + ps.stime + ps.cutime + ps.cstime;
		nall++;
	}
	closedir(d);
	/* Breadth first: t[] itself is the queue of parents. */
	for (size_t q = 0; q < n && n < FETCH_SERVER_MAX_PROCS; q++)
		for (size_t i = 0; i < nall && n < FETCH_SERVER_MAX_PROCS; i++)
			if (all[i].ppid == t[q].pid && all[i].pid != s->pid)
				t[n++] = (struct fetch_server_proc){ all[i].pid, all[i].starttime, all[i].ticks };
	free(all);
	return (ssize_t)n;
}

int fetch_server_new(struct fetch_server **out, const char *proc_root, pid_t pid)
{
	struct fetch_server *s = xcalloc(1, sizeof(*s));
	struct proc_pid_stat ps;
	char self[24];
	int r;

	*out = NULL;
	snprintf(s->proc_root, sizeof(s->proc_root), "%s", proc_root ? proc_root : "/proc");
	s->pid = pid;
	snprintf(self, sizeof(self), "%d", (int)pid);
	if ((r = read_stat(s->proc_root, self, &ps)) < 0) {
		free(s);
		return r == -ENOENT ? -ESRCH : r;
	}
	snprintf(s->comm, sizeof(s->comm), "%s", ps.comm);
	s->clk_tck = sysconf(_SC_CLK_TCK);
	if (s->clk_tck <= 0)
		s->clk_tck = 100;
	s->lcfg.pid = pid;
	limits_discover(&s->lcfg, &s->lim);
	*out = s;
	return 0;
}

void fetch_server_free(struct fetch_server *s)
{
	if (!s)
		return;
	free(s->procs[0]);
	free(s->procs[1]);
	free(s);
}

void fetch_server_read(struct fetch_server *s, int edge)
{
	ssize_t n;

	if (edge < 0 || edge > 1)
		return;
	limits_counters_read(&s->lcfg, &s->lim, &s->cg[edge]);
	free(s->procs[edge]);
	n = read_tree(s, &s->procs[edge]);
	s->t[edge] = clock_mono();
	s->root_ok[edge] = n > 0;
	s->nprocs[edge] = n > 0 ? (size_t)n : 0;
	s->read[edge] = true;
}

void fetch_server_view(const struct fetch_server *s, struct fetch_server_view *v)
{
	const struct limits_counters *a = &s->cg[0], *b = &s->cg[1];

	memset(v, 0, sizeof(*v));
	v->pid = s->pid;
	snprintf(v->comm, sizeof(v->comm), "%s", s->comm);
	v->clk_tck = s->clk_tck;
	v->cpu_s = v->seconds = v->cg_usage_pct = v->periods = v->throttled = v->throttled_s = NAN;
	v->quota_state = (int)s->lim.cpu_quota.state;
	v->quota_cpus = s->lim.cpu_quota.value;
	snprintf(v->quota_source, sizeof(v->quota_source), "%s",
		 s->lim.cpu_quota.state == LIMIT_UNKNOWN ? s->lim.cpu_quota.why : s->lim.cpu_quota.source);
	snprintf(v->cg_usage_source, sizeof(v->cg_usage_source), "%s", s->lim.cpu_usage_source);
	if (!s->read[0] || !s->read[1])
		return;
	v->seconds = (double)(s->t[1] - s->t[0]) / 1e9;
	if (s->root_ok[0] && s->root_ok[1]) {
		v->ok = true;
		v->ticks = fetch_server_ticks(s->procs[0], s->nprocs[0], s->procs[1], s->nprocs[1], &v->gone);
		v->nproc = (unsigned)s->nprocs[1];
		v->cpu_s = (double)v->ticks / (double)s->clk_tck;
	}
	if (a->cpu_ok && b->cpu_ok && b->cpu_periods >= a->cpu_periods) {
		v->periods = (double)(b->cpu_periods - a->cpu_periods);
		v->throttled = (double)(b->cpu_throttled - a->cpu_throttled);
		v->throttled_s = (double)(b->cpu_throttled_ns - a->cpu_throttled_ns) / 1e9;
		if (a->cpu_usage_ns != UINT64_MAX && b->cpu_usage_ns != UINT64_MAX && b->cpu_usage_ns >= a->cpu_usage_ns &&
		    v->seconds > 0)
			v->cg_usage_pct = 100.0 * (double)(b->cpu_usage_ns - a->cpu_usage_ns) / 1e9 / v->seconds;
	}
}

int fetch_tcp_rtt(int fd, uint32_t *srtt_us, uint32_t *min_rtt_us)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -errno;
	if (len < offsetof(struct tcp_info, tcpi_rttvar))
		return -ENODATA;
	*srtt_us = ti.tcpi_rtt;
	/* ~0U: no sample yet; a kernel before 4.6 returns a shorter struct. */
	*min_rtt_us = len >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof(ti.tcpi_min_rtt) &&
				      ti.tcpi_min_rtt != ~0U ? ti.tcpi_min_rtt : 0;
	return 0;
}
