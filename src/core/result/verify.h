/* SPDX-License-Identifier: MIT */
/*
 * Checking a verdict (--verify, docs/verdict.md "Checking the verdict"):
 * the rules that need no benchmark. Brendan Gregg's active benchmarking
 * asks of a named limiter: change the one thing it predicts matters and
 * see whether the number moves. The command layer runs the probe (a short
 * run of the same benchmark with that one limit relaxed, by the
 * benchmark's own relax() hook); this module says what a move must be to
 * count (the noise band), judges a probe against it, confirms a limit
 * configured outside engpass from its own counters (engpass never changes
 * one), names the limits no probe can test, and re-ranks the verdict when
 * its first candidate was refuted.
 */
#ifndef ENGPASS_VERIFY_H
#define ENGPASS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result/result.h"
#include "core/base/sysview.h"

/*
 * The noise band without repetitions: a probe's figure must move by 10 %
 * of the step's to count. A single short run of a loopback stream or a
 * virtio disk on a shared 2-CPU VM varies by a few per cent between runs
 * (docs/verdict.md has the runs); 10 % is twice that.
 */
#define VERIFY_NOISE_DEFAULT 0.10
/*
 * The narrowest band even with repetitions: the probe itself is one short
 * run, whose own noise the step's interval does not include.
 */
#define VERIFY_NOISE_FLOOR 0.05
/* Probes run per step at most: the named candidate and, when refuted, the next. */
#define VERIFY_MAX_RUNS 2
/* A candidate below this share is not worth a probe as the next one. */
#define VERIFY_NEXT_MIN_SHARE 0.25

/*
 * Starts P for candidate RESOURCE against metric M (the step's headline):
 * the base figure and the noise band around it, from M's interval of the
 * median when the step was repeated (at least VERIFY_NOISE_FLOOR either
 * side), else VERIFY_NOISE_DEFAULT; interval_source says which. M may be
 * NULL (base NaN).
 */
void verify_probe_init(struct verify_probe *p, const char *resource, const struct metric *m);

/*
 * Judges P's probe figure (set by the caller) against its band: sets the
 * ratio and the outcome, confirmed when the figure left the band in the
 * predicted direction (up when HIGHER_IS_BETTER, else down), not
 * confirmed otherwise; not verifiable when either figure is missing.
 */
void verify_probe_judge(struct verify_probe *p, bool higher_is_better);

/*
 * Whether RESOURCE is a limit configured outside engpass (cpu quota,
 * cpuset, io limit, memory limit, shaper, link): never changed by a probe.
 */
bool verify_is_configured(const char *resource);

/*
 * A configured limit's own counters over the step, from view V: sets P's
 * outcome (confirmed by counters when they show the limit acted:
 * throttled periods, the qdisc's overlimits, drops or backlog, failcnt,
 * the throttle's serviced bytes at VERDICT_LIMIT_REACHED of it, the
 * work queued for its allowed CPUs) and why (the figures). C is the
 * candidate (its share decides for io limit and link). V NULL: not
 * verifiable (not sampled).
 */
void verify_counters(const struct sysview *v, const struct verdict_candidate *c, struct verify_probe *p);

/*
 * Why no probe can test RESOURCE anywhere (the method is the limit:
 * memory and cache latency, ...); NULL when a benchmark may relax it.
 * The string is static.
 */
const char *verify_method_limit(const char *resource);

/*
 * After the probes in V->verify: when the first candidate tested (the one
 * named) was not confirmed, it goes below every other candidate and
 * verify.refuted names it; when a later one was confirmed (by a probe or
 * its counters), the verdict names that one (resource, evidence, next
 * step). Nothing changes otherwise.
 */
void verify_rerank(struct verdict *v);

/*
 * The verdict line's words for the verification of V into BUF: "confirmed
 * (x1.93 with 2 streams)", "not confirmed (x1.02 with 2 requests in
 * flight) -- next: server not verifiable (...)", "confirmed by counters
 * (...)", "not verifiable here (...)"; "" when nothing was tested.
 */
void verify_describe(const struct verdict *v, char *buf, size_t len);

/*
 * The verification of V in a few words for a table's column (quick's
 * summary, fleet) into BUF: "confirmed x1.93", "not confirmed x1.02, then
 * server not verifiable", "confirmed by counters", "not verified: time
 * budget"; re-ranked, the refuted candidate is named first ("re-ranked:
 * device latency not confirmed x0.47, then other processes confirmed
 * x1.12"), since the verdict beside it names the new one. "" when
 * nothing was tested; verify_describe() has the whole sentence.
 */
void verify_brief(const struct verdict *v, char *buf, size_t len);

#endif
