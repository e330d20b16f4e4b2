/* SPDX-License-Identifier: MIT */
/*
 * The scratch file system of `disk DIR --fs TYPE` (seed 000: Transmission
 * writing to a USB stick mounted sync): a loop image inside DIR, attached
 * to a free loop device, formatted with mkfs.TYPE, mounted under DIR with
 * --mount-options; the workload runs in it and the loop device's own
 * counters in /proc/diskstats are the "stick's" requests. Afterwards it is
 * unmounted, detached and removed, also after an error or the first
 * Ctrl-C (the runner's teardown hook runs whatever happened).
 *
 * Names carry engpass's process id: DIR/.engpass-fs-PID.img and the mount
 * point DIR/.engpass-fs-PID.mnt. A run killed with SIGKILL cannot clean up;
 * the next run with --fs in the same DIR finds names whose process is gone
 * and reaps them (unmount, detach every loop device backed by the image,
 * remove both), and says so in a note.
 *
 * The loop device is taken with LOOP_CTL_GET_FREE on /dev/loop-control
 * and bound with LOOP_CONFIGURE (Linux 5.8; LOOP_SET_FD plus
 * LOOP_SET_STATUS64 before that), with LO_FLAGS_AUTOCLEAR, so the kernel
 * detaches it by itself once the file system is unmounted and nobody holds
 * it; teardown still checks and detaches it explicitly.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/disk/disk_common.h"

extern char **environ;

/* mkfs flags per file system: quiet, and no questions. */
static const struct {
	const char *fs;
	const char *args[3];
} mkfs_flags[] = {
	{ "ext2", { "-q", "-F", NULL } },  { "ext3", { "-q", "-F", NULL } }, { "ext4", { "-q", "-F", NULL } },
	{ "xfs", { "-q", "-f", NULL } },   { "btrfs", { "-q", "-f", NULL } }, { "f2fs", { "-q", "-f", NULL } },
};

/* Where mkfs tools live besides $PATH (root's PATH has them; sudo's may not). */
static const char *const sbin_dirs[] = { "/usr/sbin", "/sbin", "/usr/local/sbin", NULL };

/* The mkfs tool for FS into OUT; vfat and msdos also take mkfs.fat. Returns 0 or -ENOENT. */
static int find_mkfs(const char *fs, char *out, size_t len)
{
	const char *names[3] = { NULL, NULL, NULL };
	char name[80], alt[] = "mkfs.fat";
	const char *path = getenv("PATH");

	snprintf(name, sizeof(name), "mkfs.%s", fs);
	names[0] = name;
	if (!strcmp(fs, "vfat") || !strcmp(fs, "msdos"))
		names[1] = alt;
	for (size_t n = 0; names[n]; n++) {
		const char *p = path ? path : "";

		while (1) {
			size_t l = strcspn(p, ":");

			if (l) {
				snprintf(out, len, "%.*s/%s", (int)l, p, names[n]);
				if (access(out, X_OK) == 0)
					return 0;
			}
			if (!p[l])
				break;
			p += l + 1;
		}
		for (size_t d = 0; sbin_dirs[d]; d++) {
			snprintf(out, len, "%s/%s", sbin_dirs[d], names[n]);
			if (access(out, X_OK) == 0)
				return 0;
		}
	}
	return -ENOENT;
}

/* Whether /proc/filesystems lists FS. */
static bool kernel_has(const char *fs)
{
	struct proc_buf b = PROC_BUF_INIT;
	const char *p;
	bool found = false;

	if (proc_buf_read_file(&b, "/proc/filesystems") < 0)
		return false;
	for (p = b.data; p && *p && !found;) {
		const char *eol = strchr(p, '\n');
		size_t l = eol ? (size_t)(eol - p) : strlen(p), tab = strcspn(p, "\t");

		/* "nodev\tsysfs" or "\text4": the name follows the tab. */
		if (tab < l)
			found = l - tab - 1 == strlen(fs) && !strncmp(p + tab + 1, fs, strlen(fs));
		p = eol ? eol + 1 : NULL;
	}
	proc_buf_release(&b);
	return found;
}

/* SRC into DST of LEN (> 0) bytes, cut to fit (a label, not a path to use). */
static void copy_cut(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/*
 * Runs ARGV (ARGV[0] a full path) with stdout to /dev/null and stderr into
 * ERRTXT (its last line, at most LEN bytes). Returns the exit status (0-255),
 * 256 + signal when it died of one, or -errno when it could not start.
 */
static int run_tool(char *const argv[], char *errtxt, size_t len)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, r;
	pid_t pid;
	size_t n = 0;
	char buf[1024];

	if (errtxt && len)
		errtxt[0] = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r) {
		close(pipefd[0]);
		return -r;
	}
	for (;;) {
		ssize_t got = read(pipefd[0], buf + n, sizeof(buf) - 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n == sizeof(buf) - 1) {
			/* Keep the tail: the last line says what went wrong. */
			memmove(buf, buf + n / 2, n - n / 2);
			n -= n / 2;
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	if (errtxt && len) {
		const char *last = strrchr(buf, '\n');

		copy_cut(errtxt, len, last ? last + 1 : buf);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
}

int disk_fs_check(const char *fs, char *err, size_t errlen)
{
	char tool[PATH_MAX], mod[96];
	char *argv[] = { (char *)"modprobe", (char *)"-n", (char *)"-q", mod, NULL };

	if (!fs[0] || strchr(fs, '/') || strchr(fs, ' ') || strlen(fs) > 32) {
		snprintf(err, errlen, "option '--fs': '%s' is not a file system name", fs);
		return -EINVAL;
	}
	if (!kernel_has(fs)) {
		/* A module the kernel would load on mount (its alias fs-NAME); -n: only look. */
		bool loadable = false;

		snprintf(mod, sizeof(mod), "fs-%s", fs);
		for (size_t d = 0; sbin_dirs[d] && !loadable; d++) {
			snprintf(tool, sizeof(tool), "%s/modprobe", sbin_dirs[d]);
			if (access(tool, X_OK) == 0) {
				argv[0] = tool;
				loadable = run_tool(argv, NULL, 0) == 0;
				break;
			}
		}
		if (!loadable) {
			snprintf(err, errlen, "option '--fs': this kernel has no '%s' file system (not in /proc/filesystems, "
				 "no module to load)", fs);
			return -EINVAL;
		}
	}
	if (find_mkfs(fs, tool, sizeof(tool)) < 0) {
		snprintf(err, errlen, "option '--fs': no mkfs.%s in $PATH or /sbin, /usr/sbin (install the package that "
			 "makes %s file systems)", fs, fs);
		return -EINVAL;
	}
	return 0;
}

/* DIR/.engpass-fs-PID.SUFFIX into OUT; -ENAMETOOLONG when it does not fit. */
static int fs_name(char *out, size_t len, const char *dir, long pid, const char *suffix)
{
	int w = snprintf(out, len, "%s/.engpass-fs-%ld.%s", dir, pid, suffix);

	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

/* Whether the mount point MNT (realpath) is mounted now. */
static bool is_mounted(const char *mnt)
{
	struct blkdev_mount m;
	char real[PATH_MAX];

	if (!realpath(mnt, real))
		return false;
	return blkdev_mount_of(NULL, real, &m) == 0 && !strcmp(m.mount_point, real);
}

/*
 * Detaches every loop device whose backing file is IMG (loop/backing_file
 * in sysfs; the kernel appends " (deleted)" to a removed one). Returns how
 * many, or -errno of the first that could not be detached.
 */
static int detach_loops_of(const char *img)
{
	char real[PATH_MAX];
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int n = 0, r = 0;

	if (!d)
		return -errno;
	if (!realpath(img, real))
		snprintf(real, sizeof(real), "%s", img);
	while ((e = readdir(d))) {
		char p[300], back[PATH_MAX], dev[300];
		size_t rl = strlen(real);
		int fd;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		if (proc_read_line(p, back, sizeof(back)) < 0)
			continue;
		if (strncmp(back, real, rl) || (back[rl] && strcmp(back + rl, " (deleted)")))
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
		fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (ioctl(fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO)) {
			if (!r)
				r = -errno;
		} else {
			n++;
		}
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return r ? r : n;
}

/* Unmounts MNT: plainly, and lazily (MNT_DETACH) when busy. 0 or -errno. */
static int unmount(const char *mnt)
{
	for (int i = 0; i < 10; i++) {
		if (umount2(mnt, 0) == 0)
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(100000);
	}
	return umount2(mnt, MNT_DETACH) == 0 ? 0 : -errno;
}

/* Whether process PID is gone (a stale name of ours can be reaped). */
static bool pid_dead(long pid)
{
	return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* Reaps the image and mount point of dead process PID in DIR; 0 or -errno. */
static int reap_one(const char *dir, long pid)
{
	char img[PATH_MAX], mnt[PATH_MAX];
	int r = 0, x;

	if (fs_name(img, sizeof(img), dir, pid, "img") < 0 || fs_name(mnt, sizeof(mnt), dir, pid, "mnt") < 0)
		return -ENAMETOOLONG;
	if (is_mounted(mnt) && (x = unmount(mnt)) < 0)
		r = x;
	if (access(img, F_OK) == 0) {
		if ((x = detach_loops_of(img)) < 0 && !r)
			r = x;
		if (unlink(img) < 0 && errno != ENOENT && !r)
			r = -errno;
	}
	if (rmdir(mnt) < 0 && errno != ENOENT && !r)
		r = -errno;
	return r;
}

/* The PID of a file name .engpass-fs-PID.img or .engpass-fs-PID.mnt; 0 for any other name. */
static long fs_name_pid(const char *name)
{
	static const char pre[] = ".engpass-fs-";
	const char *p = name + sizeof(pre) - 1;
	char *e;
	long pid;

	if (strncmp(name, pre, sizeof(pre) - 1) || *p < '0' || *p > '9')
		return 0;
	pid = strtol(p, &e, 10);
	if (*e != '.' || (strcmp(e + 1, "img") && strcmp(e + 1, "mnt")))
		return 0;
	return pid;
}

int disk_fs_reap(const char *dir, char *note, size_t len)
{
	long seen[16];
	size_t nseen = 0, n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	int r;

	note[0] = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d)) && nseen < sizeof(seen) / sizeof(seen[0])) {
		long pid = fs_name_pid(e->d_name);
		bool dup = false;

		if (pid <= 0 || pid == (long)getpid() || !pid_dead(pid))
			continue;
		for (size_t i = 0; i < nseen; i++)
			dup |= seen[i] == pid;
		if (!dup)
			seen[nseen++] = pid;
	}
	closedir(d);
	for (size_t i = 0; i < nseen; i++) {
		r = reap_one(dir, seen[i]);
		n += (size_t)snprintf(note + n, n < len ? len - n : 0, "%s%ld%s%s", i ? ", " : "", seen[i],
				      r < 0 ? " (failed: " : "", r < 0 ? strerror(-r) : "");
		if (r < 0 && n < len)
			n += (size_t)snprintf(note + n, len - n, ")");
		if (n >= len)
			n = len - 1;
	}
	return (int)nseen;
}

/*
 * Binds IMGFD (the image IMG) to the loop device open as FD, autoclear
 * set; *HOW names the ioctls. Returns 0 or -errno (-EBUSY: taken meanwhile).
 */
static int loop_bind(int fd, int imgfd, const char *img, const char **how)
{
	struct loop_info64 info;

	memset(&info, 0, sizeof(info));
	info.lo_flags = LO_FLAGS_AUTOCLEAR;
	copy_cut((char *)info.lo_file_name, sizeof(info.lo_file_name), img);
#ifdef LOOP_CONFIGURE
	{
		struct loop_config cfg;

		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)imgfd;
		cfg.info = info;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			*how = "LOOP_CTL_GET_FREE, then LOOP_CONFIGURE with LO_FLAGS_AUTOCLEAR";
			return 0;
		}
		if (errno != EINVAL && errno != ENOTTY)
			return -errno;
	}
#endif
	/* Before Linux 5.8 (or its headers): bind, then set the flags. */
	if (ioctl(fd, LOOP_SET_FD, imgfd) < 0)
		return -errno;
	if (ioctl(fd, LOOP_SET_STATUS64, &info) < 0) {
		int r = -errno;

		(void)ioctl(fd, LOOP_CLR_FD, 0);
		return r;
	}
	*how = "LOOP_CTL_GET_FREE, then LOOP_SET_FD and LOOP_SET_STATUS64 with LO_FLAGS_AUTOCLEAR";
	return 0;
}

/* Binds IMGFD to a free loop device; its descriptor (kept open until mounted), *NUM and *HOW. -errno. */
static int loop_attach(int imgfd, const char *img, int *num, const char **how)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), r = -EBUSY;

	if (ctl < 0)
		return -errno;
	for (int tries = 0; tries < 16 && r == -EBUSY; tries++) {
		char dev[32];
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), fd;

		if (n < 0) {
			r = -errno;
			break;
		}
		snprintf(dev, sizeof(dev), "/dev/loop%d", n);
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		if ((r = loop_bind(fd, imgfd, img, how)) < 0) {
			close(fd);
			continue;
		}
		close(ctl);
		*num = n;
		return fd;
	}
	close(ctl);
	return r;
}

int disk_fs_setup(struct disk_fs *f, const char *dir, const char *fs, const struct disk_mount_opts *mo,
		  uint64_t image_size, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	char tool[PATH_MAX], out[256], sz[32];
	char *argv[8];
	const char *how = "";
	size_t na = 0;
	int imgfd, lfd, r;

	memset(f, 0, sizeof(*f));
	f->image_size = image_size;
	if (fs_name(f->img, sizeof(f->img), dir, (long)getpid(), "img") < 0 ||
	    fs_name(f->mnt, sizeof(f->mnt), dir, (long)getpid(), "mnt") < 0) {
		snprintf(err, errlen, "the directory name '%s' is too long for the scratch file system", dir);
		return -ENAMETOOLONG;
	}
	imgfd = open(f->img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (imgfd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create the image '%s': %s", f->img, strerror(-r));
		return r;
	}
	f->img_made = true;
	if (ftruncate(imgfd, (off_t)image_size) < 0) {
		r = -errno;
		close(imgfd);
		snprintf(err, errlen, "cannot size the image '%s' to %s: %s", f->img,
			 disk_fmt_bytes(sz, sizeof(sz), image_size), strerror(-r));
		return r;
	}
	lfd = loop_attach(imgfd, f->img, &f->loop_num, &how);
	close(imgfd);
	if (lfd < 0) {
		snprintf(err, errlen, "cannot attach '%s' to a loop device: %s", f->img, strerror(-lfd));
		return lfd;
	}
	f->loop_attached = true;
	snprintf(f->loop_dev, sizeof(f->loop_dev), "/dev/loop%d", f->loop_num);
	snprintf(f->attach_how, sizeof(f->attach_how), "%s", how);

	if ((r = find_mkfs(fs, tool, sizeof(tool))) < 0) {
		close(lfd);
		snprintf(err, errlen, "no mkfs.%s found", fs);
		return r;
	}
	argv[na++] = tool;
	for (size_t i = 0; i < sizeof(mkfs_flags) / sizeof(mkfs_flags[0]); i++)
		if (!strcmp(mkfs_flags[i].fs, fs))
			for (size_t j = 0; mkfs_flags[i].args[j]; j++)
				argv[na++] = (char *)mkfs_flags[i].args[j];
	argv[na++] = f->loop_dev;
	argv[na] = NULL;
	{
		size_t n = 0;

		for (size_t i = 0; i < na; i++)
			n += (size_t)snprintf(f->mkfs_cmd + n, n < sizeof(f->mkfs_cmd) ? sizeof(f->mkfs_cmd) - n : 0,
					      "%s%s", i ? " " : "", i ? argv[i] : strrchr(tool, '/') + 1);
	}
	r = run_tool(argv, out, sizeof(out));
	if (r != 0 || *stop) {
		close(lfd);
		if (*stop) {
			snprintf(err, errlen, "stopped while making the file system");
			return -EINTR;
		}
		if (r < 0)
			snprintf(err, errlen, "cannot run '%s': %s", tool, strerror(-r));
		else
			snprintf(err, errlen, "'%s' failed (%s %d)%s%s", f->mkfs_cmd, r > 255 ? "signal" : "status",
				 r > 255 ? r - 256 : r, out[0] ? ": " : "", out);
		return r < 0 ? r : -EIO;
	}
	if (mkdir(f->mnt, 0700) < 0) {
		r = -errno;
		close(lfd);
		snprintf(err, errlen, "cannot make the mount point '%s': %s", f->mnt, strerror(-r));
		return r;
	}
	f->mnt_made = true;
	if (mount(f->loop_dev, f->mnt, fs, mo->flags, mo->data[0] ? mo->data : NULL) < 0) {
		r = -errno;
		close(lfd);
		snprintf(err, errlen, "cannot mount %s (%s) on '%s' with '%s': %s", f->loop_dev, fs, f->mnt, mo->text,
			 strerror(-r));
		return r;
	}
	f->mounted = true;
	/* The mount holds the device now: with autoclear, unmounting detaches it. */
	close(lfd);
	f->active = true;
	return 0;
}

/*
 * Removes PATH (a directory when DIR) when *MADE, and clears *MADE once it
 * is gone. Returns R, or when R is 0 and the removal failed, its -errno
 * with ERR saying so.
 */
static int remove_made(bool *made, const char *path, bool dir, int r, char *err, size_t errlen)
{
	if (!*made)
		return r;
	if ((dir ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT) {
		if (!r) {
			r = -errno;
			snprintf(err, errlen, "cannot remove '%s': %s", path, strerror(-r));
		}
		return r;
	}
	*made = false;
	return r;
}

int disk_fs_teardown(struct disk_fs *f, char *err, size_t errlen)
{
	int r = 0, x;

	err[0] = 0;
	if (f->mounted) {
		if ((x = unmount(f->mnt)) < 0) {
			snprintf(err, errlen, "cannot unmount '%s': %s", f->mnt, strerror(-x));
			return x;
		}
		f->mounted = false;
	}
	if (f->loop_attached) {
		char real[PATH_MAX];

		if (!realpath(f->img, real))
			snprintf(real, sizeof(real), "%s", f->img);
		/* Autoclear detaches it on the unmount; whatever is left is detached here. */
		for (int i = 0; i < 20; i++) {
			char p[64], back[PATH_MAX];

			snprintf(p, sizeof(p), "/sys/block/loop%d/loop/backing_file", f->loop_num);
			if (proc_read_line(p, back, sizeof(back)) < 0 || strncmp(back, real, strlen(real)))
				break;
			if (i == 10 && (x = detach_loops_of(f->img)) < 0) {
				snprintf(err, errlen, "cannot detach %s: %s", f->loop_dev, strerror(-x));
				r = x;
				break;
			}
			usleep(50000);
		}
		f->loop_attached = r < 0;
	}
	r = remove_made(&f->img_made, f->img, false, r, err, errlen);
	r = remove_made(&f->mnt_made, f->mnt, true, r, err, errlen);
	f->active = false;
	return r;
}
