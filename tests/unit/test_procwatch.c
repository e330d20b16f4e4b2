/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of procwatch (src/core/kernel/procwatch.c), the reader behind
 * `engpass watch`. A fake /proc tree is built in a mkdtemp directory and
 * overwritten in place between readings (procwatch keeps some files open),
 * with the reading times passed in, so every percentage and rate below is
 * exactly what the written counters imply. One test runs on the real /proc
 * and checks only behaviour.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/procwatch.h"
#include "lib/xalloc.h"

#define SEC 1000000000ULL

struct tree {
	char root[64];
};

static void assert_near(double got, double want, double abs_err)
{
	if (!(fabs(got - want) <= abs_err))
		fail_msg("got %.6g, want %.6g (within %.2g)", got, want, abs_err);
}

/* Writes TEXT to ROOT/REL in place (same inode), creating directories. */
static void put(const struct tree *t, const char *rel, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void put(const struct tree *t, const char *rel, const char *fmt, ...)
{
	char *path = xasprintf("%s/%s", t->root, rel);
	char *text;
	va_list ap;
	int fd, n;

	for (char *p = strchr(path + strlen(t->root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	assert_int_equal(write(fd, text, (size_t)n), n);
	close(fd);
	free(text);
	free(path);
}

static void rm(const struct tree *t, const char *rel)
{
	char *path = xasprintf("%s/%s", t->root, rel);

	if (unlink(path) && rmdir(path))
		fail_msg("cannot remove '%s': %s", path, strerror(errno));
	free(path);
}

/* A /proc/PID/stat or task stat line with the fields procwatch reads. */
static void put_pidstat(const struct tree *t, const char *rel, int pid, const char *comm, char state,
			unsigned long ut, unsigned long st, int threads, unsigned long start, unsigned long rss,
			int cpu)
{
	put(t, rel,
	    "%d (%s) %c 1 %d %d 0 -1 4194560 0 0 0 0 %lu %lu 0 0 20 0 %d 0 %lu 1000000 %lu "
	    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0\n",
	    pid, comm, state, pid, pid, ut, st, threads, start, rss, cpu);
}

/* /proc/stat with two CPUs; ticks in the order user nice system idle iowait irq softirq steal. */
static void put_stat(const struct tree *t, const unsigned long c0[8], const unsigned long c1[8])
{
	unsigned long a[8];

	for (int i = 0; i < 8; i++)
		a[i] = c0[i] + c1[i];
	put(t, "stat",
	    "cpu  %lu %lu %lu %lu %lu %lu %lu %lu 0 0\n"
	    "cpu0 %lu %lu %lu %lu %lu %lu %lu %lu 0 0\n"
	    "cpu1 %lu %lu %lu %lu %lu %lu %lu %lu 0 0\n"
	    "intr 1 2 3\nctxt 100\nprocs_running 1\nprocs_blocked 0\n",
	    a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], c0[0], c0[1], c0[2], c0[3], c0[4], c0[5], c0[6], c0[7],
	    c1[0], c1[1], c1[2], c1[3], c1[4], c1[5], c1[6], c1[7]);
}

static void put_netdev(const struct tree *t, unsigned long rx, unsigned long tx)
{
	put(t, "net/dev",
	    "Inter-|   Receive                                                |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo "
	    "colls carrier compressed\n"
	    "    lo: %lu 10 0 0 0 0 0 0 %lu 10 0 0 0 0 0 0\n"
	    "  eth0: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n",
	    rx, tx);
}

/* reads, read sectors, writes, write sectors, io_ticks (ms). */
static void put_disk(const struct tree *t, unsigned long r, unsigned long rs, unsigned long w, unsigned long ws,
		     unsigned long io)
{
	put(t, "diskstats",
	    " 254       0 vda %lu 0 %lu 10 %lu 0 %lu 20 0 %lu 30 0 0 0 0 0 0\n"
	    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
	    r, rs, w, ws, io);
}

static void base_tree(struct tree *t)
{
	static const unsigned long c0[8] = { 0, 0, 0, 100, 0, 0, 0, 0 };
	static const unsigned long c1[8] = { 0, 0, 0, 100, 0, 0, 0, 0 };

	snprintf(t->root, sizeof(t->root), "/tmp/engpass-pw.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	put_stat(t, c0, c1);
	put_netdev(t, 0, 0);
	put_disk(t, 0, 0, 0, 0, 0);
	put_pidstat(t, "4242/stat", 4242, "fastd", 'S', 0, 0, 2, 777, 0, 0);
	put(t, "4242/status", "Name:\tfastd\nThreads:\t2\nCpus_allowed:\t1\nCpus_allowed_list:\t0\n");
	put(t, "4242/cmdline", "/usr/bin/fastd%c--config%c", 0, 0);
	put_pidstat(t, "4242/task/4242/stat", 4242, "fastd", 'S', 0, 0, 2, 777, 0, 0);
	put_pidstat(t, "4242/task/4243/stat", 4243, "fastd-io", 'S', 0, 0, 2, 780, 0, 1);
}

static void remove_tree(struct tree *t)
{
	char *cmd = xasprintf("rm -rf '%s'", t->root);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static struct procwatch *open_pw(const struct tree *t, pid_t pid, const char *iface, const char *disk)
{
	struct procwatch_config cfg = { .proc_root = t->root, .pid = pid, .iface = iface, .disk = disk,
					.clk_tck = 100, .page_size = 4096 };
	struct procwatch *pw;

	assert_int_equal(procwatch_new(&pw, &cfg), 0);
	return pw;
}

static void test_interval_figures(void **state)
{
	static const unsigned long c0[8] = { 90, 0, 0, 103, 0, 0, 5, 2 };
	static const unsigned long c1[8] = { 10, 0, 0, 190, 0, 0, 0, 0 };
	struct tree t;
	struct procwatch *pw;
	struct procwatch_interval iv;
	struct procwatch_summary s;

	(void)state;
	base_tree(&t);
	pw = open_pw(&t, 4242, "lo", "vda");
	assert_int_equal(procwatch_read(pw, 5 * SEC, &iv), -ENODATA);

	put_stat(&t, c0, c1);
	put_netdev(&t, 125000000, 62500000);
	put_disk(&t, 100, 800, 50, 400, 500);
	put_pidstat(&t, "4242/stat", 4242, "fastd", 'R', 80, 15, 2, 777, 256, 0);
	put_pidstat(&t, "4242/task/4242/stat", 4242, "fastd", 'R', 80, 10, 2, 777, 256, 0);
	put_pidstat(&t, "4242/task/4243/stat", 4243, "fastd-io", 'S', 5, 0, 2, 780, 256, 1);
	assert_int_equal(procwatch_read(pw, 6 * SEC, &iv), 0);

	assert_near(iv.t_s, 1.0, 1e-12);
	assert_near(iv.interval_s, 1.0, 1e-12);
	assert_int_equal(iv.flags, 0);
	assert_int_equal(iv.ncpu_slots, 2);
	assert_int_equal(iv.busiest_cpu, 0);
	assert_near(iv.busiest_pct, 97, 1e-9);		/* user 90 + softirq 5 + steal 2 of 100 */
	assert_near(iv.busiest_softirq_pct, 5, 1e-9);
	assert_near(iv.busiest_steal_pct, 2, 1e-9);
	assert_near(iv.busy[1], 10, 1e-6);
	assert_near(iv.cpu_busy_pct, 53.5, 1e-9);
	assert_near(iv.rx_bytes_per_s, 125e6, 1e-3);
	assert_near(iv.tx_bytes_per_s, 62.5e6, 1e-3);
	assert_near(iv.disk_reads_per_s, 100, 1e-9);
	assert_near(iv.disk_writes_per_s, 50, 1e-9);
	assert_near(iv.disk_read_bytes_per_s, 800 * 512, 1e-6);
	assert_near(iv.disk_util_pct, 50, 1e-9);
	assert_false(iv.proc_gone);
	assert_near(iv.proc_cpu_pct, 95, 1e-9);
	assert_int_equal(iv.proc_rss_bytes, 256 * 4096);
	assert_int_equal(iv.proc_threads, 2);
	assert_int_equal(iv.proc_top_cpu, 0);
	assert_int_equal(iv.top_tid, 4242);
	assert_near(iv.top_tid_cpu_pct, 90, 1e-9);

	procwatch_summary(pw, &s);
	assert_int_equal(s.intervals, 1);
	assert_int_equal(s.gaps, 0);
	assert_string_equal(s.comm, "fastd");
	assert_string_equal(s.cpus_allowed, "0");
	assert_int_equal(s.cpu[0].busy, 97);
	assert_int_equal(s.cpu[0].total, 100);
	assert_int_equal(s.cpu[0].softirq, 5);
	assert_int_equal(s.cpu[0].steal, 2);
	assert_int_equal(s.all.busy, 107);
	assert_int_equal(s.rx_bytes, 125000000);
	assert_int_equal(s.disk_writes, 50);
	assert_int_equal(s.disk_write_bytes, 400 * 512);
	assert_int_equal(s.proc_ticks, 95);
	assert_int_equal(s.thread_ticks_by_cpu[0], 90);
	assert_int_equal(s.thread_ticks_by_cpu[1], 5);
	assert_int_equal(s.thread_ticks, 95);
	assert_int_equal(s.top_tid, 4242);
	assert_int_equal(s.top_ticks, 90);
	assert_string_equal(s.top_comm, "fastd");
	assert_true(isnan(s.gone_after_s));

	procwatch_free(pw);
	remove_tree(&t);
}

/* Threads come and go; a migrating thread's time follows its last CPU. */
static void test_threads_come_and_go(void **state)
{
	struct tree t;
	struct procwatch *pw;
	struct procwatch_interval iv;
	struct procwatch_summary s;
	static const unsigned long c0[8] = { 0, 0, 0, 100, 0, 0, 0, 0 };
	static const unsigned long c1[8] = { 0, 0, 0, 100, 0, 0, 0, 0 };
	static const unsigned long d0[8] = { 50, 0, 0, 150, 0, 0, 0, 0 };
	static const unsigned long d1[8] = { 60, 0, 0, 140, 0, 0, 0, 0 };

	(void)state;
	base_tree(&t);
	pw = open_pw(&t, 4242, NULL, NULL);
	put_stat(&t, c0, c1);
	assert_int_equal(procwatch_read(pw, 0, &iv), -ENODATA);
	/* 4243 exits; 4244 is born with 30 ticks on cpu1; 4242 runs 50 ticks and ends on cpu1. */
	rm(&t, "4242/task/4243/stat");
	rm(&t, "4242/task/4243");
	put_pidstat(&t, "4242/task/4242/stat", 4242, "fastd", 'R', 50, 0, 2, 777, 10, 1);
	put_pidstat(&t, "4242/task/4244/stat", 4244, "worker", 'R', 30, 0, 2, 800, 10, 1);
	put_pidstat(&t, "4242/stat", 4242, "fastd", 'R', 80, 0, 2, 777, 10, 1);
	put_stat(&t, d0, d1);
	assert_int_equal(procwatch_read(pw, SEC, &iv), 0);
	assert_int_equal(iv.proc_top_cpu, 1);
	assert_int_equal(iv.top_tid, 4242);
	assert_near(iv.top_tid_cpu_pct, 50, 1e-9);
	procwatch_summary(pw, &s);
	assert_int_equal(s.thread_ticks_by_cpu[0], 0);
	assert_int_equal(s.thread_ticks_by_cpu[1], 80);
	assert_int_equal(s.top_cpu, 1);
	/* The TID 4244 reused by a new thread (other start time) starts from zero. */
	put_pidstat(&t, "4242/task/4244/stat", 4244, "worker2", 'R', 5, 0, 2, 900, 10, 0);
	assert_int_equal(procwatch_read(pw, 2 * SEC, &iv), 0);
	procwatch_summary(pw, &s);
	assert_int_equal(s.thread_ticks_by_cpu[0], 5);
	assert_int_equal(s.thread_ticks, 85);
	procwatch_free(pw);
	remove_tree(&t);
}

static void test_process_exits(void **state)
{
	struct tree t;
	struct procwatch *pw;
	struct procwatch_interval iv;
	struct procwatch_summary s;

	(void)state;
	base_tree(&t);
	pw = open_pw(&t, 4242, NULL, NULL);
	assert_int_equal(procwatch_read(pw, 0, &iv), -ENODATA);
	assert_int_equal(procwatch_read(pw, SEC, &iv), 0);
	assert_false(iv.proc_gone);
	/* A zombie leader whose other thread still runs is alive. */
	put_pidstat(&t, "4242/stat", 4242, "fastd", 'Z', 0, 0, 1, 777, 0, 0);
	put_pidstat(&t, "4242/task/4242/stat", 4242, "fastd", 'Z', 0, 0, 1, 777, 0, 0);
	assert_int_equal(procwatch_read(pw, 2 * SEC, &iv), 0);
	assert_false(iv.proc_gone);
	/* Now the last thread is a zombie too: gone. */
	put_pidstat(&t, "4242/task/4243/stat", 4243, "fastd-io", 'Z', 0, 0, 1, 780, 0, 1);
	assert_int_equal(procwatch_read(pw, 3 * SEC, &iv), 0);
	assert_true(iv.proc_gone);
	assert_true(iv.flags & PROCWATCH_PROC_GONE);
	procwatch_summary(pw, &s);
	assert_near(s.gone_after_s, 3.0, 1e-12);
	assert_int_equal(s.gaps, 0);
	/* Later readings still work and still say gone. */
	assert_int_equal(procwatch_read(pw, 4 * SEC, &iv), 0);
	assert_true(iv.proc_gone);
	procwatch_free(pw);
	remove_tree(&t);
}

static void test_pid_reused(void **state)
{
	struct tree t;
	struct procwatch *pw;
	struct procwatch_interval iv;

	(void)state;
	base_tree(&t);
	pw = open_pw(&t, 4242, NULL, NULL);
	assert_int_equal(procwatch_read(pw, 0, &iv), -ENODATA);
	put_pidstat(&t, "4242/stat", 4242, "other", 'R', 0, 0, 2, 999, 0, 0);
	assert_int_equal(procwatch_read(pw, SEC, &iv), 0);
	assert_true(iv.proc_gone);
	assert_true(isnan(iv.proc_cpu_pct));
	procwatch_free(pw);
	remove_tree(&t);
}

static void test_counters_backwards(void **state)
{
	static const unsigned long c0[8] = { 50, 0, 0, 150, 0, 0, 0, 0 };
	static const unsigned long c1[8] = { 50, 0, 0, 150, 0, 0, 0, 0 };
	static const unsigned long r0[8] = { 10, 0, 0, 250, 0, 0, 0, 0 };	/* user went backwards */
	static const unsigned long r1[8] = { 50, 0, 0, 250, 0, 0, 0, 0 };
	struct tree t;
	struct procwatch *pw;
	struct procwatch_interval iv;
	struct procwatch_summary s;

	(void)state;
	base_tree(&t);
	put_stat(&t, c0, c1);
	put_netdev(&t, 1000, 1000);
	pw = open_pw(&t, 0, "lo", NULL);
	assert_int_equal(procwatch_read(pw, 0, &iv), -ENODATA);
	put_stat(&t, r0, r1);
	put_netdev(&t, 10, 2000);
	assert_int_equal(procwatch_read(pw, SEC, &iv), 0);
	assert_true(iv.flags & PROCWATCH_CPU_RESET);
	assert_true(iv.flags & PROCWATCH_NET_RESET);
	assert_true(isnan(iv.busy[0]));
	assert_true(isnan(iv.rx_bytes_per_s));
	/* cpu1 did not go backwards: it still has a value (0 % busy). */
	assert_near(iv.busy[1], 0, 1e-9);
	procwatch_summary(pw, &s);
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.cpu[0].total, 0);
	procwatch_free(pw);
	remove_tree(&t);
}

static void test_new_errors(void **state)
{
	struct tree t;
	struct procwatch_config cfg = { .clk_tck = 100 };
	struct procwatch *pw;

	(void)state;
	base_tree(&t);
	cfg.proc_root = t.root;
	cfg.pid = 9999;
	assert_int_equal(procwatch_new(&pw, &cfg), -ESRCH);
	assert_null(pw);
	cfg.pid = 0;
	cfg.iface = "nosuch0";
	assert_int_equal(procwatch_new(&pw, &cfg), -ENODEV);
	cfg.iface = "eth0";
	cfg.disk = "sdz";
	assert_int_equal(procwatch_new(&pw, &cfg), -ENXIO);
	cfg.disk = "loop0";
	assert_int_equal(procwatch_new(&pw, &cfg), 0);
	procwatch_free(pw);
	/* A zombie with no live thread does not count as a process to watch. */
	put_pidstat(&t, "4242/stat", 4242, "fastd", 'Z', 0, 0, 1, 777, 0, 0);
	put_pidstat(&t, "4242/task/4242/stat", 4242, "fastd", 'Z', 0, 0, 1, 777, 0, 0);
	rm(&t, "4242/task/4243/stat");
	rm(&t, "4242/task/4243");
	cfg.pid = 4242;
	assert_int_equal(procwatch_new(&pw, &cfg), -ESRCH);
	cfg.pid = 0;
	cfg.proc_root = "/nonexistent-engpass";
	cfg.iface = cfg.disk = NULL;
	assert_int_equal(procwatch_new(&pw, &cfg), -ENOENT);
	remove_tree(&t);
}

static void test_find_name(void **state)
{
	struct tree t;
	pid_t pids[4];
	size_t n;

	(void)state;
	base_tree(&t);
	put_pidstat(&t, "5000/stat", 5000, "fastd", 'S', 0, 0, 1, 1, 0, 0);
	put(&t, "5000/cmdline", "fastd%c", 0);
	put_pidstat(&t, "6000/stat", 6000, "nginx", 'S', 0, 0, 1, 1, 0, 0);
	put(&t, "6000/cmdline", "/usr/sbin/nginx%c-g%c", 0, 0);
	put_pidstat(&t, "7000/stat", 7000, "verylongprocess", 'S', 0, 0, 1, 1, 0, 0);
	put(&t, "7000/cmdline", "/opt/x/verylongprocessname%c", 0);
	put_pidstat(&t, "8000/stat", 8000, "fastd", 'Z', 0, 0, 1, 1, 0, 0);
	put_pidstat(&t, "9000/stat", 9000, "python3", 'S', 0, 0, 1, 1, 0, 0);
	put(&t, "9000/cmdline", "/usr/bin/python3%c/srv/daemon.py%c", 0, 0);
	put(&t, "self", "not a pid\n");

	assert_int_equal(procwatch_find_name(t.root, "fastd", 0, pids, 4, &n), 0);
	assert_int_equal(n, 2);			/* the zombie 8000 is not matched */
	assert_int_equal(pids[0], 4242);
	assert_int_equal(pids[1], 5000);
	assert_int_equal(procwatch_find_name(t.root, "fastd", 5000, pids, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], 4242);
	assert_int_equal(procwatch_find_name(t.root, "fastd", 0, pids, 1, &n), 0);
	assert_int_equal(n, 2);			/* the count is not cut to MAX */
	assert_int_equal(procwatch_find_name(t.root, "nginx", 0, pids, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], 6000);
	assert_int_equal(procwatch_find_name(t.root, "verylongprocessname", 0, pids, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], 7000);
	assert_int_equal(procwatch_find_name(t.root, "daemon.py", 0, pids, 4, &n), 0);
	assert_int_equal(n, 0);			/* only argv[0] counts */
	assert_int_equal(procwatch_find_name(t.root, "nothing", 0, pids, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(procwatch_find_name("/nonexistent-engpass", "x", 0, pids, 4, &n), -ENOENT);
	remove_tree(&t);
}

/* The real /proc: this process, lo, and the figures' ranges. */
static void test_real_proc(void **state)
{
	struct procwatch_config cfg = { .pid = getpid(), .iface = "lo" };
	struct procwatch *pw;
	struct procwatch_interval iv;
	struct procwatch_summary s;
	pid_t pids[2];
	size_t n;

	(void)state;
	assert_int_equal(procwatch_new(&pw, &cfg), 0);
	assert_int_equal(procwatch_read(pw, 0, &iv), -ENODATA);
	usleep(50000);
	assert_int_equal(procwatch_read(pw, 50000000, &iv), 0);
	assert_true(iv.busiest_cpu >= 0 && iv.busiest_cpu < iv.ncpu_slots);
	assert_true(iv.busiest_pct >= 0 && iv.busiest_pct <= 100);
	assert_false(iv.proc_gone);
	/* qemu user emulation writes zeros past the first fields of /proc/self/stat, and has a thread of its own. */
	assert_true(iv.proc_rss_bytes > 0 || getenv("ENGPASS_EMULATED"));
	assert_true(iv.proc_threads == 1 || getenv("ENGPASS_EMULATED"));
	assert_true(iv.rx_bytes_per_s >= 0);
	procwatch_summary(pw, &s);
	assert_true(s.cpus_allowed[0] != '\0');
	procwatch_free(pw);
	/* This test binary finds itself by name unless it is excluded. */
	assert_int_equal(procwatch_find_name(NULL, "test_procwatch", 0, pids, 2, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(procwatch_find_name(NULL, "test_procwatch", getpid(), pids, 2, &n), 0);
	for (size_t i = 0; i < n && i < 2; i++)
		assert_int_not_equal(pids[i], getpid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_figures),
		cmocka_unit_test(test_threads_come_and_go),
		cmocka_unit_test(test_process_exits),
		cmocka_unit_test(test_pid_reused),
		cmocka_unit_test(test_counters_backwards),
		cmocka_unit_test(test_new_errors),
		cmocka_unit_test(test_find_name),
		cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
