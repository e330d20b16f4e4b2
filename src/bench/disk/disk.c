/* SPDX-License-Identifier: MIT */
/*
 * engpass disk: where a box's storage throughput goes. One command covers
 * hdparm's two timings (-T, a memory-copy figure; -t, sequential 2 MiB
 * reads with caches defeated), fio-like workloads (sequential and random
 * reads and writes, mixed, through psync or io_uring, direct or buffered,
 * with sync modes, preallocation and a rate limit) and the torrent write
 * pattern of seed 000 (16 KiB blocks, random pieces, an application write
 * cache). Every result carries the method next to the figures, the
 * device's own view from /proc/diskstats (requests, merges, write
 * amplification) and the queue settings and mount options in force.
 *
 * This file holds the descriptor, the option table, check() (target and
 * option combinations, before anything is created) and run(), which sets
 * --readahead/--scheduler (and, through disk_queue.c, --nr-requests,
 * --max-sectors, --write-cache) for the step, dispatches to the step and
 * puts the settings back. The steps live in disk_*.c; disk_common.h lists them.
 *
 * Safety (DESIGN.md): engpass writes only to files it created (a temp
 * file in a directory target), to an existing file only with --write-ok,
 * to a block device only with --destructive and never to a mounted one.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#include "bench/disk/disk_common.h"
#include "bench/disk/disk_queue.h"
#include "core/work/torrent.h"
#include "lib/xalloc.h"

static const char *const engines[] = { "uring", "psync", NULL };
static const char *const preallocs[] = { "none", "fast", "full", NULL };
static const char *const regions[] = { "start", "middle", "end", NULL };
/* fio's --rw and --ioengine words: the same workload or engine, or why not. */
static const char *const fio_rw[] = {
	"read=seq-read", "write=seq-write", "randread=rand-read", "randwrite=rand-write", "randrw=mixed",
	"rw=!fio's rw (sequential reads and writes mixed) has no engpass workload: mixed is random (fio's randrw)",
	"readwrite=!fio's readwrite (sequential reads and writes mixed) has no engpass workload: mixed is random "
	"(fio's randrw)",
	NULL,
};
static const char *const fio_engines[] = {
	"io_uring=uring",
	"libaio=!engpass has no libaio engine: --engine uring queues I/O asynchronously as libaio does",
	"sync=!fio's sync engine is read()/write(); engpass's nearest is --engine psync (pread()/pwrite())",
	NULL,
};

static const struct opt disk_options[] = {
	OPT_FLAG("cached", 'T', struct disk_opts, cached,
		 "hdparm -T: re-read one 2 MiB block from the page cache for 2 s (a memory-copy figure)"),
	OPT_FLAG("device", 't', struct disk_opts, device,
		 "hdparm -t: sequential 2 MiB reads for 3 s, caches defeated (O_DIRECT by default)"),
	OPT_DURATION("settle", 0, struct disk_opts, settle_ns, 1 * NS_PER_MS, 60 * NS_PER_SEC,
		     "-T/-t: sync, then wait this long before timing, as hdparm does (3s); default: no wait"),
	OPT_CHOICE("workload", 0, struct disk_opts, workload, disk_workload_names, "NAME",
		   "the workload to run (docs/disk.md); fio's --rw words work too", .alias = "rw", .choice_alias = fio_rw),
	OPT_SIZE("bs", 0, struct disk_opts, bs, 512, 64 * 1024 * 1024,
		 "block size (default 1M for seq-*, 4K for rand-* and mixed)"),
	OPT_INT("qd", 0, struct disk_opts, qd, 1, 4096, "N", "queue depth, I/Os in flight (default 1)", .alias = "iodepth"),
	OPT_CHOICE("engine", 0, struct disk_opts, engine, engines, "ENGINE",
		   "I/O engine (default psync at --qd 1, uring above); fio's io_uring works too", .alias = "ioengine",
		   .choice_alias = fio_engines),
	OPT_FLAG("direct", 0, struct disk_opts, direct, "O_DIRECT (default for -t and the seq/rand/mixed workloads)"),
	OPT_FLAG("buffered", 0, struct disk_opts, buffered,
		 "through the page cache (default for torrent); with -t hdparm's exact method"),
	OPT_SIZE("size", 0, struct disk_opts, size, 16384, INT64_MAX,
		 "data size (default: the file or device; a quarter of the free space, at most 1G, for a directory)"),
	OPT_RATE("rate", 0, struct disk_opts, rate, "cap the workload at RATE bytes/s (token bucket), e.g. 500K = 500 KiB/s"),
	OPT_STRING("sync", 0, struct disk_opts, sync, "MODE",
		   "none, end, fdatasync=N, fsync=N, osync or odsync (default end for writes)"),
	OPT_CHOICE("prealloc", 0, struct disk_opts, prealloc, preallocs, "MODE",
		   "preallocation (default fast for engpass's own new files, none otherwise)"),
	OPT_INT("readahead", 0, struct disk_opts, readahead_kb, 0, 1024 * 1024, "KB",
		"set read_ahead_kb of the target's disk for the run, restored afterwards (root)"),
	OPT_STRING("scheduler", 0, struct disk_opts, scheduler, "NAME",
		   "set the I/O scheduler of the target's disk for the run, restored afterwards (root)"),
	OPT_INT("nr-requests", 0, struct disk_opts, nr_requests, 1, 1 << 20, "N",
		"set queue/nr_requests of the target's disk for the run, restored afterwards (root)"),
	OPT_INT("max-sectors", 0, struct disk_opts, max_sectors_kb, 1, INT32_MAX, "KB",
		"set queue/max_sectors_kb (largest request) of the target's disk for the run, restored afterwards (root)"),
	OPT_CHOICE("write-cache", 0, struct disk_opts, write_cache, disk_wcache_names, "on|off",
		   "set the write cache of the target's disk for the run, restored afterwards (root; docs/disk.md: "
		   "where it is set)"),
	OPT_SIZE("piece", 0, struct disk_opts, piece, 16384, 64 * 1024 * 1024, "torrent: piece size (default 1M)"),
	OPT_INT("interleave", 0, struct disk_opts, interleave, 1, 1024, "K", "torrent: pieces in flight (default 4)"),
	OPT_SIZE("cache", 0, struct disk_opts, cache, 0, 1024 * 1024 * 1024,
		 "torrent: application write cache (default 0: every block its own write)"),
	OPT_FLAG("verify-pieces", 0, struct disk_opts, verify,
		 "torrent: read back each finished piece, check its SHA-1 (Transmission's verify)"),
	OPT_STRING("fs", 0, struct disk_opts, fs, "TYPE",
		   "make a scratch TYPE file system (ext2, ext4, vfat, ...) on a loop image in directory TARGET, "
		   "run there and remove it (root)"),
	OPT_STRING("mount-options", 0, struct disk_opts, mount_options, "OPTS",
		   "--fs: mount options separated by ',' or '+' (sync, noatime, data=journal...; default: defaults)"),
	OPT_SIZE("offset", 0, struct disk_opts, offset, 0, INT64_MAX,
		 "-t: start reading at this offset, a multiple of 4 KiB (hdparm reads from 0)"),
	OPT_CHOICE("region", 0, struct disk_opts, t_region, regions, "WHERE",
		   "-t: read from the start, the middle or the end (last GiB, or third) of the data"),
	OPT_INT("seed", 0, struct disk_opts, seed, 0, INT64_MAX, "N",
		"seed of random offsets and piece order (default 1)"),
	OPT_INT("read-pct", 0, struct disk_opts, read_pct, 0, 100, "N", "mixed: share of reads, percent (default 50)"),
	OPT_FLAG("write-ok", 0, struct disk_opts, write_ok, "allow writing to an existing file TARGET"),
	OPT_FLAG("destructive", 0, struct disk_opts, destructive,
		 "allow writing to block device TARGET (never to a mounted one)"),
	/* fio's spellings that are not an engpass option's alias. */
	OPT_SAME(0, "time", "fio's --runtime", .alias = "runtime"),
	OPT_POS("filename", 0, "TARGET", "fio's --filename: the TARGET argument"),
	OPT_REFUSED("numjobs", 0, "engpass disk runs one job; more I/Os in flight with --qd N (fio's --iodepth)"),
	OPT_END,
};

static void disk_defaults(void *p)
{
	struct disk_opts *o = p;

	o->workload = WL_NONE;
	o->qd = 1;
	o->engine = ENGINE_AUTO;
	o->prealloc = PREALLOC_DEFAULT;
	o->readahead_kb = -1;
	o->nr_requests = o->max_sectors_kb = -1;
	o->cache = UINT64_MAX;
	o->seed = 1;
	o->read_pct = -1;
	o->offset = UINT64_MAX;
	o->t_region = DISK_REGION_NONE;
}

/* Formats a usage error into ERR; returns -EINVAL. */
PRINTF_LIKE(3, 4)
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* --fs and --mount-options: root, a file system this box can make and mount, options mount(2) takes. */
static int check_fs_options(struct disk_opts *o, char *err, size_t errlen)
{
	char what[64];
	int r;

	if (!o->fs) {
		if (o->mount_options)
			return bad(err, errlen, "'--mount-options' applies to --fs (a scratch file system engpass mounts)");
		return 0;
	}
	if (geteuid() != 0)
		return bad(err, errlen, "'--fs' needs root: it attaches a loop device and mounts a file system");
	if ((r = disk_fs_check(o->fs, err, errlen)) < 0)
		return r;
	r = disk_mount_opts_parse(o->mount_options, &o->mopts, what, sizeof(what));
	if (r == -E2BIG)
		return bad(err, errlen, "option '--mount-options': '%.60s...' is too long", o->mount_options);
	if (r < 0)
		return bad(err, errlen, "option '--mount-options': '%s' is %s", what,
			   !strcmp(what, "ro") ? "refused: the steps write their files" :
			   !strcmp(what, "(empty)") ? "an empty option" : "an operation of mount(8), not a mount option");
	return 0;
}

/* Option combinations that do not depend on the target. */
static int check_options(struct disk_opts *o, char *err, size_t errlen)
{
	bool wl = o->workload != WL_NONE, torrent = o->workload == WL_TORRENT;

	if (o->direct && o->buffered)
		return bad(err, errlen, "'--direct' and '--buffered' exclude each other");
	if (!o->cached && !o->device && !wl) {
		/* hdparm -tT is the classic question. */
		o->cached = o->device = true;
	}
	o->nsteps = 0;
	if (o->cached)
		o->steps[o->nsteps++] = STEP_CACHED;
	if (o->device)
		o->steps[o->nsteps++] = STEP_DEVICE;
	if (wl)
		o->steps[o->nsteps++] = STEP_WORKLOAD;

	if (!wl) {
		if (o->bs || o->qd != 1 || o->engine != ENGINE_AUTO || o->rate > 0 || o->sync ||
		    o->prealloc != PREALLOC_DEFAULT)
			return bad(err, errlen, "'--bs', '--qd', '--engine', '--rate', '--sync' and '--prealloc' "
				   "apply to --workload; -T and -t use hdparm's fixed 2 MiB reads");
	}
	if (!torrent && (o->piece || o->interleave || o->cache != UINT64_MAX || o->verify))
		return bad(err, errlen, "'--piece', '--interleave', '--cache' and '--verify-pieces' apply to --workload torrent");
	if (o->workload != WL_MIXED && o->read_pct >= 0)
		return bad(err, errlen, "'--read-pct' applies to --workload mixed");
	if (torrent && o->bs)
		return bad(err, errlen, "'--bs' does not apply to torrent: its blocks are 16 KiB, as Transmission's");
	if (torrent && (o->qd != 1 || o->engine != ENGINE_AUTO))
		return bad(err, errlen, "'--qd' and '--engine' do not apply to torrent: it writes with pwrite as Transmission does");

	o->writes = o->workload == WL_SEQ_WRITE || o->workload == WL_RAND_WRITE || o->workload == WL_MIXED || torrent;
	if (!o->bs)
		o->bs = o->workload == WL_SEQ_READ || o->workload == WL_SEQ_WRITE ? DISK_MIB : 4096;
	if (torrent)
		o->bs = TORRENT_BLOCK;
	if (!o->piece)
		o->piece = DISK_MIB;
	if (!o->interleave)
		o->interleave = 4;
	if (o->cache == UINT64_MAX)
		o->cache = 0;
	if (o->read_pct < 0)
		o->read_pct = 50;
	if (o->piece % TORRENT_BLOCK)
		return bad(err, errlen, "'--piece' must be a multiple of 16 KiB, the block size");
	if (o->cache % TORRENT_BLOCK)
		return bad(err, errlen, "'--cache' must be a multiple of 16 KiB, the block size");

	if (o->sync) {
		if (disk_sync_parse(o->sync, &o->sync_mode, &o->sync_every))
			return bad(err, errlen, "option '--sync': '%s' is not none, end, fdatasync=N, fsync=N, osync or odsync",
				   o->sync);
		if (!o->writes && o->sync_mode != DISK_SYNC_NONE)
			return bad(err, errlen, "'--sync' applies to workloads that write");
	} else {
		o->sync_mode = o->writes ? DISK_SYNC_END : DISK_SYNC_NONE;
		o->sync_every = 0;
	}
	o->use_direct = o->direct || (!o->buffered && !torrent);
	if (o->use_direct && o->bs % 512)
		return bad(err, errlen, "'--bs' %llu is not a multiple of 512 bytes, which O_DIRECT needs (or use --buffered)",
			   (unsigned long long)o->bs);
	if (o->size && torrent && o->size % TORRENT_BLOCK)
		return bad(err, errlen, "'--size' must be a multiple of 16 KiB for torrent");
	if (o->scheduler && (!o->scheduler[0] || strchr(o->scheduler, ' ') || strlen(o->scheduler) >= BLKDEV_NAME_MAX))
		return bad(err, errlen, "option '--scheduler': '%s' is not a scheduler name", o->scheduler);
	if ((o->offset != UINT64_MAX || o->t_region != DISK_REGION_NONE) && !o->device)
		return bad(err, errlen, "'--offset' and '--region' are for -t");
	if (o->offset != UINT64_MAX && o->t_region != DISK_REGION_NONE)
		return bad(err, errlen, "'--offset' and '--region' exclude each other");
	if (o->offset != UINT64_MAX && o->offset % DISK_ALIGN)
		return bad(err, errlen, "option '--offset': %llu is not a multiple of 4 KiB", (unsigned long long)o->offset);
	return check_fs_options(o, err, errlen);
}

/* --readahead and --scheduler: root, a block device, a scheduler it offers. */
static int check_tuning(struct disk_opts *o, char *err, size_t errlen)
{
	const struct disk_target *t = &o->tgt;
	char path[PATH_MAX + 32];

	if (o->readahead_kb < 0 && !o->scheduler)
		return 0;
	if (!t->have_dev)
		return bad(err, errlen, "'--readahead' and '--scheduler' need a target on a block device; '%s' has none (%s)",
			   t->path, t->have_mount ? t->mnt.fs_type : strerror(-t->dev_err));
	if (geteuid() != 0)
		return bad(err, errlen, "'--readahead' and '--scheduler' need root: they write %s/queue/",
			   t->dev.disk_dir);
	snprintf(path, sizeof(path), "%s/queue/%s", t->dev.disk_dir, o->scheduler ? "scheduler" : "read_ahead_kb");
	if (access(path, W_OK))
		return bad(err, errlen, "cannot change '%s': %s", path, strerror(errno));
	if (o->scheduler && !blkdev_offers(t->dev.schedulers, o->scheduler))
		return bad(err, errlen, "option '--scheduler': %s offers '%s', not '%s'", t->dev.disk,
			   t->dev.schedulers, o->scheduler);
	return 0;
}

/*
 * --fs: TARGET is a directory with room for the image; the image is sized
 * from what the steps need (the workload's --size, a data file) plus the
 * file system's headroom. The queue tuning is checked on the loop device
 * in setup, once it exists.
 */
static int check_fs_target(struct disk_opts *o, char *err, size_t errlen)
{
	struct disk_target *t = &o->tgt;
	uint64_t image;
	char a[32], b[32];

	if (t->kind != DISK_DIR)
		return bad(err, errlen, "'--fs' needs a directory TARGET to hold the image; '%s' is not one", t->path);
	o->fs_dir = t->path;
	o->fs_need = o->data_size;
	if (o->workload == WL_SEQ_WRITE || o->workload == WL_RAND_WRITE || o->workload == WL_TORRENT)
		o->fs_need += o->region;
	image = disk_fs_image_size(o->fs_need);
	if (image + image / 32 > t->free_bytes)
		return bad(err, errlen, "not enough free space in '%s' for a %s image: %s available", t->path,
			   disk_fmt_bytes(a, sizeof(a), image), disk_fmt_bytes(b, sizeof(b), t->free_bytes));
	return 0;
}

/* -t --offset: inside the data, with 2 MiB to read. */
static int check_offset(const struct disk_opts *o, char *err, size_t errlen)
{
	uint64_t size = o->tgt.kind == DISK_DIR ? o->data_size : o->size && o->size < o->tgt.size ? o->size : o->tgt.size;
	uint64_t off;
	char a[32];

	size -= size % DISK_HDPARM_BUF;
	if (o->device && o->offset != UINT64_MAX &&
	    disk_region_offset(size, o->t_region, o->offset, DISK_ALIGN, DISK_HDPARM_BUF, &off) < 0)
		return bad(err, errlen, "option '--offset': %llu leaves less than 2 MiB to read of the %s of data",
			   (unsigned long long)o->offset, disk_fmt_bytes(a, sizeof(a), size));
	return 0;
}

static int disk_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct disk_opts *o = p;
	int r;

	o->data = &o->data_store;
	o->size_given = o->size != 0;
	if (env->npos > 1)
		return bad(err, errlen, "unexpected argument '%s' (one TARGET at most)", env->pos[1]);
	if ((r = check_options(o, err, errlen)))
		return r;
	if (o->settle_ns && !o->cached && !o->device)
		return bad(err, errlen, "option '--settle' is for -T and -t");
	if ((r = disk_target_check(o, env->npos ? env->pos[0] : ".", err, errlen)))
		return r;
	if ((r = check_offset(o, err, errlen)))
		return r;
	if (o->fs)
		return check_fs_target(o, err, errlen);
	if ((r = check_tuning(o, err, errlen)))
		return r;
	return disk_queue_check(o, err, errlen);
}

static size_t disk_nsteps(const void *p)
{
	const struct disk_opts *o = p;

	return o->nsteps;
}

static const char *kind_name(enum disk_kind k)
{
	switch (k) {
	case DISK_DIR: return "directory";
	case DISK_FILE: return "file";
	case DISK_BLKDEV: return "block device";
	}
	return "?";
}

/* Sets --readahead and --scheduler for the step; 0 or -errno (result failed). */
static int tune(const struct disk_opts *o, struct blkdev_tune *t, struct result *res)
{
	int r;

	if (o->readahead_kb >= 0 && (r = blkdev_tune_readahead(t, o->readahead_kb)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot set read_ahead_kb of %s to %lld: %s", o->tgt.dev.disk,
				  (long long)o->readahead_kb, strerror(-r));
		return r;
	}
	if (o->scheduler && (r = blkdev_tune_scheduler(t, o->scheduler)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot set the scheduler of %s to '%s': %s", o->tgt.dev.disk,
				  o->scheduler, strerror(-r));
		return r;
	}
	if (t->ra_set) {
		char now[32];

		result_method(res, "tuning_read_ahead_kb", "%lld for this step (was %lld, restored afterwards)",
			      (long long)o->readahead_kb, (long long)t->ra_old);
		if (blkdev_queue_get(&o->tgt.dev, "read_ahead_kb", now, sizeof(now)) == 0 &&
		    strtoll(now, NULL, 10) != o->readahead_kb)
			result_note(res, "the kernel made --readahead %lld into %s KiB (whole pages)",
				    (long long)o->readahead_kb, now);
	}
	if (t->sched_set)
		result_method(res, "tuning_scheduler", "%s for this step (was %s, restored afterwards)", o->scheduler,
			      t->sched_old);
	return 0;
}

/*
 * --fs: reaps what killed runs left in the directory, makes the scratch
 * file system and points the target at its mount (the sampler and the
 * device view follow the loop device); then the target and the queue
 * tuning are checked again, against the new file system.
 */
static int disk_setup(void *p, const struct bench_env *env, struct result *res)
{
	struct disk_opts *o = p;
	char err[512], reaped[sizeof(o->fsst.reaped)];
	int r;

	if (!o->fs)
		return 0;
	result_set_step(res, "scratch %s", o->fs);
	if (disk_fs_reap(o->fs_dir, reaped, sizeof(reaped)) < 0)
		reaped[0] = 0;
	r = disk_fs_setup(&o->fsst, o->fs_dir, o->fs, &o->mopts, disk_fs_image_size(o->fs_need), env->stop, err,
			  sizeof(err));
	snprintf(o->fsst.reaped, sizeof(o->fsst.reaped), "%s", reaped);
	if (r < 0) {
		result_set_status(res, RESULT_FAILED, "%s", err);
		return r;
	}
	/* The steps run in the mount, with the same sizes as checked. */
	if (!o->size)
		o->size = o->region;
	if ((r = disk_target_check(o, o->fsst.mnt, err, sizeof(err))) < 0 ||
	    (r = check_tuning(o, err, sizeof(err))) < 0 || (r = disk_queue_check(o, err, sizeof(err))) < 0) {
		result_set_status(res, RESULT_FAILED, "in the scratch %s file system: %s", o->fs, err);
		return r;
	}
	return 0;
}

/* --fs: unmounts, detaches and removes the scratch file system, whatever happened. */
static void disk_teardown(void *p, const struct bench_env *env, struct result *res)
{
	struct disk_opts *o = p;
	char err[512];

	(void)env;
	if (!o->fs)
		return;
	if (disk_fs_teardown(&o->fsst, err, sizeof(err)) < 0) {
		result_note(res, "the scratch file system was not removed: %s; the next 'engpass disk %s --fs ...' "
			    "reaps it", err, o->fs_dir);
		if (res->status == RESULT_OK)
			result_set_status(res, RESULT_FAILED, "could not remove the scratch file system: %s", err);
	}
}

static const char *disk_device_path(const void *p)
{
	const struct disk_opts *o = p;

	return o->fsst.active ? o->fsst.mnt : NULL;
}

/* --fs: the scratch file system in the parameters and the method. */
static void report_fs(const struct disk_opts *o, struct result *res)
{
	const struct disk_fs *f = &o->fsst;
	char sz[32];

	result_param(res, "fs", "%s", o->fs);
	result_param(res, "mount_options", "%s", o->mopts.text);
	result_param(res, "image_size", "%s", disk_fmt_bytes(sz, sizeof(sz), f->image_size));
	result_param(res, "loop_device", "%s", f->loop_dev);
	result_method(res, "scratch_fs", "a %s image '%s' (sparse) in '%s', attached to %s (%s), made with '%s', "
		      "mounted at '%s' with mount(2) flags 0x%lx and data '%s' (--mount-options %s); unmounted, "
		      "detached and removed after the run", sz, f->img, o->fs_dir, f->loop_dev, f->attach_how,
		      f->mkfs_cmd, f->mnt, o->mopts.flags, o->mopts.data, o->mopts.text);
	result_method(res, "scratch_device", "the device figures and the sampled disk are %s's: its requests are what "
		      "a USB stick or SD card would receive from this file system", f->loop_dev + 5);
	if (f->reaped[0])
		result_note(res, "removed the scratch file systems that killed engpass runs (process %s) left in '%s'",
			    f->reaped, o->fs_dir);
}

static void disk_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct disk_opts *o = p;
	enum disk_step step = o->steps[env->step];
	struct blkdev_tune t = BLKDEV_TUNE_INIT(&o->tgt.dev);
	struct disk_queue *q = xcalloc(1, sizeof(*q));
	const char *name = step == STEP_CACHED ? "cached" : step == STEP_DEVICE ? "device"
										: disk_workload_name(o->workload);
	int r;

	result_set_step(res, "%s", name);
	result_param(res, "target", "%s", o->fs ? o->fs_dir : o->tgt.path);
	result_param(res, "target_kind", "%s", kind_name(o->tgt.kind));
	if (o->fs)
		report_fs(o, res);
	if (disk_queue_guard(o, q, res) == 0 && tune(o, &t, res) == 0 && disk_queue_set(o, q, res) == 0) {
		disk_report_settings(res, o);
		switch (step) {
		case STEP_CACHED:
			disk_step_cached(env, o, res);
			break;
		case STEP_DEVICE:
			disk_step_device(env, o, res);
			break;
		case STEP_WORKLOAD:
			if (o->workload == WL_TORRENT)
				disk_step_torrent(env, o, res);
			else
				disk_step_io(env, o, res);
			break;
		}
		disk_report_setting(res, o, step);
	}
	if ((r = blkdev_tune_restore(&t)) < 0) {
		result_note(res, "could not restore the queue settings of %s: %s; check %s/queue/", o->tgt.dev.disk,
			    strerror(-r), o->tgt.dev.disk_dir);
		if (res->status == RESULT_OK)
			result_set_status(res, RESULT_FAILED, "could not restore the queue settings of %s: %s",
					  o->tgt.dev.disk, strerror(-r));
	}
	disk_queue_restore(o, q, r >= 0, res);
	free(q);
}

/*
 * --verify: what a probe of the step changes (docs/verdict.md "Checking
 * the verdict"): the device's latency with twice the requests in flight,
 * its own --rate with none. hdparm's -T/-t and the torrent pattern have
 * their request pattern as their method.
 */
static int disk_relax(const void *p, void *probe, const char *resource, const struct result *res,
		      const struct bench_env *env, struct bench_relax *out)
{
	const struct disk_opts *o = p;
	struct disk_opts *q = probe;
	enum disk_step step = o->steps[env->step];

	(void)res;
	if (step != STEP_WORKLOAD || o->workload == WL_TORRENT) {
		snprintf(out->why, sizeof(out->why), "%s: its request pattern is the method (%s)",
			 step == STEP_CACHED ? "-T re-reads the page cache" : step == STEP_DEVICE
			 ? "-t reads 2 MiB at a time, as hdparm" : "the torrent pattern writes as Transmission does",
			 step == STEP_WORKLOAD ? "one pwrite at a time" : "one request in flight");
		return 0;
	}
	if (!strcmp(resource, "device latency") || !strcmp(resource, "device")) {
		if (o->engine == ENGINE_PSYNC) {
			snprintf(out->why, sizeof(out->why), "--engine psync keeps one request in flight");
			return 0;
		}
		if (2 * o->qd > 4096) {
			snprintf(out->why, sizeof(out->why), "already %lld requests in flight, the most --qd takes",
				 (long long)o->qd);
			return 0;
		}
		q->qd = 2 * o->qd;
		snprintf(out->what, sizeof(out->what), "queue depth %lld", (long long)q->qd);
		snprintf(out->params, sizeof(out->params), "--qd %lld", (long long)q->qd);
		return 1;
	}
	if (!strcmp(resource, "own pacing") && o->rate > 0) {
		q->rate = 0;
		snprintf(out->what, sizeof(out->what), "no --rate");
		snprintf(out->params, sizeof(out->params), "without --rate");
		return 1;
	}
	snprintf(out->why, sizeof(out->why), "disk has no probe for %s", resource);
	return 0;
}

extern const struct bench_quick disk_quick;	/* disk_quick.c */

const struct bench bench_disk = {
	.name = "disk",
	.summary = "storage: hdparm -T/-t, seq/rand/mixed workloads, the torrent write pattern",
	.usage = "[TARGET] [options]",
	.description =
		"TARGET is a directory (default: the current one; engpass creates its own temp file\n"
		"there and removes it), an existing file (read-only unless --write-ok) or a block\n"
		"device (read-only unless --destructive; never written while mounted).\n"
		"Without -T, -t or --workload it runs -T and -t, like 'hdparm -tT'. -T is a\n"
		"memory-copy figure (page cache to user space), not a disk figure. Every result\n"
		"gives MB/s, IOPS, completion latency, CPU per I/O, the device's own view from\n"
		"/proc/diskstats (requests, merges, write amplification), the queue depth reached,\n"
		"the queue settings and mount options in force, and the verdict. docs/disk.md\n"
		"has the method of every figure.\n"
		"--fs TYPE (root) runs the steps in a scratch file system on a loop image inside\n"
		"the directory TARGET, mounted with --mount-options; the loop device stands for a\n"
		"USB stick or SD card. It is removed afterwards, also on errors and Ctrl-C; one\n"
		"left by a killed run (names carry its process id) is reaped by the next --fs run\n"
		"in that directory. -t --offset/--region time another part of the data.",
	.flags = BENCH_BLOCKDEV | BENCH_DESTRUCTIVE,
	.opts = disk_options,
	.opts_size = sizeof(struct disk_opts),
	.defaults = disk_defaults,
	.check = disk_check,
	.nsteps = disk_nsteps,
	.setup = disk_setup,
	.teardown = disk_teardown,
	.device_path = disk_device_path,
	.run = disk_run,
	.relax = disk_relax,
	.quick = &disk_quick,
};
