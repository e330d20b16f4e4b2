/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the background sampler (src/core/observe/sampler.c). Most drive it
 * synchronously (sampler_sample_now) over a fixture /proc tree in a mkdtemp
 * directory, overwriting the files in place between snapshots (the sampler
 * keeps them open) and injecting a fake clock, so every rate and summary
 * value is exactly what tests/fixtures/proc/tree/{1,2,3} imply. One test
 * runs the real thread on the real /proc and checks only behaviour and
 * ranges, never speed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/observe/limits.h"
#include "core/kernel/proc.h"
#include "core/observe/sampler.h"
#include "lib/xalloc.h"

/* Files of a fixture tree, relative to its root. */
static const char *const tree_files[] = {
	"stat", "diskstats", "meminfo", "vmstat", "pressure/cpu", "pressure/memory", "pressure/io", "net/dev",
	"4242/stat",
};
static const char *const tree_dirs[] = { "pressure", "net", "4242" };

#define KB 1024.0

struct tree {
	char root[64];
	bool pressure;
	uint64_t now;	/* the fake clock, ns */
};

static uint64_t fake_now(void *arg)
{
	return ((struct tree *)arg)->now;
}

static char *fixture_path(const char *rel)
{
	const char *root = getenv("ENGPASS_FIXTURES");

	return xasprintf("%s/proc/%s", root && *root ? root : "tests/fixtures", rel);
}

static bool is_pressure(const char *rel)
{
	return !strncmp(rel, "pressure", 8);
}

/* Write text to root/rel in place (same inode: the sampler has it open). */
static void put(const struct tree *t, const char *rel, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", t->root, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	free(path);
}

/* Copy fixture tree n over the temp tree. */
static void install(struct tree *t, int n)
{
	struct proc_buf b = PROC_BUF_INIT;

	for (size_t i = 0; i < sizeof(tree_files) / sizeof(tree_files[0]); i++) {
		char *rel = xasprintf("tree/%d/%s", n, tree_files[i]);
		char *src = fixture_path(rel);

		if (t->pressure || !is_pressure(tree_files[i])) {
			if (proc_buf_read_file(&b, src))
				fail_msg("cannot read fixture '%s'", src);
			put(t, tree_files[i], b.data, b.len);
		}
		free(src);
		free(rel);
	}
	proc_buf_release(&b);
}

/* Make a temp tree holding fixture tree 1; with pressure false, no pressure/ at all. */
static struct tree *tree_make(bool pressure)
{
	struct tree *t = xcalloc(1, sizeof(*t));

	snprintf(t->root, sizeof(t->root), "/tmp/sampler_treeXXXXXX");
	assert_non_null(mkdtemp(t->root));
	t->pressure = pressure;
	for (size_t i = 0; i < sizeof(tree_dirs) / sizeof(tree_dirs[0]); i++) {
		char *d;

		if (!pressure && is_pressure(tree_dirs[i]))
			continue;
		d = xasprintf("%s/%s", t->root, tree_dirs[i]);
		assert_int_equal(mkdir(d, 0755), 0);
		free(d);
	}
	t->now = 5 * NS_PER_SEC;
	install(t, 1);
	return t;
}

/* cmocka setup/teardown, so a failed test still removes its tree. */
static int setup_tree(void **state)
{
	*state = tree_make(true);
	return 0;
}

static int setup_tree_nopsi(void **state)
{
	*state = tree_make(false);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove the whole temp tree, with whatever a test added to it. */
static int teardown_tree(void **state)
{
	struct tree *t = *state;
	int ret = nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);

	free(t);
	return ret;
}

static struct sampler_config tree_config(struct tree *t)
{
	struct sampler_config cfg = {
		.proc_root = t->root,
		.pid = 4242,
		.clk_tck = 100,
		.page_size = 4096,
		.now = fake_now,
		.now_arg = t,
	};

	return cfg;
}

/* Snapshot tree 1, then 2 and 3 one fake second apart. */
static void run_tree(struct sampler *s, struct tree *t)
{
	assert_int_equal(sampler_sample_now(s), 0);
	for (int n = 2; n <= 3; n++) {
		install(t, n);
		t->now += NS_PER_SEC;
		assert_int_equal(sampler_sample_now(s), 0);
	}
}

#define NA (-1e300)	/* expect NaN */

static void eq(double got, double want, const char *what)
{
	if (want == NA) {
		if (!isnan(got))
			fail_msg("%s: want NaN, got %g", what, got);
		return;
	}
	if (isnan(got) || fabs(got - want) > 1e-9 * (fabs(want) + 1))
		fail_msg("%s: want %.12g, got %.12g", what, want, got);
}

/* What tests/fixtures/proc/tree/{1,2,3} imply, interval by interval. */
struct want_sample {
	double t_s;
	unsigned flags;
	double busy, iowait, softirq, steal;
	int busiest_cpu;
	double busiest_pct, cpu0, cpu1;
	int running, blocked;
	const char *disk;
	double util, r_s, w_s, rb_s, wb_s;
	double swpin, swpout, majflt, mem_avail;
	double psi_cpu, psi_mem_some, psi_mem_full, psi_io_some, psi_io_full;
	const char *iface;
	double rx, tx, proc_cpu, rss;
};

static const struct want_sample want_samples[] = {
	{ 1, 0, 45, 5, 2.5, 2.5, 1, 75, 15, 75, 4, 1, "vda", 60, 100, 250, 409600, 8192000, 10, 20, 30, 900000 * KB, 10,
	  5, 2, 30, 25, "eth0", 1000000, 500000, 50, 1500 * 4096 },
	/* cpu1 went offline, vda was reset (left out), sda is busiest; lo moved the most bytes. */
	{ 2, SAMPLE_CPU_CHANGED | SAMPLE_DISK_RESET, 50, 0, 0, 0, 0, 50, 50, NA, 3, 0, "sda", 30, 30, 0, 122880, 0, 0,
	  40, 10, 950000 * KB, 20, 0, 0, 10, 0, "lo", 1000, 1000, 20, 1200 * 4096 },
};

static void check_sample(const struct sample *x, const struct want_sample *w, bool pressure)
{
	eq(x->t_s, w->t_s, "t_s");
	eq(x->interval_s, 1, "interval_s");
	assert_int_equal(x->flags, w->flags);
	eq(x->cpu_busy_pct, w->busy, "busy");
	eq(x->iowait_pct, w->iowait, "iowait");
	eq(x->softirq_pct, w->softirq, "softirq");
	eq(x->steal_pct, w->steal, "steal");
	assert_int_equal(x->busiest_cpu, w->busiest_cpu);
	eq(x->busiest_cpu_pct, w->busiest_pct, "busiest pct");
	assert_int_equal(x->ncpu_slots, 2);
	eq(x->cpu_pct[0], w->cpu0, "cpu0");
	eq(x->cpu_pct[1], w->cpu1, "cpu1");
	assert_int_equal(x->procs_running, w->running);
	assert_int_equal(x->procs_blocked, w->blocked);
	assert_string_equal(x->disk, w->disk);
	eq(x->disk_util_pct, w->util, "util");
	eq(x->disk_reads_per_s, w->r_s, "r/s");
	eq(x->disk_writes_per_s, w->w_s, "w/s");
	eq(x->disk_read_bytes_per_s, w->rb_s, "rB/s");
	eq(x->disk_write_bytes_per_s, w->wb_s, "wB/s");
	eq(x->swap_in_pages_per_s, w->swpin, "swap in");
	eq(x->swap_out_pages_per_s, w->swpout, "swap out");
	eq(x->major_faults_per_s, w->majflt, "major faults");
	eq(x->mem_available_bytes, w->mem_avail, "mem available");
	eq(x->psi_cpu_some_pct, pressure ? w->psi_cpu : NA, "psi cpu");
	eq(x->psi_mem_some_pct, pressure ? w->psi_mem_some : NA, "psi mem some");
	eq(x->psi_mem_full_pct, pressure ? w->psi_mem_full : NA, "psi mem full");
	eq(x->psi_io_some_pct, pressure ? w->psi_io_some : NA, "psi io some");
	eq(x->psi_io_full_pct, pressure ? w->psi_io_full : NA, "psi io full");
	assert_string_equal(x->iface, w->iface);
	eq(x->net_rx_bytes_per_s, w->rx, "rx");
	eq(x->net_tx_bytes_per_s, w->tx, "tx");
	eq(x->proc_cpu_pct, w->proc_cpu, "proc cpu");
	assert_int_equal(x->proc_rss_bytes, (int64_t)w->rss);
}

static void check_summary(const struct sysview *v, bool pressure)
{
	assert_int_equal(v->samples, 2);
	assert_int_equal(v->dropped, 0);
	assert_int_equal(v->gaps, 1);
	eq(v->duration_s, 2, "duration");
	assert_int_equal(v->ncpu, 2);
	/* Tick-weighted: (90 + 50) busy of (200 + 100) ticks. */
	eq(v->cpu_busy_pct, 140.0 / 3, "busy");
	eq(v->cpu_iowait_pct, 10.0 / 3, "iowait");
	eq(v->cpu_softirq_pct, 5.0 / 3, "softirq");
	eq(v->cpu_steal_pct, 5.0 / 3, "steal");
	/* cpu1: 75 of 100 ticks; cpu0: 65 of 200. */
	assert_int_equal(v->busiest_cpu, 1);
	eq(v->busiest_cpu_busy_pct, 75, "busiest cpu");
	eq(v->busiest_cpu_softirq_pct, 5, "busiest softirq");
	eq(v->peak_cpu_busy_pct, 75, "peak");
	eq(v->run_queue_avg, 3.5, "run queue");
	/* vda: 600 ms busy in its one valid second beats sda's 500 ms in two. */
	assert_string_equal(v->busiest_disk, "vda");
	eq(v->disk_util_pct, 60, "disk util");
	eq(v->disk_reads_per_s, 100, "disk r/s");
	eq(v->disk_writes_per_s, 250, "disk w/s");
	eq(v->disk_read_bytes_per_s, 409600, "disk rB/s");
	eq(v->disk_write_bytes_per_s, 8192000, "disk wB/s");
	assert_int_equal(v->disk_read_requests, 100);
	assert_int_equal(v->disk_write_requests, 250);
	eq(v->disk_avg_write_request_bytes, 32768, "avg write request");
	eq(v->disk_avg_wait_ms, 800.0 / 350, "avg wait");
	eq(v->swap_in_pages_per_s, 5, "swap in");
	eq(v->swap_out_pages_per_s, 30, "swap out");
	eq(v->major_faults_per_s, 20, "major faults");
	eq(v->mem_available_min_bytes, 900000 * KB, "mem min");
	assert_int_equal(v->psi_available, pressure);
	eq(v->psi_cpu_some_pct, pressure ? 15 : NA, "psi cpu");
	eq(v->psi_mem_some_pct, pressure ? 2.5 : NA, "psi mem some");
	eq(v->psi_mem_full_pct, pressure ? 1 : NA, "psi mem full");
	eq(v->psi_io_some_pct, pressure ? 20 : NA, "psi io some");
	eq(v->psi_io_full_pct, pressure ? 12.5 : NA, "psi io full");
	assert_string_equal(v->busiest_iface, "eth0");
	eq(v->net_rx_bytes_per_s, 500000, "net rx");
	eq(v->net_tx_bytes_per_s, 250000, "net tx");
	assert_true(v->have_proc);
	eq(v->proc_cpu_pct, 35, "proc cpu");
	assert_int_equal(v->proc_rss_max_bytes, 1500 * 4096);
	/* vda's 800 weighted ms in its one valid second. */
	eq(v->disk_queue_avg, 0.8, "disk queue");
	/* Not asked for, or no such file: unknown. */
	assert_int_equal(v->work_threads, 0);
	eq(v->work_cpu_pct, NA, "work cpu");
	assert_int_equal(v->work_thread_cpu, -1);
	eq(v->others_cpu_pct, NA, "others cpu");
	assert_int_equal(v->others[0].pid, 0);
	eq(v->udp_in_errors, NA, "udp in errors");
	eq(v->udp_rcvbuf_errors, NA, "udp rcvbuf errors");
}

static void fixture_series(struct tree *t)
{
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;
	bool pressure = t->pressure;

	assert_int_equal(sampler_new(&s, &cfg), 0);
	run_tree(s, t);
	assert_int_equal(sampler_count(s), 2);
	for (size_t i = 0; i < 2; i++)
		check_sample(sampler_get(s, i), &want_samples[i], pressure);
	assert_null(sampler_get(s, 2));
	sampler_summary(s, &v);
	check_summary(&v, pressure);
	sampler_free(s);
}

static void test_fixture_series(void **state)
{
	fixture_series(*state);
}

/*
 * Heat: the sensors under cfg.sys_root are read at each snapshot into the
 * summary; the throttle counters only at the edges of a span
 * (sampler_start/stop), so snapshots alone leave them unknown.
 */
static void test_heat(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	const char *root = getenv("ENGPASS_FIXTURES");
	char *sys = xasprintf("%s/thermal/x86", root && *root ? root : "tests/fixtures");
	struct sampler *s;
	struct sysview v;

	cfg.sys_root = sys;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	run_tree(s, t);
	sampler_summary(s, &v);
	assert_int_equal(v.temp_sensors, 5);
	assert_string_equal(v.temps[0].name, "coretemp Package id 0");
	assert_true(v.temps[0].start_c == 56 && v.temps[0].max_c == 56 && v.temps[0].end_c == 56);
	assert_int_equal(v.throttle_cpus, 2);
	assert_true(isnan(v.throttle_core_events));
	assert_int_equal(v.cooling_devices, 1);
	sampler_free(s);
	free(sys);
}

/* No /proc/pressure (kernel without PSI): not an error, just unavailable. */
static void test_no_pressure(void **state)
{
	fixture_series(*state);
}

/*
 * Started again after a stop, the sampler resumes: the 100 s it was
 * stopped add no sample and no time, the two 1 s spans add up.
 */
static void test_resume(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;

	cfg.interval_ns = SAMPLER_MAX_INTERVAL_NS;	/* only the start and stop snapshots */
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_start(s), 0);
	install(t, 2);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_stop(s), 0);
	t->now += 100 * NS_PER_SEC;
	install(t, 3);
	assert_int_equal(sampler_start(s), 0);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_stop(s), 0);
	sampler_summary(s, &v);
	assert_int_equal(v.samples, 2);
	assert_int_equal(sampler_count(s), 2);
	eq(v.duration_s, 2.0, "duration of two 1 s spans");
	/* The timeline still counts from the first snapshot. */
	eq(sampler_get(s, 1)->t_s, 102.0, "t_s of the sample after the pause");
	eq(sampler_get(s, 1)->interval_s, 1.0, "the interval after the pause");
	sampler_free(s);
}

/* Open file descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* sampler_done(): the samples, summary and CPU time stay, its files are
 * closed, and it cannot be started again. */
static void test_done(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview before, after;
	uint64_t cpu;
	char disk[64];
	int fds;

	cfg.interval_ns = SAMPLER_MAX_INTERVAL_NS;	/* only the start and stop snapshots */
	fds = count_fds();
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_true(count_fds() > fds);
	assert_int_equal(sampler_start(s), 0);
	install(t, 2);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_stop(s), 0);
	sampler_summary(s, &before);
	cpu = sampler_cpu_ns(s);
	snprintf(disk, sizeof(disk), "%s", sampler_get(s, 0)->disk);
	assert_true(disk[0]);	/* a name in the sampler's accumulators, not "" */
	sampler_done(s);
	/* The samples' names stay where they were. */
	assert_string_equal(sampler_get(s, 0)->disk, disk);
	assert_int_equal(count_fds(), fds);
	sampler_summary(s, &after);
	assert_int_equal(after.samples, before.samples);
	assert_int_equal(sampler_count(s), 1);
	assert_non_null(sampler_get(s, 0));
	eq(after.duration_s, before.duration_s, "duration after sampler_done");
	eq(after.cpu_busy_pct, before.cpu_busy_pct, "CPU busy after sampler_done");
	assert_string_equal(after.busiest_disk, before.busiest_disk);
	assert_string_equal(after.busiest_iface, before.busiest_iface);
	assert_true(sampler_cpu_ns(s) == cpu);
	assert_int_equal(sampler_start(s), -EINVAL);
	assert_int_equal(sampler_sample_now(s), -EINVAL);
	sampler_done(s);	/* idempotent */
	sampler_free(s);
}

/* Past max_samples: the summary still covers every interval, storage stops. */
static void test_max_samples(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;

	cfg.max_samples = 1;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	run_tree(s, t);
	for (int i = 0; i < 3; i++) {
		t->now += NS_PER_SEC;
		assert_int_equal(sampler_sample_now(s), 0);
	}
	assert_int_equal(sampler_count(s), 1);
	check_sample(sampler_get(s, 0), &want_samples[0], true);
	assert_null(sampler_get(s, 1));
	sampler_summary(s, &v);
	assert_int_equal(v.samples, 5);
	assert_int_equal(v.dropped, 4);
	eq(v.duration_s, 5, "duration");
	/* Three idle seconds later: no tick elapsed, so the CPU means do not move. */
	eq(v.cpu_busy_pct, 140.0 / 3, "busy");
	eq(v.swap_out_pages_per_s, 60.0 / 5, "swap out");
	sampler_free(s);
}

/* What on_sample saw: how many calls, and the last one's times and busy share. */
struct seen {
	int calls;
	double t_s, interval_s, busy;
	bool per_cpu;
};

static void note_sample(void *arg, const struct sample *x)
{
	struct seen *seen = arg;

	seen->calls++;
	seen->t_s = x->t_s;
	seen->interval_s = x->interval_s;
	seen->busy = x->cpu_busy_pct;
	seen->per_cpu = x->cpu_pct != NULL;
}

/* on_sample: one call per interval (not for the baseline), stored or not, with the interval's figures. */
static void test_on_sample(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct seen seen = { 0 };
	struct sampler *s;

	cfg.max_samples = 1;
	cfg.on_sample = note_sample;
	cfg.on_sample_arg = &seen;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	run_tree(s, t);
	assert_int_equal(seen.calls, (int)sampler_count(s) + 1);	/* run_tree's second sample was not stored */
	assert_true(seen.per_cpu);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	assert_int_equal(seen.calls, 3);
	eq(seen.interval_s, 1, "interval");
	eq(seen.t_s, 3, "t");
	assert_true(isnan(seen.busy) || (seen.busy >= 0 && seen.busy <= 100));
	sampler_free(s);
}

/* A configured disk and interface are reported even when not the busiest. */
static void test_configured_devices(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;
	const struct sample *x;

	cfg.disk = "sda";
	cfg.iface = "lo";
	cfg.pid = 0;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	run_tree(s, t);
	x = sampler_get(s, 0);
	assert_string_equal(x->disk, "sda");
	eq(x->disk_util_pct, 20, "sda util");
	assert_string_equal(x->iface, "lo");
	eq(x->net_rx_bytes_per_s, 10, "lo rx");
	eq(x->proc_cpu_pct, NA, "no proc");
	sampler_summary(s, &v);
	assert_string_equal(v.busiest_disk, "sda");
	eq(v.disk_util_pct, 25, "sda util");
	assert_string_equal(v.busiest_iface, "lo");
	eq(v.net_rx_bytes_per_s, 505, "lo rx");
	assert_false(v.have_proc);
	sampler_free(s);
}

/* A cut /proc/stat is refused; the next good one spans the gap. */
static void test_bad_stat(void **state)
{
	static const char cut[] = "cpu  1060 0 1020 81";
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;

	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_sample_now(s), 0);
	put(t, "stat", cut, strlen(cut));
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), -EINVAL);
	assert_int_equal(sampler_count(s), 0);
	install(t, 2);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	assert_int_equal(sampler_count(s), 1);
	eq(sampler_get(s, 0)->interval_s, 2, "interval");
	eq(sampler_get(s, 0)->cpu_busy_pct, 45, "busy");
	sampler_summary(s, &v);
	assert_int_equal(v.samples, 1);
	assert_int_equal(v.gaps, 1);
	sampler_free(s);
}

static void test_config_errors(void **state)
{
	static const uint64_t bad_iv[] = { 1, 9999999, 10000000001ULL, UINT64_MAX };
	struct tree *t = *state;
	struct sampler_config cfg = { 0 };
	struct sampler *s = (struct sampler *)&cfg;

	for (size_t i = 0; i < sizeof(bad_iv) / sizeof(bad_iv[0]); i++) {
		cfg.interval_ns = bad_iv[i];
		assert_int_equal(sampler_new(&s, &cfg), -EINVAL);
		assert_null(s);
	}
	cfg.interval_ns = SAMPLER_MIN_INTERVAL_NS;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	sampler_free(s);
	cfg.interval_ns = SAMPLER_MAX_INTERVAL_NS;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	sampler_free(s);
	cfg.interval_ns = 0;
	cfg.pid = -1;
	assert_int_equal(sampler_new(&s, &cfg), -EINVAL);
	cfg.pid = 0;
	cfg.proc_root = "/nonexistent/engpass";
	assert_int_equal(sampler_new(&s, &cfg), -ENOENT);
	assert_null(s);

	cfg = tree_config(t);
	cfg.pid = 4243;
	assert_int_equal(sampler_new(&s, &cfg), -ESRCH);
	assert_null(s);
	sampler_free(NULL);
}

/* Calls in the wrong state are refused, not undefined. */
static void test_states(void **state)
{
	struct sampler_config cfg = { .interval_ns = SAMPLER_MAX_INTERVAL_NS };
	struct sampler *s;
	struct sysview v;

	(void)state;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_count(s), 0);
	sampler_summary(s, &v);
	assert_int_equal(v.samples, 0);
	assert_int_equal(v.busiest_cpu, -1);
	assert_true(isnan(v.cpu_busy_pct));
	assert_int_equal(sampler_stop(s), -EINVAL);
	assert_int_equal(sampler_start(s), 0);
	assert_int_equal(sampler_start(s), -EALREADY);
	assert_int_equal(sampler_sample_now(s), -EBUSY);
	/* Freed while running: stops and joins the thread. */
	sampler_free(s);
}

/* Stop does not wait out a 10 s interval; it ends the series at once. */
static void test_prompt_stop(void **state)
{
	struct sampler_config cfg = { .interval_ns = SAMPLER_MAX_INTERVAL_NS };
	struct sampler *s;
	mono_ns t0;

	(void)state;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_start(s), 0);
	t0 = clock_mono();
	assert_int_equal(sampler_stop(s), 0);
	/* Far less than the interval, however loaded the machine. */
	assert_true(elapsed_s(t0, clock_mono()) < 5.0);
	assert_int_equal(sampler_count(s), 1);
	sampler_free(s);
}

/* The real thing: 20 ms for about 200 ms on /proc, watching ourselves. */
static void test_real_run(void **state)
{
	struct sampler_config cfg = { .interval_ns = 20 * NS_PER_MS, .pid = getpid() };
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	struct sampler *s;
	struct sysview v;
	double last_t = 0;
	size_t n;

	(void)state;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_start(s), 0);
	while (nanosleep(&nap, &nap))
		;
	assert_int_equal(sampler_stop(s), 0);
	n = sampler_count(s);
	assert_true(n >= 5);
	for (size_t i = 0; i < n; i++) {
		const struct sample *x = sampler_get(s, i);

		assert_non_null(x);
		assert_true(x->t_s > last_t);
		assert_true(x->interval_s > 0);
		last_t = x->t_s;
		assert_true(isnan(x->cpu_busy_pct) || (x->cpu_busy_pct >= 0 && x->cpu_busy_pct <= 100));
		assert_true(x->ncpu_slots >= 1);
		for (int c = 0; c < x->ncpu_slots; c++)
			assert_true(isnan(x->cpu_pct[c]) || (x->cpu_pct[c] >= 0 && x->cpu_pct[c] <= 100));
		assert_true(isnan(x->disk_util_pct) || (x->disk_util_pct >= 0 && x->disk_util_pct <= 100));
		assert_true(x->mem_available_bytes > 0);
		/* qemu user emulation writes zeros past the first fields of /proc/self/stat. */
		assert_true(x->proc_rss_bytes > 0 || getenv("ENGPASS_EMULATED"));
		assert_false(x->flags & SAMPLE_PROC_GONE);
	}
	sampler_summary(s, &v);
	assert_int_equal(v.samples, n);
	assert_true(v.duration_s > 0);
	assert_true(v.ncpu >= 1);
	assert_true(v.busiest_cpu >= 0 && v.busiest_cpu < sampler_get(s, 0)->ncpu_slots);
	assert_true(v.cpu_busy_pct >= 0 && v.cpu_busy_pct <= 100);
	assert_true(v.run_queue_avg >= 1);	/* the sampler itself was running */
	assert_true(v.mem_available_min_bytes > 0);
	assert_true(v.have_proc && (v.proc_rss_max_bytes > 0 || getenv("ENGPASS_EMULATED")));
	assert_true(sampler_cpu_ns(s) > 0);
	sampler_free(s);
}

/* ------------------------------------------------------------------ */
/* The work's threads, other processes, UDP errors, limits */

#define NONE UINT64_MAX

/* mkdir root/rel, fine if it is there. */
static void mkdir_rel(const struct tree *t, const char *rel)
{
	char *d = xasprintf("%s/%s", t->root, rel);

	if (mkdir(d, 0755) && errno != EEXIST)
		fail_msg("cannot make '%s': %s", d, strerror(errno));
	free(d);
}

/* A whole /proc/PID/stat line (52 fields, as Linux 5.x prints them). */
static void put_stat(const struct tree *t, const char *rel, int pid, const char *comm, uint64_t ticks,
		     uint64_t start, int cpu)
{
	char *text = xasprintf("%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 %llu 0 0 0 20 0 2 0 %llu 10000000 250 "
			       "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
			       pid, comm, pid, pid, (unsigned long long)ticks, (unsigned long long)start, cpu);

	put(t, rel, text, strlen(text));
	free(text);
}

/* Thread tid of the work 4242: stat and, unless run is NONE, schedstat. */
static void put_task(const struct tree *t, int tid, const char *comm, uint64_t ticks, uint64_t run, uint64_t wait,
		     int cpu)
{
	char rel[64];

	mkdir_rel(t, "4242/task");
	snprintf(rel, sizeof(rel), "4242/task/%d", tid);
	mkdir_rel(t, rel);
	snprintf(rel, sizeof(rel), "4242/task/%d/stat", tid);
	put_stat(t, rel, tid, comm, ticks, 1000 + (uint64_t)tid, cpu);
	if (run != NONE) {
		char *text = xasprintf("%llu %llu 42\n", (unsigned long long)run, (unsigned long long)wait);

		snprintf(rel, sizeof(rel), "4242/task/%d/schedstat", tid);
		put(t, rel, text, strlen(text));
		free(text);
	}
}

/* The thread exits: its directory goes. */
static void drop_task(const struct tree *t, int tid)
{
	char *d = xasprintf("%s/4242/task/%d", t->root, tid);

	assert_int_equal(nftw(d, rm_one, 4, FTW_DEPTH | FTW_PHYS), 0);
	free(d);
}

#define MS (1000000ULL)

/*
 * Two threads with schedstat; a third appears in the second snapshot (a
 * baseline only: it ran longer than the interval, so it was there before),
 * a fourth is born in the second interval (all its time counts), and the
 * second exits before the
 * third, having run 100 ms more after the second snapshot: that shows only
 * in the whole work's stat (4242/stat), which keeps exited threads' time,
 * and is credited to it. The busy one moves from CPU 1 to CPU 0 for a
 * third of its time.
 */
static void work_series(struct tree *t, bool schedstat)
{
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;
	/* ms of run time; ticks are run / 10 (USER_HZ 100) so that both ways give the same CPU. */
#define TASK(tid, comm, run_ms, wait_ms, cpu) \
	put_task(t, tid, comm, (run_ms) / 10, schedstat ? (run_ms) * MS : NONE, (wait_ms) * MS, cpu)

	cfg.work_pid = 4242;
	cfg.pid = 0;
#define WORK(ticks) put_stat(t, "4242/stat", 4242, "work", ticks, 1, 0)
	WORK(0);
	TASK(100, "bench", 0, 0, 0);
	TASK(101, "worker", 0, 0, 1);
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_sample_now(s), 0);
	TASK(100, "bench", 200, 100, 0);
	TASK(101, "worker", 800, 50, 1);
	WORK(100);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	TASK(100, "bench", 400, 200, 0);
	TASK(101, "worker", 1200, 150, 0);
	TASK(102, "late", 5000, 900, 1);
	TASK(103, "born", 150, 10, 1);
	WORK(675);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	drop_task(t, 101);
	TASK(100, "bench", 500, 200, 0);
	TASK(102, "late", 5300, 900, 1);
	WORK(725);	/* 101 ended at 1300 ms */
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
#undef TASK
#undef WORK

	assert_int_equal(sampler_count(s), 3);
	assert_int_equal(sampler_get(s, 0)->work_threads, 2);
	assert_int_equal(sampler_get(s, 1)->work_threads, 4);
	assert_int_equal(sampler_get(s, 2)->work_threads, 3);
	eq(sampler_get(s, 0)->work_cpu_pct, 100, "interval 1 cpu");
	eq(sampler_get(s, 1)->work_cpu_pct, 75, "interval 2 cpu (102 only a baseline, 103 whole)");
	eq(sampler_get(s, 2)->work_cpu_pct, 50, "interval 3 cpu (101 gone, its last 100 ms found)");
	eq(sampler_get(s, 0)->work_wait_pct, schedstat ? 15 : NA, "interval 1 wait");
	eq(sampler_get(s, 1)->work_wait_pct, schedstat ? 21 : NA, "interval 2 wait");
	eq(sampler_get(s, 2)->work_wait_pct, schedstat ? 0 : NA, "interval 3 wait");

	sampler_summary(s, &v);
	assert_int_equal(v.work_threads, 4);
	eq(v.work_cpu_pct, 75, "work cpu");
	eq(v.work_wait_pct, schedstat ? 12 : NA, "work wait");
	assert_string_equal(v.work_thread_comm, "worker");
	eq(v.work_thread_cpu_pct, 130.0 / 3, "busiest thread cpu");
	eq(v.work_thread_wait_pct, schedstat ? 5 : NA, "busiest thread wait");
	/* 800 ms seen on CPU 1, 500 ms on CPU 0. */
	assert_int_equal(v.work_thread_cpu, 1);
	sampler_free(s);
}

static void test_work_threads(void **state)
{
	work_series(*state, true);
}

/* Without schedstat (no CONFIG_SCHED_INFO): CPU from the stat ticks, wait unknown. */
static void test_work_no_schedstat(void **state)
{
	work_series(*state, false);
}

/* The work must exist; a negative PID is refused. */
static void test_work_errors(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;

	cfg.work_pid = 4243;
	assert_int_equal(sampler_new(&s, &cfg), -ESRCH);
	assert_null(s);
	cfg.work_pid = -1;
	assert_int_equal(sampler_new(&s, &cfg), -EINVAL);
	/* A work whose task/ is empty or garbage has no threads, and no crash. */
	mkdir_rel(t, "4242/task");
	mkdir_rel(t, "4242/task/7");
	put(t, "4242/task/7/stat", "7 (x) R 1\n", 10);
	put(t, "4242/task/7/schedstat", "garbage\n", 8);
	cfg.work_pid = 4242;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_sample_now(s), 0);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	assert_int_equal(sampler_get(s, 0)->work_threads, 0);
	eq(sampler_get(s, 0)->work_cpu_pct, NA, "no threads");
	sampler_free(s);
}

static void put_proc(const struct tree *t, int pid, const char *comm, uint64_t ticks, uint64_t start)
{
	char rel[32];

	snprintf(rel, sizeof(rel), "%d", pid);
	mkdir_rel(t, rel);
	snprintf(rel, sizeof(rel), "%d/stat", pid);
	put_stat(t, rel, pid, comm, ticks, start, 0);
}

/*
 * Other processes at the edges of two spans: differences since the span's
 * start; a process new in the span (or a reused PID) counts whole, one that
 * exited does not; the work (4242) is left out; spans add up by PID.
 */
static void test_others(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	struct sampler *s;
	struct sysview v;

	cfg.interval_ns = SAMPLER_MAX_INTERVAL_NS;	/* only the start and stop snapshots */
	cfg.work_pid = 4242;
	cfg.others = true;
	put_task(t, 4242, "main", 0, NONE, 0, 0);
	put_proc(t, 500, "compiler", 100, 1);
	put_proc(t, 501, "daemon", 10, 2);
	put_proc(t, 503, "leaves", 70, 3);
	put_proc(t, 504, "idle", 5, 4);
	put_proc(t, 505, "old", 90, 5);
	mkdir_rel(t, "506");
	put(t, "506/stat", "506 (odd) Z\n", 12);	/* unreadable: skipped */
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_start(s), 0);
	install(t, 2);		/* the work's own stat moves: not an other */
	put_proc(t, 500, "compiler", 150, 1);
	put_proc(t, 501, "daemon", 30, 2);
	put_proc(t, 502, "born", 4, 6);
	{
		char *d = xasprintf("%s/503", t->root);

		assert_int_equal(nftw(d, rm_one, 4, FTW_DEPTH | FTW_PHYS), 0);
		free(d);
	}
	put_proc(t, 505, "reused", 6, 7);
	t->now += 2 * NS_PER_SEC;
	assert_int_equal(sampler_stop(s), 0);

	sampler_summary(s, &v);
	/* 50 + 20 + 4 + 6 ticks in 2 s at USER_HZ 100. */
	eq(v.others_cpu_pct, 40, "others cpu, span 1");
	assert_int_equal(v.others[0].pid, 500);
	assert_string_equal(v.others[0].comm, "compiler");
	eq(v.others[0].cpu_pct, 25, "500");
	assert_int_equal(v.others[1].pid, 501);
	eq(v.others[1].cpu_pct, 10, "501");
	assert_int_equal(v.others[2].pid, 505);
	assert_string_equal(v.others[2].comm, "reused");
	eq(v.others[2].cpu_pct, 3, "505");

	/* A second span after a pause: only its own differences count. */
	t->now += 100 * NS_PER_SEC;
	put_proc(t, 501, "daemon", 1000, 2);	/* busy while not sampled */
	assert_int_equal(sampler_start(s), 0);
	put_proc(t, 500, "compiler", 250, 1);
	t->now += 2 * NS_PER_SEC;
	assert_int_equal(sampler_stop(s), 0);
	sampler_summary(s, &v);
	eq(v.others_cpu_pct, 180.0 / 4, "others cpu, two spans");
	assert_int_equal(v.others[0].pid, 500);
	eq(v.others[0].cpu_pct, 37.5, "500 over both spans");
	assert_int_equal(v.others[1].pid, 501);
	eq(v.others[1].cpu_pct, 5, "501 over both spans");
	sampler_free(s);
}

/* net/snmp: the UDP error counts over the window; NaN without the Udp lines. */
static void snmp_series(struct tree *t, const char *a, const char *b, double in_errors, double rcvbuf_errors)
{
	struct sampler_config cfg = tree_config(t);
	struct proc_buf buf = PROC_BUF_INIT;
	struct sampler *s;
	struct sysview v;
	char *path;

	path = fixture_path(a);
	assert_int_equal(proc_buf_read_file(&buf, path), 0);
	free(path);
	put(t, "net/snmp", buf.data, buf.len);
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_int_equal(sampler_sample_now(s), 0);
	path = fixture_path(b);
	assert_int_equal(proc_buf_read_file(&buf, path), 0);
	free(path);
	put(t, "net/snmp", buf.data, buf.len);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_sample_now(s), 0);
	eq(sampler_get(s, 0)->udp_in_errors, in_errors, "sample in errors");
	eq(sampler_get(s, 0)->udp_rcvbuf_errors, rcvbuf_errors, "sample rcvbuf errors");
	sampler_summary(s, &v);
	eq(v.udp_in_errors, in_errors, "in errors");
	eq(v.udp_rcvbuf_errors, rcvbuf_errors, "rcvbuf errors");
	proc_buf_release(&buf);
	sampler_free(s);
}

static void test_snmp(void **state)
{
	snmp_series(*state, "edge/snmp.a", "edge/snmp.b", 10, 5);
}

static void test_snmp_no_udp(void **state)
{
	snmp_series(*state, "edge/snmp.noudp", "edge/snmp.noudp", NA, NA);
}

/* The limits hook: discovered at the first start only when configured. */
static void test_limits_hook(void **state)
{
	struct tree *t = *state;
	struct sampler_config cfg = tree_config(t);
	char root[64];
	struct limits_config lc = { .root = root, .dev_name = "vda", .iface = "eth0", .no_netlink = true };
	struct sampler *s;
	struct sysview v;

	cfg.interval_ns = SAMPLER_MAX_INTERVAL_NS;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	assert_null(sampler_limits(s));
	sampler_free(s);

	snprintf(root, sizeof(root), "%s", t->root);
	cfg.limits = &lc;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	memset(root, 'x', sizeof(root) - 1);	/* copied at sampler_new */
	root[sizeof(root) - 1] = '\0';
	assert_null(sampler_limits(s));
	assert_int_equal(sampler_start(s), 0);
	assert_non_null(sampler_limits(s));
	assert_true(sampler_limits(s)->discovered);
	t->now += NS_PER_SEC;
	assert_int_equal(sampler_stop(s), 0);
	sampler_summary(s, &v);
	assert_int_equal(v.samples, 1);
	sampler_free(s);
}

struct spin_arg {
	volatile uint64_t n;	/* loop turns */
	double cpu_s;		/* the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) */
};

static void *spin(void *arg)
{
	mono_ns end = clock_mono() + 300 * NS_PER_MS;
	struct spin_arg *a = arg;
	struct timespec ts;

	while (clock_mono() < end)
		a->n++;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		a->cpu_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return NULL;
}

/*
 * The real thing for the work: a thread spins for 300 ms; it is the
 * busiest, on some CPU, and its share is what it really got. On a loaded
 * box it gets less than a whole CPU, so the check is against its own
 * thread clock over the sampled wall time, not a fixed share.
 */
static void test_real_work(void **state)
{
	struct sampler_config cfg = { .interval_ns = 20 * NS_PER_MS, .work_pid = getpid(), .others = true };
	struct spin_arg a = { 0 };
	struct sampler *s;
	struct sysview v;
	pthread_t th;
	mono_ns t0, t1;
	double got;

	(void)state;
	assert_int_equal(sampler_new(&s, &cfg), 0);
	t0 = clock_mono();
	assert_int_equal(sampler_start(s), 0);
	assert_int_equal(pthread_create(&th, NULL, spin, &a), 0);
	pthread_join(th, NULL);
	assert_int_equal(sampler_stop(s), 0);
	t1 = clock_mono();
	sampler_summary(s, &v);
	assert_true(a.n > 0);
	assert_true(v.work_threads >= 1);
	got = 100.0 * a.cpu_s * (double)NS_PER_SEC / (double)(t1 - t0);
	if (!(v.work_thread_cpu_pct > 0.6 * got - 5 && v.work_thread_cpu_pct < 1.4 * got + 10))
		fail_msg("busiest thread %g %% of one CPU, the spinning thread's own clock says %g %%",
			 v.work_thread_cpu_pct, got);
	assert_true(v.work_thread_cpu >= 0);
	assert_true(v.work_cpu_pct >= v.work_thread_cpu_pct - 1e-9);
	assert_true(v.others_cpu_pct >= 0);
	sampler_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixture_series, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_heat, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_no_pressure, setup_tree_nopsi, teardown_tree),
		cmocka_unit_test_setup_teardown(test_on_sample, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_max_samples, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_resume, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_done, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_configured_devices, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_bad_stat, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_config_errors, setup_tree, teardown_tree),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_prompt_stop),
		cmocka_unit_test(test_real_run),
		cmocka_unit_test_setup_teardown(test_work_threads, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_work_no_schedstat, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_work_errors, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_others, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_snmp, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_snmp_no_udp, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_limits_hook, setup_tree, teardown_tree),
		cmocka_unit_test(test_real_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
