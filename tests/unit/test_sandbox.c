/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/work/sandbox.c. The pure parts -- finding the memory
 * controller from recorded mountinfo and cgroup text, the swap header
 * layout -- run everywhere; the swap directory checks use /dev/shm and
 * the build's own directories. With root and a memory controller, the
 * real thing: a cgroup with a limit, a child spawned into it, teardown;
 * and a process that makes a sandbox with a swap file and is SIGKILLed,
 * after which its guardian must have removed the cgroup, disabled the
 * swap file and deleted it. Those are skipped, with the reason, otherwise.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/work/sandbox.h"

/* This VM: cgroup v1 memory beside a v2 mount without controllers, no optional fields. */
static const char mi_hybrid[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char cg_hybrid[] =
	"9:name=systemd:/\n"
	"4:memory:/process_api/b1f5\n"
	"1:cpu:/\n"
	"0::/\n";

/* systemd on Debian 12: pure v2 with optional fields. */
static const char mi_v2[] =
	"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	"26 21 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
static const char cg_v2[] = "0::/user.slice/user-0.slice/session-1.scope\n";

static void test_find_v1_hybrid(void **state)
{
	struct sandbox_memcg mc;

	(void)state;
	assert_int_equal(sandbox_find_memcg(mi_hybrid, cg_hybrid, &mc), 0);
	assert_int_equal(mc.version, 1);
	assert_string_equal(mc.parent, "/sys/fs/cgroup/memory/process_api/b1f5");
}

static void test_find_v1_root_cgroup(void **state)
{
	struct sandbox_memcg mc;

	(void)state;
	assert_int_equal(sandbox_find_memcg(mi_hybrid, "4:memory:/\n0::/\n", &mc), 0);
	assert_int_equal(mc.version, 1);
	assert_string_equal(mc.parent, "/sys/fs/cgroup/memory");
}

/* A v1 hierarchy mounted from below its root (a container): the mount root is stripped. */
static void test_find_v1_mount_root(void **state)
{
	static const char mi[] = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid shared:9 - cgroup cgroup rw,memory\n";
	struct sandbox_memcg mc;

	(void)state;
	assert_int_equal(sandbox_find_memcg(mi, "4:memory:/docker/abc/inner\n", &mc), 0);
	assert_string_equal(mc.parent, "/sys/fs/cgroup/memory/inner");
	assert_int_equal(sandbox_find_memcg(mi, "4:memory:/docker/abcdef\n", &mc), -ENOENT);
	assert_int_equal(mc.version, 0);
}

static void test_find_v2(void **state)
{
	struct sandbox_memcg mc;

	(void)state;
	assert_int_equal(sandbox_find_memcg(mi_v2, cg_v2, &mc), 0);
	assert_int_equal(mc.version, 2);
	/* The v2 root, not our own cgroup: "no internal processes". */
	assert_string_equal(mc.parent, "/sys/fs/cgroup");
}

/* Escaped mount points are decoded; controllers are matched as whole words. */
static void test_find_escapes_and_words(void **state)
{
	static const char mi[] =
		"35 31 0:32 / /mnt/my\\040cg rw - cgroup cgroup rw,memory_x\n"
		"36 31 0:33 / /mnt/mem\\040ory rw - cgroup cgroup rw,nosuid,memory\n";
	struct sandbox_memcg mc;

	(void)state;
	assert_int_equal(sandbox_find_memcg(mi, "5:memory:/a\n", &mc), 0);
	assert_string_equal(mc.parent, "/mnt/mem ory/a");
	/* "memory_x" in a cgroup line is not the memory controller. */
	assert_int_equal(sandbox_find_memcg(mi_v2, "4:memory_x:/a\n0::/b\n", &mc), 0);
	assert_int_equal(mc.version, 2);
}

static void test_find_none(void **state)
{
	static const char mi[] = "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n";
	struct sandbox_memcg mc;

	(void)state;
	assert_int_equal(sandbox_find_memcg(mi, "0::/\n", &mc), -ENOENT);
	assert_int_equal(sandbox_find_memcg("", "", &mc), -ENOENT);
	/* A v1 memory line without a v1 memory mount, and no v2: nothing to use. */
	assert_int_equal(sandbox_find_memcg(mi, "4:memory:/x\n", &mc), -ENOENT);
}

static void test_swap_header(void **state)
{
	static unsigned char page[4096];
	const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	uint32_t w[3];

	(void)state;
	memset(page, 0xaa, sizeof(page));
	assert_int_equal(sandbox_swap_header(page, 4096, 256ull << 20, uuid), 0);
	assert_memory_equal(page + 4096 - 10, "SWAPSPACE2", 10);
	memcpy(w, page + 1024, sizeof(w));
	assert_int_equal(w[0], 1);			/* version */
	assert_int_equal(w[1], (256u << 20) / 4096 - 1);	/* last_page */
	assert_int_equal(w[2], 0);			/* nr_badpages */
	assert_memory_equal(page + 1036, uuid, 16);
	for (int i = 0; i < 1024; i++)
		assert_int_equal(page[i], 0);
	for (int i = 1052; i < 4096 - 10; i++)
		assert_int_equal(page[i], 0);
	/* A size that is not a whole number of pages: the tail page is unused. */
	assert_int_equal(sandbox_swap_header(page, 4096, (1u << 20) + 100, uuid), 0);
	memcpy(w, page + 1024, sizeof(w));
	assert_int_equal(w[1], 255);
}

static void test_swap_header_bad(void **state)
{
	static unsigned char page[8192];
	const uint8_t uuid[16] = { 0 };

	(void)state;
	assert_int_equal(sandbox_swap_header(page, 4096, 15 * 4096, uuid), -EINVAL);
	assert_int_equal(sandbox_swap_header(page, 4096, 16 * 4096, uuid), 0);
	assert_int_equal(sandbox_swap_header(page, 3000, 1 << 20, uuid), -EINVAL);
	assert_int_equal(sandbox_swap_header(page, 2048, 1 << 20, uuid), -EINVAL);
	assert_int_equal(sandbox_swap_header(page, 8192, 1 << 20, uuid), 0);
	assert_memory_equal(page + 8192 - 10, "SWAPSPACE2", 10);
	assert_int_equal(sandbox_swap_header(page, 4096, (UINT64_C(1) << 32) * 4096 + 4096, uuid), -EINVAL);
}

static void test_swapdir(void **state)
{
	const char *fs = "x";
	char file[] = "/tmp/sandbox_t.XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(sandbox_check_swapdir("/nonexistent/engpass", 1 << 20, &fs), -ENOENT);
	assert_null(fs);
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sandbox_check_swapdir(file, 1 << 20, NULL), -ENOTDIR);
	unlink(file);
	if (access("/dev/shm", W_OK) == 0) {
		assert_int_equal(sandbox_check_swapdir("/dev/shm", 1 << 20, &fs), -EINVAL);
		assert_non_null(fs);
		assert_string_equal(fs, "tmpfs");
	}
	if (access("/proc", F_OK) == 0 && geteuid() == 0)
		assert_int_equal(sandbox_check_swapdir("/proc", 1 << 20, &fs), -EINVAL);
	/* No file system has an exbibyte to spare (unless it cannot hold swap at all, like a tmpfs /tmp). */
	{
		char dir[] = "/tmp/sandbox_d.XXXXXX";
		int r;

		assert_non_null(mkdtemp(dir));
		r = sandbox_check_swapdir(dir, UINT64_C(1) << 60, &fs);
		assert_true(r == -ENOSPC || (r == -EINVAL && fs));
		assert_int_equal(sandbox_check_swapdir(dir, 1 << 20, &fs), r == -ENOSPC ? 0 : -EINVAL);
		rmdir(dir);
	}
}

/* Why the root tests cannot run here, or NULL when they can. */
static const char *no_real_sandbox(void)
{
	struct sandbox *sb;
	struct sandbox_opts o = { 64 << 20, 0, NULL, NULL };
	char err[256];
	static char why[300];
	int r;

	if (geteuid() != 0)
		return "not root";
	r = sandbox_create(&sb, &o, err, sizeof(err));
	if (r) {
		snprintf(why, sizeof(why), "no sandbox here: %s", err);
		return why;
	}
	if (sandbox_destroy(sb, err, sizeof(err)))
		return "teardown failed";
	return NULL;
}

static void test_not_root(void **state)
{
	struct sandbox *sb = (void *)1;
	struct sandbox_opts o = { 64 << 20, 0, NULL, NULL };
	char err[256] = "";

	(void)state;
	assert_int_equal(sandbox_create(&sb, &o, err, sizeof(err)), -EPERM);
	assert_null(sb);
	assert_non_null(strstr(err, "root"));
}

static int child_reports_cgroup(void *arg)
{
	const char *dir = arg;
	char path[4200], buf[4096];
	int fd;
	ssize_t n;

	/* The child must already be listed in its cgroup. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 2;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 3;
	buf[n] = '\0';
	snprintf(path, sizeof(path), "%d\n", (int)getpid());
	return strstr(buf, path) ? 7 : 4;
}

static void test_real_sandbox(void **state)
{
	struct sandbox *sb;
	struct sandbox_opts o = { 64 << 20, 0, NULL, NULL };
	struct sandbox_stat st;
	char err[256], dir[4096];
	struct stat sst;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(sandbox_create(&sb, &o, err, sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s", sandbox_cgroup_dir(sb));
	assert_int_equal(stat(dir, &sst), 0);
	assert_true(sandbox_limit_bytes(sb) == 64 << 20);
	assert_null(sandbox_swap_path(sb));
	assert_int_equal(sandbox_spawn(sb, child_reports_cgroup, dir, &pid), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
	assert_int_equal(sandbox_stat(sb, &st), 0);
	assert_true(st.usage_bytes >= 0);
	assert_int_equal(sandbox_destroy(sb, err, sizeof(err)), 0);
	assert_int_equal(stat(dir, &sst), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(sandbox_destroy(NULL, err, sizeof(err)), 0);
}

/* A file system that takes swap files, for the guardian test: /var/tmp or the build dir. */
static const char *swap_capable_dir(void)
{
	static const char *const cands[] = { "/var/tmp", "." };

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (!sandbox_check_swapdir(cands[i], 4 << 20, NULL))
			return cands[i];
	return NULL;
}

static bool listed_in_swaps(const char *path)
{
	FILE *f = fopen("/proc/swaps", "r");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, path, strlen(path)) && (line[strlen(path)] == ' ' || line[strlen(path)] == '\t'))
			found = true;
	fclose(f);
	return found;
}

/* The owner dies by SIGKILL with the sandbox up: the guardian removes it all. */
static void test_guardian(void **state)
{
	const char *sdir = swap_capable_dir();
	char paths[2][4096], err[256];
	int p[2], status;
	pid_t pid;
	struct stat st;

	(void)state;
	assert_non_null(sdir);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sandbox *sb;
		struct sandbox_opts o = { 32 << 20, 4 << 20, sdir, NULL };

		close(p[0]);
		memset(paths, 0, sizeof(paths));
		if (sandbox_create(&sb, &o, err, sizeof(err)))
			_exit(1);
		snprintf(paths[0], sizeof(paths[0]), "%s", sandbox_cgroup_dir(sb));
		snprintf(paths[1], sizeof(paths[1]), "%s", sandbox_swap_path(sb));
		if (write(p[1], paths, sizeof(paths)) != (ssize_t)sizeof(paths))
			_exit(2);
		pause();	/* until killed, sandbox up */
		_exit(3);
	}
	close(p[1]);
	{
		size_t got = 0;
		ssize_t n;

		while (got < sizeof(paths) && (n = read(p[0], (char *)paths + got, sizeof(paths) - got)) > 0)
			got += (size_t)n;
		close(p[0]);
		if (got != sizeof(paths)) {
			waitpid(pid, &status, 0);
			fail_msg("the child could not make its sandbox");
		}
	}
	assert_int_equal(stat(paths[0], &st), 0);
	assert_true(listed_in_swaps(paths[1]));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* The guardian needs a moment: poll for up to 10 s. */
	for (int i = 0; i < 200 && (stat(paths[0], &st) == 0 || listed_in_swaps(paths[1]) ||
				     access(paths[1], F_OK) == 0); i++)
		usleep(50000);
	assert_int_equal(stat(paths[0], &st), -1);
	assert_false(listed_in_swaps(paths[1]));
	assert_int_equal(access(paths[1], F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_find_v1_hybrid),
		cmocka_unit_test(test_find_v1_root_cgroup),
		cmocka_unit_test(test_find_v1_mount_root),
		cmocka_unit_test(test_find_v2),
		cmocka_unit_test(test_find_escapes_and_words),
		cmocka_unit_test(test_find_none),
		cmocka_unit_test(test_swap_header),
		cmocka_unit_test(test_swap_header_bad),
		cmocka_unit_test(test_swapdir),
	};
	struct CMUnitTest tests[sizeof(pure) / sizeof(pure[0]) + 3];
	size_t n = 0;
	const char *why = no_real_sandbox();

	/*
	 * cmocka's TAP output marks a skipped test "not ok", which meson
	 * counts as a failure, so tests that cannot run here are left out of
	 * the group and the reason is printed as a TAP comment instead.
	 */
	for (size_t i = 0; i < sizeof(pure) / sizeof(pure[0]); i++)
		tests[n++] = pure[i];
	if (geteuid() != 0) {
		tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_not_root);
	}
	if (why) {
		printf("# skipped test_real_sandbox and test_guardian: %s\n", why);
	} else {
		tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_real_sandbox);
		if (swap_capable_dir())
			tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_guardian);
		else
			printf("# skipped test_guardian: no directory on a file system that takes swap files\n");
	}
	return _cmocka_run_group_tests("sandbox", tests, n, NULL, NULL);
}
