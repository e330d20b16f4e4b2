/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/out/svg.c, table-driven: escaping and safe ids,
 * short number labels, the pixel map of linear and log scales, round
 * ticks on both, and the tick labels an axis writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/svg.h"

#define MI (1024.0 * 1024.0)

/* What FN writes for IN (and N), as a string the caller frees. */
static char *capture_esc(void (*fn)(FILE *, const char *), void (*fn_trunc)(FILE *, const char *, size_t),
			 const char *in, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (fn)
		fn(f, in);
	else
		fn_trunc(f, in, n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_esc(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain text", "plain text" },
		{ "a<b>&c", "a&lt;b&gt;&amp;c" },
		{ "\"><svg onload=x>", "&quot;&gt;&lt;svg onload=x&gt;" },
		{ "it's", "it&#39;s" },
		{ "tab\tnew\nline", "tab\tnew\nline" },
		{ "bell\a del\x7f", "bell&#xfffd; del&#xfffd;" },
		{ "", "" },
		{ NULL, "" },
		{ "h\xc3\xa9llo", "h\xc3\xa9llo" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = capture_esc(svg_esc, NULL, cases[i].in, 0);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

static void test_esc_trunc(void **state)
{
	static const struct {
		const char *in;
		size_t max;
		const char *want;
	} cases[] = {
		{ "short", 10, "short" },
		{ "exactly", 7, "exactly" },
		{ "one more", 7, "one mor&#8230;" },
		/* UTF-8: characters, not bytes, and never half of one. */
		{ "h\xc3\xa9llo w\xc3\xb6rld", 5, "h\xc3\xa9llo&#8230;" },
		{ "<<<<", 2, "&lt;&lt;&#8230;" },
		{ NULL, 3, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = capture_esc(NULL, svg_esc_trunc, cases[i].in, cases[i].max);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

static void test_idpart(void **state)
{
	char b[8];

	(void)state;
	svg_idpart(b, sizeof(b), "lat_ns");
	assert_string_equal(b, "lat_ns");
	svg_idpart(b, sizeof(b), "a\"> b-c");
	assert_string_equal(b, "a___b-c");
	svg_idpart(b, sizeof(b), "much too long");
	assert_string_equal(b, "much_to");
	svg_idpart(b, sizeof(b), NULL);
	assert_string_equal(b, "");
}

static void test_numbers(void **state)
{
	static const struct {
		double v;
		enum unit u;
		const char *want;
	} cases[] = {
		{ 1.5 * MI, UNIT_BYTES_PER_S, "1.5 MiB/s" },
		{ 4096, UNIT_BYTES, "4 KiB" },
		{ 12000, UNIT_NS, "12 us" },
		{ 2.5e6, UNIT_NS, "2.5 ms" },
		{ 3e9, UNIT_NS, "3 s" },
		{ 850, UNIT_NS, "850 ns" },
		{ 50, UNIT_PERCENT, "50 %" },
		{ 1500, UNIT_COUNT, "1.5k" },
		{ 2e6, UNIT_PER_S, "2 M/s" },
		{ 1e9, UNIT_BITS_PER_S, "1 Gbit/s" },
		{ 0.25, UNIT_SECONDS, "0.25 s" },
		{ NAN, UNIT_NS, "n/a" },
	};
	static const struct {
		double v;
		const char *want;
	} num3[] = {
		{ 0, "0" }, { 1234.4, "1234" }, { 12.34, "12.3" }, { 1.5, "1.5" }, { 2.0, "2" }, { 0.001234, "0.00123" },
		{ -12.34, "-12.3" },
	};
	char b[48];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		svg_fmt_short(b, sizeof(b), cases[i].v, cases[i].u);
		assert_string_equal(b, cases[i].want);
	}
	for (size_t i = 0; i < sizeof(num3) / sizeof(num3[0]); i++) {
		svg_num3(b, sizeof(b), num3[i].v);
		assert_string_equal(b, num3[i].want);
	}
}

static void test_px(void **state)
{
	struct svg_scale lin = { .lo = 0, .hi = 10, .p0 = 100, .p1 = 200 };
	struct svg_scale y = { .lo = 0, .hi = 10, .p0 = 200, .p1 = 100 };	/* y grows upwards */
	struct svg_scale lg = { .lo = 1, .hi = 100, .p0 = 0, .p1 = 200, .log = true };
	struct svg_scale empty = { .lo = 5, .hi = 5, .p0 = 0, .p1 = 50 };

	(void)state;
	assert_float_equal(svg_px(&lin, 0), 100, 1e-9);
	assert_float_equal(svg_px(&lin, 5), 150, 1e-9);
	assert_float_equal(svg_px(&lin, 10), 200, 1e-9);
	assert_float_equal(svg_px(&y, 10), 100, 1e-9);
	assert_float_equal(svg_px(&lg, 10), 100, 1e-9);
	assert_float_equal(svg_px(&lg, 100), 200, 1e-9);
	assert_float_equal(svg_px(&lg, 0), 0, 1e-9);	/* <= 0 on a log scale: its low end */
	assert_float_equal(svg_px(&empty, 5), 25, 1e-9);
}

static void test_lin_ticks(void **state)
{
	double t[SVG_MAXTICKS], hi;
	size_t n;

	(void)state;
	/* Extended to a round top: 0, 20, ..., 100. */
	hi = 97;
	n = svg_lin_ticks(0, &hi, UNIT_COUNT, true, t);
	assert_int_equal(n, 6);
	assert_float_equal(hi, 100, 1e-9);
	for (size_t i = 0; i < n; i++)
		assert_float_equal(t[i], 20.0 * (double)i, 1e-9);
	/* Not extended: the top stays, the last tick is below it. */
	hi = 97;
	n = svg_lin_ticks(0, &hi, UNIT_COUNT, false, t);
	assert_int_equal(n, 5);
	assert_float_equal(hi, 97, 1e-9);
	/* Bytes step in binary units: 0 to 3 GiB by 500 MiB. */
	hi = 3072 * MI;
	n = svg_lin_ticks(0, &hi, UNIT_BYTES, false, t);
	assert_int_equal(n, 7);
	assert_float_equal(t[1], 500 * MI, 1e-3);
	assert_float_equal(t[6], 3000 * MI, 1e-3);
	/* A start off the grid begins at the next round tick. */
	hi = 10;
	n = svg_lin_ticks(0.3, &hi, UNIT_SECONDS, false, t);
	assert_int_equal(n, 5);
	assert_float_equal(t[0], 2, 1e-9);
}

static void test_log_ticks(void **state)
{
	double t[SVG_MAXTICKS];
	size_t n;

	(void)state;
	/* Bytes: powers of two, every other one over 12 octaves. */
	n = svg_log_ticks(4096, 16 * MI, UNIT_BYTES, t);
	assert_int_equal(n, 7);
	assert_float_equal(t[0], 4096, 1e-9);
	assert_float_equal(t[1], 16384, 1e-9);
	assert_float_equal(t[6], 16 * MI, 1e-9);
	/* Decades over a wide range. */
	n = svg_log_ticks(1, 1000, UNIT_NS, t);
	assert_int_equal(n, 4);
	assert_float_equal(t[3], 1000, 1e-9);
	/* 1-2-5 over a narrow one. */
	n = svg_log_ticks(1, 50, UNIT_NS, t);
	assert_int_equal(n, 6);
	assert_float_equal(t[1], 2, 1e-9);
	assert_float_equal(t[5], 50, 1e-9);
	/* Not a log domain: no ticks. */
	assert_int_equal(svg_log_ticks(0, 10, UNIT_NS, t), 0);
	assert_int_equal(svg_log_ticks(10, 1, UNIT_NS, t), 0);
	assert_int_equal(svg_log_ticks(1, INFINITY, UNIT_NS, t), 0);
}

/* The labels of a byte-rate axis share the step's prefix, so they stay round. */
static void test_axis_labels(void **state)
{
	struct svg_frame fr;
	double t[] = { 200 * MI, 400 * MI, 600 * MI, 800 * MI, 1000 * MI, 1200 * MI };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	svg_frame_init(&fr, 300, 20, 40);
	fr.y.lo = 0;
	fr.y.hi = 1200 * MI;
	svg_begin(f, "test", "t1", &fr);
	svg_axis_y(f, &fr, t, sizeof(t) / sizeof(t[0]), UNIT_BYTES_PER_S, "<rate>");
	svg_end(f);
	assert_int_equal(fclose(f), 0);
	assert_true(strncmp(buf, "<svg class=\"chart test\" id=\"t1\" viewBox=\"0 0 960 300\"", 52) == 0);
	assert_non_null(strstr(buf, ">200 MiB/s</text>"));
	assert_non_null(strstr(buf, ">1200 MiB/s</text>"));
	assert_null(strstr(buf, "1.17 GiB/s"));
	assert_non_null(strstr(buf, ">&lt;rate&gt;</text>"));
	assert_non_null(strstr(buf, "</svg>\n"));
	free(buf);
}

/* Categories are bars, each named by its own label; two decades or more put them on a log axis. */
static void test_bars(void **state)
{
	static const struct {
		double v[3];
		const char *scale;
	} cases[] = {
		{ { 100, 250, 180 }, "data-x-scale=\"linear\"" },
		{ { 1e3, 2e5, 5e4 }, "data-x-scale=\"log\"" },
		{ { 0, 2e5, 5e4 }, "data-x-scale=\"linear\"" },	/* a zero has no place on a log axis */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct svg_bar b[] = {
			{ "cached", "cached read", cases[i].v[0] },
			{ "device", "device read", cases[i].v[1] },
			{ "seq-write", "write", cases[i].v[2] },
		};
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		svg_bars(f, "steps bars", "b1", b, 3, UNIT_BYTES_PER_S);
		assert_int_equal(fclose(f), 0);
		assert_non_null(strstr(buf, cases[i].scale));
		assert_null(strstr(buf, "<polyline"));
		assert_non_null(strstr(buf, "<title>device: device read = "));
		assert_non_null(strstr(buf, ">write</tspan>"));
		free(buf);
	}
}

/* A curve whose values span a decade gets a log y axis; a flat one stays linear from 0. */
static void test_curves_scale(void **state)
{
	struct svg_point steep[] = { { 4096, 1.2, "4k" }, { 65536, 4.1, "64k" }, { 16777216, 95, "16m" } };
	struct svg_point flat[] = { { 1, 10, "1" }, { 2, 12, "2" }, { 4, 15, "4" } };
	struct svg_curve c[] = { { "load latency", steep, 3 }, { "threads", flat, 3 } };
	char *buf = NULL, *c1, *c2;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	svg_curves(f, "curve", "c1", &c[0], 1, UNIT_NS, true, UNIT_BYTES, "size");
	svg_curves(f, "curve", "c2", &c[1], 1, UNIT_PER_S, false, UNIT_COUNT, "threads");
	assert_int_equal(fclose(f), 0);
	c1 = strstr(buf, "id=\"c1\"");
	c2 = strstr(buf, "id=\"c2\"");
	assert_non_null(c1);
	assert_non_null(c2);
	assert_ptr_equal(strstr(c1, "data-x-scale"), strstr(c1, "data-x-scale=\"log\" data-y-scale=\"log\""));
	assert_true(strstr(c1, "data-x-scale") < c2);
	assert_ptr_equal(strstr(c2, "data-x-scale"), strstr(c2, "data-x-scale=\"linear\" data-y-scale=\"linear\""));
	assert_non_null(strstr(buf, ">16 MiB</text>"));	/* few points: each x is a tick */
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_esc),
		cmocka_unit_test(test_esc_trunc),
		cmocka_unit_test(test_idpart),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_px),
		cmocka_unit_test(test_lin_ticks),
		cmocka_unit_test(test_log_ticks),
		cmocka_unit_test(test_axis_labels),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_curves_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
