/* SPDX-License-Identifier: MIT */
/*
 * SVG drawing for the HTML report (out/html.c): escaping, short number
 * labels in a unit, linear and log scales with round ticks, a chart frame
 * with axes and a legend, lines, a line chart of curves along a real
 * axis, a bar chart of categories and the heat colour scale. Every chart
 * says its axes' scales (data-x-scale, data-y-scale: "linear" or "log"). It draws plain numbers and strings and knows nothing of
 * the JSON document; the report decides which chart shows what.
 *
 * Every function writes to a FILE the caller owns and keeps open; write
 * errors are left in the stream (ferror()) for the caller to check. Every
 * string drawn as text goes through svg_esc(), so callers may pass
 * outside input.
 */
#ifndef ENGPASS_SVG_H
#define ENGPASS_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/result/result.h"

/* Chart geometry shared by the charts that line up under each other. */
#define SVG_W 960		/* viewBox width of every chart */
#define SVG_ML 78		/* left margin: y tick labels */
#define SVG_MR 18
#define SVG_MAXTICKS 24		/* ticks on one axis, at most */
#define SVG_MAX_LINES 8		/* lines in one chart before the rest are only in the tables */

/* ---- strings ---- */

/*
 * Writes S (NULL: nothing) escaped for HTML and SVG text and attribute
 * values (both quote kinds). Control characters other than tab and
 * newline become U+FFFD.
 */
void svg_esc(FILE *f, const char *s);

/* svg_esc() of at most MAXCHARS characters of S (UTF-8 aware), then an ellipsis. */
void svg_esc_trunc(FILE *f, const char *s, size_t maxchars);

/* Copies S into DST (LEN bytes, NUL-terminated) keeping [A-Za-z0-9_-], other bytes as '_': a safe id part. */
void svg_idpart(char *dst, size_t len, const char *s);

/* ---- numbers ---- */

/* X with about three significant digits into BUF, never an exponent for ordinary figures, no trailing zeros. */
void svg_num3(char *buf, size_t len, double x);

/* A short form of V in unit U into BUF for tick labels and chart text ("1.5 MiB/s", "12 us"; "n/a" if not finite). */
void svg_fmt_short(char *buf, size_t len, double v, enum unit u);

/* ---- scales and ticks ---- */

/* A map from the domain [LO, HI] (log10 when LOG) to the pixels [P0, P1]. */
struct svg_scale {
	double lo, hi;		/* domain */
	double p0, p1;		/* pixels */
	bool log;
};

/* The pixel of V on S (on a log scale, V <= 0 maps to LO; an empty domain to the middle). */
double svg_px(const struct svg_scale *s, double v);

/*
 * Linear ticks from LO to *HI into T (at most SVG_MAXTICKS), round in unit
 * U (binary steps for bytes); with EXTEND, *HI is first raised to the next
 * round tick so the top of the axis is one. Returns the number of ticks.
 */
size_t svg_lin_ticks(double lo, double *hi, enum unit u, bool extend, double *t);

/*
 * Log ticks within [LO, HI] (both > 0) into T (at most SVG_MAXTICKS):
 * powers of two for bytes, else 1-2-5 or decades. Returns the number of
 * ticks, 0 for a domain that is not one.
 */
size_t svg_log_ticks(double lo, double hi, enum unit u, double *t);

/* ---- the chart frame ---- */

/* A chart's frame: the viewBox size, its top and bottom margins, and the plot area's scales inside them. */
struct svg_frame {
	int w, h, mt, mb;
	struct svg_scale x, y;
};

/* A frame SVG_W wide and H high with margins MT (top) and MB (bottom); the scales' domains are left at 0. */
void svg_frame_init(struct svg_frame *fr, int h, int mt, int mb);

/* Opens an <svg> of class "chart CLS" with id ID (both written as given) and draws FR's plot area. */
void svg_begin(FILE *f, const char *cls, const char *id, const struct svg_frame *fr);

/* Closes the <svg> of svg_begin(). */
void svg_end(FILE *f);

/* Vertical grid lines and labels for ticks T[0..N) in unit U on the x axis, and the axis TITLE (NULL: none). */
void svg_axis_x(FILE *f, const struct svg_frame *fr, const double *t, size_t n, enum unit u, const char *title);

/* Horizontal grid lines and labels for ticks T[0..N) in unit U on the y axis, and the axis TITLE (NULL: none). */
void svg_axis_y(FILE *f, const struct svg_frame *fr, const double *t, size_t n, enum unit u, const char *title);

/* ---- legend, lines and colours ---- */

/* The colour of line I of a chart (I < SVG_MAX_LINES); the string is static. */
const char *svg_color(size_t i);

/* Rows a legend of the first SVG_MAX_LINES of LABELS[0..N) needs across the plot (entries wrap). */
int svg_legend_rows(const char *const *labels, size_t n);

/* The top margin of a chart with a legend of ROWS rows. */
int svg_legend_mt(int rows);

/* A legend above FR's plot: a colour swatch and a label per line (the first SVG_MAX_LINES), wrapping. */
void svg_legend(FILE *f, const struct svg_frame *fr, const char *const *labels, size_t n);

/*
 * A line in COLOR through the points (X[i], V[i]), i < N, with LABEL as
 * its tooltip; a point with a non-finite coordinate breaks the line. Over
 * 2000 points, it draws per group of points the smallest and the largest.
 */
void svg_polyline(FILE *f, const struct svg_frame *fr, const double *x, const double *v, size_t n, const char *color,
		  const char *label);

/* The fill colour for a busy share P in % into BUF (8 bytes): pale yellow (idle) through orange to dark red (busy). */
void svg_heat_color(double p, char *buf, size_t len);

/* ---- a line chart of curves ---- */

struct svg_point {
	double x, y;
	const char *tip;	/* the step or metric the point is, for its tooltip */
};

struct svg_curve {
	const char *label;
	struct svg_point *p;
	size_t n;
};

/* Whether [LO, HI] is positive and spans at least DECADES powers of ten: such figures get a log axis. */
bool svg_spans_decades(double lo, double hi, double decades);

/*
 * A chart of class "chart CLS" and id ID, with the first SVG_MAX_LINES of
 * the NC curves C against a shared numeric x, a real axis (size, depth,
 * threads): log scale when XLOG, in XUNIT, axis title XTITLE. Y in unit U
 * from 0, or on a log scale when every value is positive and they span a
 * decade or more. Lines are only for a real x axis: categories are bars
 * (svg_bars()). Only reads C.
 */
void svg_curves(FILE *f, const char *cls, const char *id, const struct svg_curve *c, size_t nc, enum unit u,
		bool xlog, enum unit xunit, const char *xtitle);

/* ---- a bar chart of categories ---- */

struct svg_bar {
	const char *group;	/* the category: a step */
	const char *label;	/* what the bar is: a metric's label */
	double v;
};

/*
 * Horizontal bars of class "chart CLS" and id ID, one per B[i] in order;
 * consecutive bars of one group share a heading, a group of one bar is
 * labelled by its group with the bar's label after its value (unless every
 * bar has the same label: the caller's caption says it). Every bar is
 * named by its own label (no shared legend). X in unit U from 0, or on a
 * log scale (data-x-scale="log") when every value is positive and they
 * span two decades or more.
 */
void svg_bars(FILE *f, const char *cls, const char *id, const struct svg_bar *b, size_t n, enum unit u);

#endif
