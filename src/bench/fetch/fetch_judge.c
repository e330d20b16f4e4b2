/* SPDX-License-Identifier: MIT */
/*
 * A download's candidate limiters; see fetch_judge.h. The round trip's
 * share is the rate over what the round trip allows (DEPTH blocks per TCP
 * rtt: bytes in flight / RTT), capped by the connection's
 * idle-waiting-a-round-trip share (at depth 1 the mean time to first
 * byte over the mean request time; with a pipeline it leaves out the time
 * a request waited behind the answers before it, which is the transfer),
 * less the part of those waits beyond the TCP round trip, which is the
 * server's: the "server" candidate's share is the whole of the waiting
 * beyond the round trip (server_candidate()).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/fetch/fetch_judge.h"
#include "core/observe/limits.h"
#include "lib/units.h"

/* What a candidate's evidence holds. */
#define EVIDENCE_MAX sizeof(((struct verdict_candidate *)0)->evidence)
/* Deepest pipeline fetch keeps (its --depth limit). */
#define FETCH_JUDGE_DEPTH_MAX 64

double fetch_rtt_model_rate(double block, unsigned depth, double rtt_s, double service_s)
{
	double cycle = rtt_s + service_s;

	if (!depth || !(cycle > 0) || !(block > 0))
		return 0;
	if (service_s > 0)
		return fmin((double)depth * block / cycle, block / service_s);
	return (double)depth * block / cycle;
}

double fetch_rtt_floor_s(uint64_t requests, unsigned depth, double rtt_s)
{
	if (!depth || !(rtt_s > 0))
		return 0;
	return (double)((requests + depth - 1) / depth) * rtt_s;
}

/*
 * "server": the share of the download spent waiting for answers beyond
 * the earliest they could come (the request's write plus the TCP round
 * trip, or the previous answer's end). With --server-pid the evidence
 * says what the server did meanwhile: its CPU, and its cgroup's quota
 * and throttling; the next step follows from them.
 */
static void server_candidate(const struct fetch_figures *f, struct result *res)
{
	const struct fetch_server_view *v = f->server;
	char ev[EVIDENCE_MAX], next[256];
	size_t off;
	double share = f->server_wait_pct / 100, cpu_pct = NAN, thr = NAN;

	if (!isfinite(share))
		return;
	/*
	 * Evidence holds 255 bytes, and the verdict may append the time
	 * budget's network wait (about 50): the figures first, the quota's
	 * source last and only when it fits (the method block has it).
	 */
	off = (size_t)snprintf(ev, sizeof(ev), "waited %.0f %% for answers beyond the TCP rtt (%.3g ms; first byte "
			       "%.3g ms mean)", f->server_wait_pct, (isfinite(f->rtt_s) ? f->rtt_s : NAN) * 1e3,
			       (isfinite(f->mean_ttfb_s) ? f->mean_ttfb_s : NAN) * 1e3);
	if (v && v->ok && v->seconds > 0) {
		cpu_pct = 100 * v->cpu_s / v->seconds;
		if (off < sizeof(ev))
			off += (size_t)snprintf(ev + off, sizeof(ev) - off, "; %s (pid %d%s) %.1f %% of one CPU", v->comm,
						(int)v->pid, v->nproc > 1 ? " + children" : "", cpu_pct);
	}
	if (v && v->quota_state == LIMIT_SET && off < sizeof(ev)) {
		off += (size_t)snprintf(ev + off, sizeof(ev) - off, "; its cgroup allows %.3g CPU", v->quota_cpus);
		if (isfinite(v->periods) && v->periods > 0 && off < sizeof(ev)) {
			thr = v->throttled / v->periods;
			off += (size_t)snprintf(ev + off, sizeof(ev) - off, ", throttled in %.0f %% of periods", 100 * thr);
		}
		if (off + strlen(v->quota_source) + 3 < EVIDENCE_MAX - 56 && off < sizeof(ev))
			off += (size_t)snprintf(ev + off, sizeof(ev) - off, " (%s)", v->quota_source);
	} else if (v && off < sizeof(ev)) {
		off += (size_t)snprintf(ev + off, sizeof(ev) - off, "; cpu quota %s",
					v->quota_state == LIMIT_NONE ? "none" : "unknown");
	}
	(void)off;
	if (!v)
		snprintf(next, sizeof(next), "the server was slow to answer: --server-pid PID shows its CPU and cgroup quota "
			 "(a server on this box), engpass watch --pid PID on its host what it waits for");
	else if (isfinite(thr) && (thr >= 0.5 || (isfinite(v->cg_usage_pct) && v->cg_usage_pct >= 90 * v->quota_cpus)))
		snprintf(next, sizeof(next), "the server's cgroup allows %.3g %% of one CPU and throttled it: raise its quota "
			 "(cpu.cfs_quota_us, cpu.max) or serve from outside that cgroup", 100 * v->quota_cpus);
	else if (isfinite(cpu_pct) && cpu_pct >= 80)
		snprintf(next, sizeof(next), "the server kept a CPU busy: more worker processes, a cheaper way to serve "
			 "(sendfile), or a faster CPU");
	else
		snprintf(next, sizeof(next), "the server waited on something other than its CPU: engpass watch --pid %d "
			 "shows what", v ? (int)v->pid : 0);
	result_verdict_candidate(res, "server", share, next, "%s", ev);
}

void fetch_judge(const struct fetch_figures *f, struct result *res)
{
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], rtt[80], next[192];
	double share = isfinite(f->idle_rt_pct) ? f->idle_rt_pct / 100 : NAN;
	double sw = isfinite(f->server_sw_pct) && f->server_sw_pct > 0 ? f->server_sw_pct / 100 : 0;
	unsigned depth = f->ranged && f->depth ? f->depth : 1;
	double emu = f->emulated_rtt_s > 0 ? f->emulated_rtt_s : 0;
	/* The round trip a request paid: the path's and the emulated hold. */
	double rtt_s = isfinite(f->rtt_s) ? f->rtt_s + emu : emu > 0 ? emu : NAN;

	/*
	 * What the round trip allows: DEPTH blocks per TCP round trip. The
	 * share is the rate over that, when the TCP rtt is known, and never
	 * more than the time spent waiting: waiting on a server that is slow
	 * to answer (its own work, not the path) is not the round trip.
	 */
	/* What the connection waited beyond the round trip, even with nothing queued, was the server. */
	if (isfinite(share))
		share = share > sw ? share - sw : 0;
	if (isfinite(share) && isfinite(rtt_s) && rtt_s > 0 && isfinite(f->mean_req_s) && f->mean_req_s > 0) {
		double by_rtt = rtt_s / f->mean_req_s;

		if (f->ranged && isfinite(f->rate) && f->block)
			by_rtt = f->rate * rtt_s / ((double)depth * (double)f->block);
		if (by_rtt < share)
			share = by_rtt;
	}

	if (isfinite(f->rtt_s))
		snprintf(rtt, sizeof(rtt), "TCP rtt %.3g ms", f->rtt_s * 1e3);
	else
		snprintf(rtt, sizeof(rtt), "TCP rtt unknown");
	if (emu > 0) {
		size_t n = strlen(rtt);

		snprintf(rtt + n, sizeof(rtt) - n, " + %.3g ms EMULATED (--rtt)",
			 emu * 1e3);
	}
	if (f->ranged) {
		unsigned d = f->depth ? f->depth : 1, want = 2 * d;

		if (isfinite(share) && share < 1 && (unsigned)ceil((double)d / (1 - share)) > want)
			want = (unsigned)ceil((double)d / (1 - share));
		if (want > FETCH_JUDGE_DEPTH_MAX)
			want = FETCH_JUDGE_DEPTH_MAX;
		if (d >= FETCH_JUDGE_DEPTH_MAX)
			snprintf(next, sizeof(next), "a larger object per request (--block %lluK) would hide the round trip",
				 (unsigned long long)(f->block * 2 / 1024));
		else
			snprintf(next, sizeof(next), "%u requests in flight (--depth %u) would hide the %.3g ms wait for "
				 "each answer", want, want, (isfinite(f->mean_ttfb_s) ? f->mean_ttfb_s : 0) * 1e3);
	} else {
		snprintf(next, sizeof(next), "a larger object, or ranges in flight (--block 1M --depth 4), would "
			 "amortise the wait for the first byte");
	}
	if (isfinite(share))
		result_verdict_candidate(res, "round trip", share, next,
					 "%.0f %% of what the round trip allows: mean time to first byte %.3g ms of "
					 "%.3g ms per request over %llu request%s (%s), depth %u; %s/s; %.0f %% waiting "
					 "for a server with requests queued",
					 100 * share, (isfinite(f->mean_ttfb_s) ? f->mean_ttfb_s : NAN) * 1e3,
					 (isfinite(f->mean_req_s) ? f->mean_req_s : NAN) * 1e3,
					 (unsigned long long)f->requests, f->requests == 1 ? "" : "s", rtt,
					 f->ranged ? (f->depth ? f->depth : 1) : 1,
					 units_fmt_size(b, sizeof(b), f->rate, 0),
					 isfinite(f->idle_srv_pct) ? f->idle_srv_pct : 0);
	server_candidate(f, res);
	/*
	 * The server sends: the window that limits it is its own TCP_INFO's,
	 * which the client cannot read. Offered as unknown, so the verdict
	 * says it was not judged rather than that it was not the limit.
	 */
	result_verdict_candidate(res, "tcp window", NAN, NULL,
				 "unknown: the server sends, and its TCP_INFO (receive-window- or send-buffer-limited "
				 "time) is not visible to the client; %s", rtt);
	if (f->link_bps > 0 && isfinite(f->rate))
		result_verdict_candidate(res, "link", f->rate * 8 / f->link_bps,
					 "the link is full: only a faster link (or another path) would move it",
					 "%s of the %s link speed (%s)", units_fmt_bits(a, sizeof(a), f->rate * 8),
					 units_fmt_bits(b, sizeof(b), f->link_bps), f->iface);
}
