/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of the history commands (histfmt.h).
 */
#include "cli/histfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"
#include "lib/xalloc.h"
#include "out/render.h"

void hist_fmt_time(char *buf, size_t len, int64_t t_ns, bool seconds)
{
	time_t t = (time_t)(t_ns / 1000000000);
	struct tm tm;

	snprintf(buf, len, "?");
	if (gmtime_r(&t, &tm))
		units_fmt_tm(buf, len, seconds ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d %H:%M", &tm);
}

/* True for the first byte of a UTF-8 character (not a continuation byte). */
static bool char_start(unsigned char c)
{
	return (c & 0xc0) != 0x80;
}

size_t hist_cols(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += char_start((unsigned char)*s);
	return n;
}

char *hist_fit(char *buf, size_t len, const char *s, size_t width, bool pad)
{
	static const char ell[] = "\xe2\x80\xa6";	/* "…", one column */
	size_t cols = 0, o = 0, i = 0, keep;

	if (!len)
		return buf;
	if (!s)
		s = "";
	for (size_t k = 0; s[k]; k++)
		cols += char_start((unsigned char)s[k]);
	keep = cols <= width ? cols : (width ? width - 1 : 0);
	cols = 0;
	/* Whole characters only: KEEP columns of S, while the buffer has room. */
	while (s[i] && cols < keep) {
		size_t n = 1;

		while (s[i + n] && !char_start((unsigned char)s[i + n]))
			n++;
		if (o + n >= len)
			break;
		for (size_t k = 0; k < n; k++) {
			char c = s[i + k];

			buf[o++] = c == '\n' || c == '\t' || c == '\r' ? ' ' : c;
		}
		i += n;
		cols++;
	}
	if (s[i] && width && o + sizeof(ell) <= len) {
		memcpy(buf + o, ell, sizeof(ell) - 1);
		o += sizeof(ell) - 1;
		cols++;
	}
	while (pad && cols < width && o + 1 < len) {
		buf[o++] = ' ';
		cols++;
	}
	buf[o] = 0;
	return buf;
}

/* Words in a metric's name that mark a cost: less of it is better. */
static const char *const lower_words[] = {
	"lat", "err", "drop", "retrans", "loss", "lost", "fail", "reconnect", "stall", "miss", "timeout",
	"ended_early", "per_io", "per_op", "per_packet", "per_byte", "cpu_usr", "cpu_sys", "throttl", "wait",
	"ttfb", "jitter", "resident", "rss", "busy", "held_back", "not_ready", NULL,
};

enum better metric_better(const char *name, enum unit unit)
{
	if (unit == UNIT_NS || unit == UNIT_SECONDS)
		return BETTER_LOWER;
	for (size_t i = 0; name && lower_words[i]; i++)
		if (strstr(name, lower_words[i]))
			return BETTER_LOWER;
	if (unit == UNIT_BYTES_PER_S || unit == UNIT_BITS_PER_S || unit == UNIT_PER_S)
		return BETTER_HIGHER;
	return BETTER_UNKNOWN;
}

const char *better_name(enum better b)
{
	return b == BETTER_HIGHER ? "higher" : b == BETTER_LOWER ? "lower" : "-";
}

/* True when V in UNIT shows as zero in the table: no digit 1-9 in its rendering. */
static bool shows_zero(double v, enum unit unit)
{
	char buf[64];

	render_value(buf, sizeof(buf), v, unit);
	return !strpbrk(buf, "123456789");
}

bool compare_as_difference(double a, double b, enum unit unit)
{
	if (isnan(a) || isnan(b) || a == b)
		return false;
	if (a <= 0 || b < 0 || b / a < 0.01)
		return true;
	return shows_zero(a, unit) || shows_zero(b, unit);
}

char *compare_ratio(char *buf, size_t len, double a, double b, enum unit unit)
{
	double r;

	if (isnan(a) || isnan(b)) {
		snprintf(buf, len, "n/a");
	} else if (a == 0 && b == 0) {
		snprintf(buf, len, "same");
	} else if (compare_as_difference(a, b, unit)) {
		char d[64];

		render_value(d, sizeof(d), fabs(b - a), unit);
		snprintf(buf, len, "%c%s", b > a ? '+' : '-', d);
	} else if ((r = b / a) >= 99.5) {
		snprintf(buf, len, "%.0fx", r);
	} else {
		snprintf(buf, len, "%.2fx", r);
	}
	return buf;
}

enum noise compare_noise(double alo, double ahi, double blo, double bhi)
{
	if (isnan(alo) || isnan(ahi) || isnan(blo) || isnan(bhi))
		return NOISE_UNKNOWN;
	return ahi < blo || bhi < alo ? NOISE_BEYOND : NOISE_WITHIN;
}

const char *noise_name(enum noise n)
{
	return n == NOISE_BEYOND ? "beyond noise" : n == NOISE_WITHIN ? "not distinguishable" : "";
}

const char *compare_change(double a, double b, enum better dir, enum noise n)
{
	if (isnan(a) || isnan(b))
		return "";
	if (a == b)
		return "same";
	if (dir == BETTER_UNKNOWN || n != NOISE_BEYOND)
		return "";
	return (b > a) == (dir == BETTER_HIGHER) ? "better" : "worse";
}

void fleet_band(const double *v, size_t n, double k, struct fleet_band *b)
{
	double *w = xcalloc(n ? n : 1, sizeof(*w));
	size_t m = 0;

	memset(b, 0, sizeof(*b));
	b->median = b->mad = b->width = b->lo = b->hi = NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			w[m++] = v[i];
	b->n = m;
	if (m) {
		b->median = median_sort(w, m);
		for (size_t i = 0; i < m; i++)
			w[i] = fabs(w[i] - b->median);
		b->mad = 1.4826 * median_sort(w, m);
	}
	if (m >= FLEET_MIN_HOSTS) {
		double floor = FLEET_MAD_FLOOR * fabs(b->median);

		b->judged = true;
		b->width = k * (b->mad > floor ? b->mad : floor);
		b->lo = b->median - b->width;
		b->hi = b->median + b->width;
	}
	free(w);
}

int fleet_side(const struct fleet_band *b, double x)
{
	if (!b->judged || !isfinite(x))
		return 0;
	return x < b->lo ? -1 : x > b->hi ? 1 : 0;
}
