/* SPDX-License-Identifier: MIT */
/*
 * Reading an engpass JSON document (schema engpass/1) back into the
 * metric rows that `compare` needs. Outside input, so it is parsed with
 * jansson and checked field by field; anything unexpected is an error with
 * one line, never a guess. Built without jansson it returns -ENOTSUP.
 */
#include "store/history.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/result/result.h"
#include "lib/xalloc.h"

/* Splits KEY into a new name (caller frees) and its unit. */
static enum unit split_key(const char *key, char **name)
{
	size_t nlen;
	enum unit u = unit_from_key(key, &nlen);

	*name = xstrdup(key);
	(*name)[nlen] = 0;
	return u;
}

#if HAVE_JANSSON
#include <jansson.h>

static double num_or_nan(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int history_metrics_from_json(const char *text, const char *label, struct history_metrics *out, char *err,
			      size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *results, *r;
	size_t i, cap = 0;
	const char *schema = NULL;

	memset(out, 0, sizeof(*out));
	if (!root) {
		snprintf(err, errlen, "not JSON: %s (line %d)", jerr.text, jerr.line);
		return -EPROTO;
	}
	if (json_unpack(root, "{s:s}", "schema", &schema) || strcmp(schema, "engpass/1")) {
		snprintf(err, errlen, "not an engpass result (no \"schema\": \"engpass/1\")");
		json_decref(root);
		return -EPROTO;
	}
	results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		snprintf(err, errlen, "engpass result without a \"results\" array");
		json_decref(root);
		return -EPROTO;
	}
	json_array_foreach(results, i, r) {
		const char *bench = NULL, *step = NULL, *key;
		json_t *metrics = NULL, *spread, *labels, *v;

		if (json_unpack(r, "{s:s, s:s, s:o}", "bench", &bench, "step", &step, "metrics", &metrics) ||
		    !json_is_object(metrics)) {
			snprintf(err, errlen, "result %zu lacks bench, step or metrics", i);
			history_metrics_release(out);
			json_decref(root);
			return -EPROTO;
		}
		spread = json_object_get(r, "spread");
		labels = json_object_get(r, "labels");
		out->nincomplete += json_is_true(json_object_get(r, "incomplete"));
		out->nfailed += !strcmp(json_string_value(json_object_get(r, "status")) ?: "", "failed");
		json_object_foreach(metrics, key, v) {
			struct history_metric *m;
			json_t *s = spread ? json_object_get(spread, key) : NULL;

			if (!json_is_number(v) && !json_is_null(v))
				continue;
			if (out->n == cap) {
				cap = cap ? 2 * cap : 32;
				out->v = xrealloc(out->v, cap * sizeof(*out->v));
			}
			m = &out->v[out->n++];
			m->bench = xstrdup(bench);
			m->step = xstrdup(step);
			m->unit = split_key(key, &m->name);
			m->label = json_is_string(json_object_get(labels, key)) ?
					   xstrdup(json_string_value(json_object_get(labels, key))) : NULL;
			m->value = json_is_number(v) ? json_number_value(v) : NAN;
			m->min = m->max = m->value;
			m->ci_lo = m->ci_hi = m->ci_coverage = NAN;
			m->reps = 1;
			if (json_is_object(s)) {
				m->ci_lo = num_or_nan(json_object_get(s, "ci_low"));
				m->ci_hi = num_or_nan(json_object_get(s, "ci_high"));
				m->ci_coverage = num_or_nan(json_object_get(s, "ci_coverage"));
				json_t *lo = json_object_get(s, "min"), *hi = json_object_get(s, "max");
				json_t *n = json_object_get(s, "n");

				if (json_is_number(lo) && json_is_number(hi)) {
					m->min = json_number_value(lo);
					m->max = json_number_value(hi);
				}
				if (json_is_integer(n))
					m->reps = (unsigned)json_integer_value(n);
			}
		}
	}
	out->label = xstrdup(label);
	json_decref(root);
	return 0;
}

/* Copies the string members of OBJ into kv entries via ADD. */
static void load_kv(struct result *r, json_t *obj, bool method)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		if (!json_is_string(v))
			continue;
		if (method)
			result_method(r, key, "%s", json_string_value(v));
		else
			result_param(r, key, "%s", json_string_value(v));
	}
}

/* The verdict's ranked candidates, as json.c writes them; malformed entries are skipped. */
static void load_candidates(struct result *r, json_t *arr)
{
	size_t i;
	json_t *c;

	if (!json_is_array(arr))
		return;
	json_array_foreach(arr, i, c) {
		const char *res = json_string_value(json_object_get(c, "resource"));
		const char *ev = json_string_value(json_object_get(c, "evidence"));
		const char *next = json_string_value(json_object_get(c, "next_step"));
		json_t *share = json_object_get(c, "share");

		if (!res || !ev)
			continue;
		result_verdict_candidate(r, res, json_is_number(share) ? json_number_value(share) : NAN, next, "%s",
					 ev);
	}
}

/* Copies string member KEY of O into BUF (LEN bytes); "" when absent. */
static void str_into(char *buf, size_t len, json_t *o, const char *key)
{
	snprintf(buf, len, "%s", json_string_value(json_object_get(o, key)) ?: "");
}

/* verdict.verification, as json.c writes it: the probes tested, the refuted one. */
static void load_verification(struct verdict *v, json_t *o)
{
	json_t *arr = json_object_get(o, "probes"), *x;
	size_t i;

	if (!json_is_object(o) || !json_is_array(arr))
		return;
	json_array_foreach(arr, i, x) {
		struct verify_probe *p;
		json_t *iv = json_object_get(x, "interval");

		if (v->verify.n == VERIFY_MAX_PROBES || !json_is_object(x) ||
		    !json_string_value(json_object_get(x, "resource")))
			continue;
		p = &v->verify.p[v->verify.n++];
		str_into(p->resource, sizeof(p->resource), x, "resource");
		p->outcome = verify_outcome_from_name(json_string_value(json_object_get(x, "outcome")));
		str_into(p->probe, sizeof(p->probe), x, "probe");
		str_into(p->parameters, sizeof(p->parameters), x, "parameters");
		str_into(p->metric, sizeof(p->metric), x, "metric");
		p->base = num_or_nan(json_object_get(x, "base"));
		p->figure = num_or_nan(json_object_get(x, "figure"));
		p->ratio = num_or_nan(json_object_get(x, "ratio"));
		p->lo = num_or_nan(json_array_get(iv, 0));
		p->hi = num_or_nan(json_array_get(iv, 1));
		str_into(p->interval_source, sizeof(p->interval_source), x, "interval_source");
		p->probe_s = json_is_number(json_object_get(x, "probe_seconds"))
				     ? json_number_value(json_object_get(x, "probe_seconds"))
				     : 0;
		str_into(p->why, sizeof(p->why), x, "why");
	}
	str_into(v->verify.refuted, sizeof(v->verify.refuted), o, "refuted");
}

/* An int that may be null (-1: not looked for). */
static int int_or_unknown(json_t *x)
{
	return json_is_integer(x) ? (int)json_integer_value(x) : -1;
}

static void load_temp(struct sysview_temp *t, json_t *o)
{
	json_t *x = json_object_get(o, "name");

	snprintf(t->name, sizeof(t->name), "%s", json_is_string(x) ? json_string_value(x) : "");
	x = json_object_get(o, "limit");
	snprintf(t->trip, sizeof(t->trip), "%s", json_is_string(x) ? json_string_value(x) : "");
	t->start_c = num_or_nan(json_object_get(o, "start_celsius"));
	t->end_c = num_or_nan(json_object_get(o, "end_celsius"));
	t->max_c = num_or_nan(json_object_get(o, "max_celsius"));
	t->trip_c = num_or_nan(json_object_get(o, "limit_celsius"));
}

/* The heat part of the system view (render_json's temperature_* and thermal_* keys). */
/* The time budget, as json.c writes it. */
static void load_budget(struct sysview_budget *b, json_t *sys)
{
	json_t *o = json_object_get(sys, "time_budget"), *st, *e, *x;
	size_t i;

	if (!json_is_object(o))
		return;
	b->thread_s = num_or_nan(json_object_get(o, "thread_seconds"));
	b->threads = (int)json_integer_value(json_object_get(o, "threads"));
	b->idle_threads = (int)json_integer_value(json_object_get(o, "idle_threads"));
	b->idle_s = num_or_nan(json_object_get(o, "idle_thread_seconds"));
	b->samples = (unsigned)json_integer_value(json_object_get(o, "samples"));
	b->rate_hz = num_or_nan(json_object_get(o, "rate_hz"));
	b->quota_s = num_or_nan(json_object_get(o, "quota_throttled_seconds"));
	b->major_faults = num_or_nan(json_object_get(o, "major_faults"));
	b->read_bytes = num_or_nan(json_object_get(o, "read_bytes"));
	b->write_bytes = num_or_nan(json_object_get(o, "write_bytes"));
	b->delay_blkio_s = num_or_nan(json_object_get(o, "delay_blkio_seconds"));
	b->delay_swapin_s = num_or_nan(json_object_get(o, "delay_swapin_seconds"));
	b->delay_thrashing_s = num_or_nan(json_object_get(o, "delay_thrashing_seconds"));
	b->delay_reclaim_s = num_or_nan(json_object_get(o, "delay_reclaim_seconds"));
	b->delay_threads = (unsigned)json_integer_value(json_object_get(o, "delay_threads"));
	b->delay_suspect = (unsigned)json_integer_value(json_object_get(o, "delay_suspect_threads"));
	x = json_object_get(o, "delay_accounting");
	b->delayacct = json_is_boolean(x) ? json_is_true(x) : -1;
	x = json_object_get(o, "network");
	if (json_is_object(x)) {
		json_t *y;

		y = json_object_get(x, "what");
		snprintf(b->net_what, sizeof(b->net_what), "%s", json_is_string(y) ? json_string_value(y) : "");
		y = json_object_get(x, "judgement");
		snprintf(b->net_why, sizeof(b->net_why), "%s", json_is_string(y) ? json_string_value(y) : "");
		y = json_object_get(x, "evidence");
		snprintf(b->net_evidence, sizeof(b->net_evidence), "%s", json_is_string(y) ? json_string_value(y) : "");
	}
	st = json_object_get(o, "states");
	b->n = 0;
	json_array_foreach(st, i, e) {
		struct sysview_budget_entry *d;

		if (b->n == SYSVIEW_BUDGET || !json_is_object(e))
			break;
		d = &b->e[b->n++];
		x = json_object_get(e, "state");
		snprintf(d->state, sizeof(d->state), "%s", json_is_string(x) ? json_string_value(x) : "");
		x = json_object_get(e, "what");
		snprintf(d->what, sizeof(d->what), "%s", json_is_string(x) ? json_string_value(x) : "");
		x = json_object_get(e, "detail");
		snprintf(d->detail, sizeof(d->detail), "%s", json_is_string(x) ? json_string_value(x) : "");
		d->pct = num_or_nan(json_object_get(e, "percent"));
	}
}

static void load_heat(struct sysview *v, json_t *sys)
{
	json_t *arr = json_object_get(sys, "temperatures"), *x;
	size_t i;

	v->temp_sensors = int_or_unknown(json_object_get(sys, "temperature_sensors"));
	v->temp_unreadable = int_or_unknown(json_object_get(sys, "temperature_sensors_unreadable"));
	v->throttle_cpus = int_or_unknown(json_object_get(sys, "thermal_throttle_cpus"));
	v->throttle_cpus_moved = int_or_unknown(json_object_get(sys, "thermal_throttle_cpus_moved"));
	v->cooling_devices = int_or_unknown(json_object_get(sys, "cooling_devices"));
	x = json_object_get(sys, "cooling_device");
	snprintf(v->cooling_name, sizeof(v->cooling_name), "%s", json_is_string(x) ? json_string_value(x) : "");
	json_array_foreach(arr, i, x) {
		if (i >= SYSVIEW_TEMPS)
			break;
		if (json_is_object(x))
			load_temp(&v->temps[i], x);
	}
	if (json_is_object(x = json_object_get(sys, "temperature_limit_reached")))
		load_temp(&v->temp_hit, x);
}

static void load_view(struct result *r, json_t *sys)
{
	struct sysview *v = &r->view;
	json_t *x;

	if (!json_is_object(sys))
		return;
	r->have_view = true;
	v->samples = (unsigned)json_integer_value(json_object_get(sys, "samples"));
	v->ncpu = (int)json_integer_value(json_object_get(sys, "ncpu"));
	x = json_object_get(sys, "busiest_cpu");
	v->busiest_cpu = json_is_integer(x) ? (int)json_integer_value(x) : -1;
	x = json_object_get(sys, "busiest_disk");
	snprintf(v->busiest_disk, sizeof(v->busiest_disk), "%s", json_is_string(x) ? json_string_value(x) : "");
	x = json_object_get(sys, "busiest_iface");
	snprintf(v->busiest_iface, sizeof(v->busiest_iface), "%s", json_is_string(x) ? json_string_value(x) : "");
	v->disk_read_requests = (uint64_t)json_integer_value(json_object_get(sys, "disk_read_requests"));
	v->disk_write_requests = (uint64_t)json_integer_value(json_object_get(sys, "disk_write_requests"));
	v->psi_available = json_is_true(json_object_get(sys, "psi_available"));
	v->have_proc = json_is_true(json_object_get(sys, "have_proc"));
	v->proc_rss_max_bytes = (uint64_t)json_integer_value(json_object_get(sys, "proc_rss_max_bytes"));
#define LOAD_FIELD_(field, key) v->field = num_or_nan(json_object_get(sys, key));
	SYSVIEW_DOUBLE_FIELDS(LOAD_FIELD_)
#undef LOAD_FIELD_
	load_heat(v, sys);
	load_budget(&v->budget, sys);
}

int run_from_json(const char *text, struct run **out, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *results, *r;
	const char *schema = NULL;
	struct run *run;
	size_t i;

	*out = NULL;
	if (!root) {
		snprintf(err, errlen, "not JSON: %s (line %d)", jerr.text, jerr.line);
		return -EPROTO;
	}
	results = json_object_get(root, "results");
	if (json_unpack(root, "{s:s}", "schema", &schema) || strcmp(schema, "engpass/1") ||
	    !json_is_array(results)) {
		snprintf(err, errlen, "not an engpass result (no \"schema\": \"engpass/1\" with results)");
		json_decref(root);
		return -EPROTO;
	}
	run = xcalloc(1, sizeof(*run));
	run->tool_version = xstrdup(json_string_value(json_object_get(json_object_get(root, "tool"), "version"))
					    ?: "?");
	run->host = xstrdup(json_string_value(json_object_get(root, "host")) ?: "?");
	run->command = xstrdup(json_string_value(json_object_get(root, "command")) ?: "");
	run->time_ns = json_integer_value(json_object_get(root, "time_unix_ns"));
	json_array_foreach(results, i, r) {
		const char *bench = json_string_value(json_object_get(r, "bench"));
		const char *step = json_string_value(json_object_get(r, "step"));
		const char *status = json_string_value(json_object_get(r, "status"));
		const char *reason = json_string_value(json_object_get(r, "reason"));
		json_t *metrics = json_object_get(r, "metrics"), *spread = json_object_get(r, "spread");
		json_t *labels = json_object_get(r, "labels"), *notes = json_object_get(r, "notes");
		json_t *verdict = json_object_get(r, "verdict"), *v, *n;
		struct result *res;
		const char *key;
		size_t j;

		if (!bench || !step || !status || !json_is_object(metrics)) {
			snprintf(err, errlen, "result %zu lacks bench, step, status or metrics", i);
			run_free(run);
			json_decref(root);
			return -EPROTO;
		}
		res = result_new(bench, step);
		if (!strcmp(status, "skipped"))
			result_set_status(res, RESULT_SKIPPED, "%s", reason ?: "");
		else if (!strcmp(status, "failed"))
			result_set_status(res, RESULT_FAILED, "%s", reason ?: "");
		res->incomplete = json_is_true(json_object_get(r, "incomplete"));
		/* An ok step that stopped early says why (a signal) */
		if (res->status == RESULT_OK && res->incomplete && reason)
			res->reason = xstrdup(reason);
		res->reps = (unsigned)(json_integer_value(json_object_get(r, "repetitions")) ?: 1);
		res->duration_s = num_or_nan(json_object_get(r, "duration_seconds"));
		/* A document from before results had their own time: the run's start. */
		v = json_object_get(r, "time_unix_ns");
		res->time_ns = json_is_integer(v) ? json_integer_value(v) : run->time_ns;
		load_kv(res, json_object_get(r, "parameters"), false);
		load_kv(res, json_object_get(r, "method"), true);
		json_object_foreach(metrics, key, v) {
			char *name;
			enum unit u = split_key(key, &name);
			json_t *sp = json_is_object(spread) ? json_object_get(spread, key) : NULL;
			struct metric *m = result_metric(res, name, u, num_or_nan(v),
							 json_string_value(json_object_get(labels, key)));

			if (json_is_object(sp)) {
				m->min = num_or_nan(json_object_get(sp, "min"));
				m->max = num_or_nan(json_object_get(sp, "max"));
				m->reps = (unsigned)json_integer_value(json_object_get(sp, "n"));
				m->ci_lo = num_or_nan(json_object_get(sp, "ci_low"));
				m->ci_hi = num_or_nan(json_object_get(sp, "ci_high"));
				m->ci_coverage = num_or_nan(json_object_get(sp, "ci_coverage"));
			}
			free(name);
		}
		{
			const char *hl = json_string_value(json_object_get(r, "headline"));

			/* The headline names a metric key; keep the metric's name. */
			for (size_t k = 0; hl && k < res->nmetrics; k++) {
				char kbuf[160];

				snprintf(kbuf, sizeof(kbuf), "%s%s", res->metrics[k].name, unit_suffix(res->metrics[k].unit));
				if (!strcmp(kbuf, hl))
					result_headline(res, res->metrics[k].name);
			}
		}
		json_array_foreach(notes, j, n)
			if (json_is_string(n))
				result_note(res, "%s", json_string_value(n));
		load_view(res, json_object_get(r, "system"));
		if (json_is_object(verdict)) {
			snprintf(res->verdict.resource, sizeof(res->verdict.resource), "%s",
				 json_string_value(json_object_get(verdict, "resource")) ?: "");
			snprintf(res->verdict.evidence, sizeof(res->verdict.evidence), "%s",
				 json_string_value(json_object_get(verdict, "evidence")) ?: "");
			snprintf(res->verdict.next_step, sizeof(res->verdict.next_step), "%s",
				 json_string_value(json_object_get(verdict, "next_step")) ?: "");
			load_candidates(res, json_object_get(verdict, "candidates"));
			load_verification(&res->verdict, json_object_get(verdict, "verification"));
		}
		run_add(run, res);
	}
	json_decref(root);
	*out = run;
	return 0;
}

/* The schema version N of "engpass/N", else 0. */
static long schema_version(const char *schema)
{
	char *end;
	long v;

	if (strncmp(schema, "engpass/", 8) || schema[8] < '1' || schema[8] > '9')
		return 0;
	v = strtol(schema + 8, &end, 10);
	return *end ? 0 : v;
}

int history_import(struct history *h, const char *text, const char *source, int64_t *id, char *err,
		   size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	const char *schema;
	struct run *run;
	long v;
	int r;

	if (!root) {
		snprintf(err, errlen, "not JSON: %s (line %d)", jerr.text, jerr.line);
		return -EPROTO;
	}
	schema = json_string_value(json_object_get(root, "schema"));
	v = schema ? schema_version(schema) : 0;
	if (!schema || !v) {
		snprintf(err, errlen, "not an engpass document (%s%s%s)", schema ? "schema '" : "no \"schema\"",
			 schema ?: "", schema ? "'" : "");
		r = -EPROTO;
	} else if (v > 1) {
		snprintf(err, errlen, "schema %s is newer than this engpass reads (engpass/1): import it with a newer "
			 "engpass", schema);
		r = -EPROTO;
	} else if (!json_is_string(json_object_get(root, "host")) || !json_is_string(json_object_get(root, "command")) ||
		   !json_is_integer(json_object_get(root, "time_unix_ns"))) {
		snprintf(err, errlen, "lacks host, command or time_unix_ns: the run cannot be told from others");
		r = -EPROTO;
	} else {
		r = 0;
	}
	json_decref(root);
	if (r < 0)
		return r;
	if ((r = run_from_json(text, &run, err, errlen)) < 0)
		return r;
	r = history_store(h, run, text, source, id, err, errlen);
	run_free(run);
	return r;
}

#else

int history_import(struct history *h, const char *text, const char *source, int64_t *id, char *err,
		   size_t errlen)
{
	(void)h, (void)text, (void)source, (void)id;
	snprintf(err, errlen, "built without jansson: cannot read JSON documents");
	return -ENOTSUP;
}

int run_from_json(const char *text, struct run **out, char *err, size_t errlen)
{
	(void)text;
	*out = NULL;
	snprintf(err, errlen, "built without jansson: cannot read JSON documents");
	return -ENOTSUP;
}

int history_metrics_from_json(const char *text, const char *label, struct history_metrics *out, char *err,
			      size_t errlen)
{
	(void)text, (void)label, (void)split_key;
	memset(out, 0, sizeof(*out));
	snprintf(err, errlen, "built without jansson: cannot read JSON files");
	return -ENOTSUP;
}

#endif
