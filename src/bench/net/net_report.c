/* SPDX-License-Identifier: MIT */
/*
 * From one finished test to a result: per-direction byte counts and rates
 * from both sides' reports of the same test, CPU per GB, each side's
 * sampled per-CPU view, link speed, the verdict (link speed reached, one
 * core saturated, a side's CPU saturated) and the capacity estimate of
 * seed 004 (throughput / busiest-core utilisation, per GHz, x cores,
 * capped by the link). Shared by the client and the server so both
 * describe a test the same way.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/net/net_priv.h"
#include "lib/units.h"
#include "config.h"
#include "core/kernel/sysinfo.h"
#include "lib/xalloc.h"

/* UDP loss from this share of the datagrams sent up is offered as a candidate. */
#define NET_UDP_LOSS_MIN 0.01
/* Below this busiest-core share the capacity extrapolation is too noisy. */
#define NET_CAPACITY_MIN_PCT 5.0

void net_test_note(struct net_test *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nnotes >= (int)(sizeof(t->notes) / sizeof(t->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

void net_test_release(struct net_test *t)
{
	free(t->local);
	t->local = NULL;
	t->nlocal = 0;
	iperf3_results_release(&t->remote);
}

void net_rusage(double *user_s, double *sys_s)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0) {
		*user_s = *sys_s = NAN;
		return;
	}
	*user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Adds V to *SUM unless V is unknown; *SUM starts NaN. */
static void add_known(double *sum, int64_t v)
{
	if (v == NET_TCP_UNKNOWN)
		return;
	*sum = isfinite(*sum) ? *sum + (double)v : (double)v;
}

/* TCP_INFO of the sending streams of S, summed (times, rates) or averaged (rtt, cwnd) into T. */
static void collect_tcp(struct net_test *t, const struct net_stream *s, size_t n)
{
	double rtt = NAN, cwnd = NAN;
	int nrtt = 0, ncwnd = 0;

	t->tcp_collected = true;
	t->tcp_busy_us = t->tcp_rwnd_limited_us = t->tcp_sndbuf_limited_us = NAN;
	t->tcp_rtt_us = t->tcp_cwnd = t->tcp_delivery_rate = NAN;
	for (size_t i = 0; i < n; i++) {
		struct net_tcp_stats st;

		if (s[i].proto != NET_TCP || !s[i].sender || s[i].fd < 0 || net_sock_tcp_info(s[i].fd, &st) < 0)
			continue;
		add_known(&t->tcp_busy_us, st.busy_us);
		add_known(&t->tcp_rwnd_limited_us, st.rwnd_limited_us);
		add_known(&t->tcp_sndbuf_limited_us, st.sndbuf_limited_us);
		add_known(&t->tcp_delivery_rate, st.delivery_rate);
		if (st.rtt_us != NET_TCP_UNKNOWN) {
			add_known(&rtt, st.rtt_us);
			nrtt++;
		}
		if (st.snd_cwnd != NET_TCP_UNKNOWN) {
			add_known(&cwnd, st.snd_cwnd);
			ncwnd++;
		}
	}
	t->tcp_rtt_us = nrtt ? rtt / nrtt : NAN;
	t->tcp_cwnd = ncwnd ? cwnd / ncwnd : NAN;
}

/* S with this side's sender TCP_INFO figures of T. */
static struct net_side side_with_tcp(const struct net_side *s, const struct net_test *t)
{
	struct net_side x = *s;

	if (t->tcp_collected) {
		x.tcp_busy_us = t->tcp_busy_us;
		x.tcp_rwnd_limited_us = t->tcp_rwnd_limited_us;
		x.tcp_sndbuf_limited_us = t->tcp_sndbuf_limited_us;
		x.tcp_rtt_us = t->tcp_rtt_us;
		x.tcp_cwnd = t->tcp_cwnd;
		x.tcp_delivery_rate = t->tcp_delivery_rate;
	}
	return x;
}

double net_test_collect(struct net_test *t, struct net_stream *s, size_t n, const uint64_t *base)
{
	double cpu = 0;

	collect_tcp(t, s, n);

	t->local = n ? xcalloc(n, sizeof(*t->local)) : NULL;
	t->nlocal = n;
	for (size_t i = 0; i < n; i++) {
		struct iperf3_stream_result *l = &t->local[i];
		uint64_t b = s[i].bytes, b0 = base ? base[i] : 0;

		l->id = s[i].id;
		l->sender = s[i].sender;
		l->bytes = (double)(b > b0 ? b - b0 : 0);
		l->retransmits = -1;
		l->start_time = 0;
		l->end_time = t->duration_s;
		if (s[i].proto == NET_TCP && s[i].sender && s[i].fd >= 0 &&
		    net_tcp_retransmits(s[i].fd, &l->retransmits) < 0)
			l->retransmits = -1;
		if (s[i].proto == NET_UDP) {
			if (s[i].sender) {
				l->packets = (int64_t)s[i].packets;
			} else {
				l->packets = (int64_t)s[i].rx.highest;
				l->errors = s[i].rx.lost;
				l->jitter_s = s[i].rx.jitter_ns / 1e9;
				l->out_of_order = (int64_t)s[i].rx.out_of_order;
			}
		}
		cpu += (double)s[i].cpu_ns / 1e9;
	}
	return cpu;
}

char *net_results_message(const struct net_test *t, bool with_extra, size_t *len)
{
	struct iperf3_results r;
	bool sends = false;
	char *out;

	memset(&r, 0, sizeof(r));
	r.cpu_user = t->cpu_user_pct;
	r.cpu_system = t->cpu_system_pct;
	r.cpu_total = t->cpu_user_pct + t->cpu_system_pct;
	for (size_t i = 0; i < t->nlocal; i++)
		sends |= t->local[i].sender;
	r.sender_has_retransmits = sends && t->p.proto == NET_TCP ? 1 : -1;
	snprintf(r.congestion, sizeof(r.congestion), "%s", t->congestion);
	r.streams = t->local;
	r.nstreams = t->nlocal;
	if (with_extra)
		r.extra = side_with_tcp(&t->me, t);
	out = iperf3_results_format(&r, len);
	return out;
}

static void read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

void net_side_local(struct net_side *s, const char *cookie, int fd, const struct sysview *v,
		    double process_cpu_s, double data_cpu_s, double moved_bytes, bool want_freq)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char boot_id[64];

	net_side_init(s);
	s->present = true;
	snprintf(s->version, sizeof(s->version), "engpass %s", ENGPASS_VERSION_STRING);
	read_first_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	if (boot_id[0] && cookie) {
		/* FNV-1a over cookie and boot id: an equality tag, not a secret. */
		uint64_t h = 0xcbf29ce484222325ULL;

		for (const char *p = cookie; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		for (const char *p = boot_id; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		snprintf(s->box_tag, sizeof(s->box_tag), "%016llx", (unsigned long long)h);
	}
	s->ncpu = n > 0 ? (int)n : -1;
	if (fd >= 0 && net_sock_iface(fd, s->iface, sizeof(s->iface)) == 0) {
		s->link_bps = net_link_speed_bps("/sys", s->iface);
		s->link_virtual = net_link_virtual("/sys", s->iface);
	}
	if (v && v->samples && v->busiest_cpu >= 0) {
		s->have_view = true;
		s->samples = v->samples;
		s->busiest_cpu = v->busiest_cpu;
		s->busiest_busy_pct = v->busiest_cpu_busy_pct;
		s->busiest_softirq_pct = v->busiest_cpu_softirq_pct;
		s->cpu_busy_pct = v->cpu_busy_pct;
		s->softirq_pct = v->cpu_softirq_pct;
		s->steal_pct = v->cpu_steal_pct;
		if (v->ncpu > 0)
			s->ncpu = v->ncpu;
	}
	if (v && isfinite(v->udp_rcvbuf_errors))
		s->udp_rcvbuf_errors = v->udp_rcvbuf_errors;
	s->process_cpu_s = process_cpu_s;
	s->data_cpu_s = data_cpu_s;
	s->moved_bytes = moved_bytes;
	if (want_freq) {
		struct sysinfo si;
		struct sysinfo_opts so = { "/proc", "/sys", false, false };

		if (sysinfo_collect(&si, &so) == 0) {
			if (si.cpu.freq_source == SYSINFO_FREQ_CPUFREQ && isfinite(si.cpu.freq_mhz)) {
				s->freq_mhz = si.cpu.freq_mhz;
				snprintf(s->freq_source, sizeof(s->freq_source), "%s",
					 sysinfo_freq_source_name(si.cpu.freq_source));
			}
			sysinfo_release(&si);
		}
		if (isnan(s->freq_mhz)) {
			/* No cpufreq (typical in a VM): measure rather than trust cpuinfo. */
			double mhz;

			if (sysinfo_calibrate_mhz(&mhz, NULL, NULL, NULL) == 0 && isfinite(mhz)) {
				s->freq_mhz = mhz;
				snprintf(s->freq_source, sizeof(s->freq_source), "%s",
					 sysinfo_freq_source_name(SYSINFO_FREQ_CALIBRATED));
			}
		}
	}
}

/* Both ends on one box: the same box tag (boot id), or a test over loopback. */
static bool same_box(const struct net_side *a, const struct net_side *b)
{
	if (!a || !b)
		return false;
	if (!strcmp(a->iface, "lo") || !strcmp(b->iface, "lo"))
		return true;
	return a->box_tag[0] && !strcmp(a->box_tag, b->box_tag);
}

/* "sender (client)" and the like, for evidence sentences. */
static const char *role(int side, int dir)
{
	static const char *const names[3][2] = {
		{ "sender (client)", "receiver (server)" },
		{ "receiver (client)", "sender (server)" },
		{ "client", "server" },
	};

	return names[dir < 0 || dir > 2 ? 2 : dir][side];
}

/* A socket buffer to suggest with -w: twice the one asked, else 4M (as a -w argument). */
static void window_hint(char *buf, size_t len, uint64_t asked)
{
	uint64_t w = asked ? 2 * asked : 4ULL << 20;

	if (w >= (1ULL << 20) && !(w % (1ULL << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(w >> 20));
	else if (w >= 1024 && !(w % 1024))
		snprintf(buf, len, "%lluK", (unsigned long long)(w >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)w);
}

/* Whether side S sent TCP_INFO figures the window candidate can use. */
static bool side_tcp_known(const struct net_side *s)
{
	return s && s->present && isfinite(s->tcp_busy_us) && s->tcp_busy_us > 0 &&
	       (isfinite(s->tcp_rwnd_limited_us) || isfinite(s->tcp_sndbuf_limited_us));
}

static double side_tcp_share(const struct net_side *s, bool *rwnd)
{
	double r = isfinite(s->tcp_rwnd_limited_us) ? s->tcp_rwnd_limited_us : 0;
	double b = isfinite(s->tcp_sndbuf_limited_us) ? s->tcp_sndbuf_limited_us : 0;

	*rwnd = r >= b;
	return (r > b ? r : b) / s->tcp_busy_us;
}

/* The "tcp window" candidate from the sending side(s)' TCP_INFO. */
static void judge_tcp_window(const struct net_judge_in *in, struct result *res)
{
	const struct net_side *sides[2] = { in->client, in->server };
	int best = -1;
	double share = NAN;
	bool rwnd = true;
	char hint[32], next[192], rtt[48];

	for (int i = 0; i < 2; i++) {
		bool sends = in->dir == 2 || (i == 0) == (in->dir == 0);
		bool rw;
		double sh;

		if (!sends || !side_tcp_known(sides[i]))
			continue;
		sh = side_tcp_share(sides[i], &rw);
		if (best < 0 || sh > share) {
			best = i;
			share = sh;
			rwnd = rw;
		}
	}
	if (best < 0) {
		const char *who = in->dir == 0 ? "the sender (client)" : in->dir == 1 ? "the sender (server)" : "either sender";

		result_verdict_candidate(res, "tcp window", NAN, NULL,
					 "unknown: no TCP_INFO busy/limited times from %s (a peer that is not engpass, "
					 "or a kernel before 4.10)", who);
		return;
	}
	{
		const struct net_side *s = sides[best];
		double r = isfinite(s->tcp_rwnd_limited_us) ? s->tcp_rwnd_limited_us : NAN;
		double b = isfinite(s->tcp_sndbuf_limited_us) ? s->tcp_sndbuf_limited_us : NAN;

		window_hint(hint, sizeof(hint), in->window);
		if (isfinite(s->tcp_rtt_us))
			snprintf(rtt, sizeof(rtt), "rtt %.3g ms", s->tcp_rtt_us / 1000);
		else
			snprintf(rtt, sizeof(rtt), "rtt unknown");
		if (rwnd)
			snprintf(next, sizeof(next), "the receive window limited %.0f %% of the busy time: a larger socket "
				 "buffer (-w %s) would let more in flight", 100 * share, hint);
		else
			snprintf(next, sizeof(next), "the send buffer limited %.0f %% of the busy time: a larger socket "
				 "buffer (-w %s) would let more in flight", 100 * share, hint);
		result_verdict_candidate(res, "tcp window", share, next,
					 "%s (TCP_INFO of the %s): %s-limited %.0f %% of %.3g s busy sending "
					 "(receive window %.0f %%, send buffer %.0f %%); %s, cwnd %.0f segments",
					 rwnd ? "the peer's receive window" : "the local send buffer", role(best, in->dir),
					 rwnd ? "window" : "buffer", 100 * share, s->tcp_busy_us / 1e6,
					 isfinite(r) ? 100 * r / s->tcp_busy_us : 0, isfinite(b) ? 100 * b / s->tcp_busy_us : 0,
					 rtt, isfinite(s->tcp_cwnd) ? s->tcp_cwnd : -1);
	}
}

/* The "udp receive buffer" candidate: the receiver's loss, and whether its buffer overflowed. */
static void judge_udp_loss(const struct net_judge_in *in, struct result *res)
{
	const struct net_side *sides[2] = { in->client, in->server };
	double frac, overflow = NAN;
	char hint[32], next[192];
	const char *rcv = in->dir == 0 ? "receiver (server)" : in->dir == 1 ? "receiver (client)" : "receivers";

	if (!(in->udp_sent > 0) || !(in->udp_lost >= 0))
		return;
	frac = in->udp_lost / in->udp_sent;
	if (frac < NET_UDP_LOSS_MIN)
		return;
	for (int i = 0; i < 2; i++) {
		bool receives = in->dir == 2 || (i == 0) == (in->dir == 1);

		double e = sides[i] ? sides[i]->udp_rcvbuf_errors : NAN;

		/* Both sides on one box read the same counter: count it once. */
		if (receives && isfinite(e))
			overflow = !isfinite(overflow) ? e : same_box(in->client, in->server) ? fmax(overflow, e)
											     : overflow + e;
	}
	window_hint(hint, sizeof(hint), in->window);
	if (isfinite(overflow) && overflow > 0) {
		snprintf(next, sizeof(next), "a larger socket buffer (-w %s) on the %s would absorb the bursts", hint, rcv);
		result_verdict_candidate(res, "udp receive buffer", frac, next,
					 "the %s lost %.0f of %.0f datagrams (%.1f %%): socket receive buffer overflowed "
					 "(RcvbufErrors +%.0f)", rcv, in->udp_lost, in->udp_sent, 100 * frac, overflow);
	} else {
		snprintf(next, sizeof(next), "a larger socket buffer (-w %s) if the receiver overflowed, else a lower "
			 "--bitrate shows the rate the path keeps without loss", hint);
		result_verdict_candidate(res, "udp receive buffer", frac, next,
					 "the %s lost %.0f of %.0f datagrams (%.1f %%): loss, %s", rcv, in->udp_lost,
					 in->udp_sent, 100 * frac,
					 isfinite(overflow) ? "the receive buffer did not overflow (RcvbufErrors +0): lost "
							      "on the path"
							    : "the receive buffer overflow count of the receiver is unknown");
	}
}

void net_judge(const struct net_judge_in *in, struct result *res)
{
	const struct net_side *sides[2] = { in->client, in->server };
	bool shared = same_box(in->client, in->server);
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], next[192];
	double link = -1, thr = in->thr;
	const char *link_if = "";
	int best;

	for (int i = 0; i < 2; i++) {
		const struct net_side *s = sides[i];

		if (s && s->present && s->link_bps > 0 && (link < 0 || s->link_bps < link)) {
			link = s->link_bps;
			link_if = s->iface;
		}
	}
	/*
	 * A figure well past the link speed says the speed is nominal (veth
	 * and other virtual devices report 10 Gbit/s): not a limit then.
	 */
	if (link > 0 && isfinite(thr) && thr <= NET_LINK_NOMINAL * link)
		result_verdict_candidate(res, "link", thr / link,
					 "the link is full: only a faster link (or another path) would move it",
					 "%s of the %s link speed (%s)", units_fmt_bits(a, sizeof(a), thr),
					 units_fmt_bits(b, sizeof(b), link), link_if);

	/* A whole side's CPUs: the busier side, or the one box both share. */
	best = -1;
	for (int i = 0; i < 2; i++)
		if (sides[i] && sides[i]->have_view && isfinite(sides[i]->cpu_busy_pct) &&
		    (best < 0 || sides[i]->cpu_busy_pct > sides[best]->cpu_busy_pct))
			best = i;
	if (best >= 0) {
		const struct net_side *s = sides[best];
		double soft = isnan(s->softirq_pct) ? 0 : s->softirq_pct;

		if (shared) {
			result_verdict_candidate(res, "cpu", s->cpu_busy_pct / 100,
						 "client and server share the box: running them on two boxes would give "
						 "each its CPUs",
						 "all %d CPUs of this box %.0f %% busy (%.0f %% softirq); client and server "
						 "share it", s->ncpu, s->cpu_busy_pct, soft);
		} else {
			snprintf(next, sizeof(next), "the %s's CPUs: a faster CPU there, or less work per byte (a larger "
				 "--len%s), would move it", role(best, in->dir),
				 (best == 0) == (in->dir != 1) ? ", -Z zero copy" : "");
			result_verdict_candidate(res, "cpu", s->cpu_busy_pct / 100, next,
						 "all %d CPUs of the %s %.0f %% busy (%.0f %% softirq)", s->ncpu,
						 role(best, in->dir), s->cpu_busy_pct, soft);
		}
	}

	/* The busiest core of either side. */
	best = -1;
	for (int i = 0; i < 2; i++)
		if (sides[i] && sides[i]->have_view && isfinite(sides[i]->busiest_busy_pct) &&
		    (best < 0 || sides[i]->busiest_busy_pct > sides[best]->busiest_busy_pct))
			best = i;
	if (best >= 0) {
		const struct net_side *s = sides[best];
		int p = in->parallel > 0 ? in->parallel : 1;

		if (s->ncpu > 1 && p < s->ncpu)
			snprintf(next, sizeof(next), "more streams (-P %d) would spread the work over more cores", 2 * p);
		else
			snprintf(next, sizeof(next), "a faster core, or spreading the softirq work (RSS/RPS) over the "
				 "others, would move it");
		result_verdict_candidate(res, "one core", s->busiest_busy_pct / 100, next,
					 "cpu%d %.0f %% busy (%.0f %% softirq) on the %s", s->busiest_cpu,
					 s->busiest_busy_pct, isnan(s->busiest_softirq_pct) ? 0 : s->busiest_softirq_pct,
					 shared ? "box client and server share" : role(best, in->dir));
	}

	/* Its own pacing: UDP always, TCP with --bitrate. */
	if (in->paced_bps > 0 && isfinite(thr)) {
		char per[UNITS_FMT_LEN];

		snprintf(next, sizeof(next), "it ran at the --bitrate it was told (%s per stream): a higher --bitrate "
			 "would move it", units_fmt_bits(per, sizeof(per), in->per_stream_bps));
		result_verdict_candidate(res, "own pacing", thr / in->paced_bps, next, "%s %s of the %s asked (--bitrate %s x %d)",
					 in->udp ? "UDP" : "TCP", units_fmt_bits(a, sizeof(a), thr),
					 units_fmt_bits(b, sizeof(b), in->paced_bps), per,
					 in->paced_bps > 0 && in->per_stream_bps > 0
						 ? (int)(in->paced_bps / in->per_stream_bps + 0.5)
						 : 1);
	}

	if (in->udp)
		judge_udp_loss(in, res);
	else
		judge_tcp_window(in, res);
}

void net_capacity(const struct net_side *client, const struct net_side *server, double thr,
		  struct net_capacity *c)
{
	const struct net_side *sides[2] = { client, server };
	const struct net_side *s;
	int best = -1;

	memset(c, 0, sizeof(*c));
	c->per_ghz_bps = c->freq_mhz = NAN;
	c->link_bps = c->shaper_bps = -1;
	c->freq_source = c->shaper_kind = "";
	for (int i = 0; i < 2; i++)
		if (sides[i] && sides[i]->have_view && isfinite(sides[i]->busiest_busy_pct) &&
		    (best < 0 || sides[i]->busiest_busy_pct > sides[best]->busiest_busy_pct))
			best = i;
	if (best < 0) {
		snprintf(c->why, sizeof(c->why), "no per-CPU view from either side");
		return;
	}
	s = sides[best];
	if (s->busiest_busy_pct < NET_CAPACITY_MIN_PCT) {
		snprintf(c->why, sizeof(c->why), "busiest core only %.1f %% busy: too idle to extrapolate",
			 s->busiest_busy_pct);
		return;
	}
	if (!isfinite(thr) || thr <= 0) {
		snprintf(c->why, sizeof(c->why), "no throughput to extrapolate from");
		return;
	}
	c->ok = true;
	c->side = best ? "server" : "client";
	c->cpu = s->busiest_cpu;
	c->busy_pct = s->busiest_busy_pct;
	c->per_core_bps = thr / (s->busiest_busy_pct / 100.0);
	if (isfinite(s->freq_mhz) && s->freq_mhz > 0) {
		c->freq_mhz = s->freq_mhz;
		c->freq_source = s->freq_source;
		c->per_ghz_bps = c->per_core_bps / (s->freq_mhz / 1000.0);
	}
	c->cores = s->ncpu > 0 ? s->ncpu : 1;
	c->total_bps = c->per_core_bps * c->cores;
	c->link_bps = s->link_bps;
	c->link_virtual = s->link_virtual;
	if (s->link_bps > 0 && c->total_bps > s->link_bps) {
		c->total_bps = s->link_bps;
		c->capped = true;
	}
	/*
	 * A shaper on the path lets no more through than its rate, whatever
	 * the cores could do: the estimate is capped by the lowest one on
	 * either side (issue 36: "all cores 1.9 Gbit/s" behind a 1 Gbit/s tbf).
	 */
	for (int i = 0; i < 2; i++)
		if (sides[i] && sides[i]->shaper_bps > 0 && (!(c->shaper_bps > 0) || sides[i]->shaper_bps < c->shaper_bps)) {
			c->shaper_bps = sides[i]->shaper_bps;
			c->shaper_kind = sides[i]->shaper_kind;
		}
	if (c->shaper_bps > 0 && c->total_bps > c->shaper_bps) {
		c->total_bps = c->shaper_bps;
		c->capped = true;
		c->capped_by_shaper = true;
	}
}

/* The sums of one direction over its streams, from both sides' reports. */
struct dir_sum {
	int nstreams;
	double sent, received;
	bool sent_known, received_known;
	double sender_s, receiver_s;
	int64_t retrans;
	bool retrans_known;
	int64_t lost, packets, ooo;
	bool udp_known, ooo_known;
	double jitter_sum_s;
	int jitter_n;
};

static const struct iperf3_stream_result *remote_stream(const struct net_test *t, int id)
{
	if (!t->have_remote)
		return NULL;
	for (size_t i = 0; i < t->remote.nstreams; i++)
		if (t->remote.streams[i].id == id)
			return &t->remote.streams[i];
	return NULL;
}

/* Seconds a stream of the peer ran: its end_time, else our own duration. */
static double peer_seconds(const struct net_test *t, const struct iperf3_stream_result *r)
{
	if (r && isfinite(r->end_time) && r->end_time > r->start_time)
		return r->end_time - (isfinite(r->start_time) ? r->start_time : 0);
	return t->duration_s;
}

static void sum_directions(const struct net_test *t, struct dir_sum d[2])
{
	memset(d, 0, 2 * sizeof(d[0]));
	for (size_t i = 0; i < t->nlocal; i++) {
		const struct iperf3_stream_result *l = &t->local[i], *r = remote_stream(t, l->id);
		const struct iperf3_stream_result *snd = l->sender ? l : r, *rcv = l->sender ? r : l;
		struct dir_sum *x = &d[(t->is_client ? l->sender : !l->sender) ? 0 : 1];
		double snd_s = l->sender ? t->duration_s : peer_seconds(t, r);
		double rcv_s = l->sender ? peer_seconds(t, r) : t->duration_s;

		x->nstreams++;
		if (snd) {
			x->sent += snd->bytes;
			x->sent_known = true;
			if (snd_s > x->sender_s)
				x->sender_s = snd_s;
			if (snd->retransmits >= 0 && t->p.proto == NET_TCP) {
				x->retrans += snd->retransmits;
				x->retrans_known = true;
			}
		}
		if (rcv) {
			x->received += rcv->bytes;
			x->received_known = true;
			if (rcv_s > x->receiver_s)
				x->receiver_s = rcv_s;
			if (t->p.proto == NET_UDP && rcv->errors >= 0 && rcv->packets >= 0) {
				x->lost += rcv->errors;
				x->packets += rcv->packets;
				x->udp_known = true;
				x->jitter_sum_s += rcv->jitter_s;
				x->jitter_n++;
			}
			if (rcv == l && t->p.proto == NET_UDP) {
				x->ooo += l->out_of_order;
				x->ooo_known = true;
			}
		}
	}
}

static void metric_if(struct result *res, const char *name, enum unit u, double v, const char *label, bool hib)
{
	if (isfinite(v))
		result_metric(res, name, u, v, label)->higher_is_better = hib;
}

static void dir_metrics(struct result *res, const char *dn, const char *desc, const struct dir_sum *x, bool udp)
{
	char name[64], label[96];

	snprintf(name, sizeof(name), "%s_receiver", dn);
	snprintf(label, sizeof(label), "%s, receiver", desc);
	if (x->received_known && x->receiver_s > 0)
		metric_if(res, name, UNIT_BITS_PER_S, x->received * 8 / x->receiver_s, label, true);
	snprintf(name, sizeof(name), "%s_sender", dn);
	snprintf(label, sizeof(label), "%s, sender", desc);
	if (x->sent_known && x->sender_s > 0)
		metric_if(res, name, UNIT_BITS_PER_S, x->sent * 8 / x->sender_s, label, true);
	snprintf(name, sizeof(name), "%s_received", dn);
	snprintf(label, sizeof(label), "%s, bytes received", desc);
	if (x->received_known)
		metric_if(res, name, UNIT_BYTES, x->received, label, true);
	snprintf(name, sizeof(name), "%s_sent", dn);
	snprintf(label, sizeof(label), "%s, bytes sent", desc);
	if (x->sent_known)
		metric_if(res, name, UNIT_BYTES, x->sent, label, true);
	if (x->retrans_known) {
		snprintf(name, sizeof(name), "%s_retransmits", dn);
		snprintf(label, sizeof(label), "%s, TCP retransmits", desc);
		metric_if(res, name, UNIT_COUNT, (double)x->retrans, label, false);
	}
	if (udp && x->udp_known) {
		snprintf(name, sizeof(name), "%s_lost_packets", dn);
		snprintf(label, sizeof(label), "%s, datagrams lost", desc);
		metric_if(res, name, UNIT_COUNT, (double)x->lost, label, false);
		snprintf(name, sizeof(name), "%s_packets", dn);
		snprintf(label, sizeof(label), "%s, datagrams (highest seq)", desc);
		metric_if(res, name, UNIT_COUNT, (double)x->packets, label, true);
		snprintf(name, sizeof(name), "%s_lost", dn);
		snprintf(label, sizeof(label), "%s, loss", desc);
		metric_if(res, name, UNIT_PERCENT, x->packets > 0 ? 100.0 * (double)x->lost / (double)x->packets : 0,
			  label, false);
		snprintf(name, sizeof(name), "%s_jitter", dn);
		snprintf(label, sizeof(label), "%s, jitter", desc);
		metric_if(res, name, UNIT_NS, x->jitter_n ? x->jitter_sum_s / x->jitter_n * 1e9 : NAN, label, false);
		if (x->ooo_known) {
			snprintf(name, sizeof(name), "%s_out_of_order", dn);
			snprintf(label, sizeof(label), "%s, datagrams out of order", desc);
			metric_if(res, name, UNIT_COUNT, (double)x->ooo, label, false);
		}
	}
}

static void side_metrics(struct result *res, const char *who, const struct net_side *s, double cpu_pct)
{
	char name[64], label[96];

	snprintf(name, sizeof(name), "%s_cpu", who);
	snprintf(label, sizeof(label), "%s process CPU (of wall time)", who);
	metric_if(res, name, UNIT_PERCENT, cpu_pct, label, false);
	if (!s || !s->present)
		return;
	if (isfinite(s->process_cpu_s) && isfinite(s->moved_bytes) && s->moved_bytes > 0) {
		snprintf(name, sizeof(name), "%s_cpu_per_gigabyte", who);
		snprintf(label, sizeof(label), "%s CPU time per GB moved", who);
		metric_if(res, name, UNIT_SECONDS, s->process_cpu_s / (s->moved_bytes / 1e9), label, false);
	}
	if (s->have_view) {
		snprintf(name, sizeof(name), "%s_busiest_cpu", who);
		snprintf(label, sizeof(label), "%s busiest core (number)", who);
		metric_if(res, name, UNIT_COUNT, s->busiest_cpu, label, false);
		snprintf(name, sizeof(name), "%s_busiest_cpu_busy", who);
		snprintf(label, sizeof(label), "%s busiest core, busy", who);
		metric_if(res, name, UNIT_PERCENT, s->busiest_busy_pct, label, false);
		snprintf(name, sizeof(name), "%s_busiest_cpu_softirq", who);
		snprintf(label, sizeof(label), "%s busiest core, softirq", who);
		metric_if(res, name, UNIT_PERCENT, s->busiest_softirq_pct, label, false);
		snprintf(name, sizeof(name), "%s_cpu_busy", who);
		snprintf(label, sizeof(label), "%s all CPUs, busy", who);
		metric_if(res, name, UNIT_PERCENT, s->cpu_busy_pct, label, false);
	}
	if (s->link_bps > 0) {
		snprintf(name, sizeof(name), "%s_link_speed", who);
		snprintf(label, sizeof(label), "%s link speed (%s)", who, s->iface);
		metric_if(res, name, UNIT_BITS_PER_S, s->link_bps, label, true);
	}
}

/* The TCP_INFO figures of the sender of direction DN (NULL: none). */
static void tcp_metrics(struct result *res, const char *dn, const struct net_side *snd)
{
	char name[64], label[96];

	if (!snd)
		return;
#define TCPM(suffix, unit, v, what) \
	do { \
		snprintf(name, sizeof(name), "%s_tcp_%s", dn, suffix); \
		snprintf(label, sizeof(label), "%s sender TCP_INFO, %s", dn, what); \
		metric_if(res, name, unit, v, label, false); \
	} while (0)
	TCPM("rtt", UNIT_NS, snd->tcp_rtt_us * 1e3, "smoothed rtt (mean of streams)");
	TCPM("cwnd", UNIT_COUNT, snd->tcp_cwnd, "congestion window, segments (mean of streams)");
	TCPM("delivery_rate", UNIT_BITS_PER_S, snd->tcp_delivery_rate * 8, "delivery rate (sum of streams)");
	TCPM("busy", UNIT_SECONDS, snd->tcp_busy_us / 1e6, "time busy sending (sum of streams)");
	TCPM("rwnd_limited", UNIT_SECONDS, snd->tcp_rwnd_limited_us / 1e6, "of it receive-window-limited");
	TCPM("sndbuf_limited", UNIT_SECONDS, snd->tcp_sndbuf_limited_us / 1e6, "of it send-buffer-limited");
#undef TCPM
}

/* The remote side with CPU per GB derived from iperf3's cpu_util when it sent no extras. */
static struct net_side remote_side(const struct net_test *t, double moved_by_peer)
{
	struct net_side s;

	if (t->have_remote && t->remote.extra.present) {
		s = t->remote.extra;
		if (!isfinite(s.moved_bytes))
			s.moved_bytes = moved_by_peer;
		return s;
	}
	net_side_init(&s);
	if (t->have_remote && isfinite(t->remote.cpu_total)) {
		/* A stock iperf3 peer: its process CPU share x its test time. */
		double secs = 0;

		for (size_t i = 0; i < t->remote.nstreams; i++)
			if (peer_seconds(t, &t->remote.streams[i]) > secs)
				secs = peer_seconds(t, &t->remote.streams[i]);
		s.present = true;
		s.process_cpu_s = t->remote.cpu_total / 100.0 * secs;
		s.moved_bytes = moved_by_peer;
	}
	return s;
}

void net_report_fill(struct result *res, const struct net_test *t, bool capacity)
{
	static const char *const dir_names[3] = { "client -> server", "server -> client", "both ways" };
	struct dir_sum d[2];
	struct net_side me = side_with_tcp(&t->me, t), peer;
	const struct net_side *client, *server;
	int dir = t->p.bidir ? 2 : t->p.reverse ? 1 : 0;
	bool udp = t->p.proto == NET_UDP;
	double thr = 0, moved_by_peer = 0, remote_cpu = NAN;
	bool thr_known = false;
	char buf[UNITS_FMT_LEN];

	sum_directions(t, d);
	for (size_t i = 0; i < (t->have_remote ? t->remote.nstreams : 0); i++)
		moved_by_peer += t->remote.streams[i].bytes;
	peer = remote_side(t, moved_by_peer);
	if (t->have_remote)
		remote_cpu = t->remote.cpu_total;
	client = t->is_client ? &me : &peer;
	server = t->is_client ? &peer : &me;

	result_param(res, "role", "%s", t->is_client ? "client" : "server");
	result_param(res, t->is_client ? "server" : "client", "%s", t->peer);
	if (t->peer_version[0])
		result_param(res, "peer", "%s", t->peer_version);
	result_param(res, "protocol", "%s", udp ? "udp" : "tcp");
	result_param(res, "direction", "%s", dir_names[dir]);
	result_param(res, "streams", "%d%s", t->p.parallel, dir == 2 ? " each way" : "");
	result_param(res, "time", "%.3g s", t->p.time_s);
	result_param(res, "len", "%llu bytes", (unsigned long long)t->p.len);
	if (t->p.window)
		result_param(res, "window", "%lld bytes", (long long)t->p.window);
	if (udp || t->p.bandwidth_bps > 0)
		result_param(res, "bitrate", "%s per stream", units_fmt_bits(buf, sizeof(buf), t->p.bandwidth_bps));
	if (t->p.zerocopy)
		result_param(res, "zerocopy", "asked");
	if (t->p.server_affinity >= 0)
		result_param(res, "server_pin", "cpu%d", t->p.server_affinity);
	if (t->p.omit_s > 0)
		result_param(res, "omit", "%.3g s", t->p.omit_s);
	if (t->client_pins[0])
		result_param(res, "client_streams_pinned", "%s", t->client_pins);
	if (server->pinned_cpu >= 0)
		result_param(res, "server_streams_pinned", "cpu%d", server->pinned_cpu);

	result_method(res, "throughput", "payload bytes / seconds from TEST_RUNNING to TEST_END, each side on its own "
		      "clock, receiver and sender reported separately (iperf3's definition; headers not counted)");
	result_method(res, "streams", "one thread per stream, blocking sockets%s",
		      t->zerocopy ? ", sending with sendfile() from a memfd (zero copy)" : "");
	if (t->congestion[0])
		result_method(res, "congestion", "%s", t->congestion);
	result_method(res, "cpu", "process user+system time (getrusage) over the test / wall time, as iperf3's "
		      "cpu_util; CPU per GB = those CPU seconds per 10^9 bytes the side sent or received");
	if (me.have_view || peer.have_view)
		result_method(res, "per-CPU view", "/proc/stat busy and softirq per CPU, sampled during the test on each "
			      "engpass side; busiest core = highest mean busy share");
	if (udp)
		result_method(res, "udp", "loss from sequence gaps (late datagrams taken back), jitter = RFC 1889 "
			      "running estimate of transit-time differences, as iperf3 computes them");
	if (!udp)
		result_method(res, "tcp_info", "TCP_INFO of each sending stream as the transfer ended: busy time and the "
			      "time of it limited by the receive window or the send buffer (summed), rtt and cwnd "
			      "(mean), delivery rate (summed); the peer's when it is engpass");
	if (me.iface[0] || peer.iface[0])
		result_method(res, "link speed", "/sys/class/net/IF/speed (client %s, server %s)",
			      client->iface[0] ? client->iface : "?", server->iface[0] ? server->iface : "?");

	for (int k = 0; k < 2; k++) {
		const struct dir_sum *x = &d[k];

		if (!x->nstreams)
			continue;
		if (x->received_known && x->receiver_s > 0) {
			thr += x->received * 8 / x->receiver_s;
			thr_known = true;
		} else if (x->sent_known && x->sender_s > 0) {
			thr += x->sent * 8 / x->sender_s;
			thr_known = true;
		}
	}
	if (thr_known) {
		metric_if(res, "throughput", UNIT_BITS_PER_S, thr, "throughput (receiver, all streams)", true);
		result_headline(res, "throughput");
	}
	if (d[0].nstreams)
		dir_metrics(res, "up", "client -> server", &d[0], udp);
	if (d[1].nstreams)
		dir_metrics(res, "down", "server -> client", &d[1], udp);

	{
		double local_cpu = t->cpu_user_pct + t->cpu_system_pct;

		side_metrics(res, "client", client, t->is_client ? local_cpu : remote_cpu);
		side_metrics(res, "server", server, t->is_client ? remote_cpu : local_cpu);
	}
	if (same_box(client, server))
		result_note(res, "client and server ran on the same box: their CPU figures overlap, and on "
			    "loopback the receive path runs in the sender's system time");
	if (t->have_remote && !t->remote.extra.present)
		result_note(res, "the peer is not engpass (%s): its per-CPU view is unknown; its CPU per GB comes from "
			    "its cpu_util_total", t->peer_version[0] ? t->peer_version : "iperf3-compatible");
	if (t->incomplete)
		result_note(res, "test ended early: %s", t->why[0] ? t->why : "stopped");
	for (int i = 0; i < t->nnotes; i++)
		result_note(res, "%s", t->notes[i]);
	if (d[0].nstreams && d[0].sent_known && d[0].received_known && d[0].sent > 0 &&
	    fabs(d[0].sent - d[0].received) / d[0].sent > 0.05 && !udp)
		result_note(res, "client -> server: receiver counted %.1f %% less than was sent (bytes in flight at "
			    "TEST_END are not counted by the receiver)", 100 * (d[0].sent - d[0].received) / d[0].sent);

	{
		struct net_judge_in in = {
			.client = client, .server = server, .thr = thr_known ? thr : NAN, .dir = dir, .udp = udp,
			.parallel = t->p.parallel, .window = t->p.window > 0 ? (uint64_t)t->p.window : 0,
			.udp_lost = -1, .udp_sent = -1,
		};

		if (udp || t->p.bandwidth_bps > 0) {
			in.per_stream_bps = t->p.bandwidth_bps;
			in.paced_bps = t->p.bandwidth_bps * t->p.parallel * (dir == 2 ? 2 : 1);
		}
		for (int k = 0; k < 2 && udp; k++) {
			if (!d[k].nstreams || !d[k].udp_known)
				continue;
			in.udp_lost = (in.udp_lost < 0 ? 0 : in.udp_lost) + (double)d[k].lost;
			in.udp_sent = (in.udp_sent < 0 ? 0 : in.udp_sent) + (double)d[k].packets;
		}
		net_judge(&in, res);
	}
	tcp_metrics(res, "up", dir == 0 || dir == 2 ? client : NULL);
	tcp_metrics(res, "down", dir == 1 || dir == 2 ? server : NULL);

	if (capacity) {
		struct net_capacity c;
		char a[UNITS_FMT_LEN];

		net_capacity(client, server, thr_known ? thr : NAN, &c);
		if (!c.ok) {
			result_note(res, "no capacity estimate: %s", c.why);
			return;
		}
		result_metric(res, "capacity_per_core", UNIT_BITS_PER_S, c.per_core_bps,
			      "ESTIMATE: throughput at one full core");
		if (isfinite(c.per_ghz_bps))
			result_metric(res, "capacity_per_ghz", UNIT_BITS_PER_S, c.per_ghz_bps,
				      "ESTIMATE: per GHz of that core");
		char sh[UNITS_FMT_LEN + 48] = "";

		if (c.shaper_bps > 0)
			snprintf(sh, sizeof(sh), "; the %s shaper on the path allows %s, %s", c.shaper_kind[0] ? c.shaper_kind : "",
				 units_fmt_bits(a, sizeof(a), c.shaper_bps), c.capped_by_shaper ? "the cap" : "not reached");
		result_metric(res, "capacity_total", UNIT_BITS_PER_S, c.total_bps,
			      c.capped_by_shaper ? "ESTIMATE: all cores, capped by the shaper"
			      : c.capped ? "ESTIMATE: all cores, capped by link" : "ESTIMATE: all cores");
		result_method(res, "capacity",
			      "estimate, not a measurement (rule of three): throughput / busiest-core share "
			      "of the %s (cpu%d %.0f %%) = per core; / %.0f MHz (%s) = per GHz; x %d cores, %s%s",
			      c.side, c.cpu, c.busy_pct, c.freq_mhz, c.freq_source[0] ? c.freq_source : "frequency unknown",
			      c.cores, c.link_bps > 0 ? (c.capped && !c.capped_by_shaper ? "capped by the link speed" : "below the link speed")
			      : c.capped_by_shaper ? (c.link_virtual ? "link speed unknown (virtual interface)" : "link speed unknown")
			      : c.link_virtual ? "link speed unknown (virtual interface), not capped"
					       : "link speed unknown, not capped", sh);
		if (c.capped_by_shaper) {
			char all[UNITS_FMT_LEN], one[UNITS_FMT_LEN];

			result_note(res, "capacity capped by the %s shaper on the path at %s: the cores alone would move %s "
				    "(%s per core x %d), more than it lets through", c.shaper_kind,
				    units_fmt_bits(a, sizeof(a), c.shaper_bps), units_fmt_bits(all, sizeof(all), c.per_core_bps * c.cores),
				    units_fmt_bits(one, sizeof(one), c.per_core_bps), c.cores);
		}
		else if (c.link_bps <= 0 && !(c.shaper_bps > 0))
			result_note(res, "capacity not capped: link speed unknown (%s)", c.link_virtual ?
				    "virtual interface: veth, tun, bridge and lo have no link speed, whatever they report" :
				    "not reported by the interface");
		result_note(res, "capacity is an ESTIMATE: it assumes throughput grows linearly with the busiest "
			    "core's share and with the number of cores (%s per core x %d)",
			    units_fmt_bits(a, sizeof(a), c.per_core_bps), c.cores);
	}
}

void net_queue_wait_metric(struct result *res, double wait_s, bool client)
{
	if (isnan(wait_s))
		return;
	result_metric(res, "queue_wait", UNIT_SECONDS, wait_s, "waited for its turn")->higher_is_better = false;
	if (client)
		result_method(res, "queue_wait", "from the control connection's set-up to the server's first message "
			      "(PARAM_EXCHANGE): the time a busy engpass server held this client in its queue, plus one "
			      "round trip");
	else
		result_method(res, "queue_wait", "from the server's accept of the control connection to the start of "
			      "its handshake: the time it waited in the queue while other tests ran (a client that "
			      "arrived during another's handshake or an rr session waited in the kernel's backlog "
			      "before that, not counted)");
}
