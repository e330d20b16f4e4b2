/* SPDX-License-Identifier: MIT */
/*
 * The configured limits of the work and their counters; see limits.h. The
 * cgroup files are core/kernel/cgroup.c's, the qdiscs core/kernel/qdisc.c's; this file
 * picks what applies to the work (its process, its device, its egress
 * interface) and turns it into struct limit with a source a person can
 * look up.
 */
#include "core/observe/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "core/kernel/cgroup.h"
#include "core/base/clock.h"
#include "core/kernel/devlink.h"
#include "core/kernel/net_sock.h"
#include "core/kernel/proc.h"
#include "lib/compiler.h"
#include "lib/units.h"
#include "lib/xalloc.h"

static const char *root_of(const struct limits_config *cfg)
{
	return cfg && cfg->root ? cfg->root : "";
}

static void PRINTF_LIKE(2, 3) set_unknown(struct limit *l, const char *fmt, ...)
{
	va_list ap;

	memset(l, 0, sizeof(*l));
	l->state = LIMIT_UNKNOWN;
	l->value = NAN;
	va_start(ap, fmt);
	vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

static void from_cg(struct limit *l, const struct cg_value *v)
{
	memset(l, 0, sizeof(*l));
	l->state = v->state == CG_SET ? LIMIT_SET : v->state == CG_NONE ? LIMIT_NONE : LIMIT_UNKNOWN;
	l->value = v->state == CG_SET ? v->value : NAN;
	snprintf(l->source, sizeof(l->source), "%s", v->source);
	snprintf(l->why, sizeof(l->why), "%s", v->why);
}

/* The first line of the small file PATH under ROOT (proc_read_line()); 0 or -errno. */
static int read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return proc_read_line(full, buf, len);
}

static int mark_cpu(uint64_t lo, uint64_t hi, void *arg)
{
	cpu_set_t *set = arg;

	for (uint64_t c = lo; c <= hi && c < CPU_SETSIZE; c++)
		CPU_SET((int)c, set);
	return 0;
}

/* Writes SET as a short list ("0", "0-3", "0,2") into BUF. */
static void cpuset_list(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && off < len; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (e == c)
			off += snprintf(buf + off, len - off, "%s%d", off ? "," : "", c);
		else
			off += snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", c, e);
		c = e;
	}
}

/*
 * The CPUs the work may run on: the cpuset's and, on the real system, the
 * affinity mask (taskset), intersected. The source names the narrower.
 */
static void discover_cpus(const struct limits_config *cfg, const struct cgroup_loc *loc, struct limits *out)
{
	const char *root = root_of(cfg);
	char buf[512], list[256] = "";
	cpu_set_t online, allowed, aff;
	struct cg_value cs;

	CPU_ZERO(&online);
	out->online_cpus = -1;
	if (read_line(root, "/sys/devices/system/cpu/online", buf, sizeof(buf)) == 0 &&
	    units_cpulist_walk(buf, strlen(buf), mark_cpu, &online) == 0)
		out->online_cpus = CPU_COUNT(&online);

	cgroup_cpuset(loc, &cs, list, sizeof(list));
	from_cg(&out->cpuset, &cs);
	CPU_ZERO(&allowed);
	if (cs.state == CG_SET && units_cpulist_walk(list, strlen(list), mark_cpu, &allowed) < 0)
		CPU_ZERO(&allowed);
	if (cs.state != CG_SET || CPU_COUNT(&allowed) == 0)
		allowed = online;

	if (!root[0]) {
		CPU_ZERO(&aff);
		if (sched_getaffinity(cfg->pid, sizeof(aff), &aff) == 0) {
			cpu_set_t both;

			CPU_AND(&both, &allowed, &aff);
			if (CPU_COUNT(&both) < CPU_COUNT(&allowed) || out->cpuset.state != LIMIT_SET) {
				char l[64];

				cpuset_list(&aff, l, sizeof(l));
				memset(&out->cpuset, 0, sizeof(out->cpuset));
				out->cpuset.state = LIMIT_SET;
				snprintf(out->cpuset.source, sizeof(out->cpuset.source),
					 "CPU affinity (sched_getaffinity) %s%s%.64s", l,
					 cs.state == CG_SET ? "; cpuset " : "", cs.state == CG_SET ? list : "");
			}
			allowed = both;
		}
	}
	if (out->cpuset.state == LIMIT_SET) {
		out->cpuset.value = CPU_COUNT(&allowed);
		cpuset_list(&allowed, out->cpuset_list, sizeof(out->cpuset_list));
	}
}

/* The process's nice value (field 19 of PROC/PID/stat): above 0 it claims less of a busy CPU. */
static void discover_nice(const struct limits_config *cfg, struct limits *out)
{
	char path[PATH_MAX], buf[1024];
	struct limit *l = &out->nice;
	const char *p;
	long nice;
	int fd, i;
	ssize_t n;

	memset(l, 0, sizeof(*l));
	if (proc_path(path, sizeof(path), "%s/proc/%d/stat", root_of(cfg), cfg->pid > 0 ? (int)cfg->pid : (int)getpid())) {
		set_unknown(l, "%s", "path too long");
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_unknown(l, "%s", strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	/* After the comm's closing parenthesis: state is field 3, nice field 19. */
	p = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
	for (i = 2; p && i < 19; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %ld", &nice) != 1 || nice < -20 || nice > 19) {
		set_unknown(l, "%s", "unreadable /proc/PID/stat");
		return;
	}
	l->state = nice > 0 ? LIMIT_SET : LIMIT_NONE;
	l->value = (double)nice;
	snprintf(l->source, sizeof(l->source), "/proc/%d/stat nice %ld", cfg->pid > 0 ? (int)cfg->pid : (int)getpid(), nice);
}

static void discover_rlimits(const struct limits_config *cfg, struct limits *out)
{
	static const struct {
		int res;
		const char *name;
		size_t off;
	} rl[] = {
		{ RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", offsetof(struct limits, memlock) },
		{ RLIMIT_NOFILE, "RLIMIT_NOFILE", offsetof(struct limits, nofile) },
	};

	for (size_t i = 0; i < sizeof(rl) / sizeof(rl[0]); i++) {
		struct limit *l = (struct limit *)((char *)out + rl[i].off);
		struct rlimit r;

		if (root_of(cfg)[0]) {
			set_unknown(l, "%s", "not read under a fixture root");
			continue;
		}
		if (prlimit(cfg->pid, rl[i].res, NULL, &r) < 0) {
			set_unknown(l, "%s", strerror(errno));
			continue;
		}
		memset(l, 0, sizeof(*l));
		l->state = r.rlim_cur == RLIM_INFINITY ? LIMIT_NONE : LIMIT_SET;
		l->value = r.rlim_cur == RLIM_INFINITY ? NAN : (double)r.rlim_cur;
		snprintf(l->source, sizeof(l->source), "%s (prlimit, soft)", rl[i].name);
	}
}

/*
 * The source of shaping entry Q of L on IFC. An htb class with a ceil
 * above its rate says which of the two (or its parent's reach) it is
 * judged by, and why: a class borrows beyond its rate only from a parent.
 */
static void shaper_source(const struct qdisc_list *l, const struct qdisc_info *q, const char *ifc, char *buf,
			  size_t len)
{
	char what[128] = "", r[UNITS_FMT_LEN], c[UNITS_FMT_LEN], b[UNITS_FMT_LEN];
	const struct qdisc_info *p = qdisc_parent(l, q);
	double reach = qdisc_reach_bps(l, q);

	if (q->is_class && q->ceil_bps > q->rate_bps) {
		units_fmt_bits(r, sizeof(r), q->rate_bps);
		units_fmt_bits(c, sizeof(c), q->ceil_bps);
		if (!p)
			snprintf(what, sizeof(what), "; rate %s, ceil %s unreachable: no parent class lends", r, c);
		else if (reach >= q->ceil_bps)
			snprintf(what, sizeof(what), "; ceil %s, borrowing from %x:%x", c, p->handle >> 16,
				 p->handle & 0xffff);
		else if (reach > q->rate_bps)
			snprintf(what, sizeof(what), "; rate %s, ceil %s: %x:%x lends up to %s", r, c, p->handle >> 16,
				 p->handle & 0xffff, units_fmt_bits(b, sizeof(b), reach));
		else
			snprintf(what, sizeof(what), "; rate %s, ceil %s unreachable: %x:%x lends nothing above it", r,
				 c, p->handle >> 16, p->handle & 0xffff);
	}
	snprintf(buf, len, "%s %s %x:%x on %s (rtnetlink %s%s)", q->kind, q->is_class ? "class" : "qdisc",
		 q->handle >> 16, q->handle & 0xffff, ifc, q->is_class ? "RTM_GETTCLASS" : "RTM_GETQDISC", what);
}

/*
 * The shaper of incoming traffic: an ingress filter on IFC (index IFX)
 * that redirects to another device (ifb), and that device's shaping qdisc.
 */
static void discover_ingress(const char *ifc, int ifx, struct limits *out)
{
	struct qdisc_redirect rd;
	struct qdisc_list ql = { 0 };
	const struct qdisc_info *q;
	char err[128] = "", name[IF_NAMESIZE] = "";
	int r;

	r = qdisc_ingress_redirect(ifx, &rd, err, sizeof(err));
	if (r < 0) {
		set_unknown(&out->shaper_in, "%s", err[0] ? err : strerror(-r));
		return;
	}
	memset(&out->shaper_in, 0, sizeof(out->shaper_in));
	out->shaper_in.value = NAN;
	if (!rd.ifindex) {
		out->shaper_in.state = LIMIT_NONE;
		snprintf(out->shaper_in.source, sizeof(out->shaper_in.source),
			 "no ingress filter redirects %s's traffic (rtnetlink RTM_GETTFILTER)", ifc);
		return;
	}
	if (!if_indextoname((unsigned)rd.ifindex, name)) {
		set_unknown(&out->shaper_in, "%s's ingress redirects to interface %d, which is gone", ifc, rd.ifindex);
		return;
	}
	snprintf(out->ifb, sizeof(out->ifb), "%s", name);
	r = qdisc_dump(rd.ifindex, &ql, err, sizeof(err));
	if (r < 0) {
		set_unknown(&out->shaper_in, "%s", err[0] ? err : strerror(-r));
		qdisc_list_free(&ql);
		return;
	}
	q = qdisc_limiting(&ql);
	if (q) {
		char src[192];

		out->shaper_in.state = LIMIT_SET;
		out->shaper_in.value = qdisc_reach_bps(&ql, q);
		out->shaper_in_key = *q;
		out->ifb_ifindex = rd.ifindex;
		snprintf(out->shaper_in_kind, sizeof(out->shaper_in_kind), "%s", q->kind);
		shaper_source(&ql, q, name, src, sizeof(src));
		snprintf(out->shaper_in.source, sizeof(out->shaper_in.source), "%.130s; %s's ingress redirected there (%s)",
			 src, ifc, rd.classifier);
	} else {
		out->shaper_in.state = LIMIT_NONE;
		snprintf(out->shaper_in.source, sizeof(out->shaper_in.source),
			 "%s's ingress goes to %s (%s filter), which shapes nothing (%s)", ifc, name, rd.classifier,
			 ql.n ? ql.v[0].kind : "no qdisc");
	}
	qdisc_list_free(&ql);
}

/* The shaper, link speed and MTU of the egress interface. */
static void discover_iface(const struct limits_config *cfg, struct limits *out)
{
	const char *root = root_of(cfg), *ifc = cfg->iface;
	char sys[PATH_MAX], buf[64], err[128] = "";
	struct qdisc_list ql = { 0 };
	const struct qdisc_info *q;
	double speed;
	int64_t mtu;
	int r;

	if (!ifc || !ifc[0]) {
		set_unknown(&out->shaper, "%s", "no egress interface known for this step");
		set_unknown(&out->shaper_in, "%s", "no egress interface known for this step");
		set_unknown(&out->link, "%s", "no egress interface known for this step");
		set_unknown(&out->mtu, "%s", "no egress interface known for this step");
		return;
	}
	snprintf(out->iface, sizeof(out->iface), "%s", ifc);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	speed = net_link_speed_bps(sys, ifc);
	memset(&out->link, 0, sizeof(out->link));
	if (speed > 0) {
		out->link.state = LIMIT_SET;
		out->link.value = speed;
		snprintf(out->link.source, sizeof(out->link.source), "/sys/class/net/%s/speed", ifc);
	} else {
		set_unknown(&out->link, "%s", !strcmp(ifc, "lo") ? "loopback has no link speed" :
			    net_link_virtual(sys, ifc) ? "virtual interface: no link speed, whatever it reports" :
			    "no speed in /sys/class/net (link down or not reported)");
	}
	snprintf(sys, sizeof(sys), "/sys/class/net/%s/mtu", ifc);
	memset(&out->mtu, 0, sizeof(out->mtu));
	if (read_line(root, sys, buf, sizeof(buf)) == 0 && units_parse_int64(buf, 1, INT32_MAX, &mtu) == 0) {
		out->mtu.state = LIMIT_SET;
		out->mtu.value = (double)mtu;
		snprintf(out->mtu.source, sizeof(out->mtu.source), "%.190s", sys);
	} else {
		set_unknown(&out->mtu, "%s", "no mtu in /sys/class/net");
	}

	if (cfg->no_netlink || root[0]) {
		set_unknown(&out->shaper, "%s", "qdiscs not read (no netlink for this root)");
		set_unknown(&out->shaper_in, "%s", "qdiscs not read (no netlink for this root)");
		return;
	}
	out->ifindex = (int)if_nametoindex(ifc);
	if (!out->ifindex) {
		set_unknown(&out->shaper, "no interface %s in this network namespace", ifc);
		set_unknown(&out->shaper_in, "no interface %s in this network namespace", ifc);
		return;
	}
	if (!HAVE_LIBMNL) {
		/* What core/kernel/qdisc.c's stubs would say, without the code that reads their answer. */
		set_unknown(&out->shaper, "%s", "built without libmnl");
		set_unknown(&out->shaper_in, "%s", "built without libmnl");
		return;
	}
	discover_ingress(ifc, out->ifindex, out);
	r = qdisc_dump(out->ifindex, &ql, err, sizeof(err));
	if (r < 0) {
		set_unknown(&out->shaper, "%s", err[0] ? err : strerror(-r));
		qdisc_list_free(&ql);
		return;
	}
	q = qdisc_limiting(&ql);
	memset(&out->shaper, 0, sizeof(out->shaper));
	if (q) {
		out->shaper.state = LIMIT_SET;
		out->shaper.value = qdisc_reach_bps(&ql, q);
		out->shaper_key = *q;
		snprintf(out->shaper_kind, sizeof(out->shaper_kind), "%s", q->kind);
		shaper_source(&ql, q, ifc, out->shaper.source, sizeof(out->shaper.source));
	} else {
		out->shaper.state = LIMIT_NONE;
		out->shaper.value = NAN;
		snprintf(out->shaper.source, sizeof(out->shaper.source), "no shaping qdisc or class on %s (%s%s)",
			 ifc, ql.n ? ql.v[0].kind : "no qdisc", ql.n > 1 ? ", ..." : "");
	}
	qdisc_list_free(&ql);
}

/* DIR shown without the fixture root LOC was read under. */
static const char *shown(const struct cgroup_loc *loc, const char *dir)
{
	return strlen(dir) > loc->rootlen ? dir + loc->rootlen : "/";
}

/* DIR's cgroup path in controller C's hierarchy ("/x/y"), for a reason. */
static const char *cg_rel(const struct cgroup_loc *loc, enum cg_ctrl c, const char *dir)
{
	size_t n = strlen(loc->top[c]);

	while (n > 0 && loc->top[c][n - 1] == '/')
		n--;
	if (strncmp(dir, loc->top[c], n))
		return dir;
	return dir[n] ? dir + n : "/";
}

/*
 * Where the usage of the cpu cgroup DIR that holds the quota is read: its
 * own cpu.stat (v2: usage_usec), or the cpuacct group at the same path
 * (v1; the same directory when cpu and cpuacct share a hierarchy). Never
 * another level: the process's own cpuacct group, when cpu and cpuacct
 * are mounted apart, can be the root, which counts the whole box. Where
 * there is none, the usage is unknown and cpu_usage_source says why.
 */
static void cpu_usage_dir(const struct cgroup_loc *loc, const char *dir, struct limits *out)
{
	int r;

	out->cpu_ver = loc->version[CG_CPU];
	snprintf(out->cpu_dir, sizeof(out->cpu_dir), "%s", dir);
	if (out->cpu_ver == 2) {
		snprintf(out->cpu_usage_source, sizeof(out->cpu_usage_source), "cpu.stat usage_usec in %.160s",
			 shown(loc, dir));
		return;
	}
	r = cgroup_same_path(loc, CG_CPU, dir, CG_CPUACCT, out->cpuacct_dir, sizeof(out->cpuacct_dir));
	if (r == 0) {
		snprintf(out->cpu_usage_source, sizeof(out->cpu_usage_source), "cpuacct.usage in %.160s",
			 shown(loc, out->cpuacct_dir));
		return;
	}
	out->cpuacct_dir[0] = '\0';
	switch (r) {
	case -ENODEV:
		snprintf(out->cpu_usage_source, sizeof(out->cpu_usage_source), "unknown: %.100s",
			 loc->why[CG_CPUACCT][0] ? loc->why[CG_CPUACCT] : "cpuacct not in a cgroup v1 hierarchy");
		break;
	case -EXDEV:
		snprintf(out->cpu_usage_source, sizeof(out->cpu_usage_source),
			 "unknown: the process's cpuacct group is not at or below %.120s", cg_rel(loc, CG_CPU, dir));
		break;
	case -ENOENT:
		snprintf(out->cpu_usage_source, sizeof(out->cpu_usage_source), "unknown: no cpuacct group %.120s",
			 cg_rel(loc, CG_CPU, dir));
		break;
	default:
		snprintf(out->cpu_usage_source, sizeof(out->cpu_usage_source), "unknown: cpuacct group: %s",
			 strerror(-r));
		break;
	}
}

#define SAMPLED_HOW "the highest %s at every snapshot and span edge (a shorter rise can be missed)"

/* How the peak of the memory cgroup in OUT->mem_dir is taken over a window; see limits.h. */
static void mem_peak_how(const struct limits_config *cfg, struct limits *out)
{
	if (out->mem_ver == 2) {
		/* Decided at the first span: the kernel takes the reset or refuses it. */
		out->mem_peak_how = LIMITS_PEAK_RESET;
		snprintf(out->mem_peak_method, sizeof(out->mem_peak_method),
			 "memory.peak reset at each span's start through engpass's own descriptor (the reset is that "
			 "descriptor's alone)");
		return;
	}
	if (cfg->own_mem_dir && !strcmp(cfg->own_mem_dir, out->mem_dir)) {
		out->mem_peak_how = LIMITS_PEAK_RESET;
		snprintf(out->mem_peak_method, sizeof(out->mem_peak_method),
			 "memory.max_usage_in_bytes of engpass's own cgroup, reset (0 written) at each span's start");
		return;
	}
	out->mem_peak_how = LIMITS_PEAK_SAMPLED;
	snprintf(out->mem_peak_method, sizeof(out->mem_peak_method), SAMPLED_HOW "; memory.max_usage_in_bytes is "
		 "the mark since the cgroup was made, not engpass's to reset", "memory.usage_in_bytes");
}

void limits_discover(const struct limits_config *cfg, struct limits *out)
{
	static const struct limits_config none;
	struct cgroup_loc *loc = xcalloc(1, sizeof(*loc));
	struct cg_value v[4];
	int r;

	if (!cfg)
		cfg = &none;
	memset(out, 0, sizeof(*out));
	out->discovered = true;
	r = cgroup_locate(root_of(cfg), cfg->pid, loc);
	(void)r;	/* per-controller reasons are in loc->why */

	cgroup_cpu_quota(loc, &v[0]);
	from_cg(&out->cpu_quota, &v[0]);
	if (v[0].state == CG_SET)
		cpu_usage_dir(loc, v[0].dir, out);
	cgroup_cpu_weight(loc, &v[0]);
	from_cg(&out->cpu_weight, &v[0]);
	discover_cpus(cfg, loc, out);
	discover_nice(cfg, out);

	cgroup_memory(loc, &v[0], &v[1], &v[2]);
	from_cg(&out->mem_max, &v[0]);
	from_cg(&out->mem_high, &v[1]);
	from_cg(&out->swap_max, &v[2]);
	out->mem_peak_fd = -1;
	if (v[0].state == CG_SET || v[1].state == CG_SET) {
		out->mem_ver = loc->version[CG_MEMORY];
		snprintf(out->mem_dir, sizeof(out->mem_dir), "%s", v[0].state == CG_SET ? v[0].dir : v[1].dir);
		mem_peak_how(cfg, out);
	}

	if (cfg->dev_name && cfg->dev_name[0]) {
		snprintf(out->io_dev, sizeof(out->io_dev), "%s", cfg->dev_name);
		out->dev_major = cfg->dev_major;
		out->dev_minor = cfg->dev_minor;
		cgroup_io(loc, cfg->dev_major, cfg->dev_minor, &v[0], &v[1], &v[2], &v[3]);
		from_cg(&out->io_rbps, &v[0]);
		from_cg(&out->io_wbps, &v[1]);
		from_cg(&out->io_riops, &v[2]);
		from_cg(&out->io_wiops, &v[3]);
		{
			char sys[PATH_MAX];

			/* The link the device negotiated: the verdict's "bus" candidate. */
			if (!proc_path(sys, sizeof(sys), "%s/sys", root_of(cfg)))
				out->dev_link_read = devlink_read(sys, cfg->dev_name, &out->dev_link) == 0;
		}
		if (loc->version[CG_IO]) {
			/* The work's own cgroup: its serviced bytes are the work's. */
			out->io_ver = loc->version[CG_IO];
			snprintf(out->io_dir, sizeof(out->io_dir), "%s", loc->dir[CG_IO]);
		}
	} else {
		struct limit *io[] = { &out->io_rbps, &out->io_wbps, &out->io_riops, &out->io_wiops };

		for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++) {
			io[i]->state = LIMIT_NONE;
			io[i]->value = NAN;
			snprintf(io[i]->source, sizeof(io[i]->source), "no device under test in this step");
		}
	}
	discover_iface(cfg, out);
	discover_rlimits(cfg, out);
	free(loc);
}

void limits_counters_read(const struct limits_config *cfg, const struct limits *lim, struct limits_counters *out)
{
	memset(out, 0, sizeof(*out));
	out->t_ns = clock_mono();
	if (!lim || !lim->discovered)
		return;
	if (lim->cpu_quota.state == LIMIT_SET && lim->cpu_dir[0]) {
		struct cg_cpu_stat st;

		if (cgroup_cpu_stat(lim->cpu_dir, lim->cpu_ver, lim->cpuacct_dir[0] ? lim->cpuacct_dir : NULL, &st) ==
		    0) {
			out->cpu_ok = true;
			out->cpu_usage_ns = st.usage_ns;
			out->cpu_periods = st.periods;
			out->cpu_throttled = st.throttled;
			out->cpu_throttled_ns = st.throttled_ns;
		}
	}
	if (lim->io_dir[0] && (lim->io_rbps.state == LIMIT_SET || lim->io_wbps.state == LIMIT_SET ||
			       lim->io_riops.state == LIMIT_SET || lim->io_wiops.state == LIMIT_SET)) {
		struct cg_io_stat st;

		if (cgroup_io_stat(lim->io_dir, lim->io_ver, lim->dev_major, lim->dev_minor, &st) == 0) {
			out->io_ok = true;
			out->io_rbytes = st.rbytes;
			out->io_wbytes = st.wbytes;
			out->io_rios = st.rios;
			out->io_wios = st.wios;
		}
	}
	if (lim->mem_dir[0]) {
		struct cg_mem_stat st;

		if (cgroup_mem_stat(lim->mem_dir, lim->mem_ver, &st) == 0) {
			out->mem_ok = true;
			out->mem_usage = st.usage;
			out->mem_peak = st.peak;
			out->mem_hits = st.hits;
			out->mem_high = st.high;
			out->mem_oom = st.oom;
		}
	}
	if (out->mem_ok && lim->mem_peak_fd >= 0) {
		char buf[32];
		ssize_t n = pread(lim->mem_peak_fd, buf, sizeof(buf) - 1, 0);
		uint64_t v;

		buf[n > 0 ? n : 0] = 0;
		if (n > 0 && !cgroup_parse_u64_or_max(buf, &v) && v != UINT64_MAX) {
			out->mem_peak = v;
			out->mem_peak_reset = true;
		}
	} else if (out->mem_ok && lim->mem_peak_how == LIMITS_PEAK_RESET && lim->mem_ver == 1) {
		out->mem_peak_reset = true;
	}
	if (HAVE_LIBMNL && lim->shaper_in.state == LIMIT_SET && lim->ifb_ifindex > 0 && !(cfg && cfg->no_netlink)) {
		struct qdisc_list ql = { 0 };
		char err[64];
		const struct qdisc_info *q;

		if (qdisc_dump(lim->ifb_ifindex, &ql, err, sizeof(err)) == 0 &&
		    (q = qdisc_find(&ql, &lim->shaper_in_key)) && q->have_stats) {
			out->qin_ok = true;
			out->qin_bytes = q->bytes;
			out->qin_drops = q->drops;
			out->qin_overlimits = q->overlimits;
			out->qin_backlog = q->backlog;
		}
		qdisc_list_free(&ql);
	}
	if (HAVE_LIBMNL && lim->shaper.state == LIMIT_SET && lim->ifindex > 0 && !(cfg && cfg->no_netlink)) {
		struct qdisc_list ql = { 0 };
		char err[64];
		const struct qdisc_info *q;

		if (qdisc_dump(lim->ifindex, &ql, err, sizeof(err)) == 0 && (q = qdisc_find(&ql, &lim->shaper_key)) &&
		    q->have_stats) {
			out->qdisc_ok = true;
			out->q_bytes = q->bytes;
			out->q_drops = q->drops;
			out->q_overlimits = q->overlimits;
			out->q_backlog = q->backlog;
		}
		qdisc_list_free(&ql);
	}
}

/* Turns LIM's peak to sampling after a reset that failed with R. */
static void peak_unresettable(struct limits *lim, const char *what, int r)
{
	lim->mem_peak_how = LIMITS_PEAK_SAMPLED;
	snprintf(lim->mem_peak_method, sizeof(lim->mem_peak_method), SAMPLED_HOW "; %s cannot be reset here (%s)",
		 lim->mem_ver == 2 ? "memory.current" : "memory.usage_in_bytes", what,
		 r == -EACCES || r == -EINVAL || r == -EBADF ? "refused: Linux before 6.12" : strerror(-r));
}

void limits_span_begin(const struct limits_config *cfg, struct limits *lim, struct limits_counters *out)
{
	char path[PATH_MAX + 32];

	if (lim && lim->discovered && lim->mem_dir[0] && lim->mem_peak_how == LIMITS_PEAK_RESET) {
		int fd, r = 0;

		limits_release(lim);
		snprintf(path, sizeof(path), "%s/%s", lim->mem_dir,
			 lim->mem_ver == 2 ? "memory.peak" : "memory.max_usage_in_bytes");
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			r = -errno;
		else if (write(fd, lim->mem_ver == 2 ? "reset\n" : "0\n", lim->mem_ver == 2 ? 6 : 2) < 0)
			r = -errno;
		if (fd >= 0 && (r || lim->mem_ver == 1))
			close(fd);
		else if (fd >= 0)
			lim->mem_peak_fd = fd;
		if (r)
			peak_unresettable(lim, lim->mem_ver == 2 ? "memory.peak" : "memory.max_usage_in_bytes", r);
	}
	limits_counters_read(cfg, lim, out);
	if (lim && lim->mem_peak_fd >= 0 && !out->mem_peak_reset) {
		/* The descriptor reads no number after the reset: not the kernel's reset file. */
		limits_release(lim);
		peak_unresettable(lim, "memory.peak", -EINVAL);
	}
}

void limits_span_end(const struct limits_config *cfg, struct limits *lim, struct limits_counters *out)
{
	limits_counters_read(cfg, lim, out);
	if (lim)
		limits_release(lim);
}

void limits_release(struct limits *lim)
{
	if (lim && lim->discovered && lim->mem_peak_fd >= 0) {
		close(lim->mem_peak_fd);
		lim->mem_peak_fd = -1;
	}
}

int limits_mem_sample(const struct limits *lim, uint64_t *seen)
{
	char path[PATH_MAX + 32], buf[32];
	uint64_t v;
	int r;

	if (!lim || !lim->discovered || !lim->mem_dir[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", lim->mem_dir,
		 lim->mem_ver == 2 ? "memory.current" : "memory.usage_in_bytes");
	if ((r = proc_read_line(path, buf, sizeof(buf))) < 0)
		return r;
	if (cgroup_parse_u64_or_max(buf, &v) || v == UINT64_MAX)
		return -EINVAL;
	if (v > *seen)
		*seen = v;
	return 0;
}

/* B - A when the counter did not go backwards (a reset, a re-created cgroup), else NAN. */
static double diff(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) : NAN;
}

static void add(double *acc, double d)
{
	if (!isnan(d))
		*acc += d;
}

void limits_span_add(struct limits_span *acc, const struct limits_counters *a, const struct limits_counters *b)
{
	double s = b->t_ns > a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9 : 0;

	acc->seconds += s;
	if (a->cpu_ok && b->cpu_ok) {
		acc->cpu_s += s;
		if (a->cpu_usage_ns != UINT64_MAX && b->cpu_usage_ns != UINT64_MAX)
			add(&acc->cpu_usage_ns, diff(a->cpu_usage_ns, b->cpu_usage_ns));
		else
			acc->cpu_usage_ns = NAN;
		add(&acc->cpu_periods, diff(a->cpu_periods, b->cpu_periods));
		add(&acc->cpu_throttled, diff(a->cpu_throttled, b->cpu_throttled));
		add(&acc->cpu_throttled_ns, diff(a->cpu_throttled_ns, b->cpu_throttled_ns));
	}
	if (a->io_ok && b->io_ok) {
		acc->io_s += s;
		add(&acc->io_rbytes, diff(a->io_rbytes, b->io_rbytes));
		add(&acc->io_wbytes, diff(a->io_wbytes, b->io_wbytes));
		add(&acc->io_rios, diff(a->io_rios, b->io_rios));
		add(&acc->io_wios, diff(a->io_wios, b->io_wios));
	}
	if (a->mem_ok && b->mem_ok) {
		/*
		 * The kernel's mark only when it was reset at this span's start:
		 * otherwise it holds whatever ran in the cgroup before.
		 */
		uint64_t top = a->mem_usage > b->mem_usage ? a->mem_usage : b->mem_usage;
		double peak;

		if (b->mem_sampled > top)
			top = b->mem_sampled;
		if (b->mem_peak_reset && b->mem_peak != UINT64_MAX && b->mem_peak > top)
			top = b->mem_peak;
		peak = (double)top;

		acc->mem_s += s;
		if (peak > acc->mem_peak)
			acc->mem_peak = peak;
		add(&acc->mem_hits, diff(a->mem_hits, b->mem_hits));
		add(&acc->mem_high, diff(a->mem_high, b->mem_high));
		add(&acc->mem_oom, diff(a->mem_oom, b->mem_oom));
	}
	if (a->qdisc_ok && b->qdisc_ok) {
		acc->q_s += s;
		add(&acc->q_bytes, diff(a->q_bytes, b->q_bytes));
		add(&acc->q_drops, diff(a->q_drops, b->q_drops));
		add(&acc->q_overlimits, diff(a->q_overlimits, b->q_overlimits));
		if (a->q_backlog > acc->q_backlog_max)
			acc->q_backlog_max = a->q_backlog;
		if (b->q_backlog > acc->q_backlog_max)
			acc->q_backlog_max = b->q_backlog;
	}
	if (a->qin_ok && b->qin_ok) {
		acc->qin_s += s;
		add(&acc->qin_bytes, diff(a->qin_bytes, b->qin_bytes));
		add(&acc->qin_drops, diff(a->qin_drops, b->qin_drops));
		add(&acc->qin_overlimits, diff(a->qin_overlimits, b->qin_overlimits));
		if (a->qin_backlog > acc->qin_backlog_max)
			acc->qin_backlog_max = a->qin_backlog;
		if (b->qin_backlog > acc->qin_backlog_max)
			acc->qin_backlog_max = b->qin_backlog;
	}
}

void limits_span_view(const struct limits_span *acc, struct sysview *v)
{
	if (acc->cpu_s > 0) {
		v->cg_cpu_usage_pct = acc->cpu_usage_ns / 1e9 / acc->cpu_s * 100;
		v->cg_cpu_throttled_pct = acc->cpu_periods > 0 ? acc->cpu_throttled / acc->cpu_periods * 100 : 0;
		v->cg_cpu_throttled_s = acc->cpu_throttled_ns / 1e9;
	}
	if (acc->io_s > 0) {
		v->cg_io_read_bytes_per_s = acc->io_rbytes / acc->io_s;
		v->cg_io_write_bytes_per_s = acc->io_wbytes / acc->io_s;
		v->cg_io_reads_per_s = acc->io_rios / acc->io_s;
		v->cg_io_writes_per_s = acc->io_wios / acc->io_s;
	}
	if (acc->mem_s > 0) {
		v->cg_mem_peak_bytes = acc->mem_peak;
		v->cg_mem_limit_hits = acc->mem_hits;
		v->cg_mem_high_events = acc->mem_high;
		v->cg_mem_oom_events = acc->mem_oom;
	}
	if (acc->q_s > 0) {
		v->qdisc_bytes_per_s = acc->q_bytes / acc->q_s;
		v->qdisc_drops = acc->q_drops;
		v->qdisc_overlimits = acc->q_overlimits;
		v->qdisc_backlog_max_bytes = acc->q_backlog_max;
	}
	if (acc->qin_s > 0) {
		v->qdisc_in_bytes_per_s = acc->qin_bytes / acc->qin_s;
		v->qdisc_in_drops = acc->qin_drops;
		v->qdisc_in_overlimits = acc->qin_overlimits;
		v->qdisc_in_backlog_max_bytes = acc->qin_backlog_max;
	}
}

void limit_describe(const struct limit *l, const char *unit, char *buf, size_t len)
{
	char v[UNITS_FMT_LEN];

	switch (l->state) {
	case LIMIT_UNKNOWN:
		snprintf(buf, len, "unknown (%s)", l->why[0] ? l->why : "not read");
		return;
	case LIMIT_NONE:
		snprintf(buf, len, "none (%s)", l->source[0] ? l->source : "nothing set");
		return;
	case LIMIT_SET:
		break;
	}
	if (!strcmp(unit, "cpus"))
		snprintf(v, sizeof(v), "%.2f CPU", l->value);
	else if (!strcmp(unit, "bytes"))
		units_fmt_size(v, sizeof(v), l->value, 0);
	else if (!strcmp(unit, "bytes/s"))
		units_fmt_size(v, sizeof(v), l->value, UNITS_FMT_PER_S);
	else if (!strcmp(unit, "bits/s"))
		units_fmt_bits(v, sizeof(v), l->value);
	else
		snprintf(v, sizeof(v), "%.0f%s%s", l->value, unit[0] ? " " : "", unit);
	snprintf(buf, len, "%s (%s)", v, l->source);
}
