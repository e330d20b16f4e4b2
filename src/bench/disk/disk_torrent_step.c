/* SPDX-License-Identifier: MIT */
/*
 * The torrent workload (seed 000): a file written the way Transmission
 * writes a download. 16 KiB blocks arrive piece by piece: pieces (--piece,
 * default 1 MiB) in a random order fixed by --seed, --interleave K pieces
 * in flight, blocks in order within a piece (core/work/torrent.h has the
 * model). Each block goes through the application write cache (--cache,
 * default 0: one pwrite per block); a full cache writes out its longest
 * run of adjacent blocks with one pwritev(). With --verify each finished
 * piece is read back (from the cache where it still is, else from the
 * file, block by block as Transmission's recalculateHash does) and its
 * SHA-1 compared with the expected one, which is computed before timing,
 * as a .torrent file carries it.
 *
 * The whole file is written once (--time, when given, caps it). Block
 * content is the deterministic pattern of disk_spec.h, so the intended
 * file has a known SHA-1, computed before timing and reported in the
 * method block ("content_sha1"): a test hashes the written file and
 * compares. The default is buffered (the page cache is part of what seed
 * 000 measured) with one fdatasync at the end, as Transmission fsyncs
 * when it closes a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "config.h"

#include "core/work/ossl.h"

#include "bench/disk/disk_common.h"
#include "core/base/ratelimit.h"
#include "core/work/torrent.h"
#include "lib/xalloc.h"

#define SHA1_LEN 20
/*
 * With --time, the final flush (the write cache's runs, then the sync of
 * what was written) ends at most this long after --time: the step keeps
 * --time plus this allowance on any device. What it did not write by
 * then is said, not waited for.
 */
#define TORRENT_FLUSH_ALLOW_NS NS_PER_SEC
/*
 * With --time, the set-up's SHA-1 of the intended content (and, for
 * --verify-pieces, of each piece) stops this long after it began: it
 * grows with --size (CPU work, about 0.3 s for 64 MiB here), the timed
 * part does not. What it did not reach is said: no content_sha1, and the
 * pieces it did not hash get their expected SHA-1 when they finish.
 */
#define TORRENT_HASH_ALLOW_NS NS_PER_SEC
/* The bounded sync goes by ranges, each sized to take about this long. */
#define SYNC_SLICE_NS (50 * NS_PER_MS)
#define SYNC_RANGE_MIN (64 * 1024ULL)
#define SYNC_RANGE_MAX (64 * DISK_MIB)

struct tstate {
	int fd;
	struct hist write_lat, sync_lat;
	uint64_t write_calls, written, syncs;
	enum disk_sync sync;
	uint64_t sync_every, since_sync;
	mono_ns deadline;		/* the flush's end (0: none): a write after it returns -ETIME */
	int err;
	uint64_t err_off;
	const char *err_what;
};

/* pwritev() of all of IOV at OFF, continuing after short writes; 0 or -errno. */
static int pwritev_all(int fd, const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct iovec local[TORRENT_IOV_MAX];
	int first = 0;

	memcpy(local, iov, (size_t)iovcnt * sizeof(*iov));
	while (first < iovcnt) {
		ssize_t n = pwritev(fd, local + first, iovcnt - first, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		off += (uint64_t)n;
		while (n > 0 && first < iovcnt) {
			if ((size_t)n >= local[first].iov_len) {
				n -= (ssize_t)local[first].iov_len;
				first++;
			} else {
				local[first].iov_base = (char *)local[first].iov_base + n;
				local[first].iov_len -= (size_t)n;
				n = 0;
			}
		}
	}
	return 0;
}

static int tsync(struct tstate *t, bool full)
{
	mono_ns t0 = clock_mono();

	if ((full ? fsync(t->fd) : fdatasync(t->fd)) < 0) {
		t->err = -errno;
		t->err_what = full ? "fsync" : "fdatasync";
		return t->err;
	}
	hist_record(&t->sync_lat, clock_mono() - t0);
	t->syncs++;
	return 0;
}

/* The cache's writer: one timed pwritev per call, syncs every N calls. */
static int twrite(void *arg, uint64_t first, const struct iovec *iov, int iovcnt)
{
	struct tstate *t = arg;
	uint64_t off = first * TORRENT_BLOCK;
	mono_ns t0 = clock_mono();
	int r;

	/* The flush's allowance is over: the run stays in the cache (not an error of the file). */
	if (t->deadline && t0 >= t->deadline)
		return -ETIME;
	r = pwritev_all(t->fd, iov, iovcnt, off);
	if (r < 0) {
		t->err = r;
		t->err_off = off;
		t->err_what = "writing";
		return r;
	}
	hist_record(&t->write_lat, clock_mono() - t0);
	t->write_calls++;
	t->written += (uint64_t)iovcnt * TORRENT_BLOCK;
	if (t->sync_every && ++t->since_sync >= t->sync_every) {
		t->since_sync = 0;
		return tsync(t, t->sync == DISK_SYNC_FSYNC);
	}
	return 0;
}

/*
 * --sync end within the flush's allowance: [0, SIZE) of the file synced
 * range by range with sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)
 * until t->deadline; when every range is done, fdatasync() writes what
 * remains (the metadata). How much of a range is dirty is not known
 * beforehand, so each range is sized as if all of it were, at the
 * slowest rate a range has shown so far: about SYNC_SLICE_NS of writing,
 * and never more than the time left (a range past the deadline is the
 * overshoot). A range that took under a millisecond (clean pages) says
 * nothing about the rate: the next may be twice as large. The whole is
 * one sync in sync_lat. Returns the bytes of the file synced from its
 * start (SIZE when all of it was, fdatasync included); an error is
 * recorded in T.
 */
static uint64_t tsync_bounded(struct tstate *t, uint64_t size)
{
	mono_ns t0 = clock_mono(), a, b;
	uint64_t off = 0, range = 4 * SYNC_RANGE_MIN;
	double slow = 0;	/* bytes/s: the slowest range so far; 0 none yet */

	while (off < size) {
		uint64_t n = size - off < range ? size - off : range;
		double next;

		a = clock_mono();
		if (a >= t->deadline)
			return off;
		if (sync_file_range(t->fd, (off_t)off, (off_t)n, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER) < 0) {
			if (errno == EINTR)
				continue;
			t->err = -errno;
			t->err_off = off;
			t->err_what = "syncing (sync_file_range)";
			return off;
		}
		b = clock_mono();
		off += n;
		if (b - a >= NS_PER_MS) {
			double rate = (double)n / ((double)(b - a) / 1e9);

			if (!slow || rate < slow)
				slow = rate;
		}
		next = slow ? slow * (double)SYNC_SLICE_NS / 1e9 : 2.0 * (double)range;
		if (slow && b < t->deadline && next > slow * (double)(t->deadline - b) / 1e9)
			next = slow * (double)(t->deadline - b) / 1e9;
		if (next > 2.0 * (double)range)
			next = 2.0 * (double)range;
		range = next < (double)SYNC_RANGE_MIN ? SYNC_RANGE_MIN :
			next > (double)SYNC_RANGE_MAX ? SYNC_RANGE_MAX : (uint64_t)next;
		range -= range % SYNC_RANGE_MIN;
	}
	if (fdatasync(t->fd) < 0) {
		t->err = -errno;
		t->err_off = 0;
		t->err_what = "fdatasync";
		return off;
	}
	hist_record(&t->sync_lat, clock_mono() - t0);
	t->syncs++;
	return size;
}

#if HAVE_OPENSSL
/*
 * The intended content's SHA-1 (file order) into WHOLE, and with PIECES
 * not NULL each piece's SHA-1, in file order; at DEADLINE (0: none) it
 * stops. *DONE is the number of pieces hashed (the first ones). Returns 0
 * when every piece was, -ETIME at the deadline, or -ENOMEM.
 */
static int expected_hashes(const struct disk_opts *o, const struct torrent_order *ord, void *buf,
			   unsigned char *whole, unsigned char *pieces, volatile sig_atomic_t *stop, mono_ns deadline,
			   uint64_t *done)
{
	EVP_MD_CTX *w = EVP_MD_CTX_new(), *p = EVP_MD_CTX_new();
	int r = -ENOMEM;

	*done = 0;
	if (!w || !p || !EVP_DigestInit_ex(w, EVP_sha1(), NULL))
		goto out;
	for (uint64_t piece = 0; piece < ord->npieces && !*stop; piece++) {
		uint64_t first;
		uint32_t count;

		if (deadline && clock_mono() >= deadline) {
			r = -ETIME;
			goto out;
		}
		torrent_piece_range(ord, piece, &first, &count);
		if (pieces && !EVP_DigestInit_ex(p, EVP_sha1(), NULL))
			goto out;
		for (uint32_t i = 0; i < count; i++) {
			disk_pattern(buf, TORRENT_BLOCK, (uint64_t)o->seed, first + i);
			if (!EVP_DigestUpdate(w, buf, TORRENT_BLOCK) ||
			    (pieces && !EVP_DigestUpdate(p, buf, TORRENT_BLOCK)))
				goto out;
		}
		if (pieces && !EVP_DigestFinal_ex(p, pieces + piece * SHA1_LEN, NULL))
			goto out;
		*done = piece + 1;
	}
	r = EVP_DigestFinal_ex(w, whole, NULL) ? 0 : -ENOMEM;
out:
	EVP_MD_CTX_free(w);
	EVP_MD_CTX_free(p);
	return r;
}

/* PIECE's expected SHA-1 into OUT, its content generated again in BUF (a piece the set-up did not reach). */
static int piece_hash(const struct disk_opts *o, const struct torrent_order *ord, uint64_t piece, void *buf,
		      EVP_MD_CTX *ctx, unsigned char *out)
{
	uint64_t first;
	uint32_t count;

	torrent_piece_range(ord, piece, &first, &count);
	if (!EVP_DigestInit_ex(ctx, EVP_sha1(), NULL))
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		disk_pattern(buf, TORRENT_BLOCK, (uint64_t)o->seed, first + i);
		if (!EVP_DigestUpdate(ctx, buf, TORRENT_BLOCK))
			return -ENOMEM;
	}
	return EVP_DigestFinal_ex(ctx, out, NULL) ? 0 : -ENOMEM;
}

/*
 * Reads PIECE back block by block (cache first, then the file) and checks
 * its SHA-1. Returns 1 if it matches, 0 if not, -errno on a read error.
 */
static int verify_piece(int fd, const struct torrent_order *ord, const struct torrent_cache *c, uint64_t piece,
			const unsigned char *want, void *buf, EVP_MD_CTX *ctx, uint64_t *from_disk)
{
	unsigned char got[SHA1_LEN];
	uint64_t first;
	uint32_t count;

	torrent_piece_range(ord, piece, &first, &count);
	if (!EVP_DigestInit_ex(ctx, EVP_sha1(), NULL))
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		const void *data = torrent_cache_get(c, first + i);

		if (!data) {
			ssize_t n;

			do
				n = pread(fd, buf, TORRENT_BLOCK, (off_t)((first + i) * TORRENT_BLOCK));
			while (n < 0 && errno == EINTR);
			if (n < 0)
				return -errno;
			if (n < (ssize_t)TORRENT_BLOCK)
				memset((char *)buf + n, 0, TORRENT_BLOCK - (size_t)n);
			*from_disk += TORRENT_BLOCK;
			data = buf;
		}
		if (!EVP_DigestUpdate(ctx, data, TORRENT_BLOCK))
			return -ENOMEM;
	}
	if (!EVP_DigestFinal_ex(ctx, got, NULL))
		return -ENOMEM;
	return memcmp(got, want, SHA1_LEN) == 0;
}

static void hex(char *out, const unsigned char *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}
#endif

/* One torrent step: its order, its write path and what the timed loop counts. */
struct trun {
	const struct bench_env *env;
	const struct disk_opts *o;
	int fd;
	uint64_t nblocks;
	struct torrent_order ord;
	struct torrent_cache cache;
	struct tstate *t;		/* the cache's writer */
	void *gen, *vbuf;		/* one block each: generated content, a piece read back */
	unsigned char *piece_sha;	/* --verify: each piece's expected SHA-1 */
	/* The set-up's hashes: pieces [0, hashed) have theirs, in hash_ns; hash_cut: its allowance ended it. */
	uint64_t hashed, hash_ns;
	bool hash_cut;
	uint64_t verify_lazy;		/* pieces whose expected SHA-1 was computed when they finished */
#if HAVE_OPENSSL
	EVP_MD_CTX *vctx;		/* --verify: the read-back digest */
#endif
	/* Outputs of the timed loop. */
	uint64_t blocks, pieces_done, verify_fail, verify_disk, gen_ns;
	struct hist block_lat, verify_lat;
	bool stopped, capped;
	/* The final flush. */
	mono_ns flush0, flush1;		/* its start (the loop's end) and end */
	bool flush_cut;			/* its allowance ended it */
	uint64_t flush_left;		/* blocks left in the write cache, unwritten */
	uint64_t synced;		/* bytes of the file synced from its start (--sync end) */
};

/* Records the step's parameters; TIME_NS is the --time cap (0: none). */
static void torrent_params(struct result *res, const struct disk_opts *o, uint64_t time_ns)
{
	char a[32], b[32];

	result_param(res, "workload", "torrent");
	result_param(res, "size", "%s", disk_fmt_bytes(a, sizeof(a), o->region));
	result_param(res, "block", "16 KiB");
	result_param(res, "piece", "%s", disk_fmt_bytes(a, sizeof(a), o->piece));
	result_param(res, "interleave", "%lld", (long long)o->interleave);
	result_param(res, "cache", "%s", disk_fmt_bytes(a, sizeof(a), o->cache));
	result_param(res, "verify", "%s", o->verify ? "yes" : "no");
	result_param(res, "seed", "%lld", (long long)o->seed);
	result_param(res, "sync", "%s", disk_sync_name(o->sync_mode, o->sync_every, b, sizeof(b)));
	if (o->rate > 0)
		result_param(res, "rate", "%s/s", disk_fmt_bytes(a, sizeof(a), (uint64_t)o->rate));
	if (time_ns)
		result_param(res, "time_cap", "%.3f s", (double)time_ns / 1e9);
}

/*
 * Opens the file to write: a new temp file of ours in a directory target
 * (its path into *TMP_PATH, caller removes), else the target itself, and
 * preallocates it (a measured phase of *PREALLOC_S seconds). *DIRECT says
 * whether O_DIRECT is in force. Returns the
 * descriptor (caller closes), or a negative value with the result failed
 * and nothing left open.
 */
static int torrent_open(const struct bench_env *env, const struct disk_opts *o, struct result *res, bool *direct,
			char **tmp_path, double *prealloc_s)
{
	int extra = disk_sync_flags(o->sync_mode);
	char a[32];
	int fd, r;

	if (o->tgt.kind == DISK_DIR) {
		fd = disk_create_temp(env, o, res, extra, direct, tmp_path);
		if (fd >= 0)
			result_method(res, "data", "engpass's own temp file '%s', removed after the step", *tmp_path);
	} else {
		fd = disk_open_target_rw(o, res, extra, direct);
		if (fd >= 0 && o->tgt.kind == DISK_FILE && o->tgt.size > o->region)
			result_note(res, "'%s' is longer than --size: only its first %s were written", o->tgt.path,
				    disk_fmt_bytes(a, sizeof(a), o->region));
	}
	if (fd < 0)
		return fd;
	result_param(res, "direct", "%s", *direct ? "yes" : "no");
	if (o->tgt.kind != DISK_BLKDEV && (r = disk_prealloc(o, fd, env->stop, res, prealloc_s)) < 0) {
		disk_fail_errno(res, r, "preallocating");
		result_set_incomplete(res);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Before timing, with OpenSSL loaded (OSSL_OK): the content's SHA-1 into
 * the method block, and for --verify each piece's expected SHA-1 and the
 * read-back digest. Returns whether the content's SHA-1 was computed.
 */
static bool torrent_hashes(struct trun *tr, struct result *res, bool ossl_ok)
{
	bool have_sha = false;
#if HAVE_OPENSSL
	const struct disk_opts *o = tr->o;

	if (o->verify)
		tr->piece_sha = xmalloc(tr->ord.npieces * SHA1_LEN);
	if (ossl_ok) {
		unsigned char whole[SHA1_LEN];
		char hx[2 * SHA1_LEN + 1], a[32];
		mono_ns h0 = clock_mono();
		int r = expected_hashes(o, &tr->ord, tr->gen, whole, tr->piece_sha, tr->env->stop,
					tr->env->time_ns ? h0 + TORRENT_HASH_ALLOW_NS : 0, &tr->hashed);

		tr->hash_ns = clock_mono() - h0;
		tr->hash_cut = r == -ETIME;
		if (r == 0 && !*tr->env->stop) {
			have_sha = true;
			hex(hx, whole, SHA1_LEN);
			result_method(res, "content_sha1", "%s", hx);
		}
		disk_fmt_bytes(a, sizeof(a), tr->hashed * o->piece < o->region ? tr->hashed * o->piece : o->region);
		if (tr->hash_cut)
			result_method(res, "setup", "the content's SHA-1 (CPU work, before timing) stopped at its %.1f s "
				      "allowance (--time given) after %llu of %llu pieces (%s in %.3f s): no content_sha1%s",
				      (double)TORRENT_HASH_ALLOW_NS / 1e9, (unsigned long long)tr->hashed,
				      (unsigned long long)tr->ord.npieces, a, (double)tr->hash_ns / 1e9,
				      o->verify ? "; --verify-pieces computes the other pieces' expected SHA-1 when they "
				      "finish, inside the timed loop and its verify_lat (verify_lazy_pieces)" : "");
		else
			result_method(res, "setup", "the content's SHA-1%s (CPU work, before timing): %s in %.3f s%s",
				      o->verify ? " and each piece's" : "", a, (double)tr->hash_ns / 1e9,
				      tr->env->time_ns ? "" : " (no --time: not bounded; with --time it stops at an allowance)");
	}
	if (o->verify && !(tr->vctx = EVP_MD_CTX_new()))
		abort();
#else
	(void)tr;
	(void)res;
	(void)ossl_ok;
#endif
	return have_sha;
}

/* How the step writes and measures, in the method block (DIRECT: O_DIRECT in force; TIME_NS the --time cap). */
static void torrent_method(struct result *res, const struct disk_opts *o, const struct torrent_order *ord, bool direct,
			   uint64_t time_ns)
{
	uint32_t bpp = (uint32_t)(o->piece / TORRENT_BLOCK);
	char a[32];

	result_method(res, "content", "block i holds 16 KiB of splitmix64 output seeded by (--seed, i); content_sha1 "
		      "is the SHA-1 of the intended first --size bytes, computed before timing");
	result_method(res, "order", "%llu pieces of %u blocks in a random order (Fisher-Yates, splitmix64 seeded by "
		      "--seed), %lld in flight taking turns block by block, blocks in order within a piece",
		      (unsigned long long)ord->npieces, bpp, (long long)o->interleave);
	if (o->cache)
		result_method(res, "app_cache", "%s (%llu blocks) sorted by offset; when full, the longest run of "
			      "adjacent blocks is written with one pwritev() (Transmission 4.x cache_trim); the rest at "
			      "the end, in file order", disk_fmt_bytes(a, sizeof(a), o->cache),
			      (unsigned long long)(o->cache / TORRENT_BLOCK));
	else
		result_method(res, "app_cache", "none: every block is its own pwrite() (Transmission with "
			      "cache 0, and current Transmission always)");
	if (o->verify)
		result_method(res, "verify", "each finished piece read back block by block (from the cache where "
			      "still held, else pread from the file%s) and its SHA-1 (OpenSSL EVP) compared with the "
			      "expected one", direct ? ", O_DIRECT" : ", usually the page cache");
	result_method(res, "latency", "lat: per write call, pwrite()/pwritev() submit to complete (CLOCK_MONOTONIC "
		      "around the call); block_lat: handing one block to the write path (a pwrite with no cache; a "
		      "copy, or a flush of the longest run, with one)");
	result_method(res, "timing", "from the first block to the last write%s; block generation is inside the "
		      "timed loop (see generation_share)", o->sync_mode == DISK_SYNC_END ?
		      " and the final fdatasync" : "");
	if (time_ns)
		result_method(res, "time_kept", "the loop ends at --time (%.3f s); the final flush (the write cache's "
			      "runs%s) ends at most %.1f s later, its allowance, on any device: what it has not "
			      "written or synced by then is counted (flush_unwritten_blocks, unsynced_range), not "
			      "waited for", (double)time_ns / 1e9, o->sync_mode == DISK_SYNC_END ?
			      ", then sync_file_range() by ranges of about 50 ms each and fdatasync()" : "",
			      (double)TORRENT_FLUSH_ALLOW_NS / 1e9);
}

/*
 * The write path: the writer on tr->fd with its syncs, behind an
 * application cache of --cache bytes; the loop's histograms emptied.
 * Returns 0, or -1 with the result failed (tr->t still to free).
 */
static int torrent_writer_init(struct trun *tr, struct result *res)
{
	const struct disk_opts *o = tr->o;
	struct tstate *t;
	char a[32];

	t = tr->t = xcalloc(1, sizeof(*t));
	t->fd = tr->fd;
	t->sync = o->sync_mode;
	t->sync_every = o->sync_mode == DISK_SYNC_FDATASYNC || o->sync_mode == DISK_SYNC_FSYNC ? o->sync_every : 0;
	hist_init(&t->write_lat);
	hist_init(&t->sync_lat);
	hist_init(&tr->block_lat);
	hist_init(&tr->verify_lat);
	if (torrent_cache_init(&tr->cache, (size_t)(o->cache / TORRENT_BLOCK), twrite, t) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot allocate a write cache of %s", disk_fmt_bytes(a, sizeof(a), o->cache));
		return -1;
	}
	return 0;
}

/*
 * Piece PIECE finished at T2: counted and, with --verify, read back and
 * checked, timed (*NOW moves to the end of the check). Returns 0, or -1
 * on a read error (recorded in tr->t).
 */
static int torrent_piece_done(struct trun *tr, uint64_t piece, mono_ns t2, mono_ns *now)
{
	tr->pieces_done++;
#if HAVE_OPENSSL
	if (tr->o->verify) {
		int v = 0;

		if (piece >= tr->hashed) {
			v = piece_hash(tr->o, &tr->ord, piece, tr->vbuf, tr->vctx, tr->piece_sha + piece * SHA1_LEN);
			tr->verify_lazy++;
		}
		if (v == 0)
			v = verify_piece(tr->fd, &tr->ord, &tr->cache, piece, tr->piece_sha + piece * SHA1_LEN,
					 tr->vbuf, tr->vctx, &tr->verify_disk);

		*now = clock_mono();
		hist_record(&tr->verify_lat, *now - t2);
		if (v < 0) {
			tr->t->err = v;
			tr->t->err_what = "reading a piece back";
			tr->t->err_off = piece * tr->o->piece;
			return -1;
		}
		if (v == 0)
			tr->verify_fail++;
	}
#else
	(void)piece;
	(void)t2;
	(void)now;
#endif
	return 0;
}

/*
 * The final flush after the loop: the cache's runs, then --sync end's
 * fdatasync. With --time it ends TORRENT_FLUSH_ALLOW_NS after --time at
 * the latest (tr->flush_cut): runs not written stay in the cache
 * (tr->flush_left) and the sync goes by ranges up to where it got
 * (tr->synced).
 */
static void torrent_flush(struct trun *tr, mono_ns t0)
{
	const struct disk_opts *o = tr->o;
	struct tstate *t = tr->t;
	uint64_t time_ns = tr->env->time_ns;
	int r;

	tr->flush0 = clock_mono();
	t->deadline = time_ns ? t0 + time_ns + TORRENT_FLUSH_ALLOW_NS : 0;
	r = torrent_cache_flush_all(&tr->cache);
	if (r == -ETIME) {
		tr->flush_cut = true;
		tr->flush_left = tr->cache.n;
	}
	if (r == 0 && o->sync_mode == DISK_SYNC_END && t->written) {
		if (!t->deadline) {
			(void)tsync(t, false);
			tr->synced = o->region;
		} else {
			tr->synced = tsync_bounded(t, o->region);
			tr->flush_cut = !t->err && tr->synced < o->region;
		}
	}
	t->deadline = 0;
	tr->flush1 = clock_mono();
}

/*
 * The timed loop, measured into *M: the blocks in torrent order, each
 * generated and handed to the write path at --rate, finished pieces
 * checked; then the final flush (torrent_flush()). Ends early on a signal
 * (tr->stopped), at --time (tr->capped) or on an error (in tr->t).
 */
static void torrent_timed(struct trun *tr, struct disk_meas *m)
{
	const struct bench_env *env = tr->env;
	const struct disk_opts *o = tr->o;
	uint64_t time_ns = env->time_ns;
	struct tstate *t = tr->t;
	struct ratelimit rl;
	mono_ns now, end, last = 0;
	int r;

	disk_meas_begin(o, m);
	now = m->t0;
	end = time_ns ? m->t0 + time_ns : UINT64_MAX;
	ratelimit_init(&rl, o->rate, o->rate > 0 ? (o->rate / 20 > TORRENT_BLOCK ? o->rate / 20 : TORRENT_BLOCK) : 0, now);
	for (;;) {
		struct torrent_block tb;
		mono_ns g0, g1, t2;
		uint64_t d;

		if (*env->stop) {
			tr->stopped = true;
			break;
		}
		if (now >= end) {
			tr->capped = true;
			break;
		}
		if (!torrent_order_next(&tr->ord, &tb))
			break;
		if ((d = ratelimit_delay_ns(&rl, TORRENT_BLOCK, now)) && clock_sleep_until(now + d) < 0 && *env->stop) {
			tr->stopped = true;
			break;
		}
		g0 = clock_mono();
		disk_pattern(tr->gen, TORRENT_BLOCK, (uint64_t)o->seed, tb.block);
		g1 = clock_mono();
		tr->gen_ns += g1 - g0;
		r = torrent_cache_put(&tr->cache, tb.block, tr->gen);
		t2 = clock_mono();
		if (r < 0)
			break;
		hist_record(&tr->block_lat, t2 - g1);
		tr->blocks++;
		now = t2;
		if (tb.piece_done && torrent_piece_done(tr, tb.piece, t2, &now) < 0)
			break;
		disk_progress(env, now, m->t0, tr->blocks, tr->nblocks, tr->blocks * TORRENT_BLOCK, &last);
	}
	if (!t->err && !tr->stopped)
		torrent_flush(tr, m->t0);
	disk_meas_end(o, m);
}

/* How the run ended: a write or read error, pieces failing SHA-1, blocks a signal left unwritten, --time's cap. */
static void torrent_report_status(struct result *res, const struct trun *tr)
{
	const struct tstate *t = tr->t;

	if (t->err) {
		char what[96];

		snprintf(what, sizeof(what), "%s at offset %llu", t->err_what, (unsigned long long)t->err_off);
		disk_fail_errno(res, t->err, what);
		result_set_incomplete(res);
	} else if (tr->verify_fail) {
		result_set_status(res, RESULT_FAILED, "%llu of %llu pieces failed the SHA-1 check",
				  (unsigned long long)tr->verify_fail, (unsigned long long)tr->pieces_done);
	}
	if (tr->stopped)
		result_note(res, "stopped by a signal: %llu blocks still in the write cache were not written",
			    (unsigned long long)tr->cache.n);
	if (tr->capped)
		result_note(res, "--time ended the step after %llu of %llu pieces", (unsigned long long)tr->pieces_done,
			    (unsigned long long)tr->ord.npieces);
	if (tr->flush_cut) {
		const struct disk_opts *o = tr->o;
		char a[32], b[32];

		disk_fmt_bytes(a, sizeof(a), tr->synced);
		disk_fmt_bytes(b, sizeof(b), o->region - tr->synced);
		if (tr->flush_left)
			result_note(res, "the final flush was cut at its %.1f s allowance after --time: %llu blocks of the "
				    "write cache were never written; 'write' counts what reached the file",
				    (double)TORRENT_FLUSH_ALLOW_NS / 1e9, (unsigned long long)tr->flush_left);
		else
			result_note(res, "the final flush was cut at its %.1f s allowance after --time: the file was "
				    "synced up to %s, the %s after it were not (their written pages may still be dirty "
				    "in the page cache); 'write' counts what reached the file, the device_* figures "
				    "what reached the device", (double)TORRENT_FLUSH_ALLOW_NS / 1e9, a, b);
		result_note(res, o->tgt.kind == DISK_DIR ? "the temp file is removed with it: pages it left unsynced "
			    "are dropped, not written" : "pages left unsynced are written back by the kernel later, "
			    "after the step");
	}
}

/*
 * Fills the result from the finished run TR over M: how it ended, write
 * throughput, counts, pieces, verification, latencies, CPU, the device's
 * view, and the verdict when --rate set the pace.
 */
static void torrent_report(struct result *res, const struct trun *tr, const struct disk_meas *m)
{
	const struct disk_opts *o = tr->o;
	const struct tstate *t = tr->t;
	uint64_t blocks = tr->blocks;
	double s = elapsed_s(m->t0, m->t1);

	torrent_report_status(res, tr);
	result_metric(res, "write", UNIT_BYTES_PER_S, s > 0 ? (double)t->written / s : NAN,
		      "write (bytes reaching the file per second)");
	result_headline(res, "write");
	result_metric(res, "io", UNIT_PER_S, s > 0 ? (double)blocks / s : NAN, "16 KiB blocks per second");
	result_metric(res, "ios", UNIT_COUNT, (double)blocks, "blocks handed to the write path");
	result_metric(res, "write_total", UNIT_BYTES, (double)t->written, "bytes written");
	result_metric(res, "write_calls", UNIT_COUNT, (double)t->write_calls, "write calls (pwrite/pwritev)");
	result_metric(res, "avg_write_call", UNIT_BYTES, t->write_calls ? (double)t->written / (double)t->write_calls : NAN,
		      "average write call");
	result_metric(res, "pieces_completed", UNIT_COUNT, (double)tr->pieces_done, "pieces completed");
	result_metric(res, "pieces_total", UNIT_COUNT, (double)tr->ord.npieces, "pieces in the file");
	if (o->verify) {
		result_metric(res, "verify_failures", UNIT_COUNT, (double)tr->verify_fail, "pieces failing SHA-1");
		result_metric(res, "verify_read", UNIT_BYTES, (double)tr->verify_disk, "bytes read back from the file");
		if (tr->hash_cut)
			result_metric(res, "verify_lazy_pieces", UNIT_COUNT, (double)tr->verify_lazy,
				      "pieces whose expected SHA-1 was computed when they finished");
		disk_report_lat(res, "verify_lat", &tr->verify_lat, "piece read-back and SHA-1");
	}
	if (t->sync_every || o->sync_mode == DISK_SYNC_END)
		result_metric(res, "syncs", UNIT_COUNT, (double)t->syncs, "fsync/fdatasync calls");
	if (tr->flush1 > tr->flush0)
		result_metric(res, "flush_time", UNIT_SECONDS, elapsed_s(tr->flush0, tr->flush1),
			      "final flush (write cache and sync), after the loop")->higher_is_better = false;
	if (tr->flush_cut) {
		result_metric(res, "flush_unwritten_blocks", UNIT_COUNT, (double)tr->flush_left,
			      "write cache blocks the flush's allowance left unwritten")->higher_is_better = false;
		if (o->sync_mode == DISK_SYNC_END)
			result_metric(res, "unsynced_range", UNIT_BYTES, (double)(o->region - tr->synced),
				      "file range the flush's allowance left unsynced")->higher_is_better = false;
	}
	result_metric(res, "generation_share", UNIT_PERCENT, s > 0 ? 100.0 * (double)tr->gen_ns / 1e9 / s : NAN,
		      "share of the time spent generating block content");
	result_metric(res, "measured", UNIT_SECONDS, s, "time measured");
	disk_report_lat(res, "lat", &t->write_lat, "write call latency");
	disk_report_lat(res, "block_lat", &tr->block_lat, "block hand-off");
	disk_report_lat(res, "sync_lat", &t->sync_lat, "sync latency");
	result_metric(res, "qd_asked", UNIT_COUNT, 1, "queue depth asked");
	result_metric(res, "qd_max", UNIT_COUNT, t->write_calls ? 1 : 0, "queue depth reached (max)");
	disk_report_cpu(res, m, blocks);
	disk_report_device(res, o, m, t->written);
	if (s > 0)
		disk_report_pacing(res, (double)(blocks * TORRENT_BLOCK) / s, o->rate, "of blocks");
}

/*
 * The torrent workload: parameters, the order, the file opened, the
 * expected hashes and the method, the write path set up, the timed loop,
 * the result filled; a temp file of ours is removed whatever happened.
 */
void disk_step_torrent(const struct bench_env *env, const struct disk_opts *o, struct result *res)
{
	struct trun tr = { .env = env, .o = o, .nblocks = o->region / TORRENT_BLOCK };
	uint32_t bpp = (uint32_t)(o->piece / TORRENT_BLOCK);
	struct disk_meas m;
	bool direct = false;
	char *tmp_path = NULL;
	void *gen = NULL, *vbuf = NULL;
	char ossl_why[256];
	double prealloc_s = 0;
	bool ossl_ok;

	torrent_params(res, o, env->time_ns);
	/* SHA-1 (the content hash, and --verify) comes from OpenSSL, loaded now. */
	ossl_ok = ossl_load(ossl_why, sizeof(ossl_why)) == 0;
	if (o->verify && !ossl_ok) {
		result_set_status(res, RESULT_SKIPPED, "%s (SHA-1 for --verify-pieces)", ossl_why);
		return;
	}
	if (torrent_order_init(&tr.ord, tr.nblocks, bpp, (unsigned)o->interleave, (uint64_t)o->seed) < 0) {
		result_set_status(res, RESULT_FAILED, "no blocks to write");
		return;
	}
	gen = xaligned_alloc(DISK_ALIGN, TORRENT_BLOCK);
	vbuf = xaligned_alloc(DISK_ALIGN, TORRENT_BLOCK);
	tr.gen = gen;
	tr.vbuf = vbuf;

	tr.fd = torrent_open(env, o, res, &direct, &tmp_path, &prealloc_s);
	if (tr.fd < 0)
		goto out;
	if (!torrent_hashes(&tr, res, ossl_ok))
		result_note(res, "no content SHA-1: %s", !ossl_ok ? ossl_why : tr.hash_cut ? "its set-up allowance (with "
			    "--time) ended before the whole --size was hashed" : "stopped before it was computed");
	torrent_method(res, o, &tr.ord, direct, env->time_ns);
	if (torrent_writer_init(&tr, res) < 0)
		goto out_fd;
	torrent_timed(&tr, &m);
	torrent_report(res, &tr, &m);
	disk_report_total(res, prealloc_s, elapsed_s(m.t0, m.t1), tr.t->written);
	torrent_cache_release(&tr.cache);
out_fd:
	close(tr.fd);
out:
	disk_remove_temp(env, res, tmp_path);
#if HAVE_OPENSSL
	EVP_MD_CTX_free(tr.vctx);
#endif
	free(tr.piece_sha);
	free(tr.t);
	free(gen);
	free(vbuf);
	torrent_order_release(&tr.ord);
}
