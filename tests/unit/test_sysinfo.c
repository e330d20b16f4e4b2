/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/sysinfo and its renderers out/info. Most tests run
 * sysinfo_collect() against recorded trees in tests/fixtures/sysinfo/ (see
 * the README there) and check every parsed field; one test runs on the
 * real /proc and /sys and checks only that the answers are sane.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel/sysinfo.h"
#include "out/info.h"
#include "lib/jw.h"

struct fx {
	char proc[PATH_MAX];
	char sys[PATH_MAX];
	struct sysinfo si;
};

static const char *fixtures_dir(void)
{
	const char *d = getenv("ENGPASS_FIXTURES");

	return d && *d ? d : "tests/fixtures";
}

/* Collects from tests/fixtures/sysinfo/NAME without calibration or probes. */
static void collect_fixture(struct fx *fx, const char *name)
{
	struct sysinfo_opts o = { 0 };

	snprintf(fx->proc, sizeof(fx->proc), "%s/sysinfo/%s/proc", fixtures_dir(), name);
	snprintf(fx->sys, sizeof(fx->sys), "%s/sysinfo/%s/sys", fixtures_dir(), name);
	if (access(fx->proc, R_OK) && strcmp(name, "missing"))
		fail_msg("fixture '%s' not found; set ENGPASS_FIXTURES", fx->proc);
	o.proc_root = fx->proc;
	o.sys_root = fx->sys;
	o.calibrate = false;
	o.probe_uring = false;
	assert_int_equal(sysinfo_collect(&fx->si, &o), 0);
}

static char *render_json(const struct sysinfo *si)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w = JW_INIT(f, false);

	assert_non_null(f);
	info_render_json(&w, NULL, si);
	jw_finish(&w);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *render_table(const struct sysinfo *si)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	info_render_table(f, si);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Brackets balance outside strings and the text ends after the top value. */
static void assert_json_shape(const char *s)
{
	int depth = 0;
	bool in_str = false;

	for (const char *p = s; *p; p++) {
		if (in_str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = false;
			continue;
		}
		if (*p == '"')
			in_str = true;
		else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			assert_true(--depth >= 0);
	}
	assert_false(in_str);
	assert_int_equal(depth, 0);
}

#define assert_has(hay, needle)                                                       \
	do {                                                                          \
		if (!strstr((hay), (needle)))                                         \
			fail_msg("missing %s in:\n%s", (needle), (hay));              \
	} while (0)

/* cmocka 1.1's assert_float_equal works in float; this one in double. */
#define assert_near(a, b)                                                             \
	do {                                                                          \
		double a_ = (a), b_ = (b);                                            \
		if (!(fabs(a_ - b_) <= 1e-9 * fmax(1.0, fabs(b_))))                   \
			fail_msg("%.17g != %.17g", a_, b_);                           \
	} while (0)

static const struct sysinfo_mount *find_mount(const struct sysinfo *si, const char *mp)
{
	for (size_t i = 0; i < si->nr_mounts; i++)
		if (!strcmp(si->mounts[i].mount_point, mp))
			return &si->mounts[i];
	return NULL;
}

static const struct sysinfo_net *find_net(const struct sysinfo *si, const char *name)
{
	for (size_t i = 0; i < si->nr_nets; i++)
		if (!strcmp(si->nets[i].name, name))
			return &si->nets[i];
	return NULL;
}

/* ---- x86 fixture --------------------------------------------------------- */

static void test_x86_cpu(void **state)
{
	struct fx fx;
	const struct sysinfo_cpu *c = &fx.si.cpu;

	(void)state;
	collect_fixture(&fx, "x86");
	assert_string_equal(c->model, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
	assert_null(c->system_type);
	assert_non_null(c->arch); /* from uname of the test machine */
	assert_int_equal(c->configured, 4);
	assert_int_equal(c->online, 3);
	assert_string_equal(c->online_list, "0-1,3");
	assert_int_equal(c->sockets, 1);
	assert_int_equal(c->cores, 2);
	assert_int_equal(c->threads_per_core, 2);

	/* No cpufreq, no calibration: the boot value is all there is. */
	assert_true(isnan(c->cpufreq_cur_mhz));
	assert_true(isnan(c->cpufreq_max_mhz));
	assert_true(isnan(c->calibrated_mhz));
	assert_null(c->calibration_method);
	assert_near(c->cpuinfo_mhz, 2394.454);
	assert_int_equal(c->freq_source, SYSINFO_FREQ_CPUINFO_BOOT);
	assert_near(c->freq_mhz, 2394.454);
	assert_non_null(c->freq_source_detail);
	assert_string_equal(sysinfo_freq_source_name(c->freq_source), "cpuinfo-boot");
	sysinfo_release(&fx.si);
}

static void test_x86_memory_cgroup_v2(void **state)
{
	struct fx fx;
	const struct sysinfo_mem *m = &fx.si.mem;

	(void)state;
	collect_fixture(&fx, "x86");
	assert_int_equal(m->total_bytes, 8388608LL * 1024);
	assert_int_equal(m->available_bytes, 6291456LL * 1024);
	assert_int_equal(m->cgroup_version, 2);
	assert_string_equal(m->cgroup_path, "/system.slice/engpass.service");
	/* Own memory.max is "max"; the parent's 4 GiB binds. */
	assert_int_equal(m->cgroup_limit, SYSINFO_LIMIT_SET);
	assert_int_equal(m->cgroup_limit_bytes, 4294967296LL);
	assert_int_equal(m->effective_bytes, 4294967296LL);
	sysinfo_release(&fx.si);
}

static void test_x86_swap(void **state)
{
	struct fx fx;
	const struct sysinfo_swap *s;

	(void)state;
	collect_fixture(&fx, "x86");
	assert_int_equal(fx.si.nr_swaps, 3);
	s = fx.si.swaps;
	assert_string_equal(s[0].name, "/swap file");
	assert_int_equal(s[0].type, SYSINFO_SWAP_FILE);
	assert_int_equal(s[0].size_bytes, 2097148LL * 1024);
	assert_int_equal(s[0].used_bytes, 1024LL * 1024);
	assert_true(s[0].priority_known);
	assert_int_equal(s[0].priority, -2);
	assert_string_equal(s[1].name, "/dev/sda2");
	assert_int_equal(s[1].type, SYSINFO_SWAP_PARTITION);
	assert_int_equal(s[1].used_bytes, 0);
	assert_int_equal(s[1].priority, -3);
	/* /proc/swaps calls zram a partition; the name says what it is. */
	assert_string_equal(s[2].name, "/dev/zram0");
	assert_int_equal(s[2].type, SYSINFO_SWAP_ZRAM);
	assert_int_equal(s[2].priority, 100);
	assert_string_equal(sysinfo_swap_type_name(s[2].type), "zram");
	assert_int_equal(fx.si.swappiness, 60);
	assert_int_equal(fx.si.page_cluster, 3);
	assert_int_equal(fx.si.zswap_enabled, SYSINFO_NO);
	sysinfo_release(&fx.si);
}

static void test_x86_block(void **state)
{
	struct fx fx;
	const struct sysinfo_blk *b;

	(void)state;
	collect_fixture(&fx, "x86");
	/* Sorted; ram0 and the empty loop0 are left out. */
	assert_int_equal(fx.si.nr_blks, 3);
	assert_string_equal(fx.si.blks[0].name, "loop1");
	assert_string_equal(fx.si.blks[1].name, "sda");
	assert_string_equal(fx.si.blks[2].name, "vda");

	b = &fx.si.blks[0];
	assert_int_equal(b->size_bytes, 2048LL * 512);
	assert_int_equal(b->readonly, SYSINFO_YES);
	assert_string_equal(b->scheduler, "none");
	assert_string_equal(b->schedulers, "none");
	assert_int_equal(b->nr_requests, -1);
	assert_null(b->write_cache);

	b = &fx.si.blks[1];
	assert_int_equal(b->size_bytes, 31266816LL * 512);
	assert_int_equal(b->rotational, SYSINFO_YES);
	assert_int_equal(b->removable, SYSINFO_YES);
	assert_int_equal(b->readonly, SYSINFO_NO);
	assert_string_equal(b->scheduler, "none");
	assert_string_equal(b->schedulers, "none mq-deadline");
	assert_int_equal(b->read_ahead_kb, 4096);
	assert_int_equal(b->nr_requests, 2);
	assert_int_equal(b->max_sectors_kb, 240);
	assert_string_equal(b->write_cache, "write through");
	assert_int_equal(b->logical_block_bytes, 512);
	assert_int_equal(b->physical_block_bytes, 4096);
	assert_string_equal(b->model, "Cruzer Blade");

	b = &fx.si.blks[2];
	assert_int_equal(b->size_bytes, 67108864LL * 512);
	assert_int_equal(b->rotational, SYSINFO_YES);
	assert_int_equal(b->removable, SYSINFO_NO);
	assert_string_equal(b->scheduler, "mq-deadline");
	assert_string_equal(b->schedulers, "none mq-deadline kyber bfq");
	assert_int_equal(b->read_ahead_kb, 128);
	assert_int_equal(b->nr_requests, 256);
	assert_int_equal(b->max_sectors_kb, 1280);
	assert_string_equal(b->write_cache, "write back");
	assert_int_equal(b->logical_block_bytes, 512);
	assert_int_equal(b->physical_block_bytes, 512);
	assert_null(b->model);
	sysinfo_release(&fx.si);
}

static void test_x86_mounts(void **state)
{
	struct fx fx;
	const struct sysinfo_mount *m;

	(void)state;
	collect_fixture(&fx, "x86");
	/* udev, /, /run, usb stick, mail, async; pseudo file systems left out. */
	assert_int_equal(fx.si.nr_mounts, 6);
	for (size_t i = 0; i < fx.si.nr_mounts; i++) {
		const char *t = fx.si.mounts[i].fs_type;

		assert_true(strcmp(t, "sysfs") && strcmp(t, "proc") && strcmp(t, "cgroup2") &&
			    strcmp(t, "devpts") && strcmp(t, "debugfs") && strcmp(t, "bpf") &&
			    strcmp(t, "securityfs") && strcmp(t, "mqueue") &&
			    strcmp(t, "hugetlbfs"));
	}
	m = find_mount(&fx.si, "/media/usb stick");
	assert_non_null(m);
	assert_string_equal(m->device, "/dev/sdb1");
	assert_string_equal(m->fs_type, "vfat");
	assert_string_equal(m->options, "rw,sync,relatime,fmask=0022,dmask=0022,codepage=437");
	assert_true(m->sync);
	m = find_mount(&fx.si, "/srv/mail");
	assert_non_null(m);
	assert_true(m->sync); /* dirsync */
	m = find_mount(&fx.si, "/srv/async");
	assert_non_null(m);
	assert_false(m->sync); /* "async" is not "sync" */
	m = find_mount(&fx.si, "/");
	assert_non_null(m);
	assert_string_equal(m->device, "/dev/vda1");
	assert_false(m->sync);
	m = find_mount(&fx.si, "/run");
	assert_non_null(m);
	assert_string_equal(m->fs_type, "tmpfs");
	sysinfo_release(&fx.si);
}

static void test_x86_net(void **state)
{
	struct fx fx;
	const struct sysinfo_net *n;

	(void)state;
	collect_fixture(&fx, "x86");
	assert_int_equal(fx.si.nr_nets, 3); /* bonding_masters is a file */
	assert_string_equal(fx.si.nets[0].name, "eth0");
	assert_string_equal(fx.si.nets[1].name, "lo");
	assert_string_equal(fx.si.nets[2].name, "wlan0");

	n = find_net(&fx.si, "eth0");
	assert_int_equal(n->mtu_bytes, 1500);
	assert_string_equal(n->operstate, "up");
	assert_int_equal(n->speed_mbit_per_s, 1000);
	assert_string_equal(n->driver, "e1000e");
	assert_false(n->is_virtual);

	n = find_net(&fx.si, "lo");
	assert_int_equal(n->mtu_bytes, 65536);
	assert_string_equal(n->operstate, "unknown");
	assert_int_equal(n->speed_mbit_per_s, -1); /* "-1" */
	assert_null(n->driver);
	assert_true(n->is_virtual);

	n = find_net(&fx.si, "wlan0");
	assert_int_equal(n->speed_mbit_per_s, -1); /* empty file */
	assert_null(n->driver);			   /* device without a driver link */
	assert_false(n->is_virtual);
	sysinfo_release(&fx.si);
}

static void test_x86_kernel_virt_uring(void **state)
{
	struct fx fx;
	long tck = sysconf(_SC_CLK_TCK);

	(void)state;
	collect_fixture(&fx, "x86");
	assert_string_equal(fx.si.kernel.release, "6.1.0-18-amd64");
	assert_string_equal(fx.si.kernel.version,
			    "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)");
	assert_string_equal(fx.si.kernel.hostname, "testbox");
	assert_non_null(fx.si.kernel.machine);

	assert_int_equal(fx.si.virt.hypervisor_flag, SYSINFO_YES);
	assert_string_equal(fx.si.virt.hypervisor_type, "xen");
	assert_string_equal(fx.si.virt.dmi_vendor, "QEMU");
	assert_string_equal(fx.si.virt.dmi_product, "Standard PC (Q35 + ICH9, 2009)");
	assert_true(tck > 0);
	assert_near(fx.si.virt.steal_seconds, 250.0 / (double)tck);

	assert_int_equal(fx.si.uring.state, SYSINFO_URING_NOT_PROBED);
	assert_null(fx.si.uring.text);
	assert_int_equal(fx.si.uring.disabled_sysctl, 2);
	sysinfo_release(&fx.si);
}

static void test_x86_json(void **state)
{
	struct fx fx;
	char *j;

	(void)state;
	collect_fixture(&fx, "x86");
	j = render_json(&fx.si);
	assert_json_shape(j);
	assert_true(j[0] == '{');
	assert_has(j, "\"model\":\"Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\"");
	assert_has(j, "\"freq_mhz\":2394.454");
	assert_has(j, "\"freq_source\":\"cpuinfo-boot\"");
	assert_has(j, "\"calibrated_mhz\":null");
	assert_has(j, "\"cpufreq_cur_mhz\":null");
	assert_has(j, "\"calibration\":null");
	assert_has(j, "\"mem_total_bytes\":8589934592");
	assert_has(j, "\"mem_available_bytes\":6442450944");
	assert_has(j, "\"cgroup_memory_limit\":\"set\"");
	assert_has(j, "\"cgroup_memory_limit_bytes\":4294967296");
	assert_has(j, "\"effective_memory_bytes\":4294967296");
	assert_has(j, "{\"name\":\"/dev/zram0\",\"type\":\"zram\"");
	assert_has(j, "\"zswap_enabled\":false");
	assert_has(j, "\"schedulers\":[\"none\",\"mq-deadline\",\"kyber\",\"bfq\"]");
	assert_has(j, "\"read_ahead_kb\":128");
	assert_has(j, "\"size_bytes\":34359738368");
	assert_has(j, "\"model\":\"Cruzer Blade\"");
	assert_has(j, "\"mount_point\":\"/media/usb stick\"");
	assert_has(j, "\"sync\":true");
	assert_has(j, "\"speed_mbit_per_s\":1000");
	assert_has(j, "\"speed_mbit_per_s\":null");
	assert_has(j, "\"driver\":\"e1000e\"");
	assert_has(j, "\"hypervisor_flag\":true");
	assert_has(j, "\"probed\":false,\"available\":null");
	assert_has(j, "\"io_uring_disabled\":2");
	free(j);
	sysinfo_release(&fx.si);
}

static void test_x86_table(void **state)
{
	struct fx fx;
	char *t;

	(void)state;
	collect_fixture(&fx, "x86");
	t = render_table(&fx.si);
	assert_has(t, "2394 MHz (/proc/cpuinfo boot value; may be wrong in a VM)");
	assert_has(t, "8.0 GiB");
	assert_has(t, "4.0 GiB (cgroup limit)");
	assert_has(t, "SYNC!");
	assert_has(t, "multiplies write requests");
	assert_has(t, "/media/usb stick");
	assert_has(t, "mq-deadline");
	assert_has(t, "write back");
	assert_has(t, "1000 Mbit/s");
	assert_has(t, "zram");
	assert_has(t, "unknown");
	for (const char *p = t; (p = strchr(p, '\n')); p++)
		assert_true(p == t || p[-1] != ' '); /* no trailing blanks */
	free(t);
	sysinfo_release(&fx.si);
}

/* ---- mips router fixture ------------------------------------------------- */

static void test_mips(void **state)
{
	struct fx fx;
	const struct sysinfo_mount *m;
	const struct sysinfo_blk *b;

	(void)state;
	collect_fixture(&fx, "mips");
	assert_string_equal(fx.si.cpu.model, "Broadcom BMIPS4350 V1.0");
	assert_string_equal(fx.si.cpu.system_type, "Broadcom BCM63xx");
	assert_int_equal(fx.si.cpu.online, 2);
	assert_int_equal(fx.si.cpu.configured, 2);
	assert_int_equal(fx.si.cpu.cores, -1); /* no topology directories */
	assert_int_equal(fx.si.cpu.sockets, -1);
	assert_int_equal(fx.si.cpu.threads_per_core, -1);
	assert_true(isnan(fx.si.cpu.cpuinfo_mhz));
	assert_int_equal(fx.si.cpu.freq_source, SYSINFO_FREQ_CPUFREQ);
	assert_near(fx.si.cpu.freq_mhz, 300.0);
	assert_near(fx.si.cpu.cpufreq_max_mhz, 320.0);
	assert_non_null(strstr(fx.si.cpu.freq_source_detail, "scaling_cur_freq"));
	assert_int_equal(fx.si.virt.hypervisor_flag, SYSINFO_UNKNOWN); /* no flags line */

	/* Hybrid cgroups: the v1 memory line wins; the huge value means none. */
	assert_int_equal(fx.si.mem.cgroup_version, 1);
	assert_string_equal(fx.si.mem.cgroup_path, "/user.slice");
	assert_int_equal(fx.si.mem.cgroup_limit, SYSINFO_LIMIT_NONE);
	assert_int_equal(fx.si.mem.cgroup_limit_bytes, -1);
	assert_int_equal(fx.si.mem.total_bytes, 61440LL * 1024);
	assert_int_equal(fx.si.mem.effective_bytes, 61440LL * 1024);

	assert_int_equal(fx.si.nr_swaps, 0);
	assert_int_equal(fx.si.swappiness, 10);
	assert_int_equal(fx.si.page_cluster, 0);
	assert_int_equal(fx.si.zswap_enabled, SYSINFO_YES);

	m = find_mount(&fx.si, "/mnt/usb stick");
	assert_non_null(m);
	assert_true(m->sync);
	assert_non_null(find_mount(&fx.si, "/overlay"));
	assert_non_null(find_mount(&fx.si, "/rom"));
	assert_null(find_mount(&fx.si, "/sys/kernel/debug"));
	assert_int_equal(fx.si.nr_mounts, 5);

	/* A block device without a queue directory: everything unknown. */
	assert_int_equal(fx.si.nr_blks, 1);
	b = &fx.si.blks[0];
	assert_int_equal(b->size_bytes, 7821312LL * 512);
	assert_int_equal(b->removable, SYSINFO_YES);
	assert_int_equal(b->readonly, SYSINFO_UNKNOWN);
	assert_int_equal(b->rotational, SYSINFO_UNKNOWN);
	assert_null(b->scheduler);
	assert_null(b->schedulers);
	assert_int_equal(b->read_ahead_kb, -1);
	assert_int_equal(b->nr_requests, -1);
	assert_int_equal(b->max_sectors_kb, -1);
	assert_null(b->write_cache);
	assert_int_equal(b->logical_block_bytes, -1);
	assert_int_equal(b->physical_block_bytes, -1);

	assert_int_equal(fx.si.nr_nets, 2);
	assert_string_equal(fx.si.nets[0].name, "br-lan");
	assert_true(fx.si.nets[0].is_virtual);
	assert_int_equal(fx.si.nets[0].speed_mbit_per_s, -1); /* no speed file */
	assert_int_equal(fx.si.nets[1].speed_mbit_per_s, 100);
	assert_string_equal(fx.si.nets[1].driver, "bcm63xx_enet");

	assert_true(isnan(fx.si.virt.steal_seconds)); /* no /proc/stat */
	assert_null(fx.si.virt.hypervisor_type);
	assert_int_equal(fx.si.uring.disabled_sysctl, -1);
	/* No kernel sysctls in the fixture: uname of the test machine. */
	assert_non_null(fx.si.kernel.release);
	sysinfo_release(&fx.si);
}

static void test_mips_table(void **state)
{
	struct fx fx;
	char *t;

	(void)state;
	collect_fixture(&fx, "mips");
	t = render_table(&fx.si);
	assert_has(t, "Broadcom BMIPS4350 V1.0");
	assert_has(t, "system type");
	assert_has(t, "300 MHz (cpufreq");
	assert_has(t, "60.0 MiB (MemTotal)");
	assert_has(t, "SYNC!");
	assert_has(t, "100 Mbit/s");
	free(t);
	sysinfo_release(&fx.si);
}

/* ---- cgroup variants ----------------------------------------------------- */

static void test_v1_limit(void **state)
{
	struct fx fx;

	(void)state;
	collect_fixture(&fx, "v1limit");
	assert_int_equal(fx.si.mem.cgroup_version, 1);
	assert_string_equal(fx.si.mem.cgroup_path, "/docker/abc");
	assert_int_equal(fx.si.mem.cgroup_limit, SYSINFO_LIMIT_SET);
	assert_int_equal(fx.si.mem.cgroup_limit_bytes, 536870912);
	assert_int_equal(fx.si.mem.total_bytes, 2097152LL * 1024);
	assert_int_equal(fx.si.mem.effective_bytes, 536870912);
	assert_string_equal(sysinfo_limit_name(fx.si.mem.cgroup_limit), "set");

	/* "model name" beats a later "Processor"; cpufreq beats cpuinfo MHz. */
	assert_string_equal(fx.si.cpu.model, "ARMv7 Processor rev 4 (v7l)");
	assert_near(fx.si.cpu.cpuinfo_mhz, 800.0);
	assert_int_equal(fx.si.cpu.freq_source, SYSINFO_FREQ_CPUFREQ);
	assert_near(fx.si.cpu.freq_mhz, 1800.0);
	assert_true(isnan(fx.si.cpu.cpufreq_cur_mhz));
	assert_non_null(strstr(fx.si.cpu.freq_source_detail, "cpuinfo_max_freq"));
	assert_int_equal(fx.si.cpu.online, 1);
	/* No cpuN directories at all: configured from the cpuinfo count. */
	assert_int_equal(fx.si.cpu.configured, 1);
	sysinfo_release(&fx.si);
}

static void test_v2_root_no_limit(void **state)
{
	struct fx fx;

	(void)state;
	collect_fixture(&fx, "v2root");
	assert_int_equal(fx.si.mem.cgroup_version, 2);
	assert_string_equal(fx.si.mem.cgroup_path, "/");
	assert_int_equal(fx.si.mem.cgroup_limit, SYSINFO_LIMIT_NONE);
	assert_int_equal(fx.si.mem.cgroup_limit_bytes, -1);
	assert_int_equal(fx.si.mem.total_bytes, -1); /* no meminfo */
	assert_int_equal(fx.si.mem.effective_bytes, -1);
	sysinfo_release(&fx.si);
}

/* ---- sizes past int64_t ----------------------------------------------------- */

/*
 * kB x 1024 and sectors x 512 that do not fit an int64_t are unknown (-1),
 * not a signed overflow (the fuzzer's /proc/swaps size of
 * 222222222222222222 kB); the largest that fit are exact.
 */
static void test_huge_sizes(void **state)
{
	struct fx fx;
	const struct sysinfo *si = &fx.si;

	(void)state;
	collect_fixture(&fx, "huge");
	assert_int_equal(si->mem.total_bytes, -1);
	assert_int_equal(si->mem.available_bytes, 9007199254740991LL * 1024);
	assert_int_equal(si->nr_swaps, 2);
	assert_int_equal(si->swaps[0].size_bytes, -1);
	assert_int_equal(si->swaps[0].used_bytes, INT64_MAX - 1023);
	assert_int_equal(si->swaps[1].size_bytes, -1);
	assert_int_equal(si->swaps[1].used_bytes, 0);
	assert_int_equal(si->nr_blks, 2);
	assert_string_equal(si->blks[0].name, "sda");
	assert_int_equal(si->blks[0].size_bytes, -1);
	assert_string_equal(si->blks[1].name, "sdb");
	assert_int_equal(si->blks[1].size_bytes, INT64_MAX - 511);
	sysinfo_release(&fx.si);
}

/* ---- nothing readable --------------------------------------------------------- */

static void test_missing_everything(void **state)
{
	struct fx fx;
	struct sysinfo *si = &fx.si;
	char *j, *t;

	(void)state;
	collect_fixture(&fx, "missing");
	assert_null(si->cpu.model);
	assert_int_equal(si->cpu.configured, -1);
	assert_int_equal(si->cpu.online, -1);
	assert_null(si->cpu.online_list);
	assert_int_equal(si->cpu.cores, -1);
	assert_true(isnan(si->cpu.freq_mhz));
	assert_int_equal(si->cpu.freq_source, SYSINFO_FREQ_UNKNOWN);
	assert_null(si->cpu.freq_source_detail);
	assert_int_equal(si->mem.total_bytes, -1);
	assert_int_equal(si->mem.available_bytes, -1);
	assert_int_equal(si->mem.cgroup_version, 0);
	assert_int_equal(si->mem.cgroup_limit, SYSINFO_LIMIT_UNKNOWN);
	assert_int_equal(si->mem.effective_bytes, -1);
	assert_int_equal(si->nr_swaps, 0);
	assert_int_equal(si->swappiness, -1);
	assert_int_equal(si->page_cluster, -1);
	assert_int_equal(si->zswap_enabled, SYSINFO_UNKNOWN);
	assert_int_equal(si->nr_blks, 0);
	assert_int_equal(si->nr_mounts, 0);
	assert_int_equal(si->nr_nets, 0);
	assert_int_equal(si->virt.hypervisor_flag, SYSINFO_UNKNOWN);
	assert_null(si->virt.dmi_vendor);
	assert_true(isnan(si->virt.steal_seconds));
	assert_int_equal(si->uring.disabled_sysctl, -1);

	j = render_json(si);
	assert_json_shape(j);
	assert_has(j, "\"model\":null");
	assert_has(j, "\"logical_cpus\":null");
	assert_has(j, "\"freq_mhz\":null");
	assert_has(j, "\"freq_source\":\"unknown\"");
	assert_has(j, "\"mem_total_bytes\":null");
	assert_has(j, "\"effective_memory_bytes\":null");
	assert_has(j, "\"cgroup_version\":null");
	assert_has(j, "\"cgroup_memory_limit\":\"unknown\"");
	assert_has(j, "\"swappiness\":null");
	assert_has(j, "\"zswap_enabled\":null");
	assert_has(j, "\"devices\":[]");
	assert_has(j, "\"block_devices\":[]");
	assert_has(j, "\"hypervisor_flag\":null");
	assert_has(j, "\"steal_seconds\":null");
	assert_has(j, "\"io_uring_disabled\":null");
	/* Unknown is null: no made-up zeros or empty strings anywhere. */
	assert_null(strstr(j, "\":0,"));
	assert_null(strstr(j, "\":0}"));
	assert_null(strstr(j, "\"\""));
	free(j);

	t = render_table(si);
	assert_has(t, "frequency          unknown");
	assert_has(t, "total              unknown");
	free(t);
	sysinfo_release(si);
}

static void test_release_twice_and_init(void **state)
{
	struct sysinfo si;

	(void)state;
	sysinfo_init(&si);
	sysinfo_release(&si);
	sysinfo_release(&si);
	sysinfo_release(NULL);
	assert_int_equal(sysinfo_collect(NULL, NULL), -EINVAL);
}

/* Embedding under a key of a bigger document. */
static void test_json_under_key(void **state)
{
	struct fx fx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct jw w = JW_INIT(NULL, false);

	(void)state;
	collect_fixture(&fx, "v2root");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	w.f = f;
	jw_obj_begin(&w, NULL);
	jw_str(&w, "schema", "engpass/1");
	info_render_json(&w, "info", &fx.si);
	jw_obj_end(&w);
	jw_finish(&w);
	assert_int_equal(fclose(f), 0);
	assert_json_shape(buf);
	assert_has(buf, "{\"schema\":\"engpass/1\",\"info\":{\"cpu\":{");
	free(buf);
	sysinfo_release(&fx.si);
}

/* ---- the real machine ------------------------------------------------------ */

static void test_real_machine(void **state)
{
	struct sysinfo_opts o = SYSINFO_OPTS_INIT;
	struct sysinfo si;
	char *j, *t;

	(void)state;
	o.calibrate = true;
	o.probe_uring = true;
	assert_int_equal(sysinfo_collect(&si, &o), 0);
	assert_true(si.cpu.online >= 1);
	assert_true(si.cpu.configured >= si.cpu.online);
	assert_true(si.mem.total_bytes > 0);
	assert_true(si.mem.effective_bytes > 0);
	assert_true(si.mem.effective_bytes <= si.mem.total_bytes);
	assert_non_null(si.kernel.release);
	assert_non_null(si.kernel.machine);
	/* Calibration ran and produced a positive number, whatever it is. */
	assert_true(isfinite(si.cpu.calibrated_mhz) && si.cpu.calibrated_mhz > 0);
	assert_non_null(si.cpu.calibration_method);
	assert_true(si.cpu.calibration_runs > 0);
	assert_true(si.cpu.freq_source == SYSINFO_FREQ_CPUFREQ ||
		    si.cpu.freq_source == SYSINFO_FREQ_CALIBRATED);
	assert_true(isfinite(si.cpu.freq_mhz));
	assert_true(si.uring.state == SYSINFO_URING_AVAILABLE ||
		    si.uring.state == SYSINFO_URING_UNAVAILABLE);
	assert_non_null(si.uring.text);
	if (si.uring.state == SYSINFO_URING_UNAVAILABLE)
		assert_true(si.uring.err > 0);

	j = render_json(&si);
	assert_json_shape(j);
	free(j);
	t = render_table(&si);
	assert_has(t, "\nio_uring\n");
	free(t);
	sysinfo_release(&si);
}

static void test_calibrate(void **state)
{
	double mhz = 0;
	int runs = 0;
	uint64_t adds = 0;
	const char *method = NULL;

	(void)state;
	assert_int_equal(sysinfo_calibrate_mhz(&mhz, &runs, &adds, &method), 0);
	assert_true(isfinite(mhz) && mhz > 0);
	assert_true(runs > 0);
	assert_true(adds > 0);
	assert_non_null(strstr(method, "assumes 1 add per cycle"));
	/* The optional outputs may be NULL. */
	assert_int_equal(sysinfo_calibrate_mhz(&mhz, NULL, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_cpu),
		cmocka_unit_test(test_x86_memory_cgroup_v2),
		cmocka_unit_test(test_x86_swap),
		cmocka_unit_test(test_x86_block),
		cmocka_unit_test(test_x86_mounts),
		cmocka_unit_test(test_x86_net),
		cmocka_unit_test(test_x86_kernel_virt_uring),
		cmocka_unit_test(test_x86_json),
		cmocka_unit_test(test_x86_table),
		cmocka_unit_test(test_mips),
		cmocka_unit_test(test_mips_table),
		cmocka_unit_test(test_v1_limit),
		cmocka_unit_test(test_v2_root_no_limit),
		cmocka_unit_test(test_huge_sizes),
		cmocka_unit_test(test_missing_everything),
		cmocka_unit_test(test_release_twice_and_init),
		cmocka_unit_test(test_json_under_key),
		cmocka_unit_test(test_real_machine),
		cmocka_unit_test(test_calibrate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
