/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/work/guardian.c that need no root: a process that
 * registers actions (write a saved value back, remove a file) and is
 * SIGKILLed must have them undone by its guardian, the latest first; a
 * cancelled action is not run; "done" runs nothing, a stop without it
 * runs everything; the limits are refused. The cgroup and swap actions
 * need root and are covered by test_sandbox and tests/cli/swap_dev.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/work/guardian.h"

static char dir[64];

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The first line of PATH, or "" when it does not exist. */
static const char *get(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/engpass-guardian-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Waits up to 5 s until PATH reads WANT ("" = gone). */
static bool becomes(const char *path, const char *want)
{
	char buf[64];

	for (int i = 0; i < 100; i++) {
		if (!strcmp(get(path, buf, sizeof(buf)), want))
			return true;
		usleep(50000);
	}
	return false;
}

static void test_sigkill_undoes(void **state)
{
	char a[128], b[128], c[128], buf[64];
	int p[2], st;
	pid_t pid;

	(void)state;
	path_of(a, sizeof(a), "knob");
	path_of(b, sizeof(b), "made");
	path_of(c, sizeof(c), "kept");
	put(a, "new");
	put(b, "x");
	put(c, "x");
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct guardian *g;
		int id;

		close(p[0]);
		if (guardian_start(&g))
			_exit(1);
		/* Two saved values for one file: the latest is undone first, so the first one stays. */
		if (guardian_add(g, GUARDIAN_WRITE, a, "old", -1) <= 0 ||
		    guardian_add(g, GUARDIAN_WRITE, a, "mid", -1) <= 0 ||
		    guardian_add(g, GUARDIAN_UNLINK, b, NULL, -1) <= 0 ||
		    (id = guardian_add(g, GUARDIAN_UNLINK, c, NULL, -1)) <= 0)
			_exit(2);
		guardian_cancel(g, id);
		if (write(p[1], "r", 1) != 1)
			_exit(3);
		pause();
		_exit(4);
	}
	close(p[1]);
	assert_int_equal(read(p[0], buf, 1), 1);
	close(p[0]);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(becomes(b, ""));
	assert_true(becomes(a, "old"));
	assert_string_equal(get(c, buf, sizeof(buf)), "x");
}

static void test_stop(void **state)
{
	struct guardian *g;
	char a[128], buf[64];

	(void)state;
	path_of(a, sizeof(a), "stop");
	put(a, "x");
	assert_int_equal(guardian_start(&g), 0);
	assert_true(guardian_add(g, GUARDIAN_UNLINK, a, NULL, -1) > 0);
	guardian_stop(g, true);
	assert_string_equal(get(a, buf, sizeof(buf)), "x");

	assert_int_equal(guardian_start(&g), 0);
	assert_true(guardian_add(g, GUARDIAN_UNLINK, a, NULL, -1) > 0);
	guardian_stop(g, false);	/* waits for the guardian, which undoes */
	assert_int_equal(access(a, F_OK), -1);
}

static void test_limits(void **state)
{
	struct guardian *g;
	static char longpath[GUARDIAN_PATH_MAX + 8];
	int ids[GUARDIAN_MAX];

	(void)state;
	assert_int_equal(guardian_add(NULL, GUARDIAN_UNLINK, "/nonexistent", NULL, -1), 0);
	assert_int_equal(guardian_start(&g), 0);
	memset(longpath, 'a', sizeof(longpath) - 1);
	assert_int_equal(guardian_add(g, GUARDIAN_UNLINK, longpath, NULL, -1), -EINVAL);
	assert_int_equal(guardian_add(g, (enum guardian_kind)9, "/x", NULL, -1), -EINVAL);
	for (int i = 0; i < GUARDIAN_MAX; i++)
		assert_true((ids[i] = guardian_add(g, GUARDIAN_UNLINK, "/nonexistent/engpass", NULL, -1)) > 0);
	assert_int_equal(guardian_add(g, GUARDIAN_UNLINK, "/nonexistent/engpass", NULL, -1), -ENOSPC);
	guardian_cancel(g, ids[0]);
	assert_true(guardian_add(g, GUARDIAN_UNLINK, "/nonexistent/engpass", NULL, -1) > 0);
	assert_true(guardian_fd(g) >= 0);
	assert_int_equal(guardian_fd(NULL), -1);
	guardian_stop(g, false);
}

static void test_actions(void **state)
{
	char a[128], buf[64];

	(void)state;
	path_of(a, sizeof(a), "act");
	put(a, "abc");
	assert_int_equal(guardian_write_file(a, "xyz"), 0);
	assert_string_equal(get(a, buf, sizeof(buf)), "xyz");
	assert_int_equal(guardian_undo_unlink(a), 0);
	assert_int_equal(guardian_undo_unlink(a), 0);	/* gone already: nothing to undo */
	assert_int_equal(guardian_write_file(a, "x"), -ENOENT);
	assert_int_equal(guardian_undo_cgroup(a), 0);	/* no such directory */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_undoes),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_actions),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
