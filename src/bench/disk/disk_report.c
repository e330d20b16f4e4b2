/* SPDX-License-Identifier: MIT */
/*
 * Figures every disk step reports the same way: CPU time per I/O from
 * getrusage() deltas, the device's own view from /proc/diskstats deltas
 * (with write amplification), latency percentiles from the histogram,
 * and, in the method block, the device's queue settings and the mount
 * options in force.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/disk/disk_common.h"
#include "core/kernel/devlink.h"
#include "core/base/progress.h"

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS_PER_SEC + (uint64_t)tv->tv_usec * NS_PER_US;
}

static uint64_t delta_ns(const struct timeval *a, const struct timeval *b)
{
	uint64_t x = tv_ns(a), y = tv_ns(b);

	return y > x ? y - x : 0;
}

void disk_meas_begin(const struct disk_opts *o, struct disk_meas *m)
{
	memset(m, 0, sizeof(*m));
	m->have_ds = o->tgt.have_dev && blkdev_diskstats(NULL, &o->tgt.dev, &m->ds0) == 0;
	(void)getrusage(RUSAGE_SELF, &m->self0);
	(void)getrusage(RUSAGE_THREAD, &m->thr0);
	m->t0 = clock_mono();
}

void disk_meas_end(const struct disk_opts *o, struct disk_meas *m)
{
	m->t1 = clock_mono();
	(void)getrusage(RUSAGE_THREAD, &m->thr1);
	(void)getrusage(RUSAGE_SELF, &m->self1);
	if (m->have_ds)
		m->have_ds = blkdev_diskstats(NULL, &o->tgt.dev, &m->ds1) == 0;
}

static void lower(struct metric *m)
{
	m->higher_is_better = false;
}

void disk_report_cpu(struct result *res, const struct disk_meas *m, uint64_t ios)
{
	uint64_t usr = delta_ns(&m->thr0.ru_utime, &m->thr1.ru_utime);
	uint64_t sys = delta_ns(&m->thr0.ru_stime, &m->thr1.ru_stime);
	uint64_t proc = delta_ns(&m->self0.ru_utime, &m->self1.ru_utime) +
			delta_ns(&m->self0.ru_stime, &m->self1.ru_stime);
	double n = ios ? (double)ios : NAN;
	double wall = (double)elapsed_ns(m->t0, m->t1);

	lower(result_metric(res, "cpu_usr_per_io", UNIT_NS, (double)usr / n, "user CPU per I/O (thread)"));
	lower(result_metric(res, "cpu_sys_per_io", UNIT_NS, (double)sys / n, "system CPU per I/O (thread)"));
	lower(result_metric(res, "cpu_per_io", UNIT_NS, (double)(usr + sys) / n, "CPU per I/O (thread)"));
	lower(result_metric(res, "process_cpu_per_io", UNIT_NS, (double)proc / n, "CPU per I/O (whole process)"));
	result_metric(res, "thread_cpu", UNIT_PERCENT, wall > 0 ? 100.0 * (double)(usr + sys) / wall : NAN,
		      "measuring thread's CPU share of wall time");
	result_metric(res, "context_switches", UNIT_COUNT,
		      (double)((m->thr1.ru_nvcsw - m->thr0.ru_nvcsw) + (m->thr1.ru_nivcsw - m->thr0.ru_nivcsw)),
		      "context switches of the measuring thread");
	result_method(res, "cpu", "getrusage(RUSAGE_THREAD) deltas of the thread issuing the I/O, as fio reports "
		      "(io_uring workers and interrupts are not in it); process_cpu_per_io is RUSAGE_SELF and "
		      "includes the sampler thread");
}

void disk_report_device(struct result *res, const struct disk_opts *o, const struct disk_meas *m,
			uint64_t wl_written)
{
	struct proc_disk_rates r;
	double dt = elapsed_s(m->t0, m->t1);
	double wbytes;

	if (!o->tgt.have_dev) {
		result_note(res, "no device view: '%s' is on %s, which has no block device", o->tgt.path,
			    o->tgt.have_mount ? o->tgt.mnt.fs_type : "a file system");
		return;
	}
	if (!m->have_ds || proc_disk_delta(&m->ds0, &m->ds1, dt > 0 ? dt : 1e-9, &r) < 0) {
		result_note(res, "no device view: /proc/diskstats had no usable line for %s", o->tgt.dev.name);
		return;
	}
	wbytes = (double)r.d_wr_sectors * PROC_SECTOR_BYTES;
	result_metric(res, "device_read_requests", UNIT_COUNT, (double)r.d_rd_ios, "device: read requests");
	result_metric(res, "device_read_merges", UNIT_COUNT, (double)r.d_rd_merges, "device: reads merged");
	result_metric(res, "device_read", UNIT_BYTES, (double)r.d_rd_sectors * PROC_SECTOR_BYTES, "device: bytes read");
	result_metric(res, "device_write_requests", UNIT_COUNT, (double)r.d_wr_ios, "device: write requests");
	result_metric(res, "device_write_merges", UNIT_COUNT, (double)r.d_wr_merges, "device: writes merged");
	result_metric(res, "device_write", UNIT_BYTES, wbytes, "device: bytes written");
	if (m->ds0.fl_ios != PROC_NONE && m->ds1.fl_ios != PROC_NONE && m->ds1.fl_ios >= m->ds0.fl_ios)
		result_metric(res, "device_flush_requests", UNIT_COUNT, (double)(m->ds1.fl_ios - m->ds0.fl_ios),
			      "device: flush requests");
	result_metric(res, "device_avg_read_request", UNIT_BYTES, r.avg_rd_rq_bytes, "device: average read request");
	result_metric(res, "device_avg_write_request", UNIT_BYTES, r.avg_wr_rq_bytes,
		      "device: average write request");
	result_metric(res, "device_util", UNIT_PERCENT, r.util_pct, "device: %util (time busy)");
	result_metric(res, "device_queue_size", UNIT_COUNT, r.aqu_sz, "device: average requests in flight");
	if (wl_written) {
		lower(result_metric(res, "write_amplification", UNIT_RATIO, wbytes / (double)wl_written,
				    "write amplification (device bytes / workload bytes)"));
	}
	result_method(res, "device_view", "/proc/diskstats deltas of %s over the measured %.3f s; they count every "
		      "process's I/O to that device%s", o->tgt.dev.name, dt,
		      o->tgt.dev.partition ? " (a partition: its own counters)" : "");
}

void disk_report_lat(struct result *res, const char *prefix, const struct hist *h, const char *what)
{
	static const struct {
		const char *suffix, *label;
		double p;
	} ps[] = { { "p50", "p50", 50 },
		   { "p90", "p90", 90 },
		   { "p99", "p99", 99 },
		   { "p99_9", "p99.9", 99.9 },
		   { "max", "max", 100 } };
	char name[64], label[128];

	if (!hist_count(h))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(ps); i++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, ps[i].suffix);
		snprintf(label, sizeof(label), "%s %s", what, ps[i].label);
		lower(result_metric(res, name, UNIT_NS, (double)hist_percentile(h, ps[i].p), label));
	}
	snprintf(name, sizeof(name), "%s_mean", prefix);
	snprintf(label, sizeof(label), "%s mean", what);
	lower(result_metric(res, name, UNIT_NS, hist_mean(h), label));
	result_hist(res, prefix, UNIT_NS, h);
}

/* The link DISK negotiated and what the device and its port support (core/kernel/devlink.h; docs/info.md). */
static void disk_report_link(struct result *res, const char *disk)
{
	struct devlink l;
	char text[1024];
	int r = devlink_read(NULL, disk, &l);

	if (r < 0) {
		result_method(res, "device link", "unknown: %s in sysfs: %s", disk, strerror(-r));
		return;
	}
	devlink_describe(&l, text, sizeof(text));
	result_method(res, "device link", "%s%s", devlink_below(&l) ? "BELOW CAPABILITY: " : "", text);
	if (devlink_below(&l)) {
		char cur[48], dev[48];

		devlink_rate_text(&l, &l.cur, cur, sizeof(cur));
		devlink_rate_text(&l, &l.dev, dev, sizeof(dev));
		result_note(res, "%s's link runs below its capability: %s negotiated, the device supports %s (%s; "
			    "method 'device link')", l.disk, cur, dev, devlink_cause_name(l.cause));
	}
}

void disk_report_settings(struct result *res, const struct disk_opts *o)
{
	const struct disk_target *t = &o->tgt;
	struct blkdev_info now;
	char sz[32];

	if (!t->have_dev || blkdev_from_devnum(NULL, t->dev.major, t->dev.minor, &now) < 0) {
		result_method(res, "device", "none: '%s' is on %s, which has no block device", t->path,
			      t->have_mount ? t->mnt.fs_type : "an unknown file system");
	} else {
		if (now.partition)
			result_method(res, "device", "%s, partition of %s, %s", now.name, now.disk,
				      now.size_bytes >= 0 ? disk_fmt_bytes(sz, sizeof(sz), (uint64_t)now.size_bytes) : "size unknown");
		else
			result_method(res, "device", "%s, %s%s%s", now.name,
				      now.size_bytes >= 0 ? disk_fmt_bytes(sz, sizeof(sz), (uint64_t)now.size_bytes) : "size unknown",
				      now.loop_backing[0] ? ", loop over " : "", now.loop_backing);
		result_method(res, "scheduler", "%s (offered: %s)", now.scheduler[0] ? now.scheduler : "unknown",
			      now.schedulers[0] ? now.schedulers : "unknown");
		result_method(res, "read_ahead_kb", "%lld", (long long)now.read_ahead_kb);
		result_method(res, "nr_requests", "%lld", (long long)now.nr_requests);
		result_method(res, "max_sectors_kb", "%lld", (long long)now.max_sectors_kb);
		result_method(res, "write_cache", "%s", now.write_cache[0] ? now.write_cache : "unknown");
		result_method(res, "rotational", "%s", now.rotational < 0 ? "unknown" : now.rotational ? "yes" : "no");
		disk_report_link(res, now.disk);
	}
	if (t->have_mount) {
		result_method(res, "mount", "%s type %s from %s", t->mnt.mount_point, t->mnt.fs_type, t->mnt.source);
		result_method(res, "mount_options", "%s", t->mnt.options);
		if (t->mnt.sync)
			result_note(res, "the file system is mounted sync: every write waits for the device, and small "
				    "writes become small device requests");
	}
}

/* Metric NAME of RES, NaN when it has none. */
static double metric_value(const struct result *res, const char *name)
{
	const struct metric *m = result_find_metric(res, name);

	return m ? m->value : NAN;
}

/* Whether parameter KEY of RES is VALUE. */
static bool param_is(const struct result *res, const char *key, const char *value)
{
	for (size_t i = 0; i < res->nparams; i++)
		if (!strcmp(res->params[i].key, key))
			return !strcmp(res->params[i].value, value);
	return false;
}

/* The setting found, as the "device setting" candidate (EVIDENCE, NEXT) and, with NOTE, a note. */
static void setting_found(struct result *res, const char *evidence, const char *next, bool note)
{
	if (note)
		result_note(res, "%s", evidence);
	result_verdict_candidate(res, "device setting", NAN, next, "%s", evidence);
}

/*
 * A device request below this (and an I/O split into DISK_SPLIT_MIN of
 * them or more) is what a request size setting costs: 256 KiB requests
 * run most devices near their sequential speed (the kernel's default
 * max_sectors_kb was 512 for years), 2 MiB split in two costs nothing.
 */
#define DISK_SPLIT_REQ (256 * 1024.0)
#define DISK_SPLIT_MIN 4.0

/*
 * A request size setting (max_sectors_kb, or read_ahead_kb for buffered
 * reads) of KB that split IO-byte I/Os into device requests averaging
 * AVG bytes (at most KB, each under DISK_SPLIT_REQ, DISK_SPLIT_MIN or
 * more an I/O); true when it did (found and said).
 */
static bool split_by(struct result *res, const struct blkdev_info *d, const char *attr, int64_t kb, uint64_t io,
		     double avg, const char *dir, const char *opt)
{
	char ev[256], nx[192], a[32], hw[32] = "";
	double lim = (double)kb * 1024;

	if (kb <= 0 || !(avg > 0) || (double)io <= lim || avg > lim * 1.05 || avg >= DISK_SPLIT_REQ ||
	    (double)io / avg < DISK_SPLIT_MIN)
		return false;
	if (!strcmp(attr, "max_sectors_kb") && blkdev_queue_get(d, "max_hw_sectors_kb", hw, sizeof(hw)) == 0 &&
	    atoll(hw) <= kb)
		return false;	/* the hardware's own limit: no setting to change */
	disk_fmt_bytes(a, sizeof(a), io);
	snprintf(ev, sizeof(ev), "%s is %lld on %s: each %s %s reached the device as about %.0f requests of %.0f KiB",
		 attr, (long long)kb, d->disk, a, dir, (double)io / avg, avg / 1024);
	if (hw[0])
		snprintf(nx, sizeof(nx), "raise %s of %s (now %lld, the device takes up to %s) or time it with %s", attr,
			 d->disk, (long long)kb, hw, opt);
	else
		snprintf(nx, sizeof(nx), "raise %s of %s (now %lld) or time larger values with %s", attr, d->disk,
			 (long long)kb, opt);
	setting_found(res, ev, nx, true);
	return true;
}

void disk_report_setting(struct result *res, const struct disk_opts *o, enum disk_step step)
{
	const struct disk_target *t = &o->tgt;
	bool writes = step == STEP_WORKLOAD && o->writes, reads = step != STEP_CACHED;
	bool direct = param_is(res, "direct", "yes");
	uint64_t io = step == STEP_DEVICE ? DISK_HDPARM_BUF : o->bs;
	double avg_rd = metric_value(res, "device_avg_read_request"), avg_wr = metric_value(res, "device_avg_write_request");
	struct blkdev_info d;
	char ev[256], nx[192];

	if (res->status != RESULT_OK || step == STEP_CACHED)
		return;
	if (writes && t->have_mount && t->mnt.sync) {
		snprintf(ev, sizeof(ev), "%.120s is mounted sync: each write waits until the device has it, and small writes "
			 "become small device requests", o->fs ? "the scratch file system" : t->mnt.mount_point);
		if (o->fs)
			snprintf(nx, sizeof(nx), "the sync mount sets the pace: mount without sync (--mount-options async) and "
				 "let the write cache batch the writes");
		else
			snprintf(nx, sizeof(nx), "the sync mount sets the pace: remount %.64s without sync (mount -o "
				 "remount,async) and let the write cache batch the writes", t->mnt.mount_point);
		/* disk_report_settings() noted the sync mount already. */
		setting_found(res, ev, nx, false);
		return;
	}
	if (!t->have_dev || blkdev_from_devnum(NULL, t->dev.major, t->dev.minor, &d) < 0)
		return;
	/* The torrent's writes reach the device through writeback: no I/O size of its own to compare. */
	if (step == STEP_WORKLOAD && o->workload == WL_TORRENT)
		io = 0;
	if (io && reads && split_by(res, &d, "max_sectors_kb", d.max_sectors_kb, io, avg_rd, "read", "--max-sectors"))
		return;
	if (io && writes && split_by(res, &d, "max_sectors_kb", d.max_sectors_kb, io, avg_wr, "write", "--max-sectors"))
		return;
	/*
	 * Buffered sequential reads smaller than a request reach the device
	 * in read_ahead_kb pieces (a large read() is read whole, whatever the
	 * readahead): one below the kernel's default of 128 KiB is named.
	 */
	if (reads && !direct && (step == STEP_DEVICE || o->workload == WL_SEQ_READ) && d.read_ahead_kb > 0 &&
	    d.read_ahead_kb < 128 && avg_rd > 0 && avg_rd <= (double)d.read_ahead_kb * 1024 * 1.05) {
		snprintf(ev, sizeof(ev), "read_ahead_kb is %lld on %s: buffered sequential reads reached the device as "
			 "requests of about %.0f KiB", (long long)d.read_ahead_kb, d.disk, avg_rd / 1024);
		snprintf(nx, sizeof(nx), "raise read_ahead_kb of %s (now %lld; 128 is the kernel's default) or time larger "
			 "values with --readahead", d.disk, (long long)d.read_ahead_kb);
		setting_found(res, ev, nx, true);
		return;
	}
	if (step == STEP_WORKLOAD && d.nr_requests > 0 && o->qd > d.nr_requests) {
		snprintf(ev, sizeof(ev), "nr_requests is %lld on %s, below the %lld requests in flight asked (--qd): the "
			 "rest wait in the kernel", (long long)d.nr_requests, d.disk, (long long)o->qd);
		snprintf(nx, sizeof(nx), "raise nr_requests of %s to %lld or more, or time it with --nr-requests", d.disk,
			 (long long)o->qd);
		setting_found(res, ev, nx, true);
		return;
	}
	if (writes && !strcmp(d.write_cache, "write through")) {
		snprintf(ev, sizeof(ev), "%s's write cache is write through: each write waits for the medium", d.disk);
		snprintf(nx, sizeof(nx), "a write-back cache would move it: --write-cache on times it (hdparm -W1 on the "
			 "drive; a power loss can lose what it holds)");
		setting_found(res, ev, nx, true);
	}
}

void disk_progress(const struct bench_env *env, mono_ns now, mono_ns start, uint64_t done, uint64_t total,
		   uint64_t bytes, mono_ns *last)
{
	char extra[48], r[32];
	double s;

	if (!env->progress->enabled || (*last && now - *last < PROGRESS_INTERVAL_NS))
		return;
	*last = now;
	s = elapsed_s(start, now);
	snprintf(extra, sizeof(extra), "%s/s", disk_fmt_bytes(r, sizeof(r), s > 0 ? (uint64_t)((double)bytes / s) : 0));
	progress_update(env->progress, now, done, total, extra);
}

void disk_report_pacing(struct result *res, double achieved, double rate, const char *what)
{
	char a[32], b[32], next[192];

	if (!(rate > 0) || !isfinite(achieved))
		return;
	snprintf(next, sizeof(next), "it ran at the --rate it was told (%s/s): a higher --rate, or none, would move it",
		 disk_fmt_bytes(b, sizeof(b), (uint64_t)rate));
	result_verdict_candidate(res, "own pacing", achieved / rate, next,
				 "%s/s %s with --rate %s/s: the token bucket %s", disk_fmt_bytes(a, sizeof(a), (uint64_t)achieved),
				 what, b, achieved >= 0.9 * rate ? "set the pace" : "was not reached");
}

void disk_report_total(struct result *res, double prealloc_s, double measured_s, uint64_t bytes)
{
	double total = prealloc_s + measured_s;

	if (!(prealloc_s > 0))
		return;
	lower(result_metric(res, "total_time", UNIT_SECONDS, total, "total time including preallocation"));
	result_metric(res, "write_with_prealloc", UNIT_BYTES_PER_S, total > 0 ? (double)bytes / total : NAN,
		      "write over the total time including preallocation");
}
