/* SPDX-License-Identifier: MIT */
/*
 * `engpass net client HOST --mode rr|stream`: seed 002's experiment.
 *
 * rr: ask for --block bytes at an offset and keep --depth requests in
 * flight (depth 1 = stop-and-wait, as SMB fetched the seed's file; 2 = the
 * trick that took it from 59 to 92 MB/s). stream: one request for the whole
 * --size (or for as long as --time), the "plain HTTP" line of the seed.
 *
 * Before the test, five empty requests measure the round trip (their
 * smallest latency, the server's --delay included): block / RTT is the
 * stop-and-wait ceiling printed beside the measured rate. During the test
 * every request's latency (sent to last byte received) goes into a
 * histogram and the number in flight is integrated over time (the depth
 * actually kept). At END the server sends its accounting; the verdict
 * rests on it (net_rr.h, rr_judge()).
 *
 * Responses must come in request order, each frame with the id and the
 * offset the client expects, no longer than what is left of its request:
 * anything else fails the test with the reason. Every wait is bounded by
 * --connect-timeout.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/net/net_priv.h"
#include "bench/net/net_rr.h"
#include "lib/units.h"
#include "config.h"
#include "core/base/clock.h"
#include "core/base/hist.h"
#include "core/observe/window.h"
#include "lib/xalloc.h"

#define RR_PINGS 5
#define RR_RBUF (256u << 10)
#define RR_DRAIN_NS (10 * NS_PER_SEC)	/* longest wait for STATS after END */

/* A receive buffer: frames are parsed out of large reads. */
struct rbuf {
	int fd;
	uint8_t *buf;
	size_t start, end;
	uint64_t timeout_ns;
	volatile sig_atomic_t *stop;
};

/* Makes at least N (<= RR_RBUF) bytes available. Returns 0 or -errno (-ECONNRESET at EOF). */
static int rbuf_need(struct rbuf *b, size_t n)
{
	mono_ns deadline = clock_mono() + b->timeout_ns;

	if (b->end - b->start >= n)
		return 0;
	memmove(b->buf, b->buf + b->start, b->end - b->start);
	b->end -= b->start;
	b->start = 0;
	while (b->end < n) {
		ssize_t got = recv(b->fd, b->buf + b->end, RR_RBUF - b->end, MSG_DONTWAIT);

		if (got > 0) {
			b->end += (size_t)got;
			continue;
		}
		if (got == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (b->stop && *b->stop)
			return -EINTR;
		{
			mono_ns now = clock_mono();
			struct pollfd pf = { .fd = b->fd, .events = POLLIN };
			int ms;

			if (now >= deadline)
				return -ETIMEDOUT;
			ms = (int)((deadline - now + NS_PER_MS - 1) / NS_PER_MS);
			if (poll(&pf, 1, ms) < 0 && errno != EINTR)
				return -errno;
		}
	}
	return 0;
}

struct rr_client {
	const struct bench_env *env;
	const struct net_opts *o;
	struct result *res;
	struct rbuf rb;
	int fd;
	uint64_t rto;
	char err[160];
};

static int send_request(struct rr_client *c, uint32_t type, uint64_t id, uint64_t offset, uint64_t len)
{
	uint8_t out[RR_REQUEST_LEN];
	struct rr_request r = { .type = type, .id = id, .offset = offset, .len = len };

	rr_request_encode(&r, out);
	return net_write_full(c->fd, out, sizeof(out), c->rto, c->env->stop);
}

/* Reads one frame header. Returns 0 or -errno/-EPROTO (reason in c->err). */
static int read_frame(struct rr_client *c, struct rr_frame *f)
{
	int r = rbuf_need(&c->rb, RR_FRAME_LEN);

	if (r < 0)
		return r;
	r = rr_frame_decode(c->rb.buf + c->rb.start, f, c->err, sizeof(c->err));
	c->rb.start += RR_FRAME_LEN;
	return r;
}

/* Consumes N payload bytes (discarded). */
static int skip_payload(struct rr_client *c, uint64_t n)
{
	while (n) {
		size_t take;
		int r;

		if (c->rb.end == c->rb.start && (r = rbuf_need(&c->rb, 1)) < 0)
			return r;
		take = c->rb.end - c->rb.start;
		if (take > n)
			take = (size_t)n;
		c->rb.start += take;
		n -= take;
	}
	return 0;
}

/* What went wrong, as the result's one line. */
static void fail(struct rr_client *c, int r, const char *while_)
{
	if (r == -EPROTO)
		result_set_status(c->res, RESULT_FAILED, "server '%s' broke the rr protocol while %s: %s", c->o->host,
				  while_, c->err);
	else if (r == -ETIMEDOUT)
		result_set_status(c->res, RESULT_FAILED, "server '%s' sent nothing for %.3g s while %s", c->o->host,
				  (double)c->rto / 1e9, while_);
	else if (r == -EINTR)
		result_set_status(c->res, RESULT_FAILED, "stopped by signal while %s", while_);
	else
		result_set_status(c->res, RESULT_FAILED, "server '%s' while %s: %s", c->o->host, while_,
				  strerror(r < 0 ? -r : r));
}

/* Checks a DATA frame against the request it must belong to. */
static int check_frame(struct rr_client *c, const struct rr_frame *f, uint64_t id, uint64_t offset, uint64_t left)
{
	if (f->type != RR_DATA) {
		snprintf(c->err, sizeof(c->err), "STATS before END");
		return -EPROTO;
	}
	if (f->id != id || f->offset != offset || f->len > left || (f->len == 0 && left)) {
		snprintf(c->err, sizeof(c->err), "frame for request %llu at %llu (%u bytes); expected request %llu at %llu",
			 (unsigned long long)f->id, (unsigned long long)f->offset, (unsigned)f->len,
			 (unsigned long long)id, (unsigned long long)offset);
		return -EPROTO;
	}
	return 0;
}

/* The smallest latency of RR_PINGS empty requests, in ns. */
static int measure_rtt(struct rr_client *c, uint64_t *rtt)
{
	*rtt = UINT64_MAX;
	for (uint64_t i = 0; i < RR_PINGS; i++) {
		mono_ns t0 = clock_mono();
		struct rr_frame f;
		int r;

		if ((r = send_request(c, RR_GET, i, 0, 0)) < 0 || (r = read_frame(c, &f)) < 0 ||
		    (r = check_frame(c, &f, i, 0, 0)) < 0)
			return r;
		if (clock_mono() - t0 < *rtt)
			*rtt = clock_mono() - t0;
	}
	return 0;
}

struct rr_run {
	uint64_t bytes, requests;
	mono_ns start, end;
	double depth_integral;		/* requests x ns */
	struct hist lat;
	bool incomplete;
};

/* --mode rr: keeps DEPTH requests of BLOCK bytes in flight. */
static int run_rr(struct rr_client *c, uint64_t block, uint32_t depth, uint64_t total, mono_ns deadline,
		  struct rr_run *out)
{
	mono_ns *sent = xcalloc(depth, sizeof(*sent));
	uint64_t *lens = xcalloc(depth, sizeof(*lens));
	uint64_t next_id = RR_PINGS, oldest = RR_PINGS, requested = 0, offset = 0;
	uint64_t cur_off = 0, cur_left = 0;
	uint32_t inflight = 0;
	mono_ns last_change;
	bool issuing = true;
	int r = 0;

	out->start = last_change = clock_mono();
	while (issuing || inflight) {
		struct rr_frame f;
		mono_ns now;

		while (issuing && inflight < depth) {
			uint64_t len = block;

			if (total && total - requested < len)
				len = total - requested;
			now = clock_mono();
			if ((r = send_request(c, RR_GET, next_id, offset, len)) < 0)
				goto out;
			out->depth_integral += (double)inflight * (double)(now - last_change);
			last_change = now;
			sent[next_id % depth] = now;
			lens[next_id % depth] = len;
			if (!inflight) {
				cur_off = offset;
				cur_left = len;
			}
			inflight++;
			next_id++;
			offset += len;
			requested += len;
			if (total && requested >= total)
				issuing = false;
		}
		if ((r = read_frame(c, &f)) < 0 || (r = check_frame(c, &f, oldest, cur_off, cur_left)) < 0 ||
		    (r = skip_payload(c, f.len)) < 0)
			goto out;
		cur_off += f.len;
		cur_left -= f.len;
		out->bytes += f.len;
		now = clock_mono();
		if (!cur_left) {
			hist_record(&out->lat, now - sent[oldest % depth]);
			out->requests++;
			out->depth_integral += (double)inflight * (double)(now - last_change);
			last_change = now;
			inflight--;
			oldest++;
			out->end = now;
			if (inflight) {
				/* The next request's offset follows this one's. */
				cur_left = lens[oldest % depth];
			}
		}
		if (issuing && ((deadline && now >= deadline) || *c->env->stop)) {
			issuing = false;
			out->incomplete = *c->env->stop != 0;
		}
	}
out:
	free(sent);
	free(lens);
	return r;
}

/* --mode stream: one request for TOTAL bytes (or until DEADLINE). */
static int run_stream(struct rr_client *c, uint64_t total, mono_ns deadline, struct rr_run *out)
{
	uint64_t want = total ? total : RR_STREAM_UNBOUNDED, off = 0;
	int r;

	out->start = clock_mono();
	if ((r = send_request(c, RR_STREAM, RR_PINGS, 0, want)) < 0)
		return r;
	while (off < want) {
		struct rr_frame f;
		mono_ns now;

		if ((r = read_frame(c, &f)) < 0 || (r = check_frame(c, &f, RR_PINGS, off, want - off)) < 0 ||
		    (r = skip_payload(c, f.len)) < 0)
			return r;
		off += f.len;
		now = clock_mono();
		out->bytes = off;
		out->end = now;
		if ((deadline && now >= deadline) || *c->env->stop) {
			out->incomplete = *c->env->stop != 0;
			break;
		}
	}
	if (off >= want) {
		hist_record(&out->lat, out->end - out->start);
		out->requests = 1;
	}
	out->depth_integral = (double)(out->end - out->start);
	return 0;
}

/* Sends END and reads (discarding the rest of a stream) up to the STATS frame. */
static int finish(struct rr_client *c, struct rr_stats *st)
{
	mono_ns deadline = clock_mono() + RR_DRAIN_NS;
	int r;

	if ((r = send_request(c, RR_END, 0, 0, 0)) < 0)
		return r;
	for (;;) {
		struct rr_frame f;

		if (clock_mono() > deadline) {
			snprintf(c->err, sizeof(c->err), "no STATS within %d s of END", (int)(RR_DRAIN_NS / NS_PER_SEC));
			return -EPROTO;
		}
		if ((r = read_frame(c, &f)) < 0)
			return r;
		if (f.type == RR_STATS)
			break;
		if ((r = skip_payload(c, f.len)) < 0)
			return r;
	}
	if ((r = rbuf_need(&c->rb, RR_STATS_LEN)) < 0)
		return r;
	r = rr_stats_decode(c->rb.buf + c->rb.start, st, c->err, sizeof(c->err));
	c->rb.start += RR_STATS_LEN;
	return r;
}

static void report(struct rr_client *c, const struct rr_welcome *w, uint64_t rtt, const struct rr_run *run,
		   const struct rr_stats *st, const struct sysview *v, double cpu_s, double thread_cpu_s, double link_bps)
{
	struct result *res = c->res;
	const struct net_opts *o = c->o;
	bool stream = o->mode == NET_MODE_STREAM;
	double sec = (double)(run->end - run->start) / 1e9;
	struct rr_figures f = { .stream = stream, .link_bps = link_bps, .busiest_cpu = -1 };
	char a[UNITS_FMT_LEN];
	uint64_t ceil_rtt;

	f.throughput = sec > 0 ? (double)run->bytes / sec : NAN;
	f.block = stream ? (double)run->bytes : (double)o->block;
	f.depth_kept = sec > 0 ? run->depth_integral / (sec * 1e9) : NAN;
	f.rtt_s = (double)rtt / 1e9;
	/*
	 * The ceiling's round trip: the pings' smallest, or the test's fastest
	 * request when that was faster (five pings on a busy box can all be
	 * slower than the run's best request, and a ceiling the run beats is
	 * no ceiling).
	 */
	ceil_rtt = rtt;
	if (run->lat.count && hist_min(&run->lat) < ceil_rtt)
		ceil_rtt = hist_min(&run->lat);
	f.ceiling = ceil_rtt ? (double)o->block / ((double)ceil_rtt / 1e9) : NAN;
	f.idle_pct = st && st->session_ns ? 100.0 * (double)st->idle_ns / (double)st->session_ns : NAN;
	f.paced_pct = st && st->session_ns ? 100.0 * (double)st->paced_ns / (double)st->session_ns : NAN;
	f.blocked_pct = st && st->session_ns ? 100.0 * (double)st->blocked_ns / (double)st->session_ns : NAN;
	f.busiest_pct = v ? v->busiest_cpu_busy_pct : NAN;
	f.busiest_cpu = v ? v->busiest_cpu : -1;
	f.depth = stream ? 1 : (unsigned)o->depth;
	f.mean_lat_s = run->lat.count ? hist_mean(&run->lat) / 1e9 : NAN;
	f.req_rate = sec > 0 ? (double)run->requests / sec : NAN;
	f.server_rate = (double)w->rate;
	/* The client's own busy share: the sampled busiest thread, else this thread's CPU time. */
	if (v && isfinite(v->work_thread_cpu_pct)) {
		f.client_busy_pct = v->work_thread_cpu_pct;
		f.client_busy_src = "its busiest thread, sampled";
	} else if (sec > 0 && isfinite(thread_cpu_s)) {
		f.client_busy_pct = 100.0 * thread_cpu_s / sec;
		f.client_busy_src = "its thread's CPU time";
	} else {
		f.client_busy_pct = NAN;
		f.client_busy_src = "unknown";
	}

	result_metric(res, "throughput", UNIT_BYTES_PER_S, f.throughput, "payload received / test time");
	result_headline(res, "throughput");
	result_metric(res, "received", UNIT_BYTES, (double)run->bytes, "payload bytes received");
	result_metric(res, "requests", UNIT_COUNT, (double)run->requests, "requests completed");
	result_metric(res, "rtt", UNIT_NS, (double)rtt, "min of 5 empty requests")
		->higher_is_better = false;
	if (!stream) {
		result_metric(res, "depth_kept", UNIT_COUNT, f.depth_kept, "mean requests in flight");
		result_metric(res, "stop_and_wait_ceiling", UNIT_BYTES_PER_S, f.ceiling,
			      "block / the smaller of the RTT and the fastest request");
	}
	if (isfinite(f.idle_pct)) {
		result_metric(res, "server_idle", UNIT_PERCENT, f.idle_pct, "server had nothing to send")
			->higher_is_better = false;
		result_metric(res, "server_paced", UNIT_PERCENT, f.paced_pct, "held back by --rate")
			->higher_is_better = false;
		result_metric(res, "server_blocked", UNIT_PERCENT, f.blocked_pct, "server's send buffer full");
		result_metric(res, "server_cpu", UNIT_PERCENT, 100.0 * (double)st->cpu_ns / (double)st->session_ns,
			      "server process CPU / its session")->higher_is_better = false;
	}
	if (sec > 0 && isfinite(cpu_s))
		result_metric(res, "client_cpu", UNIT_PERCENT, 100.0 * cpu_s / sec, "client process CPU / test time")
			->higher_is_better = false;
	if (run->lat.count)
		result_hist(res, "request_latency", UNIT_NS, &run->lat);

	result_param(res, "delay", "%.6g ms", (double)w->delay_ns / 1e6);
	if (w->rate)
		result_param(res, "server_rate", "%llu bytes/s", (unsigned long long)w->rate);
	result_param(res, "peer_version", "%s", w->peer_version);
	result_method(res, "protocol", stream ? "engpass rr (docs/net-rr.md): one STREAM request, answered in 64 KiB frames"
		      : "engpass rr (docs/net-rr.md): GET requests of --block bytes at consecutive offsets, "
			"--depth kept in flight, answered in request order in frames of at most 64 KiB");
	result_method(res, "throughput", "payload bytes / (first request sent to last byte received), monotonic clock");
	result_method(res, "rtt", "smallest latency of 5 empty GETs before the test; includes the server's --delay");
	result_method(res, "request_latency", "per request: sent to its last byte received");
	if (!stream) {
		result_method(res, "depth_kept", "requests in flight integrated over the test time");
		result_method(res, "stop_and_wait_ceiling", "block / the smaller of the RTT (5 empty GETs before "
			      "the test) and the fastest request's latency in the test: what one request at a time "
			      "could reach; the measured rate at depth 1 cannot exceed it");
	}
	result_method(res, "server", "the server's own accounting, sent at END: idle = no request ready "
		      "(none arrived or waiting out --delay), paced = held by --rate, blocked = send buffer full");
	if (isfinite(f.client_busy_pct))
		result_metric(res, "client_busy", UNIT_PERCENT, f.client_busy_pct, "client busy (not waiting), of the test")
			->higher_is_better = false;
	result_method(res, "client_busy", "%s: the share of the test the client worked rather than waited; the "
		      "round trip's share of the verdict is the rest, capped by the server's idle share",
		      f.client_busy_src);
	rr_judge(&f, res);
	if (!stream)
		result_note(res, "stop-and-wait ceiling block/RTT = %s; measured %.2fx of it with %.2f requests in flight",
			    units_fmt_rate(a, sizeof(a), f.ceiling), f.throughput / f.ceiling, f.depth_kept);
	if (w->delay_ns)
		result_note(res, "the server delayed every answer by %.6g ms (--delay): an emulated round trip",
			    (double)w->delay_ns / 1e6);
}

void net_rr_client_run(const struct bench_env *env, const struct net_opts *o, struct result *res)
{
	struct net_sockopts so = { .nodelay = true, .family = net_family(o) };
	struct rr_client c = { .env = env, .o = o, .res = res, .fd = -1, .rto = o->connect_timeout_ns };
	uint8_t hello[RR_HELLO_LEN], welcome[RR_WELCOME_LEN];
	struct rr_hello h = { .version = RR_VERSION, .block = (uint32_t)o->block, .depth = (uint32_t)o->depth };
	struct rr_welcome w;
	struct rr_stats st;
	struct rr_run run;
	struct sysview v;
	bool have_view;
	char iface[NET_IFNAME_LEN] = "";
	double u0, s0, u1, s1, link = -1;
	uint64_t rtt = 0, thr0 = 0, thr1 = 0;
	mono_ns deadline = 0;
	int r;

	memset(&run, 0, sizeof(run));
	hist_init(&run.lat);
	result_param(res, "role", "client");
	result_param(res, "mode", "%s", o->mode == NET_MODE_STREAM ? "stream" : "rr");
	result_param(res, "server", "%s port %lld", o->host, (long long)o->port);
	if (o->mode == NET_MODE_RR) {
		result_param(res, "block", "%llu", (unsigned long long)o->block);
		result_param(res, "depth", "%lld", (long long)o->depth);
	}
	if (o->size)
		result_param(res, "size", "%llu", (unsigned long long)o->size);
	else
		result_param(res, "time", "%.6g s", (double)env->time_ns / 1e9);

	if ((r = net_connect(o->host, (uint16_t)o->port, SOCK_STREAM, &so, o->connect_timeout_ns, env->stop, &c.fd)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot connect to '%s' port %lld: %s", o->host, (long long)o->port,
				  net_connect_strerror(r));
		return;
	}
	c.rb = (struct rbuf){ .fd = c.fd, .buf = xmalloc(RR_RBUF), .timeout_ns = c.rto, .stop = env->stop };
	snprintf(h.peer_version, sizeof(h.peer_version), "engpass %s", ENGPASS_VERSION_STRING);
	rr_hello_encode(&h, hello);
	if ((r = net_write_full(c.fd, hello, sizeof(hello), c.rto, env->stop)) < 0) {
		fail(&c, r, "saying hello");
		goto out;
	}
	if ((r = rbuf_need(&c.rb, RR_WELCOME_LEN)) < 0) {
		if (c.rb.end && c.rb.buf[0] == IPERF3_PARAM_EXCHANGE)
			result_set_status(res, RESULT_FAILED, "server '%s' answered as an iperf3 server: --mode rr needs "
					  "an engpass server", o->host);
		else if (r == -ECONNRESET)
			result_set_status(res, RESULT_FAILED, "server '%s' closed the connection at the rr hello (an iperf3 "
					  "server, or an engpass older than --mode rr?)", o->host);
		else
			fail(&c, r, "waiting for the rr welcome");
		goto out;
	}
	memcpy(welcome, c.rb.buf, RR_WELCOME_LEN);
	c.rb.start = RR_WELCOME_LEN;
	if ((r = rr_welcome_decode(welcome, &w, c.err, sizeof(c.err))) < 0) {
		result_set_status(res, RESULT_FAILED, "server '%s': %s", o->host, c.err);
		goto out;
	}
	if (w.status != RR_OK || o->block > w.max_block) {
		result_set_status(res, RESULT_FAILED, "server '%s' refused the rr test (its block limit is %u bytes)",
				  o->host, (unsigned)w.max_block);
		goto out;
	}
	if ((r = measure_rtt(&c, &rtt)) < 0) {
		fail(&c, r, "measuring the round trip");
		goto out;
	}
	if (net_sock_iface(c.fd, iface, sizeof(iface)) == 0)
		link = net_link_speed_bps("/sys", iface);
	/* The window: the requests, without the hello, the round trip and the accounting. */
	(void)window_begin(env->window);
	if (!o->size)
		deadline = clock_mono() + env->time_ns;
	net_rusage(&u0, &s0);
	thr0 = clock_thread_cpu_ns();
	if (o->mode == NET_MODE_STREAM)
		r = run_stream(&c, o->size, deadline, &run);
	else
		r = run_rr(&c, o->block, (uint32_t)o->depth, o->size, deadline, &run);
	thr1 = clock_thread_cpu_ns();
	net_rusage(&u1, &s1);
	(void)window_end(env->window);
	if (r < 0) {
		fail(&c, r, "the test ran");
		goto out;
	}
	if ((r = finish(&c, &st)) < 0) {
		result_note(res, "no accounting from the server (%s): the verdict cannot use it",
			    r == -EPROTO ? c.err : strerror(-r));
	}
	have_view = window_view(env->window, &v) == 0;
	if (!run.end)
		run.end = clock_mono();
	report(&c, &w, rtt, &run, r < 0 ? NULL : &st, have_view ? &v : NULL, (u1 - u0) + (s1 - s0),
	       thr1 >= thr0 && thr0 ? (double)(thr1 - thr0) / 1e9 : NAN, link);
	if (run.incomplete)
		result_set_incomplete(res);
out:
	free(c.rb.buf);
	if (c.fd >= 0)
		close(c.fd);
}
