/* SPDX-License-Identifier: MIT */
/*
 * Bottleneck rules; see verdict.h for their order and thresholds.
 */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool at_least(double v, double limit)
{
	return !isnan(v) && v >= limit;
}

static void set(struct verdict *out, const char *resource)
{
	snprintf(out->resource, sizeof(out->resource), "%s", resource);
}

void verdict_judge(const struct sysview *v, struct verdict *out)
{
	char steal[64] = "";

	memset(out, 0, sizeof(*out));
	if (!v || v->samples == 0) {
		set(out, "unknown");
		snprintf(out->evidence, sizeof(out->evidence), "no system samples were taken during the step");
		return;
	}
	if (isnan(v->cpu_busy_pct) && v->busiest_cpu < 0) {
		set(out, "unknown");
		snprintf(out->evidence, sizeof(out->evidence),
			 "no CPU figures in %u samples over %.3f s (shorter than the kernel's accounting tick?)",
			 v->samples, v->duration_s);
		return;
	}
	if (at_least(v->cpu_steal_pct, VERDICT_STEAL_PCT))
		snprintf(steal, sizeof(steal), "; the hypervisor stole %.0f %% of CPU time", v->cpu_steal_pct);

	if (at_least(v->swap_in_pages_per_s + v->swap_out_pages_per_s, VERDICT_SWAP_PAGES_PER_S) ||
	    (v->psi_available && at_least(v->psi_mem_some_pct, VERDICT_PSI_MEM_PCT))) {
		set(out, "memory");
		snprintf(out->evidence, sizeof(out->evidence),
			 "swapping %.0f pages/s in, %.0f pages/s out; memory stall %.1f %%%s",
			 v->swap_in_pages_per_s, v->swap_out_pages_per_s,
			 v->psi_available ? v->psi_mem_some_pct : NAN, steal);
		return;
	}
	if (v->busiest_disk[0] && at_least(v->disk_util_pct, VERDICT_DISK_SATURATED_PCT)) {
		set(out, "device");
		snprintf(out->evidence, sizeof(out->evidence),
			 "%s %.0f %% utilised (%.0f r/s, %.0f w/s); CPU iowait %.0f %%%s", v->busiest_disk,
			 v->disk_util_pct, v->disk_reads_per_s, v->disk_writes_per_s, v->cpu_iowait_pct, steal);
		return;
	}
	if (at_least(v->cpu_busy_pct, VERDICT_CPU_SATURATED_PCT)) {
		set(out, "cpu");
		snprintf(out->evidence, sizeof(out->evidence),
			 "all %d CPUs %.0f %% busy, run queue %.1f%s", v->ncpu, v->cpu_busy_pct, v->run_queue_avg,
			 steal);
		return;
	}
	if (v->busiest_cpu >= 0 && at_least(v->busiest_cpu_busy_pct, VERDICT_CPU_SATURATED_PCT)) {
		set(out, "one core");
		snprintf(out->evidence, sizeof(out->evidence),
			 "cpu%d %.0f %% busy (%.0f %% softirq) while all CPUs averaged %.0f %%%s", v->busiest_cpu,
			 v->busiest_cpu_busy_pct, v->busiest_cpu_softirq_pct, v->cpu_busy_pct, steal);
		return;
	}
	set(out, "none observed");
	if (v->busiest_disk[0])
		snprintf(out->evidence, sizeof(out->evidence),
			 "busiest core cpu%d %.0f %%, all CPUs %.0f %%, %s %.0f %% utilised%s", v->busiest_cpu,
			 v->busiest_cpu_busy_pct, v->cpu_busy_pct, v->busiest_disk, v->disk_util_pct, steal);
	else
		snprintf(out->evidence, sizeof(out->evidence), "busiest core cpu%d %.0f %%, all CPUs %.0f %%%s",
			 v->busiest_cpu, v->busiest_cpu_busy_pct, v->cpu_busy_pct, steal);
}
