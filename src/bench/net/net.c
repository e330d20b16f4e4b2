/* SPDX-License-Identifier: MIT */
/*
 * `engpass net`: seed 004's measurement in one tool. A server and a client
 * that speak iperf3's wire protocol (so they work with the iperf3 servers
 * and clients people already run), and that, when both ends are engpass,
 * also report each side's per-CPU view during the test (busiest core and
 * its softirq share), CPU time per GB for sender and receiver, the link
 * speed, a verdict (one core, a side's CPU, or the link) and, with
 * --capacity, the seed's rule-of-three capacity estimate.
 *
 * This file is the descriptor: the option tables (shared, and one per
 * verb: `server`, `client HOST`), the checks and the dispatch. The protocol is in
 * net_iperf3.c, sockets in net_sock.c, data threads in net_stream.c, the
 * UDP header in net_udp.c, the roles in net_server.c and net_client.c, and
 * the figures, verdict and estimate in net_report.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/net/net_priv.h"
#include "bench/net/net_rr.h"
#include "config.h"
#include "core/base/clock.h"
#include "lib/xalloc.h"

#define NET_DEFAULT_PORT 5201
#define NET_DEFAULT_TIMEOUT_NS (10 * NS_PER_SEC)
#define NET_DEFAULT_QUEUE 8
#define NET_DEFAULT_QUEUE_TIMEOUT_NS (600 * NS_PER_SEC)
#define NET_DEFAULT_BLOCK (60 << 10)	/* seed 002's SMB block */

static const char *const modes[] = { "iperf3", "rr", "stream", NULL };

/* Options of both commands; iperf3's spellings of the verbs and of common options end it. */
static const struct opt net_options[] = {
	OPT_INT("port", 'p', struct net_opts, port, 1, 65535, "PORT", "TCP (and UDP) port (default 5201)"),
	OPT_VERB("client", 'c', "HOST", "iperf3 -c HOST: the same as 'client HOST'"),
	OPT_VERB("server", 's', NULL, "iperf3 -s: the same as 'server'"),
	OPT_SAME('t', "time", "iperf3 -t; a number is seconds"),
	OPT_SAME('J', "json", "iperf3 -J"),
	OPT_FLAG("version4", '4', struct net_opts, ipv4, "IPv4 only (iperf3 -4)"),
	OPT_FLAG("version6", '6', struct net_opts, ipv6, "IPv6 only (iperf3 -6)"),
	OPT_END,
};

/* `net server` options. */
static const struct opt net_server_options[] = {
	OPT_STRING("bind", 'B', struct net_opts, bind, "ADDR",
		   "listen on this address only (default: all, IPv4 and IPv6)"),
	OPT_FLAG("one-off", 0, struct net_opts, one_off, "stop after one test"),
	OPT_INT("queue", 0, struct net_opts, queue, 0, NET_QUEUE_MAX, "N",
		"hold up to N clients that connect while a test runs and serve them in turn (default 8; "
		"0: refuse them with ACCESS_DENIED, as iperf3)"),
	OPT_DURATION("idle-timeout", 0, struct net_opts, idle_timeout_ns, 1 * NS_PER_MS, 30 * 24 * 3600 * NS_PER_SEC,
		     "stop when no test has run for this long (default: never)"),
	OPT_DURATION("read-timeout", 0, struct net_opts, read_timeout_ns, 10 * NS_PER_MS, 600 * NS_PER_SEC,
		     "longest wait for any control message or handshake (default 10s)"),
	OPT_DURATION("delay", 0, struct net_opts, delay_ns, 1 * NS_PER_US, 10 * NS_PER_SEC,
		     "answer each rr request this long after it arrived (an emulated round trip)"),
	OPT_RATE("rate", 0, struct net_opts, rate,
		 "pace rr answers to this rate in bytes/s (200M = 200 MiB/s), or in bits written out: 1Gbit/s"),
	OPT_END,
};

/* `net client HOST` options. */
static const struct opt net_client_options[] = {
	OPT_CHOICE("mode", 0, struct net_opts, mode, modes, "MODE",
		   "iperf3 (default: iperf3's test), rr (request/response) or stream (one rr request)"),
	OPT_SIZE("block", 0, struct net_opts, block, 1, RR_BLOCK_MAX, "rr: bytes per request (default 60K)"),
	OPT_INT("depth", 0, struct net_opts, depth, 1, RR_DEPTH_MAX, "N",
		"rr: requests kept in flight (default 1 = stop-and-wait)"),
	OPT_SIZE("size", 0, struct net_opts, size, 1, RR_STREAM_UNBOUNDED,
		 "rr/stream: total bytes to fetch (default: run for --time)"),
	OPT_INT("parallel", 'P', struct net_opts, parallel, 1, IPERF3_MAX_STREAMS, "N",
		"streams (per direction), 1..128 (default 1)"),
	OPT_FLAG("reverse", 'R', struct net_opts, reverse, "the server sends, the client receives"),
	OPT_FLAG("bidir", 0, struct net_opts, bidir, "both send at once (-P streams each way)"),
	OPT_SIZE("len", 'l', struct net_opts, len, 1, IPERF3_TCP_LEN_MAX,
		 "block (TCP, default 128K) or datagram size (UDP, default the path MSS)"),
	OPT_FLAG("zerocopy", 'Z', struct net_opts, zerocopy, "senders use sendfile() (iperf3 -Z)"),
	OPT_SIZE("window", 'w', struct net_opts, window, 1024, IPERF3_WINDOW_MAX,
		 "socket buffer size, both sides (iperf3 -w)"),
	OPT_INT("server-pin", 0, struct net_opts, server_pin, 0, 1023, "CPU",
		"ask the server to pin its data threads to CPU (iperf3's server_affinity)"),
	OPT_FLAG("udp", 'u', struct net_opts, udp, "UDP instead of TCP"),
	OPT_BITRATE("bitrate", 'b', struct net_opts, bitrate,
		    "bits/s per stream as iperf3: 100M = 100 Mbit/s (UDP default 1.048576M; TCP unpaced)"),
	OPT_FLAG("capacity", 0, struct net_opts, capacity,
		 "add the rule-of-three capacity estimate (per core, per GHz, x cores, capped by the link)"),
	OPT_DURATION("connect-timeout", 0, struct net_opts, connect_timeout_ns, 10 * NS_PER_MS, 600 * NS_PER_SEC,
		     "longest wait to connect and for each server message (default 10s)"),
	OPT_DURATION("queue-timeout", 0, struct net_opts, queue_timeout_ns, 10 * NS_PER_MS, 24 * 3600 * NS_PER_SEC,
		     "longest wait in a busy engpass server's queue (default 10m)"),
	OPT_STRING("peer", 0, struct net_opts, peer, "NAME",
		   "the server's host name to store with the result (default: HOST as given), for 'engpass fleet --mesh'"),
	OPT_DURATION("omit", 'O', struct net_opts, omit_ns, 0, IPERF3_OMIT_MAX * NS_PER_SEC,
		     "iperf3 -O: leave out the first seconds (slow start), both sides; the test runs that much longer"),
	OPT_DURATION("report-interval", 'i', struct net_opts, interval_ns, 0, 60 * NS_PER_SEC,
		     "iperf3 -i: a line per interval on stderr (default 0: none; not in the JSON, see docs/net.md)"),
	OPT_END,
};

static const struct bench_verb net_verbs[] = {
	{ "server", "", "serve tests one after another, one result per test", net_server_options },
	{ "client", "HOST", "run one test against an engpass or iperf3 server", net_client_options },
	{ NULL, NULL, NULL, NULL },
};

static void net_defaults(void *p)
{
	struct net_opts *o = p;

	o->port = NET_DEFAULT_PORT;
	o->server_pin = -1;
	o->bitrate = -1;
	o->rate = -1;
	o->queue = NET_DEFAULT_QUEUE;
}

/* The first option of iperf3's test (not of --mode rr/stream) that was given, or NULL. */
static const char *iperf3_only(const struct net_opts *o)
{
	if (o->parallel)
		return "--parallel";
	if (o->reverse)
		return "--reverse";
	if (o->bidir)
		return "--bidir";
	if (o->len)
		return "--len";
	if (o->zerocopy)
		return "--zerocopy";
	if (o->window)
		return "--window";
	if (o->server_pin >= 0)
		return "--server-pin";
	if (o->udp)
		return "--udp";
	if (o->bitrate >= 0)
		return "--bitrate";
	if (o->capacity)
		return "--capacity";
	if (o->omit_ns)
		return "--omit";
	return NULL;
}

static int net_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct net_opts *o = p;
	const char *bad;

	if (o->ipv4 && o->ipv6) {
		snprintf(err, errlen, "options '-4' and '-6' exclude each other");
		return -EINVAL;
	}
	/* The runner checked the verb and that no option of the other one was given. */
	if (!strcmp(env->verb->name, "server")) {
		if ((o->ipv4 || o->ipv6) && o->bind) {
			snprintf(err, errlen, "option '%s' with '--bind': the address says the family; give one",
				 o->ipv4 ? "-4" : "-6");
			return -EINVAL;
		}
		/* iperf3 -s -4 / -6: every address of that family. */
		if (o->ipv4 || o->ipv6)
			o->bind = o->ipv4 ? "0.0.0.0" : "::";
		if (env->npos > 1) {
			snprintf(err, errlen, "unexpected argument '%s' after 'server'", env->pos[1]);
			return -EINVAL;
		}
		o->role = NET_ROLE_SERVER;
		if (!o->read_timeout_ns)
			o->read_timeout_ns = NET_DEFAULT_TIMEOUT_NS;
		return 0;
	}
	if (env->npos != 2) {
		snprintf(err, errlen, env->npos < 2 ? "'client' needs the server's HOST" : "unexpected argument '%s'",
			 env->npos > 2 ? env->pos[2] : "");
		return -EINVAL;
	}
	if (o->mode != NET_MODE_IPERF3 && (bad = iperf3_only(o))) {
		snprintf(err, errlen, "option '%s' is not for --mode %s", bad, modes[o->mode]);
		return -EINVAL;
	}
	if (o->mode != NET_MODE_RR && (o->block || o->depth)) {
		snprintf(err, errlen, "option '%s' needs --mode rr", o->block ? "--block" : "--depth");
		return -EINVAL;
	}
	if (o->mode == NET_MODE_IPERF3 && o->size) {
		snprintf(err, errlen, "option '--size' needs --mode rr or stream");
		return -EINVAL;
	}
	if (o->mode == NET_MODE_RR) {
		if (!o->block)
			o->block = NET_DEFAULT_BLOCK;
		if (!o->depth)
			o->depth = 1;
	}
	if (o->reverse && o->bidir) {
		snprintf(err, errlen, "options '--reverse' and '--bidir' exclude each other");
		return -EINVAL;
	}
	if (o->udp && o->len && (o->len < IPERF3_UDP_LEN_MIN || o->len > IPERF3_UDP_LEN_MAX)) {
		snprintf(err, errlen, "option '--len': UDP datagrams are %d..%d bytes", IPERF3_UDP_LEN_MIN,
			 IPERF3_UDP_LEN_MAX);
		return -EINVAL;
	}
	if (o->omit_ns % NS_PER_SEC) {
		snprintf(err, errlen, "option '--omit': whole seconds (iperf3's protocol carries seconds)");
		return -EINVAL;
	}
	if (o->bitrate > 1e15) {
		snprintf(err, errlen, "option '--bitrate': at most 1 Pbit/s");
		return -EINVAL;
	}
	o->role = NET_ROLE_CLIENT;
	o->host = env->pos[1];
	if (!o->connect_timeout_ns)
		o->connect_timeout_ns = NET_DEFAULT_TIMEOUT_NS;
	if (!o->queue_timeout_ns)
		o->queue_timeout_ns = NET_DEFAULT_QUEUE_TIMEOUT_NS;
	if (o->peer && !o->peer[0]) {
		snprintf(err, errlen, "option '--peer': the name is empty");
		return -EINVAL;
	}
	/* Best effort, sends nothing: the interface the system view should watch. */
	if (net_route_iface(o->host, (uint16_t)o->port, o->iface, sizeof(o->iface)) < 0)
		o->iface[0] = 0;
	return 0;
}

static void net_sample_config(const void *p, unsigned step, struct sampler_config *cfg)
{
	const struct net_opts *o = p;

	(void)step;
	if (o->iface[0])
		cfg->iface = o->iface;
}

static void net_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct net_opts *o = p;

	result_set_step(res, "%s", o->role == NET_ROLE_SERVER ? "server" : "client");
	if (!HAVE_JANSSON && (o->role == NET_ROLE_SERVER || o->mode == NET_MODE_IPERF3)) {
		result_set_status(res, RESULT_SKIPPED, "built without jansson (needed to parse iperf3's JSON messages)");
		return;
	}
	if (o->role == NET_ROLE_SERVER) {
		if (env->time_ns)
			result_note(res, "--time is ignored by the server: each client sets its test's length");
		net_server_run(env, o, res);
	} else if (o->mode != NET_MODE_IPERF3) {
		net_rr_client_run(env, o, res);
	} else {
		net_client_run(env, o, res);
	}
	/* The server's host as the fleet knows it: 'engpass fleet --mesh' places the run by it. */
	if (o->role == NET_ROLE_CLIENT)
		result_param(res, "server_host", "%s", o->peer ? o->peer : o->host);
}

/*
 * --verify: what the client changes to test a candidate (docs/verdict.md
 * "Checking the verdict"). Only the client's own parameters: a server's
 * --delay or --rate is the peer's and never changed.
 */
static int net_relax(const void *p, void *probe, const char *resource, const struct result *res,
		     const struct bench_env *env, struct bench_relax *out)
{
	const struct net_opts *o = p;
	struct net_opts *q = probe;

	(void)res;
	(void)env;
	if (o->role != NET_ROLE_CLIENT) {
		snprintf(out->why, sizeof(out->why), "the server runs what its clients ask: probe from the client");
		return 0;
	}
	if (!strcmp(resource, "one core")) {
		int64_t n = 2 * (o->parallel > 0 ? o->parallel : 1);

		if (o->mode != NET_MODE_IPERF3) {
			snprintf(out->why, sizeof(out->why), "--mode %s runs one connection: its requests are the method",
				 modes[o->mode]);
			return 0;
		}
		if (n > IPERF3_MAX_STREAMS) {
			snprintf(out->why, sizeof(out->why), "already %lld streams, the most there may be",
				 (long long)(n / 2));
			return 0;
		}
		q->parallel = n;
		snprintf(out->what, sizeof(out->what), "%lld streams", (long long)n);
		snprintf(out->params, sizeof(out->params), "--parallel %lld", (long long)n);
		return 1;
	}
	if (!strcmp(resource, "round trip")) {
		if (o->mode != NET_MODE_RR) {
			snprintf(out->why, sizeof(out->why), "one stream has no requests in flight to add: a larger "
				 "socket buffer or a shorter path would tell");
			return 0;
		}
		if (2 * o->depth > RR_DEPTH_MAX) {
			snprintf(out->why, sizeof(out->why), "already %lld requests in flight, the most there may be",
				 (long long)o->depth);
			return 0;
		}
		q->depth = 2 * o->depth;
		snprintf(out->what, sizeof(out->what), "%lld requests in flight", (long long)q->depth);
		snprintf(out->params, sizeof(out->params), "--depth %lld", (long long)q->depth);
		return 1;
	}
	if (!strcmp(resource, "tcp window") || !strcmp(resource, "udp receive buffer")) {
		uint64_t w = o->window ? 4 * o->window : 4u << 20;

		if (o->mode != NET_MODE_IPERF3) {
			snprintf(out->why, sizeof(out->why), "--mode %s has no --window", modes[o->mode]);
			return 0;
		}
		if (w > IPERF3_WINDOW_MAX)
			w = IPERF3_WINDOW_MAX;
		if (w <= o->window) {
			snprintf(out->why, sizeof(out->why), "the socket buffer is already the largest --window takes");
			return 0;
		}
		q->window = w;
		snprintf(out->what, sizeof(out->what), "a %llu KiB socket buffer", (unsigned long long)(w >> 10));
		snprintf(out->params, sizeof(out->params), "--window %lluK", (unsigned long long)(w >> 10));
		return 1;
	}
	if (!strcmp(resource, "own pacing")) {
		if (o->mode != NET_MODE_IPERF3) {
			snprintf(out->why, sizeof(out->why), "the pace is the server's --rate: the peer's, not the "
				 "client's to change");
			return 0;
		}
		q->bitrate = o->udp ? 0 : -1;
		snprintf(out->what, sizeof(out->what), "no pacing");
		snprintf(out->params, sizeof(out->params), o->udp ? "--bitrate 0" : "without --bitrate");
		return 1;
	}
	snprintf(out->why, sizeof(out->why), "net has no probe for %s", resource);
	return 0;
}

extern const struct bench_quick net_quick;	/* net_quick.c */

const struct bench bench_net = {
	.name = "net",
	.summary = "iperf3-compatible network server and client, with the busiest core in every result",
	.usage = "server [options] | client HOST [options] | -s [options] | -c HOST [options]",
	.description =
		"engpass net server serves tests one after another (iperf3 3.x clients work too);\n"
		"a client that connects while a test runs waits in its queue (--queue) for its turn.\n"
		"engpass net client HOST runs one test against an engpass or iperf3 server, for\n"
		"--time (default 10s). Both report sender and receiver byte counts and rates per\n"
		"direction and each side's process CPU. When both ends are engpass, each side's\n"
		"per-CPU view during the test (busiest core, softirq share), CPU time per GB, link\n"
		"speed and a verdict are added; --capacity extrapolates to a full core, per GHz and\n"
		"all cores, as fastd VPN operators estimated their supernodes' capacity.\n"
		"--pin CPUS pins the client's stream threads (stream i to the i-th CPU of the list,\n"
		"cycling); --server-pin CPU asks an engpass server to pin its stream threads.\n"
		"--interval sets the system sampling interval.\n"
		"--mode rr asks for --block bytes at a time with --depth requests in flight (as an\n"
		"SMB file fetch: stop-and-wait vs pipelined); --mode stream fetches the same as one\n"
		"stream. An engpass server answers them, after --delay and paced to --rate when given.\n"
		"iperf3's spellings work with iperf3's meaning: -s, -c HOST, -t 10, -J, -b 100M (bits:\n"
		"100 Mbit/s), -O 2, -i 1, -4/-6; short options bundle (-uR, -P4).\n"
		"--peer NAME stores the server's host name, for 'engpass fleet --mesh' (docs/fleet.md).\n"
		"See docs/net.md and docs/net-rr.md.",
	.flags = BENCH_NETWORK,
	.opts = net_options,
	.verbs = net_verbs,
	.opts_size = sizeof(struct net_opts),
	.defaults = net_defaults,
	.check = net_check,
	.sample_config = net_sample_config,
	.run = net_run,
	.relax = net_relax,
	.quick = &net_quick,
};
