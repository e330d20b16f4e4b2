/* SPDX-License-Identifier: MIT */
/*
 * The fio-like workloads: seq-read, seq-write, rand-read, rand-write and
 * mixed (random offsets, --read-pct reads), one thread, --bs blocks, --qd
 * I/Os in flight, for --time (default 5 s), over a region of --size bytes
 * (sequential wraps around at its end).
 *
 * Engines. psync: one pread()/pwrite() at a time, so queue depth 1 whatever
 * --qd says (the result shows the depth reached). uring: liburing with a
 * ring of --qd entries. As fio's defaults do (iodepth_batch_submit=1,
 * iodepth_batch_complete_min=1), each new I/O is submitted on its own as
 * soon as a slot is free, in an io_uring_enter() that also posts the
 * completions due; the thread waits only when all --qd slots are in
 * flight. Submitting in batches (all free slots at once) cost 10-25 % of
 * fio's IOPS at QD32 on the development VM, with 30 % less CPU per I/O:
 * the device saw bursts instead of a stream. The ring is the thread's own
 * (COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN where the kernel has them).
 * When io_uring_queue_init() fails (kernel without io_uring, a seccomp
 * filter, kernel.io_uring_disabled) the step falls back to psync and says
 * so; a build without liburing skips an explicit --engine uring.
 *
 * Latency is submit to complete: psync, two CLOCK_MONOTONIC reads around
 * the system call; uring, a clock read just before each submit and one per
 * batch of completions reaped (the time the completion was seen).
 * The achieved queue depth is the time-weighted mean of I/Os in flight
 * between those events, and its maximum.
 *
 * --sync: end = one fdatasync() after the last write, inside the timed
 * run; fdatasync=N / fsync=N after every N completed writes (io_uring
 * drains the ring first, so the sync covers them); osync/odsync open the
 * file O_SYNC/O_DSYNC. Syncs have their own latency histogram.
 *
 * --rate: a token bucket (core/ratelimit) of --bs tokens per I/O with a
 * burst of 50 ms of rate (at least one block); an I/O waits for its
 * tokens before it is submitted.
 *
 * ENOSPC, EIO or any other error stops the step: what was measured so far
 * is reported, the result is failed and incomplete, and a temp file of
 * ours is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#if HAVE_LIBURING
#include <liburing.h>
#endif

#include "bench/disk/disk_common.h"
#include "core/work/iobuf.h"
#include "core/base/ratelimit.h"
#include "core/observe/window.h"
#include "core/work/rng.h"
#include "lib/xalloc.h"

#define IO_TIME_NS (5 * NS_PER_SEC)

struct io_slot {
	void *buf;
	mono_ns submit;
	uint64_t off;
	bool write;
};

struct io_run {
	/* Inputs. */
	const struct bench_env *env;
	int fd;
	uint64_t region, bs;
	unsigned qd;
	bool seq;
	int read_pct;
	uint64_t rng;
	uint64_t time_ns;
	double rate;
	enum disk_sync sync;
	uint64_t sync_every;
	/* State. */
	uint64_t next_seq;
	struct ratelimit rl;
	mono_ns start, last_prog;
	/* Outputs. */
	uint64_t rd_ios, wr_ios, rd_bytes, wr_bytes, short_ios, syncs;
	struct hist lat, rd_lat, wr_lat, sync_lat;
	double qd_area;		/* in-flight I/Os x ns */
	unsigned qd_max;
	unsigned ring_flags;	/* io_uring setup flags in force */
	mono_ns end_time;	/* last completion or sync */
	int err;
	char err_what[96];
	bool stopped;
};

/* The next I/O: direction and offset. */
static void next_op(struct io_run *r, bool *write, uint64_t *off)
{
	uint64_t nblocks = r->region / r->bs;

	if (r->read_pct >= 100)
		*write = false;
	else if (r->read_pct <= 0)
		*write = true;
	else
		*write = rng_below(&r->rng, 100) >= (uint64_t)r->read_pct;
	if (r->seq) {
		if (r->next_seq + r->bs > r->region)
			r->next_seq = 0;
		*off = r->next_seq;
		r->next_seq += r->bs;
	} else {
		*off = rng_below(&r->rng, nblocks) * r->bs;
	}
}

static void set_err(struct io_run *r, int err, const char *what, uint64_t off)
{
	if (r->err)
		return;
	r->err = err;
	snprintf(r->err_what, sizeof(r->err_what), "%s at offset %llu", what, (unsigned long long)off);
}

static void account(struct io_run *r, bool write, ssize_t n, uint64_t lat)
{
	hist_record(&r->lat, lat);
	if (write) {
		r->wr_ios++;
		r->wr_bytes += (uint64_t)n;
		hist_record(&r->wr_lat, lat);
	} else {
		r->rd_ios++;
		r->rd_bytes += (uint64_t)n;
		hist_record(&r->rd_lat, lat);
	}
	if ((uint64_t)n < r->bs)
		r->short_ios++;
}

/* One timed fsync/fdatasync; 0 or -errno. */
static int do_sync(struct io_run *r, bool full)
{
	mono_ns t0 = clock_mono(), t1;
	int rc = full ? fsync(r->fd) : fdatasync(r->fd);

	t1 = clock_mono();
	if (rc < 0) {
		int e = -errno;

		set_err(r, e, full ? "fsync" : "fdatasync", 0);
		return e;
	}
	hist_record(&r->sync_lat, t1 - t0);
	r->syncs++;
	r->end_time = t1;
	return 0;
}

static void progress(struct io_run *r, mono_ns now)
{
	disk_progress(r->env, now, r->start, now - r->start, r->time_ns, r->rd_bytes + r->wr_bytes, &r->last_prog);
}

/* Name the I/O buffers in the result: a direct request's pages reach the
 * device one segment per physically contiguous run (core/work/iobuf.h). */
static void disk_report_iobuf(struct result *res, const struct iobuf *iob, size_t bs, unsigned qd)
{
	long long huge = iob->huge_asked ? iobuf_huge_bytes(iob) : 0;
	bool all = iob->huge_asked && huge >= (long long)iob->len;
	char a[32], h[32];

	disk_fmt_bytes(a, sizeof(a), bs);
	if (!iob->huge_asked)
		result_method(res, "buffer", bs > DISK_ALIGN ?
			      "%u buffer(s) of %s in 4 KiB pages (the kernel refused MADV_HUGEPAGE): "
			      "a request is up to one segment per page" :
			      "%u buffer(s) of %s, each request within one page", qd, a);
	else if (all)
		result_method(res, "buffer", "%u buffer(s) of %s in transparent huge pages (MADV_HUGEPAGE): each "
			      "request is physically contiguous, one segment", qd, a);
	else
		result_method(res, "buffer", "%u buffer(s) of %s, MADV_HUGEPAGE asked, %s in huge pages (THP "
			      "\"never\" or memory fragmented): the rest is 4 KiB pages, up to one segment per page",
			      qd, a, huge < 0 ? "unknown amount" : disk_fmt_bytes(h, sizeof(h), (uint64_t)huge));
	result_param(res, "buffer_huge", "%s", all ? "yes" : huge > 0 ? "partly" : "no");
}

static void run_psync(struct io_run *r, struct io_slot *slot)
{
	volatile sig_atomic_t *stop = r->env->stop;
	mono_ns end, now;
	uint64_t since_sync = 0;

	r->start = now = clock_mono();
	end = r->start + r->time_ns;
	ratelimit_init(&r->rl, r->rate, r->rate > 0 ? (double)r->bs > r->rate / 20 ? (double)r->bs : r->rate / 20 : 0,
		       now);
	while (!*stop && now < end) {
		bool write;
		uint64_t off, d;
		mono_ns t0;
		ssize_t n;

		next_op(r, &write, &off);
		if ((d = ratelimit_delay_ns(&r->rl, r->bs, now))) {
			if (now + d >= end)
				break;
			if (clock_sleep_until(now + d) < 0 && *stop)
				break;
		}
		t0 = clock_mono();
		n = write ? pwrite(r->fd, slot->buf, r->bs, (off_t)off) : pread(r->fd, slot->buf, r->bs, (off_t)off);
		now = clock_mono();
		if (n < 0) {
			if (errno == EINTR)
				continue;
			set_err(r, -errno, write ? "writing" : "reading", off);
			break;
		}
		if (n == 0) {
			set_err(r, write ? -ENOSPC : -ENODATA, write ? "writing (no progress)" : "reading (end of data)",
				off);
			break;
		}
		account(r, write, n, now - t0);
		r->end_time = now;
		r->qd_area += (double)(now - t0);
		r->qd_max = 1;
		if (write && r->sync_every && ++since_sync >= r->sync_every) {
			since_sync = 0;
			if (do_sync(r, r->sync == DISK_SYNC_FSYNC) < 0)
				break;
			now = r->end_time;
		}
		progress(r, now);
	}
	r->stopped = *stop != 0;
}

#if HAVE_LIBURING
/* Setup flags of the newer kernels, each tried and dropped when refused. */
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

/*
 * A ring of --qd entries for this thread only: completions are handled as
 * task work when the thread next waits for them (DEFER_TASKRUN, 6.1), not
 * by interrupting it (COOP_TASKRUN, 5.19), as fio sets up its ring since
 * 3.33. Older kernels refuse the flags with EINVAL; then fewer, then none.
 * The flags in force go into r->ring_flags, a parameter of the result.
 */
static int ring_init(struct io_run *r, struct io_uring *ring)
{
	static const unsigned tries[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int ret = -EINVAL;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		struct io_uring_params p = { .flags = tries[i] };

		ret = io_uring_queue_init_params(r->qd, ring, &p);
		if (ret != -EINVAL) {
			r->ring_flags = tries[i];
			break;
		}
	}
	return ret;
}

/*
 * The io_uring engine. Returns -errno of io_uring_queue_init() (nothing
 * done; the caller falls back to psync), else 0 with errors in r->err.
 */
static int run_uring(struct io_run *r, struct io_slot *slots)
{
	volatile sig_atomic_t *stop = r->env->stop;
	struct io_uring ring;
	unsigned *freel = xcalloc(r->qd, sizeof(*freel));
	unsigned nfree = r->qd, inflight = 0;
	uint64_t since_sync = 0;
	bool stopping = false, sync_due = false, have_pending = false, pending_write = false;
	uint64_t pending_off = 0;
	mono_ns end, now, last, pending_due = 0;
	int ret;

	ret = ring_init(r, &ring);
	if (ret < 0) {
		free(freel);
		return ret;
	}
	for (unsigned i = 0; i < r->qd; i++)
		freel[i] = r->qd - 1 - i;
	r->start = now = last = clock_mono();
	end = r->start + r->time_ns;
	ratelimit_init(&r->rl, r->rate, r->rate > 0 ? (double)r->bs > r->rate / 20 ? (double)r->bs : r->rate / 20 : 0,
		       now);
	for (;;) {
		struct io_uring_cqe *cqe;
		struct io_uring_sqe *sqe;
		unsigned head, seen = 0;
		bool queued = false;
		mono_ns tc;

		now = clock_mono();
		if (!stopping && (*stop || now >= end || r->err))
			stopping = true;
		/* One new I/O per turn, as fio's iodepth_batch_submit=1. */
		if (!stopping && !sync_due && nfree && !have_pending) {
			next_op(r, &pending_write, &pending_off);
			pending_due = now + ratelimit_delay_ns(&r->rl, r->bs, now);
			have_pending = true;
		}
		if (!stopping && !sync_due && nfree && have_pending && pending_due <= now &&
		    (sqe = io_uring_get_sqe(&ring)) != NULL) {
			unsigned s = freel[--nfree];

			slots[s].write = pending_write;
			slots[s].off = pending_off;
			if (pending_write)
				io_uring_prep_write(sqe, r->fd, slots[s].buf, (unsigned)r->bs, pending_off);
			else
				io_uring_prep_read(sqe, r->fd, slots[s].buf, (unsigned)r->bs, pending_off);
			io_uring_sqe_set_data(sqe, (void *)(uintptr_t)s);
			have_pending = false;
			queued = true;
			slots[s].submit = clock_mono();
			r->qd_area += (double)inflight * (double)(slots[s].submit - last);
			last = slots[s].submit;
			/* Submits it and, in the same system call, runs the completions due. */
			do
				ret = io_uring_submit_and_get_events(&ring);
			while (ret == -EINTR);
			if (ret < 0) {
				set_err(r, ret, "submitting to io_uring", 0);
				stopping = true;
				ret = 0;
			}
			inflight += (unsigned)ret;
			if (ret < 1 && !r->err) {
				set_err(r, -EAGAIN, "submitting to io_uring (the I/O was not taken)", 0);
				stopping = true;
			}
			if (inflight > r->qd_max)
				r->qd_max = inflight;
		}
		if (!inflight) {
			if (stopping)
				break;
			if (sync_due) {
				sync_due = false;
				since_sync = 0;
				if (do_sync(r, r->sync == DISK_SYNC_FSYNC) < 0)
					stopping = true;
				last = clock_mono();
				continue;
			}
			if (have_pending && pending_due > now) {
				if (pending_due >= end) {
					stopping = true;
					continue;
				}
				/* EINTR: the loop looks at the stop flag. */
				if (clock_sleep_until(pending_due) < 0)
					stopping = *stop != 0;
				last = clock_mono();
			}
			continue;
		}
		/* Free slots and nothing holding the next I/O back: reap what is there, no wait. */
		if (queued && nfree && !stopping && !sync_due) {
			ret = 0;
		} else if (have_pending && !stopping && !sync_due && nfree) {
			uint64_t wait = pending_due > now ? pending_due - now : 0;
			struct __kernel_timespec ts = { .tv_sec = (long long)(wait / NS_PER_SEC),
							.tv_nsec = (long long)(wait % NS_PER_SEC) };

			ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
		} else {
			ret = io_uring_wait_cqe(&ring, &cqe);
		}
		if (ret == -EINTR || ret == -ETIME)
			continue;
		if (ret < 0) {
			set_err(r, ret, "waiting for io_uring completions", 0);
			break;
		}
		tc = clock_mono();
		r->qd_area += (double)inflight * (double)(tc - last);
		last = tc;
		io_uring_for_each_cqe(&ring, head, cqe) {
			unsigned s = (unsigned)(uintptr_t)io_uring_cqe_get_data(cqe);
			int res = cqe->res;

			if (res < 0) {
				set_err(r, res, slots[s].write ? "writing" : "reading", slots[s].off);
				stopping = true;
			} else if (res == 0) {
				set_err(r, slots[s].write ? -ENOSPC : -ENODATA,
					slots[s].write ? "writing (no progress)" : "reading (end of data)", slots[s].off);
				stopping = true;
			} else {
				account(r, slots[s].write, res, tc - slots[s].submit);
				r->end_time = tc;
				if (slots[s].write && r->sync_every && ++since_sync >= r->sync_every)
					sync_due = true;
			}
			freel[nfree++] = s;
			seen++;
		}
		io_uring_cq_advance(&ring, seen);
		inflight -= seen;
		progress(r, tc);
	}
	io_uring_queue_exit(&ring);
	free(freel);
	r->stopped = *stop != 0;
	return 0;
}
#endif

static const char *engine_name(int e)
{
	return e == ENGINE_URING ? "uring" : "psync";
}

/* The workload writes a new file: a temp file of ours in a directory target. */
static bool io_new_file(const struct disk_opts *o)
{
	return o->tgt.kind == DISK_DIR && (o->workload == WL_SEQ_WRITE || o->workload == WL_RAND_WRITE);
}

/* Records the step's parameters; false when this build cannot run ENGINE (the result is skipped). */
static bool io_params(struct result *res, const struct disk_opts *o, int engine)
{
	int wl = o->workload;
	char a[32], b[32];

	result_param(res, "workload", "%s", disk_workload_name(wl));
	result_param(res, "bs", "%s", disk_fmt_bytes(a, sizeof(a), o->bs));
	result_param(res, "qd", "%lld", (long long)o->qd);
	result_param(res, "engine", "%s", engine_name(engine));
	result_param(res, "size", "%s", disk_fmt_bytes(a, sizeof(a), o->region));
	result_param(res, "sync", "%s", disk_sync_name(o->sync_mode, o->sync_every, b, sizeof(b)));
	if (wl == WL_MIXED)
		result_param(res, "read_pct", "%lld", (long long)o->read_pct);
	if (wl != WL_SEQ_READ && wl != WL_SEQ_WRITE)
		result_param(res, "seed", "%lld", (long long)o->seed);
	if (o->rate > 0)
		result_param(res, "rate", "%s/s", disk_fmt_bytes(a, sizeof(a), (uint64_t)o->rate));
	if (o->engine == ENGINE_URING && !HAVE_LIBURING) {
		result_set_status(res, RESULT_SKIPPED, "built without liburing");
		return false;
	}
	if (o->engine == ENGINE_AUTO && o->qd > 1 && !HAVE_LIBURING)
		result_note(res, "built without liburing: psync, queue depth 1");
	return true;
}

/*
 * Opens the data of the workload: the shared data file or the target to
 * read, a new temp file to write (its path into *TMP_PATH, caller
 * removes), the data file or the target to overwrite. *DIRECT says
 * whether O_DIRECT is in force, *SIZE how many bytes the data holds.
 * Returns the descriptor (caller closes) or a negative value, the result
 * failed.
 */
static int io_open(const struct bench_env *env, const struct disk_opts *o, struct result *res, char **tmp_path,
		   bool *direct, uint64_t *size)
{
	int wl = o->workload;
	bool reads_only = wl == WL_SEQ_READ || wl == WL_RAND_READ;
	int extra = disk_sync_flags(o->sync_mode);
	int fd;

	if (reads_only) {
		fd = disk_open_data(env, o, res, o->use_direct, direct, size);
		if (fd < 0)
			return fd;
	} else if (io_new_file(o)) {
		fd = disk_create_temp(env, o, res, extra, direct, tmp_path);
		if (fd < 0)
			return fd;
		result_method(res, "data", "engpass's own temp file '%s', removed after the step", *tmp_path);
		*size = o->region;
	} else if (o->tgt.kind == DISK_DIR) {
		/* mixed in a directory: the shared data file is ours to overwrite. */
		bool d0;

		fd = disk_open_data(env, o, res, false, &d0, size);
		if (fd < 0)
			return fd;
		close(fd);
		fd = -1;
		if (o->use_direct) {
			fd = open(o->data->path, O_RDWR | O_CLOEXEC | extra | O_DIRECT);
			*direct = fd >= 0;
			if (fd < 0 && (errno != EINVAL || o->direct)) {
				result_set_status(res, RESULT_FAILED, "cannot open the data file: %s", strerror(errno));
				return -1;
			}
		}
		if (fd < 0 && (fd = open(o->data->path, O_RDWR | O_CLOEXEC | extra)) < 0) {
			result_set_status(res, RESULT_FAILED, "cannot open the data file: %s", strerror(errno));
			return -1;
		}
		if (o->use_direct && !*direct)
			result_note(res, "the file system refused O_DIRECT (EINVAL); used the page cache instead");
	} else {
		fd = disk_open_target_rw(o, res, extra, direct);
		if (fd < 0)
			return fd;
		*size = o->region;
	}
	return fd;
}

/*
 * Prepares the open data FD of SIZE bytes: checks it holds --size (or,
 * engpass's own data file cut to the fill's allowance, takes what it
 * holds: *REGION is the bytes the workload addresses), drops the page
 * cache before reading old data (or names the cache in force),
 * preallocates a file the workload writes (its seconds into *PREALLOC_S).
 * Returns 0, or -1 with the result failed (the caller closes FD).
 */
static int io_prepare(const struct bench_env *env, const struct disk_opts *o, struct result *res, int fd,
		      uint64_t size, bool direct, double *prealloc_s, uint64_t *region)
{
	int wl = o->workload;
	bool new_file = io_new_file(o);
	char a[32];

	*region = o->region;
	if (size < o->region && o->tgt.kind == DISK_DIR && o->data->cut && size - size % o->bs >= o->bs) {
		*region = size - size % o->bs;
		result_param(res, "size_used", "%s", disk_fmt_bytes(a, sizeof(a), *region));
	} else if (size < o->region) {
		result_set_status(res, RESULT_FAILED, "the data holds %s, less than --size", disk_fmt_bytes(a, sizeof(a), size));
		return -1;
	}
	result_param(res, "direct", "%s", direct ? "yes" : "no");
	if (!direct && !new_file && wl != WL_SEQ_WRITE && wl != WL_RAND_WRITE)
		disk_drop_cache(o, fd, res);
	else if (direct)
		result_method(res, "cache", "O_DIRECT: no page cache");
	else
		result_method(res, "cache", "buffered: writes go to the page cache%s",
			      o->sync_mode == DISK_SYNC_NONE ? "; with --sync none the device may see them after the step" : "");
	if (new_file || (o->tgt.kind == DISK_FILE && o->writes)) {
		int pr = disk_prealloc(o, fd, env->stop, res, prealloc_s);

		if (pr < 0) {
			disk_fail_errno(res, pr, "preallocating");
			result_set_incomplete(res);
			return -1;
		}
	}
	return 0;
}

/* A run of the workload on FD over REGION bytes with the inputs from O and empty histograms; caller frees. */
static struct io_run *io_run_new(const struct bench_env *env, const struct disk_opts *o, int fd, uint64_t region)
{
	int wl = o->workload;
	bool reads_only = wl == WL_SEQ_READ || wl == WL_RAND_READ;
	struct io_run *r = xcalloc(1, sizeof(*r));

	r->env = env;
	r->fd = fd;
	r->region = region;
	r->bs = o->bs;
	r->qd = (unsigned)o->qd;
	r->seq = wl == WL_SEQ_READ || wl == WL_SEQ_WRITE;
	r->read_pct = wl == WL_MIXED ? (int)o->read_pct : reads_only ? 100 : 0;
	r->rng = (uint64_t)o->seed;
	r->time_ns = env->time_ns ? env->time_ns : IO_TIME_NS;
	r->rate = o->rate;
	r->sync = o->sync_mode;
	r->sync_every = o->sync_mode == DISK_SYNC_FDATASYNC || o->sync_mode == DISK_SYNC_FSYNC ? o->sync_every : 0;
	hist_init(&r->lat);
	hist_init(&r->rd_lat);
	hist_init(&r->wr_lat);
	hist_init(&r->sync_lat);
	return r;
}

/*
 * The QD slots, each with a --bs buffer holding the data pattern, all in
 * one mapping *IOB, named in the result. Returns the slots (caller frees
 * them and releases *IOB with iobuf_free()), or NULL with the result
 * failed when the mapping failed.
 */
static struct io_slot *io_buffers(struct result *res, const struct disk_opts *o, unsigned qd, struct iobuf *iob)
{
	struct io_slot *slots = xcalloc(qd, sizeof(*slots));
	size_t stride = ((size_t)o->bs + DISK_ALIGN - 1) / DISK_ALIGN * DISK_ALIGN;
	int ir = iobuf_alloc(iob, stride * qd, (size_t)o->bs);

	if (ir < 0) {
		disk_fail_errno(res, ir, "mapping the I/O buffers");
		free(slots);
		return NULL;
	}
	for (unsigned i = 0; i < qd; i++) {
		slots[i].buf = (char *)iob->buf + (size_t)i * stride;
		disk_pattern(slots[i].buf, o->bs, (uint64_t)o->seed, i);
	}
	disk_report_iobuf(res, iob, (size_t)o->bs, qd);
	return slots;
}

/*
 * The timed run through ENGINE (io_uring falls back to psync when its
 * ring cannot be set up) and --sync end's fdatasync, measured into *M,
 * whose end is the last completion or sync. Returns the engine that ran.
 */
static int io_timed(struct io_run *r, struct io_slot *slots, const struct disk_opts *o, struct result *res,
		    int engine, struct disk_meas *m)
{
	disk_meas_begin(o, m);
	if (engine == ENGINE_URING) {
#if HAVE_LIBURING
		int ir = run_uring(r, slots);

		if (ir < 0) {
			result_note(res, "io_uring_queue_init() failed (%s): fell back to psync, queue depth 1",
				    strerror(-ir));
			result_param(res, "engine_used", "psync");
			engine = ENGINE_PSYNC;
			run_psync(r, &slots[0]);
		} else {
			result_param(res, "ring_flags", "%s", r->ring_flags & IORING_SETUP_DEFER_TASKRUN ?
				     "COOP_TASKRUN SINGLE_ISSUER DEFER_TASKRUN" : r->ring_flags ? "COOP_TASKRUN" :
				     "none (the kernel refused COOP_TASKRUN)");
		}
#else
		(void)res;
#endif
	} else {
		run_psync(r, &slots[0]);
	}
	if (!r->err && !r->stopped && r->sync == DISK_SYNC_END && r->wr_ios)
		(void)do_sync(r, false);
	disk_meas_end(o, m);
	if (r->end_time > m->t0)
		m->t1 = r->end_time;
	return engine;
}

/* How the run of ENGINE measured: engine, pattern, latency and timing in the method block. */
static void io_report_method(struct result *res, const struct disk_opts *o, const struct io_run *r, int engine)
{
	if (engine == ENGINE_PSYNC && o->qd > 1)
		result_note(res, "psync has one I/O in flight at a time: queue depth 1 reached of %lld asked",
			    (long long)o->qd);
	result_method(res, "engine", engine == ENGINE_URING ?
		      "io_uring through liburing, one thread, ring of --qd entries; each I/O submitted on its own as a "
		      "slot frees, completions reaped in the same system call, wait only when all slots are in flight "
		      "(fio's iodepth_batch_submit=1, iodepth_batch_complete_min=1)" :
		      "psync: pread()/pwrite() at explicit offsets, one thread, one I/O at a time");
	result_method(res, "pattern", "%s", r->seq ? "sequential from offset 0, wrapping at --size" :
		      "uniformly random --bs-aligned offsets in [0, --size) from splitmix64 seeded by --seed");
	result_method(res, "latency", engine == ENGINE_URING ?
		      "completion latency, submit to complete: CLOCK_MONOTONIC just before each submit and once "
		      "per batch of reaped completions" :
		      "completion latency, submit to complete: CLOCK_MONOTONIC before and after each pread()/pwrite()");
	result_method(res, "timing", "%s; MB/s and IOPS over the measured time, from the first submit to the last "
		      "completion%s", r->sync == DISK_SYNC_END ? "the final fdatasync is inside the measured time" :
		      "time-based", r->sync_every ? " (syncs included)" : "");
}

/*
 * Fills the result from the finished run R of ENGINE over M: its error,
 * the method, throughput, counts, latencies, queue depth, CPU, the
 * device's view, and the verdict when --rate set the pace.
 */
static void io_report(struct result *res, const struct disk_opts *o, const struct io_run *r, const struct disk_meas *m,
		      int engine)
{
	double s = elapsed_s(m->t0, m->t1);

	if (r->err) {
		disk_fail_errno(res, r->err, r->err_what);
		result_set_incomplete(res);
	}
	io_report_method(res, o, r, engine);
	if (r->rd_ios)
		result_metric(res, "read", UNIT_BYTES_PER_S, s > 0 ? (double)r->rd_bytes / s : NAN, "read");
	if (r->wr_ios)
		result_metric(res, "write", UNIT_BYTES_PER_S, s > 0 ? (double)r->wr_bytes / s : NAN, "write");
	result_metric(res, "io", UNIT_PER_S, s > 0 ? (double)(r->rd_ios + r->wr_ios) / s : NAN, "I/Os per second");
	/* Small blocks are counted in IOPS, large ones in bytes per second. */
	result_headline(res, r->bs < 65536 ? "io" : r->rd_ios ? "read" : "write");
	if (r->rd_ios && r->wr_ios) {
		result_metric(res, "read_io", UNIT_PER_S, s > 0 ? (double)r->rd_ios / s : NAN, "reads per second");
		result_metric(res, "write_io", UNIT_PER_S, s > 0 ? (double)r->wr_ios / s : NAN, "writes per second");
	}
	result_metric(res, "ios", UNIT_COUNT, (double)(r->rd_ios + r->wr_ios), "I/Os completed");
	result_metric(res, "read_total", UNIT_BYTES, (double)r->rd_bytes, "bytes read");
	result_metric(res, "write_total", UNIT_BYTES, (double)r->wr_bytes, "bytes written");
	if (r->short_ios)
		result_metric(res, "short_ios", UNIT_COUNT, (double)r->short_ios, "I/Os that moved less than --bs");
	if (r->sync != DISK_SYNC_NONE && r->sync != DISK_SYNC_OSYNC && r->sync != DISK_SYNC_ODSYNC)
		result_metric(res, "syncs", UNIT_COUNT, (double)r->syncs, "fsync/fdatasync calls");
	result_metric(res, "measured", UNIT_SECONDS, s, "time measured");
	disk_report_lat(res, "lat", &r->lat, "completion latency");
	if (r->rd_ios && r->wr_ios) {
		disk_report_lat(res, "read_lat", &r->rd_lat, "read latency");
		disk_report_lat(res, "write_lat", &r->wr_lat, "write latency");
	}
	disk_report_lat(res, "sync_lat", &r->sync_lat, "sync latency");
	result_metric(res, "qd_asked", UNIT_COUNT, (double)o->qd, "queue depth asked");
	result_metric(res, "qd_mean", UNIT_COUNT, s > 0 ? r->qd_area / ((double)elapsed_ns(m->t0, m->t1)) : NAN,
		      "queue depth reached (time-weighted mean)");
	result_metric(res, "qd_max", UNIT_COUNT, (double)r->qd_max, "queue depth reached (max)");
	disk_report_cpu(res, m, r->rd_ios + r->wr_ios);
	disk_report_device(res, o, m, r->wr_bytes);
	if (s > 0)
		disk_report_pacing(res, (double)(r->rd_bytes + r->wr_bytes) / s, o->rate, "achieved");
}

/*
 * One fio-like workload: parameters, the data opened and prepared, the
 * run and its buffers set up, the timed run, the result filled; a temp
 * file of ours is removed whatever happened.
 */
void disk_step_io(const struct bench_env *env, const struct disk_opts *o, struct result *res)
{
	int engine = o->engine == ENGINE_AUTO ? (o->qd > 1 && HAVE_LIBURING ? ENGINE_URING : ENGINE_PSYNC) : o->engine;
	struct io_run *r;
	struct io_slot *slots;
	struct disk_meas m;
	char *tmp_path = NULL;
	bool direct = false;
	uint64_t size, region;
	struct iobuf iob;
	double prealloc_s = 0;
	int fd;

	if (!io_params(res, o, engine))
		return;
	fd = io_open(env, o, res, &tmp_path, &direct, &size);
	if (fd < 0)
		return;
	if (io_prepare(env, o, res, fd, size, direct, &prealloc_s, &region) < 0) {
		close(fd);
		goto out;
	}
	r = io_run_new(env, o, fd, region);
	slots = io_buffers(res, o, r->qd, &iob);
	if (!slots) {
		free(r);
		close(fd);
		goto out;
	}
	result_param(res, "time", "%.3f s", (double)r->time_ns / 1e9);
	/* The system view and the verdict cover the timed run, not the file's preparation. */
	(void)window_begin(env->window);
	engine = io_timed(r, slots, o, res, engine, &m);
	(void)window_end(env->window);
	io_report(res, o, r, &m, engine);
	disk_report_total(res, prealloc_s, elapsed_s(m.t0, m.t1), r->wr_bytes);
	iobuf_free(&iob);
	free(slots);
	free(r);
	close(fd);
out:
	disk_remove_temp(env, res, tmp_path);
}
