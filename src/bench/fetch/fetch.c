/* SPDX-License-Identifier: MIT */
/*
 * `engpass fetch URL`: seed 002's experiment against any HTTP/1.1 server.
 * Either one GET of the whole resource, or Range requests of --block
 * bytes with --depth of them in flight on one keep-alive connection
 * (depth 1: request, wait for the last byte, next request -- the SMB
 * pattern of the seed; depth 2 is dl's pipelining trick).
 *
 * The download: the first request goes alone (its Content-Range tells the
 * size), then the pipeline is kept full. Every response is checked
 * against its request (status 206, Content-Range exactly as asked, the
 * same total, the length) before a byte of it is written. A server that
 * closes after K requests (nginx keepalive_requests) answers the K-th with
 * "Connection: close" and drops what was pipelined behind it: we connect
 * again and re-send what was in flight. A 200 to the first Range request
 * means the server ignores Range: its body is the whole resource and the
 * download becomes one GET (said in a note). Redirects on the first
 * request are followed up to FETCH_REDIRECT_MAX times.
 *
 * --output FILE writes the body to a temp name beside FILE and renames it
 * when the download is complete and checked; on failure or a signal the
 * temp file is removed (tmpfile registry), so FILE never holds a wrong
 * byte. A FILE that is a device or a FIFO (/dev/null) is written in place,
 * since renaming over it would replace the node. --output - writes the body to standard output, and then the
 * result goes to standard error (output_open() moves fd 1 there).
 *
 * A server that stalls or sends too much is given up on (fetch_rules()):
 * --timeout bounds each connect and each wait for bytes; --speed-limit
 * over --speed-time (curl's low-speed rule, by default below 1 KiB/s for
 * 10 s) catches a server that drips a byte now and then; --max-time bounds
 * the whole download; --max-size the body, announced or received; bytes
 * beyond the last announced body are an error. Each says which rule fired.
 *
 * Figures: bytes over the time from the first request sent to the last
 * byte; per-request latency (request sent to last byte) into a histogram;
 * time to first byte; reconnects and re-sent requests; the depth actually
 * kept (time-weighted mean of requests in flight); the idle share (time
 * the connection waited for a response to start, summed over responses
 * and divided by the elapsed time) and, for ranges, the stop-and-wait
 * ceiling block / fastest request. The candidate limiters it offers the
 * verdict (the round trip, the TCP window, the link) are fetch_judge.c's.
 *
 * --rtt D emulates a round trip where netem is missing: a request is
 * decided as usual but written D later, and counts as sent from the
 * decision (see plan()). --server-pid reads a local server's CPU (the
 * process and its children: nginx's workers) and its cgroup's CPU quota
 * and throttling at the first request and right after the last byte
 * (fetch_server.c).
 *
 * The server's share: per response, the wait for its head beyond the
 * earliest it could have come, the request's write plus the TCP round
 * trip (or the previous response's end, whichever is later), summed over
 * the download; fetch_judge() offers it as the "server" candidate.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "core/work/http.h"
#include "bench/fetch/fetch_judge.h"
#include "bench/fetch/fetch_server.h"
#include "core/kernel/net_sock.h"
#include "config.h"
#include "core/base/clock.h"
#include "core/base/hist.h"
#include "core/observe/limits.h"
#include "core/base/progress.h"
#include "core/work/tmpfile.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#define FETCH_DEPTH_MAX 64
#define FETCH_DEFAULT_TIMEOUT_NS (10 * NS_PER_SEC)
/* The low-speed rule by default: below 1 KiB/s for 10 s gives up. */
#define FETCH_DEFAULT_SPEED_LIMIT 1024.0
#define FETCH_DEFAULT_SPEED_TIME_NS (10 * NS_PER_SEC)
#define FETCH_RBUF (256 * 1024)
/* The connection's TCP rtt is read again at most this often (one getsockopt). */
#define FETCH_RTT_EVERY NS_PER_MS
/* Connections in a row the server closed before answering anything. */
#define FETCH_BARREN_MAX 3

struct fetch_opts {
	uint64_t block;		/* 0: one GET of the whole resource */
	int64_t depth;		/* requests in flight (ranges only) */
	const char *output;	/* NULL, "-" or a file name */
	uint64_t timeout_ns;	/* per connect and per read */
	double speed_limit;	/* bytes/s; with speed_time_ns, the low-speed rule */
	uint64_t speed_time_ns;	/* 0: no low-speed rule */
	uint64_t max_time_ns;	/* 0: no overall limit */
	uint64_t max_size;	/* body bytes; 0: no limit */
	uint64_t rtt_ns;	/* emulated round trip: each request held back this long; 0 none */
	int64_t server_pid;	/* a local server whose CPU is read over the download; 0 none */
	/* set by check() */
	const char *url;
	char iface[NET_IFNAME_LEN];
};

static const struct opt fetch_options[] = {
	OPT_SIZE("block", 'b', struct fetch_opts, block, 1, 1LL << 30,
		 "Range requests of SIZE bytes (e.g. 60K) instead of one GET"),
	OPT_INT("depth", 'd', struct fetch_opts, depth, 1, FETCH_DEPTH_MAX, "N",
		"with --block: requests in flight on the connection, 1..64 (default 1: request, wait, next)"),
	OPT_STRING("output", 'o', struct fetch_opts, output, "FILE",
		   "write the body to FILE (complete and checked, or not at all); '-': standard output, "
		   "and the result to standard error"),
	OPT_DURATION("timeout", 0, struct fetch_opts, timeout_ns, NS_PER_MS, 3600 * NS_PER_SEC,
		     "longest wait to connect and for each read (default 10s)"),
	OPT_RATE("speed-limit", 0, struct fetch_opts, speed_limit,
		 "give up when fewer than RATE bytes/s arrive for --speed-time (default 1K = 1 KiB/s)"),
	OPT_DURATION("speed-time", 0, struct fetch_opts, speed_time_ns, 0, 3600 * NS_PER_SEC,
		     "the window of --speed-limit (default 10s; 0 turns the rule off)"),
	OPT_DURATION("max-time", 0, struct fetch_opts, max_time_ns, NS_PER_MS, 30 * 24 * 3600 * NS_PER_SEC,
		     "give up when the whole download takes longer (default: no limit)"),
	OPT_SIZE("max-size", 0, struct fetch_opts, max_size, 1, INT64_MAX,
		 "give up when the body is (or is announced) larger than SIZE (default: no limit)"),
	OPT_DURATION("rtt", 0, struct fetch_opts, rtt_ns, 0, 10 * NS_PER_SEC,
		     "emulate a round trip where netem is missing: each request is held back D before it is "
		     "sent (stop-and-wait pays it per block, a pipeline overlaps it)"),
	OPT_INT("server-pid", 0, struct fetch_opts, server_pid, 1, INT32_MAX, "PID",
		"a server process on this box: its CPU (with its children: nginx's workers) over the download, as CPU "
		"seconds per GB, and its cgroup's CPU quota and throttling"),
	OPT_END,
};

static void fetch_defaults(void *p)
{
	struct fetch_opts *o = p;

	o->timeout_ns = FETCH_DEFAULT_TIMEOUT_NS;
	o->speed_limit = FETCH_DEFAULT_SPEED_LIMIT;
	o->speed_time_ns = FETCH_DEFAULT_SPEED_TIME_NS;
}

static int fetch_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct fetch_opts *o = p;
	int r;

	if (o->server_pid) {
		struct fetch_server *sv;

		r = fetch_server_new(&sv, "/proc", (pid_t)o->server_pid);
		fetch_server_free(sv);
		if (r) {
			snprintf(err, errlen, "option '--server-pid': %s %lld",
				 r == -ESRCH ? "no process" : "cannot read /proc for process", (long long)o->server_pid);
			return -EINVAL;
		}
	}
	if (env->npos != 1) {
		snprintf(err, errlen, env->npos ? "unexpected argument '%s'" : "expected a URL such as http://host/file",
			 env->npos ? env->pos[1] : "");
		return -EINVAL;
	}
	if (o->depth && !o->block) {
		snprintf(err, errlen, "option '--depth' needs '--block' (a whole GET is one request)");
		return -EINVAL;
	}
	if (!o->depth)
		o->depth = 1;
	if (o->rtt_ns && o->rtt_ns >= o->timeout_ns) {
		/* A request held that long would be given up on before it is sent. */
		snprintf(err, errlen, "option '--rtt' must be shorter than '--timeout' (%.3g s)",
			 (double)o->timeout_ns / 1e9);
		return -EINVAL;
	}
	if (o->output && !*o->output) {
		snprintf(err, errlen, "option '--output': empty file name");
		return -EINVAL;
	}
	if ((r = fetch_url_check(env->pos[0], o->iface, sizeof(o->iface), err, errlen)) < 0)
		return r;
	o->url = env->pos[0];
	return 0;
}

static void fetch_sample_config(const void *p, unsigned step, struct sampler_config *cfg)
{
	const struct fetch_opts *o = p;

	(void)step;
	if (o->iface[0])
		cfg->iface = o->iface;
}

/* A request on the wire (or to be re-sent). */
struct fetch_req {
	bool ranged;
	uint64_t first, last;
	mono_ns sent;		/* decided (with --rtt) or written: its latency counts from here */
	mono_ns written;	/* its write began (with --rtt, after the hold) */
	mono_ns due;		/* --rtt: not written before this; 0 at once */
};

struct fetch_ctx {
	const struct bench_env *env;
	const struct fetch_opts *o;
	struct fetch_url url, next_url;
	int fd;
	struct fetch_parser *fp;
	char *rbuf;

	/* the plan */
	bool ranged;		/* asking for ranges (false: one GET, or after the fallback) */
	bool fell_back;		/* the server ignored Range */
	bool have_total;
	uint64_t total;		/* resource size, when known */
	uint64_t next_first;	/* next block to ask for */
	struct fetch_req q[FETCH_DEPTH_MAX];	/* in flight, oldest first */
	unsigned nq;		/* requests queued */
	unsigned nsent;		/* of those, sent on this connection (a prefix) */
	bool redirect;		/* the current response is a redirect */
	bool broken;		/* a write failed: the server closed; read what is left */
	bool in_body;		/* the head of q[0]'s response passed; c->body counts its body */
	bool finished;
	unsigned redirects;
	unsigned barren;	/* connections in a row closed without an answer */
	uint64_t answered;	/* responses complete on this connection */

	/* the body */
	int out_fd;		/* -1: not written */
	char *tmp_path;		/* temp name beside --output FILE; NULL otherwise */
	uint64_t body;		/* body bytes of the current response */

	/* figures */
	uint64_t bytes, requests, resent, reconnects;
	struct hist lat;
	mono_ns t_start, t_end, t_head, last_change, last_done;
	uint64_t ttfb_ns;
	double inflight_area;	/* sum of requests in flight x ns */
	uint64_t idle_rt_ns;	/* waiting for responses to requests sent after the previous one completed */
	uint64_t idle_srv_ns;	/* waiting for responses the server had queued */
	uint64_t srv_ns;	/* waiting for heads beyond their request's write plus the TCP rtt */
	uint64_t srv_sw_ns;	/* of it, for requests sent after the previous response completed */
	uint32_t srtt_us, min_rtt_us;	/* the connection's TCP rtt, read at most every FETCH_RTT_EVERY */
	mono_ns rtt_at;
	uint32_t path_rtt_us;	/* the least min_rtt over the connections: the path alone; 0 unknown */
	uint64_t head_ns;	/* the current response: its request sent to its head */
	double ttfb_sum_ns, req_sum_ns;	/* over the completed responses */
	uint64_t ndone;
	bool have_tcp;		/* TCP_INFO of the last connection, read as it closed */
	struct net_tcp_stats tcp;
	char iface[NET_IFNAME_LEN];
	double link_bps;

	/* the rules that end a stalled download */
	struct fetch_speed speed;	/* --speed-limit over --speed-time */
	mono_ns t_begin;		/* the first connect; --max-time counts from here */
	mono_ns last_rx;		/* the last bytes received; --timeout counts from here */
	struct fetch_server *server;	/* --server-pid: read at the first request and after the last byte */
	bool server_started, server_ended;
	char err[512];
};

/* Time-weighted requests in flight: account the time since the last change. */
static void inflight_tick(struct fetch_ctx *c, mono_ns now)
{
	/* With --rtt a request held back is on the emulated path already. */
	unsigned n = c->o->rtt_ns ? c->nq : c->nsent;

	if (c->t_start && now > c->last_change)
		c->inflight_area += (double)n * (double)(now - c->last_change);
	c->last_change = now;
}

/*
 * The download's clock starts: the server's CPU is read first (its
 * reading is not timed), then the start is taken. Returns the start.
 */
static mono_ns mark_start(struct fetch_ctx *c)
{
	if (c->server && !c->server_started) {
		fetch_server_read(c->server, 0);
		c->server_started = true;
	}
	c->t_start = c->last_change = clock_mono();
	return c->t_start;
}

static void show_progress(struct fetch_ctx *c, mono_ns now)
{
	char line[PROGRESS_WIDTH + 1];

	if (!c->env->progress->enabled)
		return;
	fetch_progress_format(line, sizeof(line), c->bytes, c->have_total ? c->total : 0,
			      c->t_start ? elapsed_ns(c->t_start, now) : 0);
	progress_show(c->env->progress, now, line);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * How long one connect or write may take: --timeout, cut to what is left
 * of --max-time (at least 1 ms; the rules look at the time afterwards).
 */
static uint64_t io_timeout(const struct fetch_ctx *c)
{
	uint64_t t = c->o->timeout_ns, used;

	if (!c->o->max_time_ns || !c->t_begin)
		return t;
	used = elapsed_ns(c->t_begin, clock_mono());
	if (used >= c->o->max_time_ns)
		return NS_PER_MS;
	return c->o->max_time_ns - used < t ? c->o->max_time_ns - used : t;
}

/* Queues what may go next: the first request alone, then ranges up to the depth. */
static void plan(struct fetch_ctx *c)
{
	unsigned nq0 = c->nq;
	mono_ns now = 0;

	if (c->finished)
		return;
	if (!c->ranged) {
		if (!c->nq)
			c->q[c->nq++] = (struct fetch_req){ .ranged = false };
	} else if (!c->have_total) {
		if (!c->nq)
			c->q[c->nq++] = (struct fetch_req){ .ranged = true, .first = 0, .last = c->o->block - 1 };
	} else {
		while (c->nq < (unsigned)c->o->depth && c->next_first < c->total) {
			uint64_t last = c->next_first + c->o->block - 1;

			if (last >= c->total)
				last = c->total - 1;
			c->q[c->nq++] = (struct fetch_req){ .ranged = true, .first = c->next_first, .last = last };
			c->next_first = last + 1;
		}
	}
	if (!c->o->rtt_ns || c->nq == nq0)
		return;
	/*
	 * The emulated round trip: a request decided now leaves after --rtt,
	 * as if the path took that long to bring it to the server and its
	 * answer back. It counts as sent (latency, in flight) from now.
	 */
	now = c->t_start ? clock_mono() : mark_start(c);
	{
		unsigned keep = c->nq;

		c->nq = nq0;
		inflight_tick(c, now);
		c->nq = keep;
	}
	for (unsigned i = nq0; i < c->nq; i++) {
		c->q[i].sent = now;
		c->q[i].due = now + c->o->rtt_ns;
	}
}

/* --rtt: ns until the next held request is due (0: now); UINT64_MAX when none is held. */
static uint64_t next_due(const struct fetch_ctx *c, mono_ns now)
{
	if (!c->o->rtt_ns || c->nsent >= c->nq || c->broken)
		return UINT64_MAX;
	return c->q[c->nsent].due > now ? c->q[c->nsent].due - now : 0;
}

/*
 * Sends every queued request not yet sent on this connection, in one
 * write. A server that has closed (EPIPE, ECONNRESET) is no error here:
 * the connection is marked broken, what it still delivers is read, and
 * its end makes the caller reconnect and re-send. Returns 0 or -errno
 * with a message in ERR.
 */
static int send_queued(struct fetch_ctx *c, char *err, size_t errlen)
{
	char *buf;
	size_t len = 0;
	mono_ns now;
	unsigned end = c->nq;
	int r;

	if (c->nsent == c->nq || c->broken)
		return 0;
	if (c->o->rtt_ns) {
		/* Only the requests whose emulated round trip is over (queued in order, so a prefix). */
		now = clock_mono();
		for (end = c->nsent; end < c->nq && c->q[end].due <= now; end++)
			;
		if (end == c->nsent)
			return 0;
	}
	buf = xmalloc((size_t)(end - c->nsent) * FETCH_REQ_MAX);
	for (unsigned i = c->nsent; i < end; i++) {
		const struct fetch_req *q = &c->q[i];
		int n = fetch_request_format(buf + len, FETCH_REQ_MAX, &c->url, q->ranged, q->first, q->last);

		if (n < 0) {
			free(buf);
			snprintf(err, errlen, "request for '%.200s' too long", c->url.target);
			return n;
		}
		len += (size_t)n;
	}
	/*
	 * A request counts from the start of its write: on loopback the write
	 * itself runs the server's receive path and may be preempted by it.
	 */
	now = c->t_start ? clock_mono() : mark_start(c);
	inflight_tick(c, now);
	for (unsigned i = c->nsent; i < end; i++) {
		if (!c->o->rtt_ns)
			c->q[i].sent = now;
		c->q[i].written = now;
	}
	c->requests += end - c->nsent;
	c->nsent = end;
	r = net_write_full(c->fd, buf, len, io_timeout(c), c->env->stop);
	free(buf);
	if (r == -EPIPE || r == -ECONNRESET) {
		c->broken = true;
		return 0;
	}
	if (r < 0)
		snprintf(err, errlen, "cannot send to %s:%u: %s", c->url.host, (unsigned)c->url.port, strerror(-r));
	return r;
}

/* The connection's TCP rtt, read again when the last reading is older than FETCH_RTT_EVERY. */
static void tcp_rtt_refresh(struct fetch_ctx *c, mono_ns now)
{
	uint32_t srtt, min_rtt;

	if (c->fd < 0 || (c->rtt_at && now - c->rtt_at < FETCH_RTT_EVERY))
		return;
	c->rtt_at = now;
	if (fetch_tcp_rtt(c->fd, &srtt, &min_rtt) < 0)
		return;
	c->srtt_us = srtt;
	c->min_rtt_us = min_rtt;
	if (min_rtt && (!c->path_rtt_us || min_rtt < c->path_rtt_us))
		c->path_rtt_us = min_rtt;
}

/*
 * The wait for response Q's head, arrived at NOW, beyond the earliest it
 * could have come: its request's write plus the TCP round trip (the
 * smoothed rtt, which holds the server's quick answers: the request's ACK
 * rides on them), or the previous response's end when that is later (the
 * wire was busy until then). What is left is the server's: its think
 * time, its queue, its CPU (a throttled quota), its disk.
 */
static void server_wait(struct fetch_ctx *c, const struct fetch_req *q, mono_ns now)
{
	mono_ns ready;

	tcp_rtt_refresh(c, now);
	ready = q->written + (mono_ns)c->srtt_us * 1000;
	if (c->last_done > ready)
		ready = c->last_done;
	if (now <= ready)
		return;
	c->srv_ns += now - ready;
	if (q->sent >= c->last_done)
		c->srv_sw_ns += now - ready;
}

static int on_head(void *ctx, const struct fetch_head *h, char *err, size_t errlen)
{
	struct fetch_ctx *c = ctx;
	struct fetch_req *q = &c->q[0];
	struct fetch_expect e;
	mono_ns now = clock_mono(), from;
	/* Before the first data response: redirects and the fallback are allowed. */
	bool first = hist_count(&c->lat) == 0 && !c->have_total;

	if (!c->nsent) {
		snprintf(err, errlen, "a response to no request");
		return -EPROTO;
	}
	e = (struct fetch_expect){
		.ranged = q->ranged, .first = q->first, .last = q->last,
		.have_total = c->have_total, .total = c->total,
		.may_redirect = first, .may_fallback = first,
	};
	c->body = 0;
	c->redirect = false;
	switch (fetch_head_check(h, &e, err, errlen)) {
	case FETCH_HEAD_ERROR:
		return -EPROTO;
	case FETCH_HEAD_REDIRECT:
		if (c->redirects >= FETCH_REDIRECT_MAX) {
			snprintf(err, errlen, "more than %d redirects", FETCH_REDIRECT_MAX);
			return -ELOOP;
		}
		if (fetch_url_resolve(&c->url, h->location, &c->next_url, err, errlen) < 0)
			return -EINVAL;
		c->redirect = true;
		return 0;
	case FETCH_HEAD_FALLBACK:
		c->ranged = false;
		c->fell_back = true;
		q->ranged = false;
		/* fall through */
	case FETCH_HEAD_BODY:
		break;
	}
	if (q->ranged && !c->have_total) {
		c->have_total = true;
		c->total = h->range.total;
		c->next_first = h->range.last + 1;
		q->last = h->range.last;
	} else if (!q->ranged) {
		c->have_total = h->have_length;
		c->total = h->length;
	}
	if (c->o->max_size && c->have_total && c->total > c->o->max_size) {
		snprintf(err, errlen, "too large: the server announced %llu bytes, over --max-size %llu",
			 (unsigned long long)c->total, (unsigned long long)c->o->max_size);
		return -EFBIG;
	}
	/*
	 * The connection sat idle from the later of request sent and previous
	 * response done. Sent after that response: a full round trip (plus the
	 * server's think time) that only a deeper pipeline hides; with --rtt
	 * the hold is part of it, as the path's delay would be. Sent before:
	 * the server had it queued and was slow to answer, except for what
	 * was left of an emulated hold (the request not yet written).
	 */
	from = q->sent > c->last_done ? q->sent : c->last_done;
	if (now > from) {
		if (q->sent >= c->last_done) {
			c->idle_rt_ns += now - from;
		} else {
			mono_ns held = q->written > from ? (q->written < now ? q->written : now) : from;

			c->idle_rt_ns += held - from;
			c->idle_srv_ns += now - held;
		}
	}
	server_wait(c, q, now);
	c->head_ns = elapsed_ns(q->sent, now);
	if (!c->t_head) {
		c->t_head = now;
		c->ttfb_ns = elapsed_ns(q->sent, now);
	}
	c->in_body = true;
	return 0;
}

static int on_body(void *ctx, const char *p, size_t n, char *err, size_t errlen)
{
	struct fetch_ctx *c = ctx;
	const struct fetch_req *q = &c->q[0];
	int r;

	if (c->redirect)
		return 0;
	if (q->ranged && c->body + n > q->last - q->first + 1) {
		snprintf(err, errlen, "more body than Content-Range 'bytes %llu-%llu' announced",
			 (unsigned long long)q->first, (unsigned long long)q->last);
		return -EPROTO;
	}
	if (c->o->max_size && c->bytes + n > c->o->max_size) {
		snprintf(err, errlen, "too large: more than %llu body bytes arrived, over --max-size %llu",
			 (unsigned long long)c->o->max_size, (unsigned long long)c->o->max_size);
		return -EFBIG;
	}
	if (c->out_fd >= 0 && (r = write_all(c->out_fd, p, n)) < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", c->o->output, strerror(-r));
		return r;
	}
	c->body += n;
	c->bytes += n;
	return 0;
}

static int on_done(void *ctx, const struct fetch_head *h, bool keep_alive, char *err, size_t errlen)
{
	struct fetch_ctx *c = ctx;
	const struct fetch_req *q = &c->q[0];
	mono_ns now = clock_mono();

	(void)h;
	inflight_tick(c, now);
	if (c->redirect) {
		c->redirects++;
		c->url = c->next_url;
		c->nq = c->nsent = 0;
		return FETCH_STOP;
	}
	if (q->ranged && c->body != q->last - q->first + 1) {
		snprintf(err, errlen, "short body: %llu of %llu bytes for 'Range: bytes=%llu-%llu'",
			 (unsigned long long)c->body, (unsigned long long)(q->last - q->first + 1),
			 (unsigned long long)q->first, (unsigned long long)q->last);
		return -EPROTO;
	}
	hist_record(&c->lat, elapsed_ns(q->sent, now));
	c->ttfb_sum_ns += (double)c->head_ns;
	c->req_sum_ns += (double)elapsed_ns(q->sent, now);
	c->ndone++;
	c->in_body = false;
	memmove(&c->q[0], &c->q[1], (size_t)(c->nq - 1) * sizeof(c->q[0]));
	c->nq--;
	c->nsent--;
	c->answered++;
	c->last_done = c->t_end = now;
	show_progress(c, now);
	if (!c->ranged || (c->next_first >= c->total && !c->nq)) {
		c->finished = true;
		return FETCH_STOP;
	}
	/* The server closes next: reconnect and re-send what was in flight. */
	if (!keep_alive)
		return FETCH_STOP;
	/*
	 * Refill the pipeline now, before the rest of the buffer (further
	 * responses, their bodies to write) is looked at, as dl does.
	 */
	plan(c);
	return send_queued(c, err, errlen);
}

static const struct fetch_parser_ops fetch_ops = { .head = on_head, .body = on_body, .done = on_done };

static int fetch_connect(struct fetch_ctx *c)
{
	struct net_sockopts so = { .nodelay = true };
	int r;

	r = net_connect(c->url.host, c->url.port, SOCK_STREAM, &so, io_timeout(c), c->env->stop, &c->fd);
	c->last_rx = clock_mono();
	if (r < 0)
		snprintf(c->err, sizeof(c->err), "cannot connect to '%s' port %u: %s", c->url.host, (unsigned)c->url.port,
			 net_connect_strerror(r));
	if (r == 0) {
		/* The handshake's round trip: the path alone, before the server's program answered anything. */
		c->rtt_at = 0;
		tcp_rtt_refresh(c, clock_mono());
	}
	fetch_parser_reset(c->fp);
	c->answered = 0;
	c->broken = false;
	c->in_body = false;
	return r;
}

static void fetch_disconnect(struct fetch_ctx *c)
{
	if (c->fd >= 0) {
		/* The last connection's TCP_INFO and interface, for the verdict's candidates. */
		if (net_sock_tcp_info(c->fd, &c->tcp) == 0)
			c->have_tcp = true;
		c->rtt_at = 0;
		tcp_rtt_refresh(c, clock_mono());
		if (!c->iface[0] && net_sock_iface(c->fd, c->iface, sizeof(c->iface)) == 0)
			c->link_bps = net_link_speed_bps("/sys", c->iface);
		close(c->fd);
	}
	c->fd = -1;
}

/*
 * The server closed (said so, or EOF between responses): connect again and
 * re-send what was in flight. Gives up when connections keep closing
 * before answering anything.
 */
static int fetch_reconnect(struct fetch_ctx *c)
{
	fetch_disconnect(c);
	c->barren = c->answered ? 0 : c->barren + 1;
	if (c->barren >= FETCH_BARREN_MAX) {
		snprintf(c->err, sizeof(c->err), "%s:%u closed the connection %d times in a row without answering",
			 c->url.host, (unsigned)c->url.port, FETCH_BARREN_MAX);
		return -ECONNRESET;
	}
	inflight_tick(c, clock_mono());
	c->resent += c->nsent;
	c->nsent = 0;
	c->reconnects++;
	if (c->o->rtt_ns) {
		/* Re-sent requests travel the emulated path again, from now. */
		mono_ns now = clock_mono();

		for (unsigned i = 0; i < c->nq; i++) {
			c->q[i].sent = now;
			c->q[i].due = now + c->o->rtt_ns;
		}
	}
	return fetch_connect(c);
}

/*
 * The download is complete and nothing more was asked for: bytes beyond
 * the last response (EXCESS of them in the last read, or already waiting
 * on the socket) are a body longer than announced, an error rather than
 * a file that silently lacks what the server meant to send. Returns 0 or
 * -EPROTO with c->err.
 */
static int check_excess(struct fetch_ctx *c, size_t excess)
{
	ssize_t more = recv(c->fd, c->rbuf, FETCH_RBUF, MSG_DONTWAIT | MSG_PEEK);

	if (more > 0)
		excess += (size_t)more;
	if (!excess)
		return 0;
	if (c->have_total && !c->ranged)
		snprintf(c->err, sizeof(c->err), "more body than announced: at least %zu bytes beyond Content-Length %llu",
			 excess, (unsigned long long)c->total);
	else
		snprintf(c->err, sizeof(c->err), "more body than announced: at least %zu bytes after the last response",
			 excess);
	return -EPROTO;
}

/*
 * The rules that end a download that is too slow, at NOW: --max-time over
 * the whole download, the low-speed rule (--speed-limit over the last
 * --speed-time), and --timeout since the last bytes arrived. Returns 0, or
 * -ETIMEDOUT with the rule and its figures in c->err. *WAIT gets how long
 * the caller may wait for the socket before looking again: until the next
 * deadline, and at most one slot of the speed window.
 */
static int fetch_rules(struct fetch_ctx *c, mono_ns now, uint64_t *wait)
{
	const struct fetch_opts *o = c->o;
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], lim[UNITS_FMT_LEN];
	uint64_t bytes, w = o->timeout_ns;

	if (o->max_time_ns) {
		if (now - c->t_begin >= o->max_time_ns) {
			snprintf(c->err, sizeof(c->err), "took too long: %s of body in %s, over --max-time %s",
				 units_fmt_size(a, sizeof(a), (double)c->bytes, UNITS_FMT_DEC1),
				 units_fmt_duration(b, sizeof(b), now - c->t_begin),
				 units_fmt_duration(lim, sizeof(lim), o->max_time_ns));
			return -ETIMEDOUT;
		}
		if (o->max_time_ns - (now - c->t_begin) < w)
			w = o->max_time_ns - (now - c->t_begin);
	}
	if (fetch_speed_stalled(&c->speed, now, &bytes)) {
		snprintf(c->err, sizeof(c->err), "stalled: %s for %s, below --speed-limit %s",
			 units_fmt_rate(a, sizeof(a), (double)bytes / ((double)o->speed_time_ns / 1e9)),
			 units_fmt_duration(b, sizeof(b), o->speed_time_ns),
			 units_fmt_rate(lim, sizeof(lim), o->speed_limit));
		return -ETIMEDOUT;
	}
	if (c->speed.window_ns && c->speed.slot_ns < w)
		w = c->speed.slot_ns;
	if (now - c->last_rx >= o->timeout_ns) {
		snprintf(c->err, sizeof(c->err), "no answer from %s:%u within %.3g s", c->url.host,
			 (unsigned)c->url.port, (double)o->timeout_ns / 1e9);
		return -ETIMEDOUT;
	}
	if (o->timeout_ns - (now - c->last_rx) < w)
		w = o->timeout_ns - (now - c->last_rx);
	*wait = w;
	return 0;
}

/*
 * Waits up to NS for FD to be readable, to the nanosecond (ppoll): an
 * emulated hold of 500 us must not become poll()'s millisecond. Returns
 * 1 readable, 0 timed out, -errno (-EINTR for a signal).
 */
static int wait_readable_ns(int fd, uint64_t ns)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	struct timespec ts = { .tv_sec = (time_t)(ns / NS_PER_SEC), .tv_nsec = (long)(ns % NS_PER_SEC) };
	int n = ppoll(&pf, 1, &ts, NULL);

	if (n < 0)
		return -errno;
	return n > 0;
}

/* Downloads; returns 0, -EINTR when stopped by a signal, or -errno with c->err. */
static int fetch_download(struct fetch_ctx *c)
{
	int r;

	c->t_begin = c->last_rx = clock_mono();
	fetch_speed_init(&c->speed, c->o->speed_limit, c->o->speed_time_ns, c->t_begin);
	if ((r = fetch_connect(c)) < 0)
		return r;
	while (!c->finished) {
		uint64_t wait;
		mono_ns now;
		ssize_t n;

		if (*c->env->stop)
			return -EINTR;
		plan(c);
		if ((r = send_queued(c, c->err, sizeof(c->err))) < 0)
			return r;
		if ((r = fetch_rules(c, clock_mono(), &wait)) < 0)
			return r;
		if (next_due(c, clock_mono()) < wait)
			r = wait_readable_ns(c->fd, next_due(c, clock_mono()));
		else
			r = net_wait_readable(c->fd, wait);
		if (r == -EINTR || r == 0)
			continue;
		if (r < 0) {
			snprintf(c->err, sizeof(c->err), "cannot wait for %s:%u: %s", c->url.host,
				 (unsigned)c->url.port, strerror(-r));
			return r;
		}
		n = recv(c->fd, c->rbuf, FETCH_RBUF, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		now = clock_mono();
		if (n > 0) {
			c->last_rx = now;
			fetch_speed_add(&c->speed, now, (uint64_t)n);
		}
		if (n < 0 && errno != ECONNRESET) {
			r = -errno;
			snprintf(c->err, sizeof(c->err), "cannot read from %s:%u: %s", c->url.host,
				 (unsigned)c->url.port, strerror(errno));
			return r;
		}
		/*
		 * A reset: seen by this read, or by a write before it (which took
		 * the error, and the read then sees only the end).
		 */
		if ((n < 0 || (n == 0 && c->broken)) && fetch_parser_in_message(c->fp)) {
			/*
			 * A server that closes with pipelined requests unread makes
			 * its kernel send a reset, and ours then drops what we had
			 * not read yet. After an answered request that is this,
			 * not a failure: ask again for the rest of the range.
			 */
			if (c->ranged && c->answered && !c->redirect) {
				if (c->in_body)
					c->q[0].first += c->body;
				c->in_body = false;
				if ((r = fetch_reconnect(c)) < 0)
					return r;
				continue;
			}
			snprintf(c->err, sizeof(c->err), "connection reset mid-response by %s:%u after %llu body bytes",
				 c->url.host, (unsigned)c->url.port,
				 (unsigned long long)fetch_parser_body_bytes(c->fp));
			return -ECONNRESET;
		}
		r = fetch_parser_feed(c->fp, c->rbuf, n < 0 ? 0 : (size_t)n, c->err, sizeof(c->err));
		if (r < 0)
			return r;
		if (r == FETCH_STOP) {
			if (c->finished)
				return check_excess(c, fetch_parser_excess(c->fp));
			/* A redirect (c->url is the new one) or a server that closes. */
			if (c->redirect) {
				fetch_disconnect(c);
				if ((r = fetch_connect(c)) < 0)
					return r;
			} else if ((r = fetch_reconnect(c)) < 0) {
				return r;
			}
			continue;
		}
		if (n <= 0 && !c->finished && (r = fetch_reconnect(c)) < 0)
			return r;
	}
	return 0;
}

/* Opens the body's destination for this repetition. Returns 0 or -errno with c->err. */
static int output_open(struct fetch_ctx *c)
{
	const char *out = c->o->output;
	char *dir, *slash;
	struct stat st;
	int r;

	c->out_fd = -1;
	if (!out || c->env->rep > 0)
		return 0;
	if (!strcmp(out, "-")) {
		/*
		 * The body owns standard output: keep it as out_fd and point fd 1
		 * at standard error, where the runner then renders the result
		 * (of every repetition: only the first writes the body).
		 */
		fflush(stdout);
		c->out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (c->out_fd < 0 || dup2(2, 1) < 0) {
			r = -errno;
			snprintf(c->err, sizeof(c->err), "cannot set up standard output for the body: %s",
				 strerror(errno));
			return r;
		}
		return 0;
	}
	if (stat(out, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		/*
		 * A device or a FIFO (/dev/null, a pipe): written in place, as
		 * curl -o does. A temp file renamed over it would replace the
		 * device node with a regular file.
		 */
		c->out_fd = open(out, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (c->out_fd < 0) {
			r = -errno;
			snprintf(c->err, sizeof(c->err), "cannot open '%s': %s", out, strerror(errno));
			return r;
		}
		return 0;
	}
	dir = xstrdup(out);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	r = tmpfile_create(c->env->tmp, slash ? dir : ".", "fetch", 0, &c->out_fd, &c->tmp_path);
	if (r < 0)
		snprintf(c->err, sizeof(c->err), "cannot create a temp file beside '%s': %s", out, strerror(-r));
	free(dir);
	return r;
}

/* Completes (OK true: rename into place) or abandons the output file. */
static int output_close(struct fetch_ctx *c, bool ok)
{
	int r = 0, unreg;

	if (!c->tmp_path) {
		if (c->out_fd >= 0)
			close(c->out_fd);
		c->out_fd = -1;
		return 0;
	}
	if (ok) {
		mode_t mask = umask(0);

		umask(mask);
		if (fchmod(c->out_fd, 0666 & ~mask) < 0 || rename(c->tmp_path, c->o->output) < 0) {
			r = -errno;
			snprintf(c->err, sizeof(c->err), "cannot rename the download to '%s': %s", c->o->output,
				 strerror(errno));
		}
	}
	close(c->out_fd);
	c->out_fd = -1;
	/*
	 * After the rename the temp name is gone and this only unregisters
	 * it. Should unlink fail, the name stays registered and the runner's
	 * tmpfile_reg_free() tries again: nothing to report here.
	 */
	unreg = tmpfile_remove(c->env->tmp, c->tmp_path);
	(void)unreg;
	free(c->tmp_path);
	c->tmp_path = NULL;
	return r;
}

/*
 * --rtt: what the emulated round trip allows and what it cost. The floor
 * is exact by construction (every request waited the hold before it was
 * written); the model rate takes the fastest request less the hold as
 * the cost of a block without the round trip.
 */
static void rtt_figures(const struct fetch_ctx *c, struct result *res, bool ranges)
{
	double rtt = (double)c->o->rtt_ns / 1e9;
	unsigned depth = ranges ? (unsigned)c->o->depth : 1;
	double floor_s = fetch_rtt_floor_s(c->requests, depth, rtt);
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], m[UNITS_FMT_LEN], r[UNITS_FMT_LEN];

	result_metric(res, "emulated_rtt", UNIT_NS, (double)c->o->rtt_ns, "emulated round trip (--rtt)")
		->higher_is_better = false;
	result_metric(res, "rtt_floor", UNIT_SECONDS, floor_s, "least time the emulated round trips add")
		->higher_is_better = false;
	if (ranges && hist_count(&c->lat)) {
		double service = (double)hist_min(&c->lat) / 1e9 - rtt;
		double model = fetch_rtt_model_rate((double)c->o->block, depth, rtt, service > 0 ? service : 0);

		result_metric(res, "rtt_model_rate", UNIT_BYTES_PER_S, model,
			      "the round-trip model's rate at this depth");
		result_method(res, "rtt model", "rate = min(depth x block / (rtt + service), block / service), "
			      "service = the fastest request less the emulated round trip (%.3g ms)",
			      service > 0 ? service * 1e3 : 0.0);
		result_note(res, "EMULATED round trip %s (requests held back by the client): depth %u, %s blocks: the "
			    "model allows %s/s, measured %s/s", units_fmt_duration(a, sizeof(a), c->o->rtt_ns), depth,
			    units_fmt_size(b, sizeof(b), (double)c->o->block, 0),
			    units_fmt_size(m, sizeof(m), model, 0),
			    units_fmt_size(r, sizeof(r), c->t_end > c->t_start ?
					   (double)c->bytes / ((double)(c->t_end - c->t_start) / 1e9) : 0, 0));
	} else {
		result_note(res, "EMULATED round trip %s (the request held back by the client)",
			     units_fmt_duration(a, sizeof(a), c->o->rtt_ns));
	}
}

/*
 * --server-pid: the server's CPU over the download (the process and its
 * children), read at the first request and right after the last byte,
 * and its cgroup's CPU quota and throttling. Fills V for the verdict;
 * false when nothing could be read.
 */
static bool server_figures(struct fetch_ctx *c, struct result *res, struct fetch_server_view *v)
{
	double gb = (double)c->bytes / 1e9;
	char q[UNITS_FMT_LEN];

	if (!c->server_started || !c->server_ended) {
		result_note(res, "server CPU unknown: the download did not start");
		return false;
	}
	fetch_server_view(c->server, v);
	result_param(res, "server_pid", "%lld", (long long)c->o->server_pid);
	result_param(res, "server_process", "%s", v->comm);
	if (v->quota_state == LIMIT_SET) {
		snprintf(q, sizeof(q), "%.3g", v->quota_cpus);
		result_method(res, "server cpu quota", "%s CPU (%s); usage %s", q, v->quota_source, v->cg_usage_source);
		if (isfinite(v->periods) && v->periods > 0) {
			result_metric(res, "server_throttled", UNIT_PERCENT, 100 * v->throttled / v->periods,
				      "server's cgroup: periods throttled")->higher_is_better = false;
			result_metric(res, "server_throttled_time", UNIT_SECONDS, v->throttled_s,
				      "server's cgroup: time throttled")->higher_is_better = false;
		}
		if (isfinite(v->cg_usage_pct))
			result_metric(res, "server_cgroup_cpu", UNIT_PERCENT, v->cg_usage_pct,
				      "server's cgroup: CPU used, of one core")->higher_is_better = false;
	} else {
		result_method(res, "server cpu quota", "%s (%s)", v->quota_state == LIMIT_NONE ? "none" : "unknown",
			      v->quota_source);
	}
	if (!v->ok || !(v->seconds > 0)) {
		result_note(res, "server CPU unknown: process %lld %s", (long long)c->o->server_pid,
			    v->ok ? "was read 0 s apart" : "exited during the download or could not be read");
		return true;
	}
	result_metric(res, "server_cpu", UNIT_SECONDS, v->cpu_s, "server CPU time over the download")
		->higher_is_better = false;
	result_metric(res, "server_cpu_share", UNIT_PERCENT, 100 * v->cpu_s / v->seconds,
		      "server CPU, of one core")->higher_is_better = false;
	if (gb > 0)
		result_metric(res, "server_cpu_per_gigabyte", UNIT_SECONDS, v->cpu_s / gb, "server CPU time per GB "
			      "downloaded")->higher_is_better = false;
	result_metric(res, "server_processes", UNIT_COUNT, (double)v->nproc, "server processes counted");
	result_method(res, "server cpu", "utime + stime (+ reaped children's) of /proc/PID/stat of process %lld "
		      "and its descendants (%u process%s; nginx's workers under its master), read at the first "
		      "request and right after the last byte, %.3f s apart; per GB = CPU seconds per 10^9 body "
		      "bytes; resolution 1/%ld s", (long long)c->o->server_pid, v->nproc, v->nproc == 1 ? "" : "es",
		      v->seconds, v->clk_tck);
	if (v->ticks < 20)
		result_note(res, "server CPU is coarse: %llu ticks of 1/%ld s; a larger download gives a finer "
			    "figure", (unsigned long long)v->ticks, v->clk_tck);
	if (v->gone)
		result_note(res, "%u server process%s exited during the download: %s CPU is not counted", v->gone,
			    v->gone == 1 ? "" : "es", v->gone == 1 ? "its" : "their");
	result_note(res, "server CPU counts process %lld ('%s') and its descendants: other clients' work on them is "
		    "not separated", (long long)c->o->server_pid, v->comm);
	return true;
}

static void report(struct fetch_ctx *c, struct result *res)
{
	uint64_t span = c->t_end > c->t_start ? c->t_end - c->t_start : 0;
	double secs = (double)span / 1e9;
	double rt_pct = span ? 100.0 * (double)c->idle_rt_ns / (double)span : 0;
	double srv_pct = span ? 100.0 * (double)c->idle_srv_ns / (double)span : 0;
	double wait_pct = span ? 100.0 * (double)c->srv_ns / (double)span : 0;
	struct fetch_server_view sv;
	bool have_sv = c->server && server_figures(c, res, &sv);
	double rate = secs > 0 ? (double)c->bytes / secs : 0, ceiling = 0;
	bool ranges = c->o->block && !c->fell_back;

	result_metric(res, "rate", UNIT_BYTES_PER_S, rate, "download rate");
	result_headline(res, "rate");
	result_metric(res, "body", UNIT_BYTES, (double)c->bytes, "body bytes");
	result_metric(res, "requests", UNIT_COUNT, (double)c->requests, "requests sent");
	result_metric(res, "resent", UNIT_COUNT, (double)c->resent, "requests re-sent after a reconnect")
		->higher_is_better = false;
	result_metric(res, "reconnects", UNIT_COUNT, (double)c->reconnects, "reconnects")->higher_is_better = false;
	result_metric(res, "redirects", UNIT_COUNT, (double)c->redirects, "redirects followed")
		->higher_is_better = false;
	result_metric(res, "ttfb", UNIT_NS, (double)c->ttfb_ns, "time to first byte")->higher_is_better = false;
	if (hist_count(&c->lat)) {
		result_metric(res, "lat_min", UNIT_NS, (double)hist_min(&c->lat), "request latency min")
			->higher_is_better = false;
		result_metric(res, "lat_p50", UNIT_NS, (double)hist_percentile(&c->lat, 50), "request latency p50")
			->higher_is_better = false;
		result_metric(res, "lat_p99", UNIT_NS, (double)hist_percentile(&c->lat, 99), "request latency p99")
			->higher_is_better = false;
		result_metric(res, "lat_max", UNIT_NS, (double)hist_max(&c->lat), "request latency max")
			->higher_is_better = false;
		result_hist(res, "lat", UNIT_NS, &c->lat);
	}
	result_metric(res, "depth_kept", UNIT_COUNT, span ? c->inflight_area / (double)span : 0,
		      "requests in flight, time-weighted mean");
	result_metric(res, "idle_round_trip", UNIT_PERCENT, rt_pct, "idle, waiting a round trip")
		->higher_is_better = false;
	result_metric(res, "idle_server", UNIT_PERCENT, srv_pct, "idle, server slow with requests queued")
		->higher_is_better = false;
	result_metric(res, "server_wait", UNIT_PERCENT, wait_pct, "waiting for the server beyond the round trip")
		->higher_is_better = false;
	if (c->path_rtt_us)
		result_metric(res, "tcp_min_rtt", UNIT_NS, (double)c->path_rtt_us * 1e3,
			      "TCP_INFO least rtt (the handshake's: the path alone)")->higher_is_better = false;
	result_method(res, "server_wait", "per response, the wait for its head beyond the earliest it could "
		      "come: its request's write plus the connection's smoothed TCP rtt (TCP_INFO, read at most every "
		      "millisecond), or the previous response's end when later; summed, as a share of the elapsed "
		      "time: the server's think time, queue, CPU or quota, not the path");
	if (ranges && hist_count(&c->lat) && hist_min(&c->lat)) {
		ceiling = (double)c->o->block / ((double)hist_min(&c->lat) / 1e9);
		result_metric(res, "stop_and_wait_ceiling", UNIT_BYTES_PER_S, ceiling,
			      "stop-and-wait ceiling (block / fastest request)");
	}
	if (c->o->rtt_ns)
		rtt_figures(c, res, ranges);
	if (ranges && c->o->depth > 1 && span && c->inflight_area / (double)span < 0.9 * (double)c->o->depth)
		result_note(res, "the pipeline held %.2f requests on average, fewer than --depth %lld",
			    c->inflight_area / (double)span, (long long)c->o->depth);

	if (c->have_tcp) {
		if (c->tcp.rtt_us != NET_TCP_UNKNOWN)
			result_metric(res, "tcp_rtt", UNIT_NS, (double)c->tcp.rtt_us * 1e3, "TCP_INFO smoothed rtt")
				->higher_is_better = false;
		if (c->tcp.total_retrans != NET_TCP_UNKNOWN)
			result_metric(res, "tcp_retransmits", UNIT_COUNT, (double)c->tcp.total_retrans,
				      "TCP_INFO retransmits (the client's requests)")->higher_is_better = false;
		result_method(res, "tcp_info", "TCP_INFO of the last connection as it closed: the smoothed rtt; the "
			      "server's window figures are its own and not visible here");
	}
	if (c->ndone)
		result_metric(res, "ttfb_mean", UNIT_NS, c->ttfb_sum_ns / (double)c->ndone,
			      "time to first byte, mean over requests")->higher_is_better = false;
	{
		struct fetch_figures f = {
			.rate = rate,
			.idle_rt_pct = span ? rt_pct : NAN,
			.idle_srv_pct = span ? srv_pct : NAN,
			.mean_ttfb_s = c->ndone ? c->ttfb_sum_ns / (double)c->ndone / 1e9 : NAN,
			.mean_req_s = c->ndone ? c->req_sum_ns / (double)c->ndone / 1e9 : NAN,
			.requests = c->ndone,
			.ranged = ranges,
			.block = c->o->block,
			.depth = (unsigned)c->o->depth,
			.rtt_s = c->have_tcp && c->tcp.rtt_us != NET_TCP_UNKNOWN ? (double)c->tcp.rtt_us / 1e6 : NAN,
			.link_bps = c->link_bps,
			.emulated_rtt_s = (double)c->o->rtt_ns / 1e9,
			.server_wait_pct = span ? wait_pct : NAN,
			.server_sw_pct = span ? 100.0 * (double)c->srv_sw_ns / (double)span : NAN,
			.path_rtt_s = c->path_rtt_us ? (double)c->path_rtt_us / 1e6 : NAN,
			.server = have_sv ? &sv : NULL,
		};

		snprintf(f.iface, sizeof(f.iface), "%s", c->iface);
		fetch_judge(&f, res);
	}
}

static void fetch_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct fetch_opts *o = p;
	struct fetch_ctx *c = xcalloc(1, sizeof(*c));
	char err[512];
	int r;

	c->env = env;
	c->o = o;
	c->fd = -1;
	c->out_fd = -1;
	c->link_bps = -1;
	hist_init(&c->lat);
	result_param(res, "url", "%s", o->url);
	result_param(res, "mode", "%s", o->block ? "ranges" : "single GET");
	if (o->block) {
		result_param(res, "block", "%llu", (unsigned long long)o->block);
		result_param(res, "depth", "%lld", (long long)o->depth);
	}
	result_param(res, "output", "%s", o->output ? o->output : "(discarded)");
	{
		char r1[UNITS_FMT_LEN], d1[UNITS_FMT_LEN];

		if (o->speed_time_ns && o->speed_limit > 0)
			result_param(res, "speed_limit", "below %s for %s gives up",
				     units_fmt_rate(r1, sizeof(r1), o->speed_limit),
				     units_fmt_duration(d1, sizeof(d1), o->speed_time_ns));
		else
			result_param(res, "speed_limit", "off");
		if (o->max_time_ns)
			result_param(res, "max_time", "%s", units_fmt_duration(d1, sizeof(d1), o->max_time_ns));
		if (o->max_size)
			result_param(res, "max_size", "%llu", (unsigned long long)o->max_size);
	}
	if (fetch_url_parse(o->url, &c->url, err, sizeof(err)) < 0) {
		result_set_status(res, RESULT_FAILED, "%s", err);
		free(c);
		return;
	}
	c->ranged = o->block != 0;
	result_method(res, "protocol", "HTTP/1.1 GET over one TCP connection (TCP_NODELAY), keep-alive; "
		      "responses parsed by nodejs http-parser 2.9");
	result_method(res, "requests", o->block ?
		      "Range: bytes=A-B of --block bytes; the first alone (it tells the size), then up to "
		      "--depth in flight, the next sent as soon as a response is complete" :
		      "one GET of the whole resource");
	result_method(res, "checks", "every response: status (206 for ranges), Content-Range exactly as asked "
		      "with the same total, body length; bytes are written only after their head passed");
	result_method(res, "rate", "body bytes / wall time (CLOCK_MONOTONIC) from the first request sent to the "
		      "last byte received; reconnects and re-sent requests included, the first connect not");
	result_method(res, "latency", "per request, from the start of writing the request to its last body byte; a re-sent request "
		      "counts from its re-sending");
	result_method(res, "ttfb", "from the start of writing the first request to its response head parsed");
	result_method(res, "depth_kept", "requests written and not yet complete, averaged over time");
	result_method(res, "idle", "per response, the time from the later of its request written and the "
		      "previous response complete until its head arrived, summed over the responses, as a share "
		      "of the elapsed time; round trip when the request was written after the previous response "
		      "completed (the client had nothing in flight), server when the server had it queued%s",
		      o->rtt_ns ? "; with --rtt a request decided after the previous response completed is all round "
				  "trip (the hold, the path, the server's think time), and of a queued one the time it "
				  "was still held" : "");
	if (o->block)
		result_method(res, "ceiling", "stop-and-wait ceiling = block / fastest request latency: the best "
			      "depth 1 could do if every request were as fast as the fastest");
	result_method(res, "reconnects", "a server that closes (Connection: close, or end of stream between "
		      "responses) is connected again and the requests in flight are re-sent");
	if (o->output)
		result_method(res, "output", "body written with write() as it arrives; the time to write it is "
			      "included");
	if (o->rtt_ns) {
		char d[UNITS_FMT_LEN];

		result_param(res, "rtt", "%s emulated", units_fmt_duration(d, sizeof(d), o->rtt_ns));
		result_method(res, "emulated rtt", "EMULATION, not a network delay: each request is held back by the "
			      "client %s (or a little more: the wait is ppoll()'s, with the timer's slack) before it is "
			      "written, as if the path took that long to bring it to the server and its answer back; "
			      "it counts as sent, in flight and waiting a round trip from the moment it was decided. "
			      "Stop-and-wait pays it per block, a pipeline of depth d overlaps d of them. The TCP "
			      "connect and the server's own sending are not delayed", d);
	}
	if (o->server_pid) {
		if (fetch_server_new(&c->server, "/proc", (pid_t)o->server_pid) < 0) {
			result_set_status(res, RESULT_FAILED, "--server-pid: no process %lld", (long long)o->server_pid);
			free(c);
			return;
		}
	}

	c->fp = fetch_parser_new(&fetch_ops, c);
	c->rbuf = xmalloc(FETCH_RBUF);
	if (!c->fp) {
		result_set_status(res, RESULT_SKIPPED, "built without libhttp-parser");
		goto out;
	}
	if ((r = output_open(c)) < 0) {
		result_set_status(res, RESULT_FAILED, "%s", c->err);
		goto out;
	}
	if (o->output && env->rep > 0)
		result_note(res, "the body was written by the first repetition only");
	show_progress(c, clock_mono());
	r = fetch_download(c);
	if (c->server_started) {
		fetch_server_read(c->server, 1);
		c->server_ended = true;
	}
	if (r == -ETIMEDOUT && o->max_time_ns && elapsed_ns(c->t_begin, clock_mono()) >= o->max_time_ns) {
		uint64_t wait;

		/* A connect or write cut short by --max-time: say so, not "timed out". */
		(void)fetch_rules(c, clock_mono(), &wait);
	}
	fetch_disconnect(c);
	if (r == -EINTR || (r < 0 && *env->stop)) {
		(void)output_close(c, false);
		if (o->output)
			result_note(res, "stopped by a signal: %s", strcmp(o->output, "-") ?
				    "the output file was not written" : "standard output holds part of the body");
		report(c, res);
		goto out;
	}
	if (r < 0) {
		(void)output_close(c, false);
		result_set_status(res, RESULT_FAILED, "%s", c->err);
		goto out;
	}
	if (output_close(c, true) < 0) {
		result_set_status(res, RESULT_FAILED, "%s", c->err);
		goto out;
	}
	if (c->fell_back)
		result_note(res, "the server ignored Range (status 200): fell back to one GET of the whole resource");
	if (c->redirects)
		result_note(res, "followed %u redirect%s to %s", c->redirects, c->redirects == 1 ? "" : "s",
			    c->url.target);
	report(c, res);
out:
	fetch_server_free(c->server);
	fetch_parser_free(c->fp);
	free(c->rbuf);
	free(c);
}

/*
 * --verify: the round trip is tested with twice the requests in flight
 * (docs/verdict.md "Checking the verdict"); the server and the network
 * are not engpass's to change.
 */
static int fetch_relax(const void *p, void *probe, const char *resource, const struct result *res,
		       const struct bench_env *env, struct bench_relax *out)
{
	const struct fetch_opts *o = p;
	struct fetch_opts *q = probe;

	(void)res;
	(void)env;
	if (strcmp(resource, "round trip")) {
		snprintf(out->why, sizeof(out->why), "fetch has no probe for %s", resource);
		return 0;
	}
	if (!o->block) {
		snprintf(out->why, sizeof(out->why), "one GET of the whole resource has no requests to add "
			 "(--block SIZE asks in ranges)");
		return 0;
	}
	if (2 * o->depth > FETCH_DEPTH_MAX) {
		snprintf(out->why, sizeof(out->why), "already %lld requests in flight, the most --depth takes",
			 (long long)o->depth);
		return 0;
	}
	q->depth = 2 * o->depth;
	snprintf(out->what, sizeof(out->what), "%lld requests in flight", (long long)q->depth);
	snprintf(out->params, sizeof(out->params), "--depth %lld", (long long)q->depth);
	return 1;
}

const struct bench bench_fetch = {
	.name = "fetch",
	.summary = "HTTP/1.1 download, whole or in pipelined Range blocks, with dl's progress line",
	.usage = "URL [--block SIZE [--depth N]] [--output FILE|-] [--timeout D] [--speed-limit RATE] "
		 "[--speed-time D] [--max-time D] [--max-size SIZE] [--rtt D] [--server-pid PID]",
	.description =
		"Downloads URL (http:// only, no TLS) from any HTTP/1.1 server: one GET of the whole\n"
		"resource, or with --block Range requests of that size, --depth of them pipelined on\n"
		"one keep-alive connection (depth 1: request, wait, next, as SMB does). Reconnects and\n"
		"re-sends when the server closes after K requests; follows up to 5 redirects; falls\n"
		"back to one GET when the server ignores Range. Checks every response (status,\n"
		"Content-Range, length). Reports the rate, request latencies, time to first byte,\n"
		"reconnects, the depth actually kept, and whether the download was round-trip bound.\n"
		"--output FILE gets the body only when it is complete; with --output - the body goes\n"
		"to standard output and the result to standard error. A stalled download ends:\n"
		"below --speed-limit (1 KiB/s) for --speed-time (10s), past --max-time, or with a\n"
		"body over --max-size. --rtt D emulates a round trip where netem is missing (each\n"
		"request held back D by the client); --server-pid PID gives a local server's CPU per GB\n"
		"(with its children: nginx's workers) and its cgroup's CPU quota and throttling over the\n"
		"download. A server slow to answer beyond the round trip is the \"server\" candidate of\n"
		"the verdict. See docs/fetch.md.",
	.flags = BENCH_NETWORK | BENCH_NO_TIME,
	.relax = fetch_relax,
	.opts = fetch_options,
	.opts_size = sizeof(struct fetch_opts),
	.defaults = fetch_defaults,
	.check = fetch_check,
	/* Without http-parser it never runs (unsupported_reason): its code stays out of the binary. */
	.sample_config = HAVE_HTTP_PARSER ? fetch_sample_config : NULL,
	.run = HAVE_HTTP_PARSER ? fetch_run : NULL,
#if !HAVE_HTTP_PARSER
	.unsupported_reason = "libhttp-parser (Debian libhttp-parser-dev) was not found or disabled "
			      "(meson -Dhttp_parser)",
#endif
};
