/* SPDX-License-Identifier: MIT */
/*
 * Bottleneck analysis: from the system view sampled during a step, say
 * which resource was saturated and give the numbers that decided. The rules
 * are deliberately simple and ordered (memory pressure first, because
 * swapping makes everything else look busy; then a saturated device; then
 * all CPUs; then one core), and each threshold is a named constant below,
 * documented in docs/verdict.md.
 */
#ifndef ENGPASS_VERDICT_H
#define ENGPASS_VERDICT_H

#include "core/result.h"
#include "core/sysview.h"

/* A CPU at or above this busy share counts as saturated. */
#define VERDICT_CPU_SATURATED_PCT 90.0
/* A device at or above this %util counts as saturated. */
#define VERDICT_DISK_SATURATED_PCT 90.0
/* Swap traffic at or above this many pages per second counts as pressure. */
#define VERDICT_SWAP_PAGES_PER_S 256.0
/* Memory stall (PSI some) at or above this share counts as pressure. */
#define VERDICT_PSI_MEM_PCT 10.0
/* Steal at or above this share is reported as the hypervisor taking CPU. */
#define VERDICT_STEAL_PCT 10.0

/*
 * Judges V into OUT. Unknown (NaN) fields are skipped, never treated as 0.
 * When nothing is saturated the resource is "none observed" and the
 * evidence names the highest figures seen; with no samples, "unknown".
 */
void verdict_judge(const struct sysview *v, struct verdict *out);

#endif
