/* SPDX-License-Identifier: MIT */
/*
 * Thread states; see tstate.h for the model. The time of each thread is
 * cut into segments at its schedstat reads (every TSTATE_SCHED_EVERY ticks
 * and at the span edges): a segment's run and run-queue deltas are its CPU
 * and run-queue time, and the rest of its length is shared among the
 * off-CPU samples taken in it. A segment without one gives its off-CPU time
 * to the thread's last known wait (the same wait, most likely, sampled
 * before), or to "unknown".
 */
#include "core/observe/tstate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "core/base/clock.h"
#include "core/kernel/fdres.h"
#include "core/kernel/proc.h"
#include "core/kernel/sockdiag.h"
#include "core/kernel/taskstats.h"

#define KEYS_MAX	64	/* distinct (state, resource, detail) kept over a window */
#define THR_KEYS	8	/* per thread; past it the thread's waits go to its last slot */
#define SEG_KEYS	TSTATE_SCHED_EVERY	/* a segment has at most this many samples */
#define FD_LIST		16	/* fds of one poll/select/epoll looked at */
#define EPOLL_CACHE	16
#define CHILD_EVERY_NS	1000000000ULL	/* the /proc scan for children, where task/TID/children is missing */
#define EPOLL_TTL_NS	1000000000ULL	/* an epoll's watched fds are looked at again after this */
#define OWN_PIPES	8	/* pipes remembered as the work's own (both ends held) */
#define OWN_PIPE_TTL_NS	1000000000ULL	/* and looked at again after this */
#define OWN_PIPE_FDS	1024	/* fds of a process scanned for a pipe's other end */

static const char *const kind_name[TS_KINDS] = {
	[TS_CPU] = "on CPU", [TS_RUNQ] = "run queue", [TS_DISK] = "disk", [TS_NET] = "network",
	[TS_IPC] = "ipc", [TS_SLEEP] = "own sleep", [TS_LOCK] = "lock", [TS_PAGING] = "paging",
	[TS_CHILD] = "children", [TS_SIGNAL] = "signal", [TS_OTHER] = "other", [TS_UNKNOWN] = "unknown",
};

const char *tstate_kind_name(enum tstate_kind k)
{
	return (unsigned)k < TS_KINDS ? kind_name[k] : "unknown";
}

/* ------------------------------------------------------------------ */
/* Pure parts: the syscall file, the syscall table, wait channels */

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* One number: decimal (possibly negative) or 0x hex. Returns the end, or NULL. */
static const char *num(const char *p, const char *e, bool hex, uint64_t *v, bool *neg)
{
	uint64_t x = 0;
	const char *s;

	*neg = false;
	if (!hex && p < e && *p == '-') {
		*neg = true;
		p++;
	}
	if (hex) {
		if (e - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
			return NULL;
		p += 2;
	}
	s = p;
	for (; p < e; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (hex && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / (hex ? 16 : 10))
			return NULL;
		x = x * (hex ? 16 : 10) + d;
	}
	if (p == s || (p < e && *p != ' ' && *p != '\n' && *p != '\t'))
		return NULL;
	*v = x;
	return p;
}

int tstate_syscall_parse(const char *buf, size_t len, struct tstate_syscall *out)
{
	const char *p = buf, *e = buf + len;
	uint64_t v;
	bool neg;
	int words;

	memset(out, 0, sizeof(*out));
	if (!buf || !len)
		return -ENODATA;
	while (e > p && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\0'))
		e--;
	if (e == p)
		return -ENODATA;
	if ((size_t)(e - p) == 7 && !memcmp(p, "running", 7)) {
		out->where = TSC_RUNNING;
		out->nr = -1;
		return 0;
	}
	p = num(p, e, false, &v, &neg);
	if (!p || v > 1000000)
		return -EINVAL;
	if (neg) {
		if (v != 1)
			return -EINVAL;
		out->where = TSC_OUTSIDE;
		out->nr = -1;
		/* "-1 SP PC": two more words, not needed */
		for (words = 0; words < 2; words++) {
			p = skip_ws(p, e);
			if (!(p = num(p, e, true, &v, &neg)))
				return -EINVAL;
		}
		return skip_ws(p, e) == e ? 0 : -EINVAL;
	}
	out->where = TSC_IN;
	out->nr = (long)v;
	/* six arguments, then SP and PC */
	for (words = 0; words < 8; words++) {
		p = skip_ws(p, e);
		if (!(p = num(p, e, true, &v, &neg)))
			return -EINVAL;
		if (words < 6)
			out->arg[words] = v;
	}
	return skip_ws(p, e) == e ? 0 : -EINVAL;
}

/* The syscalls a waiting thread is found in, by this architecture's numbers. */
static const struct sc {
	long nr;
	const char *name;
	enum tstate_sc_class cls;
} sc_table[] = {
#define SC(n, c) { SYS_##n, #n, c },
#ifdef SYS_read
	SC(read, TSC_FDIO)
#endif
#ifdef SYS_write
	SC(write, TSC_FDIO)
#endif
#ifdef SYS_pread64
	SC(pread64, TSC_FDIO)
#endif
#ifdef SYS_pwrite64
	SC(pwrite64, TSC_FDIO)
#endif
#ifdef SYS_readv
	SC(readv, TSC_FDIO)
#endif
#ifdef SYS_writev
	SC(writev, TSC_FDIO)
#endif
#ifdef SYS_preadv
	SC(preadv, TSC_FDIO)
#endif
#ifdef SYS_pwritev
	SC(pwritev, TSC_FDIO)
#endif
#ifdef SYS_preadv2
	SC(preadv2, TSC_FDIO)
#endif
#ifdef SYS_pwritev2
	SC(pwritev2, TSC_FDIO)
#endif
#ifdef SYS_recvfrom
	SC(recvfrom, TSC_FDIO)
#endif
#ifdef SYS_sendto
	SC(sendto, TSC_FDIO)
#endif
#ifdef SYS_recvmsg
	SC(recvmsg, TSC_FDIO)
#endif
#ifdef SYS_sendmsg
	SC(sendmsg, TSC_FDIO)
#endif
#ifdef SYS_recvmmsg
	SC(recvmmsg, TSC_FDIO)
#endif
#ifdef SYS_sendmmsg
	SC(sendmmsg, TSC_FDIO)
#endif
#ifdef SYS_recv
	SC(recv, TSC_FDIO)
#endif
#ifdef SYS_send
	SC(send, TSC_FDIO)
#endif
#ifdef SYS_accept
	SC(accept, TSC_FDIO)
#endif
#ifdef SYS_accept4
	SC(accept4, TSC_FDIO)
#endif
#ifdef SYS_connect
	SC(connect, TSC_FDIO)
#endif
#ifdef SYS_ioctl
	SC(ioctl, TSC_FDIO)
#endif
#ifdef SYS_fallocate
	SC(fallocate, TSC_FDIO)
#endif
#ifdef SYS_ftruncate
	SC(ftruncate, TSC_FDIO)
#endif
#ifdef SYS_flock
	SC(flock, TSC_FDIO)
#endif
#ifdef SYS_fsync
	SC(fsync, TSC_SYNC)
#endif
#ifdef SYS_fdatasync
	SC(fdatasync, TSC_SYNC)
#endif
#ifdef SYS_sync_file_range
	SC(sync_file_range, TSC_SYNC)
#endif
#ifdef SYS_syncfs
	SC(syncfs, TSC_SYNC)
#endif
#ifdef SYS_sendfile
	SC(sendfile, TSC_SENDFILE)
#endif
#ifdef SYS_sendfile64
	SC(sendfile64, TSC_SENDFILE)
#endif
#ifdef SYS_splice
	SC(splice, TSC_SENDFILE)
#endif
#ifdef SYS_copy_file_range
	SC(copy_file_range, TSC_SENDFILE)
#endif
#ifdef SYS_epoll_wait
	SC(epoll_wait, TSC_EPOLL)
#endif
#ifdef SYS_epoll_pwait
	SC(epoll_pwait, TSC_EPOLL)
#endif
#ifdef SYS_epoll_pwait2
	SC(epoll_pwait2, TSC_EPOLL)
#endif
#ifdef SYS_poll
	SC(poll, TSC_POLL)
#endif
#ifdef SYS_ppoll
	SC(ppoll, TSC_POLL)
#endif
#ifdef SYS_select
	SC(select, TSC_SELECT)
#endif
#ifdef SYS__newselect
	SC(_newselect, TSC_SELECT)
#endif
#ifdef SYS_pselect6
	SC(pselect6, TSC_SELECT)
#endif
#ifdef SYS_io_uring_enter
	SC(io_uring_enter, TSC_URING)
#endif
#ifdef SYS_io_getevents
	SC(io_getevents, TSC_URING)
#endif
#ifdef SYS_io_pgetevents
	SC(io_pgetevents, TSC_URING)
#endif
#ifdef SYS_nanosleep
	SC(nanosleep, TSC_SLEEP)
#endif
#ifdef SYS_clock_nanosleep
	SC(clock_nanosleep, TSC_SLEEP)
#endif
#ifdef SYS_futex
	SC(futex, TSC_FUTEX)
#endif
#ifdef SYS_futex_waitv
	SC(futex_waitv, TSC_FUTEX)
#endif
#ifdef SYS_wait4
	SC(wait4, TSC_WAIT)
#endif
#ifdef SYS_waitid
	SC(waitid, TSC_WAIT)
#endif
#ifdef SYS_pause
	SC(pause, TSC_SIGWAIT)
#endif
#ifdef SYS_rt_sigsuspend
	SC(rt_sigsuspend, TSC_SIGWAIT)
#endif
#ifdef SYS_rt_sigtimedwait
	SC(rt_sigtimedwait, TSC_SIGWAIT)
#endif
#ifdef SYS_msync
	SC(msync, TSC_OTHER)	/* arg0 is an address: filed by its wait channel */
#endif
#ifdef SYS_openat
	SC(openat, TSC_OTHER)
#endif
#ifdef SYS_open
	SC(open, TSC_OTHER)
#endif
#ifdef SYS_close
	SC(close, TSC_OTHER)
#endif
#ifdef SYS_unlink
	SC(unlink, TSC_OTHER)
#endif
#ifdef SYS_unlinkat
	SC(unlinkat, TSC_OTHER)
#endif
#ifdef SYS_rename
	SC(rename, TSC_OTHER)
#endif
#ifdef SYS_renameat2
	SC(renameat2, TSC_OTHER)
#endif
#ifdef SYS_mkdir
	SC(mkdir, TSC_OTHER)
#endif
#ifdef SYS_mkdirat
	SC(mkdirat, TSC_OTHER)
#endif
#ifdef SYS_newfstatat
	SC(newfstatat, TSC_OTHER)
#endif
#ifdef SYS_statx
	SC(statx, TSC_OTHER)
#endif
#ifdef SYS_getdents64
	SC(getdents64, TSC_OTHER)
#endif
#ifdef SYS_truncate
	SC(truncate, TSC_OTHER)
#endif
#ifdef SYS_mmap
	SC(mmap, TSC_OTHER)
#endif
#ifdef SYS_munmap
	SC(munmap, TSC_OTHER)
#endif
#ifdef SYS_madvise
	SC(madvise, TSC_OTHER)
#endif
#ifdef SYS_exit_group
	SC(exit_group, TSC_OTHER)
#endif
#ifdef SYS_mount
	SC(mount, TSC_OTHER)
#endif
#ifdef SYS_umount2
	SC(umount2, TSC_OTHER)
#endif
#undef SC
};

enum tstate_sc_class tstate_sc_classify(long nr, char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(sc_table) / sizeof(sc_table[0]); i++)
		if (sc_table[i].nr == nr) {
			if (len)
				snprintf(name, len, "%s", sc_table[i].name);
			return sc_table[i].cls;
		}
	if (len)
		snprintf(name, len, "syscall %ld", nr);
	return TSC_OTHER;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

enum tstate_kind tstate_wchan_family(const char *w, bool *dirty, bool *journal)
{
	*dirty = *journal = false;
	if (!w || !*w || !strcmp(w, "0"))
		return TS_UNKNOWN;
	if (starts(w, "balance_dirty_pages")) {
		*dirty = true;
		return TS_DISK;
	}
	if (starts(w, "jbd2") || starts(w, "jbd2_log_wait_commit") || strstr(w, "journal")) {
		*journal = true;
		return TS_DISK;
	}
	if (starts(w, "io_schedule") || starts(w, "folio_wait") || starts(w, "bit_wait_io") ||
	    starts(w, "blk_") || starts(w, "wait_on_page") || starts(w, "__lock_page") ||
	    starts(w, "submit_bio") || starts(w, "blkdev_") || starts(w, "do_io_getevents") ||
	    starts(w, "io_cqring_wait") || starts(w, "iomap_dio") || starts(w, "ext4_") ||
	    starts(w, "filemap_") || starts(w, "wait_on_buffer") || starts(w, "__wait_on_buffer"))
		return TS_DISK;
	if (starts(w, "sk_wait") || starts(w, "inet_csk") || starts(w, "tcp_") || starts(w, "udp_") ||
	    starts(w, "__skb_wait") || starts(w, "sock_"))
		return TS_NET;
	if (starts(w, "futex"))
		return TS_LOCK;
	if (starts(w, "hrtimer_nanosleep") || starts(w, "do_nanosleep") || starts(w, "schedule_hrtimeout"))
		return TS_SLEEP;
	if (starts(w, "pipe_") || starts(w, "unix_"))
		return TS_IPC;
	if (starts(w, "do_wait"))
		return TS_CHILD;
	return TS_UNKNOWN;
}

/* ------------------------------------------------------------------ */
/* The sampler */

struct key {
	enum tstate_kind kind;
	char what[48], detail[48];
	uint64_t inode;		/* network: the one TCP socket waited on; 0 */
	bool recv;		/* network: waiting to receive (else to send) */
};

/*
 * A TCP socket the work waited on, read over sock_diag when its wait was
 * first seen and at each span's end: what the two readings say about why
 * the data moved as it did (core/kernel/sockdiag.h).
 */
#define NET_PROBES 4
struct netprobe {
	short key;
	bool have_a, judged;
	uint64_t t_a;
	struct sockdiag_tcp a;
	enum sockdiag_why why;
	char evidence[160];
};

/* A segment's samples by key. */
struct seg_key {
	short key;
	unsigned short n;
};

/* A thread's time by key, over the window. */
struct thr_key {
	short key;
	double s;
};

struct proc_task {
	pid_t pid;
	DIR *task;		/* PROC/PID/task, rewound each tick */
	bool gone;
};

struct thr {
	pid_t pid, tid;
	char comm[16];
	int stat_fd, sc_fd, sched_fd;	/* kept open; -1 */
	unsigned gen;		/* the directory scan that last saw it */
	uint64_t last_t, last_run, last_wait;	/* its last schedstat read */
	short off_key;		/* the wait of its last sample when it has not run since; -1 */
	unsigned skip;		/* ticks left before it is read again (it has not run for a while) */
	unsigned still;		/* reads in a row that found it had not run */
	unsigned pending;	/* ticks skipped since its last read */
	bool ts0_ok;		/* its delay accounting at the span's start */
	struct taskstats_delays ts0;
	uint64_t ts0_t;
	bool dead;
	bool in_span;		/* a segment is open (baseline read in this span) */
	uint64_t seg_t, seg_run, seg_wait;	/* the segment's start */
	struct seg_key seg[SEG_KEYS];
	unsigned nseg;
	short last_key;		/* the last wait sampled, for segments without one; -1 */
	bool runnable;		/* its last stat read found it R: off the CPU it waits for one */
	double rq_ahead;	/* run-queue seconds filed ahead of schedstat (runnable, not run since) */
	/* over the window */
	double time_s, cpu_s, runq_s;
	bool busy_wait;		/* a sample in disk, network, ipc, paging, other or unknown */
	struct thr_key k[THR_KEYS];
	unsigned nk;
};

struct epoll_ent {
	pid_t pid;
	int fd;
	uint64_t t;
	short key_kind;		/* enum tstate_kind */
	char what[80];
};

/* A pipe of a process: does the process hold its write end too (a wake-up pipe between its threads)? */
struct own_pipe {
	pid_t pid;
	uint64_t inode, t;
	bool own;
};

static int name_num(const char *s);

struct tstate {
	char *root;
	pid_t pid;
	uint64_t interval_ns;
	bool children, own;
	bool no_children_file;		/* task/TID/children is missing: scan /proc instead */
	struct fdres *fdres;
	struct proc_buf buf;
	struct proc_task *procs;	/* [0] the work, then children */
	size_t nprocs;
	uint64_t child_t;
	struct thr *thr;		/* TSTATE_MAX_THREADS */
	size_t nthr;
	unsigned gen, ticks;
	struct key keys[KEYS_MAX];
	size_t nkeys;
	struct epoll_ent ep[EPOLL_CACHE];
	struct own_pipe op[OWN_PIPES];
	struct netprobe net[NET_PROBES];
	size_t nnet;
	struct sockdiag *sd;		/* opened at the first network wait; NULL */
	struct taskstats_conn *tsc;	/* delay accounting, when the kernel keeps it; NULL */
	bool tsc_failed;
	double d_blkio, d_swapin, d_thrash, d_reclaim;	/* delay accounting over the spans, seconds */
	unsigned d_threads, d_suspect;	/* threads read at both edges; of them, with a suspect total */
	bool sd_failed;
	char sd_why[96];
	unsigned samples;
	bool in_span;
	/* the work's io and faults, at span edges */
	bool io_ok, flt_ok;
	uint64_t io0_r, io0_w, flt0;
	double io_r, io_w, flt;
	bool io_seen, flt_seen;
	int delayacct;
	uint64_t cpu_ns;
};

struct tstate *tstate_new(const struct tstate_config *cfg)
{
	struct tstate *t;
	char line[16];
	char path[64];

	if (!cfg || cfg->pid <= 0 || (cfg->interval_ns && cfg->interval_ns < TSTATE_MIN_INTERVAL_NS))
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->root = xstrdup(cfg->proc_root ? cfg->proc_root : "/proc");
	t->pid = cfg->pid;
	t->interval_ns = cfg->interval_ns ? cfg->interval_ns : TSTATE_DEFAULT_INTERVAL_NS;
	t->children = cfg->children;
	t->own = cfg->own;
	t->fdres = fdres_new(cfg->proc_root, cfg->sys_root);
	t->procs = xcalloc(1 + TSTATE_MAX_CHILDREN, sizeof(*t->procs));
	t->thr = xcalloc(TSTATE_MAX_THREADS, sizeof(*t->thr));
	t->delayacct = -1;
	if (!proc_path(path, sizeof(path), "%s/sys/kernel/task_delayacct", t->root) &&
	    !proc_read_line(path, line, sizeof(line)))
		t->delayacct = line[0] == '1';
	return t;
}

static void thr_close(struct thr *h)
{
	if (h->stat_fd >= 0)
		close(h->stat_fd);
	if (h->sc_fd >= 0)
		close(h->sc_fd);
	if (h->sched_fd >= 0)
		close(h->sched_fd);
	h->stat_fd = h->sc_fd = h->sched_fd = -1;
}

void tstate_free(struct tstate *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthr; i++)
		thr_close(&t->thr[i]);
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].task)
			closedir(t->procs[i].task);
	fdres_free(t->fdres);
	sockdiag_close(t->sd);
	taskstats_close(t->tsc);
	proc_buf_release(&t->buf);
	free(t->procs);
	free(t->thr);
	free(t->root);
	free(t);
}

uint64_t tstate_interval_ns(const struct tstate *t)
{
	return t->interval_ns;
}

uint64_t tstate_cpu_ns(const struct tstate *t)
{
	return t->cpu_ns;
}

static short key_of(struct tstate *t, enum tstate_kind kind, const char *what, const char *detail)
{
	for (size_t i = 0; i < t->nkeys; i++)
		if (t->keys[i].kind == kind && !strcmp(t->keys[i].what, what) && !strcmp(t->keys[i].detail, detail))
			return (short)i;
	if (t->nkeys == KEYS_MAX) {
		/* Full: the same state's "other" entry (the last slot is kept for it). */
		for (size_t i = 0; i < t->nkeys; i++)
			if (t->keys[i].kind == kind && !strcmp(t->keys[i].what, "(others)"))
				return (short)i;
		return (short)(KEYS_MAX - 1);
	}
	if (t->nkeys == KEYS_MAX - 1) {
		what = "(others)";
		detail = "";
	}
	t->keys[t->nkeys].kind = kind;
	snprintf(t->keys[t->nkeys].what, sizeof(t->keys[0].what), "%s", what);
	snprintf(t->keys[t->nkeys].detail, sizeof(t->keys[0].detail), "%s", detail);
	return (short)t->nkeys++;
}

static int open_rel(const struct tstate *t, pid_t pid, pid_t tid, const char *file)
{
	char path[96];

	if (proc_path(path, sizeof(path), "%s/%d/task/%d/%s", t->root, (int)pid, (int)tid, file))
		return -1;
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* schedstat of a thread (its file kept open: read every tick, it is the cheapest file). */
static bool sched_read(struct tstate *t, struct thr *h, uint64_t *run, uint64_t *wait)
{
	if (h->sched_fd < 0)
		h->sched_fd = open_rel(t, h->pid, h->tid, "schedstat");
	return h->sched_fd >= 0 && !proc_buf_pread(&t->buf, h->sched_fd) &&
	       !proc_schedstat_parse(t->buf.data, t->buf.len, run, wait);
}

static void thr_add_key(struct thr *h, short key, double s)
{
	unsigned i;

	if (!(s > 0))
		return;
	for (i = 0; i < h->nk; i++)
		if (h->k[i].key == key) {
			h->k[i].s += s;
			return;
		}
	if (h->nk < THR_KEYS) {
		h->k[h->nk].key = key;
		h->k[h->nk++].s = s;
	} else {
		h->k[THR_KEYS - 1].s += s;
	}
}

/*
 * Closes the thread's open segment at NOW with the counters RUN and WAIT:
 * its CPU and run-queue time, and the rest shared among its samples.
 */
static void seg_close(struct tstate *t, struct thr *h, uint64_t now, uint64_t run, uint64_t wait)
{
	double dt, cpu, rq, off;
	unsigned total = 0;

	if (!h->in_span)
		return;
	dt = now > h->seg_t ? (double)(now - h->seg_t) / 1e9 : 0;
	cpu = run >= h->seg_run ? (double)(run - h->seg_run) / 1e9 : 0;
	rq = wait >= h->seg_wait ? (double)(wait - h->seg_wait) / 1e9 : 0;
	/* Counters read a moment apart from the clock: never more than the segment. */
	if (cpu > dt)
		cpu = dt;
	if (rq > dt - cpu) {
		/*
		 * More run-queue wait than this segment holds: schedstat adds a
		 * wait when the thread gets its CPU, so a thread woken in an
		 * earlier segment and kept off the CPU since (a busy CPU, a
		 * low weight) was filed there under the wait it had been in.
		 * What was not already filed as run queue (rq_ahead) is taken
		 * back from that wait, up to what it holds.
		 */
		double excess = rq - (dt - cpu), ahead = h->rq_ahead < excess ? h->rq_ahead : excess;

		h->rq_ahead -= ahead;
		excess -= ahead;
		if (excess > 1e-3 && h->last_key >= 0)
			for (unsigned i = 0; i < h->nk; i++)
				if (h->k[i].key == h->last_key) {
					double take = h->k[i].s < excess ? h->k[i].s : excess;

					h->k[i].s -= take;
					h->runq_s += take;
					break;
				}
		rq = dt - cpu;
	}
	off = dt - cpu - rq;
	h->time_s += dt;
	h->cpu_s += cpu;
	h->runq_s += rq;
	for (unsigned i = 0; i < h->nseg; i++)
		total += h->seg[i].n;
	if (off > 0) {
		if (total)
			for (unsigned i = 0; i < h->nseg; i++)
				thr_add_key(h, h->seg[i].key, off * h->seg[i].n / total);
		else if (h->last_key >= 0)
			thr_add_key(h, h->last_key, off);
		else if (h->runnable) {
			/*
			 * Found runnable and not run since: run-queue time that
			 * schedstat counts only when the thread gets its CPU
			 * (a low weight on a busy CPU waits for seconds).
			 */
			h->runq_s += off;
			h->rq_ahead += off;
		}
		else
			thr_add_key(h, key_of(t, TS_UNKNOWN, "between samples", ""), off);
	}
	h->nseg = 0;
	h->seg_t = now;
	h->seg_run = run;
	h->seg_wait = wait;
}

static void seg_open(struct thr *h, uint64_t now, uint64_t run, uint64_t wait)
{
	h->in_span = true;
	h->nseg = 0;
	h->seg_t = now;
	h->seg_run = run;
	h->seg_wait = wait;
}

/* Files N samples (ticks) of H under the key K. */
static void seg_key(struct tstate *t, struct thr *h, short k, unsigned n)
{
	enum tstate_kind kind = t->keys[k].kind;

	if (!n)
		return;
	h->off_key = k;
	if (kind != TS_LOCK && kind != TS_SLEEP && kind != TS_CHILD && kind != TS_SIGNAL)
		h->busy_wait = true;
	h->last_key = k;
	t->samples += n;
	for (unsigned i = 0; i < h->nseg; i++)
		if (h->seg[i].key == k) {
			h->seg[i].n = (unsigned short)(h->seg[i].n + n);
			return;
		}
	if (h->nseg < SEG_KEYS) {
		h->seg[h->nseg].key = k;
		h->seg[h->nseg++].n = (unsigned short)n;
	}
}

static void seg_sample(struct tstate *t, struct thr *h, enum tstate_kind kind, const char *what, const char *detail)
{
	seg_key(t, h, key_of(t, kind, what, detail), 1);
}

/* ------------------------------------------------------------------ */
/* From a blocked syscall to a state and a resource */

struct fdwait {
	enum tstate_kind kind;
	char what[80];
	char detail[80];
	uint64_t inode;		/* a TCP socket */
};

static void flags_text(const struct fd_target *f, char *buf, size_t len)
{
	buf[0] = 0;
	if (!f->flags_known) {
		if (f->sync_mount)
			snprintf(buf, len, ", sync mount");
		return;
	}
#ifdef O_DIRECT
	if (f->flags & O_DIRECT)
		snprintf(buf + strlen(buf), len - strlen(buf), ", O_DIRECT");
#endif
	if ((f->flags & O_SYNC) == O_SYNC)
		snprintf(buf + strlen(buf), len - strlen(buf), ", O_SYNC");
	else if (f->flags & O_DSYNC)
		snprintf(buf + strlen(buf), len - strlen(buf), ", O_DSYNC");
	else if (f->sync_mount)
		snprintf(buf + strlen(buf), len - strlen(buf), ", sync mount");
}

/* What waiting on fd target F in syscall NAME is. */
static void fd_state(const struct fd_target *f, const char *name, int fd, struct fdwait *v)
{
	char fl[32];

	snprintf(v->detail, sizeof(v->detail), "%s", name);
	switch (f->kind) {
	case FD_FILE:
	case FD_BLOCKDEV:
		v->kind = TS_DISK;
		snprintf(v->what, sizeof(v->what), "%s", f->dev[0] ? f->dev : "file (no block device)");
		flags_text(f, fl, sizeof(fl));
		snprintf(v->detail, sizeof(v->detail), "%s%s", name, fl);
		return;
	case FD_TCP:
	case FD_UDP:
		v->kind = TS_NET;
		v->inode = f->kind == FD_TCP ? f->inode : 0;
		snprintf(v->what, sizeof(v->what), "%s %s", f->kind == FD_TCP ? "tcp" : "udp",
			 f->peer[0] ? f->peer : (f->local[0] ? f->local : "?"));
		return;
	case FD_UNIX:
		v->kind = TS_IPC;
		snprintf(v->what, sizeof(v->what), "unix %s", f->peer[0] ? f->peer : (f->local[0] ? f->local : "socket"));
		return;
	case FD_PIPE:
		v->kind = TS_IPC;
		snprintf(v->what, sizeof(v->what), "pipe");
		return;
	case FD_EVENTFD:
		v->kind = TS_IPC;
		snprintf(v->what, sizeof(v->what), "eventfd");
		return;
	case FD_TIMERFD:
		v->kind = TS_SLEEP;
		snprintf(v->what, sizeof(v->what), "timerfd");
		return;
	case FD_SIGNALFD:
		v->kind = TS_SIGNAL;
		snprintf(v->what, sizeof(v->what), "signalfd");
		return;
	case FD_UNKNOWN:
		v->kind = TS_UNKNOWN;
		snprintf(v->what, sizeof(v->what), "fd %d", fd);
		return;
	default:
		v->kind = TS_OTHER;
		snprintf(v->what, sizeof(v->what), "%s", fd_kind_name(f->kind));
		return;
	}
}

/*
 * Whether process PID holds the write end of its pipe INODE too: a pipe
 * between its own threads (libevent's and glib's wake-up pipes, a worker
 * pool's job pipe), so a thread blocked reading it waits for another
 * thread of the work, as on a condition variable, not for another
 * process. Its fds (the first OWN_PIPE_FDS) are scanned for another link
 * to the pipe opened write-only (fdinfo's flags); remembered per pid and
 * inode for OWN_PIPE_TTL_NS. Unreadable: false (another process, the
 * wait stays "ipc").
 */
static bool own_pipe(struct tstate *t, pid_t pid, uint64_t inode, uint64_t now)
{
	struct own_pipe *slot = &t->op[0];
	char path[96], want[40], link[48];
	struct dirent *de;
	unsigned seen = 0;
	bool own = false;
	DIR *d;

	for (size_t i = 0; i < OWN_PIPES; i++) {
		struct own_pipe *o = &t->op[i];

		if (o->pid == pid && o->inode == inode && now - o->t < OWN_PIPE_TTL_NS)
			return o->own;
		if (o->t < slot->t)
			slot = o;
	}
	snprintf(want, sizeof(want), "pipe:[%llu]", (unsigned long long)inode);
	if (!proc_path(path, sizeof(path), "%s/%d/fd", t->root, (int)pid) && (d = opendir(path))) {
		while (!own && seen++ < OWN_PIPE_FDS && (de = readdir(d))) {
			const struct fd_target *f;
			char lp[128];
			ssize_t n;
			int fd = name_num(de->d_name);

			if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
			    proc_path(lp, sizeof(lp), "%s/%d/fd/%s", t->root, (int)pid, de->d_name))
				continue;
			n = readlink(lp, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = 0;
			if (strcmp(link, want) || fdres_lookup(t->fdres, pid, fd, &f))
				continue;
			own = f->kind == FD_PIPE && f->flags_known && (f->flags & O_ACCMODE) == O_WRONLY;
		}
		closedir(d);
	}
	slot->pid = pid;
	slot->inode = inode;
	slot->t = now;
	slot->own = own;
	return own;
}

/* A wait on a pipe of the work's own (own_pipe()): its threads waiting for each other, filed as a lock. */
static void own_pipe_state(struct fdwait *v, const char *name)
{
	v->kind = TS_LOCK;
	snprintf(v->what, sizeof(v->what), "own pipe");
	snprintf(v->detail, sizeof(v->detail), "%s", name);
}

/*
 * A wait on several fds (epoll, poll, select): the network when any is a
 * TCP or UDP socket (the one peer, or how many), else a local process
 * when any is a pipe, unix socket or eventfd, else "other".
 */
static void fds_state(struct tstate *t, pid_t pid, const int *fds, size_t n, const char *name, uint64_t now,
		      struct fdwait *v)
{
	size_t nnet = 0, nipc = 0, nown = 0;
	struct fdwait one = { .kind = TS_OTHER, .inode = 0 };

	for (size_t i = 0; i < n; i++) {
		const struct fd_target *f;
		struct fdwait x;
		uint64_t pipe = 0;

		if (fdres_lookup(t->fdres, pid, fds[i], &f) || f->kind == FD_UNKNOWN)
			continue;
		fd_state(f, name, fds[i], &x);
		if (f->kind == FD_PIPE)
			pipe = f->inode;	/* F dies with the next lookup (own_pipe's) */
		if (x.kind == TS_NET && (f->tcp_state < 0 || f->tcp_state != 10 /* LISTEN */)) {
			if (!nnet++)
				one = x;
		} else if (x.kind == TS_NET) {
			if (!nnet && !nipc)
				one = x;	/* a listening socket: waiting for clients */
			nnet++;
		} else if (pipe && own_pipe(t, pid, pipe, now)) {
			nown++;
		} else if (x.kind == TS_IPC) {
			if (!nnet && !nipc++)
				one = x;
		}
	}
	snprintf(v->detail, sizeof(v->detail), "%s", name);
	if (nnet) {
		v->kind = TS_NET;
		v->inode = nnet == 1 ? one.inode : 0;
		if (nnet == 1)
			snprintf(v->what, sizeof(v->what), "%s", one.what);
		else
			snprintf(v->what, sizeof(v->what), "%zu sockets", nnet);
	} else if (nipc) {
		v->kind = TS_IPC;
		snprintf(v->what, sizeof(v->what), "%s", one.what);
	} else if (nown) {
		own_pipe_state(v, name);
	} else if (!n) {
		v->kind = TS_SLEEP;	/* a timed wait on no fd at all (an empty epoll set, select with nfds 0) */
		snprintf(v->what, sizeof(v->what), "%s", name);
	} else {
		v->kind = TS_OTHER;
		snprintf(v->what, sizeof(v->what), "%s", name);
	}
}

static void epoll_state(struct tstate *t, pid_t pid, int epfd, uint64_t now, const char *name, struct fdwait *v)
{
	struct epoll_ent *slot = &t->ep[0];
	int fds[FD_LIST];
	int n;

	for (size_t i = 0; i < EPOLL_CACHE; i++) {
		struct epoll_ent *e = &t->ep[i];

		if (e->pid == pid && e->fd == epfd && now - e->t < EPOLL_TTL_NS) {
			v->kind = (enum tstate_kind)e->key_kind;
			snprintf(v->what, sizeof(v->what), "%s", e->what);
			snprintf(v->detail, sizeof(v->detail), "%s", name);
			return;
		}
		if (e->t < slot->t)
			slot = e;
	}
	n = fdres_epoll_fds(t->fdres, pid, epfd, fds, FD_LIST);
	if (n < 0) {
		v->kind = TS_OTHER;	/* its fdinfo unreadable: not known to watch nothing */
		snprintf(v->what, sizeof(v->what), "%s", name);
		snprintf(v->detail, sizeof(v->detail), "%s", name);
	} else {
		fds_state(t, pid, fds, (size_t)n, name, now, v);
	}
	slot->pid = pid;
	slot->fd = epfd;
	slot->t = now;
	slot->key_kind = (short)v->kind;
	snprintf(slot->what, sizeof(slot->what), "%s", v->what);
}

/* poll's pollfd array or select's fd sets, read from the process (root or the process itself). */
static int user_fds(pid_t pid, const struct tstate_syscall *sc, bool is_poll, int *fds)
{
	int n = 0;

	if (is_poll) {
		struct pollfd p[FD_LIST];
		size_t cnt = sc->arg[1] < FD_LIST ? (size_t)sc->arg[1] : FD_LIST;
		struct iovec l = { p, cnt * sizeof(p[0]) }, r = { (void *)(uintptr_t)sc->arg[0], cnt * sizeof(p[0]) };

		if (!cnt)
			return 0;	/* poll on nothing: a sleep */
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)(cnt * sizeof(p[0])))
			return -1;
		for (size_t i = 0; i < cnt; i++)
			if (p[i].fd >= 0)
				fds[n++] = p[i].fd;
		return n;
	}
	/* select(nfds, readfds, writefds, ...): the first FD_LIST fds set in either */
	{
		unsigned char set[2][128];
		uint64_t nfds = sc->arg[0] < 1024 ? sc->arg[0] : 1024;
		size_t bytes = (size_t)(nfds + 7) / 8;

		if (!nfds)
			return 0;	/* select on nothing: a sleep (curl's wait with no transfer) */
		for (int w = 0; w < 2; w++) {
			struct iovec l = { set[w], bytes }, r = { (void *)(uintptr_t)sc->arg[1 + w], bytes };

			memset(set[w], 0, sizeof(set[w]));
			if (sc->arg[1 + w] && process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)bytes)
				return -1;
		}
		for (uint64_t fd = 0; fd < nfds && n < FD_LIST; fd++)
			if ((set[0][fd / 8] | set[1][fd / 8]) & (1u << (fd % 8)))
				fds[n++] = (int)fd;
		return n;
	}
}

static void wchan_read(struct tstate *t, const struct thr *h, char *buf, size_t len)
{
	int fd = open_rel(t, h->pid, h->tid, "wchan");

	buf[0] = 0;
	if (fd < 0)
		return;
	if (!proc_buf_pread(&t->buf, fd))
		snprintf(buf, len, "%s", t->buf.data);
	close(fd);
}

/* The sock_diag socket, in the work's network namespace (opened once; a failure is said once). */
static struct sockdiag *net_diag(struct tstate *t)
{
	int r;

	if (t->sd || t->sd_failed)
		return t->sd;
	r = t->own ? sockdiag_open(&t->sd, t->sd_why, sizeof(t->sd_why))
		   : sockdiag_open_ns(&t->sd, t->pid, t->sd_why, sizeof(t->sd_why));
	if (r < 0) {
		t->sd = NULL;
		t->sd_failed = true;
	}
	return t->sd;
}

/* The first reading of a network wait's socket (at most NET_PROBES sockets a window). */
static void net_probe_first(struct tstate *t, short key, uint64_t now)
{
	struct netprobe *p;
	struct sockdiag *d;
	char why[96];

	if (t->nnet == NET_PROBES || !(d = net_diag(t)))
		return;
	p = &t->net[t->nnet];
	memset(p, 0, sizeof(*p));
	p->key = key;
	if (sockdiag_tcp_by_inode(d, &t->keys[key].inode, 1, &p->a, why, sizeof(why)) == 1 && p->a.found) {
		p->have_a = true;
		p->t_a = now;
		t->nnet++;
	}
}

/* The second reading of each socket, at a span's end, and what the two say. */
static void net_probe_end(struct tstate *t, uint64_t now)
{
	uint64_t ino[NET_PROBES];
	struct sockdiag_tcp b[NET_PROBES];
	char why[96];
	size_t n = 0;

	if (!t->nnet || !t->sd)
		return;
	for (size_t i = 0; i < t->nnet; i++)
		ino[n++] = t->keys[t->net[i].key].inode;
	if (sockdiag_tcp_by_inode(t->sd, ino, n, b, why, sizeof(why)) < 0)
		return;
	for (size_t i = 0; i < t->nnet; i++) {
		struct netprobe *p = &t->net[i];
		double dt = now > p->t_a ? (double)(now - p->t_a) / 1e9 : 0;

		if (!p->have_a || !b[i].found || !(dt > 0))
			continue;
		p->why = sockdiag_judge(&p->a, &b[i], dt, t->keys[p->key].recv, p->evidence, sizeof(p->evidence));
		p->judged = true;
	}
}

/* Files one off-CPU sample of thread H in state ST. */
static void classify(struct tstate *t, struct thr *h, char st, uint64_t now)
{
	struct tstate_syscall sc;
	struct fdwait v = { .kind = TS_UNKNOWN };
	char name[32], wchan[40] = "";
	bool dirty = false, journal = false;
	enum tstate_sc_class cls;
	const struct fd_target *f;
	int fds[FD_LIST], n;

	if (h->sc_fd < 0)
		h->sc_fd = open_rel(t, h->pid, h->tid, "syscall");
	if (h->sc_fd < 0 || proc_buf_pread(&t->buf, h->sc_fd) ||
	    tstate_syscall_parse(t->buf.data, t->buf.len, &sc)) {
		/* No syscall file to read (privilege, or gone): the state letter and wchan only. */
		if (st == 'D') {
			wchan_read(t, h, wchan, sizeof(wchan));
			v.kind = tstate_wchan_family(wchan, &dirty, &journal);
			if (v.kind == TS_UNKNOWN)
				v.kind = TS_DISK;
			snprintf(v.what, sizeof(v.what), "%s", v.kind == TS_DISK ? "?" : wchan);
			snprintf(v.detail, sizeof(v.detail), "D state%s%s", wchan[0] ? ", " : "", wchan);
		} else {
			snprintf(v.what, sizeof(v.what), "syscall unreadable");
		}
		seg_sample(t, h, v.kind, v.what, v.detail);
		return;
	}
	if (sc.where == TSC_RUNNING)
		return;		/* it ran again by the time we looked: schedstat has it */
	if (sc.where == TSC_OUTSIDE) {
		/*
		 * Blocked outside a syscall in D: a page fault. Otherwise it
		 * left its syscall between the two reads and waits for a CPU in
		 * user mode (schedstat has that time): no sample.
		 */
		if (st == 'D') {
			wchan_read(t, h, wchan, sizeof(wchan));
			seg_sample(t, h, TS_PAGING, "page fault", wchan);
		}
		return;
	}
	cls = tstate_sc_classify(sc.nr, name, sizeof(name));
	switch (cls) {
	case TSC_FDIO:
	case TSC_SYNC:
	case TSC_SENDFILE:
		if (fdres_lookup(t->fdres, h->pid, (int)sc.arg[0], &f)) {
			snprintf(v.what, sizeof(v.what), "fd %d", (int)sc.arg[0]);
		} else {
			uint64_t pipe = f->kind == FD_PIPE ? f->inode : 0;

			fd_state(f, name, (int)sc.arg[0], &v);
			/* sendfile/splice to a socket from a file: which side waits is the socket (out) */
			if (pipe && cls == TSC_FDIO && own_pipe(t, h->pid, pipe, now))
				own_pipe_state(&v, name);
		}
		if (cls == TSC_SYNC && v.kind == TS_DISK)
			snprintf(v.detail, sizeof(v.detail), "%s", name);
		break;
	case TSC_EPOLL:
		epoll_state(t, h->pid, (int)sc.arg[0], now, name, &v);
		break;
	case TSC_POLL:
	case TSC_SELECT:
		n = user_fds(h->pid, &sc, cls == TSC_POLL, fds);
		if (n > 0) {
			fds_state(t, h->pid, fds, (size_t)n, name, now, &v);
		} else {
			v.kind = n == 0 ? TS_SLEEP : TS_OTHER;	/* poll on nothing is a sleep */
			snprintf(v.what, sizeof(v.what), "%s", name);
		}
		break;
	case TSC_URING:
		v.kind = TS_DISK;
		snprintf(v.what, sizeof(v.what), "%s", "async I/O");
		snprintf(v.detail, sizeof(v.detail), "%s", name);
		break;
	case TSC_SLEEP:
		v.kind = TS_SLEEP;
		snprintf(v.what, sizeof(v.what), "%s", name);
		break;
	case TSC_FUTEX:
		v.kind = TS_LOCK;
		snprintf(v.what, sizeof(v.what), "futex");
		break;
	case TSC_WAIT:
		v.kind = TS_CHILD;
		snprintf(v.what, sizeof(v.what), "%s", name);
		break;
	case TSC_SIGWAIT:
		v.kind = TS_SIGNAL;
		snprintf(v.what, sizeof(v.what), "%s", name);
		break;
	case TSC_OTHER:
		v.kind = TS_OTHER;
		snprintf(v.what, sizeof(v.what), "%s", name);
		break;
	}
	/* In D, the wait channel says what a disk wait is (or that another syscall waits on the disk). */
	if (st == 'D' && (v.kind == TS_DISK || v.kind == TS_OTHER || v.kind == TS_UNKNOWN)) {
		enum tstate_kind fam;

		wchan_read(t, h, wchan, sizeof(wchan));
		fam = tstate_wchan_family(wchan, &dirty, &journal);
		if (fam == TS_DISK && v.kind != TS_DISK) {
			v.kind = TS_DISK;
			snprintf(v.detail, sizeof(v.detail), "%s", name);
			snprintf(v.what, sizeof(v.what), "?");
		}
		if (dirty)
			snprintf(v.detail, sizeof(v.detail), "%s, dirty-page throttling", name);
		else if (journal)
			snprintf(v.detail, sizeof(v.detail), "%s, journal commit", name);
	}
	seg_sample(t, h, v.kind, v.what, v.detail);
	if (v.kind == TS_NET && v.inode && h->off_key >= 0) {
		struct key *k = &t->keys[h->off_key];

		if (!k->inode) {
			k->inode = v.inode;
			k->recv = !strncmp(name, "recv", 4) || !strncmp(name, "read", 4) || cls == TSC_EPOLL ||
				  cls == TSC_POLL || cls == TSC_SELECT;
			net_probe_first(t, h->off_key, now);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Threads */

static int name_num(const char *s)
{
	long v = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

static struct thr *thr_find(struct tstate *t, pid_t pid, pid_t tid)
{
	for (size_t i = 0; i < t->nthr; i++)
		if (t->thr[i].tid == tid && t->thr[i].pid == pid && !t->thr[i].dead)
			return &t->thr[i];
	return NULL;
}

static struct thr *thr_add(struct tstate *t, pid_t pid, pid_t tid)
{
	struct thr *h;

	if (t->nthr == TSTATE_MAX_THREADS)
		return NULL;	/* past the bound: not counted, as tstate.h says */
	h = &t->thr[t->nthr++];
	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->tid = tid;
	h->stat_fd = h->sc_fd = h->sched_fd = -1;
	h->last_key = h->off_key = -1;
	return h;
}

/* State letter and comm from a stat text; 0 when it does not parse. */
static char stat_state(const char *buf, size_t len, char *comm, size_t clen)
{
	const char *o = memchr(buf, '(', len), *c = NULL;

	for (const char *p = buf + len; p > buf; p--)
		if (p[-1] == ')') {
			c = p - 1;
			break;
		}
	if (!o || !c || c < o || c + 2 >= buf + len)
		return 0;
	snprintf(comm, clen, "%.*s", (int)(c - o - 1 < (long)clen - 1 ? c - o - 1 : (long)clen - 1), o + 1);
	return c[2];
}

static void child_add(struct tstate *t, pid_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return;
	if (t->nprocs < 1 + TSTATE_MAX_CHILDREN) {
		t->procs[t->nprocs].pid = pid;
		t->procs[t->nprocs].task = NULL;
		t->procs[t->nprocs++].gone = false;
	}
}

/*
 * The work's children (and theirs) from each known thread's
 * task/TID/children (CONFIG_PROC_CHILDREN): cheap enough for every
 * directory scan. Returns false when the kernel has no such file.
 */
static bool children_fast(struct tstate *t)
{
	for (size_t i = 0; i < t->nthr; i++) {
		struct thr *h = &t->thr[i];
		int fd;
		const char *p;

		if (h->dead)
			continue;
		fd = open_rel(t, h->pid, h->tid, "children");
		if (fd < 0) {
			if (errno == ENOENT && i == 0)
				return false;
			continue;
		}
		if (!proc_buf_pread(&t->buf, fd))
			for (p = t->buf.data; *p;) {
				long v = 0;

				while (*p == ' ' || *p == '\n')
					p++;
				while (*p >= '0' && *p <= '9' && v < 100000000)
					v = v * 10 + (*p++ - '0');
				if (v > 0)
					child_add(t, (pid_t)v);
				while (*p && *p != ' ' && *p != '\n')
					p++;
			}
		close(fd);
	}
	return true;
}

/* The work's children (and theirs), by a scan of PROC/[0-9]*.stat's ppid. */
static void children_refresh(struct tstate *t)
{
	DIR *d = opendir(t->root);
	struct dirent *de;
	pid_t set[1 + TSTATE_MAX_CHILDREN];
	size_t n = 1;
	bool grew = true;
	struct {
		pid_t pid, ppid;
	} *all;
	size_t nall = 0, cap = 4096;

	if (!d)
		return;
	all = xcalloc(cap, sizeof(*all));
	while ((de = readdir(d)) && nall < cap) {
		int pid = name_num(de->d_name);
		char path[64];
		struct proc_pid_stat ps;

		if (!pid || pid == t->pid)
			continue;
		if (proc_path(path, sizeof(path), "%s/%d/stat", t->root, pid) || proc_buf_read_file(&t->buf, path) ||
		    proc_pid_stat_parse(&ps, t->buf.data, t->buf.len))
			continue;
		all[nall].pid = pid;
		all[nall++].ppid = ps.ppid;
	}
	closedir(d);
	set[0] = t->pid;
	while (grew && n < 1 + TSTATE_MAX_CHILDREN) {
		grew = false;
		for (size_t i = 0; i < nall && n < 1 + TSTATE_MAX_CHILDREN; i++) {
			bool parent = false, have = false;

			for (size_t j = 0; j < n; j++) {
				parent |= all[i].ppid == set[j];
				have |= all[i].pid == set[j];
			}
			if (parent && !have) {
				set[n++] = all[i].pid;
				grew = true;
			}
		}
	}
	free(all);
	/* Add the new ones; a gone one is noticed by its task directory. */
	for (size_t j = 1; j < n; j++) {
		bool have = false;

		for (size_t i = 0; i < t->nprocs; i++)
			have |= t->procs[i].pid == set[j] && !t->procs[i].gone;
		if (!have && t->nprocs < 1 + TSTATE_MAX_CHILDREN) {
			t->procs[t->nprocs].pid = set[j];
			t->procs[t->nprocs].task = NULL;
			t->procs[t->nprocs++].gone = false;
		}
	}
}

/*
 * One thread at a tick (or an edge): its schedstat, and when it ran since
 * the last tick its state letter, and when off the CPU what it waits for.
 * A thread that has not run since its last sample is still in the same
 * wait: that sample is counted again without reading anything else. A
 * thread whose schedstat cannot be read has exited: its last segment ends
 * at its last read. Returns false then.
 */
static bool thr_tick(struct tstate *t, struct thr *h, uint64_t now, int edge, bool seg)
{
	uint64_t run, wait;
	char st, comm[16];
	bool ran;
	unsigned missed;

	/*
	 * A thread that has not run for a while is read every 2, 4, then
	 * TSTATE_STILL_MAX ticks (and at every segment's end): the ticks
	 * between count for the wait it was found in, which is exact as long
	 * as it has not run. One found to have run since gives half of them
	 * to its old wait and starts over at every tick.
	 */
	if (!edge && !seg && h->skip) {
		h->skip--;
		h->pending++;
		return true;
	}
	missed = h->pending;
	h->pending = 0;
	h->skip = 0;
	if (!sched_read(t, h, &run, &wait)) {
		if (h->in_span && h->last_t)
			seg_close(t, h, h->last_t, h->last_run, h->last_wait);
		h->dead = true;
		h->in_span = false;
		thr_close(h);
		return false;
	}
	ran = !h->last_t || run != h->last_run;
	h->last_t = now;
	h->last_run = run;
	h->last_wait = wait;
	if (!h->in_span) {
		if (edge != 2)
			seg_open(h, now, run, wait);
		h->off_key = -1;
		h->still = 0;
		return true;
	}
	if (missed && h->off_key >= 0)
		seg_key(t, h, h->off_key, ran ? missed / 2 : missed);
	if (seg || edge)
		seg_close(t, h, now, run, wait);
	if (edge == 2) {
		h->in_span = false;
		return true;
	}
	if (edge)
		return true;
	if (!ran && h->off_key >= 0) {
		unsigned every;

		seg_key(t, h, h->off_key, 1);
		if (h->still < 3)
			h->still++;
		every = 1u << h->still;
		h->skip = (every < TSTATE_STILL_MAX ? every : TSTATE_STILL_MAX) - 1;
		return true;
	}
	h->still = 0;
	h->off_key = -1;
	if (h->stat_fd < 0)
		h->stat_fd = open_rel(t, h->pid, h->tid, "stat");
	if (h->stat_fd < 0 || proc_buf_pread(&t->buf, h->stat_fd) ||
	    !(st = stat_state(t->buf.data, t->buf.len, comm, sizeof(comm))))
		return true;	/* gone since: the next schedstat read says so */
	memcpy(h->comm, comm, sizeof(h->comm));
	h->runnable = st == 'R';
	if (st != 'R')
		classify(t, h, st, now);
	return true;
}

/*
 * Walks every thread of the work: EDGE 1 = span begin (baseline), 2 = span
 * end (close), 0 = a tick. The task directories are read at the edges and
 * every TSTATE_SCHED_EVERY ticks (new threads are found then; one born
 * between counts from there), when the threads' segments are closed too.
 */
/* The threads of process PT, from its task directory (new ones added). */
static void scan_proc(struct tstate *t, struct proc_task *pt, pid_t exclude)
{
	struct dirent *de;

	if (pt->gone)
		return;
	if (!pt->task) {
		char path[64];

		if (proc_path(path, sizeof(path), "%s/%d/task", t->root, (int)pt->pid) || !(pt->task = opendir(path))) {
			pt->gone = true;
			return;
		}
	}
	rewinddir(pt->task);
	while ((de = readdir(pt->task))) {
		int tid = name_num(de->d_name);
		struct thr *h;

		if (!tid || tid == exclude)
			continue;
		h = thr_find(t, pt->pid, tid);
		if (!h && !(h = thr_add(t, pt->pid, tid)))
			continue;
		h->gen = t->gen;
	}
}

static void walk(struct tstate *t, uint64_t now, pid_t exclude, int edge)
{
	bool scan = edge || t->ticks % TSTATE_SCHED_EVERY == 0;

	if (!t->nprocs) {
		t->procs[0].pid = t->pid;
		t->nprocs = 1;
	}
	if (scan) {
		size_t known;

		t->gen++;
		for (size_t p = 0; p < t->nprocs; p++)
			scan_proc(t, &t->procs[p], exclude);
		/*
		 * Children: from the threads' children files at every directory
		 * scan (their threads read at once), or, where the kernel has
		 * none, a scan of every process each second.
		 */
		if (t->children && t->no_children_file && (edge == 1 || now - t->child_t >= CHILD_EVERY_NS)) {
			known = t->nprocs;
			children_refresh(t);
			t->child_t = now;
			for (size_t p = known; p < t->nprocs; p++)
				scan_proc(t, &t->procs[p], exclude);
		}
		/* A child's own children (a sandbox's helper and the process it runs): a few levels deep. */
		for (int depth = 0; depth < 4 && t->children && !t->no_children_file; depth++) {
			known = t->nprocs;
			if (!children_fast(t)) {
				t->no_children_file = true;
				break;
			}
			if (t->nprocs == known)
				break;
			for (size_t p = known; p < t->nprocs; p++)
				scan_proc(t, &t->procs[p], exclude);
		}
	}
	for (size_t i = 0; i < t->nthr; i++) {
		struct thr *h = &t->thr[i];

		if (h->dead || h->tid == exclude)
			continue;
		(void)thr_tick(t, h, now, edge, scan);
	}
	if (edge == 2)
		for (size_t i = 0; i < t->nthr; i++)
			t->thr[i].in_span = false;
}

/*
 * Delay accounting (core/kernel/taskstats.h) of each live thread at the span's
 * edges, where the kernel keeps it: the exact block-I/O, swap-in,
 * thrashing and reclaim waits, a cross-check of the sampled budget. A
 * total the module marks suspect (longer than the thread's life: seen on
 * 6.18) is left out and counted.
 */
static void delays_edge(struct tstate *t, bool begin, uint64_t now)
{
	char why[96];

	if (t->delayacct != 1 || t->tsc_failed)
		return;
	if (!t->tsc && taskstats_open(&t->tsc, why, sizeof(why)) < 0) {
		t->tsc = NULL;
		t->tsc_failed = true;
		return;
	}
	for (size_t i = 0; i < t->nthr; i++) {
		struct thr *h = &t->thr[i];
		struct taskstats_delays d;

		if (h->dead)
			continue;
		if (taskstats_tid(t->tsc, h->tid, &d) < 0) {
			h->ts0_ok = false;
			continue;
		}
		if (begin) {
			h->ts0 = d;
			h->ts0_t = now;
			h->ts0_ok = true;
			continue;
		}
		if (!h->ts0_ok)
			continue;
		h->ts0_ok = false;
		/* A wait longer than the span (by 5 %) is as impossible as one longer than the thread's life. */
		if ((d.suspect | h->ts0.suspect) & (TSD_SUSPECT_BLKIO | TSD_SUSPECT_SWAPIN | TSD_SUSPECT_THRASHING) ||
		    d.blkio_ns < h->ts0.blkio_ns || d.swapin_ns < h->ts0.swapin_ns ||
		    (double)(d.blkio_ns - h->ts0.blkio_ns) > 1.05 * (double)(now - h->ts0_t)) {
			t->d_suspect++;
			continue;
		}
		t->d_threads++;
		t->d_blkio += (double)(d.blkio_ns - h->ts0.blkio_ns) / 1e9;
		t->d_swapin += (double)(d.swapin_ns - h->ts0.swapin_ns) / 1e9;
		if (d.have_thrashing && d.thrashing_ns >= h->ts0.thrashing_ns)
			t->d_thrash += (double)(d.thrashing_ns - h->ts0.thrashing_ns) / 1e9;
		if (d.have_freepages && d.freepages_ns >= h->ts0.freepages_ns)
			t->d_reclaim += (double)(d.freepages_ns - h->ts0.freepages_ns) / 1e9;
	}
}

/* The work's storage bytes and major faults (the process, exited threads included). */
static void proc_edge(struct tstate *t, bool begin)
{
	char path[64];
	uint64_t r = 0, w = 0;
	bool io = false, flt = false;
	struct proc_pid_stat ps;

	struct proc_pid_io pio;

	if (!proc_path(path, sizeof(path), "%s/%d/io", t->root, (int)t->pid) && !proc_buf_read_file(&t->buf, path) &&
	    !proc_pid_io_parse(&pio, t->buf.data, t->buf.len)) {
		r = pio.read_bytes;
		w = pio.write_bytes;
		io = true;
	}
	if (!proc_path(path, sizeof(path), "%s/%d/stat", t->root, (int)t->pid) && !proc_buf_read_file(&t->buf, path) &&
	    !proc_pid_stat_parse(&ps, t->buf.data, t->buf.len))
		flt = true;
	if (begin) {
		t->io_ok = io;
		t->io0_r = r;
		t->io0_w = w;
		t->flt_ok = flt;
		t->flt0 = flt ? ps.majflt : 0;
		return;
	}
	if (t->io_ok && io && r >= t->io0_r && w >= t->io0_w) {
		t->io_r += (double)(r - t->io0_r);
		t->io_w += (double)(w - t->io0_w);
		t->io_seen = true;
	}
	if (t->flt_ok && flt && ps.majflt >= t->flt0) {
		t->flt += (double)(ps.majflt - t->flt0);
		t->flt_seen = true;
	}
}

void tstate_span_begin(struct tstate *t, uint64_t now_ns, pid_t exclude_tid)
{
	uint64_t c0 = clock_thread_cpu_ns();

	t->in_span = true;
	t->ticks = 0;
	proc_edge(t, true);
	walk(t, now_ns, exclude_tid, 1);
	delays_edge(t, true, now_ns);
	t->cpu_ns += clock_thread_cpu_ns() - c0;
}

void tstate_span_end(struct tstate *t, uint64_t now_ns, pid_t exclude_tid)
{
	uint64_t c0 = clock_thread_cpu_ns();

	if (!t->in_span)
		return;
	delays_edge(t, false, now_ns);
	walk(t, now_ns, exclude_tid, 2);
	proc_edge(t, false);
	net_probe_end(t, now_ns);
	t->in_span = false;
	t->cpu_ns += clock_thread_cpu_ns() - c0;
}

void tstate_tick(struct tstate *t, uint64_t now_ns, pid_t exclude_tid)
{
	uint64_t c0 = clock_thread_cpu_ns();

	if (!t->in_span)
		return;
	t->ticks++;
	walk(t, now_ns, exclude_tid, 0);
	t->cpu_ns += clock_thread_cpu_ns() - c0;
}

/* ------------------------------------------------------------------ */
/* The budget */

static bool thr_idle(const struct tstate *t, const struct thr *h)
{
	if (!(h->time_s > 0))
		return false;
	if (t->own && h->cpu_s < TSTATE_IDLE_CPU * h->time_s)
		return true;
	/* Both: a coordinator or a daemon's housekeeping timer loop (tstate.h). */
	if (!(h->cpu_s < TSTATE_IDLE_CPU_OWN * h->time_s))
		return false;
	if (!h->busy_wait)
		return true;
	/* A stray busy sample (a timer loop's brief write) does not make it the work: by time. */
	{
		double idle = 0, all = 0;

		for (unsigned k = 0; k < h->nk; k++) {
			enum tstate_kind kind = t->keys[h->k[k].key].kind;

			all += h->k[k].s;
			if (kind == TS_LOCK || kind == TS_SLEEP || kind == TS_CHILD || kind == TS_SIGNAL)
				idle += h->k[k].s;
		}
		return all > 0 && idle >= TSTATE_IDLE_WAITS * all;
	}
}

static int by_s(const void *pa, const void *pb)
{
	const struct sysview_budget_entry *a = pa, *b = pb;

	return a->pct < b->pct ? 1 : a->pct > b->pct ? -1 : 0;
}

void tstate_budget(const struct tstate *t, struct sysview_budget *out)
{
	double *ks = xcalloc(KEYS_MAX, sizeof(double));
	double total = 0, cpu = 0, rq = 0, other = 0;
	bool any_busy = false;
	struct sysview_budget_entry *e;
	size_t ne = 0, cap = KEYS_MAX + 2;

	out->thread_s = out->idle_s = NAN;
	out->threads = out->idle_threads = 0;
	out->net_what[0] = out->net_why[0] = out->net_evidence[0] = 0;
	out->delay_blkio_s = out->delay_swapin_s = out->delay_thrashing_s = out->delay_reclaim_s = NAN;
	out->delay_threads = t->d_threads;
	out->delay_suspect = t->d_suspect;
	if (t->d_threads) {
		out->delay_blkio_s = t->d_blkio;
		out->delay_swapin_s = t->d_swapin;
		out->delay_thrashing_s = t->d_thrash;
		out->delay_reclaim_s = t->d_reclaim;
	}
	out->n = 0;
	out->samples = t->samples;
	out->rate_hz = 1e9 / (double)t->interval_ns;
	out->delayacct = t->delayacct;
	out->read_bytes = t->io_seen ? t->io_r : NAN;
	out->write_bytes = t->io_seen ? t->io_w : NAN;
	out->major_faults = t->flt_seen ? t->flt : NAN;
	for (size_t i = 0; i < t->nthr; i++)
		any_busy |= t->thr[i].time_s > 0 && !thr_idle(t, &t->thr[i]);
	out->idle_s = 0;
	for (size_t i = 0; i < t->nthr; i++) {
		const struct thr *h = &t->thr[i];

		if (!(h->time_s > 0))
			continue;
		if (any_busy && thr_idle(t, h)) {
			out->idle_threads++;
			out->idle_s += h->time_s;
			continue;
		}
		out->threads++;
		total += h->time_s;
		cpu += h->cpu_s;
		rq += h->runq_s;
		for (unsigned k = 0; k < h->nk; k++)
			ks[h->k[k].key] += h->k[k].s;
	}
	if (!(total > 0)) {
		free(ks);
		return;
	}
	out->thread_s = total;
	e = xcalloc(cap, sizeof(*e));
	snprintf(e[ne].state, sizeof(e[0].state), "%s", kind_name[TS_CPU]);
	e[ne++].pct = 100 * cpu / total;
	snprintf(e[ne].state, sizeof(e[0].state), "%s", kind_name[TS_RUNQ]);
	e[ne++].pct = 100 * rq / total;
	for (size_t k = 0; k < t->nkeys; k++) {
		if (!(ks[k] > 0))
			continue;
		snprintf(e[ne].state, sizeof(e[0].state), "%s", kind_name[t->keys[k].kind]);
		snprintf(e[ne].what, sizeof(e[0].what), "%s", t->keys[k].what);
		snprintf(e[ne].detail, sizeof(e[0].detail), "%s", t->keys[k].detail);
		e[ne++].pct = 100 * ks[k] / total;
	}
	/* The judged socket the work waited on longest. */
	{
		const struct netprobe *best = NULL;

		for (size_t i = 0; i < t->nnet; i++)
			if (t->net[i].judged && (!best || ks[t->net[i].key] > ks[best->key]))
				best = &t->net[i];
		if (best) {
			snprintf(out->net_what, sizeof(out->net_what), "%s", t->keys[best->key].what);
			snprintf(out->net_why, sizeof(out->net_why), "%s", sockdiag_why_name(best->why));
			snprintf(out->net_evidence, sizeof(out->net_evidence), "%s", best->evidence);
		} else if (t->sd_failed) {
			snprintf(out->net_why, sizeof(out->net_why), "unknown");
			snprintf(out->net_evidence, sizeof(out->net_evidence), "sock_diag: %s", t->sd_why);
		}
	}
	qsort(e, ne, sizeof(*e), by_s);
	for (size_t i = 0; i < ne; i++) {
		if (out->n < SYSVIEW_BUDGET - 1 || (out->n == SYSVIEW_BUDGET - 1 && i == ne - 1))
			out->e[out->n++] = e[i];
		else
			other += e[i].pct;
	}
	if (other > 0) {
		struct sysview_budget_entry *o = &out->e[SYSVIEW_BUDGET - 1];

		memset(o, 0, sizeof(*o));
		snprintf(o->state, sizeof(o->state), "%s", kind_name[TS_OTHER]);
		snprintf(o->what, sizeof(o->what), "(the rest)");
		o->pct = other;
		out->n = SYSVIEW_BUDGET;
	}
	free(e);
	free(ks);
}
