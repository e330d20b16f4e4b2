/* SPDX-License-Identifier: MIT */
/*
 * The human renderer: aligned text, one block per result, figures in
 * human units with the method printed next to them.
 */
#include "render.h"

#include <math.h>
#include <string.h>

#include "lib/units.h"
#include "out/info.h"

void render_value(char *buf, size_t len, double v, enum unit unit)
{
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	switch (unit) {
	case UNIT_BYTES:
		units_fmt_size(buf, len, v, 0);
		return;
	case UNIT_BYTES_PER_S:
		units_fmt_rate(buf, len, v);
		return;
	case UNIT_BITS_PER_S:
		units_fmt_bits(buf, len, v);
		return;
	case UNIT_NS:
		if (fabs(v) < 1e3)
			snprintf(buf, len, "%.0f ns", v);
		else if (fabs(v) < 1e6)
			snprintf(buf, len, "%.2f us", v / 1e3);
		else if (fabs(v) < 1e9)
			snprintf(buf, len, "%.2f ms", v / 1e6);
		else
			snprintf(buf, len, "%.3f s", v / 1e9);
		return;
	case UNIT_SECONDS:
		snprintf(buf, len, "%.3f s", v);
		return;
	case UNIT_PERCENT:
		snprintf(buf, len, "%.1f %%", v);
		return;
	case UNIT_PER_S:
		snprintf(buf, len, "%.1f /s", v);
		return;
	case UNIT_MHZ:
		snprintf(buf, len, "%.0f MHz", v);
		return;
	case UNIT_RATIO:
		snprintf(buf, len, "%.2fx", v);
		return;
	case UNIT_COUNT:
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%.3g", v);
		return;
	}
	snprintf(buf, len, "%g", v);
}

static void kv_line(FILE *f, const char *title, const struct kv *kv, size_t n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-10s  %s: %s\n", i ? "" : title, kv[i].key, kv[i].value);
}

/* The coverage column: "97 %" for an interval, "range" for min..max without one (N = 2). */
static void coverage_cell(char *buf, size_t len, const struct metric *m)
{
	if (isnan(m->ci_coverage))
		snprintf(buf, len, "range");
	else
		snprintf(buf, len, "%.1f %%", 100 * m->ci_coverage);
}

/*
 * With repetitions, each metric's median, the interval of the median (low,
 * high, its coverage) and n; "unstable" after a figure whose interval
 * reaches beyond RESULT_UNSTABLE_SHARE of the median, and a key below.
 */
static void metrics_block(FILE *f, const struct result *r)
{
	bool reps = r->reps > 1, unstable = false, short_cov = false;

	if (!r->nmetrics)
		return;
	fprintf(f, "\n  %-34s %16s", "metric", reps ? "median" : "value");
	if (reps)
		fprintf(f, "  %14s  %14s  %7s  %s", "low", "high", "cover", "n");
	fputc('\n', f);
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];
		bool have = !isnan(m->ci_lo);
		char v[48], lo[48], hi[48], cov[16];

		render_value(v, sizeof(v), m->value, m->unit);
		fprintf(f, "  %-34s %16s", m->label ? m->label : m->name, v);
		if (reps) {
			render_value(lo, sizeof(lo), have ? m->ci_lo : m->min, m->unit);
			render_value(hi, sizeof(hi), have ? m->ci_hi : m->max, m->unit);
			coverage_cell(cov, sizeof(cov), m);
			fprintf(f, "  %14s  %14s  %7s  %u", lo, hi, cov, m->reps);
			if (metric_unstable(m)) {
				fputs("  unstable", f);
				unstable = true;
			}
			/* [min, max] of 3-5 repetitions, or a bare range of 2; not a figure none measured. */
			short_cov |= have ? m->ci_coverage < 0.95 : m->reps == 2;
		}
		fputc('\n', f);
	}
	if (!reps)
		return;
	fprintf(f, "  low..high: the median's order-statistic interval%s",
		short_cov ? " (95 % needs --repeat 6 or more; fewer: [min, max] at the coverage shown)" : "");
	if (unstable)
		fprintf(f, "; unstable: it reaches beyond %.0f %% of the median", 100 * RESULT_UNSTABLE_SHARE);
	fputc('\n', f);
}

/* A percentage for the system view: "12 %", or "n/a" when unknown. */
static const char *pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f %%", v);
	return buf;
}

/* A plain figure for the system view: "12", or "n/a" when unknown. */
static const char *fig(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/* True when the box had nothing to say about heat: no sensor, no throttle counter, no CPU cooling device. */
static bool heat_unseen(const struct sysview *v)
{
	return v->temp_sensors == 0 && v->throttle_cpus <= 0 && v->cooling_devices <= 0;
}

/*
 * Heat over the step: the hottest sensors (highest, and first -> last
 * reading), what a sensor's own limit is, then whether the CPU throttled.
 * A box without sensors says so once, after the results (render_table).
 */
static void heat_lines(FILE *f, const struct sysview *v)
{
	const char *sep = "";

	if (v->temp_sensors > 0) {
		fprintf(f, "  %-10s  heat", "");
		for (int i = 0; i < SYSVIEW_TEMPS && v->temps[i].name[0]; i++) {
			const struct sysview_temp *t = &v->temps[i];

			fprintf(f, "%s %s max %.0f C (%.0f -> %.0f", sep, t->name, t->max_c, t->start_c, t->end_c);
			if (!isnan(t->trip_c))
				fprintf(f, ", %s %.0f C", t->trip, t->trip_c);
			fputc(')', f);
			sep = ",";
		}
		if (v->temp_sensors > SYSVIEW_TEMPS)
			fprintf(f, " (hottest %d of %d sensors)", SYSVIEW_TEMPS, v->temp_sensors);
		fputc('\n', f);
	}
	if (v->throttle_cpus <= 0 && v->cooling_devices <= 0)
		return;
	fprintf(f, "  %-10s  throttling:", "");
	if (v->throttle_cpus > 0) {
		if (isnan(v->throttle_core_events))
			fprintf(f, " counters of %d CPUs not read", v->throttle_cpus);
		else if (v->throttle_cpus_moved)
			fprintf(f, " counters moved on %d of %d CPUs (core %.0f, package %.0f events)",
				v->throttle_cpus_moved, v->throttle_cpus, v->throttle_core_events,
				v->throttle_package_events);
		else
			fprintf(f, " none (counters of %d CPUs)", v->throttle_cpus);
	}
	if (v->cooling_devices > 0) {
		if (isnan(v->cooling_state_max))
			fprintf(f, "%s cooling state not read", v->throttle_cpus > 0 ? ";" : "");
		else
			fprintf(f, "%s %s cooling state up to %.0f of %.0f", v->throttle_cpus > 0 ? ";" : "",
				v->cooling_name, v->cooling_state_max, v->cooling_state_limit);
	}
	fputc('\n', f);
}

static void view_block(FILE *f, const struct result *r)
{
	const struct sysview *v = &r->view;
	char a[48], b[48], c[16], d[16], e[16], g[16];

	if (!r->have_view)
		return;
	fprintf(f, "\n  %-10s  %u samples over %.1f s\n", "system", v->samples, v->duration_s);
	if (v->busiest_cpu >= 0)
		fprintf(f, "  %-10s  busiest core cpu%d %s (%s softirq, peak interval %s)\n", "", v->busiest_cpu,
			pct(c, sizeof(c), v->busiest_cpu_busy_pct), pct(d, sizeof(d), v->busiest_cpu_softirq_pct),
			pct(e, sizeof(e), v->peak_cpu_busy_pct));
	fprintf(f, "  %-10s  all %d CPUs %s busy, iowait %s, softirq %s, steal %s\n", "", v->ncpu,
		pct(c, sizeof(c), v->cpu_busy_pct), pct(d, sizeof(d), v->cpu_iowait_pct),
		pct(e, sizeof(e), v->cpu_softirq_pct), pct(g, sizeof(g), v->cpu_steal_pct));
	if (v->busiest_disk[0]) {
		render_value(a, sizeof(a), v->disk_read_bytes_per_s, UNIT_BYTES_PER_S);
		render_value(b, sizeof(b), v->disk_write_bytes_per_s, UNIT_BYTES_PER_S);
		fprintf(f, "  %-10s  disk %s %s util, %s r/s (%s), %s w/s (%s)\n", "", v->busiest_disk,
			pct(c, sizeof(c), v->disk_util_pct), fig(d, sizeof(d), v->disk_reads_per_s), a,
			fig(e, sizeof(e), v->disk_writes_per_s), b);
	}
	fprintf(f, "  %-10s  swap in %s out %s pages/s, major faults %s /s", "",
		fig(c, sizeof(c), v->swap_in_pages_per_s), fig(d, sizeof(d), v->swap_out_pages_per_s),
		fig(e, sizeof(e), v->major_faults_per_s));
	if (v->psi_available)
		fprintf(f, "; stall cpu %s memory %s io %s", pct(c, sizeof(c), v->psi_cpu_some_pct),
			pct(d, sizeof(d), v->psi_mem_some_pct), pct(e, sizeof(e), v->psi_io_some_pct));
	fputc('\n', f);
	if (v->busiest_iface[0]) {
		render_value(a, sizeof(a), v->net_rx_bytes_per_s, UNIT_BYTES_PER_S);
		render_value(b, sizeof(b), v->net_tx_bytes_per_s, UNIT_BYTES_PER_S);
		fprintf(f, "  %-10s  net %s rx %s tx %s\n", "", v->busiest_iface, a, b);
	}
	heat_lines(f, v);
}

/* One result on its own: its status line, then what it measured and why it ran as it did. */
static void result_block(FILE *f, const struct result *r)
{
	fprintf(f, "%s", r->bench);
	if (strcmp(r->bench, r->step))
		fprintf(f, " / %s", r->step);
	fprintf(f, ": %s", result_status_name(r->status));
	if (r->reason)
		fprintf(f, ": %s", r->reason);
	if (r->incomplete)
		fprintf(f, " (incomplete: stopped early, figures cover what ran)");
	if (r->reps > 1)
		fprintf(f, " (%u repetitions)", r->reps);
	fputc('\n', f);
	/*
	 * A failed step is its reason: what it set up, the system while it
	 * failed and a verdict over that are noise here (--json keeps them).
	 */
	if (r->status == RESULT_FAILED) {
		for (size_t i = 0; i < r->nnotes; i++)
			fprintf(f, "  %-10s  %s\n", i ? "" : "note", r->notes[i]);
		return;
	}
	kv_line(f, "parameters", r->params, r->nparams);
	kv_line(f, "method", r->method, r->nmethod);
	metrics_block(f, r);
	for (size_t i = 0; i < r->nhists; i++) {
		const struct hist *h = r->hists[i].h;
		char p[5][32];
		static const double ps[5] = { 50, 90, 99, 99.9, 100 };

		for (int k = 0; k < 5; k++)
			render_value(p[k], sizeof(p[k]), (double)hist_percentile(h, ps[k]), r->hists[i].unit);
		fprintf(f, "  %-10s  %s: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s (%llu values)\n",
			i ? "" : "histogram", r->hists[i].name, p[0], p[1], p[2], p[3], p[4],
			(unsigned long long)hist_count(h));
	}
	view_block(f, r);
	if (r->verdict.resource[0])
		fprintf(f, "  %-10s  bound by: %s -- %s\n", "verdict", r->verdict.resource, r->verdict.evidence);
	if (r->verdict.next_step[0])
		fprintf(f, "  %-10s  %s\n", "next", r->verdict.next_step);
	/* The runners-up that came close: a second limit just behind the first. */
	for (size_t i = 1, shown = 0; i < r->verdict.ncand && shown < 2; i++) {
		const struct verdict_candidate *c = &r->verdict.cand[i];

		if (!(c->share >= 0.5))
			continue;
		fprintf(f, "  %-10s  also %s at %.0f %% -- %s\n", shown ? "" : "", c->resource, c->share * 100,
			c->evidence);
		shown++;
	}
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(f, "  %-10s  %s\n", i ? "" : "note", r->notes[i]);
}

/* True when KV[K] appears with the same value in every result of the group. */
static bool common_kv(const struct result *const *g, size_t n, const struct kv *kv, bool method)
{
	for (size_t i = 1; i < n; i++) {
		const struct kv *arr = method ? g[i]->method : g[i]->params;
		size_t cnt = method ? g[i]->nmethod : g[i]->nparams;
		bool found = false;

		for (size_t j = 0; j < cnt && !found; j++)
			found = !strcmp(arr[j].key, kv->key) && !strcmp(arr[j].value, kv->value);
		if (!found)
			return false;
	}
	return true;
}

#define GRID_MAX_COLS 8
#define GRID_LABEL_MAX 20

/*
 * Several steps of one benchmark (cipher x size, task x load, ladder
 * rungs) as one grid: a row per step, a column per metric, the method
 * lines they share printed once, then each step's verdict and the notes
 * without repeats. The JSON keeps every detail.
 */
static void grid_block(FILE *f, const struct result *const *g, size_t n)
{
	const char *names[GRID_MAX_COLS], *heads[GRID_MAX_COLS];
	enum unit units[GRID_MAX_COLS];
	size_t ncol = 0, stepw = 4, width[GRID_MAX_COLS];
	bool more = false, printed;

	for (size_t i = 0; i < n; i++) {
		if (strlen(g[i]->step) > stepw)
			stepw = strlen(g[i]->step);
		for (size_t m = 0; m < g[i]->nmetrics; m++) {
			const struct metric *mt = &g[i]->metrics[m];
			size_t c;

			for (c = 0; c < ncol && strcmp(names[c], mt->name); c++)
				;
			if (c < ncol)
				continue;
			if (ncol == GRID_MAX_COLS) {
				more = true;
				continue;
			}
			names[ncol] = mt->name;
			heads[ncol] = mt->name;
			units[ncol] = mt->unit;
			ncol++;
		}
	}
	if (stepw > 40)
		stepw = 40;
	fprintf(f, "%s: %zu steps\n", g[0]->bench, n);
	printed = false;
	for (size_t k = 0; k < g[0]->nparams; k++)
		if (common_kv(g, n, &g[0]->params[k], false)) {
			fprintf(f, "  %-10s  %s: %s\n", printed ? "" : "parameters", g[0]->params[k].key,
				g[0]->params[k].value);
			printed = true;
		}
	printed = false;
	for (size_t k = 0; k < g[0]->nmethod; k++)
		if (common_kv(g, n, &g[0]->method[k], true)) {
			fprintf(f, "  %-10s  %s: %s\n", printed ? "" : "method", g[0]->method[k].key,
				g[0]->method[k].value);
			printed = true;
		}
	for (size_t c = 0; c < ncol; c++) {
		width[c] = strlen(heads[c]) > GRID_LABEL_MAX ? GRID_LABEL_MAX : strlen(heads[c]);
		for (size_t i = 0; i < n; i++) {
			const struct metric *mt = result_find_metric(g[i], names[c]);
			char v[48];

			if (!mt)
				continue;
			render_value(v, sizeof(v), mt->value, mt->unit);
			if (strlen(v) > width[c])
				width[c] = strlen(v);
		}
	}
	fprintf(f, "\n  %-*s", (int)stepw, "step");
	for (size_t c = 0; c < ncol; c++)
		fprintf(f, "  %*.*s", (int)width[c], GRID_LABEL_MAX, heads[c]);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct result *r = g[i];

		fprintf(f, "  %-*.*s", (int)stepw, (int)stepw, r->step);
		if (r->status != RESULT_OK) {
			fprintf(f, "  %s: %s\n", result_status_name(r->status), r->reason ? r->reason : "");
			continue;
		}
		for (size_t c = 0; c < ncol; c++) {
			const struct metric *mt = result_find_metric(r, names[c]);
			char v[48] = "";

			if (mt)
				render_value(v, sizeof(v), mt->value, units[c]);
			fprintf(f, "  %*s", (int)width[c], v);
		}
		if (r->incomplete)
			fputs("  (incomplete)", f);
		if (r->reps > 1)
			fprintf(f, "  (median of %u)", r->reps);
		fputc('\n', f);
	}
	for (size_t c = 0; c < ncol; c++) {
		const struct metric *mt = NULL;

		for (size_t i = 0; i < n && !mt; i++)
			mt = result_find_metric(g[i], names[c]);
		if (mt && mt->label && strcmp(mt->label, mt->name))
			fprintf(f, "%s  %-10s  %s: %s\n", c ? "" : "\n", c ? "" : "columns", mt->name, mt->label);
	}
	if (more)
		fprintf(f, "  %-10s  (the first %d figures of each step; --json has them all)\n", "", GRID_MAX_COLS);
	printed = false;
	for (size_t i = 0; i < n; i++) {
		/* A failed step's row says why; it measured nothing to judge. */
		if (!g[i]->verdict.resource[0] || g[i]->status == RESULT_FAILED)
			continue;
		fprintf(f, "%s  %-10s  %s: bound by %s -- %s\n", printed ? "" : "\n", printed ? "" : "verdict",
			g[i]->step, g[i]->verdict.resource, g[i]->verdict.evidence);
		if (g[i]->verdict.next_step[0])
			fprintf(f, "  %-10s  %*s  next: %s\n", "", (int)strlen(g[i]->step), "", g[i]->verdict.next_step);
		printed = true;
	}
	/* Heat by step, where the box has sensors or counters (else the run says so once). */
	printed = false;
	for (size_t i = 0; i < n; i++) {
		if (!g[i]->have_view || heat_unseen(&g[i]->view) || g[i]->view.temp_sensors < 0)
			continue;
		fprintf(f, "%s  %-10s  %s:\n", printed ? "" : "\n", printed ? "" : "heat", g[i]->step);
		heat_lines(f, &g[i]->view);
		printed = true;
	}
	printed = false;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < g[i]->nnotes; k++) {
			bool seen = false;

			for (size_t j = 0; j <= i && !seen; j++)
				for (size_t l = 0; l < g[j]->nnotes && !seen; l++)
					seen = (j < i || l < k) && !strcmp(g[j]->notes[l], g[i]->notes[k]);
			if (seen)
				continue;
			fprintf(f, "  %-10s  %s\n", printed ? "" : "note", g[i]->notes[k]);
			printed = true;
		}
}

void render_table(FILE *f, const struct run *run)
{
	bool no_heat = false;

	/* The whole box description only where it is the point (engpass info). */
	if (run->info && !run->nresults)
		info_render_table(f, run->info);
	for (size_t i = 0; i < run->nresults;) {
		size_t j = i + 1;

		while (j < run->nresults && !strcmp(run->results[j]->bench, run->results[i]->bench))
			j++;
		if (i)
			fputc('\n', f);
		if (j - i > 1)
			grid_block(f, (const struct result *const *)&run->results[i], j - i);
		else
			result_block(f, run->results[i]);
		i = j;
	}
	for (size_t i = 0; i < run->nresults && !no_heat; i++)
		no_heat = run->results[i]->have_view && heat_unseen(&run->results[i]->view);
	/* Once per run, not per step: it is a fact about the box. */
	if (no_heat)
		fprintf(f, "\n%-12s  no temperature sensors or CPU throttle counters on this box\n", "heat");
}
