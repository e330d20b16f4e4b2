/* SPDX-License-Identifier: MIT */
/*
 * The candidate limiters a download offers for the runner's verdict
 * (fetch_judge.c): "round trip" (the share of the time the connection
 * waited for a response to a request sent after the previous one was
 * done: per request time to first byte / request time at depth 1), "tcp
 * window" (the server sends; the client cannot see its TCP_INFO, so it is
 * offered as unknown with the client's receive-side figures) and "link"
 * when the interface's speed is known, and "server" (the share of the time
 * the connection waited for answers beyond the request's write plus the
 * TCP round trip; with --server-pid, the server's CPU and its cgroup's
 * quota and throttling as evidence). Pure: the figures in, the
 * candidates out.
 */
#ifndef ENGPASS_FETCH_JUDGE_H
#define ENGPASS_FETCH_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/fetch/fetch_server.h"
#include "core/result/result.h"

/* What a download saw; NaN = unknown. */
struct fetch_figures {
	double rate;			/* body bytes/s */
	double idle_rt_pct;		/* waiting for answers to requests sent after the previous answer */
	double idle_srv_pct;		/* waiting for answers the server had queued */
	double mean_ttfb_s;		/* per request: sent to response head */
	double mean_req_s;		/* per request: sent to last byte */
	uint64_t requests;
	bool ranged;			/* Range blocks (else one GET) */
	uint64_t block;			/* --block */
	unsigned depth;			/* --depth */
	double rtt_s;			/* TCP_INFO smoothed RTT of the connection */
	double link_bps;		/* bits/s; <= 0 unknown */
	char iface[16];
	double emulated_rtt_s;		/* --rtt: requests held back by the client; <= 0 none */
	double server_wait_pct;		/* waiting for heads beyond the request's write + TCP rtt */
	double server_sw_pct;		/* of it, for requests sent after the previous answer (in idle_rt_pct) */
	double path_rtt_s;		/* TCP_INFO least rtt: the handshake's; NaN unknown */
	const struct fetch_server_view *server;	/* --server-pid's figures; NULL none */
};

/*
 * The round-trip model behind --rtt (a request costs the round trip RTT_S
 * plus SERVICE_S, the server and the wire without the round trip; a
 * pipeline of DEPTH overlaps the round trips, but the wire carries one
 * block at a time): the rate in bytes/s of BLOCK-byte requests,
 * min(depth x block / (rtt + service), block / service). Stop-and-wait
 * (depth 1) is block / (rtt + service). 0 for a zero depth or cycle.
 */
double fetch_rtt_model_rate(double block, unsigned depth, double rtt_s, double service_s);

/*
 * The least time REQUESTS requests add when each waits RTT_S before it is
 * sent and at most DEPTH wait at once: ceil(requests / depth) x rtt.
 */
double fetch_rtt_floor_s(uint64_t requests, unsigned depth, double rtt_s);

/* Offers RES the candidates of F (see above). */
void fetch_judge(const struct fetch_figures *f, struct result *res);

#endif
