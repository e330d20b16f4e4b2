/* SPDX-License-Identifier: MIT */
/*
 * procwatch: the watch command's reader of /proc; the behaviour and the
 * reasons for it are described in procwatch.h.
 *
 * Two snapshots are kept and used alternately (the newest and the one
 * before it); threads are kept in an array sorted by TID, rebuilt at each
 * reading and matched to the previous one by TID and start time, so a
 * reused TID starts from zero instead of producing a negative delta.
 */
#include "core/kernel/procwatch.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/kernel/proc.h"
#include "lib/xalloc.h"

struct pw_thread {
	pid_t tid;
	int cpu;		/* last CPU it ran on; -1 unknown */
	uint64_t start;		/* starttime; with tid, identifies the thread */
	uint64_t ticks;		/* utime + stime at the last reading */
	uint64_t cum;		/* ticks during the watch */
	uint64_t run_ns;	/* schedstat run time at the last reading; PROC_NONE unknown */
	uint64_t cum_run;	/* schedstat run time during the watch */
	char comm[64];
};

struct pw_snap {
	uint64_t t;
	struct proc_stat stat;
	struct proc_netdev net;
	struct proc_diskstats disk;
	struct proc_pid_stat pid;
	bool net_ok, disk_ok, pid_ok;
};

struct procwatch {
	char *root;
	pid_t pid;
	char iface[PROC_NAME_MAX];
	char disk[PROC_NAME_MAX];
	bool want_iface, want_disk;
	long clk_tck, page_size;
	int ncpu_conf;
	int fd_stat, fd_net, fd_disk, fd_pid;
	struct proc_buf buf;
	struct pw_snap snap[2];
	int cur;		/* index of the newest snapshot */
	bool have_base;
	bool gone;
	uint64_t t0;
	uint64_t pid_start;	/* starttime of the process at procwatch_new() */

	int slots;
	float *busy, *softirq, *steal;
	struct procwatch_cpu_ticks *cpu;
	uint64_t *thr_by_cpu;	/* over the watch */
	uint64_t *iv_by_cpu;	/* this interval */
	double *run_on;		/* schedstat seconds by CPU, this interval */
	double *ksi_s;		/* each CPU's ksoftirqd's seconds this interval; NaN none */
	int *ksi_fd;		/* its schedstat, open; -1 none */
	uint64_t *ksi_prev;	/* its run time at the last reading; PROC_NONE none */

	struct pw_thread *thr, *thr_next;
	size_t nthr, thr_cap;

	struct procwatch_summary sum;
};

static int open_rel(const char *root, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = errno;

	free(path);
	return fd < 0 ? -err : fd;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static bool is_zombie(char state)
{
	return state == 'Z' || state == 'X' || state == 'x';
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Reads ROOT/PID/task/TID/stat into *PS; 0 or -errno. */
static int read_task(struct procwatch *pw, const char *tid, struct proc_pid_stat *ps)
{
	char *path = xasprintf("%s/%d/task/%s/stat", pw->root, (int)pw->pid, tid);
	int r = proc_buf_read_file(&pw->buf, path);

	free(path);
	if (r)
		return r;
	return proc_pid_stat_parse(ps, pw->buf.data, pw->buf.len);
}

/* The run time of ROOT/PID/task/TID/schedstat, ns; PROC_NONE when it cannot be read. */
static uint64_t read_sched(struct procwatch *pw, const char *tid)
{
	char *path = xasprintf("%s/%d/task/%s/schedstat", pw->root, (int)pw->pid, tid);
	uint64_t run = PROC_NONE, wait;
	int r = proc_buf_read_file(&pw->buf, path);

	free(path);
	if (!r && proc_schedstat_parse(pw->buf.data, pw->buf.len, &run, &wait))
		run = PROC_NONE;
	return run;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct pw_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static const struct pw_thread *find_thread(const struct pw_thread *v, size_t n, pid_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].tid == tid)
			return &v[mid];
		if (v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Lists the process's threads into pw->thr_next (sorted by TID). Returns
 * the number of threads that are not zombies, or -errno when the task
 * directory cannot be listed (the process is gone).
 */
static int list_threads(struct procwatch *pw, size_t *n)
{
	char *path = xasprintf("%s/%d/task", pw->root, (int)pw->pid);
	DIR *d = opendir(path);
	struct dirent *de;
	unsigned untracked = 0;
	int live = 0, err = errno;

	free(path);
	*n = 0;
	if (!d)
		return -err;
	while ((de = readdir(d))) {
		struct proc_pid_stat ps;
		struct pw_thread *t;

		if (!all_digits(de->d_name))
			continue;
		if (*n == PROCWATCH_MAX_THREADS) {
			untracked++;
			continue;
		}
		/* A thread that exited since the listing is simply not there. */
		if (read_task(pw, de->d_name, &ps) || is_zombie(ps.state))
			continue;
		if (*n == pw->thr_cap) {
			pw->thr_cap = pw->thr_cap ? 2 * pw->thr_cap : 16;
			pw->thr = xrealloc(pw->thr, pw->thr_cap * sizeof(*pw->thr));
			pw->thr_next = xrealloc(pw->thr_next, pw->thr_cap * sizeof(*pw->thr_next));
		}
		t = &pw->thr_next[(*n)++];
		t->tid = ps.pid;
		t->cpu = ps.processor;
		t->start = ps.starttime;
		t->ticks = ps.utime + ps.stime;
		t->cum = 0;
		t->run_ns = read_sched(pw, de->d_name);
		t->cum_run = 0;
		memcpy(t->comm, ps.comm, sizeof(t->comm));
		live++;
	}
	closedir(d);
	if (untracked > pw->sum.threads_untracked)
		pw->sum.threads_untracked = untracked;
	if (*n > 1)
		qsort(pw->thr_next, *n, sizeof(*pw->thr_next), cmp_thread);
	return live;
}

/*
 * Matches the new thread list to the previous one and accounts each
 * thread's CPU time since the previous reading (BASE: the first reading,
 * nothing to account). Fills the interval's thread fields.
 */
static void account_threads(struct procwatch *pw, size_t n, bool base, double dt, struct procwatch_interval *out)
{
	uint64_t top = 0, most = 0, run = 0;
	double run_most = 0;
	bool sched = n > 0;
	struct pw_thread *swap;

	memset(pw->iv_by_cpu, 0, (size_t)pw->slots * sizeof(*pw->iv_by_cpu));
	for (int c = 0; c < pw->slots; c++)
		pw->run_on[c] = 0;
	for (size_t i = 0; i < n && !base; i++) {
		struct pw_thread *t = &pw->thr_next[i];
		const struct pw_thread *old = find_thread(pw->thr, pw->nthr, t->tid);
		uint64_t d, dr = 0;
		bool same = old && old->start == t->start;

		if (same) {
			d = t->ticks >= old->ticks ? t->ticks - old->ticks : 0;
			t->cum = old->cum + d;
		} else {
			/* Born during the interval: all its time is in it. */
			d = t->ticks;
			t->cum = d;
		}
		if (t->run_ns == PROC_NONE || (same && old->run_ns == PROC_NONE)) {
			sched = false;
		} else {
			dr = same ? (t->run_ns >= old->run_ns ? t->run_ns - old->run_ns : 0) : t->run_ns;
			t->cum_run = (same ? old->cum_run : 0) + dr;
			run += dr;
		}
		if (dr && t->cpu >= 0 && t->cpu < pw->slots)
			pw->run_on[t->cpu] += (double)dr / 1e9;
		if (t->cpu >= 0 && t->cpu < pw->slots) {
			pw->iv_by_cpu[t->cpu] += d;
			pw->thr_by_cpu[t->cpu] += d;
			pw->sum.thread_ticks += d;
		}
		if (d > top || (!out->top_tid && d == top)) {
			top = d;
			out->top_tid = t->tid;
		}
		if (t->cum > pw->sum.top_ticks || (!pw->sum.top_tid && t->cum == pw->sum.top_ticks)) {
			pw->sum.top_ticks = t->cum;
			pw->sum.top_tid = t->tid;
			pw->sum.top_cpu = t->cpu;
			memcpy(pw->sum.top_comm, t->comm, sizeof(pw->sum.top_comm));
		} else if (t->tid == pw->sum.top_tid) {
			pw->sum.top_cpu = t->cpu;
		}
	}
	if (!base && out->top_tid && dt > 0)
		out->top_tid_cpu_pct = 100.0 * (double)top / (double)pw->clk_tck / dt;
	for (int c = 0; c < pw->slots; c++) {
		if (pw->iv_by_cpu[c] > most) {
			most = pw->iv_by_cpu[c];
			out->proc_top_cpu = c;
		}
		if (pw->run_on[c] > run_most) {
			run_most = pw->run_on[c];
			out->proc_run_top_cpu = c;
		}
	}
	if (!base && sched) {
		out->proc_run_s = (double)run / 1e9;
		pw->sum.run_ns += run;
		pw->sum.have_schedstat = true;
	}
	swap = pw->thr;
	pw->thr = pw->thr_next;
	pw->thr_next = swap;
	pw->nthr = n;
}

/* True when the process with the given stat is gone for our purposes. */
static bool proc_is_gone(struct procwatch *pw, const struct pw_snap *s, size_t *nthreads, int *live)
{
	*live = -1;
	if (!s->pid_ok || s->pid.starttime != pw->pid_start)
		return true;
	*live = list_threads(pw, nthreads);
	if (*live < 0)
		return true;
	/* A zombie leader whose other threads still run is alive. */
	return is_zombie(s->pid.state) && *live == 0;
}

static void nan_row(float *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = NAN;
}

/* Reads the files into snapshot S; 0, or the error of /proc/stat. */
static int take(struct procwatch *pw, struct pw_snap *s, uint64_t now)
{
	int r;

	s->t = now;
	r = proc_buf_pread(&pw->buf, pw->fd_stat);
	if (!r)
		r = proc_stat_parse(&s->stat, pw->buf.data, pw->buf.len);
	if (r)
		return r;
	s->net_ok = pw->fd_net >= 0 && !proc_buf_pread(&pw->buf, pw->fd_net) &&
		    !proc_netdev_parse(&s->net, pw->buf.data, pw->buf.len);
	s->disk_ok = pw->fd_disk >= 0 && !proc_buf_pread(&pw->buf, pw->fd_disk) &&
		     !proc_diskstats_parse(&s->disk, pw->buf.data, pw->buf.len);
	s->pid_ok = false;
	if (pw->fd_pid >= 0 && !pw->gone) {
		s->pid_ok = !proc_buf_pread(&pw->buf, pw->fd_pid) &&
			    !proc_pid_stat_parse(&s->pid, pw->buf.data, pw->buf.len);
		if (!s->pid_ok)
			close_fd(&pw->fd_pid);
	}
	return 0;
}

static const struct proc_disk *find_disk(const struct proc_diskstats *ds, const char *name)
{
	for (size_t i = 0; i < ds->n; i++)
		if (!strcmp(ds->disk[i].name, name))
			return &ds->disk[i];
	return NULL;
}

static void cpu_part(struct procwatch *pw, const struct pw_snap *a, const struct pw_snap *b,
		     struct procwatch_interval *out)
{
	struct proc_cpu_pct p;
	int r;

	nan_row(pw->busy, pw->slots);
	nan_row(pw->softirq, pw->slots);
	nan_row(pw->steal, pw->slots);
	for (size_t i = 0; i < b->stat.ncpu; i++) {
		const struct proc_cpu_times *cb = &b->stat.cpu[i];
		const struct proc_cpu_times *ca;
		struct procwatch_cpu_ticks *acc;
		int c = cb->cpu;

		if (c < 0 || c >= pw->slots)
			continue;
		ca = proc_stat_find_cpu(&a->stat, c);
		if (!ca)
			continue;	/* came online: no interval for it yet */
		r = proc_cpu_delta(ca, cb, &p);
		if (r == -ERANGE)
			out->flags |= PROCWATCH_CPU_RESET;
		if (r)
			continue;
		pw->busy[c] = (float)p.busy;
		pw->softirq[c] = (float)p.softirq;
		pw->steal[c] = (float)p.steal;
		acc = &pw->cpu[c];
		acc->busy += p.busy_ticks;
		acc->softirq += p.softirq_ticks;
		acc->steal += p.steal_ticks;
		acc->total += p.total_ticks;
		if (out->busiest_cpu < 0 || p.busy > out->busiest_pct) {
			out->busiest_cpu = c;
			out->busiest_pct = p.busy;
			out->busiest_softirq_pct = p.softirq;
			out->busiest_steal_pct = p.steal;
		}
	}
	r = proc_cpu_delta(&a->stat.all, &b->stat.all, &p);
	if (r == -ERANGE)
		out->flags |= PROCWATCH_CPU_RESET;
	if (!r) {
		out->cpu_busy_pct = p.busy;
		out->softirq_pct = p.softirq;
		out->steal_pct = p.steal;
		pw->sum.all.busy += p.busy_ticks;
		pw->sum.all.softirq += p.softirq_ticks;
		pw->sum.all.steal += p.steal_ticks;
		pw->sum.all.total += p.total_ticks;
	}
}

static void net_part(struct procwatch *pw, const struct pw_snap *a, const struct pw_snap *b, double dt,
		     struct procwatch_interval *out)
{
	const struct proc_netif *fa, *fb;
	struct proc_net_rates r;

	if (!pw->want_iface)
		return;
	if (!a->net_ok || !b->net_ok) {
		out->flags |= PROCWATCH_READ_ERROR;
		return;
	}
	fa = proc_netdev_find(&a->net, pw->iface, 0);
	fb = proc_netdev_find(&b->net, pw->iface, 0);
	if (!fa || !fb || proc_netif_delta(fa, fb, dt, &r)) {
		out->flags |= PROCWATCH_NET_RESET;
		return;
	}
	out->rx_bytes_per_s = r.rx_bytes_per_s;
	out->tx_bytes_per_s = r.tx_bytes_per_s;
	pw->sum.rx_bytes += r.d_rx_bytes;
	pw->sum.tx_bytes += r.d_tx_bytes;
	pw->sum.net_time_s += dt;
}

static void disk_part(struct procwatch *pw, const struct pw_snap *a, const struct pw_snap *b, double dt,
		      struct procwatch_interval *out)
{
	const struct proc_disk *da, *db;
	struct proc_disk_rates r;

	if (!pw->want_disk)
		return;
	if (!a->disk_ok || !b->disk_ok) {
		out->flags |= PROCWATCH_READ_ERROR;
		return;
	}
	da = find_disk(&a->disk, pw->disk);
	db = find_disk(&b->disk, pw->disk);
	if (!da || !db || da->major != db->major || da->minor != db->minor || proc_disk_delta(da, db, dt, &r)) {
		out->flags |= PROCWATCH_DISK_RESET;
		return;
	}
	out->disk_reads_per_s = r.r_per_s;
	out->disk_writes_per_s = r.w_per_s;
	out->disk_read_bytes_per_s = r.rbytes_per_s;
	out->disk_write_bytes_per_s = r.wbytes_per_s;
	out->disk_util_pct = r.util_pct;
	pw->sum.disk_reads += r.d_rd_ios;
	pw->sum.disk_writes += r.d_wr_ios;
	pw->sum.disk_read_bytes += r.d_rd_sectors * PROC_SECTOR_BYTES;
	pw->sum.disk_write_bytes += r.d_wr_sectors * PROC_SECTOR_BYTES;
	pw->sum.disk_io_ticks_ms += r.d_io_ticks_ms;
	pw->sum.disk_time_s += dt;
}

/* Each CPU's ksoftirqd run time since the previous reading (seconds), or NaN. */
static void ksoftirqd_part(struct procwatch *pw, struct procwatch_interval *out)
{
	for (int c = 0; c < pw->slots; c++) {
		uint64_t run = PROC_NONE, wait;

		pw->ksi_s[c] = NAN;
		if (pw->ksi_fd[c] < 0)
			continue;
		if (proc_buf_pread(&pw->buf, pw->ksi_fd[c]) ||
		    proc_schedstat_parse(pw->buf.data, pw->buf.len, &run, &wait)) {
			close_fd(&pw->ksi_fd[c]);
			pw->ksi_prev[c] = PROC_NONE;
			continue;
		}
		if (pw->ksi_prev[c] != PROC_NONE && run >= pw->ksi_prev[c])
			pw->ksi_s[c] = (double)(run - pw->ksi_prev[c]) / 1e9;
		pw->ksi_prev[c] = run;
	}
	out->ksoftirqd_s = pw->ksi_s;
}

/*
 * Opens the schedstat of each CPU's ksoftirqd ("ksoftirqd/N", a kernel
 * thread of kthreadd, PID 2) and takes its first reading.
 */
static void ksoftirqd_find(struct procwatch *pw)
{
	DIR *d = opendir(pw->root);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct proc_pid_stat ps;
		char *path;
		int c, r, fd;
		char rel[48];

		if (!all_digits(de->d_name) || strlen(de->d_name) > 9)
			continue;
		path = xasprintf("%s/%s/stat", pw->root, de->d_name);
		r = proc_buf_read_file(&pw->buf, path);
		free(path);
		if (r || proc_pid_stat_parse(&ps, pw->buf.data, pw->buf.len) || ps.ppid != 2 ||
		    sscanf(ps.comm, "ksoftirqd/%d", &c) != 1 || c < 0 || c >= pw->slots || pw->ksi_fd[c] >= 0)
			continue;
		snprintf(rel, sizeof(rel), "%.9s/schedstat", de->d_name);
		fd = open_rel(pw->root, rel);
		if (fd < 0)
			continue;
		pw->ksi_fd[c] = fd;
		pw->sum.ksoftirqd_found++;
	}
	closedir(d);
	ksoftirqd_part(pw, &(struct procwatch_interval){ 0 });
}

static void proc_part(struct procwatch *pw, const struct pw_snap *a, const struct pw_snap *b, double dt,
		      double t_s, struct procwatch_interval *out)
{
	size_t n = 0;
	int live;

	if (!pw->pid)
		return;
	if (pw->gone) {
		out->proc_gone = true;
		return;
	}
	if (proc_is_gone(pw, b, &n, &live)) {
		pw->gone = true;
		pw->sum.gone_after_s = t_s;
		out->proc_gone = true;
		out->flags |= PROCWATCH_PROC_GONE;
		close_fd(&pw->fd_pid);
		return;
	}
	if (a->pid_ok && !proc_pid_cpu_pct(&a->pid, &b->pid, pw->clk_tck, dt, &out->proc_cpu_pct)) {
		pw->sum.proc_ticks += (b->pid.utime + b->pid.stime) - (a->pid.utime + a->pid.stime);
		pw->sum.proc_time_s += dt;
	}
	out->proc_rss_bytes = (int64_t)(b->pid.rss_pages * (uint64_t)pw->page_size);
	out->proc_threads = (int)b->pid.num_threads;
	pw->sum.rss_last_bytes = out->proc_rss_bytes;
	if ((uint64_t)out->proc_rss_bytes > pw->sum.rss_max_bytes)
		pw->sum.rss_max_bytes = (uint64_t)out->proc_rss_bytes;
	pw->sum.threads_last = out->proc_threads;
	if (out->proc_threads > pw->sum.threads_max)
		pw->sum.threads_max = out->proc_threads;
	account_threads(pw, n, false, dt, out);
	out->proc_run_on = pw->run_on;
	ksoftirqd_part(pw, out);
}

/* The first reading fixes the width of the per-CPU arrays. */
static void setup_slots(struct procwatch *pw, const struct pw_snap *s)
{
	long width = s->stat.ncpu ? s->stat.cpu[s->stat.ncpu - 1].cpu + 1 : 1;

	if (pw->ncpu_conf > width)
		width = pw->ncpu_conf;
	if (width > PROCWATCH_MAX_CPUS)
		width = PROCWATCH_MAX_CPUS;
	pw->slots = (int)width;
	pw->busy = xcalloc((size_t)width, sizeof(*pw->busy));
	pw->softirq = xcalloc((size_t)width, sizeof(*pw->softirq));
	pw->steal = xcalloc((size_t)width, sizeof(*pw->steal));
	pw->cpu = xcalloc((size_t)width, sizeof(*pw->cpu));
	pw->thr_by_cpu = xcalloc((size_t)width, sizeof(*pw->thr_by_cpu));
	pw->iv_by_cpu = xcalloc((size_t)width, sizeof(*pw->iv_by_cpu));
	pw->run_on = xcalloc((size_t)width, sizeof(*pw->run_on));
	pw->ksi_s = xcalloc((size_t)width, sizeof(*pw->ksi_s));
	pw->ksi_fd = xcalloc((size_t)width, sizeof(*pw->ksi_fd));
	pw->ksi_prev = xcalloc((size_t)width, sizeof(*pw->ksi_prev));
	for (long c = 0; c < width; c++) {
		pw->ksi_fd[c] = -1;
		pw->ksi_prev[c] = PROC_NONE;
		pw->ksi_s[c] = NAN;
	}
}

int procwatch_read(struct procwatch *pw, uint64_t now, struct procwatch_interval *out)
{
	struct pw_snap *a = &pw->snap[pw->cur], *b = &pw->snap[!pw->cur];
	double dt;
	int r;

	memset(out, 0, sizeof(*out));
	out->cpu_busy_pct = out->softirq_pct = out->steal_pct = NAN;
	out->busiest_cpu = -1;
	out->busiest_pct = out->busiest_softirq_pct = out->busiest_steal_pct = NAN;
	out->rx_bytes_per_s = out->tx_bytes_per_s = NAN;
	out->disk_reads_per_s = out->disk_writes_per_s = NAN;
	out->disk_read_bytes_per_s = out->disk_write_bytes_per_s = out->disk_util_pct = NAN;
	out->proc_cpu_pct = NAN;
	out->proc_rss_bytes = -1;
	out->proc_threads = -1;
	out->proc_top_cpu = -1;
	out->top_tid_cpu_pct = NAN;
	out->proc_run_s = NAN;
	out->proc_run_top_cpu = -1;

	r = take(pw, b, now);
	if (r)
		return r;
	if (!pw->have_base) {
		size_t n = 0;
		int live;

		setup_slots(pw, b);
		pw->t0 = now;
		pw->have_base = true;
		pw->cur = !pw->cur;
		if (pw->pid) {
			ksoftirqd_find(pw);
			if (proc_is_gone(pw, b, &n, &live)) {
				pw->gone = true;
				pw->sum.gone_after_s = 0;
				close_fd(&pw->fd_pid);
			} else {
				account_threads(pw, n, true, 0, out);
				pw->sum.rss_last_bytes = (int64_t)(b->pid.rss_pages * (uint64_t)pw->page_size);
				pw->sum.rss_max_bytes = (uint64_t)pw->sum.rss_last_bytes;
				pw->sum.threads_last = pw->sum.threads_max = (int)b->pid.num_threads;
			}
		}
		return -ENODATA;
	}
	dt = (double)(now - a->t) / 1e9;
	out->t_s = (double)(now - pw->t0) / 1e9;
	out->interval_s = dt;
	out->ncpu_slots = pw->slots;
	out->busy = pw->busy;
	out->softirq = pw->softirq;
	out->steal = pw->steal;
	cpu_part(pw, a, b, out);
	if (dt > 0) {
		net_part(pw, a, b, dt, out);
		disk_part(pw, a, b, dt, out);
	}
	proc_part(pw, a, b, dt, out->t_s, out);
	pw->cur = !pw->cur;
	pw->sum.intervals++;
	if (out->flags & ~PROCWATCH_PROC_GONE)
		pw->sum.gaps++;
	pw->sum.duration_s = out->t_s;
	return 0;
}

void procwatch_summary(const struct procwatch *pw, struct procwatch_summary *out)
{
	*out = pw->sum;
	out->ncpu_slots = pw->slots;
	out->cpu = pw->cpu;
	out->thread_ticks_by_cpu = pw->thr_by_cpu;
	out->clk_tck = pw->clk_tck;
	out->busy_threads = 0;
	for (size_t i = 0; i < pw->nthr && pw->sum.have_schedstat && pw->sum.run_ns; i++)
		if (pw->thr[i].cum_run * 20 >= pw->sum.run_ns)
			out->busy_threads++;
}

/* Reads the process's name and allowed CPUs for the summary (best effort). */
static void read_status(struct procwatch *pw)
{
	struct proc_pid_status st;
	char *path = xasprintf("%s/%d/status", pw->root, (int)pw->pid);

	if (!proc_buf_read_file(&pw->buf, path) && !proc_pid_status_parse(&st, pw->buf.data, pw->buf.len) &&
	    st.cpus_allowed_count >= 0)
		snprintf(pw->sum.cpus_allowed, sizeof(pw->sum.cpus_allowed), "%s", st.cpus_allowed_list);
	free(path);
}

/* Is NAME a line of the file at REL (net/dev or diskstats)? */
static int check_name(struct procwatch *pw, int fd, bool disk, const char *name)
{
	struct pw_snap *s = &pw->snap[0];
	int r = proc_buf_pread(&pw->buf, fd);

	if (r)
		return r;
	if (disk) {
		if (proc_diskstats_parse(&s->disk, pw->buf.data, pw->buf.len) || !find_disk(&s->disk, name))
			return -ENXIO;
	} else if (proc_netdev_parse(&s->net, pw->buf.data, pw->buf.len) ||
		   !proc_netdev_find(&s->net, name, 0)) {
		return -ENODEV;
	}
	return 0;
}

int procwatch_new(struct procwatch **out, const struct procwatch_config *cfg)
{
	struct procwatch *pw = xcalloc(1, sizeof(*pw));
	int r = 0;

	*out = NULL;
	pw->root = xstrdup(cfg->proc_root ? cfg->proc_root : "/proc");
	pw->pid = cfg->pid;
	pw->clk_tck = cfg->clk_tck > 0 ? cfg->clk_tck : sysconf(_SC_CLK_TCK);
	pw->page_size = cfg->page_size > 0 ? cfg->page_size : sysconf(_SC_PAGESIZE);
	if (pw->clk_tck <= 0)
		pw->clk_tck = 100;
	if (pw->page_size <= 0)
		pw->page_size = 4096;
	pw->ncpu_conf = cfg->ncpu;
	pw->fd_stat = pw->fd_net = pw->fd_disk = pw->fd_pid = -1;
	pw->buf = (struct proc_buf)PROC_BUF_INIT;
	for (int i = 0; i < 2; i++) {
		proc_stat_init(&pw->snap[i].stat);
		proc_netdev_init(&pw->snap[i].net);
		proc_diskstats_init(&pw->snap[i].disk);
	}
	pw->sum.have_proc = cfg->pid > 0;
	pw->sum.gone_after_s = NAN;
	pw->sum.rss_last_bytes = -1;
	pw->sum.top_cpu = -1;

	if (cfg->pid < 0 || (cfg->iface && strlen(cfg->iface) >= PROC_NAME_MAX) ||
	    (cfg->disk && strlen(cfg->disk) >= PROC_NAME_MAX)) {
		r = -EINVAL;
		goto fail;
	}
	pw->fd_stat = open_rel(pw->root, "stat");
	if (pw->fd_stat < 0) {
		r = pw->fd_stat;
		goto fail;
	}
	if (cfg->pid > 0) {
		char rel[32];
		struct pw_snap *s = &pw->snap[0];
		size_t n;
		int live;

		snprintf(rel, sizeof(rel), "%d/stat", (int)cfg->pid);
		pw->fd_pid = open_rel(pw->root, rel);
		s->pid_ok = pw->fd_pid >= 0 && !proc_buf_pread(&pw->buf, pw->fd_pid) &&
			    !proc_pid_stat_parse(&s->pid, pw->buf.data, pw->buf.len);
		if (s->pid_ok)
			pw->pid_start = s->pid.starttime;
		if (proc_is_gone(pw, s, &n, &live)) {
			r = -ESRCH;
			goto fail;
		}
		snprintf(pw->sum.comm, sizeof(pw->sum.comm), "%s", s->pid.comm);
		read_status(pw);
	}
	if (cfg->iface) {
		snprintf(pw->iface, sizeof(pw->iface), "%s", cfg->iface);
		pw->want_iface = true;
		pw->fd_net = open_rel(pw->root, "net/dev");
		r = pw->fd_net < 0 ? -ENODEV : check_name(pw, pw->fd_net, false, cfg->iface);
		if (r)
			goto fail;
	}
	if (cfg->disk) {
		snprintf(pw->disk, sizeof(pw->disk), "%s", cfg->disk);
		pw->want_disk = true;
		pw->fd_disk = open_rel(pw->root, "diskstats");
		r = pw->fd_disk < 0 ? -ENXIO : check_name(pw, pw->fd_disk, true, cfg->disk);
		if (r)
			goto fail;
	}
	*out = pw;
	return 0;
fail:
	procwatch_free(pw);
	return r;
}

void procwatch_free(struct procwatch *pw)
{
	if (!pw)
		return;
	close_fd(&pw->fd_stat);
	close_fd(&pw->fd_net);
	close_fd(&pw->fd_disk);
	close_fd(&pw->fd_pid);
	for (int i = 0; i < 2; i++) {
		proc_stat_release(&pw->snap[i].stat);
		proc_netdev_release(&pw->snap[i].net);
		proc_diskstats_release(&pw->snap[i].disk);
	}
	proc_buf_release(&pw->buf);
	free(pw->busy);
	free(pw->softirq);
	free(pw->steal);
	free(pw->cpu);
	free(pw->thr_by_cpu);
	free(pw->iv_by_cpu);
	for (int c = 0; pw->ksi_fd && c < pw->slots; c++)
		close_fd(&pw->ksi_fd[c]);
	free(pw->run_on);
	free(pw->ksi_s);
	free(pw->ksi_fd);
	free(pw->ksi_prev);
	free(pw->thr);
	free(pw->thr_next);
	free(pw->root);
	free(pw);
}

int procwatch_irqtime(const char *proc_root, const char *boot_dir, char *why, size_t len)
{
	struct proc_buf b = PROC_BUF_INIT;
	struct proc_stat st;
	struct utsname u;
	char *path = NULL;
	int r = -ENOENT;

	if (uname(&u) == 0) {
		path = xasprintf("%s/config-%s", boot_dir ? boot_dir : "/boot", u.release);
		if (!proc_buf_read_file(&b, path)) {
			if (strstr(b.data, "\nCONFIG_IRQ_TIME_ACCOUNTING=y\n"))
				r = 1;
			else if (strstr(b.data, "\n# CONFIG_IRQ_TIME_ACCOUNTING is not set\n"))
				r = 0;
			if (r >= 0)
				snprintf(why, len, "CONFIG_IRQ_TIME_ACCOUNTING %s in %s", r ? "set" : "not set", path);
		}
	}
	free(path);
	if (r < 0) {
		path = xasprintf("%s/stat", proc_root ? proc_root : "/proc");
		proc_stat_init(&st);
		r = proc_buf_read_file(&b, path);
		if (!r)
			r = proc_stat_parse(&st, b.data, b.len);
		if (!r) {
			r = st.all.nfields > PROC_CPU_IRQ && st.all.t[PROC_CPU_IRQ] > 0;
			snprintf(why, len, "no kernel config; the hardirq column of %s is %s", path,
				 r ? "above 0 (exact interrupt time)" : "0 (tick sampling)");
		}
		proc_stat_release(&st);
		free(path);
	}
	proc_buf_release(&b);
	return r;
}

/* Does process PID (directory DIRNAME under ROOT) match NAME? Not a zombie. */
static bool name_matches(const char *root, const char *dirname, const char *name, struct proc_buf *b)
{
	struct proc_pid_stat ps;
	size_t nlen = strlen(name);
	char *path = xasprintf("%s/%s/stat", root, dirname);
	bool ok = !proc_buf_read_file(b, path) && !proc_pid_stat_parse(&ps, b->data, b->len);
	const char *base;

	free(path);
	if (!ok || is_zombie(ps.state))
		return false;
	if (!strcmp(ps.comm, name))
		return true;
	/* The kernel cuts comm to TASK_COMM_LEN - 1 = 15 characters. */
	if (nlen > 15 && strlen(ps.comm) == 15 && !strncmp(ps.comm, name, 15))
		return true;
	path = xasprintf("%s/%s/cmdline", root, dirname);
	ok = !proc_buf_read_file(b, path) && b->len > 0;
	free(path);
	if (!ok)
		return false;
	/* argv[0] ends at the first NUL; b->data is NUL-terminated anyway. */
	base = strrchr(b->data, '/');
	base = base ? base + 1 : b->data;
	return !strcmp(base, name);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int procwatch_find_name(const char *proc_root, const char *name, pid_t exclude, pid_t *pids, size_t max,
			size_t *n)
{
	const char *root = proc_root ? proc_root : "/proc";
	struct proc_buf b = PROC_BUF_INIT;
	DIR *d = opendir(root);
	struct dirent *de;
	pid_t *all = NULL;
	size_t cnt = 0, cap = 0;

	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long v;

		if (!all_digits(de->d_name) || strlen(de->d_name) > 9)
			continue;
		v = strtol(de->d_name, NULL, 10);
		if ((pid_t)v == exclude || !name_matches(root, de->d_name, name, &b))
			continue;
		if (cnt == cap) {
			cap = cap ? 2 * cap : 8;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[cnt++] = (pid_t)v;
	}
	closedir(d);
	proc_buf_release(&b);
	if (cnt)
		qsort(all, cnt, sizeof(*all), cmp_pid);
	for (size_t i = 0; i < cnt && i < max; i++)
		pids[i] = all[i];
	*n = cnt;
	free(all);
	return 0;
}
