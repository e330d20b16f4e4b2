/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/taskstats.c.
 *
 * The parser on replies captured from a 6.18 kernel (struct taskstats
 * version 16) and on forms derived from them, in
 * tests/fixtures/taskstats/ (README there): a thread with block I/O
 * accounted, one made before delay accounting was on, a process, the
 * kernel's ESRCH and EPERM answers; older and shorter structs (versions
 * 6, 10, 14), version 15's shifted layout, a longer version 17, a MIPS
 * kernel's TASKSTATS_TYPE_NULL padding; and the refusals: cut messages
 * (every prefix of a real reply), a struct shorter than its version, a
 * version of 0 or 1, no id, both aggregates, trailing bytes, an attribute
 * longer than its nest, another command or family.
 *
 * Live, as root (left out with the reason otherwise, and under qemu user
 * emulation): open, this thread and this process, a thread that does not
 * exist, the cost of one query. Then kernel.task_delayacct set to 1 (the
 * old value restored in the parent whatever the child did): a thread that
 * writes with O_DIRECT and fdatasync()s shows blkio_ns > 0, one that
 * sleeps 0; the test's own thread, made before the sysctl was set, stays
 * at 0 (not accounted). And set to 0: what the kernel gives then.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "core/kernel/taskstats.h"
#include "lib/compiler.h"

#if HAVE_LIBMNL

/* The TASKSTATS family id on the machine the fixtures were captured on. */
#define FIX_FAMILY 31

/* A fixture read whole into an aligned buffer. */
struct fix {
	union {
		char c[2048];
		uint64_t align;
	} u;
	size_t len;
};

static void load(const char *name, struct fix *f)
{
	const char *e = getenv("ENGPASS_FIXTURES");
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/taskstats/%s", e ? e : "tests/fixtures", name);
	fp = fopen(path, "rb");
	if (!fp)
		fail_msg("cannot open '%s'", path);
	f->len = fread(f->u.c, 1, sizeof(f->u.c), fp);
	fclose(fp);
	assert_true(f->len > 0 && f->len < sizeof(f->u.c));
}

static int parse_fix(const char *name, struct taskstats_delays *d)
{
	struct fix f;

	load(name, &f);
	return taskstats_parse(f.u.c, f.len, FIX_FAMILY, d);
}

static bool emulated(void)
{
	return getenv("ENGPASS_EMULATED") != NULL;
}

/* ------------------------------------------------------------------ */
/* The parser on captured replies */

static void test_captured_thread(void **state)
{
	struct taskstats_delays d;

	(void)state;
	assert_int_equal(parse_fix("v16_tid_blkio.bin", &d), 0);
	assert_int_equal(d.version, 16);
	assert_false(d.is_tgid);
	assert_int_equal(d.id, 6231);
	assert_true(d.blkio_ns > 0 && d.blkio_count > 0);
	assert_true(d.cpu_count > 0 && d.cpu_ns > 0);
	assert_true(d.have_freepages && d.have_thrashing && d.have_compact && d.have_wpcopy &&
		    d.have_irq);
	assert_true(d.ac_etime_us > 0);
	assert_int_equal(d.suspect, 0);
	/* A thread that did I/O, waited for it less long than it lived. */
	assert_true(d.blkio_ns < d.ac_etime_us * 1000);
}

static void test_captured_unaccounted(void **state)
{
	struct taskstats_delays d;

	(void)state;
	/* Made before kernel.task_delayacct=1, it did the same I/O: nothing recorded, but the run queue is. */
	assert_int_equal(parse_fix("v16_tid_unaccounted.bin", &d), 0);
	assert_int_equal(d.blkio_ns, 0);
	assert_int_equal(d.blkio_count, 0);
	assert_true(d.cpu_count > 0);
	/* kernel.task_delayacct=0: init's thread and process. */
	assert_int_equal(parse_fix("v16_tid_off.bin", &d), 0);
	assert_int_equal(d.id, 1);
	assert_false(d.is_tgid);
	assert_int_equal(d.blkio_count, 0);
	assert_true(d.cpu_count > 0);
	assert_int_equal(parse_fix("v16_tgid_off.bin", &d), 0);
	assert_int_equal(d.id, 1);
	assert_true(d.is_tgid);
	assert_true(d.cpu_count > 0 && d.cpu_run_ns > 0);
	assert_int_equal(d.suspect, 0);
}

static void test_captured_suspect(void **state)
{
	struct taskstats_delays d;

	(void)state;
	/* A new thread whose blkio total holds the uptime (6.18): flagged, the rest usable. */
	assert_int_equal(parse_fix("v16_tid_suspect.bin", &d), 0);
	assert_true(d.suspect & TSD_SUSPECT_BLKIO);
	assert_false(d.suspect & TSD_SUSPECT_CPU);
	assert_true(d.blkio_ns > d.ac_etime_us * 1000);
}

static void test_captured_errors(void **state)
{
	struct taskstats_delays d;

	(void)state;
	assert_int_equal(parse_fix("err_esrch.bin", &d), -ESRCH);
	assert_int_equal(parse_fix("err_eperm.bin", &d), -EPERM);
	assert_int_equal(d.id, 0);
}

/* ------------------------------------------------------------------ */
/* Other versions: derived from v16_tid_blkio.bin */

static void assert_same(const struct taskstats_delays *a, const struct taskstats_delays *b, int upto)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->cpu_ns, b->cpu_ns);
	assert_int_equal(a->cpu_count, b->cpu_count);
	assert_int_equal(a->cpu_run_ns, b->cpu_run_ns);
	assert_int_equal(a->blkio_ns, b->blkio_ns);
	assert_int_equal(a->blkio_count, b->blkio_count);
	assert_int_equal(a->swapin_ns, b->swapin_ns);
	assert_int_equal(a->swapin_count, b->swapin_count);
	assert_int_equal(a->ac_etime_us, b->ac_etime_us);
	assert_int_equal(a->freepages_ns, upto >= 7 ? b->freepages_ns : 0);
	assert_int_equal(a->freepages_count, upto >= 7 ? b->freepages_count : 0);
	assert_int_equal(a->thrashing_ns, upto >= 9 ? b->thrashing_ns : 0);
	assert_int_equal(a->compact_ns, upto >= 11 ? b->compact_ns : 0);
	assert_int_equal(a->wpcopy_ns, upto >= 13 ? b->wpcopy_ns : 0);
	assert_int_equal(a->wpcopy_count, upto >= 13 ? b->wpcopy_count : 0);
	assert_int_equal(a->irq_ns, upto >= 14 ? b->irq_ns : 0);
	assert_int_equal(a->irq_count, upto >= 14 ? b->irq_count : 0);
	assert_int_equal(a->have_freepages, upto >= 7);
	assert_int_equal(a->have_thrashing, upto >= 9);
	assert_int_equal(a->have_compact, upto >= 11);
	assert_int_equal(a->have_wpcopy, upto >= 13);
	assert_int_equal(a->have_irq, upto >= 14);
}

static void test_versions(void **state)
{
	static const struct {
		const char *name;
		uint16_t version;
		int upto;
	} cases[] = {
		{ "v6_short.bin", 6, 6 },		/* 312 bytes: up to cpu_scaled_run_real_total */
		{ "v10_short.bin", 10, 10 },	/* 352 bytes: up to ac_btime64 */
		{ "v14.bin", 14, 14 },		/* 432 bytes: irq at its end */
		{ "v15_shifted.bin", 15, 16 },	/* max/min pairs in the middle: the same figures */
		{ "v17_long.bin", 17, 16 },	/* a longer struct: its tail ignored */
		{ "mips_pad.bin", 16, 16 },	/* TASKSTATS_TYPE_NULL before the struct */
	};
	struct taskstats_delays ref, d;

	(void)state;
	assert_int_equal(parse_fix("v16_tid_blkio.bin", &ref), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		printf("# %s\n", cases[i].name);
		assert_int_equal(parse_fix(cases[i].name, &d), 0);
		assert_int_equal(d.version, cases[i].version);
		assert_same(&d, &ref, cases[i].upto);
	}
}

/* ------------------------------------------------------------------ */
/* Refusals */

static void test_malformed(void **state)
{
	static const struct {
		const char *name;
		int rc;
	} cases[] = {
		{ "bad_cut.bin", -EINVAL },		/* nlmsg_len past the end */
		{ "bad_stats_short.bin", -EINVAL },	/* version 16 in 400 bytes */
		{ "bad_version0.bin", -EINVAL },
		{ "v1.bin", -EINVAL },			/* 2.6.18-rc's layout */
		{ "bad_no_pid.bin", -EINVAL },
		{ "bad_both_aggr.bin", -EINVAL },
		{ "bad_trailing.bin", -EINVAL },
		{ "bad_nla_len.bin", -EINVAL },		/* the struct's attribute longer than its nest */
		{ "bad_pid_size.bin", -EINVAL },	/* a 2-byte id */
		{ "other_cmd.bin", -ENOMSG },		/* TASKSTATS_CMD_GET, not a reply */
	};
	struct taskstats_delays d;
	struct fix f;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		printf("# %s\n", cases[i].name);
		memset(&d, 0xa5, sizeof(d));
		assert_int_equal(parse_fix(cases[i].name, &d), cases[i].rc);
		assert_int_equal(d.id, 0);
		assert_int_equal(d.version, 0);
		assert_int_equal(d.cpu_ns, 0);
	}
	/* Another family's message. */
	load("v16_tid_blkio.bin", &f);
	assert_int_equal(taskstats_parse(f.u.c, f.len, FIX_FAMILY + 1, &d), -ENOMSG);
	assert_int_equal(taskstats_parse(f.u.c, f.len, 0, &d), -ENOMSG);
}

static void test_every_prefix(void **state)
{
	struct taskstats_delays d;
	struct fix f;

	(void)state;
	load("v16_tid_blkio.bin", &f);
	assert_int_equal(taskstats_parse(f.u.c, f.len, FIX_FAMILY, &d), 0);
	for (size_t n = 0; n < f.len; n++) {
		/* The cut copy in a buffer of exactly its length: an over-read is the sanitizer's to catch. */
		char *p = malloc(n ? n : 1);

		memcpy(p, f.u.c, n);
		assert_int_equal(taskstats_parse(p, n, FIX_FAMILY, &d), -EINVAL);
		assert_int_equal(d.blkio_ns, 0);
		free(p);
	}
}

static void test_delayacct_sysctl(void **state)
{
	char dir[] = "/tmp/engpass-ts-XXXXXX", path[PATH_MAX];
	static const struct {
		const char *text;
		int rc;
	} cases[] = { { "0\n", 0 }, { "1\n", 1 }, { "  1  \n", 1 }, { "2\n", -EINVAL }, { "on\n", -EINVAL } };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(taskstats_delayacct_enabled(dir), -ENOENT);
	snprintf(path, sizeof(path), "%s/sys", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel/task_delayacct", dir);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(cases[i].text, f);
		fclose(f);
		assert_int_equal(taskstats_delayacct_enabled(dir), cases[i].rc);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sys", dir);
	rmdir(path);
	rmdir(dir);
	assert_non_null(strstr(taskstats_off_hint(), "sysctl -w kernel.task_delayacct=1"));
}

/* ------------------------------------------------------------------ */
/* Live, against the kernel */

static double ts_us(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void test_live_basic(void **state)
{
	struct taskstats_conn *c = NULL;
	struct taskstats_delays d;
	char why[160] = "";
	enum { N = 2000 };
	double cpu0, wall0, cpu, wall;

	(void)state;
	if (taskstats_open(&c, why, sizeof(why)))
		fail_msg("taskstats_open: %s", why);
	assert_int_equal(taskstats_tid(c, gettid(), &d), 0);
	assert_int_equal(d.id, (uint32_t)gettid());
	assert_false(d.is_tgid);
	assert_true(d.version >= 1);
	assert_true(d.ac_etime_us > 0);
	assert_int_equal(taskstats_tgid(c, getpid(), &d), 0);
	assert_int_equal(d.id, (uint32_t)getpid());
	assert_true(d.is_tgid);
	assert_true(d.cpu_count > 0);
	/* No such thread (above the largest pid_max), a bad id. */
	assert_int_equal(taskstats_tid(c, 0x7ffffff0, &d), -ESRCH);
	assert_int_equal(taskstats_tgid(c, 0x7ffffff0, &d), -ESRCH);
	assert_int_equal(taskstats_tid(c, 0, &d), -EINVAL);
	/* The connection still answers after errors. */
	assert_int_equal(taskstats_tid(c, gettid(), &d), 0);

	/* Cost of one query: a send and a receive, CPU time of this thread and wall time. */
	cpu0 = ts_us(CLOCK_THREAD_CPUTIME_ID);
	wall0 = ts_us(CLOCK_MONOTONIC);
	for (int i = 0; i < N; i++)
		assert_int_equal(taskstats_tid(c, gettid(), &d), 0);
	cpu = (ts_us(CLOCK_THREAD_CPUTIME_ID) - cpu0) / N;
	wall = (ts_us(CLOCK_MONOTONIC) - wall0) / N;
	printf("# taskstats: one query of one thread costs %.1f us of CPU (this thread), %.1f us of wall time "
	       "(%d queries, struct version %u)\n", cpu, wall, N, d.version);
	/* A loose bound: a query is a system call pair, not a scan. */
	assert_true(cpu < 1000);
	taskstats_close(c);
	taskstats_close(NULL);
}

/* What the child measured, passed to the parent through a pipe. */
struct live_result {
	int rc_open, rc_io, rc_sleep, rc_self, enabled, io_err;
	struct taskstats_delays io, sleeper, self;
	char why[160];
};

static pthread_barrier_t bar;
static int io_tid, sleep_tid, io_err;

/* Writes 32 blocks of 4 KiB with O_DIRECT in the current directory, each fdatasync()ed, reads them back. */
static void *io_thread(void *arg)
{
	char name[64];
	void *buf = NULL;
	int fd;

	(void)arg;
	io_tid = gettid();
	snprintf(name, sizeof(name), "taskstats-io.%d", (int)getpid());
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0) /* a file system without O_DIRECT: fdatasync() alone still waits for the disk */
		fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		io_err = errno ? errno : ENOMEM;
	} else {
		memset(buf, 0x5a, 4096);
		for (int i = 0; i < 32; i++) {
			if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096 || fdatasync(fd) < 0)
				io_err = errno;
		}
		for (int i = 0; i < 32; i++)
			if (pread(fd, buf, 4096, (off_t)i * 4096) != 4096)
				io_err = errno;
	}
	if (fd >= 0)
		close(fd);
	unlink(name);
	free(buf);
	pthread_barrier_wait(&bar);	/* done: the parent thread queries */
	pthread_barrier_wait(&bar);	/* queried: exit */
	return NULL;
}

static void *sleep_thread(void *arg)
{
	struct timespec t = { 0, 50 * 1000 * 1000 };

	(void)arg;
	sleep_tid = gettid();
	nanosleep(&t, NULL);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	return NULL;
}

/* In the child: the two threads, made now, and the queries; the result into fd OUT. */
static void live_child(int out)
{
	struct live_result r;
	struct taskstats_conn *c = NULL;
	pthread_t a, b;

	memset(&r, 0, sizeof(r));
	r.enabled = taskstats_delayacct_enabled(NULL);
	r.rc_open = taskstats_open(&c, r.why, sizeof(r.why));
	if (!r.rc_open) {
		pthread_barrier_init(&bar, NULL, 3);
		pthread_create(&a, NULL, io_thread, NULL);
		pthread_create(&b, NULL, sleep_thread, NULL);
		pthread_barrier_wait(&bar);
		r.rc_io = taskstats_tid(c, io_tid, &r.io);
		r.rc_sleep = taskstats_tid(c, sleep_tid, &r.sleeper);
		r.io_err = io_err;
		pthread_barrier_wait(&bar);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		taskstats_close(c);
	}
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(3);
	_exit(0);
}

#define SYSCTL "/proc/sys/kernel/task_delayacct"

static int write_sysctl(int v)
{
	FILE *f = fopen(SYSCTL, "w");
	int rc;

	if (!f)
		return -errno;
	rc = fprintf(f, "%d\n", v) < 0 ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

static int old_delayacct = -1;

/* Whatever happened in the test: the sysctl back as it was. */
static int restore_sysctl(void **state)
{
	(void)state;
	if (old_delayacct >= 0 && write_sysctl(old_delayacct))
		fprintf(stderr, "cannot restore kernel.task_delayacct=%d\n", old_delayacct);
	old_delayacct = -1;
	return 0;
}

/*
 * Sets kernel.task_delayacct to V, runs live_child() in a child process
 * into R, restores the old value (also if the child died), and for the
 * test's own thread (made before the change) does I/O and queries it
 * while the value is V, into SELF.
 */
static void run_with_delayacct(int v, struct live_result *r, struct taskstats_delays *self, int *old_out)
{
	struct taskstats_conn *c = NULL;
	char why[160];
	int p[2], status, rc_self;
	pid_t pid;
	ssize_t n;

	old_delayacct = taskstats_delayacct_enabled(NULL);
	assert_true(old_delayacct == 0 || old_delayacct == 1);
	*old_out = old_delayacct;
	assert_int_equal(write_sysctl(v), 0);
	assert_int_equal(taskstats_delayacct_enabled(NULL), v);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		live_child(p[1]);
	}
	close(p[1]);
	n = read(p[0], r, sizeof(*r));
	close(p[0]);
	waitpid(pid, &status, 0);
	/* This thread: some fdatasync()s while V holds. */
	rc_self = taskstats_open(&c, why, sizeof(why));
	if (!rc_self) {
		int fd = open("taskstats-self.tmp", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		for (int i = 0; fd >= 0 && i < 8; i++)
			if (pwrite(fd, why, sizeof(why), 0) < 0 || fdatasync(fd) < 0)
				break;
		if (fd >= 0)
			close(fd);
		unlink("taskstats-self.tmp");
		rc_self = taskstats_tid(c, gettid(), self);
		taskstats_close(c);
	}
	restore_sysctl(NULL);
	assert_int_equal(taskstats_delayacct_enabled(NULL), *old_out);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(n, (ssize_t)sizeof(*r));
	assert_int_equal(rc_self, 0);
	if (r->rc_open)
		fail_msg("taskstats_open in the child: %s", r->why);
	assert_int_equal(r->rc_io, 0);
	assert_int_equal(r->rc_sleep, 0);
	assert_int_equal(r->io_err, 0);
}

static void test_live_delayacct_on(void **state)
{
	struct live_result r;
	struct taskstats_delays self;
	int old;

	(void)state;
	run_with_delayacct(1, &r, &self, &old);
	assert_int_equal(r.enabled, 1);
	printf("# delayacct on: I/O thread blkio %llu ns in %llu waits (suspect 0x%x), sleeper blkio %llu ns, "
	       "this thread (made before) blkio %llu ns in %llu\n",
	       (unsigned long long)r.io.blkio_ns, (unsigned long long)r.io.blkio_count, r.io.suspect,
	       (unsigned long long)r.sleeper.blkio_ns, (unsigned long long)self.blkio_ns,
	       (unsigned long long)self.blkio_count);
	assert_true(r.io.blkio_count > 0);
	assert_true(r.io.blkio_ns > 0);
	assert_int_equal(r.sleeper.blkio_ns, 0);
	assert_int_equal(r.sleeper.blkio_count, 0);
	assert_int_equal(r.sleeper.suspect, 0);
	/* Only a thread made while it was off is not accounted: this one, if the sysctl was 0 at its start. */
	if (old == 0) {
		assert_int_equal(self.blkio_ns, 0);
		assert_int_equal(self.blkio_count, 0);
	}
}

static void test_live_delayacct_off(void **state)
{
	struct live_result r;
	struct taskstats_delays self;
	int old;

	(void)state;
	run_with_delayacct(0, &r, &self, &old);
	assert_int_equal(r.enabled, 0);
	printf("# delayacct off: the kernel gives blkio %llu/%llu, swapin %llu, freepages %llu for the I/O thread, "
	       "and the run queue still: cpu %llu ns in %llu\n",
	       (unsigned long long)r.io.blkio_ns, (unsigned long long)r.io.blkio_count,
	       (unsigned long long)r.io.swapin_ns, (unsigned long long)r.io.freepages_ns,
	       (unsigned long long)r.io.cpu_ns, (unsigned long long)r.io.cpu_count);
	assert_int_equal(r.io.blkio_ns, 0);
	assert_int_equal(r.io.blkio_count, 0);
	assert_int_equal(r.io.swapin_ns, 0);
	assert_int_equal(r.io.freepages_ns, 0);
	assert_true(r.io.cpu_count > 0);
}

/* Why the live tests cannot run here, or NULL. */
static const char *no_live(void)
{
	if (emulated())
		return "under qemu user emulation (no generic netlink)";
	if (geteuid() != 0)
		return "not root (TASKSTATS_CMD_GET needs CAP_NET_ADMIN)";
	if (access(SYSCTL, W_OK))
		return "no writable " SYSCTL;
	return NULL;
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_captured_thread),
		cmocka_unit_test(test_captured_unaccounted),
		cmocka_unit_test(test_captured_suspect),
		cmocka_unit_test(test_captured_errors),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_every_prefix),
	};
	const struct CMUnitTest live[] = {
		cmocka_unit_test(test_live_basic),
		cmocka_unit_test_teardown(test_live_delayacct_on, restore_sysctl),
		cmocka_unit_test_teardown(test_live_delayacct_off, restore_sysctl),
	};
	struct CMUnitTest tests[ARRAY_SIZE(pure) + ARRAY_SIZE(live) + 1];
	size_t n = 0;
	const char *why = no_live();

	/* The fixtures hold a little-endian kernel's bytes (host order). */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		for (size_t i = 0; i < ARRAY_SIZE(pure); i++)
			tests[n++] = pure[i];
	} else {
		printf("# skipped the fixture tests: captured on a little-endian machine\n");
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_delayacct_sysctl);
	if (why) {
		printf("# skipped the live tests: %s\n", why);
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(live); i++)
			tests[n++] = live[i];
	}
	return _cmocka_run_group_tests("taskstats", tests, n, NULL, NULL);
}

#else /* !HAVE_LIBMNL */

static void test_without_libmnl(void **state)
{
	struct taskstats_conn *c = (void *)1;
	struct taskstats_delays d;
	char why[64] = "";

	(void)state;
	assert_int_equal(taskstats_open(&c, why, sizeof(why)), -ENOTSUP);
	assert_null(c);
	assert_string_equal(why, "built without libmnl");
	assert_int_equal(taskstats_parse("", 0, 31, &d), -ENOTSUP);
	assert_int_equal(taskstats_tid(NULL, 1, &d), -ENOTSUP);
	assert_int_equal(taskstats_tgid(NULL, 1, &d), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_libmnl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
