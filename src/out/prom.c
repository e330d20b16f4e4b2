/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus renderer: text exposition format, as node_exporter's
 * textfile collector reads it. Every figure of the model becomes a gauge
 * named engpass_BENCH_METRIC_UNIT in base units (seconds, bytes, bytes per
 * second, ratios, hertz), histograms become summaries with quantiles, and
 * the system view becomes engpass_system_* gauges. Labels carry the host,
 * the command (benchmark), the step and each parameter of the step whose
 * values are bounded (label_worthy()): a label value that is new with
 * every run (a temp directory, a seed, a port, a PID) makes a new series
 * every run, which is how a Prometheus is hurt. Those parameters are left
 * out; the stored result keeps them (engpass history show, --json).
 *
 * Time: engpass_run_timestamp_seconds is the start of the run (of the
 * newest run, when the exporter serves several), and
 * engpass_step_timestamp_seconds of each step is when its figures were
 * taken, so a reader can tell how old each figure is.
 *
 * The exposition format wants all samples of one metric family together
 * under one HELP and TYPE line, but several steps of a run may carry the
 * same metric; so samples are collected first, sorted by family, then
 * written.
 */
#include "render.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

struct sample_line {
	char *family;	/* metric family name */
	char *suffix;	/* "" or "_sum" / "_count" */
	char *labels;	/* rendered label set without braces */
	double value;
	const char *help;
	const char *type;	/* "gauge" or "summary" */
	size_t order;	/* insertion order, for a stable sort */
};

struct lines {
	struct sample_line *v;
	size_t n, cap;
};

/* Copies NAME into BUF as a valid metric/label name part: [a-z0-9_]. */
static void sanitize(char *buf, size_t len, const char *name)
{
	size_t j = 0;

	for (size_t i = 0; name[i] && j + 1 < len; i++) {
		unsigned char c = (unsigned char)name[i];

		buf[j++] = isalnum(c) ? (char)tolower(c) : '_';
	}
	buf[j] = 0;
}

/* Appends key="value" to the label string, escaping the value. */
static void label_add(char **labels, const char *key, const char *value)
{
	size_t n = strlen(*labels), add = strlen(key) + 2 * strlen(value) + 6;
	char *p;

	*labels = xrealloc(*labels, n + add);
	p = *labels + n;
	if (n)
		*p++ = ',';
	p += snprintf(p, add, "%s=\"", key);
	for (const char *v = value; *v; v++) {
		if (*v == '\\' || *v == '"') {
			*p++ = '\\';
			*p++ = *v;
		} else if (*v == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else {
			*p++ = *v;
		}
	}
	*p++ = '"';
	*p = 0;
}

static void push(struct lines *l, const char *family, const char *suffix, const char *labels, double value,
		 const char *help, const char *type)
{
	struct sample_line *s;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	s = &l->v[l->n];
	s->family = xstrdup(family);
	s->suffix = xstrdup(suffix);
	s->labels = xstrdup(labels);
	s->value = value;
	s->help = help;
	s->type = type;
	s->order = l->n++;
}

/* The `what` label of a budget entry: a network peer without its port. */
static void budget_label(const struct sysview_budget_entry *e, char *buf, size_t len)
{
	char *colon;

	snprintf(buf, len, "%s", e->what);
	if (!strcmp(e->state, "network") && (colon = strrchr(buf, ':')) && colon[1] >= '0' && colon[1] <= '9' &&
	    !strchr(colon, ']'))
		*colon = 0;
}

/* Base-unit family suffix and the factor that converts a value into it. */
static const char *base_unit(enum unit u, double *factor)
{
	*factor = 1;
	switch (u) {
	case UNIT_COUNT: return "";
	case UNIT_BYTES: return "_bytes";
	case UNIT_BYTES_PER_S: return "_bytes_per_second";
	case UNIT_BITS_PER_S: *factor = 1.0 / 8; return "_bytes_per_second";
	case UNIT_NS: *factor = 1e-9; return "_seconds";
	case UNIT_SECONDS: return "_seconds";
	case UNIT_PERCENT: *factor = 0.01; return "_ratio";
	case UNIT_PER_S: return "_per_second";
	case UNIT_MHZ: *factor = 1e6; return "_hertz";
	case UNIT_RATIO: return "_ratio";
	}
	return "";
}

/*
 * Parameters that name one run's things rather than a setting: their
 * values differ from run to run (temp paths, random seeds, ports, PIDs,
 * peers, URLs, file names), so they never become labels. target_kind
 * (directory, file, block device) stays: it is the target's class; so do
 * names the user chose (watch --name) and those of a fixed set (cipher,
 * library, engine).
 */
static const char *const run_identity[] = {
	"target", "seed", "port", "pid", "peer", "server", "url", "bind", "output", "swap_file", "file", "path",
	"dir", "db", NULL,
};

/* Longest label value kept: longer ones are descriptions, not settings. */
#define LABEL_VALUE_MAX 32

/*
 * True when parameter KEY (sanitised) with VALUE may be a label: not a
 * run's identity, not one of the fixed labels, not a path or URL, short.
 */
static bool label_worthy(const char *key, const char *value)
{
	if (!key[0] || isdigit((unsigned char)key[0]) || !strcmp(key, "host") || !strcmp(key, "command") ||
	    !strcmp(key, "step") || !strcmp(key, "status") || !strcmp(key, "quantile"))
		return false;
	for (size_t i = 0; run_identity[i]; i++)
		if (!strcmp(key, run_identity[i]))
			return false;
	return value[0] != '/' && value[0] != '.' && value[0] != '~' && !strstr(value, "://") &&
	       strlen(value) <= LABEL_VALUE_MAX;
}

static void result_lines(struct lines *l, const struct run *run, const struct result *r)
{
	char bench[64], name[192], key[64];
	char *labels = xstrdup("");
	const struct sysview *v = &r->view;

	sanitize(bench, sizeof(bench), r->bench);
	label_add(&labels, "host", run->host);
	label_add(&labels, "command", r->bench);
	label_add(&labels, "step", r->step);
	for (size_t i = 0; i < r->nparams; i++) {
		sanitize(key, sizeof(key), r->params[i].key);
		if (label_worthy(key, r->params[i].value))
			label_add(&labels, key, r->params[i].value);
	}

	{
		char *sl = xstrdup(labels);

		label_add(&sl, "status", result_status_name(r->status));
		push(l, "engpass_step_info", "", sl, 1, "one per step, labelled with its status", "gauge");
		free(sl);
	}
	push(l, "engpass_step_duration_seconds", "", labels, r->duration_s, "wall time of the step", "gauge");
	if (r->time_ns || run->time_ns)
		push(l, "engpass_step_timestamp_seconds", "", labels, (double)(r->time_ns ? r->time_ns : run->time_ns) / 1e9,
		     "when the step's figures were taken (its end; its run's start for older results), seconds since the epoch",
		     "gauge");
	push(l, "engpass_step_incomplete", "", labels, r->incomplete ? 1 : 0,
	     "1 when the step stopped early and its figures cover what ran", "gauge");

	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];
		double f;
		const char *u = base_unit(m->unit, &f);
		char mn[96];

		if (isnan(m->value))
			continue;
		sanitize(mn, sizeof(mn), m->name);
		/* "_total" is reserved for counters; every value here is a gauge. */
		if (strlen(mn) > 6 && !strcmp(mn + strlen(mn) - 6, "_total"))
			snprintf(mn + strlen(mn) - 6, 7, "_all");
		snprintf(name, sizeof(name), "engpass_%s_%s%s", bench, mn, u);
		push(l, name, "", labels, m->value * f, m->label ? m->label : m->name, "gauge");
	}
	for (size_t i = 0; i < r->nhists; i++) {
		static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
		const struct result_hist *rh = &r->hists[i];
		double f;
		const char *u = base_unit(rh->unit, &f);
		char hn[96], q[16];

		if (!hist_count(rh->h))
			continue;
		sanitize(hn, sizeof(hn), rh->name);
		snprintf(name, sizeof(name), "engpass_%s_%s%s", bench, hn, u);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			char *ql = xstrdup(labels);

			snprintf(q, sizeof(q), "%g", qs[k]);
			label_add(&ql, "quantile", q);
			push(l, name, "", ql, (double)hist_percentile(rh->h, qs[k] * 100) * f,
			     "distribution from the log-linear histogram (quantiles within 1/128)", "summary");
			free(ql);
		}
		push(l, name, "_sum", labels, hist_mean(rh->h) * (double)hist_count(rh->h) * f, NULL, "summary");
		push(l, name, "_count", labels, (double)hist_count(rh->h), NULL, "summary");
	}
	if (r->have_view) {
		static const struct {
			const char *name, *help;
			size_t off;
			double factor;
		} fields[] = {
#define F(n, field, fac, h) { n, h, offsetof(struct sysview, field), fac }
			F("cpu_busy_ratio", cpu_busy_pct, 0.01, "mean busy share of all CPUs during the step"),
			F("cpu_iowait_ratio", cpu_iowait_pct, 0.01, "iowait share of all CPUs"),
			F("cpu_softirq_ratio", cpu_softirq_pct, 0.01, "softirq share of all CPUs"),
			F("cpu_steal_ratio", cpu_steal_pct, 0.01, "steal share of all CPUs"),
			F("busiest_cpu_busy_ratio", busiest_cpu_busy_pct, 0.01, "busy share of the busiest CPU"),
			F("busiest_cpu_softirq_ratio", busiest_cpu_softirq_pct, 0.01, "softirq share of the busiest CPU"),
			F("disk_util_ratio", disk_util_pct, 0.01, "utilisation of the busiest disk"),
			F("disk_read_bytes_per_second", disk_read_bytes_per_s, 1, "busiest disk read rate"),
			F("disk_write_bytes_per_second", disk_write_bytes_per_s, 1, "busiest disk write rate"),
			F("swap_in_pages_per_second", swap_in_pages_per_s, 1, "pages swapped in"),
			F("swap_out_pages_per_second", swap_out_pages_per_s, 1, "pages swapped out"),
			F("net_rx_bytes_per_second", net_rx_bytes_per_s, 1, "busiest interface receive rate"),
			F("net_tx_bytes_per_second", net_tx_bytes_per_s, 1, "busiest interface transmit rate"),
			F("thermal_throttle_core_events", throttle_core_events, 1,
			  "thermal throttle events of one CPU's cores during the step (the most on one CPU)"),
			F("thermal_throttle_package_events", throttle_package_events, 1,
			  "thermal throttle events of the CPU package during the step"),
			F("cooling_state_max", cooling_state_max, 1,
			  "highest state of a CPU cooling device during the step (0 = not engaged)"),
#undef F
		};

		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
			double x = *(const double *)((const char *)v + fields[k].off);

			if (isnan(x))
				continue;
			snprintf(name, sizeof(name), "engpass_system_%s", fields[k].name);
			push(l, name, "", labels, x * fields[k].factor, fields[k].help, "gauge");
		}
		for (int k = 0; k < SYSVIEW_TEMPS && v->temps[k].name[0]; k++) {
			char *tl = xstrdup(labels);

			label_add(&tl, "sensor", v->temps[k].name);
			push(l, "engpass_system_temperature_max_celsius", "", tl, v->temps[k].max_c,
			     "highest reading of a temperature sensor during the step (the hottest four)", "gauge");
			free(tl);
		}
		if (v->busiest_cpu >= 0) {
			char *cl = xstrdup(labels);

			snprintf(key, sizeof(key), "%d", v->busiest_cpu);
			label_add(&cl, "cpu", key);
			push(l, "engpass_system_busiest_cpu_info", "", cl, 1, "the busiest CPU of the step", "gauge");
			free(cl);
		}
		/*
		 * The time budget: one gauge per state and resource, summed where
		 * entries differ only in detail, a peer named without its port (a
		 * client's ephemeral port would make a new series each run).
		 */
		for (unsigned k = 0; v->budget.thread_s > 0 && k < v->budget.n; k++) {
			char wk[sizeof(v->budget.e[0].what)], wj[sizeof(wk)];
			double sum = 0;
			bool first = true;
			char *bl;

			budget_label(&v->budget.e[k], wk, sizeof(wk));
			for (unsigned j = 0; j < v->budget.n; j++) {
				budget_label(&v->budget.e[j], wj, sizeof(wj));
				if (strcmp(v->budget.e[j].state, v->budget.e[k].state) || strcmp(wj, wk))
					continue;
				first = first && j >= k;
				sum += v->budget.e[j].pct;
			}
			if (!first)
				continue;
			bl = xstrdup(labels);
			label_add(&bl, "state", v->budget.e[k].state);
			label_add(&bl, "what", wk);
			push(l, "engpass_time_budget_ratio", "", bl, sum / 100,
			     "share of the work's thread time in this state, waiting on this resource (thread-state sampling)",
			     "gauge");
			free(bl);
		}
		if (r->verdict.resource[0]) {
			char *vl = xstrdup(labels);

			label_add(&vl, "resource", r->verdict.resource);
			push(l, "engpass_verdict_info", "", vl, 1, "what bounded the step", "gauge");
			free(vl);
		}
		/*
		 * --verify: each candidate tested with its outcome (a label of
		 * five values), and the probe's figure over the step's where one
		 * ran.
		 */
		for (size_t k = 0; k < r->verdict.verify.n; k++) {
			const struct verify_probe *p = &r->verdict.verify.p[k];
			char *vl;

			if (p->outcome == VERIFY_NONE)
				continue;
			vl = xstrdup(labels);
			label_add(&vl, "resource", p->resource);
			if (p->probe_s > 0 && isfinite(p->ratio))
				push(l, "engpass_verdict_probe_ratio", "", vl, p->ratio,
				     "--verify: the probe's figure over the step's, with this candidate relaxed", "gauge");
			label_add(&vl, "outcome", verify_outcome_name(p->outcome));
			push(l, "engpass_verdict_verified", "", vl, 1,
			     "--verify: how this candidate of the verdict was checked (confirmed, not confirmed, confirmed by "
			     "counters, not verifiable, not verified)", "gauge");
			free(vl);
		}
	}
	free(labels);
}

/* Shortest of %.15g / %.17g that reads back as the same double. */
static const char *number(double v)
{
	static _Thread_local char buf[40];

	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	return buf;
}

static int cmp_line(const void *a, const void *b)
{
	const struct sample_line *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	if (c)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

void render_prom(FILE *f, const struct run *run)
{
	struct lines l = { NULL, 0, 0 };
	const char *last = "";

	for (size_t i = 0; i < run->nresults; i++)
		result_lines(&l, run, run->results[i]);
	if (l.n)	/* a run without results (the exporter's empty history) has no array */
		qsort(l.v, l.n, sizeof(*l.v), cmp_line);
	/* Unknown (an empty history) is left out rather than written as 1970. */
	if (run->time_ns > 0)
		fprintf(f, "# HELP engpass_run_timestamp_seconds start of the engpass run (the newest one shown), "
			   "seconds since the epoch\n"
			   "# TYPE engpass_run_timestamp_seconds gauge\n"
			   "engpass_run_timestamp_seconds %.3f\n", (double)run->time_ns / 1e9);
	for (size_t i = 0; i < l.n; i++) {
		struct sample_line *s = &l.v[i];

		if (strcmp(s->family, last)) {
			const char *help = s->help;

			/* The first line of a family may be a _sum without help text. */
			for (size_t j = i; !help && j < l.n && !strcmp(l.v[j].family, s->family); j++)
				help = l.v[j].help;
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", s->family, help ? help : s->family, s->family,
				s->type);
			last = s->family;
		}
		fprintf(f, "%s%s{%s} %s\n", s->family, s->suffix, s->labels, number(s->value));
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].family);
		free(l.v[i].suffix);
		free(l.v[i].labels);
	}
	free(l.v);
}

int prom_write(const char *file, const struct run *run)
{
	char *tmp = xasprintf("%s.tmp.%ld", file, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), r = 0;
	FILE *f;

	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
	} else {
		render_prom(f, run);
		if (fflush(f) != 0 || fsync(fd) < 0)
			r = -errno;
		if (fclose(f) != 0 && !r)
			r = -errno;
	}
	if (!r && rename(tmp, file) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}
