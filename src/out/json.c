/* SPDX-License-Identifier: MIT */
/*
 * The JSON renderer: one document per run, "schema": "engpass/1". Units
 * live in key names (read_bytes_per_second, lat_p99_ns); an unknown figure
 * is null, never 0. The layout is documented in docs/json.md.
 */
#include "render.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "core/observe/sampler.h"
#include "out/info.h"
#include "core/result/verify.h"
#include "lib/jw.h"
#include "lib/units.h"

static void metric_key(char *buf, size_t len, const struct metric *m)
{
	snprintf(buf, len, "%s%s", m->name, unit_suffix(m->unit));
}

static void kv_object(struct jw *w, const char *key, const struct kv *kv, size_t n)
{
	jw_obj_begin(w, key);
	for (size_t i = 0; i < n; i++)
		jw_str(w, kv[i].key, kv[i].value);
	jw_obj_end(w);
}

static void hist_object(struct jw *w, const struct result_hist *rh)
{
	static const struct {
		const char *key;
		double p;
	} ps[] = { { "p1", 1 }, { "p5", 5 }, { "p10", 10 }, { "p50", 50 }, { "p90", 90 }, { "p95", 95 },
		   { "p99", 99 }, { "p99_9", 99.9 }, { "p99_99", 99.99 } };
	const struct hist *h = rh->h;
	char key[64];

	snprintf(key, sizeof(key), "%s%s", rh->name, unit_suffix(rh->unit));
	jw_obj_begin(w, key);
	jw_uint(w, "count", hist_count(h));
	if (hist_count(h)) {
		jw_uint(w, "min", hist_min(h));
		jw_uint(w, "max", hist_max(h));
		jw_num(w, "mean", hist_mean(h));
		jw_num(w, "stddev", hist_stddev(h));
	} else {
		jw_null(w, "min");
		jw_null(w, "max");
		jw_null(w, "mean");
		jw_null(w, "stddev");
	}
	jw_obj_begin(w, "percentiles");
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (hist_count(h))
			jw_uint(w, ps[i].key, hist_percentile(h, ps[i].p));
		else
			jw_null(w, ps[i].key);
	}
	jw_obj_end(w);
	/* Non-empty buckets as [low, high_exclusive, count]. */
	jw_arr_begin(w, "buckets");
	for (size_t i = 0; i < hist_nbuckets(); i++) {
		uint64_t c = hist_bucket_count(h, i), lo, hi;

		if (!c)
			continue;
		hist_bucket_range(i, &lo, &hi);
		jw_arr_begin(w, NULL);
		jw_uint(w, NULL, lo);
		jw_uint(w, NULL, hi);
		jw_uint(w, NULL, c);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* -1 ("not looked for") is null. */
static void int_or_null(struct jw *w, const char *key, int v)
{
	if (v >= 0)
		jw_int(w, key, v);
	else
		jw_null(w, key);
}

static void temp_object(struct jw *w, const char *key, const struct sysview_temp *t)
{
	jw_obj_begin(w, key);
	jw_str(w, "name", t->name);
	jw_num(w, "start_celsius", t->start_c);
	jw_num(w, "end_celsius", t->end_c);
	jw_num(w, "max_celsius", t->max_c);
	jw_num(w, "limit_celsius", t->trip_c);
	jw_str(w, "limit", t->trip[0] ? t->trip : NULL);
	jw_obj_end(w);
}

/* The work's time budget (core/observe/tstate.h), null when it was not taken. */
static void budget_object(struct jw *w, const struct sysview_budget *b)
{
	if (!(b->thread_s > 0)) {
		jw_null(w, "time_budget");
		return;
	}
	jw_obj_begin(w, "time_budget");
	jw_num(w, "thread_seconds", b->thread_s);
	jw_int(w, "threads", b->threads);
	jw_int(w, "idle_threads", b->idle_threads);
	jw_num(w, "idle_thread_seconds", b->idle_s);
	jw_uint(w, "samples", b->samples);
	jw_num(w, "rate_hz", b->rate_hz);
	jw_num(w, "quota_throttled_seconds", b->quota_s);
	jw_num(w, "major_faults", b->major_faults);
	jw_num(w, "read_bytes", b->read_bytes);
	jw_num(w, "write_bytes", b->write_bytes);
	if (b->delayacct >= 0)
		jw_bool(w, "delay_accounting", b->delayacct == 1);
	else
		jw_null(w, "delay_accounting");
	jw_num(w, "delay_blkio_seconds", b->delay_blkio_s);
	jw_num(w, "delay_swapin_seconds", b->delay_swapin_s);
	jw_num(w, "delay_thrashing_seconds", b->delay_thrashing_s);
	jw_num(w, "delay_reclaim_seconds", b->delay_reclaim_s);
	jw_uint(w, "delay_threads", b->delay_threads);
	jw_uint(w, "delay_suspect_threads", b->delay_suspect);
	if (b->net_why[0]) {
		jw_obj_begin(w, "network");
		jw_str(w, "what", b->net_what[0] ? b->net_what : NULL);
		jw_str(w, "judgement", b->net_why);
		jw_str(w, "evidence", b->net_evidence);
		jw_obj_end(w);
	} else {
		jw_null(w, "network");
	}
	jw_arr_begin(w, "states");
	for (unsigned i = 0; i < b->n && i < SYSVIEW_BUDGET; i++) {
		jw_obj_begin(w, NULL);
		jw_str(w, "state", b->e[i].state);
		jw_str(w, "what", b->e[i].what[0] ? b->e[i].what : NULL);
		jw_str(w, "detail", b->e[i].detail[0] ? b->e[i].detail : NULL);
		jw_num(w, "percent", b->e[i].pct);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void view_object(struct jw *w, const struct sysview *v)
{
	jw_obj_begin(w, "system");
	jw_uint(w, "samples", v->samples);
	jw_int(w, "ncpu", v->ncpu);
	if (v->busiest_cpu >= 0)
		jw_int(w, "busiest_cpu", v->busiest_cpu);
	else
		jw_null(w, "busiest_cpu");
	jw_str(w, "busiest_disk", v->busiest_disk[0] ? v->busiest_disk : NULL);
	jw_uint(w, "disk_read_requests", v->disk_read_requests);
	jw_uint(w, "disk_write_requests", v->disk_write_requests);
	jw_bool(w, "psi_available", v->psi_available);
	jw_str(w, "busiest_iface", v->busiest_iface[0] ? v->busiest_iface : NULL);
	jw_bool(w, "have_proc", v->have_proc);
	if (v->have_proc)
		jw_uint(w, "proc_rss_max_bytes", v->proc_rss_max_bytes);
	jw_int(w, "work_threads", v->work_threads);
	if (v->work_thread_cpu >= 0)
		jw_int(w, "work_thread_cpu", v->work_thread_cpu);
	else
		jw_null(w, "work_thread_cpu");
	jw_str(w, "work_thread_comm", v->work_thread_comm[0] ? v->work_thread_comm : NULL);
	jw_arr_begin(w, "other_processes");
	for (int i = 0; i < SYSVIEW_OTHERS && v->others[i].pid; i++) {
		jw_obj_begin(w, NULL);
		jw_int(w, "pid", v->others[i].pid);
		jw_str(w, "comm", v->others[i].comm);
		jw_num(w, "cpu_percent", v->others[i].cpu_pct);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_num(w, "tcp_bytes", v->tcp_bytes);
	jw_num(w, "tcp_work_bytes", v->tcp_work_bytes);
	jw_arr_begin(w, "other_processes_tcp");
	for (int i = 0; i < SYSVIEW_OTHERS && v->tcp_others[i].pid; i++) {
		jw_obj_begin(w, NULL);
		jw_int(w, "pid", v->tcp_others[i].pid);
		jw_str(w, "comm", v->tcp_others[i].comm);
		jw_num(w, "bytes", v->tcp_others[i].bytes);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_arr_begin(w, "other_processes_io");
	for (int i = 0; i < SYSVIEW_OTHERS && v->io_others[i].pid; i++) {
		jw_obj_begin(w, NULL);
		jw_int(w, "pid", v->io_others[i].pid);
		jw_str(w, "comm", v->io_others[i].comm);
		jw_num(w, "read_bytes", v->io_others[i].read_bytes);
		jw_num(w, "write_bytes", v->io_others[i].write_bytes);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	int_or_null(w, "temperature_sensors", v->temp_sensors);
	int_or_null(w, "temperature_sensors_unreadable", v->temp_sensors < 0 ? -1 : v->temp_unreadable);
	jw_arr_begin(w, "temperatures");
	for (int i = 0; i < SYSVIEW_TEMPS && v->temps[i].name[0]; i++)
		temp_object(w, NULL, &v->temps[i]);
	jw_arr_end(w);
	if (v->temp_hit.name[0])
		temp_object(w, "temperature_limit_reached", &v->temp_hit);
	else
		jw_null(w, "temperature_limit_reached");
	int_or_null(w, "thermal_throttle_cpus", v->throttle_cpus);
	int_or_null(w, "thermal_throttle_cpus_moved", v->throttle_cpus < 0 ? -1 : v->throttle_cpus_moved);
	int_or_null(w, "cooling_devices", v->cooling_devices);
	jw_str(w, "cooling_device", v->cooling_name[0] ? v->cooling_name : NULL);
	/* PSI figures are unknown (null) without PSI, whatever the struct holds. */
#define VIEW_FIELD_(field, key) \
	jw_num(w, key, !v->psi_available && !strncmp(key, "psi_", 4) ? NAN : v->field);
	SYSVIEW_DOUBLE_FIELDS(VIEW_FIELD_)
#undef VIEW_FIELD_
	budget_object(w, &v->budget);
	jw_obj_end(w);
}

/* One tested candidate of --verify (docs/json.md "verification"). */
static void probe_fields(struct jw *w, const struct verify_probe *p)
{
	jw_str(w, "resource", p->resource);
	jw_str(w, "outcome", verify_outcome_name(p->outcome));
	jw_str(w, "probe", p->probe[0] ? p->probe : NULL);
	jw_str(w, "parameters", p->parameters[0] ? p->parameters : NULL);
	jw_str(w, "metric", p->metric[0] ? p->metric : NULL);
	jw_num(w, "base", p->base);
	jw_num(w, "figure", p->figure);
	jw_num(w, "ratio", p->ratio);
	jw_arr_begin(w, "interval");
	jw_num(w, NULL, p->lo);
	jw_num(w, NULL, p->hi);
	jw_arr_end(w);
	jw_str(w, "interval_source", p->interval_source[0] ? p->interval_source : NULL);
	jw_num(w, "probe_seconds", p->probe_s);
	jw_str(w, "why", p->why[0] ? p->why : NULL);
}

/*
 * verdict.verification: the first candidate tested (the one named) at the
 * top, every candidate tested in "probes", the refuted one; null without
 * --verify.
 */
static void verification_object(struct jw *w, const struct verify *v)
{
	if (!v->n) {
		jw_null(w, "verification");
		return;
	}
	jw_obj_begin(w, "verification");
	probe_fields(w, &v->p[0]);
	jw_str(w, "refuted", v->refuted[0] ? v->refuted : NULL);
	jw_arr_begin(w, "probes");
	for (size_t i = 0; i < v->n; i++) {
		jw_obj_begin(w, NULL);
		probe_fields(w, &v->p[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* One sampling interval; unknown figures are null. */
static void sample_object(struct jw *w, const char *key, const struct sample *x)
{
	jw_obj_begin(w, key);
	jw_num(w, "t_seconds", x->t_s);
	jw_num(w, "interval_seconds", x->interval_s);
	jw_num(w, "cpu_busy_percent", x->cpu_busy_pct);
	jw_num(w, "cpu_iowait_percent", x->iowait_pct);
	jw_num(w, "cpu_softirq_percent", x->softirq_pct);
	jw_num(w, "cpu_steal_percent", x->steal_pct);
	if (x->busiest_cpu >= 0)
		jw_int(w, "busiest_cpu", x->busiest_cpu);
	else
		jw_null(w, "busiest_cpu");
	jw_num(w, "busiest_cpu_busy_percent", x->busiest_cpu_pct);
	/* A streamed interval carries no per-CPU row (stream_interval). */
	if (x->cpu_pct) {
		jw_arr_begin(w, "cpu_busy_percent_by_cpu");
		for (int i = 0; i < x->ncpu_slots; i++)
			jw_num(w, NULL, (double)x->cpu_pct[i]);
		jw_arr_end(w);
	}
	if (x->procs_running >= 0)
		jw_int(w, "procs_running", x->procs_running);
	else
		jw_null(w, "procs_running");
	jw_str(w, "disk", x->disk && x->disk[0] ? x->disk : NULL);
	jw_num(w, "disk_util_percent", x->disk_util_pct);
	jw_num(w, "disk_reads_per_second", x->disk_reads_per_s);
	jw_num(w, "disk_writes_per_second", x->disk_writes_per_s);
	jw_num(w, "disk_read_bytes_per_second", x->disk_read_bytes_per_s);
	jw_num(w, "disk_write_bytes_per_second", x->disk_write_bytes_per_s);
	jw_num(w, "swap_in_pages_per_second", x->swap_in_pages_per_s);
	jw_num(w, "swap_out_pages_per_second", x->swap_out_pages_per_s);
	jw_num(w, "major_faults_per_second", x->major_faults_per_s);
	jw_num(w, "mem_available_bytes", x->mem_available_bytes);
	jw_num(w, "psi_cpu_some_percent", x->psi_cpu_some_pct);
	jw_num(w, "psi_memory_some_percent", x->psi_mem_some_pct);
	jw_num(w, "psi_memory_full_percent", x->psi_mem_full_pct);
	jw_num(w, "psi_io_some_percent", x->psi_io_some_pct);
	jw_num(w, "psi_io_full_percent", x->psi_io_full_pct);
	jw_str(w, "iface", x->iface && x->iface[0] ? x->iface : NULL);
	jw_num(w, "net_rx_bytes_per_second", x->net_rx_bytes_per_s);
	jw_num(w, "net_tx_bytes_per_second", x->net_tx_bytes_per_s);
	if (x->proc_rss_bytes >= 0) {
		jw_num(w, "proc_cpu_percent", x->proc_cpu_pct);
		jw_int(w, "proc_rss_bytes", x->proc_rss_bytes);
	}
	jw_obj_end(w);
}

static void series_array(struct jw *w, const struct sampler *s)
{
	jw_arr_begin(w, "series");
	for (size_t i = 0; i < sampler_count(s); i++)
		sample_object(w, NULL, sampler_get(s, i));
	jw_arr_end(w);
}

static void result_object(struct jw *w, const struct result *r, bool series)
{
	char key[96];

	jw_obj_begin(w, NULL);
	jw_str(w, "bench", r->bench);
	jw_str(w, "step", r->step);
	jw_str(w, "status", result_status_name(r->status));
	jw_str(w, "reason", r->reason);
	jw_bool(w, "incomplete", r->incomplete);
	jw_uint(w, "repetitions", r->reps);
	jw_num(w, "duration_seconds", r->duration_s);
	if (r->wall_s > 0)
		jw_num(w, "wall_seconds", r->wall_s);
	if (r->time_ns)
		jw_int(w, "time_unix_ns", r->time_ns);
	else
		jw_null(w, "time_unix_ns");
	kv_object(w, "parameters", r->params, r->nparams);
	kv_object(w, "method", r->method, r->nmethod);
	jw_obj_begin(w, "metrics");
	for (size_t i = 0; i < r->nmetrics; i++) {
		metric_key(key, sizeof(key), &r->metrics[i]);
		jw_num(w, key, r->metrics[i].value);
	}
	jw_obj_end(w);
	{
		const struct metric *h = r->headline ? result_find_metric(r, r->headline) : NULL;

		if (h) {
			metric_key(key, sizeof(key), h);
			jw_str(w, "headline", key);
		} else {
			jw_null(w, "headline");
		}
	}
	if (r->reps > 1) {
		jw_obj_begin(w, "spread");
		for (size_t i = 0; i < r->nmetrics; i++) {
			const struct metric *m = &r->metrics[i];

			metric_key(key, sizeof(key), m);
			jw_obj_begin(w, key);
			jw_num(w, "median", m->value);
			jw_num(w, "min", m->min);
			jw_num(w, "max", m->max);
			jw_uint(w, "n", m->reps);
			jw_num(w, "ci_low", m->ci_lo);
			jw_num(w, "ci_high", m->ci_hi);
			jw_num(w, "ci_coverage", m->ci_coverage);
			jw_bool(w, "unstable", metric_unstable(m));
			jw_obj_end(w);
		}
		jw_obj_end(w);
	}
	jw_obj_begin(w, "labels");
	for (size_t i = 0; i < r->nmetrics; i++) {
		if (!r->metrics[i].label)
			continue;
		metric_key(key, sizeof(key), &r->metrics[i]);
		jw_str(w, key, r->metrics[i].label);
	}
	jw_obj_end(w);
	jw_obj_begin(w, "histograms");
	for (size_t i = 0; i < r->nhists; i++)
		hist_object(w, &r->hists[i]);
	jw_obj_end(w);
	jw_arr_begin(w, "notes");
	for (size_t i = 0; i < r->nnotes; i++)
		jw_str(w, NULL, r->notes[i]);
	jw_arr_end(w);
	if (r->nintervals) {
		/* iperf3's "intervals": the sum of the streams per interval (no per-stream entries). */
		jw_arr_begin(w, "intervals");
		for (size_t i = 0; i < r->nintervals; i++) {
			const struct result_interval *x = &r->intervals[i];
			double sec = x->end_s - x->start_s;

			jw_obj_begin(w, NULL);
			jw_obj_begin(w, "sum");
			jw_num(w, "start", x->start_s);
			jw_num(w, "end", x->end_s);
			jw_num(w, "seconds", sec);
			jw_num(w, "bytes", x->bytes);
			jw_num(w, "bits_per_second", sec > 0 ? x->bytes * 8 / sec : NAN);
			jw_obj_end(w);
			jw_obj_end(w);
		}
		jw_arr_end(w);
	}
	if (r->have_view)
		view_object(w, &r->view);
	else
		jw_null(w, "system");
	if (series && r->series)
		series_array(w, r->series);
	jw_obj_begin(w, "verdict");
	jw_str(w, "resource", r->verdict.resource[0] ? r->verdict.resource : NULL);
	jw_str(w, "evidence", r->verdict.evidence[0] ? r->verdict.evidence : NULL);
	jw_str(w, "next_step", r->verdict.next_step[0] ? r->verdict.next_step : NULL);
	jw_arr_begin(w, "candidates");
	for (size_t i = 0; i < r->verdict.ncand; i++) {
		const struct verdict_candidate *c = &r->verdict.cand[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "resource", c->resource);
		jw_num(w, "share", c->share);
		jw_str(w, "evidence", c->evidence);
		jw_str(w, "next_step", c->next_step[0] ? c->next_step : NULL);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	verification_object(w, &r->verdict.verify);
	jw_obj_end(w);
	if (r->sweep)
		jw_str(w, "sweep", r->sweep);
	jw_obj_end(w);
}

/* The run's header: the schema, the tool, when, where and what was run. */
static void run_header(struct jw *w, const struct run *run)
{
	char when[40] = "";
	time_t t = (time_t)(run->time_ns / 1000000000);
	struct tm tm;

	if (gmtime_r(&t, &tm))
		units_fmt_tm(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	jw_str(w, "schema", "engpass/1");
	jw_obj_begin(w, "tool");
	jw_str(w, "name", "engpass");
	jw_str(w, "version", run->tool_version);
	jw_obj_end(w);
	jw_str(w, "time", when);
	jw_int(w, "time_unix_ns", run->time_ns);
	jw_str(w, "host", run->host);
	jw_str(w, "command", run->command);
}

/* The whole document of RUN as the value of KEY (NULL at the top level). */
static void run_object(struct jw *w, const char *key, const struct run *run, bool series)
{
	jw_obj_begin(w, key);
	run_header(w, run);
	if (run->info)
		info_render_json(w, "info", run->info);
	else
		jw_null(w, "info");
	jw_arr_begin(w, "results");
	for (size_t i = 0; i < run->nresults; i++)
		result_object(w, run->results[i], series);
	jw_arr_end(w);
	jw_obj_end(w);
}

void render_json(FILE *f, const struct run *run, bool pretty, bool series)
{
	struct jw w = JW_INIT(f, pretty);

	run_object(&w, NULL, run, series);
	jw_finish(&w);
}

void render_json_start(FILE *f, const struct run *run)
{
	struct jw w = JW_INIT(f, false);

	jw_obj_begin(&w, NULL);
	jw_str(&w, "event", "start");
	jw_obj_begin(&w, "data");
	run_header(&w, run);
	jw_obj_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
	fflush(f);
}

void render_json_interval(FILE *f, const struct stream_interval *x)
{
	struct jw w = JW_INIT(f, false);

	jw_obj_begin(&w, NULL);
	jw_str(&w, "event", "interval");
	jw_obj_begin(&w, "data");
	jw_uint(&w, "step_index", x->step);
	jw_str(&w, "bench", x->bench);
	jw_int(&w, "time_unix_ns", x->time_ns);
	jw_num(&w, "progress_percent", x->progress_pct);
	sample_object(&w, "sample", &x->sample);
	jw_obj_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
	fflush(f);
}

void render_json_event(FILE *f, const char *event, const struct run *run, bool series)
{
	struct jw w = JW_INIT(f, false);

	jw_obj_begin(&w, NULL);
	jw_str(&w, "event", event);
	run_object(&w, "data", run, series);
	jw_obj_end(&w);
	jw_finish(&w);
	fflush(f);
}
