/* SPDX-License-Identifier: MIT */
/*
 * The ranked verdict; see verdict.h for the model and docs/verdict.md for
 * each rule. One function per candidate: each looks at the limits and the
 * system view, and offers a candidate only when its figures are known.
 */
#include "core/result/verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/devlink.h"
#include "lib/units.h"

const char *const verdict_priority[] = {
	"own pacing", "cpu quota", "cpuset", "io limit", "memory limit", "shaper", "link", "tcp window",
	"udp receive buffer", "round trip", "server", "upstream", "memory latency", "memory bandwidth", "cache latency",
	"cpu weight", "other processes", "steal", "memory", "sync writes", "writeback", "bus", "device", "device latency", "network",
	"another process", "lock", "thermal throttling", "cpu", "one core",
	NULL,
};

static double state_pct(const struct sysview_budget *b, const char *state, const struct sysview_budget_entry **top);

static bool known(double v)
{
	return !isnan(v);
}

static double clamp0(double v)
{
	return v < 0 ? 0 : v;
}

/* Fills candidate C. */
static void PRINTF_LIKE(5, 0) place(struct verdict_candidate *c, const char *resource, double share, const char *next, const char *fmt,
		  va_list ap)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->resource, sizeof(c->resource), "%s", resource);
	c->share = clamp0(share);
	snprintf(c->next_step, sizeof(c->next_step), "%s", next ? next : "");
	vsnprintf(c->evidence, sizeof(c->evidence), fmt, ap);
}

/* Adds a system candidate unless the benchmark offered one for RESOURCE. */
static void PRINTF_LIKE(5, 6)
offer(struct verdict *out, const char *resource, double share, const char *next, const char *fmt, ...)
{
	va_list ap;

	if (isnan(share))
		return;
	for (size_t i = 0; i < out->ncand; i++)
		if (!strcmp(out->cand[i].resource, resource))
			return;
	if (out->ncand == VERDICT_MAX_CANDIDATES)
		return;
	va_start(ap, fmt);
	place(&out->cand[out->ncand++], resource, share, next, fmt, ap);
	va_end(ap);
}

/*
 * Offers a candidate, or raises the system's candidate of the same
 * resource to SHARE (with this evidence) when SHARE is higher. A
 * benchmark's candidate (the first NBENCH) is never changed.
 */
static void PRINTF_LIKE(6, 7)
offer_max(struct verdict *out, size_t nbench, const char *resource, double share, const char *next, const char *fmt,
	  ...)
{
	struct verdict_candidate *c = NULL;
	va_list ap;

	if (isnan(share))
		return;
	for (size_t i = 0; i < out->ncand; i++)
		if (!strcmp(out->cand[i].resource, resource)) {
			if (i < nbench || out->cand[i].share >= share)
				return;
			c = &out->cand[i];
		}
	if (!c) {
		if (out->ncand == VERDICT_MAX_CANDIDATES)
			return;
		c = &out->cand[out->ncand++];
	}
	va_start(ap, fmt);
	place(c, resource, share, next, fmt, ap);
	va_end(ap);
}

/* The path of a limit's source without the directory noise: the whole source, it is short. */
static const char *src(const struct limit *l)
{
	return l->source[0] ? l->source : "?";
}

static void cpu_quota(const struct verdict_input *in, struct verdict *out)
{
	const struct limit *q = &in->limits->cpu_quota;
	const struct sysview *v = in->view;
	double used = known(v->cg_cpu_usage_pct) ? v->cg_cpu_usage_pct : v->work_cpu_pct;
	double thr = known(v->cg_cpu_throttled_pct) ? v->cg_cpu_throttled_pct : NAN;
	double share;
	char next[192];

	if (q->state != LIMIT_SET || !(q->value > 0) || (!known(used) && !known(thr)))
		return;
	share = known(used) ? used / (q->value * 100) : 0;
	if (known(thr) && thr / 100 > share)
		share = thr / 100;
	snprintf(next, sizeof(next), "the cgroup allows %.0f %% of one core: raise its quota (%s) or run outside it",
		 q->value * 100, in->limits->cpu_ver == 2 ? "cpu.max" : "cpu.cfs_quota_us");
	offer(out, "cpu quota", share, next,
	      "the cgroup allows %.2f CPU (%s); the %s used %.1f %% of one CPU%s%.80s%s, throttled in %.0f %% of periods (%.2f s)",
	      q->value, src(q), known(v->cg_cpu_usage_pct) ? "cgroup" : "work", used,
	      !known(v->cg_cpu_usage_pct) && in->limits->cpu_usage_source[0] ? " (the cgroup's own: " : "",
	      !known(v->cg_cpu_usage_pct) ? in->limits->cpu_usage_source : "",
	      !known(v->cg_cpu_usage_pct) && in->limits->cpu_usage_source[0] ? ")" : "", known(thr) ? thr : NAN,
	      v->cg_cpu_throttled_s);
}

static void cpuset(const struct verdict_input *in, struct verdict *out)
{
	const struct limits *l = in->limits;
	const struct sysview *v = in->view;
	double n = l->cpuset.value, share;
	char next[192];

	if (l->cpuset.state != LIMIT_SET || l->online_cpus <= 0 || !(n > 0) || n >= l->online_cpus ||
	    !known(v->work_cpu_pct))
		return;
	/*
	 * The cpuset bounds the work only if the work wanted more than it
	 * allows: its threads queued for the allowed CPUs. Without the wait
	 * figure, or with less than VERDICT_QUEUED_PCT of it, the share is
	 * scaled down by how much they queued.
	 */
	share = v->work_cpu_pct / (n * 100);
	if (!known(v->work_wait_pct))
		share *= 0.5;
	else if (v->work_wait_pct < VERDICT_QUEUED_PCT)
		share *= v->work_wait_pct / VERDICT_QUEUED_PCT;
	snprintf(next, sizeof(next), "the work may run on %.0f of %d CPUs (%s): allow more CPUs and it can use them",
		 n, l->online_cpus, l->cpuset_list);
	offer(out, "cpuset", share, next,
	      "%.0f of %d CPUs allowed (%s); the work used %.0f %% of one CPU and queued %.0f %% more", n,
	      l->online_cpus, src(&l->cpuset), v->work_cpu_pct, known(v->work_wait_pct) ? v->work_wait_pct : NAN);
}

static void io_limit(const struct verdict_input *in, struct verdict *out)
{
	const struct limits *l = in->limits;
	const struct sysview *v = in->view;
	const struct {
		const struct limit *lim;
		double cg, dev;
		const char *what;
		bool bytes;
	} k[] = {
		{ &l->io_rbps, v->cg_io_read_bytes_per_s, v->disk_read_bytes_per_s, "reads", true },
		{ &l->io_wbps, v->cg_io_write_bytes_per_s, v->disk_write_bytes_per_s, "writes", true },
		{ &l->io_riops, v->cg_io_reads_per_s, v->disk_reads_per_s, "read requests", false },
		{ &l->io_wiops, v->cg_io_writes_per_s, v->disk_writes_per_s, "write requests", false },
	};
	double best = NAN;
	size_t bi = 0;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		double m = known(k[i].cg) ? k[i].cg : k[i].dev;

		if (k[i].lim->state != LIMIT_SET || !(k[i].lim->value > 0) || !known(m))
			continue;
		if (isnan(best) || m / k[i].lim->value > best) {
			best = m / k[i].lim->value;
			bi = i;
		}
	}
	if (isnan(best))
		return;
	{
		char lim[UNITS_FMT_LEN], got[UNITS_FMT_LEN], next[192];
		double m = known(k[bi].cg) ? k[bi].cg : k[bi].dev;

		if (k[bi].bytes) {
			units_fmt_size(lim, sizeof(lim), k[bi].lim->value, UNITS_FMT_PER_S);
			units_fmt_size(got, sizeof(got), m, UNITS_FMT_PER_S);
		} else {
			snprintf(lim, sizeof(lim), "%.0f/s", k[bi].lim->value);
			snprintf(got, sizeof(got), "%.0f/s", m);
		}
		snprintf(next, sizeof(next), "the cgroup's I/O limit allows %s of %s on %s: raise it (%s) or test outside it",
			 lim, k[bi].what, l->io_dev, l->io_ver == 2 ? "io.max" : "blkio.throttle.*_device");
		offer(out, "io limit", best, next, "%s of %s allowed on %s (%s); the %s did %s", lim, k[bi].what,
		      l->io_dev, src(k[bi].lim), known(k[bi].cg) ? "cgroup" : "device", got);
	}
}

static void memory_limit(const struct verdict_input *in, struct verdict *out)
{
	const struct limits *l = in->limits;
	const struct sysview *v = in->view;
	const struct limit *lim = l->mem_max.state == LIMIT_SET ? &l->mem_max : &l->mem_high;
	double share = NAN, hits = v->cg_mem_limit_hits, high = v->cg_mem_high_events;
	char a[UNITS_FMT_LEN], b[UNITS_FMT_LEN], next[192];

	if (lim->state != LIMIT_SET || !(lim->value > 0))
		return;
	if (known(v->cg_mem_peak_bytes))
		share = v->cg_mem_peak_bytes / lim->value;
	/* Reclaim forced by the limit (failcnt, events): the limit was reached. */
	if ((known(hits) && hits > 0) || (known(high) && high > 0) ||
	    (known(v->cg_mem_oom_events) && v->cg_mem_oom_events > 0))
		share = isnan(share) || share < 1 ? 1 : share;
	if (isnan(share))
		return;
	units_fmt_size(a, sizeof(a), lim->value, 0);
	units_fmt_size(b, sizeof(b), known(v->cg_mem_peak_bytes) ? v->cg_mem_peak_bytes : NAN, 0);
	snprintf(next, sizeof(next), "the cgroup allows %s of memory: raise %s or make the work smaller", a,
		 l->mem_ver == 2 ? "memory.max" : "memory.limit_in_bytes");
	offer(out, "memory limit", share, next, "%s allowed (%s); peak %s, limit hit %.0f times, %.0f oom kills; swap %.0f pages/s",
	      a, src(lim), b, known(hits) ? hits : (known(high) ? high : 0),
	      known(v->cg_mem_oom_events) ? v->cg_mem_oom_events : 0,
	      known(v->swap_out_pages_per_s) ? v->swap_in_pages_per_s + v->swap_out_pages_per_s : NAN);
}

/*
 * Whose TCP traffic it was: "; of the 1.2 GiB TCP carried, iperf3 (pid
 * 1234) moved 78 %, the work 20 %" into BUF (empty when unknown), from the
 * per-socket bytes of every TCP socket of the work's namespace at the
 * window's edges (core/observe/netwho.h). Returns the top other process's share
 * (0..1) and its name in WHO.
 */
static double whose_tcp(const struct sysview *v, char *buf, size_t len, char *who, size_t wlen)
{
	const struct sysview_tcp_other *o = &v->tcp_others[0];
	double all = v->tcp_bytes, top, mine;
	char d[UNITS_FMT_LEN];

	buf[0] = who[0] = 0;
	if (!known(all) || !(all > 0))
		return 0;
	top = o->pid ? o->bytes / all : 0;
	mine = known(v->tcp_work_bytes) ? v->tcp_work_bytes / all : NAN;
	units_fmt_size(d, sizeof(d), all, 0);
	if (top >= 0.01) {
		snprintf(buf, len, "; of the %s TCP carried, %.15s (pid %d) moved %.0f %%, the work %.0f %%", d, o->comm, o->pid,
			 100 * top, 100 * (known(mine) ? mine : 0));
		snprintf(who, wlen, "%.15s (pid %d)", o->comm, o->pid);
		return top;
	}
	snprintf(buf, len, "; of the %s TCP carried, the work moved %.0f %%", d, 100 * (known(mine) ? mine : 0));
	return 0;
}

/* What would move a shared link's figure when another process moved most of its traffic. */
static const char *net_next(double others, const char *who, const char *fallback, char *buf, size_t len)
{
	if (others < 0.5)
		return fallback;
	snprintf(buf, len, "another process moved most of the traffic: stop or move %s, or give the work a link of its own", who);
	return buf;
}

/*
 * A shaper on the way out (the egress interface's qdisc) or on the way in
 * (the interface's ingress redirected to a shaped ifb device, as OpenWrt's
 * SQM shapes downloads): one candidate, the nearer to its limit.
 */
static void shaper(const struct verdict_input *in, struct verdict *out)
{
	const struct limits *l = in->limits;
	const struct sysview *v = in->view;
	double bps = NAN, share = NAN, ibps = NAN, ishare = NAN;
	char lim[UNITS_FMT_LEN], got[UNITS_FMT_LEN], next[192], whose[160], who[40], nx[192];
	bool qd = known(v->qdisc_bytes_per_s);
	double theirs = whose_tcp(v, whose, sizeof(whose), who, sizeof(who));

	if (l->shaper.state == LIMIT_SET && l->shaper.value > 0) {
		bps = qd ? v->qdisc_bytes_per_s * 8 : v->net_tx_bytes_per_s * 8;
		if (known(bps))
			share = bps / l->shaper.value;
	}
	if (l->shaper_in.state == LIMIT_SET && l->shaper_in.value > 0 && known(v->qdisc_in_bytes_per_s)) {
		ibps = v->qdisc_in_bytes_per_s * 8;
		ishare = ibps / l->shaper_in.value;
	}
	if (known(ishare) && (!known(share) || ishare > share)) {
		units_fmt_bits(lim, sizeof(lim), l->shaper_in.value);
		units_fmt_bits(got, sizeof(got), ibps);
		snprintf(next, sizeof(next), "the %s on %s shapes what %s receives to %s: the figure is the shaper's, not the path's",
			 l->shaper_in_kind, l->ifb, l->iface, lim);
		offer(out, "shaper", ishare, net_next(theirs, who, next, nx, sizeof(nx)),
		      "%s on %s shapes %s's incoming traffic to %s (%s); it passed %s, %.0f overlimits, %.0f drops%s",
		      l->shaper_in_kind, l->ifb, l->iface, lim, src(&l->shaper_in), got,
		      known(v->qdisc_in_overlimits) ? v->qdisc_in_overlimits : NAN,
		      known(v->qdisc_in_drops) ? v->qdisc_in_drops : NAN, whose);
		return;
	}
	if (!known(share))
		return;
	units_fmt_bits(lim, sizeof(lim), l->shaper.value);
	units_fmt_bits(got, sizeof(got), bps);
	snprintf(next, sizeof(next), "the %s on %s shapes to %s: the figure is the shaper's, not the path's",
		 l->shaper_kind, l->iface, lim);
	offer(out, "shaper", share, net_next(theirs, who, next, nx, sizeof(nx)),
	      "%s shapes %s to %s (%s); %s passed %s, %.0f overlimits, %.0f drops%s", l->shaper_kind, l->iface, lim,
	      src(&l->shaper), qd ? "it" : "the interface", got, known(v->qdisc_overlimits) ? v->qdisc_overlimits : NAN,
	      known(v->qdisc_drops) ? v->qdisc_drops : NAN, whose);
}

static void link(const struct verdict_input *in, struct verdict *out)
{
	const struct limits *l = in->limits;
	const struct sysview *v = in->view;
	double rx = v->net_rx_bytes_per_s, tx = v->net_tx_bytes_per_s, bps;
	char lim[UNITS_FMT_LEN], got[UNITS_FMT_LEN], next[192], whose[160], who[40], nx[192];
	double theirs;

	if (l->link.state != LIMIT_SET || !(l->link.value > 0) || strcmp(v->busiest_iface, l->iface) ||
	    (!known(rx) && !known(tx)))
		return;
	bps = 8 * (known(rx) && (!known(tx) || rx > tx) ? rx : tx);
	/* Well past the speed: a nominal one (veth says 10 Gbit/s), not a limit. */
	if (bps > 1.1 * l->link.value)
		return;
	units_fmt_bits(lim, sizeof(lim), l->link.value);
	units_fmt_bits(got, sizeof(got), bps);
	snprintf(next, sizeof(next), "%s runs at its link speed (%s): a faster link or a second one", l->iface, lim);
	theirs = whose_tcp(v, whose, sizeof(whose), who, sizeof(who));
	offer(out, "link", bps / l->link.value, net_next(theirs, who, next, nx, sizeof(nx)),
	      "%s of %s link speed on %s (%s)%s", got, lim, l->iface, src(&l->link), whose);
}

/* Whether the sampled disk BUSIEST is DISK or one of its partitions ("sdb1", "nvme0n1p2"). */
static bool on_disk(const char *busiest, const char *disk)
{
	size_t n = strlen(disk);
	const char *p = busiest + n;

	if (!n || strncmp(busiest, disk, n))
		return false;
	if (*p == 'p' && p[1] >= '0' && p[1] <= '9')
		p++;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '\0';
}

/*
 * The device under test's link, negotiated below what the device supports
 * (core/kernel/devlink.h: a USB 3 stick at 480 Mbit/s, SATA at 1.5 of 6 Gbps, NVMe
 * on fewer lanes): share = the device's bytes/s over the payload the
 * negotiated link carries in practice (its usable rate, an assumption
 * stated in the evidence; reads and writes add up on a link that carries
 * one direction at a time). A link at its capability is the device's own
 * ceiling: "device" names that, not this.
 */
static void bus(const struct verdict_input *in, struct verdict *out)
{
	const struct limits *l = in->limits;
	const struct sysview *v = in->view;
	const struct devlink *d = &l->dev_link;
	struct devlink_rate cap;
	char cur[48], capt[48], port[48], got[UNITS_FMT_LEN], use[UNITS_FMT_LEN], more[UNITS_FMT_LEN], next[256];
	const char *bus = d->bus == DEVLINK_BUS_USB ? "USB" : d->bus == DEVLINK_BUS_SATA ? "SATA" : "PCIe";
	double share;

	if (!l->dev_link_read || !devlink_below(d) || !on_disk(v->busiest_disk, d->disk))
		return;
	share = devlink_share(d, v->disk_read_bytes_per_s, v->disk_write_bytes_per_s);
	if (isnan(share))
		return;
	/* What both support: the smaller of the device's and the port's rate and lanes. */
	cap = d->dev;
	if (d->cause == DEVLINK_BELOW_BOTH && known(d->port.bps) && d->port.bps < cap.bps)
		cap.bps = d->port.bps;
	if (d->cause == DEVLINK_BELOW_BOTH && d->port.lanes > 0 && (cap.lanes <= 0 || d->port.lanes < cap.lanes))
		cap.lanes = d->port.lanes;
	devlink_rate_text(d, &d->cur, cur, sizeof(cur));
	devlink_rate_text(d, &cap, capt, sizeof(capt));
	devlink_rate_text(d, &d->port, port, sizeof(port));
	units_fmt_size(got, sizeof(got), d->full_duplex ? fmax(known(v->disk_read_bytes_per_s) ? v->disk_read_bytes_per_s : 0,
								  known(v->disk_write_bytes_per_s) ? v->disk_write_bytes_per_s : 0)
						    : (known(v->disk_read_bytes_per_s) ? v->disk_read_bytes_per_s : 0) +
							      (known(v->disk_write_bytes_per_s) ? v->disk_write_bytes_per_s : 0),
		       UNITS_FMT_PER_S);
	units_fmt_size(use, sizeof(use), d->usable_bytes_per_s, UNITS_FMT_PER_S);
	if (known(d->capable_bytes_per_s))
		units_fmt_size(more, sizeof(more), d->capable_bytes_per_s, UNITS_FMT_PER_S);
	else
		snprintf(more, sizeof(more), "more");
	switch (d->cause) {
	case DEVLINK_PORT_LIMITS:
		snprintf(next, sizeof(next), "move %.31s to a port that supports %.24s (the device does; this port only %.24s)",
			 d->disk, capt, port);
		break;
	case DEVLINK_BELOW_DEVICE:
		snprintf(next, sizeof(next), "a port or slot that supports %.24s would let %.31s run faster (the port's own "
			 "capability is unknown)", capt, d->disk);
		break;
	default:
		snprintf(next, sizeof(next), "%s %.31s%s so it negotiates %.24s: about %.31s instead of %.31s",
			 d->bus == DEVLINK_BUS_USB ? "re-plug" : d->bus == DEVLINK_BUS_SATA ? "check the cable and port of" :
			 "re-seat", d->disk,
			 d->bus == DEVLINK_BUS_USB ? " (another cable, no hub)" : d->bus == DEVLINK_BUS_SATA ? "" : " (or another slot)",
			 capt, more, use);
		break;
	}
	offer(out, "bus", share, next,
	      "%.31s negotiated %s %s; %s %s%s: it moved %s, %.0f %% of the %s such a link carries in practice (%.100s)%s",
	      d->disk, bus, cur, d->cause == DEVLINK_BELOW_BOTH ? "the device and its port support" :
	      d->cause == DEVLINK_PORT_LIMITS ? "the device supports" : "the device supports", capt,
	      d->cause == DEVLINK_PORT_LIMITS ? ", the port does not" : d->cause == DEVLINK_BELOW_DEVICE ?
	      " (the port's capability unknown)" : "", got, share * 100, use, d->usable_basis ? d->usable_basis : "",
	      d->limit_note[0] ? "; libata lowered the link's limit after errors (sata_spd_limit)" : "");
}

/* The work's threads queued behind other processes. */
static void others(const struct verdict_input *in, struct verdict *out)
{
	const struct sysview *v = in->view;
	double run, lost, share;
	char top[160] = "", next[192];
	size_t off = 0;

	/* With a time budget, its run-queue split (budget_cpu) decides: the quota's, the others', the work's own. */
	if (v->budget.thread_s > 0)
		return;
	if (!known(v->work_cpu_pct) || !known(v->work_wait_pct))
		return;
	run = v->work_cpu_pct + v->work_wait_pct;
	if (run <= 0)
		return;
	/* Time the cgroup's quota throttled the work is the quota's wait, not the others'. */
	lost = v->work_wait_pct;
	if (known(v->cg_cpu_throttled_s) && known(v->duration_s) && v->duration_s > 0)
		lost -= 100 * v->cg_cpu_throttled_s / v->duration_s;
	lost = clamp0(lost) / run;
	for (int i = 0; i < SYSVIEW_OTHERS && v->others[i].pid; i++)
		off += snprintf(top + off, off < sizeof(top) ? sizeof(top) - off : 0, "%s%s %.0f %% (pid %d)",
				i ? ", " : "", v->others[i].comm, v->others[i].cpu_pct, v->others[i].pid);
	/*
	 * Losing half its runnable time to the run queue halves the work's
	 * speed: that is at the limit (share 1). The others must have used
	 * CPU for the wait to be theirs.
	 */
	share = 2 * lost;
	/*
	 * A work that was runnable for little of the step (an rr client
	 * waiting on its peer) loses little to the run queue, whatever share
	 * of that little it waited: the share counts in full from half a CPU
	 * of runnable time.
	 */
	if (run < VERDICT_RUNNABLE_PCT)
		share *= run / VERDICT_RUNNABLE_PCT;
	if (known(v->others_cpu_pct) && v->others_cpu_pct < VERDICT_OTHERS_MIN_PCT)
		share = 0;
	snprintf(next, sizeof(next), "%s%.150s", top[0] ? "stop or move the other processes: " : "other processes took the CPU",
		 top);
	offer(out, "other processes", share, next,
	      "the work's threads waited %.0f %% of their runnable time in the run queue (%.0f %% of one CPU) while other processes used %.0f %% of one CPU%s%s",
	      lost * 100, v->work_wait_pct, known(v->others_cpu_pct) ? v->others_cpu_pct : NAN, top[0] ? ": " : "",
	      top);
}

static void steal(const struct verdict_input *in, struct verdict *out)
{
	const struct sysview *v = in->view;

	if (!known(v->cpu_steal_pct) || !known(v->cpu_busy_pct) || v->cpu_busy_pct + v->cpu_steal_pct <= 0)
		return;
	offer(out, "steal", v->cpu_steal_pct / (v->cpu_busy_pct + v->cpu_steal_pct),
	      "the hypervisor ran other guests on these CPUs: a less shared host or dedicated CPUs",
	      "the hypervisor stole %.0f %% of CPU time while the CPUs were %.0f %% busy", v->cpu_steal_pct,
	      v->cpu_busy_pct);
}

static void memory(const struct verdict_input *in, struct verdict *out)
{
	const struct sysview *v = in->view;
	double swap = v->swap_in_pages_per_s + v->swap_out_pages_per_s, share = NAN;

	/*
	 * Swapping is box-wide: it bounds the work only when the work itself
	 * waited for pages. With a time budget that shows no page-fault wait
	 * and no major fault of the work, it was another process's.
	 */
	if (v->budget.thread_s > 0 && isfinite(v->budget.major_faults) && v->budget.major_faults == 0 &&
	    state_pct(&v->budget, "paging", NULL) == 0)
		return;
	if (known(swap))
		share = swap / VERDICT_SWAP_PAGES_PER_S;
	if (v->psi_available && known(v->psi_mem_some_pct) &&
	    (isnan(share) || v->psi_mem_some_pct / VERDICT_PSI_MEM_PCT > share))
		share = v->psi_mem_some_pct / VERDICT_PSI_MEM_PCT;
	offer(out, "memory", share, "the work does not fit in memory: more memory, or less of it in use",
	      "swapping %.0f pages/s in, %.0f pages/s out; memory stall %.1f %%", v->swap_in_pages_per_s,
	      v->swap_out_pages_per_s, v->psi_available ? v->psi_mem_some_pct : NAN);
}

/*
 * Whose load the busy disk was: "; of vda's 812.0 MiB written, fio (pid
 * 1234) caused 78 %, the work 15 %" into BUF (empty when unknown), from
 * the storage bytes each process caused (/proc/PID/io at the window's
 * edges, charged to the busiest disk: /proc/PID/io does not say which).
 * Returns the top other process's share of the device's bytes (0..1), and
 * its name in WHO.
 */
static double whose_disk(const struct sysview *v, char *buf, size_t len, char *who, size_t wlen)
{
	double dev = (v->disk_read_bytes_per_s + v->disk_write_bytes_per_s) * v->duration_s, top, mine;
	const struct sysview_io_other *o = &v->io_others[0];
	char d[UNITS_FMT_LEN], tail[48] = "";

	buf[0] = who[0] = 0;
	if (!v->busiest_disk[0] || !known(dev) || !(dev > 0))
		return 0;
	top = o->pid ? (o->read_bytes + o->write_bytes) / dev : 0;
	if (top > 1)
		top = 1;
	mine = (v->budget.read_bytes + v->budget.write_bytes) / dev;
	if (known(mine))
		snprintf(tail, sizeof(tail), "%s %.0f %%", top >= 0.01 ? ", the work" : "the work caused",
			 100 * (mine > 1 ? 1 : mine));
	if (!(top >= 0.01) && !tail[0])
		return 0;
	units_fmt_size(d, sizeof(d), dev, 0);
	if (top >= 0.01) {
		snprintf(buf, len, "; of %.31s's %s read and written, %.15s (pid %d) caused %.0f %%%.47s", v->busiest_disk, d,
			 o->comm, o->pid, 100 * top, tail);
		snprintf(who, wlen, "%.15s (pid %d)", o->comm, o->pid);
	} else {
		snprintf(buf, len, "; of %.31s's %s read and written, %.47s", v->busiest_disk, d, tail);
	}
	return top >= 0.01 ? top : 0;
}

/* What would move a busy disk's figure when another process made most of its requests. */
static const char *disk_next(double others, const char *who, const char *fallback, char *buf, size_t len)
{
	if (others < 0.5)
		return fallback;
	snprintf(buf, len, "another process made most of the device's requests: stop or move %s, or give the work a device of its own",
		 who);
	return buf;
}

static void device(const struct verdict_input *in, struct verdict *out)
{
	char whose[256], who[40], nx[192];
	double others = whose_disk(in->view, whose, sizeof(whose), who, sizeof(who));

	const struct sysview *v = in->view;
	double u = v->disk_util_pct, q = v->disk_queue_avg;

	if (!v->busiest_disk[0] || !known(u))
		return;
	if (known(q) && q >= VERDICT_DISK_QUEUE) {
		offer(out, "device", u / 100,
		      disk_next(others, who, "the device is saturated: a faster device, or spread the load", nx, sizeof(nx)),
		      "%s %.0f %% busy with %.1f requests in flight on average, %.2f ms wait (%.0f r/s, %.0f w/s)%s",
		      v->busiest_disk, u, q, v->disk_avg_wait_ms, v->disk_reads_per_s, v->disk_writes_per_s, whose);
		return;
	}
	/*
	 * Busy with about one request in flight: virtio, NVMe and most SSDs
	 * serve many at once, so this is the latency of one request, not
	 * saturation.
	 */
	offer(out, "device latency", u / 100,
	      disk_next(others, who, "more requests in flight (a deeper queue or more jobs) would use the device's parallelism",
			nx, sizeof(nx)),
	      "%s %.0f %% busy with %.1f requests in flight: busy, not saturated; each request waited %.2f ms%s",
	      v->busiest_disk, u, known(q) ? q : NAN, v->disk_avg_wait_ms, whose);
}

/* ------------------------------------------------------------------ */
/* The time budget: what the work waited for */

/* The budget's share of STATE (all its entries), and the largest entry of it. */
static double state_pct(const struct sysview_budget *b, const char *state, const struct sysview_budget_entry **top)
{
	double sum = 0;

	if (top)
		*top = NULL;
	for (unsigned i = 0; i < b->n; i++) {
		if (strcmp(b->e[i].state, state))
			continue;
		sum += b->e[i].pct;
		if (top && (!*top || b->e[i].pct > (*top)->pct))
			*top = &b->e[i];
	}
	return sum;
}

/* Of STATE's entries, the share whose detail contains any of WORDS (NULL-terminated). */
static double detail_pct(const struct sysview_budget *b, const char *state, const char *const *words)
{
	double sum = 0;

	for (unsigned i = 0; i < b->n; i++) {
		if (strcmp(b->e[i].state, state))
			continue;
		for (const char *const *w = words; *w; w++)
			if (strstr(b->e[i].detail, *w)) {
				sum += b->e[i].pct;
				break;
			}
	}
	return sum;
}

static double budget_share(double pct)
{
	return pct / 100 * VERDICT_NAMED_SHARE / VERDICT_BUDGET_MAJORITY;
}

/* "vda 71 % (write, O_DIRECT)" of an entry. */
static void entry_text(const struct sysview_budget_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", e->what[0] ? e->what : e->state, e->detail[0] ? " (" : "", e->detail,
		 e->detail[0] ? ")" : "");
}

static void budget_disk(const struct verdict_input *in, struct verdict *out, size_t nbench)
{
	const struct sysview *v = in->view;
	const struct sysview_budget *b = &v->budget;
	const struct limits *l = in->limits;
	const struct sysview_budget_entry *top;
	static const char *const sync_words[] = { "fsync", "fdatasync", "sync_file_range", "syncfs", "msync", "O_SYNC", "O_DSYNC",
						  "journal commit", "sync mount", NULL };
	static const char *const mount_words[] = { "sync mount", NULL };
	static const char *const dirty_words[] = { "dirty-page throttling", NULL };
	double pct = state_pct(b, "disk", &top), sync, dirty, share = budget_share(pct), others = 0;
	char dev[48], what[160], whose[256] = "", who[40] = "", nx[192];
	bool on_busiest;

	if (!top || pct <= 0)
		return;
	/* A wait whose file was not resolved (async I/O, D state) is on the disk under test. */
	snprintf(dev, sizeof(dev), "%s", top->what);
	if ((!strcmp(dev, "?") || !strcmp(dev, "async I/O")) && (v->busiest_disk[0] || (l && l->io_dev[0])))
		snprintf(dev, sizeof(dev), "%s", l && l->io_dev[0] ? l->io_dev : v->busiest_disk);
	on_busiest = v->busiest_disk[0] && !strncmp(dev, v->busiest_disk, strlen(dev));
	snprintf(what, sizeof(what), "%s", top->detail[0] ? top->detail : "blocked");
	sync = detail_pct(b, "disk", sync_words);
	dirty = detail_pct(b, "disk", dirty_words);

	/* The disk's own throttle: the io limit, from its counters and the time the work waited. */
	if (l && l->discovered && l->io_dev[0] && !strcmp(l->io_dev, dev) &&
	    (l->io_rbps.state == LIMIT_SET || l->io_wbps.state == LIMIT_SET || l->io_riops.state == LIMIT_SET ||
	     l->io_wiops.state == LIMIT_SET)) {
		double sh = share;
		size_t i;

		for (i = 0; i < out->ncand && strcmp(out->cand[i].resource, "io limit"); i++)
			;
		if (i < out->ncand && out->cand[i].share > sh)
			sh = out->cand[i].share;
		char thr[64] = "";
		size_t off = 0;
		const struct {
			const struct limit *lim;
			const char *name;
		} k[] = { { &l->io_wbps, "write bytes" }, { &l->io_rbps, "read bytes" }, { &l->io_wiops, "write requests" },
			  { &l->io_riops, "read requests" } };

		for (size_t n = 0; n < 4 && off < sizeof(thr); n++)
			if (k[n].lim->state == LIMIT_SET)
				off += (size_t)snprintf(thr + off, sizeof(thr) - off, "%s%s", off ? ", " : "", k[n].name);
		offer_max(out, nbench, "io limit", sh,
			  "the cgroup's I/O limit on this device set the pace: raise it (blkio.throttle.*_device or io.max) or test outside it",
			  "the work waited %.0f %% of its time on %s, whose %s the cgroup throttles; %s", pct, dev, thr, what);
		return;
	}
	if (sync >= pct / 2 && detail_pct(b, "disk", mount_words) >= sync / 2) {
		offer_max(out, nbench, "sync writes", share,
			  "the file system is mounted sync: every write waits for the device; remount it without sync "
			  "(or dirsync), or batch the writes",
			  "the work waited %.0f %% of its time on %s, %.0f %% in writes to a file system mounted sync (%s)", pct,
			  dev, sync, what);
		return;
	}
	if (sync >= pct / 2) {
		offer_max(out, nbench, "sync writes", share,
			  "each write waits for the device to commit it: batch the writes, fsync less often, or mount without sync",
			  "the work waited %.0f %% of its time on %s, %.0f %% in synchronous writes (%s)", pct, dev, sync, what);
		return;
	}
	if (dirty >= pct / 2) {
		offer_max(out, nbench, "writeback", share,
			  "the kernel held the writer back until dirty pages were written: the device cannot keep up with buffered writes",
			  "the work waited %.0f %% of its time on %s, %.0f %% throttled for dirty pages (balance_dirty_pages)", pct,
			  dev, dirty);
		return;
	}
	if (on_busiest)
		others = whose_disk(v, whose, sizeof(whose), who, sizeof(who));
	if (on_busiest && isfinite(v->disk_queue_avg) && v->disk_queue_avg >= VERDICT_DISK_QUEUE) {
		offer_max(out, nbench, "device", share,
			  disk_next(others, who, "the device is saturated: a faster device, or spread the load", nx, sizeof(nx)),
			  "the work waited %.0f %% of its time on %s (%s); %s %.0f %% busy with %.1f requests in flight, %.2f ms a request%s",
			  pct, dev, what, v->busiest_disk, v->disk_util_pct, v->disk_queue_avg, v->disk_avg_wait_ms, whose);
		return;
	}
	if (on_busiest)
		offer_max(out, nbench, "device latency", share,
			  disk_next(others, who,
				    "more requests in flight (a deeper queue, more jobs, larger blocks) would use the device's parallelism",
				    nx, sizeof(nx)),
			  "the work waited %.0f %% of its time on %s (%s) with %.1f requests in flight: each request's latency "
			  "(%.2f ms) is the pace%s",
			  pct, dev, what, isfinite(v->disk_queue_avg) ? v->disk_queue_avg : NAN, v->disk_avg_wait_ms, whose);
	else
		offer_max(out, nbench, "device latency", share,
			  "the device the work waits for sets the pace: more requests in flight, or a faster device",
			  "the work waited %.0f %% of its time on %s (%s)", pct, dev, what);
}

/*
 * A state of the budget that a candidate already explains: the most
 * specific candidate of LIST (NULL-terminated; the benchmark's round trip
 * or pacing, a configured shaper or throttle) with half the named share
 * or more is the cause of that wait. It is raised to SHARE, the wait's
 * own weight (at most 1), with the budget's figure added to its evidence, and true is
 * returned; false when no candidate of LIST comes close (the budget's own
 * candidate is offered then).
 */
static bool explain(struct verdict *out, const char *const *list, double share, const char *what, double pct)
{
	struct verdict_candidate *best = NULL;

	for (size_t i = 0; i < out->ncand; i++)
		for (const char *const *r = list; *r; r++)
			if (!strcmp(out->cand[i].resource, *r) && out->cand[i].share >= VERDICT_NAMED_SHARE / 2 &&
			    (!best || out->cand[i].share > best->share))
				best = &out->cand[i];
	if (!best)
		return false;
	/* Raised to at most 1 (at the limit): its share keeps its own meaning, measured / limit, above it. */
	if (share > 1)
		share = 1;
	if (share > best->share) {
		size_t n = strlen(best->evidence);

		best->share = share;
		snprintf(best->evidence + n, sizeof(best->evidence) - n, "; the work waited %.0f %% of its time on %s", pct,
			 what);
	}
	return true;
}

/* The share of WAIT % of the work's time in the run queue, when it was runnable RUNNABLE %. */
static double rq_share(double wait, double runnable)
{
	double share;

	if (!(runnable > 0))
		return 0;
	share = 2 * wait / runnable;
	if (runnable < VERDICT_RUNNABLE_PCT)
		share *= runnable / VERDICT_RUNNABLE_PCT;
	return share;
}

/*
 * The work's time on a CPU and in the run queue as candidates. On a CPU
 * most of the time: one core (one busy thread), or every CPU it may use
 * (several: "cpu", or "cpuset" when a cpuset or affinity allows fewer than
 * the box has). The run queue is split three ways: the time the cgroup's
 * quota throttled it (cpu quota), and the rest in proportion to who held
 * the CPUs the work ran on: other processes (their CPU on those CPUs), or
 * its own other threads (their CPU): the work outnumbers its CPUs.
 */
static void budget_cpu(const struct verdict_input *in, struct verdict *out, size_t nbench)
{
	static const char *const cpu_known[] = { "memory latency", "memory bandwidth", "cache latency", "cpu", "one core",
						 NULL };
	const struct sysview *v = in->view;
	const struct sysview_budget *b = &v->budget;
	double on = state_pct(b, "on CPU", NULL), rq = state_pct(b, "run queue", NULL), quota = 0;
	const struct limits *l = in->limits;
	double allowed = v->ncpu, runnable;
	bool limited = false, multi = false;

	if (l && l->cpuset.state == LIMIT_SET && l->cpuset.value > 0 && l->cpuset.value < allowed) {
		allowed = l->cpuset.value;
		limited = true;
	}
	if (known(v->work_cpu_pct) && known(v->work_thread_cpu_pct))
		multi = v->work_cpu_pct - v->work_thread_cpu_pct >= VERDICT_QUEUED_PCT;
	if (isfinite(b->quota_s) && b->quota_s > 0)
		quota = 100 * b->quota_s / b->thread_s;
	if (quota > rq)
		quota = rq;
	if (on > 0 && !explain(out, cpu_known, budget_share(on), "a CPU", on)) {
		if (multi && limited)
			offer_max(out, nbench, "cpuset", budget_share(on),
				  "the work may run on fewer CPUs than the box has: allow more CPUs and it can use them",
				  "the work's %d threads were on a CPU %.0f %% of their time, using %.0f %% of the %.0f CPUs allowed (%s)",
				  b->threads, on, v->work_cpu_pct, allowed, src(&l->cpuset));
		else if (multi)
			offer_max(out, nbench, "cpu", budget_share(on),
				  "every CPU the work may use was busy with it: faster or more CPUs, or less work per byte",
				  "the work's %d threads were on a CPU %.0f %% of their time, using %.0f %% of %.0f CPUs",
				  b->threads, on, v->work_cpu_pct, allowed);
		else
			offer_max(out, nbench, "one core", budget_share(on),
				  allowed > 1 ? "one thread ran its core flat out: a second stream or thread would use an idle core"
					      : "one thread ran its core flat out: a faster core",
				  "the work's busiest thread (%s) ran its core: the work's %d thread%s %s on a CPU %.0f %% of %s time",
				  v->work_thread_comm[0] ? v->work_thread_comm : "?", b->threads, b->threads == 1 ? "" : "s",
				  b->threads == 1 ? "was" : "were", on, b->threads == 1 ? "its" : "their");
	}
	/*
	 * Run-queue time is judged as others() judges it: losing half its
	 * runnable time halves the work's speed (share 1), in full once the
	 * work was runnable half its time (VERDICT_RUNNABLE_PCT).
	 */
	runnable = on + rq;
	if (quota > 0 && l && l->cpu_quota.state == LIMIT_SET)
		offer_max(out, nbench, "cpu quota", rq_share(quota, runnable),
			  "the cgroup's CPU quota held the work back: raise it (cpu.cfs_quota_us or cpu.max) or run outside it",
			  "the work's threads spent %.0f %% of their time throttled by the cgroup's quota (%.2f CPU, %s)", quota,
			  l->cpu_quota.value, src(&l->cpu_quota));
	if (rq - quota > 0) {
		double others = known(v->others_on_work_cpus_pct) ? v->others_on_work_cpus_pct : v->others_cpu_pct;
		double own = known(v->work_cpu_pct) && b->threads > 1 ? v->work_cpu_pct * (1 - 1.0 / b->threads) : 0;
		double part = known(others) && others + own > 0 ? others / (others + own) : (own > 0 ? 0 : 1);
		char top[160] = "";
		size_t off = 0;

		for (int i = 0; i < SYSVIEW_OTHERS && v->others[i].pid; i++)
			off += (size_t)snprintf(top + off, off < sizeof(top) ? sizeof(top) - off : 0, "%s%s %.0f %% (pid %d)",
						i ? ", " : "", v->others[i].comm, v->others[i].cpu_pct, v->others[i].pid);
		double theirs;

		if (known(others) && others < VERDICT_OTHERS_MIN_PCT)
			part = 0;
		/*
		 * Another process delays the work only while it runs on the
		 * work's CPU: their part is at most the CPU they used there
		 * (a quota that could not be read shows as run-queue wait
		 * with no one else running, and stays unexplained).
		 */
		theirs = (rq - quota) * part;
		if (known(others) && known(v->duration_s) && theirs > others * v->duration_s / b->thread_s)
			theirs = others * v->duration_s / b->thread_s;
		/*
		 * More wait than the processes seen at the window's edges can
		 * account for, on a box whose run queue held more tasks than it
		 * has CPUs (or whose CPUs were all busy): the CPU was contended
		 * by what the edges do not see (processes born and gone within
		 * the window, kernel threads). That part is the others' too,
		 * said as unseen; on an idle box it stays unexplained.
		 */
		double unseen = (rq - quota) * part - theirs;
		char unseen_text[160] = "";

		if (unseen >= 1 && ((known(v->run_queue_avg) && v->ncpu > 0 && v->run_queue_avg > v->ncpu) ||
				    (known(v->cpu_busy_pct) && v->cpu_busy_pct >= 90))) {
			theirs += unseen;
			snprintf(unseen_text, sizeof(unseen_text),
				 "; %.0f %% of it behind tasks not seen at the window's edges (short-lived processes, kernel "
				 "threads) while the run queue held %.1f tasks for %d CPUs",
				 unseen, known(v->run_queue_avg) ? v->run_queue_avg : NAN, v->ncpu);
		}
		/*
		 * A work that claims less than its share of a busy CPU (its
		 * cgroup's weight below the default, or a positive nice
		 * value) waits behind the others by configuration: the weight
		 * is the limit, the others only the load it yields to.
		 */
		if (theirs > 0 && l && (l->cpu_weight.state == LIMIT_SET || l->nice.state == LIMIT_SET)) {
			char why[224];

			if (l->cpu_weight.state == LIMIT_SET)
				snprintf(why, sizeof(why), "its cgroup's CPU weight is %.0f %% of the default (%.160s)",
					 100 * l->cpu_weight.value, src(&l->cpu_weight));
			else
				snprintf(why, sizeof(why), "it runs at nice %.0f (%.160s)", l->nice.value, src(&l->nice));
			offer_max(out, nbench, "cpu weight", rq_share(theirs, runnable),
				  "the work yields the CPU to the others by its weight: raise it (cpu.shares, cpu.weight) or its nice "
				  "value back to 0, or move the others",
				  "the work's threads waited %.0f %% of their time for a CPU while other processes used %.0f %% of one "
				  "CPU on the work's CPUs, and %s",
				  theirs, known(others) ? others : NAN, why);
		}
		if (theirs > 0)
			offer_max(out, nbench, "other processes", rq_share(theirs, runnable),
				  "stop or move the other processes, or pin the work to CPUs they leave alone",
				  "the work's threads waited %.0f %% of their time for a CPU; other processes used %.0f %% of one CPU on the work's CPUs%s%s%s",
				  theirs, known(others) ? others : NAN, top[0] ? ": " : "", top, unseen_text);
		if (part < 1 && own > 0)	/* a single thread has no own threads to wait behind: unexplained */
			offer_max(out, nbench, limited ? "cpuset" : "cpu", rq_share((rq - quota) * (1 - part), runnable),
				  limited ? "the work's threads outnumber the CPUs it may use: allow more CPUs"
					  : "the work's own threads outnumber the CPUs: fewer threads, or more CPUs",
				  "the work's %d threads waited %.0f %% of their time for a CPU held by its own other threads (%.0f CPUs %s)",
				  b->threads, (rq - quota) * (1 - part), allowed, limited ? "allowed" : "on the box");
	}
}

bool verdict_net_candidate(const char *why, double pct, const char *what, const char *evidence,
			   struct verdict_candidate *c)
{
	const char *res, *next;

	if (!why || !why[0] || !strcmp(why, "unknown") || !(pct > 0))
		return false;
	if (!strcmp(why, "receive window")) {
		res = "tcp window";
		next = "the receiver's window held the data back: a larger receive buffer on the receiving side "
		       "(its SO_RCVBUF, net.ipv4.tcp_rmem) or a reader that keeps up";
	} else if (!strcmp(why, "send buffer")) {
		res = "tcp window";
		next = "the send buffer ran dry: a larger one (SO_SNDBUF, net.ipv4.tcp_wmem)";
	} else if (!strcmp(why, "round trip")) {
		res = "round trip";
		next = "little in flight per round trip: more requests or streams in flight, or a shorter path";
	} else if (!strcmp(why, "idle")) {
		res = "server";
		next = "the connection sat idle: the peer had nothing to send (a slow server or sender), not the path";
	} else if (!strcmp(why, "upstream")) {
		res = "upstream";
		next = "the data came at a plateau with our receive queue empty: held before us -- a shaper on the far "
		       "side, or the sender's own pace";
	} else if (!strcmp(why, "bottleneck queue")) {
		res = "network";
		next = "a queue stands after us on the path (a shaper or a slower link): find the narrowest hop";
	} else if (!strcmp(why, "loss")) {
		res = "network";
		next = "the path loses packets: a shaper or a full queue dropping them (on the far side when receiving), or a "
		       "lossy link; the retransmissions set the rate";
	} else {
		return false;
	}
	memset(c, 0, sizeof(*c));
	snprintf(c->resource, sizeof(c->resource), "%s", res);
	c->share = budget_share(pct);
	snprintf(c->next_step, sizeof(c->next_step), "%s", next);
	snprintf(c->evidence, sizeof(c->evidence), "the work waited %.0f %% of its time on %s: %s (sock_diag)", pct,
		 what && what[0] ? what : "the network", evidence ? evidence : "");
	return true;
}

/*
 * A network wait whose socket sock_diag read twice (core/kernel/sockdiag.h): its
 * own TCP state names why the data moved as it did. Returns false when it
 * was not judged or TCP shows no limit (the generic candidate then).
 */
static bool budget_net(const struct verdict_input *in, struct verdict *out, size_t nbench, double pct)
{
	const struct sysview_budget *b = &in->view->budget;
	struct verdict_candidate c;

	if (!verdict_net_candidate(b->net_why, pct, b->net_what, b->net_evidence, &c))
		return false;
	char whose[160], who[40], nx[192];
	double theirs = whose_tcp(in->view, whose, sizeof(whose), who, sizeof(who));

	offer_max(out, nbench, c.resource, c.share, net_next(theirs, who, c.next_step, nx, sizeof(nx)), "%s%s", c.evidence,
		  whose);
	return true;
}

/* The work's waiting states as candidates: what it spent its time waiting for. */
static void budget(const struct verdict_input *in, struct verdict *out, size_t nbench)
{
	static const char *const net_known[] = { "round trip", "server", "tcp window", "udp receive buffer", "shaper",
						 "link", "own pacing", NULL };
	static const char *const pacing_known[] = { "own pacing", NULL };
	const struct sysview_budget *b = &in->view->budget;
	const struct sysview_budget_entry *top;
	char what[160];
	double pct;

	if (!(b->thread_s > 0))
		return;
	budget_cpu(in, out, nbench);
	budget_disk(in, out, nbench);
	/* A network wait: a candidate that explains it, else the socket's own TCP state, else the peer by name. */
	if ((pct = state_pct(b, "network", &top)) > 0 && top &&
	    !explain(out, net_known, budget_share(pct), "the network", pct) && !budget_net(in, out, nbench, pct)) {
		char whose[160], who[40], nx[192];
		double theirs = whose_tcp(in->view, whose, sizeof(whose), who, sizeof(who));

		entry_text(top, what, sizeof(what));
		offer_max(out, nbench, "network", budget_share(pct),
			  net_next(theirs, who,
				   "the peer or the path set the pace: its round trip, its window, a shaper on either side, or the "
				   "peer itself (engpass net client PEER measures the path)",
				   nx, sizeof(nx)),
			  "the work waited %.0f %% of its time on the network, most on %s (%.0f %%)%s", pct, what, top->pct, whose);
	}
	if ((pct = state_pct(b, "own sleep", &top)) > 0 && top &&
	    !explain(out, pacing_known, budget_share(pct), "its own timed sleeps", pct)) {
		entry_text(top, what, sizeof(what));
		offer_max(out, nbench, "own pacing", budget_share(pct),
			  "the work paces itself (a rate setting or a timer): lift it to go faster",
			  "the work slept %.0f %% of its time in its own timed waits (%s)", pct, what);
	}
	if ((pct = state_pct(b, "ipc", &top)) > 0 && top) {
		entry_text(top, what, sizeof(what));
		offer_max(out, nbench, "another process", budget_share(pct),
			  "the process at the other end set the pace: look at it (engpass watch --pid)",
			  "the work waited %.0f %% of its time on another local process through %s", pct, what);
	}
	if ((pct = state_pct(b, "lock", &top)) > 0 && top)
		offer_max(out, nbench, "lock", budget_share(pct),
			  "the work's threads wait for each other: fewer threads on one lock, or a finer-grained lock",
			  "the work's %d threads waited %.0f %% of their time on futexes (locks or condition variables)",
			  b->threads, pct);
	if ((pct = state_pct(b, "paging", &top)) > 0 && top)
		offer_max(out, nbench, "memory", budget_share(pct),
			  "the work waits for its pages to come back: more memory, or less of it in use",
			  "the work waited %.0f %% of its time in page faults, %.0f major faults", pct,
			  isfinite(b->major_faults) ? b->major_faults : NAN);
}

/* "on CPU 22 % · vda 71 % · run queue 2 %": the budget in a line, for "none observed". */
static void budget_line(const struct sysview_budget *b, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < b->n && i < 4 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s %.0f %%", i ? ", " : "",
					b->e[i].what[0] ? b->e[i].what : b->e[i].state, b->e[i].pct);
}

/* All the CPUs the work may use, and one core of them. */
static void cpus(const struct verdict_input *in, struct verdict *out)
{
	const struct sysview *v = in->view;
	const struct limits *l = in->limits;
	double allowed = v->ncpu, all = NAN;
	bool multi = true;
	char next[192];

	if (l && l->cpuset.state == LIMIT_SET && l->cpuset.value > 0 && l->cpuset.value < allowed)
		allowed = l->cpuset.value;
	/*
	 * "cpu" is the work's threads together on every CPU it may use; a
	 * single busy thread is "one core" even where one core is all it may
	 * use. With all CPUs busy, one busy thread among them is no news.
	 */
	if (known(v->work_cpu_pct) && known(v->work_thread_cpu_pct))
		multi = v->work_cpu_pct - v->work_thread_cpu_pct >= VERDICT_QUEUED_PCT;
	if (known(v->work_cpu_pct) && allowed > 0 && multi) {
		all = v->work_cpu_pct / (allowed * 100);
		offer(out, "cpu", all,
		      "every CPU the work may use was busy with it: faster or more CPUs, or less work per byte",
		      "the work used %.0f %% of %.0f CPUs (%d threads); all CPUs %.0f %% busy", v->work_cpu_pct,
		      allowed, v->work_threads, v->cpu_busy_pct);
	} else if (!known(v->work_cpu_pct) && known(v->cpu_busy_pct)) {
		offer(out, "cpu", v->cpu_busy_pct / 100, "every CPU was busy: faster or more CPUs",
		      "all %d CPUs %.0f %% busy, run queue %.1f (box-wide: the work's threads were not read)", v->ncpu,
		      v->cpu_busy_pct, v->run_queue_avg);
	}

	if (known(v->work_thread_cpu_pct) && !(all >= VERDICT_NAMED_SHARE)) {
		if (allowed > 1)
			snprintf(next, sizeof(next),
				 "one thread ran its core flat out: a second stream or thread would use an idle core");
		else
			snprintf(next, sizeof(next), "one thread ran its core flat out: a faster core");
		char on[24] = "";

		if (v->work_thread_cpu >= 0)
			snprintf(on, sizeof(on), " on cpu%d", v->work_thread_cpu);
		offer(out, "one core", v->work_thread_cpu_pct / 100, next,
		      "thread %s %.0f %% busy%s (waited %.0f %%) while all CPUs averaged %.0f %%",
		      v->work_thread_comm[0] ? v->work_thread_comm : "?", v->work_thread_cpu_pct, on,
		      known(v->work_thread_wait_pct) ? v->work_thread_wait_pct : NAN, v->cpu_busy_pct);
	}
	/*
	 * A core busy in softirq works for the traffic even when no thread of
	 * the work is busy (the network stack's receive processing).
	 */
	if (v->busiest_cpu >= 0 && known(v->busiest_cpu_busy_pct) && known(v->busiest_cpu_softirq_pct) &&
	    v->busiest_cpu_softirq_pct >= v->busiest_cpu_busy_pct / 2)
		offer(out, "one core", v->busiest_cpu_busy_pct / 100,
		      "the network stack's softirq work sits on one core: spread it (RPS/RSS, more queues or flows)",
		      "cpu%d %.0f %% busy, %.0f %% of it softirq, while all CPUs averaged %.0f %%", v->busiest_cpu,
		      v->busiest_cpu_busy_pct, v->busiest_cpu_softirq_pct, v->cpu_busy_pct);
	if (!known(v->work_thread_cpu_pct) && !known(v->work_cpu_pct) && v->busiest_cpu >= 0 &&
	    known(v->busiest_cpu_busy_pct))
		offer(out, "one core", v->busiest_cpu_busy_pct / 100, "a second stream or thread would use an idle core",
		      "cpu%d %.0f %% busy while all CPUs averaged %.0f %% (box-wide: the work's threads were not read)",
		      v->busiest_cpu, v->busiest_cpu_busy_pct, v->cpu_busy_pct);
}

/*
 * Thermal throttling: the CPU slowed itself to cool down (a throttle
 * counter moved, a CPU cooling device was engaged) or a sensor reached its
 * own limit during the window. Either is named in full: the figures of a
 * throttled step are those of a slower CPU. Nothing is offered when
 * nothing moved, or when the box has no such counters.
 */
static void heat(const struct verdict_input *in, struct verdict *out)
{
	const struct sysview *v = in->view;
	const struct sysview_temp *h = &v->temp_hit, *top = &v->temps[0];
	bool core = known(v->throttle_core_events) && v->throttle_core_events > 0;
	bool pkg = known(v->throttle_package_events) && v->throttle_package_events > 0;
	bool cool = known(v->cooling_state_max) && v->cooling_state_max > 0;
	char ev[256] = "";
	size_t off = 0;

	if (!core && !pkg && !cool && !h->name[0])
		return;
	if (core || pkg)
		off += (size_t)snprintf(ev + off, sizeof(ev) - off,
					"throttle counters moved on %d of %d CPUs (core %.0f, package %.0f events)",
					v->throttle_cpus_moved, v->throttle_cpus, v->throttle_core_events,
					v->throttle_package_events);
	if (cool && off < sizeof(ev))
		off += (size_t)snprintf(ev + off, sizeof(ev) - off, "%s%s at cooling state %.0f of %.0f", off ? "; " : "",
					v->cooling_name, v->cooling_state_max, v->cooling_state_limit);
	if (h->name[0] && off < sizeof(ev))
		off += (size_t)snprintf(ev + off, sizeof(ev) - off, "%s%s reached %.0f C (its %s %.0f C)", off ? "; " : "",
					h->name, h->max_c, h->trip, h->trip_c);
	else if (top->name[0] && off < sizeof(ev))
		off += (size_t)snprintf(ev + off, sizeof(ev) - off, "; hottest %s %.0f C (%.0f C at the start)", top->name,
					top->max_c, top->start_c);
	offer(out, "thermal throttling", 1,
	      "the CPU slowed itself to cool down: a heatsink or a fan, more air, or less sustained load", "%s", ev);
}

static int priority(const char *resource)
{
	for (int i = 0; verdict_priority[i]; i++)
		if (!strcmp(verdict_priority[i], resource))
			return i;
	return 1000;
}

/*
 * The ranking key: the share capped at 1 (past the limit is at it); NaN
 * last. A configured limit (the first VERDICT_CONFIGURED entries of
 * verdict_priority[]) reached to VERDICT_LIMIT_REACHED counts as at it: a
 * hard cap cannot be passed, and what is measured through a shaper or a
 * throttle reads a little under it (headers, accounting granularity), so
 * it ranks with a saturated resource and wins the tie by priority.
 */
static double key(const struct verdict_candidate *c)
{
	if (isnan(c->share))
		return -1;
	if (c->share >= VERDICT_LIMIT_REACHED && priority(c->resource) < VERDICT_CONFIGURED)
		return 1;
	/*
	 * A link below its capability, carrying the named share of what it
	 * carries in practice, is at its ceiling: the usable rate is an
	 * estimate (USB 2 sticks read 35-40 MiB/s), and the device behind it
	 * shows busy because every transfer waits for the link. It ranks as
	 * saturated and wins the tie with "device" by priority: the link, not
	 * the device, is what to change.
	 */
	if (c->share >= VERDICT_NAMED_SHARE && !strcmp(c->resource, "bus"))
		return 1;
	return c->share > 1 ? 1 : c->share;
}

static int rank(const void *pa, const void *pb)
{
	const struct verdict_candidate *a = pa, *b = pb;
	double ka = key(a), kb = key(b);

	if (ka != kb)
		return ka > kb ? -1 : 1;
	return priority(a->resource) - priority(b->resource);
}

/* The io limit to report in "limits:": one that is set (any direction), else an unknown one, else none. */
static const struct limit *io_any(const struct limits *l)
{
	const struct limit *k[] = { &l->io_rbps, &l->io_wbps, &l->io_riops, &l->io_wiops };

	for (size_t i = 0; i < 4; i++)
		if (k[i]->state == LIMIT_SET)
			return k[i];
	for (size_t i = 0; i < 4; i++)
		if (k[i]->state != LIMIT_NONE)
			return k[i];
	return k[0];
}

/* "cpu quota none, cpuset 2 of 2, ..." : what was looked at, for "none observed". */
static void checked(const struct verdict_input *in, char *buf, size_t len)
{
	const struct limits *l = in->limits;
	size_t off = 0;
	const struct {
		const char *name;
		const struct limit *lim;
	} k[] = {
		{ "cpu quota", l ? &l->cpu_quota : NULL },
		{ "memory limit", l ? &l->mem_max : NULL },
		{ "io limit", l && l->io_dev[0] ? io_any(l) : NULL },
		{ "shaper", l && l->iface[0] ? &l->shaper : NULL },
	};

	buf[0] = 0;
	if (!l)
		return;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]) && off < len; i++) {
		if (!k[i].lim)
			continue;
		off += snprintf(buf + off, len - off, "%s%s %s", off ? ", " : "", k[i].name,
				k[i].lim->state == LIMIT_SET ? "set" :
				k[i].lim->state == LIMIT_NONE ? "none" : "unknown");
	}
}

/*
 * The benchmark's "device setting" candidate (a sync mount, a request
 * size or queue setting: disk's disk_report_setting()), whose share is
 * unknown: where the device is named, it is what to change first, so its
 * next step is the verdict's.
 */
static void device_setting(struct verdict *out)
{
	static const char *const disk[] = { "device", "device latency", "sync writes", "writeback", NULL };
	bool named = false;

	for (const char *const *d = disk; *d && !named; d++)
		named = !strcmp(out->resource, *d);
	for (size_t i = 0; named && i < out->ncand; i++)
		if (!strcmp(out->cand[i].resource, "device setting") && out->cand[i].next_step[0]) {
			snprintf(out->next_step, sizeof(out->next_step), "%s", out->cand[i].next_step);
			return;
		}
}

void verdict_judge(const struct verdict_input *in, struct verdict *out)
{
	const struct sysview *v = in ? in->view : NULL;
	char list[200] = "", chk[160], tb[160] = "";
	size_t off = 0;

	size_t nbench = out->ncand;

	if (v && v->samples > 0) {
		if (in->limits && in->limits->discovered) {
			cpu_quota(in, out);
			cpuset(in, out);
			io_limit(in, out);
			memory_limit(in, out);
			shaper(in, out);
			link(in, out);
			bus(in, out);
		}
		others(in, out);
		steal(in, out);
		memory(in, out);
		device(in, out);
		heat(in, out);
		cpus(in, out);
		budget(in, out, nbench);
	}
	qsort(out->cand, out->ncand, sizeof(out->cand[0]), rank);
	out->next_step[0] = 0;
	if (out->ncand && key(&out->cand[0]) >= VERDICT_NAMED_SHARE) {
		const struct verdict_candidate *c = &out->cand[0];

		memcpy(out->resource, c->resource, sizeof(out->resource));
		snprintf(out->evidence, sizeof(out->evidence), "%s", c->evidence);
		if (v && known(v->cpu_steal_pct) && v->cpu_steal_pct >= VERDICT_STEAL_PCT && strcmp(c->resource, "steal")) {
			size_t n = strlen(out->evidence);

			snprintf(out->evidence + n, sizeof(out->evidence) - n, "; the hypervisor stole %.0f %% of CPU time",
				 v->cpu_steal_pct);
		}
		snprintf(out->next_step, sizeof(out->next_step), "%s", c->next_step);
		device_setting(out);
		return;
	}
	if (!v || v->samples == 0) {
		snprintf(out->resource, sizeof(out->resource), "unknown");
		snprintf(out->evidence, sizeof(out->evidence), "no system samples were taken during the step%s",
			 out->ncand ? "; no candidate reached 80 %" : "");
		return;
	}
	for (size_t i = 0; i < out->ncand && i < 3; i++)
		off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s%s %.0f %%", i ? ", " : "",
				out->cand[i].resource, out->cand[i].share * 100);
	checked(in, chk, sizeof(chk));
	budget_line(&v->budget, tb, sizeof(tb));
	snprintf(out->resource, sizeof(out->resource), "none observed");
	snprintf(out->evidence, sizeof(out->evidence), "no limit reached 80 %%: %.80s%s%.70s%s%.60s",
		 list[0] ? list : "no candidate", chk[0] ? "; limits: " : "", chk, tb[0] ? "; time: " : "", tb);
	snprintf(out->next_step, sizeof(out->next_step), "%s",
		 "no limit held it back: the work set its own pace (more load -- threads, streams, requests in "
		 "flight -- would find the limit)");
}
