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

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/proc.h"
#include "lib/xalloc.h"

enum src {
	SRC_STAT, SRC_DISK, SRC_MEM, SRC_VM, SRC_PSI_CPU, SRC_PSI_MEM, SRC_PSI_IO, SRC_NET, SRC_PID, SRC_N
};

/* Paths under proc_root; the PID file is built at run time. */
static const char *const src_path[SRC_N] = {
	[SRC_STAT] = "stat", [SRC_DISK] = "diskstats", [SRC_MEM] = "meminfo", [SRC_VM] = "vmstat",
	[SRC_PSI_CPU] = "pressure/cpu", [SRC_PSI_MEM] = "pressure/memory", [SRC_PSI_IO] = "pressure/io",
	[SRC_NET] = "net/dev", [SRC_PID] = NULL,
};

#define BIT(src) (1u << (src))

struct snap {
	mono_ns t;
	unsigned ok;			/* BIT(src) for each file read and parsed */
	struct proc_stat stat;
	struct proc_diskstats disk;
	struct proc_meminfo mem;
	struct proc_vmstat vm;
	struct proc_psi psi[3];		/* cpu, memory, io */
	struct proc_netdev net;
	struct proc_pid_stat pid;
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
};

struct if_acc {
	char name[PROC_NAME_MAX];
	double time_s;
	uint64_t rx, tx;
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
	case SRC_PID:
		return proc_pid_stat_parse(&n->pid, b, l);
	case SRC_N:
		break;
	}
	return -EINVAL;
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
	}
	s->prev = b;
	s->cur = a;
	return 0;
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

int sampler_new(struct sampler **out, const struct sampler_config *cfg)
{
	struct sampler *s;
	pthread_condattr_t ca;
	uint64_t iv = cfg->interval_ns ? cfg->interval_ns : SAMPLER_DEFAULT_INTERVAL_NS;
	int ret;

	*out = NULL;
	if (iv < SAMPLER_MIN_INTERVAL_NS || iv > SAMPLER_MAX_INTERVAL_NS || cfg->pid < 0 || cfg->clk_tck < 0 ||
	    cfg->page_size < 0)
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
	for (int i = 0; i < SRC_N; i++)
		s->fd[i] = -1;
	proc_stat_init(&s->snap[0].stat);
	proc_stat_init(&s->snap[1].stat);
	s->prev = &s->snap[0];
	s->cur = &s->snap[1];
	s->peak_cpu = -1;
	s->mem_min = -1;
	s->disk = xcalloc(SAMPLER_MAX_DEVS, sizeof(*s->disk));
	s->iface = xcalloc(SAMPLER_MAX_DEVS, sizeof(*s->iface));
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
	c0 = clock_thread_cpu_ns();
	ret = sample_once(s);
	s->sync_cpu_ns += clock_thread_cpu_ns() - c0;
	return ret;
}

static void *sampler_thread(void *arg)
{
	struct sampler *s = arg;
	uint64_t k = 1;

	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		mono_ns deadline = s->base + k * s->interval_ns;
		struct timespec ts = {
			.tv_sec = (time_t)(deadline / NS_PER_SEC),
			.tv_nsec = (long)(deadline % NS_PER_SEC),
		};
		int ret = pthread_cond_timedwait(&s->cv, &s->mu, &ts);

		if (s->stop)
			break;
		if (ret != ETIMEDOUT && clock_mono() < deadline)
			continue;	/* spurious wake-up */
		pthread_mutex_unlock(&s->mu);
		/* A failed snapshot is counted as a gap; the next one spans it. */
		(void)sample_once(s);
		pthread_mutex_lock(&s->mu);
		/* Next deadline strictly after now: late wake-ups skip, never bunch. */
		k = (clock_mono() - s->base) / s->interval_ns + 1;
	}
	pthread_mutex_unlock(&s->mu);
	s->thread_cpu_ns = clock_thread_cpu_ns();
	return NULL;
}

int sampler_start(struct sampler *s)
{
	sigset_t all, old;
	mono_ns base;
	int ret;

	if (s->running)
		return -EALREADY;
	base = clock_mono();
	/* A stopped sampler resumes: what happened while it was stopped is left out. */
	s->resume = s->have_prev;
	ret = sampler_sample_now(s);
	if (ret)
		return ret;
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
	if (!s->running)
		return -EINVAL;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->running = false;
	return sampler_sample_now(s);
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	if (s->running) {
		int ret = sampler_stop(s);

		(void)ret;
	}
	for (int i = 0; i < SRC_N; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	for (int i = 0; i < 2; i++) {
		proc_stat_release(&s->snap[i].stat);
		proc_diskstats_release(&s->snap[i].disk);
		proc_netdev_release(&s->snap[i].net);
	}
	proc_buf_release(&s->buf);
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
}
