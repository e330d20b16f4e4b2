/* SPDX-License-Identifier: MIT */
/*
 * Block devices behind paths, their queue settings, mounts, and setting
 * read_ahead_kb and the scheduler for one run; see blkdev.h.
 */
#include "blkdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/kernel/proc.h"
#include "lib/xalloc.h"


static const char *root_or(const char *root, const char *def)
{
	return root ? root : def;
}

/* Reads a whole file into a NUL-terminated allocation (*OUT, caller frees). */
static int slurp(const char *path, char **out, size_t *outlen)
{
	struct proc_buf b = PROC_BUF_INIT;
	int r = proc_buf_read_file(&b, path);

	if (r < 0) {
		proc_buf_release(&b);
		return r;
	}
	*out = b.data;	/* ours now: proc_buf_release() is not called */
	if (outlen)
		*outlen = b.len;
	return 0;
}


/* Writes VALUE (plus a newline) to PATH in one write(). */
static int write_value(const char *path, const char *value)
{
	char buf[128];
	int fd, n;
	ssize_t w;

	n = snprintf(buf, sizeof(buf), "%s\n", value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	/* O_TRUNC as a shell redirection does; sysfs ignores it, a test's plain file needs it. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		w = write(fd, buf, (size_t)n);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (close(fd) < 0)
		return -errno;
	return w == n ? 0 : -EIO;
}

static int64_t read_int(const char *dir, const char *rel)
{
	char path[PATH_MAX + 64], buf[64], *end;
	long long v;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		return -1;
	if (proc_read_line(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end || v < 0)
		return -1;
	return v;
}

static void read_str(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX + 64];

	buf[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path) ||
	    proc_read_line(path, buf, len))
		buf[0] = '\0';
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

int blkdev_parse_scheduler(const char *text, char *active, size_t alen, char *list, size_t llen)
{
	const char *p = text;
	size_t words = 0, ln = 0;
	char first[BLKDEV_NAME_MAX] = "";
	bool have_active = false;

	if (active && alen)
		active[0] = '\0';
	if (list && llen)
		list[0] = '\0';
	while (*p) {
		size_t l;
		const char *w;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		l = (size_t)(p - w);
		if (l > 2 && w[0] == '[' && w[l - 1] == ']') {
			w++;
			l -= 2;
			if (active && alen)
				snprintf(active, alen, "%.*s", (int)l, w);
			have_active = true;
		}
		if (!words)
			snprintf(first, sizeof(first), "%.*s", (int)l, w);
		if (list && llen && ln < llen) {
			int n = snprintf(list + ln, llen - ln, "%s%.*s", words ? " " : "", (int)l, w);
			if (n > 0)
				ln += (size_t)n;
		}
		words++;
	}
	if (!words)
		return -EINVAL;
	if (!have_active && words == 1 && active && alen)
		snprintf(active, alen, "%s", first);
	return 0;
}

bool blkdev_offers(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!n)
		return false;
	while ((p = strstr(p, name))) {
		bool start = p == list || p[-1] == ' ';
		bool end = p[n] == '\0' || p[n] == ' ';

		if (start && end)
			return true;
		p += n;
	}
	return false;
}

int blkdev_from_devnum(const char *sys_root, unsigned major, unsigned minor, struct blkdev_info *out)
{
	char link[PATH_MAX], real[PATH_MAX], buf[512];
	const char *sys = root_or(sys_root, "/sys");
	char *slash;

	memset(out, 0, sizeof(*out));
	out->major = major;
	out->minor = minor;
	out->size_bytes = out->read_ahead_kb = out->nr_requests = out->max_sectors_kb = -1;
	out->logical_block_bytes = -1;
	out->rotational = -1;
	if (major == 0)
		return -ENODEV;
	if ((size_t)snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, major, minor) >= sizeof(link))
		return -ENAMETOOLONG;
	if (!realpath(link, real))
		return errno == ENOENT ? -ENODEV : -errno;
	slash = strrchr(real, '/');
	if (!slash || !slash[1])
		return -ENODEV;
	copy_str(out->name, sizeof(out->name), slash + 1);
	{
		char part[PATH_MAX + 16];

		snprintf(part, sizeof(part), "%s/partition", real);
		out->partition = access(part, F_OK) == 0;
	}
	{
		int64_t sectors = read_int(real, "size");

		if (sectors >= 0 && sectors <= INT64_MAX / 512)
			out->size_bytes = sectors * 512;
	}
	if (out->partition) {
		*slash = '\0';
		slash = strrchr(real, '/');
		if (!slash || !slash[1])
			return -ENODEV;
		/* real now names the parent directory: the whole disk. */
		copy_str(out->disk, sizeof(out->disk), slash + 1);
	} else {
		copy_str(out->disk, sizeof(out->disk), out->name);
	}
	copy_str(out->disk_dir, sizeof(out->disk_dir), real);

	read_str(real, "queue/scheduler", buf, sizeof(buf));
	if (buf[0] && blkdev_parse_scheduler(buf, out->scheduler, sizeof(out->scheduler), out->schedulers,
					      sizeof(out->schedulers)))
		out->scheduler[0] = out->schedulers[0] = '\0';
	out->read_ahead_kb = read_int(real, "queue/read_ahead_kb");
	out->nr_requests = read_int(real, "queue/nr_requests");
	out->max_sectors_kb = read_int(real, "queue/max_sectors_kb");
	out->logical_block_bytes = read_int(real, "queue/logical_block_size");
	out->rotational = (int)read_int(real, "queue/rotational");
	if (out->rotational > 1)
		out->rotational = -1;
	read_str(real, "queue/write_cache", out->write_cache, sizeof(out->write_cache));
	read_str(real, "loop/backing_file", out->loop_backing, sizeof(out->loop_backing));
	return 0;
}

int blkdev_from_path(const char *sys_root, const char *path, struct blkdev_info *out)
{
	struct stat st;
	dev_t d;

	if (stat(path, &st) < 0) {
		int e = -errno;

		memset(out, 0, sizeof(*out));
		return e;
	}
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	return blkdev_from_devnum(sys_root, major(d), minor(d), out);
}

int blkdev_queue_get(const struct blkdev_info *info, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX + 64];

	if ((size_t)snprintf(path, sizeof(path), "%s/queue/%s", info->disk_dir, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	return proc_read_line(path, buf, len);
}

/*
 * Reads PROC_ROOT/self/mountinfo into *TEXT (caller frees) and returns
 * 0, or -errno. The caller walks it with proc_mount_next().
 */
static int read_mountinfo(const char *proc_root, char **text, size_t *len)
{
	char file[PATH_MAX];

	snprintf(file, sizeof(file), "%s/self/mountinfo", root_or(proc_root, "/proc"));
	return slurp(file, text, len);
}

/* Whether mount point MP is PATH or a directory above it. */
static size_t prefix_len(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (!strcmp(mp, "/"))
		return 1;
	if (strncmp(mp, path, n))
		return 0;
	return path[n] == '\0' || path[n] == '/' ? n : 0;
}

int blkdev_mount_of(const char *proc_root, const char *path, struct blkdev_mount *out)
{
	char real[PATH_MAX], *text;
	const char *pos;
	struct proc_mount *m;
	size_t best = 0, len;
	unsigned bad = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!realpath(path, real))
		return -errno;
	if ((r = read_mountinfo(proc_root, &text, &len)))
		return r;
	m = xmalloc(sizeof(*m));
	pos = text;
	while (proc_mount_next(m, PROC_MOUNTINFO, &pos, text + len, &bad)) {
		size_t n = prefix_len(m->mount_point, real);

		if (n && n >= best) {
			best = n;
			out->major = m->major;
			out->minor = m->minor;
			copy_str(out->mount_point, sizeof(out->mount_point), m->mount_point);
			copy_str(out->fs_type, sizeof(out->fs_type), m->fs_type);
			copy_str(out->source, sizeof(out->source), m->source);
			/* Shown for information only: a long list (overlay's lowerdir=...) is cut, as always. */
			if (snprintf(out->options, sizeof(out->options), "%s; %s", m->mount_opts, m->super_opts) < 0)
				out->options[0] = '\0';
			out->sync = proc_mount_is_sync(m);
		}
	}
	free(m);
	free(text);
	return best ? 0 : -ENOENT;
}

/* Collects major:minor of INFO's device and, for a whole disk, of its partitions. */
static size_t devnums(const struct blkdev_info *info, unsigned (*nums)[2], size_t max)
{
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	nums[n][0] = info->major;
	nums[n][1] = info->minor;
	n++;
	if (info->partition || !(d = opendir(info->disk_dir)))
		return n;
	while ((e = readdir(d)) && n < max) {
		char sub[PATH_MAX + 300], buf[64];
		unsigned ma, mi;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/partition", info->disk_dir, e->d_name);
		if (access(sub, F_OK))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/dev", info->disk_dir, e->d_name);
		if (proc_read_line(sub, buf, sizeof(buf)) || proc_devnum_parse(buf, &ma, &mi))
			continue;
		nums[n][0] = ma;
		nums[n][1] = mi;
		n++;
	}
	closedir(d);
	return n;
}

int blkdev_is_mounted(const char *proc_root, const struct blkdev_info *info, char *where, size_t wlen)
{
	char *text;
	const char *pos;
	struct proc_mount *m;
	unsigned nums[256][2], bad = 0;
	size_t nn = devnums(info, nums, 256), len;
	int r, found = 0;

	if ((r = read_mountinfo(proc_root, &text, &len)))
		return r;
	m = xmalloc(sizeof(*m));
	pos = text;
	while (!found && proc_mount_next(m, PROC_MOUNTINFO, &pos, text + len, &bad)) {
		for (size_t i = 0; i < nn; i++) {
			if (m->major == nums[i][0] && m->minor == nums[i][1]) {
				if (where && wlen)
					copy_str(where, wlen, m->mount_point);
				found = 1;
				break;
			}
		}
	}
	free(m);
	free(text);
	return found;
}

int blkdev_diskstats(const char *proc_root, const struct blkdev_info *info, struct proc_disk *out)
{
	char file[PATH_MAX], *text;
	size_t len;
	struct proc_diskstats ds = PROC_DISKSTATS_INIT;
	const struct proc_disk *d;
	int r;

	snprintf(file, sizeof(file), "%s/diskstats", root_or(proc_root, "/proc"));
	if ((r = slurp(file, &text, &len)))
		return r;
	r = proc_diskstats_parse(&ds, text, len);
	free(text);
	if (r) {
		proc_diskstats_release(&ds);
		return r;
	}
	d = proc_diskstats_find(&ds, info->major, info->minor, 0);
	if (d)
		*out = *d;
	proc_diskstats_release(&ds);
	return d ? 0 : -ENOENT;
}

static int queue_path(const struct blkdev_tune *t, const char *attr, char *buf, size_t len)
{
	if (!t->info || !t->info->disk_dir[0])
		return -ENODEV;
	if ((size_t)snprintf(buf, len, "%s/queue/%s", t->info->disk_dir, attr) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int blkdev_tune_readahead(struct blkdev_tune *t, int64_t kb)
{
	char path[PATH_MAX + 64], buf[64];
	int64_t old = -1;
	int r;

	if (kb < 0)
		return -EINVAL;
	if ((r = queue_path(t, "read_ahead_kb", path, sizeof(path))))
		return r;
	if (!t->ra_set) {
		char *end;

		if ((r = proc_read_line(path, buf, sizeof(buf))))
			return r;
		old = strtoll(buf, &end, 10);
		if (*end || old < 0)
			return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)kb);
	if ((r = write_value(path, buf)))
		return r;
	if (!t->ra_set) {
		t->ra_set = true;
		t->ra_old = old;
	}
	return 0;
}

int blkdev_tune_scheduler(struct blkdev_tune *t, const char *name)
{
	char path[PATH_MAX + 64], buf[512], active[BLKDEV_NAME_MAX], list[256];
	int r;

	if ((r = queue_path(t, "scheduler", path, sizeof(path))))
		return r;
	if ((r = proc_read_line(path, buf, sizeof(buf))))
		return r;
	if (blkdev_parse_scheduler(buf, active, sizeof(active), list, sizeof(list)) || !blkdev_offers(list, name))
		return -EINVAL;
	if ((r = write_value(path, name)))
		return r;
	if (!t->sched_set) {
		t->sched_set = true;
		copy_str(t->sched_old, sizeof(t->sched_old), active);
	}
	return 0;
}

int blkdev_tune_restore(struct blkdev_tune *t)
{
	char path[PATH_MAX + 64], buf[64];
	int first = 0, r;

	if (t->sched_set) {
		if (!(r = queue_path(t, "scheduler", path, sizeof(path))))
			r = write_value(path, t->sched_old);
		if (r && !first)
			first = r;
		t->sched_set = false;
	}
	if (t->ra_set) {
		snprintf(buf, sizeof(buf), "%lld", (long long)t->ra_old);
		if (!(r = queue_path(t, "read_ahead_kb", path, sizeof(path))))
			r = write_value(path, buf);
		if (r && !first)
			first = r;
		t->ra_set = false;
	}
	return first;
}
