/* SPDX-License-Identifier: MIT */
/*
 * `engpass download URL [DIR]`: the router's download path as one workload
 * (seed 000: Transmission on a 300 MHz MIPS router with forced encryption,
 * writing to a USB stick). One thread, as Transmission's peer I/O runs in
 * one thread, does the three stages in turn:
 *
 *   receive  one HTTP/1.1 GET of URL (core/http's parser, core/net_sock's
 *            connect), read at most --rate (core/ratelimit, the token
 *            bucket a bandwidth limit is);
 *   decrypt  every body byte through --cipher (core/cipher's stream use,
 *            in place, as an MSE peer's RC4 or a VPN's cipher handles what
 *            it read); the server sends plaintext, so for a stream cipher
 *            "decrypting" it is the same XOR with the keystream, and for an
 *            AEAD the tag is computed but has nothing to be checked against;
 *   write    the body in 16 KiB blocks placed by the torrent order
 *            (core/torrent: --piece, --interleave, a random piece order),
 *            through the application write cache (--cache), into a file in
 *            DIR preallocated by --prealloc, fdatasync'ed at the end.
 *
 * The i-th block received goes to the file position the torrent order
 * gives for the i-th block, so the disk sees exactly the torrent pattern
 * while the bytes come from a plain HTTP stream: the file holds the
 * resource's blocks in that order (with --interleave 1 and a --piece at
 * least the size, the order is the file's own and the file is the
 * resource, decrypted).
 *
 * Each stage's CPU is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
 * around it; receive is the read and the parsing minus the decrypt and
 * write it calls. The window (core/observe/window.h) covers connect to the final
 * fdatasync; its view gives the box's CPU idle and iowait and the device's
 * write requests (the device DIR lives on, set in sample_config()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/download/dl_blocks.h"
#include "config.h"
#include "core/kernel/blkdev.h"
#include "core/work/cipher.h"
#include "core/base/clock.h"
#include "core/work/http.h"
#include "core/kernel/net_sock.h"
#include "core/base/progress.h"
#include "core/base/ratelimit.h"
#include "core/work/tmpfile.h"
#include "core/work/torrent.h"
#include "core/observe/window.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#define DL_RBUF (64 * 1024)
#define DL_DEFAULT_TIMEOUT_NS (10 * NS_PER_SEC)
#define DL_DEFAULT_PIECE (1024 * 1024)
#define DL_DEFAULT_INTERLEAVE 4

/* --cipher's names, in the order --help shows them; each is a core/cipher name. */
static const char *const dl_ciphers[] = {
	"none", "rc4", "aes-128-ctr", "aes-256-gcm", "chacha20-poly1305", "salsa2012", NULL,
};

enum dl_prealloc { PRE_NONE, PRE_SPARSE, PRE_FULL };
static const char *const dl_preallocs[] = { "none", "sparse", "full", NULL };

struct dl_opts {
	double rate;		/* bytes/s; 0: unpaced */
	int cipher;		/* index into dl_ciphers */
	uint64_t piece;
	int64_t interleave;
	uint64_t cache;
	int prealloc;		/* enum dl_prealloc */
	bool keep;
	uint64_t timeout_ns;
	int64_t seed;
	/* set by check() */
	const char *url;
	const char *dir;
	char disk[BLKDEV_NAME_MAX];	/* the device DIR lives on; "" unknown */
	char iface[NET_IFNAME_LEN];
};

static const struct opt dl_options[] = {
	OPT_RATE("rate", 0, struct dl_opts, rate, "read at most RATE (a token bucket, as a client's download limit), "
		 "e.g. 500K/s (default: unpaced)"),
	OPT_CHOICE("cipher", 'c', struct dl_opts, cipher, dl_ciphers, "NAME",
		   "decrypt every received byte with NAME: rc4 is BitTorrent MSE's, salsa2012 and the others "
		   "fastd's (default none)"),
	OPT_SIZE("piece", 0, struct dl_opts, piece, 16384, 64 * 1024 * 1024,
		 "torrent piece size, a multiple of 16K (default 1M)"),
	OPT_INT("interleave", 0, struct dl_opts, interleave, 1, 1024, "K", "pieces in flight (default 4)"),
	OPT_SIZE("cache", 0, struct dl_opts, cache, 0, 1024 * 1024 * 1024,
		 "application write cache (default 0: one write per 16 KiB block)"),
	OPT_CHOICE("prealloc", 0, struct dl_opts, prealloc, dl_preallocs, "MODE",
		   "none, sparse (ftruncate) or full (fallocate, else zeros written) when the size is known; "
		   "timed (default sparse)"),
	OPT_FLAG("keep", 0, struct dl_opts, keep, "keep the written file in DIR (named after the URL) instead of removing it"),
	OPT_DURATION("timeout", 0, struct dl_opts, timeout_ns, NS_PER_MS, 3600 * NS_PER_SEC,
		     "longest wait to connect and for each read (default 10s)"),
	OPT_INT("seed", 0, struct dl_opts, seed, 0, INT64_MAX, "N", "the random piece order, seeded by N (default 1)"),
	OPT_END,
};

static void dl_defaults(void *p)
{
	struct dl_opts *o = p;

	o->piece = DL_DEFAULT_PIECE;
	o->interleave = DL_DEFAULT_INTERLEAVE;
	o->prealloc = PRE_SPARSE;
	o->timeout_ns = DL_DEFAULT_TIMEOUT_NS;
	o->seed = 1;
}

/* The default DIR: $TMPDIR, else /tmp. */
static const char *default_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

static int dl_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct dl_opts *o = p;
	struct blkdev_info dev;
	struct stat st;
	int r;

	if (env->npos < 1 || env->npos > 2) {
		snprintf(err, errlen, env->npos ? "unexpected argument '%s'" : "expected a URL such as http://host/file",
			 env->npos ? env->pos[2] : "");
		return -EINVAL;
	}
	if (o->piece % TORRENT_BLOCK) {
		snprintf(err, errlen, "option '--piece': must be a multiple of 16K (the torrent block)");
		return -EINVAL;
	}
	o->dir = env->npos == 2 ? env->pos[1] : default_dir();
	if (stat(o->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a directory to write the download into", o->dir);
		return -EINVAL;
	}
	if ((r = fetch_url_check(env->pos[0], o->iface, sizeof(o->iface), err, errlen)) < 0)
		return r;
	o->url = env->pos[0];
	if (blkdev_from_path(NULL, o->dir, &dev) == 0)
		snprintf(o->disk, sizeof(o->disk), "%s", dev.name);
	return 0;
}

/* The runner resolves the first argument (the URL) as the target; the device under test is DIR's. */
static void dl_sample_config(const void *p, unsigned step, struct sampler_config *cfg)
{
	const struct dl_opts *o = p;

	(void)step;
	if (o->disk[0])
		cfg->disk = o->disk;
	if (o->iface[0])
		cfg->iface = o->iface;
}

/* One download: the connection, the stages, and what they counted. */
struct dl_ctx {
	const struct bench_env *env;
	const struct dl_opts *o;
	struct fetch_url url, next_url;
	int sock;
	struct fetch_parser *fp;
	char *rbuf;
	bool redirect, finished;
	unsigned redirects;

	/* decrypt */
	enum cipher_id cid;
	struct cipher *ciph;		/* NULL for none */
	enum cipher_lib lib;

	/* write */
	int fd;
	char *path;			/* our temp file in DIR */
	uint64_t size, nblocks;
	bool have_file;
	struct torrent_order ord;
	bool have_ord;
	struct torrent_cache cache;
	bool have_cache;
	struct dl_blocks blocks;
	uint64_t partial_at;		/* file block of the short last block; UINT64_MAX none */
	uint64_t write_calls, written;
	uint64_t prealloc_ns, zero_bytes;
	const char *prealloc_how;

	/* the stages' thread CPU, ns */
	uint64_t rx_ns, dec_ns, wr_ns, nested_ns;

	/* wall clock */
	mono_ns t0, t_head, t_end;
	double thread_ns;		/* the thread's CPU over the transfer */
	uint64_t wait_net_ns, pace_ns;
	uint64_t recvs;
	/* DIR's device, /proc/diskstats at the edges of the transfer */
	struct blkdev_info dev;
	struct proc_disk ds0, ds1;
	bool have_ds;

	char err[512];
};

/* The cache's writer: all of IOV at block FIRST. */
static int dl_write(void *arg, uint64_t first, const struct iovec *iov, int iovcnt)
{
	struct dl_ctx *c = arg;
	struct iovec local[TORRENT_IOV_MAX];
	off_t off = (off_t)(first * TORRENT_BLOCK);
	int i = 0;

	memcpy(local, iov, (size_t)iovcnt * sizeof(*iov));
	c->write_calls++;
	while (i < iovcnt) {
		ssize_t n = pwritev(c->fd, local + i, iovcnt - i, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		off += n;
		c->written += (uint64_t)n;
		for (; i < iovcnt && (size_t)n >= local[i].iov_len; i++)
			n -= (ssize_t)local[i].iov_len;
		if (n) {
			local[i].iov_base = (char *)local[i].iov_base + n;
			local[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* Decrypt stage: LEN received bytes at P, in place. */
static int dl_chunk(void *arg, unsigned char *p, size_t len)
{
	struct dl_ctx *c = arg;
	uint64_t t = clock_thread_cpu_ns(), d;
	int r = cipher_stream(c->ciph, p, len);

	d = clock_thread_cpu_ns() - t;
	c->dec_ns += d;
	c->nested_ns += d;
	if (r < 0)
		snprintf(c->err, sizeof(c->err), "%s failed on %zu bytes", cipher_name(c->cid), len);
	return r;
}

/* Write stage: one whole block (LEN bytes of data) to the place the torrent order gives it. */
static int dl_block(void *arg, const unsigned char *blk, size_t len)
{
	struct dl_ctx *c = arg;
	uint64_t t = clock_thread_cpu_ns(), d;
	struct torrent_block tb;
	int r;

	if (!torrent_order_next(&c->ord, &tb)) {
		snprintf(c->err, sizeof(c->err), "more blocks than the announced size holds");
		return -EPROTO;
	}
	if (len < TORRENT_BLOCK)
		c->partial_at = tb.block;
	r = torrent_cache_put(&c->cache, tb.block, blk);
	d = clock_thread_cpu_ns() - t;
	c->wr_ns += d;
	c->nested_ns += d;
	if (r < 0)
		snprintf(c->err, sizeof(c->err), "cannot write the download in '%s': %s", c->o->dir, strerror(-r));
	return r;
}

/* fallocate(), else zeros in 1 MiB writes: --prealloc full. Returns 0 or -errno. */
static int prealloc_full(struct dl_ctx *c)
{
	unsigned char *zero;
	uint64_t off = 0;
	int r = 0;

	if (fallocate(c->fd, 0, 0, (off_t)c->size) == 0) {
		c->prealloc_how = "full: fallocate(mode 0) of the size";
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -errno;
	zero = xcalloc(1, 1024 * 1024);
	while (off < c->size && !r) {
		size_t n = c->size - off < 1024 * 1024 ? (size_t)(c->size - off) : 1024 * 1024;
		ssize_t w = pwrite(c->fd, zero, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			r = w < 0 ? -errno : -ENOSPC;
		else
			off += (uint64_t)w;
	}
	free(zero);
	c->zero_bytes = off;
	if (!r && fdatasync(c->fd) < 0)
		r = -errno;
	c->prealloc_how = "full: fallocate() refused, so zeros written over the size in 1 MiB writes and "
			  "fdatasync'ed (the device writes are in the figures)";
	return r;
}

/*
 * The size is known (the response's head): create the file in DIR,
 * preallocate it, set up the torrent order and the write cache. A write
 * stage, timed as one. Returns 0 or -errno with c->err.
 */
static int dl_open_file(struct dl_ctx *c)
{
	const struct dl_opts *o = c->o;
	uint64_t t = clock_thread_cpu_ns(), d;
	mono_ns w0 = clock_mono();
	int r;

	if ((r = tmpfile_create(c->env->tmp, o->dir, "download", 0, &c->fd, &c->path)) < 0) {
		snprintf(c->err, sizeof(c->err), "cannot create a file in '%s': %s", o->dir, strerror(-r));
		return r;
	}
	c->have_file = true;
	c->prealloc_how = "none: the file grows as blocks are written";
	if (o->prealloc == PRE_SPARSE) {
		c->prealloc_how = "sparse: ftruncate() to the size, no blocks allocated";
		r = ftruncate(c->fd, (off_t)c->size) < 0 ? -errno : 0;
	} else if (o->prealloc == PRE_FULL) {
		r = prealloc_full(c);
	}
	if (r < 0) {
		snprintf(c->err, sizeof(c->err), "cannot preallocate %llu bytes in '%s': %s",
			 (unsigned long long)c->size, o->dir, strerror(-r));
		return r;
	}
	c->prealloc_ns = clock_mono() - w0;
	c->nblocks = (c->size + TORRENT_BLOCK - 1) / TORRENT_BLOCK;
	if ((r = torrent_order_init(&c->ord, c->nblocks, (uint32_t)(o->piece / TORRENT_BLOCK), (unsigned)o->interleave,
				    (uint64_t)o->seed)) < 0) {
		snprintf(c->err, sizeof(c->err), "cannot lay out %llu blocks", (unsigned long long)c->nblocks);
		return r;
	}
	c->have_ord = true;
	if ((r = torrent_cache_init(&c->cache, (size_t)(o->cache / TORRENT_BLOCK), dl_write, c)) < 0) {
		snprintf(c->err, sizeof(c->err), "cannot allocate a write cache of %llu bytes", (unsigned long long)o->cache);
		return r;
	}
	c->have_cache = true;
	d = clock_thread_cpu_ns() - t;
	c->wr_ns += d;
	c->nested_ns += d;
	return 0;
}

static int on_head(void *ctx, const struct fetch_head *h, char *err, size_t errlen)
{
	struct dl_ctx *c = ctx;
	struct fetch_expect e = { .may_redirect = c->redirects < FETCH_REDIRECT_MAX };

	c->redirect = false;
	switch (fetch_head_check(h, &e, err, errlen)) {
	case FETCH_HEAD_REDIRECT:
		if (fetch_url_resolve(&c->url, h->location, &c->next_url, err, errlen) < 0)
			return -EINVAL;
		c->redirect = true;
		return 0;
	case FETCH_HEAD_BODY:
		break;
	default:
		if (!e.may_redirect && h->status / 100 == 3)
			snprintf(err, errlen, "more than %d redirects", FETCH_REDIRECT_MAX);
		return -EPROTO;
	}
	if (!h->have_length) {
		snprintf(err, errlen, "the server sent no Content-Length: the torrent layout needs the size before "
			 "the first block");
		return -EPROTO;
	}
	if (!h->length) {
		snprintf(err, errlen, "the resource is empty: nothing to download");
		return -EPROTO;
	}
	c->t_head = clock_mono();
	c->size = h->length;
	if (dl_open_file(c) < 0) {
		snprintf(err, errlen, "%s", c->err);
		return -EIO;
	}
	return 0;
}

static int on_body(void *ctx, const char *p, size_t n, char *err, size_t errlen)
{
	struct dl_ctx *c = ctx;
	int r;

	if (c->redirect)
		return 0;
	if (c->blocks.bytes + n > c->size) {
		snprintf(err, errlen, "more body than Content-Length %llu", (unsigned long long)c->size);
		return -EPROTO;
	}
	c->err[0] = 0;
	if ((r = dl_blocks_feed(&c->blocks, p, n)) < 0)
		snprintf(err, errlen, "%s", c->err[0] ? c->err : strerror(-r));
	return r;
}

static int on_done(void *ctx, const struct fetch_head *h, bool keep_alive, char *err, size_t errlen)
{
	struct dl_ctx *c = ctx;

	(void)h;
	(void)keep_alive;
	(void)err;
	(void)errlen;
	if (c->redirect) {
		c->redirects++;
		c->url = c->next_url;
		return FETCH_STOP;
	}
	c->finished = true;
	return FETCH_STOP;
}

static const struct fetch_parser_ops dl_ops = { .head = on_head, .body = on_body, .done = on_done };

/* Connects to c->url and sends the GET. Returns 0 or -errno with c->err. */
static int dl_request(struct dl_ctx *c)
{
	struct net_sockopts so = { .nodelay = true };
	char req[FETCH_REQ_MAX];
	int r, len;

	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	r = net_connect(c->url.host, c->url.port, SOCK_STREAM, &so, c->o->timeout_ns, c->env->stop, &c->sock);
	if (r < 0) {
		snprintf(c->err, sizeof(c->err), "cannot connect to '%s' port %u: %s", c->url.host,
			 (unsigned)c->url.port, net_connect_strerror(r));
		return r;
	}
	fetch_parser_reset(c->fp);
	len = fetch_request_format(req, sizeof(req), &c->url, false, 0, 0);
	if (len < 0) {
		snprintf(c->err, sizeof(c->err), "request too long");
		return len;
	}
	r = net_write_full(c->sock, req, (size_t)len, c->o->timeout_ns, c->env->stop);
	if (r < 0)
		snprintf(c->err, sizeof(c->err), "cannot send to %s:%u: %s", c->url.host, (unsigned)c->url.port,
			 strerror(-r));
	return r;
}

/* Receives, decrypts and writes until the body is complete. Returns 0, -EINTR, or -errno with c->err. */
static int dl_transfer(struct dl_ctx *c)
{
	const struct dl_opts *o = c->o;
	double burst = o->rate / 20 > TORRENT_BLOCK ? o->rate / 20 : TORRENT_BLOCK;
	size_t cap = o->rate > 0 && burst < DL_RBUF ? (size_t)burst : DL_RBUF;
	struct ratelimit rl;
	int r;

	ratelimit_init(&rl, o->rate, o->rate > 0 ? burst : 0, clock_mono());
	if ((r = dl_request(c)) < 0)
		return r;
	while (!c->finished) {
		mono_ns w0, now;
		uint64_t cpu0, nested0, d;
		ssize_t n;

		if (*c->env->stop)
			return -EINTR;
		w0 = clock_mono();
		r = net_wait_readable(c->sock, o->timeout_ns);
		c->wait_net_ns += clock_mono() - w0;
		if (r == -EINTR)
			continue;
		if (r == 0) {
			snprintf(c->err, sizeof(c->err), "no bytes from %s:%u within %.3g s", c->url.host,
				 (unsigned)c->url.port, (double)o->timeout_ns / 1e9);
			return -ETIMEDOUT;
		}
		if (r < 0) {
			snprintf(c->err, sizeof(c->err), "cannot wait for %s:%u: %s", c->url.host, (unsigned)c->url.port,
				 strerror(-r));
			return r;
		}
		cpu0 = clock_thread_cpu_ns();
		nested0 = c->nested_ns;
		n = recv(c->sock, c->rbuf, cap, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0) {
			r = -errno;
			snprintf(c->err, sizeof(c->err), "cannot read from %s:%u: %s", c->url.host, (unsigned)c->url.port,
				 strerror(errno));
			return r;
		}
		c->recvs++;
		r = fetch_parser_feed(c->fp, c->rbuf, (size_t)n, c->err, sizeof(c->err));
		c->rx_ns += clock_thread_cpu_ns() - cpu0 - (c->nested_ns - nested0);
		if (r < 0)
			return r;
		if (r == FETCH_STOP && !c->finished) {
			/* A redirect: c->url is the new one. */
			if ((r = dl_request(c)) < 0)
				return r;
			continue;
		}
		if (n == 0 && !c->finished) {
			snprintf(c->err, sizeof(c->err), "%s:%u closed the connection before the body was complete",
				 c->url.host, (unsigned)c->url.port);
			return -ECONNRESET;
		}
		now = clock_mono();
		if (n > 0 && (d = ratelimit_delay_ns(&rl, (uint64_t)n, now)) > 0) {
			if (clock_sleep_until(now + d) < 0 && *c->env->stop)
				return -EINTR;
			c->pace_ns += clock_mono() - now;
		}
		if (c->size)
			progress_update(c->env->progress, now, c->blocks.bytes, c->size, NULL);
	}
	return 0;
}

/* The last, partial block, the cache, the final fdatasync: the rest of the write stage. Returns 0 or -errno. */
static int dl_finish_writes(struct dl_ctx *c)
{
	uint64_t t = clock_thread_cpu_ns();
	int r;

	c->err[0] = 0;
	if ((r = dl_blocks_finish(&c->blocks)) == 0 && (r = torrent_cache_flush_all(&c->cache)) == 0) {
		/* The file is the resource's length when its short last block landed last. */
		if (c->partial_at == c->nblocks - 1 && ftruncate(c->fd, (off_t)c->size) < 0)
			r = -errno;
		else if (fdatasync(c->fd) < 0)
			r = -errno;
	}
	c->wr_ns += clock_thread_cpu_ns() - t;
	if (r < 0 && !c->err[0])
		snprintf(c->err, sizeof(c->err), "cannot write the download in '%s': %s", c->o->dir, strerror(-r));
	return r;
}

/*
 * Picks the library for cipher ID: libsodium, then OpenSSL, then mbedTLS, whichever
 * this build and machine can run. Returns 0 with c->ciph, or the last
 * library's -errno (-ENOTSUP: not in this build) with every library's
 * reason in WHY.
 */
static int dl_cipher_new(struct dl_ctx *c, enum cipher_id id, char *why, size_t whylen)
{
	static const enum cipher_lib libs[] = { CIPHER_LIB_SODIUM, CIPHER_LIB_OPENSSL, CIPHER_LIB_MBEDTLS };
	char one[256];
	size_t len = 0;
	int r = -ENOTSUP;

	why[0] = 0;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (!cipher_in_lib(id, libs[i]))
			continue;
		if ((r = cipher_new(&c->ciph, id, libs[i], TORRENT_BLOCK, one, sizeof(one))) == 0) {
			c->lib = libs[i];
			return 0;
		}
		/* Every library's reason, joined: "built without libsodium; built without openssl". */
		if (len < whylen)
			len += (size_t)snprintf(why + len, whylen - len, "%s%s", len ? "; " : "", one);
	}
	return r;
}

/* The name kept for the download in DIR: the URL path's last part, else "download". */
static void keep_name(const struct fetch_url *u, char *out, size_t len)
{
	const char *end = u->target + strcspn(u->target, "?");
	const char *start = end;

	while (start > u->target && start[-1] != '/')
		start--;
	if (end == start || (end - start == 1 && *start == '.') || (end - start == 2 && !strncmp(start, "..", 2)))
		snprintf(out, len, "download");
	else
		snprintf(out, len, "%.*s", (int)(end - start), start);
}

static void dl_keep(struct dl_ctx *c, struct result *res)
{
	char name[256], *dst;

	keep_name(&c->url, name, sizeof(name));
	dst = xasprintf("%s/%s", c->o->dir, name);
	if (link(c->path, dst) == 0)
		result_method(res, "kept", "'%s'", dst);
	else
		result_note(res, "the download was not kept: cannot link '%s': %s", dst, strerror(errno));
	free(dst);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

/* The figures, the method and the verdict's candidates. */
static void dl_report(struct dl_ctx *c, struct result *res, enum cipher_id id, const struct sysview *v)
{
	const struct dl_opts *o = c->o;
	double wall = (double)elapsed_ns(c->t0, c->t_end) / 1e9;
	double bytes = (double)c->blocks.bytes, rate = wall > 0 ? bytes / wall : NAN;
	double cpu = (double)(c->rx_ns + c->dec_ns + c->wr_ns), thread_ns;
	double rx_s = (double)c->rx_ns / 1e9, dec_s = (double)c->dec_ns / 1e9, wr_s = (double)c->wr_ns / 1e9;
	double netwait = pct((double)c->wait_net_ns / 1e9, wall);
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], next[192];
	const char *top;
	double top_s;

	thread_ns = c->thread_ns;
	if (thread_ns < cpu)
		thread_ns = cpu;
	result_metric(res, "throughput", UNIT_BYTES_PER_S, rate, "throughput");
	result_headline(res, "throughput");
	result_metric(res, "body", UNIT_BYTES, bytes, "body");
	result_metric(res, "elapsed", UNIT_SECONDS, wall, "elapsed")->higher_is_better = false;
	if (c->t_head)
		result_metric(res, "first_byte", UNIT_SECONDS, (double)elapsed_ns(c->t0, c->t_head) / 1e9,
			      "to the response head")->higher_is_better = false;
	result_metric(res, "prealloc", UNIT_SECONDS, (double)c->prealloc_ns / 1e9,
		      "preallocation")->higher_is_better = false;
	result_metric(res, "thread_cpu", UNIT_PERCENT, pct(thread_ns / 1e9, wall), "thread CPU, of one CPU")
		->higher_is_better = false;
	result_metric(res, "receive_share", UNIT_PERCENT, pct((double)c->rx_ns, thread_ns), "receive, of thread CPU");
	result_metric(res, "decrypt_share", UNIT_PERCENT, pct((double)c->dec_ns, thread_ns), "decrypt, of thread CPU");
	result_metric(res, "write_share", UNIT_PERCENT, pct((double)c->wr_ns, thread_ns), "write, of thread CPU");
	result_metric(res, "other_share", UNIT_PERCENT, pct(thread_ns - cpu, thread_ns),
		      "other, of thread CPU");
	if (thread_ns > 0 && bytes > 0) {
		result_metric(res, "cpu_per_mib", UNIT_NS, thread_ns * 1048576.0 / bytes, "thread CPU per MiB")
			->higher_is_better = false;
		result_metric(res, "decrypt_per_mib", UNIT_NS, (double)c->dec_ns * 1048576.0 / bytes, "decrypt CPU per MiB")
			->higher_is_better = false;
		result_metric(res, "one_core_rate", UNIT_BYTES_PER_S, bytes / (thread_ns / 1e9),
			      "rate that would fill one core");
	}
	result_metric(res, "receive_cpu", UNIT_SECONDS, rx_s, "receive CPU time")->higher_is_better = false;
	result_metric(res, "decrypt_cpu", UNIT_SECONDS, dec_s, "decrypt CPU time")->higher_is_better = false;
	result_metric(res, "write_cpu", UNIT_SECONDS, wr_s, "write CPU time")->higher_is_better = false;
	result_metric(res, "network_wait", UNIT_PERCENT, netwait, "waiting for bytes")
		->higher_is_better = false;
	if (o->rate > 0)
		result_metric(res, "pacing_wait", UNIT_PERCENT, pct((double)c->pace_ns / 1e9, wall),
			      "sleeping for --rate");
	result_metric(res, "reads", UNIT_COUNT, (double)c->recvs, "recv() calls");
	result_metric(res, "write_calls", UNIT_COUNT, (double)c->write_calls, "write calls");
	if (v) {
		double idle = 100.0 - v->cpu_busy_pct - v->cpu_iowait_pct;

		result_metric(res, "cpu_idle", UNIT_PERCENT, idle < 0 ? 0 : idle, "CPU idle (box)");
		result_metric(res, "cpu_iowait", UNIT_PERCENT, v->cpu_iowait_pct, "CPU iowait (box)")
			->higher_is_better = false;
	}
	if (!c->have_ds) {
		result_note(res, "'%s' is on no block device with /proc/diskstats counters (tmpfs?): no device counters",
			    o->dir);
	} else {
		double dev_bytes = (double)(c->ds1.wr_sectors - c->ds0.wr_sectors) * 512;

		result_metric(res, "device_write_requests", UNIT_COUNT, (double)(c->ds1.wr_ios - c->ds0.wr_ios),
			      "device write requests")->higher_is_better = false;
		result_metric(res, "device_written", UNIT_BYTES, dev_bytes, "device bytes written")->higher_is_better = false;
		if (bytes > 0)
			result_metric(res, "write_amplification", UNIT_RATIO, dev_bytes / bytes, "write amplification")
				->higher_is_better = false;
	}

	/* The verdict's candidates: our pacing, the thread's core (with the stage that took it), the network. */
	if (o->rate > 0) {
		snprintf(next, sizeof(next), "it ran at the --rate it was told (%s/s): a higher --rate, or none, would "
			 "move it", units_fmt_size(b, sizeof(b), o->rate, 0));
		result_verdict_candidate(res, "own pacing", rate / o->rate, next, "%s/s with --rate %s/s: the token "
					 "bucket %s", units_fmt_size(a, sizeof(a), rate, 0), b,
					 rate >= 0.9 * o->rate ? "set the pace" : "was not reached");
	}
	top = "receive";
	top_s = rx_s;
	if (dec_s > top_s) {
		top = "decrypt";
		top_s = dec_s;
	}
	if (wr_s > top_s) {
		top = "write";
		top_s = wr_s;
	}
	if (!strcmp(top, "decrypt"))
		snprintf(next, sizeof(next), "a cheaper cipher (or none) or a faster core: %s takes most of the thread",
			 cipher_name(id));
	else
		snprintf(next, sizeof(next), "a faster core: the %s stage takes most of the thread", top);
	result_verdict_candidate(res, "one core", thread_ns / 1e9 / wall, next,
				 "the download thread was busy %.0f %% of the time: receive %.0f %%, decrypt (%s) %.0f %%, "
				 "write %.0f %% of its CPU", pct(thread_ns / 1e9, wall), pct((double)c->rx_ns, thread_ns),
				 cipher_name(id), pct((double)c->dec_ns, thread_ns), pct((double)c->wr_ns, thread_ns));
	if (isfinite(netwait))
		result_verdict_candidate(res, "network", netwait / 100.0,
					 "a faster server or network: the thread waited for bytes",
					 "the thread waited for bytes from %s:%u %.0f %% of the time%s", c->url.host,
					 (unsigned)c->url.port, netwait, o->rate > 0 ? " (not counting its own pacing)" : "");
}

static void dl_method(struct dl_ctx *c, struct result *res, enum cipher_id id)
{
	const struct dl_opts *o = c->o;
	char a[UNITS_FMT_LEN];

	result_method(res, "receive", "one HTTP/1.1 GET, recv() of at most %zu bytes after poll(), parsed by "
		      "http-parser%s", o->rate > 0 ? (size_t)(o->rate / 20 > TORRENT_BLOCK ? o->rate / 20 : TORRENT_BLOCK)
		      : (size_t)DL_RBUF, o->rate > 0 ? "; a token bucket of --rate (burst 1/20 s) sleeps after each "
		      "read" : "");
	if (c->ciph)
		result_method(res, "decrypt", "%s (%s), each received piece in place as it is copied into its block: "
			      "%s. The server sends plaintext: %s", cipher_name(id), cipher_lib_version(c->ciph),
			      cipher_describe(c->ciph, CIPHER_USE_STREAM), cipher_is_aead(id) ?
			      "the tag is computed and not checked (there is none to check), its cost paid" :
			      "XOR with the keystream is the same work either way");
	else
		result_method(res, "decrypt", "none: the bytes are copied into their block and left as they are");
	result_method(res, "write", "16 KiB blocks, the i-th received to the file block the torrent order gives the "
		      "i-th (%llu pieces of %s in a random order seeded by --seed, %lld in flight taking turns); %s; "
		      "a short last block zero-padded; one fdatasync at the end",
		      (unsigned long long)(c->have_ord ? c->ord.npieces : 0),
		      units_fmt_size(a, sizeof(a), (double)o->piece, 0), (long long)o->interleave,
		      o->cache ? "through a write cache that writes its longest run of adjacent blocks with one "
		      "pwritev() when full (Transmission 4.x)" : "no cache: one pwrite per block");
	result_method(res, "prealloc", "%s, timed", c->prealloc_how ? c->prealloc_how : "not reached");
	result_method(res, "stages", "one thread; CLOCK_THREAD_CPUTIME_ID around each stage: receive = recv() and "
		      "parsing minus the decrypt and write called from it; other = the thread's CPU outside the "
		      "three (poll, sleeps, the loop)");
	result_method(res, "one_core_rate", "body bytes / the thread's CPU seconds: the rate at which this path "
		      "would keep one core of this machine busy, projected from this run (CPU per byte taken as "
		      "constant); a --rate well below it leaves that core mostly idle");
	result_method(res, "window", "connect to the final fdatasync; CPU idle = 100 - busy - iowait over all "
		      "CPUs (/proc/stat); device = the one '%s' lives on (/proc/diskstats), its write requests and "
		      "sectors read from /proc/diskstats at the edges of the transfer (every writer of the device "
		      "counts)",
		      o->dir);
}

static void dl_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct dl_opts *o = p;
	enum cipher_id id = (enum cipher_id)cipher_lookup(dl_ciphers[o->cipher]);
	struct dl_ctx *c = xcalloc(1, sizeof(*c));
	struct sysview v;
	bool have_view = false;
	uint64_t cpu0;
	char why[256], a[UNITS_FMT_LEN];
	int r;

	c->env = env;
	c->o = o;
	c->sock = c->fd = -1;
	c->partial_at = UINT64_MAX;
	c->cid = id;
	result_param(res, "url", "%s", o->url);
	result_param(res, "dir", "%s", o->dir);
	result_param(res, "cipher", "%s", dl_ciphers[o->cipher]);
	result_param(res, "rate", "%s", o->rate > 0 ? units_fmt_rate(a, sizeof(a), o->rate) : "unpaced");
	result_param(res, "piece", "%s", units_fmt_size(a, sizeof(a), (double)o->piece, 0));
	result_param(res, "interleave", "%lld", (long long)o->interleave);
	result_param(res, "cache", "%s", units_fmt_size(a, sizeof(a), (double)o->cache, 0));
	result_param(res, "prealloc", "%s", dl_preallocs[o->prealloc]);
	result_param(res, "seed", "%lld", (long long)o->seed);
	if (id != CIPHER_NONE) {
		if ((r = dl_cipher_new(c, id, why, sizeof(why))) < 0) {
			result_set_status(res, RESULT_SKIPPED, "cipher %s cannot run here: %s", cipher_name(id), why);
			goto out;
		}
		result_param(res, "library", "%s", cipher_lib_name(c->lib));
	}
	if (fetch_url_parse(o->url, &c->url, why, sizeof(why)) < 0) {
		result_set_status(res, RESULT_FAILED, "%s", why);
		goto out;
	}
	c->fp = fetch_parser_new(&dl_ops, c);
	c->rbuf = xmalloc(DL_RBUF);
	dl_blocks_init(&c->blocks, c->ciph ? dl_chunk : NULL, dl_block, c);

	if (window_begin(env->window) < 0)
		result_note(res, "the measurement window was open already");
	c->have_ds = blkdev_from_path(NULL, o->dir, &c->dev) == 0 && blkdev_diskstats(NULL, &c->dev, &c->ds0) == 0;
	cpu0 = clock_thread_cpu_ns();
	c->t0 = clock_mono();
	r = dl_transfer(c);
	if (r == 0 || (r == -EINTR && c->have_file))
		r = dl_finish_writes(c) < 0 && r == 0 ? -EIO : r;
	c->t_end = clock_mono();
	c->have_ds = c->have_ds && blkdev_diskstats(NULL, &c->dev, &c->ds1) == 0;
	c->thread_ns = (double)(clock_thread_cpu_ns() - cpu0);
	(void)window_end(env->window);
	progress_finish(env->progress);
	have_view = window_view(env->window, &v) == 0;
	dl_method(c, res, id);
	if (r == -EINTR) {
		result_set_incomplete(res);
	} else if (r < 0) {
		result_set_status(res, RESULT_FAILED, "%s", c->err[0] ? c->err : strerror(-r));
		goto out;
	}
	result_param(res, "size", "%s", units_fmt_size(a, sizeof(a), (double)c->size, 0));
	dl_report(c, res, id, have_view ? &v : NULL);
	if (o->keep && r == 0)
		dl_keep(c, res);
out:
	if (c->have_cache)
		torrent_cache_release(&c->cache);
	if (c->have_ord)
		torrent_order_release(&c->ord);
	dl_blocks_release(&c->blocks);
	if (c->fd >= 0)
		close(c->fd);
	if (c->sock >= 0)
		close(c->sock);
	if (c->path && tmpfile_remove(env->tmp, c->path) < 0)
		result_note(res, "cannot remove '%s'", c->path);
	free(c->path);
	if (c->fp)
		fetch_parser_free(c->fp);
	free(c->rbuf);
	cipher_free(c->ciph);
	free(c);
}

const struct bench bench_download = {
	.name = "download",
	.summary = "the router's download path: receive over HTTP, decrypt, write as a torrent client",
	.usage = "URL [DIR] [options]",
	.description =
		"Downloads URL (http:// only, any HTTP/1.1 server) the way a torrent client on a small router\n"
		"handles what its peers send, in one thread: receive (at most --rate), run every byte through\n"
		"--cipher's decryption (rc4 as BitTorrent's forced encryption, aes/chacha/salsa2012 as a VPN),\n"
		"and write it in 16 KiB blocks in the torrent order (--piece, --interleave, --cache,\n"
		"--prealloc) into a file in DIR (default $TMPDIR or /tmp), removed afterwards unless --keep.\n"
		"One result: the throughput, the box's CPU idle and iowait, each stage's share of the\n"
		"thread's CPU, the device's write requests, and what bounded it. A cipher this build lacks\n"
		"is skipped with the reason. Sweep --rate to see which limit leaves the CPU idle, --cipher\n"
		"to see what encryption costs.",
	.flags = BENCH_BLOCKDEV | BENCH_NETWORK | BENCH_NO_TIME,
	.opts = dl_options,
	.opts_size = sizeof(struct dl_opts),
	.defaults = dl_defaults,
	.check = dl_check,
	/* Without http-parser it never runs (unsupported_reason): its code stays out of the binary. */
	.sample_config = HAVE_HTTP_PARSER ? dl_sample_config : NULL,
	.run = HAVE_HTTP_PARSER ? dl_run : NULL,
#if !HAVE_HTTP_PARSER
	.unsupported_reason = "libhttp-parser (Debian libhttp-parser-dev) was not found or disabled "
			      "at build time: nothing to parse HTTP responses with",
#endif
};
