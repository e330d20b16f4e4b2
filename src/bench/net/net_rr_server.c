/* SPDX-License-Identifier: MIT */
/*
 * The server side of an rr session (docs/net-rr.md): after the hello,
 * requests are read as they arrive and queued with their arrival time;
 * each is answered --delay after it arrived -- so two requests that arrive
 * together are both answered one delay later, as over a real round trip,
 * not one after the other -- in DATA frames of at most 64 KiB, paced by
 * --rate when it is set. One thread, a non-blocking socket and ppoll(), so
 * requests keep being read (and timed) while a long answer is being sent.
 *
 * The server accounts for its session: the time it had nothing ready to
 * send (idle: no request, or the head request still waiting out the
 * delay), the time data was held back by --rate (paced), the time the
 * socket's send buffer was full (blocked). The client receives these at
 * END and its verdict rests on them: a server that was idle was waiting
 * for requests, so the round trip was the limit.
 *
 * The peer is hostile: every request is checked (type, flags, length, the
 * block limit), the queue is bounded (RR_DEPTH_MAX; beyond it the server
 * stops reading and TCP pushes back), and a session in which nothing moves
 * for --read-timeout is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bench/net/net_priv.h"
#include "bench/net/net_rr.h"
#include "config.h"
#include "core/base/clock.h"
#include "core/base/ratelimit.h"
#include "core/observe/window.h"
#include "lib/xalloc.h"

enum acct { A_IDLE, A_PACED, A_BLOCKED, A_BUSY, A_N };

struct pending {
	uint64_t id, offset, left;
	mono_ns due;			/* arrival + delay */
	bool empty;			/* a round-trip probe: answered, not counted */
};

struct session {
	int fd;
	uint64_t delay_ns;
	struct ratelimit rl;
	bool paced;
	struct pending *q;		/* ring of RR_DEPTH_MAX */
	size_t qhead, qlen;
	uint8_t in[RR_REQUEST_LEN * 64];
	size_t inlen;
	/* the frame being sent */
	bool in_frame;
	uint8_t hdr[RR_FRAME_LEN];
	size_t hdr_sent;
	uint32_t flen, fsent;
	mono_ns send_at;		/* paced: not before */
	bool want_out;			/* the last write would have blocked */
	bool end_seen, eof;
	struct rr_stats st;
	uint64_t acct[A_N];
	mono_ns first, last_move;
	char why[160];
};

/* The payload of every DATA frame: a fixed pattern, nothing secret. */
static uint8_t payload[RR_FRAME_MAX];

static void fill_payload(void)
{
	if (payload[1])
		return;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 131u + 7u);
}

/* Reads what has arrived and queues the complete requests. Returns 0 or -errno/-EPROTO. */
static int take_requests(struct session *s, mono_ns now, uint32_t max_block)
{
	for (;;) {
		size_t off = 0;
		ssize_t got;

		if (s->inlen < sizeof(s->in) && !s->end_seen) {
			got = recv(s->fd, s->in + s->inlen, sizeof(s->in) - s->inlen, MSG_DONTWAIT);
			if (got == 0) {
				s->eof = true;
			} else if (got < 0) {
				if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
					return -errno;
			} else {
				s->inlen += (size_t)got;
				s->last_move = now;
			}
		}
		while (s->inlen - off >= RR_REQUEST_LEN && s->qlen < RR_DEPTH_MAX && !s->end_seen) {
			struct rr_request r;
			int e = rr_request_decode(s->in + off, max_block, &r, s->why, sizeof(s->why));

			if (e < 0)
				return e;
			off += RR_REQUEST_LEN;
			/* The session's accounting starts with the test, after the client's round-trip probes. */
			if (!s->first && (r.len || r.type != RR_GET))
				s->first = now;
			if (r.type == RR_END) {
				s->end_seen = true;
				break;
			}
			s->q[(s->qhead + s->qlen) % RR_DEPTH_MAX] = (struct pending){
				.id = r.id, .offset = r.offset, .left = r.len, .due = now + s->delay_ns,
				.empty = r.len == 0 };
			s->qlen++;
		}
		memmove(s->in, s->in + off, s->inlen - off);
		s->inlen -= off;
		/* Another read only when this one filled the buffer and there is room. */
		if (off == 0 || s->eof || s->end_seen || s->inlen >= RR_REQUEST_LEN)
			return 0;
	}
}

/* Starts the next frame of the head request, when it is due. */
static void start_frame(struct session *s, mono_ns now)
{
	struct pending *p = &s->q[s->qhead];
	struct rr_frame f;

	if (!s->qlen || now < p->due)
		return;
	f.type = RR_DATA;
	f.len = (uint32_t)(p->left < RR_FRAME_MAX ? p->left : RR_FRAME_MAX);
	f.id = p->id;
	f.offset = p->offset;
	rr_frame_encode(&f, s->hdr);
	s->in_frame = true;
	s->hdr_sent = 0;
	s->flen = f.len;
	s->fsent = 0;
	s->send_at = now;
	if (s->paced)
		s->send_at = now + ratelimit_delay_ns(&s->rl, (uint64_t)f.len + RR_FRAME_LEN, now);
}

/* Sends what the socket takes of the current frame. Returns 0 or -errno. */
static int send_frame(struct session *s, mono_ns now)
{
	while (s->in_frame) {
		struct iovec iov[2];
		int n = 0;
		ssize_t put;

		if (s->hdr_sent < RR_FRAME_LEN)
			iov[n++] = (struct iovec){ s->hdr + s->hdr_sent, RR_FRAME_LEN - s->hdr_sent };
		if (s->fsent < s->flen)
			iov[n++] = (struct iovec){ payload + s->fsent, s->flen - s->fsent };
		if (n) {
			struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };

			put = sendmsg(s->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (put < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK) {
					s->want_out = true;
					return 0;
				}
				if (errno == EINTR)
					continue;
				return -errno;
			}
			s->last_move = now;
			if (s->hdr_sent < RR_FRAME_LEN) {
				size_t h = (size_t)put < RR_FRAME_LEN - s->hdr_sent ? (size_t)put : RR_FRAME_LEN - s->hdr_sent;

				s->hdr_sent += h;
				put -= (ssize_t)h;
			}
			s->fsent += (uint32_t)put;
		}
		if (s->hdr_sent == RR_FRAME_LEN && s->fsent == s->flen) {
			struct pending *p = &s->q[s->qhead];

			s->in_frame = false;
			s->st.bytes += s->flen;
			p->left -= s->flen;
			p->offset += s->flen;
			if (!p->left) {
				s->st.requests += !p->empty;
				s->qhead = (s->qhead + 1) % RR_DEPTH_MAX;
				s->qlen--;
			}
			return 0;
		}
	}
	return 0;
}

static uint64_t cpu_ns_now(void)
{
	double u, sy;

	net_rusage(&u, &sy);
	return (uint64_t)((u + sy) * 1e9);
}

/* Runs the session until END, EOF, an error or silence. Returns 0 when it ended with END. */
static int session_loop(struct session *s, const struct bench_env *env, uint64_t rto, uint32_t max_block)
{
	mono_ns last = clock_mono();
	enum acct state = A_IDLE;
	int r;

	s->last_move = last;
	for (;;) {
		mono_ns now = clock_mono(), wake = UINT64_MAX;
		struct pollfd pf = { .fd = s->fd };
		struct timespec ts;

		if (s->first)
			s->acct[state] += now > last ? now - last : 0;
		last = now;
		state = A_BUSY;
		if (*env->stop) {
			snprintf(s->why, sizeof(s->why), "stopped by signal");
			return -EINTR;
		}
		if ((r = take_requests(s, now, max_block)) < 0) {
			if (r != -EPROTO)
				snprintf(s->why, sizeof(s->why), "reading requests: %s", strerror(-r));
			else
				snprintf(s->why + strlen(s->why), sizeof(s->why) - strlen(s->why), " (protocol error)");
			return r;
		}
		if (!s->in_frame && !s->end_seen)
			start_frame(s, now);
		if (s->in_frame && now >= s->send_at) {
			s->want_out = false;
			if ((r = send_frame(s, now)) < 0) {
				snprintf(s->why, sizeof(s->why), "sending: %s", strerror(-r));
				return r;
			}
			if (!s->in_frame)
				continue;	/* next frame at once */
		}
		if (s->end_seen && !s->in_frame)
			return 0;
		if (s->eof) {
			snprintf(s->why, sizeof(s->why), "the client closed the connection before END");
			return -ECONNRESET;
		}
		/* The work above was busy time; the wait that follows is spent on... */
		now = clock_mono();
		if (s->first)
			s->acct[A_BUSY] += now - last;
		last = now;
		if (s->in_frame && now < s->send_at) {
			state = A_PACED;
			wake = s->send_at;
		} else if (s->in_frame) {
			state = A_BLOCKED;
			pf.events |= POLLOUT;
		} else {
			state = A_IDLE;
			if (s->qlen)
				wake = s->q[s->qhead].due;
		}
		if (s->inlen < sizeof(s->in) && s->qlen < RR_DEPTH_MAX)
			pf.events |= POLLIN;
		/* Waiting on our own delay or pacing is not the client's silence. */
		if (state == A_PACED || (state == A_IDLE && s->qlen))
			s->last_move = now;
		if (now - s->last_move >= rto) {
			snprintf(s->why, sizeof(s->why), "nothing moved for %.3g s (--read-timeout)", (double)rto / 1e9);
			return -ETIMEDOUT;
		}
		if (wake == UINT64_MAX || wake > s->last_move + rto)
			wake = s->last_move + rto;
		if (wake < now)
			wake = now;
		ts.tv_sec = (time_t)((wake - now) / NS_PER_SEC);
		ts.tv_nsec = (long)((wake - now) % NS_PER_SEC);
		if (ppoll(&pf, 1, &ts, NULL) < 0 && errno != EINTR) {
			snprintf(s->why, sizeof(s->why), "poll: %s", strerror(errno));
			return -errno;
		}
	}
}

/* Sends the STATS frame (blocking, bounded by RTO). */
static int send_stats(struct session *s, const struct bench_env *env, uint64_t rto)
{
	uint8_t out[RR_FRAME_LEN + RR_STATS_LEN];
	struct rr_frame f = { .type = RR_STATS, .len = RR_STATS_LEN };

	rr_frame_encode(&f, out);
	rr_stats_encode(&s->st, out + RR_FRAME_LEN);
	return net_write_full(s->fd, out, sizeof(out), rto, env->stop);
}

struct result *net_rr_serve(const struct bench_env *env, const struct net_opts *o, int cfd,
			    const uint8_t first[IPERF3_COOKIE_LEN], const char *peer, uint64_t hello_ns)
{
	uint8_t hello[RR_HELLO_LEN], welcome[RR_WELCOME_LEN];
	struct rr_hello h;
	struct rr_welcome w = { .version = RR_VERSION, .status = RR_OK, .max_block = RR_BLOCK_MAX };
	struct session s;
	struct result *res;
	char err[160];
	uint64_t cpu0, cpu1;
	int r, fl, slack;

	memcpy(hello, first, IPERF3_COOKIE_LEN);
	if (net_read_full(cfd, hello + IPERF3_COOKIE_LEN, RR_HELLO_LEN - IPERF3_COOKIE_LEN, hello_ns, env->stop) < 0 ||
	    rr_hello_decode(hello, &h, err, sizeof(err)) < 0)
		return NULL;
	w.delay_ns = o->delay_ns;
	w.rate = o->rate > 0 ? (uint64_t)o->rate : 0;
	snprintf(w.peer_version, sizeof(w.peer_version), "engpass %s", ENGPASS_VERSION_STRING);
	rr_welcome_encode(&w, welcome);
	if (net_write_full(cfd, welcome, sizeof(welcome), hello_ns, env->stop) < 0)
		return NULL;

	memset(&s, 0, sizeof(s));
	s.fd = cfd;
	s.delay_ns = o->delay_ns;
	s.paced = o->rate > 0;
	/* A burst of two frames: pacing as even as the frames allow. */
	ratelimit_init(&s.rl, o->rate, 2.0 * (RR_FRAME_MAX + RR_FRAME_LEN), clock_mono());
	s.q = xcalloc(RR_DEPTH_MAX, sizeof(*s.q));
	fill_payload();
	fl = fcntl(cfd, F_GETFL);
	if (fl >= 0 && fcntl(cfd, F_SETFL, fl | O_NONBLOCK) < 0) {
		/* Stays blocking: sends may then stall request reads; still correct. */
	}
	/* --delay is kept to the microsecond, not to the default 50 us timer slack. */
	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (o->delay_ns && prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) < 0)
		slack = -1;
	/* The session's window: its requests, without the hello and the STATS message. */
	(void)window_begin(env->window);
	cpu0 = cpu_ns_now();
	r = session_loop(&s, env, o->read_timeout_ns, RR_BLOCK_MAX);
	cpu1 = cpu_ns_now();
	(void)window_end(env->window);
	if (o->delay_ns && slack > 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0) < 0) {
		/* Only later sessions' wake-ups are a little more precise. */
	}
	s.st.session_ns = s.first ? clock_mono() - s.first : 0;
	s.st.idle_ns = s.acct[A_IDLE];
	s.st.paced_ns = s.acct[A_PACED];
	s.st.blocked_ns = s.acct[A_BLOCKED];
	s.st.cpu_ns = cpu1 - cpu0;
	if (s.st.idle_ns > s.st.session_ns)
		s.st.idle_ns = s.st.session_ns;
	if (fl >= 0 && fcntl(cfd, F_SETFL, fl) < 0) {
		/* Only the STATS write below notices, and it has a deadline. */
	}
	if (r == 0 && send_stats(&s, env, o->read_timeout_ns) < 0)
		snprintf(s.why, sizeof(s.why), "the client did not take the STATS message");

	res = result_new("net", "server");
	result_param(res, "role", "server");
	result_param(res, "mode", "rr");
	result_param(res, "peer", "%s", peer);
	result_param(res, "peer_version", "%s", h.peer_version[0] ? h.peer_version : "unknown");
	result_param(res, "block", "%u", (unsigned)h.block);
	result_param(res, "depth", "%u", (unsigned)h.depth);
	result_param(res, "delay", "%.6g ms", (double)o->delay_ns / 1e6);
	if (o->rate > 0)
		result_param(res, "rate", "%.6g bytes/s", o->rate);
	result_method(res, "protocol", "engpass rr (docs/net-rr.md): each request answered --delay after it "
		      "arrived, in DATA frames of at most 64 KiB%s", o->rate > 0 ? ", paced by a token bucket" : "");
	result_method(res, "accounting", "session = first non-empty request to END; idle = nothing ready to send; paced = "
		      "held back by --rate; blocked = socket send buffer full; monotonic clock at each poll");
	result_metric(res, "requests", UNIT_COUNT, (double)s.st.requests, "requests answered");
	result_metric(res, "sent", UNIT_BYTES, (double)s.st.bytes, "payload bytes sent");
	if (s.st.session_ns) {
		double sec = (double)s.st.session_ns / 1e9;

		result_metric(res, "throughput", UNIT_BYTES_PER_S, (double)s.st.bytes / sec, "payload / session");
		result_metric(res, "idle", UNIT_PERCENT, 100.0 * (double)s.st.idle_ns / (double)s.st.session_ns,
			      "nothing ready to send")->higher_is_better = false;
		result_metric(res, "paced", UNIT_PERCENT, 100.0 * (double)s.st.paced_ns / (double)s.st.session_ns,
			      "held back by --rate")->higher_is_better = false;
		result_metric(res, "blocked", UNIT_PERCENT, 100.0 * (double)s.st.blocked_ns / (double)s.st.session_ns,
			      "send buffer full")->higher_is_better = false;
		result_metric(res, "server_cpu", UNIT_PERCENT, 100.0 * (double)s.st.cpu_ns / (double)s.st.session_ns,
			      "process CPU / session")->higher_is_better = false;
		result_headline(res, "throughput");
	}
	result_set_verdict(res, "see client",
			   "the client's result judges the session from these figures");
	if (r < 0) {
		result_set_incomplete(res);
		result_note(res, "session ended early: %s", s.why);
	}
	free(s.q);
	return res;
}
