/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/work/tmpfile.c: names, modes and O_EXCL retries in a
 * private mkdtemp() directory, removal and its refusals, the capacity
 * limit, and cleanup on SIGTERM, SIGINT and SIGHUP in forked children,
 * which must die of the signal and leave nothing behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/compiler.h"
#include "core/work/tmpfile.h"

struct fixture {
	char dir[64];
	struct tmpfile_reg *reg;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	umask(022);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/tmpfile_t.XXXXXX");
	if (!mkdtemp(fx->dir)) {
		free(fx);
		return -1;
	}
	fx->reg = tmpfile_reg_new();
	*state = fx;
	return 0;
}

/* Remove whatever a failed test left in the directory, then the directory. */
static int teardown(void **state)
{
	struct fixture *fx = *state;
	DIR *d = opendir(fx->dir);
	struct dirent *e;

	tmpfile_reg_free(fx->reg);
	while (d && (e = readdir(d))) {
		char p[512];

		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", fx->dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void test_create_basics(void **state)
{
	struct fixture *fx = *state;
	char want[128], buf[8];
	struct stat st;
	char *path;
	int fd;

	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "disk", 0, &fd, &path),
			 0);
	snprintf(want, sizeof(want), "%s/.engpass-disk-%ld-", fx->dir,
		 (long)getpid());
	assert_memory_equal(path, want, strlen(want));
	assert_int_equal(strlen(path), strlen(want) + 12);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	assert_int_equal(write(fd, "abc", 3), 3);
	assert_int_equal(pread(fd, buf, 3, 0), 3);
	assert_memory_equal(buf, "abc", 3);
	close(fd);
	assert_int_equal(tmpfile_remove(fx->reg, path), 0);
	assert_false(exists(path));
	/* removing it again: no longer registered */
	assert_int_equal(tmpfile_remove(fx->reg, path), -ENOENT);
	free(path);
	assert_int_equal(count_entries(fx->dir), 0);
}

static void test_names_differ_and_remove_all(void **state)
{
	struct fixture *fx = *state;
	char *paths[10];
	int fd;

	for (int i = 0; i < 10; i++) {
		/* path_out is optional; a trailing slash on dir is fine */
		if (i == 0) {
			char dir[80];

			snprintf(dir, sizeof(dir), "%s/", fx->dir);
			assert_int_equal(tmpfile_create(fx->reg, dir, NULL, 0,
							&fd, NULL), 0);
			paths[i] = NULL;
		} else {
			assert_int_equal(tmpfile_create(fx->reg, fx->dir, "x", 0,
							&fd, &paths[i]), 0);
		}
		close(fd);
		for (int j = 1; j < i; j++)
			assert_string_not_equal(paths[i], paths[j]);
	}
	assert_int_equal(count_entries(fx->dir), 10);
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	assert_int_equal(count_entries(fx->dir), 0);
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	for (int i = 1; i < 10; i++)
		free(paths[i]);
}

/* A name source that plays back a fixed sequence, then repeats the last. */
struct seq {
	const uint64_t *v;
	size_t n, i;
};

static uint64_t seq_next(void *arg)
{
	struct seq *s = arg;
	uint64_t v = s->v[s->i < s->n ? s->i : s->n - 1];

	if (s->i < s->n)
		s->i++;
	return v;
}

static void test_exclusive_retry(void **state)
{
	static const uint64_t vals[] = { 1, 1, 2 };
	struct fixture *fx = *state;
	struct seq seq = { vals, 3, 0 };
	char *a, *b, buf[8];
	int fa, fb;

	tmpfile_reg_set_random(fx->reg, seq_next, &seq);
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "r", 0, &fa, &a), 0);
	assert_non_null(strstr(a, "-000000000001"));
	assert_int_equal(write(fa, "keep", 4), 4);
	/* the second create meets name 1, must not open it, tries name 2 */
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "r", 0, &fb, &b), 0);
	assert_non_null(strstr(b, "-000000000002"));
	assert_int_equal(seq.i, 3);
	assert_int_equal(pread(fa, buf, 4, 0), 4);
	assert_memory_equal(buf, "keep", 4);
	close(fa);
	close(fb);
	free(a);
	free(b);
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	assert_int_equal(count_entries(fx->dir), 0);
}

static void test_foreign_file_untouched(void **state)
{
	static const uint64_t vals[] = { 7, 7, 8 };
	struct fixture *fx = *state;
	struct seq seq = { vals, 3, 0 };
	char foreign[128], link[128], *p, buf[8];
	int fd, ffd;

	tmpfile_reg_set_random(fx->reg, seq_next, &seq);
	/* somebody else's file, and a symlink, with our next names */
	snprintf(foreign, sizeof(foreign), "%s/.engpass-f-%ld-%012x", fx->dir,
		 (long)getpid(), 7);
	ffd = open(foreign, O_CREAT | O_WRONLY, 0644);
	assert_true(ffd >= 0);
	assert_int_equal(write(ffd, "mine", 4), 4);
	close(ffd);
	snprintf(link, sizeof(link), "%s/.engpass-f-%ld-%012x", fx->dir,
		 (long)getpid(), 8);
	assert_int_equal(symlink(foreign, link), 0);
	/* 7 twice, then 8 (the symlink) forever: every name is taken */
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "f", 0, &fd, &p),
			 -EEXIST);
	assert_int_equal(seq.i, 3);
	/* neither was opened or truncated, and neither can be removed */
	ffd = open(foreign, O_RDONLY);
	assert_int_equal(read(ffd, buf, 8), 4);
	close(ffd);
	assert_int_equal(tmpfile_remove(fx->reg, foreign), -ENOENT);
	assert_int_equal(tmpfile_remove(fx->reg, link), -ENOENT);
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	assert_true(exists(foreign));
	assert_true(exists(link));
	assert_int_equal(count_entries(fx->dir), 2);
	unlink(foreign);
	unlink(link);
}

static void test_capacity(void **state)
{
	struct fixture *fx = *state;
	char *first = NULL;
	int fd;

	for (int i = 0; i < TMPFILE_MAX; i++) {
		assert_int_equal(tmpfile_create(fx->reg, fx->dir, "cap", 0, &fd,
						i ? NULL : &first), 0);
		close(fd);
	}
	fd = -42;
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "cap", 0, &fd, NULL),
			 -ENOSPC);
	assert_int_equal(fd, -42);
	assert_int_equal(count_entries(fx->dir), TMPFILE_MAX);
	/* one removed: one more fits */
	assert_int_equal(tmpfile_remove(fx->reg, first), 0);
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "cap", 0, &fd, NULL), 0);
	close(fd);
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	assert_int_equal(count_entries(fx->dir), 0);
	free(first);
}

/* Every slot keeps its own path: all TMPFILE_MAX live at once, each
 * removed by the name it was given, none disturbed by the others. */
static void test_paths_kept_apart(void **state)
{
	struct fixture *fx = *state;
	char *path[TMPFILE_MAX];
	int fd;

	for (int i = 0; i < TMPFILE_MAX; i++) {
		assert_int_equal(tmpfile_create(fx->reg, fx->dir, i % 2 ? "odd" : "even-longer-prefix", 0,
						&fd, &path[i]), 0);
		close(fd);
	}
	for (int i = TMPFILE_MAX - 1; i >= 0; i--) {
		assert_int_equal(access(path[i], F_OK), 0);
		assert_int_equal(tmpfile_remove(fx->reg, path[i]), 0);
		assert_int_equal(access(path[i], F_OK), -1);
		assert_int_equal(count_entries(fx->dir), i);
		free(path[i]);
	}
}

static void test_bad_arguments(void **state)
{
	struct fixture *fx = *state;
	char missing[128], longdir[TMPFILE_PATH_MAX + 16];
	int fd = -42;
	char *p = NULL;

	snprintf(missing, sizeof(missing), "%s/nonexistent", fx->dir);
	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	assert_int_equal(tmpfile_create(fx->reg, NULL, "x", 0, &fd, &p), -EINVAL);
	assert_int_equal(tmpfile_create(fx->reg, "", "x", 0, &fd, &p), -EINVAL);
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "a/b", 0, &fd, &p),
			 -EINVAL);
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "x", 0, NULL, &p),
			 -EINVAL);
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "x", O_WRONLY, &fd, &p),
			 -EINVAL);
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "x", O_DIRECTORY, &fd,
					&p), -EINVAL);
	assert_int_equal(tmpfile_create(fx->reg, missing, "x", 0, &fd, &p),
			 -ENOENT);
	assert_int_equal(tmpfile_create(fx->reg, longdir, "x", 0, &fd, &p),
			 -ENAMETOOLONG);
	assert_int_equal(fd, -42);
	assert_null(p);
	/* no registry entry leaked by the failures */
	for (int i = 0; i < TMPFILE_MAX; i++) {
		assert_int_equal(tmpfile_create(fx->reg, fx->dir, "x", 0, &fd,
						NULL), 0);
		close(fd);
	}
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	assert_int_equal(count_entries(fx->dir), 0);
}

/* O_DIRECT works or the file system refuses it; nothing is left either way. */
static void test_extra_flags(void **state)
{
	struct fixture *fx = *state;
	int fd, r;

	r = tmpfile_create(fx->reg, fx->dir, "direct", O_DIRECT, &fd, NULL);
	assert_true(r == 0 || r == -EINVAL);
	if (r == 0) {
		assert_true(fcntl(fd, F_GETFL) & O_DIRECT);
		close(fd);
		assert_int_equal(count_entries(fx->dir), 1);
	} else {
		assert_int_equal(count_entries(fx->dir), 0);
	}
	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "sync", O_DSYNC, &fd,
					NULL), 0);
	assert_true(fcntl(fd, F_GETFL) & O_DSYNC);
	close(fd);
	assert_int_equal(tmpfile_remove_all(fx->reg), 0);
	assert_int_equal(count_entries(fx->dir), 0);
}

/*
 * Child processes report failures through their exit status; cmocka's
 * assertions must not run in them.
 */
#define CHILD_CHECK(cond, code)			\
	do {					\
		if (!(cond))			\
			_exit(code);		\
	} while (0)

/*
 * Fork a child that creates two files through a fresh registry with the
 * handlers installed, sends their paths over a pipe and then gets 'sig',
 * from itself (self) or from us. Returns the child's wait status; paths
 * receives the two paths.
 */
static int run_signalled_child(const char *dir, int sig, bool self,
			       char paths[2][256])
{
	int pfd[2], status;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tmpfile_reg *reg = tmpfile_reg_new();
		char buf[256];
		char *p;
		int fd;

		close(pfd[0]);
		/*
		 * The handlers leave a signal ignored at start alone (as nohup
		 * asks); this test is about the default, whoever started it.
		 */
		signal(sig, SIG_DFL);
		CHILD_CHECK(tmpfile_install_handlers(reg) == 0, 10);
		for (int i = 0; i < 2; i++) {
			CHILD_CHECK(tmpfile_create(reg, dir, "sig", 0, &fd,
						   &p) == 0, 11);
			memset(buf, 0, sizeof(buf));
			snprintf(buf, sizeof(buf), "%s", p);
			CHILD_CHECK(write(pfd[1], buf, sizeof(buf)) == 256, 12);
		}
		close(pfd[1]);
		if (self)
			raise(sig);
		else
			for (;;)
				pause();
		_exit(14);	/* the signal did not kill us */
	}
	close(pfd[1]);
	for (int i = 0; i < 2; i++) {
		size_t got = 0;

		memset(paths[i], 0, 256);
		while (got < 256) {
			ssize_t n = read(pfd[0], paths[i] + got, 256 - got);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
		paths[i][255] = '\0';
	}
	close(pfd[0]);
	if (!self)
		assert_int_equal(kill(pid, sig), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_signal_cleanup(void **state)
{
	static const struct {
		int sig;
		bool self;
	} cases[] = {
		{ SIGTERM, true },
		{ SIGINT, true },
		{ SIGHUP, true },
		{ SIGTERM, false },
		{ SIGINT, false },
	};
	struct fixture *fx = *state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char paths[2][256];
		int status = run_signalled_child(fx->dir, cases[i].sig,
						 cases[i].self, paths);

		if (!WIFSIGNALED(status))
			fail_msg("case %zu: child exited with %d", i,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		assert_int_equal(WTERMSIG(status), cases[i].sig);
		/* the child did create the files, and they are gone */
		for (int j = 0; j < 2; j++) {
			assert_non_null(strstr(paths[j], "/.engpass-sig-"));
			assert_false(exists(paths[j]));
		}
		assert_int_equal(count_entries(fx->dir), 0);
	}
}

/*
 * Soft stop: the first signal only sets the flag and the file stays; the
 * second removes it and kills.
 */
static void test_soft_stop(void **state)
{
	struct fixture *fx = *state;
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		static volatile sig_atomic_t stop;
		struct tmpfile_reg *reg = tmpfile_reg_new();
		char *p;
		int fd;

		CHILD_CHECK(tmpfile_install_handlers(reg) == 0, 10);
		tmpfile_set_stop_flag(reg, &stop);
		CHILD_CHECK(tmpfile_create(reg, fx->dir, "soft", 0, &fd, &p) == 0, 11);
		raise(SIGINT);
		CHILD_CHECK(stop == SIGINT, 12);
		CHILD_CHECK(access(p, F_OK) == 0, 13);
		raise(SIGTERM);
		_exit(14);	/* the second signal did not kill us */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status))
		fail_msg("child exited with %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_int_equal(count_entries(fx->dir), 0);
}

/* A child with a copy of our registry never removes our files. */
static void test_child_leaves_parent_files(void **state)
{
	struct fixture *fx = *state;
	char *path;
	int fd, status;
	pid_t pid;

	assert_int_equal(tmpfile_create(fx->reg, fx->dir, "parent", 0, &fd,
					&path), 0);
	close(fd);
	/* child 1: handlers on the inherited registry, killed by SIGTERM */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		CHILD_CHECK(tmpfile_install_handlers(fx->reg) == 0, 20);
		raise(SIGTERM);
		_exit(21);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_true(exists(path));
	/* child 2: remove and remove_all on the inherited registry */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		CHILD_CHECK(tmpfile_remove(fx->reg, path) == -ENOENT, 30);
		CHILD_CHECK(tmpfile_remove_all(fx->reg) == 0, 31);
		tmpfile_reg_free(fx->reg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(exists(path));
	/* and we still own it */
	assert_int_equal(tmpfile_remove(fx->reg, path), 0);
	assert_false(exists(path));
	free(path);
}

/* Installing and uninstalling: one registry at a time, old actions back. */
static void test_install_uninstall(void **state)
{
	struct fixture *fx = *state;
	struct tmpfile_reg *other = tmpfile_reg_new();
	struct sigaction sa;

	assert_int_equal(tmpfile_install_handlers(fx->reg), 0);
	assert_int_equal(tmpfile_install_handlers(fx->reg), 0);
	assert_int_equal(tmpfile_install_handlers(other), -EBUSY);
	assert_int_equal(tmpfile_uninstall_handlers(other), -EINVAL);
	assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
	assert_true(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
	assert_int_equal(tmpfile_uninstall_handlers(fx->reg), 0);
	assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	assert_int_equal(tmpfile_uninstall_handlers(fx->reg), -EINVAL);
	/* now the other one may; freeing it uninstalls */
	assert_int_equal(tmpfile_install_handlers(other), 0);
	tmpfile_reg_free(other);
	assert_int_equal(sigaction(SIGINT, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	assert_int_equal(tmpfile_install_handlers(fx->reg), 0);
	assert_int_equal(tmpfile_uninstall_handlers(fx->reg), 0);
}

/* An ignored signal (nohup) stays ignored and removes nothing. */
static void test_ignored_signal_stays_ignored(void **state)
{
	struct fixture *fx = *state;
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tmpfile_reg *reg = tmpfile_reg_new();
		char *p;
		int fd;

		signal(SIGHUP, SIG_IGN);
		CHILD_CHECK(tmpfile_install_handlers(reg) == 0, 40);
		CHILD_CHECK(tmpfile_create(reg, fx->dir, "hup", 0, &fd, &p) == 0,
			    41);
		raise(SIGHUP);
		CHILD_CHECK(access(p, F_OK) == 0, 42);
		CHILD_CHECK(tmpfile_uninstall_handlers(reg) == 0, 43);
		CHILD_CHECK(signal(SIGHUP, SIG_DFL) == SIG_IGN, 44);
		CHILD_CHECK(tmpfile_remove_all(reg) == 0, 45);
		CHILD_CHECK(access(p, F_OK) < 0, 46);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child status 0x%x", status);
	assert_int_equal(count_entries(fx->dir), 0);
}

/* reg_free removes what is left. */
static void test_free_removes(void **state)
{
	struct fixture *fx = *state;
	struct tmpfile_reg *reg = tmpfile_reg_new();
	int fd;

	assert_int_equal(tmpfile_create(reg, fx->dir, "free", 0, &fd, NULL), 0);
	close(fd);
	assert_int_equal(count_entries(fx->dir), 1);
	tmpfile_reg_free(reg);
	tmpfile_reg_free(NULL);
	assert_int_equal(count_entries(fx->dir), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_create_basics),
		T(test_names_differ_and_remove_all),
		T(test_exclusive_retry),
		T(test_foreign_file_untouched),
		T(test_capacity),
		T(test_paths_kept_apart),
		T(test_bad_arguments),
		T(test_extra_flags),
		T(test_signal_cleanup),
		T(test_soft_stop),
		T(test_child_leaves_parent_files),
		T(test_install_uninstall),
		T(test_ignored_signal_stays_ignored),
		T(test_free_removes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
