/* SPDX-License-Identifier: MIT */
/*
 * The human renderer: aligned text, one block per result, figures in
 * human units with the method printed next to them.
 */
#include "render.h"

#include <math.h>
#include <string.h>

#include "out/info.h"

void render_value(char *buf, size_t len, double v, enum unit unit)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	static const char *const bits[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
	int i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	switch (unit) {
	case UNIT_BYTES:
	case UNIT_BYTES_PER_S:
		while (fabs(v) >= 1024 && i < 5) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, i ? "%.2f %s%s" : "%.0f %s%s", v, bin[i], unit == UNIT_BYTES_PER_S ? "/s" : "");
		return;
	case UNIT_BITS_PER_S:
		while (fabs(v) >= 1000 && i < 4) {
			v /= 1000;
			i++;
		}
		snprintf(buf, len, "%.1f %s", v, bits[i]);
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

static void metrics_block(FILE *f, const struct result *r)
{
	bool reps = r->reps > 1;

	if (!r->nmetrics)
		return;
	fprintf(f, "\n  %-34s %16s", "metric", reps ? "median" : "value");
	if (reps)
		fprintf(f, "  %14s  %14s  %s", "min", "max", "n");
	fputc('\n', f);
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];
		char v[48], lo[48], hi[48];

		render_value(v, sizeof(v), m->value, m->unit);
		fprintf(f, "  %-34s %16s", m->label ? m->label : m->name, v);
		if (reps) {
			render_value(lo, sizeof(lo), m->min, m->unit);
			render_value(hi, sizeof(hi), m->max, m->unit);
			fprintf(f, "  %14s  %14s  %u", lo, hi, m->reps);
		}
		fputc('\n', f);
	}
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
}

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
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(f, "  %-10s  %s\n", i ? "" : "note", r->notes[i]);
}

void render_table(FILE *f, const struct run *run)
{
	/* The whole box description only where it is the point (engpass info). */
	if (run->info && !run->nresults)
		info_render_table(f, run->info);
	for (size_t i = 0; i < run->nresults; i++) {
		if (i)
			fputc('\n', f);
		result_block(f, run->results[i]);
	}
}
