/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the parsers inside sysinfo_collect() (`engpass info` and
 * the box description of every run) and blkdev_mount_of(), which read
 * /proc and /sys through a root directory. A copy of the x86 fixture tree
 * (tests/fixtures/sysinfo/x86) is made once in a temporary directory; the
 * first input byte picks one of its files, the rest becomes that file's
 * text, and the whole box is collected from the tree. The file is put back
 * afterwards, so every input meets an otherwise real box.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/blkdev.h"
#include "core/kernel/sysinfo.h"
#include "fuzz.h"

/* The files an input can replace, relative to the copied root. */
static const char *const files[] = {
	"proc/cpuinfo", "proc/meminfo", "proc/swaps", "proc/self/mounts", "proc/self/cgroup",
	"proc/stat", "proc/self/mountinfo", "sys/devices/system/cpu/online",
	"sys/fs/cgroup/cgroup.controllers", "sys/fs/cgroup/system.slice/engpass.service/memory.max",
	"sys/block/sda/queue/scheduler", "sys/block/sda/size", "sys/class/net/eth0/speed",
	"proc/sys/kernel/osrelease",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static char *root;

/* Removes the copied tree when the fuzzer or replayer exits. */
static void remove_root(void)
{
	char *cmd = xasprintf("rm -rf '%s'", root);

	if (system(cmd) != 0) {
		/* left behind in /tmp: harmless */
	}
	free(cmd);
}

/* Copies the fixture tree once; aborts when it cannot (a harness problem). */
static void make_root(void)
{
	char tmpl[] = "/tmp/engpass-fuzz-sysinfo.XXXXXX", *cmd;

	if (!mkdtemp(tmpl))
		abort();
	root = xstrdup(tmpl);
	cmd = xasprintf("cp -r '%s'/. '%s'", FUZZ_FIXTURES "/sysinfo/x86", root);
	if (system(cmd) != 0)
		abort();
	free(cmd);
	atexit(remove_root);
}

/* Writes LEN bytes of DATA to PATH, replacing it. */
static void put(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len))
		abort();
	close(fd);
}

/* Reads PATH whole (an absent file is empty, *LEN = (size_t)-1). */
static char *get(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 16);

	*len = f ? fread(buf, 1, 1 << 16, f) : (size_t)-1;
	if (f)
		fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sysinfo_opts opts = { NULL, NULL, false, false };
	struct sysinfo si;
	struct blkdev_mount m;
	char *path, *proc, *sys, *saved;
	size_t saved_len;

	if (size < 1)
		return 0;
	if (!root)
		make_root();
	path = xasprintf("%s/%s", root, files[data[0] % NFILES]);
	proc = xasprintf("%s/proc", root);
	sys = xasprintf("%s/sys", root);
	saved = get(path, &saved_len);
	put(path, data + 1, size - 1);
	opts.proc_root = proc;
	opts.sys_root = sys;
	sysinfo_init(&si);
	if (sysinfo_collect(&si, &opts)) {
		/* a box it cannot describe is an error, not a crash */
	}
	sysinfo_release(&si);
	if (blkdev_mount_of(proc, "/", &m)) {
		/* no mount found: fine */
	}
	if (saved_len == (size_t)-1)
		unlink(path);
	else
		put(path, saved, saved_len);
	free(saved);
	free(sys);
	free(proc);
	free(path);
	return 0;
}
