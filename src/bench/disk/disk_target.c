/* SPDX-License-Identifier: MIT */
/*
 * The target of engpass disk: what it is (directory, regular file, block
 * device), whether the options allow what the steps would do to it, how
 * much room there is; then, at run time, engpass's own data file in a
 * directory (made once, filled with the deterministic pattern), opening
 * with the right flags, defeating caches before buffered reads, and
 * preallocation.
 *
 * check() creates nothing: every refusal (missing target, not writable,
 * mounted device, too little space) is one line and exit status 2 before
 * any file exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench/disk/disk_common.h"
#include "core/base/progress.h"
#include "core/work/torrent.h"
#include "lib/xalloc.h"

PRINTF_LIKE(3, 4)
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Whether the workload makes a new file of its own in a directory target. */
static bool makes_file(const struct disk_opts *o)
{
	return o->workload == WL_SEQ_WRITE || o->workload == WL_RAND_WRITE || o->workload == WL_TORRENT;
}

/* Whether the steps read data that must exist first (-t, reads, mixed). */
static bool needs_data(const struct disk_opts *o)
{
	return o->device || o->workload == WL_SEQ_READ || o->workload == WL_RAND_READ || o->workload == WL_MIXED;
}

static int check_dir(struct disk_opts *o, const char *path, char *err, size_t errlen)
{
	struct disk_target *t = &o->tgt;
	struct statvfs vfs;
	uint64_t base, need, margin;
	char a[32], b[32];

	t->kind = DISK_DIR;
	if (access(path, W_OK | X_OK))
		return bad(err, errlen, "cannot write in directory '%s': %s", path, strerror(errno));
	if (statvfs(path, &vfs))
		return bad(err, errlen, "cannot use directory '%s': %s", path, strerror(errno));
	if (vfs.f_flag & ST_RDONLY)
		return bad(err, errlen, "cannot write in directory '%s': %s", path, strerror(EROFS));
	t->free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (o->prealloc == PREALLOC_DEFAULT)
		o->prealloc_mode = makes_file(o) ? PREALLOC_FAST : PREALLOC_NONE;
	else if (!makes_file(o))
		return bad(err, errlen, "'--prealloc' applies to seq-write, rand-write and torrent, which make a new file");
	else
		o->prealloc_mode = o->prealloc;

	base = o->size ? o->size : disk_default_size(t->free_bytes);
	if (!base)
		return bad(err, errlen, "too little free space in '%s': %s available, and the default data file needs "
			   "%s free; give --size", path, disk_fmt_bytes(a, sizeof(a), t->free_bytes),
			   disk_fmt_bytes(b, sizeof(b), 4 * DISK_DEFAULT_MIN));
	base -= base % DISK_ALIGN;
	if (o->workload == WL_TORRENT)
		base -= base % TORRENT_BLOCK;
	else if (o->workload != WL_NONE)
		base -= base % o->bs;
	if (!base || (o->workload != WL_NONE && base < o->bs))
		return bad(err, errlen, "'--size' is smaller than one block");
	o->region = base;
	o->data_size = needs_data(o) ? base : o->cached ? DISK_HDPARM_BUF : 0;
	if (needs_data(o) && o->device && base < DISK_HDPARM_BUF)
		return bad(err, errlen, "-t needs at least 2 MiB of data; '--size' is smaller");
	need = o->data_size + (makes_file(o) ? base : 0);
	margin = need / 32 + DISK_MIB;
	if (need + margin > t->free_bytes)
		return bad(err, errlen, "not enough free space in '%s': the test needs %s, %s available",
			   path, disk_fmt_bytes(a, sizeof(a), need + margin),
			   disk_fmt_bytes(b, sizeof(b), t->free_bytes));
	return 0;
}

static int check_file(struct disk_opts *o, const char *path, const struct stat *st, char *err, size_t errlen)
{
	struct disk_target *t = &o->tgt;
	char a[32], b[32];

	t->kind = DISK_FILE;
	t->size = (uint64_t)st->st_size;
	if (access(path, R_OK))
		return bad(err, errlen, "cannot read '%s': %s", path, strerror(errno));
	if (o->writes) {
		if (!o->write_ok)
			return bad(err, errlen, "'%s' is an existing file and engpass writes only to files it creates; "
				   "add --write-ok to let %s overwrite it", path, disk_workload_name(o->workload));
		if (access(path, W_OK))
			return bad(err, errlen, "cannot write to '%s': %s", path, strerror(errno));
	}
	o->prealloc_mode = o->prealloc == PREALLOC_DEFAULT ? PREALLOC_NONE : o->prealloc;
	if (o->prealloc != PREALLOC_DEFAULT && !o->writes)
		return bad(err, errlen, "'--prealloc' applies to workloads that write");
	o->region = o->size ? o->size : t->size;
	if (!o->writes && o->region > t->size)
		return bad(err, errlen, "'--size' %s is larger than '%s' (%s)", disk_fmt_bytes(a, sizeof(a), o->size),
			   path, disk_fmt_bytes(b, sizeof(b), t->size));
	if ((o->cached || o->device) && t->size < DISK_HDPARM_BUF)
		return bad(err, errlen, "'%s' holds %s; -T and -t need at least 2 MiB of data", path,
			   disk_fmt_bytes(a, sizeof(a), t->size));
	if (o->workload == WL_TORRENT && o->region % TORRENT_BLOCK)
		return bad(err, errlen, "'%s' holds %s, not a multiple of 16 KiB; give --size for torrent", path,
			   disk_fmt_bytes(a, sizeof(a), o->region));
	if (o->workload != WL_NONE && o->workload != WL_TORRENT)
		o->region -= o->region % o->bs;
	if (o->workload != WL_NONE && o->region < o->bs)
		return bad(err, errlen, "'%s' holds %s, less than one block of %s%s", path,
			   disk_fmt_bytes(a, sizeof(a), t->size), disk_fmt_bytes(b, sizeof(b), o->bs),
			   o->writes ? "; give --size" : "");
	if (o->writes && o->region > t->size) {
		struct statvfs vfs;
		uint64_t grow = o->region - t->size;

		if (!statvfs(path, &vfs) && grow + grow / 32 + DISK_MIB > (uint64_t)vfs.f_bavail * vfs.f_frsize)
			return bad(err, errlen, "not enough free space to grow '%s' to %s: %s available", path,
				   disk_fmt_bytes(a, sizeof(a), o->region),
				   disk_fmt_bytes(b, sizeof(b), (uint64_t)vfs.f_bavail * vfs.f_frsize));
	}
	return 0;
}

static int check_blkdev(struct disk_opts *o, const char *path, char *err, size_t errlen)
{
	struct disk_target *t = &o->tgt;
	uint64_t size = 0;
	char where[PATH_MAX], a[32], b[32];
	int fd, r;

	t->kind = DISK_BLKDEV;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bad(err, errlen, "cannot open '%s': %s", path, strerror(errno));
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		r = errno;
		close(fd);
		return bad(err, errlen, "cannot read the size of '%s': %s", path, strerror(r));
	}
	close(fd);
	t->size = size;
	if (o->prealloc != PREALLOC_DEFAULT)
		return bad(err, errlen, "'--prealloc' applies to files, not to block device '%s'", path);
	o->prealloc_mode = PREALLOC_NONE;
	if (o->writes) {
		if (!o->destructive)
			return bad(err, errlen, "'%s' is a block device: writing to it destroys its data and needs "
				   "--destructive", path);
		if (t->have_dev && (r = blkdev_is_mounted(NULL, &t->dev, where, sizeof(where))) > 0)
			return bad(err, errlen, "'%s' is mounted on '%s': engpass never writes to a mounted device",
				   path, where);
		/* The kernel's own answer: an exclusive open fails while mounted, swap or held. */
		fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0)
			return bad(err, errlen, "'%s' is in use (%s): engpass never writes to a device that is "
				   "mounted, swap or part of another device", path, strerror(errno));
		close(fd);
	}
	o->region = o->size ? o->size : size;
	if (o->region > size)
		return bad(err, errlen, "'--size' %s is larger than '%s' (%s)", disk_fmt_bytes(a, sizeof(a), o->region),
			   path, disk_fmt_bytes(b, sizeof(b), size));
	if ((o->cached || o->device) && size < DISK_HDPARM_BUF)
		return bad(err, errlen, "'%s' holds %s; -T and -t need at least 2 MiB", path,
			   disk_fmt_bytes(a, sizeof(a), size));
	if (o->workload != WL_NONE)
		o->region -= o->region % o->bs;
	if (o->workload != WL_NONE && o->region < o->bs)
		return bad(err, errlen, "'%s' is smaller than one block", path);
	return 0;
}

int disk_target_check(struct disk_opts *o, const char *path, char *err, size_t errlen)
{
	struct disk_target *t = &o->tgt;
	struct stat st;
	int r;

	t->path = path;
	if (stat(path, &st) < 0)
		return bad(err, errlen, "cannot use '%s': %s", path, strerror(errno));
	r = blkdev_from_path(NULL, path, &t->dev);
	t->have_dev = r == 0;
	t->dev_err = r;
	if (!S_ISBLK(st.st_mode))
		t->have_mount = blkdev_mount_of(NULL, path, &t->mnt) == 0;
	if (S_ISDIR(st.st_mode))
		return check_dir(o, path, err, errlen);
	if (S_ISREG(st.st_mode))
		return check_file(o, path, &st, err, errlen);
	if (S_ISBLK(st.st_mode))
		return check_blkdev(o, path, err, errlen);
	return bad(err, errlen, "'%s' is not a directory, a regular file or a block device", path);
}

int disk_sync_flags(enum disk_sync mode)
{
	return mode == DISK_SYNC_OSYNC ? O_SYNC : mode == DISK_SYNC_ODSYNC ? O_DSYNC : 0;
}

void disk_fail_errno(struct result *res, int err, const char *what)
{
	if (err == -ENOSPC)
		result_set_status(res, RESULT_FAILED, "no space left on the device while %s", what);
	else if (err == -EIO)
		result_set_status(res, RESULT_FAILED, "I/O error (EIO) while %s", what);
	else
		result_set_status(res, RESULT_FAILED, "%s while %s", strerror(-err), what);
}

/* Writes the whole buffer at OFF, retrying short writes; 0 or -errno. */
static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -ENOSPC;
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/*
 * The least data the steps need to run at all: -T and -t read 2 MiB
 * blocks (-t --offset from its offset on), a workload one --bs block.
 */
static uint64_t fill_min(const struct disk_opts *o)
{
	uint64_t m = DISK_HDPARM_BUF;

	if (o->workload != WL_NONE && o->bs > m)
		m = o->bs;
	if (o->device && o->offset != UINT64_MAX && o->offset + DISK_HDPARM_BUF > m)
		m = o->offset + DISK_HDPARM_BUF;
	return m < o->data_size ? m : o->data_size;
}

/*
 * Writes one chunk of the fill at OFF; buffered (DIRECT false), waits for
 * it to reach the device too, so that its time is the device's and not
 * the page cache's. Returns 0 or -errno.
 */
static int fill_chunk(int fd, const void *buf, size_t n, uint64_t off, bool direct)
{
	int r = pwrite_all(fd, buf, n, off);

	/* An error here comes back from the final fdatasync too; only EIO stops the fill now. */
	if (r == 0 && !direct &&
	    sync_file_range(fd, (off_t)off, (off_t)n,
			    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) < 0 &&
	    errno == EIO)
		r = -EIO;
	return r;
}

/* The fill's part of the method text (after "how"): its allowance, rate and what did not fit. */
static void fill_how(struct disk_data *d, bool capped, double probe_rate, bool over)
{
	size_t len = strlen(d->how);
	char a[32], b[32], c[32], e[32];

	if (!capped) {
		snprintf(d->how + len, sizeof(d->how) - len, "; --size without --time: filled in full, no time "
			 "allowance");
		return;
	}
	if (!d->cut) {
		snprintf(d->how + len, sizeof(d->how) - len, "; all of it fit the fill's %.0f s allowance (set-up, "
			 "outside --time)", (double)DISK_FILL_ALLOW_NS / 1e9);
		return;
	}
	snprintf(d->how + len, sizeof(d->how) - len, "; the fill's allowance is %.0f s (set-up, outside --time): "
		 "its first %s wrote at %.2f MiB/s, so %s of the %s asked were filled and %s did not fit%s",
		 (double)DISK_FILL_ALLOW_NS / 1e9, disk_fmt_bytes(a, sizeof(a), DISK_FILL_PROBE), probe_rate / DISK_MIB,
		 disk_fmt_bytes(b, sizeof(b), d->size), disk_fmt_bytes(c, sizeof(c), d->asked),
		 disk_fmt_bytes(e, sizeof(e), d->asked - d->size),
		 over ? " (the least the steps need, over the allowance)" : "");
}

/*
 * Makes the shared data file: created O_EXCL in the directory, filled
 * with the pattern in 1 MiB writes (O_DIRECT where the file system takes
 * it; else each write waits for its pages to reach the device),
 * fdatasync'ed, and its cached pages dropped. Unless the user gave --size
 * without --time, the fill keeps to DISK_FILL_ALLOW_NS: the first
 * DISK_FILL_PROBE bytes measure the device's write rate, and the file is
 * filled only as far as that rate fills the rest of the allowance (the
 * steps' minimum at least); a device that slows down later is stopped at
 * the allowance's end all the same. The steps then read what was filled.
 */
static int make_data(const struct bench_env *env, const struct disk_opts *o, struct result *res)
{
	struct disk_data *d = o->data;
	bool capped = env->time_ns || !o->size_given;
	uint64_t asked = o->data_size, plan = asked, min = fill_min(o), off = 0;
	bool direct = true, probed = false;
	double probe_rate = 0;
	char *path = NULL, sz[32];
	void *buf = NULL;
	mono_ns t0, t1, deadline;
	int fd, r;

	r = tmpfile_create(env->tmp, o->tgt.path, "disk", O_DIRECT, &fd, &path);
	if (r == -EINVAL) {
		direct = false;
		r = tmpfile_create(env->tmp, o->tgt.path, "disk", 0, &fd, &path);
	}
	if (r < 0) {
		result_set_status(res, RESULT_FAILED, "cannot create a data file in '%s': %s", o->tgt.path,
				  strerror(-r));
		return r;
	}
	snprintf(d->path, sizeof(d->path), "%s", path);
	free(path);
	buf = xaligned_alloc(DISK_ALIGN, DISK_MIB);
	{
		char *dir = realpath(o->tgt.path, NULL);

		progress_phase(env->progress, "filling a %s data file in %s (before the steps that read it%s)",
			       disk_fmt_bytes(sz, sizeof(sz), asked), dir ? dir : o->tgt.path,
			       capped ? ", at most 2 s" : "");
		free(dir);
	}
	t0 = clock_mono();
	deadline = t0 + DISK_FILL_ALLOW_NS;
	while (off < plan && !*env->stop) {
		size_t n = plan - off < DISK_MIB ? (size_t)(plan - off) : DISK_MIB;
		mono_ns now;

		disk_pattern(buf, n, (uint64_t)o->seed, off / DISK_MIB);
		if ((r = fill_chunk(fd, buf, n, off, direct)) < 0)
			break;
		off += n;
		now = clock_mono();
		if (capped && !probed && off >= DISK_FILL_PROBE) {
			probed = true;
			probe_rate = (double)off / elapsed_s(t0, now);
			plan = disk_fill_plan(asked, min, off, elapsed_ns(t0, now), now < deadline ? deadline - now : 0,
					      DISK_MIB);
		}
		/* Slower than the probe said: the allowance holds all the same. */
		if (capped && now >= deadline && off >= min && off < plan)
			plan = off;
		progress_update(env->progress, now, off, plan, "filling the data file");
	}
	free(buf);
	if (r == 0 && !*env->stop && fdatasync(fd) < 0)
		r = -errno;
	if (r == 0 && *env->stop)
		r = -EINTR;
	if (r == 0)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (r < 0) {
		if (r == -EINTR) {
			result_set_incomplete(res);
			result_set_status(res, RESULT_FAILED, "stopped while filling the data file");
		} else {
			disk_fail_errno(res, r, "filling the data file");
			result_set_incomplete(res);
		}
		if (tmpfile_remove(env->tmp, d->path) == 0)
			d->path[0] = '\0';
		return r;
	}
	t1 = clock_mono();
	d->size = off;
	d->asked = asked;
	d->cut = off < asked;
	d->made = true;
	result_note(res, "the data file was filled during this step, %.2f s before timing: the sampled system view "
		    "includes the fill, the device_* figures do not", elapsed_s(t0, t1));
	snprintf(d->how, sizeof(d->how),
		 "engpass's own temp file of %s in '%s', filled once with pseudo-random data (1 MiB %s writes, "
		 "fdatasync, fadvise DONTNEED) in %.2f s before the first step that reads; removed at exit",
		 disk_fmt_bytes(sz, sizeof(sz), off), o->tgt.path, direct ? "O_DIRECT" : "buffered, each synced",
		 elapsed_s(t0, t1));
	fill_how(d, capped, probe_rate, elapsed_ns(t0, t1) > DISK_FILL_ALLOW_NS);
	return 0;
}

/* open() with O_DIRECT, falling back to buffered when allowed; -errno. */
static int open_maybe_direct(const char *path, int flags, bool direct, bool direct_explicit, bool *direct_out)
{
	int fd;

	*direct_out = false;
	if (direct) {
		fd = open(path, flags | O_DIRECT | O_CLOEXEC);
		if (fd >= 0) {
			*direct_out = true;
			return fd;
		}
		if (errno != EINVAL || direct_explicit)
			return -errno;
	}
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int disk_open_data(const struct bench_env *env, const struct disk_opts *o, struct result *res, bool direct,
		   bool *direct_out, uint64_t *size)
{
	const char *path = o->tgt.path;
	int fd;

	if (o->tgt.kind == DISK_DIR) {
		if (!o->data->made) {
			int r = o->data->err ? o->data->err : make_data(env, o, res);

			if (r < 0) {
				o->data->err = r;
				if (res->status == RESULT_OK)
					disk_fail_errno(res, r, "making the data file");
				return r;
			}
		}
		path = o->data->path;
		*size = o->data->size;
		result_method(res, "data", "%s", o->data->how);
		if (o->data->cut) {
			char a[32], b[32];

			result_param(res, "data_filled", "%s of %s asked", disk_fmt_bytes(a, sizeof(a), o->data->size),
				     disk_fmt_bytes(b, sizeof(b), o->data->asked));
			result_note(res, "the data file holds %s of the %s asked: the rest did not fit the fill's %.0f s "
				    "allowance on this device, so the step reads those %s", a, b,
				    (double)DISK_FILL_ALLOW_NS / 1e9, a);
		}
	} else {
		*size = o->tgt.size;
	}
	fd = open_maybe_direct(path, O_RDONLY, direct, o->direct, direct_out);
	if (fd < 0) {
		result_set_status(res, RESULT_FAILED, "cannot open '%s'%s: %s", path, direct ? " with O_DIRECT" : "",
				  strerror(-fd));
		return fd;
	}
	if (direct && !*direct_out)
		result_note(res, "the file system refused O_DIRECT (EINVAL); read through the page cache instead, "
			    "with its cached pages dropped first");
	return fd;
}

void disk_remove_temp(const struct bench_env *env, struct result *res, char *path)
{
	int r;

	if (!path)
		return;
	r = tmpfile_remove(env->tmp, path);
	if (r < 0)
		result_note(res, "could not remove '%s' (%s); engpass tries again at exit", path, strerror(-r));
	free(path);
}

int disk_create_temp(const struct bench_env *env, const struct disk_opts *o, struct result *res, int extra,
		     bool *direct_out, char **path)
{
	int fd, r;

	*direct_out = false;
	if (o->use_direct) {
		r = tmpfile_create(env->tmp, o->tgt.path, "disk", extra | O_DIRECT, &fd, path);
		if (r >= 0) {
			*direct_out = true;
			return fd;
		}
		if (r != -EINVAL || o->direct) {
			result_set_status(res, RESULT_FAILED, "cannot create a test file in '%s'%s: %s", o->tgt.path,
					  r == -EINVAL ? " with O_DIRECT" : "", strerror(-r));
			return r;
		}
		result_note(res, "the file system refused O_DIRECT (EINVAL); wrote through the page cache instead");
	}
	r = tmpfile_create(env->tmp, o->tgt.path, "disk", extra, &fd, path);
	if (r < 0) {
		result_set_status(res, RESULT_FAILED, "cannot create a test file in '%s': %s", o->tgt.path, strerror(-r));
		return r;
	}
	return fd;
}

int disk_open_target_rw(const struct disk_opts *o, struct result *res, int extra, bool *direct_out)
{
	int flags = O_RDWR | extra | (o->tgt.kind == DISK_BLKDEV ? O_EXCL : 0);
	int fd = open_maybe_direct(o->tgt.path, flags, o->use_direct, o->direct, direct_out);

	if (fd < 0) {
		result_set_status(res, RESULT_FAILED, "cannot open '%s' for writing: %s", o->tgt.path, strerror(-fd));
		return fd;
	}
	if (o->use_direct && !*direct_out)
		result_note(res, "the file system refused O_DIRECT (EINVAL); wrote through the page cache instead");
	return fd;
}

void disk_drop_cache(const struct disk_opts *o, int fd, struct result *res)
{
	if (o->tgt.kind == DISK_BLKDEV) {
		int ok;

		/* hdparm's flush_buffer_cache(), minus its IDE drive command. */
		sync();
		(void)fsync(fd);
		(void)fdatasync(fd);
		sync();
		ok = ioctl(fd, BLKFLSBUF, 0) == 0;
		sync();
		if (ok)
			result_method(res, "cache", "sync, fsync, fdatasync, sync, ioctl BLKFLSBUF, sync before reading "
				      "(hdparm's flush_buffer_cache)");
		else
			result_method(res, "cache", "sync, fsync, fdatasync, sync; ioctl BLKFLSBUF failed (%s), so the "
				      "device's page cache may still hold data", strerror(errno));
		if (!strncmp(o->tgt.dev.name, "loop", 4))
			result_note(res, "BLKFLSBUF drops only %s's own cache; the backing file '%s' may still be in the "
				    "page cache, so the figure can be memory speed", o->tgt.dev.name,
				    o->tgt.dev.loop_backing);
	} else {
		int r;

		(void)fdatasync(fd);
		r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (r == 0)
			result_method(res, "cache", "fdatasync, then posix_fadvise(POSIX_FADV_DONTNEED) on the whole file "
				      "before reading");
		else
			result_method(res, "cache", "posix_fadvise(POSIX_FADV_DONTNEED) failed (%s): the file may be "
				      "read from the page cache", strerror(r));
	}
}

/*
 * Transmission's fallback when fallocate() is refused (ext2, ext3, FAT:
 * ERR): one byte written at the end, then ftruncate, leaving a sparse
 * file of SIZE (SZ, formatted). A descriptor opened O_DIRECT cannot write
 * one byte (EINVAL: O_DIRECT needs aligned lengths and offsets), so
 * O_DIRECT is cleared with F_SETFL for that one write, through the page
 * cache as Transmission's buffered descriptor does it, and set again.
 * Returns 0 or -errno.
 */
static int prealloc_fallback(int fd, uint64_t size, int err, const char *sz, struct result *res)
{
	int fl = fcntl(fd, F_GETFL), r;
	bool direct = fl >= 0 && (fl & O_DIRECT);
	char zero = 0;

	if (fl < 0)
		return -errno;
	if (direct && fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	r = pwrite_all(fd, &zero, 1, size - 1);
	if (r == 0 && fdatasync(fd) < 0)
		r = -errno;
	if (direct && fcntl(fd, F_SETFL, fl) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		return r;
	if (ftruncate(fd, (off_t)size) < 0)
		return -errno;
	result_method(res, "prealloc", "fast: fallocate() refused (%s), so Transmission's fallback: one byte written "
		      "at the end of %s%s, fdatasync'ed, then ftruncate; the file is sparse and its blocks are "
		      "allocated as the download writes them", strerror(err), sz,
		      direct ? " through the page cache (O_DIRECT cleared with fcntl for that write: O_DIRECT cannot "
			       "write one byte)" : "");
	return 0;
}

/* The preallocation itself (see disk_prealloc()); 0 or -errno. */
static int prealloc_do(int fd, uint64_t size, int mode, volatile sig_atomic_t *stop, struct result *res)
{
	char sz[32];
	int r = 0;

	disk_fmt_bytes(sz, sizeof(sz), size);
	if (mode == PREALLOC_FAST) {
		if (fallocate(fd, 0, 0, (off_t)size) == 0) {
			result_method(res, "prealloc", "fast: fallocate(mode 0) of %s (unwritten extents), a phase "
				      "before the timed writes", sz);
			return 0;
		}
		r = -errno;
		if (r == -ENOSPC || r == -EINTR)
			return r;
		return prealloc_fallback(fd, size, -r, sz, res);
	}
	/* Full: zeros over the whole file. */
	{
		void *buf = xaligned_alloc(DISK_ALIGN, DISK_MIB);
		uint64_t off = 0;

		memset(buf, 0, DISK_MIB);
		while (off < size && !*stop) {
			size_t n = size - off < DISK_MIB ? (size_t)(size - off) : DISK_MIB;

			if ((r = pwrite_all(fd, buf, n, off)) < 0)
				break;
			off += n;
		}
		free(buf);
		if (r == 0 && *stop)
			r = -EINTR;
		if (r == 0 && fdatasync(fd) < 0)
			r = -errno;
		if (r < 0)
			return r;
		result_method(res, "prealloc", "full: %s of zeros written in 1 MiB writes and fdatasync'ed, a phase "
			      "before the timed writes: the download starts when it ends, and every block is written "
			      "twice", sz);
	}
	return 0;
}

int disk_prealloc(const struct disk_opts *o, int fd, volatile sig_atomic_t *stop, struct result *res, double *secs)
{
	struct disk_meas m;
	int r;

	*secs = 0;
	if (o->prealloc_mode == PREALLOC_NONE) {
		result_method(res, "prealloc", "none: the file grows as blocks are written (sparse where the "
			      "file system allows)");
		return 0;
	}
	disk_meas_begin(o, &m);
	r = prealloc_do(fd, o->region, o->prealloc_mode, stop, res);
	disk_meas_end(o, &m);
	if (r < 0)
		return r;
	*secs = elapsed_s(m.t0, m.t1);
	result_metric(res, "prealloc_time", UNIT_SECONDS, *secs, "preallocation time (before the timed writes)");
	if (o->prealloc_mode == PREALLOC_FULL)
		result_metric(res, "prealloc_written", UNIT_BYTES, (double)o->region, "preallocation: zeros written");
	if (m.have_ds) {
		uint64_t wr = m.ds1.wr_ios >= m.ds0.wr_ios ? m.ds1.wr_ios - m.ds0.wr_ios : 0;
		uint64_t ws = m.ds1.wr_sectors >= m.ds0.wr_sectors ? m.ds1.wr_sectors - m.ds0.wr_sectors : 0;

		result_metric(res, "prealloc_device_write_requests", UNIT_COUNT, (double)wr,
			      "preallocation: device write requests");
		result_metric(res, "prealloc_device_write", UNIT_BYTES, (double)ws * PROC_SECTOR_BYTES,
			      "preallocation: device bytes written");
	}
	result_method(res, "prealloc_phase", "measured on its own before the timed writes: CLOCK_MONOTONIC around "
		      "the %s%s; the headline and the device_* figures are the download's only, total_time "
		      "adds the preallocation", o->prealloc_mode == PREALLOC_FULL ? "zero-fill and its fdatasync" :
		      "fallocate()", m.have_ds ? " and /proc/diskstats deltas of the device (every process's I/O)" : "");
	return 0;
}
