/* SPDX-License-Identifier: MIT */
/*
 * `engpass net client HOST`: runs one test against an iperf3 or engpass
 * server over iperf3's wire protocol and reports both sides' figures of
 * that same test: what the sender sent and what the receiver counted, per
 * direction, each side's CPU, and -- from an engpass server -- its
 * per-CPU view, so the verdict can say whether one core, a whole side's
 * CPU or the link was the limit.
 *
 * The client alone ends a test (after --time, or at once on Ctrl-C, in
 * which case it still exchanges results and reports what was measured,
 * marked incomplete). Every wait on the server is bounded by
 * --connect-timeout, so a refused, unreachable, silent or vanishing server
 * costs one clear line and exit status 1, never a hang.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/net/net_priv.h"
#include "lib/units.h"
#include "config.h"
#include "core/base/clock.h"
#include "core/base/progress.h"
#include "core/observe/limits.h"
#include "core/observe/window.h"
#include "lib/xalloc.h"

#define DRAIN_NS (2 * NS_PER_SEC)	/* longest wait for a sending server's last bytes */

static const char *errstr(int e)
{
	return strerror(e < 0 ? -e : e);
}

/* One test as the client runs it: the steps of net_client_run() share it. */
struct client {
	const struct bench_env *env;
	const struct net_opts *o;
	struct result *res;
	uint64_t rto;
	int cfd;			/* the control connection */
	char cookie[IPERF3_COOKIE_LEN];
	struct net_test t;
	struct net_stream *st;		/* the data streams */
	size_t n;
	struct net_payload pay;
	double u0, s0, u1, s1;		/* process CPU at the test's start and end */
	uint64_t *base;			/* -O: each stream's bytes when the omitted start ended; NULL */
	mono_ns counted;		/* when the counted time began (after -O) */
	mono_ns ival_start;		/* -i: start of the running interval */
	uint64_t ival_bytes;		/* -i: bytes at its start */
	bool stopped;			/* a signal ended the test */
};

/* Why a state read failed, as one line: timeout, close, error state. */
static void state_failure(struct client *c, int r, int s, const char *waiting_for)
{
	char buf[32];

	if (r == -ETIMEDOUT) {
		result_set_status(c->res, RESULT_FAILED, "server '%s' sent nothing for %.3g s while %s", c->o->host,
				  (double)c->rto / 1e9, waiting_for);
	} else if (r == -EINTR) {
		result_set_status(c->res, RESULT_FAILED, "stopped by signal while %s", waiting_for);
	} else if (r < 0) {
		result_set_status(c->res, RESULT_FAILED, "server '%s' closed the control connection while %s (%s)",
				  c->o->host, waiting_for, errstr(r));
	} else if (s == IPERF3_ACCESS_DENIED) {
		result_set_status(c->res, RESULT_FAILED, "server '%s' is busy running a test (ACCESS_DENIED)",
				  c->o->host);
	} else if (s == IPERF3_SERVER_ERROR) {
		int32_t e[2] = { 0, 0 };

		if (net_read_full(c->cfd, e, sizeof(e), NS_PER_SEC, NULL) == 0)
			result_set_status(c->res, RESULT_FAILED, "server '%s' reported an error (iperf3 error %d, errno %d)",
					  c->o->host, (int)ntohl((uint32_t)e[0]), (int)ntohl((uint32_t)e[1]));
		else
			result_set_status(c->res, RESULT_FAILED, "server '%s' reported an error", c->o->host);
	} else if (s == IPERF3_SERVER_TERMINATE) {
		result_set_status(c->res, RESULT_FAILED, "server '%s' ended the test (SERVER_TERMINATE)", c->o->host);
	} else {
		result_set_status(c->res, RESULT_FAILED, "protocol error: server '%s' sent %s while %s", c->o->host,
				  iperf3_state_name(s, buf, sizeof(buf)), waiting_for);
	}
}

/* Reads states until WANT; anything else fails the result. */
static bool expect_state(struct client *c, int want, const char *waiting_for)
{
	int s = 0, r = iperf3_recv_state(c->cfd, &s, c->rto, c->env->stop);

	if (r == 0 && s == want)
		return true;
	state_failure(c, r, s, waiting_for);
	return false;
}

/* The UDP "connect": send 9876, wait for 6789 (or the legacy reply). */
static int udp_handshake(struct client *c, int fd, bool reverse)
{
	unsigned char buf[65536];
	int tolerated = 0;

	if (send(fd, IPERF3_UDP_CONNECT_MSG, 4, MSG_NOSIGNAL) < 0)
		return -errno;
	for (;;) {
		int k = net_wait_readable(fd, c->rto);
		ssize_t n;

		if (k == -EINTR && !*c->env->stop)
			continue;
		if (k < 0)
			return k;
		if (k == 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 4 && (!memcmp(buf, IPERF3_UDP_CONNECT_REPLY, 4) ||
			       !memcmp(buf, IPERF3_UDP_CONNECT_REPLY_LEGACY, 4)))
			return 0;
		/* With -R a sending server's first datagrams may overtake the reply. */
		if (!reverse || ++tolerated > 2)
			return -EPROTO;
	}
}

/* The N-th CPU of the --pin set, cycling; -1 without --pin. */
static int pin_cpu_for(const cpu_set_t *pin, size_t i)
{
	int cpus[CPU_SETSIZE], n = 0;

	if (!pin)
		return -1;
	for (int k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, pin))
			cpus[n++] = k;
	return n ? cpus[i % (size_t)n] : -1;
}

static void fill_params(const struct bench_env *env, const struct net_opts *o, struct iperf3_params *p)
{
	iperf3_params_init(p);
	p->proto = o->udp ? NET_UDP : NET_TCP;
	p->time_s = env->time_ns ? (double)env->time_ns / 1e9 : 10;
	p->parallel = o->parallel > 0 ? (int)o->parallel : 1;
	p->len = o->len ? o->len : (o->udp ? 0 : IPERF3_TCP_LEN_DEFAULT);
	p->reverse = o->reverse;
	p->bidir = o->bidir;
	p->window = (int64_t)o->window;
	p->zerocopy = o->zerocopy;
	if (o->bitrate >= 0)
		p->bandwidth_bps = o->bitrate;
	else if (o->udp)
		p->bandwidth_bps = IPERF3_UDP_RATE_DEFAULT;
	p->omit_s = (double)o->omit_ns / 1e9;
	p->server_affinity = (int)o->server_pin;
	snprintf(p->client_version, sizeof(p->client_version), "engpass %s", ENGPASS_VERSION_STRING);
	p->engpass = true;
	snprintf(p->engpass_version, sizeof(p->engpass_version), "engpass %s", ENGPASS_VERSION_STRING);
	p->want_capacity = o->capacity;
}

/*
 * Waits for PARAM_EXCHANGE: within --connect-timeout, or, once an engpass
 * server said it holds this client in its queue (IPERF3_ENGPASS_QUEUED),
 * within --queue-timeout. Fills the test's queue wait. False with the
 * result failed.
 */
static bool client_wait_turn(struct client *c)
{
	mono_ns t0 = clock_mono(), deadline = t0 + c->o->queue_timeout_ns;
	int s = 0, r;

	for (;;) {
		uint64_t wait = c->rto;

		if (c->t.queued)
			wait = deadline > clock_mono() ? deadline - clock_mono() : 1;
		r = iperf3_recv_state(c->cfd, &s, wait, c->env->stop);
		if (r == 0 && s == IPERF3_ENGPASS_QUEUED && !c->t.queued) {
			char line[160];

			c->t.queued = true;
			snprintf(line, sizeof(line), "net: server '%s' is busy: waiting in its queue (at most %.3g s, "
				 "--queue-timeout)", c->o->host, (double)c->o->queue_timeout_ns / 1e9);
			progress_say(c->env->progress, line);
			continue;
		}
		break;
	}
	if (r == 0 && s == IPERF3_PARAM_EXCHANGE) {
		c->t.queue_wait_s = elapsed_s(t0, clock_mono());
		return true;
	}
	if (r == -ETIMEDOUT && c->t.queued) {
		result_set_status(c->res, RESULT_FAILED, "server '%s' kept this client in its queue for %.3g s "
				  "(--queue-timeout)", c->o->host, (double)c->o->queue_timeout_ns / 1e9);
		return false;
	}
	state_failure(c, r, s, c->t.queued ? "waiting in the server's queue" : "waiting for PARAM_EXCHANGE");
	return false;
}

/*
 * Connects the control connection and agrees on the test: cookie,
 * PARAM_EXCHANGE, the parameters, CREATE_STREAMS. False with the result
 * failed.
 */
static bool client_handshake(struct client *c)
{
	const struct bench_env *env = c->env;
	const struct net_opts *o = c->o;
	struct iperf3_params *p = &c->t.p;
	struct net_sockopts so = { .family = net_family(o) };
	int r, one = 1;

	if ((r = iperf3_cookie_make(c->cookie)) < 0) {
		result_set_status(c->res, RESULT_FAILED, "cannot make a cookie: %s", errstr(r));
		return false;
	}
	/* An engpass server then says when it holds this client in its queue. */
	iperf3_cookie_mark(c->cookie);
	r = net_connect(o->host, (uint16_t)o->port, SOCK_STREAM, &so, o->connect_timeout_ns, env->stop, &c->cfd);
	if (r < 0) {
		result_set_status(c->res, RESULT_FAILED, "cannot connect to '%s' port %lld: %s", o->host,
				  (long long)o->port, net_connect_strerror(r));
		return false;
	}
	if (setsockopt(c->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
		/* Only the latency of state bytes suffers. */
	}
	if ((r = net_write_full(c->cfd, c->cookie, sizeof(c->cookie), c->rto, env->stop)) < 0) {
		result_set_status(c->res, RESULT_FAILED, "server '%s' closed the connection: %s", o->host, errstr(r));
		return false;
	}
	if (!client_wait_turn(c))
		return false;
	if (p->proto == NET_UDP && !p->len) {
		/* iperf3's default datagram: the control connection's MSS. */
		int mss = net_tcp_mss(c->cfd);

		p->len = mss >= IPERF3_UDP_LEN_MIN && mss <= IPERF3_UDP_LEN_MAX ? (uint64_t)mss
										 : IPERF3_UDP_LEN_FALLBACK;
	}
	{
		size_t len;
		char *msg = iperf3_params_format(p, &len);

		r = iperf3_send_json(c->cfd, msg, len, c->rto, env->stop);
		free(msg);
		if (r < 0) {
			result_set_status(c->res, RESULT_FAILED, "cannot send the parameters: %s", errstr(r));
			return false;
		}
	}
	return expect_state(c, IPERF3_CREATE_STREAMS, "waiting for CREATE_STREAMS");
}

/* Sets up the data streams and connects each. False with the result failed. */
static bool client_open_streams(struct client *c)
{
	const struct net_opts *o = c->o;
	const struct iperf3_params *p = &c->t.p;
	struct net_sockopts so = { (int)o->window, 0, false, net_family(o) };
	int r;

	c->n = (size_t)p->parallel * (p->bidir ? 2 : 1);
	c->st = xcalloc(c->n, sizeof(*c->st));
	for (size_t i = 0; i < c->n; i++) {
		struct net_stream *s = &c->st[i];

		net_stream_init(s);
		s->id = IPERF3_STREAM_ID(i);
		s->proto = p->proto;
		s->sender = p->bidir ? i < (size_t)p->parallel : !p->reverse;
		s->rate_bytes_per_s = p->bandwidth_bps / 8;
		s->payload = &c->pay;
		s->pin_cpu = pin_cpu_for(c->env->pin, i);
	}
	if (!p->reverse) {
		r = net_payload_init(&c->pay, p->len, p->zerocopy && p->proto == NET_TCP);
		if (r < 0)
			net_test_note(&c->t, "zero copy unavailable (%s); sending with send()", errstr(r));
		c->t.zerocopy = c->pay.zc_fd >= 0;
	}
	if (p->zerocopy && p->proto == NET_UDP)
		net_test_note(&c->t, "--zerocopy applies to TCP only; UDP sent with send()");
	for (size_t i = 0; i < c->n; i++) {
		struct net_stream *s = &c->st[i];
		int type = p->proto == NET_UDP ? SOCK_DGRAM : SOCK_STREAM;

		r = net_connect(o->host, (uint16_t)o->port, type, &so, o->connect_timeout_ns, c->env->stop, &s->fd);
		if (r == 0 && type == SOCK_STREAM)
			r = net_write_full(s->fd, c->cookie, sizeof(c->cookie), c->rto, c->env->stop);
		if (r == 0 && type == SOCK_DGRAM)
			r = udp_handshake(c, s->fd, p->reverse || (p->bidir && !s->sender));
		if (r < 0) {
			result_set_status(c->res, RESULT_FAILED, "cannot open data stream %zu of %zu to '%s': %s", i + 1,
					  c->n, o->host, errstr(r));
			return false;
		}
	}
	return true;
}

/* Bytes this side moved so far, all streams. */
static uint64_t client_bytes(struct client *c)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < c->n; i++)
		bytes += net_stream_bytes(&c->st[i]);
	return bytes;
}

/*
 * At NOW: ends the omitted start (-O) when it is over, keeping each
 * stream's bytes as the base, and writes the -i line of an interval that
 * is over (on stderr, and into the result's intervals for the JSON). Returns the time of the next such event (UINT64_MAX: none).
 */
static mono_ns client_tick(struct client *c, mono_ns t0, mono_ns now, bool last)
{
	const struct net_opts *o = c->o;
	mono_ns omit_end = t0 + o->omit_ns, next = UINT64_MAX;

	if (!c->counted && now >= omit_end) {
		c->counted = now;
		if (o->omit_ns) {
			c->base = xcalloc(c->n, sizeof(*c->base));
			for (size_t i = 0; i < c->n; i++)
				c->base[i] = net_stream_bytes(&c->st[i]);
		}
		c->ival_start = now;
		c->ival_bytes = client_bytes(c);
	}
	if (!c->counted)
		return omit_end;
	/* The last interval is said too when the test ended in it, unless it is a sliver. */
	if (o->interval_ns && (now >= c->ival_start + o->interval_ns ||
			       (last && now - c->ival_start >= o->interval_ns / 10))) {
		char line[160], a[UNITS_FMT_LEN], b[UNITS_FMT_LEN];
		uint64_t bytes = client_bytes(c);
		double s0 = elapsed_s(c->counted, c->ival_start), s1 = elapsed_s(c->counted, now);

		snprintf(line, sizeof(line), "net: %6.2f-%.2f s  %12s  %14s", s0, s1,
			 units_fmt_bytes(a, sizeof(a), bytes - c->ival_bytes),
			 units_fmt_bits(b, sizeof(b), (double)(bytes - c->ival_bytes) * 8 / (s1 - s0)));
		progress_say(c->env->progress, line);
		result_interval(c->res, s0, s1, (double)(bytes - c->ival_bytes));
		c->ival_start = now;
		c->ival_bytes = bytes;
	}
	if (o->interval_ns)
		next = c->ival_start + o->interval_ns;
	return next;
}

/*
 * Waits out the test time (the server may end it; a signal does), showing
 * the progress. Marks the test incomplete when it ended early.
 */
static void client_wait(struct client *c, mono_ns t0, mono_ns end)
{
	const struct bench_env *env = c->env;

	progress_update(env->progress, t0, 0, end - t0, NULL);
	for (;;) {
		mono_ns now = clock_mono(), tick = client_tick(c, t0, now, false);
		uint64_t next = 250 * NS_PER_MS;
		int k;

		if (now >= end)
			break;
		if (end - now < next)
			next = end - now;
		if (tick > now && tick - now < next)
			next = tick - now;
		k = net_wait_readable(c->cfd, next);
		if (k == -EINTR) {
			if (*env->stop) {
				c->stopped = true;
				c->t.incomplete = true;
				snprintf(c->t.why, sizeof(c->t.why), "stopped by signal after %.2f s",
					 elapsed_s(t0, clock_mono()));
				break;
			}
			continue;
		}
		if (k > 0) {
			int s = 0, r = iperf3_recv_state(c->cfd, &s, c->rto, env->stop);

			state_failure(c, r, s, "the test ran");
			c->t.incomplete = true;
			snprintf(c->t.why, sizeof(c->t.why), "%s", c->res->reason ? c->res->reason : "server ended the test");
			break;
		}
		if (env->progress && env->progress->enabled) {
			char extra[96], a[UNITS_FMT_LEN], b[UNITS_FMT_LEN];
			uint64_t bytes = 0;

			now = clock_mono();
			for (size_t i = 0; i < c->n; i++)
				bytes += net_stream_bytes(&c->st[i]);
			snprintf(extra, sizeof(extra), "got %s (%s)", units_fmt_bytes(a, sizeof(a), bytes),
				 units_fmt_bits(b, sizeof(b), (double)bytes * 8 / elapsed_s(t0, now)));
			progress_update(env->progress, now, elapsed_ns(t0, now), end - t0, extra);
		}
	}
}

/*
 * Ends the test: senders stop first, so what they sent is in flight before
 * TEST_END; then receivers keep what the server sent before it saw
 * TEST_END, for at most DRAIN_NS. Returns when the senders stopped: the
 * test's end.
 */
static mono_ns client_end(struct client *c)
{
	struct net_stream *st = c->st;
	size_t n = c->n;
	mono_ns t1, drain_end;
	int r;

	for (size_t i = 0; i < n; i++)
		if (st[i].sender)
			net_stream_quit(&st[i], NET_QUIT_NOW);
	for (size_t i = 0; i < n; i++)
		if (st[i].sender)
			net_stream_join(&st[i]);
	t1 = clock_mono();
	if (c->res->status == RESULT_FAILED) {
		/* The server ended the test: keep what was measured locally. */
		for (size_t i = 0; i < n; i++) {
			net_stream_quit(&st[i], NET_QUIT_NOW);
			shutdown(st[i].fd, SHUT_RDWR);
		}
	} else if ((r = iperf3_send_state(c->cfd, IPERF3_TEST_END, c->rto, NULL)) < 0) {
		result_set_status(c->res, RESULT_FAILED, "cannot send TEST_END to '%s': %s", c->o->host, errstr(r));
	}
	for (size_t i = 0; i < n; i++)
		if (!st[i].sender)
			net_stream_quit(&st[i], c->res->status == RESULT_FAILED ? NET_QUIT_NOW : NET_QUIT_DRAIN);
	/* Bounded: a receiver ends at EOF or after 250 ms of silence, this after 2 s. */
	drain_end = clock_mono() + DRAIN_NS;
	for (size_t i = 0; i < n; i++) {
		if (st[i].sender || !st[i].started)
			continue;
		while (!atomic_load(&st[i].done) && clock_mono() < drain_end)
			if (clock_sleep_until(clock_mono() + NS_PER_MS) < 0 && *c->env->stop)
				break;
		if (!atomic_load(&st[i].done)) {
			net_stream_quit(&st[i], NET_QUIT_NOW);
			shutdown(st[i].fd, SHUT_RDWR);
		}
	}
	for (size_t i = 0; i < n; i++)
		net_stream_join(&st[i]);
	return t1;
}

/*
 * Runs the test: receivers read from before TEST_START, senders start with
 * it; the measurement window is the data transfer. False with the result
 * failed when it never started.
 */
static bool client_transfer(struct client *c)
{
	const struct bench_env *env = c->env;
	mono_ns t0, t1, end;
	int r;

	for (size_t i = 0; i < c->n; i++) {
		if (!c->st[i].sender && (r = net_stream_start(&c->st[i])) < 0) {
			result_set_status(c->res, RESULT_FAILED, "cannot start stream thread %zu: %s", i + 1, errstr(r));
			return false;
		}
	}
	if (!expect_state(c, IPERF3_TEST_START, "waiting for TEST_START") ||
	    !expect_state(c, IPERF3_TEST_RUNNING, "waiting for TEST_RUNNING"))
		return false;
	/* The window: the data transfer, without set-up and results exchange. */
	(void)window_begin(env->window);
	net_rusage(&c->u0, &c->s0);
	t0 = clock_mono();
	/* With -O the test runs the omitted start plus --time, as iperf3's. */
	end = t0 + c->o->omit_ns + (uint64_t)(c->t.p.time_s * (double)NS_PER_SEC);
	for (size_t i = 0; i < c->n; i++) {
		if (c->st[i].sender && (r = net_stream_start(&c->st[i])) < 0) {
			c->t.incomplete = true;
			snprintf(c->t.why, sizeof(c->t.why), "cannot start stream thread %zu: %s", i + 1, errstr(r));
			end = t0;
			break;
		}
	}
	client_wait(c, t0, end);
	(void)client_tick(c, t0, clock_mono(), true);
	t1 = client_end(c);
	(void)window_end(env->window);
	net_rusage(&c->u1, &c->s1);
	progress_finish(env->progress);
	/* The counted time: after the omitted start (all of it when the test ended within it). */
	c->t.duration_s = elapsed_s(c->counted && c->counted < t1 ? c->counted : t0, t1);
	if (!c->counted || c->counted >= t1) {
		free(c->base);
		c->base = NULL;
		if (c->o->omit_ns)
			net_test_note(&c->t, "the test ended within the omitted start (-O): its bytes are counted");
	}
	return true;
}


/*
 * The shaper this client's window found on its interface (core/observe/limits.h):
 * the egress one for data it sends, the ingress one (an ifb) for data it
 * receives, the lower of the two both ways. The capacity estimate is
 * capped by it (net_capacity()).
 */
static void shaper_on_path(const struct window *w, const struct iperf3_params *p, struct net_side *me)
{
	const struct limits *l = window_limits(w);
	const struct limit *k[2] = { NULL, NULL };
	const char *kind[2] = { "", "" };

	if (!l)
		return;
	if (!p->reverse || p->bidir) {
		k[0] = &l->shaper;
		kind[0] = l->shaper_kind;
	}
	if (p->reverse || p->bidir) {
		k[1] = &l->shaper_in;
		kind[1] = l->shaper_in_kind;
	}
	for (int i = 0; i < 2; i++)
		if (k[i] && k[i]->state == LIMIT_SET && k[i]->value > 0 &&
		    (!(me->shaper_bps > 0) || k[i]->value < me->shaper_bps)) {
			me->shaper_bps = k[i]->value;
			snprintf(me->shaper_kind, sizeof(me->shaper_kind), "%s", kind[i]);
		}
}
/* This side's figures of the finished test: CPU, streams, its window's view, pins. */
static void client_collect(struct client *c)
{
	struct net_test *t = &c->t;
	double cpu_s = (c->u1 - c->u0) + (c->s1 - c->s0), data_cpu, moved = 0;
	struct sysview v;
	bool have_view = window_view(c->env->window, &v) == 0;

	if (t->duration_s > 0) {
		t->cpu_user_pct = 100 * (c->u1 - c->u0) / t->duration_s;
		t->cpu_system_pct = 100 * (c->s1 - c->s0) / t->duration_s;
	}
	data_cpu = net_test_collect(t, c->st, c->n, c->base);
	for (size_t i = 0; i < c->n && t->p.proto == NET_TCP; i++)
		if (net_tcp_congestion(c->st[i].fd, t->congestion, sizeof(t->congestion)) == 0)
			break;
	for (size_t i = 0; i < t->nlocal; i++)
		moved += t->local[i].bytes;
	net_side_local(&t->me, c->cookie, c->cfd, have_view ? &v : NULL, cpu_s, data_cpu, moved, c->o->capacity);
	shaper_on_path(c->env->window, &t->p, &t->me);
	for (size_t i = 0; i < c->n && c->env->pin; i++) {
		size_t used = strlen(t->client_pins);

		snprintf(t->client_pins + used, sizeof(t->client_pins) - used, "%scpu%d", i ? "," : "",
			 c->st[i].pin_cpu);
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->st[i].pin_err)
			net_test_note(t, "stream %d could not be pinned to cpu%d: %s", c->st[i].id, c->st[i].pin_cpu,
				      errstr(c->st[i].pin_err));
}

/* Swaps results with the server and says goodbye. Failures fail the result. */
static void client_exchange(struct client *c)
{
	struct net_test *t = &c->t;
	char *msg = NULL, err[160];
	size_t len = 0;
	int r, s = 0;

	if (!expect_state(c, IPERF3_EXCHANGE_RESULTS, "waiting for EXCHANGE_RESULTS"))
		return;
	msg = net_results_message(t, true, &len);
	r = iperf3_send_json(c->cfd, msg, len, c->rto, NULL);
	free(msg);
	msg = NULL;
	if (r == 0)
		r = iperf3_recv_json(c->cfd, IPERF3_RESULTS_MAX, c->rto, NULL, &msg, &len);
	if (r < 0) {
		result_set_status(c->res, RESULT_FAILED, "results exchange with '%s' failed: %s", c->o->host,
				  r == -EMSGSIZE ? "message too long" : errstr(r));
		return;
	}
	if (iperf3_results_parse(msg, len, &t->remote, err, sizeof(err)) < 0) {
		free(msg);
		iperf3_results_release(&t->remote);
		result_set_status(c->res, RESULT_FAILED, "server results unreadable: %s", err);
		return;
	}
	free(msg);
	t->have_remote = true;
	if (t->remote.extra.present)
		snprintf(t->peer_version, sizeof(t->peer_version), "%s", t->remote.extra.version);
	else
		snprintf(t->peer_version, sizeof(t->peer_version), "iperf3-compatible");
	r = iperf3_recv_state(c->cfd, &s, c->rto, NULL);
	if (r == 0 && s == IPERF3_DISPLAY_RESULTS) {
		if (iperf3_send_state(c->cfd, IPERF3_IPERF_DONE, c->rto, NULL) < 0)
			net_test_note(t, "server left before IPERF_DONE");
	} else {
		net_test_note(t, "server did not send DISPLAY_RESULTS");
	}
}

void net_client_run(const struct bench_env *env, const struct net_opts *o, struct result *res)
{
	struct client c = { .env = env, .o = o, .res = res, .rto = o->connect_timeout_ns, .cfd = -1,
			    .pay = { NULL, 0, -1 } };

	c.t.is_client = true;
	c.t.queue_wait_s = NAN;
	net_side_init(&c.t.me);
	fill_params(env, o, &c.t.p);
	snprintf(c.t.peer, sizeof(c.t.peer), "%s port %lld", o->host, (long long)o->port);
	if (client_handshake(&c) && client_open_streams(&c) && client_transfer(&c)) {
		client_collect(&c);
		if (res->status != RESULT_FAILED)
			client_exchange(&c);
		net_report_fill(res, &c.t, o->capacity);
		net_queue_wait_metric(res, c.t.queue_wait_s, true);
		if (c.t.queued)
			result_note(res, "the server was busy: this client waited %.3g s in its queue", c.t.queue_wait_s);
		if (c.stopped)
			result_set_incomplete(res);
	}
	progress_finish(env->progress);
	for (size_t i = 0; i < c.n; i++)
		net_stream_release(&c.st[i]);
	free(c.st);
	free(c.base);
	net_payload_release(&c.pay);
	if (c.cfd >= 0)
		close(c.cfd);
	net_test_release(&c.t);
}
