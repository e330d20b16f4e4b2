/* SPDX-License-Identifier: MIT */
/*
 * Checking a verdict: the noise band, the judgement of a probe, a
 * configured limit's counters and the re-ranking (core/result/verify.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/result/verdict.h"
#include "core/result/verify.h"

void verify_probe_init(struct verify_probe *p, const char *resource, const struct metric *m)
{
	double lo = VERIFY_NOISE_DEFAULT, hi = VERIFY_NOISE_DEFAULT;

	memset(p, 0, sizeof(*p));
	snprintf(p->resource, sizeof(p->resource), "%s", resource);
	p->base = p->figure = p->ratio = p->lo = p->hi = NAN;
	if (!m || !isfinite(m->value) || m->value == 0)
		return;
	snprintf(p->metric, sizeof(p->metric), "%s", m->name);
	p->base = m->value;
	if (m->reps >= 3 && isfinite(m->ci_lo) && isfinite(m->ci_hi)) {
		lo = (m->value - m->ci_lo) / fabs(m->value);
		hi = (m->ci_hi - m->value) / fabs(m->value);
		if (lo < VERIFY_NOISE_FLOOR)
			lo = VERIFY_NOISE_FLOOR;
		if (hi < VERIFY_NOISE_FLOOR)
			hi = VERIFY_NOISE_FLOOR;
		snprintf(p->interval_source, sizeof(p->interval_source), "the step's %u repeats (at least %.0f %%)",
			 m->reps, VERIFY_NOISE_FLOOR * 100);
	} else {
		snprintf(p->interval_source, sizeof(p->interval_source), "default band +-%.0f %%",
			 VERIFY_NOISE_DEFAULT * 100);
	}
	p->lo = p->base - lo * fabs(p->base);
	p->hi = p->base + hi * fabs(p->base);
}

void verify_probe_judge(struct verify_probe *p, bool higher_is_better)
{
	if (!isfinite(p->base) || !isfinite(p->figure) || p->base == 0) {
		p->outcome = VERIFY_NOT_VERIFIABLE;
		if (!p->why[0])
			snprintf(p->why, sizeof(p->why), "the %s has no figure to compare",
				 isfinite(p->base) ? "probe" : "step");
		return;
	}
	p->ratio = p->figure / p->base;
	if (higher_is_better ? p->figure > p->hi : p->figure < p->lo)
		p->outcome = VERIFY_CONFIRMED;
	else
		p->outcome = VERIFY_NOT_CONFIRMED;
}

/* The limits configured outside engpass, as verdict.c names them. */
static const char *const configured[] = { "cpu quota", "cpuset", "io limit", "memory limit", "shaper", "link", NULL };

bool verify_is_configured(const char *resource)
{
	for (size_t i = 0; configured[i]; i++)
		if (!strcmp(resource, configured[i]))
			return true;
	return false;
}

/* NaN as 0: a counter that was not read moved nothing we know of. */
static double z(double x)
{
	return isfinite(x) ? x : 0;
}

void verify_counters(const struct sysview *v, const struct verdict_candidate *c, struct verify_probe *p)
{
	const char *r = c->resource;
	bool moved = false;

	snprintf(p->probe, sizeof(p->probe), "none: configured outside engpass, never changed");
	if (!v) {
		p->outcome = VERIFY_NOT_VERIFIABLE;
		snprintf(p->why, sizeof(p->why), "the step was not sampled (--no-sample): no counters of the %s", r);
		return;
	}
	if (!strcmp(r, "cpu quota")) {
		moved = z(v->cg_cpu_throttled_pct) > 0;
		snprintf(p->why, sizeof(p->why), "throttled in %.0f %% of periods (%.2f s, cpu.stat)",
			 z(v->cg_cpu_throttled_pct), z(v->cg_cpu_throttled_s));
	} else if (!strcmp(r, "shaper")) {
		/* The egress qdisc's, and the ingress shaper's (an ifb's) when there is one. */
		bool out = z(v->qdisc_overlimits) > 0 || z(v->qdisc_drops) > 0 || z(v->qdisc_backlog_max_bytes) > 0;
		bool in = z(v->qdisc_in_overlimits) > 0 || z(v->qdisc_in_drops) > 0 ||
			  z(v->qdisc_in_backlog_max_bytes) > 0;
		int n = snprintf(p->why, sizeof(p->why), "the qdisc: %.0f overlimits, %.0f drops, backlog up to %.0f bytes",
				 z(v->qdisc_overlimits), z(v->qdisc_drops), z(v->qdisc_backlog_max_bytes));

		if (isfinite(v->qdisc_in_bytes_per_s) && n > 0 && (size_t)n < sizeof(p->why))
			snprintf(p->why + n, sizeof(p->why) - (size_t)n, "; the ingress shaper's: %.0f overlimits, %.0f "
				 "drops, backlog up to %.0f bytes", z(v->qdisc_in_overlimits), z(v->qdisc_in_drops),
				 z(v->qdisc_in_backlog_max_bytes));
		moved = out || in;
	} else if (!strcmp(r, "memory limit")) {
		moved = z(v->cg_mem_limit_hits) > 0 || z(v->cg_mem_high_events) > 0 || z(v->cg_mem_oom_events) > 0;
		snprintf(p->why, sizeof(p->why), "the limit was hit %.0f times (failcnt or events max), %.0f high "
			 "events, %.0f OOM kills", z(v->cg_mem_limit_hits), z(v->cg_mem_high_events),
			 z(v->cg_mem_oom_events));
	} else if (!strcmp(r, "cpuset")) {
		moved = z(v->work_wait_pct) >= VERDICT_QUEUED_PCT;
		snprintf(p->why, sizeof(p->why), "the work queued %.0f %% of a CPU for its allowed CPUs (schedstat; "
			 "%.0f %% counts)", z(v->work_wait_pct), VERDICT_QUEUED_PCT);
	} else if (!strcmp(r, "io limit")) {
		moved = isfinite(c->share) && c->share >= VERDICT_LIMIT_REACHED;
		snprintf(p->why, sizeof(p->why), "the cgroup's serviced I/O reached %.0f %% of the throttle "
			 "(blkio/io.stat counters; %.0f %% counts)", z(c->share) * 100, VERDICT_LIMIT_REACHED * 100);
	} else if (!strcmp(r, "link")) {
		moved = isfinite(c->share) && c->share >= VERDICT_LIMIT_REACHED;
		snprintf(p->why, sizeof(p->why), "the interface's byte counters reached %.0f %% of its speed "
			 "(%.0f %% counts)", z(c->share) * 100, VERDICT_LIMIT_REACHED * 100);
	} else {
		p->outcome = VERIFY_NOT_VERIFIABLE;
		snprintf(p->why, sizeof(p->why), "no counters known for %s", r);
		return;
	}
	p->outcome = moved ? VERIFY_COUNTERS : VERIFY_NOT_CONFIRMED;
}

const char *verify_method_limit(const char *resource)
{
	static const struct {
		const char *resource, *why;
	} m[] = {
		{ "memory latency", "the method is the limit: each load of the pointer chase waits for the previous one" },
		{ "cache latency", "the method is the limit: each load of the pointer chase waits for the previous one" },
		{ "none observed", "no limit was named: nothing to relax" },
		{ "unknown", "the step was not judged: nothing to relax" },
		{ "see client", "the client's result carries the verdict" },
		{ "steal", "the hypervisor's other guests take the CPU: nothing engpass may change" },
		{ "thermal throttling", "the CPU's temperature: nothing engpass may change" },
		{ "cpu", "every CPU the work may use was busy: there is none to add" },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(resource, m[i].resource))
			return m[i].why;
	return NULL;
}

static bool outcome_holds(enum verify_outcome o)
{
	return o == VERIFY_CONFIRMED || o == VERIFY_COUNTERS;
}

void verify_rerank(struct verdict *v)
{
	const struct verify *vf = &v->verify;
	const struct verify_probe *now = NULL;
	struct verdict_candidate moved;
	size_t i, k;

	if (!vf->n || vf->p[0].outcome != VERIFY_NOT_CONFIRMED)
		return;
	for (k = 0; k < v->ncand && strcmp(v->cand[k].resource, vf->p[0].resource); k++)
		;
	if (k < v->ncand) {
		moved = v->cand[k];
		memmove(&v->cand[k], &v->cand[k + 1], (v->ncand - k - 1) * sizeof(v->cand[0]));
		v->cand[v->ncand - 1] = moved;
	}
	snprintf(v->verify.refuted, sizeof(v->verify.refuted), "%s", vf->p[0].resource);
	for (i = 1; i < vf->n && !now; i++)
		if (outcome_holds(vf->p[i].outcome))
			now = &vf->p[i];
	if (!now)
		return;
	for (k = 0; k < v->ncand; k++) {
		if (!strcmp(v->cand[k].resource, now->resource)) {
			snprintf(v->resource, sizeof(v->resource), "%s", v->cand[k].resource);
			snprintf(v->evidence, sizeof(v->evidence), "%s", v->cand[k].evidence);
			snprintf(v->next_step, sizeof(v->next_step), "%s", v->cand[k].next_step);
			return;
		}
	}
}

/* One probe's words: "confirmed (x1.93 with 2 streams)". */
static size_t probe_words(const struct verify_probe *p, char *buf, size_t len)
{
	switch (p->outcome) {
	case VERIFY_CONFIRMED:
	case VERIFY_NOT_CONFIRMED:
		if (p->probe_s > 0)
			return (size_t)snprintf(buf, len, "%s (x%.2f with %s)", verify_outcome_name(p->outcome), p->ratio,
						p->probe);
		/* A configured limit whose counters did not move. */
		return (size_t)snprintf(buf, len, "%s by counters (%s)", verify_outcome_name(p->outcome), p->why);
	case VERIFY_COUNTERS:
		return (size_t)snprintf(buf, len, "confirmed by counters (%s)", p->why);
	case VERIFY_NOT_VERIFIABLE:
		return (size_t)snprintf(buf, len, "not verifiable here (%s)", p->why);
	case VERIFY_NOT_VERIFIED:
		return (size_t)snprintf(buf, len, "not verified: %s", p->why);
	case VERIFY_NONE:
		break;
	}
	return (size_t)snprintf(buf, len, "not tested");
}

void verify_describe(const struct verdict *v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < v->verify.n && n < len; i++) {
		const struct verify_probe *p = &v->verify.p[i];

		if (i)
			n += (size_t)snprintf(buf + n, len - n, " -- next: %s ", p->resource);
		if (n < len)
			n += probe_words(p, buf + n, len - n);
	}
	if (v->verify.refuted[0] && strcmp(v->verify.refuted, v->resource) && n < len)
		snprintf(buf + n, len - n, "; re-ranked: %s named instead of %s", v->resource, v->verify.refuted);
}

/* One tested candidate in a few words: "confirmed x1.87", "not verified: time budget". */
static int probe_brief(char *buf, size_t len, const struct verify_probe *p)
{
	switch (p->outcome) {
	case VERIFY_CONFIRMED:
	case VERIFY_NOT_CONFIRMED:
		if (p->probe_s > 0)
			return snprintf(buf, len, "%s x%.2f", verify_outcome_name(p->outcome), p->ratio);
		return snprintf(buf, len, "%s by counters", verify_outcome_name(p->outcome));
	case VERIFY_NOT_VERIFIED:
		/* The why's first words: "time budget (...)". */
		return snprintf(buf, len, "not verified: %.*s", (int)strcspn(p->why, "("), p->why);
	case VERIFY_COUNTERS:
	case VERIFY_NOT_VERIFIABLE:
	case VERIFY_NONE:
		break;
	}
	return snprintf(buf, len, "%s", verify_outcome_name(p->outcome));
}

void verify_brief(const struct verdict *v, char *buf, size_t len)
{
	const struct verify *vf = &v->verify;
	int n = 0;

	if (!len)
		return;
	buf[0] = 0;
	if (!vf->n)
		return;
	if (vf->refuted[0] && strcmp(vf->refuted, v->resource))
		n = snprintf(buf, len, "re-ranked: %s ", vf->p[0].resource);
	if (n < 0 || (size_t)n >= len)
		return;
	n += probe_brief(buf + n, len - (size_t)n, &vf->p[0]);
	for (size_t i = 1; i < vf->n && n > 0 && (size_t)n < len; i++) {
		int k = snprintf(buf + n, len - (size_t)n, ", then %s ", vf->p[i].resource);

		if (k < 0 || (size_t)(n + k) >= len)
			break;
		n += k;
		n += probe_brief(buf + n, len - (size_t)n, &vf->p[i]);
	}
	/* A trailing blank of a why cut at its "(". */
	while (*buf && buf[strlen(buf) - 1] == ' ')
		buf[strlen(buf) - 1] = 0;
}
