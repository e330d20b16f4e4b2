/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: one self-contained page from an engpass JSON document
 * (schema engpass/1). HTML with inline CSS and inline SVG; no script, no
 * font, image or style sheet from anywhere else, so the page reads the
 * same offline and with JavaScript off. What it shows, in order:
 *
 *   - the run (host, time, command, the box in one line) and a summary
 *     table: one row per result with its status, headline metric and
 *     verdict, linked to the result's section;
 *   - "across steps" charts: for consecutive results of one benchmark,
 *     lines over size when the steps grow in size (the swap ladder), a
 *     task x load table with colour (interbench's cells), else bars of
 *     each step's headline (ciphers x libraries, disk steps, rr depths):
 *     lines only along a real axis, never between categories;
 *   - per result: parameters, method, metrics (with --repeat spreads),
 *     notes, verdict, and the charts its document carries: a curve over
 *     size for a family of metrics named PREFIX_<N>k|m|g (the memory
 *     latency curve), throughput and CPU busy over time from the sampled
 *     series (spans not measured shaded) with a heat strip of every
 *     core's busy share under them, and for each histogram its buckets
 *     and its cumulative distribution on a log axis, side by side;
 *   - print CSS: the PDF keeps the summary, the charts across steps and
 *     per step its verdict, curves and distributions.
 *
 * Renderers never invent numbers: every figure printed is one of the
 * document's, formatted; what is computed is geometry (pixel positions,
 * bar heights as density over a log axis, colours). Where a chart has more
 * samples than pixels it draws, per pixel column, the smallest and largest
 * of the samples that fall into it (time lines) or the largest (heat
 * strip), and says so in the tooltip.
 *
 * The charts are drawn with out/svg.c (scales, ticks, axes, legends,
 * lines, the line chart of curves); this file reads the document and
 * decides which chart shows what.
 *
 * The document is outside input: every string from it goes through
 * svg_esc(), identifiers built from it keep only [A-Za-z0-9_-], and every
 * field is type-checked, so a missing or odd field drops its part, never
 * the page.
 */
#include "out/html.h"

#if HAVE_JANSSON
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/result/result.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "out/svg.h"

#define HEAT_RECT_BUDGET 60000	/* heat strip rectangles per chart */

/* ---- the document ------------------------------------------------------- */

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The human label of metric KEY in result R, else the key itself. */
static const char *metric_label(const json_t *r, const char *key)
{
	const char *l = jstr(json_object_get(r, "labels"), key);

	return l && *l ? l : key;
}

/* ---- numbers ------------------------------------------------------------ */

/* An exact form of V: the integer when V is one, else 6 significant digits. */
static void fmt_exact(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.6g", v);
}

/* ---- figures ------------------------------------------------------------ */

/*
 * <figure> of KIND (a class: the print style sheet keeps or drops figures
 * by it) with a caption: the caller writes the caption text, then calls
 * fig_caption_end() and draws.
 */
static void fig_begin(FILE *f, const char *kind)
{
	fprintf(f, "<figure class=\"fig %s\"><figcaption>", kind);
}

/* Ends the caption of fig_begin(): the chart comes next. */
static void fig_caption_end(FILE *f)
{
	fputs("</figcaption>\n", f);
}

static void fig_end(FILE *f)
{
	fputs("</figure>\n", f);
}

/* ---- the sampled series -------------------------------------------------- */

/* The samples of a result's series that carry a time; each covers [t0, t1] seconds. */
struct samples {
	size_t n;
	double *t0, *t1;
	json_t **o;
	const json_t *phases;	/* the result's "phases", or NULL */
};

static void samples_load(struct samples *s, json_t *series)
{
	size_t i, cap = json_array_size(series);
	json_t *e;
	double prev = 0;

	memset(s, 0, sizeof(*s));
	if (!cap)
		return;
	s->t0 = xcalloc(cap, sizeof(double));
	s->t1 = xcalloc(cap, sizeof(double));
	s->o = xcalloc(cap, sizeof(json_t *));
	json_array_foreach(series, i, e) {
		double t = jnum(e, "t_seconds"), iv = jnum(e, "interval_seconds");

		if (!json_is_object(e) || !isfinite(t) || (s->n && t < s->t1[s->n - 1]))
			continue;
		s->t1[s->n] = t;
		s->t0[s->n] = isfinite(iv) && iv >= 0 && iv <= t ? t - iv : prev;
		s->o[s->n++] = e;
		prev = t;
	}
}

static void samples_release(struct samples *s)
{
	free(s->t0);
	free(s->t1);
	free(s->o);
}

/* The x scale of the time charts: from the start of the first sample to the last. */
static void time_scale(struct svg_frame *fr, const struct samples *s)
{
	fr->x.lo = s->t0[0];
	fr->x.hi = s->t1[s->n - 1];
	if (!(fr->x.hi > fr->x.lo))
		fr->x.hi = fr->x.lo + 1;
}

/* A shaded span [A, B] seconds of a time chart with its NAME written at its top. */
static void time_span(FILE *f, const struct svg_frame *fr, double a, double b, const char *cls, const char *name)
{
	double x0 = svg_px(&fr->x, fmax(a, fr->x.lo)), x1 = svg_px(&fr->x, fmin(b, fr->x.hi));

	if (!(x1 > x0))
		return;
	fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>", cls, x0,
		fr->y.p1, x1 - x0, fr->y.p0 - fr->y.p1);
	svg_esc(f, name);
	fprintf(f, "</title></rect><text class=\"span-label\" x=\"%.1f\" y=\"%.1f\">", x0 + 3, fr->y.p1 + 11);
	if (x1 - x0 > 40)
		svg_esc_trunc(f, name, (size_t)((x1 - x0) / 6.5));
	fputs("</text>\n", f);
}

/*
 * What the time axis knows of the measured window: the result's "phases"
 * (each {"name", "from_seconds", "to_seconds", "measured"} on the series'
 * clock; the ones not measured, such as setup and warm-up, are shaded),
 * and the spans the sampler was stopped (a sample starting after the
 * previous one ended: between the measured spans of repetitions).
 */
static void time_marks(FILE *f, const struct svg_frame *fr, const struct samples *s)
{
	const json_t *ph;
	size_t i;

	json_array_foreach(s->phases, i, ph) {
		double a = jnum(ph, "from_seconds"), b = jnum(ph, "to_seconds");

		if (isfinite(a) && isfinite(b) && jstr(ph, "name") && json_is_false(json_object_get(ph, "measured")))
			time_span(f, fr, a, b, "phase", jstr(ph, "name"));
	}
	for (i = 1; i < s->n; i++)
		if (s->t0[i] > s->t1[i - 1] + 1e-3)
			time_span(f, fr, s->t1[i - 1], s->t0[i], "unsampled", "not measured (sampling stopped)");
}

struct tsline {
	const char *key;
	const char *label;
	double scale;	/* the value times this (0: 1); net's bytes/s times 8 for bit/s */
};

/*
 * One line chart over time of the series keys in L (those with any
 * non-zero value; none: no chart). PCT: the y axis is 0-100 %.
 */
static void chart_time(FILE *f, const char *id, const char *title, const struct samples *s, const struct tsline *l,
		       size_t nl, enum unit u, bool pct)
{
	struct svg_frame fr;
	const char *labels[SVG_MAX_LINES];
	double *v[SVG_MAX_LINES], *tt, *vv, t[SVG_MAXTICKS], max = 0;
	size_t nuse = 0, nt;
	int rows;

	for (size_t k = 0; k < nl && nuse < SVG_MAX_LINES; k++) {
		bool any = false;

		v[nuse] = xcalloc(s->n, sizeof(double));
		for (size_t i = 0; i < s->n; i++) {
			v[nuse][i] = jnum(s->o[i], l[k].key) * (l[k].scale > 0 ? l[k].scale : 1);
			if (isfinite(v[nuse][i]) && v[nuse][i] != 0)
				any = true;
			if (isfinite(v[nuse][i]) && v[nuse][i] > max)
				max = v[nuse][i];
		}
		if (!any) {
			free(v[nuse]);
			continue;
		}
		labels[nuse++] = l[k].label;
	}
	if (!nuse)
		return;
	rows = svg_legend_rows(labels, nuse);
	svg_frame_init(&fr, 237 + svg_legend_mt(rows), svg_legend_mt(rows), 40);
	time_scale(&fr, s);
	fr.y.lo = 0;
	fr.y.hi = pct ? 100 : max > 0 ? max : 1;
	fig_begin(f, "time");
	svg_esc(f, title);
	fig_caption_end(f);
	svg_begin(f, "timeseries", id, &fr);
	nt = svg_lin_ticks(fr.y.lo, &fr.y.hi, pct ? UNIT_PERCENT : u, !pct, t);
	svg_axis_y(f, &fr, t, nt, pct ? UNIT_PERCENT : u, NULL);	/* the tick labels carry the unit */
	{
		double hi = fr.x.hi;

		nt = svg_lin_ticks(fr.x.lo, &hi, UNIT_SECONDS, false, t);
	}
	svg_axis_x(f, &fr, t, nt, UNIT_SECONDS, "time since the step started");
	svg_legend(f, &fr, labels, nuse);
	time_marks(f, &fr, s);
	/* Each sample is a rate over its interval: a level from t0 to t1. */
	tt = xcalloc(2 * s->n, sizeof(double));
	vv = xcalloc(2 * s->n, sizeof(double));
	for (size_t i = 0; i < s->n; i++) {
		tt[2 * i] = s->t0[i];
		tt[2 * i + 1] = s->t1[i];
	}
	for (size_t k = 0; k < nuse; k++) {
		for (size_t i = 0; i < s->n; i++)
			vv[2 * i] = vv[2 * i + 1] = v[k][i];
		svg_polyline(f, &fr, tt, vv, 2 * s->n, svg_color(k), labels[k]);
		free(v[k]);
	}
	free(tt);
	free(vv);
	svg_end(f);
	fig_end(f);
}

/* The busy share of cpu C in sample I, or NaN. */
static double cpu_busy(const struct samples *s, size_t i, size_t c)
{
	json_t *v = json_array_get(json_object_get(s->o[i], "cpu_busy_percent_by_cpu"), c);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * The heat strip: a row per CPU, a rectangle per sample (per pixel column
 * when there are more samples than columns: the largest share among
 * them), coloured by busy %, with the figure in its tooltip.
 */
static void chart_heat(FILE *f, const char *id, const struct samples *s)
{
	struct svg_frame fr;
	size_t ncpu = 0, cols, step, nt;
	double t[SVG_MAXTICKS], hi, rh;
	char col[8], a[48], b[48], c[48];

	for (size_t i = 0; i < s->n; i++) {
		size_t k = json_array_size(json_object_get(s->o[i], "cpu_busy_percent_by_cpu"));

		if (k > ncpu)
			ncpu = k;
	}
	if (!ncpu)
		return;
	if (ncpu > 1024)
		ncpu = 1024;
	rh = ncpu <= 16 ? 16 : ncpu <= 64 ? 7 : 3;
	svg_frame_init(&fr, (int)(34 + ncpu * rh + 40), 34, 40);
	time_scale(&fr, s);
	fr.y.lo = 0;
	fr.y.hi = (double)ncpu;
	cols = (size_t)(fr.x.p1 - fr.x.p0);
	if (cols * ncpu > HEAT_RECT_BUDGET)
		cols = HEAT_RECT_BUDGET / ncpu > 60 ? HEAT_RECT_BUDGET / ncpu : 60;
	step = s->n > cols ? (s->n + cols - 1) / cols : 1;
	fig_begin(f, "time");
	fprintf(f, "Busy share of each CPU over time (%zu CPU%s, a row each)", ncpu, ncpu == 1 ? "" : "s");
	fig_caption_end(f);
	svg_begin(f, "heatstrip", id, &fr);
	hi = fr.x.hi;
	nt = svg_lin_ticks(fr.x.lo, &hi, UNIT_SECONDS, false, t);
	svg_axis_x(f, &fr, t, nt, UNIT_SECONDS, "time since the step started");
	/* The colour scale, as a gradient with its ends labelled. */
	fprintf(f, "<defs><linearGradient id=\"%s-scale\">", id);
	for (int k = 0; k <= 4; k++) {
		svg_heat_color(k * 25.0, col, sizeof(col));
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", k * 25, col);
	}
	fprintf(f, "</linearGradient></defs>\n<text class=\"legend\" x=\"%.1f\" y=\"%d\" text-anchor=\"end\">0 %% busy"
		   "</text><rect x=\"%.1f\" y=\"%d\" width=\"160\" height=\"10\" fill=\"url(#%s-scale)\" stroke=\"#bbb\"/>"
		   "<text class=\"legend\" x=\"%.1f\" y=\"%d\">100 %%</text>\n",
		fr.x.p1 - 205, fr.mt - 10, fr.x.p1 - 200, fr.mt - 19, id, fr.x.p1 - 34, fr.mt - 10);
	for (size_t cpu = 0; cpu < ncpu; cpu++) {
		double y = fr.y.p1 + (double)cpu * rh;

		if (rh >= 7 || cpu % 8 == 0)
			fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">cpu%zu</text>\n",
				fr.x.p0 - 6, y + (rh >= 7 ? rh / 2 + 4 : 6), cpu);
		for (size_t i = 0; i < s->n; i += step) {
			size_t end = i + step < s->n ? i + step : s->n, got = 0;
			double best = NAN, x0 = svg_px(&fr.x, s->t0[i]), x1 = svg_px(&fr.x, s->t1[end - 1]);

			for (size_t j = i; j < end; j++) {
				double p = cpu_busy(s, j, cpu);

				if (isfinite(p)) {
					got++;
					if (!(best >= p))
						best = p;
				}
			}
			if (!got)
				continue;
			svg_heat_color(best, col, sizeof(col));
			svg_fmt_short(a, sizeof(a), s->t0[i], UNIT_SECONDS);
			svg_fmt_short(b, sizeof(b), s->t1[end - 1], UNIT_SECONDS);
			svg_num3(c, sizeof(c), best);
			fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>cpu%zu "
				   "%s to %s: %s%s %% busy", x0, y, x1 - x0 > 0.5 ? x1 - x0 : 0.5, rh >= 7 ? rh - 1 : rh,
				col, cpu, a, b, got > 1 ? "largest " : "", c);
			if (got > 1)
				fprintf(f, " of %zu samples", got);
			fputs("</title></rect>\n", f);
		}
	}
	svg_end(f);
	fig_end(f);
}

/*
 * " (NAME)" or " (busiest: A, B, C)" from the string KEY of the samples
 * (the sampler names the busiest disk or interface of each interval);
 * "" when no sample names one.
 */
static void names(char *buf, size_t len, const struct samples *s, const char *key)
{
	const char *seen[3];
	size_t n = 0, more = 0, used;

	for (size_t i = 0; i < s->n; i++) {
		const char *v = jstr(s->o[i], key);
		size_t k;

		if (!v || !*v)
			continue;
		for (k = 0; k < n && strcmp(seen[k], v); k++)
			;
		if (k < n)
			continue;
		if (n < ARRAY_SIZE(seen))
			seen[n++] = v;
		else
			more = 1;
	}
	buf[0] = 0;
	if (!n)
		return;
	used = (size_t)snprintf(buf, len, " (%s", n > 1 ? "busiest: " : "");
	for (size_t k = 0; k < n && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", seen[k]);
	if (used < len)
		snprintf(buf + used, len - used, "%s)", more ? ", ..." : "");
}

/* The time charts of one result: throughput (if any moved), CPU busy, the heat strip. */
static void series_charts(FILE *f, size_t ri, const json_t *r)
{
	struct samples s;
	char id[64], dl[160], dw[160], nr[160], nt[160], disk[120], iface[120];

	samples_load(&s, json_object_get(r, "series"));
	s.phases = json_is_array(json_object_get(r, "phases")) ? json_object_get(r, "phases") : NULL;
	if (!s.n) {
		samples_release(&s);
		return;
	}
	names(disk, sizeof(disk), &s, "disk");
	names(iface, sizeof(iface), &s, "iface");
	snprintf(dl, sizeof(dl), "disk read%s", disk);
	snprintf(dw, sizeof(dw), "disk write%s", disk);
	snprintf(nr, sizeof(nr), "net receive%s", iface);
	snprintf(nt, sizeof(nt), "net send%s", iface);
	{
		/* Net in bit/s as iperf3 and net's tables print it; disk in bytes/s. */
		const struct tsline net[] = {
			{ "net_rx_bytes_per_second", nr, 8 },
			{ "net_tx_bytes_per_second", nt, 8 },
		};
		const struct tsline thr[] = {
			{ "disk_read_bytes_per_second", dl, 1 },
			{ "disk_write_bytes_per_second", dw, 1 },
		};
		const struct tsline cpu[] = {
			{ "cpu_busy_percent", "all CPUs busy", 1 },
			{ "busiest_cpu_busy_percent", "busiest CPU busy", 1 },
			{ "cpu_iowait_percent", "iowait", 1 },
			{ "cpu_softirq_percent", "softirq", 1 },
			{ "cpu_steal_percent", "steal", 1 },
		};

		snprintf(id, sizeof(id), "r%zu-net", ri);
		chart_time(f, id, "Network throughput over time (sampled)", &s, net, ARRAY_SIZE(net), UNIT_BITS_PER_S,
			   false);
		snprintf(id, sizeof(id), "r%zu-throughput", ri);
		chart_time(f, id, "Disk throughput over time (sampled)", &s, thr, ARRAY_SIZE(thr), UNIT_BYTES_PER_S,
			   false);
		snprintf(id, sizeof(id), "r%zu-cpu", ri);
		chart_time(f, id, "CPU busy over time (sampled)", &s, cpu, ARRAY_SIZE(cpu), UNIT_PERCENT, true);
	}
	snprintf(id, sizeof(id), "r%zu-heat", ri);
	chart_heat(f, id, &s);
	samples_release(&s);
}

/* A frame half as wide: the histogram and its distribution sit side by side. */
static void half_width(struct svg_frame *fr)
{
	fr->w = SVG_W / 2;
	fr->x.p1 = fr->w - 2 * SVG_MR;	/* the last tick's label stays inside */
}

/* ---- histograms ------------------------------------------------------------ */

struct bucket {
	double lo, hi, count;
};

/* The percentile marks drawn on the histogram and its cumulative distribution. */
static const struct {
	const char *key, *label;
	double share;	/* % of values at or below it */
} pcts[] = {
	{ "p50", "p50", 50 }, { "p90", "p90", 90 }, { "p99", "p99", 99 }, { "p99_9", "p99.9", 99.9 },
};

/*
 * The buckets of one histogram on a log x axis; a bar's height is its
 * count over its width on that axis (a density, so the finer buckets of
 * the log-linear histogram do not look like a saw), its tooltip the count.
 */
static void chart_hist(FILE *f, const char *id, const char *name, enum unit u, const json_t *h)
{
	json_t *bk = json_object_get(h, "buckets"), *pc = json_object_get(h, "percentiles"), *e;
	struct bucket *b = xcalloc(json_array_size(bk) + 1, sizeof(*b));
	size_t n = 0, i, nt;
	double xlo = INFINITY, xhi = 0, dmax = 0, t[SVG_MAXTICKS];
	char s1[48], s2[48], s3[48], s4[48];
	struct svg_frame fr;

	json_array_foreach(bk, i, e) {
		json_t *a = json_array_get(e, 0), *z = json_array_get(e, 1), *c = json_array_get(e, 2);
		struct bucket x;

		if (!json_is_number(a) || !json_is_number(z) || !json_is_number(c))
			continue;
		x.lo = json_number_value(a);
		x.hi = json_number_value(z);
		x.count = json_number_value(c);
		if (!isfinite(x.lo) || !isfinite(x.hi) || !(x.hi > 0) || x.lo < 0 || !(x.hi > x.lo) ||
		    !isfinite(x.count) || x.count < 0)
			continue;
		if (x.lo == 0)
			x.lo = x.hi / 2;	/* a bucket from zero: drawn from half its top */
		b[n++] = x;
		xlo = fmin(xlo, x.lo);
		xhi = fmax(xhi, x.hi);
		dmax = fmax(dmax, x.count / log10(x.hi / x.lo));
	}
	if (!n) {
		free(b);
		return;
	}
	svg_frame_init(&fr, 290, 14 + 12 * (int)ARRAY_SIZE(pcts), 40);
	half_width(&fr);
	fr.x.log = true;
	fr.x.lo = xlo;
	fr.x.hi = xhi;
	fr.y.lo = 0;
	fr.y.hi = dmax > 0 ? dmax * 1.05 : 1;
	fmt_exact(s1, sizeof(s1), jnum(h, "count"));
	svg_fmt_short(s2, sizeof(s2), jnum(h, "min"), u);
	svg_fmt_short(s3, sizeof(s3), jnum(h, "mean"), u);
	svg_fmt_short(s4, sizeof(s4), jnum(h, "max"), u);
	fig_begin(f, "dist");
	fputs("Histogram ", f);
	svg_esc(f, name);
	fprintf(f, ": %s values, min %s, mean %s, max %s", s1, s2, s3, s4);
	if (isfinite(jnum(h, "stddev"))) {
		svg_fmt_short(s2, sizeof(s2), jnum(h, "stddev"), u);
		fprintf(f, ", standard deviation %s", s2);
	}
	fig_caption_end(f);
	svg_begin(f, "histogram", id, &fr);
	nt = svg_log_ticks(xlo, xhi, u, t);
	svg_axis_x(f, &fr, t, nt, u, "value (log scale)");
	svg_axis_y(f, &fr, NULL, 0, u, "values per log width");
	for (i = 0; i < n; i++) {
		double x0 = svg_px(&fr.x, b[i].lo), x1 = svg_px(&fr.x, b[i].hi);
		double y = svg_px(&fr.y, b[i].count / log10(b[i].hi / b[i].lo));

		if (!b[i].count)
			continue;
		fmt_exact(s1, sizeof(s1), b[i].lo);
		fmt_exact(s2, sizeof(s2), b[i].hi);
		fmt_exact(s3, sizeof(s3), b[i].count);
		fprintf(f, "<rect class=\"bar\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"><title>%s to %s %s: "
			   "%s values</title></rect>\n", x0, y, x1 - x0 > 0.6 ? x1 - x0 : 0.6, fr.y.p0 - y, s1, s2,
			unit_name(u), s3);
	}
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		double v = jnum(pc, pcts[i].key), x;

		if (!isfinite(v) || v < xlo || v > xhi)
			continue;
		x = svg_px(&fr.x, v);
		svg_fmt_short(s1, sizeof(s1), v, u);
		fprintf(f, "<line class=\"pct\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"pct-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s %s</text>\n",
			x, fr.y.p0, x, fr.y.p1 - 2 - 12 * (int)(ARRAY_SIZE(pcts) - 1 - i),
			x + (x > fr.x.p1 - 110 ? -3 : 3), fr.mt - 4 - 12 * (int)(ARRAY_SIZE(pcts) - 1 - i),
			x > fr.x.p1 - 110 ? "end" : "start", pcts[i].label, s1);
	}
	svg_end(f);
	fig_end(f);
	free(b);
}

/*
 * The cumulative distribution of one histogram: the share of values at or
 * below each bucket's top, on a log x axis (the same as the histogram's),
 * 0-100 %. A point per bucket with values; p50, p90, p99 and p99.9 from
 * the document are marked with their value.
 */
static void chart_cdf(FILE *f, const char *id, const char *name, enum unit u, const json_t *h)
{
	json_t *bk = json_object_get(h, "buckets"), *pc = json_object_get(h, "percentiles"), *e;
	size_t nb = json_array_size(bk), n = 0, i, nt;
	double *x = xcalloc(2 * nb + 2, sizeof(double)), *y = xcalloc(2 * nb + 2, sizeof(double));
	double total = 0, cum = 0, xlo = INFINITY, xhi = 0, t[SVG_MAXTICKS];
	struct svg_frame fr;
	char s1[48];

	json_array_foreach(bk, i, e) {
		double c = json_number_value(json_array_get(e, 2));

		if (json_is_number(json_array_get(e, 2)) && isfinite(c) && c > 0)
			total += c;
	}
	json_array_foreach(bk, i, e) {
		json_t *a = json_array_get(e, 0), *z = json_array_get(e, 1), *c = json_array_get(e, 2);
		double lo, hi, cnt;

		if (!json_is_number(a) || !json_is_number(z) || !json_is_number(c) || !(total > 0))
			continue;
		lo = json_number_value(a);
		hi = json_number_value(z);
		cnt = json_number_value(c);
		if (!isfinite(lo) || !isfinite(hi) || !(hi > 0) || lo < 0 || !(hi > lo) || !isfinite(cnt) || !(cnt > 0))
			continue;
		if (lo == 0)
			lo = hi / 2;
		if (!n) {
			x[n] = lo;
			y[n++] = 0;
		}
		cum += cnt;
		x[n] = hi;
		y[n++] = 100 * cum / total;
		xlo = fmin(xlo, lo);
		xhi = fmax(xhi, hi);
	}
	if (n < 2) {
		free(x);
		free(y);
		return;
	}
	svg_frame_init(&fr, 290, 14 + 12 * (int)ARRAY_SIZE(pcts), 40);
	half_width(&fr);
	fr.x.log = true;
	fr.x.lo = xlo;
	fr.x.hi = xhi;
	fr.y.lo = 0;
	fr.y.hi = 100;
	fig_begin(f, "dist");
	fputs("Cumulative share of ", f);
	svg_esc(f, name);
	fputs(" values at or below a value", f);
	fig_caption_end(f);
	svg_begin(f, "cdf", id, &fr);
	nt = svg_lin_ticks(0, &fr.y.hi, UNIT_PERCENT, false, t);
	svg_axis_y(f, &fr, t, nt, UNIT_PERCENT, "share of values");
	nt = svg_log_ticks(xlo, xhi, u, t);
	svg_axis_x(f, &fr, t, nt, u, "value (log scale)");
	svg_polyline(f, &fr, x, y, n, svg_color(0), name);
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		double v = jnum(pc, pcts[i].key), px, py;

		if (!isfinite(v) || v < xlo || v > xhi)
			continue;
		px = svg_px(&fr.x, v);
		py = svg_px(&fr.y, pcts[i].share);
		svg_fmt_short(s1, sizeof(s1), v, u);
		/* the points on the curve; their values listed in the empty lower right */
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#d62728\"><title>%s %s</title></circle>"
			   "<text class=\"pct-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s %s</text>\n", px, py,
			pcts[i].label, s1, fr.x.p1 - 8, fr.y.p0 - 8 - 13.0 * (double)(ARRAY_SIZE(pcts) - 1 - i),
			pcts[i].label, s1);
	}
	svg_end(f);
	fig_end(f);
	free(x);
	free(y);
}

/* The buckets of histogram H that hold values. */
static size_t filled_buckets(const json_t *h)
{
	json_t *e;
	size_t i, n = 0;

	json_array_foreach(json_object_get(h, "buckets"), i, e)
		n += json_number_value(json_array_get(e, 2)) > 0;
	return n;
}

static void hist_charts(FILE *f, size_t ri, json_t *r)
{
	json_t *hs = json_object_get(r, "histograms"), *h;
	const char *key;
	char id[128], part[64], name[64];

	if (!json_is_object(hs))
		return;
	json_object_foreach(hs, key, h) {
		size_t nlen;
		enum unit u = unit_from_key(key, &nlen);

		if (!json_is_object(h))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(nlen < 63 ? nlen : 63), key);
		if (filled_buckets(h) < 2) {
			/* One bucket has no shape to draw: its figures say it all. */
			char a[48], b[48];

			svg_fmt_short(a, sizeof(a), jnum(h, "min"), u);
			svg_fmt_short(b, sizeof(b), jnum(h, "max"), u);
			fputs("<p class=\"meta\">", f);
			svg_esc(f, name);
			fprintf(f, ": %.0f value%s, min %s, max %s (one bucket: no histogram)</p>\n", jnum(h, "count"),
				jnum(h, "count") == 1 ? "" : "s", a, b);
			continue;
		}
		svg_idpart(part, sizeof(part), key);
		snprintf(id, sizeof(id), "r%zu-hist-%s", ri, part);
		fputs("<div class=\"pair\">\n", f);
		chart_hist(f, id, name, u, h);
		snprintf(id, sizeof(id), "r%zu-cdf-%s", ri, part);
		chart_cdf(f, id, name, u, h);
		fputs("</div>\n", f);
	}
}

/* ---- curves: metrics across steps or sizes ------------------------------------ */

/*
 * Parses a metric name of the form PREFIX_<N>k|m|g (a size in KiB, MiB,
 * GiB, e.g. "lat_4096k"): the prefix length and the size in bytes.
 */
static bool size_name(const char *name, size_t len, size_t *plen, double *bytes)
{
	size_t i;
	double mul;

	if (len < 4)
		return false;
	switch (name[len - 1]) {
	case 'k': mul = 1024; break;
	case 'm': mul = 1048576; break;
	case 'g': mul = 1073741824; break;
	default: return false;
	}
	for (i = len - 1; i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9'; i--)
		;
	if (i == len - 1 || i < 2 || name[i - 1] != '_' || len - 1 - i > 12)
		return false;
	*plen = i - 1;
	*bytes = strtod(name + i, NULL) * mul;
	return *bytes > 0;
}

static int point_cmp(const void *a, const void *b)
{
	const struct svg_point *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

/*
 * The name of a family of metrics over size: the label of one member up
 * to its first comma ("load latency, 4.00 KiB working set" -> "load
 * latency") when that is a label and not a key, else the PREFIX.
 */
static void curve_name(char *buf, size_t len, const char *label, const char *prefix)
{
	const char *comma = label ? strchr(label, ',') : NULL;

	if (comma && comma > label && !strchr(label, '_'))
		snprintf(buf, len, "%.*s", (int)(comma - label), label);
	else
		snprintf(buf, len, "%s", prefix);
}

/*
 * Curves inside one result: metrics PREFIX_<N>k|m|g with the same prefix
 * and unit, three or more, drawn against N on a log axis (the memory
 * latency curve: lat_4k, lat_8k, ... in ns).
 */
static void size_curves(FILE *f, size_t ri, json_t *r)
{
	json_t *m = json_object_get(r, "metrics"), *v;
	const char *key, *done[64];
	size_t ndone = 0;

	if (!json_is_object(m))
		return;
	json_object_foreach(m, key, v) {
		size_t nlen, plen, n = 0, cap = 0;
		enum unit u = unit_from_key(key, &nlen);
		double bytes;
		struct svg_point *p = NULL;
		struct svg_curve c;
		const char *k2;
		json_t *v2;
		bool seen = false;
		char id[128], part[64], prefix[64];

		if (!json_is_number(v) || !size_name(key, nlen, &plen, &bytes) || plen >= sizeof(prefix))
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, key);
		for (size_t i = 0; i < ndone; i++)
			if (!strcmp(done[i], key))
				seen = true;
		if (seen || ndone == ARRAY_SIZE(done))
			continue;
		json_object_foreach(m, k2, v2) {
			size_t nlen2, plen2;
			double b2;

			if (!json_is_number(v2) || unit_from_key(k2, &nlen2) != u || !size_name(k2, nlen2, &plen2, &b2) ||
			    plen2 != plen || strncmp(k2, key, plen))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				p = xrealloc(p, cap * sizeof(*p));
			}
			p[n].x = b2;
			p[n].y = json_number_value(v2);
			p[n].tip = metric_label(r, k2);
			n++;
			if (strcmp(k2, key) && ndone < ARRAY_SIZE(done))
				done[ndone++] = k2;
		}
		if (n >= 3) {
			char what[96], title[96];

			qsort(p, n, sizeof(*p), point_cmp);
			curve_name(what, sizeof(what), p[0].tip, prefix);
			c.label = what;
			c.p = p;
			c.n = n;
			svg_idpart(part, sizeof(part), prefix);
			snprintf(id, sizeof(id), "r%zu-curve-%s", ri, part);
			fig_begin(f, "curve");
			snprintf(title, sizeof(title), "%s", what);
			if (title[0] >= 'a' && title[0] <= 'z')
				title[0] = (char)(title[0] - 'a' + 'A');
			svg_esc(f, title);
			fprintf(f, " by size, %s (%zu sizes)", unit_name(u), n);
			fig_caption_end(f);
			svg_curves(f, "curve", id, &c, 1, u, true, UNIT_BYTES, "size (log scale)");
			fig_end(f);
		}
		free(p);
	}
}

/* The units charted across steps, in this order: rates, then latency. Other figures are table rows. */
static const enum unit unit_order[] = {
	UNIT_BYTES_PER_S, UNIT_BITS_PER_S, UNIT_PER_S, UNIT_NS,
};

/* The id suffix of unit U: "bytes_per_second", ..., "count". */
static const char *unit_id(enum unit u)
{
	return u == UNIT_COUNT ? "count" : unit_suffix(u) + 1;
}

/*
 * The task x load grid of interbench-like steps (every step of the group
 * has the string parameters "task" and "load"): a table, a row per task, a
 * column per load, each cell the step's headline latency with its deadlines
 * met, coloured from pale (the grid's lowest) to dark red (its highest) on
 * a log scale. Returns false (and draws nothing) when the steps are not
 * such a grid.
 */
static bool task_load_grid(FILE *f, json_t *results, size_t i0, size_t m, size_t gi)
{
	const char **task = xcalloc(m, sizeof(char *)), **load = xcalloc(m, sizeof(char *));
	size_t nt = 0, nl = 0;
	double lo = INFINITY, hi = 0;
	const char *hl = NULL;

	for (size_t i = 0; i < m; i++) {
		json_t *r = json_array_get(results, i0 + i), *pa = json_object_get(r, "parameters");
		const char *t = jstr(pa, "task"), *l = jstr(pa, "load"), *h = jstr(r, "headline");
		double v = jnum(json_object_get(r, "metrics"), h ? h : "");
		size_t k;

		if (!t || !l || !h || (hl && strcmp(h, hl))) {
			free(task);
			free(load);
			return false;
		}
		hl = h;
		for (k = 0; k < nt && strcmp(task[k], t); k++)
			;
		if (k == nt)
			task[nt++] = t;
		for (k = 0; k < nl && strcmp(load[k], l); k++)
			;
		if (k == nl)
			load[nl++] = l;
		if (v > 0 && isfinite(v)) {
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	}
	fig_begin(f, "grid");
	svg_esc(f, metric_label(json_array_get(results, i0), hl));
	fprintf(f, " of each task under each load (%zu tasks &times; %zu loads; darker is worse)", nt, nl);
	fig_caption_end(f);
	fprintf(f, "<table class=\"grid tasks-loads\" id=\"steps%zu-grid\">\n<tr><th>task \\ load</th>", gi);
	for (size_t l = 0; l < nl; l++) {
		fputs("<th>", f);
		svg_esc(f, load[l]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t t = 0; t < nt; t++) {
		fputs("<tr><th>", f);
		svg_esc(f, task[t]);
		fputs("</th>", f);
		for (size_t l = 0; l < nl; l++) {
			json_t *cell = NULL;

			for (size_t i = 0; i < m && !cell; i++) {
				json_t *r = json_array_get(results, i0 + i), *pa = json_object_get(r, "parameters");

				if (!strcmp(jstr(pa, "task"), task[t]) && !strcmp(jstr(pa, "load"), load[l]))
					cell = r;
			}
			if (!cell) {
				fputs("<td class=\"num\">&mdash;</td>", f);
				continue;
			}
			{
				double v = jnum(json_object_get(cell, "metrics"), hl);
				double met = jnum(json_object_get(cell, "metrics"), "deadlines_met_percent");
				double share = hi > lo && v > 0 ? 100 * log(v / lo) / log(hi / lo) : 0;
				char col[8], b[64];

				svg_heat_color(share, col, sizeof(col));
				render_value(b, sizeof(b), v, unit_from_key(hl, NULL));
				fprintf(f, "<td class=\"num cell\" style=\"background:%s;color:%s\"><b>%s</b>", col,
					share > 60 ? "#fff" : "#222", b);
				if (isfinite(met)) {
					svg_num3(b, sizeof(b), met);
					fprintf(f, "<br><small>%s %% deadlines met</small>", b);
				}
				fputs("</td>", f);
			}
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	fig_end(f);
	free(task);
	free(load);
	return true;
}

/*
 * A sweep's combination of one numeric option, "--OPT VALUE" (the value a
 * plain number): true with *X and the option in OPT (LEN bytes), which it
 * must match when OPT is not empty. Anything else (two options, a word) is
 * not a real axis: false.
 */
static bool sweep_value(const char *sw, char *opt, size_t len, double *x)
{
	const char *sp = sw ? strchr(sw, ' ') : NULL;
	char *end;

	if (!sp || strncmp(sw, "--", 2) || (size_t)(sp - sw) >= len || strchr(sp + 1, ' '))
		return false;
	*x = strtod(sp + 1, &end);
	if (end == sp + 1 || *end || !isfinite(*x))
		return false;
	if (!*opt)
		snprintf(opt, len, "%.*s", (int)(sp - sw), sw);
	return strlen(opt) == (size_t)(sp - sw) && !strncmp(opt, sw, (size_t)(sp - sw));
}

/*
 * Charts across the steps of one benchmark: results [I0, I1) of the run,
 * all of bench BENCH.
 *   - Over size (every step has a growing "size_bytes": the swap ladder),
 *     or over a swept numeric option ("--threads 1", "--threads 2", ...):
 *     a line per rate or latency metric two or more steps share, over the
 *     size on a log axis (the option's value: log when it spans a decade);
 *     log y when the figures span a decade.
 *   - A task x load grid (every step names its task and load): a table.
 *   - Otherwise the steps are categories: bars of each step's headline
 *     figure, one chart per unit, each bar named by its own step's label.
 * Parameters and counts (frequency, packets, bytes) are table rows only.
 */
static void step_charts(FILE *f, json_t *results, size_t i0, size_t i1, const char *bench, size_t gi)
{
	size_t m = i1 - i0, nkeys = 0, cap = 0;
	const char **keys = NULL, **cat = xcalloc(m, sizeof(char *));
	size_t *count = NULL;
	bool bysize = true, byopt = true;
	double prev = 0, *xs = xcalloc(m, sizeof(double)), *xo = xcalloc(m, sizeof(double));
	char id[160], part[64], opt[48] = "";

	for (size_t i = 0; i < m; i++) {
		json_t *r = json_array_get(results, i0 + i), *mt = json_object_get(r, "metrics"), *v;
		double sz = jnum(mt, "size_bytes");
		const char *key;

		cat[i] = jstr(r, "sweep") ?: jstr(r, "step");	/* a sweep's combination is shorter */
		if (!(sz > prev))
			bysize = false;
		prev = xs[i] = sz;
		byopt = byopt && sweep_value(jstr(r, "sweep"), opt, sizeof(opt), &xo[i]) && (!i || xo[i] > xo[i - 1]);
		if (!json_is_object(mt))
			continue;
		json_object_foreach(mt, key, v) {
			size_t k;

			if (!json_is_number(v))
				continue;
			for (k = 0; k < nkeys && strcmp(keys[k], key); k++)
				;
			if (k == nkeys) {
				if (nkeys == cap) {
					cap = cap ? 2 * cap : 32;
					keys = xrealloc(keys, cap * sizeof(*keys));
					count = xrealloc(count, cap * sizeof(*count));
				}
				keys[nkeys] = key;
				count[nkeys++] = 0;
			}
			count[k]++;
		}
	}
	svg_idpart(part, sizeof(part), bench);
	if (bysize) {
		byopt = false;
	} else if (byopt) {
		/* A sweep of one numeric option (threads, depth): a real axis, drawn like the sizes. */
		bysize = true;
		memcpy(xs, xo, m * sizeof(double));
	} else if (task_load_grid(f, results, i0, m, gi)) {
		goto out;
	}
	for (size_t ui = 0; ui < ARRAY_SIZE(unit_order); ui++) {
		enum unit u = unit_order[ui];
		struct svg_curve c[SVG_MAX_LINES];
		struct svg_bar *bars;
		size_t nc = 0, more = 0, nb = 0;

		if (!bysize) {
			/* Categories: each step's headline in this unit, a bar each. */
			bars = xcalloc(m, sizeof(*bars));
			for (size_t i = 0; i < m; i++) {
				json_t *r = json_array_get(results, i0 + i);
				const char *hl = jstr(r, "headline");

				if (!hl || unit_from_key(hl, NULL) != u ||
				    !json_is_number(json_object_get(json_object_get(r, "metrics"), hl)))
					continue;
				bars[nb].group = cat[i] ? cat[i] : "?";
				bars[nb].label = metric_label(r, hl);
				bars[nb++].v = jnum(json_object_get(r, "metrics"), hl);
			}
			if (nb >= 2) {
				snprintf(id, sizeof(id), "steps%zu-%s-%s", gi, part, unit_id(u));
				bool same = true;

				for (size_t i = 1; i < nb; i++)
					same = same && !strcmp(bars[i].label, bars[0].label);
				fig_begin(f, "steps");
				svg_esc(f, bench);
				fprintf(f, ", %zu steps: ", nb);
				if (same)
					svg_esc(f, bars[0].label);
				else
					fputs("each step's headline figure", f);
				fprintf(f, ", %s", unit_name(u));
				if (nb < m)
					fprintf(f, " (%zu step%s with a headline in another unit: in the summary)", m - nb,
						m - nb == 1 ? "" : "s");
				fig_caption_end(f);
				svg_bars(f, "steps bars", id, bars, nb, u);
				fig_end(f);
			}
			free(bars);
			continue;
		}
		for (size_t k = 0; k < nkeys; k++) {
			if (count[k] < 2 || unit_from_key(keys[k], NULL) != u)
				continue;
			if (nc == SVG_MAX_LINES) {
				more++;
				continue;
			}
			c[nc].label = NULL;
			c[nc].p = xcalloc(m, sizeof(struct svg_point));
			c[nc].n = m;
			for (size_t i = 0; i < m; i++) {
				json_t *r = json_array_get(results, i0 + i);

				if (!c[nc].label && json_object_get(json_object_get(r, "metrics"), keys[k]))
					c[nc].label = metric_label(r, keys[k]);
				c[nc].p[i].x = xs[i];
				c[nc].p[i].y = jnum(json_object_get(r, "metrics"), keys[k]);
				c[nc].p[i].tip = cat[i] ? cat[i] : "?";
			}
			if (!c[nc].label)
				c[nc].label = keys[k];
			nc++;
		}
		if (!nc)
			continue;
		snprintf(id, sizeof(id), "steps%zu-%s-%s", gi, part, unit_id(u));
		fig_begin(f, "steps");
		svg_esc(f, bench);
		if (byopt) {
			fprintf(f, ": %s over ", unit_name(u));
			svg_esc(f, opt);
			fprintf(f, " (%zu values)", m);
		} else {
			fputs(", ", f);
			svg_esc(f, cat[0]);
			fputs(" to ", f);
			svg_esc(f, cat[m - 1]);
			fprintf(f, ": %s over the size (%zu sizes)", unit_name(u), m);
		}
		if (more)
			fprintf(f, " (%zu more metric%s in the tables)", more, more == 1 ? "" : "s");
		fig_caption_end(f);
		if (byopt)
			svg_curves(f, "steps curve", id, c, nc, u, svg_spans_decades(xs[0], xs[m - 1], 1), UNIT_COUNT, opt);
		else
			svg_curves(f, "steps curve", id, c, nc, u, true, UNIT_BYTES, "size (log scale)");
		fig_end(f);
		for (size_t k = 0; k < nc; k++)
			free(c[k].p);
	}
out:
	free(xs);
	free(xo);
	free(keys);
	free(count);
	free(cat);
}

/* ---- the page ----------------------------------------------------------- */

static const char css[] =
	"body{font:14px/1.45 \"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif;margin:0 auto;max-width:1000px;"
	"padding:16px 20px;color:#222;background:#fff}\n"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:30px 0 6px;border-bottom:2px solid #ddd;"
	"padding-bottom:3px}h3{font-size:15px;margin:16px 0 4px}\n"
	".meta{color:#555;margin:0 0 2px}\n"
	"table{border-collapse:collapse;margin:6px 0 12px;width:100%}\n"
	"th,td{border-bottom:1px solid #e4e4e4;padding:3px 8px;text-align:left;vertical-align:top}\n"
	"th{background:#f3f3f3;font-weight:600}td.num{text-align:right;white-space:nowrap;"
	"font-variant-numeric:tabular-nums}\n"
	"code,.key{font-family:\"DejaVu Sans Mono\",monospace;font-size:12px;color:#666}\n"
	".status{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}\n"
	".status.ok{background:#e3f4e1;color:#1d5e1a}.status.skipped{background:#eee;color:#555}"
	".status.failed{background:#fbe0e0;color:#8a1212}.status.incomplete{background:#fff0c8;color:#7a5300}\n"
	".verdict{background:#f4f7fb;border-left:4px solid #4a78b5;padding:6px 10px;margin:8px 0}\n"
	".reason{color:#8a1212}.note{color:#555}\n"
	"table.kv td:first-child{width:22%;color:#444}\n"
	"figure.fig{margin:14px 0 20px}figcaption{font-weight:600;margin-bottom:4px}\n"
	"svg.chart{display:block;width:100%;height:auto;max-width:960px;font:11px \"DejaVu Sans\",Arial,sans-serif}\n"
	"svg .plot{fill:#fcfcfc;stroke:#bbb}svg .grid{stroke:#e8e8e8}svg .tick,svg .legend{fill:#444}\n"
	"svg .axis-title{fill:#333;font-size:12px}svg .line{fill:none;stroke-width:1.7}\n"
	"svg .bar{fill:#4a78b5}svg .pbar{fill:#7ea6d8}svg .value{fill:#222}\n"
	"svg .pct{stroke:#d62728;stroke-dasharray:4 3}svg .pct-label{fill:#b01c1c}\n"
	"details summary{cursor:pointer;color:#335}\n"
	".pair{display:flex;gap:12px}.pair figure.fig{flex:1 1 0;min-width:0}\n"
	"svg .phase{fill:#e9e9e9}svg .unsampled{fill:#f3f3f3}svg .span-label{fill:#777;font-size:10px}\n"
	"svg .group{fill:#222;font-weight:600}svg .what{fill:#666}\n"
	"table.grid td.cell{text-align:center;line-height:1.25}table.grid{width:auto}table.grid td,table.grid th{"
	"padding:4px 12px}\n"
	".print-note{display:none}\n"
	/* Printed (the PDF): the summary, the charts across steps, and per step its verdict, curves and
	 * distributions, two charts a row; the tables, time series and heat strips are the screen's. */
	"@media print{@page{size:A4;margin:11mm 10mm}\n"
	"body{max-width:none;padding:0;font-size:10.5px}h1{font-size:17px}h2{font-size:13.5px;margin:10px 0 4px;"
	"break-after:avoid}h3{font-size:11px}\n"
	".detail,figure.time,details{display:none}.print-note{display:block;color:#555}\n"
	"figure.fig{break-inside:avoid;margin:4px 0 8px}figcaption{font-size:10px}\n"
	"table{margin:4px 0 8px}th,td{padding:1px 5px}.verdict{padding:3px 8px;margin:4px 0}\n"
	"a{color:inherit;text-decoration:none}section.result{break-inside:auto}}\n";

/* Writes a status badge for result R: ok / skipped / failed, and incomplete. */
static void badge(FILE *f, const json_t *r)
{
	const char *st = jstr(r, "status");
	const char *cls = st && (!strcmp(st, "ok") || !strcmp(st, "skipped") || !strcmp(st, "failed")) ? st : "failed";

	fprintf(f, "<span class=\"status %s\">", cls);
	svg_esc(f, st ? st : "?");
	fputs("</span>", f);
	if (json_is_true(json_object_get(r, "incomplete")))
		fputs(" <span class=\"status incomplete\">incomplete</span>", f);
}

/* "bench / step", or the bench alone when the step repeats it. */
static void step_name(FILE *f, const json_t *r)
{
	const char *b = jstr(r, "bench"), *s = jstr(r, "step");

	svg_esc(f, b);
	if (s && b && strcmp(s, b)) {
		fputs(" / ", f);
		svg_esc(f, s);
	}
}

/* A metric value of R by key, formatted with its unit, with its label. */
static void metric_value(char *buf, size_t len, const json_t *r, const char *key)
{
	render_value(buf, len, jnum(json_object_get(r, "metrics"), key), unit_from_key(key, NULL));
}

static void header(FILE *f, json_t *doc, const char *source)
{
	json_t *info = json_object_get(doc, "info"), *cpu = json_object_get(info, "cpu");
	json_t *mem = json_object_get(info, "memory"), *kern = json_object_get(info, "kernel");
	const char *host = jstr(doc, "host");
	char b[64];

	fputs("<h1>engpass report", f);
	if (host) {
		fputs(": ", f);
		svg_esc(f, host);
	}
	fputs("</h1>\n<p class=\"meta\">", f);
	svg_esc(f, jstr(doc, "time") ?: "time unknown");
	if (jstr(doc, "command")) {
		fputs(" &middot; <code>", f);
		svg_esc(f, jstr(doc, "command"));
		fputs("</code>", f);
	}
	fputs(" &middot; engpass ", f);
	svg_esc(f, jstr(json_object_get(doc, "tool"), "version") ?: "?");
	fputs(" &middot; from ", f);
	svg_esc(f, source);
	fputs("</p>\n<p class=\"meta\">", f);
	if (jstr(cpu, "model")) {
		svg_esc(f, jstr(cpu, "model"));
		fputs(", ", f);
	}
	if (json_is_integer(json_object_get(cpu, "online_cpus")))
		fprintf(f, "%lld CPUs online, ", (long long)json_integer_value(json_object_get(cpu, "online_cpus")));
	if (isfinite(jnum(mem, "mem_total_bytes"))) {
		render_value(b, sizeof(b), jnum(mem, "mem_total_bytes"), UNIT_BYTES);
		fprintf(f, "%s RAM, ", b);
	}
	if (jstr(kern, "release")) {
		fputs("Linux ", f);
		svg_esc(f, jstr(kern, "release"));
	}
	fputs("</p>\n", f);
}

/*
 * The unit of metric NAME of R (its key in "metrics" is NAME plus the
 * unit's suffix), and that key into *KEY (R's own string; NAME when none);
 * a count when none.
 */
static enum unit metric_unit(json_t *r, const char *name, const char **key)
{
	const char *k;
	json_t *x;
	size_t nl;

	*key = name;
	json_object_foreach(json_object_get(r, "metrics"), k, x) {
		enum unit u = unit_from_key(k, &nl);

		(void)x;
		if (name && nl == strlen(name) && !strncmp(k, name, nl)) {
			*key = k;
			return u;
		}
	}
	return UNIT_COUNT;
}

/* One tested candidate of --verify (a "probes" entry of verdict.verification) in a few words: "confirmed x1.93". */
static void probe_brief(FILE *f, json_t *p)
{
	const char *o = jstr(p, "outcome");
	double ratio = jnum(p, "ratio");

	svg_esc(f, o ? o : "?");
	if (isfinite(ratio) && jnum(p, "probe_seconds") > 0)
		fprintf(f, " x%.2f", ratio);
}

/* The summary's word for R's check: the first candidate tested, and the one re-ranked to (if any). */
static void verification_brief(FILE *f, json_t *vd)
{
	json_t *v = json_object_get(vd, "verification"), *probes = json_object_get(v, "probes"), *p;
	const char *now = jstr(vd, "resource"), *refuted = jstr(v, "refuted");
	size_t i;

	if (!json_is_object(v))
		return;
	fputs("<br><span class=\"key\">", f);
	if (refuted && now && strcmp(refuted, now)) {
		fputs("re-ranked: ", f);
		svg_esc(f, refuted);
		fputs(" ", f);
	}
	json_array_foreach(probes, i, p) {
		if (i) {
			fputs(", then ", f);
			svg_esc(f, jstr(p, "resource") ?: "?");
			fputs(" ", f);
		}
		probe_brief(f, p);
	}
	fputs("</span>", f);
}

/*
 * The check of R's verdict (--verify): per candidate tested, the outcome,
 * and where a probe ran its figure beside the step's, the ratio and the
 * noise band; else why.
 */
static void verification_para(FILE *f, json_t *r, json_t *vd)
{
	json_t *v = json_object_get(vd, "verification"), *probes = json_object_get(v, "probes"), *p;
	size_t i;
	char a[64], b[64], lo[64], hi[64];

	if (!json_is_object(v) || !json_array_size(probes))
		return;
	fputs("<p class=\"verdict\">Checked (<code>--verify</code>):", f);
	json_array_foreach(probes, i, p) {
		const char *metric = jstr(p, "metric"), *why = jstr(p, "why"), *key;
		enum unit u = metric_unit(r, metric, &key);
		json_t *iv = json_object_get(p, "interval");

		fputs(i ? "<br>then " : " ", f);
		svg_esc(f, jstr(p, "resource") ?: "?");
		fputs(": <b>", f);
		probe_brief(f, p);
		fputs("</b>", f);
		if (jnum(p, "probe_seconds") > 0 && isfinite(jnum(p, "figure"))) {
			render_value(a, sizeof(a), jnum(p, "base"), u);
			render_value(b, sizeof(b), jnum(p, "figure"), u);
			render_value(lo, sizeof(lo), json_is_number(json_array_get(iv, 0)) ?
				     json_number_value(json_array_get(iv, 0)) : NAN, u);
			render_value(hi, sizeof(hi), json_is_number(json_array_get(iv, 1)) ?
				     json_number_value(json_array_get(iv, 1)) : NAN, u);
			fputs(" &mdash; ", f);
			svg_esc(f, key ? metric_label(r, key) : "?");
			fprintf(f, ": the step <b>%s</b>, the probe <b>%s</b> with ", a, b);
			svg_esc(f, jstr(p, "probe") ?: "?");
			if (jstr(p, "parameters")) {
				fputs(" (<code>", f);
				svg_esc(f, jstr(p, "parameters"));
				fputs("</code>)", f);
			}
			fprintf(f, "; a move counts outside %s to %s (", lo, hi);
			svg_esc(f, jstr(p, "interval_source") ?: "?");
			fprintf(f, "), in %.1f s", jnum(p, "probe_seconds"));
		}
		if (why && *why) {
			fputs(" &mdash; ", f);
			svg_esc(f, why);
		}
	}
	if (jstr(v, "refuted") && jstr(vd, "resource") && strcmp(jstr(v, "refuted"), jstr(vd, "resource"))) {
		fputs("<br>Re-ranked: <b>", f);
		svg_esc(f, jstr(vd, "resource"));
		fputs("</b> named instead of ", f);
		svg_esc(f, jstr(v, "refuted"));
	}
	fputs("</p>\n", f);
}

static void summary(FILE *f, json_t *results)
{
	json_t *r;
	size_t i;
	char v[64];

	fputs("<h2 id=\"summary\">Summary</h2>\n<table class=\"summary\">\n<tr><th>#</th><th>step</th><th>status</th>"
	      "<th>headline</th><th>bounded by</th></tr>\n", f);
	json_array_foreach(results, i, r) {
		const char *hl = jstr(r, "headline"), *reason = jstr(r, "reason");
		json_t *vd = json_object_get(r, "verdict");

		fprintf(f, "<tr><td class=\"num\">%zu</td><td><a href=\"#result-%zu\">", i + 1, i);
		step_name(f, r);
		fputs("</a></td><td>", f);
		badge(f, r);
		if (reason) {
			fputs(" <span class=\"reason\">", f);
			svg_esc_trunc(f, reason, 80);
			fputs("</span>", f);
		}
		fputs("</td><td>", f);
		if (hl && json_is_number(json_object_get(json_object_get(r, "metrics"), hl))) {
			metric_value(v, sizeof(v), r, hl);
			svg_esc(f, metric_label(r, hl));
			fprintf(f, ": <b>%s</b>", v);
		} else {
			fputs("&mdash;", f);
		}
		fputs("</td><td>", f);
		if (jstr(vd, "resource")) {
			fputs("<b>", f);
			svg_esc(f, jstr(vd, "resource"));
			fputs("</b>", f);
			verification_brief(f, vd);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A two-column table of the string (or number) members of OBJ under a heading. */
static void kv_table(FILE *f, const char *title, json_t *obj)
{
	const char *key;
	json_t *v;
	char b[64];

	if (!json_is_object(obj) || !json_object_size(obj))
		return;
	fprintf(f, "<h3>%s</h3>\n<table class=\"kv\">\n", title);
	json_object_foreach(obj, key, v) {
		fputs("<tr><td>", f);
		svg_esc(f, key);
		fputs("</td><td>", f);
		if (json_is_string(v)) {
			svg_esc(f, json_string_value(v));
		} else if (json_is_number(v)) {
			render_value(b, sizeof(b), json_number_value(v), unit_from_key(key, NULL));
			fputs(b, f);
		} else if (json_is_boolean(v)) {
			fputs(json_is_true(v) ? "yes" : "no", f);
		} else if (json_is_null(v)) {
			fputs("n/a", f);
		} else {
			fputs("&hellip;", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void metrics_table(FILE *f, json_t *r)
{
	json_t *m = json_object_get(r, "metrics"), *sp = json_object_get(r, "spread"), *v;
	const char *key;
	bool spread = json_is_object(sp) && json_object_size(sp);
	char b[64];

	if (!json_is_object(m) || !json_object_size(m))
		return;
	fprintf(f, "<h3>Metrics</h3>\n<table class=\"metrics\">\n<tr><th>metric</th><th>key</th><th>%s</th>%s</tr>\n",
		spread ? "median" : "value", spread ? "<th>min</th><th>max</th><th>n</th>" : "");
	json_object_foreach(m, key, v) {
		json_t *s = spread ? json_object_get(sp, key) : NULL;
		enum unit u = unit_from_key(key, NULL);

		fputs("<tr><td>", f);
		svg_esc(f, metric_label(r, key));
		fputs("</td><td class=\"key\">", f);
		svg_esc(f, key);
		render_value(b, sizeof(b), json_is_number(v) ? json_number_value(v) : NAN, u);
		fprintf(f, "</td><td class=\"num\">%s</td>", b);
		if (spread) {
			render_value(b, sizeof(b), jnum(s, "min"), u);
			fprintf(f, "<td class=\"num\">%s</td>", json_is_object(s) ? b : "");
			render_value(b, sizeof(b), jnum(s, "max"), u);
			fprintf(f, "<td class=\"num\">%s</td>", json_is_object(s) ? b : "");
			if (json_is_integer(json_object_get(s, "n")))
				fprintf(f, "<td class=\"num\">%lld</td>",
					(long long)json_integer_value(json_object_get(s, "n")));
			else
				fputs("<td></td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A state's colour in the budget bar: the CPU blue, waits warm, the rest grey. */
static const char *state_color(const char *st)
{
	static const struct {
		const char *state, *color;
	} c[] = {
		{ "on CPU", "#4a78b5" }, { "run queue", "#9bb7de" }, { "disk", "#d62728" }, { "network", "#ff7f0e" },
		{ "ipc", "#bcbd22" }, { "own sleep", "#2ca02c" }, { "lock", "#9467bd" }, { "paging", "#8c564b" },
		{ "children", "#e377c2" }, { "signal", "#17becf" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (st && !strcmp(st, c[i].state))
			return c[i].color;
	return "#bbbbbb";
}

/*
 * The step's time budget as one stacked bar: where the work's thread time
 * went (system.time_budget), each state a segment, named below.
 */
static void budget_bar(FILE *f, const json_t *r)
{
	const json_t *b = json_object_get(json_object_get(r, "system"), "time_budget");
	const json_t *states = json_object_get(b, "states"), *e;
	double x = 0;
	size_t i;

	if (!json_array_size(states))
		return;
	fputs("<figure class=\"fig budget\"><figcaption>Where the work's time went (thread states)</figcaption>\n"
	      "<svg class=\"chart\" viewBox=\"0 0 960 26\" role=\"img\">", f);
	json_array_foreach(states, i, e) {
		double p = json_number_value(json_object_get(e, "percent"));

		if (!(p > 0))
			continue;
		fprintf(f, "<rect x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"22\" fill=\"%s\"><title>", x * 9.6,
			p * 9.6, state_color(jstr(e, "state")));
		svg_esc(f, jstr(e, "state"));
		if (jstr(e, "what")) {
			fputs(" ", f);
			svg_esc(f, jstr(e, "what"));
		}
		fprintf(f, " %.0f %%</title></rect>", p);
		x += p;
	}
	fputs("</svg>\n<p class=\"note\">", f);
	json_array_foreach(states, i, e) {
		double p = json_number_value(json_object_get(e, "percent"));

		if (!(p >= 0.5))
			continue;
		fprintf(f, "%s<span style=\"color:%s\">&#9632;</span> ", i ? " &middot; " : "", state_color(jstr(e, "state")));
		svg_esc(f, jstr(e, "state"));
		if (jstr(e, "what")) {
			fputs(" ", f);
			svg_esc(f, jstr(e, "what"));
		}
		if (jstr(e, "detail")) {
			fputs(" (", f);
			svg_esc(f, jstr(e, "detail"));
			fputs(")", f);
		}
		fprintf(f, " %.0f %%", p);
	}
	fprintf(f, "<br>%.1f thread-seconds of %lld threads (%lld idle left out), sampled at %.0f Hz</p></figure>\n",
		json_number_value(json_object_get(b, "thread_seconds")),
		(long long)json_integer_value(json_object_get(b, "threads")),
		(long long)json_integer_value(json_object_get(b, "idle_threads")),
		json_number_value(json_object_get(b, "rate_hz")));
}

static void result_section(FILE *f, size_t ri, json_t *r)
{
	json_t *vd = json_object_get(r, "verdict"), *notes = json_object_get(r, "notes"), *n;
	const char *reason = jstr(r, "reason");
	size_t i;

	fprintf(f, "<section class=\"result\" id=\"result-%zu\">\n<h2>%zu. ", ri, ri + 1);
	step_name(f, r);
	fputs(" ", f);
	badge(f, r);
	fputs("</h2>\n", f);
	if (reason) {
		fputs("<p class=\"reason\">", f);
		svg_esc(f, reason);
		fputs("</p>\n", f);
	}
	if (jstr(vd, "resource")) {
		fputs("<p class=\"verdict\">Bounded by <b>", f);
		svg_esc(f, jstr(vd, "resource"));
		fputs("</b>", f);
		if (jstr(vd, "evidence") && *jstr(vd, "evidence")) {
			fputs(": ", f);
			svg_esc(f, jstr(vd, "evidence"));
		}
		if (jstr(vd, "next_step") && *jstr(vd, "next_step")) {
			fputs("<br>What would move it: ", f);
			svg_esc(f, jstr(vd, "next_step"));
		}
		fputs("</p>\n", f);
		verification_para(f, r, vd);
	}
	budget_bar(f, r);
	size_curves(f, ri, r);
	series_charts(f, ri, r);
	hist_charts(f, ri, r);
	fputs("<div class=\"detail\">\n", f);
	metrics_table(f, r);
	if (json_array_size(notes)) {
		fputs("<h3>Notes</h3>\n<ul class=\"note\">\n", f);
		json_array_foreach(notes, i, n) {
			if (!json_is_string(n))
				continue;
			fputs("<li>", f);
			svg_esc(f, json_string_value(n));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	kv_table(f, "Parameters", json_object_get(r, "parameters"));
	kv_table(f, "Method", json_object_get(r, "method"));
	if (json_is_object(json_object_get(r, "system"))) {
		fputs("<details><summary>System view during the step (sampled)</summary>\n", f);
		kv_table(f, "System", json_object_get(r, "system"));
		fputs("</details>\n", f);
	}
	fputs("</div>\n</section>\n", f);
}

/* Whether results A and B share at least half of the numeric metrics of the one with more. */
static bool similar(const json_t *a, const json_t *b)
{
	json_t *ma = json_object_get(a, "metrics"), *mb = json_object_get(b, "metrics"), *v;
	size_t shared = 0, na = 0, nb = 0;
	const char *key;

	json_object_foreach(mb, key, v)
		nb += json_is_number(v);
	json_object_foreach(ma, key, v) {
		if (!json_is_number(v))
			continue;
		na++;
		shared += json_is_number(json_object_get(mb, key));
	}
	return shared > 0 && 2 * shared >= (na > nb ? na : nb);
}

int html_check_document(json_t *doc, char *err, size_t errlen)
{
	json_t *results = json_object_get(doc, "results"), *r;
	const char *schema = jstr(doc, "schema");
	size_t i;

	if (!json_is_object(doc) || !schema || strcmp(schema, "engpass/1") || !json_is_array(results)) {
		snprintf(err, errlen, "not an engpass result (no \"schema\": \"engpass/1\" with results)");
		return -EPROTO;
	}
	json_array_foreach(results, i, r) {
		if (!json_is_object(r) || !jstr(r, "bench") || !jstr(r, "step")) {
			snprintf(err, errlen, "result %zu lacks bench or step", i);
			return -EPROTO;
		}
	}
	return 0;
}

int render_html(FILE *f, json_t *doc, const char *source)
{
	json_t *results = json_object_get(doc, "results"), *r;
	size_t n = json_array_size(results), i, gi = 0;
	bool across = false;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"engpass\">\n<title>engpass report", f);
	if (jstr(doc, "host")) {
		fputs(": ", f);
		svg_esc(f, jstr(doc, "host"));
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
	header(f, doc, source);
	fputs("<p class=\"print-note\">Printed: the summary, the charts across steps, and each step's verdict, "
	      "curves and distributions. The metrics, time series, heat strips, notes, parameters and method are "
	      "on the page on screen.</p>\n", f);
	summary(f, results);
	/* Groups of two or more consecutive results of one benchmark with mostly the same metrics. */
	for (i = 0; i < n;) {
		json_t *first = json_array_get(results, i);
		const char *b = jstr(first, "bench");
		size_t j = i + 1;

		while (j < n && b && !strcmp(b, jstr(json_array_get(results, j), "bench")) &&
		       similar(first, json_array_get(results, j)))
			j++;
		if (j - i >= 2) {
			if (!across)
				fputs("<h2 id=\"across\">Across steps</h2>\n", f);
			across = true;
			step_charts(f, results, i, j, b, gi++);
		}
		i = j;
	}
	json_array_foreach(results, i, r)
		result_section(f, i, r);
	fputs("<p class=\"meta\">Made by engpass from the JSON document (schema engpass/1); every figure is the "
	      "document's. Charts are inline SVG; hover a point or bar for its value.</p>\n</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}


/* ---- several hosts' runs side by side ------------------------------------ */

/* A step of the page across hosts: its bench and step names (borrowed from a document). */
struct host_step {
	const char *bench, *step;
};

/* "bench / step", or the bench alone when the step repeats it. */
static void host_step_name(FILE *f, const struct host_step *s)
{
	svg_esc(f, s->bench);
	if (strcmp(s->bench, s->step)) {
		fputs(" / ", f);
		svg_esc(f, s->step);
	}
}

/* The result of DOC for step S, or NULL. */
static json_t *host_result(json_t *doc, const struct host_step *s)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "results"), i, r)
		if (!strcmp(jstr(r, "bench"), s->bench) && !strcmp(jstr(r, "step"), s->step))
			return r;
	return NULL;
}

/* The headline key of R when R is ok and its headline is a number, else NULL. */
static const char *host_headline(const json_t *r)
{
	const char *hl = jstr(r, "headline"), *st = jstr(r, "status");

	if (!hl || !st || strcmp(st, "ok") || !json_is_number(json_object_get(json_object_get(r, "metrics"), hl)))
		return NULL;
	return hl;
}

/* The steps of all documents, each once, in the order they first appear. Caller frees. */
static struct host_step *host_steps(json_t **docs, size_t n, size_t *nsteps)
{
	struct host_step *v = NULL;
	size_t cap = 0;

	*nsteps = 0;
	for (size_t d = 0; d < n; d++) {
		json_t *r;
		size_t i;

		json_array_foreach(json_object_get(docs[d], "results"), i, r) {
			struct host_step s = { jstr(r, "bench"), jstr(r, "step") };
			bool seen = false;

			for (size_t k = 0; k < *nsteps && !seen; k++)
				seen = !strcmp(v[k].bench, s.bench) && !strcmp(v[k].step, s.step);
			if (seen)
				continue;
			if (*nsteps == cap) {
				cap = cap ? 2 * cap : 16;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[(*nsteps)++] = s;
		}
	}
	return v;
}

/*
 * One bar chart of step S's headline figure across the hosts: a bar per
 * host from 0, with its value; a host without the figure gets its status
 * instead of a bar. The unit and label are the first host's that has it;
 * a host whose headline is another metric is shown without a bar.
 */
static void host_chart(FILE *f, json_t **docs, size_t n, const struct host_step *s, size_t si)
{
	const char *key = NULL, *label = NULL;
	double hi = 0, t[SVG_MAXTICKS];
	struct svg_frame fr;
	enum unit u;
	size_t nt;
	char id[32], v[48];

	for (size_t d = 0; d < n && !key; d++) {
		json_t *r = host_result(docs[d], s);

		if ((key = host_headline(r)))
			label = metric_label(r, key);
	}
	if (!key)
		return;
	u = unit_from_key(key, NULL);
	for (size_t d = 0; d < n; d++) {
		json_t *r = host_result(docs[d], s);
		const char *hk = host_headline(r);

		if (hk && !strcmp(hk, key))
			hi = fmax(hi, jnum(json_object_get(r, "metrics"), key));
	}
	svg_frame_init(&fr, 16 + (int)n * 26 + 40, 16, 40);
	fr.x.lo = 0;
	fr.x.hi = hi > 0 ? hi : 1;
	fr.x.p1 -= 80;	/* room for the longest bar's value */
	nt = svg_lin_ticks(0, &fr.x.hi, u, true, t);
	snprintf(id, sizeof(id), "hosts-%zu", si);
	fig_begin(f, "hosts");
	fputs("<a id=\"", f);
	fputs(id, f);
	fputs("\"></a>", f);
	host_step_name(f, s);
	fputs(": ", f);
	svg_esc(f, label);
	fprintf(f, " across %zu hosts (%s)", n, unit_name(u));
	fig_caption_end(f);
	svg_begin(f, "hosts", id, &fr);
	svg_axis_x(f, &fr, t, nt, u, unit_name(u));
	for (size_t d = 0; d < n; d++) {
		json_t *r = host_result(docs[d], s);
		const char *hk = host_headline(r), *host = jstr(docs[d], "host") ?: "?";
		double y = fr.mt + 5 + (double)d * 26, x;

		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fr.x.p0 - 6, y + 13);
		svg_esc_trunc(f, host, 11);
		fputs("</text>", f);
		if (!hk || strcmp(hk, key)) {
			fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">", fr.x.p0 + 4, y + 13);
			svg_esc(f, !r ? "no such step" : hk ? "another headline" : jstr(r, "status") ?: "?");
			fputs("</text>\n", f);
			continue;
		}
		x = svg_px(&fr.x, jnum(json_object_get(r, "metrics"), key));
		svg_fmt_short(v, sizeof(v), jnum(json_object_get(r, "metrics"), key), u);
		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"18\"><title>", fr.x.p0, y,
			x - fr.x.p0 > 1 ? x - fr.x.p0 : 1);
		svg_esc(f, host);
		fprintf(f, ": %s</title></rect><text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", v, x + 4, y + 13, v);
	}
	svg_end(f);
	fig_end(f);
}

int render_html_hosts(FILE *f, json_t **docs, const char *const *sources, size_t n)
{
	size_t nsteps;
	struct host_step *steps = host_steps(docs, n, &nsteps);
	char v[64];

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<meta name=\"generator\" content=\"engpass\">\n<title>engpass report: %zu hosts</title>\n"
		   "<style>\n%s</style>\n</head>\n<body>\n<h1>engpass report: %zu hosts side by side</h1>\n",
		n, css, n);
	fputs("<h2 id=\"runs\">Runs</h2>\n<table>\n<tr><th>host</th><th>time</th><th>command</th><th>engpass</th>"
	      "<th>from</th></tr>\n", f);
	for (size_t d = 0; d < n; d++) {
		fputs("<tr><td>", f);
		svg_esc(f, jstr(docs[d], "host") ?: "?");
		fputs("</td><td>", f);
		svg_esc(f, jstr(docs[d], "time") ?: "?");
		fputs("</td><td><code>", f);
		svg_esc(f, jstr(docs[d], "command") ?: "?");
		fputs("</code></td><td>", f);
		svg_esc(f, jstr(json_object_get(docs[d], "tool"), "version") ?: "?");
		fputs("</td><td>", f);
		svg_esc(f, sources[d]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<h2 id=\"summary\">Headline figures and verdicts</h2>\n<table class=\"summary\">\n<tr>"
	      "<th>step</th>", f);
	for (size_t d = 0; d < n; d++) {
		fputs("<th>", f);
		svg_esc(f, jstr(docs[d], "host") ?: "?");
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t si = 0; si < nsteps; si++) {
		fprintf(f, "<tr><td><a href=\"#hosts-%zu\">", si);
		host_step_name(f, &steps[si]);
		fputs("</a>", f);
		/* The headline's label once, under the step: the first host's that has one. */
		for (size_t d = 0; d < n; d++) {
			json_t *r = host_result(docs[d], &steps[si]);
			const char *hk = host_headline(r);

			if (hk) {
				fputs("<br><span class=\"key\">", f);
				svg_esc(f, metric_label(r, hk));
				fputs("</span>", f);
				break;
			}
		}
		fputs("</td>", f);
		for (size_t d = 0; d < n; d++) {
			json_t *r = host_result(docs[d], &steps[si]);
			const char *hk = host_headline(r), *res = jstr(json_object_get(r, "verdict"), "resource");

			fputs("<td>", f);
			if (!r) {
				fputs("&mdash;", f);
			} else if (!hk) {
				badge(f, r);
			} else {
				metric_value(v, sizeof(v), r, hk);
				fprintf(f, "<b>%s</b>", v);
			}
			if (res) {
				fputs("<br><span class=\"key\">", f);
				svg_esc(f, res);
				fputs("</span>", f);
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h2 id=\"charts\">Across hosts</h2>\n", f);
	for (size_t si = 0; si < nsteps; si++)
		host_chart(f, docs, n, &steps[si], si);
	fputs("<p class=\"meta\">Made by engpass from the hosts' JSON documents (schema engpass/1); every figure is a "
	      "document's. 'engpass report RUN --html FILE' draws one host's run in full; 'engpass fleet' marks the "
	      "hosts beyond the fleet's spread.</p>\n</body>\n</html>\n", f);
	free(steps);
	return ferror(f) ? -EIO : 0;
}

#else

/* Built without jansson: the report command says so; nothing to compile here. */
typedef int html_unused;

#endif
