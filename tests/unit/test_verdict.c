/* SPDX-License-Identifier: MIT */
/*
 * Tests of the bottleneck rules: each resource, their order, unknown
 * fields, and the "nothing saturated" case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/verdict.h"

static struct sysview idle(void)
{
	struct sysview v;

	memset(&v, 0, sizeof(v));
	v.samples = 10;
	v.duration_s = 2.5;
	v.ncpu = 2;
	v.cpu_busy_pct = 10;
	v.busiest_cpu = 1;
	v.busiest_cpu_busy_pct = 15;
	v.disk_util_pct = NAN;
	v.psi_available = false;
	return v;
}

static void none(struct sysview *v) { (void)v; }
static void one_core(struct sysview *v) { v->busiest_cpu_busy_pct = 98; v->busiest_cpu_softirq_pct = 61; v->cpu_busy_pct = 55; }
static void all_cpus(struct sysview *v) { v->cpu_busy_pct = 97; v->busiest_cpu_busy_pct = 99; v->run_queue_avg = 3; }
static void disk(struct sysview *v) { snprintf(v->busiest_disk, sizeof(v->busiest_disk), "vda"); v->disk_util_pct = 99; v->cpu_busy_pct = 97; }
static void swap(struct sysview *v) { v->swap_in_pages_per_s = 5000; snprintf(v->busiest_disk, sizeof(v->busiest_disk), "vda"); v->disk_util_pct = 100; }
static void psi(struct sysview *v) { v->psi_available = true; v->psi_mem_some_pct = 40; }
static void psi_off(struct sysview *v) { v->psi_available = false; v->psi_mem_some_pct = 40; }
static void steal(struct sysview *v) { v->cpu_steal_pct = 30; v->cpu_busy_pct = 95; }
static void nan_cpu(struct sysview *v) { v->cpu_busy_pct = NAN; v->busiest_cpu_busy_pct = NAN; }
static void no_cpu(struct sysview *v) { v->cpu_busy_pct = NAN; v->busiest_cpu = -1; }
static void no_samples(struct sysview *v) { v->samples = 0; v->cpu_busy_pct = 100; }

static const struct {
	const char *name;
	void (*tweak)(struct sysview *v);
	const char *resource;
	const char *evidence;	/* substring */
} cases[] = {
	{ "idle", none, "none observed", "busiest core cpu1 15 %" },
	{ "one core", one_core, "one core", "cpu1 98 % busy (61 % softirq)" },
	{ "all cpus", all_cpus, "cpu", "all 2 CPUs 97 % busy" },
	{ "device before cpu", disk, "device", "vda 99 % utilised" },
	{ "memory before device", swap, "memory", "swapping 5000 pages/s in" },
	{ "memory stall", psi, "memory", "memory stall 40.0 %" },
	{ "stall ignored without PSI", psi_off, "none observed", "" },
	{ "steal is named", steal, "cpu", "hypervisor stole 30 %" },
	{ "unknown is not zero", nan_cpu, "none observed", "" },
	{ "no cpu figures", no_cpu, "unknown", "no CPU figures in 10 samples" },
	{ "no samples", no_samples, "unknown", "no system samples" },
};

static void test_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sysview v = idle();
		struct verdict out;

		cases[i].tweak(&v);
		verdict_judge(&v, &out);
		if (strcmp(out.resource, cases[i].resource) || !strstr(out.evidence, cases[i].evidence))
			fail_msg("%s: got '%s' -- '%s'", cases[i].name, out.resource, out.evidence);
	}
}

static void test_null_view(void **state)
{
	struct verdict out;

	(void)state;
	verdict_judge(NULL, &out);
	assert_string_equal(out.resource, "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_null_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
