/* SPDX-License-Identifier: MIT */
/*
 * hdparm's two timings (seed 001, research storage-anchors.md section 1),
 * with the method named next to the figure:
 *
 * -T, "cached reads": the same 2 MiB at offset 0 read again and again
 * from the page cache for 2 s. hdparm's man page calls it "essentially an
 * indication of the throughput of the processor, cache, and memory"; the
 * result says so: it is a memory-copy figure, not a disk one.
 *
 * -t, "disk reads": sequential 2 MiB reads from offset 0 for 3 s, or until
 * the data ends (hdparm stops there too). O_DIRECT by default, so the page
 * cache is out of the way; --buffered is hdparm's own method: buffered
 * reads after sync + BLKFLSBUF on a device, and fdatasync + fadvise
 * DONTNEED on a file (which hdparm cannot take, but fio and ioping do).
 *
 * Differences from hdparm, on purpose: no 3 s settling sleep unless
 * --settle asks for one (hdparm's sync + sleep(3) before each timing: on
 * the development VM an idle pause before reading cost -t 20-50 % of its
 * figure, the reason engpass -t read up to 2x faster than hdparm -t), no mlock;
 * pread() at an explicit offset instead of lseek()+read(); each read timed
 * with CLOCK_MONOTONIC (two clock reads, tens of ns, against a 2 MiB copy
 * of 100 us or more), so there is no loop-overhead correction as hdparm's
 * -T does with its getitimer() loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/disk/disk_common.h"
#include "lib/xalloc.h"

#define CACHED_TIME_NS (2 * NS_PER_SEC)
#define DEVICE_TIME_NS (3 * NS_PER_SEC)

/* --settle: hdparm's sync() and pause before a timing, named in the method. */
static void settle(const struct bench_env *env, const struct disk_opts *o, struct result *res)
{
	mono_ns until;

	if (!o->settle_ns)
		return;
	sync();
	until = clock_mono() + o->settle_ns;
	while (clock_mono() < until && !*env->stop)
		if (clock_sleep_until(until) < 0 && *env->stop)
			break;
	result_method(res, "settle", "sync() and %.3g s idle before timing (--settle; hdparm sleeps 3 s)",
		      (double)o->settle_ns / 1e9);
}

/* The 2 MiB aligned buffer, zeroed; caller frees. */
static void *hdparm_buf(void)
{
	void *buf = xaligned_alloc(DISK_ALIGN, DISK_HDPARM_BUF);

	memset(buf, 0, DISK_HDPARM_BUF);
	return buf;
}

/*
 * One 2 MiB pread at OFF, retried on EINTR unless stopping; bytes or
 * -errno. Then, as hdparm's read_big_block(), one read-modify-write of every
 * 512th byte of the buffer ("to ensure the read fully completed"): inside
 * the timed loop, it is part of hdparm's figure (about 5-10 % of -T's on
 * the development VM).
 */
static ssize_t read_block(const struct bench_env *env, int fd, void *buf, uint64_t off)
{
	for (;;) {
		ssize_t n = pread(fd, buf, DISK_HDPARM_BUF, (off_t)off);

		if (n >= 0) {
			volatile unsigned char *p = buf;

			for (ssize_t i = 0; i < n; i += 512)
				p[i] &= 1;
			return n;
		}
		if (errno != EINTR || *env->stop)
			return -errno;
	}
}

static void report(struct result *res, const struct disk_opts *o, const struct disk_meas *m, uint64_t reads,
		   uint64_t bytes, const struct hist *h, const char *what)
{
	double s = elapsed_s(m->t0, m->t1);

	result_metric(res, "read", UNIT_BYTES_PER_S, s > 0 ? (double)bytes / s : NAN, what);
	result_headline(res, "read");
	result_metric(res, "read_io", UNIT_PER_S, s > 0 ? (double)reads / s : NAN, "2 MiB reads per second");
	result_metric(res, "read_total", UNIT_BYTES, (double)bytes, "bytes read");
	result_metric(res, "ios", UNIT_COUNT, (double)reads, "2 MiB reads");
	result_metric(res, "measured", UNIT_SECONDS, s, "time measured");
	disk_report_lat(res, "lat", h, "2 MiB read");
	disk_report_cpu(res, m, reads);
	disk_report_device(res, o, m, 0);
	result_metric(res, "qd_asked", UNIT_COUNT, 1, "queue depth asked");
	result_metric(res, "qd_max", UNIT_COUNT, reads ? 1 : 0, "queue depth reached (max)");
}

void disk_step_cached(const struct bench_env *env, const struct disk_opts *o, struct result *res)
{
	uint64_t time_ns = env->time_ns ? env->time_ns : CACHED_TIME_NS, size, reads = 0, bytes = 0;
	struct disk_meas m;
	struct hist h;
	mono_ns end, now, last = 0;
	bool direct;
	void *buf;
	ssize_t n;
	int fd;

	result_param(res, "block_size", "2 MiB");
	result_param(res, "time", "%.3f s", (double)time_ns / 1e9);
	result_method(res, "what", "memory-copy figure, not a disk figure: the same 2 MiB at offset 0 re-read with "
		      "pread() from the page cache and every 512th byte touched, as hdparm -T; it measures CPU, "
		      "cache and memory bandwidth (copy_to_user) plus the system call");
	result_method(res, "cache", "page cache, primed by one read before timing%s",
		      o->direct ? " (--direct does not apply to -T)" : "");
	result_method(res, "latency", "per 2 MiB read: CLOCK_MONOTONIC before and after pread() (the whole call); "
		      "no loop-overhead correction (two clock reads against a 2 MiB copy)");
	buf = hdparm_buf();
	fd = disk_open_data(env, o, res, false, &direct, &size);
	if (fd < 0) {
		free(buf);
		return;
	}
	n = read_block(env, fd, buf, 0);
	if (n < (ssize_t)DISK_HDPARM_BUF) {
		if (n < 0)
			disk_fail_errno(res, (int)n, "priming the page cache");
		else
			result_set_status(res, RESULT_FAILED, "'%s' holds less than 2 MiB", o->tgt.path);
		close(fd);
		free(buf);
		return;
	}
	hist_init(&h);
	settle(env, o, res);
	disk_meas_begin(o, &m);
	end = m.t0 + time_ns;
	now = m.t0;
	while (now < end && !*env->stop) {
		mono_ns t0 = clock_mono();

		n = read_block(env, fd, buf, 0);
		now = clock_mono();
		if (n < 0) {
			if (*env->stop)
				break;
			disk_fail_errno(res, (int)n, "re-reading the cached block");
			result_set_incomplete(res);
			break;
		}
		hist_record(&h, now - t0);
		reads++;
		bytes += (uint64_t)n;
		disk_progress(env, now, m.t0, now - m.t0, time_ns, bytes, &last);
	}
	disk_meas_end(o, &m);
	report(res, o, &m, reads, bytes, &h, "cached read (memory copy)");
	close(fd);
	free(buf);
}

/* How -t's start was chosen, for the method ("" from 0 or --offset). */
static const char *region_why(const struct disk_opts *o)
{
	switch (o->t_region) {
	case DISK_REGION_START:
		return " (--region start)";
	case DISK_REGION_MIDDLE:
		return " (--region middle: the midpoint)";
	case DISK_REGION_END:
		return " (--region end: the last GiB, or the last third of smaller data)";
	}
	return o->offset != UINT64_MAX ? " (--offset)" : "";
}

/*
 * -t read all the data in S seconds, before the TIME_NS asked: the data
 * is too small for a timing that long; says so, with the size that would
 * have lasted at the rate measured.
 */
static void note_too_small(struct result *res, const struct disk_opts *o, uint64_t bytes, double s, uint64_t time_ns)
{
	char a[32], b[32];
	double want = s > 0 ? (double)bytes / s * ((double)time_ns / 1e9) : 0;

	disk_fmt_bytes(a, sizeof(a), bytes);
	units_fmt_size(b, sizeof(b), want, 0);
	result_note(res, "reached the end of the data: it is too small for a %.3g s timing, its %s were read in "
		    "%.3f s (hdparm stops at the end too); %.3g s at this rate would need about %s%s", (double)time_ns / 1e9, a, s,
		    (double)time_ns / 1e9, b, o->tgt.kind == DISK_DIR && o->data->cut ?
		    " (the data file holds what its fill's allowance wrote on this device)" :
		    o->tgt.kind == DISK_DIR ? " (give --size)" :
		    o->offset != UINT64_MAX || o->t_region != DISK_REGION_NONE ? " (start earlier)" : " (a larger file or device)");
}

void disk_step_device(const struct bench_env *env, const struct disk_opts *o, struct result *res)
{
	uint64_t time_ns = env->time_ns ? env->time_ns : DEVICE_TIME_NS;
	uint64_t size, limit, start, off, reads = 0, bytes = 0;
	struct disk_meas m;
	struct hist h;
	mono_ns end, now, last = 0;
	bool direct, ended = false;
	char a[32], b[32];
	void *buf;
	int fd;

	result_param(res, "block_size", "2 MiB");
	result_param(res, "time", "%.3f s", (double)time_ns / 1e9);
	result_param(res, "direct", "%s", o->use_direct ? "yes" : "no");
	buf = hdparm_buf();
	fd = disk_open_data(env, o, res, o->use_direct, &direct, &size);
	if (fd < 0) {
		free(buf);
		return;
	}
	limit = o->tgt.kind != DISK_DIR && o->size && o->size < size ? o->size : size;
	limit -= limit % DISK_HDPARM_BUF;
	if (disk_region_offset(limit, o->t_region, o->offset, o->offset != UINT64_MAX ? DISK_ALIGN : DISK_HDPARM_BUF,
			       DISK_HDPARM_BUF, &start) < 0) {
		result_set_status(res, RESULT_FAILED, "--offset %llu leaves less than 2 MiB of the %s of data",
				  (unsigned long long)o->offset, disk_fmt_bytes(a, sizeof(a), limit));
		close(fd);
		free(buf);
		return;
	}
	off = start;
	result_param(res, "offset", "%s", disk_fmt_bytes(a, sizeof(a), start));
	if (o->t_region != DISK_REGION_NONE)
		result_param(res, "region", "%s", o->t_region == DISK_REGION_START ? "start" :
			     o->t_region == DISK_REGION_MIDDLE ? "middle" : "end");
	result_method(res, "what", "sequential 2 MiB reads from offset %s%s with pread(), one at a time (queue depth "
		      "1), every 512th byte touched after each, for %.3f s or to the end of the %s of data, as hdparm -t",
		      a, region_why(o), (double)time_ns / 1e9, disk_fmt_bytes(b, sizeof(b), limit));
	if (direct) {
		result_method(res, "cache", "O_DIRECT: reads bypass the page cache (the block layer may split each "
			      "2 MiB read by max_sectors_kb)");
		if (o->tgt.have_dev && !strncmp(o->tgt.dev.name, "loop", 4))
			result_note(res, "%s is a loop device: its backing file '%s' may be in the page cache, so "
				    "the figure can be memory speed", o->tgt.dev.name, o->tgt.dev.loop_backing);
	} else {
		disk_drop_cache(o, fd, res);
		if (o->tgt.have_dev)
			result_method(res, "readahead", "buffered reads: read_ahead_kb of %s shapes the device requests",
				      o->tgt.dev.disk);
	}
	result_method(res, "latency", "per 2 MiB read: CLOCK_MONOTONIC before and after pread() (submit to "
		      "complete of a synchronous read)");
	result_note(res, "a virtual machine's host may cache the disk image: figures can exceed the physical device");
	hist_init(&h);
	settle(env, o, res);
	disk_meas_begin(o, &m);
	end = m.t0 + time_ns;
	now = m.t0;
	while (now < end && !*env->stop) {
		mono_ns t0;
		ssize_t n;

		if (off + DISK_HDPARM_BUF > limit) {
			ended = true;
			break;
		}
		t0 = clock_mono();
		n = read_block(env, fd, buf, off);
		now = clock_mono();
		if (n < 0) {
			if (*env->stop)
				break;
			disk_fail_errno(res, (int)n, "reading");
			result_set_incomplete(res);
			break;
		}
		hist_record(&h, now - t0);
		reads++;
		bytes += (uint64_t)n;
		off += (uint64_t)n;
		if (n < (ssize_t)DISK_HDPARM_BUF) {
			ended = true;
			break;
		}
		disk_progress(env, now, m.t0, now - m.t0, time_ns, bytes, &last);
	}
	disk_meas_end(o, &m);
	if (ended)
		note_too_small(res, o, bytes, elapsed_s(m.t0, m.t1), time_ns);
	report(res, o, &m, reads, bytes, &h, direct ? "device read (O_DIRECT)" : "device read (buffered)");
	close(fd);
	free(buf);
}
