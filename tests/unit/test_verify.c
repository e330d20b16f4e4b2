/* SPDX-License-Identifier: MIT */
/*
 * Tests of checking a verdict (src/core/result/verify.c, docs/verdict.md
 * "Checking the verdict"): the noise band (the default, a step's repeat
 * interval, its floor), the judgement in each direction and at the band's
 * edges, a configured limit's counters (moved, still, unknown, not
 * sampled), the limits no probe can test, the re-ranking after a refuted
 * candidate and the words of the verdict line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/result/result.h"
#include "core/result/verdict.h"
#include "core/result/verify.h"

/* A metric of one run (no interval), VALUE. */
static struct metric one_run(double value, bool higher_is_better)
{
	struct metric m = { .name = (char *)"throughput", .value = value, .min = value, .max = value,
			    .ci_lo = NAN, .ci_hi = NAN, .reps = 1, .higher_is_better = higher_is_better };

	return m;
}

static void test_band_default(void **state)
{
	struct metric m = one_run(200, true);
	struct verify_probe p;

	(void)state;
	verify_probe_init(&p, "round trip", &m);
	assert_string_equal(p.resource, "round trip");
	assert_string_equal(p.metric, "throughput");
	assert_true(p.base == 200);
	assert_true(fabs(p.lo - 200 * (1 - VERIFY_NOISE_DEFAULT)) < 1e-9);
	assert_true(fabs(p.hi - 200 * (1 + VERIFY_NOISE_DEFAULT)) < 1e-9);
	assert_non_null(strstr(p.interval_source, "default band"));
	assert_true(isnan(p.figure) && isnan(p.ratio));
	assert_int_equal(p.outcome, VERIFY_NONE);
	/* Two or fewer repeats have no interval: the default band too. */
	m.reps = 2;
	m.ci_lo = 199;
	m.ci_hi = 201;
	verify_probe_init(&p, "round trip", &m);
	assert_true(fabs(p.hi - 220) < 1e-9);
}

static void test_band_from_repeats(void **state)
{
	struct metric m = one_run(100, true);
	struct verify_probe p;

	(void)state;
	/* A wide interval of the median is the band, on each side as it is. */
	m.reps = 5;
	m.ci_lo = 80;
	m.ci_hi = 130;
	verify_probe_init(&p, "one core", &m);
	assert_true(fabs(p.lo - 80) < 1e-9);
	assert_true(fabs(p.hi - 130) < 1e-9);
	assert_non_null(strstr(p.interval_source, "5 repeats"));
	/* A narrow one is floored: the probe is one short run. */
	m.ci_lo = 99;
	m.ci_hi = 101;
	verify_probe_init(&p, "one core", &m);
	assert_true(fabs(p.lo - 100 * (1 - VERIFY_NOISE_FLOOR)) < 1e-9);
	assert_true(fabs(p.hi - 100 * (1 + VERIFY_NOISE_FLOOR)) < 1e-9);
	/* A negative figure's band is around it, not flipped. */
	m = one_run(-50, true);
	verify_probe_init(&p, "one core", &m);
	assert_true(p.lo < -50 && p.hi > -50);
}

static void test_band_no_figure(void **state)
{
	struct metric m = one_run(0, true);
	struct verify_probe p;

	(void)state;
	verify_probe_init(&p, "device latency", NULL);
	assert_true(isnan(p.base) && isnan(p.lo) && isnan(p.hi));
	verify_probe_init(&p, "device latency", &m);
	assert_true(isnan(p.base));
	m.value = NAN;
	verify_probe_init(&p, "device latency", &m);
	assert_true(isnan(p.base));
	p.figure = 10;
	verify_probe_judge(&p, true);
	assert_int_equal(p.outcome, VERIFY_NOT_VERIFIABLE);
	assert_non_null(strstr(p.why, "step"));
}

/* The judgement of FIGURE against a one-run step of BASE. */
static enum verify_outcome judged(double base, double figure, bool higher_is_better, double *ratio)
{
	struct metric m = one_run(base, higher_is_better);
	struct verify_probe p;

	verify_probe_init(&p, "x", &m);
	p.figure = figure;
	verify_probe_judge(&p, higher_is_better);
	if (ratio)
		*ratio = p.ratio;
	return p.outcome;
}

static void test_judge_rate(void **state)
{
	double r;

	(void)state;
	/* Up beyond the band: confirmed, with the ratio. */
	assert_int_equal(judged(100, 193, true, &r), VERIFY_CONFIRMED);
	assert_true(fabs(r - 1.93) < 1e-9);
	/* Inside the band either way: not confirmed. */
	assert_int_equal(judged(100, 102, true, &r), VERIFY_NOT_CONFIRMED);
	assert_true(fabs(r - 1.02) < 1e-9);
	assert_int_equal(judged(100, 95, true, NULL), VERIFY_NOT_CONFIRMED);
	/* On the band's edge (the default 10 %) is inside; just past it is out. */
	assert_int_equal(judged(100, 110, true, NULL), VERIFY_NOT_CONFIRMED);
	assert_int_equal(judged(100, 110.01, true, NULL), VERIFY_CONFIRMED);
	/* Down far, the wrong direction for a rate: not confirmed either. */
	assert_int_equal(judged(100, 13, true, &r), VERIFY_NOT_CONFIRMED);
	assert_true(fabs(r - 0.13) < 1e-9);
}

static void test_judge_latency(void **state)
{
	(void)state;
	/* Lower is better: down beyond the band confirms, up does not. */
	assert_int_equal(judged(1000, 600, false, NULL), VERIFY_CONFIRMED);
	assert_int_equal(judged(1000, 950, false, NULL), VERIFY_NOT_CONFIRMED);
	assert_int_equal(judged(1000, 1900, false, NULL), VERIFY_NOT_CONFIRMED);
	assert_int_equal(judged(1000, 900, false, NULL), VERIFY_NOT_CONFIRMED);
}

static void test_judge_no_probe_figure(void **state)
{
	struct metric m = one_run(100, true);
	struct verify_probe p;

	(void)state;
	verify_probe_init(&p, "x", &m);
	verify_probe_judge(&p, true);	/* figure left NaN */
	assert_int_equal(p.outcome, VERIFY_NOT_VERIFIABLE);
	assert_non_null(strstr(p.why, "probe"));
	/* A why already given stays. */
	verify_probe_init(&p, "x", &m);
	snprintf(p.why, sizeof(p.why), "the probe failed: no peer");
	verify_probe_judge(&p, true);
	assert_string_equal(p.why, "the probe failed: no peer");
}

static void test_configured(void **state)
{
	static const char *const yes[] = { "cpu quota", "cpuset", "io limit", "memory limit", "shaper", "link" };
	static const char *const no[] = { "one core", "round trip", "device latency", "other processes", "cpu", "" };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(verify_is_configured(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(verify_is_configured(no[i]));
}

/* A quiet view: every counter of the configured limits read and still. */
static void quiet(struct sysview *v)
{
	sysview_init(v);
	v->cg_cpu_throttled_pct = 0;
	v->cg_cpu_throttled_s = 0;
	v->qdisc_overlimits = v->qdisc_drops = v->qdisc_backlog_max_bytes = 0;
	v->cg_mem_limit_hits = v->cg_mem_high_events = v->cg_mem_oom_events = 0;
	v->work_wait_pct = 0;
}

/* The outcome of the counters of RESOURCE (at SHARE) over V. */
static enum verify_outcome counted(const struct sysview *v, const char *resource, double share, char *why,
				   size_t len)
{
	struct verdict_candidate c = { .share = share };
	struct verify_probe p;

	snprintf(c.resource, sizeof(c.resource), "%s", resource);
	verify_probe_init(&p, resource, NULL);
	verify_counters(v, &c, &p);
	if (why)
		snprintf(why, len, "%s", p.why);
	assert_string_equal(p.probe, "none: configured outside engpass, never changed");
	assert_true(p.probe_s == 0);
	return p.outcome;
}

static void test_counters(void **state)
{
	struct sysview v;
	char why[384];

	(void)state;
	quiet(&v);
	/* Still counters: not confirmed, for each. */
	assert_int_equal(counted(&v, "cpu quota", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	assert_int_equal(counted(&v, "shaper", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	assert_int_equal(counted(&v, "memory limit", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	assert_int_equal(counted(&v, "cpuset", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	/* Each moved: confirmed by counters, its figures in why. */
	v.cg_cpu_throttled_pct = 97;
	v.cg_cpu_throttled_s = 1.14;
	assert_int_equal(counted(&v, "cpu quota", 1, why, sizeof(why)), VERIFY_COUNTERS);
	assert_non_null(strstr(why, "throttled in 97 % of periods (1.14 s"));
	v.qdisc_backlog_max_bytes = 3000;
	assert_int_equal(counted(&v, "shaper", 1, why, sizeof(why)), VERIFY_COUNTERS);
	assert_non_null(strstr(why, "backlog up to 3000 bytes"));
	quiet(&v);
	v.qdisc_drops = 1;
	assert_int_equal(counted(&v, "shaper", 1, NULL, 0), VERIFY_COUNTERS);
	/* The ingress shaper's counters (an ifb's) count too, and are said. */
	quiet(&v);
	v.qdisc_in_bytes_per_s = 2.5e6;
	v.qdisc_in_overlimits = v.qdisc_in_drops = v.qdisc_in_backlog_max_bytes = 0;
	assert_int_equal(counted(&v, "shaper", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	v.qdisc_in_overlimits = 410;
	assert_int_equal(counted(&v, "shaper", 1, why, sizeof(why)), VERIFY_COUNTERS);
	assert_non_null(strstr(why, "0 overlimits, 0 drops, backlog up to 0 bytes; the ingress shaper's: 410 overlimits"));
	v.cg_mem_limit_hits = 12;
	assert_int_equal(counted(&v, "memory limit", 1, why, sizeof(why)), VERIFY_COUNTERS);
	assert_non_null(strstr(why, "hit 12 times"));
	/* cpuset: queued at the threshold counts, below it does not. */
	v.work_wait_pct = VERDICT_QUEUED_PCT;
	assert_int_equal(counted(&v, "cpuset", 1, NULL, 0), VERIFY_COUNTERS);
	v.work_wait_pct = VERDICT_QUEUED_PCT - 1;
	assert_int_equal(counted(&v, "cpuset", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	/* io limit and link by their share of the limit reached. */
	assert_int_equal(counted(&v, "io limit", VERDICT_LIMIT_REACHED, NULL, 0), VERIFY_COUNTERS);
	assert_int_equal(counted(&v, "io limit", VERDICT_LIMIT_REACHED - 0.01, NULL, 0), VERIFY_NOT_CONFIRMED);
	assert_int_equal(counted(&v, "link", 0.95, why, sizeof(why)), VERIFY_COUNTERS);
	assert_non_null(strstr(why, "95 % of its speed"));
	assert_int_equal(counted(&v, "link", NAN, NULL, 0), VERIFY_NOT_CONFIRMED);
}

static void test_counters_unknown(void **state)
{
	struct sysview v;
	char why[384];

	(void)state;
	/* Counters not read (NaN) moved nothing we know of: not confirmed, never confirmed. */
	sysview_init(&v);
	assert_int_equal(counted(&v, "cpu quota", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	assert_int_equal(counted(&v, "shaper", 1, NULL, 0), VERIFY_NOT_CONFIRMED);
	/* Not sampled: not verifiable, and why. */
	assert_int_equal(counted(NULL, "cpu quota", 1, why, sizeof(why)), VERIFY_NOT_VERIFIABLE);
	assert_non_null(strstr(why, "not sampled"));
	/* A resource without counters. */
	quiet(&v);
	assert_int_equal(counted(&v, "round trip", 1, why, sizeof(why)), VERIFY_NOT_VERIFIABLE);
	assert_non_null(strstr(why, "no counters known for round trip"));
}

static void test_method_limit(void **state)
{
	(void)state;
	assert_non_null(strstr(verify_method_limit("memory latency"), "the method is the limit"));
	assert_non_null(strstr(verify_method_limit("cache latency"), "pointer chase"));
	assert_non_null(verify_method_limit("none observed"));
	assert_non_null(verify_method_limit("unknown"));
	assert_non_null(verify_method_limit("steal"));
	assert_non_null(strstr(verify_method_limit("cpu"), "busy"));
	/* Relaxable ones have none. */
	assert_null(verify_method_limit("one core"));
	assert_null(verify_method_limit("round trip"));
	assert_null(verify_method_limit("device latency"));
	assert_null(verify_method_limit("other processes"));
	assert_null(verify_method_limit("memory bandwidth"));
}

/* A verdict naming the first of RESOURCES (shares falling by 0.2 from 1.0). */
static void ranked(struct verdict *v, const char *const *resources, size_t n)
{
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		struct verdict_candidate *c = &v->cand[v->ncand++];

		snprintf(c->resource, sizeof(c->resource), "%s", resources[i]);
		c->share = 1.0 - 0.2 * (double)i;
		snprintf(c->evidence, sizeof(c->evidence), "evidence of %s", resources[i]);
		snprintf(c->next_step, sizeof(c->next_step), "next for %s", resources[i]);
	}
	snprintf(v->resource, sizeof(v->resource), "%s", resources[0]);
	snprintf(v->evidence, sizeof(v->evidence), "%s", v->cand[0].evidence);
	snprintf(v->next_step, sizeof(v->next_step), "%s", v->cand[0].next_step);
}

/* Adds a tested candidate RESOURCE with outcome O (a probe of x RATIO when RATIO > 0) to V. */
static void tested(struct verdict *v, const char *resource, enum verify_outcome o, double ratio, const char *what)
{
	struct verify_probe *p = &v->verify.p[v->verify.n++];
	struct metric m = one_run(100, true);

	verify_probe_init(p, resource, &m);
	p->outcome = o;
	if (ratio > 0) {
		p->figure = 100 * ratio;
		p->ratio = ratio;
		p->probe_s = 1;
		snprintf(p->probe, sizeof(p->probe), "%s", what);
	} else if (what) {
		snprintf(p->why, sizeof(p->why), "%s", what);
	}
}

static void test_rerank_refuted_then_confirmed(void **state)
{
	static const char *const r[] = { "other processes", "device latency", "one core" };
	struct verdict v;
	char buf[1024];

	(void)state;
	ranked(&v, r, 3);
	tested(&v, "other processes", VERIFY_NOT_CONFIRMED, 0.13, "the work pinned to cpu0, the least busy");
	tested(&v, "device latency", VERIFY_CONFIRMED, 1.56, "queue depth 2");
	verify_rerank(&v);
	/* The refuted one goes last, the confirmed one is named with its own evidence. */
	assert_string_equal(v.verify.refuted, "other processes");
	assert_string_equal(v.resource, "device latency");
	assert_string_equal(v.evidence, "evidence of device latency");
	assert_string_equal(v.next_step, "next for device latency");
	assert_int_equal(v.ncand, 3);
	assert_string_equal(v.cand[0].resource, "device latency");
	assert_string_equal(v.cand[1].resource, "one core");
	assert_string_equal(v.cand[2].resource, "other processes");
	verify_describe(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not confirmed (x0.13 with the work pinned to cpu0, the least busy) -- next: "
				 "device latency confirmed (x1.56 with queue depth 2); re-ranked: device latency named "
				 "instead of other processes");
}

static void test_rerank_refuted_none_holds(void **state)
{
	static const char *const r[] = { "round trip", "server" };
	struct verdict v;
	char buf[1024];

	(void)state;
	ranked(&v, r, 2);
	tested(&v, "round trip", VERIFY_NOT_CONFIRMED, 0.98, "2 requests in flight");
	tested(&v, "server", VERIFY_NOT_VERIFIABLE, 0, "fetch has no probe for server");
	verify_rerank(&v);
	/* Refuted and moved below, but nothing else held: the name stays. */
	assert_string_equal(v.verify.refuted, "round trip");
	assert_string_equal(v.resource, "round trip");
	assert_string_equal(v.cand[0].resource, "server");
	assert_string_equal(v.cand[1].resource, "round trip");
	verify_describe(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not confirmed (x0.98 with 2 requests in flight) -- next: server not verifiable "
				 "here (fetch has no probe for server)");
}

static void test_rerank_counters_next(void **state)
{
	static const char *const r[] = { "one core", "shaper" };
	struct verdict v;

	(void)state;
	ranked(&v, r, 2);
	tested(&v, "one core", VERIFY_NOT_CONFIRMED, 1.01, "2 streams");
	tested(&v, "shaper", VERIFY_COUNTERS, 0, "the qdisc: 410 overlimits, 0 drops, backlog up to 0 bytes");
	verify_rerank(&v);
	assert_string_equal(v.resource, "shaper");
	assert_string_equal(v.verify.refuted, "one core");
}

static void test_rerank_nothing_to_do(void **state)
{
	static const char *const r[] = { "round trip", "one core" };
	enum verify_outcome first[] = { VERIFY_CONFIRMED, VERIFY_COUNTERS, VERIFY_NOT_VERIFIABLE, VERIFY_NOT_VERIFIED };
	struct verdict v;

	(void)state;
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) {
		ranked(&v, r, 2);
		tested(&v, "round trip", first[i], first[i] == VERIFY_CONFIRMED ? 1.9 : 0, "why");
		verify_rerank(&v);
		assert_string_equal(v.resource, "round trip");
		assert_string_equal(v.verify.refuted, "");
		assert_string_equal(v.cand[0].resource, "round trip");
	}
	/* Not tested at all. */
	ranked(&v, r, 2);
	verify_rerank(&v);
	assert_string_equal(v.resource, "round trip");
}

static void test_describe(void **state)
{
	static const char *const r[] = { "cpu quota" };
	struct verdict v;
	char buf[256];

	(void)state;
	ranked(&v, r, 1);
	verify_describe(&v, buf, sizeof(buf));
	assert_string_equal(buf, "");
	tested(&v, "cpu quota", VERIFY_COUNTERS, 0, "throttled in 97 % of periods (1.14 s, cpu.stat)");
	verify_describe(&v, buf, sizeof(buf));
	assert_string_equal(buf, "confirmed by counters (throttled in 97 % of periods (1.14 s, cpu.stat))");
	ranked(&v, r, 1);
	tested(&v, "cpu quota", VERIFY_NOT_CONFIRMED, 0, "throttled in 0 % of periods (0.00 s, cpu.stat)");
	verify_describe(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not confirmed by counters (throttled in 0 % of periods (0.00 s, cpu.stat))");
	ranked(&v, r, 1);
	tested(&v, "cpu quota", VERIFY_NOT_VERIFIED, 0, "time budget (the probe would take 0.7 s)");
	verify_describe(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not verified: time budget (the probe would take 0.7 s)");
	/* A short buffer is cut, never overrun. */
	verify_describe(&v, buf, 8);
	assert_string_equal(buf, "not ver");
}

/* The column's words (quick's summary, fleet): each outcome, a re-ranked verdict, a short buffer. */
static void test_brief(void **state)
{
	static const char *const r[] = { "other processes", "device latency" };
	static const char *const q[] = { "cpu quota" };
	struct verdict v;
	char buf[256];

	(void)state;
	ranked(&v, r, 2);
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "");
	tested(&v, "other processes", VERIFY_CONFIRMED, 1.934, "the work pinned to cpu0, the least busy");
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "confirmed x1.93");
	ranked(&v, r, 2);
	tested(&v, "other processes", VERIFY_NOT_CONFIRMED, 0.98, "the work pinned to cpu0, the least busy");
	tested(&v, "device latency", VERIFY_NOT_VERIFIABLE, 0, "disk has no probe here");
	verify_rerank(&v);
	/* Refuted, nothing else held: the verdict still names it, so no "re-ranked". */
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not confirmed x0.98, then device latency not verifiable");
	ranked(&v, r, 2);
	tested(&v, "other processes", VERIFY_NOT_CONFIRMED, 0.47, "the work pinned to cpu0, the least busy");
	tested(&v, "device latency", VERIFY_CONFIRMED, 1.12, "queue depth 2");
	verify_rerank(&v);
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "re-ranked: other processes not confirmed x0.47, then device latency confirmed x1.12");
	ranked(&v, q, 1);
	tested(&v, "cpu quota", VERIFY_COUNTERS, 0, "throttled in 97 % of periods (1.14 s, cpu.stat)");
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "confirmed by counters");
	ranked(&v, q, 1);
	tested(&v, "cpu quota", VERIFY_NOT_CONFIRMED, 0, "throttled in 0 % of periods (0.00 s, cpu.stat)");
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not confirmed by counters");
	ranked(&v, q, 1);
	tested(&v, "cpu quota", VERIFY_NOT_VERIFIED, 0, "time budget (the probe would take 0.7 s)");
	verify_brief(&v, buf, sizeof(buf));
	assert_string_equal(buf, "not verified: time budget");
	/* A short buffer is cut, never overrun. */
	verify_brief(&v, buf, 8);
	assert_string_equal(buf, "not ver");
}

static void test_outcome_names(void **state)
{
	enum verify_outcome all[] = { VERIFY_CONFIRMED, VERIFY_NOT_CONFIRMED, VERIFY_COUNTERS, VERIFY_NOT_VERIFIABLE,
				      VERIFY_NOT_VERIFIED };

	(void)state;
	/* Each name reads back as its outcome (JSON, load.c). */
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_int_equal(verify_outcome_from_name(verify_outcome_name(all[i])), all[i]);
	assert_string_equal(verify_outcome_name(VERIFY_NOT_VERIFIED), "not verified");
	assert_int_equal(verify_outcome_from_name("maybe"), VERIFY_NONE);
	assert_int_equal(verify_outcome_from_name(NULL), VERIFY_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_band_default),
		cmocka_unit_test(test_band_from_repeats),
		cmocka_unit_test(test_band_no_figure),
		cmocka_unit_test(test_judge_rate),
		cmocka_unit_test(test_judge_latency),
		cmocka_unit_test(test_judge_no_probe_figure),
		cmocka_unit_test(test_configured),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_counters_unknown),
		cmocka_unit_test(test_method_limit),
		cmocka_unit_test(test_rerank_refuted_then_confirmed),
		cmocka_unit_test(test_rerank_refuted_none_holds),
		cmocka_unit_test(test_rerank_counters_next),
		cmocka_unit_test(test_rerank_nothing_to_do),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_outcome_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
