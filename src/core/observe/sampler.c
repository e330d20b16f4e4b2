/* SPDX-License-Identifier: MIT */
/*
 * The background sampler; see sampler.h for the contract. A snapshot reads
 * every open /proc file into one shared buffer and parses it into one of
 * two alternating struct snap; each pair (previous, current) becomes one
 * struct sample and is also added to running accumulators, so the summary
 * covers every interval even after storage is full. Accumulators sum raw
 * counter deltas (ticks, requests, sectors, microseconds) and the time they
 * cover, and the summary divides at the end: means are time-weighted and
 * an interval with a reset counter simply adds nothing to that counter.
 */
#include "sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/kernel/fdres.h"
#include "core/observe/limits.h"
#include "core/kernel/proc.h"
#include "core/kernel/thermal.h"
#include "core/observe/netwho.h"
#include "core/observe/tstate.h"
#include "lib/xalloc.h"

enum src {
	SRC_STAT, SRC_DISK, SRC_MEM, SRC_VM, SRC_PSI_CPU, SRC_PSI_MEM, SRC_PSI_IO, SRC_NET, SRC_SNMP, SRC_PID,
	SRC_N
};

/* Paths under proc_root; the PID file is built at run time. */
static const char *const src_path[SRC_N] = {
	[SRC_STAT] = "stat", [SRC_DISK] = "diskstats", [SRC_MEM] = "meminfo", [SRC_VM] = "vmstat",
	[SRC_PSI_CPU] = "pressure/cpu", [SRC_PSI_MEM] = "pressure/memory", [SRC_PSI_IO] = "pressure/io",
	[SRC_NET] = "net/dev", [SRC_SNMP] = "net/snmp", [SRC_PID] = NULL,
};

#define BIT(src) (1u << (src))

/* One thread of the work at one snapshot. */
struct task_snap {
	int tid;
	int cpu;			/* processor (stat field 39); -1 unknown */
	uint64_t start;			/* starttime: with tid, tells a reused TID */
	uint64_t ticks;			/* utime + stime */
	uint64_t run_ns, wait_ns;	/* schedstat; PROC_NONE without it */
	char comm[16];
};

/* The open stat and schedstat of one work thread, re-read with pread (-1: not open). */
struct task_fd {
	int tid;
	int stat_fd, sched_fd;
	unsigned gen;			/* the snapshot that last saw the thread */
};

/* One process at an edge of a span (cfg.others). */
struct proc_edge {
	int pid;
	uint64_t start, ticks;
	char comm[16];
	bool child;		/* a child of the work or of this process: part of the work */
	int processor;
	bool io_ok;		/* /proc/PID/io read */
	uint64_t rbytes, wbytes;	/* its read_bytes, write_bytes */
};

struct snap {
	mono_ns t;
	unsigned ok;			/* BIT(src) for each file read and parsed */
	struct proc_stat stat;
	struct proc_diskstats disk;
	struct proc_meminfo mem;
	struct proc_vmstat vm;
	struct proc_psi psi[3];		/* cpu, memory, io */
	struct proc_netdev net;
	struct proc_snmp_udp udp;
	struct proc_pid_stat pid;
	bool task_ok;			/* the work's task directory was read */
	bool work_ok;			/* work_ticks was read */
	uint64_t work_ticks;		/* utime + stime of the whole work, exited threads included */
	uint64_t child_ticks;		/* cutime + cstime: its children it has waited for */
	struct task_snap *task;		/* ntask of SAMPLER_MAX_THREADS; NULL without work_pid */
	size_t ntask;
};

/* A sum of counter deltas and the seconds they cover. */
struct acc {
	uint64_t sum;
	double time_s;
};

struct cpu_acc {
	uint64_t busy, total, softirq;
};

struct disk_acc {
	char name[PROC_NAME_MAX];
	unsigned major, minor;
	double time_s;
	uint64_t rd_ios, wr_ios, rd_sectors, wr_sectors, rd_ms, wr_ms, io_ticks_ms;
	double queue_s;			/* aqu-sz * seconds */
};

struct if_acc {
	char name[PROC_NAME_MAX];
	double time_s;
	uint64_t rx, tx;
};

/* CPU time of one work thread on one CPU. */
struct thr_cpu {
	int cpu;
	uint64_t ns;
};

/* At most this many CPUs are remembered per thread; past it the least used one is replaced. */
#define THR_CPUS 8

/* Totals of one work thread over the window. */
struct thr_acc {
	int tid;
	uint64_t start;
	char comm[16];
	uint64_t cpu_ns, wait_ns;
	struct thr_cpu on[THR_CPUS];
};

/* CPU ticks of one other process, summed over the spans. */
struct other_acc {
	int pid;
	uint64_t start, ticks;
	uint64_t ticks_on;		/* of them, those while it was on a CPU the work ran on */
	uint64_t rbytes, wbytes;	/* storage bytes it caused (/proc/PID/io) */
	char comm[16];
	bool disks_read;		/* its open files' disks were looked at */
	char disks[4][32];		/* the whole disks of its open files and block devices ("" empty) */
};

/* PSI accumulators in sysview order. */
enum { PSI_CPU_SOME, PSI_MEM_SOME, PSI_MEM_FULL, PSI_IO_SOME, PSI_IO_FULL, PSI_N };

/* vmstat accumulators. */
enum { VM_SWPIN, VM_SWPOUT, VM_MAJFLT, VM_N };

/*
 * Samples live in chunks that never move: CHUNK samples followed by their
 * per-CPU rows (CHUNK * slots floats).
 */
#define CHUNK 128

struct chunk {
	struct sample s[CHUNK];
	float cpu[];
};

struct sampler {
	/* configuration */
	char *root;
	uint64_t interval_ns;
	pid_t pid;
	size_t max_samples;
	char *want_disk, *want_iface;
	long clk_tck, page_size;
	uint64_t (*now)(void *arg);
	void *now_arg;

	/* files and snapshots */
	int fd[SRC_N];
	struct proc_buf buf;
	struct snap snap[2];
	struct snap *prev, *cur;
	bool have_prev;
	bool done;		/* sampler_done(): files closed, sampling state freed */
	bool resume;			/* the next snapshot is a new baseline after sampler_stop() */
	mono_ns t0, t_last;
	uint64_t paused_ns;		/* time between a stop and the next start: not sampled */
	int slots;			/* per-CPU row width; 0 until the first snapshot */
	float *row;			/* scratch row of the sample being built */

	/* storage */
	struct chunk **chunks;
	size_t nchunks, count;
	unsigned intervals, dropped, gaps;

	/* accumulators */
	uint64_t all_busy, all_total, all_iowait, all_softirq, all_steal;
	struct cpu_acc *cpu;		/* slots entries */
	int ncpu_max;
	double peak_cpu;		/* -1 until an interval had a CPU */
	double rq_sum;
	unsigned rq_n;
	struct disk_acc *disk;		/* SAMPLER_MAX_DEVS, fixed so names stay put */
	size_t ndisk;
	struct if_acc *iface;		/* SAMPLER_MAX_DEVS */
	size_t niface;
	struct acc vm[VM_N];
	struct acc psi[PSI_N];
	bool psi_available;
	struct acc proc;		/* ticks */
	uint64_t rss_max;
	double mem_min;			/* -1 until known */
	struct acc udp_rcvbuf, udp_in;

	/* the work's threads */
	pid_t work_pid;
	DIR *task_dir;			/* PROC_ROOT/work_pid/task, rewound at each snapshot */
	int work_fd;			/* PROC_ROOT/work_pid/stat; -1 none */
	pid_t self_tid;			/* the sampler thread's TID while it runs, else 0 */
	struct task_fd *tfd;		/* open files of up to tfd_max threads, in readdir order */
	size_t ntfd, tfd_max;
	unsigned tfd_gen;
	bool sched_seen, sched_missing;	/* a schedstat was read / the kernel has none */
	struct thr_acc *thr;		/* SAMPLER_MAX_THREADS */
	size_t nthr;
	uint64_t work_cpu_ns, work_wait_ns;
	double work_time_s, work_wait_time_s;
	int work_threads_max;

	/* other processes, at the edges of spans */
	bool others;
	struct proc_edge *edge0, *edge1;	/* SAMPLER_MAX_PROCS each: start and stop scans */
	size_t nedge0;
	bool edge0_ok, edge0_full;
	mono_ns edge0_t;
	struct other_acc *other;	/* SAMPLER_OTHERS_TRACKED */
	size_t nother;
	uint64_t others_ticks, others_on_ticks;
	double others_time_s;
	uint64_t work_child_ticks;	/* the work's children reaped during the sampled time (cutime + cstime) */
	unsigned edge_scans;
	uint64_t edge_scan_ns;		/* thread CPU time of the edge scans */

	/* whose TCP traffic (core/observe/netwho.h): steps with an interface */
	struct netwho *nw;

	/* the work's thread states (core/observe/tstate.h) */
	struct tstate *ts;		/* NULL: off, or no work */
	struct sysview_budget budget;	/* as of the last stop */
	uint64_t state_cpu_ns;		/* tstate_cpu_ns() as of the last stop */

	/* limits */
	bool have_limits, lim_discovered;
	bool lim_stale;			/* sampler_limits_target(): discover again at the next start */
	uint64_t lim_mem_seen;		/* highest memory cgroup usage the snapshots of this span saw */
	struct limits_config lim_cfg;	/* strings owned */
	struct limits lim;
	struct limits_counters lim_edge;
	struct limits_span lim_span;

	/* heat: sensors at each snapshot, throttle counters at the edges */
	struct thermal *heat;

	void (*on_sample)(void *arg, const struct sample *x);	/* cfg.on_sample */
	void *on_sample_arg;

	/* thread */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool running, stop;
	mono_ns base;			/* real-clock time of the start snapshot */
	uint64_t thread_cpu_ns, sync_cpu_ns;
};

static mono_ns snap_time(const struct sampler *s)
{
	return s->now ? s->now(s->now_arg) : clock_mono();
}

/* Read source src into s->buf and parse it into n; 0 or -errno. */
static int read_src(struct sampler *s, enum src src, struct snap *n)
{
	const char *b;
	size_t l;
	int ret;

	if (s->fd[src] < 0)
		return -ENOENT;
	ret = proc_buf_pread(&s->buf, s->fd[src]);
	if (ret)
		return ret;
	b = s->buf.data;
	l = s->buf.len;
	switch (src) {
	case SRC_STAT:
		return proc_stat_parse(&n->stat, b, l);
	case SRC_DISK:
		return proc_diskstats_parse(&n->disk, b, l);
	case SRC_MEM:
		return proc_meminfo_parse(&n->mem, b, l);
	case SRC_VM:
		return proc_vmstat_parse(&n->vm, b, l);
	case SRC_PSI_CPU:
	case SRC_PSI_MEM:
	case SRC_PSI_IO:
		return proc_psi_parse(&n->psi[src - SRC_PSI_CPU], b, l);
	case SRC_NET:
		return proc_netdev_parse(&n->net, b, l);
	case SRC_SNMP:
		return proc_snmp_udp_parse(&n->udp, b, l);
	case SRC_PID:
		return proc_pid_stat_parse(&n->pid, b, l);
	case SRC_N:
		break;
	}
	return -EINVAL;
}

/* Read DFD/REL whole into s->buf; 0 or -errno. */
static int read_at(struct sampler *s, int dfd, const char *rel)
{
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = proc_buf_pread(&s->buf, fd);
	close(fd);
	return ret;
}

/* A /proc directory name that is a whole positive decimal; 0 otherwise. */
static int name_num(const char *name)
{
	long v = 0;

	if (!*name)
		return 0;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT32_MAX - 9) / 10)
			return 0;
		v = v * 10 + (*p - '0');
	}
	return (int)v;
}

static void copy_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, 15);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * The open files of thread tid (hint: where it was in the last snapshot),
 * found or made while there is room under tfd_max; NULL past it (its
 * files are then opened for each read).
 */
static struct task_fd *task_fd_get(struct sampler *s, int tid, size_t hint)
{
	struct task_fd *f;

	if (hint < s->ntfd && s->tfd[hint].tid == tid)
		return &s->tfd[hint];
	for (size_t i = 0; i < s->ntfd; i++)
		if (s->tfd[i].tid == tid)
			return &s->tfd[i];
	if (s->ntfd == s->tfd_max)
		return NULL;
	f = &s->tfd[s->ntfd++];
	f->tid = tid;
	f->stat_fd = f->sched_fd = -1;
	return f;
}

/* Close the files of threads not seen in this snapshot (they exited). */
static void task_fd_sweep(struct sampler *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->ntfd; i++) {
		struct task_fd *f = &s->tfd[i];

		if (f->gen != s->tfd_gen) {
			if (f->stat_fd >= 0)
				close(f->stat_fd);
			if (f->sched_fd >= 0)
				close(f->sched_fd);
			continue;
		}
		s->tfd[k++] = *f;
	}
	s->ntfd = k;
}

/*
 * Read TID/FILE into s->buf through *fd, kept open between snapshots
 * (fd NULL: open, read, close). A read that fails on an open file (the
 * thread exited; its TID may have been reused) is retried on a fresh open.
 */
static int task_read(struct sampler *s, int dfd, int tid, const char *file, int *fd)
{
	char rel[32];
	int ret;

	if (fd && *fd >= 0) {
		if (!proc_buf_pread(&s->buf, *fd))
			return 0;
		close(*fd);
		*fd = -1;
	}
	snprintf(rel, sizeof(rel), "%d/%s", tid, file);
	if (!fd)
		return read_at(s, dfd, rel);
	*fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	ret = proc_buf_pread(&s->buf, *fd);
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

static const struct task_snap *task_find(const struct snap *a, int tid, size_t hint);

/*
 * The work's threads into n->task: schedstat and stat (ticks, processor,
 * comm) of each TID but the sampler's own. stat costs several times what
 * schedstat does, so a thread that has not run since the last snapshot
 * (same run_ns) keeps that snapshot's stat fields instead: an idle thread
 * costs one small read. A thread that exits between readdir and the read
 * is simply not in this snapshot.
 */
static void read_tasks(struct sampler *s, struct snap *n)
{
	const struct snap *last = s->have_prev && n != s->prev ? s->prev : NULL;

	struct dirent *de;
	int dfd;

	n->ntask = 0;
	n->task_ok = false;
	n->work_ok = false;
	if (!s->task_dir)
		return;
	if (s->work_fd >= 0 && !proc_buf_pread(&s->buf, s->work_fd)) {
		struct proc_pid_stat ps;

		if (!proc_pid_stat_parse(&ps, s->buf.data, s->buf.len)) {
			n->work_ticks = ps.utime + ps.stime;
			n->child_ticks = ps.cutime + ps.cstime;
			n->work_ok = true;
		}
	}
	dfd = dirfd(s->task_dir);
	s->tfd_gen++;
	rewinddir(s->task_dir);
	while ((de = readdir(s->task_dir)) && n->ntask < SAMPLER_MAX_THREADS) {
		struct task_snap *t = &n->task[n->ntask];
		struct proc_pid_stat ps;
		int tid = name_num(de->d_name);
		struct task_fd *f;
		int ret;

		const struct task_snap *was;

		if (!tid || tid == s->self_tid)
			continue;
		f = task_fd_get(s, tid, n->ntask);
		if (f)
			f->gen = s->tfd_gen;
		t->run_ns = t->wait_ns = PROC_NONE;
		if (!s->sched_missing) {
			ret = task_read(s, dfd, tid, "schedstat", f ? &f->sched_fd : NULL);
			if (!ret && !proc_schedstat_parse(s->buf.data, s->buf.len, &t->run_ns, &t->wait_ns))
				s->sched_seen = true;
			else if (ret == -ENOENT && !s->sched_seen)
				s->sched_missing = true;	/* no CONFIG_SCHED_INFO: stop looking */
		}
		was = last ? task_find(last, tid, n->ntask) : NULL;
		if (was && t->run_ns != PROC_NONE && was->run_ns == t->run_ns) {
			t->cpu = was->cpu;
			t->start = was->start;
			t->ticks = was->ticks;
			memcpy(t->comm, was->comm, sizeof(t->comm));
		} else {
			if (task_read(s, dfd, tid, "stat", f ? &f->stat_fd : NULL) ||
			    proc_pid_stat_parse(&ps, s->buf.data, s->buf.len))
				continue;
			t->cpu = ps.processor;
			t->start = ps.starttime;
			t->ticks = ps.utime + ps.stime;
			copy_comm(t->comm, ps.comm);
		}
		t->tid = tid;
		n->ntask++;
	}
	task_fd_sweep(s);
	n->task_ok = n->ntask > 0;
}

/*
 * Fill n from every open file. /proc/stat must succeed (its error is
 * returned); other failures set SAMPLE_READ_ERROR or SAMPLE_PROC_GONE in
 * *flags and leave that part of the snapshot unset.
 */
static int take_snap(struct sampler *s, struct snap *n, unsigned *flags)
{
	int ret;

	n->t = snap_time(s);
	n->ok = 0;
	ret = read_src(s, SRC_STAT, n);
	if (ret)
		return ret;
	n->ok |= BIT(SRC_STAT);
	for (int i = SRC_STAT + 1; i < SRC_N; i++) {
		if (s->fd[i] < 0)
			continue;
		if (read_src(s, (enum src)i, n)) {
			*flags |= i == SRC_PID ? SAMPLE_PROC_GONE : SAMPLE_READ_ERROR;
			continue;
		}
		n->ok |= BIT(i);
	}
	read_tasks(s, n);
	return 0;
}

static bool both_ok(const struct snap *a, const struct snap *b, enum src src)
{
	return (a->ok & b->ok & BIT(src)) != 0;
}

/* Accumulator for disk d, found by name and number (hint: its diskstats position), or made; NULL if full. */
static struct disk_acc *disk_acc_get(struct sampler *s, const struct proc_disk *d, size_t hint)
{
	struct disk_acc *a;

	if (hint < s->ndisk && s->disk[hint].major == d->major && s->disk[hint].minor == d->minor &&
	    !strcmp(s->disk[hint].name, d->name))
		return &s->disk[hint];
	for (size_t i = 0; i < s->ndisk; i++)
		if (s->disk[i].major == d->major && s->disk[i].minor == d->minor && !strcmp(s->disk[i].name, d->name))
			return &s->disk[i];
	if (s->ndisk == SAMPLER_MAX_DEVS)
		return NULL;
	a = &s->disk[s->ndisk++];
	memset(a, 0, sizeof(*a));
	memcpy(a->name, d->name, sizeof(a->name));
	a->major = d->major;
	a->minor = d->minor;
	return a;
}

static struct if_acc *if_acc_get(struct sampler *s, const struct proc_netif *f, size_t hint)
{
	struct if_acc *a;

	if (hint < s->niface && !strcmp(s->iface[hint].name, f->name))
		return &s->iface[hint];
	for (size_t i = 0; i < s->niface; i++)
		if (!strcmp(s->iface[i].name, f->name))
			return &s->iface[i];
	if (s->niface == SAMPLER_MAX_DEVS)
		return NULL;
	a = &s->iface[s->niface++];
	memset(a, 0, sizeof(*a));
	memcpy(a->name, f->name, sizeof(a->name));
	return a;
}

static void sample_clear(struct sample *x)
{
	memset(x, 0, sizeof(*x));
	x->cpu_busy_pct = x->iowait_pct = x->softirq_pct = x->steal_pct = NAN;
	x->busiest_cpu = -1;
	x->busiest_cpu_pct = NAN;
	x->procs_running = x->procs_blocked = -1;
	x->disk = "";
	x->disk_util_pct = x->disk_reads_per_s = x->disk_writes_per_s = NAN;
	x->disk_read_bytes_per_s = x->disk_write_bytes_per_s = NAN;
	x->swap_in_pages_per_s = x->swap_out_pages_per_s = x->major_faults_per_s = NAN;
	x->mem_available_bytes = NAN;
	x->psi_cpu_some_pct = x->psi_mem_some_pct = x->psi_mem_full_pct = NAN;
	x->psi_io_some_pct = x->psi_io_full_pct = NAN;
	x->iface = "";
	x->net_rx_bytes_per_s = x->net_tx_bytes_per_s = NAN;
	x->proc_cpu_pct = NAN;
	x->proc_rss_bytes = -1;
	x->work_cpu_pct = x->work_wait_pct = NAN;
	x->udp_rcvbuf_errors = x->udp_in_errors = NAN;
}

static void cpu_part(struct sampler *s, const struct snap *a, const struct snap *b, struct sample *x)
{
	struct proc_cpu_pct p;
	size_t matched = 0;
	int ret;

	ret = proc_cpu_delta(&a->stat.all, &b->stat.all, &p);
	if (ret == -ERANGE)
		x->flags |= SAMPLE_CPU_RESET;
	if (!ret) {
		x->cpu_busy_pct = p.busy;
		x->iowait_pct = p.iowait;
		x->softirq_pct = p.softirq;
		x->steal_pct = p.steal;
		s->all_busy += p.busy_ticks;
		s->all_total += p.total_ticks;
		s->all_iowait += p.iowait_ticks;
		s->all_softirq += p.softirq_ticks;
		s->all_steal += p.steal_ticks;
	}

	for (int i = 0; i < s->slots; i++)
		s->row[i] = NAN;
	for (size_t i = 0; i < b->stat.ncpu; i++) {
		const struct proc_cpu_times *cb = &b->stat.cpu[i];
		const struct proc_cpu_times *ca = proc_stat_find_cpu(&a->stat, cb->cpu);

		if (!ca)
			continue;	/* came online during the interval */
		matched++;
		ret = proc_cpu_delta(ca, cb, &p);
		if (ret == -ERANGE)
			x->flags |= SAMPLE_CPU_RESET;
		if (ret)
			continue;
		if (cb->cpu < s->slots) {
			s->row[cb->cpu] = (float)p.busy;
			s->cpu[cb->cpu].busy += p.busy_ticks;
			s->cpu[cb->cpu].total += p.total_ticks;
			s->cpu[cb->cpu].softirq += p.softirq_ticks;
		}
		if (x->busiest_cpu < 0 || p.busy > x->busiest_cpu_pct) {
			x->busiest_cpu = cb->cpu;
			x->busiest_cpu_pct = p.busy;
		}
		if (p.busy > s->peak_cpu)
			s->peak_cpu = p.busy;
	}
	if (matched != a->stat.ncpu || matched != b->stat.ncpu)
		x->flags |= SAMPLE_CPU_CHANGED;

	if (b->stat.procs_running != PROC_NONE) {
		x->procs_running = b->stat.procs_running > INT32_MAX ? INT32_MAX : (int)b->stat.procs_running;
		s->rq_sum += (double)b->stat.procs_running;
		s->rq_n++;
	}
	if (b->stat.procs_blocked != PROC_NONE)
		x->procs_blocked = b->stat.procs_blocked > INT32_MAX ? INT32_MAX : (int)b->stat.procs_blocked;
}

static void disk_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	const struct disk_acc *pick = NULL;
	struct proc_disk_rates best;
	double best_util = -1;

	memset(&best, 0, sizeof(best));
	if (!both_ok(a, b, SRC_DISK))
		return;
	for (size_t i = 0; i < b->disk.n; i++) {
		const struct proc_disk *db = &b->disk.disk[i];
		const struct proc_disk *da = proc_diskstats_find(&a->disk, db->major, db->minor, i);
		struct proc_disk_rates r;
		struct disk_acc *acc;
		int ret;

		if (!da)
			continue;
		ret = proc_disk_delta(da, db, dt, &r);
		if (ret == -ERANGE)
			x->flags |= SAMPLE_DISK_RESET;
		if (ret)
			continue;
		acc = disk_acc_get(s, db, i);
		if (!acc)
			continue;
		acc->time_s += dt;
		acc->rd_ios += r.d_rd_ios;
		acc->wr_ios += r.d_wr_ios;
		acc->rd_sectors += r.d_rd_sectors;
		acc->wr_sectors += r.d_wr_sectors;
		acc->rd_ms += r.d_rd_ms;
		acc->wr_ms += r.d_wr_ms;
		acc->io_ticks_ms += r.d_io_ticks_ms;
		if (isfinite(r.aqu_sz))
			acc->queue_s += r.aqu_sz * dt;
		if (s->want_disk) {
			if (strcmp(db->name, s->want_disk))
				continue;
		} else if (!(r.d_rd_ios + r.d_wr_ios + r.d_io_ticks_ms) || r.util_pct <= best_util) {
			continue;	/* idle (loop, ram...) or not busier: the first of a tie wins */
		}
		pick = acc;
		best = r;
		best_util = r.util_pct;
	}
	if (!pick)
		return;
	x->disk = pick->name;
	x->disk_util_pct = best.util_pct;
	x->disk_reads_per_s = best.r_per_s;
	x->disk_writes_per_s = best.w_per_s;
	x->disk_read_bytes_per_s = best.rbytes_per_s;
	x->disk_write_bytes_per_s = best.wbytes_per_s;
}

static void net_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	const struct if_acc *pick = NULL;
	struct proc_net_rates best;
	uint64_t best_bytes = 0;

	memset(&best, 0, sizeof(best));
	if (!both_ok(a, b, SRC_NET))
		return;
	for (size_t i = 0; i < b->net.n; i++) {
		const struct proc_netif *fb = &b->net.iface[i];
		const struct proc_netif *fa = proc_netdev_find(&a->net, fb->name, i);
		struct proc_net_rates r;
		struct if_acc *acc;
		int ret;

		if (!fa)
			continue;
		ret = proc_netif_delta(fa, fb, dt, &r);
		if (ret == -ERANGE)
			x->flags |= SAMPLE_NET_RESET;
		if (ret)
			continue;
		acc = if_acc_get(s, fb, i);
		if (!acc)
			continue;
		acc->time_s += dt;
		acc->rx += r.d_rx_bytes;
		acc->tx += r.d_tx_bytes;
		if (s->want_iface) {
			if (strcmp(fb->name, s->want_iface))
				continue;
		} else if (r.d_rx_bytes + r.d_tx_bytes <= best_bytes) {
			continue;
		}
		pick = acc;
		best = r;
		best_bytes = r.d_rx_bytes + r.d_tx_bytes;
	}
	if (!pick)
		return;
	x->iface = pick->name;
	x->net_rx_bytes_per_s = best.rx_bytes_per_s;
	x->net_tx_bytes_per_s = best.tx_bytes_per_s;
}

/* Add counter b - a over dt to acc; false if it went backwards. Absent counters are skipped. */
static bool acc_add(struct acc *acc, uint64_t a, uint64_t b, double dt)
{
	if (a == PROC_NONE || b == PROC_NONE)
		return true;
	if (b < a)
		return false;
	acc->sum += b - a;
	acc->time_s += dt;
	return true;
}

static void vm_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	struct proc_vm_rates r;

	if (!both_ok(a, b, SRC_VM) || !(dt > 0))
		return;
	if (proc_vmstat_delta(&a->vm, &b->vm, dt, &r) == -ERANGE)
		x->flags |= SAMPLE_VM_RESET;
	x->swap_in_pages_per_s = r.pswpin;
	x->swap_out_pages_per_s = r.pswpout;
	x->major_faults_per_s = r.pgmajfault;
	acc_add(&s->vm[VM_SWPIN], a->vm.pswpin, b->vm.pswpin, dt);
	acc_add(&s->vm[VM_SWPOUT], a->vm.pswpout, b->vm.pswpout, dt);
	acc_add(&s->vm[VM_MAJFLT], a->vm.pgmajfault, b->vm.pgmajfault, dt);
}

static void psi_one(struct sampler *s, const struct proc_psi_line *a, const struct proc_psi_line *b, double dt,
		    int which, double *pct, unsigned *flags)
{
	int ret = proc_psi_delta(a, b, dt, pct);

	if (ret == -ERANGE)
		*flags |= SAMPLE_PSI_RESET;
	if (!ret) {
		s->psi[which].sum += b->total_us - a->total_us;
		s->psi[which].time_s += dt;
	}
}

static void psi_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	if (both_ok(a, b, SRC_PSI_CPU))
		psi_one(s, &a->psi[0].some, &b->psi[0].some, dt, PSI_CPU_SOME, &x->psi_cpu_some_pct, &x->flags);
	if (both_ok(a, b, SRC_PSI_MEM)) {
		psi_one(s, &a->psi[1].some, &b->psi[1].some, dt, PSI_MEM_SOME, &x->psi_mem_some_pct, &x->flags);
		psi_one(s, &a->psi[1].full, &b->psi[1].full, dt, PSI_MEM_FULL, &x->psi_mem_full_pct, &x->flags);
	}
	if (both_ok(a, b, SRC_PSI_IO)) {
		psi_one(s, &a->psi[2].some, &b->psi[2].some, dt, PSI_IO_SOME, &x->psi_io_some_pct, &x->flags);
		psi_one(s, &a->psi[2].full, &b->psi[2].full, dt, PSI_IO_FULL, &x->psi_io_full_pct, &x->flags);
	}
}

static void proc_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	int ret;

	if (!s->pid)
		return;
	if (!(b->ok & BIT(SRC_PID))) {
		x->flags |= SAMPLE_PROC_GONE;
		return;
	}
	x->proc_rss_bytes = (int64_t)(b->pid.rss_pages * (uint64_t)s->page_size);
	if ((uint64_t)x->proc_rss_bytes > s->rss_max)
		s->rss_max = (uint64_t)x->proc_rss_bytes;
	if (!(a->ok & BIT(SRC_PID)))
		return;
	ret = proc_pid_cpu_pct(&a->pid, &b->pid, s->clk_tck, dt, &x->proc_cpu_pct);
	if (ret == -ESRCH || ret == -ERANGE)
		x->flags |= SAMPLE_PROC_GONE;
	if (!ret) {
		s->proc.sum += (b->pid.utime + b->pid.stime) - (a->pid.utime + a->pid.stime);
		s->proc.time_s += dt;
	}
}

/* The thread tid in snapshot a (hint: its position in b), or NULL. */
static const struct task_snap *task_find(const struct snap *a, int tid, size_t hint)
{
	if (hint < a->ntask && a->task[hint].tid == tid)
		return &a->task[hint];
	for (size_t i = 0; i < a->ntask; i++)
		if (a->task[i].tid == tid)
			return &a->task[i];
	return NULL;
}

/* The window totals of thread t, found or made; NULL when SAMPLER_MAX_THREADS are tracked. */
static struct thr_acc *thr_get(struct sampler *s, const struct task_snap *t)
{
	struct thr_acc *a;

	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == t->tid && s->thr[i].start == t->start)
			return &s->thr[i];
	if (s->nthr == SAMPLER_MAX_THREADS)
		return NULL;
	a = &s->thr[s->nthr++];
	memset(a, 0, sizeof(*a));
	a->tid = t->tid;
	a->start = t->start;
	for (int i = 0; i < THR_CPUS; i++)
		a->on[i].cpu = -1;
	return a;
}

/* Credit ns of CPU time to cpu in a's small table, replacing its least used CPU when full. */
static void thr_on_cpu(struct thr_acc *a, int cpu, uint64_t ns)
{
	struct thr_cpu *least = &a->on[0];

	if (cpu < 0 || !ns)
		return;
	for (int i = 0; i < THR_CPUS; i++) {
		if (a->on[i].cpu == cpu) {
			a->on[i].ns += ns;
			return;
		}
		if (a->on[i].cpu < 0 || (least->cpu >= 0 && a->on[i].ns < least->ns))
			least = &a->on[i];
	}
	if (least->cpu < 0 || least->ns < ns) {
		least->cpu = cpu;
		least->ns = ns;
	}
}

/* The window totals of thread t if it has any, else NULL. */
static struct thr_acc *thr_find(struct sampler *s, const struct task_snap *t)
{
	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == t->tid && s->thr[i].start == t->start)
			return &s->thr[i];
	return NULL;
}

/*
 * The CPU time of threads that exited between a and b after a's snapshot,
 * which their vanished files can no longer tell: the whole work's
 * utime + stime (which keeps exited threads' time) grew by more than the
 * threads still there (seen_ns: their deltas, and the whole time of the
 * new ones). That rest goes to the threads of a missing from b, in
 * proportion to their CPU so far (evenly if they had none), on the CPU
 * they were last seen on. Tick-grained (1/USER_HZ), and only when a
 * thread did exit. Returns the ns credited.
 */
static uint64_t work_exited(struct sampler *s, const struct snap *a, const struct snap *b, uint64_t seen_ns,
			    uint64_t tick_ns)
{
	uint64_t rest, total = 0, given = 0, weight = 0;
	size_t gone = 0;

	if (!a->work_ok || !b->work_ok || b->work_ticks < a->work_ticks)
		return 0;
	for (size_t j = 0; j < a->ntask; j++) {
		const struct task_snap *t = task_find(b, a->task[j].tid, j);
		const struct thr_acc *acc;

		if (t && t->start == a->task[j].start)
			continue;
		gone++;
		acc = thr_find(s, &a->task[j]);
		weight += acc ? acc->cpu_ns : 0;
	}
	total = (b->work_ticks - a->work_ticks) * tick_ns;
	if (!gone || total <= seen_ns)
		return 0;
	rest = total - seen_ns;
	for (size_t j = 0; j < a->ntask; j++) {
		const struct task_snap *t = task_find(b, a->task[j].tid, j);
		struct thr_acc *acc;
		uint64_t part;

		if (t && t->start == a->task[j].start)
			continue;
		acc = thr_get(s, &a->task[j]);
		part = weight ? (uint64_t)((double)rest * (double)(acc ? acc->cpu_ns : 0) / (double)weight)
			      : rest / gone;
		given += part;
		if (!acc)
			continue;
		acc->cpu_ns += part;
		thr_on_cpu(acc, a->task[j].cpu, part);
	}
	return given;
}

/*
 * The work's threads between a and b: a TID new in b is only a baseline,
 * one gone from b just stops. CPU time is schedstat's run_ns, or the stat
 * ticks when either snapshot lacks schedstat (then no wait).
 */
static void work_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	uint64_t cpu_ns = 0, wait_ns = 0, new_ns = 0;
	uint64_t tick_ns = NS_PER_SEC / (uint64_t)s->clk_tck;
	bool have_wait = false;

	if (!s->work_pid || !a->task_ok || !b->task_ok || !(dt > 0))
		return;
	x->work_threads = (int)b->ntask;
	if (x->work_threads > s->work_threads_max)
		s->work_threads_max = x->work_threads;
	for (size_t i = 0; i < b->ntask; i++) {
		const struct task_snap *tb = &b->task[i];
		const struct task_snap *ta = task_find(a, tb->tid, i);
		struct thr_acc *acc;
		uint64_t dc, dw = 0;
		bool hw = false;

		if (!ta || ta->start != tb->start) {
			/*
			 * New since a (or a reused TID). If a listed every thread
			 * and it ran no longer than the interval, it was born in
			 * it and all its time is the interval's; else this is
			 * only its baseline.
			 */
			dc = tb->run_ns != PROC_NONE ? tb->run_ns : tb->ticks * tick_ns;
			if (a->ntask == SAMPLER_MAX_THREADS || (double)dc > dt * 1e9) {
				new_ns += dc;
				continue;
			}
			if (tb->run_ns != PROC_NONE) {
				dw = tb->wait_ns;
				hw = true;
			}
		} else if (ta->run_ns != PROC_NONE && tb->run_ns != PROC_NONE) {
			if (tb->run_ns < ta->run_ns || tb->wait_ns < ta->wait_ns)
				continue;
			dc = tb->run_ns - ta->run_ns;
			dw = tb->wait_ns - ta->wait_ns;
			hw = true;
		} else {
			if (tb->ticks < ta->ticks)
				continue;
			dc = (tb->ticks - ta->ticks) * tick_ns;
		}
		cpu_ns += dc;
		if (hw) {
			wait_ns += dw;
			have_wait = true;
		}
		acc = thr_get(s, tb);
		if (!acc)
			continue;
		acc->cpu_ns += dc;
		acc->wait_ns += dw;
		copy_comm(acc->comm, tb->comm);
		thr_on_cpu(acc, tb->cpu, dc);
	}
	cpu_ns += work_exited(s, a, b, cpu_ns + new_ns, tick_ns);
	if (a->work_ok && b->work_ok && b->child_ticks >= a->child_ticks)
		s->work_child_ticks += b->child_ticks - a->child_ticks;
	x->work_cpu_pct = 100.0 * (double)cpu_ns / 1e9 / dt;
	s->work_cpu_ns += cpu_ns;
	s->work_time_s += dt;
	if (have_wait) {
		x->work_wait_pct = 100.0 * (double)wait_ns / 1e9 / dt;
		s->work_wait_ns += wait_ns;
		s->work_wait_time_s += dt;
	}
}

static void udp_part(struct sampler *s, const struct snap *a, const struct snap *b, double dt, struct sample *x)
{
	if (!both_ok(a, b, SRC_SNMP))
		return;
	if (a->udp.rcvbuf_errors != PROC_NONE && b->udp.rcvbuf_errors != PROC_NONE &&
	    acc_add(&s->udp_rcvbuf, a->udp.rcvbuf_errors, b->udp.rcvbuf_errors, dt))
		x->udp_rcvbuf_errors = (double)(b->udp.rcvbuf_errors - a->udp.rcvbuf_errors);
	if (a->udp.in_errors != PROC_NONE && b->udp.in_errors != PROC_NONE &&
	    acc_add(&s->udp_in, a->udp.in_errors, b->udp.in_errors, dt))
		x->udp_in_errors = (double)(b->udp.in_errors - a->udp.in_errors);
}

/* Slot i of the store, allocating its chunk if needed. */
static struct sample *store_slot(struct sampler *s, size_t i, float **row)
{
	size_t c = i / CHUNK, k = i % CHUNK;

	if (c == s->nchunks) {
		s->chunks = xrealloc(s->chunks, (c + 1) * sizeof(*s->chunks));
		s->chunks[c] = xmalloc(sizeof(struct chunk) + (size_t)CHUNK * (size_t)s->slots * sizeof(float));
		s->nchunks++;
	}
	*row = s->chunks[c]->cpu + k * (size_t)s->slots;
	return &s->chunks[c]->s[k];
}

/* The first snapshot fixes the width of the per-CPU rows. */
static void setup_slots(struct sampler *s, const struct snap *n)
{
	long width = n->stat.ncpu ? n->stat.cpu[n->stat.ncpu - 1].cpu + 1 : 1;

	/* On the real /proc, leave room for CPUs that are offline now. */
	if (!strcmp(s->root, "/proc")) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		if (conf > width)
			width = conf;
	}
	if (width > SAMPLER_MAX_CPUS)
		width = SAMPLER_MAX_CPUS;
	s->slots = (int)width;
	s->cpu = xcalloc((size_t)width, sizeof(*s->cpu));
	s->row = xcalloc((size_t)width, sizeof(*s->row));
}

static void note_snapshot(struct sampler *s, const struct snap *n)
{
	if ((int)n->stat.ncpu > s->ncpu_max)
		s->ncpu_max = (int)n->stat.ncpu;
	if ((n->ok & BIT(SRC_MEM)) && n->mem.mem_available != PROC_NONE &&
	    (s->mem_min < 0 || (double)n->mem.mem_available < s->mem_min))
		s->mem_min = (double)n->mem.mem_available;
	if (s->pid && (n->ok & BIT(SRC_PID)) && n->pid.rss_pages * (uint64_t)s->page_size > s->rss_max)
		s->rss_max = n->pid.rss_pages * (uint64_t)s->page_size;
	s->t_last = n->t;
}

/* Take a snapshot and, if there is a previous one, add the sample between them. */
static int sample_once(struct sampler *s)
{
	struct snap *a = s->prev, *b = s->cur;
	struct sample x;
	unsigned flags = 0;
	double dt;
	float *row;
	int ret;

	ret = take_snap(s, b, &flags);
	if (ret) {
		if (s->have_prev)
			s->gaps++;
		return ret;
	}
	thermal_sample(s->heat);
	if (s->lim_discovered && s->lim.mem_peak_how == LIMITS_PEAK_SAMPLED)
		(void)limits_mem_sample(&s->lim, &s->lim_mem_seen);
	if (s->resume) {
		/* Resumed after a stop: the pause adds no sample and no time. */
		s->paused_ns += elapsed_ns(s->t_last, b->t);
		s->resume = false;
		note_snapshot(s, b);
		s->prev = b;
		s->cur = a;
		return 0;
	}
	if (!s->have_prev) {
		s->t0 = b->t;
		setup_slots(s, b);
		note_snapshot(s, b);
		s->have_prev = true;
		s->prev = b;
		s->cur = a;
		return 0;
	}

	sample_clear(&x);
	x.flags = flags;
	dt = elapsed_s(a->t, b->t);
	x.t_s = elapsed_s(s->t0, b->t);
	x.interval_s = dt;
	x.ncpu_slots = s->slots;
	cpu_part(s, a, b, &x);
	disk_part(s, a, b, dt, &x);
	if ((b->ok & BIT(SRC_MEM)) && b->mem.mem_available != PROC_NONE)
		x.mem_available_bytes = (double)b->mem.mem_available;
	vm_part(s, a, b, dt, &x);
	psi_part(s, a, b, dt, &x);
	net_part(s, a, b, dt, &x);
	proc_part(s, a, b, dt, &x);
	work_part(s, a, b, dt, &x);
	udp_part(s, a, b, dt, &x);
	note_snapshot(s, b);

	s->intervals++;
	if (x.flags & (SAMPLE_CPU_RESET | SAMPLE_DISK_RESET | SAMPLE_NET_RESET | SAMPLE_VM_RESET |
		       SAMPLE_PSI_RESET | SAMPLE_READ_ERROR))
		s->gaps++;
	if (s->count < s->max_samples) {
		struct sample *slot = store_slot(s, s->count, &row);

		memcpy(row, s->row, (size_t)s->slots * sizeof(*row));
		x.cpu_pct = row;
		*slot = x;
		s->count++;
	} else {
		s->dropped++;
		x.cpu_pct = s->row;
	}
	if (s->on_sample)
		s->on_sample(s->on_sample_arg, &x);
	s->prev = b;
	s->cur = a;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Other processes, at the edges of a span */

static int cmp_edge(const void *a, const void *b)
{
	const struct proc_edge *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * Scan PROC_ROOT/PID/stat of every process into e (at most SAMPLER_MAX_PROCS, sorted
 * by pid), all but the work and this process. Returns the count; *full
 * says the bound cut the scan.
 */
static size_t scan_procs(struct sampler *s, struct proc_edge *e, bool *full)
{
	pid_t self = getpid();
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	*full = false;
	d = opendir(s->root);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct proc_pid_stat ps;
		char rel[32];
		int pid = name_num(de->d_name);

		if (!pid || pid == self || pid == s->work_pid)
			continue;
		if (n == SAMPLER_MAX_PROCS) {
			*full = true;
			break;
		}
		snprintf(rel, sizeof(rel), "%d/stat", pid);
		if (read_at(s, dirfd(d), rel) || proc_pid_stat_parse(&ps, s->buf.data, s->buf.len))
			continue;	/* exited meanwhile, or a kernel oddity */
		e[n].pid = pid;
		e[n].start = ps.starttime;
		e[n].ticks = ps.utime + ps.stime;
		e[n].child = ps.ppid == self || (s->work_pid > 0 && ps.ppid == s->work_pid);
		e[n].processor = ps.processor;
		copy_comm(e[n].comm, ps.comm);
		/* Its storage bytes, for whose load a busy disk was (root, or a process of ours). */
		{
			struct proc_pid_io io;

			snprintf(rel, sizeof(rel), "%d/io", pid);
			e[n].io_ok = !read_at(s, dirfd(d), rel) && !proc_pid_io_parse(&io, s->buf.data, s->buf.len);
			e[n].rbytes = e[n].io_ok ? io.read_bytes : 0;
			e[n].wbytes = e[n].io_ok ? io.write_bytes : 0;
		}
		n++;
	}
	closedir(d);
	qsort(e, n, sizeof(*e), cmp_edge);
	return n;
}

/* Add d ticks of process e to the table kept between spans; when full, it replaces the least busy if busier. */
static void other_add(struct sampler *s, const struct proc_edge *e, uint64_t d, bool on, uint64_t rb, uint64_t wb)
{
	struct other_acc *least = NULL;

	if (!d && !rb && !wb)
		return;
	for (size_t i = 0; i < s->nother; i++) {
		struct other_acc *o = &s->other[i];

		if (o->pid == e->pid && o->start == e->start) {
			o->ticks += d;
			o->ticks_on += on ? d : 0;
			o->rbytes += rb;
			o->wbytes += wb;
			return;
		}
		if (!least || o->ticks < least->ticks)
			least = o;
	}
	if (s->nother < SAMPLER_OTHERS_TRACKED)
		least = &s->other[s->nother++];
	else if (least->ticks >= d)
		return;
	least->pid = e->pid;
	least->start = e->start;
	least->ticks = d;
	least->ticks_on = on ? d : 0;
	least->rbytes = rb;
	least->wbytes = wb;
	least->disks_read = false;
	memset(least->disks, 0, sizeof(least->disks));
	memcpy(least->comm, e->comm, sizeof(least->comm));
}

static void others_start(struct sampler *s)
{
	uint64_t c0 = clock_thread_cpu_ns();

	s->nedge0 = scan_procs(s, s->edge0, &s->edge0_full);
	s->edge0_t = s->prev->t;
	s->edge0_ok = true;
	s->edge_scans++;
	s->edge_scan_ns += clock_thread_cpu_ns() - c0;
}

/*
 * The stop edge: each process's ticks since the start edge. A process not
 * seen at the start (or with another starttime: a reused PID) began during
 * the span and counts whole, unless the start scan was cut by the bound.
 * Processes that ended during the span are not seen.
 */
/*
 * Whether CPU was one the work's threads ran on during the window (any
 * time on it): another process last seen there competed with the work for
 * it. Without the work's threads, every CPU counts.
 */
static bool work_cpu(const struct sampler *s, int cpu)
{
	bool any = false;

	for (size_t i = 0; i < s->nthr; i++)
		for (int k = 0; k < THR_CPUS; k++) {
			if (s->thr[i].on[k].cpu < 0 || !s->thr[i].on[k].ns)
				continue;
			any = true;
			if (s->thr[i].on[k].cpu == cpu)
				return true;
		}
	return !any || cpu < 0;
}

/*
 * The disks another process has files open on (its fds through
 * core/fdres), for those that caused storage bytes: /proc/PID/io does not
 * say which disk they went to. At most SCAN_IO_PROCS processes an edge,
 * each once, SCAN_IO_FDS fds each.
 */
#define SCAN_IO_PROCS 4
#define SCAN_IO_FDS 1024
static void others_disks(struct sampler *s)
{
	struct fdres *r = NULL;
	int done = 0;

	for (size_t i = 0; i < s->nother && done < SCAN_IO_PROCS; i++) {
		struct other_acc *o = &s->other[i];
		char path[64];
		struct dirent *de;
		DIR *d;
		int nd = 0, nfd = 0;

		if (o->disks_read || !(o->rbytes + o->wbytes))
			continue;
		o->disks_read = true;
		done++;
		if (proc_path(path, sizeof(path), "%s/%d/fd", s->root, o->pid) || !(d = opendir(path)))
			continue;
		if (!r)
			r = fdres_new(s->root, NULL);
		while ((de = readdir(d)) && nd < 4 && nfd++ < SCAN_IO_FDS) {
			const struct fd_target *t;
			int fd = name_num(de->d_name), k;

			if (!fd && strcmp(de->d_name, "0"))
				continue;
			if (fdres_lookup(r, o->pid, fd, &t) || !t->dev[0])
				continue;
			for (k = 0; k < nd && strcmp(o->disks[k], t->dev); k++)
				;
			if (k == nd)
				snprintf(o->disks[nd++], sizeof(o->disks[0]), "%s", t->dev);
		}
		closedir(d);
	}
	fdres_free(r);
}

/* Whether O may have caused its bytes on DISK: it has a file open there, or its files could not be read. */
static bool other_on_disk(const struct other_acc *o, const char *disk)
{
	if (!o->disks_read || !o->disks[0][0])
		return !o->disks_read;
	for (int k = 0; k < 4 && o->disks[k][0]; k++)
		if (!strcmp(o->disks[k], disk))
			return true;
	return false;
}

static void others_stop(struct sampler *s)
{
	uint64_t c0 = clock_thread_cpu_ns();
	double dt;
	bool full, on;
	size_t n;

	if (!s->edge0_ok)
		return;
	s->edge0_ok = false;
	n = scan_procs(s, s->edge1, &full);
	dt = elapsed_s(s->edge0_t, s->prev->t);
	if (dt > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct proc_edge *b = &s->edge1[i];
			const struct proc_edge *a = bsearch(b, s->edge0, s->nedge0, sizeof(*b), cmp_edge);
			uint64_t d, rb = 0, wb = 0;

			if (a && a->start == b->start) {
				if (b->ticks < a->ticks)
					continue;
				d = b->ticks - a->ticks;
				if (a->io_ok && b->io_ok && b->rbytes >= a->rbytes && b->wbytes >= a->wbytes) {
					rb = b->rbytes - a->rbytes;
					wb = b->wbytes - a->wbytes;
				}
			} else if (s->edge0_full) {
				continue;
			} else {
				d = b->ticks;
				rb = b->io_ok ? b->rbytes : 0;
				wb = b->io_ok ? b->wbytes : 0;
			}
			if (b->child)
				continue;	/* the work's own child: counted with the work when reaped (cutime) */
			on = work_cpu(s, b->processor);
			s->others_ticks += d;
			s->others_on_ticks += on ? d : 0;
			other_add(s, b, d, on, rb, wb);
		}
		s->others_time_s += dt;
	}
	others_disks(s);
	s->edge_scans++;
	s->edge_scan_ns += clock_thread_cpu_ns() - c0;
}

/* ------------------------------------------------------------------ */
/* Life cycle */

static int open_src(const struct sampler *s, const char *rel)
{
	char *path = xasprintf("%s/%s", s->root, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = errno;

	free(path);
	errno = err;
	return fd;
}

/*
 * How many threads may keep their two files open: an eighth of the soft
 * RLIMIT_NOFILE for the lot (64 threads under the usual 1024), at most
 * SAMPLER_MAX_THREADS. Past it a thread's files are opened at each read.
 */
static size_t task_fd_budget(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return SAMPLER_MAX_THREADS;
	n = rl.rlim_cur / 16;
	return n < SAMPLER_MAX_THREADS ? (size_t)n : SAMPLER_MAX_THREADS;
}

int sampler_new(struct sampler **out, const struct sampler_config *cfg)
{
	struct sysview scratch_view;
	struct sampler *s;
	pthread_condattr_t ca;
	uint64_t iv = cfg->interval_ns ? cfg->interval_ns : SAMPLER_DEFAULT_INTERVAL_NS;
	int ret;

	*out = NULL;
	if (iv < SAMPLER_MIN_INTERVAL_NS || iv > SAMPLER_MAX_INTERVAL_NS || cfg->pid < 0 || cfg->clk_tck < 0 ||
	    cfg->page_size < 0 || cfg->work_pid < 0)
		return -EINVAL;

	s = xcalloc(1, sizeof(*s));
	s->root = xstrdup(cfg->proc_root ? cfg->proc_root : "/proc");
	s->interval_ns = iv;
	s->pid = cfg->pid;
	s->max_samples = cfg->max_samples ? cfg->max_samples : SAMPLER_DEFAULT_MAX_SAMPLES;
	s->want_disk = cfg->disk ? xstrdup(cfg->disk) : NULL;
	s->want_iface = cfg->iface ? xstrdup(cfg->iface) : NULL;
	s->clk_tck = cfg->clk_tck ? cfg->clk_tck : sysconf(_SC_CLK_TCK);
	s->page_size = cfg->page_size ? cfg->page_size : sysconf(_SC_PAGESIZE);
	if (s->clk_tck <= 0)
		s->clk_tck = 100;
	if (s->page_size <= 0)
		s->page_size = 4096;
	s->now = cfg->now;
	s->now_arg = cfg->now_arg;
	s->on_sample = cfg->on_sample;
	s->on_sample_arg = cfg->on_sample_arg;
	for (int i = 0; i < SRC_N; i++)
		s->fd[i] = -1;
	s->work_fd = -1;
	proc_stat_init(&s->snap[0].stat);
	proc_stat_init(&s->snap[1].stat);
	s->prev = &s->snap[0];
	s->cur = &s->snap[1];
	s->peak_cpu = -1;
	s->mem_min = -1;
	sysview_init(&scratch_view);
	s->budget = scratch_view.budget;
	s->disk = xcalloc(SAMPLER_MAX_DEVS, sizeof(*s->disk));
	s->iface = xcalloc(SAMPLER_MAX_DEVS, sizeof(*s->iface));
	s->work_pid = cfg->work_pid;
	s->others = cfg->others;
	if (cfg->limits) {
		s->have_limits = true;
		s->lim_cfg = *cfg->limits;
		s->lim_cfg.root = cfg->limits->root ? xstrdup(cfg->limits->root) : NULL;
		s->lim_cfg.dev_name = cfg->limits->dev_name ? xstrdup(cfg->limits->dev_name) : NULL;
		s->lim_cfg.iface = cfg->limits->iface ? xstrdup(cfg->limits->iface) : NULL;
		s->lim_cfg.own_mem_dir = cfg->limits->own_mem_dir ? xstrdup(cfg->limits->own_mem_dir) : NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);

	s->fd[SRC_STAT] = open_src(s, src_path[SRC_STAT]);
	if (s->fd[SRC_STAT] < 0) {
		ret = -errno;
		goto fail;
	}
	if (s->pid) {
		char rel[32];

		snprintf(rel, sizeof(rel), "%d/stat", (int)s->pid);
		s->fd[SRC_PID] = open_src(s, rel);
		if (s->fd[SRC_PID] < 0) {
			ret = errno == ENOENT ? -ESRCH : -errno;
			goto fail;
		}
	}
	if (s->work_pid) {
		char rel[32];
		int fd;

		snprintf(rel, sizeof(rel), "%d/task", (int)s->work_pid);
		fd = open_src(s, rel);
		if (fd < 0) {
			ret = errno == ENOENT ? -ESRCH : -errno;
			goto fail;
		}
		s->task_dir = fdopendir(fd);
		if (!s->task_dir) {
			ret = -errno;
			close(fd);
			goto fail;
		}
		for (int i = 0; i < 2; i++)
			s->snap[i].task = xcalloc(SAMPLER_MAX_THREADS, sizeof(*s->snap[i].task));
		s->thr = xcalloc(SAMPLER_MAX_THREADS, sizeof(*s->thr));
		s->tfd = xcalloc(SAMPLER_MAX_THREADS, sizeof(*s->tfd));
		s->tfd_max = task_fd_budget();
		snprintf(rel, sizeof(rel), "%d/stat", (int)s->work_pid);
		s->work_fd = open_src(s, rel);
		if (cfg->state_interval_ns != UINT64_MAX) {
			struct tstate_config tc = {
				.proc_root = s->root, .sys_root = cfg->sys_root, .pid = s->work_pid,
				.interval_ns = cfg->state_interval_ns, .children = cfg->state_children,
				.own = cfg->state_own,
			};

			s->ts = tstate_new(&tc);
		}
	}
	if (s->others) {
		s->edge0 = xcalloc(SAMPLER_MAX_PROCS, sizeof(*s->edge0));
		s->edge1 = xcalloc(SAMPLER_MAX_PROCS, sizeof(*s->edge1));
		s->other = xcalloc(SAMPLER_OTHERS_TRACKED, sizeof(*s->other));
		/* Whose traffic it was: a network step (an interface) on the real /proc. */
		if (s->work_pid && (s->want_iface || s->lim_cfg.iface) && !strcmp(s->root, "/proc"))
			s->nw = netwho_new(s->work_pid, s->root);
	}
	/* Optional files: keep only those that open and parse now, so a later failure means something. */
	for (int i = SRC_STAT; i < SRC_N; i++) {
		if (i != SRC_STAT && i != SRC_PID)
			s->fd[i] = open_src(s, src_path[i]);
		if (s->fd[i] < 0)
			continue;
		ret = read_src(s, (enum src)i, s->cur);
		if (!ret)
			continue;
		if (i == SRC_STAT)
			goto fail;
		if (i == SRC_PID) {
			ret = -ESRCH;
			goto fail;
		}
		close(s->fd[i]);
		s->fd[i] = -1;
	}
	s->psi_available = s->fd[SRC_PSI_CPU] >= 0 || s->fd[SRC_PSI_MEM] >= 0 || s->fd[SRC_PSI_IO] >= 0;
	s->heat = thermal_open(cfg->sys_root);
	*out = s;
	return 0;
fail:
	sampler_free(s);
	return ret;
}

int sampler_sample_now(struct sampler *s)
{
	uint64_t c0;
	int ret;

	if (s->running)
		return -EBUSY;
	if (s->done)
		return -EINVAL;
	c0 = clock_thread_cpu_ns();
	ret = sample_once(s);
	s->sync_cpu_ns += clock_thread_cpu_ns() - c0;
	return ret;
}

/*
 * The sampling thread: a snapshot at base + k * interval, and between them
 * the work's thread states at base + j * state interval (core/observe/tstate.h).
 */
static void *sampler_thread(void *arg)
{
	struct sampler *s = arg;
	uint64_t k = 1, j = 1, tiv = s->ts ? tstate_interval_ns(s->ts) : 0;

	s->self_tid = gettid();	/* only this thread reads it while it runs */
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		mono_ns snap_at = s->base + k * s->interval_ns;
		mono_ns state_at = tiv ? s->base + j * tiv : snap_at;
		mono_ns deadline = state_at < snap_at ? state_at : snap_at;
		struct timespec ts = {
			.tv_sec = (time_t)(deadline / NS_PER_SEC),
			.tv_nsec = (long)(deadline % NS_PER_SEC),
		};
		int ret = pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		mono_ns now;

		if (s->stop)
			break;
		now = clock_mono();
		if (ret != ETIMEDOUT && now < deadline)
			continue;	/* spurious wake-up */
		pthread_mutex_unlock(&s->mu);
		/* A failed snapshot is counted as a gap; the next one spans it. */
		if (now >= snap_at)
			(void)sample_once(s);
		if (tiv && now >= state_at)
			tstate_tick(s->ts, now, s->self_tid);
		netwho_tick(s->nw, now);
		pthread_mutex_lock(&s->mu);
		/* Next deadlines strictly after now: late wake-ups skip, never bunch. */
		now = clock_mono();
		k = (now - s->base) / s->interval_ns + 1;
		if (tiv)
			j = (now - s->base) / tiv + 1;
	}
	pthread_mutex_unlock(&s->mu);
	s->self_tid = 0;
	s->thread_cpu_ns += clock_thread_cpu_ns();
	return NULL;
}

/* The start edge of a span: limits (discovered at the first) and other processes. */
static void edge_start(struct sampler *s)
{
	uint64_t c0 = clock_thread_cpu_ns();

	if (s->have_limits) {
		if (!s->lim_discovered || s->lim_stale) {
			limits_release(&s->lim);
			limits_discover(&s->lim_cfg, &s->lim);
			s->lim_discovered = true;
			s->lim_stale = false;
		}
		s->lim_mem_seen = 0;
		limits_span_begin(&s->lim_cfg, &s->lim, &s->lim_edge);
	}
	if (s->others)
		others_start(s);
	if (s->nw)
		netwho_begin(s->nw);
	thermal_edge(s->heat, true);
	if (s->ts)
		tstate_span_begin(s->ts, clock_mono(), 0);
	s->sync_cpu_ns += clock_thread_cpu_ns() - c0;
}

static void edge_stop(struct sampler *s)
{
	uint64_t c0 = clock_thread_cpu_ns();

	if (s->have_limits && s->lim_discovered) {
		struct limits_counters end;

		limits_span_end(&s->lim_cfg, &s->lim, &end);
		end.mem_sampled = s->lim_mem_seen;
		limits_span_add(&s->lim_span, &s->lim_edge, &end);
	}
	if (s->others)
		others_stop(s);
	if (s->nw)
		netwho_end(s->nw);
	thermal_edge(s->heat, false);
	if (s->ts) {
		tstate_span_end(s->ts, clock_mono(), 0);
		tstate_budget(s->ts, &s->budget);
		s->state_cpu_ns = tstate_cpu_ns(s->ts);
	}
	s->sync_cpu_ns += clock_thread_cpu_ns() - c0;
}

int sampler_start(struct sampler *s)
{
	sigset_t all, old;
	mono_ns base;
	int ret;

	if (s->running)
		return -EALREADY;
	if (s->done)
		return -EINVAL;
	base = clock_mono();
	/* A stopped sampler resumes: what happened while it was stopped is left out. */
	s->resume = s->have_prev;
	ret = sampler_sample_now(s);
	if (ret)
		return ret;
	edge_start(s);
	s->base = base;
	s->stop = false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&s->thread, NULL, sampler_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	s->running = true;
	return 0;
}

int sampler_stop(struct sampler *s)
{
	int ret;

	if (!s->running)
		return -EINVAL;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->running = false;
	ret = sampler_sample_now(s);
	edge_stop(s);
	return ret;
}

/* P, if it points into the LEN bytes at FROM, moved to the same place in TO. */
static const char *moved(const char *p, const void *from, size_t len, const void *to)
{
	uintptr_t a = (uintptr_t)p, f = (uintptr_t)from;

	return a >= f && a < f + len ? (const char *)to + (a - f) : p;
}

/*
 * The disks' and interfaces' accumulators, sized for SAMPLER_MAX_DEVS while
 * sampling, copied into arrays of those seen (no more are added), the
 * stored samples' names re-pointed into the copies.
 */
static void shrink_devs(struct sampler *s)
{
	size_t dl = SAMPLER_MAX_DEVS * sizeof(*s->disk), il = SAMPLER_MAX_DEVS * sizeof(*s->iface);
	struct disk_acc *d = xmalloc((s->ndisk ? s->ndisk : 1) * sizeof(*d));
	struct if_acc *f = xmalloc((s->niface ? s->niface : 1) * sizeof(*f));

	if (s->ndisk)
		memcpy(d, s->disk, s->ndisk * sizeof(*d));
	if (s->niface)
		memcpy(f, s->iface, s->niface * sizeof(*f));
	for (size_t i = 0; i < s->count; i++) {
		struct sample *x = &s->chunks[i / CHUNK]->s[i % CHUNK];

		x->disk = moved(x->disk, s->disk, dl, d);
		x->iface = moved(x->iface, s->iface, il, f);
	}
	free(s->disk);
	free(s->iface);
	s->disk = d;
	s->iface = f;
}

void sampler_done(struct sampler *s)
{
	if (!s || s->done)
		return;
	if (s->running) {
		int ret = sampler_stop(s);

		(void)ret;
	}
	s->done = true;
	for (int i = 0; i < SRC_N; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
	if (s->task_dir)
		closedir(s->task_dir);
	s->task_dir = NULL;
	if (s->work_fd >= 0)
		close(s->work_fd);
	s->work_fd = -1;
	for (size_t i = 0; i < s->ntfd; i++) {
		if (s->tfd[i].stat_fd >= 0)
			close(s->tfd[i].stat_fd);
		if (s->tfd[i].sched_fd >= 0)
			close(s->tfd[i].sched_fd);
	}
	free(s->tfd);
	s->tfd = NULL;
	s->ntfd = 0;
	for (int i = 0; i < 2; i++) {
		free(s->snap[i].task);
		s->snap[i].task = NULL;
		proc_stat_release(&s->snap[i].stat);
		proc_diskstats_release(&s->snap[i].disk);
		proc_netdev_release(&s->snap[i].net);
	}
	proc_buf_release(&s->buf);
	/* The budget is kept (s->budget); the thread-state sampler is not needed. */
	tstate_free(s->ts);
	s->ts = NULL;
	netwho_release(s->nw);
	/* The process scans of the edges: their differences are in s->other. */
	free(s->edge0);
	free(s->edge1);
	s->edge0 = s->edge1 = NULL;
	s->nedge0 = 0;
	s->edge0_ok = false;
	shrink_devs(s);
	/* The threads' accumulators, likewise (no sample points into them). */
	if (s->thr)
		s->thr = xrealloc(s->thr, (s->nthr ? s->nthr : 1) * sizeof(*s->thr));
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	sampler_done(s);
	netwho_free(s->nw);
	tstate_free(s->ts);
	for (size_t i = 0; i < s->nchunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->cpu);
	free(s->row);
	free(s->disk);
	free(s->iface);
	free(s->want_disk);
	free(s->want_iface);
	free(s->root);
	free(s->thr);
	free(s->other);
	limits_release(&s->lim);
	free((char *)s->lim_cfg.root);
	free((char *)s->lim_cfg.dev_name);
	free((char *)s->lim_cfg.own_mem_dir);
	free((char *)s->lim_cfg.iface);
	thermal_free(s->heat);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Results */

size_t sampler_count(const struct sampler *s)
{
	return s->count;
}

const struct sample *sampler_get(const struct sampler *s, size_t i)
{
	if (i >= s->count)
		return NULL;
	return &s->chunks[i / CHUNK]->s[i % CHUNK];
}

uint64_t sampler_cpu_ns(const struct sampler *s)
{
	return s->thread_cpu_ns + s->sync_cpu_ns;
}

uint64_t sampler_state_cpu_ns(const struct sampler *s)
{
	return s->state_cpu_ns;
}

void sampler_limits_target(struct sampler *s, pid_t pid, const char *own_mem_dir)
{
	if (!s->have_limits)
		return;
	free((char *)s->lim_cfg.own_mem_dir);
	s->lim_cfg.own_mem_dir = own_mem_dir ? xstrdup(own_mem_dir) : NULL;
	s->lim_cfg.pid = pid;
	s->lim_stale = true;
}

const struct limits *sampler_limits(const struct sampler *s)
{
	return s->lim_discovered ? &s->lim : NULL;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

static double rate(const struct acc *a)
{
	return a->time_s > 0 ? (double)a->sum / a->time_s : NAN;
}

static double stall_pct(const struct acc *a)
{
	double v;

	if (!(a->time_s > 0))
		return NAN;
	v = 100.0 * (double)a->sum / (a->time_s * 1e6);
	return v > 100.0 ? 100.0 : v;
}

static void summary_disk(const struct sampler *s, struct sysview *v)
{
	const struct disk_acc *pick = NULL;
	double best = -1;

	for (size_t i = 0; i < s->ndisk; i++) {
		const struct disk_acc *d = &s->disk[i];
		double util;

		if (!(d->time_s > 0))
			continue;
		util = 100.0 * (double)d->io_ticks_ms / (d->time_s * 1000.0);
		if (s->want_disk) {
			if (strcmp(d->name, s->want_disk))
				continue;
		} else if (!(d->rd_ios + d->wr_ios + d->io_ticks_ms) || util <= best) {
			continue;
		}
		pick = d;
		best = util;
	}
	if (!pick)
		return;
	snprintf(v->busiest_disk, sizeof(v->busiest_disk), "%s", pick->name);
	v->disk_util_pct = best > 100.0 ? 100.0 : best;
	v->disk_reads_per_s = (double)pick->rd_ios / pick->time_s;
	v->disk_writes_per_s = (double)pick->wr_ios / pick->time_s;
	v->disk_read_bytes_per_s = (double)pick->rd_sectors * PROC_SECTOR_BYTES / pick->time_s;
	v->disk_write_bytes_per_s = (double)pick->wr_sectors * PROC_SECTOR_BYTES / pick->time_s;
	v->disk_read_requests = pick->rd_ios;
	v->disk_write_requests = pick->wr_ios;
	if (pick->wr_ios)
		v->disk_avg_write_request_bytes = (double)pick->wr_sectors * PROC_SECTOR_BYTES / (double)pick->wr_ios;
	if (pick->rd_ios + pick->wr_ios)
		v->disk_avg_wait_ms = (double)(pick->rd_ms + pick->wr_ms) / (double)(pick->rd_ios + pick->wr_ios);
	v->disk_queue_avg = pick->queue_s / pick->time_s;
}

static void summary_work(const struct sampler *s, struct sysview *v)
{
	const struct thr_acc *top = NULL;
	const struct thr_cpu *on = NULL;

	v->work_threads = s->work_threads_max;
	if (!(s->work_time_s > 0))
		return;
	v->work_cpu_pct = 100.0 * (double)s->work_cpu_ns / 1e9 / s->work_time_s;
	if (s->work_wait_time_s > 0)
		v->work_wait_pct = 100.0 * (double)s->work_wait_ns / 1e9 / s->work_wait_time_s;
	for (size_t i = 0; i < s->nthr; i++)
		if (!top || s->thr[i].cpu_ns > top->cpu_ns)
			top = &s->thr[i];
	if (!top)
		return;
	v->work_thread_cpu_pct = 100.0 * (double)top->cpu_ns / 1e9 / s->work_time_s;
	if (s->work_wait_time_s > 0)
		v->work_thread_wait_pct = 100.0 * (double)top->wait_ns / 1e9 / s->work_wait_time_s;
	for (int i = 0; i < THR_CPUS; i++)
		if (top->on[i].cpu >= 0 && (!on || top->on[i].ns > on->ns))
			on = &top->on[i];
	v->work_thread_cpu = on ? on->cpu : -1;
	snprintf(v->work_thread_comm, sizeof(v->work_thread_comm), "%s", top->comm);
	/*
	 * Children the work waited for during the step (mem --ladder's
	 * measuring child) worked for it: their CPU is the work's. At most
	 * one CPU of it, it stands for the busiest thread when it out-ran
	 * every thread (one child at a time: its CPU is unknown, -1).
	 */
	if (s->work_child_ticks) {
		double child = 100.0 * (double)s->work_child_ticks / (double)s->clk_tck / s->work_time_s;

		v->work_cpu_pct += child;
		if (child > v->work_thread_cpu_pct && child <= 100) {
			v->work_thread_cpu_pct = child;
			v->work_thread_wait_pct = NAN;
			v->work_thread_cpu = -1;
			snprintf(v->work_thread_comm, sizeof(v->work_thread_comm), "(children)");
		}
	}
}

/*
 * Other processes: their CPU, and of it what they used on the CPUs the
 * work ran on. The busiest named are those on the work's CPUs (they are
 * what the work queued behind), then the others.
 */
static void summary_others(const struct sampler *s, struct sysview *v)
{
	bool used[SAMPLER_OTHERS_TRACKED] = { false };
	double per_tick;

	if (!(s->others_time_s > 0))
		return;
	per_tick = 100.0 / (double)s->clk_tck / s->others_time_s;
	v->others_cpu_pct = (double)s->others_ticks * per_tick;
	v->others_on_work_cpus_pct = (double)s->others_on_ticks * per_tick;
	for (int k = 0; k < SYSVIEW_OTHERS; k++) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < s->nother; i++) {
			const struct other_acc *o = &s->other[i], *b = best == SIZE_MAX ? NULL : &s->other[best];

			if (used[i])
				continue;
			if (!b || o->ticks_on > b->ticks_on || (o->ticks_on == b->ticks_on && o->ticks > b->ticks))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		used[best] = true;
		v->others[k].pid = s->other[best].pid;
		memcpy(v->others[k].comm, s->other[best].comm, sizeof(v->others[k].comm));
		v->others[k].cpu_pct = (double)s->other[best].ticks * per_tick;
	}
	/* The busiest at storage, by the bytes they caused. */
	memset(used, 0, sizeof(used));
	for (int k = 0; k < SYSVIEW_OTHERS; k++) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < s->nother; i++) {
			uint64_t io = s->other[i].rbytes + s->other[i].wbytes;

			if (v->busiest_disk[0] && !other_on_disk(&s->other[i], v->busiest_disk))
				continue;	/* its bytes went to another disk */
			if (!used[i] && io && (best == SIZE_MAX || io > s->other[best].rbytes + s->other[best].wbytes))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		used[best] = true;
		v->io_others[k].pid = s->other[best].pid;
		memcpy(v->io_others[k].comm, s->other[best].comm, sizeof(v->io_others[k].comm));
		v->io_others[k].read_bytes = (double)s->other[best].rbytes;
		v->io_others[k].write_bytes = (double)s->other[best].wbytes;
	}
}

static void summary_net(const struct sampler *s, struct sysview *v)
{
	const struct if_acc *pick = NULL;
	uint64_t best = 0;

	for (size_t i = 0; i < s->niface; i++) {
		const struct if_acc *f = &s->iface[i];

		if (!(f->time_s > 0))
			continue;
		if (s->want_iface) {
			if (strcmp(f->name, s->want_iface))
				continue;
		} else if (f->rx + f->tx <= best) {
			continue;
		}
		pick = f;
		best = f->rx + f->tx;
	}
	if (!pick)
		return;
	snprintf(v->busiest_iface, sizeof(v->busiest_iface), "%s", pick->name);
	v->net_rx_bytes_per_s = (double)pick->rx / pick->time_s;
	v->net_tx_bytes_per_s = (double)pick->tx / pick->time_s;
}

/*
 * The work's time budget, with what only the summary knows: the run-queue
 * time the cgroup's quota throttled (of the work's threads that ran), and
 * the requests in flight on the disk the work waited for.
 */
static void summary_budget(const struct sampler *s, struct sysview *v)
{
	struct sysview_budget *b = &v->budget;

	*b = s->budget;
	if (!(b->thread_s > 0))
		return;
	for (unsigned i = 0; i < b->n; i++) {
		struct sysview_budget_entry *e = &b->e[i];

		if (!strcmp(e->state, "run queue") && isfinite(v->cg_cpu_throttled_s) && v->cg_cpu_throttled_s > 0) {
			/* Each of the work's threads that wanted the CPU waited out the throttled time. */
			double q = v->cg_cpu_throttled_s * (b->threads > 0 ? b->threads : 1);
			double rq = e->pct / 100 * b->thread_s;

			b->quota_s = q < rq ? q : rq;
		}
		if (!strcmp(e->state, "disk") && v->busiest_disk[0] && !strcmp(e->what, v->busiest_disk) &&
		    isfinite(v->disk_queue_avg) && !e->detail[0])
			snprintf(e->detail, sizeof(e->detail), "%.1f in flight", v->disk_queue_avg);
	}
}

void sampler_summary(const struct sampler *s, struct sysview *v)
{
	double best = -1;

	sysview_init(v);
	v->samples = s->intervals;
	v->dropped = s->dropped;
	v->gaps = s->gaps;
	if (!s->have_prev)
		return;
	v->duration_s = (double)(elapsed_ns(s->t0, s->t_last) - s->paused_ns) / 1e9;
	v->ncpu = s->ncpu_max;
	v->cpu_busy_pct = pct(s->all_busy, s->all_total);
	v->cpu_iowait_pct = pct(s->all_iowait, s->all_total);
	v->cpu_softirq_pct = pct(s->all_softirq, s->all_total);
	v->cpu_steal_pct = pct(s->all_steal, s->all_total);
	for (int i = 0; i < s->slots; i++) {
		double b;

		if (!s->cpu[i].total)
			continue;
		b = pct(s->cpu[i].busy, s->cpu[i].total);
		if (b > best) {
			best = b;
			v->busiest_cpu = i;
			v->busiest_cpu_busy_pct = b;
			v->busiest_cpu_softirq_pct = pct(s->cpu[i].softirq, s->cpu[i].total);
		}
	}
	if (s->peak_cpu >= 0)
		v->peak_cpu_busy_pct = s->peak_cpu;
	if (s->rq_n)
		v->run_queue_avg = s->rq_sum / s->rq_n;
	summary_disk(s, v);
	v->swap_in_pages_per_s = rate(&s->vm[VM_SWPIN]);
	v->swap_out_pages_per_s = rate(&s->vm[VM_SWPOUT]);
	v->major_faults_per_s = rate(&s->vm[VM_MAJFLT]);
	if (s->mem_min >= 0)
		v->mem_available_min_bytes = s->mem_min;
	v->psi_available = s->psi_available;
	v->psi_cpu_some_pct = stall_pct(&s->psi[PSI_CPU_SOME]);
	v->psi_mem_some_pct = stall_pct(&s->psi[PSI_MEM_SOME]);
	v->psi_mem_full_pct = stall_pct(&s->psi[PSI_MEM_FULL]);
	v->psi_io_some_pct = stall_pct(&s->psi[PSI_IO_SOME]);
	v->psi_io_full_pct = stall_pct(&s->psi[PSI_IO_FULL]);
	summary_net(s, v);
	v->have_proc = s->pid != 0;
	if (v->have_proc) {
		if (s->proc.time_s > 0)
			v->proc_cpu_pct = 100.0 * (double)s->proc.sum / (double)s->clk_tck / s->proc.time_s;
		v->proc_rss_max_bytes = s->rss_max;
	}
	if (s->work_pid)
		summary_work(s, v);
	if (s->others)
		summary_others(s, v);
	netwho_view(s->nw, v);
	if (s->udp_rcvbuf.time_s > 0)
		v->udp_rcvbuf_errors = (double)s->udp_rcvbuf.sum;
	if (s->udp_in.time_s > 0)
		v->udp_in_errors = (double)s->udp_in.sum;
	if (s->have_limits && s->lim_discovered)
		limits_span_view(&s->lim_span, v);
	thermal_view(s->heat, v);
	summary_budget(s, v);
}
