/* SPDX-License-Identifier: MIT */
/*
 * SVG drawing for the HTML report (svg.h has the interface): what a chart
 * is made of, apart from what it shows. Geometry only: pixel positions,
 * round ticks, colours; the figures drawn are the caller's, formatted.
 * Where a line has more points than pixels it draws, per group of points,
 * the smallest and the largest, so peaks survive.
 */
#include "out/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* ---- strings ------------------------------------------------------------ */

/*
 * Writes S escaped for HTML text and attribute values (both quote kinds).
 * Control characters other than tab and newline become U+FFFD.
 */
void svg_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				fputs("&#xfffd;", f);
			else
				fputc(c, f);
		}
	}
}

/* svg_esc() of at most MAXCHARS characters of S (UTF-8 aware), then an ellipsis. */
void svg_esc_trunc(FILE *f, const char *s, size_t maxchars)
{
	size_t chars = 0, i;
	char *cut;

	if (!s)
		return;
	for (i = 0; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++chars > maxchars)
			break;
	if (!s[i]) {
		svg_esc(f, s);
		return;
	}
	cut = xstrdup(s);
	cut[i] = 0;
	svg_esc(f, cut);
	fputs("&#8230;", f);
	free(cut);
}

/* Copies S into DST keeping [A-Za-z0-9_-], other bytes as '_': a safe id part. */
void svg_idpart(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; s && *s && i + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		dst[i++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
					   c == '_'
				   ? (char)c
				   : '_';
	}
	dst[i] = 0;
}

/* ---- numbers ------------------------------------------------------------ */

/* About three significant digits, never an exponent for ordinary figures, no trailing zeros. */
void svg_num3(char *buf, size_t len, double x)
{
	double a = fabs(x);
	char *e;

	if (a >= 100 || a == 0)
		snprintf(buf, len, "%.0f", x);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", x);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", x);
	else
		snprintf(buf, len, "%.3g", x);
	if (strchr(buf, '.') && !strchr(buf, 'e')) {
		e = buf + strlen(buf) - 1;
		while (*e == '0')
			*e-- = 0;
		if (*e == '.')
			*e = 0;
	}
}

/* A short form of V in UNIT for tick labels and chart text ("1.5 MiB/s", "12 us"). */
void svg_fmt_short(char *buf, size_t len, double v, enum unit u)
{
	static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	static const char *const si[] = { "", "k", "M", "G", "T", "P" };
	char n[40];
	int i = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	switch (u) {
	case UNIT_BYTES:
	case UNIT_BYTES_PER_S:
		while (fabs(v) >= 1024 && i < 5) {
			v /= 1024;
			i++;
		}
		svg_num3(n, sizeof(n), v);
		snprintf(buf, len, "%s %sB%s", n, bin[i], u == UNIT_BYTES_PER_S ? "/s" : "");
		return;
	case UNIT_NS:
		if (fabs(v) >= 1e9) {
			svg_num3(n, sizeof(n), v / 1e9);
			snprintf(buf, len, "%s s", n);
		} else if (fabs(v) >= 1e6) {
			svg_num3(n, sizeof(n), v / 1e6);
			snprintf(buf, len, "%s ms", n);
		} else if (fabs(v) >= 1e3) {
			svg_num3(n, sizeof(n), v / 1e3);
			snprintf(buf, len, "%s us", n);
		} else {
			svg_num3(n, sizeof(n), v);
			snprintf(buf, len, "%s ns", n);
		}
		return;
	case UNIT_SECONDS:
		svg_num3(n, sizeof(n), v);
		snprintf(buf, len, "%s s", n);
		return;
	case UNIT_PERCENT:
		svg_num3(n, sizeof(n), v);
		snprintf(buf, len, "%s %%", n);
		return;
	case UNIT_MHZ:
		svg_num3(n, sizeof(n), v);
		snprintf(buf, len, "%s MHz", n);
		return;
	case UNIT_RATIO:
		svg_num3(n, sizeof(n), v);
		snprintf(buf, len, "%sx", n);
		return;
	case UNIT_BITS_PER_S:
	case UNIT_PER_S:
	case UNIT_COUNT:
		while (fabs(v) >= 1000 && i < 5) {
			v /= 1000;
			i++;
		}
		svg_num3(n, sizeof(n), v);
		if (u == UNIT_BITS_PER_S)
			snprintf(buf, len, "%s %sbit/s", n, si[i]);
		else if (u == UNIT_PER_S)
			snprintf(buf, len, "%s %s/s", n, si[i]);
		else
			snprintf(buf, len, "%s%s", n, si[i]);
		return;
	}
	snprintf(buf, len, "%g", v);
}

/* ---- scales and axes ---------------------------------------------------- */

double svg_px(const struct svg_scale *s, double v)
{
	double lo = s->lo, hi = s->hi;

	if (s->log) {
		v = log10(v > 0 ? v : lo);
		lo = log10(lo);
		hi = log10(hi);
	}
	if (!(hi > lo))
		return (s->p0 + s->p1) / 2;
	return s->p0 + (v - lo) / (hi - lo) * (s->p1 - s->p0);
}

/* A round step (1, 2 or 5 times a power of ten) that splits RANGE into about TARGET parts. */
static double nice_step(double range, int target)
{
	double raw = range / target, mag, norm;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
}

/* Ticks of UNIT look round in this divisor: powers of 1024 for bytes. */
static double tick_div(enum unit u, double maxabs)
{
	double d = 1;

	if (u == UNIT_BYTES || u == UNIT_BYTES_PER_S)
		while (maxabs / d >= 1024 && d < 0x1p50)
			d *= 1024;
	return d;
}

/*
 * Linear ticks from LO to *HI into T (at most SVG_MAXTICKS); with EXTEND, *HI
 * is first raised to the next round tick so the top of the axis is one.
 */
size_t svg_lin_ticks(double lo, double *hi, enum unit u, bool extend, double *t)
{
	double d = tick_div(u, (*hi - lo) / 5), step = nice_step((*hi - lo) / d, 5) * d, v;
	size_t n = 0;

	if (extend)
		*hi = ceil(*hi / step - 1e-9) * step;
	for (v = ceil(lo / step - 1e-9) * step; v <= *hi + step * 1e-6 && n < SVG_MAXTICKS; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* Log ticks within [LO, HI] (both > 0): powers of two for bytes, else 1-2-5 or decades. */
size_t svg_log_ticks(double lo, double hi, enum unit u, double *t)
{
	size_t n = 0;

	if (!(lo > 0) || !(hi >= lo) || !isfinite(hi))
		return 0;
	if (u == UNIT_BYTES || u == UNIT_BYTES_PER_S) {
		int a = (int)ceil(log2(lo) - 1e-9), b = (int)floor(log2(hi) + 1e-9), k = 1, e;

		while ((b - a) / k > 8)
			k = k == 1 ? 2 : k == 2 ? 5 : k * 2;
		for (e = a; ((e % k) + k) % k; e++)
			;
		for (; e <= b && n < SVG_MAXTICKS; e += k)
			t[n++] = ldexp(1, e);
	} else {
		static const double m[] = { 1, 2, 5 };
		int a = (int)floor(log10(lo)), b = (int)floor(log10(hi) + 1e-9);
		size_t nm = b - a < 2 ? 3 : 1;

		for (int e = a; e <= b && n < SVG_MAXTICKS; e++)
			for (size_t j = 0; j < nm && n < SVG_MAXTICKS; j++) {
				double v = m[j] * pow(10, e);

				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
					t[n++] = v;
			}
	}
	return n;
}

void svg_frame_init(struct svg_frame *fr, int h, int mt, int mb)
{
	memset(fr, 0, sizeof(*fr));
	fr->w = SVG_W;
	fr->h = h;
	fr->mt = mt;
	fr->mb = mb;
	fr->x.p0 = SVG_ML;
	fr->x.p1 = SVG_W - SVG_MR;
	fr->y.p0 = h - mb;
	fr->y.p1 = mt;
}

void svg_begin(FILE *f, const char *cls, const char *id, const struct svg_frame *fr)
{
	fprintf(f, "<svg class=\"chart %s\" id=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "data-x-scale=\"%s\" data-y-scale=\"%s\" role=\"img\">\n", cls, id, fr->w, fr->h, fr->w, fr->h,
		fr->x.log ? "log" : "linear", fr->y.log ? "log" : "linear");
	fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", fr->x.p0, fr->y.p1,
		fr->x.p1 - fr->x.p0, fr->y.p0 - fr->y.p1);
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

/*
 * The label of tick I of T[0..N): linear byte axes share one binary prefix
 * (the one of the step, so "200 MiB/s" to "1200 MiB/s" stay round); other
 * axes scale each label on its own.
 */
static void fmt_tick(char *buf, size_t len, const double *t, size_t n, size_t i, enum unit u, bool log)
{
	static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	char num[40];
	double d;
	int k;

	if (log || n < 2 || (u != UNIT_BYTES && u != UNIT_BYTES_PER_S)) {
		svg_fmt_short(buf, len, t[i], u);
		return;
	}
	d = tick_div(u, t[1] - t[0]);
	k = (int)lround(log2(d) / 10);
	svg_num3(num, sizeof(num), t[i] / d);
	snprintf(buf, len, "%s %sB%s", num, bin[k < 5 ? k : 5], u == UNIT_BYTES_PER_S ? "/s" : "");
}

/* Vertical grid lines and labels for ticks T[0..N) on the x axis, and the axis title. */
void svg_axis_x(FILE *f, const struct svg_frame *fr, const double *t, size_t n, enum unit u, const char *title)
{
	char b[48];

	for (size_t i = 0; i < n; i++) {
		double x = svg_px(&fr->x, t[i]);

		fmt_tick(b, sizeof(b), t, n, i, u, fr->x.log);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, fr->y.p1, x, fr->y.p0, x, fr->y.p0 + 14, b);
	}
	if (title) {
		fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
			(fr->x.p0 + fr->x.p1) / 2, fr->h - 6);
		svg_esc(f, title);
		fputs("</text>\n", f);
	}
}

/* Horizontal grid lines and labels for ticks T[0..N) on the y axis, and the axis title. */
void svg_axis_y(FILE *f, const struct svg_frame *fr, const double *t, size_t n, enum unit u, const char *title)
{
	char b[48];

	for (size_t i = 0; i < n; i++) {
		double y = svg_px(&fr->y, t[i]);

		fmt_tick(b, sizeof(b), t, n, i, u, fr->y.log);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			fr->x.p0, y, fr->x.p1, y, fr->x.p0 - 6, y + 4, b);
	}
	if (title) {
		fprintf(f, "<text class=\"axis-title\" transform=\"translate(14 %.1f) rotate(-90)\" "
			   "text-anchor=\"middle\">", (fr->y.p0 + fr->y.p1) / 2);
		svg_esc(f, title);
		fputs("</text>\n", f);
	}
}

/* ---- legend, lines and colours ------------------------------------------ */

static const char *const palette[SVG_MAX_LINES] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

const char *svg_color(size_t i)
{
	return palette[i % SVG_MAX_LINES];
}

/* The width a legend entry takes: swatch, label (at most 41 characters), gap. */
static double legend_w(const char *label)
{
	size_t len = strlen(label);

	return 16 + 6.6 * (double)(len < 41 ? len : 41) + 18;
}

/* Rows a legend of N labels needs across the plot (entries wrap at its right edge). */
int svg_legend_rows(const char *const *labels, size_t n)
{
	double x = SVG_ML;
	int rows = 1;

	for (size_t i = 0; i < n && i < SVG_MAX_LINES; i++) {
		if (x > SVG_ML && x + legend_w(labels[i]) > SVG_W - SVG_MR) {
			rows++;
			x = SVG_ML;
		}
		x += legend_w(labels[i]);
	}
	return rows;
}

/* The top margin of a chart with a legend of ROWS rows. */
int svg_legend_mt(int rows)
{
	return 17 + 13 * rows;
}

/* A legend above the plot: a colour swatch and a label per line, wrapping. */
void svg_legend(FILE *f, const struct svg_frame *fr, const char *const *labels, size_t n)
{
	int rows = svg_legend_rows(labels, n), row = 0;
	double x = fr->x.p0;

	for (size_t i = 0; i < n && i < SVG_MAX_LINES; i++) {
		int y;

		if (x > fr->x.p0 && x + legend_w(labels[i]) > fr->x.p1) {
			row++;
			x = fr->x.p0;
		}
		y = fr->mt - 8 - 13 * (rows - 1 - row);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"4\" fill=\"%s\"/>"
			   "<text class=\"legend\" x=\"%.1f\" y=\"%d\">", x, y - 4, palette[i], x + 16, y);
		svg_esc_trunc(f, labels[i], 40);
		fputs("</text>\n", f);
		x += legend_w(labels[i]);
	}
}

/* Ends an open polyline of SEG points (a lone point also gets a dot, as a line of one shows nothing). */
static void polyline_close(FILE *f, size_t seg, double x, double y, const char *color, const char *label)
{
	if (!seg)
		return;
	fputs("\"><title>", f);
	svg_esc(f, label);
	fputs("</title></polyline>\n", f);
	if (seg == 1)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n", x, y, color);
}

void svg_polyline(FILE *f, const struct svg_frame *fr, const double *x, const double *v, size_t n, const char *color,
		  const char *label)
{
	size_t step = n > 2000 ? (n + 999) / 1000 : 1, seg = 0;
	double lx = 0, ly = 0;

	for (size_t i = 0; i < n; i += step) {
		size_t end = i + step < n ? i + step : n, lo = SIZE_MAX, hi = SIZE_MAX, first, second;

		for (size_t j = i; j < end; j++)
			if (isfinite(v[j]) && isfinite(x[j])) {
				if (lo == SIZE_MAX || v[j] < v[lo])
					lo = j;
				if (hi == SIZE_MAX || v[j] > v[hi])
					hi = j;
			}
		if (lo == SIZE_MAX) {
			polyline_close(f, seg, lx, ly, color, label);
			seg = 0;
			continue;
		}
		if (!seg)
			fprintf(f, "<polyline class=\"line\" stroke=\"%s\" points=\"", color);
		first = lo < hi ? lo : hi;
		second = lo < hi ? hi : lo;
		for (size_t j = first;; j = second) {
			lx = svg_px(&fr->x, x[j]);
			ly = svg_px(&fr->y, v[j]);
			fprintf(f, "%s%.1f,%.1f", seg ? " " : "", lx, ly);
			seg++;
			if (j == second)
				break;
		}
	}
	polyline_close(f, seg, lx, ly, color, label);
}

/* Fill colour for a busy share P in %: pale yellow (idle) through orange to dark red (busy). */
void svg_heat_color(double p, char *buf, size_t len)
{
	static const unsigned char stops[5][3] = {
		{ 255, 255, 204 }, { 254, 217, 118 }, { 253, 141, 60 }, { 227, 26, 28 }, { 128, 0, 38 },
	};
	double x, fr;
	int i;

	p = p < 0 ? 0 : p > 100 ? 100 : p;
	x = p / 25;
	i = x >= 4 ? 3 : (int)x;
	fr = x - i;
	snprintf(buf, len, "#%02x%02x%02x", (int)lround(stops[i][0] + (stops[i + 1][0] - stops[i][0]) * fr),
		 (int)lround(stops[i][1] + (stops[i + 1][1] - stops[i][1]) * fr),
		 (int)lround(stops[i][2] + (stops[i + 1][2] - stops[i][2]) * fr));
}

/* ---- a line chart of curves ---------------------------------------------- */

/* Whether the positive values V span at least DECADES powers of ten (and none is <= 0): a log axis shows them. */
bool svg_spans_decades(double lo, double hi, double decades)
{
	return lo > 0 && isfinite(hi) && hi / lo >= pow(10, decades);
}

/* The domain [LO, HI] of S: on a log scale widened by the factor PAD at both ends; a linear one never empty. */
static void set_domain(struct svg_scale *s, bool log, double lo, double hi, double pad)
{
	s->log = log;
	s->lo = log ? lo / pad : lo;
	s->hi = log ? hi * pad : hi > lo ? hi : lo + 1;
}

/*
 * A line chart of NC curves against a shared numeric x (log scale when
 * XLOG), in XUNIT with the axis title XTITLE. Y in unit U: from 0, or on a
 * log scale when every value is positive and they span two decades.
 */
void svg_curves(FILE *f, const char *cls, const char *id, const struct svg_curve *c, size_t nc, enum unit u,
		bool xlog, enum unit xunit, const char *xtitle)
{
	struct svg_frame fr;
	double ymax = 0, ymin = INFINITY, xlo = INFINITY, xhi = -INFINITY, t[SVG_MAXTICKS], ylo = 0;
	const char *labels[SVG_MAX_LINES] = { 0 };
	size_t nt;
	char s[48];
	int rows;

	for (size_t k = 0; k < nc; k++)
		for (size_t i = 0; i < c[k].n; i++) {
			if (isfinite(c[k].p[i].y)) {
				ymax = fmax(ymax, c[k].p[i].y);
				ymin = fmin(ymin, c[k].p[i].y);
				ylo = fmin(ylo, c[k].p[i].y);
			}
			xlo = fmin(xlo, c[k].p[i].x);
			xhi = fmax(xhi, c[k].p[i].x);
		}
	for (size_t k = 0; k < nc && k < SVG_MAX_LINES; k++)
		labels[k] = c[k].label;
	rows = svg_legend_rows(labels, nc < SVG_MAX_LINES ? nc : SVG_MAX_LINES);
	svg_frame_init(&fr, 240 + svg_legend_mt(rows), svg_legend_mt(rows), 40);
	set_domain(&fr.x, xlog, xlo, xhi, 1.15);
	if (svg_spans_decades(ymin, ymax, 1))
		set_domain(&fr.y, true, ymin, ymax, 1.3);
	else
		set_domain(&fr.y, false, ylo, ymax, 1);
	svg_begin(f, cls, id, &fr);
	if (fr.y.log)
		nt = svg_log_ticks(fr.y.lo, fr.y.hi, u, t);
	else
		nt = svg_lin_ticks(fr.y.lo, &fr.y.hi, u, true, t);
	svg_axis_y(f, &fr, t, nt, u, fr.y.log ? "log scale" : NULL);
	nt = 0;
	for (size_t k = 0; k < nc && k < SVG_MAX_LINES && nt <= 8; k++)
		for (size_t i = 0; i < c[k].n && nt <= 8; i++) {
			size_t j;

			for (j = 0; j < nt && t[j] != c[k].p[i].x; j++)
				;
			if (j == nt)
				t[nt++] = c[k].p[i].x;
		}
	if (nt <= 8) {
		/* Few points: the ticks are the points' own x, so each is labelled. */
	} else if (xlog) {
		nt = svg_log_ticks(fr.x.lo, fr.x.hi, xunit, t);
	} else {
		double hi = fr.x.hi;

		nt = svg_lin_ticks(fr.x.lo, &hi, xunit, false, t);
	}
	svg_axis_x(f, &fr, t, nt, xunit, xtitle);
	for (size_t k = 0; k < nc && k < SVG_MAX_LINES; k++) {
		double *x = xcalloc(c[k].n + 1, sizeof(double)), *y = xcalloc(c[k].n + 1, sizeof(double));

		for (size_t i = 0; i < c[k].n; i++) {
			x[i] = c[k].p[i].x;
			y[i] = c[k].p[i].y;
		}
		svg_polyline(f, &fr, x, y, c[k].n, palette[k], c[k].label);
		for (size_t i = 0; i < c[k].n; i++) {
			if (!isfinite(y[i]))
				continue;
			svg_fmt_short(s, sizeof(s), y[i], u);
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", svg_px(&fr.x, x[i]),
				svg_px(&fr.y, y[i]), palette[k]);
			svg_esc(f, c[k].p[i].tip);
			fputs(": ", f);
			svg_esc(f, c[k].label);
			fprintf(f, " = %s</title></circle>\n", s);
		}
		free(x);
		free(y);
	}
	svg_legend(f, &fr, labels, nc < SVG_MAX_LINES ? nc : SVG_MAX_LINES);
	svg_end(f);
}

/* ---- a bar chart of categories ------------------------------------------ */

#define BAR_ROW 20		/* pixels per bar */
#define BAR_HEAD 18		/* pixels of a group's heading row */
#define BAR_LABEL_W 300		/* the label column left of the bars, at most */
#define BAR_WHAT 44		/* characters of a bar's own label after its value */

/* Whether bar I starts a group of more than one bar (it gets a heading row). */
static bool bar_heading(const struct svg_bar *b, size_t n, size_t i)
{
	bool starts = i == 0 || strcmp(b[i].group, b[i - 1].group);

	return starts && i + 1 < n && !strcmp(b[i].group, b[i + 1].group);
}

/*
 * Horizontal bars, one per B[i], grouped by B[i].group (consecutive bars
 * of one group share a heading; a group of one bar is labelled by the
 * group). Each bar carries its own label and value as text, so no legend
 * is needed; the colour follows the label. X from 0 in unit U, or a log
 * scale when every value is positive and they span two decades. A bar
 * with a non-finite value shows "n/a" and no bar.
 */
void svg_bars(FILE *f, const char *cls, const char *id, const struct svg_bar *b, size_t n, enum unit u)
{
	struct svg_frame fr;
	const char *seen[SVG_MAX_LINES];
	double lo = INFINITY, hi = 0, y, t[SVG_MAXTICKS];
	size_t nseen = 0, nt;
	int h = 0;
	char v[48];
	bool same = n > 0;
	double right = 0, left = SVG_ML;

	for (size_t i = 0; i < n; i++) {
		h += BAR_ROW + (bar_heading(b, n, i) ? BAR_HEAD : 0);
		if (isfinite(b[i].v)) {
			lo = fmin(lo, b[i].v);
			hi = fmax(hi, b[i].v);
		}
	}
	/* One label for every bar: the caller's caption says it, the bars only their values. */
	for (size_t i = 1; i < n && same; i++)
		same = !strcmp(b[i].label, b[0].label);
	/* Room left of the bars for the longest row label, right of them for the longest value and label. */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(b[i].label), glen = strlen(b[i].group);

		right = fmax(right, 10 + 6.4 * (same ? 11 : 12 + (double)(len < BAR_WHAT ? len : BAR_WHAT)));
		left = fmax(left, 14 + 6.6 * (double)(glen < 42 ? glen : 42));
	}
	svg_frame_init(&fr, 12 + h + 40, 12, 40);
	fr.x.p0 = fmin(left, BAR_LABEL_W);
	fr.x.p1 = SVG_W - right;
	if (svg_spans_decades(lo, hi, 2)) {
		fr.x.log = true;
		fr.x.lo = lo / 2;
		fr.x.hi = hi;
	} else {
		fr.x.lo = 0;
		fr.x.hi = hi > 0 ? hi : 1;
	}
	svg_begin(f, cls, id, &fr);
	if (fr.x.log) {
		nt = svg_log_ticks(fr.x.lo, fr.x.hi, u, t);
	} else {
		nt = svg_lin_ticks(0, &fr.x.hi, u, true, t);
	}
	svg_axis_x(f, &fr, t, nt, u, fr.x.log ? "log scale" : NULL);
	y = fr.mt;
	for (size_t i = 0; i < n; i++) {
		bool head = bar_heading(b, n, i), grouped = head || (i > 0 && !strcmp(b[i].group, b[i - 1].group));
		size_t ci;
		double x;

		if (head) {
			fprintf(f, "<text class=\"group\" x=\"6\" y=\"%.1f\">", y + 13);
			svg_esc_trunc(f, b[i].group, 60);
			fputs("</text>\n", f);
			y += BAR_HEAD;
		}
		for (ci = 0; ci < nseen && strcmp(seen[ci], b[i].label); ci++)
			;
		if (ci == nseen && nseen < SVG_MAX_LINES)
			seen[nseen++] = b[i].label;
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fr.x.p0 - 6, y + 14);
		svg_esc_trunc(f, grouped ? b[i].label : b[i].group, 42);
		fputs("</text>", f);
		svg_fmt_short(v, sizeof(v), b[i].v, u);
		if (!isfinite(b[i].v)) {
			fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">n/a</text>\n", fr.x.p0 + 4, y + 14);
			y += BAR_ROW;
			continue;
		}
		x = svg_px(&fr.x, b[i].v);
		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"%s\"><title>",
			fr.x.p0, y + 3, x - fr.x.p0 > 1 ? x - fr.x.p0 : 1, palette[ci % SVG_MAX_LINES]);
		svg_esc(f, b[i].group);
		fputs(": ", f);
		svg_esc(f, b[i].label);
		fprintf(f, " = %s</title></rect><text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s", v, x + 4, y + 14, v);
		if (!grouped && !same) {
			fputs(" <tspan class=\"what\">", f);
			svg_esc_trunc(f, b[i].label, BAR_WHAT);
			fputs("</tspan>", f);
		}
		fputs("</text>\n", f);
		y += BAR_ROW;
	}
	svg_end(f);
}
