/* SPDX-License-Identifier: MIT */
/*
 * The result model. A run holds the tool version, the time, the host and
 * the box description; then one result per benchmark step. A result holds
 * its parameters, a method block (how the number was obtained), metrics with
 * explicit units, histograms, the system view sampled during the step and
 * the verdict. Benchmarks fill results; renderers in src/out/ walk them and
 * never invent a number that is not here.
 *
 * Every string stored in a result is copied and owned by it; result_free()
 * releases everything, including histograms and the attached sampler.
 */
#ifndef ENGPASS_RESULT_H
#define ENGPASS_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "core/base/hist.h"
#include "core/base/sysview.h"

struct sampler;
struct sysinfo;

/*
 * Units. Each has a fixed suffix for machine-readable keys, so a metric
 * "read" in UNIT_BYTES_PER_S appears in JSON as "read_bytes_per_second".
 */
enum unit {
	UNIT_COUNT,		/* "" : a plain count */
	UNIT_BYTES,		/* "_bytes" */
	UNIT_BYTES_PER_S,	/* "_bytes_per_second" */
	UNIT_BITS_PER_S,	/* "_bits_per_second" */
	UNIT_NS,		/* "_ns" */
	UNIT_SECONDS,		/* "_seconds" */
	UNIT_PERCENT,		/* "_percent" */
	UNIT_PER_S,		/* "_per_second" : operations, requests, packets */
	UNIT_MHZ,		/* "_mhz" */
	UNIT_RATIO,		/* "_ratio" : dimensionless factor */
};

/* Key suffix for UNIT, e.g. "_bytes_per_second"; returned string is static. */
const char *unit_suffix(enum unit u);
/*
 * The unit of a machine-readable metric key, by its longest matching
 * suffix ("read_bytes_per_second" -> UNIT_BYTES_PER_S); *NAMELEN (may be
 * NULL) gets the length of the name before the suffix. No suffix: a count.
 */
enum unit unit_from_key(const char *key, size_t *namelen);
/* Short human unit name, e.g. "B/s"; returned string is static. */
const char *unit_name(enum unit u);

enum result_status {
	RESULT_OK,
	RESULT_SKIPPED,		/* could not run here or in this build; reason says why */
	RESULT_FAILED,		/* tried and failed; reason says why */
};

/* Returned string is static: "ok", "skipped", "failed". */
const char *result_status_name(enum result_status s);

struct kv {
	char *key;
	char *value;
};

struct metric {
	char *name;		/* e.g. "read", "lat_p99" */
	enum unit unit;
	double value;		/* the figure; with repetitions, the median */
	double min, max;	/* over repetitions; equal to value when reps == 1 */
	/*
	 * The interval of the median over repetitions (median_interval): NaN
	 * when reps < 3. ci_coverage is its coverage, 0.95 or more from N = 6
	 * on, less for [min, max] at N = 3..5.
	 */
	double ci_lo, ci_hi, ci_coverage;
	unsigned reps;		/* repetitions that produced this metric */
	bool higher_is_better;
	char *label;		/* human label, e.g. "cached read"; may be NULL */
};

struct result_hist {
	char *name;		/* e.g. "lat" */
	enum unit unit;		/* of the recorded values, normally UNIT_NS */
	struct hist *h;		/* owned */
};

/*
 * One candidate limiter of a step: how close the step came to it (SHARE:
 * measured / limit, or a saturation share such as throttled periods, 1.0
 * = at the limit; NaN = could not be judged) with one line of evidence and
 * what would move the figure if this were the limit.
 */
struct verdict_candidate {
	char resource[32];	/* "cpu quota", "shaper", "round trip", ... (docs/verdict.md) */
	double share;
	char evidence[384];
	char next_step[192];
};

#define VERDICT_MAX_CANDIDATES 16

/*
 * --verify (docs/verdict.md "Checking the verdict"): one candidate tested,
 * by a probe of the same benchmark with that one limit relaxed (its own
 * parameters only) or, for a limit configured outside engpass, by that
 * limit's own counters. The probe's figure is the step's headline metric.
 */
enum verify_outcome {
	VERIFY_NONE,		/* not tested (no --verify, or nothing named) */
	VERIFY_CONFIRMED,	/* the figure moved by at least the noise, as predicted */
	VERIFY_NOT_CONFIRMED,	/* it did not */
	VERIFY_COUNTERS,	/* a configured limit whose counters show it bounded the step */
	VERIFY_NOT_VERIFIABLE,	/* no probe can test it here; why says so */
	VERIFY_NOT_VERIFIED,	/* a probe could test it but did not run (quick's time budget); why says so */
};

/*
 * Returned string is static: "", "confirmed", "not confirmed", "confirmed by counters", "not verifiable",
 * "not verified".
 */
const char *verify_outcome_name(enum verify_outcome o);
/* The outcome called NAME (verify_outcome_name's words); VERIFY_NONE when none. */
enum verify_outcome verify_outcome_from_name(const char *name);

struct verify_probe {
	char resource[32];	/* the candidate tested */
	enum verify_outcome outcome;
	char probe[64];		/* what was relaxed, in the verdict line's words: "2 streams" */
	char parameters[96];	/* the probe's options as given on the command line: "--parallel 2" */
	char metric[32];	/* the figure compared: the step's headline ("throughput") */
	double base;		/* the step's figure; NaN none */
	double figure;		/* the probe's; NaN none */
	double ratio;		/* figure / base; NaN none */
	/*
	 * The noise band around BASE: a move inside [lo, hi] is not real
	 * (its source: the step's repeat interval, or the default band).
	 */
	double lo, hi;
	char interval_source[48];
	double probe_s;		/* the probe's wall time; 0 none ran */
	char why[384];		/* not verifiable: why (an observer's hint); counters: what they showed; else "" */
};

#define VERIFY_MAX_PROBES 3

struct verify {
	size_t n;			/* candidates tested, in order */
	struct verify_probe p[VERIFY_MAX_PROBES];
	char refuted[32];		/* the candidate first named and refuted (re-ranked below); "" none */
};

struct verdict {
	char resource[32];	/* the first candidate at >= 80 %, "none observed" or "unknown" */
	char evidence[384];	/* one human sentence with the numbers that decided */
	char next_step[192];	/* what would move the figure; "" = nothing to say */
	struct verdict_candidate cand[VERDICT_MAX_CANDIDATES];	/* ranked, highest share first */
	size_t ncand;
	struct verify verify;	/* --verify: what tested it (n 0 = not tested) */
};

/* One reporting interval of a step (iperf3 -i): seconds from the start of the counted time, bytes moved. */
struct result_interval {
	double start_s, end_s;
	double bytes;
};

struct result {
	char *bench;		/* benchmark name */
	char *step;		/* step label within the benchmark, may equal bench */
	enum result_status status;
	char *reason;		/* for skipped/failed; for ok and incomplete, what stopped it (a signal), else NULL */
	bool incomplete;	/* stopped early (signal, ENOSPC, EIO): figures cover what ran */
	struct kv *params; size_t nparams;
	struct kv *method; size_t nmethod;
	struct metric *metrics; size_t nmetrics;
	struct result_hist *hists; size_t nhists;
	char **notes; size_t nnotes;	/* caveats printed with the result */
	struct result_interval *intervals; size_t nintervals;	/* iperf3 -i; not kept over --repeat */
	char *headline;		/* name of the metric that sums the step up; NULL = none */
	double duration_s;	/* wall time of the step, all repetitions */
	/*
	 * Wall time of the step as the runner ran it: its window and sampler,
	 * the repetitions, the verdict (and, in quick, its peer's start); 0
	 * unknown (a document from before it was recorded).
	 */
	double wall_s;
	int64_t time_ns;	/* wall clock when its figures were taken (the step's end), ns since the epoch; 0 unknown */
	unsigned reps;
	bool have_view;
	struct sysview view;
	struct sampler *series;	/* owned; NULL when not sampled */
	struct verdict verdict;
	char *sweep;		/* the `engpass sweep` combination that made it ("--cache 8M"); NULL = none */
};

/* New empty result for BENCH/STEP; caller frees with result_free(). */
struct result *result_new(const char *bench, const char *step);
void result_free(struct result *r);

/* Sets the step label (formatted, copied), e.g. "chacha20-poly1305/1400B". */
void result_set_step(struct result *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Sets the sweep combination (copied), e.g. "--cache 8M --sync none". */
void result_set_sweep(struct result *r, const char *combination);
/* Sets status and a formatted reason (copied). */
void result_set_status(struct result *r, enum result_status s, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Marks R incomplete: it stopped early (signal, ENOSPC, EIO) and its figures cover what ran. */
void result_set_incomplete(struct result *r);
/*
 * Names the resource that bounded the step (e.g. "rate limit", "round
 * trips") with one formatted sentence of evidence; both are truncated to
 * the verdict's fields. A benchmark that knows its limit better than the
 * system view does sets it; the runner judges only steps without one.
 */
void result_set_verdict(struct result *r, const char *resource, const char *fmt, ...) PRINTF_LIKE(3, 4);
/*
 * Offers a candidate limiter the benchmark knows of (the round trip, its
 * own pacing, memory latency, a TCP window) for the runner's verdict,
 * which ranks it with what the system view and the discovered limits
 * offer. SHARE as in struct verdict_candidate; NEXT_STEP may be NULL. A
 * candidate for a resource already offered replaces it. Past
 * VERDICT_MAX_CANDIDATES the lowest share is dropped.
 */
void result_verdict_candidate(struct result *r, const char *resource, double share, const char *next_step,
			      const char *fmt, ...) PRINTF_LIKE(5, 6);
/* Whether a verdict was set (by the benchmark or the runner). */
bool result_has_verdict(const struct result *r);
/* Adds a parameter or a method entry (formatted value, copied). */
void result_param(struct result *r, const char *key, const char *fmt, ...) PRINTF_LIKE(3, 4);
void result_method(struct result *r, const char *key, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Adds a caveat that renderers print next to the figures. */
void result_note(struct result *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Adds a reporting interval (JSON "intervals", in iperf3's shape). */
void result_interval(struct result *r, double start_s, double end_s, double bytes);
/*
 * Adds a metric and returns it (owned by R; valid until the next
 * result_metric call). LABEL may be NULL.
 */
struct metric *result_metric(struct result *r, const char *name, enum unit unit, double value,
			     const char *label);
/*
 * Names the metric that sums the step up (the one a summary table shows,
 * e.g. "read" for a read test). Copied.
 */
void result_headline(struct result *r, const char *metric);
/* Finds a metric by name; NULL when absent. */
const struct metric *result_find_metric(const struct result *r, const char *name);
/* Adds a copy of H under NAME. */
void result_hist(struct result *r, const char *name, enum unit unit, const struct hist *h);
/* Attaches a stopped sampler: takes ownership, ends its sampling (sampler_done: its files
 * and working state go, the series stays), fills view from its summary. */
void result_attach_sampler(struct result *r, struct sampler *s);

/*
 * Combines N repetitions of one step into DST (a new result copying the
 * first repetition's parameters, method and notes): each metric's value
 * becomes the median over the repetitions that have it, with min, max and
 * the interval of the median (median_interval);
 * histograms are merged. A repetition that failed makes DST failed with
 * its reason. Caller frees DST with result_free().
 */
struct result *result_merge_reps(struct result **reps, size_t n);

/*
 * The distribution-free interval of the median of the N ascending values V
 * from order statistics: [V(k), V(N+1-k)] (ranks from 1), k the largest rank
 * with P(B <= k-1) <= 0.025 for B ~ Binomial(N, 1/2); its coverage
 * 1 - 2 P(B <= k-1) is at least 95 % whatever the distribution (docs/json.md).
 * N = 3..5 has no such k: [min, max], coverage 1 - 2/2^N (75 %, 87.5 %,
 * 93.75 %). N < 3: LO, HI and COVERAGE are NaN.
 */
void median_interval(const double *v, size_t n, double *lo, double *hi, double *coverage);

/* The rank k of median_interval for N values (0 when N < 6) and its coverage (NaN when k == 0). */
size_t median_interval_rank(size_t n, double *coverage);

/* A figure is unstable when its interval reaches further than this share of the median from it. */
#define RESULT_UNSTABLE_SHARE 0.05

/* True when M has an interval that reaches beyond RESULT_UNSTABLE_SHARE of its median. */
bool metric_unstable(const struct metric *m);

/* The median of V[0..N), N > 0; sorts V. Even N: the mean of the middle two. */
double median_sort(double *v, size_t n);

struct run {
	char *tool_version;
	int64_t time_ns;	/* wall clock at start, ns since the epoch */
	char *host;
	char *command;		/* the command line, joined */
	struct sysinfo *info;	/* owned; may be NULL */
	struct result **results; size_t nresults;
};

/*
 * New run stamped with now and the host name ($ENGPASS_HOST when set and not
 * empty: fleets whose hosts share one hostname, tests); caller frees with
 * run_free().
 */
struct run *run_new(const char *version, int argc, char **argv);
/* Appends R to the run, which takes ownership. */
void run_add(struct run *run, struct result *r);
void run_free(struct run *run);

#endif
