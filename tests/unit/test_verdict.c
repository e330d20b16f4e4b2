/* SPDX-License-Identifier: MIT */
/*
 * Tests of the ranked verdict (src/core/result/verdict.c): each candidate from
 * the limits and the system view, its twin without the limit, the ranking
 * (share, then the priority order), the benchmark's candidates, unknown
 * figures and limits that are never taken as zero or as absent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/devlink.h"
#include "core/result/result.h"
#include "core/result/verdict.h"

struct fx {
	struct sysview v;
	struct limits l;
	struct verdict out;
};

/* A quiet box: 2 CPUs, the work one thread at 10 %, no limits set. */
static void base(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	sysview_init(&f->v);
	f->v.samples = 10;
	f->v.duration_s = 2.5;
	f->v.ncpu = 2;
	f->v.cpu_busy_pct = 10;
	f->v.cpu_steal_pct = 0;
	f->v.busiest_cpu = 1;
	f->v.busiest_cpu_busy_pct = 15;
	f->v.busiest_cpu_softirq_pct = 0;
	f->v.work_threads = 1;
	f->v.work_cpu_pct = 10;
	f->v.work_wait_pct = 0;
	f->v.work_thread_cpu_pct = 10;
	f->v.work_thread_wait_pct = 0;
	f->v.work_thread_cpu = 1;
	snprintf(f->v.work_thread_comm, sizeof(f->v.work_thread_comm), "engpass");
	f->v.others_cpu_pct = 1;
	f->l.discovered = true;
	f->l.online_cpus = 2;
	f->l.cpu_quota.state = f->l.cpuset.state = f->l.mem_max.state = LIMIT_NONE;
	f->l.mem_high.state = f->l.shaper.state = f->l.io_rbps.state = f->l.io_wbps.state = LIMIT_NONE;
	f->l.io_riops.state = f->l.io_wiops.state = f->l.link.state = LIMIT_NONE;
}

/* A benchmark's candidate straight into a verdict (what result_verdict_candidate() does on a result). */
static void result_verdict_candidate_into(struct verdict *v, const char *resource, double share)
{
	struct verdict_candidate *c = &v->cand[v->ncand++];

	memset(c, 0, sizeof(*c));
	snprintf(c->resource, sizeof(c->resource), "%s", resource);
	c->share = share;
	snprintf(c->evidence, sizeof(c->evidence), "all CPUs of this box busy");
}

static const char *judge(struct fx *f)
{
	struct verdict_input in = { .view = &f->v, .limits = &f->l };

	verdict_judge(&in, &f->out);
	return f->out.resource;
}

static const struct verdict_candidate *cand(const struct fx *f, const char *resource)
{
	for (size_t i = 0; i < f->out.ncand; i++)
		if (!strcmp(f->out.cand[i].resource, resource))
			return &f->out.cand[i];
	return NULL;
}

static void test_idle(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	assert_string_equal(judge(&f), "none observed");
	assert_non_null(strstr(f.out.evidence, "no limit reached 80 %"));
	assert_non_null(strstr(f.out.evidence, "cpu quota none"));
}

static void test_one_core(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 98;
	f.v.work_thread_cpu = 0;
	assert_string_equal(judge(&f), "one core");
	assert_non_null(strstr(f.out.evidence, "on cpu0"));
	assert_non_null(strstr(f.out.next_step, "second stream or thread"));
}

/* A busy box is not the work's limit: the disk step beside a CPU hog that did not queue it. */
static void test_box_busy_work_not(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.cpu_busy_pct = 100;
	f.v.busiest_cpu_busy_pct = 100;
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 42;
	f.v.others_cpu_pct = 158;
	judge(&f);
	assert_string_not_equal(f.out.resource, "cpu");
	assert_string_not_equal(f.out.resource, "one core");
}

static void test_all_cpus(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.work_threads = 2;
	f.v.work_cpu_pct = 195;
	f.v.work_thread_cpu_pct = 98;
	f.v.cpu_busy_pct = 98;
	assert_string_equal(judge(&f), "cpu");
}

static void test_cpu_quota(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 30;
	f.v.cg_cpu_usage_pct = 29.9;
	f.v.cg_cpu_throttled_pct = 97;
	f.v.cg_cpu_throttled_s = 1.4;
	assert_string_not_equal(judge(&f), "cpu quota");	/* the twin: no quota */
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 30;
	f.v.cg_cpu_usage_pct = 29.9;
	f.v.cg_cpu_throttled_pct = 97;
	f.l.cpu_quota.state = LIMIT_SET;
	f.l.cpu_quota.value = 0.3;
	snprintf(f.l.cpu_quota.source, sizeof(f.l.cpu_quota.source), "cpu.cfs_quota_us 30000");
	assert_string_equal(judge(&f), "cpu quota");
	assert_non_null(strstr(f.out.evidence, "0.30 CPU"));
	assert_non_null(strstr(f.out.next_step, "30 % of one core"));
}

static void test_cpuset(void **state)
{
	struct fx f;

	(void)state;
	/* Two threads on one allowed CPU: they queue for it. */
	base(&f);
	f.l.cpuset.state = LIMIT_SET;
	f.l.cpuset.value = 1;
	f.v.work_threads = 2;
	f.v.work_cpu_pct = 99;
	f.v.work_wait_pct = 98;
	f.v.work_thread_cpu_pct = 50;
	f.v.work_thread_wait_pct = 49;
	f.v.others_cpu_pct = 1;
	assert_string_equal(judge(&f), "cpuset");
	/* One thread on one allowed CPU does not queue: one core, not the cpuset. */
	base(&f);
	f.l.cpuset.state = LIMIT_SET;
	f.l.cpuset.value = 1;
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 99;
	assert_string_equal(judge(&f), "one core");
	assert_true(cand(&f, "cpuset")->share < 0.8);
}

static void test_io_limit(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	snprintf(f.l.io_dev, sizeof(f.l.io_dev), "loop3");
	f.l.io_rbps.state = LIMIT_SET;
	f.l.io_rbps.value = 20 << 20;
	f.v.cg_io_read_bytes_per_s = 20.0 * (1 << 20);
	f.v.cg_io_write_bytes_per_s = 0;
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "loop3");
	f.v.disk_util_pct = 3;
	f.v.disk_queue_avg = 0.1;
	assert_string_equal(judge(&f), "io limit");
	assert_non_null(strstr(f.out.evidence, "20.00 MiB/s"));
	/* Without the cgroup's counter the device's rate stands in. */
	base(&f);
	snprintf(f.l.io_dev, sizeof(f.l.io_dev), "loop3");
	f.l.io_wbps.state = LIMIT_SET;
	f.l.io_wbps.value = 20 << 20;
	f.v.disk_write_bytes_per_s = 5.0 * (1 << 20);
	judge(&f);
	assert_string_not_equal(f.out.resource, "io limit");
	assert_true(cand(&f, "io limit")->share < 0.3);
}

static void test_memory_limit_before_memory(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.swap_in_pages_per_s = 5000;
	f.v.swap_out_pages_per_s = 6000;
	assert_string_equal(judge(&f), "memory");	/* the twin: swapping, no cgroup limit */
	base(&f);
	f.v.swap_in_pages_per_s = 5000;
	f.v.swap_out_pages_per_s = 6000;
	f.l.mem_max.state = LIMIT_SET;
	f.l.mem_max.value = 128 << 20;
	f.v.cg_mem_peak_bytes = 128 << 20;
	f.v.cg_mem_limit_hits = 5123;
	assert_string_equal(judge(&f), "memory limit");
	assert_non_null(cand(&f, "memory"));
}

static void test_shaper(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.l.shaper.state = LIMIT_SET;
	f.l.shaper.value = 100e6;
	snprintf(f.l.shaper_kind, sizeof(f.l.shaper_kind), "tbf");
	snprintf(f.l.iface, sizeof(f.l.iface), "veth0");
	f.v.qdisc_bytes_per_s = 12.0e6;
	f.v.qdisc_overlimits = 5000;
	f.v.qdisc_drops = 0;
	assert_string_equal(judge(&f), "shaper");
	assert_non_null(strstr(f.out.next_step, "tbf on veth0"));
	/* Reached to 95 % while the box is busy with others: the cap still ranks first. */
	memset(&f.out, 0, sizeof(f.out));
	result_verdict_candidate_into(&f.out, "cpu", 1.0);
	f.v.qdisc_bytes_per_s = 11.9e6;
	assert_string_equal(judge(&f), "shaper");
	memset(&f.out, 0, sizeof(f.out));
	f.v.qdisc_bytes_per_s = 2e6;	/* 16 % of the rate: not the limit */
	memset(&f.out, 0, sizeof(f.out));
	assert_string_not_equal(judge(&f), "shaper");
}

static void test_other_processes(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 50;
	f.v.work_wait_pct = f.v.work_thread_wait_pct = 49;
	f.v.others_cpu_pct = 99;
	f.v.others[0].pid = 4242;
	snprintf(f.v.others[0].comm, sizeof(f.v.others[0].comm), "hog");
	f.v.others[0].cpu_pct = 98;
	assert_string_equal(judge(&f), "other processes");
	assert_non_null(strstr(f.out.next_step, "hog 98 % (pid 4242)"));
	/* Half of a little runnable time (an rr client waiting on its peer) is not the limit. */
	memset(&f.out, 0, sizeof(f.out));
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 4;
	f.v.work_wait_pct = f.v.work_thread_wait_pct = 4;
	assert_string_not_equal(judge(&f), "other processes");
	assert_true(cand(&f, "other processes")->share < 0.2);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 50;
	f.v.work_wait_pct = f.v.work_thread_wait_pct = 49;
	/* Waiting with nobody else busy is not the others' doing. */
	memset(&f.out, 0, sizeof(f.out));
	f.v.others_cpu_pct = 2;
	assert_string_not_equal(judge(&f), "other processes");
}

/*
 * A single thread's run-queue wait that the processes seen at the edges
 * explain only in part: on a box whose run queue held more tasks than
 * CPUs, the rest is the others' too (unseen); on an idle box it stays
 * unexplained (an unreadable quota shows the same way).
 */
static void test_run_queue_unseen(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.duration_s = 1;
	f.v.budget.thread_s = 1;
	f.v.budget.threads = 1;
	f.v.budget.quota_s = 0;
	f.v.budget.n = 2;
	snprintf(f.v.budget.e[0].state, sizeof(f.v.budget.e[0].state), "run queue");
	f.v.budget.e[0].pct = 70;
	snprintf(f.v.budget.e[1].state, sizeof(f.v.budget.e[1].state), "on CPU");
	f.v.budget.e[1].pct = 30;
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 30;
	f.v.others_cpu_pct = f.v.others_on_work_cpus_pct = 27;
	f.v.run_queue_avg = 5;
	assert_string_equal(judge(&f), "other processes");
	assert_non_null(strstr(f.out.evidence, "not seen at the window's edges"));
	memset(&f.out, 0, sizeof(f.out));
	f.v.run_queue_avg = 1.2;
	f.v.cpu_busy_pct = 40;
	assert_string_not_equal(judge(&f), "other processes");
}

static void test_device(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "vda");
	f.v.disk_util_pct = 99;
	f.v.disk_queue_avg = 12;
	assert_string_equal(judge(&f), "device");
	base(&f);
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "vda");
	f.v.disk_util_pct = 99;
	f.v.disk_queue_avg = 1.0;
	assert_string_equal(judge(&f), "device latency");
	assert_non_null(strstr(f.out.evidence, "busy, not saturated"));
}

/*
 * A setting on the device's path the benchmark found (issue 36: a sync
 * mount advised "more requests in flight"; a small max_sectors_kb, "a
 * faster device"): where the device is named, its next step is the
 * setting's; elsewhere the named resource's own.
 */
static void test_device_setting(void **state)
{
	static const char sync_next[] = "the sync mount sets the pace: mount without sync (--mount-options async)";
	struct fx f;

	(void)state;
	for (int saturated = 0; saturated < 2; saturated++) {
		base(&f);
		snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "loop0");
		f.v.disk_util_pct = 99;
		f.v.disk_queue_avg = saturated ? 12 : 1.0;
		result_verdict_candidate_into(&f.out, "device setting", NAN);
		snprintf(f.out.cand[0].next_step, sizeof(f.out.cand[0].next_step), "%s", sync_next);
		assert_string_equal(judge(&f), saturated ? "device" : "device latency");
		assert_string_equal(f.out.next_step, sync_next);
		assert_non_null(cand(&f, "device setting"));
	}
	/* Not named where the device is not what bounded the step. */
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 99;
	f.v.busiest_cpu_busy_pct = 99;
	result_verdict_candidate_into(&f.out, "device setting", NAN);
	snprintf(f.out.cand[0].next_step, sizeof(f.out.cand[0].next_step), "%s", sync_next);
	judge(&f);
	assert_string_not_equal(f.out.resource, "device latency");
	assert_null(strstr(f.out.next_step, "sync mount"));
	/* Without the setting, the device's own advice. */
	base(&f);
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "loop0");
	f.v.disk_util_pct = 99;
	f.v.disk_queue_avg = 1.0;
	assert_string_equal(judge(&f), "device latency");
	assert_non_null(strstr(f.out.next_step, "more requests in flight"));
}

/* The link of fixture disk NAME (tests/fixtures/sysfs/links) as the limits of the device under test. */
static void with_link(struct fx *f, const char *name)
{
	const char *d = getenv("ENGPASS_FIXTURES");
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/sysfs/links", d ? d : "tests/fixtures");
	assert_int_equal(devlink_read(root, name, &f->l.dev_link), 0);
	f->l.dev_link_read = true;
	snprintf(f->l.io_dev, sizeof(f->l.io_dev), "%s", name);
	snprintf(f->v.busiest_disk, sizeof(f->v.busiest_disk), "%s1", name);
	f->v.disk_util_pct = 100;
	f->v.disk_queue_avg = 1.0;
}

/*
 * A link below its capability is named before the device it holds back:
 * seed 000's stick at USB 2 speed reads 38 MiB/s, 95 % of the 40 MiB/s a
 * USB 2 link carries, and the device shows 100 % busy.
 */
static void test_bus(void **state)
{
	struct fx f;
	const struct verdict_candidate *c;

	(void)state;
	base(&f);
	with_link(&f, "sdb");
	f.v.disk_read_bytes_per_s = 38.0 * 1024 * 1024;
	f.v.disk_write_bytes_per_s = 0;
	assert_string_equal(judge(&f), "bus");
	assert_non_null(strstr(f.out.evidence, "sdb negotiated USB 480 Mbit/s; the device and its port support 5 Gbit/s"));
	assert_non_null(strstr(f.out.evidence, "95 % of the 40.00 MiB/s"));
	assert_non_null(strstr(f.out.next_step, "re-plug sdb"));
	assert_non_null(cand(&f, "device latency"));

	/* Its twin at capability (a 5 Gbit/s stick at 5 Gbit/s): no bus candidate, the device is named. */
	base(&f);
	with_link(&f, "sdc");
	f.v.disk_read_bytes_per_s = 420e6;
	assert_string_equal(judge(&f), "device latency");
	assert_null(cand(&f, "bus"));

	/* Below its capability but far from the link's ceiling: offered, not named. */
	base(&f);
	with_link(&f, "sdb");
	f.v.disk_read_bytes_per_s = 5.0 * 1024 * 1024;
	assert_string_equal(judge(&f), "device latency");
	c = cand(&f, "bus");
	assert_non_null(c);
	assert_true(c->share < 0.2);

	/* Another disk was the busiest: the link of the device under test says nothing about it. */
	base(&f);
	with_link(&f, "sdb");
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "sdba");
	f.v.disk_read_bytes_per_s = 38.0 * 1024 * 1024;
	judge(&f);
	assert_null(cand(&f, "bus"));

	/* Reads and writes share a USB 2 link: 20 + 18 MiB/s is 95 % too. */
	base(&f);
	with_link(&f, "sdb");
	f.v.disk_read_bytes_per_s = 20.0 * 1024 * 1024;
	f.v.disk_write_bytes_per_s = 18.0 * 1024 * 1024;
	assert_string_equal(judge(&f), "bus");

	/* The port limits: a USB 3 stick in a USB 2 port is told to move. */
	base(&f);
	with_link(&f, "sdd");
	f.v.disk_read_bytes_per_s = 37.0 * 1024 * 1024;
	assert_string_equal(judge(&f), "bus");
	assert_non_null(strstr(f.out.next_step, "move sdd to a port that supports 5 Gbit/s"));

	/* SATA at 1.5 of 6 Gbps, and NVMe at Gen3 x2 of Gen4 x4 (full duplex: the larger direction). */
	base(&f);
	with_link(&f, "sda");
	f.v.disk_read_bytes_per_s = 125e6;
	assert_string_equal(judge(&f), "bus");
	assert_non_null(strstr(f.out.evidence, "libata lowered"));
	base(&f);
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "nvme0n1");
	with_link(&f, "nvme0n1");
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "nvme0n1p2");
	f.v.disk_read_bytes_per_s = 1.6e9;
	f.v.disk_write_bytes_per_s = 1.0e9;
	assert_string_equal(judge(&f), "bus");
	assert_non_null(strstr(f.out.evidence, "PCIe 8.0 GT/s x2; the device and its port support 16.0 GT/s x4"));

	/* A virtio disk's link is not reported: no candidate. */
	base(&f);
	with_link(&f, "vda");
	f.v.disk_read_bytes_per_s = 500e6;
	assert_string_equal(judge(&f), "device latency");
	assert_null(cand(&f, "bus"));
}

/* Thermal throttling: a counter that moved, a CPU cooling device engaged or a sensor at its limit. */
static void test_thermal(void **state)
{
	struct fx f;

	(void)state;
	/* Counters read at both edges and still: nothing to say. */
	base(&f);
	f.v.throttle_cpus = 2;
	f.v.throttle_core_events = f.v.throttle_package_events = 0;
	f.v.cooling_devices = 1;
	f.v.cooling_state_max = 0;
	f.v.cooling_state_limit = 4;
	assert_string_equal(judge(&f), "none observed");
	assert_null(cand(&f, "thermal throttling"));
	/* Unknown (no counters, never read) is not "moved". */
	base(&f);
	assert_string_equal(judge(&f), "none observed");
	assert_null(cand(&f, "thermal throttling"));

	/* x86: the core counter moved on one CPU of two. */
	base(&f);
	f.v.throttle_cpus = 2;
	f.v.throttle_cpus_moved = 1;
	f.v.throttle_core_events = 4;
	f.v.throttle_package_events = 0;
	snprintf(f.v.temps[0].name, sizeof(f.v.temps[0].name), "coretemp Package id 0");
	f.v.temps[0].start_c = 61;
	f.v.temps[0].max_c = 83;
	assert_string_equal(judge(&f), "thermal throttling");
	assert_non_null(strstr(f.out.evidence, "throttle counters moved on 1 of 2 CPUs (core 4, package 0 events)"));
	assert_non_null(strstr(f.out.evidence, "hottest coretemp Package id 0 83 C (61 C at the start)"));
	assert_non_null(strstr(f.out.next_step, "heatsink or a fan"));

	/* ARM: the cpufreq cooling device was engaged. */
	base(&f);
	f.v.cooling_devices = 1;
	snprintf(f.v.cooling_name, sizeof(f.v.cooling_name), "cpufreq-cpu0");
	f.v.cooling_state_max = 2;
	f.v.cooling_state_limit = 4;
	snprintf(f.v.temps[0].name, sizeof(f.v.temps[0].name), "cpu-thermal");
	f.v.temps[0].start_c = 50;
	f.v.temps[0].max_c = 70;
	assert_string_equal(judge(&f), "thermal throttling");
	assert_string_equal(f.out.evidence, "cpufreq-cpu0 at cooling state 2 of 4; hottest cpu-thermal 70 C (50 C at the start)");

	/* A sensor reached its own limit, nothing else moved. */
	base(&f);
	snprintf(f.v.temp_hit.name, sizeof(f.v.temp_hit.name), "cpu-thermal");
	f.v.temp_hit.max_c = 86;
	f.v.temp_hit.trip_c = 85;
	snprintf(f.v.temp_hit.trip, sizeof(f.v.temp_hit.trip), "passive");
	assert_string_equal(judge(&f), "thermal throttling");
	assert_non_null(strstr(f.out.evidence, "cpu-thermal reached 86 C (its passive 85 C)"));

	/* With every CPU busy, throttling is why: it wins the tie over "cpu". */
	base(&f);
	f.v.cpu_busy_pct = 100;
	f.v.work_threads = 2;
	f.v.work_cpu_pct = 200;
	f.v.work_thread_cpu_pct = 100;
	f.v.cooling_state_max = 1;
	f.v.cooling_state_limit = 4;
	snprintf(f.v.cooling_name, sizeof(f.v.cooling_name), "cpufreq-cpu0");
	assert_string_equal(judge(&f), "thermal throttling");
	assert_non_null(cand(&f, "cpu"));
	/* A saturated device stays the device; throttling is the runner-up. */
	base(&f);
	snprintf(f.v.busiest_disk, sizeof(f.v.busiest_disk), "vda");
	f.v.disk_util_pct = 100;
	f.v.disk_queue_avg = 12;
	f.v.throttle_cpus = 1;
	f.v.throttle_cpus_moved = 1;
	f.v.throttle_core_events = f.v.throttle_package_events = 1;
	assert_string_equal(judge(&f), "device");
	assert_string_equal(f.out.cand[1].resource, "thermal throttling");
}

static void test_benchmark_candidate(void **state)
{
	struct result *r = result_new("mem", "latency");
	struct verdict_input in;
	struct sysview v;

	(void)state;
	sysview_init(&v);
	v.samples = 4;
	v.ncpu = 2;
	v.cpu_busy_pct = 50;
	v.work_cpu_pct = v.work_thread_cpu_pct = 100;
	v.work_wait_pct = 0;
	v.work_thread_cpu = 1;
	result_verdict_candidate(r, "memory latency", 1.0, "a prefetch-friendly layout", "%d ns per load", 95);
	in = (struct verdict_input){ .view = &v, .limits = NULL };
	verdict_judge(&in, &r->verdict);
	assert_string_equal(r->verdict.resource, "memory latency");
	assert_string_equal(r->verdict.next_step, "a prefetch-friendly layout");
	/* A benchmark's candidate beats the system's of the same name. */
	result_free(r);
	r = result_new("net", "tcp");
	result_verdict_candidate(r, "one core", 0.95, NULL, "receiver cpu1 95 %% softirq");
	verdict_judge(&in, &r->verdict);
	assert_string_equal(r->verdict.resource, "one core");
	assert_string_equal(r->verdict.evidence, "receiver cpu1 95 % softirq");
	result_free(r);
}

static void test_unknown(void **state)
{
	struct fx f;
	struct verdict_input in = { 0 };
	struct verdict out;

	(void)state;
	memset(&out, 0, sizeof(out));
	verdict_judge(&in, &out);
	assert_string_equal(out.resource, "unknown");
	/* NaN figures are not zero, unknown limits are never named. */
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = f.v.work_wait_pct = NAN;
	f.v.cpu_busy_pct = f.v.busiest_cpu_busy_pct = NAN;
	f.l.cpu_quota.state = LIMIT_UNKNOWN;
	f.l.cpu_quota.value = NAN;
	f.v.cg_cpu_usage_pct = 30;
	assert_string_equal(judge(&f), "none observed");
	assert_null(cand(&f, "cpu quota"));
	assert_null(cand(&f, "cpu"));
}

/* Ties at the limit go by priority: the configured limit before the resource it caps. */
static void test_priority(void **state)
{
	struct fx f;

	(void)state;
	base(&f);
	f.v.work_cpu_pct = f.v.work_thread_cpu_pct = 100;
	f.l.cpu_quota.state = LIMIT_SET;
	f.l.cpu_quota.value = 1.0;
	f.v.cg_cpu_usage_pct = 100;
	assert_string_equal(judge(&f), "cpu quota");
	assert_string_equal(f.out.cand[1].resource, "one core");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_one_core),
		cmocka_unit_test(test_box_busy_work_not),
		cmocka_unit_test(test_all_cpus),
		cmocka_unit_test(test_cpu_quota),
		cmocka_unit_test(test_cpuset),
		cmocka_unit_test(test_io_limit),
		cmocka_unit_test(test_memory_limit_before_memory),
		cmocka_unit_test(test_shaper),
		cmocka_unit_test(test_other_processes),
		cmocka_unit_test(test_run_queue_unseen),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_device_setting),
		cmocka_unit_test(test_thermal),
		cmocka_unit_test(test_benchmark_candidate),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_bus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
