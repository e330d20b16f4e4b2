/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the /proc and /sys text parsers of src/core/kernel/proc.c
 * (mount tables included), src/core/kernel/blkdev.c, src/core/work/sandbox.c and
 * src/core/kernel/cgroup.c. The first byte picks the parser, the rest is the
 * file's text, handed over in a buffer of exactly its length (no NUL after
 * it), so a parser that reads past LEN is caught by AddressSanitizer. What
 * parses is fed to the lookup and delta functions against itself, the way
 * the sampler uses two snapshots. Selector 12 is the cgroup parsers: the
 * next byte picks one, and they get NUL-terminated text, as they take it.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/kernel/blkdev.h"
#include "core/kernel/cgroup.h"
#include "core/kernel/proc.h"
#include "core/work/sandbox.h"
#include "core/kernel/thermal.h"
#include "fuzz.h"

static void stat_text(const char *buf, size_t len)
{
	struct proc_stat st;
	struct proc_cpu_pct pct;

	proc_stat_init(&st);
	if (proc_stat_parse(&st, buf, len) == 0) {
		for (size_t i = 0; i < st.ncpu; i++) {
			const struct proc_cpu_times *c = proc_stat_find_cpu(&st, st.cpu[i].cpu);

			if (!c || proc_cpu_delta(c, &st.cpu[i], &pct) != -ENODATA)
				abort();	/* it must find its own lines, and no tick passed */
		}
		if (proc_cpu_delta(&st.all, &st.all, &pct) != -ENODATA)
			abort();
	}
	proc_stat_release(&st);
}

static void diskstats_text(const char *buf, size_t len)
{
	struct proc_diskstats ds;
	struct proc_disk_rates r;

	proc_diskstats_init(&ds);
	if (proc_diskstats_parse(&ds, buf, len) == 0) {
		for (size_t i = 0; i < ds.n; i++) {
			const struct proc_disk *d = proc_diskstats_find(&ds, ds.disk[i].major, ds.disk[i].minor, i);

			if (!d || proc_disk_delta(d, &ds.disk[i], 1.0, &r))
				abort();
		}
	}
	proc_diskstats_release(&ds);
}

static void netdev_text(const char *buf, size_t len)
{
	struct proc_netdev nd;
	struct proc_net_rates r;

	proc_netdev_init(&nd);
	if (proc_netdev_parse(&nd, buf, len) == 0) {
		for (size_t i = 0; i < nd.n; i++) {
			const struct proc_netif *f = proc_netdev_find(&nd, nd.iface[i].name, i);

			if (!f || proc_netif_delta(f, &nd.iface[i], 1.0, &r))
				abort();
		}
	}
	proc_netdev_release(&nd);
}

/* Both mount-table layouts over the same text: every mount found is a whole line's. */
static void mount_text(const char *buf, size_t len)
{
	struct proc_mount *m = xmalloc(sizeof(*m));

	for (int fmt = PROC_MOUNTINFO; fmt <= PROC_MOUNTS; fmt++) {
		const char *pos = buf;
		unsigned bad = 0;

		while (proc_mount_next(m, (enum proc_mount_format)fmt, &pos, buf + len, &bad))
			if (pos > buf + len || !m->mount_point[0] || !m->fs_type[0])
				abort();
		if (pos != buf + len)
			abort();	/* the whole text was walked */
	}
	free(m);
}

static void other_text(unsigned which, const char *buf, size_t len)
{
	struct proc_meminfo mi;
	struct proc_vmstat vm;
	struct proc_vm_rates vr;
	struct proc_psi psi;
	struct proc_pid_stat ps;
	struct proc_pid_status pst;
	double pct;

	switch (which) {
	case 3:
		if (proc_meminfo_parse(&mi, buf, len)) {
			/* rejected: nothing more to check */
		}
		break;
	case 4:
		if (proc_vmstat_parse(&vm, buf, len) == 0 && proc_vmstat_delta(&vm, &vm, 1.0, &vr))
			abort();
		break;
	case 5:
		if (proc_psi_parse(&psi, buf, len) == 0 && proc_psi_delta(&psi.some, &psi.some, 1.0, &pct))
			abort();
		break;
	case 6:
		if (proc_pid_stat_parse(&ps, buf, len) == 0 && proc_pid_cpu_pct(&ps, &ps, 100, 1.0, &pct))
			abort();
		break;
	case 7:
		if (proc_pid_status_parse(&pst, buf, len)) {
			/* rejected: nothing more to check */
		}
		break;
	default:
		if (proc_cpulist_count(buf, len) < -EINVAL)
			abort();
		break;
	}
}

/* /sys/block/DEV/queue/scheduler, which blkdev reads as a C string. */
static void scheduler_text(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), active[32], list[128];

	if (blkdev_parse_scheduler(s, active, sizeof(active), list, sizeof(list)) == 0)
		(void)blkdev_offers(list, active);
	free(s);
}

/* /proc/self/mountinfo, a NUL, then /proc/self/cgroup, as sandbox_find_memcg() takes them. */
static void memcg_text(const uint8_t *data, size_t size)
{
	char *mi = fuzz_cstr(data, size);
	size_t milen = strlen(mi);
	struct sandbox_memcg mc;

	if (sandbox_find_memcg(mi, milen < size ? mi + milen + 1 : "", &mc)) {
		/* no memory controller found: fine */
	}
	free(mi);
}

/*
 * The cgroup file parsers of src/core/kernel/cgroup.c, which take NUL-terminated
 * text: the byte after the selector picks one, the rest is the file.
 * Whatever parses must be something the kernel could have written.
 */
static int cgroup_proc_line(void *arg, int id, const char *ctrls, const char *path)
{
	(void)ctrls;
	if (id < 0 || path[0] != '/' || strchr(path, '\n'))
		abort();
	++*(unsigned *)arg;
	return id == 1234 ? 1 : 0;
}

static void cgroup_text(const uint8_t *data, size_t size)
{
	char *s;
	unsigned lines = 0;
	int64_t quota, period;
	uint64_t v, rd, wr, io[4];
	struct cg_io_stat st;
	int r;

	if (size < 1)
		return;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 8) {
	case 0:
		r = cgroup_parse_proc(s, cgroup_proc_line, &lines);
		if ((r == 0 && !lines) || (r != 0 && r != 1 && r != -EINVAL))
			abort();
		break;
	case 1:
		if (cgroup_parse_cpu_max(s, &quota, &period) == 0 && (period <= 0 || (quota != -1 && quota <= 0)))
			abort();
		break;
	case 2:
		r = cgroup_parse_dev_value(s, 8, 0, &v);
		if (r != 0 && r != -ENOENT && r != -EINVAL)
			abort();
		break;
	case 3:
		r = cgroup_parse_io_max(s, 8, 0, io);
		if (r != 0 && r != -ENOENT && r != -EINVAL)
			abort();
		break;
	case 4:
		r = cgroup_parse_keyed(s, "nr_throttled", &v);
		if (r != 0 && r != -ENOENT && r != -EINVAL)
			abort();
		break;
	case 5:
		if (cgroup_parse_blkio_stat(s, 8, 0, &rd, &wr) == -EINVAL) {
			/* rejected: nothing more to check */
		}
		break;
	case 6:
		if (cgroup_parse_io_stat(s, 8, 0, &st) == -EINVAL) {
			/* rejected: nothing more to check */
		}
		break;
	default:
		if (cgroup_parse_u64_or_max(s, &v) == 0 && strchr(s, '-'))
			abort();	/* a sign is never a value */
		break;
	}
	free(s);
}

static int sampler_text(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	size_t len;
	unsigned which;

	if (size >= 1 && sampler_text(data, size))
		return 0;
	if (size < 1)
		return 0;
	which = data[0] % 13;
	if (which == 9) {
		scheduler_text(data + 1, size - 1);
		return 0;
	}
	if (which == 10) {
		memcg_text(data + 1, size - 1);
		return 0;
	}
	if (which == 12) {
		cgroup_text(data + 1, size - 1);
		return 0;
	}
	/* Exactly LEN bytes on the heap: no NUL after them to hide an over-read. */
	len = size - 1;
	buf = xmalloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	if (which == 0)
		stat_text(buf, len);
	else if (which == 1)
		diskstats_text(buf, len);
	else if (which == 2)
		netdev_text(buf, len);
	else if (which == 11)
		mount_text(buf, len);
	else
		other_text(which, buf, len);
	free(buf);
	return 0;
}

/*
 * The sampler's parsers of issue #18, on first bytes 0xf0 and up (so the
 * selectors below them keep their meaning): 0xf0 a task's schedstat,
 * 0xf1 /proc/net/snmp, 0xf2 the sysfs heat values (core/kernel/thermal.c: a
 * temperature in millidegrees, a throttle counter or cooling state).
 * Returns 1 if it took the input.
 */
static int sampler_text(const uint8_t *data, size_t size)
{
	struct proc_snmp_udp u;
	uint64_t run, wait;
	size_t len = size - 1;
	char *buf;

	if (data[0] != 0xf0 && data[0] != 0xf1 && data[0] != 0xf2)
		return 0;
	buf = xmalloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	if (data[0] == 0xf0) {
		if (proc_schedstat_parse(buf, len, &run, &wait) ? run != PROC_NONE || wait != PROC_NONE
								  : run == PROC_NONE || wait == PROC_NONE)
			abort();	/* both known exactly when it parses */
	} else if (data[0] == 0xf2) {
		double c;
		uint64_t n;
		int r = thermal_parse_millideg(buf, len, &c);

		if ((r == 0 && !(c >= THERMAL_MIN_C && c <= THERMAL_MAX_C)) || (r && r != -EINVAL && r != -ERANGE))
			abort();	/* a reading is always plausible */
		if (thermal_parse_count(buf, len, &n) == 0 && memchr(buf, '-', len))
			abort();	/* a sign is never a count */
	} else if (proc_snmp_udp_parse(&u, buf, len) == 0) {
		if (u.in_errors == PROC_NONE && u.rcvbuf_errors == PROC_NONE)
			abort();	/* success means at least one field */
	}
	free(buf);
	return 1;
}
