/* SPDX-License-Identifier: MIT */
/*
 * `engpass net server`: an iperf3-compatible server that serves tests one
 * after another and emits one result per test, with its own per-CPU view
 * and, for an engpass client, the client's view too.
 *
 * The network is hostile. Every control read has a deadline (--read-timeout,
 * 10 s by default, like iperf3 3.15+), the parameters message is capped at
 * 8 KiB and the results at 256 KiB before anything is allocated, JSON goes
 * through jansson, a data connection with a wrong cookie gets the one
 * ACCESS_DENIED byte, so does any connection while a test runs, a test
 * that never sees TEST_END is abandoned after its time + 30 s, and
 * whatever happens to one client, the server closes everything that test
 * opened and goes back to listening. It never sends anything but the
 * protocol and the benchmark payload.
 *
 * One connection is handled at a time: while a handshake waits for a slow
 * client, later connections wait in the backlog, as with iperf3. So the
 * handshake as a whole (cookie, parameters, or an rr hello and welcome)
 * has one deadline, the read timeout from the accept, whatever the peer
 * trickles; the data streams must connect within another; a running test
 * whose streams move nothing for NET_SERVER_STALL_RTO read timeouts is
 * abandoned (a client that stops sending or reading), and one that never
 * sees TEST_END ends at its time + NET_SERVER_GRACE_S.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/net/net_priv.h"
#include "bench/net/net_rr.h"
#include "core/kernel/affinity.h"
#include "core/base/clock.h"
#include "core/base/progress.h"
#include "core/observe/window.h"
#include "lib/xalloc.h"

struct server {
	const struct bench_env *env;
	const struct net_opts *o;
	int lfd;			/* the TCP listener */
	bool lfd_tuned;			/* re-created with a test's window/MSS */
	uint64_t rto;			/* read timeout */
	const struct net_sockopts *udp_opts;	/* the running test's socket options for UDP; NULL */
	unsigned tests, ended_early, denied, bad_handshakes;
	unsigned queued, left_queue;	/* clients held while busy; of them, gone before their turn */
	double max_wait_s;		/* the longest a served client waited */
	bool fatal;			/* cannot listen any more */
	char fatal_why[160];
	/* The queue: control connections accepted while busy, oldest first. */
	struct waiter {
		int fd;
		char first[IPERF3_COOKIE_LEN];	/* its first bytes (a cookie or the start of an rr hello) */
		size_t got;
		mono_ns since;			/* accepted */
	} q[NET_QUEUE_MAX];
	size_t nq;
};

static const char *errstr(int e)
{
	return strerror(e < 0 ? -e : e);
}

/* Turns connection FD away with ACCESS_DENIED and closes it. */
static void deny_fd(struct server *sv, int fd)
{
	signed char c = IPERF3_ACCESS_DENIED;

	if (send(fd, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* The peer is gone already; nothing to tell it. */
	}
	close(fd);
	sv->denied++;
}

/* Tells a queued engpass client (a marked cookie) that it waits; others hear nothing. */
static void queue_tell(struct waiter *w)
{
	signed char c = IPERF3_ENGPASS_QUEUED;

	if (w->got == sizeof(w->first) && iperf3_cookie_marked(w->first) &&
	    send(w->fd, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* Gone: queue_check() drops it. */
	}
}

/*
 * Holds connection FD (accepted while a test runs) at the end of the queue,
 * with the GOT first bytes already read from it; denies it when the queue
 * is full or off (--queue 0).
 */
static void queue_add(struct server *sv, int fd, const char *first, size_t got)
{
	struct waiter *w;

	if (sv->nq >= (size_t)sv->o->queue) {
		deny_fd(sv, fd);
		return;
	}
	w = &sv->q[sv->nq++];
	w->fd = fd;
	w->got = got;
	w->since = clock_mono();
	if (got)
		memcpy(w->first, first, got);
	sv->queued++;
	queue_tell(w);
}

/* Accepts one waiting connection into the queue (or turns it away). */
static void queue_accept(struct server *sv)
{
	int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0)
		queue_add(sv, fd, NULL, 0);
}

/* Takes in every connection waiting in the listener's backlog (before the listener closes). */
static void queue_drain(struct server *sv)
{
	while (sv->lfd >= 0 && net_wait_readable(sv->lfd, 0) > 0) {
		size_t before = sv->nq;
		unsigned denied = sv->denied;

		queue_accept(sv);
		if (sv->nq == before && sv->denied == denied)
			break;
	}
}

/*
 * Looks at the queued connections without blocking: reads their first
 * bytes as they come (and tells a marked engpass client it is queued),
 * and drops the ones whose client left.
 */
static void queue_check(struct server *sv)
{
	size_t k = 0;

	for (size_t i = 0; i < sv->nq; i++) {
		struct waiter *w = &sv->q[i];
		struct pollfd pf = { .fd = w->fd, .events = POLLRDHUP };
		bool gone = poll(&pf, 1, 0) > 0 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR));

		if (!gone && w->got < sizeof(w->first)) {
			ssize_t n = recv(w->fd, w->first + w->got, sizeof(w->first) - w->got, MSG_DONTWAIT);

			if (n > 0) {
				w->got += (size_t)n;
				if (w->got == sizeof(w->first))
					queue_tell(w);
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				gone = true;
			}
		}
		if (gone) {
			close(w->fd);
			sv->left_queue++;
			continue;
		}
		sv->q[k++] = *w;
	}
	sv->nq = k;
}

/* Re-creates the listener with OPTS (NULL: defaults). */
static int relisten(struct server *sv, const struct net_sockopts *opts)
{
	int fd, r;

	/* Closing the listener resets what waits in its backlog: queue it first. */
	queue_drain(sv);
	close(sv->lfd);
	sv->lfd = -1;
	r = net_listen(sv->o->bind, (uint16_t)sv->o->port, SOCK_STREAM, opts, &fd);
	if (r < 0 && opts) {
		/* Keep serving without the options rather than not at all. */
		if (net_listen(sv->o->bind, (uint16_t)sv->o->port, SOCK_STREAM, NULL, &fd) == 0)
			sv->lfd = fd;
		sv->lfd_tuned = false;
		return r;
	}
	if (r < 0)
		return r;
	sv->lfd = fd;
	sv->lfd_tuned = opts != NULL;
	return 0;
}

/* Waits for the handshake datagram of one UDP stream on *UFD and connects it. */
static int udp_accept(struct server *sv, int *ufd, int *stream_fd)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	unsigned char msg[64];
	int nfd, r;

	if (recvfrom(*ufd, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&from, &fl) < 0)
		return -errno;
	/* iperf3 does not check the content (old clients sent 123456789). */
	if (connect(*ufd, (struct sockaddr *)&from, fl) < 0)
		return -errno;
	/* Nothing queued before connect() belongs to this stream. */
	while (recv(*ufd, msg, sizeof(msg), MSG_DONTWAIT) > 0)
		;
	*stream_fd = *ufd;
	*ufd = -1;
	if ((r = net_listen(sv->o->bind, (uint16_t)sv->o->port, SOCK_DGRAM, sv->udp_opts, &nfd)) < 0)
		return r;
	*ufd = nfd;
	if (send(*stream_fd, IPERF3_UDP_CONNECT_REPLY, 4, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/*
 * Accepts the N data streams of a test: TCP connections with the test's
 * cookie on the listener, or UDP handshakes on UFD. Wrong cookies are
 * denied; the control connection is watched for a client that gives up.
 * Returns 0, or -errno with WHY filled.
 */
static int accept_streams(struct server *sv, int cfd, const char *cookie, const struct iperf3_params *p,
			  struct net_stream *st, size_t n, int *ufd, char *why, size_t whylen)
{
	mono_ns deadline = clock_mono() + sv->rto;
	size_t got = 0;
	int r;

	while (got < n) {
		struct pollfd pf[3] = {
			{ .fd = cfd, .events = POLLIN },
			{ .fd = sv->lfd, .events = POLLIN },
			{ .fd = *ufd, .events = POLLIN },
		};
		mono_ns now = clock_mono();
		int k;

		if (now >= deadline) {
			snprintf(why, whylen, "only %zu of %zu data streams connected within the read timeout", got, n);
			return -ETIMEDOUT;
		}
		/* Wakes at least every 250 ms to look at the queue. */
		k = poll(pf, *ufd >= 0 ? 3 : 2, (int)((deadline - now < 250 * NS_PER_MS ? deadline - now : 250 * NS_PER_MS) / NS_PER_MS) + 1);
		if (k < 0) {
			if (errno == EINTR && *sv->env->stop) {
				snprintf(why, whylen, "stopped by signal while streams connected");
				return -EINTR;
			}
			continue;
		}
		if (pf[0].revents) {
			snprintf(why, whylen, "client left or spoke out of turn while streams connected");
			return -ECONNRESET;
		}
		if (pf[1].revents) {
			char c[IPERF3_COOKIE_LEN];
			int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC);
			uint64_t left = deadline - clock_mono();

			if (fd < 0)
				continue;
			if (p->proto == NET_UDP) {
				/* UDP streams do not come this way: another client's control connection. */
				queue_add(sv, fd, NULL, 0);
				continue;
			}
			if ((r = net_read_full(fd, c, sizeof(c), left < sv->rto ? left : sv->rto, sv->env->stop)) == 0 &&
			    !memcmp(c, cookie, sizeof(c))) {
				int one = 1;

				if (p->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
					/* Not fatal: the stream runs without it. */
				}
				st[got++].fd = fd;
				continue;
			}
			/*
			 * Not this test's cookie: another client's control connection (or
			 * a stray stream), which waits its turn in the queue, or is denied.
			 */
			if (r == 0)
				queue_add(sv, fd, c, sizeof(c));
			else
				deny_fd(sv, fd);
		}
		queue_check(sv);
		if (*ufd >= 0 && pf[2].revents) {
			r = udp_accept(sv, ufd, &st[got].fd);

			if (r < 0) {
				snprintf(why, whylen, "UDP stream setup failed: %s", errstr(r));
				return r;
			}
			got++;
		}
	}
	return 0;
}

/* Whether CPU is one the server may run on (the operator's --pin holds). */
static bool cpu_allowed(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE || affinity_get_self(&set) < 0)
		return false;
	return CPU_ISSET(cpu, &set);
}

/* One test as the server runs it: the steps of run_test() share it. */
struct test_run {
	struct server *sv;
	const struct bench_env *env;
	int cfd;			/* the control connection */
	const char *cookie;
	struct net_test *t;
	struct net_stream *st;		/* the data streams */
	size_t n;
	uint64_t *base;			/* bytes at the end of the omitted start */
	struct net_payload pay;
	struct net_sockopts so;
	int ufd;			/* the UDP port while streams connect */
	int pin;			/* CPU of the stream threads; -1 none */
	bool started, ended;		/* TEST_START sent; TEST_END received */
	double u0, s0;			/* process CPU at TEST_START */
	mono_ns t0, tcpu;		/* start of the counted time; TEST_START */
};

/*
 * Prepares the streams, the server pin, the payload and the sockets the
 * test asked for, sends CREATE_STREAMS and accepts the streams. False with
 * T->why (or the server fatal) when the test cannot go on.
 */
static bool test_setup(struct test_run *x)
{
	struct server *sv = x->sv;
	struct net_test *t = x->t;
	const struct iperf3_params *p = &t->p;
	char why[160] = "";
	int r;

	for (size_t i = 0; i < x->n; i++) {
		net_stream_init(&x->st[i]);
		x->st[i].id = IPERF3_STREAM_ID(i);
		x->st[i].proto = p->proto;
		x->st[i].sender = p->reverse || (p->bidir && i >= (size_t)p->parallel);
		x->st[i].rate_bytes_per_s = p->bandwidth_bps / 8;
		x->st[i].seq64 = p->udp_counters_64bit;
		x->st[i].payload = &x->pay;
	}
	if (p->server_affinity >= 0) {
		if (cpu_allowed(p->server_affinity)) {
			x->pin = p->server_affinity;
		} else {
			net_test_note(t, "server_pin cpu%d ignored: not among the CPUs this server may use",
				      p->server_affinity);
		}
	}
	if (p->reverse || p->bidir) {
		r = net_payload_init(&x->pay, p->len, p->zerocopy && p->proto == NET_TCP);
		if (r < 0)
			net_test_note(t, "zero copy unavailable (%s); sending with send()", errstr(r));
		t->zerocopy = x->pay.zc_fd >= 0;
	}
	if ((p->window || p->mss) && p->proto == NET_TCP && (r = relisten(sv, &x->so)) < 0) {
		net_test_note(t, "window/MSS not applied to the listener: %s", errstr(r));
		if (sv->lfd < 0) {
			sv->fatal = true;
			snprintf(sv->fatal_why, sizeof(sv->fatal_why), "cannot listen again: %s", errstr(r));
			return false;
		}
	}
	sv->udp_opts = p->window ? &x->so : NULL;
	if (p->proto == NET_UDP &&
	    (r = net_listen(sv->o->bind, (uint16_t)sv->o->port, SOCK_DGRAM, sv->udp_opts, &x->ufd)) < 0) {
		snprintf(t->why, sizeof(t->why), "cannot open the UDP port: %s", errstr(r));
		return false;
	}
	if (iperf3_send_state(x->cfd, IPERF3_CREATE_STREAMS, sv->rto, x->env->stop) < 0 ||
	    accept_streams(sv, x->cfd, x->cookie, p, x->st, x->n, &x->ufd, why, sizeof(why)) < 0) {
		snprintf(t->why, sizeof(t->why), "%s", why[0] ? why : "client left before CREATE_STREAMS");
		return false;
	}
	if (x->ufd >= 0) {
		close(x->ufd);
		x->ufd = -1;
	}
	return true;
}

/*
 * Starts the test: receivers are reading before the client may send (a
 * UDP burst would otherwise overflow the socket buffer while threads
 * start); TEST_START and TEST_RUNNING open the test's measurement window;
 * senders start with it. False when the test never started.
 */
static bool test_start(struct test_run *x)
{
	const struct bench_env *env = x->env;
	struct net_test *t = x->t;
	char iface[NET_IFNAME_LEN];
	int r;

	/* This test's window watches the interface its client came in by. */
	window_watch_iface(env->window, net_sock_iface(x->cfd, iface, sizeof(iface)) == 0 ? iface : NULL);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			/* The test's window: from TEST_START to the streams' end. */
			(void)window_begin(env->window);
			net_rusage(&x->u0, &x->s0);
			if (iperf3_send_state(x->cfd, IPERF3_TEST_START, x->sv->rto, env->stop) < 0 ||
			    iperf3_send_state(x->cfd, IPERF3_TEST_RUNNING, x->sv->rto, env->stop) < 0) {
				snprintf(t->why, sizeof(t->why), "client left before the test started");
				return false;
			}
			x->t0 = x->tcpu = clock_mono();
			x->started = true;
		}
		for (size_t i = 0; i < x->n && !t->incomplete; i++) {
			if (x->st[i].sender != (pass == 1))
				continue;
			x->st[i].pin_cpu = x->pin;
			if ((r = net_stream_start(&x->st[i])) < 0) {
				snprintf(t->why, sizeof(t->why), "cannot start a stream thread: %s", errstr(r));
				t->incomplete = true;
			}
		}
		if (t->incomplete && !x->started)
			return false;
	}
	if (x->pin >= 0)
		t->me.pinned_cpu = x->pin;
	return true;
}

/*
 * How long test P's data streams may move nothing before the test is
 * abandoned: NET_SERVER_STALL_RTO read timeouts, or three of the gaps the
 * test's own pace (--bandwidth with blocks of --len) leaves between two
 * blocks, whichever is longer.
 */
static uint64_t stall_limit(const struct server *sv, const struct iperf3_params *p)
{
	uint64_t ns = NET_SERVER_STALL_RTO * sv->rto;

	if (p->bandwidth_bps > 0) {
		double gap = 3.0 * (double)p->len * 8.0 / p->bandwidth_bps * 1e9;

		if (gap > (double)ns)
			ns = gap > 1e18 ? (uint64_t)1e18 : (uint64_t)gap;
	}
	return ns;
}

/*
 * Waits for TEST_END while the streams run: restarts the counts when the
 * omitted start ends, turns away other connections, and gives up at the
 * test time + NET_SERVER_GRACE_S, on a signal or on a vanished client.
 */
static void test_wait(struct test_run *x)
{
	const struct bench_env *env = x->env;
	struct server *sv = x->sv;
	struct net_test *t = x->t;
	const struct iperf3_params *p = &t->p;
	bool omitted = p->omit_s <= 0;
	mono_ns omit_end = x->t0 + (uint64_t)(p->omit_s * (double)NS_PER_SEC);
	mono_ns safety = x->t0 + (uint64_t)((p->time_s > 0 ? p->time_s + p->omit_s + NET_SERVER_GRACE_S
							  : NET_SERVER_MAX_UNTIMED_S) * (double)NS_PER_SEC);
	uint64_t stall = stall_limit(sv, p), moved = 0;
	uint64_t step = stall / 4 < NS_PER_SEC ? stall / 4 : NS_PER_SEC;
	mono_ns last_move = clock_mono();

	while (!t->incomplete) {
		struct pollfd pf[2] = { { .fd = x->cfd, .events = POLLIN }, { .fd = sv->lfd, .events = POLLIN } };
		mono_ns now = clock_mono(), wake = safety;
		uint64_t sum = 0;
		int k, r, s;

		for (size_t i = 0; i < x->n; i++)
			sum += net_stream_bytes(&x->st[i]);
		if (sum != moved) {
			moved = sum;
			last_move = now;
		} else if (now - last_move >= stall) {
			snprintf(t->why, sizeof(t->why), "nothing moved on the data streams for %.3g s (%d x --read-timeout)",
				 (double)(now - last_move) / 1e9, NET_SERVER_STALL_RTO);
			t->incomplete = true;
			break;
		}
		/* Look again soon enough for the stall rule: it fires at most a quarter late. */
		if (now + step < wake)
			wake = now + step;

		if (!omitted && now >= omit_end) {
			for (size_t i = 0; i < x->n; i++)
				x->base[i] = net_stream_bytes(&x->st[i]);
			omitted = true;
			x->t0 = now;
		}
		if (!omitted && omit_end < wake)
			wake = omit_end;
		if (now >= safety) {
			snprintf(t->why, sizeof(t->why), "no TEST_END within the test time + %d s", NET_SERVER_GRACE_S);
			t->incomplete = true;
			break;
		}
		k = poll(pf, sv->lfd >= 0 ? 2 : 1, (int)((wake - now) / NS_PER_MS) + 1);
		if (k < 0) {
			if (errno == EINTR && *env->stop) {
				if (iperf3_send_state(x->cfd, IPERF3_SERVER_TERMINATE, NS_PER_SEC, NULL) < 0) {
					/* The client learns from the closed connection instead. */
				}
				snprintf(t->why, sizeof(t->why), "server stopped by signal");
				t->incomplete = true;
				break;
			}
			continue;
		}
		if (pf[1].revents)
			queue_accept(sv);
		queue_check(sv);
		if (!pf[0].revents)
			continue;
		r = iperf3_recv_state(x->cfd, &s, sv->rto, env->stop);
		if (r == 0 && s == IPERF3_TEST_END) {
			x->ended = true;
			break;
		}
		t->incomplete = true;
		if (r < 0)
			snprintf(t->why, sizeof(t->why), "client vanished during the test (%s)", errstr(r));
		else if (s == IPERF3_CLIENT_TERMINATE)
			snprintf(t->why, sizeof(t->why), "client ended the test (CLIENT_TERMINATE)");
		else
			snprintf(t->why, sizeof(t->why), "protocol error: state %d during the test", s);
	}
}

/*
 * Stops the streams, closes the window and fills this side's figures: the
 * test time, process CPU, the streams' counts and the window's view.
 */
static void test_collect(struct test_run *x)
{
	struct net_test *t = x->t;
	struct sysview v;
	bool have_view;
	double u1, s1, data_cpu, moved = 0;
	mono_ns t1 = clock_mono();

	for (size_t i = 0; i < x->n; i++) {
		net_stream_quit(&x->st[i], NET_QUIT_NOW);
		if (x->st[i].fd >= 0)
			shutdown(x->st[i].fd, SHUT_RDWR);
	}
	for (size_t i = 0; i < x->n; i++)
		net_stream_join(&x->st[i]);
	(void)window_end(x->env->window);
	net_rusage(&u1, &s1);
	t->duration_s = elapsed_s(x->t0, t1);
	if (elapsed_s(x->tcpu, t1) > 0) {
		/* Over the whole test, omitted start included, as the CPU time is. */
		t->cpu_user_pct = 100 * (u1 - x->u0) / elapsed_s(x->tcpu, t1);
		t->cpu_system_pct = 100 * (s1 - x->s0) / elapsed_s(x->tcpu, t1);
	}
	data_cpu = net_test_collect(t, x->st, x->n, x->base);
	for (size_t i = 0; i < x->n && t->p.proto == NET_TCP; i++)
		if (x->st[i].fd >= 0 && net_tcp_congestion(x->st[i].fd, t->congestion, sizeof(t->congestion)) == 0)
			break;
	have_view = window_view(x->env->window, &v) == 0;
	for (size_t i = 0; i < t->nlocal; i++)
		moved += t->local[i].bytes;
	net_side_local(&t->me, x->cookie, x->cfd, have_view ? &v : NULL, (u1 - x->u0) + (s1 - x->s0), data_cpu, moved,
		       t->p.want_capacity);
	if (x->pin >= 0)
		t->me.pinned_cpu = x->pin;
}

/* Swaps results with the client after TEST_END; what fails becomes a note. */
static void test_exchange(struct test_run *x)
{
	const struct bench_env *env = x->env;
	struct net_test *t = x->t;
	uint64_t rto = x->sv->rto;
	char *msg = NULL, err[160];
	size_t len = 0;
	int r, s = 0;

	if ((r = iperf3_send_state(x->cfd, IPERF3_EXCHANGE_RESULTS, rto, env->stop)) < 0 ||
	    (r = iperf3_recv_json(x->cfd, IPERF3_RESULTS_MAX, rto, env->stop, &msg, &len)) < 0) {
		net_test_note(t, "no results from the client: %s", r == -EMSGSIZE ? "message too long" : errstr(r));
	} else if (iperf3_results_parse(msg, len, &t->remote, err, sizeof(err)) < 0) {
		net_test_note(t, "client results unreadable: %s", err);
		iperf3_results_release(&t->remote);
	} else {
		t->have_remote = true;
	}
	free(msg);
	if (r < 0)
		return;
	msg = net_results_message(t, t->p.engpass, &len);
	r = iperf3_send_json(x->cfd, msg, len, rto, env->stop);
	free(msg);
	if (r == 0)
		r = iperf3_send_state(x->cfd, IPERF3_DISPLAY_RESULTS, rto, env->stop);
	/* IPERF_DONE, or the client just closing, both end the test. */
	if (r == 0 && iperf3_recv_state(x->cfd, &s, rto, env->stop) == 0 && s != IPERF3_IPERF_DONE)
		net_test_note(t, "client ended with state %d instead of IPERF_DONE", s);
}

/*
 * Runs one test on control connection CFD after the parameters arrived.
 * Fills T; returns true when the test started (a result is due).
 */
static bool run_test(struct server *sv, int cfd, const char *cookie, struct net_test *t)
{
	const struct iperf3_params *p = &t->p;
	struct test_run x = {
		.sv = sv, .env = sv->env, .cfd = cfd, .cookie = cookie, .t = t,
		.n = (size_t)p->parallel * (p->bidir ? 2 : 1),
		.pay = { NULL, 0, -1 }, .so = { (int)p->window, (int)p->mss, p->nodelay },
		.ufd = -1, .pin = -1,
	};
	int r;

	x.st = xcalloc(x.n, sizeof(*x.st));
	x.base = xcalloc(x.n, sizeof(*x.base));
	if (test_setup(&x) && test_start(&x))
		test_wait(&x);
	if (x.started) {
		test_collect(&x);
		if (x.ended)
			test_exchange(&x);
	}
	for (size_t i = 0; i < x.n; i++)
		net_stream_release(&x.st[i]);
	free(x.st);
	free(x.base);
	if (x.ufd >= 0)
		close(x.ufd);
	net_payload_release(&x.pay);
	sv->udp_opts = NULL;
	if (sv->lfd_tuned && (r = relisten(sv, NULL)) < 0) {
		sv->fatal = true;
		snprintf(sv->fatal_why, sizeof(sv->fatal_why), "cannot listen again: %s", errstr(r));
	}
	return x.started;
}

/* What is left until DEADLINE: at least 1 ns, so a call past it times out at once. */
static uint64_t left_until(mono_ns deadline)
{
	mono_ns now = clock_mono();

	return now < deadline ? deadline - now : 1;
}

/*
 * Handles one accepted control connection, from the cookie to the end. W
 * holds its first bytes already read and how long it waited in the queue.
 */
static void serve_one(struct server *sv, int cfd, const struct waiter *w)
{
	const struct bench_env *env = sv->env;
	char cookie[IPERF3_COOKIE_LEN], err[160];
	struct net_test t;
	char *msg = NULL;
	size_t len = 0;
	int r, one = 1;
	/* The whole handshake, however the peer trickles it, within one read timeout. */
	mono_ns deadline = clock_mono() + sv->rto;

	memset(&t, 0, sizeof(t));
	net_side_init(&t.me);
	net_peer_name(cfd, t.peer, sizeof(t.peer));
	t.queue_wait_s = w->since ? elapsed_s(w->since, clock_mono()) : 0;
	if (t.queue_wait_s > sv->max_wait_s)
		sv->max_wait_s = t.queue_wait_s;
	if (setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
		/* Only latency of the state bytes suffers. */
	}
	memcpy(cookie, w->first, w->got);
	if (w->got < sizeof(cookie) &&
	    (r = net_read_full(cfd, cookie + w->got, sizeof(cookie) - w->got, left_until(deadline), env->stop)) < 0) {
		sv->bad_handshakes++;
		close(cfd);
		return;
	}
	if (rr_is_hello(cookie, sizeof(cookie))) {
		struct result *res = net_rr_serve(env, sv->o, cfd, (const uint8_t *)cookie, t.peer,
						  left_until(deadline));

		if (res) {
			net_queue_wait_metric(res, t.queue_wait_s, false);
			sv->tests++;
			if (res->incomplete)
				sv->ended_early++;
			env->emit(env, res);
		} else {
			sv->bad_handshakes++;
		}
		close(cfd);
		return;
	}
	if ((r = iperf3_send_state(cfd, IPERF3_PARAM_EXCHANGE, left_until(deadline), env->stop)) < 0 ||
	    (r = iperf3_recv_json(cfd, IPERF3_PARAMS_MAX, left_until(deadline), env->stop, &msg, &len)) < 0) {
		sv->bad_handshakes++;
		close(cfd);
		return;
	}
	r = iperf3_params_parse(msg, len, &t.p, err, sizeof(err));
	free(msg);
	if (r < 0) {
		sv->bad_handshakes++;
		close(cfd);
		return;
	}
	if (t.p.engpass)
		snprintf(t.peer_version, sizeof(t.peer_version), "%s", t.p.engpass_version);
	else if (t.p.client_version[0])
		snprintf(t.peer_version, sizeof(t.peer_version), "iperf3 %s", t.p.client_version);
	if (run_test(sv, cfd, cookie, &t)) {
		struct result *res = result_new("net", "server");

		net_report_fill(res, &t, t.p.want_capacity);
		net_queue_wait_metric(res, t.queue_wait_s, false);
		if (t.incomplete) {
			result_set_incomplete(res);
			sv->ended_early++;
		}
		sv->tests++;
		/* Takes the test's window along. */
		env->emit(env, res);
	} else {
		/* A test that never started has no result to own its window. */
		window_discard(env->window);
		sv->bad_handshakes++;
	}
	net_test_release(&t);
	close(cfd);
}

void net_server_run(const struct bench_env *env, const struct net_opts *o, struct result *res)
{
	struct server sv = { .env = env, .o = o, .lfd = -1 };
	mono_ns idle_deadline;
	bool idled = false;
	int r;

	sv.rto = o->read_timeout_ns;
	result_param(res, "role", "server");
	result_param(res, "bind", "%s", o->bind ? o->bind : "any address");
	result_param(res, "port", "%lld", (long long)o->port);
	result_param(res, "read_timeout", "%.3g s", (double)o->read_timeout_ns / 1e9);
	if (o->idle_timeout_ns)
		result_param(res, "idle_timeout", "%.3g s", (double)o->idle_timeout_ns / 1e9);
	result_param(res, "queue", "%lld", (long long)o->queue);
	if (o->queue > 0)
		result_method(res, "protocol", "iperf3 3.x wire protocol (TCP and UDP) and engpass rr (docs/net-rr.md); one "
			      "test at a time, clients that connect meanwhile wait in a queue of %lld in arrival order (more "
			      "get ACCESS_DENIED); one result per test served", (long long)o->queue);
	else
		result_method(res, "protocol", "iperf3 3.x wire protocol (TCP and UDP) and engpass rr (docs/net-rr.md); one "
			      "test at a time, others get ACCESS_DENIED (--queue 0); one result per test served");
	if (o->delay_ns)
		result_param(res, "delay", "%.6g ms", (double)o->delay_ns / 1e6);
	if (o->rate > 0)
		result_param(res, "rate", "%.6g bytes/s", o->rate);
	if ((r = net_listen(o->bind, (uint16_t)o->port, SOCK_STREAM, NULL, &sv.lfd)) < 0) {
		result_set_status(res, RESULT_FAILED, "cannot listen on %s port %lld: %s",
				  o->bind ? o->bind : "any address", (long long)o->port, errstr(r));
		return;
	}
	{
		/* Where it listens, as iperf3 says "Server listening on 5201": a lasting line on stderr. */
		char line[160];

		snprintf(line, sizeof(line), "engpass net server: listening on port %lld (%s)", (long long)o->port,
			 o->bind ? o->bind : "every address");
		progress_say(env->progress, line);
	}
	idle_deadline = o->idle_timeout_ns ? clock_mono() + o->idle_timeout_ns : UINT64_MAX;
	while (!*env->stop && !sv.fatal) {
		mono_ns now = clock_mono();
		struct waiter w = { .fd = -1 };
		int cfd, k;

		/* The oldest waiting client first; the queue keeps the order of arrival. */
		queue_check(&sv);
		if (sv.nq) {
			w = sv.q[0];
			memmove(&sv.q[0], &sv.q[1], (sv.nq - 1) * sizeof(sv.q[0]));
			sv.nq--;
			cfd = w.fd;
		} else {
			if (now >= idle_deadline) {
				idled = true;
				break;
			}
			k = net_wait_readable(sv.lfd, idle_deadline == UINT64_MAX ? 3600 * NS_PER_SEC : idle_deadline - now);
			if (k <= 0)
				continue;
			cfd = accept4(sv.lfd, NULL, NULL, SOCK_CLOEXEC);
		}
		if (cfd < 0) {
			/* Out of descriptors or memory: breathe instead of spinning. */
			if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED &&
			    clock_sleep_until(clock_mono() + 100 * NS_PER_MS) < 0) {
				/* A signal: the loop looks at the stop flag. */
			}
			continue;
		}
		{
			unsigned before = sv.tests;

			serve_one(&sv, cfd, &w);
			if (sv.tests != before) {
				if (o->idle_timeout_ns)
					idle_deadline = clock_mono() + o->idle_timeout_ns;
				if (o->one_off)
					break;
			}
		}
	}
	/* Whoever still waits is told the server is done, as iperf3 tells a busy server's clients. */
	queue_check(&sv);
	for (size_t i = 0; i < sv.nq; i++)
		deny_fd(&sv, sv.q[i].fd);
	sv.nq = 0;
	if (sv.lfd >= 0)
		close(sv.lfd);
	result_metric(res, "tests", UNIT_COUNT, sv.tests, "tests served");
	result_metric(res, "queued", UNIT_COUNT, sv.queued, "clients held in the queue while a test ran");
	result_metric(res, "left_queue", UNIT_COUNT, sv.left_queue, "queued clients that left before their turn")
		->higher_is_better = false;
	result_metric(res, "max_queue_wait", UNIT_SECONDS, sv.max_wait_s, "longest wait in the queue")
		->higher_is_better = false;
	result_metric(res, "tests_ended_early", UNIT_COUNT, sv.ended_early, "tests ended early")->higher_is_better = false;
	result_metric(res, "denied", UNIT_COUNT, sv.denied, "connections denied (busy, cookie)")
		->higher_is_better = false;
	result_metric(res, "bad_handshakes", UNIT_COUNT, sv.bad_handshakes,
		      "handshakes dropped (bad, silent)")->higher_is_better = false;
	result_set_verdict(res, "none observed",
			   "a server session; each test has its own result and verdict");
	if (sv.fatal) {
		result_set_status(res, RESULT_FAILED, "%s", sv.fatal_why);
		return;
	}
	if (idled)
		result_note(res, "no test for %.3g s (--idle-timeout): the server stopped", (double)o->idle_timeout_ns / 1e9);
	else if (o->one_off && sv.tests)
		result_note(res, "--one-off: stopped after one test");
}
