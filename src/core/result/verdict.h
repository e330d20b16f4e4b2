/* SPDX-License-Identifier: MIT */
/*
 * The verdict: what bounded a step. Every candidate limiter is given a
 * share, how close the step came to it (measured / limit for a configured
 * limit; a saturation share for a resource: busy time, run-queue wait,
 * stall, queue growth), with one line of evidence and what would move the
 * figure. The candidates come from three places: the benchmark
 * (result_verdict_candidate(): the round trip, its own pacing, memory
 * latency), the limits discovered for the work (core/observe/limits.h: cgroup
 * quota, cpuset, I/O throttle, memory limit, shaper, link) and the system
 * view of the work and the box (core/base/sysview.h). They are ranked by share
 * (capped at 1: past the limit is at the limit), ties by the order of
 * verdict_priority[]; the first at VERDICT_NAMED_SHARE or more is the
 * resource. Otherwise "none observed", whose evidence says what was
 * checked. The model, each rule and where its threshold comes from are in
 * docs/verdict.md.
 */
#ifndef ENGPASS_VERDICT_H
#define ENGPASS_VERDICT_H

#include <stdbool.h>

#include "core/observe/limits.h"
#include "core/result/result.h"
#include "core/base/sysview.h"

/* A candidate at this share or more is named (the USE method's "near saturation"). */
#define VERDICT_NAMED_SHARE 0.8
/*
 * A configured limit (own pacing, cpu quota, cpuset, io limit, memory
 * limit, shaper: the first VERDICT_CONFIGURED of verdict_priority[])
 * reached to this share ranks as at the limit.
 */
#define VERDICT_LIMIT_REACHED 0.9
#define VERDICT_CONFIGURED 6
/* Mean requests in flight from which a busy device counts as saturated (queue growth). */
#define VERDICT_DISK_QUEUE 2.0
/* Swap traffic at this many pages per second counts as at the limit of memory. */
#define VERDICT_SWAP_PAGES_PER_S 256.0
/* Memory stall (PSI some) at this share counts as at the limit of memory. */
#define VERDICT_PSI_MEM_PCT 10.0
/* Steal at or above this share is mentioned in the evidence of any verdict. */
#define VERDICT_STEAL_PCT 10.0
/* Run-queue wait of this share of a CPU counts as the work queueing (cpuset, other processes). */
#define VERDICT_QUEUED_PCT 25.0
/* Runnable time (CPU + run-queue wait, % of one CPU) from which "other processes" counts in full. */
#define VERDICT_RUNNABLE_PCT 50.0
/* Other processes at less than this share of one CPU cannot be what the work waited for. */
#define VERDICT_OTHERS_MIN_PCT 10.0

/*
 * A state of the work's time budget (core/observe/tstate.h) holding this share of
 * its thread time is named: its candidate's share is the state's fraction
 * scaled so that this fraction is VERDICT_NAMED_SHARE. The largest state
 * of TSA is what the work waited for once it holds clearly more than half
 * the time: at an even split between waiting and working neither bounds
 * alone, and a 2 s window sampled at 100 Hz gives a 50 % share to about
 * +-3.5 % (one standard error), which must not tip it.
 */
#define VERDICT_BUDGET_MAJORITY 0.55

struct verdict_input {
	const struct sysview *view;	/* NULL = the step was not sampled */
	const struct limits *limits;	/* NULL = not discovered */
};

/*
 * Judges the step into OUT, which may already hold the benchmark's
 * candidates (they win over a system candidate of the same resource).
 * Without a view and without a benchmark candidate at the named share,
 * the resource is "unknown".
 */
void verdict_judge(const struct verdict_input *in, struct verdict *out);

/*
 * The candidate a network wait's sock_diag judgement names, as the time
 * budget's own judged socket does (docs/verdict.md, "the network"): WHY is
 * sockdiag_why_name() of the judgement ("upstream", "receive window",
 * ...), PCT the share of the work's time it waited on the network (%),
 * WHAT the socket ("tcp 10.0.0.1:5201"; NULL or "" = "the network") and
 * EVIDENCE the judgement's figures. Fills C (resource, share, evidence,
 * next step) and returns true; false when the judgement names no limit
 * ("unknown", "" or a name it does not know) or PCT is not positive. For
 * a benchmark that judged the work's sockets itself (watch --pid) and
 * offers the candidate with result_verdict_candidate().
 */
bool verdict_net_candidate(const char *why, double pct, const char *what, const char *evidence,
			   struct verdict_candidate *c);

/* The resources in the order ties are broken, most specific first; NULL-terminated. */
extern const char *const verdict_priority[];

#endif
