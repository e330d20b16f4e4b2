/* SPDX-License-Identifier: MIT */
/* --nr-requests, --max-sectors, --write-cache and their guardian; see disk_queue.h. */
#include "bench/disk/disk_queue.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/work/guardian.h"
#include "core/kernel/proc.h"

const char *const disk_wcache_names[] = { "keep", "on", "off", NULL };

bool disk_queue_wanted(const struct disk_opts *o)
{
	return o->nr_requests >= 0 || o->max_sectors_kb >= 0 || o->write_cache != DISK_WCACHE_KEEP ||
	       o->readahead_kb >= 0 || o->scheduler;
}

/*
 * Where the write cache of DEV is set (see disk_queue.h) into PATH, and
 * what that file reaches in *WHERE (static). 0, or -ENOENT when none of
 * the files exists.
 */
static int wcache_file(const struct blkdev_info *dev, char *path, size_t n, const char **where)
{
	char dir[PATH_MAX + 32];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/device/scsi_disk", dev->disk_dir);
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			if ((size_t)snprintf(path, n, "%s/%s/cache_type", dir, e->d_name) < n && !access(path, F_OK)) {
				closedir(d);
				*where = "the drive's own cache (SCSI disk cache_type: the kernel sends a MODE SELECT)";
				return 0;
			}
		}
		closedir(d);
	}
	if ((size_t)snprintf(path, n, "%s/cache_type", dev->disk_dir) < n && !access(path, F_OK)) {
		*where = "the device's write-cache setting (the disk's own cache_type, as virtio disks have)";
		return 0;
	}
	if ((size_t)snprintf(path, n, "%s/queue/write_cache", dev->disk_dir) < n && !access(path, F_OK)) {
		*where = "the kernel's view only (queue/write_cache: it starts or stops sending cache flushes; "
			 "the drive's own cache is not changed)";
		return 0;
	}
	return -ENOENT;
}

int disk_queue_check(const struct disk_opts *o, char *err, size_t errlen)
{
	const struct disk_target *t = &o->tgt;
	const char *names = "'--nr-requests', '--max-sectors' and '--write-cache'";
	char path[PATH_MAX + 64], buf[64];
	const char *where;

	if (o->nr_requests < 0 && o->max_sectors_kb < 0 && o->write_cache == DISK_WCACHE_KEEP)
		return 0;
	if (!t->have_dev) {
		snprintf(err, errlen, "%s need a target on a block device; '%s' has none (%s)", names, t->path,
			 t->have_mount ? t->mnt.fs_type : strerror(-t->dev_err));
		return -EINVAL;
	}
	if (geteuid() != 0) {
		snprintf(err, errlen, "%s need root: they write %s/queue/", names, t->dev.disk_dir);
		return -EINVAL;
	}
	for (int i = 0; i < 2; i++) {
		const char *attr = i ? "max_sectors_kb" : "nr_requests";

		if ((i ? o->max_sectors_kb : o->nr_requests) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/queue/%s", t->dev.disk_dir, attr);
		if (access(path, W_OK)) {
			snprintf(err, errlen, "option '--%s': cannot change '%s': %s", i ? "max-sectors" : "nr-requests",
				 path, strerror(errno));
			return -EINVAL;
		}
	}
	if (o->max_sectors_kb >= 0 && !blkdev_queue_get(&t->dev, "max_hw_sectors_kb", buf, sizeof(buf)) &&
	    o->max_sectors_kb > strtoll(buf, NULL, 10)) {
		snprintf(err, errlen, "option '--max-sectors': %s takes at most %s KB (its max_hw_sectors_kb), not %lld",
			 t->dev.disk, buf, (long long)o->max_sectors_kb);
		return -EINVAL;
	}
	if (o->write_cache != DISK_WCACHE_KEEP && wcache_file(&t->dev, path, sizeof(path), &where)) {
		snprintf(err, errlen, "option '--write-cache': %s has no write cache setting in sysfs (neither "
			 "device/scsi_disk/*/cache_type, cache_type nor queue/write_cache below %s)", t->dev.disk,
			 t->dev.disk_dir);
		return -EINVAL;
	}
	return 0;
}

/* Saves the first line of PATH as knob K (or, for a scheduler file, its active name) and guards it. */
static int save(struct disk_queue *q, const char *path, bool sched, struct result *res)
{
	char line[256];
	int i = q->n, r;

	if (i >= DISK_QUEUE_KNOBS)
		return -ENOSPC;
	snprintf(q->k[i].path, sizeof(q->k[i].path), "%s", path);
	if ((r = proc_read_line(path, line, sizeof(line))) ||
	    (sched && (r = blkdev_parse_scheduler(line, q->k[i].old, sizeof(q->k[i].old), NULL, 0)))) {
		result_set_status(res, RESULT_FAILED, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	if (!sched)
		snprintf(q->k[i].old, sizeof(q->k[i].old), "%s", line);
	if ((r = guardian_add(q->g, GUARDIAN_WRITE, path, q->k[i].old, -1)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot tell the guardian about '%s': %s", path, strerror(-r));
		return r;
	}
	q->k[i].id = r;
	q->n++;
	return 0;
}

/* Sets the saved knob I to VALUE and says so in RES as NAME. */
static int set(const struct disk_opts *o, struct disk_queue *q, int i, const char *name, const char *value,
	       const char *where, struct result *res)
{
	const char *path = q->k[i].path;
	char now[64];
	int r;

	if ((r = guardian_write_file(path, value))) {
		result_set_status(res, RESULT_FAILED, "the kernel refused %s '%s' for %s: %s", name, value,
				  o->tgt.dev.disk, strerror(-r));
		return r;
	}
	q->k[i].set = true;
	if (proc_read_line(path, now, sizeof(now)))
		snprintf(now, sizeof(now), "unknown");
	result_param(res, name, "%s (was %s)", now, q->k[i].old);
	result_method(res, name[0] == 'w' ? "tuning_write_cache" : name[0] == 'n' ? "tuning_nr_requests"
					: "tuning_max_sectors_kb",
		      "%s = '%s' for this step (was '%s', restored afterwards, also after SIGKILL by a guardian "
		      "process)%s%s", path, value, q->k[i].old, where ? ": " : "", where ? where : "");
	if (strcmp(now, value))
		result_note(res, "the kernel made %s '%s' into '%s'", name, value, now);
	return 0;
}

int disk_queue_guard(const struct disk_opts *o, struct disk_queue *q, struct result *res)
{
	const struct blkdev_info *dev = &o->tgt.dev;
	char path[PATH_MAX + 64];
	const char *where;
	int r;

	memset(q, 0, sizeof(*q));
	q->nr = q->maxs = q->wc = -1;
	if (!disk_queue_wanted(o) || !o->tgt.have_dev)
		return 0;
	if ((r = guardian_start(&q->g))) {
		result_set_status(res, RESULT_FAILED, "cannot start the guardian of the queue settings: %s", strerror(-r));
		return r;
	}
	/*
	 * Everything is saved before anything changes. The guardian undoes the
	 * latest first, and a scheduler change resets nr_requests to the new
	 * scheduler's default: so the knobs are registered first and the
	 * scheduler last, which puts the scheduler back before the knobs.
	 */
	if (o->nr_requests >= 0) {
		snprintf(path, sizeof(path), "%s/queue/nr_requests", dev->disk_dir);
		q->nr = q->n;
		if ((r = save(q, path, false, res)))
			return r;
	}
	if (o->max_sectors_kb >= 0) {
		snprintf(path, sizeof(path), "%s/queue/max_sectors_kb", dev->disk_dir);
		q->maxs = q->n;
		if ((r = save(q, path, false, res)))
			return r;
	}
	if (o->write_cache != DISK_WCACHE_KEEP) {
		if ((r = wcache_file(dev, path, sizeof(path), &where))) {
			result_set_status(res, RESULT_FAILED, "%s has no write cache setting in sysfs", dev->disk);
			return r;
		}
		q->wc = q->n;
		q->wc_where = where;
		if ((r = save(q, path, false, res)))
			return r;
	}
	/* --readahead and --scheduler are set by blkdev_tune_*(); here they are only guarded. */
	snprintf(path, sizeof(path), "%s/queue/read_ahead_kb", dev->disk_dir);
	if (o->readahead_kb >= 0 && (r = save(q, path, false, res)))
		return r;
	snprintf(path, sizeof(path), "%s/queue/scheduler", dev->disk_dir);
	if (o->scheduler && (r = save(q, path, true, res)))
		return r;
	return 0;
}

int disk_queue_set(const struct disk_opts *o, struct disk_queue *q, struct result *res)
{
	char num[32];
	int r;

	if (q->nr >= 0) {
		snprintf(num, sizeof(num), "%lld", (long long)o->nr_requests);
		if ((r = set(o, q, q->nr, "nr_requests", num, NULL, res)))
			return r;
	}
	if (q->maxs >= 0) {
		snprintf(num, sizeof(num), "%lld", (long long)o->max_sectors_kb);
		if ((r = set(o, q, q->maxs, "max_sectors_kb", num, NULL, res)))
			return r;
	}
	if (q->wc >= 0 && (r = set(o, q, q->wc, "write_cache",
				   o->write_cache == DISK_WCACHE_ON ? "write back" : "write through", q->wc_where, res)))
		return r;
	return 0;
}

void disk_queue_restore(const struct disk_opts *o, struct disk_queue *q, bool others_ok, struct result *res)
{
	bool ok = true;

	for (int i = q->n - 1; i >= 0; i--) {
		int r;

		if (!q->k[i].set)
			continue;	/* --readahead/--scheduler: blkdev_tune_restore() */
		if ((r = guardian_write_file(q->k[i].path, q->k[i].old))) {
			ok = false;
			result_note(res, "could not restore '%s' to '%s': %s", q->k[i].path, q->k[i].old, strerror(-r));
			if (res->status == RESULT_OK)
				result_set_status(res, RESULT_FAILED, "could not restore the queue settings of %s: %s",
						  o->tgt.dev.disk, strerror(-r));
			continue;
		}
		guardian_cancel(q->g, q->k[i].id);
	}
	/* Not told "done", the guardian writes back what is still registered before it exits. */
	guardian_stop(q->g, ok && others_ok);
	q->g = NULL;
}
