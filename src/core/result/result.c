/* SPDX-License-Identifier: MIT */
/*
 * The result model; see result.h. Arrays grow by doubling; results are small
 * (tens of metrics), so nothing here is on a hot path.
 */
#include "result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/observe/sampler.h"
#include "core/kernel/sysinfo.h"
#include "lib/xalloc.h"

static const struct {
	const char *suffix, *name;
} units[] = {
	[UNIT_COUNT] = { "", "" },
	[UNIT_BYTES] = { "_bytes", "B" },
	[UNIT_BYTES_PER_S] = { "_bytes_per_second", "B/s" },
	[UNIT_BITS_PER_S] = { "_bits_per_second", "bit/s" },
	[UNIT_NS] = { "_ns", "ns" },
	[UNIT_SECONDS] = { "_seconds", "s" },
	[UNIT_PERCENT] = { "_percent", "%" },
	[UNIT_PER_S] = { "_per_second", "/s" },
	[UNIT_MHZ] = { "_mhz", "MHz" },
	[UNIT_RATIO] = { "_ratio", "x" },
};

const char *unit_suffix(enum unit u)
{
	return units[u].suffix;
}

enum unit unit_from_key(const char *key, size_t *namelen)
{
	size_t klen = strlen(key), best = 0;
	enum unit unit = UNIT_COUNT;

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t slen = strlen(units[u].suffix);

		if (slen > best && klen > slen && !strcmp(key + klen - slen, units[u].suffix)) {
			best = slen;
			unit = (enum unit)u;
		}
	}
	if (namelen)
		*namelen = klen - best;
	return unit;
}

const char *unit_name(enum unit u)
{
	return units[u].name;
}

const char *result_status_name(enum result_status s)
{
	switch (s) {
	case RESULT_OK: return "ok";
	case RESULT_SKIPPED: return "skipped";
	case RESULT_FAILED: return "failed";
	}
	return "unknown";
}

static const char *const verify_names[] = {
	[VERIFY_NONE] = "",
	[VERIFY_CONFIRMED] = "confirmed",
	[VERIFY_NOT_CONFIRMED] = "not confirmed",
	[VERIFY_COUNTERS] = "confirmed by counters",
	[VERIFY_NOT_VERIFIABLE] = "not verifiable",
	[VERIFY_NOT_VERIFIED] = "not verified",
};

const char *verify_outcome_name(enum verify_outcome o)
{
	return (size_t)o < sizeof(verify_names) / sizeof(verify_names[0]) ? verify_names[o] : "";
}

enum verify_outcome verify_outcome_from_name(const char *name)
{
	for (size_t i = 1; name && i < sizeof(verify_names) / sizeof(verify_names[0]); i++)
		if (!strcmp(name, verify_names[i]))
			return (enum verify_outcome)i;
	return VERIFY_NONE;
}

/* Grows *ARR (of element size SZ) so that index N fits. */
static void *grow(void *arr, size_t n, size_t sz)
{
	/* Capacity is the next power of two at or above n + 1. */
	if (n && (n & (n - 1)))
		return arr;
	return xrealloc(arr, (n ? 2 * n : 1) * sz);
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return xstrdup("");
	return s;
}

struct result *result_new(const char *bench, const char *step)
{
	struct result *r = xcalloc(1, sizeof(*r));

	r->bench = xstrdup(bench);
	r->step = xstrdup(step ? step : bench);
	r->reps = 1;
	sysview_init(&r->view);
	return r;
}

static void kv_free(struct kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void result_free(struct result *r)
{
	if (!r)
		return;
	free(r->bench);
	free(r->step);
	free(r->reason);
	kv_free(r->params, r->nparams);
	kv_free(r->method, r->nmethod);
	for (size_t i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i].name);
		free(r->metrics[i].label);
	}
	free(r->metrics);
	for (size_t i = 0; i < r->nhists; i++) {
		free(r->hists[i].name);
		free(r->hists[i].h);
	}
	free(r->hists);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->intervals);
	free(r->headline);
	free(r->sweep);
	if (r->series)
		sampler_free(r->series);
	free(r);
}

void result_set_step(struct result *r, const char *fmt, ...)
{
	va_list ap;

	free(r->step);
	va_start(ap, fmt);
	r->step = vfmt(fmt, ap);
	va_end(ap);
}

void result_set_sweep(struct result *r, const char *combination)
{
	free(r->sweep);
	r->sweep = xstrdup(combination);
}

void result_set_status(struct result *r, enum result_status s, const char *fmt, ...)
{
	va_list ap;

	free(r->reason);
	r->status = s;
	va_start(ap, fmt);
	r->reason = vfmt(fmt, ap);
	va_end(ap);
}

void result_set_incomplete(struct result *r)
{
	r->incomplete = true;
}

void result_set_verdict(struct result *r, const char *resource, const char *fmt, ...)
{
	va_list ap;

	snprintf(r->verdict.resource, sizeof(r->verdict.resource), "%s", resource);
	va_start(ap, fmt);
	vsnprintf(r->verdict.evidence, sizeof(r->verdict.evidence), fmt, ap);
	va_end(ap);
}

void result_verdict_candidate(struct result *r, const char *resource, double share, const char *next_step,
			      const char *fmt, ...)
{
	struct verdict *v = &r->verdict;
	struct verdict_candidate *c = NULL;
	va_list ap;

	for (size_t i = 0; i < v->ncand && !c; i++)
		if (!strcmp(v->cand[i].resource, resource))
			c = &v->cand[i];
	if (!c && v->ncand < VERDICT_MAX_CANDIDATES)
		c = &v->cand[v->ncand++];
	if (!c) {
		/* Full: the lowest share (NaN lowest of all) makes room, unless this one is lower. */
		size_t lo = 0;

		for (size_t i = 1; i < v->ncand; i++)
			if (isnan(v->cand[i].share) || v->cand[i].share < v->cand[lo].share)
				lo = i;
		if (isnan(share) || (!isnan(v->cand[lo].share) && share <= v->cand[lo].share))
			return;
		c = &v->cand[lo];
	}
	memset(c, 0, sizeof(*c));
	snprintf(c->resource, sizeof(c->resource), "%s", resource);
	c->share = share;
	snprintf(c->next_step, sizeof(c->next_step), "%s", next_step ? next_step : "");
	va_start(ap, fmt);
	vsnprintf(c->evidence, sizeof(c->evidence), fmt, ap);
	va_end(ap);
}

bool result_has_verdict(const struct result *r)
{
	return r->verdict.resource[0] != 0;
}

static void kv_add(struct kv **arr, size_t *n, const char *key, const char *fmt, va_list ap)
{
	*arr = grow(*arr, *n, sizeof(**arr));
	(*arr)[*n].key = xstrdup(key);
	(*arr)[*n].value = vfmt(fmt, ap);
	(*n)++;
}

void result_param(struct result *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kv_add(&r->params, &r->nparams, key, fmt, ap);
	va_end(ap);
}

void result_method(struct result *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kv_add(&r->method, &r->nmethod, key, fmt, ap);
	va_end(ap);
}

void result_note(struct result *r, const char *fmt, ...)
{
	va_list ap;

	r->notes = grow(r->notes, r->nnotes, sizeof(*r->notes));
	va_start(ap, fmt);
	r->notes[r->nnotes++] = vfmt(fmt, ap);
	va_end(ap);
}

void result_interval(struct result *r, double start_s, double end_s, double bytes)
{
	r->intervals = grow(r->intervals, r->nintervals, sizeof(*r->intervals));
	r->intervals[r->nintervals++] = (struct result_interval){ start_s, end_s, bytes };
}

struct metric *result_metric(struct result *r, const char *name, enum unit unit, double value,
			     const char *label)
{
	struct metric *m;

	r->metrics = grow(r->metrics, r->nmetrics, sizeof(*r->metrics));
	m = &r->metrics[r->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->unit = unit;
	m->value = m->min = m->max = value;
	m->ci_lo = m->ci_hi = m->ci_coverage = NAN;
	m->reps = 1;
	m->higher_is_better = true;
	m->label = label ? xstrdup(label) : NULL;
	return m;
}

void result_headline(struct result *r, const char *metric)
{
	free(r->headline);
	r->headline = xstrdup(metric);
}

const struct metric *result_find_metric(const struct result *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

void result_hist(struct result *r, const char *name, enum unit unit, const struct hist *h)
{
	struct result_hist *rh;

	r->hists = grow(r->hists, r->nhists, sizeof(*r->hists));
	rh = &r->hists[r->nhists++];
	rh->name = xstrdup(name);
	rh->unit = unit;
	rh->h = xmalloc(sizeof(*rh->h));
	memcpy(rh->h, h, sizeof(*h));
}

void result_attach_sampler(struct result *r, struct sampler *s)
{
	if (r->series)
		sampler_free(r->series);
	r->series = s;
	/* The result keeps the series only: no working state per step. */
	sampler_done(s);
	sampler_summary(s, &r->view);
	r->have_view = true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t median_interval_rank(size_t n, double *coverage)
{
	double p = ldexp(1.0, -(int)(n < 1100 ? n : 1100)), cdf = 0, below = 0;	/* P(B = 0) = 2^-n */
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		cdf += p;
		if (cdf > 0.025)
			break;
		k = i + 1;
		below = cdf;
		p = p * (double)(n - i) / (double)(i + 1);
	}
	*coverage = k ? 1 - 2 * below : NAN;
	return k;
}

void median_interval(const double *v, size_t n, double *lo, double *hi, double *coverage)
{
	size_t k;

	*lo = *hi = *coverage = NAN;
	if (n < 3)
		return;
	k = median_interval_rank(n, coverage);
	if (!k) {
		*lo = v[0];
		*hi = v[n - 1];
		*coverage = 1 - ldexp(2.0, -(int)n);
		return;
	}
	*lo = v[k - 1];
	*hi = v[n - k];
}

bool metric_unstable(const struct metric *m)
{
	double reach;

	if (isnan(m->ci_lo) || isnan(m->ci_hi) || isnan(m->value))
		return false;
	reach = fmax(m->value - m->ci_lo, m->ci_hi - m->value);
	return reach > RESULT_UNSTABLE_SHARE * fabs(m->value);
}

static void copy_kv(struct kv **dst, size_t *dn, const struct kv *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*dst = grow(*dst, *dn, sizeof(**dst));
		(*dst)[*dn].key = xstrdup(src[i].key);
		(*dst)[*dn].value = xstrdup(src[i].value);
		(*dn)++;
	}
}

struct result *result_merge_reps(struct result **reps, size_t n)
{
	const struct result *first = reps[0];
	struct result *d = result_new(first->bench, first->step);
	double *vals = xcalloc(n, sizeof(*vals));

	d->reps = (unsigned)n;
	copy_kv(&d->params, &d->nparams, first->params, first->nparams);
	copy_kv(&d->method, &d->nmethod, first->method, first->nmethod);
	d->verdict = first->verdict;	/* the benchmark's candidates (shares of the first repetition) */
	for (size_t i = 0; i < first->nnotes; i++)
		result_note(d, "%s", first->notes[i]);
	if (first->headline)
		result_headline(d, first->headline);
	for (size_t i = 0; i < n; i++) {
		d->duration_s += reps[i]->duration_s;
		d->incomplete |= reps[i]->incomplete;
		if (reps[i]->status != RESULT_OK && d->status == RESULT_OK)
			result_set_status(d, reps[i]->status, "%s", reps[i]->reason ? reps[i]->reason : "");
	}
	for (size_t m = 0; m < first->nmetrics; m++) {
		const struct metric *fm = &first->metrics[m];
		struct metric *dm;
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			const struct metric *x = result_find_metric(reps[i], fm->name);
			if (x && !isnan(x->value))
				vals[k++] = x->value;
		}
		dm = result_metric(d, fm->name, fm->unit, k ? median_sort(vals, k) : NAN, fm->label);
		dm->higher_is_better = fm->higher_is_better;
		dm->reps = (unsigned)k;
		if (k) {
			dm->min = vals[0];
			dm->max = vals[k - 1];
			median_interval(vals, k, &dm->ci_lo, &dm->ci_hi, &dm->ci_coverage);
		}
	}
	free(vals);
	for (size_t h = 0; h < first->nhists; h++) {
		struct hist merged;

		hist_init(&merged);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < reps[i]->nhists; j++)
				if (!strcmp(reps[i]->hists[j].name, first->hists[h].name))
					hist_merge(&merged, reps[i]->hists[j].h);
		result_hist(d, first->hists[h].name, first->hists[h].unit, &merged);
	}
	return d;
}

struct run *run_new(const char *version, int argc, char **argv)
{
	struct run *run = xcalloc(1, sizeof(*run));
	char host[256];
	size_t len = 1;

	run->tool_version = xstrdup(version);
	run->time_ns = clock_wall_ns();
	/* ENGPASS_HOST names the host for fleets whose hosts share a hostname (containers, tests). */
	if (getenv("ENGPASS_HOST") && *getenv("ENGPASS_HOST"))
		snprintf(host, sizeof(host), "%s", getenv("ENGPASS_HOST"));
	else if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = 0;
	run->host = xstrdup(host);
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	run->command = xcalloc(1, len);
	for (int i = 0; i < argc; i++) {
		if (i)
			strncat(run->command, " ", len - strlen(run->command) - 1);
		strncat(run->command, argv[i], len - strlen(run->command) - 1);
	}
	return run;
}

void run_add(struct run *run, struct result *r)
{
	run->results = grow(run->results, run->nresults, sizeof(*run->results));
	run->results[run->nresults++] = r;
}

void run_free(struct run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->nresults; i++)
		result_free(run->results[i]);
	free(run->results);
	if (run->info) {
		sysinfo_release(run->info);
		free(run->info);
	}
	free(run->tool_version);
	free(run->host);
	free(run->command);
	free(run);
}
